// Dense linear algebra over batches of row-major matrices, by LAPACK: the factorizations of
// ir/ops.def's linalg ops (cholesky, lu_factor, qr, geqrf, householder_product, ormqr,
// ldl_factor, ldl_solve, eigh, svd), the triangular solve and the matrix exponential. Shared by
// the reference interpreter (T = double) and the CPU bundle (float, double), so both run the
// routines PyTorch's CPU kernels call (potrf, getrf, geqrf, orgqr, ormqr, sytrf, sytrs, syevd,
// gesdd).
//
// LAPACK is column-major: each matrix is transposed into a column-major work copy, factored,
// and its results transposed back. Every routine loops over `batch` matrices stored one after
// another. Singular or non-positive-definite inputs are not errors here: the routines report
// LAPACK's info (0: success) per matrix, and what LAPACK leaves in the factors is returned, as
// PyTorch's *_ex ops do.
//
// The factorizations need TC_USE_LAPACK defined and a LAPACK linked (OpenBLAS has one; a
// bundle's CMakeLists.txt finds it when its model uses these ops). Without it, using one stops
// the build with a message that says so; pivot_permutation and triangular_solve need nothing.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#ifdef TC_USE_LAPACK
extern "C" {
// Fortran LAPACK, each character argument followed by its hidden length.
void spotrf_(const char *uplo, const int *n, float *a, const int *lda, int *info, size_t);
void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);
void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void sgeqrf_(const int *m, const int *n, float *a, const int *lda, float *tau, float *work,
             const int *lwork, int *info);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
             const int *lwork, int *info);
void sorgqr_(const int *m, const int *n, const int *k, float *a, const int *lda,
             const float *tau, float *work, const int *lwork, int *info);
void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda,
             const double *tau, double *work, const int *lwork, int *info);
void sormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
             const float *a, const int *lda, const float *tau, float *c, const int *ldc,
             float *work, const int *lwork, int *info, size_t, size_t);
void dormqr_(const char *side, const char *trans, const int *m, const int *n, const int *k,
             const double *a, const int *lda, const double *tau, double *c, const int *ldc,
             double *work, const int *lwork, int *info, size_t, size_t);
void ssytrf_(const char *uplo, const int *n, float *a, const int *lda, int *ipiv, float *work,
             const int *lwork, int *info, size_t);
void dsytrf_(const char *uplo, const int *n, double *a, const int *lda, int *ipiv, double *work,
             const int *lwork, int *info, size_t);
void ssytrs_(const char *uplo, const int *n, const int *nrhs, const float *a, const int *lda,
             const int *ipiv, float *b, const int *ldb, int *info, size_t);
void dsytrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
             const int *ipiv, double *b, const int *ldb, int *info, size_t);
void ssyevd_(const char *jobz, const char *uplo, const int *n, float *a, const int *lda,
             float *w, float *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t, size_t);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork,
             int *info, size_t, size_t);
void sgesdd_(const char *jobz, const int *m, const int *n, float *a, const int *lda, float *s,
             float *u, const int *ldu, float *vt, const int *ldvt, float *work,
             const int *lwork, int *iwork, int *info, size_t);
void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda,
             double *s, double *u, const int *ldu, double *vt, const int *ldvt, double *work,
             const int *lwork, int *iwork, int *info, size_t);
}
#endif

namespace tc {
namespace lapack {

/// rows x cols row-major `a` into column-major `out` (leading dimension rows), and back.
template <typename T>
inline void to_column_major(const T *a, int64_t rows, int64_t cols, T *out) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out[j * rows + i] = a[i * cols + j];
}
template <typename T>
inline void from_column_major(const T *a, int64_t rows, int64_t cols, int64_t ld, T *out) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out[i * cols + j] = a[j * ld + i];
}

/// pivots (LAPACK's 1-based row interchanges, k of them) as the permutation they make of m
/// rows: perm[i] is the row of the input that lands in row i (A[perm] = L U).
template <typename P>
inline void pivot_permutation(const int32_t *pivots, int64_t batch, int64_t k, int64_t m,
                              P *perm) {
  for (int64_t b = 0; b < batch; ++b) {
    P *p = perm + b * m;
    for (int64_t i = 0; i < m; ++i)
      p[i] = static_cast<P>(i);
    for (int64_t i = 0; i < k; ++i) {
      int64_t j = static_cast<int64_t>(pivots[b * k + i]) - 1;
      if (j >= 0 && j < m && j != i)
        std::swap(p[i], p[j]);
    }
  }
}

