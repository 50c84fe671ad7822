// Tests of tcg, the CUDA kernel library (backend_cuda/kernels/tc_cuda_lib.h), on the CPU
// emulation of CUDA: data movement, gathers and reductions against the CPU library functions
// of the same names (tc_kernels.h) on pseudo-random inputs with odd sizes, permuted, sliced and
// broadcast views, both reduction layouts, NaN and tie rules, every fast path and the error
// and limit results, and the cumsum scan. The NN ops, GEMM, convolution and attention are in
// lib_nn_test.cpp.
#include <cmath>
#include <cstdint>
#include <vector>

#include "lib_test_util.h"

namespace {

using namespace lib_test;

// ---- data movement ----

template <typename T>
void checkStridedCopy(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset,
                      int64_t inputSize) {
  Context context;
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  const Array<T> input = randomArray<T>(inputSize, -50, 50, 7);
  Array<T> want = randomArray<T>(count, 0, 1, 9); // sentinels where nothing is written
  Buffer<T> x(input), y(want);
  tc::strided_copy(input.data(), offset, strides.data(), static_cast<int>(shape.size()),
                   shape.data(), want.data());
  REQUIRE_OK(tcg::strided_copy(context.ex, x.data(), offset, strides.data(),
                               static_cast<int>(shape.size()), shape.data(), y.data()));
  expectEqual(y.read(), want);
}

TEST_CASE("tcg::strided_copy: permutes, broadcasts, slices, scalars and empty views") {
  checkStridedCopy<float>({9, 5, 7}, {1, 63, 9}, 0, 315);      // permute(2, 0, 1)
  checkStridedCopy<int8_t>({9, 5, 7}, {1, 63, 9}, 0, 315);     // the same, one-byte elements
  checkStridedCopy<tc::half>({7, 5, 9}, {9, 63, 1}, 0, 315);   // inner dim kept: rows
  checkStridedCopy<float>({4, 33, 8}, {0, 8, 1}, 0, 264);      // broadcast, 16-byte vectors
  checkStridedCopy<double>({3, 1, 2, 5}, {0, 0, 5, 1}, 4, 14); // broadcast + size-1 dim
  checkStridedCopy<int64_t>({4, 8}, {24, 1}, 15, 120);         // slice with step, offset
  checkStridedCopy<bool>({2, 12}, {12, 1}, 24, 60);            // contiguous window: memcpy
  checkStridedCopy<tc::bfloat16>({3, 1000}, {1, 3}, 0, 3000);  // transpose of [1000, 3]
  checkStridedCopy<uint8_t>({257}, {2}, 1, 515);               // one strided dim
  checkStridedCopy<int32_t>({}, {}, 5, 9);                     // rank 0: one element
  checkStridedCopy<int16_t>({3, 0, 4}, {4, 4, 1}, 0, 12);      // empty: writes nothing
  checkStridedCopy<float>({1, 1, 1}, {0, 0, 0}, 2, 3);         // all size-1 dims
}

TEST_CASE("tcg::strided_copy refuses more than 8 unmergeable dims") {
  Context context;
  std::vector<int64_t> shape(9, 2), strides(9);
  for (int d = 0; d < 9; ++d)
    strides[static_cast<size_t>(d)] = int64_t(1) << d; // a full transpose: nothing merges
  Buffer<float> x(512), y(512);
  const tcg::result outcome =
      tcg::strided_copy(context.ex, x.data(), 0, strides.data(), 9, shape.data(), y.data());
  CHECK_FALSE(outcome.ok());
  CHECK(outcome.code == tcg::kUnsupported);
}

template <typename T> void checkConcatStores() {
  Context context;
  // cat([a [5, 7], b [5, 13]], dim 1) into [5, 20], then a transposed store of c [4, 5].
  const Array<T> a = randomArray<T>(35, -9, 9, 1), b = randomArray<T>(65, -9, 9, 2);
  const Array<T> c = randomArray<T>(20, -9, 9, 3);
  Array<T> want = randomArray<T>(120, -9, 9, 4);
  Buffer<T> da(a), db(b), dc(c), out(want);
  const int64_t aShape[] = {5, 7}, bShape[] = {5, 13}, rowStrides[] = {20, 1};
  const int64_t cShape[] = {4, 5}, cStrides[] = {1, 4};
  tc::strided_store(a.data(), 2, aShape, want.data(), 0, rowStrides);
  tc::strided_store(b.data(), 2, bShape, want.data(), 7, rowStrides);
  tc::strided_store(c.data(), 2, cShape, want.data(), 100, cStrides);
  REQUIRE_OK(tcg::strided_store(context.ex, da.data(), 2, aShape, out.data(), 0, rowStrides));
  REQUIRE_OK(tcg::strided_store(context.ex, db.data(), 2, bShape, out.data(), 7, rowStrides));
  REQUIRE_OK(tcg::strided_store(context.ex, dc.data(), 2, cShape, out.data(), 100, cStrides));
  expectEqual(out.read(), want);
}

TEST_CASE("tcg::strided_store: concat windows and transposed stores") {
  checkConcatStores<float>();
  checkConcatStores<tc::half>();
  checkConcatStores<bool>();
  checkConcatStores<int64_t>();
  // Rows of whole 16-byte vectors at a 16-byte offset take the vectorized path.
  Context context;
  const Array<float> in = randomArray<float>(32, -1, 1, 5);
  Array<float> want = randomArray<float>(64, -1, 1, 6);
  Buffer<float> x(in), y(want);
  const int64_t shape[] = {4, 8}, strides[] = {16, 1};
  tc::strided_store(in.data(), 2, shape, want.data(), 8, strides);
  REQUIRE_OK(tcg::strided_store(context.ex, x.data(), 2, shape, y.data(), 8, strides));
  expectEqual(y.read(), want);
}

TEST_CASE("tcg::copy") {
  Context context;
  for (int64_t count : {1, 7, 1001}) {
    const Array<tc::half> input = randomArray<tc::half>(count, -3, 3, 11);
    Buffer<tc::half> x(input), y(count);
    REQUIRE_OK(tcg::copy(context.ex, x.data(), count, y.data()));
    expectEqual(y.read(), input);
  }
  REQUIRE_OK(tcg::copy<float>(context.ex, nullptr, 0, nullptr)); // zero-size: nothing
}

template <typename T> void checkTriangle(bool inPlace) {
  Context context;
  const int64_t batch = 3, rows = 7, cols = 33;
  for (int64_t diagonal : {-2, 0, 3}) {
    for (bool upper : {false, true}) {
      const Array<T> input = randomArray<T>(batch * rows * cols, -5, 5, 13);
      Array<T> want(input.size());
      tc::triangle(input.data(), batch, rows, cols, diagonal, upper, want.data());
      Buffer<T> x(input), y(input.size());
      T *target = inPlace ? x.data() : y.data();
      REQUIRE_OK(tcg::triangle(context.ex, x.data(), batch, rows, cols, diagonal, upper, target));
      expectEqual(inPlace ? x.read() : y.read(), want);
    }
  }
}

TEST_CASE("tcg::triangle: tril/triu, diagonals, in place") {
  checkTriangle<float>(false);
  checkTriangle<int64_t>(true);
  checkTriangle<tc::bfloat16>(true);
  checkTriangle<bool>(false);
}

template <typename T> void checkFill(double value) {
  Context context;
  for (int64_t count : {1, 7, 33, 1000}) {
    // Start one element into the allocation: a misaligned head, vectors, then a tail; the
    // elements around the range must keep their sentinels.
    Array<T> want = randomArray<T>(count + 2, 0, 9, 17);
    Buffer<T> y(want);
    tc::fill(want.data() + 1, count, value);
    REQUIRE_OK(tcg::fill(context.ex, y.data() + 1, count, value));
    expectEqual(y.read(), want);
  }
}

TEST_CASE("tcg::fill: misaligned heads, vector bodies, tails") {
  checkFill<float>(2.5);
  checkFill<double>(-1e300);
  checkFill<tc::half>(65519.0); // rounds to the largest half, like cast<half>
  checkFill<int8_t>(-7.9);      // truncates toward zero
  checkFill<bool>(0.5);
  checkFill<int64_t>(3e12);
}

template <typename T> void checkArange(int64_t count, double start, double step) {
  Context context;
  Array<T> want(count);
  tc::arange(want.data(), count, start, step);
  Buffer<T> y(count);
  REQUIRE_OK(tcg::arange(context.ex, y.data(), count, start, step));
  expectEqual(y.read(), want);
}

TEST_CASE("tcg::arange") {
  checkArange<float>(1000, -3.5, 0.25);
  checkArange<int64_t>(7, 2, 3);
  checkArange<tc::half>(33, 0.1, 0.3);
  checkArange<double>(1, 5, 1);
}

// Every distribution, the same bits as the CPU library (tc_random.h).
template <typename T>
void checkRandom(tc::random_distribution distribution, int64_t low, int64_t high) {
  Context context;
  const int64_t count = 1031;
  const tc::random_key key{0x1234567890abcdefull, 3u, 7u};
  Array<T> want(count);
  tc::random_fill(want.data(), count, distribution, key, low, high);
  Buffer<T> y(count);
  REQUIRE_OK(tcg::random_fill(context.ex, y.data(), count, distribution, key, low, high));
  expectEqual(y.read(), want);
}

TEST_CASE("tcg::random_fill") {
  checkRandom<float>(tc::random_distribution::uniform, 0, 0);
  checkRandom<float>(tc::random_distribution::normal, 0, 0);
  checkRandom<double>(tc::random_distribution::normal, 0, 0);
  checkRandom<tc::half>(tc::random_distribution::uniform, 0, 0);
  checkRandom<tc::bfloat16>(tc::random_distribution::normal, 0, 0);
  checkRandom<int64_t>(tc::random_distribution::integer, -5, 1000);
  checkRandom<int32_t>(tc::random_distribution::integer, 0, 3);
}

// ---- gathers ----

template <typename T, typename I> void checkIndexSelect(int64_t outer, int64_t inner) {
  Context context;
  const int64_t extent = 11, count = 33;
  const Array<T> table = randomArray<T>(outer * extent * inner, -4, 4, 19);
  const Array<I> index = randomArray<I>(count, 0, extent, 23);
  Array<T> want(outer * count * inner);
  REQUIRE(tc::index_select(table.data(), outer, extent, inner, index.data(), count, want.data()));
  Buffer<T> x(table), y(want.size());
  Buffer<I> indices(index);
  REQUIRE_OK(tcg::index_select(context.ex, x.data(), outer, extent, inner, indices.data(), count,
                               y.data()));
  expectEqual(y.read(), want);
  CHECK(context.errorFlag() == 0);
}

TEST_CASE("tcg::index_select and tcg::embedding") {
  checkIndexSelect<float, int64_t>(3, 8);    // rows of 16-byte vectors
  checkIndexSelect<tc::half, int32_t>(3, 5); // odd rows, element by element
  checkIndexSelect<int64_t, int32_t>(1, 1);  // one element per row
  checkIndexSelect<bool, int64_t>(2, 300);   // rows longer than a block
  Context context;
  const Array<double> weight = randomArray<double>(11 * 6, -1, 1, 29);
  const Array<int64_t> index = randomArray<int64_t>(257, 0, 11, 31);
  Array<double> want(257 * 6);
  REQUIRE(tc::embedding(weight.data(), 11, 6, index.data(), 257, want.data()));
  Buffer<double> w(weight), y(want.size());
  Buffer<int64_t> indices(index);
  REQUIRE_OK(tcg::embedding(context.ex, w.data(), 11, 6, indices.data(), 257, y.data()));
  expectEqual(y.read(), want);
  CHECK(context.errorFlag() == 0);
}

template <typename T, typename I> void checkGather(int64_t outer, int64_t inner) {
  Context context;
  const int64_t extent = 11, count = 7;
  const Array<T> table = randomArray<T>(outer * extent * inner, -4, 4, 19);
  const Array<I> index = randomArray<I>(outer * count * inner, 0, extent, 23);
  Array<T> want(outer * count * inner);
  REQUIRE(tc::gather(table.data(), outer, extent, inner, index.data(), count, want.data()));
  Buffer<T> x(table), y(want.size());
  Buffer<I> indices(index);
  REQUIRE_OK(
      tcg::gather(context.ex, x.data(), outer, extent, inner, indices.data(), count, y.data()));
  expectEqual(y.read(), want);
  CHECK(context.errorFlag() == 0);
}

TEST_CASE("tcg::gather: along a dim; an out-of-range index sets the error flag") {
  checkGather<float, int64_t>(3, 8);
  checkGather<tc::half, int32_t>(1, 5);
  checkGather<int64_t, int64_t>(4, 1);
  checkGather<bool, int64_t>(2, 300);
  Context context;
  const Array<float> table = randomArray<float>(2 * 3, -1, 1, 29);
  Array<int64_t> index(2 * 2);
  index[0] = 0;
  index[1] = 2;
  index[2] = 1;
  index[3] = 3; // out of [0, 3)
  Buffer<float> x(table), y(4);
  Buffer<int64_t> indices(index);
  context.ex.error_site = 4;
  REQUIRE_OK(tcg::gather(context.ex, x.data(), 1, 3, 2, indices.data(), 2, y.data()));
  const tcg::gather_error record = context.gatherError();
  CHECK(record.flag == 1);
  CHECK(record.site == 4);
  CHECK(record.position == 3);
  CHECK(record.value == 3);
  CHECK(record.extent == 3);
  CHECK(y.read()[3] == 0.0f);
}

template <typename T, typename I> void checkScatter(int64_t outer, int64_t inner) {
  const int64_t extent = 5, count = 9; // count > extent: duplicate targets
  const Array<T> input = randomArray<T>(outer * extent * inner, -4, 4, 31);
  const Array<T> source = randomArray<T>(outer * count * inner, -2, 2, 37);
  const Array<I> index = randomArray<I>(outer * count * inner, 0, extent, 41);
  for (tc::scatter_reduce reduce :
       {tc::scatter_reduce::sum, tc::scatter_reduce::prod, tc::scatter_reduce::amax,
        tc::scatter_reduce::amin}) {
    for (bool includeSelf : {true, false}) {
      Context context;
      Array<T> want = randomArray<T>(outer * extent * inner, -4, 4, 31); // the input
      REQUIRE(tc::scatter(want.data(), outer, extent, inner, index.data(), count, source.data(),
                          reduce, includeSelf));
      Buffer<T> y(input), src(source);
      Buffer<I> indices(index);
      REQUIRE_OK(tcg::scatter(context.ex, y.data(), outer, extent, inner, indices.data(), count,
                              src.data(), reduce, includeSelf));
      expectEqual(y.read(), want); // one thread per line, in order: bit for bit
      CHECK(context.errorFlag() == 0);
    }
  }
}

TEST_CASE("tcg::scatter: reductions match tc::scatter exactly; a bad index sets the error flag") {
  checkScatter<float, int64_t>(3, 4);
  checkScatter<tc::half, int32_t>(1, 7);
  checkScatter<int64_t, int64_t>(2, 1);
  // without a reduction, unique targets: a permutation along the dim
  Context context;
  Array<float> input(2 * 3), source(2 * 3); // input: zeros
  Array<int64_t> index(2 * 3);
  const int64_t permutation[] = {2, 0, 1, 1, 2, 0};
  for (int k = 0; k < 6; ++k) {
    index[k] = permutation[k];
    source[k] = static_cast<float>(k + 1);
  }
  Array<float> want(2 * 3);
  REQUIRE(tc::scatter(want.data(), 2, 3, 1, index.data(), 3, source.data(),
                      tc::scatter_reduce::none, true));
  Buffer<float> y(input), src(source);
  Buffer<int64_t> indices(index);
  REQUIRE_OK(tcg::scatter(context.ex, y.data(), 2, 3, 1, indices.data(), 3, src.data(),
                          tc::scatter_reduce::none, true));
  expectEqual(y.read(), want);
  // an index past the dim is recorded with its site, position, value and extent
  index[4] = 3;
  Buffer<int64_t> bad(index);
  context.ex.error_site = 2;
  REQUIRE_OK(tcg::scatter(context.ex, y.data(), 2, 3, 1, bad.data(), 3, src.data(),
                          tc::scatter_reduce::sum, true));
  const tcg::gather_error record = context.gatherError();
  CHECK(record.flag == 1);
  CHECK(record.site == 2);
  CHECK(record.position == 4);
  CHECK(record.value == 3);
  CHECK(record.extent == 3);
  int64_t position = -1;
  CHECK_FALSE(tc::scatter(want.data(), 2, 3, 1, index.data(), 3, source.data(),
                          tc::scatter_reduce::sum, true, &position));
  CHECK(position == 4);
}

TEST_CASE("tcg::embedding: an out-of-range index zeroes its row and sets the error flag") {
  for (int32_t bad : {11, -1}) {
    Context context;
    const int64_t V = 11, D = 8;
    const Array<float> weight = randomArray<float>(V * D, 1, 2, 37); // no zeros
    Array<int32_t> index = randomArray<int32_t>(5, 0, V, 41);
    index[2] = bad;
    Buffer<float> w(weight), y(5 * D);
    Buffer<int32_t> indices(index);
    context.ex.error_site = 7;
    REQUIRE_OK(tcg::embedding(context.ex, w.data(), V, D, indices.data(), 5, y.data()));
    const tcg::gather_error record = context.gatherError();
    CHECK(record.flag == 1);
    CHECK(record.site == 7);
    CHECK(record.position == 2);
    CHECK(record.value == bad);
    CHECK(record.extent == V);
    const Array<float> got = y.read();
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t d = 0; d < D; ++d)
        CHECK(got[i * D + d] == (i == 2 ? 0.0f : weight[index[i] * D + d]));
  }
}

