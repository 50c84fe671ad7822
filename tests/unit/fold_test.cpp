// Unit tests for fold-batchnorm and fold-constants on graphs with real weight data: the
// folded graph computes what the original computed (reference interpreter, before vs after),
// the batch_norm and the weights it read are gone, and the size and sharing guards hold.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "interpreter_test_util.h"
#include "ir/printer.h"
#include "optimizer/dce.h"
#include "optimizer/fold_batchnorm.h"
#include "optimizer/fold_constants.h"
#include "optimizer/pass_manager.h"

namespace {

using namespace interpreter_test;
using namespace thunderc::opt;

/// Deterministic values in [low, high) (a small LCG, so the test needs no seed handling).
std::vector<double> pseudoRandom(int64_t count, double low, double high, uint32_t seed) {
  std::vector<double> values;
  uint32_t state = seed;
  for (int64_t i = 0; i < count; ++i) {
    state = state * 1664525u + 1013904223u;
    values.push_back(low + (high - low) * ((state >> 8) / double(1u << 24)));
  }
  return values;
}

HostTensor randomTensor(DType dtype, std::vector<int64_t> shape, double low, double high,
                        uint32_t seed) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return makeTensor(dtype, std::move(shape), pseudoRandom(count, low, high, seed));
}

/// A graph plus the data of its weight inputs, served by weightName like an archive would.
struct WeightedGraph {
  Graph graph;
  std::map<std::string, HostTensor> weights;

  Value *addWeight(const std::string &name, InputKind kind, HostTensor data) {
    Value *input = graph.addInput(name, typeOf(data), kind, name);
    weights.emplace(name, std::move(data));
    return input;
  }

  WeightProvider provider() const {
    return [this](const Value &input) -> Expected<TensorView> {
      auto it = weights.find(input.weightName());
      if (it == weights.end())
        return invalidInput("no weight '" + input.weightName() + "'");
      return it->second.view();
    };
  }
};

AttrMap convAttrs(int64_t groups) {
  return attrs({{"dilation", std::vector<int64_t>{1, 1}},
                {"groups", groups},
                {"padding", std::vector<int64_t>{1, 1}},
                {"stride", std::vector<int64_t>{1, 1}}});
}

/// relu(batch_norm(conv2d(x, w, b?), mean, var, gamma, beta)) over `dtype` weights, plus an
/// unused buffer (like num_batches_tracked) that the passes must leave alone.
void buildConvBatchNorm(WeightedGraph &model, DType dtype, bool withBias, int64_t groups) {
  const int64_t in = 4, out = 6;
  Value *x = model.graph.addInput("x", typeOf(dtype, {2, in, 5, 5}));
  Value *w = model.addWeight("conv.weight", InputKind::Parameter,
                             randomTensor(dtype, {out, in / groups, 3, 3}, -0.5, 0.5, 1));
  std::vector<Value *> convOperands = {x, w};
  if (withBias)
    convOperands.push_back(model.addWeight("conv.bias", InputKind::Parameter,
                                           randomTensor(dtype, {out}, -0.2, 0.2, 2)));
  Value *gamma = model.addWeight("bn.weight", InputKind::Parameter,
                                 randomTensor(dtype, {out}, 0.5, 1.5, 3));
  Value *beta = model.addWeight("bn.bias", InputKind::Parameter,
                                randomTensor(dtype, {out}, -0.3, 0.3, 4));
  Value *mean = model.addWeight("bn.running_mean", InputKind::Buffer,
                                randomTensor(dtype, {out}, -0.5, 0.5, 5));
  Value *var = model.addWeight("bn.running_var", InputKind::Buffer,
                               randomTensor(dtype, {out}, 0.05, 2.0, 6));
  model.addWeight("bn.num_batches_tracked", InputKind::Buffer,
                  makeTensor(DType::I64, {}, {7}));
  TensorType resultType = typeOf(dtype, {2, out, 5, 5});
  Node *conv = model.graph.appendNode(OpKind::Conv2d, convOperands, {resultType},
                                      convAttrs(groups));
  Node *bn = model.graph.appendNode(OpKind::BatchNorm, {conv->result(), mean, var, gamma, beta},
                                    {resultType}, attrs({{"eps", 1e-5}}));
  Node *relu = model.graph.appendNode(OpKind::Relu, {bn->result()}, {resultType});
  conv->result()->setName("conv");
  bn->result()->setName("bn");
  relu->result()->setName("out");
  model.graph.setOutputs({relu->result()});
  checkVerified(model.graph);
}

