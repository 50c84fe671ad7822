// The IR verifier (ir/verifier.h). It runs in three phases over the whole graph, each relying
// on the previous one:
//   1. structure: nodes belong to the graph; operand and result counts fit ir/ops.def; every
//      operand is defined earlier; use-lists match operands exactly; names are unique;
//      outputs are defined;
//   2. attributes: exactly those ir/ops.def declares, with the declared types, and every
//      symbol a dim attribute mentions is declared (so shape functions can read attributes
//      with the typed getters);
//      a cond branch's `guard` is well formed and no unguarded reader sees a guarded value;
//   3. types: symbol ranges are sane, types have no negative dims and declare their symbols,
//      and every node's result types equal inferResultTypes.
#include "ir/verifier.h"

#include <algorithm>
#include <set>
#include <string>

#include "ir/op_attributes.h"
#include "ir/shape_inference.h"

namespace thunderc::ir {
namespace {

// "node '%conv2d_3' (conv2d)" when the first result has a name, else "node #3 (conv2d)" with
// the node's index in the graph's node list.
std::string nodeLabel(const Node &node, int index) {
  std::string op(opName(node.op()));
  if (node.numResults() > 0 && !node.result(0)->name().empty())
    return "node '%" + node.result(0)->name() + "' (" + op + ")";
  return "node #" + std::to_string(index) + " (" + op + ")";
}

std::string valueLabel(const Value &value) {
  return value.name().empty() ? std::string("an unnamed value") : "'%" + value.name() + "'";
}

Error nodeError(const Node &node, int index, const std::string &message) {
  return invalidInput(nodeLabel(node, index) + ": " + message);
}

// "2 operands", "1 operand", "1 to 3 operands", "at least 1 operand".
std::string countPhrase(int minimum, int maximum, const std::string &noun) {
  std::string range = maximum < 0 ? "at least " + std::to_string(minimum)
                      : minimum == maximum
                          ? std::to_string(minimum)
                          : std::to_string(minimum) + " to " + std::to_string(maximum);
  bool singular = range == "1" || range.ends_with(" 1");
  return range + " " + noun + (singular ? "" : "s");
}

bool countFits(int count, int minimum, int maximum) {
  return count >= minimum && (maximum < 0 || count <= maximum);
}

// ---- phase 1: structure ----

class StructureVerifier {
public:
  explicit StructureVerifier(const Graph &graph) : graph_(graph) {}

  Status run() {
    for (const auto &node : graph_.nodes())
      nodes_.insert(node.get());
    for (const auto &input : graph_.inputs()) {
      TC_TRY(defineValue(*input, "input " + valueLabel(*input)));
      if (!input->isGraphInput())
        return invalidInput("input " + valueLabel(*input) + " has a producer");
    }
    int index = 0;
    for (const auto &node : graph_.nodes()) {
      TC_TRY(verifyNode(*node, index));
      ++index;
    }
    TC_TRY(verifyUseLists());
    return verifyOutputs();
  }

private:
  Status defineValue(const Value &value, const std::string &what) {
    defined_.insert(&value);
    if (value.name().empty())
      return Status::success();
    if (!names_.insert(value.name()).second)
      return invalidInput(what + ": value name '%" + value.name() + "' is already defined");
    return Status::success();
  }

  Status verifyCounts(const Node &node, int index) {
    const OpInfo &info = node.info();
    if (!countFits(node.numOperands(), info.minOperands, info.maxOperands))
      return nodeError(node, index,
                       "expected " + countPhrase(info.minOperands, info.maxOperands, "operand") +
                           ", got " + std::to_string(node.numOperands()));
    if (info.numResults >= 0 && node.numResults() != info.numResults)
      return nodeError(node, index,
                       "expected " + countPhrase(info.numResults, info.numResults, "result") +
                           ", got " + std::to_string(node.numResults()));
    return Status::success();
  }

