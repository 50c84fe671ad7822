// Result types (dtype and possibly symbolic shape) of every op in ir/ops.def.
#pragma once

#include <vector>

#include "ir/attributes.h"
#include "ir/graph.h"
#include "ir/ops.h"
#include "ir/status.h"

namespace thunderc::ir {

/// Infers the result types of `op` applied to operands of `operandTypes` with `attrs`.
/// Ops without operands (full, arange) cannot be inferred: they return `declared` unchanged,
/// after checking it has one result. Symbolic dims combine with SymExpr arithmetic, so the
/// result compares equal (==) to the types the exporter recorded. Errors (InvalidInput) say
/// what is inconsistent: "operands f32[2,3] and f32[4] do not broadcast", "dim 5 out of
/// range for rank 3", "matmul inner dims 64 and 32 differ", "operand dtypes f32 and f16
/// differ".
Expected<std::vector<TensorType>> inferResultTypes(OpKind op,
                                                   const std::vector<TensorType> &operandTypes,
                                                   const AttrMap &attrs,
                                                   const std::vector<TensorType> &declared);

/// NumPy broadcast of two shapes; a symbolic dim broadcasts against 1 or an equal dim.
Expected<Shape> broadcastShapes(const Shape &a, const Shape &b);

/// Normalizes a possibly negative dim index against `rank`; error if out of range.
Expected<int64_t> normalizeDim(int64_t dim, int64_t rank);

/// The dims of a rank-`rank` shape that a reduction over `dims` (as the op's attribute holds
/// them, after shape inference accepted them) folds, sorted and distinct: every dim when `dims`
/// is empty; negative dims count from the end. A 0-d tensor takes dim 0 and -1 (PyTorch's rule)
/// but has no dim to fold: its one element is the whole reduction, so the result is empty.
std::vector<int64_t> reducedDims(std::vector<int64_t> dims, int64_t rank);

} // namespace thunderc::ir
