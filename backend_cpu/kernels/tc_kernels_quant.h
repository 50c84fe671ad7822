// Weight-only quantized linear layers (ir/ops.def linear_wq): out = x W^T + bias with
// W[n, p] = (q[n, p] - zeros[n, g]) * scales[n, g], q int8 [N, K] or packed int4 [N, K/2]
// (32-element blocks: byte j holds element j in its low nibble and element 16 + j in its high
// nibble, each + 8). The weight stays quantized in memory; it is widened in registers.
//
// Few rows (decode, <= kGemvRows): a GEMV that reads each weight byte once per 4 rows of x,
// converts it to float, subtracts the zero point (exact: small integers) and accumulates
// x * (q - z) per group, scaling each group's sum once. Explicit AVX-512 (F, BW, VL) and AVX2
// (+ FMA) kernels are chosen at run time by the CPU (tc::quant::best_isa), whatever the
// compiler flags; the scalar loop runs elsewhere (and for int4 groups that are not a multiple
// of 32). Many rows (prefill): blocks of 256 output features are dequantized to float and
// multiplied with tc::gemm (CBLAS when the bundle has it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tc_kernels_linalg.h"
#include "tc_kernels_qgemm.h"
#include "tc_math.h"
#include "tc_parallel.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) &&  \
    !defined(__CUDACC__)
#define TC_QUANT_X86 1
#include <immintrin.h>
#define TC_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,fma")))
#define TC_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define TC_TARGET_AVX512_VNNI                                                                   \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,fma")))
#else
#define TC_QUANT_X86 0
#endif

namespace tc {
namespace quant {

/// The instruction sets the GEMV has kernels for.
enum class Isa { scalar = 0, avx2 = 1, avx512 = 2 };

inline const char *isa_name(Isa isa) {
  return isa == Isa::avx512 ? "avx512" : isa == Isa::avx2 ? "avx2" : "scalar";
}

/// Whether this CPU runs `isa`'s kernel.
inline bool isa_available(Isa isa) {
#if TC_QUANT_X86
  if (isa == Isa::avx512)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
  if (isa == Isa::avx2)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return true;
#else
  return isa == Isa::scalar;
#endif
}

/// Whether `isa` also has the integer dot product the dynamic-activation kernel uses
/// (AVX-512 VNNI's vpdpbusd; AVX2 runs the scalar kernel).
inline bool isa_has_dot(Isa isa) {
#if TC_QUANT_X86
  return isa == Isa::avx512 && isa_available(Isa::avx512) &&
         __builtin_cpu_supports("avx512vnni");
#else
  (void)isa;
  return false;
#endif
}

/// The widest available instruction set, detected once.
inline Isa best_isa() {
  static const Isa best = isa_available(Isa::avx512) ? Isa::avx512
                          : isa_available(Isa::avx2) ? Isa::avx2
                                                     : Isa::scalar;
  return best;
}

/// A quantized weight in float terms: exactly one of q8 / q4 is set.
struct Weight {
  const int8_t *q8 = nullptr;  ///< [n, k]
  const uint8_t *q4 = nullptr; ///< [n, k / 2], the packed layout above
  int64_t k = 0;
  int64_t groups = 1;
  int64_t group_size = 0;         ///< k / groups
  const float *scales = nullptr;  ///< [n, groups]
  const float *zeros = nullptr;   ///< [n, groups] or nullptr
  bool dynamic_act = false;       ///< x quantized per 32 (int4, groups of 32, no zeros)

