// Tests of the integer GEMM of statically quantized linear layers
// (backend_cpu/kernels/tc_kernels_qgemm.h) and of tc::linear_wq_qx (tc_kernels_quant.h) against
// the reference interpreter's linear_wq {x_scale, x_zero}: u8 and i8 activations with zero
// points at both ends of their ranges, every row tail of the 12-row blocks, column tails of the
// 32-wide panels (and of AMX's 32-row blocks and 64-input tiles), inner dims that are not a
// multiple of 4, with and without bias -- on every kernel this CPU has (portable, AVX-512 VNNI,
// AMX-INT8), each called directly. The integer sums are exact, so the kernels must agree with
// each other bit for bit.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels_test_util.h"

using namespace kernels_test;

namespace {

struct QgemmCase {
  int64_t rows, n, k;
  bool signed_x;
  int64_t zero;
  bool bias;
};

const std::vector<QgemmCase> kCases = {
    {1, 1, 1, false, 0, false},     {1, 37, 5, false, 255, true},  {3, 32, 64, true, -128, false},
    {12, 33, 70, false, 133, true}, {13, 64, 3, true, 127, true},  {25, 95, 130, true, 5, false},
    {7, 200, 257, false, 77, true}, {40, 31, 768, false, 128, true}, {16, 64, 3, true, 0, true},
    {33, 70, 200, false, 255, false}, {64, 96, 1030, true, -100, true},
};

std::string describe(const QgemmCase &c) {
  return "rows " + std::to_string(c.rows) + " n " + std::to_string(c.n) + " k " +
         std::to_string(c.k) + (c.signed_x ? " i8" : " u8") + " zero " +
         std::to_string(c.zero) + (c.bias ? " bias" : "");
}

struct Operands {
  HostTensor x, q, scales, bias;
  std::vector<HostTensor> all;
  AttrMap attrs;
  double x_scale = 0.0173;
};

std::vector<double> integers(int64_t count, uint64_t seed, double low, double high) {
  std::vector<double> values = randomValues(count, seed, low, high);
  for (double &value : values)
    value = std::floor(value);
  return values;
}

Operands operandsOf(const QgemmCase &c) {
  Operands o;
  const double low = c.signed_x ? -128.0 : 0.0;
  o.x = makeTensor(c.signed_x ? DType::I8 : DType::U8, {c.rows, c.k},
                   integers(c.rows * c.k, 81, low, low + 256.0));
  o.q = makeTensor(DType::I8, {c.n, c.k}, integers(c.n * c.k, 82, -128.0, 128.0));
  o.scales = randomTensor(DType::F32, {c.n, 1}, 83, 0.001, 0.05);
  o.bias = randomTensor(DType::F32, {c.n}, 84);
  o.all = {o.x, o.q, o.scales};
  if (c.bias)
    o.all.push_back(o.bias);
  o.attrs.set("bits", int64_t(8));
  o.attrs.set("has_zeros", false);
  o.attrs.set("x_scale", o.x_scale);
  o.attrs.set("x_zero", c.zero);
  return o;
}

/// The kernel's result for `c` through tc::qgemm::linear with `kernel`.
template <typename X>
std::vector<float> run(const QgemmCase &c, const Operands &o, tc::qgemm::Kernel kernel) {
  std::vector<X> x = typedOf<X>(o.x);
  std::vector<int8_t> q = typedOf<int8_t>(o.q);
  std::vector<float> scales = typedOf<float>(o.scales);
  std::vector<float> bias = typedOf<float>(o.bias);
  std::vector<int8_t> packed(static_cast<size_t>(tc::qgemm::packed_bytes(c.n, c.k)), 99);
  tc::qgemm::pack(c.n, c.k, q.data(), c.k, packed.data());
  std::vector<float> out(static_cast<size_t>(c.rows * c.n), std::nanf(""));
  tc::qgemm::linear(kernel, c.rows, c.n, c.k, x.data(), static_cast<float>(o.x_scale),
                    static_cast<int32_t>(c.zero), packed.data(), scales.data(),
                    c.bias ? bias.data() : nullptr, out.data());
  return out;
}

std::vector<float> runCase(const QgemmCase &c, const Operands &o, tc::qgemm::Kernel kernel) {
  return c.signed_x ? run<int8_t>(c, o, kernel) : run<uint8_t>(c, o, kernel);
}

// The kernels scale an exact integer sum once; the interpreter, as eager, rounds every
// dequantized x and w to float first: k products of up to 255 * 128 * 0.05 * 0.0173 = 28 with
// float's relative error each, so the difference grows with k (measured: 1.7e-5 at k = 1030).
double gemmTolerance(const QgemmCase &c) { return 1e-5 * std::max(1.0, c.k / 128.0); }
constexpr double kTolerance = 1e-5; // k <= 128

} // namespace

