// Tests of the reference interpreter's driver and number formats: dtype rounding (f16/bf16
// round to nearest even, integer wrap), strided inputs, symbol binding and ranges, weights,
// value lifetimes, and the errors for wrong inputs. Per-op values: interpreter_ops_test.cpp.
#include "interpreter_test_util.h"

#include <cstring>

using namespace interpreter_test;

namespace {

Dim sym(const std::string &name) { return Dim(SymExpr::symbol(name)); }

TensorType f32Type(Shape shape) { return TensorType{DType::F32, std::move(shape)}; }

/// Weights served from a name -> tensor map, as a frontend's archive reader would.
struct WeightStore {
  std::map<std::string, HostTensor> tensors;
  WeightProvider provider() const {
    return [this](const Value &input) -> Expected<TensorView> {
      auto it = tensors.find(input.weightName());
      if (it == tensors.end())
        return invalidInput("missing weight '" + input.weightName() + "'");
      return it->second.view();
    };
  }
};

/// x: f32[?s0,3] (s0 in [1,8]) -> relu(linear(x, fc.weight[2,3], fc.bias[2])).
struct MlpGraph {
  Graph graph;
  WeightStore weights;
  MlpGraph() {
    graph.symbols()["s0"] = SymbolRange{1, 8};
    Value *x = graph.addInput("x", f32Type({sym("s0"), 3}));
    Value *w = graph.addInput("w", f32Type({2, 3}), InputKind::Parameter, "fc.weight");
    Value *b = graph.addInput("b", f32Type({2}), InputKind::Parameter, "fc.bias");
    Node *linear = graph.appendNode(OpKind::Linear, {x, w, b}, {f32Type({sym("s0"), 2})});
    Node *relu = graph.appendNode(OpKind::Relu, {linear->result()}, {f32Type({sym("s0"), 2})});
    graph.setOutputs({relu->result()});
    checkVerified(graph);
    weights.tensors["fc.weight"] = f32({2, 3}, {1, 0, -1, 0.5, 0.5, 0.5});
    weights.tensors["fc.bias"] = f32({2}, {0, -1});
  }
  Expected<std::vector<HostTensor>> run(const std::vector<HostTensor> &inputs) const {
    std::vector<TensorView> views;
    for (const HostTensor &input : inputs)
      views.push_back(input.view());
    return interpret(graph, views, weights.provider());
  }
  std::string error(const std::vector<HostTensor> &inputs) const {
    Expected<std::vector<HostTensor>> outputs = run(inputs);
    if (outputs.ok())
      FAIL("expected an error");
    CHECK(outputs.error().kind() == ErrorKind::InvalidInput);
    return outputs.error().message();
  }
};

} // namespace

TEST_CASE("interpreter: roundToDType rounds to nearest even and wraps integers") {
  using interp::roundToDType;
  CHECK(roundToDType(0.1, DType::F32) == static_cast<double>(0.1f));
  CHECK(roundToDType(0.1, DType::F64) == 0.1);
  // bf16 has 8 significant bits: 1 + 2^-8 ties to 1, 1 + 3*2^-8 ties up to 1 + 2^-6.
  CHECK(roundToDType(1 + std::ldexp(1, -8), DType::BF16) == 1.0);
  CHECK(roundToDType(1 + 3 * std::ldexp(1, -8), DType::BF16) == 1 + std::ldexp(1, -6));
  CHECK(roundToDType(3.4e38, DType::BF16) == kInf);
  CHECK(roundToDType(1e-40, DType::BF16) == std::ldexp(1, -133)); // a bf16 subnormal
  // f16: 65519 rounds down to the max, 65520 ties to infinity, 3e-8 to the smallest subnormal.
  CHECK(roundToDType(65519, DType::F16) == 65504);
  CHECK(roundToDType(65520, DType::F16) == kInf);
  CHECK(roundToDType(-1e5, DType::F16) == -kInf);
  CHECK(roundToDType(3e-8, DType::F16) == std::ldexp(1, -24));
  CHECK(roundToDType(1e-8, DType::F16) == 0);
  CHECK(roundToDType(1 + 3 * std::ldexp(1, -11), DType::F16) == 1 + std::ldexp(1, -9));
  CHECK(std::isnan(roundToDType(kNaN, DType::F16)));
  CHECK(roundToDType(-3.7, DType::I32) == -3);
  CHECK(roundToDType(-3.7, DType::U8) == 253);
  CHECK(roundToDType(300.5, DType::I8) == 44);
  CHECK(roundToDType(40000, DType::I16) == -25536);
  CHECK(roundToDType(3e9, DType::I32) == 3e9 - 4294967296.0);
  CHECK(roundToDType(-1, DType::I64) == -1);
  CHECK(roundToDType(kNaN, DType::I32) == -2147483648.0); // PyTorch on x86
  CHECK(roundToDType(kNaN, DType::U8) == 0);
  CHECK(roundToDType(kNaN, DType::Bool) == 1);
  CHECK(roundToDType(-0.0, DType::Bool) == 0);
}

