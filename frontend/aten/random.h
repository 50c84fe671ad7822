// Imports of the random-number ops: rand, randn, randint (and their _like and generator
// forms) onto the random op, randperm as a stable sort of random keys. frontend/aten/table.cpp
// lists them.
#pragma once

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend {

/// rand.default / .generator, rand_like.default: random {distribution="uniform"}.
Status importRand(NodeImport &node);
/// randn.default / .generator, randn_like.default: random {distribution="normal"}.
Status importRandn(NodeImport &node);
/// randint.default / .low / .generator / .low_generator, randint_like.default / .low_dtype:
/// random {distribution="integer", low (0 when absent), high}; high <= low is an error.
Status importRandint(NodeImport &node);
/// randperm.default / .generator: the indices of a stable ascending sort of n random integer
/// keys in [0, 2^53) (exact in the interpreter's doubles; equal keys, which a sort of n keys
/// meets with probability about n^2 / 2^54, keep index order), cast to the result dtype.
Status importRandperm(NodeImport &node);

} // namespace thunderc::frontend
