// Neural-network ops of the reference interpreter: softmax and log_softmax, layer and batch norm,
// linear, matmul (full torch.matmul semantics), addmm, conv2d, conv_transpose2d and scaled
// dot-product attention. Direct loops in double; inner loops run over contiguous memory so that the
// zoo models interpret in well under a second.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// out[n,m] = a[n,k] @ b[k,m] for contiguous row-major matrices; `out` is overwritten.
void gemm(const double *a, const double *b, double *out, int64_t n, int64_t k, int64_t m) {
  std::fill(out, out + n * m, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double *row = out + i * m;
    for (int64_t p = 0; p < k; ++p) {
      double scale = a[i * k + p];
      const double *bRow = b + p * m;
      for (int64_t j = 0; j < m; ++j)
        row[j] += scale * bRow[j];
    }
  }
}

/// `tensor` viewed as [outer, size, inner] around `dim`.
struct RowLayout {
  int64_t outer = 1;
  int64_t size = 1;
  int64_t inner = 1;
};

RowLayout rowLayout(const std::vector<int64_t> &shape, int64_t dim) {
  RowLayout layout;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    int64_t extent = shape[static_cast<size_t>(d)];
    if (d < dim)
      layout.outer *= extent;
    else if (d == dim)
      layout.size = extent;
    else
      layout.inner *= extent;
  }
  return layout;
}

/// softmax / log_softmax along `dim`, with the row maximum subtracted first. A row of all
/// -inf gives NaN, as in PyTorch.
Status softmax(OpCall &call, bool logarithm) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  TC_TRY(expectShape(output, input.shape));
  TC_ASSIGN_OR_RETURN(int64_t dim,
                      normalizeDim(attr::dim(call.node), std::max<int64_t>(input.rank(), 1)));
  RowLayout layout = rowLayout(input.shape, dim);
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t i = 0; i < layout.inner; ++i) {
      int64_t base = o * layout.size * layout.inner + i;
      const double *in = input.data.data() + base;
      double *out = output.data.data() + base;
      double max = -kInfinity;
      for (int64_t j = 0; j < layout.size; ++j)
        max = std::isnan(in[j * layout.inner]) ? in[j * layout.inner]
                                               : std::max(max, in[j * layout.inner]);
      double sum = 0.0;
      for (int64_t j = 0; j < layout.size; ++j)
        sum += std::exp(in[j * layout.inner] - max);
      for (int64_t j = 0; j < layout.size; ++j) {
        double shifted = in[j * layout.inner] - max;
        out[j * layout.inner] = logarithm ? shifted - std::log(sum) : std::exp(shifted) / sum;
      }
    }
  }
  return Status::success();
}

/// cumsum along `dim`: out[.., j, ..] = in[.., 0, ..] + ... + in[.., j, ..], in double (the
/// result's dtype rounds it afterwards).
Status cumsum(OpCall &call) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  TC_TRY(expectShape(output, input.shape));
  TC_ASSIGN_OR_RETURN(int64_t dim,
                      normalizeDim(attr::dim(call.node), std::max<int64_t>(input.rank(), 1)));
  RowLayout layout = rowLayout(input.shape, dim);
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t i = 0; i < layout.inner; ++i) {
      int64_t base = o * layout.size * layout.inner + i;
      double total = 0.0;
      for (int64_t j = 0; j < layout.size; ++j) {
        total += input.data[static_cast<size_t>(base + j * layout.inner)];
        output.data[static_cast<size_t>(base + j * layout.inner)] = total;
      }
    }
  }
  return Status::success();
}

/// layer_norm over the trailing normalized_shape dims: biased variance, optional affine.
Status layerNorm(OpCall &call) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  TC_TRY(expectShape(output, input.shape));
  std::vector<int64_t> normalized = attr::normalized_shape(call.node);
  size_t lead = input.shape.size() - std::min(input.shape.size(), normalized.size());
  if (normalized.size() > input.shape.size() ||
      !std::equal(normalized.begin(), normalized.end(), input.shape.begin() + lead))
    return invalidInput("normalized_shape " + shapeText(normalized) +
                        " is not a suffix of the input shape " + shapeText(input.shape));
  int64_t size = shapeNumel(normalized);
  for (int k = 1; k < call.numOperands(); ++k)
    if (call.operand(k).shape != normalized)
      return invalidInput(std::string(k == 1 ? "weight" : "bias") + " shape " +
                          shapeText(call.operand(k).shape) + " differs from normalized_shape " +
                          shapeText(normalized));
  const double *weight = call.numOperands() > 1 ? call.operand(1).data.data() : nullptr;
  const double *bias = call.numOperands() > 2 ? call.operand(2).data.data() : nullptr;
  double eps = attr::eps(call.node);
  int64_t rows = size == 0 ? 0 : input.numel() / size;
  for (int64_t r = 0; r < rows; ++r) {
    const double *in = input.data.data() + r * size;
    double *out = output.data.data() + r * size;
    double mean = 0.0;
    for (int64_t j = 0; j < size; ++j)
      mean += in[j];
    mean /= static_cast<double>(size);
    double variance = 0.0;
    for (int64_t j = 0; j < size; ++j)
      variance += (in[j] - mean) * (in[j] - mean);
    double invStd = 1.0 / std::sqrt(variance / static_cast<double>(size) + eps);
    for (int64_t j = 0; j < size; ++j) {
      double value = (in[j] - mean) * invStd;
      out[j] = (weight ? value * weight[j] : value) + (bias ? bias[j] : 0.0);
    }
  }
  return Status::success();
}

