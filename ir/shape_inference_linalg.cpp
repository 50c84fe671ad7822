// Shape functions of the dense linear algebra ops (ir/ops.def): matrices in the last two
// dims, batched over the leading ones.
#include "ir/shape_inference_internal.h"

namespace thunderc::ir::inference {
namespace {

/// The batch dims (all but the last `trailing`) of x.
Shape batchOf(const TensorType &x, size_t trailing) {
  return Shape(x.shape.begin(), x.shape.end() - static_cast<std::ptrdiff_t>(trailing));
}

Shape with(Shape shape, std::initializer_list<Dim> tail) {
  shape.insert(shape.end(), tail.begin(), tail.end());
  return shape;
}

Dim minDim(const Dim &a, const Dim &b) {
  if (a.isStatic() && b.isStatic())
    return Dim(std::min(a.value(), b.value()));
  if (a == b)
    return a;
  return Dim(SymExpr::min(a.asExpr(), b.asExpr()));
}

Status requireMatrix(OpKind op, const char *what, const TensorType &x, bool square) {
  TC_TRY(requireRank(op, what, x, 2, -1));
  if (x.dtype != DType::F32 && x.dtype != DType::F64)
    return invalidInput(std::string(opName(op)) + " " + what + " must be f32 or f64, got " +
                        x.str());
  if (square && !mayBeEqual(x.shape[x.shape.size() - 2], x.shape.back()))
    return invalidInput(std::string(opName(op)) + " " + what + " must be square, got " +
                        x.str());
  return Status::success();
}

} // namespace

Expected<TypeList> inferLinalg(OpKind op, const TypeList &operands, const AttrMap &attrs) {
  const TensorType &x = operands[0];
  if (op == OpKind::LuPermutation) {
    TC_TRY(requireRank(op, "pivots", x, 1, -1));
    if (x.dtype != DType::I32)
      return invalidInput("lu_permutation pivots must be i32, got " + x.str());
    return TypeList{TensorType{DType::I64, with(batchOf(x, 1), {attr::rows(attrs)})}};
  }
  bool square = op == OpKind::Cholesky || op == OpKind::Eigh || op == OpKind::TriangularSolve;
  TC_TRY(requireMatrix(op, op == OpKind::TriangularSolve ? "A" : "operand", x, square));
  const Shape batch = batchOf(x, 2);
  const Dim m = x.shape[x.shape.size() - 2], n = x.shape.back();
  const Dim k = minDim(m, n);
  const TensorType info{DType::I32, batch};
  switch (op) {
  case OpKind::Cholesky:
    return TypeList{x, info};
  case OpKind::LuFactor:
    return TypeList{x, TensorType{DType::I32, with(batch, {k})}, info};
  case OpKind::TriangularSolve: {
    const TensorType &b = operands[1];
    TC_TRY(requireRank(op, "B", b, 2, -1));
    TC_TRY(requireSameDType(x, b));
    if (b.rank() != x.rank() || batchOf(b, 2) != batch)
      return invalidInput("triangular_solve B " + b.str() + " must have the batch dims of A " +
                          x.str());
    const Dim &along = attr::left(attrs) ? b.shape[b.shape.size() - 2] : b.shape.back();
    if (!mayBeEqual(along, n))
      return invalidInput("triangular_solve B " + b.str() + " does not match A " + x.str() +
                          (attr::left(attrs) ? " (A X = B)" : " (X A = B)"));
    return TypeList{b};
  }
  case OpKind::Qr: {
    bool full = attr::full(attrs);
    return TypeList{TensorType{x.dtype, with(batch, {m, full ? m : k})},
                    TensorType{x.dtype, with(batch, {full ? m : k, n})}};
  }
  case OpKind::Eigh:
    return TypeList{TensorType{x.dtype, with(batch, {n})}, x, info};
  case OpKind::Svd: {
    bool full = attr::full(attrs);
    return TypeList{TensorType{x.dtype, with(batch, {m, full ? m : k})},
                    TensorType{x.dtype, with(batch, {k})},
                    TensorType{x.dtype, with(batch, {full ? n : k, n})}, info};
  }
  default:
    break;
  }
  TC_CHECK(false, "inferLinalg on " + std::string(opName(op)));
}

} // namespace thunderc::ir::inference
