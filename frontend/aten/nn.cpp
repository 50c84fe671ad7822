// The ATen converters of neural-network layers: softmax and normalizations, linear algebra and
// attention, 2-d pools, padding, resampling and 1-d pools (convolutions: conv_norm.cpp).
// Defaults come from frontend/aten/schemas.inc.
#include "frontend/aten/converters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "frontend/aten/node_importer.h"
#include "ir/shape_inference.h"

namespace thunderc::frontend {

// nonzero(self) -> i64 [count, rank] whose count is the data-dependent symbol (the exporter's
// unbacked u<N>, bounded by range_constraints; the input's element count bounds it
// otherwise). A second nonzero of the same tensor with the same symbol reuses the first.
Expected<Value *> nonzeroPositions(NodeImport &node, Value *self, const ir::Dim &count) {
  const std::string &symbol = count.expr().symbolName();
  auto &bound = node.state().nonzeroBySymbol;
  if (auto it = bound.find(symbol); it != bound.end()) {
    if (it->second->producer()->operand(0) != self)
      return node.unsupportedFeature("two nonzero calls of different tensors with one "
                                     "data-dependent count " + symbol);
    return it->second;
  }
  ir::SymbolRange &range = node.state().graph->symbols()[symbol];
  ir::Dim elements = ir::numElements(self->type().shape);
  if (elements.isStatic() && (!range.max || *range.max > elements.value()))
    range.max = elements.value();
  AttrMap attrs;
  attrs.set("symbol", symbol);
  Value *positions = node.emitTemp(
      OpKind::Nonzero, {self},
      ir::TensorType{DType::I64, {count, ir::Dim(self->type().rank())}}, std::move(attrs));
  bound[symbol] = positions;
  return positions;
}

bool isCountSymbol(const ir::Dim &dim) {
  return !dim.isStatic() && dim.expr().kind() == ir::SymExpr::Kind::Symbol;
}

namespace {

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
Status importNonzero(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (out.rank() != 2 || !isCountSymbol(out.shape[0]))
    return node.unsupportedFeature("nonzero whose output size is not one data-dependent symbol (" +
                                   out.str() + ")");
  TC_ASSIGN_OR_RETURN(Value * positions, nonzeroPositions(node, self, out.shape[0]));
  node.bindOutput(0, positions);
  return Status::success();
}

// nonzero_numpy and where(condition) (torch.nonzero(as_tuple=True), torch.where(x) at the
// training IR): one i64 [count] tensor per dim, the columns of nonzero.
Status importNonzeroNumpy(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor(node.schema().args.at(0).name)); // or condition
  int64_t rank = self->type().rank();
  if (node.numOutputs() != std::max<int64_t>(rank, 1))
    return invalidInput("node '" + node.name() + "': nonzero_numpy of " + self->type().str() +
                        " with " + std::to_string(node.numOutputs()) + " outputs");
  TC_ASSIGN_OR_RETURN(ir::TensorType first, node.outputType(0));
  if (first.rank() != 1 || !isCountSymbol(first.shape[0]))
    return node.unsupportedFeature("nonzero whose output size is not one data-dependent symbol (" +
                                   first.str() + ")");
  if (rank == 0) { // a 0-d tensor counts as one element of a 1-d one
    AttrMap shape;
    shape.set("shape", ir::makeDimsAttr(std::vector<ir::Dim>{ir::Dim(1)}));
    TC_ASSIGN_OR_RETURN(self, node.emitInferred(OpKind::Reshape, {self}, std::move(shape)));
    rank = 1;
  }
  const ir::Dim count = first.shape[0];
  TC_ASSIGN_OR_RETURN(Value * positions, nonzeroPositions(node, self, count));
  for (int64_t d = 0; d < rank; ++d) {
    AttrMap column;
    column.set("dim", int64_t{1});
    column.set("index", d);
    node.bindOutput(static_cast<int>(d),
                    node.emitTemp(OpKind::Select, {positions}, ir::TensorType{DType::I64, {count}},
                                  std::move(column)));
  }
  return Status::success();
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

// layer_norm and native_layer_norm (its mean and rstd outputs computed when used).
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
  bool stats = node.numOutputs() == 3 && (node.isOutputUsed(1) || node.isOutputUsed(2));
  if (!stats) {
    TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::LayerNorm, operands, attrs));
    (void)emitted;
    return Status::success();
  }
  // native_layer_norm's mean and rstd (1/sqrt(biased variance + eps)) over the normalized
  // dims, kept as size-1 dims, in the exported outputs' dtype.
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(Value * y, node.emitInferred(OpKind::LayerNorm, operands, attrs));
  node.bindOutput(0, node.castTo(y, out.dtype));
  TC_ASSIGN_OR_RETURN(ir::TensorType statType, node.outputType(1));
  Value *x = node.castTo(input, statType.dtype);
  std::vector<int64_t> dims;
  for (int64_t d = input->type().rank() - static_cast<int64_t>(shape.size());
       d < input->type().rank(); ++d)
    dims.push_back(d);
  AttrMap meanAttrs;
  meanAttrs.set("dims", dims);
  meanAttrs.set("keepdim", true);
  TC_ASSIGN_OR_RETURN(Value * mean, node.emitInferred(OpKind::Mean, {x}, meanAttrs));
  AttrMap varAttrs = meanAttrs;
  varAttrs.set("correction", 0.0);
  TC_ASSIGN_OR_RETURN(Value * var, node.emitInferred(OpKind::Var, {x}, std::move(varAttrs)));
  TC_ASSIGN_OR_RETURN(Value * shifted,
                      node.emitInferred(OpKind::Add, {var, node.scalarConstant(eps, statType.dtype)}));
  TC_ASSIGN_OR_RETURN(Value * rstd, node.emitInferred(OpKind::Rsqrt, {shifted}));
  node.bindOutput(1, mean);
  node.bindOutput(2, rstd);
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