// ---- reductions ----

static_assert(int(tcg::reduce_kind::sum) == int(tc::reduce_kind::sum) &&
                  int(tcg::reduce_kind::mean) == int(tc::reduce_kind::mean) &&
                  int(tcg::reduce_kind::amax) == int(tc::reduce_kind::amax) &&
                  int(tcg::reduce_kind::amin) == int(tc::reduce_kind::amin) &&
                  int(tcg::reduce_kind::prod) == int(tc::reduce_kind::prod),
              "the kinds correspond one to one");

/// The shapes every reduction runs on: warp rows (short), block rows (few, or extent > 1024),
/// columns (inner > 1, odd), single elements and empty extents. (Many medium rows, which
/// also take a warp each, run in lib_nn_test.cpp's softmax: the same kernel and group code.)
struct ReduceShape {
  int64_t outer, extent, inner;
};
const ReduceShape kReduceShapes[] = {{5, 33, 1}, {3, 1500, 1}, {9, 200, 1},
                                     {1, 1, 1},  {2, 7, 33},   {3, 257, 7},
                                     {4, 0, 1},  {2, 0, 3},    {1000, 2, 1}};

/// Marks NaNs into a few rows (floating T) so that the NaN rules are exercised.
template <typename T> void sprinkleNaN(Array<T> &values) {
  if constexpr (tc::is_floating<T>::value)
    for (int64_t i = 3; i < values.size(); i += 97)
      values[i] = tc::cast<T>(std::nan(""));
}

