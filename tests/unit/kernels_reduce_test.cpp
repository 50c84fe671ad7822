// Tests of the kernel library's reductions and row-wise composites
// (backend_cpu/kernels/tc_kernels_reduce.h, tc_kernels_nn.h) against the reference
// interpreter: sum/mean/amax/amin/prod/any/var/argmax, cumsum, softmax and log_softmax, layer_norm,
// batch_norm and attention (masks, causal, fully masked rows).
#include "kernels_test_util.h"

using namespace kernels_test;

namespace {

/// x [shape] reduced over the contiguous dims [first, last] as [outer, extent, inner].
struct Split {
  int64_t outer = 1;
  int64_t extent = 1;
  int64_t inner = 1;
};

Split splitAround(const std::vector<int64_t> &shape, int64_t first, int64_t last) {
  Split split;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    int64_t dim = shape[static_cast<size_t>(d)];
    if (d < first)
      split.outer *= dim;
    else if (d <= last)
      split.extent *= dim;
    else
      split.inner *= dim;
  }
  return split;
}

struct ReduceCase {
  std::vector<int64_t> shape;
  int64_t first, last; // reduced dims, contiguous
};

const ReduceCase kReduceCases[] = {
    {{3, 5, 4}, 1, 1},   {{3, 5, 4}, 0, 0},    {{3, 5, 4}, 2, 2},   {{3, 5, 4}, 0, 2},
    {{2, 3, 4, 5}, 1, 2}, {{7}, 0, 0},          {{1, 1, 1}, 1, 1},   {{2, 300, 3}, 1, 1},
    {{3, 4, 130}, 1, 1}, {{2, 0, 3}, 0, 0},    {{0, 4}, 1, 1},      {{4, 1, 6}, 1, 1},
};

std::vector<int64_t> reducedDims(const ReduceCase &c) {
  std::vector<int64_t> dims;
  for (int64_t d = c.first; d <= c.last; ++d)
    dims.push_back(d);
  return dims;
}

template <typename T, typename Out>
void checkReduction(tc::reduce_kind kind, OpKind op, const ReduceCase &c, double low, double high) {
  DType dtype = dtypeOf<T>();
  Split split = splitAround(c.shape, c.first, c.last);
  if ((kind == tc::reduce_kind::amax || kind == tc::reduce_kind::amin) && split.extent == 0)
    return; // an error in PyTorch and the interpreter
  HostTensor input = randomTensor(dtype, c.shape, 80, low, high);
  AttrMap attributes = attrs({{"dims", reducedDims(c)}, {"keepdim", false}});
  TensorType type = inferredType(op, {input}, attributes);
  REQUIRE(type.dtype == dtypeOf<Out>());
  std::vector<double> expected = evalOp(op, {input}, type, attributes);
  std::vector<T> x = typedOf<T>(input);
  Buffer<Out> y(expected.size());
  tc::reduce(kind, x.data(), split.outer, split.extent, split.inner,
             reinterpret_cast<Out *>(y.data()));
  std::vector<double> actual;
  for (auto value : y)
    actual.push_back(tc::cast<double>(static_cast<Out>(value)));
  INFO(opName(op) << " " << dtypeName(dtype) << " " << shapeString(c.shape) << " dims "
                  << c.first << ".." << c.last);
  checkValues(actual, expected, toleranceFor(dtypeOf<Out>()));
}

template <typename T> void checkFloatingReductions() {
  for (const ReduceCase &c : kReduceCases) {
    checkReduction<T, T>(tc::reduce_kind::sum, OpKind::Sum, c, -2, 2);
    checkReduction<T, T>(tc::reduce_kind::mean, OpKind::Mean, c, -2, 2);
    checkReduction<T, T>(tc::reduce_kind::amax, OpKind::Amax, c, -2, 2);
    checkReduction<T, T>(tc::reduce_kind::amin, OpKind::Amin, c, -2, 2);
    checkReduction<T, T>(tc::reduce_kind::prod, OpKind::Prod, c, 0.5, 1.6);
  }
}

} // namespace

