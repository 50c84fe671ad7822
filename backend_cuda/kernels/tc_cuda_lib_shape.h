// tcg data movement: copy, strided gather/scatter copies (every view op, broadcast and concat),
// tril/triu, full, arange, random_fill, embedding, index_select, gather, pad and scatter; the
// CUDA twins of tc_kernels_shape.h.
// Copies that turn out contiguous become cudaMemcpyAsync; the rest move 16-byte vectors when
// rows and pointers allow, else elements, with 32-bit index arithmetic when the size fits.
#pragma once

#include "tc_cuda_lib_common.h"

namespace tcg {
namespace detail {

/// A strided index space of at most kMaxRank dims, after collapse_dims.
template <typename Index> struct strided_layout {
  int rank;
  Index shape[kMaxRank];
  int64_t stride[kMaxRank];
};

/// Drops size-1 dims of `shape` and merges dims contiguous with respect to `stride` (as
/// tc::detail::for_each_row does), so most views copy long rows of few dims. Returns the
/// collapsed rank (>= 1; a scalar becomes [1] with stride 0), or -1 above kMaxRank.
inline int collapse_dims(int rank, const int64_t *shape, const int64_t *stride,
                         int64_t (&merged_shape)[kMaxRank], int64_t (&merged_stride)[kMaxRank]) {
  int merged = 0;
  for (int k = 0; k < rank; ++k) {
    if (shape[k] == 1)
      continue;
    if (merged > 0 && merged_stride[merged - 1] == stride[k] * shape[k]) {
      merged_shape[merged - 1] *= shape[k];
      merged_stride[merged - 1] = stride[k];
      continue;
    }
    if (merged == kMaxRank)
      return -1;
    merged_shape[merged] = shape[k];
    merged_stride[merged] = stride[k];
    ++merged;
  }
  if (merged == 0) {
    merged_shape[0] = 1;
    merged_stride[0] = 0;
    merged = 1;
  }
  return merged;
}

/// The strided-side offset of row-major position `linear` of `layout`.
template <typename Index>
__device__ inline int64_t strided_offset(const strided_layout<Index> &layout, Index linear) {
  int64_t offset = 0;
  for (int d = layout.rank - 1; d > 0; --d) {
    offset += static_cast<int64_t>(linear % layout.shape[d]) * layout.stride[d];
    linear /= layout.shape[d];
  }
  return offset + static_cast<int64_t>(linear) * layout.stride[0];
}

/// Gather (Store = false: out[linear] = in[offset(linear)]) or scatter (Store = true:
/// out[offset(linear)] = in[linear]) over `count` positions of `layout`.
template <typename V, typename Index, bool Store>
__global__ void __launch_bounds__(kThreads)
    strided_kernel(const V *__restrict__ in, V *__restrict__ out, int64_t base,
                   strided_layout<Index> layout, Index count) {
  const Index step = static_cast<Index>(blockDim.x) * gridDim.x;
  for (Index linear = static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; linear < count;
       linear += step) {
    const int64_t at = base + strided_offset(layout, linear);
    if constexpr (Store)
      out[at] = ldg(in + linear);
    else
      out[linear] = ldg(in + at);
  }
}

template <typename V, typename Index, bool Store>
result launch_strided_indexed(const exec &ex, const V *in, V *out, int64_t base, int rank,
                              const int64_t *shape, const int64_t *stride, int64_t count) {
  strided_layout<Index> layout{};
  layout.rank = rank;
  for (int d = 0; d < rank; ++d) {
    layout.shape[d] = static_cast<Index>(shape[d]);
    layout.stride[d] = stride[d];
  }
  TC_LAUNCH(blocks_for(count), kThreads, 0, ex.stream, strided_kernel<V, Index, Store>)
  (in, out, base, layout, static_cast<Index>(count));
  return launched();
}

/// launch_strided_indexed with 32-bit index arithmetic when `count` allows (a 32-bit division
/// is several times cheaper than a 64-bit one on GPUs; the grid-stride step stays far below
/// 2^31, so the index cannot wrap).
template <typename V, bool Store>
result launch_strided(const exec &ex, const V *in, V *out, int64_t base, int rank,
                      const int64_t *shape, const int64_t *stride, int64_t count) {
  if (count <= INT32_MAX)
    return launch_strided_indexed<V, uint32_t, Store>(ex, in, out, base, rank, shape, stride,
                                                      count);
  return launch_strided_indexed<V, int64_t, Store>(ex, in, out, base, rank, shape, stride, count);
}

/// True if rows of the collapsed layout are whole 16-byte vectors at 16-byte offsets, so the
/// copy can move vec16s: unit innermost stride, and every other stride, the base offset and
/// the row length multiples of 16 bytes.
template <typename T>
bool vectorizable(int rank, const int64_t *shape, const int64_t *stride, int64_t base) {
  constexpr int64_t lanes = 16 / sizeof(T);
  if (16 % sizeof(T) != 0 || stride[rank - 1] != 1 || shape[rank - 1] % lanes != 0 ||
      base % lanes != 0)
    return false;
  for (int d = 0; d + 1 < rank; ++d)
    if (stride[d] % lanes != 0)
      return false;
  return true;
}

/// The shared body of strided_copy (Store = false) and strided_store (Store = true): `in`
/// and `out` as given, `shape`/`stride` describing the strided side at element `base`.
template <typename T, bool Store>
result strided_transfer(const exec &ex, const T *in, T *out, int64_t base, int rank,
                        const int64_t *shape, const int64_t *stride, const char *function) {
  for (int d = 0; d < rank; ++d)
    if (shape[d] == 0)
      return result{};
  int64_t merged_shape[kMaxRank];
  int64_t merged_stride[kMaxRank];
  const int merged = collapse_dims(rank, shape, stride, merged_shape, merged_stride);
  if (merged < 0)
    return unsupported(function, "more than 8 non-mergeable dims");
  int64_t count = 1;
  for (int d = 0; d < merged; ++d)
    count *= merged_shape[d];
  if (merged == 1 && merged_stride[0] == 1) { // one contiguous run: a plain copy
    T *target = Store ? out + base : out;
    const T *source = Store ? in : in + base;
    return check(cudaMemcpyAsync(target, source, static_cast<size_t>(count) * sizeof(T),
                                 cudaMemcpyDeviceToDevice, ex.stream),
                 "cudaMemcpyAsync");
  }
  if (vectorizable<T>(merged, merged_shape, merged_stride, base) && aligned16(in) &&
      aligned16(out)) {
    constexpr int64_t lanes = 16 / sizeof(T);
    merged_shape[merged - 1] /= lanes;
    for (int d = 0; d + 1 < merged; ++d)
      merged_stride[d] /= lanes;
    return launch_strided<vec16, Store>(ex, reinterpret_cast<const vec16 *>(in),
                                        reinterpret_cast<vec16 *>(out), base / lanes, merged,
                                        merged_shape, merged_stride, count / lanes);
  }
  return launch_strided<T, Store>(ex, in, out, base, merged, merged_shape, merged_stride, count);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    triangle_kernel(const T *x, int64_t rows, int64_t cols, int64_t diagonal, bool upper,
                    int64_t count, T *y) { // x may equal y: no __restrict__
  const T zero = tc::cast<T>(0);
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t c = i % cols;
    const int64_t r = (i / cols) % rows;
    const bool keep = upper ? c - r >= diagonal : c - r <= diagonal;
    y[i] = keep ? x[i] : zero;
  }
}

/// y[0 .. count) = value: `head` scalars up to the first 16-byte boundary, `vectors` vec16s of
/// `pattern` (value repeated), then `tail` scalars.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    fill_kernel(T *__restrict__ y, int64_t head, int64_t vectors, int64_t tail, T value,
                vec16 pattern) {
  const int64_t first = tc::cuda::global_thread();
  if (first < head)
    y[first] = value;
  constexpr int64_t lanes = 16 / sizeof(T);
  if (first < tail)
    y[head + vectors * lanes + first] = value;
  vec16 *body = reinterpret_cast<vec16 *>(y + head);
  for (int64_t i = first; i < vectors; i += tc::cuda::grid_threads())
    body[i] = pattern;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    arange_kernel(T *__restrict__ y, int64_t count, double start, double step) {
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads())
    y[i] = tc::cast<T>(start + static_cast<double>(i) * step);
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    random_kernel(T *__restrict__ y, int64_t count, tc::random_distribution distribution,
                  tc::random_key key, int64_t low, int64_t high) {
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads())
    y[i] = tc::random_element<T>(distribution, key, i, low, high);
}

/// y[o, i, :] = x[o, index[i], :] for x [outer, extent, inner], y [outer, count, inner]; a
/// row whose index is outside [0, extent) becomes zeros and the first such index is recorded
/// in *error (flag, site, position, value, extent; when not null). Each block
/// holds blockDim.y rows of blockDim.x threads (blockDim.x covers `inner` when it is short,
/// so short rows still fill the block).
template <typename V, typename I>
__global__ void __launch_bounds__(kThreads)
    gather_rows_kernel(const V *__restrict__ x, int64_t extent, int64_t inner,
                       const I *__restrict__ index, int64_t count, int64_t rows, V *__restrict__ y,
                       gather_error *error, int site) {
  const int64_t row_step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; row < rows;
       row += row_step) {
    const int64_t o = row / count;
    const auto selected = static_cast<int64_t>(ldg(index + (row - o * count)));
    V *target = y + row * inner;
    if (selected < 0 || selected >= extent) {
      const V zero{};
      for (int64_t e = threadIdx.x; e < inner; e += blockDim.x)
        target[e] = zero;
      if (threadIdx.x == 0 && error && atomicCAS(&error->flag, 0, 1) == 0) {
        error->site = site;
        error->position = static_cast<long long>(row - o * count);
        error->value = static_cast<long long>(selected);
        error->extent = static_cast<long long>(extent);
      }
      continue;
    }
    const V *source = x + (o * extent + selected) * inner;
    for (int64_t e = threadIdx.x; e < inner; e += blockDim.x)
      target[e] = ldg(source + e);
  }
}

