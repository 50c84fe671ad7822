// The convolution and normalization converters (aten/converters.h):
// every 1-d and 2-d convolution, plain or transposed, maps onto conv2d / conv_transpose2d (a
// 1-d one over a unit height); a 3-d one onto conv2d over its depth taps unfolded into channels,
// a transposed 3-d one onto conv_transpose2d per input depth plus a sum over depth taps; group,
// instance and weight norm and vector norms are decompositions into reductions and elementwise
// ops, computed in float32 for f16/bf16 like PyTorch's accumulation, then cast back.
#include "frontend/aten/converters.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

// ---- emission helpers ----

/// Makes `value`, a helper this import emitted, the exported output `index`: it takes the
/// output's name. Its type must be the one the exporter recorded.
Status bindResult(NodeImport &node, int index, Value *value) {
  TC_ASSIGN_OR_RETURN(ir::TensorType recorded, node.outputType(index));
  if (!(value->type() == recorded))
    return invalidInput("node '" + node.name() + "': output " + std::to_string(index) +
                        " comes out as " + value->type().str() + " but the exporter recorded " +
                        recorded.str());
  value->setName(node.outputName(index));
  node.bindOutput(index, value);
  if (!value->isGraphInput() && ir::hasTrait(value->producer()->op(), ir::kView))
    node.state().viewResults.insert(value);
  return Status::success();
}

/// Binds output 0 and checks that no later output is used.
Status bindOnlyResult(NodeImport &node, Value *value) {
  for (int i = 1; i < node.numOutputs(); ++i)
    if (node.isOutputUsed(i))
      return node.unsupportedFeature("output " + std::to_string(i) + " ('" +
                                     node.outputName(i) + "') is used; thunderc computes only "
                                     "the first");
  return bindResult(node, 0, value);
}

Expected<Value *> unsqueeze(NodeImport &node, Value *value, int64_t dim) {
  AttrMap attrs;
  attrs.set("dim", dim);
  return node.emitInferred(OpKind::Unsqueeze, {value}, std::move(attrs));
}

Expected<Value *> squeeze(NodeImport &node, Value *value, std::vector<int64_t> dims) {
  AttrMap attrs;
  attrs.set("dims", std::move(dims));
  return node.emitInferred(OpKind::Squeeze, {value}, std::move(attrs));
}

Expected<Value *> reshape(NodeImport &node, Value *value, const ir::Shape &shape) {
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(shape));
  return node.emitInferred(OpKind::Reshape, {value}, std::move(attrs));
}

/// A reduction over `dims` (empty: all dims).
Expected<Value *> reduce(NodeImport &node, OpKind op, Value *value, std::vector<int64_t> dims,
                         bool keepdim) {
  AttrMap attrs;
  attrs.set("dims", std::move(dims));
  attrs.set("keepdim", keepdim);
  return node.emitInferred(op, {value}, std::move(attrs));
}

Expected<Value *> binary(NodeImport &node, OpKind op, Value *a, Value *b) {
  return node.emitInferred(op, {a, b});
}

Expected<Value *> unary(NodeImport &node, OpKind op, Value *a) {
  return node.emitInferred(op, {a});
}

/// [C, 1, ..., 1] with `trailing` ones: a per-channel parameter broadcast over NC... inputs.
ir::Shape channelShape(const ir::Dim &channels, size_t trailing) {
  ir::Shape shape{channels};
  // (Appended one by one: GCC 12 flags resize(n, Dim(1))'s inlined fill as maybe-uninitialized.)
  for (size_t i = 0; i < trailing; ++i)
    shape.emplace_back(1);
  return shape;
}

/// The dtype a norm is computed in: float32 for f16/bf16 (PyTorch accumulates them in float),
/// else the dtype itself, which must be floating.
Expected<DType> normComputeDType(NodeImport &node, DType dtype, const char *what) {
  if (!ir::isFloatingPoint(dtype))
    return invalidInput(std::string(what) + " of a " + std::string(ir::dtypeName(dtype)) +
                        " tensor in node '" + node.name() + "' (it takes floating tensors)");
  return dtype == DType::F16 || dtype == DType::BF16 ? DType::F32 : dtype;
}

// ---- convolution ----

/// The arguments of one convolution, one entry per spatial dim.
struct ConvArgs {
  bool transposed = false;
  std::vector<int64_t> stride, padding, dilation, outputPadding;
  int64_t groups = 1;
  /// Outputs dropped at the start of each spatial dim ("same" padding of odd total).
  std::vector<int64_t> trimFront;
};

/// The number of spatial dims, from the weight's rank: 1, 2 or 3.
Expected<size_t> spatialDims(NodeImport &node, const Value *weight) {
  int64_t rank = weight->type().rank();
  if (rank < 3 || rank > 5)
    return invalidInput("convolution weight " + weight->type().str() + " in node '" +
                        node.name() + "' must have rank 3, 4 or 5");
  return static_cast<size_t>(rank - 2);
}

/// A per-spatial-dim list argument; a single value applies to every dim.
Expected<std::vector<int64_t>> spatialList(NodeImport &node, std::string_view arg,
                                           size_t spatial) {
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> values, node.intList(arg));
  if (values.size() == 1)
    values.resize(spatial, values[0]);
  if (values.size() != spatial)
    return invalidInput("argument '" + std::string(arg) + "' of node '" + node.name() +
                        "' has " + std::to_string(values.size()) + " entries, expected " +
                        std::to_string(spatial));
  return values;
}

