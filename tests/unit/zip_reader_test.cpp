// Tests for frontend/pt2/zip_reader and frontend/pt2/mapped_file. Archives are built in memory by a tiny
// writer that mimics PyTorchStreamWriter (docs/PT2_FORMAT.md §1.2), then damaged on purpose.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/crc32.h"
#include "frontend/pt2/mapped_file.h"
#include "frontend/pt2/zip_reader.h"
#include "tests/support/test_zip.h"

using namespace thunderc;
using namespace thunderc::frontend;
using namespace thunderc::testing;

namespace {

std::vector<TestMember> sampleMembers() {
  return {{"tiny/data/weights/weight_0", std::string(48, '\x7f')},
          {"tiny/archive_format", "pt2"},
          {"tiny/.data/version", "6\n"},
          {"tiny/data/weights/weight_1", ""}};
}

std::string errorOf(const Expected<ZipArchive> &archive) {
  REQUIRE_FALSE(archive.ok());
  return archive.error().message();
}

/// Checks the archive reads back exactly `members`.
void checkMembers(const ZipArchive &archive, const std::vector<TestMember> &members) {
  REQUIRE(archive.entries().size() == members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    const ZipEntry &entry = archive.entries()[i];
    CHECK(entry.name == members[i].name);
    CHECK(entry.size == members[i].data.size());
    CHECK(entry.compressedSize == members[i].data.size());
    CHECK(entry.offset % 64 == 0);
    CHECK(entry.crc32 == crcOf(members[i].data));
    CHECK(archive.find(members[i].name) == &entry);
    Expected<std::string> text = archive.readText(members[i].name, /*verifyCrc=*/true);
    REQUIRE(text.ok());
    CHECK(*text == members[i].data);
  }
}

/// A path under the temp directory that is removed when the object goes away.
struct TempPath {
  explicit TempPath(const std::string &stem)
      : path((std::filesystem::temp_directory_path() /
              (stem + "." + std::to_string(::getpid()) + ".tmp"))
                 .string()) {}
  ~TempPath() { std::filesystem::remove(path); }
  std::string path;
};

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  if (!bytes.empty())
    REQUIRE(std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size());
  REQUIRE(std::fclose(file) == 0);
}

} // namespace

TEST_CASE("zip: reads a PyTorch-style archive zero-copy at 64-byte aligned offsets") {
  std::vector<TestMember> members = sampleMembers();
  TestZip zip = buildZip(members);
  Expected<ZipArchive> archive = ZipArchive::fromBuffer(zip.bytes);
  REQUIRE(archive.ok());
  checkMembers(*archive, members);
  CHECK(archive->topFolder() == "tiny");
  CHECK(archive->find("tiny/missing") == nullptr);
  CHECK(archive->find("tiny") == nullptr);

  // The data span points at the bytes after the local header's padded extra field.
  const ZipEntry &weight = archive->entries()[0];
  Expected<std::span<const uint8_t>> data = archive->read(weight);
  REQUIRE(data.ok());
  CHECK(data->size() == 48);
  CHECK(weight.offset == 64);
  CHECK((*data)[0] == 0x7f);
}

TEST_CASE("zip: plain 32-bit end record, with a trailing comment") {
  std::vector<TestMember> members = sampleMembers();
  TestZipOptions options;
  options.zip64End = false;
  options.comment = "a comment with PK inside";
  Expected<ZipArchive> archive = ZipArchive::fromBuffer(buildZip(members, options).bytes);
  REQUIRE(archive.ok());
  checkMembers(*archive, members);
}

TEST_CASE("zip: ZIP64 extra fields widen whichever 32-bit fields are saturated") {
  std::vector<TestMember> members = sampleMembers();
  // The extra field holds only the saturated values, in a fixed order; try each subset.
  for (int mask = 1; mask < 8; ++mask) {
    CAPTURE(mask);
    TestZipOptions options;
    options.zip64Size = mask & 1;
    options.zip64CompressedSize = mask & 2;
    options.zip64Offset = mask & 4;
    Expected<ZipArchive> archive = ZipArchive::fromBuffer(buildZip(members, options).bytes);
    REQUIRE(archive.ok());
    checkMembers(*archive, members);
  }
}

