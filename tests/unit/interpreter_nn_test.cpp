// Per-op tests of the reference interpreter for the nn ops: softmax, layer/batch norm,
// linear/matmul/addmm, conv2d, pooling and attention, with expected values computed by
// PyTorch 2.9 eager in f32.
#include "interpreter_test_util.h"

using namespace interpreter_test;

namespace {

// [1,5,5] planes for pooling.
HostTensor poolInput() {
  return f32({1, 5, 5},
             {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3});
}

} // namespace

TEST_CASE("interpreter: softmax and log_softmax are stable; an all -inf row is NaN") {
  HostTensor x = f32({4, 3}, {1, 2, 3, -1, 0, -kInf, -kInf, -kInf, -kInf, 1000, 1000, 999});
  AttrMap lastDim = attrs({{"dim", int64_t{-1}}});
  checkValues(evalOp(OpKind::Softmax, {x}, typeOf(DType::F32, {4, 3}), lastDim),
              {0.0900305733, 0.244728476, 0.665240943, 0.268941432, 0.731058598, 0, kNaN, kNaN,
               kNaN, 0.422318816, 0.422318816, 0.155362412});
  checkValues(evalOp(OpKind::LogSoftmax, {x}, typeOf(DType::F32, {4, 3}), lastDim),
              {-2.40760589, -1.40760589, -0.407605946, -1.31326163, -0.313261658, -kInf, kNaN, kNaN,
               kNaN, -0.861994803, -0.861994803, -1.86199474});
  HostTensor columns = f32({2, 4}, {-7, -2.5, 0, 3, 5.5, 8, -1, 2});
  checkValues(
      evalOp(OpKind::Softmax, {columns}, typeOf(DType::F32, {2, 4}), attrs({{"dim", int64_t{0}}})),
      {3.72663931e-06, 2.75356906e-05, 0.731058598, 0.731058598, 0.999996305, 0.999972463,
       0.268941432, 0.268941432});
}

TEST_CASE("interpreter: layer_norm and batch_norm") {
  HostTensor x = f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, -1, 0, 1, 10, 2, 2});
  HostTensor weight = f32({2, 3}, {1, -1, 2, 0.5, 1, 1});
  HostTensor bias = f32({2, 3}, {0, 1, -1, 0, 0, 0.5});
  checkValues(evalOp(OpKind::LayerNorm, {x, weight, bias}, typeOf(DType::F32, {2, 2, 3}),
                     attrs({{"eps", 1e-5}, {"normalized_shape", std::vector<int64_t>{2, 3}}})),
              {-1.46384764, 1.87830853, -1.5855391, 0.146384761, 0.878308535, 1.96384764,
               -0.928476393, 1.64993358, -1.74278116, 1.06774783, -0.0928476825, 0.407152325});
  checkValues(evalOp(OpKind::LayerNorm, {x}, typeOf(DType::F32, {2, 2, 3}),
                     attrs({{"eps", 1e-5}, {"normalized_shape", std::vector<int64_t>{3}}})),
              {-1.22473562, 0, 1.22473562, -1.22473562, 0, 1.22473562, -1.22473562, 0, 1.22473562,
               1.41421318, -0.707106531, -0.707106531});
  CHECK(contains(opError(OpKind::LayerNorm, {x}, typeOf(DType::F32, {2, 2, 3}),
                         attrs({{"eps", 1e-5}, {"normalized_shape", std::vector<int64_t>{2}}})),
                 "not a suffix"));

  std::vector<double> values;
  for (int i = 0; i < 16; ++i)
    values.push_back(i - 5);
  HostTensor input = f32({2, 2, 2, 2}, values);
  HostTensor mean = f32({2}, {1, -2});
  HostTensor var = f32({2}, {4, 0.5});
  checkValues(evalOp(OpKind::BatchNorm, {input, mean, var, f32({2}, {2, 0.5}), f32({2}, {0.1, -1})},
                     typeOf(DType::F32, {2, 2, 2, 2}), attrs({{"eps", 1e-5}})),
              {-5.89999294, -4.8999939, -3.89999533, -2.89999628, -0.292900324, 0.414199352,
               1.12129903, 1.8283987, 2.09999752, 3.09999657, 4.09999514, 5.09999418, 5.36389732,
               6.07099676, 6.7780962, 7.48519611});
  checkValues(evalOp(OpKind::BatchNorm, {input, mean, var}, typeOf(DType::F32, {2, 2, 2, 2}),
                     attrs({{"eps", 1e-5}})),
              {-2.99999642, -2.49999714, -1.99999762, -1.49999821, 1.41419935, 2.8283987,
               4.24259806, 5.65679741, 0.999998808, 1.49999821, 1.99999762, 2.49999714, 12.7277946,
               14.1419935, 15.5561924, 16.9703922});
}

