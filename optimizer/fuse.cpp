// Fusion of elementwise chains, reductions with their prologue and epilogue, and library-call
// epilogues into `fusion` nodes. Algorithm:
//   1. Epilogues: for each linear/matmul/addmm/conv2d/conv_transpose2d L (in graph order), follow
//      the single user of its result while that user is elementwise with L's result type; the links
//      before the last must have no other user. A chain of at least one link becomes a fusion
//      {kind="epilogue"}.
//   2. Reductions: for each sum/mean/amax/amin R over adjacent dims, grow a prologue upwards
//      (elementwise producers of R's operand shape whose every use is in the group) and an
//      epilogue downwards (elementwise users of R's result shape reading only R, epilogue
//      values and outside values). If R's result is also used outside, the epilogue is
//      dropped (R must then be the result). Formed when prologue or epilogue is non-empty.
//   3. Elementwise: seed at each elementwise node not yet fused, from the last node up;
//      the domain is the seed's result shape. Grow both ways through elementwise producers
//      and users whose result shape is the domain, until nothing joins. Formed at two nodes.
// Every candidate is admitted only if the group stays placeable: the last node outside the
// group that it reads comes before the first node outside that reads it. This rules out
// cycles (a path group -> outside -> group puts a reader before a producer) and guarantees
// that the fusion node fits in the list without moving other nodes. Each group is formed
// right away (formFusion), and positions are recomputed, so later checks see earlier
// fusions as single nodes. `full` constants read by elementwise members are copied into
// bodies and create no dependency. Cost: a seed search and a position map per kernel formed,
// O(nodes x kernels), and a placeability check per candidate, O(group) each.
#include "optimizer/fuse.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "ir/op_attributes.h"
#include "ir/shape_inference.h"
#include "ir/status.h"

namespace thunderc::opt {
namespace {

using NodeSet = std::unordered_set<const ir::Node *>;
using Positions = std::unordered_map<const ir::Node *, int64_t>;

bool isElementwise(const ir::Node &node) { return ir::hasTrait(node.op(), ir::kElementwise); }

bool isLibraryWithEpilogue(const ir::Node &node) {
  switch (node.op()) {
  case ir::OpKind::Linear:
  case ir::OpKind::LinearWq:
  case ir::OpKind::Matmul:
  case ir::OpKind::Addmm:
  case ir::OpKind::Conv2d:
  case ir::OpKind::Conv2dWq:
  case ir::OpKind::ConvTranspose2d:
    return true;
  default:
    return false;
  }
}

bool isFusibleReductionOp(ir::OpKind op) {
  return op == ir::OpKind::Sum || op == ir::OpKind::Mean || op == ir::OpKind::Amax ||
         op == ir::OpKind::Amin;
}

/// The reduced dims form one run (none: a 0-d input).
bool reducesAdjacentDims(const ir::Node &reduction) {
  std::vector<int64_t> dims =
      ir::reducedDims(ir::attr::dims(reduction), reduction.operand(0)->type().rank());
  return dims.empty() || dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
}

bool isFusibleReduction(const ir::Node &node) {
  return isFusibleReductionOp(node.op()) && reducesAdjacentDims(node);
}

bool isStaticFull(const ir::Node &node) {
  return node.op() == ir::OpKind::Full && node.result()->type().isStatic();
}

/// A `full` operand is copied into the body (no operand, no dependency) when every member
/// that reads it is elementwise; otherwise it is an ordinary operand.
template <typename Contains>
bool copiedIntoBody(const ir::Value &operand, const Contains &isMember) {
  const ir::Node *producer = operand.producer();
  if (producer == nullptr || isMember(producer) || !isStaticFull(*producer))
    return false;
  return std::all_of(operand.uses().begin(), operand.uses().end(), [&](const ir::Use &use) {
    return !isMember(use.user) || isElementwise(*use.user);
  });
}

/// True if `value` is read by a node outside the group or returned by the graph.
template <typename Contains>
bool escapes(const ir::Graph &graph, const ir::Value &value, const Contains &isMember) {
  if (graph.isOutput(&value))
    return true;
  return std::any_of(value.uses().begin(), value.uses().end(),
                     [&](const ir::Use &use) { return !isMember(use.user); });
}

bool hasSingleUser(const ir::Graph &graph, const ir::Value &value) {
  if (value.uses().empty() || graph.isOutput(&value))
    return false;
  const ir::Node *user = value.uses().front().user;
  return std::all_of(value.uses().begin(), value.uses().end(),
                     [&](const ir::Use &use) { return use.user == user; });
}

Positions positionsOf(const ir::Graph &graph) {
  Positions positions;
  int64_t index = 0;
  for (const auto &node : graph.nodes())
    positions[node.get()] = index++;
  return positions;
}

/// Whether two nodes run under the same cond guard (ir/ops.h kGuardAttr): a kernel runs all
/// of its members or none.
bool sameGuard(const ir::Node &a, const ir::Node &b) {
  const ir::AttrValue *guardA = a.attrs().find(ir::kGuardAttr);
  const ir::AttrValue *guardB = b.attrs().find(ir::kGuardAttr);
  if (guardA == nullptr || guardB == nullptr)
    return guardA == guardB;
  return *guardA == *guardB;
}

/// A group being grown, with the placeability test every candidate must pass.
class Group {
public:
  explicit Group(const Positions &positions) : positions_(positions) {}

