// The cuBLAS subset generated bundles call (cublas_v2.h names), for the CPU emulation of CUDA
// (tc_cuda_emu.h): handles and the GEMM family with cuBLAS's exact semantics. Matrices are
// column-major; C = alpha * op(A) * op(B) + beta * C with op(A) m x k; arguments are
// validated as the cuBLAS documentation states; when beta == 0, C is not read (NaN in it does
// not propagate) and when alpha == 0 or k == 0, A and B are not read.
// Precision: products and sums are exact-then-rounded in double (int64 for 8-bit integer
// GEMMs), and each result is rounded once to C's type (tc::cast for f16/bf16, whose bits match
// __half/__nv_bfloat16). Modes that let a GPU down-convert fp32 inputs (TF32 math mode,
// CUBLAS_COMPUTE_32F_FAST_*) round the inputs the same way, so CI sees their error too.
// Pointer mode is host only: alpha and beta are host pointers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tc_cuda_emu_runtime.h"
#include "tc_math.h"

#define TC_EMU_CUBLAS_STATUSES(X)                                                                  \
  X(CUBLAS_STATUS_SUCCESS, 0, "the operation completed successfully")                              \
  X(CUBLAS_STATUS_NOT_INITIALIZED, 1, "the library was not initialized")                           \
  X(CUBLAS_STATUS_ALLOC_FAILED, 3, "the resource allocation failed")                               \
  X(CUBLAS_STATUS_INVALID_VALUE, 7, "an invalid numeric value was used as an argument")            \
  X(CUBLAS_STATUS_ARCH_MISMATCH, 8, "an absent device architectural feature is required")          \
  X(CUBLAS_STATUS_MAPPING_ERROR, 11, "an access to GPU memory space failed")                       \
  X(CUBLAS_STATUS_EXECUTION_FAILED, 13, "the GPU program failed to execute")                       \
  X(CUBLAS_STATUS_INTERNAL_ERROR, 14, "an internal operation failed")                              \
  X(CUBLAS_STATUS_NOT_SUPPORTED, 15, "the functionality requested is not supported")               \
  X(CUBLAS_STATUS_LICENSE_ERROR, 16, "the functionality requested requires some license")

#define TC_EMU_ENUMERATOR(name, value, message) name = value,
enum cublasStatus_t { TC_EMU_CUBLAS_STATUSES(TC_EMU_ENUMERATOR) };
#undef TC_EMU_ENUMERATOR

enum cublasOperation_t {
  CUBLAS_OP_N = 0,
  CUBLAS_OP_T = 1,
  CUBLAS_OP_C = 2,
  CUBLAS_OP_HERMITAN = 2,
  CUBLAS_OP_CONJG = 3, // not valid for GEMMs (as in cuBLAS)
};

enum cublasMath_t {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TENSOR_OP_MATH = 1, // deprecated: fp32 GEMMs as with CUBLAS_COMPUTE_32F_FAST_16F
  CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3,
  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16,
};

enum cudaDataType_t {
  CUDA_R_32F = 0,
  CUDA_R_64F = 1,
  CUDA_R_16F = 2,
  CUDA_R_8I = 3,
  CUDA_R_32I = 10,
  CUDA_R_16BF = 14,
};
typedef cudaDataType_t cudaDataType;

enum cublasComputeType_t {
  CUBLAS_COMPUTE_16F = 64,
  CUBLAS_COMPUTE_16F_PEDANTIC = 65,
  CUBLAS_COMPUTE_32F = 68,
  CUBLAS_COMPUTE_32F_PEDANTIC = 69,
  CUBLAS_COMPUTE_64F = 70,
  CUBLAS_COMPUTE_64F_PEDANTIC = 71,
  CUBLAS_COMPUTE_32I = 72,
  CUBLAS_COMPUTE_32I_PEDANTIC = 73,
  CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75,
  CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
};

