// tcg scaled dot-product attention, the CUDA twin of tc::attention: a fused flash-style kernel
// that never materializes the [L, S] scores. Each block owns kAttentionWarps * RowsPerWarp query
// rows of one batch entry and streams K/V through shared memory in tiles of 32 keys; per
// tile, lane j of a warp scores key j against the warp's rows, and each row keeps a running
// max, running sum and output accumulator (online softmax in float, double for double).
//
// Decode-shaped attention (at most kSplitMaxRows query rows, many keys) would leave one block
// per batch entry streaming every key while most of the GPU idles, so the keys are split over
// several blocks (flash-decoding): each writes its rows' partial state (max, sum, unnormalized
// output) to the workspace, and a second kernel merges the partials of each row.
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

/// Split keys only for at most this many query rows (one row block of any T).
constexpr int64_t kSplitMaxRows = 8;
/// Keys per split at least (a multiple of the 32-key tile), and at most this many splits.
constexpr int64_t kSplitKeys = 128;
constexpr int64_t kMaxSplits = 32;

/// The most splits an attention of S keys may use: 1 (no split) unless L <= kSplitMaxRows.
inline int64_t attention_max_splits(int64_t L, int64_t S) {
  if (L > kSplitMaxRows || S < 2 * kSplitKeys)
    return 1;
  const int64_t by_keys = (S + kSplitKeys - 1) / kSplitKeys;
  return by_keys < kMaxSplits ? by_keys : kMaxSplits;
}

