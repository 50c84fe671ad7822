// The seam between target-independent code generation (codegen/) and a target (backend_cpu/,
// backend_cuda/). codegen writes everything both targets share -- the public ABI, input checks,
// symbol binding, the memory plan's arena layout, library calls, the bundle's files -- and asks
// the target for the rest through this interface. What every model does alike at run time
// (load, contexts, state, threads, streams, staging, graphs) is no generated code at all: it
// is the target's shipped model base (backend_cpu/kernels/tc_model_base.h,
// backend_cuda/kernels/tc_cuda_model.h), which the generated `Model` derives from. codegen
// never names a target's code; the driver (cli/) picks the backend, so the libraries layer as
// codegen <- backend_* <- cli.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/code_writer.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/status.h"

namespace thunderc::codegen {

class EmitState;
struct EmitOptions;
struct BundleOptions;

/// Where a bundle's model code runs.
enum class Target {
  Cpu,  ///< C++17 loops and the portable kernel library (tc_kernels.h), CBLAS when found
  Cuda, ///< CUDA kernels, the CUDA kernel library (tc_cuda_lib.h) and cuBLAS, on device memory
};

/// The target's shipped model base, as the generated code names it.
struct ModelBaseSpec {
  std::string source; ///< the model source's extension: ".cpp" or ".cu"
  std::string header; ///< "tc_model_base.h": defines <ns>::ModelBase, model_data, context_data
  std::string ns;     ///< "tc" or "tcg"
  /// Statements in run_impl after the arena (`base`) is ready, before the pointers.
  std::vector<std::string> runPrologue;
  /// Whether run_impl's work after the arena is a lambda `work` handed to the base's
  /// `run_work(context, key, length, work, err)` with the key of what its launches bake in
  /// (CUDA: graphs).
  bool graphs = false;
};

/// A weight the target stores in weights.bin in a layout of its own instead of row-major (the
/// CPU's pre-packed GEMM panels): its shape and dtype there, and how to write it from the
/// weight's data. The generated code reads it through calls that expect that layout
/// (EmitState::isPackedWeight).
struct StoredWeight {
  std::vector<int64_t> shape;
  ir::DType dtype = ir::DType::F32;
  std::function<std::vector<uint8_t>(const ir::TensorView &)> pack;
};

/// One target's part of a bundle. A backend object serves one compilation (it may keep state
/// between prepare() and the emit calls, such as the CUDA kernels it printed).
class TargetBackend {
public:
  virtual ~TargetBackend() = default;
  virtual Target target() const = 0;

  // ---- the model source (<name>.cpp / <name>.cu) ----
  /// Called once per graph before anything is written; may refuse the graph (Unsupported).
  virtual Status prepare(const ir::Graph &graph) = 0;
  /// The model source's extension and the shipped base its `Model` derives from.
  virtual ModelBaseSpec modelBase() const = 0;
  /// The weights this target stores in its own layout, by weight name: a pure function of
  /// the graph (bundle.cpp writes weights.bin from it, the model emitter the weight table and
  /// the calls). The default stores every weight row-major.
  virtual std::map<std::string, StoredWeight> storedWeights(const ir::Graph &graph) const;
  /// Definitions in the source's anonymous namespace before the `Model` struct (CUDA: the
  /// device kernels), then the target's own constants inside it (CUDA: kAllowTf32, the gather
  /// sites, why runs cannot be graphs), once every node is emitted.
  virtual void emitDefinitions(CodeWriter &code, const EmitOptions &options) const;
  virtual void emitModelConstants(CodeWriter &code, const EmitOptions &options,
                                  const EmitState &state) const;
  /// One fusion node, or one elementwise node as a one-op kernel: a loop nest over host memory
  /// (CPU) or a launch of the kernel printed for it (CUDA).
  virtual Status emitKernel(const ir::Node &node, EmitState &state) = 0;
  /// The target's parts of the public header, the runner and the C ABI (templates/model.h.in,
  /// model_run.cpp.in, model_abi.cpp.in): RUN_NOTE (before `<name>_run`), TARGET_API
  /// (declarations after it), TARGET_ABI (their definitions), TARGET_METHODS (C++ wrapper
  /// methods), RUN_COMMENT, RUN_FUNCTION ("run" or "run_host", what the runner calls with
  /// host tensors), TIME_RUNS_FUNCTION and TIME_RUNS_ASSIGN (the runner's optional timing
  /// hook). The CPU has none of the optional parts.
  virtual std::map<std::string, std::string> abiValues(const std::string &name) const;

  // ---- the bundle folder ----
  /// The target's files of the bundle folder: "CMakeLists.txt" (the golden test registered
  /// when `hasGolden`), "README.md" (the target's section, appended to the common part) and
  /// any other (CUDA: <name>_emulated.cpp, the .cu built against the CPU emulation).
  virtual std::map<std::string, std::string> bundleFiles(const BundleOptions &options,
                                                         bool hasGolden) const = 0;
  /// Whether the embedded kernel header at `path` (a source-tree path such as
  /// "backend_cpu/kernels/tc_kernels.h") ships in this target's bundles (as kernels/<file>).
  virtual bool shipsKernelHeader(const std::string &path, const BundleOptions &options) const = 0;
};

} // namespace thunderc::codegen
