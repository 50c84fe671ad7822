// The interface between thunderc and its TorchScript importer plugin
// (frontend/torchscript/, libthunderc_torchscript.so). The plugin is the only part of thunderc
// that links libtorch; thunderc loads it with dlopen when it is given a TorchScript file, so
// compiling .pt2 files never loads libtorch and thunderc builds and runs without it.
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
};

/// What the plugin returns. Deleting it (through the virtual destructor, which runs the
/// plugin's code) releases the weights' memory.
struct TorchScriptResult {
  virtual ~TorchScriptResult() = default;
  /// 0 on success, else 1 + thunderc's ErrorKind: 1 usage, 2 I/O, 3 invalid input,
  /// 4 unsupported.
  int errorCode = 0;
  std::string error;
  std::string programJson;                ///< the ExportedProgram JSON
  std::vector<TorchScriptTensor> weights; ///< every parameter, buffer and constant it names
};

/// The input shapes a caller gives for a module that has no traced example inputs, as a JSON
/// array: [{"name": "x" or "", "dtype": "float32", "shape": [1, 3, 224, 224]}, ...].
using TorchScriptImportFn = TorchScriptResult *(*)(const char *path, const char *inputSpecJson);

} // namespace thunderc::frontend

/// The plugin's entry point (never returns null).
#define THUNDERC_TORCHSCRIPT_ENTRY "thunderc_torchscript_import_v1"
