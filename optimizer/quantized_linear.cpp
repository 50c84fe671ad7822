// Weight-only quantized linear layers. Algorithm of "quantized-linear":
//   1. Rules run to a fixed point over the nodes (optimizer/rewrite.h), each with the node as
//      the root of its pattern: a linear (the dequantized weight is its operand 1), a mul (the
//      scale applied after a GEMM on cast(q)), or an add (a bias after a linear_wq).
//   2. The weight expression is peeled from the outside in: an optional reshape from
//      [N, G, K/G] to [N, K] (per-group quantization), an optional mul by a floating weight
//      (the scale), then (cast(q) - z), cast(q - z) or cast(q). q must be an i8 weight input
//      seen through views and widening integer casts, z and s weight inputs through views and
//      casts, shaped [N, 1] / [N, G, 1] so that they broadcast along K only.
//   3. The replacement's operands are built just before the root: q as [N, K], s as [N, G],
//      z as [N, G] in the scales' dtype. The root's users move to the linear_wq; what that
//      leaves dead is erased. fold-constants later turns the small reshapes into constants.
// "quantize-weights" reads weight data (after fold-constants): it quantizes float linears when
// asked and packs 4-bit-valued int8 weights two per byte.
#include "optimizer/quantized_linear.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/interpreter_internal.h"
#include "ir/op_attributes.h"
#include "ir/shape_inference.h"
#include "optimizer/rewrite.h"

namespace thunderc::opt {
namespace {

using ir::DType;
using ir::Node;
using ir::OpKind;
using ir::Value;

bool isWeightInput(const Value *value) {
  return value->isGraphInput() && (value->inputKind() == ir::InputKind::Parameter ||
                                   value->inputKind() == ir::InputKind::Buffer ||
                                   value->inputKind() == ir::InputKind::Constant);
}

bool isReshapeLike(OpKind op) {
  return op == OpKind::Reshape || op == OpKind::Squeeze || op == OpKind::Unsqueeze ||
         op == OpKind::Copy;
}

/// The weight input (or operand-less full: a per-tensor constant) under `value` when only
/// views and casts lie between; else nullptr.
const Value *weightRoot(const Value *value) {
  while (!value->isGraphInput()) {
    const Node *producer = value->producer();
    if (producer->op() == OpKind::Full && producer->numOperands() == 0)
      return value;
    if (!isReshapeLike(producer->op()) && producer->op() != OpKind::Cast)
      return nullptr;
    value = producer->operand(0);
  }
  return isWeightInput(value) ? value : nullptr;
}

/// An i8 weight seen through widening integer casts and no-ops; else nullptr.
Value *integerWeight(Value *value) {
  value = skipNoOps(value);
  while (value->producer() != nullptr && value->producer()->op() == OpKind::Cast &&
         ir::isIntegral(value->type().dtype) &&
         value->producer()->operand(0)->type().dtype == DType::I8)
    value = skipNoOps(value->producer()->operand(0));
  if (value->type().dtype != DType::I8 || weightRoot(value) == nullptr)
    return nullptr;
  return value;
}

/// The integer weight under a floating cast: cast(q) (and no-ops).
Value *castOfInteger(Value *value) {
  Node *cast = skipNoOps(value)->producer();
  if (cast == nullptr || cast->op() != OpKind::Cast ||
      !ir::isFloatingPoint(cast->result()->type().dtype))
    return nullptr;
  return integerWeight(cast->operand(0));
}

/// A floating weight (through views and casts): a scale or a float zero point.
bool isFloatWeight(const Value *value) {
  const Value *root = weightRoot(value);
  return root != nullptr && ir::isFloatingPoint(root->type().dtype) &&
         ir::isFloatingPoint(value->type().dtype);
}

struct Dequant {
  Value *q = nullptr;     ///< the i8 weight, shaped like the dequantized tensor
  Value *scale = nullptr; ///< nullptr: scale 1 (cast(q) alone)
  Value *zero = nullptr;  ///< nullptr: no zero point
};

/// (cast(q) - z) * s, cast(q - z) * s, cast(q) * s, or (with allowUnscaled) cast(q).
std::optional<Dequant> matchDequant(Value *value, bool allowUnscaled) {
  Dequant match;
  Value *rest = skipNoOps(value);
  if (Node *mul = rest->producer(); mul != nullptr && mul->op() == OpKind::Mul) {
    for (int side = 0; side < 2 && match.scale == nullptr; ++side)
      if (isFloatWeight(mul->operand(side))) {
        match.scale = mul->operand(side);
        rest = skipNoOps(mul->operand(1 - side));
      }
    if (match.scale == nullptr)
      return std::nullopt;
  } else if (!allowUnscaled) {
    return std::nullopt;
  }
  Node *producer = rest->producer();
  if (producer == nullptr)
    return std::nullopt;
  if (producer->op() == OpKind::Sub) { // cast(q) - z, z floating
    match.q = castOfInteger(producer->operand(0));
    match.zero = producer->operand(1);
    if (match.q == nullptr || weightRoot(match.zero) == nullptr)
      return std::nullopt;
    return match;
  }
  if (producer->op() != OpKind::Cast || !ir::isFloatingPoint(rest->type().dtype))
    return std::nullopt;
  Value *inner = skipNoOps(producer->operand(0));
  if (Node *sub = inner->producer(); sub != nullptr && sub->op() == OpKind::Sub &&
                                     ir::isIntegral(inner->type().dtype)) { // cast(q - z)
    match.q = integerWeight(sub->operand(0));
    match.zero = sub->operand(1);
    if (match.q == nullptr || weightRoot(match.zero) == nullptr)
      return std::nullopt;
    return match;
  }
  match.q = integerWeight(inner);
  if (match.q == nullptr)
    return std::nullopt;
  return match;
}

/// Static dims of `value`, or nullopt.
std::optional<std::vector<int64_t>> staticShape(const Value *value) {
  std::vector<int64_t> dims;
  for (const ir::Dim &dim : value->type().shape) {
    if (!dim.isStatic())
      return std::nullopt;
    dims.push_back(dim.value());
  }
  return dims;
}

class QuantizedLinearRewriter {
public:
  QuantizedLinearRewriter(ir::Graph &graph) : graph_(graph) {}