  // The operand is defined before this node and its use-list records this use exactly once.
  Status verifyOperand(const Node &node, int index, int operandIndex) {
    const Value *operand = node.operand(operandIndex);
    std::string what = "operand " + std::to_string(operandIndex);
    if (operand == nullptr)
      return nodeError(node, index, what + " is null");
    if (!defined_.count(operand))
      return nodeError(node, index,
                       what + " (" + valueLabel(*operand) + ") is not defined before its use");
    auto isThisUse = [&](const Use &use) {
      return use.user == &node && use.operandIndex == operandIndex;
    };
    auto count = std::count_if(operand->uses().begin(), operand->uses().end(), isThisUse);
    if (count != 1)
      return nodeError(node, index,
                       what + " (" + valueLabel(*operand) + ") appears " + std::to_string(count) +
                           " times in its use-list, expected once");
    return Status::success();
  }

  Status verifyNode(const Node &node, int index) {
    if (node.graph() != &graph_)
      return nodeError(node, index, "belongs to another graph");
    TC_TRY(verifyCounts(node, index));
    for (int i = 0; i < node.numOperands(); ++i)
      TC_TRY(verifyOperand(node, index, i));
    for (int i = 0; i < node.numResults(); ++i) {
      const Value &result = *node.result(i);
      if (result.producer() != &node || result.resultIndex() != i)
        return nodeError(node, index, "result " + std::to_string(i) + " has a wrong producer");
      TC_TRY(defineValue(result, nodeLabel(node, index)));
    }
    return Status::success();
  }

  // Every recorded use points at a node of this graph whose operand is the value.
  Status verifyUses(const Value &value) {
    for (const Use &use : value.uses()) {
      bool valid = nodes_.count(use.user) && use.operandIndex >= 0 &&
                   use.operandIndex < use.user->numOperands() &&
                   use.user->operand(use.operandIndex) == &value;
      if (!valid)
        return invalidInput(
            "value " + valueLabel(value) + " has a stale use (operand " +
            std::to_string(use.operandIndex) + " of a " +
            (nodes_.count(use.user) ? "node that does not use it)" : "node outside the graph)"));
    }
    return Status::success();
  }

  Status verifyUseLists() {
    for (const auto &input : graph_.inputs())
      TC_TRY(verifyUses(*input));
    for (const auto &node : graph_.nodes()) {
      for (int i = 0; i < node->numResults(); ++i)
        TC_TRY(verifyUses(*node->result(i)));
    }
    return Status::success();
  }

  Status verifyOutputs() {
    for (size_t i = 0; i < graph_.outputs().size(); ++i) {
      const Value *output = graph_.outputs()[i];
      if (output == nullptr || !defined_.count(output))
        return invalidInput("output " + std::to_string(i) + " is not defined in the graph");
      if (const std::string *state = graph_.stateOf(i))
        TC_TRY(verifyStateOutput(i, *output, *state));
    }
    return Status::success();
  }

  // A state output updates one State input of its own type, and no state is updated twice.
  Status verifyStateOutput(size_t index, const Value &output, const std::string &state) {
    std::string where = "state output " + std::to_string(index) + " ('" + state + "')";
    for (size_t j = graph_.numUserOutputs(); j < index; ++j)
      if (*graph_.stateOf(j) == state)
        return invalidInput(where + ": the state is updated twice");
    for (const auto &input : graph_.inputs()) {
      if (input->inputKind() != InputKind::State || input->weightName() != state)
        continue;
      if (!(input->type() == output.type()))
        return invalidInput(where + ": the value is " + output.type().str() +
                            " but the state is " + input->type().str());
      return Status::success();
    }
    return invalidInput(where + ": no state input has that name");
  }