TEST_CASE("interpreter: f16 and bf16 bit patterns match PyTorch") {
  // torch.tensor([...], dtype=torch.float32).half().view(torch.int16)
  HostTensor x = f32({9}, {65520, 65519, 1e-8, 3e-8, -0.0, 0.1, 1 + std::ldexp(1, -11),
                           1 + 3 * std::ldexp(1, -11), -1e5});
  Expected<std::vector<HostTensor>> half =
      runOp(OpKind::Cast, {x}, {typeOf(DType::F16, {9})}, attrs({{"dtype", DType::F16}}));
  REQUIRE(half.ok());
  CHECK(bitsOf((*half)[0]) ==
        std::vector<uint16_t>{0x7c00, 0x7bff, 0x0, 0x1, 0x8000, 0x2e66, 0x3c00, 0x3c02, 0xfc00});
  // .bfloat16(): NaN is written as c10's 0x7FC0 (PyTorch's vectorized cast writes 0xFFFF).
  HostTensor y = f32({8}, {1 + std::ldexp(1, -8), 1 + 3 * std::ldexp(1, -8), 3.4e38, kNaN, -kInf,
                           1e-40, -2.5, 0.1});
  Expected<std::vector<HostTensor>> brain =
      runOp(OpKind::Cast, {y}, {typeOf(DType::BF16, {8})}, attrs({{"dtype", DType::BF16}}));
  REQUIRE(brain.ok());
  CHECK(bitsOf((*brain)[0]) ==
        std::vector<uint16_t>{0x3f80, 0x3f82, 0x7f80, 0x7fc0, 0xff80, 0x1, 0xc020, 0x3dcd});
  // The round trip through bits is exact for every f16 and bf16 pattern that is not NaN.
  int mismatches = 0;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    auto pattern = static_cast<uint16_t>(bits);
    double halfValue = interp::halfFromBits(pattern);
    double brainValue = interp::bfloat16FromBits(pattern);
    mismatches += !std::isnan(halfValue) && interp::halfBits(halfValue) != pattern;
    mismatches += !std::isnan(brainValue) && interp::bfloat16Bits(brainValue) != pattern;
    mismatches +=
        !std::isnan(halfValue) && interp::roundToDType(halfValue, DType::F16) != halfValue;
    mismatches +=
        !std::isnan(brainValue) && interp::roundToDType(brainValue, DType::BF16) != brainValue;
  }
  CHECK(mismatches == 0);
}

