// The reference interpreter's driver. The ops live in
// ir/interpreter_{elementwise,reduction,nn,pool,shape}.cpp and the numeric helpers they share
// in ir/interpreter_numeric.cpp.
//
// interpret():
//  1. Check the user inputs against their types: bind every dim that is a plain symbol from
//     the given shapes, then check every dim (static, or a compound expression evaluated with
//     the bindings) and each bound symbol against its range in graph.symbols().
//  2. Copy the user inputs (strided views) and the weights (from the WeightProvider, checked
//     against their input types) into dense Tensors of doubles.
//  3. Run the nodes in graph order: evaluate the result shapes, run the node's op family,
//     round every result to its dtype, and free each value after its last use.
//  4. Encode the graph outputs as contiguous HostTensors in their dtypes.
#include "ir/interpreter.h"

#include <algorithm>
#include <unordered_map>

#include "ir/interpreter_internal.h"

namespace thunderc::ir {
namespace {

using interp::Bindings;
using interp::Tensor;

std::string concreteTypeText(DType dtype, const std::vector<int64_t> &shape) {
  return std::string(dtypeName(dtype)) + interp::shapeText(shape);
}

// "input 0 'x'" numbers user inputs as the caller passes them; weights are named by FQN.
std::string inputLabel(const Graph &graph, int index) {
  const Value &value = *graph.input(index);
  if (value.inputKind() != InputKind::User)
    return "weight '" + value.weightName() + "' (input '" + value.name() + "')";
  int userIndex = 0;
  for (int i = 0; i < index; ++i)
    userIndex += graph.input(i)->inputKind() == InputKind::User ? 1 : 0;
  return "input " + std::to_string(userIndex) + " '" + value.name() + "'";
}

std::string nodeLabel(const Node &node, int position) {
  std::string name = node.name();
  if (name.empty())
    name = node.result()->name().empty() ? "#" + std::to_string(position)
                                         : "%" + node.result()->name();
  return "node '" + name + "' (" + std::string(node.info().name) + ")";
}

/// Every dim of `shape` under `bindings`; error if a symbol is unbound or a dim is negative.
Expected<std::vector<int64_t>> evaluateShape(const Shape &shape, const Bindings &bindings) {
  std::vector<int64_t> values;
  for (const Dim &dim : shape) {
    if (dim.isStatic()) {
      values.push_back(dim.value());
      continue;
    }
    std::optional<int64_t> value = dim.expr().evaluate(bindings);
    if (!value)
      return invalidInput("dim " + dim.str() +
                          " cannot be evaluated: a symbol is not bound by any input dim");
    if (*value < 0)
      return invalidInput("dim " + dim.str() + " evaluates to " + std::to_string(*value));
    values.push_back(*value);
  }
  return values;
}

/// Checks a borrowed view's own consistency; the buffer bounds are the caller's contract.
Status checkView(const TensorView &view) {
  if (view.strides.size() != view.shape.size())
    return invalidInput("view has " + std::to_string(view.shape.size()) + " dims but " +
                        std::to_string(view.strides.size()) + " strides");
  for (int64_t dim : view.shape)
    if (dim < 0)
      return invalidInput("view has negative dim in shape " + interp::shapeText(view.shape));
  if (view.data == nullptr && interp::shapeNumel(view.shape) != 0)
    return invalidInput("view has no data");
  return Status::success();
}

/// Step 1 of interpret(): binds symbols from plain-symbol dims, then checks all dims.
Expected<Bindings> bindSymbols(const Graph &graph, const std::vector<TensorView> &userInputs,
                               const std::vector<int> &userInputIndices) {
  Bindings bindings;
  std::map<std::string, std::string> boundBy; // symbol -> label of the input that bound it
  for (size_t i = 0; i < userInputIndices.size(); ++i) {
    int index = userInputIndices[i];
    const TensorType &type = graph.input(index)->type();
    const TensorView &view = userInputs[i];
    std::string label = inputLabel(graph, index);
    TC_TRY_CONTEXT(checkView(view), label);
    if (view.dtype != type.dtype || static_cast<int64_t>(view.shape.size()) != type.rank())
      return invalidInput(label + ": expected " + type.str() + ", got " +
                          concreteTypeText(view.dtype, view.shape));
    for (size_t d = 0; d < type.shape.size(); ++d) {
      const Dim &dim = type.shape[d];
      if (dim.isStatic() || dim.expr().kind() != SymExpr::Kind::Symbol)
        continue;
      const std::string &symbol = dim.expr().symbolName();
      auto [it, inserted] = bindings.emplace(symbol, view.shape[d]);
      if (!inserted && it->second != view.shape[d])
        return invalidInput(label + ": dim " + std::to_string(d) + " is " +
                            std::to_string(view.shape[d]) + " but symbol " + symbol + " is " +
                            std::to_string(it->second) + " from " + boundBy[symbol]);
      boundBy.emplace(symbol, label);
    }
  }
  for (const auto &[symbol, value] : bindings) {
    auto range = graph.symbols().find(symbol);
    if (range == graph.symbols().end())
      continue;
    const SymbolRange &bounds = range->second;
    if (value >= bounds.min && (!bounds.max || value <= *bounds.max))
      continue;
    std::string max = bounds.max ? std::to_string(*bounds.max) : "inf";
    return invalidInput(boundBy[symbol] + ": symbol " + symbol + " = " + std::to_string(value) +
                        " is outside its range [" + std::to_string(bounds.min) + ", " + max + "]");
  }
  for (size_t i = 0; i < userInputIndices.size(); ++i) {
    const TensorType &type = graph.input(userInputIndices[i])->type();
    std::string label = inputLabel(graph, userInputIndices[i]);
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> expected,
                        interp::withContext(evaluateShape(type.shape, bindings), label));
    if (expected != userInputs[i].shape)
      return invalidInput(label + ": expected " + type.str() + ", got " +
                          concreteTypeText(userInputs[i].dtype, userInputs[i].shape));
  }
  return bindings;
}

/// Copies a strided view into a dense tensor of doubles (dtype and shape already checked).
Tensor tensorFromView(const TensorView &view) {
  Tensor tensor{view.dtype, view.shape,
                std::vector<double>(static_cast<size_t>(interp::shapeNumel(view.shape)))};
  int64_t elementSize = dtypeSize(view.dtype);
  interp::forEachIndex<1>(
      view.shape, {&view.strides}, [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
        tensor.data[static_cast<size_t>(linear)] =
            interp::readElement(view.data + offsets[0] * elementSize, view.dtype);
      });
  return tensor;
}

HostTensor toHostTensor(const Tensor &tensor) {
  HostTensor host;
  host.dtype = tensor.dtype;
  host.shape = tensor.shape;
  int64_t elementSize = dtypeSize(tensor.dtype);
  host.bytes.resize(static_cast<size_t>(tensor.numel() * elementSize));
  for (int64_t i = 0; i < tensor.numel(); ++i)
    interp::writeElement(host.bytes.data() + i * elementSize, tensor.dtype,
                         tensor.data[static_cast<size_t>(i)]);
  return host;
}

/// Routes a node to the interpreter file of its op family (ir/ops.def).
Status runNode(interp::OpCall &call) {
  switch (call.node.info().family) {
  case OpFamily::Unary:
  case OpFamily::Binary:
  case OpFamily::Ternary:
    return interp::runElementwiseOp(call);
  case OpFamily::Reduction:
    return interp::runReductionOp(call);
  case OpFamily::Nn:
    return interp::runNnOp(call);
  case OpFamily::Pool:
    return interp::runPoolOp(call);
  case OpFamily::Shape:
    return interp::runShapeOp(call);
  case OpFamily::Linalg:
    return interp::runLinalgOp(call);
  case OpFamily::Other:
    if (call.node.op() == OpKind::CondPredicate) {
      call.result().data[0] = call.operand(0).data.at(0) != 0 ? 1 : 0;
      return Status::success();
    }
    if (call.node.op() == OpKind::Item) {
      call.result().data[0] = call.operand(0).data.at(0);
      return Status::success();
    }
    if (call.node.op() == OpKind::Nonzero) {
      // Row-major order: each non-zero element's multi-index, one row per element.
      const interp::Tensor &x = call.operand(0);
      std::vector<double> &out = call.result().data;
      size_t row = 0;
      const size_t rank = x.shape.size();
      for (int64_t i = 0; i < x.numel(); ++i) {
        if (x.data[static_cast<size_t>(i)] == 0.0)
          continue;
        int64_t rest = i;
        for (size_t d = rank; d-- > 0;) {
          out[row * rank + d] = static_cast<double>(rest % x.shape[d]);
          rest /= x.shape[d];
        }
        ++row;
      }
      return Status::success();
    }
    break; // fusion and aten_call: handled by executeNode before its results are allocated
  }
  TC_CHECK(false, "op kind without an interpreter family");
}

/// Values alive while interpreting, and the node position of each value's last use.
struct Values {
  std::unordered_map<const Value *, Tensor> live;
  std::unordered_map<const Value *, int> lastUse; ///< absent: never used by a node
  std::unordered_map<int64_t, bool> predicates;   ///< cond_predicate id -> its value this run
  RandomState random;                             ///< what random ops draw from this run
  const std::map<std::string, SymbolRange> &symbols; ///< ranges, for data-dependent symbols

