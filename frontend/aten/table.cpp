// The one table from exported ATen overloads to thunderc ops (both IR levels: training IR
// and core ATen). Each entry reads its arguments by schema name; defaults come from
// frontend/aten/schemas.inc, so nothing here repeats a default value.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "frontend/aten/decompose.h"
#include "frontend/aten/complex.h"
#include "frontend/aten/fft.h"
#include "frontend/aten/scatter.h"
#include "frontend/aten/random.h"
#include "frontend/aten/sort.h"
#include "frontend/aten/spatial.h"
#include "frontend/aten/conv_norm.h"
#include "frontend/aten/rnn.h"
#include "frontend/aten/node_importer.h"
#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

constexpr int64_t kEndOfDim = INT64_MAX / 2;

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

/// `op` typed by shape inference, then the cast to `dtype` as the node's output: an integer
/// accumulation into a narrower integer (which wraps like PyTorch's), an out_dtype.
Status emitThenCast(NodeImport &node, OpKind op, std::vector<Value *> operands, AttrMap attrs,
                    DType dtype) {
  TC_ASSIGN_OR_RETURN(Value * wide, node.emitInferred(op, std::move(operands), std::move(attrs)));
  AttrMap cast;
  cast.set("dtype", dtype);
  return emitOne(node, OpKind::Cast, {wide}, std::move(cast));
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
  return node.importInPlace(importUnary<Op>);
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
  if (Op == OpKind::LogicalAnd || Op == OpKind::LogicalOr || Op == OpKind::LogicalXor)
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
  return node.importInPlace(importBinary<Op>);
}

Status importPowScalarBase(NodeImport &node) {
  return importBinaryNamed<OpKind::Pow>(node, "self", "exponent");
}

Status importPow(NodeImport &node) {
  return importBinaryNamed<OpKind::Pow>(node, "self", "exponent");
}

// bitwise and/or/xor/not: on bool tensors the logical ops (masks combined with & | ^ ~), on
// integers the bitwise ops.
template <OpKind LogicalOp, OpKind BitwiseOp> Status importBitwise(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (out.dtype != DType::Bool) {
    if (ir::isFloatingPoint(out.dtype))
      return invalidInput("bitwise op on " + std::string(ir::dtypeName(out.dtype)) +
                          " tensors (only integers and bool have bits to combine)");
    bool unary = ir::opInfo(BitwiseOp).family == ir::OpFamily::Unary;
    return unary ? importUnary<BitwiseOp>(node) : importBinary<BitwiseOp>(node);
  }
  bool unary = ir::opInfo(LogicalOp).family == ir::OpFamily::Unary;
  return unary ? importUnary<LogicalOp>(node) : importBinary<LogicalOp>(node);
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
  if constexpr (Op == OpKind::Sum || Op == OpKind::Prod) {
    // Into a narrower integer (`x.sum(dim, dtype=torch.int32)`, torchao's int8 compensation):
    // the i64 result, then the cast, which wraps like PyTorch's int32 accumulation.
    if (ir::isIntegral(out.dtype) && out.dtype != DType::I64 && out.dtype != DType::Bool)
      return emitThenCast(node, Op, {input}, std::move(attrs), out.dtype);
  }
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
// nonzero: the count is the data-dependent symbol of the output's first dim (the exporter's
// unbacked u<N>, bounded by range_constraints; the input's element count bounds it otherwise).
Status importNonzero(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (out.rank() != 2 || out.shape[0].isStatic() ||
      out.shape[0].expr().kind() != ir::SymExpr::Kind::Symbol)
    return node.unsupportedFeature("nonzero whose output size is not one data-dependent symbol (" +
                                   out.str() + ")");
  const std::string &symbol = out.shape[0].expr().symbolName();
  ir::SymbolRange &range = node.state().graph->symbols()[symbol];
  ir::Dim count = ir::numElements(self->type().shape);
  if (count.isStatic() && (!range.max || *range.max > count.value()))
    range.max = count.value();
  AttrMap attrs;
  attrs.set("symbol", symbol);
  return emitOne(node, OpKind::Nonzero, {self}, std::move(attrs));
}

Status importCumsum(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (out.dtype == DType::Bool)
    return node.unsupportedFeature("cumsum into bool");
  Value *x = node.isNone("dtype") ? self : node.castTo(self, out.dtype);
  AttrMap attrs;
  attrs.set("dim", dim);
  if (ir::isFloatingPoint(out.dtype) || out.dtype == DType::I64)
    return emitOne(node, OpKind::Cumsum, {x}, std::move(attrs));
  // A narrower integer (cumsum(dtype=torch.int32), MoE routers): the sum in int64, then the
  // cast, which wraps like PyTorch's int32 accumulation.
  return emitThenCast(node, OpKind::Cumsum, {x}, std::move(attrs), out.dtype);
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
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::BatchNorm, operands, attrs));
  (void)emitted;
  return Status::success();
}

// ---- linear algebra, attention (convolutions: frontend/aten/conv_norm.cpp) ----

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

// torch._int_mm: an int8 (or uint8) [M, K] times an int8 [K, N] product summed exactly into
// int32 (torchao's dynamic int8 quantization). Both operands widen to int32, whose sums of K
// int8 products cannot overflow for K < 2^17.
Status importIntMm(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * a, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * b, node.tensor("mat2"));
  for (Value *operand : {a, b})
    if (operand->type().dtype != DType::I8 && operand->type().dtype != DType::U8)
      return invalidInput("_int_mm of " + a->type().str() + " and " + b->type().str() +
                          " in node '" + node.name() + "' (int8 or uint8 operands)");
  return emitOne(node, OpKind::Matmul, {node.castTo(a, DType::I32), node.castTo(b, DType::I32)});
}

// nextafter steps in the operands' own precision: float32 and float64 (a float16/bfloat16 step
// would need its own bit arithmetic).
Status importNextafter(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (out.dtype != DType::F32 && out.dtype != DType::F64)
    return node.unsupportedFeature("nextafter in " + std::string(ir::dtypeName(out.dtype)) +
                                   " (float32 and float64 only)");
  return importBinary<OpKind::Nextafter>(node);
}

