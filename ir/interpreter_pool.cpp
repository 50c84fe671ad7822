// Pooling ops of the reference interpreter: max_pool2d/3d (and the indices of their maxima),
// avg_pool2d/3d and adaptive_avg_pool2d/3d over the last two or three dims of an input with one
// or two leading dims, with PyTorch's output-size and divisor rules (aten/src/ATen/native/
// Pool.h and the CPU kernels). A 2-d pool is computed as a 3-d one of unit depth; grid_sample
// lives here too, being a resampling of [N,C,H,W] planes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// A window over depth, height and width; a 2-d pool has a depth of one tap.
struct Window {
  std::array<int64_t, 3> kernel{1, 1, 1};
  std::array<int64_t, 3> stride{1, 1, 1};
  std::array<int64_t, 3> padding{0, 0, 0};
  std::array<int64_t, 3> dilation{1, 1, 1};
  bool ceilMode = false;
};

/// The number of pooled dims of a pool op: 3 for the 3-d ops and for max_pool_indices with a
/// 3-entry kernel, else 2.
int spatialDims(const OpCall &call) {
  switch (call.node.op()) {
  case OpKind::MaxPool3d:
  case OpKind::AvgPool3d:
  case OpKind::AdaptiveAvgPool3d:
    return 3;
  case OpKind::MaxPoolIndices:
    return attr::kernel(call.node).size() == 3 ? 3 : 2;
  default:
    return 2;
  }
}

/// One entry per pooled dim, or one for all of them, placed in the trailing entries of a
/// depth-height-width triple whose leading ones keep `fill`.
Expected<std::array<int64_t, 3>> spatialTriple(const std::vector<int64_t> &values, int spatial,
                                               int64_t fill, const std::string &name) {
  std::array<int64_t, 3> triple{fill, fill, fill};
  if (values.size() != 1 && values.size() != static_cast<size_t>(spatial))
    return invalidInput(name + " " + shapeText(values) + " must have 1 or " +
                        std::to_string(spatial) + " entries");
  for (int d = 0; d < spatial; ++d)
    triple[static_cast<size_t>(3 - spatial + d)] = values.size() == 1 ? values[0] : values[d];
  return triple;
}