/// Algorithms only select kernels on a GPU; the valid values are -1..23 and 99..115.
enum cublasGemmAlgo_t {
  CUBLAS_GEMM_DEFAULT = -1,
  CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,
};

struct cublasContext {
  cudaStream_t stream;
  cublasMath_t mathMode;
  void *workspace;
  size_t workspaceBytes;
};
typedef cublasContext *cublasHandle_t;

namespace tc {
namespace emu {
namespace blas {

/// What fp32 inputs are rounded to before the products (the modes that allow it on a GPU).
enum class InputRounding { None, Tf32, Half, BFloat16 };

/// The type alpha and beta point to, fixed by the compute type; Unsupported for type
/// combinations cuBLAS does not offer (or this emulation does not: CUBLAS_COMPUTE_16F).
enum class ScalarType { Float, Double, Int32, Unsupported };

inline ScalarType scalarType(cudaDataType_t a, cudaDataType_t b, cudaDataType_t c,
                             cublasComputeType_t compute) {
  if (a != b)
    return ScalarType::Unsupported;
  switch (compute) {
  case CUBLAS_COMPUTE_32F:
  case CUBLAS_COMPUTE_32F_PEDANTIC:
    if ((a == CUDA_R_32F && c == CUDA_R_32F) || (a == CUDA_R_8I && c == CUDA_R_32F) ||
        ((a == CUDA_R_16F || a == CUDA_R_16BF) && (c == a || c == CUDA_R_32F)))
      return ScalarType::Float;
    return ScalarType::Unsupported;
  case CUBLAS_COMPUTE_32F_FAST_16F:
  case CUBLAS_COMPUTE_32F_FAST_16BF:
  case CUBLAS_COMPUTE_32F_FAST_TF32:
    return a == CUDA_R_32F && c == CUDA_R_32F ? ScalarType::Float : ScalarType::Unsupported;
  case CUBLAS_COMPUTE_64F:
  case CUBLAS_COMPUTE_64F_PEDANTIC:
    return a == CUDA_R_64F && c == CUDA_R_64F ? ScalarType::Double : ScalarType::Unsupported;
  case CUBLAS_COMPUTE_32I:
  case CUBLAS_COMPUTE_32I_PEDANTIC:
    return a == CUDA_R_8I && c == CUDA_R_32I ? ScalarType::Int32 : ScalarType::Unsupported;
  default:
    return ScalarType::Unsupported;
  }
}

/// How fp32 inputs are rounded under `compute` and the handle's math mode. TF32 follows the
/// driver's NVIDIA_TF32_OVERRIDE=0 switch, which disables it process-wide.
inline InputRounding inputRounding(cublasMath_t mathMode, cudaDataType_t a,
                                   cublasComputeType_t compute) {
  if (a != CUDA_R_32F)
    return InputRounding::None;
  const char *override = std::getenv("NVIDIA_TF32_OVERRIDE");
  const bool tf32 = override == nullptr || std::strcmp(override, "0") != 0;
  const int mode = mathMode & 0xf;
  if (compute == CUBLAS_COMPUTE_32F_FAST_16F ||
      (compute == CUBLAS_COMPUTE_32F && mode == CUBLAS_TENSOR_OP_MATH))
    return InputRounding::Half;
  if (compute == CUBLAS_COMPUTE_32F_FAST_16BF)
    return InputRounding::BFloat16;
  if (tf32 && (compute == CUBLAS_COMPUTE_32F_FAST_TF32 ||
               (compute == CUBLAS_COMPUTE_32F && mode == CUBLAS_TF32_TENSOR_OP_MATH)))
    return InputRounding::Tf32;
  return InputRounding::None;
}

/// `value` rounded to TF32 (10 explicit mantissa bits) to nearest, ties away from zero, as
/// the tensor cores' cvt.rna.tf32.f32 does.
inline float roundToTf32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7F800000u) == 0x7F800000u)
    return value; // inf and NaN pass through
  bits = (bits + 0x1000u) & ~0x1FFFu;
  std::memcpy(&value, &bits, sizeof(bits));
  return value;
}