TEST_CASE("interpreter: f16 and bf16 arithmetic rounds each result") {
  // torch f16: [1, 1000, 0.1, 65504] + [2^-11, 0.3, 0.2, 32] -> bits [3c00, 63d1, 34cc, 7c00]
  HostTensor a = makeTensor(DType::F16, {4}, {1.0, 1000.0, 0.1, 65504});
  HostTensor b = makeTensor(DType::F16, {4}, {std::ldexp(1, -11), 0.3, 0.2, 32});
  Expected<std::vector<HostTensor>> sum = runOp(OpKind::Add, {a, b}, {typeOf(DType::F16, {4})});
  REQUIRE(sum.ok());
  CHECK(bitsOf((*sum)[0]) == std::vector<uint16_t>{0x3c00, 0x63d1, 0x34cc, 0x7c00});
  // torch bf16: [1, 3, 0.1] + [2^-8, 2^-6, 0.2] -> bits [3f80, 4041, 3e9a]
  HostTensor c = makeTensor(DType::BF16, {3}, {1.0, 3.0, 0.1});
  HostTensor d = makeTensor(DType::BF16, {3}, {std::ldexp(1, -8), std::ldexp(1, -6), 0.2});
  Expected<std::vector<HostTensor>> total = runOp(OpKind::Add, {c, d}, {typeOf(DType::BF16, {3})});
  REQUIRE(total.ok());
  CHECK(bitsOf((*total)[0]) == std::vector<uint16_t>{0x3f80, 0x4041, 0x3e9a});
}

TEST_CASE("interpreter: reads non-contiguous input views through their strides") {
  HostTensor storage = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  TensorView transposed{DType::F32, {3, 2}, {1, 3}, storage.bytes.data()};
  Graph graph;
  Value *x = graph.addInput("x", f32Type({3, 2}));
  Node *copy = graph.appendNode(OpKind::Copy, {x}, {f32Type({3, 2})});
  graph.setOutputs({copy->result()});
  checkVerified(graph);
  Expected<std::vector<HostTensor>> outputs = interpret(graph, {transposed}, noWeights);
  REQUIRE(outputs.ok());
  CHECK(valuesOf((*outputs)[0]) == std::vector<double>{0, 3, 1, 4, 2, 5});
  // A broadcast view (stride 0) is fine too.
  TensorView broadcast{DType::F32, {3, 2}, {0, 1}, storage.bytes.data()};
  outputs = interpret(graph, {broadcast}, noWeights);
  REQUIRE(outputs.ok());
  CHECK(valuesOf((*outputs)[0]) == std::vector<double>{0, 1, 0, 1, 0, 1});
}

TEST_CASE("interpreter: binds a symbolic batch from the input shape and checks weights") {
  MlpGraph mlp;
  // relu([x . (1,0,-1), x . (0.5,0.5,0.5) - 1]) per row.
  Expected<std::vector<HostTensor>> outputs =
      mlp.run({f32({3, 3}, {1, 2, 3, 4, 0, 1, -1, -1, -1})});
  REQUIRE(outputs.ok());
  CHECK((*outputs)[0].shape == std::vector<int64_t>{3, 2});
  CHECK(valuesOf((*outputs)[0]) == std::vector<double>{0, 2, 3, 1.5, 0, 0});
  outputs = mlp.run({f32({1, 3}, {2, 2, 2})});
  REQUIRE(outputs.ok());
  CHECK(valuesOf((*outputs)[0]) == std::vector<double>{0, 2});

  CHECK(contains(mlp.error({f32({9, 3}, std::vector<double>(27, 0.0))}),
                 "input 0 'x': symbol s0 = 9 is outside its range [1, 8]"));
  CHECK(contains(mlp.error({f32({2, 4}, std::vector<double>(8, 0.0))}),
                 "input 0 'x': expected f32[?s0,3], got f32[2,4]"));
  CHECK(contains(mlp.error({makeTensor(DType::F16, {2, 3}, std::vector<double>(6, 0.0))}),
                 "expected f32[?s0,3], got f16[2,3]"));
  CHECK(contains(mlp.error({f32({3}, {1, 2, 3})}), "expected f32[?s0,3], got f32[3]"));
  CHECK(contains(mlp.error({}), "expected 1 user inputs, got 0"));

  mlp.weights.tensors["fc.bias"] = f32({3}, {0, 0, 0});
  CHECK(contains(mlp.error({f32({1, 3}, {2, 2, 2})}),
                 "weight 'fc.bias' (input 'b'): expected f32[2], got f32[3]"));
  mlp.weights.tensors.erase("fc.bias");
  CHECK(contains(mlp.error({f32({1, 3}, {2, 2, 2})}),
                 "weight 'fc.bias' (input 'b'): missing weight 'fc.bias'"));
}

