// NumPy .npy format (numpy/lib/format.py): magic "\x93NUMPY", version, header length, then a
// Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...), } and the raw data.
#include "frontend/npy.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <utility>

#include "frontend/mapped_file.h"

namespace thunderc::frontend {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlignment = 64;

constexpr std::array<std::pair<std::string_view, int64_t>, 10> kItemSizes = {{
    {"<f4", 4}, {"<f8", 8}, {"<f2", 2}, {"<i8", 8}, {"<i4", 4},
    {"<i2", 2}, {"|i1", 1}, {"|u1", 1}, {"|b1", 1}, {"<u2", 2},
}};

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size() == 1 ? ",)" : ")");
}

/// product(shape) * itemSize, or nullopt if a dimension is negative or the product overflows.
std::optional<uint64_t> byteCount(const std::vector<int64_t> &shape, int64_t itemSize) {
  uint64_t bytes = static_cast<uint64_t>(itemSize);
  for (int64_t dim : shape) {
    if (dim < 0)
      return std::nullopt;
    if (dim != 0 && bytes > std::numeric_limits<uint64_t>::max() / static_cast<uint64_t>(dim))
      return std::nullopt;
    bytes *= static_cast<uint64_t>(dim);
  }
  return bytes;
}

/// Checks that `actualBytes` is exactly what the shape and dtype of `array` call for.
Status checkDataSize(const NpyArray &array, uint64_t actualBytes) {
  std::optional<uint64_t> expected = byteCount(array.shape, npyItemSize(array.descr));
  if (!expected)
    return invalidInput("npy shape " + formatShape(array.shape) + " is invalid or too large");
  if (*expected != actualBytes)
    return invalidInput("npy data is " + std::to_string(actualBytes) + " bytes, expected " +
                        std::to_string(*expected) + " for shape " + formatShape(array.shape) +
                        " " + array.descr);
  return Status::success();
}

/// Checks `descr` is supported, turning a single-byte one into numpy's "|" spelling.
Status canonicalizeDescr(std::string &descr) {
  if (descr.size() == 3 && std::string_view("<>=").find(descr[0]) != std::string_view::npos) {
    std::string singleByte = descr;
    singleByte[0] = '|';
    if (npyItemSize(singleByte) == 1)
      descr = singleByte;
  }
  if (npyItemSize(descr) != 0)
    return Status::success();
  if (!descr.empty() && descr[0] == '>')
    return unsupported("big-endian npy data ('" + descr + "') is not supported");
  return unsupported("unsupported npy dtype '" + descr + "'");
}

/// A cursor over the header dict text; each parse method skips leading whitespace.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : rest_(text) {}

  /// Parses the whole dict into `array` (descr, fortranOrder, shape).
  Status parse(NpyArray &array) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!consume('{'))
      return malformed("expected '{'");
    while (!consume('}')) {
      TC_ASSIGN_OR_RETURN(std::string key, parseString());
      if (!consume(':'))
        return malformed("expected ':' after '" + key + "'");
      if (key == "descr" && !std::exchange(seenDescr, true)) {
        TC_ASSIGN_OR_RETURN(array.descr, parseDescr());
      } else if (key == "fortran_order" && !std::exchange(seenOrder, true)) {
        TC_ASSIGN_OR_RETURN(array.fortranOrder, parseBool());
      } else if (key == "shape" && !std::exchange(seenShape, true)) {
        TC_ASSIGN_OR_RETURN(array.shape, parseShape());
      } else {
        return malformed("unexpected or repeated key '" + key + "'");
      }
      if (!consume(',') && !peek('}'))
        return malformed("expected ',' or '}'");
    }
    skipSpace();
    if (!rest_.empty())
      return malformed("unexpected text after the dict");
    if (!seenDescr || !seenOrder || !seenShape)
      return malformed("missing 'descr', 'fortran_order' or 'shape'");
    return Status::success();
  }

private:
  static Error malformed(const std::string &what) {
    return invalidInput("malformed npy header (" + what + ")");
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
    if (!rest_.starts_with(word))
      return false;
    rest_.remove_prefix(word.size());
    return true;
  }

  /// A Python string literal in single or double quotes, without escapes.
  Expected<std::string> parseString() {
    skipSpace();
    if (rest_.empty() || (rest_[0] != '\'' && rest_[0] != '"'))
      return malformed("expected a string");
    size_t close = rest_.find(rest_[0], 1);
    if (close == std::string_view::npos || rest_.substr(1, close - 1).find('\\') != rest_.npos)
      return malformed("bad string");
    std::string text(rest_.substr(1, close - 1));
    rest_.remove_prefix(close + 1);
    return text;
  }

  Expected<std::string> parseDescr() {
    if (peek('['))
      return unsupported("structured npy dtypes are not supported");
    return parseString();
  }

  Expected<bool> parseBool() {
    if (consumeWord("True"))
      return true;
    if (consumeWord("False"))
      return false;
    return malformed("expected True or False");
  }

  /// A tuple of non-negative integers: "()", "(3,)", "(2, 3)", with an optional trailing comma
  /// and the "L" suffix that Python 2 wrote.
  Expected<std::vector<int64_t>> parseShape() {
    std::vector<int64_t> shape;
    if (!consume('('))
      return malformed("expected a shape tuple");
    while (!consume(')')) {
      TC_ASSIGN_OR_RETURN(int64_t dim, parseDim());
      shape.push_back(dim);
      if (!consume(',') && !peek(')'))
        return malformed("expected ',' or ')' in shape");
    }
    return shape;
  }

  Expected<int64_t> parseDim() {
    skipSpace();
    if (rest_.empty() || rest_[0] < '0' || rest_[0] > '9')
      return malformed("expected a dimension");
    int64_t value = 0;
    for (; !rest_.empty() && rest_[0] >= '0' && rest_[0] <= '9'; rest_.remove_prefix(1)) {
      int digit = rest_[0] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return malformed("dimension too large");
      value = value * 10 + digit;
    }
    if (!rest_.empty() && rest_[0] == 'L')
      rest_.remove_prefix(1);
    return value;
  }

  std::string_view rest_;
};

