// The device-side functions of CUDA for its CPU emulation (tc_cuda_emu.h): block barriers,
// warp shuffles and votes (rendezvous of fibers, see tc_cuda_emu_sched.h), atomics, and the
// math and bit intrinsics, at global scope like CUDA's. Every synchronizing function records
// its call site (a TC_EMU_CALL_SITE default argument): threads at different call sites are at
// different rendezvous, and deadlock reports name the source lines involved.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tc_cuda_emu_sched.h"

namespace tc {
namespace emu {
namespace detail {

/// The bits of a value that travels through a shuffle (any trivially copyable type of at
/// most 8 bytes; CUDA itself shuffles 32-bit words, 64-bit types as two).
template <typename T> uint64_t toBits(const T &value) {
  static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                "warp shuffles move trivially copyable values of at most 8 bytes");
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <typename T> T fromBits(uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename To, typename From> To bitCast(From value) {
  static_assert(sizeof(To) == sizeof(From), "bit casts keep the size");
  To result;
  std::memcpy(&result, &value, sizeof(To));
  return result;
}

inline uint64_t blockBarrier(WaitKind kind, int predicate, const SourceSite &site) {
  runningThread();
  return Scheduler::forThisThread().wait(
      Wait{kind, 0, 0, 0, 0, static_cast<uint64_t>(predicate != 0), site});
}

/// Parks the calling lane at a warp collective. A mask without the calling lane, or a
/// shuffle width that is not a power of two up to 32, is undefined behavior in CUDA.
inline uint64_t warpCollective(WaitKind kind, unsigned mask, uint64_t value, unsigned bytes,
                               int operand, int width, const SourceSite &site) {
  const DeviceThread &thread = runningThread();
  if ((mask >> thread.lane & 1u) == 0)
    die("%s at %s:%d: mask 0x%08x does not include the calling lane %u (thread (%u,%u,%u))",
        waitName(kind), site.file, site.line, mask, thread.lane, thread.index.x, thread.index.y,
        thread.index.z);
  if (width < 1 || width > 32 || (width & (width - 1)) != 0)
    die("%s at %s:%d: width %d is not a power of two in [1, 32]", waitName(kind), site.file,
        site.line, width);
  return Scheduler::forThisThread().wait(Wait{kind, mask, operand, width, bytes, value, site});
}

template <typename T>
T shuffle(WaitKind kind, unsigned mask, T value, int operand, int width, const SourceSite &site) {
  return fromBits<T>(warpCollective(kind, mask, toBits(value), sizeof(T), operand, width, site));
}

} // namespace detail
} // namespace emu
} // namespace tc

/// CUDA's warpSize (a constant here; device code should not depend on that).
inline constexpr int warpSize = 32;

// ---- barriers ----

/// Waits until every live (not yet returned) thread of the block reaches this same
/// __syncthreads; threads waiting at different ones abort the program with a report.
inline void __syncthreads(::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  tc::emu::detail::blockBarrier(tc::emu::detail::WaitKind::SyncThreads, 0, site);
}

/// __syncthreads that also returns how many live threads passed a nonzero predicate.
inline int __syncthreads_count(int predicate,
                               ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return static_cast<int>(
      tc::emu::detail::blockBarrier(tc::emu::detail::WaitKind::SyncThreadsCount, predicate, site));
}

inline int __syncthreads_and(int predicate, ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return static_cast<int>(
      tc::emu::detail::blockBarrier(tc::emu::detail::WaitKind::SyncThreadsAnd, predicate, site));
}

inline int __syncthreads_or(int predicate, ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return static_cast<int>(
      tc::emu::detail::blockBarrier(tc::emu::detail::WaitKind::SyncThreadsOr, predicate, site));
}

// ---- warp collectives: every live lane named in `mask` must call the same one ----

inline void __syncwarp(unsigned mask = 0xffffffffu,
                       ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  tc::emu::detail::warpCollective(tc::emu::detail::WaitKind::SyncWarp, mask, 0, 0, 0, 32, site);
}

/// The value of lane `srcLane` (modulo `width`) of the caller's `width`-lane segment.
template <typename T>
T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32,
              ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return tc::emu::detail::shuffle(tc::emu::detail::WaitKind::ShuffleIndex, mask, var, srcLane,
                                  width, site);
}

/// The value of lane (lane - delta); lanes below their segment keep their own value.
template <typename T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32,
                 ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return tc::emu::detail::shuffle(tc::emu::detail::WaitKind::ShuffleUp, mask, var,
                                  static_cast<int>(delta), width, site);
}