  bool contains(const ir::Node *node) const { return members_.count(node) != 0; }
  const std::vector<ir::Node *> &nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }

  void add(ir::Node *node) {
    members_.insert(node);
    nodes_.push_back(node);
  }
  /// Adds `node` if it runs under the group's cond guard and the group stays placeable with
  /// it; says whether it did.
  bool tryAdd(ir::Node *node) {
    if (!nodes_.empty() && !sameGuard(*node, *nodes_.front()))
      return false;
    add(node);
    if (placeable())
      return true;
    members_.erase(node);
    nodes_.pop_back();
    return false;
  }
  void remove(const std::vector<ir::Node *> &nodes) {
    for (ir::Node *node : nodes) {
      members_.erase(node);
      nodes_.erase(std::find(nodes_.begin(), nodes_.end(), node));
    }
  }

  /// The last outside node the group reads precedes the first outside node reading it.
  bool placeable() const {
    auto isMember = [&](const ir::Node *node) { return contains(node); };
    int64_t lastProducer = -1;
    int64_t firstUser = std::numeric_limits<int64_t>::max();
    for (const ir::Node *node : nodes_) {
      for (const ir::Value *operand : node->operands()) {
        const ir::Node *producer = operand->producer();
        if (producer == nullptr || contains(producer) || copiedIntoBody(*operand, isMember))
          continue;
        lastProducer = std::max(lastProducer, positions_.at(producer));
      }
      for (int i = 0; i < node->numResults(); ++i)
        for (const ir::Use &use : node->result(i)->uses())
          if (!contains(use.user))
            firstUser = std::min(firstUser, positions_.at(use.user));
    }
    return lastProducer < firstUser;
  }

private:
  const Positions &positions_;
  NodeSet members_;
  std::vector<ir::Node *> nodes_;
};

// ---- epilogue ----

/// L and the chain of elementwise links after it (L alone if there is none).
std::vector<ir::Node *> growEpilogue(const ir::Graph &graph, const Positions &positions,
                                     ir::Node *library) {
  Group group(positions);
  group.add(library);
  const ir::TensorType &type = library->result()->type();
  ir::Value *tail = library->result();
  while (hasSingleUser(graph, *tail)) {
    ir::Node *user = tail->uses().front().user;
    if (!isElementwise(*user) || !(user->result()->type() == type) || !group.tryAdd(user))
      break;
    tail = user->result();
  }
  return group.nodes();
}

// ---- reduction ----

/// Elementwise producers of the reduction's operand shape whose every use is in the group.
void growPrologue(const ir::Graph &graph, Group &group, ir::Node &reduction,
                  std::vector<ir::Node *> &prologue) {
  const ir::Shape &shape = reduction.operand(0)->type().shape;
  std::vector<ir::Node *> frontier = {&reduction};
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t i = 0; i < frontier.size(); ++i) {
      for (ir::Value *operand : frontier[i]->operands()) {
        ir::Node *producer = operand->producer();
        if (producer == nullptr || group.contains(producer) || !isElementwise(*producer) ||
            !(producer->result()->type().shape == shape) || graph.isOutput(operand))
          continue;
        bool usedInside = std::all_of(operand->uses().begin(), operand->uses().end(),
                                      [&](const ir::Use &use) { return group.contains(use.user); });
        if (!usedInside || !group.tryAdd(producer))
          continue;
        prologue.push_back(producer);
        frontier.push_back(producer);
        grew = true;
      }
    }
  }
}

