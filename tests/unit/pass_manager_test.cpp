// Unit tests for optimizer/: every pass says truthfully whether it changed the graph
// ("unchanged" means a byte-identical print, docs/STYLE.md habit 5), the manager rejects
// unknown pass names, --verify-each blames a pass that breaks the graph, and
// --print-ir-after prints in the documented format.
#include <doctest/doctest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "optimizer/pass_manager.h"
#include "optimizer/pass_registry.h"

namespace {

using namespace thunderc;
using namespace thunderc::ir;
using namespace thunderc::opt;

std::unique_ptr<Graph> parse(const std::string &text) {
  Expected<std::unique_ptr<Graph>> graph = parseGraph(text);
  REQUIRE_MESSAGE(graph.ok(), (graph.ok() ? "" : graph.error().message()));
  Status verified = verifyGraph(**graph);
  REQUIRE_MESSAGE(verified.ok(), (verified.ok() ? "" : verified.error().message()));
  return std::move(*graph);
}

// Runs the pass `name` on `text` and checks the change contract: it returns false exactly
// when the printed IR is byte-identical before and after, and the result verifies. Returns
// whether the pass reported a change.
bool runAndCheckContract(const std::string &name, const std::string &text) {
  std::unique_ptr<Graph> graph = parse(text);
  std::unique_ptr<Pass> pass = createPass(name);
  REQUIRE(pass);
  std::string before = printGraph(*graph);
  PassContext context;
  Expected<bool> changed = pass->run(*graph, context);
  REQUIRE(changed.ok());
  std::string after = printGraph(*graph);
  CHECK_MESSAGE(*changed == (before != after), name << " reported changed=" << *changed
                                                    << " on\n" << before << "after:\n" << after);
  CHECK(verifyGraph(*graph).ok());
  // A second run has nothing left to do.
  std::string once = after;
  Expected<bool> again = pass->run(*graph, context);
  REQUIRE(again.ok());
  CHECK_FALSE(*again);
  CHECK(printGraph(*graph) == once);
  return *changed;
}

const char *kDeadChain = R"(graph @g(%x: f32[4]) -> (f32[4]) {
  %a = relu(%x) : f32[4]
  %b = neg(%a) : f32[4]
  %c = exp(%b) : f32[4]
  return %a
})";

const char *kDuplicates = R"(graph @g(%x: f32[4], %y: f32[4]) -> (f32[4]) {
  %a = add(%x, %y) : f32[4]
  %b = add(%x, %y) : f32[4]
  %c = relu(%a) : f32[4]
  %d = relu(%b) : f32[4]
  %e = mul(%c, %d) : f32[4]
  return %e
})";

const char *kNothingToDo = R"(graph @g(%x: f32[4], %y: f32[4]) -> (f32[4], f32[4]) {
  %a = add(%x, %y) : f32[4]
  %b = add(%y, %x) : f32[4]
  %c = clamp(%a) {min=0.0} : f32[4]
  %d = clamp(%a) {min=1.0} : f32[4]
  %e = mul(%c, %d) : f32[4]
  return %e, %b
})";

const char *kAtenCalls = R"(graph @g(%x: f32[4]) -> (f32[4], f32[4]) {
  %a = aten_call(%x) {target="aten.foo.default"} : f32[4]
  %b = aten_call(%x) {target="aten.foo.default"} : f32[4]
  return %a, %b
})";

// A test-only pass that breaks an invariant the verifier checks: it gives the first node's
// result a wrong type, and says it changed the graph.
class CorruptTypePass final : public Pass {
public:
  std::string_view name() const override { return "corrupt"; }
  Expected<bool> run(Graph &graph, PassContext &) override {
    Value *result = graph.nodes().front()->result();
    result->setType(TensorType{DType::F32, {7}});
    return true;
  }
};

} // namespace

TEST_CASE("pass registry lists every pass, sorted, and rejects unknown names") {
  std::vector<std::string> names = passNames();
  CHECK(names == std::vector<std::string>{"canonicalize", "cse", "dce", "fold-batchnorm",
                                          "fold-constants", "fuse", "layout", "partition",
                                          "plan-memory", "quantize-weights", "quantized-linear",
                                          "simplify"});
  CHECK(createPass("dce"));
  CHECK(createPass("cse")->name() == "cse");
  CHECK_FALSE(createPass("nope"));
}

