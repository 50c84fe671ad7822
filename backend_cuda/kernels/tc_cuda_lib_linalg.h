// tcg GEMM and convolution, the CUDA twins of tc_kernels_linalg.h. Floating GEMMs are one
// cublasGemmStridedBatchedEx call (row-major operands read as their column-major transposes);
// integer GEMMs run a shared-memory tiled kernel accumulating in double like tc::gemm_loops.
// conv2d is im2col + a GEMM batched over groups per image, a single GEMM batched over images
// for ungrouped 1x1 convolutions, or a direct kernel when each group has one input channel
// (depthwise); conv_transpose2d is a GEMM batched over groups per image + col2im.
#pragma once

#include "tc_cuda_lib_common.h"

namespace tcg {
namespace detail {

/// cuBLAS takes batch counts as int and some of its kernels put the batch on grid z.
constexpr int64_t kMaxBlasBatch = 65535;
/// Edge of the integer GEMM's output tile (kTile x kTile threads = kThreads).
constexpr int kTile = 16;
static_assert(kTile * kTile == kThreads, "one thread per output of a tile");

template <typename T> struct blas_type;
template <> struct blas_type<float> { static constexpr cudaDataType_t value = CUDA_R_32F; };
template <> struct blas_type<double> { static constexpr cudaDataType_t value = CUDA_R_64F; };
template <> struct blas_type<tc::half> { static constexpr cudaDataType_t value = CUDA_R_16F; };
template <> struct blas_type<tc::bfloat16> { static constexpr cudaDataType_t value = CUDA_R_16BF; };

/// c[i] = alpha * 0 + beta * c[i] (c not read when beta == 0): a GEMM with k == 0.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    scale_kernel(T *__restrict__ c, int64_t count, double alpha, double beta) {
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    double value = alpha * 0.0;
    if (beta != 0.0)
      value += beta * tc::cast<double>(c[i]);
    c[i] = tc::cast<T>(value);
  }
}

/// tc::gemm_loops on the GPU: kTile x kTile output tiles, A and B staged through shared memory
/// as doubles, each output an ascending double sum over k (the CPU's exact order).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    gemm_tiled_kernel(int64_t batch, int64_t m, int64_t n, int64_t k, const T *__restrict__ a,
                      int64_t a_batch_stride, bool trans_a, const T *__restrict__ b,
                      int64_t b_batch_stride, bool trans_b, double alpha, double beta,
                      T *__restrict__ c) {
  __shared__ double a_tile[kTile][kTile + 1];
  __shared__ double b_tile[kTile][kTile + 1];
  const int tx = static_cast<int>(threadIdx.x) % kTile;
  const int ty = static_cast<int>(threadIdx.x) / kTile;
  const int64_t m_tiles = (m + kTile - 1) / kTile;
  const int64_t n_tiles = (n + kTile - 1) / kTile;
  for (int64_t z = blockIdx.z; z < batch; z += gridDim.z) {
    const T *a_matrix = a + z * a_batch_stride;
    const T *b_matrix = b + z * b_batch_stride;
    T *c_matrix = c + z * m * n;
    for (int64_t tm = blockIdx.y; tm < m_tiles; tm += gridDim.y) {
      for (int64_t tn = blockIdx.x; tn < n_tiles; tn += gridDim.x) {
        const int64_t i = tm * kTile + ty;
        const int64_t j = tn * kTile + tx;
        double sum = 0.0;
        for (int64_t p0 = 0; p0 < k; p0 += kTile) {
          const int64_t ap = p0 + tx; // A tile: (row i, column ap)
          a_tile[ty][tx] =
              i < m && ap < k
                  ? tc::cast<double>(ldg(a_matrix + (trans_a ? ap * m + i : i * k + ap)))
                  : 0.0;
          const int64_t bp = p0 + ty; // B tile: (row bp, column j)
          b_tile[ty][tx] =
              bp < k && j < n
                  ? tc::cast<double>(ldg(b_matrix + (trans_b ? j * k + bp : bp * n + j)))
                  : 0.0;
          __syncthreads();
TC_UNROLL
          for (int q = 0; q < kTile; ++q)
            sum += a_tile[ty][q] * b_tile[q][tx];
          __syncthreads();
        }
        if (i < m && j < n) {
          double value = alpha * sum;
          if (beta != 0.0)
            value += beta * tc::cast<double>(c_matrix[i * n + j]);
          c_matrix[i * n + j] = tc::cast<T>(value);
        }
      }
    }
  }
}

