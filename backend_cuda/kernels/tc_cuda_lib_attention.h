// tcg scaled dot-product attention, the CUDA twin of tc::attention: a fused flash-style kernel
// that never materializes the [L, S] scores. Each block owns kAttentionWarps * RowsPerWarp query
// rows of one batch entry and streams K/V through shared memory in tiles of 32 keys; per
// tile, lane j of a warp scores key j against the warp's rows, and each row keeps a running
// max, running sum and output accumulator (online softmax in float, double for double).
#pragma once

#include "tc_cuda_lib_common.h"

namespace tcg {
namespace detail {

constexpr int kAttentionWarps = kThreads / kWarp;
/// Keys per K/V tile: one per lane while scoring.
constexpr int kAttentionKeys = kWarp;
/// The largest head dimension (E and Ev) the kernel holds: Ev / 32 accumulators per lane.
constexpr int64_t kAttentionMaxHead = 256;

/// Query rows per warp: several rows reuse each key element read from shared memory; double
/// keeps one so that E = Ev = 256 still fits in an sm_80 block's shared memory.
template <typename T> constexpr int attention_rows_per_warp() {
  return std::is_same<T, double>::value ? 1 : 4;
}

template <typename T> struct attention_params {
  const T *q;
  const T *k;
  const T *v;
  const void *mask;
  T *y;
  int64_t L, S, E, Ev;
  int64_t row_blocks; ///< ceil(L / rows per block)
  int64_t work;       ///< batch * row_blocks
  float_acc_t<T> scale;
  bool mask_is_bool;
  bool causal;
};

/// Shared memory: the block's query rows [rows][E], a key tile [32][E + 1] (the odd stride
/// keeps lanes reading different keys on different banks) and a value tile [32][Ev].
template <typename T> int64_t attention_shared_bytes(int64_t E, int64_t Ev) {
  const int64_t rows = kAttentionWarps * attention_rows_per_warp<T>();
  return (rows * E + kAttentionKeys * (E + 1) + kAttentionKeys * Ev) *
         static_cast<int64_t>(sizeof(float_acc_t<T>));
}

/// Copies rows [first, first + count) of a [*, width] matrix into tile[count][stride] as F,
/// zero-filling rows at or past `limit` (so masked-out padding keys carry no NaN). Tiles hold
/// at most 32 rows of 256 (int index math); the rows are contiguous, so reads coalesce.
template <typename T, typename F>
__device__ inline void load_tile(const T *__restrict__ source, int64_t first, int64_t limit,
                                 int count, int width, int stride, F *tile) {
  for (int index = static_cast<int>(threadIdx.x); index < count * width;
       index += static_cast<int>(blockDim.x)) {
    const int row = index / width;
    const int column = index - row * width;
    tile[row * stride + column] =
        first + row < limit ? tc::cast<F>(ldg(source + (first + row) * width + column)) : F(0);
  }
}

template <typename T, int RowsPerWarp, int Chunks>
__global__ void __launch_bounds__(kThreads) attention_kernel(attention_params<T> p) {
  using F = float_acc_t<T>;
  constexpr int rows_per_block = kAttentionWarps * RowsPerWarp;
  const int E = static_cast<int>(p.E), Ev = static_cast<int>(p.Ev); // <= kAttentionMaxHead
  F *queries = tc::cuda::dynamic_shared<F>();
  F *keys = queries + rows_per_block * E;
  F *values = keys + kAttentionKeys * (E + 1);
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  const F negative_infinity = -tc::infinity<F>();
  const auto *bool_mask = static_cast<const uint8_t *>(p.mask);
  const auto *additive_mask = static_cast<const T *>(p.mask);

  for (int64_t work = blockIdx.x; work < p.work; work += gridDim.x) { // block-uniform
    const int64_t b = work / p.row_blocks;
    const int64_t first_row = (work - b * p.row_blocks) * rows_per_block;
    const int64_t row_count =
        p.L - first_row < rows_per_block ? p.L - first_row : int64_t(rows_per_block);
    __syncthreads(); // the previous work item is done with the query tile
    load_tile(p.q + b * p.L * p.E, first_row, p.L, rows_per_block, E, E, queries);

    F row_max[RowsPerWarp], row_sum[RowsPerWarp], out[RowsPerWarp][Chunks];
TC_UNROLL
    for (int r = 0; r < RowsPerWarp; ++r) {
      row_max[r] = negative_infinity;
      row_sum[r] = F(0);
TC_UNROLL
      for (int t = 0; t < Chunks; ++t)
        out[r][t] = F(0);
    }
    // Causal attention masks key j > i: keys past the block's last row never count.
    const int64_t key_end = p.causal && first_row + row_count < p.S ? first_row + row_count : p.S;
    for (int64_t key0 = 0; key0 < key_end; key0 += kAttentionKeys) {
      __syncthreads(); // everyone is done with the previous K/V tile
      load_tile(p.k + b * p.S * p.E, key0, p.S, kAttentionKeys, E, E + 1, keys);
      load_tile(p.v + b * p.S * p.Ev, key0, p.S, kAttentionKeys, Ev, Ev, values);
      __syncthreads();

      F dot[RowsPerWarp] = {};
      const F *key = keys + lane * (E + 1);
      const F *query = queries + warp * RowsPerWarp * E;
      for (int e = 0; e < E; ++e) {
        const F key_value = key[e];
TC_UNROLL
        for (int r = 0; r < RowsPerWarp; ++r)
          dot[r] += query[r * E + e] * key_value;
      }
      const int64_t j = key0 + lane;
TC_UNROLL
      for (int r = 0; r < RowsPerWarp; ++r) {
        const int64_t i = first_row + warp * RowsPerWarp + r;
        if (i >= p.L) // warp-uniform
          break;
        // The score exactly as tc::attention forms it: causal -inf, then the mask.
        F score = negative_infinity;
        if (j < p.S) {
          if (!p.causal || j <= i)
            score = dot[r] * p.scale;
          const int64_t at = (b * p.L + i) * p.S + j;
          if (p.mask && p.mask_is_bool && bool_mask[at] == 0)
            score = negative_infinity;
          else if (p.mask && !p.mask_is_bool)
            score += tc::cast<F>(ldg(additive_mask + at));
        }
        F tile_max = score;
TC_UNROLL
        for (int mask = kWarp / 2; mask > 0; mask /= 2)
          tile_max = max_nan(tile_max, shuffle_xor(tile_max, mask));
        const F new_max = max_nan(row_max[r], tile_max);
        // -inf scores weigh 0, and a running state that saw only -inf rescales to 0, so a
        // fully masked tile leaves no NaN behind (exp(-inf - -inf) would be NaN).
        const F weight = score == negative_infinity ? F(0) : exp_of(score - new_max);
        const F rescale = row_max[r] == negative_infinity ? F(0) : exp_of(row_max[r] - new_max);
        F weight_sum = weight;
TC_UNROLL
        for (int mask = kWarp / 2; mask > 0; mask /= 2)
          weight_sum += shuffle_xor(weight_sum, mask);
        row_sum[r] = row_sum[r] * rescale + weight_sum;
        row_max[r] = new_max;
TC_UNROLL
        for (int t = 0; t < Chunks; ++t)
          out[r][t] *= rescale;
        for (int key_lane = 0; key_lane < kAttentionKeys; ++key_lane) {
          const F key_weight = shuffle_from(weight, key_lane);
          const F *value_row = values + key_lane * Ev;
TC_UNROLL
          for (int t = 0; t < Chunks; ++t)
            if (lane + t * kWarp < Ev)
              out[r][t] += key_weight * value_row[lane + t * kWarp];
        }
      }
    }
TC_UNROLL
    for (int r = 0; r < RowsPerWarp; ++r) {
      const int64_t i = first_row + warp * RowsPerWarp + r;
      if (i >= p.L)
        break;
      T *target = p.y + (b * p.L + i) * p.Ev;
      const bool masked = row_max[r] == negative_infinity; // fully masked (or S == 0): zeros
TC_UNROLL
      for (int t = 0; t < Chunks; ++t)
        if (lane + t * kWarp < Ev)
          target[lane + t * kWarp] = tc::cast<T>(masked ? F(0) : out[r][t] / row_sum[r]);
    }
  }
}

template <typename T, int Chunks>
result launch_attention(const exec &ex, const attention_params<T> &params, int64_t bytes) {
  constexpr int rows = attention_rows_per_warp<T>();
  // Above 48 KiB a kernel must opt in to the larger shared memory of sm_80+. The opt-in is an
  // attribute of the kernel on the device, shared by every context (and host thread) using
  // this instantiation, so it is raised to the most the instantiation can need (E = 256,
  // Ev = Chunks * 32), capped at the device's limit, and never lowered: a context with
  // smaller heads setting exactly its own size would make a concurrent launch with larger
  // heads fail. A launch above the device's limit still fails, at cudaFuncSetAttribute.
  if (bytes > 48 * 1024) {
    int device = 0;
    int optin = 0;
    result opted = check(cudaGetDevice(&device), "cudaGetDevice");
    if (opted.ok())
      opted = check(
          cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
          "cudaDeviceGetAttribute");
    if (!opted.ok())
      return opted;
    const int64_t most = attention_shared_bytes<T>(kAttentionMaxHead, int64_t(Chunks) * kWarp);
    const int64_t capped = most < optin ? most : int64_t(optin);
    const int64_t limit = bytes > capped ? bytes : capped;
    opted = check(cudaFuncSetAttribute(attention_kernel<T, rows, Chunks>,
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(limit)),
                  "cudaFuncSetAttribute");
    if (!opted.ok())
      return opted;
  }
  const unsigned blocks =
      static_cast<unsigned>(params.work < INT_MAX ? params.work : int64_t(INT_MAX));
  TC_LAUNCH(blocks, kThreads, static_cast<size_t>(bytes), ex.stream,
            attention_kernel<T, rows, Chunks>)
  (params);
  return launched();
}

} // namespace detail

/// Doubles of workspace that attention needs: none (the fused kernel keeps its state on chip);
/// 1 so that callers never allocate zero bytes.
inline int64_t attention_workspace_size(int64_t) { return 1; }

/// tc::attention: y[b, i, :] = sum_j softmax_j(score[i, j]) v[b, j, :], score = scale * q . k,
/// for q [batch, L, E], k [batch, S, E], v [batch, S, Ev], y [batch, L, Ev]; causal masks
/// j > i; `mask` (null for none) is contiguous [batch, L, S], bytes (0 = masked) with
/// mask_is_bool, else T values added to the scores. A fully masked row gives zeros. Runs in
/// float (double for double). E and Ev up to 256 (else unsupported); `workspace` is unused.
/// Unlike tc::attention, keys past a causal block's last row are skipped, so +inf additive
/// mask entries there do not turn the row into NaN.
template <typename T>
result attention(const exec &ex, const T *q, const T *k, const T *v, int64_t batch, int64_t L,
                 int64_t S, int64_t E, int64_t Ev, const void *mask, bool mask_is_bool,
                 double scale, bool causal, T *y, double *workspace) {
  (void)workspace;
  if (batch <= 0 || L <= 0 || Ev <= 0)
    return result{};
  if (E > detail::kAttentionMaxHead || Ev > detail::kAttentionMaxHead)
    return detail::unsupported("tcg::attention", "a head dimension (E or Ev) above 256");
  constexpr int64_t rows_per_block = detail::kAttentionWarps * detail::attention_rows_per_warp<T>();
  detail::attention_params<T> params{};
  params.q = q;
  params.k = k;
  params.v = v;
  params.mask = mask;
  params.y = y;
  params.L = L;
  params.S = S;
  params.E = E;
  params.Ev = Ev;
  params.row_blocks = (L + rows_per_block - 1) / rows_per_block;
  params.work = batch * params.row_blocks;
  params.scale = static_cast<detail::float_acc_t<T>>(scale);
  params.mask_is_bool = mask_is_bool;
  params.causal = causal;
  const int64_t bytes = detail::attention_shared_bytes<T>(E, Ev);
  if (Ev <= 64)
    return detail::launch_attention<T, 2>(ex, params, bytes);
  if (Ev <= 128)
    return detail::launch_attention<T, 4>(ex, params, bytes);
  return detail::launch_attention<T, 8>(ex, params, bytes);
}

} // namespace tcg
