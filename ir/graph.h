// The SSA graph: Graph owns Nodes (kept in topological order), a Node owns its result Values,
// and every other pointer is non-owning. Values keep use-lists so passes can rewrite in place.
#pragma once

#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/attributes.h"
#include "ir/dtype.h"
#include "ir/host_tensor.h"
#include "ir/ops.h"
#include "ir/sym_expr.h"

namespace thunderc::ir {

class Graph;
class Node;

/// The type of every value: element type and (possibly symbolic) shape.
struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool isStatic() const;
  /// "f32[?s0,784]".
  std::string str() const;
  friend bool operator==(const TensorType &, const TensorType &) = default;
};

/// Where a graph input comes from. Everything but User is backed by weights. State is a
/// buffer (or lifted constant) the program updates in place, such as an LLM's KV cache: its
/// weight is only the initial value; each execution context keeps its own copy across runs,
/// and the graph's state outputs (Graph::stateOf) say what each run writes back.
enum class InputKind { User, Parameter, Buffer, Constant, State };

/// One use of a value: operand `operandIndex` of `user`.
struct Use {
  Node *user;
  int operandIndex;
};

/// An SSA value: a graph input or one result of a node.
class Value {
public:
  const TensorType &type() const { return type_; }
  void setType(TensorType type) { type_ = std::move(type); }
  /// SSA name without '%'; empty means "print a number".
  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  Node *producer() const { return producer_; }
  int resultIndex() const { return resultIndex_; }
  bool isGraphInput() const { return producer_ == nullptr; }
  const std::vector<Use> &uses() const { return uses_; }
  bool hasUses() const { return !uses_.empty(); }

  /// For graph inputs: the kind and, for weights, the state-dict name ("fc1.weight").
  InputKind inputKind() const { return inputKind_; }
  const std::string &weightName() const { return weightName_; }

private:
  friend class Graph;
  friend class Node;
  TensorType type_;
  std::string name_;
  Node *producer_ = nullptr;
  int resultIndex_ = 0;
  std::vector<Use> uses_;
  InputKind inputKind_ = InputKind::User;
  std::string weightName_;
};

/// Provenance of a node, for messages and reports. Only `loc` is printed in the text IR.
struct SourceInfo {
  std::string loc;    ///< "zoo.py:57" (file basename and line), empty if unknown
  std::string file;   ///< full path from the stack trace
  std::string code;   ///< the Python source line, stripped
  std::string target; ///< the exported op, e.g. "aten.convolution.default"
};

/// One operation. Construct through Graph::appendNode / insertNodeBefore.
class Node {
public:
  OpKind op() const { return op_; }
  const OpInfo &info() const { return opInfo(op_); }

  const std::vector<Value *> &operands() const { return operands_; }
  Value *operand(int index) const { return operands_.at(static_cast<size_t>(index)); }
  int numOperands() const { return static_cast<int>(operands_.size()); }
  /// Replaces operand `index`, keeping use-lists right.
  void setOperand(int index, Value *value);

  int numResults() const { return static_cast<int>(results_.size()); }
  Value *result(int index = 0) const { return results_.at(static_cast<size_t>(index)).get(); }

  AttrMap &attrs() { return attrs_; }
  const AttrMap &attrs() const { return attrs_; }

  /// The exported node's name ("conv2d_3"), used in messages; may be empty.
  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }
  SourceInfo &source() { return source_; }
  const SourceInfo &source() const { return source_; }

  Graph *graph() const { return graph_; }

  /// The nested graph of a `fusion` node (nullptr for every other op). Its inputs mirror the
  /// node's operands and its outputs the node's results, type for type.
  Graph *body() const { return body_.get(); }
  void setBody(std::unique_ptr<Graph> body);

private:
  friend class Graph;
  Node() = default;
  OpKind op_ = OpKind::Copy;
  std::vector<Value *> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  AttrMap attrs_;
  std::string name_;
  SourceInfo source_;
  Graph *graph_ = nullptr;
  std::unique_ptr<Graph> body_;
  std::list<std::unique_ptr<Node>>::iterator position_;
};

