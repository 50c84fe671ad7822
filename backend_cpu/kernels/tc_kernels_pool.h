// CPU kernels for 2-D pooling over NCHW planes: max_pool2d, avg_pool2d and
// adaptive_avg_pool2d, with PyTorch's window and divisor rules; and upsample (nearest,
// nearest-exact, linear) over 1 to 3 trailing dims with PyTorch's source indices. The caller
// computes the output size (ceil_mode lives there); windows that start past the input are
// handled here.
#pragma once

#include <cstdint>
#include <type_traits>

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


/// y [planes, out[0], .., out[spatial-1]] = x [planes, in[0], ..] upsampled over `spatial`
/// (1 to 3) trailing dims in `mode`, scales[s] being the user's scale factor of dim s (0 for
/// none): nearest modes copy the element upsample_nearest_index picks; linear blends the two
/// taps of upsample_linear_tap per dim (computed in float, double for double, with the
/// weights stored in T as PyTorch's CPU kernel does), outer dim first.
template <typename T>
void upsample(const T *x, int64_t planes, int spatial, const int64_t *in, const int64_t *out,
              const double *scales, upsample_mode mode, bool align_corners, T *y) {
  using A = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  int64_t in_plane = 1;
  int64_t out_plane = 1;
  for (int s = 0; s < spatial; ++s) {
    in_plane *= in[s];
    out_plane *= out[s];
  }
  // Dims before the spatial ones are padded with size 1 so that one 3-d loop covers 1 to 3.
  int64_t isz[3] = {1, 1, 1}, osz[3] = {1, 1, 1};
  double scl[3] = {0.0, 0.0, 0.0};
  for (int s = 0; s < spatial; ++s) {
    isz[3 - spatial + s] = in[s];
    osz[3 - spatial + s] = out[s];
    scl[3 - spatial + s] = scales[s];
  }
  const bool linear = mode == upsample_mode::linear;
  const bool exact = mode == upsample_mode::nearest_exact;
  for (int64_t p = 0; p < planes; ++p) {
    const T *plane = x + p * in_plane;
    T *target = y + p * out_plane;
    for (int64_t o0 = 0; o0 < osz[0]; ++o0) {
      for (int64_t o1 = 0; o1 < osz[1]; ++o1) {
        for (int64_t o2 = 0; o2 < osz[2]; ++o2) {
          const int64_t o[3] = {o0, o1, o2};
          if (!linear) {
            int64_t offset = 0;
            for (int s = 0; s < 3; ++s)
              offset = offset * isz[s] +
                       upsample_nearest_index(o[s], isz[s], osz[s], scl[s], exact);
            *target++ = plane[offset];
            continue;
          }
          linear_tap<A> taps[3];
          for (int s = 0; s < 3; ++s) {
            taps[s] = upsample_linear_tap<A>(o[s], isz[s], osz[s], scl[s], align_corners);
            taps[s].weight1 = cast<A>(cast<T>(taps[s].weight1));
            taps[s].weight0 = cast<A>(cast<T>(A(1) - taps[s].weight1));
          }
          // t(s, offset): the blend over dims s.. at the partial offset, outer dim first.
          A total = A(0);
          for (int c0 = 0; c0 < 2; ++c0) {
            const int64_t i0 = c0 ? taps[0].index1 : taps[0].index0;
            A inner1 = A(0);
            for (int c1 = 0; c1 < 2; ++c1) {
              const int64_t i1 = c1 ? taps[1].index1 : taps[1].index0;
              const T *line = plane + (i0 * isz[1] + i1) * isz[2];
              const A inner2 = cast<A>(line[taps[2].index0]) * taps[2].weight0 +
                               cast<A>(line[taps[2].index1]) * taps[2].weight1;
              inner1 += inner2 * (c1 ? taps[1].weight1 : taps[1].weight0);
            }
            total += inner1 * (c0 ? taps[0].weight1 : taps[0].weight0);
          }
          *target++ = cast<T>(total);
        }
      }
    }
  }
}

} // namespace tc
