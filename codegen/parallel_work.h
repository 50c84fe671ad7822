// Independent pieces of compile-time work spread over the machine's cores (packing weights
// for weights.bin, NVRTC compiles of kernels).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace thunderc::codegen {

/// Calls work(i) once for every i in [0, count), on up to min(8, cores) threads (the caller is
/// one of them); returns when all are done. Each index is taken by exactly one thread, so
/// work(i) may write slot i of a result vector without locking.
template <typename Work> void forEachOnCores(size_t count, const Work &work) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++)
      work(i);
  };
  size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 8);
  threads = std::min(threads, count);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool)
    thread.join();
}

} // namespace thunderc::codegen
