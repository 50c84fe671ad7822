// Execution of kernels for the CPU emulation of CUDA (tc_cuda_emu.h): a grid runs on the
// launching host thread, block after block; every CUDA thread of a block is a fiber on its own
// stack, switched cooperatively, so __syncthreads and warp shuffles are real rendezvous.
//   1. Unstarted threads run one after another on one fiber until one of them waits; only
//      then does the next thread need a fiber of its own (a block that never waits costs one
//      switch, not one per thread).
//   2. When no thread can run, every complete rendezvous is released: the block barrier once
//      every live thread waits at the same __syncthreads, a warp collective once every live
//      lane of its mask waits at the same one. Exited threads no longer count (sm_70+).
//   3. When nothing can be released, the block is deadlocked (divergent barriers, a lane
//      missing from a shuffle): the waiting threads are reported and the process aborts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tc_cuda_emu_fiber.h"
#include "tc_cuda_emu_runtime.h"

namespace tc {
namespace emu {

/// The order in which a block's threads start, and resume after each rendezvous. Forward
/// (thread 0 first) is the default; TC_EMU_THREAD_ORDER=reverse flips it, so that running a
/// test both ways exposes missing barriers whichever side of the race the writer is on.
enum class ThreadOrder { Forward, Reverse };

namespace detail {

// ---- threads and what they wait for ----

enum class WaitKind : uint8_t {
  SyncThreads,
  SyncThreadsCount,
  SyncThreadsAnd,
  SyncThreadsOr,
  SyncWarp,
  ShuffleIndex,
  ShuffleUp,
  ShuffleDown,
  ShuffleXor,
  Ballot,
  Any,
  All,
};

inline const char *waitName(WaitKind kind) {
  static const char *const names[] = {
      "__syncthreads",   "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
      "__syncwarp",      "__shfl_sync",         "__shfl_up_sync",    "__shfl_down_sync",
      "__shfl_xor_sync", "__ballot_sync",       "__any_sync",        "__all_sync"};
  return names[static_cast<int>(kind)];
}

inline bool isBlockBarrier(WaitKind kind) { return kind <= WaitKind::SyncThreadsOr; }

/// Where device code called a barrier or collective: threads that wait at different call
/// sites are at different rendezvous. GCC before 13 has no __builtin_COLUMN (column 0), so two
/// calls on one line are one site there.
struct SourceSite {
  const char *file;
  int line;
  int column;

  bool operator==(const SourceSite &other) const {
    return line == other.line && column == other.column &&
           (file == other.file || std::strcmp(file, other.file) == 0);
  }
};

#if defined(__has_builtin)
#if __has_builtin(__builtin_COLUMN)
#define TC_EMU_CALL_COLUMN __builtin_COLUMN()
#endif
#endif
#if !defined(TC_EMU_CALL_COLUMN)
#define TC_EMU_CALL_COLUMN 0
#endif
/// The default argument that records the caller's site.
#define TC_EMU_CALL_SITE                                                                           \
  ::tc::emu::detail::SourceSite { __builtin_FILE(), __builtin_LINE(), TC_EMU_CALL_COLUMN }

/// A barrier or warp collective a thread has reached, with its own operands.
struct Wait {
  WaitKind kind;
  unsigned mask;   // warp collectives: the lanes named as participants
  int operand;     // shuffles: source lane, delta or lane mask
  int width;       // shuffles: segment width
  unsigned bytes;  // shuffles: size of the value
  uint64_t value;  // the shuffled value's bits, or the vote/barrier predicate
  SourceSite site; // where device code called it

