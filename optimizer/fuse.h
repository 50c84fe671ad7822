// Fusion: groups of nodes become `fusion` nodes (ir/ops.def) whose body holds the group.
// The body format below is a contract with the backend, which emits one loop nest per fusion.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "optimizer/pass.h"

namespace thunderc::opt {

/// "fuse": forms three kinds of fusion nodes, in this order:
///   epilogue     a linear/matmul/addmm/conv2d/conv_transpose2d L, first in the body, whose
///                result's only use starts a chain of elementwise ops with L's result type (bias,
///                activation, residual); every chain value but the last has one user, the next
///                link. One result: the chain's last value. Other operands broadcast to L's shape.
///   reduction    one sum/mean/amax/amin R over adjacent dims (keepdim either) with its
///                elementwise prologue (result shape = R's operand shape, used only inside)
///                and epilogue (result shape = R's result shape, reading R's result). Results:
///                the epilogue values used outside, or R itself when there is no epilogue.
///                Formed only when there is a prologue or an epilogue.
///   elementwise  two or more elementwise ops whose results all have one shape (the loop
///                domain); operands may broadcast to it. A producer whose result is smaller
///                than the domain is never pulled in (it would be recomputed per element).
///                Results: every member value used outside or returned, each of the domain
///                shape.
/// In all kinds, `full` constants of static shape read by elementwise members are copied into
/// the body (the original goes when nothing else reads it), and a group is only formed when
/// it can be placed in the node list: no path leaves the group and comes back.
/// Body values keep the names and source info of the nodes they came from; body inputs are
/// named after the operands they mirror; the fusion node takes the name and source of the
/// group's last node. Single elementwise nodes are left to "partition".
/// Statistics: fuse.epilogue, fuse.reduction, fuse.elementwise (kernels formed) and
/// fuse.nodes-fused (nodes moved into bodies, copied constants not counted).
std::unique_ptr<Pass> createFusePass();

/// Why `consumer` does not share a kernel with `producer` (one of its operands' producers),
/// in words for reports ("consumer is a library call (softmax)", "shapes differ: f32[4,1]
/// (producer) vs f32[4,8] (consumer)"); empty if the pair satisfies the fusion rules above.
/// Judges the pair only: a merge that would close a cycle through a third node is not seen.
std::string whyNotFused(const ir::Node &producer, const ir::Node &consumer);

/// Replaces `group` (distinct top-level nodes of `graph`, any order) by one `fusion` node
/// {kind=`kind`} holding copies of them in topological order, and returns it. Operands are the
/// values the group reads from outside, in order of first use; results are the member values
/// used outside the group or returned by the graph, in topological order, and take over their
/// names and uses. Static `full` operands read only by elementwise members are copied into the
/// body and erased when left unused. The caller has checked that the group can be placed (no
/// path from the group through an outside node back into it): a broken precondition is a
/// TC_CHECK. Shared by "fuse" and "partition", so both build bodies the same way.
ir::Node *formFusion(ir::Graph &graph, const std::vector<ir::Node *> &group,
                     std::string_view kind);

} // namespace thunderc::opt