inline size_t elementBytes(cudaDataType_t type) {
  switch (type) {
  case CUDA_R_64F:
    return 8;
  case CUDA_R_32F:
  case CUDA_R_32I:
    return 4;
  case CUDA_R_16F:
  case CUDA_R_16BF:
    return 2;
  default:
    return 1;
  }
}

inline double loadElement(const void *data, cudaDataType_t type, int64_t index,
                          InputRounding rounding) {
  switch (type) {
  case CUDA_R_32F: {
    float value = static_cast<const float *>(data)[index];
    if (rounding == InputRounding::Tf32)
      value = roundToTf32(value);
    else if (rounding == InputRounding::Half)
      value = tc::to_float(tc::cast<tc::half>(value));
    else if (rounding == InputRounding::BFloat16)
      value = tc::to_float(tc::cast<tc::bfloat16>(value));
    return value;
  }
  case CUDA_R_64F:
    return static_cast<const double *>(data)[index];
  case CUDA_R_16F:
    return tc::to_float(static_cast<const tc::half *>(data)[index]);
  case CUDA_R_16BF:
    return tc::to_float(static_cast<const tc::bfloat16 *>(data)[index]);
  case CUDA_R_8I:
    return static_cast<const int8_t *>(data)[index];
  default:
    return static_cast<const int32_t *>(data)[index];
  }
}

/// Stores a result, rounding it once to C's type (int32 results wrap).
template <typename Acc>
void storeElement(void *data, cudaDataType_t type, int64_t index, Acc value) {
  switch (type) {
  case CUDA_R_32F:
    static_cast<float *>(data)[index] = static_cast<float>(value);
    break;
  case CUDA_R_64F:
    static_cast<double *>(data)[index] = static_cast<double>(value);
    break;
  case CUDA_R_16F:
    static_cast<tc::half *>(data)[index] = tc::cast<tc::half>(static_cast<double>(value));
    break;
  case CUDA_R_16BF:
    static_cast<tc::bfloat16 *>(data)[index] = tc::cast<tc::bfloat16>(static_cast<double>(value));
    break;
  default:
    static_cast<int32_t *>(data)[index] = static_cast<int32_t>(
        static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(value))));
    break;
  }
}

/// One stored matrix operand: `rows` x `cols` as stored (before op), column-major.
struct Matrix {
  const void *data;
  cudaDataType_t type;
  int rows, cols, ld;
  long long stride; // elements between batches
  bool transposed;  // op(X) = X^T
};

/// True when every batch of `matrix` lies inside one allocation; otherwise says which
/// operand is not device memory (a GPU would fault on it).
inline bool operandAccessible(const char *name, const Matrix &matrix, int batches) {
  if (matrix.rows == 0 || matrix.cols == 0 || batches == 0)
    return true;
  const long long span = static_cast<long long>(matrix.cols - 1) * matrix.ld + matrix.rows;
  const long long last = static_cast<long long>(batches - 1) * matrix.stride;
  const long long low = last < 0 ? last : 0, high = (last > 0 ? last : 0) + span;
  const size_t bytes = elementBytes(matrix.type);
  const char *base = static_cast<const char *>(matrix.data) + low * static_cast<long long>(bytes);
  if (matrix.data != nullptr &&
      detail::registry().accessible(base, static_cast<size_t>(high - low) * bytes))
    return true;
  std::fprintf(stderr,
               "tc_cuda_emu: cuBLAS operand %s (%p, %lld elements over %d batch(es)) is not "
               "inside one device allocation: a GPU would fault\n",
               name, matrix.data, high - low, batches);
  return false;
}

