// Tests for runtime/crc32 (used by the runtime for weights.bin and by the compiler for zip
// members and weight checksums): the zlib CRC-32 (check values from zlib.crc32).
#include <doctest/doctest.h>

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/crc32.h"

namespace {

uint32_t crc32(std::span<const uint8_t> bytes, uint32_t seed = 0) {
  return thunderc::runtime::crc32(bytes.data(), bytes.size(), seed);
}

std::span<const uint8_t> asBytes(std::string_view text) {
  return {reinterpret_cast<const uint8_t *>(text.data()), text.size()};
}

/// Bit-at-a-time CRC-32, the definition the table-driven version must agree with.
uint32_t referenceCrc32(std::span<const uint8_t> bytes) {
  uint32_t crc = 0xFFFFFFFF;
  for (uint8_t byte : bytes) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc & 1) ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
  }
  return ~crc;
}

} // namespace

TEST_CASE("crc32 matches zlib's check values") {
  CHECK(crc32(asBytes("123456789")) == 0xCBF43926u);
  CHECK(crc32(asBytes("")) == 0u);
  CHECK(crc32(asBytes("hello world")) == 0x0D4A1185u);
  std::vector<uint8_t> ramp;
  for (int repeat = 0; repeat < 3; ++repeat)
    for (int byte = 0; byte < 256; ++byte)
      ramp.push_back(uint8_t(byte));
  CHECK(crc32(ramp) == 0xB0C0DF2Au); // zlib.crc32(bytes(range(256)) * 3)
}

TEST_CASE("crc32 agrees with the bitwise definition at every length and alignment") {
  // Covers the 8-byte main loop, every tail length, and unaligned starts.
  std::vector<uint8_t> bytes(80);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(i * 37 + 11);
  for (size_t start = 0; start < 8; ++start)
    for (size_t length = 0; start + length <= bytes.size(); ++length) {
      std::span<const uint8_t> piece(bytes.data() + start, length);
      CHECK(crc32(piece) == referenceCrc32(piece));
    }
}

TEST_CASE("crc32 continues from a seed like zlib.crc32(data, value)") {
  std::string_view text = "The quick brown fox jumps over the lazy dog";
  uint32_t whole = crc32(asBytes(text));
  CHECK(whole == 0x414FA339u);
  for (size_t split = 0; split <= text.size(); ++split)
    CHECK(crc32(asBytes(text.substr(split)), crc32(asBytes(text.substr(0, split)))) == whole);
}
