// Result types of the neural-network ops: normalizations, matmul family, conv2d, attention,
// pooling and the index ops, following the ATen meta functions. Their tensor operands share a
// dtype (the importer inserts casts); index operands are i32 or i64.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"

namespace thunderc::ir::inference {
namespace {

Status requireAllSameDType(const TypeList &types) {
  for (size_t i = 1; i < types.size(); ++i)
    TC_TRY(requireSameDType(types[0], types[i]));
  return Status::success();
}

Status requireIndexDType(OpKind op, const TensorType &indices) {
  if (indices.dtype == DType::I64 || indices.dtype == DType::I32)
    return Status::success();
  return invalidInput(std::string(opName(op)) + " indices must be i64 or i32, got " +
                      indices.str());
}

/// A statically quantized input of linear_wq / conv2d_wq: x u8 or i8, x_scale positive and
/// finite, x_zero within x's range.
Status requireQuantizedInput(OpKind op, const TensorType &x, double scale, int64_t zero) {
  const std::string name(opName(op));
  if (x.dtype != DType::U8 && x.dtype != DType::I8)
    return invalidInput(name + " with x_scale needs a u8 or i8 input, got " + x.str());
  if (!(scale > 0.0) || !std::isfinite(scale))
    return invalidInput(name + " x_scale must be positive and finite, got " +
                        std::to_string(scale));
  const int64_t low = x.dtype == DType::U8 ? 0 : -128;
  if (zero < low || zero > low + 255)
    return invalidInput(name + " x_zero " + std::to_string(zero) + " is outside " +
                        std::string(dtypeName(x.dtype)) + "'s range [" + std::to_string(low) +
                        ", " + std::to_string(low + 255) + "]");
  return Status::success();
}

Shape leadingDims(const Shape &shape, size_t trailing) {
  return Shape(shape.begin(), shape.end() - static_cast<std::ptrdiff_t>(trailing));
}

// ---- windows of conv2d and pooling ----

// Python's a // b for b > 0.
int64_t floorDivInt(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// One spatial dim of a sliding window.
struct Window {
  int64_t kernel;
  int64_t stride;
  int64_t padding;
  int64_t dilation;
  int64_t extent() const { return dilation * (kernel - 1) + 1; }
};

// Reads a per-spatial-dim attribute, which must have exactly N entries (the importer
// expands PyTorch's single-int forms and fills max_pool2d's empty default stride).
template <size_t N = 2>
Expected<std::array<int64_t, N>> readPair(OpKind op, const std::vector<int64_t> &values,
                                          const char *name, int64_t minimum) {
  if (values.size() != N)
    return invalidInput(std::string(opName(op)) + " " + name + " must have " +
                        std::to_string(N) + " entries, got " + intsStr(values));
  for (int64_t value : values) {
    if (value < minimum)
      return invalidInput(std::string(opName(op)) + " " + name + " must be at least " +
                          std::to_string(minimum) + ", got " + intsStr(values));
  }
  std::array<int64_t, N> entries{};
  for (size_t i = 0; i < N; ++i)
    entries[i] = values[i];
  return entries;
}

// Output size of a window sliding over `input`:
//   floor((input + 2*padding - extent) / stride) + 1, or with ceil_mode the ceiling, minus
//   one when the last window would start past the input and its left padding (PyTorch's
//   pooling_output_shape).
Expected<Dim> windowOutputDim(OpKind op, const Dim &input, const Window &window, bool ceilMode) {
  int64_t offset = 2 * window.padding - window.extent() + (ceilMode ? window.stride - 1 : 0);
  if (input.isStatic()) {
    int64_t output = floorDivInt(input.value() + offset, window.stride) + 1;
    if (ceilMode && (output - 1) * window.stride >= input.value() + window.padding)
      --output;
    return Dim(output);
  }
  // The ceil_mode correction can only apply when stride >= extent + 1 - padding; otherwise
  // the last window always starts inside. Whether it applies to a symbolic size depends on
  // its value, and torch.export would have specialized on it.
  bool correctionPossible = window.stride >= window.extent() + 1 - window.padding;
  if (ceilMode && correctionPossible)
    return unsupported(std::string(opName(op)) + " with ceil_mode on symbolic size " + input.str() +
                       " depends on its value");
  SymExpr numerator = addLikeTerms(input.expr(), SymExpr::constant(offset));
  return Dim(addLikeTerms(floorDivide(numerator, window.stride), SymExpr::constant(1)));
}

// The spatial output dims of `x` (its last N dims), each required to be positive.
template <size_t N>
Expected<Shape> windowOutputShape(OpKind op, const TensorType &x,
                                  const std::array<Window, N> &windows, bool ceilMode) {
  Shape shape = leadingDims(x.shape, N);
  for (size_t i = 0; i < N; ++i) {
    const Dim &input = x.shape[x.shape.size() - N + i];
    TC_ASSIGN_OR_RETURN(Dim output, windowOutputDim(op, input, windows[i], ceilMode));
    if (output.isStatic() && output.value() < 1)
      return invalidInput(std::string(opName(op)) + " output size " + output.str() +
                          " of spatial dim " + std::to_string(i) + " is too small (input " +
                          x.str() + ")");
    shape.push_back(output);
  }
  return shape;
}

} // namespace

// ---- normalizations ----

Expected<TensorType> inferLayerNorm(const TypeList &operands, const AttrMap &attrs) {
  const TensorType &x = operands[0];
  TC_TRY(requireFloating(OpKind::LayerNorm, x));
  TC_TRY(requireAllSameDType(operands));
  std::vector<int64_t> normalized = attr::normalized_shape(attrs);
  Shape normalizedShape(normalized.begin(), normalized.end());
  size_t count = normalizedShape.size();
  if (count == 0)
    return invalidInput("layer_norm normalized_shape must not be empty");
  bool matches =
      count <= x.shape.size() &&
      Shape(x.shape.end() - static_cast<std::ptrdiff_t>(count), x.shape.end()) == normalizedShape;
  if (!matches)
    return invalidInput("layer_norm normalized_shape " + intsStr(normalized) +
                        " does not match the trailing dims of " + x.str());
  for (size_t i = 1; i < operands.size(); ++i) {
    if (operands[i].shape != normalizedShape)
      return invalidInput("layer_norm " + std::string(i == 1 ? "weight " : "bias ") +
                          operands[i].str() + " does not match normalized_shape " +
                          intsStr(normalized));
  }
  return x;
}

Expected<TensorType> inferBatchNorm(const TypeList &operands) {
  const TensorType &x = operands[0];
  TC_TRY(requireRank(OpKind::BatchNorm, "input", x, 2, -1));
  TC_TRY(requireFloating(OpKind::BatchNorm, x));
  TC_TRY(requireAllSameDType(operands));
  const Dim &channels = x.shape[1];
  for (size_t i = 1; i < operands.size(); ++i) {
    const TensorType &parameter = operands[i];
    if (parameter.rank() != 1 || !mayBeEqual(parameter.shape[0], channels))
      return invalidInput("batch_norm operand " + std::to_string(i) + " " + parameter.str() +
                          " does not match the " + channels.str() + " channels of " + x.str());
  }
  return x;
}

// ---- matmul family ----

Expected<TensorType> inferGroupedMatmul(const TypeList &operands) {
  const TensorType &a = operands[0];
  const TensorType &b = operands[1];
  const TensorType &offsets = operands[2];
  TC_TRY(requireSameDType(a, b));
  TC_TRY(requireRank(OpKind::GroupedMatmul, "rows", a, 2, 2));
  TC_TRY(requireRank(OpKind::GroupedMatmul, "group matrices", b, 3, 3));
  TC_TRY(requireRank(OpKind::GroupedMatmul, "offsets", offsets, 1, 1));
  if (!isIntegral(offsets.dtype) || offsets.dtype == DType::Bool)
    return invalidInput("grouped_matmul offsets " + offsets.str() + " are not integers");
  if (!mayBeEqual(a.shape[1], b.shape[1]))
    return invalidInput("grouped_matmul inner dims of " + a.str() + " and " + b.str() +
                        " differ");
  if (!mayBeEqual(offsets.shape[0], b.shape[0]))
    return invalidInput("grouped_matmul has " + offsets.shape[0].str() + " offsets for " +
                        b.shape[0].str() + " groups (" + b.str() + ")");
  return TensorType{a.dtype, {a.shape[0], b.shape[2]}};
}

Expected<TensorType> inferMatmul(const TensorType &a, const TensorType &b) {
  TC_TRY(requireSameDType(a, b));
  if (a.rank() == 0 || b.rank() == 0)
    return invalidInput("matmul operands must have rank at least 1, got " + a.str() + " and " +
                        b.str());
  // torch.matmul: a vector lhs gains a leading 1, a vector rhs a trailing 1, both dropped from
  // the result; the remaining leading dims broadcast.
  bool lhsIsVector = a.rank() == 1;
  bool rhsIsVector = b.rank() == 1;
  Shape lhs = lhsIsVector ? Shape{Dim(1), a.shape[0]} : a.shape;
  Shape rhs = rhsIsVector ? Shape{b.shape[0], Dim(1)} : b.shape;
  const Dim &lhsInner = lhs[lhs.size() - 1];
  const Dim &rhsInner = rhs[rhs.size() - 2];
  if (!mayBeEqual(lhsInner, rhsInner))
    return invalidInput("matmul inner dims " + lhsInner.str() + " and " + rhsInner.str() +
                        " differ (" + a.str() + " and " + b.str() + ")");
  Expected<Shape> batch = broadcastShapes(leadingDims(lhs, 2), leadingDims(rhs, 2));
  if (!batch.ok())
    return invalidInput("matmul batch dims of " + a.str() + " and " + b.str() +
                        " do not broadcast");
  Shape shape = std::move(batch).value();
  if (!lhsIsVector)
    shape.push_back(lhs[lhs.size() - 2]);
  if (!rhsIsVector)
    shape.push_back(rhs[rhs.size() - 1]);
  return TensorType{a.dtype, std::move(shape)};
}

Expected<TensorType> inferLinear(const TypeList &operands) {
  const TensorType &x = operands[0];
  const TensorType &weight = operands[1];
  TC_TRY(requireAllSameDType(operands));
  TC_TRY(requireRank(OpKind::Linear, "input", x, 1, -1));
  TC_TRY(requireRank(OpKind::Linear, "weight", weight, 2, 2));
  const Dim &inFeatures = x.shape.back();
  if (!mayBeEqual(inFeatures, weight.shape[1]))
    return invalidInput("linear inner dims " + inFeatures.str() + " and " + weight.shape[1].str() +
                        " differ (" + x.str() + " and weight " + weight.str() + ")");
  Shape shape = leadingDims(x.shape, 1);
  shape.push_back(weight.shape[0]);
  TensorType result{x.dtype, std::move(shape)};
  bool biasFits = operands.size() < 3 || isExpandableTo(operands[2].shape, result.shape);
  if (!biasFits)
    return invalidInput("linear bias " + operands[2].str() + " does not broadcast to " +
                        result.str());
  return result;
}

Expected<TensorType> inferLinearWq(const TypeList &operands, const AttrMap &attrs) {
  const OpKind op = OpKind::LinearWq;
  const TensorType &x = operands[0];
  const TensorType &q = operands[1];
  const TensorType &scales = operands[2];
  const int64_t bits = attr::bits(attrs);
  const bool hasZeros = attr::has_zeros(attrs);
  const std::optional<double> xScale = attr::x_scale(attrs);
  const std::optional<int64_t> xZero = attr::x_zero(attrs);
  if (xScale.has_value() != xZero.has_value())
    return invalidInput("linear_wq needs both x_scale and x_zero or neither");
  const bool quantizedX = xScale.has_value();
  if (quantizedX) {
    TC_TRY(requireQuantizedInput(op, x, *xScale, *xZero));
    if (attr::dynamic_act(attrs).value_or(false))
      return invalidInput("linear_wq takes dynamic_act or x_scale, not both");
  } else {
    TC_TRY(requireFloating(op, x));
  }
  TC_TRY(requireRank(op, "input", x, 1, -1));
  TC_TRY(requireRank(op, "quantized weight", q, 2, 2));
  TC_TRY(requireRank(op, "scales", scales, 2, 2));
  if (bits != 8 && bits != 4)
    return invalidInput("linear_wq bits must be 8 or 4, got " + std::to_string(bits));
  const DType want = bits == 8 ? DType::I8 : DType::U8;
  if (q.dtype != want)
    return invalidInput("linear_wq with bits=" + std::to_string(bits) + " needs a " +
                        std::string(dtypeName(want)) + " weight, got " + q.str());
  if (operands.size() < (hasZeros ? 4u : 3u))
    return invalidInput("linear_wq with has_zeros needs a zeros operand");
  const Dim &n = q.shape[0];
  const Dim &k = x.shape.back();
  if (bits == 8 && !mayBeEqual(k, q.shape[1]))
    return invalidInput("linear_wq inner dims " + k.str() + " and " + q.shape[1].str() +
                        " differ (" + x.str() + " and weight " + q.str() + ")");
  if (bits == 4) {
    if (!k.isStatic() || !q.shape[1].isStatic() || k.value() % 32 != 0 ||
        q.shape[1].value() * 2 != k.value())
      return invalidInput("linear_wq with bits=4 needs a static inner dim that is a multiple "
                          "of 32 and a weight of half as many bytes per row (" + x.str() +
                          " and weight " + q.str() + ")");
  }
  for (size_t i = 2; i < (hasZeros ? 4u : 3u); ++i) {
    const TensorType &param = operands[i];
    const char *what = i == 2 ? "scales" : "zeros";
    if (!isFloatingPoint(param.dtype) || param.rank() != 2 || !mayBeEqual(param.shape[0], n) ||
        !mayBeEqual(param.shape[1], scales.shape[1]))
      return invalidInput(std::string("linear_wq ") + what + " " + param.str() +
                          " are not floating [N, G] for weight " + q.str());
  }
  const Dim &groups = scales.shape[1];
  if (k.isStatic() && groups.isStatic() &&
      (groups.value() < 1 || k.value() % groups.value() != 0))
    return invalidInput("linear_wq inner dim " + k.str() + " is not a multiple of its " +
                        groups.str() + " scale groups");
  if (attr::dynamic_act(attrs).value_or(false) &&
      (bits != 4 || hasZeros || !groups.isStatic() || groups.value() * 32 != k.value()))
    return invalidInput("linear_wq with dynamic_act needs bits=4, no zeros and one scale per "
                        "32 inputs (" + x.str() + ", scales " + scales.str() + ")");
  Shape shape = leadingDims(x.shape, 1);
  shape.push_back(n);
  const DType resultDType = quantizedX ? scales.dtype : x.dtype;
  TensorType result{resultDType, std::move(shape)};
  size_t biasIndex = hasZeros ? 4 : 3;
  if (operands.size() > biasIndex + 1)
    return invalidInput("linear_wq has " + std::to_string(operands.size()) + " operands");
  if (operands.size() == biasIndex + 1) {
    const TensorType &bias = operands[biasIndex];
    if (bias.dtype != resultDType || bias.rank() != 1 || !mayBeEqual(bias.shape[0], n))
      return invalidInput("linear_wq bias " + bias.str() + " is not " +
                          std::string(dtypeName(resultDType)) + "[" + n.str() + "]");
  }
  return result;
}

Expected<TensorType> inferAddmm(const TypeList &operands) {
  const TensorType &bias = operands[0];
  const TensorType &a = operands[1];
  const TensorType &b = operands[2];
  TC_TRY(requireAllSameDType(operands));
  TC_TRY(requireRank(OpKind::Addmm, "matrix", a, 2, 2));
  TC_TRY(requireRank(OpKind::Addmm, "matrix", b, 2, 2));
  if (!mayBeEqual(a.shape[1], b.shape[0]))
    return invalidInput("addmm inner dims " + a.shape[1].str() + " and " + b.shape[0].str() +
                        " differ (" + a.str() + " and " + b.str() + ")");
  TensorType result{a.dtype, {a.shape[0], b.shape[1]}};
  if (!isExpandableTo(bias.shape, result.shape))
    return invalidInput("addmm bias " + bias.str() + " does not broadcast to " + result.str());
  return result;
}

// ---- convolution and attention ----

Expected<TensorType> inferConv2d(const TypeList &operands, const AttrMap &attrs) {
  const TensorType &x = operands[0];
  const TensorType &weight = operands[1];
  TC_TRY(requireAllSameDType(operands));
  TC_TRY(requireRank(OpKind::Conv2d, "input", x, 3, 4));
  TC_TRY(requireRank(OpKind::Conv2d, "weight", weight, 4, 4));
  TC_ASSIGN_OR_RETURN(auto stride, readPair(OpKind::Conv2d, attr::stride(attrs), "stride", 1));
  TC_ASSIGN_OR_RETURN(auto padding, readPair(OpKind::Conv2d, attr::padding(attrs), "padding", 0));
  TC_ASSIGN_OR_RETURN(auto dilation,
                      readPair(OpKind::Conv2d, attr::dilation(attrs), "dilation", 1));
  int64_t groups = attr::groups(attrs);
  if (groups < 1)
    return invalidInput("conv2d groups must be positive, got " + std::to_string(groups));

  // Unbatched input is [C,H,W].
  const Dim &channels = x.shape[x.shape.size() - 3];
  Dim expected(SymExpr::mul(weight.shape[1].asExpr(), SymExpr::constant(groups)));
  if (!mayBeEqual(channels, expected))
    return invalidInput("conv2d input " + x.str() + " has " + channels.str() +
                        " channels but weight " + weight.str() + " with groups " +
                        std::to_string(groups) + " expects " + expected.str());
  const Dim &outChannels = weight.shape[0];
  if (outChannels.isStatic() && outChannels.value() % groups != 0)
    return invalidInput("conv2d output channels " + outChannels.str() +
                        " are not divisible by groups " + std::to_string(groups));
  bool biasFits = operands.size() < 3 ||
                  (operands[2].rank() == 1 && mayBeEqual(operands[2].shape[0], outChannels));
  if (!biasFits)
    return invalidInput("conv2d bias " + operands[2].str() + " does not match " +
                        outChannels.str() + " output channels");

  std::array<Window, 2> windows;
  for (size_t i = 0; i < 2; ++i) {
    const Dim &kernel = weight.shape[2 + i];
    if (!kernel.isStatic())
      return unsupported("conv2d with symbolic kernel size " + kernel.str());
    windows[i] = {kernel.value(), stride[i], padding[i], dilation[i]};
  }
  TC_ASSIGN_OR_RETURN(Shape spatial, windowOutputShape(OpKind::Conv2d, x, windows, false));
  spatial[spatial.size() - 3] = outChannels;
  return TensorType{x.dtype, std::move(spatial)};
}

Expected<TensorType> inferConv2dWq(const TypeList &operands, const AttrMap &attrs) {
  const TensorType &x = operands[0];
  const TensorType &q = operands[1];
  const TensorType &scales = operands[2];
  const bool hasZeros = attr::has_zeros(attrs);
  const std::optional<double> xScale = attr::x_scale(attrs);
  const std::optional<int64_t> xZero = attr::x_zero(attrs);
  if (!xScale || !xZero)
    return invalidInput("conv2d_wq needs x_scale and x_zero");
  TC_TRY(requireQuantizedInput(OpKind::Conv2dWq, x, *xScale, *xZero));
  TC_TRY(requireRank(OpKind::Conv2dWq, "input", x, 4, 4));
  if (q.dtype != DType::I8 || q.rank() != 4)
    return invalidInput("conv2d_wq needs an i8 [O, C/groups, kH, kW] weight, got " + q.str());
  const size_t biasIndex = hasZeros ? 4 : 3;
  if (operands.size() < biasIndex || operands.size() > biasIndex + 1)
    return invalidInput("conv2d_wq has " + std::to_string(operands.size()) +
                        " operands; has_zeros=" + (hasZeros ? "true" : "false"));
  for (size_t i = 2; i < biasIndex; ++i) {
    const TensorType &param = operands[i];
    if (!isFloatingPoint(param.dtype) || param.dtype != scales.dtype || param.rank() != 2 ||
        !mayBeEqual(param.shape[0], q.shape[0]) || !mayBeEqual(param.shape[1], Dim(1)))
      return invalidInput(std::string("conv2d_wq ") + (i == 2 ? "scales " : "zeros ") +
                          param.str() + " are not floating [O, 1] for weight " + q.str());
  }
  // The float convolution it stands for.
  TypeList floats{TensorType{scales.dtype, x.shape}, TensorType{scales.dtype, q.shape}};
  if (operands.size() == biasIndex + 1) {
    if (operands[biasIndex].dtype != scales.dtype)
      return invalidInput("conv2d_wq bias " + operands[biasIndex].str() + " is not " +
                          std::string(dtypeName(scales.dtype)));
    floats.push_back(operands[biasIndex]);
  }
  return inferConv2d(floats, attrs);
}

// The spatial dims grow instead of shrinking: (H-1)*stride - 2*padding + dilation*(kH-1) +
// output_padding + 1, i.e. H*stride plus a constant, so symbolic H stays a linear expression.
Expected<TensorType> inferConvTranspose2d(const TypeList &operands, const AttrMap &attrs) {
  const OpKind op = OpKind::ConvTranspose2d;
  const TensorType &x = operands[0];
  const TensorType &weight = operands[1];
  TC_TRY(requireFloating(op, x));
  TC_TRY(requireAllSameDType(operands));
  TC_TRY(requireRank(op, "input", x, 3, 4));
  TC_TRY(requireRank(op, "weight", weight, 4, 4));
  TC_ASSIGN_OR_RETURN(auto stride, readPair(op, attr::stride(attrs), "stride", 1));
  TC_ASSIGN_OR_RETURN(auto padding, readPair(op, attr::padding(attrs), "padding", 0));
  TC_ASSIGN_OR_RETURN(auto dilation, readPair(op, attr::dilation(attrs), "dilation", 1));
  TC_ASSIGN_OR_RETURN(auto outputPadding,
                      readPair(op, attr::output_padding(attrs), "output_padding", 0));
  int64_t groups = attr::groups(attrs);
  if (groups < 1)
    return invalidInput("conv_transpose2d groups must be positive, got " +
                        std::to_string(groups));
  for (size_t i = 0; i < 2; ++i) {
    if (outputPadding[i] >= std::max(stride[i], dilation[i]))
      return invalidInput("conv_transpose2d output_padding " +
                          intsStr(attr::output_padding(attrs)) +
                          " must be smaller than stride or dilation in each dim (stride " +
                          intsStr(attr::stride(attrs)) + ", dilation " +
                          intsStr(attr::dilation(attrs)) + ")");
  }
  // weight is [C, O/groups, kH, kW]; unbatched input is [C,H,W].
  const Dim &channels = x.shape[x.shape.size() - 3];
  if (!mayBeEqual(channels, weight.shape[0]))
    return invalidInput("conv_transpose2d input " + x.str() + " has " + channels.str() +
                        " channels but weight " + weight.str() + " expects " +
                        weight.shape[0].str());
  if (weight.shape[0].isStatic() && weight.shape[0].value() % groups != 0)
    return invalidInput("conv_transpose2d input channels " + weight.shape[0].str() +
                        " are not divisible by groups " + std::to_string(groups));
  Dim outChannels(SymExpr::mul(weight.shape[1].asExpr(), SymExpr::constant(groups)));
  bool biasFits = operands.size() < 3 ||
                  (operands[2].rank() == 1 && mayBeEqual(operands[2].shape[0], outChannels));
  if (!biasFits)
    return invalidInput("conv_transpose2d bias " + operands[2].str() + " does not match " +
                        outChannels.str() + " output channels");
  Shape shape = leadingDims(x.shape, 3);
  shape.push_back(outChannels);
  for (size_t i = 0; i < 2; ++i) {
    const Dim &kernel = weight.shape[2 + i];
    if (!kernel.isStatic())
      return unsupported("conv_transpose2d with symbolic kernel size " + kernel.str());
    int64_t offset = dilation[i] * (kernel.value() - 1) + outputPadding[i] + 1 - stride[i] -
                     2 * padding[i];
    const Dim &input = x.shape[x.shape.size() - 2 + i];
    Dim output = input.isStatic()
                     ? Dim(input.value() * stride[i] + offset)
                     : Dim(addLikeTerms(SymExpr::mul(input.expr(), SymExpr::constant(stride[i])),
                                        SymExpr::constant(offset)));
    if (output.isStatic() && output.value() < 1)
      return invalidInput("conv_transpose2d output size " + output.str() + " of spatial dim " +
                          std::to_string(i) + " is too small (input " + x.str() + ")");
    shape.push_back(output);
  }
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferAttention(const TypeList &operands, const AttrMap &attrs) {
  const TensorType &query = operands[0];
  const TensorType &key = operands[1];
  const TensorType &value = operands[2];
  TC_TRY(requireFloating(OpKind::Attention, query));
  TC_TRY(requireSameDType(query, key));
  TC_TRY(requireSameDType(query, value));
  for (const TensorType *operand : {&query, &key, &value})
    TC_TRY(requireRank(OpKind::Attention, "query, key and value", *operand, 2, -1));

  // q[..., L, E], k[..., S, E], v[..., S, Ev] -> [..., L, Ev]
  const Dim &embedding = query.shape.back();
  const Dim &sequence = key.shape[key.shape.size() - 2];
  if (!mayBeEqual(embedding, key.shape.back()))
    return invalidInput("attention query " + query.str() + " and key " + key.str() +
                        " differ in the last dim");
  if (!mayBeEqual(sequence, value.shape[value.shape.size() - 2]))
    return invalidInput("attention key " + key.str() + " and value " + value.str() +
                        " differ in sequence length");
  Expected<Shape> batch = broadcastShapes(leadingDims(query.shape, 2), leadingDims(key.shape, 2));
  if (batch.ok())
    batch = broadcastShapes(*batch, leadingDims(value.shape, 2));
  if (!batch.ok())
    return invalidInput("attention batch dims of " + query.str() + ", " + key.str() + " and " +
                        value.str() + " do not broadcast");
  Shape shape = std::move(batch).value();
  shape.push_back(query.shape[query.shape.size() - 2]);
  shape.push_back(value.shape.back());
  if (operands.size() < 4)
    return TensorType{query.dtype, std::move(shape)};

  const TensorType &mask = operands[3];
  if (attr::is_causal(attrs))
    return invalidInput("attention takes a mask or is_causal, not both");
  if (mask.dtype != DType::Bool && mask.dtype != query.dtype)
    return invalidInput("attention mask " + mask.str() + " must be bool or " +
                        std::string(dtypeName(query.dtype)));
  Shape scores = leadingDims(shape, 2);
  scores.push_back(query.shape[query.shape.size() - 2]);
  scores.push_back(sequence);
  if (!isExpandableTo(mask.shape, scores))
    return invalidInput("attention mask " + mask.str() + " does not broadcast to the scores " +
                        shapeStr(scores));
  return TensorType{query.dtype, std::move(shape)};
}

// ---- pooling ----

namespace {

// max_pool2d/3d, avg_pool2d/3d and max_pool_indices over the last N dims of x.
template <size_t N>
Expected<TensorType> inferPoolN(OpKind op, const TensorType &x, const AttrMap &attrs) {
  TC_TRY(requireRank(op, "input", x, static_cast<int64_t>(N) + 1, static_cast<int64_t>(N) + 2));
  TC_ASSIGN_OR_RETURN(auto kernel, readPair<N>(op, attr::kernel(attrs), "kernel", 1));
  TC_ASSIGN_OR_RETURN(auto stride, readPair<N>(op, attr::stride(attrs), "stride", 1));
  TC_ASSIGN_OR_RETURN(auto padding, readPair<N>(op, attr::padding(attrs), "padding", 0));
  std::array<int64_t, N> dilation;
  dilation.fill(1);
  bool isAvg = op == OpKind::AvgPool2d || op == OpKind::AvgPool3d;
  if (!isAvg) {
    TC_ASSIGN_OR_RETURN(dilation, readPair<N>(op, attr::dilation(attrs), "dilation", 1));
  }
  if (isAvg && attr::divisor_override(attrs) == 0)
    return invalidInput(std::string(opName(op)) + " divisor_override must not be zero");

  std::array<Window, N> windows;
  for (size_t i = 0; i < N; ++i) {
    windows[i] = {kernel[i], stride[i], padding[i], dilation[i]};
    // PyTorch's pool2d_shape_check bounds padding by half the (undilated) kernel.
    if (padding[i] > kernel[i] / 2)
      return invalidInput(std::string(opName(op)) + " padding " +
                          intsStr(std::vector<int64_t>(padding.begin(), padding.end())) +
                          " exceeds half the kernel " +
                          intsStr(std::vector<int64_t>(kernel.begin(), kernel.end())));
  }
  TC_ASSIGN_OR_RETURN(Shape shape, windowOutputShape(op, x, windows, attr::ceil_mode(attrs)));
  return TensorType{op == OpKind::MaxPoolIndices ? DType::I64 : x.dtype, std::move(shape)};
}

template <size_t N>
Expected<TensorType> inferAdaptiveAvgPoolN(OpKind op, const TensorType &x, const AttrMap &attrs) {
  TC_TRY(requireRank(op, "input", x, static_cast<int64_t>(N) + 1, static_cast<int64_t>(N) + 2));
  TC_ASSIGN_OR_RETURN(auto outputSize, readPair<N>(op, attr::output_size(attrs), "output_size", 0));
  // PyTorch rejects empty non-batch dims: there is nothing to average.
  for (size_t i = x.shape.size() - N - 1; i < x.shape.size(); ++i) {
    if (x.shape[i].isStatic() && x.shape[i].value() == 0)
      return invalidInput(std::string(opName(op)) + " input " + x.str() + " has an empty dim " +
                          std::to_string(i));
  }
  Shape shape = leadingDims(x.shape, N);
  for (int64_t size : outputSize)
    shape.push_back(Dim(size));
  return TensorType{x.dtype, std::move(shape)};
}

} // namespace

Expected<TensorType> inferPool2d(OpKind op, const TensorType &x, const AttrMap &attrs) {
  if (op == OpKind::MaxPool3d || op == OpKind::AvgPool3d ||
      (op == OpKind::MaxPoolIndices && attr::kernel(attrs).size() == 3))
    return inferPoolN<3>(op, x, attrs);
  return inferPoolN<2>(op, x, attrs);
}

Expected<TensorType> inferAdaptiveAvgPool2d(OpKind op, const TensorType &x, const AttrMap &attrs) {
  if (op == OpKind::AdaptiveAvgPool3d)
    return inferAdaptiveAvgPoolN<3>(op, x, attrs);
  return inferAdaptiveAvgPoolN<2>(op, x, attrs);
}

Expected<TensorType> inferGridSample(const TensorType &x, const TensorType &grid,
                                     const AttrMap &attrs) {
  OpKind op = OpKind::GridSample;
  TC_TRY(requireFloating(op, x));
  TC_TRY(requireRank(op, "input", x, 4, 4));
  TC_TRY(requireRank(op, "grid", grid, 4, 4));
  TC_TRY(requireSameDType(x, grid));
  if (!mayBeEqual(x.shape[0], grid.shape[0]) ||
      !(grid.shape[3].isStatic() && grid.shape[3].value() == 2))
    return invalidInput("grid_sample grid " + grid.str() + " must be [N, H, W, 2] for input " +
                        x.str());
  const std::string &mode = attr::mode(attrs);
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return invalidInput("grid_sample mode '" + mode +
                        "' (expected 'bilinear', 'nearest' or 'bicubic')");
  const std::string &padding = attr::padding_mode(attrs);
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return invalidInput("grid_sample padding_mode '" + padding +
                        "' (expected 'zeros', 'border' or 'reflection')");
  return TensorType{x.dtype, {x.shape[0], x.shape[1], grid.shape[1], grid.shape[2]}};
}

// ---- index ops ----

Expected<TensorType> inferEmbedding(const TensorType &weight, const TensorType &indices) {
  TC_TRY(requireRank(OpKind::Embedding, "weight", weight, 2, 2));
  TC_TRY(requireIndexDType(OpKind::Embedding, indices));
  Shape shape = indices.shape;
  shape.push_back(weight.shape[1]);
  return TensorType{weight.dtype, std::move(shape)};
}

Expected<TensorType> inferIndexSelect(const TensorType &x, const TensorType &indices,
                                      const AttrMap &attrs) {
  TC_TRY(requireIndexDType(OpKind::IndexSelect, indices));
  TC_TRY(requireRank(OpKind::IndexSelect, "indices", indices, 0, 1));
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDimWrapScalar(attr::dim(attrs), x.rank()));
  if (x.rank() == 0) {
    // A 0-d input (dim 0 or -1, like PyTorch) is one element: exactly one index, 0-d result.
    if (indices.rank() == 1 && !(indices.shape[0] == Dim(1)))
      return invalidInput("index_select of a 0-d input takes one index, got " + indices.str());
    return x;
  }
  Shape shape = x.shape;
  // A 0-d index selects one element and keeps the dim.
  shape[static_cast<size_t>(dim)] = indices.rank() == 1 ? indices.shape[0] : Dim(1);
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferGather(const TensorType &x, const TensorType &index,
                                 const AttrMap &attrs) {
  TC_TRY(requireIndexDType(OpKind::Gather, index));
  if (index.rank() != x.rank())
    return invalidInput("gather index " + index.str() + " and input " + x.str() +
                        " differ in rank");
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDimWrapScalar(attr::dim(attrs), x.rank()));
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != dim && index.shape[static_cast<size_t>(d)] != x.shape[static_cast<size_t>(d)])
      return invalidInput("gather index " + index.str() + " differs from the input " + x.str() +
                          " in dim " + std::to_string(d) + " (only dim " + std::to_string(dim) +
                          " may)");
  return TensorType{x.dtype, index.shape};
}

} // namespace thunderc::ir::inference
