// One canonical op set for both IR levels: the training IR keeps composite ops (linear,
// adaptive_avg_pool2d, hardswish) that the core-ATen IR spells out as several primitives.
// This pass rewrites the spelled-out forms back into the single op the backend handles best,
// so both exports of one model compile to the same code. Algorithm:
//   1. Sweep the nodes in topological order (over a snapshot) and try each rule with the node
//      as the *root*: the last node of a pattern, whose result the replacement takes over.
//   2. Patterns look through no-op nodes (copy, and views or casts to their operand's own
//      type), which the core IR leaves around matmuls. Nodes inside a pattern whose result is
//      replaced must have no other users, so that a rewrite never duplicates work; views of
//      weights (the permute in x @ w^T) may be shared, since reading w directly costs nothing.
//   3. A replacement is built just before the root with ir::inferResultTypes and only used
//      when its type equals the root's exactly; it takes over the root's name, source and
//      result name. The root and the pattern nodes left dead are erased.
//   4. Sweep again until nothing changes (rules feed each other: addmm becomes linear, which
//      the reshape rule then widens back to the un-flattened input). Report a change iff some
//      rule fired; each firing counts in "canonicalize.<rule>".
// Rules (w is a 2-D weight, b a 1-D bias with one entry per output feature):
//   addmm-to-linear:   addmm(b, x, permute(w, [1,0])) {alpha=1, beta=1}   -> linear(x, w, b)
//   matmul-to-linear:  matmul(x, permute(w, [1,0])), also when that permute is expanded to
//                      x's batch dims (torch.matmul broadcasts them anyway) -> linear(x, w)
//   linear-bias:       add(linear(x, w), b) or add(b, linear(x, w))          -> linear(x, w, b)
//   linear-unflatten:  reshape(linear(reshape(x, [M,K]), w, b?), [..., N]) where x is
//                      [..., K] and the outer shape is x's leading dims + [N] -> linear(x, w, b?)
//   pool-to-mean:      adaptive_avg_pool2d(x) {output_size=[1,1]}  -> mean over H, W, keepdim
//   hardswish:         x * clamp(x + 3, 0, 6) / 6                   -> hardswish(x)
//   hardsigmoid:       clamp(x + 3, 0, 6) / 6                       -> hardsigmoid(x)
//   (clamp(_, 0, 6) may also be spelled as clamp{max=6}(clamp{min=0}(_)) or with relu.)
//   sdpa:              core ATen's math-path decomposition of scaled_dot_product_attention
//                      -> attention(q, k, v, mask?) {is_causal, scale?}; see
//                      canonicalize_attention.cpp
#include "optimizer/canonicalize.h"

#include <optional>
#include <string>
#include <vector>

#include "ir/op_attributes.h"
#include "ir/shape_inference.h"
#include "optimizer/canonicalize_attention.h"
#include "optimizer/rewrite.h"

namespace thunderc::opt {
namespace {

using ir::Node;
using ir::OpKind;
using ir::Value;

// ---- matching helpers ----

/// The producer of `value` after skipping no-ops, if it is `op`; shared values allowed.
Node *producerThrough(Value *value, OpKind op) {
  Node *producer = skipNoOps(value)->producer();
  return producer != nullptr && producer->op() == op ? producer : nullptr;
}

std::optional<double> fullValue(Value *value) {
  const Node *producer = skipNoOps(value)->producer();
  if (producer == nullptr || producer->op() != OpKind::Full)
    return std::nullopt;
  return ir::attr::value(*producer);
}

bool isFullOf(Value *value, double constant) {
  std::optional<double> filled = fullValue(value);
  return filled.has_value() && *filled == constant;
}

/// w when `value` is permute(w, [1,0]) of a 2-D w, looking through no-ops.
Value *transposedWeight(Value *value) {
  Node *permute = producerThrough(value, OpKind::Permute);
  if (permute == nullptr || permute->operand(0)->type().rank() != 2)
    return nullptr;
  std::vector<int64_t> dims = ir::attr::dims(*permute);
  bool isTranspose = dims.size() == 2 && dims[0] != dims[1] && (dims[0] == 1 || dims[0] == -1);
  return isTranspose ? permute->operand(0) : nullptr;
}

/// A bias for linear(x, w): 1-D with exactly w's number of output features.
bool isLinearBias(const Value *bias, const Value *weight) {
  const ir::TensorType &type = bias->type();
  return type.rank() == 1 && type.shape[0] == weight->type().shape[0];
}

/// linear(x, w) reads x's last dim against w's second; symbolic dims must match exactly,
/// since shape inference accepts dims that merely may be equal.
bool innerDimsMatch(const Value *input, const Value *weight) {
  return input->type().rank() >= 1 && input->type().shape.back() == weight->type().shape[1];
}

class Canonicalizer {
public:
  Canonicalizer(ir::Graph &graph, PassContext &context) : graph_(graph), context_(context) {}

