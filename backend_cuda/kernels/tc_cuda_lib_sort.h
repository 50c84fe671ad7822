// tcg sort and embedding_bag, the CUDA twins of tc_kernels_sort.h.
// sort orders (key, original position) pairs by one total order (the key, NaN largest, then the
// position), so any correct sorting network gives tc::sort's stable result:
//   rows of at most kSortSharedLimit elements: a block per row, a bitonic sort of the row
//     (padded to a power of two) in shared memory;
//   longer rows: a bottom-up merge sort in global memory, one launch per pass over every row
//     at once, each element finding its place in the merged run by binary search (the passes
//     ping-pong between two workspace buffers; the first reads x, the last writes the results).
// embedding_bag: one thread per output element, walking its bag (deterministic, no atomics).
#pragma once

#include "tc_cuda_lib_common.h"
#include "tc_cuda_lib_shape.h"

namespace tcg {

/// Rows up to this many elements are sorted in shared memory (padded to 2048 pairs: at most
/// 32 KiB for 8-byte keys).
constexpr int64_t kSortSharedLimit = 2048;

/// Elements of T and of int64_t that tcg::sort needs as workspace for rows of `extent`: none
/// for rows sorted in shared memory, else two buffers of every element.
inline int64_t sort_workspace_elements(int64_t elements, int64_t extent) {
  return extent <= kSortSharedLimit ? 0 : 2 * elements;
}

namespace detail {

/// Whether (a, ia) goes strictly before (b, ib): by key (ascending, or descending), NaN above
/// every number, then by original position; ia < 0 marks padding, which goes last.
template <typename T>
__device__ inline bool sort_before(T a, int64_t ia, T b, int64_t ib, bool descending) {
  if (ia < 0 || ib < 0)
    return ib < 0 && ia >= 0;
  using C = tc::compute_t<T>;
  const C ka = tc::cast<C>(a);
  const C kb = tc::cast<C>(b);
  const C &first = descending ? kb : ka;
  const C &second = descending ? ka : kb;
  const bool first_nan = tc::is_nan(first);
  const bool second_nan = tc::is_nan(second);
  if (!first_nan && (second_nan || first < second))
    return true;
  if (!second_nan && (first_nan || second < first))
    return false;
  return ia < ib;
}

/// One block per row (o, i) of x [outer, extent, inner]: the row's pairs go to shared memory
/// (padded to `padded`, a power of two), a bitonic network sorts them, the results go out.
template <typename T>
__global__ void sort_shared_kernel(const T *__restrict__ x, int64_t outer, int64_t extent,
                                   int64_t inner, int64_t padded, bool descending,
                                   T *__restrict__ values, int64_t *__restrict__ indices) {
  int64_t *positions = tc::cuda::dynamic_shared<int64_t>();
  T *keys = reinterpret_cast<T *>(positions + padded);
  const int64_t rows = outer * inner;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const int64_t base = (row / inner) * extent * inner + row % inner;
    for (int64_t t = threadIdx.x; t < padded; t += blockDim.x) {
      const bool real = t < extent;
      keys[t] = real ? ldg(x + base + t * inner) : T{};
      positions[t] = real ? t : -1;
    }
    __syncthreads();
    for (int64_t k = 2; k <= padded; k <<= 1) {
      for (int64_t j = k >> 1; j > 0; j >>= 1) {
        for (int64_t t = threadIdx.x; t < padded; t += blockDim.x) {
          const int64_t partner = t ^ j;
          if (partner <= t)
            continue;
          const bool up = (t & k) == 0;
          const bool swap = up ? sort_before(keys[partner], positions[partner], keys[t],
                                             positions[t], descending)
                               : sort_before(keys[t], positions[t], keys[partner],
                                             positions[partner], descending);
          if (swap) {
            const T key = keys[t];
            keys[t] = keys[partner];
            keys[partner] = key;
            const int64_t position = positions[t];
            positions[t] = positions[partner];
            positions[partner] = position;
          }
        }
        __syncthreads();
      }
    }
    for (int64_t t = threadIdx.x; t < extent; t += blockDim.x) {
      values[base + t * inner] = keys[t];
      indices[base + t * inner] = positions[t];
    }
    __syncthreads(); // the next row reuses the shared arrays
  }
}

/// One merge pass over every row of [rows, extent]: runs of `width` sorted pairs merge
/// pairwise into runs of 2 * width. Row r's element j is at (r / inner) * extent * inner +
/// j * inner + r % inner in both source and target (their `inner`s may differ); a null
/// source_positions means the positions are the element's own j (the first pass over x).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    sort_merge_kernel(const T *__restrict__ source_keys,
                      const int64_t *__restrict__ source_positions, int64_t source_inner,
                      int64_t rows, int64_t extent, int64_t width, bool descending,
                      T *__restrict__ target_keys, int64_t *__restrict__ target_positions,
                      int64_t target_inner) {
  const int64_t total = rows * extent;
  for (int64_t e = tc::cuda::global_thread(); e < total; e += tc::cuda::grid_threads()) {
    const int64_t row = e / extent;
    const int64_t j = e % extent;
    const int64_t source_base =
        (row / source_inner) * extent * source_inner + row % source_inner;
    auto key_at = [&](int64_t at) { return ldg(source_keys + source_base + at * source_inner); };
    auto position_at = [&](int64_t at) {
      return source_positions ? ldg(source_positions + source_base + at * source_inner) : at;
    };
    const int64_t start = j / (2 * width) * (2 * width);
    const int64_t middle = start + width < extent ? start + width : extent;
    const int64_t end = start + 2 * width < extent ? start + 2 * width : extent;
    const T key = key_at(j);
    const int64_t position = position_at(j);
    // Count the other run's pairs that go before this one: its place in the merged run.
    const bool in_first = j < middle;
    int64_t low = in_first ? middle : start;
    int64_t high = in_first ? end : middle;
    const int64_t other = low;
    while (low < high) {
      const int64_t probe = low + (high - low) / 2;
      if (sort_before(key_at(probe), position_at(probe), key, position, descending))
        low = probe + 1;
      else
        high = probe;
    }
    const int64_t place = start + (j - (in_first ? start : middle)) + (low - other);
    const int64_t target_base =
        (row / target_inner) * extent * target_inner + row % target_inner;
    target_keys[target_base + place * target_inner] = key;
    target_positions[target_base + place * target_inner] = position;
  }
}

} // namespace detail

