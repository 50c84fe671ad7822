// Scalar math shared by the kernels of every generated bundle: the f16/bf16 storage types and
// their round-to-nearest-even conversions, PyTorch's casting rules, and the activation and
// arithmetic helpers that generated elementwise code calls. Header-only C++17 with no
// dependency beyond the standard library; scalar helpers are TC_HD so that nvcc compiles the
// very same code for the device (docs/DESIGN.md §5).
#pragma once

#if defined(__CUDACC_RTC__)
// NVRTC (thunderc --verify) has no host headers: the few names used here come from a shim.
#include "tc_rtc_std.h"
#else
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#endif

#ifndef TC_HD
#if defined(__CUDACC__)
#define TC_HD __host__ __device__
#else
#define TC_HD
#endif
#endif

#include "tc_random.h"

namespace tc {

/// IEEE binary16 storage (the bits only; arithmetic goes through float, see compute_type).
struct half {
  uint16_t bits;
};

/// bfloat16 storage: the upper half of an IEEE binary32. Always spell it tc::bfloat16: OpenBLAS's
/// <cblas.h> (included under TC_USE_CBLAS) declares a global `typedef uint16_t bfloat16`.
struct bfloat16 {
  uint16_t bits;
};

/// The type arithmetic on T is carried out in: float for half/bfloat16, T itself otherwise.
template <typename T> struct compute_type {
  using type = T;
};
template <> struct compute_type<half> {
  using type = float;
};
template <> struct compute_type<bfloat16> {
  using type = float;
};
template <typename T> using compute_t = typename compute_type<T>::type;

/// True for half and bfloat16.
template <typename T> struct is_reduced_float : std::false_type {};
template <> struct is_reduced_float<half> : std::true_type {};
template <> struct is_reduced_float<bfloat16> : std::true_type {};

/// True for every floating element type: float, double, half, bfloat16.
template <typename T>
struct is_floating
    : std::integral_constant<bool, std::is_floating_point<T>::value || is_reduced_float<T>::value> {
};

namespace detail {

TC_HD inline uint32_t float_bits(float value) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(value);
#else
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
#endif
}

TC_HD inline float float_from_bits(uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
#endif
}

/// Rounds a double to float with round-to-odd: an inexact result gets an odd last bit. A
/// second rounding of that float to a format with at least two fewer mantissa bits (half,
/// bfloat16) to nearest even then equals the correctly rounded double -> half/bf16
/// conversion, so cast<half>(double) rounds once, like the reference interpreter.
TC_HD inline float float_round_to_odd(double value) {
  float rounded = static_cast<float>(value);
  if (static_cast<double>(rounded) == value || value != value)
    return rounded;
  uint32_t bits = float_bits(rounded);
  if ((bits & 1u) == 0) {
    // Step one unit in the last place toward `value`; sign-magnitude bits make that +-1.
    bool above = std::fabs(static_cast<double>(rounded)) > std::fabs(value);
    bits = above ? bits - 1u : bits + 1u;
  }
  return float_from_bits(bits);
}

/// Float -> integer with the reference interpreter's rules: truncate toward zero, wrap modulo
/// 2^width; NaN and infinities give the x86 "integer indefinite" value (the minimum of a
/// 32- or 64-bit signed type, 0 for narrower ones). PyTorch leaves the out-of-range cases
/// undefined; this makes them deterministic and free of undefined behavior.
template <typename I> TC_HD inline I float_to_int(double value) {
  if (!std::isfinite(value)) {
    if (std::is_signed<I>::value && sizeof(I) >= 4)
      return static_cast<I>(static_cast<typename std::make_unsigned<I>::type>(1)
                            << (sizeof(I) * 8 - 1));
    return I(0);
  }
  double truncated = std::trunc(value);
  constexpr double kTwo63 = 9223372036854775808.0;
  constexpr double kTwo64 = 18446744073709551616.0;
  if (!(truncated >= -kTwo63 && truncated < kTwo63)) {
    truncated = std::fmod(truncated, kTwo64); // exact
    if (truncated >= kTwo63)
      truncated -= kTwo64;
    else if (truncated < -kTwo63)
      truncated += kTwo64;
  }
  // The narrowing is modular (two's complement), as it is on every supported compiler.
  return static_cast<I>(static_cast<int64_t>(truncated));
}

} // namespace detail

// ---- half and bfloat16 conversions (integer-only bit manipulation, exact on any target) ----

/// Widens exactly; infinities stay infinite and NaN stays NaN (payload shifted, as in c10).
TC_HD inline float to_float(half value) {
  uint32_t sign = (value.bits & 0x8000u) << 16;
  uint32_t exponent = (value.bits >> 10) & 0x1Fu;
  uint32_t mantissa = value.bits & 0x3FFu;
  if (exponent == 0x1F)
    return detail::float_from_bits(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0)
    return detail::float_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
  if (mantissa == 0)
    return detail::float_from_bits(sign);
  // Subnormal: normalize, one exponent step per shift.
  uint32_t biased = 113;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --biased;
  }
  return detail::float_from_bits(sign | (biased << 23) | ((mantissa & 0x3FFu) << 13));
}

/// Rounds to nearest even; overflow gives infinity, NaN gives sign | 0x7E00 (c10's pattern).
TC_HD inline half from_float_half(float value) {
  uint32_t bits = detail::float_bits(value);
  auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u)
    return half{static_cast<uint16_t>(sign | 0x7E00u)};
  if (magnitude >= 0x477FF000u) // 65520 and above round to infinity
    return half{static_cast<uint16_t>(sign | 0x7C00u)};
  if (magnitude >= 0x38800000u) { // normal half: rebias the exponent, round 13 bits away
    uint32_t result = (magnitude - 0x38000000u) >> 13;
    uint32_t rest = magnitude & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u)))
      ++result;
    return half{static_cast<uint16_t>(sign | result)};
  }
  // Subnormal half (a multiple of 2^-24) or zero.
  uint32_t exponent = magnitude >> 23;
  if (exponent < 102) // below 2^-25: rounds to zero (2^-25 itself ties to even zero)
    return half{sign};
  uint32_t mantissa = (magnitude & 0x7FFFFFu) | 0x800000u;
  uint32_t shift = 126 - exponent; // 14..24
  uint32_t result = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1u);
  uint32_t halfway = 1u << (shift - 1);
  if (rest > halfway || (rest == halfway && (result & 1u)))
    ++result;
  return half{static_cast<uint16_t>(sign | result)};
}

/// Widens exactly.
TC_HD inline float to_float(bfloat16 value) {
  return detail::float_from_bits(static_cast<uint32_t>(value.bits) << 16);
}

/// Rounds to nearest even like c10::BFloat16; overflow gives infinity, NaN gives 0x7FC0.
TC_HD inline bfloat16 from_float_bf16(float value) {
  uint32_t bits = detail::float_bits(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) // NaN, tested on the bits so -ffast-math keeps it
    return bfloat16{0x7FC0u};
  uint32_t rounding = ((bits >> 16) & 1u) + 0x7FFFu;
  return bfloat16{static_cast<uint16_t>((bits + rounding) >> 16)};
}

// ---- casting ----

/// Converts like PyTorch's `.to(dtype)`: floating -> integer truncates toward zero (and wraps,
/// see detail::float_to_int); -> bool is v != 0 (NaN is true); integer -> narrower integer
/// wraps; half/bfloat16 convert through float, and double -> half/bfloat16 rounds once.
template <typename To, typename From> TC_HD inline To cast(From value) {
  if constexpr (std::is_same<To, From>::value) {
    return value;
  } else if constexpr (is_reduced_float<From>::value) {
    return cast<To>(to_float(value));
  } else if constexpr (std::is_same<To, bool>::value) {
    return value != From(0);
  } else if constexpr (is_reduced_float<To>::value) {
    float narrowed;
    if constexpr (std::is_same<From, float>::value)
      narrowed = value;
    else if constexpr (std::is_same<From, bool>::value)
      narrowed = value ? 1.0f : 0.0f;
    else
      narrowed = detail::float_round_to_odd(static_cast<double>(value));
    if constexpr (std::is_same<To, half>::value)
      return from_float_half(narrowed);
    else
      return from_float_bf16(narrowed);
  } else if constexpr (std::is_integral<To>::value && std::is_floating_point<From>::value) {
    return detail::float_to_int<To>(static_cast<double>(value));
  } else {
    return static_cast<To>(value);
  }
}

// ---- predicates and constants ----

template <typename T> TC_HD inline bool is_nan(T value) {
  if constexpr (std::is_floating_point<T>::value)
    return value != value;
  else if constexpr (is_reduced_float<T>::value)
    return is_nan(to_float(value));
  else
    return false;
}

/// +infinity of a floating compute type.
template <typename T> TC_HD inline T infinity() {
  return static_cast<T>(detail::float_from_bits(0x7F800000u));
}

/// A quiet NaN of a floating compute type.
template <typename T> TC_HD inline T quiet_nan() {
  return static_cast<T>(detail::float_from_bits(0x7FC00000u));
}

