// tc_weights_open: maps weights.bin and validates it completely before anything reads a
// tensor, so a bad file is a status with a message, never a crash later.
//  1. open + fstat; reject non-regular files and files smaller than the header;
//  2. mmap read-only; check magic, version, header checksum, recorded file size, table bounds
//     and table checksum;
//  3. decode every entry, checking name, dtype, rank, shape, size, offset and data checksum;
//  4. sort an index by name for lookups, which also finds duplicate names.
#include "weights.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <new>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32.h"
#include "weights_format.h"

namespace format = thunderc::runtime::weights_format;
using thunderc::runtime::crc32;

namespace {

/// One tensor of the file: its name (in the mapping) and its view.
struct TensorRecord {
  const char *name;
  tc_tensor view;
};

/// Fails with `status` and "<path>: <formatted message>".
tc_status fail(tc_error *err, tc_status status, const char *path, const char *format, ...)
    TC_PRINTF_FORMAT(4, 5);
tc_status fail(tc_error *err, tc_status status, const char *path, const char *format, ...) {
  char message[TC_ERROR_MESSAGE_SIZE];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  return tc_error_setf(err, status, "%s: %s", path, message);
}

/// "[2, 3]" into `buffer` (always NUL-terminated, truncated if it does not fit).
void formatShape(char *buffer, size_t size, int32_t rank, const int64_t *shape) {
  size_t used = static_cast<size_t>(std::snprintf(buffer, size, "["));
  for (int32_t i = 0; i < rank && used < size; ++i)
    used += static_cast<size_t>(
        std::snprintf(buffer + used, size - used, "%s%" PRId64, i ? ", " : "", shape[i]));
  if (used < size)
    std::snprintf(buffer + used, size - used, "]");
}

/// A file mapping that unmaps itself unless released.
struct Mapping {
  void *base = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (base != MAP_FAILED)
      munmap(base, size);
  }
  const uint8_t *bytes() const { return static_cast<const uint8_t *>(base); }
};

/// Step 1 and the mmap of step 2.
tc_status mapFile(const char *path, Mapping &mapping, tc_error *err) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(err, TC_ERROR_IO, path, "cannot open file: %s", std::strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int savedErrno = errno;
    ::close(fd);
    return fail(err, TC_ERROR_IO, path, "cannot stat file: %s", std::strerror(savedErrno));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return fail(err, TC_ERROR_IO, path, "not a regular file");
  }
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  if (fileSize < format::kHeaderSize) {
    ::close(fd);
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "file is %" PRIu64 " bytes, too small for the %" PRIu64 "-byte header", fileSize,
                format::kHeaderSize);
  }
  if (fileSize > std::numeric_limits<size_t>::max()) {
    ::close(fd);
    return fail(err, TC_ERROR_IO, path, "file of %" PRIu64 " bytes is too large to map",
                fileSize);
  }
  mapping.size = static_cast<size_t>(fileSize);
  mapping.base = mmap(nullptr, mapping.size, PROT_READ, MAP_PRIVATE, fd, 0);
  int savedErrno = errno;
  ::close(fd); // the mapping keeps the file alive
  if (mapping.base == MAP_FAILED)
    return fail(err, TC_ERROR_IO, path, "cannot map file: %s", std::strerror(savedErrno));
  return TC_OK;
}

/// The rest of step 2: everything about the header and the table as a whole.
tc_status checkHeader(const char *path, const uint8_t *bytes, uint64_t size,
                      format::Header &header, tc_error *err) {
  if (!format::hasMagic(bytes))
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path, "bad magic (not a thunderc weights file)");
  header = format::decodeHeader(bytes);
  if (header.version != format::kVersion)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "unsupported format version %" PRIu32 " (this runtime reads version %" PRIu32
                ")",
                header.version, format::kVersion);
  uint32_t headerCrc = crc32(bytes, format::kHeaderCrcOffset);
  if (headerCrc != header.headerCrc32)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "header checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
                header.headerCrc32, headerCrc);
  if (header.fileSize != size)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "file is %" PRIu64 " bytes but its header records %" PRIu64
                " (truncated or extended)",
                size, header.fileSize);
  uint64_t entriesSize = uint64_t(header.tensorCount) * format::kEntrySize; // < 2^39
  if (header.tableOffset != format::kHeaderSize)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "table offset %" PRIu64 " is not %" PRIu64 " (right after the header)",
                header.tableOffset, format::kHeaderSize);
  if (header.tableSize > size - header.tableOffset)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "table of %" PRIu64 " bytes extends past the end of the file", header.tableSize);
  if (header.tableSize < entriesSize)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "table of %" PRIu64 " bytes cannot hold %" PRIu32 " entries", header.tableSize,
                header.tensorCount);
  uint64_t tableEnd = header.tableOffset + header.tableSize;
  if (header.dataOffset % format::kAlignment != 0 || header.dataOffset < tableEnd ||
      header.dataOffset > size)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "data section offset %" PRIu64
                " is misaligned or outside [table end %" PRIu64 ", file size %" PRIu64 "]",
                header.dataOffset, tableEnd, size);
  uint32_t tableCrc = crc32(bytes + header.tableOffset, static_cast<size_t>(header.tableSize));
  if (tableCrc != header.tableCrc32)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "table checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 ")",
                header.tableCrc32, tableCrc);
  return TC_OK;
}

