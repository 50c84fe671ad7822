// The one table from exported ATen overloads to thunderc ops (both IR levels: training IR
// and core ATen). Each entry reads its arguments by schema name; defaults come from
// frontend/aten_schemas.inc, so nothing here repeats a default value.
#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "frontend/aten_conv_norm.h"
#include "frontend/node_importer.h"

namespace thunderc::frontend {
namespace {

using ir::AttrMap;
using ir::DType;
using ir::OpKind;
using ir::Value;

constexpr int64_t kEndOfDim = INT64_MAX / 2;

Expected<int64_t> normalizedDim(NodeImport &node, int64_t dim, int64_t rank) {
  int64_t normalized = dim < 0 ? dim + rank : dim;
  if (normalized < 0 || normalized >= std::max<int64_t>(rank, 1))
    return invalidInput("dim " + std::to_string(dim) + " out of range for rank " +
                        std::to_string(rank) + " in node '" + node.name() + "'");
  return normalized;
}

Expected<std::vector<int64_t>> normalizedDims(NodeImport &node, std::vector<int64_t> dims,
                                              int64_t rank) {
  for (int64_t &dim : dims) {
    TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, rank));
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

// A tensor of ones shaped like `like` (the implicit weight when only a bias is given).
Value *onesLike(NodeImport &node, const Value *like) {
  AttrMap one;
  one.set("value", 1.0);
  return node.emitTemp(OpKind::Full, {}, like->type(), std::move(one));
}

Status emitOne(NodeImport &node, OpKind op, std::vector<Value *> operands, AttrMap attrs = {}) {
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(op, std::move(operands), std::move(attrs)));
  (void)emitted;
  return Status::success();
}

// ---- elementwise ----

// Each attribute `op` declares in ir/ops.def, read from the ATen argument of the same name.
Expected<AttrMap> attributesFromArguments(NodeImport &node, OpKind op) {
  AttrMap attrs;
  for (const ir::AttrSpec &spec : ir::opInfo(op).attributes) {
    if (spec.optional && node.isNone(spec.name))
      continue;
    switch (spec.type) {
    case ir::AttrType::Int: {
      TC_ASSIGN_OR_RETURN(int64_t value, node.intArg(spec.name));
      attrs.set(spec.name, value);
      break;
    }
    case ir::AttrType::Float: {
      TC_ASSIGN_OR_RETURN(double value, node.floatArg(spec.name));
      attrs.set(spec.name, value);
      break;
    }
    case ir::AttrType::Bool: {
      TC_ASSIGN_OR_RETURN(bool value, node.boolArg(spec.name));
      attrs.set(spec.name, value);
      break;
    }
    default:
      TC_CHECK(false, "ir/ops.def: " + std::string(ir::opName(op)) +
                          " imports generically but its attribute '" + spec.name + "' is " +
                          ir::attrTypeName(spec.type));
    }
  }
  return attrs;
}

// Unary ops whose input is cast to the output dtype first (exp of an int tensor is float),
// except those with a bool result; attributes come from the ATen arguments of their names.
template <OpKind Op> Status importUnary(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(AttrMap attrs, attributesFromArguments(node, Op));
  bool keepsInput = ir::opInfo(Op).dtypeRule == ir::DTypeRule::Bool;
  return emitOne(node, Op, {keepsInput ? self : node.castTo(self, out.dtype)}, std::move(attrs));
}

// In-place unary (relu_): functional op, then later reads of `self` see the result.
template <OpKind Op> Status importInplaceUnary(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  if (self->isGraphInput() || node.state().viewResults.count(self))
    return node.unsupportedFeature("in-place update of a graph input or a view");
  TC_TRY(importUnary<Op>(node));
  node.state().values[self->name()] = node.state().values[node.outputName(0)];
  return Status::success();
}

Status importGelu(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::optional<std::string> approximate, node.optionalString("approximate"));
  AttrMap attrs;
  attrs.set("approximate", approximate.value_or("none"));
  return emitOne(node, OpKind::Gelu, {self}, std::move(attrs));
}

// clamp/hardtanh/relu6: the input is cast to the output dtype first (clamping an int tensor
// to float bounds gives a float result).
Status emitClamp(NodeImport &node, std::optional<double> min, std::optional<double> max) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  self = node.castTo(self, out.dtype);
  AttrMap attrs;
  if (min)
    attrs.set("min", *min);
  if (max)
    attrs.set("max", *max);
  return emitOne(node, OpKind::Clamp, {self}, std::move(attrs));
}

Status importHardtanh(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(double min, node.floatArg("min_val"));
  TC_ASSIGN_OR_RETURN(double max, node.floatArg("max_val"));
  return emitClamp(node, min, max);
}

Status importRelu6(NodeImport &node) { return emitClamp(node, 0.0, 6.0); }

Status importClamp(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(std::optional<double> min, node.optionalFloat("min"));
  TC_ASSIGN_OR_RETURN(std::optional<double> max, node.optionalFloat("max"));
  return emitClamp(node, min, max);
}

Status importClampMin(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(double min, node.floatArg("min"));
  return emitClamp(node, min, std::nullopt);
}

Status importClampMax(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(double max, node.floatArg("max"));
  return emitClamp(node, std::nullopt, max);
}

// clone, contiguous, alias, detach, lift_fresh_copy: an identity copy.
Status importCopy(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  return emitOne(node, OpKind::Copy, {self});
}

