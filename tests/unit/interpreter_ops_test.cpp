// Per-op tests of the reference interpreter for elementwise, reduction and shape ops on small
// inputs, with expected values computed by PyTorch 2.9 eager (f32 unless stated), including
// broadcasting, NaN propagation, size-0 dims and run-time index errors. The nn ops (softmax,
// norms, linear algebra, conv, pools, attention) are in interpreter_nn_test.cpp.
#include "interpreter_test_util.h"

using namespace interpreter_test;

namespace {

// [[-2.5, -1, -0.5, 0], [0.5, 1, 2.5, 4]]
HostTensor unaryInput() { return f32({2, 4}, {-2.5, -1, -0.5, 0, 0.5, 1, 2.5, 4}); }

// A: [[-7, -2.5, 0, 3], [5.5, 8, -1, 2]]; B: [2, -3, 0.5, -1.5] (broadcast along rows).
HostTensor binaryA() { return f32({2, 4}, {-7, -2.5, 0, 3, 5.5, 8, -1, 2}); }
HostTensor binaryB() { return f32({4}, {2, -3, 0.5, -1.5}); }

// arange(24).reshape(2,3,4) * 0.5 - 3
HostTensor reductionInput() {
  std::vector<double> values;
  for (int i = 0; i < 24; ++i)
    values.push_back(i * 0.5 - 3);
  return f32({2, 3, 4}, values);
}

struct Case {
  const char *name;
  OpKind op;
  AttrMap attributes;
  std::vector<double> expected;
};

} // namespace

TEST_CASE("interpreter: unary elementwise ops match PyTorch") {
  // torch.<op>(x) and torch.nn.functional.<op>(x) on unaryInput().
  const std::vector<Case> cases = {
      {"neg", OpKind::Neg, {}, {2.5, 1, 0.5, -0, -0.5, -1, -2.5, -4}},
      {"abs", OpKind::Abs, {}, {2.5, 1, 0.5, 0, 0.5, 1, 2.5, 4}},
      {"relu", OpKind::Relu, {}, {0, 0, 0, 0, 0.5, 1, 2.5, 4}},
      {"sigmoid",
       OpKind::Sigmoid,
       {},
       {0.0758581758, 0.268941432, 0.377540678, 0.5, 0.622459352, 0.731058598, 0.924141824,
        0.982013762}},
      {"tanh",
       OpKind::Tanh,
       {},
       {-0.986614287, -0.761594176, -0.462117165, 0, 0.462117165, 0.761594176, 0.986614287,
        0.999329329}},
      {"exp",
       OpKind::Exp,
       {},
       {0.0820849985, 0.36787945, 0.606530666, 1, 1.64872122, 2.71828175, 12.1824942, 54.5981483}},
      {"log", OpKind::Log, {}, {kNaN, kNaN, kNaN, -kInf, -0.693147182, 0, 0.91629076, 1.38629436}},
      {"sqrt", OpKind::Sqrt, {}, {kNaN, kNaN, kNaN, 0, 0.707106769, 1, 1.58113885, 2}},
      {"rsqrt", OpKind::Rsqrt, {}, {kNaN, kNaN, kNaN, kInf, 1.41421354, 1, 0.632455528, 0.5}},
      {"reciprocal", OpKind::Reciprocal, {}, {-0.4, -1, -2, kInf, 2, 1, 0.4, 0.25}},
      {"erf",
       OpKind::Erf,
       {},
       {-0.999593019, -0.842700779, -0.520499885, 0, 0.520499885, 0.842700779, 0.999593019, 1}},
      {"sin",
       OpKind::Sin,
       {},
       {-0.598472118, -0.841470957, -0.47942555, 0, 0.47942555, 0.841470957, 0.598472118,
        -0.756802499}},
      {"cos",
       OpKind::Cos,
       {},
       {-0.801143587, 0.540302336, 0.87758255, 1, 0.87758255, 0.540302336, -0.801143587,
        -0.653643608}},
      {"floor", OpKind::Floor, {}, {-3, -1, -1, 0, 0, 1, 2, 4}},
      {"ceil", OpKind::Ceil, {}, {-2, -1, -0, 0, 1, 1, 3, 4}},
      {"silu",
       OpKind::Silu,
       {},
       {-0.189645454, -0.268941432, -0.188770339, 0, 0.311229676, 0.731058598, 2.31035447,
        3.92805505}},
      {"hardswish",
       OpKind::Hardswish,
       {},
       {-0.208333328, -0.333333343, -0.208333328, 0, 0.291666657, 0.666666687, 2.29166675, 4}},
      {"hardsigmoid",
       OpKind::Hardsigmoid,
       {},
       {0.0833333358, 0.333333343, 0.416666657, 0.5, 0.583333313, 0.666666687, 0.916666687, 1}},
      {"leaky_relu(0.2)",
       OpKind::LeakyRelu,
       attrs({{"negative_slope", 0.2}}),
       {-0.5, -0.200000003, -0.100000001, 0, 0.5, 1, 2.5, 4}},
      {"gelu",
       OpKind::Gelu,
       attrs({{"approximate", std::string("none")}}),
       {-0.0155241787, -0.158655256, -0.154268771, 0, 0.345731229, 0.841344714, 2.48447585,
        3.99987364}},
      {"gelu tanh",
       OpKind::Gelu,
       attrs({{"approximate", std::string("tanh")}}),
       {-0.0150842965, -0.158807993, -0.154285997, 0, 0.345714003, 0.841192007, 2.48491573,
        3.9999299}},
      {"clamp(-1, 2)",
       OpKind::Clamp,
       attrs({{"min", -1.0}, {"max", 2.0}}),
       {-1, -1, -0.5, 0, 0.5, 1, 2, 2}},
      {"clamp(min=0.25)",
       OpKind::Clamp,
       attrs({{"min", 0.25}}),
       {0.25, 0.25, 0.25, 0.25, 0.5, 1, 2.5, 4}},
      {"clamp(max=-0.75)",
       OpKind::Clamp,
       attrs({{"max", -0.75}}),
       {-2.5, -1, -0.75, -0.75, -0.75, -0.75, -0.75, -0.75}},
      {"copy", OpKind::Copy, {}, {-2.5, -1, -0.5, 0, 0.5, 1, 2.5, 4}},
  };
  for (const Case &test : cases) {
    INFO(test.name);
    checkValues(evalOp(test.op, {unaryInput()}, typeOf(DType::F32, {2, 4}), test.attributes),
                test.expected);
  }
  CHECK(evalOp(OpKind::LogicalNot, {unaryInput()}, typeOf(DType::Bool, {2, 4})) ==
        std::vector<double>{0, 0, 0, 1, 0, 0, 0, 0});
  // NaN passes through relu, leaky_relu, clamp and the relu6-based activations.
  HostTensor nan = f32({1}, {kNaN});
  for (OpKind op : {OpKind::Relu, OpKind::Hardswish, OpKind::Hardsigmoid})
    CHECK(std::isnan(evalOp(op, {nan}, typeOf(DType::F32, {1}))[0]));
  CHECK(std::isnan(evalOp(OpKind::LeakyRelu, {nan}, typeOf(DType::F32, {1}),
                          attrs({{"negative_slope", 0.01}}))[0]));
  CHECK(
      std::isnan(evalOp(OpKind::Clamp, {nan}, typeOf(DType::F32, {1}), attrs({{"min", 0.0}}))[0]));
  CHECK(contains(opError(OpKind::Gelu, {nan}, typeOf(DType::F32, {1}),
                         attrs({{"approximate", std::string("erf")}})),
                 "gelu approximation"));
}

