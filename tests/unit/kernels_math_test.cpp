// Tests of the kernel library's scalar layer (runtime/kernels/tc_math.h): f16/bf16
// conversions against bit patterns from PyTorch 2.13 and exhaustively against the reference
// interpreter's encoder, cast against the interpreter's rounding rules, and every scalar
// helper against the interpreter's elementwise op on random and special values.
#include "kernels_test_util.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

using namespace kernels_test;

namespace {

float floatFromBits(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

/// f32 bits -> (f16 bits, bf16 bits) as torch.tensor(x).to(dtype) gives on CPU.
struct Conversion {
  uint32_t single;
  uint16_t half;
  uint16_t bfloat;
};

const Conversion kConversions[] = {
    {0x00000000u, 0x0000, 0x0000}, // 0.0
    {0x80000000u, 0x8000, 0x8000}, // -0.0
    {0x3F800000u, 0x3C00, 0x3F80}, // 1.0
    {0xC0000000u, 0xC000, 0xC000}, // -2.0
    {0x3DCCCCCDu, 0x2E66, 0x3DCD}, // 0.1
    {0x3EAAAAABu, 0x3555, 0x3EAB}, // 1/3
    {0x477FE000u, 0x7BFF, 0x4780}, // 65504 (largest f16)
    {0x477FEFFDu, 0x7BFF, 0x4780}, // 65519.99
    {0x477FF000u, 0x7C00, 0x4780}, // 65520 (ties to even: infinity)
    {0xC77FF000u, 0xFC00, 0xC780}, // -65520
    {0x47C35000u, 0x7C00, 0x47C3}, // 1e5
    {0x38800000u, 0x0400, 0x3880}, // 2^-14 (smallest normal f16)
    {0x387FC000u, 0x03FF, 0x3880}, // largest subnormal f16
    {0x33800000u, 0x0001, 0x3380}, // 2^-24 (smallest subnormal f16)
    {0x33000000u, 0x0000, 0x3300}, // 2^-25 (ties to even: zero)
    {0x33000001u, 0x0001, 0x3300}, // just above 2^-25
    {0x33400000u, 0x0001, 0x3340}, // 3 * 2^-26
    {0x322BCC77u, 0x0000, 0x322C}, // 1e-8
    {0x337FFAE5u, 0x0001, 0x3380}, // 5.96e-8
    {0x3F801000u, 0x3C00, 0x3F80}, // 1 + 2^-11 (f16 tie to even)
    {0x3F803000u, 0x3C02, 0x3F80}, // 1 + 3 * 2^-11 (f16 tie, rounds up)
    {0x3F808000u, 0x3C04, 0x3F80}, // 1 + 2^-8 (bf16 tie to even)
    {0x3F818000u, 0x3C0C, 0x3F82}, // 1 + 3 * 2^-8 (bf16 tie, rounds up)
    {0x7F7FFFFFu, 0x7C00, 0x7F80}, // largest f32: bf16 overflows
    {0x7F7F7E82u, 0x7C00, 0x7F7F}, // 3.3961e38
    {0x000116C2u, 0x0000, 0x0001}, // 1e-40 (f32 subnormal)
    {0x7F800000u, 0x7C00, 0x7F80}, // inf
    {0xFF800000u, 0xFC00, 0xFF80}, // -inf
    {0x449A522Bu, 0x64D3, 0x449A}, // 1234.5678
    {0xB900F990u, 0x8808, 0xB901}, // -0.000123
};

/// Random floats spread over the whole exponent range, both signs.
std::vector<float> spreadFloats(int count, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  std::uniform_int_distribution<int> exponent(-150, 128);
  std::vector<float> values;
  for (int i = 0; i < count; ++i) {
    double value = std::ldexp(mantissa(engine), exponent(engine));
    values.push_back(static_cast<float>(i % 2 ? -value : value));
  }
  return values;
}

} // namespace

TEST_CASE("kernels: f16 and bf16 conversions match PyTorch bit patterns") {
  for (const Conversion &conversion : kConversions) {
    float value = floatFromBits(conversion.single);
    INFO("f32 bits " << std::hex << conversion.single);
    CHECK(tc::from_float_half(value).bits == conversion.half);
    CHECK(tc::from_float_bf16(value).bits == conversion.bfloat);
  }
  // NaN stays NaN with c10's patterns (PyTorch's vectorized CPU path writes 0xFFFF for bf16;
  // any NaN is accepted by the golden tests).
  float nan = floatFromBits(0x7FC00000u);
  float negativeNan = floatFromBits(0xFFC00000u);
  CHECK(tc::from_float_half(nan).bits == 0x7E00);
  CHECK(tc::from_float_half(negativeNan).bits == 0xFE00);
  CHECK(tc::from_float_bf16(nan).bits == 0x7FC0);
  CHECK(std::isnan(tc::to_float(tc::from_float_bf16(negativeNan))));
  CHECK(std::isnan(tc::to_float(tc::half{0x7C01})));
  CHECK(tc::to_float(tc::half{0x7BFF}) == 65504.0f);
  CHECK(tc::to_float(tc::half{0x0001}) == std::ldexp(1.0f, -24));
  CHECK(tc::to_float(tc::half{0x83FF}) == -std::ldexp(1023.0f, -24));
  CHECK(tc::to_float(tc::bfloat16{0x3F80}) == 1.0f);
}

TEST_CASE("kernels: every f16 and bf16 bit pattern widens like the interpreter and round-trips") {
  for (uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
    auto pattern = static_cast<uint16_t>(bits);
    float widened = tc::to_float(tc::half{pattern});
    double expected = interp::halfFromBits(pattern);
    if (std::isnan(expected)) {
      REQUIRE(std::isnan(widened));
      REQUIRE((tc::from_float_half(widened).bits & 0x7C00) == 0x7C00);
    } else {
      REQUIRE(static_cast<double>(widened) == expected);
      REQUIRE(std::signbit(widened) == ((bits & 0x8000) != 0));
      REQUIRE(tc::from_float_half(widened).bits == pattern);
    }
    float wideBfloat = tc::to_float(tc::bfloat16{pattern});
    double expectedBfloat = interp::bfloat16FromBits(pattern);
    if (std::isnan(expectedBfloat)) {
      REQUIRE(std::isnan(wideBfloat));
    } else {
      REQUIRE(static_cast<double>(wideBfloat) == expectedBfloat);
      REQUIRE(tc::from_float_bf16(wideBfloat).bits == pattern);
    }
  }
}

TEST_CASE("kernels: f32 -> f16/bf16 rounds to nearest even like the interpreter") {
  std::vector<float> values = spreadFloats(200000, 1);
  // Exact ties and their neighbours around every f16 binade.
  for (int exponent = -25; exponent <= 16; ++exponent)
    for (float offset : {0.5f, 1.5f, 2.5f}) {
      float tie = std::ldexp(1.0f + offset * std::ldexp(1.0f, -10), exponent);
      values.push_back(tie);
      values.push_back(std::nextafter(tie, 0.0f));
      values.push_back(std::nextafter(tie, 1e38f));
    }
  for (float value : values) {
    INFO("value " << value);
    double asHalf = interp::roundToDType(value, DType::F16);
    double asBfloat = interp::roundToDType(value, DType::BF16);
    REQUIRE(tc::from_float_half(value).bits == interp::halfBits(asHalf));
    REQUIRE(tc::from_float_bf16(value).bits == interp::bfloat16Bits(asBfloat));
  }
}

TEST_CASE("kernels: cast from double rounds once, like the interpreter") {
  std::vector<double> values = randomValues(20000, 2, -70000.0, 70000.0);
  for (double small : randomValues(20000, 3, -1e-3, 1e-3))
    values.push_back(small);
  // double -> f32 -> f16 would round twice here: just above an f16 tie, but the f32 is the tie.
  values.push_back(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40));
  values.push_back(-(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)));
  values.push_back(1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40));
  values.push_back(std::ldexp(1.0, -25) + std::ldexp(1.0, -60));
  values.push_back(1e300);
  values.push_back(-1e-300);
  for (double value : values) {
    INFO("value " << value);
    REQUIRE(tc::cast<tc::half>(value).bits ==
            interp::halfBits(interp::roundToDType(value, DType::F16)));
    REQUIRE(tc::cast<tc::bfloat16>(value).bits ==
            interp::bfloat16Bits(interp::roundToDType(value, DType::BF16)));
    REQUIRE(tc::cast<float>(value) == static_cast<float>(value));
  }
  CHECK(tc::cast<tc::half>(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)).bits == 0x3C01);
  CHECK(tc::cast<tc::half>(int64_t{70000}).bits == 0x7C00);
  CHECK(tc::cast<tc::bfloat16>(int64_t{257}).bits == 0x4380); // 256: tie to even
  CHECK(tc::cast<tc::half>(true).bits == 0x3C00);
  CHECK(tc::cast<tc::bfloat16>(tc::cast<tc::half>(0.1)).bits == 0x3DCD);
}

