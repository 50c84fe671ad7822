// Tests of tcg's NN ops on the CPU emulation of CUDA: softmax, layer_norm, batch_norm, pooling
// (2-d and 3-d, with indices), grid_sample,
// GEMM (cuBLAS and the integer kernel), conv2d (im2col + GEMM, pointwise, grouped, depthwise),
// conv_transpose2d (GEMM + col2im) and the fused attention kernel, each against the CPU library
// function of the same name (tc_kernels.h). tcg computes these in float (double for double) where
// tc:: uses double, so floating results compare within float rounding; each tolerance states its
// reason.
#include <cmath>
#include <cstdint>
#include <vector>

#include "lib_test_util.h"

namespace {

using namespace lib_test;

// ---- softmax, layer_norm, batch_norm ----

struct RowShape {
  int64_t outer, extent, inner;
};

template <typename T> void checkSoftmax(bool log) {
  // Warp rows (short, or many), block rows (few, or extent > 1024), strided columns, single
  // elements, empty extents.
  const RowShape shapes[] = {{5, 33, 1}, {3, 1500, 1}, {9, 200, 1}, {2048, 130, 1}, {1, 1, 1},
                             {2, 7, 33}, {3, 257, 7},  {4, 0, 1},   {1000, 2, 1}};
  for (const RowShape &shape : shapes) {
    CAPTURE(shape.extent);
    CAPTURE(shape.inner);
    CAPTURE(log);
    Context context;
    const int64_t count = shape.outer * shape.extent * shape.inner;
    Array<T> input = randomArray<T>(count, -8, 8, 59);
    const T negativeInfinity = tc::cast<T>(-tc::infinity<double>());
    if (shape.extent >= 7 && shape.inner == 1) {
      input[1] = negativeInfinity;               // row 0: one -inf weighs 0
      for (int64_t j = 0; j < shape.extent; ++j) // row 1: all -inf gives NaN
        input[shape.extent + j] = negativeInfinity;
      if (shape.outer > 2)
        input[2 * shape.extent + 3] = tc::cast<T>(std::nan("")); // row 2: NaN
    }
    Array<T> want(count);
    tc::softmax(input.data(), shape.outer, shape.extent, shape.inner, log, want.data());
    Buffer<T> x(input), y(count);
    REQUIRE_OK(
        tcg::softmax(context.ex, x.data(), shape.outer, shape.extent, shape.inner, log, y.data()));
    // Float (double for double) against double: each exp within a few float ulp, the row sum
    // (<= 1500 terms: per-thread runs, then a tree) within ~sqrt(extent) * 2^-24 relative, so
    // probabilities agree to ~1e-5 relative. log_softmax errs absolutely: |x - max| <= 16 and
    // log(sum) each carry a few float ulp. Reduced types round once more.
    const double rtol = 2e-5 + 2 * unitRoundoff<T>();
    expectNear(y.read(), want, rtol, log ? 2e-5 + 16 * unitRoundoff<T>() : 1e-7);
  }
}

TEST_CASE("tcg::softmax and log_softmax: both layouts, -inf and NaN rows") {
  checkSoftmax<float>(false);
  checkSoftmax<float>(true);
  checkSoftmax<double>(false);
  checkSoftmax<tc::half>(true);
  checkSoftmax<tc::bfloat16>(false);
}

template <typename T> void checkLayerNorm(bool affine) {
  for (int64_t cols : {1, 7, 33, 1000, 1500}) {
    CAPTURE(cols);
    Context context;
    const int64_t rows = 9;
    const Array<T> input = randomArray<T>(rows * cols, 95, 105, 61); // mean far from 0
    const Array<T> weight = randomArray<T>(cols, 0.5, 2, 67);
    const Array<T> bias = randomArray<T>(cols, -1, 1, 71);
    Array<T> want(rows * cols);
    tc::layer_norm(input.data(), rows, cols, affine ? weight.data() : nullptr,
                   affine ? bias.data() : nullptr, 1e-5, want.data());
    Buffer<T> x(input), w(weight), b(bias), y(rows * cols);
    REQUIRE_OK(tcg::layer_norm(context.ex, x.data(), rows, cols, affine ? w.data() : nullptr,
                               affine ? b.data() : nullptr, 1e-5, y.data()));
    // Float statistics of rows ~100 +- 5: per-thread partial sums then a tree keep the mean
    // within ~1e-6 of the standard deviation (~2.9), and the second pass sums deviations, so
    // nothing cancels; outputs (|y| <= ~5) agree within 3e-5 with wide margin. Reduced types
    // add one rounding of an output of magnitude <= ~8.
    expectNear(y.read(), want, 2 * unitRoundoff<T>(), 3e-5 + 8 * unitRoundoff<T>());
  }
}

TEST_CASE("tcg::layer_norm: warp and block rows, with and without weight/bias") {
  checkLayerNorm<float>(true);
  checkLayerNorm<float>(false);
  checkLayerNorm<double>(true);
  checkLayerNorm<tc::half>(true);
}

template <typename T> void checkBatchNorm(int64_t spatial, bool affine) {
  Context context;
  const int64_t N = 3, C = 5;
  const Array<T> input = randomArray<T>(N * C * spatial, -3, 3, 73);
  const Array<T> mean = randomArray<T>(C, -1, 1, 79), var = randomArray<T>(C, 0.1, 2, 83);
  const Array<T> weight = randomArray<T>(C, 0.5, 2, 89), bias = randomArray<T>(C, -1, 1, 97);
  Array<T> want(input.size());
  tc::batch_norm(input.data(), N, C, spatial, mean.data(), var.data(),
                 affine ? weight.data() : nullptr, affine ? bias.data() : nullptr, 1e-5,
                 want.data());
  Buffer<T> x(input), m(mean), v(var), w(weight), b(bias), y(input.size());
  REQUIRE_OK(tcg::batch_norm(context.ex, x.data(), N, C, spatial, m.data(), v.data(),
                             affine ? w.data() : nullptr, affine ? b.data() : nullptr, 1e-5,
                             y.data()));
  // scale (<= ~6.3) and shift (<= ~7) are doubles rounded to float, then a float multiply and
  // add of magnitudes below ~26: four float roundings, below 64 * 2^-24 absolute. Reduced
  // types round the result once more.
  expectNear(y.read(), want, 2 * unitRoundoff<T>(), 64 * unitRoundoff<float>());
}

TEST_CASE("tcg::batch_norm: tiny, odd and wide planes") {
  checkBatchNorm<float>(1, true);
  checkBatchNorm<float>(49, false);
  checkBatchNorm<double>(300, true);
  checkBatchNorm<tc::bfloat16>(7, true);
}

// ---- pooling ----

/// A pooling or convolution output extent, PyTorch's formula; ceil mode drops a last window
/// that would start in the right padding.
int64_t outputSize(int64_t size, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                   bool ceil) {
  const int64_t span = size + 2 * pad - dilation * (kernel - 1) - 1;
  int64_t out = (span + (ceil ? stride - 1 : 0)) / stride + 1;
  if (ceil && (out - 1) * stride >= size + pad)
    --out;
  return out;
}

struct PoolCase {
  int64_t N, C, H, W, KH, KW, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
  bool ceil;
  int64_t extraRows; ///< output rows past the formula: windows entirely outside the input
};

const PoolCase kPoolCases[] = {
    {2, 3, 9, 11, 3, 3, 2, 2, 1, 1, 1, 1, false, 0}, // the common 3x3/2 with padding
    {1, 2, 10, 7, 3, 2, 2, 3, 1, 1, 1, 1, true, 0},  // ceil: partial last windows
    {1, 3, 12, 12, 3, 3, 1, 2, 2, 1, 2, 1, true, 0}, // dilation (max only)
    {2, 1, 5, 5, 2, 2, 2, 2, 0, 0, 1, 1, false, 2},  // windows past the input
};

template <typename T> void checkMaxPool(const PoolCase &p) {
  Context context;
  const int64_t OH = outputSize(p.H, p.KH, p.stride_h, p.pad_h, p.dil_h, p.ceil) + p.extraRows;
  const int64_t OW = outputSize(p.W, p.KW, p.stride_w, p.pad_w, p.dil_w, p.ceil);
  Array<T> input = randomArray<T>(p.N * p.C * p.H * p.W, -50, 50, 101);
  if constexpr (tc::is_floating<T>::value)
    input[p.W + 1] = tc::cast<T>(std::nan("")); // a NaN wins its windows
  Array<T> want(p.N * p.C * OH * OW);
  tc::max_pool2d(input.data(), p.N, p.C, p.H, p.W, p.KH, p.KW, p.stride_h, p.stride_w, p.pad_h,
                 p.pad_w, p.dil_h, p.dil_w, want.data(), OH, OW);
  Buffer<T> x(input), y(want.size());
  REQUIRE_OK(tcg::max_pool2d(context.ex, x.data(), p.N, p.C, p.H, p.W, p.KH, p.KW, p.stride_h,
                             p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w, y.data(), OH, OW));
  expectEqual(y.read(), want); // a maximum is exact
}

template <typename T> void checkAvgPool(const PoolCase &p, bool includePad, int64_t divisor) {
  Context context;
  const int64_t OH = outputSize(p.H, p.KH, p.stride_h, p.pad_h, 1, p.ceil) + p.extraRows;
  const int64_t OW = outputSize(p.W, p.KW, p.stride_w, p.pad_w, 1, p.ceil);
  const Array<T> input = randomArray<T>(p.N * p.C * p.H * p.W, -5, 5, 103);
  Array<T> want(p.N * p.C * OH * OW);
  tc::avg_pool2d(input.data(), p.N, p.C, p.H, p.W, p.KH, p.KW, p.stride_h, p.stride_w, p.pad_h,
                 p.pad_w, includePad, divisor, want.data(), OH, OW);
  Buffer<T> x(input), y(want.size());
  REQUIRE_OK(tcg::avg_pool2d(context.ex, x.data(), p.N, p.C, p.H, p.W, p.KH, p.KW, p.stride_h,
                             p.stride_w, p.pad_h, p.pad_w, includePad, divisor, y.data(), OH, OW));
  // Window sums in double on both sides, in the same order: identical.
  expectEqual(y.read(), want);
}

TEST_CASE("tcg::max_pool2d and tcg::avg_pool2d: padding, ceil shapes, dilation, outside windows") {
  for (const PoolCase &p : kPoolCases) {
    CAPTURE(p.H);
    checkMaxPool<float>(p);
    checkMaxPool<tc::half>(p);
    checkMaxPool<int32_t>(p);
    if (p.dil_h != 1)
      continue; // avg_pool2d has no dilation
    for (bool includePad : {false, true}) {
      checkAvgPool<float>(p, includePad, 0);
      checkAvgPool<tc::bfloat16>(p, includePad, 0);
    }
    checkAvgPool<double>(p, false, 5);
  }
}

template <typename T> void checkAdaptive(int64_t H, int64_t W, int64_t OH, int64_t OW) {
  Context context;
  const int64_t N = 2, C = 3;
  const Array<T> input = randomArray<T>(N * C * H * W, -5, 5, 107);
  Array<T> want(N * C * OH * OW);
  tc::adaptive_avg_pool2d(input.data(), N, C, H, W, want.data(), OH, OW);
  Buffer<T> x(input), y(want.size());
  REQUIRE_OK(tcg::adaptive_avg_pool2d(context.ex, x.data(), N, C, H, W, y.data(), OH, OW));
  expectEqual(y.read(), want); // the same double sums in the same order
}

TEST_CASE("tcg::adaptive_avg_pool2d: uneven, upsampling and global windows") {
  checkAdaptive<float>(7, 9, 3, 4);
  checkAdaptive<float>(3, 5, 5, 7);
  checkAdaptive<tc::half>(10, 10, 1, 1);
  checkAdaptive<double>(8, 8, 2, 2);
}

template <typename T> void checkPool3d(const tc::pool_geometry &g, int64_t planes) {
  CAPTURE(g.out[0]);
  Context context;
  const int64_t in = planes * g.in[0] * g.in[1] * g.in[2];
  const int64_t out = planes * g.out[0] * g.out[1] * g.out[2];
  Array<T> input = randomArray<T>(in, -50, 50, 131);
  if constexpr (tc::is_floating<T>::value)
    input[in / 2] = tc::cast<T>(std::nan("")); // a NaN wins its windows (value and index)
  Array<T> wantMax(out), wantAvg(out);
  Array<int64_t> wantIndices(out);
  tc::max_pool3d(input.data(), planes, g, wantMax.data(), wantIndices.data());
  Buffer<T> x(input), y(out);
  Buffer<int64_t> indices(out);
  REQUIRE_OK(tcg::max_pool3d(context.ex, x.data(), planes, g, y.data(), indices.data()));
  expectEqual(y.read(), wantMax);
  expectEqual(indices.read(), wantIndices);
  if constexpr (tc::is_floating<T>::value) {
    for (bool includePad : {false, true}) {
      tc::avg_pool3d(input.data(), planes, g, includePad, 0, wantAvg.data());
      REQUIRE_OK(tcg::avg_pool3d(context.ex, x.data(), planes, g, includePad, 0, y.data()));
      expectEqual(y.read(), wantAvg); // the same double sums in the same order
    }
  }
}

TEST_CASE("tcg::max_pool3d (values and indices) and tcg::avg_pool3d: like tc::") {
  // {in}, {out}, {kernel}, {stride}, {pad}, {dilation}; the last has ceil-mode extents.
  const tc::pool_geometry cases[] = {
      {{5, 6, 7}, {3, 3, 4}, {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}},
      {{4, 5, 6}, {3, 2, 5}, {2, 3, 2}, {1, 2, 1}, {0, 1, 0}, {2, 1, 1}},
      {{1, 5, 5}, {1, 3, 3}, {1, 2, 2}, {1, 2, 2}, {0, 0, 0}, {1, 1, 1}},
      {{5, 6, 7}, {3, 3, 4}, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}},
  };
  for (const tc::pool_geometry &g : cases) {
    checkPool3d<float>(g, 3);
    checkPool3d<tc::bfloat16>(g, 2);
    checkPool3d<int64_t>(g, 2);
  }
}

