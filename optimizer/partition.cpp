// Partitioning of every node. (Stub: being written.)
#include "optimizer/partition.h"

namespace thunderc::opt {
namespace {

class PartitionPass final : public Pass {
public:
  std::string_view name() const override { return "partition"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createPartitionPass() { return std::make_unique<PartitionPass>(); }

} // namespace thunderc::opt