// A Mixture-of-Experts layer's grouped GEMM over tokens sorted by expert: transformers'
// grouped_mm_fallback (float32 exports) and torch._grouped_mm (bf16) of a 2-d input against a
// 3-d stack of expert matrices with cumulative row offsets.
Status importGroupedMm(NodeImport &node) {
  const bool aten = node.schema().name == "_grouped_mm";
  TC_ASSIGN_OR_RETURN(Value * a, node.tensor(aten ? "self" : "input"));
  TC_ASSIGN_OR_RETURN(Value * b, node.tensor(aten ? "mat2" : "weight"));
  if (aten && node.isNone("offs"))
    return node.unsupportedFeature("_grouped_mm without offsets");
  TC_ASSIGN_OR_RETURN(Value * offsets, node.tensor("offs"));
  if (aten && !node.isNone("bias"))
    return node.unsupportedFeature("_grouped_mm with a bias");
  if (a->type().rank() != 2 || b->type().rank() != 3)
    return node.unsupportedFeature("grouped GEMM of " + a->type().str() + " and " +
                                   b->type().str() + " (only a 2-d input against 3-d groups)");
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (a->type().dtype != b->type().dtype)
    return invalidInput("grouped GEMM of " + a->type().str() + " and " + b->type().str() +
                        " in node '" + node.name() + "'");
  if (out.dtype == a->type().dtype)
    return emitOne(node, OpKind::GroupedMatmul, {a, b, offsets});
  return emitThenCast(node, OpKind::GroupedMatmul, {a, b, offsets}, {}, out.dtype);
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

// The smallest (or largest) value of `expr` over the symbols' ranges, when the expression is
// non-decreasing in every symbol (sums, products, floor divisions, max/min with non-negative
// constants) and the ranges are bounded; nullopt otherwise.
std::optional<int64_t> monotoneBound(const ir::SymExpr &expr,
                                     const std::map<std::string, ir::SymbolRange> &ranges,
                                     bool upper) {
  std::set<std::string> symbols;
  expr.collectSymbols(symbols);
  std::map<std::string, int64_t> at;
  for (const std::string &symbol : symbols) {
    auto it = ranges.find(symbol);
    if (it == ranges.end() || it->second.min < 0 || (upper && !it->second.max))
      return std::nullopt;
    at[symbol] = upper ? *it->second.max : it->second.min;
  }
  std::function<bool(const ir::SymExpr &)> monotone = [&](const ir::SymExpr &e) {
    using Kind = ir::SymExpr::Kind;
    switch (e.kind()) {
    case Kind::Constant: return e.constantValue() >= 0;
    case Kind::Symbol: return true;
    case Kind::Mod: return false;
    default:
      for (const ir::SymExpr &operand : e.operands())
        if (!monotone(operand))
          return false;
      return true;
    }
  };
  if (!monotone(expr))
    return std::nullopt;
  return expr.evaluate(at);
}

// slice.Tensor: start/end clamped like Python slicing; an end past the dim (or None)
// becomes the dim's size, which may be symbolic.
Status importSlice(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, shapeDim(node, dim, self->type().rank(), "slice"));
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
    if (!stop.isStatic()) {
      // x[:, :n] of a fixed-size buffer (position ids, a causal mask) with a symbolic n: the
      // end stays symbolic when the symbols' ranges keep it within [start, size].
      std::optional<int64_t> low = monotoneBound(stop.expr(), node.state().graph->symbols(), false);
      std::optional<int64_t> high = monotoneBound(stop.expr(), node.state().graph->symbols(), true);
      if (begin < 0 || !low || !high || *low < begin || *high > extent)
        return node.unsupportedFeature("symbolic slice end " + stop.str() + " of a dim of size " +
                                       std::to_string(extent) +
                                       " that its range does not keep within [" +
                                       std::to_string(begin) + ", " + std::to_string(extent) + "]");
      AttrMap attrs;
      attrs.set("dim", dim);
      attrs.set("end", ir::makeDimAttr(stop));
      attrs.set("start", begin);
      attrs.set("step", step);
      return emitOne(node, OpKind::Slice, {self}, std::move(attrs));
    }
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
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, shapeDim(node, dim, self->type().rank(), "diff"));
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
  TC_ASSIGN_OR_RETURN(dim, shapeDim(node, dim, self->type().rank(), "select"));
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
  // A 0-d tensor takes dim 0 and -1 but has no dim to remove: squeezing it is a copy.
  std::vector<int64_t> dims;
  for (int64_t dim : named)
    if (dim < self->type().rank() && shape[static_cast<size_t>(dim)] == ir::Dim(1))
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
  TC_ASSIGN_OR_RETURN(dim, shapeDim(node, dim, self->type().rank(), "split"));
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

// ---- advanced indexing ----

Value *sizeTensor(NodeImport &node, const ir::Dim &size) { return node.sizeTensor(size); }

// index.Tensor(self, indices): x[i0, i1, ...] with integer index tensors (None = a full
// slice), decomposed into ops the IR has:
//   1. if the indexed dims are not adjacent, permute them to the front (PyTorch then puts the
//      broadcast index shape first too);
//   2. one flat i64 index L = sum_k wrap(i_k) * stride_k over the indexed dims, broadcast like
//      the index tensors (a fused elementwise kernel); negative indices wrap, and an index out
//      of range in its own dim makes L = -1, which index_select refuses at run time (so an
//      out-of-range index is an error as in PyTorch, never a read of a neighbouring row);
//   3. index_select of the flattened indexed dims with L, reshaped to the result.
// A bool/byte mask index over dims [d, d + r) is, as in PyTorch, the r integer index tensors
// nonzero(mask) gives (a data-dependent count: the output's symbol at dim d); one mask, with
// no integer index beside it.
Status indexTensor(NodeImport &node, Value *self, std::vector<Value *> indices,
                   const ir::TensorType &out);

