// Constant folding: nodes computed only from weights and constants are evaluated at compile
// time and replaced by new graph-owned constants, which the bundle writes into weights.bin.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "fold-constants": evaluates, with the reference interpreter, every node whose operands are
/// all constant-like (weight inputs with data, `full`/`arange` results, earlier folds) and
/// whose types are static, and replaces its results by ir::Graph::addConstant inputs named
/// "folded.<value>". Never folds `fusion`, `aten_call`, operand-less `full`/`arange` (cheap,
/// and fusion turns 0-d fulls into literals), a result larger than max(4096, the operands'
/// elements) (an expand would bloat weights.bin), or a view of a model weight still in use
/// (the view is free at run time, the copy is not). Weight inputs left unused by folding are
/// erased; dead `full` nodes are left to dce. Weights without data (text IR: an empty
/// PassContext::weights) are not constant-like. Errors: a weight the provider cannot serve,
/// or an interpreter error on a folded node (an index out of range), with the node named.
/// Statistics: "fold-constants.nodes-folded", ".bytes-added" (data of the new constants that
/// remain), ".weights-removed" and ".bytes-removed" (the weight inputs erased).
std::unique_ptr<Pass> createFoldConstantsPass();

} // namespace thunderc::opt
