// Fuzz target: the runtime's weights.bin loader (runtime/weights.h), which every bundle runs
// at load time: open (header, index, names, sizes, checksums), then every lookup.
#include <cstdint>

#include "tests/fuzz/fuzz_util.h"
#include "weights.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  thunderc::fuzz::MemoryFile file(data, size);
  tc_weights *weights = nullptr;
  tc_error error;
  if (tc_weights_open(file.path().c_str(), &weights, &error) != TC_OK)
    return 0;
  for (size_t i = 0; i < tc_weights_count(weights); ++i) {
    const char *name = nullptr;
    tc_tensor tensor;
    if (tc_weights_get(weights, i, &name, &tensor, &error) == TC_OK)
      (void)tc_weights_find(weights, name, &tensor, &error);
  }
  (void)tc_weights_check_compile_id(weights, "0123456789abcdef", &error);
  tc_weights_close(weights);
  return 0;
}