/// The value of lane (lane + delta); lanes past their segment keep their own value.
template <typename T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32,
                   ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return tc::emu::detail::shuffle(tc::emu::detail::WaitKind::ShuffleDown, mask, var,
                                  static_cast<int>(delta), width, site);
}

/// The value of lane (lane ^ laneMask); a source in a later segment means the own value.
template <typename T>
T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32,
                  ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return tc::emu::detail::shuffle(tc::emu::detail::WaitKind::ShuffleXor, mask, var, laneMask, width,
                                  site);
}

/// Bit i set when lane i participates and its predicate is nonzero.
inline unsigned __ballot_sync(unsigned mask, int predicate,
                              ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return static_cast<unsigned>(tc::emu::detail::warpCollective(
      tc::emu::detail::WaitKind::Ballot, mask, predicate != 0, 4, 0, 32, site));
}

inline int __any_sync(unsigned mask, int predicate,
                      ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return static_cast<int>(tc::emu::detail::warpCollective(tc::emu::detail::WaitKind::Any, mask,
                                                          predicate != 0, 4, 0, 32, site));
}

inline int __all_sync(unsigned mask, int predicate,
                      ::tc::emu::detail::SourceSite site = TC_EMU_CALL_SITE) {
  return static_cast<int>(tc::emu::detail::warpCollective(tc::emu::detail::WaitKind::All, mask,
                                                          predicate != 0, 4, 0, 32, site));
}

// ---- memory ----

/// Fences order nothing here: fibers switch only at barriers and collectives, so every
/// access of one thread is already visible to all others.
inline void __threadfence() { std::atomic_signal_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_signal_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_signal_fence(std::memory_order_seq_cst); }

template <typename T> T __ldg(const T *address) { return *address; }

/// Device code hit a trap: on a GPU the kernel fails with an unrecoverable error.
[[noreturn]] inline void __trap() { tc::emu::detail::die("device code executed __trap()"); }

// ---- atomics: a read-modify-write is atomic because fibers never switch inside one ----

#define TC_EMU_ATOMIC(name, T, update)                                                             \
  inline T name(T *address, T val) {                                                               \
    T old = *address;                                                                              \
    *address = (update);                                                                           \
    return old;                                                                                    \
  }

// Signed additions wrap like the hardware's, without C++'s signed-overflow UB.
TC_EMU_ATOMIC(atomicAdd, int,
              static_cast<int>(static_cast<unsigned>(old) + static_cast<unsigned>(val)))
TC_EMU_ATOMIC(atomicAdd, unsigned int, old + val)
TC_EMU_ATOMIC(atomicAdd, unsigned long long, old + val)
TC_EMU_ATOMIC(atomicAdd, float, old + val)
TC_EMU_ATOMIC(atomicAdd, double, old + val)
TC_EMU_ATOMIC(atomicSub, int,
              static_cast<int>(static_cast<unsigned>(old) - static_cast<unsigned>(val)))
TC_EMU_ATOMIC(atomicSub, unsigned int, old - val)
TC_EMU_ATOMIC(atomicExch, int, val)
TC_EMU_ATOMIC(atomicExch, unsigned int, val)
TC_EMU_ATOMIC(atomicExch, unsigned long long, val)
TC_EMU_ATOMIC(atomicExch, float, val)
TC_EMU_ATOMIC(atomicMin, int, val < old ? val : old)
TC_EMU_ATOMIC(atomicMin, unsigned int, val < old ? val : old)
TC_EMU_ATOMIC(atomicMin, long long, val < old ? val : old)
TC_EMU_ATOMIC(atomicMin, unsigned long long, val < old ? val : old)
TC_EMU_ATOMIC(atomicMax, int, val > old ? val : old)
TC_EMU_ATOMIC(atomicMax, unsigned int, val > old ? val : old)
TC_EMU_ATOMIC(atomicMax, long long, val > old ? val : old)
TC_EMU_ATOMIC(atomicMax, unsigned long long, val > old ? val : old)
TC_EMU_ATOMIC(atomicAnd, int, old &val)
TC_EMU_ATOMIC(atomicAnd, unsigned int, old &val)
TC_EMU_ATOMIC(atomicAnd, unsigned long long, old &val)
TC_EMU_ATOMIC(atomicOr, int, old | val)
TC_EMU_ATOMIC(atomicOr, unsigned int, old | val)
TC_EMU_ATOMIC(atomicOr, unsigned long long, old | val)
TC_EMU_ATOMIC(atomicXor, int, old ^ val)
TC_EMU_ATOMIC(atomicXor, unsigned int, old ^ val)
TC_EMU_ATOMIC(atomicXor, unsigned long long, old ^ val)
/// ((old >= val) ? 0 : old + 1) and ((old == 0 || old > val) ? val : old - 1), as in CUDA.
TC_EMU_ATOMIC(atomicInc, unsigned int, old >= val ? 0u : old + 1)
TC_EMU_ATOMIC(atomicDec, unsigned int, old == 0 || old > val ? val : old - 1)

