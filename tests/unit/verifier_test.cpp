// Unit tests for ir/verifier.h: a well-formed graph passes, and each violation the verifier
// documents (definition order, use-lists, counts, attributes, types, symbols, outputs, names)
// is reported with the node it concerns. Use-lists are corrupted by hand where the Graph API
// cannot produce the fault.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/verifier.h"

namespace {

using namespace thunderc;
using namespace thunderc::ir;

Dim sym(const char *name) { return Dim(SymExpr::symbol(name)); }

TensorType f32(Shape shape) { return TensorType{DType::F32, std::move(shape)}; }

AttrMap attrs(std::initializer_list<std::pair<std::string, AttrValue>> entries) {
  AttrMap map;
  for (const auto &[name, value] : entries)
    map.set(name, value);
  return map;
}

// The verifier's message, or "ok".
std::string verify(const Graph &graph) {
  Status status = verifyGraph(graph);
  return status.ok() ? "ok" : status.error().message();
}

std::vector<Use> &usesOf(Value *value) { return const_cast<std::vector<Use> &>(value->uses()); }

// graph @mlp(%x: f32[?s0,4], %w: f32[8,4], %b: f32[8]) -> f32[?s0,8]
//   %h = linear(%x, %w, %b); %1 = relu(%h); return %1
struct Mlp {
  Graph graph{"mlp"};
  Value *x;
  Value *weight;
  Value *bias;
  Node *linear;
  Node *relu;