TEST_CASE_TEMPLATE("kernels: reduce matches sum, mean, amax, amin and prod", T, float, double,
                   tc::half, tc::bfloat16) {
  checkFloatingReductions<T>();
}

TEST_CASE("kernels: integer reductions are exact") {
  for (const ReduceCase &c : kReduceCases) {
    checkReduction<int64_t, int64_t>(tc::reduce_kind::sum, OpKind::Sum, c, -1000, 1000);
    checkReduction<int64_t, int64_t>(tc::reduce_kind::amax, OpKind::Amax, c, -1000, 1000);
    checkReduction<int64_t, int64_t>(tc::reduce_kind::amin, OpKind::Amin, c, -1000, 1000);
    checkReduction<int32_t, int64_t>(tc::reduce_kind::sum, OpKind::Sum, c, -1000, 1000);
    checkReduction<int32_t, int64_t>(tc::reduce_kind::prod, OpKind::Prod, c, -3, 4);
  }
  // Wrapping, where the interpreter's doubles would not be exact.
  std::vector<int64_t> big = {INT64_MAX, 1, 2};
  int64_t total = 0;
  tc::reduce(tc::reduce_kind::sum, big.data(), 1, 3, 1, &total);
  CHECK(total == INT64_MIN + 2);
  std::vector<int64_t> exact = {(int64_t{1} << 60) + 1, 1};
  tc::reduce(tc::reduce_kind::sum, exact.data(), 1, 2, 1, &total);
  CHECK(total == (int64_t{1} << 60) + 2);
  // sum of bool counts.
  bool flags[] = {true, false, true, true};
  tc::reduce(tc::reduce_kind::sum, flags, 1, 4, 1, &total);
  CHECK(total == 3);
}

TEST_CASE("kernels: amax/amin propagate NaN; empty reductions give their identities") {
  std::vector<float> x = {1, NAN, 3, 4, 5, 6}; // [2, 3] reduced over 3
  std::vector<float> y(2);
  tc::reduce(tc::reduce_kind::amax, x.data(), 2, 3, 1, y.data());
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 6);
  tc::reduce(tc::reduce_kind::amin, x.data(), 2, 3, 1, y.data());
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 4);
  float single = 0;
  tc::reduce(tc::reduce_kind::amax, x.data(), 1, 0, 1, &single);
  CHECK(single == -INFINITY);
  tc::reduce(tc::reduce_kind::prod, x.data(), 1, 0, 1, &single);
  CHECK(single == 1);
  tc::reduce(tc::reduce_kind::mean, x.data(), 1, 0, 1, &single);
  CHECK(std::isnan(single));
}