Expected<Value *> permute(NodeImport &node, Value *value, std::vector<int64_t> dims) {
  AttrMap attrs;
  attrs.set("dims", std::move(dims));
  return node.emitInferred(OpKind::Permute, {value}, std::move(attrs));
}

/// x with `before` / `after` zeros added (negative: cropped) along `dim`.
Expected<Value *> padDim(NodeImport &node, Value *x, int64_t dim, int64_t before,
                         int64_t after) {
  if (before == 0 && after == 0)
    return x;
  std::vector<int64_t> pads(2 * static_cast<size_t>(x->type().rank()), 0);
  pads[2 * static_cast<size_t>(dim)] = before;
  pads[2 * static_cast<size_t>(dim) + 1] = after;
  AttrMap attrs;
  attrs.set("mode", std::string("constant"));
  attrs.set("pads", std::move(pads));
  attrs.set("value", 0.0);
  return node.emitInferred(OpKind::Pad, {x}, std::move(attrs));
}

/// The static size of dim `dim` of `value`; a symbolic one is refused, naming `what`.
Expected<int64_t> staticSize(NodeImport &node, const Value *value, size_t dim, const char *what) {
  const ir::Dim &size = value->type().shape[dim];
  if (!size.isStatic())
    return node.unsupportedFeature(std::string(what) + " over a symbolic size " + size.str() +
                                   " (" + value->type().str() + ")");
  return size.value();
}

/// A 3-d convolution of a batched x [N, C, D, H, W] as one conv2d: the depth taps are unfolded
/// into channels (an im2col along depth alone), then every output depth is one image of the
/// batch. x padded along depth gives, per tap kd, the planes slice(kd * dil_d, step stride_d)
/// [N, C, OD, H, W]; stacked after C they form [N, C, kD, OD, H, W], which permuted to
/// [N * OD, C * kD, H, W] meets the weight [O, C / groups * kD, kH, kW] (a free reshape; each
/// group's channels stay contiguous). The conv2d result [N * OD, O, OH, OW] is permuted back to
/// [N, O, OD, OH, OW]. This costs kD copies of the input, like the im2col of conv2d itself, and
/// reuses conv2d's GEMM on both targets rather than a second convolution kernel. The depth
/// extents must be static (the number of slices is the kernel depth).
Expected<Value *> conv3dAs2d(NodeImport &node, Value *x, Value *weight, Value *bias,
                             const ConvArgs &args) {
  TC_ASSIGN_OR_RETURN(int64_t depth, staticSize(node, x, 2, "3-d convolution"));
  TC_ASSIGN_OR_RETURN(int64_t taps, staticSize(node, weight, 2, "3-d convolution"));
  const int64_t stride = args.stride[0], pad = args.padding[0], dilation = args.dilation[0];
  if (stride < 1 || dilation < 1 || pad < 0)
    return invalidInput("3-d convolution of node '" + node.name() + "': depth stride " +
                        std::to_string(stride) + ", padding " + std::to_string(pad) +
                        " and dilation " + std::to_string(dilation) +
                        " (stride and dilation must be positive, padding non-negative)");
  const int64_t span = depth + 2 * pad - dilation * (taps - 1) - 1;
  if (span < 0)
    return invalidInput("3-d convolution of node '" + node.name() + "': kernel depth " +
                        std::to_string(taps) + " (dilation " + std::to_string(dilation) +
                        ") is larger than the padded input depth " +
                        std::to_string(depth + 2 * pad));
  const int64_t outDepth = span / stride + 1;
  TC_ASSIGN_OR_RETURN(Value * padded, padDim(node, x, 2, pad, pad));
  std::vector<Value *> planes;
  for (int64_t kd = 0; kd < taps; ++kd) {
    AttrMap slice;
    slice.set("dim", int64_t{2});
    slice.set("end", ir::makeDimAttr(ir::Dim(kd * dilation + (outDepth - 1) * stride + 1)));
    slice.set("start", kd * dilation);
    slice.set("step", stride);
    TC_ASSIGN_OR_RETURN(Value * tap, node.emitInferred(OpKind::Slice, {padded}, std::move(slice)));
    TC_ASSIGN_OR_RETURN(tap, unsqueeze(node, tap, 2));
    planes.push_back(tap);
  }
  Value *stacked = planes[0];
  if (planes.size() > 1) {
    AttrMap concat;
    concat.set("dim", int64_t{2});
    TC_ASSIGN_OR_RETURN(stacked, node.emitInferred(OpKind::Concat, planes, std::move(concat)));
  }
  // [N, C, kD, OD, H, W] -> [N, OD, C, kD, H, W] -> [N * OD, C * kD, H, W].
  TC_ASSIGN_OR_RETURN(Value * images, permute(node, stacked, {0, 3, 1, 2, 4, 5}));
  const ir::Shape &xs = x->type().shape;
  ir::Shape imageShape{ir::Dim(ir::SymExpr::mul(xs[0].asExpr(), ir::SymExpr::constant(outDepth))),
                       ir::Dim(ir::SymExpr::mul(xs[1].asExpr(), ir::SymExpr::constant(taps))),
                       xs[3], xs[4]};
  TC_ASSIGN_OR_RETURN(images, reshape(node, images, imageShape));
  const ir::Shape &ws = weight->type().shape;
  ir::Dim tapChannels(ir::SymExpr::mul(ws[1].asExpr(), ir::SymExpr::constant(taps)));
  ir::Shape kernelShape{ws[0], tapChannels, ws[3], ws[4]};
  TC_ASSIGN_OR_RETURN(Value * kernel, reshape(node, weight, kernelShape));
  std::vector<Value *> operands{images, kernel};
  if (bias)
    operands.push_back(bias);
  AttrMap attrs;
  attrs.set("dilation", std::vector<int64_t>{args.dilation[1], args.dilation[2]});
  attrs.set("groups", args.groups);
  attrs.set("padding", std::vector<int64_t>{args.padding[1], args.padding[2]});
  attrs.set("stride", std::vector<int64_t>{args.stride[1], args.stride[2]});
  TC_ASSIGN_OR_RETURN(Value * y, node.emitInferred(OpKind::Conv2d, operands, std::move(attrs)));
  const ir::Shape &ys = y->type().shape;
  TC_ASSIGN_OR_RETURN(y, reshape(node, y, {xs[0], ir::Dim(outDepth), ys[1], ys[2], ys[3]}));
  return permute(node, y, {0, 2, 1, 3, 4});
}