// ---- einsum ----

/// One operand of an einsum while it is reduced: the value and one label per dim (a letter's
/// code, or kEllipsisLabel + i for the i-th of the broadcast "..." dims, counted from the left
/// of the widest ellipsis).
struct EinsumOperand {
  Value *value;
  std::vector<int> labels;
};
constexpr int kEllipsisLabel = 1000;

Expected<Value *> einsumEmit(NodeImport &node, OpKind op, std::vector<Value *> operands,
                             AttrMap attrs = {}) {
  return node.emitInferred(op, std::move(operands), std::move(attrs));
}

Expected<Value *> einsumReshape(NodeImport &node, Value *x, const ir::Shape &shape) {
  if (x->type().shape == shape)
    return x;
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(std::vector<ir::Dim>(shape.begin(), shape.end())));
  return einsumEmit(node, OpKind::Reshape, {x}, std::move(attrs));
}

/// x's dims reordered so that its labels read `order`.
Expected<Value *> einsumPermute(NodeImport &node, EinsumOperand &x, const std::vector<int> &order) {
  std::vector<int64_t> dims;
  for (int label : order)
    dims.push_back(std::find(x.labels.begin(), x.labels.end(), label) - x.labels.begin());
  bool identity = true;
  for (size_t i = 0; i < dims.size(); ++i)
    identity = identity && dims[i] == static_cast<int64_t>(i);
  x.labels = order;
  if (identity)
    return x.value;
  AttrMap attrs;
  attrs.set("dims", dims);
  return einsumEmit(node, OpKind::Permute, {x.value}, std::move(attrs));
}

/// Sums x over the labels `drop` (removing them).
Status einsumSumOut(NodeImport &node, EinsumOperand &x, const std::set<int> &drop) {
  std::vector<int64_t> dims;
  std::vector<int> kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (drop.count(x.labels[i]))
      dims.push_back(static_cast<int64_t>(i));
    else
      kept.push_back(x.labels[i]);
  }
  if (dims.empty())
    return Status::success();
  AttrMap attrs;
  attrs.set("dims", dims);
  attrs.set("keepdim", false);
  TC_ASSIGN_OR_RETURN(x.value, einsumEmit(node, OpKind::Sum, {x.value}, std::move(attrs)));
  x.labels = std::move(kept);
  return Status::success();
}

