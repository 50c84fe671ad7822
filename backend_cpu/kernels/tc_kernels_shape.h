// CPU kernels for data movement: strided gather/scatter copies (every view op, broadcast and
// concat), tril/triu, full, arange, random_fill, nonzero, embedding, index_select, gather, pad and
// scatter. Buffers are contiguous row-major unless strides are given; strides and offsets count
// elements.
#pragma once

#include <cstdint>

#include "tc_kernels_common.h"
#include "tc_math.h"

namespace tc {
namespace detail {

/// Ranks up to this collapse adjacent dims before copying; higher ranks copy uncollapsed.
constexpr int kMaxCollapsedRank = 16;

/// Walks a row-major index space `shape` (rank >= 1) with `strides`, calling
/// row(offset, stride, count, linear) once per innermost row: elements linear .. linear+count-1
/// of the index space sit at offset, offset+stride, ... on the strided side.
template <typename Row>
inline void walk_rows(int rank, const int64_t *shape, const int64_t *strides, int64_t offset,
                      int64_t &linear, Row &row) {
  if (rank == 1) {
    row(offset, strides[0], shape[0], linear);
    linear += shape[0];
    return;
  }
  for (int64_t i = 0; i < shape[0]; ++i)
    walk_rows(rank - 1, shape + 1, strides + 1, offset + i * strides[0], linear, row);
}

/// Calls row(...) as walk_rows does for the index space `shape` of `rank` (>= 1) dims, after
/// dropping size-1 dims and merging dims that are contiguous with respect to `strides`, so a
/// permute of a [.., 1] tensor or a slice of whole rows copies long rows. Nothing is called
/// for an empty index space.
template <typename Row>
inline void for_each_row(int rank, const int64_t *shape, const int64_t *strides, int64_t offset,
                         Row &&row) {
  for (int k = 0; k < rank; ++k)
    if (shape[k] == 0)
      return;
  int64_t linear = 0;
  if (rank > kMaxCollapsedRank) {
    walk_rows(rank, shape, strides, offset, linear, row);
    return;
  }
  int64_t merged_shape[kMaxCollapsedRank];
  int64_t merged_strides[kMaxCollapsedRank];
  int merged = 0;
  for (int k = 0; k < rank; ++k) {
    if (shape[k] == 1)
      continue;
    if (merged > 0 && merged_strides[merged - 1] == strides[k] * shape[k]) {
      merged_shape[merged - 1] *= shape[k];
      merged_strides[merged - 1] = strides[k];
      continue;
    }
    merged_shape[merged] = shape[k];
    merged_strides[merged] = strides[k];
    ++merged;
  }
  if (merged == 0) { // every dim has size 1: one element
    merged_shape[0] = 1;
    merged_strides[0] = 0;
    merged = 1;
  }
  walk_rows(merged, merged_shape, merged_strides, offset, linear, row);
}

} // namespace detail

/// out[i_0, .., i_{rank-1}] (contiguous, shape out_shape) =
///   in[in_offset + sum_k i_k * in_strides[k]]: permute, expand/broadcast (stride 0), slice
/// (offset and step strides), select, squeeze/unsqueeze. rank 0 copies one element; a size-0
/// dim copies nothing. `in` and `out` must not overlap.
template <typename T>
void strided_copy(const T *in, int64_t in_offset, const int64_t *in_strides, int rank,
                  const int64_t *out_shape, T *out) {
  if (rank == 0) {
    out[0] = in[in_offset];
    return;
  }
  detail::for_each_row(rank, out_shape, in_strides, in_offset,
                       [&](int64_t offset, int64_t stride, int64_t count, int64_t linear) {
                         const T *source = in + offset;
                         T *target = out + linear;
                         if (stride == 1) {
                           for (int64_t i = 0; i < count; ++i)
                             target[i] = source[i];
                           return;
                         }
                         for (int64_t i = 0; i < count; ++i)
                           target[i] = source[i * stride];
                       });
}

/// The scatter twin of strided_copy: out[out_offset + sum_k i_k * out_strides[k]] = in[i] for
/// `in` contiguous with `shape`. Concat stores each operand into its window of the result.
template <typename T>
void strided_store(const T *in, int rank, const int64_t *shape, T *out, int64_t out_offset,
                   const int64_t *out_strides) {
  if (rank == 0) {
    out[out_offset] = in[0];
    return;
  }
  detail::for_each_row(rank, shape, out_strides, out_offset,
                       [&](int64_t offset, int64_t stride, int64_t count, int64_t linear) {
                         const T *source = in + linear;
                         T *target = out + offset;
                         if (stride == 1) {
                           for (int64_t i = 0; i < count; ++i)
                             target[i] = source[i];
                           return;
                         }
                         for (int64_t i = 0; i < count; ++i)
                           target[i * stride] = source[i];
                       });
}

/// tril (upper = false) keeps column - row <= diagonal of each [rows, cols] matrix; triu
/// (upper = true) keeps column - row >= diagonal; the rest becomes 0. y may equal x.
template <typename T>
void triangle(const T *x, int64_t batch, int64_t rows, int64_t cols, int64_t diagonal, bool upper,
              T *y) {
  const T zero = cast<T>(0);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      int64_t base = (b * rows + r) * cols;
      for (int64_t c = 0; c < cols; ++c) {
        bool keep = upper ? c - r >= diagonal : c - r <= diagonal;
        y[base + c] = keep ? x[base + c] : zero;
      }
    }
  }
}

