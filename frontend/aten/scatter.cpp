// Imports of flip, repeat/tile, diagonal, as_strided, stack, roll and the scatters. Most are
// decompositions into ops the IR has (docs: prefer a decomposition over a kernel); flip and
// diagonal are views, as_strided a strided copy, slice_scatter and scatter have kernels.
#include "frontend/aten/converters.h"

#include <algorithm>
#include <numeric>

#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

/// Binds the node's output to `value`, which must have the exported type.
Status finish(NodeImport &node, Value *value) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (!(value->type() == out))
    return invalidInput("node '" + node.name() + "': computed " + value->type().str() +
                        " but the export declares " + out.str());
  if (value->producer() != nullptr && ir::hasTrait(value->producer()->op(), ir::kView))
    node.state().viewResults.insert(value);
  node.bindOutput(0, value);
  return Status::success();
}

ir::Dim product(const std::vector<ir::Dim> &dims) {
  ir::SymExpr total = ir::SymExpr::constant(1);
  for (const ir::Dim &dim : dims)
    total = ir::SymExpr::mul(total, dim.asExpr());
  return ir::Dim(total);
}

Expected<Value *> reshape(NodeImport &node, Value *x, const std::vector<ir::Dim> &shape) {
  if (x->type().shape == shape)
    return x;
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(shape));
  return node.emitInferred(OpKind::Reshape, {x}, std::move(attrs));
}

Expected<Value *> expand(NodeImport &node, Value *x, const std::vector<ir::Dim> &shape) {
  if (x->type().shape == shape)
    return x;
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(shape));
  return node.emitInferred(OpKind::Expand, {x}, std::move(attrs));
}

Expected<Value *> permute(NodeImport &node, Value *x, const std::vector<int64_t> &dims) {
  std::vector<int64_t> identity(dims.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (dims == identity)
    return x;
  AttrMap attrs;
  attrs.set("dims", dims);
  return node.emitInferred(OpKind::Permute, {x}, std::move(attrs));
}

Expected<Value *> slice(NodeImport &node, Value *x, int64_t dim, int64_t start,
                        const ir::Dim &end) {
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("end", ir::makeDimAttr(end));
  attrs.set("start", start);
  attrs.set("step", int64_t{1});
  return node.emitInferred(OpKind::Slice, {x}, std::move(attrs));
}

Expected<Value *> sliceScatter(NodeImport &node, Value *x, Value *src, int64_t dim,
                               int64_t start, const ir::Dim &end, int64_t step) {
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("end", ir::makeDimAttr(end));
  attrs.set("start", start);
  attrs.set("step", step);
  return node.emitInferred(OpKind::SliceScatter, {x, src}, std::move(attrs));
}

Expected<Value *> binary(NodeImport &node, OpKind op, Value *a, Value *b) {
  return node.emitInferred(op, {a, b});
}

/// Start and end of a slice of `size` clamped like Python slicing (as the slice import does).
Status clampSlice(NodeImport &node, const ir::Dim &size, int64_t &start, ir::Dim &end) {
  if (size.isStatic()) {
    if (!end.isStatic())
      return node.unsupportedFeature("symbolic slice end on a static dim");
    int64_t extent = size.value();
    int64_t last = end.value();
    start = start < 0 ? std::max<int64_t>(start + extent, 0) : std::min(start, extent);
    last = last < 0 ? std::max<int64_t>(last + extent, 0) : std::min(last, extent);
    end = ir::Dim(std::max(last, start));
    return Status::success();
  }
  if (start < 0)
    return node.unsupportedFeature("negative slice start on a symbolic dim");
  if (end.isStatic() && end.value() >= INT64_MAX / 2)
    end = size;
  else if (end.isStatic() && end.value() < 0)
    end = ir::Dim(ir::SymExpr::add(size.expr(), ir::SymExpr::constant(end.value())));
  return Status::success();
}

bool allStatic(const ir::Shape &shape) {
  return std::all_of(shape.begin(), shape.end(), [](const ir::Dim &d) { return d.isStatic(); });
}

} // namespace

// ---- views and copies ----

Status importFlip(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, node.intList("dims"));
  for (int64_t &dim : dims) {
    TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, self->type().rank()));
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  if (self->type().rank() == 0 || dims.empty()) {
    TC_ASSIGN_OR_RETURN(ir::Node * copy, node.emit(OpKind::Copy, {self}));
    (void)copy;
    return Status::success();
  }
  AttrMap attrs;
  attrs.set("dims", dims);
  TC_ASSIGN_OR_RETURN(ir::Node * flip, node.emit(OpKind::Flip, {self}, std::move(attrs)));
  (void)flip;
  return Status::success();
}

/// repeat.default and tile.default: reshape to [1, s0, 1, s1, ..] -> expand [r0, s0, ..] ->
/// reshape [r0 * s0, ..] (tile pads the repeats with leading ones).
Status importRepeat(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  bool tile = node.schema().findArg("repeats") == nullptr;
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, node.intList(tile ? "dims" : "repeats"));
  const ir::Shape &shape = self->type().shape;
  auto rank = shape.size();
  if (tile && repeats.size() < rank)
    repeats.insert(repeats.begin(), rank - repeats.size(), 1);
  if (repeats.size() < rank)
    return invalidInput("repeat of " + self->type().str() + " by " +
                        std::to_string(repeats.size()) + " repeats in node '" + node.name() +
                        "': give at least one per dim");
  size_t lead = repeats.size() - rank;
  std::vector<ir::Dim> interleaved, expanded, result;
  for (size_t k = 0; k < repeats.size(); ++k) {
    if (repeats[k] < 0)
      return invalidInput("negative repeat " + std::to_string(repeats[k]) + " in node '" +
                          node.name() + "'");
    ir::Dim size = k < lead ? ir::Dim(1) : shape[k - lead];
    interleaved.insert(interleaved.end(), {ir::Dim(1), size});
    expanded.insert(expanded.end(), {ir::Dim(repeats[k]), size});
    result.push_back(product({ir::Dim(repeats[k]), size}));
  }
  TC_ASSIGN_OR_RETURN(Value * x, reshape(node, self, interleaved));
  TC_ASSIGN_OR_RETURN(x, expand(node, x, expanded));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(x, reshape(node, x, out.shape));
  if (x == self) {
    TC_ASSIGN_OR_RETURN(ir::Node * copy, node.emit(OpKind::Copy, {self}));
    (void)copy;
    return Status::success();
  }
  return finish(node, x);
}

