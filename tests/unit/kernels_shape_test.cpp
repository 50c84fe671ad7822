// Tests of the kernel library's data-movement kernels (backend_cpu/kernels/tc_kernels_shape.h)
// against the reference interpreter: strided_copy for permute/expand/slice/select,
// strided_store for concat, triangle for tril/triu, fill for full, arange, embedding and
// index_select (including out-of-range and negative indices).
#include "kernels_test_util.h"

using namespace kernels_test;

namespace {

/// Runs strided_copy of a contiguous `input` with the view (offset, strides, shape) and
/// compares it with the interpreter's `op`.
template <typename T>
void checkStridedCopy(OpKind op, const HostTensor &input, const AttrMap &attributes,
                      int64_t offset, const std::vector<int64_t> &strides) {
  TensorType type = inferredType(op, {input}, attributes);
  std::vector<int64_t> shape = shapeOf(type);
  INFO(opName(op) << " of " << shapeString(input.shape) << " to " << shapeString(shape));
  REQUIRE(strides.size() == shape.size());
  std::vector<double> expected = evalOp(op, {input}, type, attributes);
  std::vector<T> x = typedOf<T>(input);
  std::vector<T> y(static_cast<size_t>(numelOf(shape)) + 1, tc::cast<T>(99.0));
  tc::strided_copy(x.data(), offset, strides.data(), static_cast<int>(shape.size()), shape.data(),
                   y.data());
  CHECK(tc::cast<double>(y.back()) == 99.0); // nothing written past the end
  y.pop_back();
  checkValues(doublesOf(y), expected, 0.0);
}

std::vector<int64_t> stridesOf(const std::vector<int64_t> &shape) {
  return contiguousStrides(shape);
}

template <typename T> void checkViews() {
  DType dtype = dtypeOf<T>();
  // permute: the view's strides are the input's, permuted.
  for (auto [shape, dims] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{2, 3, 4}, {2, 0, 1}},
           {{2, 3, 4}, {1, 0, 2}},
           {{5, 1, 3, 1}, {3, 2, 0, 1}},
           {{3, 7}, {1, 0}},
           {{0, 3, 2}, {1, 2, 0}},
           {{1, 1, 1}, {2, 1, 0}},
           {{4, 5, 6, 7}, {0, 3, 1, 2}},
           {{}, {}}}) {
    HostTensor input = randomTensor(dtype, shape, 11, -5, 5);
    std::vector<int64_t> contiguous = stridesOf(shape);
    std::vector<int64_t> strides;
    for (int64_t d : dims)
      strides.push_back(contiguous[static_cast<size_t>(d)]);
    checkStridedCopy<T>(OpKind::Permute, input, attrs({{"dims", dims}}), 0, strides);
  }
  // expand: size-1 and new leading dims read with stride 0.
  for (auto [shape, target] : std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>>{
           {{3, 1}, {2, 3, 4}},
           {{1}, {5}},
           {{}, {2, 3}},
           {{1, 4, 1}, {3, 4, 2}},
           {{2, 1}, {0, 2, 5}}}) {
    HostTensor input = randomTensor(dtype, shape, 12, -5, 5);
    std::vector<int64_t> contiguous = stridesOf(shape);
    std::vector<int64_t> strides(target.size(), 0);
    size_t lead = target.size() - shape.size();
    for (size_t d = 0; d < shape.size(); ++d)
      strides[lead + d] = shape[d] == 1 ? 0 : contiguous[d];
    std::vector<Dim> dims(target.begin(), target.end());
    checkStridedCopy<T>(OpKind::Expand, input, attrs({{"shape", makeDimsAttr(dims)}}), 0,
                        strides);
  }
  // slice: offset start * stride, stride * step along dim.
  struct SliceCase {
    std::vector<int64_t> shape;
    int64_t dim, start, end, step;
  };
  for (const SliceCase &c : {SliceCase{{5, 6}, 1, 1, 5, 2}, SliceCase{{5, 6}, 0, 2, 5, 1},
                             SliceCase{{4, 9, 3}, 1, 0, 9, 3}, SliceCase{{4, 9, 3}, 2, 1, 2, 1},
                             SliceCase{{4, 9, 3}, 1, 4, 4, 1}, SliceCase{{7}, 0, 6, 7, 5},
                             SliceCase{{3, 8, 2}, 1, 1, 8, 4}}) {
    HostTensor input = randomTensor(dtype, c.shape, 13, -5, 5);
    std::vector<int64_t> strides = stridesOf(c.shape);
    int64_t offset = c.start * strides[static_cast<size_t>(c.dim)];
    strides[static_cast<size_t>(c.dim)] *= c.step;
    checkStridedCopy<T>(OpKind::Slice, input,
                        attrs({{"dim", c.dim},
                               {"start", c.start},
                               {"end", makeDimAttr(Dim(c.end))},
                               {"step", c.step}}),
                        offset, strides);
  }
  // select: offset index * stride, the dim removed.
  for (auto [shape, dim, index] : std::vector<std::tuple<std::vector<int64_t>, int64_t, int64_t>>{
           {{4, 5, 6}, 1, 3}, {{4, 5, 6}, 0, 0}, {{4, 5, 6}, 2, 5}, {{3}, 0, 2}, {{2, 0}, 0, 1}}) {
    HostTensor input = randomTensor(dtype, shape, 14, -5, 5);
    std::vector<int64_t> strides = stridesOf(shape);
    int64_t offset = index * strides[static_cast<size_t>(dim)];
    strides.erase(strides.begin() + dim);
    checkStridedCopy<T>(OpKind::Select, input, attrs({{"dim", dim}, {"index", index}}), offset,
                        strides);
  }
}

} // namespace

