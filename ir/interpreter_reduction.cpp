// Reductions of the reference interpreter: sum, mean, amax, amin, prod, any and var over a
// set of dims (empty = all), and argmax along one dim. Accumulation is in double, so the
// results are at least as accurate as PyTorch's (which accumulates f16/bf16 in f32).
#include <cmath>
#include <limits>

#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Which input dims a reduction folds, and where each input element lands in the output.
struct ReductionPlan {
  std::vector<int64_t> outputStrides; ///< per input dim; 0 along reduced dims
  std::vector<int64_t> outputShape;   ///< keepdim or not, as the op's attribute says
  int64_t count = 1;                  ///< input elements per output element
};

/// Builds the plan for reducing `dims` (empty = all; a 0-d input reduces like a 1-element
/// 1-D one, as in PyTorch). Errors: a dim out of range or listed twice.
Expected<ReductionPlan> planReduction(const std::vector<int64_t> &shape, std::vector<int64_t> dims,
                                      bool keepdim) {
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<bool> reduced(shape.size(), dims.empty());
  for (int64_t dim : dims) {
    TC_ASSIGN_OR_RETURN(int64_t normalized, normalizeDim(dim, std::max<int64_t>(rank, 1)));
    if (rank == 0)
      continue;
    if (reduced[static_cast<size_t>(normalized)])
      return invalidInput("dim " + std::to_string(dim) + " appears twice in the reduced dims");
    reduced[static_cast<size_t>(normalized)] = true;
  }
  ReductionPlan plan;
  std::vector<int64_t> keptShape;
  for (size_t d = 0; d < shape.size(); ++d) {
    keptShape.push_back(reduced[d] ? 1 : shape[d]);
    if (reduced[d])
      plan.count *= shape[d];
    if (!reduced[d] || keepdim)
      plan.outputShape.push_back(keptShape.back());
  }
  plan.outputStrides = broadcastStrides(keptShape, shape);
  return plan;
}

/// Folds every input element into its output element: out = combine(out, x), starting from
/// `initial`.
template <typename Combine>
void accumulate(const Tensor &input, const ReductionPlan &plan, Tensor &output, double initial,
                Combine combine) {
  std::fill(output.data.begin(), output.data.end(), initial);
  double *out = output.data.data();
  const double *in = input.data.data();
  forEachIndex<1>(input.shape, {&plan.outputStrides},
                  [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
                    out[offsets[0]] = combine(out[offsets[0]], in[linear]);
                  });
}

/// Population variance scaled by n / max(0, n - correction), in two passes (mean, then
/// squared deviations) so that large offsets do not cancel.
void variance(const Tensor &input, const ReductionPlan &plan, double correction, Tensor &output) {
  std::vector<double> mean(output.data.size(), 0.0);
  const double *in = input.data.data();
  forEachIndex<1>(input.shape, {&plan.outputStrides},
                  [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
                    mean[static_cast<size_t>(offsets[0])] += in[linear];
                  });
  for (double &value : mean)
    value /= static_cast<double>(plan.count);
  std::fill(output.data.begin(), output.data.end(), 0.0);
  forEachIndex<1>(input.shape, {&plan.outputStrides},
                  [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
                    double deviation = in[linear] - mean[static_cast<size_t>(offsets[0])];
                    output.data[static_cast<size_t>(offsets[0])] += deviation * deviation;
                  });
  double divisor = std::max(0.0, static_cast<double>(plan.count) - correction);
  for (double &value : output.data)
    value /= divisor;
}

/// amax/amin: the first NaN wins (PyTorch propagates it); an empty reduction is an error,
/// as in PyTorch. `initial` is the identity (-inf for amax, inf for amin).
template <typename Better>
Status extremum(const Tensor &input, const ReductionPlan &plan, Tensor &output, double initial,
                Better better) {
  if (plan.count == 0 && output.numel() != 0)
    return invalidInput("cannot reduce over a size-0 dim without an identity");
  accumulate(input, plan, output, initial, [&](double best, double x) {
    if (std::isnan(best))
      return best;
    return std::isnan(x) || better(x, best) ? x : best;
  });
  return Status::success();
}

/// argmax along `dim`: the first index of the maximum; a NaN counts as larger than
/// everything, so the first NaN wins.
Status argmax(OpCall &call) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  int64_t rank = input.rank();
  TC_ASSIGN_OR_RETURN(int64_t dim,
                      normalizeDim(attr::dim(call.node), std::max<int64_t>(rank, 1)));
  bool keepdim = attr::keepdim(call.node);
  int64_t size = rank == 0 ? 1 : input.shape[static_cast<size_t>(dim)];
  std::vector<int64_t> expected;
  int64_t outer = 1;
  int64_t inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t extent = input.shape[static_cast<size_t>(d)];
    if (d < dim)
      outer *= extent;
    if (d > dim)
      inner *= extent;
    if (d != dim || keepdim)
      expected.push_back(d == dim ? 1 : extent);
  }
  TC_TRY(expectShape(output, expected));
  if (size == 0 && output.numel() != 0)
    return invalidInput("argmax over a size-0 dim");
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const double *row = input.data.data() + o * size * inner + i;
      int64_t best = 0;
      for (int64_t j = 1; j < size && !std::isnan(row[best * inner]); ++j)
        if (std::isnan(row[j * inner]) || row[j * inner] > row[best * inner])
          best = j;
      output.data[static_cast<size_t>(o * inner + i)] = static_cast<double>(best);
    }
  }
  return Status::success();
}

} // namespace

Status runReductionOp(OpCall &call) {
  if (call.node.op() == OpKind::Argmax)
    return argmax(call);
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  TC_ASSIGN_OR_RETURN(ReductionPlan plan, planReduction(input.shape, attr::dims(call.node),
                                                        attr::keepdim(call.node)));
  TC_TRY(expectShape(output, plan.outputShape));
  auto sum = [](double total, double x) { return total + x; };
  switch (call.node.op()) {
  case OpKind::Sum:
    accumulate(input, plan, output, 0.0, sum);
    return Status::success();
  case OpKind::Mean:
    accumulate(input, plan, output, 0.0, sum);
    for (double &value : output.data)
      value /= static_cast<double>(plan.count); // 0 / 0 = NaN for an empty reduction
    return Status::success();
  case OpKind::Prod:
    accumulate(input, plan, output, 1.0, [](double product, double x) { return product * x; });
    return Status::success();
  case OpKind::Any:
    accumulate(input, plan, output, 0.0,
               [](double any, double x) { return any != 0.0 || x != 0.0 ? 1.0 : 0.0; });
    return Status::success();
  case OpKind::Amax:
    return extremum(input, plan, output, -kInfinity,
                    [](double x, double best) { return x > best; });
  case OpKind::Amin:
    return extremum(input, plan, output, kInfinity, [](double x, double best) { return x < best; });
  case OpKind::Var:
    variance(input, plan, attr::correction(call.node), output);
    return Status::success();
  default:
    TC_CHECK(false, "not a reduction op");
  }
}

} // namespace thunderc::ir::interp