/// diagonal.default: the diagonal view.
Status importDiagonal(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t offset, node.intArg("offset"));
  TC_ASSIGN_OR_RETURN(int64_t dim1, node.intArg("dim1"));
  TC_ASSIGN_OR_RETURN(int64_t dim2, node.intArg("dim2"));
  int64_t rank = self->type().rank();
  TC_ASSIGN_OR_RETURN(dim1, normalizedDim(node, dim1, rank));
  TC_ASSIGN_OR_RETURN(dim2, normalizedDim(node, dim2, rank));
  AttrMap attrs;
  attrs.set("diagonal", offset);
  attrs.set("dims", std::vector<int64_t>{dim1, dim2});
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::Diagonal, {self}, std::move(attrs)));
  (void)emitted;
  return Status::success();
}

// as_strided reads the input's storage; an exported input is a fresh tensor whose storage is
// its row-major elements, which is what the IR op reads. Sizes must be static.
Status importAsStrided(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> strides, node.intList("stride"));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> offset, node.optionalInt("storage_offset"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (!allStatic(out.shape) || !allStatic(self->type().shape))
    return node.unsupportedFeature("as_strided with symbolic sizes");
  if (node.state().viewResults.count(self) != 0)
    return node.unsupportedFeature(
        "as_strided of a view (its storage is the viewed tensor's, which thunderc does not "
        "keep); apply as_strided to a contiguous tensor");
  AttrMap attrs;
  attrs.set("shape", ir::makeDimsAttr(out.shape));
  attrs.set("start", offset.value_or(0));
  attrs.set("stride", strides);
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::AsStrided, {self}, std::move(attrs)));
  (void)emitted;
  return Status::success();
}

/// stack.default: unsqueeze each tensor, then concat.
Status importStack(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(std::vector<Value *> tensors, node.tensorList("tensors"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, out.rank()));
  std::vector<Value *> parts;
  for (Value *tensor : tensors) {
    AttrMap attrs;
    attrs.set("dim", dim);
    TC_ASSIGN_OR_RETURN(Value * part,
                        node.emitInferred(OpKind::Unsqueeze, {node.castTo(tensor, out.dtype)}, attrs));
    parts.push_back(part);
  }
  AttrMap attrs;
  attrs.set("dim", dim);
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(OpKind::Concat, parts, std::move(attrs)));
  (void)emitted;
  return Status::success();
}

/// roll.default (training IR): per rolled dim, two slices concatenated; dims=[] rolls the
/// flattened tensor. The rolled dims must be static.
Status emitRoll(NodeImport &node, Value *self, std::vector<int64_t> shifts,
                std::vector<int64_t> dims) {
  Value *x = self;
  if (dims.empty()) { // the flattened tensor rolls, then takes its shape back
    if (shifts.size() != 1)
      return invalidInput("roll without dims takes one shift in node '" + node.name() + "'");
    TC_ASSIGN_OR_RETURN(x, reshape(node, x, {product(self->type().shape)}));
    dims = {0};
  }
  if (shifts.size() != dims.size())
    return invalidInput("roll of " + std::to_string(shifts.size()) + " shifts over " +
                        std::to_string(dims.size()) + " dims in node '" + node.name() + "'");
  for (size_t k = 0; k < dims.size(); ++k) {
    TC_ASSIGN_OR_RETURN(int64_t dim, shapeDim(node, dims[k], x->type().rank(), "roll"));
    const ir::Dim &size = x->type().shape[static_cast<size_t>(dim)];
    if (!size.isStatic())
      return node.unsupportedFeature("roll along a symbolic dim");
    int64_t n = size.value();
    int64_t shift = n == 0 ? 0 : ((shifts[k] % n) + n) % n;
    if (shift == 0)
      continue;
    // roll by s: the last s elements come first.
    TC_ASSIGN_OR_RETURN(Value * tail, slice(node, x, dim, n - shift, ir::Dim(n)));
    TC_ASSIGN_OR_RETURN(Value * head, slice(node, x, dim, 0, ir::Dim(n - shift)));
    AttrMap attrs;
    attrs.set("dim", dim);
    TC_ASSIGN_OR_RETURN(x, node.emitInferred(OpKind::Concat, {tail, head}, std::move(attrs)));
  }
  TC_ASSIGN_OR_RETURN(x, reshape(node, x, self->type().shape));
  if (x == self) {
    TC_ASSIGN_OR_RETURN(ir::Node * copy, node.emit(OpKind::Copy, {self}));
    (void)copy;
    return Status::success();
  }
  return finish(node, x);
}

Status importRoll(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> shifts, node.intList("shifts"));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> dims, node.intList("dims"));
  return emitRoll(node, self, std::move(shifts), std::move(dims));
}