/// indices with its one mask (at position `at`) replaced by the columns of nonzero(mask).
Expected<std::vector<Value *>> expandMaskIndex(NodeImport &node, Value *self,
                                               std::vector<Value *> indices, size_t at,
                                               const ir::TensorType &out) {
  Value *mask = indices[at];
  const ir::Shape &maskShape = mask->type().shape;
  const ir::Shape &shape = self->type().shape;
  size_t rank = maskShape.size();
  if (rank == 0 || at + rank > shape.size() ||
      !std::equal(maskShape.begin(), maskShape.end(),
                  shape.begin() + static_cast<std::ptrdiff_t>(at)))
    return invalidInput("node '" + node.name() + "': mask " + mask->type().str() +
                        " at index " + std::to_string(at) + " does not match the dims of " +
                        self->type().str());
  if (out.shape.size() <= at || out.shape[at].isStatic() ||
      out.shape[at].expr().kind() != ir::SymExpr::Kind::Symbol)
    return node.unsupportedFeature("boolean mask indexing whose result size is not one "
                                   "data-dependent symbol (" + out.str() + ")");
  const ir::Dim &count = out.shape[at];
  ir::SymbolRange &range = node.state().graph->symbols()[count.expr().symbolName()];
  ir::Dim elements = ir::numElements(maskShape);
  if (elements.isStatic() && (!range.max || *range.max > elements.value()))
    range.max = elements.value();
  AttrMap attrs;
  attrs.set("symbol", count.expr().symbolName());
  Value *positions = node.emitTemp(OpKind::Nonzero, {node.castTo(mask, DType::Bool)},
                                   ir::TensorType{DType::I64, {count, ir::Dim(int64_t(rank))}},
                                   std::move(attrs));
  std::vector<Value *> expanded(indices.begin(), indices.begin() + static_cast<std::ptrdiff_t>(at));
  for (size_t j = 0; j < rank; ++j) {
    AttrMap column;
    column.set("dim", int64_t{1});
    column.set("index", static_cast<int64_t>(j));
    expanded.push_back(node.emitTemp(OpKind::Select, {positions},
                                     ir::TensorType{DType::I64, {count}}, std::move(column)));
  }
  expanded.insert(expanded.end(), indices.begin() + static_cast<std::ptrdiff_t>(at) + 1,
                  indices.end());
  return expanded;
}

Status importIndexTensor(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<Value *> indices, node.optionalTensorList("indices"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  std::vector<size_t> masks;
  bool integers = false;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d] == nullptr)
      continue;
    DType dtype = indices[d]->type().dtype;
    if (dtype == DType::Bool || dtype == DType::U8)
      masks.push_back(d);
    else
      integers = true;
  }
  if (masks.size() > 1 || (!masks.empty() && integers))
    return node.unsupportedFeature("boolean mask indexing beside other mask or integer indices");
  if (!masks.empty()) {
    TC_ASSIGN_OR_RETURN(indices, expandMaskIndex(node, self, std::move(indices), masks[0], out));
  }
  return indexTensor(node, self, std::move(indices), out);
}

// masked_select(self, mask): both broadcast to one shape, then self[mask] over every dim.
Status importMaskedSelect(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * mask, node.tensor("mask"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(ir::Shape shape, ir::broadcastShapes(self->type().shape, mask->type().shape));
  if (shape.empty())
    shape.push_back(ir::Dim(1));
  auto widen = [&](Value *value) {
    if (value->type().shape == shape)
      return value;
    Value *source = value;
    if (value->type().rank() < static_cast<int64_t>(shape.size())) {
      ir::Shape padded(shape.size() - value->type().shape.size(), ir::Dim(1));
      padded.insert(padded.end(), value->type().shape.begin(), value->type().shape.end());
      AttrMap attrs;
      attrs.set("shape", ir::makeDimsAttr(padded));
      source = node.emitTemp(OpKind::Reshape, {value},
                             ir::TensorType{value->type().dtype, padded}, std::move(attrs));
    }
    if (source->type().shape == shape)
      return source;
    AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(shape));
    return node.emitTemp(OpKind::Expand, {source}, ir::TensorType{value->type().dtype, shape},
                         std::move(attrs));
  };
  Value *x = widen(self);
  TC_ASSIGN_OR_RETURN(std::vector<Value *> indices,
                      expandMaskIndex(node, x, {widen(mask)}, 0, out));
  return indexTensor(node, x, std::move(indices), out);
}

