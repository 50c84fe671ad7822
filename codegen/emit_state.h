// State shared by the model emitter's driver (model_emitter.cpp), its per-op lowering
// (library_calls.cpp, library_calls_nn.cpp) and the targets' kernel emitters (backend_cpu/,
// backend_cuda/).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/code_writer.h"
#include "codegen/fusion_kernel.h"
#include "codegen/model_emitter.h"
#include "ir/graph.h"
#include "ir/op_attributes.h"
#include "ir/status.h"
#include "optimizer/layout.h"

namespace thunderc::codegen {

/// What the per-op lowering needs while writing one node.
class EmitState {
public:
  /// `backend` may be null for users that only need layouts and pointers (the CUDA kernel
  /// printer); emitting a node then is a thunderc bug.
  EmitState(CodeWriter &code, CodeWriter &functions, TargetBackend *backend)
      : code_(code), functions_(functions), backend_(backend) {}

  /// The target that writes kernels (TargetBackend::emitKernel) and target-specific parts.
  TargetBackend &backend() const {
    TC_CHECK(backend_ != nullptr, "EmitState without a target backend");
    return *backend_;
  }
  /// Where the generated code runs: CPU loops and tc:: calls, or CUDA launches and tcg:: calls
  /// on device pointers.
  bool onDevice() const { return backend().target() == Target::Cuda; }
  /// The kernel library's namespace: "tc" (tc_kernels.h) or "tcg" (tc_cuda_lib.h).
  std::string library() const { return onDevice() ? "tcg" : "tc"; }
  /// Writes a call of the kernel library, `call` being "softmax<float>(x, 1, 8, 1, false, y)":
  /// on the CPU `tc::<call>;`, on CUDA the same function of tcg with the context's execution
  /// resources first, its failure returned as TC_ERROR_DEVICE naming the node being emitted.
  void callLibrary(const std::string &call);
  /// Copies `count` (a C++ expression) contiguous elements of `type` from `source` to `target`.
  void copyElements(const std::string &type, const std::string &source, const std::string &count,
                    const std::string &target);
  /// The node being emitted, for error messages of the generated code.
  void setCurrentNode(const ir::Node *node) { currentNode_ = node; }
  /// "node 'fused_3' (fusion)": the current node as generated messages name it.
  std::string currentNodeLabel() const;
  /// CUDA: numbers the current node as a gather site (its label is what <name>_synchronize
  /// reports for an out-of-range index recorded with that number).
  int addGatherSite() {
    gatherSites_.push_back(currentNodeLabel());
    return static_cast<int>(gatherSites_.size()) - 1;
  }
  const std::vector<std::string> &gatherSites() const { return gatherSites_; }


  /// The run function's body, where each node's code goes.
  CodeWriter &code() { return code_; }
  /// Namespace-scope code before the run function: the TC_HD scalar functions of kernels.
  CodeWriter &functions() { return functions_; }
  /// The next kernel number ("k0", "k1", ...).
  std::string nextKernelName() { return "k" + std::to_string(kernels_++); }

  /// With a memory plan, views alias their operand's storage: `layouts` says where every
  /// value's elements are. Without one (nullptr), every value is its own contiguous buffer.
  void setLayouts(const std::map<const ir::Value *, opt::ValueLayout> *layouts) {
    layouts_ = layouts;
  }
  bool viewsAlias() const { return layouts_ != nullptr; }
  /// Where `value`'s elements are: its layout, or its own contiguous buffer.
  opt::ValueLayout layout(const ir::Value *value) const;
  /// The C++ pointer variable holding `value`'s data ("v7").
  const std::string &ptr(const ir::Value *value) const;
  void setPtr(const ir::Value *value, std::string name) { pointers_[value] = std::move(name); }
  /// Weight pointers ("w3") whose data the target stores in its own layout
  /// (TargetBackend::storedWeights): only the calls made for that layout may read them.
  void markPackedWeight(std::string pointer) { packedWeights_.insert(std::move(pointer)); }
  bool isPackedWeight(const std::string &pointer) const {
    return packedWeights_.count(pointer) != 0;
  }

  /// Reserves an arena slot of `elements` (a C++ expression) values of `type` for the node
  /// being emitted and returns the pointer variable's name. The driver lays slots out.
  std::string workspace(const std::string &type, const std::string &elements);