/// A transposed 3-d convolution of a batched x [N, C, D, H, W] as one conv_transpose2d over every
/// input depth, then col2im along depth by hand: the weight [C, O / groups, kD, kH, kW] read as
/// [C, O / groups * kD, kH, kW] gives, per input depth id, the planes Z[n, id, o, kd] that land
/// on output depth od = id * stride_d - pad_d + kd * dil_d. For each tap kd, Z[:, :, :, kd] is
/// spread out to every stride_d-th depth (padded after each) and shifted into place (padded or
/// cropped at both ends); the taps' sum, plus the bias, is the result. f16/bf16 run in float32
/// throughout, rounded once at the end (PyTorch accumulates in float). The depth extents must
/// be static.
Expected<Value *> convTranspose3dAs2d(NodeImport &node, Value *x, Value *weight, Value *bias,
                                      const ConvArgs &args) {
  TC_ASSIGN_OR_RETURN(int64_t depth, staticSize(node, x, 2, "3-d transposed convolution"));
  TC_ASSIGN_OR_RETURN(int64_t taps, staticSize(node, weight, 2, "3-d transposed convolution"));
  const int64_t stride = args.stride[0], pad = args.padding[0], dilation = args.dilation[0];
  const int64_t outputPadding = args.outputPadding[0];
  if (stride < 1 || dilation < 1 || pad < 0 || outputPadding < 0 ||
      outputPadding >= std::max(stride, dilation))
    return invalidInput("3-d transposed convolution of node '" + node.name() + "': depth stride " +
                        std::to_string(stride) + ", padding " + std::to_string(pad) +
                        ", dilation " + std::to_string(dilation) + ", output padding " +
                        std::to_string(outputPadding) + " (output padding must be below the "
                        "stride or the dilation)");
  const int64_t outDepth =
      (depth - 1) * stride - 2 * pad + dilation * (taps - 1) + outputPadding + 1;
  if (outDepth < 1)
    return invalidInput("3-d transposed convolution of node '" + node.name() +
                        "': output depth " + std::to_string(outDepth) + " is too small");
  const ir::Shape &xs = x->type().shape;
  const ir::Shape &ws = weight->type().shape;
  TC_ASSIGN_OR_RETURN(DType compute,
                      normComputeDType(node, x->type().dtype, "3-d transposed convolution"));
  // [N, C, D, H, W] -> [N * D, C, H, W]
  TC_ASSIGN_OR_RETURN(Value * images, permute(node, node.castTo(x, compute), {0, 2, 1, 3, 4}));
  TC_ASSIGN_OR_RETURN(
      images, reshape(node, images,
                      {ir::Dim(ir::SymExpr::mul(xs[0].asExpr(), ir::SymExpr::constant(depth))),
                       xs[1], xs[3], xs[4]}));
  TC_ASSIGN_OR_RETURN(
      Value * kernel,
      reshape(node, node.castTo(weight, compute),
              {ws[0], ir::Dim(ir::SymExpr::mul(ws[1].asExpr(), ir::SymExpr::constant(taps))), ws[3],
               ws[4]}));
  AttrMap attrs;
  attrs.set("dilation", std::vector<int64_t>{args.dilation[1], args.dilation[2]});
  attrs.set("groups", args.groups);
  attrs.set("output_padding", std::vector<int64_t>{args.outputPadding[1], args.outputPadding[2]});
  attrs.set("padding", std::vector<int64_t>{args.padding[1], args.padding[2]});
  attrs.set("stride", std::vector<int64_t>{args.stride[1], args.stride[2]});
  TC_ASSIGN_OR_RETURN(Value * planes, node.emitInferred(OpKind::ConvTranspose2d, {images, kernel},
                                                   std::move(attrs)));
  const ir::Shape &ps = planes->type().shape;
  if (!ps[1].isStatic() || ps[1].value() % taps != 0)
    return invalidInput("3-d transposed convolution of node '" + node.name() + "': weight " +
                        weight->type().str() + " does not fit the input " + x->type().str());
  const ir::Dim outChannels(ps[1].value() / taps);
  TC_ASSIGN_OR_RETURN(planes, reshape(node, planes,
                                      {xs[0], ir::Dim(depth), outChannels, ir::Dim(taps), ps[2],
                                       ps[3]}));
  Value *sum = nullptr;
  for (int64_t kd = 0; kd < taps; ++kd) {
    AttrMap select;
    select.set("dim", int64_t{3});
    select.set("index", kd);
    TC_ASSIGN_OR_RETURN(Value * tap,
                        node.emitInferred(OpKind::Select, {planes}, std::move(select)));
    if (stride > 1) { // [N, D, O, ..] -> [N, D * stride, O, ..], input depth id at id * stride
      TC_ASSIGN_OR_RETURN(tap, unsqueeze(node, tap, 2));
      TC_ASSIGN_OR_RETURN(tap, padDim(node, tap, 2, 0, stride - 1));
      TC_ASSIGN_OR_RETURN(tap, reshape(node, tap, {xs[0], ir::Dim(depth * stride), outChannels,
                                                   ps[2], ps[3]}));
    }
    const int64_t shift = kd * dilation - pad;
    TC_ASSIGN_OR_RETURN(tap, padDim(node, tap, 1, shift, outDepth - depth * stride - shift));
    if (sum == nullptr) {
      sum = tap;
      continue;
    }
    TC_ASSIGN_OR_RETURN(sum, binary(node, OpKind::Add, sum, tap));
  }
  TC_ASSIGN_OR_RETURN(Value * y, permute(node, sum, {0, 2, 1, 3, 4}));
  if (bias) {
    TC_ASSIGN_OR_RETURN(Value * shift,
                        reshape(node, node.castTo(bias, compute), channelShape(outChannels, 3)));
    TC_ASSIGN_OR_RETURN(y, binary(node, OpKind::Add, y, shift));
  }
  return node.castTo(y, x->type().dtype);
}

