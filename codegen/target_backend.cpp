// Defaults of the TargetBackend hooks that only some targets need.
#include "codegen/target_backend.h"

#include "codegen/emit_state.h"

namespace thunderc::codegen {

void TargetBackend::addSources(const std::string &, std::map<std::string, std::string> &) const {}
void TargetBackend::emitDefinitions(CodeWriter &, const EmitOptions &) const {}
void TargetBackend::emitMoreEntryPoints(CodeWriter &, const std::string &, size_t, size_t,
                                        const EmitState &) const {}
std::map<std::string, std::string> TargetBackend::abiValues(const std::string &) const {
  return {{"RUN_NOTE", ""},           {"TARGET_API", ""},         {"TARGET_METHODS", ""},
          {"RUN_COMMENT", ""},        {"RUN_FUNCTION", "run"},    {"TIME_RUNS_FUNCTION", ""},
          {"TIME_RUNS_ASSIGN", ""}};
}
void TargetBackend::emitRunWork(CodeWriter &code, const std::string &,
                                const std::vector<std::string> &) const {
  code.line("return work();");
}
void TargetBackend::emitDebugCopy(CodeWriter &code, const std::string &name) const {
  code.open("[[maybe_unused]] bool debugCopy(" + name + "_context *, void *dst, const void *src, "
            "size_t bytes, bool)");
  code.line("std::memcpy(dst, src, bytes);");
  code.line("return true;");
  code.close();
}
std::string TargetBackend::readmeSection(const BundleOptions &) const { return ""; }

void TargetBackend::emitSetNumThreads(CodeWriter &code, const std::string &n) const {
  openEntryPoint(code,
                 "tc_status " + n + "_context_set_num_threads(" + n +
                     "_context *context, int num_threads, tc_error *err)",
                 "context == nullptr", n + "_context_set_num_threads: null context");
  code.open("if (num_threads < 0 || num_threads > 1024)");
  code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + n +
            "_context_set_num_threads: num_threads %d is outside [0, 1024] (0: the default)\", "
            "num_threads);");
  code.close();
  code.line("return TC_OK;");
  code.close();
  code.line();
}

} // namespace thunderc::codegen
