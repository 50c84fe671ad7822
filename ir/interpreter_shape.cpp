// Shape and data-movement ops of the reference interpreter (reshape, permute, expand, slice,
// select, squeeze, unsqueeze, concat, split, tril, triu), constants (full, arange) and index
// ops (embedding, index_select). Views are materialized as copies; only the values matter.
#include <algorithm>
#include <cmath>

#include "ir/host_tensor.h"
#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {

Expected<SliceWindow> sliceWindow(const OpCall &call, const Tensor &input, const char *what) {
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(call.node), input.rank()));
  int64_t size = input.shape[static_cast<size_t>(dim)];
  int64_t step = attr::step(call.node);
  if (step < 1)
    return invalidInput(std::string(what) + " step " + std::to_string(step) +
                        " must be positive");
  Dim endDim = attr::end(call.node);
  std::optional<int64_t> endValue =
      endDim.isStatic() ? endDim.value() : endDim.expr().evaluate(call.bindings);
  if (!endValue)
    return invalidInput(std::string(what) + " end " + endDim.str() + " cannot be evaluated");
  auto clampIndex = [size](int64_t index) {
    if (index < 0)
      index = index < -size ? 0 : index + size;
    return std::min(index, size);
  };
  int64_t start = clampIndex(attr::start(call.node));
  return SliceWindow{dim, start, std::max(start, clampIndex(*endValue)), step};
}

namespace {

/// Copies the input unchanged into a result whose shape the op computed.
Status copyAs(OpCall &call, const std::vector<int64_t> &expected) {
  TC_TRY(expectShape(call.result(), expected));
  call.result().data = call.operand(0).data;
  return Status::success();
}

Status reshape(OpCall &call) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  if (output.numel() != input.numel())
    return invalidInput("cannot reshape " + shapeText(input.shape) + " to " +
                        shapeText(output.shape));
  return copyAs(call, output.shape);
}

Status permute(OpCall &call) {
  const Tensor &input = call.operand(0);
  std::vector<int64_t> dims = attr::dims(call.node);
  if (static_cast<int64_t>(dims.size()) != input.rank())
    return invalidInput("permute dims " + shapeText(dims) + " for rank " +
                        std::to_string(input.rank()));
  std::vector<int64_t> inputStrides = contiguousStrides(input.shape);
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::vector<bool> seen(dims.size(), false);
  for (int64_t dim : dims) {
    TC_ASSIGN_OR_RETURN(int64_t d, normalizeDim(dim, input.rank()));
    if (seen[static_cast<size_t>(d)])
      return invalidInput("permute dims " + shapeText(dims) + " repeat a dim");
    seen[static_cast<size_t>(d)] = true;
    shape.push_back(input.shape[static_cast<size_t>(d)]);
    strides.push_back(inputStrides[static_cast<size_t>(d)]);
  }
  Tensor &output = call.result();
  TC_TRY(expectShape(output, shape));
  forEachIndex<1>(shape, {&strides}, [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
    output.data[static_cast<size_t>(linear)] = input.data[static_cast<size_t>(offsets[0])];
  });
  return Status::success();
}

/// Broadcasts the input to the result shape (size-1 dims stretch, new leading dims appear).
Status expand(OpCall &call) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, broadcastShapes(input.shape, output.shape));
  if (shape != output.shape)
    return invalidInput("cannot expand " + shapeText(input.shape) + " to " +
                        shapeText(output.shape));
  std::vector<int64_t> strides = broadcastStrides(input.shape, output.shape);
  forEachIndex<1>(shape, {&strides}, [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
    output.data[static_cast<size_t>(linear)] = input.data[static_cast<size_t>(offsets[0])];
  });
  return Status::success();
}

/// Gathers `indices` along dim `dim` of the input viewed as [outer, size, inner].
void gather(const Tensor &input, int64_t dim, const std::vector<int64_t> &indices, Tensor &output) {
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (d < dim)
      outer *= input.shape[static_cast<size_t>(d)];
    if (d > dim)
      inner *= input.shape[static_cast<size_t>(d)];
  }
  int64_t size = input.shape[static_cast<size_t>(dim)];
  auto out = output.data.begin();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t index : indices) {
      auto from = input.data.begin() + (o * size + index) * inner;
      out = std::copy(from, from + inner, out);
    }
}

