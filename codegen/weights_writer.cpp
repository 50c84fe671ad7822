// WeightsWriter: lays out header, table, name pool and 64-byte-aligned tensor data exactly as
// weights_format.h describes, so that tc_weights_open accepts the result.
#include "codegen/weights_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "crc32.h"
#include "weights_format.h"

namespace thunderc::codegen {

namespace format = runtime::weights_format;
using runtime::crc32;

namespace {

bool setError(std::string *error, const std::string &message) {
  if (error != nullptr)
    *error = message;
  return false;
}

/// The table's entries and names fit the format's u32 name offsets.
constexpr uint64_t kMaxTableSize = uint64_t(1) << 32;

/// Calls `emit(bytes, size)` for each piece of the file image after the header and table:
/// every tensor preceded by the zero padding that aligns it. Stops at the first failure.
template <typename Tensors, typename Emit>
bool emitData(const Tensors &tensors, uint64_t dataOffset, Emit emit) {
  static const uint8_t kZeros[format::kAlignment] = {};
  uint64_t position = dataOffset;
  for (const auto &tensor : tensors) {
    uint64_t padding = format::alignUp(position) - position;
    if (padding != 0 && !emit(kZeros, padding))
      return false;
    if (tensor.byteSize != 0 && !emit(tensor.data(), tensor.byteSize))
      return false;
    position += padding + tensor.byteSize;
  }
  return true;
}

} // namespace

bool WeightsWriter::add(const std::string &name, tc_dtype dtype,
                        const std::vector<int64_t> &shape, const void *data, size_t byteSize,
                        std::string *error) {
  return addTensor(name, dtype, shape, data, byteSize, /*copy=*/true, error);
}

bool WeightsWriter::addBorrowed(const std::string &name, tc_dtype dtype,
                                const std::vector<int64_t> &shape, const void *data,
                                size_t byteSize, std::string *error) {
  return addTensor(name, dtype, shape, data, byteSize, /*copy=*/false, error);
}

bool WeightsWriter::addOwned(const std::string &name, tc_dtype dtype,
                             const std::vector<int64_t> &shape, std::vector<uint8_t> bytes,
                             std::string *error) {
  const void *data = bytes.data();
  const size_t size = bytes.size();
  return addTensor(name, dtype, shape, data, size, /*copy=*/true, error, &bytes);
}

bool WeightsWriter::addTensor(const std::string &name, tc_dtype dtype,
                              const std::vector<int64_t> &shape, const void *data,
                              size_t byteSize, bool copy, std::string *error,
                              std::vector<uint8_t> *takeOver) {
  std::string context = "weights: tensor '" + name + "': ";
  if (name.empty() || name.find('\0') != std::string::npos)
    return setError(error, context + "name is empty or contains a NUL");
  if (names_.count(name) != 0)
    return setError(error, context + "added twice");
  if (shape.size() > TC_MAX_RANK)
    return setError(error, context + "rank " + std::to_string(shape.size()) + " exceeds " +
                               std::to_string(TC_MAX_RANK));
  tc_tensor view{};
  view.dtype = dtype;
  view.rank = static_cast<int32_t>(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    view.shape[i] = shape[i];
  int64_t expected = tc_tensor_byte_size(&view);
  if (expected < 0)
    return setError(error, context + "invalid dtype, negative dim or size overflow");
  if (uint64_t(expected) != byteSize)
    return setError(error, context + std::to_string(byteSize) + " bytes given, expected " +
                               std::to_string(expected));
  if (data == nullptr && byteSize != 0)
    return setError(error, context + "null data");
  uint64_t entryAndName = format::kEntrySize + name.size() + 1;
  if (tableSize_ + entryAndName >= kMaxTableSize)
    return setError(error, context + "the table of names would exceed 4 GiB");

  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  Tensor tensor{name, dtype, shape, {}, copy ? nullptr : bytes, byteSize, crc32(data, byteSize)};
  if (takeOver != nullptr)
    tensor.owned = std::move(*takeOver);
  else if (copy)
    tensor.owned.assign(bytes, bytes + byteSize);
  tensors_.push_back(std::move(tensor));
  names_.insert(name);
  tableSize_ += entryAndName;
  return true;
}

uint64_t WeightsWriter::digest() const {
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](const void *data, size_t size) {
    const auto *bytes = static_cast<const uint8_t *>(data);
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ bytes[i]) * 1099511628211ull;
  };
  for (const Tensor &tensor : tensors_) {
    mix(tensor.name.c_str(), tensor.name.size() + 1);
    const uint32_t dtype = static_cast<uint32_t>(tensor.dtype);
    mix(&dtype, sizeof dtype);
    for (int64_t dim : tensor.shape)
      mix(&dim, sizeof dim);
    mix(&tensor.crc32, sizeof tensor.crc32);
  }
  return hash;
}