/// Solves a triangular system for every matrix of the batch: A [n, n] (lower or upper;
/// unitriangular: its diagonal taken as ones) and B [n, k] (left: A X = B) or [k, n]
/// (right: X A = B). Substitution in the order LAPACK's trsm uses; a zero on the diagonal
/// gives inf/NaN, as PyTorch's.
template <typename T>
inline void triangular_solve(const T *a, const T *b, int64_t batch, int64_t n, int64_t k,
                             bool upper, bool left, bool unit, T *x) {
  for (int64_t bi = 0; bi < batch; ++bi) {
    const T *A = a + bi * n * n;
    const T *B = b + bi * n * k;
    T *X = x + bi * n * k;
    std::memcpy(X, B, static_cast<size_t>(n * k) * sizeof(T));
    if (left) { // rows of X, forward (lower) or backward (upper)
      for (int64_t step = 0; step < n; ++step) {
        int64_t i = upper ? n - 1 - step : step;
        T *xi = X + i * k;
        int64_t from = upper ? i + 1 : 0, to = upper ? n : i;
        for (int64_t j = from; j < to; ++j) {
          T aij = A[i * n + j];
          if (aij == T(0))
            continue;
          const T *xj = X + j * k;
          for (int64_t c = 0; c < k; ++c)
            xi[c] -= aij * xj[c];
        }
        if (!unit) {
          T d = A[i * n + i];
          for (int64_t c = 0; c < k; ++c)
            xi[c] /= d;
        }
      }
    } else { // X [k, n] A = B: columns of X, forward (upper) or backward (lower)
      for (int64_t r = 0; r < k; ++r) {
        T *xr = X + r * n;
        for (int64_t step = 0; step < n; ++step) {
          int64_t j = upper ? step : n - 1 - step;
          T s = xr[j];
          int64_t from = upper ? 0 : j + 1, to = upper ? j : n;
          for (int64_t i = from; i < to; ++i)
            s -= xr[i] * A[i * n + j];
          xr[j] = unit ? s : s / A[j * n + j];
        }
      }
    }
  }
}

#ifdef TC_USE_LAPACK

inline void potrf(const char *uplo, const int *n, float *a, const int *lda, int *info) {
  spotrf_(uplo, n, a, lda, info, 1);
}
inline void potrf(const char *uplo, const int *n, double *a, const int *lda, int *info) {
  dpotrf_(uplo, n, a, lda, info, 1);
}
inline void getrf(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info) {
  sgetrf_(m, n, a, lda, ipiv, info);
}
inline void getrf(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info) {
  dgetrf_(m, n, a, lda, ipiv, info);
}
inline void geqrf(const int *m, const int *n, float *a, const int *lda, float *tau, float *work,
                  const int *lwork, int *info) {
  sgeqrf_(m, n, a, lda, tau, work, lwork, info);
}
inline void geqrf(const int *m, const int *n, double *a, const int *lda, double *tau,
                  double *work, const int *lwork, int *info) {
  dgeqrf_(m, n, a, lda, tau, work, lwork, info);
}
inline void orgqr(const int *m, const int *n, const int *k, float *a, const int *lda,
                  const float *tau, float *work, const int *lwork, int *info) {
  sorgqr_(m, n, k, a, lda, tau, work, lwork, info);
}
inline void orgqr(const int *m, const int *n, const int *k, double *a, const int *lda,
                  const double *tau, double *work, const int *lwork, int *info) {
  dorgqr_(m, n, k, a, lda, tau, work, lwork, info);
}
inline void ormqr(const char *side, const char *trans, const int *m, const int *n, const int *k,
                  const float *a, const int *lda, const float *tau, float *c, const int *ldc,
                  float *work, const int *lwork, int *info) {
  sormqr_(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, 1, 1);
}
inline void ormqr(const char *side, const char *trans, const int *m, const int *n, const int *k,
                  const double *a, const int *lda, const double *tau, double *c, const int *ldc,
                  double *work, const int *lwork, int *info) {
  dormqr_(side, trans, m, n, k, a, lda, tau, c, ldc, work, lwork, info, 1, 1);
}
inline void sytrf(const char *uplo, const int *n, float *a, const int *lda, int *ipiv,
                  float *work, const int *lwork, int *info) {
  ssytrf_(uplo, n, a, lda, ipiv, work, lwork, info, 1);
}
inline void sytrf(const char *uplo, const int *n, double *a, const int *lda, int *ipiv,
                  double *work, const int *lwork, int *info) {
  dsytrf_(uplo, n, a, lda, ipiv, work, lwork, info, 1);
}
inline void sytrs(const char *uplo, const int *n, const int *nrhs, const float *a, const int *lda,
                  const int *ipiv, float *b, const int *ldb, int *info) {
  ssytrs_(uplo, n, nrhs, a, lda, ipiv, b, ldb, info, 1);
}
inline void sytrs(const char *uplo, const int *n, const int *nrhs, const double *a,
                  const int *lda, const int *ipiv, double *b, const int *ldb, int *info) {
  dsytrs_(uplo, n, nrhs, a, lda, ipiv, b, ldb, info, 1);
}
inline void syevd(const char *jobz, const char *uplo, const int *n, float *a, const int *lda,
                  float *w, float *work, const int *lwork, int *iwork, const int *liwork,
                  int *info) {
  ssyevd_(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, 1, 1);
}
inline void syevd(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
                  double *w, double *work, const int *lwork, int *iwork, const int *liwork,
                  int *info) {
  dsyevd_(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, 1, 1);
}
inline void gesdd(const char *jobz, const int *m, const int *n, float *a, const int *lda,
                  float *s, float *u, const int *ldu, float *vt, const int *ldvt, float *work,
                  const int *lwork, int *iwork, int *info) {
  sgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
}
inline void gesdd(const char *jobz, const int *m, const int *n, double *a, const int *lda,
                  double *s, double *u, const int *ldu, double *vt, const int *ldvt,
                  double *work, const int *lwork, int *iwork, int *info) {
  dgesdd_(jobz, m, n, a, lda, s, u, ldu, vt, ldvt, work, lwork, iwork, info, 1);
}

