// CPU kernels for GEMM and convolution. gemm<float> runs the bundle's own AVX-512 GEMM
// (tc_kernels_sgemm.h) on CPUs that have AVX-512, else cblas_sgemm; gemm<double> calls
// cblas_dgemm -- the CBLAS calls when the bundle is built with TC_USE_CBLAS (then <cblas.h>
// must be on the include path); otherwise, and always for f16/bf16 and integers, gemm runs
// plain loops accumulating in double. gemm_packed multiplies by a weight thunderc stored
// pre-packed in weights.bin. conv2d lowers to im2col + gemm, conv_transpose2d to gemm + col2im.
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(TC_USE_CBLAS)
#include <cblas.h>
#endif

#include "tc_kernels_common.h"
#include "tc_kernels_sgemm.h"
#include "tc_math.h"
#include "tc_parallel.h"

namespace tc {

/// The loop form of gemm (same contract), for every T; gemm uses it when no BLAS applies.
/// Each output is an exact double sum over k in ascending order, rounded once to T. Walks n
/// in stack-held blocks so that B and C are read row by row.
template <typename T>
void gemm_loops(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a, int64_t a_batch_stride,
                bool trans_a, const T *b, int64_t b_batch_stride, bool trans_b, double alpha,
                double beta, T *c) {
  constexpr int64_t kBlock = 64;
  for (int64_t batch_index = 0; batch_index < batch; ++batch_index) {
    const T *a_matrix = a + batch_index * a_batch_stride;
    const T *b_matrix = b + batch_index * b_batch_stride;
    T *c_matrix = c + batch_index * m * n;
    for (int64_t i = 0; i < m; ++i) {
      T *c_row = c_matrix + i * n;
      for (int64_t j0 = 0; j0 < n; j0 += kBlock) {
        int64_t width = detail::min_count(kBlock, n - j0);
        double sums[kBlock] = {};
        for (int64_t p = 0; p < k; ++p) {
          double a_value = cast<double>(trans_a ? a_matrix[p * m + i] : a_matrix[i * k + p]);
          if (trans_b) {
            const T *b_column = b_matrix + j0 * k + p;
            for (int64_t j = 0; j < width; ++j)
              sums[j] += a_value * cast<double>(b_column[j * k]);
          } else {
            const T *b_row = b_matrix + p * n + j0;
            for (int64_t j = 0; j < width; ++j)
              sums[j] += a_value * cast<double>(b_row[j]);
          }
        }
        for (int64_t j = 0; j < width; ++j) {
          double value = alpha * sums[j];
          if (beta != 0.0)
            value += beta * cast<double>(c_row[j0 + j]);
          c_row[j0 + j] = cast<T>(value);
        }
      }
    }
  }
}

namespace detail {

/// Makes OpenBLAS run every call on the calling thread: the bundle splits its GEMMs over the
/// context's own threads (tc_parallel.h), so library threads would only oversubscribe the
/// CPUs. OpenBLAS's setting is per process; other CBLAS libraries are left as they are.
inline void blas_single_threaded() {
#if defined(TC_USE_CBLAS) && defined(OPENBLAS_VERSION)
  openblas_set_num_threads(1);
#endif
}

#if defined(TC_USE_CBLAS)
/// One cblas_?gemm per batch entry, with explicit leading dimensions (so that a block of rows or
/// columns of a larger product is one call); k == 0 is handled by the caller.
template <typename T>
inline void gemm_cblas(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a,
                       int64_t a_batch_stride, bool trans_a, int64_t lda, const T *b,
                       int64_t b_batch_stride, bool trans_b, int64_t ldb, double alpha,
                       double beta, T *c, int64_t c_batch_stride, int64_t ldc) {
  const CBLAS_TRANSPOSE op_a = trans_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE op_b = trans_b ? CblasTrans : CblasNoTrans;
  for (int64_t index = 0; index < batch; ++index) {
    const T *a_matrix = a + index * a_batch_stride;
    const T *b_matrix = b + index * b_batch_stride;
    T *c_matrix = c + index * c_batch_stride;
    if constexpr (std::is_same<T, float>::value)
      cblas_sgemm(CblasRowMajor, op_a, op_b, static_cast<int>(m), static_cast<int>(n),
                  static_cast<int>(k), static_cast<float>(alpha), a_matrix,
                  static_cast<int>(lda), b_matrix, static_cast<int>(ldb),
                  static_cast<float>(beta), c_matrix, static_cast<int>(ldc));
    else
      cblas_dgemm(CblasRowMajor, op_a, op_b, static_cast<int>(m), static_cast<int>(n),
                  static_cast<int>(k), alpha, a_matrix, static_cast<int>(lda), b_matrix,
                  static_cast<int>(ldb), beta, c_matrix, static_cast<int>(ldc));
  }
}
#endif

/// gemm_library's contract in plain loops (float sums in ascending k): the fallback when the
/// AVX-512 GEMM cannot allocate its packing buffers and no CBLAS is linked.
template <typename T>
inline void gemm_strided_loops(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a,
                               int64_t a_batch_stride, bool trans_a, int64_t lda, const T *b,
                               int64_t b_batch_stride, bool trans_b, int64_t ldb, double alpha,
                               double beta, T *c, int64_t c_batch_stride, int64_t ldc) {
  for (int64_t index = 0; index < batch; ++index)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T sum = T(0);
        for (int64_t p = 0; p < k; ++p)
          sum += a[index * a_batch_stride + (trans_a ? p * lda + i : i * lda + p)] *
                 b[index * b_batch_stride + (trans_b ? j * ldb + p : p * ldb + j)];
        T &out = c[index * c_batch_stride + i * ldc + j];
        out = static_cast<T>(alpha) * sum + (beta != 0.0 ? static_cast<T>(beta) * out : T(0));
      }
}

/// Float products with at least this many rows use the AVX-512 GEMM (where the CPU has it)
/// even when CBLAS is linked: below it, packing B on every call costs more than it saves.
constexpr int64_t kOwnGemmMinRows = 16;

/// Whether gemm has a library-style path for T: CBLAS for float and double, or (float, on a
/// CPU with AVX-512) the bundle's own GEMM.
template <typename T> inline bool has_gemm_library() {
#if defined(TC_USE_CBLAS)
  return std::is_same<T, float>::value || std::is_same<T, double>::value;
#else
  return std::is_same<T, float>::value && sgemm::enabled();
#endif
}

/// One single-threaded block of gemm with explicit leading dimensions: the AVX-512 GEMM for
/// float where enabled (and, with CBLAS linked, for products of kOwnGemmMinRows rows or more),
/// else CBLAS; k > 0.
template <typename T>
inline void gemm_library(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a,
                         int64_t a_batch_stride, bool trans_a, int64_t lda, const T *b,
                         int64_t b_batch_stride, bool trans_b, int64_t ldb, double alpha,
                         double beta, T *c, int64_t c_batch_stride, int64_t ldc) {
  if constexpr (std::is_same<T, float>::value) {
#if defined(TC_USE_CBLAS)
    const bool own = sgemm::enabled() && m >= kOwnGemmMinRows;
#else
    const bool own = sgemm::enabled();
#endif
    if (own) {
      int64_t index = 0;
      for (; index < batch; ++index)
        if (!sgemm::gemm_avx512(m, n, k, a + index * a_batch_stride, trans_a, lda,
                                b + index * b_batch_stride, trans_b, ldb,
                                static_cast<float>(alpha), static_cast<float>(beta),
                                c + index * c_batch_stride, ldc))
          break;
      if (index == batch)
        return;
      a += index * a_batch_stride;
      b += index * b_batch_stride;
      c += index * c_batch_stride;
      batch -= index;
    }
  }
#if defined(TC_USE_CBLAS)
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    gemm_cblas(batch, m, n, k, a, a_batch_stride, trans_a, lda, b, b_batch_stride, trans_b, ldb,
               alpha, beta, c, c_batch_stride, ldc);
    return;
  }
#endif
  gemm_strided_loops(batch, m, n, k, a, a_batch_stride, trans_a, lda, b, b_batch_stride,
                     trans_b, ldb, alpha, beta, c, c_batch_stride, ldc);
}