// ---- exp, tanh, erf: branch-free float versions on the host ----
//
// Generated elementwise loops call these once per element. For float on the host they are
// branch-free polynomial evaluations (selects instead of branches, no library calls), so that
// the compiler vectorizes the loops around them; double and the device use the C library
// (CUDA's own exp/tanh/erf are already fast). Accuracy for float, measured against the double
// C library over every 61st float in [-100, 100] and the special values (tests/unit/
// kernels_math_test.cpp): exp ≤ 1 ulp, tanh ≤ 1.5 ulp, erf ≤ 3 ulp, and the special values
// (±inf, NaN, overflow to inf, underflow through the subnormals to 0) as the C library gives
// them. PyTorch's own vectorized CPU kernels use approximations of this kind.
namespace detail {

#if !defined(__CUDA_ARCH__)
/// Rounds |x| < 2^22 to the nearest integer (ties to even) without a library call.
inline float round_small(float x) {
  const float magic = 12582912.0f; // 1.5 * 2^23
  return (x + magic) - magic;
}

/// exp(x) for float: Cody–Waite reduction x = n ln2 + r, a degree-6 polynomial for e^r, and
/// 2^n applied as two factors so that results in the subnormal range round like the library's.
inline float exp_f32(float x) {
  const float clamped = !(x >= -104.0f) ? -104.0f : (x > 89.0f ? 89.0f : x);
  const float n = round_small(clamped * 1.44269504088896341f);
  float r = clamped - n * 0.693359375f; // ln2 = 0.693359375 - 2.12194440e-4 (Cody–Waite)
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t k = static_cast<int32_t>(n); // in [-150, 129]
  const int32_t k1 = k / 2;
  const int32_t k2 = k - k1;
  const float s1 = float_from_bits(static_cast<uint32_t>(k1 + 127) << 23);
  const float s2 = float_from_bits(static_cast<uint32_t>(k2 + 127) << 23);
  const float result = p * s1 * s2;
  return x != x ? x : result;
}

/// tanh(x) for float: an odd polynomial near 0, 1 - 2 / (e^{2|x|} + 1) elsewhere.
inline float tanh_f32(float x) {
  const float ax = x < 0.0f ? -x : x;
  const float z = x * x;
  const float small =
      ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z +
        1.33314422036e-1f) * z - 3.33332819422e-1f) * z * x + x;
  const float large = 1.0f - 2.0f / (exp_f32(2.0f * ax) + 1.0f);
  const float signed_large = x < 0.0f ? -large : large;
  return ax < 0.625f ? small : signed_large;
}

/// erf(x) for float: x P(x^2) for |x| ≤ 1, 1 - exp(Q(|x|)) with Q ≈ log erfc on (1, 4],
/// ±1 beyond (erfc(4) is below half an ulp of 1). Coefficients: least-squares fits in double
/// on Chebyshev nodes (relative error of the fits 1.4e-9 and 6e-10).
inline float erf_f32(float x) {
  const float ax = x < 0.0f ? -x : x;
  const float z = x * x;
  float p = 7.8825004659994238e-05f;
  p = p * z - 8.0188590183329100e-04f;
  p = p * z + 5.1893128126865671e-03f;
  p = p * z - 2.6854329538111513e-02f;
  p = p * z + 1.1283597491547423e-01f;
  p = p * z - 3.7612626907889862e-01f;
  p = p * z + 1.1283791658833298e+00f;
  const float small = x * p;
  const float t = (ax > 4.0f ? 4.0f : ax) - 2.5f;
  float q = 1.6140493075232757e-06f;
  q = q * t - 1.3309405970514359e-05f;
  q = q * t + 7.7394473983909899e-05f;
  q = q * t - 4.2014451493826559e-04f;
  q = q * t + 2.1651602513243135e-03f;
  q = q * t - 1.0858517061948042e-02f;
  q = q * t - 9.4389364025061318e-01f;
  q = q * t - 5.3526806810617638e+00f;
  q = q * t - 7.8068152770531665e+00f;
  const float large = ax >= 4.0f ? 1.0f : 1.0f - exp_f32(q);
  const float signed_large = x < 0.0f ? -large : large;
  return ax <= 1.0f ? small : (x != x ? x : signed_large);
}
#endif

} // namespace detail

/// e^x; float on the host through detail::exp_f32.
template <typename T> TC_HD inline T exp(T x) {
#if !defined(__CUDA_ARCH__)
  if constexpr (std::is_same<T, float>::value)
    return detail::exp_f32(x);
  else
#endif
    return std::exp(x);
}

/// tanh(x); float on the host through detail::tanh_f32.
template <typename T> TC_HD inline T tanh(T x) {
#if !defined(__CUDA_ARCH__)
  if constexpr (std::is_same<T, float>::value)
    return detail::tanh_f32(x);
  else
#endif
    return std::tanh(x);
}

/// erf(x); float on the host through detail::erf_f32.
template <typename T> TC_HD inline T erf(T x) {
#if !defined(__CUDA_ARCH__)
  if constexpr (std::is_same<T, float>::value)
    return detail::erf_f32(x);
  else
#endif
    return std::erf(x);
}

// ---- activations (floating T; half/bfloat16 go through compute_type) ----

/// max(x, 0); NaN stays NaN.
template <typename T> TC_HD inline T relu(T x) { return (is_nan(x) || x > T(0)) ? x : T(0); }

template <typename T> TC_HD inline T sigmoid(T x) { return T(1) / (T(1) + tc::exp(-x)); }

template <typename T> TC_HD inline T silu(T x) { return x * sigmoid(x); }

/// gelu(approximate="none"): x/2 * (1 + erf(x / sqrt(2))).
template <typename T> TC_HD inline T gelu_erf(T x) {
  return T(0.5) * x * (T(1) + tc::erf(x * T(0.70710678118654752440)));
}

/// gelu(approximate="tanh"): x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
template <typename T> TC_HD inline T gelu_tanh(T x) {
  const T beta = T(0.79788456080286535588);
  const T kappa = T(0.044715);
  return T(0.5) * x * (T(1) + tc::tanh(beta * (x + kappa * x * x * x)));
}

namespace detail {
/// min(max(x, 0), 6), NaN-propagating like PyTorch's CPU kernels.
template <typename T> TC_HD inline T relu6(T x) {
  if (is_nan(x))
    return x;
  return x < T(0) ? T(0) : (x > T(6) ? T(6) : x);
}
} // namespace detail

/// x * relu6(x + 3) / 6.
template <typename T> TC_HD inline T hardswish(T x) {
  return x * detail::relu6(x + T(3)) / T(6);
}

/// relu6(x + 3) / 6.
template <typename T> TC_HD inline T hardsigmoid(T x) { return detail::relu6(x + T(3)) / T(6); }

template <typename T> TC_HD inline T rsqrt(T x) { return T(1) / std::sqrt(x); }

template <typename T> TC_HD inline T reciprocal(T x) { return T(1) / x; }

// ---- clamping and NaN-propagating extrema ----

/// min(max(x, lo), hi): a NaN operand or bound gives NaN; lo > hi gives hi (like PyTorch).
template <typename T> TC_HD inline T clamp(T x, T lo, T hi) {
  if (is_nan(x))
    return x;
  if (is_nan(lo))
    return lo;
  if (is_nan(hi))
    return hi;
  T low = x < lo ? lo : x;
  return low > hi ? hi : low;
}

/// max(x, lo), NaN-propagating.
template <typename T> TC_HD inline T clamp_min(T x, T lo) {
  if (is_nan(x))
    return x;
  if (is_nan(lo))
    return lo;
  return x < lo ? lo : x;
}

/// min(x, hi), NaN-propagating.
template <typename T> TC_HD inline T clamp_max(T x, T hi) {
  if (is_nan(x))
    return x;
  if (is_nan(hi))
    return hi;
  return x > hi ? hi : x;
}

/// torch.maximum: NaN if either operand is NaN.
template <typename T> TC_HD inline T maximum(T a, T b) {
  if (is_nan(a))
    return a;
  if (is_nan(b))
    return b;
  return a > b ? a : b;
}

/// torch.minimum: NaN if either operand is NaN.
template <typename T> TC_HD inline T minimum(T a, T b) {
  if (is_nan(a))
    return a;
  if (is_nan(b))
    return b;
  return a < b ? a : b;
}

// ---- Python-style division, modulo and power ----

/// floor(a / b). Integers: Python semantics, the minimum divided by -1 wraps, and division by
/// zero gives 0 (PyTorch raises; the caller checks if it must). Floating: PyTorch's
/// div_floor_floating (exact when a is a multiple of b; b == 0 gives a / b).
template <typename T> TC_HD inline T floor_divide(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    if (b == T(0))
      return T(0);
    if constexpr (std::is_signed<T>::value) {
      using Unsigned = typename std::make_unsigned<T>::type;
      if (b == T(-1))
        return static_cast<T>(Unsigned(0) - static_cast<Unsigned>(a));
      T quotient = static_cast<T>(a / b);
      if (a % b != 0 && ((a < 0) != (b < 0)))
        --quotient;
      return quotient;
    } else {
      return static_cast<T>(a / b);
    }
  } else {
    if (b == T(0))
      return a / b;
    T mod = std::fmod(a, b);
    T quotient = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0))))
      quotient -= T(1);
    if (quotient == T(0))
      return std::copysign(T(0), a / b);
    T floored = std::floor(quotient);
    if (quotient - floored > T(0.5))
      floored += T(1);
    return floored;
  }
}

/// Python's a % b: the result takes the sign of b. Integers: b == 0 gives 0 (see
/// floor_divide). Floating: fmod corrected by b, as PyTorch's remainder kernel.
template <typename T> TC_HD inline T py_mod(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    if (b == T(0))
      return T(0);
    if constexpr (std::is_signed<T>::value) {
      if (b == T(-1))
        return T(0);
      T remainder = static_cast<T>(a % b);
      if (remainder != 0 && ((remainder < 0) != (b < 0)))
        remainder = static_cast<T>(remainder + b);
      return remainder;
    } else {
      return static_cast<T>(a % b);
    }
  } else {
    T mod = std::fmod(a, b);
    if (mod != T(0) && ((b < T(0)) != (mod < T(0))))
      mod += b;
    return mod;
  }
}

/// std::pow for floating T. Integers: exact power wrapped to T's width; a negative exponent
/// gives 0 except for bases 1 and -1 (PyTorch's powi).
template <typename T> TC_HD inline T pow_(T base, T exponent) {
  if constexpr (std::is_integral<T>::value) {
    if constexpr (std::is_signed<T>::value) {
      if (exponent < 0) {
        if (base == T(1))
          return T(1);
        if (base == T(-1))
          return (exponent & 1) ? T(-1) : T(1);
        return T(0);
      }
    }
    uint64_t result = 1;
    uint64_t factor = static_cast<uint64_t>(static_cast<int64_t>(base));
    for (uint64_t remaining = static_cast<uint64_t>(exponent); remaining != 0; remaining >>= 1) {
      if (remaining & 1u)
        result *= factor;
      factor *= factor;
    }
    return static_cast<T>(result);
  } else {
    return std::pow(base, exponent);
  }
}

