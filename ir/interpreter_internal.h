// Private to the reference interpreter (ir/interpreter*.cpp): the dense tensor every value is
// held in while interpreting, the per-node call record the op families receive, and the
// numeric helpers (dtype rounding, f16/bf16 bit patterns, broadcasting loops) they share.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/interpreter.h"
#include "ir/op_attributes.h"
#include "ir/status.h"

namespace thunderc::ir::interp {

/// Symbol name -> value, bound from the user input shapes.
using Bindings = std::map<std::string, int64_t>;

/// One value while interpreting: a dense row-major buffer of doubles plus the value's dtype
/// and concrete shape. Every element already holds a value representable in `dtype` (the
/// driver rounds each result when it is stored, see roundToDType). Doubles hold every f16,
/// bf16 and f32 value exactly and every integer up to 2^53 in magnitude; i64 values beyond
/// that lose their low bits, a documented limit of the reference interpreter.
struct Tensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<double> data;

  int64_t numel() const { return static_cast<int64_t>(data.size()); }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
};

/// One node being interpreted. The driver fills `operands` and pre-allocates `results` with
/// the dtype and concrete shape of each result type and zero-filled data; the op writes the
/// unrounded results into `results[i].data` and the driver rounds them to their dtypes.
struct OpCall {
  const Node &node;
  const Bindings &bindings;
  std::vector<const Tensor *> operands;
  std::vector<Tensor> results;
  RandomState random = {}; ///< what random ops draw from

  const Tensor &operand(int index) const { return *operands.at(static_cast<size_t>(index)); }
  int numOperands() const { return static_cast<int>(operands.size()); }
  Tensor &result(int index = 0) { return results.at(static_cast<size_t>(index)); }
  const Tensor &result(int index = 0) const { return results.at(static_cast<size_t>(index)); }
  const AttrMap &attrs() const { return node.attrs(); }
};

/// Prepends "<context>: " to the error of a failed Expected.
template <typename T> Expected<T> withContext(Expected<T> expected, const std::string &context) {
  if (!expected.ok())
    return std::move(expected).error().withContext(context);
  return expected;
}

// ---- op families; each handles the ops of its families in ir/ops.def ----

/// Families Unary, Binary, Ternary: elementwise ops, comparisons, where, cast, copy.
Status runElementwiseOp(OpCall &call);
/// Family Reduction: sum, mean, amax, amin, prod, any, var, argmax.
Status runReductionOp(OpCall &call);
/// Family Nn: softmax, log_softmax, cumsum, layer_norm, batch_norm, linear, matmul, addmm,
/// conv2d, conv_transpose2d, attention.
Status runNnOp(OpCall &call);
/// Family Pool: max_pool2d/3d, max_pool_indices, avg_pool2d/3d, adaptive_avg_pool2d/3d.
Status runPoolOp(OpCall &call);
/// Family Shape: views and data movement, full, arange, embedding, index_select.
Status runShapeOp(OpCall &call);
/// Family Linalg: cholesky, lu_factor, lu_permutation, triangular_solve, qr, geqrf,
/// householder_product, ormqr, ldl_factor, ldl_solve, eigh, svd, matrix_exp
/// (ir/interpreter_linalg.cpp, LAPACK in double).
Status runLinalgOp(OpCall &call);
/// pad (family Shape) and upsample (family Pool): ir/interpreter_resample.cpp.
Status runPad(OpCall &call);
Status runUpsample(OpCall &call);
/// grid_sample (family Pool): ir/interpreter_resample.cpp.
Status runGridSample(OpCall &call);
/// flip, diagonal, as_strided, slice_scatter and scatter (of family Shape; runShapeOp
/// forwards them).
Status runScatterOp(OpCall &call);
/// random (of family Shape; runShapeOp forwards it): ir/interpreter_random.cpp.
Status runRandom(OpCall &call);
/// sort and embedding_bag (of family Shape; runShapeOp forwards them):
/// ir/interpreter_sort.cpp.
Status runSortOp(OpCall &call);

// ---- dtype rounding and element encoding ----

/// Rounds an exact result to the nearest value of `dtype`: f64 unchanged; f32 via float; f16
/// and bf16 round to nearest even (overflow to inf, NaN stays NaN); integers truncate toward
/// zero and wrap modulo 2^width (NaN and infinities give the x86 "integer indefinite" value:
/// the minimum of i32/i64, 0 for narrower types; PyTorch leaves these undefined); bool is
/// x != 0.
double roundToDType(double value, DType dtype);

/// Wraps an integer to the width and signedness of the integral `dtype` (two's complement).
int64_t wrapInteger(int64_t value, DType dtype);

/// f16 bit pattern of a value already representable as f16; NaN becomes sign | 0x7E00 (c10).
uint16_t halfBits(double value);
double halfFromBits(uint16_t bits);
/// bf16 bit pattern of a value already representable as bf16; NaN becomes 0x7FC0 (c10).
uint16_t bfloat16Bits(double value);
double bfloat16FromBits(uint16_t bits);

/// Reads one element of `dtype` at `address` (any alignment) as a double.
double readElement(const uint8_t *address, DType dtype);
/// Writes a value already rounded to `dtype` at `address` in the dtype's byte format.
void writeElement(uint8_t *address, DType dtype, double value);

// ---- shapes, dims and broadcasting ----

/// Product of the dims (1 for rank 0).
int64_t shapeNumel(const std::vector<int64_t> &shape);
/// "[2,3]".
std::string shapeText(const std::vector<int64_t> &shape);
/// A dim index in [-rank, rank) made non-negative; error names the op's dim and the rank.
Expected<int64_t> normalizeDim(int64_t dim, int64_t rank);
/// The window of a slice-like op's {dim, start, end, step} attributes over `input`: start and end
/// clamped like PyTorch's slice (negative ones count from the end; end at least start).
struct SliceWindow {
  int64_t dim, start, end, step;
};
/// `what` names the op in errors ("slice", "slice_scatter").
Expected<SliceWindow> sliceWindow(const OpCall &call, const Tensor &input, const char *what);
/// NumPy broadcast of two concrete shapes; error if some pair of dims differ and neither is 1.
Expected<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t> &a,
                                               const std::vector<int64_t> &b);
/// Element strides for reading a contiguous tensor of `shape` broadcast to `outShape`
/// (right-aligned, stride 0 along broadcast or new leading dims). Requires broadcastability.
std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &outShape);
/// Error unless `result` has the shape the op computed from its operands and attributes;
/// this catches a result type that disagrees with the op's semantics.
Status expectShape(const Tensor &result, const std::vector<int64_t> &expected);

/// Visits every index of `shape` in row-major order, calling visit(linearIndex, offsets) where
/// offsets[k] is the dot product of the index with strides[k]. Rank 0 visits once; a size-0
/// dim visits nothing. The odometer keeps the per-element cost to a few additions.
template <size_t N, typename Visit>
void forEachIndex(const std::vector<int64_t> &shape,
                  const std::array<const std::vector<int64_t> *, N> &strides, Visit &&visit) {
  int64_t total = shapeNumel(shape);
  size_t rank = shape.size();
  std::vector<int64_t> index(rank, 0);
  std::array<int64_t, N> offsets{};
  for (int64_t linear = 0; linear < total; ++linear) {
    visit(linear, offsets);
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < N; ++k)
        offsets[k] += (*strides[k])[d];
      if (index[d] < shape[d])
        break;
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= (*strides[k])[d] * shape[d];
      index[d] = 0;
    }
  }
}

} // namespace thunderc::ir::interp
