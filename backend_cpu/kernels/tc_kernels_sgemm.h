// The bundle's own float GEMM for x86 CPUs with AVX-512: gemm<float> (tc_kernels_linalg.h)
// calls it instead of the BLAS library where the CPU has AVX-512F, whatever the BLAS library
// was told (OpenBLAS with OPENBLAS_CORETYPE=Haswell runs AVX2 kernels on AVX-512 machines) and
// whether or not a BLAS was found at build time. Compiled for AVX-512 with target attributes
// and chosen at run time, so a bundle built with plain -O2 still reaches it.
//
// GotoBLAS's blocking: for each block of kKc inner indices and kNc columns, B is packed into
// panels of kNr = 32 columns ([kKc][32], zero-padded past n; an L2-resident block), kMr = 12
// rows of a row-major A are read in place (a transposed A is packed into a [kKc][12]
// micro-panel), and the micro-kernel keeps the 12 x 32 block of C in 24 zmm registers: per inner index two loads of B, twelve broadcasts of A and 24 FMAs.
// Sums are float, in ascending k within a block and block after block (like cblas_sgemm); with
// at most 7 rows, a block's inner indices go round-robin to 2-8 partial sums added pairwise.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) &&  \
    !defined(__CUDACC__)
#define TC_SGEMM_X86 1
#include <immintrin.h>
#define TC_TARGET_SGEMM_AVX512 __attribute__((target("avx512f,fma")))
#else
#define TC_SGEMM_X86 0
#endif

namespace tc {
namespace sgemm {

constexpr int kMr = 12;
constexpr int kNr = 32;
constexpr int64_t kKc = 256;
constexpr int64_t kNc = 256;

/// A B packed whole, once (a weight, at compile time): for each block of kKc inner indices
/// (p0 = 0, kKc, ...; the last may be shorter, kc = min(kKc, k - p0)), ceil(n / 32) panels of
/// [kc][32] columns, zero past n. The panel of columns [32 q, 32 q + 32) of the block at p0
/// starts at p0 * padded_columns(n) + q * kc * 32. The layout is the same for every ISA.
inline int64_t padded_columns(int64_t n) { return (n + kNr - 1) / kNr * kNr; }
inline int64_t packed_b_floats(int64_t n, int64_t k) { return k * padded_columns(n); }

/// Writes B (B(p, j) = b[p * ldb + j], or b[j * ldb + p] with trans_b) in that layout to out
/// (packed_b_floats(n, k) floats). Plain C++: thunderc runs it when it writes weights.bin
/// (through pack_b_whole, which takes the AVX-512 packer where the CPU has it).
template <typename Src>
inline void pack_b_whole_portable(int64_t n, int64_t k, const Src *b, bool trans_b, int64_t ldb,
                                  float *out) {
  const int64_t padded = padded_columns(n);
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    const int64_t kc = k - p0 < kKc ? k - p0 : kKc;
    for (int64_t panel = 0; panel * kNr < padded; ++panel) {
      float *dst = out + p0 * padded + panel * kc * kNr;
      const int64_t first = panel * kNr;
      const int64_t cols = n - first < kNr ? n - first : kNr;
      if (cols < kNr)
        for (int64_t i = 0; i < kc * kNr; ++i)
          dst[i] = 0.0f;
      if (trans_b) {
        // Column j of B is row j of the stored [n, k]: read along it, write down the panel.
        for (int64_t l = 0; l < cols; ++l) {
          const Src *src = b + (first + l) * ldb + p0;
          for (int64_t p = 0; p < kc; ++p)
            dst[p * kNr + l] = static_cast<float>(src[p]);
        }
      } else {
        for (int64_t p = 0; p < kc; ++p) {
          const Src *src = b + (p0 + p) * ldb + first;
          for (int64_t l = 0; l < cols; ++l)
            dst[p * kNr + l] = static_cast<float>(src[l]);
        }
      }
    }
  }
}

/// Whether this CPU has the AVX-512 kernel's instructions (AVX-512F and FMA).
inline bool avx512_available() {
#if TC_SGEMM_X86
  static const bool available =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return available;
#else
  return false;
#endif
}

/// Whether gemm<float> uses this GEMM: on a CPU with AVX-512, unless the environment says
/// TC_SGEMM=blas (to compare against the BLAS library) or a test turned it off.
inline bool &enabled_flag() {
  static bool enabled = [] {
    const char *choice = std::getenv("TC_SGEMM");
    return avx512_available() && !(choice && std::strcmp(choice, "blas") == 0);
  }();
  return enabled;
}
inline bool enabled() { return enabled_flag(); }
/// Turns the AVX-512 GEMM on (where the CPU has it) or off; returns the previous setting.
inline bool set_enabled(bool on) {
  bool previous = enabled_flag();
  enabled_flag() = on && avx512_available();
  return previous;
}

/// kMr rows [i0, i0 + rows) of A at inner indices [p0, p0 + kc) as [kc][kMr], rows past `rows`
/// zero. A(i, p) is a[i * lda + p], or a[p * lda + i] with trans_a.
inline void pack_a(int64_t kc, int rows, const float *a, bool trans_a, int64_t lda, int64_t i0,
                   int64_t p0, float *out) {
  for (int64_t p = 0; p < kc; ++p)
    for (int r = 0; r < kMr; ++r)
      out[p * kMr + r] = r >= rows ? 0.0f
                         : trans_a ? a[(p0 + p) * lda + i0 + r]
                                   : a[(i0 + r) * lda + p0 + p];
}

#if TC_SGEMM_X86
/// Transposes 16 rows of 16 floats in registers (rows[i][j] -> rows[j][i]).
TC_TARGET_SGEMM_AVX512 inline void transpose16(__m512 rows[16]) {
  // The all-ones maskz forms: GCC 12 warns of the unmasked ones' undefined pass-through
  // operand, an error in -Werror bundle builds.
  const __mmask16 all = 0xFFFF;
  const __mmask8 all8 = 0xFF;
  __m512 t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_maskz_unpacklo_ps(all, rows[2 * i], rows[2 * i + 1]);
    t[2 * i + 1] = _mm512_maskz_unpackhi_ps(all, rows[2 * i], rows[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    const __m512d a = _mm512_castps_pd(t[4 * i]), b = _mm512_castps_pd(t[4 * i + 1]);
    const __m512d c = _mm512_castps_pd(t[4 * i + 2]), d = _mm512_castps_pd(t[4 * i + 3]);
    rows[4 * i] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, a, c));
    rows[4 * i + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, a, c));
    rows[4 * i + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, b, d));
    rows[4 * i + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, b, d));
  }
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j) {
      const __m512 low = rows[8 * i + j], high = rows[8 * i + 4 + j];
      t[8 * i + j] = _mm512_maskz_shuffle_f32x4(all, low, high, 0x88);
      t[8 * i + 4 + j] = _mm512_maskz_shuffle_f32x4(all, low, high, 0xdd);
    }
  for (int j = 0; j < 8; ++j) {
    rows[j] = _mm512_maskz_shuffle_f32x4(all, t[j], t[j + 8], 0x88);
    rows[j + 8] = _mm512_maskz_shuffle_f32x4(all, t[j], t[j + 8], 0xdd);
  }
}