/// Cholesky factor of each n x n matrix (only its lower, or upper, triangle is read): L with
/// A = L L^T (upper: U with A = U^T U), the other triangle zero; info per matrix.
template <typename T>
inline void cholesky(const T *a, int64_t batch, int64_t n, bool upper, T *out, int32_t *info) {
  std::vector<T> work(static_cast<size_t>(n * n));
  const int nn = static_cast<int>(n), lda = std::max(nn, 1);
  // A row-major matrix read column-major is its transpose: the lower triangle of A is the
  // upper one of the column-major view, so LAPACK gets the opposite uplo and no copy.
  const char uplo = upper ? 'L' : 'U';
  for (int64_t b = 0; b < batch; ++b) {
    std::memcpy(work.data(), a + b * n * n, work.size() * sizeof(T));
    int result = 0;
    if (n > 0)
      potrf(&uplo, &nn, work.data(), &lda, &result);
    info[b] = result;
    T *o = out + b * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        o[i * n + j] = (upper ? j >= i : j <= i) ? work[static_cast<size_t>(i * n + j)] : T(0);
  }
}

/// P A = L U of each m x n matrix (partial pivoting): lu holds L below the diagonal (unit
/// diagonal implied) and U on and above it; pivots the min(m, n) 1-based row interchanges;
/// info per matrix (> 0: U has an exact zero on its diagonal).
template <typename T>
inline void lu_factor(const T *a, int64_t batch, int64_t m, int64_t n, T *lu, int32_t *pivots,
                      int32_t *info) {
  const int64_t k = std::min(m, n);
  std::vector<T> work(static_cast<size_t>(m * n));
  std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(k, 1)));
  const int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = std::max(mm, 1);
  for (int64_t b = 0; b < batch; ++b) {
    to_column_major(a + b * m * n, m, n, work.data());
    int result = 0;
    if (m > 0 && n > 0)
      getrf(&mm, &nn, work.data(), &lda, ipiv.data(), &result);
    info[b] = result;
    from_column_major(work.data(), m, n, m, lu + b * m * n);
    for (int64_t i = 0; i < k; ++i)
      pivots[b * k + i] = ipiv[static_cast<size_t>(i)];
  }
}