  std::optional<std::string> rule(Node *node) {
    switch (node->op()) {
    case OpKind::Linear:
      return dequantizedLinear(node);
    case OpKind::Mul:
      return scaledAfterGemm(node);
    case OpKind::Add:
      return biasAfter(node);
    case OpKind::LinearWq:
      return quantizedInput(node);
    case OpKind::Conv2d:
      return quantizedConv(node);
    default:
      return std::nullopt;
    }
  }

private:
  /// `value` as [N, G]: reshaped, or (one value: per-tensor) broadcast.
  Value *perGroup(Node *before, Value *value, int64_t n, int64_t groups) {
    std::optional<std::vector<int64_t>> dims = staticShape(value);
    int64_t numel = 1;
    for (int64_t dim : dims.value_or(std::vector<int64_t>{}))
      numel *= dim;
    if (!dims || numel != 1 || n * groups == 1)
      return reshape(before, value, {n, groups});
    Value *single = reshape(before, value, {1, 1});
    ir::TensorType type{value->type().dtype, {ir::Dim(n), ir::Dim(groups)}};
    ir::AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(type.shape));
    return graph_.insertNodeBefore(before, OpKind::Expand, {single}, {type}, attrs)->result();
  }

  Value *reshape(Node *before, Value *value, const std::vector<int64_t> &shape) {
    ir::TensorType type{value->type().dtype, {}};
    for (int64_t dim : shape)
      type.shape.push_back(ir::Dim(dim));
    if (value->type() == type)
      return value;
    ir::AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(type.shape));
    return graph_.insertNodeBefore(before, OpKind::Reshape, {value}, {type}, attrs)->result();
  }

  Value *cast(Node *before, Value *value, DType dtype) {
    if (value->type().dtype == dtype)
      return value;
    ir::AttrMap attrs;
    attrs.set("dtype", dtype);
    ir::TensorType type{dtype, value->type().shape};
    return graph_.insertNodeBefore(before, OpKind::Cast, {value}, {type}, attrs)->result();
  }