std::vector<uint8_t> WeightsWriter::encodeHeaderAndTable() const {
  format::Header header;
  header.tensorCount = static_cast<uint32_t>(tensors_.size());
  header.tableOffset = format::kHeaderSize;
  header.tableSize = tableSize_;
  header.dataOffset = format::alignUp(header.tableOffset + header.tableSize);

  std::vector<uint8_t> image(header.tableOffset + header.tableSize);
  uint8_t *table = image.data() + header.tableOffset;
  uint64_t nameOffset = tensors_.size() * format::kEntrySize;
  uint64_t dataOffset = header.dataOffset;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor &tensor = tensors_[i];
    format::Entry entry;
    entry.nameOffset = static_cast<uint32_t>(nameOffset);
    entry.nameLength = static_cast<uint32_t>(tensor.name.size());
    entry.dtype = static_cast<uint32_t>(tensor.dtype);
    entry.rank = static_cast<uint32_t>(tensor.shape.size());
    for (size_t d = 0; d < tensor.shape.size(); ++d)
      entry.shape[d] = tensor.shape[d];
    dataOffset = format::alignUp(dataOffset);
    entry.dataOffset = dataOffset;
    entry.byteSize = tensor.byteSize;
    entry.dataCrc32 = tensor.crc32;
    format::encodeEntry(entry, table + i * format::kEntrySize);
    std::memcpy(table + nameOffset, tensor.name.c_str(), tensor.name.size() + 1);
    nameOffset += tensor.name.size() + 1;
    dataOffset += entry.byteSize;
  }
  header.fileSize = dataOffset;
  header.tableCrc32 = crc32(table, header.tableSize);
  format::encodeHeader(header, image.data());
  header.headerCrc32 = crc32(image.data(), format::kHeaderCrcOffset);
  format::encodeHeader(header, image.data());
  return image;
}

std::vector<uint8_t> WeightsWriter::encode() const {
  std::vector<uint8_t> image = encodeHeaderAndTable();
  uint64_t dataOffset = format::alignUp(image.size());
  image.resize(dataOffset, 0);
  emitData(tensors_, dataOffset, [&image](const void *bytes, size_t size) {
    const uint8_t *begin = static_cast<const uint8_t *>(bytes);
    image.insert(image.end(), begin, begin + size);
    return true;
  });
  return image;
}

bool WeightsWriter::write(const std::string &path, std::string *error) const {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (file == nullptr)
    return setError(error, path + ": cannot write file: " + std::strerror(errno));
  std::vector<uint8_t> image = encodeHeaderAndTable();
  uint64_t dataOffset = format::alignUp(image.size());
  image.resize(dataOffset, 0);
  auto emit = [file](const void *bytes, size_t size) {
    return std::fwrite(bytes, 1, size, file) == size;
  };
  bool written = emit(image.data(), image.size()) && emitData(tensors_, dataOffset, emit);
  int savedErrno = errno;
  if (std::fclose(file) != 0 && written) {
    written = false;
    savedErrno = errno;
  }
  if (written)
    return true;
  std::remove(path.c_str());
  return setError(error, path + ": cannot write file: " + std::strerror(savedErrno));
}

} // namespace thunderc::codegen