/// Inference batch norm over channel dim 1: (x - mean) / sqrt(var + eps) * weight + bias.
Status batchNorm(OpCall &call) {
  const Tensor &input = call.operand(0);
  Tensor &output = call.result();
  TC_TRY(expectShape(output, input.shape));
  if (input.rank() < 2)
    return invalidInput("batch_norm input " + shapeText(input.shape) + " has rank below 2");
  int64_t channels = input.shape[1];
  for (int k = 1; k < call.numOperands(); ++k)
    if (call.operand(k).shape != std::vector<int64_t>{channels})
      return invalidInput("batch_norm operand " + std::to_string(k) + " has shape " +
                          shapeText(call.operand(k).shape) + ", expected [" +
                          std::to_string(channels) + "]");
  const double *mean = call.operand(1).data.data();
  const double *var = call.operand(2).data.data();
  const double *weight = call.numOperands() > 3 ? call.operand(3).data.data() : nullptr;
  const double *bias = call.numOperands() > 4 ? call.operand(4).data.data() : nullptr;
  double eps = attr::eps(call.node);
  RowLayout layout = rowLayout(input.shape, 1);
  for (int64_t n = 0; n < layout.outer; ++n) {
    for (int64_t c = 0; c < channels; ++c) {
      double scale = 1.0 / std::sqrt(var[c] + eps) * (weight ? weight[c] : 1.0);
      double shift = (bias ? bias[c] : 0.0) - mean[c] * scale;
      int64_t base = (n * channels + c) * layout.inner;
      for (int64_t i = 0; i < layout.inner; ++i)
        output.data[static_cast<size_t>(base + i)] =
            input.data[static_cast<size_t>(base + i)] * scale + shift;
    }
  }
  return Status::success();
}

/// out += bias broadcast to out's shape; error if it does not broadcast.
Status addBroadcast(Tensor &output, const Tensor &bias, double factor) {
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, broadcastShapes(bias.shape, output.shape));
  if (shape != output.shape)
    return invalidInput("bias " + shapeText(bias.shape) + " does not broadcast to " +
                        shapeText(output.shape));
  std::vector<int64_t> strides = broadcastStrides(bias.shape, output.shape);
  forEachIndex<1>(output.shape, {&strides},
                  [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
                    output.data[static_cast<size_t>(linear)] +=
                        factor * bias.data[static_cast<size_t>(offsets[0])];
                  });
  return Status::success();
}

/// linear(x[..., K], weight[N, K] or [K], bias?) = x @ weight^T + bias.
Status linear(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &weight = call.operand(1);
  Tensor &output = call.result();
  if (input.rank() < 1 || weight.rank() < 1 || weight.rank() > 2 ||
      input.shape.back() != weight.shape.back())
    return invalidInput("linear of " + shapeText(input.shape) + " and weight " +
                        shapeText(weight.shape));
  int64_t k = input.shape.back();
  int64_t n = weight.rank() == 2 ? weight.shape[0] : 1;
  std::vector<int64_t> expected(input.shape.begin(), input.shape.end() - 1);
  if (weight.rank() == 2)
    expected.push_back(n);
  TC_TRY(expectShape(output, expected));
  int64_t rows = k == 0 ? output.numel() / std::max<int64_t>(n, 1) : input.numel() / k;
  for (int64_t r = 0; r < rows; ++r) {
    const double *x = input.data.data() + r * k;
    for (int64_t j = 0; j < n; ++j) {
      const double *w = weight.data.data() + j * k;
      double dot = 0.0;
      for (int64_t p = 0; p < k; ++p)
        dot += x[p] * w[p];
      output.data[static_cast<size_t>(r * n + j)] = dot;
    }
  }
  if (call.numOperands() > 2)
    return addBroadcast(output, call.operand(2), 1.0);
  return Status::success();
}

Status conv2d(OpCall &call);

