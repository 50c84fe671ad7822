// Inference batch_norm folded into the preceding conv2d's weight and bias.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "fold-batchnorm": rewrites batch_norm(conv2d(x, w, b?), mean, var, gamma?, beta?) {eps}
/// into conv2d(x, w', b') with w' = w * reshape(gamma * rsqrt(var + eps), [O,1,1,1]) and
/// b' = (b - mean) * scale + beta (b = 0, gamma = 1, beta = 0 when absent). w' and b' are
/// ordinary IR nodes on the weights, in f32 for f16/bf16 convs, that fold-constants then
/// evaluates at compile time; this pass needs no weight data, so it also works on text IR.
/// Applies only when the conv's result feeds nothing but the batch_norm, every weight
/// operand (w, b, mean, var, gamma, beta) is a weight input or an operand-less full/arange,
/// all types are static and floating with one dtype, and the parameters are [O]. The new
/// conv keeps the old conv's node name, SSA name and source (it computes a convolution);
/// the weight arithmetic carries the batch_norm's. Statistic "fold-batchnorm.folded".
std::unique_ptr<Pass> createFoldBatchnormPass();

} // namespace thunderc::opt
