// The per-node view the ATen import table works with: arguments matched by schema name
// (omitted defaults filled in), output types from the exporter's tensor metadata, and
// helpers that emit IR nodes carrying the exported node's name and source line.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/pt2/json_util.h"
#include "frontend/aten/op_schema.h"
#include "ir/graph.h"

namespace thunderc::frontend {

// The IR names every converter file of frontend/aten/ uses.
using ir::AttrMap;
using ir::DType;
using ir::OpKind;
using ir::Value;

/// Graph-wide import state shared by every node.
struct ImportState {
  ir::Graph *graph = nullptr;
  std::map<std::string, ir::Value *> values;       ///< exported tensor name -> value
  std::map<std::string, ir::SymExpr> symInts;      ///< exported SymInt name -> expression
  /// tensor.item() results (SymInt, SymFloat or SymBool names) -> the value as a 0-d tensor,
  /// which arithmetic with them reads.
  std::map<std::string, ir::Value *> symScalars;
  std::map<std::string, std::string> symbolRenames; ///< "s77" -> "s0"
  const Json *tensorValues = nullptr;              ///< graph.tensor_values
  const Json *symIntValues = nullptr;              ///< graph.sym_int_values
  std::set<std::string> referencedNames;           ///< tensor names some node or output reads
  std::set<ir::Value *> viewResults;               ///< results of view ops (alias their input)
  /// Program state: a buffer or lifted constant that an in-place op updates becomes a State
  /// input. `stateOf` maps every value that is the current content of a state to its input;
  /// `stateUpdates` holds, per state in first-update order, its latest value.
  std::map<ir::Value *, ir::Value *> stateOf;
  std::vector<std::pair<ir::Value *, ir::Value *>> stateUpdates;
  /// The `stream` of the next random op (each draws its own numbers; frontend/aten/random.cpp).
  int64_t nextRandomStream = 0;
  /// Complex values (frontend/aten/complex.h): the IR has no complex dtype, so a complex64
  /// tensor of shape S is an f32 value of shape [S..., 2] (real, imaginary: the layout of
  /// torch.view_as_real) listed here; only the ops of the complex import table read them.
  std::set<ir::Value *> complexValues;
  /// A complex value whose imaginary part is known to be zero (a real tensor cast to complex)
  /// -> that real tensor, so a DFT of it is a real-to-complex one.
  std::map<ir::Value *, ir::Value *> realOfComplex;
  /// Constants the importer computes (DFT matrices, windows; frontend/aten/complex.h) by what
  /// they hold, shared by every node that needs the same one.
  std::map<std::string, ir::Value *> generatedConstants;
  /// The nonzero node that binds each data-dependent count symbol: torch.export gives two
  /// nonzero calls on one tensor the same symbol, and the second reuses the first's result.
  std::map<std::string, ir::Value *> nonzeroBySymbol;
  /// The same for the decompositions' nonzero_of: torch.export gives two calls of one op on
  /// one tensor (unique with different flags) one count symbol; the second reuses the
  /// positions the first computed. symbol -> (op and operand, positions).
  std::map<std::string, std::pair<std::string, ir::Value *>> derivedNonzeroBySymbol;
};

/// A Python scalar or a tensor, as passed to `Tensor other` / `Scalar other` arguments.
struct ScalarOrTensor {
  ir::Value *tensor = nullptr; ///< null for a scalar
  double scalar = 0;
  bool scalarIsFloat = false;
  bool scalarIsBool = false;
};

/// Converts a serialized TensorMeta into an IR type (symbols renamed). Checks rank, sizes and
/// element-count overflow.
Expected<ir::TensorType> tensorTypeFromMeta(const Json &meta, const ImportState &state);
/// Whether a serialized TensorMeta has a complex dtype (complex32, complex64 or complex128).
bool isComplexMeta(const Json &meta);
/// The pair type of a complex64 TensorMeta: f32, its sizes plus a trailing 2 (see
/// ImportState::complexValues). Unsupported for the other complex dtypes.
Expected<ir::TensorType> complexPairTypeFromMeta(const Json &meta, const ImportState &state);

/// One exported node being imported.
class NodeImport {
public:
  NodeImport(ImportState &state, const Json &node, const OpSchema &schema, std::string name,
             ir::SourceInfo source);

  /// Matches the serialized arguments to the schema; call once before reading arguments.
  Status matchArguments();

  const std::string &name() const { return name_; }
  const OpSchema &schema() const { return schema_; }

