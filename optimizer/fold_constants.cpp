// Constant folding into new weights. Algorithm:
//   1. Walk a snapshot of the nodes in topological order (folding erases nodes).
//   2. A node folds when it is neither `fusion`, `aten_call` nor an operand-less `full`/
//      `arange`; every operand is constant-like -- a weight input (not User) whose data is
//      available, or an operand-less `full`/`arange` result; every operand and result type is
//      static; its results hold at most max(4096, its operands' elements) elements; and it is
//      not a view of one of the model's weights that something else still reads.
//   3. Evaluate it with ir::interpret on a temporary graph: one Parameter input per weight
//      operand (served as views of the data, not copied), a clone of each `full`/`arange`
//      operand, then the node itself; its results are the temporary graph's outputs.
//   4. Each result becomes a graph-owned constant (ir::Graph::addConstant) that takes over the
//      result's SSA name, with weight name "folded.<name>"; every use (graph outputs too)
//      moves to it and the node is erased. A new constant is itself constant-like, and the
//      walk is in order, so whole chains fold in one run.
//   5. Weight inputs that fed folded nodes, and new constants, are erased once unused, so
//      weights.bin ships neither the replaced weights nor intermediate folds. Dead `full`
//      nodes are dce's job.
//   6. Report a change iff a node was folded.
#include "optimizer/fold_constants.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace thunderc::opt {
namespace {

/// Results up to this many elements always fold; larger ones only when they are no larger
/// than their operands (a folded expand of a scalar would bloat weights.bin).
constexpr int64_t kAlwaysFoldElements = 4096;

bool isConstantSource(const ir::Node &node) {
  return (node.op() == ir::OpKind::Full || node.op() == ir::OpKind::Arange) &&
         node.numOperands() == 0;
}

// A weight whose value is known at compile time (a State input changes between runs).
bool isWeightInput(const ir::Value &value) {
  return value.isGraphInput() && value.inputKind() != ir::InputKind::User &&
         value.inputKind() != ir::InputKind::State;
}

bool isConstantLike(const ir::Value &value) {
  if (value.isGraphInput())
    return isWeightInput(value);
  return isConstantSource(*value.producer());
}

int64_t staticNumel(const ir::TensorType &type) {
  return ir::numElements(type.shape).value();
}

bool hasStaticTypes(const ir::Node &node) {
  auto isStatic = [](const ir::Value *value) { return value->type().isStatic(); };
  if (!std::all_of(node.operands().begin(), node.operands().end(), isStatic))
    return false;
  for (int i = 0; i < node.numResults(); ++i)
    if (!isStatic(node.result(i)))
      return false;
  return true;
}

/// The size guard of step 2 (types are static by then).
bool resultsFitSizeGuard(const ir::Node &node) {
  int64_t operandElements = 0;
  for (const ir::Value *operand : node.operands())
    operandElements += staticNumel(operand->type());
  int64_t resultElements = 0;
  for (int i = 0; i < node.numResults(); ++i)
    resultElements += staticNumel(node.result(i)->type());
  return resultElements <= std::max(kAlwaysFoldElements, operandElements);
}

/// Step 2 without the view rule, which needs to know which constants this run created.
bool isFoldCandidate(const ir::Node &node) {
  if (node.op() == ir::OpKind::Fusion || node.op() == ir::OpKind::AtenCall)
    return false;
  if (node.op() == ir::OpKind::CondPredicate)
    return false; // it also sets the host predicate that guarded nodes test
  if (node.numOperands() == 0)
    return false; // operand-less full/arange stay
  if (!std::all_of(node.operands().begin(), node.operands().end(),
                   [](const ir::Value *operand) { return isConstantLike(*operand); }))
    return false;
  return hasStaticTypes(node) && resultsFitSizeGuard(node);
}

/// "node 'conv2d_3' (mul)", for error context.
std::string describe(const ir::Node &node) {
  std::string name = node.name().empty() ? "%" + node.result(0)->name() : node.name();
  return "node '" + name + "' (" + std::string(node.info().name) + ")";
}

using WeightViews = std::unordered_map<const ir::Value *, ir::TensorView>;

class ConstantFolder {
public:
  ConstantFolder(ir::Graph &graph, PassContext &context) : graph_(graph), context_(context) {
    for (const auto &input : graph.inputs()) {
      usedNames_.insert(input->name());
      weightNames_.insert(input->weightName());
    }
    for (const auto &node : graph.nodes())
      for (int i = 0; i < node->numResults(); ++i)
        usedNames_.insert(node->result(i)->name());
  }

