// The target-independent half of loop kernels: splitting a fusion into scalar functions and
// printing them. Used by the host loop printer and the CUDA kernel printer alike.
//   1. describe*: the node becomes LoopKernels -- which body values are read (and which
//      outer values they mirror), which body nodes run per element, what is written where;
//      a reduction fusion splits into the prologue (ancestors of the one reduction) and the
//      epilogue (everything else), an epilogue fusion into its library op and the
//      elementwise chain after it;
//   2. emitScalarFunction: one TC_HD inline function per LoopKernel, computing one output
//      element from one element of each input; each body op is a small lambda holding the
//      op's scalar expression (library_calls.cpp scalarExpression), converting its operands to the
//      compute type and rounding to the value's dtype as the unfused op would.
#include "codegen/fusion_kernel.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "codegen/emit_state.h"
#include "ir/shape_inference.h"

namespace thunderc::codegen {
namespace {

using ir::OpKind;

std::string ctype(const ir::Value *value) { return cppType(value->type().dtype); }

/// `const T tN = ...;` for every node, in order; operands must already be named.
Status emitScalarNodes(const std::vector<const ir::Node *> &nodes, ScalarNames &names,
                       CodeWriter &code) {
  int counter = 0;
  for (const ir::Node *node : nodes) {
    const ir::Value *result = node->result();
    std::string type = ctype(result);
    std::string name = "t" + std::to_string(counter++);
    if (node->op() == OpKind::Full) {
      code.line("const " + type + " " + name + " = tc::cast<" + type + ">(" +
                doubleLiteral(ir::attr::value(*node)) + ");");
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

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
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

/// True if any of `nodes` reads `value`.
bool reads(const std::vector<const ir::Node *> &nodes, const ir::Value *value) {
  return std::any_of(nodes.begin(), nodes.end(), [&](const ir::Node *node) {
    return std::find(node->operands().begin(), node->operands().end(), value) !=
           node->operands().end();
  });
}

} // namespace

Status emitScalarFunction(const std::string &name, const LoopKernel &kernel,
                          const std::vector<std::string> &extraParameters, ScalarNames names,
                          CodeWriter &code) {
  std::vector<std::string> parameters = extraParameters;
  for (size_t k = 0; k < kernel.innerInputs.size(); ++k) {
    std::string input = "x" + std::to_string(k);
    parameters.push_back("const " + ctype(kernel.innerInputs[k]) + " " + input);
    names[kernel.innerInputs[k]] = input;
  }
  for (size_t r = 0; r < kernel.innerOutputs.size(); ++r)
    parameters.push_back(ctype(kernel.innerOutputs[r]) + " &y" + std::to_string(r));
  code.line("// " + kernel.label);
  code.open("TC_HD inline void " + name + "(" + joined(parameters) + ")");
  TC_TRY(emitScalarNodes(kernel.nodes, names, code));
  for (size_t r = 0; r < kernel.innerOutputs.size(); ++r)
    code.line("y" + std::to_string(r) + " = " + names.at(kernel.innerOutputs[r]) + ";");
  code.close();
  code.line();
  return Status::success();
}

std::string kernelLabel(const ir::Node &node) {
  std::string label = "kernel for " + std::string(ir::opName(node.op()));
  if (node.op() == OpKind::Fusion)
    label = ir::attr::kind(node) + " kernel of " +
            std::to_string(node.body()->numNodes()) + " op(s)";
  if (!node.name().empty())
    label += " '" + node.name() + "'";
  if (!node.source().loc.empty())
    label += " at " + node.source().loc;
  return label;
}

LoopKernel describeElementwise(const ir::Node &node) {
  LoopKernel kernel;
  kernel.label = kernelLabel(node);
  kernel.outerResults = resultsOf(node);
  if (node.op() != OpKind::Fusion) {
    // One parameter per distinct operand: mul(%x, %x) reads x once (a second, unused
    // parameter would warn, and fail a -Werror build of the bundle).
    for (const ir::Value *operand : operandsOf(node))
      if (std::find(kernel.outerInputs.begin(), kernel.outerInputs.end(), operand) ==
          kernel.outerInputs.end())
        kernel.outerInputs.push_back(operand);
    kernel.innerInputs = kernel.outerInputs;
    kernel.nodes = {&node};
    kernel.innerOutputs = kernel.outerResults;
    return kernel;
  }
  kernel.outerInputs = operandsOf(node);
  kernel.innerInputs = inputsOf(*node.body());
  for (const auto &bodyNode : node.body()->nodes())
    kernel.nodes.push_back(bodyNode.get());
  kernel.innerOutputs = {node.body()->outputs().begin(), node.body()->outputs().end()};
  return kernel;
}

bool ReductionKernel::isReduced(size_t dim) const {
  return std::binary_search(dims.begin(), dims.end(), static_cast<int64_t>(dim));
}

Expected<ReductionKernel> describeReduction(const ir::Node &fusion) {
  const ir::Graph &body = *fusion.body();
  ReductionKernel kernel;
  for (const auto &node : body.nodes())
    if (hasTrait(node->op(), ir::kReduction)) {
      if (kernel.reduction != nullptr)
        return unsupported("reduction kernel with more than one reduction");
      kernel.reduction = node.get();
    }
  if (kernel.reduction == nullptr)
    return unsupported("reduction kernel without a reduction");
  const ir::Node *reduction = kernel.reduction;
  static const std::map<OpKind, std::string> kSupported = {
      {OpKind::Sum, "sum"}, {OpKind::Mean, "mean"}, {OpKind::Amax, "amax"}, {OpKind::Amin, "amin"}};
  if (!kSupported.count(reduction->op()))
    return unsupported("reduction kernel over " + std::string(ir::opName(reduction->op())));
  kernel.kind = kSupported.at(reduction->op());

  const ir::Value *reduced = reduction->operand(0);
  // A 0-d domain has no dim to fold (its dim 0 / -1 is its one element).
  kernel.dims = ir::reducedDims(ir::attr::dims(*reduction), reduced->type().rank());
  kernel.keepdim = ir::attr::keepdim(*reduction);

  // Split the body: the prologue feeds the reduction, the epilogue reads its result.
  LoopKernel &prologue = kernel.prologue;
  LoopKernel &epilogue = kernel.epilogue;
  prologue.label = "prologue of " + kernelLabel(fusion);
  epilogue.label = "epilogue of " + kernelLabel(fusion);
  for (const auto &node : body.nodes()) {
    if (node.get() == reduction)
      continue;
    if (!feeds(*node, *reduction)) {
      epilogue.nodes.push_back(node.get());
      continue;
    }
    prologue.nodes.push_back(node.get());
    // A constant both parts read (CSE merges equal ones: `(x + eps).norm() + eps`) is
    // emitted in each.
    bool readAfter = false;
    for (const ir::Use &use : node->result()->uses())
      readAfter |= use.user != reduction && !feeds(*use.user, *reduction);
    if (node->op() == OpKind::Full && node->numOperands() == 0 && readAfter)
      epilogue.nodes.push_back(node.get());
  }
  for (const ir::Node *node : epilogue.nodes)
    if (node->op() != OpKind::Full && !(node->result()->type().shape == kernel.resultShape()))
      return unsupported("reduction kernel epilogue over a shape other than the result's");
  // Inputs of each part: the body inputs it reads.
  std::vector<const ir::Value *> bodyInputs = inputsOf(body);
  auto partInputs = [&](LoopKernel &part, bool includeReduced) {
    for (size_t k = 0; k < bodyInputs.size(); ++k) {
      if (reads(part.nodes, bodyInputs[k]) || (includeReduced && bodyInputs[k] == reduced)) {
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
  return kernel;
}

Expected<EpilogueKernel> describeEpilogue(const ir::Node &fusion) {
  const ir::Graph &body = *fusion.body();
  EpilogueKernel kernel;
  kernel.library = body.nodes().front().get();
  const ir::Value *output = body.outputs().front();
  const ir::Value *result = fusion.result();
  if (fusion.numResults() != 1 || !(kernel.library->result()->type() == output->type()))
    return unsupported("epilogue kernel whose output is not its library op's type");

  LoopKernel &epilogue = kernel.elementwise;
  epilogue.label = "epilogue of " + kernelLabel(fusion);
  for (const auto &node : body.nodes())
    if (node.get() != kernel.library)
      epilogue.nodes.push_back(node.get());
  epilogue.innerInputs.push_back(kernel.library->result());
  epilogue.outerInputs.push_back(result);
  std::vector<const ir::Value *> bodyInputs = inputsOf(body);
  for (size_t k = 0; k < bodyInputs.size(); ++k) {
    if (reads(epilogue.nodes, bodyInputs[k])) {
      epilogue.innerInputs.push_back(bodyInputs[k]);
      epilogue.outerInputs.push_back(fusion.operand(static_cast<int>(k)));
    }
  }
  epilogue.innerOutputs = {output};
  epilogue.outerResults = {result};
  return kernel;
}

} // namespace thunderc::codegen
