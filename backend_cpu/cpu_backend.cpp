// The CPU target: C++17 loop nests for the fused kernels (loop_kernels.cpp), the portable
// kernel library (kernels/tc_kernels.h) for library calls, host memory for weights (mapped from
// weights.bin) and for the arena (the model base, kernels/tc_model_base.h).
#include "backend_cpu/cpu_backend.h"

#include <algorithm>

#include "backend_cpu/loop_kernels.h"
#include "codegen/bundle.h"
#include "codegen/emit_state.h"
#include "codegen/template.h"

namespace thunderc::cpu {
using namespace codegen;
namespace {

class CpuBackend final : public TargetBackend {
public:
  Target target() const override { return Target::Cpu; }
  Status prepare(const ir::Graph &) override { return Status::success(); }

  // tc_model_base.h: load, contexts, state, threads; run_impl installs the context's pool
  // (tc_parallel.h) for its kernels.
  ModelBaseSpec modelBase() const override {
    return {".cpp", "tc_model_base.h", "tc", {"tc::PoolScope pool_scope(context->pool);"}, false};
  }

  Status emitKernel(const ir::Node &node, EmitState &state) override {
    return emitLoopKernel(node, state);
  }

  std::map<std::string, std::string> bundleFiles(const BundleOptions &options,
                                                 bool hasGolden) const override {
    return {{"CMakeLists.txt",
             renderEmbeddedTemplate("backend_cpu/templates/CMakeLists.txt.in",
                                    {{"NAME", options.name}, {"SOURCE", options.sourceName}}) +
                 goldenTestCmake(options, hasGolden)}};
  }

  // The scalar layer shared with CUDA (tc_math.h, tc_random.h), the model base's common part
  // (tc_model_common.h) and the CPU kernel library.
  bool shipsKernelHeader(const std::string &path, const BundleOptions &) const override {
    return path == "runtime/kernels/tc_math.h" || path == "runtime/kernels/tc_random.h" ||
           path == "runtime/kernels/tc_model_common.h" ||
           path.rfind("backend_cpu/kernels/", 0) == 0;
  }
};

} // namespace

std::unique_ptr<codegen::TargetBackend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace thunderc::cpu