/// The first `count` (0..16) lanes set.
inline __mmask16 lanes(int64_t count) {
  return count >= 16  ? __mmask16(0xFFFF)
         : count <= 0 ? __mmask16(0)
                      : __mmask16((1u << count) - 1u);
}

/// One block of B: columns [j0, j0 + nc) of inner indices [p0, p0 + kc), as ceil(nc / 32)
/// panels of [kc][32], columns past nc zero. B(p, j) is b[p * ldb + j], or b[j * ldb + p] with
/// trans_b (a Linear weight [n, k]: 16 x 16 tiles transposed in registers).
TC_TARGET_SGEMM_AVX512 inline void pack_b(int64_t kc, int64_t nc, const float *b, bool trans_b,
                                          int64_t ldb, int64_t p0, int64_t j0, float *out) {
  for (int64_t panel = 0; panel * kNr < nc; ++panel) {
    float *dst = out + panel * kc * kNr;
    const int64_t first = j0 + panel * kNr;
    const int64_t cols = nc - panel * kNr < kNr ? nc - panel * kNr : kNr;
    if (!trans_b) {
      const __mmask16 low = lanes(cols), high = lanes(cols - 16);
      for (int64_t p = 0; p < kc; ++p) {
        const float *src = b + (p0 + p) * ldb + first;
        _mm512_storeu_ps(dst + p * kNr, _mm512_maskz_loadu_ps(low, src));
        _mm512_storeu_ps(dst + p * kNr + 16, _mm512_maskz_loadu_ps(high, src + 16));
      }
      continue;
    }
    for (int64_t p = 0; p < kc; p += 16) {
      const __mmask16 depth = lanes(kc - p);
      const int64_t steps = kc - p < 16 ? kc - p : 16;
      for (int half = 0; half < 2; ++half) {
        __m512 rows[16];
        for (int i = 0; i < 16; ++i) {
          const int64_t column = half * 16 + i;
          const float *src = b + (first + column) * ldb + p0 + p;
          rows[i] = column < cols ? _mm512_maskz_loadu_ps(depth, src) : _mm512_setzero_ps();
        }
        transpose16(rows);
        for (int64_t q = 0; q < steps; ++q)
          _mm512_storeu_ps(dst + (p + q) * kNr + half * 16, rows[q]);
      }
    }
  }
}

