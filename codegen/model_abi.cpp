// The model's public files: <name>.h (the C ABI with its C++ RAII wrapper; CUDA bundles add
// the stream, host-tensor and timing entry points) and <name>_run.cpp (the runner's table of
// the model's functions, see runtime/runner.h). Both depend only on the name and the target.
#include "codegen/emit_state.h"

namespace thunderc::codegen {
namespace {

std::string upper(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

} // namespace

std::string modelHeader(const EmitOptions &options, const TargetBackend &backend) {
  const std::string &name = options.name;
  auto onDevice = [&] { return options.target == Target::Cuda; };
  CodeWriter code;
  std::string guard = "THUNDERC_MODEL_" + upper(name) + "_H";
  code.line("/* " + name + ".h: the public API of the model compiled by thunderc from " +
            options.sourceName + ". Generated; do not edit.");
  code.line(" *");
  code.line(" * Usage: load once (weights are mapped and checked), create one context per");
  code.line(" * concurrent caller, then run. Every call returns a tc_status; details go to the");
  code.line(" * optional tc_error. Tensors are dense row-major buffers the caller owns. */");
  code.line("#ifndef " + guard);
  code.line("#define " + guard);
  code.line();
  code.line("#include \"thunderc_runtime.h\"");
  code.line();
  code.line("#ifdef __cplusplus");
  code.line("extern \"C\" {");
  code.line("#endif");
  code.line();
  code.line("typedef struct " + name + "_model " + name + "_model;");
  code.line("typedef struct " + name + "_context " + name + "_context;");
  code.line();
  code.line("/** Maps and validates weights.bin; the model is immutable and shareable by threads. */");
  code.line("tc_status " + name + "_load(const char *weights_path, " + name +
            "_model **out, tc_error *err);");
  code.line("void " + name + "_free(" + name + "_model *model);");
  code.line("/** One execution context (arena) per concurrent caller. */");
  code.line("tc_status " + name + "_context_create(const " + name + "_model *model, " +
            name + "_context **out, tc_error *err);");
  code.line("void " + name + "_context_destroy(" + name + "_context *context);");
  code.line("int " + name + "_num_inputs(void);");
  code.line("int " + name + "_num_outputs(void);");
  code.line("/** The exported name of input `index`, or NULL when out of range. */");
  code.line("const char *" + name + "_input_name(int index);");
  code.line("/** Fills outputs[i].dtype, rank and shape for these inputs (data is untouched). */");
  code.line("tc_status " + name + "_output_shapes(const tc_tensor *inputs, int num_inputs, " +
            "tc_tensor *outputs, int num_outputs, tc_error *err);");
  code.line("/** Runs the model. Inputs and outputs are in graph order; outputs must have the");
  code.line(" * dtypes and shapes " + name + "_output_shapes reports, with data allocated. */");
  if (onDevice())
    code.line("/** CUDA: tensors hold DEVICE pointers; the run is enqueued on the context's "
              "stream and returns without waiting for it. */");
  code.line("tc_status " + name + "_run(" + name + "_context *context, const tc_tensor *inputs, " +
            "int num_inputs, tc_tensor *outputs, int num_outputs, tc_error *err);");
  backend.emitHeaderApi(code, name);
  code.line();
  code.line("#ifdef __cplusplus");
  code.line("} /* extern \"C\" */");
  code.line();
  // Inside thunderc:: so that a name like `exp` or `main` cannot clash with the C library
  // or the program's own globals.
  code.line("namespace thunderc {");
  code.line("namespace " + name + " {");
  code.line("/// RAII owner of a loaded model.");
  code.line("class Model {");
  code.line("public:");
  code.line("  Model() = default;");
  code.line("  Model(const Model &) = delete;");
  code.line("  Model &operator=(const Model &) = delete;");
  code.line("  ~Model() { " + name + "_free(model_); }");
  code.line("  tc_status load(const char *weights_path, tc_error *err = nullptr) {");
  code.line("    " + name + "_free(model_);");
  code.line("    model_ = nullptr;");
  code.line("    return " + name + "_load(weights_path, &model_, err);");
  code.line("  }");
  code.line("  const " + name + "_model *get() const { return model_; }");
  code.line();
  code.line("private:");
  code.line("  " + name + "_model *model_ = nullptr;");
  code.line("};");
  code.line();
  code.line("/// RAII owner of an execution context.");
  code.line("class Context {");
  code.line("public:");
  code.line("  Context() = default;");
  code.line("  Context(const Context &) = delete;");
  code.line("  Context &operator=(const Context &) = delete;");
  code.line("  ~Context() { " + name + "_context_destroy(context_); }");
  code.line("  tc_status create(const Model &model, tc_error *err = nullptr) {");
  code.line("    " + name + "_context_destroy(context_);");
  code.line("    context_ = nullptr;");
  code.line("    return " + name + "_context_create(model.get(), &context_, err);");
  code.line("  }");
  code.line("  tc_status run(const tc_tensor *inputs, int num_inputs, tc_tensor *outputs,");
  code.line("                int num_outputs, tc_error *err = nullptr) {");
  code.line("    return " + name + "_run(context_, inputs, num_inputs, outputs, num_outputs, err);");
  code.line("  }");
  if (onDevice()) {
    code.line("  tc_status run_host(const tc_tensor *inputs, int num_inputs, tc_tensor *outputs,");
    code.line("                     int num_outputs, tc_error *err = nullptr) {");
    code.line("    return " + name +
              "_run_host(context_, inputs, num_inputs, outputs, num_outputs, err);");
    code.line("  }");
    code.line("  tc_status synchronize(tc_error *err = nullptr) {");
    code.line("    return " + name + "_synchronize(context_, err);");
    code.line("  }");
    code.line("  tc_status set_stream(void *stream, tc_error *err = nullptr) {");
    code.line("    return " + name + "_context_set_stream(context_, stream, err);");
    code.line("  }");
  }
  code.line();
  code.line("private:");
  code.line("  " + name + "_context *context_ = nullptr;");
  code.line("};");
  code.line("} // namespace " + name);
  code.line("} // namespace thunderc");
  code.line("#endif");
  code.line();
  code.line("#endif /* " + guard + " */");
  return code.str();
}

std::string modelRunner(const EmitOptions &options) {
  auto onDevice = [&] { return options.target == Target::Cuda; };
  const std::string &n = options.name;
  CodeWriter code;
  code.line("// " + n + "_run.cpp: the command-line runner of " + n +
            " (see runtime/runner.h). Generated; do not edit.");
  code.line("#include \"" + n + ".h\"");
  code.line("#include \"runner.h\"");
  code.line();
  code.line("#ifndef TC_DEFAULT_WEIGHTS");
  code.line("#define TC_DEFAULT_WEIGHTS \"weights.bin\"");
  code.line("#endif");
  code.line();
  code.line("namespace {");
  code.open("tc_status load(const char *path, void **model, tc_error *err)");
  code.line(n + "_model *typed = nullptr;");
  code.line("tc_status status = " + n + "_load(path, &typed, err);");
  code.line("*model = typed;");
  code.line("return status;");
  code.close();
  code.line("void freeModel(void *model) { " + n + "_free(static_cast<" + n +
            "_model *>(model)); }");
  code.open("tc_status createContext(const void *model, void **context, tc_error *err)");
  code.line(n + "_context *typed = nullptr;");
  code.line("tc_status status = " + n + "_context_create(static_cast<const " + n +
            "_model *>(model), &typed, err);");
  code.line("*context = typed;");
  code.line("return status;");
  code.close();
  code.line("void destroyContext(void *context) { " + n + "_context_destroy(static_cast<" + n +
            "_context *>(context)); }");
  code.line("// The runner's tensors live in host memory" +
            std::string(onDevice() ? ": the CUDA bundle stages them through the device." : "."));
  code.open("tc_status run(void *context, const tc_tensor *inputs, int num_inputs, "
            "tc_tensor *outputs, int num_outputs, tc_error *err)");
  code.line("return " + n + (onDevice() ? "_run_host" : "_run") + "(static_cast<" + n +
            "_context *>(context), inputs, num_inputs, outputs, num_outputs, err);");
  code.close();
  if (onDevice()) {
    code.open("tc_status timeRuns(void *context, const tc_tensor *inputs, int num_inputs, "
              "tc_tensor *outputs, int num_outputs, int warmup, int iters, double *median_us, "
              "tc_error *err)");
    code.line("return " + n + "_time_runs(static_cast<" + n +
              "_context *>(context), inputs, num_inputs, outputs, num_outputs, warmup, iters, "
              "median_us, err);");
    code.close();
  }
  code.line("} // namespace");
  code.line();
  code.open("int main(int argc, char **argv)");
  code.line("tc_model_api api = {};");
  code.line("api.name = \"" + n + "\";");
  code.line("api.num_inputs = " + n + "_num_inputs();");
  code.line("api.num_outputs = " + n + "_num_outputs();");
  code.line("api.input_name = " + n + "_input_name;");
  code.line("api.load = load;");
  code.line("api.free_model = freeModel;");
  code.line("api.context_create = createContext;");
  code.line("api.context_destroy = destroyContext;");
  code.line("api.output_shapes = " + n + "_output_shapes;");
  code.line("api.run = run;");
  if (onDevice())
    code.line("api.time_runs = timeRuns;");
  code.line("return tc_runner_main(argc, argv, &api, TC_DEFAULT_WEIGHTS);");
  code.close();
  return code.str();
}

} // namespace thunderc::codegen
