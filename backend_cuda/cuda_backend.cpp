// The CUDA target: kernels printed as CUDA C++ (cuda_kernels.cpp) and launched on the context's
// stream, the tcg:: kernel library and cuBLAS for library calls, device memory for weights and
// the arena (cuda_host.cpp writes those parts of <name>.cu).
#include "backend_cuda/cuda_backend.h"

#include <regex>

#include "backend_cuda/cuda_host.h"
#include "backend_cuda/cuda_kernels.h"
#include "codegen/bundle.h"
#include "codegen/emit_state.h"
#include "codegen/model_emitter.h"
#include "codegen/template.h"

namespace thunderc::cuda {
using namespace codegen;
namespace {

class CudaBackend final : public TargetBackend {
public:
  Target target() const override { return Target::Cuda; }

  Status prepare(const ir::Graph &graph) override {
    for (const auto &node : graph.nodes())
      if (node->info().family == ir::OpFamily::Linalg)
        return unsupported("node '" + node->name() + "' (" + std::string(ir::opName(node->op())) +
                           "): dense linear algebra (cholesky, lu, qr, ldl, eigh, svd, "
                           "matrix_exp and the ops built on them) compiles for the CPU target only; CUDA bundles do "
                           "not have it yet (compile with --target cpu)");
    TC_ASSIGN_OR_RETURN(kernels_, emitCudaKernels(graph));
    next_ = 0;
    graphRefusal_ = cudaGraphRefusal(graph);
    return Status::success();
  }

  // tc_cuda_model.h: load and upload, contexts, streams, staging, graphs, timing.
  ModelBaseSpec modelBase() const override {
    return {".cu", "tc_cuda_model.h", "tcg", {"const tcg::exec &ex = context->ex;"}, true};
  }

  // The printed kernels, after the TC_HD scalar functions they call.
  void emitDefinitions(CodeWriter &code, const EmitOptions &) const override {
    for (const CudaKernel &kernel : kernels_) {
      code.line();
      code.raw(kernel.code);
    }
  }

  void emitModelConstants(CodeWriter &code, const EmitOptions &options,
                          const EmitState &state) const override {
    emitCudaModelConstants(code, options.allowTf32, state.gatherSites(), graphRefusal_);
  }

  // Kernel nodes come in graph order, the order prepare() printed their kernels in.
  Status emitKernel(const ir::Node &node, EmitState &state) override {
    TC_CHECK(next_ < kernels_.size(), "more kernel nodes than printed CUDA kernels");
    return emitCudaKernelLaunch(node, kernels_[next_++], state);
  }

  // Device tensors for <name>_run; host tensors, streams, synchronization and timing besides.
  std::map<std::string, std::string> abiValues(const std::string &name) const override {
    auto render = [&](const char *path) {
      return renderEmbeddedTemplate(path, {{"NAME", name}});
    };
    return {{"RUN_NOTE", render("backend_cuda/templates/model_run_note.h.in")},
            {"TARGET_API", render("backend_cuda/templates/model_api.h.in")},
            {"TARGET_ABI", render("backend_cuda/templates/model_abi.cpp.in")},
            {"TARGET_METHODS", render("backend_cuda/templates/model_methods.h.in")},
            {"RUN_COMMENT", ": the CUDA bundle stages them through the device"},
            {"RUN_FUNCTION", "run_host"},
            {"TIME_RUNS_FUNCTION", render("backend_cuda/templates/runner_time_runs.cpp.in")},
            {"TIME_RUNS_ASSIGN", "  api.time_runs = timeRuns;\n"
                                 "  api.set_cuda_graphs = setCudaGraphs;\n"
                                 "  api.cuda_graph_stats = cudaGraphStats;\n"}};
  }

  // The CMake project (nvcc, or the host compiler against the emulation), the README's CUDA
  // section, and <name>_emulated.cpp: the .cu built by the host compiler.
  std::map<std::string, std::string> bundleFiles(const BundleOptions &options,
                                                 bool hasGolden) const override {
    const std::string &name = options.name;
    return {{"CMakeLists.txt",
             renderEmbeddedTemplate("backend_cuda/templates/CMakeLists.txt.in",
                                    {{"NAME", name},
                                     {"SOURCE", options.sourceName},
                                     {"CUDA_ARCHITECTURES", options.cudaArchitectures}}) +
                 goldenTestCmake(options, hasGolden)},
            {"README.md", renderEmbeddedTemplate("backend_cuda/templates/README.md.in",
                                                 {{"NAME", name},
                                                  {"CUDA_ARCHITECTURES",
                                                   options.cudaArchitectures}})},
            {name + "_emulated.cpp",
             "// " + name + ".cu built by the host compiler against the CPU emulation of CUDA\n"
             "// (THUNDERC_BUNDLE_CUDA_EMULATE, kernels/tc_cuda_emu.h). Generated; do not edit.\n"
             "#include \"" + name + ".cu\"\n"}};
  }

  // The scalar layer (tc_math.h), the CUDA kernel library, and the CPU emulation of CUDA only
  // when asked for: it is a tool for machines without a GPU, not part of a deployed bundle.
  bool shipsKernelHeader(const std::string &path, const BundleOptions &options) const override {
    if (path == "runtime/kernels/tc_math.h" || path == "runtime/kernels/tc_random.h" ||
        path == "runtime/kernels/tc_model_common.h" ||
        path.rfind("backend_cuda/kernels/", 0) == 0)
      return true;
    return options.cudaEmulation && path.rfind("cuda_emu/tc_cuda_emu", 0) == 0;
  }

private:
  std::vector<CudaKernel> kernels_; ///< printed by prepare(), in graph order
  size_t next_ = 0;                 ///< the next kernel node's index in kernels_
  std::string graphRefusal_;        ///< why runs cannot be CUDA graphs ("": they can)
};

} // namespace

std::unique_ptr<codegen::TargetBackend> makeCudaBackend() {
  return std::make_unique<CudaBackend>();
}

Expected<std::string> cmakeCudaArchitecture(const std::string &arch) {
  static const std::regex kArch("^(sm|compute)_([0-9]{2,3}[af]?)$");
  std::smatch match;
  if (!std::regex_match(arch, match, kArch))
    return Error(ErrorKind::Usage,
                 "--arch '" + arch + "' is not a GPU architecture like sm_80 or compute_90a");
  return match[1].str() == "sm" ? match[2].str() : match[2].str() + "-virtual";
}

} // namespace thunderc::cuda