  /// Inserts `op` before `root` if its inferred type is root's, and replaces root by it.
  bool replaceChecked(Node *root, OpKind op, std::vector<Value *> operands, ir::AttrMap attrs) {
    std::vector<ir::TensorType> operandTypes;
    for (const Value *operand : operands)
      operandTypes.push_back(operand->type());
    std::vector<ir::TensorType> declared{root->result()->type()};
    auto inferred = ir::inferResultTypes(op, operandTypes, attrs, declared);
    if (!inferred.ok() || inferred.value() != declared) {
      for (Value *operand : operands) // drop the reshapes and casts just built
        if (!operand->hasUses() && operand->producer() != nullptr)
          eraseIfDead(graph_, operand->producer());
      return false;
    }
    Node *replacement =
        graph_.insertNodeBefore(root, op, std::move(operands), declared, std::move(attrs));
    replaceNode(graph_, root, replacement);
    return true;
  }

  /// Builds linear_wq(x, q[N,K], s[N,G], z?, bias?) before `root` and replaces `root` by it.
  /// `groups` scale groups along K; s and z hold N * groups values in row-major [N, G] order.
  bool replace(Node *root, Value *x, const Dequant &match, int64_t n, int64_t k, int64_t groups,
               Value *bias) {
    DType scaleType = match.scale != nullptr ? match.scale->type().dtype : DType::F32;
    std::vector<Value *> operands{x, reshape(root, match.q, {n, k}),
                                  perGroup(root, match.scale, n, groups)};
    if (match.zero != nullptr)
      operands.push_back(cast(root, perGroup(root, match.zero, n, groups), scaleType));
    if (bias != nullptr)
      operands.push_back(bias);
    ir::AttrMap attrs;
    attrs.set("bits", int64_t(8));
    attrs.set("has_zeros", match.zero != nullptr);
    return replaceChecked(root, OpKind::LinearWq, std::move(operands), std::move(attrs));
  }

  /// `param` (a scale or zero point) broadcasts along K only: [N, 1] for a [N, K] weight,
  /// [N, G, 1] for [N, G, K/G]; or holds one value (per tensor: [], [1], [1, 1], ...).
  static bool broadcastsAlongK(const Value *param, const std::vector<int64_t> &weight) {
    std::optional<std::vector<int64_t>> shape = staticShape(param);
    if (shape && shape->size() <= weight.size() &&
        std::all_of(shape->begin(), shape->end(), [](int64_t dim) { return dim == 1; }))
      return true;
    if (!shape || shape->size() != weight.size() || shape->back() != 1)
      return false;
    for (size_t d = 0; d + 1 < weight.size(); ++d)
      if ((*shape)[d] != weight[d])
        return false;
    return true;
  }

  // linear(x, dequantized weight, b?)
  std::optional<std::string> dequantizedLinear(Node *linear) {
    Value *weight = skipNoOps(linear->operand(1));
    std::optional<std::vector<int64_t>> dims = staticShape(weight);
    if (!dims || dims->size() != 2)
      return std::nullopt;
    const int64_t n = (*dims)[0], k = (*dims)[1];
    Value *dequantized = weight;
    int64_t groups = 1;
    Node *flatten = weight->producer();
    if (flatten != nullptr && flatten->op() == OpKind::Reshape) {
      std::optional<std::vector<int64_t>> grouped = staticShape(flatten->operand(0));
      if (grouped && grouped->size() == 3 && (*grouped)[0] == n &&
          (*grouped)[1] * (*grouped)[2] == k) {
        dequantized = flatten->operand(0);
        groups = (*grouped)[1];
      }
    }
    std::optional<Dequant> match = matchDequant(dequantized, false);
    std::optional<std::vector<int64_t>> shape = staticShape(dequantized);
    if (!match || !shape || staticShape(match->q) != shape ||
        !broadcastsAlongK(match->scale, *shape) ||
        (match->zero != nullptr && !broadcastsAlongK(match->zero, *shape)))
      return std::nullopt;
    Value *bias = linear->numOperands() > 2 ? linear->operand(2) : nullptr;
    if (!replace(linear, linear->operand(0), *match, n, k, groups, bias))
      return std::nullopt;
    return groups > 1 ? "grouped" : "per-channel";
  }

