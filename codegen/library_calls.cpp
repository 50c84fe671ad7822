// Per-node lowering shared by both targets: the scalar expression per elementwise op (here,
// once; the targets' kernels wrap it), data movement as strided copies, constants and
// reductions as calls of the target's kernel library (tc:: on the CPU, tcg:: on CUDA), and the
// dispatch of kernel nodes to the target. Library-style ops (GEMM, convolution,
// normalization, attention, pooling) are in library_calls_nn.cpp.
#include <algorithm>
#include <numeric>

#include "codegen/emit_state.h"
#include "ir/printer.h"
#include "ir/shape_inference.h"

namespace thunderc::codegen {

const std::string &EmitState::ptr(const ir::Value *value) const {
  auto it = pointers_.find(value);
  TC_CHECK(it != pointers_.end(), "value without a pointer: " + value->name());
  return it->second;
}

opt::ValueLayout EmitState::layout(const ir::Value *value) const {
  if (layouts_ != nullptr) {
    auto it = layouts_->find(value);
    if (it != layouts_->end())
      return it->second;
  }
  return opt::ownLayout(value);
}

void EmitState::callLibrary(const std::string &call) {
  if (!onDevice()) {
    code_.line("tc::" + call + ";");
    return;
  }
  size_t open = call.find('(');
  TC_CHECK(open != std::string::npos && call.back() == ')', "malformed library call " + call);
  // Parenthesized: the template arguments' commas would split the macro's arguments.
  code_.line("TC_CUDA_TRY((tcg::" + call.substr(0, open + 1) + "ex, " + call.substr(open + 1) +
             "), \"" + currentNodeLabel() + "\");");
}

void EmitState::copyElements(const std::string &type, const std::string &source,
                             const std::string &count, const std::string &target) {
  if (onDevice()) {
    callLibrary("copy<" + type + ">(" + source + ", " + count + ", " + target + ")");
    return;
  }
  code_.line("std::copy(" + source + ", " + source + " + " + count + ", " + target + ");");
}

std::string EmitState::currentNodeLabel() const {
  if (currentNode_ == nullptr)
    return "output copies";
  // Nodes read from text IR (and some made by passes) have no name: their result's is used.
  std::string name = currentNode_->name();
  if (name.empty() && currentNode_->numResults() > 0)
    name = currentNode_->result(0)->name();
  std::string label = "node '" + name + "' (" + std::string(ir::opName(currentNode_->op())) + ")";
  return escapeString(label); // a C string literal's contents (passed as a %s argument)
}

Status emitEpilogueLibraryCall(const ir::Node &fusion, const EpilogueKernel &kernel,
                               EmitState &state) {
  // The library op reads the fusion's operands and writes the fusion's result.
  const ir::Graph &body = *fusion.body();
  for (size_t k = 0; k < body.inputs().size(); ++k)
    state.setPtr(body.inputs()[k].get(), state.ptr(fusion.operand(static_cast<int>(k))));
  state.setPtr(kernel.library->result(), state.ptr(fusion.result()));
  return emitNode(*kernel.library, state);
}

std::string EmitState::workspace(const std::string &type, const std::string &elements) {
  std::string name = "ws" + std::to_string(workspaces_.size());
  workspaces_.push_back({name, type, elements});
  return name;
}

std::vector<std::string> dimExprs(const ir::TensorType &type) {
  std::vector<std::string> dims;
  for (const ir::Dim &dim : type.shape)
    dims.push_back(dimExpr(dim));
  return dims;
}

std::string productRange(const ir::Shape &shape, size_t begin, size_t end) {
  return productExpr(std::vector<ir::Dim>(shape.begin() + static_cast<long>(begin),
                                          shape.begin() + static_cast<long>(end)));
}

AroundDims aroundDims(const ir::Shape &shape, int64_t first, int64_t last) {
  auto rank = static_cast<int64_t>(shape.size());
  if (rank == 0)
    return {"int64_t(1)", "int64_t(1)", "int64_t(1)"};
  auto begin = static_cast<size_t>(first < 0 ? first + rank : first);
  auto end = static_cast<size_t>(last < 0 ? last + rank : last) + 1;
  return {productRange(shape, 0, begin), productRange(shape, begin, end),
          productRange(shape, end, shape.size())};
}

std::vector<std::string> contiguousStrideExprs(const ir::Shape &shape) {
  std::vector<std::string> strides(shape.size());
  for (size_t i = 0; i < shape.size(); ++i)
    strides[i] = productRange(shape, i + 1, shape.size());
  return strides;
}

std::vector<std::string> broadcastStrides(const ir::Shape &operand, const ir::Shape &result) {
  std::vector<std::string> contiguous = contiguousStrideExprs(operand);
  std::vector<std::string> strides(result.size(), "int64_t(0)");
  size_t offset = result.size() - operand.size();
  for (size_t i = 0; i < operand.size(); ++i) {
    bool broadcast = operand[i] == ir::Dim(1) && !(result[i + offset] == ir::Dim(1));
    strides[i + offset] = broadcast ? "int64_t(0)" : contiguous[i];
  }
  return strides;
}

void emitStridedCopy(EmitState &state, const std::string &type, const std::string &in,
                     const std::string &offset, const std::vector<std::string> &strides,
                     const std::vector<std::string> &outShape, const std::string &out) {
  CodeWriter &code = state.code();
  code.open("");
  code.line("const int64_t strides[] = " + braceList(strides) + ";");
  code.line("const int64_t shape[] = " + braceList(outShape) + ";");
  state.callLibrary("strided_copy<" + type + ">(" + in + ", " + offset + ", strides, " +
            std::to_string(outShape.size()) + ", shape, " + out + ")");
  code.close();
}

void emitGather(EmitState &state, const ir::Value *value, const std::string &out) {
  opt::ValueLayout layout = state.layout(value);
  std::vector<std::string> strides;
  for (const ir::Dim &stride : layout.strides)
    strides.push_back(dimExpr(stride));
  emitStridedCopy(state, cppType(value->type().dtype), state.ptr(layout.storage),
                  dimExpr(layout.offset), strides, dimExprs(value->type()), out);
}

using ir::OpKind;

// The expression is the op's row of ir/ops.def, with "{name}" replaced by the value of float
// attribute `name`; gelu, clamp, elu and round_decimals build theirs from their attributes.
Expected<std::string> scalarExpression(const ir::Node &node) {
  const ir::AttrMap &attrs = node.attrs();
  switch (node.op()) {
  case OpKind::Gelu:
    return std::string(ir::attr::approximate(attrs) == "tanh" ? "tc::gelu_tanh(a)"
                                                              : "tc::gelu_erf(a)");
  case OpKind::Clamp: {
    std::string expr = "a";
    if (std::optional<double> min = ir::attr::min(attrs))
      expr = "tc::clamp_min(" + expr + ", A(" + doubleLiteral(*min) + "))";
    if (std::optional<double> max = ir::attr::max(attrs))
      expr = "tc::clamp_max(" + expr + ", A(" + doubleLiteral(*max) + "))";
    return expr;
  }
  case OpKind::Elu:
    return "tc::elu(a, A(" + doubleLiteral(ir::attr::alpha(attrs)) + "), A(" +
           doubleLiteral(ir::attr::scale(attrs).value_or(1.0)) + "), A(" +
           doubleLiteral(ir::attr::input_scale(attrs)) + "))";
  case OpKind::RoundDecimals:
    return "tc::round_decimals(a, " + std::to_string(ir::attr::decimals(attrs)) + ")";
  default: break;
  }
  std::string_view pattern = node.info().scalarExpression;
  if (pattern.empty())
    return unsupported("no scalar expression for op " + std::string(ir::opName(node.op())));
  std::string expr;
  for (size_t i = 0; i < pattern.size(); ++i) {
    size_t close = pattern[i] == '{' ? pattern.find('}', i) : std::string_view::npos;
    if (close == std::string_view::npos) {
      expr += pattern[i];
      continue;
    }
    // A generic read: the attribute is named by the table's expression text.
    expr += doubleLiteral(attrs.getFloat(std::string(pattern.substr(i + 1, close - i - 1))));
    i = close;
  }
  return expr;
}

namespace {


std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }

// A copy with the same element order (reshape, squeeze, unsqueeze).
void emitContiguousCopy(const ir::Node &node, EmitState &state) {
  const ir::Value *result = node.result();
  state.copyElements(ctype(result), state.ptr(node.operand(0)), productExpr(result->type().shape),
                     state.ptr(result));
}

// permute, expand, slice, select, flip, diagonal: one strided gather from the operand.
void emitView(const ir::Node &node, EmitState &state) {
  const ir::Value *input = node.operand(0);
  const ir::Value *result = node.result();
  const ir::AttrMap &attrs = node.attrs();
  std::vector<std::string> strides = contiguousStrideExprs(input->type().shape);
  std::string offset = "int64_t(0)";
  switch (node.op()) {
  case OpKind::Permute: {
    std::vector<std::string> permuted;
    for (int64_t dim : ir::attr::dims(attrs))
      permuted.push_back(strides[static_cast<size_t>(dim)]);
    strides = permuted;
    break;
  }
  case OpKind::Expand:
    strides = broadcastStrides(input->type().shape, result->type().shape);
    break;
  case OpKind::Slice: {
    auto dim = static_cast<size_t>(ir::attr::dim(attrs));
    offset = "int64_t(" + std::to_string(ir::attr::start(attrs)) + ") * " + strides[dim];
    strides[dim] = "int64_t(" + std::to_string(ir::attr::step(attrs)) + ") * " + strides[dim];
    break;
  }
  case OpKind::Select: {
    auto dim = static_cast<size_t>(ir::attr::dim(attrs));
    offset = "int64_t(" + std::to_string(ir::attr::index(attrs)) + ") * " + strides[dim];
    strides.erase(strides.begin() + static_cast<long>(dim));
    break;
  }
  case OpKind::Flip: {
    const ir::Shape &shape = input->type().shape;
    for (int64_t dim : ir::attr::dims(attrs)) {
      auto at = static_cast<size_t>(dim);
      offset += " + std::max<int64_t>(" + dimExpr(shape[at]) + " - 1, 0) * " + strides[at];
      strides[at] = "-" + strides[at];
    }
    break;
  }
  case OpKind::Diagonal: {
    std::vector<int64_t> dims = ir::attr::dims(attrs);
    auto first = static_cast<size_t>(dims[0]);
    auto second = static_cast<size_t>(dims[1]);
    int64_t diagonal = ir::attr::diagonal(attrs);
    if (!(result->type().shape.back() == ir::Dim(0)))
      offset = "int64_t(" + std::to_string(diagonal >= 0 ? diagonal : -diagonal) + ") * " +
               strides[diagonal >= 0 ? second : first];
    std::vector<std::string> kept;
    for (size_t i = 0; i < strides.size(); ++i)
      if (i != first && i != second)
        kept.push_back(strides[i]);
    kept.push_back("(" + strides[first] + " + " + strides[second] + ")");
    strides = kept;
    break;
  }
  default:
    TC_CHECK(false, "emitView on a non-view op");
  }
  emitStridedCopy(state, ctype(result), state.ptr(input), offset, strides,
                  dimExprs(result->type()), state.ptr(result));
}

/// The node's `dim` attribute made non-negative (shape inference accepts -rank..rank-1).
size_t normalizedDimOf(const ir::Node &node, const ir::Value *value) {
  int64_t dim = ir::attr::dim(node);
  return static_cast<size_t>(dim < 0 ? dim + value->type().rank() : dim);
}

void emitSplit(const ir::Node &node, EmitState &state) {
  const ir::Value *input = node.operand(0);
  size_t dim = normalizedDimOf(node, input);
  std::vector<std::string> strides = contiguousStrideExprs(input->type().shape);
  std::string start = "int64_t(0)";
  for (int i = 0; i < node.numResults(); ++i) {
    const ir::Value *piece = node.result(i);
    emitStridedCopy(state, ctype(piece), state.ptr(input), start + " * " + strides[dim],
                    strides, dimExprs(piece->type()), state.ptr(piece));
    start = "(" + start + " + " + dimExpr(piece->type().shape[dim]) + ")";
  }
}

void emitConcat(const ir::Node &node, EmitState &state) {
  const ir::Value *result = node.result();
  size_t dim = normalizedDimOf(node, result);
  std::vector<std::string> strides = contiguousStrideExprs(result->type().shape);
  std::string start = "int64_t(0)";
  CodeWriter &code = state.code();
  for (const ir::Value *operand : node.operands()) {
    code.open("");
    code.line("const int64_t strides[] = " + braceList(strides) + ";");
    code.line("const int64_t shape[] = " + braceList(dimExprs(operand->type())) + ";");
    state.callLibrary("strided_store<" + ctype(result) + ">(" + state.ptr(operand) + ", " +
              std::to_string(strides.size()) + ", shape, " + state.ptr(result) + ", " + start +
              " * " + strides[dim] + ", strides)");
    code.close();
    start = "(" + start + " + " + dimExpr(operand->type().shape[dim]) + ")";
  }
}

void emitTriangle(const ir::Node &node, EmitState &state) {
  const ir::Shape &shape = node.result()->type().shape;
  size_t rank = shape.size();
  state.callLibrary("triangle<" + ctype(node.result()) + ">(" +
                    state.ptr(node.operand(0)) + ", " + productRange(shape, 0, rank - 2) + ", " +
                    dimExpr(shape[rank - 2]) + ", " + dimExpr(shape[rank - 1]) + ", " +
                    std::to_string(ir::attr::diagonal(node)) + ", " +
                    (node.op() == OpKind::Triu ? "true" : "false") + ", " +
                    state.ptr(node.result()) + ")");
}

void emitConstant(const ir::Node &node, EmitState &state) {
  const ir::Value *result = node.result();
  std::string count = productExpr(result->type().shape);
  if (node.op() == OpKind::Full) {
    state.callLibrary("fill<" + ctype(result) + ">(" + state.ptr(result) + ", " + count +
                      ", " + doubleLiteral(ir::attr::value(node)) + ")");
    return;
  }
  state.callLibrary("arange<" + ctype(result) + ">(" + state.ptr(result) + ", " + count +
                    ", " + doubleLiteral(ir::attr::arange_start(node)) + ", " +
                    doubleLiteral(ir::attr::arange_step(node)) + ")");
}

// random: the context's seed and run number (declared by the model emitter as rng_seed and
// rng_run) with the node's stream.
void emitRandom(const ir::Node &node, EmitState &state) {
  const ir::Value *result = node.result();
  const std::string &distribution = ir::attr::distribution(node);
  // INT64_MIN has no literal (its magnitude is not an int64_t).
  auto literal = [](int64_t value) {
    return value == INT64_MIN ? std::string("(-9223372036854775807 - 1)")
                              : "int64_t(" + std::to_string(value) + ")";
  };
  std::string low = literal(ir::attr::low(node).value_or(0));
  std::string high = literal(ir::attr::high(node).value_or(0));
  state.callLibrary("random_fill<" + ctype(result) + ">(" + state.ptr(result) + ", " +
                    productExpr(result->type().shape) + ", tc::random_distribution::" +
                    distribution + ", tc::random_key{rng_seed, " +
                    std::to_string(ir::attr::stream(node)) + "u, rng_run}, " + low + ", " + high +
                    ")");
}

// nonzero and item: the node's data-dependent symbol (a field of the run's `sym`, declared by
// the model emitter at its upper bound) gets its value, later sizes read it. On CUDA the value
// comes to the host (a copy and a stream synchronization, inside tcg::nonzero / tcg::item), so
// a run with such a node cannot be captured in a CUDA graph.
Status emitDataDependentSymbol(const ir::Node &node, EmitState &state) {
  CodeWriter &code = state.code();
  const ir::Value *x = node.operand(0);
  std::string symbol = "sym." + ir::attr::symbol(node);
  std::string label = state.currentNodeLabel();
  if (node.op() == OpKind::Nonzero) {
    if (x->type().rank() > 8)
      return unsupported("nonzero of a tensor of more than 8 dims: " + x->type().str());
    code.open("");
    code.line("const int64_t shape[] = " +
              braceList(x->type().rank() == 0 ? std::vector<std::string>{"int64_t(1)"}
                                              : dimExprs(x->type())) +
              ";");
    std::string rank = std::to_string(x->type().rank());
    if (!state.onDevice()) {
      code.line(symbol + " = tc::nonzero<" + ctype(x) + ">(" + state.ptr(x) + ", " + rank +
                ", shape, " + state.ptr(node.result()) + ");");
    } else {
      std::string workspace = state.workspace("int64_t", "tcg::kNonzeroWorkspace");
      code.line("TC_CUDA_TRY((tcg::nonzero<" + ctype(x) + ">(ex, " + state.ptr(x) + ", " + rank +
                ", shape, " + workspace + ", " + state.ptr(node.result()) + ", &" + symbol +
                ")), \"" + label + "\");");
    }
    code.close();
  } else if (!state.onDevice()) {
    code.line(symbol + " = static_cast<int64_t>(" + state.ptr(x) + "[0]);");
  } else {
    code.line("TC_CUDA_TRY((tcg::item<" + ctype(x) + ">(ex, " + state.ptr(x) + ", &" + symbol +
              ")), \"" + label + "\");");
  }
  // torch._check bounds the value (the exporter's range for the symbol).
  const ir::Graph *graph = node.graph();
  auto range = graph->symbols().find(ir::attr::symbol(node));
  if (range != graph->symbols().end()) {
    std::string condition = symbol + " < " + std::to_string(range->second.min);
    if (range->second.max)
      condition += " || " + symbol + " > " + std::to_string(*range->second.max);
    code.open("if (" + condition + ")");
    code.line("return tc_error_setf(err, TC_ERROR_OUT_OF_RANGE, \"" + label + ": " +
              (node.op() == OpKind::Nonzero ? "the count of non-zero elements" : "the value") +
              " %lld (symbol " + ir::attr::symbol(node) + ") is outside its range [" +
              std::to_string(range->second.min) + ", " +
              (range->second.max ? std::to_string(*range->second.max) : "inf") +
              "] (a torch._check of the exported program)\", (long long)" + symbol + ");");
    code.close();
  }
  if (node.op() == OpKind::Item) {
    if (!state.onDevice())
      code.line(state.ptr(node.result()) + "[0] = " + symbol + ";");
    else
      code.line("TC_CUDA_TRY(tcg::check(cudaMemcpyAsync(" + state.ptr(node.result()) + ", &" +
                symbol + ", sizeof(int64_t), cudaMemcpyHostToDevice, ex.stream), "
                "\"cudaMemcpyAsync\"), \"" + label + "\");");
  }
  return Status::success();
}

// Reductions run over the middle axis of [outer, extent, inner]. Reduced dims that are not
// adjacent are first moved last by a strided copy into a workspace.
void emitReduction(const ir::Node &node, EmitState &state) {
  const ir::Value *input = node.operand(0);
  const ir::Value *result = node.result();
  const ir::Shape &shape = input->type().shape;
  std::vector<int64_t> dims = ir::reducedDims(node.op() == OpKind::Argmax
                                                  ? std::vector<int64_t>{ir::attr::dim(node)}
                                                  : ir::attr::dims(node),
                                              input->type().rank());
  std::string source = state.ptr(input);
  std::string outer, extent, inner;
  bool adjacent = dims.empty() || dims.back() - dims.front() + 1 == static_cast<int64_t>(dims.size());
  if (adjacent) {
    // No dims to fold only for a 0-d input: one element, [1, 1, 1].
    AroundDims around = dims.empty() ? aroundDim(shape, 0)
                                     : aroundDims(shape, dims.front(), dims.back());
    outer = around.outer;
    extent = around.extent;
    inner = around.inner;
  } else {
    std::vector<std::string> contiguous = contiguousStrideExprs(shape);
    std::vector<std::string> strides, order;
    std::vector<ir::Dim> kept, reduced;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(i)))
        continue;
      strides.push_back(contiguous[i]);
      order.push_back(dimExpr(shape[i]));
      kept.push_back(shape[i]);
    }
    for (int64_t dim : dims) {
      strides.push_back(contiguous[static_cast<size_t>(dim)]);
      order.push_back(dimExpr(shape[static_cast<size_t>(dim)]));
      reduced.push_back(shape[static_cast<size_t>(dim)]);
    }
    source = state.workspace(ctype(input), productExpr(shape));
    emitStridedCopy(state, ctype(input), state.ptr(input), "int64_t(0)", strides, order, source);
    outer = productExpr(kept);
    extent = productExpr(reduced);
    inner = "int64_t(1)";
  }
  std::string args = source + ", " + outer + ", " + extent + ", " + inner + ", ";
  std::string out = state.ptr(result);
  std::string inType = ctype(input);
  switch (node.op()) {
  case OpKind::Any:
    state.callLibrary("reduce_any<" + inType + ">(" + args + out + ")");
    return;
  case OpKind::Var:
    state.callLibrary("variance<" + inType + ">(" + args +
                      doubleLiteral(ir::attr::correction(node)) + ", " + out + ")");
    return;
  case OpKind::Argmax:
    state.callLibrary("argmax<" + inType + ">(" + args + out + ")");
    return;
  default:
    break;
  }
  static const std::map<OpKind, std::string> kKinds = {{OpKind::Sum, "sum"},
                                                       {OpKind::Mean, "mean"},
                                                       {OpKind::Amax, "amax"},
                                                       {OpKind::Amin, "amin"},
                                                       {OpKind::Prod, "prod"}};
  state.callLibrary("reduce<" + inType + ", " + ctype(result) + ">(" + state.library() + "::reduce_kind::" +
                    kKinds.at(node.op()) + ", " + args + out + ")");
}

