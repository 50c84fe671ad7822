// The target-independent half of a loop kernel (docs/DESIGN.md §5): what a fusion node or
// a single elementwise node computes, split into its scalar functions, and the printer of
// those functions as TC_HD C++. The CPU loop printer (backend_cpu/loop_kernels.cpp) and the CUDA kernel
// printer (cuda_kernels.cpp) both start from here, so the arithmetic is written once.
// Private to backend_cuda/.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "codegen/code_writer.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::codegen {

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

/// Variable names of values inside one scalar function.
using ScalarNames = std::map<const ir::Value *, std::string>;

/// Writes the TC_HD function `name(<extraParameters>, const T x0, ..., T &y0, ...)` computing
/// the kernel's inner outputs from its inner inputs, each node a lambda holding its op's scalar
/// expression and rounding to the value's dtype as the unfused op would. `names` holds the
/// values the extra parameters stand for. Unsupported for an op with no scalar expression.
Status emitScalarFunction(const std::string &name, const LoopKernel &kernel,
                          const std::vector<std::string> &extraParameters, ScalarNames names,
                          CodeWriter &code);

/// "elementwise kernel of 3 op(s) 'fused_2' at zoo.py:12": the comment naming a kernel's node.
std::string kernelLabel(const ir::Node &node);

/// One elementwise kernel over `node`'s outputs: a kind="elementwise" fusion (its body) or a
/// single elementwise node. The printers reject outputs of different shapes.
LoopKernel describeElementwise(const ir::Node &node);

/// A kind="reduction" fusion: the prologue (every body node feeding the one reduction)
/// produces the reduced operand per element, the reduction folds it over `dims`, the
/// epilogue maps the reduced value (named "r" in it) to the fusion's outputs.
struct ReductionKernel {
  const ir::Node *reduction = nullptr;
  std::string kind;          ///< sum, mean, amax or amin
  std::vector<int64_t> dims; ///< reduced dims of the domain, sorted
  bool keepdim = false;
  LoopKernel prologue; ///< innerOutputs = {the reduced operand}
  LoopKernel epilogue; ///< innerOutputs = the body's outputs; reads the reduced value first

  /// The domain: the reduced operand's shape.
  const ir::Shape &domain() const { return reduction->operand(0)->type().shape; }
  const ir::Shape &resultShape() const { return reduction->result()->type().shape; }
  bool isReduced(size_t dim) const;
};

/// Unsupported for more or fewer than one reduction, a reduction other than
/// sum/mean/amax/amin, or an epilogue op over a shape other than the reduction's result.
Expected<ReductionKernel> describeReduction(const ir::Node &fusion);

/// A kind="epilogue" fusion: `library` (the body's first node) writes the fusion's output,
/// then `elementwise` finishes it in place (its first input is the fusion's own result).
struct EpilogueKernel {
  const ir::Node *library = nullptr;
  LoopKernel elementwise;
};

/// Unsupported when the fusion has more than one result or its output is not its library
/// op's type.
Expected<EpilogueKernel> describeEpilogue(const ir::Node &fusion);

} // namespace thunderc::codegen