TEST_CASE("interpreter: linear, matmul and addmm") {
  HostTensor x = f32({2, 3}, {1, 2, 3, -1, 0.5, 2});
  HostTensor weight = f32({4, 3}, {1, 0, -1, 2, 1, 0.5, 0, 0, 1, 1, 1, 1});
  checkValues(
      evalOp(OpKind::Linear, {x, weight, f32({4}, {0.5, -1, 0, 2})}, typeOf(DType::F32, {2, 4})),
      {-1.5, 4.5, 3, 8, -2.5, -1.5, 2, 3.5});
  checkValues(evalOp(OpKind::Linear, {f32({3}, {1, 2, 3}), weight}, typeOf(DType::F32, {4})),
              {-2, 5.5, 3, 6});

  HostTensor m1 = f32({2, 3}, {0, 1, 2, 3, 4, 5});
  std::vector<double> m2Values;
  for (int i = 0; i < 12; ++i)
    m2Values.push_back(i - 4);
  HostTensor m2 = f32({3, 4}, m2Values);
  checkValues(evalOp(OpKind::Matmul, {m1, m2}, typeOf(DType::F32, {2, 4})),
              {8, 11, 14, 17, 8, 20, 32, 44});
  checkValues(evalOp(OpKind::Matmul, {m1, f32({3}, {1, -1, 2})}, typeOf(DType::F32, {2})), {3, 9});
  checkValues(evalOp(OpKind::Matmul, {f32({2}, {1, -1}), m1}, typeOf(DType::F32, {3})),
              {-3, -3, -3});
  checkValues(
      evalOp(OpKind::Matmul, {f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6})}, typeOf(DType::F32, {})),
      {32});
  // Batch dims [2,1] and [3] broadcast to [2,3].
  std::vector<double> aValues;
  std::vector<double> bValues;
  for (int i = 0; i < 12; ++i)
    aValues.push_back(i);
  for (int i = 0; i < 18; ++i)
    bValues.push_back(i * 0.5);
  checkValues(evalOp(OpKind::Matmul, {f32({2, 1, 2, 3}, aValues), f32({3, 3, 2}, bValues)},
                     typeOf(DType::F32, {2, 3, 2, 2})),
              {5,  6.5,  14, 20, 14, 15.5, 50,  56,  23,  24.5,  86,  92,
               23, 33.5, 32, 47, 86, 96.5, 122, 137, 149, 159.5, 212, 227});
  CHECK(contains(opError(OpKind::Matmul, {m1, m1}, typeOf(DType::F32, {2, 3})), "inner dims"));

  checkValues(evalOp(OpKind::Addmm, {f32({4}, {1, 2, 3, 4}), m1, m2}, typeOf(DType::F32, {2, 4}),
                     attrs({{"alpha", 2.0}, {"beta", 0.5}})),
              {16.5, 23, 29.5, 36, 16.5, 41, 65.5, 90});
  // beta = 0 ignores the bias, NaN included.
  checkValues(evalOp(OpKind::Addmm, {f32({4}, {1, kNaN, 3, 4}), m1, m2}, typeOf(DType::F32, {2, 4}),
                     attrs({{"alpha", 1.0}, {"beta", 0.0}})),
              {8, 11, 14, 17, 8, 20, 32, 44});
}

