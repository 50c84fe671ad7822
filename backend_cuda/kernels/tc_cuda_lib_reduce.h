// tcg reductions over the middle axis of x viewed as [outer, extent, inner] (sum, mean, amax,
// amin, prod, any, var, argmax) and the scan cumsum, the CUDA twins of tc_kernels_reduce.h, and
// the row framework
// that softmax and layer_norm (tc_cuda_lib_nn.h) share:
//   inner == 1: a warp per row (short rows, or many rows of <= 1024) or a whole block,
//               lanes striding the row;
//   inner > 1:  blocks of 32 x 8 threads, x over 32 adjacent outputs (coalesced reads of a
//               row of x), y splitting the extent 8 ways.
// Each thread folds its share, then its group (warp, block or the 8 threads of a column)
// merges the partials so that every member holds the result.
#pragma once

#include "tc_cuda_lib_common.h"

namespace tcg {

/// The reductions of reduce(), as tc::reduce_kind.
enum class reduce_kind { sum, mean, amax, amin, prod };

namespace detail {

/// A row longer than this gets a whole block rather than a warp.
constexpr int64_t kWarpRowLimit = 1024;
/// Rows of at most this many elements always get a warp: a block would mostly idle.
constexpr int64_t kShortRow = 128;
/// Fewer rows than this leave most of a GPU's warp slots (~2000 on 132 SMs at 16 warps per
/// SM) empty with a warp per row, so rows above kShortRow then get a block each.
constexpr int64_t kManyRows = 2048;
/// Threads splitting the extent of one output in the inner > 1 layout (blockDim.y).
constexpr int kColumnSplit = kThreads / kWarp;

// ---- thread groups: rank/size for striding a row, reduce() leaving the result everywhere ----
//
// A Reducer provides `acc` (trivial: it lives in __shared__), `identity()`, `merge(a, b)`
// and `static acc shuffle_xor(acc, int)`. Merges must be commutative (IEEE + is), so that
// butterfly partners agree and every member ends with the same value. (tc::cuda::block_reduce
// leaves its result in thread 0 and shuffles scalars only; variance, softmax and layer_norm
// need the result in every thread, and argmax and softmax carry pairs.)

/// The 32 lanes of a warp: butterfly shuffles.
struct warp_group {
  static constexpr int size = kWarp;
  int rank;
  __device__ warp_group() : rank(static_cast<int>(threadIdx.x) % kWarp) {}
  template <typename Reducer>
  __device__ typename Reducer::acc reduce(const Reducer &reducer,
                                          typename Reducer::acc value) const {
TC_UNROLL
    for (int mask = kWarp / 2; mask > 0; mask /= 2)
      value = reducer.merge(value, Reducer::shuffle_xor(value, mask));
    return value;
  }
};

/// The kThreads threads of a block: warp butterflies, then every thread merges the warps'
/// partials in warp order (so all of them hold the same result).
struct block_group {
  static constexpr int size = kThreads;
  int rank;
  __device__ block_group() : rank(static_cast<int>(threadIdx.x)) {}
  template <typename Reducer>
  __device__ typename Reducer::acc reduce(const Reducer &reducer,
                                          typename Reducer::acc value) const {
    __shared__ typename Reducer::acc partial[kThreads / kWarp];
    value = warp_group().reduce(reducer, value);
    __syncthreads(); // the previous reduce has finished reading `partial`
    if (rank % kWarp == 0)
      partial[rank / kWarp] = value;
    __syncthreads();
    value = partial[0];
    for (int w = 1; w < kThreads / kWarp; ++w)
      value = reducer.merge(value, partial[w]);
    return value;
  }
};

/// The kColumnSplit threads (threadIdx.y) sharing threadIdx.x in a 32 x kColumnSplit block.
struct column_group {
  static constexpr int size = kColumnSplit;
  int rank;
  __device__ column_group() : rank(static_cast<int>(threadIdx.y)) {}
  template <typename Reducer>
  __device__ typename Reducer::acc reduce(const Reducer &reducer,
                                          typename Reducer::acc value) const {
    __shared__ typename Reducer::acc partial[kColumnSplit][kWarp];
    __syncthreads();
    partial[rank][threadIdx.x] = value;
    __syncthreads();
    value = partial[0][threadIdx.x];
    for (int r = 1; r < kColumnSplit; ++r)
      value = reducer.merge(value, partial[r][threadIdx.x]);
    return value;
  }
};

// ---- the two launch layouts: Work(group, output, offset, step, valid) per output ----
//
// Output `output` (= o * inner + i) reduces x[offset + j * step] for j < extent. Every thread
// of a group calls Work, even when `valid` is false (a column past the end): its group
// synchronizes. Work folds nothing and writes nothing then.

template <typename Work, int GroupThreads>
__global__ void __launch_bounds__(kThreads) rows_kernel(Work work, int64_t rows) {
  using group = typename std::conditional<GroupThreads == kWarp, warp_group, block_group>::type;
  constexpr int groups_per_block = kThreads / GroupThreads;
  const int64_t row_step = static_cast<int64_t>(gridDim.x) * groups_per_block;
  for (int64_t row = static_cast<int64_t>(blockIdx.x) * groups_per_block +
                     static_cast<int>(threadIdx.x) / GroupThreads;
       row < rows; row += row_step) // uniform over each group
    work(group(), row, row * work.extent, int64_t(1), true);
}

template <typename Work>
__global__ void __launch_bounds__(kThreads)
    columns_kernel(Work work, int64_t outer, int64_t inner) {
  const int64_t columns = outer * inner;
  for (int64_t tile = blockIdx.x; tile * kWarp < columns; tile += gridDim.x) { // block-uniform
    const int64_t column = tile * kWarp + threadIdx.x;
    const bool valid = column < columns;
    const int64_t o = column / inner;
    const int64_t offset = o * work.extent * inner + (column - o * inner);
    work(column_group(), column, offset, inner, valid);
  }
}

/// Runs `work` once per output of x [outer, work.extent, inner] in the layout that suits it.
template <typename Work>
result launch_rows(const exec &ex, const Work &work, int64_t outer, int64_t inner) {
  if (outer <= 0 || inner <= 0)
    return result{};
  if (inner > 1) {
    const dim3 block(kWarp, kColumnSplit);
    TC_LAUNCH(tc::cuda::reduction_blocks((outer * inner + kWarp - 1) / kWarp), block, 0, ex.stream,
              columns_kernel<Work>)
    (work, outer, inner);
  } else if (work.extent <= kShortRow || (work.extent <= kWarpRowLimit && outer >= kManyRows)) {
    constexpr int64_t rows_per_block = kThreads / kWarp;
    TC_LAUNCH(tc::cuda::reduction_blocks((outer + rows_per_block - 1) / rows_per_block), kThreads,
              0, ex.stream, rows_kernel<Work, kWarp>)
    (work, outer);
  } else {
    TC_LAUNCH(tc::cuda::reduction_blocks(outer), kThreads, 0, ex.stream,
              rows_kernel<Work, kThreads>)
    (work, outer);
  }
  return launched();
}

// ---- reducers ----

/// A Reducer whose accumulator is one scalar that shuffle_xor moves.
template <typename A> struct scalar_reducer {
  using acc = A;
  __device__ static A shuffle_xor(A value, int mask) { return detail::shuffle_xor(value, mask); }
};

/// Sums in double (floating T) or wrapping int64, like tc::reduce.
template <typename T> struct sum_reducer : scalar_reducer<tc::cuda::accumulator_t<T>> {
  using A = tc::cuda::accumulator_t<T>;
  __device__ A identity() const { return A(0); }
  __device__ A add(A total, T value, int64_t) const {
    return tc::cuda::sum_op::combine(total, tc::cast<A>(value));
  }
  __device__ A merge(A a, A b) const { return tc::cuda::sum_op::combine(a, b); }
};

/// Products in double (floating T) or wrapping int64.
template <typename T> struct prod_reducer : scalar_reducer<tc::cuda::accumulator_t<T>> {
  using A = tc::cuda::accumulator_t<T>;
  __device__ static double multiply(double a, double b) { return a * b; }
  __device__ static int64_t multiply(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  }
  __device__ A identity() const { return A(1); }
  __device__ A add(A product, T value, int64_t) const {
    return multiply(product, tc::cast<A>(value));
  }
  __device__ A merge(A a, A b) const { return multiply(a, b); }
};

/// amax (Max = true) or amin in T's compute type; NaN wins.
template <typename T, bool Max> struct extremum_reducer : scalar_reducer<tc::compute_t<T>> {
  using A = tc::compute_t<T>;
  __device__ A identity() const { return Max ? lowest_of<T>() : highest_of<T>(); }
  __device__ A merge(A a, A b) const {
    return Max ? tc::cuda::max_op::combine(a, b) : tc::cuda::min_op::combine(a, b);
  }
  __device__ A add(A best, T value, int64_t) const { return merge(best, tc::cast<A>(value)); }
};

/// any(x != 0), NaN counting as true.
template <typename T> struct any_reducer : scalar_reducer<bool> {
  __device__ bool identity() const { return false; }
  __device__ bool add(bool any, T value, int64_t) const { return any || tc::cast<bool>(value); }
  __device__ bool merge(bool a, bool b) const { return a || b; }
};

/// Plain sums of F (variance's and layer_norm's passes).
template <typename F> struct plain_sum_reducer : scalar_reducer<F> {
  __device__ F identity() const { return F(0); }
  __device__ F merge(F a, F b) const { return a + b; }
};

/// The first maximum: a NaN beats everything and the first NaN wins, equal values go to the
/// smaller index (tc::argmax's sequential rule, made order-free so partials merge in any
/// order). The identity carries index INT64_MAX, so any element beats it.
template <typename T> struct argmax_reducer {
  using C = tc::compute_t<T>;
  struct acc {
    C value;
    int64_t index;
  };
  __device__ static acc shuffle_xor(acc a, int mask) {
    return acc{detail::shuffle_xor(a.value, mask), detail::shuffle_xor(a.index, mask)};
  }
  __device__ acc identity() const { return acc{lowest_of<T>(), INT64_MAX}; }
  __device__ acc merge(acc a, acc b) const {
    const bool a_nan = tc::is_nan(a.value);
    const bool b_nan = tc::is_nan(b.value);
    if (a_nan != b_nan)
      return a_nan ? a : b;
    if (!a_nan && a.value != b.value)
      return a.value > b.value ? a : b;
    return a.index <= b.index ? a : b;
  }
  __device__ acc add(acc best, T value, int64_t j) const {
    return merge(best, acc{tc::cast<C>(value), j});
  }
};

/// Folds each output's elements with Reducer, then writes finish(acc) from the group's rank 0.
template <typename T, typename Out, typename Reducer, typename Finish> struct fold_work {
  const T *x;
  Out *y;
  int64_t extent;
  Reducer reducer;
  Finish finish;
  template <typename Group>
  __device__ void operator()(const Group &group, int64_t output, int64_t offset, int64_t step,
                             bool valid) const {
    typename Reducer::acc value = reducer.identity();
    if (valid)
      for (int64_t j = group.rank; j < extent; j += Group::size)
        value = reducer.add(value, ldg(x + offset + j * step), j);
    value = group.reduce(reducer, value);
    if (valid && group.rank == 0)
      y[output] = finish(value);
  }
};

template <typename Out> struct cast_finish {
  template <typename A> __device__ Out operator()(A value) const { return tc::cast<Out>(value); }
};

template <typename Out> struct mean_finish {
  double count;
  template <typename A> __device__ Out operator()(A total) const {
    return tc::cast<Out>(tc::cast<double>(total) / count);
  }
};

struct index_finish {
  template <typename A> __device__ int64_t operator()(A best) const {
    return best.index == INT64_MAX ? 0 : best.index; // an empty extent gives 0, as on the CPU
  }
};

template <typename T, typename Out, typename Reducer, typename Finish>
result fold(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner, Out *y,
            Reducer reducer, Finish finish) {
  return launch_rows(ex, fold_work<T, Out, Reducer, Finish>{x, y, extent, reducer, finish}, outer,
                     inner);
}

/// Two passes in double: the mean, then the squared deviations from it.
template <typename T> struct variance_work {
  const T *x;
  T *y;
  int64_t extent;
  double divisor;
  template <typename Group>
  __device__ void operator()(const Group &group, int64_t output, int64_t offset, int64_t step,
                             bool valid) const {
    const plain_sum_reducer<double> sum;
    double total = 0.0;
    if (valid)
      for (int64_t j = group.rank; j < extent; j += Group::size)
        total += tc::cast<double>(ldg(x + offset + j * step));
    const double mean = group.reduce(sum, total) / static_cast<double>(extent);
    double squares = 0.0;
    if (valid)
      for (int64_t j = group.rank; j < extent; j += Group::size) {
        const double deviation = tc::cast<double>(ldg(x + offset + j * step)) - mean;
        squares += deviation * deviation;
      }
    squares = group.reduce(sum, squares);
    if (valid && group.rank == 0)
      y[output] = tc::cast<T>(squares / divisor);
  }
};

/// One thread per (o, i) line of x [outer, extent, inner], scanning it in order: adjacent
/// threads take adjacent i, so the reads of each step coalesce when inner is large.
template <typename T, typename Out>
__global__ void __launch_bounds__(kThreads)
    cumsum_kernel(const T *__restrict__ x, int64_t extent, int64_t inner, int64_t lines,
                  Out *__restrict__ y) {
  using A = tc::cuda::accumulator_t<T>;
  for (int64_t line = tc::cuda::global_thread(); line < lines; line += tc::cuda::grid_threads()) {
    const int64_t o = line / inner;
    const int64_t base = o * extent * inner + (line - o * inner);
    A total = A(0);
    for (int64_t j = 0; j < extent; ++j) {
      total = tc::cuda::sum_op::combine(total, tc::cast<A>(x[base + j * inner]));
      y[base + j * inner] = tc::cast<Out>(total);
    }
  }
}

} // namespace detail

/// tc::reduce: y[o, i] = the `kind` reduction of x[o, :, i], converted with cast<Out>. Floating
/// sums and products accumulate in double, integer ones in wrapping int64; amax/amin propagate
/// NaN and give -inf/+inf (the integer limits) over an empty extent; sum 0, prod 1, mean NaN.
/// Summation order differs from the CPU's, so float results differ by rounding only.
template <typename T, typename Out>
result reduce(const exec &ex, reduce_kind kind, const T *x, int64_t outer, int64_t extent,
              int64_t inner, Out *y) {
  using namespace detail;
  switch (kind) {
  case reduce_kind::sum:
    return fold(ex, x, outer, extent, inner, y, sum_reducer<T>{}, cast_finish<Out>{});
  case reduce_kind::mean:
    return fold(ex, x, outer, extent, inner, y, sum_reducer<T>{},
                mean_finish<Out>{static_cast<double>(extent)});
  case reduce_kind::prod:
    return fold(ex, x, outer, extent, inner, y, prod_reducer<T>{}, cast_finish<Out>{});
  case reduce_kind::amax:
    return fold(ex, x, outer, extent, inner, y, extremum_reducer<T, true>{}, cast_finish<Out>{});
  case reduce_kind::amin:
    return fold(ex, x, outer, extent, inner, y, extremum_reducer<T, false>{}, cast_finish<Out>{});
  }
  return unsupported("tcg::reduce", "unknown reduce_kind");
}

/// tc::reduce_any: y[o, i] = any x[o, :, i] != 0 (NaN counts as true); false over an empty
/// extent.
template <typename T>
result reduce_any(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
                  bool *y) {
  return detail::fold(ex, x, outer, extent, inner, y, detail::any_reducer<T>{},
                      detail::cast_finish<bool>{});
}

/// tc::variance: sum_j (x[o, j, i] - mean)^2 / max(0, extent - correction), two passes in
/// double. An empty extent gives NaN; extent <= correction gives inf (NaN for a constant row).
template <typename T>
result variance(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
                double correction, T *y) {
  const double count = static_cast<double>(extent);
  const double divisor = count - correction > 0.0 ? count - correction : 0.0;
  return detail::launch_rows(ex, detail::variance_work<T>{x, y, extent, divisor}, outer, inner);
}

/// tc::argmax: y[o, i] = the index of the first maximum of x[o, :, i]; the first NaN wins; an
/// empty extent gives 0.
template <typename T>
result argmax(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
              int64_t *y) {
  return detail::fold(ex, x, outer, extent, inner, y, detail::argmax_reducer<T>{},
                      detail::index_finish{});
}

/// tc::cumsum: y[o, j, i] = x[o, 0, i] + ... + x[o, j, i], accumulated in double (floating T)
/// or wrapping int64 and converted at every step, like the CPU kernel; a thread scans each
/// line sequentially. y must not overlap x.
template <typename T, typename Out>
result cumsum(const exec &ex, const T *x, int64_t outer, int64_t extent, int64_t inner,
              Out *y) {
  const int64_t lines = outer * inner;
  if (lines <= 0 || extent <= 0)
    return result{};
  TC_LAUNCH(detail::blocks_for(lines), detail::kThreads, 0, ex.stream,
            detail::cumsum_kernel<T, Out>)
  (x, extent, inner, lines, y);
  return detail::launched();
}

} // namespace tcg