/// Products with at most this many rows of C (decode steps, attention of one query row) skip
/// the library GEMM, which packs all of B on every call -- for a weight read once per token
/// that packing doubles the memory traffic -- and stream B once through gemv_block instead.
constexpr int64_t kGemvMaxRows = 4;

/// Stores alpha * sum (+ beta * c when beta != 0) to c.
template <typename T> inline void gemv_store(T *c, T sum, double alpha, double beta) {
  T value = static_cast<T>(alpha) * sum;
  if (beta != 0.0)
    value += static_cast<T>(beta) * *c;
  *c = value;
}

/// Columns [j0, j1) of the M rows of C = alpha * A @ op(B) + beta * C, A row-major [M, k] with
/// row stride lda, C row stride ldc. With trans_b (B stored [n, k], a Linear weight) each output
/// is a dot product of two contiguous rows, accumulated in kLanes lanes of T and summed in a
/// fixed order; otherwise (B stored [k, n]) each block of kWidth outputs accumulates a[p] * B's
/// row p over p. Either way each element of B is read once for all M rows, and the lane loops
/// vectorize (the lanes are independent sums, so no reassociation is needed).
template <typename T, int M>
inline void gemv_block(int64_t k, const T *a, int64_t lda, const T *b, bool trans_b, int64_t ldb,
                       double alpha, double beta, T *c, int64_t ldc, int64_t j0, int64_t j1) {
  if (trans_b) {
    constexpr int64_t kLanes = 32;
    const int64_t whole = k - k % kLanes;
    for (int64_t j = j0; j < j1; ++j) {
      const T *b_row = b + j * ldb;
      T lanes[M][kLanes] = {};
      for (int64_t p = 0; p < whole; p += kLanes)
        for (int i = 0; i < M; ++i)
          for (int64_t l = 0; l < kLanes; ++l)
            lanes[i][l] += a[i * lda + p + l] * b_row[p + l];
      for (int i = 0; i < M; ++i) {
        T sum = T(0);
        for (int64_t p = whole; p < k; ++p)
          sum += a[i * lda + p] * b_row[p];
        for (int64_t l = 0; l < kLanes; ++l)
          sum += lanes[i][l];
        gemv_store(c + i * ldc + j, sum, alpha, beta);
      }
    }
    return;
  }
  constexpr int64_t kWidth = 64;
  for (int64_t jb = j0; jb < j1; jb += kWidth) {
    const int64_t width = j1 - jb < kWidth ? j1 - jb : kWidth;
    T sums[M][kWidth] = {};
    if (width == kWidth) {
      for (int64_t p = 0; p < k; ++p) {
        const T *b_row = b + p * ldb + jb;
        for (int i = 0; i < M; ++i) {
          const T a_value = a[i * lda + p];
          for (int64_t l = 0; l < kWidth; ++l)
            sums[i][l] += a_value * b_row[l];
        }
      }
    } else {
      for (int64_t p = 0; p < k; ++p) {
        const T *b_row = b + p * ldb + jb;
        for (int i = 0; i < M; ++i) {
          const T a_value = a[i * lda + p];
          for (int64_t l = 0; l < width; ++l)
            sums[i][l] += a_value * b_row[l];
        }
      }
    }
    for (int i = 0; i < M; ++i)
      for (int64_t l = 0; l < width; ++l)
        gemv_store(c + i * ldc + jb + l, sums[i][l], alpha, beta);
  }
}