TEST_CASE("kernels: cast to integers and bool follows the interpreter (truncate, wrap, bool)") {
  std::vector<double> values = randomValues(5000, 4, -1e4, 1e4);
  for (double value : {0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 127.9, 128.0, -128.5, 255.5, 256.0,
                       -1.0, 32767.5, 32768.0, -32769.0, 2147483647.0, 2147483648.0, -2147483649.0,
                       9.2e18, -9.3e18, 1e19, 3e19, -3e19, 1e300, kInf, -kInf, kNaN})
    values.push_back(value);
  for (double value : values) {
    INFO("value " << value);
    REQUIRE(tc::cast<int64_t>(value) ==
            static_cast<int64_t>(interp::roundToDType(value, DType::I64)));
    REQUIRE(tc::cast<int32_t>(value) == interp::roundToDType(value, DType::I32));
    REQUIRE(tc::cast<int16_t>(value) == interp::roundToDType(value, DType::I16));
    REQUIRE(tc::cast<int8_t>(value) == interp::roundToDType(value, DType::I8));
    REQUIRE(tc::cast<uint8_t>(value) == interp::roundToDType(value, DType::U8));
    REQUIRE(tc::cast<bool>(value) == (interp::roundToDType(value, DType::Bool) != 0.0));
    if (std::fabs(value) < 3e4) { // through f32 too
      auto single = static_cast<float>(value);
      REQUIRE(tc::cast<int16_t>(single) == interp::roundToDType(single, DType::I16));
    }
  }
  CHECK(tc::cast<int8_t>(tc::cast<tc::half>(-3.75)) == -3);
  CHECK(tc::cast<bool>(tc::bfloat16{0x8000}) == false); // -0
  CHECK(tc::cast<bool>(tc::half{0x7E00}) == true);      // NaN
  CHECK(tc::cast<int64_t>(true) == 1);
  CHECK(tc::cast<double>(int64_t{-7}) == -7.0);
  for (int64_t value :
       {int64_t{300}, int64_t{-129}, int64_t{65535}, int64_t{-1}, int64_t{1} << 40}) {
    CHECK(tc::cast<int8_t>(value) == interp::wrapInteger(value, DType::I8));
    CHECK(tc::cast<uint8_t>(value) == interp::wrapInteger(value, DType::U8));
    CHECK(tc::cast<int16_t>(value) == interp::wrapInteger(value, DType::I16));
    CHECK(tc::cast<int32_t>(value) == interp::wrapInteger(value, DType::I32));
  }
}