/// The entry's name, or null (with `*err` set) if it is not a non-empty, NUL-terminated
/// string without inner NULs inside the name pool.
const char *entryName(const char *path, const uint8_t *table, const format::Header &header,
                      uint32_t index, const format::Entry &entry, tc_error *err) {
  uint64_t poolStart = uint64_t(header.tensorCount) * format::kEntrySize;
  uint64_t nameEnd = uint64_t(entry.nameOffset) + entry.nameLength; // the NUL's offset
  if (entry.nameLength == 0 || entry.nameOffset < poolStart || nameEnd >= header.tableSize) {
    fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
         "tensor #%" PRIu32 ": name at %" PRIu32 " of %" PRIu32
         " bytes is empty or outside the name pool",
         index, entry.nameOffset, entry.nameLength);
    return nullptr;
  }
  const char *name = reinterpret_cast<const char *>(table + entry.nameOffset);
  if (std::memchr(name, '\0', entry.nameLength) != nullptr || name[entry.nameLength] != '\0') {
    fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
         "tensor #%" PRIu32 ": name is not a NUL-terminated string of %" PRIu32 " bytes", index,
         entry.nameLength);
    return nullptr;
  }
  return name;
}

/// Step 3 for one entry after its name: dtype, rank, shape and size. Fills `view` except data.
tc_status checkEntryType(const char *path, const char *name, const format::Entry &entry,
                         tc_tensor &view, tc_error *err) {
  if (entry.dtype >= TC_DTYPE_COUNT)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path, "tensor '%s': invalid dtype %" PRIu32,
                name, entry.dtype);
  if (entry.rank > TC_MAX_RANK)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "tensor '%s': rank %" PRIu32 " exceeds %d", name, entry.rank, TC_MAX_RANK);
  view.dtype = static_cast<tc_dtype>(entry.dtype);
  view.rank = static_cast<int32_t>(entry.rank);
  for (int i = 0; i < TC_MAX_RANK; ++i) {
    bool valid = i < view.rank ? entry.shape[i] >= 0 : entry.shape[i] == 0;
    if (!valid)
      return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                  "tensor '%s': invalid dim %d of rank-%d shape: %" PRId64, name, i, view.rank,
                  entry.shape[i]);
    view.shape[i] = entry.shape[i];
  }
  char shapeText[256];
  formatShape(shapeText, sizeof(shapeText), view.rank, view.shape);
  int64_t expected = tc_tensor_byte_size(&view);
  if (expected < 0)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path, "tensor '%s': shape %s is too large", name,
                shapeText);
  if (uint64_t(expected) != entry.byteSize)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "tensor '%s': byte size %" PRIu64 ", expected %" PRId64 " for %s %s", name,
                entry.byteSize, expected, tc_dtype_name(view.dtype), shapeText);
  return TC_OK;
}

/// Whether bytes [begin, end) are all zero. Padding is covered by no checksum, so requiring
/// zeros is what makes every corrupted byte of the file detectable.
bool allZero(const uint8_t *bytes, uint64_t begin, uint64_t end) {
  for (uint64_t i = begin; i < end; ++i)
    if (bytes[i] != 0)
      return false;
  return true;
}

/// Step 3 for one entry's data: alignment, bounds, order and checksum. `previousEnd` is where
/// the previous tensor's bytes end (the data section's start for the first).
tc_status checkEntryData(const char *path, const char *name, const uint8_t *bytes,
                         uint64_t size, uint64_t previousEnd, const format::Entry &entry,
                         tc_error *err) {
  if (entry.dataOffset % format::kAlignment != 0)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "tensor '%s': data offset %" PRIu64 " is not %" PRIu64 "-byte aligned", name,
                entry.dataOffset, format::kAlignment);
  if (entry.dataOffset > size || entry.byteSize > size - entry.dataOffset)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "tensor '%s': data at offset %" PRIu64 " of %" PRIu64
                " bytes extends past the end of the file (%" PRIu64 " bytes)",
                name, entry.dataOffset, entry.byteSize, size);
  if (entry.dataOffset < previousEnd)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "tensor '%s': data at offset %" PRIu64
                " overlaps the header, table or previous tensor (which end at %" PRIu64 ")",
                name, entry.dataOffset, previousEnd);
  if (!allZero(bytes, previousEnd, entry.dataOffset))
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "tensor '%s': padding before its data at offset %" PRIu64 " is not zero", name,
                entry.dataOffset);
  uint32_t computed = crc32(bytes + entry.dataOffset, static_cast<size_t>(entry.byteSize));
  if (computed != entry.dataCrc32)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "tensor '%s': checksum mismatch (stored 0x%08" PRIx32 ", computed 0x%08" PRIx32
                ")",
                name, entry.dataCrc32, computed);
  return TC_OK;
}

} // namespace

