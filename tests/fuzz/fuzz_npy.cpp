// Fuzz target: the runtime's .npy reader (runtime/npy.h), used by every bundle's runner.
#include <cstdint>

#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tc_tensor tensor;
  tc_error error;
  if (tc_npy_parse(data, size, &tensor, &error) == TC_OK)
    tc_npy_free(&tensor);
  return 0;
}
