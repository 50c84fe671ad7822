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

/// Sorts order[0, n) stably by `before` (a bottom-up merge sort through `buffer`, n slots):
/// no allocation, unlike std::stable_sort, so a warm bundle run allocates nothing.
template <typename Before>
void stable_merge_sort(int64_t *order, int64_t *buffer, int64_t n, Before before) {
  int64_t *from = order, *to = buffer;
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t left = 0; left < n; left += 2 * width) {
      const int64_t middle = std::min(left + width, n), right = std::min(left + 2 * width, n);
      int64_t a = left, b = middle, out = left;
      while (a < middle && b < right) // ties take the left run: stable
        to[out++] = before(from[b], from[a]) ? from[b++] : from[a++];
      while (a < middle)
        to[out++] = from[a++];
      while (b < right)
        to[out++] = from[b++];
    }
    std::swap(from, to);
  }
  if (from != order)
    std::copy(from, from + n, order);
}

} // namespace detail

/// int64_t elements of the workspace sort needs: a key, a position and a merge slot per
/// element of one row.
inline int64_t sort_workspace_elements(int64_t extent) { return 3 * extent; }

/// values[o, :, i] = x[o, :, i] sorted (ascending, or descending), indices[o, :, i] = where each
/// came from, for x, values and indices viewed as [outer, extent, inner]. Stable in either
/// direction: equal keys (and NaNs, which go above every number) keep their original order,
/// as PyTorch's stable sort does. `workspace` holds sort_workspace_elements(extent) int64_t
/// (bundles pass their arena's); null: the kernel allocates its own.
template <typename T>
void sort(const T *x, int64_t outer, int64_t extent, int64_t inner, bool descending, T *values,
          int64_t *indices, int64_t *workspace = nullptr) {
  using C = compute_t<T>;
  static_assert(sizeof(C) <= sizeof(int64_t) && alignof(C) <= alignof(int64_t),
                "a key fits an int64_t slot");
  std::vector<int64_t> own;
  if (workspace == nullptr) {
    own.resize(static_cast<size_t>(sort_workspace_elements(extent)));
    workspace = own.data();
  }
  C *keys = reinterpret_cast<C *>(workspace);
  int64_t *order = workspace + extent;
  int64_t *buffer = order + extent;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * extent * inner + i;
      for (int64_t j = 0; j < extent; ++j) {
        keys[j] = cast<C>(x[base + j * inner]);
        order[j] = j;
      }
      detail::stable_merge_sort(order, buffer, extent, [&](int64_t a, int64_t b) {
        return descending ? detail::ascending_before(keys[b], keys[a])
                          : detail::ascending_before(keys[a], keys[b]);
      });
      for (int64_t j = 0; j < extent; ++j) {
        const int64_t from = order[j];
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
/// (NaN wins); an empty bag gives zeros. Accumulates in double, in `workspace` (D doubles;
/// null: the kernel allocates its own). Returns false, writing nothing, if an index lies
/// outside [0, V), its position going to *bad_position (when not null).
template <typename T, typename I>
bool embedding_bag(const T *weight, int64_t V, int64_t D, const I *indices, int64_t count,
                   const I *offsets, int64_t num_offsets, bool include_last_offset,
                   bag_mode mode, int64_t padding_idx, const T *per_sample_weights, T *y,
                   int64_t *bad_position = nullptr, double *workspace = nullptr) {
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
  std::vector<double> own;
  if (workspace == nullptr) {
    own.resize(static_cast<size_t>(D));
    workspace = own.data();
  }
  double *total = workspace;
  for (int64_t b = 0; b < bags; ++b) {
    const int64_t begin = bound(b);
    const int64_t end = bound(b + 1);
    std::fill(total, total + D, 0.0);
    int64_t used = 0;
    for (int64_t k = begin; k < end; ++k) {
      const auto index = static_cast<int64_t>(indices[k]);
      if (index == padding_idx)
        continue;
      const T *row = weight + index * D;
      const double scale = per_sample_weights ? cast<double>(per_sample_weights[k]) : 1.0;
      for (int64_t d = 0; d < D; ++d) {
        const double value = cast<double>(row[d]);
        double &acc = total[d];
        if (mode == bag_mode::max)
          acc = used == 0 || value > acc || is_nan(value) ? value : acc;
        else
          acc += value * scale;
      }
      ++used;
    }
    const double divisor = mode == bag_mode::mean && used > 0 ? static_cast<double>(used) : 1.0;
    for (int64_t d = 0; d < D; ++d)
      y[b * D + d] = cast<T>(total[d] / divisor);
  }
  return true;
}

} // namespace tc
