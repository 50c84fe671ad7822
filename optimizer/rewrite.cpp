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

} // namespace thunderc::opt