  /// Element p of row n as stored (the int4 value -8..7, or the int8 value).
  float value(int64_t n, int64_t p) const {
    if (q8 != nullptr)
      return static_cast<float>(q8[n * k + p]);
    const uint8_t byte = q4[n * (k / 2) + (p / 32) * 16 + (p % 16)];
    return static_cast<float>(((p % 32) < 16 ? byte & 15 : byte >> 4) - 8);
  }
  float zero(int64_t n, int64_t g) const { return zeros != nullptr ? zeros[n * groups + g] : 0.f; }
  float scale(int64_t n, int64_t g) const { return scales[n * groups + g]; }
};

/// Rows kGemvRows at a time share each weight load in the GEMV.
constexpr int64_t kGemvRows = 4;

/// out[r * ldo + n] = sum_p x[r * k + p] * W[n, p] for r < m (<= kGemvRows), n in [n0, n1).
inline void gemv_scalar(const Weight &w, int64_t m, const float *x, int64_t n0, int64_t n1,
                        float *out, int64_t ldo) {
  for (int64_t n = n0; n < n1; ++n) {
    float total[kGemvRows] = {};
    for (int64_t g = 0; g < w.groups; ++g) {
      const float z = w.zero(n, g);
      float acc[kGemvRows] = {};
      for (int64_t p = g * w.group_size; p < (g + 1) * w.group_size; ++p) {
        const float weight = w.value(n, p) - z;
        for (int64_t r = 0; r < m; ++r)
          acc[r] += x[r * w.k + p] * weight;
      }
      for (int64_t r = 0; r < m; ++r)
        total[r] += acc[r] * w.scale(n, g);
    }
    for (int64_t r = 0; r < m; ++r)
      out[r * ldo + n] = total[r];
  }
}

#if TC_QUANT_X86
namespace detail {

/// The sum of the 16 lanes (through memory: GCC 12's _mm512_reduce_add_ps trips
/// -Wmaybe-uninitialized inside its own header).
TC_TARGET_AVX512 inline float hsum512(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float sum = 0.f;
  for (float lane : lanes)
    sum += lane;
  return sum;
}

// 16 bytes widened to 16 floats. The all-ones maskz forms: GCC 12's unmasked
// _mm512_cvtepi8_epi32 / _mm512_cvtepi32_ps read _mm512_undefined_*() and trip
// -Wmaybe-uninitialized (an error in -Werror builds); the instructions are the same.
TC_TARGET_AVX512 inline __m512 widen_i8(__m128i bytes) {
  return _mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_maskz_cvtepi8_epi32(0xFFFF, bytes));
}
TC_TARGET_AVX512 inline __m512 widen_u8(__m128i bytes) {
  return _mm512_maskz_cvtepi32_ps(0xFFFF, _mm512_maskz_cvtepu8_epi32(0xFFFF, bytes));
}

/// One packed 32-element block: its low and high halves looked up in `table` (the nibble
/// values minus 8 + zero) and multiplied into accumulators `first` and `second` of each row.
template <int M, int U>
TC_TARGET_AVX512 inline void q4_block(const uint8_t *bytes_at, const float *x, int64_t k,
                                      __m512 table, __m512 (&acc)[M][U], int first,
                                      int second) {
  const __m128i low_nibbles = _mm_set1_epi8(0x0F);
  const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(bytes_at));
  const __m128i lo = _mm_and_si128(bytes, low_nibbles);
  const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), low_nibbles);
  // (maskz forms for GCC 12's -Wmaybe-uninitialized, as widen_i8 says)
  const __m512 wl =
      _mm512_maskz_permutexvar_ps(0xFFFF, _mm512_maskz_cvtepu8_epi32(0xFFFF, lo), table);
  const __m512 wh =
      _mm512_maskz_permutexvar_ps(0xFFFF, _mm512_maskz_cvtepu8_epi32(0xFFFF, hi), table);
  for (int r = 0; r < M; ++r) {
    acc[r][first] = _mm512_fmadd_ps(_mm512_loadu_ps(x + r * k), wl, acc[r][first]);
    acc[r][second] = _mm512_fmadd_ps(_mm512_loadu_ps(x + r * k + 16), wh, acc[r][second]);
  }
}

/// The AVX-512 GEMV of an int8 weight for M rows. Each row keeps U = 4 / M (at least 1) independent
/// accumulators, so that the FMAs of one row do not wait on each other's latency.
template <int M>
TC_TARGET_AVX512 void gemv_avx512(const Weight &w, const float *x, int64_t n0, int64_t n1,
                                  float *out, int64_t ldo) {
  constexpr int U = M >= 4 ? 1 : 4 / M;
  const int64_t k = w.k, gs = w.group_size;
  for (int64_t n = n0; n < n1; ++n) {
    __m512 total[M];
    for (int r = 0; r < M; ++r)
      total[r] = _mm512_setzero_ps();
    for (int64_t g = 0; g < w.groups; ++g) {
      const int64_t p0 = g * gs;
      const __m512 z = _mm512_set1_ps(w.zero(n, g));
      __m512 acc[M][U];
      for (int r = 0; r < M; ++r)
        for (int u = 0; u < U; ++u)
          acc[r][u] = _mm512_setzero_ps();
      const float *xg = x + p0;
      {
        const int8_t *row = w.q8 + n * k + p0;
        const bool centered = w.zeros != nullptr;
        int64_t p = 0;
        for (; p + 16 * U <= gs; p += 16 * U) {
          for (int u = 0; u < U; ++u) {
            const __m128i bytes =
                _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p + 16 * u));
            const __m512 wv = centered ? _mm512_sub_ps(widen_i8(bytes), z) : widen_i8(bytes);
            for (int r = 0; r < M; ++r)
              acc[r][u] =
                  _mm512_fmadd_ps(_mm512_loadu_ps(xg + r * k + p + 16 * u), wv, acc[r][u]);
          }
        }
        for (; p + 16 <= gs; p += 16) {
          const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p));
          const __m512 wv = centered ? _mm512_sub_ps(widen_i8(bytes), z) : widen_i8(bytes);
          for (int r = 0; r < M; ++r)
            acc[r][0] = _mm512_fmadd_ps(_mm512_loadu_ps(xg + r * k + p), wv, acc[r][0]);
        }
        if (p < gs) {
          const __mmask16 mask = static_cast<__mmask16>((1u << (gs - p)) - 1u);
          const __m128i bytes = _mm_maskz_loadu_epi8(mask, row + p);
          const __m512 wv = _mm512_maskz_sub_ps(mask, widen_i8(bytes), z);
          for (int r = 0; r < M; ++r)
            acc[r][0] =
                _mm512_fmadd_ps(_mm512_maskz_loadu_ps(mask, xg + r * k + p), wv, acc[r][0]);
        }
      }
      const __m512 s = _mm512_set1_ps(w.scale(n, g));
      for (int r = 0; r < M; ++r) {
        __m512 sum = acc[r][0];
        for (int u = 1; u < U; ++u)
          sum = _mm512_add_ps(sum, acc[r][u]);
        total[r] = _mm512_fmadd_ps(sum, s, total[r]);
      }
    }
    for (int r = 0; r < M; ++r)
      out[r * ldo + n] = hsum512(total[r]);
  }
}

