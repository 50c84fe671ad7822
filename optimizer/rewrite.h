// Small graph-rewriting helpers shared by the rewriting passes (canonicalize, simplify).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "optimizer/pass.h"

namespace thunderc::opt {

/// Erases `node` if nothing reads its results (and none is a graph output), then the
/// producers of its operands that this leaves dead, recursively. nullptr is ignored.
void eraseIfDead(ir::Graph &graph, ir::Node *node);

/// Replaces single-result `node` by `replacement` (created just before it): every use moves
/// over, `node` and what it leaves dead are erased, and the replacement takes over the node's
/// name, source and result name, so messages and the printed IR still point at the model.
void replaceNode(ir::Graph &graph, ir::Node *node, ir::Node *replacement);

/// A node that passes its operand through unchanged: a copy, or a cast/reshape/squeeze/
/// unsqueeze/expand to its operand's own type (core IR leaves these around matmuls).
bool isNoOp(const ir::Node &node);

/// True if exactly one node reads `value` and it is not a graph output.
bool hasSoleUse(const ir::Graph &graph, const ir::Value *value);

/// `value` with no-ops skipped (shared values allowed).
ir::Value *skipNoOps(ir::Value *value);

/// The producer of `value` after skipping no-ops, if it is `op` and every value on the way
/// (including the producer's result) is read only by the next node of the chain.
ir::Node *soleProducer(const ir::Graph &graph, ir::Value *value, ir::OpKind op);

/// Rule-based rewriting to a fixed point: sweeps the nodes in order (over a snapshot, so nodes
/// a rule creates are seen on the next sweep) calling `rule` on each, until a sweep fires
/// nothing. `rule` returns the name of the rewrite it made, or nullopt; each firing counts in
/// statistics["<pass>.<name>"]. A rule may erase only the node it is given and nodes before
/// it (which the sweep has passed). Returns whether any rule fired.
bool rewriteToFixedPoint(ir::Graph &graph, PassContext &context, std::string_view pass,
                         const std::function<std::optional<std::string>(ir::Node *)> &rule);

} // namespace thunderc::opt
