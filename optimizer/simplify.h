// Algebraic simplification.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "simplify": algebraic simplification. (Stub: being written.)
std::unique_ptr<Pass> createSimplifyPass();

} // namespace thunderc::opt
