// CPU kernels for the row-wise neural-network composites: softmax / log_softmax, layer_norm,
// inference batch_norm and scaled dot-product attention. Rows are split over the context's
// threads (tc_parallel.h). float rows are computed in float with the vectorizable tc::exp
// (like PyTorch's CPU kernels), attention on float blocks of queries through gemm; the other
// dtypes compute in double, each result rounded once to T, like the reference interpreter
// (ir/interpreter_nn.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "tc_kernels_common.h"
#include "tc_kernels_linalg.h"
#include "tc_math.h"
#include "tc_parallel.h"

namespace tc {

namespace detail {

/// Rows per thread for row-wise kernels: about 16K elements of work each.
inline int64_t rows_grain(int64_t row_size) {
  return row_size > 0 ? (16384 + row_size - 1) / row_size : 16384;
}

/// The largest element of row[0, n) (NaN if any is NaN), as softmax needs it.
inline float row_max_f32(const float *row, int64_t n) {
  float maximum = -infinity<float>();
  bool nan = false;
  for (int64_t j = 0; j < n; ++j) {
    maximum = row[j] > maximum ? row[j] : maximum;
    nan = nan || row[j] != row[j];
  }
  return nan ? quiet_nan<float>() : maximum;
}

/// Writes e^(row[j] - shift) to out (may alias row) and returns their sum, accumulated in
/// 16 float lanes (a fixed order, so that the loop vectorizes).
inline float exp_sum_f32(const float *row, int64_t n, float shift, float *out) {
  constexpr int64_t kLanes = 16;
  float lanes[kLanes] = {};
  // Whole blocks bounded by a precomputed end, then the tail: GCC's loop analysis proves the
  // tail's trip count from this form (with `j + kLanes <= n` it warned about overflow when n
  // is a constant after inlining).
  const int64_t whole = n - n % kLanes;
  int64_t j = 0;
  for (; j < whole; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l) {
      const float e = exp(row[j + l] - shift);
      out[j + l] = e;
      lanes[l] += e;
    }
  float sum = 0.0f;
  for (; j < n; ++j) {
    const float e = exp(row[j] - shift);
    out[j] = e;
    sum += e;
  }
  for (int64_t l = 0; l < kLanes; ++l)
    sum += lanes[l];
  return sum;
}

/// sum_j e^(row[j] - shift), in 16 float lanes.
inline float exp_sum_only_f32(const float *row, int64_t n, float shift) {
  constexpr int64_t kLanes = 16;
  float lanes[kLanes] = {};
  // Whole blocks bounded by a precomputed end, then the tail: GCC's loop analysis proves the
  // tail's trip count from this form (with `j + kLanes <= n` it warned about overflow when n
  // is a constant after inlining).
  const int64_t whole = n - n % kLanes;
  int64_t j = 0;
  for (; j < whole; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l)
      lanes[l] += exp(row[j + l] - shift);
  float sum = 0.0f;
  for (; j < n; ++j)
    sum += exp(row[j] - shift);
  for (int64_t l = 0; l < kLanes; ++l)
    sum += lanes[l];
  return sum;
}

/// sum_j f(row[j]) in 16 float lanes (a fixed order, so that the loop vectorizes).
template <typename F> inline float lane_sum_f32(const float *row, int64_t n, const F &f) {
  constexpr int64_t kLanes = 16;
  float lanes[kLanes] = {};
  // Whole blocks bounded by a precomputed end, then the tail: GCC's loop analysis proves the
  // tail's trip count from this form (with `j + kLanes <= n` it warned about overflow when n
  // is a constant after inlining).
  const int64_t whole = n - n % kLanes;
  int64_t j = 0;
  for (; j < whole; j += kLanes)
    for (int64_t l = 0; l < kLanes; ++l)
      lanes[l] += f(row[j + l]);
  float sum = 0.0f;
  for (; j < n; ++j)
    sum += f(row[j]);
  for (int64_t l = 0; l < kLanes; ++l)
    sum += lanes[l];
  return sum;
}

/// layer_norm of contiguous float rows [rows, cols], in float (two passes, like PyTorch).
inline void layer_norm_rows_f32(const float *x, int64_t rows, int64_t cols, const float *weight,
                                const float *bias, double eps, float *y) {
  parallel_for(rows, rows_grain(cols), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float *row = x + r * cols;
      float *target = y + r * cols;
      const float mean =
          lane_sum_f32(row, cols, [](float v) { return v; }) / static_cast<float>(cols);
      const float variance =
          lane_sum_f32(row, cols, [mean](float v) { return (v - mean) * (v - mean); }) /
          static_cast<float>(cols);
      const float inverse_std = 1.0f / std::sqrt(variance + static_cast<float>(eps));
      for (int64_t c = 0; c < cols; ++c) {
        float value = (row[c] - mean) * inverse_std;
        value = weight ? value * weight[c] : value;
        target[c] = bias ? value + bias[c] : value;
      }
    }
  });
}

