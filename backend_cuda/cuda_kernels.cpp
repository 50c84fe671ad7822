// The CUDA kernel printer. For each top-level fusion (or lone elementwise) node, in graph order:
//   1. describe it target-independently (fusion_kernel.h) and print its TC_HD scalar
//      function(s) -- the very text the host bundle compiles;
//   2. print the launch structure, a __global__ __launch_bounds__(256) kernel taking an index
//      struct by value (tc_cuda.h: runtime sizes, per-input strides and offsets in elements;
//      a broadcast dim has stride 0, so views and broadcasts are free) and one pointer per
//      input/output storage:
//        elementwise  grid-stride loop over the flat output index; the multi-index is
//                     decomposed with the runtime sizes, each input read at its offset;
//                     outputs are contiguous and written at the flat index;
//        reduction    one block per kept-dim position (grid-stride over positions); threads
//                     stride over the reduced extent calling kN_in and accumulating like
//                     tc::reduce (double for floating sums, wrapping int64 for integers,
//                     NaN-propagating amax/amin), a warp-shuffle + shared-memory block
//                     reduction, then thread 0 finishes (mean divides) and calls kN_out;
//        epilogue     the elementwise chain as an in-place elementwise kernel over the
//                     library op's output (the library call itself is not printed here);
//   3. print host code: `kN_index(const Symbols &sym)` fills the index struct from the
//      model's symbols and the memory plan's layouts, and `launch_kN(index, pointers...,
//      cudaStream_t)` launches on the caller's stream and returns cudaGetLastError(). Host
//      code is skipped under NVRTC.
// Output is deterministic: graph order, kernels numbered k0, k1, ... in that order.
#include "backend_cuda/cuda_kernels.h"

#include <algorithm>

#include "codegen/emit_state.h"
#include "codegen/fusion_kernel.h"

