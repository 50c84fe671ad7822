// Loop kernels for the CPU target: fusion nodes and single elementwise nodes.
//
// Each kernel is written in two parts (docs/DESIGN.md §5):
//   1. its scalar work, once, as TC_HD inline functions at namespace scope ("k3" computes one
//      output element from one element of each input; a reduction has a prologue "k3_in" and
//      an epilogue "k3_out"), written by fusion_kernel.cpp and shared with the CUDA printer;
//   2. the launch structure, here a host loop nest over the kernel's domain that reads every
//      input through its layout (strides, offset, broadcasting: views cost nothing) and writes
//      contiguous outputs.
// Kinds:
//   elementwise  one loop nest over the outputs' common shape;
//   reduction    loops over the kept dims, an inner loop nest over the reduced (adjacent) dims
//                accumulating the prologue's values like tc::reduce does, then the epilogue;
//   epilogue     the library op writes the fusion's output, then one loop applies the
//                elementwise chain to it in place.
#include "backend_cpu/loop_kernels.h"

#include "codegen/emit_state.h"
#include "codegen/fusion_kernel.h"

namespace thunderc::cpu {
using namespace codegen;
namespace {

std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }

/// The element index of `value` (read through `layout`) at the domain indices `indices`
/// (one C++ expression per dim of `domain`), broadcasting size-1 and missing leading dims.
std::string indexExpr(const opt::ValueLayout &layout, const ir::Shape &shape,
                      const ir::Shape &domain, const std::vector<std::string> &indices) {
  std::string index;
  if (!(layout.offset == ir::Dim(0)))
    index = dimExpr(layout.offset);
  size_t lead = domain.size() - shape.size();
  for (size_t j = 0; j < shape.size(); ++j) {
    if (shape[j] == ir::Dim(1) || layout.strides[j] == ir::Dim(0) || indices[j + lead] == "0")
      continue;
    std::string term = indices[j + lead];
    if (!(layout.strides[j] == ir::Dim(1)))
      term += " * " + dimExpr(layout.strides[j]);
    index += (index.empty() ? "" : " + ") + term;
  }
  return index.empty() ? "0" : index;
}

/// A load of `value` inside the loop nest: `ptr[index]`, or `ptr[o]` when it is a dense
/// buffer of the domain's own shape and the loop keeps `o` as the domain's linear index.
std::string loadExpr(const ir::Value *value, const ir::Shape &domain,
                     const std::vector<std::string> &indices, EmitState &state,
                     bool linearIndexIsO = true) {
  opt::ValueLayout layout = state.layout(value);
  const std::string &base = state.ptr(layout.storage);
  if (linearIndexIsO && value->type().shape == domain && layout.offset == ir::Dim(0) &&
      opt::isContiguous(layout, domain))
    return base + "[o]";
  return base + "[" + indexExpr(layout, value->type().shape, domain, indices) + "]";
}

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

/// Elements per thread below which a kernel's loop is not split over threads (tc_parallel.h):
/// below about 16K elements a wake-up of the pool costs more than it saves.
constexpr int64_t kParallelGrain = 16384;

/// True if every element of the domain reads the same element of `value` (a scalar, or a
/// broadcast of one element).
bool readsOneElement(const opt::ValueLayout &layout, const ir::Shape &shape) {
  for (size_t j = 0; j < shape.size(); ++j)
    if (!(shape[j] == ir::Dim(1) || layout.strides[j] == ir::Dim(0)))
      return false;
  return true;
}

/// One loop nest over the results' common shape, split over the context's threads: a single
/// flat loop over the linear index `o` when every input is dense in the domain's order or one
/// broadcast element (the form compilers vectorize best), else the nest with its outermost
/// loop split.
Status emitElementwiseKernel(const LoopKernel &kernel, EmitState &state) {
  const ir::Shape &domain = kernel.outerResults.front()->type().shape;
  for (const ir::Value *result : kernel.outerResults)
    if (!(result->type().shape == domain))
      return unsupported("elementwise kernel with outputs of different shapes");
  std::string name = state.nextKernelName();
  TC_TRY(emitScalarFunction(name, kernel, {}, {}, state.functions()));
  CodeWriter &code = state.code();
  auto call = [&](const std::vector<std::string> &indices) {
    std::vector<std::string> arguments;
    for (const ir::Value *input : kernel.outerInputs)
      arguments.push_back(loadExpr(input, domain, indices, state));
    for (const ir::Value *result : kernel.outerResults)
      arguments.push_back(state.ptr(result) + "[o]");
    code.line(name + "(" + joined(arguments) + ");");
  };
  if (domain.empty()) {
    code.open("");
    code.line("const int64_t o = 0;");
    call({});
    code.close();
    return Status::success();
  }
  bool flat = true;
  for (const ir::Value *input : kernel.outerInputs) {
    opt::ValueLayout layout = state.layout(input);
    bool dense = input->type().shape == domain && layout.offset == ir::Dim(0) &&
                 opt::isContiguous(layout, domain);
    flat = flat && (dense || readsOneElement(layout, input->type().shape));
  }
  if (flat) {
    code.open("tc::parallel_for(" + productExpr(domain) + ", " + std::to_string(kParallelGrain) +
              ", [&](int64_t begin, int64_t end)");
    code.open("for (int64_t o = begin; o < end; ++o)");
    call(std::vector<std::string>(domain.size(), "0"));
    code.close();
    code.close(");");
    return Status::success();
  }
  ir::Shape inner(domain.begin() + 1, domain.end());
  std::string innerSize = productExpr(inner);
  code.open("");
  code.line("const int64_t inner = " + innerSize + ";");
  code.open("tc::parallel_for(" + dimExpr(domain[0]) + ", inner > 0 ? std::max<int64_t>(1, " +
            std::to_string(kParallelGrain) + " / inner) : 1, [&](int64_t begin, int64_t end)");
  code.open("for (int64_t i0 = begin; i0 < end; ++i0)");
  code.line("int64_t o = i0 * inner;");
  std::vector<std::string> indices{"i0"};
  for (size_t i = 1; i < domain.size(); ++i) {
    std::string index = "i" + std::to_string(i);
    code.open("for (int64_t " + index + " = 0; " + index + " < " + dimExpr(domain[i]) + "; ++" +
              index + ")");
    indices.push_back(index);
  }
  call(indices);
  code.line("++o;");
  for (size_t i = 1; i < domain.size(); ++i)
    code.close();
  code.close();
  code.close(");");
  code.close();
  return Status::success();
}

/// A reduction fusion: prologue (ancestors of the one reduction) -> reduction -> epilogue.
Status emitReductionKernel(const ir::Node &fusion, EmitState &state) {
  TC_ASSIGN_OR_RETURN(ReductionKernel kernel, describeReduction(fusion));
  const ir::Node *reduction = kernel.reduction;
  const ir::Value *reduced = reduction->operand(0);
  const ir::Shape &domain = kernel.domain();
  const ir::Shape &resultShape = kernel.resultShape();
  const std::vector<int64_t> &dims = kernel.dims;
  const LoopKernel &prologue = kernel.prologue;
  const LoopKernel &epilogue = kernel.epilogue;
  auto isReduced = [&](size_t dim) { return kernel.isReduced(dim); };

  std::string name = state.nextKernelName();
  std::string reducedType = ctype(reduced);
  std::string resultType = ctype(reduction->result());
  TC_TRY(emitScalarFunction(name + "_in", prologue, {}, {}, state.functions()));
  ScalarNames epilogueNames{{reduction->result(), "r"}};
  TC_TRY(emitScalarFunction(name + "_out", epilogue, {"const " + resultType + " r"},
                            epilogueNames, state.functions()));

  const std::string &kind = kernel.kind;
  bool isSum = kind == "sum" || kind == "mean";
  std::string acc = isSum ? "tc::detail::accumulator_t<" + reducedType + ">"
                          : "tc::compute_t<" + reducedType + ">";
  std::string initial = isSum ? acc + "(0)"
                        : kind == "amax" ? "tc::detail::lowest_value<" + reducedType + ">()"
                                         : "tc::detail::highest_value<" + reducedType + ">()";
  std::vector<ir::Dim> reducedDims;
  for (int64_t dim : dims)
    reducedDims.push_back(domain[static_cast<size_t>(dim)]);

  CodeWriter &code = state.code();
  code.open("");
  // Kept dims outside, reduced dims inside; domain index names follow the domain's dims. The
  // outermost kept loop is split over the context's threads (each result is one thread's).
  std::vector<ir::Dim> keptDims;
  for (size_t i = 0; i < domain.size(); ++i)
    if (!isReduced(i))
      keptDims.push_back(domain[i]);
  bool parallel = !keptDims.empty();
  if (parallel) {
    code.line("const int64_t kept_inner = " +
              productExpr(std::vector<ir::Dim>(keptDims.begin() + 1, keptDims.end())) + ";");
    code.line("const int64_t per_result = " + productExpr(reducedDims) + ";");
    code.open("tc::parallel_for(" + dimExpr(keptDims[0]) +
              ", std::max<int64_t>(1, " + std::to_string(kParallelGrain) +
              " / std::max<int64_t>(1, kept_inner * per_result)), [&](int64_t begin, int64_t end)");
  } else {
    code.line("int64_t o = 0;");
  }
  std::vector<std::string> indices(domain.size());
  size_t opened = 0;
  for (size_t i = 0; i < domain.size(); ++i) {
    if (isReduced(i))
      continue;
    indices[i] = "i" + std::to_string(i);
    if (opened == 0 && parallel) {
      code.open("for (int64_t " + indices[i] + " = begin; " + indices[i] + " < end; ++" +
                indices[i] + ")");
      code.line("int64_t o = " + indices[i] + " * kept_inner;");
    } else {
      code.open("for (int64_t " + indices[i] + " = 0; " + indices[i] + " < " +
                dimExpr(domain[i]) + "; ++" + indices[i] + ")");
    }
    ++opened;
  }
  code.line(acc + " acc = " + initial + ";");
  for (size_t i = 0; i < domain.size(); ++i) {
    if (!isReduced(i))
      continue;
    indices[i] = "i" + std::to_string(i);
    code.open("for (int64_t " + indices[i] + " = 0; " + indices[i] + " < " + dimExpr(domain[i]) +
              "; ++" + indices[i] + ")");
  }
  std::vector<std::string> arguments;
  for (const ir::Value *input : prologue.outerInputs)
    arguments.push_back(loadExpr(input, domain, indices, state, /*linearIndexIsO=*/false));
  code.line(reducedType + " value;");
  arguments.push_back("value");
  code.line(name + "_in(" + joined(arguments) + ");");
  if (isSum)
    code.line("acc = tc::detail::add_wrapping(acc, tc::detail::widen(value));");
  else
    code.line("acc = tc::cast<" + acc + ">(value) " + (kind == "amax" ? ">" : "<") +
              " acc || tc::is_nan(tc::cast<" + acc + ">(value)) ? tc::cast<" + acc +
              ">(value) : acc;");
  for (int64_t dim : dims) {
    (void)dim;
    code.close();
  }
  if (kind == "mean")
    code.line("const " + resultType + " r = tc::cast<" + resultType +
              ">(tc::cast<double>(acc) / static_cast<double>(" + productExpr(reducedDims) +
              "));");
  else
    code.line("const " + resultType + " r = tc::cast<" + resultType + ">(acc);");
  // The epilogue reads at the result's indices: kept dims, and 0 for kept size-1 dims.
  std::vector<std::string> resultIndices;
  for (size_t i = 0; i < domain.size(); ++i) {
    if (!isReduced(i))
      resultIndices.push_back(indices[i]);
    else if (kernel.keepdim)
      resultIndices.push_back("0");
  }
  arguments = {"r"};
  for (const ir::Value *input : epilogue.outerInputs)
    arguments.push_back(loadExpr(input, resultShape, resultIndices, state));
  for (const ir::Value *result : epilogue.outerResults)
    arguments.push_back(state.ptr(result) + "[o]");
  code.line(name + "_out(" + joined(arguments) + ");");
  code.line("++o;");
  for (size_t i = 0; i < opened; ++i)
    code.close();
  if (parallel)
    code.close(");");
  code.close();
  return Status::success();
}

/// An epilogue fusion: the library op writes the output buffer, one loop finishes it in place.
Status emitEpilogueKernel(const ir::Node &fusion, EmitState &state) {
  TC_ASSIGN_OR_RETURN(EpilogueKernel kernel, describeEpilogue(fusion));
  TC_TRY(emitEpilogueLibraryCall(fusion, kernel, state));
  return emitElementwiseKernel(kernel.elementwise, state);
}

} // namespace

Status emitLoopKernel(const ir::Node &node, EmitState &state) {
  if (node.op() != ir::OpKind::Fusion)
    return emitElementwiseKernel(describeElementwise(node), state);
  const std::string &kind = ir::attr::kind(node);
  if (kind == "reduction")
    return emitReductionKernel(node, state);
  if (kind == "epilogue")
    return emitEpilogueKernel(node, state);
  if (kind != "elementwise")
    return unsupported("fusion of unknown kind '" + kind + "'");
  return emitElementwiseKernel(describeElementwise(node), state);
}

} // namespace thunderc::cpu