TEST_CASE("zip: empty archives are valid") {
  for (bool zip64End : {false, true}) {
    TestZipOptions options;
    options.zip64End = zip64End;
    Expected<ZipArchive> archive = ZipArchive::fromBuffer(buildZip({}, options).bytes);
    REQUIRE(archive.ok());
    CHECK(archive->entries().empty());
    CHECK(archive->topFolder() == "");
  }
}

TEST_CASE("zip: topFolder is empty for a flat archive") {
  Expected<ZipArchive> archive = ZipArchive::fromBuffer(buildZip({{"version", "8.2"}}).bytes);
  REQUIRE(archive.ok());
  CHECK(archive->topFolder() == "");
}

TEST_CASE("zip: things that are not zip archives") {
  std::string notZip = "this is plain text, not a zip archive at all.\n";
  CHECK(errorOf(ZipArchive::fromBuffer({notZip.begin(), notZip.end()})) ==
        "not a zip archive (no end of central directory record)");
  CHECK(errorOf(ZipArchive::fromBuffer({})) ==
        "not a zip archive (no end of central directory record)");
  Expected<ZipArchive> archive = ZipArchive::fromBuffer({notZip.begin(), notZip.end()});
  CHECK(archive.error().kind() == ErrorKind::InvalidInput);
}

TEST_CASE("zip: every truncation of an archive is an error, never a crash") {
  for (bool zip64Offset : {false, true}) {
    TestZipOptions options;
    options.zip64Offset = zip64Offset;
    std::vector<uint8_t> bytes = buildZip(sampleMembers(), options).bytes;
    for (size_t length = 0; length < bytes.size(); ++length) {
      CAPTURE(length);
      Expected<ZipArchive> archive =
          ZipArchive::fromBuffer({bytes.begin(), bytes.begin() + length});
      CHECK_FALSE(archive.ok());
      if (!archive.ok())
        CHECK(archive.error().kind() == ErrorKind::InvalidInput);
    }
  }
}

TEST_CASE("zip: every single corrupted byte is handled without a crash") {
  // Whether the damaged archive still opens depends on the byte; what matters is that every
  // read either fails cleanly or stays inside the buffer (run under ASan to see it).
  TestZipOptions options;
  options.zip64Size = options.zip64Offset = true;
  std::vector<uint8_t> bytes = buildZip(sampleMembers(), options).bytes;
  for (size_t at = 0; at < bytes.size(); ++at) {
    for (uint8_t value : {uint8_t(0x00), uint8_t(0xFF), uint8_t(bytes[at] ^ 0x41)}) {
      std::vector<uint8_t> damaged = bytes;
      damaged[at] = value;
      Expected<ZipArchive> archive = ZipArchive::fromBuffer(std::move(damaged));
      if (!archive.ok())
        continue;
      for (const ZipEntry &entry : archive->entries())
        (void)archive->read(entry, /*verifyCrc=*/true).ok();
    }
  }
}

TEST_CASE("zip: bad signatures are named") {
  TestZip zip = buildZip(sampleMembers());
  std::vector<uint8_t> badCentral = zip.bytes;
  badCentral[zip.centralOffsets[1]] = 'X';
  CHECK(errorOf(ZipArchive::fromBuffer(badCentral)) ==
        "central directory entry 1 is malformed (bad signature)");

  std::vector<uint8_t> badLocal = zip.bytes;
  badLocal[zip.localOffsets[2]] = 'X';
  CHECK(errorOf(ZipArchive::fromBuffer(badLocal)) ==
        "entry 'tiny/.data/version' has a bad local header signature");

  std::vector<uint8_t> badZip64 = zip.bytes;
  badZip64[zip.endOffset - 20 - 56] = 'X';
  CHECK(errorOf(ZipArchive::fromBuffer(badZip64)) ==
        "bad ZIP64 end of central directory signature");
}