/// fft_fftshift / fft_ifftshift: a roll of each given dim (None: all) by half its size, the
/// zero frequency to the middle (fftshift: n / 2) or back to the front (ifftshift: -(n / 2)).
template <bool Inverse> Status importFftShift(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  std::vector<int64_t> dims;
  if (node.isNone("dim")) {
    for (int64_t d = 0; d < self->type().rank(); ++d)
      dims.push_back(d);
  } else {
    TC_ASSIGN_OR_RETURN(dims, node.intList("dim"));
  }
  std::vector<int64_t> shifts;
  for (int64_t dim : dims) {
    TC_ASSIGN_OR_RETURN(int64_t d, shapeDim(node, dim, self->type().rank(), "fftshift"));
    const ir::Dim &size = self->type().shape[static_cast<size_t>(d)];
    if (!size.isStatic())
      return node.unsupportedFeature("fftshift along a symbolic dim");
    shifts.push_back(Inverse ? -(size.value() / 2) : size.value() / 2);
  }
  if (dims.empty()) { // a 0-d tensor: nothing moves
    TC_ASSIGN_OR_RETURN(ir::Node * copy, node.emit(OpKind::Copy, {self}));
    (void)copy;
    return Status::success();
  }
  return emitRoll(node, self, std::move(shifts), std::move(dims));
}

// ---- scatters ----

Status importSliceScatter(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * src, node.tensor("src"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, shapeDim(node, dim, self->type().rank(), "slice_scatter"));
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> start, node.optionalInt("start"));
  TC_ASSIGN_OR_RETURN(std::optional<ir::Dim> end, node.optionalSymInt("end"));
  TC_ASSIGN_OR_RETURN(int64_t step, node.intArg("step"));
  if (step <= 0)
    return invalidInput("slice_scatter step must be positive, got " + std::to_string(step) +
                        " in node '" + node.name() + "'");
  int64_t begin = start.value_or(0);
  ir::Dim stop = end.value_or(ir::Dim(INT64_MAX / 2));
  TC_TRY(clampSlice(node, self->type().shape[static_cast<size_t>(dim)], begin, stop));
  TC_ASSIGN_OR_RETURN(Value * result,
                      sliceScatter(node, self, node.castTo(src, self->type().dtype), dim, begin,
                                   stop, step));
  return finish(node, result);
}

/// select_scatter.default: slice_scatter of the source unsqueezed at dim.
Status importSelectScatter(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * src, node.tensor("src"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(dim, shapeDim(node, dim, self->type().rank(), "select_scatter"));
  TC_ASSIGN_OR_RETURN(int64_t index, node.intArg("index"));
  const ir::Dim &size = self->type().shape[static_cast<size_t>(dim)];
  if (index < 0) {
    if (!size.isStatic())
      return node.unsupportedFeature("negative select_scatter index on a symbolic dim");
    index += size.value();
  }
  if (index < 0 || (size.isStatic() && index >= size.value()))
    return invalidInput("select_scatter index out of range for " + self->type().str() +
                        " in node '" + node.name() + "'");
  AttrMap attrs;
  attrs.set("dim", dim);
  TC_ASSIGN_OR_RETURN(Value * row, node.emitInferred(OpKind::Unsqueeze,
                                        {node.castTo(src, self->type().dtype)}, attrs));
  TC_ASSIGN_OR_RETURN(Value * result,
                      sliceScatter(node, self, row, dim, index, ir::Dim(index + 1), 1));
  return finish(node, result);
}

namespace {

/// scatter(self, index, src) along dim with src already shaped like index and of self's dtype.
/// Where index is smaller than self outside dim, the scatter runs on self sliced to index's
/// size there and the result is written back with slice_scatter.
Expected<Value *> scatterInto(NodeImport &node, Value *self, int64_t dim, Value *index,
                              Value *src, const std::string &reduce, bool includeSelf) {
  std::vector<Value *> chain{self};
  std::vector<int64_t> slicedDims;
  for (int64_t d = 0; d < self->type().rank(); ++d) {
    auto at = static_cast<size_t>(d);
    const ir::Dim &want = index->type().shape[at];
    if (d == dim || want == self->type().shape[at])
      continue;
    if (!want.isStatic() || !self->type().shape[at].isStatic())
      return node.unsupportedFeature("scatter index smaller than the input in a symbolic dim");
    if (want.value() > self->type().shape[at].value())
      return invalidInput("scatter index " + index->type().str() + " is larger than the input " +
                          self->type().str() + " in dim " + std::to_string(d) + " in node '" +
                          node.name() + "'");
    TC_ASSIGN_OR_RETURN(Value * part, slice(node, chain.back(), d, 0, want));
    chain.push_back(part);
    slicedDims.push_back(d);
  }
  AttrMap attrs;
  attrs.set("dim", dim);
  attrs.set("include_self", includeSelf);
  attrs.set("reduce", reduce);
  TC_ASSIGN_OR_RETURN(Value * result,
                      node.emitInferred(OpKind::Scatter, {chain.back(), index, src}, std::move(attrs)));
  for (size_t k = slicedDims.size(); k-- > 0;) {
    const ir::Dim &end = index->type().shape[static_cast<size_t>(slicedDims[k])];
    TC_ASSIGN_OR_RETURN(result,
                        sliceScatter(node, chain[k], result, slicedDims[k], 0, end, 1));
  }
  return result;
}

/// src sliced to index's shape (PyTorch reads only that corner of a larger src).
Expected<Value *> sourceLikeIndex(NodeImport &node, Value *src, Value *index) {
  if (src->type().rank() != index->type().rank())
    return invalidInput("scatter source " + src->type().str() + " and index " +
                        index->type().str() + " differ in rank in node '" + node.name() + "'");
  for (int64_t d = 0; d < src->type().rank(); ++d) {
    auto at = static_cast<size_t>(d);
    const ir::Dim &want = index->type().shape[at];
    if (want == src->type().shape[at])
      continue;
    if (!want.isStatic() || !src->type().shape[at].isStatic())
      return node.unsupportedFeature("scatter source larger than the index in a symbolic dim");
    TC_ASSIGN_OR_RETURN(src, slice(node, src, d, 0, want));
  }
  return src;
}

} // namespace

// index_copy(self, dim, index, source): self with slice i of source along dim put at position
// index[i]: one scatter along dim with the index broadcast to source's shape. (An LLM's static
// KV cache is updated this way; in place on a state it writes only the new rows.)
Status importIndexCopy(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(Value * index, node.tensor("index"));
  TC_ASSIGN_OR_RETURN(Value * source, node.tensor("source"));
  int64_t rank = self->type().rank();
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, rank));
  if (index->type().rank() > 1 || !ir::isIntegral(index->type().dtype))
    return invalidInput("index_copy index " + index->type().str() + " in node '" + node.name() +
                        "': expected a 0-d or 1-d integer tensor");
  if (rank == 0) { // one element: the same scatter over [1] (the index still checked at run time)
    if (source->type().rank() != 0)
      return invalidInput("index_copy source " + source->type().str() +
                          " into a 0-d input in node '" + node.name() + "'");
    TC_ASSIGN_OR_RETURN(Value * one, reshape(node, self, {ir::Dim(1)}));
    TC_ASSIGN_OR_RETURN(Value * value, reshape(node, node.castTo(source, self->type().dtype),
                                               {ir::Dim(1)}));
    TC_ASSIGN_OR_RETURN(Value * at, reshape(node, node.castTo(index, DType::I64), {ir::Dim(1)}));
    TC_ASSIGN_OR_RETURN(Value * result, scatterInto(node, one, 0, at, value, "none", true));
    TC_ASSIGN_OR_RETURN(result, reshape(node, result, {}));
    return finish(node, result);
  }
  if (source->type().rank() != rank)
    return invalidInput("index_copy source " + source->type().str() + " and input " +
                        self->type().str() + " differ in rank in node '" + node.name() + "'");
  source = node.castTo(source, self->type().dtype);
  index = node.castTo(index, DType::I64);
  std::vector<ir::Dim> shape(static_cast<size_t>(rank), ir::Dim(1));
  shape[static_cast<size_t>(dim)] = index->type().rank() == 0 ? ir::Dim(1) : index->type().shape[0];
  TC_ASSIGN_OR_RETURN(index, reshape(node, index, shape));
  TC_ASSIGN_OR_RETURN(index, expand(node, index, source->type().shape));
  TC_ASSIGN_OR_RETURN(Value * result, scatterInto(node, self, dim, index, source, "none", true));
  return finish(node, result);
}

