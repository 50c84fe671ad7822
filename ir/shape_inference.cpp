// Result types of every op in ir/ops.def: the dispatch, the helpers the op families share,
// and the elementwise, reduction and constant ops. Shape ops live in
// shape_inference_layout.cpp, neural-network ops in shape_inference_nn.cpp.
//
// The rules are PyTorch's (ATen meta functions), restricted to what the IR allows: binary
// operands share a dtype (the importer inserts casts), so the only dtype changes are the ones
// an op itself makes (comparisons -> bool, argmax -> i64, integer sum/prod -> i64, cast), which
// are the dtype rules of ir/ops.def.
#include "ir/shape_inference.h"

#include <algorithm>
#include <numeric>
#include <span>

#include "ir/shape_inference_internal.h"

namespace thunderc::ir {
namespace inference {

std::string intsStr(const std::vector<int64_t> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? "," : "") + std::to_string(values[i]);
  return text + "]";
}

bool isOne(const Dim &dim) { return dim.isStatic() && dim.value() == 1; }

bool mayBeEqual(const Dim &a, const Dim &b) { return a == b || (!a.isStatic() && !b.isStatic()); }

bool isExpandableTo(const Shape &from, const Shape &to) {
  if (from.size() > to.size())
    return false;
  size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (!isOne(from[i]) && !mayBeEqual(from[i], to[offset + i]))
      return false;
  }
  return true;
}

Expected<Shape> broadcastTypes(const TensorType &a, const TensorType &b) {
  Expected<Shape> shape = broadcastShapes(a.shape, b.shape);
  if (!shape.ok())
    return invalidInput("operands " + a.str() + " and " + b.str() + " do not broadcast");
  return shape;
}

Status requireSameDType(const TensorType &a, const TensorType &b) {
  if (a.dtype == b.dtype)
    return Status::success();
  return invalidInput("operand dtypes " + std::string(dtypeName(a.dtype)) + " and " +
                      std::string(dtypeName(b.dtype)) + " differ");
}

Status requireFloating(OpKind op, const TensorType &type) {
  if (isFloatingPoint(type.dtype))
    return Status::success();
  return invalidInput(std::string(opName(op)) + " requires a floating dtype, got " +
                      std::string(dtypeName(type.dtype)));
}

Status requireRank(OpKind op, const char *what, const TensorType &type, int64_t minRank,
                   int64_t maxRank) {
  bool fits = type.rank() >= minRank && (maxRank < 0 || type.rank() <= maxRank);
  if (fits)
    return Status::success();
  std::string expected = maxRank < 0          ? "at least " + std::to_string(minRank)
                         : minRank == maxRank ? std::to_string(minRank)
                         : maxRank == minRank + 1
                             ? std::to_string(minRank) + " or " + std::to_string(maxRank)
                             : std::to_string(minRank) + " to " + std::to_string(maxRank);
  return invalidInput(std::string(opName(op)) + " " + what + " must have rank " + expected +
                      ", got " + type.str());
}

Expected<int64_t> normalizeDimWrapScalar(int64_t dim, int64_t rank) {
  if (rank == 0 && (dim == 0 || dim == -1))
    return int64_t{0};
  return normalizeDim(dim, rank);
}

namespace {

// A term of a sum split as coefficient * rest: 6 -> (6, 1), (s0*4) -> (4, s0), s0 -> (1, s0).
struct Term {
  int64_t coefficient;
  SymExpr rest;
};

Term splitCoefficient(const SymExpr &term) {
  if (term.isConstant())
    return {term.constantValue(), SymExpr::constant(1)};
  if (term.kind() != SymExpr::Kind::Mul || !term.operands().back().isConstant())
    return {1, term};
  // Mul keeps its folded constant last.
  SymExpr rest = SymExpr::constant(1);
  for (size_t i = 0; i + 1 < term.operands().size(); ++i)
    rest = SymExpr::mul(rest, term.operands()[i]);
  return {term.operands().back().constantValue(), rest};
}

std::vector<Term> sumTerms(const SymExpr &expr) {
  std::vector<Term> terms;
  if (expr.kind() != SymExpr::Kind::Add) {
    terms.push_back(splitCoefficient(expr));
    return terms;
  }
  for (const SymExpr &operand : expr.operands())
    terms.push_back(splitCoefficient(operand));
  return terms;
}

SymExpr termExpr(const Term &term) {
  return SymExpr::mul(term.rest, SymExpr::constant(term.coefficient));
}

} // namespace