/// tc::grouped_gemm on the GPU: one thread per output element finds the (last) group holding
/// its row in the device-resident offsets and sums its dot product in float (double for
/// double and integers), so no offsets are read back and the launch stays asynchronous.
template <typename T, typename O>
__global__ void __launch_bounds__(kThreads)
    grouped_gemm_kernel(int64_t rows, int64_t k, int64_t n, int64_t groups,
                        const T *__restrict__ a, const T *__restrict__ b,
                        const O *__restrict__ offsets, T *__restrict__ c) {
  using acc_t = typename std::conditional<tc::is_floating<T>::value, float_acc_t<T>,
                                          double>::type;
  for (int64_t index = tc::cuda::global_thread(); index < rows * n;
       index += tc::cuda::grid_threads()) {
    const int64_t r = index / n;
    const int64_t j = index % n;
    int64_t group = -1;
    int64_t start = 0;
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t end = static_cast<int64_t>(ldg(offsets + g));
      if (r >= start && r < end)
        group = g;
      start = end;
    }
    acc_t sum = acc_t(0);
    if (group >= 0) {
      const T *row = a + r * k;
      const T *column = b + group * k * n + j;
      for (int64_t p = 0; p < k; ++p)
        sum += tc::cast<acc_t>(ldg(row + p)) * tc::cast<acc_t>(ldg(column + p * n));
    }
    c[index] = tc::cast<T>(sum);
  }
}

/// tc::linear_wq on the GPU: one warp per output element (row r, feature j). The lanes stride
/// over the weight row's bytes (one int8 element, or a packed int4 byte = elements 32b + l and
/// 32b + 16 + l), dequantize in registers as (q - z) * s and sum x * w in float; a shuffle
/// reduction gives the dot product, lane 0 adds the bias.
/// An integer X is a statically quantized x: (x - x_zero) * x_scale in float32.
template <typename X, typename T, typename Q, typename S>
__global__ void __launch_bounds__(kThreads)
    linear_wq_kernel(int64_t rows, int64_t n, int64_t k, int64_t groups,
                     const X *__restrict__ x, const Q *__restrict__ q,
                     const S *__restrict__ scales, const S *__restrict__ zeros,
                     const T *__restrict__ bias, T *__restrict__ out, bool dynamic_act,
                     float x_scale, int x_zero) {
  constexpr bool kPacked = std::is_same<Q, uint8_t>::value;
  const int lane = static_cast<int>(tc::cuda::global_thread() % 32);
  const int64_t group_size = k / groups;
  const int64_t bytes = kPacked ? k / 2 : k;
  for (int64_t warp = tc::cuda::global_thread() / 32; warp < rows * n;
       warp += tc::cuda::grid_threads() / 32) {
    const int64_t r = warp / n;
    const int64_t j = warp % n;
    const X *xr = x + r * k;
    const Q *row = q + j * bytes;
    auto input = [&](int64_t p) {
      if constexpr (std::is_integral<X>::value)
        return (static_cast<float>(static_cast<int>(ldg(xr + p)) - x_zero)) * x_scale;
      else
        return tc::cast<float>(ldg(xr + p));
    };
    float sum = 0.f;
    if (kPacked && dynamic_act) {
      // Each half-warp holds one 32-input block (two inputs per lane): its max |x| and its
      // integer sum are half-warp shuffle reductions (ir/ops.def's linear_wq {dynamic_act}).
      for (int64_t base = 0; base < bytes; base += 32) {
        const int64_t i = base + lane;
        const bool valid = i < bytes;
        const int64_t p = (i / 16) * 32 + i % 16;
        const float x0 = valid ? input(p) : 0.f;
        const float x1 = valid ? input(p + 16) : 0.f;
        float amax = fmaxf(fabsf(x0), fabsf(x1));
        for (int mask = 8; mask > 0; mask /= 2)
          amax = fmaxf(amax, shuffle_xor(amax, mask));
        const float d = amax / 127.f;
        const float inverse = d != 0.f ? 1.f / d : 0.f;
        const int value = valid ? static_cast<int>(ldg(row + i)) : 8 | (8 << 4);
        int dot = static_cast<int>(rintf(x0 * inverse)) * ((value & 15) - 8) +
                  static_cast<int>(rintf(x1 * inverse)) * (((value >> 4) & 15) - 8);
        for (int mask = 8; mask > 0; mask /= 2)
          dot += shuffle_xor(dot, mask);
        if (valid && lane % 16 == 0)
          sum += d * tc::cast<float>(ldg(scales + j * groups + i / 16)) *
                 static_cast<float>(dot);
      }
    }
    for (int64_t i = lane; i < bytes && !(kPacked && dynamic_act); i += 32) {
      const int value = static_cast<int>(ldg(row + i));
      if (kPacked) {
        const int64_t p = (i / 16) * 32 + i % 16;
        for (int half = 0; half < 2; ++half) {
          const int64_t e = p + 16 * half;
          const int64_t g = j * groups + e / group_size;
          const float zero = zeros != nullptr ? tc::cast<float>(ldg(zeros + g)) : 0.f;
          const float w = (static_cast<float>(((value >> (4 * half)) & 15) - 8) - zero) *
                          tc::cast<float>(ldg(scales + g));
          sum += input(e) * w;
        }
      } else {
        const int64_t g = j * groups + i / group_size;
        const float zero = zeros != nullptr ? tc::cast<float>(ldg(zeros + g)) : 0.f;
        const float w = (static_cast<float>(value) - zero) * tc::cast<float>(ldg(scales + g));
        sum += input(i) * w;
      }
    }
    for (int mask = 16; mask > 0; mask /= 2)
      sum += shuffle_xor(sum, mask);
    if (lane == 0)
      out[warp] = tc::cast<T>(sum + (bias != nullptr ? tc::cast<float>(ldg(bias + j)) : 0.f));
  }
}