TEST_CASE_TEMPLATE("kernels: strided_copy implements permute, expand, slice and select", T, float,
                   double, tc::half, tc::bfloat16, int64_t, uint8_t) {
  checkViews<T>();
}

TEST_CASE("kernels: strided_copy of more dims than it collapses") {
  std::vector<int64_t> shape(18, 1);
  shape[0] = 2;
  shape[9] = 3;
  shape[17] = 2;
  std::vector<int64_t> strides = contiguousStrides(shape);
  std::swap(strides[0], strides[17]); // a transpose of dims 0 and 17
  std::vector<int64_t> outShape = shape;
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i);
  std::vector<float> y(12);
  tc::strided_copy(x.data(), 0, strides.data(), 18, outShape.data(), y.data());
  // y[a, .., b, .., c] = x[c, .., b, .., a]
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 2; ++c)
        CHECK(y[static_cast<size_t>(a * 6 + b * 2 + c)] ==
              x[static_cast<size_t>(c * 6 + b * 2 + a)]);
}

TEST_CASE_TEMPLATE("kernels: strided_store implements concat", T, float, tc::half, int64_t) {
  DType dtype = dtypeOf<T>();
  struct Case {
    std::vector<std::vector<int64_t>> shapes;
    int64_t dim;
  };
  for (const Case &c : {Case{{{2, 3}, {2, 5}, {2, 1}}, 1}, Case{{{2, 3}, {4, 3}}, 0},
                        Case{{{2, 0, 3}, {2, 2, 3}, {2, 1, 3}}, 1}, Case{{{3, 2, 1}, {3, 2, 4}}, 2},
                        Case{{{5}}, 0}, Case{{{1, 2, 3}, {1, 2, 3}}, -1}}) {
    std::vector<HostTensor> inputs;
    for (size_t i = 0; i < c.shapes.size(); ++i)
      inputs.push_back(randomTensor(dtype, c.shapes[i], 20 + i, -5, 5));
    AttrMap attributes = attrs({{"dim", c.dim}});
    TensorType type = inferredType(OpKind::Concat, inputs, attributes);
    std::vector<int64_t> shape = shapeOf(type);
    INFO("concat to " << shapeString(shape));
    std::vector<double> expected = evalOp(OpKind::Concat, inputs, type, attributes);
    auto dim = static_cast<size_t>(c.dim < 0 ? c.dim + static_cast<int64_t>(shape.size()) : c.dim);
    std::vector<int64_t> outStrides = contiguousStrides(shape);
    std::vector<T> y(static_cast<size_t>(numelOf(shape)));
    int64_t position = 0;
    for (const HostTensor &input : inputs) {
      std::vector<T> x = typedOf<T>(input);
      tc::strided_store(x.data(), static_cast<int>(input.shape.size()), input.shape.data(),
                        y.data(), position * outStrides[dim], outStrides.data());
      position += input.shape[dim];
    }
    checkValues(doublesOf(y), expected, 0.0);
  }
  // rank 0
  T scalar = tc::cast<T>(3.0);
  std::vector<T> out(3, tc::cast<T>(0.0));
  tc::strided_store(&scalar, 0, nullptr, out.data(), 2, nullptr);
  CHECK(tc::cast<double>(out[2]) == 3.0);
}

