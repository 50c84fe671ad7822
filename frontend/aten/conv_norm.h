// Import functions of frontend/aten/table.cpp's table for the convolution and normalization
// family: 1-d, 2-d and 3-d convolutions (plain and transposed), group/instance norm, weight norm and
// vector norms. Their decompositions (frontend/aten/conv_norm.cpp) are larger than the rest of
// the table's entries, hence their own file.
#pragma once

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// conv1d/conv2d/conv3d.default (training IR) and convolution.default (core ATen, plain or
/// transposed). 1-d convolutions become 2-d ones over a unit height; 3-d ones a conv2d over
/// the depth taps unfolded into channels, transposed 3-d ones a conv_transpose2d per input
/// depth whose planes are summed into their output depths (static depth); unbatched inputs
/// get a batch of one.
Status importConvolution(NodeImport &node);

/// conv1d.padding / conv2d.padding / conv3d.padding: padding given as "valid" or "same" (stride 1); an odd
/// total "same" padding (even kernel extent) puts its extra element last, like PyTorch.
Status importConvolutionPaddingMode(NodeImport &node);

/// conv_transpose1d.default, conv_transpose2d.input and conv_transpose3d.input (training IR).
Status importConvTranspose(NodeImport &node);

/// group_norm.default (training IR) and native_group_norm.default (core ATen; its mean and
/// rstd outputs, [N, groups], are computed when used). Decomposed into mean, var and
/// elementwise ops in float32 (f16/bf16) or the input's dtype.
Status importGroupNorm(NodeImport &node);

/// instance_norm.default: group_norm with one group per channel when use_input_stats,
/// else inference batch_norm with the running statistics.
Status importInstanceNorm(NodeImport &node);

/// _native_batch_norm_legit.no_stats (core ATen's form of instance_norm) and batch_norm.default
/// in training mode without running statistics: normalization over every dim but the channel
/// dim 1 with the batch's own mean and biased variance, then the optional per-channel affine.
/// Outputs 1 and 2 of no_stats (save_mean, save_invstd: [C]) are computed when used. Nothing
/// is updated (there are no running statistics); training=False is an error (PyTorch's too).
Status importBatchStatsNorm(NodeImport &node);

/// _weight_norm.default(v, g, dim) = v * g / norm of v over every dim but `dim` (over all
/// dims when dim is -1).
Status importWeightNorm(NodeImport &node);

/// linalg_vector_norm.default: ord 2, 1, inf, -inf, 0 and any other p, over `dim` (all dims
/// when None or empty), keepdim, dtype.
Status importVectorNorm(NodeImport &node);

} // namespace thunderc::frontend
