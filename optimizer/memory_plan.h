// Memory planning: live intervals over the final node order, best-fit offsets in one arena,
// in-place reuse; inputs, weights and graph outputs are pinned outside the arena.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ir/graph.h"
#include "optimizer/pass.h"

namespace thunderc::opt {

/// The alignment of every arena offset and size (the runtime's arena alignment).
inline constexpr int64_t kArenaAlignment = 64;

/// One buffer to place: `bytes` live over node positions [first, last] (inclusive).
struct BufferRequest {
  int64_t bytes = 0;
  int first = 0;
  int last = 0;
  /// Index of an earlier request whose storage this one takes over in place (the donor's
  /// last == this one's first and bytes are equal), or -1.
  int inPlaceOf = -1;
};

/// Where every request went, and the numbers reports print.
struct BufferPlan {
  std::vector<int64_t> offsets; ///< one per request, multiples of the alignment
  int64_t arenaBytes = 0;       ///< max over requests of offset + aligned bytes
  int64_t lowerBound = 0;       ///< max over positions of the aligned bytes live there
  int64_t sumBytes = 0;         ///< sum of all aligned bytes (the arena with no reuse)
};

/// Best-fit placement: requests (in-place chains merged into one interval) in decreasing
/// size order (ties: earlier first position, then lower index) each take the smallest gap
/// between the already placed buffers whose intervals overlap theirs, or go on top of the
/// highest of them. No two requests whose intervals overlap share a byte, except a donor and
/// the request that takes it over in place (same offset). In-place chains count once in
/// lowerBound; sumBytes counts every request. Deterministic. `alignment` must be positive;
/// requests need first <= last, bytes >= 0 and inPlaceOf < their own index (TC_CHECKed).
BufferPlan planBuffers(const std::vector<BufferRequest> &requests,
                       int64_t alignment = kArenaAlignment);

/// The memory numbers of a planned graph (one with `arena_offsets` annotations), recomputed
/// from the graph: arena bytes, lower bound and sum of intermediates, at the symbols' upper
/// bounds. `planned` is false when no top-level node carries `arena_offsets` (then the numbers
/// are 0); when a needed symbol is unbounded the numbers are 0 too.
struct MemoryStats {
  bool planned = false;
  int64_t arenaBytes = 0;
  int64_t lowerBound = 0;
  int64_t sumBytes = 0;
};
MemoryStats memoryStats(const ir::Graph &graph);

/// "plan-memory": annotates every top-level node with `arena_offsets` (ir/ops.h): one byte
/// offset per result, -1 for results with no arena storage (views alias their operand's
/// storage; graph outputs are written to the caller's buffers). Sizes are taken at the
/// symbols' upper bounds; a graph whose sizes need an unbounded symbol is left unplanned
/// (statistic "plan-memory.unbounded"). Fusion bodies are not planned (their values live in
/// registers or in the kernel's own scratch).
std::unique_ptr<Pass> createPlanMemoryPass();

} // namespace thunderc::opt