  Mlp() {
    graph.symbols()["s0"] = SymbolRange{1, 64};
    x = graph.addInput("x", f32({sym("s0"), 4}));
    weight = graph.addInput("w", f32({8, 4}), InputKind::Parameter, "fc.weight");
    bias = graph.addInput("b", f32({8}), InputKind::Parameter, "fc.bias");
    linear = graph.appendNode(OpKind::Linear, {x, weight, bias}, {f32({sym("s0"), 8})});
    linear->result()->setName("h");
    relu = graph.appendNode(OpKind::Relu, {linear->result()}, {f32({sym("s0"), 8})});
    graph.setOutputs({relu->result()});
  }
};

TEST_CASE("verifier: a well-formed graph passes") {
  Mlp mlp;
  CHECK(verify(mlp.graph) == "ok");

  // Attribute allowances: an Int where a float, floats, dim or dims attribute goes.
  Graph graph;
  graph.symbols()["s0"] = SymbolRange{2, std::nullopt};
  Value *x = graph.addInput("x", f32({sym("s0"), 6}));
  Node *clamp =
      graph.appendNode(OpKind::Clamp, {x}, {f32({sym("s0"), 6})}, attrs({{"min", int64_t{0}}}));
  Node *slice = graph.appendNode(
      OpKind::Slice, {clamp->result()}, {f32({sym("s0"), 4})},
      attrs(
          {{"dim", int64_t{1}}, {"end", int64_t{4}}, {"start", int64_t{0}}, {"step", int64_t{1}}}));
  Node *reshape = graph.appendNode(OpKind::Reshape, {slice->result()}, {f32({sym("s0"), 2, 2})},
                                   attrs({{"shape", makeDimsAttr({sym("s0"), 2, 2})}}));
  Node *split = graph.appendNode(
      OpKind::Split, {reshape->result()}, {f32({sym("s0"), 1, 2}), f32({sym("s0"), 1, 2})},
      attrs({{"dim", int64_t{1}}, {"sizes", std::vector<int64_t>{1, 1}}}));
  Node *full = graph.appendNode(OpKind::Full, {}, {f32({})}, attrs({{"value", int64_t{2}}}));
  Node *mul =
      graph.appendNode(OpKind::Mul, {split->result(1), full->result()}, {f32({sym("s0"), 1, 2})});
  graph.setOutputs({split->result(0), mul->result()});
  CHECK(verify(graph) == "ok");
}

TEST_CASE("verifier: operand and result counts") {
  Graph graph;
  Value *x = graph.addInput("x", f32({2}));
  Node *add = graph.appendNode(OpKind::Add, {x}, {f32({2})});
  add->result()->setName("sum");
  CHECK(verify(graph) == "node '%sum' (add): expected 2 operands, got 1");

  Graph results;
  Value *y = results.addInput("y", f32({2}));
  results.appendNode(OpKind::Relu, {y}, {f32({2}), f32({2})});
  CHECK(verify(results) == "node #0 (relu): expected 1 result, got 2");

  Graph norm;
  Value *z = norm.addInput("z", f32({2}));
  norm.appendNode(OpKind::LayerNorm, {z, z, z, z}, {f32({2})},
                  attrs({{"eps", 1e-5}, {"normalized_shape", std::vector<int64_t>{2}}}));
  CHECK(verify(norm) == "node #0 (layer_norm): expected 1 to 3 operands, got 4");
}

TEST_CASE("verifier: operands are defined before their use") {
  Mlp mlp;
  // A node inserted before the linear that consumes the linear's result.
  mlp.graph.insertNodeBefore(mlp.linear, OpKind::Neg, {mlp.linear->result()},
                             {f32({sym("s0"), 8})});
  CHECK(verify(mlp.graph) == "node #0 (neg): operand 0 ('%h') is not defined before its use");

  // A value of another graph.
  Mlp other;
  Mlp mlp2;
  mlp2.graph.appendNode(OpKind::Relu, {other.x}, {f32({sym("s0"), 4})});
  CHECK(verify(mlp2.graph) == "node #2 (relu): operand 0 ('%x') is not defined before its use");
}

TEST_CASE("verifier: use-lists match operands exactly") {
  SUBCASE("a use missing from the operand's list") {
    Mlp mlp;
    usesOf(mlp.weight).clear();
    CHECK(verify(mlp.graph) ==
          "node '%h' (linear): operand 1 ('%w') appears 0 times in its use-list, expected once");
  }
  SUBCASE("a use recorded twice") {
    Mlp mlp;
    usesOf(mlp.x).push_back({mlp.linear, 0});
    CHECK(verify(mlp.graph) ==
          "node '%h' (linear): operand 0 ('%x') appears 2 times in its use-list, expected once");
  }
  SUBCASE("a stale use: the node does not use the value there") {
    Mlp mlp;
    usesOf(mlp.bias).push_back({mlp.relu, 0});
    CHECK(verify(mlp.graph) ==
          "value '%b' has a stale use (operand 0 of a node that does not use it)");
  }
  SUBCASE("a use by a node outside the graph") {
    Mlp mlp;
    Mlp other;
    usesOf(mlp.x).push_back({other.relu, 0});
    CHECK(verify(mlp.graph) ==
          "value '%x' has a stale use (operand 0 of a node outside the graph)");
  }
}

TEST_CASE("verifier: outputs are defined and names are unique") {
  Mlp mlp;
  Mlp other;
  mlp.graph.setOutputs({mlp.relu->result(), other.relu->result()});
  CHECK(verify(mlp.graph) == "output 1 is not defined in the graph");

  Mlp duplicate;
  duplicate.relu->result()->setName("x");
  CHECK(verify(duplicate.graph) == "node '%x' (relu): value name '%x' is already defined");

  Graph inputs;
  inputs.addInput("a", f32({2}));
  inputs.addInput("a", f32({2}));
  CHECK(verify(inputs) == "input '%a': value name '%a' is already defined");
}

TEST_CASE("verifier: attributes are exactly those of ir/ops.def") {
  Graph graph;
  Value *x = graph.addInput("x", f32({2, 3}));
  Node *sum = graph.appendNode(OpKind::Sum, {x}, {f32({2})},
                               attrs({{"dims", std::vector<int64_t>{1}}, {"keepdim", false}}));
  sum->result()->setName("s");
  CHECK(verify(graph) == "ok");

  sum->attrs().erase("keepdim");
  CHECK(verify(graph) == "node '%s' (sum): missing attribute 'keepdim'");

  // Checked before types, so inference never reads a malformed attribute.
  sum->attrs().set("keepdim", false);
  sum->attrs().set("dims", std::string("1"));
  CHECK(verify(graph) == "node '%s' (sum): attribute 'dims' has type str, expected ints");

  sum->attrs().set("dims", std::vector<double>{1.0});
  CHECK(verify(graph) == "node '%s' (sum): attribute 'dims' has type floats, expected ints");

  sum->attrs().set("dims", std::vector<int64_t>{1});
  sum->attrs().set("dtype", DType::F32);
  CHECK(verify(graph) == "node '%s' (sum): unknown attribute 'dtype'");

  // An int attribute does not accept a float (only float accepts int).
  Graph argmax;
  Value *y = argmax.addInput("y", f32({3}));
  argmax.appendNode(OpKind::Argmax, {y}, {TensorType{DType::I64, {}}},
                    attrs({{"dim", 0.0}, {"keepdim", false}}));
  CHECK(verify(argmax) == "node #0 (argmax): attribute 'dim' has type float, expected int");

  // Optional attributes may be absent (clamp has neither bound here).
  Graph clamp;
  Value *z = clamp.addInput("z", f32({3}));
  clamp.appendNode(OpKind::Clamp, {z}, {f32({3})});
  CHECK(verify(clamp) == "ok");
}

TEST_CASE("verifier: every symbol is declared, no dim is negative") {
  Mlp mlp;
  mlp.graph.symbols().clear();
  CHECK(verify(mlp.graph) == "input '%x' type f32[?s0,4] uses undeclared symbol 's0'");

  Graph result;
  result.symbols()["s0"] = SymbolRange{1, 8};
  Value *x = result.addInput("x", f32({2}));
  Node *arange = result.appendNode(OpKind::Arange, {}, {f32({sym("s1")})},
                                   attrs({{"start", 0.0}, {"step", 1.0}}));
  result.setOutputs({x, arange->result()});
  CHECK(verify(result) == "node #0 (arange): result 0 type f32[?s1] uses undeclared symbol 's1'");

  Graph attr;
  attr.symbols()["s0"] = SymbolRange{1, 8};
  Value *y = attr.addInput("y", f32({sym("s0")}));
  attr.appendNode(OpKind::Slice, {y}, {f32({sym("s0")})},
                  attrs({{"dim", int64_t{0}},
                         {"end", makeDimAttr(sym("s2"))},
                         {"start", int64_t{0}},
                         {"step", int64_t{1}}}));
  CHECK(verify(attr) == "node #0 (slice): attribute 'end' uses undeclared symbol 's2'");

  Graph negative;
  Value *z = negative.addInput("z", f32({2}));
  negative.appendNode(OpKind::Relu, {z}, {f32({-2})});
  CHECK(verify(negative) == "node #0 (relu): result 0 type f32[-2] has a negative dim");

  Graph range;
  range.symbols()["s0"] = SymbolRange{5, 2};
  CHECK(verify(range) == "symbol 's0' has an invalid range [5, 2]");
}

TEST_CASE("verifier: result types equal the inferred ones") {
  Mlp mlp;
  mlp.relu->result()->setType(f32({sym("s0"), 9}));
  CHECK(verify(mlp.graph) == "node #1 (relu): result 0 has type f32[?s0,9], inferred f32[?s0,8]");

  Mlp dtype;
  dtype.linear->result()->setType(TensorType{DType::F16, {sym("s0"), 8}});
  CHECK(verify(dtype.graph) ==
        "node '%h' (linear): result 0 has type f16[?s0,8], inferred f32[?s0,8]");

  // An inference error carries the node's name.
  Graph graph;
  Value *a = graph.addInput("a", f32({2, 3}));
  Value *b = graph.addInput("b", f32({4}));
  Node *add = graph.appendNode(OpKind::Add, {a, b}, {f32({2, 3})});
  add->result()->setName("y");
  CHECK(verify(graph) == "node '%y' (add): operands f32[2,3] and f32[4] do not broadcast");

  // A split whose declared results do not match its sizes.
  Graph split;
  Value *x = split.addInput("x", f32({6}));
  split.appendNode(OpKind::Split, {x}, {f32({2}), f32({2}), f32({2})},
                   attrs({{"dim", int64_t{0}}, {"sizes", std::vector<int64_t>{3, 3}}}));
  CHECK(verify(split) == "node #0 (split): has 3 results, inferred 2");
}

TEST_CASE("verifier: structure is checked before attributes, attributes before types") {
  // Node 0 has a type error, node 1 a malformed attribute, node 2 a structural error: the
  // structural one is reported first, then the attribute, then the type.
  Graph graph;
  Value *x = graph.addInput("x", f32({2}));
  Node *relu = graph.appendNode(OpKind::Relu, {x}, {f32({3})});
  Node *softmax =
      graph.appendNode(OpKind::Softmax, {relu->result()}, {f32({3})}, attrs({{"dim", 0.5}}));
  Node *add = graph.appendNode(OpKind::Add, {softmax->result()}, {f32({3})});
  CHECK(verify(graph) == "node #2 (add): expected 2 operands, got 1");
  graph.eraseNode(add);
  CHECK(verify(graph) == "node #1 (softmax): attribute 'dim' has type float, expected int");
  softmax->attrs().set("dim", int64_t{0});
  CHECK(verify(graph) == "node #0 (relu): result 0 has type f32[3], inferred f32[2]");
}

TEST_CASE("verifier: aten_call keeps its declared types") {
  Graph graph;
  Value *x = graph.addInput("x", f32({2}));
  Node *call = graph.appendNode(OpKind::AtenCall, {x, x}, {f32({7}), TensorType{DType::I64, {}}},
                                attrs({{"target", std::string("aten.unknown.default")}}));
  graph.setOutputs({call->result(0)});
  CHECK(verify(graph) == "ok");
}

} // namespace

TEST_CASE("verifier: a state output updates one state input of its type, once") {
  Graph graph{"step"};
  Value *x = graph.addInput("x", f32({4}));
  Value *state = graph.addInput("s", f32({4}), InputKind::State, "cache");
  Node *add = graph.appendNode(OpKind::Add, {state, x}, {f32({4})});
  graph.setOutputs({x});
  graph.addStateOutput(add->result(), "cache");
  CHECK(verify(graph) == "ok");
  graph.addStateOutput(add->result(), "cache");
  CHECK(verify(graph) == "state output 2 ('cache'): the state is updated twice");

  Graph wrong{"step"};
  Value *y = wrong.addInput("y", f32({2}));
  wrong.addInput("s", f32({4}), InputKind::State, "cache");
  wrong.setOutputs({});
  wrong.addStateOutput(y, "cache");
  CHECK(verify(wrong) == "state output 0 ('cache'): the value is f32[2] but the state is f32[4]");
  Graph unknown{"step"};
  Value *z = unknown.addInput("z", f32({4}));
  unknown.addStateOutput(z, "nothing");
  CHECK(verify(unknown) == "state output 0 ('nothing'): no state input has that name");
}