/// conv2d / conv_transpose2d on a batched 2-d view of the input: a 1-d convolution gets a unit
/// height (kernel height 1, stride 1, no padding), an unbatched input a batch of one; the
/// result is trimmed ("same" padding) and squeezed back.
Status emitConvolution(NodeImport &node, ConvArgs args) {
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(Value * weight, node.tensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * bias, node.optionalTensor("bias"));
  TC_ASSIGN_OR_RETURN(size_t spatial, spatialDims(node, weight));
  auto inputRank = static_cast<size_t>(input->type().rank());
  if (inputRank != spatial + 1 && inputRank != spatial + 2)
    return invalidInput("convolution input " + input->type().str() + " of node '" +
                        node.name() + "' does not fit weight " + weight->type().str());
  bool batched = inputRank == spatial + 2;
  args.trimFront.resize(spatial, 0);
  Value *x = input;
  std::vector<int64_t> squeezed;
  if (!batched) {
    TC_ASSIGN_OR_RETURN(x, unsqueeze(node, x, 0));
    squeezed.push_back(0);
  }
  if (spatial == 1) {
    TC_ASSIGN_OR_RETURN(x, unsqueeze(node, x, 2));
    TC_ASSIGN_OR_RETURN(weight, unsqueeze(node, weight, 2));
    args.stride.insert(args.stride.begin(), 1);
    args.padding.insert(args.padding.begin(), 0);
    args.dilation.insert(args.dilation.begin(), 1);
    if (args.transposed)
      args.outputPadding.insert(args.outputPadding.begin(), 0);
    args.trimFront.insert(args.trimFront.begin(), 0);
    squeezed.push_back(2);
  }
  Value *y = nullptr;
  if (spatial == 3 && args.transposed) {
    TC_ASSIGN_OR_RETURN(y, convTranspose3dAs2d(node, x, weight, bias, args));
  } else if (spatial == 3) {
    TC_ASSIGN_OR_RETURN(y, conv3dAs2d(node, x, weight, bias, args));
  } else {
    std::vector<Value *> operands{x, weight};
    if (bias)
      operands.push_back(bias);
    AttrMap attrs;
    attrs.set("dilation", args.dilation);
    attrs.set("groups", args.groups);
    if (args.transposed)
      attrs.set("output_padding", args.outputPadding);
    attrs.set("padding", args.padding);
    attrs.set("stride", args.stride);
    TC_ASSIGN_OR_RETURN(y, node.emitInferred(args.transposed ? OpKind::ConvTranspose2d
                                                             : OpKind::Conv2d,
                                             operands, std::move(attrs)));
  }
  for (size_t i = 0; i < args.trimFront.size(); ++i) {
    if (args.trimFront[i] == 0)
      continue;
    auto dim = static_cast<int64_t>(2 + i);
    AttrMap slice;
    slice.set("dim", dim);
    slice.set("end", ir::makeDimAttr(y->type().shape[2 + i]));
    slice.set("start", args.trimFront[i]);
    slice.set("step", int64_t{1});
    TC_ASSIGN_OR_RETURN(y, node.emitInferred(OpKind::Slice, {y}, std::move(slice)));
  }
  if (!squeezed.empty()) {
    TC_ASSIGN_OR_RETURN(y, squeeze(node, y, squeezed));
  }
  return bindOnlyResult(node, y);
}

} // namespace

