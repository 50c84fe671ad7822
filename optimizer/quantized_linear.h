// Weight-only quantized linear layers: dequantize -> linear chains become linear_wq, whose
// kernels read the int8 (or packed int4) weight and dequantize it in registers, so the bundle
// stores and streams 1 (or 1/2) byte per weight instead of 4.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "quantized-linear": rewrites a linear whose weight is dequantized from an integer weight
/// in the graph into linear_wq. Needs no weight data (works on text IR). Patterns, where q is
/// an i8 weight input (possibly through views and casts to wider integers), s and z weight
/// inputs (through views and casts) of shape [N, 1] (per channel), [N, G, 1] (per group) or
/// holding one value (per tensor, broadcast to [N, 1] by an expand):
///   linear(x, (cast(q) - z) * s, b?)  and  linear(x, cast(q - z) * s, b?)
///   linear(x, cast(q) * s, b?)                        (symmetric, no zero point)
///   linear(x, reshape((cast(q3) - z3) * s3, [N, K]), b?)   q3 = q viewed as [N, G, K/G]
///   mul(linear(x, cast(q)), s[N])  and  mul(matmul(x, cast(permute(q, [1, 0]))), s[N])
///                                                     (the scale applied after the GEMM)
///   add(linear_wq(..., no bias), b[N])                -> the bias joins the linear_wq
/// becomes linear_wq(x, q[N, K], reshape(s, [N, G]), cast(reshape(z, [N, G]))?, b?) {bits=8}.
/// Nodes left unused are erased; the reshapes of q, s and z are left to fold-constants.
/// Statistic "quantized-linear.<rule>" per rewrite.
std::unique_ptr<Pass> createQuantizedLinearPass();

/// "quantize-weights": (1) with PassContext::quantizeWeightBits 8 or 4 (thunderc
/// --quantize-weights int8|int4), every linear whose weight is a floating [N, K] weight with
/// data becomes linear_wq: int8 symmetric per output channel (scale = max|w| / 127, q =
/// round(w / scale)), or int4 symmetric in groups of 32 along K (scale = max|w| / 7, q in
/// [-8, 7]; K a multiple of 32, else that layer stays int8 per channel; with
/// PassContext::quantizeActivations those int4 layers get {dynamic_act}). (2) Every linear_wq
/// {bits=8} whose weight is a constant with data, all in [-8, 7], and K a multiple of 32 is
/// packed into bits=4 (two elements per byte, the layout ir/ops.def gives) -- lossless.
/// Weights left unused are erased. Needs weight data: without it (text IR) nothing changes.
/// Statistics "quantize-weights.quantized", ".packed", ".bytes-saved".
std::unique_ptr<Pass> createQuantizeWeightsPass();

} // namespace thunderc::opt