/// The float32 values (x - x_zero) * x_scale of a statically quantized input (linear_wq,
/// conv2d_wq with x_scale), as PT2E's dequantize_per_tensor rounds them, in `dtype`.
Tensor dequantizedInput(const Tensor &input, const AttrMap &attrs, DType dtype) {
  const auto zero = static_cast<double>(attr::x_zero(attrs).value_or(0));
  const auto scale = static_cast<float>(attr::x_scale(attrs).value_or(1.0));
  Tensor x = input;
  x.dtype = dtype;
  for (double &value : x.data)
    value = static_cast<double>(static_cast<float>(value - zero) * scale);
  return x;
}

/// conv2d_wq: x dequantized as (x - x_zero) * x_scale and the weight as (q - zero) * scale,
/// each rounded to float32 as PT2E's dequantize ops do, then conv2d.
Status conv2dWq(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &q = call.operand(1);
  const Tensor &scales = call.operand(2);
  const bool hasZeros = attr::has_zeros(call.attrs());
  const Tensor *zeros = hasZeros ? &call.operand(3) : nullptr;
  const int biasIndex = hasZeros ? 4 : 3;
  if (q.rank() != 4 || scales.numel() != q.shape[0])
    return invalidInput("conv2d_wq weight " + shapeText(q.shape) + " with scales " +
                        shapeText(scales.shape));
  Tensor x = dequantizedInput(input, call.attrs(), scales.dtype);
  Tensor weight = q;
  weight.dtype = scales.dtype;
  const int64_t perChannel = q.shape[0] == 0 ? 0 : q.numel() / q.shape[0];
  for (int64_t i = 0; i < q.numel(); ++i) {
    const auto o = static_cast<size_t>(i / perChannel);
    const double z = zeros != nullptr ? zeros->data[o] : 0.0;
    weight.data[static_cast<size_t>(i)] =
        roundToDType((q.data[static_cast<size_t>(i)] - z) * scales.data[o], scales.dtype);
  }
  OpCall inner{call.node, call.bindings, {&x, &weight}, std::move(call.results), call.random};
  if (call.numOperands() > biasIndex)
    inner.operands.push_back(&call.operand(biasIndex));
  Status status = conv2d(inner);
  call.results = std::move(inner.results);
  return status;
}

