// tcg 2-D pooling over NCHW planes (max_pool2d, avg_pool2d, adaptive_avg_pool2d) and
// upsample, the CUDA twins of tc_kernels_pool.h with the same window, padding and divisor
// rules: one thread per output over the flattened [N * C, OH, OW] outputs (the window loop
// dwarfs the index math).
#pragma once

#include "tc_cuda_lib_common.h"

namespace tcg {
namespace detail {

/// A pooling problem's geometry, passed by value.
struct pool_shape {
  int64_t H, W, OH, OW;
  int64_t KH, KW, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w;
};

template <typename T>
__global__ void __launch_bounds__(kThreads)
    max_pool2d_kernel(const T *__restrict__ x, pool_shape p, int64_t count, T *__restrict__ y) {
  using C = tc::compute_t<T>;
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t ow = i % p.OW;
    const int64_t oh = (i / p.OW) % p.OH;
    const T *plane = x + i / (p.OW * p.OH) * p.H * p.W;
    C best = lowest_of<T>();
    for (int64_t kh = 0; kh < p.KH; ++kh) {
      const int64_t ih = oh * p.stride_h - p.pad_h + kh * p.dil_h;
      if (ih < 0 || ih >= p.H)
        continue;
      for (int64_t kw = 0; kw < p.KW; ++kw) {
        const int64_t iw = ow * p.stride_w - p.pad_w + kw * p.dil_w;
        if (iw < 0 || iw >= p.W)
          continue;
        best = tc::cuda::max_op::combine(best, tc::cast<C>(ldg(plane + ih * p.W + iw)));
      }
    }
    y[i] = tc::cast<T>(best);
  }
}

/// Sums in double, like tc::avg_pool2d (windows are short; exactness is cheap here).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    avg_pool2d_kernel(const T *__restrict__ x, pool_shape p, bool count_include_pad,
                      int64_t divisor_override, int64_t count, T *__restrict__ y) {
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t ow = i % p.OW;
    const int64_t oh = (i / p.OW) % p.OH;
    const T *plane = x + i / (p.OW * p.OH) * p.H * p.W;
    int64_t h0 = oh * p.stride_h - p.pad_h;
    int64_t w0 = ow * p.stride_w - p.pad_w;
    int64_t h1 = h0 + p.KH < p.H + p.pad_h ? h0 + p.KH : p.H + p.pad_h;
    int64_t w1 = w0 + p.KW < p.W + p.pad_w ? w0 + p.KW : p.W + p.pad_w;
    const int64_t padded_count = (h1 - h0) * (w1 - w0);
    h0 = h0 < 0 ? 0 : h0;
    w0 = w0 < 0 ? 0 : w0;
    h1 = h1 < p.H ? h1 : p.H;
    w1 = w1 < p.W ? w1 : p.W;
    if (h0 >= h1 || w0 >= w1) { // entirely outside the input: 0, as PyTorch's CPU kernel
      y[i] = tc::cast<T>(0);
      continue;
    }
    double sum = 0.0;
    for (int64_t ih = h0; ih < h1; ++ih)
      for (int64_t iw = w0; iw < w1; ++iw)
        sum += tc::cast<double>(ldg(plane + ih * p.W + iw));
    const int64_t divisor = divisor_override != 0 ? divisor_override
                            : count_include_pad   ? padded_count
                                                  : (h1 - h0) * (w1 - w0);
    y[i] = tc::cast<T>(sum / static_cast<double>(divisor));
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg_pool2d_kernel(const T *__restrict__ x, pool_shape p, int64_t count,
                               T *__restrict__ y) {
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t ow = i % p.OW;
    const int64_t oh = (i / p.OW) % p.OH;
    const T *plane = x + i / (p.OW * p.OH) * p.H * p.W;
    const int64_t h0 = oh * p.H / p.OH;
    const int64_t h1 = ((oh + 1) * p.H + p.OH - 1) / p.OH;
    const int64_t w0 = ow * p.W / p.OW;
    const int64_t w1 = ((ow + 1) * p.W + p.OW - 1) / p.OW;
    double sum = 0.0;
    for (int64_t ih = h0; ih < h1; ++ih)
      for (int64_t iw = w0; iw < w1; ++iw)
        sum += tc::cast<double>(ldg(plane + ih * p.W + iw));
    y[i] = tc::cast<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
  }
}

} // namespace detail

/// tc::max_pool2d: padding acts as -infinity (the lowest integer), a NaN in the window wins,
/// and a window entirely in padding gives -infinity.
template <typename T>
result max_pool2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                  int64_t KH, int64_t KW, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                  int64_t pad_w, int64_t dil_h, int64_t dil_w, T *y, int64_t OH, int64_t OW) {
  const int64_t count = N * C * OH * OW;
  if (count <= 0)
    return result{};
  const detail::pool_shape shape{H,        W,        OH,    OW,    KH,    KW,
                                 stride_h, stride_w, pad_h, pad_w, dil_h, dil_w};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::max_pool2d_kernel<T>)
  (x, shape, count, y);
  return detail::launched();
}

