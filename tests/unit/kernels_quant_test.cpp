// Tests of the weight-only quantized linear kernels (backend_cpu/kernels/tc_kernels_quant.h)
// against the reference interpreter's linear_wq: int8 and packed int4 weights, per-channel and
// per-group scales, with and without zero points, every row count path (the GEMV's 1..4-row
// blocks, several blocks, the dequantize + gemm path), inner dims with and without vector
// tails -- on every instruction set this CPU has (scalar, AVX2, AVX-512), each called
// directly, so a machine with AVX-512 checks all three kernels.
#include <algorithm>
#include <cmath>

#include "kernels_test_util.h"

using namespace kernels_test;

namespace {

/// One linear_wq problem with its operands as the IR holds them.
struct QuantCase {
  int64_t rows, n, k, groups;
  bool packed, zeros, bias;
};

/// Packs int4 values [-8, 7] of [n, k] into the layout of ir/ops.def's linear_wq.
std::vector<double> pack(const std::vector<double> &values, int64_t n, int64_t k) {
  std::vector<double> bytes(static_cast<size_t>(n * k / 2));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t b = 0; b < k / 32; ++b)
      for (int64_t lane = 0; lane < 16; ++lane) {
        const double *row = values.data() + j * k + b * 32;
        auto low = static_cast<int64_t>(row[lane]) + 8;
        auto high = static_cast<int64_t>(row[lane + 16]) + 8;
        bytes[static_cast<size_t>(j * (k / 2) + b * 16 + lane)] =
            static_cast<double>(low | (high << 4));
      }
  return bytes;
}

struct Operands {
  HostTensor x, q, scales, zeros, bias;
  std::vector<HostTensor> all;
  AttrMap attrs;
};

Operands operandsOf(const QuantCase &c) {
  Operands o;
  o.x = randomTensor(DType::F32, {c.rows, c.k}, 71);
  std::vector<double> values = randomValues(c.n * c.k, 72, c.packed ? -8.0 : -128.0,
                                            c.packed ? 8.0 : 128.0);
  for (double &value : values)
    value = std::floor(value);
  o.q = c.packed ? makeTensor(DType::U8, {c.n, c.k / 2}, pack(values, c.n, c.k))
                 : makeTensor(DType::I8, {c.n, c.k}, values);
  o.scales = randomTensor(DType::F32, {c.n, c.groups}, 73, 0.001, 0.05);
  std::vector<double> zeroValues = randomValues(c.n * c.groups, 74, -3.0, 4.0);
  for (double &value : zeroValues)
    value = std::floor(value);
  o.zeros = makeTensor(DType::F32, {c.n, c.groups}, zeroValues);
  o.bias = randomTensor(DType::F32, {c.n}, 75);
  o.all = {o.x, o.q, o.scales};
  if (c.zeros)
    o.all.push_back(o.zeros);
  if (c.bias)
    o.all.push_back(o.bias);
  o.attrs.set("bits", int64_t(c.packed ? 4 : 8));
  o.attrs.set("has_zeros", c.zeros);
  return o;
}

const std::vector<QuantCase> kCases = {
    // rows 1 (decode), 3, 6 (two GEMV blocks), 17 (dequantize + gemm); k with a tail (40 =
    // 2 * 16 + 8 for AVX-512, 5 * 8 for AVX2) and without; per channel and per group.
    {1, 37, 40, 1, false, false, false},  {3, 37, 40, 1, false, true, true},
    {6, 19, 96, 3, false, true, false},   {17, 300, 40, 2, false, false, true},
    {1, 33, 64, 2, true, false, false},   {4, 33, 64, 1, true, true, true},
    {6, 20, 128, 4, true, true, false},   {17, 270, 64, 2, true, false, true},
    {2, 9, 64, 4, true, true, false}, // int4 groups of 16: the scalar kernel on every ISA
};

