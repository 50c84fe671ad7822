// Calls the dynamic_mlp bundle through its public API, as a user would, and checks the
// documented status codes: wrong input count, dtype, shape, out-of-range dynamic batch,
// missing and corrupt weights. Usage: consumer <weights.bin> <corrupt-weights.bin>
#include <cstdio>
#include <cstring>
#include <vector>

#include "dynamic_mlp.h"

namespace {

int failures = 0;

void expect(bool condition, const char *what) {
  if (condition)
    return;
  std::fprintf(stderr, "FAILED: %s\n", what);
  ++failures;
}

tc_tensor tensor(void *data, tc_dtype dtype, std::vector<int64_t> shape) {
  tc_tensor t{};
  t.data = data;
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    t.shape[i] = shape[i];
  return t;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer <weights.bin> <corrupt-weights.bin>\n");
    return 2;
  }
  tc_error err;
  thunderc::dynamic_mlp::Model model;
  expect(model.load("/nonexistent/weights.bin", &err) == TC_ERROR_IO, "missing weights -> IO");
  expect(model.load(argv[2], &err) == TC_ERROR_CORRUPT_WEIGHTS, "corrupt weights -> CORRUPT");
  if (model.load(argv[1], &err) != TC_OK) {
    std::fprintf(stderr, "load failed: %s\n", err.message);
    return 1;
  }
  thunderc::dynamic_mlp::Context context;
  expect(context.create(model, &err) == TC_OK, "context");

  for (int64_t batch : {1, 7, 64}) {
    std::vector<float> x(static_cast<size_t>(batch * 4 * 16), 0.25f);
    tc_tensor input = tensor(x.data(), TC_DTYPE_F32, {batch, 4, 16});
    tc_tensor output{};
    expect(dynamic_mlp_output_shapes(&input, 1, &output, 1, &err) == TC_OK, "output shapes");
    expect(output.rank == 2 && output.shape[0] == batch, "output batch follows the input");
    std::vector<float> y(static_cast<size_t>(output.shape[0] * output.shape[1]), -1.0f);
    output.data = y.data();
    expect(context.run(&input, 1, &output, 1, &err) == TC_OK, "run at a valid batch");
    bool finite = true;
    for (float v : y)
      finite = finite && v == v && v != -1.0f;
    expect(finite, "outputs written");
  }

  std::vector<float> x(65 * 4 * 16, 0.0f);
  std::vector<float> y(65 * 8, 0.0f);
  tc_tensor input = tensor(x.data(), TC_DTYPE_F32, {65, 4, 16});
  tc_tensor output = tensor(y.data(), TC_DTYPE_F32, {65, 8});
  expect(context.run(&input, 1, &output, 1, &err) == TC_ERROR_OUT_OF_RANGE,
         "batch 65 is outside [1, 64]");
  expect(std::strstr(err.message, "outside its range") != nullptr, "range message");
  input = tensor(x.data(), TC_DTYPE_F32, {2, 4, 16});
  output = tensor(y.data(), TC_DTYPE_F32, {2, 8});
  expect(context.run(&input, 2, &output, 1, &err) == TC_ERROR_INVALID_ARGUMENT,
         "wrong input count");
  tc_tensor wrongDtype = tensor(x.data(), TC_DTYPE_F64, {2, 4, 16});
  expect(context.run(&wrongDtype, 1, &output, 1, &err) == TC_ERROR_DTYPE_MISMATCH,
         "wrong input dtype");
  tc_tensor wrongShape = tensor(x.data(), TC_DTYPE_F32, {2, 5, 16});
  expect(context.run(&wrongShape, 1, &output, 1, &err) == TC_ERROR_SHAPE_MISMATCH,
         "wrong input shape");
  tc_tensor wrongOutput = tensor(y.data(), TC_DTYPE_F32, {3, 8});
  expect(context.run(&input, 1, &wrongOutput, 1, &err) == TC_ERROR_SHAPE_MISMATCH,
         "wrong output shape");
  expect(dynamic_mlp_run(nullptr, &input, 1, &output, 1, &err) == TC_ERROR_INVALID_ARGUMENT,
         "null context");
  if (failures == 0)
    std::printf("consumer: all API checks passed\n");
  return failures == 0 ? 0 : 1;
}
