// The canonical text printer for graphs. ir/parser.cpp reads this format back; the two must
// change together so that printGraph(parseGraph(printGraph(g))) == printGraph(g), byte for byte.
#include "ir/printer.h"

#include <set>
#include <unordered_map>

#include "ir/status.h"

namespace thunderc::ir {
namespace {

/// The value name used for values the printer cannot name (printNode, foreign operands).
constexpr const char *kUnknownName = "?";

std::string quoted(const std::string &text) { return attrValueStr(AttrValue(text)); }

const char *weightKindKeyword(InputKind kind) {
  switch (kind) {
  case InputKind::Parameter: return "param";
  case InputKind::Buffer: return "buffer";
  case InputKind::Constant: return "constant";
  case InputKind::State: return "state";
  case InputKind::User: return nullptr;
  }
  return nullptr;
}

/// Gives every value of a graph its printed name: its own, or the next number that no value
/// of the graph uses as a name, in print order (inputs, then node results).
class NameTable {
public:
  explicit NameTable(const Graph &graph) {
    std::set<std::string> used;
    forEachValue(graph, [&](const Value *value) {
      if (!value->name().empty())
        used.insert(value->name());
    });
    int64_t counter = 0;
    forEachValue(graph, [&](const Value *value) {
      if (!value->name().empty()) {
        names_[value] = value->name();
        return;
      }
      while (used.count(std::to_string(counter)) != 0)
        ++counter;
      names_[value] = std::to_string(counter++);
    });
  }

  /// "%name"; values outside the graph print as "%?" (a broken graph, still worth printing).
  std::string ref(const Value *value) const {
    auto it = names_.find(value);
    return "%" + (it == names_.end() ? std::string(kUnknownName) : it->second);
  }

private:
  template <typename F> static void forEachValue(const Graph &graph, F visit) {
    for (const auto &input : graph.inputs())
      visit(input.get());
    for (const auto &node : graph.nodes())
      for (int i = 0; i < node->numResults(); ++i)
        visit(node->result(i));
  }

  std::unordered_map<const Value *, std::string> names_;
};

template <typename T, typename F>
std::string joined(const std::vector<T> &items, const char *separator, F format) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? separator : "") + format(items[i]);
  return text;
}

std::string attributesStr(const AttrMap &attrs) {
  if (attrs.empty())
    return "";
  std::string text = " {";
  bool first = true;
  for (const auto &[name, value] : attrs.all()) {
    text += (first ? "" : ", ") + name + "=" + attrValueStr(value);
    first = false;
  }
  return text + "}";
}

/// `%a, %b = op(%x, %y) {k=v} : t1, t2 loc("...")`, with names given by `ref`.
template <typename Ref> std::string nodeStr(const Node &node, Ref ref) {
  TC_CHECK(node.numResults() > 0, "cannot print node '" + std::string(opName(node.op())) +
                                      "' without results");
  std::vector<const Value *> results;
  std::vector<std::string> types;
  for (int i = 0; i < node.numResults(); ++i) {
    results.push_back(node.result(i));
    types.push_back(node.result(i)->type().str());
  }
  std::string text = joined(results, ", ", ref) + " = " + std::string(opName(node.op())) + "(" +
                     joined(node.operands(), ", ", ref) + ")" + attributesStr(node.attrs()) +
                     " : " + joined(types, ", ", [](const std::string &t) { return t; });
  if (!node.source().loc.empty())
    text += " loc(" + quoted(node.source().loc) + ")";
  return text;
}

std::string inputStr(const Value &input, const NameTable &names) {
  std::string text = "    " + names.ref(&input) + ": " + input.type().str();
  if (const char *keyword = weightKindKeyword(input.inputKind()))
    text += " {" + std::string(keyword) + "=" + quoted(input.weightName()) + "}";
  return text;
}

std::string symbolRangeStr(const std::string &name, const SymbolRange &range) {
  std::string max = range.max ? std::to_string(*range.max) : "inf";
  return name + ": [" + std::to_string(range.min) + ", " + max + "]";
}

std::string headerStr(const Graph &graph, const NameTable &names) {
  std::string text = "graph @" + graph.name() + "(";
  if (!graph.inputs().empty()) {
    text += "\n" +
            joined(graph.inputs(), ",\n",
                   [&](const std::unique_ptr<Value> &input) { return inputStr(*input, names); }) +
            "\n";
  }
  text += ") -> (" +
          joined(graph.outputs(), ", ", [](const Value *v) { return v->type().str(); }) + ")";
  if (!graph.symbols().empty()) {
    std::string ranges;
    for (const auto &[name, range] : graph.symbols())
      ranges += (ranges.empty() ? "" : ", ") + symbolRangeStr(name, range);
    text += " symbols(" + ranges + ")";
  }
  return text + " {\n";
}

/// The nodes and the return line of `graph`, each line indented by `indent`; a fusion's body
/// follows its node line as ` body(%a: t, ...) {` ... `}` with its own value names.
std::string nodesStr(const Graph &graph, const std::string &indent) {
  NameTable names(graph);
  auto ref = [&](const Value *value) { return names.ref(value); };
  std::string text;
  for (const auto &node : graph.nodes()) {
    text += indent + nodeStr(*node, ref);
    if (const Graph *body = node->body()) {
      NameTable bodyNames(*body);
      text += " body(" + joined(body->inputs(), ", ", [&](const std::unique_ptr<Value> &input) {
                return bodyNames.ref(input.get()) + ": " + input->type().str();
              });
      text += ") {\n" + nodesStr(*body, indent + "  ") + indent + "}";
    }
    text += "\n";
  }
  text += indent + "return";
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    text += (i == 0 ? " " : ", ") + ref(graph.outputs()[i]);
    if (const std::string *state = graph.stateOf(i))
      text += " {state=" + quoted(*state) + "}";
  }
  return text + "\n";
}

} // namespace

std::string printGraph(const Graph &graph) {
  NameTable names(graph);
  return headerStr(graph, names) + nodesStr(graph, "  ") + "}\n";
}

std::string printNode(const Node &node) {
  return nodeStr(node, [](const Value *value) {
    return "%" + (value->name().empty() ? std::string(kUnknownName) : value->name());
  });
}

} // namespace thunderc::ir