Status importDropout(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(bool train, node.boolArg("train"));
  if (train)
    return node.unsupportedFeature("dropout in training mode; export the model in eval mode");
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  return emitOne(node, OpKind::Copy, {input});
}

// to.dtype, _to_copy, type_as, ...: a cast to the output's dtype (a copy if it is the same).
Status importToDtype(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (self->type().dtype == out.dtype)
    return emitOne(node, OpKind::Copy, {self});
  AttrMap attrs;
  attrs.set("dtype", out.dtype);
  return emitOne(node, OpKind::Cast, {self}, std::move(attrs));
}

// The dtype both operands of a comparison are converted to (PyTorch's result_type, where a
// Python scalar only lifts the category: int tensor vs float scalar -> default float).
DType comparisonDType(const ScalarOrTensor &a, const ScalarOrTensor &b) {
  if (a.tensor && b.tensor)
    return ir::promoteTypes(a.tensor->type().dtype, b.tensor->type().dtype);
  const ScalarOrTensor &tensor = a.tensor ? a : b;
  const ScalarOrTensor &scalar = a.tensor ? b : a;
  if (!tensor.tensor)
    return DType::F32;
  DType dtype = tensor.tensor->type().dtype;
  if (scalar.scalarIsFloat && !ir::isFloatingPoint(dtype))
    return DType::F32;
  if (!scalar.scalarIsBool && dtype == DType::Bool)
    return DType::I64;
  return dtype;
}

// add/sub/mul/div/...: both operands materialized in the output's dtype (comparison ops: in
// the promoted dtype), then the binary op. `alpha` scales `other` for add/sub.
template <OpKind Op, bool Reversed = false>
Status importBinaryNamed(NodeImport &node, std::string_view lhsArg, std::string_view rhsArg) {
  TC_ASSIGN_OR_RETURN(ScalarOrTensor lhs, node.scalarOrTensor(lhsArg));
  TC_ASSIGN_OR_RETURN(ScalarOrTensor rhs, node.scalarOrTensor(rhsArg));
  if (Reversed)
    std::swap(lhs, rhs);
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  DType dtype = ir::hasTrait(Op, ir::kComparison) ? comparisonDType(lhs, rhs) : out.dtype;
  if (Op == OpKind::LogicalAnd || Op == OpKind::LogicalOr)
    dtype = DType::Bool;
  Value *a = node.materialize(lhs, dtype);
  Value *b = node.materialize(rhs, dtype);
  bool hasAlpha = node.schema().findArg("alpha") != nullptr;
  if (hasAlpha) {
    TC_ASSIGN_OR_RETURN(double alpha, node.floatArg("alpha"));
    if (alpha != 1.0) {
      Value *scale = node.scalarConstant(alpha, dtype);
      Value *&scaled = Reversed ? a : b;
      ir::TensorType type{dtype, scaled->type().shape};
      scaled = node.emitTemp(OpKind::Mul, {scaled, scale}, type);
    }
  }
  return emitOne(node, Op, {a, b});
}

template <OpKind Op> Status importBinary(NodeImport &node) {
  return importBinaryNamed<Op>(node, "self", "other");
}

// rsub(self, other, alpha) = other - alpha * self.
Status importRsub(NodeImport &node) {
  return importBinaryNamed<OpKind::Sub, true>(node, "self", "other");
}

template <OpKind Op> Status importInplaceBinary(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  if (self->isGraphInput() || node.state().viewResults.count(self))
    return node.unsupportedFeature("in-place update of a graph input or a view");
  TC_TRY(importBinary<Op>(node));
  node.state().values[self->name()] = node.state().values[node.outputName(0)];
  return Status::success();
}

Status importPowScalarBase(NodeImport &node) {
  return importBinaryNamed<OpKind::Pow>(node, "self", "exponent");
}

Status importPow(NodeImport &node) {
  return importBinaryNamed<OpKind::Pow>(node, "self", "exponent");
}

Status importDivMode(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(std::optional<std::string> mode, node.optionalString("rounding_mode"));
  if (!mode)
    return importBinary<OpKind::Div>(node);
  if (*mode == "floor")
    return importBinary<OpKind::FloorDivide>(node);
  return node.unsupportedFeature("div with rounding_mode '" + *mode + "'");
}

// bitwise and/or/not on bool tensors are the logical ops (masks combined with & | ~);
// integer bit arithmetic is not compiled.
template <OpKind Op> Status importBoolBitwise(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (out.dtype != DType::Bool)
    return node.unsupportedFeature("bitwise arithmetic on " +
                                   std::string(ir::dtypeName(out.dtype)) +
                                   " tensors (only bool masks are compiled)");
  if (Op == OpKind::LogicalNot)
    return importUnary<OpKind::LogicalNot>(node);
  return importBinary<Op>(node);
}