TEST_CASE("kernels: the packed int8 weight holds 4-byte groups per column and column sums") {
  const int64_t n = 35, k = 6;
  std::vector<int8_t> q(static_cast<size_t>(n * k));
  for (size_t i = 0; i < q.size(); ++i)
    q[i] = static_cast<int8_t>(static_cast<int64_t>(i % 251) - 125);
  std::vector<int8_t> packed(static_cast<size_t>(tc::qgemm::packed_bytes(n, k)), 99);
  tc::qgemm::pack(n, k, q.data(), k, packed.data());
  CHECK(tc::qgemm::panels_of(n) == 2);
  CHECK(tc::qgemm::groups_of(k) == 2);
  CHECK(packed.size() == size_t(2 * (2 * 128 + 128)));
  const int64_t panel_bytes = tc::qgemm::panel_bytes(k);
  for (int64_t j = 0; j < 64; ++j) {
    const int8_t *panel = packed.data() + (j / 32) * panel_bytes;
    int32_t sum = 0;
    for (int64_t p = 0; p < 8; ++p) {
      const int8_t want = j < n && p < k ? q[static_cast<size_t>(j * k + p)] : int8_t{0};
      CHECK(panel[(p / 4) * 128 + (j % 32) * 4 + p % 4] == want);
      sum += want;
    }
    int32_t stored;
    std::memcpy(&stored, panel + 2 * 128 + (j % 32) * 4, sizeof stored);
    CHECK(stored == sum);
  }
  // CPUs without VNNI or AMX take the float path on the unpacked weight.
  std::vector<int8_t> unpacked(q.size(), 99);
  tc::qgemm::unpack(n, k, packed.data(), unpacked.data());
  CHECK(unpacked == q);
  MESSAGE("the quantized layers run "
          << std::string(tc::qgemm::integer_gemm_preferred() ? "the integer GEMM"
                                                             : "the float path")
          << " here");
}