// ---- rounding, sign, tests and bitwise ops (integers pass through where PyTorch keeps them) ----

/// torch.round: to nearest, ties to even; integers unchanged.
template <typename T> TC_HD inline T round_half_even(T x) {
  if constexpr (std::is_integral<T>::value)
    return x;
  else
    return std::nearbyint(x);
}

/// torch.round(x, decimals): PyTorch's kernel, in T (float for f32/f16/bf16).
template <typename T> TC_HD inline T round_decimals(T x, int64_t decimals) {
  bool negative = decimals < 0;
  double power = 1.0; // exact up to 10^22, like PyTorch's std::pow(10, decimals); then inf
  for (int64_t i = 0; i < (negative ? -decimals : decimals) && power <= 1e308; ++i)
    power *= 10.0;
  const T scale = static_cast<T>(power);
  return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
}

/// torch.trunc: toward zero; integers unchanged.
template <typename T> TC_HD inline T trunc_(T x) {
  if constexpr (std::is_integral<T>::value)
    return x;
  else
    return std::trunc(x);
}

/// torch.sign: -1, 0 or 1; bool unchanged; NaN gives 0 like PyTorch's CPU kernel.
/// digamma (psi), Cephes' algorithm as ATen's calc_digamma: the reflection formula below 0,
/// the recurrence up to 10, then the asymptotic series. Poles (0 and the negative integers):
/// -inf/+inf at ±0 as PyTorch gives, NaN at the negative integers.
template <typename T> TC_HD inline T digamma(T x) {
  const T kPsi10 = T(2.25175258906672110764);
  if (x == T(0))
    return std::copysign(infinity<T>(), -x);
  if (x < T(0)) {
    if (x == std::trunc(x))
      return quiet_nan<T>();
    // psi(1 - x) - pi / tan(pi * x), with tan of the fractional part (more accurate).
    const T kPi = T(3.14159265358979323846);
    return digamma(T(1) - x) - kPi / std::tan(kPi * (x - std::trunc(x)));
  }
  T result = T(0);
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  if (x == T(10))
    return result + kPsi10;
  T y = T(0);
  if (x < T(1.0e17)) {
    const T z = T(1) / (x * x);
    const T a[] = {T(8.33333333333333333333E-2), T(-2.10927960927960927961E-2),
                   T(7.57575757575757575758E-3), T(-4.16666666666666666667E-3),
                   T(3.96825396825396825397E-3), T(-8.33333333333333333333E-3),
                   T(8.33333333333333333333E-2)};
    T poly = T(0);
    for (T c : a)
      poly = poly * z + c;
    y = z * poly;
  }
  return result + std::log(x) - T(0.5) / x - y;
}

/// polygamma(1, x), ATen's calc_trigamma: the reflection formula below 1/2, six steps of the
/// recurrence, then the asymptotic series.
template <typename T> TC_HD inline T trigamma(T x) {
  const T kPi = T(3.14159265358979323846);
  T sign = T(1);
  T result = T(0);
  if (x < T(0.5)) {
    sign = T(-1);
    const T s = std::sin(kPi * x);
    result -= (kPi * kPi) / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T ixx = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) +
             ixx * (T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42))))) / x;
  return sign * result;
}

/// Hurwitz zeta(x, q) = sum_{k>=0} (k + q)^-x: Cephes' algorithm (Euler-Maclaurin summation),
/// computed in double whatever T is, as ATen's CPU kernel does.
template <typename T> TC_HD inline T zeta(T xt, T qt) {
  const double x = static_cast<double>(xt), kMachEp = 1.11022302462515654042E-16;
  double q = static_cast<double>(qt);
  const double kA[] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
                       -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,
                       1.1646782814350067249e14, -4.5979787224074726105e15,
                       1.8152105401943546773e17, -7.1661652561756670113e18};
  if (x == 1.0)
    return infinity<T>();
  if (x < 1.0)
    return quiet_nan<T>();
  if (q <= 0.0) {
    if (q == std::floor(q))
      return infinity<T>();
    if (x != std::floor(x))
      return quiet_nan<T>();
  }
  double s = std::pow(q, -x), a = q, b = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1.0;
    b = std::pow(a, -x);
    s += b;
    if (std::fabs(b / s) < kMachEp)
      return static_cast<T>(s);
  }
  const double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  a = 1.0;
  double k = 0.0;
  for (int j = 0; j < 12; ++j) {
    a *= x + k;
    b /= w;
    double t = a * b / kA[j];
    s += t;
    if (std::fabs(t / s) < kMachEp)
      return static_cast<T>(s);
    k += 1.0;
    a *= x + k;
    b /= w;
    k += 1.0;
  }
  return static_cast<T>(s);
}

// ---- special functions (torch.special): Bessel, Airy, error-function inverses, incomplete
// gamma, orthogonal polynomials ----
//
// Each is computed in double whatever the element type and rounded once at the end. The edge
// cases (zeros, infinities, NaN, negative arguments, n < 0) are PyTorch's; the algorithms are
// textbook ones (Abramowitz & Stegun, "A&S", section numbers given at each).
namespace special_detail {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrtPi = 1.77245385090551602730;      // sqrt(pi)
constexpr double kInvSqrtPi = 0.564189583547756286948;  // 1 / sqrt(pi)
constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kInvSqrt2 = 0.707106781186547524401;
constexpr double kEulerGamma = 0.577215664901532860607;
constexpr double kTwoOverPi = 0.636619772367581343076;
constexpr double kEps = 1.0e-17; // series stop once a term is below this fraction of the sum

TC_HD inline double inf() { return infinity<double>(); }
TC_HD inline double nan() { return quiet_nan<double>(); }

/// exp(x * x) with the rounding error of x * x folded in (x * x = hi + lo exactly, exp(hi + lo)
/// = exp(hi) (1 + lo)): full relative precision where exp(x * x) is large.
TC_HD inline double exp_x2(double x) {
  const double hi = x * x, lo = std::fma(x, x, -hi);
  return std::exp(hi) * (1.0 + lo);
}

/// exp(x * x) * erfc(x): the product for x < 26 (erfc is still normal there), beyond it the
/// asymptotic series 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k (A&S 7.1.23), whose
/// smallest term near k = x^2 is far below double precision.
TC_HD inline double erfcx(double x) {
  if (std::isnan(x))
    return x;
  if (x < 26.0)
    return x < -26.7 ? inf() : exp_x2(x) * std::erfc(x);
  if (x > 1.0e8)
    return kInvSqrtPi / x;
  const double v = 0.5 / (x * x);
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 30; ++k) {
    term *= -(2.0 * k - 1.0) * v;
    sum += term;
    if (std::fabs(term) < kEps * sum)
      break;
  }
  return kInvSqrtPi / x * sum;
}

/// log of the standard normal CDF: log1p(-erfc(x/sqrt2)/2) for x > 0, where the rounding of
/// t = x/sqrt2 (t = hi + lo) is corrected to first order, erfc(hi + lo) = erfc(hi) - lo (2/sqrt
/// pi) exp(-hi^2), as erfc's relative condition number 2t^2 would otherwise amplify it; for
/// x <= 0, log(erfcx(t)/2) - x^2/2 with t = -x/sqrt2 (no underflow however negative x is).
TC_HD inline double log_ndtr(double x) {
  if (std::isnan(x))
    return x;
  if (x > 0.0) {
    if (std::isinf(x))
      return -0.0;
    const double kInvSqrt2Low = -4.8336466567264567e-17; // 1/sqrt2 - kInvSqrt2
    const double hi = x * kInvSqrt2, lo = std::fma(x, kInvSqrt2, -hi) + x * kInvSqrt2Low;
    const double tail = std::erfc(hi);
    const double corrected = tail == 0.0 ? 0.0 : tail - lo * 2.0 * kInvSqrtPi * std::exp(-hi * hi);
    return std::log1p(-0.5 * corrected);
  }
  return std::log(0.5 * erfcx(-x * kInvSqrt2)) - 0.5 * x * x;
}

/// The x >= 0 with erfc(x) = q, for 0 < q <= 1: A&S 26.2.23's rational approximation of the
/// normal quantile (error < 4.5e-4) refined by Halley steps on f(x) = erfc(x) - q. The
/// residual is scaled by exp(x^2) (erfcx(x) - q e^{x^2}), so it keeps full precision down to
/// the smallest subnormal q; f''/f' = -2x makes the step x -= u / (1 + x u), u = f / f'.
TC_HD inline double erfc_inverse_tail(double q) {
  const double t = std::sqrt(-2.0 * std::log(0.5 * q));
  double x = (t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                      (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308)))) *
             kInvSqrt2;
  if (x < 0.0)
    x = 0.0;
  const double logq = std::log(q);
  for (int i = 0; i < 4; ++i) {
    const double hi = x * x, lo = std::fma(x, x, -hi);
    const double scaled_q = std::exp((hi + logq) + lo); // q exp(x^2)
    const double u = -0.5 * kSqrtPi * (erfcx(x) - scaled_q);
    x -= u / (1.0 + x * u);
  }
  return x;
}

/// erfinv(y): Halley steps on erf(x) - y from the Maclaurin series' first terms for |y| < 1/2;
/// beyond, the tail inverse of 1 - |y| (exact in double there).
TC_HD inline double erfinv(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0)
    return nan();
  if (y == 1.0 || y == -1.0)
    return std::copysign(inf(), y);
  const double ay = std::fabs(y);
  if (ay >= 0.5)
    return std::copysign(erfc_inverse_tail(1.0 - ay), y);
  if (y == 0.0)
    return y;
  const double y2 = y * y;
  double x = 0.5 * kSqrtPi * y * (1.0 + y2 * (kPi / 12.0 + y2 * (7.0 * kPi * kPi / 480.0)));
  for (int i = 0; i < 3; ++i) {
    const double u = (std::erf(x) - y) * (0.5 * kSqrtPi) * exp_x2(x);
    x -= u / (1.0 + x * u);
  }
  return x;
}

