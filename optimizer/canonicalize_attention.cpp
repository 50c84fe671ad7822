// The "sdpa" rule of canonicalize. Core ATen has no attention op: torch.export spells
// F.scaled_dot_product_attention as its math path, which the training IR keeps as one
// `attention` node. Recomposing it lets both exports compile to the same code (the backend's
// fused attention instead of two batched matmuls, a softmax and four guard ops). Algorithm:
//   1. From the root (the reshape that un-flattens the second batched matmul, or that matmul
//      when there is no flattening), read the pattern backwards:
//        s_q, s_k: 0-d `full` constants; B: batch dims, flattened to one around each matmul
//        scores = unflatten(matmul(flatten(mul(q, s_q)), flatten(mul(kT, s_k))))   [B, L, S]
//        scores = add(scores, mask)                     (optional, additive mask)
//        guard  = logical_not(any(logical_not(eq(scores, -inf)), dims=[-1], keepdim))
//        probs  = where(guard, full 0, softmax(scores, dim=-1))
//        root   = unflatten(matmul(flatten(probs), flatten(v)))                   [B, L, Ev]
//      Every intermediate is read only by the next node of the pattern (scores by both the
//      softmax and the eq), so the rewrite never duplicates work. The flattens only merge
//      the batch dims, which must be the same B for every operand (no broadcasting).
//   2. The guard is _safe_softmax's: a row whose scores are all -inf becomes zeros instead of
//      NaN. `attention` does exactly that in the interpreter and the CUDA kernel, so with the
//      guard present the two agree on every row, masked or not, NaN and +inf included; a
//      softmax without the guard is not recomposed.
//   3. The scale is s_q * s_k (PyTorch multiplies q and k^T by sqrt(scale) each), taken from
//      the `full` attributes in double. It is left out (the default 1/sqrt(E)) when within 4
//      double ulps of it, since sqrt(x)^2 rounds; otherwise it becomes the `scale` attribute.
//      (The decomposition itself multiplies by s rounded to the tensors' dtype, so it is the
//      one off by a rounding step.) Non-finite or zero scales are not touched.
//   4. A mask of the form where(le(sub(arange_S[None, :], arange_L[:, None]), 0) [and true],
//      0, -inf) keeps j <= i, which is is_causal=true; any other mask of the scores' dtype
//      becomes attention's additive mask operand.
//   5. k is kT with its last two dims swapped: the permute producing kT is re-derived from
//      its source (and dropped when it becomes the identity), else a new permute is added.
//      The attention node's inferred type must equal the root's; it takes over the root's
//      name and source (replaceNode), and the pattern nodes left dead are erased.
// The result equals the decomposition up to floating-point rounding (attention scales the
// dot product once, in the backend's precision, instead of scaling q and k in theirs).
#include "optimizer/canonicalize_attention.h"

#include <cfloat>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "ir/op_attributes.h"
#include "ir/shape_inference.h"
#include "optimizer/rewrite.h"

