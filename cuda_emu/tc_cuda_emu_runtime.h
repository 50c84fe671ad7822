// The CUDA runtime API subset that generated bundles call, emulated on the host for
// TC_CUDA_EMULATE builds (see tc_cuda_emu.h): errors and the per-host-thread "last error",
// device memory (host memory in a registry, so that copies, memsets, kernel arguments and
// cuBLAS operands outside any allocation fail like an illegal address would on a GPU),
// synchronous streams and wall-clock events, and stream capture into CUDA graphs (the work a
// capturing stream is given is recorded instead of run, and replayed by cudaGraphLaunch).
#pragma once

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "tc_cuda_emu_types.h"

// ---- errors: every code once, with CUDA's enumerator value, name and message ----

#define TC_EMU_CUDA_ERRORS(X)                                                                      \
  X(cudaSuccess, 0, "no error")                                                                    \
  X(cudaErrorInvalidValue, 1, "invalid argument")                                                  \
  X(cudaErrorMemoryAllocation, 2, "out of memory")                                                 \
  X(cudaErrorInitializationError, 3, "initialization error")                                       \
  X(cudaErrorInvalidConfiguration, 9, "invalid configuration argument")                            \
  X(cudaErrorInvalidDevicePointer, 17, "invalid device pointer")                                   \
  X(cudaErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy")                      \
  X(cudaErrorInvalidDeviceFunction, 98, "invalid device function")                                 \
  X(cudaErrorNoDevice, 100, "no CUDA-capable device is detected")                                  \
  X(cudaErrorInvalidDevice, 101, "invalid device ordinal")                                         \
  X(cudaErrorNoKernelImageForDevice, 209,                                                          \
    "no kernel image is available for execution on the "                                           \
    "device")                                                                                      \
  X(cudaErrorInvalidResourceHandle, 400, "invalid resource handle")                                \
  X(cudaErrorIllegalState, 401, "the operation cannot be performed in the present state")         \
  X(cudaErrorNotReady, 600, "device not ready")                                                    \
  X(cudaErrorIllegalAddress, 700, "an illegal memory access was encountered")                      \
  X(cudaErrorLaunchOutOfResources, 701, "too many resources requested for launch")                 \
  X(cudaErrorLaunchFailure, 719, "unspecified launch failure")                                     \
  X(cudaErrorNotSupported, 801, "operation not supported")                                         \
  X(cudaErrorStreamCaptureUnsupported, 900, "operation not permitted when stream is capturing")    \
  X(cudaErrorStreamCaptureInvalidated, 901,                                                        \
    "operation failed due to a previous error during capture")                                     \
  X(cudaErrorStreamCaptureImplicit, 906,                                                           \
    "operation would make the legacy stream depend on a capturing blocking stream")                \
  X(cudaErrorUnknown, 999, "unknown error")

#define TC_EMU_ENUMERATOR(name, value, message) name = value,
enum cudaError_t { TC_EMU_CUDA_ERRORS(TC_EMU_ENUMERATOR) };
#undef TC_EMU_ENUMERATOR
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

/// Streams and events are opaque handles, as in CUDA; work runs synchronously, so a stream
/// only has to exist (and, while it captures, collect its work), and an event remembers when
/// it was recorded.
struct CUstream_st {
  unsigned int flags;
  /// While capturing (cudaStreamBeginCapture): the work given to the stream, in order.
  std::unique_ptr<std::vector<std::function<void()>>> captured;
  bool captureInvalidated = false; ///< a prohibited call happened during the capture
};
/// A captured graph and its executable form: the recorded work, replayed in order.
struct CUgraph_st {
  std::vector<std::function<void()>> work;
};
struct CUgraphExec_st {
  std::vector<std::function<void()>> work;
};
typedef CUgraph_st *cudaGraph_t;
typedef CUgraphExec_st *cudaGraphExec_t;
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
struct CUevent_st {
  std::chrono::steady_clock::time_point recordedAt;
  bool recorded;
  unsigned int flags;
};
typedef CUstream_st *cudaStream_t;
typedef CUevent_st *cudaEvent_t;

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02

namespace tc {
namespace emu {
namespace detail {

/// Reports a bug in device or host code that real CUDA would turn into a hang, a wrong
/// answer or a crash, and aborts: these are not recoverable conditions.
[[noreturn]] inline void die(const char *format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] inline void die(const char *format, ...) {
  std::fputs("tc_cuda_emu: ", stderr);
  va_list arguments;
  va_start(arguments, format);
  std::vfprintf(stderr, format, arguments);
  va_end(arguments);
  std::fputs("\n", stderr);
  std::fflush(stderr);
  std::abort();
}

/// True when the environment variable is set to anything but "" or "0".
inline bool envFlag(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

/// The calling host thread's last error, as cudaGetLastError/cudaPeekAtLastError see it.
inline cudaError_t &lastError() {
  thread_local cudaError_t error = cudaSuccess;
  return error;
}

/// Returns `error`, recording it as the last error when it is one (like every runtime call).
inline cudaError_t fail(cudaError_t error) {
  if (error != cudaSuccess)
    lastError() = error;
  return error;
}

/// Dynamic shared memory a kernel may use without cudaFuncSetAttribute opt-in.
constexpr int kDefaultDynamicSharedLimit = 48 * 1024;
/// Device memory the emulated GPU has; cudaMalloc beyond it fails like on a real one.
constexpr size_t kTotalGlobalMemory = size_t{16} << 30;

/// What cudaMalloc/cudaMallocHost handed out; pinned host memory is device-accessible too
/// (unified addressing), so both count as valid device operands.
struct Allocation {
  size_t bytes;
  bool pinned;
};

/// True for the default streams (legacy and per-thread), which exist without cudaStreamCreate
/// and cannot capture.
inline bool defaultStream(cudaStream_t stream) {
  return stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread;
}

/// True while `stream` records its work for a graph (cudaStreamBeginCapture).
inline bool capturing(cudaStream_t stream) {
  return !defaultStream(stream) && stream->captured != nullptr;
}

/// Process-wide bookkeeping of live allocations, streams, events and kernel attributes,
/// shared by every host thread (as a CUDA context is).
struct Registry {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> allocations; // by base address
  size_t deviceBytes = 0;
  std::set<const void *> streams;
  std::set<const void *> events;
  std::set<const void *> blasHandles;
  std::set<const void *> graphs;
  std::set<const void *> graphExecs;
  std::map<const void *, int> dynamicSharedLimits; // by kernel address

  /// True when [pointer, pointer + bytes) lies inside one live allocation.
  bool accessible(const volatile void *pointer, size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    auto address = reinterpret_cast<uintptr_t>(pointer);
    auto next = allocations.upper_bound(address);
    if (next == allocations.begin())
      return false;
    auto [base, allocation] = *std::prev(next);
    return address - base <= allocation.bytes && bytes <= allocation.bytes - (address - base);
  }

  bool validStream(cudaStream_t stream) {
    if (defaultStream(stream))
      return true;
    std::lock_guard<std::mutex> lock(mutex);
    return streams.count(stream) != 0;
  }

  bool validEvent(cudaEvent_t event) {
    std::lock_guard<std::mutex> lock(mutex);
    return events.count(event) != 0;
  }

  /// The largest dynamic shared memory `kernel` may launch with.
  int dynamicSharedLimit(const void *kernel) {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = dynamicSharedLimits.find(kernel);
    return found == dynamicSharedLimits.end() ? kDefaultDynamicSharedLimit : found->second;
  }
};

/// The one registry; never destroyed, so cudaFree from static destructors stays valid.
inline Registry &registry() {
  static Registry *instance = new Registry();
  return *instance;
}

/// Forgets `handle` in the registry's `set` of live handles and deletes it; `invalid` (as the
/// last error) when it is not a live handle.
template <typename Handle>
inline cudaError_t destroyRegistered(std::set<const void *> Registry::*set, Handle *handle,
                                     cudaError_t invalid) {
  Registry &state = registry();
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if ((state.*set).erase(handle) == 0)
      return fail(invalid);
  }
  delete handle;
  return cudaSuccess;
}

/// The stream this host thread is capturing into, or nullptr. Captures are emulated in
/// cudaStreamCaptureModeThreadLocal's terms (the mode bundles use): while a thread captures,
/// its "potentially unsafe" calls (synchronous copies and memsets, allocation, freeing,
/// synchronizing the capturing stream) fail and invalidate the capture, as on a GPU.
inline cudaStream_t &capturingStream() {
  thread_local cudaStream_t stream = nullptr;
  return stream;
}

/// When this thread captures: invalidates the capture and returns `error` as the call's
/// failure; otherwise cudaSuccess.
inline cudaError_t prohibitedDuringCapture(cudaError_t error) {
  cudaStream_t stream = capturingStream();
  if (stream == nullptr)
    return cudaSuccess;
  stream->captureInvalidated = true;
  return fail(error);
}

/// Runs `work` now, or appends it to the capture when `stream` is capturing (only then is it
/// copied into a std::function).
template <typename Work> inline void enqueue(cudaStream_t stream, Work &&work) {
  if (capturing(stream)) {
    stream->captured->push_back(std::function<void()>(std::forward<Work>(work)));
    return;
  }
  work();
}

/// Allocates `bytes` 256-byte aligned and fills them with 0xFF (NaN in every float format,
/// -1 in integers) so that reads of memory nobody wrote show up in results.
inline cudaError_t allocate(void **pointer, size_t bytes, bool pinned) {
  if (pointer == nullptr)
    return fail(cudaErrorInvalidValue);
  *pointer = nullptr;
  if (bytes == 0)
    return cudaSuccess;
  Registry &state = registry();
  size_t rounded = (bytes + 255) / 256 * 256;
  if (!pinned) {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (rounded > kTotalGlobalMemory - state.deviceBytes)
      return fail(cudaErrorMemoryAllocation);
  }
  void *memory = std::aligned_alloc(256, rounded);
  if (memory == nullptr)
    return fail(cudaErrorMemoryAllocation);
  std::memset(memory, 0xFF, rounded);
  std::lock_guard<std::mutex> lock(state.mutex);
  state.allocations[reinterpret_cast<uintptr_t>(memory)] = Allocation{bytes, pinned};
  if (!pinned)
    state.deviceBytes += rounded;
  *pointer = memory;
  return cudaSuccess;
}

/// Frees an allocation made by allocate() with the same `pinned`; nullptr is a no-op.
inline cudaError_t release(void *pointer, bool pinned) {
  if (pointer == nullptr)
    return cudaSuccess;
  Registry &state = registry();
  uintptr_t base = 0;
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    auto found = state.allocations.find(reinterpret_cast<uintptr_t>(pointer));
    if (found == state.allocations.end() || found->second.pinned != pinned)
      return fail(cudaErrorInvalidValue);
    base = found->first;
    if (!pinned)
      state.deviceBytes -= (found->second.bytes + 255) / 256 * 256;
    state.allocations.erase(found);
  }
  // The registry's copy of the address: GCC cannot see that `pointer` came from malloc when a
  // caller passes something else, which this function rejects above.
  std::free(reinterpret_cast<void *>(base));
  return cudaSuccess;
}

} // namespace detail
} // namespace emu
} // namespace tc