/// scatter.src, scatter.value, scatter.reduce/value_reduce (add, multiply), scatter_add.default,
/// scatter_reduce.two (mean as a sum over
/// counts, as PyTorch computes it).
Status importScatter(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * index, node.tensor("index"));
  TC_ASSIGN_OR_RETURN(int64_t dim, node.intArg("dim"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  DType dtype = out.dtype;
  self = node.castTo(self, dtype);
  int64_t rank = self->type().rank();
  TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, rank));
  if (index->type().rank() != rank)
    return invalidInput("scatter index " + index->type().str() + " and input " +
                        self->type().str() + " differ in rank in node '" + node.name() + "'");
  Value *src = nullptr;
  if (node.schema().findArg("value") != nullptr) {
    TC_ASSIGN_OR_RETURN(ScalarOrTensor value, node.scalarOrTensor("value"));
    TC_ASSIGN_OR_RETURN(src, expand(node, node.materialize(value, dtype), index->type().shape));
  } else {
    TC_ASSIGN_OR_RETURN(Value * given, node.tensor("src"));
    TC_ASSIGN_OR_RETURN(src, sourceLikeIndex(node, node.castTo(given, dtype), index));
  }
  std::string reduce = "none";
  bool includeSelf = true;
  if (node.schema().findArg("reduce") != nullptr &&
      node.schema().findArg("include_self") == nullptr) {
    // scatter.reduce / scatter.value_reduce: the older spelling, "add" or "multiply".
    TC_ASSIGN_OR_RETURN(std::optional<std::string> given, node.optionalString("reduce"));
    if (given != "add" && given != "multiply")
      return invalidInput("scatter reduce '" + given.value_or("") + "' in node '" +
                          node.name() + "': expected add or multiply");
    reduce = *given == "add" ? "sum" : "prod";
  } else if (node.schema().findArg("reduce") != nullptr) {
    TC_ASSIGN_OR_RETURN(std::optional<std::string> given, node.optionalString("reduce"));
    TC_ASSIGN_OR_RETURN(includeSelf, node.boolArg("include_self"));
    reduce = given.value_or("sum");
  } else if (node.schema().name == "scatter_add") {
    reduce = "sum";
  }
  if (reduce != "mean") {
    if (reduce != "none" && reduce != "sum" && reduce != "prod" && reduce != "amax" &&
        reduce != "amin")
      return invalidInput("scatter_reduce '" + reduce + "' in node '" + node.name() +
                          "': expected sum, prod, mean, amax or amin");
    TC_ASSIGN_OR_RETURN(Value * result, scatterInto(node, self, dim, index, src, reduce,
                                                    includeSelf));
    return finish(node, result);
  }
  // mean, as PyTorch: the sum over count, count = (1 if include_self) + the number of
  // scattered elements, an untouched element's count taken as 1; integers divide by floor.
  TC_ASSIGN_OR_RETURN(Value * sum, scatterInto(node, self, dim, index, src, "sum", includeSelf));
  AttrMap base;
  base.set("value", includeSelf ? 1.0 : 0.0);
  Value *counts = node.emitTemp(OpKind::Full, {}, self->type(), std::move(base));
  AttrMap one;
  one.set("value", 1.0);
  Value *ones = node.emitTemp(OpKind::Full, {}, src->type(), std::move(one));
  TC_ASSIGN_OR_RETURN(counts, scatterInto(node, counts, dim, index, ones, "sum", true));
  TC_ASSIGN_OR_RETURN(Value * empty,
                      binary(node, OpKind::Eq, counts, node.scalarConstant(0.0, dtype)));
  TC_ASSIGN_OR_RETURN(counts, node.emitInferred(OpKind::Where,
                                   {empty, node.scalarConstant(1.0, dtype), counts}));
  OpKind divide = ir::isFloatingPoint(dtype) ? OpKind::Div : OpKind::FloorDivide;
  TC_ASSIGN_OR_RETURN(Value * mean, binary(node, divide, sum, counts));
  return finish(node, mean);
}

