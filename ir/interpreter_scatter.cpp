// Reference semantics of flip, diagonal, as_strided (strided reads of the operand) and of the
// scatters slice_scatter and scatter (ir/ops.def). Views are materialized as copies.
#include <cmath>
#include <limits>

#include "ir/host_tensor.h"
#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

/// result[i..] = input[offset + sum_k i_k * strides[k]] over the result's shape.
void stridedRead(const Tensor &input, int64_t offset, const std::vector<int64_t> &strides,
                 Tensor &result) {
  forEachIndex<1>(result.shape, {&strides},
                  [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
                    result.data[static_cast<size_t>(linear)] =
                        input.data[static_cast<size_t>(offset + offsets[0])];
                  });
}

Status flip(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_TRY(expectShape(call.result(), input.shape));
  std::vector<int64_t> strides = contiguousStrides(input.shape);
  int64_t offset = 0;
  for (int64_t dim : attr::dims(call.node)) {
    TC_ASSIGN_OR_RETURN(int64_t d, normalizeDim(dim, input.rank()));
    auto at = static_cast<size_t>(d);
    offset += std::max<int64_t>(input.shape[at] - 1, 0) * strides[at];
    strides[at] = -strides[at];
  }
  stridedRead(input, offset, strides, call.result());
  return Status::success();
}

Status diagonal(OpCall &call) {
  const Tensor &input = call.operand(0);
  std::vector<int64_t> dims = attr::dims(call.node);
  if (dims.size() != 2)
    return invalidInput("diagonal needs two dims, got " + shapeText(dims));
  TC_ASSIGN_OR_RETURN(int64_t first, normalizeDim(dims[0], input.rank()));
  TC_ASSIGN_OR_RETURN(int64_t second, normalizeDim(dims[1], input.rank()));
  if (first == second)
    return invalidInput("diagonal dims " + shapeText(dims) + " are the same dim");
  int64_t offset = attr::diagonal(call.node);
  std::vector<int64_t> inputStrides = contiguousStrides(input.shape);
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if (d == first || d == second)
      continue;
    shape.push_back(input.shape[static_cast<size_t>(d)]);
    strides.push_back(inputStrides[static_cast<size_t>(d)]);
  }
  auto row = static_cast<size_t>(first);
  auto col = static_cast<size_t>(second);
  int64_t length = std::max<int64_t>(0, std::min(input.shape[row] - std::max<int64_t>(0, -offset),
                                                 input.shape[col] - std::max<int64_t>(0, offset)));
  shape.push_back(length);
  strides.push_back(inputStrides[row] + inputStrides[col]);
  TC_TRY(expectShape(call.result(), shape));
  int64_t start = length == 0 ? 0
                  : offset >= 0 ? offset * inputStrides[col]
                                : -offset * inputStrides[row];
  stridedRead(input, start, strides, call.result());
  return Status::success();
}

Status asStrided(OpCall &call) {
  const Tensor &input = call.operand(0);
  std::vector<int64_t> strides = attr::stride(call.node);
  int64_t start = attr::start(call.node);
  const std::vector<int64_t> &shape = call.result().shape;
  if (strides.size() != shape.size())
    return invalidInput("as_strided of " + std::to_string(shape.size()) + " dims with strides " +
                        shapeText(strides));
  int64_t last = start;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (strides[i] < 0)
      return invalidInput("as_strided stride " + shapeText(strides) + " is negative");
    last += (shape[i] - 1) * strides[i];
  }
  if (shapeNumel(shape) > 0 && (start < 0 || last >= input.numel()))
    return invalidInput("as_strided reads positions " + std::to_string(start) + " to " +
                        std::to_string(last) + " of an input of " +
                        std::to_string(input.numel()) + " elements");
  stridedRead(input, start, strides, call.result());
  return Status::success();
}