/// A = Q R of each m x n matrix (Householder, geqrf then orgqr): complete (Q m x m, R m x n)
/// or reduced (Q m x k, R k x n, k = min(m, n)); with want_q false only R is written.
template <typename T>
inline void qr(const T *a, int64_t batch, int64_t m, int64_t n, bool complete, bool want_q, T *q,
               T *r) {
  const int64_t k = std::min(m, n);
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  // The factored matrix needs room for Q's extra columns when complete and m > n.
  const int64_t cols = std::max(n, qcols);
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(m * cols, 1)));
  std::vector<T> tau(static_cast<size_t>(std::max<int64_t>(k, 1)));
  const int mm = static_cast<int>(m), nn = static_cast<int>(n), kk = static_cast<int>(k),
            qq = static_cast<int>(qcols), lda = std::max(mm, 1);
  T query = T(0);
  int info = 0, lwork = -1;
  if (m > 0 && n > 0)
    geqrf(&mm, &nn, work.data(), &lda, tau.data(), &query, &lwork, &info);
  int64_t size = static_cast<int64_t>(query);
  if (want_q && m > 0 && qcols > 0) {
    lwork = -1;
    orgqr(&mm, &qq, &kk, work.data(), &lda, tau.data(), &query, &lwork, &info);
    size = std::max(size, static_cast<int64_t>(query));
  }
  std::vector<T> scratch(static_cast<size_t>(std::max<int64_t>(size, 1)));
  lwork = static_cast<int>(scratch.size());
  for (int64_t b = 0; b < batch; ++b) {
    to_column_major(a + b * m * n, m, n, work.data());
    if (m > 0 && n > 0)
      geqrf(&mm, &nn, work.data(), &lda, tau.data(), scratch.data(), &lwork, &info);
    T *rb = r + b * rrows * n;
    for (int64_t i = 0; i < rrows; ++i)
      for (int64_t j = 0; j < n; ++j)
        rb[i * n + j] = j >= i ? work[static_cast<size_t>(j * m + i)] : T(0);
    if (!want_q)
      continue;
    if (m > 0 && qcols > 0) {
      if (k == 0)
        std::fill(work.begin(), work.end(), T(0));
      orgqr(&mm, &qq, &kk, work.data(), &lda, tau.data(), scratch.data(), &lwork, &info);
    }
    from_column_major(work.data(), m, qcols, m, q + b * m * qcols);
  }
}

/// LAPACK's packed QR of each m x n matrix (geqrf): R on and above the diagonal, the
/// Householder vectors below it; tau the k = min(m, n) scalar factors.
template <typename T>
inline void qr_packed(const T *a, int64_t batch, int64_t m, int64_t n, T *qr, T *tau) {
  const int64_t k = std::min(m, n);
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(m * n, 1)));
  const int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = std::max(mm, 1);
  T query = T(0);
  int info = 0, lwork = -1;
  if (k > 0)
    geqrf(&mm, &nn, work.data(), &lda, tau, &query, &lwork, &info);
  std::vector<T> scratch(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(query), 1)));
  lwork = static_cast<int>(scratch.size());
  for (int64_t b = 0; b < batch; ++b) {
    to_column_major(a + b * m * n, m, n, work.data());
    if (k > 0)
      geqrf(&mm, &nn, work.data(), &lda, tau + b * k, scratch.data(), &lwork, &info);
    from_column_major(work.data(), m, n, m, qr + b * m * n);
  }
}

/// The first n columns of H_1 ... H_k for each m x n matrix a of Householder vectors (below
/// the diagonal, as geqrf leaves them) and its k factors tau; k <= n <= m (orgqr).
template <typename T>
inline void householder_product(const T *a, const T *tau, int64_t batch, int64_t m, int64_t n,
                                int64_t k, T *q) {
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(m * n, 1)));
  std::vector<T> factors(static_cast<size_t>(std::max<int64_t>(k, 1)));
  const int mm = static_cast<int>(m), nn = static_cast<int>(n), kk = static_cast<int>(k),
            lda = std::max(mm, 1);
  T query = T(0);
  int info = 0, lwork = -1;
  if (n > 0)
    orgqr(&mm, &nn, &kk, work.data(), &lda, factors.data(), &query, &lwork, &info);
  std::vector<T> scratch(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(query), 1)));
  lwork = static_cast<int>(scratch.size());
  for (int64_t b = 0; b < batch; ++b) {
    if (n == 0)
      continue;
    to_column_major(a + b * m * n, m, n, work.data());
    std::copy(tau + b * k, tau + (b + 1) * k, factors.begin());
    orgqr(&mm, &nn, &kk, work.data(), &lda, factors.data(), scratch.data(), &lwork, &info);
    from_column_major(work.data(), m, n, m, q + b * m * n);
  }
}