/// One thread per element of y [outer, count, inner] = x[o, index[o, j, i], i]; a bad index
/// gives 0 and is recorded like gather_rows_kernel's.
template <typename T, typename I>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const T *__restrict__ x, int64_t extent, int64_t count, int64_t inner,
                  const I *__restrict__ index, int64_t total, T *__restrict__ y,
                  gather_error *error, int site) {
  for (int64_t k = tc::cuda::global_thread(); k < total; k += tc::cuda::grid_threads()) {
    const int64_t i = k % inner;
    const int64_t o = k / (count * inner);
    const auto selected = static_cast<int64_t>(ldg(index + k));
    if (selected < 0 || selected >= extent) {
      y[k] = T{};
      if (error && atomicCAS(&error->flag, 0, 1) == 0) {
        error->site = site;
        error->position = static_cast<long long>(k);
        error->value = static_cast<long long>(selected);
        error->extent = static_cast<long long>(extent);
      }
      continue;
    }
    y[k] = ldg(x + (o * extent + selected) * inner + i);
  }
}

/// Records a bad scatter/gather index in *error (the first one only).
__device__ inline void record_bad_index(gather_error *error, int site, int64_t position,
                                        int64_t value, int64_t extent) {
  if (error && atomicCAS(&error->flag, 0, 1) == 0) {
    error->site = site;
    error->position = static_cast<long long>(position);
    error->value = static_cast<long long>(value);
    error->extent = static_cast<long long>(extent);
  }
}

