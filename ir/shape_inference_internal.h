// Private to ir/shape_inference*.cpp: the checks and symbolic arithmetic the op families share,
// and the per-family shape functions that inferResultTypes dispatches to.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attributes.h"
#include "ir/graph.h"
#include "ir/op_attributes.h"
#include "ir/ops.h"
#include "ir/status.h"
#include "ir/sym_expr.h"

namespace thunderc::ir::inference {

using TypeList = std::vector<TensorType>;

// ---- shared checks (shape_inference.cpp) ----

/// "[1,2,3]".
std::string intsStr(const std::vector<int64_t> &values);

/// True for a static dim of size 1.
bool isOne(const Dim &dim);

/// Whether two dims may be the same size: equal, or both symbolic. Two different symbolic
/// expressions are accepted because torch.export would have guarded on their equality.
bool mayBeEqual(const Dim &a, const Dim &b);

/// Whether `from` broadcasts to exactly `to` (torch's expand rule, as used for biases).
bool isExpandableTo(const Shape &from, const Shape &to);

/// broadcastShapes with an error that names both operand types.
Expected<Shape> broadcastTypes(const TensorType &a, const TensorType &b);

/// "operand dtypes f32 and f16 differ" unless equal.
Status requireSameDType(const TensorType &a, const TensorType &b);

/// "<op> requires a floating dtype, got i64" unless `type` is floating.
Status requireFloating(OpKind op, const TensorType &type);

/// "<op> <what> must have rank <lo>..<hi>, got f32[2]"; hi < 0 means unbounded.
Status requireRank(OpKind op, const char *what, const TensorType &type, int64_t minRank,
                   int64_t maxRank);

/// normalizeDim that, like PyTorch's wrap_scalar, lets a 0-d tensor take dim 0 or -1.
Expected<int64_t> normalizeDimWrapScalar(int64_t dim, int64_t rank);

/// a + b with like terms combined, as sympy does: s0 + s0 = s0*2, (s0*2) + s0 + 3 = (s0*3)+3.
SymExpr addLikeTerms(const SymExpr &a, const SymExpr &b);

/// Floor division by a positive constant, simplified the way torch's sympy FloorDiv does, so
/// the result prints like the exporter's: divisible terms are pulled out ((2*s+1)//2 = s),
/// nested divisions merge and a common factor cancels.
SymExpr floorDivide(const SymExpr &base, int64_t divisor);

// ---- shape and data movement (shape_inference_layout.cpp) ----

Expected<TensorType> inferReshape(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferPermute(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferExpand(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferSlice(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferSelect(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferSqueeze(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferUnsqueeze(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferConcat(const TypeList &operands, const AttrMap &attrs);
Expected<TypeList> inferSplit(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferTriangle(OpKind op, const TensorType &x);

// ---- flip, diagonal, as_strided and the scatters (shape_inference_scatter.cpp) ----

Expected<TensorType> inferFlip(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferDiagonal(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferAsStrided(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferSliceScatter(const TensorType &x, const TensorType &src,
                                       const AttrMap &attrs);
Expected<TensorType> inferScatter(const TypeList &operands, const AttrMap &attrs);

// ---- neural-network ops (shape_inference_nn.cpp) ----

Expected<TensorType> inferLayerNorm(const TypeList &operands, const AttrMap &attrs);
Expected<TensorType> inferBatchNorm(const TypeList &operands);
Expected<TensorType> inferLinear(const TypeList &operands);
Expected<TensorType> inferLinearWq(const TypeList &operands, const AttrMap &attrs);
Expected<TensorType> inferConv2dWq(const TypeList &operands, const AttrMap &attrs);
Expected<TensorType> inferMatmul(const TensorType &a, const TensorType &b);
Expected<TensorType> inferAddmm(const TypeList &operands);
Expected<TensorType> inferGroupedMatmul(const TypeList &operands);
Expected<TensorType> inferConv2d(const TypeList &operands, const AttrMap &attrs);
Expected<TensorType> inferConvTranspose2d(const TypeList &operands, const AttrMap &attrs);
Expected<TensorType> inferAttention(const TypeList &operands, const AttrMap &attrs);
/// max_pool2d/3d, avg_pool2d/3d and max_pool_indices (2 or 3 spatial dims by its kernel).
Expected<TensorType> inferPool2d(OpKind op, const TensorType &x, const AttrMap &attrs);
/// adaptive_avg_pool2d and adaptive_avg_pool3d.
Expected<TensorType> inferAdaptiveAvgPool2d(OpKind op, const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferGridSample(const TensorType &x, const TensorType &grid,
                                     const AttrMap &attrs);
Expected<TensorType> inferEmbedding(const TensorType &weight, const TensorType &indices);
Expected<TensorType> inferGather(const TensorType &x, const TensorType &index,
                                 const AttrMap &attrs);
Expected<TensorType> inferIndexSelect(const TensorType &x, const TensorType &indices,
                                      const AttrMap &attrs);

// ---- padding and resampling (shape_inference_resample.cpp) ----

Expected<TensorType> inferPad(const TensorType &x, const AttrMap &attrs);
Expected<TensorType> inferUpsample(const TensorType &x, const AttrMap &attrs);

// ---- sorting and embedding bags (shape_inference_sort.cpp) ----

/// (values like x, i64 indices like x).
Expected<TypeList> inferSort(const TensorType &x, const AttrMap &attrs);
/// operands: weight, indices, offsets, per_sample_weights?
Expected<TensorType> inferEmbeddingBag(const TypeList &operands, const AttrMap &attrs);

// ---- dense linear algebra (shape_inference_linalg.cpp) ----

/// cholesky, lu_factor, lu_permutation, triangular_solve, qr, geqrf, householder_product,
/// ormqr, ldl_factor, ldl_solve, eigh, svd, matrix_exp (ir/ops.def).
Expected<TypeList> inferLinalg(OpKind op, const TypeList &operands, const AttrMap &attrs);

} // namespace thunderc::ir::inference