Expected<Window> readWindow(const OpCall &call, int spatial, bool hasDilation) {
  const AttrMap &attrs = call.attrs();
  Window window;
  TC_ASSIGN_OR_RETURN(window.kernel, spatialTriple(attr::kernel(attrs), spatial, 1, "kernel"));
  std::vector<int64_t> stride = attr::stride(attrs);
  if (stride.empty()) {
    window.stride = window.kernel;
  } else {
    TC_ASSIGN_OR_RETURN(window.stride, spatialTriple(stride, spatial, 1, "stride"));
  }
  TC_ASSIGN_OR_RETURN(window.padding, spatialTriple(attr::padding(attrs), spatial, 0, "padding"));
  if (hasDilation) {
    TC_ASSIGN_OR_RETURN(window.dilation,
                        spatialTriple(attr::dilation(attrs), spatial, 1, "dilation"));
  }
  window.ceilMode = attr::ceil_mode(attrs);
  for (size_t d = 0; d < 3; ++d) {
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
int64_t pooledSize(int64_t input, const Window &window, size_t d) {
  int64_t stride = window.stride[d];
  int64_t span = input + 2 * window.padding[d] - window.dilation[d] * (window.kernel[d] - 1) - 1 +
                 (window.ceilMode ? stride - 1 : 0);
  int64_t size = floorDivide(span, stride) + 1;
  if (window.ceilMode && (size - 1) * stride >= input + window.padding[d])
    --size;
  return size;
}

/// The planes (all leading dims) and the depth, height and width of an input with one or two
/// leading dims (depth 1 for a 2-d pool).
struct Planes {
  int64_t count = 0;
  std::array<int64_t, 3> size{1, 1, 1};
  int64_t area() const { return size[0] * size[1] * size[2]; }
};

Expected<Planes> planes(const Tensor &input, int spatial, const char *op) {
  if (input.rank() != spatial + 1 && input.rank() != spatial + 2)
    return invalidInput(std::string(op) + " input " + shapeText(input.shape) + " must have rank " +
                        std::to_string(spatial + 1) + " or " + std::to_string(spatial + 2));
  Planes in;
  for (int d = 0; d < spatial; ++d)
    in.size[static_cast<size_t>(3 - spatial + d)] =
        input.shape[input.shape.size() - static_cast<size_t>(spatial - d)];
  in.count = in.area() == 0 ? 0 : input.numel() / in.area();
  return in;
}

/// The input shape with its last `spatial` dims replaced by the trailing entries of `out`.
std::vector<int64_t> pooledShape(const Tensor &input, int spatial,
                                 const std::array<int64_t, 3> &out) {
  std::vector<int64_t> shape = input.shape;
  for (int d = 0; d < spatial; ++d)
    shape[shape.size() - static_cast<size_t>(spatial - d)] =
        out[static_cast<size_t>(3 - spatial + d)];
  return shape;
}

/// Shared output-size logic of the windowed pools.
Expected<std::array<int64_t, 3>> pooledSizes(OpCall &call, const Tensor &input, int spatial,
                                             const Planes &in, const Window &window) {
  std::array<int64_t, 3> out{};
  for (size_t d = 0; d < 3; ++d) {
    out[d] = pooledSize(in.size[d], window, d);
    if (out[d] < 1)
      return invalidInput("pooling output size " + shapeText({out[0], out[1], out[2]}) +
                          " is too small");
  }
  TC_TRY(expectShape(call.result(), pooledShape(input, spatial, out)));
  return out;
}

/// Max over each window; padding acts as -inf and a NaN in the window wins. With `indices`
/// the result is where the maximum is, as the offset within the input plane: PyTorch's CPU
/// kernel starts from the first in-bounds tap and moves on a larger value or any NaN.
Status maxPool(OpCall &call, bool indices) {
  const Tensor &input = call.operand(0);
  int spatial = spatialDims(call);
  const char *name = opName(call.node.op()).data();
  TC_ASSIGN_OR_RETURN(Planes in, planes(input, spatial, name));
  TC_ASSIGN_OR_RETURN(Window window, readWindow(call, spatial, true));
  TC_ASSIGN_OR_RETURN(auto out, pooledSizes(call, input, spatial, in, window));
  const auto &[D, H, W] = in.size;
  double *result = call.result().data.data();
  for (int64_t p = 0; p < in.count; ++p) {
    const double *plane = input.data.data() + p * in.area();
    for (int64_t od = 0; od < out[0]; ++od) {
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          std::array<int64_t, 3> first{od * window.stride[0] - window.padding[0],
                                       oh * window.stride[1] - window.padding[1],
                                       ow * window.stride[2] - window.padding[2]};
          for (size_t d = 0; d < 3; ++d)
            while (first[d] < 0)
              first[d] += window.dilation[d];
          double best = -kInfinity;
          int64_t where = (first[0] * H + first[1]) * W + first[2];
          for (int64_t kd = 0; kd < window.kernel[0]; ++kd) {
            int64_t id = od * window.stride[0] - window.padding[0] + kd * window.dilation[0];
            if (id < 0 || id >= D)
              continue;
            for (int64_t kh = 0; kh < window.kernel[1]; ++kh) {
              int64_t ih = oh * window.stride[1] - window.padding[1] + kh * window.dilation[1];
              if (ih < 0 || ih >= H)
                continue;
              for (int64_t kw = 0; kw < window.kernel[2]; ++kw) {
                int64_t iw = ow * window.stride[2] - window.padding[2] + kw * window.dilation[2];
                if (iw < 0 || iw >= W)
                  continue;
                int64_t offset = (id * H + ih) * W + iw;
                double value = plane[offset];
                if (value > best || std::isnan(value)) {
                  best = value;
                  where = offset;
                }
              }
            }
          }
          *result++ = indices ? static_cast<double>(where) : best;
        }
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
  int spatial = spatialDims(call);
  const char *name = opName(call.node.op()).data();
  TC_ASSIGN_OR_RETURN(Planes in, planes(input, spatial, name));
  TC_ASSIGN_OR_RETURN(Window window, readWindow(call, spatial, false));
  TC_ASSIGN_OR_RETURN(auto out, pooledSizes(call, input, spatial, in, window));
  bool countIncludePad = attr::count_include_pad(call.node);
  std::optional<int64_t> divisorOverride = attr::divisor_override(call.node);
  if (divisorOverride == 0)
    return invalidInput(std::string(name) + " divisor_override must be non-zero");
  const int64_t H = in.size[1], W = in.size[2];
  double *result = call.result().data.data();
  for (int64_t p = 0; p < in.count; ++p) {
    const double *plane = input.data.data() + p * in.area();
    for (int64_t od = 0; od < out[0]; ++od) {
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          const std::array<int64_t, 3> o{od, oh, ow};
          std::array<int64_t, 3> lo{}, hi{};
          int64_t paddedCount = 1, count = 1;
          for (size_t d = 0; d < 3; ++d) {
            lo[d] = o[d] * window.stride[d] - window.padding[d];
            hi[d] = std::min(lo[d] + window.kernel[d], in.size[d] + window.padding[d]);
            paddedCount *= hi[d] - lo[d];
            lo[d] = std::max<int64_t>(lo[d], 0);
            hi[d] = std::min(hi[d], in.size[d]);
            count *= std::max<int64_t>(hi[d] - lo[d], 0);
          }
          if (count == 0) {
            *result++ = 0.0;
            continue;
          }
          double sum = 0.0;
          for (int64_t id = lo[0]; id < hi[0]; ++id)
            for (int64_t ih = lo[1]; ih < hi[1]; ++ih)
              for (int64_t iw = lo[2]; iw < hi[2]; ++iw)
                sum += plane[(id * H + ih) * W + iw];
          int64_t divisor = divisorOverride   ? *divisorOverride
                            : countIncludePad ? paddedCount
                                              : count;
          *result++ = sum / static_cast<double>(divisor);
        }
      }
    }
  }
  return Status::success();
}

/// Output cell i averages input rows floor(i*In/Out) .. ceil((i+1)*In/Out) - 1 (PyTorch's
/// start_index / end_index), and likewise for every pooled dim.
Status adaptiveAvgPool(OpCall &call) {
  const Tensor &input = call.operand(0);
  int spatial = spatialDims(call);
  const char *name = opName(call.node.op()).data();
  TC_ASSIGN_OR_RETURN(Planes in, planes(input, spatial, name));
  TC_ASSIGN_OR_RETURN(auto out, spatialTriple(attr::output_size(call.node), spatial, 1,
                                              "output_size"));
  if (out[0] < 0 || out[1] < 0 || out[2] < 0)
    return invalidInput(std::string(name) + " output_size " +
                        shapeText(attr::output_size(call.node)) + " is negative");
  TC_TRY(expectShape(call.result(), pooledShape(input, spatial, out)));
  if (in.area() == 0 && call.result().numel() != 0)
    return invalidInput(std::string(name) + " of an empty input " + shapeText(input.shape));
  const auto &[D, H, W] = in.size;
  double *result = call.result().data.data();
  for (int64_t p = 0; p < in.count; ++p) {
    const double *plane = input.data.data() + p * in.area();
    for (int64_t od = 0; od < out[0]; ++od) {
      int64_t d0 = od * D / out[0];
      int64_t d1 = ((od + 1) * D + out[0] - 1) / out[0];
      for (int64_t oh = 0; oh < out[1]; ++oh) {
        int64_t h0 = oh * H / out[1];
        int64_t h1 = ((oh + 1) * H + out[1] - 1) / out[1];
        for (int64_t ow = 0; ow < out[2]; ++ow) {
          int64_t w0 = ow * W / out[2];
          int64_t w1 = ((ow + 1) * W + out[2] - 1) / out[2];
          double sum = 0.0;
          for (int64_t id = d0; id < d1; ++id)
            for (int64_t ih = h0; ih < h1; ++ih)
              for (int64_t iw = w0; iw < w1; ++iw)
                sum += plane[(id * H + ih) * W + iw];
          *result++ = sum / static_cast<double>((d1 - d0) * (h1 - h0) * (w1 - w0));
        }
      }
    }
  }
  return Status::success();
}

} // namespace

Status runPoolOp(OpCall &call) {
  switch (call.node.op()) {
  case OpKind::MaxPool2d:
  case OpKind::MaxPool3d:
    return maxPool(call, false);
  case OpKind::MaxPoolIndices:
    return maxPool(call, true);
  case OpKind::AvgPool2d:
  case OpKind::AvgPool3d:
    return avgPool(call);
  case OpKind::AdaptiveAvgPool2d:
  case OpKind::AdaptiveAvgPool3d:
    return adaptiveAvgPool(call);
  case OpKind::Upsample:
    return runUpsample(call);
  case OpKind::GridSample:
    return runGridSample(call);
  default:
    TC_CHECK(false, "not a pooling op");
  }
}

} // namespace thunderc::ir::interp
