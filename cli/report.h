// Reports a person reads about the optimized graph: its Graphviz picture (--emit=dot) and the
// compiled view that --emit=report / report-json append (kernels, library calls and views with
// their FLOPs, bytes moved, fusion blockers, and the memory plan's numbers).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "optimizer/memory_plan.h"
#include "optimizer/partition.h"

namespace thunderc::cli {

/// A Graphviz `digraph` of the top-level graph: every fusion node is a cluster
/// (`subgraph cluster_N`, label "kernel N (kind)") holding its body nodes, library calls are
/// filled boxes ("library: linear"), views dashed boxes ("view: permute"), user inputs and
/// outputs ellipses, weights notes. Every box shows its op, result type and source line
/// (loc and Python code). Edges cross cluster borders to the body node that reads or writes
/// the value. Weights nothing reads are left out. Deterministic: nodes appear in graph order
/// with positional ids.
std::string dotGraph(const ir::Graph &graph);

/// A number that may be unknown: a shape depends on a symbol with no upper bound, or an op
/// (aten_call) has no cost model.
using Estimate = std::optional<int64_t>;

/// A source node folded into a kernel: the body node of a fusion.
struct SourceNode {
  std::string name;  ///< the exported node's name ("relu_1"), may be empty (text IR)
  std::string value; ///< its first result's name in the body ("%relu_1"), may be empty
  std::string op;
  std::string loc;  ///< "zoo.py:57", empty if unknown
  std::string code; ///< the Python line
};

/// A neighbour (a producer of an operand or a consumer of a result) in another top-level
/// node, and why the two did not fuse (opt::whyNotFused; empty means they could have).
struct Neighbour {
  int index = 0;         ///< the neighbour's position in CompiledReport::nodes
  bool producer = false; ///< true: the neighbour produces one of this node's operands
  std::string reason;
};

/// One top-level node after the pipeline.
struct CompiledNode {
  int index = 0;       ///< position in the graph
  int kernelId = -1;   ///< N of "kernel N" for fusion nodes (as in --emit=dot), else -1
  opt::PartitionKind partition = opt::PartitionKind::Kernel;
  std::string value;   ///< printed name of the first result ("%linear")
  std::string op;      ///< "linear", "fusion"
  std::string kind;    ///< a fusion's kind attribute ("elementwise"), else empty
  std::string type;    ///< result types, comma-separated
  std::string loc;
  std::string code;
  Estimate flops;      ///< see compiledReport for the model
  Estimate bytes;      ///< operands read + results written; 0 for views and host nodes
  std::vector<SourceNode> inside;    ///< body nodes of a fusion, in body order
  std::vector<Neighbour> notFused;   ///< kernels and library calls only, in graph order
};

/// What one run of a stateful model (an LLM decode step) moves at the symbols' smallest sizes:
/// the bytes its kernels and library calls read and write, against the floor of reading every
/// weight and every state buffer once.
struct StepTraffic {
  std::map<std::string, int64_t> symbols; ///< each symbol at its minimum (seq = 1)
  Estimate bytes;                         ///< operands read + results written, summed
  int64_t weights = 0;                    ///< parameters, buffers and constants
  int64_t state = 0;                      ///< the state buffers (a KV cache)
};

/// The compiled view of a graph and its totals.
struct CompiledReport {
  std::vector<CompiledNode> nodes;
  int kernels = 0;
  int library = 0;
  int views = 0;
  int host = 0;
  Estimate flops;
  Estimate bytes;
  opt::MemoryStats memory;
  std::optional<StepTraffic> step; ///< graphs with state only
};

/// Builds the compiled view of `graph` (any graph: partitioned or not). Sizes are taken at the
/// symbols' upper bounds. FLOPs: elementwise ops 1 per result element; reductions 1 per input
/// element; linear/matmul/addmm 2*M*N*K; conv2d 2*N*O*H'*W'*(C/groups)*kH*kW; conv_transpose2d
/// 2*N*C*H*W*(O/groups)*kH*kW; attention 4*B*H*L*S*D; softmax/log_softmax/layer_norm/batch_norm 5
/// per element; pooling one per window element; data movement 0; a fusion the sum over its body.
/// A graph with state outputs also gets `step`, the same bytes at the symbols' lower bounds.
CompiledReport compiledReport(const ir::Graph &graph);

/// The compiled view as a readable table with totals and memory lines.
std::string compiledText(const CompiledReport &report);

/// The compiled view as the report-json "compiled" object: {"nodes", "totals", "memory"}.
nlohmann::json compiledJson(const CompiledReport &report);

} // namespace thunderc::cli