TEST_CASE("interpreter: binary elementwise ops broadcast and match PyTorch") {
  // torch.<op>(A, B) with B of shape [4] broadcast over A's rows.
  const std::vector<Case> cases = {
      {"add", OpKind::Add, {}, {-5, -5.5, 0.5, 1.5, 7.5, 5, -0.5, 0.5}},
      {"sub", OpKind::Sub, {}, {-9, 0.5, -0.5, 4.5, 3.5, 11, -1.5, 3.5}},
      {"mul", OpKind::Mul, {}, {-14, 7.5, 0, -4.5, 11, -24, -0.5, -3}},
      {"div", OpKind::Div, {}, {-3.5, 0.833333313, 0, -2, 2.75, -2.66666675, -2, -1.33333337}},
      {"floor_divide", OpKind::FloorDivide, {}, {-4, 0, 0, -2, 2, -3, -2, -2}},
      {"remainder", OpKind::Remainder, {}, {1, -2.5, 0, 0, 1.5, -1, -0, -1}},
      {"pow",
       OpKind::Pow,
       {},
       {49, -0.064000003, 0, 0.192450091, 30.25, 0.001953125, kNaN, 0.353553385}},
      {"maximum", OpKind::Maximum, {}, {2, -2.5, 0.5, 3, 5.5, 8, 0.5, 2}},
      {"minimum", OpKind::Minimum, {}, {-7, -3, 0, -1.5, 2, -3, -1, -1.5}},
  };
  for (const Case &test : cases) {
    INFO(test.name);
    checkValues(evalOp(test.op, {binaryA(), binaryB()}, typeOf(DType::F32, {2, 4})), test.expected);
  }
  const std::vector<Case> predicates = {
      {"eq", OpKind::Eq, {}, {0, 0, 0, 0, 0, 0, 0, 0}},
      {"ne", OpKind::Ne, {}, {1, 1, 1, 1, 1, 1, 1, 1}},
      {"lt", OpKind::Lt, {}, {1, 0, 1, 0, 0, 0, 1, 0}},
      {"le", OpKind::Le, {}, {1, 0, 1, 0, 0, 0, 1, 0}},
      {"gt", OpKind::Gt, {}, {0, 1, 0, 1, 1, 1, 0, 1}},
      {"ge", OpKind::Ge, {}, {0, 1, 0, 1, 1, 1, 0, 1}},
      {"logical_and", OpKind::LogicalAnd, {}, {1, 1, 0, 1, 1, 1, 1, 1}},
      {"logical_or", OpKind::LogicalOr, {}, {1, 1, 1, 1, 1, 1, 1, 1}},
  };
  for (const Case &test : predicates) {
    INFO(test.name);
    CHECK(evalOp(test.op, {binaryA(), binaryB()}, typeOf(DType::Bool, {2, 4})) == test.expected);
  }
  // Both operands broadcast ([2,1] with [3]); maximum/minimum propagate NaN.
  HostTensor column = f32({2, 1}, {1, kNaN});
  HostTensor row = f32({3}, {0, kNaN, 3});
  checkValues(evalOp(OpKind::Maximum, {column, row}, typeOf(DType::F32, {2, 3})),
              {1, kNaN, 3, kNaN, kNaN, kNaN});
  checkValues(evalOp(OpKind::Minimum, {column, row}, typeOf(DType::F32, {2, 3})),
              {0, kNaN, 1, kNaN, kNaN, kNaN});
  // Shapes that do not broadcast, and a result type that disagrees with the broadcast.
  CHECK(contains(opError(OpKind::Add, {binaryA(), f32({3}, {1, 2, 3})}, typeOf(DType::F32, {2, 4})),
                 "do not broadcast"));
  CHECK(contains(opError(OpKind::Add, {binaryA(), binaryB()}, typeOf(DType::F32, {4, 2})),
                 "result type has shape [4,2] but the op computes [2,4]"));
  // A size-0 dim broadcasts against 1 and produces an empty result.
  CHECK(evalOp(OpKind::Mul, {f32({0, 1}, {}), binaryB()}, typeOf(DType::F32, {0, 4})).empty());
}