/// Q C (left) or C Q for each m x n matrix C, Q = H_1 ... H_k the q x q product of the
/// Householder vectors in the first k columns of the q x p matrix a (q = m when left, else n)
/// with factors tau (ormqr).
template <typename T>
inline void apply_householder(const T *a, const T *tau, const T *c, int64_t batch, int64_t q,
                              int64_t p, int64_t k, int64_t m, int64_t n, bool left, T *out) {
  std::vector<T> reflectors(static_cast<size_t>(std::max<int64_t>(q * p, 1)));
  std::vector<T> factors(static_cast<size_t>(std::max<int64_t>(k, 1)));
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(m * n, 1)));
  const int mm = static_cast<int>(m), nn = static_cast<int>(n), kk = static_cast<int>(k),
            lda = std::max(static_cast<int>(q), 1), ldc = std::max(mm, 1);
  const char side = left ? 'L' : 'R', trans = 'N';
  T query = T(0);
  int info = 0, lwork = -1;
  const bool empty = m == 0 || n == 0;
  if (!empty)
    ormqr(&side, &trans, &mm, &nn, &kk, reflectors.data(), &lda, factors.data(), work.data(),
          &ldc, &query, &lwork, &info);
  std::vector<T> scratch(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(query), 1)));
  lwork = static_cast<int>(scratch.size());
  for (int64_t b = 0; b < batch; ++b) {
    if (empty)
      continue;
    to_column_major(a + b * q * p, q, p, reflectors.data());
    std::copy(tau + b * k, tau + (b + 1) * k, factors.begin());
    to_column_major(c + b * m * n, m, n, work.data());
    ormqr(&side, &trans, &mm, &nn, &kk, reflectors.data(), &lda, factors.data(), work.data(),
          &ldc, scratch.data(), &lwork, &info);
    from_column_major(work.data(), m, n, m, out + b * m * n);
  }
}

/// A = L D L^T of each symmetric n x n matrix, read from its lower triangle (Bunch-Kaufman,
/// sytrf with uplo L): ld holds D's 1x1 and 2x2 blocks and L's multipliers on and below the
/// diagonal, zeros above; pivots LAPACK's (1-based; a 2x2 block has two equal negative
/// entries); info per matrix (> 0: D has an exact zero block).
template <typename T>
inline void ldl_factor(const T *a, int64_t batch, int64_t n, T *ld, int32_t *pivots,
                       int32_t *info) {
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(n * n, 1)));
  std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(n, 1)));
  const int nn = static_cast<int>(n), lda = std::max(nn, 1);
  const char uplo = 'L';
  T query = T(0);
  int result = 0, lwork = -1;
  if (n > 0)
    sytrf(&uplo, &nn, work.data(), &lda, ipiv.data(), &query, &lwork, &result);
  std::vector<T> scratch(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(query), 1)));
  lwork = static_cast<int>(scratch.size());
  for (int64_t b = 0; b < batch; ++b) {
    to_column_major(a + b * n * n, n, n, work.data());
    result = 0;
    if (n > 0)
      sytrf(&uplo, &nn, work.data(), &lda, ipiv.data(), scratch.data(), &lwork, &result);
    info[b] = result;
    T *o = ld + b * n * n;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        o[i * n + j] = j <= i ? work[static_cast<size_t>(j * n + i)] : T(0);
    for (int64_t i = 0; i < n; ++i)
      pivots[b * n + i] = ipiv[static_cast<size_t>(i)];
  }
}

/// Whether n pivots are ones sytrf (uplo L) can leave: each in [1, n], or a pair of equal
/// entries in [-n, -1] for a 2x2 block. Others would send LAPACK outside the matrix.
inline bool ldl_pivots_valid(const int32_t *pivots, int64_t n) {
  for (int64_t i = 0; i < n;) {
    const int64_t p = pivots[i];
    if (p > 0 && p <= n) {
      i += 1;
    } else if (p < 0 && -p <= n && i + 1 < n && pivots[i + 1] == p) {
      i += 2;
    } else {
      return false;
    }
  }
  return true;
}

/// X with A X = B for each n x n A = L D L^T given by ldl_factor (ld, pivots) and n x k B
/// (sytrs, uplo L). A matrix whose pivots ldl_factor cannot have given gets NaNs.
template <typename T>
inline void ldl_solve(const T *ld, const int32_t *pivots, const T *b, int64_t batch, int64_t n,
                      int64_t k, T *x) {
  std::vector<T> factors(static_cast<size_t>(std::max<int64_t>(n * n, 1)));
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(n * k, 1)));
  std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(n, 1)));
  const int nn = static_cast<int>(n), kk = static_cast<int>(k), lda = std::max(nn, 1);
  const char uplo = 'L';
  for (int64_t bi = 0; bi < batch; ++bi) {
    T *xb = x + bi * n * k;
    if (n == 0 || k == 0)
      continue;
    const int32_t *pb = pivots + bi * n;
    if (!ldl_pivots_valid(pb, n)) {
      std::fill(xb, xb + n * k, std::numeric_limits<T>::quiet_NaN());
      continue;
    }
    to_column_major(ld + bi * n * n, n, n, factors.data());
    to_column_major(b + bi * n * k, n, k, work.data());
    std::copy(pb, pb + n, ipiv.begin());
    int info = 0;
    sytrs(&uplo, &nn, &kk, factors.data(), &lda, ipiv.data(), work.data(), &lda, &info); // ldb = n
    from_column_major(work.data(), n, k, n, xb);
  }
}

