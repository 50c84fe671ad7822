// Elementwise ops of the reference interpreter: unary math and activations, binary arithmetic
// with NumPy broadcasting, comparisons, logical and bitwise ops, where, cast and copy. Floating
// results are computed in double; integer add/sub/mul/floor_divide/remainder/pow use exact int64
// arithmetic wrapped to the result width, as PyTorch's integer kernels do.
#include <cmath>
#include <limits>

#include "runtime/kernels/tc_math.h" // tc::digamma: the kernels' algorithm, run in double
#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Applies `function` to every element; the result has the operand's shape.
template <typename Function> Status mapUnary(OpCall &call, Function function) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  TC_TRY(expectShape(output, input.shape));
  for (size_t i = 0; i < input.data.size(); ++i)
    output.data[i] = function(input.data[i]);
  return Status::success();
}

/// Applies `function` to the N operands broadcast to their common shape (NumPy rules).
template <size_t N, typename Function> Status mapBroadcast(OpCall &call, Function function) {
  std::vector<int64_t> shape = call.operand(0).shape;
  for (size_t k = 1; k < N; ++k) {
    TC_ASSIGN_OR_RETURN(shape, broadcastShapes(shape, call.operand(static_cast<int>(k)).shape));
  }
  Tensor &output = call.result();
  TC_TRY(expectShape(output, shape));
  std::array<std::vector<int64_t>, N> strides;
  std::array<const std::vector<int64_t> *, N> stridePointers;
  std::array<const double *, N> data;
  for (size_t k = 0; k < N; ++k) {
    const Tensor &operand = call.operand(static_cast<int>(k));
    strides[k] = broadcastStrides(operand.shape, shape);
    stridePointers[k] = &strides[k];
    data[k] = operand.data.data();
  }
  double *out = output.data.data();
  forEachIndex<N>(
      shape, stridePointers, [&](int64_t linear, const std::array<int64_t, N> &offsets) {
        if constexpr (N == 2)
          out[linear] = function(data[0][offsets[0]], data[1][offsets[1]]);
        else
          out[linear] = function(data[0][offsets[0]], data[1][offsets[1]], data[2][offsets[2]]);
      });
  return Status::success();
}