namespace thunderc::cuda {
using namespace codegen;
namespace {

using ir::OpKind;

/// Threads per block; matches tc::cuda::kBlockThreads (tc_cuda.h).
constexpr int kBlockThreads = 256;

std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

/// Strides (C++ expressions, elements) of `value` read through `layout` at each dim of
/// `domain`, broadcasting: a missing leading dim or a size-1 dim gets stride 0.
std::vector<std::string> domainStrides(const opt::ValueLayout &layout, const ir::Shape &shape,
                                       const ir::Shape &domain) {
  std::vector<std::string> strides(domain.size(), "int64_t(0)");
  size_t lead = domain.size() - shape.size();
  for (size_t j = 0; j < shape.size(); ++j)
    if (!(shape[j] == ir::Dim(1)))
      strides[j + lead] = dimExpr(layout.strides[j]);
  return strides;
}

/// The kernel's parameters and launch arguments: one pointer per input, then per output.
struct Parameters {
  std::vector<std::string> declarations; ///< "const float *in0"
  std::vector<std::string> names;        ///< "in0"
};

Parameters pointerParameters(const std::vector<const ir::Value *> &inputs,
                             const std::vector<const ir::Value *> &outputs) {
  Parameters parameters;
  for (size_t k = 0; k < inputs.size(); ++k) {
    parameters.declarations.push_back("const " + ctype(inputs[k]) + " *in" + std::to_string(k));
    parameters.names.push_back("in" + std::to_string(k));
  }
  for (size_t r = 0; r < outputs.size(); ++r) {
    parameters.declarations.push_back(ctype(outputs[r]) + " *out" + std::to_string(r));
    parameters.names.push_back("out" + std::to_string(r));
  }
  return parameters;
}

/// `name(<leading>, in<first>[at[<first>]], ..., <trailing>)`: the scalar call of a kernel
/// body, `count` inputs from `first` on read at the offsets in array `at`.
std::string scalarCall(const std::string &name, const std::vector<std::string> &leading,
                       size_t count, size_t first, const std::string &at,
                       const std::vector<std::string> &trailing) {
  std::vector<std::string> arguments = leading;
  for (size_t k = first; k < first + count; ++k)
    arguments.push_back("in" + std::to_string(k) + "[" + at + "[" + std::to_string(k) + "]]");
  arguments.insert(arguments.end(), trailing.begin(), trailing.end());
  return name + "(" + joined(arguments) + ");";
}

/// "out0[o]", "out1[o]", ...: every output written at the flat index `flat`.
std::vector<std::string> outputsAt(size_t count, const std::string &flat) {
  std::vector<std::string> outputs;
  for (size_t r = 0; r < count; ++r)
    outputs.push_back("out" + std::to_string(r) + "[" + flat + "]");
  return outputs;
}

/// Host code shared by both kernel shapes: `launch_kN`, which launches the kernel on a stream.
void emitLauncher(CodeWriter &code, const std::string &name, const std::string &indexType,
                  const Parameters &parameters, const std::string &work,
                  const std::string &blocks, bool vectorized = false) {
  std::vector<std::string> declarations{"const " + indexType + " &index"};
  declarations.insert(declarations.end(), parameters.declarations.begin(),
                      parameters.declarations.end());
  declarations.push_back("cudaStream_t stream");
  std::vector<std::string> arguments{"index"};
  arguments.insert(arguments.end(), parameters.names.begin(), parameters.names.end());
  code.line();
  code.line("/// Launches " + name + "_kernel on `stream`; returns the launch's error.");
  code.open("inline cudaError_t launch_" + name + "(" + joined(declarations) + ")");
  code.open("if (" + work + " <= 0)");
  code.line("return cudaSuccess;");
  code.close();
  if (vectorized) {
    std::vector<std::string> aligned;
    for (const std::string &pointer : parameters.names)
      aligned.push_back("tc::cuda::vec4_aligned(" + pointer + ")");
    std::string condition;
    for (const std::string &check : aligned)
      condition += (condition.empty() ? "" : " && ") + check;
    code.open("if (" + condition + ")");
    code.line("TC_LAUNCH(tc::cuda::grid_blocks((" + work + " + 3) / 4), " +
              std::to_string(kBlockThreads) + ", 0, stream, " + name + "_vec4_kernel)(" + work +
              ", " + joined(parameters.names) + ");");
    code.line("return cudaGetLastError();");
    code.close();
  }
  code.line("TC_LAUNCH(" + blocks + ", " + std::to_string(kBlockThreads) + ", 0, stream, " + name +
            "_kernel)(" + joined(arguments) + ");");
  code.line("return cudaGetLastError();");
  code.close();
}

class CudaPrinter {
public:
  explicit CudaPrinter(const ir::Graph &graph) : graph_(graph), state_(unused_, unused_, nullptr) {
    bool planned = std::any_of(graph.nodes().begin(), graph.nodes().end(), [](const auto &node) {
      return node->attrs().has(ir::kArenaOffsetsAttr);
    });
    if (planned) {
      layouts_ = opt::computeLayouts(graph);
      state_.setLayouts(&layouts_);
    }
  }

  Expected<std::vector<CudaKernel>> run() {
    for (const auto &node : graph_.nodes()) {
      Status status = emitNode(*node);
      if (!status.ok())
        return std::move(status).error().withContext("node '" + node->name() + "'");
    }
    return std::move(kernels_);
  }

private:
  Status emitNode(const ir::Node &node) {
    if (node.op() != OpKind::Fusion) {
      if (ir::hasTrait(node.op(), ir::kElementwise))
        return emitElementwise(node, describeElementwise(node), "elementwise");
      return Status::success(); // a library call, view or shape op: not a generated kernel
    }
    const std::string &kind = ir::attr::kind(node);
    if (kind == "elementwise")
      return emitElementwise(node, describeElementwise(node), kind);
    if (kind == "reduction") {
      TC_ASSIGN_OR_RETURN(ReductionKernel kernel, describeReduction(node));
      return emitReduction(node, kernel);
    }
    if (kind == "epilogue") {
      TC_ASSIGN_OR_RETURN(EpilogueKernel kernel, describeEpilogue(node));
      return emitElementwise(node, kernel.elementwise, kind,
                             std::string(ir::opName(kernel.library->op())));
    }
    return unsupported("fusion of unknown kind '" + kind + "'");
  }

