// Tests for runtime/weights and codegen/weights_writer: a written file opens and serves its
// tensors, and every kind of damage (truncation, flipped bytes, bad fields, duplicates, missing
// files) is the documented status with a message naming the file and tensor, never a crash.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/crc32.h"
#include "runtime/weights.h"
#include "runtime/weights_format.h"
#include "codegen/weights_writer.h"

using namespace thunderc::runtime;
using thunderc::codegen::WeightsWriter;
namespace format = thunderc::runtime::weights_format;

namespace {

/// A fresh directory under the system temp dir, removed at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tc_weights_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string &name) const { return (path / name).string(); }
};

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  REQUIRE(stream.good());
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream stream(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
}

/// The tensors of the sample file, in file order.
struct SampleTensor {
  std::string name;
  tc_dtype dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

std::vector<SampleTensor> sampleTensors() {
  std::vector<SampleTensor> tensors = {
      {"fc1.weight", TC_DTYPE_F32, {4, 3}, std::vector<uint8_t>(48)},
      {"fc1.bias", TC_DTYPE_F32, {4}, std::vector<uint8_t>(16)},
      {"step", TC_DTYPE_I64, {}, std::vector<uint8_t>(8)},
      {"empty", TC_DTYPE_F16, {0, 5}, {}},
      {"mask", TC_DTYPE_BOOL, {3}, {1, 0, 1}},
  };
  for (size_t t = 0; t < 3; ++t)
    for (size_t i = 0; i < tensors[t].bytes.size(); ++i)
      tensors[t].bytes[i] = uint8_t(i * 7 + t + 1);
  return tensors;
}

WeightsWriter sampleWriter() {
  WeightsWriter writer;
  for (const SampleTensor &tensor : sampleTensors()) {
    std::string error;
    REQUIRE_MESSAGE(writer.add(tensor.name, tensor.dtype, tensor.shape, tensor.bytes.data(),
                               tensor.bytes.size(), &error),
                    error);
  }
  return writer;
}

/// Opens `path`, expecting failure with `status`; returns the message.
std::string openError(const std::string &path, tc_status status) {
  tc_weights *weights = reinterpret_cast<tc_weights *>(1); // must be reset to null
  tc_error err;
  CHECK(tc_weights_open(path.c_str(), &weights, &err) == status);
  CHECK(err.status == status);
  CHECK(weights == nullptr);
  return err.message;
}

/// Recomputes the table and header checksums of a file image after a test edits its fields,
/// so that the reader reaches the check under test.
void fixChecksums(std::vector<uint8_t> &bytes) {
  format::Header header = format::decodeHeader(bytes.data());
  // Tests set absurd offsets and sizes; those files fail before the table checksum matters.
  if (header.tableOffset <= bytes.size() && header.tableSize <= bytes.size() - header.tableOffset)
    header.tableCrc32 = crc32(bytes.data() + header.tableOffset, header.tableSize);
  format::encodeHeader(header, bytes.data());
  header.headerCrc32 = crc32(bytes.data(), format::kHeaderCrcOffset);
  format::encodeHeader(header, bytes.data());
}

/// Edits the header of `bytes` and fixes the checksums.
void editHeader(std::vector<uint8_t> &bytes, const std::function<void(format::Header &)> &edit) {
  format::Header header = format::decodeHeader(bytes.data());
  edit(header);
  format::encodeHeader(header, bytes.data());
  fixChecksums(bytes);
}

/// Edits table entry `index` of `bytes` and fixes the checksums.
void editEntry(std::vector<uint8_t> &bytes, size_t index,
               const std::function<void(format::Entry &)> &edit) {
  uint8_t *at = bytes.data() + format::kHeaderSize + index * format::kEntrySize;
  format::Entry entry = format::decodeEntry(at);
  edit(entry);
  format::encodeEntry(entry, at);
  fixChecksums(bytes);
}

format::Entry entryOf(const std::vector<uint8_t> &bytes, size_t index) {
  return format::decodeEntry(bytes.data() + format::kHeaderSize + index * format::kEntrySize);
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("runtime crc32 matches zlib") {
  // Python: zlib.crc32(b'123456789'), zlib.crc32(bytes(range(256)) * 3)
  CHECK(crc32("123456789", 9) == 0xCBF43926u);
  CHECK(crc32(nullptr, 0) == 0u);
  std::vector<uint8_t> bytes;
  for (int repeat = 0; repeat < 3; ++repeat)
    for (int i = 0; i < 256; ++i)
      bytes.push_back(uint8_t(i));
  CHECK(crc32(bytes.data(), bytes.size()) == 0xB0C0DF2Au);
  // Continuing over pieces, including pieces shorter than the 8-byte fast path.
  uint32_t pieces = crc32(bytes.data(), 3);
  pieces = crc32(bytes.data() + 3, 400, pieces);
  pieces = crc32(bytes.data() + 403, bytes.size() - 403, pieces);
  CHECK(pieces == 0xB0C0DF2Au);
}

TEST_CASE("runtime weights: written file opens and serves every tensor") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  WeightsWriter writer = sampleWriter();
  std::string error;
  REQUIRE_MESSAGE(writer.write(path, &error), error);
  // Deterministic: streaming write, in-memory encode and a second writer agree byte for byte.
  CHECK(readBytes(path) == writer.encode());
  CHECK(sampleWriter().encode() == writer.encode());
  // Borrowed tensors (the compiler's weights, streamed from the archive) give the same file,
  // and so does a copy of a copying writer (its tensors are its own).
  std::vector<SampleTensor> kept = sampleTensors();
  WeightsWriter borrowing;
  for (const SampleTensor &tensor : kept)
    REQUIRE(borrowing.addBorrowed(tensor.name, tensor.dtype, tensor.shape, tensor.bytes.data(),
                                  tensor.bytes.size()));
  CHECK(borrowing.encode() == writer.encode());
  WeightsWriter copied = sampleWriter();
  WeightsWriter copy = copied;
  copied = WeightsWriter();
  CHECK(copy.encode() == writer.encode());

  tc_weights *weights = nullptr;
  tc_error err;
  REQUIRE_MESSAGE(tc_weights_open(path.c_str(), &weights, &err) == TC_OK, err.message);
  CHECK(err.status == TC_OK);
  CHECK(std::string(err.message).empty());
  std::vector<SampleTensor> expected = sampleTensors();
  REQUIRE(tc_weights_count(weights) == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(expected[i].name);
    tc_tensor view;
    REQUIRE(tc_weights_find(weights, expected[i].name.c_str(), &view, &err) == TC_OK);
    CHECK(view.dtype == expected[i].dtype);
    REQUIRE(view.rank == int32_t(expected[i].shape.size()));
    CHECK(std::vector<int64_t>(view.shape, view.shape + view.rank) == expected[i].shape);
    if (expected[i].bytes.empty()) {
      CHECK(view.data == nullptr);
    } else {
      CHECK(reinterpret_cast<uintptr_t>(view.data) % 64 == 0);
      CHECK(std::memcmp(view.data, expected[i].bytes.data(), expected[i].bytes.size()) == 0);
    }
    const char *name = nullptr;
    tc_tensor byIndex;
    REQUIRE(tc_weights_get(weights, i, &name, &byIndex, &err) == TC_OK);
    CHECK(std::string(name) == expected[i].name);
    CHECK(byIndex.data == view.data);
  }

  tc_tensor view;
  CHECK(tc_weights_find(weights, "fc2.weight", &view, &err) == TC_ERROR_CORRUPT_WEIGHTS);
  CHECK(std::string(err.message) == path + ": no tensor named 'fc2.weight'");
  const char *name = nullptr;
  CHECK(tc_weights_get(weights, expected.size(), &name, &view, &err) ==
        TC_ERROR_INVALID_ARGUMENT);
  CHECK(tc_weights_find(weights, nullptr, &view, nullptr) == TC_ERROR_INVALID_ARGUMENT);

  int64_t shape[] = {4, 3};
  CHECK(tc_weights_find_expected(weights, "fc1.weight", TC_DTYPE_F32, 2, shape, &view, &err) ==
        TC_OK);
  CHECK(tc_weights_find_expected(weights, "fc1.weight", TC_DTYPE_F16, 2, shape, &view, &err) ==
        TC_ERROR_DTYPE_MISMATCH);
  CHECK(std::string(err.message) == path + ": tensor 'fc1.weight': dtype f32, expected f16");
  int64_t transposed[] = {3, 4};
  CHECK(tc_weights_find_expected(weights, "fc1.weight", TC_DTYPE_F32, 2, transposed, &view,
                                 &err) == TC_ERROR_SHAPE_MISMATCH);
  CHECK(std::string(err.message) ==
        path + ": tensor 'fc1.weight': shape [4, 3], expected [3, 4]");
  CHECK(tc_weights_find_expected(weights, "step", TC_DTYPE_I64, 0, nullptr, &view, &err) ==
        TC_OK);
  tc_weights_close(weights);
  tc_weights_close(nullptr);
}

TEST_CASE("runtime weights: a file without tensors is valid") {
  TempDir dir;
  std::string path = dir.file("empty.bin");
  REQUIRE(WeightsWriter().write(path));
  CHECK(readBytes(path).size() == format::kHeaderSize);
  tc_weights *weights = nullptr;
  REQUIRE(tc_weights_open(path.c_str(), &weights, nullptr) == TC_OK);
  CHECK(tc_weights_count(weights) == 0);
  tc_tensor view;
  CHECK(tc_weights_find(weights, "x", &view, nullptr) == TC_ERROR_CORRUPT_WEIGHTS);
  tc_weights_close(weights);
}

TEST_CASE("runtime weights: every truncation of a valid file is rejected") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  std::vector<uint8_t> bytes = sampleWriter().encode();
  for (size_t size = 0; size < bytes.size(); ++size) {
    CAPTURE(size);
    writeBytes(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(size)));
    std::string message = openError(path, TC_ERROR_CORRUPT_WEIGHTS);
    CHECK(message.rfind(path + ": ", 0) == 0);
    if (size < format::kHeaderSize)
      CHECK(contains(message, "too small for the 64-byte header"));
    else
      CHECK(contains(message, "but its header records " + std::to_string(bytes.size())));
  }
}