#undef TC_EMU_ATOMIC

#define TC_EMU_ATOMIC_CAS(T)                                                                       \
  inline T atomicCAS(T *address, T compare, T val) {                                               \
    T old = *address;                                                                              \
    if (old == compare)                                                                            \
      *address = val;                                                                              \
    return old;                                                                                    \
  }
TC_EMU_ATOMIC_CAS(int)
TC_EMU_ATOMIC_CAS(unsigned int)
TC_EMU_ATOMIC_CAS(unsigned long long)
TC_EMU_ATOMIC_CAS(unsigned short)
#undef TC_EMU_ATOMIC_CAS

// ---- reinterpretation ----

inline int __float_as_int(float x) { return tc::emu::detail::bitCast<int>(x); }
inline float __int_as_float(int x) { return tc::emu::detail::bitCast<float>(x); }
inline unsigned int __float_as_uint(float x) { return tc::emu::detail::bitCast<unsigned>(x); }
inline float __uint_as_float(unsigned int x) { return tc::emu::detail::bitCast<float>(x); }
inline long long __double_as_longlong(double x) { return tc::emu::detail::bitCast<long long>(x); }
inline double __longlong_as_double(long long x) { return tc::emu::detail::bitCast<double>(x); }

// ---- math ----
// The fast-math intrinsics are computed accurately (the GPU's are within a few ulp of these).
// glibc's <math.h> declares __expf & co. (extern "C", noexcept) without exporting them, and
// C23 libcs declare rsqrt/rsqrtf: defining them with the same linkage and exception
// specification completes those declarations instead of conflicting with them.

extern "C" {
inline float rsqrtf(float x) noexcept { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) noexcept { return 1.0 / std::sqrt(x); }
inline float __expf(float x) noexcept { return std::exp(x); }
inline float __exp10f(float x) noexcept { return std::pow(10.0f, x); }
inline float __logf(float x) noexcept { return std::log(x); }
inline float __log2f(float x) noexcept { return std::log2(x); }
inline float __log10f(float x) noexcept { return std::log10(x); }
inline float __sinf(float x) noexcept { return std::sin(x); }
inline float __cosf(float x) noexcept { return std::cos(x); }
inline float __tanf(float x) noexcept { return std::tan(x); }
inline float __powf(float x, float y) noexcept { return std::pow(x, y); }
}

inline float __fdividef(float x, float y) { return x / y; }
/// x clamped to [0, 1]; NaN becomes 0.
inline float __saturatef(float x) { return x >= 1.0f ? 1.0f : (x > 0.0f ? x : 0.0f); }
inline float __fmaf_rn(float x, float y, float z) { return std::fma(x, y, z); }
inline double __fma_rn(double x, double y, double z) { return std::fma(x, y, z); }
inline float __fadd_rn(float x, float y) { return x + y; }
inline float __fsub_rn(float x, float y) { return x - y; }
inline float __fmul_rn(float x, float y) { return x * y; }
inline float __fdiv_rn(float x, float y) { return x / y; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }

// ---- bits ----

inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
/// Leading zeros; 32 (64) for 0, where the GCC builtin is undefined.
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) {
  return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x));
}
/// 1 + the index of the least significant set bit; 0 for 0.
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
  unsigned int reversed = 0;
  for (int bit = 0; bit < 32; ++bit, x >>= 1)
    reversed = (reversed << 1) | (x & 1u);
  return reversed;
}
inline unsigned int __umulhi(unsigned int x, unsigned int y) {
  return static_cast<unsigned int>((uint64_t{x} * y) >> 32);
}
inline int __mulhi(int x, int y) { return static_cast<int>((static_cast<int64_t>(x) * y) >> 32); }
inline unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return static_cast<unsigned long long>((static_cast<unsigned __int128>(x) * y) >> 64);
}