/// linear_wq: the weight dequantized element by element as PyTorch does before its GEMM,
/// (q - zero) * scale rounded to the scales' dtype, then exact dot products in double. An
/// integer x (x_scale, x_zero) is dequantized first as (x - x_zero) * x_scale in float32.
Status linearWq(OpCall &call) {
  const Tensor &q = call.operand(1);
  const Tensor &scales = call.operand(2);
  const bool quantizedX = attr::x_scale(call.attrs()).has_value();
  const Tensor dequantized =
      quantizedX ? dequantizedInput(call.operand(0), call.attrs(), scales.dtype) : Tensor{};
  const Tensor &input = quantizedX ? dequantized : call.operand(0);
  const bool hasZeros = attr::has_zeros(call.attrs());
  const bool packed = attr::bits(call.attrs()) == 4;
  const Tensor *zeros = hasZeros ? &call.operand(3) : nullptr;
  const int biasIndex = hasZeros ? 4 : 3;
  Tensor &output = call.result();
  if (input.rank() < 1 || q.rank() != 2 || scales.rank() != 2)
    return invalidInput("linear_wq of " + shapeText(input.shape) + " and weight " +
                        shapeText(q.shape));
  const int64_t k = input.shape.back();
  const int64_t n = q.shape[0];
  const int64_t groups = scales.shape[1];
  if ((packed ? q.shape[1] * 2 : q.shape[1]) != k || groups < 1 || k % groups != 0 ||
      scales.shape[0] != n)
    return invalidInput("linear_wq of " + shapeText(input.shape) + ", weight " +
                        shapeText(q.shape) + " and scales " + shapeText(scales.shape));
  const int64_t groupSize = k / groups;
  std::vector<int64_t> expected(input.shape.begin(), input.shape.end() - 1);
  expected.push_back(n);
  TC_TRY(expectShape(output, expected));
  std::vector<double> weight(static_cast<size_t>(n * k));
  for (int64_t j = 0; j < n; ++j)
    for (int64_t p = 0; p < k; ++p) {
      double value = 0.0;
      if (packed) {
        int64_t block = p / 32, lane = p % 32;
        auto byte = static_cast<int64_t>(q.data[static_cast<size_t>(j * (k / 2) + block * 16 +
                                                                    lane % 16)]);
        value = static_cast<double>((lane < 16 ? byte & 15 : byte >> 4) - 8);
      } else {
        value = q.data[static_cast<size_t>(j * k + p)];
      }
      size_t g = static_cast<size_t>(j * groups + p / groupSize);
      double zero = zeros != nullptr ? zeros->data[g] : 0.0;
      weight[static_cast<size_t>(j * k + p)] =
          roundToDType((value - zero) * scales.data[g], scales.dtype);
    }
  int64_t rows = n == 0 ? 0 : output.numel() / n;
  if (attr::dynamic_act(call.attrs()).value_or(false)) {
    // x quantized per 32 inputs in float32, then exact integer block sums scaled by d * s.
    for (int64_t r = 0; r < rows; ++r) {
      const double *x = input.data.data() + r * k;
      std::vector<double> xq(static_cast<size_t>(k)), d(static_cast<size_t>(k / 32));
      for (int64_t b = 0; b < k / 32; ++b) {
        float amax = 0.f;
        for (int64_t p = b * 32; p < b * 32 + 32; ++p)
          amax = std::max(amax, std::fabs(static_cast<float>(x[p])));
        const float scale = amax / 127.f;
        const float inverse = scale != 0.f ? 1.f / scale : 0.f;
        d[static_cast<size_t>(b)] = scale;
        for (int64_t p = b * 32; p < b * 32 + 32; ++p)
          xq[static_cast<size_t>(p)] =
              std::nearbyint(static_cast<float>(x[p]) * inverse);
      }
      for (int64_t j = 0; j < n; ++j) {
        double dot = 0.0;
        for (int64_t b = 0; b < k / 32; ++b) {
          double sum = 0.0;
          for (int64_t p = b * 32; p < b * 32 + 32; ++p) {
            int64_t byte = static_cast<int64_t>(
                q.data[static_cast<size_t>(j * (k / 2) + b * 16 + (p % 32) % 16)]);
            sum += xq[static_cast<size_t>(p)] *
                   static_cast<double>(((p % 32) < 16 ? byte & 15 : byte >> 4) - 8);
          }
          dot += d[static_cast<size_t>(b)] * scales.data[static_cast<size_t>(j * groups + b)] *
                 sum;
        }
        output.data[static_cast<size_t>(r * n + j)] = dot;
      }
    }
    if (call.numOperands() > biasIndex)
      return addBroadcast(output, call.operand(biasIndex), 1.0);
    return Status::success();
  }
  for (int64_t r = 0; r < rows; ++r) {
    const double *x = input.data.data() + r * k;
    for (int64_t j = 0; j < n; ++j) {
      const double *w = weight.data() + j * k;
      double dot = 0.0;
      for (int64_t p = 0; p < k; ++p)
        dot += x[p] * w[p];
      output.data[static_cast<size_t>(r * n + j)] = dot;
    }
  }
  if (call.numOperands() > biasIndex)
    return addBroadcast(output, call.operand(biasIndex), 1.0);
  return Status::success();
}

/// torch.matmul: a 1-D left operand gets a leading 1 and a 1-D right operand a trailing 1
/// (both removed from the result), and batch dims broadcast.
Status matmul(OpCall &call) {
  const Tensor &a = call.operand(0);
  const Tensor &b = call.operand(1);
  Tensor &output = call.result();
  if (a.rank() == 0 || b.rank() == 0)
    return invalidInput("matmul of a 0-d tensor");
  std::vector<int64_t> aShape = a.shape;
  std::vector<int64_t> bShape = b.shape;
  if (a.rank() == 1)
    aShape.insert(aShape.begin(), 1);
  if (b.rank() == 1)
    bShape.push_back(1);
  int64_t n = aShape[aShape.size() - 2];
  int64_t k = aShape.back();
  int64_t m = bShape.back();
  if (bShape[bShape.size() - 2] != k)
    return invalidInput("matmul inner dims of " + shapeText(a.shape) + " and " +
                        shapeText(b.shape) + " differ");
  std::vector<int64_t> aBatch(aShape.begin(), aShape.end() - 2);
  std::vector<int64_t> bBatch(bShape.begin(), bShape.end() - 2);
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> batch, broadcastShapes(aBatch, bBatch));
  std::vector<int64_t> expected = batch;
  if (a.rank() > 1)
    expected.push_back(n);
  if (b.rank() > 1)
    expected.push_back(m);
  TC_TRY(expectShape(output, expected));
  std::vector<int64_t> aStrides = broadcastStrides(aBatch, batch);
  std::vector<int64_t> bStrides = broadcastStrides(bBatch, batch);
  forEachIndex<2>(batch, {&aStrides, &bStrides},
                  [&](int64_t linear, const std::array<int64_t, 2> &offsets) {
                    gemm(a.data.data() + offsets[0] * n * k, b.data.data() + offsets[1] * k * m,
                         output.data.data() + linear * n * m, n, k, m);
                  });
  return Status::success();
}

