// Slicing-by-8 CRC-32 with tables built at compile time; weights are checked on every load and
// can be gigabytes, so the byte-at-a-time loop only handles the tail.
#include "crc32.h"

#include <array>

namespace thunderc::runtime {

namespace {

using CrcTables = std::array<std::array<uint32_t, 256>, 8>;

/// tables[0] is the classic byte table; tables[k][b] is the CRC of byte b followed by k zero
/// bytes, which lets the main loop fold eight input bytes per step.
constexpr CrcTables makeTables() {
  CrcTables tables{};
  for (uint32_t byte = 0; byte < 256; ++byte) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    tables[0][byte] = crc;
  }
  for (size_t k = 1; k < 8; ++k)
    for (size_t byte = 0; byte < 256; ++byte)
      tables[k][byte] = (tables[k - 1][byte] >> 8) ^ tables[0][tables[k - 1][byte] & 0xFF];
  return tables;
}

constexpr CrcTables kTables = makeTables();
static_assert(kTables[0][1] == 0x77073096u, "CRC-32 table does not match zlib's");

uint32_t loadLittle32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

} // namespace

uint32_t crc32(const void *data, size_t size, uint32_t seed) {
  uint32_t crc = ~seed;
  const uint8_t *p = static_cast<const uint8_t *>(data);
  size_t remaining = size;
  for (; remaining >= 8; remaining -= 8, p += 8) {
    uint32_t low = crc ^ loadLittle32(p);
    uint32_t high = loadLittle32(p + 4);
    crc = kTables[7][low & 0xFF] ^ kTables[6][(low >> 8) & 0xFF] ^
          kTables[5][(low >> 16) & 0xFF] ^ kTables[4][low >> 24] ^ kTables[3][high & 0xFF] ^
          kTables[2][(high >> 8) & 0xFF] ^ kTables[1][(high >> 16) & 0xFF] ^ kTables[0][high >> 24];
  }
  for (; remaining > 0; --remaining, ++p)
    crc = kTables[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

} // namespace thunderc::runtime