/// The standard normal quantile: sqrt2 erfinv(2p - 1) in the middle (2p - 1 exact for p in
/// [1/4, 3/4]); in the tails -sqrt2 erfcinv(2p) and sqrt2 erfcinv(2(1 - p)), both exact
/// arguments, so a tiny p keeps full relative precision.
TC_HD inline double ndtri(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0)
    return nan();
  if (p == 0.0)
    return -inf();
  if (p == 1.0)
    return inf();
  if (p < 0.25)
    return -kSqrt2 * erfc_inverse_tail(2.0 * p);
  if (p > 0.75)
    return kSqrt2 * erfc_inverse_tail(2.0 * (1.0 - p));
  return kSqrt2 * erfinv(2.0 * p - 1.0);
}

// ---- Bessel functions of the first and second kind, orders 0 and 1 ----

/// J0, J1 (order nu = 0 or 1) and, with `second`, Y0, Y1 of x > 0 by Hankel's asymptotic
/// expansion (A&S 9.2.5-9.2.10), used for x > 20 where its smallest term is below 1e-17.
/// cos/sin(x - (2nu+1)pi/4) are formed from cos x and sin x, with no phase subtraction.
TC_HD inline double bessel_hankel(int nu, bool second, double x) {
  const double mu = 4.0 * nu * nu, eight_x = 8.0 * x;
  double p = 1.0, q = 0.0, term = 1.0, previous = inf();
  for (int k = 1; k < 60; ++k) {
    term *= (mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * eight_x);
    const double magnitude = std::fabs(term);
    if (magnitude > previous || magnitude < 1e-18)
      break;
    previous = magnitude;
    // a_k / x^k adds to P with sign (-1)^(k/2) for even k, to Q with (-1)^((k-1)/2) for odd.
    const double sign = ((k / 2) % 2 == 0) ? 1.0 : -1.0;
    if (k % 2 == 0)
      p += sign * term;
    else
      q += sign * term;
  }
  const double c = std::cos(x), s = std::sin(x);
  // chi = x - pi/4 (nu 0) or x - 3pi/4 (nu 1).
  const double cos_chi = nu == 0 ? (c + s) * kInvSqrt2 : (s - c) * kInvSqrt2;
  const double sin_chi = nu == 0 ? (s - c) * kInvSqrt2 : -(s + c) * kInvSqrt2;
  const double scale = std::sqrt(kTwoOverPi / x);
  return second ? scale * (p * sin_chi + q * cos_chi) : scale * (p * cos_chi - q * sin_chi);
}

/// J0 (nu 0) or J1 (nu 1) of 0 <= x <= 5: the power series (A&S 9.1.10).
TC_HD inline double bessel_j_series(int nu, double x) {
  const double z = -0.25 * x * x;
  double term = nu == 0 ? 1.0 : 0.5 * x, sum = term;
  for (int k = 1; k < 60; ++k) {
    term *= z / (k * double(k + nu));
    sum += term;
    if (std::fabs(term) < kEps * std::fabs(sum))
      break;
  }
  return sum;
}

/// Y0 (nu 0) or Y1 (nu 1) of 0 < x <= 5: A&S 9.1.11/9.1.13 with psi(k+1) = -gamma + H_k.
TC_HD inline double bessel_y_series(int nu, double x) {
  const double z = -0.25 * x * x, log_half_x = std::log(0.5 * x);
  if (nu == 0) {
    // (2/pi)(ln(x/2) + gamma) J0 - (2/pi) sum_{k>=1} H_k z^k / (k!)^2.
    double term = 1.0, harmonic = 0.0, sum = 0.0;
    for (int k = 1; k < 60; ++k) {
      term *= z / (double(k) * k);
      harmonic += 1.0 / k;
      sum += harmonic * term;
      if (std::fabs(term * harmonic) < kEps * std::fabs(sum))
        break;
    }
    return kTwoOverPi * ((log_half_x + kEulerGamma) * bessel_j_series(0, x) - sum);
  }
  // -2/(pi x) + (2/pi) ln(x/2) J1 - (x/(2pi)) sum_{k>=0} (psi(k+1) + psi(k+2)) z^k/(k!(k+1)!).
  double term = 1.0, psi1 = -kEulerGamma, psi2 = 1.0 - kEulerGamma;
  double sum = psi1 + psi2;
  for (int k = 1; k < 60; ++k) {
    term *= z / (double(k) * (k + 1));
    psi1 += 1.0 / k;
    psi2 += 1.0 / (k + 1);
    const double add = (psi1 + psi2) * term;
    sum += add;
    if (std::fabs(add) < kEps * std::fabs(sum))
      break;
  }
  return -kTwoOverPi / x + kTwoOverPi * log_half_x * bessel_j_series(1, x) -
         x / (2.0 * kPi) * sum;
}

/// J0, J1, Y0 or Y1 of 5 < x <= 20: Miller's backward recurrence J_{m-1} = (2m/x) J_m -
/// J_{m+1} from m = N well above x, normalized by J0 + 2 sum J_2k = 1; Y0 and Y1 from the
/// Neumann series Y0 = (2/pi)(ln(x/2) + gamma) J0 - (4/pi) sum (-1)^k J_2k / k and its
/// derivative Y1 = -Y0' (J_2k' = (J_2k-1 - J_2k+1) / 2).
TC_HD inline double bessel_miller(int nu, bool second, double x) {
  constexpr int kMax = 80;
  double j[kMax + 2];
  const int n = 2 * (int(x) / 2) + 56; // even, <= 76 for x <= 20
  j[n + 1] = 0.0;
  j[n] = 1.0e-30;
  for (int m = n; m >= 1; --m) {
    j[m - 1] = (2.0 * m / x) * j[m] - j[m + 1];
    if (std::fabs(j[m - 1]) > 1.0e200)
      for (int i = m - 1; i <= n; ++i)
        j[i] *= 1.0e-200;
  }
  double norm = j[0];
  for (int k = 2; k <= n; k += 2)
    norm += 2.0 * j[k];
  if (!second)
    return j[nu] / norm;
  const double log_term = std::log(0.5 * x) + kEulerGamma;
  double sum = 0.0;
  if (nu == 0) {
    for (int k = 1; 2 * k <= n; ++k)
      sum += (k % 2 == 0 ? 1.0 : -1.0) * j[2 * k] / k;
    return kTwoOverPi * (log_term * j[0] - 2.0 * sum) / norm;
  }
  for (int k = 1; 2 * k < n; ++k)
    sum += (k % 2 == 0 ? 1.0 : -1.0) * (j[2 * k - 1] - j[2 * k + 1]) / k;
  return kTwoOverPi * (-j[0] / x + log_term * j[1] + sum) / norm;
}

TC_HD inline double bessel_j(int nu, double x) {
  if (std::isnan(x) || std::isinf(x))
    return nan();
  const double ax = std::fabs(x);
  const double value = ax <= 5.0 ? bessel_j_series(nu, ax)
                       : ax <= 20.0 ? bessel_miller(nu, false, ax)
                                    : bessel_hankel(nu, false, ax);
  return nu == 1 && x < 0.0 ? -value : value;
}

TC_HD inline double bessel_y(int nu, double x) {
  if (std::isnan(x) || std::isinf(x) || x < 0.0)
    return nan();
  if (x == 0.0)
    return -inf();
  return x <= 5.0 ? bessel_y_series(nu, x)
         : x <= 20.0 ? bessel_miller(nu, true, x)
                     : bessel_hankel(nu, true, x);
}

/// sin(x)/x, with its Taylor series below 1/2.
TC_HD inline double spherical_bessel_j0(double x) {
  if (std::isinf(x))
    return 0.0;
  if (std::fabs(x) < 0.5) {
    const double z = -x * x;
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 10; ++k) {
      term *= z / ((2.0 * k) * (2.0 * k + 1.0));
      sum += term;
    }
    return sum;
  }
  return std::sin(x) / x;
}

// ---- modified Bessel functions ----

/// exp(-|x|) I_nu(|x|), nu = 0 or 1: the power series (A&S 9.6.10, all terms positive) times
/// exp(-|x|) for |x| <= 30; beyond, the asymptotic expansion A&S 9.7.1.
TC_HD inline double bessel_i_scaled(int nu, double ax) {
  if (ax <= 30.0) {
    const double z = 0.25 * ax * ax;
    double term = nu == 0 ? 1.0 : 0.5 * ax, sum = term;
    for (int k = 1; k < 200; ++k) {
      term *= z / (k * double(k + nu));
      sum += term;
      if (term < kEps * sum)
        break;
    }
    return sum * std::exp(-ax);
  }
  const double mu = 4.0 * nu * nu, eight_x = 8.0 * ax;
  double term = 1.0, sum = 1.0, previous = inf();
  for (int k = 1; k < 60; ++k) {
    term *= -(mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * eight_x);
    if (std::fabs(term) > previous || std::fabs(term) < kEps)
      break;
    previous = std::fabs(term);
    sum += term;
  }
  return sum / std::sqrt(2.0 * kPi * ax);
}

/// i0e, i1e: PyTorch gives 0 (signed for i1e) at the infinities.
TC_HD inline double bessel_ie(int nu, double x) {
  if (std::isnan(x))
    return x;
  if (std::isinf(x))
    return nu == 1 && x < 0.0 ? -0.0 : 0.0;
  const double value = bessel_i_scaled(nu, std::fabs(x));
  return nu == 1 && x < 0.0 ? -value : value;
}