/// mapBroadcast for integer operands: `function` works on exact int64 values and its result
/// wraps to the width of the result dtype.
template <typename Function> Status mapBinaryInteger(OpCall &call, Function function) {
  DType dtype = call.result().dtype;
  return mapBroadcast<2>(call, [&](double a, double b) {
    int64_t value = function(static_cast<int64_t>(a), static_cast<int64_t>(b));
    return static_cast<double>(wrapInteger(value, dtype));
  });
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

/// min(max(x, 0), 6), NaN-propagating like PyTorch's CPU kernels.
double relu6(double x) { return std::isnan(x) ? x : std::min(std::max(x, 0.0), 6.0); }

double geluErf(double x) { return 0.5 * x * (1.0 + std::erf(x * M_SQRT1_2)); }

double geluTanh(double x) {
  constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5; // sqrt(2 / pi)
  return 0.5 * x * (1.0 + std::tanh(kBeta * (x + 0.044715 * x * x * x)));
}

/// PyTorch's div_floor_floating: floor of the true quotient, computed via fmod so that the
/// result is exact when a is a multiple of b.
double floorDivideFloat(double a, double b) {
  if (b == 0.0)
    return a / b;
  double mod = std::fmod(a, b);
  double quotient = (a - mod) / b;
  if (mod != 0.0 && (b < 0.0) != (mod < 0.0))
    quotient -= 1.0;
  if (quotient == 0.0)
    return std::copysign(0.0, a / b);
  double floored = std::floor(quotient);
  if (quotient - floored > 0.5)
    floored += 1.0;
  return floored;
}

/// Python's modulo: the result has the sign of the divisor.
double remainderFloat(double a, double b) {
  double mod = std::fmod(a, b);
  if (mod != 0.0 && (b < 0.0) != (mod < 0.0))
    mod += b;
  return mod;
}

int64_t floorDivideInteger(int64_t a, int64_t b) {
  if (b == -1) // avoids the INT64_MIN / -1 trap; wraps like PyTorch
    return static_cast<int64_t>(0 - static_cast<uint64_t>(a));
  int64_t quotient = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --quotient;
  return quotient;
}

int64_t remainderInteger(int64_t a, int64_t b) {
  if (b == -1)
    return 0;
  int64_t remainder = a % b;
  if (remainder != 0 && ((remainder < 0) != (b < 0)))
    remainder += b;
  return remainder;
}

/// PyTorch's powi: negative exponents give 0 except for bases 1 and -1.
int64_t powInteger(int64_t base, int64_t exponent) {
  if (exponent < 0) {
    if (base == 1)
      return 1;
    if (base == -1)
      return (exponent & 1) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1;
  uint64_t factor = static_cast<uint64_t>(base);
  for (; exponent != 0; exponent >>= 1) {
    if (exponent & 1)
      result *= factor;
    factor *= factor;
  }
  return static_cast<int64_t>(result);
}

/// torch.round(x, decimals): nearbyint(x * 10^d) / 10^d (d < 0: nearbyint(x / 10^-d) * 10^-d).
/// For f32/f16/bf16 results the arithmetic is done in float, as PyTorch's kernel does, so that
/// ties land on the same side.
double roundDecimals(double x, int64_t decimals, DType dtype) {
  bool negative = decimals < 0;
  double scale = std::pow(10.0, static_cast<double>(negative ? -decimals : decimals));
  if (dtype == DType::F64)
    return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
  float value = static_cast<float>(x);
  float factor = static_cast<float>(scale);
  return negative ? std::nearbyint(value / factor) * factor
                  : std::nearbyint(value * factor) / factor;
}

/// elu with PyTorch's coefficients: x * scale for x > 0, else alpha * scale * expm1(x *
/// input_scale).
double elu(double x, double alpha, double scale, double inputScale) {
  return x <= 0.0 ? std::expm1(x * inputScale) * alpha * scale : x * scale;
}

/// C's fmod on integers (the sign of the dividend); the minimum divided by -1 gives 0.
int64_t fmodInteger(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

/// -1, 0 or 1; NaN gives 0 (PyTorch's CPU kernel: (0 < x) - (x < 0)).
double sign(double x) { return static_cast<double>((0.0 < x) - (x < 0.0)); }

/// bitwise_not / and / or / xor on integer or bool operands; integers wrap to the result width.
template <typename Function> Status mapBitwise(OpCall &call, Function function) {
  DType dtype = call.result().dtype;
  auto apply = [&](int64_t a, int64_t b) {
    if (dtype == DType::Bool)
      return static_cast<double>(function(a != 0, b != 0) & 1);
    return static_cast<double>(wrapInteger(function(a, b), dtype));
  };
  if (call.numOperands() == 1)
    return mapUnary(call, [&](double x) { return apply(static_cast<int64_t>(x), 0); });
  return mapBroadcast<2>(call, [&](double a, double b) {
    return apply(static_cast<int64_t>(a), static_cast<int64_t>(b));
  });
}

Status runUnary(OpCall &call) {
  switch (call.node.op()) {
  case OpKind::Neg:
    return mapUnary(call, [](double x) { return -x; });
  case OpKind::Abs:
    return mapUnary(call, [](double x) { return std::fabs(x); });
  case OpKind::Relu:
    return mapUnary(call, [](double x) { return std::isnan(x) || x > 0.0 ? x : 0.0; });
  case OpKind::Sigmoid:
    return mapUnary(call, sigmoid);
  case OpKind::Tanh:
    return mapUnary(call, [](double x) { return std::tanh(x); });
  case OpKind::Exp:
    return mapUnary(call, [](double x) { return std::exp(x); });
  case OpKind::Log:
    return mapUnary(call, [](double x) { return std::log(x); });
  case OpKind::Sqrt:
    return mapUnary(call, [](double x) { return std::sqrt(x); });
  case OpKind::Rsqrt:
    return mapUnary(call, [](double x) { return 1.0 / std::sqrt(x); });
  case OpKind::Reciprocal:
    return mapUnary(call, [](double x) { return 1.0 / x; });
  case OpKind::Erf:
    return mapUnary(call, [](double x) { return std::erf(x); });
  case OpKind::Erfc:
    return mapUnary(call, [](double x) { return std::erfc(x); });
  case OpKind::Lgamma:
    return mapUnary(call, [](double x) { return std::lgamma(x); });
  case OpKind::Digamma:
    return mapUnary(call, [](double x) { return tc::digamma(x); });
  case OpKind::Trigamma:
    return mapUnary(call, [](double x) { return tc::trigamma(x); });
  // torch.special: the same double-precision code generated kernels run (tc_math.h).
  case OpKind::Erfinv:
    return mapUnary(call, [](double x) { return tc::erfinv(x); });
  case OpKind::Ndtri:
    return mapUnary(call, [](double x) { return tc::ndtri(x); });
  case OpKind::Erfcx:
    return mapUnary(call, [](double x) { return tc::erfcx(x); });
  case OpKind::LogNdtr:
    return mapUnary(call, [](double x) { return tc::log_ndtr(x); });
  case OpKind::BesselJ0:
    return mapUnary(call, [](double x) { return tc::bessel_j0(x); });
  case OpKind::BesselJ1:
    return mapUnary(call, [](double x) { return tc::bessel_j1(x); });
  case OpKind::BesselY0:
    return mapUnary(call, [](double x) { return tc::bessel_y0(x); });
  case OpKind::BesselY1:
    return mapUnary(call, [](double x) { return tc::bessel_y1(x); });
  case OpKind::BesselI0:
    return mapUnary(call, [](double x) { return tc::bessel_i0(x); });
  case OpKind::BesselI1:
    return mapUnary(call, [](double x) { return tc::bessel_i1(x); });
  case OpKind::BesselI0e:
    return mapUnary(call, [](double x) { return tc::bessel_i0e(x); });
  case OpKind::BesselI1e:
    return mapUnary(call, [](double x) { return tc::bessel_i1e(x); });
  case OpKind::BesselK0:
    return mapUnary(call, [](double x) { return tc::bessel_k0(x); });
  case OpKind::BesselK1:
    return mapUnary(call, [](double x) { return tc::bessel_k1(x); });
  case OpKind::BesselK0e:
    return mapUnary(call, [](double x) { return tc::bessel_k0e(x); });
  case OpKind::BesselK1e:
    return mapUnary(call, [](double x) { return tc::bessel_k1e(x); });
  case OpKind::SphericalBesselJ0:
    return mapUnary(call, [](double x) { return tc::spherical_bessel_j0(x); });
  case OpKind::AiryAi:
    return mapUnary(call, [](double x) { return tc::airy_ai(x); });
  case OpKind::Sin:
    return mapUnary(call, [](double x) { return std::sin(x); });
  case OpKind::Cos:
    return mapUnary(call, [](double x) { return std::cos(x); });
  case OpKind::Floor:
    return mapUnary(call, [](double x) { return std::floor(x); });
  case OpKind::Ceil:
    return mapUnary(call, [](double x) { return std::ceil(x); });
  case OpKind::Silu:
    return mapUnary(call, [](double x) { return x * sigmoid(x); });
  case OpKind::Hardswish:
    return mapUnary(call, [](double x) { return x * relu6(x + 3.0) / 6.0; });
  case OpKind::Hardsigmoid:
    return mapUnary(call, [](double x) { return relu6(x + 3.0) / 6.0; });
  case OpKind::LeakyRelu: {
    double slope = attr::negative_slope(call.node);
    return mapUnary(call, [=](double x) { return x > 0.0 ? x : x * slope; });
  }
  case OpKind::Gelu: {
    const std::string &approximate = attr::approximate(call.node);
    if (approximate == "none")
      return mapUnary(call, geluErf);
    if (approximate == "tanh")
      return mapUnary(call, geluTanh);
    return unsupported("gelu approximation \"" + approximate + "\"");
  }
  case OpKind::Clamp: {
    // Absent bounds are infinite; a NaN operand or bound gives NaN; min > max gives max.
    double low = attr::min(call.node).value_or(-kInfinity);
    double high = attr::max(call.node).value_or(kInfinity);
    return mapUnary(call, [=](double x) {
      if (std::isnan(x) || std::isnan(low) || std::isnan(high))
        return kNaN;
      return std::min(std::max(x, low), high);
    });
  }
  case OpKind::LogicalNot:
    return mapUnary(call, [](double x) { return x == 0.0 ? 1.0 : 0.0; });
  case OpKind::Acos:
    return mapUnary(call, [](double x) { return std::acos(x); });
  case OpKind::Acosh:
    return mapUnary(call, [](double x) { return std::acosh(x); });
  case OpKind::Asin:
    return mapUnary(call, [](double x) { return std::asin(x); });
  case OpKind::Asinh:
    return mapUnary(call, [](double x) { return std::asinh(x); });
  case OpKind::Atan:
    return mapUnary(call, [](double x) { return std::atan(x); });
  case OpKind::Atanh:
    return mapUnary(call, [](double x) { return std::atanh(x); });
  case OpKind::Cosh:
    return mapUnary(call, [](double x) { return std::cosh(x); });
  case OpKind::Sinh:
    return mapUnary(call, [](double x) { return std::sinh(x); });
  case OpKind::Tan:
    return mapUnary(call, [](double x) { return std::tan(x); });
  case OpKind::Expm1:
    return mapUnary(call, [](double x) { return std::expm1(x); });
  case OpKind::Log10:
    return mapUnary(call, [](double x) { return std::log10(x); });
  case OpKind::Log1p:
    return mapUnary(call, [](double x) { return std::log1p(x); });
  case OpKind::Log2:
    return mapUnary(call, [](double x) { return std::log2(x); });
  // Integers are exact in the double data and nearbyint/trunc leave them unchanged.
  case OpKind::Round:
    return mapUnary(call, [](double x) { return std::nearbyint(x); });
  case OpKind::RoundDecimals: {
    int64_t decimals = attr::decimals(call.node);
    DType dtype = call.result().dtype;
    return mapUnary(call, [=](double x) { return roundDecimals(x, decimals, dtype); });
  }
  case OpKind::Trunc:
    return mapUnary(call, [](double x) { return std::trunc(x); });
  case OpKind::Sign:
    return mapUnary(call, sign);
  case OpKind::IsNan:
    return mapUnary(call, [](double x) { return std::isnan(x) ? 1.0 : 0.0; });
  case OpKind::IsInf:
    return mapUnary(call, [](double x) { return std::isinf(x) ? 1.0 : 0.0; });
  case OpKind::Elu: {
    double alpha = attr::alpha(call.node);
    double scale = attr::scale(call.node).value_or(1.0);
    double inputScale = attr::input_scale(call.node);
    return mapUnary(call, [=](double x) { return elu(x, alpha, scale, inputScale); });
  }
  case OpKind::BitwiseNot:
    return mapBitwise(call, [](int64_t a, int64_t) { return ~a; });
  // The driver's rounding to the result dtype is the whole conversion (truncation toward zero
  // for float -> int, x != 0 for bool, round to nearest even for f16/bf16).
  case OpKind::Cast:
  case OpKind::Copy:
    return mapUnary(call, [](double x) { return x; });
  default:
    TC_CHECK(false, "not a unary elementwise op");
  }
}

/// add, sub, mul, floor_divide, remainder and pow on integer operands.
Status runIntegerArithmetic(OpCall &call) {
  bool dividedByZero = false;
  Status status;
  switch (call.node.op()) {
  case OpKind::Add:
    return mapBinaryInteger(call, [](int64_t a, int64_t b) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
    });
  case OpKind::Sub:
    return mapBinaryInteger(call, [](int64_t a, int64_t b) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
    });
  case OpKind::Mul:
    return mapBinaryInteger(call, [](int64_t a, int64_t b) {
      return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    });
  case OpKind::Pow:
    return mapBinaryInteger(call, powInteger);
  case OpKind::FloorDivide:
    status = mapBinaryInteger(call, [&](int64_t a, int64_t b) -> int64_t {
      dividedByZero |= b == 0;
      return b == 0 ? 0 : floorDivideInteger(a, b);
    });
    break;
  case OpKind::Remainder:
    status = mapBinaryInteger(call, [&](int64_t a, int64_t b) -> int64_t {
      dividedByZero |= b == 0;
      return b == 0 ? 0 : remainderInteger(a, b);
    });
    break;
  case OpKind::Fmod:
    status = mapBinaryInteger(call, [&](int64_t a, int64_t b) -> int64_t {
      dividedByZero |= b == 0;
      return b == 0 ? 0 : fmodInteger(a, b);
    });
    break;
  default:
    TC_CHECK(false, "not an integer arithmetic op");
  }
  TC_TRY(status);
  if (dividedByZero)
    return invalidInput("integer division by zero");
  return Status::success();
}

bool isIntegerArithmetic(const OpCall &call) {
  switch (call.node.op()) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Pow:
  case OpKind::FloorDivide:
  case OpKind::Remainder:
  case OpKind::Fmod:
    return isIntegral(call.operand(0).dtype) && isIntegral(call.result().dtype);
  default:
    return false;
  }
}