/// Row-major C = A B is column-major C^T = B^T A^T: cuBLAS's first operand is our B (n x k
/// after its op), its second our A, and C^T has leading dimension n. alpha and beta are host
/// scalars (the handle's default CUBLAS_POINTER_MODE_HOST). C may be float for f16/bf16 A
/// and B (Out = float: the products stay unrounded, as conv_transpose2d's columns want).
template <typename T, typename Out = T>
result gemm_blas(const exec &ex, int64_t batch, int64_t m, int64_t n, int64_t k, const T *a,
                 int64_t a_batch_stride, bool trans_a, const T *b, int64_t b_batch_stride,
                 bool trans_b, double alpha, double beta, Out *c) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    return unsupported("tcg::gemm", "a GEMM dimension above INT_MAX (cuBLAS takes int)");
  using Scale = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const auto alpha_value = static_cast<Scale>(alpha);
  const auto beta_value = static_cast<Scale>(beta);
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (std::is_same<T, double>::value)
    compute = CUBLAS_COMPUTE_64F;
  else if (std::is_same<T, float>::value && ex.allow_tf32)
    compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  const cudaDataType_t type = blas_type<T>::value;
  const auto ld_b = static_cast<int>(trans_b ? k : n);
  const auto ld_a = static_cast<int>(trans_a ? m : k);
  for (int64_t first = 0; first < batch; first += kMaxBlasBatch) {
    const int64_t count = batch - first < kMaxBlasBatch ? batch - first : kMaxBlasBatch;
    const cublasStatus_t status = cublasGemmStridedBatchedEx(
        ex.blas, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
        static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha_value,
        b + first * b_batch_stride, type, ld_b, b_batch_stride, a + first * a_batch_stride, type,
        ld_a, a_batch_stride, &beta_value, c + first * m * n, blas_type<Out>::value,
        static_cast<int>(n), m * n,
        static_cast<int>(count), compute, CUBLAS_GEMM_DEFAULT);
    if (status != CUBLAS_STATUS_SUCCESS)
      return check(status, "cublasGemmStridedBatchedEx");
  }
  return result{};
}

/// A convolution's geometry, passed by value.
struct conv_shape {
  int64_t C, H, W, O, KH, KW;
  int64_t stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups, OH, OW;
};

