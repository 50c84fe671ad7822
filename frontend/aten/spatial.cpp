// Imports of 3-d pooling, pooling indices, grid sampling (and affine_grid) and im2col / col2im.
// The pools and grid_sample map onto their ops; affine_grid is a matmul of a constant base grid
// with theta, as in PyTorch; im2col and col2im are decompositions: im2col is pure data
// movement (pad, strided slices, concat), col2im a conv_transpose2d whose one-hot weight makes
// its GEMM copy the columns and its col2im stage sum them (exact, but for an inf or NaN column
// entry, which the zero weights of the other taps turn into NaN in its neighbours' sums).
#include "frontend/aten/converters.h"

#include <string>
#include <utility>
#include <vector>

#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

/// Makes `value` the exported output `index`, which must have the exported type.
Status bind(NodeImport &node, int index, Value *value) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(index));
  if (!(value->type() == out))
    return invalidInput("node '" + node.name() + "': output " + std::to_string(index) +
                        " comes out as " + value->type().str() + " but the export declares " +
                        out.str());
  if (value->producer() != nullptr && ir::hasTrait(value->producer()->op(), ir::kView))
    node.state().viewResults.insert(value);
  value->setName(node.outputName(index));
  node.bindOutput(index, value);
  return Status::success();
}

/// Binds output 0 and checks that no later output is used.
Status bindOnly(NodeImport &node, Value *value) {
  for (int i = 1; i < node.numOutputs(); ++i)
    if (node.isOutputUsed(i))
      return node.unsupportedFeature("output " + std::to_string(i) + " ('" +
                                     node.outputName(i) + "') is used; thunderc computes only "
                                     "the first");
  return bind(node, 0, value);
}

/// A per-spatial-dim int list argument of `spatial` entries; one entry applies to every dim,
/// and an empty list gives `fallback` (pool strides default to the kernel size).
Expected<std::vector<int64_t>> spatialList(NodeImport &node, std::string_view arg, size_t spatial,
                                           const std::vector<int64_t> &fallback = {}) {
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> values, node.intList(arg));
  if (values.empty() && !fallback.empty())
    return fallback;
  if (values.size() == 1)
    values.resize(spatial, values[0]);
  if (values.size() != spatial)
    return invalidInput("argument '" + std::string(arg) + "' of node '" + node.name() +
                        "' has " + std::to_string(values.size()) + " entries, expected " +
                        std::to_string(spatial));
  return values;
}

Expected<Value *> reshape(NodeImport &node, Value *value, const ir::Shape &shape) {
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(shape));
  return node.emitInferred(OpKind::Reshape, {value}, std::move(attrs));
}

/// The spatial rank of a pool node: 3 for the *3d overloads, else 2.
size_t poolSpatialDims(NodeImport &node) {
  return node.schema().name.find("3d") != std::string::npos ? 3 : 2;
}

} // namespace

/// max_pool2d_with_indices, max_pool3d and max_pool3d_with_indices: max_pool2d / max_pool3d,
/// and max_pool_indices for the indices output when it is used.
Status importMaxPoolWithIndices(NodeImport &node) {
  size_t spatial = poolSpatialDims(node);
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, spatialList(node, "kernel_size", spatial));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> stride, spatialList(node, "stride", spatial, kernel));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> padding, spatialList(node, "padding", spatial));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, spatialList(node, "dilation", spatial));
  TC_ASSIGN_OR_RETURN(bool ceilMode, node.boolArg("ceil_mode"));
  AttrMap attrs;
  attrs.set("ceil_mode", ceilMode);
  attrs.set("dilation", dilation);
  attrs.set("kernel", kernel);
  attrs.set("padding", padding);
  attrs.set("stride", stride);
  OpKind op = spatial == 3 ? OpKind::MaxPool3d : OpKind::MaxPool2d;
  TC_ASSIGN_OR_RETURN(Value * values, node.emitInferred(op, {self}, attrs));
  TC_TRY(bind(node, 0, values));
  if (node.numOutputs() < 2 || !node.isOutputUsed(1))
    return Status::success();
  TC_ASSIGN_OR_RETURN(Value * indices,
                      node.emitInferred(OpKind::MaxPoolIndices, {self}, std::move(attrs)));
  return bind(node, 1, indices);
}