/// Group g of row n's 16 weights: (values - zero) * scale, values = -8..7.
TC_TARGET_AVX512 inline __m512 group_table(const Weight &w, __m512 values, int64_t n, int64_t g) {
  return _mm512_mul_ps(_mm512_sub_ps(values, _mm512_set1_ps(w.zero(n, g))),
                       _mm512_set1_ps(w.scale(n, g)));
}

/// The AVX-512 GEMV of a packed int4 weight (groups a multiple of 32) for M rows. Each group's
/// 16 possible weights, (nibble - 8 - zero) * scale rounded to float as PyTorch dequantizes,
/// form a table that vpermps indexes by the nibbles, so no group needs its own reduction: the
/// accumulators run along the whole row.
template <int M>
TC_TARGET_AVX512 void gemv_avx512_q4(const Weight &w, const float *x, int64_t n0, int64_t n1,
                                     float *out, int64_t ldo) {
  constexpr int U = M >= 4 ? 1 : 4 / M;
  constexpr int B = U >= 4 ? 2 : 1; // blocks per step: block i's halves use 2i, 2i + 1 (mod U)
  const int64_t k = w.k, blocks = k / 32, blocks_per_group = w.group_size / 32;
  const __m512 counting = _mm512_setr_ps(-8.f, -7.f, -6.f, -5.f, -4.f, -3.f, -2.f, -1.f, 0.f, 1.f,
                                         2.f, 3.f, 4.f, 5.f, 6.f, 7.f);
  for (int64_t n = n0; n < n1; ++n) {
    __m512 acc[M][U];
    for (int r = 0; r < M; ++r)
      for (int u = 0; u < U; ++u)
        acc[r][u] = _mm512_setzero_ps();
    const uint8_t *row = w.q4 + n * (k / 2);
    int64_t group = -1;
    __m512 table = _mm512_setzero_ps();
    int64_t b = 0;
    for (; b + B <= blocks; b += B)
      for (int i = 0; i < B; ++i) {
        if ((b + i) / blocks_per_group != group)
          table = group_table(w, counting, n, group = (b + i) / blocks_per_group);
        q4_block<M, U>(row + (b + i) * 16, x + (b + i) * 32, k, table, acc, (2 * i) % U,
                       (2 * i + 1) % U);
      }
    for (; b < blocks; ++b) {
      if (b / blocks_per_group != group)
        table = group_table(w, counting, n, group = b / blocks_per_group);
      q4_block<M, U>(row + b * 16, x + b * 32, k, table, acc, 0, 1 % U);
    }
    for (int r = 0; r < M; ++r) {
      __m512 sum = acc[r][0];
      for (int u = 1; u < U; ++u)
        sum = _mm512_add_ps(sum, acc[r][u]);
      out[r * ldo + n] = hsum512(sum);
    }
  }
}

TC_TARGET_AVX2 inline float hsum256(__m256 v) {
  __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  sum = _mm_add_ps(sum, _mm_movehl_ps(sum, sum));
  sum = _mm_add_ss(sum, _mm_movehdup_ps(sum));
  return _mm_cvtss_f32(sum);
}

template <int M>
TC_TARGET_AVX2 void gemv_avx2(const Weight &w, const float *x, int64_t n0, int64_t n1,
                              float *out, int64_t ldo) {
  const int64_t k = w.k, gs = w.group_size;
  const __m128i low_nibbles = _mm_set1_epi8(0x0F);
  for (int64_t n = n0; n < n1; ++n) {
    __m256 total[M];
    float tail_total[M];
    for (int r = 0; r < M; ++r) {
      total[r] = _mm256_setzero_ps();
      tail_total[r] = 0.f;
    }
    for (int64_t g = 0; g < w.groups; ++g) {
      const int64_t p0 = g * gs;
      const float zf = w.zero(n, g) + (w.q4 != nullptr ? 8.f : 0.f);
      const __m256 z = _mm256_set1_ps(zf);
      __m256 acc[M];
      float tail[M];
      for (int r = 0; r < M; ++r) {
        acc[r] = _mm256_setzero_ps();
        tail[r] = 0.f;
      }
      if (w.q4 != nullptr) {
        const uint8_t *row = w.q4 + n * (k / 2) + p0 / 2;
        for (int64_t p = 0; p < gs; p += 32) {
          const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(row + p / 2));
          const __m128i lo = _mm_and_si128(bytes, low_nibbles);
          const __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), low_nibbles);
          const __m128i parts[4] = {lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)};
          for (int part = 0; part < 4; ++part) {
            const __m256 wv =
                _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(parts[part])), z);
            for (int r = 0; r < M; ++r)
              acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(x + r * k + p0 + p + 8 * part), wv,
                                       acc[r]);
          }
        }
      } else {
        const int8_t *row = w.q8 + n * k + p0;
        int64_t p = 0;
        for (; p + 8 <= gs; p += 8) {
          const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i *>(row + p));
          const __m256 wv = _mm256_sub_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes)), z);
          for (int r = 0; r < M; ++r)
            acc[r] = _mm256_fmadd_ps(_mm256_loadu_ps(x + r * k + p0 + p), wv, acc[r]);
        }
        for (; p < gs; ++p) {
          const float weight = static_cast<float>(row[p]) - zf;
          for (int r = 0; r < M; ++r)
            tail[r] += x[r * k + p0 + p] * weight;
        }
      }
      const float scale = w.scale(n, g);
      const __m256 s = _mm256_set1_ps(scale);
      for (int r = 0; r < M; ++r) {
        total[r] = _mm256_fmadd_ps(acc[r], s, total[r]);
        tail_total[r] += tail[r] * scale;
      }
    }
    for (int r = 0; r < M; ++r)
      out[r * ldo + n] = hsum256(total[r]) + tail_total[r];
  }
}

} // namespace detail
#endif

