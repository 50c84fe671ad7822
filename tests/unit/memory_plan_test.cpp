// Unit tests for optimizer/memory_plan: planBuffers' invariants over random requests (aligned
// offsets, no two live buffers share a byte, lower bound <= arena <= sum), and the
// plan-memory pass on small graphs (views alias, outputs pinned, in-place, reuse, unbounded
// symbols, memoryStats agreeing with the pass's statistics).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "optimizer/memory_plan.h"

namespace {

using namespace thunderc;
using namespace thunderc::ir;
using namespace thunderc::opt;

/// SplitMix64: the same numbers on every platform (std distributions are not portable).
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [lo, hi].
  int64_t uniform(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1));
  }

private:
  uint64_t state_;
};

int64_t alignUp(int64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

/// Random requests over `positions` positions; about one in five takes over an earlier
/// request that dies where it starts.
std::vector<BufferRequest> randomRequests(Rng &rng) {
  int count = static_cast<int>(rng.uniform(1, 80));
  int positions = static_cast<int>(rng.uniform(1, 60));
  std::vector<BufferRequest> requests;
  std::vector<bool> donated;
  for (int i = 0; i < count; ++i) {
    BufferRequest request;
    // Sizes from a few bytes to a few MB, skewed small like real intermediates.
    request.bytes = rng.uniform(0, 3) == 0 ? rng.uniform(0, 200)
                                           : rng.uniform(1, 1 << 14) * rng.uniform(1, 256);
    request.first = static_cast<int>(rng.uniform(0, positions - 1));
    request.last = request.first + static_cast<int>(rng.uniform(0, rng.uniform(0, 1) ? 3 : 20));
    if (i > 0 && rng.uniform(0, 4) == 0) {
      int donor = static_cast<int>(rng.uniform(0, i - 1));
      if (!donated[static_cast<size_t>(donor)]) {
        donated[static_cast<size_t>(donor)] = true;
        const BufferRequest &from = requests[static_cast<size_t>(donor)];
        request.bytes = from.bytes;
        request.first = from.last;
        request.last = request.first + static_cast<int>(rng.uniform(0, 6));
        request.inPlaceOf = donor;
      }
    }
    requests.push_back(request);
    donated.push_back(false);
  }
  return requests;
}

int chainRoot(const std::vector<BufferRequest> &requests, int index) {
  while (requests[static_cast<size_t>(index)].inPlaceOf >= 0)
    index = requests[static_cast<size_t>(index)].inPlaceOf;
  return index;
}

TEST_CASE("planBuffers: random requests never share live bytes and stay near the bound") {
  Rng rng(20240611);
  double ratioSum = 0;
  double ratioMax = 0;
  int bounded = 0; // cases with a nonzero lower bound
  int cases = 400;
  for (int trial = 0; trial < cases; ++trial) {
    std::vector<BufferRequest> requests = randomRequests(rng);
    BufferPlan plan = planBuffers(requests);
    REQUIRE(plan.offsets.size() == requests.size());

    int64_t top = 0;
    int64_t sum = 0;
    int lastPosition = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
      CHECK(plan.offsets[i] % kArenaAlignment == 0);
      CHECK(plan.offsets[i] >= 0);
      top = std::max(top, plan.offsets[i] + alignUp(requests[i].bytes));
      sum += alignUp(requests[i].bytes);
      lastPosition = std::max(lastPosition, requests[i].last);
    }
    CHECK(plan.arenaBytes == top);
    CHECK(plan.sumBytes == sum);

    for (size_t i = 0; i < requests.size(); ++i) {
      const BufferRequest &a = requests[i];
      if (a.inPlaceOf >= 0) {
        CHECK(plan.offsets[i] == plan.offsets[static_cast<size_t>(a.inPlaceOf)]);
      }
      for (size_t j = i + 1; j < requests.size(); ++j) {
        const BufferRequest &b = requests[j];
        bool live = a.first <= b.last && b.first <= a.last;
        bool sameChain = chainRoot(requests, static_cast<int>(i)) ==
                         chainRoot(requests, static_cast<int>(j));
        if (!live || sameChain)
          continue;
        bool disjoint = plan.offsets[i] + alignUp(a.bytes) <= plan.offsets[j] ||
                        plan.offsets[j] + alignUp(b.bytes) <= plan.offsets[i];
        CHECK_MESSAGE(disjoint, "trial " << trial << ": requests " << i << " and " << j);
      }
    }

    // The lower bound, recomputed naively: chains live at each position, counted once.
    int64_t bound = 0;
    for (int position = 0; position <= lastPosition; ++position) {
      std::vector<int64_t> chainBytes(requests.size(), -1);
      for (size_t i = 0; i < requests.size(); ++i) {
        size_t root = static_cast<size_t>(chainRoot(requests, static_cast<int>(i)));
        // A chain is live where any member is (its interval is their union).
        int first = requests[i].first;
        int last = requests[i].last;
        for (size_t k = 0; k < requests.size(); ++k) {
          if (static_cast<size_t>(chainRoot(requests, static_cast<int>(k))) == root) {
            first = std::min(first, requests[k].first);
            last = std::max(last, requests[k].last);
          }
        }
        if (first <= position && position <= last)
          chainBytes[root] = std::max(chainBytes[root], alignUp(requests[i].bytes));
      }
      int64_t live = 0;
      for (int64_t bytes : chainBytes)
        live += std::max<int64_t>(bytes, 0);
      bound = std::max(bound, live);
    }
    CHECK(plan.lowerBound == bound);
    CHECK(plan.arenaBytes >= plan.lowerBound);
    CHECK(plan.arenaBytes <= plan.sumBytes);
    if (plan.lowerBound > 0) {
      double ratio = static_cast<double>(plan.arenaBytes) / static_cast<double>(plan.lowerBound);
      ratioSum += ratio;
      ++bounded;
      ratioMax = std::max(ratioMax, ratio);
    }
  }
  // Random interval soups are harder than real schedules, whose intervals nest. Recorded
  // (seed 20240611, 400 cases): mean 1.015, max 1.25 with the three placement orders (1.022
  // and 1.31 with largest-first alone). On the zoo models at -O2 (both IR levels) the arena
  // equals the lower bound on all 8 models.
  MESSAGE("arena / lower bound over " << bounded << " random cases: mean "
                                      << ratioSum / std::max(bounded, 1) << ", max " << ratioMax);
}

