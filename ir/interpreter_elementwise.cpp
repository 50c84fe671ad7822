// Elementwise ops of the reference interpreter: unary math and activations, binary arithmetic
// with NumPy broadcasting, comparisons, logical ops, where, cast and copy. Floating results are
// computed in double; integer add/sub/mul/floor_divide/remainder/pow use exact int64
// arithmetic wrapped to the result width, as PyTorch's integer kernels do.
#include <cmath>
#include <limits>

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
