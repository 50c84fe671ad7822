// CPU kernels for 2-D pooling over NCHW planes: max_pool2d, avg_pool2d and
// adaptive_avg_pool2d, with PyTorch's window and divisor rules. The caller computes the
// output size (ceil_mode lives there); windows that start past the input are handled here.
#pragma once

#include <cstdint>

#include "tc_kernels_common.h"
#include "tc_math.h"

namespace tc {

/// Max over each window of each of the N * C planes. Padding acts as -infinity (the lowest
/// value for integers), a NaN in the window wins, and a window entirely in padding gives
/// -infinity.
template <typename T>
void max_pool2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW,
                int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h,
                int64_t dil_w, T *y, int64_t OH, int64_t OW) {
  using Compute = compute_t<T>;
  for (int64_t p = 0; p < N * C; ++p) {
    const T *plane = x + p * H * W;
    T *out = y + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        Compute best = detail::lowest_value<T>();
        for (int64_t kh = 0; kh < KH; ++kh) {
          int64_t ih = oh * stride_h - pad_h + kh * dil_h;
          if (ih < 0 || ih >= H)
            continue;
          for (int64_t kw = 0; kw < KW; ++kw) {
            int64_t iw = ow * stride_w - pad_w + kw * dil_w;
            if (iw < 0 || iw >= W)
              continue;
            Compute value = cast<Compute>(plane[ih * W + iw]);
            if (value > best || is_nan(value))
              best = value;
          }
        }
        out[oh * OW + ow] = cast<T>(best);
      }
    }
  }
}

/// Mean over each window, summed in double. The divisor is divisor_override if non-zero;
/// else, with count_include_pad, the window clipped to the padded input; else the window
/// clipped to the input. A window entirely outside the input gives 0 (PyTorch's CPU kernel).
template <typename T>
void avg_pool2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW,
                int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                bool count_include_pad, int64_t divisor_override, T *y, int64_t OH, int64_t OW) {
  for (int64_t p = 0; p < N * C; ++p) {
    const T *plane = x + p * H * W;
    T *out = y + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h0 = oh * stride_h - pad_h;
        int64_t w0 = ow * stride_w - pad_w;
        int64_t h1 = detail::min_count(h0 + KH, H + pad_h);
        int64_t w1 = detail::min_count(w0 + KW, W + pad_w);
        int64_t padded_count = (h1 - h0) * (w1 - w0);
        h0 = h0 < 0 ? 0 : h0;
        w0 = w0 < 0 ? 0 : w0;
        h1 = detail::min_count(h1, H);
        w1 = detail::min_count(w1, W);
        if (h0 >= h1 || w0 >= w1) {
          out[oh * OW + ow] = cast<T>(0);
          continue;
        }
        double sum = 0.0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += cast<double>(plane[ih * W + iw]);
        int64_t divisor = divisor_override != 0 ? divisor_override
                          : count_include_pad   ? padded_count
                                                : (h1 - h0) * (w1 - w0);
        out[oh * OW + ow] = cast<T>(sum / static_cast<double>(divisor));
      }
    }
  }
}

/// Output cell (i, j) averages input rows floor(i * H / OH) .. ceil((i + 1) * H / OH) - 1 and
/// the columns likewise (PyTorch's start_index / end_index). H and W must be positive
/// unless the output is empty.
template <typename T>
void adaptive_avg_pool2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, T *y, int64_t OH,
                         int64_t OW) {
  for (int64_t p = 0; p < N * C; ++p) {
    const T *plane = x + p * H * W;
    T *out = y + p * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      int64_t h0 = oh * H / OH;
      int64_t h1 = ((oh + 1) * H + OH - 1) / OH;
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t w0 = ow * W / OW;
        int64_t w1 = ((ow + 1) * W + OW - 1) / OW;
        double sum = 0.0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += cast<double>(plane[ih * W + iw]);
        out[oh * OW + ow] = cast<T>(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
      }
    }
  }
}

} // namespace tc