/// Unfolds one image x [C, H, W] into columns [C * KH * KW, OH * OW] (every group's rows in
/// turn); taps in the padding read 0. Rows go on grid y, output pixels on x (32-bit math: the
/// caller checked OH * OW < 2^31, so adding the grid stride, < 2^24, cannot wrap).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    im2col_kernel(const T *__restrict__ x, conv_shape s, T *__restrict__ columns) {
  const int64_t rows = s.C * s.KH * s.KW;
  const auto pixels = static_cast<uint32_t>(s.OH * s.OW);
  const auto width = static_cast<uint32_t>(s.OW);
  const T zero = tc::cast<T>(0);
  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const int64_t kw = row % s.KW;
    const int64_t kh = row / s.KW % s.KH;
    const T *plane = x + row / (s.KW * s.KH) * s.H * s.W;
    T *target = columns + row * pixels;
    for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < pixels;
         p += gridDim.x * blockDim.x) {
      const uint32_t oh = p / width;
      const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dil_h;
      const int64_t iw = (p - oh * width) * s.stride_w - s.pad_w + kw * s.dil_w;
      target[p] = ih >= 0 && ih < s.H && iw >= 0 && iw < s.W ? ldg(plane + ih * s.W + iw) : zero;
    }
  }
}

/// Convolution when each group has one input channel (depthwise, with any channel
/// multiplier): one thread per output, accumulating in float (double for double), bias last.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    direct_conv_kernel(const T *__restrict__ x, const T *__restrict__ weight,
                       const T *__restrict__ bias, conv_shape s, int64_t count, T *__restrict__ y) {
  using F = float_acc_t<T>;
  const int64_t group_outputs = s.O / s.groups;
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t ow = i % s.OW;
    const int64_t oh = i / s.OW % s.OH;
    const int64_t plane = i / (s.OW * s.OH); // n * O + o
    const int64_t o = plane % s.O;
    const T *input = x + ((plane - o) / s.O * s.C + o / group_outputs) * s.H * s.W;
    const T *taps = weight + o * s.KH * s.KW;
    F sum = F(0);
    for (int64_t kh = 0; kh < s.KH; ++kh) {
      const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dil_h;
      if (ih < 0 || ih >= s.H)
        continue;
      for (int64_t kw = 0; kw < s.KW; ++kw) {
        const int64_t iw = ow * s.stride_w - s.pad_w + kw * s.dil_w;
        if (iw >= 0 && iw < s.W)
          sum += tc::cast<F>(ldg(input + ih * s.W + iw)) * tc::cast<F>(ldg(taps + kh * s.KW + kw));
      }
    }
    if (bias)
      sum += tc::cast<F>(ldg(bias + o));
    y[i] = tc::cast<T>(sum);
  }
}

/// tc::conv2d_wq on the GPU: one thread per output element; x dequantized as
/// (x - x_zero) * x_scale and the weight as (q - zero) * scale in registers, float sums.
template <typename X, typename Q, typename S>
__global__ void __launch_bounds__(kThreads)
    conv2d_wq_kernel(const X *__restrict__ x, float x_scale, int x_zero,
                     const Q *__restrict__ q, const S *__restrict__ scales,
                     const S *__restrict__ zeros, const S *__restrict__ bias, conv_shape s,
                     int64_t count, S *__restrict__ y) {
  const int64_t group_outputs = s.O / s.groups;
  const int64_t group_channels = s.C / s.groups;
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t ow = i % s.OW;
    const int64_t oh = i / s.OW % s.OH;
    const int64_t plane = i / (s.OW * s.OH); // n * O + o
    const int64_t o = plane % s.O;
    const X *image = x + ((plane - o) / s.O * s.C + o / group_outputs * group_channels) * s.H * s.W;
    const Q *taps = q + o * group_channels * s.KH * s.KW;
    const float scale = tc::cast<float>(ldg(scales + o));
    const float zero = zeros != nullptr ? tc::cast<float>(ldg(zeros + o)) : 0.f;
    float sum = 0.f;
    for (int64_t c = 0; c < group_channels; ++c)
      for (int64_t kh = 0; kh < s.KH; ++kh) {
        const int64_t ih = oh * s.stride_h - s.pad_h + kh * s.dil_h;
        if (ih < 0 || ih >= s.H)
          continue;
        for (int64_t kw = 0; kw < s.KW; ++kw) {
          const int64_t iw = ow * s.stride_w - s.pad_w + kw * s.dil_w;
          if (iw < 0 || iw >= s.W)
            continue;
          const float xv =
              static_cast<float>(static_cast<int>(ldg(image + (c * s.H + ih) * s.W + iw)) -
                                 x_zero) * x_scale;
          const float wv =
              (static_cast<float>(ldg(taps + (c * s.KH + kh) * s.KW + kw)) - zero) * scale;
          sum += xv * wv;
        }
      }
    if (bias)
      sum += tc::cast<float>(ldg(bias + o));
    y[i] = tc::cast<S>(sum);
  }
}