// ---- errors ----

inline const char *cudaGetErrorName(cudaError_t error) {
  switch (error) {
#define TC_EMU_NAME_CASE(name, value, message)                                                     \
  case name:                                                                                       \
    return #name;
    TC_EMU_CUDA_ERRORS(TC_EMU_NAME_CASE)
#undef TC_EMU_NAME_CASE
  }
  return "cudaErrorUnknown";
}

inline const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
#define TC_EMU_MESSAGE_CASE(name, value, message)                                                  \
  case name:                                                                                       \
    return message;
    TC_EMU_CUDA_ERRORS(TC_EMU_MESSAGE_CASE)
#undef TC_EMU_MESSAGE_CASE
  }
  return "unrecognized error code";
}

/// Returns the last error of this host thread and resets it to cudaSuccess.
inline cudaError_t cudaGetLastError() {
  cudaError_t error = tc::emu::detail::lastError();
  tc::emu::detail::lastError() = cudaSuccess;
  return error;
}

/// Returns the last error of this host thread without resetting it.
inline cudaError_t cudaPeekAtLastError() { return tc::emu::detail::lastError(); }

// ---- memory ----

/// Device memory: 256-byte aligned, filled with 0xFF bytes. Fails with
/// cudaErrorMemoryAllocation when TC_EMU_FAIL_MALLOC is set (to test error paths) or when the
/// emulated device's 16 GiB are used up. A size of 0 yields nullptr and succeeds.
inline cudaError_t cudaMalloc(void **devPtr, size_t size) {
  if (cudaError_t capturing =
          tc::emu::detail::prohibitedDuringCapture(cudaErrorStreamCaptureUnsupported)) {
    if (devPtr != nullptr)
      *devPtr = nullptr;
    return capturing;
  }
  if (tc::emu::detail::envFlag("TC_EMU_FAIL_MALLOC")) {
    if (devPtr != nullptr)
      *devPtr = nullptr;
    return tc::emu::detail::fail(cudaErrorMemoryAllocation);
  }
  return tc::emu::detail::allocate(devPtr, size, false);
}
template <typename T> cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return cudaMalloc(reinterpret_cast<void **>(devPtr), size);
}

