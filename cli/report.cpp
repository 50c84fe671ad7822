// The Graphviz picture and the compiled view of an optimized graph (cli/report.h).
//
// Both walk the top-level graph in order and classify each node with opt::partitionKind:
//   1. a fusion node is a kernel; its body nodes are the source nodes it replaced, each with
//      the name and Python line of the exported node it came from;
//   2. library calls and views are single nodes; views move no bytes and cost no FLOPs;
//   3. costs are estimated from result and operand types at the symbols' upper bounds (an
//      unbounded symbol makes a number unknown rather than wrong);
//   4. for every kernel and library call, each neighbour in another top-level node is asked
//      opt::whyNotFused, so a reader sees why the kernel count is what it is;
//   5. the memory numbers come from opt::memoryStats (the plan-memory annotations).
// Output is deterministic: graph order, positional ids, sorted maps only.
#include "cli/report.h"

#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/op_attributes.h"
#include "optimizer/fuse.h"

namespace thunderc::cli {
namespace {

using ir::Graph;
using ir::Node;
using ir::OpKind;
using ir::Value;

/// Symbol name -> upper bound; symbols with no upper bound are absent.
using Bounds = std::map<std::string, int64_t>;

Bounds upperBounds(const Graph &graph) {
  Bounds bounds;
  for (const auto &[name, range] : graph.symbols())
    if (range.max)
      bounds[name] = *range.max;
  return bounds;
}

Estimate plus(Estimate a, Estimate b) {
  if (!a || !b)
    return std::nullopt;
  return *a + *b;
}

Estimate times(Estimate a, Estimate b) {
  if (!a || !b)
    return std::nullopt;
  return *a * *b;
}

Estimate dimValue(const ir::Dim &dim, const Bounds &bounds) {
  if (dim.isStatic())
    return dim.value();
  return dim.expr().evaluate(bounds);
}

Estimate numElements(const ir::TensorType &type, const Bounds &bounds) {
  Estimate count = 1;
  for (const ir::Dim &dim : type.shape)
    count = times(count, dimValue(dim, bounds));
  return count;
}

Estimate numBytes(const ir::TensorType &type, const Bounds &bounds) {
  return times(numElements(type, bounds), ir::dtypeSize(type.dtype));
}

/// The dim `index` counted from the end (1 = last) of a value's shape; 1 for a missing dim.
Estimate dimFromEnd(const Value *value, size_t index, const Bounds &bounds) {
  const ir::Shape &shape = value->type().shape;
  if (shape.size() < index)
    return 1;
  return dimValue(shape[shape.size() - index], bounds);
}

Estimate nodeFlops(const Node &node, const Bounds &bounds);

Estimate bodyFlops(const Graph &body, const Bounds &bounds) {
  Estimate total = 0;
  for (const auto &inner : body.nodes())
    total = plus(total, nodeFlops(*inner, bounds));
  return total;
}

/// The FLOP model of cli/report.h's compiledReport comment.
Estimate nodeFlops(const Node &node, const Bounds &bounds) {
  OpKind op = node.op();
  if (op == OpKind::Fusion)
    return node.body() ? bodyFlops(*node.body(), bounds) : Estimate(0);
  if (op == OpKind::AtenCall)
    return std::nullopt;
  if (hasTrait(op, ir::kView))
    return 0;
  Estimate out = numElements(node.result(0)->type(), bounds);
  if (hasTrait(op, ir::kElementwise))
    return out;
  if (hasTrait(op, ir::kReduction) || op == OpKind::Argmax)
    return numElements(node.operand(0)->type(), bounds);
  switch (op) {
  case OpKind::Linear:
  case OpKind::LinearWq:
  case OpKind::Matmul:
  case OpKind::GroupedMatmul:
    return times(times(2, out), dimFromEnd(node.operand(0), 1, bounds));
  case OpKind::Addmm:
    return times(times(2, out), dimFromEnd(node.operand(1), 1, bounds));
  case OpKind::Conv2d:
  case OpKind::Conv2dWq: {
    // weight [O, C/groups, kH, kW]: every output element is a dot product of that length.
    Estimate window = 1;
    for (size_t i = 1; i <= 3; ++i)
      window = times(window, dimFromEnd(node.operand(1), i, bounds));
    return times(times(2, out), window);
  }
  case OpKind::ConvTranspose2d: {
    // weight [C, O/groups, kH, kW]: every input element meets O/groups * kH * kW taps.
    Estimate taps = 1;
    for (size_t i = 1; i <= 3; ++i)
      taps = times(taps, dimFromEnd(node.operand(1), i, bounds));
    return times(times(2, numElements(node.operand(0)->type(), bounds)), taps);
  }
  case OpKind::Attention:
    // q [..., L, D] against k [..., S, D]: Q K^T and P V, 2 FLOPs per multiply-add each.
    return times(times(4, numElements(node.operand(0)->type(), bounds)),
                 dimFromEnd(node.operand(1), 2, bounds));
  case OpKind::Softmax:
  case OpKind::LogSoftmax:
  case OpKind::LayerNorm:
  case OpKind::BatchNorm:
    return times(5, out);
  case OpKind::MaxPool2d:
  case OpKind::AvgPool2d: {
    Estimate window = 1;
    for (int64_t size : ir::attr::kernel(node))
      window = times(window, size);
    return times(out, window);
  }
  case OpKind::AdaptiveAvgPool2d:
    return numElements(node.operand(0)->type(), bounds);
  default:
    return 0; // data movement and constants: concat, tril, embedding, full, ...
  }
}

/// Operands read plus results written; views and host nodes move nothing.
Estimate nodeBytes(const Node &node, opt::PartitionKind partition, const Bounds &bounds) {
  if (partition == opt::PartitionKind::View || partition == opt::PartitionKind::Host)
    return 0;
  Estimate total = 0;
  for (const Value *operand : node.operands())
    total = plus(total, numBytes(operand->type(), bounds));
  for (int i = 0; i < node.numResults(); ++i)
    total = plus(total, numBytes(node.result(i)->type(), bounds));
  return total;
}

/// Printed names of the top-level values, by the printer's rule (ir/printer.h): a value's own
/// name, or the next number no value uses, in print order.
std::unordered_map<const Value *, std::string> valueNames(const Graph &graph) {
  std::vector<const Value *> values;
  for (const auto &input : graph.inputs())
    values.push_back(input.get());
  for (const auto &node : graph.nodes())
    for (int i = 0; i < node->numResults(); ++i)
      values.push_back(node->result(i));
  std::set<std::string> used;
  for (const Value *value : values)
    if (!value->name().empty())
      used.insert(value->name());
  std::unordered_map<const Value *, std::string> names;
  int64_t counter = 0;
  for (const Value *value : values) {
    if (!value->name().empty()) {
      names[value] = "%" + value->name();
      continue;
    }
    while (used.count(std::to_string(counter)) != 0)
      ++counter;
    names[value] = "%" + std::to_string(counter++);
  }
  return names;
}

std::string resultTypes(const Node &node) {
  std::string text;
  for (int i = 0; i < node.numResults(); ++i)
    text += (i == 0 ? "" : ", ") + node.result(i)->type().str();
  return text;
}

/// "%name" of a body node's first result as it is named in the body, or empty.
std::string firstResultName(const Node &node) {
  if (node.numResults() == 0 || node.result(0)->name().empty())
    return "";
  return "%" + node.result(0)->name();
}

/// "zoo.py:57  x = self.fc1(x)"; just the loc when the code is unknown (text IR).
std::string sourceColumn(const std::string &loc, const std::string &code) {
  if (loc.empty())
    return "";
  return code.empty() ? loc : loc + "  " + code;
}

// ---- Graphviz ----

/// Text for a double-quoted Graphviz string: quotes and backslashes escaped (a lone backslash
/// would start an escape such as \N), control characters as spaces; `\n` is added by callers.
std::string dotEscape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += (static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
  }
  return out;
}

/// Long Python lines are cut so that boxes stay readable; the cut is deterministic.
std::string shortened(const std::string &code, size_t limit = 60) {
  if (code.size() <= limit)
    return code;
  return code.substr(0, limit - 3) + "...";
}

/// "header\nresult: type\nloc  code", escaped.
std::string boxLabel(const std::string &header, const std::string &result, const Node &node) {
  std::string label = dotEscape(header) + "\\n" + dotEscape(result);
  const ir::SourceInfo &source = node.source();
  if (!source.loc.empty())
    label += "\\n" + dotEscape(sourceColumn(source.loc, shortened(source.code)));
  return label;
}

std::string boxStyle(opt::PartitionKind partition) {
  switch (partition) {
  case opt::PartitionKind::Library: return "shape=box, style=filled, fillcolor=\"#cfe2f3\"";
  case opt::PartitionKind::View: return "shape=box, style=dashed";
  case opt::PartitionKind::Host: return "shape=box, style=dotted";
  case opt::PartitionKind::Kernel: return "shape=box";
  }
  return "shape=box";
}

/// Emits the digraph. Ids: in<i> graph inputs, n<k> top-level nodes, n<k>_<j> body node j of
/// fusion k, out<i> graph outputs.
class DotWriter {
public:
  explicit DotWriter(const Graph &graph) : graph_(graph), names_(valueNames(graph)) {}