// where(condition, self, other), with either branch possibly a Python scalar.
Status importWhere(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * condition, node.tensor("condition"));
  TC_ASSIGN_OR_RETURN(ScalarOrTensor self, node.scalarOrTensor("self"));
  TC_ASSIGN_OR_RETURN(ScalarOrTensor other, node.scalarOrTensor("other"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  Value *mask = node.castTo(condition, DType::Bool);
  return emitOne(node, OpKind::Where,
                 {mask, node.materialize(self, out.dtype), node.materialize(other, out.dtype)});
}

// masked_fill(self, mask, value) = where(mask, value, self).
Status importMaskedFill(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * mask, node.tensor("mask"));
  TC_ASSIGN_OR_RETURN(ScalarOrTensor value, node.scalarOrTensor("value"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  return emitOne(node, OpKind::Where,
                 {node.castTo(mask, DType::Bool), node.materialize(value, out.dtype),
                  node.castTo(self, out.dtype)});
}

// ---- reductions ----

// Reads the reduced dims: `dim` may be None or [] (all dims) or a list.
Expected<std::vector<int64_t>> reductionDims(NodeImport &node, Value *self,
                                             std::string_view arg) {
  std::vector<int64_t> dims;
  if (node.schema().findArg(arg) != nullptr && !node.isNone(arg)) {
    TC_ASSIGN_OR_RETURN(dims, node.intList(arg));
  }
  return normalizedDims(node, dims, self->type().rank());
}

template <OpKind Op> Status importReduction(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, reductionDims(node, self, "dim"));
  bool keepdim = false;
  if (node.schema().findArg("keepdim") != nullptr) {
    TC_ASSIGN_OR_RETURN(keepdim, node.boolArg("keepdim"));
  }
  AttrMap attrs;
  attrs.set("dims", dims);
  attrs.set("keepdim", keepdim);
  Value *input = Op == OpKind::Any ? self : node.castTo(self, out.dtype);
  return emitOne(node, Op, {input}, std::move(attrs));
}

Status importVar(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, reductionDims(node, self, "dim"));
  double correction = 1.0;
  if (node.schema().findArg("correction") != nullptr) {
    TC_ASSIGN_OR_RETURN(std::optional<double> given, node.optionalFloat("correction"));
    correction = given.value_or(1.0);
  } else {
    TC_ASSIGN_OR_RETURN(bool unbiased, node.boolArg("unbiased"));
    correction = unbiased ? 1.0 : 0.0;
  }
  TC_ASSIGN_OR_RETURN(bool keepdim, node.boolArg("keepdim"));
  AttrMap attrs;
  attrs.set("correction", correction);
  attrs.set("dims", dims);
  attrs.set("keepdim", keepdim);
  return emitOne(node, OpKind::Var, {self}, std::move(attrs));
}

Status importArgmax(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> dim, node.optionalInt("dim"));
  if (!dim)
    return node.unsupportedFeature("argmax over the flattened tensor (dim=None)");
  TC_ASSIGN_OR_RETURN(int64_t normalized, normalizedDim(node, *dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(bool keepdim, node.boolArg("keepdim"));
  AttrMap attrs;
  attrs.set("dim", normalized);
  attrs.set("keepdim", keepdim);
  return emitOne(node, OpKind::Argmax, {self}, std::move(attrs));
}

// max.dim / min.dim: (values, indices); values via amax/amin, indices only for max.
template <OpKind Op> Status importMaxMinDim(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(int64_t normalized, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(bool keepdim, node.boolArg("keepdim"));
  AttrMap attrs;
  attrs.set("dims", std::vector<int64_t>{normalized});
  attrs.set("keepdim", keepdim);
  return emitOne(node, Op, {self}, std::move(attrs));
}

// ---- normalization, softmax ----

template <OpKind Op> Status importSoftmax(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(int64_t normalized, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  AttrMap attrs;
  attrs.set("dim", normalized);
  return emitOne(node, Op, {node.castTo(self, out.dtype)}, std::move(attrs));
}

// cumsum(self, dim, dtype?): `dtype` converts self before summing; without it bool and
// integers accumulate in i64 (ir/ops.def's rule, PyTorch's promotion).
Status importCumsum(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (!ir::isFloatingPoint(out.dtype) && out.dtype != DType::I64)
    return node.unsupportedFeature("cumsum into " + std::string(ir::dtypeName(out.dtype)) +
                                   " (integers are summed in int64)");
  Value *x = node.isNone("dtype") ? self : node.castTo(self, out.dtype);
  AttrMap attrs;
  attrs.set("dim", dim);
  return emitOne(node, OpKind::Cumsum, {x}, std::move(attrs));
}

// layer_norm and native_layer_norm (whose mean/rstd outputs must be unused).
Status importLayerNorm(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, node.intList("normalized_shape"));
  TC_ASSIGN_OR_RETURN(Value * weight, node.optionalTensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * bias, node.optionalTensor("bias"));
  TC_ASSIGN_OR_RETURN(double eps, node.floatArg("eps"));
  std::vector<Value *> operands{input};
  if (bias && !weight)
    weight = onesLike(node, bias);
  if (weight)
    operands.push_back(weight);
  if (bias)
    operands.push_back(bias);
  AttrMap attrs;
  attrs.set("eps", eps);
  attrs.set("normalized_shape", shape);
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::LayerNorm, operands, attrs));
  (void)emitted;
  return Status::success();
}

// batch_norm (training IR) and _native_batch_norm_legit_no_training (core ATen).
Status importBatchNorm(NodeImport &node) {
  if (node.schema().findArg("training") != nullptr) {
    TC_ASSIGN_OR_RETURN(bool training, node.boolArg("training"));
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
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::BatchNorm, operands, attrs));
  (void)emitted;
  return Status::success();
}

// ---- linear algebra, attention (convolutions: frontend/aten_conv_norm.cpp) ----

Status importLinear(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  TC_ASSIGN_OR_RETURN(Value * weight, node.tensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * bias, node.optionalTensor("bias"));
  std::vector<Value *> operands{input, weight};
  if (bias)
    operands.push_back(bias);
  return emitOne(node, OpKind::Linear, operands);
}