/// y[n, o, :] = bias[o] over planes [N * O] of `pixels` (blockDim.y planes per block).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    bias_fill_kernel(const T *__restrict__ bias, int64_t planes, int64_t O, int64_t pixels,
                     T *__restrict__ y) {
  const int64_t plane_step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t plane = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; plane < planes;
       plane += plane_step) {
    const T value = ldg(bias + plane % O);
    for (int64_t p = threadIdx.x; p < pixels; p += blockDim.x)
      y[plane * pixels + p] = value;
  }
}

} // namespace detail

/// tc::gemm: C[i] = alpha * op(A[i]) @ op(B[i]) + beta * C[i] for i < batch, row-major, A[i]
/// stored [m, k] (trans_a: [k, m]), B[i] [k, n] (trans_b: [n, k]), batch stride 0 broadcasting,
/// C contiguous [batch, m, n]; beta == 0 does not read C; k == 0 gives beta * C. Floating T:
/// cuBLAS on ex.blas (bound to ex.stream by the caller), fp32 accumulation (fp64 for double;
/// TF32 tensor cores for float when ex.allow_tf32), batches split at 65535; a dimension above
/// INT_MAX is unsupported. Integer T: a tiled kernel summing in double like tc::gemm_loops.
template <typename T>
result gemm(const exec &ex, int64_t batch, int64_t m, int64_t n, int64_t k, const T *a,
            int64_t a_batch_stride, bool trans_a, const T *b, int64_t b_batch_stride, bool trans_b,
            double alpha, double beta, T *c) {
  if (batch <= 0 || m <= 0 || n <= 0)
    return result{};
  // Row-major A batches against one shared B are one taller product (as in tc::gemm).
  if (batch > 1 && b_batch_stride == 0 && !trans_a && a_batch_stride == m * k) {
    m *= batch;
    batch = 1;
  }
  if (k <= 0) {
    const int64_t count = batch * m * n;
    TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream, detail::scale_kernel<T>)
    (c, count, alpha, beta);
    return detail::launched();
  }
  if constexpr (tc::is_floating<T>::value) {
    return detail::gemm_blas(ex, batch, m, n, k, a, a_batch_stride, trans_a, b, b_batch_stride,
                             trans_b, alpha, beta, c);
  } else {
    const dim3 grid(detail::grid_yz((n + detail::kTile - 1) / detail::kTile),
                    detail::grid_yz((m + detail::kTile - 1) / detail::kTile),
                    detail::grid_yz(batch));
    TC_LAUNCH(grid, detail::kThreads, 0, ex.stream, detail::gemm_tiled_kernel<T>)
    (batch, m, n, k, a, a_batch_stride, trans_a, b, b_batch_stride, trans_b, alpha, beta, c);
    return detail::launched();
  }
}

/// tc::grouped_gemm: C [rows, n] = A's rows [offsets[g-1], offsets[g]) times B[g] [k, n] per
/// group, in order; rows no group holds are zero. offsets stay on the device (one kernel,
/// detail::grouped_gemm_kernel).
template <typename T, typename O>
result grouped_gemm(const exec &ex, int64_t rows, int64_t k, int64_t n, int64_t groups,
                    const T *a, const T *b, const O *offsets, T *c) {
  if (rows <= 0 || n <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(rows * n), detail::kThreads, 0, ex.stream,
            detail::grouped_gemm_kernel<T, O>)
  (rows, k, n, groups, a, b, offsets, c);
  return detail::launched();
}

