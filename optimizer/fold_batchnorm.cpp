// Inference batch_norm folded into the preceding conv2d. (Stub: being written.)
#include "optimizer/fold_batchnorm.h"

namespace thunderc::opt {
namespace {

class FoldBatchnormPass final : public Pass {
public:
  std::string_view name() const override { return "fold-batchnorm"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createFoldBatchnormPass() { return std::make_unique<FoldBatchnormPass>(); }

} // namespace thunderc::opt
