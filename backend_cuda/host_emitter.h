// Lowers a verified graph to the C++ sources of a bundle: the model's public C header, its
// implementation (schedule, shape arithmetic, arena layout, one loop nest or kernel call per
// node) and its runner.
#pragma once

#include <map>
#include <string>

#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::cuda {

/// Where a bundle's model code runs.
enum class Target {
  Cpu,  ///< C++17 loops and the portable kernel library (tc_kernels.h), CBLAS when found
  Cuda, ///< CUDA kernels, the CUDA kernel library (tc_cuda_lib.h) and cuBLAS, on device memory
};

struct EmitOptions {
  std::string name;       ///< C identifier used for files, symbols and targets ("mlp")
  std::string sourceName; ///< the input file, quoted in generated comments (basename only)
  Target target = Target::Cpu;
  bool allowTf32 = false; ///< CUDA: fp32 GEMMs/convolutions may use TF32 tensor cores
};

/// Returns file name -> contents for `<name>.h`, `<name>.cpp` (CUDA: `<name>.cu` and
/// `<name>_emulated.cpp`, which builds the .cu against the CPU emulation) and `<name>_run.cpp`.
/// Unsupported (ErrorKind::Unsupported) when the graph still holds aten_call nodes (every
/// such node is listed with its source line, one per line), when a symbol cannot be bound
/// from a plain input dim, or when an op's attributes are outside what the kernels handle.
Expected<std::map<std::string, std::string>> emitModelSources(const ir::Graph &graph,
                                                              const EmitOptions &options);

} // namespace thunderc::cuda