SymExpr addLikeTerms(const SymExpr &a, const SymExpr &b) {
  // Coefficients keyed by the text of the rest of the term, in first-seen order.
  std::vector<Term> combined;
  for (const SymExpr *side : {&a, &b}) {
    for (const Term &term : sumTerms(*side)) {
      auto same = std::find_if(combined.begin(), combined.end(),
                               [&](const Term &seen) { return seen.rest == term.rest; });
      if (same == combined.end())
        combined.push_back(term);
      else
        same->coefficient += term.coefficient;
    }
  }
  SymExpr sum = SymExpr::constant(0);
  for (const Term &term : combined)
    sum = SymExpr::add(sum, termExpr(term));
  return sum;
}

SymExpr floorDivide(const SymExpr &base, int64_t divisor) {
  TC_CHECK(divisor > 0, "floorDivide by " + std::to_string(divisor));
  if (divisor == 1 || base.isConstant())
    return SymExpr::floorDiv(base, SymExpr::constant(divisor));
  bool nestedConstantDivisor = base.kind() == SymExpr::Kind::FloorDiv &&
                               base.operands()[1].isConstant() &&
                               base.operands()[1].constantValue() > 0;
  if (nestedConstantDivisor)
    return floorDivide(base.operands()[0], base.operands()[1].constantValue() * divisor);

  // (a*d + rest) // d = a + rest // d
  SymExpr quotient = SymExpr::constant(0);
  SymExpr remainder = SymExpr::constant(0);
  bool pulledOut = false;
  for (const Term &term : sumTerms(base)) {
    if (term.coefficient % divisor == 0) {
      quotient = addLikeTerms(quotient, termExpr({term.coefficient / divisor, term.rest}));
      pulledOut = true;
    } else {
      remainder = addLikeTerms(remainder, termExpr(term));
    }
  }
  if (pulledOut)
    return addLikeTerms(floorDivide(remainder, divisor), quotient);

  // (2*s + 4) // 6 = (s + 2) // 3
  int64_t common = divisor;
  for (const Term &term : sumTerms(base))
    common = std::gcd(common, term.coefficient);
  if (common == 1)
    return SymExpr::floorDiv(base, SymExpr::constant(divisor));
  SymExpr reduced = SymExpr::constant(0);
  for (const Term &term : sumTerms(base))
    reduced = SymExpr::add(reduced, termExpr({term.coefficient / common, term.rest}));
  return SymExpr::floorDiv(reduced, SymExpr::constant(divisor / common));
}

namespace {

// ---- elementwise ----

// The operand checks of the op's dtype rule (ir/ops.def): Floating ops need a floating operand,
// Integral ops a bool or integer one.
Status checkOperandDType(OpKind op, const TensorType &operand) {
  if (opInfo(op).dtypeRule == DTypeRule::Floating)
    TC_TRY(requireFloating(op, operand));
  if (opInfo(op).dtypeRule == DTypeRule::Integral && isFloatingPoint(operand.dtype))
    return invalidInput(std::string(opName(op)) + " requires a bool or integer dtype, got " +
                        std::string(dtypeName(operand.dtype)));
  return Status::success();
}

Expected<TensorType> inferUnary(OpKind op, const TensorType &x, const AttrMap &attrs) {
  TC_TRY(checkOperandDType(op, x));
  if (op == OpKind::Gelu) {
    const std::string &approximate = attr::approximate(attrs);
    if (approximate != "none" && approximate != "tanh")
      return invalidInput("gelu approximate must be \"none\" or \"tanh\", got \"" + approximate +
                          "\"");
  }
  return TensorType{ruleResultDType(op, x.dtype, attrs), x.shape};
}

Expected<TensorType> inferBinary(OpKind op, const TensorType &a, const TensorType &b,
                                 const AttrMap &attrs) {
  TC_TRY(requireSameDType(a, b));
  TC_TRY(checkOperandDType(op, a));
  TC_ASSIGN_OR_RETURN(Shape shape, broadcastTypes(a, b));
  return TensorType{ruleResultDType(op, a.dtype, attrs), std::move(shape)};
}

Expected<TensorType> inferWhere(const TensorType &condition, const TensorType &a,
                                const TensorType &b) {
  if (condition.dtype != DType::Bool)
    return invalidInput("where condition must be bool, got " + condition.str());
  TC_TRY(requireSameDType(a, b));
  TC_ASSIGN_OR_RETURN(Shape shape, broadcastTypes(condition, a));
  TC_ASSIGN_OR_RETURN(shape, broadcastTypes(TensorType{a.dtype, shape}, b));
  return TensorType{a.dtype, std::move(shape)};
}

// ---- reductions ----

// Which dims `dims` reduces: all when empty; negative dims wrap; a repeat is an error.
Expected<std::vector<bool>> reducedDimMask(const std::vector<int64_t> &dims, int64_t rank) {
  std::vector<bool> reduced(static_cast<size_t>(rank), dims.empty());
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 1)), false);
  for (int64_t dim : dims) {
    TC_ASSIGN_OR_RETURN(int64_t index, normalizeDimWrapScalar(dim, rank));
    if (seen[static_cast<size_t>(index)])
      return invalidInput("dim " + std::to_string(dim) + " appears more than once in " +
                          intsStr(dims));
    seen[static_cast<size_t>(index)] = true;
    if (rank > 0)
      reduced[static_cast<size_t>(index)] = true;
  }
  return reduced;
}

