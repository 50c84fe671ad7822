// Small graph-rewriting helpers shared by the rewriting passes (canonicalize, simplify).
#pragma once

#include "ir/graph.h"

namespace thunderc::opt {

/// Erases `node` if nothing reads its results (and none is a graph output), then the
/// producers of its operands that this leaves dead, recursively. nullptr is ignored.
void eraseIfDead(ir::Graph &graph, ir::Node *node);

/// Replaces single-result `node` by `replacement` (created just before it): every use moves
/// over, `node` and what it leaves dead are erased, and the replacement takes over the node's
/// name, source and result name, so messages and the printed IR still point at the model.
void replaceNode(ir::Graph &graph, ir::Node *node, ir::Node *replacement);

} // namespace thunderc::opt
