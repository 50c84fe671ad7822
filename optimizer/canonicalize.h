// Canonicalization: one op set for both IR levels (training IR and core ATen IR).
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "canonicalize": rewrites the core-ATen spellings of composite ops into the single ops the
/// training IR uses and the backend handles best: addmm / matmul with a transposed 2-D
/// weight (plus a following 1-D bias add, and the flatten/unflatten reshapes around it)
/// become `linear`, adaptive_avg_pool2d to 1x1 becomes `mean` over H and W, the
/// clamp/add/mul/div forms of hardswish and hardsigmoid become those ops, and the decomposed
/// scaled_dot_product_attention (scaled q @ k^T, optional mask, softmax with its all--inf
/// guard, @ v) becomes `attention` (optimizer/canonicalize_attention.h). Every rewrite keeps
/// the exact result type and the values up to floating-point rounding; the replacement takes
/// the replaced node's name and source. Counts each rewrite in
/// statistics["canonicalize.<rule>"]; never fails.
std::unique_ptr<Pass> createCanonicalizePass();

} // namespace thunderc::opt
