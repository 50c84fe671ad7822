// Structural and type checks for a Graph, run after import, after every pass in tests, and
// before emission (docs/STYLE.md habit 7).
#pragma once

#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::ir {

/// Checks that: every operand is defined before use (graph inputs or earlier nodes); use-lists
/// match operands; operand and result counts fit ir/ops.def; attributes are exactly those
/// ir/ops.def declares (required present, no unknown ones, right types); result types equal
/// inferResultTypes (ir/shape_inference.h); every symbol in a type is declared in
/// graph.symbols(); outputs are defined; value names are unique; a fusion's body mirrors its
/// operands and results and verifies in turn; `arena_offsets` has one entry per result. The error (InvalidInput)
/// names the node ("node '%conv2d_3' (conv2d): ...").
Status verifyGraph(const Graph &graph);

} // namespace thunderc::ir