/// One inner index p of kernel_avx512: R broadcasts of A, two loads of B, 2R FMAs into `acc`.
template <bool kPackedA, int R>
TC_TARGET_SGEMM_AVX512 __attribute__((always_inline)) inline void
kernel_step(__m512 (&acc)[R][2], const float *a, int64_t lda, const float *bp, int64_t p) {
  const __m512 b0 = _mm512_loadu_ps(bp + p * kNr);
  const __m512 b1 = _mm512_loadu_ps(bp + p * kNr + 16);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    const __m512 av = _mm512_set1_ps(kPackedA ? a[p * kMr + r] : a[r * lda + p]);
    acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
    acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
  }
}

/// C[R, cols] (row stride ldc) gets alpha * A @ Bp over kc inner indices: = that + beta * C
/// on the first inner block (C not read when beta == 0), += that on the later ones. A is a
/// packed [kc][kMr] micro-panel (kPackedA, R == kMr, rows past `rows` not stored), or R whole
/// rows of a row-major A (row stride lda).
template <bool kPackedA, int R>
TC_TARGET_SGEMM_AVX512 inline void kernel_avx512(int64_t kc, const float *a, int64_t lda,
                                                 const float *bp, float *c, int64_t ldc, int rows,
                                                 int cols, float alpha, float beta, bool first) {
  // Few rows (decode steps) leave registers free: the inner indices are dealt round-robin to
  // kChains independent partial sums, added pairwise at the end -- shorter FMA dependency
  // chains, and the rounding error of a dot product of length kc grows with kc / kChains
  // instead of kc (the accuracy of a lane-split GEMV).
  constexpr int kChains = R == 1 ? 8 : R <= 3 ? 4 : R <= 7 ? 2 : 1;
  __m512 acc[kChains][R][2];
#pragma GCC unroll 8
  for (int chain = 0; chain < kChains; ++chain)
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      acc[chain][r][0] = _mm512_setzero_ps();
      acc[chain][r][1] = _mm512_setzero_ps();
    }
  int64_t p = 0;
  if constexpr (kChains == 1) {
#pragma GCC unroll 2
    for (; p < kc; ++p)
      kernel_step<kPackedA, R>(acc[0], a, lda, bp, p);
  } else {
    for (; p + kChains <= kc; p += kChains)
#pragma GCC unroll 8
      for (int chain = 0; chain < kChains; ++chain)
        kernel_step<kPackedA, R>(acc[chain], a, lda, bp, p + chain);
    for (int chain = 0; p < kc; ++p, ++chain)
      kernel_step<kPackedA, R>(acc[chain], a, lda, bp, p);
#pragma GCC unroll 3
    for (int width = kChains / 2; width >= 1; width /= 2)
#pragma GCC unroll 4
      for (int chain = 0; chain < width; ++chain)
#pragma GCC unroll 12
        for (int r = 0; r < R; ++r) {
          acc[chain][r][0] = _mm512_add_ps(acc[chain][r][0], acc[chain + width][r][0]);
          acc[chain][r][1] = _mm512_add_ps(acc[chain][r][1], acc[chain + width][r][1]);
        }
  }
  const __mmask16 mask0 = lanes(cols), mask1 = lanes(cols - 16);
  const __m512 alphas = _mm512_set1_ps(alpha);
  const bool read_c = !first || beta != 0.0f;
  const __m512 c_scale = _mm512_set1_ps(first ? beta : 1.0f);
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    if (r >= rows)
      break;
    float *row = c + r * ldc;
    __m512 v0 = _mm512_mul_ps(alphas, acc[0][r][0]);
    __m512 v1 = _mm512_mul_ps(alphas, acc[0][r][1]);
    if (read_c) {
      v0 = _mm512_fmadd_ps(c_scale, _mm512_maskz_loadu_ps(mask0, row), v0);
      v1 = _mm512_fmadd_ps(c_scale, _mm512_maskz_loadu_ps(mask1, row + 16), v1);
    }
    _mm512_mask_storeu_ps(row, mask0, v0);
    _mm512_mask_storeu_ps(row + 16, mask1, v1);
  }
}