/// scatter without a reduction: one thread per element k of index [outer, count, inner] writes
/// y[o, index[k], i] = src[k]. Which duplicate index wins is unspecified, as in PyTorch on CUDA.
template <typename T, typename I>
__global__ void __launch_bounds__(kThreads)
    scatter_elements_kernel(T *__restrict__ y, int64_t extent, int64_t count, int64_t inner,
                            const I *__restrict__ index, const T *__restrict__ src,
                            int64_t total, gather_error *error, int site) {
  for (int64_t k = tc::cuda::global_thread(); k < total; k += tc::cuda::grid_threads()) {
    const int64_t i = k % inner;
    const int64_t o = k / (count * inner);
    const auto selected = static_cast<int64_t>(ldg(index + k));
    if (selected < 0 || selected >= extent) {
      record_bad_index(error, site, k, selected, extent);
      continue;
    }
    y[(o * extent + selected) * inner + i] = ldg(src + k);
  }
}

/// scatter with a reduction, deterministically and without atomics: one thread per line
/// (o, i), which walks j = 0 .. count-1 in order (targets of different lines never meet, so
/// the result is the CPU kernel's, bit for bit). include_self false first resets the line's
/// targets to the reduction's identity. Bad indices are recorded and skipped.
template <typename T, typename I>
__global__ void __launch_bounds__(kThreads)
    scatter_lines_kernel(T *__restrict__ y, int64_t extent, int64_t count, int64_t inner,
                         const I *__restrict__ index, const T *__restrict__ src, int64_t lines,
                         tc::scatter_reduce reduce, bool include_self, gather_error *error,
                         int site) {
  for (int64_t line = tc::cuda::global_thread(); line < lines; line += tc::cuda::grid_threads()) {
    const int64_t i = line % inner;
    const int64_t o = line / inner;
    for (int pass = include_self ? 1 : 0; pass < 2; ++pass) {
      for (int64_t j = 0; j < count; ++j) {
        const int64_t k = (o * count + j) * inner + i;
        const auto selected = static_cast<int64_t>(ldg(index + k));
        if (selected < 0 || selected >= extent) {
          record_bad_index(error, site, k, selected, extent);
          continue;
        }
        T &target = y[(o * extent + selected) * inner + i];
        target = pass == 0 ? tc::scatter_identity<T>(reduce)
                           : tc::scatter_combine(reduce, target, ldg(src + k));
      }
    }
  }
}