  // mul(linear(x, cast(q)), s[N]) or mul(matmul(x, cast(permute(q))), s[N]): the scale
  // applied to the GEMM's result (torchao's int8 weight-only, _weight_int8pack_mm).
  std::optional<std::string> scaledAfterGemm(Node *mul) {
    for (int side = 0; side < 2; ++side) {
      Value *scale = mul->operand(1 - side);
      Node *gemm = soleProducer(graph_, mul->operand(side), OpKind::Linear);
      if (gemm == nullptr)
        gemm = soleProducer(graph_, mul->operand(side), OpKind::Matmul);
      if (gemm == nullptr || !isFloatWeight(scale) ||
          gemm->result()->type().shape != mul->result()->type().shape)
        continue;
      Value *q = nullptr;
      if (gemm->op() == OpKind::Linear && gemm->numOperands() == 2) {
        q = castOfInteger(gemm->operand(1));
      } else if (gemm->op() == OpKind::Matmul && gemm->operand(1)->type().rank() == 2 &&
                 gemm->operand(0)->type().rank() >= 2) {
        // cast(permute(q)) or permute(cast(q)): q^T in float.
        Value *rhs = skipNoOps(gemm->operand(1));
        Node *outer = rhs->producer();
        if (outer == nullptr)
          continue;
        Node *permute = nullptr;
        if (outer->op() == OpKind::Permute)
          permute = outer;
        else if (outer->op() == OpKind::Cast)
          permute = skipNoOps(outer->operand(0))->producer();
        if (permute == nullptr || permute->op() != OpKind::Permute ||
            ir::attr::dims(*permute).size() != 2 || ir::attr::dims(*permute)[0] == 0)
          continue;
        Value *transposed = outer == permute ? castOfInteger(permute->operand(0))
                                             : integerWeight(permute->operand(0));
        if (outer != permute && !ir::isFloatingPoint(outer->result()->type().dtype))
          continue;
        q = transposed;
      }
      if (q == nullptr)
        continue;
      std::optional<std::vector<int64_t>> dims = staticShape(q);
      std::optional<std::vector<int64_t>> scaleDims = staticShape(scale);
      if (!dims || dims->size() != 2 || !scaleDims)
        continue;
      const int64_t n = (*dims)[0], k = (*dims)[1];
      // The scale must vary along the output features only: [N], [1, N], [1, 1, N] ...
      int64_t numel = 1;
      for (int64_t dim : *scaleDims)
        numel *= dim;
      if (scaleDims->empty() || scaleDims->back() != n || numel != n)
        continue;
      Dequant match{q, scale, nullptr};
      if (replace(mul, gemm->operand(0), match, n, k, 1, nullptr))
        return "scale-after-gemm";
    }
    return std::nullopt;
  }

  // add(linear_wq(...), b) with no bias yet and b [N] of the result's dtype.
  std::optional<std::string> biasAfter(Node *add) {
    for (int side = 0; side < 2; ++side) {
      Value *bias = skipNoOps(add->operand(1 - side));
      Node *linear = soleProducer(graph_, add->operand(side), OpKind::LinearWq);
      if (linear == nullptr)
        continue;
      Value *product = linear->result();
      int biasIndex = ir::attr::has_zeros(*linear) ? 4 : 3;
      if (linear->numOperands() > biasIndex || bias->type().rank() != 1 ||
          bias->type().dtype != product->type().dtype ||
          !(bias->type().shape[0] == linear->operand(1)->type().shape[0]))
        continue;
      std::vector<Value *> operands = linear->operands();
      operands.push_back(bias);
      std::vector<ir::TensorType> declared{add->result()->type()};
      if (product->type() != declared[0])
        continue;
      Node *replacement = graph_.insertNodeBefore(add, OpKind::LinearWq, std::move(operands),
                                                  declared, linear->attrs());
      replaceNode(graph_, add, replacement);
      return "bias";
    }
    return std::nullopt;
  }