TEST_CASE("zip: offsets and sizes past the end of the file") {
  TestZipOptions options;
  options.zip64Size = options.zip64CompressedSize = options.zip64Offset = true;
  TestZip zip = buildZip(sampleMembers(), options);
  // Layout of entry 0's extra field: 8 bytes of timestamp field, 4 of ZIP64 header, then
  // size, compressed size, local header offset.
  uint64_t zip64Values = zip.centralOffsets[0] + 46 + sampleMembers()[0].name.size() + 12;

  std::vector<uint8_t> farOffset = zip.bytes;
  patch(farOffset, zip64Values + 16, uint64_t(1) << 40, 8);
  CHECK(errorOf(ZipArchive::fromBuffer(farOffset)) ==
        "truncated archive: local header of entry 'tiny/data/weights/weight_0' lies past end of "
        "file");

  // A size chosen so offset + size wraps around 2^64.
  std::vector<uint8_t> hugeSize = zip.bytes;
  patch(hugeSize, zip64Values, ~uint64_t(0) - 8, 8);
  patch(hugeSize, zip64Values + 8, ~uint64_t(0) - 8, 8);
  CHECK(errorOf(ZipArchive::fromBuffer(hugeSize)) ==
        "truncated archive: entry 'tiny/data/weights/weight_0' extends past end of file");

  std::vector<uint8_t> shortExtra = zip.bytes;
  patch(shortExtra, zip64Values - 2, 16, 2); // ZIP64 field too short for three values
  CHECK(errorOf(ZipArchive::fromBuffer(shortExtra)) ==
        "central directory entry 0 is malformed (ZIP64 extra field is too short)");

  TestZipOptions plain;
  plain.zip64End = false;
  std::vector<uint8_t> farDirectory = buildZip(sampleMembers(), plain).bytes;
  patch(farDirectory, farDirectory.size() - 6, 0xFFFFFF00, 4);
  CHECK(errorOf(ZipArchive::fromBuffer(farDirectory)) ==
        "central directory lies outside the archive");
}

TEST_CASE("zip: absurd entry counts are rejected before allocating") {
  TestZip zip = buildZip(sampleMembers());
  uint64_t zip64Record = zip.endOffset - 20 - 56;
  patch(zip.bytes, zip64Record + 32, uint64_t(1) << 60, 8);
  std::string message = errorOf(ZipArchive::fromBuffer(zip.bytes));
  CHECK(message.find("end of central directory claims 1152921504606846976 entries") == 0);
}

TEST_CASE("zip: inconsistent entries") {
  TestZip zip = buildZip(sampleMembers());
  std::vector<uint8_t> mismatch = zip.bytes;
  patch(mismatch, zip.centralOffsets[1] + 20, 2, 4); // compressed size 2, size 3
  CHECK(errorOf(ZipArchive::fromBuffer(mismatch)) ==
        "entry 'tiny/archive_format' is stored but its compressed size 2 differs from its size 3");

  std::vector<uint8_t> renamed = zip.bytes;
  renamed[zip.localOffsets[1] + 30] = 'T';
  CHECK(errorOf(ZipArchive::fromBuffer(renamed)) ==
        "entry 'tiny/archive_format' has a different name in its local header");

  std::vector<uint8_t> encrypted = zip.bytes;
  encrypted[zip.centralOffsets[0] + 8] |= 1;
  Expected<ZipArchive> archive = ZipArchive::fromBuffer(encrypted);
  CHECK(errorOf(archive) ==
        "entry 'tiny/data/weights/weight_0' is encrypted; encrypted archives are not supported");
  CHECK(archive.error().kind() == ErrorKind::Unsupported);
}