/// grouped_matmul(a[S,K], b[G,K,N], offsets[G]): rows [offsets[g-1], offsets[g]) of a (clipped
/// to [0, S); offsets[-1] = 0) times b[g], groups in order (a later group's rows win); rows no
/// group holds stay zero.
Status groupedMatmul(OpCall &call) {
  const Tensor &a = call.operand(0);
  const Tensor &b = call.operand(1);
  const Tensor &offsets = call.operand(2);
  Tensor &output = call.result();
  if (a.rank() != 2 || b.rank() != 3 || offsets.rank() != 1 || a.shape[1] != b.shape[1] ||
      offsets.shape[0] != b.shape[0])
    return invalidInput("grouped_matmul of " + shapeText(a.shape) + ", " + shapeText(b.shape) +
                        " and offsets " + shapeText(offsets.shape));
  int64_t rows = a.shape[0];
  int64_t k = a.shape[1];
  int64_t n = b.shape[2];
  TC_TRY(expectShape(output, {rows, n}));
  std::fill(output.data.begin(), output.data.end(), 0.0);
  int64_t start = 0;
  for (int64_t g = 0; g < b.shape[0]; ++g) {
    int64_t end = static_cast<int64_t>(offsets.data[static_cast<size_t>(g)]);
    int64_t first = std::clamp<int64_t>(start, 0, rows);
    int64_t last = std::clamp<int64_t>(end, 0, rows);
    if (last > first)
      gemm(a.data.data() + first * k, b.data.data() + g * k * n, output.data.data() + first * n,
           last - first, k, n);
    start = end;
  }
  return Status::success();
}

/// addmm(bias, a[n,k], b[k,m]) = beta * bias + alpha * (a @ b). beta == 0 ignores the bias
/// entirely (NaN included), as PyTorch does.
Status addmm(OpCall &call) {
  const Tensor &a = call.operand(1);
  const Tensor &b = call.operand(2);
  Tensor &output = call.result();
  if (a.rank() != 2 || b.rank() != 2 || a.shape[1] != b.shape[0])
    return invalidInput("addmm of " + shapeText(a.shape) + " and " + shapeText(b.shape));
  TC_TRY(expectShape(output, {a.shape[0], b.shape[1]}));
  gemm(a.data.data(), b.data.data(), output.data.data(), a.shape[0], a.shape[1], b.shape[1]);
  double alpha = attr::alpha(call.node);
  double beta = attr::beta(call.node);
  for (double &value : output.data)
    value *= alpha;
  if (beta == 0.0)
    return Status::success();
  return addBroadcast(output, call.operand(0), beta);
}

/// A stride/padding/dilation attribute as {height, width}; one entry means both.
Expected<std::array<int64_t, 2>> pair(const std::vector<int64_t> &values, const std::string &name) {
  if (values.size() == 1)
    return std::array<int64_t, 2>{values[0], values[0]};
  if (values.size() == 2)
    return std::array<int64_t, 2>{values[0], values[1]};
  return invalidInput(name + " " + shapeText(values) + " must have 1 or 2 entries");
}