TEST_CASE("planBuffers: deterministic ties and best fit") {
  // Two 128-byte buffers live together, then a 64-byte one that overlaps only the second:
  // it takes the gap the first left (the smallest that fits), not the top.
  std::vector<BufferRequest> requests = {
      {128, 0, 1, -1}, {128, 0, 3, -1}, {64, 2, 3, -1}, {256, 4, 5, -1}};
  BufferPlan plan = planBuffers(requests);
  CHECK(plan.offsets == std::vector<int64_t>{0, 128, 0, 0});
  CHECK(plan.arenaBytes == 256);
  CHECK(plan.lowerBound == 256);
  CHECK(plan.sumBytes == 576);
  CHECK(planBuffers(requests).offsets == plan.offsets);
  CHECK(planBuffers({}).arenaBytes == 0);
}

// ---- the pass ----

std::unique_ptr<Graph> parse(const std::string &text) {
  Expected<std::unique_ptr<Graph>> graph = parseGraph(text);
  REQUIRE_MESSAGE(graph.ok(), (graph.ok() ? "" : graph.error().message()));
  Status verified = verifyGraph(**graph);
  REQUIRE_MESSAGE(verified.ok(), (verified.ok() ? "" : verified.error().message()));
  return std::move(*graph);
}

/// Runs plan-memory, checks the change contract and a quiet second run, and returns the
/// statistics.
std::map<std::string, int64_t> plan(Graph &graph) {
  std::unique_ptr<Pass> pass = createPlanMemoryPass();
  std::string before = printGraph(graph);
  PassContext context;
  Expected<bool> changed = pass->run(graph, context);
  REQUIRE(changed.ok());
  std::string after = printGraph(graph);
  CHECK(*changed == (before != after));
  Status verified = verifyGraph(graph);
  CHECK_MESSAGE(verified.ok(), (verified.ok() ? "" : verified.error().message()));
  PassContext again;
  Expected<bool> second = pass->run(graph, again);
  REQUIRE(second.ok());
  CHECK_FALSE(*second);
  CHECK(printGraph(graph) == after);
  return context.statistics;
}

/// arena_offsets of the node defining %name.
std::vector<int64_t> offsetsOf(const Graph &graph, const std::string &name) {
  for (const auto &node : graph.nodes()) {
    for (int i = 0; i < node->numResults(); ++i) {
      if (node->result(i)->name() == name) {
        REQUIRE(node->attrs().has(kArenaOffsetsAttr));
        return node->attrs().getInts(kArenaOffsetsAttr);
      }
    }
  }
  FAIL("no value %" << name);
  return {};
}

