// Constant folding into new weights.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "fold-constants": constant folding into new weights. (Stub: being written.)
std::unique_ptr<Pass> createFoldConstantsPass();

} // namespace thunderc::opt
