// Unit tests for optimizer/layout.h: the strided window every view op gives its result, the
// contiguity test, and which consumers read strided operands.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "ir/parser.h"
#include "ir/verifier.h"
#include "optimizer/layout.h"

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

const Node &nodeNamed(const Graph &graph, const std::string &name) {
  for (const auto &node : graph.nodes())
    if (node->result()->name() == name)
      return *node;
  FAIL("no node " << name);
  throw;
}

std::string stridesOf(const ValueLayout &layout) {
  std::string text;
  for (const Dim &stride : layout.strides)
    text += (text.empty() ? "" : ",") + shapeStr({stride});
  return text;
}

constexpr const char *kViews = R"(graph @views(%x: f32[?s0,4,6], %b: f32[6]) -> (f32[6,?s0,4]) symbols(s0: [1, 8]) {
  %p = permute(%x) {dims=[2,0,1]} : f32[6,?s0,4]
  %s = slice(%x) {dim=1, end=4, start=1, step=2} : f32[?s0,2,6]
  %e = expand(%b) {shape=[3,6]} : f32[3,6]
  %q = select(%x) {dim=1, index=2} : f32[?s0,6]
  %u = unsqueeze(%q) {dim=1} : f32[?s0,1,6]
  %r = reshape(%x) {shape=[?s0,24]} : f32[?s0,24]
  %rp = reshape(%p) {shape=[?(s0*24)]} : f32[?(s0*24)]
  %a, %c = split(%x) {dim=2, sizes=[2,4]} : f32[?s0,4,2], f32[?s0,4,4]
  return %p
}
)";

TEST_CASE("views are windows on their operand's storage") {
  std::unique_ptr<Graph> graph = parse(kViews);
  auto layouts = computeLayouts(*graph);
  const Value *x = graph->input(0);
  auto layout = [&](const std::string &name) { return layouts.at(nodeNamed(*graph, name).result()); };
  auto value = [&](const std::string &name) { return nodeNamed(*graph, name).result(); };

  CHECK(layout("p").storage == x);
  CHECK(stridesOf(layout("p")) == "[1],[24],[6]");
  CHECK_FALSE(isContiguous(layout("p"), value("p")->type().shape));

  CHECK(shapeStr({layout("s").offset}) == "[6]");
  CHECK(stridesOf(layout("s")) == "[24],[12],[1]");

  CHECK(stridesOf(layout("e")) == "[0],[1]");
  CHECK_FALSE(isContiguous(layout("e"), value("e")->type().shape));

  CHECK(shapeStr({layout("q").offset}) == "[12]");
  CHECK(stridesOf(layout("q")) == "[24],[1]");
  CHECK(layout("u").storage == x);
  CHECK(stridesOf(layout("u")).ends_with("[1]"));

  // A reshape of contiguous data aliases; of a transposed view, it owns its buffer.
  CHECK(layout("r").storage == x);
  CHECK(isContiguous(layout("r"), value("r")->type().shape));
  CHECK(layout("rp").storage == value("rp"));

  // Split pieces along the last dim: offset by the earlier pieces' sizes.
  const Node &split = nodeNamed(*graph, "a");
  CHECK(shapeStr({layouts.at(split.result(1)).offset}) == "[2]");
  CHECK(stridesOf(layouts.at(split.result(1))) == "[24],[6],[1]");
}

TEST_CASE("elementwise ops, fusions and views read strided operands; library ops do not") {
  std::unique_ptr<Graph> graph = parse(R"(graph @g(%x: f32[4,8], %w: f32[16,8]) -> (f32[4,16]) {
  %t = permute(%w) {dims=[1,0]} : f32[8,16]
  %r = reshape(%t) {shape=[128]} : f32[128]
  %m = matmul(%x, %t) : f32[4,16]
  %n = neg(%m) : f32[4,16]
  return %n
}
)");
  CHECK(acceptsStridedOperand(nodeNamed(*graph, "n"), 0));
  CHECK(acceptsStridedOperand(nodeNamed(*graph, "t"), 0));
  CHECK_FALSE(acceptsStridedOperand(nodeNamed(*graph, "r"), 0));
  CHECK_FALSE(acceptsStridedOperand(nodeNamed(*graph, "m"), 1));
}

} // namespace
