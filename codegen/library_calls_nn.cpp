// Per-node lowering of library-style ops for both targets: GEMM-based (linear, matmul, addmm,
// conv2d, conv_transpose2d), normalization, softmax, pooling, grid_sample, attention and gathers.
// Each becomes a call into the target's kernel library (backend_cpu/kernels/tc_kernels.h or
// backend_cuda/kernels/tc_cuda_lib.h, which take the same arguments).
#include <cmath>

#include "codegen/emit_state.h"

namespace thunderc::codegen {
namespace {

using ir::OpKind;

std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }
std::string lit(int64_t value) { return "int64_t(" + std::to_string(value) + ")"; }

// Fills `out` (shape `resultShape`) with `bias` broadcast to it.
void emitBroadcastFill(EmitState &state, const ir::Value *bias, const ir::Shape &resultShape,
                       const std::string &out) {
  std::vector<std::string> shape;
  for (const ir::Dim &dim : resultShape)
    shape.push_back(dimExpr(dim));
  emitStridedCopy(state, ctype(bias), state.ptr(bias), "int64_t(0)",
                  broadcastStrides(bias->type().shape, resultShape), shape, out);
}

Status emitLinear(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *weight = node.operand(1);
  const ir::Value *result = node.result();
  const ir::Shape &xShape = x->type().shape;
  std::string rows = productRange(xShape, 0, xShape.size() - 1);
  std::string in = dimExpr(xShape.back());
  std::string out = dimExpr(weight->type().shape[0]);
  double beta = 0.0;
  if (node.numOperands() == 3) {
    emitBroadcastFill(state, node.operand(2), result->type().shape, state.ptr(result));
    beta = 1.0;
  }
  if (!state.onDevice() && state.isPackedWeight(state.ptr(weight))) {
    // The weight is stored pre-packed for the CPU GEMM (cpu_backend.cpp's storedWeights).
    state.callLibrary("gemm_packed(" + rows + ", " + out + ", " + in + ", " + state.ptr(x) +
                      ", " + state.ptr(weight) + ", 1.0, " + doubleLiteral(beta) + ", " +
                      state.ptr(result) + ")");
    return Status::success();
  }
  state.callLibrary("gemm<" + ctype(result) + ">(1, " + rows + ", " + out + ", " + in +
                    ", " + state.ptr(x) + ", 0, false, " + state.ptr(weight) +
                    ", 0, true, 1.0, " + doubleLiteral(beta) + ", " + state.ptr(result) + ")");
  return Status::success();
}

// linear_wq(x, q, scales, zeros?, bias?): one call; the kernel reads the quantized weight.
Status emitLinearWq(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *q = node.operand(1);
  const ir::Value *scales = node.operand(2);
  const bool hasZeros = ir::attr::has_zeros(node);
  const int biasIndex = hasZeros ? 4 : 3;
  const ir::Shape &xShape = x->type().shape;
  std::string zeros = hasZeros ? state.ptr(node.operand(3)) : "nullptr";
  std::string bias =
      node.numOperands() > biasIndex ? state.ptr(node.operand(biasIndex)) : "nullptr";
  if (const std::optional<double> xScale = ir::attr::x_scale(node)) {
    // A statically quantized x: the integer GEMM, on a weight stored pre-packed where the
    // CPU target packed it (cpu_backend.cpp's storedWeights).
    const bool packed = !state.onDevice() && state.isPackedWeight(state.ptr(q));
    state.callLibrary("linear_wq_qx<" + ctype(x) + ", " + ctype(q) + ", " + ctype(scales) +
                      ">(" + productRange(xShape, 0, xShape.size() - 1) + ", " +
                      dimExpr(q->type().shape[0]) + ", " + dimExpr(xShape.back()) + ", " +
                      dimExpr(scales->type().shape[1]) + ", " + state.ptr(x) + ", " +
                      doubleLiteral(*xScale) + ", " +
                      std::to_string(ir::attr::x_zero(node).value_or(0)) + ", " +
                      state.ptr(q) + ", " + state.ptr(scales) + ", " + zeros + ", " + bias +
                      ", " + state.ptr(node.result()) + (packed ? ", true" : "") + ")");
    return Status::success();
  }
  state.callLibrary("linear_wq<" + ctype(x) + ", " + ctype(q) + ", " + ctype(scales) + ">(" +
                    productRange(xShape, 0, xShape.size() - 1) + ", " +
                    dimExpr(q->type().shape[0]) + ", " + dimExpr(xShape.back()) + ", " +
                    dimExpr(scales->type().shape[1]) + ", " + state.ptr(x) + ", " +
                    state.ptr(q) + ", " + state.ptr(scales) + ", " + zeros + ", " + bias + ", " +
                    state.ptr(node.result()) +
                    (ir::attr::dynamic_act(node).value_or(false) ? ", true" : "") + ")");
  return Status::success();
}

// An operand of a batched GEMM: its pointer and batch stride, after expanding a partially
// broadcast batch into a workspace.
struct GemmOperand {
  std::string pointer;
  std::string batchStride;
};

GemmOperand gemmOperand(EmitState &state, const ir::Value *value, ir::Shape matrix,
                        const ir::Shape &batch) {
  ir::Shape shape = value->type().shape;
  ir::Shape ownBatch(shape.begin(), shape.end() - static_cast<long>(std::min<size_t>(2, shape.size())));
  std::string matrixSize = productExpr(matrix);
  if (ownBatch == batch)
    return {state.ptr(value), matrixSize};
  if (numElements(ownBatch) == ir::Dim(1))
    return {state.ptr(value), "int64_t(0)"};
  ir::Shape full = batch;
  full.insert(full.end(), matrix.begin(), matrix.end());
  ir::Shape padded = ownBatch;
  padded.insert(padded.end(), matrix.begin(), matrix.end());
  std::string workspace = state.workspace(ctype(value), productExpr(full));
  std::vector<std::string> fullDims;
  for (const ir::Dim &dim : full)
    fullDims.push_back(dimExpr(dim));
  emitStridedCopy(state, ctype(value), state.ptr(value), "int64_t(0)",
                  broadcastStrides(padded, full), fullDims, workspace);
  return {workspace, matrixSize};
}

// torch.matmul: 1-d operands are promoted to matrices, batch dims broadcast.
Status emitMatmul(const ir::Node &node, EmitState &state) {
  const ir::Value *a = node.operand(0);
  const ir::Value *b = node.operand(1);
  const ir::Value *result = node.result();
  const ir::Shape &aShape = a->type().shape;
  const ir::Shape &bShape = b->type().shape;
  ir::Dim m = aShape.size() >= 2 ? aShape[aShape.size() - 2] : ir::Dim(1);
  ir::Dim k = aShape.back();
  ir::Dim n = bShape.size() >= 2 ? bShape.back() : ir::Dim(1);
  ir::Shape batch = result->type().shape;
  size_t matrixDims = (aShape.size() >= 2 ? 1 : 0) + (bShape.size() >= 2 ? 1 : 0);
  batch.resize(batch.size() - matrixDims);
  GemmOperand left = gemmOperand(state, a, {m, k}, batch);
  GemmOperand right = gemmOperand(state, b, {k, n}, batch);
  state.callLibrary("gemm<" + ctype(result) + ">(" + productExpr(batch) + ", " +
                    dimExpr(m) + ", " + dimExpr(n) + ", " + dimExpr(k) + ", " + left.pointer +
                    ", " + left.batchStride + ", false, " + right.pointer + ", " +
                    right.batchStride + ", false, 1.0, 0.0, " + state.ptr(result) + ")");
  return Status::success();
}

Status emitAddmm(const ir::Node &node, EmitState &state) {
  const ir::Value *a = node.operand(1);
  const ir::Value *b = node.operand(2);
  const ir::Value *result = node.result();
  double alpha = ir::attr::alpha(node);
  double beta = ir::attr::beta(node);
  if (beta != 0.0) {
    emitBroadcastFill(state, node.operand(0), result->type().shape, state.ptr(result));
  }
  const ir::Shape &aShape = a->type().shape;
  if (!state.onDevice() && state.isPackedWeight(state.ptr(b))) {
    // B is a weight stored pre-packed for the CPU GEMM (cpu_backend.cpp's storedWeights).
    state.callLibrary("gemm_packed(" + dimExpr(aShape[0]) + ", " + dimExpr(b->type().shape[1]) +
                      ", " + dimExpr(aShape[1]) + ", " + state.ptr(a) + ", " + state.ptr(b) +
                      ", " + doubleLiteral(alpha) + ", " + doubleLiteral(beta) + ", " +
                      state.ptr(result) + ")");
    return Status::success();
  }
  state.callLibrary("gemm<" + ctype(result) + ">(1, " + dimExpr(aShape[0]) + ", " +
                    dimExpr(b->type().shape[1]) + ", " + dimExpr(aShape[1]) + ", " +
                    state.ptr(a) + ", 0, false, " + state.ptr(b) + ", 0, false, " +
                    doubleLiteral(alpha) + ", " + doubleLiteral(beta) + ", " +
                    state.ptr(result) + ")");
  return Status::success();
}

// grouped_matmul(a[S,K], b[G,K,N], offsets[G]): one grouped GEMM reading the offsets where
// they are (the device for CUDA).
Status emitGroupedMatmul(const ir::Node &node, EmitState &state) {
  const ir::Value *a = node.operand(0);
  const ir::Value *b = node.operand(1);
  const ir::Value *offsets = node.operand(2);
  const ir::Shape &bShape = b->type().shape;
  state.callLibrary("grouped_gemm<" + ctype(a) + ", " + ctype(offsets) + ">(" +
                    dimExpr(a->type().shape[0]) + ", " + dimExpr(bShape[1]) + ", " +
                    dimExpr(bShape[2]) + ", " + dimExpr(bShape[0]) + ", " + state.ptr(a) + ", " +
                    state.ptr(b) + ", " + state.ptr(offsets) + ", " + state.ptr(node.result()) +
                    ")");
  return Status::success();
}

Status emitConv2d(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *weight = node.operand(1);
  const ir::Value *result = node.result();
  const ir::Shape &xs = x->type().shape;
  const ir::Shape &ws = weight->type().shape;
  const ir::Shape &ys = result->type().shape;
  const ir::AttrMap &attrs = node.attrs();
  std::vector<int64_t> stride = ir::attr::stride(attrs);
  std::vector<int64_t> padding = ir::attr::padding(attrs);
  std::vector<int64_t> dilation = ir::attr::dilation(attrs);
  int64_t groups = ir::attr::groups(attrs);
  std::string workspace = state.workspace(
      ctype(result), state.library() + "::conv2d_workspace_size(" + dimExpr(xs[1]) + ", " + dimExpr(ws[2]) +
                         ", " + dimExpr(ws[3]) + ", " + dimExpr(ys[2]) + ", " +
                         dimExpr(ys[3]) + ", " + lit(groups) + ")");
  std::string bias = node.numOperands() == 3 ? state.ptr(node.operand(2)) : "nullptr";
  state.callLibrary("conv2d<" + ctype(result) + ">(" + state.ptr(x) + ", " +
                    dimExpr(xs[0]) + ", " + dimExpr(xs[1]) + ", " + dimExpr(xs[2]) + ", " +
                    dimExpr(xs[3]) + ", " + state.ptr(weight) + ", " + dimExpr(ws[0]) + ", " +
                    dimExpr(ws[2]) + ", " + dimExpr(ws[3]) + ", " + bias + ", " +
                    lit(stride[0]) + ", " + lit(stride[1]) + ", " + lit(padding[0]) + ", " +
                    lit(padding[1]) + ", " + lit(dilation[0]) + ", " + lit(dilation[1]) + ", " +
                    lit(groups) + ", " + state.ptr(result) + ", " + dimExpr(ys[2]) + ", " +
                    dimExpr(ys[3]) + ", " + workspace + ")");
  return Status::success();
}

// conv2d_wq(x, q, scales, zeros?, bias?): one call; the kernel reads the int8 weight (stored
// pre-packed where the CPU target packed it, cpu_backend.cpp's storedWeights).
Status emitConv2dWq(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *q = node.operand(1);
  const ir::Value *result = node.result();
  const ir::Shape &xs = x->type().shape;
  const ir::Shape &ws = q->type().shape;
  const ir::Shape &ys = result->type().shape;
  const ir::AttrMap &attrs = node.attrs();
  std::vector<int64_t> stride = ir::attr::stride(attrs);
  std::vector<int64_t> padding = ir::attr::padding(attrs);
  std::vector<int64_t> dilation = ir::attr::dilation(attrs);
  const bool hasZeros = ir::attr::has_zeros(attrs);
  const int biasIndex = hasZeros ? 4 : 3;
  std::string zeros = hasZeros ? state.ptr(node.operand(3)) : "nullptr";
  std::string bias =
      node.numOperands() > biasIndex ? state.ptr(node.operand(biasIndex)) : "nullptr";
  const bool packed = !state.onDevice() && state.isPackedWeight(state.ptr(q));
  state.callLibrary(
      "conv2d_wq<" + ctype(x) + ", " + ctype(q) + ", " + ctype(result) + ">(" + state.ptr(x) +
      ", " + dimExpr(xs[0]) + ", " + dimExpr(xs[1]) + ", " + dimExpr(xs[2]) + ", " +
      dimExpr(xs[3]) + ", " + doubleLiteral(ir::attr::x_scale(attrs).value_or(1.0)) + ", " +
      std::to_string(ir::attr::x_zero(attrs).value_or(0)) + ", " + state.ptr(q) + ", " +
      dimExpr(ws[0]) + ", " + dimExpr(ws[2]) + ", " + dimExpr(ws[3]) + ", " +
      state.ptr(node.operand(2)) + ", " + zeros + ", " + bias + ", " + lit(stride[0]) + ", " +
      lit(stride[1]) + ", " + lit(padding[0]) + ", " + lit(padding[1]) + ", " +
      lit(dilation[0]) + ", " + lit(dilation[1]) + ", " + lit(ir::attr::groups(attrs)) + ", " +
      state.ptr(result) + ", " + dimExpr(ys[2]) + ", " + dimExpr(ys[3]) +
      (packed ? ", true" : "") + ")");
  return Status::success();
}

// conv_transpose2d: the same arguments as conv2d (output padding is implicit in the result's
// sizes), an unbatched [C,H,W] input being one image, and a workspace in the compute type.
Status emitConvTranspose2d(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *weight = node.operand(1);
  const ir::Value *result = node.result();
  ir::Shape xs = x->type().shape;
  ir::Shape ys = result->type().shape;
  if (xs.size() == 3) {
    xs.insert(xs.begin(), ir::Dim(1));
    ys.insert(ys.begin(), ir::Dim(1));
  }
  const ir::Shape &ws = weight->type().shape;
  const ir::AttrMap &attrs = node.attrs();
  std::vector<int64_t> stride = ir::attr::stride(attrs);
  std::vector<int64_t> padding = ir::attr::padding(attrs);
  std::vector<int64_t> dilation = ir::attr::dilation(attrs);
  int64_t groups = ir::attr::groups(attrs);
  std::string workspace = state.workspace(
      result->type().dtype == ir::DType::F64 ? "double" : "float",
      state.library() + "::conv_transpose2d_workspace_size(" + dimExpr(ys[1]) + ", " +
          dimExpr(ws[2]) + ", " + dimExpr(ws[3]) + ", " + dimExpr(xs[2]) + ", " +
          dimExpr(xs[3]) + ", " + dimExpr(ys[3]) + ")");
  std::string bias = node.numOperands() == 3 ? state.ptr(node.operand(2)) : "nullptr";
  state.callLibrary("conv_transpose2d<" + ctype(result) + ">(" + state.ptr(x) + ", " +
                    dimExpr(xs[0]) + ", " + dimExpr(xs[1]) + ", " + dimExpr(xs[2]) + ", " +
                    dimExpr(xs[3]) + ", " + state.ptr(weight) + ", " + dimExpr(ys[1]) + ", " +
                    dimExpr(ws[2]) + ", " + dimExpr(ws[3]) + ", " + bias + ", " +
                    lit(stride[0]) + ", " + lit(stride[1]) + ", " + lit(padding[0]) + ", " +
                    lit(padding[1]) + ", " + lit(dilation[0]) + ", " + lit(dilation[1]) + ", " +
                    lit(groups) + ", " + state.ptr(result) + ", " + dimExpr(ys[2]) + ", " +
                    dimExpr(ys[3]) + ", " + workspace + ")");
  return Status::success();
}

// "x, N, C, H, W" of an NCHW operand, for pooling calls; an unbatched CHW operand has N = 1.
std::string nchw(EmitState &state, const ir::Value *x) {
  ir::Shape s = x->type().shape;
  if (s.size() == 3)
    s.insert(s.begin(), ir::Dim(1));
  return state.ptr(x) + ", " + dimExpr(s[0]) + ", " + dimExpr(s[1]) + ", " + dimExpr(s[2]) +
         ", " + dimExpr(s[3]);
}

std::string outHW(EmitState &state, const ir::Value *y) {
  const ir::Shape &s = y->type().shape;
  size_t rank = s.size();
  return state.ptr(y) + ", " + dimExpr(s[rank - 2]) + ", " + dimExpr(s[rank - 1]);
}

Status emitPool(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *y = node.result();
  if (x->type().rank() != 4 && x->type().rank() != 3)
    return unsupported("pooling of a rank-" + std::to_string(x->type().rank()) +
                       " tensor (NCHW or CHW)");
  const ir::AttrMap &attrs = node.attrs();
  std::string type = ctype(y);
  if (node.op() == OpKind::AdaptiveAvgPool2d) {
    state.callLibrary("adaptive_avg_pool2d<" + type + ">(" + nchw(state, x) + ", " +
                      outHW(state, y) + ")");
    return Status::success();
  }
  std::vector<int64_t> kernel = ir::attr::kernel(attrs);
  std::vector<int64_t> stride = ir::attr::stride(attrs);
  std::vector<int64_t> padding = ir::attr::padding(attrs);
  std::string window = lit(kernel[0]) + ", " + lit(kernel[1]) + ", " + lit(stride[0]) + ", " +
                       lit(stride[1]) + ", " + lit(padding[0]) + ", " + lit(padding[1]);
  if (node.op() == OpKind::MaxPool2d) {
    std::vector<int64_t> dilation = ir::attr::dilation(attrs);
    state.callLibrary("max_pool2d<" + type + ">(" + nchw(state, x) + ", " + window + ", " +
                      lit(dilation[0]) + ", " + lit(dilation[1]) + ", " + outHW(state, y) +
                      ")");
    return Status::success();
  }
  int64_t divisor = ir::attr::divisor_override(attrs).value_or(0);
  state.callLibrary("avg_pool2d<" + type + ">(" + nchw(state, x) + ", " + window + ", " +
                    (ir::attr::count_include_pad(attrs) ? "true" : "false") + ", " +
                    lit(divisor) + ", " + outHW(state, y) + ")");
  return Status::success();
}

// "tc::pool_geometry{{D, H, W}, {OD, OH, OW}, kernel, stride, padding, dilation}" of a pool
// over the last `spatial` (2 or 3) dims of x into y, a 2-d one having unit depth. Adaptive
// pools have no window attributes (they are left at 1, 1, 0, 1).
std::string poolGeometry(const ir::Node &node, const ir::Value *x, const ir::Value *y,
                         size_t spatial) {
  const ir::Shape &xs = x->type().shape;
  const ir::Shape &ys = y->type().shape;
  std::vector<std::string> in(3, lit(1)), out(3, lit(1));
  std::vector<int64_t> kernel(3, 1), stride(3, 1), padding(3, 0), dilation(3, 1);
  const ir::AttrMap &attrs = node.attrs();
  bool windowed = attrs.has("kernel");
  std::vector<int64_t> dilations =
      attrs.has("dilation") ? ir::attr::dilation(attrs) : std::vector<int64_t>(spatial, 1);
  for (size_t d = 0; d < spatial; ++d) {
    size_t slot = 3 - spatial + d;
    in[slot] = dimExpr(xs[xs.size() - spatial + d]);
    out[slot] = dimExpr(ys[ys.size() - spatial + d]);
    if (!windowed)
      continue;
    kernel[slot] = ir::attr::kernel(attrs)[d];
    stride[slot] = ir::attr::stride(attrs)[d];
    padding[slot] = ir::attr::padding(attrs)[d];
    dilation[slot] = dilations[d];
  }
  auto ints = [](const std::vector<int64_t> &values) {
    std::vector<std::string> texts;
    for (int64_t value : values)
      texts.push_back(std::to_string(value));
    return braceList(texts);
  };
  return "tc::pool_geometry{" + braceList(in) + ", " + braceList(out) + ", " + ints(kernel) +
         ", " + ints(stride) + ", " + ints(padding) + ", " + ints(dilation) + "}";
}

// The 3-d pools and max_pool_indices: one call over the planes (every dim before the pooled
// ones) with the pool's geometry.
Status emitPool3d(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *y = node.result();
  size_t spatial = node.op() == OpKind::MaxPoolIndices ? ir::attr::kernel(node).size() : 3;
  const ir::Shape &xs = x->type().shape;
  std::string planes = productRange(xs, 0, xs.size() - spatial);
  std::string geometry = poolGeometry(node, x, y, spatial);
  std::string type = ctype(x);
  std::string head = "<" + type + ">(" + state.ptr(x) + ", " + planes + ", " + geometry + ", ";
  switch (node.op()) {
  case OpKind::MaxPool3d:
    state.callLibrary("max_pool3d" + head + state.ptr(y) + ", static_cast<int64_t *>(nullptr))");
    break;
  case OpKind::MaxPoolIndices:
    state.callLibrary("max_pool3d" + head + "static_cast<" + type + " *>(nullptr), " +
                      state.ptr(y) + ")");
    break;
  case OpKind::AvgPool3d:
    state.callLibrary("avg_pool3d" + head +
                      (ir::attr::count_include_pad(node) ? "true" : "false") + ", " +
                      lit(ir::attr::divisor_override(node).value_or(0)) + ", " + state.ptr(y) +
                      ")");
    break;
  default:
    state.callLibrary("adaptive_avg_pool3d" + head + state.ptr(y) + ")");
    break;
  }
  return Status::success();
}

// grid_sample(x[N,C,H,W], grid[N,OH,OW,2]).
Status emitGridSample(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *grid = node.operand(1);
  const ir::Value *y = node.result();
  const ir::Shape &xs = x->type().shape;
  const ir::Shape &gs = grid->type().shape;
  std::string padding = ir::attr::padding_mode(node);
  state.callLibrary("grid_sample<" + ctype(y) + ">(" + state.ptr(x) + ", " + dimExpr(xs[0]) +
                    ", " + dimExpr(xs[1]) + ", " + dimExpr(xs[2]) + ", " + dimExpr(xs[3]) +
                    ", " + state.ptr(grid) + ", " + dimExpr(gs[1]) + ", " + dimExpr(gs[2]) +
                    ", tc::grid_mode::" + ir::attr::mode(node) + ", tc::grid_padding::" +
                    padding + ", " + (ir::attr::align_corners(node) ? "true" : "false") + ", " +
                    state.ptr(y) + ")");
  return Status::success();
}

Status emitSoftmax(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  AroundDims around = aroundDim(x->type().shape, ir::attr::dim(node));
  state.callLibrary("softmax<" + ctype(x) + ">(" + state.ptr(x) + ", " + around.outer + ", " +
                    around.extent + ", " + around.inner + ", " +
                    (node.op() == OpKind::LogSoftmax ? "true" : "false") + ", " +
                    state.ptr(node.result()) + ")");
  return Status::success();
}

// cumsum: x viewed as [outer, extent, inner] around `dim` (a 0-d x is one element).
Status emitCumsum(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  AroundDims around = aroundDim(x->type().shape, ir::attr::dim(node));
  state.callLibrary("cumsum<" + ctype(x) + ", " + ctype(node.result()) + ">(" + state.ptr(x) +
                    ", " + around.outer + ", " + around.extent + ", " + around.inner + ", " +
                    state.ptr(node.result()) + ")");
  return Status::success();
}

Status emitLayerNorm(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Shape &shape = x->type().shape;
  size_t normalized = ir::attr::normalized_shape(node).size();
  std::string rows = productRange(shape, 0, shape.size() - normalized);
  std::string cols = productRange(shape, shape.size() - normalized, shape.size());
  std::string weight = node.numOperands() > 1 ? state.ptr(node.operand(1)) : "nullptr";
  std::string bias = node.numOperands() > 2 ? state.ptr(node.operand(2)) : "nullptr";
  state.callLibrary("layer_norm<" + ctype(x) + ">(" + state.ptr(x) + ", " + rows + ", " +
                    cols + ", " + weight + ", " + bias + ", " +
                    doubleLiteral(ir::attr::eps(node)) + ", " +
                    state.ptr(node.result()) + ")");
  return Status::success();
}

Status emitBatchNorm(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Shape &shape = x->type().shape;
  std::string weight = node.numOperands() > 3 ? state.ptr(node.operand(3)) : "nullptr";
  std::string bias = node.numOperands() > 4 ? state.ptr(node.operand(4)) : "nullptr";
  state.callLibrary("batch_norm<" + ctype(x) + ">(" + state.ptr(x) + ", " +
                    dimExpr(shape[0]) + ", " + dimExpr(shape[1]) + ", " +
                    productRange(shape, 2, shape.size()) + ", " + state.ptr(node.operand(1)) +
                    ", " + state.ptr(node.operand(2)) + ", " + weight + ", " + bias + ", " +
                    doubleLiteral(ir::attr::eps(node)) + ", " +
                    state.ptr(node.result()) + ")");
  return Status::success();
}

Status emitAttention(const ir::Node &node, EmitState &state) {
  const ir::Value *q = node.operand(0);
  const ir::Value *k = node.operand(1);
  const ir::Value *v = node.operand(2);
  const ir::Value *y = node.result();
  const ir::Shape &qs = q->type().shape;
  const ir::Shape &ks = k->type().shape;
  const ir::Shape &vs = v->type().shape;
  size_t rank = qs.size();
  ir::Shape qBatch(qs.begin(), qs.end() - 2);
  if (ir::Shape(ks.begin(), ks.end() - 2) != qBatch || ir::Shape(vs.begin(), vs.end() - 2) != qBatch)
    return unsupported("attention whose key/value batch dims differ from the query's");
  std::string batch = productExpr(qBatch);
  std::string L = dimExpr(qs[rank - 2]);
  std::string E = dimExpr(qs[rank - 1]);
  std::string S = dimExpr(ks[rank - 2]);
  std::string Ev = dimExpr(vs[rank - 1]);
  std::string mask = "nullptr";
  bool maskIsBool = false;
  if (node.numOperands() == 4) {
    const ir::Value *maskValue = node.operand(3);
    maskIsBool = maskValue->type().dtype == ir::DType::Bool;
    ir::Shape full = qBatch;
    full.push_back(qs[rank - 2]);
    full.push_back(ks[rank - 2]);
    mask = state.workspace(ctype(maskValue), productExpr(full));
    std::vector<std::string> fullDims;
    for (const ir::Dim &dim : full)
      fullDims.push_back(dimExpr(dim));
    emitStridedCopy(state, ctype(maskValue), state.ptr(maskValue), "int64_t(0)",
                    broadcastStrides(maskValue->type().shape, full), fullDims, mask);
  }
  std::optional<double> scaleAttr = ir::attr::scale(node);
  std::string scale = scaleAttr ? doubleLiteral(*scaleAttr) : "1.0 / std::sqrt(double(" + E + "))";
  std::string workspace = state.workspace("double", state.library() + "::attention_workspace_size(" + batch + ", " + L + ", " + S + ", " + Ev + ")");
  state.callLibrary("attention<" + ctype(y) + ">(" + state.ptr(q) + ", " + state.ptr(k) +
                    ", " + state.ptr(v) + ", " + batch + ", " + L + ", " + S + ", " + E + ", " +
                    Ev + ", " + mask + ", " + (maskIsBool ? "true" : "false") + ", " + scale +
                    ", " + (ir::attr::is_causal(node) ? "true" : "false") + ", " +
                    state.ptr(y) + ", " + workspace + ")");
  return Status::success();
}

Status emitGather(const ir::Node &node, EmitState &state) {
  const ir::Value *table = node.operand(0);
  const ir::Value *indices = node.operand(1);
  const ir::Value *y = node.result();
  std::string count = productExpr(indices->type().shape);
  std::string call;
  std::string extent;
  if (node.op() == OpKind::Embedding) {
    const ir::Shape &ws = table->type().shape;
    extent = dimExpr(ws[0]);
    call = "embedding<" + ctype(y) + ", " + ctype(indices) + ">(" + state.ptr(table) + ", " +
           extent + ", " + dimExpr(ws[1]) + ", " + state.ptr(indices) + ", " + count + ", " +
           state.ptr(y);
  } else if (node.op() == OpKind::Gather) {
    // x [outer, extent, inner] and index [outer, count, inner]; a 0-d x is one element.
    int64_t dim = ir::attr::dim(node);
    AroundDims around = aroundDim(table->type().shape, dim);
    extent = around.extent;
    call = "gather<" + ctype(y) + ", " + ctype(indices) + ">(" + state.ptr(table) + ", " +
           around.outer + ", " + extent + ", " + around.inner + ", " + state.ptr(indices) +
           ", " + aroundDim(indices->type().shape, dim).extent + ", " + state.ptr(y);
  } else {
    // A 0-d table (dim 0 or -1) is one row: the one index must be 0.
    AroundDims around = aroundDim(table->type().shape, ir::attr::dim(node));
    extent = around.extent;
    call = "index_select<" + ctype(y) + ", " + ctype(indices) + ">(" + state.ptr(table) +
           ", " + around.outer + ", " + extent + ", " + around.inner + ", " +
           state.ptr(indices) + ", " + count + ", " + state.ptr(y);
  }
  emitIndexCheckedCall(state, node, call, indices, extent);
  return Status::success();
}



// ---- padding and resampling ----

// pad: runs of adjacent unpadded dims are merged into one (their index is copied as is), so
// that an NCHW pad of the last two dims is a rank-3 problem whatever the batch dims.
Status emitPad(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *y = node.result();
  const ir::Shape &inShape = x->type().shape;
  const ir::Shape &outShape = y->type().shape;
  std::vector<int64_t> pads = ir::attr::pads(node);
  std::vector<std::string> in, out, before;
  bool previousUnpadded = false;
  for (size_t d = 0; d < inShape.size(); ++d) {
    bool unpadded = pads[2 * d] == 0 && pads[2 * d + 1] == 0;
    if (unpadded && previousUnpadded) {
      in.back() = "(" + in.back() + " * " + dimExpr(inShape[d]) + ")";
      out.back() = "(" + out.back() + " * " + dimExpr(outShape[d]) + ")";
      continue;
    }
    in.push_back(dimExpr(inShape[d]));
    out.push_back(dimExpr(outShape[d]));
    before.push_back(lit(pads[2 * d]));
    previousUnpadded = unpadded;
  }
  std::string mode = ir::attr::mode(node);
  if (mode != "constant" && mode != "reflect" && mode != "replicate" && mode != "circular")
    return unsupported("node '" + node.name() + "' (pad): mode '" + mode + "'");
  CodeWriter &code = state.code();
  code.open("");
  if (in.empty()) { // a 0-d pad copies its one element; the arrays must not be empty
    in = out = {"int64_t(1)"};
    before = {"int64_t(0)"};
  }
  code.line("const int64_t in_shape[] = " + braceList(in) + ";");
  code.line("const int64_t before[] = " + braceList(before) + ";");
  code.line("const int64_t out_shape[] = " + braceList(out) + ";");
  int rank = static_cast<int>(inShape.empty() ? 0 : in.size());
  state.callLibrary("pad<" + ctype(y) + ">(" + state.ptr(x) + ", " + std::to_string(rank) +
                    ", in_shape, before, out_shape, tc::pad_mode::" + mode + ", " +
                    doubleLiteral(ir::attr::value(node)) + ", " + state.ptr(y) + ")");
  code.close();
  return Status::success();
}

Status emitUpsample(const ir::Node &node, EmitState &state) {
  const ir::Value *x = node.operand(0);
  const ir::Value *y = node.result();
  const ir::Shape &inShape = x->type().shape;
  const ir::Shape &outShape = y->type().shape;
  std::vector<double> scales = ir::attr::scales(node);
  size_t leading = inShape.size() - scales.size();
  std::vector<std::string> in, out, factors;
  for (size_t s = 0; s < scales.size(); ++s) {
    in.push_back(dimExpr(inShape[leading + s]));
    out.push_back(dimExpr(outShape[leading + s]));
    factors.push_back(doubleLiteral(scales[s]));
  }
  std::string mode = ir::attr::mode(node);
  std::string kind = mode == "linear"          ? "linear"
                     : mode == "nearest-exact" ? "nearest_exact"
                                               : "nearest";
  CodeWriter &code = state.code();
  code.open("");
  code.line("const int64_t in_size[] = " + braceList(in) + ";");
  code.line("const int64_t out_size[] = " + braceList(out) + ";");
  code.line("const double scales[] = " + braceList(factors) + ";");
  state.callLibrary("upsample<" + ctype(y) + ">(" + state.ptr(x) + ", " +
                    productRange(inShape, 0, leading) + ", " + std::to_string(scales.size()) +
                    ", in_size, out_size, scales, tc::upsample_mode::" + kind + ", " +
                    (ir::attr::align_corners(node) ? "true" : "false") + ", " + state.ptr(y) +
                    ")");
  code.close();
  return Status::success();
}

} // namespace

