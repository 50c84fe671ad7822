// CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), used to check zip members.
#pragma once

#include <cstdint>
#include <span>

namespace thunderc::frontend {

/// The zlib CRC-32 of `bytes`, equal to Python's zlib.crc32(bytes, seed). Pass a previous
/// result as `seed` to continue over data split into pieces: crc32(b, crc32(a)) == crc32(a+b).
uint32_t crc32(std::span<const uint8_t> bytes, uint32_t seed = 0);

} // namespace thunderc::frontend