/// conv2d(x[N,C,H,W] or [C,H,W], weight[O,C/groups,kH,kW], bias[O]?). For each output plane
/// and each weight tap, the range of output columns whose input column is in bounds is
/// computed once, so the inner loop has no bounds checks.
Status conv2d(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &weight = call.operand(1);
  Tensor &output = call.result();
  TC_ASSIGN_OR_RETURN(auto stride, pair(attr::stride(call.node), "stride"));
  TC_ASSIGN_OR_RETURN(auto padding, pair(attr::padding(call.node), "padding"));
  TC_ASSIGN_OR_RETURN(auto dilation, pair(attr::dilation(call.node), "dilation"));
  int64_t groups = attr::groups(call.node);
  bool batched = input.rank() == 4;
  if ((input.rank() != 3 && !batched) || weight.rank() != 4)
    return invalidInput("conv2d of " + shapeText(input.shape) + " with weight " +
                        shapeText(weight.shape));
  if (stride[0] < 1 || stride[1] < 1 || dilation[0] < 1 || dilation[1] < 1 || padding[0] < 0 ||
      padding[1] < 0 || groups < 1)
    return invalidInput("conv2d: invalid stride, padding, dilation or groups");
  int64_t batch = batched ? input.shape[0] : 1;
  int64_t channels = input.shape[input.shape.size() - 3];
  int64_t height = input.shape[input.shape.size() - 2];
  int64_t width = input.shape.back();
  int64_t outChannels = weight.shape[0];
  int64_t groupChannels = weight.shape[1];
  int64_t kernelH = weight.shape[2];
  int64_t kernelW = weight.shape[3];
  if (channels != groupChannels * groups || outChannels % groups != 0)
    return invalidInput("conv2d: input " + shapeText(input.shape) + ", weight " +
                        shapeText(weight.shape) + " and groups " + std::to_string(groups) +
                        " disagree");
  int64_t spanH = height + 2 * padding[0] - dilation[0] * (kernelH - 1) - 1;
  int64_t spanW = width + 2 * padding[1] - dilation[1] * (kernelW - 1) - 1;
  if (spanH < 0 || spanW < 0)
    return invalidInput("conv2d: kernel is larger than the padded input");
  int64_t outH = spanH / stride[0] + 1;
  int64_t outW = spanW / stride[1] + 1;
  std::vector<int64_t> expected = {outChannels, outH, outW};
  if (batched)
    expected.insert(expected.begin(), batch);
  TC_TRY(expectShape(output, expected));
  const Tensor *bias = call.numOperands() > 2 ? &call.operand(2) : nullptr;
  if (bias && bias->shape != std::vector<int64_t>{outChannels})
    return invalidInput("conv2d bias " + shapeText(bias->shape) + ", expected [" +
                        std::to_string(outChannels) + "]");
  // Output columns [lo, hi) whose input column ow*stride - padding + kw*dilation is in range.
  std::vector<std::array<int64_t, 2>> columns(static_cast<size_t>(kernelW));
  for (int64_t kw = 0; kw < kernelW; ++kw) {
    int64_t shift = kw * dilation[1] - padding[1];
    int64_t lo = shift >= 0 ? 0 : (-shift + stride[1] - 1) / stride[1];
    int64_t hi = width - shift <= 0 ? 0 : (width - shift - 1) / stride[1] + 1;
    columns[static_cast<size_t>(kw)] = {std::min(lo, outW), std::min(hi, outW)};
  }
  int64_t outPerGroup = outChannels / groups;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t o = 0; o < outChannels; ++o) {
      double *plane = output.data.data() + (n * outChannels + o) * outH * outW;
      std::fill(plane, plane + outH * outW, bias ? bias->data[static_cast<size_t>(o)] : 0.0);
      int64_t firstChannel = (o / outPerGroup) * groupChannels;
      for (int64_t ci = 0; ci < groupChannels; ++ci) {
        const double *in = input.data.data() + (n * channels + firstChannel + ci) * height * width;
        const double *taps = weight.data.data() + (o * groupChannels + ci) * kernelH * kernelW;
        for (int64_t kh = 0; kh < kernelH; ++kh) {
          for (int64_t kw = 0; kw < kernelW; ++kw) {
            double tap = taps[kh * kernelW + kw];
            auto [lo, hi] = columns[static_cast<size_t>(kw)];
            if (lo >= hi)
              continue;
            // Input column of output column lo; in range by the choice of lo.
            int64_t firstColumn = lo * stride[1] + kw * dilation[1] - padding[1];
            for (int64_t oh = 0; oh < outH; ++oh) {
              int64_t ih = oh * stride[0] - padding[0] + kh * dilation[0];
              if (ih < 0 || ih >= height)
                continue;
              const double *inRow = in + ih * width + firstColumn;
              double *outRow = plane + oh * outW + lo;
              if (stride[1] == 1) // contiguous: the compiler vectorizes this loop
                for (int64_t c = 0; c < hi - lo; ++c)
                  outRow[c] += tap * inRow[c];
              else
                for (int64_t c = 0; c < hi - lo; ++c)
                  outRow[c] += tap * inRow[c * stride[1]];
            }
          }
        }
      }
    }
  }
  return Status::success();
}

