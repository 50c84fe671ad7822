// tcg row-wise neural-network composites: softmax / log_softmax and layer_norm on the row
// framework of tc_cuda_lib_reduce.h (a warp or block per row, 32 x 8 blocks across strided
// rows), and inference batch_norm; the CUDA twins of tc_kernels_nn.h's first three. They
// compute in float (double for double) where the CPU uses double, so float results differ
// from tc:: by rounding.
#pragma once

#include "tc_cuda_lib_reduce.h"

namespace tcg {
namespace detail {

/// Online softmax statistics of a row: its maximum (NaN wins) and sum of exp(x - max). Folding
/// element by element costs one exp each; partial states rescale to the larger maximum when
/// merged. -inf elements contribute nothing, so a row of -inf keeps sum 0 (and then gives NaN,
/// like tc::softmax); a +inf maximum makes the sum NaN (exp(inf - inf)), as in tc::softmax.
template <typename F> struct softmax_reducer {
  struct acc {
    F max;
    F sum;
  };
  __device__ static acc shuffle_xor(acc a, int mask) {
    return acc{detail::shuffle_xor(a.max, mask), detail::shuffle_xor(a.sum, mask)};
  }
  /// sum * exp(from - to), where a zero sum stays zero (from may then be -inf).
  __device__ static F rescale(F sum, F from, F to) {
    return sum == F(0) ? F(0) : sum * exp_of(from - to);
  }
  __device__ acc identity() const { return acc{-tc::infinity<F>(), F(0)}; }
  __device__ acc merge(acc a, acc b) const {
    const F max = max_nan(a.max, b.max);
    return acc{max, rescale(a.sum, a.max, max) + rescale(b.sum, b.max, max)};
  }
  __device__ acc add(acc state, F x) const {
    if (x == -tc::infinity<F>())
      return state;
    if (tc::is_nan(x) || tc::is_nan(state.max))
      return acc{tc::quiet_nan<F>(), tc::quiet_nan<F>()};
    if (x > state.max) // exp(x - x) is 1, or NaN for x = +inf
      return acc{x, rescale(state.sum, state.max, x) + exp_of(x - x)};
    return acc{state.max, state.sum + exp_of(x - state.max)};
  }
};

template <typename T> struct softmax_work {
  using F = float_acc_t<T>;
  const T *x;
  T *y;
  int64_t extent;
  bool log;
  template <typename Group>
  __device__ void operator()(const Group &group, int64_t, int64_t offset, int64_t step,
                             bool valid) const {
    const softmax_reducer<F> reducer;
    typename softmax_reducer<F>::acc state = reducer.identity();
    if (valid)
      for (int64_t j = group.rank; j < extent; j += Group::size)
        state = reducer.add(state, tc::cast<F>(ldg(x + offset + j * step)));
    state = group.reduce(reducer, state);
    if (!valid)
      return;
    const F log_sum = log_of(state.sum);
    for (int64_t j = group.rank; j < extent; j += Group::size) {
      const F shifted = tc::cast<F>(ldg(x + offset + j * step)) - state.max;
      y[offset + j * step] = tc::cast<T>(log ? shifted - log_sum : exp_of(shifted) / state.sum);
    }
  }
};

/// Two passes for the statistics (mean, then squared deviations: no cancellation), a third
/// for the output.
template <typename T> struct layer_norm_work {
  using F = float_acc_t<T>;
  const T *x;
  const T *weight;
  const T *bias;
  T *y;
  int64_t extent;
  F eps;
  template <typename Group>
  __device__ void operator()(const Group &group, int64_t, int64_t offset, int64_t,
                             bool) const { // rows only: step 1, always valid
    const plain_sum_reducer<F> sum;
    const T *row = x + offset;
    F total = F(0);
    for (int64_t c = group.rank; c < extent; c += Group::size)
      total += tc::cast<F>(ldg(row + c));
    const F mean = group.reduce(sum, total) / static_cast<F>(extent);
    F squares = F(0);
    for (int64_t c = group.rank; c < extent; c += Group::size) {
      const F deviation = tc::cast<F>(ldg(row + c)) - mean;
      squares += deviation * deviation;
    }
    const F variance = group.reduce(sum, squares) / static_cast<F>(extent);
    const F inverse_std = F(1) / sqrt_of(variance + eps);
    for (int64_t c = group.rank; c < extent; c += Group::size) {
      F value = (tc::cast<F>(ldg(row + c)) - mean) * inverse_std;
      if (weight)
        value *= tc::cast<F>(ldg(weight + c));
      if (bias)
        value += tc::cast<F>(ldg(bias + c));
      y[offset + c] = tc::cast<T>(value);
    }
  }
};

/// y = x * scale[c] + shift[c] over planes [N * C] of `spatial` elements. Each block holds
/// blockDim.y planes of blockDim.x threads (narrow for small planes, so the block stays busy);
/// every thread derives its plane's scale and shift in double.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    batch_norm_kernel(const T *__restrict__ x, int64_t planes, int64_t C, int64_t spatial,
                      const T *__restrict__ mean, const T *__restrict__ var,
                      const T *__restrict__ weight, const T *__restrict__ bias, double eps,
                      T *__restrict__ y) {
  using F = float_acc_t<T>;
  const int64_t plane_step = static_cast<int64_t>(gridDim.x) * blockDim.y;
  for (int64_t plane = static_cast<int64_t>(blockIdx.x) * blockDim.y + threadIdx.y; plane < planes;
       plane += plane_step) {
    const int64_t c = plane % C;
    double scale = 1.0 / sqrt(tc::cast<double>(ldg(var + c)) + eps);
    if (weight)
      scale *= tc::cast<double>(ldg(weight + c));
    const double shift =
        (bias ? tc::cast<double>(ldg(bias + c)) : 0.0) - tc::cast<double>(ldg(mean + c)) * scale;
    const auto scale_f = static_cast<F>(scale);
    const auto shift_f = static_cast<F>(shift);
    const int64_t base = plane * spatial;
    for (int64_t s = threadIdx.x; s < spatial; s += blockDim.x)
      y[base + s] = tc::cast<T>(tc::cast<F>(ldg(x + base + s)) * scale_f + shift_f);
  }
}

} // namespace detail

