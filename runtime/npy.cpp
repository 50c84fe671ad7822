// NumPy .npy format (numpy/lib/format.py): magic "\x93NUMPY", version, header length, then a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), } and the raw data.
#include "npy.h"

#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <new>
#include <string_view>
#include <sys/stat.h>
#include <unistd.h>

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kDataAlignment = 64;

/// Indexed by tc_dtype.
constexpr const char *kDescrs[TC_DTYPE_COUNT] = {"|b1", "|u1", "|i1", "<i2", "<i4",
                                                 "<i8", "<f2", "<u2", "<f4", "<f8"};

void *allocateData(size_t bytes) {
  return ::operator new(bytes == 0 ? 1 : bytes, std::align_val_t(kDataAlignment), std::nothrow);
}

/// The dtype for a descr as found in a file, accepting any byte-order mark on single-byte types
/// and '=' on wider ones; false for anything else.
bool dtypeForDescr(std::string_view descr, tc_dtype &dtype) {
  if (descr.size() != 3 || std::string_view("<>=|").find(descr[0]) == std::string_view::npos)
    return false;
  for (int i = 0; i < TC_DTYPE_COUNT; ++i) {
    std::string_view known = kDescrs[i];
    if (descr.substr(1) != known.substr(1))
      continue;
    bool singleByte = known[0] == '|';
    if (singleByte || descr[0] == '<' || descr[0] == '=') {
      dtype = static_cast<tc_dtype>(i);
      return true;
    }
  }
  return false;
}

/// A cursor over the header dict text; each parse method skips leading whitespace. On failure
/// a method returns false and leaves a description in error().
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : rest_(text) {}

  const char *error() const { return error_; }

  /// Parses the whole dict: descr, fortran_order and shape, each exactly once, in any order.
  bool parse(std::string_view &descr, bool &fortranOrder, tc_tensor &tensor) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!consume('{'))
      return malformed("expected '{'");
    while (!consume('}')) {
      std::string_view key;
      if (!parseString(key))
        return false;
      if (!consume(':'))
        return malformed("expected ':' after '%.*s'", int(key.size()), key.data());
      bool parsed = false;
      if (key == "descr" && !seenDescr)
        parsed = seenDescr = parseDescr(descr);
      else if (key == "fortran_order" && !seenOrder)
        parsed = seenOrder = parseBool(fortranOrder);
      else if (key == "shape" && !seenShape)
        parsed = seenShape = parseShape(tensor);
      else
        return malformed("unexpected or repeated key '%.*s'", int(key.size()), key.data());
      if (!parsed)
        return false;
      if (!consume(',') && !peek('}'))
        return malformed("expected ',' or '}'");
    }
    skipSpace();
    if (!rest_.empty())
      return malformed("unexpected text after the dict");
    if (!seenDescr || !seenOrder || !seenShape)
      return malformed("missing 'descr', 'fortran_order' or 'shape'");
    return true;
  }

private:
  bool malformed(const char *format, ...) TC_PRINTF_FORMAT(2, 3) {
    va_list args;
    va_start(args, format);
    std::vsnprintf(error_, sizeof(error_), format, args);
    va_end(args);
    return false;
  }

  void skipSpace() {
    while (!rest_.empty() && (rest_[0] == ' ' || rest_[0] == '\t' || rest_[0] == '\n'))
      rest_.remove_prefix(1);
  }
  bool peek(char c) {
    skipSpace();
    return !rest_.empty() && rest_[0] == c;
  }
  bool consume(char c) {
    if (!peek(c))
      return false;
    rest_.remove_prefix(1);
    return true;
  }
  bool consumeWord(std::string_view word) {
    skipSpace();
    if (rest_.substr(0, word.size()) != word)
      return false;
    rest_.remove_prefix(word.size());
    return true;
  }

  /// A Python string literal in single or double quotes, without escapes.
  bool parseString(std::string_view &text) {
    skipSpace();
    if (rest_.empty() || (rest_[0] != '\'' && rest_[0] != '"'))
      return malformed("expected a string");
    size_t close = rest_.find(rest_[0], 1);
    if (close == std::string_view::npos)
      return malformed("unterminated string");
    text = rest_.substr(1, close - 1);
    if (text.find('\\') != std::string_view::npos)
      return malformed("escapes in strings are not supported");
    rest_.remove_prefix(close + 1);
    return true;
  }

  bool parseDescr(std::string_view &descr) {
    if (peek('['))
      return malformed("structured dtypes are not supported");
    return parseString(descr);
  }

  bool parseBool(bool &value) {
    if (consumeWord("True")) {
      value = true;
      return true;
    }
    if (consumeWord("False")) {
      value = false;
      return true;
    }
    return malformed("expected True or False");
  }

  /// A tuple of non-negative integers: "()", "(3,)", "(2, 3)", with an optional trailing comma
  /// and the "L" suffix that Python 2 wrote.
  bool parseShape(tc_tensor &tensor) {
    tensor.rank = 0;
    if (!consume('('))
      return malformed("expected a shape tuple");
    while (!consume(')')) {
      if (tensor.rank == TC_MAX_RANK)
        return malformed("rank exceeds %d", TC_MAX_RANK);
      if (!parseDim(tensor.shape[tensor.rank++]))
        return false;
      if (!consume(',') && !peek(')'))
        return malformed("expected ',' or ')' in shape");
    }
    return true;
  }

  bool parseDim(int64_t &value) {
    skipSpace();
    if (rest_.empty() || rest_[0] < '0' || rest_[0] > '9')
      return malformed("expected a dimension");
    value = 0;
    for (; !rest_.empty() && rest_[0] >= '0' && rest_[0] <= '9'; rest_.remove_prefix(1)) {
      int digit = rest_[0] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return malformed("dimension too large");
      value = value * 10 + digit;
    }
    if (!rest_.empty() && rest_[0] == 'L')
      rest_.remove_prefix(1);
    return true;
  }

  std::string_view rest_;
  char error_[160] = "";
};