  explicit Values(const Graph &graph) : symbols(graph.symbols()) {
    int position = 0;
    for (const auto &node : graph.nodes()) {
      for (Value *operand : node->operands())
        lastUse[operand] = position;
      ++position;
    }
  }

  /// Frees `value` if no node after position `now` uses it and it is not a graph output.
  void releaseIfDead(const Graph &graph, const Value *value, int now) {
    auto it = lastUse.find(value);
    bool dead = it == lastUse.end() || it->second <= now;
    if (dead && !graph.isOutput(value))
      live.erase(value);
  }
};

/// Step 2 of interpret() for the weights: fetch, check against the input type, copy.
Status loadWeights(const Graph &graph, const WeightProvider &weights, const Bindings &bindings,
                   Values &values) {
  for (int i = 0; i < graph.numInputs(); ++i) {
    const Value &input = *graph.input(i);
    if (input.inputKind() == InputKind::User)
      continue;
    std::string label = inputLabel(graph, i);
    const HostTensor *folded = graph.constantData(input.weightName());
    Expected<TensorView> fetched = folded ? Expected<TensorView>(folded->view()) : weights(input);
    TC_ASSIGN_OR_RETURN(TensorView view, interp::withContext(std::move(fetched), label));
    TC_TRY_CONTEXT(checkView(view), label);
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> expected,
                        interp::withContext(evaluateShape(input.type().shape, bindings), label));
    if (view.dtype != input.type().dtype || view.shape != expected)
      return invalidInput(label + ": expected " + input.type().str() + ", got " +
                          concreteTypeText(view.dtype, view.shape));
    values.live.emplace(&input, tensorFromView(view));
  }
  return Status::success();
}

