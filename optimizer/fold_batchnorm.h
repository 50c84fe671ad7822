// Inference batch_norm folded into the preceding conv2d.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "fold-batchnorm": inference batch_norm folded into the preceding conv2d. (Stub: being written.)
std::unique_ptr<Pass> createFoldBatchnormPass();

} // namespace thunderc::opt
