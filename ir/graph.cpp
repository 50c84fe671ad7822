// Graph construction and mutation with use-list maintenance.
#include "ir/graph.h"

#include <algorithm>

#include "ir/status.h"

namespace thunderc::ir {
namespace {

void removeUse(Value *value, Node *user, int operandIndex) {
  auto &uses = const_cast<std::vector<Use> &>(value->uses());
  auto it = std::find_if(uses.begin(), uses.end(), [&](const Use &use) {
    return use.user == user && use.operandIndex == operandIndex;
  });
  TC_CHECK(it != uses.end(), "use-list out of sync");
  uses.erase(it);
}

} // namespace

bool TensorType::isStatic() const {
  return std::all_of(shape.begin(), shape.end(), [](const Dim &dim) { return dim.isStatic(); });
}

std::string TensorType::str() const {
  return std::string(dtypeName(dtype)) + shapeStr(shape);
}

void Node::setOperand(int index, Value *value) {
  Value *old = operands_.at(static_cast<size_t>(index));
  removeUse(old, this, index);
  operands_[static_cast<size_t>(index)] = value;
  value->uses_.push_back({this, index});
}

void Node::setBody(std::unique_ptr<Graph> body) { body_ = std::move(body); }

Value *Graph::addConstant(std::string name, std::string weightName, HostTensor data) {
  TC_CHECK(!constants_.count(weightName), "duplicate constant " + weightName);
  TensorType type{data.dtype, {}};
  for (int64_t dim : data.shape)
    type.shape.push_back(Dim(dim));
  constants_.emplace(weightName, std::move(data));
  return addInput(std::move(name), std::move(type), InputKind::Constant, std::move(weightName));
}

void Graph::eraseInput(Value *input) {
  TC_CHECK(input->isGraphInput() && !input->hasUses() && !isOutput(input),
           "erasing an input that is still used");
  TC_CHECK(input->inputKind() != InputKind::State, "erasing a state input");
  auto it = std::find_if(inputs_.begin(), inputs_.end(),
                         [&](const std::unique_ptr<Value> &value) { return value.get() == input; });
  TC_CHECK(it != inputs_.end(), "erasing an input of another graph");
  if (input->inputKind() == InputKind::Constant)
    constants_.erase(input->weightName());
  inputs_.erase(it);
}

const HostTensor *Graph::constantData(const std::string &weightName) const {
  auto it = constants_.find(weightName);
  return it == constants_.end() ? nullptr : &it->second;
}

Graph::~Graph() {
  // Destroy nodes last-to-first so no use-list points at a freed node during teardown.
  while (!nodes_.empty())
    nodes_.pop_back();
}

Value *Graph::addInput(std::string name, TensorType type, InputKind kind,
                       std::string weightName) {
  auto value = std::make_unique<Value>();
  value->name_ = std::move(name);
  value->type_ = std::move(type);
  value->inputKind_ = kind;
  value->weightName_ = std::move(weightName);
  inputs_.push_back(std::move(value));
  return inputs_.back().get();
}

Node *Graph::createNode(std::list<std::unique_ptr<Node>>::iterator position, OpKind op,
                        std::vector<Value *> operands, std::vector<TensorType> resultTypes,
                        AttrMap attrs) {
  std::unique_ptr<Node> node(new Node());
  node->op_ = op;
  node->graph_ = this;
  node->attrs_ = std::move(attrs);
  node->operands_ = std::move(operands);
  for (size_t i = 0; i < node->operands_.size(); ++i) {
    TC_CHECK(node->operands_[i] != nullptr, "null operand");
    node->operands_[i]->uses_.push_back({node.get(), static_cast<int>(i)});
  }
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    auto value = std::make_unique<Value>();
    value->type_ = std::move(resultTypes[i]);
    value->producer_ = node.get();
    value->resultIndex_ = static_cast<int>(i);
    node->results_.push_back(std::move(value));
  }
  Node *raw = node.get();
  raw->position_ = nodes_.insert(position, std::move(node));
  return raw;
}

Node *Graph::appendNode(OpKind op, std::vector<Value *> operands,
                        std::vector<TensorType> resultTypes, AttrMap attrs) {
  return createNode(nodes_.end(), op, std::move(operands), std::move(resultTypes),
                    std::move(attrs));
}

Node *Graph::insertNodeBefore(Node *before, OpKind op, std::vector<Value *> operands,
                              std::vector<TensorType> resultTypes, AttrMap attrs) {
  TC_CHECK(before->graph_ == this, "insertion point in another graph");
  if (const AttrValue *guard = before->attrs().find(kGuardAttr); guard && !attrs.find(kGuardAttr))
    attrs.set(kGuardAttr, *guard);
  return createNode(before->position_, op, std::move(operands), std::move(resultTypes),
                    std::move(attrs));
}

void Graph::eraseNode(Node *node) {
  TC_CHECK(node->graph_ == this, "erasing a node of another graph");
  for (const auto &result : node->results_) {
    TC_CHECK(!result->hasUses(), "erasing a node whose result is still used");
    TC_CHECK(!isOutput(result.get()), "erasing a node whose result is a graph output");
  }
  for (size_t i = 0; i < node->operands_.size(); ++i)
    removeUse(node->operands_[i], node, static_cast<int>(i));
  nodes_.erase(node->position_);
}

void Graph::replaceAllUsesWith(Value *from, Value *to) {
  TC_CHECK(from != to, "replacing a value with itself");
  std::vector<Use> uses = from->uses_;
  for (const Use &use : uses)
    use.user->setOperand(use.operandIndex, to);
  std::replace(outputs_.begin(), outputs_.end(), from, to);
}

void Graph::setInputKind(Value *input, InputKind kind) {
  TC_CHECK(input->isGraphInput(), "setInputKind on a node result");
  TC_CHECK((input->inputKind() == InputKind::User) == (kind == InputKind::User),
           "a user input cannot become a weight, nor a weight a user input");
  input->inputKind_ = kind;
}

void Graph::setOutputs(std::vector<Value *> outputs) {
  TC_CHECK(outputs.size() >= stateOutputs_.size(), "fewer outputs than state outputs");
  outputs_ = std::move(outputs);
}

void Graph::addStateOutput(Value *value, std::string stateName) {
  outputs_.push_back(value);
  stateOutputs_.push_back(std::move(stateName));
}

const std::string *Graph::stateOf(size_t index) const {
  size_t first = numUserOutputs();
  return index >= first && index < outputs_.size() ? &stateOutputs_[index - first] : nullptr;
}

bool Graph::isOutput(const Value *value) const {
  return std::find(outputs_.begin(), outputs_.end(), value) != outputs_.end();
}

} // namespace thunderc::ir
