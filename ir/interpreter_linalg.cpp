// Reference semantics of the dense linear algebra ops (ir/ops.def): LAPACK in double through
// runtime/kernels/tc_lapack.h, the routines the CPU bundle runs in its own dtype.
#include <vector>

#include "ir/interpreter_internal.h"
#include "runtime/kernels/tc_lapack.h"

namespace thunderc::ir::interp {
namespace {

/// The number of matrices (the product of all dims but the last `trailing`) of x.
int64_t batchCount(const Tensor &x, size_t trailing) {
  int64_t count = 1;
  for (size_t d = 0; d + trailing < x.shape.size(); ++d)
    count *= x.shape[d];
  return count;
}

int64_t rows(const Tensor &x) { return x.shape[x.shape.size() - 2]; }
int64_t cols(const Tensor &x) { return x.shape.back(); }

void storeInts(const std::vector<int32_t> &values, Tensor &out) {
  for (size_t i = 0; i < values.size(); ++i)
    out.data[i] = static_cast<double>(values[i]);
}

} // namespace

Status runLinalgOp(OpCall &call) {
  const Tensor &x = call.operand(0);
  const Node &node = call.node;
  switch (node.op()) {
  case OpKind::LuPermutation: {
    int64_t k = cols(x), m = call.result().shape.back(), batch = batchCount(x, 1);
    std::vector<int32_t> pivots(x.data.begin(), x.data.end());
    for (int32_t pivot : pivots)
      if (pivot < 1 || pivot > m)
        return invalidInput("lu_permutation: pivot " + std::to_string(pivot) +
                            " outside [1, " + std::to_string(m) + "]");
    std::vector<int64_t> perm(static_cast<size_t>(batch * m));
    tc::lapack::pivot_permutation(pivots.data(), batch, k, m, perm.data());
    for (size_t i = 0; i < perm.size(); ++i)
      call.result().data[i] = static_cast<double>(perm[i]);
    return Status::success();
  }
  case OpKind::TriangularSolve: {
    const Tensor &b = call.operand(1);
    bool left = attr::left(node);
    int64_t n = cols(x), k = left ? cols(b) : rows(b);
    tc::lapack::triangular_solve(x.data.data(), b.data.data(), batchCount(x, 2), n, k,
                                 attr::upper(node), left, attr::unitriangular(node),
                                 call.result().data.data());
    return Status::success();
  }
  default:
    break;
  }
  const int64_t batch = batchCount(x, 2), m = rows(x), n = cols(x);
  std::vector<int32_t> info(static_cast<size_t>(batch));
  switch (node.op()) {
  case OpKind::Cholesky:
    tc::lapack::cholesky(x.data.data(), batch, n, attr::upper(node), call.result(0).data.data(),
                         info.data());
    storeInts(info, call.result(1));
    return Status::success();
  case OpKind::LuFactor: {
    std::vector<int32_t> pivots(static_cast<size_t>(batch * std::min(m, n)));
    tc::lapack::lu_factor(x.data.data(), batch, m, n, call.result(0).data.data(), pivots.data(),
                          info.data());
    storeInts(pivots, call.result(1));
    storeInts(info, call.result(2));
    return Status::success();
  }
  case OpKind::Qr:
    tc::lapack::qr(x.data.data(), batch, m, n, attr::full(node), true, call.result(0).data.data(),
                   call.result(1).data.data());
    return Status::success();
  case OpKind::Eigh:
    tc::lapack::eigh(x.data.data(), batch, n, attr::upper(node), attr::vectors(node),
                     call.result(0).data.data(), call.result(1).data.data(), info.data());
    storeInts(info, call.result(2));
    return Status::success();
  case OpKind::Geqrf:
    tc::lapack::qr_packed(x.data.data(), batch, m, n, call.result(0).data.data(),
                          call.result(1).data.data());
    return Status::success();
  case OpKind::HouseholderProduct: {
    const Tensor &tau = call.operand(1);
    tc::lapack::householder_product(x.data.data(), tau.data.data(), batch, m, n, cols(tau),
                                    call.result().data.data());
    return Status::success();
  }
  case OpKind::Ormqr: {
    const Tensor &tau = call.operand(1), &c = call.operand(2);
    tc::lapack::apply_householder(x.data.data(), tau.data.data(), c.data.data(), batch, m, n,
                                  cols(tau), rows(c), cols(c), attr::left(node),
                                  call.result().data.data());
    return Status::success();
  }
  case OpKind::LdlFactor: {
    std::vector<int32_t> pivots(static_cast<size_t>(batch * n));
    tc::lapack::ldl_factor(x.data.data(), batch, n, call.result(0).data.data(), pivots.data(),
                           info.data());
    storeInts(pivots, call.result(1));
    storeInts(info, call.result(2));
    return Status::success();
  }
  case OpKind::LdlSolve: {
    const Tensor &pivots = call.operand(1), &b = call.operand(2);
    std::vector<int32_t> ipiv(pivots.data.begin(), pivots.data.end());
    tc::lapack::ldl_solve(x.data.data(), ipiv.data(), b.data.data(), batch, n, cols(b),
                          call.result().data.data());
    return Status::success();
  }
  case OpKind::MatrixExp:
    tc::lapack::matrix_exp(x.data.data(), batch, n, call.result().data.data());
    return Status::success();
  case OpKind::Svd:
    tc::lapack::svd(x.data.data(), batch, m, n, attr::full(node), attr::vectors(node),
                    call.result(0).data.data(), call.result(1).data.data(),
                    call.result(2).data.data(), info.data());
    storeInts(info, call.result(3));
    return Status::success();
  default:
    break;
  }
  TC_CHECK(false, "runLinalgOp on " + std::string(opName(node.op())));
}

} // namespace thunderc::ir::interp
