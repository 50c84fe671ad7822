// pad, upsample and grid_sample in the reference interpreter: each result element is computed
// from the source index PyTorch's kernels use (ATen/native/Padding.h, UpSample.h,
// GridSampler.h), independently of the kernel libraries' shared helpers, so that the per-op
// tests compare two implementations.
#include <algorithm>
#include <array>
#include <cmath>

#include "ir/host_tensor.h"
#include "ir/interpreter_internal.h"

namespace thunderc::ir::interp {
namespace {

/// Python's a % b for b > 0.
int64_t positiveModulo(int64_t a, int64_t b) { return ((a % b) + b) % b; }

/// The source index of result index `out` along a dim of `size` elements, or -1 for the
/// constant (see pad_source_index in runtime/kernels/tc_math.h for the same rule). circular
/// first crops (negative pads), then wraps within what is left, as PyTorch's _pad_circular.
int64_t padSource(int64_t out, int64_t before, int64_t after, int64_t size,
                  const std::string &mode) {
  int64_t at = out - before;
  if (at >= 0 && at < size)
    return at;
  if (mode == "constant" || size <= 0)
    return -1;
  if (mode == "replicate")
    return std::clamp<int64_t>(at, 0, size - 1);
  if (mode == "circular") {
    int64_t low = std::max<int64_t>(-before, 0);
    int64_t kept = size - low - std::max<int64_t>(-after, 0);
    return kept <= 0 ? -1 : low + positiveModulo(at - low, kept);
  }
  // reflect: walk back and forth between 0 and size - 1.
  if (size == 1)
    return 0;
  int64_t period = 2 * (size - 1);
  int64_t folded = positiveModulo(at, period);
  return folded < size ? folded : period - folded;
}

Status pad(OpCall &call) {
  const Tensor &input = call.operand(0);
  const std::string &mode = attr::mode(call.node);
  std::vector<int64_t> pads = attr::pads(call.node);
  size_t rank = input.shape.size();
  if (pads.size() != 2 * rank)
    return invalidInput("pad pads " + shapeText(pads) + " must have 2 entries per dim of " +
                        shapeText(input.shape));
  std::vector<int64_t> shape(rank);
  for (size_t d = 0; d < rank; ++d) {
    shape[d] = input.shape[d] + pads[2 * d] + pads[2 * d + 1];
    if (shape[d] < 0)
      return invalidInput("pad pads " + shapeText(pads) + " crop " + shapeText(input.shape) +
                          " to a negative size");
    bool padded = pads[2 * d] != 0 || pads[2 * d + 1] != 0;
    if (padded && mode != "constant" && input.shape[d] == 0)
      return invalidInput("pad mode '" + mode + "' of an empty dim " + std::to_string(d));
  }
  TC_TRY(expectShape(call.result(), shape));
  std::vector<int64_t> strides = contiguousStrides(input.shape);
  double value = attr::value(call.node);
  std::vector<int64_t> index(rank, 0);
  Tensor &output = call.result();
  for (int64_t linear = 0; linear < output.numel(); ++linear) {
    int64_t remaining = linear;
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = rank; d-- > 0;) {
      int64_t out = remaining % shape[d];
      remaining /= shape[d];
      int64_t source = padSource(out, pads[2 * d], pads[2 * d + 1], input.shape[d], mode);
      inside = inside && source >= 0;
      offset += std::max<int64_t>(source, 0) * strides[d];
    }
    output.data[static_cast<size_t>(linear)] =
        inside ? input.data[static_cast<size_t>(offset)] : value;
  }
  return Status::success();
}

/// PyTorch's compute_scales_value in float (nearest) or the compute type (linear).
template <typename A> A scaleValue(double scale, int64_t in, int64_t out) {
  return scale > 0.0 ? static_cast<A>(1.0 / scale) : static_cast<A>(in) / static_cast<A>(out);
}

int64_t nearestSource(int64_t out, int64_t inSize, int64_t outSize, double scale, bool exact) {
  float ratio = scaleValue<float>(scale, inSize, outSize);
  int64_t source = 0;
  if (exact)
    source = static_cast<int64_t>(
        std::floor(static_cast<float>((static_cast<double>(out) + 0.5) * ratio)));
  else if (outSize == inSize)
    source = out;
  else if (outSize == 2 * inSize)
    source = out / 2;
  else
    source = static_cast<int64_t>(std::floor(static_cast<float>(out) * ratio));
  return std::min(source, inSize - 1);
}

/// Input indices and weights of one output index of linear upsampling: PyTorch's
/// area_pixel_compute_source_index and guard_index_and_lambda in the arithmetic type A.
struct Tap {
  int64_t index[2];
  double weight[2];
};

template <typename A>
Tap linearTap(int64_t out, int64_t inSize, int64_t outSize, double scale, bool alignCorners) {
  if (outSize == inSize)
    return {{out, out}, {1.0, 0.0}};
  A ratio = 0;
  if (alignCorners)
    ratio = outSize > 1 ? static_cast<A>(inSize - 1) / static_cast<A>(outSize - 1) : A(0);
  else
    ratio = scaleValue<A>(scale, inSize, outSize);
  A real = alignCorners ? ratio * static_cast<A>(out)
                        : std::max(ratio * (static_cast<A>(out) + A(0.5)) - A(0.5), A(0));
  int64_t first = std::min(static_cast<int64_t>(std::floor(static_cast<float>(real))), inSize - 1);
  A lambda = std::clamp(real - static_cast<A>(first), A(0), A(1));
  int64_t second = first < inSize - 1 ? first + 1 : first;
  return {{first, second}, {static_cast<double>(A(1) - lambda), static_cast<double>(lambda)}};
}

Status upsample(OpCall &call) {
  const Tensor &input = call.operand(0);
  const std::string &mode = attr::mode(call.node);
  std::vector<double> scales = attr::scales(call.node);
  bool alignCorners = attr::align_corners(call.node);
  size_t rank = input.shape.size();
  size_t spatial = scales.size();
  if (spatial < 1 || spatial > 3 || rank < spatial + 1)
    return invalidInput("upsample of " + shapeText(input.shape) + " over " +
                        std::to_string(spatial) + " spatial dims");
  const std::vector<int64_t> &outShape = call.result().shape;
  size_t leading = rank - spatial;
  for (size_t d = 0; d < rank; ++d) {
    if (d < leading && outShape[d] != input.shape[d])
      return invalidInput("upsample result " + shapeText(outShape) + " differs from the input " +
                          shapeText(input.shape) + " outside the spatial dims");
    if (d >= leading && (outShape[d] < 1 || input.shape[d] < 1))
      return invalidInput("upsample from " + shapeText(input.shape) + " to " +
                          shapeText(outShape) + ": spatial sizes must be positive");
  }
  // Per spatial dim and output index: the taps (nearest modes use one, weight 1).
  std::vector<std::vector<Tap>> taps(spatial);
  bool doubleMath = input.dtype == DType::F64;
  for (size_t s = 0; s < spatial; ++s) {
    int64_t in = input.shape[leading + s];
    int64_t out = outShape[leading + s];
    for (int64_t o = 0; o < out; ++o) {
      if (mode == "linear") {
        Tap tap = doubleMath ? linearTap<double>(o, in, out, scales[s], alignCorners)
                             : linearTap<float>(o, in, out, scales[s], alignCorners);
        // PyTorch's CPU kernel stores the weights in the input dtype (f16/bf16 round them).
        tap.weight[1] = roundToDType(tap.weight[1], input.dtype);
        tap.weight[0] = roundToDType(1.0 - tap.weight[1], input.dtype);
        taps[s].push_back(tap);
        continue;
      }
      int64_t source = nearestSource(o, in, out, scales[s], mode == "nearest-exact");
      taps[s].push_back({{source, source}, {1.0, 0.0}});
    }
  }
  std::vector<int64_t> inStrides = contiguousStrides(input.shape);
  int64_t planeSize = 1;
  int64_t outPlane = 1;
  for (size_t s = 0; s < spatial; ++s) {
    planeSize *= input.shape[leading + s];
    outPlane *= outShape[leading + s];
  }
  int64_t planes = outPlane == 0 ? 0 : call.result().numel() / outPlane;
  int corners = 1 << spatial;
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < outPlane; ++o) {
      std::array<int64_t, 3> position{};
      int64_t remaining = o;
      for (size_t s = spatial; s-- > 0;) {
        position[s] = remaining % outShape[leading + s];
        remaining /= outShape[leading + s];
      }
      // The weighted sum over the 2^spatial corners (nearest: every corner is the same index
      // with weight 1 on the first, 0 on the rest).
      double sum = 0.0;
      for (int corner = 0; corner < corners; ++corner) {
        double weight = 1.0;
        int64_t offset = p * planeSize;
        for (size_t s = 0; s < spatial; ++s) {
          const Tap &tap = taps[s][static_cast<size_t>(position[s])];
          int side = (corner >> (spatial - 1 - s)) & 1;
          weight *= tap.weight[side];
          offset += tap.index[side] * inStrides[leading + s];
        }
        if (weight != 0.0)
          sum += weight * input.data[static_cast<size_t>(offset)];
      }
      call.result().data[static_cast<size_t>(p * outPlane + o)] = sum;
    }
  }
  return Status::success();
}

