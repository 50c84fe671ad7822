// Memory planning: every intermediate of the top-level schedule gets a byte offset in one
// arena. Algorithm:
//   1. Schedule = the node order; node i runs at position i, and the graph's return at
//      position numNodes.
//   2. Storage: each result of a non-view node that is not a graph output owns a buffer.
//      Graph inputs, weights and outputs live outside the arena; a view result owns nothing
//      and aliases the storage of its operand 0 (chains of views followed to the owner).
//      A state output is written straight into the context's state (which is also where the
//      State input is read from) only when that cannot clobber a read of the old value: its
//      producer runs after every other reader of the state and reads the state only where it
//      writes (operand 0 of a scatter / slice_scatter, or a same-index elementwise operand).
//      Otherwise it owns an arena buffer and is copied into the state after the last node.
//   3. Live interval of a buffer = [its producer's position, the last position that reads
//      the owner or any view of it]; a graph output that is a view of a buffer keeps the
//      buffer alive through the return. An unread buffer lives at its producer only.
//   4. In-place: a result of a same-index elementwise node (kElementwise op, or a fusion of
//      kind "elementwise" whose body reads the operand only through same-shape elementwise
//      ops) takes over the buffer of an operand that owns it, dies here, has the result's
//      shape and element size, and is read by no other operand of the node. A donor serves
//      at most one result.
//   5. Sizes: numel * dtype size with every symbol at its upper bound; a needed symbol with
//      no upper bound leaves the graph unplanned.
//   6. planBuffers places the buffers best-fit (below), and every top-level node gets
//      `arena_offsets`, one offset per result (-1 for no arena storage).
//
// planBuffers: in-place chains merge into one interval with one offset. Taken in some order,
// each takes the smallest gap between the already placed buffers whose intervals overlap its
// own (sorted by offset) that fits its aligned size, else the space above the highest of
// them. Three orders are tried (largest first, longest-lived first, earliest first) and the
// smallest arena is kept: each greedy order is best on some graphs (gpt's attention blocks
// need the longest-lived-first order to reach the lower bound).
#include "optimizer/memory_plan.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>

#include "ir/op_attributes.h"