  /// Slots requested so far: (pointer name, element type, element-count expression).
  struct Slot {
    std::string name;
    std::string type;
    std::string elements;
  };
  const std::vector<Slot> &workspaces() const { return workspaces_; }

private:
  CodeWriter &code_;
  CodeWriter &functions_;
  TargetBackend *backend_;
  const ir::Node *currentNode_ = nullptr;
  std::vector<std::string> gatherSites_;
  int kernels_ = 0;
  const std::map<const ir::Value *, opt::ValueLayout> *layouts_ = nullptr;
  std::map<const ir::Value *, std::string> pointers_;
  std::set<std::string> packedWeights_;
  std::vector<Slot> workspaces_;
};

/// Writes the code of one node (inside the run function, after its operands' pointers and
/// its results' pointers are declared). Unsupported for attribute combinations the kernels
/// do not handle.
Status emitNode(const ir::Node &node, EmitState &state);

/// The run function's host variable holding cond predicate `id` ("predicate0"), declared
/// before the first node and set by that cond_predicate node.
std::string predicateVariable(int64_t id);

// ---- helpers shared by the per-op files ----

/// C++ expressions of a type's dims.
std::vector<std::string> dimExprs(const ir::TensorType &type);
/// Contiguous row-major strides of `shape` as C++ expressions.
std::vector<std::string> contiguousStrideExprs(const ir::Shape &shape);
/// Product of dims [begin, end) of a shape.
std::string productRange(const ir::Shape &shape, size_t begin, size_t end);

/// A tensor of `shape` viewed as [outer, extent, inner] around its dims first..last (C++
/// expressions): the layout of the library's ops along dims (reductions, softmax, cumsum,
/// sort, gather, scatter, index_select). Negative dims count from the end. A 0-d tensor takes
/// dim 0 and -1 (PyTorch's rule, which shape inference follows) and is one element: [1, 1, 1].
struct AroundDims {
  std::string outer, extent, inner;
};
AroundDims aroundDims(const ir::Shape &shape, int64_t first, int64_t last);
inline AroundDims aroundDim(const ir::Shape &shape, int64_t dim) {
  return aroundDims(shape, dim, dim);
}

/// Writes `tc::strided_copy` of `in` (shape of `inType`) viewed through `strides`/`offset`
/// into the contiguous `out` of shape `outShape`.
void emitStridedCopy(EmitState &state, const std::string &type, const std::string &in,
                     const std::string &offset, const std::vector<std::string> &strides,
                     const std::vector<std::string> &outShape, const std::string &out);

/// Writes a strided copy of `value`, read through its layout, into the contiguous `out`.
void emitGather(EmitState &state, const ir::Value *value, const std::string &out);
/// A kernel-library call whose indices are checked, `call` being "gather<float, int64_t>(x, ..."
/// without its closing parenthesis: on CUDA a bad index is recorded under a new gather site; on
/// the CPU the call's `bad` out-parameter becomes an error naming the node, the index, its
/// position in `indices` and the valid range 0 .. extent - 1. `hostArguments` (", ws") follow
/// `bad` in the CPU call.
void emitIndexCheckedCall(EmitState &state, const ir::Node &node, const std::string &call,
                          const ir::Value *indices, const std::string &extent,
                          const std::string &hostArguments = "");

/// Strides of `operand` broadcast to `resultShape` (0 for broadcast dims and missing
/// leading dims).
std::vector<std::string> broadcastStrides(const ir::Shape &operand, const ir::Shape &result);

Status emitNnNode(const ir::Node &node, EmitState &state);
/// as_strided, slice_scatter and scatter (library_calls_scatter.cpp).
Status emitScatterNode(const ir::Node &node, EmitState &state);
/// sort and embedding_bag (library_calls_sort.cpp).
Status emitSortNode(const ir::Node &node, EmitState &state);
/// cholesky, lu_factor, lu_permutation, triangular_solve, qr, geqrf, householder_product, ormqr,
/// ldl_factor, ldl_solve, eigh, svd, matrix_exp (CPU; library_calls_linalg.cpp).
Status emitLinalgNode(const ir::Node &node, EmitState &state);

/// The scalar expression of an elementwise op over operands `a`, `b` (and `c0`, the bool
/// condition of `where`), already converted to the compute type `A` (for cast: the operand's
/// compute type). library_calls.cpp.
Expected<std::string> scalarExpression(const ir::Node &node);

/// An epilogue fusion's library call, writing the fusion's result from its operands (the
/// body's first node, emitted with the fusion's pointers). library_calls.cpp.
Status emitEpilogueLibraryCall(const ir::Node &fusion, const EpilogueKernel &kernel,
                               EmitState &state);

/// <name>.h: the model's C ABI and C++ wrapper (model_abi.cpp); the target adds its own
/// declarations.
std::string modelHeader(const EmitOptions &options, const TargetBackend &backend);
/// <name>_run.cpp: the runner's entry point (model_abi.cpp).
std::string modelRunner(const EmitOptions &options, const TargetBackend &backend);

} // namespace thunderc::codegen