Status executeNode(const Node &node, Bindings &bindings, Values &values);

/// A fusion: its body runs on copies of the operands, as a graph of its own.
Status executeFusion(const Node &node, Bindings &bindings, Values &values) {
  const Graph &body = *node.body();
  Values inner(body);
  inner.predicates = values.predicates;
  inner.random = values.random;
  for (int i = 0; i < node.numOperands(); ++i) {
    auto it = values.live.find(node.operand(i));
    TC_CHECK(it != values.live.end(), "operand used before its definition or after its free");
    inner.live.emplace(body.input(i), it->second);
  }
  int position = 0;
  for (const auto &bodyNode : body.nodes()) {
    TC_TRY_CONTEXT(executeNode(*bodyNode, bindings, inner), nodeLabel(*bodyNode, position));
    for (Value *operand : bodyNode->operands())
      inner.releaseIfDead(body, operand, position);
    ++position;
  }
  for (int r = 0; r < node.numResults(); ++r) {
    auto it = inner.live.find(body.outputs()[static_cast<size_t>(r)]);
    TC_CHECK(it != inner.live.end(), "fusion body output is not computed by the body");
    values.live.emplace(node.result(r), it->second);
  }
  return Status::success();
}

/// Whether a node guarded by a cond branch (kGuardAttr) runs: every predicate it names holds
/// with its polarity.
bool guardHolds(const Node &node, const Values &values) {
  const AttrValue *guard = node.attrs().find(kGuardAttr);
  if (guard == nullptr)
    return true;
  const auto &pairs = std::get<std::vector<int64_t>>(*guard);
  for (size_t i = 0; i + 1 < pairs.size(); i += 2) {
    auto it = values.predicates.find(pairs[i]);
    TC_CHECK(it != values.predicates.end(), "guard names a predicate not computed before it");
    if (it->second != (pairs[i + 1] != 0))
      return false;
  }
  return true;
}

/// nonzero and item bind their data-dependent symbol from the operand before their results
/// (whose shapes may use it) are allocated; the value must lie in the symbol's range.
Status bindDataDependentSymbol(const Node &node, const interp::Tensor &x, Bindings &bindings,
                               const Values &values) {
  const std::string &symbol = attr::symbol(node);
  int64_t value = 0;
  if (node.op() == OpKind::Nonzero)
    value = std::count_if(x.data.begin(), x.data.end(), [](double v) { return v != 0.0; });
  else
    value = static_cast<int64_t>(x.data.at(0));
  auto range = values.symbols.find(symbol);
  if (range != values.symbols.end() &&
      (value < range->second.min || (range->second.max && value > *range->second.max)))
    return invalidInput(std::string(node.op() == OpKind::Nonzero ? "the count of non-zero "
                                                                   "elements"
                                                                 : "the value") +
                        " " + std::to_string(value) + " (symbol " + symbol +
                        ") is outside its range [" + std::to_string(range->second.min) + ", " +
                        (range->second.max ? std::to_string(*range->second.max) : "inf") +
                        "] (a torch._check of the exported program)");
  bindings[symbol] = value;
  return Status::success();
}