/// tc::sort: values/indices[o, :, i] = x[o, :, i] stably sorted, NaN largest. Rows longer than
/// kSortSharedLimit need key_workspace and index_workspace of sort_workspace_elements(outer *
/// extent * inner, extent) elements each (else they may be null).
template <typename T>
result sort(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
            bool descending, T *values, int64_t *indices, T *key_workspace,
            int64_t *index_workspace) {
  const int64_t rows = outer * inner;
  if (rows <= 0 || extent <= 0)
    return result{};
  if (extent <= kSortSharedLimit) {
    int64_t padded = 1;
    while (padded < extent)
      padded <<= 1;
    // A thread per compare-exchange pair, at least a warp.
    const int64_t pairs = padded / 2;
    const int64_t block = detail::kThreads, warp = detail::kWarp;
    const int threads = static_cast<int>(pairs >= block ? block : (pairs > warp ? pairs : warp));
    const size_t shared = static_cast<size_t>(padded) * (sizeof(int64_t) + sizeof(T));
    TC_LAUNCH(tc::cuda::reduction_blocks(rows), threads, shared, ex.stream,
              detail::sort_shared_kernel<T>)
    (x, outer, extent, inner, padded, descending, values, indices);
    return detail::launched();
  }
  if (key_workspace == nullptr || index_workspace == nullptr)
    return detail::unsupported("tcg::sort", "rows above kSortSharedLimit need a workspace");
  const int64_t elements = rows * extent;
  T *key_buffers[2] = {key_workspace, key_workspace + elements};
  int64_t *index_buffers[2] = {index_workspace, index_workspace + elements};
  const T *source_keys = x;
  const int64_t *source_positions = nullptr;
  int64_t source_inner = inner;
  int buffer = 0;
  for (int64_t width = 1; width < extent; width *= 2) {
    const bool last = 2 * width >= extent;
    T *target_keys = last ? values : key_buffers[buffer];
    int64_t *target_positions = last ? indices : index_buffers[buffer];
    const int64_t target_inner = last ? inner : 1;
    TC_LAUNCH(detail::blocks_for(elements), detail::kThreads, 0, ex.stream,
              detail::sort_merge_kernel<T>)
    (source_keys, source_positions, source_inner, rows, extent, width, descending, target_keys,
     target_positions, target_inner);
    const result launch = detail::launched();
    if (!launch.ok())
      return launch;
    source_keys = target_keys;
    source_positions = target_positions;
    source_inner = target_inner;
    buffer = 1 - buffer;
  }
  return result{};
}