struct tc_weights {
  Mapping mapping;
  char *path = nullptr;                    ///< for lookup messages
  uint32_t count = 0;
  TensorRecord *tensors = nullptr;         ///< file order
  uint32_t *byName = nullptr;              ///< indices into tensors, sorted by name

  ~tc_weights() {
    delete[] path;
    delete[] tensors;
    delete[] byName;
  }
};

namespace {

/// Steps 2-4 on a mapped file.
tc_status validate(tc_weights &weights, tc_error *err) {
  const char *path = weights.path;
  const uint8_t *bytes = weights.mapping.bytes();
  uint64_t size = weights.mapping.size;
  format::Header header;
  if (tc_status status = checkHeader(path, bytes, size, header, err); status != TC_OK)
    return status;

  weights.count = header.tensorCount;
  weights.tensors = new (std::nothrow) TensorRecord[header.tensorCount];
  weights.byName = new (std::nothrow) uint32_t[header.tensorCount];
  if (weights.tensors == nullptr || weights.byName == nullptr)
    return fail(err, TC_ERROR_OUT_OF_MEMORY, path, "cannot allocate an index of %" PRIu32
                " tensors", header.tensorCount);

  const uint8_t *table = bytes + header.tableOffset;
  uint64_t previousEnd = header.dataOffset;
  for (uint32_t i = 0; i < header.tensorCount; ++i) {
    format::Entry entry = format::decodeEntry(table + uint64_t(i) * format::kEntrySize);
    TensorRecord &record = weights.tensors[i];
    record.name = entryName(path, table, header, i, entry, err);
    if (record.name == nullptr)
      return TC_ERROR_CORRUPT_WEIGHTS;
    if (tc_status status = checkEntryType(path, record.name, entry, record.view, err);
        status != TC_OK)
      return status;
    if (tc_status status =
            checkEntryData(path, record.name, bytes, size, previousEnd, entry, err);
        status != TC_OK)
      return status;
    bool empty = entry.byteSize == 0;
    record.view.data = empty ? nullptr : const_cast<uint8_t *>(bytes + entry.dataOffset);
    previousEnd = entry.dataOffset + entry.byteSize;
    weights.byName[i] = i;
  }
  if (!allZero(bytes, header.tableOffset + header.tableSize, header.dataOffset) ||
      !allZero(bytes, previousEnd, size))
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                "padding after the table or after the last tensor is not zero");

  // Step 4. Equal names (rejected just below) are ordered by index, so the message names the
  // two entries in file order and the result never depends on std::sort's tie handling.
  const TensorRecord *tensors = weights.tensors;
  std::sort(weights.byName, weights.byName + weights.count, [tensors](uint32_t a, uint32_t b) {
    int order = std::strcmp(tensors[a].name, tensors[b].name);
    return order != 0 ? order < 0 : a < b;
  });
  for (uint32_t i = 1; i < weights.count; ++i) {
    uint32_t first = weights.byName[i - 1], second = weights.byName[i];
    if (std::strcmp(tensors[first].name, tensors[second].name) == 0)
      return fail(err, TC_ERROR_CORRUPT_WEIGHTS, path,
                  "tensor '%s': duplicate name (entries #%" PRIu32 " and #%" PRIu32 ")",
                  tensors[first].name, first, second);
  }
  return TC_OK;
}

/// The record named `name`, or null.
const TensorRecord *lookup(const tc_weights &weights, const char *name) {
  const uint32_t *begin = weights.byName, *end = begin + weights.count;
  const uint32_t *found =
      std::lower_bound(begin, end, name, [&weights](uint32_t index, const char *key) {
        return std::strcmp(weights.tensors[index].name, key) < 0;
      });
  if (found == end || std::strcmp(weights.tensors[*found].name, name) != 0)
    return nullptr;
  return &weights.tensors[*found];
}

} // namespace