/// conv_transpose2d(x[N,C,H,W] or [C,H,W], weight[C,O/groups,kH,kW], bias[O]?): every input
/// pixel scatters x * weight[c, o, kh, kw] to output pixel (ih*stride - padding + kh*dilation,
/// ...), which is dropped when it falls outside the output.
Status convTranspose2d(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &weight = call.operand(1);
  Tensor &output = call.result();
  TC_ASSIGN_OR_RETURN(auto stride, pair(attr::stride(call.node), "stride"));
  TC_ASSIGN_OR_RETURN(auto padding, pair(attr::padding(call.node), "padding"));
  TC_ASSIGN_OR_RETURN(auto dilation, pair(attr::dilation(call.node), "dilation"));
  TC_ASSIGN_OR_RETURN(auto outputPadding,
                      pair(attr::output_padding(call.node), "output_padding"));
  int64_t groups = attr::groups(call.node);
  bool batched = input.rank() == 4;
  if ((input.rank() != 3 && !batched) || weight.rank() != 4)
    return invalidInput("conv_transpose2d of " + shapeText(input.shape) + " with weight " +
                        shapeText(weight.shape));
  for (size_t i = 0; i < 2; ++i) {
    if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0 || outputPadding[i] < 0 ||
        outputPadding[i] >= std::max(stride[i], dilation[i]) || groups < 1)
      return invalidInput(
          "conv_transpose2d: invalid stride, padding, output_padding, dilation or groups");
  }
  int64_t batch = batched ? input.shape[0] : 1;
  int64_t channels = input.shape[input.shape.size() - 3];
  int64_t height = input.shape[input.shape.size() - 2];
  int64_t width = input.shape.back();
  int64_t groupChannels = channels / groups;
  int64_t groupOutputs = weight.shape[1];
  int64_t outChannels = groupOutputs * groups;
  int64_t kernelH = weight.shape[2];
  int64_t kernelW = weight.shape[3];
  if (weight.shape[0] != channels || channels % groups != 0)
    return invalidInput("conv_transpose2d: input " + shapeText(input.shape) + ", weight " +
                        shapeText(weight.shape) + " and groups " + std::to_string(groups) +
                        " disagree");
  int64_t outH = (height - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kernelH - 1) +
                 outputPadding[0] + 1;
  int64_t outW = (width - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kernelW - 1) +
                 outputPadding[1] + 1;
  if (outH < 1 || outW < 1)
    return invalidInput("conv_transpose2d: output size [" + std::to_string(outH) + ", " +
                        std::to_string(outW) + "] is too small");
  std::vector<int64_t> expected = {outChannels, outH, outW};
  if (batched)
    expected.insert(expected.begin(), batch);
  TC_TRY(expectShape(output, expected));
  const Tensor *bias = call.numOperands() > 2 ? &call.operand(2) : nullptr;
  if (bias && bias->shape != std::vector<int64_t>{outChannels})
    return invalidInput("conv_transpose2d bias " + shapeText(bias->shape) + ", expected [" +
                        std::to_string(outChannels) + "]");
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t o = 0; o < outChannels; ++o) {
      double *plane = output.data.data() + (n * outChannels + o) * outH * outW;
      std::fill(plane, plane + outH * outW, bias ? bias->data[static_cast<size_t>(o)] : 0.0);
      int64_t group = o / groupOutputs;
      for (int64_t ci = 0; ci < groupChannels; ++ci) {
        int64_t c = group * groupChannels + ci;
        const double *in = input.data.data() + (n * channels + c) * height * width;
        const double *taps =
            weight.data.data() + (c * groupOutputs + o % groupOutputs) * kernelH * kernelW;
        for (int64_t ih = 0; ih < height; ++ih) {
          for (int64_t kh = 0; kh < kernelH; ++kh) {
            int64_t oh = ih * stride[0] - padding[0] + kh * dilation[0];
            if (oh < 0 || oh >= outH)
              continue;
            for (int64_t iw = 0; iw < width; ++iw) {
              double value = in[ih * width + iw];
              for (int64_t kw = 0; kw < kernelW; ++kw) {
                int64_t ow = iw * stride[1] - padding[1] + kw * dilation[1];
                if (ow >= 0 && ow < outW)
                  plane[oh * outW + ow] += value * taps[kh * kernelW + kw];
              }
            }
          }
        }
      }
    }
  }
  return Status::success();
}