template <typename T, typename Out> void checkReduce(bool withNaN) {
  for (const ReduceShape &shape : kReduceShapes) {
    for (auto kind : {tcg::reduce_kind::sum, tcg::reduce_kind::mean, tcg::reduce_kind::amax,
                      tcg::reduce_kind::amin, tcg::reduce_kind::prod}) {
      CAPTURE(shape.outer);
      CAPTURE(shape.extent);
      CAPTURE(shape.inner);
      CAPTURE(static_cast<int>(kind));
      Context context;
      const int64_t outputs = shape.outer * shape.inner;
      // Floating products of many factors in [0.5, 1.5] stay finite; everything else sees
      // both signs, and integer sums and products of |x| < 20 wrap.
      const bool finiteProduct = kind == tcg::reduce_kind::prod && tc::is_floating<T>::value;
      Array<T> input = randomArray<T>(outputs * shape.extent, finiteProduct ? 0.5 : -20,
                                      finiteProduct ? 1.5 : 20, 43);
      if (withNaN)
        sprinkleNaN(input);
      Array<Out> want(outputs);
      tc::reduce(static_cast<tc::reduce_kind>(kind), input.data(), shape.outer, shape.extent,
                 shape.inner, want.data());
      Buffer<T> x(input);
      Buffer<Out> y(outputs);
      REQUIRE_OK(tcg::reduce(context.ex, kind, x.data(), shape.outer, shape.extent, shape.inner,
                             y.data()));
      // Both sides accumulate in double (integers exactly, wrapping alike); only the order
      // differs, so floating results agree to one rounding of Out, plus reordering noise on
      // sums near 0 (|x| < 20, extent < 2^11: below 2^-53 * 20 * 2^11 * 2^11 ~ 1e-8).
      const bool floating = tc::is_floating<Out>::value;
      const double rtol = floating ? reorderedSumTolerance<Out>() : 0.0;
      const double atol = floating ? 1e-8 : 0.0;
      expectNear(y.read(), want, rtol, atol);
    }
  }
}

