// The confined child process of torchscript/sandbox.h: fork, descriptors, rlimits, and a seccomp-BPF filter
// that denies the system calls through which code could act outside the process.
#include "frontend/torchscript/sandbox.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#define THUNDERC_HAVE_SECCOMP 1
#endif

#if defined(__SANITIZE_ADDRESS__)
#define THUNDERC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define THUNDERC_ASAN 1
#endif
#endif

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>

namespace thunderc::frontend {
namespace {

void setLimit(int resource, uint64_t soft, uint64_t hard) {
  struct rlimit limit{static_cast<rlim_t>(soft), static_cast<rlim_t>(hard)};
  setrlimit(resource, &limit); // best effort: a lower inherited hard limit stays
}

// In the child, after fork: descriptors 0/1 to /dev/null, 2 to the stderr pipe, 3 to the
// result pipe, everything else closed.
bool arrangeDescriptors(int stderrWrite, int resultWrite) {
  const int devNull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devNull < 0)
    return false;
  // Move the pipes above 3 first, so that the dup2s below cannot clobber one another.
  const int err = fcntl(stderrWrite, F_DUPFD_CLOEXEC, 10);
  const int res = fcntl(resultWrite, F_DUPFD_CLOEXEC, 10);
  if (err < 0 || res < 0)
    return false;
  if (dup2(devNull, 0) < 0 || dup2(devNull, 1) < 0 || dup2(err, 2) < 0 || dup2(res, 3) < 0)
    return false;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 4u, ~0u, 0u) == 0)
    return true;
#endif
  const long maxFd = sysconf(_SC_OPEN_MAX);
  for (long fd = 4; fd < (maxFd > 0 ? maxFd : 1024); ++fd)
    close(static_cast<int>(fd));
  return true;
}

[[noreturn]] void runChild(const SandboxLimits &limits, int stderrWrite, int resultWrite,
                           const std::function<int(int)> &body) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  prctl(PR_SET_DUMPABLE, 0);
  if (!arrangeDescriptors(stderrWrite, resultWrite))
    _exit(125);
  setLimit(RLIMIT_CORE, 0, 0);
  setLimit(RLIMIT_FSIZE, 0, 0);
  if (limitsAddressSpace())
    setLimit(RLIMIT_AS, limits.addressSpaceBytes, limits.addressSpaceBytes);
  setLimit(RLIMIT_CPU, limits.cpuSeconds, limits.cpuSeconds + 5);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  int code = 124;
  try {
    code = body(3);
  } catch (...) {
    code = 124;
  }
  _exit(code);
}

const char *signalName(int signal) {
  const char *name = strsignal(signal);
  return name != nullptr ? name : "unknown signal";
}

#ifdef THUNDERC_HAVE_SECCOMP
#if defined(__x86_64__)
constexpr uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#else
constexpr uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#endif

class FilterBuilder {
public:
  void load(uint32_t offset) { code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset)); }
  void ret(uint32_t value) { code_.push_back(BPF_STMT(BPF_RET | BPF_K, value)); }
  /// if (acc == value) return result;
  void denyIf(uint32_t value, uint32_t result) {
    code_.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 1));
    ret(result);
  }
  void jump(uint16_t op, uint32_t value, uint8_t ifTrue, uint8_t ifFalse) {
    code_.push_back(BPF_JUMP(BPF_JMP | op | BPF_K, value, ifTrue, ifFalse));
  }
  std::vector<sock_filter> &code() { return code_; }

private:
  std::vector<sock_filter> code_;
};

constexpr uint32_t errnoResult(int error) {
  return SECCOMP_RET_ERRNO | (static_cast<uint32_t>(error) & SECCOMP_RET_DATA);
}

// The system calls that fail with EACCES: every way to open a file by name.
constexpr long kOpenCalls[] = {
#ifdef __NR_open
    __NR_open,
#endif
#ifdef __NR_creat
    __NR_creat,
#endif
    __NR_openat, __NR_open_by_handle_at, __NR_name_to_handle_at,
#ifdef __NR_openat2
    __NR_openat2,
#endif
};