/// y[0 .. count) = value converted like cast<T> (torch.full).
template <typename T> void fill(T *y, int64_t count, double value) {
  const T converted = cast<T>(value);
  for (int64_t i = 0; i < count; ++i)
    y[i] = converted;
}

/// y[i] = cast<T>(start + i * step), the product and sum in double (torch.arange).
template <typename T> void arange(T *y, int64_t count, double start, double step) {
  for (int64_t i = 0; i < count; ++i)
    y[i] = cast<T>(start + static_cast<double>(i) * step);
}

/// The random op: y[i] = random_element<T>(distribution, key, i, low, high) (tc_math.h; low and
/// high only matter for integer draws).
template <typename T>
void random_fill(T *y, int64_t count, random_distribution distribution, random_key key,
                 int64_t low, int64_t high) {
  for (int64_t i = 0; i < count; ++i)
    y[i] = random_element<T>(distribution, key, i, low, high);
}

/// torch.nonzero: the multi-index of every non-zero element of x (contiguous, `rank` dims of
/// `shape`; NaN counts as non-zero) in row-major order, `rank` int64 per element, into y (room
/// for numel(x) rows); returns how many there are. At most kNonzeroMaxRank dims (the code
/// generator checks).
constexpr int kNonzeroMaxRank = 8;
template <typename T> int64_t nonzero(const T *x, int rank, const int64_t *shape, int64_t *y) {
  int64_t count = 1;
  for (int d = 0; d < rank; ++d)
    count *= shape[d];
  int64_t index[kNonzeroMaxRank] = {};
  int64_t rows = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (cast<bool>(x[i])) {
      for (int d = 0; d < rank; ++d)
        y[rows * rank + d] = index[d];
      ++rows;
    }
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return rows;
}

namespace detail {
/// True if every index lies in [0, extent); otherwise false, with the position of the first
/// index outside it in *bad_position (when not null).
template <typename I>
inline bool indices_in_range(const I *indices, int64_t count, int64_t extent,
                             int64_t *bad_position) {
  for (int64_t i = 0; i < count; ++i) {
    auto index = static_cast<int64_t>(indices[i]);
    if (index < 0 || index >= extent) {
      if (bad_position)
        *bad_position = i;
      return false;
    }
  }
  return true;
}
} // namespace detail

/// y[i, :] = weight[indices[i], :] for weight [V, D] and `count` indices (any integer type I).
/// Returns false, writing nothing, if an index lies outside [0, V): PyTorch's embedding raises
/// "index out of range in self" for negative indices too. The first bad index's position goes
/// to *bad_position (when not null).
template <typename T, typename I>
bool embedding(const T *weight, int64_t V, int64_t D, const I *indices, int64_t count, T *y,
               int64_t *bad_position = nullptr) {
  if (!detail::indices_in_range(indices, count, V, bad_position))
    return false;
  for (int64_t i = 0; i < count; ++i) {
    const T *row = weight + static_cast<int64_t>(indices[i]) * D;
    T *target = y + i * D;
    for (int64_t d = 0; d < D; ++d)
      target[d] = row[d];
  }
  return true;
}

/// y[o, i, :] = x[o, index[i], :] for x viewed as [outer, extent, inner] and y as
/// [outer, count, inner]. Returns false, writing nothing, if an index lies outside
/// [0, extent): PyTorch's index_select raises for negative indices too.
template <typename T, typename I>
bool index_select(const T *x, int64_t outer, int64_t extent, int64_t inner, const I *index,
                  int64_t count, T *y, int64_t *bad_position = nullptr) {
  if (!detail::indices_in_range(index, count, extent, bad_position))
    return false;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < count; ++i) {
      const T *source = x + (o * extent + static_cast<int64_t>(index[i])) * inner;
      T *target = y + (o * count + i) * inner;
      for (int64_t e = 0; e < inner; ++e)
        target[e] = source[e];
    }
  }
  return true;
}