TEST_CASE("tcg::reduce: every kind, both layouts, NaN, empty extents") {
  checkReduce<float, float>(true);
  checkReduce<double, double>(true);
  checkReduce<tc::half, tc::half>(true);
  checkReduce<tc::bfloat16, float>(false);
  checkReduce<int32_t, int64_t>(false); // wrapping int64 sums and products
  checkReduce<int8_t, int8_t>(false);
  checkReduce<bool, int64_t>(false);
}

template <typename T, typename Out> void checkCumsum() {
  for (const ReduceShape &shape : kReduceShapes) {
    CAPTURE(shape.extent);
    CAPTURE(shape.inner);
    Context context;
    const int64_t count = shape.outer * shape.extent * shape.inner;
    const Array<T> input = randomArray<T>(count, -3, 3, 53);
    Array<Out> want(count);
    tc::cumsum(input.data(), shape.outer, shape.extent, shape.inner, want.data());
    Buffer<T> x(input);
    Buffer<Out> y(count);
    REQUIRE_OK(
        tcg::cumsum(context.ex, x.data(), shape.outer, shape.extent, shape.inner, y.data()));
    expectEqual(y.read(), want); // the same sequential order: bit-identical
  }
}

TEST_CASE("tcg::cumsum: both layouts, integers into int64, empty extents") {
  checkCumsum<float, float>();
  checkCumsum<tc::half, tc::half>();
  checkCumsum<double, double>();
  checkCumsum<int32_t, int64_t>();
  checkCumsum<bool, int64_t>();
}

