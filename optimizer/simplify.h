// Algebraic simplification: local rewrites that remove work without changing any result.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "simplify": algebraic simplification iterated to a fixed point. Removes neutral-element
/// arithmetic with `full` constants (x+0, x-0, x*1, x/1), casts to the same dtype, copies,
/// views to the operand's own type, chains of reshape/squeeze/unsqueeze (-> one reshape) and
/// of permutes (-> one permute or none), and expands feeding broadcasting elementwise ops.
/// f32/f64 powers with a small constant exponent become the arithmetic PyTorch's own kernels
/// use for them (x*x, x*x*x, sqrt, rsqrt, reciprocal): eager's roundings, no pow call.
/// A rewrite only happens when the result type is unchanged, so shapes never drift. Graph
/// outputs may end up being graph inputs or listed twice. Counts each rewrite in
/// statistics["simplify.<rule>"]; never fails.
std::unique_ptr<Pass> createSimplifyPass();

} // namespace thunderc::opt
