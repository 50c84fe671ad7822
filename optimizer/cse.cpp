// Common subexpression elimination. Algorithm:
//   1. Number the values in definition order (graph inputs, then node results), so keys are
//      deterministic and never depend on pointer values.
//   2. Walk the nodes in topological order. Skip `aten_call` (opaque) nodes.
//   3. Key each node by: op name, operand value numbers, attributes as "name=value" in sorted
//      name order (ir::attrValueStr), and result types.
//   4. If an earlier node has the same key, point every use of each result at the earlier
//      node's matching result and erase this node; otherwise remember it under its key.
//      Because the walk is in order, the operands of a node have already been rewritten to
//      their representatives, so chains of duplicates merge in one run.
//   5. Report a change iff at least one node was erased.
#include "optimizer/cse.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace thunderc::opt {
namespace {

using ValueNumbers = std::unordered_map<const ir::Value *, int64_t>;

std::string nodeKey(const ir::Node &node, const ValueNumbers &numbers) {
  std::string key(node.info().name);
  key += "(";
  for (const ir::Value *operand : node.operands())
    key += std::to_string(numbers.at(operand)) + ",";
  key += "){";
  for (const auto &[name, value] : node.attrs().all()) // std::map: sorted by name
    key += name + "=" + ir::attrValueStr(value) + ",";
  key += "}:";
  for (int i = 0; i < node.numResults(); ++i)
    key += node.result(i)->type().str() + ",";
  return key;
}

class CsePass final : public Pass {
public:
  std::string_view name() const override { return "cse"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    ValueNumbers numbers;
    for (const auto &input : graph.inputs())
      numbers.emplace(input.get(), static_cast<int64_t>(numbers.size()));
    std::vector<ir::Node *> order;
    for (const auto &node : graph.nodes())
      order.push_back(node.get());

    std::map<std::string, ir::Node *> seen;
    int64_t merged = 0;
    for (ir::Node *node : order) {
      for (int i = 0; i < node->numResults(); ++i)
        numbers.emplace(node->result(i), static_cast<int64_t>(numbers.size()));
      // Not merged: unknown ops (opaque), fusions (the key does not cover the body).
      if (node->op() == ir::OpKind::AtenCall || node->op() == ir::OpKind::Fusion)
        continue;
      auto [it, inserted] = seen.emplace(nodeKey(*node, numbers), node);
      if (inserted)
        continue;
      ir::Node *earlier = it->second;
      for (int i = 0; i < node->numResults(); ++i)
        graph.replaceAllUsesWith(node->result(i), earlier->result(i));
      graph.eraseNode(node);
      ++merged;
    }
    if (merged > 0)
      context.statistics["cse.nodes-merged"] += merged;
    return merged > 0;
  }
};

} // namespace

std::unique_ptr<Pass> createCsePass() { return std::make_unique<CsePass>(); }

} // namespace thunderc::opt
