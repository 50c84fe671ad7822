// Fuzz target: the text-IR parser (ir/parser.h), then the verifier on what parses, then the
// printer on what verifies (the printed text must parse again).
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace thunderc;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  Expected<std::unique_ptr<ir::Graph>> graph = ir::parseGraph(text, "fuzz.tir");
  if (!graph.ok() || !ir::verifyGraph(**graph).ok())
    return 0;
  std::string printed = ir::printGraph(**graph);
  if (!ir::parseGraph(printed, "printed.tir").ok())
    std::abort(); // the printer wrote text its own parser rejects
  return 0;
}