template <typename V, typename I>
result launch_gather_rows(const exec &ex, const V *x, int64_t outer, int64_t extent, int64_t inner,
                          const I *index, int64_t count, V *y) {
  const int64_t rows = outer * count;
  unsigned width = 1;
  while (width < kThreads && width < inner)
    width *= 2;
  const dim3 block(width, kThreads / width);
  // blocks_for counts kThreads-thread blocks: rows * width threads are rows / block.y blocks.
  TC_LAUNCH(blocks_for(rows * width), block, 0, ex.stream, gather_rows_kernel<V, I>)
  (x, extent, inner, index, count, rows, y, ex.error, ex.error_site);
  return launched();
}

/// gather_rows with 16-byte vectors when rows and pointers allow.
template <typename T, typename I>
result gather_rows(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
                   const I *index, int64_t count, T *y) {
  if (outer == 0 || count == 0 || inner == 0)
    return result{};
  constexpr int64_t lanes = 16 / sizeof(T);
  if (16 % sizeof(T) == 0 && inner % lanes == 0 && aligned16(x) && aligned16(y))
    return launch_gather_rows(ex, reinterpret_cast<const vec16 *>(x), outer, extent, inner / lanes,
                              index, count, reinterpret_cast<vec16 *>(y));
  return launch_gather_rows(ex, x, outer, extent, inner, index, count, y);
}

} // namespace detail

/// out[0 .. count) = in[0 .. count) on ex.stream (device to device).
template <typename T> result copy(const exec &ex, const T *in, int64_t count, T *out) {
  if (count <= 0)
    return result{};
  return check(cudaMemcpyAsync(out, in, static_cast<size_t>(count) * sizeof(T),
                               cudaMemcpyDeviceToDevice, ex.stream),
               "cudaMemcpyAsync");
}

/// tc::strided_copy: out (contiguous, shape out_shape) = in[in_offset + sum_k i_k *
/// in_strides[k]]. Shapes and strides are host arrays; after merging contiguous dims at most 8
/// may remain (else an unsupported result). `in` and `out` must not overlap.
template <typename T>
result strided_copy(const exec &ex, const T *in, int64_t in_offset, const int64_t *in_strides,
                    int rank, const int64_t *out_shape, T *out) {
  return detail::strided_transfer<T, false>(ex, in, out, in_offset, rank, out_shape, in_strides,
                                            "tcg::strided_copy");
}

/// tc::strided_store: out[out_offset + sum_k i_k * out_strides[k]] = in[i] (in contiguous
/// with `shape`). The same limits as strided_copy.
template <typename T>
result strided_store(const exec &ex, const T *in, int rank, const int64_t *shape, T *out,
                     int64_t out_offset, const int64_t *out_strides) {
  return detail::strided_transfer<T, true>(ex, in, out, out_offset, rank, shape, out_strides,
                                           "tcg::strided_store");
}

/// tc::triangle: tril (upper = false) / triu (upper = true) of each [rows, cols] matrix; y may
/// equal x.
template <typename T>
result triangle(const exec &ex, const T *x, int64_t batch, int64_t rows, int64_t cols,
                int64_t diagonal, bool upper, T *y) {
  const int64_t count = batch * rows * cols;
  if (count <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::triangle_kernel<T>)
  (x, rows, cols, diagonal, upper, count, y);
  return detail::launched();
}