// Every other op: a call into the kernel library, or (without a memory plan) a view
// materialized as a copy.
Status emitLibraryNode(const ir::Node &node, EmitState &state) {
  switch (node.op()) {
  case OpKind::Reshape:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze:
    emitContiguousCopy(node, state);
    return Status::success();
  case OpKind::Permute:
  case OpKind::Expand:
  case OpKind::Slice:
  case OpKind::Select:
  case OpKind::Flip:
  case OpKind::Diagonal:
    emitView(node, state);
    return Status::success();
  case OpKind::Split:
    emitSplit(node, state);
    return Status::success();
  case OpKind::Concat:
    emitConcat(node, state);
    return Status::success();
  case OpKind::Tril:
  case OpKind::Triu:
    emitTriangle(node, state);
    return Status::success();
  case OpKind::Full:
  case OpKind::Arange:
    emitConstant(node, state);
    return Status::success();
  case OpKind::Random:
    emitRandom(node, state);
    return Status::success();
  case OpKind::Nonzero:
  case OpKind::Item:
    return emitDataDependentSymbol(node, state);
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Amax:
  case OpKind::Amin:
  case OpKind::Prod:
  case OpKind::Any:
  case OpKind::Var:
  case OpKind::Argmax:
    emitReduction(node, state);
    return Status::success();
  case OpKind::AsStrided:
  case OpKind::SliceScatter:
  case OpKind::Scatter:
    return emitScatterNode(node, state);
  case OpKind::Sort:
  case OpKind::EmbeddingBag:
    return emitSortNode(node, state);
  default:
    if (node.info().family == ir::OpFamily::Linalg)
      return emitLinalgNode(node, state);
    return emitNnNode(node, state);
  }
}