TEST_CASE("runtime weights: every flipped byte of a valid file is rejected") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  std::vector<uint8_t> bytes = sampleWriter().encode();
  for (size_t at = 0; at < bytes.size(); ++at) {
    CAPTURE(at);
    std::vector<uint8_t> damaged = bytes;
    damaged[at] ^= 0x10;
    writeBytes(path, damaged);
    CHECK(!openError(path, TC_ERROR_CORRUPT_WEIGHTS).empty());
  }
}

TEST_CASE("runtime weights: a flipped data byte is a checksum error naming the tensor") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  std::vector<uint8_t> bytes = sampleWriter().encode();
  format::Entry bias = entryOf(bytes, 1);
  bytes[bias.dataOffset + 5] ^= 0x01;
  writeBytes(path, bytes);
  char expected[200];
  std::snprintf(expected, sizeof(expected),
                ": tensor 'fc1.bias': checksum mismatch (stored 0x%08x, computed 0x%08x)",
                unsigned(bias.dataCrc32),
                unsigned(crc32(bytes.data() + bias.dataOffset, bias.byteSize)));
  CHECK(openError(path, TC_ERROR_CORRUPT_WEIGHTS) == path + expected);
}

TEST_CASE("runtime weights: bad header fields") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  const std::vector<uint8_t> valid = sampleWriter().encode();
  auto rejectHeader = [&](const std::function<void(format::Header &)> &edit) {
    std::vector<uint8_t> bytes = valid;
    editHeader(bytes, edit);
    writeBytes(path, bytes);
    return openError(path, TC_ERROR_CORRUPT_WEIGHTS);
  };

  std::vector<uint8_t> bytes = valid;
  bytes[0] = 'X';
  writeBytes(path, bytes);
  CHECK(openError(path, TC_ERROR_CORRUPT_WEIGHTS) ==
        path + ": bad magic (not a thunderc weights file)");
  // The version is checked before the header checksum, so a newer file reports its version.
  bytes = valid;
  bytes[8] = 2;
  writeBytes(path, bytes);
  CHECK(openError(path, TC_ERROR_CORRUPT_WEIGHTS) ==
        path + ": unsupported format version 2 (this runtime reads version 1)");
  CHECK(contains(rejectHeader([](format::Header &h) { h.version = 0; }),
                 "unsupported format version 0"));
  bytes = valid;
  bytes[16] ^= 1; // table offset, checksum not fixed
  writeBytes(path, bytes);
  CHECK(contains(openError(path, TC_ERROR_CORRUPT_WEIGHTS), "header checksum mismatch"));
  bytes = valid;
  bytes[format::kHeaderSize + 200] ^= 1; // table byte, table checksum not fixed
  writeBytes(path, bytes);
  CHECK(contains(openError(path, TC_ERROR_CORRUPT_WEIGHTS), "table checksum mismatch"));

  CHECK(contains(rejectHeader([](format::Header &h) { h.fileSize += 64; }),
                 "but its header records"));
  CHECK(contains(rejectHeader([](format::Header &h) { h.tableOffset = 128; }),
                 "table offset 128 is not 64"));
  // Sizes chosen so that a naive offset + size would wrap around 2^64.
  CHECK(contains(rejectHeader([](format::Header &h) { h.tableSize = UINT64_MAX - 10; }),
                 "extends past the end of the file"));
  CHECK(contains(rejectHeader([](format::Header &h) { h.tensorCount = UINT32_MAX; }),
                 "cannot hold 4294967295 entries"));
  CHECK(contains(rejectHeader([](format::Header &h) { h.dataOffset += 1; }), "misaligned"));
  CHECK(contains(rejectHeader([](format::Header &h) { h.dataOffset = UINT64_MAX - 63; }),
                 "misaligned or outside"));
  CHECK(contains(rejectHeader([](format::Header &h) { h.dataOffset = 64; }),
                 "misaligned or outside"));
}