namespace {

template <typename T> void checkAnyVarArgmax() {
  DType dtype = dtypeOf<T>();
  for (const ReduceCase &c : kReduceCases) {
    Split split = splitAround(c.shape, c.first, c.last);
    INFO(dtypeName(dtype) << " " << shapeString(c.shape) << " dims " << c.first << ".." << c.last);
    // any: a sparse input, so that rows of all zeros occur.
    std::vector<double> sparse = randomValues(numelOf(c.shape), 81, -1, 1);
    for (double &value : sparse)
      value = value > 0.8 ? value : 0.0;
    HostTensor zeros = makeTensor(dtype, c.shape, sparse);
    AttrMap anyAttributes = attrs({{"dims", reducedDims(c)}, {"keepdim", true}});
    std::vector<double> expectedAny = interpretOp(OpKind::Any, {zeros}, anyAttributes);
    std::vector<T> typedZeros = typedOf<T>(zeros);
    std::unique_ptr<bool[]> anyResult(new bool[expectedAny.size() + 1]);
    tc::reduce_any(typedZeros.data(), split.outer, split.extent, split.inner, anyResult.get());
    std::vector<double> actualAny;
    for (size_t i = 0; i < expectedAny.size(); ++i)
      actualAny.push_back(anyResult[i] ? 1.0 : 0.0);
    checkValues(actualAny, expectedAny, 0.0);

    HostTensor input = randomTensor(dtype, c.shape, 82, -3, 3);
    std::vector<T> x = typedOf<T>(input);
    for (double correction : {0.0, 1.0, 2.5}) {
      AttrMap varAttributes =
          attrs({{"dims", reducedDims(c)}, {"keepdim", false}, {"correction", correction}});
      std::vector<double> expected = interpretOp(OpKind::Var, {input}, varAttributes);
      std::vector<T> y(expected.size());
      tc::variance(x.data(), split.outer, split.extent, split.inner, correction, y.data());
      INFO("correction " << correction);
      checkValues(doublesOf(y), expected, toleranceFor(dtype));
    }
    if (c.first != c.last || split.extent == 0)
      continue;
    // argmax over one dim, with ties (values drawn from few integers) and a NaN.
    std::vector<double> ties = randomValues(numelOf(c.shape), 83, -3, 3);
    for (double &value : ties)
      value = std::floor(value);
    if (ties.size() > 7)
      ties[7] = kNaN;
    HostTensor tied = makeTensor(dtype, c.shape, ties);
    std::vector<double> expected =
        interpretOp(OpKind::Argmax, {tied}, attrs({{"dim", c.first}, {"keepdim", false}}));
    std::vector<T> typedTied = typedOf<T>(tied);
    std::vector<int64_t> indices(expected.size());
    tc::argmax(typedTied.data(), split.outer, split.extent, split.inner, indices.data());
    checkValues(doublesOf(indices), expected, 0.0);
  }
}

} // namespace

TEST_CASE_TEMPLATE("kernels: reduce_any, variance and argmax match the interpreter", T, float,
                   double, tc::half, tc::bfloat16) {
  checkAnyVarArgmax<T>();
}

TEST_CASE("kernels: reduce_any and argmax of integers") {
  std::vector<int64_t> x = {0, 0, 0, 5, -2, 5, 0, 7, 7}; // [3, 3]
  bool any[3];
  tc::reduce_any(x.data(), 3, 3, 1, any);
  CHECK(any[0] == false);
  CHECK(any[1] == true);
  CHECK(any[2] == true);
  int64_t index[3];
  tc::argmax(x.data(), 3, 3, 1, index);
  CHECK(index[0] == 0);
  CHECK(index[1] == 0);
  CHECK(index[2] == 1);
}

TEST_CASE_TEMPLATE("kernels: softmax and log_softmax match the interpreter", T, float, double,
                   tc::half, tc::bfloat16) {
  DType dtype = dtypeOf<T>();
  for (auto [shape, dim] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{4, 7}, 1}, {{4, 7}, 0}, {{2, 3, 5}, 1}, {{2, 3, 140}, 1}, {{9}, 0}, {{3, 1}, 1},
           {{2, 0, 3}, 2}, {{3, 4}, -1}}) {
    std::vector<double> values = randomValues(numelOf(shape), 84, -20, 20);
    if (values.size() >= 12) { // a row with -inf, a NaN, and a large value
      values[1] = -kInf;
      values[5] = kNaN;
      values[10] = 1e4;
    }
    HostTensor input = makeTensor(dtype, shape, values);
    int64_t d = dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim;
    Split split = splitAround(shape, d, d);
    std::vector<T> x = typedOf<T>(input);
    for (bool log : {false, true}) {
      std::vector<double> expected = interpretOp(log ? OpKind::LogSoftmax : OpKind::Softmax,
                                                 {input}, attrs({{"dim", dim}}));
      std::vector<T> y(expected.size());
      tc::softmax(x.data(), split.outer, split.extent, split.inner, log, y.data());
      // Streamed first: clang < 16 cannot capture structured bindings in INFO.
      std::ostringstream context;
      context << dtypeName(dtype) << (log ? " log_softmax " : " softmax ") << shapeString(shape)
              << " dim " << dim;
      INFO(context.str());
      checkValues(doublesOf(y), expected, toleranceFor(dtype));
    }
  }
  // A row of all -inf is NaN.
  std::vector<T> infinite(3, tc::cast<T>(-kInf));
  std::vector<T> y(3);
  tc::softmax(infinite.data(), 1, 3, 1, false, y.data());
  CHECK(std::isnan(tc::cast<double>(y[0])));
}

