// The few standard-library names the device headers (tc_math.h, tc_cuda.h) use, for NVRTC,
// which compiles without any host header (no <cmath>, <cstdint>, <type_traits>, <limits>).
// Included only under __CUDACC_RTC__; nvcc and host compilers use the real headers. The math
// functions forward to CUDA's global device overloads (::exp(float), ::exp(double), ...).
#pragma once

#if defined(__CUDACC_RTC__)

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

namespace std {

// ---- <cstdint> ----
using ::int16_t;
using ::int32_t;
using ::int64_t;
using ::int8_t;
using ::uint16_t;
using ::uint32_t;
using ::uint64_t;
using ::uint8_t;

// ---- <type_traits> ----
template <typename T, T v> struct integral_constant {
  static constexpr T value = v;
  using value_type = T;
  using type = integral_constant;
  __device__ constexpr operator T() const { return v; }
};
using true_type = integral_constant<bool, true>;
using false_type = integral_constant<bool, false>;

template <typename A, typename B> struct is_same : false_type {};
template <typename A> struct is_same<A, A> : true_type {};

template <bool B, typename T, typename F> struct conditional {
  using type = T;
};
template <typename T, typename F> struct conditional<false, T, F> {
  using type = F;
};

template <bool B, typename T = void> struct enable_if {};
template <typename T> struct enable_if<true, T> {
  using type = T;
};

template <typename T> struct remove_cv {
  using type = T;
};
template <typename T> struct remove_cv<const T> {
  using type = T;
};
template <typename T> struct remove_cv<volatile T> {
  using type = T;
};
template <typename T> struct remove_cv<const volatile T> {
  using type = T;
};

namespace rtc_detail {
template <typename T> struct is_integral : false_type {};
template <> struct is_integral<bool> : true_type {};
template <> struct is_integral<char> : true_type {};
template <> struct is_integral<signed char> : true_type {};
template <> struct is_integral<unsigned char> : true_type {};
template <> struct is_integral<short> : true_type {};
template <> struct is_integral<unsigned short> : true_type {};
template <> struct is_integral<int> : true_type {};
template <> struct is_integral<unsigned int> : true_type {};
template <> struct is_integral<long> : true_type {};
template <> struct is_integral<unsigned long> : true_type {};
template <> struct is_integral<long long> : true_type {};
template <> struct is_integral<unsigned long long> : true_type {};
template <typename T> struct is_floating_point : false_type {};
template <> struct is_floating_point<float> : true_type {};
template <> struct is_floating_point<double> : true_type {};
template <> struct is_floating_point<long double> : true_type {};
template <typename T> struct make_unsigned {
  using type = T;
};
template <> struct make_unsigned<char> {
  using type = unsigned char;
};
template <> struct make_unsigned<signed char> {
  using type = unsigned char;
};
template <> struct make_unsigned<short> {
  using type = unsigned short;
};
template <> struct make_unsigned<int> {
  using type = unsigned int;
};
template <> struct make_unsigned<long> {
  using type = unsigned long;
};
template <> struct make_unsigned<long long> {
  using type = unsigned long long;
};
} // namespace rtc_detail

template <typename T>
struct is_integral : rtc_detail::is_integral<typename remove_cv<T>::type> {};
template <typename T>
struct is_floating_point : rtc_detail::is_floating_point<typename remove_cv<T>::type> {};
template <typename T>
struct is_arithmetic
    : integral_constant<bool, is_integral<T>::value || is_floating_point<T>::value> {};
template <typename T>
struct is_signed : integral_constant<bool, is_arithmetic<T>::value && T(-1) < T(0)> {};
template <typename T> struct make_unsigned {
  using type = typename rtc_detail::make_unsigned<typename remove_cv<T>::type>::type;
};

// ---- <limits> (the members generated code and tc_cuda.h use) ----
template <typename T> struct numeric_limits;
template <> struct numeric_limits<bool> {
  __device__ static constexpr bool lowest() { return false; }
  __device__ static constexpr bool max() { return true; }
};
#define TC_RTC_INTEGER_LIMITS(T, LOW, HIGH)                                                       \
  template <> struct numeric_limits<T> {                                                         \
    __device__ static constexpr T lowest() { return LOW; }                                       \
    __device__ static constexpr T max() { return HIGH; }                                         \
  };
TC_RTC_INTEGER_LIMITS(signed char, -128, 127)
TC_RTC_INTEGER_LIMITS(unsigned char, 0, 255)
TC_RTC_INTEGER_LIMITS(short, -32768, 32767)
TC_RTC_INTEGER_LIMITS(unsigned short, 0, 65535)
TC_RTC_INTEGER_LIMITS(int, -2147483647 - 1, 2147483647)
TC_RTC_INTEGER_LIMITS(unsigned int, 0u, 4294967295u)
TC_RTC_INTEGER_LIMITS(long long, -9223372036854775807LL - 1, 9223372036854775807LL)
TC_RTC_INTEGER_LIMITS(unsigned long long, 0ull, 18446744073709551615ull)
#undef TC_RTC_INTEGER_LIMITS
template <> struct numeric_limits<float> {
  __device__ static float infinity() { return __int_as_float(0x7F800000); }
  __device__ static float quiet_NaN() { return __int_as_float(0x7FC00000); }
  __device__ static float lowest() { return -3.40282346638528859812e+38F; }
  __device__ static float max() { return 3.40282346638528859812e+38F; }
};
template <> struct numeric_limits<double> {
  __device__ static double infinity() { return __longlong_as_double(0x7FF0000000000000LL); }
  __device__ static double quiet_NaN() { return __longlong_as_double(0x7FF8000000000000LL); }
  __device__ static double lowest() { return -1.79769313486231570815e+308; }
  __device__ static double max() { return 1.79769313486231570815e+308; }
};

// ---- <cmath> ----
using ::acos;
using ::acosh;
using ::asin;
using ::asinh;
using ::atan;
using ::atan2;
using ::atanh;
using ::ceil;
using ::copysign;
using ::cos;
using ::cosh;
using ::erf;
using ::erfc;
using ::exp;
using ::expm1;
using ::fabs;
using ::fma;
using ::floor;
using ::fmod;
using ::isfinite;
using ::isinf;
using ::isnan;
using ::lgamma;
using ::log;
using ::log10;
using ::log1p;
using ::log2;
using ::nearbyint;
using ::nextafter;
using ::pow;
using ::sin;
using ::sinh;
using ::sqrt;
using ::tan;
using ::tanh;
using ::trunc;

} // namespace std

#endif // __CUDACC_RTC__
