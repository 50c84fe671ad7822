// The integer GEMM of statically quantized linear layers (ir/ops.def linear_wq with x_scale and
// x_zero: PT2E's quantize_per_tensor -> dequantize -> linear on an int8 weight):
//
//   out[r, j] = x_scale * scale[j] * sum_p (u[r, p] - zero) * q[j, p] + bias[j]
//
// with u the activation as unsigned bytes (a u8 x as it is; an i8 x + 128, its zero point too)
// and q the signed int8 weight, one scale per output feature. The sum is exact in int32:
// sum_p u q - zero * sum_p q, the weight's column sums kept in its packed layout, valid while
// 255 * 128 * k < 2^31 (k <= kMaxDepth; linear_wq takes the float path above).
//
// Packed weight (tc::qgemm::pack; thunderc writes it into weights.bin for a weight only such
// layers read, the kernel packs the others per call): ceil(n / 32) panels of 32 output
// features, each ceil(k / 4) groups of 128 bytes -- column c's inputs 4g..4g+3 at bytes
// 4c..4c+3, zero past k and n -- then the 32 columns' int32 sums of q. The layout is the same
// for every ISA, and so are the results: integer sums in any order are exact.
//
// Kernels, best first:
// - AMX-INT8 (Sapphire Rapids and later; Linux grants the tile state per process through
//   arch_prctl): a 32 x 32 block is four 16 x 16 int32 tiles; per 64 inputs two tiles of u
//   (16 rows x 64 bytes), the panel's two column halves as B tiles (16 groups x 64 bytes, row
//   stride 128: the packed layout is already AMX's) and four tdpbusd.
// - AVX-512 VNNI keeps a 12 x 32 block of int32 sums in 24 zmm registers; per group of four
//   inputs it loads the panel's two 64-byte rows and, per row of u, broadcasts four bytes and
//   issues two vpdpbusd (u8 x s8, four products per lane).
// - Elsewhere a portable loop over the same layout computes the same integers; it is slow, so
//   the layers take the float path there (integer_gemm_preferred), unpacking the weight.
// The epilogue subtracts zero * sums, converts to float, scales and adds the bias (one fused
// multiply-add). Compiled with target attributes and chosen at run time by the CPU, whatever
// the compiler flags; TC_QGEMM=portable or TC_QGEMM=vnni in the environment caps the choice
// (for comparisons).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tc_parallel.h"

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__)) &&  \
    !defined(__CUDACC__)
#define TC_QGEMM_X86 1
#include <immintrin.h>
#define TC_TARGET_QGEMM_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define TC_TARGET_QGEMM_AMX                                                                     \
  __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,amx-tile,amx-int8")))
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#else
#define TC_QGEMM_X86 0
#endif