/// avg_pool3d.default: avg_pool3d (ceil_mode, count_include_pad, divisor_override).
Status importAvgPool3d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, spatialList(node, "kernel_size", 3));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> stride, spatialList(node, "stride", 3, kernel));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> padding, spatialList(node, "padding", 3));
  TC_ASSIGN_OR_RETURN(bool ceilMode, node.boolArg("ceil_mode"));
  TC_ASSIGN_OR_RETURN(bool countIncludePad, node.boolArg("count_include_pad"));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> divisor, node.optionalInt("divisor_override"));
  AttrMap attrs;
  attrs.set("ceil_mode", ceilMode);
  attrs.set("count_include_pad", countIncludePad);
  if (divisor)
    attrs.set("divisor_override", *divisor);
  attrs.set("kernel", kernel);
  attrs.set("padding", padding);
  attrs.set("stride", stride);
  TC_ASSIGN_OR_RETURN(Value * y, node.emitInferred(OpKind::AvgPool3d, {self}, std::move(attrs)));
  return bindOnly(node, y);
}

/// adaptive_avg_pool3d.default (training IR) and _adaptive_avg_pool3d.default (core ATen).
Status importAdaptiveAvgPool3d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> size, spatialList(node, "output_size", 3));
  AttrMap attrs;
  attrs.set("output_size", size);
  TC_ASSIGN_OR_RETURN(Value * y, node.emitInferred(OpKind::AdaptiveAvgPool3d, {self}, std::move(attrs)));
  return bindOnly(node, y);
}

/// grid_sampler_2d.default (core ATen) and grid_sampler.default with a 4-d input (training
/// IR): grid_sample, the interpolation and padding modes given by PyTorch's enum numbers.
/// grid_sampler.default with a 5-d input is grid_sampler_3d.
Status importGridSampler(NodeImport &node) {
  static const char *const kModes[] = {"bilinear", "nearest", "bicubic"};
  static const char *const kPaddings[] = {"zeros", "border", "reflection"};
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(Value * grid, node.tensor("grid"));
  TC_ASSIGN_OR_RETURN(int64_t mode, node.intArg("interpolation_mode"));
  TC_ASSIGN_OR_RETURN(int64_t padding, node.intArg("padding_mode"));
  TC_ASSIGN_OR_RETURN(bool alignCorners, node.boolArg("align_corners"));
  if (input->type().rank() == 5 && node.schema().name == "grid_sampler") {
    // A volume: grid_sampler_3d's import (a decomposition), which takes the same arguments.
    const OpSchema *schema = findOpSchema("aten.grid_sampler_3d.default");
    ImportFunction volume = findImportFunction("aten.grid_sampler_3d.default");
    TC_CHECK(schema != nullptr && volume != nullptr, "grid_sampler_3d is not imported");
    NodeImport renamed = node.withSchema(*schema);
    TC_TRY(renamed.matchArguments());
    return volume(renamed);
  }
  if (input->type().rank() != 4)
    return node.unsupportedFeature("grid sampling of a rank-" +
                                   std::to_string(input->type().rank()) + " input " +
                                   input->type().str() + " (only 4-d [N,C,H,W] inputs)");
  if (mode < 0 || mode > 2)
    return invalidInput("grid_sampler interpolation_mode " + std::to_string(mode) +
                        " of node '" + node.name() + "' (expected 0, 1 or 2)");
  if (padding < 0 || padding > 2)
    return invalidInput("grid_sampler padding_mode " + std::to_string(padding) + " of node '" +
                        node.name() + "' (expected 0, 1 or 2)");
  AttrMap attrs;
  attrs.set("align_corners", alignCorners);
  attrs.set("mode", std::string(kModes[mode]));
  attrs.set("padding_mode", std::string(kPaddings[padding]));
  TC_ASSIGN_OR_RETURN(Value * y, node.emitInferred(OpKind::GridSample, {input, grid}, std::move(attrs)));
  return bindOnly(node, y);
}

namespace {

/// PyTorch's linspace_from_neg_one: `steps` points from -1 to 1 (scaled by (steps - 1) / steps
/// without align_corners, so that they are pixel centers), one point being 0.
Value *gridLine(NodeImport &node, int64_t steps, bool alignCorners, DType dtype) {
  double scale = alignCorners || steps <= 1 ? 1.0 : static_cast<double>(steps - 1) / steps;
  double step = steps <= 1 ? 0.0 : 2.0 * scale / static_cast<double>(steps - 1);
  AttrMap range;
  range.set("start", steps <= 1 ? 0.0 : -scale);
  range.set("step", step);
  return node.emitTemp(OpKind::Arange, {}, ir::TensorType{dtype, {ir::Dim(steps)}},
                       std::move(range));
}

} // namespace