// ---- grid_sample (PyTorch's ATen/native/GridSampler.h, in double) ----

/// A grid coordinate in [-1, 1] as a pixel coordinate of a dim of `size` pixels.
double gridUnnormalize(double coord, int64_t size, bool alignCorners) {
  if (alignCorners)
    return (coord + 1.0) / 2.0 * static_cast<double>(size - 1);
  return ((coord + 1.0) * static_cast<double>(size) - 1.0) / 2.0;
}

/// `coord` folded back and forth into [twiceLow / 2, twiceHigh / 2].
double reflectCoordinate(double coord, int64_t twiceLow, int64_t twiceHigh) {
  if (twiceLow == twiceHigh)
    return 0.0;
  double low = static_cast<double>(twiceLow) / 2.0;
  double span = static_cast<double>(twiceHigh - twiceLow) / 2.0;
  coord = std::fabs(coord - low);
  double extra = std::fmod(coord, span);
  auto flips = static_cast<int64_t>(std::floor(coord / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

/// A pixel coordinate after the padding mode: border clamps into [0, size - 1], reflection
/// mirrors at the corner pixels' centers (align_corners) or their outer edges, then clamps.
double gridPadded(double coord, int64_t size, const std::string &padding, bool alignCorners) {
  auto clip = [size](double c) {
    return std::min(static_cast<double>(size - 1), std::max(c, 0.0));
  };
  if (padding == "border")
    return clip(coord);
  if (padding == "reflection") {
    coord = alignCorners ? reflectCoordinate(coord, 0, 2 * (size - 1))
                         : reflectCoordinate(coord, -1, 2 * size - 1);
    return clip(coord);
  }
  return coord;
}

/// Keys' cubic convolution weights (A = -0.75) of the 4 taps around fraction t.
std::array<double, 4> cubicWeights(double t) {
  const double a = -0.75;
  auto near = [a](double x) { return ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0; };
  auto far = [a](double x) { return ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a; };
  return {far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)};
}

/// grid_sample(x[N,C,H,W], grid[N,OH,OW,2]): bilinear blends the 4 neighbours, nearest reads
/// the one at the coordinate rounded half to even, bicubic blends 4x4 taps (rows first), each
/// tap's index passed through the padding mode; a tap outside the input reads 0.
Status gridSample(OpCall &call) {
  const Tensor &input = call.operand(0);
  const Tensor &grid = call.operand(1);
  if (input.rank() != 4 || grid.rank() != 4 || grid.shape[0] != input.shape[0] ||
      grid.shape[3] != 2)
    return invalidInput("grid_sample input " + shapeText(input.shape) + " and grid " +
                        shapeText(grid.shape) + " (expected [N,C,H,W] and [N,H',W',2])");
  const int64_t N = input.shape[0], C = input.shape[1], H = input.shape[2], W = input.shape[3];
  const int64_t OH = grid.shape[1], OW = grid.shape[2];
  TC_TRY(expectShape(call.result(), {N, C, OH, OW}));
  const std::string &mode = attr::mode(call.node);
  const std::string &padding = attr::padding_mode(call.node);
  const bool alignCorners = attr::align_corners(call.node);
  double *result = call.result().data.data();
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const double *plane = input.data.data() + (n * C + c) * H * W;
      auto at = [&](int64_t y, int64_t x) {
        return y >= 0 && y < H && x >= 0 && x < W ? plane[y * W + x] : 0.0;
      };
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          const double *point = grid.data.data() + ((n * OH + oh) * OW + ow) * 2;
          double value = 0.0;
          if (mode == "bicubic") {
            double x = gridUnnormalize(point[0], W, alignCorners);
            double y = gridUnnormalize(point[1], H, alignCorners);
            double x0 = std::floor(x), y0 = std::floor(y);
            std::array<double, 4> wx = cubicWeights(x - x0), wy = cubicWeights(y - y0);
            for (int j = 0; j < 4; ++j) {
              double row = 0.0;
              for (int i = 0; i < 4; ++i) {
                double tx = gridPadded(x0 - 1 + i, W, padding, alignCorners);
                double ty = gridPadded(y0 - 1 + j, H, padding, alignCorners);
                row += wx[static_cast<size_t>(i)] *
                       at(static_cast<int64_t>(ty), static_cast<int64_t>(tx));
              }
              value += wy[static_cast<size_t>(j)] * row;
            }
          } else {
            double x = gridPadded(gridUnnormalize(point[0], W, alignCorners), W, padding,
                                  alignCorners);
            double y = gridPadded(gridUnnormalize(point[1], H, alignCorners), H, padding,
                                  alignCorners);
            if (mode == "nearest") {
              value = at(static_cast<int64_t>(std::nearbyint(y)),
                         static_cast<int64_t>(std::nearbyint(x)));
            } else {
              double x0 = std::floor(x), y0 = std::floor(y);
              double fx = x - x0, fy = y - y0;
              auto ix = static_cast<int64_t>(x0), iy = static_cast<int64_t>(y0);
              value = at(iy, ix) * (1 - fx) * (1 - fy) + at(iy, ix + 1) * fx * (1 - fy) +
                      at(iy + 1, ix) * (1 - fx) * fy + at(iy + 1, ix + 1) * fx * fy;
            }
          }
          *result++ = value;
        }
      }
    }
  }
  return Status::success();
}

} // namespace

Status runGridSample(OpCall &call) { return gridSample(call); }

Status runPad(OpCall &call) { return pad(call); }

Status runUpsample(OpCall &call) { return upsample(call); }

} // namespace thunderc::ir::interp