  /// The value of a one-element floating constant (an operand-less full) under views.
  static std::optional<double> scalarConstant(Value *value) {
    value = skipNoOps(value);
    const Node *producer = value->producer();
    while (producer != nullptr && isReshapeLike(producer->op())) {
      value = producer->operand(0);
      producer = value->producer();
    }
    if (producer == nullptr || producer->op() != OpKind::Full || producer->numOperands() != 0 ||
        !ir::isFloatingPoint(value->type().dtype))
      return std::nullopt;
    for (const ir::Dim &dim : value->type().shape)
      if (!dim.isStatic() || dim.value() != 1)
        return std::nullopt;
    return ir::interp::roundToDType(ir::attr::value(*producer), value->type().dtype);
  }

  /// A statically quantized activation: the integer xq under its dequantize.
  struct QuantizedX {
    Value *xq;
    double scale;
    int64_t zero;
  };

  /// mul(sub(cast(xq), zero), scale) or mul(cast(xq), scale) (either operand order of the mul)
  /// with xq u8 or i8 and one-value constant zero point and scale: PT2E's
  /// dequantize_per_tensor of a statically quantized activation.
  static std::optional<QuantizedX> matchQuantizedX(Value *x) {
    Node *mul = skipNoOps(x)->producer();
    if (mul == nullptr || mul->op() != OpKind::Mul || mul->result()->type().shape != x->type().shape)
      return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      std::optional<double> scale = scalarConstant(mul->operand(1 - side));
      Value *shifted = skipNoOps(mul->operand(side));
      if (!scale || !(*scale > 0.0) || !std::isfinite(*scale) ||
          shifted->type().shape != mul->result()->type().shape)
        continue;
      double zero = 0.0;
      Value *widened = shifted;
      if (Node *sub = shifted->producer(); sub != nullptr && sub->op() == OpKind::Sub) {
        std::optional<double> subtracted = scalarConstant(sub->operand(1));
        if (!subtracted)
          continue;
        zero = *subtracted;
        widened = skipNoOps(sub->operand(0));
      }
      Node *cast = widened->producer();
      if (cast == nullptr || cast->op() != OpKind::Cast ||
          widened->type().dtype != mul->result()->type().dtype ||
          widened->type().shape != mul->result()->type().shape)
        continue;
      Value *xq = cast->operand(0);
      const DType xType = xq->type().dtype;
      const double low = xType == DType::U8 ? 0.0 : -128.0;
      if ((xType != DType::U8 && xType != DType::I8) || zero != std::nearbyint(zero) ||
          zero < low || zero > low + 255.0)
        continue;
      return QuantizedX{xq, *scale, static_cast<int64_t>(zero)};
    }
    return std::nullopt;
  }

  // linear_wq(dequantized x, ...) -> linear_wq(xq, ...) {x_scale, x_zero}.
  std::optional<std::string> quantizedInput(Node *linear) {
    if (ir::attr::x_scale(*linear) || ir::attr::dynamic_act(*linear).value_or(false))
      return std::nullopt;
    std::optional<QuantizedX> match = matchQuantizedX(linear->operand(0));
    if (!match)
      return std::nullopt;
    std::vector<Value *> operands = linear->operands();
    operands[0] = match->xq;
    ir::AttrMap attrs = linear->attrs();
    attrs.set("x_scale", match->scale);
    attrs.set("x_zero", match->zero);
    if (!replaceChecked(linear, OpKind::LinearWq, std::move(operands), std::move(attrs)))
      return std::nullopt;
    return "quantized-input";
  }

  /// `param` holds one value per output channel of a [O, C, kH, kW] weight ([O, 1, 1, 1]), or
  /// one value.
  static bool perOutputChannel(const Value *param, int64_t outputs) {
    std::optional<std::vector<int64_t>> shape = staticShape(param);
    if (!shape || shape->size() > 4)
      return false;
    int64_t numel = 1;
    for (int64_t dim : *shape)
      numel *= dim;
    if (numel == 1)
      return true;
    return shape->size() == 4 && (*shape)[0] == outputs && numel == outputs;
  }

  // conv2d(dequantized x, dequantized weight, b?) -> conv2d_wq(xq, q, s[O,1], z?, b?): PT2E's
  // statically quantized convolution (dequantize_per_tensor of the input,
  // dequantize_per_channel or _per_tensor of the weight).
  std::optional<std::string> quantizedConv(Node *conv) {
    if (conv->operand(0)->type().rank() != 4)
      return std::nullopt;
    std::optional<QuantizedX> x = matchQuantizedX(conv->operand(0));
    Value *weight = skipNoOps(conv->operand(1));
    std::optional<std::vector<int64_t>> dims = staticShape(weight);
    if (!x || !dims || dims->size() != 4)
      return std::nullopt;
    std::optional<Dequant> match = matchDequant(weight, false);
    const int64_t outputs = (*dims)[0];
    if (!match || staticShape(match->q) != dims || !perOutputChannel(match->scale, outputs) ||
        (match->zero != nullptr && !perOutputChannel(match->zero, outputs)))
      return std::nullopt;
    const DType scaleType = match->scale->type().dtype;
    std::vector<Value *> operands{x->xq, match->q, perGroup(conv, match->scale, outputs, 1)};
    if (match->zero != nullptr)
      operands.push_back(cast(conv, perGroup(conv, match->zero, outputs, 1), scaleType));
    if (conv->numOperands() > 2)
      operands.push_back(conv->operand(2));
    ir::AttrMap attrs = conv->attrs();
    attrs.set("has_zeros", match->zero != nullptr);
    attrs.set("x_scale", x->scale);
    attrs.set("x_zero", x->zero);
    if (!replaceChecked(conv, OpKind::Conv2dWq, std::move(operands), std::move(attrs)))
      return std::nullopt;
    return "conv";
  }

  ir::Graph &graph_;
};