Status importMatmul(NodeImport &node) {
  bool isMm = node.schema().findArg("mat2") != nullptr;
  TC_ASSIGN_OR_RETURN(Value * a, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * b, node.tensor(isMm ? "mat2" : "other"));
  return emitOne(node, OpKind::Matmul, {a, b});
}

Status importAddmm(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * bias, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * a, node.tensor("mat1"));
  TC_ASSIGN_OR_RETURN(Value * b, node.tensor("mat2"));
  TC_ASSIGN_OR_RETURN(double beta, node.floatArg("beta"));
  TC_ASSIGN_OR_RETURN(double alpha, node.floatArg("alpha"));
  AttrMap attrs;
  attrs.set("alpha", alpha);
  attrs.set("beta", beta);
  return emitOne(node, OpKind::Addmm, {bias, a, b}, std::move(attrs));
}

// A 2-element spatial parameter; a single value applies to both dims.
Expected<std::vector<int64_t>> pair(NodeImport &node, std::string_view arg) {
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> values, node.intList(arg));
  if (values.size() == 1)
    values.push_back(values[0]);
  if (values.size() != 2)
    return node.unsupportedFeature("argument '" + std::string(arg) + "' has " +
                                   std::to_string(values.size()) + " entries, expected 2");
  return values;
}

Status importAttention(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * query, node.tensor("query"));
  TC_ASSIGN_OR_RETURN(Value * key, node.tensor("key"));
  TC_ASSIGN_OR_RETURN(Value * value, node.tensor("value"));
  TC_ASSIGN_OR_RETURN(Value * mask, node.optionalTensor("attn_mask"));
  TC_ASSIGN_OR_RETURN(double dropout, node.floatArg("dropout_p"));
  TC_ASSIGN_OR_RETURN(bool isCausal, node.boolArg("is_causal"));
  TC_ASSIGN_OR_RETURN(std::optional<double> scale, node.optionalFloat("scale"));
  TC_ASSIGN_OR_RETURN(bool gqa, node.boolArg("enable_gqa"));
  if (dropout != 0.0)
    return node.unsupportedFeature("attention dropout (dropout_p must be 0 for inference)");
  if (gqa)
    return node.unsupportedFeature("grouped-query attention (enable_gqa=True)");
  std::vector<Value *> operands{query, key, value};
  if (mask)
    operands.push_back(mask);
  AttrMap attrs;
  attrs.set("is_causal", isCausal);
  if (scale)
    attrs.set("scale", *scale);
  return emitOne(node, OpKind::Attention, operands, std::move(attrs));
}

// ---- pooling ----

Status importMaxPool2d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, pair(node, "kernel_size"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> stride, node.intList("stride"));
  if (stride.empty())
    stride = kernel;
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> padding, pair(node, "padding"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dilation, pair(node, "dilation"));
  TC_ASSIGN_OR_RETURN(bool ceilMode, node.boolArg("ceil_mode"));
  if (stride.size() == 1)
    stride.push_back(stride[0]);
  AttrMap attrs;
  attrs.set("ceil_mode", ceilMode);
  attrs.set("dilation", dilation);
  attrs.set("kernel", kernel);
  attrs.set("padding", padding);
  attrs.set("stride", stride);
  return emitOne(node, OpKind::MaxPool2d, {self}, std::move(attrs));
}

Status importAvgPool2d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, pair(node, "kernel_size"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> stride, node.intList("stride"));
  if (stride.empty())
    stride = kernel;
  if (stride.size() == 1)
    stride.push_back(stride[0]);
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> padding, pair(node, "padding"));
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
  return emitOne(node, OpKind::AvgPool2d, {self}, std::move(attrs));
}

Status importAdaptiveAvgPool2d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> size, pair(node, "output_size"));
  AttrMap attrs;
  attrs.set("output_size", size);
  return emitOne(node, OpKind::AdaptiveAvgPool2d, {self}, std::move(attrs));
}

// ---- shapes and data movement ----

// view/reshape/flatten/unflatten/_unsafe_view: the target shape is the output's (the
// exporter has already resolved -1 and symbolic sizes).
Status importReshape(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(out.shape));
  return emitOne(node, OpKind::Reshape, {self}, std::move(attrs));
}

Status emitPermute(NodeImport &node, Value *self, std::vector<int64_t> dims) {
  for (int64_t &dim : dims) {
    TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  }
  AttrMap attrs;
  attrs.set("dims", dims);
  return emitOne(node, OpKind::Permute, {self}, std::move(attrs));
}

Status importPermute(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, node.intList("dims"));
  return emitPermute(node, self, std::move(dims));
}

Status importTranspose(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim0, node.intArg("dim0"));
  TC_ASSIGN_OR_RETURN(int64_t dim1, node.intArg("dim1"));
  int64_t rank = self->type().rank();
  TC_ASSIGN_OR_RETURN(dim0, normalizedDim(node, dim0, rank));
  TC_ASSIGN_OR_RETURN(dim1, normalizedDim(node, dim1, rank));
  std::vector<int64_t> dims(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i)
    dims[static_cast<size_t>(i)] = i;
  if (rank > 0)
    std::swap(dims[static_cast<size_t>(dim0)], dims[static_cast<size_t>(dim1)]);
  return emitPermute(node, self, std::move(dims));
}

