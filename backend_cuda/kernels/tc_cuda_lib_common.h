// The shared part of tcg, the CUDA twin of the tc:: kernel library: the execution context and
// result types every tcg function takes and returns, and the device helpers the op families
// (tc_cuda_lib_*.h) share: read-only loads, 16-byte vectors, per-type math and grid sizing.
#pragma once

#include "tc_cuda.h"
#include "tc_cuda_api.h"

#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tcg {

/// Device memory where gathers record the first out-of-range index they meet (the host reads
/// it after synchronizing): a kernel cannot stop a run, so the row becomes zeros and this says
/// where and what the bad index was.
struct gather_error {
  int flag = 0;            ///< 1 once an index was out of range
  int site = 0;            ///< exec::error_site of the launch that set the flag
  long long position = 0;  ///< the bad index's position in the index tensor
  long long value = 0;     ///< its value
  long long extent = 0;    ///< the valid range is [0, extent)
};

/// Per-context execution resources, owned by the bundle's context.
struct exec {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  gather_error *error = nullptr; ///< device record of an out-of-range gather index (or null)
  int error_site = 0;            ///< caller's tag for the next gathers, copied into `error`
  bool allow_tf32 = false;   ///< fp32 GEMMs/convs may use TF32 tensor cores
};

/// A call's outcome; `api` names the failing CUDA/cuBLAS call ("cublasGemmStridedBatchedEx",
/// "kernel launch"), null on success; `message` is cudaGetErrorString/cublasGetStatusString.
/// A limit of this library (not a CUDA error) has code kUnsupported, `api` naming the tcg
/// function and `message` the limit.
struct result {
  const char *api = nullptr;
  int code = 0;
  const char *message = "";
  bool ok() const { return api == nullptr; }
};

/// The code of a result that reports a limit of tcg rather than a CUDA or cuBLAS failure.
constexpr int kUnsupported = -1;

/// A failed runtime call also becomes the thread's "last error"; it is consumed here so that
/// the next launch check (cudaGetLastError) does not report it a second time.
inline result check(cudaError_t error, const char *api) {
  if (error == cudaSuccess)
    return result{};
  (void)cudaGetLastError();
  return result{api, static_cast<int>(error), cudaGetErrorString(error)};
}

inline result check(cublasStatus_t status, const char *api) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return result{};
  return result{api, static_cast<int>(status), cublasGetStatusString(status)};
}

namespace detail {

constexpr int kThreads = tc::cuda::kBlockThreads;
constexpr int kWarp = tc::cuda::kWarpThreads;
/// Grid y and z extents are limited to this; kernels loop when there is more work.
constexpr int64_t kMaxGridYZ = 65535;
/// Shape and stride arrays travel to kernels by value; tcg supports this many (collapsed) dims.
constexpr int kMaxRank = 8;

inline result unsupported(const char *function, const char *limit) {
  return result{function, kUnsupported, limit};
}

/// The outcome of the kernel launch just enqueued (launch errors are reported synchronously;
/// faults during execution surface at the next synchronizing call, as usual in CUDA).
inline result launched() { return check(cudaGetLastError(), "kernel launch"); }

/// Blocks of kThreads for a grid-stride loop over `work` items, capped (threads then loop).
inline unsigned blocks_for(int64_t work) { return tc::cuda::grid_blocks(work); }

/// min(count, kMaxGridYZ), at least 1: a grid's y or z extent for `count` items.
inline unsigned grid_yz(int64_t count) {
  return static_cast<unsigned>(count < 1 ? 1 : (count > kMaxGridYZ ? kMaxGridYZ : count));
}

inline bool aligned16(const void *pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % 16 == 0;
}

/// Sixteen bytes moved as one load/store by the vectorized copy and fill paths.
struct alignas(16) vec16 {
  uint32_t words[4];
};

/// The arithmetic type of the NN kernels (softmax, layer_norm, batch_norm, depthwise
/// convolution, attention): float, or double for double.
template <typename T>
using float_acc_t = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/// *address through the read-only data cache (__ldg) where the type allows it.
template <typename T> __device__ inline T ldg(const T *address) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same<T, vec16>::value) {
    const uint4 bits = __ldg(reinterpret_cast<const uint4 *>(address));
    return vec16{{bits.x, bits.y, bits.z, bits.w}};
  } else if constexpr (tc::is_reduced_float<T>::value) {
    return T{__ldg(reinterpret_cast<const unsigned short *>(address))};
  } else if constexpr (std::is_same<T, bool>::value) {
    return __ldg(reinterpret_cast<const unsigned char *>(address)) != 0;
  } else {
    return __ldg(address);
  }
#else
  return *address;
#endif
}

__device__ inline float exp_of(float x) { return expf(x); }
__device__ inline double exp_of(double x) { return exp(x); }
__device__ inline float log_of(float x) { return logf(x); }
__device__ inline double log_of(double x) { return log(x); }
__device__ inline float sqrt_of(float x) { return sqrtf(x); }
__device__ inline double sqrt_of(double x) { return sqrt(x); }

/// The identity of amax over T in its compute type: -infinity, or the least integer (false for
/// bool). Not tc::cuda::lowest_value: std::numeric_limits is host-only under nvcc without
/// --expt-relaxed-constexpr.
template <typename T> __device__ inline tc::compute_t<T> lowest_of() {
  using C = tc::compute_t<T>;
  if constexpr (std::is_floating_point<C>::value)
    return -tc::infinity<C>();
  else if constexpr (std::is_same<C, bool>::value || std::is_unsigned<C>::value)
    return C(0);
  else // two's complement: only the sign bit set (the narrowing is modular)
    return static_cast<C>(static_cast<typename std::make_unsigned<C>::type>(1)
                          << (sizeof(C) * 8 - 1));
}

/// The identity of amin over T in its compute type: +infinity, or the greatest integer.
template <typename T> __device__ inline tc::compute_t<T> highest_of() {
  using C = tc::compute_t<T>;
  if constexpr (std::is_floating_point<C>::value)
    return tc::infinity<C>();
  else if constexpr (std::is_same<C, bool>::value)
    return true;
  else // every bit but the sign bit (all bits for unsigned)
    return static_cast<C>(~lowest_of<T>());
}

/// The larger value, NaN winning (tc::cuda::max_op's rule).
template <typename F> __device__ inline F max_nan(F a, F b) {
  return tc::cuda::max_op::combine(a, b);
}

/// __shfl_xor_sync over the full warp for every accumulator type (narrow ones travel as int).
template <typename A> __device__ inline A shuffle_xor(A value, int mask) {
  if constexpr (sizeof(A) < sizeof(int))
    return static_cast<A>(__shfl_xor_sync(0xFFFFFFFFu, static_cast<int>(value), mask));
  else
    return __shfl_xor_sync(0xFFFFFFFFu, value, mask);
}

/// Lane `lane`'s `value`, broadcast to the warp.
template <typename A> __device__ inline A shuffle_from(A value, int lane) {
  return __shfl_sync(0xFFFFFFFFu, value, lane);
}

} // namespace detail
} // namespace tcg