/// C(m x n) = alpha * op(A) * op(B) + beta * C for every batch; arguments already checked.
/// op(A) and op(B) are first packed, widened to Acc, so that the inner loop is contiguous.
template <typename Acc>
void runGemm(int m, int n, int k, Acc alpha, const Matrix &a, const Matrix &b, Acc beta, void *c,
             cudaDataType_t cType, int ldc, long long strideC, int batches,
             InputRounding rounding) {
  if (m == 0 || n == 0)
    return;
  const bool readInputs = k > 0 && alpha != Acc(0);
  std::vector<Acc> packedA(readInputs ? static_cast<size_t>(m) * k : 0);
  std::vector<Acc> packedB(readInputs ? static_cast<size_t>(n) * k : 0);
  for (int batch = 0; batch < batches; ++batch) {
    if (readInputs) {
      const int64_t offsetA = batch * a.stride, offsetB = batch * b.stride;
      for (int i = 0; i < m; ++i) // op(A)(i, l) is A(i, l), or A(l, i) when transposed
        for (int l = 0; l < k; ++l)
          packedA[static_cast<size_t>(i) * k + l] = static_cast<Acc>(loadElement(
              a.data, a.type,
              offsetA + (a.transposed ? l + int64_t{i} * a.ld : i + int64_t{l} * a.ld), rounding));
      for (int j = 0; j < n; ++j) // op(B)(l, j) is B(l, j), or B(j, l) when transposed
        for (int l = 0; l < k; ++l)
          packedB[static_cast<size_t>(j) * k + l] = static_cast<Acc>(loadElement(
              b.data, b.type,
              offsetB + (b.transposed ? j + int64_t{l} * b.ld : l + int64_t{j} * b.ld), rounding));
    }
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        Acc sum = 0;
        if (readInputs) {
          const Acc *row = &packedA[static_cast<size_t>(i) * k];
          const Acc *column = &packedB[static_cast<size_t>(j) * k];
          for (int l = 0; l < k; ++l)
            sum += row[l] * column[l];
          sum *= alpha;
        }
        const int64_t at = batch * strideC + i + int64_t{j} * ldc;
        if (beta != Acc(0)) // beta == 0: C is write-only
          sum += beta * static_cast<Acc>(loadElement(c, cType, at, InputRounding::None));
        storeElement(c, cType, at, sum);
      }
  }
}

