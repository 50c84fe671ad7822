// TorchScript input (`thunderc model.pt`): recognizing the file and importing it through the
// TorchScript importer plugin (frontend/torchscript/plugin.h, docs/TORCHSCRIPT.md).
#pragma once

#include <string>
#include <vector>

#include "frontend/pt2/importer.h"

namespace thunderc::frontend {

/// The shape and dtype of one forward input, for a module without traced example inputs.
struct InputShapeSpec {
  std::string name; ///< empty: the input at this position
  std::string dtype = "float32";
  std::vector<int64_t> shape;
};

/// Parses `--input-shape`: `[NAME:]DTYPE[D0,D1,...]`, several separated by `;`
/// ("ids:int64[1,8];mask:int64[1,8]"). Usage errors name the bad part.
Expected<std::vector<InputShapeSpec>> parseInputShapes(const std::string &text);

/// Whether `path` is a TorchScript file (torch.jit.save): a zip with code/ and constants.pkl.
bool isTorchScriptFile(const std::string &path);

/// Imports a TorchScript module: the plugin freezes it, specializes it to the example inputs
/// (the traced ones stored in the file, or `shapes`) and serializes it as an ExportedProgram,
/// which importProgram reads. Unsupported when thunderc has no plugin (built without
/// libtorch), naming what to do instead.
Expected<ImportedModel> importTorchScript(const std::string &path,
                                          const std::vector<InputShapeSpec> &shapes);

} // namespace thunderc::frontend
