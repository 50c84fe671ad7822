// The ATen converters of shapes and data movement: views (reshape, permute, transpose, expand,
// slice, select, squeeze), concatenation and splits, triangles, and advanced indexing
// (index.Tensor, masked_select). Defaults come from frontend/aten/schemas.inc.
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

constexpr int64_t kEndOfDim = INT64_MAX / 2;

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

// movedim.intlist: source[i] goes to destination[i]; the other dims keep their order in the
// remaining places (torch.movedim). Both lists are normalized, distinct and of equal length.
Status importMovedim(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> source, node.intList("source"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> destination, node.intList("destination"));
  const int64_t rank = self->type().rank();
  if (source.size() != destination.size())
    return invalidInput("node '" + node.name() + "': movedim with " +
                        std::to_string(source.size()) + " source and " +
                        std::to_string(destination.size()) + " destination dims");
  for (std::vector<int64_t> *dims : {&source, &destination})
    for (int64_t &dim : *dims) {
      TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, rank));
    }
  std::vector<int64_t> order(static_cast<size_t>(rank), -1);
  std::vector<bool> moved(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < source.size(); ++i) {
    if (order[static_cast<size_t>(destination[i])] != -1 || moved[static_cast<size_t>(source[i])])
      return invalidInput("node '" + node.name() + "': movedim repeats a dim");
    order[static_cast<size_t>(destination[i])] = source[i];
    moved[static_cast<size_t>(source[i])] = true;
  }
  int64_t next = 0;
  for (int64_t &dim : order) {
    if (dim != -1)
      continue;
    while (moved[static_cast<size_t>(next)])
      ++next;
    dim = next++;
  }
  return emitPermute(node, self, std::move(order));
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
// (n=1) is compiled: that is what the models emit (transformers prepends a column); n=0 is the
// input itself (torch ignores prepend and append then).
Status importDiff(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t n, node.intArg("n"));
  if (n < 0)
    return invalidInput("node '" + node.name() + "': diff of order " + std::to_string(n) +
                        " (the order must be non-negative)");
  if (n == 0)
    return emitOne(node, OpKind::Copy, {self});
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

namespace {

/// indexTensor's lowering; `bind`: the last op is the node's output (else a helper value,
/// returned).
Expected<Value *> lowerIndex(NodeImport &node, Value *self, std::vector<Value *> indices,
                             const ir::TensorType &out, bool bind) {
  auto last = [&](OpKind op, Value *operand, AttrMap attrs) -> Expected<Value *> {
    if (!bind)
      return node.emitTemp(op, {operand}, out, std::move(attrs));
    TC_TRY(emitOne(node, op, {operand}, std::move(attrs)));
    return nullptr;
  };
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
    return last(OpKind::Copy, self, {});
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
  return last(OpKind::Reshape, y, std::move(attrs));
}

} // namespace

Status indexTensor(NodeImport &node, Value *self, std::vector<Value *> indices,
                   const ir::TensorType &out) {
  TC_ASSIGN_OR_RETURN(Value * result, lowerIndex(node, self, std::move(indices), out, true));
  (void)result;
  return Status::success();
}


// clang-format off
constexpr Converter kConverters[] = {
    {"aten.movedim.intlist", importMovedim},
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
    // advanced indexing
    {"aten.index.Tensor", importIndexTensor},
    {"aten.masked_select.default", importMaskedSelect},
    {"aten._unsafe_index.Tensor", importIndexTensor},
};
// clang-format on

} // namespace

std::span<const Converter> shapeConverters() { return kConverters; }

Expected<Value *> indexedValue(NodeImport &node, Value *self, std::vector<Value *> indices,
                               const ir::TensorType &out) {
  return lowerIndex(node, self, std::move(indices), out, false);
}

} // namespace thunderc::frontend