/// The GEMV on `isa` (which must be available): m <= kGemvRows rows of x, features [n0, n1).
inline void gemv(Isa isa, const Weight &w, int64_t m, const float *x, int64_t n0, int64_t n1,
                 float *out, int64_t ldo) {
#if TC_QUANT_X86
  const bool vectorizable = w.q4 == nullptr || w.group_size % 32 == 0;
  if (vectorizable && isa == Isa::avx512) {
    switch (m) {
    case 1:
      return w.q4 != nullptr ? detail::gemv_avx512_q4<1>(w, x, n0, n1, out, ldo)
                             : detail::gemv_avx512<1>(w, x, n0, n1, out, ldo);
    case 2:
      return w.q4 != nullptr ? detail::gemv_avx512_q4<2>(w, x, n0, n1, out, ldo)
                             : detail::gemv_avx512<2>(w, x, n0, n1, out, ldo);
    case 3:
      return w.q4 != nullptr ? detail::gemv_avx512_q4<3>(w, x, n0, n1, out, ldo)
                             : detail::gemv_avx512<3>(w, x, n0, n1, out, ldo);
    case 4:
      return w.q4 != nullptr ? detail::gemv_avx512_q4<4>(w, x, n0, n1, out, ldo)
                             : detail::gemv_avx512<4>(w, x, n0, n1, out, ldo);
    default: break;
    }
  }
  if (vectorizable && isa == Isa::avx2) {
    switch (m) {
    case 1: return detail::gemv_avx2<1>(w, x, n0, n1, out, ldo);
    case 2: return detail::gemv_avx2<2>(w, x, n0, n1, out, ldo);
    case 3: return detail::gemv_avx2<3>(w, x, n0, n1, out, ldo);
    case 4: return detail::gemv_avx2<4>(w, x, n0, n1, out, ldo);
    default: break;
    }
  }
#else
  (void)isa;
#endif
  gemv_scalar(w, m, x, n0, n1, out, ldo);
}

/// W's rows [n0, n1) dequantized into dst [(n1 - n0), k] as PyTorch dequantizes:
/// (q - z) * s rounded to float. Plain loops over contiguous runs, which the compiler
/// vectorizes (tc::parallel_for's per-ISA clones).
inline void dequantize_rows(const Weight &w, int64_t n0, int64_t n1, float *dst) {
  const int64_t gs = w.group_size;
  for (int64_t n = n0; n < n1; ++n) {
    float *row = dst + (n - n0) * w.k;
    for (int64_t g = 0; g < w.groups; ++g) {
      const float z = w.zero(n, g), s = w.scale(n, g);
      float *out = row + g * gs;
      if (w.q8 != nullptr) {
        const int8_t *q = w.q8 + n * w.k + g * gs;
        for (int64_t p = 0; p < gs; ++p)
          out[p] = (static_cast<float>(q[p]) - z) * s;
        continue;
      }
      if (gs % 32 != 0) { // groups that split a packed block
        for (int64_t p = 0; p < gs; ++p)
          out[p] = (w.value(n, g * gs + p) - z) * s;
        continue;
      }
      const uint8_t *bytes = w.q4 + n * (w.k / 2) + g * gs / 2;
      const float offset = 8.f + z;
      for (int64_t b = 0; b < gs / 32; ++b)
        for (int64_t lane = 0; lane < 16; ++lane) {
          const uint8_t byte = bytes[b * 16 + lane];
          out[b * 32 + lane] = (static_cast<float>(byte & 15) - offset) * s;
          out[b * 32 + 16 + lane] = (static_cast<float>(byte >> 4) - offset) * s;
        }
    }
  }
}

/// x quantized per 32 inputs as ir/ops.def's linear_wq {dynamic_act} says: for each row and
/// block b, d = max|x_b| / 127 and xq = round_half_even(x * (1 / d)) (0 where d = 0), in
/// float. `correction[r * blocks + b]` = 8 * d * sum(xq) (the -8 of the stored nibbles).
struct QuantizedActivations {
  std::vector<int8_t> q;           ///< [rows, k]
  std::vector<float> d;            ///< [rows, k / 32]
  std::vector<float> d_lanes;      ///< [rows, k / 32, 8]: d repeated for the VNNI lanes
  std::vector<float> correction;   ///< [rows, k / 32]
  /// [rows, k / 4]: -8 * the sum of each 4 consecutive xq, the start of vpdpbusd's lane that
  /// sums those 4 products (so the lanes come out as sum (nibble - 8) * xq).
  std::vector<int32_t> lane_start;
};