TEST_CASE("runtime weights: bad table entries") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  const std::vector<uint8_t> valid = sampleWriter().encode();
  auto rejectEntry = [&](size_t index, const std::function<void(format::Entry &)> &edit) {
    std::vector<uint8_t> bytes = valid;
    editEntry(bytes, index, edit);
    writeBytes(path, bytes);
    return openError(path, TC_ERROR_CORRUPT_WEIGHTS);
  };
  std::string fc1 = path + ": tensor 'fc1.weight': ";

  CHECK(rejectEntry(0, [](format::Entry &e) { e.dtype = TC_DTYPE_COUNT; }) ==
        fc1 + "invalid dtype 10");
  CHECK(rejectEntry(0, [](format::Entry &e) { e.rank = 9; }) == fc1 + "rank 9 exceeds 8");
  CHECK(rejectEntry(0, [](format::Entry &e) { e.shape[1] = -3; }) ==
        fc1 + "invalid dim 1 of rank-2 shape: -3");
  CHECK(rejectEntry(0, [](format::Entry &e) { e.shape[2] = 1; }) ==
        fc1 + "invalid dim 2 of rank-2 shape: 1");
  CHECK(rejectEntry(0, [](format::Entry &e) { e.byteSize = 44; }) ==
        fc1 + "byte size 44, expected 48 for f32 [4, 3]");
  // product(shape) * 4 overflows int64.
  CHECK(rejectEntry(0, [](format::Entry &e) {
          e.shape[0] = int64_t(1) << 40;
          e.shape[1] = int64_t(1) << 40;
        }) == fc1 + "shape [1099511627776, 1099511627776] is too large");
  CHECK(rejectEntry(0, [](format::Entry &e) { e.dataOffset += 4; }) ==
        fc1 + "data offset " + std::to_string(entryOf(valid, 0).dataOffset + 4) +
            " is not 64-byte aligned");
  // Consistent shape and size, but the data would lie far past the end (offset + size wraps).
  CHECK(contains(rejectEntry(0,
                             [](format::Entry &e) {
                               e.shape[0] = int64_t(1) << 60;
                               e.shape[1] = 1;
                               e.dtype = TC_DTYPE_U8;
                               e.byteSize = uint64_t(1) << 60;
                               e.dataOffset = UINT64_MAX - 63;
                             }),
                 "extends past the end of the file"));
  CHECK(contains(rejectEntry(4, [](format::Entry &e) { e.dataOffset += 64; }),
                 "tensor 'mask': data at offset"));
  uint64_t firstOffset = entryOf(valid, 0).dataOffset;
  CHECK(contains(rejectEntry(1, [&](format::Entry &e) { e.dataOffset = firstOffset; }),
                 "tensor 'fc1.bias': data at offset " + std::to_string(firstOffset) +
                     " overlaps the header, table or previous tensor"));
  CHECK(contains(rejectEntry(0, [](format::Entry &e) { e.dataOffset = 0; }),
                 "overlaps the header, table or previous tensor"));

  CHECK(contains(rejectEntry(2, [](format::Entry &e) { e.nameLength = 0; }),
                 "tensor #2: name at"));
  CHECK(contains(rejectEntry(2, [](format::Entry &e) { e.nameOffset = 0; }),
                 "outside the name pool"));
  CHECK(contains(rejectEntry(2, [](format::Entry &e) { e.nameOffset = UINT32_MAX; }),
                 "outside the name pool"));
  // "step" is followed by "\0empty": a longer length swallows the NUL.
  CHECK(contains(rejectEntry(2, [](format::Entry &e) { e.nameLength += 2; }),
                 "tensor #2: name is not a NUL-terminated string"));
  CHECK(contains(rejectEntry(2, [](format::Entry &e) { e.nameLength -= 1; }),
                 "tensor #2: name is not a NUL-terminated string"));
}