/// tc::avg_pool2d: window sums in double; the divisor is divisor_override if non-zero, else
/// the window clipped to the padded input (count_include_pad) or to the input; a window
/// entirely outside the input gives 0.
template <typename T>
result avg_pool2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                  int64_t KH, int64_t KW, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                  int64_t pad_w, bool count_include_pad, int64_t divisor_override, T *y, int64_t OH,
                  int64_t OW) {
  const int64_t count = N * C * OH * OW;
  if (count <= 0)
    return result{};
  const detail::pool_shape shape{H, W, OH, OW, KH, KW, stride_h, stride_w, pad_h, pad_w, 1, 1};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::avg_pool2d_kernel<T>)
  (x, shape, count_include_pad, divisor_override, count, y);
  return detail::launched();
}

/// tc::adaptive_avg_pool2d: cell (i, j) averages rows floor(i * H / OH) .. ceil((i + 1) * H /
/// OH) - 1 and the columns likewise, summed in double.
template <typename T>
result adaptive_avg_pool2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                           T *y, int64_t OH, int64_t OW) {
  const int64_t count = N * C * OH * OW;
  if (count <= 0)
    return result{};
  const detail::pool_shape shape{H, W, OH, OW, 1, 1, 1, 1, 0, 0, 1, 1};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream,
            detail::adaptive_avg_pool2d_kernel<T>)
  (x, shape, count, y);
  return detail::launched();
}


namespace detail {

/// upsample's sizes by value, the spatial dims right-aligned in 3 (missing ones have size 1).
struct upsample_geometry {
  int64_t in[3], out[3];
  double scales[3];
};

/// One thread per output element; the source indices and weights are tc::upsample_*'s.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    upsample_kernel(const T *__restrict__ x, upsample_geometry g, tc::upsample_mode mode,
                    bool align_corners, int64_t total, T *__restrict__ y) {
  using A = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = tc::cuda::global_thread(); i < total; i += tc::cuda::grid_threads()) {
    const T *plane = x + i / out_plane * in_plane;
    int64_t o[3];
    o[2] = i % g.out[2];
    o[1] = i / g.out[2] % g.out[1];
    o[0] = i / (g.out[2] * g.out[1]) % g.out[0];
    if (mode != tc::upsample_mode::linear) {
      const bool exact = mode == tc::upsample_mode::nearest_exact;
      int64_t offset = 0;
      for (int s = 0; s < 3; ++s)
        offset = offset * g.in[s] +
                 tc::upsample_nearest_index(o[s], g.in[s], g.out[s], g.scales[s], exact);
      y[i] = ldg(plane + offset);
      continue;
    }
    tc::linear_tap<A> taps[3];
    for (int s = 0; s < 3; ++s) {
      taps[s] = tc::upsample_linear_tap<A>(o[s], g.in[s], g.out[s], g.scales[s], align_corners);
      taps[s].weight1 = tc::cast<A>(tc::cast<T>(taps[s].weight1));
      taps[s].weight0 = tc::cast<A>(tc::cast<T>(A(1) - taps[s].weight1));
    }
    A total_value = A(0);
    for (int c0 = 0; c0 < 2; ++c0) {
      const int64_t i0 = c0 ? taps[0].index1 : taps[0].index0;
      A inner1 = A(0);
      for (int c1 = 0; c1 < 2; ++c1) {
        const int64_t i1 = c1 ? taps[1].index1 : taps[1].index0;
        const T *line = plane + (i0 * g.in[1] + i1) * g.in[2];
        const A inner2 = tc::cast<A>(ldg(line + taps[2].index0)) * taps[2].weight0 +
                         tc::cast<A>(ldg(line + taps[2].index1)) * taps[2].weight1;
        inner1 += inner2 * (c1 ? taps[1].weight1 : taps[1].weight0);
      }
      total_value += inner1 * (c0 ? taps[0].weight1 : taps[0].weight0);
    }
    y[i] = tc::cast<T>(total_value);
  }
}

} // namespace detail

/// tc::upsample: y [planes, out..] = x [planes, in..] upsampled over `spatial` (1 to 3)
/// trailing dims in `mode`, with PyTorch's source indices and linear weights.
template <typename T>
result upsample(const exec &ex, const T *x, int64_t planes, int spatial, const int64_t *in,
                const int64_t *out, const double *scales, tc::upsample_mode mode,
                bool align_corners, T *y) {
  if (spatial < 1 || spatial > 3)
    return detail::unsupported("tcg::upsample", "1 to 3 spatial dims");
  detail::upsample_geometry g{{1, 1, 1}, {1, 1, 1}, {0.0, 0.0, 0.0}};
  int64_t total = planes;
  for (int s = 0; s < spatial; ++s) {
    g.in[3 - spatial + s] = in[s];
    g.out[3 - spatial + s] = out[s];
    g.scales[3 - spatial + s] = scales[s];
    total *= out[s];
  }
  if (total <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(total), detail::kThreads, 0, ex.stream, detail::upsample_kernel<T>)
  (x, g, mode, align_corners, total, y);
  return detail::launched();
}

} // namespace tcg
