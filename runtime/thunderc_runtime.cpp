// Status names, the per-call error record, dtype sizes and tensor sizes of thunderc_runtime.h.
#include "thunderc_runtime.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <limits>

namespace {

constexpr const char *kStatusNames[] = {
    "TC_OK",
    "TC_ERROR_INVALID_ARGUMENT",
    "TC_ERROR_IO",
    "TC_ERROR_CORRUPT_WEIGHTS",
    "TC_ERROR_SHAPE_MISMATCH",
    "TC_ERROR_DTYPE_MISMATCH",
    "TC_ERROR_OUT_OF_RANGE",
    "TC_ERROR_OUT_OF_MEMORY",
    "TC_ERROR_INTERNAL",
    "TC_ERROR_DEVICE",
};
static_assert(sizeof(kStatusNames) / sizeof(kStatusNames[0]) == TC_ERROR_DEVICE + 1,
              "every tc_status needs a name");

struct DTypeInfo {
  const char *name;
  size_t size;
};
constexpr DTypeInfo kDTypes[] = {
    {"bool", 1}, {"u8", 1},  {"i8", 1},   {"i16", 2}, {"i32", 4},
    {"i64", 8},  {"f16", 2}, {"bf16", 2}, {"f32", 4}, {"f64", 8},
};
static_assert(sizeof(kDTypes) / sizeof(kDTypes[0]) == TC_DTYPE_COUNT,
              "every tc_dtype needs a name and size");
static_assert(TC_DTYPE_F64 + 1 == TC_DTYPE_COUNT, "TC_DTYPE_COUNT is out of date");

bool isValidDType(tc_dtype dtype) {
  return static_cast<int>(dtype) >= 0 && static_cast<int>(dtype) < TC_DTYPE_COUNT;
}

} // namespace

extern "C" {

const char *tc_status_name(tc_status status) {
  int index = static_cast<int>(status);
  if (index < 0 || index > TC_ERROR_DEVICE)
    return "TC_UNKNOWN_STATUS";
  return kStatusNames[index];
}

void tc_error_clear(tc_error *err) {
  if (err == nullptr)
    return;
  err->status = TC_OK;
  err->message[0] = '\0';
}

tc_status tc_error_setf(tc_error *err, tc_status status, const char *format, ...) {
  if (err == nullptr)
    return status;
  err->status = status;
  va_list args;
  va_start(args, format);
  int written = std::vsnprintf(err->message, sizeof(err->message), format, args);
  va_end(args);
  if (written < 0)
    err->message[0] = '\0';
  return status;
}

void tc_error_prefixf(tc_error *err, const char *format, ...) {
  if (err == nullptr)
    return;
  char prefix[TC_ERROR_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  int written = std::vsnprintf(prefix, sizeof(prefix), format, args);
  va_end(args);
  if (written <= 0)
    return;
  size_t prefixLength = std::strlen(prefix);
  size_t keep = std::strlen(err->message);
  if (prefixLength + keep >= sizeof(err->message))
    keep = sizeof(err->message) - 1 - prefixLength;
  std::memmove(err->message + prefixLength, err->message, keep);
  std::memcpy(err->message, prefix, prefixLength);
  err->message[prefixLength + keep] = '\0';
}

size_t tc_dtype_size(tc_dtype dtype) {
  return isValidDType(dtype) ? kDTypes[static_cast<int>(dtype)].size : 0;
}

const char *tc_dtype_name(tc_dtype dtype) {
  return isValidDType(dtype) ? kDTypes[static_cast<int>(dtype)].name : "invalid";
}

int64_t tc_tensor_numel(const tc_tensor *tensor) {
  if (tensor == nullptr || tensor->rank < 0 || tensor->rank > TC_MAX_RANK)
    return -1;
  int64_t numel = 1;
  bool hasZeroDim = false;
  // A zero dim makes the tensor empty even when the other dims' product overflows, but a
  // negative dim anywhere makes it invalid, so every dim is scanned before deciding.
  bool overflowed = false;
  for (int32_t i = 0; i < tensor->rank; ++i) {
    int64_t dim = tensor->shape[i];
    if (dim < 0)
      return -1;
    if (dim == 0) {
      hasZeroDim = true;
      continue;
    }
    if (numel > std::numeric_limits<int64_t>::max() / dim)
      overflowed = true;
    else
      numel *= dim;
  }
  if (hasZeroDim)
    return 0;
  return overflowed ? -1 : numel;
}

int64_t tc_tensor_byte_size(const tc_tensor *tensor) {
  int64_t numel = tc_tensor_numel(tensor);
  if (numel < 0)
    return -1;
  int64_t itemSize = static_cast<int64_t>(tc_dtype_size(tensor->dtype));
  if (itemSize == 0 || numel > std::numeric_limits<int64_t>::max() / itemSize)
    return -1;
  return numel * itemSize;
}

} // extern "C"