TEST_CASE_TEMPLATE("kernels: triangle implements tril and triu", T, float, tc::bfloat16, int32_t) {
  DType dtype = dtypeOf<T>();
  for (const std::vector<int64_t> &shape :
       std::vector<std::vector<int64_t>>{{2, 3, 4}, {5, 5}, {1, 0, 3}, {4, 1}, {2, 2, 6, 3}}) {
    for (int64_t diagonal : {-2, -1, 0, 1, 3}) {
      for (bool upper : {false, true}) {
        HostTensor input = randomTensor(dtype, shape, 30, -5, 5);
        AttrMap attributes = attrs({{"diagonal", diagonal}});
        std::vector<double> expected =
            interpretOp(upper ? OpKind::Triu : OpKind::Tril, {input}, attributes);
        int64_t rows = shape[shape.size() - 2];
        int64_t cols = shape.back();
        int64_t batch = rows * cols == 0 ? 0 : numelOf(shape) / (rows * cols);
        std::vector<T> x = typedOf<T>(input);
        std::vector<T> y(x.size());
        tc::triangle(x.data(), batch, rows, cols, diagonal, upper, y.data());
        INFO(shapeString(shape) << " diagonal " << diagonal << " upper " << upper);
        checkValues(doublesOf(y), expected, 0.0);
      }
    }
  }
}

namespace {

template <typename T> void checkFillAndArange() {
  DType dtype = dtypeOf<T>();
  for (double value : {0.0, 2.7, -3.5, 0.1, 300.0, -129.75, 65519.0, 1e10}) {
    TensorType type = typeOf(dtype, {7});
    std::vector<double> expected = evalOp(OpKind::Full, {}, type, attrs({{"value", value}}));
    Buffer<T> y(7);
    tc::fill(reinterpret_cast<T *>(y.data()), 7, value);
    INFO(dtypeName(dtype) << " full " << value);
    std::vector<double> actual;
    for (auto element : y)
      actual.push_back(tc::cast<double>(static_cast<T>(element)));
    checkValues(actual, expected, 0.0);
  }
  for (auto [start, step, count] : std::vector<std::tuple<double, double, int64_t>>{
           {0, 1, 10}, {-3, 0.5, 9}, {2.5, -0.3, 11}, {100, 7, 1}, {0, 1, 0}, {1e3, 0.1, 20}}) {
    TensorType type = typeOf(dtype, {count});
    std::vector<double> expected =
        evalOp(OpKind::Arange, {}, type, attrs({{"start", start}, {"step", step}}));
    Buffer<T> y(static_cast<size_t>(count));
    tc::arange(reinterpret_cast<T *>(y.data()), count, start, step);
    // Streamed first: clang < 16 cannot capture structured bindings in INFO.
    std::ostringstream context;
    context << dtypeName(dtype) << " arange " << start << " " << step << " " << count;
    INFO(context.str());
    std::vector<double> actual;
    for (auto element : y)
      actual.push_back(tc::cast<double>(static_cast<T>(element)));
    checkValues(actual, expected, 0.0);
  }
}

} // namespace

