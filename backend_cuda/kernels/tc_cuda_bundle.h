// Host-side support for the code of a CUDA bundle (<name>.cu): CUDA/cuBLAS failures turned
// into tc_status values with file and line, growable device buffers, the check that the GPU
// is one the bundle was compiled for, and medians of event timings. Kept out of the generated
// code so that every bundle shares one reviewed copy (docs/STYLE.md habit 10).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tc_cuda_api.h"
#include "tc_cuda_lib.h"
#include "thunderc_runtime.h"

/// The CUDA architectures the bundle was compiled for (CMAKE_CUDA_ARCHITECTURES), for messages.
#ifndef TC_CUDA_ARCHITECTURES
#define TC_CUDA_ARCHITECTURES "unknown"
#endif

/// Evaluates `expr` (a tcg::result; parenthesize it when template arguments hold a comma);
/// on failure returns TC_ERROR_DEVICE from the enclosing function through its
/// `tc_error *err`, naming the call site, `what` (the graph node) and the failing CUDA or
/// cuBLAS call.
#define TC_CUDA_TRY(expr, what)                                                                  \
  do {                                                                                           \
    const ::tcg::result tc_result_ = (expr);                                                     \
    if (!tc_result_.ok())                                                                        \
      return ::tcg::device_error(err, tc_result_, __FILE__, __LINE__, what);                     \
  } while (0)

namespace tcg {

/// Fills `err` with "FILE:LINE: WHAT: API failed: MESSAGE (CODE)" and returns TC_ERROR_DEVICE.
inline tc_status device_error(tc_error *err, const result &failure, const char *file, int line,
                              const char *what) {
  const char *base = file;
  for (const char *c = file; *c != '\0'; ++c)
    if (*c == '/' || *c == '\\')
      base = c + 1;
  return tc_error_setf(err, TC_ERROR_DEVICE, "%s:%d: %s: %s failed: %s (%d)", base, line, what,
                       failure.api, failure.message, failure.code);
}

namespace detail {

struct device_memory {
  static cudaError_t allocate(void **data, size_t bytes) { return cudaMalloc(data, bytes); }
  static void free(void *data) { cudaFree(data); }
  static constexpr const char *api = "cudaMalloc";
};

struct pinned_memory {
  static cudaError_t allocate(void **data, size_t bytes) { return cudaMallocHost(data, bytes); }
  static void free(void *data) {
    if (data != nullptr)
      cudaFreeHost(data);
  }
  static constexpr const char *api = "cudaMallocHost";
};

} // namespace detail

/// An allocation that only grows, so that after the first run nothing is allocated.
template <typename Memory> struct growing_buffer {
  unsigned char *data = nullptr;
  size_t bytes = 0;
};

/// Device memory: arenas, state, the device side of run_host's staging.
using device_buffer = growing_buffer<detail::device_memory>;
/// Page-locked host memory: <name>_run_host stages the caller's tensors through it, so that
/// the uploads and downloads are true asynchronous DMA copies on the context's stream (from
/// pageable memory the driver copies through its own bounce buffer).
using pinned_buffer = growing_buffer<detail::pinned_memory>;

/// Makes `buffer` hold at least `bytes` (its contents are not kept when it grows). Work
/// already queued on `stream` may still use the old allocation, so growing waits for it first.
template <typename Memory>
inline result reserve(growing_buffer<Memory> &buffer, size_t bytes, cudaStream_t stream) {
  if (buffer.data != nullptr && buffer.bytes >= bytes)
    return {};
  if (buffer.data != nullptr) {
    result drained = check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (!drained.ok())
      return drained;
  }
  Memory::free(buffer.data);
  buffer.data = nullptr;
  buffer.bytes = 0;
  void *data = nullptr;
  cudaError_t error = Memory::allocate(&data, bytes < 256 ? 256 : bytes);
  if (error != cudaSuccess) {
    cudaGetLastError(); // an allocation failure is not sticky; clear it for later launches
    return check(error, Memory::api);
  }
  buffer.data = static_cast<unsigned char *>(data);
  buffer.bytes = bytes;
  return {};
}

template <typename Memory> inline void release(growing_buffer<Memory> &buffer) {
  Memory::free(buffer.data);
  buffer = growing_buffer<Memory>{};
}

/// TC_OK when the current GPU can run the bundle's kernels (a SASS image for its architecture
/// or PTX it can JIT), asked through the attributes of `probe`, one of the bundle's own
/// kernels (each bundle defines an empty one in its anonymous namespace, so that two bundles
/// linked into one program do not clash); otherwise TC_ERROR_DEVICE saying which GPU and how
/// to rebuild.
template <typename Kernel> inline tc_status check_device(Kernel probe, const char *model,
                                                         tc_error *err) {
  int device = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess)
    return tc_error_setf(err, TC_ERROR_DEVICE, "%s: no usable CUDA device: %s", model,
                         cudaGetErrorString(error));
  cudaDeviceProp properties{};
  error = cudaGetDeviceProperties(&properties, device);
  if (error != cudaSuccess)
    return tc_error_setf(err, TC_ERROR_DEVICE, "%s: cudaGetDeviceProperties failed: %s", model,
                         cudaGetErrorString(error));
  cudaFuncAttributes attributes{};
  error = cudaFuncGetAttributes(&attributes, probe);
  if (error == cudaSuccess)
    return TC_OK;
  cudaGetLastError();
  return tc_error_setf(err, TC_ERROR_DEVICE,
                       "%s: the GPU '%s' (sm_%d%d) cannot run this bundle, built for CUDA "
                       "architectures %s (%s); rebuild it with -DCMAKE_CUDA_ARCHITECTURES=%d%d",
                       model, properties.name, properties.major, properties.minor,
                       TC_CUDA_ARCHITECTURES, cudaGetErrorString(error), properties.major,
                       properties.minor);
}