TEST_CASE("interpreter: conv2d with stride, padding, dilation, groups and bias") {
  // x = (arange(200).reshape(2,4,5,5) % 7) - 3; w = ((arange(108).reshape(6,2,3,3) % 5) - 2) / 2
  std::vector<double> xValues;
  std::vector<double> wValues;
  for (int i = 0; i < 200; ++i)
    xValues.push_back(i % 7 - 3);
  for (int i = 0; i < 108; ++i)
    wValues.push_back((i % 5 - 2) * 0.5);
  std::vector<double> result = evalOp(
      OpKind::Conv2d,
      {f32({2, 4, 5, 5}, xValues), f32({6, 2, 3, 3}, wValues), f32({6}, {0.5, -1, 0, 1, 2, -2})},
      typeOf(DType::F32, {2, 6, 3, 5}),
      attrs({{"stride", std::vector<int64_t>{2, 1}},
             {"padding", std::vector<int64_t>{1, 2}},
             {"dilation", std::vector<int64_t>{1, 2}},
             {"groups", int64_t{2}}}));
  // Spot checks of torch's [2,6,3,5] result: the first and last output rows.
  checkValues(std::vector<double>(result.begin(), result.begin() + 5), {1, -4.5, -4.5, -4.5, -1});
  checkValues(std::vector<double>(result.end() - 5, result.end()), {-3, -7, -11, -3, -2.5});
  checkValues(std::vector<double>(result.begin() + 75, result.begin() + 80),
              {-7, -5.5, -10, -3.5, 0}); // batch 0, channel 5 (second group), row 0
  checkValues(std::vector<double>(result.begin() + 90, result.begin() + 95),
              {-3, -5, -3.5, 2.5, 2.5}); // batch 1, channel 0, row 0
  AttrMap plain = attrs({{"stride", std::vector<int64_t>{1, 1}},
                         {"padding", std::vector<int64_t>{0, 0}},
                         {"dilation", std::vector<int64_t>{1, 1}},
                         {"groups", int64_t{1}}});
  checkValues(
      evalOp(OpKind::Conv2d,
             {f32({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}), f32({1, 1, 2, 2}, {1, -1, 2, 0.5})},
             typeOf(DType::F32, {1, 1, 2, 2}), plain),
      {7, 9.5, 14.5, 17});
  // Unbatched [C,H,W] input.
  checkValues(
      evalOp(OpKind::Conv2d,
             {f32({1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8}), f32({1, 1, 2, 2}, {1, -1, 2, 0.5})},
             typeOf(DType::F32, {1, 2, 2}), plain),
      {7, 9.5, 14.5, 17});
  CHECK(contains(opError(OpKind::Conv2d,
                         {f32({1, 3, 3, 3}, std::vector<double>(27, 1.0)),
                          f32({1, 2, 2, 2}, std::vector<double>(8, 1.0))},
                         typeOf(DType::F32, {1, 1, 2, 2}), plain),
                 "disagree"));
}

TEST_CASE("interpreter: conv_transpose2d scatters every input pixel through the kernel") {
  auto convAttrs = [](std::vector<int64_t> stride, std::vector<int64_t> padding,
                      std::vector<int64_t> outputPadding, int64_t groups) {
    return attrs({{"stride", std::move(stride)},
                  {"padding", std::move(padding)},
                  {"output_padding", std::move(outputPadding)},
                  {"dilation", std::vector<int64_t>{1, 1}},
                  {"groups", groups}});
  };
  // Kernel = stride: each pixel becomes a scaled copy of the kernel (values from torch).
  checkValues(evalOp(OpKind::ConvTranspose2d,
                     {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 2, 2}, {1, -1, 2, 0.5})},
                     typeOf(DType::F32, {1, 1, 4, 4}), convAttrs({2, 2}, {0, 0}, {0, 0}, 1)),
              {1, -1, 2, -2, 2, 0.5, 4, 1, 3, -3, 4, -4, 6, 1.5, 8, 2});
  // x = arange(8).reshape(1,2,2,2) - 3; w = (arange(12).reshape(2,1,2,3) % 5) - 2; two groups,
  // stride (1,2), padding (0,1), output_padding (0,1), bias.
  std::vector<double> weight;
  for (int i = 0; i < 12; ++i)
    weight.push_back(i % 5 - 2);
  checkValues(evalOp(OpKind::ConvTranspose2d,
                     {f32({1, 2, 2, 2}, {-3, -2, -1, 0, 1, 2, 3, 4}), f32({2, 1, 2, 3}, weight),
                      f32({2}, {0.5, -1})},
                     typeOf(DType::F32, {1, 2, 3, 4}), convAttrs({1, 2}, {0, 1}, {0, 1}, 2)),
              {3.5, 4.5, 2.5, 0.5, -4.5, 4.5, -3.5, 4.5, -1.5, 2.5, 0.5, 0.5,
               -1, -2, -1, 1, -3, 1, -5, 1, -7, 4, -9, -5});
  CHECK(contains(opError(OpKind::ConvTranspose2d,
                         {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 2, 2}, {1, 1, 1, 1})},
                         typeOf(DType::F32, {1, 1, 5, 5}), convAttrs({2, 2}, {0, 0}, {2, 2}, 1)),
                 "output_padding"));
}

