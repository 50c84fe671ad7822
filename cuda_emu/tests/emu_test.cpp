// Tests of the CPU emulation of CUDA's execution model (cuda_emu/tc_cuda_emu*.h):
// grids of fiber threads, block barriers, warp shuffles and votes, shared memory, atomics,
// kernel arguments, and the cost of a block. The runtime API: emu_runtime_test.cpp; cuBLAS:
// emu_blas_test.cpp.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "tc_cuda_api.h"

#include "tc_cuda.h"

#include "emu_test_util.h"

namespace {

using emu_test::DeviceArray;

__global__ void countVisits(int *visits, int n) {
  for (int64_t i = tc::cuda::global_thread(); i < n; i += tc::cuda::grid_threads())
    atomicAdd(&visits[i], 1);
}

TEST_CASE("a grid-stride loop over three blocks visits every element exactly once") {
  const int n = 1000; // not a multiple of the 3 x 128 threads
  DeviceArray<int> visits(std::vector<int>(n, 0));
  TC_LAUNCH(3, 128, 0, nullptr, countVisits)(visits.data(), n);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(visits.read() == std::vector<int>(n, 1));
}

__global__ void recordIndices(int *out) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  out[block * threads + thread] = static_cast<int>(block * 1000 + thread);
}

TEST_CASE("threadIdx, blockIdx, blockDim and gridDim are the running thread's, x fastest") {
  const dim3 grid(2, 3, 2), block(4, 2, 3);
  DeviceArray<int> out(12 * 24);
  TC_LAUNCH(grid, block, 0, nullptr, recordIndices)(out.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<int> got = out.read();
  for (int i = 0; i < 12 * 24; ++i)
    CHECK(got[i] == i / 24 * 1000 + i % 24);
}

/// Per-block sums: warp shuffles, one partial per warp in __shared__ memory, a barrier, then
/// the first warp combines the partials.
__global__ void blockSums(const float *in, float *out, int n) {
  __shared__ float warpSums[32];
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  float value = i < n ? in[i] : 0.0f;
  for (int delta = 16; delta > 0; delta /= 2)
    value += __shfl_down_sync(0xffffffffu, value, delta);
  if (lane == 0)
    warpSums[warp] = value;
  __syncthreads();
  if (warp != 0)
    return;
  value = lane < static_cast<int>(blockDim.x) / 32 ? warpSums[lane] : 0.0f;
  for (int delta = 16; delta > 0; delta /= 2)
    value += __shfl_down_sync(0xffffffffu, value, delta);
  if (lane == 0)
    out[blockIdx.x] = value;
}

std::vector<float> smallIntegers(int n) {
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i)
    values[i] = static_cast<float>((i * 37) % 11 - 5); // exact sums in float
  return values;
}

TEST_CASE("a block reduction with __shared__, __syncthreads and __shfl_down_sync") {
  const int n = 1000, threads = 256, blocks = 4;
  std::vector<float> values = smallIntegers(n);
  DeviceArray<float> in(values), out(blocks);
  TC_LAUNCH(blocks, threads, 0, nullptr, blockSums)(in.data(), out.data(), n);
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<float> got = out.read();
  for (int b = 0; b < blocks; ++b) {
    float want = 0;
    for (int i = b * threads; i < std::min(n, (b + 1) * threads); ++i)
      want += values[i];
    CHECK(got[b] == want);
  }
}

/// tc::cuda::block_reduce twice in a row: the second call reuses its __shared__ partials.
template <typename Op> __global__ void reduceTwice(const double *in, double *out) {
  const double value = in[blockIdx.x * blockDim.x + threadIdx.x];
  const double first = tc::cuda::block_reduce<Op>(value);
  const double second = tc::cuda::block_reduce<Op>(-value);
  if (threadIdx.x == 0) {
    out[2 * blockIdx.x] = first;
    out[2 * blockIdx.x + 1] = second;
  }
}

