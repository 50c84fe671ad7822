// Tests for runtime/thunderc_runtime.h: status and dtype names, the per-call error record and
// tensor size arithmetic, which generated code relies on for every shape check.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "runtime/thunderc_runtime.h"

TEST_CASE("runtime abi: status and dtype names") {
  CHECK(std::string(tc_status_name(TC_OK)) == "TC_OK");
  CHECK(std::string(tc_status_name(TC_ERROR_OUT_OF_RANGE)) == "TC_ERROR_OUT_OF_RANGE");
  CHECK(std::string(tc_status_name(TC_ERROR_INTERNAL)) == "TC_ERROR_INTERNAL");
  CHECK(std::string(tc_status_name(TC_ERROR_DEVICE)) == "TC_ERROR_DEVICE");
  CHECK(std::string(tc_status_name(tc_status(99))) == "TC_UNKNOWN_STATUS");
  CHECK(std::string(tc_status_name(tc_status(1000))) == "TC_UNKNOWN_STATUS");

  CHECK(tc_dtype_size(TC_DTYPE_BOOL) == 1);
  CHECK(tc_dtype_size(TC_DTYPE_BF16) == 2);
  CHECK(tc_dtype_size(TC_DTYPE_F64) == 8);
  CHECK(tc_dtype_size(tc_dtype(TC_DTYPE_COUNT)) == 0);
  CHECK(std::string(tc_dtype_name(TC_DTYPE_I64)) == "i64");
  CHECK(std::string(tc_dtype_name(TC_DTYPE_BF16)) == "bf16");
  CHECK(std::string(tc_dtype_name(tc_dtype(1000))) == "invalid");
}

TEST_CASE("runtime abi: error record") {
  tc_error err;
  CHECK(tc_error_setf(&err, TC_ERROR_IO, "cannot open '%s'", "x.bin") == TC_ERROR_IO);
  CHECK(err.status == TC_ERROR_IO);
  CHECK(std::string(err.message) == "cannot open 'x.bin'");
  tc_error_prefixf(&err, "%s: ", "model");
  CHECK(std::string(err.message) == "model: cannot open 'x.bin'");
  CHECK(err.status == TC_ERROR_IO);
  tc_error_clear(&err);
  CHECK(err.status == TC_OK);
  CHECK(err.message[0] == '\0');

  // Long messages and prefixes are truncated, always NUL-terminated.
  std::string longText(2000, 'x');
  tc_error_setf(&err, TC_ERROR_INTERNAL, "%s", longText.c_str());
  CHECK(std::strlen(err.message) == TC_ERROR_MESSAGE_SIZE - 1);
  tc_error_prefixf(&err, "ctx: ");
  CHECK(std::string(err.message, 5) == "ctx: ");
  CHECK(std::strlen(err.message) == TC_ERROR_MESSAGE_SIZE - 1);
  tc_error_prefixf(&err, "%s", longText.c_str());
  CHECK(std::strlen(err.message) == TC_ERROR_MESSAGE_SIZE - 1);

  // A null record is allowed everywhere.
  CHECK(tc_error_setf(nullptr, TC_ERROR_IO, "ignored") == TC_ERROR_IO);
  tc_error_prefixf(nullptr, "ignored");
  tc_error_clear(nullptr);
}

TEST_CASE("runtime abi: tensor sizes") {
  tc_tensor tensor{nullptr, TC_DTYPE_F32, 2, {3, 4}};
  CHECK(tc_tensor_numel(&tensor) == 12);
  CHECK(tc_tensor_byte_size(&tensor) == 48);
  tensor.rank = 0;
  CHECK(tc_tensor_numel(&tensor) == 1);
  tensor = {nullptr, TC_DTYPE_F16, 3, {INT64_MAX, 2, 0}};
  CHECK(tc_tensor_numel(&tensor) == 0); // empty, even though a prefix overflows
  tensor = {nullptr, TC_DTYPE_F16, 2, {INT64_MAX, 2}};
  CHECK(tc_tensor_numel(&tensor) == -1);
  tensor = {nullptr, TC_DTYPE_F16, 2, {0, -1}};
  CHECK(tc_tensor_numel(&tensor) == -1);
  tensor = {nullptr, TC_DTYPE_F64, 1, {INT64_MAX / 4}};
  CHECK(tc_tensor_numel(&tensor) == INT64_MAX / 4);
  CHECK(tc_tensor_byte_size(&tensor) == -1);
  tensor = {nullptr, tc_dtype(77), 1, {1}};
  CHECK(tc_tensor_byte_size(&tensor) == -1);
  tensor.rank = TC_MAX_RANK + 1;
  CHECK(tc_tensor_numel(&tensor) == -1);
  CHECK(tc_tensor_numel(nullptr) == -1);
}