// amax, amin and argmax have no identity, so PyTorch rejects reducing an empty dim.
Status requireNonEmptyReduction(OpKind op, const TensorType &x, const std::vector<bool> &reduced) {
  for (size_t i = 0; i < reduced.size(); ++i) {
    bool empty = x.shape[i].isStatic() && x.shape[i].value() == 0;
    if (reduced[i] && empty)
      return invalidInput(std::string(opName(op)) + " over dim " + std::to_string(i) +
                          " of size 0 (" + x.str() + ") has no identity");
  }
  return Status::success();
}

Shape reducedShape(const Shape &shape, const std::vector<bool> &reduced, bool keepdim) {
  Shape result;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!reduced[i])
      result.push_back(shape[i]);
    else if (keepdim)
      result.push_back(Dim(1));
  }
  return result;
}

// The result dtype by the op's dtype rule: any -> bool, integer sum/prod -> i64, mean/var
// require floating.
Expected<TensorType> inferReduction(OpKind op, const TensorType &x, const AttrMap &attrs) {
  TC_TRY(checkOperandDType(op, x));
  TC_ASSIGN_OR_RETURN(std::vector<bool> reduced, reducedDimMask(attr::dims(attrs), x.rank()));
  if (op == OpKind::Amax || op == OpKind::Amin)
    TC_TRY(requireNonEmptyReduction(op, x, reduced));
  return TensorType{ruleResultDType(op, x.dtype, attrs),
                    reducedShape(x.shape, reduced, attr::keepdim(attrs))};
}

Expected<TensorType> inferArgmax(const TensorType &x, const AttrMap &attrs) {
  TC_ASSIGN_OR_RETURN(std::vector<bool> reduced, reducedDimMask({attr::dim(attrs)}, x.rank()));
  TC_TRY(requireNonEmptyReduction(OpKind::Argmax, x, reduced));
  return TensorType{ruleResultDType(OpKind::Argmax, x.dtype, attrs),
                    reducedShape(x.shape, reduced, attr::keepdim(attrs))};
}

Expected<TensorType> inferSoftmax(OpKind op, const TensorType &x, const AttrMap &attrs) {
  TC_TRY(checkOperandDType(op, x));
  TC_TRY(normalizeDimWrapScalar(attr::dim(attrs), x.rank()));
  return x;
}

Expected<TensorType> inferCumsum(const TensorType &x, const AttrMap &attrs) {
  TC_TRY(normalizeDimWrapScalar(attr::dim(attrs), x.rank()));
  return TensorType{ruleResultDType(OpKind::Cumsum, x.dtype, attrs), x.shape};
}

// ---- constants ----