/// One 32-column panel for rows [i0, i0 + rows) (rows <= kMr): a row-major A is read in place
/// by the kernel for exactly that many rows (12 rows of A stay in L1 across the panels); a
/// transposed A is packed into `packed_a` once per row block (`pack` says whether to pack).
TC_TARGET_SGEMM_AVX512 inline void panel_avx512(int64_t kc, int rows, const float *a,
                                                bool trans_a, int64_t lda, int64_t i0, int64_t p0,
                                                float *packed_a, bool pack, const float *bp,
                                                float *c, int64_t ldc, int cols, float alpha,
                                                float beta, bool first) {
  if (trans_a) {
    if (pack)
      pack_a(kc, rows, a, true, lda, i0, p0, packed_a);
    kernel_avx512<true, kMr>(kc, packed_a, kMr, bp, c, ldc, rows, cols, alpha, beta, first);
    return;
  }
  const float *rows_a = a + i0 * lda + p0;
  switch (rows) {
#define TC_SGEMM_ROWS(R)                                                                        \
  case R:                                                                                       \
    return kernel_avx512<false, R>(kc, rows_a, lda, bp, c, ldc, R, cols, alpha, beta, first);
    TC_SGEMM_ROWS(1)
    TC_SGEMM_ROWS(2)
    TC_SGEMM_ROWS(3)
    TC_SGEMM_ROWS(4)
    TC_SGEMM_ROWS(5)
    TC_SGEMM_ROWS(6)
    TC_SGEMM_ROWS(7)
    TC_SGEMM_ROWS(8)
    TC_SGEMM_ROWS(9)
    TC_SGEMM_ROWS(10)
    TC_SGEMM_ROWS(11)
    TC_SGEMM_ROWS(12)
#undef TC_SGEMM_ROWS
  default:
    return;
  }
}

/// Per-thread packing buffers, 64-byte aligned, grown on demand and kept for the next call.
inline float *scratch(int which, int64_t floats) {
  struct Buffer {
    float *data = nullptr;
    int64_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffers[2];
  Buffer &buffer = buffers[which];
  if (buffer.size < floats) {
    std::free(buffer.data);
    const size_t bytes = static_cast<size_t>((floats * 4 + 63) / 64 * 64);
    buffer.data = static_cast<float *>(std::aligned_alloc(64, bytes));
    buffer.size = buffer.data ? floats : 0;
  }
  return buffer.data;
}

/// C[m, n] (row stride ldc) = alpha * op(A) @ op(B) + beta * C (C not read when beta == 0),
/// single-threaded, k > 0; op(A) is [m, k] (stored [k, m] with trans_a, row stride lda), op(B)
/// [k, n] (stored [n, k] with trans_b, row stride ldb). Returns false (nothing written) when
/// the packing buffers cannot be allocated; the caller then runs its other GEMM.
TC_TARGET_SGEMM_AVX512 inline bool gemm_avx512(int64_t m, int64_t n, int64_t k, const float *a,
                                               bool trans_a, int64_t lda, const float *b,
                                               bool trans_b, int64_t ldb, float alpha,
                                               float beta, float *c, int64_t ldc) {
  float *packed_b = scratch(0, kKc * kNc);
  float *packed_a = scratch(1, kKc * kMr);
  if (!packed_b || !packed_a)
    return false;
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    const int64_t kc = k - p0 < kKc ? k - p0 : kKc;
    for (int64_t j0 = 0; j0 < n; j0 += kNc) {
      const int64_t nc = n - j0 < kNc ? n - j0 : kNc;
      pack_b(kc, nc, b, trans_b, ldb, p0, j0, packed_b);
      for (int64_t i0 = 0; i0 < m; i0 += kMr) {
        const int rows = static_cast<int>(m - i0 < kMr ? m - i0 : kMr);
        for (int64_t panel = 0; panel * kNr < nc; ++panel) {
          const int cols = static_cast<int>(nc - panel * kNr < kNr ? nc - panel * kNr : kNr);
          panel_avx512(kc, rows, a, trans_a, lda, i0, p0, packed_a, panel == 0,
                       packed_b + panel * kc * kNr, c + i0 * ldc + j0 + panel * kNr, ldc, cols,
                       alpha, beta, p0 == 0);
        }
      }
    }
  }
  return true;
}