TEST_CASE("interpreter: size-0 batch, inconsistent symbols and compound dims") {
  Graph graph;
  graph.symbols()["s0"] = SymbolRange{0, std::nullopt};
  Value *x = graph.addInput("x", f32Type({sym("s0"), 2}));
  Value *y = graph.addInput(
      "y", f32Type({Dim(SymExpr::mul(SymExpr::symbol("s0"), SymExpr::constant(2)))}));
  Node *sum = graph.appendNode(OpKind::Sum, {x}, {f32Type({2})},
                               attrs({{"dims", std::vector<int64_t>{0}}, {"keepdim", false}}));
  Node *doubled = graph.appendNode(OpKind::Mul, {y, y}, {y->type()});
  graph.setOutputs({sum->result(), doubled->result()});
  checkVerified(graph);

  HostTensor empty = f32({0, 2}, {});
  HostTensor emptyY = f32({0}, {});
  Expected<std::vector<HostTensor>> outputs =
      interpret(graph, {empty.view(), emptyY.view()}, noWeights);
  REQUIRE(outputs.ok());
  CHECK(valuesOf((*outputs)[0]) == std::vector<double>{0, 0});
  CHECK((*outputs)[1].shape == std::vector<int64_t>{0});

  HostTensor x2 = f32({2, 2}, {1, 2, 3, 4});
  HostTensor y4 = f32({4}, {1, 2, 3, 4});
  outputs = interpret(graph, {x2.view(), y4.view()}, noWeights);
  REQUIRE(outputs.ok());
  CHECK(valuesOf((*outputs)[1]) == std::vector<double>{1, 4, 9, 16});
  HostTensor y3 = f32({3}, {1, 2, 3});
  outputs = interpret(graph, {x2.view(), y3.view()}, noWeights);
  REQUIRE(!outputs.ok());
  CHECK(contains(outputs.error().message(), "input 1 'y': expected f32[?(s0*2)], got f32[3]"));

  // Two inputs that bind s0 to different values.
  Graph twice;
  twice.symbols()["s0"] = SymbolRange{1, std::nullopt};
  Value *a = twice.addInput("a", f32Type({sym("s0")}));
  Value *b = twice.addInput("b", f32Type({sym("s0")}));
  Node *add = twice.appendNode(OpKind::Add, {a, b}, {f32Type({sym("s0")})});
  twice.setOutputs({add->result()});
  checkVerified(twice);
  HostTensor pair = f32({2}, {1, 2});
  outputs = interpret(twice, {pair.view(), y3.view()}, noWeights);
  REQUIRE(!outputs.ok());
  CHECK(outputs.error().message() == "input 1 'b': dim 0 is 3 but symbol s0 is 2 from input 0 'a'");
  HostTensor matrix = f32({2, 3}, std::vector<double>(6, 0.0));
  outputs = interpret(twice, {pair.view(), matrix.view()}, noWeights);
  REQUIRE(!outputs.ok());
  CHECK(contains(outputs.error().message(), "input 1 'b': expected f32[?s0], got f32[2,3]"));
}