/// conv1d/conv2d/conv3d.default (training IR) and convolution.default (core ATen, plain or
/// transposed). 1-d convolutions become 2-d ones over a unit height; 3-d ones a conv2d over
/// the depth taps unfolded into channels, transposed 3-d ones a conv_transpose2d per input
/// depth whose planes are summed into their output depths (static depth); unbatched inputs
/// get a batch of one.
Status importConvolution(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * weight, node.tensor("weight"));
  TC_ASSIGN_OR_RETURN(size_t spatial, spatialDims(node, weight));
  ConvArgs args;
  if (node.schema().findArg("transposed") != nullptr) {
    TC_ASSIGN_OR_RETURN(args.transposed, node.boolArg("transposed"));
  }
  TC_ASSIGN_OR_RETURN(args.stride, spatialList(node, "stride", spatial));
  TC_ASSIGN_OR_RETURN(args.padding, spatialList(node, "padding", spatial));
  TC_ASSIGN_OR_RETURN(args.dilation, spatialList(node, "dilation", spatial));
  if (args.transposed) {
    TC_ASSIGN_OR_RETURN(args.outputPadding, spatialList(node, "output_padding", spatial));
  }
  TC_ASSIGN_OR_RETURN(args.groups, node.intArg("groups"));
  return emitConvolution(node, std::move(args));
}

/// conv1d.padding / conv2d.padding / conv3d.padding: padding given as "valid" or "same" (stride 1); an odd
/// total "same" padding (even kernel extent) puts its extra element last, like PyTorch.
Status importConvolutionPaddingMode(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * weight, node.tensor("weight"));
  TC_ASSIGN_OR_RETURN(size_t spatial, spatialDims(node, weight));
  ConvArgs args;
  TC_ASSIGN_OR_RETURN(args.stride, spatialList(node, "stride", spatial));
  TC_ASSIGN_OR_RETURN(args.dilation, spatialList(node, "dilation", spatial));
  TC_ASSIGN_OR_RETURN(args.groups, node.intArg("groups"));
  TC_ASSIGN_OR_RETURN(std::optional<std::string> mode, node.optionalString("padding"));
  args.padding.assign(spatial, 0);
  args.trimFront.assign(spatial, 0);
  if (mode.value_or("valid") == "valid")
    return emitConvolution(node, std::move(args));
  if (*mode != "same")
    return invalidInput("convolution padding '" + *mode + "' in node '" + node.name() +
                        "' (expected 'valid' or 'same')");
  for (size_t i = 0; i < spatial; ++i) {
    if (args.stride[i] != 1)
      return invalidInput("convolution padding 'same' with stride " +
                          std::to_string(args.stride[i]) + " in node '" + node.name() +
                          "' (PyTorch requires stride 1)");
    const ir::Dim &kernel = weight->type().shape[2 + i];
    if (!kernel.isStatic())
      return node.unsupportedFeature("padding 'same' with symbolic kernel size " + kernel.str());
    int64_t total = args.dilation[i] * (kernel.value() - 1);
    // An odd total pads one more at the end: pad (total + 1) / 2 on both sides, then drop
    // the first output.
    args.padding[i] = (total + 1) / 2;
    args.trimFront[i] = total % 2;
  }
  return emitConvolution(node, std::move(args));
}

/// conv_transpose1d.default, conv_transpose2d.input and conv_transpose3d.input (training IR).
Status importConvTranspose(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * weight, node.tensor("weight"));
  TC_ASSIGN_OR_RETURN(size_t spatial, spatialDims(node, weight));
  ConvArgs args;
  args.transposed = true;
  TC_ASSIGN_OR_RETURN(args.stride, spatialList(node, "stride", spatial));
  TC_ASSIGN_OR_RETURN(args.padding, spatialList(node, "padding", spatial));
  TC_ASSIGN_OR_RETURN(args.outputPadding, spatialList(node, "output_padding", spatial));
  TC_ASSIGN_OR_RETURN(args.dilation, spatialList(node, "dilation", spatial));
  TC_ASSIGN_OR_RETURN(args.groups, node.intArg("groups"));
  return emitConvolution(node, std::move(args));
}

// ---- normalization ----