namespace tc {
namespace qgemm {

constexpr int kMr = 12;
constexpr int kNr = 32;
/// The deepest product whose int32 sums cannot overflow (255 * 128 * k < 2^31).
constexpr int64_t kMaxDepth = 65535;

inline int64_t groups_of(int64_t k) { return (k + 3) / 4; }
inline int64_t panels_of(int64_t n) { return (n + kNr - 1) / kNr; }
/// Bytes of one packed panel: its groups of 128 bytes, then 32 int32 column sums.
inline int64_t panel_bytes(int64_t k) { return groups_of(k) * 4 * kNr + kNr * 4; }
inline int64_t packed_bytes(int64_t n, int64_t k) { return panels_of(n) * panel_bytes(k); }

/// Writes q (q[j * ldq + p], j < n, p < k) in the packed layout to out (packed_bytes(n, k)
/// bytes), panels [panel_begin, panel_end).
inline void pack_panels(int64_t n, int64_t k, const int8_t *q, int64_t ldq, int64_t panel_begin,
                        int64_t panel_end, int8_t *out) {
  const int64_t groups = groups_of(k);
  for (int64_t panel = panel_begin; panel < panel_end; ++panel) {
    int8_t *dst = out + panel * panel_bytes(k);
    int32_t sums[kNr] = {};
    for (int c = 0; c < kNr; ++c) {
      const int64_t j = panel * kNr + c;
      for (int64_t g = 0; g < groups; ++g)
        for (int t = 0; t < 4; ++t) {
          const int64_t p = 4 * g + t;
          const int8_t value = j < n && p < k ? q[j * ldq + p] : int8_t{0};
          dst[g * 4 * kNr + 4 * c + t] = value;
          sums[c] += value;
        }
    }
    std::memcpy(dst + groups * 4 * kNr, sums, sizeof sums);
  }
}

inline void pack(int64_t n, int64_t k, const int8_t *q, int64_t ldq, int8_t *out) {
  pack_panels(n, k, q, ldq, 0, panels_of(n), out);
}

/// What the epilogue of one panel needs: the effective zero point of u, the combined scales
/// x_scale * scale[j] and the bias (nullptr: none) of the panel's first column.
struct Epilogue {
  int32_t zero;
  const float *scale;
  const float *bias;
};

/// out[r, c] for rows [0, m) and the panel's columns [0, cols): the portable loop.
inline void block_portable(int m, int64_t groups, const uint8_t *u, int64_t ldu,
                           const int8_t *panel, const Epilogue &e, float *out, int64_t ldo,
                           int cols) {
  int32_t sums[kNr];
  std::memcpy(sums, panel + groups * 4 * kNr, sizeof sums);
  for (int r = 0; r < m; ++r) {
    int32_t acc[kNr] = {};
    const uint8_t *row = u + r * ldu;
    for (int64_t g = 0; g < groups; ++g) {
      const int8_t *b = panel + g * 4 * kNr;
      const int32_t a0 = row[4 * g], a1 = row[4 * g + 1], a2 = row[4 * g + 2],
                    a3 = row[4 * g + 3];
      for (int c = 0; c < kNr; ++c)
        acc[c] += a0 * b[4 * c] + a1 * b[4 * c + 1] + a2 * b[4 * c + 2] + a3 * b[4 * c + 3];
    }
    for (int c = 0; c < cols; ++c) {
      const int32_t exact = acc[c] - e.zero * sums[c];
      // One rounding, as the vector epilogue's fused multiply-add.
      const auto value = static_cast<float>(exact);
      out[r * ldo + c] =
          e.bias != nullptr ? std::fma(value, e.scale[c], e.bias[c]) : value * e.scale[c];
    }
  }
}

#if TC_QGEMM_X86
/// The epilogue of rows [0, m) of a 32-column block of exact sums c (row stride 32).
TC_TARGET_QGEMM_VNNI inline void epilogue_rows(int m, const int32_t *c, const int8_t *sums_at,
                                               const Epilogue &e, float *out, int64_t ldo,
                                               int cols) {
  const __mmask16 mask0 = cols >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << cols) - 1u);
  const __mmask16 mask1 = cols >= 32   ? __mmask16(0xFFFF)
                          : cols > 16 ? __mmask16((1u << (cols - 16)) - 1u)
                                      : __mmask16(0);
  const int32_t *sums = reinterpret_cast<const int32_t *>(sums_at);
  const __m512i zero = _mm512_set1_epi32(e.zero);
  const __m512i correction0 = _mm512_mullo_epi32(zero, _mm512_loadu_si512(sums));
  const __m512i correction1 = _mm512_mullo_epi32(zero, _mm512_loadu_si512(sums + 16));
  const __m512 scale0 = _mm512_maskz_loadu_ps(mask0, e.scale);
  const __m512 scale1 = _mm512_maskz_loadu_ps(mask1, e.scale + 16);
  const __m512 bias0 = e.bias != nullptr ? _mm512_maskz_loadu_ps(mask0, e.bias)
                                         : _mm512_setzero_ps();
  const __m512 bias1 = e.bias != nullptr ? _mm512_maskz_loadu_ps(mask1, e.bias + 16)
                                         : _mm512_setzero_ps();
  // The all-ones maskz conversion: GCC 12 flags the unmasked one's undefined passthrough as
  // maybe-uninitialized, an error in -Werror bundle builds.
  const __mmask16 all = 0xFFFF;
  for (int r = 0; r < m; ++r) {
    const __m512i a0 = _mm512_loadu_si512(c + r * kNr);
    const __m512i a1 = _mm512_loadu_si512(c + r * kNr + 16);
    const __m512 v0 = _mm512_maskz_cvtepi32_ps(all, _mm512_sub_epi32(a0, correction0));
    const __m512 v1 = _mm512_maskz_cvtepi32_ps(all, _mm512_sub_epi32(a1, correction1));
    _mm512_mask_storeu_ps(out + r * ldo, mask0, _mm512_fmadd_ps(v0, scale0, bias0));
    _mm512_mask_storeu_ps(out + r * ldo + 16, mask1, _mm512_fmadd_ps(v1, scale1, bias1));
  }
}

