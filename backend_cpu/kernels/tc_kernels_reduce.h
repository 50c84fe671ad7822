// CPU kernels for reductions over the middle axis of x viewed as [outer, extent, inner]
// (the caller merges the reduced dims into one and the dims around them into outer/inner):
// sum, mean, amax, amin, prod, any, var and argmax, and the scan cumsum. Floating
// accumulation is in double, integer sums and products wrap in int64.
#pragma once

#include <cstdint>

#include "tc_kernels_common.h"
#include "tc_math.h"

namespace tc {

enum class reduce_kind { sum, mean, amax, amin, prod };

namespace detail {

/// Folds x [outer, extent, inner] along extent: for every output element (o, i),
/// acc = combine(acc, x[o, j, i]) for j ascending from `initial`, then finish(o * inner + i,
/// acc). `inner` is walked in stack-held chunks so that x is read in memory order.
template <typename Acc, typename T, typename Combine, typename Finish>
inline void reduce_middle(const T *x, int64_t outer, int64_t extent, int64_t inner, Acc initial,
                          Combine combine, Finish finish) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i0 = 0; i0 < inner; i0 += kChunk) {
      const int64_t width = min_count(kChunk, inner - i0);
      Acc acc[kChunk];
      for (int64_t i = 0; i < width; ++i)
        acc[i] = initial;
      for (int64_t j = 0; j < extent; ++j) {
        const T *row = x + (o * extent + j) * inner + i0;
        for (int64_t i = 0; i < width; ++i)
          acc[i] = combine(acc[i], row[i]);
      }
      for (int64_t i = 0; i < width; ++i)
        finish(o * inner + i0 + i, acc[i]);
    }
  }
}

} // namespace detail

/// y[o, i] = the `kind` reduction of x[o, :, i], converted with cast<Out>. Floating T (float,
/// double, half, bfloat16) sums and multiplies in double; integers and bool in wrapping int64.
/// amax/amin propagate NaN; over an empty extent they give -inf/+inf (the integer limits),
/// where PyTorch raises, so the caller rejects that case; sum gives 0, prod 1, mean NaN.
template <typename T, typename Out>
void reduce(reduce_kind kind, const T *x, int64_t outer, int64_t extent, int64_t inner, Out *y) {
  using Acc = detail::accumulator_t<T>;
  using Compute = compute_t<T>;
  auto sum = [](Acc total, T value) { return detail::add_wrapping(total, detail::widen(value)); };
  auto store = [y](int64_t index, auto value) { y[index] = cast<Out>(value); };
  switch (kind) {
  case reduce_kind::sum:
    detail::reduce_middle(x, outer, extent, inner, Acc(0), sum, store);
    return;
  case reduce_kind::mean:
    detail::reduce_middle(x, outer, extent, inner, Acc(0), sum, [&](int64_t index, Acc total) {
      y[index] = cast<Out>(cast<double>(total) / static_cast<double>(extent));
    });
    return;
  case reduce_kind::prod:
    detail::reduce_middle(
        x, outer, extent, inner, Acc(1),
        [](Acc product, T value) {
          return detail::multiply_wrapping(product, detail::widen(value));
        },
        store);
    return;
  case reduce_kind::amax:
    detail::reduce_middle(
        x, outer, extent, inner, detail::lowest_value<T>(),
        [](Compute best, T element) {
          Compute value = cast<Compute>(element);
          return value > best || is_nan(value) ? value : best;
        },
        store);
    return;
  case reduce_kind::amin:
    detail::reduce_middle(
        x, outer, extent, inner, detail::highest_value<T>(),
        [](Compute best, T element) {
          Compute value = cast<Compute>(element);
          return value < best || is_nan(value) ? value : best;
        },
        store);
    return;
  }
}

/// y[o, i] = any x[o, :, i] != 0 (NaN counts as true); false over an empty extent.
template <typename T>
void reduce_any(const T *x, int64_t outer, int64_t extent, int64_t inner, bool *y) {
  detail::reduce_middle(
      x, outer, extent, inner, false,
      [](bool any, T value) { return any || cast<bool>(value); },
      [y](int64_t index, bool any) { y[index] = any; });
}

