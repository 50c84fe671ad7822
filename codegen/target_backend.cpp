// Defaults of the TargetBackend hooks that only some targets need.
#include "codegen/target_backend.h"

#include "codegen/emit_state.h"

namespace thunderc::codegen {

void TargetBackend::emitDefinitions(CodeWriter &, const EmitOptions &) const {}
void TargetBackend::emitModelConstants(CodeWriter &, const EmitOptions &,
                                       const EmitState &) const {}
std::map<std::string, StoredWeight> TargetBackend::storedWeights(const ir::Graph &) const {
  return {};
}
std::map<std::string, std::string> TargetBackend::abiValues(const std::string &) const {
  return {{"RUN_NOTE", ""},        {"TARGET_API", ""},       {"TARGET_ABI", ""},
          {"TARGET_METHODS", ""},  {"RUN_COMMENT", ""},      {"RUN_FUNCTION", "run"},
          {"TIME_RUNS_FUNCTION", ""}, {"TIME_RUNS_ASSIGN", ""}};
}

} // namespace thunderc::codegen