  bool run() {
    return rewriteToFixedPoint(graph_, context_, "canonicalize",
                               [this](Node *node) { return rewrite(node); });
  }

private:
  /// Tries every rule rooted at `node`; returns the name of the one that fired.
  std::optional<std::string> rewrite(Node *node) {
    switch (node->op()) {
    case OpKind::Addmm:
      return addmmToLinear(node);
    case OpKind::Matmul:
      if (auto rule = matmulToLinear(node))
        return rule;
      return sdpa(node);
    case OpKind::Add:
      return linearBias(node);
    case OpKind::Reshape:
      if (auto rule = linearUnflatten(node))
        return rule;
      return sdpa(node);
    case OpKind::AdaptiveAvgPool2d:
      return poolToMean(node);
    case OpKind::Div:
      if (auto rule = hardswish(node))
        return rule;
      return hardsigmoid(node);
    default:
      return std::nullopt;
    }
  }

  /// Builds `op(operands)` before `root` and, if its inferred type is exactly the root's,
  /// replaces the root with it. Returns false (and leaves the graph alone) otherwise.
  bool replaceWith(Node *root, OpKind op, std::vector<Value *> operands, ir::AttrMap attrs = {}) {
    std::vector<ir::TensorType> operandTypes;
    for (const Value *operand : operands)
      operandTypes.push_back(operand->type());
    std::vector<ir::TensorType> declared{root->result()->type()};
    auto inferred = ir::inferResultTypes(op, operandTypes, attrs, declared);
    if (!inferred.ok() || inferred.value() != declared)
      return false;
    Node *replacement =
        graph_.insertNodeBefore(root, op, std::move(operands), declared, std::move(attrs));
    replaceNode(graph_, root, replacement);
    return true;
  }

  std::optional<std::string> addmmToLinear(Node *addmm) {
    if (ir::attr::alpha(*addmm) != 1.0 || ir::attr::beta(*addmm) != 1.0)
      return std::nullopt;
    Value *bias = skipNoOps(addmm->operand(0));
    Value *input = skipNoOps(addmm->operand(1));
    Value *weight = transposedWeight(addmm->operand(2));
    if (weight == nullptr || !isLinearBias(bias, weight) || !innerDimsMatch(input, weight))
      return std::nullopt;
    if (!replaceWith(addmm, OpKind::Linear, {input, weight, bias}))
      return std::nullopt;
    return "addmm-to-linear";
  }

  std::optional<std::string> matmulToLinear(Node *matmul) {
    Value *input = skipNoOps(matmul->operand(0));
    Value *rhs = skipNoOps(matmul->operand(1));
    // torch.matmul broadcasts batch dims, so an expand that only adds batch dims to a matrix
    // changes nothing; replaceWith's type check rejects one that would widen the result.
    if (Node *expand = rhs->producer(); expand != nullptr && expand->op() == OpKind::Expand) {
      const ir::Shape &from = expand->operand(0)->type().shape;
      const ir::Shape &to = expand->result()->type().shape;
      bool onlyBatchDims = from.size() == 2 && from[0] == to[to.size() - 2] && from[1] == to.back();
      if (!onlyBatchDims)
        return std::nullopt;
      rhs = expand->operand(0);
    }
    Value *weight = transposedWeight(rhs);
    if (weight == nullptr || !innerDimsMatch(input, weight))
      return std::nullopt;
    if (!replaceWith(matmul, OpKind::Linear, {input, weight}))
      return std::nullopt;
    return "matmul-to-linear";
  }

  std::optional<std::string> linearBias(Node *add) {
    for (int side = 0; side < 2; ++side) {
      Node *linear = soleProducer(graph_, add->operand(side), OpKind::Linear);
      Value *bias = skipNoOps(add->operand(1 - side));
      if (linear == nullptr || linear->numOperands() != 2 ||
          !isLinearBias(bias, linear->operand(1)))
        continue;
      if (replaceWith(add, OpKind::Linear, {linear->operand(0), linear->operand(1), bias}))
        return "linear-bias";
    }
    return std::nullopt;
  }

