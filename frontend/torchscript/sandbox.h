// Running untrusted work in a confined child process: the TorchScript importer (libtorch reading
// a .pt file, which holds code) runs there, so that neither a crash inside libtorch nor an
// operation with side effects can touch the compiling machine or kill thunderc
// (docs/THREAT_MODEL.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/status.h"

namespace thunderc::frontend {

/// What the confined child may use. Exceeding memory makes allocations fail, CPU time ends the
/// child with SIGXCPU, wall time with SIGKILL from the parent.
struct SandboxLimits {
  uint64_t addressSpaceBytes = uint64_t(8) << 30; ///< RLIMIT_AS
  uint64_t cpuSeconds = 600;                      ///< RLIMIT_CPU
  uint64_t wallSeconds = 1200;                    ///< the parent's deadline
  uint64_t maxResultBytes = uint64_t(8) << 30;    ///< what the parent reads back at most
};

/// How the child ended.
struct SandboxOutcome {
  std::vector<uint8_t> result; ///< everything the child wrote to its result descriptor
  int exitCode = -1;           ///< the child's exit status when it exited, else -1
  int signal = 0;              ///< the signal that ended it, else 0
  bool timedOut = false;       ///< the parent killed it at the wall-clock deadline
  bool resultTooLarge = false; ///< it wrote more than maxResultBytes (then killed)
  std::string stderrTail;      ///< the last line the child wrote to stderr (at most 512 bytes)

  /// "exited with status 3", "was killed by signal 11 (Segmentation fault)", ...
  std::string describe() const;
};

/// Runs `body` in a forked child: its stdin and stdout are /dev/null, its stderr a pipe the
/// parent keeps the last line of, every other descriptor is closed except `resultFd` (the
/// argument to `body`), whose bytes the parent collects; it gets the rlimits of `limits`, no
/// core dumps, no new privileges, and dies with the parent. `body` runs with the child's
/// privileges until it calls lockDownProcess() (after loading what it needs); the child exits
/// with `body`'s return value. The caller must be single-threaded (fork).
/// Errors: ErrorKind::Io when the pipes or the fork fail.
Expected<SandboxOutcome> runConfined(const SandboxLimits &limits,
                                     const std::function<int(int resultFd)> &body);

/// Whether runConfined applies SandboxLimits::addressSpaceBytes: not in AddressSanitizer
/// builds, whose shadow memory reserves terabytes of address space (there, memory is bounded
/// by the other checks only).
bool limitsAddressSpace();

/// Installs the system-call filter in the calling (child) process, for good: opening any file,
/// creating, renaming, deleting or changing files, executing programs, creating processes
/// (threads remain allowed), sockets, signals to other processes, ptrace, mounts, module and
/// kernel-key calls, io_uring, bpf and perf fail with EACCES or EPERM from then on. On systems
/// without seccomp (not Linux on x86-64 or AArch64) it fails with ErrorKind::Unsupported, and
/// the caller must not run untrusted work.
Status lockDownProcess();

/// Writes all of `size` bytes to `fd`, retrying on EINTR and short writes; false on error.
bool writeAll(int fd, const void *data, size_t size);

} // namespace thunderc::frontend