std::vector<double> run(const WeightedGraph &model, const HostTensor &input) {
  Expected<std::vector<HostTensor>> outputs =
      interpret(model.graph, {input.view()}, model.provider());
  REQUIRE_MESSAGE(outputs.ok(), (outputs.ok() ? "" : outputs.error().message()));
  REQUIRE(outputs->size() == 1);
  return valuesOf((*outputs)[0]);
}

/// Runs fold-batchnorm, fold-constants and dce with --verify-each and the weights' data.
PassContext foldAll(WeightedGraph &model) {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(createFoldBatchnormPass());
  passes.push_back(createFoldConstantsPass());
  passes.push_back(createDcePass());
  PassManagerOptions options;
  options.verifyEach = true;
  PassContext context;
  context.weights = model.provider();
  Expected<bool> changed = runPassInstances(model.graph, passes, options, context);
  REQUIRE_MESSAGE(changed.ok(), (changed.ok() ? "" : changed.error().message()));
  CHECK(*changed);
  return context;
}

int countOps(const Graph &graph, OpKind op) {
  int count = 0;
  for (const auto &node : graph.nodes())
    count += node->op() == op ? 1 : 0;
  return count;
}

std::vector<std::string> inputNames(const Graph &graph) {
  std::vector<std::string> names;
  for (const auto &input : graph.inputs())
    names.push_back(input->name());
  return names;
}

TEST_CASE("fold: conv2d + batch_norm folds into one conv with folded weights") {
  for (bool withBias : {true, false}) {
    for (int64_t groups : {int64_t{1}, int64_t{2}}) {
      INFO("bias " << withBias << ", groups " << groups);
      WeightedGraph model;
      buildConvBatchNorm(model, DType::F32, withBias, groups);
      HostTensor x = randomTensor(DType::F32, {2, 4, 5, 5}, -1.0, 1.0, 9);
      std::vector<double> before = run(model, x);

      PassContext context = foldAll(model);
      INFO(printGraph(model.graph));
      // What is left: conv2d then relu, reading two folded constants.
      CHECK(model.graph.numNodes() == 2);
      CHECK(countOps(model.graph, OpKind::BatchNorm) == 0);
      CHECK(countOps(model.graph, OpKind::Conv2d) == 1);
      // dce also drops the weight nothing reads (num_batches_tracked).
      CHECK(inputNames(model.graph) == std::vector<std::string>{"x", "bn_weight", "bn_bias"});
      const Node &conv = *model.graph.nodes().front();
      REQUIRE(conv.numOperands() == 3);
      for (int i = 1; i < 3; ++i) {
        CHECK(conv.operand(i)->inputKind() == InputKind::Constant);
        CHECK(model.graph.constantData(conv.operand(i)->weightName()) != nullptr);
      }
      CHECK(context.statistics["fold-batchnorm.folded"] == 1);
      CHECK(context.statistics["fold-constants.weights-removed"] == (withBias ? 6 : 5));
      CHECK(context.statistics["fold-constants.bytes-added"] == (6 * 4 / groups * 9 + 6) * 4);

      // Folding reassociates and rounds the weights once to f32: equal up to rounding.
      checkValues(run(model, x), before, 1e-5);
    }
  }
}

