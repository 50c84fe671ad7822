// CPU kernels for sort (a stable sort along the middle axis of [outer, extent, inner], NaN
// largest; topk, kthvalue, argsort and msort are slices of it) and embedding_bag (sum, mean or
// max over bags of embedding rows).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "tc_kernels_common.h"
#include "tc_math.h"

namespace tc {
namespace detail {

/// Whether key a goes strictly before key b in ascending order, NaN above every number.
template <typename C> inline bool ascending_before(C a, C b) {
  if (is_nan(a))
    return false;
  return is_nan(b) || a < b;
}

} // namespace detail

/// values[o, :, i] = x[o, :, i] sorted (ascending, or descending), indices[o, :, i] = where each
/// came from, for x, values and indices viewed as [outer, extent, inner]. Stable in either
/// direction: equal keys (and NaNs, which go above every number) keep their original order,
/// as PyTorch's stable sort does.
template <typename T>
void sort(const T *x, int64_t outer, int64_t extent, int64_t inner, bool descending, T *values,
          int64_t *indices) {
  using C = compute_t<T>;
  std::vector<int64_t> order(static_cast<size_t>(extent));
  std::vector<C> keys(static_cast<size_t>(extent));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * extent * inner + i;
      for (int64_t j = 0; j < extent; ++j)
        keys[static_cast<size_t>(j)] = cast<C>(x[base + j * inner]);
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        const C ka = keys[static_cast<size_t>(a)];
        const C kb = keys[static_cast<size_t>(b)];
        return descending ? detail::ascending_before(kb, ka) : detail::ascending_before(ka, kb);
      });
      for (int64_t j = 0; j < extent; ++j) {
        const int64_t from = order[static_cast<size_t>(j)];
        values[base + j * inner] = x[base + from * inner];
        indices[base + j * inner] = from;
      }
    }
  }
}

/// How embedding_bag combines a bag's rows.
enum class bag_mode { sum, mean, max };

/// y[b, :] = the `mode` combination of weight[indices[k], :] for k in bag b = [offsets[b],
/// end_b), end_b = offsets[b + 1], or `count` for the last bag unless include_last_offset
/// (then there are num_offsets - 1 bags, else num_offsets); weight is [V, D]. Offsets are
/// clamped to [0, count]. Entries equal to padding_idx are skipped (mean does not count them);
/// sum multiplies each row by per_sample_weights[k] when that is not null; max is elementwise
/// (NaN wins); an empty bag gives zeros. Accumulates in double. Returns false, writing nothing,
/// if an index lies outside [0, V), its position going to *bad_position (when not null).
template <typename T, typename I>
bool embedding_bag(const T *weight, int64_t V, int64_t D, const I *indices, int64_t count,
                   const I *offsets, int64_t num_offsets, bool include_last_offset,
                   bag_mode mode, int64_t padding_idx, const T *per_sample_weights, T *y,
                   int64_t *bad_position = nullptr) {
  for (int64_t k = 0; k < count; ++k) {
    const auto index = static_cast<int64_t>(indices[k]);
    if (index < 0 || index >= V) {
      if (bad_position)
        *bad_position = k;
      return false;
    }
  }
  const int64_t bags = include_last_offset ? num_offsets - 1 : num_offsets;
  auto bound = [&](int64_t b) {
    if (b >= num_offsets)
      return count;
    return std::min<int64_t>(std::max<int64_t>(static_cast<int64_t>(offsets[b]), 0), count);
  };
  std::vector<double> total(static_cast<size_t>(D));
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t begin = bound(b);
    const int64_t end = bound(b + 1);
    std::fill(total.begin(), total.end(), 0.0);
    int64_t used = 0;
    for (int64_t k = begin; k < end; ++k) {
      const auto index = static_cast<int64_t>(indices[k]);
      if (index == padding_idx)
        continue;
      const T *row = weight + index * D;
      const double scale = per_sample_weights ? cast<double>(per_sample_weights[k]) : 1.0;
      for (int64_t d = 0; d < D; ++d) {
        const double value = cast<double>(row[d]);
        double &acc = total[static_cast<size_t>(d)];
        if (mode == bag_mode::max)
          acc = used == 0 || value > acc || is_nan(value) ? value : acc;
        else
          acc += value * scale;
      }
      ++used;
    }
    const double divisor = mode == bag_mode::mean && used > 0 ? static_cast<double>(used) : 1.0;
    for (int64_t d = 0; d < D; ++d)
      y[b * D + d] = cast<T>(total[static_cast<size_t>(d)] / divisor);
  }
  return true;
}

} // namespace tc