  void recordPointers(CudaKernel &kernel, const std::vector<const ir::Value *> &inputs,
                      const std::vector<const ir::Value *> &outputs) {
    for (const ir::Value *input : inputs)
      kernel.inputs.push_back(state_.layout(input).storage);
    kernel.outputs = outputs;
  }

  CudaKernel newKernel(const ir::Node &node, const std::string &kind) {
    CudaKernel kernel;
    kernel.name = "k" + std::to_string(kernels_.size());
    kernel.kind = kind;
    kernel.nodeName = node.name();
    kernel.loc = node.source().loc;
    if (node.op() != OpKind::Fusion)
      kernel.ops = ir::opName(node.op());
    else
      for (const auto &bodyNode : node.body()->nodes())
        kernel.ops += (kernel.ops.empty() ? "" : ", ") + std::string(ir::opName(bodyNode->op()));
    return kernel;
  }

  /// Grid-stride loop over the flat index of the outputs' common shape. `library` names the
  /// library op of an epilogue fusion, which writes the output before this kernel runs.
  Status emitElementwise(const ir::Node &node, const LoopKernel &loop, const std::string &kind,
                         const std::string &library = "") {
    const ir::Shape &domain = loop.outerResults.front()->type().shape;
    for (const ir::Value *result : loop.outerResults)
      if (!(result->type().shape == domain))
        return unsupported("elementwise kernel with outputs of different shapes");
    CudaKernel kernel = newKernel(node, kind);
    const std::string &name = kernel.name;
    CodeWriter code;
    code.line("// ==== " + name + " ====");
    TC_TRY(emitScalarFunction(name, loop, {}, {}, code));

    size_t inputs = loop.outerInputs.size();
    std::string indexType = "tc::cuda::elementwise_index<" + std::to_string(domain.size()) +
                            ", " + std::to_string(inputs) + ">";
    Parameters parameters = pointerParameters(loop.outerInputs, loop.outerResults);
    recordPointers(kernel, loop.outerInputs, loop.outerResults);
    if (!library.empty())
      code.line("// In place: the library op (" + library +
                ") writes out0 first; in0 is that same buffer.");
    std::vector<std::string> declarations{"const " + indexType + " index"};
    declarations.insert(declarations.end(), parameters.declarations.begin(),
                        parameters.declarations.end());
    code.open("__global__ void __launch_bounds__(" + std::to_string(kBlockThreads) + ") " + name +
              "_kernel(" + joined(declarations) + ")");
    code.open("for (int64_t o = tc::cuda::global_thread(); o < index.numel; "
              "o += tc::cuda::grid_threads())");
    code.line("int64_t at[" + std::to_string(std::max<size_t>(inputs, 1)) + "];");
    code.line("tc::cuda::input_offsets(index, o, at);");
    code.line(scalarCall(name, {}, inputs, 0, "at", outputsAt(loop.outerResults.size(), "o")));
    code.close();
    code.close();
    code.line();
    bool vectorized = isDenseOver(loop.outerInputs, domain);
    if (vectorized)
      emitVectorKernel(code, name, loop, parameters);

    code.line("#if !defined(__CUDACC_RTC__)");
    code.line("/// " + name + "'s index space for the model's symbols.");
    code.open("inline " + indexType + " " + name + "_index(const Symbols &sym)");
    code.line(indexType + " index = {};");
    code.line("index.numel = " + productExpr(domain) + ";");
    for (size_t d = 0; d < domain.size(); ++d)
      code.line("index.size[" + std::to_string(d) + "] = " + dimExpr(domain[d]) + ";");
    for (size_t k = 0; k < inputs; ++k) {
      const ir::Value *input = loop.outerInputs[k];
      opt::ValueLayout layout = state_.layout(input);
      std::vector<std::string> strides = domainStrides(layout, input->type().shape, domain);
      std::string prefix = "index.stride[" + std::to_string(k) + "]";
      for (size_t d = 0; d < domain.size(); ++d)
        code.line(prefix + "[" + std::to_string(d) + "] = " + strides[d] + ";");
      code.line("index.offset[" + std::to_string(k) + "] = " + dimExpr(layout.offset) + ";");
    }
    code.line("(void)sym;");
    code.line("return index;");
    code.close();
    emitLauncher(code, name, indexType, parameters, "index.numel",
                 "tc::cuda::grid_blocks(index.numel)", vectorized);
    code.line("#endif");
    kernel.code = code.str();
    kernels_.push_back(std::move(kernel));
    return Status::success();
  }