/// Elementwise users of the reduction's result shape that read no prologue value.
void growReductionEpilogue(Group &group, ir::Node &reduction, std::vector<ir::Node *> &epilogue) {
  const ir::Shape &shape = reduction.result()->type().shape;
  std::unordered_set<const ir::Node *> inner = {&reduction};
  std::vector<ir::Node *> frontier = {&reduction};
  for (size_t i = 0; i < frontier.size(); ++i) {
    for (const ir::Use &use : frontier[i]->result()->uses()) {
      ir::Node *user = use.user;
      if (group.contains(user) || !isElementwise(*user) ||
          !(user->result()->type().shape == shape))
        continue;
      bool readsPrologue = std::any_of(
          user->operands().begin(), user->operands().end(), [&](const ir::Value *operand) {
            return group.contains(operand->producer()) && !inner.count(operand->producer());
          });
      if (readsPrologue || !group.tryAdd(user))
        continue;
      inner.insert(user);
      epilogue.push_back(user);
      frontier.push_back(user);
    }
  }
}

/// The reduction with its prologue and epilogue; just the reduction if neither exists.
std::vector<ir::Node *> growReduction(const ir::Graph &graph, const Positions &positions,
                                      ir::Node *reduction) {
  Group group(positions);
  group.add(reduction);
  std::vector<ir::Node *> prologue;
  std::vector<ir::Node *> epilogue;
  growPrologue(graph, group, *reduction, prologue);
  growReductionEpilogue(group, *reduction, epilogue);
  auto isMember = [&](const ir::Node *node) { return group.contains(node); };
  if (!epilogue.empty() && escapes(graph, *reduction->result(), isMember)) {
    // R's result is needed outside, but a reduction kernel returns only epilogue values.
    group.remove(epilogue);
    epilogue.clear();
    if (!group.placeable())
      return {reduction};
  }
  return group.nodes();
}

// ---- elementwise ----

std::vector<ir::Node *> growElementwise(const ir::Graph &, const Positions &positions,
                                        ir::Node *seed) {
  Group group(positions);
  group.add(seed);
  const ir::Shape &domain = seed->result()->type().shape;
  auto joins = [&](const ir::Node *node) {
    return node != nullptr && !group.contains(node) && isElementwise(*node) &&
           node->result()->type().shape == domain;
  };
  // A candidate refused now may fit once more of a diamond has joined: repeat to a fixpoint.
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t i = 0; i < group.size(); ++i) {
      ir::Node *member = group.nodes()[i];
      for (ir::Value *operand : member->operands())
        if (joins(operand->producer()))
          grew |= group.tryAdd(operand->producer());
      for (const ir::Use &use : member->result()->uses())
        if (joins(use.user))
          grew |= group.tryAdd(use.user);
    }
  }
  return group.nodes();
}

// ---- the pass ----

struct Phase {
  const char *kind;
  bool (*isSeed)(const ir::Node &);
  std::vector<ir::Node *> (*grow)(const ir::Graph &, const Positions &, ir::Node *);
  bool reverse; ///< seeds from the last node up
};

// Epilogues first, so that a library call's activation is not taken by an elementwise kernel;
// reductions next, so that their prologue and epilogue are not.
const Phase kPhases[] = {
    {"epilogue", &isLibraryWithEpilogue, &growEpilogue, false},
    {"reduction", &isFusibleReduction, &growReduction, false},
    {"elementwise", &isElementwise, &growElementwise, true},
};

/// The next node (in phase order) that may seed a group and has not been tried.
ir::Node *nextSeed(const ir::Graph &graph, const Phase &phase, const NodeSet &tried) {
  auto pick = [&](const std::unique_ptr<ir::Node> &node) {
    return phase.isSeed(*node) && !tried.count(node.get());
  };
  if (phase.reverse) {
    auto it = std::find_if(graph.nodes().rbegin(), graph.nodes().rend(), pick);
    return it == graph.nodes().rend() ? nullptr : it->get();
  }
  auto it = std::find_if(graph.nodes().begin(), graph.nodes().end(), pick);
  return it == graph.nodes().end() ? nullptr : it->get();
}

class FusePass final : public Pass {
public:
  std::string_view name() const override { return "fuse"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    bool changed = false;
    for (const Phase &phase : kPhases) {
      // Seeds already tried stay in `tried`; fused nodes leave it before they are erased,
      // so the set never holds a dangling pointer.
      NodeSet tried;
      Positions positions = positionsOf(graph);
      while (ir::Node *seed = nextSeed(graph, phase, tried)) {
        tried.insert(seed);
        std::vector<ir::Node *> group = phase.grow(graph, positions, seed);
        if (group.size() < 2)
          continue;
        for (ir::Node *node : group)
          tried.erase(node);
        formFusion(graph, group, phase.kind);
        positions = positionsOf(graph);
        context.statistics[std::string("fuse.") + phase.kind] += 1;
        context.statistics["fuse.nodes-fused"] += static_cast<int64_t>(group.size());
        changed = true;
      }
    }
    return changed;
  }
};