/// affine_grid_generator.default (training IR; F.affine_grid) for 4-d sizes: the base grid
/// of (x, y, 1) pixel-center coordinates [1, H * W, 3] times theta^T, as [N, H, W, 2].
Status importAffineGrid(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * theta, node.tensor("theta"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> size, node.intList("size"));
  TC_ASSIGN_OR_RETURN(bool alignCorners, node.boolArg("align_corners"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (size.size() != 4)
    return node.unsupportedFeature("affine_grid of size " + std::to_string(size.size()) +
                                   "-d (only 4-d [N,C,H,W] sizes)");
  DType dtype = theta->type().dtype;
  const int64_t height = size[2], width = size[3];
  // base[h, w] = (x_w, y_h, 1), flattened to [1, H * W, 3]; grid = base @ theta^T.
  ir::Shape plane{ir::Dim(height), ir::Dim(width), ir::Dim(1)};
  TC_ASSIGN_OR_RETURN(Value * xs, reshape(node, gridLine(node, width, alignCorners, dtype),
                                          {ir::Dim(1), ir::Dim(width), ir::Dim(1)}));
  TC_ASSIGN_OR_RETURN(Value * ys, reshape(node, gridLine(node, height, alignCorners, dtype),
                                          {ir::Dim(height), ir::Dim(1), ir::Dim(1)}));
  AttrMap expand;
  expand.set("shape", ir::makeDimsAttr(plane));
  TC_ASSIGN_OR_RETURN(xs, node.emitInferred(OpKind::Expand, {xs}, expand));
  TC_ASSIGN_OR_RETURN(ys, node.emitInferred(OpKind::Expand, {ys}, std::move(expand)));
  AttrMap one;
  one.set("value", 1.0);
  Value *ones = node.emitTemp(OpKind::Full, {}, ir::TensorType{dtype, plane}, std::move(one));
  AttrMap concat;
  concat.set("dim", int64_t{2});
  TC_ASSIGN_OR_RETURN(Value * base, node.emitInferred(OpKind::Concat, {xs, ys, ones}, std::move(concat)));
  TC_ASSIGN_OR_RETURN(base, reshape(node, base, {ir::Dim(1), ir::Dim(height * width), ir::Dim(3)}));
  AttrMap transpose;
  transpose.set("dims", std::vector<int64_t>{0, 2, 1});
  TC_ASSIGN_OR_RETURN(Value * thetaT, node.emitInferred(OpKind::Permute, {theta}, std::move(transpose)));
  TC_ASSIGN_OR_RETURN(Value * grid, node.emitInferred(OpKind::Matmul, {base, thetaT}));
  TC_ASSIGN_OR_RETURN(grid, reshape(node, grid, out.shape));
  return bindOnly(node, grid);
}

namespace {

/// The geometry of im2col / col2im along one spatial dim.
struct FoldDim {
  int64_t kernel, dilation, padding, stride;
  /// Sliding positions: (size + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1.
  int64_t blocks;
};

Expected<std::vector<FoldDim>> foldDims(NodeImport &node, const std::vector<int64_t> &sizes) {
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, spatialList(node, "kernel_size", 2));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, spatialList(node, "dilation", 2));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> padding, spatialList(node, "padding", 2));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> stride, spatialList(node, "stride", 2));
  std::vector<FoldDim> dims;
  for (size_t i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || dilation[i] < 1 || stride[i] < 1 || padding[i] < 0)
      return invalidInput(node.schema().name + " of node '" + node.name() +
                          "': kernel_size, dilation and stride must be positive and padding "
                          "non-negative");
    int64_t span = sizes[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1;
    if (span < 0)
      return invalidInput(node.schema().name + " of node '" + node.name() +
                          "': the kernel (" + std::to_string(kernel[i]) + ", dilation " +
                          std::to_string(dilation[i]) + ") does not fit the padded size " +
                          std::to_string(sizes[i] + 2 * padding[i]));
    dims.push_back({kernel[i], dilation[i], padding[i], stride[i], span / stride[i] + 1});
  }
  return dims;
}

Expected<int64_t> staticDim(NodeImport &node, const Value *value, size_t dim) {
  const ir::Dim &size = value->type().shape[dim];
  if (!size.isStatic())
    return node.unsupportedFeature(node.schema().name + " over a symbolic size " +
                                   size.str() + " (" + value->type().str() + ")");
  return size.value();
}

} // namespace