TEST_CASE("interpreter: symbolic slice end, split sizes, full and arange lengths") {
  SymExpr s0 = SymExpr::symbol("s0");
  Dim less = Dim(SymExpr::sub(s0, SymExpr::constant(1)));
  Graph graph;
  graph.symbols()["s0"] = SymbolRange{2, 16};
  Value *x = graph.addInput("x", f32Type({sym("s0")}));
  Node *slice = graph.appendNode(OpKind::Slice, {x}, {f32Type({less})},
                                 attrs({{"dim", int64_t{0}},
                                        {"start", int64_t{0}},
                                        {"end", makeDimAttr(less)},
                                        {"step", int64_t{1}}}));
  Node *split =
      graph.appendNode(OpKind::Split, {x}, {f32Type({1}), f32Type({less})},
                       attrs({{"dim", int64_t{0}}, {"sizes", makeDimsAttr({Dim(1), less})}}));
  Node *full = graph.appendNode(OpKind::Full, {}, {f32Type({less})}, attrs({{"value", 7.0}}));
  Node *arange = graph.appendNode(OpKind::Arange, {}, {TensorType{DType::I64, {sym("s0")}}},
                                  attrs({{"start", 2.0}, {"step", 3.0}}));
  graph.setOutputs(
      {slice->result(), split->result(0), split->result(1), full->result(), arange->result()});
  checkVerified(graph);
  HostTensor input = f32({4}, {10, 11, 12, 13});
  Expected<std::vector<HostTensor>> outputs = interpret(graph, {input.view()}, noWeights);
  REQUIRE(outputs.ok());
  CHECK(valuesOf((*outputs)[0]) == std::vector<double>{10, 11, 12});
  CHECK(valuesOf((*outputs)[1]) == std::vector<double>{10});
  CHECK(valuesOf((*outputs)[2]) == std::vector<double>{11, 12, 13});
  CHECK(valuesOf((*outputs)[3]) == std::vector<double>{7, 7, 7});
  CHECK(valuesOf((*outputs)[4]) == std::vector<double>{2, 5, 8, 11});
  CHECK((*outputs)[4].dtype == DType::I64);
}

TEST_CASE("interpreter: values live until their last use; outputs may repeat or be inputs") {
  // a = exp(x); b = a + a; c = b * x; outputs (c, a, x, c).
  Graph graph;
  Value *x = graph.addInput("x", f32Type({2}));
  Node *a = graph.appendNode(OpKind::Exp, {x}, {f32Type({2})});
  Node *b = graph.appendNode(OpKind::Add, {a->result(), a->result()}, {f32Type({2})});
  Node *c = graph.appendNode(OpKind::Mul, {b->result(), x}, {f32Type({2})});
  graph.appendNode(OpKind::Neg, {c->result()}, {f32Type({2})}); // dead node
  graph.setOutputs({c->result(), a->result(), x, c->result()});
  checkVerified(graph);
  HostTensor input = f32({2}, {0, 1});
  Expected<std::vector<HostTensor>> outputs = interpret(graph, {input.view()}, noWeights);
  REQUIRE(outputs.ok());
  REQUIRE(outputs->size() == 4);
  double e = static_cast<double>(static_cast<float>(std::exp(1.0)));
  checkValues(valuesOf((*outputs)[0]), {0, 2 * e});
  checkValues(valuesOf((*outputs)[1]), {1, e});
  CHECK(valuesOf((*outputs)[2]) == std::vector<double>{0, 1});
  CHECK(valuesOf((*outputs)[3]) == valuesOf((*outputs)[0]));
}

TEST_CASE("interpreter: errors name the node; aten_call is refused") {
  Graph graph;
  Value *x = graph.addInput("x", f32Type({2}));
  Node *bad = graph.appendNode(OpKind::Reshape, {x}, {f32Type({3})},
                               attrs({{"shape", std::vector<int64_t>{3}}}));
  bad->setName("view_1");
  graph.setOutputs({bad->result()});
  HostTensor input = f32({2}, {1, 2});
  Expected<std::vector<HostTensor>> outputs = interpret(graph, {input.view()}, noWeights);
  REQUIRE(!outputs.ok());
  CHECK(outputs.error().message() == "node 'view_1' (reshape): cannot reshape [2] to [3]");

  Graph unknown;
  Value *y = unknown.addInput("y", f32Type({2}));
  Node *call = unknown.appendNode(OpKind::AtenCall, {y}, {f32Type({2})},
                                  attrs({{"target", std::string("aten.special_zeta.default")}}));
  call->result()->setName("zeta");
  unknown.setOutputs({call->result()});
  checkVerified(unknown);
  outputs = interpret(unknown, {input.view()}, noWeights);
  REQUIRE(!outputs.ok());
  CHECK(outputs.error().kind() == ErrorKind::Unsupported);
  CHECK(contains(outputs.error().message(), "node '%zeta' (aten_call): exported op "
                                            "'aten.special_zeta.default'"));
}