/// The size of label in x (which has it).
ir::Dim einsumSize(const EinsumOperand &x, int label) {
  size_t at = std::find(x.labels.begin(), x.labels.end(), label) - x.labels.begin();
  return x.value->type().shape[at];
}

/// a x b summed over their shared labels that `keep` lacks: one batched GEMM over
/// [shared kept labels] x [a's own] x [the summed ones] and [.. summed] x [b's own]; a size-1
/// dim against a larger one broadcasts first.
Expected<EinsumOperand> einsumContract(NodeImport &node, EinsumOperand a, EinsumOperand b,
                                       const std::set<int> &keep) {
  std::vector<int> batch, summed, aOnly, bOnly;
  for (int label : a.labels) {
    bool inB = std::find(b.labels.begin(), b.labels.end(), label) != b.labels.end();
    (inB ? (keep.count(label) ? batch : summed) : aOnly).push_back(label);
  }
  for (int label : b.labels)
    if (std::find(a.labels.begin(), a.labels.end(), label) == a.labels.end())
      bOnly.push_back(label);
  // Broadcast shared labels of size 1 against the other operand's size.
  for (EinsumOperand *x : {&a, &b}) {
    const EinsumOperand &other = x == &a ? b : a;
    ir::Shape shape = x->value->type().shape;
    bool grow = false;
    for (size_t i = 0; i < x->labels.size(); ++i) {
      if (std::find(other.labels.begin(), other.labels.end(), x->labels[i]) == other.labels.end())
        continue;
      ir::Dim theirs = einsumSize(other, x->labels[i]);
      if (shape[i].isStatic() && shape[i].value() == 1 && !(theirs == shape[i])) {
        shape[i] = theirs;
        grow = true;
      }
    }
    if (grow) {
      AttrMap attrs;
      attrs.set("shape", ir::makeDimsAttr(std::vector<ir::Dim>(shape.begin(), shape.end())));
      TC_ASSIGN_OR_RETURN(x->value, einsumEmit(node, OpKind::Expand, {x->value}, std::move(attrs)));
    }
  }
  auto sizes = [](const EinsumOperand &x, const std::vector<int> &labels) {
    ir::Shape shape;
    for (int label : labels)
      shape.push_back(einsumSize(x, label));
    return shape;
  };
  ir::Shape batchShape = sizes(a, batch), aShape = sizes(a, aOnly), bShape = sizes(b, bOnly),
            sumShape = sizes(a, summed);
  std::vector<int> aOrder = batch, bOrder = batch;
  aOrder.insert(aOrder.end(), aOnly.begin(), aOnly.end());
  aOrder.insert(aOrder.end(), summed.begin(), summed.end());
  bOrder.insert(bOrder.end(), summed.begin(), summed.end());
  bOrder.insert(bOrder.end(), bOnly.begin(), bOnly.end());
  TC_ASSIGN_OR_RETURN(Value * pa, einsumPermute(node, a, aOrder));
  TC_ASSIGN_OR_RETURN(Value * pb, einsumPermute(node, b, bOrder));
  ir::Dim nb = ir::numElements(batchShape), m = ir::numElements(aShape),
          n = ir::numElements(bShape), k = ir::numElements(sumShape);
  TC_ASSIGN_OR_RETURN(Value * ma, einsumReshape(node, pa, {nb, m, k}));
  TC_ASSIGN_OR_RETURN(Value * mb, einsumReshape(node, pb, {nb, k, n}));
  TC_ASSIGN_OR_RETURN(Value * product, einsumEmit(node, OpKind::Matmul, {ma, mb}));
  ir::Shape shape = batchShape;
  shape.insert(shape.end(), aShape.begin(), aShape.end());
  shape.insert(shape.end(), bShape.begin(), bShape.end());
  EinsumOperand result;
  TC_ASSIGN_OR_RETURN(result.value, einsumReshape(node, product, shape));
  result.labels = batch;
  result.labels.insert(result.labels.end(), aOnly.begin(), aOnly.end());
  result.labels.insert(result.labels.end(), bOnly.begin(), bOnly.end());
  return result;
}