  const Graph &graph_;
  std::set<const Node *> nodes_;
  std::set<const Value *> defined_;
  std::set<std::string> names_;
};

// ---- symbols ----

// The first symbol `dims` mention that is missing from the graph's symbols, or "".
std::string firstUndeclaredSymbol(const Graph &graph, const std::vector<Dim> &dims) {
  std::set<std::string> symbols;
  for (const Dim &dim : dims) {
    if (!dim.isStatic())
      dim.expr().collectSymbols(symbols);
  }
  for (const std::string &symbol : symbols) {
    if (!graph.symbols().count(symbol))
      return symbol;
  }
  return "";
}

// What is wrong with the dims of a value's type ("" if nothing): a negative static dim or
// an undeclared symbol.
std::string typeProblem(const Graph &graph, const TensorType &type) {
  auto isNegative = [](const Dim &dim) { return dim.isStatic() && dim.value() < 0; };
  if (std::any_of(type.shape.begin(), type.shape.end(), isNegative))
    return "type " + type.str() + " has a negative dim";
  std::string symbol = firstUndeclaredSymbol(graph, type.shape);
  if (!symbol.empty())
    return "type " + type.str() + " uses undeclared symbol '" + symbol + "'";
  return "";
}

// ---- phase 2: attributes ----

// The allowances of AttrMap's getters: an integer where a float or a symbolic dim may go.
bool attrTypeAccepted(AttrType declared, AttrType actual) {
  if (declared == actual)
    return true;
  switch (declared) {
  case AttrType::Float:
    return actual == AttrType::Int;
  case AttrType::Floats:
    return actual == AttrType::Ints;
  case AttrType::Dim:
    return actual == AttrType::Int;
  case AttrType::Dims:
    return actual == AttrType::Ints;
  default:
    return false;
  }
}

std::vector<Dim> dimsOfAttr(const AttrValue &value) {
  if (const Dim *dim = std::get_if<Dim>(&value))
    return {*dim};
  if (const auto *dims = std::get_if<std::vector<Dim>>(&value))
    return *dims;
  return {};
}

bool isDeclaredAttr(const OpInfo &info, const std::string &name) {
  return std::any_of(info.attributes.begin(), info.attributes.end(),
                     [&](const AttrSpec &spec) { return spec.name == name; });
}

// The guard pairs of a node (ir/ops.h kGuardAttr), empty when it has none.
std::set<std::pair<int64_t, int64_t>> guardOf(const Node &node) {
  std::set<std::pair<int64_t, int64_t>> pairs;
  const AttrValue *guard = node.attrs().find(kGuardAttr);
  const auto *list = guard ? std::get_if<std::vector<int64_t>>(guard) : nullptr;
  for (size_t i = 0; list && i + 1 < list->size(); i += 2)
    pairs.insert({(*list)[i], (*list)[i + 1]});
  return pairs;
}

// A guard is [predicate_id, polarity, ...] pairs with polarity 0 or 1, each id set by an
// earlier cond_predicate, and a node runs whenever a consumer of its results runs: its guard
// is a subset of each consumer's, where() and fusions excepted (a cond's where reads both
// branches and selects). Graph outputs are never guarded.
Status verifyGuard(const Graph &graph, const Node &node, int index,
                   const std::set<int64_t> &predicatesBefore) {
  const AttrValue *guard = node.attrs().find(kGuardAttr);
  if (guard != nullptr) {
    const auto *list = std::get_if<std::vector<int64_t>>(guard);
    bool wellFormed = list != nullptr && !list->empty() && list->size() % 2 == 0;
    for (size_t i = 0; wellFormed && i < list->size(); i += 2)
      wellFormed = predicatesBefore.count((*list)[i]) && ((*list)[i + 1] == 0 || (*list)[i + 1] == 1);
    if (!wellFormed)
      return nodeError(node, index,
                       "attribute 'guard' must list [predicate_id, polarity] pairs of earlier "
                       "cond_predicate nodes");
  }
  std::set<std::pair<int64_t, int64_t>> mine = guardOf(node);
  // A cond's where() reads both branches and keeps the taken one's values; a fusion may hold
  // such a where (fuse groups only nodes of equal guards, besides).
  bool selectsBranches = node.op() == OpKind::Where || node.op() == OpKind::Fusion;
  for (const Value *operand : node.operands()) {
    if (selectsBranches)
      break;
    if (operand->producer() == nullptr)
      continue;
    std::set<std::pair<int64_t, int64_t>> needed = guardOf(*operand->producer());
    if (!std::includes(mine.begin(), mine.end(), needed.begin(), needed.end()))
      return nodeError(node, index, "reads a value of a cond branch it is not guarded by");
  }
  for (int r = 0; r < node.numResults(); ++r)
    if (!mine.empty() && graph.isOutput(node.result(r)))
      return nodeError(node, index, "a guarded result is a graph output");
  return Status::success();
}

Status verifyAttributes(const Graph &graph, const Node &node, int index) {
  const OpInfo &info = node.info();
  for (const AttrSpec &spec : info.attributes) {
    const AttrValue *value = node.attrs().find(spec.name);
    if (value == nullptr && spec.optional)
      continue;
    if (value == nullptr)
      return nodeError(node, index, "missing attribute '" + spec.name + "'");
    if (!attrTypeAccepted(spec.type, attrType(*value)))
      return nodeError(node, index,
                       "attribute '" + spec.name + "' has type " + attrTypeName(attrType(*value)) +
                           ", expected " + attrTypeName(spec.type));
  }
  for (const auto &[name, value] : node.attrs().all()) {
    if (name == kGuardAttr)
      continue; // checked by verifyGuard
    if (name == kArenaOffsetsAttr) {
      const auto *offsets = std::get_if<std::vector<int64_t>>(&value);
      if (offsets == nullptr || offsets->size() != static_cast<size_t>(node.numResults()))
        return nodeError(node, index,
                         "attribute 'arena_offsets' must list one integer per result");
      continue;
    }
    if (!isDeclaredAttr(info, name))
      return nodeError(node, index, "unknown attribute '" + name + "'");
    std::string symbol = firstUndeclaredSymbol(graph, dimsOfAttr(value));
    if (!symbol.empty())
      return nodeError(node, index,
                       "attribute '" + name + "' uses undeclared symbol '" + symbol + "'");
  }
  return Status::success();
}

// ---- phase 3: types ----

// A data-dependent symbol (bound by a nonzero or item node when it runs) is used only after
// that node: in result types and Dim attributes of later nodes (the node's own result may use
// it). The inputs' symbols are bound before any node runs. Each node binds a symbol no input
// and no other node binds.
Status verifySymbolBinding(const Graph &graph) {
  std::set<std::string> bound, dataDependent;
  for (const auto &node : graph.nodes())
    if (node->op() == OpKind::Nonzero || node->op() == OpKind::Item)
      dataDependent.insert(attr::symbol(*node));
  for (const auto &input : graph.inputs())
    for (const Dim &dim : input->type().shape)
      if (!dim.isStatic())
        dim.expr().collectSymbols(bound);
  int index = 0;
  for (const auto &node : graph.nodes()) {
    if (node->op() == OpKind::Nonzero || node->op() == OpKind::Item) {
      const std::string &symbol = attr::symbol(*node);
      if (!bound.insert(symbol).second)
        return nodeError(*node, index, "symbol '" + symbol +
                                           "' is already bound by an input dim or an earlier node");
    }
    std::set<std::string> used;
    for (int r = 0; r < node->numResults(); ++r)
      for (const Dim &dim : node->result(r)->type().shape)
        if (!dim.isStatic())
          dim.expr().collectSymbols(used);
    for (const std::string &symbol : used)
      if (dataDependent.count(symbol) && !bound.count(symbol))
        return nodeError(*node, index,
                         "uses symbol '" + symbol + "' before the node that binds it");
    ++index;
  }
  return Status::success();
}

Status verifySymbolRanges(const Graph &graph) {
  for (const auto &[name, range] : graph.symbols()) {
    bool empty = range.max.has_value() && *range.max < range.min;
    if (range.min < 0 || empty)
      return invalidInput("symbol '" + name + "' has an invalid range [" +
                          std::to_string(range.min) + ", " +
                          (range.max ? std::to_string(*range.max) : "inf") + "]");
  }
  return Status::success();
}

Status verifyInputTypes(const Graph &graph) {
  for (const auto &input : graph.inputs()) {
    std::string problem = typeProblem(graph, input->type());
    if (!problem.empty())
      return invalidInput("input " + valueLabel(*input) + " " + problem);
  }
  return Status::success();
}

Status verifyResultTypes(const Graph &graph, const Node &node, int index) {
  std::vector<TensorType> operandTypes;
  for (const Value *operand : node.operands())
    operandTypes.push_back(operand->type());
  std::vector<TensorType> declared;
  for (int i = 0; i < node.numResults(); ++i)
    declared.push_back(node.result(i)->type());
  for (size_t i = 0; i < declared.size(); ++i) {
    std::string problem = typeProblem(graph, declared[i]);
    if (!problem.empty())
      return nodeError(node, index, "result " + std::to_string(i) + " " + problem);
  }
  Expected<std::vector<TensorType>> inferred =
      inferResultTypes(node.op(), operandTypes, node.attrs(), declared);
  if (!inferred.ok())
    return std::move(inferred).error().withContext(nodeLabel(node, index));
  if (inferred->size() != declared.size())
    return nodeError(node, index,
                     "has " + std::to_string(declared.size()) + " results, inferred " +
                         std::to_string(inferred->size()));
  for (size_t i = 0; i < declared.size(); ++i) {
    if (!(declared[i] == (*inferred)[i]))
      return nodeError(node, index,
                       "result " + std::to_string(i) + " has type " + declared[i].str() +
                           ", inferred " + (*inferred)[i].str());
  }
  return Status::success();
}

// A fusion's body mirrors the node: one input per operand and one output per result, with
// equal types, and is itself a valid graph. Other ops have no body.
Status verifyBody(const Node &node, int index) {
  const Graph *body = node.body();
  if (node.op() != OpKind::Fusion)
    return body == nullptr ? Status::success()
                           : nodeError(node, index, "only fusion nodes have a body");
  if (body == nullptr)
    return nodeError(node, index, "fusion without a body");
  if (body->numInputs() != node.numOperands() ||
      body->outputs().size() != static_cast<size_t>(node.numResults()))
    return nodeError(node, index, "body has " + std::to_string(body->numInputs()) +
                                      " inputs and " + std::to_string(body->outputs().size()) +
                                      " outputs; the node has " +
                                      std::to_string(node.numOperands()) + " operands and " +
                                      std::to_string(node.numResults()) + " results");
  for (int i = 0; i < node.numOperands(); ++i)
    if (!(body->input(i)->type() == node.operand(i)->type()) ||
        body->input(i)->inputKind() != InputKind::User)
      return nodeError(node, index, "body input " + std::to_string(i) +
                                        " does not match operand " + std::to_string(i));
  for (int i = 0; i < node.numResults(); ++i)
    if (!(body->outputs()[static_cast<size_t>(i)]->type() == node.result(i)->type()))
      return nodeError(node, index, "body output " + std::to_string(i) +
                                        " does not match result " + std::to_string(i));
  Status verified = verifyGraph(*body);
  if (!verified.ok())
    return std::move(verified).error().withContext(nodeLabel(node, index) + " body");
  return Status::success();
}

} // namespace

Status verifyGraph(const Graph &graph) {
  TC_TRY(StructureVerifier(graph).run());
  int index = 0;
  std::set<int64_t> predicatesBefore;
  for (const auto &node : graph.nodes()) {
    TC_TRY(verifyAttributes(graph, *node, index));
    TC_TRY(verifyGuard(graph, *node, index++, predicatesBefore));
    if (node->op() == OpKind::CondPredicate)
      predicatesBefore.insert(attr::predicate_id(*node));
  }
  TC_TRY(verifySymbolRanges(graph));
  TC_TRY(verifyInputTypes(graph));
  TC_TRY(verifySymbolBinding(graph));
  index = 0;
  for (const auto &node : graph.nodes())
    TC_TRY(verifyResultTypes(graph, *node, index++));
  index = 0;
  for (const auto &node : graph.nodes())
    TC_TRY(verifyBody(*node, index++));
  return Status::success();
}

} // namespace thunderc::ir