/// im2col.default (nn.Unfold): the padded input's kernel taps as strided slices, stacked into
/// [N, C * kH * kW, L].
Status importIm2col(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  int64_t rank = self->type().rank();
  if (rank != 3 && rank != 4)
    return invalidInput("im2col input " + self->type().str() + " of node '" + node.name() +
                        "' must be [N,C,H,W] or [C,H,W]");
  auto h = static_cast<size_t>(rank - 2);
  TC_ASSIGN_OR_RETURN(int64_t height, staticDim(node, self, h));
  TC_ASSIGN_OR_RETURN(int64_t width, staticDim(node, self, h + 1));
  TC_ASSIGN_OR_RETURN(std::vector<FoldDim> dims, foldDims(node, {height, width}));
  Value *x = self;
  if (dims[0].padding != 0 || dims[1].padding != 0) {
    std::vector<int64_t> pads(2 * static_cast<size_t>(rank), 0);
    for (size_t i = 0; i < 2; ++i) {
      pads[2 * (h + i)] = dims[i].padding;
      pads[2 * (h + i) + 1] = dims[i].padding;
    }
    AttrMap attrs;
    attrs.set("mode", std::string("constant"));
    attrs.set("pads", std::move(pads));
    attrs.set("value", 0.0);
    TC_ASSIGN_OR_RETURN(x, node.emitInferred(OpKind::Pad, {x}, std::move(attrs)));
  }
  // Tap (i, j): rows i * dil_h + stride_h * [0, blocks_h), columns likewise.
  std::vector<Value *> taps;
  for (int64_t i = 0; i < dims[0].kernel; ++i) {
    for (int64_t j = 0; j < dims[1].kernel; ++j) {
      Value *tap = x;
      const int64_t offsets[2] = {i, j};
      for (size_t d = 0; d < 2; ++d) {
        const FoldDim &fold = dims[d];
        int64_t start = offsets[d] * fold.dilation;
        AttrMap slice;
        slice.set("dim", static_cast<int64_t>(h + d));
        slice.set("end", ir::makeDimAttr(ir::Dim(start + (fold.blocks - 1) * fold.stride + 1)));
        slice.set("start", start);
        slice.set("step", fold.stride);
        TC_ASSIGN_OR_RETURN(tap, node.emitInferred(OpKind::Slice, {tap}, std::move(slice)));
      }
      AttrMap unsqueeze;
      unsqueeze.set("dim", static_cast<int64_t>(h));
      TC_ASSIGN_OR_RETURN(tap, node.emitInferred(OpKind::Unsqueeze, {tap}, std::move(unsqueeze)));
      taps.push_back(tap);
    }
  }
  Value *stacked = taps[0];
  if (taps.size() > 1) {
    AttrMap concat;
    concat.set("dim", static_cast<int64_t>(h));
    TC_ASSIGN_OR_RETURN(stacked, node.emitInferred(OpKind::Concat, taps, std::move(concat)));
  }
  // [.., C, K, blocks_h, blocks_w] -> [.., C * K, L]
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(Value * y, reshape(node, stacked, out.shape));
  return bindOnly(node, y);
}

