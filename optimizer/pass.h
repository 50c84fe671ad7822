// The interface every optimizer pass implements (docs/DESIGN.md §4): a named, in-place
// rewrite of one Graph that reports truthfully whether it changed anything.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "ir/interpreter.h"
#include "ir/status.h"

namespace thunderc::opt {

/// State shared by the passes of one pipeline run.
struct PassContext {
  /// Verify the graph after every pass (set by the pass manager from its options).
  bool verifyEach = false;
  /// The data of weight inputs (parameters, buffers) by Value, for passes that fold constants;
  /// empty when the graph has no weights with data (text IR). Constants the graph owns
  /// (ir::Graph::constantData) are not served here.
  ir::WeightProvider weights;
  /// thunderc --quantize-weights: 8 or 4 makes "quantize-weights" quantize float linear
  /// weights to that width; 0 leaves them.
  int quantizeWeightBits = 0;
  /// --quantize-weights int4-act8: the int4 layers also quantize their activations per 32
  /// (linear_wq {dynamic_act}).
  bool quantizeActivations = false;
  /// Counters passes add to, keyed "<pass>.<what>" ("dce.nodes-removed"); sorted for printing.
  std::map<std::string, int64_t> statistics;
};

/// One graph-to-graph rewrite. Passes mutate the graph in place and never call each other.
class Pass {
public:
  virtual ~Pass();
  /// The registry name ("dce"), used by --passes and in messages.
  virtual std::string_view name() const = 0;
  /// Rewrites `graph`; returns true iff it changed the graph, so that `false` means the printed
  /// IR is byte-identical to before. Errors are user-facing failures only; broken invariants
  /// are TC_CHECKs.
  virtual Expected<bool> run(ir::Graph &graph, PassContext &context) = 0;
};

} // namespace thunderc::opt
