// Loop kernels for the host target: fusion nodes and single elementwise nodes.
//
// Each kernel is written in two parts (shared/DESIGN.md §5):
//   1. its scalar work, once, as TC_HD inline functions at namespace scope ("k3" computes one
//      output element from one element of each input; a reduction has a prologue "k3_in" and
//      an epilogue "k3_out"), each body op a small lambda holding the op's scalar expression
//      (host_ops.cpp scalarExpression), rounding to the value's dtype as the unfused op would;
//   2. the launch structure, here a host loop nest over the kernel's domain that reads every
//      input through its layout (strides, offset, broadcasting: views cost nothing) and writes
//      contiguous outputs.
// Kinds:
//   elementwise  one loop nest over the outputs' common shape;
//   reduction    loops over the kept dims, an inner loop nest over the reduced (adjacent) dims
//                accumulating the prologue's values like tc::reduce does, then the epilogue;
//   epilogue     the library op writes the fusion's output, then one loop applies the
//                elementwise chain to it in place.
#include <algorithm>
#include <numeric>
#include <set>

#include "backend_cuda/host_emitter_internal.h"

namespace thunderc::cuda {
namespace {

using ir::OpKind;

std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }

/// Variable names of values inside one scalar function.
using Names = std::map<const ir::Value *, std::string>;

/// `const T tN = ...;` for every node, in order; operands must already be named.
Status emitScalarNodes(const std::vector<const ir::Node *> &nodes, Names &names,
                       CodeWriter &code) {
  int counter = 0;
  for (const ir::Node *node : nodes) {
    const ir::Value *result = node->result();
    std::string type = ctype(result);
    std::string name = "t" + std::to_string(counter++);
    if (node->op() == OpKind::Full) {
      code.line("const " + type + " " + name + " = tc::cast<" + type + ">(" +
                doubleLiteral(node->attrs().getFloat("value")) + ");");
      names[result] = name;
      continue;
    }
    TC_ASSIGN_OR_RETURN(std::string expression, scalarExpression(*node));
    bool isWhere = node->op() == OpKind::Where;
    bool isCast = node->op() == OpKind::Cast;
    const ir::Value *first = node->operand(isWhere ? 1 : 0);
    code.open("const " + type + " " + name + " = [&]");
    if (!isCast)
      code.line("using A = " + computeType(first->type().dtype) + ";");
    static const char *kNames[] = {"a", "b"};
    for (int k = 0; k < node->numOperands(); ++k) {
      const std::string &operand = names.at(node->operand(k));
      if (isWhere && k == 0) {
        code.line("const bool c0 = tc::cast<bool>(" + operand + ");");
        continue;
      }
      std::string operandType = isCast ? computeType(first->type().dtype) : "A";
      code.line("const " + operandType + " " + kNames[isWhere ? k - 1 : k] + " = tc::cast<" +
                operandType + ">(" + operand + ");");
    }
    code.line("return tc::cast<" + type + ">(" + expression + ");");
    code.close("();");
    names[result] = name;
  }
  return Status::success();
}

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

/// Opens one `for` per dim of `shape` with index variables named prefix0, prefix1, ...
std::vector<std::string> openLoops(CodeWriter &code, const ir::Shape &shape,
                                   const std::string &prefix) {
  std::vector<std::string> indices;
  for (size_t i = 0; i < shape.size(); ++i) {
    std::string index = prefix + std::to_string(i);
    code.open("for (int64_t " + index + " = 0; " + index + " < " + dimExpr(shape[i]) + "; ++" +
              index + ")");
    indices.push_back(index);
  }
  return indices;
}

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

/// What one loop kernel computes, in terms of values: `outerInputs[k]` (read through its
/// layout) is `innerInputs[k]` inside, `nodes` run per element, `innerOutputs[r]` is stored
/// to `outerResults[r]`.
struct LoopKernel {
  std::string label;
  std::vector<const ir::Value *> outerInputs;
  std::vector<const ir::Value *> innerInputs;
  std::vector<const ir::Node *> nodes;
  std::vector<const ir::Value *> innerOutputs;
  std::vector<const ir::Value *> outerResults;
};

/// The TC_HD function `name(const T x0, ..., T &y0, ...)` computing the outputs from the
/// inputs; `extraInputs` are leading parameters already named in `names`.
Status emitScalarFunction(const std::string &name, const LoopKernel &kernel,
                          const std::vector<std::string> &extraParameters, Names names,
                          EmitState &state) {
  std::vector<std::string> parameters = extraParameters;
  for (size_t k = 0; k < kernel.innerInputs.size(); ++k) {
    std::string input = "x" + std::to_string(k);
    parameters.push_back("const " + ctype(kernel.innerInputs[k]) + " " + input);
    names[kernel.innerInputs[k]] = input;
  }
  for (size_t r = 0; r < kernel.innerOutputs.size(); ++r)
    parameters.push_back(ctype(kernel.innerOutputs[r]) + " &y" + std::to_string(r));
  CodeWriter &code = state.functions();
  code.line("// " + kernel.label);
  code.open("TC_HD inline void " + name + "(" + joined(parameters) + ")");
  TC_TRY(emitScalarNodes(kernel.nodes, names, code));
  for (size_t r = 0; r < kernel.innerOutputs.size(); ++r)
    code.line("y" + std::to_string(r) + " = " + names.at(kernel.innerOutputs[r]) + ";");
  code.close();
  code.line();
  return Status::success();
}

/// One loop nest over the results' common shape.
Status emitElementwiseKernel(const LoopKernel &kernel, EmitState &state) {
  const ir::Shape &domain = kernel.outerResults.front()->type().shape;
  for (const ir::Value *result : kernel.outerResults)
    if (!(result->type().shape == domain))
      return unsupported("elementwise kernel with outputs of different shapes");
  std::string name = state.nextKernelName();
  TC_TRY(emitScalarFunction(name, kernel, {}, {}, state));
  CodeWriter &code = state.code();
  code.open("");
  code.line("int64_t o = 0;");
  std::vector<std::string> indices = openLoops(code, domain, "i");
  std::vector<std::string> arguments;
  for (const ir::Value *input : kernel.outerInputs)
    arguments.push_back(loadExpr(input, domain, indices, state));
  for (const ir::Value *result : kernel.outerResults)
    arguments.push_back(state.ptr(result) + "[o]");
  code.line(name + "(" + joined(arguments) + ");");
  code.line("++o;");
  for (size_t i = 0; i < domain.size(); ++i)
    code.close();
  code.line("(void)o;");
  code.close();
  return Status::success();
}

std::string kernelLabel(const ir::Node &node) {
  std::string label = "kernel for " + std::string(ir::opName(node.op()));
  if (node.op() == OpKind::Fusion)
    label = node.attrs().getStr("kind") + " kernel of " +
            std::to_string(node.body()->numNodes()) + " op(s)";
  if (!node.name().empty())
    label += " '" + node.name() + "'";
  if (!node.source().loc.empty())
    label += " at " + node.source().loc;
  return label;
}

std::vector<const ir::Value *> operandsOf(const ir::Node &node) {
  return {node.operands().begin(), node.operands().end()};
}

std::vector<const ir::Value *> resultsOf(const ir::Node &node) {
  std::vector<const ir::Value *> results;
  for (int r = 0; r < node.numResults(); ++r)
    results.push_back(node.result(r));
  return results;
}

std::vector<const ir::Value *> inputsOf(const ir::Graph &body) {
  std::vector<const ir::Value *> inputs;
  for (const auto &input : body.inputs())
    inputs.push_back(input.get());
  return inputs;
}

/// True if `node` (transitively) feeds `target` inside one body.
bool feeds(const ir::Node &node, const ir::Node &target) {
  std::vector<const ir::Node *> work{&node};
  std::set<const ir::Node *> seen;
  while (!work.empty()) {
    const ir::Node *current = work.back();
    work.pop_back();
    if (current == &target)
      return true;
    if (!seen.insert(current).second)
      continue;
    for (int r = 0; r < current->numResults(); ++r)
      for (const ir::Use &use : current->result(r)->uses())
        work.push_back(use.user);
  }
  return false;
}

/// A reduction fusion: prologue (ancestors of the one reduction) -> reduction -> epilogue.
Status emitReductionKernel(const ir::Node &fusion, EmitState &state) {
  const ir::Graph &body = *fusion.body();
  const ir::Node *reduction = nullptr;
  for (const auto &node : body.nodes())
    if (hasTrait(node->op(), ir::kReduction)) {
      if (reduction != nullptr)
        return unsupported("reduction kernel with more than one reduction");
      reduction = node.get();
    }
  if (reduction == nullptr)
    return unsupported("reduction kernel without a reduction");
  static const std::map<OpKind, std::string> kSupported = {
      {OpKind::Sum, "sum"}, {OpKind::Mean, "mean"}, {OpKind::Amax, "amax"}, {OpKind::Amin, "amin"}};
  if (!kSupported.count(reduction->op()))
    return unsupported("reduction kernel over " + std::string(ir::opName(reduction->op())));

  const ir::Value *reduced = reduction->operand(0);
  const ir::Shape &domain = reduced->type().shape;
  const ir::Shape &resultShape = reduction->result()->type().shape;
  std::vector<int64_t> dims = reduction->attrs().getInts("dims");
  if (dims.empty()) {
    dims.resize(domain.size());
    std::iota(dims.begin(), dims.end(), 0);
  }
  std::sort(dims.begin(), dims.end());
  bool keepdim = reduction->attrs().getBool("keepdim");
  auto isReduced = [&](size_t dim) {
    return std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(dim));
  };