TEST_CASE("kernels: fill and arange convert like the interpreter") {
  checkFillAndArange<float>();
  checkFillAndArange<double>();
  checkFillAndArange<tc::half>();
  checkFillAndArange<tc::bfloat16>();
  checkFillAndArange<int64_t>();
  checkFillAndArange<int32_t>();
  checkFillAndArange<int8_t>();
  checkFillAndArange<uint8_t>();
  checkFillAndArange<bool>();
}

namespace {

template <typename T, typename I> void checkGathers() {
  DType dtype = dtypeOf<T>();
  DType indexType = dtypeOf<I>();
  HostTensor weight = randomTensor(dtype, {7, 5}, 40, -5, 5);
  std::vector<T> w = typedOf<T>(weight);
  for (const std::vector<int64_t> &shape :
       std::vector<std::vector<int64_t>>{{2, 3}, {4}, {0}, {1, 1}}) {
    HostTensor indices = makeTensor(indexType, shape, randomValues(numelOf(shape), 41, 0, 7));
    std::vector<double> expected = interpretOp(OpKind::Embedding, {weight, indices});
    std::vector<I> index = typedOf<I>(indices);
    std::vector<T> y(static_cast<size_t>(numelOf(shape) * 5));
    CHECK(tc::embedding(w.data(), 7, 5, index.data(), static_cast<int64_t>(index.size()),
                        y.data()));
    checkValues(doublesOf(y), expected, 0.0);
  }
  // Out of range, negative included: PyTorch raises, the interpreter errors, the kernel
  // reports false and writes nothing.
  for (double bad : {7.0, -1.0, -7.0, 100.0}) {
    HostTensor indices = makeTensor(indexType, {3}, {0, bad, 2});
    CHECK(contains(opError(OpKind::Embedding, {weight, indices}, typeOf(dtype, {3, 5})),
                   "out of range"));
    std::vector<I> index = typedOf<I>(indices);
    std::vector<T> y(15, tc::cast<T>(-42.0));
    CHECK_FALSE(tc::embedding(w.data(), 7, 5, index.data(), 3, y.data()));
    for (const T &value : y)
      CHECK(tc::cast<double>(value) == -42.0);
  }

  HostTensor input = randomTensor(dtype, {3, 4, 5}, 42, -5, 5);
  std::vector<T> x = typedOf<T>(input);
  for (int64_t dim : {0, 1, 2, -1}) {
    int64_t d = dim < 0 ? dim + 3 : dim;
    int64_t extent = input.shape[static_cast<size_t>(d)];
    auto last = static_cast<double>(extent - 1);
    for (const std::vector<double> &positions :
         std::vector<std::vector<double>>{{0}, {2, 0, 2, 1}, {}, {last}}) {
      HostTensor index =
          makeTensor(indexType, {static_cast<int64_t>(positions.size())}, positions);
      std::vector<double> expected =
          interpretOp(OpKind::IndexSelect, {input, index}, attrs({{"dim", dim}}));
      int64_t outer = 1;
      int64_t inner = 1;
      for (int64_t k = 0; k < 3; ++k) {
        if (k < d)
          outer *= input.shape[static_cast<size_t>(k)];
        if (k > d)
          inner *= input.shape[static_cast<size_t>(k)];
      }
      std::vector<I> typedIndex = typedOf<I>(index);
      std::vector<T> y(expected.size());
      INFO("index_select dim " << dim << " of " << positions.size());
      CHECK(tc::index_select(x.data(), outer, extent, inner, typedIndex.data(),
                             static_cast<int64_t>(typedIndex.size()), y.data()));
      checkValues(doublesOf(y), expected, 0.0);
    }
    for (double bad : {static_cast<double>(extent), -1.0}) {
      HostTensor index = makeTensor(indexType, {2}, {0, bad});
      std::vector<int64_t> shape = input.shape;
      shape[static_cast<size_t>(d)] = 2;
      CHECK(contains(opError(OpKind::IndexSelect, {input, index}, typeOf(dtype, shape),
                             attrs({{"dim", dim}})),
                     "out of range"));
      std::vector<I> typedIndex = typedOf<I>(index);
      std::vector<T> y(static_cast<size_t>(numelOf(shape)), tc::cast<T>(-42.0));
      CHECK_FALSE(tc::index_select(x.data(), 1, extent, 1, typedIndex.data(), 2, y.data()));
      for (const T &value : y)
        CHECK(tc::cast<double>(value) == -42.0);
    }
  }
}

template <typename T, typename I> void checkGatherAlong() {
  DType dtype = dtypeOf<T>();
  DType indexType = dtypeOf<I>();
  HostTensor input = randomTensor(dtype, {3, 4, 5}, 43, -5, 5);
  std::vector<T> x = typedOf<T>(input);
  for (int64_t dim : {0, 1, 2, -1}) {
    int64_t d = dim < 0 ? dim + 3 : dim;
    int64_t extent = input.shape[static_cast<size_t>(d)];
    struct {
      int64_t outer = 1, inner = 1;
    } split;
    for (int64_t k = 0; k < 3; ++k) {
      if (k < d)
        split.outer *= input.shape[static_cast<size_t>(k)];
      if (k > d)
        split.inner *= input.shape[static_cast<size_t>(k)];
    }
    for (int64_t count : {int64_t{1}, int64_t{6}, int64_t{0}}) {
      std::vector<int64_t> shape = input.shape;
      shape[static_cast<size_t>(d)] = count;
      std::vector<double> positions = randomValues(numelOf(shape), 44, 0, extent);
      for (double &position : positions)
        position = std::floor(position);
      HostTensor index = makeTensor(indexType, shape, positions);
      std::vector<double> expected =
          interpretOp(OpKind::Gather, {input, index}, attrs({{"dim", dim}}));
      std::vector<I> typedIndex = typedOf<I>(index);
      std::vector<T> y(expected.size());
      INFO("gather dim " << dim << " count " << count);
      CHECK(tc::gather(x.data(), split.outer, extent, split.inner, typedIndex.data(), count,
                       y.data()));
      checkValues(doublesOf(y), expected, 0.0);
    }
    for (double bad : {static_cast<double>(extent), -1.0}) {
      std::vector<int64_t> shape = input.shape;
      shape[static_cast<size_t>(d)] = 1;
      std::vector<double> positions(static_cast<size_t>(numelOf(shape)), 0.0);
      positions[5] = bad;
      HostTensor index = makeTensor(indexType, shape, positions);
      CHECK(contains(opError(OpKind::Gather, {input, index}, typeOf(dtype, shape),
                             attrs({{"dim", dim}})),
                     "out of range"));
      std::vector<I> typedIndex = typedOf<I>(index);
      std::vector<T> y(positions.size(), tc::cast<T>(-42.0));
      int64_t position = -1;
      CHECK_FALSE(tc::gather(x.data(), split.outer, extent, split.inner, typedIndex.data(), 1,
                             y.data(), &position));
      CHECK(position == 5);
      for (const T &value : y)
        CHECK(tc::cast<double>(value) == -42.0);
    }
  }
}

} // namespace

TEST_CASE("kernels: gather along a dim matches the interpreter and rejects bad indices") {
  checkGatherAlong<float, int64_t>();
  checkGatherAlong<tc::bfloat16, int64_t>();
  checkGatherAlong<int64_t, int32_t>();
  checkGatherAlong<double, int32_t>();
}

TEST_CASE("kernels: embedding and index_select gather like the interpreter and reject bad "
          "indices") {
  checkGathers<float, int64_t>();
  checkGathers<tc::half, int64_t>();
  checkGathers<double, int32_t>();
  checkGathers<int64_t, int64_t>();
}