Status indexTensor(NodeImport &node, Value *self, std::vector<Value *> indices,
                   const ir::TensorType &out) {
  int64_t rank = self->type().rank();
  if (static_cast<int64_t>(indices.size()) > rank)
    return invalidInput("node '" + node.name() + "' indexes " + std::to_string(indices.size()) +
                        " dims of a rank-" + std::to_string(rank) + " tensor " +
                        self->type().str());
  std::vector<int64_t> indexed;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d] == nullptr)
      continue;
    DType dtype = indices[d]->type().dtype;
    if (!ir::isIntegral(dtype) || dtype == DType::Bool)
      return invalidInput("node '" + node.name() + "': index " + std::to_string(d) + " is " +
                          indices[d]->type().str() + ", expected an integer tensor");
    indexed.push_back(static_cast<int64_t>(d));
  }
  if (indexed.empty())
    return emitOne(node, OpKind::Copy, {self});
  bool adjacent = indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  Value *x = self;
  if (!adjacent) {
    std::vector<int64_t> order = indexed;
    for (int64_t d = 0; d < rank; ++d)
      if (std::find(indexed.begin(), indexed.end(), d) == indexed.end())
        order.push_back(d);
    ir::TensorType permuted = self->type();
    for (size_t i = 0; i < order.size(); ++i)
      permuted.shape[i] = self->type().shape[static_cast<size_t>(order[i])];
    AttrMap attrs;
    attrs.set("dims", order);
    x = node.emitTemp(OpKind::Permute, {self}, permuted, std::move(attrs));
    std::vector<Value *> moved;
    for (int64_t d : indexed)
      moved.push_back(indices[static_cast<size_t>(d)]);
    indices = moved;
    for (size_t i = 0; i < indexed.size(); ++i)
      indexed[i] = static_cast<int64_t>(i);
  }
  const ir::Shape &shape = x->type().shape;
  auto first = static_cast<size_t>(indexed.front());
  size_t count = indexed.size();
  size_t post = shape.size() - first - count;
  if (out.shape.size() < first + post)
    return invalidInput("node '" + node.name() + "': result " + out.str() +
                        " is too small for indexing " + x->type().str());
  ir::Shape broadcast(out.shape.begin() + static_cast<std::ptrdiff_t>(first),
                      out.shape.end() - static_cast<std::ptrdiff_t>(post));

  // The flat index, broadcast to the index shape.
  Value *flat = nullptr;
  Value *bad = nullptr;
  Value *zero = node.scalarConstant(0, DType::I64);
  ir::Dim stride = 1;
  for (size_t k = count; k-- > 0;) {
    Value *index = node.castTo(indices[static_cast<size_t>(indexed[k])], DType::I64);
    const ir::Shape &ishape = index->type().shape;
    const ir::Dim &size = shape[first + k];
    Value *sizeValue = sizeTensor(node, size);
    ir::TensorType itype{DType::I64, ishape};
    ir::TensorType btype{DType::Bool, ishape};
    Value *negative = node.emitTemp(OpKind::Lt, {index, zero}, btype);
    Value *shifted = node.emitTemp(OpKind::Add, {index, sizeValue}, itype);
    Value *wrapped = node.emitTemp(OpKind::Where, {negative, shifted, index}, itype);
    Value *low = node.emitTemp(OpKind::Lt, {wrapped, zero}, btype);
    Value *high = node.emitTemp(OpKind::Ge, {wrapped, sizeValue}, btype);
    Value *outside = node.emitTemp(OpKind::LogicalOr, {low, high}, btype);
    Value *term = wrapped;
    if (!(stride.isStatic() && stride.value() == 1))
      term = node.emitTemp(OpKind::Mul, {wrapped, sizeTensor(node, stride)}, itype);
    if (flat == nullptr) {
      flat = term;
      bad = outside;
    } else {
      TC_ASSIGN_OR_RETURN(ir::Shape joined, ir::broadcastShapes(flat->type().shape, ishape));
      flat = node.emitTemp(OpKind::Add, {flat, term}, ir::TensorType{DType::I64, joined});
      bad = node.emitTemp(OpKind::LogicalOr, {bad, outside}, ir::TensorType{DType::Bool, joined});
    }
    stride = ir::numElements({stride, size});
  }
  ir::TensorType flatType{DType::I64, flat->type().shape};
  flat = node.emitTemp(OpKind::Where, {bad, node.scalarConstant(-1, DType::I64), flat}, flatType);
  if (flat->type().shape != broadcast) {
    AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(broadcast));
    flat = node.emitTemp(OpKind::Expand, {flat}, ir::TensorType{DType::I64, broadcast},
                         std::move(attrs));
  }
  ir::Dim selected = ir::numElements(broadcast);
  {
    AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(ir::Shape{selected}));
    flat = node.emitTemp(OpKind::Reshape, {flat}, ir::TensorType{DType::I64, {selected}},
                         std::move(attrs));
  }
  // x viewed as [pre..., indexed extent, post...].
  ir::Shape merged(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(first));
  merged.push_back(stride);
  merged.insert(merged.end(), shape.end() - static_cast<std::ptrdiff_t>(post), shape.end());
  if (merged != shape) {
    AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(merged));
    x = node.emitTemp(OpKind::Reshape, {x}, ir::TensorType{x->type().dtype, merged},
                      std::move(attrs));
  }
  ir::Shape gathered = merged;
  gathered[first] = selected;
  AttrMap select;
  select.set("dim", static_cast<int64_t>(first));
  Value *y = node.emitTemp(OpKind::IndexSelect, {x, flat},
                           ir::TensorType{x->type().dtype, gathered}, std::move(select));
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(out.shape));
  return emitOne(node, OpKind::Reshape, {y}, std::move(attrs));
}

// ---- more core ATen elementwise ops, copies and constants ----

// An in-place op (`torch.empty(..).fill_(v)`, `cache.index_copy_(...)`): the functional import,
// then later reads of `self` see its result; a buffer updated this way becomes program state
// (NodeImport::importInPlace).
template <ImportFunction Functional> Status importInplace(NodeImport &node) {
  return node.importInPlace(Functional);
}