TEST_CASE("tc::cuda::block_reduce sums and maxes blocks of 256 and 1024 threads") {
  for (unsigned threads : {256u, 1024u}) {
    const unsigned blocks = 2048 / threads;
    std::vector<double> values(2048);
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<double>((i * 7919) % 1000) / 8;
    DeviceArray<double> in(values), out(2 * blocks);
    TC_LAUNCH(blocks, threads, 0, nullptr, reduceTwice<tc::cuda::sum_op>)(in.data(), out.data());
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<double> sums = out.read();
    TC_LAUNCH(blocks, threads, 0, nullptr, reduceTwice<tc::cuda::max_op>)(in.data(), out.data());
    REQUIRE(cudaGetLastError() == cudaSuccess);
    std::vector<double> maxima = out.read();
    for (unsigned b = 0; b < blocks; ++b) {
      double sum = 0, max = -INFINITY, negatedMax = -INFINITY;
      for (unsigned i = b * threads; i < (b + 1) * threads; ++i) {
        sum += values[i];
        max = std::max(max, values[i]);
        negatedMax = std::max(negatedMax, -values[i]);
      }
      CHECK(sums[2 * b] == doctest::Approx(sum).epsilon(1e-12));
      CHECK(sums[2 * b + 1] == doctest::Approx(-sum).epsilon(1e-12));
      CHECK(maxima[2 * b] == max);
      CHECK(maxima[2 * b + 1] == negatedMax);
    }
  }
}

/// Reverses each block's slice through dynamic shared memory; thread 0 first records what the
/// memory held before anyone in its block wrote it, and its alignment.
__global__ void reverseThroughShared(const float *in, float *out, unsigned *before) {
  float *tile = tc::cuda::dynamic_shared<float>();
  if (threadIdx.x == 0) {
    std::memcpy(&before[2 * blockIdx.x], tile, sizeof(unsigned));
    before[2 * blockIdx.x + 1] = static_cast<unsigned>(reinterpret_cast<uintptr_t>(tile) % 16);
  }
  tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

TEST_CASE("dynamic shared memory: per block, 16-byte aligned, filled with 0xCD bytes") {
  const int threads = 64, blocks = 3;
  std::vector<float> values = smallIntegers(threads * blocks);
  DeviceArray<float> in(values), out(values.size());
  DeviceArray<unsigned> before(2 * blocks);
  TC_LAUNCH(blocks, threads, threads * sizeof(float), nullptr, reverseThroughShared)
  (in.data(), out.data(), before.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<float> got = out.read();
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t)
      CHECK(got[b * threads + t] == values[b * threads + threads - 1 - t]);
  std::vector<unsigned> seen = before.read();
  for (int b = 0; b < blocks; ++b) { // every block starts from garbage, not the last one's data
    CHECK(seen[2 * b] == 0xCDCDCDCDu);
    CHECK(seen[2 * b + 1] == 0u);
  }
}

__global__ void useLargeShared(int *out) {
  int *slots = tc::cuda::dynamic_shared<int>();
  slots[16383] = 5;
  out[0] = slots[16383];
}

TEST_CASE("more than 48 KiB of dynamic shared memory needs cudaFuncSetAttribute, as on a GPU") {
  DeviceArray<int> out(std::vector<int>{0});
  const size_t bytes = 64 * 1024;
  TC_LAUNCH(1, 32, bytes, nullptr, useLargeShared)(out.data());
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(out.read()[0] == 0);
  CHECK(cudaFuncSetAttribute(useLargeShared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(bytes)) == cudaSuccess);
  TC_LAUNCH(1, 32, bytes, nullptr, useLargeShared)(out.data());
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(out.read()[0] == 5);
  // Beyond the device's opt-in limit (163 KiB on the default sm_80) the attribute is refused.
  int optin = 0;
  REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) ==
          cudaSuccess);
  CHECK(cudaFuncSetAttribute(useLargeShared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             optin + 1) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  cudaFuncAttributes attributes{};
  REQUIRE(cudaFuncGetAttributes(&attributes, useLargeShared) == cudaSuccess);
  CHECK(attributes.maxDynamicSharedSizeBytes == static_cast<int>(bytes));
}