TEST_CASE_TEMPLATE("kernels: cumsum matches the interpreter", T, float, double, tc::half,
                   tc::bfloat16) {
  DType dtype = dtypeOf<T>();
  for (auto [shape, dim] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{4, 7}, 1}, {{4, 7}, 0}, {{2, 3, 5}, 1}, {{2, 3, 140}, 1}, {{9}, 0}, {{3, 1}, 1},
           {{2, 0, 3}, 2}, {{2, 0, 3}, 1}, {{3, 4}, -1}}) {
    HostTensor input = randomTensor(dtype, shape, 85, -2, 2);
    int64_t d = dim < 0 ? dim + static_cast<int64_t>(shape.size()) : dim;
    Split split = splitAround(shape, d, d);
    std::vector<T> x = typedOf<T>(input);
    std::vector<double> expected = interpretOp(OpKind::Cumsum, {input}, attrs({{"dim", dim}}));
    std::vector<T> y(expected.size());
    tc::cumsum(x.data(), split.outer, split.extent, split.inner, y.data());
    // Streamed first: clang < 16 cannot capture structured bindings in INFO.
    std::ostringstream context;
    context << dtypeName(dtype) << " cumsum " << shapeString(shape) << " dim " << dim;
    INFO(context.str());
    checkValues(doublesOf(y), expected, toleranceFor(dtype));
  }
}

TEST_CASE("kernels: cumsum of integers and bool is exact int64 and wraps") {
  std::vector<int32_t> x = {1, -2, 3, 4, 5, 6}; // [2, 3]
  int64_t y[6];
  tc::cumsum(x.data(), 1, 2, 3, y); // along dim 0
  CHECK(std::vector<int64_t>(y, y + 6) == std::vector<int64_t>{1, -2, 3, 5, 3, 9});
  bool flags[] = {true, false, true, true};
  tc::cumsum(flags, 1, 4, 1, y);
  CHECK(std::vector<int64_t>(y, y + 4) == std::vector<int64_t>{1, 1, 2, 3});
  std::vector<int64_t> big = {INT64_MAX, 1};
  tc::cumsum(big.data(), 1, 2, 1, y);
  CHECK(y[1] == INT64_MIN);
}