/// exp(A) of each n x n matrix by scaling and squaring with a diagonal Pade approximant of
/// degree 3, 5, 7, 9 or 13, the lowest whose bound on the 1-norm holds, A scaled by 2^-s to
/// meet degree 13's (Higham, "The scaling and squaring method for the matrix exponential
/// revisited", 2005). Computed in double whatever T; a non-finite input gives NaNs.
template <typename T> inline void matrix_exp(const T *a, int64_t batch, int64_t n, T *out) {
  const size_t nn = static_cast<size_t>(n * n);
  // Row-major products; c = a b.
  auto multiply = [n](const double *x, const double *y, double *c) {
    std::fill(c, c + n * n, 0.0);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t l = 0; l < n; ++l) {
        const double xil = x[i * n + l];
        for (int64_t j = 0; j < n; ++j)
          c[i * n + j] += xil * y[l * n + j];
      }
  };
  // Pade numerator coefficients b_0..b_m (the denominator's are the same with alternating signs).
  static const double kPade3[] = {120.0, 60.0, 12.0, 1.0};
  static const double kPade5[] = {30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0};
  static const double kPade7[] = {17297280.0, 8648640.0, 1995840.0, 277200.0,
                                  25200.0,    1512.0,    56.0,      1.0};
  static const double kPade9[] = {17643225600.0, 8821612800.0, 2075673600.0, 302702400.0,
                                  30270240.0,    2162160.0,    110880.0,     3960.0,
                                  90.0,          1.0};
  static const double kPade13[] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
                                   1187353796428800.0,  129060195264000.0,   10559470521600.0,
                                   670442572800.0,      33522128640.0,       1323241920.0,
                                   40840800.0,          960960.0,            16380.0,
                                   182.0,               1.0};
  // The largest 1-norms for which degrees 3, 5, 7, 9 and 13 meet double's unit roundoff.
  static const double kTheta[] = {1.495585217958292e-2, 2.539398330063230e-1,
                                  9.504178996162932e-1, 2.097847961257068e0,
                                  5.371920351148152e0};
  std::vector<double> x(nn), a2(nn), a4(nn), a6(nn), u(nn), v(nn), t(nn), p(nn), q(nn);
  std::vector<int> ipiv(static_cast<size_t>(std::max<int64_t>(n, 1)));
  for (int64_t b = 0; b < batch; ++b) {
    if (n == 0)
      continue;
    const T *ab = a + b * static_cast<int64_t>(nn);
    T *ob = out + b * static_cast<int64_t>(nn);
    double norm = 0.0;
    bool finite = true;
    for (int64_t j = 0; j < n; ++j) {
      double column = 0.0;
      for (int64_t i = 0; i < n; ++i) {
        const double value = static_cast<double>(ab[i * n + j]);
        finite = finite && std::isfinite(value);
        column += std::fabs(value);
      }
      norm = std::max(norm, column);
    }
    if (!finite) {
      std::fill(ob, ob + nn, std::numeric_limits<T>::quiet_NaN());
      continue;
    }
    int degree = 13, squarings = 0;
    const double *coefficients = kPade13;
    if (norm <= kTheta[0]) {
      degree = 3, coefficients = kPade3;
    } else if (norm <= kTheta[1]) {
      degree = 5, coefficients = kPade5;
    } else if (norm <= kTheta[2]) {
      degree = 7, coefficients = kPade7;
    } else if (norm <= kTheta[3]) {
      degree = 9, coefficients = kPade9;
    } else if (norm > kTheta[4]) {
      squarings = static_cast<int>(std::ceil(std::log2(norm / kTheta[4])));
    }
    const double scale = std::ldexp(1.0, -squarings);
    for (size_t i = 0; i < nn; ++i)
      x[i] = static_cast<double>(ab[i]) * scale;
    multiply(x.data(), x.data(), a2.data());
    // u = x (sum over odd j of b_j x^(j-1)), v = sum over even j of b_j x^j.
    std::fill(t.begin(), t.end(), 0.0);
    std::fill(v.begin(), v.end(), 0.0);
    if (degree < 13) {
      // Powers x^0, x^2, ..., x^(degree - 1) accumulated one at a time.
      std::vector<double> power(nn, 0.0), next(nn);
      for (int64_t i = 0; i < n; ++i)
        power[static_cast<size_t>(i * n + i)] = 1.0;
      for (int j = 0; j + 1 <= degree; j += 2) {
        for (size_t i = 0; i < nn; ++i) {
          v[i] += coefficients[j] * power[i];
          t[i] += coefficients[j + 1] * power[i];
        }
        if (j + 2 <= degree) {
          multiply(power.data(), a2.data(), next.data());
          power.swap(next);
        }
      }
    } else {
      multiply(a2.data(), a2.data(), a4.data());
      multiply(a4.data(), a2.data(), a6.data());
      const double *c = coefficients;
      // t = x^6 (b13 x^6 + b11 x^4 + b9 x^2) + b7 x^6 + b5 x^4 + b3 x^2 + b1 I, and v alike
      // with the even coefficients.
      for (size_t i = 0; i < nn; ++i) {
        p[i] = c[13] * a6[i] + c[11] * a4[i] + c[9] * a2[i];
        q[i] = c[12] * a6[i] + c[10] * a4[i] + c[8] * a2[i];
      }
      multiply(a6.data(), p.data(), t.data());
      multiply(a6.data(), q.data(), v.data());
      for (size_t i = 0; i < nn; ++i) {
        t[i] += c[7] * a6[i] + c[5] * a4[i] + c[3] * a2[i];
        v[i] += c[6] * a6[i] + c[4] * a4[i] + c[2] * a2[i];
      }
      for (int64_t i = 0; i < n; ++i) {
        t[static_cast<size_t>(i * n + i)] += c[1];
        v[static_cast<size_t>(i * n + i)] += c[0];
      }
    }
    multiply(x.data(), t.data(), u.data());
    // (v - u) r = (v + u), solved by LU on column-major copies.
    std::vector<double> &lhs = a4, &rhs = a6;
    for (size_t i = 0; i < nn; ++i) {
      p[i] = v[i] - u[i];
      q[i] = v[i] + u[i];
    }
    to_column_major(p.data(), n, n, lhs.data());
    to_column_major(q.data(), n, n, rhs.data());
    const int order = static_cast<int>(n), lda = std::max(order, 1);
    const char trans = 'N';
    int info = 0;
    getrf(&order, &order, lhs.data(), &lda, ipiv.data(), &info);
    if (info == 0)
      dgetrs_(&trans, &order, &order, lhs.data(), &lda, ipiv.data(), rhs.data(), &lda, &info, 1);
    if (info != 0) { // v - u singular: no approximant (never for finite input within the bounds)
      std::fill(ob, ob + nn, std::numeric_limits<T>::quiet_NaN());
      continue;
    }
    from_column_major(rhs.data(), n, n, n, x.data());
    for (int s = 0; s < squarings; ++s) {
      multiply(x.data(), x.data(), t.data());
      x.swap(t);
    }
    for (size_t i = 0; i < nn; ++i)
      ob[i] = static_cast<T>(x[i]);
  }
}