std::string describe(const QuantCase &c) {
  return "rows " + std::to_string(c.rows) + " n " + std::to_string(c.n) + " k " +
         std::to_string(c.k) + " groups " + std::to_string(c.groups) +
         (c.packed ? " int4" : " int8") + (c.zeros ? " zeros" : "") + (c.bias ? " bias" : "");
}

} // namespace

TEST_CASE("kernels: linear_wq matches the interpreter on every instruction set") {
  using tc::quant::Isa;
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512}) {
    if (!tc::quant::isa_available(isa)) {
      MESSAGE("this CPU has no " << std::string(tc::quant::isa_name(isa))
                                 << "; its kernel is not run");
      continue;
    }
    for (const QuantCase &c : kCases) {
      Operands o = operandsOf(c);
      std::vector<double> expected = interpretOp(OpKind::LinearWq, o.all, o.attrs);
      std::vector<float> x = typedOf<float>(o.x);
      std::vector<int8_t> q8 = c.packed ? std::vector<int8_t>() : typedOf<int8_t>(o.q);
      std::vector<uint8_t> q4 = c.packed ? typedOf<uint8_t>(o.q) : std::vector<uint8_t>();
      std::vector<float> scales = typedOf<float>(o.scales);
      std::vector<float> zeros = typedOf<float>(o.zeros);
      std::vector<float> bias = typedOf<float>(o.bias);
      tc::quant::Weight w;
      w.q8 = c.packed ? nullptr : q8.data();
      w.q4 = c.packed ? q4.data() : nullptr;
      w.k = c.k;
      w.groups = c.groups;
      w.group_size = c.k / c.groups;
      w.scales = scales.data();
      w.zeros = c.zeros ? zeros.data() : nullptr;
      std::vector<float> out(static_cast<size_t>(c.rows * c.n), std::nanf(""));
      tc::quant::linear_wq_float(isa, c.rows, c.n, x.data(), w, out.data());
      if (c.bias)
        for (int64_t r = 0; r < c.rows; ++r)
          for (int64_t j = 0; j < c.n; ++j)
            out[static_cast<size_t>(r * c.n + j)] += bias[static_cast<size_t>(j)];
      INFO(std::string(tc::quant::isa_name(isa)) << ": " << describe(c));
      // Float sums in another order than the interpreter's double ones: up to k products of
      // magnitude ~2 * 128 * 0.05 each, so 1e-4 relative (float's 6e-8 per step, k <= 128).
      checkValues(doublesOf(out), expected, 1e-4);
    }
  }
}

TEST_CASE("kernels: linear_wq picks the widest instruction set and converts dtypes") {
  using tc::quant::Isa;
  Isa best = tc::quant::best_isa();
  CHECK(tc::quant::isa_available(best));
  if (tc::quant::isa_available(Isa::avx512))
    CHECK(best == Isa::avx512);
  else if (tc::quant::isa_available(Isa::avx2))
    CHECK(best == Isa::avx2);
  MESSAGE("linear_wq runs the " << std::string(tc::quant::isa_name(best)) << " kernel here");

  // The typed entry point with bf16 activations, bias and scales (float inside).
  const QuantCase c{2, 24, 64, 2, true, true, true};
  Operands o = operandsOf(c);
  o.x = makeTensor(DType::BF16, {c.rows, c.k}, doublesOf(typedOf<tc::bfloat16>(o.x)));
  o.scales = makeTensor(DType::BF16, {c.n, c.groups}, doublesOf(typedOf<tc::bfloat16>(o.scales)));
  o.zeros = makeTensor(DType::BF16, {c.n, c.groups}, doublesOf(typedOf<tc::bfloat16>(o.zeros)));
  o.bias = makeTensor(DType::BF16, {c.n}, doublesOf(typedOf<tc::bfloat16>(o.bias)));
  o.all = {o.x, o.q, o.scales, o.zeros, o.bias};
  std::vector<double> expected = interpretOp(OpKind::LinearWq, o.all, o.attrs);
  std::vector<tc::bfloat16> x = typedOf<tc::bfloat16>(o.x);
  std::vector<uint8_t> q = typedOf<uint8_t>(o.q);
  std::vector<tc::bfloat16> scales = typedOf<tc::bfloat16>(o.scales);
  std::vector<tc::bfloat16> zeros = typedOf<tc::bfloat16>(o.zeros);
  std::vector<tc::bfloat16> bias = typedOf<tc::bfloat16>(o.bias);
  std::vector<tc::bfloat16> out(static_cast<size_t>(c.rows * c.n));
  tc::linear_wq<tc::bfloat16, uint8_t, tc::bfloat16>(c.rows, c.n, c.k, c.groups, x.data(),
                                                      q.data(), scales.data(), zeros.data(),
                                                      bias.data(), out.data());
  checkValues(doublesOf(out), expected, toleranceFor(DType::BF16));
}