namespace thunderc::opt {
namespace {

int64_t alignUp(int64_t bytes, int64_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

/// One in-place chain of requests: one interval, one offset.
struct Chain {
  int64_t bytes = 0; ///< aligned
  int first = 0;
  int last = 0;
  int leader = 0; ///< lowest request index in the chain
};

/// Merges each request into the chain of its in-place donor; chainOf[i] indexes the result.
std::vector<Chain> buildChains(const std::vector<BufferRequest> &requests, int64_t alignment,
                               std::vector<int> &chainOf) {
  std::vector<Chain> chains;
  chainOf.assign(requests.size(), -1);
  for (size_t i = 0; i < requests.size(); ++i) {
    const BufferRequest &request = requests[i];
    TC_CHECK(request.first <= request.last && request.bytes >= 0, "malformed buffer request");
    TC_CHECK(request.inPlaceOf < static_cast<int>(i), "in-place donor must come earlier");
    int64_t bytes = alignUp(request.bytes, alignment);
    if (request.inPlaceOf < 0) {
      chainOf[i] = static_cast<int>(chains.size());
      chains.push_back(Chain{bytes, request.first, request.last, static_cast<int>(i)});
      continue;
    }
    chainOf[i] = chainOf[static_cast<size_t>(request.inPlaceOf)];
    Chain &chain = chains[static_cast<size_t>(chainOf[i])];
    chain.bytes = std::max(chain.bytes, bytes);
    chain.first = std::min(chain.first, request.first);
    chain.last = std::max(chain.last, request.last);
  }
  return chains;
}

/// Max over positions of the bytes of the chains live there.
int64_t peakLiveBytes(const std::vector<Chain> &chains) {
  // (position, delta): a chain adds its bytes at `first` and removes them after `last`.
  std::vector<std::pair<int64_t, int64_t>> events;
  for (const Chain &chain : chains) {
    events.emplace_back(chain.first, chain.bytes);
    events.emplace_back(static_cast<int64_t>(chain.last) + 1, -chain.bytes);
  }
  std::sort(events.begin(), events.end()); // at one position, removals sort before additions
  int64_t live = 0;
  int64_t peak = 0;
  for (const auto &[position, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

/// The arena with no reuse at all: every request (in-place ones too) in its own buffer.
int64_t sumAlignedBytes(const std::vector<BufferRequest> &requests, int64_t alignment) {
  int64_t sum = 0;
  for (const BufferRequest &request : requests)
    sum += alignUp(request.bytes, alignment);
  return sum;
}

bool intervalsOverlap(const Chain &a, const Chain &b) {
  return a.first <= b.last && b.first <= a.last;
}

// ---- the graph side: which values own buffers, their intervals, in-place donors ----

/// The buffers of one graph, in node order, and which request each node result owns.
struct GraphRequests {
  std::vector<BufferRequest> requests;
  std::vector<ir::Node *> order;
  /// Per node of `order`, per result: index into `requests`, or -1 (no arena storage).
  std::vector<std::vector<int>> requestOf;
  /// A needed size depends on a symbol without an upper bound; requests are then empty.
  bool unbounded = false;
};

bool isView(const ir::Value *value) {
  return !value->isGraphInput() && ir::hasTrait(value->producer()->op(), ir::kView);
}

/// The value whose storage `value` uses: itself, or for a view the owner of its operand 0.
const ir::Value *storageOwner(const ir::Value *value) {
  while (isView(value))
    value = value->producer()->operand(0);
  return value;
}

/// State outputs that must be computed in the arena and copied into the state at the end.
using StagedOutputs = std::set<const ir::Value *>;

bool ownsArenaStorage(const ir::Graph &graph, const ir::Value *value,
                      const StagedOutputs &staged) {
  return !value->isGraphInput() && !isView(value) &&
         (!graph.isOutput(value) || staged.count(value) != 0);
}

/// Bytes of `value` with every symbol at its upper bound; nullopt if one is unbounded (or
/// the size overflows int64).
std::optional<int64_t> upperBoundBytes(const ir::Value *value,
                                       const std::map<std::string, int64_t> &bounds) {
  ir::Dim elements = ir::numElements(value->type().shape);
  int64_t count = 0;
  if (elements.isStatic()) {
    count = elements.value();
  } else {
    std::optional<int64_t> evaluated = elements.expr().evaluate(bounds);
    if (!evaluated)
      return std::nullopt;
    count = std::max<int64_t>(*evaluated, 0);
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(count, ir::dtypeSize(value->type().dtype), &bytes))
    return std::nullopt; // no arena that large exists: as good as unbounded
  return bytes;
}

/// True when the body of an elementwise fusion reads its input `index` only at the index it
/// writes: every value computed from that input goes through kElementwise ops whose results
/// keep the input's shape (no view, reduction or broadcast to a larger shape re-reads an
/// element after the result overwrote it).
bool bodyReadsInputAtSameIndex(const ir::Graph &body, int index) {
  const ir::Value *input = body.input(index);
  std::set<const ir::Value *> derived{input};
  for (const auto &node : body.nodes()) {
    bool readsDerived = std::any_of(node->operands().begin(), node->operands().end(),
                                    [&](const ir::Value *v) { return derived.count(v) != 0; });
    if (!readsDerived)
      continue;
    if (!ir::hasTrait(node->op(), ir::kElementwise))
      return false;
    for (int i = 0; i < node->numResults(); ++i) {
      if (node->result(i)->type().shape != input->type().shape)
        return false;
      derived.insert(node->result(i));
    }
  }
  return true;
}

bool isSameIndexElementwise(const ir::Node &node) {
  if (ir::hasTrait(node.op(), ir::kElementwise))
    return true;
  return node.op() == ir::OpKind::Fusion && ir::attr::kind(node) == "elementwise" &&
         node.body() != nullptr;
}

/// Whether result `result` of `node` (at `position`) may take over the buffer of operand
/// `operandIndex`, given the last position each owner is read at.
bool canTakeOver(const ir::Graph &graph, const ir::Node &node, int position, int operandIndex,
                 const ir::Value *result,
                 const std::unordered_map<const ir::Value *, int> &lastUse,
                 const StagedOutputs &staged) {
  const ir::Value *operand = node.operand(operandIndex);
  if (!ownsArenaStorage(graph, operand, staged) || lastUse.at(operand) != position)
    return false;
  if (operand->type().shape != result->type().shape ||
      ir::dtypeSize(operand->type().dtype) != ir::dtypeSize(result->type().dtype))
    return false;
  for (int j = 0; j < node.numOperands(); ++j) {
    if (j != operandIndex && storageOwner(node.operand(j)) == operand)
      return false;
  }
  return node.op() != ir::OpKind::Fusion || bodyReadsInputAtSameIndex(*node.body(), operandIndex);
}

/// Whether the state output `output` (updating `stateInput`) may be written where the state
/// lives: see step 2 above. `order` is the schedule.
bool writesStateInPlace(const ir::Graph &graph, const std::vector<ir::Node *> &order,
                        const ir::Value *output, const ir::Value *stateInput) {
  if (output->isGraphInput() || isView(output) ||
      std::count(graph.outputs().begin(), graph.outputs().end(), output) != 1)
    return false;
  const ir::Node *producer = output->producer();
  bool after = false;
  for (const ir::Node *node : order) {
    if (node == producer) {
      after = true;
      for (int k = 0; k < node->numOperands(); ++k) {
        const ir::Value *operand = node->operand(k);
        if (storageOwner(operand) != stateInput)
          continue;
        bool scatterSelf = (node->op() == ir::OpKind::Scatter ||
                            node->op() == ir::OpKind::SliceScatter) &&
                           k == 0 && operand == stateInput;
        bool sameIndex = isSameIndexElementwise(*node) && operand == stateInput &&
                         operand->type().shape == output->type().shape &&
                         (node->op() != ir::OpKind::Fusion ||
                          bodyReadsInputAtSameIndex(*node->body(), k));
        if (!scatterSelf && !sameIndex)
          return false;
      }
      continue;
    }
    if (!after)
      continue;
    for (const ir::Value *operand : node->operands())
      if (storageOwner(operand) == stateInput)
        return false;
  }
  for (size_t i = 0; i < graph.numUserOutputs(); ++i)
    if (storageOwner(graph.outputs()[i]) == stateInput)
      return false; // copied to the caller after the last node
  return after;
}

StagedOutputs stagedStateOutputs(const ir::Graph &graph, const std::vector<ir::Node *> &order) {
  StagedOutputs staged;
  for (size_t i = graph.numUserOutputs(); i < graph.outputs().size(); ++i) {
    const ir::Value *stateInput = nullptr;
    for (const auto &input : graph.inputs())
      if (input->inputKind() == ir::InputKind::State && input->weightName() == *graph.stateOf(i))
        stateInput = input.get();
    const ir::Value *output = graph.outputs()[i];
    if (!writesStateInPlace(graph, order, output, stateInput) && !output->isGraphInput() &&
        !isView(output))
      staged.insert(output);
  }
  return staged;
}

GraphRequests collectRequests(const ir::Graph &graph) {
  GraphRequests out;
  for (const auto &node : graph.nodes())
    out.order.push_back(node.get());
  const int returnPosition = static_cast<int>(out.order.size());
  const StagedOutputs staged = stagedStateOutputs(graph, out.order);

  // Last reads of each buffer owner, through any view.
  std::unordered_map<const ir::Value *, int> lastUse;
  for (int position = 0; position < returnPosition; ++position) {
    const ir::Node *node = out.order[static_cast<size_t>(position)];
    for (int i = 0; i < node->numResults(); ++i) {
      if (ownsArenaStorage(graph, node->result(i), staged))
        lastUse[node->result(i)] = position;
    }
    for (const ir::Value *operand : node->operands()) {
      const ir::Value *owner = storageOwner(operand);
      if (ownsArenaStorage(graph, owner, staged))
        lastUse[owner] = position; // positions only grow, so this is the max
    }
  }
  for (const ir::Value *output : graph.outputs()) {
    const ir::Value *owner = storageOwner(output);
    if (ownsArenaStorage(graph, owner, staged))
      lastUse[owner] = returnPosition;
  }

  std::map<std::string, int64_t> bounds;
  for (const auto &[symbol, range] : graph.symbols()) {
    if (range.max)
      bounds[symbol] = *range.max;
  }

  std::unordered_map<const ir::Value *, int> requestIndex;
  out.requestOf.resize(out.order.size());
  for (int position = 0; position < returnPosition; ++position) {
    const ir::Node &node = *out.order[static_cast<size_t>(position)];
    std::vector<int> &slots = out.requestOf[static_cast<size_t>(position)];
    slots.assign(static_cast<size_t>(node.numResults()), -1);
    std::set<const ir::Value *> donors; // taken over by an earlier result of this node
    for (int i = 0; i < node.numResults(); ++i) {
      const ir::Value *result = node.result(i);
      if (!ownsArenaStorage(graph, result, staged))
        continue;
      std::optional<int64_t> bytes = upperBoundBytes(result, bounds);
      if (!bytes) {
        out.requests.clear();
        out.requestOf.clear();
        out.unbounded = true;
        return out;
      }
      BufferRequest request{*bytes, position, lastUse.at(result), -1};
      for (int k = 0; isSameIndexElementwise(node) && k < node.numOperands(); ++k) {
        const ir::Value *operand = node.operand(k);
        if (donors.count(operand) != 0 || !canTakeOver(graph, node, position, k, result, lastUse, staged))
          continue;
        request.inPlaceOf = requestIndex.at(operand);
        donors.insert(operand);
        break;
      }
      slots[static_cast<size_t>(i)] = static_cast<int>(out.requests.size());
      requestIndex[result] = static_cast<int>(out.requests.size());
      out.requests.push_back(request);
    }
  }
  return out;
}

/// The ints `arena_offsets` should hold for node `position` under `plan`.
std::vector<int64_t> arenaOffsets(const GraphRequests &graphRequests, const BufferPlan &plan,
                                  size_t position) {
  std::vector<int64_t> offsets;
  for (int request : graphRequests.requestOf[position])
    offsets.push_back(request < 0 ? -1 : plan.offsets[static_cast<size_t>(request)]);
  return offsets;
}

class PlanMemoryPass final : public Pass {
public:
  std::string_view name() const override { return "plan-memory"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    GraphRequests graphRequests = collectRequests(graph);
    if (graphRequests.unbounded) {
      context.statistics["plan-memory.unbounded"] = 1;
      return false;
    }
    BufferPlan plan = planBuffers(graphRequests.requests);

    bool changed = false;
    for (size_t position = 0; position < graphRequests.order.size(); ++position) {
      ir::Node *node = graphRequests.order[position];
      ir::AttrValue offsets = arenaOffsets(graphRequests, plan, position);
      const ir::AttrValue *existing = node->attrs().find(ir::kArenaOffsetsAttr);
      if (existing != nullptr && *existing == offsets)
        continue;
      node->attrs().set(ir::kArenaOffsetsAttr, std::move(offsets));
      changed = true;
    }

    int64_t inPlace = std::count_if(graphRequests.requests.begin(), graphRequests.requests.end(),
                                    [](const BufferRequest &r) { return r.inPlaceOf >= 0; });
    context.statistics["plan-memory.arena-bytes"] = plan.arenaBytes;
    context.statistics["plan-memory.lower-bound-bytes"] = plan.lowerBound;
    context.statistics["plan-memory.sum-bytes"] = plan.sumBytes;
    context.statistics["plan-memory.in-place"] = inPlace;
    return changed;
  }
};


/// Best-fit placement of `chains` taken in `order`: each takes the smallest gap between the
/// already placed chains whose intervals overlap its own, else the space above them. Returns
/// the chain offsets; `arenaBytes` gets the top.
std::vector<int64_t> placeInOrder(const std::vector<Chain> &chains, const std::vector<int> &order,
                                  int64_t &arenaBytes) {
  std::vector<int64_t> chainOffset(chains.size(), 0);
  std::vector<int> placed;
  arenaBytes = 0;
  for (int index : order) {
    const Chain &chain = chains[static_cast<size_t>(index)];
    std::vector<int> neighbors;
    for (int other : placed) {
      if (intervalsOverlap(chain, chains[static_cast<size_t>(other)]))
        neighbors.push_back(other);
    }
    std::sort(neighbors.begin(), neighbors.end(), [&](int a, int b) {
      return std::pair(chainOffset[static_cast<size_t>(a)], a) <
             std::pair(chainOffset[static_cast<size_t>(b)], b);
    });
    // Walk the gaps between neighbors from the bottom; keep the smallest that fits.
    int64_t cursor = 0;
    int64_t best = -1;
    int64_t bestGap = std::numeric_limits<int64_t>::max();
    for (int other : neighbors) {
      int64_t start = chainOffset[static_cast<size_t>(other)];
      int64_t gap = start - cursor;
      if (gap >= chain.bytes && gap < bestGap) {
        best = cursor;
        bestGap = gap;
      }
      cursor = std::max(cursor, start + chains[static_cast<size_t>(other)].bytes);
    }
    int64_t offset = best >= 0 ? best : cursor;
    chainOffset[static_cast<size_t>(index)] = offset;
    arenaBytes = std::max(arenaBytes, offset + chain.bytes);
    placed.push_back(index);
  }
  return chainOffset;
}

} // namespace

BufferPlan planBuffers(const std::vector<BufferRequest> &requests, int64_t alignment) {
  TC_CHECK(alignment > 0, "arena alignment must be positive");
  std::vector<int> chainOf;
  std::vector<Chain> chains = buildChains(requests, alignment, chainOf);

  // Three placement orders, each a known-good greedy heuristic; the smallest arena wins (the
  // first order on ties, so plans are deterministic): largest first, longest-lived first,
  // earliest first. Ties inside an order: larger, then earlier, then lower index.
  auto byKey = [&](auto key) {
    std::vector<int> order(chains.size());
    for (size_t i = 0; i < chains.size(); ++i)
      order[i] = static_cast<int>(i);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const Chain &x = chains[static_cast<size_t>(a)];
      const Chain &y = chains[static_cast<size_t>(b)];
      return std::tuple(key(x), -x.bytes, x.first, x.leader) <
             std::tuple(key(y), -y.bytes, y.first, y.leader);
    });
    return order;
  };
  std::vector<std::vector<int>> orders = {
      byKey([](const Chain &c) { return -c.bytes; }),
      byKey([](const Chain &c) { return -static_cast<int64_t>(c.last - c.first); }),
      byKey([](const Chain &c) { return static_cast<int64_t>(c.first); }),
  };
  BufferPlan plan;
  std::vector<int64_t> chainOffset;
  for (const std::vector<int> &order : orders) {
    int64_t arena = 0;
    std::vector<int64_t> offsets = placeInOrder(chains, order, arena);
    if (chainOffset.empty() || arena < plan.arenaBytes) {
      chainOffset = std::move(offsets);
      plan.arenaBytes = arena;
    }
  }
  if (chains.empty())
    plan.arenaBytes = 0;

  for (size_t i = 0; i < requests.size(); ++i)
    plan.offsets.push_back(chainOffset[static_cast<size_t>(chainOf[i])]);
  plan.sumBytes = sumAlignedBytes(requests, alignment);
  plan.lowerBound = peakLiveBytes(chains);
  return plan;
}

MemoryStats memoryStats(const ir::Graph &graph) {
  MemoryStats stats;
  for (const auto &node : graph.nodes())
    stats.planned = stats.planned || node->attrs().has(ir::kArenaOffsetsAttr);
  if (!stats.planned)
    return stats;
  GraphRequests graphRequests = collectRequests(graph);
  if (graphRequests.unbounded)
    return stats;

  std::vector<int> chainOf;
  std::vector<Chain> chains = buildChains(graphRequests.requests, kArenaAlignment, chainOf);
  stats.lowerBound = peakLiveBytes(chains);
  stats.sumBytes = sumAlignedBytes(graphRequests.requests, kArenaAlignment);
  // The arena is what the annotations say, not what planBuffers would say today.
  for (size_t position = 0; position < graphRequests.order.size(); ++position) {
    const ir::AttrMap &attrs = graphRequests.order[position]->attrs();
    if (!attrs.has(ir::kArenaOffsetsAttr))
      continue;
    std::vector<int64_t> offsets = attrs.getInts(ir::kArenaOffsetsAttr);
    const std::vector<int> &slots = graphRequests.requestOf[position];
    for (size_t i = 0; i < offsets.size() && i < slots.size(); ++i) {
      if (offsets[i] < 0 || slots[i] < 0)
        continue;
      int64_t bytes = graphRequests.requests[static_cast<size_t>(slots[i])].bytes;
      stats.arenaBytes = std::max(stats.arenaBytes, offsets[i] + alignUp(bytes, kArenaAlignment));
    }
  }
  return stats;
}

std::unique_ptr<Pass> createPlanMemoryPass() { return std::make_unique<PlanMemoryPass>(); }

} // namespace thunderc::opt
