/* The one allocation an execution context makes: a 64-byte-aligned block sized by the
 * compiler's memory plan, from which generated code carves every intermediate tensor at
 * planned offsets, so that a run allocates nothing. */
#ifndef THUNDERC_RUNTIME_ARENA_H
#define THUNDERC_RUNTIME_ARENA_H

#include "thunderc_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Alignment of an arena's base and of every offset the memory plan hands out. */
#define TC_ARENA_ALIGNMENT 64

/** A fixed-size block of host memory owned by one execution context; not thread-safe, like
 * the context that owns it. */
typedef struct tc_arena tc_arena;

/** Allocates an arena of `bytes` bytes (rounded up to a multiple of TC_ARENA_ALIGNMENT; 0 is
 * allowed and still gives a non-null base), zero-filled, and sets `*out`. Returns
 * TC_ERROR_INVALID_ARGUMENT for a NULL `out` and TC_ERROR_OUT_OF_MEMORY when the allocation
 * fails, leaving `*out` NULL. */
tc_status tc_arena_create(size_t bytes, tc_arena **out, tc_error *err);

/** Frees the arena; pointers into it become dangling. NULL is ignored. */
void tc_arena_destroy(tc_arena *arena);

/** The first byte, TC_ARENA_ALIGNMENT-aligned; NULL for a NULL arena. */
void *tc_arena_base(const tc_arena *arena);

/** The usable size in bytes, as requested at creation (0 for a NULL arena). */
size_t tc_arena_size(const tc_arena *arena);

/** base + offset if [offset, offset + bytes) lies inside the arena and offset is a multiple of
 * TC_ARENA_ALIGNMENT, else NULL. For offsets computed at run time from symbolic dims; offsets
 * fixed at compile time can use base + offset directly. */
void *tc_arena_at(const tc_arena *arena, size_t offset, size_t bytes);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* THUNDERC_RUNTIME_ARENA_H */