Status importT(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  if (self->type().rank() < 2)
    return emitOne(node, OpKind::Copy, {self});
  return emitPermute(node, self, {1, 0});
}

Status importExpand(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(out.shape));
  return emitOne(node, OpKind::Expand, {self}, std::move(attrs));
}

// slice.Tensor: start/end clamped like Python slicing; an end past the dim (or None)
// becomes the dim's size, which may be symbolic.
Status importSlice(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> start, node.optionalInt("start"));
  TC_ASSIGN_OR_RETURN(std::optional<ir::Dim> end, node.optionalSymInt("end"));
  TC_ASSIGN_OR_RETURN(int64_t step, node.intArg("step"));
  if (step <= 0)
    return invalidInput("slice step must be positive, got " + std::to_string(step));
  const ir::Dim &size = self->type().shape[static_cast<size_t>(dim)];
  int64_t begin = start.value_or(0);
  ir::Dim stop = end.value_or(ir::Dim(kEndOfDim));
  if (size.isStatic()) {
    int64_t extent = size.value();
    if (!stop.isStatic())
      return node.unsupportedFeature("symbolic slice end on a static dim");
    int64_t last = stop.value();
    begin = begin < 0 ? std::max<int64_t>(begin + extent, 0) : std::min(begin, extent);
    last = last < 0 ? std::max<int64_t>(last + extent, 0) : std::min(last, extent);
    stop = ir::Dim(std::max(last, begin));
  } else {
    if (begin < 0)
      return node.unsupportedFeature("negative slice start on a symbolic dim");
    if (stop.isStatic() && stop.value() >= kEndOfDim)
      stop = size;
    else if (stop.isStatic() && stop.value() < 0)
      stop = ir::Dim(ir::SymExpr::add(size.expr(), ir::SymExpr::constant(stop.value())));
  }
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("end", ir::makeDimAttr(stop));
  attrs.set("start", begin);
  attrs.set("step", step);
  return emitOne(node, OpKind::Slice, {self}, std::move(attrs));
}

// diff(self, n=1, dim, prepend?, append?): x[1:] - x[:-1] along `dim` for x = cat(prepend,
// self, append) (bool: the two differ, as torch's logical_xor). Only the first difference
// (n=1) is compiled: that is what the models emit (transformers prepends a column).
Status importDiff(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t n, node.intArg("n"));
  if (n != 1)
    return node.unsupportedFeature("diff with n=" + std::to_string(n) + " (only n=1)");
  if (self->type().rank() == 0)
    return invalidInput("diff of a 0-d tensor in node '" + node.name() + "'");
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  auto at = static_cast<size_t>(dim);
  TC_ASSIGN_OR_RETURN(Value * prepend, node.optionalTensor("prepend"));
  TC_ASSIGN_OR_RETURN(Value * append, node.optionalTensor("append"));
  if (prepend != nullptr || append != nullptr) {
    std::vector<Value *> parts;
    ir::TensorType joined = self->type();
    ir::SymExpr total = ir::SymExpr::constant(0);
    for (Value *part : {prepend, self, append}) {
      if (part == nullptr)
        continue;
      const ir::TensorType &type = part->type();
      bool fits = type.rank() == joined.rank();
      for (size_t d = 0; fits && d < type.shape.size(); ++d)
        fits = d == at || type.shape[d] == joined.shape[d];
      if (!fits)
        return invalidInput("diff prepend/append " + type.str() + " does not match the input " +
                            self->type().str() + " outside dim " + std::to_string(dim) +
                            " in node '" + node.name() + "'");
      total = ir::SymExpr::add(total, type.shape[at].asExpr());
      parts.push_back(node.castTo(part, joined.dtype));
    }
    joined.shape[at] = ir::Dim(total);
    AttrMap attrs;
    attrs.set("dim", dim);
    self = node.emitTemp(OpKind::Concat, std::move(parts), joined, std::move(attrs));
  }
  const ir::Dim &size = self->type().shape[static_cast<size_t>(dim)];
  // The result's extent along `dim`: size - 1, and 0 for an empty dim.
  ir::Dim extent = size.isStatic()
                       ? ir::Dim(std::max<int64_t>(size.value() - 1, 0))
                       : ir::Dim(ir::SymExpr::add(size.expr(), ir::SymExpr::constant(-1)));
  ir::TensorType sliced = self->type();
  sliced.shape[static_cast<size_t>(dim)] = extent;
  auto slice = [&](int64_t start, const ir::Dim &end) {
    AttrMap attrs;
    attrs.set("dim", dim);
    attrs.set("end", ir::makeDimAttr(end));
    attrs.set("start", start);
    attrs.set("step", int64_t{1});
    return node.emitTemp(OpKind::Slice, {self}, sliced, std::move(attrs));
  };
  int64_t start = size.isStatic() ? std::min<int64_t>(1, size.value()) : 1;
  Value *later = slice(start, size);
  Value *earlier = slice(0, extent);
  OpKind op = self->type().dtype == DType::Bool ? OpKind::Ne : OpKind::Sub;
  return emitOne(node, op, {later, earlier});
}

Status importSelect(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(int64_t index, node.intArg("index"));
  const ir::Dim &size = self->type().shape[static_cast<size_t>(dim)];
  if (index < 0) {
    if (!size.isStatic())
      return node.unsupportedFeature("negative select index on a symbolic dim");
    index += size.value();
  }
  if (index < 0 || (size.isStatic() && index >= size.value()))
    return invalidInput("select index out of range");
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("index", index);
  return emitOne(node, OpKind::Select, {self}, std::move(attrs));
}