/// tc::linear_wq: out [rows, n] = x [rows, k] W^T + bias for an int8 (Q = int8_t, [n, k]) or
/// packed int4 (Q = uint8_t, [n, k / 2]) weight with scales (and zeros) [n, groups]; zeros and
/// bias may be nullptr; dynamic_act quantizes x per 32 first (detail::linear_wq_kernel).
template <typename T, typename Q, typename S>
result linear_wq(const exec &ex, int64_t rows, int64_t n, int64_t k, int64_t groups, const T *x,
                 const Q *q, const S *scales, const S *zeros, const T *bias, T *out,
                 bool dynamic_act = false) {
  if (rows <= 0 || n <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(rows * n * 32), detail::kThreads, 0, ex.stream,
            detail::linear_wq_kernel<T, T, Q, S>)
  (rows, n, k, groups, x, q, scales, zeros, bias, out, dynamic_act, 1.f, 0);
  return detail::launched();
}

/// tc::linear_wq_qx: x [rows, k] u8 or i8 standing for (x - x_zero) * x_scale (PT2E's static
/// activation quantization); out and bias have the scales' type. q_packed is the CPU's layout
/// only: CUDA bundles store weights row-major.
template <typename X, typename Q, typename S>
result linear_wq_qx(const exec &ex, int64_t rows, int64_t n, int64_t k, int64_t groups,
                    const X *x, double x_scale, int64_t x_zero, const Q *q, const S *scales,
                    const S *zeros, const S *bias, S *out, bool q_packed = false) {
  (void)q_packed;
  if (rows <= 0 || n <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(rows * n * 32), detail::kThreads, 0, ex.stream,
            detail::linear_wq_kernel<X, S, Q, S>)
  (rows, n, k, groups, x, q, scales, zeros, bias, out, false, static_cast<float>(x_scale),
   static_cast<int>(x_zero));
  return detail::launched();
}

/// Elements of T that conv2d needs in `workspace`: the im2col matrix of one image, all
/// groups, [C * KH * KW, OH * OW]; 0 when each group has one input channel (the direct
/// kernel needs none).
inline int64_t conv2d_workspace_size(int64_t C, int64_t KH, int64_t KW, int64_t OH, int64_t OW,
                                     int64_t groups) {
  if (groups > 0 && C == groups)
    return 0;
  return C * KH * KW * OH * OW;
}

/// tc::conv2d_wq: PT2E's statically quantized convolution (ir/ops.def conv2d_wq), a direct
/// kernel (a first version: no tensor cores). q_packed is the CPU's layout only: CUDA bundles
/// store weights row-major.
template <typename X, typename Q, typename S>
result conv2d_wq(const exec &ex, const X *x, int64_t N, int64_t C, int64_t H, int64_t W,
                 double x_scale, int64_t x_zero, const Q *q, int64_t O, int64_t KH, int64_t KW,
                 const S *scales, const S *zeros, const S *bias, int64_t stride_h,
                 int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h, int64_t dil_w,
                 int64_t groups, S *y, int64_t OH, int64_t OW, bool q_packed = false) {
  (void)q_packed;
  if (N <= 0 || O <= 0 || OH <= 0 || OW <= 0)
    return result{};
  if (groups <= 0 || C % groups != 0 || O % groups != 0)
    return detail::unsupported("tcg::conv2d_wq", "groups must divide the channel counts");
  const detail::conv_shape shape{C,     H,     W,     O,     KH,     KW, stride_h, stride_w,
                                 pad_h, pad_w, dil_h, dil_w, groups, OH, OW};
  const int64_t count = N * O * OH * OW;
  TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream,
            detail::conv2d_wq_kernel<X, Q, S>)
  (x, static_cast<float>(x_scale), static_cast<int>(x_zero), q, scales, zeros, bias, shape,
   count, y);
  return detail::launched();
}

