// MappedFile: a whole file mapped read-only into memory, so archive members and tensors can be
// read zero-copy. Move-only; the mapping lives exactly as long as the object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "ir/status.h"

namespace thunderc::frontend {

class MappedFile {
public:
  /// Maps the regular file at `path` read-only. An empty file is valid and has size 0 and a
  /// null data(). Fails with ErrorKind::Io ("cannot open file: No such file or directory");
  /// the message does not name `path`, callers prepend it.
  static Expected<MappedFile> open(const std::string &path);

  MappedFile() = default;
  MappedFile(MappedFile &&other) noexcept;
  MappedFile &operator=(MappedFile &&other) noexcept;
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;
  ~MappedFile();

  const uint8_t *data() const { return data_; }
  size_t size() const { return size_; }

  /// True if [offset, offset + length) lies inside the file; safe against overflow.
  bool contains(uint64_t offset, uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

  /// The bytes [offset, offset + length). The range must be inside the file (check with
  /// contains() first): an out-of-range request is a compiler bug and aborts.
  std::span<const uint8_t> bytes(uint64_t offset, uint64_t length) const;

private:
  MappedFile(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  void unmap();

  const uint8_t *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace thunderc::frontend