/// i0, i1: exp(|x|) times the scaled value, both in double. PyTorch gives NaN at the
/// infinities.
TC_HD inline double bessel_i(int nu, double x) {
  if (std::isnan(x) || std::isinf(x))
    return nan();
  const double ax = std::fabs(x);
  double value;
  if (ax <= 30.0) { // the plain series, no scaling round trip
    const double z = 0.25 * ax * ax;
    double term = nu == 0 ? 1.0 : 0.5 * ax;
    value = term;
    for (int k = 1; k < 200; ++k) {
      term *= z / (k * double(k + nu));
      value += term;
      if (term < kEps * value)
        break;
    }
  } else {
    value = std::exp(ax) * bessel_i_scaled(nu, ax);
  }
  return nu == 1 && x < 0.0 ? -value : value;
}

/// exp(x) K_nu(x) for x > 2 (nu = 0, 1 or 1/3, for Airy): the trapezoid rule with step 0.1
/// on the integral of exp(-x (cosh t - 1)) cosh(nu t) over t >= 0 (A&S 9.6.24; exponentially
/// convergent for this analytic, fast-decaying integrand) up to x = 25, then the asymptotic
/// expansion A&S 9.7.2.
TC_HD inline double bessel_k_scaled_large(double nu, double x) {
  if (x > 25.0) {
    const double mu = 4.0 * nu * nu, eight_x = 8.0 * x;
    double term = 1.0, sum = 1.0, previous = inf();
    for (int k = 1; k < 60; ++k) {
      term *= (mu - (2.0 * k - 1.0) * (2.0 * k - 1.0)) / (k * eight_x);
      if (std::fabs(term) > previous || std::fabs(term) < kEps)
        break;
      previous = std::fabs(term);
      sum += term;
    }
    return sum * std::sqrt(kPi / (2.0 * x));
  }
  const double h = 0.1;
  double sum = 0.5;
  for (int k = 1; k < 400; ++k) {
    const double t = k * h, s = std::sinh(0.5 * t);
    const double f = std::exp(-2.0 * x * s * s) * std::cosh(nu * t); // cosh t - 1 = 2 sinh^2(t/2)
    sum += f;
    if (f < 1e-18 * sum)
      break;
  }
  return h * sum;
}

/// K0 (nu 0) or K1 (nu 1) of 0 < x <= 2: A&S 9.6.11/9.6.13 with psi(k+1) = -gamma + H_k.
TC_HD inline double bessel_k_series(int nu, double x) {
  const double z = 0.25 * x * x, log_half_x = std::log(0.5 * x);
  if (nu == 0) {
    // -(ln(x/2) + gamma) I0 + sum_{k>=1} H_k z^k / (k!)^2.
    double term = 1.0, harmonic = 0.0, sum = 0.0, i0 = 1.0;
    for (int k = 1; k < 60; ++k) {
      term *= z / (double(k) * k);
      harmonic += 1.0 / k;
      sum += harmonic * term;
      i0 += term;
      if (term < kEps * i0)
        break;
    }
    return sum - (log_half_x + kEulerGamma) * i0;
  }
  // 1/x + ln(x/2) I1 - (x/4) sum_{k>=0} (psi(k+1) + psi(k+2)) z^k / (k!(k+1)!).
  double term = 1.0, psi1 = -kEulerGamma, psi2 = 1.0 - kEulerGamma, i1 = 1.0;
  double sum = psi1 + psi2;
  for (int k = 1; k < 60; ++k) {
    term *= z / (double(k) * (k + 1));
    psi1 += 1.0 / k;
    psi2 += 1.0 / (k + 1);
    sum += (psi1 + psi2) * term;
    i1 += term;
    if (term < kEps * i1)
      break;
  }
  return 1.0 / x + log_half_x * (0.5 * x * i1) - 0.25 * x * sum;
}

/// K0/K1 (scaled: exp(x) K): +inf at 0, NaN below, 0 at +inf, like PyTorch.
TC_HD inline double bessel_k(int nu, bool scaled, double x) {
  if (std::isnan(x) || x < 0.0)
    return nan();
  if (x == 0.0)
    return inf();
  if (std::isinf(x))
    return 0.0;
  if (x <= 2.0)
    return bessel_k_series(nu, x) * (scaled ? std::exp(x) : 1.0);
  const double value = bessel_k_scaled_large(double(nu), x);
  return scaled ? value : value * std::exp(-x);
}

/// Airy Ai: the Maclaurin series Ai = c1 f - c2 g (A&S 10.4.2) for -7 <= x <= 2; above,
/// Ai(x) = sqrt(x/3) K_{1/3}(zeta) / pi with zeta = (2/3) x^{3/2} (A&S 10.4.14); below -7, the
/// oscillatory expansion A&S 10.4.60 with u_k = u_{k-1} (6k-5)(6k-3)(6k-1) / ((2k-1) 216 k).
/// PyTorch gives NaN at the infinities and 0 above 103.892.
TC_HD inline double airy_ai(double x) {
  if (std::isnan(x) || std::isinf(x))
    return nan();
  if (x > 103.892)
    return 0.0;
  if (x > 2.0) {
    const double zeta = (2.0 / 3.0) * x * std::sqrt(x);
    return std::sqrt(x / 3.0) / kPi * bessel_k_scaled_large(1.0 / 3.0, zeta) * std::exp(-zeta);
  }
  if (x >= -7.0) {
    const double c1 = 0.355028053887817239260, c2 = 0.258819403792806798405;
    const double x3 = x * x * x;
    double f = 1.0, g = x, fsum = 1.0, gsum = x;
    for (int k = 1; k < 100; ++k) {
      f *= x3 / ((3.0 * k - 1.0) * (3.0 * k));
      g *= x3 / ((3.0 * k) * (3.0 * k + 1.0));
      fsum += f;
      gsum += g;
      if (std::fabs(f) + std::fabs(g) < 1e-18 * (std::fabs(fsum) + std::fabs(gsum)) || x3 == 0.0)
        break;
    }
    return c1 * fsum - c2 * gsum;
  }
  const double z = -x, zeta = (2.0 / 3.0) * z * std::sqrt(z);
  double u = 1.0, even = 1.0, odd = 0.0, power = 1.0, previous = inf();
  for (int k = 1; k < 40; ++k) {
    u *= (6.0 * k - 5.0) * (6.0 * k - 3.0) * (6.0 * k - 1.0) / ((2.0 * k - 1.0) * 216.0 * k);
    power /= zeta;
    const double term = u * power;
    if (term > previous || term < kEps)
      break;
    previous = term;
    const double sign = ((k / 2) % 2 == 0) ? 1.0 : -1.0;
    if (k % 2 == 0)
      even += sign * term;
    else
      odd += sign * term;
  }
  const double c = std::cos(zeta), s = std::sin(zeta);
  // sin(zeta + pi/4) and cos(zeta + pi/4).
  const double sin_phase = (s + c) * kInvSqrt2, cos_phase = (c - s) * kInvSqrt2;
  return kInvSqrtPi / std::sqrt(std::sqrt(z)) * (sin_phase * even - cos_phase * odd);
}

// ---- regularized incomplete gamma functions ----

/// P(a, x) (lower, !upper) or Q(a, x) (upper) for a, x > 0 finite: the series
/// P = x^a e^-x / Gamma(a+1) sum_n x^n / ((a+1)...(a+n)) for x < a + 1, otherwise Lentz's
/// method on the continued fraction of Q (A&S 6.5.29 and 6.5.31); the other one as 1 minus.
TC_HD inline double incomplete_gamma(double a, double x, bool upper) {
  const double log_prefactor = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1.0) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 100000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (term < 1e-17 * sum)
        break;
    }
    const double p = sum * std::exp(log_prefactor);
    return upper ? 1.0 - p : p;
  }
  const double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny)
      d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny)
      c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < 1e-16)
      break;
  }
  const double q = std::exp(log_prefactor) * h;
  return upper ? q : 1.0 - q;
}

/// igamma (P) and igammac (Q) with PyTorch's boundary values (SciPy's): NaN for a < 0 or
/// x < 0; a = 0 is the limit for x > 0 (P = 1) and NaN at x = 0; x = 0 gives P = 0; an
/// infinite a gives P = 0 (NaN if x is infinite too); an infinite x gives P = 1.
TC_HD inline double igamma(double a, double x, bool upper) {
  if (std::isnan(a) || std::isnan(x) || a < 0.0 || x < 0.0)
    return nan();
  double p;
  if (a == 0.0) {
    if (!(x > 0.0))
      return nan();
    p = 1.0;
  } else if (x == 0.0) {
    p = 0.0;
  } else if (std::isinf(a)) {
    if (std::isinf(x))
      return nan();
    p = 0.0;
  } else if (std::isinf(x)) {
    p = 1.0;
  } else {
    return incomplete_gamma(a, x, upper);
  }
  return upper ? 1.0 - p : p;
}

// ---- orthogonal polynomials of degree n (n truncated toward zero, as PyTorch's int64 cast;
// n < 0 and a non-finite n give 0) ----

/// The truncated degree, or -1 for a negative or non-finite n.
TC_HD inline int64_t degree(double n) {
  if (!(std::fabs(n) < 9.2e18))
    return -1;
  return n < 0.0 ? -1 : static_cast<int64_t>(n);
}