// clamp.Tensor(self, min?, max?): maximum then minimum, all in the result dtype (PyTorch's
// result_type of the three); NaN in x or in a bound gives NaN, min > max gives max, as in eager.
Status importClampTensor(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * min, node.optionalTensor("min"));
  TC_ASSIGN_OR_RETURN(Value * max, node.optionalTensor("max"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (!min && !max)
    return invalidInput("clamp needs at least one of 'min' and 'max'");
  Value *x = node.castTo(self, out.dtype);
  if (min && !max)
    return emitOne(node, OpKind::Maximum, {x, node.castTo(min, out.dtype)});
  if (min) {
    TC_ASSIGN_OR_RETURN(ir::Shape shape, ir::broadcastShapes(x->type().shape, min->type().shape));
    x = node.emitTemp(OpKind::Maximum, {x, node.castTo(min, out.dtype)}, {out.dtype, shape});
  }
  return emitOne(node, OpKind::Minimum, {x, node.castTo(max, out.dtype)});
}

// selu(x) = scale * elu(x, alpha) with PyTorch's constants.
Status importSelu(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  AttrMap attrs;
  attrs.set("alpha", 1.6732632423543772848170429916717);
  attrs.set("input_scale", 1.0);
  attrs.set("scale", 1.0507009873554804934193349852946);
  return emitOne(node, OpKind::Elu, {self}, std::move(attrs));
}

// celu(x, alpha) = elu(x, alpha, input_scale = 1 / alpha).
Status importCelu(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(double alpha, node.floatArg("alpha"));
  if (alpha == 0.0)
    return invalidInput("celu alpha must not be 0");
  AttrMap attrs;
  attrs.set("alpha", alpha);
  attrs.set("input_scale", 1.0 / alpha);
  attrs.set("scale", 1.0);
  return emitOne(node, OpKind::Elu, {self}, std::move(attrs));
}

// fill.Scalar(self, value): a constant shaped like self.
Status importFill(NodeImport &node) { return emitFull(node, "value", 0); }

// copy(self, src): src converted to self's dtype and broadcast to its shape.
Status importCopyInto(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * src, node.tensor("src"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  Value *x = src;
  if (x->type().shape != out.shape) {
    AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(out.shape));
    x = node.emitTemp(OpKind::Expand, {x}, {x->type().dtype, out.shape}, std::move(attrs));
  }
  if (x->type().dtype == out.dtype)
    return emitOne(node, OpKind::Copy, {x});
  AttrMap attrs;
  attrs.set("dtype", out.dtype);
  return emitOne(node, OpKind::Cast, {x}, std::move(attrs));
}

// empty.memory_format / empty_strided: the contents are unspecified, so zeros are as good as
// any (and deterministic); the strides do not matter to a program that only reads values.
Status importEmpty(NodeImport &node) { return emitFull(node, "", 0); }

// resize(self, size) (core ATen) / resize_ (training IR, in place; the `torch.empty(0)
// .resize_(n)` and out= patterns): the result takes the new shape and keeps self's first
// elements in row-major order, like PyTorch for a contiguous self; the elements past self's
// are uninitialized in PyTorch and zeros here (as for empty). An empty self may take any
// shape, symbolic ones too; otherwise both sizes must be static.
Status importResize(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (!node.isNone("memory_format"))
    return node.unsupportedFeature("resize with a memory_format (its storage order is not the "
                                   "element order)");
  const ir::TensorType &type = self->type();
  ir::Dim oldCount = ir::numElements(type.shape);
  ir::Dim newCount = ir::numElements(out.shape);
  if (oldCount == ir::Dim(0))
    return emitFull(node, "", 0);
  if (type.shape == out.shape)
    return emitOne(node, OpKind::Copy, {self});
  if (!oldCount.isStatic() || !newCount.isStatic())
    return node.unsupportedFeature("resize of " + type.str() + " to " + out.str() +
                                   ": with symbolic sizes only an empty tensor or an unchanged "
                                   "shape is compiled");
  if (node.state().viewResults.count(self))
    return node.unsupportedFeature("resize of a view (its storage order is not its element "
                                   "order)");
  auto reshaped = [&](Value *x, ir::Shape shape) {
    AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(shape));
    return node.emitTemp(OpKind::Reshape, {x}, {type.dtype, std::move(shape)}, std::move(attrs));
  };
  Value *flat = reshaped(self, {oldCount});
  if (newCount.value() <= oldCount.value()) {
    AttrMap attrs;
    attrs.set("dim", int64_t{0});
    attrs.set("end", ir::makeDimAttr(newCount));
    attrs.set("start", int64_t{0});
    attrs.set("step", int64_t{1});
    flat = node.emitTemp(OpKind::Slice, {flat}, {type.dtype, {newCount}}, std::move(attrs));
  } else {
    AttrMap zero;
    zero.set("value", 0.0);
    Value *tail = node.emitTemp(OpKind::Full, {},
                                {type.dtype, {ir::Dim(newCount.value() - oldCount.value())}},
                                std::move(zero));
    AttrMap attrs;
    attrs.set("dim", int64_t{0});
    flat = node.emitTemp(OpKind::Concat, {flat, tail}, {type.dtype, {newCount}}, std::move(attrs));
  }
  // A copy, not a view: later in-place updates (fill_, copy_) write the result.
  return emitOne(node, OpKind::Copy, {reshaped(flat, out.shape)});
}

// native_dropout(input, p, train): (output, keep mask). Inference (train=False) keeps every
// element: (a copy of input, an all-true mask). train=True or None (PyTorch's default, which
// trains) draws random masks, which a deterministic bundle does not do.
Status importNativeDropout(NodeImport &node) {
  if (node.isNone("train"))
    return node.unsupportedFeature("native_dropout in training mode (train=None); export the "
                                   "model in eval mode");
  TC_ASSIGN_OR_RETURN(bool train, node.boolArg("train"));
  if (train)
    return node.unsupportedFeature("native_dropout in training mode (train=True); export the "
                                   "model in eval mode");
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor("input"));
  if (node.numOutputs() > 1 && node.isOutputUsed(1)) {
    TC_ASSIGN_OR_RETURN(ir::TensorType maskType, node.outputType(1));
    AttrMap one;
    one.set("value", 1.0);
    Value *mask = node.emitTemp(OpKind::Full, {}, maskType, std::move(one));
    mask->setName(node.outputName(1));
    node.bindOutput(1, mask);
  }
  TC_ASSIGN_OR_RETURN(ir::TensorType outType, node.outputType(0));
  Value *output = node.emitTemp(OpKind::Copy, {input}, outType);
  output->setName(node.outputName(0));
  node.bindOutput(0, output);
  return Status::success();
}

// ---- padding, resampling and 1-d pools ----

// PyTorch lists pads last dim first ([left, right, top, bottom, ...], covering the last
// len / 2 dims); the pad op takes one (before, after) pair per dim in dim order.
Expected<std::vector<int64_t>> padsPerDim(NodeImport &node, const std::vector<int64_t> &torchPads,
                                          int64_t rank) {
  if (torchPads.size() % 2 != 0 || static_cast<int64_t>(torchPads.size()) > 2 * rank)
    return invalidInput("pad list of " + std::to_string(torchPads.size()) +
                        " entries for a rank-" + std::to_string(rank) + " input in node '" +
                        node.name() + "' (expected an even count up to " +
                        std::to_string(2 * rank) + ")");
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  for (size_t k = 0; k < torchPads.size() / 2; ++k) {
    size_t dim = static_cast<size_t>(rank) - 1 - k;
    pads[2 * dim] = torchPads[2 * k];
    pads[2 * dim + 1] = torchPads[2 * k + 1];
  }
  return pads;
}

Status emitPad(NodeImport &node, std::string_view padArg, const std::string &mode,
               double value) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> torchPads, node.intList(padArg));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> pads, padsPerDim(node, torchPads, self->type().rank()));
  AttrMap attrs;
  attrs.set("mode", mode);
  attrs.set("pads", pads);
  attrs.set("value", value);
  return emitOne(node, OpKind::Pad, {self}, std::move(attrs));
}

// constant_pad_nd(self, pad, value=0) (core ATen).
Status importConstantPad(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(ScalarOrTensor value, node.scalarOrTensor("value"));
  if (value.tensor)
    return node.unsupportedFeature("pad value given as a tensor");
  return emitPad(node, "pad", "constant", value.scalar);
}

