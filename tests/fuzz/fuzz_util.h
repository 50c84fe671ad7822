// Shared by the fuzz targets (tests/fuzz/README.md): a fuzz input as a file for the APIs that
// take a path, without touching the disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace thunderc::fuzz {

/// The bytes in an anonymous in-memory file (memfd), reachable as "/proc/self/fd/N" for as
/// long as the object lives. Aborts if the kernel refuses: that is the harness failing, not
/// the code under test.
class MemoryFile {
public:
  MemoryFile(const uint8_t *data, size_t size) {
    fd_ = memfd_create("thunderc-fuzz", MFD_CLOEXEC);
    if (fd_ < 0)
      std::abort();
    size_t written = 0;
    while (written < size) {
      ssize_t n = write(fd_, data + written, size - written);
      if (n <= 0)
        std::abort();
      written += size_t(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile &) = delete;
  MemoryFile &operator=(const MemoryFile &) = delete;

  const std::string &path() const { return path_; }

private:
  int fd_ = -1;
  std::string path_;
};

/// With THUNDERC_FUZZ_VERBOSE set, prints what an input came to ("ok" or the error), to see
/// which seeds get past the first checks: THUNDERC_FUZZ_VERBOSE=1 build/.../fuzz_pt2 corpus/pt2
template <typename Result> void report(const Result &result) {
  static const bool verbose = std::getenv("THUNDERC_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s\n", result.ok() ? "ok" : result.error().message().c_str());
}

} // namespace thunderc::fuzz
