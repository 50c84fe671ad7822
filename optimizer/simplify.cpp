// Algebraic simplification. (Stub: being written.)
#include "optimizer/simplify.h"

namespace thunderc::opt {
namespace {

class SimplifyPass final : public Pass {
public:
  std::string_view name() const override { return "simplify"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createSimplifyPass() { return std::make_unique<SimplifyPass>(); }

} // namespace thunderc::opt