namespace {

/// Group norm of x [N, C, *] in `groups` groups, then the optional per-channel affine; binds
/// output 0 and, when `statistics` and used, outputs 1 and 2 (mean and rstd, [N, groups]).
Status emitGroupNorm(NodeImport &node, Value *x, Value *weight, Value *bias, int64_t groups,
                     double eps, bool statistics) {
  const ir::TensorType &type = x->type();
  if (type.rank() < 2)
    return invalidInput("group_norm input " + type.str() + " of node '" + node.name() +
                        "' needs a channel dim");
  TC_ASSIGN_OR_RETURN(DType compute, normComputeDType(node, type.dtype, "group_norm"));
  const ir::Dim &channels = type.shape[1];
  if (!channels.isStatic())
    return node.unsupportedFeature("group_norm over a symbolic channel count " +
                                   channels.str());
  if (groups < 1 || channels.value() % groups != 0)
    return invalidInput("group_norm of node '" + node.name() + "': " + channels.str() +
                        " channels do not split into " + std::to_string(groups) + " groups");
  // x viewed as [N, groups, C / groups * spatial], reduced over its last dim.
  ir::SymExpr groupSize = ir::SymExpr::constant(channels.value() / groups);
  for (size_t d = 2; d < type.shape.size(); ++d)
    groupSize = ir::SymExpr::mul(groupSize, type.shape[d].asExpr());
  ir::Shape grouped{type.shape[0], ir::Dim(groups), ir::Dim(groupSize)};
  TC_ASSIGN_OR_RETURN(Value * rows, reshape(node, node.castTo(x, compute), grouped));
  TC_ASSIGN_OR_RETURN(Value * mean, reduce(node, OpKind::Mean, rows, {2}, true));
  AttrMap varAttrs;
  varAttrs.set("correction", 0.0);
  varAttrs.set("dims", std::vector<int64_t>{2});
  varAttrs.set("keepdim", true);
  TC_ASSIGN_OR_RETURN(Value * var, node.emitInferred(OpKind::Var, {rows}, std::move(varAttrs)));
  TC_ASSIGN_OR_RETURN(Value * shifted,
                      binary(node, OpKind::Add, var, node.scalarConstant(eps, compute)));
  TC_ASSIGN_OR_RETURN(Value * rstd, unary(node, OpKind::Rsqrt, shifted));
  TC_ASSIGN_OR_RETURN(Value * centered, binary(node, OpKind::Sub, rows, mean));
  TC_ASSIGN_OR_RETURN(Value * normalized, binary(node, OpKind::Mul, centered, rstd));
  TC_ASSIGN_OR_RETURN(Value * y, reshape(node, normalized, type.shape));
  ir::Shape perChannel = channelShape(channels, type.shape.size() - 2);
  if (weight) {
    TC_ASSIGN_OR_RETURN(Value * scale, reshape(node, node.castTo(weight, compute), perChannel));
    TC_ASSIGN_OR_RETURN(y, binary(node, OpKind::Mul, y, scale));
  }
  if (bias) {
    TC_ASSIGN_OR_RETURN(Value * shift, reshape(node, node.castTo(bias, compute), perChannel));
    TC_ASSIGN_OR_RETURN(y, binary(node, OpKind::Add, y, shift));
  }
  if (!statistics)
    return bindOnlyResult(node, node.castTo(y, type.dtype));
  TC_TRY(bindResult(node, 0, node.castTo(y, type.dtype)));
  Value *stats[] = {mean, rstd};
  for (int i = 1; i < std::min(node.numOutputs(), 3); ++i) {
    if (!node.isOutputUsed(i))
      continue;
    TC_ASSIGN_OR_RETURN(ir::TensorType recorded, node.outputType(i));
    TC_ASSIGN_OR_RETURN(Value * flat,
                        reshape(node, stats[i - 1], {type.shape[0], ir::Dim(groups)}));
    TC_TRY(bindResult(node, i, node.castTo(flat, recorded.dtype)));
  }
  return Status::success();
}

} // namespace

/// group_norm.default (training IR) and native_group_norm.default (core ATen; its mean and
/// rstd outputs, [N, groups], are computed when used). Decomposed into mean, var and
/// elementwise ops in float32 (f16/bf16) or the input's dtype.
Status importGroupNorm(NodeImport &node) {
  bool native = node.schema().findArg("HxW") != nullptr;
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(Value * weight, node.optionalTensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * bias, node.optionalTensor("bias"));
  TC_ASSIGN_OR_RETURN(double eps, node.floatArg("eps"));
  TC_ASSIGN_OR_RETURN(int64_t groups, node.intArg(native ? "group" : "num_groups"));
  return emitGroupNorm(node, input, weight, bias, groups, eps, native);
}

/// instance_norm.default: group_norm with one group per channel when use_input_stats,
/// else inference batch_norm with the running statistics.
Status importInstanceNorm(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(Value * weight, node.optionalTensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * bias, node.optionalTensor("bias"));
  TC_ASSIGN_OR_RETURN(Value * mean, node.optionalTensor("running_mean"));
  TC_ASSIGN_OR_RETURN(Value * var, node.optionalTensor("running_var"));
  TC_ASSIGN_OR_RETURN(bool useInputStats, node.boolArg("use_input_stats"));
  TC_ASSIGN_OR_RETURN(double eps, node.floatArg("eps"));
  if (input->type().rank() < 3)
    return invalidInput("instance_norm input " + input->type().str() + " of node '" +
                        node.name() + "' needs a batch, a channel and a spatial dim");
  if (useInputStats) {
    const ir::Dim &channels = input->type().shape[1];
    if (!channels.isStatic())
      return node.unsupportedFeature("instance_norm over a symbolic channel count " +
                                     channels.str());
    return emitGroupNorm(node, input, weight, bias, channels.value(), eps, false);
  }
  // Eval mode with tracked statistics: inference batch_norm.
  if (!mean || !var)
    return node.unsupportedFeature("instance_norm without input or running statistics");
  std::vector<Value *> operands{input, mean, var};
  if (bias && !weight)
    weight = onesLike(node, bias);
  if (weight)
    operands.push_back(weight);
  if (bias)
    operands.push_back(bias);
  AttrMap attrs;
  attrs.set("eps", eps);
  TC_ASSIGN_OR_RETURN(Value * y, node.emitInferred(OpKind::BatchNorm, operands, std::move(attrs)));
  return bindOnlyResult(node, y);
}