TEST_CASE("interpreter: integer arithmetic is exact, Python-style and wraps") {
  HostTensor a = makeTensor(DType::I32, {6}, {7, -7, 7, -7, 0, 5});
  HostTensor b = makeTensor(DType::I32, {6}, {2, 2, -2, -2, 3, -3});
  TensorType i32x6 = typeOf(DType::I32, {6});
  CHECK(evalOp(OpKind::FloorDivide, {a, b}, i32x6) == std::vector<double>{3, -4, -4, 3, 0, -2});
  CHECK(evalOp(OpKind::Remainder, {a, b}, i32x6) == std::vector<double>{1, 1, -1, -1, 0, -1});
  HostTensor big = makeTensor(DType::I32, {2}, {2147483647, -2147483648.0});
  HostTensor step = makeTensor(DType::I32, {2}, {1, -1});
  CHECK(evalOp(OpKind::Add, {big, step}, typeOf(DType::I32, {2})) ==
        std::vector<double>{-2147483648.0, 2147483647});
  HostTensor factor = makeTensor(DType::I32, {2}, {65536, 3});
  HostTensor other = makeTensor(DType::I32, {2}, {65536, -5});
  CHECK(evalOp(OpKind::Mul, {factor, other}, typeOf(DType::I32, {2})) ==
        std::vector<double>{0, -15});
  CHECK(evalOp(OpKind::Sub,
               {makeTensor(DType::U8, {2}, {1, 200}), makeTensor(DType::U8, {2}, {2, 100})},
               typeOf(DType::U8, {2})) == std::vector<double>{255, 100});
  HostTensor base = makeTensor(DType::I64, {6}, {3, -2, 2, 1, -1, 5});
  HostTensor exponent = makeTensor(DType::I64, {6}, {4, 3, -1, -5, -3, 0});
  CHECK(evalOp(OpKind::Pow, {base, exponent}, typeOf(DType::I64, {6})) ==
        std::vector<double>{81, -8, 0, 1, -1, 1});
  HostTensor zero = makeTensor(DType::I32, {6}, {1, 1, 0, 1, 1, 1});
  CHECK(contains(opError(OpKind::FloorDivide, {a, zero}, i32x6), "integer division by zero"));
  CHECK(contains(opError(OpKind::Remainder, {a, zero}, i32x6), "integer division by zero"));
}

TEST_CASE("interpreter: where broadcasts all three operands") {
  HostTensor condition = makeTensor(DType::Bool, {2, 1}, {1, 0});
  checkValues(evalOp(OpKind::Where, {condition, binaryA(), binaryB()}, typeOf(DType::F32, {2, 4})),
              {-7, -2.5, 0, 3, 2, -3, 0.5, -1.5});
}