/// Elements start, start+step, ... below end along dim; negative start/end count from the
/// end, both clamp to [0, size] and end to at least start (PyTorch's slice).
Status slice(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_ASSIGN_OR_RETURN(SliceWindow window, sliceWindow(call, input, "slice"));
  auto [dim, start, end, step] = window;
  std::vector<int64_t> indices;
  for (int64_t index = start; index < end; index += step)
    indices.push_back(index);
  std::vector<int64_t> expected = input.shape;
  expected[static_cast<size_t>(dim)] = static_cast<int64_t>(indices.size());
  TC_TRY(expectShape(call.result(), expected));
  gather(input, dim, indices, call.result());
  return Status::success();
}

Status select(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(call.node), input.rank()));
  int64_t size = input.shape[static_cast<size_t>(dim)];
  int64_t index = attr::index(call.node);
  if (index < -size || index >= size)
    return invalidInput("select index " + std::to_string(index) + " is out of range for size " +
                        std::to_string(size));
  std::vector<int64_t> expected = input.shape;
  expected.erase(expected.begin() + dim);
  TC_TRY(expectShape(call.result(), expected));
  gather(input, dim, {index < 0 ? index + size : index}, call.result());
  return Status::success();
}

/// Removes the listed dims that have size 1 (others stay, as in PyTorch); an empty list
/// removes nothing (aten.squeeze.dims with []).
Status squeeze(OpCall &call) {
  const Tensor &input = call.operand(0);
  std::vector<bool> removed(input.shape.size(), false);
  for (int64_t dim : attr::dims(call.node)) {
    TC_ASSIGN_OR_RETURN(int64_t d, normalizeDim(dim, std::max<int64_t>(input.rank(), 1)));
    if (input.rank() > 0 && input.shape[static_cast<size_t>(d)] == 1)
      removed[static_cast<size_t>(d)] = true;
  }
  std::vector<int64_t> expected;
  for (size_t d = 0; d < input.shape.size(); ++d)
    if (!removed[d])
      expected.push_back(input.shape[d]);
  return copyAs(call, expected);
}

Status unsqueeze(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(call.node), input.rank() + 1));
  std::vector<int64_t> expected = input.shape;
  expected.insert(expected.begin() + dim, 1);
  return copyAs(call, expected);
}

/// Concatenates along dim; operands agree on every other dim (the verifier's rule: the
/// importer resolves PyTorch's legacy skipping of 1-D size-0 operands).
Status concat(OpCall &call) {
  Tensor &output = call.result();
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(call.node), output.rank()));
  auto at = static_cast<size_t>(dim);
  std::vector<int64_t> expected;
  for (const Tensor *operand : call.operands) {
    if (operand->rank() != output.rank())
      return invalidInput("concat operand " + shapeText(operand->shape) + " has rank " +
                          std::to_string(operand->rank()) + ", the result " +
                          std::to_string(output.rank()));
    std::vector<int64_t> shape = operand->shape;
    if (expected.empty()) {
      expected = shape;
      expected[at] = 0;
    }
    shape[at] = expected[at];
    if (shape != expected)
      return invalidInput("concat operand " + shapeText(operand->shape) + " differs outside dim " +
                          std::to_string(dim));
    expected[at] += operand->shape[at];
  }
  TC_TRY(expectShape(output, expected));
  int64_t outer =
      shapeNumel(std::vector<int64_t>(output.shape.begin(), output.shape.begin() + dim));
  auto out = output.data.begin();
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor *operand : call.operands) {
      int64_t chunk = operand->numel() / outer;
      auto from = operand->data.begin() + o * chunk;
      out = std::copy(from, from + chunk, out);
    }
  return Status::success();
}

