// Partitioning: after it, every top-level node is a kernel (fusion), a library call or a view.
// Algorithm:
//   1. Wrap each top-level elementwise node into a one-node fusion {kind="elementwise"}, in
//      graph order, with formFusion (optimizer/fuse.h), so static `full` constants it reads
//      are copied into the body just as "fuse" copies them.
//   2. Wrap each `full` still at the top level (read by a library call, returned, or of a
//      symbolic shape) into its own one-node fusion. This runs after step 1 so that a
//      constant is not turned into a kernel before its elementwise readers copy it.
//   3. Report a change iff something was wrapped, and count each class in the statistics.
#include "optimizer/partition.h"

#include <vector>

#include "ir/status.h"
#include "optimizer/fuse.h"

namespace thunderc::opt {
namespace {

bool isElementwise(const ir::Node &node) { return ir::hasTrait(node.op(), ir::kElementwise); }

bool isFull(const ir::Node &node) { return node.op() == ir::OpKind::Full; }

/// Wraps every top-level node matching `select` into its own fusion; returns how many.
template <typename Select> int64_t wrapEach(ir::Graph &graph, Select select) {
  // Snapshot first: wrapping inserts a node and erases the original (and maybe constants,
  // which step 1 never selects, so no snapshot entry dangles).
  std::vector<ir::Node *> selected;
  for (const auto &node : graph.nodes())
    if (select(*node))
      selected.push_back(node.get());
  for (ir::Node *node : selected)
    formFusion(graph, {node}, "elementwise");
  return static_cast<int64_t>(selected.size());
}

class PartitionPass final : public Pass {
public:
  std::string_view name() const override { return "partition"; }

  Expected<bool> run(ir::Graph &graph, PassContext &context) override {
    int64_t wrapped = wrapEach(graph, isElementwise);
    wrapped += wrapEach(graph, isFull);
    if (wrapped > 0)
      context.statistics["partition.wrapped"] += wrapped;
    for (const auto &node : graph.nodes()) {
      PartitionKind kind = partitionKind(*node);
      TC_CHECK(kind != PartitionKind::Kernel || node->op() == ir::OpKind::Fusion,
               "partition left an unwrapped kernel node");
      context.statistics["partition." + std::string(partitionKindName(kind))] += 1;
    }
    return wrapped > 0;
  }
};

} // namespace

std::string_view partitionKindName(PartitionKind kind) {
  switch (kind) {
  case PartitionKind::Kernel: return "kernel";
  case PartitionKind::Library: return "library";
  case PartitionKind::View: return "view";
  case PartitionKind::Host: return "host";
  }
  TC_CHECK(false, "unknown partition kind");
}

PartitionKind partitionKind(const ir::Node &node) {
  if (node.op() == ir::OpKind::Fusion || isElementwise(node) || isFull(node))
    return PartitionKind::Kernel;
  if (ir::hasTrait(node.op(), ir::kView))
    return PartitionKind::View;
  return PartitionKind::Library;
}

std::unique_ptr<Pass> createPartitionPass() { return std::make_unique<PartitionPass>(); }

} // namespace thunderc::opt