TEST_CASE("interpreter: cast truncates toward zero, wraps, and rounds like PyTorch") {
  HostTensor x = f32({6}, {-3.7, -0.5, 0.0, 2.9, 300.5, -1.0});
  CHECK(evalOp(OpKind::Cast, {x}, typeOf(DType::I32, {6}), attrs({{"dtype", DType::I32}})) ==
        std::vector<double>{-3, 0, 0, 2, 300, -1});
  CHECK(evalOp(OpKind::Cast, {x}, typeOf(DType::U8, {6}), attrs({{"dtype", DType::U8}})) ==
        std::vector<double>{253, 0, 0, 2, 44, 255});
  CHECK(evalOp(OpKind::Cast, {x}, typeOf(DType::I8, {6}), attrs({{"dtype", DType::I8}})) ==
        std::vector<double>{-3, 0, 0, 2, 44, -1});
  CHECK(evalOp(OpKind::Cast, {x}, typeOf(DType::Bool, {6}), attrs({{"dtype", DType::Bool}})) ==
        std::vector<double>{1, 1, 0, 1, 1, 1});
  // i64 -> f32 rounds 2^53 + 1 to 2^53.
  HostTensor wide = makeTensor(DType::I64, {2}, {9007199254740992.0, -5});
  CHECK(evalOp(OpKind::Cast, {wide}, typeOf(DType::F32, {2}), attrs({{"dtype", DType::F32}})) ==
        std::vector<double>{9007199254740992.0, -5});
}

TEST_CASE("interpreter: reductions over dims with keepdim") {
  HostTensor x = reductionInput();
  auto reduce = [&](OpKind op, std::vector<int64_t> dims, bool keepdim, std::vector<int64_t> shape,
                    DType dtype = DType::F32) {
    return evalOp(op, {x}, typeOf(dtype, std::move(shape)),
                  attrs({{"dims", dims}, {"keepdim", keepdim}}));
  };
  checkValues(reduce(OpKind::Sum, {1}, false, {2, 4}), {-3, -1.5, 0, 1.5, 15, 16.5, 18, 19.5});
  checkValues(reduce(OpKind::Sum, {}, false, {}), {66});
  checkValues(reduce(OpKind::Mean, {0, 2}, true, {1, 3, 1}), {0.75, 2.75, 4.75});
  checkValues(reduce(OpKind::Amax, {-1}, false, {2, 3}), {-1.5, 0.5, 2.5, 4.5, 6.5, 8.5});
  checkValues(reduce(OpKind::Amin, {0}, false, {3, 4}),
              {-3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5});
  checkValues(reduce(OpKind::Prod, {2}, false, {2, 3}), {22.5, 0, 7.5, 189, 1072.5, 3570});
  // any(x != 0); NaN counts as true.
  CHECK(evalOp(OpKind::Any, {f32({2, 3}, {0, 0, 0, 0, kNaN, 0})}, typeOf(DType::Bool, {2}),
               attrs({{"dims", std::vector<int64_t>{1}}, {"keepdim", false}})) ==
        std::vector<double>{0, 1});
  auto variance = [&](std::vector<int64_t> dims, bool keepdim, double correction,
                      std::vector<int64_t> shape) {
    return evalOp(OpKind::Var, {x}, typeOf(DType::F32, std::move(shape)),
                  attrs({{"dims", dims}, {"keepdim", keepdim}, {"correction", correction}}));
  };
  checkValues(variance({1}, false, 1.0, {2, 4}), {4, 4, 4, 4, 4, 4, 4, 4});
  checkValues(variance({}, false, 0.0, {}), {11.979167});
  checkValues(variance({2}, true, 0.0, {2, 3, 1}),
              {0.3125, 0.3125, 0.3125, 0.3125, 0.3125, 0.3125});
  // var of one element with correction 1 divides 0 by 0.
  CHECK(std::isnan(evalOp(
      OpKind::Var, {f32({1}, {3})}, typeOf(DType::F32, {}),
      attrs({{"dims", std::vector<int64_t>{}}, {"keepdim", false}, {"correction", 1.0}}))[0]));
  // Size-0 reduced dims: sum 0, prod 1, mean NaN, any false, amax an error.
  HostTensor empty = f32({2, 0}, {});
  auto emptyReduce = [&](OpKind op, DType dtype = DType::F32) {
    return evalOp(op, {empty}, typeOf(dtype, {2}),
                  attrs({{"dims", std::vector<int64_t>{1}}, {"keepdim", false}}));
  };
  CHECK(emptyReduce(OpKind::Sum) == std::vector<double>{0, 0});
  CHECK(emptyReduce(OpKind::Prod) == std::vector<double>{1, 1});
  CHECK(std::isnan(emptyReduce(OpKind::Mean)[0]));
  CHECK(emptyReduce(OpKind::Any, DType::Bool) == std::vector<double>{0, 0});
  CHECK(contains(opError(OpKind::Amax, {empty}, typeOf(DType::F32, {2}),
                         attrs({{"dims", std::vector<int64_t>{1}}, {"keepdim", false}})),
                 "size-0 dim"));
  CHECK(contains(opError(OpKind::Sum, {x}, typeOf(DType::F32, {2}),
                         attrs({{"dims", std::vector<int64_t>{1, -2}}, {"keepdim", false}})),
                 "appears twice"));
  CHECK(contains(opError(OpKind::Sum, {x}, typeOf(DType::F32, {2}),
                         attrs({{"dims", std::vector<int64_t>{3}}, {"keepdim", false}})),
                 "dim 3 is out of range for rank 3"));
}