TEST_CASE("pass change contract: false iff the print is byte-identical") {
  CHECK(runAndCheckContract("dce", kDeadChain));
  CHECK_FALSE(runAndCheckContract("dce", kDuplicates));
  CHECK_FALSE(runAndCheckContract("dce", kNothingToDo));
  CHECK(runAndCheckContract("cse", kDuplicates));
  CHECK_FALSE(runAndCheckContract("cse", kDeadChain));
  CHECK_FALSE(runAndCheckContract("cse", kNothingToDo));
  CHECK_FALSE(runAndCheckContract("cse", kAtenCalls));
  CHECK_FALSE(runAndCheckContract("dce", kAtenCalls));
}

TEST_CASE("every registered pass keeps the change contract and the graph valid") {
  for (const std::string &name : passNames()) {
    CAPTURE(name);
    for (const char *text : {kDeadChain, kDuplicates, kNothingToDo, kAtenCalls})
      runAndCheckContract(name, text);
  }
}

TEST_CASE("dce removes a dead chain in one pass run") {
  std::unique_ptr<Graph> graph = parse(kDeadChain);
  PassContext context;
  Expected<bool> changed = runPasses(*graph, {"dce"}, {}, context);
  REQUIRE(changed.ok());
  CHECK(*changed);
  CHECK(graph->numNodes() == 1);
  CHECK(context.statistics["dce.nodes-removed"] == 2);
}

TEST_CASE("cse then dce merges duplicate chains") {
  std::unique_ptr<Graph> graph = parse(kDuplicates);
  PassContext context;
  Expected<bool> changed = runPasses(*graph, {"cse", "dce"}, {}, context);
  REQUIRE(changed.ok());
  CHECK(*changed);
  CHECK(graph->numNodes() == 3); // add, relu, mul
  CHECK(context.statistics["cse.nodes-merged"] == 2);
}

TEST_CASE("runPasses rejects an unknown pass name before running anything") {
  std::unique_ptr<Graph> graph = parse(kDeadChain);
  std::string before = printGraph(*graph);
  PassContext context;
  Expected<bool> changed = runPasses(*graph, {"dce", "x"}, {}, context);
  REQUIRE_FALSE(changed.ok());
  CHECK(changed.error().kind() == ErrorKind::Usage);
  CHECK(changed.error().message() == "unknown pass 'x' (see --list-passes)");
  CHECK(printGraph(*graph) == before);
}

TEST_CASE("verify-each blames the pass that broke the graph") {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(createPass("dce"));
  passes.push_back(std::make_unique<CorruptTypePass>());
  passes.push_back(createPass("cse"));

  std::unique_ptr<Graph> graph = parse(kDeadChain);
  PassManagerOptions options;
  options.verifyEach = true;
  PassContext context;
  Expected<bool> result = runPassInstances(*graph, passes, options, context);
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().message().rfind("after pass 'corrupt': node '%a' (relu): ", 0) == 0);

  // Without --verify-each the manager does not check, so the broken graph goes unnoticed.
  std::unique_ptr<Graph> unchecked = parse(kDeadChain);
  PassContext quiet;
  CHECK(runPassInstances(*unchecked, passes, {}, quiet).ok());
}

TEST_CASE("print-ir-after prints a header and the graph after the named pass") {
  std::unique_ptr<Graph> graph = parse(kDeadChain);
  std::ostringstream out;
  PassManagerOptions options;
  options.printIrAfter = "dce";
  options.diagnostics = &out;
  PassContext context;
  REQUIRE(runPasses(*graph, {"cse", "dce"}, options, context).ok());
  CHECK(out.str() == "// -----// IR after dce //----- //\n" + printGraph(*graph));

  std::ostringstream all;
  options.printIrAfter = "all";
  options.diagnostics = &all;
  REQUIRE(runPasses(*graph, {"cse", "dce"}, options, context).ok());
  std::string ir = printGraph(*graph);
  CHECK(all.str() == "// -----// IR after cse //----- //\n" + ir +
                         "// -----// IR after dce //----- //\n" + ir);
}

TEST_CASE("time-passes prints one row per pass and a total") {
  std::unique_ptr<Graph> graph = parse(kDuplicates);
  std::ostringstream out;
  PassManagerOptions options;
  options.timePasses = true;
  options.diagnostics = &out;
  PassContext context;
  REQUIRE(runPasses(*graph, {"cse", "dce"}, options, context).ok());
  std::string table = out.str();
  CHECK(table.find("pass timing") != std::string::npos);
  CHECK(table.find(" cse\n") != std::string::npos);
  CHECK(table.find(" dce\n") != std::string::npos);
  CHECK(table.find(" total\n") != std::string::npos);
  CHECK(table.find("statistic cse.nodes-merged = 2") != std::string::npos);
}