Status runBinary(OpCall &call) {
  if (isIntegerArithmetic(call))
    return runIntegerArithmetic(call);
  switch (call.node.op()) {
  case OpKind::Add:
    return mapBroadcast<2>(call, [](double a, double b) { return a + b; });
  case OpKind::Sub:
    return mapBroadcast<2>(call, [](double a, double b) { return a - b; });
  case OpKind::Mul:
    return mapBroadcast<2>(call, [](double a, double b) { return a * b; });
  case OpKind::Div:
    return mapBroadcast<2>(call, [](double a, double b) { return a / b; });
  case OpKind::FloorDivide:
    return mapBroadcast<2>(call, floorDivideFloat);
  case OpKind::Remainder:
    return mapBroadcast<2>(call, remainderFloat);
  case OpKind::Pow:
    return mapBroadcast<2>(call, [](double a, double b) { return std::pow(a, b); });
  case OpKind::Maximum:
    return mapBroadcast<2>(call, [](double a, double b) {
      return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b);
    });
  case OpKind::Minimum:
    return mapBroadcast<2>(call, [](double a, double b) {
      return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b);
    });
  case OpKind::Eq:
    return mapBroadcast<2>(call, [](double a, double b) { return a == b ? 1. : 0.; });
  case OpKind::Ne:
    return mapBroadcast<2>(call, [](double a, double b) { return a != b ? 1. : 0.; });
  case OpKind::Lt:
    return mapBroadcast<2>(call, [](double a, double b) { return a < b ? 1. : 0.; });
  case OpKind::Le:
    return mapBroadcast<2>(call, [](double a, double b) { return a <= b ? 1. : 0.; });
  case OpKind::Gt:
    return mapBroadcast<2>(call, [](double a, double b) { return a > b ? 1. : 0.; });
  case OpKind::Ge:
    return mapBroadcast<2>(call, [](double a, double b) { return a >= b ? 1. : 0.; });
  case OpKind::LogicalAnd:
    return mapBroadcast<2>(call, [](double a, double b) { return a != 0 && b != 0 ? 1. : 0.; });
  case OpKind::LogicalOr:
    return mapBroadcast<2>(call, [](double a, double b) { return a != 0 || b != 0 ? 1. : 0.; });
  case OpKind::LogicalXor:
    return mapBroadcast<2>(call, [](double a, double b) { return (a != 0) != (b != 0) ? 1. : 0.; });
  case OpKind::Atan2:
    return mapBroadcast<2>(call, [](double a, double b) { return std::atan2(a, b); });
  case OpKind::Zeta:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::zeta(a, b); });
  case OpKind::Igamma:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::igamma(a, b); });
  case OpKind::Igammac:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::igammac(a, b); });
  case OpKind::ChebyshevT:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::chebyshev_t(a, b); });
  case OpKind::ChebyshevU:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::chebyshev_u(a, b); });
  case OpKind::ChebyshevV:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::chebyshev_v(a, b); });
  case OpKind::ChebyshevW:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::chebyshev_w(a, b); });
  case OpKind::ShiftedChebyshevT:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::shifted_chebyshev_t(a, b); });
  case OpKind::ShiftedChebyshevU:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::shifted_chebyshev_u(a, b); });
  case OpKind::ShiftedChebyshevV:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::shifted_chebyshev_v(a, b); });
  case OpKind::ShiftedChebyshevW:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::shifted_chebyshev_w(a, b); });
  case OpKind::LaguerreL:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::laguerre_l(a, b); });
  case OpKind::LegendreP:
    return mapBroadcast<2>(call, [](double a, double b) { return tc::legendre_p(a, b); });
  // Hermite's degree limit is the dtype's (PyTorch: NaN above 128 for float, 512 for double).
  case OpKind::HermiteH:
  case OpKind::HermiteHe: {
    const bool physicists = call.node.op() == OpKind::HermiteH;
    const int64_t limit = call.result().dtype == DType::F64 ? 512 : 128;
    return mapBroadcast<2>(call, [=](double a, double b) {
      return tc::special_detail::hermite(physicists, a, b, limit);
    });
  }
  case OpKind::Fmod:
    return mapBroadcast<2>(call, [](double a, double b) { return std::fmod(a, b); });
  case OpKind::BitwiseAnd:
    return mapBitwise(call, [](int64_t a, int64_t b) { return a & b; });
  case OpKind::BitwiseOr:
    return mapBitwise(call, [](int64_t a, int64_t b) { return a | b; });
  case OpKind::BitwiseXor:
    return mapBitwise(call, [](int64_t a, int64_t b) { return a ^ b; });
  case OpKind::ShiftLeft:
  case OpKind::ShiftRight: {
    // PyTorch's shifts: a count outside [0, bits) gives 0 (left) or the sign fill (right; U8
    // is the one unsigned type); the left shift wraps.
    const int64_t bits = 8 * dtypeSize(call.result().dtype);
    const bool left = call.node.op() == OpKind::ShiftLeft;
    return mapBitwise(call, [bits, left](int64_t a, int64_t b) -> int64_t {
      if (b < 0 || b >= bits)
        return left ? 0 : (a < 0 ? -1 : 0);
      return left ? static_cast<int64_t>(static_cast<uint64_t>(a) << b) : a >> b;
    });
  }
  case OpKind::Gcd:
    return mapBitwise(call, [](int64_t a, int64_t b) {
      uint64_t x = a < 0 ? 0 - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
      uint64_t y = b < 0 ? 0 - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
      while (x != 0) {
        uint64_t c = x;
        x = y % x;
        y = c;
      }
      return static_cast<int64_t>(y);
    });
  case OpKind::Nextafter:
    // In the operands' own precision: a float32 step is not a float64 one.
    if (call.result().dtype == DType::F32)
      return mapBroadcast<2>(call, [](double a, double b) {
        return static_cast<double>(std::nextafter(static_cast<float>(a), static_cast<float>(b)));
      });
    if (call.result().dtype != DType::F64)
      return unsupported("nextafter of " + std::string(dtypeName(call.result().dtype)) +
                         " (float32 and float64 only)");
    return mapBroadcast<2>(call, [](double a, double b) { return std::nextafter(a, b); });
  default:
    TC_CHECK(false, "not a binary elementwise op");
  }
}

} // namespace

Status runElementwiseOp(OpCall &call) {
  if (call.node.op() == OpKind::Where)
    return mapBroadcast<3>(
        call, [](double condition, double a, double b) { return condition != 0.0 ? a : b; });
  if (call.numOperands() == 2)
    return runBinary(call);
  return runUnary(call);
}

} // namespace thunderc::ir::interp