/// gemv_block for a run-time row count m <= kGemvMaxRows.
template <typename T>
inline void gemv_rows(int64_t m, int64_t k, const T *a, int64_t lda, const T *b, bool trans_b,
                      int64_t ldb, double alpha, double beta, T *c, int64_t ldc, int64_t j0,
                      int64_t j1) {
  switch (m) {
  case 1:
    return gemv_block<T, 1>(k, a, lda, b, trans_b, ldb, alpha, beta, c, ldc, j0, j1);
  case 2:
    return gemv_block<T, 2>(k, a, lda, b, trans_b, ldb, alpha, beta, c, ldc, j0, j1);
  case 3:
    return gemv_block<T, 3>(k, a, lda, b, trans_b, ldb, alpha, beta, c, ldc, j0, j1);
  default:
    return gemv_block<T, 4>(k, a, lda, b, trans_b, ldb, alpha, beta, c, ldc, j0, j1);
  }
}

/// gemm for m <= kGemvMaxRows, k > 0, A row-major (or m == 1): one pass over each B, split over
/// the batch when it has an entry per thread, else over C's columns.
template <typename T>
void gemm_few_rows(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a,
                   int64_t a_batch_stride, const T *b, int64_t b_batch_stride, bool trans_b,
                   double alpha, double beta, T *c, bool parallel) {
  const int64_t ldb = trans_b ? k : n;
  auto entries = [&](int64_t begin, int64_t end) {
    for (int64_t index = begin; index < end; ++index)
      gemv_rows(m, k, a + index * a_batch_stride, k, b + index * b_batch_stride, trans_b, ldb,
                alpha, beta, c + index * m * n, n, int64_t(0), n);
  };
  if (!parallel) {
    run_range(entries, int64_t(0), batch);
    return;
  }
  if (batch >= parallel_threads()) {
    parallel_for(batch, 1, entries);
    return;
  }
  // Column blocks: whole lane widths, so that every piece but the last runs full blocks.
  const int64_t grain = trans_b ? 8 : 64;
  for (int64_t index = 0; index < batch; ++index)
    parallel_for(n, grain, [&](int64_t begin, int64_t end) {
      gemv_rows(m, k, a + index * a_batch_stride, k, b + index * b_batch_stride, trans_b, ldb,
                alpha, beta, c + index * m * n, n, begin, end);
    });
}

} // namespace detail