template <int M>
TC_TARGET_QGEMM_VNNI inline void block_vnni(int64_t groups, const uint8_t *u, int64_t ldu,
                                            const int8_t *panel, const Epilogue &e, float *out,
                                            int64_t ldo, int cols) {
  __m512i acc[M][2];
  for (int r = 0; r < M; ++r) {
    acc[r][0] = _mm512_setzero_si512();
    acc[r][1] = _mm512_setzero_si512();
  }
  for (int64_t g = 0; g < groups; ++g) {
    const __m512i b0 = _mm512_loadu_si512(panel + g * 4 * kNr);
    const __m512i b1 = _mm512_loadu_si512(panel + g * 4 * kNr + 64);
    for (int r = 0; r < M; ++r) {
      int32_t word;
      std::memcpy(&word, u + r * ldu + 4 * g, sizeof word);
      const __m512i a = _mm512_set1_epi32(word);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], a, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], a, b1);
    }
  }
  // The sums through L1 to the shared epilogue (1.5 KiB per block of k >= 4 inputs).
  alignas(64) int32_t c[M * kNr];
  for (int r = 0; r < M; ++r) {
    _mm512_store_si512(c + r * kNr, acc[r][0]);
    _mm512_store_si512(c + r * kNr + 16, acc[r][1]);
  }
  epilogue_rows(M, c, panel + groups * 4 * kNr, e, out, ldo, cols);
}

/// Rows of u the AMX kernel's blocks take (its u has whole blocks of rows, zero-padded).
constexpr int kAmxRows = 32;
/// Bytes per row of u the AMX kernel reads: whole tiles of 64 inputs, zero past k.
inline int64_t amx_row_bytes(int64_t k) { return (k + 63) / 64 * 64; }

/// The tile configuration: tiles 0-3 the 16 x 16 int32 sums, 4-5 two tiles of 16 rows of u,
/// 6-7 the panel's two column halves; every tile 16 rows of 64 bytes.
struct alignas(64) AmxConfig {
  uint8_t palette = 1;
  uint8_t start_row = 0;
  uint8_t reserved[14] = {};
  uint16_t columns_bytes[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};
};

/// Rows [0, m) (m <= 32) of u x one panel; u has kAmxRows rows from here and
/// amx_row_bytes(k) bytes per row. The tiles must be configured (AmxConfig).
TC_TARGET_QGEMM_AMX inline void block_amx(int m, int64_t groups, const uint8_t *u, int64_t ldu,
                                          const int8_t *panel, const Epilogue &e, float *out,
                                          int64_t ldo, int cols) {
  alignas(64) int32_t c[kAmxRows * kNr];
  alignas(64) int8_t tail[16 * 4 * kNr];
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  const bool two = m > 16;
  for (int64_t g = 0; g < groups; g += 16) {
    const int8_t *b = panel + g * 4 * kNr;
    if (g + 16 > groups) {
      // The last groups: copied into zeros so that no tile load reads past the panel.
      std::memset(tail, 0, sizeof tail);
      std::memcpy(tail, b, static_cast<size_t>((groups - g) * 4 * kNr));
      b = tail;
    }
    _tile_loadd(4, u + 4 * g, ldu);
    _tile_loadd(6, b, 4 * kNr);
    _tile_loadd(7, b + 64, 4 * kNr);
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    if (two) {
      _tile_loadd(5, u + 16 * ldu + 4 * g, ldu);
      _tile_dpbusd(2, 5, 6);
      _tile_dpbusd(3, 5, 7);
    }
  }
  _tile_stored(0, c, 4 * kNr);
  _tile_stored(1, c + 16, 4 * kNr);
  if (two) {
    _tile_stored(2, c + 16 * kNr, 4 * kNr);
    _tile_stored(3, c + 16 * kNr + 16, 4 * kNr);
  }
  epilogue_rows(m, c, panel + groups * 4 * kNr, e, out, ldo, cols);
}