template <typename T, typename O> void checkGroupedGemm() {
  const int64_t rows = 13, k = 10, n = 7, groups = 4;
  for (const std::vector<O> &offsets : std::vector<std::vector<O>>{
           {3, 3, 8, 13}, {0, 2, 5, 9}, {4, 9, 14, 20}, {7, 2, 10, 13}}) {
    Context context;
    const Array<T> a = randomArray<T>(rows * k, -2, 2, 71);
    const Array<T> b = randomArray<T>(groups * k * n, -2, 2, 72);
    Array<T> want(rows * n);
    tc::grouped_gemm<T, O>(rows, k, n, groups, a.data(), b.data(), offsets.data(), want.data());
    Buffer<T> x(a);
    Buffer<T> w(b);
    Array<O> offsetArray(groups);
    for (int64_t g = 0; g < groups; ++g)
      offsetArray[g] = offsets[static_cast<size_t>(g)];
    Buffer<O> o(offsetArray);
    Buffer<T> y(rows * n);
    REQUIRE_OK(tcg::grouped_gemm<T, O>(context.ex, rows, k, n, groups, x.data(), w.data(),
                                       o.data(), y.data()));
    expectNear(y.read(), want, reorderedSumTolerance<T>(), 1e-5);
  }
}

TEST_CASE("tcg::grouped_gemm: offsets stay on the device; empty, missing and late groups") {
  checkGroupedGemm<float, int32_t>();
  checkGroupedGemm<float, int64_t>();
  checkGroupedGemm<double, int64_t>();
}