// squeeze.default/.dim/.dims: the dims removed are the size-1 dims among those named.
Status importSqueeze(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  const ir::Shape &shape = self->type().shape;
  std::vector<int64_t> named;
  if (node.schema().findArg("dim") != nullptr) {
    TC_ASSIGN_OR_RETURN(named, node.intList("dim"));
  } else {
    for (size_t i = 0; i < shape.size(); ++i)
      named.push_back(static_cast<int64_t>(i));
  }
  TC_ASSIGN_OR_RETURN(named, normalizedDims(node, named, self->type().rank()));
  std::vector<int64_t> dims;
  for (int64_t dim : named)
    if (shape[static_cast<size_t>(dim)] == ir::Dim(1))
      dims.push_back(dim);
  AttrMap attrs;
  attrs.set("dims", dims);
  return emitOne(node, OpKind::Squeeze, {self}, std::move(attrs));
}

Status importUnsqueeze(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank() + 1));
  AttrMap attrs;
  attrs.set("dim", dim);
  return emitOne(node, OpKind::Unsqueeze, {self}, std::move(attrs));
}

Status importCat(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(std::vector<Value *> tensors, node.tensorList("tensors"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, out.rank()));
  std::vector<Value *> operands;
  for (Value *tensor : tensors) {
    // PyTorch skips legacy empty 1-d tensors in cat.
    bool legacyEmpty = tensor->type().rank() == 1 && tensor->type().shape[0] == ir::Dim(0) &&
                       out.rank() != 1;
    if (!legacyEmpty)
      operands.push_back(node.castTo(tensor, out.dtype));
  }
  AttrMap attrs;
  attrs.set("dim", dim);
  return emitOne(node, OpKind::Concat, operands, std::move(attrs));
}

// split / split_with_sizes / chunk: piece sizes are read from the outputs' types.
Status importSplit(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  std::vector<ir::Dim> sizes;
  for (int i = 0; i < node.numOutputs(); ++i) {
    TC_ASSIGN_OR_RETURN(ir::TensorType type, node.outputType(i));
    sizes.push_back(type.shape.at(static_cast<size_t>(dim)));
  }
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("sizes", ir::makeDimsAttr(sizes));
  TC_ASSIGN_OR_RETURN(ir::Node * emitted,
                      node.emit(OpKind::Split, {self}, std::move(attrs), node.numOutputs()));
  (void)emitted;
  return Status::success();
}

template <OpKind Op> Status importTriangle(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t diagonal, node.intArg("diagonal"));
  AttrMap attrs;
  attrs.set("diagonal", diagonal);
  return emitOne(node, Op, {self}, std::move(attrs));
}

// ---- constants and indexing ----

// full / full_like / zeros / ones / scalar_tensor / new_full ...: a constant of the output
// type. `fillArg` names the value argument; empty means the constant `fixed`.
Status emitFull(NodeImport &node, std::string_view fillArg, double fixed) {
  double value = fixed;
  if (!fillArg.empty()) {
    TC_ASSIGN_OR_RETURN(ScalarOrTensor fill, node.scalarOrTensor(fillArg));
    if (fill.tensor)
      return node.unsupportedFeature("fill value given as a tensor");
    value = fill.scalar;
  }
  AttrMap attrs;
  attrs.set("value", value);
  return emitOne(node, OpKind::Full, {}, std::move(attrs));
}

Status importFull(NodeImport &node) { return emitFull(node, "fill_value", 0); }
Status importScalarTensor(NodeImport &node) { return emitFull(node, "s", 0); }
Status importZeros(NodeImport &node) { return emitFull(node, "", 0); }
Status importOnes(NodeImport &node) { return emitFull(node, "", 1); }

// arange.default / .start / .start_step: start and step; the length is the output's.
Status importArange(NodeImport &node) {
  double start = 0;
  double step = 1;
  if (node.schema().findArg("start") != nullptr) {
    TC_ASSIGN_OR_RETURN(start, node.floatArg("start"));
  }
  if (node.schema().findArg("step") != nullptr) {
    TC_ASSIGN_OR_RETURN(step, node.floatArg("step"));
  }
  AttrMap attrs;
  attrs.set("start", start);
  attrs.set("step", step);
  return emitOne(node, OpKind::Arange, {}, std::move(attrs));
}

Status importEmbedding(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * weight, node.tensor("weight"));
  TC_ASSIGN_OR_RETURN(Value * indices, node.tensor("indices"));
  return emitOne(node, OpKind::Embedding, {weight, indices});
}

Status importIndexSelect(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(Value * index, node.tensor("index"));
  AttrMap attrs;
  attrs.set("dim", dim);
  return emitOne(node, OpKind::IndexSelect, {self, index}, std::move(attrs));
}