  /// True when both threads wait at the same rendezvous: same primitive, call site, mask and
  /// value size (operands may differ per lane, as in PTX).
  bool sameRendezvous(const Wait &other) const {
    return kind == other.kind && mask == other.mask && bytes == other.bytes && site == other.site;
  }
};

enum class ThreadState : uint8_t { Unstarted, Running, Ready, Waiting, Exited };

struct DeviceThread {
  uint3 index;
  unsigned lane;
  ThreadState state;
  Fiber *fiber; // while running or waiting
  Wait wait;
  uint64_t result; // of the rendezvous it waited at
};

/// What the builtin variables read: the running thread and its launch.
struct ExecutionContext {
  DeviceThread *thread;
  uint3 blockIndex;
  dim3 blockSize;
  dim3 gridSize;
  unsigned char *shared;
  size_t sharedBytes;
};

inline thread_local ExecutionContext tlsExecution{nullptr, {0, 0, 0}, {}, {}, nullptr, 0};

/// The thread whose device code is running; device code outside a launch is a host bug.
inline DeviceThread &runningThread() {
  DeviceThread *thread = tlsExecution.thread;
  if (thread == nullptr)
    die("device code (threadIdx, __syncthreads, a shuffle, ...) ran outside a kernel");
  return *thread;
}

inline const ExecutionContext &runningLaunch() {
  runningThread();
  return tlsExecution;
}

/// The lane lane `lane` reads in a shuffle, by PTX's shfl.sync rules (ISA manual, "shfl"):
/// the operand's low 5 bits; a source outside the lane's `width`-lane segment (above it for
/// xor) means the lane reads its own value.
inline unsigned shuffleSource(WaitKind kind, unsigned lane, int operand, int width) {
  const unsigned segmentMask = (32u - static_cast<unsigned>(width)) & 31u;
  const int first = static_cast<int>(lane & segmentMask);
  const int last = first | static_cast<int>(31u & ~segmentMask);
  const unsigned offset = static_cast<unsigned>(operand) & 31u;
  int source = 0;
  bool inRange = false;
  switch (kind) {
  case WaitKind::ShuffleUp:
    source = static_cast<int>(lane) - static_cast<int>(offset);
    inRange = source >= first;
    break;
  case WaitKind::ShuffleDown:
    source = static_cast<int>(lane + offset);
    inRange = source <= last;
    break;
  case WaitKind::ShuffleXor:
    source = static_cast<int>(lane ^ offset);
    inRange = source <= last;
    break;
  default:
    source = first | static_cast<int>(offset & ~segmentMask & 31u);
    inRange = source <= last;
    break;
  }
  return inRange ? static_cast<unsigned>(source) : lane;
}

// ---- the scheduler ----

/// Runs grids on the calling host thread; one per host thread, reusing its fibers.
class Scheduler {
public:
  static Scheduler &forThisThread() {
    thread_local Scheduler scheduler;
    return scheduler;
  }

  bool running() const { return running_; }
  ThreadOrder threadOrder() const { return order_; }
  void setThreadOrder(ThreadOrder order) { order_ = order; }

  /// Runs every block of a grid; each thread calls invoke(closure).
  void runGrid(dim3 grid, dim3 block, size_t sharedBytes, void (*invoke)(const void *),
               const void *closure) {
    running_ = true;
    invoke_ = invoke;
    closure_ = closure;
    prepareThreads(block);
    prepareShared(sharedBytes);
    tlsExecution = ExecutionContext{nullptr, {0, 0, 0}, block, grid, shared_.get(), sharedBytes};
    for (unsigned z = 0; z < grid.z; ++z)
      for (unsigned y = 0; y < grid.y; ++y)
        for (unsigned x = 0; x < grid.x; ++x) {
          tlsExecution.blockIndex = uint3{x, y, z};
          runBlock();
        }
    tlsExecution = ExecutionContext{nullptr, {0, 0, 0}, {}, {}, nullptr, 0};
    running_ = false;
  }

  /// Parks the running thread at `wait` until its rendezvous completes; returns the result.
  uint64_t wait(const Wait &wait) {
    DeviceThread &thread = runningThread();
    thread.wait = wait;
    thread.state = ThreadState::Waiting;
    thread.fiber->idle = false;
    leaveFiber(*thread.fiber);
    return thread.result;
  }

private:
  Scheduler() {
    const char *order = std::getenv("TC_EMU_THREAD_ORDER");
    order_ = order != nullptr && std::strcmp(order, "reverse") == 0 ? ThreadOrder::Reverse
                                                                    : ThreadOrder::Forward;
  }

  void prepareThreads(dim3 block) {
    const unsigned count = block.x * block.y * block.z;
    threads_.resize(count);
    for (unsigned linear = 0; linear < count; ++linear) {
      DeviceThread &thread = threads_[linear];
      thread.index =
          uint3{linear % block.x, linear / block.x % block.y, linear / (block.x * block.y)};
      thread.lane = linear % 32;
    }
  }