/// Eigenvalues (ascending) and, with want_vectors, orthonormal eigenvectors (columns of v) of
/// each symmetric n x n matrix, read from its lower (or upper) triangle; info per matrix.
template <typename T>
inline void eigh(const T *a, int64_t batch, int64_t n, bool upper, bool want_vectors, T *w, T *v,
                 int32_t *info) {
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(n * n, 1)));
  const int nn = static_cast<int>(n), lda = std::max(nn, 1);
  const char jobz = want_vectors ? 'V' : 'N';
  const char uplo = upper ? 'L' : 'U'; // the transposed view, as in cholesky
  T query = T(0);
  int iquery = 0, result = 0, lwork = -1, liwork = -1;
  if (n > 0)
    syevd(&jobz, &uplo, &nn, work.data(), &lda, w, &query, &lwork, &iquery, &liwork, &result);
  std::vector<T> scratch(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(query), 1)));
  std::vector<int> iscratch(static_cast<size_t>(std::max(iquery, 1)));
  lwork = static_cast<int>(scratch.size());
  liwork = static_cast<int>(iscratch.size());
  for (int64_t b = 0; b < batch; ++b) {
    std::memcpy(work.data(), a + b * n * n, static_cast<size_t>(n * n) * sizeof(T));
    result = 0;
    if (n > 0)
      syevd(&jobz, &uplo, &nn, work.data(), &lda, w + b * n, scratch.data(), &lwork,
            iscratch.data(), &liwork, &result);
    info[b] = result;
    if (want_vectors) // column-major eigenvectors: column j of the result is vector j
      from_column_major(work.data(), n, n, n, v + b * n * n);
    else
      std::fill(v + b * n * n, v + (b + 1) * n * n, T(0));
  }
}

