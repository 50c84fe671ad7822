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

} // namespace

uint32_t crc32(const void *data, size_t size, uint32_t seed) {
  // Plain pointers into the tables: an unoptimized or instrumented build would otherwise call
  // std::array::operator[] eight times per eight bytes.
  const uint32_t *t0 = kTables[0].data(), *t1 = kTables[1].data(), *t2 = kTables[2].data(),
                 *t3 = kTables[3].data(), *t4 = kTables[4].data(), *t5 = kTables[5].data(),
                 *t6 = kTables[6].data(), *t7 = kTables[7].data();
  uint32_t crc = ~seed;
  const uint8_t *p = static_cast<const uint8_t *>(data);
  size_t remaining = size;
  for (; remaining >= 8; remaining -= 8, p += 8) {
    uint32_t low = crc ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
                          uint32_t(p[3]) << 24);
    uint32_t high =
        uint32_t(p[4]) | uint32_t(p[5]) << 8 | uint32_t(p[6]) << 16 | uint32_t(p[7]) << 24;
    crc = t7[low & 0xFF] ^ t6[(low >> 8) & 0xFF] ^ t5[(low >> 16) & 0xFF] ^ t4[low >> 24] ^
          t3[high & 0xFF] ^ t2[(high >> 8) & 0xFF] ^ t1[(high >> 16) & 0xFF] ^ t0[high >> 24];
  }
  for (; remaining > 0; --remaining, ++p)
    crc = t0[(crc ^ *p) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

} // namespace thunderc::runtime