class QuantizedLinearPass final : public Pass {
public:
  std::string_view name() const override { return "quantized-linear"; }
  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    QuantizedLinearRewriter rewriter(graph);
    return rewriteToFixedPoint(graph, context, name(),
                               [&](Node *node) { return rewriter.rule(node); });
  }
};

// ---- quantize-weights ----

/// Reads a weight input's elements as doubles (contiguous row-major); nullopt without data.
Expected<std::optional<std::vector<double>>> weightValues(const ir::Graph &graph,
                                                          PassContext &context,
                                                          const Value &input) {
  std::optional<ir::TensorView> view;
  if (const ir::HostTensor *owned = graph.constantData(input.weightName()))
    view = owned->view();
  else if (context.weights) {
    Expected<ir::TensorView> served = context.weights(input);
    if (!served.ok())
      return std::move(served).error().withContext("weight '" + input.weightName() + "'");
    view = *served;
  }
  if (!view)
    return std::optional<std::vector<double>>();
  ir::HostTensor copy = ir::contiguousCopy(*view);
  std::vector<double> values(static_cast<size_t>(copy.numel()));
  const size_t size = ir::dtypeSize(copy.dtype);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = ir::interp::readElement(copy.bytes.data() + i * size, copy.dtype);
  return std::optional<std::vector<double>>(std::move(values));
}

ir::HostTensor tensorOf(DType dtype, std::vector<int64_t> shape,
                        const std::vector<double> &values) {
  ir::HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  const size_t size = ir::dtypeSize(dtype);
  tensor.bytes.resize(values.size() * size);
  for (size_t i = 0; i < values.size(); ++i)
    ir::interp::writeElement(tensor.bytes.data() + i * size, dtype,
                             ir::interp::roundToDType(values[i], dtype));
  return tensor;
}

class WeightQuantizer {
public:
  WeightQuantizer(ir::Graph &graph, PassContext &context) : graph_(graph), context_(context) {
    for (const auto &input : graph.inputs())
      names_.insert(input->weightName());
  }