  // ---- arguments, by schema name ----
  bool isNone(std::string_view arg) const;
  Expected<ir::Value *> tensor(std::string_view arg) const;
  Expected<ir::Value *> optionalTensor(std::string_view arg) const; ///< null for None
  Expected<std::vector<ir::Value *>> tensorList(std::string_view arg) const;
  /// A `Tensor?[]` argument (as_optional_tensors, or as_tensors when no entry is None); null
  /// entries for None.
  Expected<std::vector<ir::Value *>> optionalTensorList(std::string_view arg) const;
  Expected<int64_t> intArg(std::string_view arg) const;
  Expected<std::optional<int64_t>> optionalInt(std::string_view arg) const;
  Expected<double> floatArg(std::string_view arg) const; ///< accepts ints and bools
  Expected<std::optional<double>> optionalFloat(std::string_view arg) const;
  Expected<bool> boolArg(std::string_view arg) const;
  Expected<std::optional<std::string>> optionalString(std::string_view arg) const;
  Expected<std::vector<int64_t>> intList(std::string_view arg) const;
  /// Whether a `MemoryFormat?` argument is torch.contiguous_format (false for None).
  Expected<bool> isContiguousFormat(std::string_view arg) const;
  /// A float list (as_floats; a single as_float is a list of one), or nullopt for None.
  Expected<std::optional<std::vector<double>>> optionalFloatList(std::string_view arg) const;
  /// Accepts as_int, as_sym_int (resolved through sym_int_values), as_none -> nullopt.
  Expected<std::optional<ir::Dim>> optionalSymInt(std::string_view arg) const;
  Expected<ScalarOrTensor> scalarOrTensor(std::string_view arg) const;

  // ---- outputs ----
  /// Number of tensors the node outputs (lists flattened).
  int numOutputs() const { return static_cast<int>(outputNames_.size()); }
  const std::string &outputName(int index) const { return outputNames_.at(index); }
  bool isOutputUsed(int index) const;
  Expected<ir::TensorType> outputType(int index) const;
  /// While on, outputType() of a complex64 output is the type of one of its components (the
  /// pair type less its trailing 2): the complex import runs a real import function once per
  /// component (frontend/aten/complex.cpp).
  void setComplexComponentOutputs(bool on) { complexComponentOutputs_ = on; }
  /// The names of every tensor the node's arguments read, in argument order.
  std::vector<std::string> inputTensorNames() const;
  /// Whether the exporter declares output `index` complex (any complex dtype).
  bool isComplexOutput(int index) const;
  /// The pair type of a complex64 output `index` (f32, its shape plus a trailing 2; see
  /// ImportState::complexValues); Unsupported for complex32 and complex128.
  Expected<ir::TensorType> complexOutputType(int index) const;

  // ---- emission ----
  /// Emits `op` whose results are outputs [0, numResults) of the exported node (types from
  /// the metadata); checks that later outputs are unused (Unsupported otherwise).
  Expected<ir::Node *> emit(ir::OpKind op, std::vector<ir::Value *> operands,
                            ir::AttrMap attrs = {}, int numResults = 1);
  /// Emits a helper node (not bound to an exported name) of the given type.
  ir::Value *emitTemp(ir::OpKind op, std::vector<ir::Value *> operands, ir::TensorType type,
                      ir::AttrMap attrs = {});
  /// Emits a helper node (not bound to an exported name) typed by shape inference; an
  /// inference error names the node and the op.
  Expected<ir::Value *> emitInferred(ir::OpKind op, std::vector<ir::Value *> operands,
                                     ir::AttrMap attrs = {});
  /// Emits a helper node with several results (not bound to exported names).
  std::vector<ir::Value *> emitTemps(ir::OpKind op, std::vector<ir::Value *> operands,
                                     std::vector<ir::TensorType> types, ir::AttrMap attrs = {});
  /// Binds output `index` to an existing value (used for in-place updates).
  void bindOutput(int index, ir::Value *value);
  /// `value` converted to dtype (no node if it already has it).
  ir::Value *castTo(ir::Value *value, ir::DType dtype);
  /// A 0-d constant.
  ir::Value *scalarConstant(double value, ir::DType dtype);
  /// A 0-d i64 tensor holding `size`: a constant for a static dim; for a symbolic one, the sum
  /// of a ones vector of that length (the IR has no op that reads a symbol's value).
  ir::Value *sizeTensor(const ir::Dim &size);
  /// The operand as a tensor of `dtype`: a cast tensor or a 0-d constant for a scalar.
  ir::Value *materialize(const ScalarOrTensor &operand, ir::DType dtype);

