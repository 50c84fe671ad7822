// Tests of the cuBLAS subset of the CPU emulation of CUDA (cuda_emu/
// tc_cuda_emu_blas.h) against a naive reference written here: logical matrices op(A) (m x k),
// op(B) (k x n) and C (m x n) are row-major arrays of small integers (exact in every element
// type), stored column-major the way cuBLAS defines each operand (transposed or not, leading
// dimension larger than the rows, batches apart by a stride or broadcast with stride 0), and
// every GEMM entry point must reproduce alpha * op(A) * op(B) + beta * C exactly.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tc_cuda_api.h"
#include "tc_math.h"

#include "emu_test_util.h"

namespace {

using emu_test::DeviceArray;
using emu_test::ScopedEnv;

/// Logical element (i, j) of batch `batch` of operand `which` ('A', 'B' or 'C').
double logicalValue(char which, int batch, int i, int j) {
  const int seed = which == 'A' ? 3 * i + 5 * j : which == 'B' ? 2 * i + 7 * j + 1 : i + 2 * j;
  return ((seed + 4 * batch) % 7) - 3;
}

/// A stored operand: `rows` x `cols` as stored (before op), column-major with `ld` and
/// `stride` elements between batches (0: every batch is batch 0's matrix). Padding holds
/// `padding` so that reading it, or writing it, shows.
template <typename T> struct Stored {
  std::vector<T> values;
  int ld;
  long long stride;
};

template <typename T>
Stored<T> store(char which, int rows, int cols, bool transposed, int batches, bool broadcast,
                T padding) {
  const int storedRows = transposed ? cols : rows, storedCols = transposed ? rows : cols;
  Stored<T> stored{{}, storedRows + 3, 0};
  const long long span = static_cast<long long>(stored.ld) * storedCols;
  stored.stride = broadcast ? 0 : span + 5;
  const int distinct = broadcast ? 1 : batches;
  stored.values.assign(static_cast<size_t>(stored.stride * (distinct - 1) + span), padding);
  for (int batch = 0; batch < distinct; ++batch)
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const long long at =
            batch * stored.stride + (transposed ? j + static_cast<long long>(i) * stored.ld
                                                : i + static_cast<long long>(j) * stored.ld);
        stored.values[at] = tc::cast<T>(logicalValue(which, batch, i, j));
      }
  return stored;
}

struct Shape {
  cublasOperation_t transa, transb;
  int m, n, k;
  double alpha, beta;
  int batches;
  bool broadcastA, broadcastB;
};

/// The device operands of one call, for the entry point under test.
template <typename In, typename Out> struct Operands {
  const In *a;
  int lda;
  long long strideA;
  const In *b;
  int ldb;
  long long strideB;
  Out *c;
  int ldc;
  long long strideC;
};

/// Runs `call` on stored operands and checks every element of C, padding included, against
/// the reference; C starts as NaN (or a sentinel for integers) when beta is 0.
template <typename In, typename Out>
void checkGemm(
    cublasHandle_t handle, const Shape &shape,
    const std::function<cublasStatus_t(cublasHandle_t, const Operands<In, Out> &)> &call) {
  CAPTURE(shape.transa);
  CAPTURE(shape.transb);
  CAPTURE(shape.beta);
  const bool ta = shape.transa != CUBLAS_OP_N, tb = shape.transb != CUBLAS_OP_N;
  const Out sentinel = tc::is_floating<Out>::value
                           ? tc::cast<Out>(std::numeric_limits<double>::quiet_NaN())
                           : tc::cast<Out>(-12345);
  Stored<In> a =
      store<In>('A', shape.m, shape.k, ta, shape.batches, shape.broadcastA, tc::cast<In>(99));
  Stored<In> b =
      store<In>('B', shape.k, shape.n, tb, shape.batches, shape.broadcastB, tc::cast<In>(99));
  Stored<Out> c = store<Out>('C', shape.m, shape.n, false, shape.batches, false, sentinel);
  if (shape.beta == 0) // C is write-only: garbage in it must not matter
    for (Out &value : c.values)
      value = sentinel;
  DeviceArray<In> deviceA(a.values), deviceB(b.values);
  DeviceArray<Out> deviceC(c.values);
  const Operands<In, Out> operands{deviceA.data(), a.ld,           a.stride, deviceB.data(), b.ld,
                                   b.stride,       deviceC.data(), c.ld,     c.stride};
  REQUIRE(call(handle, operands) == CUBLAS_STATUS_SUCCESS);
  std::vector<Out> got = deviceC.read();
  std::vector<Out> want = c.values; // padding unchanged
  for (int batch = 0; batch < shape.batches; ++batch)
    for (int i = 0; i < shape.m; ++i)
      for (int j = 0; j < shape.n; ++j) {
        double sum = 0;
        for (int l = 0; l < shape.k; ++l)
          sum += logicalValue('A', shape.broadcastA ? 0 : batch, i, l) *
                 logicalValue('B', shape.broadcastB ? 0 : batch, l, j);
        double value = shape.alpha * sum;
        if (shape.beta != 0)
          value += shape.beta * logicalValue('C', batch, i, j);
        want[batch * c.stride + i + static_cast<long long>(j) * c.ld] = tc::cast<Out>(value);
      }
  for (size_t at = 0; at < want.size(); ++at) {
    const double g = tc::cast<double>(got[at]), w = tc::cast<double>(want[at]);
    CAPTURE(at);
    CHECK((g == w || (std::isnan(g) && std::isnan(w))));
  }
}

