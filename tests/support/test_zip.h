// A tiny in-memory zip writer that mimics PyTorchStreamWriter (docs/PT2_FORMAT.md §1.2), for
// tests and fuzz targets that build archives (tests/unit/zip_reader_test.cpp damages what it
// writes; tests/fuzz/fuzz_pt2_json.cpp rebuilds a .pt2 around fuzzed model JSON).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/crc32.h"

namespace thunderc::testing {

struct TestMember {
  std::string name;
  std::string data;
  uint16_t method = 0;
};

struct TestZipOptions {
  bool zip64End = true; ///< write ZIP64 end record and locator, saturate the 32-bit EOCD
  bool zip64Size = false, zip64CompressedSize = false, zip64Offset = false; ///< via extra field
  std::string comment;
};

/// The archive bytes plus where the writer put things, so tests can damage them.
struct TestZip {
  std::vector<uint8_t> bytes;
  std::vector<uint64_t> localOffsets;
  std::vector<uint64_t> centralOffsets;
  uint64_t endOffset = 0; ///< the 32-bit end of central directory record
};

inline void put(std::vector<uint8_t> &out, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    out.push_back(uint8_t(value >> (8 * i)));
}
inline void putText(std::vector<uint8_t> &out, std::string_view text) {
  const uint8_t *bytes = reinterpret_cast<const uint8_t *>(text.data());
  out.insert(out.end(), bytes, bytes + text.size()); // same type: one memmove
}
inline void patch(std::vector<uint8_t> &bytes, uint64_t at, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    bytes[at + i] = uint8_t(value >> (8 * i));
}
inline uint32_t crcOf(std::string_view text) {
  return thunderc::runtime::crc32(text.data(), text.size());
}

/// Writes members like PyTorchStreamWriter: local headers with flag 0x0808 and zero sizes, an
/// "FB" extra field padding each member's data to 64 bytes, data descriptors, the real sizes
/// in the central directory, and (by default) ZIP64 end records.
inline TestZip buildZip(const std::vector<TestMember> &members,
                        const TestZipOptions &options = {}) {
  TestZip zip;
  std::vector<uint8_t> &out = zip.bytes;
  // Each member's CRC once (it goes in the data descriptor and the central directory), and the
  // output sized up front: the fuzz targets rebuild an archive for every input.
  std::vector<uint32_t> crcs;
  size_t capacity = 256 + options.comment.size();
  for (const TestMember &member : members) {
    crcs.push_back(crcOf(member.data));
    capacity += 2 * member.name.size() + member.data.size() + 200;
  }
  out.reserve(capacity);
  for (size_t i = 0; i < members.size(); ++i) {
    const TestMember &member = members[i];
    zip.localOffsets.push_back(out.size());
    put(out, 0x04034b50, 4);
    put(out, 20, 2);     // version needed
    put(out, 0x0808, 2); // data descriptor + UTF-8
    put(out, member.method, 2);
    put(out, 0, 4); // time, date
    put(out, 0, 4); // crc
    put(out, 0, 8); // compressed size, size
    put(out, member.name.size(), 2);
    uint64_t dataStart = out.size() + 2 + member.name.size() + 4;
    uint64_t padding = (64 - dataStart % 64) % 64;
    put(out, 4 + padding, 2);
    putText(out, member.name);
    putText(out, "FB");
    put(out, padding, 2);
    out.insert(out.end(), padding, 'Z');
    putText(out, member.data);
    put(out, 0x08074b50, 4);
    put(out, crcs[i], 4);
    put(out, member.data.size(), 4);
    put(out, member.data.size(), 4);
  }
  uint64_t centralOffset = out.size();
  for (size_t i = 0; i < members.size(); ++i) {
    const TestMember &member = members[i];
    zip.centralOffsets.push_back(out.size());
    uint64_t extraSize = 8 * (options.zip64Size + options.zip64CompressedSize +
                              options.zip64Offset);
    put(out, 0x02014b50, 4);
    put(out, 45, 2); // version made by
    put(out, 45, 2); // version needed
    put(out, 0x0808, 2);
    put(out, member.method, 2);
    put(out, 0, 4);
    put(out, crcs[i], 4);
    put(out, options.zip64CompressedSize ? 0xFFFFFFFF : member.data.size(), 4);
    put(out, options.zip64Size ? 0xFFFFFFFF : member.data.size(), 4);
    put(out, member.name.size(), 2);
    put(out, extraSize ? extraSize + 4 + 8 : 0, 2); // plus an unrelated field first
    put(out, 0, 2);                                 // comment
    put(out, 0, 8);                                 // disk, attributes
    put(out, options.zip64Offset ? 0xFFFFFFFF : zip.localOffsets[i], 4);
    putText(out, member.name);
    if (extraSize) {
      put(out, 0x5455, 2); // an extended-timestamp field the reader must skip
      put(out, 4, 2);
      put(out, 0, 4);
      put(out, 0x0001, 2);
      put(out, extraSize, 2);
      if (options.zip64Size)
        put(out, member.data.size(), 8);
      if (options.zip64CompressedSize)
        put(out, member.data.size(), 8);
      if (options.zip64Offset)
        put(out, zip.localOffsets[i], 8);
    }
  }
  uint64_t centralSize = out.size() - centralOffset;
  if (options.zip64End) {
    uint64_t recordOffset = out.size();
    put(out, 0x06064b50, 4);
    put(out, 44, 8);
    put(out, 45, 2);
    put(out, 45, 2);
    put(out, 0, 8); // disk numbers
    put(out, members.size(), 8);
    put(out, members.size(), 8);
    put(out, centralSize, 8);
    put(out, centralOffset, 8);
    put(out, 0x07064b50, 4);
    put(out, 0, 4);
    put(out, recordOffset, 8);
    put(out, 1, 4);
  }
  zip.endOffset = out.size();
  put(out, 0x06054b50, 4);
  put(out, 0, 4);
  put(out, options.zip64End ? 0xFFFF : members.size(), 2);
  put(out, options.zip64End ? 0xFFFF : members.size(), 2);
  put(out, options.zip64End ? 0xFFFFFFFF : centralSize, 4);
  put(out, options.zip64End ? 0xFFFFFFFF : centralOffset, 4);
  put(out, options.comment.size(), 2);
  putText(out, options.comment);
  return zip;
}

} // namespace thunderc::testing