TEST_CASE("interpreter: argmax takes the first maximum and NaN as the maximum") {
  HostTensor x = f32({3, 4}, {1, 3, 3, 2, kNaN, 5, kNaN, 1, 0, -1, -2, -3});
  CHECK(evalOp(OpKind::Argmax, {x}, typeOf(DType::I64, {3}),
               attrs({{"dim", int64_t{1}}, {"keepdim", false}})) == std::vector<double>{1, 0, 0});
  CHECK(evalOp(OpKind::Argmax, {x}, typeOf(DType::I64, {1, 4}),
               attrs({{"dim", int64_t{0}}, {"keepdim", true}})) == std::vector<double>{1, 1, 1, 0});
  checkValues(evalOp(OpKind::Amax, {x}, typeOf(DType::F32, {3}),
                     attrs({{"dims", std::vector<int64_t>{1}}, {"keepdim", false}})),
              {3, kNaN, 0});
}

TEST_CASE("interpreter: cumsum runs along one dim; integers and bool sum into i64") {
  HostTensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(evalOp(OpKind::Cumsum, {x}, typeOf(DType::F32, {2, 3}), attrs({{"dim", int64_t{1}}})) ==
        std::vector<double>{1, 3, 6, 4, 9, 15});
  CHECK(evalOp(OpKind::Cumsum, {x}, typeOf(DType::F32, {2, 3}), attrs({{"dim", int64_t{-2}}})) ==
        std::vector<double>{1, 2, 3, 5, 7, 9});
  CHECK(evalOp(OpKind::Cumsum, {makeTensor(DType::Bool, {4}, {1, 0, 1, 1})},
               typeOf(DType::I64, {4}), attrs({{"dim", int64_t{0}}})) ==
        std::vector<double>{1, 1, 2, 3});
  CHECK(evalOp(OpKind::Cumsum, {f32({}, {2.5})}, typeOf(DType::F32, {}),
               attrs({{"dim", int64_t{0}}})) == std::vector<double>{2.5});
  CHECK(contains(opError(OpKind::Cumsum, {x}, typeOf(DType::F32, {2, 3}),
                         attrs({{"dim", int64_t{2}}})),
                 "out of range"));
}

TEST_CASE("interpreter: reshape, permute, expand, squeeze, unsqueeze") {
  std::vector<double> ramp;
  for (int i = 0; i < 24; ++i)
    ramp.push_back(i);
  HostTensor x = f32({2, 3, 4}, ramp);
  CHECK(evalOp(OpKind::Reshape, {x}, typeOf(DType::F32, {6, 4}),
               attrs({{"shape", std::vector<int64_t>{6, 4}}})) == ramp);
  CHECK(contains(opError(OpKind::Reshape, {x}, typeOf(DType::F32, {5, 4}),
                         attrs({{"shape", std::vector<int64_t>{5, 4}}})),
                 "cannot reshape"));
  CHECK(evalOp(OpKind::Permute, {x}, typeOf(DType::F32, {4, 2, 3}),
               attrs({{"dims", std::vector<int64_t>{2, 0, -2}}})) ==
        std::vector<double>{0, 4, 8,  12, 16, 20, 1, 5, 9,  13, 17, 21,
                            2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23});
  HostTensor column = f32({3, 1}, {1, 2, 3});
  CHECK(evalOp(OpKind::Expand, {column}, typeOf(DType::F32, {2, 3, 2}),
               attrs({{"shape", std::vector<int64_t>{2, 3, 2}}})) ==
        std::vector<double>{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3});
  CHECK(contains(opError(OpKind::Expand, {column}, typeOf(DType::F32, {2, 2}),
                         attrs({{"shape", std::vector<int64_t>{2, 2}}})),
                 "do not broadcast"));
  // squeeze only drops the listed size-1 dims; dim 1 has size 3 and stays.
  HostTensor ones = f32({1, 3, 1}, {1, 2, 3});
  CHECK(evalOp(OpKind::Squeeze, {ones}, typeOf(DType::F32, {3, 1}),
               attrs({{"dims", std::vector<int64_t>{0, 1}}})) == std::vector<double>{1, 2, 3});
  CHECK(contains(opError(OpKind::Squeeze, {ones}, typeOf(DType::F32, {3}),
                         attrs({{"dims", std::vector<int64_t>{0}}})),
                 "computes [3,1]"));
  CHECK(evalOp(OpKind::Unsqueeze, {column}, typeOf(DType::F32, {3, 1, 1}),
               attrs({{"dim", int64_t{-1}}})) == std::vector<double>{1, 2, 3});
}

