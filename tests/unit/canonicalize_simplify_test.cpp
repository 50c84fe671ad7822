// Unit tests for canonicalize and simplify: on graphs shaped like the core-ATen exports, the
// rewritten graph computes what the original computed (reference interpreter, before vs
// after), the passes report their rewrites in the statistics, and a second run finds
// nothing left to do (both reach a fixed point and say so truthfully).
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "interpreter_test_util.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "optimizer/canonicalize.h"
#include "optimizer/pass_manager.h"
#include "optimizer/simplify.h"

namespace {

using namespace interpreter_test;
using namespace thunderc::opt;

/// Deterministic inputs in [-3, 3) for every user input of `graph` (static shapes only).
std::vector<HostTensor> pseudoRandomInputs(const Graph &graph) {
  std::vector<HostTensor> inputs;
  uint32_t state = 12345u;
  for (const auto &input : graph.inputs()) {
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (const Dim &dim : input->type().shape) {
      shape.push_back(dim.value());
      count *= dim.value();
    }
    std::vector<double> values;
    for (int64_t i = 0; i < count; ++i) {
      state = state * 1664525u + 1013904223u;
      values.push_back(-3.0 + 6.0 * ((state >> 8) / double(1u << 24)));
    }
    inputs.push_back(makeTensor(input->type().dtype, std::move(shape), values));
  }
  return inputs;
}

std::vector<HostTensor> run(const Graph &graph, const std::vector<HostTensor> &inputs) {
  std::vector<TensorView> views;
  for (const HostTensor &input : inputs)
    views.push_back(input.view());
  auto outputs = interpret(graph, views, noWeights);
  REQUIRE_MESSAGE(outputs.ok(), (outputs.ok() ? "" : outputs.error().message()));
  return std::move(outputs).value();
}

/// Runs `passes` on the graph in `text`: checks the result verifies, computes the same
/// values, and that a second run changes nothing. Returns the statistics of the first run.
std::map<std::string, int64_t> checkRewrite(const std::string &text,
                                            const std::vector<std::string> &passes) {
  auto parsed = parseGraph(text);
  REQUIRE_MESSAGE(parsed.ok(), (parsed.ok() ? "" : parsed.error().message()));
  Graph &graph = **parsed;
  std::vector<HostTensor> inputs = pseudoRandomInputs(graph);
  std::vector<HostTensor> before = run(graph, inputs);

  PassManagerOptions options;
  options.verifyEach = true;
  PassContext context;
  auto changed = runPasses(graph, passes, options, context);
  REQUIRE_MESSAGE(changed.ok(), (changed.ok() ? "" : changed.error().message()));
  CHECK(*changed);
  std::vector<HostTensor> after = run(graph, inputs);
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    CHECK(after[i].shape == before[i].shape);
    checkValues(valuesOf(after[i]), valuesOf(before[i]), 1e-6);
  }

  std::string once = printGraph(graph);
  PassContext again;
  auto changedAgain = runPasses(graph, passes, options, again);
  REQUIRE(changedAgain.ok());
  CHECK_FALSE(*changedAgain);
  CHECK(printGraph(graph) == once);
  return context.statistics;
}

TEST_CASE("canonicalize: core-ATen linear forms become linear with the same values") {
  auto stats = checkRewrite(R"(graph @g(%x: f32[2,3,8], %w: f32[5,8], %b: f32[5],
    %w2: f32[4,5]) -> (f32[2,3,4]) {
  %flat = reshape(%x) {shape=[6,8]} : f32[6,8]
  %wt = permute(%w) {dims=[1,0]} : f32[8,5]
  %mm = addmm(%b, %flat, %wt) {alpha=1.0, beta=1.0} : f32[6,5]
  %y = reshape(%mm) {shape=[2,3,5]} : f32[2,3,5]
  %wt2 = permute(%w2) {dims=[1,0]} : f32[5,4]
  %wb = expand(%wt2) {shape=[2,5,4]} : f32[2,5,4]
  %z = matmul(%y, %wb) : f32[2,3,4]
  return %z
})",
                            {"canonicalize"});
  CHECK(stats["canonicalize.addmm-to-linear"] == 1);
  CHECK(stats["canonicalize.linear-unflatten"] == 1);
  CHECK(stats["canonicalize.matmul-to-linear"] == 1);
}

TEST_CASE("canonicalize: pooling and hard activations keep their values") {
  auto stats = checkRewrite(R"(graph @g(%x: f32[1,2,3,3]) -> (f32[1,2,1,1], f32[1,2,3,3]) {
  %pool = adaptive_avg_pool2d(%x) {output_size=[1,1]} : f32[1,2,1,1]
  %three = full() {value=3.0} : f32[]
  %add = add(%x, %three) : f32[1,2,3,3]
  %lo = clamp(%add) {min=0.0} : f32[1,2,3,3]
  %hi = clamp(%lo) {max=6.0} : f32[1,2,3,3]
  %mul = mul(%x, %hi) : f32[1,2,3,3]
  %six = full() {value=6.0} : f32[]
  %hs = div(%mul, %six) : f32[1,2,3,3]
  %add2 = add(%hs, %three) : f32[1,2,3,3]
  %r6 = clamp(%add2) {max=6.0, min=0.0} : f32[1,2,3,3]
  %hsig = div(%r6, %six) : f32[1,2,3,3]
  return %pool, %hsig
})",
                            {"canonicalize"});
  CHECK(stats["canonicalize.pool-to-mean"] == 1);
  CHECK(stats["canonicalize.hardswish"] == 1);
  CHECK(stats["canonicalize.hardsigmoid"] == 1);
}

TEST_CASE("simplify: neutral arithmetic, views and broadcasts keep their values") {
  auto stats = checkRewrite(R"(graph @g(%x: f32[2,3,4], %b: f32[4]) -> (f32[3,2,4], f32[2,12]) {
  %one = full() {value=1.0} : f32[]
  %zero = full() {value=0.0} : f32[]
  %a = mul(%x, %one) : f32[2,3,4]
  %c = sub(%a, %zero) : f32[2,3,4]
  %p1 = permute(%c) {dims=[2,0,1]} : f32[4,2,3]
  %cp = copy(%p1) : f32[4,2,3]
  %p2 = permute(%cp) {dims=[2,1,0]} : f32[3,2,4]
  %e = expand(%b) {shape=[3,2,4]} : f32[3,2,4]
  %s = add(%p2, %e) : f32[3,2,4]
  %u = unsqueeze(%x) {dim=0} : f32[1,2,3,4]
  %r = reshape(%u) {shape=[2,12]} : f32[2,12]
  return %s, %r
})",
                            {"simplify"});
  CHECK(stats["simplify.mul-one"] == 1);
  CHECK(stats["simplify.sub-zero"] == 1);
  CHECK(stats["simplify.copy"] == 1);
  CHECK(stats["simplify.permute-chain"] == 1);
  CHECK(stats["simplify.expand-into-broadcast"] == 1);
  CHECK(stats["simplify.reshape-chain"] == 1);
}

} // namespace