  /// Dynamic shared memory: 16-byte aligned (64 here), refilled with 0xCD for every block so
  /// that reading what this block did not write shows up.
  void prepareShared(size_t bytes) {
    if (bytes > sharedCapacity_) {
      const size_t rounded = (bytes + 63) / 64 * 64;
      shared_.reset(static_cast<unsigned char *>(std::aligned_alloc(64, rounded)));
      if (!shared_)
        die("cannot allocate %zu bytes of dynamic shared memory", bytes);
      sharedCapacity_ = rounded;
    }
    sharedBytes_ = bytes;
  }

  unsigned threadCount() const { return static_cast<unsigned>(threads_.size()); }

  /// The `position`-th thread to start, in the current order.
  DeviceThread &threadToStart(unsigned position) {
    return threads_[order_ == ThreadOrder::Forward ? position : threadCount() - 1 - position];
  }

  void runBlock() {
    if (sharedBytes_ > 0)
      std::memset(shared_.get(), 0xCD, sharedBytes_);
    for (DeviceThread &thread : threads_) {
      thread.state = ThreadState::Unstarted;
      thread.fiber = nullptr;
    }
    nextToStart_ = 0;
    live_ = threadCount();
    ready_.clear();
    size_t nextReady = 0;
    for (;;) {
      if (nextToStart_ < threadCount()) {
        resume(idleFiber());
      } else if (nextReady < ready_.size()) {
        DeviceThread &thread = *ready_[nextReady++];
        thread.state = ThreadState::Running;
        tlsExecution.thread = &thread;
        resume(*thread.fiber);
      } else if (live_ == 0) {
        return;
      } else {
        ready_.clear();
        nextReady = 0;
        if (!releaseBlockBarrier() && !releaseWarpCollectives())
          reportStuck("deadlock: no thread of the block can proceed");
        if (order_ == ThreadOrder::Reverse)
          std::reverse(ready_.begin(), ready_.end());
      }
    }
  }

  Fiber &idleFiber() {
    if (idle_.empty()) {
      fibers_.push_back(std::make_unique<Fiber>(&fiberMain, static_cast<unsigned>(fibers_.size())));
      idle_.push_back(fibers_.back().get());
    }
    Fiber *fiber = idle_.back();
    idle_.pop_back();
    return *fiber;
  }

  /// Runs `fiber` until its thread waits or it runs out of threads to start.
  void resume(Fiber &fiber) {
    runningFiber_ = &fiber;
#if defined(TC_EMU_ASAN)
    void *fakeStack = nullptr;
    __sanitizer_start_switch_fiber(&fakeStack, fiber.stack, Fiber::kStackBytes);
    jump(hostContext_, fiber.context);
    __sanitizer_finish_switch_fiber(fakeStack, nullptr, nullptr);
#else
    jump(hostContext_, fiber.context);
#endif
    if (fiber.idle)
      idle_.push_back(&fiber);
  }

  /// Switches from `fiber` back to the scheduler's (host) stack.
  void leaveFiber(Fiber &fiber) {
#if defined(TC_EMU_ASAN)
    __sanitizer_start_switch_fiber(&fiber.fakeStack, hostStackBottom_, hostStackBytes_);
    jump(fiber.context, hostContext_);
    __sanitizer_finish_switch_fiber(fiber.fakeStack, &hostStackBottom_, &hostStackBytes_);
#else
    jump(fiber.context, hostContext_);
#endif
  }

  /// Every fiber's code: starts the block's unstarted threads one after another until one
  /// waits (its fiber stays with it) or none is left (the fiber becomes idle).
  [[noreturn]] static void fiberMain() noexcept {
    Scheduler &scheduler = forThisThread();
    Fiber &fiber = *scheduler.runningFiber_;
#if defined(TC_EMU_ASAN)
    __sanitizer_finish_switch_fiber(nullptr, &scheduler.hostStackBottom_,
                                    &scheduler.hostStackBytes_);
#endif
    for (;;) {
      while (scheduler.nextToStart_ < scheduler.threadCount()) {
        DeviceThread &thread = scheduler.threadToStart(scheduler.nextToStart_++);
        thread.state = ThreadState::Running;
        thread.fiber = &fiber;
        tlsExecution.thread = &thread;
        scheduler.invoke_(scheduler.closure_);
        thread.state = ThreadState::Exited;
        thread.fiber = nullptr;
        tlsExecution.thread = nullptr;
        --scheduler.live_;
      }
      fiber.idle = true;
      scheduler.leaveFiber(fiber);
    }
  }