TEST_CASE("fold: bf16 conv + batch_norm computes the folded weights in f32") {
  WeightedGraph model;
  buildConvBatchNorm(model, DType::BF16, /*withBias=*/true, /*groups=*/1);
  HostTensor x = randomTensor(DType::BF16, {2, 4, 5, 5}, -1.0, 1.0, 9);
  std::vector<double> before = run(model, x);
  foldAll(model);
  INFO(printGraph(model.graph));
  CHECK(model.graph.numNodes() == 2);
  const Node &conv = *model.graph.nodes().front();
  CHECK(conv.operand(1)->type().dtype == DType::BF16);
  CHECK(conv.operand(2)->type().dtype == DType::BF16);
  // bf16 has 8 significant bits; the folded weights round once more than batch_norm did.
  checkValues(run(model, x), before, 3e-2);
}

TEST_CASE("fold: fold-constants guards sizes and shared weights") {
  WeightedGraph model;
  Value *x = model.graph.addInput("x", typeOf(DType::F32, {3, 4}));
  Value *w = model.addWeight("w", InputKind::Parameter,
                             randomTensor(DType::F32, {4, 3}, -1.0, 1.0, 11));
  Value *shared = model.addWeight("shared", InputKind::Parameter,
                                  randomTensor(DType::F32, {3, 4}, -1.0, 1.0, 12));
  Value *scalar = model.addWeight("scalar", InputKind::Buffer, makeTensor(DType::F32, {}, {2.5}));
  // permute(w) is w's only use: it folds and w goes.
  Node *transposed = model.graph.appendNode(OpKind::Permute, {w}, {typeOf(DType::F32, {3, 4})},
                                            attrs({{"dims", std::vector<int64_t>{1, 0}}}));
  // reshape(shared) is a view of a weight also read by `add`: it stays (free at run time).
  transposed->result()->setName("wt");
  Node *view = model.graph.appendNode(OpKind::Reshape, {shared}, {typeOf(DType::F32, {12})},
                                      attrs({{"shape", std::vector<int64_t>{12}}}));
  // expand(scalar) to 8192 elements: too large to store.
  Node *big = model.graph.appendNode(OpKind::Expand, {scalar}, {typeOf(DType::F32, {64, 128})},
                                     attrs({{"shape", std::vector<int64_t>{64, 128}}}));
  Node *sum = model.graph.appendNode(OpKind::Add, {x, transposed->result()},
                                     {typeOf(DType::F32, {3, 4})});
  Node *sum2 = model.graph.appendNode(OpKind::Add, {sum->result(), shared},
                                      {typeOf(DType::F32, {3, 4})});
  model.graph.setOutputs({sum2->result(), view->result(), big->result()});
  checkVerified(model.graph);
  HostTensor input = randomTensor(DType::F32, {3, 4}, -1.0, 1.0, 13);
  Expected<std::vector<HostTensor>> before =
      interpret(model.graph, {input.view()}, model.provider());
  REQUIRE(before.ok());

  std::unique_ptr<Pass> pass = createFoldConstantsPass();
  PassContext context;
  context.weights = model.provider();
  Expected<bool> changed = pass->run(model.graph, context);
  REQUIRE(changed.ok());
  CHECK(*changed);
  INFO(printGraph(model.graph));
  CHECK(countOps(model.graph, OpKind::Permute) == 0);
  CHECK(countOps(model.graph, OpKind::Reshape) == 1);
  CHECK(countOps(model.graph, OpKind::Expand) == 1);
  CHECK(inputNames(model.graph) ==
        std::vector<std::string>{"x", "shared", "scalar", "wt"});
  CHECK(context.statistics["fold-constants.nodes-folded"] == 1);
  CHECK(context.statistics["fold-constants.bytes-removed"] == 12 * 4);

  Expected<std::vector<HostTensor>> after =
      interpret(model.graph, {input.view()}, model.provider());
  REQUIRE(after.ok());
  for (size_t i = 0; i < before->size(); ++i)
    checkValues(valuesOf((*after)[i]), valuesOf((*before)[i]), 0.0);

  // Nothing left to fold: a second run reports no change.
  Expected<bool> again = pass->run(model.graph, context);
  REQUIRE(again.ok());
  CHECK_FALSE(*again);
}

} // namespace