TEST_CASE("zip: compressed members open but do not read") {
  Expected<ZipArchive> archive =
      ZipArchive::fromBuffer(buildZip({{"m/a", "stored"}, {"m/b", "xxxx", 8}}).bytes);
  REQUIRE(archive.ok());
  Expected<std::span<const uint8_t>> data = archive->read(archive->entries()[1]);
  REQUIRE_FALSE(data.ok());
  CHECK(data.error().kind() == ErrorKind::Unsupported);
  CHECK(data.error().message() ==
        "entry 'm/b' is compressed (deflate); only stored entries are supported");
  CHECK_FALSE(archive->readText("m/b").ok());
  CHECK(*archive->readText("m/a") == "stored");
}

TEST_CASE("zip: crc32 is checked only when asked") {
  TestZip zip = buildZip({{"m/a", "hello"}});
  patch(zip.bytes, zip.centralOffsets[0] + 16, 0x12345678, 4);
  Expected<ZipArchive> archive = ZipArchive::fromBuffer(zip.bytes);
  REQUIRE(archive.ok());
  CHECK(*archive->readText("m/a") == "hello");
  Expected<std::string> checked = archive->readText("m/a", /*verifyCrc=*/true);
  REQUIRE_FALSE(checked.ok());
  CHECK(checked.error().message() ==
        "entry 'm/a' is corrupt (its crc32 is 0x3610a686, the central directory says 0x12345678)");
}

TEST_CASE("zip: readText of a missing member") {
  Expected<ZipArchive> archive = ZipArchive::fromBuffer(buildZip(sampleMembers()).bytes);
  REQUIRE(archive.ok());
  Expected<std::string> text = archive->readText("tiny/models/model.json");
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().message() == "missing archive member 'tiny/models/model.json'");
}

TEST_CASE("zip: open maps a file from disk") {
  std::vector<TestMember> members = sampleMembers();
  TempPath file("thunderc_zip_reader_test");
  writeFile(file.path, buildZip(members).bytes);
  Expected<ZipArchive> archive = ZipArchive::open(file.path);
  REQUIRE(archive.ok());
  checkMembers(*archive, members);

  // Moving the archive keeps spans valid: they point into the mapping, not the object.
  Expected<std::span<const uint8_t>> before = archive->read(archive->entries()[1]);
  ZipArchive moved = std::move(archive).value();
  Expected<std::span<const uint8_t>> after = moved.read(moved.entries()[1]);
  CHECK(before->data() == after->data());

  Expected<ZipArchive> missing = ZipArchive::open(file.path + ".missing");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind() == ErrorKind::Io);
  CHECK(missing.error().message() == "cannot open file: No such file or directory");
}

TEST_CASE("mapped file: contents, empty files, directories and ranges") {
  TempPath file("thunderc_mapped_file_test");
  writeFile(file.path, {1, 2, 3, 4, 5});
  Expected<MappedFile> mapped = MappedFile::open(file.path);
  REQUIRE(mapped.ok());
  CHECK(mapped->size() == 5);
  CHECK(mapped->data()[4] == 5);
  CHECK(mapped->bytes(1, 3).size() == 3);
  CHECK(mapped->bytes(1, 3)[0] == 2);
  CHECK(mapped->bytes(5, 0).empty());
  CHECK(mapped->contains(0, 5));
  CHECK_FALSE(mapped->contains(1, 5));
  CHECK_FALSE(mapped->contains(6, 0));
  CHECK_FALSE(mapped->contains(2, ~uint64_t(0)));

  MappedFile moved = std::move(mapped).value();
  CHECK(moved.size() == 5);

  writeFile(file.path, {});
  Expected<MappedFile> empty = MappedFile::open(file.path);
  REQUIRE(empty.ok());
  CHECK(empty->size() == 0);
  CHECK(empty->bytes(0, 0).empty());

  Expected<MappedFile> directory =
      MappedFile::open(std::filesystem::temp_directory_path().string());
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().kind() == ErrorKind::Io);
  CHECK(directory.error().message() == "cannot open file: Is a directory");
}
