// Numeric helpers shared by the reference interpreter's op families (ir/interpreter_internal.h):
// rounding to each dtype, f16/bf16 bit patterns, element encoding, and shape/broadcast helpers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ir/interpreter_internal.h"

namespace thunderc::ir {
namespace interp {
namespace {

/// Rounds a finite non-zero double to a binary float format with `mantissaBits` explicit
/// mantissa bits and smallest normal exponent `minExponent`, to nearest even (nearbyint in
/// the default rounding mode). Scaling by powers of two is exact, so this is one rounding.
double roundToFloatFormat(double value, int mantissaBits, int minExponent, double maxFinite) {
  if (!std::isfinite(value) || value == 0.0)
    return value;
  int exponent = 0;
  std::frexp(value, &exponent); // |value| = f * 2^exponent with f in [0.5, 1)
  int unitExponent = std::max(exponent - 1, minExponent) - mantissaBits;
  double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -unitExponent)), unitExponent);
  if (std::fabs(rounded) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  return rounded;
}

/// Truncates toward zero and wraps modulo 2^width; fmod is exact, so is every step.
double roundToInteger(double value, DType dtype) {
  double truncated = std::trunc(value);
  int width = static_cast<int>(dtypeSize(dtype)) * 8;
  if (!std::isfinite(truncated)) {
    if (dtype == DType::I32 || dtype == DType::I64)
      return -std::ldexp(1.0, width - 1);
    return 0.0;
  }
  double modulus = std::ldexp(1.0, width);
  double wrapped = std::fmod(truncated, modulus) + 0.0; // + 0.0 turns -0 into 0
  if (dtype == DType::U8)
    return wrapped < 0 ? wrapped + modulus : wrapped;
  double half = modulus / 2;
  if (wrapped >= half)
    return wrapped - modulus;
  if (wrapped < -half)
    return wrapped + modulus;
  return wrapped;
}

template <typename T> T loadAs(const uint8_t *address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

template <typename T> void storeAs(uint8_t *address, T value) {
  std::memcpy(address, &value, sizeof(T));
}

} // namespace

double roundToDType(double value, DType dtype) {
  switch (dtype) {
  case DType::F64:
    return value;
  case DType::F32:
    return static_cast<double>(static_cast<float>(value));
  case DType::F16:
    return roundToFloatFormat(value, 10, -14, 65504.0);
  case DType::BF16:
    return roundToFloatFormat(value, 7, -126, std::ldexp(255.0, 120)); // (2 - 2^-7) * 2^127
  case DType::Bool:
    return value != 0.0 ? 1.0 : 0.0;
  case DType::U8:
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64:
    return roundToInteger(value, dtype);
  }
  return value;
}

int64_t wrapInteger(int64_t value, DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return value != 0;
  case DType::U8:
    return static_cast<uint8_t>(value);
  case DType::I8:
    return static_cast<int8_t>(value);
  case DType::I16:
    return static_cast<int16_t>(value);
  case DType::I32:
    return static_cast<int32_t>(value);
  default:
    return value;
  }
}

uint16_t halfBits(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return sign | 0x7E00;
  double magnitude = std::fabs(value);
  if (magnitude == 0.0)
    return sign;
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int unbiased = exponent - 1;
  if (std::isinf(magnitude) || unbiased > 15)
    return sign | 0x7C00;
  if (unbiased < -14) // subnormal: an exact multiple of 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(magnitude, 24));
  auto mantissa = static_cast<uint16_t>(std::ldexp(magnitude, 10 - unbiased) - 1024.0);
  return sign | static_cast<uint16_t>((unbiased + 15) << 10) | mantissa;
}

double halfFromBits(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1F;
  int mantissa = bits & 0x3FF;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

uint16_t bfloat16Bits(double value) {
  if (std::isnan(value))
    return 0x7FC0;
  auto single = static_cast<float>(value); // exact: bf16 values are f32 values
  uint32_t bits;
  std::memcpy(&bits, &single, sizeof(bits));
  return static_cast<uint16_t>(bits >> 16);
}

double bfloat16FromBits(uint16_t bits) {
  uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float single;
  std::memcpy(&single, &widened, sizeof(single));
  return single;
}

double readElement(const uint8_t *address, DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return *address != 0 ? 1.0 : 0.0;
  case DType::U8:
    return *address;
  case DType::I8:
    return loadAs<int8_t>(address);
  case DType::I16:
    return loadAs<int16_t>(address);
  case DType::I32:
    return loadAs<int32_t>(address);
  case DType::I64:
    return static_cast<double>(loadAs<int64_t>(address));
  case DType::F16:
    return halfFromBits(loadAs<uint16_t>(address));
  case DType::BF16:
    return bfloat16FromBits(loadAs<uint16_t>(address));
  case DType::F32:
    return loadAs<float>(address);
  case DType::F64:
    return loadAs<double>(address);
  }
  return 0.0;
}

void writeElement(uint8_t *address, DType dtype, double value) {
  switch (dtype) {
  case DType::Bool:
    *address = value != 0.0 ? 1 : 0;
    return;
  case DType::U8:
    *address = static_cast<uint8_t>(static_cast<int64_t>(value));
    return;
  case DType::I8:
    storeAs(address, static_cast<int8_t>(value));
    return;
  case DType::I16:
    storeAs(address, static_cast<int16_t>(value));
    return;
  case DType::I32:
    storeAs(address, static_cast<int32_t>(value));
    return;
  case DType::I64:
    storeAs(address, static_cast<int64_t>(value));
    return;
  case DType::F16:
    storeAs(address, halfBits(value));
    return;
  case DType::BF16:
    storeAs(address, bfloat16Bits(value));
    return;
  case DType::F32:
    storeAs(address, static_cast<float>(value));
    return;
  case DType::F64:
    storeAs(address, value);
    return;
  }
}

int64_t shapeNumel(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

Expected<int64_t> normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    return invalidInput("dim " + std::to_string(dim) + " is out of range for rank " +
                        std::to_string(rank));
  return dim < 0 ? dim + rank : dim;
}

Expected<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t> &a,
                                               const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t dimA = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t dimB = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (dimA != dimB && dimA != 1 && dimB != 1)
      return invalidInput("shapes " + shapeText(a) + " and " + shapeText(b) + " do not broadcast");
    shape[i] = dimA == 1 ? dimB : dimA;
  }
  return shape;
}

std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &outShape) {
  TC_CHECK(shape.size() <= outShape.size(), "broadcast to a lower rank");
  std::vector<int64_t> strides(outShape.size(), 0);
  size_t lead = outShape.size() - shape.size();
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    TC_CHECK(shape[i] == outShape[lead + i] || shape[i] == 1, "shapes do not broadcast");
    strides[lead + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

Status expectShape(const Tensor &result, const std::vector<int64_t> &expected) {
  if (result.shape == expected)
    return Status::success();
  return invalidInput("result type has shape " + shapeText(result.shape) + " but the op computes " +
                      shapeText(expected));
}

} // namespace interp

} // namespace thunderc::ir