TEST_CASE("tcg::adaptive_avg_pool3d: uneven, upsampling and global cells") {
  const tc::pool_geometry cases[] = {
      {{5, 7, 9}, {2, 3, 4}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
      {{3, 2, 5}, {4, 5, 7}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
      {{4, 4, 4}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}},
  };
  for (const tc::pool_geometry &g : cases) {
    Context context;
    const int64_t planes = 3;
    const Array<float> input = randomArray<float>(planes * g.in[0] * g.in[1] * g.in[2], -5, 5, 137);
    Array<float> want(planes * g.out[0] * g.out[1] * g.out[2]);
    tc::adaptive_avg_pool3d(input.data(), planes, g, want.data());
    Buffer<float> x(input), y(want.size());
    REQUIRE_OK(tcg::adaptive_avg_pool3d(context.ex, x.data(), planes, g, y.data()));
    expectEqual(y.read(), want);
  }
}

template <typename T> void checkGridSample(tc::grid_mode mode, tc::grid_padding padding,
                                           bool align) {
  Context context;
  const int64_t N = 2, C = 3, H = 5, W = 6, OH = 4, OW = 7;
  const Array<T> input = randomArray<T>(N * C * H * W, -5, 5, 139);
  const Array<T> grid = randomArray<T>(N * OH * OW * 2, -1.4, 1.4, 149);
  Array<T> want(N * C * OH * OW);
  tc::grid_sample(input.data(), N, C, H, W, grid.data(), OH, OW, mode, padding, align,
                  want.data());
  Buffer<T> x(input), g(grid), y(want.size());
  REQUIRE_OK(tcg::grid_sample(context.ex, x.data(), N, C, H, W, g.data(), OH, OW, mode, padding,
                              align, y.data()));
  expectEqual(y.read(), want); // one tc_math.h function, the same float arithmetic
}

TEST_CASE("tcg::grid_sample: every mode, padding mode and corner alignment, like tc::") {
  for (tc::grid_mode mode : {tc::grid_mode::bilinear, tc::grid_mode::nearest,
                             tc::grid_mode::bicubic})
    for (tc::grid_padding padding : {tc::grid_padding::zeros, tc::grid_padding::border,
                                     tc::grid_padding::reflection})
      for (bool align : {false, true}) {
        checkGridSample<float>(mode, padding, align);
        checkGridSample<tc::half>(mode, padding, align);
      }
  checkGridSample<double>(tc::grid_mode::bicubic, tc::grid_padding::reflection, false);
}

// ---- GEMM ----

struct GemmCase {
  int64_t batch, m, n, k;
  bool transA, transB;
  bool broadcastA, broadcastB; ///< batch stride 0
  double alpha, beta;
};

const GemmCase kGemmCases[] = {
    {1, 7, 33, 257, false, false, false, false, 1.0, 0.0},
    {3, 5, 9, 17, true, false, false, false, 2.0, 0.5},
    {2, 33, 7, 1, false, true, false, false, 1.0, 1.0},
    {4, 1, 1, 1000, true, true, false, false, -0.5, 0.0},
    {3, 6, 5, 4, false, false, true, false, 1.0, 0.0},  // one A for every batch entry
    {5, 3, 8, 9, false, false, false, true, 1.0, 2.0},  // one B: folded into a taller GEMM
    {2, 4, 3, 0, false, false, false, false, 1.0, 0.5}, // k = 0: beta * C
    {2, 4, 3, 0, false, false, false, false, 1.0, 0.0}, // k = 0, beta = 0: zeros
};

template <typename T> void checkGemm(const GemmCase &g) {
  CAPTURE(g.m);
  CAPTURE(g.n);
  CAPTURE(g.k);
  Context context;
  const int64_t aSize = g.m * g.k, bSize = g.k * g.n, cSize = g.batch * g.m * g.n;
  const int64_t aStride = g.broadcastA ? 0 : aSize, bStride = g.broadcastB ? 0 : bSize;
  const Array<T> a = randomArray<T>((g.broadcastA ? 1 : g.batch) * aSize, -1, 1, 109);
  const Array<T> b = randomArray<T>((g.broadcastB ? 1 : g.batch) * bSize, -1, 1, 113);
  Array<T> want = randomArray<T>(cSize, -1, 1, 127);
  if (g.beta == 0.0 && tc::is_floating<T>::value) // C is not read: NaNs there must not leak
    for (int64_t i = 0; i < cSize; ++i)
      want[i] = tc::cast<T>(std::nan(""));
  Buffer<T> da(a), db(b), dc(want);
  tc::gemm(g.batch, g.m, g.n, g.k, a.data(), aStride, g.transA, b.data(), bStride, g.transB,
           g.alpha, g.beta, want.data());
  REQUIRE_OK(tcg::gemm(context.ex, g.batch, g.m, g.n, g.k, da.data(), aStride, g.transA, db.data(),
                       bStride, g.transB, g.alpha, g.beta, dc.data()));
  if (!tc::is_floating<T>::value) {
    expectEqual(dc.read(), want); // integers: the same double sums in the same order
    return;
  }
  // cuBLAS accumulates in float (double for double) where tc::gemm may use double: with
  // |a|, |b| < 1 the recursive-summation error stays below ~k * 2^-24 (a random walk is
  // ~sqrt(k) times smaller), scaled by |alpha|; plus one rounding of T and of beta * C.
  const double accumulation = std::is_same<T, double>::value ? 1e-13 : unitRoundoff<float>();
  const double atol = accumulation * (g.k + 2) * (std::fabs(g.alpha) + std::fabs(g.beta));
  expectNear(dc.read(), want, 2 * unitRoundoff<T>(), atol);
}

TEST_CASE("tcg::gemm: transposes, broadcast batches, alpha/beta, k = 0, every type") {
  for (const GemmCase &g : kGemmCases) {
    checkGemm<float>(g);
    checkGemm<double>(g);
    checkGemm<tc::half>(g);
    checkGemm<tc::bfloat16>(g);
    checkGemm<int32_t>(g);
    checkGemm<int64_t>(g);
  }
}

TEST_CASE("tcg::gemm with TF32 allowed") {
  Context context;
  context.ex.allow_tf32 = true;
  const int64_t m = 9, n = 17, k = 65;
  const Array<float> a = randomArray<float>(m * k, -1, 1, 173);
  const Array<float> b = randomArray<float>(k * n, -1, 1, 179);
  Array<float> want(m * n);
  tc::gemm<float>(1, m, n, k, a.data(), 0, false, b.data(), 0, false, 1.0, 0.0, want.data());
  Buffer<float> da(a), db(b), c(m * n);
  REQUIRE_OK(tcg::gemm<float>(context.ex, 1, m, n, k, da.data(), 0, false, db.data(), 0, false, 1.0,
                              0.0, c.data()));
  // TF32 keeps 10 mantissa bits of each operand: each product is off by up to 2 * 2^-11
  // relative, k of them (|a b| < 1) by at most k * 2^-10 absolute.
  expectNear(c.read(), want, 0.0, k * std::ldexp(1.0, -10));
}

TEST_CASE("tcg::gemm splits batches above cuBLAS's 65535") {
  checkGemm<float>({65537, 1, 2, 3, false, true, false, false, 1.0, 0.0});
}

// ---- convolution ----

struct ConvCase {
  int64_t N, C, H, W, O, KH, KW, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
  bool bias;
};

const ConvCase kConvCases[] = {
    {2, 3, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, true},    // the common 3x3, same padding
    {1, 4, 11, 13, 5, 3, 2, 2, 3, 2, 1, 2, 2, 1, false}, // strided, dilated, padded
    {2, 6, 7, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1, 3, true},    // grouped
    {2, 8, 10, 10, 8, 3, 3, 2, 2, 1, 1, 1, 1, 8, true},  // depthwise: the direct kernel
    {1, 3, 6, 7, 6, 5, 5, 1, 1, 2, 2, 1, 1, 3, false},   // depthwise, channel multiplier 2
    {3, 16, 5, 6, 7, 1, 1, 1, 1, 0, 0, 1, 1, 1, true},   // pointwise: GEMM over images
    {2, 8, 5, 3, 4, 1, 1, 1, 1, 0, 0, 1, 1, 2, false},   // grouped pointwise
    {1, 4, 9, 8, 3, 1, 1, 2, 2, 0, 0, 1, 1, 1, true},    // strided 1x1: im2col
};

template <typename T> void checkConv(const ConvCase &c) {
  CAPTURE(c.C);
  CAPTURE(c.groups);
  Context context;
  const int64_t OH = outputSize(c.H, c.KH, c.stride_h, c.pad_h, c.dil_h, false);
  const int64_t OW = outputSize(c.W, c.KW, c.stride_w, c.pad_w, c.dil_w, false);
  const int64_t taps = c.C / c.groups * c.KH * c.KW;
  const Array<T> x = randomArray<T>(c.N * c.C * c.H * c.W, -1, 1, 131);
  const Array<T> weight = randomArray<T>(c.O * taps, -1, 1, 137);
  const Array<T> bias = randomArray<T>(c.O, -1, 1, 139);
  Array<T> want(c.N * c.O * OH * OW);
  Array<T> cpuWorkspace(tc::conv2d_workspace_size(c.C, c.KH, c.KW, OH, OW, c.groups));
  tc::conv2d(x.data(), c.N, c.C, c.H, c.W, weight.data(), c.O, c.KH, c.KW,
             c.bias ? bias.data() : nullptr, c.stride_h, c.stride_w, c.pad_h, c.pad_w, c.dil_h,
             c.dil_w, c.groups, want.data(), OH, OW, cpuWorkspace.data());
  Buffer<T> dx(x), dw(weight), db(bias), y(want.size());
  Buffer<T> workspace(tcg::conv2d_workspace_size(c.C, c.KH, c.KW, OH, OW, c.groups));
  REQUIRE_OK(tcg::conv2d(context.ex, dx.data(), c.N, c.C, c.H, c.W, dw.data(), c.O, c.KH, c.KW,
                         c.bias ? db.data() : nullptr, c.stride_h, c.stride_w, c.pad_h, c.pad_w,
                         c.dil_h, c.dil_w, c.groups, y.data(), OH, OW, workspace.data()));
  // A GEMM of `taps` terms below 1 in magnitude, accumulated in float (see tcg::gemm's
  // check), plus the bias add and one rounding of T.
  const double accumulation = std::is_same<T, double>::value ? 1e-13 : unitRoundoff<float>();
  expectNear(y.read(), want, 2 * unitRoundoff<T>(), accumulation * (taps + 2));
}

TEST_CASE("tcg::conv2d: im2col + GEMM, pointwise, grouped, depthwise") {
  for (const ConvCase &c : kConvCases) {
    checkConv<float>(c);
    checkConv<tc::half>(c);
  }
  checkConv<double>(kConvCases[2]);
  checkConv<tc::bfloat16>(kConvCases[3]);
  CHECK(tcg::conv2d_workspace_size(8, 3, 3, 5, 5, 8) == 0); // depthwise needs none
}

// ---- transposed convolution ----

struct ConvTransposeCase {
  int64_t N, C, H, W, O, KH, KW, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, out_pad_h,
      out_pad_w, groups;
  bool bias;
};

const ConvTransposeCase kConvTransposeCases[] = {
    {2, 3, 4, 5, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, true},  // the decoder upsampling
    {1, 4, 3, 3, 2, 2, 2, 2, 2, 0, 0, 1, 1, 0, 0, 1, false}, // kernel = stride
    {2, 6, 5, 4, 9, 3, 3, 2, 1, 0, 1, 1, 1, 0, 0, 3, true},  // grouped
    {1, 4, 4, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 0, 0, 4, true},  // depthwise
    {1, 2, 4, 3, 3, 3, 2, 1, 3, 0, 1, 2, 1, 1, 2, 1, true},  // dilation, output padding
    {1, 1, 1, 1, 2, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, true},  // one pixel
};

template <typename T> void checkConvTranspose(const ConvTransposeCase &c) {
  CAPTURE(c.C);
  CAPTURE(c.groups);
  Context context;
  const int64_t OH =
      (c.H - 1) * c.stride_h - 2 * c.pad_h + c.dil_h * (c.KH - 1) + c.out_pad_h + 1;
  const int64_t OW =
      (c.W - 1) * c.stride_w - 2 * c.pad_w + c.dil_w * (c.KW - 1) + c.out_pad_w + 1;
  const Array<T> x = randomArray<T>(c.N * c.C * c.H * c.W, -1, 1, 151);
  const Array<T> weight = randomArray<T>(c.C * (c.O / c.groups) * c.KH * c.KW, -1, 1, 157);
  const Array<T> bias = randomArray<T>(c.O, -1, 1, 163);
  Array<T> want(c.N * c.O * OH * OW);
  using F = tc::compute_t<T>;
  const int64_t size = tc::conv_transpose2d_workspace_size(c.O, c.KH, c.KW, c.H, c.W, OW);
  std::vector<F> cpuWorkspace(static_cast<size_t>(size));
  tc::conv_transpose2d(x.data(), c.N, c.C, c.H, c.W, weight.data(), c.O, c.KH, c.KW,
                       c.bias ? bias.data() : nullptr, c.stride_h, c.stride_w, c.pad_h, c.pad_w,
                       c.dil_h, c.dil_w, c.groups, want.data(), OH, OW, cpuWorkspace.data());
  Buffer<T> dx(x), dw(weight), db(bias), y(want.size());
  CHECK(tcg::conv_transpose2d_workspace_size(c.O, c.KH, c.KW, c.H, c.W, OW) == size);
  Buffer<F> workspace(size);
  REQUIRE_OK(tcg::conv_transpose2d(context.ex, dx.data(), c.N, c.C, c.H, c.W, dw.data(), c.O,
                                   c.KH, c.KW, c.bias ? db.data() : nullptr, c.stride_h,
                                   c.stride_w, c.pad_h, c.pad_w, c.dil_h, c.dil_w, c.groups,
                                   y.data(), OH, OW, workspace.data()));
  // Each output sums C / groups * KH * KW products below 1 in magnitude, in float.
  const double accumulation = std::is_same<T, double>::value ? 1e-13 : unitRoundoff<float>();
  expectNear(y.read(), want, 2 * unitRoundoff<T>(),
             accumulation * static_cast<double>(c.C / c.groups * c.KH * c.KW + 2));
}

TEST_CASE("tcg::conv_transpose2d: GEMM + col2im, grouped, dilated, output padding") {
  for (const ConvTransposeCase &c : kConvTransposeCases) {
    checkConvTranspose<float>(c);
    checkConvTranspose<tc::half>(c);
  }
  checkConvTranspose<double>(kConvTransposeCases[2]);
  checkConvTranspose<tc::bfloat16>(kConvTransposeCases[4]);
}

// ---- attention ----

enum class Mask { none, boolean, additive };

struct AttentionCase {
  int64_t batch, L, S, E, Ev;
  Mask mask;
  bool causal;
};

template <typename T> void checkAttention(const AttentionCase &a) {
  CAPTURE(a.L);
  CAPTURE(a.S);
  CAPTURE(a.E);
  CAPTURE(a.Ev);
  Context context;
  const Array<T> q = randomArray<T>(a.batch * a.L * a.E, -1, 1, 149);
  const Array<T> k = randomArray<T>(a.batch * a.S * a.E, -1, 1, 151);
  const Array<T> v = randomArray<T>(a.batch * a.S * a.Ev, -1, 1, 157);
  const int64_t maskSize = a.batch * a.L * a.S;
  Array<uint8_t> boolMask = randomArray<uint8_t>(maskSize, 0, 3, 163); // 1/3 masked
  Array<T> additiveMask = randomArray<T>(maskSize, -2, 0, 167);
  if (a.L > 2 && a.S > 0) // row 1 of batch 0 fully masked: zeros
    for (int64_t j = 0; j < a.S; ++j) {
      boolMask[a.S + j] = 0;
      additiveMask[a.S + j] = tc::cast<T>(-tc::infinity<double>());
    }
  const void *hostMask = a.mask == Mask::boolean    ? static_cast<const void *>(boolMask.data())
                         : a.mask == Mask::additive ? additiveMask.data()
                                                    : nullptr;
  const double scale = 1.0 / std::sqrt(static_cast<double>(a.E > 0 ? a.E : 1));
  Array<T> want(a.batch * a.L * a.Ev);
  Array<double> cpuWorkspace(tc::attention_workspace_size(a.batch, a.L, a.S, a.Ev));
  tc::attention(q.data(), k.data(), v.data(), a.batch, a.L, a.S, a.E, a.Ev, hostMask,
                a.mask == Mask::boolean, scale, a.causal, want.data(), cpuWorkspace.data());
  Buffer<T> dq(q), dk(k), dv(v), y(want.size()), additive(additiveMask);
  Buffer<uint8_t> boolean(boolMask);
  Buffer<double> workspace(tcg::attention_workspace_size(a.batch, a.L, a.S, a.Ev));
  const void *deviceMask = a.mask == Mask::boolean    ? static_cast<const void *>(boolean.data())
                           : a.mask == Mask::additive ? additive.data()
                                                      : nullptr;
  REQUIRE_OK(tcg::attention(context.ex, dq.data(), dk.data(), dv.data(), a.batch, a.L, a.S, a.E,
                            a.Ev, deviceMask, a.mask == Mask::boolean, scale, a.causal, y.data(),
                            workspace.data()));
  // Float scores (E terms below 1: error ~E * 2^-24 before scaling), float online softmax
  // (one rescale per tile) and float accumulation of <= S weighted values below 1 keep the
  // outputs (|y| < 1) within ~1e-5 of the double reference; reduced types round once more.
  const double tolerance = std::is_same<T, double>::value ? 1e-12 : 2e-5;
  expectNear(y.read(), want, tolerance + 2 * unitRoundoff<T>(), tolerance + 2 * unitRoundoff<T>());
}

TEST_CASE("tcg::attention: masks, causal with L != S, masked rows, head sizes, types") {
  const AttentionCase cases[] = {
      {2, 7, 13, 8, 5, Mask::none, false},
      {3, 33, 20, 16, 16, Mask::boolean, false}, // a fully masked row
      {2, 20, 33, 64, 64, Mask::additive, true}, // causal, L < S
      {1, 40, 9, 32, 130, Mask::none, true},     // causal, L > S; Ev > 128
      {1, 5, 70, 256, 256, Mask::boolean, true}, // > 48 KiB of shared memory: opt-in
      {1, 70, 100, 16, 16, Mask::none, true},    // causal: later row blocks stream more
      {4, 1, 50, 64, 64, Mask::additive, false}, // one query row (decoding)
      {2, 3, 0, 8, 8, Mask::none, false},        // no keys: zeros
      {1, 4, 6, 0, 3, Mask::none, false},        // E = 0: uniform weights
      // Decode-shaped: keys split over blocks (flash-decoding), partial states merged.
      {4, 1, 700, 64, 64, Mask::additive, false},  // 6 splits of 4 tiles (the last shorter)
      {2, 3, 1000, 32, 40, Mask::boolean, false},  // a fully masked row across all splits
      {1, 8, 300, 16, 16, Mask::none, true},       // causal: splits past the keys are empty
      {3, 2, 4100, 64, 64, Mask::none, false},     // more keys than the 32 splits cover evenly
  };
  for (const AttentionCase &a : cases)
    checkAttention<float>(a);
  checkAttention<tc::half>({2, 17, 19, 24, 24, Mask::additive, false});
  checkAttention<tc::bfloat16>({1, 9, 40, 64, 32, Mask::boolean, true});
  checkAttention<double>({1, 35, 33, 256, 256, Mask::none, false});
  checkAttention<tc::bfloat16>({1, 1, 513, 64, 64, Mask::none, false});
  checkAttention<double>({2, 2, 600, 128, 128, Mask::additive, false});
}

TEST_CASE("tcg::attention splits decode-shaped keys only with a workspace") {
  // The same decode call with and without a workspace (no split) gives the same values.
  Context context;
  const int64_t batch = 2, L = 1, S = 900, E = 32, Ev = 32;
  CHECK(tcg::attention_workspace_size(batch, L, S, Ev) == 8 * batch * L * (Ev + 2));
  CHECK(tcg::attention_workspace_size(batch, 9, S, Ev) == 1); // more rows than a split takes
  CHECK(tcg::attention_workspace_size(batch, L, 255, Ev) == 1); // too few keys to split
  const Array<float> q = randomArray<float>(batch * L * E, -1, 1, 3);
  const Array<float> k = randomArray<float>(batch * S * E, -1, 1, 5);
  const Array<float> v = randomArray<float>(batch * S * Ev, -1, 1, 7);
  Buffer<float> dq(q), dk(k), dv(v), split(batch * L * Ev), whole(batch * L * Ev);
  Array<double> sentinel(tcg::attention_workspace_size(batch, L, S, Ev));
  for (int64_t i = 0; i < sentinel.size(); ++i)
    sentinel[i] = 12345.0;
  Buffer<double> workspace(sentinel);
  REQUIRE_OK(tcg::attention(context.ex, dq.data(), dk.data(), dv.data(), batch, L, S, E, Ev,
                            nullptr, false, 0.2, false, split.data(), workspace.data()));
  const Array<double> after = workspace.read();
  int64_t written = 0; // the partial states went through the workspace
  for (int64_t i = 0; i < after.size(); ++i)
    written += after[i] != 12345.0 ? 1 : 0;
  CHECK(written > after.size() / 4);
  REQUIRE_OK(tcg::attention(context.ex, dq.data(), dk.data(), dv.data(), batch, L, S, E, Ev,
                            nullptr, false, 0.2, false, whole.data(), nullptr));
  expectNear(split.read(), whole.read(), 1e-6, 1e-6);
}

TEST_CASE("zero-size calls do nothing and succeed") {
  Context context;
  float *none = nullptr; // nothing may be touched, so no buffer is needed
  REQUIRE_OK(tcg::reduce(context.ex, tcg::reduce_kind::sum, none, 0, 5, 1, none));
  REQUIRE_OK(tcg::argmax<float>(context.ex, none, 3, 4, 0, nullptr));
  REQUIRE_OK(tcg::softmax(context.ex, none, 0, 7, 1, false, none));
  REQUIRE_OK(tcg::layer_norm<float>(context.ex, none, 0, 7, nullptr, nullptr, 1e-5, none));
  REQUIRE_OK(tcg::batch_norm<float>(context.ex, none, 0, 3, 5, none, none, none, none, 1e-5, none));
  REQUIRE_OK(tcg::gemm<float>(context.ex, 2, 0, 3, 4, none, 0, false, none, 0, false, 1, 0, none));
  REQUIRE_OK(tcg::conv2d<float>(context.ex, none, 0, 3, 5, 5, none, 4, 3, 3, nullptr, 1, 1, 1, 1, 1,
                                1, 1, none, 5, 5, none));
  REQUIRE_OK(
      tcg::max_pool2d<float>(context.ex, none, 2, 0, 5, 5, 2, 2, 2, 2, 0, 0, 1, 1, none, 2, 2));
  REQUIRE_OK(tcg::attention<float>(context.ex, none, none, none, 2, 0, 5, 8, 8, nullptr, false, 1.0,
                                   true, none, nullptr));
  REQUIRE_OK(tcg::embedding<float, int64_t>(context.ex, none, 4, 8, nullptr, 0, none));
  REQUIRE_OK(tcg::fill<float>(context.ex, none, 0, 1.0));
}

TEST_CASE("tcg::attention refuses head dimensions above 256") {
  Context context;
  Buffer<float> q(257), k(257), v(257), y(257);
  const tcg::result outcome =
      tcg::attention<float>(context.ex, q.data(), k.data(), v.data(), 1, 1, 1, 257, 1, nullptr,
                            false, 1.0, false, y.data(), nullptr);
  CHECK_FALSE(outcome.ok());
  CHECK(outcome.code == tcg::kUnsupported);
}

} // namespace