namespace thunderc::opt {
namespace {

using ir::Dim;
using ir::Node;
using ir::OpKind;
using ir::Shape;
using ir::Value;

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// ---- matching helpers ----

/// `value` with the no-ops skipped that only the next node of the chain reads.
Value *skipSoleNoOps(const ir::Graph &graph, Value *value) {
  while (hasSoleUse(graph, value) && value->producer() != nullptr &&
         isNoOp(*value->producer()))
    value = value->producer()->operand(0);
  return value;
}

/// The value of a 0-d (or otherwise single-valued) `full` constant; may be shared.
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

bool isLastDim(int64_t dim, int64_t rank) { return dim == -1 || dim == rank - 1; }

Shape withLastTwo(const Shape &batch, const Dim &rows, const Dim &columns) {
  Shape shape = batch;
  shape.push_back(rows);
  shape.push_back(columns);
  return shape;
}

/// `reshape` keeps the last two dims, so (being valid) it only merges or splits batch dims.
bool keepsMatrices(const Node &reshape) {
  const Shape &from = reshape.operand(0)->type().shape;
  const Shape &to = reshape.result()->type().shape;
  return from.size() >= 2 && to.size() >= 2 && from.end()[-1] == to.end()[-1] &&
         from.end()[-2] == to.end()[-2];
}

/// `value` before a sole-use reshape that only merges batch dims, or `value` itself when no
/// reshape produces it, with sole-use no-ops skipped on both sides. nullptr when a reshape
/// does something else or is shared.
Value *unflattened(const ir::Graph &graph, Value *value) {
  value = skipSoleNoOps(graph, value);
  Node *reshape = value->producer();
  if (reshape == nullptr || reshape->op() != OpKind::Reshape)
    return value;
  if (!hasSoleUse(graph, value) || !keepsMatrices(*reshape))
    return nullptr;
  return skipSoleNoOps(graph, reshape->operand(0));
}

/// The matmul producing `value`, directly or through a reshape that only splits batch dims
/// of the matmul's sole-use result. Whether `value` itself is shared is the caller's check.
Node *batchedMatmul(const ir::Graph &graph, Value *value) {
  Node *producer = value->producer();
  if (producer == nullptr)
    return nullptr;
  if (producer->op() == OpKind::Matmul)
    return producer;
  if (producer->op() != OpKind::Reshape || !keepsMatrices(*producer))
    return nullptr;
  return soleProducer(graph, producer->operand(0), OpKind::Matmul);
}

/// x and s when `value` is a sole-use mul(x, full s) or mul(full s, x) that keeps x's type.
std::optional<std::pair<Value *, double>> scaledOperand(const ir::Graph &graph, Value *value) {
  Node *mul = soleProducer(graph, value, OpKind::Mul);
  if (mul == nullptr)
    return std::nullopt;
  for (int side = 0; side < 2; ++side) {
    Value *input = mul->operand(side);
    std::optional<double> scale = fullValue(mul->operand(1 - side));
    if (scale && input->type() == mul->result()->type())
      return std::make_pair(input, *scale);
  }
  return std::nullopt;
}

/// `value` is arange(start=0, step=1) unsqueezed to `shape` ([1, n] or [n, 1]).
bool isUnsqueezedIndexRange(const Value *value, const Shape &shape) {
  const Node *unsqueeze = value->producer();
  if (unsqueeze == nullptr || unsqueeze->op() != OpKind::Unsqueeze || value->type().shape != shape)
    return false;
  const Node *arange = unsqueeze->operand(0)->producer();
  return arange != nullptr && arange->op() == OpKind::Arange &&
         ir::attr::arange_start(*arange) == 0.0 && ir::attr::arange_step(*arange) == 1.0;
}

/// `mask` is the additive causal mask of scores [..., L, S]: 0 where column j <= row i,
/// -inf elsewhere, spelled where(le(sub(arange_S[None, :], arange_L[:, None]), 0), 0, -inf),
/// possibly with the condition and-ed with an all-true `full`.
bool isCausalMask(const Value *mask, const Dim &queries, const Dim &keys) {
  const Node *where = mask->producer();
  if (where == nullptr || where->op() != OpKind::Where ||
      mask->type().shape != Shape{queries, keys} || !isFullOf(where->operand(1), 0.0) ||
      !isFullOf(where->operand(2), -kInfinity))
    return false;
  const Value *condition = where->operand(0);
  while (condition->producer() != nullptr && condition->producer()->op() == OpKind::LogicalAnd) {
    const Node *both = condition->producer();
    if (isFullOf(both->operand(1), 1.0))
      condition = both->operand(0);
    else if (isFullOf(both->operand(0), 1.0))
      condition = both->operand(1);
    else
      return false;
  }
  const Node *le = condition->producer();
  if (le == nullptr || le->op() != OpKind::Le || !isFullOf(le->operand(1), 0.0))
    return false;
  const Node *sub = le->operand(0)->producer();
  return sub != nullptr && sub->op() == OpKind::Sub &&
         isUnsqueezedIndexRange(sub->operand(0), Shape{Dim(1), keys}) &&
         isUnsqueezedIndexRange(sub->operand(1), Shape{queries, Dim(1)});
}

/// The scores behind _safe_softmax's guard logical_not(any(logical_not(eq(x, -inf)),
/// dims=[-1], keepdim=true)); nullptr unless `guard` is exactly that, read only in the chain.
Value *guardedScores(const ir::Graph &graph, Value *guard) {
  Node *outerNot = soleProducer(graph, guard, OpKind::LogicalNot);
  if (outerNot == nullptr)
    return nullptr;
  Node *any = soleProducer(graph, outerNot->operand(0), OpKind::Any);
  if (any == nullptr || !ir::attr::keepdim(*any))
    return nullptr;
  std::vector<int64_t> dims = ir::attr::dims(*any);
  if (dims.size() != 1 || !isLastDim(dims[0], any->operand(0)->type().rank()))
    return nullptr;
  Node *innerNot = soleProducer(graph, any->operand(0), OpKind::LogicalNot);
  if (innerNot == nullptr)
    return nullptr;
  Node *eq = soleProducer(graph, innerNot->operand(0), OpKind::Eq);
  if (eq == nullptr)
    return nullptr;
  // The -inf must not broadcast the comparison beyond the scores' own shape.
  for (int side = 0; side < 2; ++side) {
    Value *scores = eq->operand(side);
    if (isFullOf(eq->operand(1 - side), -kInfinity) &&
        scores->type().shape == eq->result()->type().shape)
      return scores;
  }
  return nullptr;
}

/// What the pattern's scores side yields for the attention node.
struct Scores {
  Value *query = nullptr;
  Value *keyTransposed = nullptr;
  Value *mask = nullptr;
  double scale = 0.0;
};

/// Matches scores = [add(] unflatten(matmul(flatten(q * s), flatten(kT * s))) [, mask)] of
/// shape batch + [L, S]; `scores` itself is read by the softmax and the guard's eq.
std::optional<Scores> matchScores(const ir::Graph &graph, Value *scores, const Shape &batch) {
  if (scores->uses().size() != 2 || graph.isOutput(scores))
    return std::nullopt;
  Scores matched;
  Value *product = scores;
  if (Node *add = scores->producer(); add != nullptr && add->op() == OpKind::Add) {
    for (int side = 0; side < 2 && product == scores; ++side) {
      Value *raw = add->operand(side);
      Value *mask = add->operand(1 - side);
      // The mask must not widen the scores, and must be additive: attention reads a bool
      // mask as keep/drop (add itself requires equal dtypes today).
      if (raw->type() == scores->type() && mask->type().dtype == scores->type().dtype &&
          hasSoleUse(graph, raw) && batchedMatmul(graph, raw) != nullptr) {
        product = raw;
        matched.mask = mask;
      }
    }
    if (product == scores)
      return std::nullopt;
  }
  Node *matmul = batchedMatmul(graph, product);
  if (matmul == nullptr)
    return std::nullopt;
  Value *scaledQuery = unflattened(graph, matmul->operand(0));
  Value *scaledKey = unflattened(graph, matmul->operand(1));
  if (scaledQuery == nullptr || scaledKey == nullptr)
    return std::nullopt;
  auto query = scaledOperand(graph, scaledQuery);
  auto key = scaledOperand(graph, scaledKey);
  if (!query || !key)
    return std::nullopt;
  const Shape &scoreShape = scores->type().shape;
  const Shape &queryShape = query->first->type().shape;
  const Shape &keyShape = key->first->type().shape;
  if (queryShape.size() < 2 || scoreShape.size() < 2)
    return std::nullopt;
  const Dim &depth = queryShape.back();
  if (queryShape != withLastTwo(batch, scoreShape.end()[-2], depth) ||
      keyShape != withLastTwo(batch, depth, scoreShape.back()) ||
      query->first->type().dtype != scores->type().dtype ||
      key->first->type().dtype != scores->type().dtype)
    return std::nullopt;
  matched.query = query->first;
  matched.keyTransposed = key->first;
  matched.scale = query->second * key->second;
  return matched;
}

/// Dims 0..rank-1 with the last two swapped.
std::vector<int64_t> lastTwoSwapped(int64_t rank) {
  std::vector<int64_t> dims;
  for (int64_t dim = 0; dim < rank; ++dim)
    dims.push_back(dim);
  std::swap(dims[rank - 1], dims[rank - 2]);
  return dims;
}

bool isIdentity(const std::vector<int64_t> &dims) {
  for (size_t dim = 0; dim < dims.size(); ++dim) {
    if (dims[dim] != static_cast<int64_t>(dim))
      return false;
  }
  return true;
}

/// How to get k from kT: a permute of `source` by `dims`, or `source` itself when empty.
struct KeyFromTransposed {
  Value *source = nullptr;
  std::vector<int64_t> dims;
};

KeyFromTransposed keyFromTransposed(Value *keyTransposed) {
  int64_t rank = keyTransposed->type().rank();
  std::vector<int64_t> swap = lastTwoSwapped(rank);
  Node *permute = keyTransposed->producer();
  if (permute == nullptr || permute->op() != OpKind::Permute)
    return {keyTransposed, swap};
  // k = permute(kT, swap) = permute(source, dims[swap[i]]).
  std::vector<int64_t> dims = ir::attr::dims(*permute);
  std::vector<int64_t> composed;
  for (int64_t index : swap)
    composed.push_back(dims[index] < 0 ? dims[index] + rank : dims[index]);
  if (isIdentity(composed))
    return {permute->operand(0), {}};
  return {permute->operand(0), composed};
}

} // namespace

bool recomposeAttention(ir::Graph &graph, Node *root) {
  // Step 1, value side: root = unflatten(matmul(flatten(probs), flatten(v))).
  Node *matmul = root->op() == OpKind::Matmul ? root : batchedMatmul(graph, root->result());
  if (matmul == nullptr || (root->op() != OpKind::Matmul && root->op() != OpKind::Reshape))
    return false;
  Value *probs = unflattened(graph, matmul->operand(0));
  Value *value = unflattened(graph, matmul->operand(1));
  if (probs == nullptr || value == nullptr)
    return false;
  const ir::TensorType &resultType = root->result()->type();
  const Shape &result = resultType.shape;
  if (result.size() < 2 || probs->type().rank() != resultType.rank() ||
      value->type().rank() != resultType.rank())
    return false;
  Shape batch(result.begin(), result.end() - 2);
  const Dim &queries = result.end()[-2];
  const Dim &keys = probs->type().shape.back();
  if (probs->type().shape != withLastTwo(batch, queries, keys) ||
      value->type().shape != withLastTwo(batch, keys, result.back()) ||
      probs->type().dtype != resultType.dtype || value->type().dtype != resultType.dtype)
    return false;

  // Step 2: probs = where(guard, 0, softmax(scores, -1)) with _safe_softmax's guard.
  Node *where = soleProducer(graph, probs, OpKind::Where);
  if (where == nullptr || !isFullOf(where->operand(1), 0.0))
    return false;
  Node *softmax = soleProducer(graph, where->operand(2), OpKind::Softmax);
  if (softmax == nullptr || softmax->result()->type() != probs->type() ||
      !isLastDim(ir::attr::dim(*softmax), resultType.rank()))
    return false;
  Value *scores = softmax->operand(0);
  if (scores->type() != probs->type() || guardedScores(graph, where->operand(0)) != scores)
    return false;
  std::optional<Scores> matched = matchScores(graph, scores, batch);
  if (!matched)
    return false;

  // Step 3: the scale.
  double scale = matched->scale;
  if (!std::isfinite(scale) || scale == 0.0)
    return false;
  ir::AttrMap attrs;
  const Dim &depth = matched->query->type().shape.back();
  bool isDefaultScale = false;
  if (depth.isStatic() && depth.value() > 0) {
    double defaultScale = 1.0 / std::sqrt(static_cast<double>(depth.value()));
    isDefaultScale = std::abs(scale - defaultScale) <= 4 * DBL_EPSILON * defaultScale;
  }
  if (!isDefaultScale)
    attrs.set("scale", scale);

  // Step 4: the mask.
  bool isCausal = matched->mask != nullptr && isCausalMask(matched->mask, queries, keys);
  attrs.set("is_causal", isCausal);

  // Step 5: k, then the attention node, checked against the root's type before any insert.
  KeyFromTransposed key = keyFromTransposed(matched->keyTransposed);
  ir::TensorType keyType = matched->keyTransposed->type();
  std::swap(keyType.shape.end()[-1], keyType.shape.end()[-2]);
  std::vector<ir::TensorType> operandTypes{matched->query->type(), keyType, value->type()};
  if (matched->mask != nullptr && !isCausal)
    operandTypes.push_back(matched->mask->type());
  std::vector<ir::TensorType> declared{resultType};
  auto inferred = ir::inferResultTypes(OpKind::Attention, operandTypes, attrs, declared);
  if (!inferred.ok() || inferred.value() != declared)
    return false;

  Value *keyValue = key.source;
  if (!key.dims.empty()) {
    ir::AttrMap permuteAttrs;
    permuteAttrs.set("dims", key.dims);
    keyValue = graph.insertNodeBefore(root, OpKind::Permute, {key.source}, {keyType},
                                      std::move(permuteAttrs))
                   ->result();
  }
  std::vector<Value *> operands{matched->query, keyValue, value};
  if (matched->mask != nullptr && !isCausal)
    operands.push_back(matched->mask);
  Node *attention =
      graph.insertNodeBefore(root, OpKind::Attention, std::move(operands), declared,
                             std::move(attrs));
  replaceNode(graph, root, attention);
  return true;
}

} // namespace thunderc::opt