  /// True when every input is a dense buffer of the domain's own shape (no broadcast, view
  /// or offset), so that element o of each is at o and 4 neighbours can be loaded at once.
  bool isDenseOver(const std::vector<const ir::Value *> &inputs, const ir::Shape &domain) const {
    return std::all_of(inputs.begin(), inputs.end(), [&](const ir::Value *input) {
      opt::ValueLayout layout = state_.layout(input);
      return input->type().shape == domain && layout.offset == ir::Dim(0) &&
             opt::isContiguous(layout, domain);
    });
  }

  /// The vectorized twin of a dense elementwise kernel: each thread loads 4 consecutive
  /// elements of every input as one aligned vector (128-bit for 4-byte types), runs the scalar
  /// function on each lane and stores 4 outputs at once; a grid-stride tail takes numel % 4.
  /// The launcher picks it when every pointer is aligned for its vector type.
  void emitVectorKernel(CodeWriter &code, const std::string &name, const LoopKernel &loop,
                        const Parameters &parameters) {
    std::vector<std::string> declarations{"const int64_t numel"};
    declarations.insert(declarations.end(), parameters.declarations.begin(),
                        parameters.declarations.end());
    code.open("__global__ void __launch_bounds__(" + std::to_string(kBlockThreads) + ") " + name +
              "_vec4_kernel(" + joined(declarations) + ")");
    code.line("const int64_t vectors = numel / 4;");
    code.open("for (int64_t v = tc::cuda::global_thread(); v < vectors; "
              "v += tc::cuda::grid_threads())");
    std::vector<std::string> lanes;
    for (size_t k = 0; k < loop.outerInputs.size(); ++k) {
      std::string k_ = std::to_string(k);
      code.line("const tc::cuda::vec4<" + ctype(loop.outerInputs[k]) + "> a" + k_ +
                " = tc::cuda::load_vec4(in" + k_ + ", v);");
      lanes.push_back("a" + k_ + ".lane[l]");
    }
    for (size_t r = 0; r < loop.outerResults.size(); ++r) {
      std::string r_ = std::to_string(r);
      code.line("tc::cuda::vec4<" + ctype(loop.outerResults[r]) + "> r" + r_ + ";");
      lanes.push_back("r" + r_ + ".lane[l]");
    }
    code.line("TC_UNROLL");
    code.open("for (int l = 0; l < 4; ++l)");
    code.line(name + "(" + joined(lanes) + ");");
    code.close();
    for (size_t r = 0; r < loop.outerResults.size(); ++r)
      code.line("tc::cuda::store_vec4(out" + std::to_string(r) + ", v, r" + std::to_string(r) +
                ");");
    code.close();
    code.open("for (int64_t o = vectors * 4 + tc::cuda::global_thread(); o < numel; "
              "o += tc::cuda::grid_threads())");
    std::vector<std::string> scalars;
    for (size_t k = 0; k < loop.outerInputs.size(); ++k)
      scalars.push_back("in" + std::to_string(k) + "[o]");
    for (const std::string &output : outputsAt(loop.outerResults.size(), "o"))
      scalars.push_back(output);
    code.line(name + "(" + joined(scalars) + ");");
    code.close();
    code.close();
    code.line();
  }