/// col2im.default (nn.Fold): conv_transpose2d of the columns with a one-hot weight, one group
/// per channel.
Status importCol2im(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> outputSize, spatialList(node, "output_size", 2));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  DType dtype = self->type().dtype;
  if (!ir::isFloatingPoint(dtype))
    return node.unsupportedFeature("col2im of a " + std::string(ir::dtypeName(dtype)) +
                                   " tensor (floating tensors only)");
  int64_t rank = self->type().rank();
  if (rank != 2 && rank != 3)
    return invalidInput("col2im input " + self->type().str() + " of node '" + node.name() +
                        "' must be [N, C * kH * kW, L] or [C * kH * kW, L]");
  TC_ASSIGN_OR_RETURN(std::vector<FoldDim> dims, foldDims(node, outputSize));
  const int64_t taps = dims[0].kernel * dims[1].kernel;
  const bool batched = rank == 3;
  TC_ASSIGN_OR_RETURN(int64_t rows, staticDim(node, self, batched ? 1 : 0));
  TC_ASSIGN_OR_RETURN(int64_t blocks, staticDim(node, self, batched ? 2 : 1));
  if (rows % taps != 0 || blocks != dims[0].blocks * dims[1].blocks)
    return invalidInput("col2im input " + self->type().str() + " of node '" + node.name() +
                        "' does not hold " + std::to_string(taps) + " taps per channel and " +
                        std::to_string(dims[0].blocks) + " x " + std::to_string(dims[1].blocks) +
                        " blocks");
  const int64_t channels = rows / taps;
  // The columns as a batch of [C * K, blocks_h, blocks_w] images.
  ir::Dim batch = batched ? self->type().shape[0] : ir::Dim(1);
  TC_ASSIGN_OR_RETURN(Value * columns,
                      reshape(node, self, {batch, ir::Dim(rows), ir::Dim(dims[0].blocks),
                                           ir::Dim(dims[1].blocks)}));
  // weight[c * K + k, 0, i, j] = (k == i * kW + j): a [K, K] identity repeated per channel.
  AttrMap range;
  range.set("start", 0.0);
  range.set("step", 1.0);
  Value *tap = node.emitTemp(OpKind::Arange, {}, ir::TensorType{DType::I64, {ir::Dim(taps)}},
                             std::move(range));
  TC_ASSIGN_OR_RETURN(Value * column, reshape(node, tap, {ir::Dim(taps), ir::Dim(1)}));
  TC_ASSIGN_OR_RETURN(Value * row, reshape(node, tap, {ir::Dim(1), ir::Dim(taps)}));
  TC_ASSIGN_OR_RETURN(Value * identity, node.emitInferred(OpKind::Eq, {column, row}));
  TC_ASSIGN_OR_RETURN(Value * one, reshape(node, node.castTo(identity, dtype),
                                           {ir::Dim(1), ir::Dim(taps), ir::Dim(taps)}));
  AttrMap expand;
  expand.set("shape", ir::makeDimsAttr({ir::Dim(channels), ir::Dim(taps), ir::Dim(taps)}));
  TC_ASSIGN_OR_RETURN(Value * repeated, node.emitInferred(OpKind::Expand, {one}, std::move(expand)));
  TC_ASSIGN_OR_RETURN(Value * weight,
                      reshape(node, repeated, {ir::Dim(rows), ir::Dim(1), ir::Dim(dims[0].kernel),
                                               ir::Dim(dims[1].kernel)}));
  // Output padding brings the transposed convolution's size up to output_size: it is below
  // the stride since the blocks were counted with a floor division.
  std::vector<int64_t> outputPadding;
  for (size_t d = 0; d < 2; ++d) {
    const FoldDim &fold = dims[d];
    int64_t natural = (fold.blocks - 1) * fold.stride - 2 * fold.padding +
                      fold.dilation * (fold.kernel - 1) + 1;
    outputPadding.push_back(outputSize[d] - natural);
  }
  AttrMap attrs;
  attrs.set("dilation", std::vector<int64_t>{dims[0].dilation, dims[1].dilation});
  attrs.set("groups", channels);
  attrs.set("output_padding", outputPadding);
  attrs.set("padding", std::vector<int64_t>{dims[0].padding, dims[1].padding});
  attrs.set("stride", std::vector<int64_t>{dims[0].stride, dims[1].stride});
  TC_ASSIGN_OR_RETURN(Value * y,
                      node.emitInferred(OpKind::ConvTranspose2d, {columns, weight}, std::move(attrs)));
  TC_ASSIGN_OR_RETURN(y, reshape(node, y, out.shape));
  return bindOnly(node, y);
}

namespace {

// clang-format off
constexpr Converter kConverters[] = {
    {"aten.max_pool2d_with_indices.default", importMaxPoolWithIndices},
    {"aten.max_pool3d.default", importMaxPoolWithIndices},
    {"aten.max_pool3d_with_indices.default", importMaxPoolWithIndices},
    {"aten.avg_pool3d.default", importAvgPool3d},
    {"aten.adaptive_avg_pool3d.default", importAdaptiveAvgPool3d},
    {"aten._adaptive_avg_pool3d.default", importAdaptiveAvgPool3d},
    {"aten.grid_sampler_2d.default", importGridSampler},
    {"aten.grid_sampler.default", importGridSampler},
    {"aten.affine_grid_generator.default", importAffineGrid},
    {"aten.im2col.default", importIm2col},
    {"aten.col2im.default", importCol2im},
};
// clang-format on

} // namespace

std::span<const Converter> spatialConverters() { return kConverters; }

} // namespace thunderc::frontend
