// Fibers for the CPU emulation of CUDA (tc_cuda_emu.h): stacks with guard pages and the
// context switch between them, on which the scheduler (tc_cuda_emu_sched.h) runs each CUDA
// thread of a block; it also tells AddressSanitizer about each switch with the hooks declared
// here.
#pragma once

#include <cstddef>
#include <cstdint>

#include <sys/mman.h>
#include <unistd.h>

// Fibers switch stacks with a few instructions on x86-64 (about 20x cheaper than
// swapcontext, which makes a system call); elsewhere, or when TC_EMU_UCONTEXT is defined
// (e.g. where CET shadow stacks are enforced), through <ucontext.h>.
#if defined(__x86_64__) && !defined(TC_EMU_UCONTEXT)
#define TC_EMU_STACK_SWITCH 1
#else
#include <ucontext.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define TC_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TC_EMU_ASAN 1
#endif
#endif
#if defined(TC_EMU_ASAN)
// AddressSanitizer must be told about stack switches, or it reports the fiber stacks.
extern "C" void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom,
                                               size_t size);
extern "C" void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                                size_t *size_old);
#endif

#include "tc_cuda_emu_runtime.h"

namespace tc {
namespace emu {
namespace detail {

// ---- fiber contexts ----

#if defined(TC_EMU_STACK_SWITCH)
/// Pushes the System V callee-saved registers, stores the stack pointer in *save, switches
/// to the stack `load` (saved by an earlier call or laid out by makeContext), pops its
/// registers and returns into it. Caller-saved registers need no saving: to the compiler
/// this is an ordinary call. The floating-point control words are not switched: every fiber
/// shares its host thread's floating-point environment.
__attribute__((naked, noinline)) inline void switchStacks(void ** /*save*/, void * /*load*/) {
  __asm__ volatile("pushq %rbp\n\t"
                   "pushq %rbx\n\t"
                   "pushq %r12\n\t"
                   "pushq %r13\n\t"
                   "pushq %r14\n\t"
                   "pushq %r15\n\t"
                   "movq %rsp, (%rdi)\n\t"
                   "movq %rsi, %rsp\n\t"
                   "popq %r15\n\t"
                   "popq %r14\n\t"
                   "popq %r13\n\t"
                   "popq %r12\n\t"
                   "popq %rbx\n\t"
                   "popq %rbp\n\t"
                   "ret\n\t");
}

struct Context {
  void *stackPointer = nullptr;
};

/// Lays out `stack` so that switching to `context` calls `entry`, which must never return.
inline void makeContext(Context &context, unsigned char *stack, size_t bytes, void (*entry)()) {
  auto top = reinterpret_cast<void **>(reinterpret_cast<uintptr_t>(stack + bytes) & ~uintptr_t{15});
  top[-1] = nullptr;                         // entry's return address (entry never returns)
  top[-2] = reinterpret_cast<void *>(entry); // where switchStacks' ret goes
  for (int slot = 3; slot <= 8; ++slot)      // rbp, rbx, r12-r15
    top[-slot] = nullptr;
  context.stackPointer = top - 8;
}

inline void jump(Context &from, Context &to) {
  // The barriers keep the compiler from caching memory across the switch, whatever it
  // infers about switchStacks.
  __asm__ __volatile__("" ::: "memory");
  switchStacks(&from.stackPointer, to.stackPointer);
  __asm__ __volatile__("" ::: "memory");
}
#else
struct Context {
  ucontext_t state;
};

inline void makeContext(Context &context, unsigned char *stack, size_t bytes, void (*entry)()) {
  if (getcontext(&context.state) != 0)
    die("getcontext failed");
  context.state.uc_stack.ss_sp = stack;
  context.state.uc_stack.ss_size = bytes;
  context.state.uc_link = nullptr;
  makecontext(&context.state, entry, 0);
}

inline void jump(Context &from, Context &to) {
  if (swapcontext(&from.state, &to.state) != 0)
    die("swapcontext failed");
}
#endif

/// A stack with a guard page below it (an overflow faults instead of corrupting a
/// neighbour) and the context of the code running on it.
struct Fiber {
  static constexpr size_t kStackBytes = 256 * 1024;
  Context context;
  unsigned char *mapping = nullptr; // guard page, then the stack
  size_t mappingBytes = 0;
  unsigned char *stack = nullptr;
  bool idle = true;          // runs no thread that is waiting
  void *fakeStack = nullptr; // AddressSanitizer's bookkeeping while switched out

  Fiber(const Fiber &) = delete;
  Fiber &operator=(const Fiber &) = delete;
  /// `color` staggers where stacks start: stack tops exactly 260 KiB apart would all map to
  /// the same L1 cache set, and every switch would then miss.
  Fiber(void (*entry)(), unsigned color) {
    const size_t guard = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    mappingBytes = guard + kStackBytes;
    void *memory = mmap(nullptr, mappingBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED)
      die("cannot map a %zu KiB fiber stack", kStackBytes / 1024);
    mapping = static_cast<unsigned char *>(memory);
    mprotect(mapping, guard, PROT_NONE);
    stack = mapping + guard;
    makeContext(context, stack, kStackBytes - color % 64 * 64, entry);
  }
  ~Fiber() { munmap(mapping, mappingBytes); }
};

} // namespace detail
} // namespace emu
} // namespace tc