/// Step 3 of interpret() for one node: allocate its results, run its op family, round and
/// store the results. A node of the branch a cond does not take only gets zero results (the
/// cond's where() does not select them).
Status executeNode(const Node &node, Bindings &bindings, Values &values) {
  if (!guardHolds(node, values)) {
    if (node.op() == OpKind::Nonzero || node.op() == OpKind::Item)
      bindings[attr::symbol(node)] = 0;
    for (int r = 0; r < node.numResults(); ++r) {
      const TensorType &type = node.result(r)->type();
      TC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, evaluateShape(type.shape, bindings));
      size_t count = static_cast<size_t>(interp::shapeNumel(shape));
      values.live.emplace(node.result(r),
                          Tensor{type.dtype, std::move(shape), std::vector<double>(count)});
    }
    return Status::success();
  }
  if (node.op() == OpKind::Fusion)
    return executeFusion(node, bindings, values);
  if (node.op() == OpKind::AtenCall)
    return unsupported("exported op '" + attr::target(node) +
                       "' has no thunderc equivalent");
  const OpInfo &info = node.info();
  TC_CHECK(node.numOperands() >= info.minOperands &&
               (info.maxOperands < 0 || node.numOperands() <= info.maxOperands),
           "operand count outside ir/ops.def: the graph was not verified");
  interp::OpCall call{node, bindings, {}, {}, values.random};
  for (Value *operand : node.operands()) {
    auto it = values.live.find(operand);
    TC_CHECK(it != values.live.end(), "operand used before its definition or after its free");
    call.operands.push_back(&it->second);
  }
  if (node.op() == OpKind::Nonzero || node.op() == OpKind::Item)
    TC_TRY(bindDataDependentSymbol(node, call.operand(0), bindings, values));
  for (int r = 0; r < node.numResults(); ++r) {
    const TensorType &type = node.result(r)->type();
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> shape, evaluateShape(type.shape, bindings));
    size_t count = static_cast<size_t>(interp::shapeNumel(shape));
    call.results.push_back(Tensor{type.dtype, std::move(shape), std::vector<double>(count)});
  }
  TC_TRY(runNode(call));
  for (int r = 0; r < node.numResults(); ++r) {
    Tensor &result = call.result(r);
    TC_CHECK(result.numel() == interp::shapeNumel(result.shape), "an op resized its result");
    if (result.dtype != DType::F64)
      for (double &element : result.data)
        element = interp::roundToDType(element, result.dtype);
    values.live.emplace(node.result(r), std::move(result));
  }
  if (node.op() == OpKind::CondPredicate)
    values.predicates[attr::predicate_id(node)] = values.live.at(node.result()).data[0] != 0;
  return Status::success();
}

} // namespace

Expected<std::vector<HostTensor>> interpret(const Graph &graph,
                                            const std::vector<TensorView> &userInputs,
                                            const WeightProvider &weights,
                                            const RandomState &random) {
  // 1. Bind and check the user inputs.
  std::vector<int> userInputIndices;
  for (int i = 0; i < graph.numInputs(); ++i)
    if (graph.input(i)->inputKind() == InputKind::User)
      userInputIndices.push_back(i);
  if (userInputs.size() != userInputIndices.size())
    return invalidInput("expected " + std::to_string(userInputIndices.size()) +
                        " user inputs, got " + std::to_string(userInputs.size()));
  TC_ASSIGN_OR_RETURN(Bindings bindings, bindSymbols(graph, userInputs, userInputIndices));

  // 2. Dense copies of the inputs and weights; inputs no node uses are dropped at once.
  Values values(graph);
  values.random = random;
  for (size_t i = 0; i < userInputIndices.size(); ++i)
    values.live.emplace(graph.input(userInputIndices[i]), tensorFromView(userInputs[i]));
  TC_TRY(loadWeights(graph, weights, bindings, values));
  for (int i = 0; i < graph.numInputs(); ++i)
    values.releaseIfDead(graph, graph.input(i), -1);

  // 3. Run the nodes in order, freeing each value after its last use.
  int position = 0;
  for (const auto &node : graph.nodes()) {
    TC_TRY_CONTEXT(executeNode(*node, bindings, values), nodeLabel(*node, position));
    for (Value *operand : node->operands())
      values.releaseIfDead(graph, operand, position);
    for (int r = 0; r < node->numResults(); ++r)
      values.releaseIfDead(graph, node->result(r), position);
    ++position;
  }

  // 4. Encode the user outputs (a state output is the state's next value, which a single
  // interpretation has no use for).
  std::vector<HostTensor> outputs;
  for (size_t i = 0; i < graph.numUserOutputs(); ++i) {
    const Value *output = graph.outputs()[i];
    auto it = values.live.find(output);
    TC_CHECK(it != values.live.end(), "graph output is not computed by the graph");
    outputs.push_back(toHostTensor(it->second));
  }
  return outputs;
}

} // namespace thunderc::ir