TEST_CASE("runtime weights: nonzero padding is rejected") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  std::vector<uint8_t> bytes = sampleWriter().encode();
  format::Entry bias = entryOf(bytes, 1);
  bytes[bias.dataOffset - 1] = 0xFF; // padding after fc1.weight
  writeBytes(path, bytes);
  CHECK(contains(openError(path, TC_ERROR_CORRUPT_WEIGHTS),
                 "tensor 'fc1.bias': padding before its data"));
}

TEST_CASE("runtime weights: duplicate names are rejected") {
  TempDir dir;
  std::string path = dir.file("weights.bin");
  WeightsWriter writer;
  float value = 1.0f;
  REQUIRE(writer.add("a.x", TC_DTYPE_F32, {1}, &value, 4));
  REQUIRE(writer.add("b.y", TC_DTYPE_F32, {1}, &value, 4));
  REQUIRE(writer.add("a.y", TC_DTYPE_F32, {1}, &value, 4));
  std::vector<uint8_t> bytes = writer.encode();
  format::Entry second = entryOf(bytes, 1);
  bytes[format::kHeaderSize + second.nameOffset] = 'a'; // "b.y" -> "a.y"
  fixChecksums(bytes);
  writeBytes(path, bytes);
  CHECK(openError(path, TC_ERROR_CORRUPT_WEIGHTS) ==
        path + ": tensor 'a.y': duplicate name (entries #1 and #2)");
}

