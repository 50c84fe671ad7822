// ZipArchive: finds the end of central directory record (and its ZIP64 twin), walks the central
// directory, and resolves each entry's data offset through its local header.
//
// 1. Scan backwards from the end for the EOCD record (it may be followed by a comment).
// 2. If a ZIP64 locator sits just before it, take count, size and offset from the ZIP64 record.
// 3. Read each central entry, widening saturated 32-bit fields from its ZIP64 extra field.
// 4. Read the entry's local header for its name and extra lengths; data follows them.
#include "frontend/pt2/zip_reader.h"

#include <algorithm>
#include <cstdio>

#include "crc32.h"

namespace thunderc::frontend {

namespace {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint64_t kEndSize = 22;
constexpr uint64_t kZip64EndSize = 56;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kMaxCommentSize = 0xFFFF;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kEncryptedFlag = 0x0001;
constexpr uint32_t kSaturated32 = 0xFFFFFFFF;

/// True if [offset, offset + length) fits in [0, size), without overflowing.
bool inRange(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

// Little-endian loads; callers have range-checked the bytes.
uint16_t load16(std::span<const uint8_t> file, uint64_t at) {
  return uint16_t(file[at] | file[at + 1] << 8);
}
uint32_t load32(std::span<const uint8_t> file, uint64_t at) {
  return uint32_t(load16(file, at)) | uint32_t(load16(file, at + 2)) << 16;
}
uint64_t load64(std::span<const uint8_t> file, uint64_t at) {
  return uint64_t(load32(file, at)) | uint64_t(load32(file, at + 4)) << 32;
}

/// Where the central directory lies and how many entries it claims.
struct CentralDirectory {
  uint64_t offset;
  uint64_t size;
  uint64_t count;
  uint64_t limit; ///< the first byte past where the directory may end (its end record)
};

Expected<uint64_t> findEndRecord(std::span<const uint8_t> file) {
  if (file.size() < kEndSize)
    return invalidInput("not a zip archive (no end of central directory record)");
  uint64_t last = file.size() - kEndSize;
  uint64_t first = last > kMaxCommentSize ? last - kMaxCommentSize : 0;
  // The record nearest the end decides: an earlier signature may belong to an archive stored
  // inside this one (PyTorch stores sample inputs as a zip).
  for (uint64_t at = last + 1; at-- > first;) {
    if (load32(file, at) != kEndSignature)
      continue;
    uint64_t commentSize = load16(file, at + 20);
    if (at + kEndSize + commentSize > file.size())
      return invalidInput("end of central directory record at offset " + std::to_string(at) +
                          ": its " + std::to_string(commentSize) +
                          "-byte comment runs past the end of the file");
    return at;
  }
  return invalidInput("not a zip archive (no end of central directory record)");
}

/// Reads the ZIP64 end record that the locator at `locatorAt` points to into `directory`.
Status readZip64End(std::span<const uint8_t> file, uint64_t locatorAt,
                    CentralDirectory &directory) {
  if (load32(file, locatorAt + 4) != 0 || load32(file, locatorAt + 16) > 1)
    return unsupported("multi-disk zip archives are not supported");
  uint64_t recordAt = load64(file, locatorAt + 8);
  if (!inRange(recordAt, kZip64EndSize, locatorAt))
    return invalidInput("ZIP64 end of central directory record lies outside the archive");
  if (load32(file, recordAt) != kZip64EndSignature)
    return invalidInput("bad ZIP64 end of central directory signature");
  if (load32(file, recordAt + 16) != 0 || load32(file, recordAt + 20) != 0)
    return unsupported("multi-disk zip archives are not supported");
  directory.count = load64(file, recordAt + 32);
  directory.size = load64(file, recordAt + 40);
  directory.offset = load64(file, recordAt + 48);
  directory.limit = recordAt;
  return Status::success();
}

Expected<CentralDirectory> findCentralDirectory(std::span<const uint8_t> file) {
  TC_ASSIGN_OR_RETURN(uint64_t endAt, findEndRecord(file));
  CentralDirectory directory;
  directory.count = load16(file, endAt + 10);
  directory.size = load32(file, endAt + 12);
  directory.offset = load32(file, endAt + 16);
  directory.limit = endAt;
  // PyTorch writes the ZIP64 records even for tiny archives; when present they win.
  bool hasZip64Locator = endAt >= kZip64LocatorSize &&
                         load32(file, endAt - kZip64LocatorSize) == kZip64LocatorSignature;
  if (hasZip64Locator) {
    TC_TRY(readZip64End(file, endAt - kZip64LocatorSize, directory));
  } else if (load16(file, endAt + 4) != 0 || load16(file, endAt + 6) != 0) {
    return unsupported("multi-disk zip archives are not supported");
  }
  if (!inRange(directory.offset, directory.size, directory.limit))
    return invalidInput("central directory lies outside the archive");
  // Every entry takes at least a fixed header, which bounds any honest count.
  if (directory.count > directory.size / kCentralHeaderSize)
    return invalidInput("end of central directory claims " + std::to_string(directory.count) +
                        " entries but the central directory is only " +
                        std::to_string(directory.size) + " bytes");
  return directory;
}

/// The saturated 32-bit fields of a central entry, to be replaced from its ZIP64 extra field.
struct Zip64Needs {
  bool size;
  bool compressedSize;
  bool localOffset;
  bool any() const { return size || compressedSize || localOffset; }
};

/// Widens the fields `needs` names from the extra field at [at, at + length). The ZIP64 field
/// holds only the saturated values, always in the order size, compressed size, offset.
Status applyZip64Extra(std::span<const uint8_t> file, uint64_t at, uint64_t length,
                       Zip64Needs needs, ZipEntry &entry, uint64_t &localOffset) {
  uint64_t end = at + length;
  while (at + 4 <= end) {
    uint16_t id = load16(file, at);
    uint16_t fieldSize = load16(file, at + 2);
    at += 4;
    if (fieldSize > end - at)
      return invalidInput("extra field overruns its entry");
    if (id != kZip64ExtraId) {
      at += fieldSize;
      continue;
    }
    uint64_t needed = 8 * (needs.size + needs.compressedSize + needs.localOffset);
    if (fieldSize < needed)
      return invalidInput("ZIP64 extra field is too short");
    auto next = [&] {
      uint64_t value = load64(file, at);
      at += 8;
      return value;
    };
    if (needs.size)
      entry.size = next();
    if (needs.compressedSize)
      entry.compressedSize = next();
    if (needs.localOffset)
      localOffset = next();
    return Status::success();
  }
  return invalidInput("missing ZIP64 extra field");
}

/// Sets entry.offset from the local header at `localOffset` and checks the data is in the file.
Status locateData(std::span<const uint8_t> file, uint64_t localOffset, ZipEntry &entry) {
  std::string quoted = "'" + entry.name + "'";
  if (!inRange(localOffset, kLocalHeaderSize, file.size()))
    return invalidInput("truncated archive: local header of entry " + quoted +
                        " lies past end of file");
  if (load32(file, localOffset) != kLocalHeaderSignature)
    return invalidInput("entry " + quoted + " has a bad local header signature");
  uint64_t nameSize = load16(file, localOffset + 26);
  uint64_t extraSize = load16(file, localOffset + 28);
  entry.offset = localOffset + kLocalHeaderSize + nameSize + extraSize;
  if (!inRange(entry.offset, entry.compressedSize, file.size()))
    return invalidInput("truncated archive: entry " + quoted + " extends past end of file");
  // Pointer arithmetic, not file[...]: with an empty name the offset may equal file.size().
  const uint8_t *localNameAt = file.data() + localOffset + kLocalHeaderSize;
  std::string_view localName(reinterpret_cast<const char *>(localNameAt), nameSize);
  if (localName != entry.name)
    return invalidInput("entry " + quoted + " has a different name in its local header");
  return Status::success();
}

/// `name` with bytes outside printable ASCII written as \xNN, for messages.
std::string printable(std::string_view name) {
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
      out += escaped;
    }
  }
  return out;
}

/// Refuses member names no PyTorch writer produces and that could name a file outside a
/// folder if anything ever extracted them: empty, absolute, a '..' component, a backslash or
/// a NUL byte.
Status checkName(std::string_view name, uint64_t number) {
  bool unsafe = name.empty() || name.front() == '/' ||
                name.find_first_of(std::string_view("\\\0", 2)) != std::string_view::npos;
  for (size_t start = 0; !unsafe && start <= name.size();) {
    size_t slash = name.find('/', start);
    size_t end = slash == std::string_view::npos ? name.size() : slash;
    unsafe = name.substr(start, end - start) == "..";
    start = end + 1;
  }
  if (unsafe)
    return invalidInput("central directory entry " + std::to_string(number) +
                        " has an unsafe name '" + printable(name) +
                        "' (empty, absolute, a '..' component, a backslash or a NUL byte)");
  return Status::success();
}

/// Parses the central entry number `number` at `at` and advances `at` past it.
Expected<ZipEntry> readCentralEntry(std::span<const uint8_t> file, uint64_t &at, uint64_t end,
                                    uint64_t number) {
  std::string where = "central directory entry " + std::to_string(number) + " is malformed";
  if (!inRange(at, kCentralHeaderSize, end))
    return invalidInput(where + " (truncated)");
  if (load32(file, at) != kCentralHeaderSignature)
    return invalidInput(where + " (bad signature)");
  uint16_t flags = load16(file, at + 8);
  uint64_t nameSize = load16(file, at + 28);
  uint64_t extraSize = load16(file, at + 30);
  uint64_t commentSize = load16(file, at + 32);
  if (!inRange(at + kCentralHeaderSize, nameSize + extraSize + commentSize, end))
    return invalidInput(where + " (name or extra field past the central directory)");

  ZipEntry entry;
  entry.method = load16(file, at + 10);
  entry.crc32 = load32(file, at + 16);
  entry.compressedSize = load32(file, at + 20);
  entry.size = load32(file, at + 24);
  uint64_t localOffset = load32(file, at + 42);
  uint64_t nameAt = at + kCentralHeaderSize;
  entry.name.assign(reinterpret_cast<const char *>(file.data() + nameAt), nameSize);

  Zip64Needs needs{entry.size == kSaturated32, entry.compressedSize == kSaturated32,
                   localOffset == kSaturated32};
  if (needs.any()) {
    Status widened =
        applyZip64Extra(file, nameAt + nameSize, extraSize, needs, entry, localOffset);
    if (!widened.ok())
      return invalidInput(where + " (" + widened.error().message() + ")");
  }
  at = nameAt + nameSize + extraSize + commentSize;

  if (flags & kEncryptedFlag)
    return unsupported("entry '" + entry.name + "' is encrypted; encrypted archives are not " +
                       "supported");
  if (entry.method == 0 && entry.compressedSize != entry.size)
    return invalidInput("entry '" + entry.name + "' is stored but its compressed size " +
                        std::to_string(entry.compressedSize) + " differs from its size " +
                        std::to_string(entry.size));
  TC_TRY(checkName(entry.name, number));
  TC_TRY(locateData(file, localOffset, entry));
  return entry;
}

std::string methodName(uint16_t method) {
  if (method == 8)
    return "deflate";
  return "method " + std::to_string(method);
}

std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

} // namespace