/// y[o, i] = sum_j (x[o, j, i] - mean)^2 / max(0, extent - correction), two passes in double
/// (mean first, so large offsets do not cancel). An empty extent gives NaN; extent <=
/// correction gives inf (or NaN for a constant row), as in PyTorch.
template <typename T>
void variance(const T *x, int64_t outer, int64_t extent, int64_t inner, double correction, T *y) {
  const double count = static_cast<double>(extent);
  const double divisor = count - correction > 0.0 ? count - correction : 0.0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i0 = 0; i0 < inner; i0 += detail::kChunk) {
      const int64_t width = detail::min_count(detail::kChunk, inner - i0);
      double mean[detail::kChunk] = {};
      double squares[detail::kChunk] = {};
      const T *base = x + o * extent * inner + i0;
      for (int64_t j = 0; j < extent; ++j)
        for (int64_t i = 0; i < width; ++i)
          mean[i] += cast<double>(base[j * inner + i]);
      for (int64_t i = 0; i < width; ++i)
        mean[i] /= count;
      for (int64_t j = 0; j < extent; ++j) {
        for (int64_t i = 0; i < width; ++i) {
          double deviation = cast<double>(base[j * inner + i]) - mean[i];
          squares[i] += deviation * deviation;
        }
      }
      for (int64_t i = 0; i < width; ++i)
        y[o * inner + i0 + i] = cast<T>(squares[i] / divisor);
    }
  }
}

/// y[o, i] = the index j of the first maximum of x[o, :, i]; a NaN counts as greater than
/// everything, so the first NaN wins. An empty extent gives 0 (PyTorch raises; the caller
/// rejects it).
template <typename T>
void argmax(const T *x, int64_t outer, int64_t extent, int64_t inner, int64_t *y) {
  using Compute = compute_t<T>;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i0 = 0; i0 < inner; i0 += detail::kChunk) {
      const int64_t width = detail::min_count(detail::kChunk, inner - i0);
      const T *base = x + o * extent * inner + i0;
      int64_t *target = y + o * inner + i0;
      if (extent == 0) {
        for (int64_t i = 0; i < width; ++i)
          target[i] = 0;
        continue;
      }
      Compute best[detail::kChunk];
      for (int64_t i = 0; i < width; ++i) {
        best[i] = cast<Compute>(base[i]);
        target[i] = 0;
      }
      for (int64_t j = 1; j < extent; ++j) {
        for (int64_t i = 0; i < width; ++i) {
          Compute value = cast<Compute>(base[j * inner + i]);
          if (!is_nan(best[i]) && (value > best[i] || is_nan(value))) {
            best[i] = value;
            target[i] = j;
          }
        }
      }
    }
  }
}

/// y[o, j, i] = x[o, 0, i] + ... + x[o, j, i] (cumsum along the middle axis), accumulated as
/// in reduce's sum (double for floating T, wrapping int64 for integers and bool, PyTorch's CPU
/// accumulators) and converted with cast<Out> at every step. y must not overlap x.
template <typename T, typename Out>
void cumsum(const T *x, int64_t outer, int64_t extent, int64_t inner, Out *y) {
  using Acc = detail::accumulator_t<T>;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i0 = 0; i0 < inner; i0 += detail::kChunk) {
      const int64_t width = detail::min_count(detail::kChunk, inner - i0);
      Acc acc[detail::kChunk];
      for (int64_t i = 0; i < width; ++i)
        acc[i] = Acc(0);
      for (int64_t j = 0; j < extent; ++j) {
        const int64_t offset = (o * extent + j) * inner + i0;
        for (int64_t i = 0; i < width; ++i) {
          acc[i] = detail::add_wrapping(acc[i], detail::widen(x[offset + i]));
          y[offset + i] = cast<Out>(acc[i]);
        }
      }
    }
  }
}

} // namespace tc