TEST_CASE("kernels: linear_wq with dynamic int8 activations matches the interpreter") {
  // int4 weights, one scale per 32 inputs, x quantized per 32 at run time: the VNNI kernel
  // (k a multiple of 64), the scalar integer kernel (k = 96, or no VNNI), and the
  // fake-quantized float path for many rows.
  using tc::quant::Isa;
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512}) {
    if (!tc::quant::isa_available(isa))
      continue;
    for (const QuantCase &c : std::vector<QuantCase>{{1, 37, 64, 2, true, false, false},
                                                     {3, 21, 128, 4, true, false, true},
                                                     {2, 19, 96, 3, true, false, false},
                                                     {17, 40, 64, 2, true, false, true}}) {
      Operands o = operandsOf(c);
      o.attrs.set("dynamic_act", true);
      std::vector<double> expected = interpretOp(OpKind::LinearWq, o.all, o.attrs);
      std::vector<float> x = typedOf<float>(o.x);
      std::vector<uint8_t> q4 = typedOf<uint8_t>(o.q);
      std::vector<float> scales = typedOf<float>(o.scales);
      std::vector<float> bias = typedOf<float>(o.bias);
      tc::quant::Weight w;
      w.q4 = q4.data();
      w.k = c.k;
      w.groups = c.groups;
      w.group_size = 32;
      w.scales = scales.data();
      w.dynamic_act = true;
      std::vector<float> out(static_cast<size_t>(c.rows * c.n), std::nanf(""));
      tc::quant::linear_wq_float(isa, c.rows, c.n, x.data(), w, out.data());
      if (c.bias)
        for (int64_t r = 0; r < c.rows; ++r)
          for (int64_t j = 0; j < c.n; ++j)
            out[static_cast<size_t>(r * c.n + j)] += bias[static_cast<size_t>(j)];
      INFO(std::string(tc::quant::isa_name(isa))
           << (tc::quant::isa_has_dot(isa) ? " with VNNI" : "") << ": " << describe(c));
      // The integer block sums are exact; only float scaling and summation order differ.
      checkValues(doublesOf(out), expected, 1e-4);
    }
  }
  // Against the plain int4 kernel: quantizing x costs at most ~1% here (|x| < 2, 32 per block).
  const QuantCase c{1, 16, 64, 2, true, false, false};
  Operands o = operandsOf(c);
  std::vector<double> exact = interpretOp(OpKind::LinearWq, o.all, o.attrs);
  o.attrs.set("dynamic_act", true);
  std::vector<double> quantized = interpretOp(OpKind::LinearWq, o.all, o.attrs);
  double worst = 0.0, range = 0.0;
  for (size_t i = 0; i < exact.size(); ++i) {
    worst = std::max(worst, std::fabs(exact[i] - quantized[i]));
    range = std::max(range, std::fabs(exact[i]));
  }
  CHECK(worst > 0.0);
  CHECK(worst < 0.02 * range);
}
