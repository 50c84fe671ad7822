// The interface between thunderc and its TorchScript importer plugin
// (frontend/torchscript/, libthunderc_torchscript.so). The plugin is the only part of thunderc
// that links libtorch; thunderc loads it with dlopen, only inside the confined child process
// that reads a TorchScript file (frontend/torchscript/sandbox.h, docs/THREAT_MODEL.md), so thunderc itself
// never loads libtorch and builds and runs without it.
//
// The plugin turns a TorchScript module into the same serialized ExportedProgram JSON a .pt2
// archive holds (docs/PT2_FORMAT.md), plus the frozen weights, and thunderc imports that
// through the one ATen import table (docs/TORCHSCRIPT.md). Both sides are built together by
// the same compiler, so the interface passes C++ types; the entry point has C linkage and a
// version in its name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace thunderc::frontend {

/// One frozen weight or constant: where its bytes live inside the plugin's result.
struct TorchScriptTensor {
  std::string fqn;             ///< "fc1.weight", or "_tensor_constant0" for a computed one
  int serializedDtype = 0;     ///< torch.export's ScalarType numbering
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; ///< elements; contiguous
  const void *data = nullptr;
  uint64_t bytes = 0;           ///< size of the data
};

/// What the plugin returns. Deleting it (through the virtual destructor, which runs the
/// plugin's code) releases the weights' memory.
struct TorchScriptResult {
  virtual ~TorchScriptResult() = default;
  /// 0 on success, else 1 + thunderc's ErrorKind: 1 usage, 2 I/O, 3 invalid input,
  /// 4 unsupported (the codes travel from the child process to thunderc).
  int errorCode = 0;
  std::string error;
  std::string programJson;                ///< the ExportedProgram JSON
  std::vector<TorchScriptTensor> weights; ///< every parameter, buffer and constant it names
};

/// Makes libtorch do, before the process is locked down, everything it does once and lazily
/// that opens files (CPU detection, thread pools, the TorchScript compiler's builtins), and
/// silences TorchScript's print. Returns null, or why it failed.
using TorchScriptPrepareFn = const char *(*)();

/// Imports the TorchScript file whose bytes are `data[0, size)`. `inputSpecJson`: the input
/// shapes a caller gives for a module that has no traced example inputs, as a JSON array:
/// [{"name": "x" or "", "dtype": "float32", "shape": [1, 3, 224, 224]}, ...]. Refuses (error
/// code 4, unsupported) ops that act outside the model (file I/O, printing, global RNG state, network,
/// distributed, device and profiler ops, custom C++ classes) in forward and in any class's
/// __setstate__, before running anything but the loader.
using TorchScriptImportFn = TorchScriptResult *(*)(const uint8_t *data, size_t size,
                                                   const char *inputSpecJson);

} // namespace thunderc::frontend

/// The plugin's entry points (the import never returns null).
#define THUNDERC_TORCHSCRIPT_PREPARE "thunderc_torchscript_prepare_v2"
#define THUNDERC_TORCHSCRIPT_ENTRY "thunderc_torchscript_import_v2"
