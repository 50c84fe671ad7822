// The pass manager: looks passes up by name, runs them in order, and wraps each run with
// verification, IR printing and timing, so no pass implements those itself.
#include "optimizer/pass_manager.h"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "optimizer/pass_registry.h"

namespace thunderc::opt {
namespace {

struct PassTiming {
  std::string name;
  double seconds;
  bool changed;
};

void printTimings(std::ostream &out, const std::vector<PassTiming> &timings,
                  const PassContext &context) {
  double total = 0;
  for (const PassTiming &timing : timings)
    total += timing.seconds;
  char line[160];
  out << "===-------------------------------------------------------------------------===\n"
      << "                           thunderc pass timing\n"
      << "===-------------------------------------------------------------------------===\n";
  std::snprintf(line, sizeof(line), "  %10s  %7s  %-8s  %s\n", "wall (ms)", "%", "changed",
                "pass");
  out << line;
  for (const PassTiming &timing : timings) {
    double percent = total > 0 ? 100.0 * timing.seconds / total : 0.0;
    std::snprintf(line, sizeof(line), "  %10.3f  %6.1f%%  %-8s  %s\n", timing.seconds * 1e3,
                  percent, timing.changed ? "yes" : "no", timing.name.c_str());
    out << line;
  }
  std::snprintf(line, sizeof(line), "  %10.3f  %6.1f%%  %-8s  %s\n", total * 1e3, 100.0, "",
                "total");
  out << line;
  for (const auto &[name, count] : context.statistics)
    out << "  statistic " << name << " = " << count << "\n";
}

} // namespace

Expected<bool> runPasses(ir::Graph &graph, const std::vector<std::string> &names,
                         const PassManagerOptions &options, PassContext &context) {
  // Resolve every name first, so a typo late in the list fails before any work is done.
  std::vector<std::unique_ptr<Pass>> passes;
  for (const std::string &name : names) {
    std::unique_ptr<Pass> pass = createPass(name);
    if (!pass)
      return Error(ErrorKind::Usage, "unknown pass '" + name + "' (see --list-passes)");
    passes.push_back(std::move(pass));
  }
  return runPassInstances(graph, passes, options, context);
}

Expected<bool> runPassInstances(ir::Graph &graph,
                                const std::vector<std::unique_ptr<Pass>> &passes,
                                const PassManagerOptions &options, PassContext &context) {
  std::ostream &out = options.diagnostics ? *options.diagnostics : std::cerr;
  context.verifyEach = context.verifyEach || options.verifyEach;

  bool changed = false;
  std::vector<PassTiming> timings;
  for (const std::unique_ptr<Pass> &pass : passes) {
    std::string blame = "after pass '" + std::string(pass->name()) + "'";
    auto start = std::chrono::steady_clock::now();
    Expected<bool> passChanged = pass->run(graph, context);
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (!passChanged.ok())
      return std::move(passChanged).error().withContext(blame);
    changed = changed || *passChanged;
    timings.push_back({std::string(pass->name()), elapsed.count(), *passChanged});
    if (options.printIrAfter == "all" || options.printIrAfter == pass->name())
      out << "// -----// IR after " << pass->name() << " //----- //\n" << ir::printGraph(graph);
    if (context.verifyEach)
      TC_TRY_CONTEXT(ir::verifyGraph(graph), blame);
  }
  if (options.timePasses)
    printTimings(out, timings, context);
  return changed;
}

} // namespace thunderc::opt