constexpr int kShuffleResults = 8;

__global__ void shuffles(int *out, double *doubles) {
  const int lane = static_cast<int>(threadIdx.x) % 32;
  int *mine = out + threadIdx.x * kShuffleResults;
  int sum = lane; // butterfly: every lane ends with the warp's sum
  for (int mask = 16; mask > 0; mask /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, mask);
  mine[0] = sum;
  mine[1] = __shfl_sync(0xffffffffu, lane * 10, 3, 8);       // lane 3 of the 8-lane segment
  mine[2] = __shfl_up_sync(0xffffffffu, lane, 2, 8);         // below the segment: own value
  mine[3] = __shfl_down_sync(0xffffffffu, lane, 3, 16);      // past the segment: own value
  mine[4] = __shfl_xor_sync(0xffffffffu, lane, 8, 8);        // a later segment: own value
  mine[5] = __shfl_sync(0xffffffffu, lane, -1);              // source lane taken modulo 32
  mine[6] = __shfl_sync(0xffffffffu, lane, 35);              // 35 -> 3
  const long long wide = static_cast<long long>(lane) << 40; // 64-bit values travel whole
  mine[7] = static_cast<int>(__shfl_down_sync(0xffffffffu, wide, 1) >> 40);
  doubles[threadIdx.x] = __shfl_up_sync(0xffffffffu, lane + 0.25, 1);
}

