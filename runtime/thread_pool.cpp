// The fork-join pool of thread_pool.h: workers sleep on a condition variable between jobs
// (after a short spin, so that back-to-back kernels do not pay a wake-up each), claim task
// indices from an atomic counter, and the caller waits until every task has finished.
#include "thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

struct tc_pool {
  int num_threads = 1;
  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable finished;
  // The current job; `generation` changes when a new one is published.
  std::atomic<uint64_t> generation{0};
  void (*fn)(void *, int64_t) = nullptr;
  void *arg = nullptr;
  int64_t tasks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  int active = 0; ///< workers inside drain(); a job is replaced only when none is
  bool stop = false;
};

namespace {

/// Claims and runs tasks of the current job until none is left.
void drain(tc_pool *pool) {
  for (;;) {
    int64_t task = pool->next.fetch_add(1, std::memory_order_relaxed);
    if (task >= pool->tasks)
      return;
    pool->fn(pool->arg, task);
    if (pool->done.fetch_add(1, std::memory_order_acq_rel) + 1 == pool->tasks) {
      std::lock_guard<std::mutex> lock(pool->mutex);
      pool->finished.notify_all();
    }
  }
}

void workerLoop(tc_pool *pool) {
  uint64_t seen = 0;
  for (;;) {
    // Spin a little for the next job before sleeping.
    for (int spin = 0; spin < 4000 && pool->generation.load(std::memory_order_acquire) == seen;
         ++spin)
      std::this_thread::yield();
    {
      std::unique_lock<std::mutex> lock(pool->mutex);
      pool->wake.wait(lock, [&] {
        return pool->stop || pool->generation.load(std::memory_order_acquire) != seen;
      });
      if (pool->stop)
        return;
      seen = pool->generation.load(std::memory_order_acquire);
      ++pool->active;
    }
    drain(pool);
    std::lock_guard<std::mutex> lock(pool->mutex);
    if (--pool->active == 0)
      pool->finished.notify_all();
  }
}

} // namespace

extern "C" {

int tc_available_cpus(void) {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return count;
  }
#endif
  unsigned count = std::thread::hardware_concurrency();
  return count > 0 ? static_cast<int>(count) : 1;
}

tc_status tc_pool_create(int num_threads, tc_pool **out, tc_error *err) {
  if (out == nullptr)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "tc_pool_create: null output");
  *out = nullptr;
  if (num_threads < 1 || num_threads > 1024)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "tc_pool_create: num_threads %d is outside [1, 1024]", num_threads);
  tc_pool *pool = new (std::nothrow) tc_pool();
  if (pool == nullptr)
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, "tc_pool_create: out of memory");
  pool->num_threads = num_threads;
  try {
    for (int i = 1; i < num_threads; ++i)
      pool->workers.emplace_back(workerLoop, pool);
  } catch (...) {
    tc_pool_destroy(pool);
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY,
                         "tc_pool_create: could not start %d worker thread(s)", num_threads - 1);
  }
  *out = pool;
  return TC_OK;
}

void tc_pool_destroy(tc_pool *pool) {
  if (pool == nullptr)
    return;
  {
    std::lock_guard<std::mutex> lock(pool->mutex);
    pool->stop = true;
  }
  pool->wake.notify_all();
  for (std::thread &worker : pool->workers)
    worker.join();
  delete pool;
}

int tc_pool_num_threads(const tc_pool *pool) { return pool == nullptr ? 1 : pool->num_threads; }

void tc_pool_run(tc_pool *pool, int64_t tasks, void (*fn)(void *arg, int64_t task), void *arg) {
  if (tasks <= 0)
    return;
  if (pool == nullptr || pool->workers.empty() || tasks == 1) {
    for (int64_t task = 0; task < tasks; ++task)
      fn(arg, task);
    return;
  }
  {
    // A worker still leaving the previous job's drain() must not see this one half-written.
    std::unique_lock<std::mutex> lock(pool->mutex);
    pool->finished.wait(lock, [&] { return pool->active == 0; });
    pool->fn = fn;
    pool->arg = arg;
    pool->tasks = tasks;
    pool->next.store(0, std::memory_order_relaxed);
    pool->done.store(0, std::memory_order_relaxed);
    pool->generation.fetch_add(1, std::memory_order_release);
  }
  pool->wake.notify_all();
  drain(pool);
  // Every task was claimed; wait for the ones still running on workers.
  for (int spin = 0; spin < 4000 && pool->done.load(std::memory_order_acquire) < tasks; ++spin)
    std::this_thread::yield();
  std::unique_lock<std::mutex> lock(pool->mutex);
  pool->finished.wait(lock, [&] {
    return pool->done.load(std::memory_order_acquire) >= tasks && pool->active == 0;
  });
}

} // extern "C"