inline bool validOperation(cublasOperation_t op) {
  return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

inline bool validHandle(cublasHandle_t handle) {
  detail::Registry &state = detail::registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  return handle != nullptr && state.blasHandles.count(handle) != 0;
}

/// Every GEMM entry point: the argument checks cuBLAS documents, then the computation.
inline cublasStatus_t gemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const void *alpha,
                           const void *A, cudaDataType_t Atype, int lda, long long strideA,
                           const void *B, cudaDataType_t Btype, int ldb, long long strideB,
                           const void *beta, void *C, cudaDataType_t Ctype, int ldc,
                           long long strideC, int batchCount, cublasComputeType_t computeType,
                           int algo) {
  if (!validHandle(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!validOperation(transa) || !validOperation(transb) || m < 0 || n < 0 || k < 0 ||
      batchCount < 0 || alpha == nullptr || beta == nullptr)
    return CUBLAS_STATUS_INVALID_VALUE;
  const Matrix a{A,   Atype,   transa == CUBLAS_OP_N ? m : k, transa == CUBLAS_OP_N ? k : m,
                 lda, strideA, transa != CUBLAS_OP_N};
  const Matrix b{B,   Btype,   transb == CUBLAS_OP_N ? k : n, transb == CUBLAS_OP_N ? n : k,
                 ldb, strideB, transb != CUBLAS_OP_N};
  if (lda < std::max(1, a.rows) || ldb < std::max(1, b.rows) || ldc < std::max(1, m))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (!(algo >= -1 && algo <= 23) && !(algo >= 99 && algo <= 115))
    return CUBLAS_STATUS_NOT_SUPPORTED;
  const ScalarType scalar = scalarType(Atype, Btype, Ctype, computeType);
  if (scalar == ScalarType::Unsupported)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  if (m == 0 || n == 0 || batchCount == 0)
    return CUBLAS_STATUS_SUCCESS;

  double alphaValue = 0, betaValue = 0;
  if (scalar == ScalarType::Float) {
    alphaValue = *static_cast<const float *>(alpha);
    betaValue = *static_cast<const float *>(beta);
  } else if (scalar == ScalarType::Double) {
    alphaValue = *static_cast<const double *>(alpha);
    betaValue = *static_cast<const double *>(beta);
  }
  const bool readsInputs =
      k > 0 &&
      (scalar == ScalarType::Int32 ? *static_cast<const int32_t *>(alpha) != 0 : alphaValue != 0);
  const Matrix c{C, Ctype, m, n, ldc, strideC, false};
  if ((readsInputs &&
       !(operandAccessible("A", a, batchCount) && operandAccessible("B", b, batchCount))) ||
      !operandAccessible("C", c, batchCount)) {
    detail::fail(cudaErrorIllegalAddress);
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  // alpha and beta are read now (host pointer mode); the product runs on the handle's stream,
  // or is recorded when that stream captures a graph.
  if (scalar == ScalarType::Int32) {
    const int32_t alphaInt = *static_cast<const int32_t *>(alpha);
    const int32_t betaInt = *static_cast<const int32_t *>(beta);
    detail::enqueue(handle->stream, [=] {
      runGemm<int64_t>(m, n, k, alphaInt, a, b, betaInt, C, Ctype, ldc, strideC, batchCount,
                       InputRounding::None);
    });
    return CUBLAS_STATUS_SUCCESS;
  }
  const InputRounding rounding = inputRounding(handle->mathMode, Atype, computeType);
  detail::enqueue(handle->stream, [=] {
    runGemm<double>(m, n, k, alphaValue, a, b, betaValue, C, Ctype, ldc, strideC, batchCount,
                    rounding);
  });
  return CUBLAS_STATUS_SUCCESS;
}

/// The compute type of the typed fp32/fp64 entry points under the handle's math mode.
inline cublasComputeType_t typedCompute(cublasHandle_t handle, bool isDouble) {
  const bool pedantic = validHandle(handle) && (handle->mathMode & 0xf) == CUBLAS_PEDANTIC_MATH;
  if (isDouble)
    return pedantic ? CUBLAS_COMPUTE_64F_PEDANTIC : CUBLAS_COMPUTE_64F;
  return pedantic ? CUBLAS_COMPUTE_32F_PEDANTIC : CUBLAS_COMPUTE_32F;
}

} // namespace blas
} // namespace emu
} // namespace tc

inline const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
#define TC_EMU_NAME_CASE(name, value, message)                                                     \
  case name:                                                                                       \
    return #name;
    TC_EMU_CUBLAS_STATUSES(TC_EMU_NAME_CASE)
#undef TC_EMU_NAME_CASE
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

inline const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
#define TC_EMU_MESSAGE_CASE(name, value, message)                                                  \
  case name:                                                                                       \
    return message;
    TC_EMU_CUBLAS_STATUSES(TC_EMU_MESSAGE_CASE)
#undef TC_EMU_MESSAGE_CASE
  }
  return "unknown error";
}

