// Partitioning: every top-level node ends up in exactly one class.
#pragma once

#include <memory>
#include <string_view>

#include "ir/graph.h"
#include "optimizer/pass.h"

namespace thunderc::opt {

/// The classes of docs/DESIGN.md §4.
enum class PartitionKind {
  Kernel,  ///< a fusion node: generated loops (CPU) / a generated kernel (CUDA)
  Library, ///< a call into the kernel library: GEMM, conv, pooling, softmax, norms, ...
  View,    ///< a view op: no code, a stride change on its operand's buffer
  Host,    ///< shape arithmetic on the host (nothing in today's op set)
};
std::string_view partitionKindName(PartitionKind kind); ///< "kernel", "library", ...

/// The class of a top-level node (any graph, partitioned or not): a fusion is a Kernel, and so
/// is an elementwise node or `full` not yet wrapped (partition makes it one); a view op
/// (kView) is a View; everything else (linear, conv2d, softmax, layer_norm, reductions,
/// concat, arange, embedding, aten_call, ...) is Library.
PartitionKind partitionKind(const ir::Node &node);

/// "partition": wraps every top-level elementwise node and `full` left outside a fusion into
/// a one-node `fusion` {kind="elementwise"} (built by formFusion, so static constants an
/// elementwise node reads are copied into its body), so that afterwards each node is a
/// fusion, a Library node or a View node. Statistics: partition.wrapped (fusions formed) and
/// partition.kernel / .library / .view (the nodes of each class afterwards).
std::unique_ptr<Pass> createPartitionPass();

} // namespace thunderc::opt