  std::string write() {
    out_ += "digraph \"" + dotEscape(graph_.name()) + "\" {\n";
    out_ += "  rankdir=TB;\n";
    out_ += "  graph [fontname=\"Helvetica\"];\n";
    out_ += "  node [fontname=\"Helvetica\", fontsize=10];\n";
    out_ += "  edge [color=\"#555555\"];\n";
    writeInputs();
    int index = 0;
    int kernelId = 0;
    for (const auto &node : graph_.nodes()) {
      if (node->op() == OpKind::Fusion && node->body())
        writeFusion(*node, index, kernelId++);
      else
        writeNode(*node, index);
      ++index;
    }
    writeOutputs();
    out_ += "}\n";
    return out_;
  }

private:
  void writeInputs() {
    for (int i = 0; i < graph_.numInputs(); ++i) {
      const Value *input = graph_.input(i);
      bool weight = input->inputKind() != ir::InputKind::User;
      // Weights nothing reads (num_batches_tracked) would only clutter the picture.
      if (weight && !input->hasUses() && !graph_.isOutput(input))
        continue;
      std::string id = "in" + std::to_string(i);
      ids_[input] = id;
      std::string title = weight ? input->weightName() : names_.at(input);
      std::string label = dotEscape(title) + "\\n" + dotEscape(input->type().str());
      out_ += "  " + id + " [label=\"" + label + "\", " +
              (weight ? "shape=note, style=filled, fillcolor=\"#f3f3f3\"" : "shape=ellipse") +
              "];\n";
    }
  }