inline QuantizedActivations quantize_activations(int64_t rows, int64_t k, const float *x) {
  QuantizedActivations a;
  const int64_t blocks = k / 32;
  a.q.resize(static_cast<size_t>(rows * k));
  a.d.resize(static_cast<size_t>(rows * blocks));
  a.d_lanes.resize(static_cast<size_t>(rows * blocks * 8));
  a.correction.resize(static_cast<size_t>(rows * blocks));
  a.lane_start.resize(static_cast<size_t>(rows * k / 4));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < blocks; ++b) {
      const float *xb = x + r * k + b * 32;
      float amax = 0.f;
      for (int64_t p = 0; p < 32; ++p)
        amax = std::max(amax, std::fabs(xb[p]));
      const float d = amax / 127.f;
      const float inverse = d != 0.f ? 1.f / d : 0.f;
      int32_t sum = 0;
      for (int64_t p = 0; p < 32; ++p) {
        const auto value = static_cast<int8_t>(std::nearbyint(xb[p] * inverse));
        a.q[static_cast<size_t>(r * k + b * 32 + p)] = value;
        sum += value;
      }
      const size_t at = static_cast<size_t>(r * blocks + b);
      a.d[at] = d;
      for (int64_t lane = 0; lane < 8; ++lane)
        a.d_lanes[at * 8 + static_cast<size_t>(lane)] = d;
      a.correction[at] = 8.f * d * static_cast<float>(sum);
    }
  for (size_t lane = 0; lane < a.lane_start.size(); ++lane)
    a.lane_start[lane] = -8 * (a.q[4 * lane] + a.q[4 * lane + 1] + a.q[4 * lane + 2] +
                               a.q[4 * lane + 3]);
  return a;
}

/// Row r of out for features [n0, n1) from the quantized activations: sum over blocks of
/// d * s * (sum nibble * xq) - s * correction, the integer sums exact.
inline void gemv_dynamic_scalar(const Weight &w, const QuantizedActivations &a, int64_t r,
                                int64_t n0, int64_t n1, float *out) {
  const int64_t k = w.k, blocks = k / 32;
  for (int64_t n = n0; n < n1; ++n) {
    float total = 0.f;
    for (int64_t b = 0; b < blocks; ++b) {
      const uint8_t *bytes = w.q4 + n * (k / 2) + b * 16;
      const int8_t *xq = a.q.data() + r * k + b * 32;
      int32_t sum = 0;
      for (int64_t lane = 0; lane < 16; ++lane)
        sum += (bytes[lane] & 15) * xq[lane] + (bytes[lane] >> 4) * xq[lane + 16];
      const size_t at = static_cast<size_t>(r * blocks + b);
      const float s = w.scale(n, b);
      total += a.d[at] * s * static_cast<float>(sum) - s * a.correction[at];
    }
    out[n] = total;
  }
}

#if TC_QUANT_X86
namespace detail {

/// gemv_dynamic_scalar with AVX-512 VNNI, two blocks (64 inputs) per step: the nibbles
/// unpacked to bytes in x's order, vpdpbusd against the int8 activations (lanes 0-7: the
/// first block, 8-15: the second) starting from -8 * the lane's activation sum, scaled per
/// lane by d * s. Needs k a multiple of 64.
TC_TARGET_AVX512_VNNI inline void gemv_dynamic_vnni(const Weight &w,
                                                    const QuantizedActivations &a, int64_t r,
                                                    int64_t n0, int64_t n1, float *out) {
  const int64_t k = w.k, blocks = k / 32;
  const __m512i low_nibbles = _mm512_set1_epi8(0x0F);
  const __m512i pair_index = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const int8_t *xq = a.q.data() + r * k;
  const float *d_lanes = a.d_lanes.data() + r * blocks * 8;
  const int32_t *lane_start = a.lane_start.data() + r * k / 4;
  for (int64_t n = n0; n < n1; ++n) {
    const uint8_t *row = w.q4 + n * (k / 2);
    const float *s = w.scales + n * w.groups;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t b = 0; b < blocks; b += 2) {
      // The 32 bytes in both halves; nibbles low in qwords 0-3, high in 4-7: 128-bit lanes
      // [lo0, lo1, hi0, hi1] -> [lo0, hi0, lo1, hi1], x's order. (maskz forms: GCC 12's
      // -Wmaybe-uninitialized, as widen_i8 says.)
      const __m512i bytes = _mm512_maskz_broadcast_i64x4(
          0xFF, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(row + b * 16)));
      const __m512i nibbles =
          _mm512_mask_blend_epi64(0xF0, _mm512_and_si512(bytes, low_nibbles),
                                  _mm512_and_si512(_mm512_srli_epi16(bytes, 4), low_nibbles));
      const __m512i weights = _mm512_maskz_shuffle_i64x2(0xFF, nibbles, nibbles, 0xD8);
      const __m512i xs = _mm512_loadu_si512(xq + b * 32);
      const __m512i dot = _mm512_dpbusd_epi32(_mm512_loadu_si512(lane_start + b * 8), weights, xs);
      const __m512 pair_scales = _mm512_maskz_permutexvar_ps(
          0xFFFF, pair_index,
          _mm512_zextps128_ps512(
              _mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i *>(s + b)))));
      const __m512 scale = _mm512_mul_ps(pair_scales, _mm512_loadu_ps(d_lanes + b * 8));
      const __m512 product = _mm512_maskz_cvtepi32_ps(0xFFFF, dot);
      acc = _mm512_fmadd_ps(product, scale, acc);
    }
    out[n] = hsum512(acc);
  }
}

} // namespace detail
#endif

