// Fusion: groups of nodes become `fusion` nodes (ir/ops.def) whose body holds the group.
#pragma once

#include <memory>
#include <string>

#include "ir/graph.h"
#include "optimizer/pass.h"

namespace thunderc::opt {

/// "fuse": forms three kinds of fusion nodes, in this order:
///   epilogue     a linear/matmul/addmm/conv2d whose result's only use starts a chain of
///                elementwise ops over the same shape and dtype (bias, activation, residual);
///   reduction    one sum/mean/amax/amin over adjacent dims with its elementwise prologue (over
///                the reduction's input shape, used only inside) and epilogue (over its result);
///   elementwise  maximal chains of elementwise ops over one common result shape; 0-d `full`
///                scalars they read are copied into the body as constants.
/// Body values keep the names and source info of the nodes they came from.
std::unique_ptr<Pass> createFusePass();

/// Why `consumer` does not share a kernel with `producer` (one of its operands' producers),
/// in words for reports ("consumer is a library call (softmax)", "shapes differ: f32[4,8]
/// vs f32[4,1]"); empty if they could fuse.
std::string whyNotFused(const ir::Node &producer, const ir::Node &consumer);

} // namespace thunderc::opt