/// Frees device memory; nullptr is a no-op; anything else cudaMalloc did not return fails.
inline cudaError_t cudaFree(void *devPtr) {
  if (cudaError_t capturing =
          tc::emu::detail::prohibitedDuringCapture(cudaErrorStreamCaptureUnsupported))
    return capturing;
  return tc::emu::detail::release(devPtr, false);
}

/// Pinned host memory, which device code and cuBLAS may also access (unified addressing).
inline cudaError_t cudaMallocHost(void **ptr, size_t size) {
  if (cudaError_t capturing =
          tc::emu::detail::prohibitedDuringCapture(cudaErrorStreamCaptureUnsupported))
    return capturing;
  return tc::emu::detail::allocate(ptr, size, true);
}
template <typename T> cudaError_t cudaMallocHost(T **ptr, size_t size) {
  return cudaMallocHost(reinterpret_cast<void **>(ptr), size);
}
inline cudaError_t cudaFreeHost(void *ptr) { return tc::emu::detail::release(ptr, true); }

namespace tc {
namespace emu {
namespace detail {
/// cudaMemcpy's checks; `copy` is then true when there is something to copy.
inline cudaError_t checkCopy(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                             bool &copy) {
  copy = false;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  if (count == 0)
    return cudaSuccess;
  if (dst == nullptr || src == nullptr)
    return fail(cudaErrorInvalidValue);
  Registry &state = registry();
  bool dstOnDevice = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool srcOnDevice = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if ((dstOnDevice && !state.accessible(dst, count)) ||
      (srcOnDevice && !state.accessible(src, count)))
    return fail(cudaErrorInvalidValue);
  copy = true;
  return cudaSuccess;
}
} // namespace detail
} // namespace emu
} // namespace tc