template <typename T> void checkArgmaxAndAny(double low, double high) {
  for (const ReduceShape &shape : kReduceShapes) {
    CAPTURE(shape.extent);
    CAPTURE(shape.inner);
    Context context;
    const int64_t outputs = shape.outer * shape.inner;
    // Whole numbers in [low, high): few distinct values, so every row has ties.
    const Array<int32_t> whole = randomArray<int32_t>(outputs * shape.extent, low, high, 47);
    Array<T> input(whole.size());
    for (int64_t i = 0; i < whole.size(); ++i)
      input[i] = tc::cast<T>(whole[i]);
    if (shape.extent > 2 && tc::is_floating<T>::value) {
      input[shape.inner] = tc::cast<T>(std::nan(""));     // row 0: NaN at j = 1 wins...
      input[2 * shape.inner] = tc::cast<T>(std::nan("")); // ...over a later NaN
    }
    Array<int64_t> wantIndex(outputs);
    Array<bool> wantAny(outputs);
    tc::argmax(input.data(), shape.outer, shape.extent, shape.inner, wantIndex.data());
    tc::reduce_any(input.data(), shape.outer, shape.extent, shape.inner, wantAny.data());
    Buffer<T> x(input);
    Buffer<int64_t> index(outputs);
    Buffer<bool> any(outputs);
    REQUIRE_OK(
        tcg::argmax(context.ex, x.data(), shape.outer, shape.extent, shape.inner, index.data()));
    REQUIRE_OK(
        tcg::reduce_any(context.ex, x.data(), shape.outer, shape.extent, shape.inner, any.data()));
    expectEqual(index.read(), wantIndex);
    expectEqual(any.read(), wantAny);
  }
}