TEST_CASE_TEMPLATE("kernels: layer_norm and batch_norm match the interpreter", T, float, double,
                   tc::half, tc::bfloat16) {
  DType dtype = dtypeOf<T>();
  using ShapePair = std::pair<std::vector<int64_t>, std::vector<int64_t>>;
  for (auto [shape, normalized] : std::vector<ShapePair>{
           {{4, 7}, {7}}, {{2, 3, 5}, {3, 5}}, {{3, 1}, {1}}, {{0, 6}, {6}}, {{2, 200}, {200}}}) {
    HostTensor input = randomTensor(dtype, shape, 85, 5, 9); // an offset mean
    HostTensor weight = randomTensor(dtype, normalized, 86);
    HostTensor bias = randomTensor(dtype, normalized, 87);
    int64_t cols = numelOf(normalized);
    int64_t rows = numelOf(shape) / cols;
    std::vector<T> x = typedOf<T>(input);
    std::vector<T> w = typedOf<T>(weight);
    std::vector<T> b = typedOf<T>(bias);
    for (int affine = 0; affine < 3; ++affine) { // none, weight, weight + bias
      std::vector<HostTensor> inputs = {input};
      if (affine >= 1)
        inputs.push_back(weight);
      if (affine >= 2)
        inputs.push_back(bias);
      std::vector<double> expected = interpretOp(
          OpKind::LayerNorm, inputs, attrs({{"eps", 1e-5}, {"normalized_shape", normalized}}));
      std::vector<T> y(expected.size());
      tc::layer_norm(x.data(), rows, cols, affine >= 1 ? w.data() : nullptr,
                     affine >= 2 ? b.data() : nullptr, 1e-5, y.data());
      // Streamed first: clang < 16 cannot capture structured bindings in INFO.
      std::ostringstream context;
      context << dtypeName(dtype) << " layer_norm " << shapeString(shape) << " affine " << affine;
      INFO(context.str());
      checkValues(doublesOf(y), expected, toleranceFor(dtype));
    }
  }
  for (const std::vector<int64_t> &shape :
       std::vector<std::vector<int64_t>>{{2, 3, 4, 5}, {5, 4}, {0, 3, 2}, {1, 1, 1}, {2, 3, 7}}) {
    int64_t channels = shape[1];
    HostTensor input = randomTensor(dtype, shape, 88, -3, 3);
    HostTensor mean = randomTensor(dtype, {channels}, 89, -1, 1);
    HostTensor var = randomTensor(dtype, {channels}, 90, 0.1, 2);
    HostTensor weight = randomTensor(dtype, {channels}, 91);
    HostTensor bias = randomTensor(dtype, {channels}, 92);
    int64_t spatial = numelOf(shape) == 0 ? 0 : numelOf(shape) / (shape[0] * channels);
    if (numelOf(shape) == 0)
      spatial = numelOf(std::vector<int64_t>(shape.begin() + 2, shape.end()));
    std::vector<T> x = typedOf<T>(input);
    std::vector<T> m = typedOf<T>(mean);
    std::vector<T> v = typedOf<T>(var);
    std::vector<T> w = typedOf<T>(weight);
    std::vector<T> b = typedOf<T>(bias);
    for (bool affine : {false, true}) {
      std::vector<HostTensor> inputs = {input, mean, var};
      if (affine) {
        inputs.push_back(weight);
        inputs.push_back(bias);
      }
      std::vector<double> expected = interpretOp(OpKind::BatchNorm, inputs, attrs({{"eps", 1e-3}}));
      std::vector<T> y(expected.size());
      tc::batch_norm(x.data(), shape[0], channels, spatial, m.data(), v.data(),
                     affine ? w.data() : nullptr, affine ? b.data() : nullptr, 1e-3, y.data());
      INFO(dtypeName(dtype) << " batch_norm " << shapeString(shape) << " affine " << affine);
      checkValues(doublesOf(y), expected, toleranceFor(dtype));
    }
  }
}