Expected<ZipArchive> ZipArchive::open(const std::string &path) {
  TC_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::open(path));
  ZipArchive archive;
  archive.mapped_ = std::move(mapped);
  TC_TRY(archive.index());
  return archive;
}

Expected<ZipArchive> ZipArchive::fromBuffer(std::vector<uint8_t> bytes) {
  ZipArchive archive;
  archive.buffer_ = std::move(bytes);
  TC_TRY(archive.index());
  return archive;
}

std::span<const uint8_t> ZipArchive::fileBytes() const {
  if (!buffer_.empty())
    return buffer_;
  return {mapped_.data(), mapped_.size()};
}

Status ZipArchive::index() {
  std::span<const uint8_t> file = fileBytes();
  TC_ASSIGN_OR_RETURN(CentralDirectory directory, findCentralDirectory(file));
  entries_.reserve(directory.count);
  uint64_t at = directory.offset;
  uint64_t end = directory.offset + directory.size;
  for (uint64_t number = 0; number < directory.count; ++number) {
    TC_ASSIGN_OR_RETURN(ZipEntry entry, readCentralEntry(file, at, end, number));
    if (!index_.emplace(entry.name, entries_.size()).second)
      return invalidInput("entry '" + printable(entry.name) +
                          "' appears twice in the central directory");
    entries_.push_back(std::move(entry));
  }
  // No two members' data may overlap (one byte range read as two members).
  std::vector<const ZipEntry *> byOffset;
  for (const ZipEntry &entry : entries_)
    byOffset.push_back(&entry);
  std::sort(byOffset.begin(), byOffset.end(),
            [](const ZipEntry *a, const ZipEntry *b) { return a->offset < b->offset; });
  for (size_t i = 1; i < byOffset.size(); ++i) {
    const ZipEntry &before = *byOffset[i - 1], &after = *byOffset[i];
    if (before.offset + before.compressedSize > after.offset)
      return invalidInput("entries '" + printable(before.name) + "' and '" +
                          printable(after.name) + "' overlap in the file");
  }
  return Status::success();
}