TC_TARGET_QGEMM_AMX inline void amx_begin(const AmxConfig &config) { _tile_loadconfig(&config); }
TC_TARGET_QGEMM_AMX inline void amx_end() { _tile_release(); }

/// Whether Linux lets this process use the AMX tile state (asked once).
inline bool amx_permitted() {
#if defined(__linux__)
  static const bool permitted = [] {
    constexpr long kRequestPermission = 0x1023; // ARCH_REQ_XCOMP_PERM
    constexpr long kTileData = 18;              // XFEATURE_XTILEDATA
    return syscall(SYS_arch_prctl, kRequestPermission, kTileData) == 0;
  }();
  return permitted;
#else
  return false;
#endif
}

TC_TARGET_QGEMM_VNNI inline void block_vnni_rows(int m, int64_t groups, const uint8_t *u,
                                                 int64_t ldu, const int8_t *panel,
                                                 const Epilogue &e, float *out, int64_t ldo,
                                                 int cols) {
  switch (m) {
  case 1: return block_vnni<1>(groups, u, ldu, panel, e, out, ldo, cols);
  case 2: return block_vnni<2>(groups, u, ldu, panel, e, out, ldo, cols);
  case 3: return block_vnni<3>(groups, u, ldu, panel, e, out, ldo, cols);
  case 4: return block_vnni<4>(groups, u, ldu, panel, e, out, ldo, cols);
  case 5: return block_vnni<5>(groups, u, ldu, panel, e, out, ldo, cols);
  case 6: return block_vnni<6>(groups, u, ldu, panel, e, out, ldo, cols);
  case 7: return block_vnni<7>(groups, u, ldu, panel, e, out, ldo, cols);
  case 8: return block_vnni<8>(groups, u, ldu, panel, e, out, ldo, cols);
  case 9: return block_vnni<9>(groups, u, ldu, panel, e, out, ldo, cols);
  case 10: return block_vnni<10>(groups, u, ldu, panel, e, out, ldo, cols);
  case 11: return block_vnni<11>(groups, u, ldu, panel, e, out, ldo, cols);
  default: return block_vnni<12>(groups, u, ldu, panel, e, out, ldo, cols);
  }
}
#endif

/// The kernels this file has.
enum class Kernel { portable = 0, vnni = 1, amx = 2 };

inline const char *kernel_name(Kernel kernel) {
  return kernel == Kernel::amx ? "amx" : kernel == Kernel::vnni ? "vnni" : "portable";
}

inline bool kernel_available(Kernel kernel) {
#if TC_QGEMM_X86
  const bool vnni = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
  if (kernel == Kernel::vnni)
    return vnni;
  if (kernel == Kernel::amx) {
    // CPUID leaf 7: EDX bit 24 AMX-TILE, bit 25 AMX-INT8 (read directly: clang 14's
    // __builtin_cpu_supports does not know the AMX names).
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    const bool amx = __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 &&
                     ((edx >> 24) & 1u) != 0 && ((edx >> 25) & 1u) != 0;
    return vnni && amx && amx_permitted();
  }
  return true;
#else
  return kernel == Kernel::portable;
#endif
}

/// The fastest kernel of this CPU, detected once (TC_QGEMM=portable or vnni caps it).
inline Kernel best_kernel() {
  static const Kernel best = [] {
    const char *forced = std::getenv("TC_QGEMM");
    const bool portable = forced != nullptr && std::strcmp(forced, "portable") == 0;
    const bool vnni = forced != nullptr && std::strcmp(forced, "vnni") == 0;
    if (!portable && !vnni && kernel_available(Kernel::amx))
      return Kernel::amx;
    return !portable && kernel_available(Kernel::vnni) ? Kernel::vnni : Kernel::portable;
  }();
  return best;
}

