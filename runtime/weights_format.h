// The on-disk layout of weights.bin, shared by its reader (runtime/weights.cpp) and its writer
// (codegen/weights_writer.cpp, used by the compiler). Fields are encoded byte by byte, so the
// layout does not depend on the host's struct padding.
//
// weights.bin, version 1. All integers little-endian; offsets are absolute file offsets.
//
//   [0, 64)                  header
//   [table_offset, +size)    table: tensor_count 128-byte entries, then the name pool
//   [data_offset, file_size) data: each tensor's bytes at a 64-byte-aligned offset, in table
//                            order, without overlap
//
// Every byte is checked: the header and table by their CRC-32s, tensor bytes by theirs, and the
// padding (between table and data, between tensors) must be zero.
//
// Header (64 bytes):
//    0  char[8]  magic "TCWEIGHT" (no NUL)
//    8  u32      version (kVersion)
//   12  u32      tensor_count
//   16  u64      table_offset (64 in version 1: the table follows the header)
//   24  u64      table_size   (tensor_count * 128 + name pool bytes)
//   32  u64      data_offset  (multiple of 64, >= table_offset + table_size)
//   40  u64      file_size    (must equal the file's size: catches truncation)
//   48  u32      table_crc32  (zlib CRC-32 of the table bytes, entries and names)
//   52  u8[8]    reserved, zero
//   60  u32      header_crc32 (zlib CRC-32 of header bytes [0, 60))
//
// Entry (128 bytes):
//    0  u32      name_offset  (from table_offset; inside the name pool)
//    4  u32      name_length  (bytes, >= 1, no NUL inside; a NUL follows the name)
//    8  u32      dtype        (tc_dtype value)
//   12  u32      rank         (0 .. 8)
//   16  i64[8]   shape        (dims >= 0; entries past rank are 0)
//   80  u64      data_offset  (multiple of 64, >= header data_offset)
//   88  u64      byte_size    (product(shape) * dtype size)
//   96  u32      data_crc32   (zlib CRC-32 of the tensor's bytes)
//  100  u8[28]   reserved, zero
//
// The name pool holds each name followed by a NUL, in table order. Names are UTF-8 and unique.
#pragma once

#include <cstdint>
#include <cstring>

#include "thunderc_runtime.h"

