// In-process compilation of generated CUDA kernels with NVRTC (`thunderc --verify`), so a
// codegen error is caught at compile time, on machines with no GPU. NVRTC is optional at build
// time (THUNDERC_WITH_NVRTC); without it every call reports that it is absent.
#pragma once

#include <string>
#include <vector>

#include "backend_cuda/cuda_kernels.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::cuda {

/// True if thunderc was built with NVRTC.
bool nvrtcAvailable();

/// "NVRTC 13.0", or why it is unavailable ("built without NVRTC").
std::string nvrtcDescription();

/// The outcome of compiling one kernel.
struct KernelCompilation {
  const CudaKernel *kernel = nullptr;
  bool ok = false;
  std::string log;     ///< NVRTC's log (errors and warnings), trimmed; empty when silent
  double seconds = 0;  ///< wall time of nvrtcCompileProgram
  size_t ptxBytes = 0; ///< size of the PTX produced
};

/// Compiles every kernel on its own (cudaTranslationUnit of that kernel alone) to PTX for
/// `arch` ("sm_80" or "compute_80": --gpu-architecture=compute_80 -std=c++17), with the
/// embedded backend_cuda/kernels/ headers as NVRTC headers. Kernels compile in parallel;
/// results are in kernel order. A kernel NVRTC rejects is reported in its KernelCompilation
/// (ok false, with the log), not as an error. Errors: Usage for a malformed `arch`,
/// Unsupported when thunderc was built without NVRTC, Io when NVRTC itself fails (for
/// example its builtins library cannot be loaded).
Expected<std::vector<KernelCompilation>> compileKernelsWithNvrtc(
    const ir::Graph &graph, const std::vector<CudaKernel> &kernels, const std::string &arch);

} // namespace thunderc::cuda