TEST_CASE("interpreter: max_pool2d pads with -inf, supports dilation and ceil_mode") {
  auto pool = [](int64_t kernel, int64_t stride, int64_t padding, int64_t dilation, bool ceil) {
    return attrs({{"kernel", std::vector<int64_t>{kernel, kernel}},
                  {"stride", std::vector<int64_t>{stride, stride}},
                  {"padding", std::vector<int64_t>{padding, padding}},
                  {"dilation", std::vector<int64_t>{dilation, dilation}},
                  {"ceil_mode", ceil}});
  };
  TensorType out3 = typeOf(DType::F32, {1, 3, 3});
  checkValues(evalOp(OpKind::MaxPool2d, {poolInput()}, out3, pool(3, 2, 1, 1, false)),
              {9, 6, 5, 9, 9, 9, 6, 8, 8});
  checkValues(evalOp(OpKind::MaxPool2d, {poolInput()}, out3, pool(2, 2, 0, 1, true)),
              {9, 6, 5, 8, 9, 9, 6, 6, 3});
  checkValues(evalOp(OpKind::MaxPool2d, {poolInput()}, out3, pool(2, 1, 0, 2, false)),
              {9, 8, 9, 9, 8, 6, 9, 8, 9});
  std::vector<double> ramp;
  for (int i = 0; i < 16; ++i)
    ramp.push_back(i);
  checkValues(evalOp(OpKind::MaxPool2d, {f32({1, 4, 4}, ramp)}, out3, pool(3, 2, 1, 1, true)),
              {5, 7, 7, 13, 15, 15, 13, 15, 15});
  HostTensor withNaN = poolInput();
  interp::writeElement(withNaN.bytes.data(), DType::F32, kNaN);
  checkValues(
      evalOp(OpKind::MaxPool2d, {withNaN}, typeOf(DType::F32, {1, 2, 2}), pool(2, 2, 0, 1, false)),
      {kNaN, 6, 8, 9});
  CHECK(contains(opError(OpKind::MaxPool2d, {poolInput()}, out3, pool(2, 2, 2, 1, false)),
                 "at most half"));
}

TEST_CASE("interpreter: avg_pool2d divisor rules and adaptive_avg_pool2d windows") {
  auto pool = [](int64_t kernel, int64_t stride, int64_t padding, bool ceil, bool includePad) {
    return attrs({{"kernel", std::vector<int64_t>{kernel, kernel}},
                  {"stride", std::vector<int64_t>{stride, stride}},
                  {"padding", std::vector<int64_t>{padding, padding}},
                  {"ceil_mode", ceil},
                  {"count_include_pad", includePad}});
  };
  TensorType out3 = typeOf(DType::F32, {1, 3, 3});
  checkValues(evalOp(OpKind::AvgPool2d, {poolInput()}, out3, pool(3, 2, 1, false, true)),
              {1.66666663, 2.11111116, 1.55555558, 3.22222233, 5.55555534, 4, 1.44444442,
               2.77777767, 2.11111116});
  checkValues(evalOp(OpKind::AvgPool2d, {poolInput()}, out3, pool(3, 2, 1, false, false)),
              {3.75, 3.16666675, 3.5, 4.83333349, 5.55555534, 6, 3.25, 4.16666651, 4.75});
  checkValues(evalOp(OpKind::AvgPool2d, {poolInput()}, out3, pool(2, 2, 0, true, true)),
              {3.75, 4, 4, 4.5, 6.75, 6.5, 4, 5, 3});
  // ceil_mode adds a window that starts in the input and ends past the right padding: with
  // count_include_pad its divisor counts the window clipped to input + padding.
  std::vector<double> ramp;
  for (int i = 0; i < 16; ++i)
    ramp.push_back(i);
  checkValues(evalOp(OpKind::AvgPool2d, {f32({1, 4, 4}, ramp)}, out3, pool(3, 2, 1, true, true)),
              {1.11111116, 2.66666675, 1.66666663, 5.66666651, 10, 5.5, 4.16666651, 7, 3.75});
  checkValues(evalOp(OpKind::AvgPool2d, {f32({1, 4, 4}, ramp)}, out3, pool(3, 2, 1, true, false)),
              {2.5, 4, 5, 8.5, 10, 11, 12.5, 14, 15});
  AttrMap divided = pool(2, 2, 0, false, true);
  divided.set("divisor_override", int64_t{3});
  checkValues(evalOp(OpKind::AvgPool2d, {poolInput()}, typeOf(DType::F32, {1, 2, 2}), divided),
              {5, 5.33333349, 6, 9});

  std::vector<double> values;
  for (int i = 0; i < 35; ++i)
    values.push_back(i);
  checkValues(evalOp(OpKind::AdaptiveAvgPool2d, {f32({1, 5, 7}, values)},
                     typeOf(DType::F32, {1, 3, 4}),
                     attrs({{"output_size", std::vector<int64_t>{3, 4}}})),
              {4, 5.5, 7.5, 9, 14.5, 16, 18, 19.5, 25, 26.5, 28.5, 30});
  checkValues(evalOp(OpKind::AdaptiveAvgPool2d, {poolInput()}, typeOf(DType::F32, {1, 3, 2}),
                     attrs({{"output_size", std::vector<int64_t>{3, 2}}})),
              {4.16666651, 4, 5.22222233, 6, 3.66666675, 4.66666651});
}

