// Reference semantics of sort (a stable sort along a dim, NaN largest) and embedding_bag (sum,
// mean or max over bags of embedding rows); ir/ops.def defines both.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

/// Whether key a goes strictly before key b in ascending order, NaN above every number.
bool ascendingBefore(double a, double b) {
  if (std::isnan(a))
    return false;
  return std::isnan(b) || a < b;
}

Status sortAlong(OpCall &call) {
  const Tensor &x = call.operand(0);
  TC_ASSIGN_OR_RETURN(int64_t dim, normalizeDim(attr::dim(call.node), std::max<int64_t>(x.rank(), 1)));
  TC_TRY(expectShape(call.result(0), x.shape));
  TC_TRY(expectShape(call.result(1), x.shape));
  bool descending = attr::descending(call.node);
  int64_t extent = x.rank() == 0 ? 1 : x.shape[static_cast<size_t>(dim)];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < x.rank(); ++d)
    inner *= x.shape[static_cast<size_t>(d)];
  int64_t outer = extent * inner == 0 ? 0 : x.numel() / (extent * inner);
  std::vector<int64_t> order(static_cast<size_t>(extent));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto key = [&](int64_t j) { return x.data[static_cast<size_t>((o * extent + j) * inner + i)]; };
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        return descending ? ascendingBefore(key(b), key(a)) : ascendingBefore(key(a), key(b));
      });
      for (int64_t j = 0; j < extent; ++j) {
        auto at = static_cast<size_t>((o * extent + j) * inner + i);
        call.result(0).data[at] = key(order[static_cast<size_t>(j)]);
        call.result(1).data[at] = static_cast<double>(order[static_cast<size_t>(j)]);
      }
    }
  return Status::success();
}

Status embeddingBag(OpCall &call) {
  const Tensor &weight = call.operand(0);
  const Tensor &indices = call.operand(1);
  const Tensor &offsets = call.operand(2);
  const Tensor *perSample = call.numOperands() > 3 ? &call.operand(3) : nullptr;
  if (weight.rank() != 2 || indices.rank() != 1 || offsets.rank() != 1)
    return invalidInput("embedding_bag needs a 2-D weight and 1-D indices and offsets, got " +
                        shapeText(weight.shape) + ", " + shapeText(indices.shape) + " and " +
                        shapeText(offsets.shape));
  bool includeLast = attr::include_last_offset(call.node);
  int64_t count = indices.numel();
  int64_t bags = includeLast ? offsets.numel() - 1 : offsets.numel();
  int64_t rows = weight.shape[0];
  int64_t width = weight.shape[1];
  TC_TRY(expectShape(call.result(), {std::max<int64_t>(bags, 0), width}));
  const std::string &mode = attr::mode(call.node);
  int64_t padding = attr::padding_idx(call.node);
  for (int64_t k = 0; k < count; ++k) {
    auto index = static_cast<int64_t>(indices.data[static_cast<size_t>(k)]);
    if (index < 0 || index >= rows)
      return invalidInput("index " + std::to_string(index) + " at position " +
                          std::to_string(k) + " is out of range for size " +
                          std::to_string(rows));
  }
  auto clamped = [&](int64_t b) {
    if (b >= offsets.numel())
      return count;
    return std::clamp(static_cast<int64_t>(offsets.data[static_cast<size_t>(b)]), int64_t{0},
                      count);
  };
  std::vector<double> &out = call.result().data;
  for (int64_t b = 0; b < bags; ++b) {
    int64_t begin = clamped(b);
    int64_t end = clamped(b + 1);
    for (int64_t d = 0; d < width; ++d) {
      double total = 0;
      int64_t used = 0;
      for (int64_t k = begin; k < end; ++k) {
        auto index = static_cast<int64_t>(indices.data[static_cast<size_t>(k)]);
        if (index == padding)
          continue;
        double value = weight.data[static_cast<size_t>(index * width + d)];
        if (perSample != nullptr)
          value *= perSample->data[static_cast<size_t>(k)];
        if (mode == "max")
          total = used == 0 || value > total || std::isnan(value) ? value : total;
        else
          total += value;
        ++used;
      }
      if (mode == "mean" && used > 0)
        total /= static_cast<double>(used);
      out[static_cast<size_t>(b * width + d)] = total;
    }
  }
  return Status::success();
}

} // namespace

Status runSortOp(OpCall &call) {
  if (call.node.op() == OpKind::Sort)
    return sortAlong(call);
  return embeddingBag(call);
}

} // namespace thunderc::ir::interp