  /// An in-place op (`relu_`, `index_copy_`, `copy_`): `functional` imports the op as a
  /// function of `self` (output 0 its result); then every exported name of the old `self`
  /// names the result. When `self` is a buffer or lifted constant (or a value that is one's
  /// current content), it becomes program state: an ir::InputKind::State input whose final
  /// value is a state output of the graph. Unsupported for a user input, a parameter and a
  /// view, and for a state that a view aliases (the view would have to see the update).
  Status importInPlace(Status (*functional)(NodeImport &node));

  /// An Unsupported error; the importer keeps the node as aten_call with this reason.
  Error unsupportedFeature(const std::string &what) const { return unsupported(what); }

  ImportState &state() { return state_; }

  /// The same exported node read with another overload's schema (one whose arguments have the
  /// same names, such as permute for permute_copy); call matchArguments() on it.
  NodeImport withSchema(const OpSchema &schema) const {
    return NodeImport(state_, node_, schema, name_, source_);
  }

private:
  Expected<const Json *> argument(std::string_view arg) const;

  ImportState &state_;
  const Json &node_;
  const OpSchema &schema_;
  std::string name_;
  ir::SourceInfo source_;
  std::map<std::string, const Json *, std::less<>> arguments_;
  std::vector<std::string> outputNames_;
  bool complexComponentOutputs_ = false;
};

/// `dim` (negative counts from the end) in [0, rank) (a 0-d tensor takes 0 and -1); an error
/// naming the node otherwise.
Expected<int64_t> normalizedDim(NodeImport &node, int64_t dim, int64_t rank);
/// `dim` normalized like normalizedDim, for an op that indexes the shape with it (slice,
/// select, split, roll over a dim...): PyTorch refuses those on a 0-d tensor, and so does this
/// (invalid input naming the node and `op`).
Expected<int64_t> shapeDim(NodeImport &node, int64_t dim, int64_t rank, std::string_view op);
/// Each dim normalized, then sorted and deduplicated.
Expected<std::vector<int64_t>> normalizedDims(NodeImport &node, std::vector<int64_t> dims,
                                              int64_t rank);

/// Imports one node whose op the table knows. Unsupported errors mean "keep as aten_call".
using ImportFunction = Status (*)(NodeImport &node);

/// An exported overload ("aten.flip.default") and the function that imports it. Each converter
/// file lists its own (frontend/aten/converters.h); findImportFunction searches them all.
struct Converter {
  std::string_view target;
  ImportFunction function;
};

/// An in-place op (`torch.empty(..).fill_(v)`, `cache.index_copy_(...)`): the functional import,
/// then later reads of `self` see its result; a buffer updated this way becomes program state
/// (NodeImport::importInPlace).
template <ImportFunction Functional> Status importInplace(NodeImport &node) {
  return node.importInPlace(Functional);
}

/// A tensor of ones shaped like `like` (the implicit weight when only a bias is given).
Value *onesLike(NodeImport &node, const Value *like);

/// Emits `op` over `operands` as the node's output (typed by the exported output).
Status emitOne(NodeImport &node, OpKind op, std::vector<Value *> operands, AttrMap attrs = {});
/// `op` typed by shape inference, then the cast to `dtype` as the node's output: an integer
/// accumulation into a narrower integer (which wraps like PyTorch's), an out_dtype.
Status emitThenCast(NodeImport &node, OpKind op, std::vector<Value *> operands, AttrMap attrs,
                    DType dtype);

/// The target without its "torch.ops." prefix ("torch.ops.aten.add.Tensor" -> "aten.add.Tensor").
std::string_view stripTorchOps(std::string_view target);

/// The import function for an exported target ("torch.ops.aten.linear.default"), or null.
ImportFunction findImportFunction(std::string_view target);

/// Exported targets that are pure assertions and are dropped ("aten._assert_scalar").
bool isDroppedAssertion(std::string_view target);

/// Every target findImportFunction maps or isDroppedAssertion accepts, without "torch.ops."
/// ("aten.add.Tensor"): the table's entries, the overloads ir/ops.def maps generically and the
/// assertions; unsorted. (The importer's own targets are added by supportedTargets().)
std::vector<std::string> importTableTargets();

} // namespace thunderc::frontend