/// Room for "(" + 8 dims of up to 19 digits with ", " + ",)" and a NUL.
constexpr size_t kShapeTextSize = 200;

/// Python's repr of the shape tuple, "()", "(3,)", "(2, 3)", into `text`.
void formatShape(const tc_tensor &tensor, char (&text)[kShapeTextSize]) {
  size_t used = 0;
  text[used++] = '(';
  for (int32_t i = 0; i < tensor.rank; ++i)
    used += size_t(std::snprintf(text + used, kShapeTextSize - used, "%s%" PRId64,
                                 i ? ", " : "", tensor.shape[i]));
  std::snprintf(text + used, kShapeTextSize - used, "%s", tensor.rank == 1 ? ",)" : ")");
}

tc_status invalid(tc_error *err, const char *message) {
  return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "%s", message);
}

/// Reads all of the regular file `path` into a new[] buffer.
tc_status readFile(const char *path, uint8_t *&bytes, size_t &size, tc_error *err) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return tc_error_setf(err, TC_ERROR_IO, "cannot open file: %s", std::strerror(errno));
  struct stat info;
  bool regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  uint64_t fileSize = regular ? static_cast<uint64_t>(info.st_size) : 0;
  bytes = regular && fileSize <= std::numeric_limits<size_t>::max()
              ? new (std::nothrow) uint8_t[fileSize == 0 ? 1 : fileSize]
              : nullptr;
  size = 0;
  while (bytes != nullptr && size < fileSize) {
    ssize_t got = ::read(fd, bytes + size, static_cast<size_t>(fileSize - size));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    size += static_cast<size_t>(got);
  }
  int savedErrno = errno;
  ::close(fd);
  if (!regular)
    return tc_error_setf(err, TC_ERROR_IO, "not a regular file");
  if (bytes == nullptr)
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, "cannot allocate %" PRIu64 " bytes",
                         fileSize);
  if (size != fileSize) {
    delete[] bytes;
    bytes = nullptr;
    return tc_error_setf(err, TC_ERROR_IO, "cannot read file: %s",
                         savedErrno != 0 ? std::strerror(savedErrno) : "unexpected end");
  }
  return TC_OK;
}

} // namespace

extern "C" {

const char *tc_npy_descr(tc_dtype dtype) {
  int index = static_cast<int>(dtype);
  return index >= 0 && index < TC_DTYPE_COUNT ? kDescrs[index] : nullptr;
}

tc_status tc_npy_parse(const void *data, size_t size, tc_tensor *out, tc_error *err) {
  if (out == nullptr || (data == nullptr && size != 0))
    return invalid(err, "tc_npy_parse: null argument");
  *out = tc_tensor{};
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return invalid(err, "not an npy file (bad magic)");
  uint8_t major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "npy format version %d.%d is not supported", major, minor);
  // Version 1.0 has a 2-byte header length; 2.0 and 3.0 (UTF-8 header) have 4 bytes.
  size_t lengthWidth = major == 1 ? 2 : 4;
  size_t headerStart = kMagicSize + 2 + lengthWidth;
  if (size < headerStart)
    return invalid(err, "truncated npy header");
  uint64_t headerSize = 0;
  for (size_t i = 0; i < lengthWidth; ++i)
    headerSize |= uint64_t(bytes[kMagicSize + 2 + i]) << (8 * i);
  if (headerSize > size - headerStart)
    return invalid(err, "truncated npy header");

  std::string_view headerText(reinterpret_cast<const char *>(bytes + headerStart), headerSize);
  std::string_view descr;
  bool fortranOrder = false;
  tc_tensor tensor{};
  HeaderParser parser(headerText);
  if (!parser.parse(descr, fortranOrder, tensor))
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "malformed npy header (%s)",
                         parser.error());
  if (!dtypeForDescr(descr, tensor.dtype))
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "unsupported npy dtype '%.*s'%s",
                         int(descr.size()), descr.data(),
                         !descr.empty() && descr[0] == '>' ? " (big-endian)" : "");
  if (fortranOrder)
    return invalid(err, "npy arrays in Fortran order are not supported");
  char shapeText[kShapeTextSize];
  formatShape(tensor, shapeText);
  int64_t expected = tc_tensor_byte_size(&tensor);
  if (expected < 0)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "npy shape %s is too large",
                         shapeText);
  size_t dataSize = size - headerStart - static_cast<size_t>(headerSize);
  if (uint64_t(expected) != dataSize)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "npy data is %zu bytes, expected %" PRId64 " for shape %s %.*s",
                         dataSize, expected, shapeText, int(descr.size()),
                         descr.data());
  tensor.data = allocateData(dataSize);
  if (tensor.data == nullptr)
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of npy data",
                         dataSize);
  if (dataSize != 0)
    std::memcpy(tensor.data, bytes + headerStart + headerSize, dataSize);
  *out = tensor;
  tc_error_clear(err);
  return TC_OK;
}