namespace {

/// Random values plus the special ones every helper must get right.
std::vector<double> helperInputs(uint64_t seed) {
  std::vector<double> values = randomValues(300, seed, -8.0, 8.0);
  for (double value : {0.0, -0.0, 1.0, -1.0, 3.0, -3.0, 6.0, 1e-30, -1e-30, 50.0, -50.0, 200.0,
                       -200.0, 1e30, -1e30, kInf, -kInf, kNaN})
    values.push_back(value);
  return values;
}

/// Runs unary `op` in the interpreter on `values` as `dtype` and `helper` on each element.
template <typename T>
void checkUnaryHelper(OpKind op, const AttrMap &attributes, const std::function<T(T)> &helper) {
  HostTensor input = makeTensor(dtypeOf<T>(), {318}, helperInputs(5));
  std::vector<double> expected = interpretOp(op, {input}, attributes);
  std::vector<T> typed = typedOf<T>(input);
  std::vector<double> actual;
  for (T value : typed)
    actual.push_back(static_cast<double>(helper(value)));
  INFO(opName(op) << " " << dtypeName(dtypeOf<T>()));
  checkValues(actual, expected, toleranceFor(dtypeOf<T>()) * 2);
}

template <typename T> void checkUnaryHelpers() {
  checkUnaryHelper<T>(OpKind::Relu, {}, [](T x) { return tc::relu(x); });
  checkUnaryHelper<T>(OpKind::Sigmoid, {}, [](T x) { return tc::sigmoid(x); });
  checkUnaryHelper<T>(OpKind::Silu, {}, [](T x) { return tc::silu(x); });
  checkUnaryHelper<T>(OpKind::Gelu, attrs({{"approximate", std::string("none")}}),
                      [](T x) { return tc::gelu_erf(x); });
  checkUnaryHelper<T>(OpKind::Gelu, attrs({{"approximate", std::string("tanh")}}),
                      [](T x) { return tc::gelu_tanh(x); });
  checkUnaryHelper<T>(OpKind::Hardswish, {}, [](T x) { return tc::hardswish(x); });
  checkUnaryHelper<T>(OpKind::Hardsigmoid, {}, [](T x) { return tc::hardsigmoid(x); });
  checkUnaryHelper<T>(OpKind::Rsqrt, {}, [](T x) { return tc::rsqrt(x); });
  checkUnaryHelper<T>(OpKind::Reciprocal, {}, [](T x) { return tc::reciprocal(x); });
  checkUnaryHelper<T>(OpKind::Clamp, attrs({{"min", -1.5}, {"max", 2.25}}),
                      [](T x) { return tc::clamp(x, T(-1.5), T(2.25)); });
  checkUnaryHelper<T>(OpKind::Clamp, attrs({{"min", 3.0}, {"max", -1.0}}), // min > max: max
                      [](T x) { return tc::clamp(x, T(3), T(-1)); });
  checkUnaryHelper<T>(OpKind::Clamp, attrs({{"min", -0.5}}),
                      [](T x) { return tc::clamp_min(x, T(-0.5)); });
  checkUnaryHelper<T>(OpKind::Clamp, attrs({{"max", 0.75}}),
                      [](T x) { return tc::clamp_max(x, T(0.75)); });
  checkUnaryHelper<T>(OpKind::Clamp, attrs({{"min", kNaN}}),
                      [](T x) { return tc::clamp_min(x, T(kNaN)); });
  checkUnaryHelper<T>(OpKind::Round, {}, [](T x) { return tc::round_half_even(x); });
  checkUnaryHelper<T>(OpKind::RoundDecimals, attrs({{"decimals", int64_t{2}}}),
                      [](T x) { return tc::round_decimals(x, 2); });
  checkUnaryHelper<T>(OpKind::RoundDecimals, attrs({{"decimals", int64_t{-1}}}),
                      [](T x) { return tc::round_decimals(x, -1); });
  checkUnaryHelper<T>(OpKind::Trunc, {}, [](T x) { return tc::trunc_(x); });
  checkUnaryHelper<T>(OpKind::Sign, {}, [](T x) { return tc::sign(x); });
  checkUnaryHelper<T>(OpKind::Elu, attrs({{"alpha", 1.5}, {"input_scale", 0.5}, {"scale", 2.0}}),
                      [](T x) { return tc::elu(x, T(1.5), T(2), T(0.5)); });
}

/// Runs binary `op` in the interpreter on a [n, n] grid of operand pairs and `helper` on
/// each pair; pairs with `skip(a, b)` (e.g. integer division by zero) are left out.
template <typename T>
void checkBinaryHelper(OpKind op, const std::vector<double> &operands,
                       const std::function<T(T, T)> &helper,
                       const std::function<bool(double, double)> &skip = nullptr) {
  std::vector<double> left;
  std::vector<double> right;
  for (double a : operands)
    for (double b : operands)
      if (!skip || !skip(a, b)) {
        left.push_back(a);
        right.push_back(b);
      }
  auto count = static_cast<int64_t>(left.size());
  HostTensor a = makeTensor(dtypeOf<T>(), {count}, left);
  HostTensor b = makeTensor(dtypeOf<T>(), {count}, right);
  std::vector<double> expected = interpretOp(op, {a, b});
  std::vector<T> typedA = typedOf<T>(a);
  std::vector<T> typedB = typedOf<T>(b);
  std::vector<double> actual;
  for (size_t i = 0; i < typedA.size(); ++i)
    actual.push_back(static_cast<double>(helper(typedA[i], typedB[i])));
  INFO(opName(op) << " " << dtypeName(dtypeOf<T>()));
  checkValues(actual, expected, toleranceFor(dtypeOf<T>()) * 2);
}

template <typename T> void checkFloatingBinaryHelpers() {
  std::vector<double> operands = {0.0,  -0.0, 1.0,  -1.0, 2.5,  -2.5, 7.0, -7.0, 0.3,
                                  -0.3, 1e-3, 1e10, 3.75, -0.5, kInf, -kInf, kNaN};
  for (double value : randomValues(12, 6, -10.0, 10.0))
    operands.push_back(value);
  checkBinaryHelper<T>(OpKind::FloorDivide, operands,
                       [](T a, T b) { return tc::floor_divide(a, b); });
  checkBinaryHelper<T>(OpKind::Remainder, operands, [](T a, T b) { return tc::py_mod(a, b); });
  checkBinaryHelper<T>(OpKind::Pow, operands, [](T a, T b) { return tc::pow_(a, b); });
  checkBinaryHelper<T>(OpKind::Maximum, operands, [](T a, T b) { return tc::maximum(a, b); });
  checkBinaryHelper<T>(OpKind::Minimum, operands, [](T a, T b) { return tc::minimum(a, b); });
  checkBinaryHelper<T>(OpKind::Fmod, operands, [](T a, T b) { return tc::fmod_(a, b); });
}

template <typename T> void checkIntegerBinaryHelpers() {
  std::vector<double> operands = {0, 1, -1, 2, -2, 3, -3, 7, -7, 10, -10, 100, -128, 127};
  auto divisionByZero = [](double, double b) { return b == 0.0; };
  checkBinaryHelper<T>(
      OpKind::FloorDivide, operands, [](T a, T b) { return tc::floor_divide(a, b); },
      divisionByZero);
  checkBinaryHelper<T>(
      OpKind::Remainder, operands, [](T a, T b) { return tc::py_mod(a, b); }, divisionByZero);
  checkBinaryHelper<T>(OpKind::Pow, operands, [](T a, T b) { return tc::pow_(a, b); });
  checkBinaryHelper<T>(OpKind::Maximum, operands, [](T a, T b) { return tc::maximum(a, b); });
  checkBinaryHelper<T>(OpKind::Minimum, operands, [](T a, T b) { return tc::minimum(a, b); });
  checkBinaryHelper<T>(
      OpKind::Fmod, operands, [](T a, T b) { return tc::fmod_(a, b); }, divisionByZero);
  checkBinaryHelper<T>(OpKind::BitwiseAnd, operands,
                       [](T a, T b) { return tc::bitwise_and(a, b); });
  checkBinaryHelper<T>(OpKind::BitwiseOr, operands, [](T a, T b) { return tc::bitwise_or(a, b); });
  checkBinaryHelper<T>(OpKind::BitwiseXor, operands,
                       [](T a, T b) { return tc::bitwise_xor(a, b); });
}

} // namespace