/// Rows [0, rows) of out for features [n0, n1) from quantized activations, on `isa`.
inline void gemv_dynamic(Isa isa, const Weight &w, const QuantizedActivations &a, int64_t rows,
                         int64_t n0, int64_t n1, float *out, int64_t ldo) {
  for (int64_t r = 0; r < rows; ++r) {
#if TC_QUANT_X86
    if (isa_has_dot(isa) && w.k % 64 == 0) {
      detail::gemv_dynamic_vnni(w, a, r, n0, n1, out + r * ldo);
      continue;
    }
#else
    (void)isa;
#endif
    gemv_dynamic_scalar(w, a, r, n0, n1, out + r * ldo);
  }
}

/// Rows of x above which linear_wq dequantizes blocks of W and calls gemm.
constexpr int64_t kGemvMaxRows = 16;

/// out [rows, n] = x [rows, k] W^T + bias, on `isa` (tests pick one; linear_wq the best).
inline void linear_wq_float(Isa isa, int64_t rows, int64_t n, const float *x, const Weight &w,
                            float *out) {
  if (rows <= 0 || n <= 0)
    return;
  std::vector<float> fake_quantized;
  if (w.dynamic_act) {
    QuantizedActivations a = quantize_activations(rows, w.k, x);
    if (rows <= kGemvMaxRows) {
      tc::parallel_for(n, 32, [&](int64_t begin, int64_t end) {
        gemv_dynamic(isa, w, a, rows, begin, end, out, n);
      });
      return;
    }
    // Many rows: x replaced by xq * d, then the float path (equal within float rounding).
    fake_quantized.resize(static_cast<size_t>(rows * w.k));
    for (int64_t i = 0; i < rows * w.k; ++i)
      fake_quantized[static_cast<size_t>(i)] =
          static_cast<float>(a.q[static_cast<size_t>(i)]) * a.d[static_cast<size_t>(i / 32)];
    x = fake_quantized.data();
  }
  if (rows <= kGemvMaxRows) {
    tc::parallel_for(n, 32, [&](int64_t begin, int64_t end) {
      for (int64_t r = 0; r < rows; r += kGemvRows) {
        const int64_t m = rows - r < kGemvRows ? rows - r : kGemvRows;
        gemv(isa, w, m, x + r * w.k, begin, end, out + r * n, n);
      }
    });
    return;
  }
  constexpr int64_t kBlock = 256;
  const int64_t block = n < kBlock ? n : kBlock;
  std::vector<float> weights(static_cast<size_t>(block * w.k));
  std::vector<float> product(static_cast<size_t>(rows * block));
  for (int64_t n0 = 0; n0 < n; n0 += block) {
    const int64_t width = n - n0 < block ? n - n0 : block;
    tc::parallel_for(width, 8, [&](int64_t begin, int64_t end) {
      dequantize_rows(w, n0 + begin, n0 + end, weights.data() + begin * w.k);
    });
    gemm<float>(1, rows, width, w.k, x, 0, false, weights.data(), 0, true, 1.0, 0.0,
                product.data());
    for (int64_t r = 0; r < rows; ++r)
      std::memcpy(out + r * n + n0, product.data() + r * width,
                  static_cast<size_t>(width) * sizeof(float));
  }
}

} // namespace quant

/// linear_wq(x [rows, k], q, scales [n, groups], zeros? [n, groups], bias? [n]) -> out
/// [rows, n]: Q = int8_t for an int8 weight [n, k], uint8_t for packed int4 [n, k / 2].
/// zeros and bias may be nullptr. T and S are any floating types; the work is in float.
/// dynamic_act: x is quantized per 32 inputs and the products summed as integers (int4,
/// groups of 32, no zeros; ir/ops.def).
template <typename T, typename Q, typename S>
void linear_wq(int64_t rows, int64_t n, int64_t k, int64_t groups, const T *x, const Q *q,
               const S *scales, const S *zeros, const T *bias, T *out,
               bool dynamic_act = false) {
  static_assert(std::is_same<Q, int8_t>::value || std::is_same<Q, uint8_t>::value,
                "linear_wq weights are int8_t or packed uint8_t");
  auto as_float = [](const auto *values, int64_t count, std::vector<float> &storage) {
    using V = typename std::remove_cv<
        typename std::remove_pointer<decltype(values)>::type>::type;
    if constexpr (std::is_same<V, float>::value) {
      return values;
    } else {
      storage.resize(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i)
        storage[static_cast<size_t>(i)] = cast<float>(values[i]);
      return static_cast<const float *>(storage.data());
    }
  };
  std::vector<float> scale_storage, zero_storage, x_storage, out_storage;
  quant::Weight w;
  if constexpr (std::is_same<Q, int8_t>::value)
    w.q8 = q;
  else
    w.q4 = q;
  w.k = k;
  w.groups = groups;
  w.group_size = groups > 0 ? k / groups : 0;
  w.scales = as_float(scales, n * groups, scale_storage);
  w.zeros = zeros != nullptr ? as_float(zeros, n * groups, zero_storage) : nullptr;
  w.dynamic_act = dynamic_act;
  const float *xf = as_float(x, rows * k, x_storage);
  float *of = nullptr;
  if constexpr (std::is_same<T, float>::value) {
    of = out;
  } else {
    out_storage.resize(static_cast<size_t>(rows * n));
    of = out_storage.data();
  }
  quant::linear_wq_float(quant::best_isa(), rows, n, xf, w, of);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j) {
      float value = of[r * n + j];
      if (bias != nullptr)
        value += cast<float>(bias[j]);
      out[r * n + j] = cast<T>(value);
    }
}