/// tc::softmax (log = false) / log_softmax (log = true) of x [outer, extent, inner] along
/// extent, in float (double for double): one pass for the running max and sum, one for the
/// output. A NaN in a row makes the row NaN; a row of all -inf is NaN, as on the CPU.
template <typename T>
result softmax(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner, bool log,
               T *y) {
  return detail::launch_rows(ex, detail::softmax_work<T>{x, y, extent, log}, outer, inner);
}

/// tc::layer_norm over each row of x [rows, cols] (weight and bias may be null), statistics in
/// float (double for double), two passes.
template <typename T>
result layer_norm(const exec &ex, const T *x, int64_t rows, int64_t cols, const T *weight,
                  const T *bias, double eps, T *y) {
  if (cols <= 0)
    return result{};
  using F = detail::float_acc_t<T>;
  return detail::launch_rows(
      ex, detail::layer_norm_work<T>{x, weight, bias, y, cols, static_cast<F>(eps)}, rows, 1);
}

/// tc::batch_norm (inference) of x [N, C, spatial]: y = x * scale + shift per channel, scale
/// and shift derived in double, applied in float (double for double). weight and bias may be
/// null.
template <typename T>
result batch_norm(const exec &ex, const T *x, int64_t N, int64_t C, int64_t spatial, const T *mean,
                  const T *var, const T *weight, const T *bias, double eps, T *y) {
  const int64_t planes = N * C;
  if (planes <= 0 || spatial <= 0)
    return result{};
  unsigned width = 1;
  while (width < detail::kThreads && width < spatial)
    width *= 2;
  const dim3 block(width, detail::kThreads / width);
  TC_LAUNCH(detail::blocks_for(planes * width), block, 0, ex.stream, detail::batch_norm_kernel<T>)
  (x, planes, C, spatial, mean, var, weight, bias, eps, y);
  return detail::launched();
}

} // namespace tcg