  void writeNode(const Node &node, int index) {
    std::string id = "n" + std::to_string(index);
    opt::PartitionKind partition = opt::partitionKind(node);
    std::string header = std::string(opt::partitionKindName(partition)) + ": " +
                         std::string(ir::opName(node.op()));
    std::string result = node.numResults() == 0 ? "no results"
                                                : names_.at(node.result(0)) + ": " +
                                                      resultTypes(node);
    out_ += "  " + id + " [label=\"" + boxLabel(header, result, node) + "\", " +
            boxStyle(partition) + "];\n";
    for (int i = 0; i < node.numResults(); ++i)
      ids_[node.result(i)] = id;
    writeEdges(node.operands(), id, ids_);
  }

  /// A cluster holding the body; body inputs stand for the fusion's operands, so edges into
  /// the body start at the outer producers.
  void writeFusion(const Node &node, int index, int kernelId) {
    const Graph &body = *node.body();
    std::unordered_map<const Value *, std::string> bodyIds;
    for (int i = 0; i < body.numInputs() && i < node.numOperands(); ++i)
      bodyIds[body.input(i)] = ids_.at(node.operand(i));
    std::string cluster = "cluster_" + std::to_string(kernelId);
    const std::string &kind = ir::attr::kind(node);
    out_ += "  subgraph " + cluster + " {\n";
    out_ += "    label=\"kernel " + std::to_string(kernelId) +
            (kind.empty() ? "" : " (" + dotEscape(kind) + ")") + "\";\n";
    out_ += "    style=\"rounded,filled\"; fillcolor=\"#fdf2e9\"; color=\"#e69138\";\n";
    int position = 0;
    for (const auto &inner : body.nodes()) {
      std::string id = "n" + std::to_string(index) + "_" + std::to_string(position++);
      std::string result = firstResultName(*inner);
      result += (result.empty() ? "" : ": ") + resultTypes(*inner);
      out_ += "    " + id + " [label=\"" +
              boxLabel(std::string(ir::opName(inner->op())), result, *inner) +
              "\", shape=box, style=filled, fillcolor=white];\n";
      for (int i = 0; i < inner->numResults(); ++i)
        bodyIds[inner->result(i)] = id;
    }
    out_ += "  }\n";
    position = 0;
    for (const auto &inner : body.nodes()) {
      std::string id = "n" + std::to_string(index) + "_" + std::to_string(position++);
      writeEdges(inner->operands(), id, bodyIds);
    }
    // A fusion result is written by the body node producing the matching body output.
    for (int i = 0; i < node.numResults() && i < static_cast<int>(body.outputs().size()); ++i)
      ids_[node.result(i)] = bodyIds.at(body.outputs()[static_cast<size_t>(i)]);
  }