/// C[i] = alpha * op(A[i]) @ op(B[i]) + beta * C[i] for i < batch, with op(A[i]) [m, k] and
/// op(B[i]) [k, n]: A[i] is a + i * a_batch_stride, stored [m, k] or, with trans_a, [k, m]
/// (likewise B[i], [k, n] or [n, k]); a batch stride of 0 broadcasts one matrix. C is
/// contiguous [batch, m, n]. beta == 0 means C is not read (NaNs in it are ignored); k == 0
/// gives beta * C. Float runs the AVX-512 GEMM on CPUs with AVX-512 (detail::gemm_library);
/// with TC_USE_CBLAS, float and double call cblas_sgemm/cblas_dgemm (float accumulation for
/// float, like PyTorch's CPU GEMM) -- and either way products of at most kGemvMaxRows rows go
/// to detail::gemm_few_rows, which accumulates in T the same way; everything else runs
/// gemm_loops.
template <typename T>
void gemm(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a, int64_t a_batch_stride,
          bool trans_a, const T *b, int64_t b_batch_stride, bool trans_b, double alpha,
          double beta, T *c) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return;
  // A batch of row-major A against one shared B is a single [batch * m, k] @ [k, n] product
  // (linear on a [B, T, K] input): fewer, larger calls.
  if (batch > 1 && b_batch_stride == 0 && !trans_a && a_batch_stride == m * k) {
    m *= batch;
    batch = 1;
  }
  // Threads: products of at least kParallelWork multiply-adds are split over the context's
  // threads (tc_parallel.h) into one block per thread -- of the batch when it has enough
  // entries, else of C's rows when C is at least as tall as wide, else of C's columns in
  // multiples of 16 -- each block one single-threaded library call. Few rows of a row-major A
  // go to gemm_few_rows, which splits the columns without a library call.
  constexpr int64_t kParallelWork = int64_t(1) << 20;
  const int64_t threads = parallel_threads();
  const bool parallel = threads > 1 && batch * m * n * (k > 0 ? k : 1) >= kParallelWork;
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    if (k > 0 && detail::has_gemm_library<T>()) {
      if (m <= detail::kGemvMaxRows && (!trans_a || m == 1)) {
        detail::gemm_few_rows(batch, m, n, k, a, a_batch_stride, b, b_batch_stride, trans_b, alpha,
                              beta, c, parallel);
        return;
      }
      const int64_t lda = trans_a ? m : k;
      const int64_t ldb = trans_b ? k : n;
      if (!parallel) {
        detail::gemm_library(batch, m, n, k, a, a_batch_stride, trans_a, lda, b, b_batch_stride,
                             trans_b, ldb, alpha, beta, c, m * n, n);
      } else if (batch >= threads) {
        parallel_for(batch, 1, [&](int64_t begin, int64_t end) {
          detail::gemm_library(end - begin, m, n, k, a + begin * a_batch_stride, a_batch_stride,
                               trans_a, lda, b + begin * b_batch_stride, b_batch_stride, trans_b,
                               ldb, alpha, beta, c + begin * m * n, m * n, n);
        });
      } else if (m >= 4 * threads && (m >= n || n < 16 * threads)) {
        // Rows: each piece packs all of B, so this split is for products with more rows than
        // columns; wider ones (a convolution's pixels, a sequence's features) split the
        // columns below, where each piece packs A, the smaller operand, again.
        parallel_for(m, 4, [&](int64_t begin, int64_t end) {
          detail::gemm_library(batch, end - begin, n, k, a + (trans_a ? begin : begin * k),
                               a_batch_stride, trans_a, lda, b, b_batch_stride, trans_b, ldb, alpha,
                               beta, c + begin * n, m * n, n);
        });
      } else {
        const int64_t blocks = (n + 15) / 16;
        parallel_for(blocks, 1, [&](int64_t begin, int64_t end) {
          const int64_t n0 = begin * 16;
          const int64_t n1 = end * 16 < n ? end * 16 : n;
          detail::gemm_library(batch, m, n1 - n0, k, a, a_batch_stride, trans_a, lda,
                               b + (trans_b ? n0 * k : n0), b_batch_stride, trans_b, ldb, alpha,
                               beta, c + n0, m * n, n);
        });
      }
      return;
    }
  }
  if (parallel && !trans_a && batch == 1 && m > 1) {
    parallel_for(m, 1, [&](int64_t begin, int64_t end) {
      gemm_loops(int64_t(1), end - begin, n, k, a + begin * k, a_batch_stride, trans_a, b,
                 b_batch_stride, trans_b, alpha, beta, c + begin * n);
    });
    return;
  }
  if (parallel && batch > 1) {
    parallel_for(batch, 1, [&](int64_t begin, int64_t end) {
      gemm_loops(end - begin, m, n, k, a + begin * a_batch_stride, a_batch_stride, trans_a,
                 b + begin * b_batch_stride, b_batch_stride, trans_b, alpha, beta,
                 c + begin * m * n);
    });
    return;
  }
  gemm_loops(batch, m, n, k, a, a_batch_stride, trans_a, b, b_batch_stride, trans_b, alpha, beta,
             c);
}

