// Pooling ops of the reference interpreter: max_pool2d, avg_pool2d and adaptive_avg_pool2d
// over the last two dims of a [N,C,H,W] or [C,H,W] input, with PyTorch's output-size and
// divisor rules (aten/src/ATen/native/Pool.h and the CPU kernels).
#include <cmath>
#include <limits>

#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// A 2-D window attribute (kernel, stride, padding, dilation) as {height, width}.
struct Window {
  std::array<int64_t, 2> kernel{};
  std::array<int64_t, 2> stride{};
  std::array<int64_t, 2> padding{};
  std::array<int64_t, 2> dilation{1, 1};
  bool ceilMode = false;
};

/// One or two entries; an empty stride means the kernel size (PyTorch's default).
Expected<std::array<int64_t, 2>> pair(const std::vector<int64_t> &values, const std::string &name) {
  if (values.size() == 1)
    return std::array<int64_t, 2>{values[0], values[0]};
  if (values.size() == 2)
    return std::array<int64_t, 2>{values[0], values[1]};
  return invalidInput(name + " " + shapeText(values) + " must have 1 or 2 entries");
}

Expected<Window> readWindow(const OpCall &call, bool hasDilation) {
  const AttrMap &attrs = call.attrs();
  Window window;
  TC_ASSIGN_OR_RETURN(window.kernel, pair(attr::kernel(attrs), "kernel"));
  std::vector<int64_t> stride = attr::stride(attrs);
  if (stride.empty()) {
    window.stride = window.kernel;
  } else {
    TC_ASSIGN_OR_RETURN(window.stride, pair(stride, "stride"));
  }
  TC_ASSIGN_OR_RETURN(window.padding, pair(attr::padding(attrs), "padding"));
  if (hasDilation) {
    TC_ASSIGN_OR_RETURN(window.dilation, pair(attr::dilation(attrs), "dilation"));
  }
  window.ceilMode = attr::ceil_mode(attrs);
  for (int d = 0; d < 2; ++d) {
    if (window.kernel[d] < 1 || window.stride[d] < 1 || window.dilation[d] < 1)
      return invalidInput("pooling kernel, stride and dilation must be positive");
    if (window.padding[d] < 0 || window.padding[d] > window.kernel[d] / 2)
      return invalidInput("pooling padding must be at most half of the kernel size");
  }
  return window;
}

int64_t floorDivide(int64_t a, int64_t b) {
  int64_t quotient = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient;
}

/// PyTorch's pooling_output_shape: with ceil_mode a last window must start inside the input
/// or the left padding.
int64_t pooledSize(int64_t input, const Window &window, int d) {
  int64_t stride = window.stride[d];
  int64_t span = input + 2 * window.padding[d] - window.dilation[d] * (window.kernel[d] - 1) - 1 +
                 (window.ceilMode ? stride - 1 : 0);
  int64_t size = floorDivide(span, stride) + 1;
  if (window.ceilMode && (size - 1) * stride >= input + window.padding[d])
    --size;
  return size;
}

/// The planes (all leading dims) and spatial size of a rank-3 or rank-4 input.
struct Planes {
  int64_t count = 0;
  int64_t height = 0;
  int64_t width = 0;
};

Expected<Planes> planes(const Tensor &input, const char *op) {
  if (input.rank() != 3 && input.rank() != 4)
    return invalidInput(std::string(op) + " input " + shapeText(input.shape) +
                        " must have rank 3 or 4");
  int64_t height = input.shape[input.shape.size() - 2];
  int64_t width = input.shape.back();
  int64_t count = height * width == 0 ? 0 : input.numel() / (height * width);
  return Planes{count, height, width};
}

/// The input shape with its last two dims replaced.
std::vector<int64_t> pooledShape(const Tensor &input, int64_t height, int64_t width) {
  std::vector<int64_t> shape = input.shape;
  shape[shape.size() - 2] = height;
  shape.back() = width;
  return shape;
}

/// Shared output-size logic of max_pool2d and avg_pool2d.
Expected<std::array<int64_t, 2>> pooledSizes(OpCall &call, const Planes &in, const Window &window) {
  int64_t outH = pooledSize(in.height, window, 0);
  int64_t outW = pooledSize(in.width, window, 1);
  if (outH < 1 || outW < 1)
    return invalidInput("pooling output size " + shapeText({outH, outW}) + " is too small");
  TC_TRY(expectShape(call.result(), pooledShape(call.operand(0), outH, outW)));
  return std::array<int64_t, 2>{outH, outW};
}