/// y[o, j, i] = x[o, index[o, j, i], i] for x viewed as [outer, extent, inner] and index and y
/// as [outer, count, inner] (torch.gather along the middle axis). Returns false, writing
/// nothing, if an index lies outside [0, extent) (PyTorch's gather raises for negative indices
/// too); the first bad index's position in `index` goes to *bad_position (when not null).
template <typename T, typename I>
bool gather(const T *x, int64_t outer, int64_t extent, int64_t inner, const I *index,
            int64_t count, T *y, int64_t *bad_position = nullptr) {
  if (!detail::indices_in_range(index, outer * count * inner, extent, bad_position))
    return false;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < count; ++j) {
      const int64_t at = (o * count + j) * inner;
      for (int64_t i = 0; i < inner; ++i)
        y[at + i] = x[(o * extent + static_cast<int64_t>(index[at + i])) * inner + i];
    }
  }
  return true;
}


/// y (contiguous, shape out_shape) = x (contiguous, shape in_shape) with before[k] elements
/// added in front of dim k (negative crops) in `mode` (pad_source_index in tc_math.h); outside
/// the input, constant mode writes `value`. rank 0 copies one element. Each row of the last
/// dim finds its source row once; constant mode then writes fill, copy, fill.
template <typename T>
void pad(const T *x, int rank, const int64_t *in_shape, const int64_t *before,
         const int64_t *out_shape, pad_mode mode, double value, T *y) {
  if (rank == 0) {
    y[0] = x[0];
    return;
  }
  const int64_t width = out_shape[rank - 1];
  const int64_t in_width = in_shape[rank - 1];
  const int64_t lead = before[rank - 1];
  int64_t rows = 1;
  for (int k = 0; k + 1 < rank; ++k)
    rows *= out_shape[k];
  const T fill = cast<T>(value);
  // Constant mode copies result columns [begin, end) from source column - lead.
  const int64_t stop = lead + in_width;
  const int64_t begin = lead < 0 ? 0 : (lead > width ? width : lead);
  const int64_t end = stop < begin ? begin : (stop > width ? width : stop);
  for (int64_t r = 0; r < rows; ++r) {
    T *row = y + r * width;
    int64_t rest = r;
    int64_t offset = 0;
    int64_t stride = in_width;
    bool inside = true;
    for (int k = rank - 2; k >= 0; --k) {
      const int64_t after = out_shape[k] - in_shape[k] - before[k];
      const int64_t source =
          pad_source_index(rest % out_shape[k], before[k], after, in_shape[k], mode);
      rest /= out_shape[k];
      inside = inside && source >= 0;
      offset += source * stride;
      stride *= in_shape[k];
    }
    if (!inside) {
      for (int64_t i = 0; i < width; ++i)
        row[i] = fill;
      continue;
    }
    const T *source = x + offset;
    if (mode == pad_mode::constant) {
      for (int64_t i = 0; i < begin; ++i)
        row[i] = fill;
      for (int64_t i = begin; i < end; ++i)
        row[i] = source[i - lead];
      for (int64_t i = end; i < width; ++i)
        row[i] = fill;
      continue;
    }
    for (int64_t i = 0; i < width; ++i) {
      const int64_t at = pad_source_index(i, lead, width - in_width - lead, in_width, mode);
      row[i] = at < 0 ? fill : source[at];
    }
  }
}

/// torch.scatter / scatter_reduce along the middle axis, in place on y (which holds the input):
/// for y viewed as [outer, extent, inner] and index and src as [outer, count, inner],
/// y[o, index[o, j, i], i] = scatter_combine(reduce, y[...], src[o, j, i]) for j in order, so
/// duplicate indices sum (or multiply, ...) deterministically and, for none, the last j wins.
/// include_self false first sets every targeted element to scatter_identity(reduce). Returns
/// false, writing nothing, if an index lies outside [0, extent); the first bad index's
/// position in `index` goes to *bad_position (when not null).
template <typename T, typename I>
bool scatter(T *y, int64_t outer, int64_t extent, int64_t inner, const I *index, int64_t count,
             const T *src, scatter_reduce reduce, bool include_self,
             int64_t *bad_position = nullptr) {
  if (!detail::indices_in_range(index, outer * count * inner, extent, bad_position))
    return false;
  const bool reset = reduce != scatter_reduce::none && !include_self;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t pass = reset ? 0 : 1; pass < 2; ++pass) {
      for (int64_t j = 0; j < count; ++j) {
        const int64_t at = (o * count + j) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          T &target = y[(o * extent + static_cast<int64_t>(index[at + i])) * inner + i];
          target = pass == 0 ? scatter_identity<T>(reduce)
                             : scatter_combine(reduce, target, src[at + i]);
        }
      }
    }
  }
  return true;
}

} // namespace tc