/// softmax / log_softmax of contiguous float rows [rows, n], in float.
inline void softmax_rows_f32(const float *x, int64_t rows, int64_t n, bool log, float *y) {
  parallel_for(rows, rows_grain(n), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float *row = x + r * n;
      float *target = y + r * n;
      const float maximum = row_max_f32(row, n);
      if (log) {
        // log_softmax = x - max - log(sum e^(x - max)).
        const float log_sum = std::log(exp_sum_only_f32(row, n, maximum));
        for (int64_t j = 0; j < n; ++j)
          target[j] = row[j] - maximum - log_sum;
      } else {
        const float inverse = 1.0f / exp_sum_f32(row, n, maximum, target);
        for (int64_t j = 0; j < n; ++j)
          target[j] *= inverse;
      }
    }
  });
}

} // namespace detail

/// softmax (log = false) or log_softmax (log = true) of x [outer, extent, inner] along
/// extent, with the maximum subtracted first. A NaN in a row makes the row NaN; a row of all
/// -inf is NaN (as in PyTorch).
template <typename T>
void softmax(const T *x, int64_t outer, int64_t extent, int64_t inner, bool log, T *y) {
  if constexpr (std::is_same<T, float>::value) {
    if (inner == 1) {
      detail::softmax_rows_f32(x, outer, extent, log, y);
      return;
    }
  }
  parallel_for(outer, detail::rows_grain(extent * inner), [&](int64_t begin, int64_t end) {
  for (int64_t o = begin; o < end; ++o) {
    for (int64_t i0 = 0; i0 < inner; i0 += detail::kChunk) {
      const int64_t width = detail::min_count(detail::kChunk, inner - i0);
      const int64_t offset = o * extent * inner + i0;
      const T *base = x + offset;
      T *target = y + offset;
      double maximum[detail::kChunk];
      double sum[detail::kChunk] = {};
      for (int64_t i = 0; i < width; ++i)
        maximum[i] = -infinity<double>();
      for (int64_t j = 0; j < extent; ++j) {
        for (int64_t i = 0; i < width; ++i) {
          double value = cast<double>(base[j * inner + i]);
          if (value > maximum[i] || is_nan(value))
            maximum[i] = value;
        }
      }
      for (int64_t j = 0; j < extent; ++j)
        for (int64_t i = 0; i < width; ++i)
          sum[i] += std::exp(cast<double>(base[j * inner + i]) - maximum[i]);
      if (log)
        for (int64_t i = 0; i < width; ++i)
          sum[i] = std::log(sum[i]);
      for (int64_t j = 0; j < extent; ++j) {
        for (int64_t i = 0; i < width; ++i) {
          double shifted = cast<double>(base[j * inner + i]) - maximum[i];
          target[j * inner + i] = cast<T>(log ? shifted - sum[i] : std::exp(shifted) / sum[i]);
        }
      }
    }
  }
  });
}

/// Normalizes each row of x [rows, cols] to zero mean and unit biased variance (two passes),
/// then applies the optional per-column weight and bias: y = (x - mean) / sqrt(var + eps) *
/// weight + bias.
template <typename T>
void layer_norm(const T *x, int64_t rows, int64_t cols, const T *weight, const T *bias, double eps,
                T *y) {
  if constexpr (std::is_same<T, float>::value) {
    detail::layer_norm_rows_f32(x, rows, cols, weight, bias, eps, y);
    return;
  }
  parallel_for(rows, detail::rows_grain(cols), [&](int64_t begin, int64_t end) {
  for (int64_t r = begin; r < end; ++r) {
    const T *row = x + r * cols;
    T *target = y + r * cols;
    double mean = 0.0;
    for (int64_t c = 0; c < cols; ++c)
      mean += cast<double>(row[c]);
    mean /= static_cast<double>(cols);
    double squares = 0.0;
    for (int64_t c = 0; c < cols; ++c) {
      double deviation = cast<double>(row[c]) - mean;
      squares += deviation * deviation;
    }
    double inverse_std = 1.0 / std::sqrt(squares / static_cast<double>(cols) + eps);
    for (int64_t c = 0; c < cols; ++c) {
      double value = (cast<double>(row[c]) - mean) * inverse_std;
      if (weight)
        value *= cast<double>(weight[c]);
      if (bias)
        value += cast<double>(bias[c]);
      target[c] = cast<T>(value);
    }
  }
  });
}

