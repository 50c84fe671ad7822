// The table of passes by name. Adding a pass means adding one row here.
#include "optimizer/pass_registry.h"

#include <algorithm>

#include "optimizer/canonicalize.h"
#include "optimizer/cse.h"
#include "optimizer/dce.h"
#include "optimizer/fold_batchnorm.h"
#include "optimizer/fold_constants.h"
#include "optimizer/fuse.h"
#include "optimizer/layout.h"
#include "optimizer/memory_plan.h"
#include "optimizer/partition.h"
#include "optimizer/quantized_linear.h"
#include "optimizer/simplify.h"

namespace thunderc::opt {
namespace {

struct PassEntry {
  std::string_view name;
  std::unique_ptr<Pass> (*create)();
};

// Kept sorted by name.
constexpr PassEntry kPasses[] = {
    {"canonicalize", &createCanonicalizePass},
    {"cse", &createCsePass},
    {"dce", &createDcePass},
    {"fold-batchnorm", &createFoldBatchnormPass},
    {"fold-constants", &createFoldConstantsPass},
    {"fuse", &createFusePass},
    {"layout", &createLayoutPass},
    {"partition", &createPartitionPass},
    {"plan-memory", &createPlanMemoryPass},
    {"quantize-weights", &createQuantizeWeightsPass},
    {"quantized-linear", &createQuantizedLinearPass},
    {"simplify", &createSimplifyPass},
};

} // namespace

std::unique_ptr<Pass> createPass(std::string_view name) {
  for (const PassEntry &entry : kPasses)
    if (entry.name == name)
      return entry.create();
  return nullptr;
}

std::vector<std::string> passNames() {
  std::vector<std::string> names;
  for (const PassEntry &entry : kPasses)
    names.emplace_back(entry.name);
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace thunderc::opt