// The system calls that fail with EPERM: executing programs, making processes, changing the
// file system, the network, other processes, and kernel facilities nothing here needs.
constexpr long kDeniedCalls[] = {
    __NR_execve, __NR_execveat,
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
#ifdef __NR_unlink
    __NR_unlink,
#endif
#ifdef __NR_rename
    __NR_rename,
#endif
#ifdef __NR_mkdir
    __NR_mkdir,
#endif
#ifdef __NR_rmdir
    __NR_rmdir,
#endif
#ifdef __NR_link
    __NR_link,
#endif
#ifdef __NR_symlink
    __NR_symlink,
#endif
#ifdef __NR_chmod
    __NR_chmod,
#endif
#ifdef __NR_chown
    __NR_chown,
#endif
#ifdef __NR_lchown
    __NR_lchown,
#endif
#ifdef __NR_mknod
    __NR_mknod,
#endif
#ifdef __NR_utime
    __NR_utime,
#endif
#ifdef __NR_utimes
    __NR_utimes,
#endif
#ifdef __NR_futimesat
    __NR_futimesat,
#endif
#ifdef __NR_renameat
    __NR_renameat,
#endif
#ifdef __NR_fchmodat2
    __NR_fchmodat2,
#endif
    __NR_unlinkat, __NR_renameat2, __NR_mkdirat, __NR_linkat, __NR_symlinkat, __NR_fchmod,
    __NR_fchmodat, __NR_fchown, __NR_fchownat, __NR_mknodat, __NR_utimensat, __NR_truncate,
    __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr, __NR_removexattr, __NR_lremovexattr,
    __NR_fremovexattr, __NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen,
    __NR_accept, __NR_accept4, __NR_kill, __NR_tkill, __NR_ptrace, __NR_process_vm_readv,
    __NR_process_vm_writev, __NR_pidfd_open, __NR_pidfd_getfd, __NR_pidfd_send_signal,
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_setns, __NR_unshare,
    __NR_reboot, __NR_kexec_load, __NR_init_module, __NR_finit_module, __NR_delete_module,
    __NR_swapon, __NR_swapoff, __NR_sethostname, __NR_setdomainname, __NR_acct, __NR_quotactl,
    __NR_bpf, __NR_perf_event_open, __NR_keyctl, __NR_add_key, __NR_request_key,
    __NR_userfaultfd, __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
    __NR_fanotify_init, __NR_setuid, __NR_setgid, __NR_setreuid, __NR_setregid,
    __NR_setresuid, __NR_setresgid, __NR_setfsuid, __NR_setfsgid, __NR_setgroups,
    __NR_capset, __NR_settimeofday, __NR_clock_settime, __NR_adjtimex,
#ifdef __NR_kexec_file_load
    __NR_kexec_file_load,
#endif
#ifdef __NR_mount_setattr
    __NR_mount_setattr, __NR_move_mount, __NR_open_tree, __NR_fsopen, __NR_fsmount,
    __NR_fsconfig, __NR_fspick,
#endif
};
#endif

} // namespace

bool limitsAddressSpace() {
#ifdef THUNDERC_ASAN
  return false;
#else
  return true;
#endif
}

std::string SandboxOutcome::describe() const {
  if (timedOut)
    return "was stopped after its wall-clock limit";
  if (resultTooLarge)
    return "was stopped: it returned more data than its limit";
  if (signal == SIGXCPU)
    return "ran out of its CPU-time limit";
  if (signal != 0)
    return "was killed by signal " + std::to_string(signal) + " (" + signalName(signal) + ")";
  return "exited with status " + std::to_string(exitCode);
}