TEST_CASE("interpreter: attention with scale, causal, bool and additive masks") {
  HostTensor q = f32({1, 3, 3}, {1, 0, 2, 0, 1, -1, 1, 1, 1});
  HostTensor k = f32({1, 4, 3}, {1, 2, 0, 0, 1, 1, -1, 0, 1, 2, 0, 0});
  HostTensor v = f32({1, 4, 2}, {1, 2, 3, 4, -1, 0, 0.5, 2});
  TensorType out = typeOf(DType::F32, {1, 3, 2});
  AttrMap plain = attrs({{"is_causal", false}});
  checkValues(evalOp(OpKind::Attention, {q, k, v}, out, plain),
              {1.1208005, 2.28091478, 1.06578338, 2.15297556, 1.21230412, 2.3343606});
  checkValues(evalOp(OpKind::Attention, {q, k, v}, out, attrs({{"is_causal", true}})),
              {1, 2, 1.47926307, 2.47926307, 1.44234192, 2.4423418});
  checkValues(
      evalOp(OpKind::Attention, {q, k, v}, out, attrs({{"is_causal", false}, {"scale", 0.25}})),
      {0.983808935, 2.12435317, 0.986990094, 2.09992003, 1.07375264, 2.20226908});
  // Row 1 is fully masked: PyTorch 2.9 eager returns zeros for it, not NaN.
  HostTensor boolMask = makeTensor(DType::Bool, {3, 4}, {1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 1});
  checkValues(evalOp(OpKind::Attention, {q, k, v, boolMask}, out, plain),
              {0.235541523, 1.47108293, 0, 0, 1.39668763, 2.52891684});
  checkValues(evalOp(OpKind::Attention, {q, k, v, f32({4}, {0, -1, 2, -kInf})}, out, plain),
              {-0.489048332, 0.510951638, 0.0167269111, 1.01672697, 0.124227762, 1.12422776});
  // q's batch [2,1] broadcasts against k and v's [1,1].
  std::vector<double> qValues = valuesOf(q);
  for (int i = 0; i < 9; ++i)
    qValues.push_back(qValues[static_cast<size_t>(i)] * 0.5);
  checkValues(evalOp(OpKind::Attention,
                     {f32({2, 1, 3, 3}, qValues), f32({1, 1, 4, 3}, valuesOf(k)),
                      f32({1, 1, 4, 2}, valuesOf(v))},
                     typeOf(DType::F32, {2, 1, 3, 2}), plain),
              {1.1208005, 2.28091478, 1.06578338, 2.15297556, 1.21230412, 2.3343606, 1.0004257,
               2.14334369, 1.00032866, 2.11069012, 1.09682453, 2.22515988});
  CHECK(contains(opError(OpKind::Attention, {q, k, v, f32({3}, {0, 0, 0})}, out, plain),
                 "do not broadcast"));
}
