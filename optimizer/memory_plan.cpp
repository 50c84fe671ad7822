// Memory planning: arena offsets. (Stub: being written.)
#include "optimizer/memory_plan.h"

namespace thunderc::opt {
namespace {

class PlanMemoryPass final : public Pass {
public:
  std::string_view name() const override { return "plan-memory"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createPlanMemoryPass() { return std::make_unique<PlanMemoryPass>(); }

} // namespace thunderc::opt