// pad(self, pad, mode, value) (training IR, F.pad).
Status importPad(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(std::optional<std::string> mode, node.optionalString("mode"));
  TC_ASSIGN_OR_RETURN(std::optional<double> value, node.optionalFloat("value"));
  std::string padMode = mode.value_or("constant");
  if (padMode != "constant" && padMode != "reflect" && padMode != "replicate" &&
      padMode != "circular")
    return invalidInput("pad mode '" + padMode + "' in node '" + node.name() +
                        "' is not one of constant, reflect, replicate, circular");
  if (padMode != "constant" && value && *value != 0.0)
    return invalidInput("pad mode '" + padMode + "' takes no fill value in node '" +
                        node.name() + "'");
  return emitPad(node, "pad", padMode, value.value_or(0.0));
}

// reflection_pad{1,2,3}d / replication_pad{1,2,3}d(self, padding).
template <const char *Mode> Status importModePad(NodeImport &node) {
  return emitPad(node, "padding", Mode, 0.0);
}
constexpr char kReflect[] = "reflect";
constexpr char kReplicate[] = "replicate";

// upsample_*{1,2,3}d.vec(input, output_size?, [align_corners,] scale_factors?) and the
// .default overloads (self, output_size, [align_corners,] scales_*?): the result size is the
// exported output's; the scale factors matter because PyTorch derives source indices from
// them when given.
template <int Spatial, const char *Mode> Status importUpsample(NodeImport &node) {
  bool isVec = node.schema().findArg("input") != nullptr;
  TC_ASSIGN_OR_RETURN(Value * input, node.tensor(isVec ? "input" : "self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  std::vector<double> scales(Spatial, 0.0);
  if (isVec) {
    TC_ASSIGN_OR_RETURN(std::optional<std::vector<double>> factors,
                        node.optionalFloatList("scale_factors"));
    if (factors && factors->size() != static_cast<size_t>(Spatial))
      return invalidInput("upsample scale_factors of " + std::to_string(factors->size()) +
                          " entries for " + std::to_string(Spatial) + " spatial dims in node '" +
                          node.name() + "'");
    if (factors)
      scales = *factors;
  } else {
    static const std::vector<std::vector<const char *>> kNames = {
        {"scales"}, {"scales_h", "scales_w"}, {"scales_d", "scales_h", "scales_w"}};
    for (size_t s = 0; s < Spatial; ++s) {
      TC_ASSIGN_OR_RETURN(std::optional<double> scale, node.optionalFloat(kNames[Spatial - 1][s]));
      scales[s] = scale.value_or(0.0);
    }
  }
  bool alignCorners = false;
  if (node.schema().findArg("align_corners") != nullptr) {
    TC_ASSIGN_OR_RETURN(alignCorners, node.boolArg("align_corners"));
  }
  AttrMap attrs;
  attrs.set("align_corners", alignCorners);
  attrs.set("mode", std::string(Mode));
  attrs.set("scales", scales);
  attrs.set("shape", ir::makeDimsAttr(out.shape));
  return emitOne(node, OpKind::Upsample, {input}, std::move(attrs));
}
constexpr char kNearest[] = "nearest";
constexpr char kNearestExact[] = "nearest-exact";
constexpr char kLinear[] = "linear";

// A 1-d pool (training IR) as its 2-d op over x unsqueezed to [.., 1, L], squeezed back: how
// ATen computes it, and how core ATen decomposes it. `attrs` are the 2-d op's.
Status emitPool1dAs2d(NodeImport &node, OpKind op, AttrMap attrs) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  int64_t rank = self->type().rank();
  if (rank != 2 && rank != 3)
    return invalidInput(std::string(ir::opName(op)) + " of a 1-d input " + self->type().str() +
                        " in node '" + node.name() + "': expected rank 2 or 3");
  ir::TensorType planes = self->type();
  planes.shape.insert(planes.shape.end() - 1, ir::Dim(1));
  AttrMap unsqueeze;
  unsqueeze.set("dim", rank - 1);
  Value *x = node.emitTemp(OpKind::Unsqueeze, {self}, planes, std::move(unsqueeze));
  ir::TensorType pooled = out;
  pooled.shape.insert(pooled.shape.end() - 1, ir::Dim(1));
  Value *y = node.emitTemp(op, {x}, pooled, std::move(attrs));
  AttrMap squeeze;
  squeeze.set("dims", std::vector<int64_t>{rank - 1});
  return emitOne(node, OpKind::Squeeze, {y}, std::move(squeeze));
}

// One entry of a 1-d pool's int[1] argument (an empty list gives `fallback`).
Expected<int64_t> singleEntry(NodeImport &node, std::string_view arg,
                            std::optional<int64_t> fallback) {
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> values, node.intList(arg));
  if (values.empty() && fallback)
    return *fallback;
  if (values.size() != 1)
    return invalidInput("argument '" + std::string(arg) + "' of node '" + node.name() +
                        "' has " + std::to_string(values.size()) + " entries, expected 1");
  return values[0];
}

// adaptive_avg_pool1d(self, output_size) (Swin's final pooling).
Status importAdaptiveAvgPool1d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(int64_t size, singleEntry(node, "output_size", std::nullopt));
  AttrMap attrs;
  attrs.set("output_size", std::vector<int64_t>{1, size});
  return emitPool1dAs2d(node, OpKind::AdaptiveAvgPool2d, std::move(attrs));
}

// max_pool1d(self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False).
Status importMaxPool1d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(int64_t kernel, singleEntry(node, "kernel_size", std::nullopt));
  TC_ASSIGN_OR_RETURN(int64_t stride, singleEntry(node, "stride", kernel));
  TC_ASSIGN_OR_RETURN(int64_t padding, singleEntry(node, "padding", std::nullopt));
  TC_ASSIGN_OR_RETURN(int64_t dilation, singleEntry(node, "dilation", std::nullopt));
  TC_ASSIGN_OR_RETURN(bool ceilMode, node.boolArg("ceil_mode"));
  AttrMap attrs;
  attrs.set("ceil_mode", ceilMode);
  attrs.set("dilation", std::vector<int64_t>{1, dilation});
  attrs.set("kernel", std::vector<int64_t>{1, kernel});
  attrs.set("padding", std::vector<int64_t>{0, padding});
  attrs.set("stride", std::vector<int64_t>{1, stride});
  return emitPool1dAs2d(node, OpKind::MaxPool2d, std::move(attrs));
}

