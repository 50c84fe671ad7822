// Tests for frontend/torchscript/sandbox: the confined child process that reads TorchScript files. Each
// test runs a body in the child and checks what it could and could not do, and how it ended.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "frontend/torchscript/sandbox.h"

using namespace thunderc;
using namespace thunderc::frontend;

namespace {

SandboxOutcome confined(const std::function<int(int)> &body, SandboxLimits limits = {}) {
  Expected<SandboxOutcome> outcome = runConfined(limits, body);
  REQUIRE(outcome.ok());
  return std::move(*outcome);
}

// Writes the errno of each attempt as one byte (0: it succeeded).
void note(int fd, bool succeeded) {
  const uint8_t code = succeeded ? 0 : static_cast<uint8_t>(errno);
  writeAll(fd, &code, 1);
}

std::filesystem::path scratch(const char *name) {
  return std::filesystem::temp_directory_path() /
         ("thunderc_sandbox_" + std::to_string(getpid()) + "_" + name);
}

} // namespace

TEST_CASE("sandbox: the child's exit status and result bytes reach the parent") {
  SandboxOutcome outcome = confined([](int fd) {
    writeAll(fd, "hello", 5);
    return 7;
  });
  CHECK(outcome.exitCode == 7);
  CHECK(outcome.signal == 0);
  CHECK(std::string(outcome.result.begin(), outcome.result.end()) == "hello");
  CHECK(outcome.describe() == "exited with status 7");
}

TEST_CASE("sandbox: after lockDownProcess nothing outside the process can be touched") {
  const std::filesystem::path canary = scratch("canary");
  const std::filesystem::path existing = scratch("existing");
  std::filesystem::remove(canary);
  {
    FILE *file = std::fopen(existing.c_str(), "w");
    REQUIRE(file != nullptr);
    std::fputs("keep", file);
    std::fclose(file);
  }
  SandboxOutcome outcome = confined([&](int fd) {
    if (!lockDownProcess().ok())
      return 1;
    note(fd, open(canary.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644) >= 0);   // create
    note(fd, open(existing.c_str(), O_WRONLY | O_TRUNC) >= 0);                // overwrite
    note(fd, open("/etc/passwd", O_RDONLY) >= 0);                             // read
    note(fd, unlink(existing.c_str()) == 0);                                  // delete
    note(fd, mkdir(canary.c_str(), 0755) == 0);                               // make folders
    note(fd, socket(AF_INET, SOCK_STREAM, 0) >= 0);                           // network
    note(fd, kill(getppid(), 0) == 0);                                         // other processes
    const pid_t child = fork();
    if (child == 0)
      _exit(0);
    note(fd, child >= 0);                                                     // processes
    char *const argv[] = {const_cast<char *>("/bin/true"), nullptr};
    note(fd, execv("/bin/true", argv) == 0);                                  // programs
    // Threads still work: libtorch needs them.
    bool ran = false;
    std::thread([&ran] { ran = true; }).join();
    const uint8_t threads = ran ? 1 : 0;
    writeAll(fd, &threads, 1);
    return 0;
  });
  REQUIRE(outcome.exitCode == 0);
  REQUIRE(outcome.result.size() == 10);
  CHECK(outcome.result[0] == EACCES);
  CHECK(outcome.result[1] == EACCES);
  CHECK(outcome.result[2] == EACCES);
  CHECK(outcome.result[3] == EPERM);
  CHECK(outcome.result[4] == EPERM);
  CHECK(outcome.result[5] == EPERM);
  CHECK(outcome.result[6] == EPERM);
  CHECK(outcome.result[7] != 0);
  CHECK(outcome.result[8] == EPERM);
  CHECK(outcome.result[9] == 1);
  CHECK_FALSE(std::filesystem::exists(canary));
  CHECK(std::filesystem::file_size(existing) == 4);
  std::filesystem::remove(existing);
}

TEST_CASE("sandbox: a crash is the child's, reported with its signal") {
  SandboxOutcome outcome = confined([](int) {
    std::fputs("about to crash\n", stderr);
    std::fflush(stderr);
    std::abort(); // not SIGSEGV: AddressSanitizer builds turn that into a report and exit 1
    return 0;
  });
  CHECK(outcome.signal == SIGABRT);
  CHECK(outcome.exitCode == -1);
  CHECK(outcome.stderrTail == "about to crash");
  CHECK(outcome.describe() == "was killed by signal 6 (Aborted)");
}

TEST_CASE("sandbox: memory beyond the limit cannot be had") {
  if (!limitsAddressSpace())
    return; // an AddressSanitizer build: see limitsAddressSpace()
  SandboxLimits limits;
  limits.addressSpaceBytes = uint64_t(512) << 20;
  SandboxOutcome outcome = confined(
      [](int) {
        void *block = std::malloc(size_t(2) << 30);
        return block == nullptr ? 3 : 0;
      },
      limits);
  CHECK(outcome.exitCode == 3);
}

TEST_CASE("sandbox: the CPU-time and wall-clock limits stop the child") {
  SandboxLimits cpu;
  cpu.cpuSeconds = 1;
  SandboxOutcome spun = confined(
      [](int) {
        volatile uint64_t x = 0;
        while (true)
          x = x + 1;
        return 0;
      },
      cpu);
  CHECK(spun.signal == SIGXCPU);
  CHECK(spun.describe() == "ran out of its CPU-time limit");

  SandboxLimits wall;
  wall.wallSeconds = 1;
  SandboxOutcome slept = confined(
      [](int) {
        sleep(30);
        return 0;
      },
      wall);
  CHECK(slept.timedOut);
}

TEST_CASE("sandbox: a child that returns more than the limit is stopped") {
  SandboxLimits limits;
  limits.maxResultBytes = 1000;
  SandboxOutcome outcome = confined(
      [](int fd) {
        const std::string block(4096, 'x');
        for (int i = 0; i < 100; ++i)
          writeAll(fd, block.data(), block.size());
        return 0;
      },
      limits);
  CHECK(outcome.resultTooLarge);
  CHECK(outcome.result.size() <= 1000);
}

TEST_CASE("sandbox: the child sees none of the parent's descriptors") {
  const int opened = open("/dev/null", O_RDONLY);
  REQUIRE(opened >= 0);
  const int inherited = fcntl(opened, F_DUPFD, 100); // above the child's own 0-3
  close(opened);
  REQUIRE(inherited >= 100);
  SandboxOutcome outcome = confined([inherited](int fd) {
    note(fd, fcntl(inherited, F_GETFD) != -1);
    return 0;
  });
  close(inherited);
  REQUIRE(outcome.result.size() == 1);
  CHECK(outcome.result[0] == EBADF);
}
