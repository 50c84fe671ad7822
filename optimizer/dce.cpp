// Dead code elimination. Algorithm:
//   1. Walk the nodes in reverse topological order.
//   2. A node is dead when none of its results has a use or is a graph output (and it binds
//      no data-dependent symbol); erase it.
//      Its operands lose a use, and since their producers come earlier in the walk, a whole
//      dead chain dies in this single walk.
//   3. Weight inputs (parameters, buffers, constants) that nothing reads any more go too, so
//      that weights.bin holds no dead data (PT2E keeps the float originals of quantized
//      weights; folding and rewrites leave inputs behind). User inputs and state stay: they
//      are the model's interface.
//   4. Report a change iff at least one node or weight was erased.
#include "optimizer/dce.h"

#include <vector>

namespace thunderc::opt {
namespace {

bool isDead(const ir::Graph &graph, const ir::Node &node) {
  // nonzero and item bind a data-dependent symbol that later types may use without using
  // their results.
  if (node.op() == ir::OpKind::Nonzero || node.op() == ir::OpKind::Item)
    return false;
  for (int i = 0; i < node.numResults(); ++i) {
    const ir::Value *result = node.result(i);
    if (result->hasUses() || graph.isOutput(result))
      return false;
  }
  return true;
}

class DcePass final : public Pass {
public:
  std::string_view name() const override { return "dce"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    int64_t removed = 0;
    // Snapshot the order first: erasing from the list would invalidate a reverse iterator.
    std::vector<ir::Node *> order;
    order.reserve(graph.nodes().size());
    for (const auto &node : graph.nodes())
      order.push_back(node.get());
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      ir::Node *node = *it;
      if (!isDead(graph, *node))
        continue;
      graph.eraseNode(node);
      ++removed;
    }
    if (removed > 0)
      context.statistics["dce.nodes-removed"] += removed;
    std::vector<ir::Value *> deadWeights;
    for (const auto &input : graph.inputs()) {
      ir::InputKind kind = input->inputKind();
      if (kind != ir::InputKind::User && kind != ir::InputKind::State && !input->hasUses() &&
          !graph.isOutput(input.get()))
        deadWeights.push_back(input.get());
    }
    for (ir::Value *input : deadWeights)
      graph.eraseInput(input);
    if (!deadWeights.empty())
      context.statistics["dce.weights-removed"] += static_cast<int64_t>(deadWeights.size());
    return removed > 0 || !deadWeights.empty();
  }
};

} // namespace

std::unique_ptr<Pass> createDcePass() { return std::make_unique<DcePass>(); }

} // namespace thunderc::opt