TEST_CASE("plan-memory: a dead buffer's offset is reused") {
  // softmax is not elementwise, so nothing is in place: a dies at b, c reuses its offset.
  auto graph = parse(R"(graph @g(%x: f32[4,8]) -> (f32[4,8]) {
  %a = softmax(%x) {dim=1} : f32[4,8]
  %b = softmax(%a) {dim=1} : f32[4,8]
  %c = softmax(%b) {dim=1} : f32[4,8]
  %d = softmax(%c) {dim=1} : f32[4,8]
  return %d
})");
  auto statistics = plan(*graph);
  CHECK(offsetsOf(*graph, "a") == std::vector<int64_t>{0});
  CHECK(offsetsOf(*graph, "b") == std::vector<int64_t>{128});
  CHECK(offsetsOf(*graph, "c") == std::vector<int64_t>{0});
  CHECK(offsetsOf(*graph, "d") == std::vector<int64_t>{-1}); // a graph output
  CHECK(statistics["plan-memory.arena-bytes"] == 256);
  CHECK(statistics["plan-memory.lower-bound-bytes"] == 256);
  CHECK(statistics["plan-memory.sum-bytes"] == 384);
  CHECK(statistics["plan-memory.in-place"] == 0);
  MemoryStats stats = memoryStats(*graph);
  CHECK(stats.planned);
  CHECK(stats.arenaBytes == 256);
  CHECK(stats.lowerBound == 256);
  CHECK(stats.sumBytes == 384);
}

TEST_CASE("plan-memory: elementwise results take over a dying operand") {
  // b takes a's buffer (a dies at b); c cannot take b's (b is read later by d); e reads c
  // and a view of c, so it may not overwrite c.
  auto graph = parse(R"(graph @g(%x: f32[4,8]) -> (f32[4,8]) {
  %a = exp(%x) : f32[4,8]
  %b = relu(%a) : f32[4,8]
  %c = neg(%b) : f32[4,8]
  %d = add(%b, %c) : f32[4,8]
  %v = permute(%c) {dims=[1,0]} : f32[8,4]
  %w = reshape(%v) {shape=[4,8]} : f32[4,8]
  %e = mul(%d, %w) : f32[4,8]
  %f = softmax(%e) {dim=1} : f32[4,8]
  return %f
})");
  auto statistics = plan(*graph);
  std::vector<int64_t> a = offsetsOf(*graph, "a");
  CHECK(offsetsOf(*graph, "b") == a);
  CHECK(offsetsOf(*graph, "c") != a);
  CHECK(offsetsOf(*graph, "d") == a); // b dies at d: d overwrites it
  CHECK(offsetsOf(*graph, "v") == std::vector<int64_t>{-1});
  CHECK(offsetsOf(*graph, "w") == std::vector<int64_t>{-1});
  // e: d dies here and is read by no other operand, so e takes it (not c, read through w).
  CHECK(offsetsOf(*graph, "e") == a);
  CHECK(statistics["plan-memory.in-place"] == 3);
  CHECK(statistics["plan-memory.lower-bound-bytes"] == 256);
  CHECK(statistics["plan-memory.arena-bytes"] == 256);
}

TEST_CASE("plan-memory: a view returned as an output keeps its buffer to the end") {
  // r is an output that aliases a: a's buffer may not be reused or overwritten in place.
  auto graph = parse(R"(graph @g(%x: f32[4,8]) -> (f32[32], f32[4,8]) {
  %a = softmax(%x) {dim=1} : f32[4,8]
  %r = reshape(%a) {shape=[32]} : f32[32]
  %b = exp(%a) : f32[4,8]
  %c = softmax(%b) {dim=1} : f32[4,8]
  return %r, %c
})");
  auto statistics = plan(*graph);
  CHECK(offsetsOf(*graph, "a") == std::vector<int64_t>{0});
  CHECK(offsetsOf(*graph, "r") == std::vector<int64_t>{-1});
  CHECK(offsetsOf(*graph, "b") == std::vector<int64_t>{128});
  CHECK(offsetsOf(*graph, "c") == std::vector<int64_t>{-1});
  CHECK(statistics["plan-memory.in-place"] == 0);
}

TEST_CASE("plan-memory: inputs, weights and outputs are pinned; sizes at upper bounds") {
  auto graph = parse(R"(graph @g(%x: f32[?s0,16], %w: f32[16,16] {param="w"}) -> (f32[?s0,16])
    symbols(s0: [1, 10]) {
  %m = matmul(%x, %w) : f32[?s0,16]
  %s0, %s1 = split(%m) {dim=1, sizes=[8,8]} : f32[?s0,8], f32[?s0,8]
  %t = mul(%s0, %s1) : f32[?s0,8]
  %u = cast(%t) {dtype=i32} : i32[?s0,8]
  %o = concat(%u, %u) {dim=1} : i32[?s0,16]
  %y = cast(%o) {dtype=f32} : f32[?s0,16]
  return %y
})");
  auto statistics = plan(*graph);
  // m: 10*16*4 = 640 bytes; t and u: 10*8*4 = 320, u takes t's buffer (same bytes per
  // element); o: 640.
  CHECK(offsetsOf(*graph, "s0") == std::vector<int64_t>{-1, -1});
  CHECK(offsetsOf(*graph, "u") == offsetsOf(*graph, "t"));
  CHECK(offsetsOf(*graph, "y") == std::vector<int64_t>{-1});
  CHECK(statistics["plan-memory.sum-bytes"] == 640 + 320 + 320 + 640);
  CHECK(statistics["plan-memory.lower-bound-bytes"] == 960);
  CHECK(statistics["plan-memory.arena-bytes"] == 960);
  CHECK(statistics["plan-memory.in-place"] == 1);
}