/// Splits along dim into pieces of the given (possibly symbolic) sizes.
Status split(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(call.node), input.rank()));
  std::vector<Dim> sizes = attr::sizes(call.node);
  if (sizes.size() != call.results.size())
    return invalidInput("split into " + std::to_string(sizes.size()) + " sizes but " +
                        std::to_string(call.results.size()) + " results");
  int64_t offset = 0;
  for (size_t r = 0; r < sizes.size(); ++r) {
    std::optional<int64_t> size =
        sizes[r].isStatic() ? sizes[r].value() : sizes[r].expr().evaluate(call.bindings);
    if (!size || *size < 0)
      return invalidInput("split size " + sizes[r].str() + " cannot be evaluated");
    std::vector<int64_t> indices(static_cast<size_t>(*size));
    for (int64_t i = 0; i < *size; ++i)
      indices[static_cast<size_t>(i)] = offset + i;
    offset += *size;
    if (offset > input.shape[static_cast<size_t>(dim)])
      break;
    std::vector<int64_t> expected = input.shape;
    expected[static_cast<size_t>(dim)] = *size;
    TC_TRY(expectShape(call.result(static_cast<int>(r)), expected));
    gather(input, dim, indices, call.result(static_cast<int>(r)));
  }
  if (offset != input.shape[static_cast<size_t>(dim)])
    return invalidInput("split sizes do not add up to " +
                        std::to_string(input.shape[static_cast<size_t>(dim)]));
  return Status::success();
}

/// tril keeps column - row <= diagonal of the last two dims; triu keeps >= diagonal.
Status triangle(OpCall &call, bool lower) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  if (input.rank() < 2)
    return invalidInput("tril/triu input " + shapeText(input.shape) + " has rank below 2");
  TC_TRY(expectShape(output, input.shape));
  int64_t rows = input.shape[input.shape.size() - 2];
  int64_t columns = input.shape.back();
  int64_t diagonal = attr::diagonal(call.node);
  for (int64_t i = 0; i < input.numel(); ++i) {
    int64_t column = i % columns;
    int64_t row = (i / columns) % rows;
    bool keep = lower ? column - row <= diagonal : column - row >= diagonal;
    output.data[static_cast<size_t>(i)] = keep ? input.data[static_cast<size_t>(i)] : 0.0;
  }
  return Status::success();
}

/// start + i * step for each element of the 1-D result (rounded to its dtype on store).
Status arange(OpCall &call) {
  Tensor &output = call.result();
  if (output.rank() != 1)
    return invalidInput("arange result " + shapeText(output.shape) + " is not 1-D");
  double start = attr::arange_start(call.node);
  double step = attr::arange_step(call.node);
  for (int64_t i = 0; i < output.numel(); ++i)
    output.data[static_cast<size_t>(i)] = start + static_cast<double>(i) * step;
  return Status::success();
}

/// Reads an integer index tensor, checking each index against [0, size).
Expected<std::vector<int64_t>> readIndices(const Tensor &indices, int64_t size) {
  if (!isIntegral(indices.dtype))
    return invalidInput(std::string("indices must be integers, got ") +
                        std::string(dtypeName(indices.dtype)));
  std::vector<int64_t> values;
  values.reserve(indices.data.size());
  for (double value : indices.data) {
    auto index = static_cast<int64_t>(value);
    if (index < 0 || index >= size)
      return invalidInput("index " + std::to_string(index) + " is out of range for size " +
                          std::to_string(size));
    values.push_back(index);
  }
  return values;
}

/// embedding(weight[V, D], indices) -> [*indices, D].
Status embedding(OpCall &call) {
  const Tensor &weight = call.operand(0);
  const Tensor &indices = call.operand(1);
  if (weight.rank() != 2)
    return invalidInput("embedding weight " + shapeText(weight.shape) + " is not 2-D");
  std::vector<int64_t> expected = indices.shape;
  expected.push_back(weight.shape[1]);
  TC_TRY(expectShape(call.result(), expected));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> rows, readIndices(indices, weight.shape[0]));
  gather(weight, 0, rows, call.result());
  return Status::success();
}