  // Split the body: the prologue feeds the reduction, the epilogue reads its result.
  LoopKernel prologue, epilogue;
  prologue.label = "prologue of " + kernelLabel(fusion);
  epilogue.label = "epilogue of " + kernelLabel(fusion);
  for (const auto &node : body.nodes()) {
    if (node.get() == reduction)
      continue;
    (feeds(*node, *reduction) ? prologue : epilogue).nodes.push_back(node.get());
  }
  for (const ir::Node *node : epilogue.nodes)
    if (node->op() != OpKind::Full && !(node->result()->type().shape == resultShape))
      return unsupported("reduction kernel epilogue over a shape other than the result's");
  // Inputs of each part: the body inputs it reads.
  std::vector<const ir::Value *> bodyInputs = inputsOf(body);
  auto partInputs = [&](LoopKernel &part, bool includeReduced) {
    for (size_t k = 0; k < bodyInputs.size(); ++k) {
      bool used = std::any_of(part.nodes.begin(), part.nodes.end(), [&](const ir::Node *node) {
        return std::find(node->operands().begin(), node->operands().end(), bodyInputs[k]) !=
               node->operands().end();
      });
      if (used || (includeReduced && bodyInputs[k] == reduced)) {
        part.innerInputs.push_back(bodyInputs[k]);
        part.outerInputs.push_back(fusion.operand(static_cast<int>(k)));
      }
    }
  };
  partInputs(prologue, true);
  partInputs(epilogue, false);
  prologue.innerOutputs = {reduced};
  for (size_t r = 0; r < body.outputs().size(); ++r) {
    epilogue.innerOutputs.push_back(body.outputs()[r]);
    epilogue.outerResults.push_back(fusion.result(static_cast<int>(r)));
  }

