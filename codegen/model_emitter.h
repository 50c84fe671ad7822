// Lowers a verified graph to the C++ sources of a bundle: the model's public C header, its
// implementation (schedule, shape arithmetic, arena layout, one loop nest or kernel call per
// node) and its runner.
#pragma once

#include <map>
#include <string>

#include "ir/graph.h"
#include "codegen/target_backend.h"
#include "ir/status.h"

namespace thunderc::codegen {

struct EmitOptions {
  std::string name;       ///< C identifier used for files, symbols and targets ("mlp")
  std::string sourceName; ///< the input file, quoted in generated comments (basename only)
  bool allowTf32 = false; ///< CUDA: fp32 GEMMs/convolutions may use TF32 tensor cores
  /// 16 hexadecimal digits naming this compile; <name>_load refuses a weights.bin that does
  /// not carry the same (tc_weights_check_compile_id). Empty: no check (tests of the emitter).
  std::string compileId;
  /// Testing the numerical bisect: the value of the node with this name is computed wrong on
  /// purpose (its first element changed after the kernel that writes it). Empty: none.
  std::string perturbNode;
};

/// Returns file name -> contents for `<name>.h`, `<name>.cpp` (CUDA: `<name>.cu`) and
/// `<name>_run.cpp` (the target's other files: TargetBackend::bundleFiles).
/// Unsupported (ErrorKind::Unsupported) when the graph still holds aten_call nodes (every
/// such node is listed with its source line, one per line), when a symbol cannot be bound
/// from a plain input dim, or when an op's attributes are outside what the kernels handle.
/// `backend` writes the target's parts; see target_backend.h.
Expected<std::map<std::string, std::string>> emitModelSources(const ir::Graph &graph,
                                                              const EmitOptions &options,
                                                              TargetBackend &backend);

} // namespace thunderc::codegen