tc_status tc_npy_read(const char *path, tc_tensor *out, tc_error *err) {
  if (path == nullptr || out == nullptr)
    return invalid(err, "tc_npy_read: null argument");
  *out = tc_tensor{};
  uint8_t *bytes = nullptr;
  size_t size = 0;
  tc_status status = readFile(path, bytes, size, err);
  if (status == TC_OK)
    status = tc_npy_parse(bytes, size, out, err);
  delete[] bytes;
  if (status != TC_OK)
    tc_error_prefixf(err, "%s: ", path);
  return status;
}

tc_status tc_npy_write(const char *path, const tc_tensor *tensor, tc_error *err) {
  if (path == nullptr || tensor == nullptr)
    return invalid(err, "tc_npy_write: null argument");
  int64_t byteSize = tc_tensor_byte_size(tensor);
  if (byteSize < 0)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "%s: invalid dtype, rank or shape for an npy file", path);
  if (tensor->data == nullptr && byteSize != 0)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "%s: null data", path);

  // The header needs at most 10 + 57 + 200 + 21 + 64 bytes, so a fixed buffer avoids any
  // allocation and always fits version 1.0's u16 header length.
  char shapeText[kShapeTextSize];
  formatShape(*tensor, shapeText);
  char header[512];
  constexpr size_t kPrefixSize = kMagicSize + 2 + 2;
  std::memcpy(header, kMagic, kMagicSize);
  size_t used = kPrefixSize;
  used += size_t(std::snprintf(header + used, sizeof(header) - used,
                               "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                               tc_npy_descr(tensor->dtype), shapeText));
  // numpy >= 1.22 leaves room for the first dimension to grow to 21 digits in place; copying
  // that and its padding rule (spaces, then '\n', data 64-byte aligned) keeps our files
  // byte-identical to numpy.save's.
  constexpr size_t kGrowthDigits = 21;
  size_t padding = 0;
  if (tensor->rank > 0)
    padding += kGrowthDigits - size_t(std::snprintf(nullptr, 0, "%" PRId64, tensor->shape[0]));
  padding += kDataAlignment - (used + padding + 1) % kDataAlignment;
  std::memset(header + used, ' ', padding);
  used += padding;
  header[used++] = '\n';
  size_t headerLength = used - kPrefixSize;
  header[kMagicSize] = 1; // version 1.0
  header[kMagicSize + 1] = 0;
  header[kMagicSize + 2] = char(headerLength & 0xFF);
  header[kMagicSize + 3] = char(headerLength >> 8);

  std::FILE *file = std::fopen(path, "wb");
  if (file == nullptr)
    return tc_error_setf(err, TC_ERROR_IO, "%s: cannot write file: %s", path,
                         std::strerror(errno));
  bool written = std::fwrite(header, 1, used, file) == used &&
                 (byteSize == 0 || std::fwrite(tensor->data, 1, size_t(byteSize), file) ==
                                       size_t(byteSize));
  int savedErrno = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    savedErrno = errno;
  }
  if (written) {
    tc_error_clear(err);
    return TC_OK;
  }
  std::remove(path);
  return tc_error_setf(err, TC_ERROR_IO, "%s: cannot write file: %s", path,
                       std::strerror(savedErrno));
}

void tc_npy_free(tc_tensor *tensor) {
  if (tensor == nullptr || tensor->data == nullptr)
    return;
  ::operator delete(tensor->data, std::align_val_t(kDataAlignment));
  tensor->data = nullptr;
}

} // extern "C"