  std::string name = state.nextKernelName();
  std::string reducedType = ctype(reduced);
  std::string resultType = ctype(reduction->result());
  TC_TRY(emitScalarFunction(name + "_in", prologue, {}, {}, state));
  Names epilogueNames{{reduction->result(), "r"}};
  TC_TRY(emitScalarFunction(name + "_out", epilogue, {"const " + resultType + " r"},
                            epilogueNames, state));

  std::string kind = kSupported.at(reduction->op());
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
  code.line("int64_t o = 0;");
  // Kept dims outside, reduced dims inside; domain index names follow the domain's dims.
  std::vector<std::string> indices(domain.size());
  size_t opened = 0;
  for (size_t i = 0; i < domain.size(); ++i) {
    if (isReduced(i))
      continue;
    indices[i] = "i" + std::to_string(i);
    code.open("for (int64_t " + indices[i] + " = 0; " + indices[i] + " < " + dimExpr(domain[i]) +
              "; ++" + indices[i] + ")");
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
    else if (keepdim)
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
  code.line("(void)o;");
  code.close();
  return Status::success();
}

/// An epilogue fusion: the library op writes the output buffer, one loop finishes it in place.
Status emitEpilogueKernel(const ir::Node &fusion, EmitState &state) {
  const ir::Graph &body = *fusion.body();
  const ir::Node &library = *body.nodes().front();
  const ir::Value *output = body.outputs().front();
  const ir::Value *result = fusion.result();
  if (fusion.numResults() != 1 || !(library.result()->type() == output->type()))
    return unsupported("epilogue kernel whose output is not its library op's type");
  // The library op reads the fusion's operands and writes the fusion's result.
  std::vector<const ir::Value *> bodyInputs = inputsOf(body);
  for (size_t k = 0; k < bodyInputs.size(); ++k)
    state.setPtr(bodyInputs[k], state.ptr(fusion.operand(static_cast<int>(k))));
  state.setPtr(library.result(), state.ptr(result));
  TC_TRY(emitNode(library, state));

  LoopKernel epilogue;
  epilogue.label = "epilogue of " + kernelLabel(fusion);
  for (const auto &node : body.nodes())
    if (node.get() != &library)
      epilogue.nodes.push_back(node.get());
  epilogue.innerInputs.push_back(library.result());
  epilogue.outerInputs.push_back(result);
  for (size_t k = 0; k < bodyInputs.size(); ++k) {
    bool used = std::any_of(epilogue.nodes.begin(), epilogue.nodes.end(), [&](const ir::Node *n) {
      return std::find(n->operands().begin(), n->operands().end(), bodyInputs[k]) !=
             n->operands().end();
    });
    if (used) {
      epilogue.innerInputs.push_back(bodyInputs[k]);
      epilogue.outerInputs.push_back(fusion.operand(static_cast<int>(k)));
    }
  }
  epilogue.innerOutputs = {output};
  epilogue.outerResults = {result};
  return emitElementwiseKernel(epilogue, state);
}

} // namespace

