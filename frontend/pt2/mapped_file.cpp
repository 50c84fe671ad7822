// MappedFile: POSIX open/fstat/mmap of a whole file, read-only.
#include "frontend/pt2/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace thunderc::frontend {

namespace {

/// An Io error "<what>: <strerror(errno)>"; call it before anything can change errno.
Error errnoError(const char *what) {
  return ioError(std::string(what) + ": " + std::strerror(errno));
}

} // namespace

Expected<MappedFile> MappedFile::open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return errnoError("cannot open file");
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    Error error = errnoError("cannot read file");
    ::close(fd);
    return error;
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return ioError(S_ISDIR(info.st_mode) ? "cannot open file: Is a directory"
                                         : "cannot open file: not a regular file");
  }
  size_t size = static_cast<size_t>(info.st_size);
  // mmap rejects a zero length; an empty file maps to nothing.
  if (size == 0) {
    ::close(fd);
    return MappedFile();
  }
  void *address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (address == MAP_FAILED) {
    Error error = errnoError("cannot map file");
    ::close(fd);
    return error;
  }
  // The mapping keeps the file alive; the descriptor is no longer needed.
  ::close(fd);
  return MappedFile(static_cast<const uint8_t *>(address), size);
}

MappedFile::MappedFile(MappedFile &&other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile &MappedFile::operator=(MappedFile &&other) noexcept {
  if (this == &other)
    return *this;
  unmap();
  data_ = other.data_;
  size_ = other.size_;
  other.data_ = nullptr;
  other.size_ = 0;
  return *this;
}

MappedFile::~MappedFile() { unmap(); }

void MappedFile::unmap() {
  if (data_ != nullptr)
    ::munmap(const_cast<uint8_t *>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

std::span<const uint8_t> MappedFile::bytes(uint64_t offset, uint64_t length) const {
  TC_CHECK(contains(offset, length), "MappedFile::bytes range outside the file");
  if (length == 0)
    return {};
  return {data_ + offset, static_cast<size_t>(length)};
}

} // namespace thunderc::frontend