/// A function: inputs, nodes in topological order, outputs, and the ranges of the symbols
/// its shapes mention.
class Graph {
public:
  explicit Graph(std::string name = "main") : name_(std::move(name)) {}
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  ~Graph();

  const std::string &name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  Value *addInput(std::string name, TensorType type, InputKind kind = InputKind::User,
                  std::string weightName = "");
  const std::vector<std::unique_ptr<Value>> &inputs() const { return inputs_; }
  Value *input(int index) const { return inputs_.at(static_cast<size_t>(index)).get(); }
  int numInputs() const { return static_cast<int>(inputs_.size()); }

  /// Changes the kind of a weight input (a buffer the program turns out to update becomes
  /// InputKind::State).
  void setInputKind(Value *input, InputKind kind);

  /// Removes a graph input that has no uses and is not an output (a weight made dead by
  /// folding). Keeps the order of the other inputs.
  void eraseInput(Value *input);

  /// Creates a node at the end of the graph with one result per entry of resultTypes.
  Node *appendNode(OpKind op, std::vector<Value *> operands,
                   std::vector<TensorType> resultTypes, AttrMap attrs = {});
  /// Creates a node just before `before`. It runs under `before`'s cond guard (kGuardAttr)
  /// unless `attrs` give one: a rewrite replacing `before` keeps its branch.
  Node *insertNodeBefore(Node *before, OpKind op, std::vector<Value *> operands,
                         std::vector<TensorType> resultTypes, AttrMap attrs = {});
  /// Removes a node whose results have no uses and are not graph outputs.
  void eraseNode(Node *node);

  /// Points every use of `from` (including graph outputs) at `to`.
  void replaceAllUsesWith(Value *from, Value *to);

  const std::list<std::unique_ptr<Node>> &nodes() const { return nodes_; }
  int numNodes() const { return static_cast<int>(nodes_.size()); }

  /// The user outputs, then one state output per updated State input (see addStateOutput).
  const std::vector<Value *> &outputs() const { return outputs_; }
  /// Replaces the outputs; the trailing state outputs keep their states, so `outputs` must
  /// hold at least as many values as there are state outputs.
  void setOutputs(std::vector<Value *> outputs);
  bool isOutput(const Value *value) const;
  /// Appends a state output: after a run, `value` is the new content of the State input
  /// whose weight name is `stateName`.
  void addStateOutput(Value *value, std::string stateName);
  /// The number of outputs the caller receives (the state outputs follow them).
  size_t numUserOutputs() const { return outputs_.size() - stateOutputs_.size(); }
  /// For output `index`: the weight name of the state it updates, or nullptr (a user output).
  const std::string *stateOf(size_t index) const;

  /// Adds a Constant input whose data the graph owns (a folded weight); `weightName` must be
  /// unique among the graph's constants. The bundle writes it into weights.bin like any
  /// parameter. The text IR prints the input but not its data.
  Value *addConstant(std::string name, std::string weightName, HostTensor data);
  /// Data of a constant added by addConstant, or nullptr.
  const HostTensor *constantData(const std::string &weightName) const;

  /// Symbol name -> inclusive range. Every symbol used by a type must be declared here.
  std::map<std::string, SymbolRange> &symbols() { return symbols_; }
  const std::map<std::string, SymbolRange> &symbols() const { return symbols_; }

private:
  Node *createNode(std::list<std::unique_ptr<Node>>::iterator position, OpKind op,
                   std::vector<Value *> operands, std::vector<TensorType> resultTypes,
                   AttrMap attrs);

  std::string name_;
  std::vector<std::unique_ptr<Value>> inputs_;
  std::list<std::unique_ptr<Node>> nodes_;
  std::vector<Value *> outputs_;
  std::vector<std::string> stateOutputs_; ///< the states of the trailing outputs, in order
  std::map<std::string, SymbolRange> symbols_;
  std::map<std::string, HostTensor> constants_;
};

} // namespace thunderc::ir
