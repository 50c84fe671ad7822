// Runs a named list of passes over a graph, with the manager features every pass gets for free:
// verify after each pass, print the IR after a pass, and time the passes.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "optimizer/pass.h"

namespace thunderc::opt {

/// What the manager does around each pass. Parsed once by the CLI and passed down.
struct PassManagerOptions {
  /// Run ir::verifyGraph after every pass; a failure blames the pass that just ran.
  bool verifyEach = false;
  /// Print the IR after the pass of this name ("all": after every pass; empty: never).
  std::string printIrAfter;
  /// Print a timing table for the passes, and the statistics, when the run finishes.
  bool timePasses = false;
  /// --quantize-weights: 8 or 4 (PassContext::quantizeWeightBits), 0 for none.
  int quantizeWeightBits = 0;
  /// --quantize-weights int4-act8 (PassContext::quantizeActivations).
  bool quantizeActivations = false;
  /// Where --print-ir-after and --time-passes write; nullptr means std::cerr.
  std::ostream *diagnostics = nullptr;
};

/// Runs the passes called `names`, in order, over `graph`; returns whether any changed it.
/// All names are checked before any pass runs: an unknown one is an ErrorKind::Usage error
/// "unknown pass 'x' (see --list-passes)". With options.verifyEach (or context.verifyEach) a
/// verifier failure after a pass is returned as "after pass 'cse': <verifier message>"; a
/// pass's own error gets the same prefix. The IR printed after a pass reads
/// "// -----// IR after <pass> //----- //" followed by ir::printGraph.
Expected<bool> runPasses(ir::Graph &graph, const std::vector<std::string> &names,
                         const PassManagerOptions &options, PassContext &context);

/// The same, over pass objects already built (the name-based overload resolves its names and
/// calls this); lets tests run passes that are not in the registry.
Expected<bool> runPassInstances(ir::Graph &graph,
                                const std::vector<std::unique_ptr<Pass>> &passes,
                                const PassManagerOptions &options, PassContext &context);

} // namespace thunderc::opt
