// Algebraic simplification: local rewrites that remove work without changing a result.
// Algorithm:
//   1. Sweep the nodes in topological order (over a snapshot, so that nodes created by a rule
//      are seen on the next sweep) and try the rules below on each node; the first rule that
//      fires rewrites it.
//   2. A rule that makes a node redundant points every use of its result (graph outputs
//      included) at the equivalent value, then erases the node and any producers left dead
//      by that, so no extra DCE is needed to see the effect.
//   3. Repeat the sweep until one finds nothing to do (a fixed point); every rule removes a
//      node or shortens a chain, so this terminates.
//   4. Report a change iff some rule fired; each firing counts in "simplify.<rule>".
// Rules (x is the surviving operand; "type" is dtype and shape, compared exactly):
//   add-zero / sub-zero / mul-one / div-one: x + 0, 0 + x, x - 0, x * 1, 1 * x, x / 1, where
//     the constant is a `full` node and the result type equals x's type -> x.
//   cast-same-dtype: a cast whose result type equals its operand's -> x.
//   copy: copy(x) -> x (a copy never changes values; the layout pass adds copies later).
//   view-identity: reshape / squeeze / unsqueeze / expand to x's own type -> x.
//   reshape-chain: a reshape, squeeze or unsqueeze of a reshape, squeeze or unsqueeze -> one
//     reshape of the inner operand (all three are contiguous reshapes).
//   permute-chain / permute-identity: permute of permute -> one permute (or x when the
//     composition is the identity); an identity permute -> x.
//   expand-into-broadcast: a broadcasting elementwise user of expand(x) reads x directly when
//     re-inferring its result type with x gives the same type (NumPy broadcasting does what
//     the expand did); the expand dies once no other user needs it.
#include "optimizer/simplify.h"

#include <optional>
#include <string>
#include <vector>

#include "ir/op_attributes.h"
#include "ir/shape_inference.h"
#include "optimizer/rewrite.h"

namespace thunderc::opt {
namespace {

using ir::Node;
using ir::OpKind;
using ir::Value;

/// The fill value of a `full` node's result, or nullopt for any other value.
std::optional<double> fullValue(const Value *value) {
  const Node *producer = value->producer();
  if (producer == nullptr || producer->op() != OpKind::Full)
    return std::nullopt;
  return ir::attr::value(*producer);
}

bool isFullOf(const Value *value, double constant) {
  std::optional<double> filled = fullValue(value);
  return filled.has_value() && *filled == constant;
}

bool isContiguousReshape(OpKind op) {
  return op == OpKind::Reshape || op == OpKind::Squeeze || op == OpKind::Unsqueeze;
}

bool isIdentityPermutation(const std::vector<int64_t> &dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != static_cast<int64_t>(i))
      return false;
  }
  return true;
}

/// Permute dims with negative entries made non-negative (the verifier has checked the range).
std::vector<int64_t> normalizedPermutation(const Node &permute) {
  std::vector<int64_t> dims = ir::attr::dims(permute);
  int64_t rank = static_cast<int64_t>(dims.size());
  for (int64_t &dim : dims)
    dim = dim < 0 ? dim + rank : dim;
  return dims;
}

/// Replaces the single result of `node` by `value` everywhere and erases what died.
void forward(ir::Graph &graph, Node *node, Value *value) {
  graph.replaceAllUsesWith(node->result(), value);
  eraseIfDead(graph, node);
}

class Simplifier {
public:
  Simplifier(ir::Graph &graph, PassContext &context) : graph_(graph), context_(context) {}

  /// Runs sweeps to a fixed point; returns whether anything changed.
  bool run() {
    return rewriteToFixedPoint(graph_, context_, "simplify",
                               [this](Node *node) { return simplifyNode(node); });
  }

private:
  /// Applies the first rule that fits `node`; returns its name, or nullopt if none did.
  std::optional<std::string> simplifyNode(Node *node) {
    switch (node->op()) {
    case OpKind::Add:
      return simplifyNeutral(node, 0.0, /*commutative=*/true, "add-zero");
    case OpKind::Sub:
      return simplifyNeutral(node, 0.0, /*commutative=*/false, "sub-zero");
    case OpKind::Mul:
      return simplifyNeutral(node, 1.0, /*commutative=*/true, "mul-one");
    case OpKind::Div:
      return simplifyNeutral(node, 1.0, /*commutative=*/false, "div-one");
    case OpKind::Pow:
      return simplifyPow(node);
    case OpKind::Cast:
      return forwardIfSameType(node, "cast-same-dtype");
    case OpKind::Copy:
      forward(graph_, node, node->operand(0));
      return "copy";
    case OpKind::Reshape:
    case OpKind::Squeeze:
    case OpKind::Unsqueeze:
      if (auto rule = forwardIfSameType(node, "view-identity"))
        return rule;
      return simplifyReshapeChain(node);
    case OpKind::Permute:
      return simplifyPermute(node);
    case OpKind::Expand:
      if (auto rule = forwardIfSameType(node, "view-identity"))
        return rule;
      return simplifyExpandIntoBroadcast(node);
    default:
      return std::nullopt;
    }
  }

  /// x op neutral (and neutral op x when commutative) -> x, if the type does not change.
  std::optional<std::string> simplifyNeutral(Node *node, double neutral, bool commutative,
                                             const char *rule) {
    const ir::TensorType &type = node->result()->type();
    Value *lhs = node->operand(0);
    Value *rhs = node->operand(1);
    if (isFullOf(rhs, neutral) && lhs->type() == type) {
      forward(graph_, node, lhs);
      return rule;
    }
    if (commutative && isFullOf(lhs, neutral) && rhs->type() == type) {
      forward(graph_, node, rhs);
      return rule;
    }
    return std::nullopt;
  }

