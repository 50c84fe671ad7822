// Fuzz target: the sympy srepr parser for symbolic sizes (frontend/pt2/sympy_expr.h). It must
// return an error for anything malformed, deep or unsupported, and never evaluate code.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "frontend/pt2/sympy_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  static const std::map<std::string, std::string> renames = {{"s0", "batch"}, {"s77", "seq"}};
  (void)thunderc::frontend::parseSympySrepr(text, renames);
  (void)thunderc::frontend::sympySymbols(text);
  return 0;
}