namespace {

/// where(mask, source[cumsum(mask) - 1], self) over self's shape: the masked elements of
/// self take source's elements in order (masked_scatter). `mask` broadcasts to self.
Expected<Value *> maskedScatter(NodeImport &node, Value *self, Value *mask, Value *source) {
  const ir::Shape &shape = self->type().shape;
  TC_ASSIGN_OR_RETURN(Value * full, expand(node, node.castTo(mask, DType::Bool), shape));
  ir::Dim numel = product(shape);
  ir::Dim sourceCount = product(source->type().shape);
  if (sourceCount == ir::Dim(0)) // nothing to take: every mask element must be false
    return node.emitInferred(OpKind::Copy, {self});
  TC_ASSIGN_OR_RETURN(Value * flat, reshape(node, full, {numel}));
  AttrMap along;
  along.set("dim", int64_t{0});
  TC_ASSIGN_OR_RETURN(Value * taken, node.emitInferred(OpKind::Cumsum, {flat}, along));
  TC_ASSIGN_OR_RETURN(taken, binary(node, OpKind::Sub, taken,
                                    node.scalarConstant(1.0, DType::I64)));
  AttrMap atLeastZero;
  atLeastZero.set("min", 0.0);
  TC_ASSIGN_OR_RETURN(taken, node.emitInferred(OpKind::Clamp, {taken}, atLeastZero));
  TC_ASSIGN_OR_RETURN(Value * values,
                      reshape(node, node.castTo(source, self->type().dtype), {sourceCount}));
  TC_ASSIGN_OR_RETURN(Value * picked, node.emitInferred(OpKind::IndexSelect, {values, taken}, along));
  TC_ASSIGN_OR_RETURN(picked, reshape(node, picked, shape));
  return node.emitInferred(OpKind::Where, {full, picked, self});
}

/// index_put with one bool mask at dims [lead, lead + mask rank) (after `lead` None entries).
Expected<Value *> indexPutMask(NodeImport &node, Value *self, size_t lead, Value *mask,
                               Value *values, bool accumulate) {
  const ir::Shape &shape = self->type().shape;
  const ir::Shape &maskShape = mask->type().shape;
  size_t after = lead + maskShape.size();
  if (after > shape.size())
    return invalidInput("index_put mask " + mask->type().str() + " does not fit " +
                        self->type().str() + " in node '" + node.name() + "'");
  for (size_t d = 0; d < maskShape.size(); ++d)
    if (!(maskShape[d] == shape[lead + d]))
      return invalidInput("index_put mask " + mask->type().str() + " does not match " +
                          self->type().str() + " at dim " + std::to_string(lead + d) +
                          " in node '" + node.name() + "'");
  // The mask over self's dims: size-1 dims before and after it.
  std::vector<ir::Dim> placed(lead, ir::Dim(1));
  placed.insert(placed.end(), maskShape.begin(), maskShape.end());
  placed.resize(shape.size(), ir::Dim(1));
  TC_ASSIGN_OR_RETURN(Value * where, reshape(node, node.castTo(mask, DType::Bool), placed));
  // values broadcast to [masked count, trailing dims...]; without a masked-count dim (or with
  // size 1 there) they broadcast over every masked element: where() does it.
  const ir::Shape &valueShape = values->type().shape;
  size_t trailing = shape.size() - after;
  bool perElement = valueShape.size() > trailing && !(valueShape[valueShape.size() - trailing - 1] == ir::Dim(1));
  for (size_t d = 0; d + trailing + 1 < valueShape.size(); ++d)
    perElement = perElement || !(valueShape[d] == ir::Dim(1));
  if (!perElement) {
    std::vector<ir::Dim> kept(valueShape.end() - static_cast<long>(std::min(trailing, valueShape.size())),
                              valueShape.end());
    TC_ASSIGN_OR_RETURN(Value * broadcast, reshape(node, values, kept));
    if (!accumulate)
      return node.emitInferred(OpKind::Where, {where, broadcast, self});
    TC_ASSIGN_OR_RETURN(Value * added,
                        node.emitInferred(OpKind::Where, {where, broadcast,
                                                   node.scalarConstant(0.0, self->type().dtype)}));
    return binary(node, OpKind::Add, self, added);
  }
  if (accumulate || lead != 0)
    return node.unsupportedFeature(
        "index_put with a bool mask and one value per masked element" +
        std::string(accumulate ? " and accumulate=True" : " after leading None indices"));
  return maskedScatter(node, self, where, values);
}

/// `index` as int64 with negative entries in [-extent, 0) moved up by extent (others kept, so
/// that a bad index is reported with its own value).
Expected<Value *> wrapNegative(NodeImport &node, Value *index, const ir::Dim &extent) {
  index = node.castTo(index, DType::I64);
  Value *size = node.sizeTensor(extent);
  Value *zero = node.scalarConstant(0.0, DType::I64);
  TC_ASSIGN_OR_RETURN(Value * negative, binary(node, OpKind::Lt, index, zero));
  TC_ASSIGN_OR_RETURN(Value * wrapped, binary(node, OpKind::Add, index, size));
  TC_ASSIGN_OR_RETURN(Value * low, binary(node, OpKind::Ge, wrapped, zero));
  TC_ASSIGN_OR_RETURN(Value * wraps, binary(node, OpKind::LogicalAnd, negative, low));
  return node.emitInferred(OpKind::Where, {wraps, wrapped, index});
}

} // namespace