/// einsum(equation, tensors): each operand's repeated labels become a diagonal and its labels
/// no other operand or the output has are summed; the operands then contract left to right,
/// each pair as one batched GEMM (as ATen's sumproduct_pair), and the result is permuted into
/// the output's order. "..." broadcasts (right-aligned); an implicit output holds the "..."
/// dims, then the labels used once, sorted.
Status importEinsum(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(std::optional<std::string> given, node.optionalString("equation"));
  TC_ASSIGN_OR_RETURN(std::vector<Value *> tensors, node.tensorList("tensors"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  std::string equation;
  for (char c : given.value_or(""))
    if (c != ' ')
      equation += c;
  auto bad = [&](const std::string &why) {
    return invalidInput("einsum equation '" + given.value_or("") + "' in node '" + node.name() +
                        "': " + why);
  };
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != tensors.size())
    return bad(std::to_string(terms.size()) + " operand terms for " +
               std::to_string(tensors.size()) + " tensors");
  // Letters of each term, and where its "..." is.
  auto parse = [&](const std::string &term, std::vector<int> &letters,
                   int &ellipsisAt) -> Status {
    ellipsisAt = -1;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term.compare(i, 3, "...") == 0) {
        if (ellipsisAt >= 0)
          return bad("two '...' in one term");
        ellipsisAt = static_cast<int>(letters.size());
        i += 2;
      } else if (std::isalpha(static_cast<unsigned char>(term[i]))) {
        letters.push_back(term[i]);
      } else {
        return bad(std::string("unexpected '") + term[i] + "'");
      }
    }
    return Status::success();
  };
  std::vector<EinsumOperand> operands;
  std::vector<std::vector<int>> letters(terms.size());
  std::vector<int> ellipsisAt(terms.size());
  int64_t widest = 0;
  for (size_t t = 0; t < terms.size(); ++t) {
    TC_TRY(parse(terms[t], letters[t], ellipsisAt[t]));
    int64_t rank = tensors[t]->type().rank(), named = static_cast<int64_t>(letters[t].size());
    if (rank < named || (ellipsisAt[t] < 0 && rank != named))
      return bad("term '" + terms[t] + "' for a tensor " + tensors[t]->type().str());
    widest = std::max(widest, rank - named);
  }
  std::map<int, int> uses;
  for (size_t t = 0; t < terms.size(); ++t) {
    int64_t rank = tensors[t]->type().rank();
    int64_t width = rank - static_cast<int64_t>(letters[t].size());
    EinsumOperand operand{node.castTo(tensors[t], out.dtype), {}};
    for (int64_t i = 0, letter = 0; i < rank;) {
      if (letter == ellipsisAt[t] && width > 0) {
        for (int64_t e = 0; e < width; ++e, ++i)
          operand.labels.push_back(kEllipsisLabel + static_cast<int>(widest - width + e));
        width = 0;
      } else {
        operand.labels.push_back(letters[t][static_cast<size_t>(letter++)]);
        ++i;
      }
    }
    for (int label : operand.labels)
      ++uses[label];
    operands.push_back(std::move(operand));
  }
  // The output's labels.
  std::vector<int> output;
  if (arrow != std::string::npos) {
    std::vector<int> named;
    int at = -1;
    TC_TRY(parse(equation.substr(arrow + 2), named, at));
    for (size_t i = 0; i <= named.size(); ++i) {
      if (static_cast<int>(i) == at)
        for (int64_t e = 0; e < widest; ++e)
          output.push_back(kEllipsisLabel + static_cast<int>(e));
      if (i < named.size()) {
        if (!uses.count(named[i]))
          return bad(std::string("output label '") + static_cast<char>(named[i]) +
                     "' is in no operand");
        output.push_back(named[i]);
      }
    }
  } else {
    for (int64_t e = 0; e < widest; ++e)
      output.push_back(kEllipsisLabel + static_cast<int>(e));
    for (const auto &[label, count] : uses)
      if (label < kEllipsisLabel && count == 1)
        output.push_back(label);
  }
  // Repeated labels within an operand: their diagonal (appended last, as the diagonal op does).
  for (EinsumOperand &x : operands) {
    for (bool again = true; again;) {
      again = false;
      for (size_t i = 0; i < x.labels.size() && !again; ++i)
        for (size_t j = i + 1; j < x.labels.size() && !again; ++j) {
          if (x.labels[i] != x.labels[j])
            continue;
          AttrMap attrs;
          attrs.set("diagonal", int64_t{0});
          attrs.set("dims", std::vector<int64_t>{static_cast<int64_t>(i), static_cast<int64_t>(j)});
          TC_ASSIGN_OR_RETURN(x.value, einsumEmit(node, OpKind::Diagonal, {x.value}, std::move(attrs)));
          int label = x.labels[i];
          x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(j));
          x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(i));
          x.labels.push_back(label);
          again = true;
        }
    }
  }
  // Labels needed after operand i: the output's and those of the operands after it.
  auto neededAfter = [&](size_t i) {
    std::set<int> keep(output.begin(), output.end());
    for (size_t j = i + 1; j < operands.size(); ++j)
      keep.insert(operands[j].labels.begin(), operands[j].labels.end());
    return keep;
  };
  EinsumOperand acc = operands[0];
  {
    std::set<int> keep = neededAfter(0), drop;
    for (int label : acc.labels)
      if (!keep.count(label))
        drop.insert(label);
    TC_TRY(einsumSumOut(node, acc, drop));
  }
  for (size_t i = 1; i < operands.size(); ++i) {
    std::set<int> keep = neededAfter(i), drop;
    // Labels of this operand alone (not in acc, not needed later) are summed first.
    for (int label : operands[i].labels)
      if (!keep.count(label) &&
          std::find(acc.labels.begin(), acc.labels.end(), label) == acc.labels.end())
        drop.insert(label);
    TC_TRY(einsumSumOut(node, operands[i], drop));
    TC_ASSIGN_OR_RETURN(acc, einsumContract(node, acc, operands[i], keep));
  }
  TC_ASSIGN_OR_RETURN(Value * result, einsumPermute(node, acc, output));
  if (!(result->type() == out))
    return bad("the result comes out as " + result->type().str() + ", the export declares " +
               out.str());
  node.bindOutput(0, result);
  return Status::success();
}

