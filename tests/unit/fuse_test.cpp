// Unit tests for optimizer/fuse and optimizer/partition: whyNotFused's reasons, the partition
// classes, and that fuse + partition leave only kernels, library calls and views, with the
// interpreter computing the same outputs before and after.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/verifier.h"
#include "optimizer/fuse.h"
#include "optimizer/partition.h"
#include "optimizer/pass_manager.h"

namespace {

using namespace thunderc;
using namespace thunderc::ir;
using namespace thunderc::opt;

std::unique_ptr<Graph> parse(const std::string &text) {
  Expected<std::unique_ptr<Graph>> graph = parseGraph(text);
  REQUIRE_MESSAGE(graph.ok(), (graph.ok() ? "" : graph.error().message()));
  REQUIRE(verifyGraph(**graph).ok());
  return std::move(*graph);
}

/// The top-level node whose (first) result is named `name`.
const Node &node(const Graph &graph, const std::string &name) {
  for (const auto &candidate : graph.nodes())
    if (candidate->result()->name() == name)
      return *candidate;
  FAIL("no node named " << name);
  return *graph.nodes().front();
}

const char *kMixed = R"(graph @g(%x: f32[4,8], %v: f32[8],
    %w: f32[8,8]) -> (f32[4,8], f32[4,1], f32[4,8]) {
  %r = relu(%v) : f32[8]
  %a = add(%x, %r) : f32[4,8]
  %half = full() {value=0.5} : f32[]
  %h = mul(%a, %half) : f32[4,8]
  %m = matmul(%h, %w) : f32[4,8]
  %g = gelu(%m) {approximate="none"} : f32[4,8]
  %c = cast(%g) {dtype=f16} : f16[4,8]
  %s = sum(%g) {dims=[1], keepdim=true} : f32[4,1]
  %t = tanh(%s) : f32[4,1]
  %n = softmax(%g) {dim=1} : f32[4,8]
  %e = exp(%n) : f32[4,8]
  %p = permute(%e) {dims=[1,0]} : f32[8,4]
  %q = permute(%p) {dims=[1,0]} : f32[4,8]
  return %q, %t, %h
})";

} // namespace

TEST_CASE("whyNotFused names the rule a pair breaks") {
  std::unique_ptr<Graph> graph = parse(kMixed);
  const Graph &g = *graph;
  CHECK(whyNotFused(node(g, "a"), node(g, "h")) == "");
  CHECK(whyNotFused(node(g, "half"), node(g, "h")) == "");
  CHECK(whyNotFused(node(g, "r"), node(g, "a")) ==
        "shapes differ: f32[8] (producer) vs f32[4,8] (consumer)");
  CHECK(whyNotFused(node(g, "h"), node(g, "m")) == "consumer is a library call (matmul)");
  CHECK(whyNotFused(node(g, "m"), node(g, "g")) == "");
  CHECK(whyNotFused(node(g, "g"), node(g, "c")) == "");
  CHECK(whyNotFused(node(g, "g"), node(g, "s")) ==
        "the producer's result is also used outside the reduction");
  CHECK(whyNotFused(node(g, "s"), node(g, "t")) == "");
  CHECK(whyNotFused(node(g, "n"), node(g, "e")) == "producer is a library call (softmax)");
  CHECK(whyNotFused(node(g, "e"), node(g, "p")) == "consumer is a view (permute)");
  CHECK(whyNotFused(node(g, "a"), node(g, "m")) == "consumer does not read the producer's result");
}

TEST_CASE("whyNotFused: a library call's epilogue keeps its type and is its only use") {
  std::unique_ptr<Graph> graph = parse(R"(graph @g(%x: f32[2,4],
    %w: f32[8,4]) -> (f32[2,8], f16[2,8]) {
  %l = linear(%x, %w) : f32[2,8]
  %a = relu(%l) : f32[2,8]
  %c = cast(%l) {dtype=f16} : f16[2,8]
  return %a, %c
})");
  CHECK(whyNotFused(node(*graph, "l"), node(*graph, "c")) ==
        "epilogue changes the type: f32[2,8] (producer) vs f16[2,8] (consumer)");
  CHECK(whyNotFused(node(*graph, "l"), node(*graph, "a")) == "the linear result has other uses");
}

TEST_CASE("partitionKind classes") {
  std::unique_ptr<Graph> graph = parse(kMixed);
  CHECK(partitionKind(node(*graph, "m")) == PartitionKind::Library);
  CHECK(partitionKind(node(*graph, "s")) == PartitionKind::Library);
  CHECK(partitionKind(node(*graph, "n")) == PartitionKind::Library);
  CHECK(partitionKind(node(*graph, "p")) == PartitionKind::View);
  CHECK(partitionKind(node(*graph, "e")) == PartitionKind::Kernel);
  CHECK(partitionKindName(PartitionKind::Library) == "library");
  CHECK(partitionKindName(PartitionKind::Kernel) == "kernel");
}

TEST_CASE("fuse + partition: only kernels, library calls and views; same outputs") {
  std::unique_ptr<Graph> graph = parse(kMixed);
  std::vector<HostTensor> inputs;
  for (const auto &input : graph->inputs()) {
    HostTensor tensor;
    for (const Dim &dim : input->type().shape)
      tensor.shape.push_back(dim.value());
    std::vector<float> values(static_cast<size_t>(tensor.numel()));
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<float>((i * 7 + 3) % 11) / 5.0f - 1.0f;
    tensor.bytes.resize(values.size() * sizeof(float));
    std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
    inputs.push_back(std::move(tensor));
  }
  auto run = [&](const Graph &g) {
    std::vector<TensorView> views;
    for (const HostTensor &tensor : inputs)
      views.push_back(tensor.view());
    Expected<std::vector<HostTensor>> outputs = interpret(g, views, {});
    REQUIRE_MESSAGE(outputs.ok(), (outputs.ok() ? "" : outputs.error().message()));
    return std::move(*outputs);
  };
  std::vector<HostTensor> before = run(*graph);

  PassContext context;
  PassManagerOptions options;
  options.verifyEach = true;
  Expected<bool> changed = runPasses(*graph, {"fuse", "partition"}, options, context);
  REQUIRE_MESSAGE(changed.ok(), (changed.ok() ? "" : changed.error().message()));
  CHECK(*changed);
  for (const auto &n : graph->nodes())
    CHECK((n->op() == OpKind::Fusion || partitionKind(*n) != PartitionKind::Kernel));
  CHECK(context.statistics["fuse.epilogue"] == 1);  // matmul + gelu
  CHECK(context.statistics["fuse.reduction"] == 1); // sum + tanh
  CHECK(context.statistics["fuse.elementwise"] == 1); // add + mul (relu is a broadcast)

  std::vector<HostTensor> after = run(*graph);
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i)
    CHECK(after[i].bytes == before[i].bytes); // same double arithmetic, same rounding
}
