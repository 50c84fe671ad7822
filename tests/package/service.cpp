// Links two models compiled by thunderc_add_model into one program and checks that they give
// the same outputs for the same input. Usage: service <mlp weights.bin> <second weights.bin>
#include <cstdio>
#include <vector>

#include "mlp.h"
#include "second.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: service <mlp weights.bin> <second weights.bin>\n");
    return 2;
  }
  tc_error err;
  thunderc::mlp::Model first;
  thunderc::second::Model second;
  if (first.load(argv[1], &err) != TC_OK || second.load(argv[2], &err) != TC_OK) {
    std::fprintf(stderr, "load: %s\n", err.message);
    return 1;
  }
  thunderc::mlp::Context firstContext;
  thunderc::second::Context secondContext;
  if (firstContext.create(first, &err) != TC_OK || secondContext.create(second, &err) != TC_OK) {
    std::fprintf(stderr, "context: %s\n", err.message);
    return 1;
  }
  std::vector<float> x(4 * 64);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 7) * 0.125f - 0.375f;
  tc_tensor input{};
  input.data = x.data();
  input.dtype = TC_DTYPE_F32;
  input.rank = 2;
  input.shape[0] = 4;
  input.shape[1] = 64;
  tc_tensor outputs[2] = {};
  if (mlp_output_shapes(&input, 1, &outputs[0], 1, &err) != TC_OK ||
      second_output_shapes(&input, 1, &outputs[1], 1, &err) != TC_OK) {
    std::fprintf(stderr, "output_shapes: %s\n", err.message);
    return 1;
  }
  size_t count = 1;
  for (int d = 0; d < outputs[0].rank; ++d)
    count *= static_cast<size_t>(outputs[0].shape[d]);
  std::vector<float> y0(count), y1(count);
  outputs[0].data = y0.data();
  outputs[1].data = y1.data();
  if (firstContext.run(&input, 1, &outputs[0], 1, &err) != TC_OK ||
      secondContext.run(&input, 1, &outputs[1], 1, &err) != TC_OK) {
    std::fprintf(stderr, "run: %s\n", err.message);
    return 1;
  }
  if (y0 != y1) {
    std::fprintf(stderr, "the two bundles of one program disagree\n");
    return 1;
  }
  std::printf("service: ok, %zu outputs, first %g\n", count, static_cast<double>(y0[0]));
  return 0;
}