  /// pow(x, c) of an f32/f64 x with a `full` exponent c in {1, 2, 3, 0.5, -0.5, -1, -2} -> x,
  /// x*x, x*x*x, sqrt, rsqrt, reciprocal, reciprocal(x*x): PyTorch's own CPU and CUDA kernels
  /// take exactly these special cases for a scalar exponent (PowKernel), so the result keeps
  /// eager's roundings and no element calls the C library's pow. (f16/bf16 are left alone:
  /// eager computes those in float and rounds once, which separate ops would not.)
  std::optional<std::string> simplifyPow(Node *node) {
    const ir::TensorType &type = node->result()->type();
    Value *x = node->operand(0);
    std::optional<double> exponent = fullValue(node->operand(1));
    if (!exponent || x->type() != type ||
        (type.dtype != ir::DType::F32 && type.dtype != ir::DType::F64))
      return std::nullopt;
    // New nodes carry the pow's source line (reports, debug info).
    auto insert = [&](OpKind op, std::vector<Value *> operands) {
      Node *inserted = graph_.insertNodeBefore(node, op, std::move(operands), {type});
      inserted->source() = node->source();
      return inserted->result();
    };
    Value *replacement = nullptr;
    if (*exponent == 1.0)
      replacement = x;
    else if (*exponent == 2.0)
      replacement = insert(OpKind::Mul, {x, x});
    else if (*exponent == 3.0)
      replacement = insert(OpKind::Mul, {insert(OpKind::Mul, {x, x}), x});
    else if (*exponent == 0.5)
      replacement = insert(OpKind::Sqrt, {x});
    else if (*exponent == -0.5)
      replacement = insert(OpKind::Rsqrt, {x});
    else if (*exponent == -1.0)
      replacement = insert(OpKind::Reciprocal, {x});
    else if (*exponent == -2.0)
      replacement = insert(OpKind::Reciprocal, {insert(OpKind::Mul, {x, x})});
    else
      return std::nullopt;
    forward(graph_, node, replacement);
    return "pow-constant";
  }

  std::optional<std::string> forwardIfSameType(Node *node, const char *rule) {
    if (node->result()->type() != node->operand(0)->type())
      return std::nullopt;
    forward(graph_, node, node->operand(0));
    return rule;
  }

  /// reshape-like(reshape-like(x)) -> reshape(x) to the outer result shape.
  std::optional<std::string> simplifyReshapeChain(Node *node) {
    Node *inner = node->operand(0)->producer();
    if (inner == nullptr || !isContiguousReshape(inner->op()))
      return std::nullopt;
    Value *source = inner->operand(0);
    const ir::TensorType &type = node->result()->type();
    if (source->type() == type) {
      forward(graph_, node, source);
      return "reshape-chain";
    }
    if (node->op() == OpKind::Reshape) { // already the right op: just skip the inner one
      node->setOperand(0, source);
      eraseIfDead(graph_, inner);
      return "reshape-chain";
    }
    ir::AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(type.shape));
    Node *reshape = graph_.insertNodeBefore(node, OpKind::Reshape, {source}, {type}, attrs);
    replaceNode(graph_, node, reshape);
    return "reshape-chain";
  }

  std::optional<std::string> simplifyPermute(Node *node) {
    std::vector<int64_t> outer = normalizedPermutation(*node);
    if (isIdentityPermutation(outer)) {
      forward(graph_, node, node->operand(0));
      return "permute-identity";
    }
    Node *inner = node->operand(0)->producer();
    if (inner == nullptr || inner->op() != OpKind::Permute)
      return std::nullopt;
    // permute(permute(x, p), q)[i] reads x at dim p[q[i]].
    std::vector<int64_t> innerDims = normalizedPermutation(*inner);
    std::vector<int64_t> composed;
    for (int64_t dim : outer)
      composed.push_back(innerDims[static_cast<size_t>(dim)]);
    Value *source = inner->operand(0);
    if (isIdentityPermutation(composed)) {
      forward(graph_, node, source);
      return "permute-chain";
    }
    node->setOperand(0, source);
    node->attrs().set("dims", composed);
    eraseIfDead(graph_, inner);
    return "permute-chain";
  }

  /// Broadcasting users of expand(x) read x when their result type stays the same.
  std::optional<std::string> simplifyExpandIntoBroadcast(Node *expand) {
    Value *source = expand->operand(0);
    std::vector<ir::Use> uses = expand->result()->uses();
    bool rewired = false;
    for (const ir::Use &use : uses) {
      Node *user = use.user;
      if (!ir::hasTrait(user->op(), ir::kBroadcast) || user->numResults() != 1)
        continue;
      std::vector<ir::TensorType> operandTypes;
      for (int i = 0; i < user->numOperands(); ++i)
        operandTypes.push_back(i == use.operandIndex ? source->type() : user->operand(i)->type());
      std::vector<ir::TensorType> declared{user->result()->type()};
      auto inferred = ir::inferResultTypes(user->op(), operandTypes, user->attrs(), declared);
      if (!inferred.ok() || inferred.value() != declared)
        continue;
      user->setOperand(use.operandIndex, source);
      rewired = true;
    }
    if (!rewired)
      return std::nullopt;
    eraseIfDead(graph_, expand);
    return "expand-into-broadcast";
  }

  ir::Graph &graph_;
  PassContext &context_;
};

class SimplifyPass final : public Pass {
public:
  std::string_view name() const override { return "simplify"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    return Simplifier(graph, context).run();
  }
};

} // namespace

std::unique_ptr<Pass> createSimplifyPass() { return std::make_unique<SimplifyPass>(); }

} // namespace thunderc::opt