namespace thunderc::runtime::weights_format {

inline constexpr char kMagic[8] = {'T', 'C', 'W', 'E', 'I', 'G', 'H', 'T'};
inline constexpr uint32_t kVersion = 1;
inline constexpr uint64_t kHeaderSize = 64;
inline constexpr uint64_t kEntrySize = 128;
/// Alignment of data_offset and of every tensor's bytes (cache line, AVX-512 vector).
inline constexpr uint64_t kAlignment = 64;
/// Header bytes [0, kHeaderCrcOffset) are covered by header_crc32, stored at kHeaderCrcOffset.
inline constexpr uint64_t kHeaderCrcOffset = 60;

/// The header, decoded. magic and reserved bytes are not represented.
struct Header {
  uint32_t version = kVersion;
  uint32_t tensorCount = 0;
  uint64_t tableOffset = 0;
  uint64_t tableSize = 0;
  uint64_t dataOffset = 0;
  uint64_t fileSize = 0;
  uint32_t tableCrc32 = 0;
  uint32_t headerCrc32 = 0;
};

/// One table entry, decoded. reserved bytes are not represented.
struct Entry {
  uint32_t nameOffset = 0;
  uint32_t nameLength = 0;
  uint32_t dtype = 0;
  uint32_t rank = 0;
  int64_t shape[TC_MAX_RANK] = {};
  uint64_t dataOffset = 0;
  uint64_t byteSize = 0;
  uint32_t dataCrc32 = 0;
};

inline uint64_t loadLittle(const uint8_t *p, int width) {
  uint64_t value = 0;
  for (int i = 0; i < width; ++i)
    value |= uint64_t(p[i]) << (8 * i);
  return value;
}

inline void storeLittle(uint8_t *p, uint64_t value, int width) {
  for (int i = 0; i < width; ++i)
    p[i] = uint8_t(value >> (8 * i));
}

/// Decodes the kHeaderSize bytes at `p`; the caller checks the magic with hasMagic.
inline Header decodeHeader(const uint8_t *p) {
  Header header;
  header.version = uint32_t(loadLittle(p + 8, 4));
  header.tensorCount = uint32_t(loadLittle(p + 12, 4));
  header.tableOffset = loadLittle(p + 16, 8);
  header.tableSize = loadLittle(p + 24, 8);
  header.dataOffset = loadLittle(p + 32, 8);
  header.fileSize = loadLittle(p + 40, 8);
  header.tableCrc32 = uint32_t(loadLittle(p + 48, 4));
  header.headerCrc32 = uint32_t(loadLittle(p + kHeaderCrcOffset, 4));
  return header;
}

inline bool hasMagic(const uint8_t *p) { return std::memcmp(p, kMagic, sizeof(kMagic)) == 0; }

/// Writes magic, fields and zero reserved bytes to the kHeaderSize bytes at `p`. headerCrc32 is
/// stored as given; the writer computes it over the encoded bytes [0, kHeaderCrcOffset).
inline void encodeHeader(const Header &header, uint8_t *p) {
  std::memset(p, 0, kHeaderSize);
  std::memcpy(p, kMagic, sizeof(kMagic));
  storeLittle(p + 8, header.version, 4);
  storeLittle(p + 12, header.tensorCount, 4);
  storeLittle(p + 16, header.tableOffset, 8);
  storeLittle(p + 24, header.tableSize, 8);
  storeLittle(p + 32, header.dataOffset, 8);
  storeLittle(p + 40, header.fileSize, 8);
  storeLittle(p + 48, header.tableCrc32, 4);
  storeLittle(p + kHeaderCrcOffset, header.headerCrc32, 4);
}

/// Decodes the kEntrySize bytes at `p`.
inline Entry decodeEntry(const uint8_t *p) {
  Entry entry;
  entry.nameOffset = uint32_t(loadLittle(p + 0, 4));
  entry.nameLength = uint32_t(loadLittle(p + 4, 4));
  entry.dtype = uint32_t(loadLittle(p + 8, 4));
  entry.rank = uint32_t(loadLittle(p + 12, 4));
  for (int i = 0; i < TC_MAX_RANK; ++i)
    entry.shape[i] = int64_t(loadLittle(p + 16 + 8 * i, 8));
  entry.dataOffset = loadLittle(p + 80, 8);
  entry.byteSize = loadLittle(p + 88, 8);
  entry.dataCrc32 = uint32_t(loadLittle(p + 96, 4));
  return entry;
}

/// Writes the fields and zero reserved bytes to the kEntrySize bytes at `p`.
inline void encodeEntry(const Entry &entry, uint8_t *p) {
  std::memset(p, 0, kEntrySize);
  storeLittle(p + 0, entry.nameOffset, 4);
  storeLittle(p + 4, entry.nameLength, 4);
  storeLittle(p + 8, entry.dtype, 4);
  storeLittle(p + 12, entry.rank, 4);
  for (int i = 0; i < TC_MAX_RANK; ++i)
    storeLittle(p + 16 + 8 * i, uint64_t(entry.shape[i]), 8);
  storeLittle(p + 80, entry.dataOffset, 8);
  storeLittle(p + 88, entry.byteSize, 8);
  storeLittle(p + 96, entry.dataCrc32, 4);
}

/// `value` rounded up to a multiple of kAlignment; the caller ensures it does not overflow.
inline constexpr uint64_t alignUp(uint64_t value) {
  return (value + kAlignment - 1) / kAlignment * kAlignment;
}

} // namespace thunderc::runtime::weights_format
