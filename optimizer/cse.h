// Common subexpression elimination.
#pragma once

#include <memory>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// "cse": a node identical to an earlier one (same op, same operand values, same attributes,
/// same result types) is replaced by that earlier node and erased. `aten_call` nodes are
/// never merged: they are opaque to the compiler.
std::unique_ptr<Pass> createCsePass();

} // namespace thunderc::opt
