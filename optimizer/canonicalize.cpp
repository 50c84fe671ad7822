// One canonical op set for both IR levels. (Stub: being written.)
#include "optimizer/canonicalize.h"

namespace thunderc::opt {
namespace {

class CanonicalizePass final : public Pass {
public:
  std::string_view name() const override { return "canonicalize"; }
  Expected<bool> run(ir::Graph &, PassContext &) override { return false; }
};

} // namespace

std::unique_ptr<Pass> createCanonicalizePass() { return std::make_unique<CanonicalizePass>(); }

} // namespace thunderc::opt