// avg_pool1d(self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True).
Status importAvgPool1d(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(int64_t kernel, singleEntry(node, "kernel_size", std::nullopt));
  TC_ASSIGN_OR_RETURN(int64_t stride, singleEntry(node, "stride", kernel));
  TC_ASSIGN_OR_RETURN(int64_t padding, singleEntry(node, "padding", std::nullopt));
  TC_ASSIGN_OR_RETURN(bool ceilMode, node.boolArg("ceil_mode"));
  TC_ASSIGN_OR_RETURN(bool countIncludePad, node.boolArg("count_include_pad"));
  AttrMap attrs;
  attrs.set("ceil_mode", ceilMode);
  attrs.set("count_include_pad", countIncludePad);
  attrs.set("kernel", std::vector<int64_t>{1, kernel});
  attrs.set("padding", std::vector<int64_t>{0, padding});
  attrs.set("stride", std::vector<int64_t>{1, stride});
  return emitPool1dAs2d(node, OpKind::AvgPool2d, std::move(attrs));
}

struct TableEntry {
  std::string_view target; ///< "aten.<op>.<overload>"
  ImportFunction function;
};

// clang-format off
// The overloads ir/ops.def maps to its unary and binary ops are found there (see
// findImportFunction); these are the rest.
constexpr TableEntry kTable[] = {
    // signal processing (the DFTs are in the complex table: frontend/aten/complex.cpp)
    {"aten.hann_window.default", importHannWindow},
    {"aten.hann_window.periodic", importHannWindow},
    {"aten.unfold.default", importUnfold},
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
    {"aten.sub_.Tensor", importInplaceBinary<OpKind::Sub>},
    {"aten.div_.Tensor", importInplaceBinary<OpKind::Div>},
    {"aten.pow.Tensor_Scalar", importPow},
    {"aten.pow.Tensor_Tensor", importPow},
    {"aten.pow.Scalar", importPowScalarBase},
    {"aten.bitwise_and.Tensor", importBitwise<OpKind::LogicalAnd, OpKind::BitwiseAnd>},
    {"aten.bitwise_or.Tensor", importBitwise<OpKind::LogicalOr, OpKind::BitwiseOr>},
    {"aten.bitwise_not.default", importBitwise<OpKind::LogicalNot, OpKind::BitwiseNot>},
    {"aten.__and__.Tensor", importBitwise<OpKind::LogicalAnd, OpKind::BitwiseAnd>},
    {"aten.__or__.Tensor", importBitwise<OpKind::LogicalOr, OpKind::BitwiseOr>},
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
    {"aten._grouped_mm.default", importGroupedMm},
    {"aten.nextafter.default", importNextafter},
    {"aten._int_mm.default", importIntMm},
    {"transformers.grouped_mm_fallback.default", importGroupedMm},
    {"aten.scaled_dot_product_attention.default", importAttention},
    // pooling
    {"aten.max_pool2d.default", importMaxPool2d},
    {"aten.max_pool2d_with_indices.default", importMaxPoolWithIndices},
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
    // advanced indexing
    {"aten.index.Tensor", importIndexTensor},
    {"aten.masked_select.default", importMaskedSelect},
    {"aten._unsafe_index.Tensor", importIndexTensor},
    // more core ATen elementwise ops, copies and constants
    {"aten.bitwise_and.Scalar", importBitwise<OpKind::LogicalAnd, OpKind::BitwiseAnd>},
    {"aten.bitwise_or.Scalar", importBitwise<OpKind::LogicalOr, OpKind::BitwiseOr>},
    {"aten.bitwise_xor.Tensor", importBitwise<OpKind::LogicalXor, OpKind::BitwiseXor>},
    {"aten.bitwise_xor.Scalar", importBitwise<OpKind::LogicalXor, OpKind::BitwiseXor>},
    {"aten.__xor__.Tensor", importBitwise<OpKind::LogicalXor, OpKind::BitwiseXor>},
    {"aten.clamp.Tensor", importClampTensor},
    {"aten.selu.default", importSelu},
    {"aten.celu.default", importCelu},
    {"aten.fill.Scalar", importFill},
    {"aten.fill_.Scalar", importInplace<importFill>},
    {"aten.copy.default", importCopyInto},
    {"aten.copy_.default", importInplace<importCopyInto>},
    {"aten.empty.memory_format", importEmpty},
    {"aten.empty_strided.default", importEmpty},
    {"aten.native_dropout.default", importNativeDropout},
    // padding, resampling and 1-d pools
    {"aten.constant_pad_nd.default", importConstantPad},
    {"aten.pad.default", importPad},
    {"aten.reflection_pad1d.default", importModePad<kReflect>},
    {"aten.reflection_pad2d.default", importModePad<kReflect>},
    {"aten.reflection_pad3d.default", importModePad<kReflect>},
    {"aten.replication_pad1d.default", importModePad<kReplicate>},
    {"aten.replication_pad2d.default", importModePad<kReplicate>},
    {"aten.replication_pad3d.default", importModePad<kReplicate>},
    {"aten.upsample_nearest1d.vec", importUpsample<1, kNearest>},
    {"aten.upsample_nearest1d.default", importUpsample<1, kNearest>},
    {"aten.upsample_nearest2d.vec", importUpsample<2, kNearest>},
    {"aten.upsample_nearest2d.default", importUpsample<2, kNearest>},
    {"aten.upsample_nearest3d.vec", importUpsample<3, kNearest>},
    {"aten.upsample_nearest3d.default", importUpsample<3, kNearest>},
    {"aten._upsample_nearest_exact1d.vec", importUpsample<1, kNearestExact>},
    {"aten._upsample_nearest_exact2d.vec", importUpsample<2, kNearestExact>},
    {"aten._upsample_nearest_exact3d.vec", importUpsample<3, kNearestExact>},
    {"aten.upsample_linear1d.vec", importUpsample<1, kLinear>},
    {"aten.upsample_bilinear2d.vec", importUpsample<2, kLinear>},
    {"aten.upsample_bilinear2d.default", importUpsample<2, kLinear>},
    {"aten.upsample_trilinear3d.vec", importUpsample<3, kLinear>},
    {"aten.adaptive_avg_pool1d.default", importAdaptiveAvgPool1d},
    {"aten.max_pool1d.default", importMaxPool1d},
    {"aten.avg_pool1d.default", importAvgPool1d},
    // flips, repeats, diagonals, strided copies, stack, roll and scatters (aten/scatter.cpp)
    {"aten.flip.default", importFlip},
    {"aten.repeat.default", importRepeat},
    {"aten.tile.default", importRepeat},
    {"aten.diagonal.default", importDiagonal},
    {"aten.as_strided.default", importAsStrided},
    {"aten.stack.default", importStack},
    {"aten.roll.default", importRoll},
    {"aten.slice_scatter.default", importSliceScatter},
    {"aten.select_scatter.default", importSelectScatter},
    {"aten.scatter.src", importScatter},
    {"aten.scatter.value", importScatter},
    {"aten.scatter_add.default", importScatter},
    {"aten.scatter_reduce.two", importScatter},
    {"aten.index_put.default", importIndexPut},
    {"aten.index_put_.default", importInplace<importIndexPut>},
    {"aten.index_copy.default", importIndexCopy},
    {"aten.index_copy_.default", importInplace<importIndexCopy>},
    {"aten.masked_scatter.default", importMaskedScatter},
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
    // batch-statistics normalization (frontend/aten/conv_norm.cpp); recurrent layers and
    // cells, unrolled (frontend/aten/rnn.cpp)
    {"aten._native_batch_norm_legit.no_stats", importBatchStatsNorm},
    {"aten.lstm.input", importLstm},
    {"aten.gru.input", importGru},
    {"aten.rnn_tanh.input", importRnnTanh},
    {"aten.rnn_relu.input", importRnnRelu},
    {"aten.lstm_cell.default", importLstmCell},
    {"aten.gru_cell.default", importGruCell},
    {"aten.rnn_tanh_cell.default", importRnnTanhCell},
    {"aten.rnn_relu_cell.default", importRnnReluCell},
    // storage resize (resize_ in training IR, resize in core ATen)
    {"aten.resize_.default", importInplace<importResize>},
    {"aten.resize.default", importResize},
    // sorting, embedding bags, pairwise distances (frontend/aten/sort.cpp)
    {"aten.nonzero.default", importNonzero},
    {"aten.sort.default", importSort},
    {"aten.sort.stable", importSort},
    {"aten.argsort.default", importArgsort},
    {"aten.argsort.stable", importArgsort},
    {"aten.msort.default", importMsort},
    {"aten.topk.default", importTopk},
    {"aten.kthvalue.default", importKthvalue},
    {"aten._embedding_bag.default", importEmbeddingBag},
    {"aten._embedding_bag_forward_only.default", importEmbeddingBag},
    {"aten.embedding_bag.default", importEmbeddingBag},
    {"aten.embedding_bag.padding_idx", importEmbeddingBag},
    {"aten.cdist.default", importCdist},
    {"aten._cdist_forward.default", importCdist},
    {"aten.pdist.default", importPdist},
    {"aten._pdist_forward.default", importPdist},
    // 3-d convolution with string padding, 3-d pools, grid sampling, im2col / col2im
    // (frontend/aten/spatial.cpp)
    {"aten.conv3d.padding", importConvolutionPaddingMode},
    {"aten.conv_transpose3d.input", importConvTranspose},
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
    // random numbers (frontend/aten/random.cpp)
    {"aten.rand.default", importRand},
    {"aten.rand.generator", importRand},
    {"aten.rand_like.default", importRand},
    {"aten.randn.default", importRandn},
    {"aten.randn.generator", importRandn},
    {"aten.randn_like.default", importRandn},
    {"aten.randint.default", importRandint},
    {"aten.randint.low", importRandint},
    {"aten.randint.generator", importRandint},
    {"aten.randint.low_generator", importRandint},
    {"aten.randint_like.default", importRandint},
    {"aten.randint_like.low_dtype", importRandint},
    {"aten.randperm.default", importRandperm},
    {"aten.randperm.generator", importRandperm},
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


} // namespace