/// Every transpose combination, with alpha = 2 and beta 0 (NaN-filled C) or 1.
std::vector<Shape> shapes(int batches, bool broadcastA, bool broadcastB) {
  std::vector<Shape> all;
  for (cublasOperation_t transa : {CUBLAS_OP_N, CUBLAS_OP_T})
    for (cublasOperation_t transb : {CUBLAS_OP_N, CUBLAS_OP_T})
      for (double beta : {0.0, 1.0})
        all.push_back(Shape{transa, transb, 3, 4, 5, 2.0, beta, batches, broadcastA, broadcastB});
  return all;
}

class Handle {
public:
  Handle() { REQUIRE(cublasCreate(&handle_) == CUBLAS_STATUS_SUCCESS); }
  ~Handle() { cublasDestroy(handle_); }
  operator cublasHandle_t() const { return handle_; }

private:
  cublasHandle_t handle_ = nullptr;
};

TEST_CASE("cublasSgemm and cublasDgemm: column-major, both transposes, ld > rows") {
  Handle handle;
  for (const Shape &shape : shapes(1, false, false)) {
    const float alpha = static_cast<float>(shape.alpha), beta = static_cast<float>(shape.beta);
    checkGemm<float, float>(handle, shape, [&](cublasHandle_t h, const Operands<float, float> &o) {
      return cublasSgemm(h, shape.transa, shape.transb, shape.m, shape.n, shape.k, &alpha, o.a,
                         o.lda, o.b, o.ldb, &beta, o.c, o.ldc);
    });
    checkGemm<double, double>(
        handle, shape, [&](cublasHandle_t h, const Operands<double, double> &o) {
          return cublasDgemm(h, shape.transa, shape.transb, shape.m, shape.n, shape.k, &shape.alpha,
                             o.a, o.lda, o.b, o.ldb, &shape.beta, o.c, o.ldc);
        });
  }
}

TEST_CASE("strided batched GEMMs: batch strides, and stride 0 broadcasting A or B") {
  Handle handle;
  for (bool broadcastA : {false, true})
    for (const Shape &shape : shapes(3, broadcastA, !broadcastA)) {
      const float alpha = static_cast<float>(shape.alpha), beta = static_cast<float>(shape.beta);
      checkGemm<float, float>(
          handle, shape, [&](cublasHandle_t h, const Operands<float, float> &o) {
            return cublasSgemmStridedBatched(h, shape.transa, shape.transb, shape.m, shape.n,
                                             shape.k, &alpha, o.a, o.lda, o.strideA, o.b, o.ldb,
                                             o.strideB, &beta, o.c, o.ldc, o.strideC, 3);
          });
      checkGemm<double, double>(
          handle, shape, [&](cublasHandle_t h, const Operands<double, double> &o) {
            return cublasDgemmStridedBatched(
                h, shape.transa, shape.transb, shape.m, shape.n, shape.k, &shape.alpha, o.a, o.lda,
                o.strideA, o.b, o.ldb, o.strideB, &shape.beta, o.c, o.ldc, o.strideC, 3);
          });
    }
}