namespace {

struct AttentionCase {
  int64_t batch, L, S, E, Ev;
  int mask; // 0 none, 1 bool, 2 additive
  bool causal;
  bool explicitScale;
};

// A mask and is_causal never come together (PyTorch and the verifier reject it); the kernel
// still composes them, checked separately below.
const AttentionCase kAttentionCases[] = {
    {2, 4, 5, 8, 8, 0, false, false},  {2, 4, 5, 8, 6, 0, true, false},
    {1, 6, 6, 4, 4, 1, false, true},   {1, 6, 6, 4, 4, 2, false, false},
    {3, 5, 3, 7, 5, 0, true, true},    {3, 3, 5, 7, 5, 2, false, true},
    {1, 1, 1, 1, 1, 0, false, false},  {1, 3, 70, 16, 80, 2, false, false},
    {2, 0, 4, 8, 8, 0, false, false},  {1, 3, 0, 4, 4, 0, false, false},
    {1, 5, 9, 3, 130, 1, false, false}, {1, 7, 4, 3, 5, 0, true, false},
};

template <typename T> void checkAttention(const AttentionCase &c) {
  DType dtype = dtypeOf<T>();
  HostTensor q = randomTensor(dtype, {c.batch, c.L, c.E}, 93);
  HostTensor k = randomTensor(dtype, {c.batch, c.S, c.E}, 94);
  HostTensor v = randomTensor(dtype, {c.batch, c.S, c.Ev}, 95);
  std::vector<HostTensor> inputs = {q, k, v};
  std::vector<int64_t> maskShape = {c.batch, c.L, c.S};
  std::vector<double> maskValues = randomValues(numelOf(maskShape), 96, -1, 1);
  if (c.mask == 1) {
    for (double &value : maskValues)
      value = value > -0.4 ? 1.0 : 0.0;
    if (c.L >= 2 && c.S >= 1) // a fully masked row
      for (int64_t j = 0; j < c.S; ++j)
        maskValues[static_cast<size_t>(c.S + j)] = 0.0;
    inputs.push_back(makeTensor(DType::Bool, maskShape, maskValues));
  } else if (c.mask == 2) {
    for (double &value : maskValues)
      value = value < -0.6 ? -kInf : value * 3;
    if (c.L >= 1 && c.S >= 1) // a fully masked row
      for (int64_t j = 0; j < c.S; ++j)
        maskValues[static_cast<size_t>(j)] = -kInf;
    inputs.push_back(makeTensor(dtype, maskShape, maskValues));
  }
  double scale = c.explicitScale ? 0.3 : 1.0 / std::sqrt(static_cast<double>(c.E));
  AttrMap attributes = attrs({{"is_causal", c.causal}});
  if (c.explicitScale)
    attributes.set("scale", scale);
  std::vector<double> expected = interpretOp(OpKind::Attention, inputs, attributes);
  std::vector<T> typedQ = typedOf<T>(q);
  std::vector<T> typedK = typedOf<T>(k);
  std::vector<T> typedV = typedOf<T>(v);
  std::vector<uint8_t> boolMask;
  std::vector<T> additiveMask;
  const void *mask = nullptr;
  if (c.mask == 1) {
    for (double value : maskValues)
      boolMask.push_back(value != 0.0 ? 1 : 0);
    mask = boolMask.data();
  } else if (c.mask == 2) {
    additiveMask = typedOf<T>(inputs.back());
    mask = additiveMask.data();
  }
  std::vector<double> workspace(static_cast<size_t>(tc::attention_workspace_size(c.batch, c.L, c.S, c.Ev)));
  std::vector<T> y(expected.size(), tc::cast<T>(kNaN));
  tc::attention(typedQ.data(), typedK.data(), typedV.data(), c.batch, c.L, c.S, c.E, c.Ev, mask,
                c.mask == 1, scale, c.causal, y.data(), workspace.data());
  INFO(dtypeName(dtype) << " attention batch " << c.batch << " L " << c.L << " S " << c.S << " E "
                        << c.E << " Ev " << c.Ev << " mask " << c.mask << " causal " << c.causal);
  checkValues(doublesOf(y), expected, toleranceFor(dtype));
}

} // namespace

TEST_CASE_TEMPLATE("kernels: attention matches the interpreter (masks, causal, empty rows)", T,
                   float, double, tc::half, tc::bfloat16) {
  for (const AttentionCase &c : kAttentionCases)
    checkAttention<T>(c);
}

TEST_CASE("kernels: attention composes causal with a mask") {
  const int64_t L = 4, S = 5, E = 3, Ev = 2;
  std::vector<double> q = randomValues(L * E, 97);
  std::vector<double> k = randomValues(S * E, 98);
  std::vector<double> v = randomValues(S * Ev, 99);
  std::vector<uint8_t> mask(static_cast<size_t>(L * S), 1);
  mask[2] = 0;
  mask[S + 1] = 0;
  std::vector<uint8_t> folded = mask; // mask AND j <= i
  for (int64_t i = 0; i < L; ++i)
    for (int64_t j = i + 1; j < S; ++j)
      folded[static_cast<size_t>(i * S + j)] = 0;
  std::vector<double> workspace(S);
  std::vector<double> both(L * Ev);
  std::vector<double> reference(L * Ev);
  tc::attention(q.data(), k.data(), v.data(), 1, L, S, E, Ev, mask.data(), true, 0.5, true,
                both.data(), workspace.data());
  tc::attention(q.data(), k.data(), v.data(), 1, L, S, E, Ev, folded.data(), true, 0.5, false,
                reference.data(), workspace.data());
  CHECK(both == reference);
}
