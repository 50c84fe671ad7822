// One canonical op set for both IR levels.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "canonicalize": one canonical op set for both IR levels. (Stub: being written.)
std::unique_ptr<Pass> createCanonicalizePass();

} // namespace thunderc::opt