uint32_t loadLittle(std::span<const uint8_t> bytes, size_t at, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= uint32_t(bytes[at + i]) << (8 * i);
  return value;
}

} // namespace

int64_t npyItemSize(std::string_view descr) {
  for (const auto &[name, size] : kItemSizes)
    if (name == descr)
      return size;
  return 0;
}

Expected<NpyArray> parseNpy(std::span<const uint8_t> bytes) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0)
    return invalidInput("not an npy file (bad magic)");
  uint8_t major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3)
    return unsupported("npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " is not supported");
  // Version 1.0 has a 2-byte header length; 2.0 and 3.0 (UTF-8 header) have 4 bytes.
  size_t lengthWidth = major == 1 ? 2 : 4;
  size_t headerStart = 8 + lengthWidth;
  if (bytes.size() < headerStart)
    return invalidInput("truncated npy header");
  uint64_t headerSize = loadLittle(bytes, 8, lengthWidth);
  if (headerSize > bytes.size() - headerStart)
    return invalidInput("truncated npy header");

  NpyArray array;
  std::string_view header(reinterpret_cast<const char *>(bytes.data() + headerStart), headerSize);
  TC_TRY(HeaderParser(header).parse(array));
  TC_TRY(canonicalizeDescr(array.descr));
  if (array.fortranOrder)
    return unsupported("npy arrays in Fortran order are not supported");
  std::span<const uint8_t> data = bytes.subspan(headerStart + headerSize);
  TC_TRY(checkDataSize(array, data.size()));
  array.data.assign(data.begin(), data.end());
  return array;
}

Expected<NpyArray> readNpy(const std::string &path) {
  TC_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  return parseNpy({file.data(), file.size()});
}

Expected<std::vector<uint8_t>> encodeNpy(const NpyArray &array) {
  if (npyItemSize(array.descr) == 0)
    return unsupported("unsupported npy dtype '" + array.descr + "'");
  if (array.fortranOrder)
    return unsupported("npy arrays in Fortran order are not supported");
  TC_TRY(checkDataSize(array, array.data.size()));

  std::string header = "{'descr': '" + array.descr +
                       "', 'fortran_order': False, 'shape': " + formatShape(array.shape) + ", }";
  // numpy >= 1.22 leaves room for the first dimension to grow to 21 digits in place; copying
  // that and its padding rule (spaces, then '\n', data 64-byte aligned) keeps our files
  // byte-identical to numpy.save's.
  constexpr size_t kGrowthDigits = 21;
  if (!array.shape.empty())
    header.append(kGrowthDigits - std::to_string(array.shape[0]).size(), ' ');
  size_t prefixSize = kMagic.size() + 2 + 2;
  size_t padding = kAlignment - (prefixSize + header.size() + 1) % kAlignment;
  header.append(padding, ' ');
  header += '\n';
  if (header.size() > 0xFFFF)
    return invalidInput("npy header for shape " + formatShape(array.shape) + " is too long");

  std::string prefix(kMagic);
  prefix += {'\x01', '\x00', char(header.size() & 0xFF), char(header.size() >> 8)};
  std::vector<uint8_t> bytes(prefix.size() + header.size() + array.data.size());
  std::memcpy(bytes.data(), prefix.data(), prefix.size());
  std::memcpy(bytes.data() + prefix.size(), header.data(), header.size());
  std::copy(array.data.begin(), array.data.end(), bytes.begin() + prefix.size() + header.size());
  return bytes;
}

Status writeNpy(const std::string &path, const NpyArray &array) {
  TC_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, encodeNpy(array));
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (file == nullptr)
    return ioError(std::string("cannot write file: ") + std::strerror(errno));
  bool written = std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  int savedErrno = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    savedErrno = errno;
  }
  if (!written)
    return ioError(std::string("cannot write file: ") + std::strerror(savedErrno));
  return Status::success();
}

} // namespace thunderc::frontend