  /// Folds `node` if it qualifies; returns whether it did.
  Expected<bool> tryFold(ir::Node *node) {
    if (!isFoldCandidate(*node) || isViewOfSharedWeight(*node))
      return false;
    WeightViews data;
    for (const ir::Value *operand : node->operands()) {
      if (!operand->isGraphInput() || data.count(operand))
        continue;
      TC_ASSIGN_OR_RETURN(std::optional<ir::TensorView> view, weightData(*operand));
      if (!view)
        return false; // no data to fold with (text IR)
      data.emplace(operand, *view);
    }
    Expected<std::vector<ir::HostTensor>> results = evaluate(*node, data);
    if (!results.ok())
      return std::move(results).error().withContext(describe(*node));
    replaceResults(node, std::move(*results));
    return true;
  }

  /// Step 5: weight inputs that fed folded nodes, and folds nothing reads (intermediates, or
  /// a node that was dead already), are erased once unused.
  void eraseDeadWeights() {
    std::vector<ir::Value *> dead;
    for (const auto &input : graph_.inputs()) {
      bool touched = feeders_.count(input.get()) || folded_.count(input.get());
      if (touched && !input->hasUses() && !graph_.isOutput(input.get()))
        dead.push_back(input.get());
    }
    for (ir::Value *input : dead) {
      int64_t bytes = staticNumel(input->type()) * ir::dtypeSize(input->type().dtype);
      if (folded_.count(input)) {
        bytesAdded_ -= bytes; // never reaches weights.bin
      } else {
        ++weightsRemoved_;
        bytesRemoved_ += bytes;
      }
      graph_.eraseInput(input);
    }
  }

  void addStatistics(int64_t nodesFolded) const {
    if (nodesFolded == 0)
      return;
    context_.statistics["fold-constants.nodes-folded"] += nodesFolded;
    context_.statistics["fold-constants.bytes-added"] += bytesAdded_;
    context_.statistics["fold-constants.weights-removed"] += weightsRemoved_;
    context_.statistics["fold-constants.bytes-removed"] += bytesRemoved_;
  }

private:
  /// A view (reshape, permute, slice, ...) of one of the model's weights that other nodes
  /// still read costs nothing at run time (layout turns it into strides), while folding it
  /// would store the data twice. Constants this run created are exempt: they are
  /// intermediates whose other readers fold too (the batch_norm scale read by both the
  /// weight's reshape and the bias's mul).
  bool isViewOfSharedWeight(const ir::Node &node) const {
    if (!ir::hasTrait(node.op(), ir::kView))
      return false;
    const ir::Value *source = node.operand(0);
    if (!isWeightInput(*source) || folded_.count(source))
      return false;
    return std::any_of(source->uses().begin(), source->uses().end(),
                       [&](const ir::Use &use) { return use.user != &node; });
  }

  /// The data of a weight input, or nullopt when none is available (text IR).
  Expected<std::optional<ir::TensorView>> weightData(const ir::Value &input) const {
    if (const ir::HostTensor *owned = graph_.constantData(input.weightName()))
      return std::optional<ir::TensorView>(owned->view());
    if (!context_.weights)
      return std::optional<ir::TensorView>();
    Expected<ir::TensorView> served = context_.weights(input);
    if (!served.ok())
      return std::move(served).error().withContext("weight '" + input.weightName() + "'");
    return std::optional<ir::TensorView>(*served);
  }