  /// One block per kept-dim position; a block reduction over the reduced extent.
  Status emitReduction(const ir::Node &node, const ReductionKernel &reduction) {
    CudaKernel kernel = newKernel(node, "reduction");
    const std::string &name = kernel.name;
    const ir::Value *reduced = reduction.reduction->operand(0);
    const ir::Shape &domain = reduction.domain();
    std::string reducedType = ctype(reduced);
    std::string resultType = ctype(reduction.reduction->result());
    const LoopKernel &prologue = reduction.prologue;
    const LoopKernel &epilogue = reduction.epilogue;

    CodeWriter code;
    code.line("// ==== " + name + " ====");
    TC_TRY(emitScalarFunction(name + "_in", prologue, {}, {}, code));
    ScalarNames epilogueNames{{reduction.reduction->result(), "r"}};
    TC_TRY(emitScalarFunction(name + "_out", epilogue, {"const " + resultType + " r"},
                              epilogueNames, code));

    std::vector<size_t> kept, reducedDims;
    for (size_t d = 0; d < domain.size(); ++d)
      (reduction.isReduced(d) ? reducedDims : kept).push_back(d);
    // Inputs: the prologue's, then the epilogue's (which read at kept positions only).
    std::vector<const ir::Value *> inputs = prologue.outerInputs;
    inputs.insert(inputs.end(), epilogue.outerInputs.begin(), epilogue.outerInputs.end());
    std::string indexType = "tc::cuda::reduction_index<" + std::to_string(kept.size()) + ", " +
                            std::to_string(reducedDims.size()) + ", " +
                            std::to_string(inputs.size()) + ">";
    Parameters parameters = pointerParameters(inputs, epilogue.outerResults);
    recordPointers(kernel, inputs, epilogue.outerResults);

    const std::string &kind = reduction.kind;
    bool isSum = kind == "sum" || kind == "mean";
    std::string acc = isSum ? "tc::cuda::accumulator_t<" + reducedType + ">"
                            : "tc::cuda::extremum_t<" + reducedType + ">";
    std::string op = isSum ? "tc::cuda::sum_op" : kind == "amax" ? "tc::cuda::max_op"
                                                                 : "tc::cuda::min_op";
    std::string initial = isSum ? "Acc(0)"
                          : kind == "amax" ? "tc::cuda::lowest_value<" + reducedType + ">()"
                                           : "tc::cuda::highest_value<" + reducedType + ">()";
    std::string slots = std::to_string(std::max<size_t>(inputs.size(), 1));

    std::vector<std::string> declarations{"const " + indexType + " index"};
    declarations.insert(declarations.end(), parameters.declarations.begin(),
                        parameters.declarations.end());
    code.open("__global__ void __launch_bounds__(" + std::to_string(kBlockThreads) + ") " + name +
              "_kernel(" + joined(declarations) + ")");
    code.line("using Acc = " + acc + ";");
    code.open("for (int64_t o = blockIdx.x; o < index.outputs; o += gridDim.x)");
    code.line("int64_t base[" + slots + "];");
    code.line("tc::cuda::kept_offsets(index, o, base);");
    code.line("Acc acc = " + initial + ";");
    code.open("for (int64_t j = threadIdx.x; j < index.extent; j += blockDim.x)");
    code.line("int64_t at[" + slots + "];");
    code.line("tc::cuda::reduced_offsets(index, j, base, at);");
    code.line(reducedType + " value;");
    code.line(scalarCall(name + "_in", {}, prologue.outerInputs.size(), 0, "at", {"value"}));
    code.line("acc = " + op + "::combine(acc, tc::cast<Acc>(value));");
    code.close();
    code.line("acc = tc::cuda::block_reduce<" + op + ">(acc);");
    code.open("if (threadIdx.x == 0)");
    if (kind == "mean")
      code.line("const " + resultType + " r = tc::cast<" + resultType +
                ">(tc::cast<double>(acc) / static_cast<double>(index.extent));");
    else
      code.line("const " + resultType + " r = tc::cast<" + resultType + ">(acc);");
    code.line(scalarCall(name + "_out", {"r"}, epilogue.outerInputs.size(),
                         prologue.outerInputs.size(), "base",
                         outputsAt(epilogue.outerResults.size(), "o")));
    code.close();
    code.close();
    code.close();
    code.line();

    code.line("#if !defined(__CUDACC_RTC__)");
    code.line("/// " + name + "'s index space for the model's symbols.");
    code.open("inline " + indexType + " " + name + "_index(const Symbols &sym)");
    code.line(indexType + " index = {};");
    std::vector<ir::Dim> keptExtents, reducedExtents;
    for (size_t d : kept)
      keptExtents.push_back(domain[d]);
    for (size_t d : reducedDims)
      reducedExtents.push_back(domain[d]);
    code.line("index.outputs = " + productExpr(keptExtents) + ";");
    code.line("index.extent = " + productExpr(reducedExtents) + ";");
    for (size_t i = 0; i < kept.size(); ++i)
      code.line("index.kept_size[" + std::to_string(i) + "] = " + dimExpr(keptExtents[i]) + ";");
    for (size_t i = 0; i < reducedDims.size(); ++i)
      code.line("index.reduced_size[" + std::to_string(i) + "] = " + dimExpr(reducedExtents[i]) +
                ";");
    for (size_t k = 0; k < inputs.size(); ++k) {
      const ir::Value *input = inputs[k];
      opt::ValueLayout layout = state_.layout(input);
      std::vector<std::string> keptStrides(kept.size(), "int64_t(0)");
      std::vector<std::string> reducedStrides(reducedDims.size(), "int64_t(0)");
      if (k < prologue.outerInputs.size()) {
        std::vector<std::string> strides = domainStrides(layout, input->type().shape, domain);
        for (size_t i = 0; i < kept.size(); ++i)
          keptStrides[i] = strides[kept[i]];
        for (size_t i = 0; i < reducedDims.size(); ++i)
          reducedStrides[i] = strides[reducedDims[i]];
      } else {
        // Epilogue inputs have the result's shape: with keepdim its dims are the domain's
        // (reduced ones of size 1), without it they are the kept dims in order.
        const ir::Shape &resultShape = reduction.resultShape();
        std::vector<std::string> strides =
            domainStrides(layout, input->type().shape, resultShape);
        for (size_t i = 0; i < kept.size(); ++i)
          keptStrides[i] = strides[reduction.keepdim ? kept[i] : i];
      }
      std::string at = "[" + std::to_string(k) + "]";
      for (size_t i = 0; i < kept.size(); ++i)
        code.line("index.kept_stride" + at + "[" + std::to_string(i) + "] = " + keptStrides[i] +
                  ";");
      for (size_t i = 0; i < reducedDims.size(); ++i)
        code.line("index.reduced_stride" + at + "[" + std::to_string(i) +
                  "] = " + reducedStrides[i] + ";");
      code.line("index.offset" + at + " = " + dimExpr(layout.offset) + ";");
    }
    code.line("(void)sym;");
    code.line("return index;");
    code.close();
    emitLauncher(code, name, indexType, parameters, "index.outputs",
                 "tc::cuda::reduction_blocks(index.outputs)");
    code.line("#endif");
    kernel.code = code.str();
    kernels_.push_back(std::move(kernel));
    return Status::success();
  }