  /// (1): a float linear becomes linear_wq with freshly quantized weights.
  Expected<bool> quantize(Node *linear, int bits, bool activations) {
    Value *weight = linear->operand(1);
    std::optional<std::vector<int64_t>> dims = staticShape(weight);
    if (!isWeightInput(weight) || !dims || dims->size() != 2 ||
        !ir::isFloatingPoint(weight->type().dtype))
      return false;
    TC_ASSIGN_OR_RETURN(std::optional<std::vector<double>> values,
                        weightValues(graph_, context_, *weight));
    if (!values)
      return false;
    const int64_t n = (*dims)[0], k = (*dims)[1];
    const bool grouped = bits == 4 && k % 32 == 0;
    const int64_t groupSize = grouped ? 32 : k;
    const int64_t groups = k / std::max<int64_t>(groupSize, 1);
    const double qmax = grouped ? 7.0 : 127.0;
    std::vector<double> q(values->size()), scales(static_cast<size_t>(n * groups));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t g = 0; g < groups; ++g) {
        const double *w = values->data() + j * k + g * groupSize;
        double amax = 0.0;
        for (int64_t p = 0; p < groupSize; ++p)
          amax = std::max(amax, std::fabs(w[p]));
        // The scale is stored as float32; quantize with that rounded value.
        double scale = ir::interp::roundToDType(amax > 0.0 ? amax / qmax : 1.0, DType::F32);
        scales[static_cast<size_t>(j * groups + g)] = scale;
        for (int64_t p = 0; p < groupSize; ++p)
          q[static_cast<size_t>(j * k + g * groupSize + p)] =
              std::clamp(std::nearbyint(w[p] / scale), grouped ? -8.0 : -127.0, qmax);
      }
    Value *qValue = addConstant(linear, "q", tensorOf(DType::I8, {n, k}, q));
    Value *scaleValue = addConstant(linear, "scales", tensorOf(DType::F32, {n, groups}, scales));
    std::vector<Value *> operands{linear->operand(0), qValue, scaleValue};
    if (linear->numOperands() > 2)
      operands.push_back(linear->operand(2));
    ir::AttrMap attrs;
    attrs.set("bits", int64_t(8));
    attrs.set("has_zeros", false);
    Node *replacement = graph_.insertNodeBefore(linear, OpKind::LinearWq, std::move(operands),
                                                {linear->result()->type()}, std::move(attrs));
    replaceNode(graph_, linear, replacement);
    if (grouped && activations)
      dynamic_.insert(replacement);
    bytesSaved_ += n * k * static_cast<int64_t>(ir::dtypeSize(weight->type().dtype)) -
                   n * k - n * groups * 4;
    dropIfUnused(weight);
    ++quantized_;
    return true;
  }

  /// (3): zero points that are all zero (PT2E's symmetric weights) are dropped, so that the
  /// kernels skip them (the integer GEMM of a quantized x needs none). Returns the node that
  /// replaces `linear`, or `linear`.
  Expected<Node *> dropZeroZeros(Node *linear) {
    const OpKind op = linear->op();
    if (!ir::attr::has_zeros(*linear))
      return linear;
    Value *zeros = linear->operand(3);
    if (!isWeightInput(zeros))
      return linear;
    TC_ASSIGN_OR_RETURN(std::optional<std::vector<double>> values,
                        weightValues(graph_, context_, *zeros));
    if (!values || std::any_of(values->begin(), values->end(), [](double v) { return v != 0; }))
      return linear;
    std::vector<Value *> operands = linear->operands();
    operands.erase(operands.begin() + 3);
    ir::AttrMap attrs = linear->attrs();
    attrs.set("has_zeros", false);
    Node *replacement = graph_.insertNodeBefore(linear, op, std::move(operands),
                                                {linear->result()->type()}, std::move(attrs));
    replaceNode(graph_, linear, replacement);
    dropIfUnused(zeros);
    ++zerosDropped_;
    return replacement;
  }

  /// (2): an int8 linear_wq whose weight values all fit 4 bits gets the packed layout (not
  /// one with a quantized x: its integer GEMM reads int8 weights).
  Expected<bool> pack(Node *linear) {
    Value *q = linear->operand(1);
    std::optional<std::vector<int64_t>> dims = staticShape(q);
    if (ir::attr::bits(*linear) != 8 || ir::attr::x_scale(*linear) || !isWeightInput(q) ||
        !dims || (*dims)[1] % 32 != 0)
      return false;
    TC_ASSIGN_OR_RETURN(std::optional<std::vector<double>> values,
                        weightValues(graph_, context_, *q));
    if (!values || std::any_of(values->begin(), values->end(),
                               [](double v) { return v < -8.0 || v > 7.0; }))
      return false;
    const int64_t n = (*dims)[0], k = (*dims)[1];
    std::vector<double> bytes(static_cast<size_t>(n * k / 2));
    for (int64_t j = 0; j < n; ++j)
      for (int64_t b = 0; b < k / 32; ++b)
        for (int64_t lane = 0; lane < 16; ++lane) {
          const double *row = values->data() + j * k + b * 32;
          auto low = static_cast<int64_t>(row[lane]) + 8;
          auto high = static_cast<int64_t>(row[lane + 16]) + 8;
          bytes[static_cast<size_t>(j * (k / 2) + b * 16 + lane)] =
              static_cast<double>(low | (high << 4));
        }
    Value *packed = addConstant(linear, "q4", tensorOf(DType::U8, {n, k / 2}, bytes));
    linear->setOperand(1, packed);
    linear->attrs().set("bits", int64_t(4));
    if (dynamic_.count(linear))
      linear->attrs().set("dynamic_act", true);
    bytesSaved_ += n * k / 2;
    dropIfUnused(q);
    ++packed_;
    return true;
  }

  void addStatistics() const {
    if (quantized_ > 0)
      context_.statistics["quantize-weights.quantized"] += quantized_;
    if (packed_ > 0)
      context_.statistics["quantize-weights.packed"] += packed_;
    if (quantized_ + packed_ > 0)
      context_.statistics["quantize-weights.bytes-saved"] += bytesSaved_;
    if (zerosDropped_ > 0)
      context_.statistics["quantize-weights.zeros-dropped"] += zerosDropped_;
  }