/// Inference batch norm of x [N, C, spatial] with per-channel running statistics:
/// y = x * scale + shift, scale = weight / sqrt(var + eps), shift = bias - mean * scale.
/// weight and bias may be null (1 and 0).
template <typename T>
void batch_norm(const T *x, int64_t N, int64_t C, int64_t spatial, const T *mean, const T *var,
                const T *weight, const T *bias, double eps, T *y) {
  for (int64_t c = 0; c < C; ++c) {
    double scale = 1.0 / std::sqrt(cast<double>(var[c]) + eps);
    if (weight)
      scale *= cast<double>(weight[c]);
    double shift = (bias ? cast<double>(bias[c]) : 0.0) - cast<double>(mean[c]) * scale;
    for (int64_t n = 0; n < N; ++n) {
      const int64_t offset = (n * C + c) * spatial;
      for (int64_t s = 0; s < spatial; ++s)
        y[offset + s] = cast<T>(cast<double>(x[offset + s]) * scale + shift);
    }
  }
}

namespace detail {
/// The float path's blocks of queries and the scratch slots they share (one block of scores
/// per slot; a run never allocates, so the workspace holds every slot).
constexpr int64_t kAttentionRows = 32;
constexpr int64_t kAttentionMaxSlots = 64;
inline int64_t attention_slots(int64_t batch, int64_t L) {
  const int64_t tasks = batch * ((L + kAttentionRows - 1) / kAttentionRows);
  return tasks < kAttentionMaxSlots ? (tasks > 0 ? tasks : 1) : kAttentionMaxSlots;
}
} // namespace detail

/// Doubles of workspace that attention needs: one row of scores in double for T other than
/// float; for float, one [32, S] block of float scores per slot (at most 64 slots, which bounds
/// the threads the float path uses).
inline int64_t attention_workspace_size(int64_t batch, int64_t L, int64_t S, int64_t Ev) {
  (void)Ev;
  const int64_t row = S > 0 ? S : 1;
  const int64_t blocks = detail::attention_slots(batch, L) * detail::kAttentionRows * row;
  const int64_t f32 = (blocks + 1) / 2; // floats, in doubles
  return f32 > row ? f32 : row;
}

namespace detail {

/// attention for float: blocks of kAttentionRows queries per task; the tasks are dealt to
/// attention_slots() slots, split over the context's threads, each slot with its own block of
/// scores in `workspace`. Each block's scores [rows, S] = scale * Q K^T and its output P V are
/// single-threaded gemm calls (BLAS when the bundle has one), the masked softmax between them
/// runs in float.
inline void attention_f32(const float *q, const float *k, const float *v, int64_t batch,
                          int64_t L, int64_t S, int64_t E, int64_t Ev, const void *mask,
                          bool mask_is_bool, double scale, bool causal, float *y,
                          float *workspace) {
  constexpr int64_t kRows = kAttentionRows;
  const auto *bool_mask = static_cast<const uint8_t *>(mask);
  const auto *additive_mask = static_cast<const float *>(mask);
  const int64_t blocks = (L + kRows - 1) / kRows;
  const int64_t tasks = batch * blocks;
  const int64_t slots = attention_slots(batch, L);
  const float minus_inf = -infinity<float>();
  parallel_for(slots, 1, [&](int64_t first_slot, int64_t last_slot) {
    for (int64_t slot = first_slot; slot < last_slot; ++slot)
    for (int64_t task = tasks * slot / slots; task < tasks * (slot + 1) / slots; ++task) {
      const int64_t b = task / blocks;
      const int64_t i0 = (task % blocks) * kRows;
      const int64_t rows = min_count(kRows, L - i0);
      float *block = workspace + slot * kRows * (S > 0 ? S : 1);
      gemm<float>(1, rows, S, E, q + (b * L + i0) * E, 0, false, k + b * S * E, 0, true, scale,
                  0.0, block);
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t i = i0 + r;
        float *row = block + r * S;
        if (causal)
          for (int64_t j = i + 1; j < S; ++j)
            row[j] = minus_inf;
        if (mask) {
          const int64_t mask_row = (b * L + i) * S;
          if (mask_is_bool)
            for (int64_t j = 0; j < S; ++j)
              row[j] = bool_mask[mask_row + j] == 0 ? minus_inf : row[j];
          else
            for (int64_t j = 0; j < S; ++j)
              row[j] += additive_mask[mask_row + j];
        }
        const float maximum = row_max_f32(row, S);
        if (maximum == minus_inf) { // fully masked (or S == 0): zeros, like _safe_softmax
          for (int64_t j = 0; j < S; ++j)
            row[j] = 0.0f;
          continue;
        }
        const float inverse = 1.0f / exp_sum_f32(row, S, maximum, row);
        for (int64_t j = 0; j < S; ++j)
          row[j] *= inverse;
      }
      float *target = y + (b * L + i0) * Ev;
      if (S == 0) {
        for (int64_t e = 0; e < rows * Ev; ++e)
          target[e] = 0.0f;
        continue;
      }
      gemm<float>(1, rows, Ev, S, block, 0, false, v + b * S * Ev, 0, false, 1.0, 0.0, target);
    }
  });
}

} // namespace detail

