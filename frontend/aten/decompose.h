// The decomposition layer: composite ATen overloads stated once, as short expressions over the
// op's schema arguments and thunderc IR ops (frontend/aten/decompositions.def), evaluated at
// import time into IR nodes with PyTorch's type promotion. It plays the role of
// torch/_decomp for the importer: the training IR (torch.export.export) holds many composite
// ops that core ATen would have decomposed; each entry here says what one of them computes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// The import function for a target the decomposition table states ("aten.addcmul.default",
/// with or without "torch.ops."), or null.
ImportFunction findDecomposition(std::string_view target);

/// Every target of the decomposition table ("aten.addcmul.default").
std::vector<std::string> decompositionTargets();

/// Parses every entry of the table and returns the first syntax error ("" when all parse):
/// the unit test's check that the table is well-formed (entries are also parsed on first use,
/// where an error is a compiler bug).
std::string checkDecompositionTable();

} // namespace thunderc::frontend