/// tc::fill: y[0 .. count) = cast<T>(value).
template <typename T> result fill(const exec &ex, T *y, int64_t count, double value) {
  if (count <= 0)
    return result{};
  const T converted = tc::cast<T>(value);
  constexpr int64_t lanes = 16 / sizeof(T);
  static_assert(16 % sizeof(T) == 0, "element sizes divide 16");
  detail::vec16 pattern;
  for (int64_t lane = 0; lane < lanes; ++lane)
    std::memcpy(reinterpret_cast<unsigned char *>(&pattern) + lane * sizeof(T), &converted,
                sizeof(T));
  const auto address = reinterpret_cast<uintptr_t>(y);
  int64_t head = static_cast<int64_t>((16 - address % 16) % 16 / sizeof(T)); // < 16 elements
  head = head < count ? head : count;
  const int64_t vectors = (count - head) / lanes;
  const int64_t tail = count - head - vectors * lanes;
  const int64_t scalars = head > tail ? head : tail;
  TC_LAUNCH(detail::blocks_for(vectors > scalars ? vectors : scalars), detail::kThreads, 0,
            ex.stream, detail::fill_kernel<T>)
  (y, head, vectors, tail, converted, pattern);
  return detail::launched();
}

/// tc::arange: y[i] = cast<T>(start + i * step), computed in double.
template <typename T>
result arange(const exec &ex, T *y, int64_t count, double start, double step) {
  if (count <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::arange_kernel<T>)
  (y, count, start, step);
  return detail::launched();
}

/// tc::random_fill: y[i] = tc::random_element<T>(distribution, key, i, low, high), the same bits as
/// the CPU library and the reference interpreter (tc_random.h).
template <typename T>
result random_fill(const exec &ex, T *y, int64_t count, tc::random_distribution distribution,
              tc::random_key key, int64_t low, int64_t high) {
  if (count <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::random_kernel<T>)
  (y, count, distribution, key, low, high);
  return detail::launched();
}

namespace detail {

/// tcg::nonzero's grid: kNonzeroBlocks blocks of kThreads threads, thread t of block b owning
/// the t-th of kThreads contiguous pieces of block b's contiguous chunk of x, so that counting
/// per thread, then per block, gives each non-zero element its row-major rank.
constexpr int kNonzeroBlocks = 256;

/// x's shape, passed to the write kernel by value.
struct nonzero_shape {
  int64_t v[kMaxRank];
};

__device__ inline void nonzero_piece(int64_t count, int64_t *first,
                                                          int64_t *last) {
  const int64_t chunk = (count + kNonzeroBlocks - 1) / kNonzeroBlocks;
  const int64_t piece = (chunk + kThreads - 1) / kThreads;
  const int64_t begin = static_cast<int64_t>(blockIdx.x) * chunk + threadIdx.x * piece;
  const int64_t chunk_end = static_cast<int64_t>(blockIdx.x + 1) * chunk;
  *first = begin < count ? begin : count;
  const int64_t end = begin + piece < chunk_end ? begin + piece : chunk_end;
  *last = end < count ? end : count;
  if (*last < *first)
    *last = *first;
}

/// How many of x[first, last) are non-zero.
template <typename T>
__device__ inline int64_t nonzero_count_piece(const T *x, int64_t first, int64_t last) {
  int64_t count = 0;
  for (int64_t i = first; i < last; ++i)
    count += tc::cast<bool>(x[i]) ? 1 : 0;
  return count;
}

/// Pass 1: block b's count of non-zero elements into counts[b].
template <typename T>
__global__ void __launch_bounds__(kThreads)
    nonzero_count_kernel(const T *__restrict__ x, int64_t count, int64_t *__restrict__ counts) {
  __shared__ int64_t partial[kThreads];
  int64_t first, last;
  nonzero_piece(count, &first, &last);
  partial[threadIdx.x] = nonzero_count_piece(x, first, last);
  __syncthreads();
  if (threadIdx.x == 0) {
    int64_t total = 0;
    for (int t = 0; t < kThreads; ++t)
      total += partial[t];
    counts[blockIdx.x] = total;
  }
}

/// Pass 2 (one thread): counts[b] becomes block b's first row, counts[kNonzeroBlocks] the total.
/// (A template, like every kernel of these headers, so that it has one definition per program.)
template <typename T> __global__ void nonzero_scan_kernel(int64_t *counts) {
  int64_t running = 0;
  for (int b = 0; b < kNonzeroBlocks; ++b) {
    const int64_t block = counts[b];
    counts[b] = running;
    running += block;
  }
  counts[kNonzeroBlocks] = running;
}

/// Pass 3: each thread writes the multi-indices of its piece's non-zero elements from its
/// row on (the block's first row plus the counts of the block's earlier threads).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    nonzero_write_kernel(const T *__restrict__ x, int64_t count, int rank, nonzero_shape shape,
                         const int64_t *__restrict__ offsets, int64_t *__restrict__ y) {
  __shared__ int64_t partial[kThreads];
  int64_t first, last;
  nonzero_piece(count, &first, &last);
  partial[threadIdx.x] = nonzero_count_piece(x, first, last);
  __syncthreads();
  if (threadIdx.x == 0) {
    int64_t running = offsets[blockIdx.x];
    for (int t = 0; t < kThreads; ++t) {
      const int64_t own = partial[t];
      partial[t] = running;
      running += own;
    }
  }
  __syncthreads();
  int64_t row = partial[threadIdx.x];
  for (int64_t i = first; i < last; ++i) {
    if (!tc::cast<bool>(x[i]))
      continue;
    int64_t rest = i;
    for (int d = rank - 1; d >= 0; --d) {
      y[row * rank + d] = rest % shape.v[d];
      rest /= shape.v[d];
    }
    ++row;
  }
}

} // namespace detail

