// tcg 2-D pooling over NCHW planes (max_pool2d, avg_pool2d, adaptive_avg_pool2d), the CUDA
// twins of tc_kernels_pool.h with the same window, padding and divisor rules: one thread per
// output over the flattened [N * C, OH, OW] outputs (the window loop dwarfs the index math).
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

} // namespace tcg
