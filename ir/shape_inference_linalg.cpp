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

/// Whether a <= b may hold (true unless both are static and a > b).
bool mayBeAtMost(const Dim &a, const Dim &b) {
  return !(a.isStatic() && b.isStatic() && a.value() > b.value());
}

/// x [batch.., k]: a vector per matrix of the batch, of dtype `dtype`.
Status requireBatchVector(OpKind op, const char *what, const TensorType &x, const Shape &batch,
                          DType dtype) {
  if (x.rank() != static_cast<int64_t>(batch.size()) + 1 || batchOf(x, 1) != batch ||
      x.dtype != dtype)
    return invalidInput(std::string(opName(op)) + " " + what + " " + x.str() + " must be " +
                        std::string(dtypeName(dtype)) + ", one vector per matrix of the batch " +
                        TensorType{dtype, batch}.str());
  return Status::success();
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
  bool square = op == OpKind::Cholesky || op == OpKind::Eigh || op == OpKind::TriangularSolve ||
                op == OpKind::LdlFactor || op == OpKind::LdlSolve || op == OpKind::MatrixExp;
  bool named = op == OpKind::TriangularSolve || op == OpKind::LdlSolve;
  TC_TRY(requireMatrix(op, named ? (op == OpKind::LdlSolve ? "LD" : "A") : "operand", x, square));
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
  case OpKind::Geqrf:
    return TypeList{x, TensorType{x.dtype, with(batch, {k})}};
  case OpKind::HouseholderProduct: {
    const TensorType &tau = operands[1];
    TC_TRY(requireBatchVector(op, "tau", tau, batch, x.dtype));
    if (!mayBeAtMost(n, m) || !mayBeAtMost(tau.shape.back(), n))
      return invalidInput("householder_product needs tau [.., k], A [.., m, n] with k <= n <= m, "
                          "got A " + x.str() + " and tau " + tau.str());
    return TypeList{x};
  }
  case OpKind::Ormqr: {
    const TensorType &tau = operands[1], &c = operands[2];
    TC_TRY(requireBatchVector(op, "tau", tau, batch, x.dtype));
    TC_TRY(requireRank(op, "C", c, 2, -1));
    TC_TRY(requireSameDType(x, c));
    if (c.rank() != x.rank() || batchOf(c, 2) != batch)
      return invalidInput("ormqr C " + c.str() + " must have the batch dims of A " + x.str());
    const Dim &k = tau.shape.back();
    const Dim &order = attr::left(attrs) ? c.shape[c.shape.size() - 2] : c.shape.back();
    if (!mayBeEqual(order, m) || !mayBeAtMost(k, m) || !mayBeAtMost(k, n))
      return invalidInput("ormqr: A " + x.str() + ", tau " + tau.str() + " and C " + c.str() +
                          " do not match (" + (attr::left(attrs) ? "Q C" : "C Q") +
                          ", Q as many rows as A, k <= A's rows and columns)");
    return TypeList{c};
  }
  case OpKind::LdlFactor:
    return TypeList{x, TensorType{DType::I32, with(batch, {n})}, info};
  case OpKind::LdlSolve: {
    const TensorType &pivots = operands[1], &b = operands[2];
    TC_TRY(requireBatchVector(op, "pivots", pivots, batch, DType::I32));
    TC_TRY(requireRank(op, "B", b, 2, -1));
    TC_TRY(requireSameDType(x, b));
    if (b.rank() != x.rank() || batchOf(b, 2) != batch)
      return invalidInput("ldl_solve B " + b.str() + " must have the batch dims of LD " + x.str());
    if (!mayBeEqual(pivots.shape.back(), n) || !mayBeEqual(b.shape[b.shape.size() - 2], n))
      return invalidInput("ldl_solve: pivots " + pivots.str() + " and B " + b.str() +
                          " must have LD's " + n.str() + " rows");
    return TypeList{b};
  }
  case OpKind::MatrixExp:
    return TypeList{x};
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
