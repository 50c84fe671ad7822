// Tests of the kernel library's GEMM, convolution and pooling kernels
// (backend_cpu/kernels/tc_kernels_linalg.h, tc_kernels_pool.h) against the reference interpreter's
// matmul/addmm/linear/conv2d/conv_transpose2d/pooling ops. gemm is checked on both of its paths:
// BLAS (when the unit tests are built with TC_USE_CBLAS, as bundles are) and gemm_loops.
#include <cmath>
#include <limits>

#include "kernels_test_util.h"

using namespace kernels_test;

namespace {

/// Stores each of `batch` [rows, cols] matrices of `matrices` transposed.
template <typename T>
std::vector<T> transposedBatch(const std::vector<T> &matrices, int64_t batch, int64_t rows,
                               int64_t cols) {
  std::vector<T> result;
  for (int64_t b = 0; b < batch; ++b) {
    auto first = matrices.begin() + b * rows * cols;
    std::vector<T> one(first, first + rows * cols);
    std::vector<T> flipped = transposed(one, rows, cols);
    result.insert(result.end(), flipped.begin(), flipped.end());
  }
  return result;
}

using GemmFunction = void (*)(int64_t, int64_t, int64_t, int64_t, const void *, int64_t, bool,
                              const void *, int64_t, bool, double, double, void *);

/// gemm or gemm_loops for T, behind one signature.
template <typename T, bool kLoops>
void callGemm(int64_t batch, int64_t m, int64_t n, int64_t k, const T *a, int64_t aStride,
              bool transA, const T *b, int64_t bStride, bool transB, double alpha, double beta,
              T *c) {
  if constexpr (kLoops)
    tc::gemm_loops(batch, m, n, k, a, aStride, transA, b, bStride, transB, alpha, beta, c);
  else
    tc::gemm(batch, m, n, k, a, aStride, transA, b, bStride, transB, alpha, beta, c);
}

/// matmul of a [aBatch..., m, k] and b [bBatch..., k, n] (one of the batches empty or equal)
/// through gemm with every combination of transposed storage.
template <typename T, bool kLoops> void checkMatmul() {
  DType dtype = dtypeOf<T>();
  struct Case {
    int64_t m, n, k, batch;
    bool batchA, batchB;
  };
  for (const Case &c : {Case{1, 1, 1, 1, false, false}, Case{7, 5, 3, 1, false, false},
                        Case{2, 3, 4, 1, false, false}, Case{65, 70, 33, 1, false, false},
                        Case{3, 130, 9, 1, false, false}, Case{0, 3, 2, 1, false, false},
                        Case{3, 0, 2, 1, false, false}, Case{3, 2, 0, 1, false, false},
                        Case{4, 6, 5, 3, true, true}, Case{4, 6, 5, 3, true, false},
                        Case{4, 6, 5, 3, false, true}, Case{1, 9, 8, 2, true, true},
                        Case{5, 1, 8, 2, true, false}, Case{2, 2, 2, 0, true, true},
                        // few rows (gemm_few_rows): whole lane blocks of k and n plus tails
                        Case{1, 200, 77, 1, false, false}, Case{3, 150, 100, 1, false, false},
                        Case{4, 67, 64, 2, true, false}, Case{2, 130, 96, 3, true, true},
                        Case{1, 64, 1, 4, false, true}}) {
    std::vector<int64_t> aShape = {c.m, c.k};
    std::vector<int64_t> bShape = {c.k, c.n};
    if (c.batchA)
      aShape.insert(aShape.begin(), c.batch);
    if (c.batchB)
      bShape.insert(bShape.begin(), c.batch);
    HostTensor a = randomTensor(dtype, aShape, 50);
    HostTensor b = randomTensor(dtype, bShape, 51);
    std::vector<double> expected = interpretOp(OpKind::Matmul, {a, b});
    int64_t batch = c.batchA || c.batchB ? c.batch : 1;
    int64_t aBatches = c.batchA ? c.batch : 1;
    int64_t bBatches = c.batchB ? c.batch : 1;
    for (bool transA : {false, true}) {
      for (bool transB : {false, true}) {
        std::vector<T> typedA = typedOf<T>(a);
        std::vector<T> typedB = typedOf<T>(b);
        if (transA)
          typedA = transposedBatch(typedA, aBatches, c.m, c.k);
        if (transB)
          typedB = transposedBatch(typedB, bBatches, c.k, c.n);
        // beta == 0: C starts as NaN and must not leak.
        std::vector<T> y(expected.size() + 1, tc::cast<T>(kNaN));
        callGemm<T, kLoops>(batch, c.m, c.n, c.k, typedA.data(), c.batchA ? c.m * c.k : 0, transA,
                            typedB.data(), c.batchB ? c.k * c.n : 0, transB, 1.0, 0.0, y.data());
        INFO(dtypeName(dtype) << (kLoops ? " loops" : " gemm") << " m " << c.m << " n " << c.n
                              << " k " << c.k << " batch " << batch << " A "
                              << (c.batchA ? "batched" : "shared") << " B "
                              << (c.batchB ? "batched" : "shared") << " transA " << transA
                              << " transB " << transB);
        CHECK(std::isnan(tc::cast<double>(y.back()))); // nothing written past C
        y.pop_back();
        checkValues(doublesOf(y), expected, toleranceFor(dtype));
      }
    }
  }
}

/// addmm(bias, a, b) = beta * bias + alpha * a @ b through gemm on C = bias.
template <typename T, bool kLoops> void checkAddmm() {
  DType dtype = dtypeOf<T>();
  for (auto [m, n, k] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{
           {3, 4, 5}, {1, 1, 1}, {9, 66, 7}, {4, 3, 0}}) {
    for (auto [alpha, beta] :
         std::vector<std::pair<double, double>>{{1.0, 1.0}, {0.5, -2.0}, {-1.5, 0.0}, {0.0, 1.0}}) {
      HostTensor bias = randomTensor(dtype, {m, n}, 52);
      HostTensor a = randomTensor(dtype, {m, k}, 53);
      HostTensor b = randomTensor(dtype, {k, n}, 54);
      std::vector<double> expected =
          interpretOp(OpKind::Addmm, {bias, a, b}, attrs({{"alpha", alpha}, {"beta", beta}}));
      std::vector<T> c = typedOf<T>(bias);
      if (beta == 0.0) // not read: NaN must not leak
        std::fill(c.begin(), c.end(), tc::cast<T>(kNaN));
      std::vector<T> typedA = typedOf<T>(a);
      std::vector<T> typedB = typedOf<T>(b);
      callGemm<T, kLoops>(1, m, n, k, typedA.data(), 0, false, typedB.data(), 0, false, alpha, beta,
                          c.data());
      // Streamed first: clang < 16 cannot capture structured bindings in INFO.
      std::ostringstream context;
      context << dtypeName(dtype) << (kLoops ? " loops" : " gemm") << " addmm " << m << "x" << n
              << "x" << k << " alpha " << alpha << " beta " << beta;
      INFO(context.str());
      checkValues(doublesOf(c), expected, toleranceFor(dtype));
    }
  }
}

/// linear(x [.., K], weight [N, K], bias [N]) as one gemm with transposed B over C = bias.
template <typename T> void checkLinear() {
  DType dtype = dtypeOf<T>();
  for (const std::vector<int64_t> &xShape :
       std::vector<std::vector<int64_t>>{{2, 3, 8}, {5, 8}, {8}, {0, 8}}) {
    HostTensor x = randomTensor(dtype, xShape, 55);
    HostTensor weight = randomTensor(dtype, {6, 8}, 56);
    HostTensor bias = randomTensor(dtype, {6}, 57);
    std::vector<double> expected = interpretOp(OpKind::Linear, {x, weight, bias});
    int64_t rows = numelOf(xShape) / 8;
    std::vector<T> typedX = typedOf<T>(x);
    std::vector<T> typedW = typedOf<T>(weight);
    std::vector<T> typedBias = typedOf<T>(bias);
    std::vector<T> y(static_cast<size_t>(rows * 6));
    for (int64_t r = 0; r < rows; ++r)
      std::copy(typedBias.begin(), typedBias.end(), y.begin() + r * 6);
    tc::gemm(1, rows, 6, 8, typedX.data(), 0, false, typedW.data(), 0, true, 1.0, 1.0, y.data());
    INFO(dtypeName(dtype) << " linear " << shapeString(xShape));
    checkValues(doublesOf(y), expected, toleranceFor(dtype));
  }
}

} // namespace

