// The seam between target-independent code generation (codegen/) and a target (backend_cpu/,
// backend_cuda/). codegen writes everything both targets share -- the public ABI, input checks,
// symbol binding, the memory plan's arena layout, library calls, the bundle's files -- and asks
// the target for the rest through this interface. codegen never names a target's code; the
// driver (cli/) picks the backend, so the libraries layer as codegen <- backend_* <- cli.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/code_writer.h"
#include "ir/graph.h"
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

/// One target's part of a bundle. A backend object serves one compilation (it may keep state
/// between prepare() and the emit calls, such as the CUDA kernels it printed).
class TargetBackend {
public:
  virtual ~TargetBackend() = default;
  virtual Target target() const = 0;

  // ---- the model source (<name>.cpp / <name>.cu) ----
  /// Called once per graph before anything is written; may refuse the graph (Unsupported).
  virtual Status prepare(const ir::Graph &graph) = 0;
  /// The model source's file name: "<name>.cpp" or "<name>.cu".
  virtual std::string sourceFile(const std::string &name) const = 0;
  /// Sources beside the model source (CUDA: <name>_emulated.cpp).
  virtual void addSources(const std::string &name, std::map<std::string, std::string> &files) const;
  /// The includes and the `<name>_model` / `<name>_context` structs.
  virtual void emitIncludesAndTypes(CodeWriter &code, const std::string &name,
                                    size_t numWeights) const = 0;
  /// Definitions at the end of the source's anonymous namespace (CUDA: the device kernels).
  virtual void emitDefinitions(CodeWriter &code, const EmitOptions &options) const;
  /// `bool debugCopy(<name>_context *context, void *dst, const void *src, size_t bytes, bool
  /// toHost)`: a synchronous copy between the host and the target's memory (after the work
  /// queued so far), for the observer and --debug-perturb. The default is the host's memcpy.
  virtual void emitDebugCopy(CodeWriter &code, const std::string &name) const;
  /// `<name>_load`, `_free`, `_context_create`, `_context_destroy` (and target extras). Needs
  /// kWeights, kNumWeights and alignUp in scope.
  virtual void emitLifecycle(CodeWriter &code, const std::string &name) const = 0;
  /// Inside `<name>_run`, once `bytes` is known: the context's arena grown to `bytes` and
  /// `base`, its first byte.
  virtual void emitArena(CodeWriter &code, const std::string &name) const = 0;
  /// `<name>_context_reset`: the context's copy of the program's state (the State inputs,
  /// kStates / kNumStates / kStateBytes in scope) allocated on first use, then every state set
  /// to its initial value from the weights. `<name>_context_create` calls it; the context's
  /// destructor frees the state (the `state` member the backend puts in `<name>_context`).
  virtual void emitContextReset(CodeWriter &code, const std::string &name) const = 0;
  /// `<name>_context_set_num_threads`. The default checks the arguments and keeps nothing (the
  /// CUDA target runs its host work on the caller); the CPU target sizes the context's pool.
  virtual void emitSetNumThreads(CodeWriter &code, const std::string &name) const;
  /// Whether `<name>_run`'s work after the arena (pointers, every node, the output copies) is
  /// written as a lambda `work` returning a tc_status, run by emitRunWork (CUDA: graphs).
  virtual bool wrapsRunWork() const { return false; }
  /// After the lambda: the statements that run it and return; `key` are uint64_t expressions
  /// for what the run's launches bake in (the arena, the state, every input's data and dims,
  /// every output's data).
  virtual void emitRunWork(CodeWriter &code, const std::string &name,
                           const std::vector<std::string> &key) const;
  /// Inside `<name>_run`: an `unsigned char *` expression for the first byte of the state.
  virtual std::string stateBase() const = 0;
  /// One fusion node, or one elementwise node as a one-op kernel: a loop nest over host memory
  /// (CPU) or a launch of the kernel printed for it (CUDA).
  virtual Status emitKernel(const ir::Node &node, EmitState &state) = 0;
  /// Entry points after `<name>_run` (CUDA: synchronize, run_host, time_runs).
  virtual void emitMoreEntryPoints(CodeWriter &code, const std::string &name, size_t numInputs,
                                   size_t numOutputs, const EmitState &state) const;
  /// The target's parts of the public header and the runner (templates/model.h.in,
  /// model_run.cpp.in): RUN_NOTE (before `<name>_run`), TARGET_API (declarations after it),
  /// TARGET_METHODS (C++ wrapper methods), RUN_COMMENT, RUN_FUNCTION ("run" or "run_host", what
  /// the runner calls with host tensors), TIME_RUNS_FUNCTION and TIME_RUNS_ASSIGN (the runner's
  /// optional timing hook). The CPU has none of the optional parts.
  virtual std::map<std::string, std::string> abiValues(const std::string &name) const;

  // ---- the bundle folder ----
  /// CMakeLists.txt of the bundle (the golden test registered when `hasGolden`).
  virtual std::string cmakeLists(const BundleOptions &options, bool hasGolden) const = 0;
  /// The target's section of the bundle's README.md (appended to the common part).
  virtual std::string readmeSection(const BundleOptions &options) const;
  /// Whether the embedded kernel header at `path` (a source-tree path such as
  /// "backend_cpu/kernels/tc_kernels.h") ships in this target's bundles (as kernels/<file>).
  virtual bool shipsKernelHeader(const std::string &path, const BundleOptions &options) const = 0;
};

} // namespace thunderc::codegen