/// Scaled dot-product attention per batch entry b (batch is every leading dim, flattened):
/// y[b, i, :] = sum_j softmax_j(score[i, j]) * v[b, j, :], score[i, j] = scale * q[b, i, :] .
/// k[b, j, :], for q [batch, L, E], k [batch, S, E], v [batch, S, Ev], y [batch, L, Ev].
/// causal masks j > i (top-left aligned). `mask` (null for none) is contiguous [batch, L, S]
/// (the caller materializes broadcasts): with mask_is_bool it holds bytes, 0 masking the
/// score to -inf and anything else keeping it; otherwise it holds T values added to the
/// scores. A row whose scores are all -inf gives zeros, as PyTorch >= 2.5 eager does
/// (_safe_softmax) and as the reference interpreter does. Uses `workspace`
/// (attention_workspace_size(batch, L, S, Ev) doubles): a row of double scores for T other
/// than float, where all arithmetic is in double; float runs detail::attention_f32 with its
/// blocks of float scores there.
template <typename T>
void attention(const T *q, const T *k, const T *v, int64_t batch, int64_t L, int64_t S, int64_t E,
               int64_t Ev, const void *mask, bool mask_is_bool, double scale, bool causal, T *y,
               double *workspace) {
  if constexpr (std::is_same<T, float>::value) {
    detail::attention_f32(q, k, v, batch, L, S, E, Ev, mask, mask_is_bool, scale, causal, y,
                          reinterpret_cast<float *>(workspace));
    return;
  }
  constexpr int64_t kBlock = 64;
  const auto *bool_mask = static_cast<const uint8_t *>(mask);
  const auto *additive_mask = static_cast<const T *>(mask);
  const T zero = cast<T>(0);
  double *scores = workspace;
  for (int64_t b = 0; b < batch; ++b) {
    const T *queries = q + b * L * E;
    const T *keys = k + b * S * E;
    const T *values = v + b * S * Ev;
    for (int64_t i = 0; i < L; ++i) {
      const T *query = queries + i * E;
      const int64_t mask_row = (b * L + i) * S;
      double maximum = -infinity<double>();
      for (int64_t j = 0; j < S; ++j) {
        double score = -infinity<double>();
        if (!causal || j <= i) {
          const T *key = keys + j * E;
          double dot = 0.0;
          for (int64_t e = 0; e < E; ++e)
            dot += cast<double>(query[e]) * cast<double>(key[e]);
          score = dot * scale;
        }
        if (mask && mask_is_bool && bool_mask[mask_row + j] == 0)
          score = -infinity<double>();
        else if (mask && !mask_is_bool)
          score += cast<double>(additive_mask[mask_row + j]);
        scores[j] = score;
        if (score > maximum || is_nan(score))
          maximum = score;
      }
      T *target = y + (b * L + i) * Ev;
      if (maximum == -infinity<double>()) { // fully masked (or S == 0)
        for (int64_t e = 0; e < Ev; ++e)
          target[e] = zero;
        continue;
      }
      double sum = 0.0;
      for (int64_t j = 0; j < S; ++j) {
        scores[j] = std::exp(scores[j] - maximum);
        sum += scores[j];
      }
      for (int64_t e0 = 0; e0 < Ev; e0 += kBlock) {
        const int64_t width = detail::min_count(kBlock, Ev - e0);
        double accumulated[kBlock] = {};
        for (int64_t j = 0; j < S; ++j) {
          const double weight = scores[j] / sum;
          const T *value = values + j * Ev + e0;
          for (int64_t e = 0; e < width; ++e)
            accumulated[e] += weight * cast<double>(value[e]);
        }
        for (int64_t e = 0; e < width; ++e)
          target[e0 + e] = cast<T>(accumulated[e]);
      }
    }
  }
}

} // namespace tc
