// The CPU target's backend: what a CPU bundle adds to codegen's target-independent parts.
#pragma once

#include <memory>

#include "codegen/target_backend.h"

namespace thunderc::cpu {

/// A backend for one compilation to the CPU target (C++17, the tc:: kernel library, CBLAS
/// when the bundle's build finds one).
std::unique_ptr<codegen::TargetBackend> makeCpuBackend();

} // namespace thunderc::cpu
