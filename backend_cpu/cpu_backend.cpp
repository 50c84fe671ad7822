// The CPU target: C++17 loop nests for the fused kernels (loop_kernels.cpp), the portable
// kernel library (kernels/tc_kernels.h) for library calls, host memory for weights (mapped from
// weights.bin) and for the arena.
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
  std::string sourceFile(const std::string &name) const override { return name + ".cpp"; }

  void emitIncludesAndTypes(CodeWriter &code, const std::string &name,
                            size_t numWeights) const override {
    code.line("#include <algorithm>");
    code.line("#include <cmath>");
    code.line("#include <cstdint>");
    code.line("#include <cstring>");
    code.line("#include <limits>");
    code.line("#include <new>");
    code.line("#include <vector>");
    code.line();
    code.line("#include \"arena.h\"");
    code.line("#include \"tc_kernels.h\"");
    code.line("#include \"weights.h\"");
    code.line();
    code.open("struct " + name + "_model");
    code.line("tc_weights *weights = nullptr;");
    code.line("tc_tensor params[" + std::to_string(std::max<size_t>(numWeights, 1)) + "] = {};");
    code.close(";");
    code.line();
    code.open("struct " + name + "_context");
    code.line("const " + name + "_model *model = nullptr;");
    code.line("tc_arena *arena = nullptr;");
    code.line("tc_arena *state = nullptr; ///< the program's state (kStates), kept between runs");
    code.line("int num_threads = 1; ///< threads per run, the caller included");
    code.line("tc_pool *pool = nullptr; ///< num_threads - 1 workers, started by the first run");
    code.line("uint64_t seed = tc::kDefaultRandomSeed; ///< random ops' seed (_context_set_seed)");
    code.line("uint64_t runs = 0; ///< runs since the seed was set or the context reset");
    code.line("tc_observer observer = nullptr; ///< _context_set_observer");
    code.line("void *observer_user = nullptr;");
    code.line("std::vector<unsigned char> observed; ///< the observer's copy of a value");
    code.close(";");
  }

  void emitLifecycle(CodeWriter &code, const std::string &n) const override {
    openEntryPoint(code,
                   "tc_status " + n + "_load(const char *weights_path, " + n +
                       "_model **out, tc_error *err)",
                   "out == nullptr || weights_path == nullptr", n + "_load: null argument");
    code.line("*out = nullptr;");
    code.line(n + "_model *model = new (std::nothrow) " + n + "_model();");
    code.open("if (model == nullptr)");
    code.line("return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, \"" + n +
              "_load: out of memory\");");
    code.close();
    code.line("// GEMMs run single-threaded inside the context's own threads (tc_parallel.h).");
    code.line("tc::detail::blas_single_threaded();");
    code.line("tc_status status = tc_weights_open(weights_path, &model->weights, err);");
    code.open("if (status == TC_OK && kCheckCompileId)");
    code.line("status = tc_weights_check_compile_id(model->weights, kCompileId, err);");
    code.close();
    code.open("for (size_t i = 0; status == TC_OK && i < kNumWeights; ++i)");
    code.line("const WeightSpec &spec = kWeights[i];");
    code.line("status = tc_weights_find_expected(model->weights, spec.name, spec.dtype, "
              "spec.rank, spec.shape, &model->params[i], err);");
    code.close();
    code.open("if (status != TC_OK)");
    code.line(n + "_free(model);");
    code.line("return status;");
    code.close();
    code.line("*out = model;");
    code.line("return TC_OK;");
    code.close();
    code.line();
    code.open("void " + n + "_free(" + n + "_model *model)");
    code.open("if (model != nullptr)");
    code.line("tc_weights_close(model->weights);");
    code.close();
    code.line("delete model;");
    code.close();
    code.line();
    openEntryPoint(code,
                   "tc_status " + n + "_context_create(const " + n + "_model *model, " + n +
                       "_context **out, tc_error *err)",
                   "model == nullptr || out == nullptr", n + "_context_create: null argument");
    code.line("*out = new (std::nothrow) " + n + "_context();");
    code.open("if (*out == nullptr)");
    code.line("return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, \"" + n +
              "_context_create: out of memory\");");
    code.close();
    code.line("(*out)->model = model;");
    code.line("(*out)->num_threads = tc_available_cpus();");
    code.line("tc_status status = " + n + "_context_reset(*out, err);");
    code.open("if (status != TC_OK)");
    code.line(n + "_context_destroy(*out);");
    code.line("*out = nullptr;");
    code.line("return status;");
    code.close();
    code.line("return TC_OK;");
    code.close();
    code.line();
    code.open("void " + n + "_context_destroy(" + n + "_context *context)");
    code.open("if (context != nullptr)");
    code.line("tc_arena_destroy(context->arena);");
    code.line("tc_arena_destroy(context->state);");
    code.line("tc_pool_destroy(context->pool);");
    code.close();
    code.line("delete context;");
    code.close();
    code.line();
  }

  void emitContextReset(CodeWriter &code, const std::string &n) const override {
    openEntryPoint(code, "tc_status " + n + "_context_reset(" + n + "_context *context, tc_error *err)",
                   "context == nullptr", n + "_context_reset: null context");
    code.line("context->runs = 0; // random ops replay their sequence");
    code.open("if (context->state == nullptr)");
    code.line("tc_status status = tc_arena_create(std::max(kStateBytes, kAlign), &context->state, err);");
    code.open("if (status != TC_OK)");
    code.line("tc_error_prefixf(err, \"" + n + "_context_reset: \");");
    code.line("return status;");
    code.close();
    code.close();
    code.line("unsigned char *state = static_cast<unsigned char *>(tc_arena_base(context->state));");
    code.open("for (int i = 0; i < kNumStates; ++i)");
    code.line("std::memcpy(state + kStates[i].offset, context->model->params[kStates[i].weight].data, "
              "kStates[i].bytes);");
    code.close();
    code.line("return TC_OK;");
    code.close();
    code.line();
  }

  void emitSetNumThreads(CodeWriter &code, const std::string &n) const override {
    openEntryPoint(code,
                   "tc_status " + n + "_context_set_num_threads(" + n +
                       "_context *context, int num_threads, tc_error *err)",
                   "context == nullptr", n + "_context_set_num_threads: null context");
    code.open("if (num_threads < 0 || num_threads > 1024)");
    code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + n +
              "_context_set_num_threads: num_threads %d is outside [0, 1024] (0: the default)\", "
              "num_threads);");
    code.close();
    code.line("context->num_threads = num_threads == 0 ? tc_available_cpus() : num_threads;");
    code.open("if (tc_pool_num_threads(context->pool) != context->num_threads)");
    code.line("tc_pool_destroy(context->pool);");
    code.line("context->pool = nullptr;");
    code.close();
    code.line("return TC_OK;");
    code.close();
    code.line();
  }

  std::string stateBase() const override {
    return "static_cast<unsigned char *>(tc_arena_base(context->state))";
  }

  void emitArena(CodeWriter &code, const std::string &n) const override {
    code.open("if (context->arena == nullptr || tc_arena_size(context->arena) < bytes)");
    code.line("tc_arena_destroy(context->arena);");
    code.line("context->arena = nullptr;");
    code.line("status = tc_arena_create(std::max(bytes, kAlign), &context->arena, err);");
    code.open("if (status != TC_OK)");
    code.line("tc_error_prefixf(err, \"" + n + "_run: \");");
    code.line("return status;");
    code.close();
    code.close();
    code.line("[[maybe_unused]] unsigned char *base ="
              " static_cast<unsigned char *>(tc_arena_base(context->arena));");
    code.line("// The context's threads for this run's kernels (tc_parallel.h).");
    code.open("if (context->num_threads > 1 && context->pool == nullptr)");
    code.line("status = tc_pool_create(context->num_threads, &context->pool, err);");
    code.open("if (status != TC_OK)");
    code.line("tc_error_prefixf(err, \"" + n + "_run: \");");
    code.line("return status;");
    code.close();
    code.close();
    code.line("tc::PoolScope pool_scope(context->pool);");
  }

  Status emitKernel(const ir::Node &node, EmitState &state) override {
    return emitLoopKernel(node, state);
  }

  std::string cmakeLists(const BundleOptions &options, bool hasGolden) const override {
    return renderEmbeddedTemplate("backend_cpu/templates/CMakeLists.txt.in",
                                  {{"NAME", options.name}, {"SOURCE", options.sourceName}}) +
           goldenTestCmake(options, hasGolden);
  }

  // The scalar layer shared with CUDA (tc_math.h, tc_random.h) and the CPU kernel library.
  bool shipsKernelHeader(const std::string &path, const BundleOptions &) const override {
    return path == "runtime/kernels/tc_math.h" || path == "runtime/kernels/tc_random.h" ||
           path.rfind("backend_cpu/kernels/", 0) == 0;
  }
};

} // namespace

std::unique_ptr<codegen::TargetBackend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace thunderc::cpu