/// _native_batch_norm_legit.no_stats (core ATen's form of instance_norm) and batch_norm.default
/// in training mode without running statistics: normalization over every dim but the channel
/// dim 1 with the batch's own mean and biased variance, then the optional per-channel affine.
/// Outputs 1 and 2 of no_stats (save_mean, save_invstd: [C]) are computed when used. Nothing
/// is updated (there are no running statistics); training=False is an error (PyTorch's too).
Status importBatchStatsNorm(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(Value * weight, node.optionalTensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * bias, node.optionalTensor("bias"));
  TC_ASSIGN_OR_RETURN(bool training, node.boolArg("training"));
  TC_ASSIGN_OR_RETURN(double eps, node.floatArg("eps"));
  if (!training)
    return invalidInput("batch norm without running statistics in evaluation mode (training="
                        "False) in node '" + node.name() + "': PyTorch requires them there");
  const ir::TensorType &type = input->type();
  if (type.rank() < 2)
    return invalidInput("batch norm input " + type.str() + " of node '" + node.name() +
                        "' needs a channel dim");
  TC_ASSIGN_OR_RETURN(DType compute, normComputeDType(node, type.dtype, "batch norm"));
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < type.rank(); ++d)
    dims.push_back(d);
  Value *x = node.castTo(input, compute);
  TC_ASSIGN_OR_RETURN(Value * mean, reduce(node, OpKind::Mean, x, dims, true));
  AttrMap varAttrs;
  varAttrs.set("correction", 0.0);
  varAttrs.set("dims", dims);
  varAttrs.set("keepdim", true);
  TC_ASSIGN_OR_RETURN(Value * var, node.emitInferred(OpKind::Var, {x}, std::move(varAttrs)));
  TC_ASSIGN_OR_RETURN(Value * shifted,
                      binary(node, OpKind::Add, var, node.scalarConstant(eps, compute)));
  TC_ASSIGN_OR_RETURN(Value * rstd, unary(node, OpKind::Rsqrt, shifted));
  TC_ASSIGN_OR_RETURN(Value * centered, binary(node, OpKind::Sub, x, mean));
  TC_ASSIGN_OR_RETURN(Value * y, binary(node, OpKind::Mul, centered, rstd));
  ir::Shape perChannel = channelShape(type.shape[1], type.shape.size() - 2);
  if (weight) {
    TC_ASSIGN_OR_RETURN(Value * scale, reshape(node, node.castTo(weight, compute), perChannel));
    TC_ASSIGN_OR_RETURN(y, binary(node, OpKind::Mul, y, scale));
  }
  if (bias) {
    TC_ASSIGN_OR_RETURN(Value * shift, reshape(node, node.castTo(bias, compute), perChannel));
    TC_ASSIGN_OR_RETURN(y, binary(node, OpKind::Add, y, shift));
  }
  TC_TRY(bindResult(node, 0, node.castTo(y, type.dtype)));
  Value *stats[] = {mean, rstd};
  for (int i = 1; i < std::min(node.numOutputs(), 3); ++i) {
    if (!node.isOutputUsed(i))
      continue;
    TC_ASSIGN_OR_RETURN(ir::TensorType recorded, node.outputType(i));
    TC_ASSIGN_OR_RETURN(Value * flat, reshape(node, stats[i - 1], {type.shape[1]}));
    TC_TRY(bindResult(node, i, node.castTo(flat, recorded.dtype)));
  }
  return Status::success();
}

namespace {

/// The `ord`-norm of x (already in its compute dtype) over `dims` (empty: all).
Expected<Value *> vectorNorm(NodeImport &node, Value *x, double ord, std::vector<int64_t> dims,
                             bool keepdim) {
  DType dtype = x->type().dtype;
  if (ord == 0.0) { // the count of nonzero elements
    TC_ASSIGN_OR_RETURN(Value * nonzero,
                        binary(node, OpKind::Ne, x, node.scalarConstant(0.0, dtype)));
    return reduce(node, OpKind::Sum, node.castTo(nonzero, dtype), std::move(dims), keepdim);
  }
  if (ord == 2.0) {
    TC_ASSIGN_OR_RETURN(Value * squares, binary(node, OpKind::Mul, x, x));
    TC_ASSIGN_OR_RETURN(Value * sum, reduce(node, OpKind::Sum, squares, std::move(dims), keepdim));
    return unary(node, OpKind::Sqrt, sum);
  }
  TC_ASSIGN_OR_RETURN(Value * magnitude, unary(node, OpKind::Abs, x));
  if (std::isinf(ord))
    return reduce(node, ord > 0 ? OpKind::Amax : OpKind::Amin, magnitude, std::move(dims),
                  keepdim);
  if (ord == 1.0)
    return reduce(node, OpKind::Sum, magnitude, std::move(dims), keepdim);
  TC_ASSIGN_OR_RETURN(Value * powers,
                      binary(node, OpKind::Pow, magnitude, node.scalarConstant(ord, dtype)));
  TC_ASSIGN_OR_RETURN(Value * sum, reduce(node, OpKind::Sum, powers, std::move(dims), keepdim));
  return binary(node, OpKind::Pow, sum, node.scalarConstant(1.0 / ord, dtype));
}

} // namespace

