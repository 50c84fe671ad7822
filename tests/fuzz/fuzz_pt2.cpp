// Fuzz target: a whole .pt2 archive through the importer (frontend/pt2/importer.h): zip structure,
// archive layout, the payload configs and every tensor's bounds, the model JSON, symbolic
// shapes, the ATen import table and the verifier. Seeds are real exported programs.
#include <cstdint>

#include "tests/fuzz/fuzz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  thunderc::fuzz::importArchive(data, size);
  return 0;
}
