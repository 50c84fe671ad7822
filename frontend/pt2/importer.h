// Imports a torch.export program (.pt2) into an ir::Graph: the graph signature, every node
// through the ATen import table, symbolic dims with their ranges, and the weights.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "frontend/pt2/pt2_archive.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::frontend {

/// The torch.export archive schema (major version) the importer reads, and the torch releases
/// that write it; thunderc is tested against torch 2.13.
inline constexpr int64_t kSupportedSchemaMajor = 8;
inline constexpr const char *kSchemaTorchReleases = "torch 2.9 to 2.14";
inline constexpr const char *kTestedTorch = "2.13";

/// Why one exported node is not compiled (it stays in the graph as an aten_call node).
struct UnsupportedNode {
  std::string name;   ///< exported node name
  std::string target; ///< "aten.foo.default"
  std::string reason; ///< "no thunderc lowering", or the feature that is missing
  ir::SourceInfo source;
};

/// One exported node and what became of it, for reports.
struct ImportedNodeRecord {
  std::string name;
  std::string target;
  std::string status; ///< "compiled", "unsupported", "dropped" (asserts), "shape" (SymInt math)
  std::vector<std::string> irOps; ///< thunderc ops it became
  ir::SourceInfo source;
};

/// A successfully imported program. Its weight source (the .pt2 archive, or the TorchScript
/// plugin's frozen tensors) stays open so weights remain mapped.
struct ImportedModel {
  std::unique_ptr<WeightSource> weights;
  std::unique_ptr<ir::Graph> graph;
  std::string irLevel;      ///< the exporter's verifier: "TRAINING" or "ATEN"
  std::string torchVersion; ///< as recorded in the program
  std::vector<ImportedNodeRecord> nodes;
  std::vector<UnsupportedNode> unsupported;
};

/// Opens and imports `path`. Errors carry the archive member and node:
/// "models/model.json: node 'conv2d_3' (aten.convolution.default): ...". Unsupported ops do
/// not fail the import (see ImportedModel::unsupported); unsupported program-level features
/// (buffer mutation, non-tensor inputs, ...) are ErrorKind::Unsupported.
Expected<ImportedModel> importPt2(const std::string &path);

/// Imports a serialized ExportedProgram (the JSON of a .pt2 archive's model member) whose
/// weights `weights` holds; errors name `member`. importPt2 and the TorchScript importer
/// (frontend/torchscript/importer.h) both end here.
Expected<ImportedModel> importProgram(std::unique_ptr<WeightSource> weights,
                                      const std::string &programJson, const std::string &member);

/// Every exported target the importer compiles or handles, sorted, each once, spelled without
/// "torch.ops." ("aten.add.Tensor", "higher_order.wrap_with_set_grad_enabled"): the ATen
/// import table (less any entry whose schema frontend/aten/schemas.inc lacks, which could not
/// be read), the assertions it drops, the SymInt ops that become shape expressions
/// (aten.sym_size.int, ...) and the higher-order ops it inlines. Python-level SymInt
/// arithmetic (`_operator.*`, `math.*`) is handled too but is not an ATen target.
std::vector<std::string> supportedTargets();

} // namespace thunderc::frontend