  std::optional<std::string> linearUnflatten(Node *reshape) {
    Node *linear = soleProducer(graph_, reshape->operand(0), OpKind::Linear);
    if (linear == nullptr)
      return std::nullopt;
    Node *flatten = producerThrough(linear->operand(0), OpKind::Reshape);
    if (flatten == nullptr || flatten->result()->type().rank() != 2)
      return std::nullopt;
    // Flattening the leading dims keeps every row of x intact only if the last dim stays.
    Value *input = flatten->operand(0);
    Value *weight = linear->operand(1);
    if (!innerDimsMatch(input, weight) || !innerDimsMatch(flatten->result(), weight))
      return std::nullopt;
    std::vector<Value *> operands = linear->operands();
    operands[0] = input;
    if (!replaceWith(reshape, OpKind::Linear, operands))
      return std::nullopt;
    return "linear-unflatten";
  }

  std::optional<std::string> sdpa(Node *root) {
    if (!recomposeAttention(graph_, root))
      return std::nullopt;
    return "sdpa";
  }

  std::optional<std::string> poolToMean(Node *pool) {
    if (ir::attr::output_size(*pool) != std::vector<int64_t>{1, 1})
      return std::nullopt;
    int64_t rank = pool->operand(0)->type().rank();
    ir::AttrMap attrs;
    attrs.set("dims", std::vector<int64_t>{rank - 2, rank - 1});
    attrs.set("keepdim", true);
    if (!replaceWith(pool, OpKind::Mean, {pool->operand(0)}, attrs))
      return std::nullopt;
    return "pool-to-mean";
  }

  /// x when `value` is relu6(x + 3) and every node of it is read only by the next. relu6 may
  /// be one clamp{min=0, max=6} or two bounds in either order (clamp{min=0} or relu, and
  /// clamp{max=6}): min(max(y, 0), 6) == max(min(y, 6), 0) since 0 < 6.
  Value *relu6OfXPlus3(Value *value) {
    std::optional<double> min;
    std::optional<double> max;
    for (int bound = 0; bound < 2 && !(min && max); ++bound) {
      Node *node = soleProducer(graph_, value, OpKind::Clamp);
      if (node == nullptr)
        node = soleProducer(graph_, value, OpKind::Relu);
      if (node == nullptr)
        break;
      bool relu = node->op() == OpKind::Relu;
      std::optional<double> nodeMin = relu ? std::optional<double>(0.0) : ir::attr::min(*node);
      std::optional<double> nodeMax = relu ? std::nullopt : ir::attr::max(*node);
      if ((min && nodeMin) || (max && nodeMax))
        return nullptr; // a bound given twice: not a plain relu6
      min = min ? min : nodeMin;
      max = max ? max : nodeMax;
      value = node->operand(0);
    }
    if (min != 0.0 || max != 6.0)
      return nullptr;
    Node *add = soleProducer(graph_, value, OpKind::Add);
    if (add == nullptr)
      return nullptr;
    for (int side = 0; side < 2; ++side) {
      Value *x = add->operand(side);
      if (isFullOf(add->operand(1 - side), 3.0) && x->type() == add->result()->type())
        return x;
    }
    return nullptr;
  }

  std::optional<std::string> hardswish(Node *div) {
    if (!isFullOf(div->operand(1), 6.0))
      return std::nullopt;
    Node *mul = soleProducer(graph_, div->operand(0), OpKind::Mul);
    if (mul == nullptr)
      return std::nullopt;
    for (int side = 0; side < 2; ++side) {
      Value *x = mul->operand(side);
      if (relu6OfXPlus3(mul->operand(1 - side)) != x)
        continue;
      if (replaceWith(div, OpKind::Hardswish, {x}))
        return "hardswish";
    }
    return std::nullopt;
  }

  std::optional<std::string> hardsigmoid(Node *div) {
    if (!isFullOf(div->operand(1), 6.0))
      return std::nullopt;
    Value *x = relu6OfXPlus3(div->operand(0));
    if (x == nullptr || !replaceWith(div, OpKind::Hardsigmoid, {x}))
      return std::nullopt;
    return "hardsigmoid";
  }

  ir::Graph &graph_;
  PassContext &context_;
};

class CanonicalizePass final : public Pass {
public:
  std::string_view name() const override { return "canonicalize"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    return Canonicalizer(graph, context).run();
  }
};

} // namespace

std::unique_ptr<Pass> createCanonicalizePass() { return std::make_unique<CanonicalizePass>(); }

} // namespace thunderc::opt