/// Copies synchronously. The device side of `kind` must lie inside one allocation
/// (cudaErrorInvalidValue otherwise); cudaMemcpyDefault infers the sides from the pointers.
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind) {
  if (cudaError_t capturing =
          tc::emu::detail::prohibitedDuringCapture(cudaErrorStreamCaptureImplicit))
    return capturing;
  bool copy = false;
  if (cudaError_t error = tc::emu::detail::checkCopy(dst, src, count, kind, copy))
    return error;
  if (copy)
    std::memmove(dst, src, count);
  return cudaSuccess;
}

inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream = nullptr) {
  if (!tc::emu::detail::registry().validStream(stream))
    return tc::emu::detail::fail(cudaErrorInvalidResourceHandle);
  bool copy = false;
  if (cudaError_t error = tc::emu::detail::checkCopy(dst, src, count, kind, copy))
    return error;
  if (copy)
    tc::emu::detail::enqueue(stream, [=] { std::memmove(dst, src, count); });
  return cudaSuccess;
}

/// Sets `count` bytes of device memory to `value`; the range must lie inside one allocation.
inline cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  if (cudaError_t capturing =
          tc::emu::detail::prohibitedDuringCapture(cudaErrorStreamCaptureImplicit))
    return capturing;
  if (count == 0)
    return cudaSuccess;
  if (!tc::emu::detail::registry().accessible(devPtr, count))
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  std::memset(devPtr, value, count);
  return cudaSuccess;
}