extern "C" {

tc_status tc_weights_open(const char *path, tc_weights **out, tc_error *err) {
  if (out == nullptr || path == nullptr)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "tc_weights_open: null %s",
                         out == nullptr ? "out" : "path");
  *out = nullptr;
  tc_weights *weights = new (std::nothrow) tc_weights;
  size_t pathLength = std::strlen(path);
  if (weights != nullptr)
    weights->path = new (std::nothrow) char[pathLength + 1];
  if (weights == nullptr || weights->path == nullptr) {
    delete weights;
    return fail(err, TC_ERROR_OUT_OF_MEMORY, path, "cannot allocate the weights object");
  }
  std::memcpy(weights->path, path, pathLength + 1);

  tc_status status = mapFile(path, weights->mapping, err);
  if (status == TC_OK)
    status = validate(*weights, err);
  if (status != TC_OK) {
    delete weights;
    return status;
  }
  *out = weights;
  tc_error_clear(err);
  return TC_OK;
}

void tc_weights_close(tc_weights *weights) { delete weights; }

size_t tc_weights_count(const tc_weights *weights) {
  return weights == nullptr ? 0 : weights->count;
}

tc_status tc_weights_find(const tc_weights *weights, const char *name, tc_tensor *out,
                          tc_error *err) {
  if (weights == nullptr || name == nullptr || out == nullptr)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "tc_weights_find: null argument");
  const TensorRecord *record = lookup(*weights, name);
  if (record == nullptr)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, weights->path, "no tensor named '%s'", name);
  *out = record->view;
  tc_error_clear(err);
  return TC_OK;
}

tc_status tc_weights_find_expected(const tc_weights *weights, const char *name, tc_dtype dtype,
                                   int32_t rank, const int64_t *shape, tc_tensor *out,
                                   tc_error *err) {
  if (rank < 0 || rank > TC_MAX_RANK || (rank > 0 && shape == nullptr))
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "tc_weights_find_expected: invalid expected rank %d or null shape",
                         static_cast<int>(rank));
  tc_tensor found;
  if (tc_status status = tc_weights_find(weights, name, &found, err); status != TC_OK)
    return status;
  if (found.dtype != dtype)
    return fail(err, TC_ERROR_DTYPE_MISMATCH, weights->path,
                "tensor '%s': dtype %s, expected %s", name, tc_dtype_name(found.dtype),
                tc_dtype_name(dtype));
  bool sameShape = found.rank == rank && std::equal(shape, shape + rank, found.shape);
  if (!sameShape) {
    char actualText[256], expectedText[256];
    formatShape(actualText, sizeof(actualText), found.rank, found.shape);
    formatShape(expectedText, sizeof(expectedText), rank, shape);
    return fail(err, TC_ERROR_SHAPE_MISMATCH, weights->path,
                "tensor '%s': shape %s, expected %s", name, actualText, expectedText);
  }
  *out = found;
  return TC_OK;
}

tc_status tc_weights_check_compile_id(const tc_weights *weights, const char *compile_id,
                                      tc_error *err) {
  if (weights == nullptr || compile_id == nullptr || std::strlen(compile_id) != 16)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "tc_weights_check_compile_id: null weights or an id that is not 16 "
                         "digits");
  tc_tensor found;
  tc_error ignored;
  if (tc_weights_find(weights, TC_COMPILE_ID_TENSOR, &found, &ignored) != TC_OK)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, weights->path,
                "no compile id (tensor '%s'): this file was not written with this bundle, "
                "which needs compile %s; use the weights.bin thunderc wrote beside it",
                TC_COMPILE_ID_TENSOR, compile_id);
  char recorded[17] = {};
  if (found.dtype == TC_DTYPE_U8 && found.rank == 1 && found.shape[0] == 16)
    std::memcpy(recorded, found.data, 16);
  for (char &c : recorded) // printable in the message, whatever the file holds
    if (c != '\0' && !std::isxdigit(static_cast<unsigned char>(c)))
      c = '?';
  if (std::memcmp(recorded, compile_id, 16) != 0)
    return fail(err, TC_ERROR_CORRUPT_WEIGHTS, weights->path,
                "written for another compile (compile id %s; this bundle is compile %s: "
                "another model, other thunderc options or another thunderc); use the "
                "weights.bin thunderc wrote beside this bundle",
                recorded[0] ? recorded : "(malformed)", compile_id);
  tc_error_clear(err);
  return TC_OK;
}

tc_status tc_weights_get(const tc_weights *weights, size_t index, const char **name,
                         tc_tensor *out, tc_error *err) {
  if (weights == nullptr || name == nullptr || out == nullptr)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "tc_weights_get: null argument");
  if (index >= weights->count)
    return fail(err, TC_ERROR_INVALID_ARGUMENT, weights->path,
                "tensor index %zu out of range (%" PRIu32 " tensors)", index, weights->count);
  *name = weights->tensors[index].name;
  *out = weights->tensors[index].view;
  tc_error_clear(err);
  return TC_OK;
}

} // extern "C"