const ZipEntry *ZipArchive::find(std::string_view name) const {
  auto found = index_.find(name);
  return found == index_.end() ? nullptr : &entries_[found->second];
}

Expected<std::span<const uint8_t>> ZipArchive::read(const ZipEntry &entry, bool verifyCrc) const {
  std::span<const uint8_t> file = fileBytes();
  TC_CHECK(inRange(entry.offset, entry.compressedSize, file.size()),
           "ZipArchive::read given an entry of another archive");
  if (entry.method != 0)
    return unsupported("entry '" + entry.name + "' is compressed (" + methodName(entry.method) +
                       "); only stored entries are supported");
  std::span<const uint8_t> data = file.subspan(entry.offset, entry.size);
  if (!verifyCrc)
    return data;
  uint32_t actual = runtime::crc32(data.data(), data.size());
  if (actual != entry.crc32)
    return invalidInput("entry '" + entry.name + "' is corrupt (its crc32 is " + hex32(actual) +
                        ", the central directory says " + hex32(entry.crc32) + ")");
  return data;
}

std::span<const uint8_t> ZipArchive::readRaw(const ZipEntry &entry) const {
  std::span<const uint8_t> file = fileBytes();
  TC_CHECK(inRange(entry.offset, entry.compressedSize, file.size()),
           "ZipArchive::readRaw given an entry of another archive");
  return file.subspan(entry.offset, entry.compressedSize);
}

Expected<std::string> ZipArchive::readText(std::string_view name, bool verifyCrc) const {
  const ZipEntry *entry = find(name);
  if (entry == nullptr)
    return invalidInput("missing archive member '" + std::string(name) + "'");
  TC_ASSIGN_OR_RETURN(std::span<const uint8_t> data, read(*entry, verifyCrc));
  // From the pointer and size (one memcpy), not from span iterators (a byte loop unless the
  // optimizer sees through them; model JSON is read once per compile and once per fuzz input).
  return std::string(reinterpret_cast<const char *>(data.data()), data.size());
}

std::string ZipArchive::topFolder() const {
  if (entries_.empty())
    return "";
  const std::string &name = entries_.front().name;
  size_t slash = name.find('/');
  return slash == std::string::npos ? "" : name.substr(0, slash);
}

} // namespace thunderc::frontend