/// A = U diag(S) Vh of each m x n matrix (divide and conquer, gesdd): S descending; with
/// want_uv, U m x m and Vh n x n (full) or U m x k and Vh k x n (reduced, k = min(m, n)).
template <typename T>
inline void svd(const T *a, int64_t batch, int64_t m, int64_t n, bool full, bool want_uv, T *u,
                T *s, T *vh, int32_t *info) {
  const int64_t k = std::min(m, n);
  const int64_t ucols = full ? m : k, vrows = full ? n : k;
  std::vector<T> work(static_cast<size_t>(std::max<int64_t>(m * n, 1)));
  std::vector<T> ucol(static_cast<size_t>(std::max<int64_t>(m * ucols, 1)));
  std::vector<T> vcol(static_cast<size_t>(std::max<int64_t>(vrows * n, 1)));
  std::vector<int> iwork(static_cast<size_t>(std::max<int64_t>(8 * k, 1)));
  const int mm = static_cast<int>(m), nn = static_cast<int>(n), lda = std::max(mm, 1),
            ldu = std::max(mm, 1), ldvt = std::max(static_cast<int>(vrows), 1);
  const char jobz = !want_uv ? 'N' : (full ? 'A' : 'S');
  T query = T(0);
  int result = 0, lwork = -1;
  if (k > 0)
    gesdd(&jobz, &mm, &nn, work.data(), &lda, s, ucol.data(), &ldu, vcol.data(), &ldvt, &query,
          &lwork, iwork.data(), &result);
  std::vector<T> scratch(static_cast<size_t>(std::max<int64_t>(static_cast<int64_t>(query), 1)));
  lwork = static_cast<int>(scratch.size());
  for (int64_t b = 0; b < batch; ++b) {
    to_column_major(a + b * m * n, m, n, work.data());
    result = 0;
    if (k > 0)
      gesdd(&jobz, &mm, &nn, work.data(), &lda, s + b * k, ucol.data(), &ldu, vcol.data(), &ldvt,
            scratch.data(), &lwork, iwork.data(), &result);
    info[b] = result;
    if (!want_uv) { // U and Vh are zeros (torch.svd's compute_uv=False)
      std::fill(u + b * m * ucols, u + (b + 1) * m * ucols, T(0));
      std::fill(vh + b * vrows * n, vh + (b + 1) * vrows * n, T(0));
      continue;
    }
    if (k == 0) { // no singular values: full U and Vh are identities, reduced ones empty
      std::fill(ucol.begin(), ucol.end(), T(0));
      std::fill(vcol.begin(), vcol.end(), T(0));
      for (int64_t i = 0; i < std::min(m, ucols); ++i)
        ucol[static_cast<size_t>(i * m + i)] = T(1);
      for (int64_t i = 0; i < std::min(n, vrows); ++i)
        vcol[static_cast<size_t>(i * vrows + i)] = T(1);
    }
    from_column_major(ucol.data(), m, ucols, m, u + b * m * ucols);
    from_column_major(vcol.data(), vrows, n, vrows, vh + b * vrows * n);
  }
}

#else // no LAPACK: a clear error where a model uses a factorization

template <typename T> struct lapack_missing {
  static_assert(sizeof(T) == 0,
                "this model uses linear algebra (cholesky, lu, qr, ldl, eigh, svd, solve, det, "
                "matrix_exp...), "
                "which needs LAPACK: install OpenBLAS (Debian: libopenblas-dev) and configure "
                "the bundle again");
};
template <typename T, typename... A> inline void cholesky(const T *, A...) {
  lapack_missing<T>{};
}
template <typename T, typename... A> inline void lu_factor(const T *, A...) {
  lapack_missing<T>{};
}
template <typename T, typename... A> inline void qr(const T *, A...) { lapack_missing<T>{}; }
template <typename T, typename... A> inline void eigh(const T *, A...) { lapack_missing<T>{}; }
template <typename T, typename... A> inline void svd(const T *, A...) { lapack_missing<T>{}; }
template <typename T, typename... A> inline void qr_packed(const T *, A...) {
  lapack_missing<T>{};
}
template <typename T, typename... A> inline void householder_product(const T *, A...) {
  lapack_missing<T>{};
}
template <typename T, typename... A> inline void apply_householder(const T *, A...) {
  lapack_missing<T>{};
}
template <typename T, typename... A> inline void ldl_factor(const T *, A...) {
  lapack_missing<T>{};
}
template <typename T, typename... A> inline void ldl_solve(const T *, A...) {
  lapack_missing<T>{};
}
template <typename T, typename... A> inline void matrix_exp(const T *, A...) {
  lapack_missing<T>{};
}

#endif // TC_USE_LAPACK

} // namespace lapack
} // namespace tc
