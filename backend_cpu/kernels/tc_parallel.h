// Parallel loops and CPU dispatch for the generated kernels and the kernel library.
//
// tc::parallel_for(n, grain, f) splits [0, n) into at most one contiguous range per thread of
// the running context's pool (never ranges smaller than `grain`) and calls f(begin, end) on
// each; with one thread, or when n < 2 * grain, it calls f(0, n) on the caller. The pool is the
// one that <name>_run installs for its duration (tc::PoolScope); inside a task no pool is
// installed, so nested parallel_for calls run serially.
//
// Every range runs through tc::run_range, which the compiler clones for x86-64-v4 (AVX-512),
// x86-64-v3 (AVX2 + FMA) and the baseline, picking one at load time by the CPU (GCC's
// target_clones on ELF platforms): the loop body inlined into each clone is vectorized for
// that ISA, so a bundle built once runs well on any x86-64 CPU. Clang does not clone function
// templates (clang 14-18: "multiversioned functions do not yet support function templates"),
// so with clang, and where TC_NO_CPU_DISPATCH is defined (the bundle's
// THUNDERC_BUNDLE_CPU_DISPATCH=OFF), the body compiles once with the compiler's own flags
// (e.g. -march=native).
#pragma once

#include <cstdint>

#include "thread_pool.h"

#if !defined(TC_NO_CPU_DISPATCH) && defined(__x86_64__) && defined(__ELF__) &&                  \
    defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define TC_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TC_CPU_CLONES
#endif

namespace tc {

namespace detail {
inline tc_pool *&current_pool() {
  static thread_local tc_pool *pool = nullptr;
  return pool;
}
} // namespace detail

/// Installs `pool` as the calling thread's pool for parallel_for until destroyed.
class PoolScope {
public:
  explicit PoolScope(tc_pool *pool) : saved_(detail::current_pool()) {
    detail::current_pool() = pool;
  }
  ~PoolScope() { detail::current_pool() = saved_; }
  PoolScope(const PoolScope &) = delete;
  PoolScope &operator=(const PoolScope &) = delete;

private:
  tc_pool *saved_;
};

/// The number of threads parallel_for may use on the calling thread.
inline int parallel_threads() { return tc_pool_num_threads(detail::current_pool()); }

/// f(begin, end), compiled once per dispatch target (see the file comment).
template <typename F> TC_CPU_CLONES void run_range(const F &f, int64_t begin, int64_t end) {
  f(begin, end);
}

/// Splits [0, n) into contiguous ranges of at least `grain` items over the pool's threads.
template <typename F> void parallel_for(int64_t n, int64_t grain, const F &f) {
  if (n <= 0)
    return;
  tc_pool *pool = detail::current_pool();
  int64_t threads = tc_pool_num_threads(pool);
  int64_t chunks = grain > 0 ? n / grain : n;
  chunks = chunks < threads ? chunks : threads;
  if (chunks <= 1) {
    run_range(f, 0, n);
    return;
  }
  struct Job {
    const F *f;
    int64_t n;
    int64_t chunks;
  } job{&f, n, chunks};
  // Installed pools are not re-entrant: tasks run with no pool (serial nested loops).
  PoolScope serial(nullptr);
  tc_pool_run(
      pool, chunks,
      [](void *arg, int64_t task) {
        const Job &j = *static_cast<const Job *>(arg);
        run_range(*j.f, j.n * task / j.chunks, j.n * (task + 1) / j.chunks);
      },
      &job);
}

} // namespace tc