TEST_CASE("interpreter: slice, select, concat, split, tril, triu") {
  HostTensor x = f32({5, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto slice = [&](int64_t start, int64_t end, int64_t step, int64_t rows) {
    return evalOp(OpKind::Slice, {x}, typeOf(DType::F32, {rows, 2}),
                  attrs({{"dim", int64_t{0}}, {"start", start}, {"end", end}, {"step", step}}));
  };
  CHECK(slice(1, 5, 2, 2) == std::vector<double>{2, 3, 6, 7});
  CHECK(slice(1, 5, 3, 2) == std::vector<double>{2, 3, 8, 9});
  CHECK(slice(4, 4, 1, 0).empty());
  CHECK(evalOp(OpKind::Select, {x}, typeOf(DType::F32, {5}),
               attrs({{"dim", int64_t{1}}, {"index", int64_t{-1}}})) ==
        std::vector<double>{1, 3, 5, 7, 9});
  CHECK(contains(opError(OpKind::Select, {x}, typeOf(DType::F32, {2}),
                         attrs({{"dim", int64_t{0}}, {"index", int64_t{5}}})),
                 "out of range"));

  // A size-0 operand contributes nothing.
  CHECK(evalOp(OpKind::Concat, {f32({2, 1}, {1, 2}), f32({2, 0}, {}), f32({2, 2}, {3, 4, 5, 6})},
               typeOf(DType::F32, {2, 3}),
               attrs({{"dim", int64_t{-1}}})) == std::vector<double>{1, 3, 4, 2, 5, 6});
  CHECK(contains(opError(OpKind::Concat, {f32({2, 1}, {1, 2}), f32({3, 1}, {3, 4, 5})},
                         typeOf(DType::F32, {5, 1}), attrs({{"dim", int64_t{1}}})),
                 "differs outside dim"));
  Expected<std::vector<HostTensor>> pieces =
      runOp(OpKind::Split, {x}, {typeOf(DType::F32, {2, 2}), typeOf(DType::F32, {3, 2})},
            attrs({{"dim", int64_t{0}}, {"sizes", std::vector<int64_t>{2, 3}}}));
  REQUIRE(pieces.ok());
  CHECK(valuesOf((*pieces)[0]) == std::vector<double>{0, 1, 2, 3});
  CHECK(valuesOf((*pieces)[1]) == std::vector<double>{4, 5, 6, 7, 8, 9});

  std::vector<double> ramp;
  for (int i = 0; i < 12; ++i)
    ramp.push_back(i);
  HostTensor square = f32({3, 4}, ramp);
  TensorType out = typeOf(DType::F32, {3, 4});
  CHECK(evalOp(OpKind::Tril, {square}, out, attrs({{"diagonal", int64_t{0}}})) ==
        std::vector<double>{0, 0, 0, 0, 4, 5, 0, 0, 8, 9, 10, 0});
  CHECK(evalOp(OpKind::Tril, {square}, out, attrs({{"diagonal", int64_t{-1}}})) ==
        std::vector<double>{0, 0, 0, 0, 4, 0, 0, 0, 8, 9, 0, 0});
  CHECK(evalOp(OpKind::Triu, {square}, out, attrs({{"diagonal", int64_t{1}}})) ==
        std::vector<double>{0, 1, 2, 3, 0, 0, 6, 7, 0, 0, 0, 11});
}

TEST_CASE("interpreter: gather picks along dim and refuses bad indices") {
  HostTensor x = f32({2, 3}, {0, 1, 2, 10, 11, 12});
  CHECK(evalOp(OpKind::Gather, {x, makeTensor(DType::I64, {2, 2}, {2, 0, 1, 1})},
               typeOf(DType::F32, {2, 2}), attrs({{"dim", int64_t{1}}})) ==
        std::vector<double>{2, 0, 11, 11});
  CHECK(evalOp(OpKind::Gather, {x, makeTensor(DType::I32, {1, 3}, {1, 0, 1})},
               typeOf(DType::F32, {1, 3}), attrs({{"dim", int64_t{0}}})) ==
        std::vector<double>{10, 1, 12});
  CHECK(contains(opError(OpKind::Gather, {x, makeTensor(DType::I64, {2, 1}, {0, 3})},
                         typeOf(DType::F32, {2, 1}), attrs({{"dim", int64_t{1}}})),
                 "index 3 is out of range for size 3"));
  CHECK(contains(opError(OpKind::Gather, {x, makeTensor(DType::I64, {2, 1}, {-1, 0})},
                         typeOf(DType::F32, {2, 1}), attrs({{"dim", int64_t{1}}})),
                 "index -1 is out of range"));
}

TEST_CASE("interpreter: flip, diagonal, as_strided, slice_scatter and scatter") {
  HostTensor x = f32({2, 3}, {0, 1, 2, 10, 11, 12});
  CHECK(evalOp(OpKind::Flip, {x}, typeOf(DType::F32, {2, 3}), attrs({{"dims", std::vector<int64_t>{1}}})) ==
        std::vector<double>{2, 1, 0, 12, 11, 10});
  CHECK(evalOp(OpKind::Diagonal, {x}, typeOf(DType::F32, {2}),
               attrs({{"diagonal", int64_t{1}}, {"dims", std::vector<int64_t>{0, 1}}})) ==
        std::vector<double>{1, 12});
  CHECK(evalOp(OpKind::AsStrided, {x}, typeOf(DType::F32, {2, 2}),
               attrs({{"shape", makeDimsAttr({Dim(2), Dim(2)})},
                      {"start", int64_t{1}},
                      {"stride", std::vector<int64_t>{3, 1}}})) == std::vector<double>{1, 2, 11, 12});
  CHECK(evalOp(OpKind::SliceScatter, {x, f32({2, 2}, {-1, -2, -3, -4})},
               typeOf(DType::F32, {2, 3}),
               attrs({{"dim", int64_t{1}},
                      {"end", makeDimAttr(Dim(3))},
                      {"start", int64_t{0}},
                      {"step", int64_t{2}}})) == std::vector<double>{-1, 1, -2, -3, 11, -4});
  // duplicates along dim 1 sum; include_self false leaves x out where something lands
  HostTensor index = makeTensor(DType::I64, {2, 2}, {2, 2, 0, 1});
  HostTensor src = f32({2, 2}, {5, 6, 7, 8});
  auto scatter = [&](const std::string &reduce, bool includeSelf) {
    return evalOp(OpKind::Scatter, {x, index, src}, typeOf(DType::F32, {2, 3}),
                  attrs({{"dim", int64_t{1}},
                         {"include_self", includeSelf},
                         {"reduce", reduce}}));
  };
  CHECK(scatter("sum", true) == std::vector<double>{0, 1, 13, 17, 19, 12});
  CHECK(scatter("sum", false) == std::vector<double>{0, 1, 11, 7, 8, 12});
  CHECK(scatter("amax", false) == std::vector<double>{0, 1, 6, 7, 8, 12});
  CHECK(scatter("none", true) == std::vector<double>{0, 1, 6, 7, 8, 12});
  CHECK(contains(opError(OpKind::Scatter, {x, makeTensor(DType::I64, {2, 1}, {0, 3}),
                                           f32({2, 1}, {1, 1})},
                         typeOf(DType::F32, {2, 3}),
                         attrs({{"dim", int64_t{1}},
                                {"include_self", true},
                                {"reduce", std::string("none")}})),
                 "index 3 is out of range for size 3"));
}

TEST_CASE("interpreter: full, arange, embedding and index_select") {
  CHECK(evalOp(OpKind::Full, {}, typeOf(DType::F32, {2, 2}), attrs({{"value", 0.1}})) ==
        std::vector<double>(4, static_cast<double>(0.1f)));
  CHECK(evalOp(OpKind::Full, {}, typeOf(DType::I32, {}), attrs({{"value", -2.7}})) ==
        std::vector<double>{-2});
  // torch.arange(0.5, 1.0, 0.1) in f32: start + i * step in double, then rounded.
  CHECK(
      evalOp(OpKind::Arange, {}, typeOf(DType::F32, {5}), attrs({{"start", 0.5}, {"step", 0.1}})) ==
      std::vector<double>{0.5f, 0.6f, 0.7f, 0.8f, 0.9f});

  HostTensor weight = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  HostTensor indices = makeTensor(DType::I64, {2, 2}, {0, 3, 3, 1});
  CHECK(evalOp(OpKind::Embedding, {weight, indices}, typeOf(DType::F32, {2, 2, 2})) ==
        std::vector<double>{0, 1, 30, 31, 30, 31, 10, 11});
  CHECK(contains(opError(OpKind::Embedding, {weight, makeTensor(DType::I64, {1}, {4})},
                         typeOf(DType::F32, {1, 2})),
                 "index 4 is out of range for size 4"));
  CHECK(contains(opError(OpKind::Embedding, {weight, makeTensor(DType::I64, {1}, {-1})},
                         typeOf(DType::F32, {1, 2})),
                 "index -1 is out of range"));
  CHECK(evalOp(OpKind::IndexSelect, {weight, makeTensor(DType::I32, {3}, {1, 1, 0})},
               typeOf(DType::F32, {4, 3}), attrs({{"dim", int64_t{1}}})) ==
        std::vector<double>{1, 1, 0, 11, 11, 10, 21, 21, 20, 31, 31, 30});
  CHECK(evalOp(OpKind::IndexSelect, {weight, makeTensor(DType::I64, {}, {2})},
               typeOf(DType::F32, {1, 2}),
               attrs({{"dim", int64_t{0}}})) == std::vector<double>{20, 21});
}

TEST_CASE("interpreter: rounding, sign, elu, fmod, atan2 and bitwise ops match PyTorch") {
  TensorType f32x8 = typeOf(DType::F32, {2, 4});
  CHECK(evalOp(OpKind::Round, {unaryInput()}, f32x8) ==
        std::vector<double>{-2, -1, -0.0, 0, 0, 1, 2, 4}); // ties to even
  CHECK(evalOp(OpKind::Trunc, {unaryInput()}, f32x8) ==
        std::vector<double>{-2, -1, -0.0, 0, 0, 1, 2, 4});
  CHECK(evalOp(OpKind::Sign, {unaryInput()}, f32x8) ==
        std::vector<double>{-1, -1, -1, 0, 1, 1, 1, 1});
  checkValues(evalOp(OpKind::Elu, {unaryInput()}, f32x8,
                     attrs({{"alpha", 2.0}, {"input_scale", 1.0}, {"scale", 1.0}})),
              {-1.83582997, -1.2642411, -0.786938667, 0, 0.5, 1, 2.5, 4});
  // torch.round(x, decimals): the products are formed in float, like PyTorch's kernel.
  HostTensor tenths = f32({8}, {-0.925, -0.37, -0.185, 0, 0.185, 0.37, 0.925, 1.48});
  checkValues(evalOp(OpKind::RoundDecimals, {tenths}, typeOf(DType::F32, {8}),
                     attrs({{"decimals", int64_t{1}}})),
              {-0.899999976, -0.400000006, -0.200000003, 0, 0.200000003, 0.400000006,
               0.899999976, 1.5});
  HostTensor tens = f32({8}, {-92.5, -37, -18.5, 0, 18.5, 37, 92.5, 148});
  CHECK(evalOp(OpKind::RoundDecimals, {tens}, typeOf(DType::F32, {8}),
               attrs({{"decimals", int64_t{-1}}})) ==
        std::vector<double>{-90, -40, -20, 0, 20, 40, 90, 150});
  HostTensor special = f32({4}, {kNaN, kInf, -kInf, 1});
  CHECK(evalOp(OpKind::IsNan, {special}, typeOf(DType::Bool, {4})) ==
        std::vector<double>{1, 0, 0, 0});
  CHECK(evalOp(OpKind::IsInf, {special}, typeOf(DType::Bool, {4})) ==
        std::vector<double>{0, 1, 1, 0});
  CHECK(evalOp(OpKind::Sign, {special}, typeOf(DType::F32, {4})) ==
        std::vector<double>{0, 1, -1, 1}); // NaN gives 0, as PyTorch's CPU kernel
  checkValues(evalOp(OpKind::Fmod, {binaryA(), binaryB()}, f32x8),
              {-1, -2.5, 0, 0, 1.5, 2, -0.0, 0.5});
  checkValues(evalOp(OpKind::Atan2, {binaryA(), binaryB()}, f32x8),
              {-1.29249668, -2.44685435, 0, 2.03444386, 1.22202528, 1.92956698, -1.10714877,
               2.21429753});
  // C's fmod on integers: the sign of the dividend; by zero is an error.
  HostTensor a = makeTensor(DType::I32, {6}, {7, -7, 7, -7, 0, 5});
  HostTensor b = makeTensor(DType::I32, {6}, {2, 2, -2, -2, 3, -3});
  TensorType i32x6 = typeOf(DType::I32, {6});
  CHECK(evalOp(OpKind::Fmod, {a, b}, i32x6) == std::vector<double>{1, -1, 1, -1, 0, 2});
  HostTensor zero = makeTensor(DType::I32, {6}, {1, 1, 0, 1, 1, 1});
  CHECK(contains(opError(OpKind::Fmod, {a, zero}, i32x6), "integer division by zero"));
  HostTensor u = makeTensor(DType::U8, {4}, {0, 5, 200, 255});
  HostTensor v = makeTensor(DType::U8, {4}, {3, 6, 7, 128});
  TensorType u8x4 = typeOf(DType::U8, {4});
  CHECK(evalOp(OpKind::BitwiseNot, {u}, u8x4) == std::vector<double>{255, 250, 55, 0});
  CHECK(evalOp(OpKind::BitwiseAnd, {u, v}, u8x4) == std::vector<double>{0, 4, 0, 128});
  CHECK(evalOp(OpKind::BitwiseXor, {u, v}, u8x4) == std::vector<double>{3, 3, 207, 127});
  CHECK(evalOp(OpKind::BitwiseOr, {u, v}, u8x4) == std::vector<double>{3, 7, 207, 255});
  HostTensor m = makeTensor(DType::Bool, {4}, {0, 1, 0, 1});
  HostTensor n = makeTensor(DType::Bool, {4}, {0, 0, 1, 1});
  TensorType bool4 = typeOf(DType::Bool, {4});
  CHECK(evalOp(OpKind::BitwiseNot, {m}, bool4) == std::vector<double>{1, 0, 1, 0});
  CHECK(evalOp(OpKind::LogicalXor, {m, n}, bool4) == std::vector<double>{0, 1, 1, 0});
}
