// Shared rewriting helpers (optimizer/rewrite.h).
#include "optimizer/rewrite.h"

#include <string>
#include <vector>

namespace thunderc::opt {

void eraseIfDead(ir::Graph &graph, ir::Node *node) {
  if (node == nullptr)
    return;
  for (int i = 0; i < node->numResults(); ++i) {
    if (node->result(i)->hasUses() || graph.isOutput(node->result(i)))
      return;
  }
  std::vector<ir::Node *> producers;
  for (ir::Value *operand : node->operands())
    producers.push_back(operand->producer());
  graph.eraseNode(node);
  for (ir::Node *producer : producers)
    eraseIfDead(graph, producer);
}

void replaceNode(ir::Graph &graph, ir::Node *node, ir::Node *replacement) {
  std::string resultName = node->result()->name();
  replacement->setName(node->name());
  replacement->source() = node->source();
  graph.replaceAllUsesWith(node->result(), replacement->result());
  eraseIfDead(graph, node); // frees the result name before the replacement takes it
  replacement->result()->setName(std::move(resultName));
}

bool isNoOp(const ir::Node &node) {
  switch (node.op()) {
  case ir::OpKind::Copy:
    return true;
  case ir::OpKind::Cast:
  case ir::OpKind::Reshape:
  case ir::OpKind::Squeeze:
  case ir::OpKind::Unsqueeze:
  case ir::OpKind::Expand:
    return node.result()->type() == node.operand(0)->type();
  default:
    return false;
  }
}

bool hasSoleUse(const ir::Graph &graph, const ir::Value *value) {
  return value->uses().size() == 1 && !graph.isOutput(value);
}

bool rewriteToFixedPoint(ir::Graph &graph, PassContext &context, std::string_view pass,
                         const std::function<std::optional<std::string>(ir::Node *)> &rule) {
  bool changed = false;
  for (bool fired = true; fired;) {
    fired = false;
    std::vector<ir::Node *> order;
    for (const auto &node : graph.nodes())
      order.push_back(node.get());
    for (ir::Node *node : order) {
      std::optional<std::string> name = rule(node);
      if (!name)
        continue;
      ++context.statistics[std::string(pass) + "." + *name];
      fired = changed = true;
    }
  }
  return changed;
}

ir::Value *skipNoOps(ir::Value *value) {
  while (value->producer() != nullptr && isNoOp(*value->producer()))
    value = value->producer()->operand(0);
  return value;
}

ir::Node *soleProducer(const ir::Graph &graph, ir::Value *value, ir::OpKind op) {
  while (hasSoleUse(graph, value) && value->producer() != nullptr) {
    ir::Node *producer = value->producer();
    if (producer->op() == op)
      return producer;
    if (!isNoOp(*producer))
      return nullptr;
    value = producer->operand(0);
  }
  return nullptr;
}

} // namespace thunderc::opt
