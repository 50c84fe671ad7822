// CPU kernels for the row-wise neural-network composites: softmax / log_softmax, layer_norm,
// inference batch_norm and scaled dot-product attention. All arithmetic is in double, each
// result rounded once to T, matching the reference interpreter (ir/interpreter_nn.cpp).
#pragma once

#include <cmath>
#include <cstdint>

#include "tc_kernels_common.h"
#include "tc_math.h"

namespace tc {

/// softmax (log = false) or log_softmax (log = true) of x [outer, extent, inner] along
/// extent, with the maximum subtracted first. A NaN in a row makes the row NaN; a row of all
/// -inf is NaN (as in PyTorch).
template <typename T>
void softmax(const T *x, int64_t outer, int64_t extent, int64_t inner, bool log, T *y) {
  for (int64_t o = 0; o < outer; ++o) {
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
}

/// Normalizes each row of x [rows, cols] to zero mean and unit biased variance (two passes),
/// then applies the optional per-column weight and bias: y = (x - mean) / sqrt(var + eps) *
/// weight + bias.
template <typename T>
void layer_norm(const T *x, int64_t rows, int64_t cols, const T *weight, const T *bias, double eps,
                T *y) {
  for (int64_t r = 0; r < rows; ++r) {
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

/// Doubles of workspace that attention needs: one row of scores.
inline int64_t attention_workspace_size(int64_t S) { return S > 0 ? S : 1; }

/// Scaled dot-product attention per batch entry b (batch is every leading dim, flattened):
/// y[b, i, :] = sum_j softmax_j(score[i, j]) * v[b, j, :], score[i, j] = scale * q[b, i, :] .
/// k[b, j, :], for q [batch, L, E], k [batch, S, E], v [batch, S, Ev], y [batch, L, Ev].
/// causal masks j > i (top-left aligned). `mask` (null for none) is contiguous [batch, L, S]
/// (the caller materializes broadcasts): with mask_is_bool it holds bytes, 0 masking the
/// score to -inf and anything else keeping it; otherwise it holds T values added to the
/// scores. A row whose scores are all -inf gives zeros, as PyTorch >= 2.5 eager does
/// (_safe_softmax) and as the reference interpreter does. Uses `workspace`
/// (attention_workspace_size(S) doubles); all arithmetic is in double.
template <typename T>
void attention(const T *q, const T *k, const T *v, int64_t batch, int64_t L, int64_t S, int64_t E,
               int64_t Ev, const void *mask, bool mask_is_bool, double scale, bool causal, T *y,
               double *workspace) {
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