/// Products large enough to be split over threads (m*n*k >= 2^20), few rows and many, with B
/// stored both ways, against gemm_loops' exact sums. Sums of ~1000 float products carry
/// rounding error that grows with k, so each element is held to the usual statistical bound of
/// T-accumulation, 4 * sqrt(k) * epsilon(T) * sum_p |a_p * b_p| (gemm_loops on |A| and |B|),
/// instead of a fixed tolerance; an indexing mistake is off by the size of the value itself.
template <typename T> void checkMatmulLarge() {
  DType dtype = dtypeOf<T>();
  struct Case {
    int64_t m, n, k, batch;
  };
  for (const Case &c : {Case{1, 1030, 1030, 1}, Case{3, 700, 515, 1}, Case{2, 300, 300, 8},
                        Case{20, 300, 200, 1}}) {
    HostTensor a = randomTensor(dtype, {c.batch, c.m, c.k}, 60);
    HostTensor b = randomTensor(dtype, {c.k, c.n}, 61);
    std::vector<T> typedA = typedOf<T>(a);
    for (bool transB : {false, true}) {
      std::vector<T> typedB = typedOf<T>(b);
      if (transB)
        typedB = transposed(typedB, c.k, c.n);
      std::vector<T> absA(typedA.size()), absB(typedB.size());
      for (size_t i = 0; i < typedA.size(); ++i)
        absA[i] = std::fabs(typedA[i]);
      for (size_t i = 0; i < typedB.size(); ++i)
        absB[i] = std::fabs(typedB[i]);
      std::vector<double> expected(static_cast<size_t>(c.batch * c.m * c.n));
      std::vector<double> magnitude(expected.size());
      std::vector<double> wideA(typedA.begin(), typedA.end()), wideB(typedB.begin(), typedB.end());
      std::vector<double> wideAbsA(absA.begin(), absA.end()), wideAbsB(absB.begin(), absB.end());
      tc::gemm_loops(c.batch, c.m, c.n, c.k, wideA.data(), c.m * c.k, false, wideB.data(), 0,
                     transB, 1.0, 0.0, expected.data());
      tc::gemm_loops(c.batch, c.m, c.n, c.k, wideAbsA.data(), c.m * c.k, false, wideAbsB.data(),
                     0, transB, 1.0, 0.0, magnitude.data());
      std::vector<T> y(expected.size(), tc::cast<T>(kNaN));
      tc::gemm(c.batch, c.m, c.n, c.k, typedA.data(), c.m * c.k, false, typedB.data(), 0, transB,
               1.0, 0.0, y.data());
      INFO(dtypeName(dtype) << " threads " << tc::parallel_threads() << " m " << c.m << " n "
                            << c.n << " k " << c.k << " batch " << c.batch << " transB "
                            << transB);
      const double bound = 4.0 * std::sqrt(double(c.k)) * std::numeric_limits<T>::epsilon();
      int64_t bad = 0;
      for (size_t i = 0; i < y.size(); ++i)
        if (!(std::fabs(double(y[i]) - expected[i]) <= bound * magnitude[i]))
          ++bad;
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("kernels: gemm matches matmul, addmm and linear") {
  checkMatmul<float, false>();
  {
    // The same through a pool of three threads: each product above 2^20 multiply-adds is split
    // (over the batch, C's rows or, for few rows, C's columns).
    tc_pool *pool = nullptr;
    tc_error err{};
    REQUIRE(tc_pool_create(3, &pool, &err) == TC_OK);
    tc::PoolScope scope(pool);
    checkMatmulLarge<float>();
    checkMatmulLarge<double>();
    tc_pool_destroy(pool);
  }
  checkMatmulLarge<float>();
  checkMatmul<double, false>();
  checkMatmul<tc::half, false>();
  checkMatmul<tc::bfloat16, false>();
  checkMatmul<float, true>();
  checkMatmul<double, true>();
  checkAddmm<float, false>();
  checkAddmm<double, false>();
  checkAddmm<tc::half, false>();
  checkAddmm<float, true>();
  checkLinear<float>();
  checkLinear<tc::bfloat16>();
}

/// grouped_gemm against the interpreter's grouped_matmul: groups of every size (empty ones,
/// a group past the rows, rows no group holds, decreasing offsets) and i32/i64 offsets.
template <typename T, typename O> void checkGroupedGemm() {
  DType dtype = dtypeOf<T>();
  const int64_t rows = 11, k = 9, n = 6, groups = 4;
  for (const std::vector<int64_t> &offsets :
       std::vector<std::vector<int64_t>>{{3, 3, 7, 11},   // an empty group
                                         {0, 2, 5, 8},    // rows 8..10 held by no group
                                         {4, 9, 13, 20},  // groups past the last row
                                         {6, 2, 9, 11},   // decreasing: the later group wins
                                         {11, 11, 11, 11}}) {
    HostTensor a = randomTensor(dtype, {rows, k}, 61);
    HostTensor b = randomTensor(dtype, {groups, k, n}, 62);
    std::vector<double> offsetValues(offsets.begin(), offsets.end());
    HostTensor offsetTensor = makeTensor(dtypeOf<O>(), {groups}, offsetValues);
    std::vector<double> expected = interpretOp(OpKind::GroupedMatmul, {a, b, offsetTensor});
    std::vector<T> typedA = typedOf<T>(a);
    std::vector<T> typedB = typedOf<T>(b);
    std::vector<O> typedOffsets(offsets.begin(), offsets.end());
    std::vector<T> c(static_cast<size_t>(rows * n), tc::cast<T>(kNaN));
    tc::grouped_gemm<T, O>(rows, k, n, groups, typedA.data(), typedB.data(),
                           typedOffsets.data(), c.data());
    INFO(dtypeName(dtype) << " offsets " << shapeString(offsets));
    checkValues(doublesOf(c), expected, toleranceFor(dtype));
  }
}

TEST_CASE("kernels: grouped_gemm matches grouped_matmul") {
  checkGroupedGemm<float, int32_t>();
  checkGroupedGemm<float, int64_t>();
  checkGroupedGemm<double, int32_t>();
  checkGroupedGemm<tc::bfloat16, int64_t>();
}

TEST_CASE("kernels: integer gemm accumulates exactly") {
  std::vector<int64_t> a = {1, 2, 3, 4, 5, 6};    // [2, 3]
  std::vector<int64_t> b = {7, 8, 9, 10, 11, 12}; // [3, 2]
  std::vector<int64_t> c(4, 0);
  tc::gemm<int64_t>(1, 2, 2, 3, a.data(), 0, false, b.data(), 0, false, 1.0, 0.0, c.data());
  CHECK(c == std::vector<int64_t>{58, 64, 139, 154});
}

namespace {

struct ConvCase {
  int64_t n, c, h, w, o, kh, kw;
  int64_t strideH, strideW, padH, padW, dilH, dilW, groups;
  bool bias;
};

template <typename T> void checkConv2d(const ConvCase &c, double tolerance = -1.0) {
  DType dtype = dtypeOf<T>();
  HostTensor x = randomTensor(dtype, {c.n, c.c, c.h, c.w}, 60);
  HostTensor weight = randomTensor(dtype, {c.o, c.c / c.groups, c.kh, c.kw}, 61);
  HostTensor bias = randomTensor(dtype, {c.o}, 62);
  std::vector<HostTensor> inputs = {x, weight};
  if (c.bias)
    inputs.push_back(bias);
  AttrMap attributes = attrs({{"stride", std::vector<int64_t>{c.strideH, c.strideW}},
                              {"padding", std::vector<int64_t>{c.padH, c.padW}},
                              {"dilation", std::vector<int64_t>{c.dilH, c.dilW}},
                              {"groups", c.groups}});
  TensorType type = inferredType(OpKind::Conv2d, inputs, attributes);
  std::vector<int64_t> shape = shapeOf(type);
  std::vector<double> expected = evalOp(OpKind::Conv2d, inputs, type, attributes);
  int64_t outH = shape[2];
  int64_t outW = shape[3];
  std::vector<T> typedX = typedOf<T>(x);
  std::vector<T> typedW = typedOf<T>(weight);
  std::vector<T> typedBias = typedOf<T>(bias);
  std::vector<T> y(expected.size(), tc::cast<T>(kNaN));
  std::vector<T> workspace(
      static_cast<size_t>(tc::conv2d_workspace_size(c.c, c.kh, c.kw, outH, outW, c.groups)),
      tc::cast<T>(kNaN));
  tc::conv2d(typedX.data(), c.n, c.c, c.h, c.w, typedW.data(), c.o, c.kh, c.kw,
             c.bias ? typedBias.data() : nullptr, c.strideH, c.strideW, c.padH, c.padW, c.dilH,
             c.dilW, c.groups, y.data(), outH, outW, workspace.data());
  INFO(dtypeName(dtype) << " conv2d x " << shapeString(x.shape) << " w "
                        << shapeString(weight.shape) << " -> " << shapeString(shape) << " stride "
                        << c.strideH << "," << c.strideW << " pad " << c.padH << "," << c.padW
                        << " dil " << c.dilH << "," << c.dilW << " groups " << c.groups
                        << " bias " << c.bias);
  checkValues(doublesOf(y), expected, tolerance >= 0.0 ? tolerance : toleranceFor(dtype));
}

const ConvCase kConvCases[] = {
    // n  c  h  w  o kh kw sh sw ph pw dh dw  g  bias
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, false}, // one pixel
    {2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  // same padding
    {2, 3, 7, 6, 4, 3, 3, 1, 1, 0, 0, 1, 1, 1, false}, // valid
    {1, 4, 9, 11, 6, 3, 2, 2, 3, 1, 0, 1, 1, 1, true}, // strides, asymmetric kernel
    {1, 4, 9, 9, 4, 3, 3, 1, 1, 2, 2, 2, 2, 1, true},  // dilation 2
    {2, 6, 8, 8, 6, 3, 3, 1, 1, 1, 1, 1, 1, 6, true},  // depthwise
    {1, 6, 8, 8, 12, 3, 3, 2, 2, 1, 1, 1, 1, 3, true}, // grouped, strided
    {2, 4, 5, 7, 8, 1, 1, 1, 1, 0, 0, 1, 1, 2, true},  // pointwise, grouped (no im2col)
    {1, 3, 5, 5, 2, 1, 1, 2, 2, 0, 0, 1, 1, 1, false}, // strided 1x1 (im2col)
    {1, 2, 4, 4, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, true},  // padded 1x1
    {1, 3, 5, 5, 2, 5, 5, 1, 1, 0, 0, 1, 1, 1, true},  // kernel covers the input
    {1, 2, 3, 3, 2, 3, 3, 3, 3, 2, 2, 1, 1, 1, true},  // windows mostly in padding
    {0, 3, 5, 5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},  // empty batch
    {1, 1, 6, 2, 1, 3, 1, 1, 1, 0, 0, 2, 1, 1, true},  // dilation along one axis
    {1, 16, 12, 12, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},
    {3, 5, 4, 6, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},  // pointwise batch: one batched GEMM
    {2, 5, 4, 6, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, false}, // ... without bias
};

} // namespace

TEST_CASE_TEMPLATE("kernels: conv2d matches the interpreter", T, float, double, tc::half,
                   tc::bfloat16) {
  for (const ConvCase &c : kConvCases)
    checkConv2d<T>(c);
}

TEST_CASE("kernels: conv2d split over threads matches the interpreter") {
  // Large enough that im2col, the bias fill and the GEMM (rows, columns, batch) are split.
  tc_pool *pool = nullptr;
  tc_error err{};
  REQUIRE(tc_pool_create(3, &pool, &err) == TC_OK);
  {
    tc::PoolScope scope(pool);
    // Up to 576 float products of values below 2 per output: BLAS's float accumulation
    // strays ~sqrt(576) * 2^-24 * sum|x*w| (about 5e-5) from the exact sum, more than the
    // 1e-5 of the small cases above.
    const double kLargeK = 1e-4;
    checkConv2d<float>({1, 16, 40, 40, 24, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, kLargeK); // columns
    checkConv2d<float>({1, 64, 6, 6, 96, 3, 3, 1, 1, 1, 1, 1, 1, 1, true}, kLargeK);   // rows
    checkConv2d<float>({4, 32, 20, 20, 48, 1, 1, 1, 1, 0, 0, 1, 1, 1, true}, kLargeK); // batch
    checkConv2d<double>({2, 8, 30, 30, 8, 3, 3, 2, 2, 1, 1, 1, 1, 2, false});
  }
  tc_pool_destroy(pool);
}

namespace {

// Output padding is implicit in OH/OW, which the interpreter's inferred type gives.
struct ConvTransposeCase {
  int64_t n, c, h, w, o, kh, kw;
  int64_t strideH, strideW, padH, padW, dilH, dilW, outPadH, outPadW, groups;
  bool bias;
};

template <typename T> void checkConvTranspose2d(const ConvTransposeCase &c) {
  DType dtype = dtypeOf<T>();
  HostTensor x = randomTensor(dtype, {c.n, c.c, c.h, c.w}, 63);
  HostTensor weight = randomTensor(dtype, {c.c, c.o / c.groups, c.kh, c.kw}, 64);
  HostTensor bias = randomTensor(dtype, {c.o}, 65);
  std::vector<HostTensor> inputs = {x, weight};
  if (c.bias)
    inputs.push_back(bias);
  AttrMap attributes =
      attrs({{"stride", std::vector<int64_t>{c.strideH, c.strideW}},
             {"padding", std::vector<int64_t>{c.padH, c.padW}},
             {"dilation", std::vector<int64_t>{c.dilH, c.dilW}},
             {"output_padding", std::vector<int64_t>{c.outPadH, c.outPadW}},
             {"groups", c.groups}});
  TensorType type = inferredType(OpKind::ConvTranspose2d, inputs, attributes);
  std::vector<int64_t> shape = shapeOf(type);
  std::vector<double> expected = evalOp(OpKind::ConvTranspose2d, inputs, type, attributes);
  int64_t outH = shape[2];
  int64_t outW = shape[3];
  std::vector<T> typedX = typedOf<T>(x);
  std::vector<T> typedW = typedOf<T>(weight);
  std::vector<T> typedBias = typedOf<T>(bias);
  std::vector<T> y(expected.size(), tc::cast<T>(kNaN));
  std::vector<tc::compute_t<T>> workspace(
      static_cast<size_t>(tc::conv_transpose2d_workspace_size(c.o, c.kh, c.kw, c.h, c.w, outW)),
      tc::compute_t<T>(kNaN));
  tc::conv_transpose2d(typedX.data(), c.n, c.c, c.h, c.w, typedW.data(), c.o, c.kh, c.kw,
                       c.bias ? typedBias.data() : nullptr, c.strideH, c.strideW, c.padH, c.padW,
                       c.dilH, c.dilW, c.groups, y.data(), outH, outW, workspace.data());
  INFO(dtypeName(dtype) << " conv_transpose2d x " << shapeString(x.shape) << " w "
                        << shapeString(weight.shape) << " -> " << shapeString(shape) << " stride "
                        << c.strideH << "," << c.strideW << " pad " << c.padH << "," << c.padW
                        << " dil " << c.dilH << "," << c.dilW << " groups " << c.groups
                        << " bias " << c.bias);
  checkValues(doublesOf(y), expected, toleranceFor(dtype));
}

const ConvTransposeCase kConvTransposeCases[] = {
    // n  c  h  w  o kh kw sh sw ph pw dh dw oph opw g  bias
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, false}, // one pixel
    {2, 3, 4, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true},  // the decoder upsampling
    {1, 4, 3, 3, 2, 2, 2, 2, 2, 0, 0, 1, 1, 0, 0, 1, true},  // kernel = stride: no overlap
    {2, 4, 5, 4, 6, 3, 3, 2, 1, 0, 1, 1, 1, 0, 0, 2, false}, // grouped
    {1, 4, 4, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 4, true},  // depthwise
    {1, 2, 4, 3, 3, 3, 2, 1, 3, 0, 1, 2, 1, 1, 2, 1, true},  // dilation, output padding
    {1, 3, 2, 2, 2, 5, 5, 1, 1, 2, 2, 1, 1, 0, 0, 1, true},  // padding cuts the taps
    {0, 3, 2, 2, 2, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 1, true},  // empty batch
    {1, 16, 6, 6, 8, 4, 4, 2, 2, 1, 1, 1, 1, 0, 0, 1, true},
};

} // namespace

TEST_CASE_TEMPLATE("kernels: conv_transpose2d matches the interpreter", T, float, double,
                   tc::half, tc::bfloat16) {
  for (const ConvTransposeCase &c : kConvTransposeCases)
    checkConvTranspose2d<T>(c);
}

namespace {

struct PoolCase {
  std::vector<int64_t> shape; // [N, C, H, W]
  int64_t kh, kw, strideH, strideW, padH, padW, dilH, dilW;
  bool ceilMode;
};

const PoolCase kPoolCases[] = {
    {{1, 1, 4, 4}, 2, 2, 2, 2, 0, 0, 1, 1, false},
    {{2, 3, 7, 6}, 3, 3, 2, 2, 1, 1, 1, 1, false},
    {{2, 3, 7, 6}, 3, 3, 2, 2, 1, 1, 1, 1, true},
    {{1, 2, 5, 5}, 2, 2, 2, 2, 0, 0, 1, 1, true}, // ceil: a partial last window
    {{1, 2, 6, 6}, 3, 3, 3, 3, 1, 1, 1, 1, true}, // ceil drops a window starting in padding
    {{1, 2, 9, 8}, 3, 2, 1, 2, 1, 1, 1, 1, false},
    {{1, 1, 9, 9}, 3, 3, 2, 2, 1, 1, 2, 2, true}, // dilation (max only)
    {{1, 3, 1, 1}, 1, 1, 1, 1, 0, 0, 1, 1, false},
    {{0, 2, 4, 4}, 2, 2, 2, 2, 0, 0, 1, 1, false},
    {{1, 1, 11, 3}, 4, 3, 3, 1, 2, 1, 1, 1, true},
};

AttrMap poolAttributes(const PoolCase &c, bool withDilation) {
  AttrMap attributes = attrs({{"kernel", std::vector<int64_t>{c.kh, c.kw}},
                              {"stride", std::vector<int64_t>{c.strideH, c.strideW}},
                              {"padding", std::vector<int64_t>{c.padH, c.padW}},
                              {"ceil_mode", c.ceilMode}});
  if (withDilation)
    attributes.set("dilation", std::vector<int64_t>{c.dilH, c.dilW});
  return attributes;
}

template <typename T> void checkMaxPool(const PoolCase &c) {
  DType dtype = dtypeOf<T>();
  HostTensor input = randomTensor(dtype, c.shape, 70, -50, 50);
  AttrMap attributes = poolAttributes(c, true);
  TensorType type = inferredType(OpKind::MaxPool2d, {input}, attributes);
  std::vector<int64_t> shape = shapeOf(type);
  std::vector<double> expected = evalOp(OpKind::MaxPool2d, {input}, type, attributes);
  std::vector<T> x = typedOf<T>(input);
  std::vector<T> y(expected.size());
  tc::max_pool2d(x.data(), c.shape[0], c.shape[1], c.shape[2], c.shape[3], c.kh, c.kw, c.strideH,
                 c.strideW, c.padH, c.padW, c.dilH, c.dilW, y.data(), shape[2], shape[3]);
  INFO(dtypeName(dtype) << " max_pool2d " << shapeString(c.shape) << " -> " << shapeString(shape));
  checkValues(doublesOf(y), expected, 0.0);
}

template <typename T> void checkAvgPool(const PoolCase &c) {
  DType dtype = dtypeOf<T>();
  HostTensor input = randomTensor(dtype, c.shape, 71, -50, 50);
  for (bool countIncludePad : {false, true}) {
    for (int64_t divisor : {0, 5}) {
      AttrMap attributes = poolAttributes(c, false);
      attributes.set("count_include_pad", countIncludePad);
      if (divisor != 0)
        attributes.set("divisor_override", divisor);
      TensorType type = inferredType(OpKind::AvgPool2d, {input}, attributes);
      std::vector<int64_t> shape = shapeOf(type);
      std::vector<double> expected = evalOp(OpKind::AvgPool2d, {input}, type, attributes);
      std::vector<T> x = typedOf<T>(input);
      std::vector<T> y(expected.size());
      tc::avg_pool2d(x.data(), c.shape[0], c.shape[1], c.shape[2], c.shape[3], c.kh, c.kw,
                     c.strideH, c.strideW, c.padH, c.padW, countIncludePad, divisor, y.data(),
                     shape[2], shape[3]);
      INFO(dtypeName(dtype) << " avg_pool2d " << shapeString(c.shape) << " -> "
                            << shapeString(shape) << " count_include_pad " << countIncludePad
                            << " divisor_override " << divisor);
      checkValues(doublesOf(y), expected, toleranceFor(dtype));
    }
  }
}

} // namespace

TEST_CASE_TEMPLATE("kernels: max_pool2d and avg_pool2d match the interpreter", T, float, double,
                   tc::half, tc::bfloat16) {
  for (const PoolCase &c : kPoolCases) {
    checkMaxPool<T>(c);
    if (c.dilH == 1 && c.dilW == 1)
      checkAvgPool<T>(c);
  }
}

TEST_CASE("kernels: max_pool2d propagates NaN and pools integers") {
  std::vector<float> x = {1, 2, 3, NAN, 5, 6, 7, 8, 9}; // [1, 1, 3, 3]
  std::vector<float> y(4);
  tc::max_pool2d(x.data(), 1, 1, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, y.data(), 2, 2);
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 6);
  CHECK(std::isnan(y[2]));
  CHECK(y[3] == 9);
  std::vector<int64_t> ints = {-5, -7, -9, -1};
  std::vector<int64_t> pooled(1);
  tc::max_pool2d(ints.data(), 1, 1, 2, 2, 2, 2, 2, 2, 0, 0, 1, 1, pooled.data(), 1, 1);
  CHECK(pooled[0] == -1);
}

TEST_CASE_TEMPLATE("kernels: adaptive_avg_pool2d matches the interpreter", T, float, tc::half) {
  DType dtype = dtypeOf<T>();
  for (auto [shape, outH, outW] : std::vector<std::tuple<std::vector<int64_t>, int64_t, int64_t>>{
           {{2, 3, 7, 6}, 1, 1},
           {{2, 3, 7, 6}, 3, 4},
           {{1, 2, 5, 5}, 5, 5},
           {{1, 2, 4, 3}, 7, 6}, // output larger than input
           {{1, 1, 10, 9}, 4, 2},
           {{0, 2, 4, 4}, 2, 2}}) {
    HostTensor input = randomTensor(dtype, shape, 72, -50, 50);
    AttrMap attributes = attrs({{"output_size", std::vector<int64_t>{outH, outW}}});
    std::vector<double> expected = interpretOp(OpKind::AdaptiveAvgPool2d, {input}, attributes);
    std::vector<T> x = typedOf<T>(input);
    std::vector<T> y(expected.size());
    tc::adaptive_avg_pool2d(x.data(), shape[0], shape[1], shape[2], shape[3], y.data(), outH, outW);
    // Streamed first: clang < 16 cannot capture structured bindings in INFO.
    std::ostringstream context;
    context << shapeString(shape) << " -> " << outH << "x" << outW;
    INFO(context.str());
    checkValues(doublesOf(y), expected, toleranceFor(dtype));
  }
}
