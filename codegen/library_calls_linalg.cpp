// Lowering of the dense linear algebra ops (cholesky, lu_factor, lu_permutation,
// triangular_solve, qr, geqrf, householder_product, ormqr, ldl_factor, ldl_solve, eigh, svd,
// matrix_exp) to runtime/kernels/tc_lapack.h: one call per node over the
// batch of matrices. CPU only (the CUDA target refuses these ops in prepare()).
#include "codegen/emit_state.h"

namespace thunderc::codegen {
namespace {

using ir::OpKind;

std::string boolText(bool value) { return value ? "true" : "false"; }

} // namespace

Status emitLinalgNode(const ir::Node &node, EmitState &state) {
  TC_CHECK(!state.onDevice(), "linalg op " + std::string(ir::opName(node.op())) + " on CUDA");
  const ir::Value *x = node.operand(0);
  const ir::Shape &shape = x->type().shape;
  const size_t rank = shape.size();
  auto ptr = [&](const ir::Value *value) { return state.ptr(value); };
  auto result = [&](int i) { return ptr(node.result(i)); };
  if (node.op() == OpKind::LuPermutation) {
    state.callLibrary("lapack::pivot_permutation<int64_t>(" + ptr(x) + ", " +
                      productRange(shape, 0, rank - 1) + ", " + dimExpr(shape.back()) + ", " +
                      dimExpr(ir::attr::rows(node)) + ", " + result(0) + ")");
    return Status::success();
  }
  const std::string type = cppType(x->type().dtype);
  const std::string batch = productRange(shape, 0, rank - 2);
  const std::string m = dimExpr(shape[rank - 2]), n = dimExpr(shape[rank - 1]);
  std::string call;
  switch (node.op()) {
  case OpKind::Cholesky:
    call = "cholesky<" + type + ">(" + ptr(x) + ", " + batch + ", " + n + ", " +
           boolText(ir::attr::upper(node)) + ", " + result(0) + ", " + result(1) + ")";
    break;
  case OpKind::LuFactor:
    call = "lu_factor<" + type + ">(" + ptr(x) + ", " + batch + ", " + m + ", " + n + ", " +
           result(0) + ", " + result(1) + ", " + result(2) + ")";
    break;
  case OpKind::TriangularSolve: {
    const ir::Value *b = node.operand(1);
    const ir::Shape &bShape = b->type().shape;
    bool left = ir::attr::left(node);
    std::string k = dimExpr(left ? bShape.back() : bShape[bShape.size() - 2]);
    call = "triangular_solve<" + type + ">(" + ptr(x) + ", " + ptr(b) + ", " + batch + ", " + n +
           ", " + k + ", " + boolText(ir::attr::upper(node)) + ", " + boolText(left) + ", " +
           boolText(ir::attr::unitriangular(node)) + ", " + result(0) + ")";
    break;
  }
  case OpKind::Qr:
    call = "qr<" + type + ">(" + ptr(x) + ", " + batch + ", " + m + ", " + n + ", " +
           boolText(ir::attr::full(node)) + ", true, " + result(0) + ", " + result(1) + ")";
    break;
  case OpKind::Eigh:
    call = "eigh<" + type + ">(" + ptr(x) + ", " + batch + ", " + n + ", " +
           boolText(ir::attr::upper(node)) + ", " + boolText(ir::attr::vectors(node)) + ", " +
           result(0) + ", " + result(1) + ", " + result(2) + ")";
    break;
  case OpKind::Svd:
    call = "svd<" + type + ">(" + ptr(x) + ", " + batch + ", " + m + ", " + n + ", " +
           boolText(ir::attr::full(node)) + ", " + boolText(ir::attr::vectors(node)) + ", " +
           result(0) + ", " + result(1) + ", " + result(2) + ", " + result(3) + ")";
    break;
  case OpKind::Geqrf:
    call = "qr_packed<" + type + ">(" + ptr(x) + ", " + batch + ", " + m + ", " + n + ", " +
           result(0) + ", " + result(1) + ")";
    break;
  case OpKind::HouseholderProduct: {
    const ir::Value *tau = node.operand(1);
    call = "householder_product<" + type + ">(" + ptr(x) + ", " + ptr(tau) + ", " + batch + ", " +
           m + ", " + n + ", " + dimExpr(tau->type().shape.back()) + ", " + result(0) + ")";
    break;
  }
  case OpKind::Ormqr: {
    const ir::Value *tau = node.operand(1), *c = node.operand(2);
    const ir::Shape &cShape = c->type().shape;
    call = "apply_householder<" + type + ">(" + ptr(x) + ", " + ptr(tau) + ", " + ptr(c) + ", " +
           batch + ", " + m + ", " + n + ", " + dimExpr(tau->type().shape.back()) + ", " +
           dimExpr(cShape[cShape.size() - 2]) + ", " + dimExpr(cShape.back()) + ", " +
           boolText(ir::attr::left(node)) + ", " + result(0) + ")";
    break;
  }
  case OpKind::LdlFactor:
    call = "ldl_factor<" + type + ">(" + ptr(x) + ", " + batch + ", " + n + ", " + result(0) +
           ", " + result(1) + ", " + result(2) + ")";
    break;
  case OpKind::LdlSolve: {
    const ir::Value *b = node.operand(2);
    call = "ldl_solve<" + type + ">(" + ptr(x) + ", " + ptr(node.operand(1)) + ", " + ptr(b) +
           ", " + batch + ", " + n + ", " + dimExpr(b->type().shape.back()) + ", " + result(0) +
           ")";
    break;
  }
  case OpKind::MatrixExp:
    call = "matrix_exp<" + type + ">(" + ptr(x) + ", " + batch + ", " + n + ", " + result(0) + ")";
    break;
  default:
    TC_CHECK(false, "emitLinalgNode on " + std::string(ir::opName(node.op())));
  }
  state.callLibrary("lapack::" + call);
  return Status::success();
}

} // namespace thunderc::codegen
