// The random op in the reference interpreter: every element drawn by the same functions the
// bundles call (runtime/kernels/tc_random.h), so the interpreter is the bit-exact oracle of
// both targets for a given seed and run.
#include "runtime/kernels/tc_random.h"
#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {

Status runRandom(OpCall &call) {
  Tensor &result = call.result();
  const tc::random_key key{call.random.seed, static_cast<uint32_t>(attr::stream(call.node)),
                           static_cast<uint32_t>(call.random.run)};
  const std::string &distribution = attr::distribution(call.node);
  int64_t count = result.numel();
  if (distribution == "integer") {
    int64_t low = attr::low(call.node).value();
    int64_t high = attr::high(call.node).value();
    for (int64_t i = 0; i < count; ++i)
      result.data[static_cast<size_t>(i)] =
          static_cast<double>(tc::random_integer(key, i, low, high));
    return Status::success();
  }
  bool normal = distribution == "normal";
  if (result.dtype == DType::F64) {
    for (int64_t i = 0; i < count; ++i)
      result.data[static_cast<size_t>(i)] =
          normal ? tc::random_normal_f64(key, i) : tc::random_uniform_f64(key, i);
    return Status::success();
  }
  // f32, f16, bf16: drawn in float (uniform with as many bits as the dtype's significand), then
  // rounded to the dtype by the driver.
  int digits = result.dtype == DType::F16 ? 11 : result.dtype == DType::BF16 ? 8 : 24;
  for (int64_t i = 0; i < count; ++i)
    result.data[static_cast<size_t>(i)] = static_cast<double>(
        normal ? tc::random_normal_f32(key, i) : tc::random_uniform_f32(key, i, digits));
  return Status::success();
}

} // namespace thunderc::ir::interp
