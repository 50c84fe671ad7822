// Shape rules of flip, diagonal, as_strided, slice_scatter and scatter (ir/ops.def): the
// results keep the operand's dtype; the scatters' results are shaped like their first operand.
#include <algorithm>

#include "ir/shape_inference.h"
#include "ir/shape_inference_internal.h"

namespace thunderc::ir::inference {
namespace {

bool sameShape(const Shape &a, const Shape &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!mayBeEqual(a[i], b[i]))
      return false;
  return true;
}

} // namespace

Expected<TensorType> inferFlip(const TensorType &x, const AttrMap &attrs) {
  std::vector<int64_t> dims = attr::dims(attrs);
  for (size_t i = 0; i < dims.size(); ++i) {
    TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(dims[i], x.rank()));
    if (dim != dims[i] || (i > 0 && dims[i - 1] >= dim))
      return invalidInput("flip dims " + intsStr(dims) +
                          " must be sorted, distinct and non-negative for " + x.str());
  }
  return x;
}

Expected<TensorType> inferDiagonal(const TensorType &x, const AttrMap &attrs) {
  std::vector<int64_t> dims = attr::dims(attrs);
  if (dims.size() != 2 || x.rank() < 2)
    return invalidInput("diagonal needs two dims of an input of rank >= 2, got dims " +
                        intsStr(dims) + " of " + x.str());
  TC_ASSIGN_OR_RETURN(int64_t first, normalizeDim(dims[0], x.rank()));
  TC_ASSIGN_OR_RETURN(int64_t second, normalizeDim(dims[1], x.rank()));
  if (first == second || first != dims[0] || second != dims[1])
    return invalidInput("diagonal dims " + intsStr(dims) +
                        " must be distinct and non-negative for " + x.str());
  int64_t offset = attr::diagonal(attrs);
  const Dim &rows = x.shape[static_cast<size_t>(first)];
  const Dim &cols = x.shape[static_cast<size_t>(second)];
  Dim length(0);
  if (rows.isStatic() && cols.isStatic()) {
    int64_t fromRows = rows.value() - std::max<int64_t>(0, -offset);
    int64_t fromCols = cols.value() - std::max<int64_t>(0, offset);
    length = Dim(std::max<int64_t>(0, std::min(fromRows, fromCols)));
  } else if (offset == 0 && rows == cols) {
    length = rows;
  } else {
    return invalidInput("diagonal " + std::to_string(offset) + " of dims " + rows.str() +
                        " and " + cols.str() + " of " + x.str() +
                        ": a symbolic length other than the dims' common size");
  }
  Shape shape;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != first && d != second)
      shape.push_back(x.shape[static_cast<size_t>(d)]);
  shape.push_back(length);
  return TensorType{x.dtype, std::move(shape)};
}

Expected<TensorType> inferAsStrided(const TensorType &x, const AttrMap &attrs) {
  std::vector<Dim> shape = attr::shape(attrs);
  std::vector<int64_t> strides = attr::stride(attrs);
  int64_t start = attr::start(attrs);
  if (shape.size() != strides.size())
    return invalidInput("as_strided shape of " + std::to_string(shape.size()) + " dims with " +
                        std::to_string(strides.size()) + " strides");
  std::optional<int64_t> numel = int64_t{1};
  for (const Dim &dim : x.shape)
    numel = dim.isStatic() && numel ? std::optional<int64_t>(*numel * dim.value()) : std::nullopt;
  if (!numel)
    return invalidInput("as_strided of " + x.str() + ": the input's size must be static");
  int64_t last = start;
  bool empty = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].isStatic() || shape[i].value() < 0 || strides[i] < 0)
      return invalidInput("as_strided sizes and strides must be static and non-negative, got "
                          "stride " + intsStr(strides));
    empty = empty || shape[i].value() == 0;
    last += (shape[i].value() - 1) * strides[i];
  }
  if (!empty && (start < 0 || last >= *numel))
    return invalidInput("as_strided reads positions " + std::to_string(start) + " to " +
                        std::to_string(last) + " of " + x.str() + ", which has " +
                        std::to_string(*numel) + " elements");
  return TensorType{x.dtype, Shape(shape.begin(), shape.end())};
}

Expected<TensorType> inferSliceScatter(const TensorType &x, const TensorType &src,
                                       const AttrMap &attrs) {
  TC_ASSIGN_OR_RETURN(TensorType window, inferSlice(x, attrs));
  TC_TRY(requireSameDType(x, src));
  if (!sameShape(window.shape, src.shape))
    return invalidInput("slice_scatter source " + src.str() + " does not fill the window " +
                        window.str() + " of " + x.str());
  return x;
}

Expected<TensorType> inferScatter(const TypeList &operands, const AttrMap &attrs) {
  const TensorType &x = operands[0];
  const TensorType &index = operands[1];
  const TensorType &src = operands[2];
  if (index.dtype != DType::I64 && index.dtype != DType::I32)
    return invalidInput("scatter indices must be i64 or i32, got " + index.str());
  TC_TRY(requireSameDType(x, src));
  const std::string &reduce = attr::reduce(attrs);
  static const char *const kReductions[] = {"none", "sum", "prod", "amax", "amin"};
  if (std::find(std::begin(kReductions), std::end(kReductions), reduce) == std::end(kReductions))
    return invalidInput("scatter reduce '" + reduce +
                        "' is not one of none, sum, prod, amax, amin");
  if (index.rank() != x.rank() || !sameShape(index.shape, src.shape))
    return invalidInput("scatter index " + index.str() + ", source " + src.str() +
                        " and input " + x.str() + " must have one rank and index the source's "
                        "shape");
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDimWrapScalar(attr::dim(attrs), x.rank()));
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != dim && !mayBeEqual(index.shape[static_cast<size_t>(d)], x.shape[static_cast<size_t>(d)]))
      return invalidInput("scatter index " + index.str() + " differs from the input " + x.str() +
                          " in dim " + std::to_string(d) + " (only dim " + std::to_string(dim) +
                          " may)");
  return x;
}

} // namespace thunderc::ir::inference