Status sliceScatter(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &src = call.operand(1);
  TC_ASSIGN_OR_RETURN(SliceWindow slice, sliceWindow(call, input, "slice_scatter"));
  auto [dim, start, end, step] = slice;
  auto at = static_cast<size_t>(dim);
  std::vector<int64_t> window = input.shape;
  window[at] = (end - start + step - 1) / step;
  if (src.shape != window)
    return invalidInput("slice_scatter source " + shapeText(src.shape) +
                        " does not fill the window " + shapeText(window));
  TC_TRY(expectShape(call.result(), input.shape));
  Tensor &result = call.result();
  result.data = input.data;
  std::vector<int64_t> strides = contiguousStrides(input.shape);
  int64_t offset = start * strides[at];
  strides[at] *= step;
  forEachIndex<1>(src.shape, {&strides},
                  [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
                    result.data[static_cast<size_t>(offset + offsets[0])] =
                        src.data[static_cast<size_t>(linear)];
                  });
  return Status::success();
}

/// The value that leaves every other value unchanged under `reduce`.
double reductionIdentity(const std::string &reduce) {
  if (reduce == "prod")
    return 1.0;
  if (reduce == "amax")
    return -std::numeric_limits<double>::infinity();
  if (reduce == "amin")
    return std::numeric_limits<double>::infinity();
  return 0.0;
}

/// current combined with value under `reduce`; amax and amin propagate NaN like PyTorch.
double combine(const std::string &reduce, double current, double value) {
  if (reduce == "sum")
    return current + value;
  if (reduce == "prod")
    return current * value;
  if (reduce == "amax")
    return std::isnan(value) ? value : (current < value ? value : current);
  if (reduce == "amin")
    return std::isnan(value) ? value : (value < current ? value : current);
  return value;
}

Status scatter(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &index = call.operand(1);
  const Tensor &src = call.operand(2);
  int64_t rank = input.rank();
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(call.node), std::max<int64_t>(rank, 1)));
  if (index.rank() != rank || index.shape != src.shape)
    return invalidInput("scatter index " + shapeText(index.shape) + ", source " +
                        shapeText(src.shape) + " and input " + shapeText(input.shape) +
                        " must have one rank and index the source's shape");
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim && index.shape[static_cast<size_t>(d)] != input.shape[static_cast<size_t>(d)])
      return invalidInput("scatter index " + shapeText(index.shape) + " differs from the input " +
                          shapeText(input.shape) + " outside dim " + std::to_string(dim));
  TC_TRY(expectShape(call.result(), input.shape));
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
  for (double value : index.data)
    if (value < 0 || value >= static_cast<double>(extent))
      return invalidInput("index " + std::to_string(static_cast<int64_t>(value)) +
                          " is out of range for size " + std::to_string(extent));
  const std::string &reduce = attr::reduce(call.node);
  Tensor &result = call.result();
  result.data = input.data;
  auto target = [&](int64_t o, int64_t j, int64_t i) {
    auto position = static_cast<int64_t>(index.data[static_cast<size_t>((o * count + j) * inner + i)]);
    return static_cast<size_t>((o * extent + position) * inner + i);
  };
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      if (reduce != "none" && !attr::include_self(call.node))
        for (int64_t j = 0; j < count; ++j)
          result.data[target(o, j, i)] = reductionIdentity(reduce);
      for (int64_t j = 0; j < count; ++j) {
        double &slot = result.data[target(o, j, i)];
        slot = combine(reduce, slot, src.data[static_cast<size_t>((o * count + j) * inner + i)]);
      }
    }
  return Status::success();
}

} // namespace

Status runScatterOp(OpCall &call) {
  switch (call.node.op()) {
  case OpKind::Flip:
    return flip(call);
  case OpKind::Diagonal:
    return diagonal(call);
  case OpKind::AsStrided:
    return asStrided(call);
  case OpKind::SliceScatter:
    return sliceScatter(call);
  case OpKind::Scatter:
    return scatter(call);
  default:
    TC_CHECK(false, "not a flip, diagonal, as_strided or scatter op");
  }
}

} // namespace thunderc::ir::interp