// clang-format off
constexpr Converter kConverters[] = {
    // normalization and softmax
    {"aten.softmax.int", importSoftmax<OpKind::Softmax>},
    {"aten._softmax.default", importSoftmax<OpKind::Softmax>},
    {"aten.log_softmax.int", importSoftmax<OpKind::LogSoftmax>},
    {"aten._log_softmax.default", importSoftmax<OpKind::LogSoftmax>},
    {"aten.cumsum.default", importCumsum},
    {"aten.layer_norm.default", importLayerNorm},
    {"aten.native_layer_norm.default", importLayerNorm},
    // linear algebra, attention
    {"aten.linear.default", importLinear},
    {"aten.matmul.default", importMatmul},
    {"aten.mm.default", importMatmul},
    {"aten.bmm.default", importMatmul},
    {"aten.einsum.default", importEinsum},
    {"aten.addmm.default", importAddmm},
    {"aten._grouped_mm.default", importGroupedMm},
    {"aten._int_mm.default", importIntMm},
    {"transformers.grouped_mm_fallback.default", importGroupedMm},
    {"aten.scaled_dot_product_attention.default", importAttention},
    // pooling
    {"aten.max_pool2d.default", importMaxPool2d},
    {"aten.avg_pool2d.default", importAvgPool2d},
    {"aten.adaptive_avg_pool2d.default", importAdaptiveAvgPool2d},
    {"aten._adaptive_avg_pool2d.default", importAdaptiveAvgPool2d},
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
    // sorting, embedding bags, pairwise distances (frontend/aten/sort.cpp)
    {"aten.nonzero.default", importNonzero},
    {"aten.nonzero_numpy.default", importNonzeroNumpy},
    {"aten.where.default", importNonzeroNumpy},
};
// clang-format on

} // namespace

std::span<const Converter> nnConverters() { return kConverters; }

} // namespace thunderc::frontend
