// Random numbers shared by the reference interpreter, the CPU kernel library and the CUDA
// kernel library: the Philox4x32-10 counter-based generator (Salmon et al., SC'11; the one
// cuRAND and PyTorch's CUDA generator use) and the per-element distributions built on it.
// Element i of a random op's result is a pure function of (seed, stream, run, i), so every
// target and the interpreter produce the same bits, in any order and with any parallelism.
// Header-only C++17, TC_HD like tc_math.h; no dependency beyond <cstdint> and <cmath>.
#pragma once

#if defined(__CUDACC_RTC__)
#include "tc_rtc_std.h"
#else
#include <cmath>
#include <cstdint>
#endif

#ifndef TC_HD
#if defined(__CUDACC__)
#define TC_HD __host__ __device__
#else
#define TC_HD
#endif
#endif

namespace tc {

/// The seed a context starts with (and the interpreter's default): PyTorch's default seed.
constexpr uint64_t kDefaultRandomSeed = 67280421310721ull;

/// Where a random op draws from: the context's seed, the op's stream (its `stream` attribute,
/// unique per random node of a graph) and the run (how many runs the context made since its
/// seed was set or it was reset; only its low 32 bits count, so runs 2^32 apart repeat).
struct random_key {
  uint64_t seed;
  uint32_t stream;
  uint32_t run;
};

/// What a random op draws (its `distribution` attribute).
enum class random_distribution { uniform, normal, integer };

/// Four 32-bit words.
struct philox_block {
  uint32_t v[4];
};

/// Philox4x32 with 10 rounds of counter `c` under key (k0, k1).
TC_HD inline philox_block philox4x32_10(philox_block c, uint32_t k0, uint32_t k1) {
  const uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  const uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = static_cast<uint64_t>(kMul0) * c.v[0];
    uint64_t p1 = static_cast<uint64_t>(kMul1) * c.v[2];
    philox_block next;
    next.v[0] = static_cast<uint32_t>(p1 >> 32) ^ c.v[1] ^ k0;
    next.v[1] = static_cast<uint32_t>(p1);
    next.v[2] = static_cast<uint32_t>(p0 >> 32) ^ c.v[3] ^ k1;
    next.v[3] = static_cast<uint32_t>(p0);
    c = next;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  return c;
}

/// The 128 random bits of element `index`: counter (index low, index high, stream, run), key
/// the seed's two halves.
TC_HD inline philox_block random_bits(random_key key, int64_t index) {
  uint64_t i = static_cast<uint64_t>(index);
  philox_block counter = {
      {static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32), key.stream, key.run}};
  return philox4x32_10(counter, static_cast<uint32_t>(key.seed),
                       static_cast<uint32_t>(key.seed >> 32));
}

/// A float in [0, 1) from the top `digits` bits of `word` (digits <= 24): an exact multiple of
/// 2^-digits, so it converts exactly to a type with `digits` significand bits (24: float, 11:
/// half, 8: bfloat16) and never rounds up to 1.
TC_HD inline float uniform_float(uint32_t word, int digits) {
  return static_cast<float>(word >> (32 - digits)) * (1.0f / static_cast<float>(1u << digits));
}

/// A double in [0, 1) with the full 53-bit significand.
TC_HD inline double uniform_double(uint32_t high, uint32_t low) {
  uint64_t bits = ((static_cast<uint64_t>(high) << 32) | low) >> 11;
  return static_cast<double>(bits) * (1.0 / 9007199254740992.0);
}

/// rand: element `index` uniform in [0, 1) with `digits` significand bits (24, 11 or 8).
TC_HD inline float random_uniform_f32(random_key key, int64_t index, int digits) {
  return uniform_float(random_bits(key, index).v[0], digits);
}
TC_HD inline double random_uniform_f64(random_key key, int64_t index) {
  philox_block bits = random_bits(key, index);
  return uniform_double(bits.v[0], bits.v[1]);
}

/// randn: element `index` standard normal by Box-Muller, sqrt(-2 ln u1) cos(2 pi u2) with u1 in
/// (0, 1] (no log of 0) and u2 in [0, 1), in float (f32, f16, bf16 results) or double (f64).
/// Only products (no sums a compiler could contract into an FMA) around logf/cosf: the CPU
/// bundle, its CUDA emulation and the interpreter agree bit for bit; a GPU's logf/cosf may
/// differ from glibc's in the last bit.
TC_HD inline float random_normal_f32(random_key key, int64_t index) {
  philox_block bits = random_bits(key, index);
  float u1 = static_cast<float>((bits.v[0] >> 8) + 1u) * (1.0f / 16777216.0f);
  float u2 = static_cast<float>(bits.v[1] >> 8) * (1.0f / 16777216.0f);
  float radius = std::sqrt(-2.0f * std::log(u1));
  return radius * std::cos(6.2831853071795864769f * u2);
}
TC_HD inline double random_normal_f64(random_key key, int64_t index) {
  philox_block bits = random_bits(key, index);
  uint64_t high = ((static_cast<uint64_t>(bits.v[0]) << 32) | bits.v[1]) >> 11;
  double u1 = static_cast<double>(high + 1) * (1.0 / 9007199254740992.0);
  double u2 = uniform_double(bits.v[2], bits.v[3]);
  double radius = std::sqrt(-2.0 * std::log(u1));
  return radius * std::cos(6.283185307179586476925 * u2);
}

/// randint: element `index` uniform in [low, high) (high > low), 64 random bits reduced
/// modulo high - low: the bias is below (high - low) / 2^64, far below what a test of any
/// size can see.
TC_HD inline int64_t random_integer(random_key key, int64_t index, int64_t low, int64_t high) {
  philox_block bits = random_bits(key, index);
  uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  uint64_t draw = (static_cast<uint64_t>(bits.v[0]) << 32) | bits.v[1];
  return static_cast<int64_t>(static_cast<uint64_t>(low) + draw % range);
}

} // namespace tc