TEST_CASE("tcg::argmax and tcg::reduce_any: first maximum on ties, first NaN wins") {
  checkArgmaxAndAny<float>(-3, 3);
  checkArgmaxAndAny<int32_t>(-3, 3);
  checkArgmaxAndAny<tc::half>(-2, 2);
  checkArgmaxAndAny<bool>(0, 1.2); // mostly false: rows of all false too
  checkArgmaxAndAny<uint8_t>(0, 2);
  Context context; // a row of -inf: index 0
  Array<float> input(5);
  for (int64_t i = 0; i < 5; ++i)
    input[i] = -tc::infinity<float>();
  Buffer<float> x(input);
  Buffer<int64_t> index(1);
  REQUIRE_OK(tcg::argmax(context.ex, x.data(), 1, 5, 1, index.data()));
  CHECK(index.read()[0] == 0);
}

template <typename T> void checkVariance() {
  for (const ReduceShape &shape : kReduceShapes) {
    for (double correction : {0.0, 1.0}) {
      CAPTURE(shape.extent);
      CAPTURE(shape.inner);
      Context context;
      const int64_t outputs = shape.outer * shape.inner;
      // An offset of 1000 would cancel catastrophically in a one-pass formula.
      const Array<T> input = randomArray<T>(outputs * shape.extent, 999, 1001, 53);
      Array<T> want(outputs);
      tc::variance(input.data(), shape.outer, shape.extent, shape.inner, correction, want.data());
      Buffer<T> x(input), y(outputs);
      REQUIRE_OK(tcg::variance(context.ex, x.data(), shape.outer, shape.extent, shape.inner,
                               correction, y.data()));
      // Two passes in double on both sides, in different orders: one rounding of T apart.
      // Extent 1 with correction 1 gives NaN (0/0) on both, empty extents NaN.
      expectNear(y.read(), want, reorderedSumTolerance<T>(), 1e-12);
    }
  }
}

TEST_CASE("tcg::variance: two passes, corrections, degenerate extents") {
  checkVariance<float>();
  checkVariance<double>();
  checkVariance<tc::bfloat16>();
}


// ---- pad and upsample ----

