// Helpers private to the CPU kernel headers (tc_kernels_*.h): element loads into double
// accumulators, extreme values per element type, and the chunk size of the loops that
// reduce over a strided axis.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "tc_math.h"

namespace tc {
namespace detail {

/// Loops that reduce over the middle axis of [outer, extent, inner] walk `inner` in chunks of
/// this many elements, accumulating on the stack, so memory is read in row-major order and
/// nothing is allocated.
constexpr int64_t kChunk = 128;

/// The smaller of two counts.
inline int64_t min_count(int64_t a, int64_t b) { return a < b ? a : b; }

/// The accumulator of sums and products: double for floating T, int64 for integers and bool.
template <typename T>
using accumulator_t = typename std::conditional<is_floating<T>::value, double, int64_t>::type;

/// An element widened to its accumulator type.
template <typename T> inline accumulator_t<T> widen(T value) {
  return cast<accumulator_t<T>>(value);
}

/// a + b and a * b on accumulators; integers wrap (two's complement) instead of overflowing.
inline double add_wrapping(double a, double b) { return a + b; }
inline int64_t add_wrapping(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
inline double multiply_wrapping(double a, double b) { return a * b; }
inline int64_t multiply_wrapping(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

/// The least value of T's compute type: -infinity for floating T, the minimum for integers.
template <typename T> inline compute_t<T> lowest_value() {
  using C = compute_t<T>;
  if constexpr (std::is_floating_point<C>::value)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::lowest();
}

/// The greatest value of T's compute type: +infinity for floating T, the maximum for integers.
template <typename T> inline compute_t<T> highest_value() {
  using C = compute_t<T>;
  if constexpr (std::is_floating_point<C>::value)
    return std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::max();
}

} // namespace detail
} // namespace tc
