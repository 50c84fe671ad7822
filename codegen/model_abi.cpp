// The model's public files: <name>.h (the C ABI with its C++ RAII wrapper; CUDA bundles add
// the stream, host-tensor and timing entry points) and <name>_run.cpp (the runner's table of
// the model's functions, see runtime/runner.h). Both are templates (templates/model.h.in,
// model_run.cpp.in) filled with the name and the target's parts (TargetBackend::abiValues).
#include <cctype>

#include "codegen/emit_state.h"
#include "codegen/template.h"

namespace thunderc::codegen {
namespace {

std::string upper(std::string text) {
  for (char &c : text)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

std::map<std::string, std::string> abiValues(const EmitOptions &options,
                                             const TargetBackend &backend) {
  std::map<std::string, std::string> values = backend.abiValues(options.name);
  values["NAME"] = options.name;
  values["NAME_UPPER"] = upper(options.name);
  values["SOURCE"] = options.sourceName;
  return values;
}

} // namespace

std::string modelHeader(const EmitOptions &options, const TargetBackend &backend) {
  return renderEmbeddedTemplate("codegen/templates/model.h.in", abiValues(options, backend));
}

std::string modelRunner(const EmitOptions &options, const TargetBackend &backend) {
  return renderEmbeddedTemplate("codegen/templates/model_run.cpp.in",
                                abiValues(options, backend));
}

} // namespace thunderc::codegen