/// cublasGemmEx and cublasGemmStridedBatchedEx for In x In -> Out under `compute`.
template <typename In, typename Out, typename Scalar>
void checkGemmEx(cudaDataType_t inType, cudaDataType_t outType, cublasComputeType_t compute) {
  Handle handle;
  for (bool batched : {false, true})
    for (const Shape &shape : shapes(batched ? 2 : 1, false, batched)) {
      const Scalar alpha = static_cast<Scalar>(shape.alpha), beta = static_cast<Scalar>(shape.beta);
      checkGemm<In, Out>(handle, shape, [&](cublasHandle_t h, const Operands<In, Out> &o) {
        if (!batched)
          return cublasGemmEx(h, shape.transa, shape.transb, shape.m, shape.n, shape.k, &alpha, o.a,
                              inType, o.lda, o.b, inType, o.ldb, &beta, o.c, outType, o.ldc,
                              compute, CUBLAS_GEMM_DEFAULT);
        return cublasGemmStridedBatchedEx(h, shape.transa, shape.transb, shape.m, shape.n, shape.k,
                                          &alpha, o.a, inType, o.lda, o.strideA, o.b, inType, o.ldb,
                                          o.strideB, &beta, o.c, outType, o.ldc, o.strideC, 2,
                                          compute, CUBLAS_GEMM_DEFAULT_TENSOR_OP);
      });
    }
}

TEST_CASE("cublasGemmEx and cublasGemmStridedBatchedEx over every supported type combination") {
  SUBCASE("f32") { checkGemmEx<float, float, float>(CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F); }
  SUBCASE("f64") {
    checkGemmEx<double, double, double>(CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F);
  }
  SUBCASE("f16 -> f16") {
    checkGemmEx<tc::half, tc::half, float>(CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F);
  }
  SUBCASE("bf16 -> bf16") {
    checkGemmEx<tc::bfloat16, tc::bfloat16, float>(CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F);
  }
  SUBCASE("f16 -> f32") {
    checkGemmEx<tc::half, float, float>(CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC);
  }
  SUBCASE("bf16 -> f32") {
    checkGemmEx<tc::bfloat16, float, float>(CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F);
  }
  SUBCASE("i8 -> i32") {
    checkGemmEx<int8_t, int32_t, int32_t>(CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I);
  }
}

TEST_CASE("the row-major idiom: C = A B as cublasSgemm(N, N, n, m, k, B, A)") {
  Handle handle;
  const int m = 2, n = 3, k = 4;
  std::vector<float> a(m * k), b(k * n), want(m * n, 0.0f);
  for (int i = 0; i < m * k; ++i)
    a[i] = static_cast<float>(i + 1);
  for (int i = 0; i < k * n; ++i)
    b[i] = static_cast<float>(i % 5 - 2);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int l = 0; l < k; ++l)
        want[i * n + j] += a[i * k + l] * b[l * n + j];
  DeviceArray<float> deviceA(a), deviceB(b), deviceC(m * n);
  const float one = 1, zero = 0;
  REQUIRE(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, deviceB.data(), n,
                      deviceA.data(), k, &zero, deviceC.data(), n) == CUBLAS_STATUS_SUCCESS);
  CHECK(deviceC.read() == want);
}

TEST_CASE("alpha = 0 or k = 0 leaves A and B unread; C becomes beta * C") {
  Handle handle;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  DeviceArray<float> a(std::vector<float>(4, nan)), b(std::vector<float>(4, nan));
  DeviceArray<float> c(std::vector<float>{1, 2, 3, 4});
  const float zero = 0, three = 3;
  REQUIRE(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &zero, a.data(), 2, b.data(), 2,
                      &three, c.data(), 2) == CUBLAS_STATUS_SUCCESS);
  CHECK(c.read() == std::vector<float>{3, 6, 9, 12});
  const float one = 1;
  REQUIRE(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 0, &one, a.data(), 2, b.data(), 2,
                      &zero, c.data(), 2) == CUBLAS_STATUS_SUCCESS);
  CHECK(c.read() == std::vector<float>(4, 0.0f));
}