/// (x - x_zero) * x_scale in float32 for `count` quantized activations, as PT2E's
/// dequantize_per_tensor rounds them: the float paths' input.
template <typename X>
std::vector<float> dequantized_input(const X *x, int64_t count, double x_scale,
                                     int64_t x_zero) {
  const auto scale = static_cast<float>(x_scale);
  std::vector<float> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    values[static_cast<size_t>(i)] =
        static_cast<float>(static_cast<int64_t>(x[i]) - x_zero) * scale;
  return values;
}

/// linear_wq {x_scale, x_zero}: x [rows, k] u8 or i8 is a statically quantized activation
/// standing for (x - x_zero) * x_scale; out and bias have the scales' type S. An int8 weight
/// with one float scale per output feature and no zeros runs the integer GEMM
/// (tc_kernels_qgemm.h; q_packed: q is already in its packed layout, as thunderc stores a
/// weight only such layers read); anything else -- and any layer on a CPU without VNNI or AMX
/// (qgemm::integer_gemm_preferred), the weight unpacked -- dequantizes x to float and runs
/// linear_wq.
template <typename X, typename Q, typename S>
void linear_wq_qx(int64_t rows, int64_t n, int64_t k, int64_t groups, const X *x,
                  double x_scale, int64_t x_zero, const Q *q, const S *scales, const S *zeros,
                  const S *bias, S *out, bool q_packed = false) {
  static_assert(std::is_same<X, uint8_t>::value || std::is_same<X, int8_t>::value,
                "a quantized activation is uint8_t or int8_t");
  if (rows <= 0 || n <= 0)
    return;
  std::vector<int8_t> unpacked;
  if constexpr (std::is_same<Q, int8_t>::value && std::is_same<S, float>::value) {
    q = qgemm::unpacked_unless_preferred(n, k, q, q_packed, unpacked);
    if (q_packed || (groups == 1 && zeros == nullptr && k <= qgemm::kMaxDepth &&
                     qgemm::integer_gemm_preferred())) {
      std::vector<int8_t> packing;
      const int8_t *packed = qgemm::packed_weight(n, k, q, q_packed, packing);
      qgemm::linear(qgemm::best_kernel(), rows, n, k, x, static_cast<float>(x_scale),
                    static_cast<int32_t>(x_zero), packed, scales, bias, out);
      return;
    }
  }
  const std::vector<float> xf = dequantized_input(x, rows * k, x_scale, x_zero);
  std::vector<float> bf, of(static_cast<size_t>(rows * n));
  if (bias != nullptr) {
    bf.resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j)
      bf[static_cast<size_t>(j)] = cast<float>(bias[j]);
  }
  linear_wq<float, Q, S>(rows, n, k, groups, xf.data(), q, scales, zeros,
                         bias != nullptr ? bf.data() : nullptr, of.data());
  for (int64_t i = 0; i < rows * n; ++i)
    out[i] = cast<S>(of[static_cast<size_t>(i)]);
}