// index_put(self, indices, values, accumulate) with integer indices: the indexed dims are
// moved first and flattened to rows, the rest to columns: self [rows, columns]; the indices
// (broadcast together, negative ones wrapped) give one row per index position; values,
// broadcast to PyTorch's indexing result and put in the same order, are [positions, columns];
// then one scatter along dim 0 (sum when accumulating) and the inverse reshape and permute.
namespace {

Expected<Value *> indexPut(NodeImport &node, Value *self, std::vector<Value *> indices,
                           Value *values, bool accumulate) {
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  DType dtype = out.dtype;
  values = node.castTo(values, dtype);
  const ir::Shape &shape = self->type().shape;
  std::vector<size_t> positions;
  for (size_t k = 0; k < indices.size(); ++k)
    if (indices[k] != nullptr)
      positions.push_back(k);
  if (positions.empty() || indices.size() > shape.size())
    return invalidInput("index_put of " + self->type().str() + " with " +
                        std::to_string(positions.size()) + " index tensors among " +
                        std::to_string(indices.size()) + " entries in node '" + node.name() + "'");
  Value *result = nullptr;
  bool anyMask = std::any_of(positions.begin(), positions.end(), [&](size_t k) {
    DType type = indices[k]->type().dtype;
    return type == DType::Bool || type == DType::U8;
  });
  if (anyMask) {
    if (positions.size() != 1)
      return node.unsupportedFeature("index_put with a bool mask beside other indices");
    TC_ASSIGN_OR_RETURN(result, indexPutMask(node, self, positions[0], indices[positions[0]],
                                             values, accumulate));
  } else {
    // B: the indices' common shape.
    ir::Shape common;
    for (size_t k : positions) {
      if (!ir::isIntegral(indices[k]->type().dtype))
        return invalidInput("index_put index " + indices[k]->type().str() +
                            " is neither integer nor bool in node '" + node.name() + "'");
      TC_ASSIGN_OR_RETURN(common, ir::broadcastShapes(common, indices[k]->type().shape));
    }
    std::vector<int64_t> order, rest;
    std::vector<ir::Dim> restShape;
    for (size_t k : positions)
      order.push_back(static_cast<int64_t>(k));
    for (size_t d = 0; d < shape.size(); ++d)
      if (d >= indices.size() || indices[d] == nullptr) {
        order.push_back(static_cast<int64_t>(d));
        rest.push_back(static_cast<int64_t>(d));
        restShape.push_back(shape[d]);
      }
    // PyTorch's indexing result: B in place of adjacent indexed dims, else B first.
    bool adjacent = positions.back() - positions.front() + 1 == positions.size();
    size_t before = adjacent ? positions.front() : 0;
    std::vector<ir::Dim> indexedShape(restShape.begin(), restShape.begin() + static_cast<long>(before));
    indexedShape.insert(indexedShape.end(), common.begin(), common.end());
    indexedShape.insert(indexedShape.end(), restShape.begin() + static_cast<long>(before), restShape.end());
    TC_ASSIGN_OR_RETURN(values, expand(node, values, indexedShape));
    if (positions.size() == 1 && common.size() == 1 && !accumulate) {
      // One 1-d index (`cache[:, :, pos] = new`, core ATen's form of index_copy_): a scatter
      // along that dim with no permute, so that a state updated in place writes only the
      // indexed slices. Negative indices wrap.
      size_t k = positions[0];
      TC_ASSIGN_OR_RETURN(Value * index, wrapNegative(node, indices[k], shape[k]));
      std::vector<ir::Dim> lined(shape.size(), ir::Dim(1));
      lined[k] = common[0];
      TC_ASSIGN_OR_RETURN(index, reshape(node, index, lined));
      TC_ASSIGN_OR_RETURN(index, expand(node, index, indexedShape));
      TC_ASSIGN_OR_RETURN(result, scatterInto(node, self, static_cast<int64_t>(k), index, values,
                                              "none", true));
      return result;
    }
    // values in the order B, rest.
    std::vector<int64_t> valueOrder;
    for (size_t d = 0; d < common.size(); ++d)
      valueOrder.push_back(static_cast<int64_t>(before + d));
    for (size_t d = 0; d < restShape.size(); ++d)
      valueOrder.push_back(static_cast<int64_t>(d < before ? d : d + common.size()));
    TC_ASSIGN_OR_RETURN(values, permute(node, values, valueOrder));
    ir::Dim count = product(common);
    ir::Dim columns = product(restShape);
    TC_ASSIGN_OR_RETURN(values, reshape(node, values, {count, columns}));
    // The row of each index position: indexed dims in order, row-major; negative indices
    // wrap. One indexed dim keeps a bad index's value (the error reports it); with several,
    // a position with a bad index gets row -1.
    Value *rows = nullptr;
    Value *valid = nullptr;
    ir::Dim stride(1);
    for (size_t m = positions.size(); m-- > 0;) {
      const ir::Dim &extentDim = shape[positions[m]];
      // A symbolic extent (MoE routers' `inv[perm] = arange(S)`) is read from its symbol.
      Value *extent = node.sizeTensor(extentDim);
      TC_ASSIGN_OR_RETURN(Value * index,
                          expand(node, node.castTo(indices[positions[m]], DType::I64), common));
      Value *zero = node.scalarConstant(0.0, DType::I64);
      TC_ASSIGN_OR_RETURN(Value * low, node.emitInferred(OpKind::Neg, {extent}));
      TC_ASSIGN_OR_RETURN(Value * notBelow, binary(node, OpKind::Ge, index, low));
      TC_ASSIGN_OR_RETURN(Value * negative, binary(node, OpKind::Lt, index, zero));
      TC_ASSIGN_OR_RETURN(Value * wraps, binary(node, OpKind::LogicalAnd, notBelow, negative));
      TC_ASSIGN_OR_RETURN(Value * wrapped, binary(node, OpKind::Add, index, extent));
      TC_ASSIGN_OR_RETURN(index, node.emitInferred(OpKind::Where, {wraps, wrapped, index}));
      if (positions.size() > 1) {
        TC_ASSIGN_OR_RETURN(Value * atLeastZero, binary(node, OpKind::Ge, index, zero));
        TC_ASSIGN_OR_RETURN(Value * belowExtent, binary(node, OpKind::Lt, index, extent));
        TC_ASSIGN_OR_RETURN(Value * inRange,
                            binary(node, OpKind::LogicalAnd, atLeastZero, belowExtent));
        if (valid == nullptr) {
          valid = inRange;
        } else {
          TC_ASSIGN_OR_RETURN(valid, binary(node, OpKind::LogicalAnd, valid, inRange));
        }
        if (!(stride == ir::Dim(1))) {
          TC_ASSIGN_OR_RETURN(index, binary(node, OpKind::Mul, index, node.sizeTensor(stride)));
        }
      }
      if (rows == nullptr) {
        rows = index;
      } else {
        TC_ASSIGN_OR_RETURN(rows, binary(node, OpKind::Add, rows, index));
      }
      stride = product({stride, extentDim});
    }
    if (valid != nullptr) {
      TC_ASSIGN_OR_RETURN(rows, node.emitInferred(OpKind::Where,
                                     {valid, rows, node.scalarConstant(-1.0, DType::I64)}));
    }
    TC_ASSIGN_OR_RETURN(rows, reshape(node, rows, {count, ir::Dim(1)}));
    TC_ASSIGN_OR_RETURN(rows, expand(node, rows, {count, columns}));
    TC_ASSIGN_OR_RETURN(Value * moved, permute(node, self, order));
    std::vector<ir::Dim> movedShape = moved->type().shape;
    TC_ASSIGN_OR_RETURN(Value * table, reshape(node, moved, {stride, columns}));
    TC_ASSIGN_OR_RETURN(table, scatterInto(node, table, 0, rows, values,
                                           accumulate ? "sum" : "none", true));
    TC_ASSIGN_OR_RETURN(table, reshape(node, table, movedShape));
    std::vector<int64_t> inverse(order.size());
    for (size_t d = 0; d < order.size(); ++d)
      inverse[static_cast<size_t>(order[d])] = static_cast<int64_t>(d);
    TC_ASSIGN_OR_RETURN(result, permute(node, table, inverse));
  }
  return result;
}

/// Each index clamped into [lo(extent), extent - 1] (None entries stay None).
Expected<std::vector<Value *>> clampedIndices(NodeImport &node, Value *self,
                                              std::vector<Value *> indices, bool negative) {
  const ir::Shape &shape = self->type().shape;
  if (indices.size() > shape.size())
    return invalidInput("node '" + node.name() + "' indexes " + std::to_string(indices.size()) +
                        " dims of a rank-" + std::to_string(shape.size()) + " tensor");
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d] == nullptr)
      continue;
    DType dtype = indices[d]->type().dtype;
    if (!ir::isIntegral(dtype) || dtype == DType::Bool)
      return invalidInput("node '" + node.name() + "': index " + std::to_string(d) + " is " +
                          indices[d]->type().str() + ", expected an integer tensor");
    Value *index = node.castTo(indices[d], DType::I64);
    Value *extent = node.sizeTensor(shape[d]);
    Value *low = node.scalarConstant(0.0, DType::I64);
    if (negative) {
      TC_ASSIGN_OR_RETURN(low, node.emitInferred(OpKind::Neg, {extent}));
    }
    TC_ASSIGN_OR_RETURN(Value * high, binary(node, OpKind::Sub, extent,
                                             node.scalarConstant(1.0, DType::I64)));
    TC_ASSIGN_OR_RETURN(index, binary(node, OpKind::Maximum, index, low));
    TC_ASSIGN_OR_RETURN(indices[d], binary(node, OpKind::Minimum, index, high));
  }
  return indices;
}

} // namespace

