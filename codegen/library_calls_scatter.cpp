// Lowering of as_strided (one strided copy) and of the scatters: slice_scatter copies its
// input and stores the source into the window; scatter copies its input and calls the kernel
// library's scatter, whose out-of-range indices are reported like gather's. When the memory
// plan writes the result over the input (a state such as a KV cache updated in place), the copy
// is skipped and only the scattered elements are written.
#include "codegen/emit_state.h"

namespace thunderc::codegen {
namespace {

using ir::OpKind;

std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }

std::string intLiteral(int64_t value) { return "int64_t(" + std::to_string(value) + ")"; }

void emitAsStrided(const ir::Node &node, EmitState &state) {
  std::vector<std::string> strides;
  for (int64_t stride : ir::attr::stride(node))
    strides.push_back(intLiteral(stride));
  emitStridedCopy(state, ctype(node.result()), state.ptr(node.operand(0)),
                  intLiteral(ir::attr::start(node)), strides, dimExprs(node.result()->type()),
                  state.ptr(node.result()));
}

/// y = x, then the window start, start + step, ... along dim of y = src.
void emitSliceScatter(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *src = node.operand(1);
  const ir::Value *y = node.result();
  if (state.ptr(x) != state.ptr(y)) // else in place: a state updated where it lives
    state.copyElements(ctype(y), state.ptr(x), productExpr(x->type().shape), state.ptr(y));
  auto dim = static_cast<size_t>(ir::attr::dim(node));
  std::vector<std::string> strides = contiguousStrideExprs(x->type().shape);
  std::string offset = intLiteral(ir::attr::start(node)) + " * " + strides[dim];
  strides[dim] = intLiteral(ir::attr::step(node)) + " * " + strides[dim];
  CodeWriter &code = state.code();
  code.open("");
  code.line("const int64_t strides[] = " + braceList(strides) + ";");
  code.line("const int64_t shape[] = " + braceList(dimExprs(src->type())) + ";");
  state.callLibrary("strided_store<" + ctype(y) + ">(" + state.ptr(src) + ", " +
                    std::to_string(strides.size()) + ", shape, " + state.ptr(y) + ", " + offset +
                    ", strides)");
  code.close();
}

/// y = x, then scatter(y, index, src) over [outer, extent, inner] (index and src
/// [outer, count, inner]); a 0-d x is one element.
void emitScatter(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *index = node.operand(1);
  const ir::Value *src = node.operand(2);
  const ir::Value *y = node.result();
  if (state.ptr(x) != state.ptr(y)) // else in place: a state updated where it lives
    state.copyElements(ctype(y), state.ptr(x), productExpr(x->type().shape), state.ptr(y));
  int64_t dim = ir::attr::dim(node);
  AroundDims around = aroundDim(x->type().shape, dim);
  std::string extent = around.extent;
  std::string call = "scatter<" + ctype(y) + ", " + ctype(index) + ">(" + state.ptr(y) + ", " +
                     around.outer + ", " + extent + ", " + around.inner + ", " +
                     state.ptr(index) + ", " + aroundDim(index->type().shape, dim).extent +
                     ", " + state.ptr(src) +
                     ", tc::scatter_reduce::" + ir::attr::reduce(node) + ", " +
                     (ir::attr::include_self(node) ? "true" : "false");
  emitIndexCheckedCall(state, node, call, index, extent);
}

} // namespace

Status emitScatterNode(const ir::Node &node, EmitState &state) {
  switch (node.op()) {
  case OpKind::AsStrided:
    emitAsStrided(node, state);
    return Status::success();
  case OpKind::SliceScatter:
    emitSliceScatter(node, state);
    return Status::success();
  case OpKind::Scatter:
    emitScatter(node, state);
    return Status::success();
  default:
    break;
  }
  TC_CHECK(false, "emitScatterNode on " + std::string(ir::opName(node.op())));
}

} // namespace thunderc::codegen