/// tc::conv2d: x [N, C, H, W] (*) weight [O, C / groups, KH, KW] + bias [O] (may be null) ->
/// y [N, O, OH, OW]. Per image: im2col into `workspace` (conv2d_workspace_size elements), then
/// one GEMM batched over groups into y, pre-filled with the bias (beta = 1). Ungrouped 1x1
/// stride-1 unpadded convolutions are one GEMM batched over images; depthwise ones a direct
/// kernel. Unsupported: groups not dividing C and O, OH * OW >= 2^31.
template <typename T>
result conv2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
              const T *weight, int64_t O, int64_t KH, int64_t KW, const T *bias, int64_t stride_h,
              int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dil_h, int64_t dil_w,
              int64_t groups, T *y, int64_t OH, int64_t OW, T *workspace) {
  if (N <= 0 || O <= 0 || OH <= 0 || OW <= 0)
    return result{};
  if (groups <= 0 || C % groups != 0 || O % groups != 0)
    return detail::unsupported("tcg::conv2d", "groups must divide the channel counts");
  const detail::conv_shape shape{C,     H,     W,     O,     KH,     KW, stride_h, stride_w,
                                 pad_h, pad_w, dil_h, dil_w, groups, OH, OW};
  const int64_t group_channels = C / groups;
  const int64_t group_outputs = O / groups;
  const int64_t taps = group_channels * KH * KW;
  const int64_t pixels = OH * OW;
  if (group_channels == 1) {
    const int64_t count = N * O * pixels;
    TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream,
              detail::direct_conv_kernel<T>)
    (x, weight, bias, shape, count, y);
    return detail::launched();
  }
  if (pixels > INT32_MAX) // im2col's unsigned grid-stride loop must not wrap past 2^32
    return detail::unsupported("tcg::conv2d", "an output plane of 2^31 pixels or more");
  if (bias) {
    unsigned width = 1;
    while (width < detail::kThreads && width < pixels)
      width *= 2;
    TC_LAUNCH(detail::blocks_for(N * O * width), dim3(width, detail::kThreads / width), 0,
              ex.stream, detail::bias_fill_kernel<T>)
    (bias, N * O, O, pixels, y);
    const result filled = detail::launched();
    if (!filled.ok())
      return filled;
  }
  const double beta = bias ? 1.0 : 0.0;
  const bool pointwise = KH == 1 && KW == 1 && stride_h == 1 && stride_w == 1 && pad_h == 0 &&
                         pad_w == 0 && OH == H && OW == W;
  if (pointwise && groups == 1)
    return gemm<T>(ex, N, O, pixels, C, weight, 0, false, x, C * H * W, false, 1.0, beta, y);
  for (int64_t image = 0; image < N; ++image) {
    const T *planes = x + image * C * H * W;
    const T *columns = planes; // pointwise: the image is its own column matrix
    if (!pointwise) {
      const dim3 grid(detail::blocks_for(pixels), detail::grid_yz(C * KH * KW));
      TC_LAUNCH(grid, detail::kThreads, 0, ex.stream, detail::im2col_kernel<T>)
      (planes, shape, workspace);
      const result unfolded = detail::launched();
      if (!unfolded.ok())
        return unfolded;
      columns = workspace;
    }
    const result product =
        gemm<T>(ex, groups, group_outputs, pixels, taps, weight, group_outputs * taps, false,
                columns, taps * pixels, false, 1.0, beta, y + image * O * pixels);
    if (!product.ok())
      return product;
  }
  return result{};
}

// ---- transposed convolution ----
// GEMM + col2im, as in tc::conv_transpose2d (which says why): cuBLAS computes every
// multiply-add into float (double for double) columns, and col2im is one thread per output
// pixel gathering its KH * KW columns (no atomics: the result is deterministic).