template <typename T> void checkPad(tc::pad_mode mode) {
  struct Case {
    std::vector<int64_t> in, before, after;
  };
  const std::vector<Case> cases = {
      {{2, 3, 5, 6}, {0, 0, 2, 3}, {0, 0, 4, 1}},   // the last two dims
      {{7}, {-2}, {4}},                            // crop in front, pad behind
      {{3, 1, 4}, {1, 0, 2}, {2, 0, -1}},          // a size-1 dim, a cropped end
      {{2, 3, 4, 5}, {0, 1, 0, 3}, {0, 0, 0, 3}},  // unpadded dims between padded ones
  };
  for (const Case &c : cases) {
    CAPTURE(c.in.size());
    Context context;
    std::vector<int64_t> out(c.in.size());
    int64_t inCount = 1, outCount = 1;
    for (size_t k = 0; k < c.in.size(); ++k) {
      out[k] = c.in[k] + c.before[k] + c.after[k];
      inCount *= c.in[k];
      outCount *= out[k];
    }
    const Array<T> input = randomArray<T>(inCount, -9, 9, 61);
    Array<T> want(outCount);
    const int rank = static_cast<int>(c.in.size());
    tc::pad(input.data(), rank, c.in.data(), c.before.data(), out.data(), mode, 2.0, want.data());
    Buffer<T> x(input), y(outCount);
    REQUIRE_OK(tcg::pad(context.ex, x.data(), rank, c.in.data(), c.before.data(), out.data(),
                        mode, 2.0, y.data()));
    expectEqual(y.read(), want);
  }
}

TEST_CASE("tcg::pad: every mode, crops and unpadded dims, like tc::pad") {
  for (tc::pad_mode mode : {tc::pad_mode::constant, tc::pad_mode::reflect,
                            tc::pad_mode::replicate, tc::pad_mode::circular}) {
    CAPTURE(static_cast<int>(mode));
    checkPad<float>(mode);
    checkPad<tc::half>(mode);
    checkPad<int64_t>(mode);
  }
  Context context; // more dims than tcg takes by value: refused, not run
  std::vector<int64_t> shape(9, 1);
  Buffer<float> x(1), y(1);
  CHECK_FALSE(tcg::pad(context.ex, x.data(), 9, shape.data(), shape.data(), shape.data(),
                       tc::pad_mode::constant, 0.0, y.data())
                  .ok());
}

template <typename T> void checkUpsample(tc::upsample_mode mode, bool align_corners) {
  struct Case {
    std::vector<int64_t> in, out;
    std::vector<double> scales;
  };
  const std::vector<Case> cases = {
      {{5, 6}, {10, 12}, {2.0, 2.0}},
      {{5, 6}, {7, 9}, {0.0, 0.0}},
      {{4, 5}, {6, 11}, {1.5, 2.3}},
      {{1, 4}, {3, 2}, {0.0, 0.0}},
      {{7}, {17}, {2.5}},
      {{3, 4, 5}, {4, 6, 11}, {0.0, 0.0, 0.0}},
  };
  for (const Case &c : cases) {
    Context context;
    const int64_t planes = 3;
    int64_t inCount = planes, outCount = planes;
    for (size_t s = 0; s < c.in.size(); ++s) {
      inCount *= c.in[s];
      outCount *= c.out[s];
    }
    const Array<T> input = randomArray<T>(inCount, -9, 9, 67);
    Array<T> want(outCount);
    const int spatial = static_cast<int>(c.in.size());
    tc::upsample(input.data(), planes, spatial, c.in.data(), c.out.data(), c.scales.data(), mode,
                 align_corners, want.data());
    Buffer<T> x(input), y(outCount);
    REQUIRE_OK(tcg::upsample(context.ex, x.data(), planes, spatial, c.in.data(), c.out.data(),
                             c.scales.data(), mode, align_corners, y.data()));
    expectEqual(y.read(), want);
  }
}

TEST_CASE("tcg::upsample: nearest, nearest-exact and linear like tc::upsample") {
  checkUpsample<float>(tc::upsample_mode::nearest, false);
  checkUpsample<int64_t>(tc::upsample_mode::nearest, false);
  checkUpsample<tc::bfloat16>(tc::upsample_mode::nearest_exact, false);
  checkUpsample<float>(tc::upsample_mode::linear, false);
  checkUpsample<float>(tc::upsample_mode::linear, true);
  checkUpsample<double>(tc::upsample_mode::linear, true);
  checkUpsample<tc::half>(tc::upsample_mode::linear, false);
}

} // namespace