inline cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                   cudaStream_t stream = nullptr) {
  if (!tc::emu::detail::registry().validStream(stream))
    return tc::emu::detail::fail(cudaErrorInvalidResourceHandle);
  if (count == 0)
    return cudaSuccess;
  if (!tc::emu::detail::registry().accessible(devPtr, count))
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  tc::emu::detail::enqueue(stream, [=] { std::memset(devPtr, value, count); });
  return cudaSuccess;
}

inline cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
  if (free == nullptr || total == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  *total = tc::emu::detail::kTotalGlobalMemory;
  *free = *total - state.deviceBytes;
  return cudaSuccess;
}

// ---- streams and events (all work is synchronous: synchronizing only validates) ----

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) {
  if (stream == nullptr || flags > cudaStreamNonBlocking)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  *stream = new CUstream_st();
  (*stream)->flags = flags;
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.streams.insert(*stream);
  return cudaSuccess;
}

inline cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  return cudaStreamCreateWithFlags(stream, cudaStreamDefault);
}

/// Destroys a stream from cudaStreamCreate*; the default streams cannot be destroyed.
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  using namespace tc::emu::detail;
  return destroyRegistered(&Registry::streams, stream, cudaErrorInvalidResourceHandle);
}

inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (!tc::emu::detail::registry().validStream(stream))
    return tc::emu::detail::fail(cudaErrorInvalidResourceHandle);
  if (tc::emu::detail::capturingStream() != nullptr)
    return tc::emu::detail::prohibitedDuringCapture(cudaErrorStreamCaptureUnsupported);
  return cudaSuccess;
}

inline cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }

inline cudaError_t cudaDeviceSynchronize() {
  return tc::emu::detail::prohibitedDuringCapture(cudaErrorStreamCaptureUnsupported);
}

// ---- stream capture and graphs ----

/// Starts recording the work given to `stream` (a stream from cudaStreamCreate*: the legacy
/// and per-thread default streams cannot capture). One capture per host thread.
inline cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  using namespace tc::emu::detail;
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
    return fail(cudaErrorInvalidValue);
  if (!registry().validStream(stream))
    return fail(cudaErrorInvalidResourceHandle);
  if (defaultStream(stream))
    return fail(cudaErrorStreamCaptureUnsupported);
  if (stream->captured || capturingStream() != nullptr)
    return fail(cudaErrorIllegalState);
  stream->captured.reset(new std::vector<std::function<void()>>());
  stream->captureInvalidated = false;
  capturingStream() = stream;
  return cudaSuccess;
}