std::string_view stripTorchOps(std::string_view target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  if (target.substr(0, kPrefix.size()) == kPrefix)
    target.remove_prefix(kPrefix.size());
  return target;
}

ImportFunction findImportFunction(std::string_view target) {
  target = stripTorchOps(target);
  for (const TableEntry &entry : kTable)
    if (entry.target == target)
      return entry.function;
  if (ImportFunction complexAware = findComplexAwareImport(target))
    return complexAware;
  constexpr std::string_view kAten = "aten.";
  if (!target.starts_with(kAten))
    return findDecomposition(target); // another library's op stated in decompositions.def
  if (ImportFunction generic = findGenericImport(target.substr(kAten.size())))
    return generic;
  return findDecomposition(target);
}

std::vector<std::string> importTableTargets() {
  std::vector<std::string> targets;
  for (const TableEntry &entry : kTable)
    targets.emplace_back(entry.target);
  for (int op = 0; op < ir::kNumOps; ++op) {
    if (kGenericImports[op] == nullptr)
      continue;
    std::string_view names = ir::opInfo(static_cast<OpKind>(op)).atenOverloads;
    while (!names.empty()) {
      size_t space = names.find(' ');
      targets.push_back("aten." + std::string(names.substr(0, space)));
      names.remove_prefix(space == std::string_view::npos ? names.size() : space + 1);
    }
  }
  for (std::string &target : complexAwareTargets())
    targets.push_back(std::move(target));
  for (std::string_view assertion : kDroppedAssertions)
    targets.emplace_back(assertion);
  for (std::string &target : decompositionTargets())
    targets.push_back(std::move(target));
  return targets;
}

bool isDroppedAssertion(std::string_view target) {
  target = stripTorchOps(target);
  return std::find(std::begin(kDroppedAssertions), std::end(kDroppedAssertions), target) !=
         std::end(kDroppedAssertions);
}

} // namespace thunderc::frontend