/// Max over each window; padding acts as -inf and a NaN in the window wins.
Status maxPool(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_ASSIGN_OR_RETURN(Planes in, planes(input, "max_pool2d"));
  TC_ASSIGN_OR_RETURN(Window window, readWindow(call, true));
  TC_ASSIGN_OR_RETURN(auto outSize, pooledSizes(call, in, window));
  auto [outH, outW] = outSize;
  double *out = call.result().data.data();
  for (int64_t p = 0; p < in.count; ++p) {
    const double *plane = input.data.data() + p * in.height * in.width;
    for (int64_t oh = 0; oh < outH; ++oh) {
      for (int64_t ow = 0; ow < outW; ++ow) {
        double best = -kInfinity;
        for (int64_t kh = 0; kh < window.kernel[0]; ++kh) {
          int64_t ih = oh * window.stride[0] - window.padding[0] + kh * window.dilation[0];
          if (ih < 0 || ih >= in.height)
            continue;
          for (int64_t kw = 0; kw < window.kernel[1]; ++kw) {
            int64_t iw = ow * window.stride[1] - window.padding[1] + kw * window.dilation[1];
            if (iw < 0 || iw >= in.width)
              continue;
            double value = plane[ih * in.width + iw];
            if (value > best || std::isnan(value))
              best = value;
          }
        }
        *out++ = best;
      }
    }
  }
  return Status::success();
}

/// Average over each window. The divisor is divisor_override if given; else, with
/// count_include_pad, the window clipped to the padded input; else the window clipped to
/// the input. A window entirely in padding gives 0 (PyTorch's CPU kernel).
Status avgPool(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_ASSIGN_OR_RETURN(Planes in, planes(input, "avg_pool2d"));
  TC_ASSIGN_OR_RETURN(Window window, readWindow(call, false));
  TC_ASSIGN_OR_RETURN(auto outSize, pooledSizes(call, in, window));
  auto [outH, outW] = outSize;
  bool countIncludePad = attr::count_include_pad(call.node);
  std::optional<int64_t> divisorOverride = attr::divisor_override(call.node);
  if (divisorOverride == 0)
    return invalidInput("avg_pool2d divisor_override must be non-zero");
  double *out = call.result().data.data();
  for (int64_t p = 0; p < in.count; ++p) {
    const double *plane = input.data.data() + p * in.height * in.width;
    for (int64_t oh = 0; oh < outH; ++oh) {
      for (int64_t ow = 0; ow < outW; ++ow) {
        int64_t h0 = oh * window.stride[0] - window.padding[0];
        int64_t w0 = ow * window.stride[1] - window.padding[1];
        int64_t h1 = std::min(h0 + window.kernel[0], in.height + window.padding[0]);
        int64_t w1 = std::min(w0 + window.kernel[1], in.width + window.padding[1]);
        int64_t paddedCount = (h1 - h0) * (w1 - w0);
        h0 = std::max<int64_t>(h0, 0);
        w0 = std::max<int64_t>(w0, 0);
        h1 = std::min(h1, in.height);
        w1 = std::min(w1, in.width);
        if (h0 >= h1 || w0 >= w1) {
          *out++ = 0.0;
          continue;
        }
        double sum = 0.0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += plane[ih * in.width + iw];
        int64_t divisor = divisorOverride   ? *divisorOverride
                          : countIncludePad ? paddedCount
                                            : (h1 - h0) * (w1 - w0);
        *out++ = sum / static_cast<double>(divisor);
      }
    }
  }
  return Status::success();
}

/// Output cell i averages input rows floor(i*In/Out) .. ceil((i+1)*In/Out) - 1 (PyTorch's
/// start_index / end_index), and likewise for columns.
Status adaptiveAvgPool(OpCall &call) {
  const Tensor &input = call.operand(0);
  TC_ASSIGN_OR_RETURN(Planes in, planes(input, "adaptive_avg_pool2d"));
  TC_ASSIGN_OR_RETURN(auto outSize, pair(attr::output_size(call.node), "output_size"));
  auto [outH, outW] = outSize;
  if (outH < 0 || outW < 0)
    return invalidInput("adaptive_avg_pool2d output_size " + shapeText({outH, outW}) +
                        " is negative");
  TC_TRY(expectShape(call.result(), pooledShape(input, outH, outW)));
  if ((in.height == 0 || in.width == 0) && call.result().numel() != 0)
    return invalidInput("adaptive_avg_pool2d of an empty input " + shapeText(input.shape));
  double *out = call.result().data.data();
  for (int64_t p = 0; p < in.count; ++p) {
    const double *plane = input.data.data() + p * in.height * in.width;
    for (int64_t oh = 0; oh < outH; ++oh) {
      int64_t h0 = oh * in.height / outH;
      int64_t h1 = ((oh + 1) * in.height + outH - 1) / outH;
      for (int64_t ow = 0; ow < outW; ++ow) {
        int64_t w0 = ow * in.width / outW;
        int64_t w1 = ((ow + 1) * in.width + outW - 1) / outW;
        double sum = 0.0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += plane[ih * in.width + iw];
        *out++ = sum / static_cast<double>((h1 - h0) * (w1 - w0));
      }
    }
  }
  return Status::success();
}

} // namespace

Status runPoolOp(OpCall &call) {
  switch (call.node.op()) {
  case OpKind::MaxPool2d:
    return maxPool(call);
  case OpKind::AvgPool2d:
    return avgPool(call);
  case OpKind::AdaptiveAvgPool2d:
    return adaptiveAvgPool(call);
  case OpKind::Upsample:
    return runUpsample(call);
  default:
    TC_CHECK(false, "not a pooling op");
  }
}

} // namespace thunderc::ir::interp