/// scaled_dot_product_attention(q[..., L, E], k[..., S, E], v[..., S, Ev], mask?) with the
/// semantics of PyTorch's math path: scores = q @ k^T * scale (default 1/sqrt(E)); is_causal
/// keeps j <= i (top-left aligned); a bool mask keeps its true entries, any other mask is
/// added; masked scores are -inf. A fully masked row comes out as zeros, like PyTorch >= 2.5
/// eager (its math path's _safe_softmax), not NaN. Batch dims broadcast.
Status attention(OpCall &call) {
  const Tensor &q = call.operand(0);
  const Tensor &k = call.operand(1);
  const Tensor &v = call.operand(2);
  const Tensor *mask = call.numOperands() > 3 ? &call.operand(3) : nullptr;
  Tensor &output = call.result();
  if (q.rank() < 2 || k.rank() < 2 || v.rank() < 2 || k.shape.back() != q.shape.back() ||
      v.shape[v.shape.size() - 2] != k.shape[k.shape.size() - 2])
    return invalidInput("attention of q " + shapeText(q.shape) + ", k " + shapeText(k.shape) +
                        ", v " + shapeText(v.shape));
  int64_t queries = q.shape[q.shape.size() - 2];
  int64_t depth = q.shape.back();
  int64_t keys = k.shape[k.shape.size() - 2];
  int64_t valueDepth = v.shape.back();
  std::vector<int64_t> qBatch(q.shape.begin(), q.shape.end() - 2);
  std::vector<int64_t> kBatch(k.shape.begin(), k.shape.end() - 2);
  std::vector<int64_t> vBatch(v.shape.begin(), v.shape.end() - 2);
  TC_ASSIGN_OR_RETURN(std::vector<int64_t> batch, broadcastShapes(qBatch, kBatch));
  TC_ASSIGN_OR_RETURN(batch, broadcastShapes(batch, vBatch));
  std::vector<int64_t> expected = batch;
  expected.insert(expected.end(), {queries, valueDepth});
  TC_TRY(expectShape(output, expected));
  std::vector<int64_t> scoreShape = batch;
  scoreShape.insert(scoreShape.end(), {queries, keys});
  std::vector<int64_t> maskStrides(scoreShape.size(), 0);
  if (mask) {
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> broadcast, broadcastShapes(mask->shape, scoreShape));
    if (broadcast != scoreShape)
      return invalidInput("attention mask " + shapeText(mask->shape) +
                          " does not broadcast to the scores " + shapeText(scoreShape));
    maskStrides = broadcastStrides(mask->shape, scoreShape);
  }
  int64_t maskRowStride = maskStrides[batch.size()];
  int64_t maskColumnStride = maskStrides[batch.size() + 1];
  maskStrides.resize(batch.size());
  std::vector<int64_t> qStrides = broadcastStrides(qBatch, batch);
  std::vector<int64_t> kStrides = broadcastStrides(kBatch, batch);
  std::vector<int64_t> vStrides = broadcastStrides(vBatch, batch);
  double scale = attr::scale(call.node).value_or(1.0 / std::sqrt(static_cast<double>(depth)));
  bool causal = attr::is_causal(call.node);
  bool boolMask = mask && mask->dtype == DType::Bool;
  std::vector<double> scores(static_cast<size_t>(keys));
  auto run = [&](int64_t linear, const std::array<int64_t, 4> &offsets) {
    const double *qs = q.data.data() + offsets[0] * queries * depth;
    const double *ks = k.data.data() + offsets[1] * keys * depth;
    const double *vs = v.data.data() + offsets[2] * keys * valueDepth;
    double *out = output.data.data() + linear * queries * valueDepth;
    for (int64_t i = 0; i < queries; ++i) {
      double max = -kInfinity;
      for (int64_t j = 0; j < keys; ++j) {
        double score = 0.0;
        for (int64_t e = 0; e < depth; ++e)
          score += qs[i * depth + e] * ks[j * depth + e];
        score *= scale;
        if (causal && j > i)
          score = -kInfinity;
        if (mask) {
          double m = mask->data[static_cast<size_t>(offsets[3] + i * maskRowStride +
                                                    j * maskColumnStride)];
          score = boolMask ? (m != 0.0 ? score : -kInfinity) : score + m;
        }
        scores[static_cast<size_t>(j)] = score;
        max = std::isnan(score) ? score : std::max(max, score);
      }
      if (max == -kInfinity) // fully masked: PyTorch's _safe_softmax gives a zero row
        continue;
      double sum = 0.0;
      for (double &score : scores)
        sum += score = std::exp(score - max);
      double *row = out + i * valueDepth;
      for (int64_t j = 0; j < keys; ++j) {
        double weight = scores[static_cast<size_t>(j)] / sum;
        for (int64_t e = 0; e < valueDepth; ++e)
          row[e] += weight * vs[j * valueDepth + e];
      }
    }
  };
  forEachIndex<4>(batch, {&qStrides, &kStrides, &vStrides, &maskStrides}, run);
  return Status::success();
}

} // namespace

Status runNnOp(OpCall &call) {
  switch (call.node.op()) {
  case OpKind::Softmax:
    return softmax(call, false);
  case OpKind::LogSoftmax:
    return softmax(call, true);
  case OpKind::Cumsum:
    return cumsum(call);
  case OpKind::LayerNorm:
    return layerNorm(call);
  case OpKind::BatchNorm:
    return batchNorm(call);
  case OpKind::Linear:
    return linear(call);
  case OpKind::LinearWq:
    return linearWq(call);
  case OpKind::Matmul:
    return matmul(call);
  case OpKind::Addmm:
    return addmm(call);
  case OpKind::GroupedMatmul:
    return groupedMatmul(call);
  case OpKind::Conv2d:
    return conv2d(call);
  case OpKind::Conv2dWq:
    return conv2dWq(call);
  case OpKind::ConvTranspose2d:
    return convTranspose2d(call);
  case OpKind::Attention:
    return attention(call);
  default:
    TC_CHECK(false, "not an nn op");
  }
}

} // namespace thunderc::ir::interp