// ---- whyNotFused ----

std::string describe(const ir::Node &node) {
  std::string op(node.info().name);
  if (node.op() == ir::OpKind::Fusion)
    return "a fused kernel";
  if (ir::hasTrait(node.op(), ir::kView))
    return "a view (" + op + ")";
  return "a library call (" + op + ")";
}

bool reads(const ir::Node &consumer, const ir::Node &producer) {
  return std::any_of(consumer.operands().begin(), consumer.operands().end(),
                     [&](const ir::Value *operand) { return operand->producer() == &producer; });
}

std::string shapesDiffer(const ir::TensorType &producer, const ir::TensorType &consumer) {
  return "shapes differ: " + producer.str() + " (producer) vs " + consumer.str() + " (consumer)";
}

} // namespace

std::string whyNotFused(const ir::Node &producer, const ir::Node &consumer) {
  if (!reads(consumer, producer))
    return "consumer does not read the producer's result";
  if (producer.numResults() != 1 || consumer.numResults() != 1)
    return producer.numResults() != 1 ? "producer is " + describe(producer)
                                      : "consumer is " + describe(consumer);
  const ir::Graph &graph = *producer.graph();
  const ir::Value &value = *producer.result();
  if (isStaticFull(producer))
    return isElementwise(consumer) ? "" : "consumer is " + describe(consumer);
  if (isLibraryWithEpilogue(producer)) {
    if (!isElementwise(consumer))
      return "consumer is " + describe(consumer);
    if (!(consumer.result()->type() == value.type()))
      return "epilogue changes the type: " + value.type().str() + " (producer) vs " +
             consumer.result()->type().str() + " (consumer)";
    if (!hasSingleUser(graph, value))
      return "the " + std::string(producer.info().name) + " result has other uses";
    return "";
  }
  if (isFusibleReductionOp(producer.op()) && isElementwise(consumer)) {
    if (!reducesAdjacentDims(producer))
      return "the reduced dims are not adjacent";
    if (!(consumer.result()->type().shape == value.type().shape))
      return shapesDiffer(value.type(), consumer.result()->type());
    auto isPair = [&](const ir::Node *node) { return node == &producer || node == &consumer; };
    if (escapes(graph, value, isPair))
      return "the reduction's result is also used outside the kernel";
    return "";
  }
  if (!isElementwise(producer))
    return "producer is " + describe(producer);
  if (isFusibleReductionOp(consumer.op())) {
    if (!reducesAdjacentDims(consumer))
      return "the reduced dims are not adjacent";
    auto isPair = [&](const ir::Node *node) { return node == &producer || node == &consumer; };
    if (escapes(graph, value, isPair))
      return "the producer's result is also used outside the reduction";
    return "";
  }
  if (!isElementwise(consumer))
    return "consumer is " + describe(consumer);
  if (!(value.type().shape == consumer.result()->type().shape))
    return shapesDiffer(value.type(), consumer.result()->type());
  return "";
}

