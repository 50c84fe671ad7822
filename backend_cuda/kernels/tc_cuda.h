// Device helpers for the CUDA kernels thunderc generates (backend_cuda/cuda_kernels.cpp): the
// index structs kernels take by value (runtime sizes, strides and offsets, so views and
// broadcasts cost nothing: a broadcast dim has stride 0), flat-index decomposition, the
// reduction accumulators and combine rules of tc::reduce, and warp/block reductions.
// Compiles under nvcc and NVRTC (no host headers there, see tc_rtc_std.h).
#pragma once

#include "tc_math.h"

#if !defined(__CUDACC_RTC__)
#include <limits>
#endif

/// Device code is compiled by nvcc/NVRTC, or by a host compiler against the CPU emulation of
/// CUDA (tc_cuda_emu.h, TC_CUDA_EMULATE) so that CI runs it without a GPU.
#if defined(__CUDACC__) || defined(TC_CUDA_EMULATE)
#define TC_CUDA_DEVICE_CODE 1
#endif
#if defined(TC_CUDA_EMULATE)
#include "tc_cuda_emu.h"
#endif

/// `#pragma unroll` for device compilers only: host compilers building the emulation do not
/// know the pragma (GCC 12 warns about it whatever the diagnostic pragmas say).
#if defined(__CUDACC__)
#define TC_UNROLL _Pragma("unroll")
#else
#define TC_UNROLL
#endif

#if !defined(__CUDACC_RTC__)
/// Launches `__VA_ARGS__` (a __global__ function, template arguments allowed) with the given
/// configuration; follow with the argument list: TC_LAUNCH(grid, block, smem, stream, k<T>)(a, b).
/// Spelled as a macro because the emulation cannot parse `<<<...>>>`.
#if defined(TC_CUDA_EMULATE)
#define TC_LAUNCH(grid, block, smem, stream, ...)                                                  \
  ::tc::emu::launch(grid, block, smem, stream, __VA_ARGS__)
#else
#define TC_LAUNCH(grid, block, smem, stream, ...) __VA_ARGS__<<<grid, block, smem, stream>>>
#endif
#endif