  /// Releases __syncthreads when every live thread waits at the same one.
  bool releaseBlockBarrier() {
    const Wait *barrier = nullptr;
    unsigned votes = 0;
    for (const DeviceThread &thread : threads_) {
      if (thread.state == ThreadState::Exited)
        continue;
      if (thread.state != ThreadState::Waiting || !isBlockBarrier(thread.wait.kind))
        return false;
      if (barrier == nullptr)
        barrier = &thread.wait;
      else if (!thread.wait.sameRendezvous(*barrier))
        reportStuck("divergent __syncthreads: the block's live threads wait at different "
                    "barriers (undefined behavior in CUDA)");
      votes += thread.wait.value != 0;
    }
    uint64_t result = 0;
    if (barrier->kind == WaitKind::SyncThreadsCount)
      result = votes;
    else if (barrier->kind == WaitKind::SyncThreadsAnd)
      result = votes == live_;
    else if (barrier->kind == WaitKind::SyncThreadsOr)
      result = votes != 0;
    for (DeviceThread &thread : threads_)
      if (thread.state == ThreadState::Waiting)
        makeReady(thread, result);
    return true;
  }

  /// Releases every warp collective all of whose live participants have arrived.
  bool releaseWarpCollectives() {
    bool released = false;
    for (unsigned begin = 0; begin < threadCount(); begin += 32) {
      const unsigned lanes = std::min(32u, threadCount() - begin);
      for (unsigned lane = 0; lane < lanes; ++lane) {
        const DeviceThread &leader = threads_[begin + lane];
        if (leader.state != ThreadState::Waiting || isBlockBarrier(leader.wait.kind))
          continue;
        unsigned participants = 0;
        if (!allArrived(begin, lanes, leader.wait, participants))
          continue;
        completeCollective(begin, participants, leader.wait);
        released = true;
      }
    }
    return released;
  }

  /// True when every live lane of `wait.mask` in the warp starting at `begin` waits at the
  /// same collective; `participants` gets those lanes.
  bool allArrived(unsigned begin, unsigned lanes, const Wait &wait, unsigned &participants) {
    for (unsigned lane = 0; lane < lanes; ++lane) {
      const DeviceThread &thread = threads_[begin + lane];
      if ((wait.mask >> lane & 1u) == 0 || thread.state == ThreadState::Exited)
        continue;
      if (thread.state != ThreadState::Waiting || !thread.wait.sameRendezvous(wait))
        return false;
      participants |= 1u << lane;
    }
    return true;
  }

  /// Computes every participant's result. A shuffle from a lane that does not participate
  /// (exited, absent or outside the mask) is undefined in CUDA: it yields all-ones bits
  /// (NaN, -1) instead of anything plausible.
  void completeCollective(unsigned begin, unsigned participants, const Wait &wait) {
    const WaitKind kind = wait.kind;
    unsigned ballot = 0;
    for (unsigned lane = 0; lane < 32; ++lane)
      if ((participants >> lane & 1u) != 0 && threads_[begin + lane].wait.value != 0)
        ballot |= 1u << lane;
    const uint64_t poison = wait.bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * wait.bytes)) - 1;
    for (unsigned lane = 0; lane < 32; ++lane) {
      if ((participants >> lane & 1u) == 0)
        continue;
      DeviceThread &thread = threads_[begin + lane];
      uint64_t result = 0;
      if (kind == WaitKind::Ballot) {
        result = ballot;
      } else if (kind == WaitKind::Any) {
        result = ballot != 0;
      } else if (kind == WaitKind::All) {
        result = ballot == participants;
      } else if (kind != WaitKind::SyncWarp) {
        unsigned source = shuffleSource(kind, lane, thread.wait.operand, thread.wait.width);
        result = (participants >> source & 1u) != 0 ? threads_[begin + source].wait.value : poison;
      }
      makeReady(thread, result);
    }
  }

