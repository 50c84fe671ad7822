// tcg pooling over [D, H, W] planes (max_pool3d with indices, avg_pool3d, adaptive_avg_pool3d;
// the 2-d pools as 3-d ones of unit depth), upsample and grid_sample, the CUDA twins of
// tc_kernels_pool.h computing each output with the same tc_math.h helpers: one thread per
// output over the flattened [planes, OD, OH, OW] outputs (the window loop dwarfs the index
// math).
#pragma once

#include "tc_cuda_lib_common.h"

namespace tcg {
namespace detail {

template <typename T>
__global__ void __launch_bounds__(kThreads)
    max_pool3d_kernel(const T *__restrict__ x, tc::pool_geometry g, int64_t count,
                      T *__restrict__ y, int64_t *__restrict__ indices) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    int64_t position[3];
    tc::pool_position(g, i % out_plane, position);
    int64_t where = 0;
    const auto best = tc::max_pool_window(x + i / out_plane * in_plane, g, position, &where);
    if (y)
      y[i] = tc::cast<T>(best);
    if (indices)
      indices[i] = where;
  }
}

/// Sums in double, like tc::avg_pool3d (windows are short; exactness is cheap here).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    avg_pool3d_kernel(const T *__restrict__ x, tc::pool_geometry g, bool count_include_pad,
                      int64_t divisor_override, int64_t count, T *__restrict__ y) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    int64_t position[3];
    tc::pool_position(g, i % out_plane, position);
    y[i] = tc::cast<T>(tc::avg_pool_window(x + i / out_plane * in_plane, g, position,
                                           count_include_pad, divisor_override));
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    adaptive_avg_pool3d_kernel(const T *__restrict__ x, tc::pool_geometry g, int64_t count,
                               T *__restrict__ y) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    int64_t position[3];
    tc::pool_position(g, i % out_plane, position);
    y[i] = tc::cast<T>(tc::adaptive_avg_pool_window(x + i / out_plane * in_plane, g, position));
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    grid_sample_kernel(const T *__restrict__ x, int64_t C, int64_t H, int64_t W,
                       const T *__restrict__ grid, int64_t OH, int64_t OW, tc::grid_mode mode,
                       tc::grid_padding padding, bool align_corners, int64_t count,
                       T *__restrict__ y) {
  using A = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t p = i % (OH * OW);
    const int64_t plane = i / (OH * OW); // n * C + c
    const T *point = grid + (plane / C * OH * OW + p) * 2;
    y[i] = tc::cast<T>(tc::grid_sample_point<T, A>(x + plane * H * W, H, W,
                                                   tc::cast<A>(ldg(point)),
                                                   tc::cast<A>(ldg(point + 1)), mode, padding,
                                                   align_corners));
  }
}

inline int64_t pool_outputs(int64_t planes, const tc::pool_geometry &g) {
  return planes * g.out[0] * g.out[1] * g.out[2];
}

} // namespace detail

/// tc::max_pool3d: one thread per output; y and/or indices (either may be null).
template <typename T>
result max_pool3d(const exec &ex, const T *x, int64_t planes, const tc::pool_geometry &g, T *y,
                  int64_t *indices) {
  const int64_t count = detail::pool_outputs(planes, g);
  if (count <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::max_pool3d_kernel<T>)
  (x, g, count, y, indices);
  return detail::launched();
}

/// tc::avg_pool3d: window sums in double; the divisor is divisor_override if non-zero, else
/// the window clipped to the padded input (count_include_pad) or to the input; a window
/// entirely outside the input gives 0.
template <typename T>
result avg_pool3d(const exec &ex, const T *x, int64_t planes, const tc::pool_geometry &g,
                  bool count_include_pad, int64_t divisor_override, T *y) {
  const int64_t count = detail::pool_outputs(planes, g);
  if (count <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::avg_pool3d_kernel<T>)
  (x, g, count_include_pad, divisor_override, count, y);
  return detail::launched();
}

/// tc::adaptive_avg_pool3d: each cell averages floor(o * in / out) .. ceil((o + 1) * in /
/// out) - 1 along each dim, summed in double.
template <typename T>
result adaptive_avg_pool3d(const exec &ex, const T *x, int64_t planes, const tc::pool_geometry &g,
                           T *y) {
  const int64_t count = detail::pool_outputs(planes, g);
  if (count <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream,
            detail::adaptive_avg_pool3d_kernel<T>)
  (x, g, count, y);
  return detail::launched();
}

/// tc::max_pool2d: max_pool3d over N * C planes of unit depth.
template <typename T>
result max_pool2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                  int64_t KH, int64_t KW, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                  int64_t pad_w, int64_t dil_h, int64_t dil_w, T *y, int64_t OH, int64_t OW) {
  const tc::pool_geometry g{{1, H, W},          {1, OH, OW},       {1, KH, KW},
                            {1, stride_h, stride_w}, {0, pad_h, pad_w}, {1, dil_h, dil_w}};
  return max_pool3d(ex, x, N * C, g, y, static_cast<int64_t *>(nullptr));
}

/// tc::avg_pool2d: avg_pool3d over N * C planes of unit depth.
template <typename T>
result avg_pool2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                  int64_t KH, int64_t KW, int64_t stride_h, int64_t stride_w, int64_t pad_h,
                  int64_t pad_w, bool count_include_pad, int64_t divisor_override, T *y, int64_t OH,
                  int64_t OW) {
  const tc::pool_geometry g{{1, H, W},          {1, OH, OW},       {1, KH, KW},
                            {1, stride_h, stride_w}, {0, pad_h, pad_w}, {1, 1, 1}};
  return avg_pool3d(ex, x, N * C, g, count_include_pad, divisor_override, y);
}

/// tc::adaptive_avg_pool2d: adaptive_avg_pool3d over N * C planes of unit depth.
template <typename T>
result adaptive_avg_pool2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                           T *y, int64_t OH, int64_t OW) {
  const tc::pool_geometry g{{1, H, W}, {1, OH, OW}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}};
  return adaptive_avg_pool3d(ex, x, N * C, g, y);
}

/// tc::grid_sample: one thread per output, computed in float (double for double).
template <typename T>
result grid_sample(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                   const T *grid, int64_t OH, int64_t OW, tc::grid_mode mode,
                   tc::grid_padding padding, bool align_corners, T *y) {
  const int64_t count = N * C * OH * OW;
  if (count <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream,
            detail::grid_sample_kernel<T>)
  (x, C, H, W, grid, OH, OW, mode, padding, align_corners, count, y);
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
