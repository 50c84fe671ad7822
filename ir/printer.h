// The canonical text form of a Graph. The parser (ir/parser.h) reads exactly what this prints.
#pragma once

#include <string>

#include "ir/graph.h"

namespace thunderc::ir {

/// Prints `graph` in the canonical text IR:
///
///   graph @mlp(
///       %x: f32[?s0,784],
///       %p_fc1_weight: f32[128,784] {param="fc1.weight"}
///   ) -> (f32[?s0,128]) symbols(s0: [1, 64]) {
///     %linear = linear(%x, %p_fc1_weight) : f32[?s0,128] loc("zoo.py:57")
///     %a, %b = split(%linear) {dim=1, sizes=[64,64]} : f32[?s0,64], f32[?s0,64]
///     return %a, %b
///   }
///
/// Inputs print one per line; weight inputs carry {param=...}, {buffer=...} or
/// {constant=...}. Attributes print sorted by name; `loc` only when known; `symbols(...)` only
/// when the graph has symbols (an unbounded max prints as `inf`). Values without a name get
/// the next free number (%0, %1, ...) in print order. Deterministic: same graph, same bytes.
std::string printGraph(const Graph &graph);

/// One node as printed inside a graph (without indentation or newline), using value names
/// as they are (unnamed values print as %?); for messages and debugging.
std::string printNode(const Node &node);

} // namespace thunderc::ir