// random: a known distribution, a floating result for uniform and normal, and for integer
// both bounds with high > low (each draw is converted to the result dtype like a cast).
Expected<TypeList> checkRandom(const AttrMap &attrs, const TypeList &declared) {
  const std::string &distribution = attr::distribution(attrs);
  DType dtype = declared[0].dtype;
  if (distribution == "uniform" || distribution == "normal") {
    if (!isFloatingPoint(dtype))
      return invalidInput("random " + distribution + " needs a floating result, got " +
                          declared[0].str());
    return declared;
  }
  if (distribution != "integer")
    return invalidInput("random distribution must be \"uniform\", \"normal\" or \"integer\", "
                        "got \"" + distribution + "\"");
  std::optional<int64_t> low = attr::low(attrs);
  std::optional<int64_t> high = attr::high(attrs);
  if (!low || !high)
    return invalidInput("random integer needs both low and high");
  if (*high <= *low)
    return invalidInput("random integer needs low < high, got [" + std::to_string(*low) + ", " +
                        std::to_string(*high) + ")");
  return declared;
}

// full and arange have no operands to infer from: their declared type is the truth.
Expected<TypeList> checkDeclared(OpKind op, const AttrMap &attrs, const TypeList &declared) {
  if (declared.size() != 1)
    return invalidInput("expected 1 declared result type, got " + std::to_string(declared.size()));
  if (op == OpKind::Random)
    return checkRandom(attrs, declared);
  if (op != OpKind::Arange)
    return declared;
  if (declared[0].rank() != 1)
    return invalidInput("arange result must have rank 1, got " + declared[0].str());
  if (attr::arange_step(attrs) == 0)
    return invalidInput("arange step must not be zero");
  return declared;
}

Status checkOperandCount(OpKind op, size_t count) {
  const OpInfo &info = opInfo(op);
  int64_t actual = static_cast<int64_t>(count);
  bool fits = actual >= info.minOperands && (info.maxOperands < 0 || actual <= info.maxOperands);
  if (fits)
    return Status::success();
  std::string expected =
      info.maxOperands < 0 ? "at least " + std::to_string(info.minOperands)
      : info.minOperands == info.maxOperands
          ? std::to_string(info.minOperands)
          : std::to_string(info.minOperands) + " to " + std::to_string(info.maxOperands);
  bool singular = expected == "1" || expected.ends_with(" 1");
  return invalidInput(std::string(info.name) + " expects " + expected +
                      (singular ? " operand, got " : " operands, got ") + std::to_string(count));
}

Expected<TypeList> single(Expected<TensorType> type) {
  if (!type.ok())
    return std::move(type).error();
  return TypeList{std::move(type).value()};
}

// Elementwise unary and binary ops are inferred by family; every other op has a case below.
static_assert(kNumOps - countOps(OpFamily::Unary) - countOps(OpFamily::Binary) -
                  countOps(OpFamily::Linalg) ==
              62,
              "ir/ops.def changed: give the new op a case in inferByOp");