/// index_select(input, index) along dim; a 0-d index selects one element, keeping the dim.
Status indexSelect(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &index = call.operand(1);
  TC_ASSIGN_OR_RETURN(int64_t dim,
                      normalizeDim(attr::dim(call.node), std::max<int64_t>(input.rank(), 1)));
  if (index.rank() > 1)
    return invalidInput("index_select index " + shapeText(index.shape) + " is not 1-D");
  if (input.rank() == 0 && index.numel() != 1)
    return invalidInput("index_select of a 0-d input takes one index, got " +
                        shapeText(index.shape));
  Tensor input1d = input;
  if (input.rank() == 0)
    input1d.shape = {1};
  std::vector<int64_t> expected = input.shape;
  if (input.rank() > 0)
    expected[static_cast<size_t>(dim)] = index.numel();
  TC_TRY(expectShape(call.result(), expected));
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> positions,
                      readIndices(index, input1d.shape[static_cast<size_t>(dim)]));
  gather(input1d, dim, positions, call.result());
  return Status::success();
}

/// gather(input, index) along dim: the result, shaped like index, takes input's element at
/// the index along dim and the result's own position elsewhere.
Status gatherAlong(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &index = call.operand(1);
  int64_t rank = input.rank();
  TC_ASSIGN_OR_RETURN(int64_t dim,
                      normalizeDim(attr::dim(call.node), std::max<int64_t>(rank, 1)));
  if (index.rank() != rank)
    return invalidInput("gather index " + shapeText(index.shape) + " and input " +
                        shapeText(input.shape) + " differ in rank");
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && index.shape[static_cast<size_t>(d)] != input.shape[static_cast<size_t>(d)])
      return invalidInput("gather index " + shapeText(index.shape) + " differs from the input " +
                          shapeText(input.shape) + " outside dim " + std::to_string(dim));
  TC_TRY(expectShape(call.result(), index.shape));
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < dim)
      outer *= input.shape[static_cast<size_t>(d)];
    if (d > dim)
      inner *= input.shape[static_cast<size_t>(d)];
  }
  int64_t extent = rank == 0 ? 1 : input.shape[static_cast<size_t>(dim)];
  int64_t count = rank == 0 ? 1 : index.shape[static_cast<size_t>(dim)];
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> positions, readIndices(index, extent));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j)
      for (int64_t i = 0; i < inner; ++i) {
        auto at = static_cast<size_t>((o * count + j) * inner + i);
        call.result().data[at] =
            input.data[static_cast<size_t>((o * extent + positions[at]) * inner + i)];
      }
  return Status::success();
}

} // namespace

Status runShapeOp(OpCall &call) {
  switch (call.node.op()) {
  case OpKind::Reshape:
    return reshape(call);
  case OpKind::Permute:
    return permute(call);
  case OpKind::Expand:
    return expand(call);
  case OpKind::Slice:
    return slice(call);
  case OpKind::Select:
    return select(call);
  case OpKind::Squeeze:
    return squeeze(call);
  case OpKind::Unsqueeze:
    return unsqueeze(call);
  case OpKind::Concat:
    return concat(call);
  case OpKind::Split:
    return split(call);
  case OpKind::Tril:
    return triangle(call, true);
  case OpKind::Triu:
    return triangle(call, false);
  case OpKind::Full: {
    double value = attr::value(call.node);
    std::fill(call.result().data.begin(), call.result().data.end(), value);
    return Status::success();
  }
  case OpKind::Arange:
    return arange(call);
  case OpKind::Embedding:
    return embedding(call);
  case OpKind::IndexSelect:
    return indexSelect(call);
  case OpKind::Gather:
    return gatherAlong(call);
  case OpKind::Pad:
    return runPad(call);
  case OpKind::Flip:
  case OpKind::Diagonal:
  case OpKind::AsStrided:
  case OpKind::SliceScatter:
  case OpKind::Scatter:
    return runScatterOp(call);
  case OpKind::Sort:
  case OpKind::EmbeddingBag:
    return runSortOp(call);
  case OpKind::Random:
    return runRandom(call);
  default:
    TC_CHECK(false, "not a shape op");
  }
}

} // namespace thunderc::ir::interp