/// Columns [j_begin, j_end) of C[m, n] (row stride ldc) = alpha * A @ B + beta * C with A
/// row-major [m, k] (row stride lda) and B packed whole beforehand (pack_b_whole of the full
/// n columns): no packing at all. j_begin is a multiple of 32.
TC_TARGET_SGEMM_AVX512 inline void gemm_packed_avx512(int64_t m, int64_t n, int64_t k,
                                                      const float *a, int64_t lda,
                                                      const float *packed, float alpha,
                                                      float beta, float *c, int64_t ldc,
                                                      int64_t j_begin, int64_t j_end) {
  const int64_t padded = padded_columns(n);
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    const int64_t kc = k - p0 < kKc ? k - p0 : kKc;
    for (int64_t j0 = j_begin; j0 < j_end; j0 += kNc) {
      const int64_t nc = j_end - j0 < kNc ? j_end - j0 : kNc;
      const float *block_b = packed + p0 * padded + j0 * kc;
      for (int64_t i0 = 0; i0 < m; i0 += kMr) {
        const int rows = static_cast<int>(m - i0 < kMr ? m - i0 : kMr);
        for (int64_t panel = 0; panel * kNr < nc; ++panel) {
          const int cols = static_cast<int>(nc - panel * kNr < kNr ? nc - panel * kNr : kNr);
          panel_avx512(kc, rows, a, false, lda, i0, p0, nullptr, false,
                       block_b + panel * kc * kNr, c + i0 * ldc + j0 + panel * kNr, ldc, cols,
                       alpha, beta, p0 == 0);
        }
      }
    }
  }
}
#else
inline bool gemm_avx512(int64_t, int64_t, int64_t, const float *, bool, int64_t, const float *,
                        bool, int64_t, float, float, float *, int64_t) {
  return false;
}
inline void gemm_packed_avx512(int64_t, int64_t, int64_t, const float *, int64_t, const float *,
                               float, float, float *, int64_t, int64_t, int64_t) {}
#endif

/// pack_b_whole_portable's result, from the run-time packer (pack_b: 16 x 16 register
/// transposes for a Linear weight) for float on CPUs with AVX-512.
template <typename Src>
inline void pack_b_whole(int64_t n, int64_t k, const Src *b, bool trans_b, int64_t ldb,
                         float *out) {
#if TC_SGEMM_X86
  if constexpr (std::is_same<Src, float>::value) {
    if (avx512_available()) {
      const int64_t padded = padded_columns(n);
      for (int64_t p0 = 0; p0 < k; p0 += kKc)
        pack_b(k - p0 < kKc ? k - p0 : kKc, n, b, trans_b, ldb, p0, 0, out + p0 * padded);
      return;
    }
  }
#endif
  pack_b_whole_portable(n, k, b, trans_b, ldb, out);
}

/// gemm_packed_avx512's contract in plain C++ for CPUs without AVX-512: four rows of C against
/// one 32-column panel at a time, in lanes the compiler vectorizes (the bundle's CPU clones
/// give it AVX2 where the CPU has it).
inline void gemm_packed_portable(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
                                 const float *packed, float alpha, float beta, float *c,
                                 int64_t ldc, int64_t j_begin, int64_t j_end) {
  const int64_t padded = padded_columns(n);
  for (int64_t p0 = 0; p0 < k; p0 += kKc) {
    const int64_t kc = k - p0 < kKc ? k - p0 : kKc;
    const bool first = p0 == 0;
    for (int64_t j0 = j_begin; j0 < j_end; j0 += kNr) {
      const float *bp = packed + p0 * padded + j0 * kc;
      const int64_t cols = j_end - j0 < kNr ? j_end - j0 : kNr;
      for (int64_t i0 = 0; i0 < m; i0 += 4) {
        const int64_t rows = m - i0 < 4 ? m - i0 : 4;
        float acc[4][kNr] = {};
        for (int64_t p = 0; p < kc; ++p) {
          const float *b_row = bp + p * kNr;
          for (int64_t r = 0; r < 4; ++r) {
            const float av = r < rows ? a[(i0 + r) * lda + p0 + p] : 0.0f;
            for (int64_t l = 0; l < kNr; ++l)
              acc[r][l] += av * b_row[l];
          }
        }
        for (int64_t r = 0; r < rows; ++r) {
          float *row = c + (i0 + r) * ldc + j0;
          for (int64_t l = 0; l < cols; ++l) {
            float value = alpha * acc[r][l];
            if (!first)
              value += row[l];
            else if (beta != 0.0f)
              value += beta * row[l];
            row[l] = value;
          }
        }
      }
    }
  }
}

} // namespace sgemm
} // namespace tc
