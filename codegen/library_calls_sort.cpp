// Lowering of sort (tc::sort on the CPU; tcg::sort on CUDA, with a merge-sort workspace for
// long rows) and embedding_bag, whose out-of-range indices are reported like gather's.
#include "codegen/emit_state.h"

namespace thunderc::codegen {
namespace {

using ir::OpKind;

std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }

/// values and indices [outer, extent, inner] = x sorted along dim; a 0-d x is one element.
void emitSort(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Shape &shape = x->type().shape;
  int64_t dim = ir::attr::dim(node);
  AroundDims around = aroundDim(shape, dim);
  const std::string &outer = around.outer;
  const std::string &extent = around.extent;
  const std::string &inner = around.inner;
  std::string type = ctype(x);
  std::string call = "sort<" + type + ">(" + state.ptr(x) + ", " + outer + ", " + extent + ", " +
                     inner + ", " + (ir::attr::descending(node) ? "true" : "false") + ", " +
                     state.ptr(node.result(0)) + ", " + state.ptr(node.result(1));
  if (!state.onDevice()) { // keys, positions and merge slots of one row, in the arena
    state.callLibrary(call + ", " +
                      state.workspace("int64_t", "tc::sort_workspace_elements(" + extent + ")") +
                      ")");
    return;
  }
  // Rows the shared-memory network sorts (up to tcg::kSortSharedLimit) need no workspace;
  // longer (or symbolic) ones do.
  const ir::Dim row = shape.empty() ? ir::Dim(1)
                                    : shape[static_cast<size_t>(dim < 0 ? dim + x->type().rank() : dim)];
  bool shortRows = row.isStatic() && row.value() <= 2048;
  if (shortRows) {
    state.callLibrary(call + ", nullptr, nullptr)");
    return;
  }
  std::string elements =
      "tcg::sort_workspace_elements(" + productExpr(shape) + ", " + extent + ")";
  std::string keys = state.workspace(type, elements);
  std::string positions = state.workspace("int64_t", elements);
  state.callLibrary(call + ", " + keys + ", " + positions + ")");
}

/// y [bags, D] from weight [V, D], indices [N], offsets and per_sample_weights?.
void emitEmbeddingBag(const ir::Node &node, EmitState &state) {
  const ir::Value *weight = node.operand(0);
  const ir::Value *indices = node.operand(1);
  const ir::Value *offsets = node.operand(2);
  const ir::Value *y = node.result();
  std::string extent = dimExpr(weight->type().shape[0]);
  std::string perSample = node.numOperands() > 3 ? state.ptr(node.operand(3)) : "nullptr";
  std::string call =
      "embedding_bag<" + ctype(y) + ", " + ctype(indices) + ">(" + state.ptr(weight) + ", " +
      extent + ", " + dimExpr(weight->type().shape[1]) + ", " + state.ptr(indices) + ", " +
      dimExpr(indices->type().shape[0]) + ", " + state.ptr(offsets) + ", " +
      dimExpr(offsets->type().shape[0]) + ", " +
      (ir::attr::include_last_offset(node) ? "true" : "false") + ", " + state.library() +
      "::bag_mode::" + ir::attr::mode(node) + ", int64_t(" +
      std::to_string(ir::attr::padding_idx(node)) + "), " + perSample + ", " + state.ptr(y);
  // On the CPU, one bag's double accumulators come from the arena.
  std::string accumulators =
      state.onDevice() ? "" : ", " + state.workspace("double", dimExpr(weight->type().shape[1]));
  emitIndexCheckedCall(state, node, call, indices, extent, accumulators);
}

} // namespace

Status emitSortNode(const ir::Node &node, EmitState &state) {
  if (node.op() == OpKind::Sort) {
    emitSort(node, state);
    return Status::success();
  }
  TC_CHECK(node.op() == OpKind::EmbeddingBag, "emitSortNode on " + std::string(ir::opName(node.op())));
  emitEmbeddingBag(node, state);
  return Status::success();
}

} // namespace thunderc::codegen