TEST_CASE("plan-memory: an unbounded symbol leaves the graph unplanned") {
  auto graph = parse(R"(graph @g(%x: f32[?s0,4]) -> (f32[?s0,4]) symbols(s0: [1, inf]) {
  %a = softmax(%x) {dim=1} : f32[?s0,4]
  %b = softmax(%a) {dim=1} : f32[?s0,4]
  return %b
})");
  std::string before = printGraph(*graph);
  PassContext context;
  Expected<bool> changed = createPlanMemoryPass()->run(*graph, context);
  REQUIRE(changed.ok());
  CHECK_FALSE(*changed);
  CHECK(printGraph(*graph) == before);
  CHECK(context.statistics["plan-memory.unbounded"] == 1);
  CHECK_FALSE(memoryStats(*graph).planned);
}

TEST_CASE("plan-memory: elementwise fusions run in place unless the body re-reads") {
  // f1's body reads a element by element: it takes a's buffer. f2's body transposes its
  // operand, so writing element i would clobber an element still to be read.
  auto graph = parse(R"(graph @g(%x: f32[8,8]) -> (f32[8,8]) {
  %a = softmax(%x) {dim=1} : f32[8,8]
  %f1 = fusion(%a) {kind="elementwise"} : f32[8,8] body(%p: f32[8,8]) {
    %q = exp(%p) : f32[8,8]
    %r = neg(%q) : f32[8,8]
    return %r
  }
  %f2 = fusion(%f1) {kind="elementwise"} : f32[8,8] body(%p: f32[8,8]) {
    %q = permute(%p) {dims=[1,0]} : f32[8,8]
    %r = add(%p, %q) : f32[8,8]
    return %r
  }
  %y = softmax(%f2) {dim=1} : f32[8,8]
  return %y
})");
  auto statistics = plan(*graph);
  CHECK(offsetsOf(*graph, "f1") == offsetsOf(*graph, "a"));
  CHECK(offsetsOf(*graph, "f2") != offsetsOf(*graph, "f1"));
  CHECK(statistics["plan-memory.in-place"] == 1);
  // Bodies are not annotated.
  for (const auto &node : graph->nodes()) {
    if (node->body() == nullptr)
      continue;
    for (const auto &inner : node->body()->nodes())
      CHECK_FALSE(inner->attrs().has(kArenaOffsetsAttr));
  }
}

TEST_CASE("memoryStats: an unplanned graph") {
  auto graph = parse(R"(graph @g(%x: f32[4]) -> (f32[4]) {
  %a = exp(%x) : f32[4]
  return %a
})");
  MemoryStats stats = memoryStats(*graph);
  CHECK_FALSE(stats.planned);
  CHECK(stats.arenaBytes == 0);
}

} // namespace

TEST_CASE("plan-memory: a state updated by a scatter is written in place unless read later") {
  // The cache's only reader is the scatter that updates it: the update is written where the
  // state lives (no arena buffer; codegen skips the scatter's copy of its input).
  auto graph = parse(R"(graph @g(%x: f32[1,4], %i: i64[1,4], %cache: f32[8,4] {state="cache"}) -> (f32[8,4], f32[8,4]) {
  %new = scatter(%cache, %i, %x) {dim=0, include_self=true, reduce="none"} : f32[8,4]
  %y = relu(%new) : f32[8,4]
  return %y, %new {state="cache"}
}
)");
  plan(*graph);
  CHECK(offsetsOf(*graph, "new") == std::vector<int64_t>{-1});
  // A later read of the old cache would see the update: the new value gets an arena buffer
  // and is copied into the state after the last node.
  auto later = parse(R"(graph @g(%x: f32[1,4], %i: i64[1,4], %cache: f32[8,4] {state="cache"}) -> (f32[8,4], f32[8,4]) {
  %new = scatter(%cache, %i, %x) {dim=0, include_self=true, reduce="none"} : f32[8,4]
  %old = relu(%cache) : f32[8,4]
  return %old, %new {state="cache"}
}
)");
  plan(*later);
  CHECK(offsetsOf(*later, "new") == std::vector<int64_t>{0});
  // A producer that reads the state at other positions (a softmax) is not in place either.
  auto reads = parse(R"(graph @g(%cache: f32[8,4] {state="cache"}) -> (f32[8,4]) {
  %new = softmax(%cache) {dim=1} : f32[8,4]
  return %new {state="cache"}
}
)");
  plan(*reads);
  CHECK(offsetsOf(*reads, "new") == std::vector<int64_t>{0});
}