/// conv2d_wq (ir/ops.def): conv2d of x [N, C, H, W] (u8 or i8, standing for
/// (x - x_zero) * x_scale) with W[o] = (q[o] - zeros[o]) * scales[o], q [O, C/groups, KH, KW],
/// plus bias; y [N, O, OH, OW] of the scales' type S. An int8 weight with float scales, no
/// zeros and one group is an integer GEMM per image (tc_kernels_qgemm.h): the rows are the
/// output pixels, each gathering its C * KH * KW inputs as unsigned bytes (padding reads the
/// zero point: a dequantized 0; gathered tap by tap for blocks of 64 pixels), the columns the
/// output channels (q as [O, C * KH * KW], pre-packed by thunderc when q_packed); the GEMM
/// writes each block of the [pixels, O] product transposed into y [O, pixels].
/// Anything else -- and any layer on a CPU without VNNI or AMX, the weight unpacked --
/// dequantizes x and the weight and runs conv2d in float.
template <typename X, typename Q, typename S>
void conv2d_wq(const X *x, int64_t N, int64_t C, int64_t H, int64_t W, double x_scale,
               int64_t x_zero, const Q *q, int64_t O, int64_t KH, int64_t KW, const S *scales,
               const S *zeros, const S *bias, int64_t stride_h, int64_t stride_w, int64_t pad_h,
               int64_t pad_w, int64_t dil_h, int64_t dil_w, int64_t groups, S *y, int64_t OH,
               int64_t OW, bool q_packed = false) {
  static_assert(std::is_same<X, uint8_t>::value || std::is_same<X, int8_t>::value,
                "a quantized activation is uint8_t or int8_t");
  if (N <= 0 || O <= 0 || OH <= 0 || OW <= 0)
    return;
  const int64_t taps = C / groups * KH * KW;
  const int64_t pixels = OH * OW;
  std::vector<int8_t> unpacked;
  if constexpr (std::is_same<Q, int8_t>::value && std::is_same<S, float>::value) {
    q = qgemm::unpacked_unless_preferred(O, taps, q, q_packed, unpacked);
    if (q_packed || (groups == 1 && zeros == nullptr && taps <= qgemm::kMaxDepth &&
                     qgemm::integer_gemm_preferred())) {
      std::vector<int8_t> packing;
      const int8_t *packed = qgemm::packed_weight(O, taps, q, q_packed, packing);
      const qgemm::Kernel kernel = qgemm::kernel_for(qgemm::best_kernel(), pixels);
      constexpr int32_t offset = qgemm::unsigned_offset<X>();
      const auto pad_byte = static_cast<uint8_t>(x_zero + offset);
      const int64_t ldu = qgemm::row_bytes(kernel, taps);
      std::vector<uint8_t> u(static_cast<size_t>(qgemm::padded_rows(kernel, pixels) * ldu), 0);
      const std::vector<float> scale =
          qgemm::combined_scales(O, static_cast<float>(x_scale), scales);
      constexpr int64_t kBlock = 64; // output pixels gathered together
      for (int64_t n = 0; n < N; ++n) {
        const X *image = x + n * C * H * W;
        const int64_t blocks = (pixels + kBlock - 1) / kBlock;
        tc::parallel_for(blocks, 1, [&](int64_t begin, int64_t end) {
          // A block's pixels as runs along output rows: (first pixel, length, oh, first ow).
          int64_t runs[kBlock][4];
          for (int64_t r0 = begin * kBlock; r0 < end * kBlock && r0 < pixels; r0 += kBlock) {
            const int64_t count = pixels - r0 < kBlock ? pixels - r0 : kBlock;
            int64_t num_runs = 0;
            for (int64_t i = 0; i < count;) {
              const int64_t oh = (r0 + i) / OW, ow = (r0 + i) % OW;
              const int64_t length = count - i < OW - ow ? count - i : OW - ow;
              runs[num_runs][0] = i;
              runs[num_runs][1] = length;
              runs[num_runs][2] = oh;
              runs[num_runs][3] = ow;
              ++num_runs;
              i += length;
            }
            // Tap by tap over the block's pixels: the reads walk an input row, the writes
            // stay in the block's rows of u (L1); bounds are checked once per run.
            for (int64_t c = 0; c < C; ++c)
              for (int64_t kh = 0; kh < KH; ++kh)
                for (int64_t kw = 0; kw < KW; ++kw) {
                  const int64_t p = (c * KH + kh) * KW + kw;
                  const int64_t shift = kw * dil_w - pad_w; // iw = ow * stride_w + shift
                  for (int64_t run = 0; run < num_runs; ++run) {
                    const int64_t first = runs[run][0], length = runs[run][1];
                    const int64_t ih = runs[run][2] * stride_h - pad_h + kh * dil_h;
                    const int64_t ow0 = runs[run][3];
                    uint8_t *dst = u.data() + (r0 + first) * ldu + p;
                    // Pixels [lo, hi) of the run read inside the row.
                    int64_t lo = 0, hi = 0;
                    if (ih >= 0 && ih < H) {
                      const int64_t need = -shift - ow0 * stride_w; // iw >= 0
                      lo = need <= 0 ? 0 : (need + stride_w - 1) / stride_w;
                      const int64_t room = W - 1 - shift - ow0 * stride_w; // iw <= W - 1
                      hi = room < 0 ? 0 : room / stride_w + 1;
                      lo = lo < length ? lo : length;
                      hi = hi < length ? hi : length;
                      hi = hi < lo ? lo : hi;
                    }
                    for (int64_t i = 0; i < lo; ++i)
                      dst[i * ldu] = pad_byte;
                    if (lo < hi) {
                      const X *src = image + (c * H + ih) * W + ow0 * stride_w + shift;
                      for (int64_t i = lo; i < hi; ++i)
                        dst[i * ldu] = static_cast<uint8_t>(
                            static_cast<int32_t>(src[i * stride_w]) + offset);
                    }
                    for (int64_t i = hi; i < length; ++i)
                      dst[i * ldu] = pad_byte;
                  }
                }
          }
        });
        qgemm::gemm_u8s8(kernel, pixels, O, taps, u.data(), ldu,
                         static_cast<int32_t>(x_zero) + offset, packed, scale.data(), bias,
                         y + n * O * pixels, pixels);
      }
      return;
    }
  }
  // Dequantized as PT2E's dequantize ops round them, then the float convolution.
  const std::vector<float> xf = dequantized_input(x, N * C * H * W, x_scale, x_zero);
  std::vector<float> wf(static_cast<size_t>(O * taps)), bf;
  for (int64_t o = 0; o < O; ++o) {
    const float s = cast<float>(scales[o]);
    const float z = zeros != nullptr ? cast<float>(zeros[o]) : 0.f;
    for (int64_t t = 0; t < taps; ++t)
      wf[static_cast<size_t>(o * taps + t)] = (static_cast<float>(q[o * taps + t]) - z) * s;
  }
  if (bias != nullptr) {
    bf.resize(static_cast<size_t>(O));
    for (int64_t o = 0; o < O; ++o)
      bf[static_cast<size_t>(o)] = cast<float>(bias[o]);
  }
  std::vector<float> workspace(
      static_cast<size_t>(conv2d_workspace_size(C, KH, KW, OH, OW, groups)) + 1);
  std::vector<float> out(static_cast<size_t>(N * O * pixels));
  conv2d<float>(xf.data(), N, C, H, W, wf.data(), O, KH, KW,
                bias != nullptr ? bf.data() : nullptr, stride_h, stride_w, pad_h, pad_w, dil_h,
                dil_w, groups, out.data(), OH, OW, workspace.data());
  for (size_t i = 0; i < out.size(); ++i)
    y[i] = cast<S>(out[i]);
}

} // namespace tc
