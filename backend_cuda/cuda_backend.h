// The CUDA target's backend: what a CUDA bundle adds to codegen's target-independent parts.
#pragma once

#include <memory>
#include <string>

#include "codegen/target_backend.h"
#include "ir/status.h"

namespace thunderc::cuda {

/// A backend for one compilation to the CUDA target (generated kernels, the tcg:: kernel
/// library, cuBLAS, device memory).
std::unique_ptr<codegen::TargetBackend> makeCudaBackend();

/// The CMake CUDA architecture for a GPU architecture name: "sm_90a" -> "90a" (machine code
/// and PTX), "compute_80" -> "80-virtual" (PTX only). Usage error for anything else.
Expected<std::string> cmakeCudaArchitecture(const std::string &arch);

} // namespace thunderc::cuda