// A library op reading a view that is not contiguous (only without the layout pass): the
// view is gathered into a workspace for this node, which reads it through a swapped pointer.
std::vector<std::pair<const ir::Value *, std::string>> gatherStridedOperands(const ir::Node &node,
                                                                            EmitState &state) {
  std::vector<std::pair<const ir::Value *, std::string>> swapped;
  for (const ir::Value *operand : node.operands()) {
    opt::ValueLayout layout = state.layout(operand);
    if (opt::isContiguous(layout, operand->type().shape))
      continue;
    if (std::any_of(swapped.begin(), swapped.end(),
                    [&](const auto &entry) { return entry.first == operand; }))
      continue;
    std::string gathered = state.workspace(ctype(operand), productExpr(operand->type().shape));
    emitGather(state, operand, gathered);
    swapped.push_back({operand, state.ptr(operand)});
    state.setPtr(operand, gathered);
  }
  return swapped;
}

// cond_predicate: the 0-d bool operand to the host predicate (declared by the model emitter,
// see predicateVariable) and to the result. On CUDA the read waits for the stream: the
// branches' launches depend on it.
void emitCondPredicate(const ir::Node &node, EmitState &state) {
  CodeWriter &code = state.code();
  std::string predicate = predicateVariable(ir::attr::predicate_id(node));
  std::string in = state.ptr(node.operand(0));
  std::string out = state.ptr(node.result());
  if (!state.onDevice()) {
    code.line(predicate + " = " + in + "[0];");
    code.line(out + "[0] = " + predicate + ";");
    return;
  }
  std::string label = "\"" + state.currentNodeLabel() + "\"";
  code.line("TC_CUDA_TRY(tcg::check(cudaMemcpyAsync(&" + predicate + ", " + in +
            ", sizeof(bool), cudaMemcpyDeviceToHost, ex.stream), \"cudaMemcpyAsync\"), " + label +
            ");");
  code.line("TC_CUDA_TRY(tcg::check(cudaStreamSynchronize(ex.stream), "
            "\"cudaStreamSynchronize\"), " + label + ");");
  state.copyElements("bool", in, "1", out);
}

} // namespace

std::string predicateVariable(int64_t id) { return "predicate" + std::to_string(id); }

Status emitNode(const ir::Node &node, EmitState &state) {
  state.code().line("// " + ir::printNode(node));
  state.setCurrentNode(&node);
  bool isKernel = node.op() == OpKind::Fusion || hasTrait(node.op(), ir::kElementwise);
  if (isKernel)
    return state.backend().emitKernel(node, state);
  if (state.viewsAlias() && hasTrait(node.op(), ir::kView)) {
    state.code().line("// (a view: no code, it aliases its operand's buffer)");
    return Status::success();
  }
  if (node.op() == OpKind::CondPredicate) {
    emitCondPredicate(node, state);
    return Status::success();
  }
  std::vector<std::pair<const ir::Value *, std::string>> swapped;
  if (state.viewsAlias())
    swapped = gatherStridedOperands(node, state);
  Status status = emitLibraryNode(node, state);
  for (const auto &[operand, pointer] : swapped)
    state.setPtr(operand, pointer);
  return status;
}

} // namespace thunderc::codegen
