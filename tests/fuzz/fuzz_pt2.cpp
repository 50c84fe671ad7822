// Fuzz target: a whole .pt2 archive through the importer (frontend/importer.h): zip structure,
// archive layout, the payload configs and every tensor's bounds, the model JSON, symbolic
// shapes, the ATen import table and the verifier. Seeds are real exported programs.
#include <cstdint>

#include "frontend/importer.h"
#include "ir/printer.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  thunderc::fuzz::MemoryFile file(data, size);
  thunderc::Expected<thunderc::frontend::ImportedModel> model =
      thunderc::frontend::importPt2(file.path());
  thunderc::fuzz::report(model);
  if (model.ok())
    (void)thunderc::ir::printGraph(*model->graph);
  return 0;
}