/// C[m, n] = alpha * A @ B + beta * C (C not read when beta == 0) for a float weight B that
/// thunderc stored pre-packed in weights.bin (sgemm::pack_b_whole: a Linear weight [n, k]
/// transposed, an addmm's [k, n] as it is), A row-major [m, k]: no B is packed at run time. The AVX-512 kernel where the CPU has it, else the
/// portable loop over the same layout. Split over the context's threads like gemm: by blocks
/// of 32 columns when there are enough of them (each thread then reads only its part of W),
/// else by rows.
inline void gemm_packed(int64_t m, int64_t n, int64_t k, const float *a, const float *packed,
                        double alpha, double beta, float *c) {
  if (m <= 0 || n <= 0)
    return;
  if (k <= 0) {
    for (int64_t i = 0; i < m * n; ++i)
      c[i] = beta != 0.0 ? static_cast<float>(beta) * c[i] : 0.0f;
    return;
  }
  const bool own = sgemm::enabled();
  const float scale = static_cast<float>(alpha), b = static_cast<float>(beta);
  auto block = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
    if (own)
      sgemm::gemm_packed_avx512(i1 - i0, n, k, a + i0 * k, k, packed, scale, b, c + i0 * n, n,
                                j0, j1);
    else
      sgemm::gemm_packed_portable(i1 - i0, n, k, a + i0 * k, k, packed, scale, b, c + i0 * n,
                                  n, j0, j1);
  };
  constexpr int64_t kParallelWork = int64_t(1) << 20;
  const int64_t threads = parallel_threads();
  if (threads <= 1 || m * n * k < kParallelWork) {
    block(0, m, 0, n);
    return;
  }
  const int64_t panels = (n + sgemm::kNr - 1) / sgemm::kNr;
  if (panels >= 2 * threads || m < 2 * sgemm::kMr) {
    parallel_for(panels, 1, [&](int64_t begin, int64_t end) {
      block(0, m, begin * sgemm::kNr, end * sgemm::kNr < n ? end * sgemm::kNr : n);
    });
    return;
  }
  const int64_t row_blocks = (m + sgemm::kMr - 1) / sgemm::kMr;
  parallel_for(row_blocks, 1, [&](int64_t begin, int64_t end) {
    block(begin * sgemm::kMr, end * sgemm::kMr < m ? end * sgemm::kMr : m, 0, n);
  });
}