  void writeEdges(const std::vector<Value *> &operands, const std::string &to,
                  const std::unordered_map<const Value *, std::string> &ids) {
    std::set<std::string> seen;
    for (const Value *operand : operands) {
      auto it = ids.find(operand);
      if (it == ids.end() || !seen.insert(it->second).second)
        continue;
      out_ += "  " + it->second + " -> " + to + ";\n";
    }
  }

  void writeOutputs() {
    for (size_t i = 0; i < graph_.outputs().size(); ++i) {
      const Value *output = graph_.outputs()[i];
      std::string id = "out" + std::to_string(i);
      out_ += "  " + id + " [label=\"output " + std::to_string(i) + "\\n" +
              dotEscape(output->type().str()) + "\", shape=ellipse, peripheries=2];\n";
      auto it = ids_.find(output);
      if (it != ids_.end())
        out_ += "  " + it->second + " -> " + id + ";\n";
    }
  }

  const Graph &graph_;
  std::unordered_map<const Value *, std::string> names_;
  std::unordered_map<const Value *, std::string> ids_; ///< top-level value -> writing box
  std::string out_;
};

// ---- the compiled view ----

/// The neighbours of `node` in other top-level nodes, in graph order, each with its direction.
std::map<int, bool> neighbours(const Node &node,
                               const std::unordered_map<const Node *, int> &positions) {
  std::map<int, bool> found; // position -> is a producer
  for (const Value *operand : node.operands())
    if (Node *producer = operand->producer())
      found[positions.at(producer)] = true;
  for (int i = 0; i < node.numResults(); ++i)
    for (const ir::Use &use : node.result(i)->uses())
      found.emplace(positions.at(use.user), false);
  return found;
}

/// "1.8M" (powers of 1000) or "1.5 MiB" (powers of 1024); "?" when unknown.
std::string humanized(Estimate value, bool binary) {
  if (!value)
    return "?";
  const char *units[] = {"", "K", "M", "G", "T", "P"};
  double base = binary ? 1024.0 : 1000.0;
  double amount = static_cast<double>(*value);
  int unit = 0;
  while (amount >= base && unit < 5) {
    amount /= base;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof(text), "%lld%s", static_cast<long long>(*value),
                  binary ? " B" : "");
  else
    std::snprintf(text, sizeof(text), "%.1f%s%s%s", amount, binary ? " " : "", units[unit],
                  binary ? "iB" : "");
  return text;
}

nlohmann::json estimateJson(Estimate value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::string ratio(int64_t numerator, int64_t denominator) {
  if (denominator <= 0)
    return "-";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", static_cast<double>(numerator) /
                                                static_cast<double>(denominator));
  return text;
}

/// "1 kernel", "3 kernels".
std::string counted(int64_t count, const std::string &noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

/// The "step:" line of a stateful graph ("" otherwise).
std::string stepText(const CompiledReport &report) {
  if (!report.step)
    return "";
  const StepTraffic &step = *report.step;
  std::string sizes;
  for (const auto &[name, value] : step.symbols)
    sizes += (sizes.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  const int64_t floor = step.weights + step.state;
  return "step (one run at the smallest sizes" + (sizes.empty() ? "" : ": " + sizes) + "): " +
         humanized(step.bytes, true) + " moved; floor " + humanized(floor, true) +
         " (weights " + humanized(step.weights, true) + " + state " +
         humanized(step.state, true) + ", each read once); moved/floor " +
         (step.bytes ? ratio(*step.bytes, floor) : std::string("-")) + "\n";
}

std::string opColumn(const CompiledNode &node) {
  if (node.kernelId < 0)
    return node.op;
  return "kernel " + std::to_string(node.kernelId) +
         (node.kind.empty() ? "" : " (" + node.kind + ")");
}

} // namespace

std::string dotGraph(const ir::Graph &graph) { return DotWriter(graph).write(); }

CompiledReport compiledReport(const ir::Graph &graph) {
  CompiledReport report;
  Bounds bounds = upperBounds(graph);
  std::unordered_map<const Value *, std::string> names = valueNames(graph);
  std::unordered_map<const Node *, int> positions;
  std::vector<const Node *> order;
  for (const auto &node : graph.nodes()) {
    positions[node.get()] = static_cast<int>(order.size());
    order.push_back(node.get());
  }
  report.flops = 0;
  report.bytes = 0;
  int kernelId = 0;
  for (const Node *node : order) {
    CompiledNode entry;
    entry.index = positions.at(node);
    entry.partition = opt::partitionKind(*node);
    entry.value = node->numResults() == 0 ? "" : names.at(node->result(0));
    entry.op = std::string(ir::opName(node->op()));
    entry.type = resultTypes(*node);
    entry.loc = node->source().loc;
    entry.code = node->source().code;
    entry.flops = nodeFlops(*node, bounds);
    entry.bytes = nodeBytes(*node, entry.partition, bounds);
    if (node->op() == OpKind::Fusion && node->body()) {
      entry.kernelId = kernelId++;
      entry.kind = ir::attr::kind(*node);
      for (const auto &inner : node->body()->nodes())
        entry.inside.push_back({inner->name(), firstResultName(*inner),
                                std::string(ir::opName(inner->op())), inner->source().loc,
                                inner->source().code});
    }
    bool computes = entry.partition == opt::PartitionKind::Kernel ||
                    entry.partition == opt::PartitionKind::Library;
    if (computes) {
      for (const auto &[position, producer] : neighbours(*node, positions)) {
        const Node &other = *order[static_cast<size_t>(position)];
        std::string reason = producer ? opt::whyNotFused(other, *node)
                                      : opt::whyNotFused(*node, other);
        entry.notFused.push_back({position, producer, reason});
      }
    }
    switch (entry.partition) {
    case opt::PartitionKind::Kernel: ++report.kernels; break;
    case opt::PartitionKind::Library: ++report.library; break;
    case opt::PartitionKind::View: ++report.views; break;
    case opt::PartitionKind::Host: ++report.host; break;
    }
    report.flops = plus(report.flops, entry.flops);
    report.bytes = plus(report.bytes, entry.bytes);
    report.nodes.push_back(std::move(entry));
  }
  report.memory = opt::memoryStats(graph);
  bool stateful = false;
  for (size_t i = 0; i < graph.outputs().size(); ++i)
    stateful = stateful || graph.stateOf(i) != nullptr;
  if (stateful) {
    StepTraffic step;
    for (const auto &[name, range] : graph.symbols())
      step.symbols[name] = range.min;
    step.bytes = 0;
    for (const Node *node : order)
      step.bytes = plus(step.bytes, nodeBytes(*node, opt::partitionKind(*node), step.symbols));
    for (const auto &input : graph.inputs()) {
      if (input->inputKind() == ir::InputKind::User)
        continue;
      Estimate bytes = numBytes(input->type(), step.symbols);
      (input->inputKind() == ir::InputKind::State ? step.state : step.weights) +=
          bytes ? *bytes : 0;
    }
    report.step = step;
  }
  return report;
}

std::string compiledText(const CompiledReport &report) {
  std::string classes = counted(report.kernels, "kernel") + ", " +
                        counted(report.library, "library call") + ", " +
                        counted(report.views, "view") + ", " + std::to_string(report.host) +
                        " host";
  std::string out = "compiled: " + counted(static_cast<int64_t>(report.nodes.size()),
                                           "top-level node") + ": " + classes + "\n";
  char line[1024];
  std::snprintf(line, sizeof(line), "%-5s %-8s %-24s %-26s %-24s %9s %10s  %s\n", "#", "class",
                "value", "op", "type", "FLOPs", "bytes", "source");
  out += line;
  for (const CompiledNode &node : report.nodes) {
    std::snprintf(line, sizeof(line), "%-5d %-8s %-24s %-26s %-24s %9s %10s  %s\n", node.index,
                  std::string(opt::partitionKindName(node.partition)).c_str(),
                  node.value.c_str(), opColumn(node).c_str(), node.type.c_str(),
                  humanized(node.flops, false).c_str(), humanized(node.bytes, true).c_str(),
                  sourceColumn(node.loc, node.code).c_str());
    out += line;
    for (const SourceNode &inner : node.inside) {
      const std::string &label = !inner.name.empty() ? inner.name : inner.value;
      std::snprintf(line, sizeof(line), "        | %-24s %-14s %s\n",
                    label.empty() ? "-" : label.c_str(), inner.op.c_str(),
                    sourceColumn(inner.loc, inner.code).c_str());
      out += line;
    }
    for (const Neighbour &neighbour : node.notFused) {
      const CompiledNode &other = report.nodes[static_cast<size_t>(neighbour.index)];
      out += "        not fused with " + std::string(neighbour.producer ? "producer" : "consumer") +
             " #" + std::to_string(other.index) + " " + other.value + " (" + opColumn(other) +
             "): " + (neighbour.reason.empty() ? "(could fuse)" : neighbour.reason) + "\n";
    }
  }
  out += "totals: " + classes + "; " + humanized(report.flops, false) + " FLOPs; " +
         humanized(report.bytes, true) + " moved\n";
  const opt::MemoryStats &memory = report.memory;
  if (!memory.planned) {
    out += stepText(report);
    out += "memory: not planned (no plan-memory pass ran, or a size needs an unbounded "
           "symbol)\n";
    return out;
  }
  out += stepText(report);
  out += "memory: arena " + humanized(memory.arenaBytes, true) + "; sum of intermediates " +
         humanized(memory.sumBytes, true) + " (arena/sum " +
         ratio(memory.arenaBytes, memory.sumBytes) + "); max-live lower bound " +
         humanized(memory.lowerBound, true) + " (arena/lower bound " +
         ratio(memory.arenaBytes, memory.lowerBound) + ")\n";
  return out;
}

nlohmann::json compiledJson(const CompiledReport &report) {
  using nlohmann::json;
  json nodes = json::array();
  for (const CompiledNode &node : report.nodes) {
    json entry{{"index", node.index},
               {"class", std::string(opt::partitionKindName(node.partition))},
               {"value", node.value},
               {"op", node.op},
               {"type", node.type},
               {"loc", node.loc},
               {"code", node.code},
               {"flops", estimateJson(node.flops)},
               {"bytes", estimateJson(node.bytes)}};
    if (node.kernelId >= 0) {
      entry["kernel"] = node.kernelId;
      entry["kind"] = node.kind;
      entry["inside"] = json::array();
      for (const SourceNode &inner : node.inside)
        entry["inside"].push_back({{"name", inner.name},
                                   {"value", inner.value},
                                   {"op", inner.op},
                                   {"loc", inner.loc},
                                   {"code", inner.code}});
    }
    if (node.partition == opt::PartitionKind::Kernel ||
        node.partition == opt::PartitionKind::Library) {
      entry["not_fused"] = json::array();
      for (const Neighbour &neighbour : node.notFused) {
        const CompiledNode &other = report.nodes[static_cast<size_t>(neighbour.index)];
        entry["not_fused"].push_back({{"node", other.index},
                                      {"value", other.value},
                                      {"op", other.op},
                                      {"direction", neighbour.producer ? "producer" : "consumer"},
                                      {"reason", neighbour.reason}});
      }
    }
    nodes.push_back(std::move(entry));
  }
  json totals{{"nodes", report.nodes.size()},
              {"kernels", report.kernels},
              {"library", report.library},
              {"views", report.views},
              {"host", report.host},
              {"flops", estimateJson(report.flops)},
              {"bytes", estimateJson(report.bytes)}};
  const opt::MemoryStats &memory = report.memory;
  auto share = [](int64_t numerator, int64_t denominator) -> json {
    if (denominator <= 0)
      return nullptr;
    return static_cast<double>(numerator) / static_cast<double>(denominator);
  };
  json memoryJson{{"planned", memory.planned},
                  {"arena_bytes", memory.arenaBytes},
                  {"sum_bytes", memory.sumBytes},
                  {"lower_bound_bytes", memory.lowerBound},
                  {"arena_over_sum", memory.planned ? share(memory.arenaBytes, memory.sumBytes)
                                                    : json(nullptr)},
                  {"arena_over_lower_bound",
                   memory.planned ? share(memory.arenaBytes, memory.lowerBound) : json(nullptr)}};
  json result{{"nodes", std::move(nodes)}, {"totals", std::move(totals)}, {"memory", memoryJson}};
  if (report.step)
    result["step"] = {{"symbols", report.step->symbols},
                      {"bytes", estimateJson(report.step->bytes)},
                      {"weights_bytes", report.step->weights},
                      {"state_bytes", report.step->state}};
  return result;
}

} // namespace thunderc::cli