/// A context's CUDA graphs: one executable graph per key (what a run's launches bake in: the
/// memory they touch and the input sizes), at most `capacity`, the least recently used dropped
/// first. Looking a key up allocates nothing, so warm replayed runs allocate nothing.
class graph_cache {
public:
  graph_cache() = default;
  graph_cache(const graph_cache &) = delete;
  graph_cache &operator=(const graph_cache &) = delete;
  ~graph_cache() { resize(0); }

  /// Holds at most `capacity` graphs from now on (0: none; runs are not captured).
  void resize(int capacity) {
    capacity_ = capacity < 0 ? 0 : capacity;
    while (int(entries_.size()) > capacity_) {
      cudaGraphExecDestroy(entries_.front().exec);
      entries_.erase(entries_.begin());
      ++evictions_;
    }
  }
  int capacity() const { return capacity_; }

  /// The graph of `key` (made the most recently used), or nullptr.
  cudaGraphExec_t find(const uint64_t *key, size_t length) {
    for (size_t i = 0; i < entries_.size(); ++i) {
      const std::vector<uint64_t> &held = entries_[i].key;
      if (held.size() != length || !std::equal(held.begin(), held.end(), key))
        continue;
      std::rotate(entries_.begin() + std::ptrdiff_t(i), entries_.begin() + std::ptrdiff_t(i) + 1,
                  entries_.end());
      return entries_.back().exec;
    }
    return nullptr;
  }

  /// Keeps `exec` as the graph of `key`, dropping the least recently used beyond the
  /// capacity; false (and `exec` destroyed) when there is no memory for the entry.
  bool insert(const uint64_t *key, size_t length, cudaGraphExec_t exec) {
    try {
      entries_.reserve(size_t(capacity_) + 1);
      entries_.push_back(entry{std::vector<uint64_t>(key, key + length), exec});
    } catch (...) {
      cudaGraphExecDestroy(exec);
      return false;
    }
    ++captures_;
    resize(capacity_);
    return true;
  }

  void count_replay() { ++replays_; }

  tc_cuda_graph_stats stats() const {
    return {captures_, replays_, evictions_, int32_t(entries_.size()), int32_t(capacity_)};
  }

private:
  struct entry {
    std::vector<uint64_t> key;
    cudaGraphExec_t exec;
  };
  std::vector<entry> entries_; ///< the most recently used last
  int capacity_ = 0;
  int64_t captures_ = 0, replays_ = 0, evictions_ = 0;
};

/// Runs `work` (a run's launches on `stream`, returning a tc_status) through `cache`: replays
/// the graph of `key` when there is one, otherwise captures `work` into a new graph (in
/// cudaStreamCaptureModeThreadLocal), keeps it and launches it. A run that cannot be captured
/// (a call CUDA forbids during a capture, or the legacy default stream) fails with a status
/// that says so; nothing is left capturing.
template <typename Work>
inline tc_status run_graph(graph_cache &cache, cudaStream_t stream, const uint64_t *key,
                           size_t length, Work &&work, const char *where, tc_error *err) {
  if (cudaGraphExec_t exec = cache.find(key, length)) {
    cudaError_t launched = cudaGraphLaunch(exec, stream);
    if (launched != cudaSuccess)
      return tc_error_setf(err, TC_ERROR_DEVICE, "%s: cudaGraphLaunch failed: %s", where,
                           cudaGetErrorString(launched));
    cache.count_replay();
    return TC_OK;
  }
  cudaError_t began = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
  if (began != cudaSuccess) {
    cudaGetLastError();
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "%s: cannot capture a CUDA graph on this stream (%s): graphs need a "
                         "stream of your own (_context_set_stream), not the default stream",
                         where, cudaGetErrorString(began));
  }
  tc_status status = work();
  cudaGraph_t graph = nullptr;
  cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (status != TC_OK || ended != cudaSuccess) {
    if (graph != nullptr)
      cudaGraphDestroy(graph);
    cudaGetLastError(); // the capture's errors are reported here, not by the next launch
    if (status != TC_OK)
      return status;
    return tc_error_setf(err, TC_ERROR_DEVICE,
                         "%s: CUDA graph capture failed: %s (the run made a call CUDA does not "
                         "allow while capturing; turn graphs off with "
                         "_context_set_cuda_graphs(context, 0))",
                         where, cudaGetErrorString(ended));
  }
  cudaGraphExec_t exec = nullptr;
  cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (made != cudaSuccess) {
    cudaGetLastError();
    return tc_error_setf(err, TC_ERROR_DEVICE, "%s: cudaGraphInstantiate failed: %s", where,
                         cudaGetErrorString(made));
  }
  cudaError_t launched = cudaGraphLaunch(exec, stream);
  if (launched != cudaSuccess) {
    cudaGraphExecDestroy(exec);
    return tc_error_setf(err, TC_ERROR_DEVICE, "%s: cudaGraphLaunch failed: %s", where,
                         cudaGetErrorString(launched));
  }
  if (!cache.insert(key, length, exec))
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, "%s: no memory to keep a CUDA graph", where);
  return TC_OK;
}

/// The median of `samples` (not empty); sorts them.
inline double median(std::vector<double> &samples) {
  std::sort(samples.begin(), samples.end());
  size_t middle = samples.size() / 2;
  return samples.size() % 2 ? samples[middle] : (samples[middle - 1] + samples[middle]) / 2;
}

} // namespace tcg