bool writeAll(int fd, const void *data, size_t size) {
  const auto *bytes = static_cast<const uint8_t *>(data);
  while (size > 0) {
    const ssize_t written = write(fd, bytes, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

Status lockDownProcess() {
#ifdef THUNDERC_HAVE_SECCOMP
  FilterBuilder filter;
  filter.load(offsetof(seccomp_data, arch));
  filter.jump(BPF_JEQ, kAuditArch, 1, 0);
  filter.ret(SECCOMP_RET_KILL_PROCESS);
  filter.load(offsetof(seccomp_data, nr));
#if defined(__x86_64__)
  // The x32 ABI numbers its calls from 0x40000000: none of them is allowed.
  filter.jump(BPF_JGE, 0x40000000u, 0, 1);
  filter.ret(errnoResult(EPERM));
#endif
  for (long call : kOpenCalls)
    filter.denyIf(static_cast<uint32_t>(call), errnoResult(EACCES));
  for (long call : kDeniedCalls)
    filter.denyIf(static_cast<uint32_t>(call), errnoResult(EPERM));
  // clone3 passes its flags in memory the filter cannot read: ENOSYS makes the C library fall
  // back to clone, whose flags it can.
  filter.denyIf(__NR_clone3, errnoResult(ENOSYS));
  // clone: threads (CLONE_THREAD) only.
  filter.jump(BPF_JEQ, __NR_clone, 0, 4);
  filter.load(offsetof(seccomp_data, args[0])); // the low 32 bits of the flags
  filter.jump(BPF_JSET, CLONE_THREAD, 0, 1);
  filter.ret(SECCOMP_RET_ALLOW);
  filter.ret(errnoResult(EPERM));
  // tgkill: only to this process (abort() signals itself this way).
  filter.jump(BPF_JEQ, __NR_tgkill, 0, 4);
  filter.load(offsetof(seccomp_data, args[0]));
  filter.jump(BPF_JEQ, static_cast<uint32_t>(getpid()), 1, 0);
  filter.ret(errnoResult(EPERM));
  filter.ret(SECCOMP_RET_ALLOW);
  filter.ret(SECCOMP_RET_ALLOW); // everything else

  std::vector<sock_filter> &code = filter.code();
  struct sock_fprog program{static_cast<unsigned short>(code.size()), code.data()};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0)
    return Error(ErrorKind::Unsupported,
                 std::string("cannot install the system-call filter: ") + std::strerror(errno));
  return Status::success();
#else
  return Error(ErrorKind::Unsupported,
               "the system-call filter needs Linux on x86-64 or AArch64");
#endif
}

Expected<SandboxOutcome> runConfined(const SandboxLimits &limits,
                                     const std::function<int(int)> &body) {
  int resultPipe[2], stderrPipe[2];
  if (pipe2(resultPipe, O_CLOEXEC) != 0)
    return ioError(std::string("cannot create a pipe: ") + std::strerror(errno));
  if (pipe2(stderrPipe, O_CLOEXEC) != 0) {
    const int error = errno;
    close(resultPipe[0]);
    close(resultPipe[1]);
    return ioError(std::string("cannot create a pipe: ") + std::strerror(error));
  }
  const pid_t child = fork();
  if (child < 0) {
    const int error = errno;
    for (int fd : {resultPipe[0], resultPipe[1], stderrPipe[0], stderrPipe[1]})
      close(fd);
    return ioError(std::string("cannot start the importer process: ") + std::strerror(error));
  }
  if (child == 0)
    runChild(limits, stderrPipe[1], resultPipe[1], body);
  close(resultPipe[1]);
  close(stderrPipe[1]);

  SandboxOutcome outcome;
  std::string stderrText;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(limits.wallSeconds);
  struct pollfd fds[2] = {{resultPipe[0], POLLIN, 0}, {stderrPipe[0], POLLIN, 0}};
  int openCount = 2;
  std::vector<uint8_t> chunk(1 << 16);
  while (openCount > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      outcome.timedOut = true;
      break;
    }
    const int ready = poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 1000000)));
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready < 0)
      break;
    for (struct pollfd &entry : fds) {
      if (entry.fd < 0 || entry.revents == 0)
        continue;
      const ssize_t got = read(entry.fd, chunk.data(), chunk.size());
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        close(entry.fd);
        entry.fd = -1;
        --openCount;
        continue;
      }
      if (entry.fd == resultPipe[0]) {
        if (outcome.result.size() + static_cast<size_t>(got) > limits.maxResultBytes) {
          outcome.resultTooLarge = true;
          openCount = 0;
          break;
        }
        outcome.result.insert(outcome.result.end(), chunk.begin(), chunk.begin() + got);
      } else {
        stderrText.append(reinterpret_cast<const char *>(chunk.data()),
                          static_cast<size_t>(got));
        if (stderrText.size() > 8192)
          stderrText.erase(0, stderrText.size() - 4096);
      }
    }
  }
  for (struct pollfd &entry : fds)
    if (entry.fd >= 0)
      close(entry.fd);
  if (outcome.timedOut || outcome.resultTooLarge)
    kill(child, SIGKILL);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status))
    outcome.exitCode = WEXITSTATUS(status);
  else if (WIFSIGNALED(status) && !outcome.timedOut && !outcome.resultTooLarge)
    outcome.signal = WTERMSIG(status);
  // The last non-empty line, at most 512 bytes.
  while (!stderrText.empty() && (stderrText.back() == '\n' || stderrText.back() == '\r'))
    stderrText.pop_back();
  const size_t lastLine = stderrText.rfind('\n');
  outcome.stderrTail = lastLine == std::string::npos ? stderrText : stderrText.substr(lastLine + 1);
  if (outcome.stderrTail.size() > 512)
    outcome.stderrTail.resize(512);
  return outcome;
}

} // namespace thunderc::frontend