/// Chebyshev polynomials T (kind 0), U (1), V (2), W (3) at x: PyTorch's shortcuts at |x| = 1,
/// its trigonometric forms inside (-1, 1) above degree `trig_above`, else the three-term
/// recurrence p_{k+1} = 2x p_k - p_{k-1}.
TC_HD inline double chebyshev(int kind, double x, double n_real, int64_t trig_above) {
  const int64_t n = degree(n_real);
  if (n < 0)
    return 0.0;
  const double odd_sign = n % 2 == 0 ? 1.0 : -1.0, nd = double(n);
  if (std::fabs(x) == 1.0) {
    switch (kind) {
    case 0:
      return x > 0.0 ? 1.0 : odd_sign;
    case 1:
      return x > 0.0 ? nd + 1.0 : odd_sign * (nd + 1.0);
    case 2:
      return x > 0.0 ? 1.0 : odd_sign * (2.0 * nd + 1.0);
    default:
      return x > 0.0 ? 2.0 * nd + 1.0 : odd_sign;
    }
  }
  if (n > trig_above && std::fabs(x) < 1.0) {
    const double theta = std::acos(x);
    switch (kind) {
    case 0:
      return std::cos(nd * theta);
    case 1:
      if (std::sin(theta) != 0.0)
        return std::sin((nd + 1.0) * theta) / std::sin(theta);
      return (nd + 1.0) * std::cos((nd + 1.0) * theta) / x;
    case 2:
      if (std::sin(0.5 * theta) != 1.0)
        return std::cos((nd + 0.5) * theta) / std::cos(0.5 * theta);
      return odd_sign * (2.0 * nd + 1.0);
    default:
      if (std::cos(0.5 * theta) != 1.0)
        return std::sin((nd + 0.5) * theta) / std::sin(0.5 * theta);
      return x > 0.0 ? 2.0 * nd + 1.0 : odd_sign;
    }
  }
  if (n == 0)
    return 1.0;
  double p = 1.0;
  double q = kind == 0 ? x : kind == 1 ? 2.0 * x : kind == 2 ? 2.0 * x - 1.0 : 2.0 * x + 1.0;
  for (int64_t k = 2; k <= n && !std::isnan(q); ++k) {
    const double r = 2.0 * x * q - p;
    p = q;
    q = r;
  }
  return q;
}

/// Physicists' (physicists) or probabilists' Hermite polynomials: H_{k+1} = 2x H_k - 2k H_{k-1},
/// He_{k+1} = x He_k - k He_{k-1}; NaN above degree `limit` (PyTorch: 128 for float, 512 for
/// double).
TC_HD inline double hermite(bool physicists, double x, double n_real, int64_t limit) {
  const int64_t n = degree(n_real);
  if (n < 0)
    return 0.0;
  if (n == 0)
    return 1.0;
  const double scale = physicists ? 2.0 : 1.0;
  if (n == 1)
    return scale * x;
  if (n > limit)
    return nan();
  double p = 1.0, q = scale * x;
  for (int64_t k = 1; k < n; ++k) {
    const double r = scale * (x * q - double(k) * p);
    p = q;
    q = r;
  }
  return q;
}

/// Laguerre L_n: (k+1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; 1 at x = 0.
TC_HD inline double laguerre(double x, double n_real) {
  const int64_t n = degree(n_real);
  if (n < 0)
    return 0.0;
  if (x == 0.0 || n == 0)
    return 1.0;
  double p = 1.0, q = 1.0 - x;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    const double r = ((2.0 * k + 1.0 - x) * q - double(k) * p) / double(k + 1);
    p = q;
    q = r;
  }
  return q;
}

/// Legendre P_n: (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}; PyTorch's values at |x| = 1.
TC_HD inline double legendre(double x, double n_real) {
  const int64_t n = degree(n_real);
  if (n < 0)
    return 0.0;
  if (std::fabs(x) == 1.0)
    return x > 0.0 || n % 2 == 0 ? 1.0 : -1.0;
  if (n == 0)
    return 1.0;
  double p = 1.0, q = x;
  for (int64_t k = 1; k < n && !std::isnan(q); ++k) {
    const double r = ((2.0 * k + 1.0) * x * q - double(k) * p) / double(k + 1);
    p = q;
    q = r;
  }
  return q;
}

} // namespace special_detail

#define TC_SPECIAL_UNARY(name, expression)                                                     \
  template <typename T> TC_HD inline T name(T xt) {                                            \
    const double x = static_cast<double>(xt);                                                  \
    return static_cast<T>(expression);                                                         \
  }
TC_SPECIAL_UNARY(erfinv, special_detail::erfinv(x))
TC_SPECIAL_UNARY(ndtri, special_detail::ndtri(x))
TC_SPECIAL_UNARY(erfcx, special_detail::erfcx(x))
TC_SPECIAL_UNARY(log_ndtr, special_detail::log_ndtr(x))
TC_SPECIAL_UNARY(bessel_j0, special_detail::bessel_j(0, x))
TC_SPECIAL_UNARY(bessel_j1, special_detail::bessel_j(1, x))
TC_SPECIAL_UNARY(bessel_y0, special_detail::bessel_y(0, x))
TC_SPECIAL_UNARY(bessel_y1, special_detail::bessel_y(1, x))
TC_SPECIAL_UNARY(bessel_i0, special_detail::bessel_i(0, x))
TC_SPECIAL_UNARY(bessel_i1, special_detail::bessel_i(1, x))
TC_SPECIAL_UNARY(bessel_i0e, special_detail::bessel_ie(0, x))
TC_SPECIAL_UNARY(bessel_i1e, special_detail::bessel_ie(1, x))
TC_SPECIAL_UNARY(bessel_k0, special_detail::bessel_k(0, false, x))
TC_SPECIAL_UNARY(bessel_k1, special_detail::bessel_k(1, false, x))
TC_SPECIAL_UNARY(bessel_k0e, special_detail::bessel_k(0, true, x))
TC_SPECIAL_UNARY(bessel_k1e, special_detail::bessel_k(1, true, x))
TC_SPECIAL_UNARY(spherical_bessel_j0, special_detail::spherical_bessel_j0(x))
TC_SPECIAL_UNARY(airy_ai, special_detail::airy_ai(x))
#undef TC_SPECIAL_UNARY

#define TC_SPECIAL_BINARY(name, expression)                                                    \
  template <typename T> TC_HD inline T name(T at, T bt) {                                      \
    const double a = static_cast<double>(at), b = static_cast<double>(bt);                     \
    return static_cast<T>(expression);                                                         \
  }
TC_SPECIAL_BINARY(igamma, special_detail::igamma(a, b, false))
TC_SPECIAL_BINARY(igammac, special_detail::igamma(a, b, true))
// PyTorch's degree thresholds for the trigonometric forms (shifted: of y = 2x - 1).
TC_SPECIAL_BINARY(chebyshev_t, special_detail::chebyshev(0, a, b, 6))
TC_SPECIAL_BINARY(chebyshev_u, special_detail::chebyshev(1, a, b, 8))
TC_SPECIAL_BINARY(chebyshev_v, special_detail::chebyshev(2, a, b, 8))
TC_SPECIAL_BINARY(chebyshev_w, special_detail::chebyshev(3, a, b, 8))
TC_SPECIAL_BINARY(shifted_chebyshev_t, special_detail::chebyshev(0, 2.0 * a - 1.0, b, 6))
TC_SPECIAL_BINARY(shifted_chebyshev_u, special_detail::chebyshev(1, 2.0 * a - 1.0, b, 6))
TC_SPECIAL_BINARY(shifted_chebyshev_v, special_detail::chebyshev(2, 2.0 * a - 1.0, b, 6))
TC_SPECIAL_BINARY(shifted_chebyshev_w, special_detail::chebyshev(3, 2.0 * a - 1.0, b, 4))
TC_SPECIAL_BINARY(hermite_h, special_detail::hermite(true, a, b, sizeof(T) >= 8 ? 512 : 128))
TC_SPECIAL_BINARY(hermite_he, special_detail::hermite(false, a, b, sizeof(T) >= 8 ? 512 : 128))
TC_SPECIAL_BINARY(laguerre_l, special_detail::laguerre(a, b))
TC_SPECIAL_BINARY(legendre_p, special_detail::legendre(a, b))
#undef TC_SPECIAL_BINARY

template <typename T> TC_HD inline T sign(T x) {
  if constexpr (std::is_same<T, bool>::value)
    return x;
  else if constexpr (std::is_integral<T>::value && !std::is_signed<T>::value)
    return static_cast<T>(x != T(0) ? 1 : 0);
  else
    return static_cast<T>(static_cast<int>(T(0) < x) - static_cast<int>(x < T(0)));
}

/// True for +-infinity of a floating T; false for integers.
template <typename T> TC_HD inline bool is_inf(T value) {
  if constexpr (std::is_floating_point<T>::value)
    return value == infinity<T>() || value == -infinity<T>();
  else if constexpr (is_reduced_float<T>::value)
    return is_inf(to_float(value));
  else
    return false;
}

/// elu: x * scale for x > 0, else alpha * scale * (exp(x * input_scale) - 1).
template <typename T> TC_HD inline T elu(T x, T alpha, T scale, T input_scale) {
  return x <= T(0) ? std::expm1(x * input_scale) * (alpha * scale) : x * scale;
}

/// C's fmod: the sign of the dividend. Integers: b == 0 gives 0 (PyTorch raises; see
/// floor_divide), the minimum divided by -1 gives 0 instead of trapping.
template <typename T> TC_HD inline T fmod_(T a, T b) {
  if constexpr (std::is_integral<T>::value) {
    if (b == T(0))
      return T(0);
    if constexpr (std::is_signed<T>::value)
      if (b == T(-1))
        return T(0);
    return static_cast<T>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

/// ~x for integers, !x for bool (where ~ would promote to int and always be nonzero).
template <typename T> TC_HD inline T bitwise_not(T x) {
  if constexpr (std::is_same<T, bool>::value)
    return !x;
  else
    return static_cast<T>(~x);
}

template <typename T> TC_HD inline T bitwise_and(T a, T b) { return static_cast<T>(a & b); }
template <typename T> TC_HD inline T bitwise_or(T a, T b) { return static_cast<T>(a | b); }
template <typename T> TC_HD inline T bitwise_xor(T a, T b) { return static_cast<T>(a ^ b); }

/// Whether a shift count of T (not bool) is outside [0, bits), where PyTorch's shifts stop
/// shifting (0 left, the sign fill right).
template <typename T> TC_HD inline bool shift_count_out_of_range(T b) {
  using U = typename std::make_unsigned<T>::type;
  constexpr int kBits = static_cast<int>(sizeof(T) * 8);
  if constexpr (std::is_signed<T>::value) {
    if (b < T(0))
      return true;
  }
  return static_cast<U>(b) >= static_cast<U>(kBits);
}

/// a << b as PyTorch computes it: a count outside [0, bits) gives 0; shifted unsigned (wraps).
template <typename T> TC_HD inline T shift_left(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    return a && !b;
  } else {
    using U = typename std::make_unsigned<T>::type;
    if (shift_count_out_of_range(b))
      return T(0);
    return static_cast<T>(static_cast<U>(static_cast<U>(a) << static_cast<int>(b)));
  }
}

/// a >> b as PyTorch computes it: a count outside [0, bits) gives the sign fill (0 unsigned).
template <typename T> TC_HD inline T shift_right(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    return a && !b;
  } else {
    if (shift_count_out_of_range(b)) {
      if constexpr (std::is_signed<T>::value)
        return static_cast<T>(a < 0 ? -1 : 0);
      else
        return T(0);
    }
    return static_cast<T>(a >> static_cast<int>(b));
  }
}