TEST_CASE("kernels: scalar helpers match the interpreter's elementwise ops") {
  checkUnaryHelpers<double>();
  checkUnaryHelpers<float>();
  checkFloatingBinaryHelpers<double>();
  checkFloatingBinaryHelpers<float>();
  checkIntegerBinaryHelpers<int64_t>();
  checkIntegerBinaryHelpers<int32_t>();
  checkIntegerBinaryHelpers<int8_t>();
  checkIntegerBinaryHelpers<uint8_t>();
}

TEST_CASE("kernels: integer helpers at their edges") {
  CHECK(tc::relu(int64_t{-3}) == 0);
  CHECK(tc::relu(int64_t{4}) == 4);
  CHECK(tc::floor_divide(INT64_MIN, int64_t{-1}) == INT64_MIN); // wraps, no trap
  CHECK(tc::py_mod(INT64_MIN, int64_t{-1}) == 0);
  CHECK(tc::floor_divide(int64_t{5}, int64_t{0}) == 0);
  CHECK(tc::py_mod(int64_t{5}, int64_t{0}) == 0);
  CHECK(tc::floor_divide(int8_t{-128}, int8_t{-1}) == -128);
  CHECK(tc::pow_(int64_t{3}, int64_t{40}) == static_cast<int64_t>(12157665459056928801ull));
  CHECK(tc::pow_(int32_t{2}, int32_t{31}) == INT32_MIN);
  CHECK(tc::pow_(int64_t{-1}, int64_t{-3}) == -1);
  CHECK(tc::pow_(int64_t{2}, int64_t{-1}) == 0);
  CHECK(tc::clamp(int64_t{9}, int64_t{-2}, int64_t{5}) == 5);
  CHECK(std::isnan(tc::clamp(1.0f, std::nanf(""), 2.0f)));
  CHECK(std::isnan(tc::maximum(std::nan(""), 1.0)));
  CHECK(std::isnan(tc::minimum(1.0f, std::nanf(""))));
  CHECK(std::signbit(tc::floor_divide(-0.0, 5.0)));
  CHECK(std::signbit(tc::floor_divide(1.0, -1e300)) == true);
  CHECK(tc::floor_divide(1.0, -1e300) == -1.0);
}

