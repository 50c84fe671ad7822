// The ExportedProgram importer's class, shared by frontend/pt2/importer.cpp (the program: symbols,
// inputs, nodes, outputs) and frontend/pt2/higher_order.cpp (cond, map, scan, autocast and
// set_grad regions, inlined). Internal to frontend/pt2/.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontend/aten/node_importer.h"
#include "frontend/pt2/importer.h"
#include "frontend/pt2/json_util.h"

namespace thunderc::frontend::detail {

// Calls `visit` with every string under a "name" key in `value` (tensor references inside
// serialized arguments and output specs), in document order.
void forEachName(const Json &value, const std::function<void(const std::string &)> &visit);

class ProgramImporter {
public:
  ProgramImporter(ImportedModel &model) : model_(model) {}

  Status run(const Json &program);

private:
  Status checkVersion(const Json &program);

  // range_constraints also lists the exporter's unbacked symbols that no size uses (the
  // SymFloat of a float item(), a count only compared in torch._check): symbols no type and
  // no binding node mentions are dropped, so that none is left without a value at run time.
  void dropUnusedSymbols();

  // Every tensor name that a node argument or a user output reads.
  Status collectReferences(const Json &graph, const Json &signature);

  // Symbols are renamed s0, s1, ... in order of first appearance in the user inputs' sizes
  // (then any others, in range_constraints order), so names are stable across exports.
  Status declareSymbols(const Json &program, const Json &signature);

  Expected<ir::TensorType> placeholderType(const std::string &name);

  // A weight's archive record must agree with the placeholder's metadata.
  Status checkWeight(const std::string &fqn, const ir::TensorType &type);

  Status importInputs(const Json &signature);

  Status importOutputs(const Json &signature);

  // A core-ATen buffer_mutation output: `arg` is the buffer's new value, so the buffer is
  // program state (ir::InputKind::State) and that value its state output.
  Status importBufferMutation(const Json &payload);

  // SymInt-producing nodes become expressions: sym_int_values has them when the exporter
  // could express them; otherwise they are computed from the node.
  Status importSymIntNode(const Json &node, const std::string &name);

  // tensor.item() (aten.item / aten._local_scalar_dense) of a one-element tensor. Its value is
  // the tensor itself, as 0-d, for arithmetic that reads it (ImportState::symScalars). An
  // integer value the exporter gave an unbacked symbol also becomes an `item` node binding
  // that symbol at run time, so that sizes (a slice's end, a new tensor's length) can use it.
  Status importItem(const Json &node, const std::string &name, const ir::SourceInfo &source);

  std::string nodeName(const Json &node, size_t index);

  Status importNode(const Json &node, size_t index);

  // ---- higher-order ops ----
  // Subgraphs are imported inline (importSubgraph): their names prefixed, so every inlined copy
  // defines fresh IR values, and scoped, so their names never shadow the caller's.

  /// An operand of a higher-order op: a tensor or a SymInt.
  struct SubgraphArg {
    ir::Value *tensor = nullptr;
    std::optional<ir::SymExpr> symInt;
  };
  /// One argument of a higher-order op node; lists (as_tensors, as_sym_ints) flattened.
  struct HigherOrderArg {
    bool isList = false;
    std::vector<JsonUnion> items;
  };
  /// An autocast region being imported (wrap_with_autocast).
  struct AutocastRegion {
    std::string device;
    ir::DType dtype;
    bool enabled;
  };
  /// A comparison of two SymInts (`_operator.gt(sym_size_int_1, 4)`), for cond predicates.
  struct SymComparison {
    ir::OpKind op;
    ir::SymExpr lhs, rhs;
  };

  static bool isSymBoolComparison(const std::string &target);
  static std::optional<ir::OpKind> symComparisonOp(const std::string &target);

  /// An int or a SymInt argument with a known expression; nullopt otherwise.
  std::optional<ir::SymExpr> symIntOf(const JsonUnion &value);

  // A comparison of sizes is remembered for a cond predicate that may read it; one of other
  // values (SymFloats, ...) is left alone, as before, since only asserts read those.
  Status recordSymBool(const Json &node, const std::string &target);

  Expected<std::vector<HigherOrderArg>> higherOrderArgs(const Json &node,
                                                        std::vector<const Json *> &graphs);

  Expected<SubgraphArg> resolveOperand(const JsonUnion &value);

  Expected<std::vector<SubgraphArg>> resolveOperands(const std::vector<HigherOrderArg> &args,
                                                     size_t first);

  /// Tensor operands only (map's and scan's lists), each named for errors.
  Expected<std::vector<ir::Value *>> tensorOperands(const HigherOrderArg &arg,
                                                    const std::string &what);