/// gcd(|a|, |b|) by Euclid's algorithm, as ATen's calc_gcd (gcd(0, 0) = 0).
template <typename T> TC_HD inline T gcd(T a, T b) {
  if constexpr (std::is_same<T, bool>::value) {
    return a || b;
  } else {
    if constexpr (std::is_signed<T>::value) {
      a = static_cast<T>(a < 0 ? -a : a);
      b = static_cast<T>(b < 0 ? -b : b);
    }
    while (a != 0) {
      const T c = a;
      a = static_cast<T>(b % a);
      b = c;
    }
    return b;
  }
}

/// Python floor division for symbolic shape arithmetic; b == 0 gives 0.
TC_HD inline int64_t floordiv_i64(int64_t a, int64_t b) { return floor_divide<int64_t>(a, b); }

/// Python modulo (sign of b) for symbolic shape arithmetic; b == 0 gives 0.
TC_HD inline int64_t mod_i64(int64_t a, int64_t b) { return py_mod<int64_t>(a, b); }


// ---- index arithmetic of pad and upsample, shared by tc:: and tcg:: ----

/// pad's modes (ir/ops.def).
enum class pad_mode : int { constant = 0, reflect = 1, replicate = 2, circular = 3 };

/// The index along a dim of `size` elements that result index `out` of pad reads (`before`
/// and `after` elements are added at the ends; negative crops), or -1 where the result is
/// pad's constant: outside the input in constant mode, and anywhere in an empty dim. reflect
/// mirrors around the edge elements (period 2 * (size - 1)), replicate repeats them, circular
/// wraps around within the input left after cropping (as PyTorch's _pad_circular); all three
/// stay inside [0, size) for any pad, so a symbolic size that breaks PyTorch's bounds
/// (pad < size, pad <= size) still reads only the input.
TC_HD inline int64_t pad_source_index(int64_t out, int64_t before, int64_t after, int64_t size,
                                      pad_mode mode) {
  const int64_t at = out - before;
  if (at >= 0 && at < size)
    return at;
  if (mode == pad_mode::constant || size <= 0)
    return -1;
  if (mode == pad_mode::replicate)
    return at < 0 ? 0 : size - 1;
  if (mode == pad_mode::circular) {
    const int64_t low = before < 0 ? -before : 0;
    const int64_t kept = size - low - (after < 0 ? -after : 0);
    return kept <= 0 ? -1 : low + py_mod<int64_t>(at - low, kept);
  }
  if (size == 1)
    return 0;
  const int64_t period = 2 * (size - 1);
  const int64_t folded = py_mod<int64_t>(at, period);
  return folded < size ? folded : period - folded;
}

/// upsample's modes (ir/ops.def).
enum class upsample_mode : int { nearest = 0, nearest_exact = 1, linear = 2 };

/// PyTorch's compute_scales_value (ATen/native/UpSample.h): 1 / scale for a positive user
/// scale factor, else in / out, in the arithmetic type A.
template <typename A>
TC_HD inline A upsample_scale_value(double scale, int64_t in, int64_t out) {
  return scale > 0.0 ? static_cast<A>(1.0 / scale) : static_cast<A>(in) / static_cast<A>(out);
}

/// The input index nearest / nearest-exact upsampling reads for output index `out_index`:
/// PyTorch's nearest_idx (which keeps its CPU kernel's shortcuts for out == in and
/// out == 2 * in) and nearest_exact_idx, in float arithmetic as there.
TC_HD inline int64_t upsample_nearest_index(int64_t out_index, int64_t in, int64_t out,
                                            double scale, bool exact) {
  const float ratio = upsample_scale_value<float>(scale, in, out);
  int64_t source = 0;
  if (exact) {
    const double center = (static_cast<double>(out_index) + 0.5) * static_cast<double>(ratio);
    source = static_cast<int64_t>(std::floor(static_cast<float>(center)));
  } else if (out == in) {
    return out_index;
  } else if (out == 2 * in) {
    return out_index >> 1;
  } else {
    source = static_cast<int64_t>(std::floor(static_cast<float>(out_index) * ratio));
  }
  return source < in - 1 ? source : in - 1;
}

/// One output index of linear upsampling along a dim: it blends input[index0] * weight0 +
/// input[index1] * weight1.
template <typename A> struct linear_tap {
  int64_t index0, index1;
  A weight0, weight1;
};

/// PyTorch's area_pixel_compute_scale + compute_source_index_and_lambda in the arithmetic
/// type A (float for float, half and bfloat16; double for double): the source coordinate
/// is ratio * i with align_corners, else max(ratio * (i + 0.5) - 0.5, 0); out == in copies.
template <typename A>
TC_HD inline linear_tap<A> upsample_linear_tap(int64_t out_index, int64_t in, int64_t out,
                                               double scale, bool align_corners) {
  if (out == in)
    return {out_index, out_index, A(1), A(0)};
  A ratio = A(0);
  if (!align_corners)
    ratio = upsample_scale_value<A>(scale, in, out);
  else if (out > 1)
    ratio = static_cast<A>(in - 1) / static_cast<A>(out - 1);
  A real = align_corners ? ratio * static_cast<A>(out_index)
                         : ratio * (static_cast<A>(out_index) + A(0.5)) - A(0.5);
  if (!align_corners && real < A(0))
    real = A(0);
  int64_t index0 = static_cast<int64_t>(std::floor(static_cast<float>(real)));
  index0 = index0 < in - 1 ? index0 : in - 1;
  A lambda = real - static_cast<A>(index0);
  lambda = lambda < A(0) ? A(0) : (lambda > A(1) ? A(1) : lambda);
  return {index0, index0 < in - 1 ? index0 + 1 : index0, A(1) - lambda, lambda};
}

// ---- scatter reductions (tc::scatter, tcg::scatter) ----

/// How scatter combines a scattered value with its target: none replaces it.
enum class scatter_reduce { none, sum, prod, amax, amin };

/// `current` combined with `value` under `reduce` in T's compute type, rounded once to T (as
/// PyTorch's scatter kernels do per element); amax and amin take a NaN `value` and keep a NaN
/// `current`, like PyTorch's scatter_reduce.
template <typename T> TC_HD inline T scatter_combine(scatter_reduce reduce, T current, T value) {
  using C = compute_t<T>;
  const C a = cast<C>(current);
  const C b = cast<C>(value);
  switch (reduce) {
  case scatter_reduce::sum: return cast<T>(a + b);
  case scatter_reduce::prod: return cast<T>(a * b);
  case scatter_reduce::amax: return is_nan(b) || a < b ? value : current;
  case scatter_reduce::amin: return is_nan(b) || b < a ? value : current;
  default: return value;
  }
}

/// The value `reduce` starts from when scatter leaves the target's own value out
/// (include_self false): 0, 1, the lowest and the highest value of T.
template <typename T> TC_HD inline T scatter_identity(scatter_reduce reduce) {
  using C = compute_t<T>;
  const bool highest = reduce == scatter_reduce::amin;
  if (reduce == scatter_reduce::amax || highest) {
    if constexpr (std::is_floating_point<C>::value) {
      return cast<T>(highest ? infinity<C>() : -infinity<C>());
    } else if constexpr (std::is_same<T, bool>::value) {
      return highest;
    } else if constexpr (std::is_signed<T>::value) {
      const T lowest = static_cast<T>(static_cast<T>(1) << (sizeof(T) * 8 - 1));
      return highest ? static_cast<T>(~lowest) : lowest;
    } else {
      return highest ? static_cast<T>(~T(0)) : T(0);
    }
  }
  return cast<T>(reduce == scatter_reduce::prod ? 1.0f : 0.0f);
}

// ---- pooling windows and grid sampling (tc::*pool3d, tc::grid_sample and their tcg twins) ----

/// The geometry of a pool over [D, H, W] planes: sizes in depth, height, width order (a 2-d
/// pool has D = OD = KD = 1); adaptive pools read only `in` and `out`.
struct pool_geometry {
  int64_t in[3];
  int64_t out[3];
  int64_t kernel[3];
  int64_t stride[3];
  int64_t pad[3];
  int64_t dil[3];
};

/// Output position `o` (flattened [OD, OH, OW]) of a pool as its three indices.
TC_HD inline void pool_position(const pool_geometry &g, int64_t o, int64_t *position) {
  position[2] = o % g.out[2];
  position[1] = (o / g.out[2]) % g.out[1];
  position[0] = o / (g.out[2] * g.out[1]);
}