// Unary, binary and linalg ops by family, the others with one case per op of ir/ops.def. The operand
// count has been checked against ir/ops.def.
Expected<TypeList> inferByOp(OpKind op, const TypeList &operands, const AttrMap &attrs,
                             const TypeList &declared) {
  static const TensorType kNoOperand;
  const TensorType &x = operands.empty() ? kNoOperand : operands.front();
  if (opInfo(op).family == OpFamily::Unary)
    return single(inferUnary(op, x, attrs));
  if (opInfo(op).family == OpFamily::Binary)
    return single(inferBinary(op, x, operands[1], attrs));
  if (opInfo(op).family == OpFamily::Linalg)
    return inferLinalg(op, operands, attrs);
  switch (op) {
  case OpKind::Where:
    return single(inferWhere(x, operands[1], operands[2]));
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Amax:
  case OpKind::Amin:
  case OpKind::Prod:
  case OpKind::Any:
  case OpKind::Var:
    return single(inferReduction(op, x, attrs));
  case OpKind::Argmax:
    return single(inferArgmax(x, attrs));
  case OpKind::Softmax:
  case OpKind::LogSoftmax:
    return single(inferSoftmax(op, x, attrs));
  case OpKind::Cumsum:
    return single(inferCumsum(x, attrs));
  case OpKind::LayerNorm:
    return single(inferLayerNorm(operands, attrs));
  case OpKind::BatchNorm:
    return single(inferBatchNorm(operands));
  case OpKind::Linear:
    return single(inferLinear(operands));
  case OpKind::LinearWq:
    return single(inferLinearWq(operands, attrs));
  case OpKind::Matmul:
    return single(inferMatmul(x, operands[1]));
  case OpKind::Addmm:
    return single(inferAddmm(operands));
  case OpKind::GroupedMatmul:
    return single(inferGroupedMatmul(operands));
  case OpKind::Conv2d:
    return single(inferConv2d(operands, attrs));
  case OpKind::Conv2dWq:
    return single(inferConv2dWq(operands, attrs));
  case OpKind::ConvTranspose2d:
    return single(inferConvTranspose2d(operands, attrs));
  case OpKind::Attention:
    return single(inferAttention(operands, attrs));
  case OpKind::MaxPool2d:
  case OpKind::AvgPool2d:
  case OpKind::MaxPool3d:
  case OpKind::AvgPool3d:
  case OpKind::MaxPoolIndices:
    return single(inferPool2d(op, x, attrs));
  case OpKind::AdaptiveAvgPool2d:
  case OpKind::AdaptiveAvgPool3d:
    return single(inferAdaptiveAvgPool2d(op, x, attrs));
  case OpKind::GridSample:
    return single(inferGridSample(x, operands[1], attrs));
  case OpKind::Reshape:
    return single(inferReshape(x, attrs));
  case OpKind::Permute:
    return single(inferPermute(x, attrs));
  case OpKind::Expand:
    return single(inferExpand(x, attrs));
  case OpKind::Slice:
    return single(inferSlice(x, attrs));
  case OpKind::Select:
    return single(inferSelect(x, attrs));
  case OpKind::Squeeze:
    return single(inferSqueeze(x, attrs));
  case OpKind::Unsqueeze:
    return single(inferUnsqueeze(x, attrs));
  case OpKind::Concat:
    return single(inferConcat(operands, attrs));
  case OpKind::Split:
    return inferSplit(x, attrs);
  case OpKind::Tril:
  case OpKind::Triu:
    return single(inferTriangle(op, x));
  case OpKind::Full:
  case OpKind::Arange:
  case OpKind::Random:
    return checkDeclared(op, attrs, declared);
  case OpKind::Embedding:
    return single(inferEmbedding(x, operands[1]));
  case OpKind::IndexSelect:
    return single(inferIndexSelect(x, operands[1], attrs));
  case OpKind::Gather:
    return single(inferGather(x, operands[1], attrs));
  case OpKind::Pad:
    return single(inferPad(x, attrs));
  case OpKind::Upsample:
    return single(inferUpsample(x, attrs));
  case OpKind::Flip:
    return single(inferFlip(x, attrs));
  case OpKind::Diagonal:
    return single(inferDiagonal(x, attrs));
  case OpKind::AsStrided:
    return single(inferAsStrided(x, attrs));
  case OpKind::SliceScatter:
    return single(inferSliceScatter(x, operands[1], attrs));
  case OpKind::Scatter:
    return single(inferScatter(operands, attrs));
  case OpKind::Sort:
    return inferSort(x, attrs);
  case OpKind::EmbeddingBag:
    return single(inferEmbeddingBag(operands, attrs));
  case OpKind::AtenCall:
    // An op thunderc does not compile: nothing to infer, any declared results go.
    return declared;
  case OpKind::Fusion:
    // The result types are the body's output types; the verifier checks the body.
    return declared;
  case OpKind::Nonzero:
    if (attr::symbol(attrs).empty())
      return invalidInput("nonzero needs a symbol name for its count");
    return TypeList{TensorType{DType::I64,
                               {Dim(SymExpr::symbol(attr::symbol(attrs))),
                                Dim(static_cast<int64_t>(x.rank()))}}};
  case OpKind::Item: {
    if (attr::symbol(attrs).empty())
      return invalidInput("item needs a symbol name for its value");
    Dim count = numElements(x.shape);
    if (!count.isStatic() || count.value() != 1)
      return invalidInput("item expects a one-element operand, got " + x.str());
    if (isFloatingPoint(x.dtype))
      return invalidInput("item binds an integer symbol: expects an integer or bool operand, "
                          "got " + x.str());
    return TypeList{TensorType{DType::I64, {}}};
  }
  case OpKind::CondPredicate:
    if (x.rank() != 0 || x.dtype != DType::Bool)
      return invalidInput("cond_predicate expects a 0-d bool operand, got " + x.str());
    return TypeList{TensorType{DType::Bool, {}}};
  default:
    break;
  }
  TC_CHECK(false, "unhandled op " + std::string(opName(op)));
}

