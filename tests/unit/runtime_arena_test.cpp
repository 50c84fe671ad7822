// Tests for runtime/arena: alignment, zero fill, bounds-checked slices and allocation failure
// reported as a status.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>

#include "runtime/arena.h"

TEST_CASE("runtime arena: aligned, zero-filled, sized as requested") {
  for (size_t bytes : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(1000)}) {
    CAPTURE(bytes);
    tc_arena *arena = nullptr;
    tc_error err;
    REQUIRE(tc_arena_create(bytes, &arena, &err) == TC_OK);
    CHECK(err.status == TC_OK);
    CHECK(tc_arena_size(arena) == bytes);
    auto *base = static_cast<uint8_t *>(tc_arena_base(arena));
    REQUIRE(base != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(base) % TC_ARENA_ALIGNMENT == 0);
    for (size_t i = 0; i < bytes; ++i)
      REQUIRE(base[i] == 0);
    std::memset(base, 0x5A, bytes); // the whole requested size is writable
    tc_arena_destroy(arena);
  }
  tc_arena_destroy(nullptr);
  CHECK(tc_arena_base(nullptr) == nullptr);
  CHECK(tc_arena_size(nullptr) == 0);
}

TEST_CASE("runtime arena: tc_arena_at checks alignment and bounds") {
  tc_arena *arena = nullptr;
  REQUIRE(tc_arena_create(256, &arena, nullptr) == TC_OK);
  auto *base = static_cast<uint8_t *>(tc_arena_base(arena));
  CHECK(tc_arena_at(arena, 0, 256) == base);
  CHECK(tc_arena_at(arena, 128, 128) == base + 128);
  CHECK(tc_arena_at(arena, 256, 0) == base + 256);
  CHECK(tc_arena_at(arena, 192, 65) == nullptr);  // past the end
  CHECK(tc_arena_at(arena, 32, 8) == nullptr);    // misaligned
  CHECK(tc_arena_at(arena, 320, 0) == nullptr);   // offset past the end
  CHECK(tc_arena_at(arena, 64, std::numeric_limits<size_t>::max()) == nullptr); // no wrap
  CHECK(tc_arena_at(nullptr, 0, 0) == nullptr);
  tc_arena_destroy(arena);
}

TEST_CASE("runtime arena: impossible sizes are TC_ERROR_OUT_OF_MEMORY") {
  tc_arena *arena = reinterpret_cast<tc_arena *>(1);
  tc_error err;
  CHECK(tc_arena_create(std::numeric_limits<size_t>::max(), &arena, &err) ==
        TC_ERROR_OUT_OF_MEMORY);
  CHECK(arena == nullptr);
  CHECK(err.status == TC_ERROR_OUT_OF_MEMORY);
  CHECK(std::strstr(err.message, "cannot allocate an arena of") != nullptr);
  // Rounds to a multiple of 64 without overflowing, then fails to allocate.
  CHECK(tc_arena_create(std::numeric_limits<size_t>::max() / 2, &arena, &err) ==
        TC_ERROR_OUT_OF_MEMORY);
  CHECK(tc_arena_create(64, nullptr, &err) == TC_ERROR_INVALID_ARGUMENT);
}