// gather(self, dim, index): index may be smaller than self outside `dim`; self is sliced to
// index's size there, so that the op sees the same sizes (ir/ops.def).
Status importGather(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * index, node.tensor("index"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  int64_t rank = self->type().rank();
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, rank));
  if (index->type().rank() != rank)
    return invalidInput("gather index " + index->type().str() + " and input " +
                        self->type().str() + " differ in rank in node '" + node.name() + "'");
  for (int64_t d = 0; d < rank; ++d) {
    auto at = static_cast<size_t>(d);
    const ir::Dim &want = index->type().shape[at];
    if (d == dim || want == self->type().shape[at])
      continue;
    if (!want.isStatic() || !self->type().shape[at].isStatic())
      return node.unsupportedFeature("gather index smaller than the input in a symbolic dim");
    if (want.value() > self->type().shape[at].value())
      return invalidInput("gather index " + index->type().str() + " is larger than the input " +
                          self->type().str() + " in dim " + std::to_string(d));
    ir::TensorType sliced = self->type();
    sliced.shape[at] = want;
    AttrMap attrs;
    attrs.set("dim", d);
    attrs.set("end", ir::makeDimAttr(want));
    attrs.set("start", int64_t{0});
    attrs.set("step", int64_t{1});
    self = node.emitTemp(OpKind::Slice, {self}, sliced, std::move(attrs));
  }
  AttrMap attrs;
  attrs.set("dim", dim);
  return emitOne(node, OpKind::Gather, {self, index}, std::move(attrs));
}

struct TableEntry {
  std::string_view target; ///< "aten.<op>.<overload>"
  ImportFunction function;
};

// clang-format off
// The overloads ir/ops.def maps to its unary and binary ops are found there (see
// findImportFunction); these are the rest.
constexpr TableEntry kTable[] = {
    // elementwise unary
    {"aten.relu_.default", importInplaceUnary<OpKind::Relu>},
    {"aten.gelu.default", importGelu},
    {"aten.hardtanh.default", importHardtanh},
    {"aten.relu6.default", importRelu6},
    {"aten.clamp.default", importClamp},
    {"aten.clamp_min.default", importClampMin},
    {"aten.clamp_max.default", importClampMax},
    // copies and casts
    {"aten.alias.default", importCopy},
    {"aten.clone.default", importCopy},
    {"aten.contiguous.default", importCopy},
    {"aten.detach.default", importCopy},
    {"aten.lift_fresh_copy.default", importCopy},
    {"aten.dropout.default", importDropout},
    {"aten.feature_dropout.default", importDropout},
    {"aten.alpha_dropout.default", importDropout},
    {"aten._to_copy.default", importToDtype},
    {"aten.to.dtype", importToDtype},
    {"aten.to.dtype_layout", importToDtype},
    {"aten.to.device", importToDtype},
    {"aten.to.other", importToDtype},
    {"aten.type_as.default", importToDtype},
    // elementwise binary
    {"aten.add_.Tensor", importInplaceBinary<OpKind::Add>},
    {"aten.rsub.Tensor", importRsub},
    {"aten.rsub.Scalar", importRsub},
    {"aten.mul_.Tensor", importInplaceBinary<OpKind::Mul>},
    {"aten.div.Tensor_mode", importDivMode},
    {"aten.div.Scalar_mode", importDivMode},
    {"aten.pow.Tensor_Scalar", importPow},
    {"aten.pow.Tensor_Tensor", importPow},
    {"aten.pow.Scalar", importPowScalarBase},
    {"aten.bitwise_and.Tensor", importBoolBitwise<OpKind::LogicalAnd>},
    {"aten.bitwise_or.Tensor", importBoolBitwise<OpKind::LogicalOr>},
    {"aten.bitwise_not.default", importBoolBitwise<OpKind::LogicalNot>},
    {"aten.__and__.Tensor", importBoolBitwise<OpKind::LogicalAnd>},
    {"aten.__or__.Tensor", importBoolBitwise<OpKind::LogicalOr>},
    {"aten.where.self", importWhere},
    {"aten.where.ScalarOther", importWhere},
    {"aten.where.ScalarSelf", importWhere},
    {"aten.masked_fill.Scalar", importMaskedFill},
    {"aten.masked_fill.Tensor", importMaskedFill},
    // reductions
    {"aten.sum.dim_IntList", importReduction<OpKind::Sum>},
    {"aten.sum.default", importReduction<OpKind::Sum>},
    {"aten.mean.dim", importReduction<OpKind::Mean>},
    {"aten.mean.default", importReduction<OpKind::Mean>},
    {"aten.amax.default", importReduction<OpKind::Amax>},
    {"aten.amin.default", importReduction<OpKind::Amin>},
    {"aten.prod.dim_int", importReduction<OpKind::Prod>},
    {"aten.prod.default", importReduction<OpKind::Prod>},
    {"aten.any.dim", importReduction<OpKind::Any>},
    {"aten.any.dims", importReduction<OpKind::Any>},
    {"aten.any.default", importReduction<OpKind::Any>},
    {"aten.var.correction", importVar},
    {"aten.var.dim", importVar},
    {"aten.argmax.default", importArgmax},
    {"aten.max.dim", importMaxMinDim<OpKind::Amax>},
    {"aten.min.dim", importMaxMinDim<OpKind::Amin>},
    // normalization and softmax
    {"aten.softmax.int", importSoftmax<OpKind::Softmax>},
    {"aten._softmax.default", importSoftmax<OpKind::Softmax>},
    {"aten.log_softmax.int", importSoftmax<OpKind::LogSoftmax>},
    {"aten._log_softmax.default", importSoftmax<OpKind::LogSoftmax>},
    {"aten.cumsum.default", importCumsum},
    {"aten.layer_norm.default", importLayerNorm},
    {"aten.native_layer_norm.default", importLayerNorm},
    {"aten.batch_norm.default", importBatchNorm},
    {"aten._native_batch_norm_legit_no_training.default", importBatchNorm},
    // linear algebra, attention
    {"aten.linear.default", importLinear},
    {"aten.matmul.default", importMatmul},
    {"aten.mm.default", importMatmul},
    {"aten.bmm.default", importMatmul},
    {"aten.addmm.default", importAddmm},
    {"aten.scaled_dot_product_attention.default", importAttention},
    // pooling
    {"aten.max_pool2d.default", importMaxPool2d},
    {"aten.max_pool2d_with_indices.default", importMaxPool2d},
    {"aten.avg_pool2d.default", importAvgPool2d},
    {"aten.adaptive_avg_pool2d.default", importAdaptiveAvgPool2d},
    {"aten._adaptive_avg_pool2d.default", importAdaptiveAvgPool2d},
    // shapes
    {"aten.view.default", importReshape},
    {"aten.reshape.default", importReshape},
    {"aten._unsafe_view.default", importReshape},
    {"aten.flatten.using_ints", importReshape},
    {"aten.unflatten.int", importReshape},
    {"aten.view_as.default", importReshape},
    {"aten.reshape_as.default", importReshape},
    {"aten.permute.default", importPermute},
    {"aten.transpose.int", importTranspose},
    {"aten.t.default", importT},
    {"aten.expand.default", importExpand},
    {"aten.expand_as.default", importExpand},
    {"aten.slice.Tensor", importSlice},
    {"aten.select.int", importSelect},
    {"aten.diff.default", importDiff},
    {"aten.squeeze.default", importSqueeze},
    {"aten.squeeze.dim", importSqueeze},
    {"aten.squeeze.dims", importSqueeze},
    {"aten.unsqueeze.default", importUnsqueeze},
    {"aten.cat.default", importCat},
    {"aten.split.Tensor", importSplit},
    {"aten.split.sizes", importSplit},
    {"aten.split_with_sizes.default", importSplit},
    {"aten.chunk.default", importSplit},
    {"aten.tril.default", importTriangle<OpKind::Tril>},
    {"aten.triu.default", importTriangle<OpKind::Triu>},
    // constants and indexing
    {"aten.full.default", importFull},
    {"aten.full_like.default", importFull},
    {"aten.new_full.default", importFull},
    {"aten.scalar_tensor.default", importScalarTensor},
    {"aten.zeros.default", importZeros},
    {"aten.zeros_like.default", importZeros},
    {"aten.new_zeros.default", importZeros},
    {"aten.ones.default", importOnes},
    {"aten.ones_like.default", importOnes},
    {"aten.new_ones.default", importOnes},
    {"aten.arange.default", importArange},
    {"aten.arange.start", importArange},
    {"aten.arange.start_step", importArange},
    {"aten.embedding.default", importEmbedding},
    {"aten.index_select.default", importIndexSelect},
    {"aten.gather.default", importGather},
    // convolution and its normalizations (frontend/aten_conv_norm.cpp)
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
};
// clang-format on