Status emitElementwiseNode(const ir::Node &node, EmitState &state) {
  LoopKernel kernel;
  kernel.label = kernelLabel(node);
  kernel.outerInputs = operandsOf(node);
  kernel.innerInputs = kernel.outerInputs;
  kernel.nodes = {&node};
  kernel.innerOutputs = resultsOf(node);
  kernel.outerResults = kernel.innerOutputs;
  return emitElementwiseKernel(kernel, state);
}

Status emitFusion(const ir::Node &node, EmitState &state) {
  const std::string &kind = node.attrs().getStr("kind");
  if (kind == "reduction")
    return emitReductionKernel(node, state);
  if (kind == "epilogue")
    return emitEpilogueKernel(node, state);
  if (kind != "elementwise")
    return unsupported("fusion of unknown kind '" + kind + "'");
  LoopKernel kernel;
  kernel.label = kernelLabel(node);
  kernel.outerInputs = operandsOf(node);
  kernel.innerInputs = inputsOf(*node.body());
  for (const auto &bodyNode : node.body()->nodes())
    kernel.nodes.push_back(bodyNode.get());
  kernel.innerOutputs = {node.body()->outputs().begin(), node.body()->outputs().end()};
  kernel.outerResults = resultsOf(node);
  return emitElementwiseKernel(kernel, state);
}

} // namespace thunderc::cuda