TEST_CASE("arguments are validated as cuBLAS documents") {
  Handle handle;
  DeviceArray<float> a(64), b(64), c(64);
  const float one = 1;
  auto sgemm = [&](cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                   int k, int lda, int ldb, int ldc, const float *alpha = nullptr) {
    return cublasSgemm(h, ta, tb, m, n, k, alpha ? alpha : &one, a.data(), lda, b.data(), ldb, &one,
                       c.data(), ldc);
  };
  const cublasOperation_t N = CUBLAS_OP_N, T = CUBLAS_OP_T;
  CHECK(sgemm(handle, N, N, 4, 3, 2, 4, 2, 4) == CUBLAS_STATUS_SUCCESS);
  CHECK(sgemm(handle, N, N, 4, 3, 2, 3, 2, 4) == CUBLAS_STATUS_INVALID_VALUE); // lda < m
  CHECK(sgemm(handle, T, N, 4, 3, 2, 1, 2, 4) == CUBLAS_STATUS_INVALID_VALUE); // A^T: lda < k
  CHECK(sgemm(handle, T, N, 4, 3, 2, 2, 2, 4) == CUBLAS_STATUS_SUCCESS);       // lda = k < m
  CHECK(sgemm(handle, N, N, 4, 3, 2, 4, 1, 4) == CUBLAS_STATUS_INVALID_VALUE); // ldb < k
  CHECK(sgemm(handle, N, T, 4, 3, 2, 4, 2, 4) == CUBLAS_STATUS_INVALID_VALUE); // ldb < n
  CHECK(sgemm(handle, N, N, 4, 3, 2, 4, 2, 3) == CUBLAS_STATUS_INVALID_VALUE); // ldc < m
  CHECK(sgemm(handle, N, N, 0, 3, 2, 0, 2, 0) == CUBLAS_STATUS_INVALID_VALUE); // ld >= 1
  CHECK(sgemm(handle, N, N, -1, 3, 2, 4, 2, 4) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(sgemm(handle, CUBLAS_OP_CONJG, N, 4, 3, 2, 4, 2, 4) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(sgemm(nullptr, N, N, 4, 3, 2, 4, 2, 4) == CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK(cublasSgemmStridedBatched(handle, N, N, 4, 3, 2, &one, a.data(), 4, 8, b.data(), 2, 6, &one,
                                  c.data(), 4, 12, -1) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(cublasSgemm(handle, N, N, 4, 3, 2, nullptr, a.data(), 4, b.data(), 2, &one, c.data(), 4) ==
        CUBLAS_STATUS_INVALID_VALUE);
  // Type combinations cuBLAS does not offer.
  CHECK(cublasGemmEx(handle, N, N, 4, 3, 2, &one, a.data(), CUDA_R_16F, 4, b.data(), CUDA_R_32F, 2,
                     &one, c.data(), CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cublasGemmEx(handle, N, N, 4, 3, 2, &one, a.data(), CUDA_R_64F, 4, b.data(), CUDA_R_64F, 2,
                     &one, c.data(), CUDA_R_64F, 4, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cublasGemmEx(handle, N, N, 4, 3, 2, &one, a.data(), CUDA_R_32F, 4, b.data(), CUDA_R_32F, 2,
                     &one, c.data(), CUDA_R_32F, 4, CUBLAS_COMPUTE_32F,
                     static_cast<cublasGemmAlgo_t>(50)) == CUBLAS_STATUS_NOT_SUPPORTED);
}

TEST_CASE("operands outside device memory fail like an illegal address") {
  Handle handle;
  DeviceArray<float> a(8), b(8), c(8);
  std::vector<float> host(8, 0.0f);
  const float one = 1;
  CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, host.data(), 2, b.data(), 2,
                    &one, c.data(), 2) == CUBLAS_STATUS_EXECUTION_FAILED);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  // ld 4 puts the last column of a 2 x 3 A at elements 8..9, past the 8-element buffer.
  CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 1, 3, &one, a.data(), 4, b.data(), 3, &one,
                    c.data(), 2) == CUBLAS_STATUS_EXECUTION_FAILED);
  CHECK(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.data(), 2, 4,
                                  b.data(), 2, 0, &one, c.data(), 2, 4,
                                  3) == CUBLAS_STATUS_EXECUTION_FAILED); // batch 2 of A and C
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
}

TEST_CASE("reduced-precision modes round fp32 inputs like the tensor cores") {
  Handle handle;
  const float input = 1.0f + std::ldexp(1.0f, -12); // not representable in TF32, bf16, f16
  DeviceArray<float> a(std::vector<float>{input}), b(std::vector<float>{1.0f}), c(1);
  const float one = 1, zero = 0;
  auto product = [&](cublasComputeType_t compute) {
    REQUIRE(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a.data(), CUDA_R_32F, 1,
                         b.data(), CUDA_R_32F, 1, &zero, c.data(), CUDA_R_32F, 1, compute,
                         CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS);
    return c.read()[0];
  };
  CHECK(product(CUBLAS_COMPUTE_32F) == input);
  CHECK(product(CUBLAS_COMPUTE_32F_FAST_TF32) == 1.0f);
  CHECK(product(CUBLAS_COMPUTE_32F_FAST_16BF) == 1.0f);
  CHECK(product(CUBLAS_COMPUTE_32F_FAST_16F) == 1.0f);
  REQUIRE(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH) == CUBLAS_STATUS_SUCCESS);
  CHECK(product(CUBLAS_COMPUTE_32F) == 1.0f);
  CHECK(product(CUBLAS_COMPUTE_32F_PEDANTIC) == input);
  {
    ScopedEnv off("NVIDIA_TF32_OVERRIDE", "0");
    CHECK(product(CUBLAS_COMPUTE_32F) == input);
  }
  REQUIRE(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH) == CUBLAS_STATUS_SUCCESS);
  REQUIRE(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &one, a.data(), 1, b.data(), 1,
                      &zero, c.data(), 1) == CUBLAS_STATUS_SUCCESS);
  CHECK(c.read()[0] == input);
}

