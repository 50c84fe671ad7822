// View/layout analysis: views become strides. (Stub: being written.)
#include "optimizer/layout.h"

namespace thunderc::opt {
namespace {

class LayoutPass final : public Pass {
public:
  std::string_view name() const override { return "layout"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createLayoutPass() { return std::make_unique<LayoutPass>(); }

} // namespace thunderc::opt