TEST_CASE("kernels: rounding, sign, tests and bitwise helpers at their edges") {
  CHECK(tc::round_half_even(2.5f) == 2.0f);
  CHECK(tc::round_half_even(-0.5) == 0.0);
  CHECK(std::signbit(tc::round_half_even(-0.5)));
  CHECK(tc::round_half_even(int64_t{-7}) == -7);
  CHECK(tc::trunc_(int8_t{-7}) == -7);
  CHECK(tc::sign(std::nanf("")) == 0.0f); // PyTorch's CPU kernel
  CHECK(tc::sign(uint8_t{200}) == 1);
  CHECK(tc::sign(true) == true);
  CHECK(tc::sign(int64_t{-9}) == -1);
  CHECK(tc::is_inf(-std::numeric_limits<double>::infinity()));
  CHECK(!tc::is_inf(std::nanf("")));
  CHECK(tc::is_inf(tc::half{0x7C00}));
  CHECK(!tc::is_inf(int64_t{1}));
  CHECK(tc::fmod_(int64_t{-7}, int64_t{2}) == -1);
  CHECK(tc::fmod_(INT64_MIN, int64_t{-1}) == 0); // no trap
  CHECK(tc::fmod_(int32_t{5}, int32_t{0}) == 0);
  CHECK(std::isnan(tc::fmod_(1.0f, 0.0f)));
  CHECK(tc::bitwise_not(uint8_t{5}) == 250);
  CHECK(tc::bitwise_not(int64_t{0}) == -1);
  CHECK(tc::bitwise_not(true) == false);
  CHECK(tc::bitwise_xor(true, true) == false);
  CHECK(tc::round_decimals(1.35f, 1) == 1.4f); // 13.5f ties to even 14
  CHECK(tc::round_decimals(125.0, -1) == 120.0);
}

