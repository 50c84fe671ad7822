// Fusion into fusion nodes. (Stub: being written.)
#include "optimizer/fuse.h"

namespace thunderc::opt {
namespace {

class FusePass final : public Pass {
public:
  std::string_view name() const override { return "fuse"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createFusePass() { return std::make_unique<FusePass>(); }

} // namespace thunderc::opt
