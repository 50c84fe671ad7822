// The driver: one function per stage, called in order by cli/main.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "codegen/model_emitter.h"
#include "frontend/pt2/importer.h"
#include "frontend/torchscript/importer.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/interpreter.h"
#include "ir/status.h"
#include "optimizer/pass_manager.h"

namespace thunderc::cli {

/// A weight input of the graph as loaded, before any pass folds or drops it.
struct LoadedWeight {
  std::string name; ///< state-dict name ("fc1.weight")
  ir::InputKind kind = ir::InputKind::Parameter;
  ir::TensorType type;
};

/// A program loaded from a .pt2 archive (with weights) or from text IR (.tir, no weights).
struct LoadedProgram {
  std::string path;
  frontend::ImportedModel imported; ///< empty archive for text IR
  ir::Graph *graph = nullptr;
  std::unique_ptr<ir::Graph> parsedGraph; ///< owns the graph for text IR
  /// What the import produced, kept for the import part of the reports, which describes the
  /// program as loaded while `graph` is optimized in place.
  std::vector<LoadedWeight> loadedWeights;
  int loadedOps = 0;
};

/// Reads `path` by its extension (.tir text IR, otherwise a .pt2 archive) and verifies the
/// resulting graph. Errors are prefixed with the path.
/// Loads a .pt2 archive, a TorchScript file (with `shapes` for a module that has no traced
/// example inputs) or text IR.
Expected<LoadedProgram> loadProgram(const std::string &path,
                                    const std::vector<frontend::InputShapeSpec> &shapes = {});

/// Runs the passes named in `passes` (--passes), in order, over the program's graph. An
/// unknown pass name is a Usage error; other failures (a pass error, --verify-each catching a
/// broken graph) are prefixed with the path. No names means nothing runs.
Status optimizeProgram(LoadedProgram &program, const std::vector<std::string> &passes,
                       const opt::PassManagerOptions &options);

/// Text report (every exported node: status, name, op, source line; the unsupported list;
/// counts, all as loaded), then the compiled view of the graph after the passes
/// (cli/report.h: top-level kernels, library calls and views with FLOPs, bytes, fusion
/// blockers, memory). The JSON form adds the loaded weights' checksums and puts the compiled
/// view under "compiled".
std::string textReport(const LoadedProgram &program);
std::string jsonReport(const LoadedProgram &program);

/// Runs the reference interpreter on .npy inputs and writes .npy outputs, through the runtime's
/// codec (runtime/npy.h) that bundles' runners use. Errors name the file. Random ops draw from
/// `random` (a seed and a run number, as a bundle context's).
Status interpretToFiles(const LoadedProgram &program, const std::vector<std::string> &inputs,
                        const std::vector<std::string> &outputs, const ir::RandomState &random);

/// What -o asks for.
struct BundleRequest {
  std::string outDir;
  std::string name;      ///< empty: the input file's stem
  std::string goldenDir; ///< optional
  codegen::Target target = codegen::Target::Cpu;
  bool allowTf32 = false;
  bool cudaEmulation = false; ///< CUDA: ship the CPU emulation of CUDA in the bundle
  bool triton = false;         ///< also write a Triton model (codegen/triton_model.h)
  int64_t tritonMaxBatch = 64;
  std::string arch; ///< CUDA: the bundle's default GPU architecture ("sm_90a"); empty: sm_80 + sm_90
  std::string debugPerturb; ///< testing the bisect: this value is computed wrong on purpose
};

/// Compiles the program into the bundle folder `request.outDir` (atomically; see
/// codegen/bundle.h), with the request's target backend (backend_cpu/, backend_cuda/).
Status compileToBundle(const LoadedProgram &program, const BundleRequest &request);

/// --emit=cuda: the CUDA kernels generated for the program's graph (backend_cuda/
/// cuda_kernels.h), as one translation unit. Errors are prefixed with the path.
Expected<std::string> cudaSource(const LoadedProgram &program);

/// What --verify found: `summary` has one line per kernel (name, kind, node, location,
/// compile time, PTX size) and a total; `errors` one entry per kernel NVRTC rejected, naming
/// the kernel and its source node, with NVRTC's log.
struct VerifyResult {
  int kernels = 0;
  int failed = 0;
  std::string summary;
  std::string errors;
};

/// --verify: compiles every generated CUDA kernel in-process with NVRTC for `arch` ("sm_80").
/// Errors (not rejected kernels, which are in the result): Usage for a malformed arch,
/// Unsupported when thunderc was built without NVRTC, Io when NVRTC itself fails.
Expected<VerifyResult> verifyKernels(const LoadedProgram &program, const std::string &arch);

} // namespace thunderc::cli
