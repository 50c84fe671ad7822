// The reference interpreter: plain loops that define what every op in ir/ops.def means.
// It is the oracle for differential tests, not a fast path.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/kernels/tc_random.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/status.h"

namespace thunderc::ir {

/// Returns the data of a weight input (Parameter/Buffer/Constant) by its weightName().
using WeightProvider = std::function<Expected<TensorView>(const Value &input)>;

/// The random state one run draws from (the random op; runtime/kernels/tc_random.h, shared
/// with the bundles so that all agree bit for bit): the seed and the run's number, as a
/// bundle's context counts runs since its seed was set or it was reset (the first run is 0).
struct RandomState {
  uint64_t seed = tc::kDefaultRandomSeed;
  uint64_t run = 0;
};

/// Runs `graph` on `userInputs` (one per User input, in graph-input order) and returns one
/// tensor per graph output. Symbols are bound from the input shapes and checked against
/// graph.symbols() ranges. Arithmetic is carried out in double precision and rounded to each
/// value's dtype when stored (so f32 results are at least as accurate as PyTorch's; f16/bf16
/// round to nearest even). Errors (InvalidInput): wrong number of inputs, a dtype or static
/// dim that differs from the graph's input type ("input 0 'x': expected f32[?s0,784], got
/// f32[2,100]"), a symbol outside its range or bound inconsistently, an index out of range
/// at run time (embedding), a weight whose dtype/shape differs from its input type.
Expected<std::vector<HostTensor>> interpret(const Graph &graph,
                                            const std::vector<TensorView> &userInputs,
                                            const WeightProvider &weights,
                                            const RandomState &random = {});

} // namespace thunderc::ir
