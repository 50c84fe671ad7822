// tc_arena: one aligned, zero-filled allocation through the nothrow aligned operator new, so
// an allocation failure is a status rather than an exception.
#include "arena.h"

#include <cstring>
#include <limits>
#include <new>

struct tc_arena {
  void *base;
  size_t size;
};

namespace {

constexpr size_t kAlignment = TC_ARENA_ALIGNMENT;
static_assert((kAlignment & (kAlignment - 1)) == 0, "arena alignment must be a power of two");

} // namespace

extern "C" {

tc_status tc_arena_create(size_t bytes, tc_arena **out, tc_error *err) {
  if (out == nullptr)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "tc_arena_create: null out");
  *out = nullptr;
  if (bytes > std::numeric_limits<size_t>::max() - kAlignment)
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, "cannot allocate an arena of %zu bytes",
                         bytes);
  size_t rounded = bytes == 0 ? kAlignment : (bytes + kAlignment - 1) / kAlignment * kAlignment;
  tc_arena *arena = new (std::nothrow) tc_arena{nullptr, bytes};
  if (arena != nullptr)
    arena->base = ::operator new(rounded, std::align_val_t(kAlignment), std::nothrow);
  if (arena == nullptr || arena->base == nullptr) {
    delete arena;
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, "cannot allocate an arena of %zu bytes",
                         bytes);
  }
  std::memset(arena->base, 0, rounded);
  *out = arena;
  tc_error_clear(err);
  return TC_OK;
}

void tc_arena_destroy(tc_arena *arena) {
  if (arena == nullptr)
    return;
  ::operator delete(arena->base, std::align_val_t(kAlignment));
  delete arena;
}

void *tc_arena_base(const tc_arena *arena) { return arena == nullptr ? nullptr : arena->base; }

size_t tc_arena_size(const tc_arena *arena) { return arena == nullptr ? 0 : arena->size; }

void *tc_arena_at(const tc_arena *arena, size_t offset, size_t bytes) {
  if (arena == nullptr || offset % kAlignment != 0 || offset > arena->size ||
      bytes > arena->size - offset)
    return nullptr;
  return static_cast<char *>(arena->base) + offset;
}

} // extern "C"