/// The max over one window of `plane` [D, H, W] in T's compute type, padding acting as the
/// lowest value, and in `*where` its offset within the plane as PyTorch's CPU kernel finds
/// it: starting at the first in-bounds tap, moving on a larger value or any NaN.
template <typename T>
TC_HD inline compute_t<T> max_pool_window(const T *plane, const pool_geometry &g,
                                          const int64_t *o, int64_t *where) {
  using C = compute_t<T>;
  int64_t first[3];
  for (int d = 0; d < 3; ++d) {
    first[d] = o[d] * g.stride[d] - g.pad[d];
    while (first[d] < 0)
      first[d] += g.dil[d];
  }
  C best = cast<C>(scatter_identity<T>(scatter_reduce::amax));
  int64_t best_at = (first[0] * g.in[1] + first[1]) * g.in[2] + first[2];
  for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
    const int64_t id = o[0] * g.stride[0] - g.pad[0] + kd * g.dil[0];
    if (id < 0 || id >= g.in[0])
      continue;
    for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
      const int64_t ih = o[1] * g.stride[1] - g.pad[1] + kh * g.dil[1];
      if (ih < 0 || ih >= g.in[1])
        continue;
      for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
        const int64_t iw = o[2] * g.stride[2] - g.pad[2] + kw * g.dil[2];
        if (iw < 0 || iw >= g.in[2])
          continue;
        const int64_t at = (id * g.in[1] + ih) * g.in[2] + iw;
        const C value = cast<C>(plane[at]);
        if (value > best || is_nan(value)) {
          best = value;
          best_at = at;
        }
      }
    }
  }
  *where = best_at;
  return best;
}

/// The mean over one window of `plane`, summed in double: the divisor is divisor_override if
/// non-zero; else the window clipped to the padded input (count_include_pad) or to the input.
/// A window entirely outside the input gives 0 (PyTorch's CPU kernel).
template <typename T>
TC_HD inline double avg_pool_window(const T *plane, const pool_geometry &g, const int64_t *o,
                                    bool count_include_pad, int64_t divisor_override) {
  int64_t lo[3], hi[3];
  int64_t padded_count = 1, count = 1;
  for (int d = 0; d < 3; ++d) {
    lo[d] = o[d] * g.stride[d] - g.pad[d];
    hi[d] = lo[d] + g.kernel[d] < g.in[d] + g.pad[d] ? lo[d] + g.kernel[d] : g.in[d] + g.pad[d];
    padded_count *= hi[d] - lo[d];
    lo[d] = lo[d] < 0 ? 0 : lo[d];
    hi[d] = hi[d] < g.in[d] ? hi[d] : g.in[d];
    count *= hi[d] > lo[d] ? hi[d] - lo[d] : 0;
  }
  if (count == 0)
    return 0.0;
  double sum = 0.0;
  for (int64_t id = lo[0]; id < hi[0]; ++id)
    for (int64_t ih = lo[1]; ih < hi[1]; ++ih)
      for (int64_t iw = lo[2]; iw < hi[2]; ++iw)
        sum += cast<double>(plane[(id * g.in[1] + ih) * g.in[2] + iw]);
  const int64_t divisor = divisor_override != 0 ? divisor_override
                          : count_include_pad   ? padded_count
                                                : count;
  return sum / static_cast<double>(divisor);
}

/// The mean of adaptive pooling's cell `o`: along each dim, input indices
/// floor(o * in / out) .. ceil((o + 1) * in / out) - 1 (PyTorch's start_index / end_index).
template <typename T>
TC_HD inline double adaptive_avg_pool_window(const T *plane, const pool_geometry &g,
                                             const int64_t *o) {
  int64_t lo[3], hi[3];
  for (int d = 0; d < 3; ++d) {
    lo[d] = o[d] * g.in[d] / g.out[d];
    hi[d] = ((o[d] + 1) * g.in[d] + g.out[d] - 1) / g.out[d];
  }
  double sum = 0.0;
  for (int64_t id = lo[0]; id < hi[0]; ++id)
    for (int64_t ih = lo[1]; ih < hi[1]; ++ih)
      for (int64_t iw = lo[2]; iw < hi[2]; ++iw)
        sum += cast<double>(plane[(id * g.in[1] + ih) * g.in[2] + iw]);
  return sum / static_cast<double>((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
}

/// grid_sample's interpolation and padding modes (torch's GridSamplerInterpolation and
/// GridSamplerPadding numbering).
enum class grid_mode { bilinear = 0, nearest = 1, bicubic = 2 };
enum class grid_padding { zeros = 0, border = 1, reflection = 2 };

/// A grid coordinate in [-1, 1] as a pixel coordinate along a dim of `size` (PyTorch's
/// grid_sampler_unnormalize), in the arithmetic type A.
template <typename A> TC_HD inline A grid_unnormalize(A coord, int64_t size, bool align_corners) {
  return align_corners ? (coord + A(1)) / A(2) * static_cast<A>(size - 1)
                       : ((coord + A(1)) * static_cast<A>(size) - A(1)) / A(2);
}

/// PyTorch's reflect_coordinates: `coord` folded into [twice_low / 2, twice_high / 2].
template <typename A>
TC_HD inline A grid_reflect(A coord, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high)
    return A(0);
  const A low = static_cast<A>(twice_low) / A(2);
  const A span = static_cast<A>(twice_high - twice_low) / A(2);
  coord = std::fabs(coord - low);
  const A extra = std::fmod(coord, span);
  const int64_t flips = static_cast<int64_t>(std::floor(coord / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

/// PyTorch's compute_coordinates: border clamps into [0, size - 1]; reflection mirrors at
/// the corner pixels' centers (align_corners) or their outer edges, then clamps.
template <typename A>
TC_HD inline A grid_pad_coordinate(A coord, int64_t size, grid_padding padding,
                                   bool align_corners) {
  if (padding == grid_padding::zeros)
    return coord;
  if (padding == grid_padding::reflection)
    coord = align_corners ? grid_reflect(coord, 0, 2 * (size - 1))
                          : grid_reflect(coord, -1, 2 * size - 1);
  const A high = static_cast<A>(size - 1);
  return coord < A(0) ? A(0) : (coord > high ? high : coord);
}

/// Keys' cubic convolution weights (A = -0.75, PyTorch's get_cubic_upsample_coefficients)
/// of the 4 taps around fraction t.
template <typename A> TC_HD inline void grid_cubic_weights(A t, A *w) {
  const A a = A(-0.75);
  const A x0 = t + A(1), x1 = t, x2 = A(1) - t, x3 = A(2) - t;
  w[0] = ((a * x0 - A(5) * a) * x0 + A(8) * a) * x0 - A(4) * a;
  w[1] = ((a + A(2)) * x1 - (a + A(3))) * x1 * x1 + A(1);
  w[2] = ((a + A(2)) * x2 - (a + A(3))) * x2 * x2 + A(1);
  w[3] = ((a * x3 - A(5) * a) * x3 + A(8) * a) * x3 - A(4) * a;
}

/// One output of grid_sample for the plane [H, W] at grid point (gx, gy), in A (float for
/// float, half and bfloat16; double for double): bilinear blends the 4 neighbours, nearest
/// reads the pixel at the coordinate rounded half to even, bicubic blends 4x4 taps (rows
/// first) whose indices each pass through the padding mode; taps outside the plane read 0.
template <typename T, typename A>
TC_HD inline A grid_sample_point(const T *plane, int64_t H, int64_t W, A gx, A gy,
                                 grid_mode mode, grid_padding padding, bool align_corners) {
  auto at = [&](int64_t y, int64_t x) -> A {
    return y >= 0 && y < H && x >= 0 && x < W ? cast<A>(plane[y * W + x]) : A(0);
  };
  A x = grid_unnormalize(gx, W, align_corners);
  A y = grid_unnormalize(gy, H, align_corners);
  if (mode == grid_mode::bicubic) {
    const A x0 = std::floor(x), y0 = std::floor(y);
    A wx[4], wy[4];
    grid_cubic_weights(x - x0, wx);
    grid_cubic_weights(y - y0, wy);
    A total = A(0);
    for (int j = 0; j < 4; ++j) {
      const A ty = grid_pad_coordinate(y0 - A(1) + static_cast<A>(j), H, padding, align_corners);
      A row = A(0);
      for (int i = 0; i < 4; ++i) {
        const A tx =
            grid_pad_coordinate(x0 - A(1) + static_cast<A>(i), W, padding, align_corners);
        row += wx[i] * at(static_cast<int64_t>(ty), static_cast<int64_t>(tx));
      }
      total += wy[j] * row;
    }
    return total;
  }
  x = grid_pad_coordinate(x, W, padding, align_corners);
  y = grid_pad_coordinate(y, H, padding, align_corners);
  if (mode == grid_mode::nearest)
    return at(static_cast<int64_t>(std::nearbyint(y)), static_cast<int64_t>(std::nearbyint(x)));
  const A x0 = std::floor(x), y0 = std::floor(y);
  const A fx = x - x0, fy = y - y0;
  const int64_t ix = static_cast<int64_t>(x0), iy = static_cast<int64_t>(y0);
  return at(iy, ix) * (A(1) - fx) * (A(1) - fy) + at(iy, ix + 1) * fx * (A(1) - fy) +
         at(iy + 1, ix) * (A(1) - fx) * fy + at(iy + 1, ix + 1) * fx * fy;
}

// ---- random numbers (tc_random.h) ----

/// Element `index` of a random op of element type T: f64 draws in double; f32, f16 and bf16
/// in float (uniform with as many bits as T's significand, so the conversion is exact);
/// integer draws converted like cast<T>. The reference interpreter makes the same choices
/// (ir/interpreter_random.cpp).
template <typename T>
TC_HD inline T random_element(random_distribution distribution, random_key key, int64_t index,
                              int64_t low, int64_t high) {
  if (distribution == random_distribution::integer)
    return cast<T>(random_integer(key, index, low, high));
  if constexpr (std::is_same<T, double>::value) {
    return distribution == random_distribution::normal ? random_normal_f64(key, index)
                                                       : random_uniform_f64(key, index);
  } else {
    const int digits = std::is_same<T, half>::value       ? 11
                       : std::is_same<T, bfloat16>::value ? 8
                                                          : 24;
    return cast<T>(distribution == random_distribution::normal
                       ? random_normal_f32(key, index)
                       : random_uniform_f32(key, index, digits));
  }
}

} // namespace tc