TEST_CASE("kernels: the integer GEMM matches the interpreter on every kernel") {
  using tc::qgemm::Kernel;
  for (Kernel kernel : {Kernel::vnni, Kernel::amx})
    if (!tc::qgemm::kernel_available(kernel))
      MESSAGE("this CPU (or OS) has no " << std::string(tc::qgemm::kernel_name(kernel))
                                         << "; its kernel is not run");
  MESSAGE("linear_wq_qx runs the " << std::string(tc::qgemm::kernel_name(
                                          tc::qgemm::best_kernel()))
                                   << " kernel here");
  for (const QgemmCase &c : kCases) {
    Operands o = operandsOf(c);
    std::vector<double> expected = interpretOp(OpKind::LinearWq, o.all, o.attrs);
    INFO(describe(c));
    std::vector<float> portable = runCase(c, o, Kernel::portable);
    checkValues(doublesOf(portable), expected, gemmTolerance(c));
    for (Kernel kernel : {Kernel::vnni, Kernel::amx}) {
      if (!tc::qgemm::kernel_available(kernel))
        continue;
      INFO(tc::qgemm::kernel_name(tc::qgemm::kernel_for(kernel, c.rows)));
      std::vector<float> fast = runCase(c, o, kernel);
      // Exact integer sums, one rounding in the epilogue: the same bits.
      CHECK(std::memcmp(fast.data(), portable.data(), fast.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("kernels: the integer GEMM runs on the model's threads") {
  const QgemmCase c{30, 100, 96, false, 9, true}; // k <= 128: kTolerance
  Operands o = operandsOf(c);
  std::vector<double> expected = interpretOp(OpKind::LinearWq, o.all, o.attrs);
  tc_pool *pool = nullptr;
  tc_error err{};
  REQUIRE(tc_pool_create(2, &pool, &err) == TC_OK);
  {
    tc::PoolScope scope(pool);
    std::vector<float> out = runCase(c, o, tc::qgemm::best_kernel());
    checkValues(doublesOf(out), expected, kTolerance);
  }
  tc_pool_destroy(pool);
}

TEST_CASE("kernels: linear_wq_qx takes the integer GEMM or dequantizes x") {
  // Packed per call, pre-packed, and the float paths: per-group scales, zero points, int4.
  const QgemmCase c{5, 40, 64, true, -3, true}; // k <= 128: kTolerance
  Operands o = operandsOf(c);
  std::vector<double> expected = interpretOp(OpKind::LinearWq, o.all, o.attrs);
  std::vector<int8_t> x = typedOf<int8_t>(o.x);
  std::vector<int8_t> q = typedOf<int8_t>(o.q);
  std::vector<float> scales = typedOf<float>(o.scales);
  std::vector<float> bias = typedOf<float>(o.bias);
  std::vector<float> out(static_cast<size_t>(c.rows * c.n), std::nanf(""));
  tc::linear_wq_qx<int8_t, int8_t, float>(c.rows, c.n, c.k, 1, x.data(), o.x_scale, c.zero,
                                          q.data(), scales.data(), nullptr, bias.data(),
                                          out.data());
  checkValues(doublesOf(out), expected, kTolerance);
  std::vector<int8_t> packed(static_cast<size_t>(tc::qgemm::packed_bytes(c.n, c.k)));
  tc::qgemm::pack(c.n, c.k, q.data(), c.k, packed.data());
  std::vector<float> prepacked(out.size(), std::nanf(""));
  tc::linear_wq_qx<int8_t, int8_t, float>(c.rows, c.n, c.k, 1, x.data(), o.x_scale, c.zero,
                                          packed.data(), scales.data(), nullptr, bias.data(),
                                          prepacked.data(), true);
  CHECK(std::memcmp(prepacked.data(), out.data(), out.size() * sizeof(float)) == 0);

  // Per-group scales and zero points: x dequantized to float, then linear_wq's float path.
  HostTensor grouped = randomTensor(DType::F32, {c.n, 2}, 85, 0.001, 0.05);
  std::vector<double> zeroValues(static_cast<size_t>(c.n * 2));
  for (size_t i = 0; i < zeroValues.size(); ++i)
    zeroValues[i] = static_cast<double>(static_cast<int64_t>(i % 7) - 3);
  HostTensor zeros = makeTensor(DType::F32, {c.n, 2}, zeroValues);
  AttrMap attrs = o.attrs;
  attrs.set("has_zeros", true);
  expected = interpretOp(OpKind::LinearWq, {o.x, o.q, grouped, zeros, o.bias}, attrs);
  std::vector<float> groupScales = typedOf<float>(grouped);
  std::vector<float> groupZeros = typedOf<float>(zeros);
  std::vector<float> dequantized(out.size(), std::nanf(""));
  tc::linear_wq_qx<int8_t, int8_t, float>(c.rows, c.n, c.k, 2, x.data(), o.x_scale, c.zero,
                                          q.data(), groupScales.data(), groupZeros.data(),
                                          bias.data(), dequantized.data());
  // The float path sums float products: 1e-4 as linear_wq's own test.
  checkValues(doublesOf(dequantized), expected, 1e-4);
}

namespace {

struct ConvCase {
  int64_t n, c, h, w, o, kh, kw, stride, pad, dil, groups;
  bool signed_x, zeros, bias;
};

std::string describe(const ConvCase &c) {
  return "x [" + std::to_string(c.n) + "," + std::to_string(c.c) + "," + std::to_string(c.h) +
         "," + std::to_string(c.w) + "] weight [" + std::to_string(c.o) + ",_," +
         std::to_string(c.kh) + "," + std::to_string(c.kw) + "] stride " +
         std::to_string(c.stride) + " pad " + std::to_string(c.pad) + " dilation " +
         std::to_string(c.dil) + " groups " + std::to_string(c.groups) +
         (c.signed_x ? " i8" : " u8") + (c.zeros ? " zeros" : "") + (c.bias ? " bias" : "");
}

} // namespace

TEST_CASE("kernels: conv2d_wq matches the interpreter (integer GEMM and float paths)") {
  // 3x3 padded and strided (the padding reads the zero point), 1x1, dilated, a 7x7 stem with
  // many output pixels (AMX's 32-row blocks with a tail); groups and weight zero points take
  // the float path.
  const std::vector<ConvCase> cases = {
      {2, 4, 9, 9, 6, 3, 3, 2, 1, 1, 1, false, false, true},
      {1, 16, 5, 7, 33, 1, 1, 1, 0, 1, 1, true, false, false},
      {1, 3, 11, 10, 8, 3, 3, 1, 2, 2, 1, true, false, true},
      {1, 3, 20, 20, 16, 7, 7, 2, 3, 1, 1, false, false, true},
      {2, 4, 6, 6, 6, 3, 3, 1, 1, 1, 2, false, false, true},
      {1, 4, 6, 6, 5, 3, 3, 1, 1, 1, 1, true, true, false},
  };
  for (const ConvCase &c : cases) {
    INFO(describe(c));
    const double low = c.signed_x ? -128.0 : 0.0;
    const int64_t zero = c.signed_x ? -5 : 140;
    const double scale = 0.021;
    HostTensor x = makeTensor(c.signed_x ? DType::I8 : DType::U8, {c.n, c.c, c.h, c.w},
                              integers(c.n * c.c * c.h * c.w, 91, low, low + 256.0));
    const int64_t taps = c.c / c.groups * c.kh * c.kw;
    HostTensor q = makeTensor(DType::I8, {c.o, c.c / c.groups, c.kh, c.kw},
                              integers(c.o * taps, 92, -128.0, 128.0));
    HostTensor scales = randomTensor(DType::F32, {c.o, 1}, 93, 0.001, 0.05);
    HostTensor zeros = makeTensor(DType::F32, {c.o, 1}, integers(c.o, 94, -3.0, 4.0));
    HostTensor bias = randomTensor(DType::F32, {c.o}, 95);
    std::vector<HostTensor> operands{x, q, scales};
    if (c.zeros)
      operands.push_back(zeros);
    if (c.bias)
      operands.push_back(bias);
    AttrMap attrs;
    attrs.set("stride", std::vector<int64_t>{c.stride, c.stride});
    attrs.set("padding", std::vector<int64_t>{c.pad, c.pad});
    attrs.set("dilation", std::vector<int64_t>{c.dil, c.dil});
    attrs.set("groups", c.groups);
    attrs.set("has_zeros", c.zeros);
    attrs.set("x_scale", scale);
    attrs.set("x_zero", zero);
    std::vector<double> expected = interpretOp(OpKind::Conv2dWq, operands, attrs);
    const int64_t oh = (c.h + 2 * c.pad - c.dil * (c.kh - 1) - 1) / c.stride + 1;
    const int64_t ow = (c.w + 2 * c.pad - c.dil * (c.kw - 1) - 1) / c.stride + 1;
    REQUIRE(static_cast<int64_t>(expected.size()) == c.n * c.o * oh * ow);
    std::vector<int8_t> qv = typedOf<int8_t>(q);
    std::vector<float> sv = typedOf<float>(scales), zv = typedOf<float>(zeros),
                       bv = typedOf<float>(bias);
    auto run = [&](const auto &xv, const int8_t *weight, bool packed) {
      std::vector<float> out(expected.size(), std::nanf(""));
      using X = typename std::decay_t<decltype(xv)>::value_type;
      tc::conv2d_wq<X, int8_t, float>(xv.data(), c.n, c.c, c.h, c.w, scale, zero, weight, c.o,
                                      c.kh, c.kw, sv.data(), c.zeros ? zv.data() : nullptr,
                                      c.bias ? bv.data() : nullptr, c.stride, c.stride, c.pad,
                                      c.pad, c.dil, c.dil, c.groups, out.data(), oh, ow, packed);
      return out;
    };
    std::vector<float> got = c.signed_x ? run(typedOf<int8_t>(x), qv.data(), false)
                                        : run(typedOf<uint8_t>(x), qv.data(), false);
    // Exact integer sums scaled once against float products summed in double (k <= 147).
    checkValues(doublesOf(got), expected, 2e-5);
    if (c.groups == 1 && !c.zeros) {
      std::vector<int8_t> packed(static_cast<size_t>(tc::qgemm::packed_bytes(c.o, taps)));
      tc::qgemm::pack(c.o, taps, qv.data(), taps, packed.data());
      std::vector<float> prepacked = c.signed_x ? run(typedOf<int8_t>(x), packed.data(), true)
                                                : run(typedOf<uint8_t>(x), packed.data(), true);
      CHECK(std::memcmp(prepacked.data(), got.data(), got.size() * sizeof(float)) == 0);
    }
  }
}
