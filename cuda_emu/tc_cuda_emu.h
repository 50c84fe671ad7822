// A CPU emulation of the CUDA programming model, runtime API subset and cuBLAS subset that
// generated bundles use, so that their CUDA source, compiled by a host compiler with
// TC_CUDA_EMULATE (`g++ -x c++ -DTC_CUDA_EMULATE`), runs in CI without a GPU. It aims to be
// faithful: what would fail or be undefined on a GPU fails loudly here where it can be seen
// (invalid launches, divergent or deadlocked barriers, host pointers passed to kernels or
// cuBLAS, copies outside allocations), and uninitialized memory holds garbage patterns.
//
//   tc_cuda_emu_types.h    vector types (float4, ...), dim3
//   tc_cuda_emu_runtime.h  errors, memory, streams, events
//   tc_cuda_emu_props.h    device properties (TC_EMU_ARCH) and kernel attributes
//   tc_cuda_emu_fiber.h    stacks and the context switch between them
//   tc_cuda_emu_sched.h    blocks of fiber threads, barriers and warp rendezvous
//   tc_cuda_emu_launch.h   ::tc::emu::launch, which TC_LAUNCH (tc_cuda.h) expands to
//   tc_cuda_emu_device.h   __syncthreads, shuffles, votes, atomics, intrinsics
//   tc_cuda_emu_blas.h     cuBLAS handles and GEMMs
//
// Limits (what device code must not rely on): blocks run one after another and a block's
// threads run cooperatively, switching only at barriers and warp collectives, so a thread
// spinning on a flag another thread sets hangs; `__shared__` variables are function statics
// (shared by the block, zero at program start, keeping their values across blocks), and
// `extern __shared__` arrays are not supported (use tc::cuda::dynamic_shared<T>()); global
// min/max overloads are not provided (std::min/std::max clash with them), nor
// __activemask, whose answer depends on hardware convergence the emulation does not model.
// Knobs (read by the emulation, for test setups): TC_EMU_ARCH (compute capability, e.g. 90),
// TC_EMU_THREAD_ORDER=reverse, TC_EMU_FAIL_MALLOC=1, NVIDIA_TF32_OVERRIDE=0 (as the driver's),
// and the macro TC_EMU_UCONTEXT (switch fibers with <ucontext.h> even on x86-64).
// All files are header-only C++17 and may be included by several translation units.
#pragma once

// Standard headers that spell attributes with CUDA's qualifier names (libstdc++'s
// shared_ptr uses __attribute__((__noinline__))) must be read before those names become
// macros below.
#include <memory>

#include "tc_cuda_emu_blas.h"
#include "tc_cuda_emu_device.h"
#include "tc_cuda_emu_fiber.h"
#include "tc_cuda_emu_launch.h"
#include "tc_cuda_emu_props.h"
#include "tc_cuda_emu_runtime.h"
#include "tc_cuda_emu_sched.h"
#include "tc_cuda_emu_types.h"

// ---- qualifiers ----

#define __global__
#define __device__
#define __host__
#define __constant__
#define __grid_constant__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
/// Blocks run one at a time, so a function-local static is shared exactly by one block.
#define __shared__ static

// ---- built-in variables: the running fiber's thread and launch ----

#define threadIdx (::tc::emu::detail::runningThread().index)
#define blockIdx (::tc::emu::detail::runningLaunch().blockIndex)
#define blockDim (::tc::emu::detail::runningLaunch().blockSize)
#define gridDim (::tc::emu::detail::runningLaunch().gridSize)