// The dtype rule of ir/ops.def holds for every op it does not leave to the declared types: a
// family function that disagrees with the table is a thunderc bug.
void checkDTypeRule(OpKind op, const TypeList &operands, const AttrMap &attrs,
                    const TypeList &results) {
  DTypeRule rule = opInfo(op).dtypeRule;
  if (rule == DTypeRule::Declared)
    return;
  // linear_wq's integer x (x_scale): a quantized activation; the result has the scales' dtype.
  if (op == OpKind::LinearWq && attr::x_scale(attrs).has_value())
    return;
  // where's operand 0 is its bool condition; its result has the branches' dtype.
  const TensorType &operand = operands.at(opInfo(op).family == OpFamily::Ternary ? 1 : 0);
  TC_CHECK(rule != DTypeRule::Floating || isFloatingPoint(operand.dtype),
           std::string(opName(op)) + " accepted a non-floating operand; ir/ops.def says Floating");
  TC_CHECK(rule != DTypeRule::Integral || !isFloatingPoint(operand.dtype),
           std::string(opName(op)) + " accepted a floating operand; ir/ops.def says Integral");
  DType expected = ruleResultDType(op, operand.dtype, attrs);
  // sort's second result holds i64 indices; the rule covers its values. The linalg ops' i32
  // results (pivots, info) are outside the rule too.
  size_t ruled = op == OpKind::Sort ? 1 : results.size();
  for (const TensorType &result : std::span(results).first(std::min(ruled, results.size()))) {
    if (opInfo(op).family == OpFamily::Linalg && result.dtype == DType::I32)
      continue;
    TC_CHECK(result.dtype == expected, std::string(opName(op)) + " inferred " + result.str() +
                                           " against its dtype rule in ir/ops.def");
  }
}

} // namespace
} // namespace inference

Expected<std::vector<TensorType>> inferResultTypes(OpKind op,
                                                   const std::vector<TensorType> &operandTypes,
                                                   const AttrMap &attrs,
                                                   const std::vector<TensorType> &declared) {
  TC_TRY(inference::checkOperandCount(op, operandTypes.size()));
  TC_ASSIGN_OR_RETURN(std::vector<TensorType> results,
                      inference::inferByOp(op, operandTypes, attrs, declared));
  inference::checkDTypeRule(op, operandTypes, attrs, results);
  return results;
}

Expected<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  const Shape &longer = a.size() >= b.size() ? a : b;
  size_t offsetA = longer.size() - a.size();
  size_t offsetB = longer.size() - b.size();
  Shape result;
  for (size_t i = 0; i < longer.size(); ++i) {
    if (i < offsetA || i < offsetB) {
      result.push_back(longer[i]);
      continue;
    }
    const Dim &dimA = a[i - offsetA];
    const Dim &dimB = b[i - offsetB];
    // Equal dims, or two symbolic ones (assumed equal: the exporter guarded), keep the first.
    if (inference::isOne(dimB) || inference::mayBeEqual(dimA, dimB)) {
      result.push_back(dimA);
      continue;
    }
    if (!inference::isOne(dimA))
      return invalidInput("shapes " + shapeStr(a) + " and " + shapeStr(b) + " do not broadcast");
    result.push_back(dimB);
  }
  return result;
}

Expected<int64_t> normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    return invalidInput("dim " + std::to_string(dim) + " out of range for rank " +
                        std::to_string(rank));
  return dim < 0 ? dim + rank : dim;
}

std::vector<int64_t> reducedDims(std::vector<int64_t> dims, int64_t rank) {
  if (rank == 0)
    return {};
  if (dims.empty()) {
    dims.resize(static_cast<size_t>(rank));
    std::iota(dims.begin(), dims.end(), 0);
  }
  for (int64_t &dim : dims)
    dim = dim < 0 ? dim + rank : dim;
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

} // namespace thunderc::ir
