// Dead code elimination.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "dce": erases every node whose results are all unused and none is a graph output. All ops
/// are pure, so nothing else keeps a node alive. Whole dead chains go in one run. Then every
/// weight input (not user inputs or state) that nothing reads is erased too.
std::unique_ptr<Pass> createDcePass();

} // namespace thunderc::opt