inline cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  if (handle == nullptr)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext{nullptr, CUBLAS_DEFAULT_MATH, nullptr, 0};
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.blasHandles.insert(*handle);
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.blasHandles.erase(handle) == 0)
      return CUBLAS_STATUS_NOT_INITIALIZED;
  }
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (!tc::emu::blas::validHandle(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream) {
  if (!tc::emu::blas::validHandle(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (stream == nullptr)
    return CUBLAS_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (!tc::emu::blas::validHandle(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if ((mode & ~CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) > CUBLAS_TF32_TENSOR_OP_MATH)
    return CUBLAS_STATUS_INVALID_VALUE;
  handle->mathMode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode) {
  if (!tc::emu::blas::validHandle(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (mode == nullptr)
    return CUBLAS_STATUS_INVALID_VALUE;
  *mode = handle->mathMode;
  return CUBLAS_STATUS_SUCCESS;
}

/// The workspace must be 256-byte aligned (cuBLAS's requirement); it is never used here.
inline cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void *workspace,
                                         size_t workspaceSizeInBytes) {
  if (!tc::emu::blas::validHandle(handle))
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (reinterpret_cast<uintptr_t>(workspace) % 256 != 0 ||
      (workspace == nullptr && workspaceSizeInBytes > 0))
    return CUBLAS_STATUS_INVALID_VALUE;
  handle->workspace = workspace;
  handle->workspaceBytes = workspaceSizeInBytes;
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k, const float *alpha,
                                  const float *A, int lda, const float *B, int ldb,
                                  const float *beta, float *C, int ldc) {
  return tc::emu::blas::gemm(handle, transa, transb, m, n, k, alpha, A, CUDA_R_32F, lda, 0, B,
                             CUDA_R_32F, ldb, 0, beta, C, CUDA_R_32F, ldc, 0, 1,
                             tc::emu::blas::typedCompute(handle, false), CUBLAS_GEMM_DEFAULT);
}

inline cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k,
                                  const double *alpha, const double *A, int lda, const double *B,
                                  int ldb, const double *beta, double *C, int ldc) {
  return tc::emu::blas::gemm(handle, transa, transb, m, n, k, alpha, A, CUDA_R_64F, lda, 0, B,
                             CUDA_R_64F, ldb, 0, beta, C, CUDA_R_64F, ldc, 0, 1,
                             tc::emu::blas::typedCompute(handle, true), CUBLAS_GEMM_DEFAULT);
}

inline cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                cublasOperation_t transb, int m, int n, int k,
                                                const float *alpha, const float *A, int lda,
                                                long long int strideA, const float *B, int ldb,
                                                long long int strideB, const float *beta, float *C,
                                                int ldc, long long int strideC, int batchCount) {
  return tc::emu::blas::gemm(handle, transa, transb, m, n, k, alpha, A, CUDA_R_32F, lda, strideA, B,
                             CUDA_R_32F, ldb, strideB, beta, C, CUDA_R_32F, ldc, strideC,
                             batchCount, tc::emu::blas::typedCompute(handle, false),
                             CUBLAS_GEMM_DEFAULT);
}

inline cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                                cublasOperation_t transb, int m, int n, int k,
                                                const double *alpha, const double *A, int lda,
                                                long long int strideA, const double *B, int ldb,
                                                long long int strideB, const double *beta,
                                                double *C, int ldc, long long int strideC,
                                                int batchCount) {
  return tc::emu::blas::gemm(handle, transa, transb, m, n, k, alpha, A, CUDA_R_64F, lda, strideA, B,
                             CUDA_R_64F, ldb, strideB, beta, C, CUDA_R_64F, ldc, strideC,
                             batchCount, tc::emu::blas::typedCompute(handle, true),
                             CUBLAS_GEMM_DEFAULT);
}

inline cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                                   cublasOperation_t transb, int m, int n, int k, const void *alpha,
                                   const void *A, cudaDataType Atype, int lda, const void *B,
                                   cudaDataType Btype, int ldb, const void *beta, void *C,
                                   cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                                   cublasGemmAlgo_t algo) {
  return tc::emu::blas::gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, 0, B, Btype,
                             ldb, 0, beta, C, Ctype, ldc, 0, 1, computeType, algo);
}

inline cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
    const void *alpha, const void *A, cudaDataType Atype, int lda, long long int strideA,
    const void *B, cudaDataType Btype, int ldb, long long int strideB, const void *beta, void *C,
    cudaDataType Ctype, int ldc, long long int strideC, int batchCount,
    cublasComputeType_t computeType, cublasGemmAlgo_t algo) {
  return tc::emu::blas::gemm(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B,
                             Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount,
                             computeType, algo);
}
