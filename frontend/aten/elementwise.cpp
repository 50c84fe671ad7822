// The ATen converters of elementwise ops (unary, binary, comparisons, clamps, casts and copies),
// reductions and constants (full, arange, scalar_tensor) with the embedding and gather that
// read them, and the generic import of every unary/binary op ir/ops.def names an overload for.
// Each converter reads its arguments by schema name; defaults come from
// frontend/aten/schemas.inc, so nothing here repeats a default value.
#include "frontend/aten/converters.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "frontend/aten/node_importer.h"
#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

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
// The operand is `self`, or the schema's first argument where it has another name (`x` of
// special_airy_ai and special_spherical_bessel_j0).
template <OpKind Op> Status importUnary(NodeImport &node) {
  const OpSchema &schema = node.schema();
  std::string_view operand = "self";
  if (schema.findArg("self") == nullptr && !schema.args.empty())
    operand = schema.args[0].name;
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor(operand));
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

// Most binary ops name their operands self/other; torch.special's polynomials name them x, n
// (either may be a Python scalar: the x_scalar / n_scalar overloads).
template <OpKind Op> Status importBinary(NodeImport &node) {
  const OpSchema &schema = node.schema();
  if (schema.findArg("self") == nullptr && schema.args.size() >= 2)
    return importBinaryNamed<Op>(node, schema.args[0].name, schema.args[1].name);
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


// nextafter steps in the operands' own precision: float32 and float64 (a float16/bfloat16 step
// would need its own bit arithmetic).
Status importNextafter(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (out.dtype != DType::F32 && out.dtype != DType::F64)
    return node.unsupportedFeature("nextafter in " + std::string(ir::dtypeName(out.dtype)) +
                                   " (float32 and float64 only)");
  return importBinary<OpKind::Nextafter>(node);
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

// ---- more core ATen elementwise ops, copies and constants ----

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
Status importZero(NodeImport &node) { return emitFull(node, "", 0); }

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

// resize(self, size) (core ATen) / resize_ and resize_as_ (training IR, in place; the
// `torch.empty(0).resize_(n)` and out= patterns): the result takes the new shape and keeps self's first
// elements in row-major order, like PyTorch for a contiguous self; the elements past self's
// are uninitialized in PyTorch and zeros here (as for empty). An empty self may take any
// shape, symbolic ones too; otherwise both sizes must be static.
Status importResize(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(bool contiguous, node.isContiguousFormat("memory_format"));
  if (!node.isNone("memory_format") && !contiguous)
    return node.unsupportedFeature("resize with a memory_format other than contiguous_format "
                                   "(its storage order is not the element order)");
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


// clang-format off
constexpr Converter kConverters[] = {
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
    {"aten.nextafter.default", importNextafter},
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
    {"aten.zero_.default", importInplace<importZero>},
    {"aten.copy.default", importCopyInto},
    {"aten.copy_.default", importInplace<importCopyInto>},
    {"aten.empty.memory_format", importEmpty},
    {"aten.empty_strided.default", importEmpty},
    // storage resize (resize_ in training IR, resize in core ATen)
    {"aten.resize_.default", importInplace<importResize>},
    {"aten.resize.default", importResize},
    {"aten.resize_as_.default", importInplace<importResize>},
};
// clang-format on

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

/// Calls `visit(overload, op)` for every overload the "aten overloads" column of ir/ops.def
/// names for an op with a generic import; stops when it returns true.
template <typename Visit> void forEachGenericOverload(Visit visit) {
  for (int op = 0; op < ir::kNumOps; ++op) {
    if (kGenericImports[op] == nullptr)
      continue;
    std::string_view names = ir::opInfo(static_cast<OpKind>(op)).atenOverloads;
    while (!names.empty()) {
      size_t space = names.find(' ');
      if (visit(names.substr(0, space), op))
        return;
      names.remove_prefix(space == std::string_view::npos ? names.size() : space + 1);
    }
  }
}

} // namespace

std::span<const Converter> elementwiseConverters() { return kConverters; }

ImportFunction findGenericImport(std::string_view overload) {
  ImportFunction found = nullptr;
  forEachGenericOverload([&](std::string_view name, int op) {
    if (name == overload)
      found = kGenericImports[op];
    return found != nullptr;
  });
  return found;
}

std::vector<std::string> genericImportTargets() {
  std::vector<std::string> targets;
  forEachGenericOverload([&](std::string_view name, int) {
    targets.push_back("aten." + std::string(name));
    return false;
  });
  return targets;
}

} // namespace thunderc::frontend