TEST_CASE("handles: streams, math modes, workspaces, status names") {
  cublasHandle_t handle = nullptr;
  REQUIRE(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
  cudaStream_t stream = nullptr, got = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  CHECK(cublasSetStream(handle, stream) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasGetStream(handle, &got) == CUBLAS_STATUS_SUCCESS);
  CHECK(got == stream);
  cublasMath_t mode = CUBLAS_PEDANTIC_MATH;
  CHECK(cublasGetMathMode(handle, &mode) == CUBLAS_STATUS_SUCCESS);
  CHECK(mode == CUBLAS_DEFAULT_MATH);
  CHECK(cublasSetMathMode(handle, static_cast<cublasMath_t>(9)) == CUBLAS_STATUS_INVALID_VALUE);
  DeviceArray<unsigned char> workspace(1024);
  CHECK(cublasSetWorkspace(handle, workspace.data(), 1024) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasSetWorkspace(handle, workspace.data() + 16, 512) == CUBLAS_STATUS_INVALID_VALUE);
  CHECK(cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS);
  CHECK(cublasDestroy(handle) == CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK(cublasSetStream(handle, stream) == CUBLAS_STATUS_NOT_INITIALIZED);
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
  CHECK(std::string(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE)) ==
        "CUBLAS_STATUS_INVALID_VALUE");
  CHECK(std::string(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED)) ==
        "the functionality requested is not supported");
}

} // namespace

TEST_CASE("a GEMM on a capturing stream runs when the graph is launched") {
  cublasHandle_t handle = nullptr;
  REQUIRE(cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  REQUIRE(cublasSetStream(handle, stream) == CUBLAS_STATUS_SUCCESS);
  emu_test::DeviceArray<float> a(std::vector<float>{1, 2, 3, 4}); // 2x2, column-major
  emu_test::DeviceArray<float> c(std::vector<float>(4, 0.0f));
  const float one = 1.0f, zero = 0.0f;
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, a.data(), 2, a.data(), 2,
                    &zero, c.data(), 2) == CUBLAS_STATUS_SUCCESS);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  CHECK(c.read() == std::vector<float>(4, 0.0f));
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
  CHECK(c.read() == std::vector<float>{7, 10, 15, 22});
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  CHECK(cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}