/// Ends the capture: `*graph` holds the recorded work, or is nullptr when a prohibited call
/// invalidated the capture (cudaErrorStreamCaptureInvalidated).
inline cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph) {
  using namespace tc::emu::detail;
  if (graph == nullptr)
    return fail(cudaErrorInvalidValue);
  *graph = nullptr;
  if (!registry().validStream(stream))
    return fail(cudaErrorInvalidResourceHandle);
  if (!capturing(stream))
    return fail(cudaErrorIllegalState);
  if (capturingStream() != stream)
    return fail(cudaErrorIllegalState); // ended by another thread than the one capturing
  std::unique_ptr<std::vector<std::function<void()>>> work = std::move(stream->captured);
  capturingStream() = nullptr;
  if (stream->captureInvalidated)
    return fail(cudaErrorStreamCaptureInvalidated);
  *graph = new CUgraph_st{std::move(*work)};
  Registry &state = registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.graphs.insert(*graph);
  return cudaSuccess;
}

inline cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *status) {
  using namespace tc::emu::detail;
  if (status == nullptr)
    return fail(cudaErrorInvalidValue);
  if (!registry().validStream(stream))
    return fail(cudaErrorInvalidResourceHandle);
  *status = !capturing(stream)           ? cudaStreamCaptureStatusNone
            : stream->captureInvalidated ? cudaStreamCaptureStatusInvalidated
                                         : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}

inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph,
                                        unsigned long long flags = 0) {
  using namespace tc::emu::detail;
  if (exec == nullptr || flags != 0)
    return fail(cudaErrorInvalidValue);
  *exec = nullptr;
  Registry &state = registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  if (state.graphs.count(graph) == 0)
    return fail(cudaErrorInvalidValue);
  *exec = new CUgraphExec_st{graph->work};
  state.graphExecs.insert(*exec);
  return cudaSuccess;
}

/// Replays the graph's work on `stream` (synchronously, as every emulated launch runs).
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  using namespace tc::emu::detail;
  Registry &state = registry();
  {
    std::lock_guard<std::mutex> lock(state.mutex);
    if (state.graphExecs.count(exec) == 0)
      return fail(cudaErrorInvalidValue);
  }
  if (!state.validStream(stream))
    return fail(cudaErrorInvalidResourceHandle);
  if (capturingStream() != nullptr)
    return prohibitedDuringCapture(cudaErrorStreamCaptureUnsupported);
  for (const std::function<void()> &work : exec->work)
    work();
  return cudaSuccess;
}

inline cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  using namespace tc::emu::detail;
  return destroyRegistered(&Registry::graphs, graph, cudaErrorInvalidValue);
}

inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  using namespace tc::emu::detail;
  return destroyRegistered(&Registry::graphExecs, exec, cudaErrorInvalidValue);
}

inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  if (event == nullptr || flags > (cudaEventBlockingSync | cudaEventDisableTiming))
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  *event = new CUevent_st{{}, false, flags};
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.events.insert(*event);
  return cudaSuccess;
}

inline cudaError_t cudaEventCreate(cudaEvent_t *event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr) {
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  if (!state.validEvent(event) || !state.validStream(stream))
    return tc::emu::detail::fail(cudaErrorInvalidResourceHandle);
  event->recordedAt = std::chrono::steady_clock::now();
  event->recorded = true;
  return cudaSuccess;
}

inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (!tc::emu::detail::registry().validEvent(event))
    return tc::emu::detail::fail(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

inline cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

/// Milliseconds between two recorded events; fails like CUDA when either was never recorded
/// or was created with cudaEventDisableTiming.
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  if (ms == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  if (!state.validEvent(start) || !state.validEvent(end) || !start->recorded || !end->recorded ||
      ((start->flags | end->flags) & cudaEventDisableTiming) != 0)
    return tc::emu::detail::fail(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(end->recordedAt - start->recordedAt).count();
  return cudaSuccess;
}

inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  using namespace tc::emu::detail;
  return destroyRegistered(&Registry::events, event, cudaErrorInvalidResourceHandle);
}
