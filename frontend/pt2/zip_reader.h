// ZipArchive: a zero-copy reader of the stored zip container that torch.export.save writes
// (.pt2, docs/PT2_FORMAT.md §1.2). Every offset and size is checked against the file.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/pt2/mapped_file.h"
#include "ir/status.h"

namespace thunderc::frontend {

/// One archive member, as the central directory describes it.
struct ZipEntry {
  std::string name;        ///< full path inside the archive, e.g. "model/data/weights/weight_0"
  uint64_t offset;         ///< absolute file offset of the member's data (past the local header)
  uint64_t size;           ///< uncompressed size in bytes
  uint64_t compressedSize; ///< bytes the data occupies in the file
  uint16_t method;         ///< 0 = stored, 8 = deflate
  uint32_t crc32;          ///< CRC-32 of the uncompressed data, from the central directory
};

/// A zip archive read through its central directory. We parse it ourselves rather than use
/// libzip/minizip because they hide where member data lies in the file, and tensors must be
/// read in place from the mapping (PyTorch aligns them to 64 bytes).
///
/// Sizes and offsets come from the central directory, with ZIP64 records and extra fields
/// honoured; local headers are read only for their name and extra lengths (PyTorch writes 0
/// sizes there plus data descriptors). open() validates every entry, so once it succeeds each
/// entry's [offset, offset + compressedSize) is inside the file.
class ZipArchive {
public:
  /// Maps and indexes the archive at `path`. I/O failures are ErrorKind::Io; malformed or
  /// truncated archives are ErrorKind::InvalidInput ("not a zip archive (no end of central
  /// directory record)"); multi-disk or encrypted archives are ErrorKind::Unsupported.
  /// Messages do not name `path`; callers prepend it.
  static Expected<ZipArchive> open(const std::string &path);

  /// Indexes an archive held in memory (for tests and nested archives); errors as open().
  static Expected<ZipArchive> fromBuffer(std::vector<uint8_t> bytes);

  /// All entries in central-directory order.
  const std::vector<ZipEntry> &entries() const { return entries_; }

  /// The entry named exactly `name`, or nullptr. With duplicate names, the first one wins.
  const ZipEntry *find(std::string_view name) const;

  /// The stored bytes of `entry`, which must come from this archive; they point into the
  /// archive and live as long as it does. A compressed entry is an ErrorKind::Unsupported
  /// error. With `verifyCrc`, a CRC mismatch is an ErrorKind::InvalidInput error.
  Expected<std::span<const uint8_t>> read(const ZipEntry &entry, bool verifyCrc = false) const;

  /// The bytes `entry` occupies in the file as they are stored (compressed or not), which
  /// open() checked lie inside it; `entry` must come from this archive.
  std::span<const uint8_t> readRaw(const ZipEntry &entry) const;

  /// The member `name` as a string; "missing archive member 'name'" if there is none.
  Expected<std::string> readText(std::string_view name, bool verifyCrc = false) const;

  /// The first entry's name up to its first '/' (PyTorch puts every member under one top
  /// folder, named after the file); empty if there are no entries or the name has no '/'.
  std::string topFolder() const;

private:
  ZipArchive() = default;
  /// Parses the central directory of fileBytes() into entries_ and index_.
  Status index();
  /// The whole archive: buffer_ if built from memory, else the mapping.
  std::span<const uint8_t> fileBytes() const;

  MappedFile mapped_;
  std::vector<uint8_t> buffer_;
  std::vector<ZipEntry> entries_;
  std::map<std::string, size_t, std::less<>> index_;
};

} // namespace thunderc::frontend