private:
  Value *addConstant(const Node *user, const std::string &what, ir::HostTensor data) {
    std::string base = (user->result()->name().empty() ? std::string("linear")
                                                       : user->result()->name()) + "." + what;
    std::string weightName = "quantized." + base;
    for (int suffix = 1; names_.count(weightName) || graph_.constantData(weightName); ++suffix)
      weightName = "quantized." + base + "_" + std::to_string(suffix);
    names_.insert(weightName);
    std::string name = weightName;
    std::replace(name.begin(), name.end(), '.', '_');
    return graph_.addConstant(name, weightName, std::move(data));
  }

  void dropIfUnused(Value *input) {
    if (input->isGraphInput() && !input->hasUses() && !graph_.isOutput(input))
      graph_.eraseInput(input);
  }

  ir::Graph &graph_;
  PassContext &context_;
  std::set<std::string> names_;
  std::set<const Node *> dynamic_; ///< int4 layers whose activations get quantized too
  int64_t quantized_ = 0;
  int64_t packed_ = 0;
  int64_t zerosDropped_ = 0;
  int64_t bytesSaved_ = 0;
};

class QuantizeWeightsPass final : public Pass {
public:
  std::string_view name() const override { return "quantize-weights"; }
  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    WeightQuantizer quantizer(graph, context);
    bool changed = false;
    std::vector<Node *> nodes;
    for (const auto &node : graph.nodes())
      nodes.push_back(node.get());
    for (Node *node : nodes) {
      if (node->op() == OpKind::Linear && context.quantizeWeightBits != 0) {
        TC_ASSIGN_OR_RETURN(bool done, quantizer.quantize(node, context.quantizeWeightBits,
                                                          context.quantizeActivations));
        changed |= done;
      }
    }
    nodes.clear();
    for (const auto &node : graph.nodes())
      if (node->op() == OpKind::LinearWq || node->op() == OpKind::Conv2dWq)
        nodes.push_back(node.get());
    for (Node *node : nodes) {
      TC_ASSIGN_OR_RETURN(Node * quantized, quantizer.dropZeroZeros(node));
      changed |= quantized != node;
      if (quantized->op() == OpKind::LinearWq) {
        TC_ASSIGN_OR_RETURN(bool done, quantizer.pack(quantized));
        changed |= done;
      }
    }
    quantizer.addStatistics();
    return changed;
  }
};

} // namespace

std::unique_ptr<Pass> createQuantizedLinearPass() {
  return std::make_unique<QuantizedLinearPass>();
}

std::unique_ptr<Pass> createQuantizeWeightsPass() {
  return std::make_unique<QuantizeWeightsPass>();
}

} // namespace thunderc::opt