constexpr std::string_view kDroppedAssertions[] = {
    "aten._assert_tensor_metadata.default", "aten._assert_scalar.default",
    "aten.sym_constrain_range_for_size.default", "aten.sym_constrain_range.default",
    "aten._assert_async.msg"};

// The generic import of each op of ir/ops.def, by its family; null for the other families.
template <ir::OpFamily Family, OpKind Op> constexpr ImportFunction genericImport() {
  if constexpr (Family == ir::OpFamily::Unary)
    return importUnary<Op>;
  else if constexpr (Family == ir::OpFamily::Binary)
    return importBinary<Op>;
  else
    return nullptr;
}

constexpr ImportFunction kGenericImports[] = {
#define TC_OP(Enum, name, family, minOperands, maxOperands, numResults, traits, dtypeRule,       \
              scalarExpression, atenOverloads, attributes)                                       \
  genericImport<ir::OpFamily::family, OpKind::Enum>(),
#include "ir/ops.def"
};

// The op whose "aten overloads" column in ir/ops.def names `overload` ("add.Tensor").
ImportFunction findGenericImport(std::string_view overload) {
  for (int op = 0; op < ir::kNumOps; ++op) {
    std::string_view names = ir::opInfo(static_cast<OpKind>(op)).atenOverloads;
    while (!names.empty()) {
      size_t space = names.find(' ');
      if (names.substr(0, space) == overload && kGenericImports[op] != nullptr)
        return kGenericImports[op];
      names.remove_prefix(space == std::string_view::npos ? names.size() : space + 1);
    }
  }
  return nullptr;
}

std::string_view stripTorchOps(std::string_view target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  if (target.substr(0, kPrefix.size()) == kPrefix)
    target.remove_prefix(kPrefix.size());
  return target;
}

} // namespace

ImportFunction findImportFunction(std::string_view target) {
  target = stripTorchOps(target);
  for (const TableEntry &entry : kTable)
    if (entry.target == target)
      return entry.function;
  constexpr std::string_view kAten = "aten.";
  if (!target.starts_with(kAten))
    return nullptr;
  return findGenericImport(target.substr(kAten.size()));
}

bool isDroppedAssertion(std::string_view target) {
  target = stripTorchOps(target);
  return std::find(std::begin(kDroppedAssertions), std::end(kDroppedAssertions), target) !=
         std::end(kDroppedAssertions);
}

} // namespace thunderc::frontend
