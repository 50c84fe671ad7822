// CRC-32 as zlib computes it (reflected polynomial 0xEDB88320), used to check weights.bin.
// A runtime-local copy: bundles build without the compiler's sources.
#pragma once

#include <cstddef>
#include <cstdint>

namespace thunderc::runtime {

/// The zlib CRC-32 of `size` bytes at `data`, equal to Python's zlib.crc32(bytes, seed). Pass a
/// previous result as `seed` to continue over data split into pieces:
/// crc32(b, crc32(a)) == crc32(a + b). `data` may be null only when `size` is 0.
uint32_t crc32(const void *data, size_t size, uint32_t seed = 0);

} // namespace thunderc::runtime