/// How embedding_bag combines a bag's rows (tc::bag_mode).
enum class bag_mode { sum, mean, max };

namespace detail {

/// One thread per element (b, d) of y [bags, D]; accumulates in float (double for double).
/// An index outside [0, V) is recorded like gather's and left out of its bag.
template <typename T, typename I>
__global__ void __launch_bounds__(kThreads)
    embedding_bag_kernel(const T *__restrict__ weight, int64_t V, int64_t D,
                         const I *__restrict__ indices, int64_t count,
                         const I *__restrict__ offsets, int64_t num_offsets, int64_t bags,
                         bag_mode mode, int64_t padding_idx,
                         const T *__restrict__ per_sample_weights, T *__restrict__ y,
                         gather_error *error, int site) {
  using F = float_acc_t<T>;
  const int64_t total = bags * D;
  for (int64_t e = tc::cuda::global_thread(); e < total; e += tc::cuda::grid_threads()) {
    const int64_t b = e / D;
    const int64_t d = e % D;
    auto bound = [&](int64_t at) {
      if (at >= num_offsets)
        return count;
      const auto offset = static_cast<int64_t>(ldg(offsets + at));
      return offset < 0 ? int64_t{0} : (offset > count ? count : offset);
    };
    const int64_t begin = bound(b);
    const int64_t end = bound(b + 1);
    F acc = F(0);
    int64_t used = 0;
    for (int64_t k = begin; k < end; ++k) {
      const auto index = static_cast<int64_t>(ldg(indices + k));
      if (index < 0 || index >= V) {
        record_bad_index(error, site, k, index, V);
        continue;
      }
      if (index == padding_idx)
        continue;
      F value = tc::cast<F>(ldg(weight + index * D + d));
      if (mode == bag_mode::max) {
        acc = used == 0 || value > acc || tc::is_nan(value) ? value : acc;
      } else {
        if (per_sample_weights)
          value *= tc::cast<F>(ldg(per_sample_weights + k));
        acc += value;
      }
      ++used;
    }
    if (mode == bag_mode::mean && used > 0)
      acc /= static_cast<F>(used);
    y[e] = tc::cast<T>(acc);
  }
}

} // namespace detail

/// tc::embedding_bag; an index outside [0, V) is recorded in *ex.error (when not null) and left
/// out of its bag (the CPU version refuses before writing anything).
template <typename T, typename I>
result embedding_bag(const exec &ex, const T *weight, int64_t V, int64_t D, const I *indices,
                     int64_t count, const I *offsets, int64_t num_offsets,
                     bool include_last_offset, bag_mode mode, int64_t padding_idx,
                     const T *per_sample_weights, T *y) {
  const int64_t bags = include_last_offset ? num_offsets - 1 : num_offsets;
  const int64_t total = bags * D;
  if (total <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(total), detail::kThreads, 0, ex.stream,
            detail::embedding_bag_kernel<T, I>)
  (weight, V, D, indices, count, offsets, num_offsets, bags, mode, padding_idx,
   per_sample_weights, y, ex.error, ex.error_site);
  return detail::launched();
}

} // namespace tcg