/// linalg_vector_norm.default: ord 2, 1, inf, -inf, 0 and any other p, over `dim` (all dims
/// when None or empty), keepdim, dtype.
Status importVectorNorm(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(double ord, node.floatArg("ord"));
  TC_ASSIGN_OR_RETURN(bool keepdim, node.boolArg("keepdim"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  std::vector<int64_t> dims;
  if (!node.isNone("dim")) {
    TC_ASSIGN_OR_RETURN(dims, node.intList("dim"));
  }
  TC_ASSIGN_OR_RETURN(dims, normalizedDims(node, std::move(dims), self->type().rank()));
  if (std::isnan(ord))
    return invalidInput("linalg_vector_norm ord nan in node '" + node.name() + "'");
  TC_ASSIGN_OR_RETURN(DType compute, normComputeDType(node, out.dtype, "linalg_vector_norm"));
  TC_ASSIGN_OR_RETURN(Value * norm, vectorNorm(node, node.castTo(self, compute), ord,
                                               std::move(dims), keepdim));
  return bindOnlyResult(node, node.castTo(norm, out.dtype));
}

/// _weight_norm.default(v, g, dim) = v * g / norm of v over every dim but `dim` (over all
/// dims when dim is -1).
Status importWeightNorm(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * v, node.tensor("v"));
  TC_ASSIGN_OR_RETURN(Value * g, node.tensor("g"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(DType compute, normComputeDType(node, out.dtype, "_weight_norm"));
  int64_t rank = v->type().rank();
  Value *values = node.castTo(v, compute);
  Value *norm = nullptr;
  if (dim == -1) { // the norm of the whole tensor
    TC_ASSIGN_OR_RETURN(norm, vectorNorm(node, values, 2.0, {}, false));
  } else {
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> kept, normalizedDims(node, {dim}, rank));
    std::vector<int64_t> others;
    for (int64_t d = 0; d < rank; ++d)
      if (d != kept[0])
        others.push_back(d);
    if (others.empty()) { // one element per norm (an empty list would reduce everything)
      TC_ASSIGN_OR_RETURN(norm, unary(node, OpKind::Abs, values));
    } else {
      TC_ASSIGN_OR_RETURN(norm, vectorNorm(node, values, 2.0, std::move(others), true));
    }
  }
  TC_ASSIGN_OR_RETURN(Value * ratio, binary(node, OpKind::Div, node.castTo(g, compute), norm));
  TC_ASSIGN_OR_RETURN(Value * w, binary(node, OpKind::Mul, values, ratio));
  return bindOnlyResult(node, node.castTo(w, out.dtype));
}

// batch_norm (training IR) and _native_batch_norm_legit_no_training (core ATen).
Status importBatchNorm(NodeImport &node) {
  if (node.schema().findArg("training") != nullptr) {
    TC_ASSIGN_OR_RETURN(bool training, node.boolArg("training"));
    bool tracked = !node.isNone("running_mean") || !node.isNone("running_var");
    if (training && !tracked) // batch statistics, nothing to update
      return importBatchStatsNorm(node);
    if (training)
      return node.unsupportedFeature("batch_norm in training mode; export in eval mode");
  }
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(Value * weight, node.optionalTensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * bias, node.optionalTensor("bias"));
  TC_ASSIGN_OR_RETURN(Value * mean, node.optionalTensor("running_mean"));
  TC_ASSIGN_OR_RETURN(Value * var, node.optionalTensor("running_var"));
  if (!mean || !var)
    return node.unsupportedFeature("batch_norm without running statistics");
  TC_ASSIGN_OR_RETURN(double eps, node.floatArg("eps"));
  std::vector<Value *> operands{input, mean, var};
  if (bias && !weight)
    weight = onesLike(node, bias);
  if (weight)
    operands.push_back(weight);
  if (bias)
    operands.push_back(bias);
  AttrMap attrs;
  attrs.set("eps", eps);
  return emitOne(node, OpKind::BatchNorm, std::move(operands), std::move(attrs));
}

namespace {

// clang-format off
constexpr Converter kConverters[] = {
    {"aten.batch_norm.default", importBatchNorm},
    {"aten._native_batch_norm_legit_no_training.default", importBatchNorm},
    // convolution and its normalizations (frontend/aten/conv_norm.cpp)
    {"aten.conv1d.default", importConvolution},
    {"aten.conv2d.default", importConvolution},
    {"aten.conv3d.default", importConvolution},
    {"aten.convolution.default", importConvolution},
    {"aten.conv1d.padding", importConvolutionPaddingMode},
    {"aten.conv2d.padding", importConvolutionPaddingMode},
    {"aten.conv_transpose1d.default", importConvTranspose},
    {"aten.conv_transpose2d.input", importConvTranspose},
    {"aten.group_norm.default", importGroupNorm},
    {"aten.native_group_norm.default", importGroupNorm},
    {"aten.instance_norm.default", importInstanceNorm},
    {"aten._weight_norm.default", importWeightNorm},
    {"aten.linalg_vector_norm.default", importVectorNorm},
    // cells, unrolled (frontend/aten/rnn.cpp)
    {"aten._native_batch_norm_legit.no_stats", importBatchStatsNorm},
    // (frontend/aten/spatial.cpp)
    {"aten.conv3d.padding", importConvolutionPaddingMode},
    {"aten.conv_transpose3d.input", importConvTranspose},
};
// clang-format on

} // namespace

std::span<const Converter> convNormConverters() { return kConverters; }

} // namespace thunderc::frontend