TEST_CASE("kernels: floordiv_i64 and mod_i64 follow Python") {
  struct Case {
    int64_t a, b, quotient, remainder;
  };
  for (const Case &c : {Case{7, 2, 3, 1}, Case{-7, 2, -4, 1}, Case{7, -2, -4, -1},
                        Case{-7, -2, 3, -1}, Case{6, 3, 2, 0}, Case{-6, 3, -2, 0}, Case{0, 5, 0, 0},
                        Case{5, 7, 0, 5}, Case{-5, 7, -1, 2}}) {
    INFO(c.a << " // " << c.b);
    CHECK(tc::floordiv_i64(c.a, c.b) == c.quotient);
    CHECK(tc::mod_i64(c.a, c.b) == c.remainder);
  }
}

namespace {

/// Distance in ulps between two floats of the same sign class (0 when both are NaN).
double ulpDistance(float got, double want) {
  float wantFloat = static_cast<float>(want);
  if (std::isnan(wantFloat))
    return std::isnan(got) ? 0.0 : 1e30;
  if (std::isinf(wantFloat) || std::isinf(got))
    return got == wantFloat ? 0.0 : 1e30;
  float ulp = std::nextafter(std::fabs(wantFloat), std::numeric_limits<float>::infinity()) -
              std::fabs(wantFloat);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

/// The largest ulp error of `approx` against the double C library over every 61st float in
/// [-limit, limit] (about 4e7 values each sign; all of them take minutes).
double maxUlpError(float (*approx)(float), double (*reference)(double), float limit,
                   float *worst) {
  double maxError = 0.0;
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t bits = 0;; bits += 61) {
      float x = floatFromBits(bits | (sign << 31));
      if (!(std::fabs(x) <= limit))
        break;
      double error = ulpDistance(approx(x), reference(static_cast<double>(x)));
      if (error > maxError) {
        maxError = error;
        *worst = x;
      }
    }
  }
  return maxError;
}

} // namespace