TEST_CASE("shuffles: xor butterfly, width < 32 segments, out-of-range sources, 8-byte values") {
  const int threads = 64; // two warps
  DeviceArray<int> out(threads * kShuffleResults);
  DeviceArray<double> doubles(threads);
  TC_LAUNCH(1, threads, 0, nullptr, shuffles)(out.data(), doubles.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<int> got = out.read();
  std::vector<double> gotDoubles = doubles.read();
  for (int t = 0; t < threads; ++t) {
    const int lane = t % 32;
    const int *mine = &got[t * kShuffleResults];
    CAPTURE(t);
    CHECK(mine[0] == 496);
    CHECK(mine[1] == ((lane & ~7) + 3) * 10);
    CHECK(mine[2] == (lane % 8 >= 2 ? lane - 2 : lane));
    CHECK(mine[3] == (lane % 16 + 3 < 16 ? lane + 3 : lane));
    CHECK(mine[4] == ((lane & 8) != 0 ? lane - 8 : lane));
    CHECK(mine[5] == 31);
    CHECK(mine[6] == 3);
    CHECK(mine[7] == (lane < 31 ? lane + 1 : lane));
    CHECK(gotDoubles[t] == (lane > 0 ? lane - 1 + 0.25 : lane + 0.25));
  }
}

/// Lanes 16..31 return at once. The rest shuffle with a mask of exactly the live lanes, then
/// with the full mask (exited lanes named in it no longer take part): reading an exited lane
/// is undefined in CUDA and yields all-ones bits (-1) here.
__global__ void shuffleWithExitedLanes(int *out) {
  if (threadIdx.x >= 16)
    return;
  const int lane = static_cast<int>(threadIdx.x);
  out[lane] = __shfl_xor_sync(0x0000ffffu, lane, 1);
  out[16 + lane] = __shfl_down_sync(0xffffffffu, lane, 8);
}

/// A 48-thread block: the second warp has 16 lanes; reading a lane that does not exist gives
/// NaN for floats.
__global__ void shuffleInPartialWarp(float *out) {
  out[threadIdx.x] = __shfl_down_sync(0xffffffffu, static_cast<float>(threadIdx.x), 8);
}

TEST_CASE("shuffles among exited or absent lanes: own value in range, garbage from the absent") {
  DeviceArray<int> out(32);
  TC_LAUNCH(1, 32, 0, nullptr, shuffleWithExitedLanes)(out.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<int> got = out.read();
  for (int lane = 0; lane < 16; ++lane) {
    CHECK(got[lane] == (lane ^ 1));
    CHECK(got[16 + lane] == (lane < 8 ? lane + 8 : -1));
  }

  DeviceArray<float> partial(48);
  TC_LAUNCH(1, 48, 0, nullptr, shuffleInPartialWarp)(partial.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<float> values = partial.read();
  for (int t = 0; t < 32; ++t)
    CHECK(values[t] == static_cast<float>(t < 24 ? t + 8 : t));
  for (int t = 32; t < 48; ++t) {
    CAPTURE(t);
    if (t < 40)
      CHECK(values[t] == static_cast<float>(t + 8));
    else
      CHECK(std::isnan(values[t]));
  }
}

__global__ void warpVotes(unsigned *out) {
  const unsigned lane = threadIdx.x % 32;
  unsigned *mine = out + 4 * threadIdx.x;
  mine[0] = __ballot_sync(0xffffffffu, lane % 3 == 0);
  mine[1] = static_cast<unsigned>(__any_sync(0xffffffffu, threadIdx.x == 40));
  mine[2] = static_cast<unsigned>(__all_sync(0xffffffffu, lane < 32));
  mine[3] = static_cast<unsigned>(__all_sync(0xffffffffu, lane != 5));
}

/// Threads 100.. return before the barriers: only the 100 live threads vote.
__global__ void blockVotes(int *out) {
  if (threadIdx.x >= 100)
    return;
  const int count = __syncthreads_count(threadIdx.x % 4 == 0);
  const int all = __syncthreads_and(threadIdx.x < 100);
  const int any = __syncthreads_or(threadIdx.x == 117);
  __syncwarp();
  if (threadIdx.x == 0) {
    out[0] = count;
    out[1] = all;
    out[2] = any;
  }
}

TEST_CASE("warp votes and block votes count participating, live threads only") {
  DeviceArray<unsigned> votes(4 * 64);
  TC_LAUNCH(1, 64, 0, nullptr, warpVotes)(votes.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<unsigned> got = votes.read();
  for (int t = 0; t < 64; ++t) {
    CHECK(got[4 * t] == 0x49249249u); // lanes 0, 3, 6, ..., 30
    CHECK(got[4 * t + 1] == (t >= 32 ? 1u : 0u));
    CHECK(got[4 * t + 2] == 1u);
    CHECK(got[4 * t + 3] == 0u);
  }
  DeviceArray<int> out(3);
  TC_LAUNCH(1, 128, 0, nullptr, blockVotes)(out.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(out.read() == std::vector<int>{25, 1, 0});
}

__global__ void atomics(int *ints, unsigned *uints, unsigned long long *wide, float *floats,
                        double *doubles) {
  const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicAdd(&ints[0], 1);
  atomicSub(&ints[1], 2);
  atomicMax(&ints[2], t);
  atomicMin(&ints[3], -t);
  atomicExch(&ints[4], 7);
  atomicOr(&ints[5], 1 << (t % 31));
  atomicCAS(&ints[6], 0, t + 1); // only the first thread finds 0
  atomicInc(&uints[0], 9u);      // counts modulo 10
  atomicAdd(&uints[1], 3u);
  atomicAdd(&wide[0], 1ull << 33);
  atomicAdd(&floats[0], 0.5f);
  atomicAdd(&doubles[0], 0.25);
  // A float maximum through atomicCAS on the bits, the classic CUDA idiom.
  int *bits = reinterpret_cast<int *>(&floats[1]);
  const float value = static_cast<float>(t) * 1.5f;
  int old = *bits;
  while (__int_as_float(old) < value) {
    const int assumed = old;
    old = atomicCAS(bits, assumed, __float_as_int(value));
    if (old == assumed)
      break;
  }
}

TEST_CASE("atomics read-modify-write across every thread of the grid") {
  DeviceArray<int> ints(std::vector<int>(7, 0));
  DeviceArray<unsigned> uints(std::vector<unsigned>(2, 0));
  DeviceArray<unsigned long long> wide(std::vector<unsigned long long>{0});
  DeviceArray<float> floats(std::vector<float>{0.0f, -1.0f});
  DeviceArray<double> doubles(std::vector<double>{0.0});
  TC_LAUNCH(4, 64, 0, nullptr, atomics)
  (ints.data(), uints.data(), wide.data(), floats.data(), doubles.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<int> got = ints.read();
  CHECK(std::vector<int>(got.begin(), got.begin() + 6) ==
        std::vector<int>{256, -512, 255, -255, 7, 0x7fffffff});
  CHECK(got[6] >= 1); // whichever thread ran first (it depends on TC_EMU_THREAD_ORDER)
  CHECK(got[6] <= 256);
  CHECK(uints.read() == std::vector<unsigned>{256 % 10, 768});
  CHECK(wide.read()[0] == 256ull << 33);
  CHECK(floats.read() == std::vector<float>{128.0f, 255 * 1.5f});
  CHECK(doubles.read()[0] == 64.0);
}

struct Parameters {
  int64_t values[4];
};

/// Each thread changes its own copy of a by-value argument, as each CUDA thread does.
__global__ void changeOwnCopy(Parameters parameters, int64_t count, int64_t *out) {
  parameters.values[0] += threadIdx.x;
  count += threadIdx.x;
  out[2 * threadIdx.x] = parameters.values[0];
  out[2 * threadIdx.x + 1] = count;
}

TEST_CASE("arguments are converted to the parameter types once and copied to every thread") {
  DeviceArray<int64_t> out(2 * 32);
  Parameters parameters{{10, 20, 30, 40}};
  const int count = 100; // converted to int64_t
  TC_LAUNCH(1, 32, 0, nullptr, changeOwnCopy)(parameters, count, out.data());
  REQUIRE(cudaGetLastError() == cudaSuccess);
  std::vector<int64_t> got = out.read();
  for (int t = 0; t < 32; ++t) {
    CHECK(got[2 * t] == 10 + t);
    CHECK(got[2 * t + 1] == 100 + t);
  }
  // A lambda stands in for a __global__ function (tests only).
  TC_LAUNCH(2, 16, 0, nullptr, [](int64_t *values, int64_t base) {
    values[blockIdx.x * blockDim.x + threadIdx.x] = base + threadIdx.x;
  })
  (out.data(), int64_t{7});
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(out.read()[20] == 7 + 4);
}

__global__ void storeOne(int *out) { *out = 1; }

TEST_CASE("invalid launch configurations run nothing and set the last error once") {
  DeviceArray<int> out(std::vector<int>{0});
  struct Case {
    dim3 grid, block;
  };
  for (const Case &bad :
       {Case{1, 1025}, Case{1, 0}, Case{0, 32}, Case{1, dim3(32, 32, 2)}, Case{1, dim3(1, 1, 65)},
        Case{dim3(1, 65536), 32}, Case{dim3(2147483648u), 32}}) {
    TC_LAUNCH(bad.grid, bad.block, 0, nullptr, storeOne)(out.data());
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration); // peeking keeps it
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaSuccess);
  }
  CHECK(out.read()[0] == 0);
  // The largest valid shapes launch.
  TC_LAUNCH(dim3(1, 65535), 1, 0, nullptr, storeOne)(out.data());
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(out.read()[0] == 1);
  TC_LAUNCH(1, dim3(16, 1, 64), 0, nullptr, storeOne)(out.data());
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a host pointer argument fails the launch: a GPU would fault on it") {
  int host = 0;
  TC_LAUNCH(1, 1, 0, nullptr, storeOne)(&host);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  CHECK(host == 0);
  // Pinned host memory is device-accessible, and nullptr is just a value.
  int *pinned = nullptr;
  REQUIRE(cudaMallocHost(&pinned, sizeof(int)) == cudaSuccess);
  TC_LAUNCH(1, 1, 0, nullptr, storeOne)(pinned);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(*pinned == 1);
  CHECK(cudaFreeHost(pinned) == cudaSuccess);
}

/// Each thread writes its slot, then reads its neighbour's, with or without the barrier in
/// between.
__global__ void readNeighbour(int *out, bool synchronize) {
  int *slots = tc::cuda::dynamic_shared<int>();
  slots[threadIdx.x] = static_cast<int>(threadIdx.x);
  if (synchronize)
    __syncthreads();
  out[threadIdx.x] = slots[(threadIdx.x + 1) % blockDim.x];
}

TEST_CASE("a missing __syncthreads shows up in forward or reverse thread order") {
  const unsigned threads = 64;
  DeviceArray<int> out(threads);
  std::vector<int> want(threads);
  for (unsigned t = 0; t < threads; ++t)
    want[t] = static_cast<int>((t + 1) % threads);
  const tc::emu::ThreadOrder initial = tc::emu::thread_order();
  for (tc::emu::ThreadOrder order :
       {tc::emu::ThreadOrder::Forward, tc::emu::ThreadOrder::Reverse}) {
    tc::emu::set_thread_order(order);
    TC_LAUNCH(1, threads, threads * sizeof(int), nullptr, readNeighbour)(out.data(), true);
    CHECK(out.read() == want);
    TC_LAUNCH(1, threads, threads * sizeof(int), nullptr, readNeighbour)(out.data(), false);
    CHECK(out.read() != want); // some thread read its neighbour's slot before it was written
  }
  tc::emu::set_thread_order(initial);
  REQUIRE(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("host threads launch concurrently; their grids do not interleave") {
  const int n = 256 * 64;
  std::vector<float> values = smallIntegers(n);
  DeviceArray<float> in(values);
  auto sums = [&](float *out) {
    for (int repeat = 0; repeat < 4; ++repeat)
      TC_LAUNCH(64, 256, 0, nullptr, blockSums)(in.data(), out, n);
  };
  DeviceArray<float> first(64), second(64);
  std::thread other(sums, second.data());
  sums(first.data());
  other.join();
  REQUIRE(cudaGetLastError() == cudaSuccess);
  CHECK(first.read() == second.read());
}

__global__ void withoutBarrier(float *out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<float>(threadIdx.x);
}

__global__ void withOneBarrier(float *out) {
  __shared__ float slots[256];
  slots[threadIdx.x] = static_cast<float>(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = slots[255 - threadIdx.x];
}

TEST_CASE("cost of a block: 1000 blocks x 256 threads, without and with one __syncthreads") {
  const int blocks = 1000, threads = 256;
  DeviceArray<float> out(blocks * threads);
  using Clock = std::chrono::steady_clock;
  auto time = [&](void (*kernel)(float *)) {
    const Clock::time_point start = Clock::now();
    TC_LAUNCH(blocks, threads, 0, nullptr, kernel)(out.data());
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    REQUIRE(cudaGetLastError() == cudaSuccess);
    return seconds * 1e6 / blocks;
  };
  const double plain = time(withoutBarrier), synchronized = time(withOneBarrier);
  CHECK(out.read()[threads + 3] == 252.0f);
  MESSAGE("microseconds per 256-thread block: " << plain << " without a barrier, " << synchronized
                                                << " with one __syncthreads");
  CHECK(plain < 1000.0); // generous bounds: sanitizers and loaded CI machines are slow
  CHECK(synchronized < 2000.0);
}

} // namespace