/// Grouped GEMM (a Mixture-of-Experts layer's tokens sorted by expert): C [rows, n] gets
/// A [rows, k]'s rows [offsets[g-1], offsets[g]) (clipped to [0, rows); offsets[-1] = 0) times
/// B[g] [k, n] for each group g in order (a later group's rows win where offsets decrease);
/// rows no group holds are zero. Each group is one gemm over only its own rows.
template <typename T, typename O>
void grouped_gemm(int64_t rows, int64_t k, int64_t n, int64_t groups, const T *a, const T *b,
                  const O *offsets, T *c) {
  if (rows <= 0 || n <= 0)
    return;
  std::fill(c, c + rows * n, tc::cast<T>(0.0));
  int64_t start = 0;
  for (int64_t g = 0; g < groups; ++g) {
    const int64_t end = static_cast<int64_t>(offsets[g]);
    const int64_t first = std::min(std::max<int64_t>(start, 0), rows);
    const int64_t last = std::min(std::max<int64_t>(end, 0), rows);
    if (last > first)
      gemm<T>(1, last - first, n, k, a + first * k, 0, false, b + g * k * n, 0, false, 1.0, 0.0,
              c + first * n);
    start = end;
  }
}

/// Elements of T that conv2d needs in `workspace`: one im2col matrix of one group,
/// [C / groups * KH * KW, OH * OW].
inline int64_t conv2d_workspace_size(int64_t C, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
                                     int64_t groups) {
  return (groups > 0 ? C / groups : C) * KH * KW * OH * OW;
}

namespace detail {

/// Unfolds one group's input planes x [Cg, H, W] into columns [Cg * KH * KW, OH * OW]; taps
/// that fall into the padding read 0. Per kernel column, the output columns whose input
/// column is in bounds are computed once, so the inner loop is a plain strided copy.
template <typename T>
void im2col(const T *x, int64_t Cg, int64_t H, int64_t W, int64_t KH, int64_t KW, int64_t stride_h,
            int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h, int64_t dil_w,
            int64_t OH, int64_t OW, T *columns) {
  const T zero = cast<T>(0);
  // Channels are independent: split over the context's threads (serial inside a task), in
  // pieces of at least ~16K written elements.
  const int64_t per_channel = KH * KW * OH * OW;
  const int64_t grain = per_channel >= 16384 ? 1 : 16384 / (per_channel > 0 ? per_channel : 1);
  parallel_for(Cg, grain, [&](int64_t first_channel, int64_t end_channel) {
    for (int64_t channel = first_channel; channel < end_channel; ++channel) {
      const T *plane = x + channel * H * W;
      for (int64_t kh = 0; kh < KH; ++kh) {
        for (int64_t kw = 0; kw < KW; ++kw) {
          T *row = columns + ((channel * KH + kh) * KW + kw) * OH * OW;
          int64_t shift = kw * dil_w - pad_w; // input column of output column 0
          int64_t lo = shift >= 0 ? 0 : (-shift + stride_w - 1) / stride_w;
          int64_t hi = W - shift <= 0 ? 0 : (W - shift - 1) / stride_w + 1;
          lo = min_count(lo, OW);
          hi = min_count(hi, OW);
          if (hi < lo)
            hi = lo;
          for (int64_t oh = 0; oh < OH; ++oh) {
            T *target = row + oh * OW;
            int64_t ih = oh * stride_h - pad_h + kh * dil_h;
            if (ih < 0 || ih >= H) {
              for (int64_t ow = 0; ow < OW; ++ow)
                target[ow] = zero;
              continue;
            }
            const T *source = plane + ih * W;
            for (int64_t ow = 0; ow < lo; ++ow)
              target[ow] = zero;
            for (int64_t ow = lo; ow < hi; ++ow)
              target[ow] = source[shift + ow * stride_w];
            for (int64_t ow = hi; ow < OW; ++ow)
              target[ow] = zero;
          }
        }
      }
    }
  });
}

} // namespace detail