Status emitNnNode(const ir::Node &node, EmitState &state) {
  switch (node.op()) {
  case OpKind::Linear: return emitLinear(node, state);
  case OpKind::LinearWq: return emitLinearWq(node, state);
  case OpKind::Matmul: return emitMatmul(node, state);
  case OpKind::Addmm: return emitAddmm(node, state);
  case OpKind::GroupedMatmul: return emitGroupedMatmul(node, state);
  case OpKind::Conv2d: return emitConv2d(node, state);
  case OpKind::Conv2dWq: return emitConv2dWq(node, state);
  case OpKind::ConvTranspose2d: return emitConvTranspose2d(node, state);
  case OpKind::MaxPool2d:
  case OpKind::AvgPool2d:
  case OpKind::AdaptiveAvgPool2d: return emitPool(node, state);
  case OpKind::MaxPool3d:
  case OpKind::AvgPool3d:
  case OpKind::AdaptiveAvgPool3d:
  case OpKind::MaxPoolIndices: return emitPool3d(node, state);
  case OpKind::GridSample: return emitGridSample(node, state);
  case OpKind::Softmax:
  case OpKind::LogSoftmax: return emitSoftmax(node, state);
  case OpKind::Cumsum: return emitCumsum(node, state);
  case OpKind::LayerNorm: return emitLayerNorm(node, state);
  case OpKind::BatchNorm: return emitBatchNorm(node, state);
  case OpKind::Attention: return emitAttention(node, state);
  case OpKind::Embedding:
  case OpKind::IndexSelect:
  case OpKind::Gather: return emitGather(node, state);
  case OpKind::Pad: return emitPad(node, state);
  case OpKind::Upsample: return emitUpsample(node, state);
  default: break;
  }
  return unsupported("node '" + node.name() + "' (" + std::string(ir::opName(node.op())) +
                     "): no host lowering");
}

void emitIndexCheckedCall(EmitState &state, const ir::Node &node, const std::string &call,
                          const ir::Value *indices, const std::string &extent,
                          const std::string &hostArguments) {
  if (state.onDevice()) {
    // Out-of-range indices are recorded in the context's gather_error with this site number,
    // which <name>_synchronize turns back into the node's name.
    state.code().line("context->ex.error_site = " + std::to_string(state.addGatherSite()) + ";");
    state.callLibrary(call + ")");
    return;
  }
  // The error names the first bad index: its position in the index tensor, its value and the
  // valid range.
  state.code().open("");
  state.code().line("int64_t bad = 0;");
  state.code().open("if (!tc::" + call + ", &bad" + hostArguments + "))");
  state.code().line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"node '" +
                    node.name() + "' (" + std::string(ir::opName(node.op())) +
                    "): index %lld at position %lld of the indices is out of range: valid "
                    "indices are 0 to %lld\", static_cast<long long>(" + state.ptr(indices) +
                    "[bad]), static_cast<long long>(bad), static_cast<long long>(" + extent +
                    ") - 1);");
  state.code().close();
  state.code().close();
}

} // namespace thunderc::codegen