/// Elements of int64_t tcg::nonzero needs as workspace.
constexpr int64_t kNonzeroWorkspace = detail::kNonzeroBlocks + 1;

/// tc::nonzero: the row-major multi-indices of x's non-zero elements into y (room for numel
/// rows), their count into *count_host. Three launches (count per block, scan, write in
/// order), then the count is copied to the host and the stream waited for: later launches'
/// sizes depend on it. At most kMaxRank dims.
template <typename T>
result nonzero(const exec &ex, const T *x, int rank, const int64_t *shape, int64_t *workspace,
               int64_t *y, int64_t *count_host) {
  if (rank > detail::kMaxRank)
    return detail::unsupported("tcg::nonzero", "more than 8 dims");
  detail::nonzero_shape dims{};
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    dims.v[d] = shape[d];
    count *= shape[d];
  }
  TC_LAUNCH(detail::kNonzeroBlocks, detail::kThreads, 0, ex.stream,
            detail::nonzero_count_kernel<T>)(x, count, workspace);
  result launched = detail::launched();
  if (!launched.ok())
    return launched;
  TC_LAUNCH(1, 1, 0, ex.stream, detail::nonzero_scan_kernel<T>)(workspace);
  launched = detail::launched();
  if (!launched.ok())
    return launched;
  TC_LAUNCH(detail::kNonzeroBlocks, detail::kThreads, 0, ex.stream,
            detail::nonzero_write_kernel<T>)(x, count, rank, dims, workspace, y);
  launched = detail::launched();
  if (!launched.ok())
    return launched;
  result copied = check(cudaMemcpyAsync(count_host, workspace + detail::kNonzeroBlocks,
                                        sizeof(int64_t), cudaMemcpyDeviceToHost, ex.stream),
                        "cudaMemcpyAsync");
  if (!copied.ok())
    return copied;
  return check(cudaStreamSynchronize(ex.stream), "cudaStreamSynchronize");
}

/// tc::item's device half: x[0] (an integer or bool) into *value_host, then the stream waited
/// for.
template <typename T> result item(const exec &ex, const T *x, int64_t *value_host) {
  T element{};
  result copied = check(cudaMemcpyAsync(&element, x, sizeof(T), cudaMemcpyDeviceToHost, ex.stream),
                        "cudaMemcpyAsync");
  if (!copied.ok())
    return copied;
  result waited = check(cudaStreamSynchronize(ex.stream), "cudaStreamSynchronize");
  if (waited.ok())
    *value_host = static_cast<int64_t>(element);
  return waited;
}

/// tc::embedding: y[i, :] = weight[indices[i], :] for weight [V, D]. An index outside [0, V)
/// makes its row zeros and is recorded in *ex.error (when not null); the host checks the record
/// after synchronizing (the CPU version refuses before writing anything).
template <typename T, typename I>
result embedding(const exec &ex, const T *weight, int64_t V, int64_t D, const I *indices,
                 int64_t count, T *y) {
  return detail::gather_rows(ex, weight, 1, V, D, indices, count, y);
}