TEST_CASE("kernels: the host's float exp, tanh and erf are within a few ulps of the C library") {
  struct Case {
    const char *name;
    float (*approx)(float);
    double (*reference)(double);
    float limit;
    double maxUlps;
  };
  const Case cases[] = {
      {"exp", tc::detail::exp_f32, [](double x) { return std::exp(x); }, 110.0f, 2.0},
      {"tanh", tc::detail::tanh_f32, [](double x) { return std::tanh(x); }, 100.0f, 3.0},
      {"erf", tc::detail::erf_f32, [](double x) { return std::erf(x); }, 100.0f, 3.0},
  };
  for (const Case &c : cases) {
    CAPTURE(c.name);
    float worst = 0.0f;
    double error = maxUlpError(c.approx, c.reference, c.limit, &worst);
    CAPTURE(worst);
    CHECK(error <= c.maxUlps);
    const float inf = std::numeric_limits<float>::infinity();
    for (float special : {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f}) {
      CAPTURE(special);
      CHECK(ulpDistance(c.approx(special), c.reference(static_cast<double>(special))) == 0.0);
    }
  }
  // Subnormal results round like the library's.
  for (float x : {-87.5f, -90.0f, -100.0f, -103.9f, -104.0f, -200.0f})
    CHECK(ulpDistance(tc::detail::exp_f32(x), std::exp(static_cast<double>(x))) <= 1.0);
}

// The generator behind the random op (tc_random.h): Random123's known-answer vectors for
// philox4x32 10 (tests/kat_vectors of DEShawResearch/random123: counter, key, result), then
// the layout of the per-element counter and the distributions' ranges.
TEST_CASE("kernels: philox4x32_10 known answers and the random distributions") {
  struct Known {
    tc::philox_block counter;
    uint32_t key0, key1;
    tc::philox_block result;
  };
  const Known known[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
      {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}},
       0xffffffffu,
       0xffffffffu,
       {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
      {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}},
       0xa4093822u,
       0x299f31d0u,
       {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
  };
  for (const Known &k : known) {
    tc::philox_block got = tc::philox4x32_10(k.counter, k.key0, k.key1);
    for (int i = 0; i < 4; ++i)
      CHECK(got.v[i] == k.result.v[i]);
  }
  // Element i: counter (i low, i high, stream, run), key (seed low, seed high).
  tc::random_key key{0x299f31d0a4093822ull, 0x13198a2eu, 0x03707344u};
  tc::philox_block element = tc::random_bits(key, int64_t(0x85a308d3243f6a88));
  for (int i = 0; i < 4; ++i)
    CHECK(element.v[i] == known[2].result.v[i]);
  // Ranges: uniform never reaches 1 (all-ones bits), normal is finite at u1's extremes,
  // integers stay in [low, high) up to the full int64 range.
  CHECK(tc::uniform_float(0xffffffffu, 24) < 1.0f);
  CHECK(tc::uniform_float(0xffffffffu, 11) == 2047.0f / 2048.0f);
  CHECK(tc::uniform_double(0xffffffffu, 0xffffffffu) < 1.0);
  for (int64_t i = 0; i < 1000; ++i) {
    CHECK(std::isfinite(tc::random_normal_f32(key, i)));
    int64_t value = tc::random_integer(key, i, -3, 7);
    CHECK((value >= -3 && value < 7));
    int64_t wide = tc::random_integer(key, i, INT64_MIN, INT64_MAX);
    CHECK(wide < INT64_MAX);
  }
  CHECK(tc::random_element<tc::half>(tc::random_distribution::uniform, key, 5, 0, 0).bits ==
        tc::cast<tc::half>(tc::random_uniform_f32(key, 5, 11)).bits);
}