template <typename T> struct attention_params {
  const T *q;
  const T *k;
  const T *v;
  const void *mask;
  T *y;
  int64_t L, S, E, Ev;
  int64_t row_blocks; ///< ceil(L / rows per block)
  int64_t splits;     ///< key ranges per row block (1: no split, y written directly)
  int64_t work;       ///< batch * row_blocks * splits
  float_acc_t<T> *partial; ///< splits > 1: [splits, batch, L, Ev + 2] (output, max, sum)
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
    const int64_t split = work % p.splits;
    const int64_t block_row = work / p.splits;
    const int64_t b = block_row / p.row_blocks;
    const int64_t first_row = (block_row - b * p.row_blocks) * rows_per_block;
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
    int64_t key_end = p.causal && first_row + row_count < p.S ? first_row + row_count : p.S;
    // This split's key range: whole tiles, the last split taking what is left.
    const int64_t tiles = (key_end + kAttentionKeys - 1) / kAttentionKeys;
    const int64_t split_tiles = (tiles + p.splits - 1) / p.splits;
    const int64_t key_begin = split * split_tiles * kAttentionKeys;
    if (key_begin + split_tiles * kAttentionKeys < key_end)
      key_end = key_begin + split_tiles * kAttentionKeys;
    for (int64_t key0 = key_begin; key0 < key_end; key0 += kAttentionKeys) {
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
    if (p.splits > 1) {
      // Partial state of each row over this split's keys (max -inf: no key counted).
      const int64_t batch = p.work / (p.row_blocks * p.splits);
TC_UNROLL
      for (int r = 0; r < RowsPerWarp; ++r) {
        const int64_t i = first_row + warp * RowsPerWarp + r;
        if (i >= p.L)
          break;
        F *target = p.partial + ((split * batch + b) * p.L + i) * (p.Ev + 2);
TC_UNROLL
        for (int t = 0; t < Chunks; ++t)
          if (lane + t * kWarp < Ev)
            target[lane + t * kWarp] = out[r][t];
        if (lane == 0) {
          target[Ev] = row_max[r];
          target[Ev + 1] = row_sum[r];
        }
      }
      continue;
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

/// Merges the splits' partial states of row (b, i) -- one warp per row, lanes over Ev: the
/// row's max M over the splits, then y = sum_s e^(m_s - M) o_s / sum_s e^(m_s - M) l_s. A row
/// no split saw a key of (M = -inf) is zeros, as in the unsplit kernel.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    attention_merge_kernel(const float_acc_t<T> *__restrict__ partial, int64_t splits,
                           int64_t rows, int64_t Ev, T *__restrict__ y) {
  using F = float_acc_t<T>;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int64_t warps = int64_t(gridDim.x) * (kThreads / kWarp);
  const F negative_infinity = -tc::infinity<F>();
  for (int64_t row = int64_t(blockIdx.x) * (kThreads / kWarp) + threadIdx.x / kWarp; row < rows;
       row += warps) { // warp-uniform
    F row_max = negative_infinity;
    for (int64_t s = 0; s < splits; ++s)
      row_max = max_nan(row_max, partial[(s * rows + row) * (Ev + 2) + Ev]);
    T *target = y + row * Ev;
    if (row_max == negative_infinity) {
      for (int64_t c = lane; c < Ev; c += kWarp)
        target[c] = tc::cast<T>(F(0));
      continue;
    }
    F sum = F(0);
    for (int64_t s = 0; s < splits; ++s) {
      const F *state = partial + (s * rows + row) * (Ev + 2);
      if (state[Ev] != negative_infinity)
        sum += exp_of(state[Ev] - row_max) * state[Ev + 1];
    }
    for (int64_t c = lane; c < Ev; c += kWarp) {
      F value = F(0);
      for (int64_t s = 0; s < splits; ++s) {
        const F *state = partial + (s * rows + row) * (Ev + 2);
        if (state[Ev] != negative_infinity)
          value += exp_of(state[Ev] - row_max) * state[c];
      }
      target[c] = tc::cast<T>(value / sum);
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
  if (params.splits <= 1)
    return launched();
  result first = launched();
  if (!first.ok())
    return first;
  const int64_t rows_total = params.work / params.splits / params.row_blocks * params.L;
  const int64_t row_warps = kThreads / kWarp;
  const int64_t merge_blocks = (rows_total + row_warps - 1) / row_warps;
  TC_LAUNCH(static_cast<unsigned>(merge_blocks < INT_MAX ? merge_blocks : int64_t(INT_MAX)),
            kThreads, 0, ex.stream, attention_merge_kernel<T>)
  (params.partial, params.splits, rows_total, params.Ev, params.y);
  return launched();
}

} // namespace detail

/// Doubles of workspace that attention needs: the split-keys partial states of decode-shaped
/// attention (at most attention_max_splits(L, S) splits of batch * L rows of Ev + 2 values),
/// else 1 so that callers never allocate zero bytes.
inline int64_t attention_workspace_size(int64_t batch, int64_t L, int64_t S, int64_t Ev) {
  const int64_t splits = detail::attention_max_splits(L, S);
  return splits > 1 ? splits * batch * L * (Ev + 2) : 1;
}

/// tc::attention: y[b, i, :] = sum_j softmax_j(score[i, j]) v[b, j, :], score = scale * q . k,
/// for q [batch, L, E], k [batch, S, E], v [batch, S, Ev], y [batch, L, Ev]; causal masks
/// j > i; `mask` (null for none) is contiguous [batch, L, S], bytes (0 = masked) with
/// mask_is_bool, else T values added to the scores. A fully masked row gives zeros. Runs in
/// float (double for double). E and Ev up to 256 (else unsupported). `workspace` holds
/// attention_workspace_size(batch, L, S, Ev) doubles: decode-shaped calls split the keys over
/// up to two blocks per multiprocessor. Unlike tc::attention, keys past a causal block's last
/// row are skipped, so +inf additive mask entries there do not turn the row into NaN.
template <typename T>
result attention(const exec &ex, const T *q, const T *k, const T *v, int64_t batch, int64_t L,
                 int64_t S, int64_t E, int64_t Ev, const void *mask, bool mask_is_bool,
                 double scale, bool causal, T *y, double *workspace) {
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
  params.splits = 1;
  const int64_t max_splits = detail::attention_max_splits(L, S);
  if (max_splits > 1 && workspace != nullptr) {
    // Enough blocks to fill the device twice over, never more than the keys allow.
    int device = 0;
    int sms = 0;
    result queried = check(cudaGetDevice(&device), "cudaGetDevice");
    if (queried.ok())
      queried = check(
          cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
          "cudaDeviceGetAttribute");
    if (!queried.ok())
      return queried;
    const int64_t wanted = (2 * int64_t(sms) + batch - 1) / batch;
    params.splits = wanted < max_splits ? wanted : max_splits;
    if (params.splits < 1)
      params.splits = 1;
  }
  params.partial = reinterpret_cast<detail::float_acc_t<T> *>(workspace);
  params.work = batch * params.row_blocks * params.splits;
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
