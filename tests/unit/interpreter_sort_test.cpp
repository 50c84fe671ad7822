// The reference interpreter's sort (stable, NaN largest, any dim) and embedding_bag (modes,
// padding, per-sample weights, clamped offsets, bad indices).
#include <cmath>

#include "interpreter_test_util.h"

using namespace interpreter_test;

namespace {

std::vector<std::vector<double>> sorted(const HostTensor &x, int64_t dim, bool descending) {
  Expected<std::vector<HostTensor>> outputs =
      runOp(OpKind::Sort, {x}, {typeOf(x), typeOf(DType::I64, x.shape)},
            attrs({{"descending", descending}, {"dim", dim}}));
  REQUIRE(outputs.ok());
  return {valuesOf((*outputs)[0]), valuesOf((*outputs)[1])};
}

} // namespace

TEST_CASE("interpreter: sort is stable, puts NaN last (first descending), sorts any dim") {
  const double nan = std::nan("");
  HostTensor x = f32({2, 4}, {3, nan, 1, 3, 0, -1, 0, 2});
  auto up = sorted(x, -1, false);
  CHECK(up[1] == std::vector<double>{2, 0, 3, 1, 1, 0, 2, 3});
  auto down = sorted(x, 1, true);
  CHECK(down[1] == std::vector<double>{1, 0, 3, 2, 3, 0, 2, 1});
  CHECK(sorted(x, 0, false)[1] == std::vector<double>{1, 1, 1, 1, 0, 0, 0, 0});
  CHECK(sorted(makeTensor(DType::I32, {}, {7}), 0, true)[0] == std::vector<double>{7});
}

TEST_CASE("interpreter: embedding_bag sums, averages and maxes bags") {
  HostTensor weight = f32({4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  HostTensor indices = makeTensor(DType::I64, {5}, {1, 2, 3, 0, 2});
  HostTensor offsets = makeTensor(DType::I64, {3}, {0, 2, 2});
  auto bag = [&](const std::string &mode, bool last, int64_t padding) {
    return attrs({{"include_last_offset", last}, {"mode", mode}, {"padding_idx", padding}});
  };
  CHECK(evalOp(OpKind::EmbeddingBag, {weight, indices, offsets}, typeOf(DType::F32, {3, 2}),
               bag("sum", false, -1)) == std::vector<double>{30, 32, 0, 0, 50, 53});
  CHECK(evalOp(OpKind::EmbeddingBag, {weight, indices, offsets}, typeOf(DType::F32, {2, 2}),
               bag("mean", true, 2)) == std::vector<double>{10, 11, 0, 0});
  CHECK(evalOp(OpKind::EmbeddingBag, {weight, indices, offsets}, typeOf(DType::F32, {3, 2}),
               bag("max", false, 3)) == std::vector<double>{20, 21, 0, 0, 20, 21});
  HostTensor weights = f32({5}, {1, 2, 0.5, 1, -1});
  CHECK(evalOp(OpKind::EmbeddingBag, {weight, indices, offsets, weights},
               typeOf(DType::F32, {3, 2}), bag("sum", false, -1)) ==
        std::vector<double>{50, 53, 0, 0, -5, -4.5});
  HostTensor bad = makeTensor(DType::I64, {5}, {1, 2, 4, 0, 2});
  CHECK(opError(OpKind::EmbeddingBag, {weight, bad, offsets}, typeOf(DType::F32, {3, 2}),
                bag("sum", false, -1))
            .find("index 4 at position 2 is out of range for size 4") != std::string::npos);
}
