// Constant folding into new weights. (Stub: being written.)
#include "optimizer/fold_constants.h"

namespace thunderc::opt {
namespace {

class FoldConstantsPass final : public Pass {
public:
  std::string_view name() const override { return "fold-constants"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createFoldConstantsPass() { return std::make_unique<FoldConstantsPass>(); }

} // namespace thunderc::opt