ir::Node *formFusion(ir::Graph &graph, const std::vector<ir::Node *> &group,
                     std::string_view kind) {
  TC_CHECK(!group.empty(), "fusing an empty group");
  NodeSet members(group.begin(), group.end());
  auto isMember = [&](const ir::Node *node) { return members.count(node) != 0; };

  // 1. Members in graph order, and the node the fusion goes before: the first outside reader
  //    of a member, or else the last member.
  NodeSet outsideReaders;
  for (const ir::Node *node : group)
    for (int i = 0; i < node->numResults(); ++i)
      for (const ir::Use &use : node->result(i)->uses())
        if (!isMember(use.user))
          outsideReaders.insert(use.user);
  std::vector<ir::Node *> ordered;
  ir::Node *insertBefore = nullptr;
  NodeSet beforeInsertion;
  for (const auto &node : graph.nodes()) {
    if (insertBefore == nullptr && outsideReaders.count(node.get()))
      insertBefore = node.get();
    if (isMember(node.get())) {
      ordered.push_back(node.get());
      if (insertBefore == nullptr && ordered.size() == group.size())
        insertBefore = node.get();
    }
    if (insertBefore == nullptr)
      beforeInsertion.insert(node.get());
  }
  TC_CHECK(ordered.size() == members.size(), "fusing nodes of another graph");

  // 2. Operands (outside values, first use first) and copied constants.
  std::vector<ir::Value *> operands;
  std::unordered_set<const ir::Value *> isOperand;
  for (const ir::Node *node : ordered)
    for (ir::Value *operand : node->operands()) {
      if (isMember(operand->producer()) || copiedIntoBody(*operand, isMember) ||
          !isOperand.insert(operand).second)
        continue;
      TC_CHECK(operand->producer() == nullptr || beforeInsertion.count(operand->producer()),
               "fusion group is not placeable: an operand is defined after a reader of the "
               "group");
      operands.push_back(operand);
    }

  // 3. The body: inputs mirror operands; members (and constants, just before their first
  //    reader) are copied in order, keeping names and source info.
  auto body = std::make_unique<ir::Graph>(std::string(ir::opName(ir::OpKind::Fusion)));
  body->symbols() = graph.symbols();
  std::unordered_map<const ir::Value *, ir::Value *> inner;
  for (ir::Value *operand : operands)
    inner[operand] = body->addInput(operand->name(), operand->type());
  auto copyNode = [&](const ir::Node &node) {
    std::vector<ir::Value *> bodyOperands;
    for (const ir::Value *operand : node.operands())
      bodyOperands.push_back(inner.at(operand));
    std::vector<ir::TensorType> types;
    for (int i = 0; i < node.numResults(); ++i)
      types.push_back(node.result(i)->type());
    ir::AttrMap attrs = node.attrs();
    attrs.erase(ir::kGuardAttr); // the fusion node carries it
    ir::Node *copy = body->appendNode(node.op(), std::move(bodyOperands), std::move(types),
                                      std::move(attrs));
    copy->setName(node.name());
    copy->source() = node.source();
    for (int i = 0; i < node.numResults(); ++i) {
      copy->result(i)->setName(node.result(i)->name());
      inner[node.result(i)] = copy->result(i);
    }
  };
  std::vector<ir::Node *> constants;
  for (const ir::Node *node : ordered) {
    for (const ir::Value *operand : node->operands())
      if (!inner.count(operand) && copiedIntoBody(*operand, isMember)) {
        copyNode(*operand->producer());
        constants.push_back(operand->producer());
      }
    copyNode(*node);
  }

  // 4. Results: member values read outside, returned, or (left for dce) not read at all.
  std::vector<ir::Value *> escaping;
  for (const ir::Node *node : ordered)
    for (int i = 0; i < node->numResults(); ++i) {
      ir::Value *value = node->result(i);
      if (escapes(graph, *value, isMember) || !value->hasUses())
        escaping.push_back(value);
    }
  std::vector<ir::Value *> bodyOutputs;
  std::vector<ir::TensorType> types;
  for (ir::Value *value : escaping) {
    bodyOutputs.push_back(inner.at(value));
    types.push_back(value->type());
  }
  body->setOutputs(std::move(bodyOutputs));

  // 5. The fusion node takes the place, names and uses of the group; the group goes.
  ir::AttrMap attrs;
  attrs.set("kind", std::string(kind));
  ir::Node *fusion = graph.insertNodeBefore(insertBefore, ir::OpKind::Fusion, std::move(operands),
                                            std::move(types), std::move(attrs));
  fusion->attrs().erase(ir::kGuardAttr); // the members' guard, not the insertion point's
  if (const ir::AttrValue *guard = ordered.front()->attrs().find(ir::kGuardAttr))
    fusion->attrs().set(ir::kGuardAttr, *guard);
  const ir::Node &last = *ordered.back();
  fusion->setName(last.name());
  fusion->source() = last.source();
  fusion->setBody(std::move(body));
  for (size_t i = 0; i < escaping.size(); ++i) {
    ir::Value *result = fusion->result(static_cast<int>(i));
    result->setName(escaping[i]->name());
    escaping[i]->setName("");
    graph.replaceAllUsesWith(escaping[i], result);
  }
  for (auto it = ordered.rbegin(); it != ordered.rend(); ++it)
    graph.eraseNode(*it);
  for (ir::Node *constant : constants)
    if (!constant->result()->hasUses() && !graph.isOutput(constant->result()))
      graph.eraseNode(constant);
  return fusion;
}

std::unique_ptr<Pass> createFusePass() { return std::make_unique<FusePass>(); }

} // namespace thunderc::opt