  void makeReady(DeviceThread &thread, uint64_t result) {
    thread.result = result;
    thread.state = ThreadState::Ready;
    ready_.push_back(&thread);
  }

  /// Aborts with every live thread's state, grouped by where it waits.
  [[noreturn]] void reportStuck(const char *problem) {
    struct Group {
      const Wait *wait;
      unsigned count;
      uint3 first;
    };
    std::vector<Group> groups;
    unsigned exited = 0;
    for (const DeviceThread &thread : threads_) {
      if (thread.state == ThreadState::Exited) {
        ++exited;
        continue;
      }
      auto same = [&](const Group &group) { return group.wait->sameRendezvous(thread.wait); };
      auto found = std::find_if(groups.begin(), groups.end(), same);
      if (found == groups.end())
        groups.push_back(Group{&thread.wait, 1, thread.index});
      else
        ++found->count;
    }
    std::string report;
    char line[512];
    for (const Group &group : groups) {
      std::snprintf(line, sizeof(line), "\n  %u thread(s) wait at %s", group.count,
                    waitName(group.wait->kind));
      report += line;
      if (!isBlockBarrier(group.wait->kind)) {
        std::snprintf(line, sizeof(line), " (mask 0x%08x)", group.wait->mask);
        report += line;
      }
      const SourceSite &site = group.wait->site;
      std::snprintf(line, sizeof(line), " at %s:%d", site.file, site.line);
      report += line;
      if (site.column != 0) {
        std::snprintf(line, sizeof(line), ":%d", site.column);
        report += line;
      }
      std::snprintf(line, sizeof(line), ", first thread (%u,%u,%u)", group.first.x, group.first.y,
                    group.first.z);
      report += line;
    }
    const ExecutionContext &launch = tlsExecution;
    die("%s\n  block (%u,%u,%u) of grid (%u,%u,%u), block size (%u,%u,%u), %u thread(s) "
        "exited:%s",
        problem, launch.blockIndex.x, launch.blockIndex.y, launch.blockIndex.z, launch.gridSize.x,
        launch.gridSize.y, launch.gridSize.z, launch.blockSize.x, launch.blockSize.y,
        launch.blockSize.z, exited, report.c_str());
  }

  struct FreeDeleter {
    void operator()(unsigned char *memory) const { std::free(memory); }
  };

  bool running_ = false;
  ThreadOrder order_ = ThreadOrder::Forward;
  void (*invoke_)(const void *) = nullptr;
  const void *closure_ = nullptr;
  std::vector<DeviceThread> threads_;
  std::vector<DeviceThread *> ready_; // released by the last rendezvous, in run order
  unsigned nextToStart_ = 0;
  unsigned live_ = 0;
  std::unique_ptr<unsigned char, FreeDeleter> shared_;
  size_t sharedCapacity_ = 0;
  size_t sharedBytes_ = 0;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<Fiber *> idle_;
  Fiber *runningFiber_ = nullptr;
  Context hostContext_;
#if defined(TC_EMU_ASAN)
  const void *hostStackBottom_ = nullptr;
  size_t hostStackBytes_ = 0;
#endif
};

/// Serializes launches from different host threads: `__shared__` variables are statics, so
/// two blocks must never run at once (the emulated GPU runs one kernel at a time).
inline std::mutex &deviceMutex() {
  static std::mutex *mutex = new std::mutex();
  return *mutex;
}

} // namespace detail

/// The order in which the calling host thread's launches run a block's threads (initially
/// from TC_EMU_THREAD_ORDER), and a way to change it.
inline ThreadOrder thread_order() { return detail::Scheduler::forThisThread().threadOrder(); }
inline void set_thread_order(ThreadOrder order) {
  detail::Scheduler::forThisThread().setThreadOrder(order);
}

/// The running launch's dynamic shared memory (nullptr when it has none).
inline void *dynamic_shared_memory() {
  const detail::ExecutionContext &launch = detail::runningLaunch();
  return launch.sharedBytes > 0 ? launch.shared : nullptr;
}

} // namespace emu
} // namespace tc