Status importIndexPut(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(std::vector<Value *> indices, node.optionalTensorList("indices"));
  TC_ASSIGN_OR_RETURN(Value * values, node.tensor("values"));
  TC_ASSIGN_OR_RETURN(bool accumulate, node.boolArg("accumulate"));
  TC_ASSIGN_OR_RETURN(Value * result, indexPut(node, self, std::move(indices), values, accumulate));
  return finish(node, result);
}

// _unsafe_masked_index_put_accumulate(self, mask, indices, values): as torch/_decomp, each
// index clamped into [-extent, extent - 1], values zeroed where mask is false, then summed into
// self at the indices.
Status importUnsafeMaskedIndexPutAccumulate(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * mask, node.tensor("mask"));
  TC_ASSIGN_OR_RETURN(std::vector<Value *> indices, node.optionalTensorList("indices"));
  TC_ASSIGN_OR_RETURN(Value * values, node.tensor("values"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (mask->type().dtype != DType::Bool)
    return invalidInput("node '" + node.name() + "': mask " + mask->type().str() +
                        " is not a bool tensor");
  TC_ASSIGN_OR_RETURN(indices, clampedIndices(node, self, std::move(indices), true));
  values = node.castTo(values, out.dtype);
  TC_ASSIGN_OR_RETURN(values, node.emitInferred(OpKind::Where,
                                                {mask, values,
                                                 node.scalarConstant(0.0, out.dtype)}));
  TC_ASSIGN_OR_RETURN(Value * result, indexPut(node, self, std::move(indices), values, true));
  return finish(node, result);
}

// _unsafe_masked_index(self, mask, indices, fill): self at the indices, each clamped into
// [0, extent - 1] (torch/_decomp's form), and fill where mask is false.
Status importUnsafeMaskedIndex(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * mask, node.tensor("mask"));
  TC_ASSIGN_OR_RETURN(std::vector<Value *> indices, node.optionalTensorList("indices"));
  TC_ASSIGN_OR_RETURN(ScalarOrTensor fill, node.scalarOrTensor("fill"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  if (mask->type().dtype != DType::Bool)
    return invalidInput("node '" + node.name() + "': mask " + mask->type().str() +
                        " is not a bool tensor");
  Value *fillValue = node.materialize(fill, out.dtype);
  ir::Dim count = ir::numElements(self->type().shape);
  if (count.isStatic() && count.value() == 0) {
    // Nothing to read: fill everywhere.
    TC_ASSIGN_OR_RETURN(Value * filled, expand(node, fillValue, out.shape));
    TC_ASSIGN_OR_RETURN(filled, node.emitInferred(OpKind::Copy, {filled}));
    return finish(node, filled);
  }
  TC_ASSIGN_OR_RETURN(indices, clampedIndices(node, self, std::move(indices), false));
  TC_ASSIGN_OR_RETURN(Value * picked, indexedValue(node, self, std::move(indices), out));
  TC_ASSIGN_OR_RETURN(Value * result,
                      node.emitInferred(OpKind::Where, {mask, picked, fillValue}));
  if (!(result->type() == out)) {
    TC_ASSIGN_OR_RETURN(result, expand(node, result, out.shape));
  }
  return finish(node, result);
}

/// masked_scatter.default: where(mask, source[cumsum(mask) - 1], self).
Status importMaskedScatter(NodeImport &node) {
  TC_ASSIGN_OR_RETURN(Value * self, node.tensor("self"));
  TC_ASSIGN_OR_RETURN(Value * mask, node.tensor("mask"));
  TC_ASSIGN_OR_RETURN(Value * source, node.tensor("source"));
  TC_ASSIGN_OR_RETURN(ir::TensorType out, node.outputType(0));
  TC_ASSIGN_OR_RETURN(ir::Shape shape, ir::broadcastShapes(self->type().shape, mask->type().shape));
  TC_ASSIGN_OR_RETURN(self, expand(node, node.castTo(self, out.dtype), shape));
  TC_ASSIGN_OR_RETURN(Value * result, maskedScatter(node, self, mask, source));
  return finish(node, result);
}

namespace {

// clang-format off
constexpr Converter kConverters[] = {
    {"aten.fft_fftshift.default", importFftShift<false>},
    {"aten.fft_ifftshift.default", importFftShift<true>},
    // flips, repeats, diagonals, strided copies, stack, roll and scatters (aten/scatter.cpp)
    {"aten.flip.default", importFlip},
    {"aten.repeat.default", importRepeat},
    {"aten.tile.default", importRepeat},
    {"aten.diagonal.default", importDiagonal},
    {"aten.as_strided.default", importAsStrided},
    {"aten.stack.default", importStack},
    {"aten.roll.default", importRoll},
    {"aten.slice_scatter.default", importSliceScatter},
    {"aten.select_scatter.default", importSelectScatter},
    {"aten.scatter.src", importScatter},
    {"aten.scatter.value", importScatter},
    {"aten.scatter.reduce", importScatter},
    {"aten.scatter.value_reduce", importScatter},
    {"aten.scatter_add.default", importScatter},
    {"aten.scatter_reduce.two", importScatter},
    {"aten.index_put.default", importIndexPut},
    {"aten._unsafe_masked_index.default", importUnsafeMaskedIndex},
    {"aten._unsafe_masked_index_put_accumulate.default", importUnsafeMaskedIndexPutAccumulate},
    {"aten.index_copy.default", importIndexCopy},
    {"aten.masked_scatter.default", importMaskedScatter},
    {"aten.index_put_.default", importInplace<importIndexPut>},
    {"aten.index_copy_.default", importInplace<importIndexCopy>},
};
// clang-format on

} // namespace

std::span<const Converter> scatterConverters() { return kConverters; }

} // namespace thunderc::frontend