/// Whether the quantized layers should run the integer GEMM here: where the CPU has VNNI or
/// AMX, or TC_QGEMM=portable asks for the portable loop. Elsewhere (AVX2-only and non-x86
/// CPUs) the float path is faster than the portable loop, and linear_wq_qx / conv2d_wq take it.
inline bool integer_gemm_preferred() {
  static const bool preferred = [] {
    const char *forced = std::getenv("TC_QGEMM");
    return best_kernel() != Kernel::portable ||
           (forced != nullptr && std::strcmp(forced, "portable") == 0);
  }();
  return preferred;
}

/// The int8 weight [n, k] (row stride k) back from its packed layout.
inline void unpack(int64_t n, int64_t k, const int8_t *packed, int8_t *q) {
  for (int64_t j = 0; j < n; ++j) {
    const int8_t *panel = packed + (j / kNr) * panel_bytes(k);
    for (int64_t p = 0; p < k; ++p)
      q[j * k + p] = panel[(p / 4) * 4 * kNr + (j % kNr) * 4 + p % 4];
  }
}

/// The weight as the float path reads it: q itself, or (packed, but the integer GEMM is not
/// preferred here) unpacked into `storage`, q_packed then cleared.
inline const int8_t *unpacked_unless_preferred(int64_t n, int64_t k, const int8_t *q,
                                               bool &q_packed, std::vector<int8_t> &storage) {
  if (!q_packed || integer_gemm_preferred())
    return q;
  storage.resize(static_cast<size_t>(n * k));
  unpack(n, k, q, storage.data());
  q_packed = false;
  return storage.data();
}

/// Rows of x from which the AMX kernel is used (below, VNNI's register blocks waste less).
constexpr int64_t kAmxMinRows = 16;

/// The kernel `best` runs for `rows` rows.
inline Kernel kernel_for(Kernel best, int64_t rows) {
  return best == Kernel::amx && rows < kAmxMinRows ? Kernel::vnni : best;
}

/// out [rows, n] (row stride n; with ldo_transposed > 0, out[j * ldo_transposed + r], as a
/// convolution's [channels, pixels] wants) = (u - zero) W^T scaled by scale[j] plus bias[j],
/// u [rows, ldu]
/// bytes with ldu >= 4 * groups_of(k) and zero bytes past k, W packed (pack). Parallel over
/// blocks of 12 rows (AMX: 32) x 32 columns, panel by panel. The AMX kernel needs u as
/// unsigned_rows makes it for Kernel::amx (whole blocks of rows, amx_row_bytes per row).
inline void gemm_u8s8(Kernel kernel, int64_t rows, int64_t n, int64_t k, const uint8_t *u,
                      int64_t ldu, int32_t zero, const int8_t *packed, const float *scale,
                      const float *bias, float *out, int64_t ldo_transposed = 0) {
  if (rows <= 0 || n <= 0)
    return;
  const int64_t groups = groups_of(k);
  const int64_t block_rows = kernel == Kernel::amx ? kAmxRows : kMr;
  const int64_t row_blocks = (rows + block_rows - 1) / block_rows;
  const int64_t tasks = panels_of(n) * row_blocks;
  tc::parallel_for(tasks, 1, [&](int64_t begin, int64_t end) {
#if TC_QGEMM_X86
    const bool amx = kernel == Kernel::amx;
    if (amx)
      amx_begin(AmxConfig{});
#endif
    alignas(64) float tile[kAmxRows * kNr];
    for (int64_t task = begin; task < end; ++task) {
      const int64_t panel = task / row_blocks;
      const int64_t r0 = (task % row_blocks) * block_rows;
      const int m = static_cast<int>(rows - r0 < block_rows ? rows - r0 : block_rows);
      const int64_t j0 = panel * kNr;
      const int cols = static_cast<int>(n - j0 < kNr ? n - j0 : kNr);
      const Epilogue e{zero, scale + j0, bias != nullptr ? bias + j0 : nullptr};
      const int8_t *block = packed + panel * panel_bytes(k);
      // Transposed output: the block goes through a local tile, then column by column.
      float *dst = ldo_transposed > 0 ? tile : out + r0 * n + j0;
      const int64_t ldd = ldo_transposed > 0 ? kNr : n;
#if TC_QGEMM_X86
      if (amx)
        block_amx(m, groups, u + r0 * ldu, ldu, block, e, dst, ldd, cols);
      else if (kernel == Kernel::vnni)
        block_vnni_rows(m, groups, u + r0 * ldu, ldu, block, e, dst, ldd, cols);
      else
#endif
        block_portable(m, groups, u + r0 * ldu, ldu, block, e, dst, ldd, cols);
      if (ldo_transposed > 0)
        for (int c = 0; c < cols; ++c) {
          float *column = out + (j0 + c) * ldo_transposed + r0;
          for (int r = 0; r < m; ++r)
            column[r] = tile[r * kNr + c];
        }
    }
#if TC_QGEMM_X86
    if (amx)
      amx_end();
#endif
  });
}