/// 2-D convolution (cross-correlation, like PyTorch) of x [N, C, H, W] with weight
/// [O, C / groups, KH, KW] and an optional bias [O] into y [N, O, OH, OW]; the caller
/// computed OH/OW from stride, padding and dilation. Per image and group: im2col into
/// `workspace` (conv2d_workspace_size elements; unused by 1x1 stride-1 unpadded
/// convolutions), then one gemm into y, which is first filled with the bias.
template <typename T>
void conv2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, const T *weight, int64_t O,
            int64_t KH, int64_t KW, const T *bias, int64_t stride_h, int64_t stride_w,
            int64_t pad_h, int64_t pad_w, int64_t dil_h, int64_t dil_w, int64_t groups, T *y,
            int64_t OH, int64_t OW, T *workspace) {
  const int64_t group_channels = C / groups;
  const int64_t group_outputs = O / groups;
  const int64_t taps = group_channels * KH * KW;
  const int64_t pixels = OH * OW;
  const bool pointwise = KH == 1 && KW == 1 && stride_h == 1 && stride_w == 1 && pad_h == 0 &&
                         pad_w == 0 && OH == H && OW == W;
  if (pointwise && groups == 1 && N > 1) {
    // A 1x1 convolution of a batch is one batched GEMM sharing the weight (gemm splits the
    // images over threads): y[n] = weight @ x[n] (+ bias), no workspace.
    if (bias) {
      const int64_t grain = pixels >= 16384 ? 1 : 16384 / (pixels > 0 ? pixels : 1);
      parallel_for(N * O, grain, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row)
          for (int64_t p = 0; p < pixels; ++p)
            y[row * pixels + p] = bias[row % O];
      });
    }
    gemm<T>(N, O, pixels, C, weight, 0, false, x, C * H * W, false, 1.0, bias ? 1.0 : 0.0, y);
    return;
  }
  for (int64_t image = 0; image < N; ++image) {
    for (int64_t group = 0; group < groups; ++group) {
      const T *planes = x + (image * C + group * group_channels) * H * W;
      T *outputs = y + (image * O + group * group_outputs) * pixels;
      const T *columns = planes;
      if (!pointwise) {
        detail::im2col(planes, group_channels, H, W, KH, KW, stride_h, stride_w, pad_h, pad_w,
                       dil_h, dil_w, OH, OW, workspace);
        columns = workspace;
      }
      if (bias) {
        const int64_t grain = pixels >= 16384 ? 1 : 16384 / (pixels > 0 ? pixels : 1);
        parallel_for(group_outputs, grain, [&](int64_t begin, int64_t end) {
          for (int64_t o = begin; o < end; ++o) {
            const T value = bias[group * group_outputs + o];
            for (int64_t p = 0; p < pixels; ++p)
              outputs[o * pixels + p] = value;
          }
        });
      }
      gemm<T>(1, group_outputs, pixels, taps, weight + group * group_outputs * taps, 0, false,
              columns, 0, false, 1.0, bias ? 1.0 : 0.0, outputs);
    }
  }
}

// ---- transposed convolution ----
// GEMM + col2im rather than a direct kernel: the product of the transposed weight with the
// input planes is one GEMM per image and group (BLAS for float/double), holding every
// multiply-add, and col2im only sums KH * KW columns per output pixel. A direct kernel would
// redo the channel loop for every tap with strided, divisibility-checked reads. The columns
// are kept in compute_t<T> (float for f16/bf16), so f16/bf16 outputs are rounded once.

/// Elements of compute_t<T> (float, or double for double) that conv_transpose2d needs in
/// `workspace`: the columns of one image [O * KH * KW, H * W] and one output row [OW].
inline int64_t conv_transpose2d_workspace_size(int64_t O, int64_t KH, int64_t KW, int64_t H,
                                               int64_t W, int64_t OW) {
  return O * KH * KW * H * W + OW;
}

