// CPU kernels for pooling over [D, H, W] planes: max_pool3d (values and/or indices),
// avg_pool3d and adaptive_avg_pool3d with PyTorch's window and divisor rules (tc_math.h's
// *_pool_window, shared with the CUDA kernels), the 2-d pools being 3-d ones of unit depth;
// upsample (nearest, nearest-exact, linear) over 1 to 3 trailing dims with PyTorch's source
// indices; and grid_sample. The caller
// computes the output size (ceil_mode lives there); windows that start past the input are
// handled here.
#pragma once

#include <cstdint>
#include <type_traits>

#include "tc_kernels_common.h"
#include "tc_math.h"

namespace tc {

/// Max over each window of each of the `planes` [D, H, W] planes of x into y (when not null)
/// and the offset of each maximum within its plane into `indices` (when not null; PyTorch's
/// max_pool indices). Padding acts as -infinity (the lowest value for integers), a NaN in
/// the window wins, and a window entirely in padding gives -infinity. See max_pool_window.
template <typename T>
void max_pool3d(const T *x, int64_t planes, const pool_geometry &g, T *y, int64_t *indices) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t p = 0; p < planes; ++p) {
    const T *plane = x + p * in_plane;
    for (int64_t o = 0; o < out_plane; ++o) {
      int64_t position[3];
      pool_position(g, o, position);
      int64_t where = 0;
      const compute_t<T> best = max_pool_window(plane, g, position, &where);
      if (y)
        y[p * out_plane + o] = cast<T>(best);
      if (indices)
        indices[p * out_plane + o] = where;
    }
  }
}

/// Mean over each window of each [D, H, W] plane (see avg_pool_window for the divisor).
template <typename T>
void avg_pool3d(const T *x, int64_t planes, const pool_geometry &g, bool count_include_pad,
                int64_t divisor_override, T *y) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < out_plane; ++o) {
      int64_t position[3];
      pool_position(g, o, position);
      y[p * out_plane + o] = cast<T>(
          avg_pool_window(x + p * in_plane, g, position, count_include_pad, divisor_override));
    }
  }
}

/// Adaptive mean pooling of each [D, H, W] plane to [OD, OH, OW] (see
/// adaptive_avg_pool_window). The input dims must be positive unless the output is empty.
template <typename T>
void adaptive_avg_pool3d(const T *x, int64_t planes, const pool_geometry &g, T *y) {
  const int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  const int64_t out_plane = g.out[0] * g.out[1] * g.out[2];
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t o = 0; o < out_plane; ++o) {
      int64_t position[3];
      pool_position(g, o, position);
      y[p * out_plane + o] = cast<T>(adaptive_avg_pool_window(x + p * in_plane, g, position));
    }
  }
}

/// max_pool3d over N * C planes of unit depth.
template <typename T>
void max_pool2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW,
                int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h,
                int64_t dil_w, T *y, int64_t OH, int64_t OW) {
  const pool_geometry g{{1, H, W},          {1, OH, OW},       {1, KH, KW},
                        {1, stride_h, stride_w}, {0, pad_h, pad_w}, {1, dil_h, dil_w}};
  max_pool3d(x, N * C, g, y, static_cast<int64_t *>(nullptr));
}

/// avg_pool3d over N * C planes of unit depth.
template <typename T>
void avg_pool2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, int64_t KH, int64_t KW,
                int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                bool count_include_pad, int64_t divisor_override, T *y, int64_t OH, int64_t OW) {
  const pool_geometry g{{1, H, W},          {1, OH, OW},       {1, KH, KW},
                        {1, stride_h, stride_w}, {0, pad_h, pad_w}, {1, 1, 1}};
  avg_pool3d(x, N * C, g, count_include_pad, divisor_override, y);
}

/// adaptive_avg_pool3d over N * C planes of unit depth.
template <typename T>
void adaptive_avg_pool2d(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, T *y, int64_t OH,
                         int64_t OW) {
  const pool_geometry g{{1, H, W}, {1, OH, OW}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}};
  adaptive_avg_pool3d(x, N * C, g, y);
}

/// grid_sample of x [N, C, H, W] at grid [N, OH, OW, 2] into y [N, C, OH, OW] (see
/// grid_sample_point), computed in float (double for double) and rounded once.
template <typename T>
void grid_sample(const T *x, int64_t N, int64_t C, int64_t H, int64_t W, const T *grid,
                 int64_t OH, int64_t OW, grid_mode mode, grid_padding padding,
                 bool align_corners, T *y) {
  using A = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const T *plane = x + (n * C + c) * H * W;
      T *target = y + (n * C + c) * OH * OW;
      for (int64_t p = 0; p < OH * OW; ++p) {
        const T *point = grid + (n * OH * OW + p) * 2;
        target[p] = cast<T>(grid_sample_point<T, A>(plane, H, W, cast<A>(point[0]),
                                                    cast<A>(point[1]), mode, padding,
                                                    align_corners));
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