/// Rows of u for `kernel`: AMX's tile loads read whole blocks of rows.
inline int64_t padded_rows(Kernel kernel, int64_t rows) {
  return kernel == Kernel::amx ? (rows + kAmxRows - 1) / kAmxRows * kAmxRows : rows;
}

/// What turns a quantized activation byte of type X into u: 128 for int8_t, 0 for uint8_t
/// (add it to the zero point too).
template <typename X> constexpr int32_t unsigned_offset() {
  static_assert(sizeof(X) == 1, "quantized activations are bytes");
  return static_cast<X>(-1) < X{0} ? 128 : 0;
}

/// x_scale * scales[j] for the epilogue, one per output feature.
inline std::vector<float> combined_scales(int64_t n, float x_scale, const float *scales) {
  std::vector<float> scale(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    scale[static_cast<size_t>(j)] = x_scale * scales[j];
  return scale;
}

/// The weight [n, k] in the packed layout: q itself when q_packed, else packed here (on the
/// pool's threads) into `storage`.
inline const int8_t *packed_weight(int64_t n, int64_t k, const int8_t *q, bool q_packed,
                                   std::vector<int8_t> &storage) {
  if (q_packed)
    return q;
  storage.resize(static_cast<size_t>(packed_bytes(n, k)));
  tc::parallel_for(panels_of(n), 1, [&](int64_t begin, int64_t end) {
    pack_panels(n, k, q, k, begin, end, storage.data());
  });
  return storage.data();
}

/// Bytes per row of u for `kernel`.
inline int64_t row_bytes(Kernel kernel, int64_t k) {
  return kernel == Kernel::amx ? amx_row_bytes(k) : 4 * groups_of(k);
}

/// x [rows, k] (uint8_t or int8_t) as unsigned bytes [rows, row_bytes(kernel, k)], zero past k
/// (and, for AMX, zero rows up to a whole block); an int8_t x is offset by 128. Returns the
/// offset to add to its zero point.
template <typename X>
inline int32_t unsigned_rows(Kernel kernel, int64_t rows, int64_t k, const X *x,
                             std::vector<uint8_t> &u) {
  const int64_t ldu = row_bytes(kernel, k);
  u.assign(static_cast<size_t>(padded_rows(kernel, rows) * ldu), 0);
  constexpr int32_t kOffset = unsigned_offset<X>();
  for (int64_t r = 0; r < rows; ++r) {
    uint8_t *dst = u.data() + r * ldu;
    if constexpr (kOffset != 0) {
      for (int64_t p = 0; p < k; ++p)
        dst[p] = static_cast<uint8_t>(static_cast<int32_t>(x[r * k + p]) + kOffset);
    } else {
      std::memcpy(dst, x + r * k, static_cast<size_t>(k));
    }
  }
  return kOffset;
}

/// The statically quantized linear layer of the file comment: x [rows, k] u8 or i8 standing
/// for (x - x_zero) * x_scale, the weight packed (pack), scales [n] and bias [n] (or nullptr)
/// float, out [rows, n] float.
template <typename X>
inline void linear(Kernel kernel, int64_t rows, int64_t n, int64_t k, const X *x, float x_scale,
                   int32_t x_zero, const int8_t *packed, const float *scales, const float *bias,
                   float *out) {
  kernel = kernel_for(kernel, rows);
  std::vector<uint8_t> u;
  const int32_t zero = x_zero + unsigned_rows(kernel, rows, k, x, u);
  const std::vector<float> scale = combined_scales(n, x_scale, scales);
  gemm_u8s8(kernel, rows, n, k, u.data(), row_bytes(kernel, k), zero, packed, scale.data(),
            bias, out);
}

} // namespace qgemm
} // namespace tc