namespace detail {

/// columns [R, P] = weight^T @ planes for weight [Cg, R] and planes [Cg, P], in compute_t<T>:
/// gemm for float/double (T is its own compute type), rank-1 updates in float for f16/bf16.
template <typename T>
void transposed_columns(const T *weight, const T *planes, int64_t Cg, int64_t R, int64_t P,
                        compute_t<T> *columns) {
  using F = compute_t<T>;
  if constexpr (std::is_same<F, T>::value) {
    gemm<T>(1, R, P, Cg, weight, 0, true, planes, 0, false, 1.0, 0.0, columns);
  } else {
    for (int64_t i = 0; i < R * P; ++i)
      columns[i] = F(0);
    for (int64_t c = 0; c < Cg; ++c) {
      const T *plane = planes + c * P;
      for (int64_t r = 0; r < R; ++r) {
        const F tap = cast<F>(weight[c * R + r]);
        F *row = columns + r * P;
        for (int64_t p = 0; p < P; ++p)
          row[p] += tap * cast<F>(plane[p]);
      }
    }
  }
}

} // namespace detail

/// Transposed 2-D convolution (torch.conv_transpose2d) of x [N, C, H, W] with weight
/// [C, O / groups, KH, KW] and an optional bias [O] into y [N, O, OH, OW]; the caller computed
/// OH = (H - 1) * stride_h - 2 * pad_h + dil_h * (KH - 1) + output_padding_h + 1 (likewise
/// OW), so output padding is implicit. Per image: each group's columns
/// [O / groups * KH * KW, H * W] = weight_g^T @ x_g go to `workspace`
/// (conv_transpose2d_workspace_size elements); then col2im sums, for every output pixel, the
/// columns of the (kh, kw, ih, iw) that land on it, starting from the bias, in compute_t<T>.
template <typename T>
void conv_transpose2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, const T *weight,
                      int64_t O, int64_t KH, int64_t KW, const T *bias, int64_t stride_h,
                      int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h,
                      int64_t dil_w, int64_t groups, T *y, int64_t OH, int64_t OW,
                      compute_t<T> *workspace) {
  using F = compute_t<T>;
  const int64_t group_channels = C / groups;
  const int64_t group_outputs = O / groups;
  const int64_t rows = group_outputs * KH * KW; // column rows per group
  const int64_t pixels = H * W;
  F *columns = workspace;
  F *sums = workspace + O * KH * KW * pixels; // one output row
  for (int64_t image = 0; image < N; ++image) {
    for (int64_t group = 0; group < groups; ++group)
      detail::transposed_columns(weight + group * group_channels * rows,
                                 x + (image * C + group * group_channels) * pixels,
                                 group_channels, rows, pixels, columns + group * rows * pixels);
    for (int64_t o = 0; o < O; ++o) {
      const F *channel_columns = columns + o * KH * KW * pixels; // o's rows, all taps
      for (int64_t oh = 0; oh < OH; ++oh) {
        const F start = bias ? cast<F>(bias[o]) : F(0);
        for (int64_t ow = 0; ow < OW; ++ow)
          sums[ow] = start;
        for (int64_t kh = 0; kh < KH; ++kh) {
          const int64_t from_top = oh + pad_h - kh * dil_h; // = ih * stride_h
          if (from_top < 0 || from_top % stride_h != 0 || from_top / stride_h >= H)
            continue;
          const int64_t ih = from_top / stride_h;
          for (int64_t kw = 0; kw < KW; ++kw) {
            // Input columns iw whose ow = iw * stride_w + shift lies in [0, OW).
            const int64_t shift = kw * dil_w - pad_w;
            const int64_t lo = shift >= 0 ? 0 : (-shift + stride_w - 1) / stride_w;
            const int64_t fitting = OW - shift <= 0 ? 0 : (OW - shift - 1) / stride_w + 1;
            const int64_t hi = detail::min_count(W, fitting);
            const F *row = channel_columns + (kh * KW + kw) * pixels + ih * W;
            for (int64_t iw = lo; iw < hi; ++iw)
              sums[iw * stride_w + shift] += row[iw];
          }
        }
        T *target = y + ((image * O + o) * OH + oh) * OW;
        for (int64_t ow = 0; ow < OW; ++ow)
          target[ow] = cast<T>(sums[ow]);
      }
    }
  }
}

} // namespace tc