  Expected<std::vector<std::string>> nodeOutputNames(const Json &node);

  Status bindNodeOutputs(const Json &node, const std::vector<ir::Value *> &values);

  /// Imports `original` inline with its inputs bound to `args`; returns its outputs. The
  /// caller's names are restored afterwards (the subgraph's are prefixed with `prefix`).
  Expected<std::vector<ir::Value *>> importSubgraph(const Json &original,
                                                    const std::vector<SubgraphArg> &args,
                                                    const std::string &prefix);

  Expected<std::vector<ir::Value *>> importSubgraphScoped(const Json &subgraph,
                                                          const std::vector<SubgraphArg> &args);

  ir::Value *appendHelper(const std::string &name, ir::OpKind op, std::vector<ir::Value *> operands,
                          ir::TensorType type, ir::AttrMap attrs = {});

  /// `values` (equal types) stacked along a new dim 0.
  ir::Value *stackValues(const std::vector<ir::Value *> &values, const std::string &name);

  /// Slice `index` of dim 0 of each tensor.
  std::vector<SubgraphArg> slicesAt(const std::vector<ir::Value *> &tensors, int64_t index,
                                    const std::string &name);

  /// The static length of dim 0 shared by `tensors` (map's xs, scan's xs): the trip count
  /// of the unrolled loop.
  Expected<int64_t> tripCount(const std::vector<ir::Value *> &tensors, const std::string &op);

  Status importHigherOrder(const Json &node, const std::string &target, const std::string &name);

  Expected<AutocastRegion> autocastRegion(const std::vector<HigherOrderArg> &args);

  /// The device of a node's first tensor output ("cpu"), from the tensor metadata.
  std::string outputDevice(const Json &node);

  /// Inside an autocast region, an ATen op of autocast's lists gets its floating tensor
  /// arguments cast as autocast would (the casts are emitted here; `rewritten` reads them).
  /// Says whether the node was rewritten. A region applies to ops on its device only, and
  /// the innermost region for that device decides, as in eager.
  Expected<bool> autocastNode(const Json &node, const std::string &target,
                              const std::string &name, Json &rewritten);

  /// torch.cond(pred, true_fn, false_fn, operands). A predicate known at compile time (a
  /// Python bool, a comparison of static sizes) imports only the taken branch. Otherwise the
  /// predicate becomes a cond_predicate node, both branches are imported with a guard on each
  /// node (ir/ops.h kGuardAttr) so that only the taken one runs, and each result is
  /// where(predicate, true value, false value).
  Status importCond(const Json &node, const std::vector<const Json *> &graphs,
                    const std::vector<HigherOrderArg> &args, const std::string &name);

  static bool compareConstants(const SymComparison &comparison);

  /// A 0-d i64 tensor holding `expr` at run time: a constant, or the element count of a
  /// `full` of that (nonnegative, as sizes are) length.
  ir::Value *sizeTensor(const ir::SymExpr &expr, const std::string &name);

  /// Puts [id, polarity] in front of the guard of every node from position `count` on.
  void guardNodesAfter(size_t count, int64_t id, bool polarity);

  /// map_impl(f, xs, args): f runs on slice i of each of xs (with args) for every i of their
  /// dim 0, and each result is the stack of f's results. Unrolled (a static trip count).
  Status importMap(const Json &node, const std::vector<const Json *> &graphs,
                   const std::vector<HigherOrderArg> &args, const std::string &name);

  /// scan(combine, init, xs, additional_inputs): the carries start at init; step i calls
  /// combine(carries..., slice i of xs..., additional_inputs...) -> (carries..., ys...).
  /// Results: the last carries, then each y stacked over the steps. Unrolled (a static trip
  /// count).
  Status importScan(const Json &node, const std::vector<const Json *> &graphs,
                    const std::vector<HigherOrderArg> &args, const std::string &name);

  Status importMapped(const Json &node, const std::string &target, const std::string &name,
                      const ir::SourceInfo &source);

  // Whether the node reads a complex value or the exporter declares one of its outputs
  // complex (frontend/aten/complex.h).
  bool touchesComplex(const Json &node) const;

  void eraseNodesAfter(size_t count);

  // Keeps an op thunderc cannot compile: its tensor arguments as operands, its tensor
  // outputs as results, so the rest of the graph still imports and reports can list it.
  Status keepAsAtenCall(const Json &node, const std::string &name,
                        const ir::SourceInfo &source);

  ImportedModel &model_;
  ImportState state_;
  std::vector<AutocastRegion> autocast_;           ///< innermost last
  std::map<std::string, SymComparison> symBools_; ///< SymBool name -> its comparison
  int64_t nextPredicateId_ = 0;
};

} // namespace thunderc::frontend::detail