namespace detail {

/// y[o, oh, ow] of one image = bias[o] + the sum over (kh, kw) of
/// columns[o * KH * KW + kh * KW + kw, ih * W + iw] where oh = ih * stride_h - pad_h +
/// kh * dil_h (likewise ow), in float_acc_t<T>.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    col2im_kernel(const float_acc_t<T> *__restrict__ columns, const T *__restrict__ bias,
                  conv_shape s, int64_t count, T *__restrict__ y) {
  using F = float_acc_t<T>;
  const int64_t pixels = s.H * s.W;
  for (int64_t i = tc::cuda::global_thread(); i < count; i += tc::cuda::grid_threads()) {
    const int64_t ow = i % s.OW;
    const int64_t oh = i / s.OW % s.OH;
    const int64_t o = i / (s.OW * s.OH);
    const F *taps = columns + o * s.KH * s.KW * pixels;
    F sum = bias ? tc::cast<F>(ldg(bias + o)) : F(0);
    for (int64_t kh = 0; kh < s.KH; ++kh) {
      const int64_t from_top = oh + s.pad_h - kh * s.dil_h; // = ih * stride_h
      if (from_top < 0 || from_top % s.stride_h != 0 || from_top / s.stride_h >= s.H)
        continue;
      const int64_t ih = from_top / s.stride_h;
      for (int64_t kw = 0; kw < s.KW; ++kw) {
        const int64_t from_left = ow + s.pad_w - kw * s.dil_w; // = iw * stride_w
        if (from_left < 0 || from_left % s.stride_w != 0 || from_left / s.stride_w >= s.W)
          continue;
        sum += ldg(taps + (kh * s.KW + kw) * pixels + ih * s.W + from_left / s.stride_w);
      }
    }
    y[i] = tc::cast<T>(sum);
  }
}

} // namespace detail

/// Elements of float_acc_t<T> (float, or double for double) that conv_transpose2d needs in
/// `workspace`: the columns of one image, [O * KH * KW, H * W]. (The CPU's adds one output row,
/// so the shared size function covers both.)
inline int64_t conv_transpose2d_workspace_size(int64_t O, int64_t KH, int64_t KW, int64_t H,
                                               int64_t W, int64_t OW) {
  return O * KH * KW * H * W + OW;
}

/// tc::conv_transpose2d: x [N, C, H, W] with weight [C, O / groups, KH, KW] + bias [O] (may be
/// null) -> y [N, O, OH, OW], OH/OW given (output padding is implicit in them). Per image: one
/// GEMM batched over groups, columns_g = weight_g^T @ x_g into `workspace`
/// (conv_transpose2d_workspace_size elements), then col2im. Floating T only. Unsupported:
/// groups not dividing C and O.
template <typename T>
result conv_transpose2d(const exec &ex, const T *x, int64_t N, int64_t C, int64_t H, int64_t W,
                        const T *weight, int64_t O, int64_t KH, int64_t KW, const T *bias,
                        int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w,
                        int64_t dil_h, int64_t dil_w, int64_t groups, T *y, int64_t OH,
                        int64_t OW, detail::float_acc_t<T> *workspace) {
  static_assert(tc::is_floating<T>::value, "tcg::conv_transpose2d takes floating types");
  if (N <= 0 || O <= 0 || OH <= 0 || OW <= 0)
    return result{};
  if (groups <= 0 || C % groups != 0 || O % groups != 0)
    return detail::unsupported("tcg::conv_transpose2d", "groups must divide the channel counts");
  const detail::conv_shape shape{C,     H,     W,     O,     KH,     KW, stride_h, stride_w,
                                 pad_h, pad_w, dil_h, dil_w, groups, OH, OW};
  const int64_t group_channels = C / groups;
  const int64_t rows = O / groups * KH * KW;
  const int64_t pixels = H * W;
  const int64_t count = O * OH * OW;
  for (int64_t image = 0; image < N; ++image) {
    result product{};
    if (pixels > 0 && group_channels > 0) {
      product = detail::gemm_blas<T, detail::float_acc_t<T>>(
          ex, groups, rows, pixels, group_channels, weight, group_channels * rows, true,
          x + image * C * pixels, group_channels * pixels, false, 1.0, 0.0, workspace);
    } else {
      // No input pixels or channels: every column is 0 and y is the bias.
      TC_LAUNCH(detail::blocks_for(O * KH * KW * pixels), detail::kThreads, 0, ex.stream,
                detail::scale_kernel<detail::float_acc_t<T>>)
      (workspace, O * KH * KW * pixels, 0.0, 0.0);
      product = detail::launched();
    }
    if (!product.ok())
      return product;
    TC_LAUNCH(detail::blocks_for(count), detail::kThreads, 0, ex.stream,
              detail::col2im_kernel<T>)
    (workspace, bias, shape, count, y + image * count);
    const result folded = detail::launched();
    if (!folded.ok())
      return folded;
  }
  return result{};
}

} // namespace tcg
