// Import functions of frontend/aten/table.cpp's table for 3-d pooling, pooling indices, grid
// sampling and im2col / col2im (nn.Unfold / nn.Fold). frontend/aten/spatial.cpp holds them.
#pragma once

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// max_pool2d_with_indices, max_pool3d and max_pool3d_with_indices: max_pool2d / max_pool3d,
/// and max_pool_indices for the indices output when it is used.
Status importMaxPoolWithIndices(NodeImport &node);

/// avg_pool3d.default: avg_pool3d (ceil_mode, count_include_pad, divisor_override).
Status importAvgPool3d(NodeImport &node);

/// adaptive_avg_pool3d.default (training IR) and _adaptive_avg_pool3d.default (core ATen).
Status importAdaptiveAvgPool3d(NodeImport &node);

/// grid_sampler_2d.default (core ATen) and grid_sampler.default with a 4-d input (training
/// IR): grid_sample, the interpolation and padding modes given by PyTorch's enum numbers.
Status importGridSampler(NodeImport &node);

/// affine_grid_generator.default (training IR; F.affine_grid) for 4-d sizes: the base grid
/// of (x, y, 1) pixel-center coordinates [1, H * W, 3] times theta^T, as [N, H, W, 2].
Status importAffineGrid(NodeImport &node);

/// im2col.default (nn.Unfold): the padded input's kernel taps as strided slices, stacked into
/// [N, C * kH * kW, L].
Status importIm2col(NodeImport &node);

/// col2im.default (nn.Fold): conv_transpose2d of the columns with a one-hot weight, one group
/// per channel.
Status importCol2im(NodeImport &node);

} // namespace thunderc::frontend