  const ir::Graph &graph_;
  CodeWriter unused_; ///< EmitState wants writers; only its layouts are used here
  EmitState state_;
  std::map<const ir::Value *, opt::ValueLayout> layouts_;
  std::vector<CudaKernel> kernels_;
};

} // namespace

Expected<std::vector<CudaKernel>> emitCudaKernels(const ir::Graph &graph) {
  return CudaPrinter(graph).run();
}

std::string cudaTranslationUnit(const ir::Graph &graph, const std::vector<CudaKernel> &kernels,
                                const std::string &sourceName) {
  CodeWriter code;
  code.line("// CUDA kernels compiled by thunderc from " + sourceName +
            ". Generated; do not edit.");
  code.line("#include \"tc_cuda.h\"");
  code.line();
  code.line("#if !defined(__CUDACC_RTC__)");
  code.line("#include <algorithm>");
  code.line();
  code.line("/// The model's symbolic sizes, bound from its inputs at run time.");
  code.open("struct Symbols");
  for (const auto &[symbol, range] : graph.symbols())
    code.line("int64_t " + symbol + " = 0;");
  code.close(";");
  code.line("#endif");
  for (const CudaKernel &kernel : kernels) {
    code.line();
    code.raw(kernel.code);
  }
  return code.str();
}

} // namespace thunderc::cuda