namespace tc {
namespace cuda {

/// Threads per block of every generated kernel (their __launch_bounds__).
constexpr int kBlockThreads = 256;
constexpr int kWarpThreads = 32;

/// Array extent for a count that may be zero (a rank-0 kernel still declares its arrays).
TC_HD constexpr int extent_of(int count) { return count > 0 ? count : 1; }

/// The index space of an elementwise kernel: `numel` flat outputs over dims `size[Rank]`
/// (row-major); input k's element at multi-index i is at
/// offset[k] + sum_d i[d] * stride[k][d] of its storage (elements).
template <int Rank, int Inputs> struct elementwise_index {
  int64_t numel;
  int64_t size[extent_of(Rank)];
  int64_t stride[extent_of(Inputs)][extent_of(Rank)];
  int64_t offset[extent_of(Inputs)];
};

/// The index space of a reduction kernel: `outputs` kept-dim positions (row-major over
/// `kept_size`), each reducing `extent` positions (row-major over `reduced_size`). Input k is
/// addressed like elementwise_index, with separate strides over kept and reduced dims
/// (epilogue inputs have reduced strides 0).
template <int Kept, int Reduced, int Inputs> struct reduction_index {
  int64_t outputs;
  int64_t extent;
  int64_t kept_size[extent_of(Kept)];
  int64_t reduced_size[extent_of(Reduced)];
  int64_t kept_stride[extent_of(Inputs)][extent_of(Kept)];
  int64_t reduced_stride[extent_of(Inputs)][extent_of(Reduced)];
  int64_t offset[extent_of(Inputs)];
};

/// Four consecutive elements as one aligned vector, so that a dense kernel moves 4 elements
/// per load/store instruction (16 bytes for 4-byte types; 8 for half/bf16; two 16-byte
/// accesses for 8-byte types, whose alignment is capped at CUDA's 16-byte maximum).
template <typename T> struct alignas(sizeof(T) * 4 < 16 ? sizeof(T) * 4 : 16) vec4 {
  T lane[4];
};

#if !defined(__CUDACC_RTC__)
/// Whether `pointer` may be read or written as vec4<T> (launchers check before choosing a
/// vectorized kernel: the caller's tensors need not be aligned).
template <typename T> inline bool vec4_aligned(const T *pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % alignof(vec4<T>) == 0;
}
#endif

#if defined(TC_CUDA_DEVICE_CODE)

/// Vector `v` of `data` (elements 4v .. 4v+3), which must be vec4-aligned.
template <typename T> __device__ inline vec4<T> load_vec4(const T *data, int64_t v) {
  return reinterpret_cast<const vec4<T> *>(data)[v];
}
template <typename T> __device__ inline void store_vec4(T *data, int64_t v, const vec4<T> &value) {
  reinterpret_cast<vec4<T> *>(data)[v] = value;
}

/// The launch's dynamic shared memory (the `smem` bytes of TC_LAUNCH), 16-byte aligned.
template <typename T> __device__ inline T *dynamic_shared() {
#if defined(TC_CUDA_EMULATE)
  return static_cast<T *>(::tc::emu::dynamic_shared_memory());
#else
  extern __shared__ __align__(16) unsigned char tc_dynamic_shared[];
  return reinterpret_cast<T *>(tc_dynamic_shared);
#endif
}

/// This thread's first flat index and the grid's stride, for grid-stride loops.
__device__ inline int64_t global_thread() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline int64_t grid_threads() { return static_cast<int64_t>(blockDim.x) * gridDim.x; }

/// Adds, for every input, the element offset of the row-major position `flat` of the dims
/// `size[Rank]` through that input's strides, to `at`.
template <int Rank, int Inputs>
__device__ inline void add_offsets(int64_t flat, const int64_t (&size)[extent_of(Rank)],
                                   const int64_t (&stride)[extent_of(Inputs)][extent_of(Rank)],
                                   int64_t (&at)[extent_of(Inputs)]) {
TC_UNROLL
  for (int d = Rank - 1; d >= 0; --d) {
    const int64_t i = flat % size[d];
    flat /= size[d];
TC_UNROLL
    for (int k = 0; k < Inputs; ++k)
      at[k] += i * stride[k][d];
  }
}

/// Element offsets of every input at the flat output index `flat`.
template <int Rank, int Inputs>
__device__ inline void input_offsets(const elementwise_index<Rank, Inputs> &index, int64_t flat,
                                     int64_t (&at)[extent_of(Inputs)]) {
TC_UNROLL
  for (int k = 0; k < Inputs; ++k)
    at[k] = index.offset[k];
  add_offsets<Rank, Inputs>(flat, index.size, index.stride, at);
}

/// Element offsets of every input at kept position `output` (reduced indices 0).
template <int Kept, int Reduced, int Inputs>
__device__ inline void kept_offsets(const reduction_index<Kept, Reduced, Inputs> &index,
                                    int64_t output, int64_t (&at)[extent_of(Inputs)]) {
TC_UNROLL
  for (int k = 0; k < Inputs; ++k)
    at[k] = index.offset[k];
  add_offsets<Kept, Inputs>(output, index.kept_size, index.kept_stride, at);
}

/// `base` moved to reduced position `position`.
template <int Kept, int Reduced, int Inputs>
__device__ inline void reduced_offsets(const reduction_index<Kept, Reduced, Inputs> &index,
                                       int64_t position, const int64_t (&base)[extent_of(Inputs)],
                                       int64_t (&at)[extent_of(Inputs)]) {
TC_UNROLL
  for (int k = 0; k < Inputs; ++k)
    at[k] = base[k];
  add_offsets<Reduced, Inputs>(position, index.reduced_size, index.reduced_stride, at);
}

#endif // TC_CUDA_DEVICE_CODE

// ---- reduction accumulators: the same types and combine rules as tc::reduce ----

/// Sums of floating T accumulate in double, of integers and bool in wrapping int64.
template <typename T>
using accumulator_t = typename std::conditional<is_floating<T>::value, double, int64_t>::type;

/// amax/amin accumulate in T's compute type.
template <typename T> using extremum_t = compute_t<T>;

/// a + b; integers wrap (two's complement) instead of overflowing.
struct sum_op {
  TC_HD static double combine(double a, double b) { return a + b; }
  TC_HD static int64_t combine(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
  }
};

/// The larger value; NaN wins (propagates) like tc::reduce's amax.
struct max_op {
  template <typename A> TC_HD static A combine(A acc, A value) {
    return value > acc || is_nan(value) ? value : acc;
  }
};

/// The smaller value; NaN wins (propagates) like tc::reduce's amin.
struct min_op {
  template <typename A> TC_HD static A combine(A acc, A value) {
    return value < acc || is_nan(value) ? value : acc;
  }
};

/// The largest value of integer type C (bool: true), computed rather than taken from
/// std::numeric_limits, whose members nvcc does not let device code call without
/// --expt-relaxed-constexpr.
template <typename C> TC_HD constexpr C integer_max() {
  if constexpr (std::is_same<C, bool>::value) {
    return true;
  } else {
    using U = typename std::make_unsigned<C>::type;
    if constexpr (std::is_signed<C>::value)
      return static_cast<C>(static_cast<U>(~U(0)) >> 1);
    else
      return static_cast<C>(~U(0));
  }
}

/// The smallest value of integer type C (bool: false).
template <typename C> TC_HD constexpr C integer_min() {
  if constexpr (std::is_signed<C>::value)
    return static_cast<C>(-integer_max<C>() - 1);
  else
    return C(0);
}

/// The identity of amax over T: -infinity for floating T, the minimum for integers.
template <typename T> TC_HD inline extremum_t<T> lowest_value() {
  using C = extremum_t<T>;
  if constexpr (std::is_floating_point<C>::value)
    return -infinity<C>();
  else
    return integer_min<C>();
}

/// The identity of amin over T: +infinity for floating T, the maximum for integers.
template <typename T> TC_HD inline extremum_t<T> highest_value() {
  using C = extremum_t<T>;
  if constexpr (std::is_floating_point<C>::value)
    return infinity<C>();
  else
    return integer_max<C>();
}

#if defined(TC_CUDA_DEVICE_CODE)

/// __shfl_down_sync for every accumulator type (bool and narrow integers travel as int).
template <typename A> __device__ inline A shuffle_down(A value, int delta) {
  if constexpr (sizeof(A) < sizeof(int))
    return static_cast<A>(__shfl_down_sync(0xFFFFFFFFu, static_cast<int>(value), delta));
  else
    return __shfl_down_sync(0xFFFFFFFFu, value, delta);
}

/// Combines `value` over the warp; lane 0 holds the result.
template <typename Op, typename A> __device__ inline A warp_reduce(A value) {
TC_UNROLL
  for (int delta = kWarpThreads / 2; delta > 0; delta /= 2)
    value = Op::combine(value, shuffle_down(value, delta));
  return value;
}

/// Combines `value` over the block (blockDim.x a multiple of 32, at most 1024): warp shuffles,
/// then one partial per warp in shared memory, combined in warp order by thread 0, which
/// holds the result.
/// Every thread of the block must call it; it may be called again right away (it
/// synchronizes before reusing its shared memory).
template <typename Op, typename A> __device__ inline A block_reduce(A value) {
  __shared__ A partial[kWarpThreads];
  const int lane = static_cast<int>(threadIdx.x) % kWarpThreads;
  const int warp = static_cast<int>(threadIdx.x) / kWarpThreads;
  const int warps = static_cast<int>(blockDim.x) / kWarpThreads;
  value = warp_reduce<Op>(value);
  __syncthreads(); // the previous call's thread 0 has finished reading `partial`
  if (lane == 0)
    partial[warp] = value;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < warps; ++w) // partial[0] is thread 0's own value
      value = Op::combine(value, partial[w]);
  return value;
}

#endif // TC_CUDA_DEVICE_CODE

#if defined(TC_CUDA_DEVICE_CODE) && !defined(__CUDACC_RTC__)
/// Blocks for a grid-stride loop over `work` items: enough to cover them, capped (each thread
/// then loops); at least 1.
inline unsigned grid_blocks(int64_t work) {
  const int64_t kMaxBlocks = 65535;
  int64_t blocks = (work + kBlockThreads - 1) / kBlockThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

/// One block per reduction output, capped (each block then loops); at least 1.
inline unsigned reduction_blocks(int64_t outputs) {
  const int64_t kMaxBlocks = 65535 * 16;
  return static_cast<unsigned>(outputs < 1 ? 1 : (outputs > kMaxBlocks ? kMaxBlocks : outputs));
}
#endif

} // namespace cuda
} // namespace tc