  /// Step 3. `data` holds the views of the node's graph-input operands.
  static Expected<std::vector<ir::HostTensor>> evaluate(const ir::Node &node,
                                                        const WeightViews &data) {
    ir::Graph scratch("fold");
    std::unordered_map<const ir::Value *, ir::Value *> mapped;
    std::vector<ir::TensorView> served; // by scratch input weight name "0", "1", ...
    std::vector<ir::Value *> operands;
    for (ir::Value *operand : node.operands()) {
      auto it = mapped.find(operand);
      if (it == mapped.end()) {
        ir::Value *copy = nullptr;
        if (operand->isGraphInput()) {
          copy = scratch.addInput(operand->name(), operand->type(), ir::InputKind::Parameter,
                                  std::to_string(served.size()));
          served.push_back(data.at(operand));
        } else {
          const ir::Node &source = *operand->producer();
          ir::AttrMap sourceAttrs = source.attrs();
          sourceAttrs.erase(ir::kGuardAttr);
          copy = scratch.appendNode(source.op(), {}, {operand->type()}, std::move(sourceAttrs))
                     ->result();
        }
        it = mapped.emplace(operand, copy).first;
      }
      operands.push_back(it->second);
    }
    std::vector<ir::TensorType> resultTypes;
    for (int i = 0; i < node.numResults(); ++i)
      resultTypes.push_back(node.result(i)->type());
    ir::AttrMap attrs = node.attrs();
    attrs.erase(ir::kArenaOffsetsAttr);
    attrs.erase(ir::kGuardAttr);
    ir::Node *copy = scratch.appendNode(node.op(), operands, resultTypes, std::move(attrs));
    std::vector<ir::Value *> outputs;
    for (int i = 0; i < copy->numResults(); ++i)
      outputs.push_back(copy->result(i));
    scratch.setOutputs(outputs);
    auto serve = [&](const ir::Value &input) -> Expected<ir::TensorView> {
      return served.at(std::stoul(input.weightName()));
    };
    return ir::interpret(scratch, {}, serve);
  }

  /// Step 4.
  void replaceResults(ir::Node *node, std::vector<ir::HostTensor> results) {
    for (const ir::Value *operand : node->operands())
      if (operand->isGraphInput())
        feeders_.insert(operand);
    for (int i = 0; i < node->numResults(); ++i) {
      ir::Value *result = node->result(i);
      std::string name = result->name().empty() ? uniqueName("folded") : result->name();
      std::string weightName = uniqueWeightName("folded." + name);
      bytesAdded_ += static_cast<int64_t>(results[static_cast<size_t>(i)].bytes.size());
      ir::Value *constant =
          graph_.addConstant(name, weightName, std::move(results[static_cast<size_t>(i)]));
      folded_.insert(constant);
      graph_.replaceAllUsesWith(result, constant);
    }
    graph_.eraseNode(node);
  }

  std::string uniqueName(const std::string &base) {
    std::string name = base;
    for (int suffix = 1; usedNames_.count(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    usedNames_.insert(name);
    return name;
  }

  std::string uniqueWeightName(const std::string &base) {
    std::string name = base;
    for (int suffix = 1; weightNames_.count(name) || graph_.constantData(name); ++suffix)
      name = base + "_" + std::to_string(suffix);
    weightNames_.insert(name);
    return name;
  }

  ir::Graph &graph_;
  PassContext &context_;
  std::set<std::string> usedNames_;
  std::set<std::string> weightNames_;
  std::unordered_set<const ir::Value *> feeders_; ///< weight inputs read by folded nodes
  std::unordered_set<const ir::Value *> folded_;  ///< constants this run created
  int64_t bytesAdded_ = 0;
  int64_t weightsRemoved_ = 0;
  int64_t bytesRemoved_ = 0;
};

class FoldConstantsPass final : public Pass {
public:
  std::string_view name() const override { return "fold-constants"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    std::vector<ir::Node *> order;
    order.reserve(graph.nodes().size());
    for (const auto &node : graph.nodes())
      order.push_back(node.get());
    ConstantFolder folder(graph, context);
    int64_t folded = 0;
    for (ir::Node *node : order) {
      TC_ASSIGN_OR_RETURN(bool changed, folder.tryFold(node));
      folded += changed ? 1 : 0;
    }
    if (folded == 0)
      return false;
    folder.eraseDeadWeights();
    folder.addStatistics(folded);
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> createFoldConstantsPass() { return std::make_unique<FoldConstantsPass>(); }

} // namespace thunderc::opt
