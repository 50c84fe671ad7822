// Result types of the shape and data-movement ops (reshape, permute, expand, slice, select,
// squeeze, unsqueeze, concat, split, tril/triu), following the ATen meta functions.
#include <algorithm>

#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"

namespace thunderc::ir::inference {
namespace {

bool isNegative(const Dim &dim) { return dim.isStatic() && dim.value() < 0; }

bool hasNegativeDim(const std::vector<Dim> &dims) {
  return std::any_of(dims.begin(), dims.end(), isNegative);
}

Status requireNoNegativeDim(OpKind op, const char *what, const std::vector<Dim> &dims) {
  if (!hasNegativeDim(dims))
    return Status::success();
  return invalidInput(std::string(opName(op)) + " " + what + " " + shapeStr(dims) +
                      " has a negative dim");
}

// Whether dim `from` of a tensor can be expanded to `to`: torch.expand keeps equal dims and
// stretches dims of size 1.
bool expandsTo(const Dim &from, const Dim &to) { return isOne(from) || mayBeEqual(from, to); }

} // namespace

Expected<TensorType> inferReshape(const TensorType &x, const AttrMap &attrs) {
  std::vector<Dim> shape = attr::shape(attrs);
  TC_TRY(requireNoNegativeDim(OpKind::Reshape, "shape", shape));
  // Symbolic element counts cannot be compared reliably (the exporter's guards may relate
  // them), so only static counts are checked.
  Dim fromCount = numElements(x.shape);
  Dim toCount = numElements(shape);
  bool countsDiffer = fromCount.isStatic() && toCount.isStatic() && !(fromCount == toCount);
  if (countsDiffer)
    return invalidInput("cannot reshape " + x.str() + " (" + fromCount.str() + " elements) to " +
                        shapeStr(shape) + " (" + toCount.str() + " elements)");
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferPermute(const TensorType &x, const AttrMap &attrs) {
  std::vector<int64_t> dims = attr::dims(attrs);
  Error notPermutation = invalidInput("permute dims " + intsStr(dims) +
                                      " are not a permutation of the dims of " + x.str());
  if (static_cast<int64_t>(dims.size()) != x.rank())
    return notPermutation;
  std::vector<bool> seen(dims.size(), false);
  Shape shape;
  for (int64_t dim : dims) {
    TC_ASSIGN_OR_RETURN(int64_t index, normalizeDim(dim, x.rank()));
    if (seen[static_cast<size_t>(index)])
      return notPermutation;
    seen[static_cast<size_t>(index)] = true;
    shape.push_back(x.shape[static_cast<size_t>(index)]);
  }
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferExpand(const TensorType &x, const AttrMap &attrs) {
  std::vector<Dim> shape = attr::shape(attrs);
  TC_TRY(requireNoNegativeDim(OpKind::Expand, "shape", shape));
  Error cannotExpand = invalidInput("cannot expand " + x.str() + " to " + shapeStr(shape));
  if (static_cast<int64_t>(shape.size()) < x.rank())
    return cannotExpand;
  size_t offset = shape.size() - x.shape.size();
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!expandsTo(x.shape[i], shape[offset + i]))
      return cannotExpand;
  }
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferSlice(const TensorType &x, const AttrMap &attrs) {
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(attrs), x.rank()));
  int64_t start = attr::start(attrs);
  int64_t step = attr::step(attrs);
  Dim end = attr::end(attrs);
  const Dim &size = x.shape[static_cast<size_t>(dim)];
  if (step <= 0)
    return invalidInput("slice step must be positive, got " + std::to_string(step));
  // The importer clamps start and end like PyTorch does: 0 <= start <= end <= size.
  if (start < 0 || isNegative(end))
    return invalidInput("slice start " + std::to_string(start) + " and end " + end.str() +
                        " must not be negative");
  if (end.isStatic() && start > end.value())
    return invalidInput("slice start " + std::to_string(start) + " is past end " + end.str());
  if (end.isStatic() && size.isStatic() && end.value() > size.value())
    return invalidInput("slice end " + end.str() + " is past size " + size.str() + " of dim " +
                        std::to_string(dim) + " of " + x.str());
  // ceil((end - start) / step), as torch computes it: (end - start + step - 1) // step.
  SymExpr span = addLikeTerms(end.asExpr(), SymExpr::constant(step - 1 - start));
  Shape shape = x.shape;
  shape[static_cast<size_t>(dim)] = Dim(floorDivide(span, step));
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferSelect(const TensorType &x, const AttrMap &attrs) {
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(attrs), x.rank()));
  int64_t index = attr::index(attrs);
  const Dim &size = x.shape[static_cast<size_t>(dim)];
  bool outOfRange = size.isStatic() && (index < -size.value() || index >= size.value());
  if (outOfRange)
    return invalidInput("select index " + std::to_string(index) + " out of range for size " +
                        size.str() + " of dim " + std::to_string(dim) + " of " + x.str());
  Shape shape = x.shape;
  shape.erase(shape.begin() + dim);
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferSqueeze(const TensorType &x, const AttrMap &attrs) {
  // squeeze.dims: listed dims of static size 1 go; others (and symbolic ones, which PyTorch
  // treats size-obliviously as not 1) stay. An empty list squeezes nothing.
  std::vector<int64_t> dims = attr::dims(attrs);
  std::vector<bool> listed(static_cast<size_t>(x.rank()), false);
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(x.rank(), 1)), false);
  for (int64_t dim : dims) {
    TC_ASSIGN_OR_RETURN(int64_t index, normalizeDimWrapScalar(dim, x.rank()));
    if (seen[static_cast<size_t>(index)])
      return invalidInput("dim " + std::to_string(dim) + " appears more than once in " +
                          intsStr(dims));
    seen[static_cast<size_t>(index)] = true;
    if (x.rank() > 0)
      listed[static_cast<size_t>(index)] = true;
  }
  Shape shape;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!(listed[i] && isOne(x.shape[i])))
      shape.push_back(x.shape[i]);
  }
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferUnsqueeze(const TensorType &x, const AttrMap &attrs) {
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(attrs), x.rank() + 1));
  Shape shape = x.shape;
  shape.insert(shape.begin() + dim, Dim(1));
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferConcat(const TypeList &operands, const AttrMap &attrs) {
  const TensorType &first = operands.front();
  if (first.rank() == 0)
    return invalidInput("concat operands must have rank at least 1, got " + first.str());
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(attrs), first.rank()));
  Shape shape = first.shape;
  SymExpr total = first.shape[static_cast<size_t>(dim)].asExpr();
  for (size_t i = 1; i < operands.size(); ++i) {
    const TensorType &other = operands[i];
    TC_TRY(requireSameDType(first, other));
    if (other.rank() != first.rank())
      return invalidInput("concat operands " + first.str() + " and " + other.str() +
                          " differ in rank");
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) != dim && !mayBeEqual(shape[d], other.shape[d]))
        return invalidInput("concat operands " + first.str() + " and " + other.str() +
                            " differ in dim " + std::to_string(d));
    }
    total = addLikeTerms(total, other.shape[static_cast<size_t>(dim)].asExpr());
  }
  shape[static_cast<size_t>(dim)] = Dim(total);
  return TensorType{first.dtype, std::move(shape)};
}

Expected<TypeList> inferSplit(const TensorType &x, const AttrMap &attrs) {
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(attrs), x.rank()));
  std::vector<Dim> sizes = attr::sizes(attrs);
  TC_TRY(requireNoNegativeDim(OpKind::Split, "sizes", sizes));
  const Dim &size = x.shape[static_cast<size_t>(dim)];
  SymExpr total = SymExpr::constant(0);
  for (const Dim &piece : sizes)
    total = addLikeTerms(total, piece.asExpr());
  if (!mayBeEqual(Dim(total), size))
    return invalidInput("split sizes " + shapeStr(sizes) + " do not add up to size " + size.str() +
                        " of dim " + std::to_string(dim) + " of " + x.str());
  TypeList results;
  for (const Dim &piece : sizes) {
    Shape shape = x.shape;
    shape[static_cast<size_t>(dim)] = piece;
    results.push_back(TensorType{x.dtype, std::move(shape)});
  }
  return results;
}

Expected<TensorType> inferTriangle(OpKind op, const TensorType &x) {
  TC_TRY(requireRank(op, "operand", x, 2, -1));
  return x;
}

} // namespace thunderc::ir::inference
