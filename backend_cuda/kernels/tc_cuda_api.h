// The CUDA runtime and cuBLAS APIs as generated CUDA bundles see them: the real headers under
// nvcc, or the CPU emulation (tc_cuda_emu.h) when the bundle is built with TC_CUDA_EMULATE, so
// that CI machines without a GPU still run every generated kernel and library call.
#pragma once

#if defined(TC_CUDA_EMULATE)
#include "tc_cuda_emu.h"
#else
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

// TC_LAUNCH (the launch syntax both compile) is in tc_cuda.h.