TEST_CASE("runtime weights: missing files and bad arguments") {
  TempDir dir;
  std::string missing = dir.file("missing.bin");
  CHECK(openError(missing, TC_ERROR_IO) ==
        missing + ": cannot open file: No such file or directory");
  CHECK(openError(dir.path.string(), TC_ERROR_IO) ==
        dir.path.string() + ": not a regular file");
  tc_weights *weights = nullptr;
  tc_error err;
  CHECK(tc_weights_open(nullptr, &weights, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(tc_weights_open(missing.c_str(), nullptr, nullptr) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(tc_weights_open(missing.c_str(), &weights, nullptr) == TC_ERROR_IO);
  CHECK(tc_weights_count(nullptr) == 0);
}

TEST_CASE("runtime weights writer: invalid tensors and unwritable paths") {
  WeightsWriter writer;
  std::string error;
  float values[4] = {};
  CHECK(writer.add("w", TC_DTYPE_F32, {2, 2}, values, sizeof(values), &error));
  CHECK_FALSE(writer.add("w", TC_DTYPE_F32, {2, 2}, values, sizeof(values), &error));
  CHECK(error == "weights: tensor 'w': added twice");
  CHECK_FALSE(writer.add("", TC_DTYPE_F32, {2, 2}, values, sizeof(values), &error));
  CHECK_FALSE(writer.add(std::string("a\0b", 3), TC_DTYPE_F32, {1}, values, 4, &error));
  CHECK_FALSE(writer.add("v", TC_DTYPE_F32, {2, 2}, values, 12, &error));
  CHECK(error == "weights: tensor 'v': 12 bytes given, expected 16");
  CHECK_FALSE(writer.add("v", TC_DTYPE_F32, {-1}, values, 4, &error));
  CHECK_FALSE(writer.add("v", tc_dtype(42), {1}, values, 4, &error));
  CHECK_FALSE(writer.add("v", TC_DTYPE_U8, std::vector<int64_t>(9, 1), values, 1, &error));
  CHECK_FALSE(writer.add("v", TC_DTYPE_F32, {1}, nullptr, 4, &error));
  CHECK(writer.size() == 1);

  TempDir dir;
  std::string path = dir.file("no/such/dir/weights.bin");
  CHECK_FALSE(writer.write(path, &error));
  CHECK(error == path + ": cannot write file: No such file or directory");
}