/// tc::index_select: y[o, i, :] = x[o, index[i], :] for x [outer, extent, inner]; out-of-range
/// indices as in embedding.
template <typename T, typename I>
result index_select(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
                    const I *index, int64_t count, T *y) {
  return detail::gather_rows(ex, x, outer, extent, inner, index, count, y);
}

/// tc::gather: y[o, j, i] = x[o, index[o, j, i], i] for x [outer, extent, inner] and index
/// and y [outer, count, inner]; out-of-range indices as in embedding (the element becomes 0).
template <typename T, typename I>
result gather(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
              const I *index, int64_t count, T *y) {
  const int64_t total = outer * count * inner;
  if (total <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(total), detail::kThreads, 0, ex.stream,
            detail::gather_kernel<T, I>)
  (x, extent, count, inner, index, total, y, ex.error, ex.error_site);
  return detail::launched();
}


namespace detail {

/// pad's sizes by value: input dims, result dims and the elements added in front of each.
struct pad_geometry {
  int rank;
  int64_t in[kMaxRank], out[kMaxRank], before[kMaxRank];
};

/// One thread per result element: its source index per dim (pad_source_index), or the fill.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    pad_kernel(const T *__restrict__ x, pad_geometry g, tc::pad_mode mode, T fill, int64_t total,
               T *__restrict__ y) {
  for (int64_t i = tc::cuda::global_thread(); i < total; i += tc::cuda::grid_threads()) {
    int64_t rest = i;
    int64_t offset = 0;
    int64_t stride = 1;
    bool inside = true;
    for (int k = g.rank - 1; k >= 0; --k) {
      const int64_t after = g.out[k] - g.in[k] - g.before[k];
      const int64_t source =
          tc::pad_source_index(rest % g.out[k], g.before[k], after, g.in[k], mode);
      rest /= g.out[k];
      inside = inside && source >= 0;
      offset += source * stride;
      stride *= g.in[k];
    }
    y[i] = inside ? ldg(x + offset) : fill;
  }
}

} // namespace detail

/// tc::pad: y (out_shape) = x (in_shape) with before[k] elements added in front of dim k
/// (negative crops) in `mode`; outside the input, constant mode writes `value`. Ranks above
/// kMaxRank are refused (the emitter first merges adjacent unpadded dims).
template <typename T>
result pad(const exec &ex, const T *x, int rank, const int64_t *in_shape, const int64_t *before,
           const int64_t *out_shape, tc::pad_mode mode, double value, T *y) {
  if (rank > detail::kMaxRank)
    return detail::unsupported("tcg::pad", "more than 8 dims after merging unpadded ones");
  detail::pad_geometry g{};
  g.rank = rank;
  int64_t total = 1;
  for (int k = 0; k < rank; ++k) {
    g.in[k] = in_shape[k];
    g.out[k] = out_shape[k];
    g.before[k] = before[k];
    total *= out_shape[k];
  }
  if (total <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(total), detail::kThreads, 0, ex.stream, detail::pad_kernel<T>)
  (x, g, mode, tc::cast<T>(value), total, y);
  return detail::launched();
}

/// tc::scatter, in place on y (which holds the input): y[o, index[o, j, i], i] combined with
/// src[o, j, i] under `reduce`. Reductions run one thread per line in j order, so duplicates
/// combine deterministically (no atomics) and match the CPU kernel bit for bit; without a
/// reduction every element is its own thread and duplicate indices leave an unspecified
/// winner (PyTorch's rule). Out-of-range indices are skipped and recorded in *ex.error like
/// gather's (the CPU version refuses before writing anything).
template <typename T, typename I>
result scatter(const exec &ex, T *y, int64_t outer, int64_t extent, int64_t inner,
               const I *index, int64_t count, const T *src, tc::scatter_reduce reduce,
               bool include_self) {
  const int64_t total = outer * count * inner;
  if (total <= 0)
    return result{};
  if (reduce == tc::scatter_reduce::none) {
    TC_LAUNCH(detail::blocks_for(total), detail::kThreads, 0, ex.stream,
              detail::scatter_elements_kernel<T, I>)
    (y, extent, count, inner, index, src, total, ex.error, ex.error_site);
    return detail::launched();
  }
  const int64_t lines = outer * inner;
  TC_LAUNCH(detail::blocks_for(lines), detail::kThreads, 0, ex.stream,
            detail::scatter_lines_kernel<T, I>)
  (y, extent, count, inner, index, src, lines, reduce, include_self, ex.error, ex.error_site);
  return detail::launched();
}

} // namespace tcg
