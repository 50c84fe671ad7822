// ExportedProgram JSON -> ir::Graph. The algorithm:
//   1. open the archive and parse models/<name>.json; check the schema version;
//   2. rename the exporter's symbols (s77, s27, ...) to s0, s1, ... in order of first use by
//      the user inputs, and record their ranges from range_constraints;
//   3. create graph inputs from the signature (weights first, as exported), checking each
//      weight's archive record against the placeholder's metadata;
//   4. import nodes in order: assertions are dropped, SymInt arithmetic becomes symbolic
//      expressions, ATen ops go through the import table, anything else stays as aten_call;
//   5. set the outputs from the signature's user outputs.
#include "frontend/importer.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "frontend/json_util.h"
#include "frontend/node_importer.h"
#include "frontend/sympy_expr.h"

namespace thunderc::frontend {
namespace {

constexpr int64_t kSupportedSchemaMajor = 8;
constexpr std::string_view kSetGradEnabled = "torch.ops.higher_order.wrap_with_set_grad_enabled";

// "File "/x/zoo.py", line 57, in forward\n    y = self.fc(x)" -> the last frame outside
// torch itself.
ir::SourceInfo sourceFromStackTrace(const std::string &trace) {
  ir::SourceInfo best;
  size_t pos = 0;
  while ((pos = trace.find("File \"", pos)) != std::string::npos) {
    size_t fileStart = pos + 6;
    size_t fileEnd = trace.find('"', fileStart);
    if (fileEnd == std::string::npos)
      break;
    std::string file = trace.substr(fileStart, fileEnd - fileStart);
    size_t lineStart = trace.find("line ", fileEnd);
    int line = lineStart == std::string::npos ? 0 : std::atoi(trace.c_str() + lineStart + 5);
    size_t codeStart = trace.find('\n', fileEnd);
    std::string code;
    if (codeStart != std::string::npos) {
      size_t codeEnd = trace.find('\n', codeStart + 1);
      code = trace.substr(codeStart + 1, codeEnd == std::string::npos ? std::string::npos
                                                                      : codeEnd - codeStart - 1);
      code.erase(0, code.find_first_not_of(' '));
    }
    pos = fileEnd;
    bool insideTorch = file.find("/torch/") != std::string::npos ||
                       file.rfind("torch/", 0) == 0;
    if (insideTorch)
      continue;
    best.file = file;
    best.code = code;
    best.loc = std::filesystem::path(file).filename().string() + ":" + std::to_string(line);
  }
  return best;
}

std::string shortTarget(const std::string &target) {
  constexpr std::string_view kPrefix = "torch.ops.";
  return target.rfind(kPrefix, 0) == 0 ? target.substr(kPrefix.size()) : target;
}

// ATen ops that compute a SymInt: they become symbolic expressions, not IR nodes. The layout
// queries among them (storage offset, contiguity) leave no runtime work either: the exporter
// resolves a static answer into the nodes that read it (the query's output is then None) and
// records a symbolic offset in sym_int_values; a SymBool no expression holds is refused.
constexpr std::string_view kIsContiguous = "torch.ops.aten.sym_is_contiguous.default";
constexpr std::string_view kSymIntAtenTargets[] = {
    "torch.ops.aten.sym_size.int", "torch.ops.aten.sym_numel.default",
    "torch.ops.aten.sym_stride.int", "torch.ops.aten.sym_storage_offset.default", kIsContiguous};

// Higher-order ops whose subgraph is imported inline (see inlineSubgraph).
constexpr std::string_view kInlinedHigherOrderTargets[] = {kSetGradEnabled};

bool isSymIntTarget(const std::string &target) {
  return target.rfind("_operator.", 0) == 0 || target.rfind("math.", 0) == 0 ||
         std::find(std::begin(kSymIntAtenTargets), std::end(kSymIntAtenTargets), target) !=
             std::end(kSymIntAtenTargets) ||
         target.rfind("torch.sym_", 0) == 0;
}

// Calls `visit` with every string under a "name" key in `value` (tensor references inside
// serialized arguments and output specs), in document order.
void forEachName(const Json &value, const std::function<void(const std::string &)> &visit) {
  if (value.is_array()) {
    for (const Json &item : value)
      forEachName(item, visit);
    return;
  }
  if (!value.is_object())
    return;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (it.key() == "name" && it.value().is_string())
      visit(it.value().get<std::string>());
    else
      forEachName(it.value(), visit);
  }
}

class ProgramImporter {
public:
  ProgramImporter(ImportedModel &model) : model_(model) {}

  Status run(const Json &program) {
    TC_TRY(checkVersion(program));
    TC_ASSIGN_OR_RETURN(const Json *module, jsonObject(program, "graph_module"));
    TC_ASSIGN_OR_RETURN(const Json *graph, jsonObject(*module, "graph"));
    TC_ASSIGN_OR_RETURN(const Json *signature, jsonObject(*module, "signature"));
    TC_ASSIGN_OR_RETURN(state_.tensorValues, jsonObject(*graph, "tensor_values"));
    if (const Json *symInts = jsonFind(*graph, "sym_int_values"); symInts && symInts->is_object())
      state_.symIntValues = symInts;
    model_.graph = std::make_unique<ir::Graph>("model");
    state_.graph = model_.graph.get();
    TC_TRY(collectReferences(*graph, *signature));
    TC_TRY(declareSymbols(program, *signature));
    TC_TRY(importInputs(*signature));
    TC_ASSIGN_OR_RETURN(const Json *nodes, jsonArray(*graph, "nodes"));
    for (size_t i = 0; i < nodes->size(); ++i)
      TC_TRY(importNode((*nodes)[i], i));
    return importOutputs(*signature);
  }

private:
  Status checkVersion(const Json &program) {
    model_.torchVersion = jsonStringOr(program, "torch_version", model_.torchVersion);
    if (const Json *verifiers = jsonFind(program, "verifiers");
        verifiers && verifiers->is_array() && !verifiers->empty() && (*verifiers)[0].is_string())
      model_.irLevel = (*verifiers)[0].get<std::string>();
    TC_ASSIGN_OR_RETURN(const Json *version, jsonObject(program, "schema_version"));
    TC_ASSIGN_OR_RETURN(int64_t major, jsonInt(*version, "major"));
    if (major != kSupportedSchemaMajor)
      return unsupported("export schema version " + std::to_string(major) +
                         " (thunderc reads schema 8, written by torch 2.9 to 2.14)");
    return Status::success();
  }

  // Every tensor name that a node argument or a user output reads.
  Status collectReferences(const Json &graph, const Json &signature) {
    auto reference = [&](const std::string &name) { state_.referencedNames.insert(name); };
    TC_ASSIGN_OR_RETURN(const Json *nodes, jsonArray(graph, "nodes"));
    for (const Json &node : *nodes)
      if (const Json *inputs = jsonFind(node, "inputs"))
        forEachName(*inputs, reference);
    if (const Json *outputSpecs = jsonFind(signature, "output_specs"))
      forEachName(*outputSpecs, reference);
    return Status::success();
  }

  // Symbols are renamed s0, s1, ... in order of first appearance in the user inputs' sizes
  // (then any others, in range_constraints order), so names are stable across exports.
  Status declareSymbols(const Json &program, const Json &signature) {
    TC_ASSIGN_OR_RETURN(const Json *inputSpecs, jsonArray(signature, "input_specs"));
    std::vector<std::string> order;
    auto addSymbols = [&](const std::string &srepr) {
      for (const std::string &symbol : sympySymbols(srepr))
        if (std::find(order.begin(), order.end(), symbol) == order.end())
          order.push_back(symbol);
    };
    // Only a first pass for naming: malformed specs are reported by importInputs.
    for (const Json &spec : *inputSpecs) {
      const Json *userInput = jsonFind(spec, "user_input");
      const Json *arg = userInput ? jsonFind(*userInput, "arg") : nullptr;
      const Json *tensor = arg ? jsonFind(*arg, "as_tensor") : nullptr;
      if (!tensor)
        continue;
      const Json *meta = jsonFind(*state_.tensorValues, jsonStringOr(*tensor, "name").c_str());
      const Json *sizes = meta ? jsonFind(*meta, "sizes") : nullptr;
      if (!sizes || !sizes->is_array())
        continue;
      for (const Json &size : *sizes)
        if (const Json *expr = jsonFind(size, "as_expr"))
          addSymbols(jsonStringOr(*expr, "expr_str"));
    }
    const Json *constraints = jsonFind(program, "range_constraints");
    if (constraints && !constraints->is_object())
      return invalidInput("field 'range_constraints' is not an object");
    if (constraints)
      for (auto it = constraints->begin(); it != constraints->end(); ++it)
        if (std::find(order.begin(), order.end(), it.key()) == order.end())
          order.push_back(it.key());
    for (size_t i = 0; i < order.size(); ++i) {
      std::string name = "s" + std::to_string(i);
      state_.symbolRenames[order[i]] = name;
      ir::SymbolRange range;
      if (const Json *bounds = constraints ? jsonFind(*constraints, order[i].c_str()) : nullptr) {
        const Json *minVal = jsonFind(*bounds, "min_val");
        const Json *maxVal = jsonFind(*bounds, "max_val");
        if (minVal && minVal->is_number_integer())
          range.min = minVal->get<int64_t>();
        if (maxVal && maxVal->is_number_integer())
          range.max = maxVal->get<int64_t>();
      }
      if (range.max && *range.max < range.min)
        return invalidInput("range_constraints['" + order[i] + "']: empty range");
      model_.graph->symbols()[name] = range;
    }
    return Status::success();
  }

  Expected<ir::TensorType> placeholderType(const std::string &name) {
    const Json *meta = jsonFind(*state_.tensorValues, name.c_str());
    if (!meta)
      return invalidInput("no tensor_values entry for input '" + name + "'");
    Expected<ir::TensorType> type = tensorTypeFromMeta(*meta, state_);
    if (!type.ok())
      return std::move(type).error().withContext("tensor_values['" + name + "']");
    return type;
  }

  // A weight's archive record must agree with the placeholder's metadata.
  Status checkWeight(const std::string &fqn, const ir::TensorType &type) {
    Expected<ir::TensorView> view = model_.archive->tensor(fqn);
    if (!view.ok())
      return std::move(view).error();
    bool sameShape = view->shape.size() == type.shape.size();
    for (size_t i = 0; sameShape && i < view->shape.size(); ++i)
      sameShape = type.shape[i] == ir::Dim(view->shape[i]);
    if (view->dtype == type.dtype && sameShape)
      return Status::success();
    ir::TensorType stored{view->dtype, {}};
    for (int64_t size : view->shape)
      stored.shape.push_back(ir::Dim(size));
    return invalidInput("weight '" + fqn + "' is stored as " + stored.str() +
                        ", but the graph expects " + type.str());
  }

  Status importInputs(const Json &signature) {
    TC_ASSIGN_OR_RETURN(const Json *inputSpecs, jsonArray(signature, "input_specs"));
    for (const Json &spec : *inputSpecs) {
      TC_ASSIGN_OR_RETURN(JsonUnion input, jsonUnion(spec, "input spec"));
      const Json &payload = *input.payload;
      if (input.kind == "constant_input")
        continue; // a specialized non-tensor user input; it has no placeholder to feed
      ir::InputKind kind = ir::InputKind::User;
      const char *fqnField = nullptr;
      if (input.kind == "parameter") {
        kind = ir::InputKind::Parameter;
        fqnField = "parameter_name";
      } else if (input.kind == "buffer") {
        kind = ir::InputKind::Buffer;
        fqnField = "buffer_name";
      } else if (input.kind == "tensor_constant") {
        kind = ir::InputKind::Constant;
        fqnField = "tensor_constant_name";
      } else if (input.kind != "user_input") {
        return unsupported("input of kind '" + input.kind + "'");
      }
      TC_ASSIGN_OR_RETURN(const Json *arg, jsonObject(payload, "arg"));
      const Json *tensorArg = arg;
      if (kind == ir::InputKind::User) {
        TC_ASSIGN_OR_RETURN(JsonUnion userArg, jsonUnion(*arg, "user input"));
        if (userArg.kind != "as_tensor")
          return unsupported("non-tensor user input (" + userArg.kind + ")");
        tensorArg = userArg.payload;
      }
      TC_ASSIGN_OR_RETURN(std::string name, jsonString(*tensorArg, "name"));
      TC_ASSIGN_OR_RETURN(ir::TensorType type, placeholderType(name));
      std::string fqn;
      if (fqnField) {
        TC_ASSIGN_OR_RETURN(fqn, jsonString(payload, fqnField));
        TC_TRY(checkWeight(fqn, type));
      }
      if (state_.values.count(name))
        return invalidInput("input '" + name + "' is defined twice");
      state_.values[name] = model_.graph->addInput(name, std::move(type), kind, fqn);
    }
    return Status::success();
  }

  Status importOutputs(const Json &signature) {
    TC_ASSIGN_OR_RETURN(const Json *outputSpecs, jsonArray(signature, "output_specs"));
    std::vector<ir::Value *> outputs;
    for (const Json &spec : *outputSpecs) {
      TC_ASSIGN_OR_RETURN(JsonUnion output, jsonUnion(spec, "output spec"));
      if (output.kind == "buffer_mutation") {
        TC_TRY(importBufferMutation(*output.payload));
        continue;
      }
      if (output.kind == "parameter_mutation")
        return unsupported("the program updates a parameter in place (parameter_mutation); "
                           "only buffers can be model state — export the model in eval mode");
      if (output.kind == "user_input_mutation")
        return unsupported("the program writes into its user input (user_input_mutation): a "
                           "compiled model does not write into the caller's tensors (return "
                           "the updated tensor instead)");
      if (output.kind != "user_output")
        return unsupported("output of kind '" + output.kind + "'");
      TC_ASSIGN_OR_RETURN(const Json *arg, jsonObject(*output.payload, "arg"));
      TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*arg, "user output"));
      if (value.kind != "as_tensor")
        return unsupported("non-tensor model output (" + value.kind + ")");
      TC_ASSIGN_OR_RETURN(std::string name, jsonString(*value.payload, "name"));
      auto it = state_.values.find(name);
      if (it == state_.values.end())
        return invalidInput("output '" + name + "' is not defined by any node");
      outputs.push_back(it->second);
    }
    model_.graph->setOutputs(std::move(outputs));
    // The state outputs: each updated buffer's final value (in-place ops of the training IR,
    // buffer_mutation outputs of core ATen).
    for (const auto &[input, value] : state_.stateUpdates)
      if (value != input)
        model_.graph->addStateOutput(value, input->weightName());
    return Status::success();
  }

  // A core-ATen buffer_mutation output: `arg` is the buffer's new value, so the buffer is
  // program state (ir::InputKind::State) and that value its state output.
  Status importBufferMutation(const Json &payload) {
    TC_ASSIGN_OR_RETURN(const Json *arg, jsonObject(payload, "arg"));
    TC_ASSIGN_OR_RETURN(std::string name, jsonString(*arg, "name"));
    TC_ASSIGN_OR_RETURN(std::string buffer, jsonString(payload, "buffer_name"));
    auto it = state_.values.find(name);
    if (it == state_.values.end())
      return invalidInput("buffer_mutation of '" + buffer + "': '" + name +
                          "' is not defined by any node");
    for (const auto &input : model_.graph->inputs()) {
      if (input->isGraphInput() && input->inputKind() != ir::InputKind::User &&
          input->weightName() == buffer) {
        if (input->inputKind() == ir::InputKind::Parameter)
          return unsupported("buffer_mutation of the parameter '" + buffer + "'");
        if (!(input->type() == it->second->type()))
          return invalidInput("buffer_mutation of '" + buffer + "': the new value is " +
                              it->second->type().str() + " but the buffer is " +
                              input->type().str());
        model_.graph->setInputKind(input.get(), ir::InputKind::State);
        for (auto &update : state_.stateUpdates)
          if (update.first == input.get())
            return invalidInput("buffer '" + buffer + "' is mutated twice");
        state_.stateUpdates.emplace_back(input.get(), it->second);
        return Status::success();
      }
    }
    return invalidInput("buffer_mutation of '" + buffer + "': no buffer input has that name");
  }

  // SymInt-producing nodes become expressions: sym_int_values has them when the exporter
  // could express them; otherwise they are computed from the node.
  Status importSymIntNode(const Json &node, const std::string &name) {
    TC_ASSIGN_OR_RETURN(const Json *outputs, jsonArray(node, "outputs"));
    for (const Json &output : *outputs) {
      const Json *symBool = jsonFind(output, "as_sym_bool");
      if (symBool && jsonStringOr(node, "target") == kIsContiguous)
        return unsupported("symbolic contiguity '" + jsonStringOr(*symBool, "as_name") +
                           "' of node '" + name + "': its value is only known at run time");
      const Json *symInt = jsonFind(output, "as_sym_int");
      if (!symInt)
        continue;
      std::string symName = jsonStringOr(*symInt, "as_name");
      const Json *value =
          state_.symIntValues ? jsonFind(*state_.symIntValues, symName.c_str()) : nullptr;
      if (value) {
        Expected<ir::TensorType> probe = tensorTypeFromMeta(
            Json{{"dtype", 5}, {"sizes", Json::array({*value})}}, state_);
        if (!probe.ok())
          return std::move(probe).error().withContext("sym_int_values['" + symName + "']");
        state_.symInts[symName] = probe->shape[0].asExpr();
        continue;
      }
      return unsupported("symbolic value '" + symName + "' of node '" + name +
                         "' has no expression in sym_int_values");
    }
    return Status::success();
  }

  std::string nodeName(const Json &node, size_t index) {
    if (const Json *nameField = jsonFind(node, "name"); nameField && nameField->is_string())
      return nameField->get<std::string>();
    const Json *outputs = jsonFind(node, "outputs");
    if (outputs && outputs->is_array() && !outputs->empty())
      if (const Json *tensor = jsonFind((*outputs)[0], "as_tensor"))
        if (std::string name = jsonStringOr(*tensor, "name"); !name.empty())
          return name;
    return "node_" + std::to_string(index);
  }

  Status importNode(const Json &node, size_t index) {
    std::string name = nodeName(node, index);
    Expected<std::string> target = jsonString(node, "target");
    if (!target.ok())
      return std::move(target).error().withContext("node '" + name + "'");
    std::string context = "node '" + name + "' (" + shortTarget(*target) + ")";
    ir::SourceInfo source;
    if (const Json *metadata = jsonFind(node, "metadata"))
      source = sourceFromStackTrace(jsonStringOr(*metadata, "stack_trace"));
    source.target = shortTarget(*target);
    ImportedNodeRecord record{name, source.target, "compiled", {}, source};

    if (isDroppedAssertion(*target)) {
      record.status = "dropped";
      model_.nodes.push_back(record);
      return Status::success();
    }
    if (std::find(std::begin(kInlinedHigherOrderTargets), std::end(kInlinedHigherOrderTargets),
                  *target) != std::end(kInlinedHigherOrderTargets)) {
      record.status = "inlined";
      model_.nodes.push_back(record);
      TC_TRY_CONTEXT(inlineSubgraph(node), context);
      return Status::success();
    }
    if (isSymIntTarget(*target)) {
      record.status = "shape";
      model_.nodes.push_back(record);
      TC_TRY_CONTEXT(importSymIntNode(node, name), context);
      return Status::success();
    }
    size_t nodesBefore = static_cast<size_t>(model_.graph->numNodes());
    Status status = importMapped(node, *target, name, source);
    if (!status.ok() && status.error().kind() != ErrorKind::Unsupported)
      return std::move(status).error().withContext(context);
    if (!status.ok()) {
      eraseNodesAfter(nodesBefore);
      record.status = "unsupported";
      model_.unsupported.push_back({name, source.target, status.error().message(), source});
      TC_TRY_CONTEXT(keepAsAtenCall(node, name, source), context);
    }
    auto it = std::next(model_.graph->nodes().begin(), static_cast<long>(nodesBefore));
    for (; it != model_.graph->nodes().end(); ++it)
      record.irOps.emplace_back(ir::opName((*it)->op()));
    model_.nodes.push_back(record);
    return Status::success();
  }

  // A higher-order op whose subgraph runs as if inline: `wrap_with_set_grad_enabled(enabled,
  // subgraph, *tensors)` only switches autograd, which inference does not have. The subgraph's
  // inputs are bound to the node's tensor arguments, its nodes imported in order (with its own
  // tensor_values), and its outputs become the node's outputs.
  Status inlineSubgraph(const Json &node) {
    TC_ASSIGN_OR_RETURN(const Json *inputs, jsonArray(node, "inputs"));
    const Json *subgraph = nullptr;
    std::vector<std::string> arguments;
    for (const Json &input : *inputs) {
      TC_ASSIGN_OR_RETURN(const Json *arg, jsonField(input, "arg"));
      TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*arg, "argument"));
      if (value.kind == "as_graph") {
        if (subgraph != nullptr)
          return invalidInput("more than one subgraph argument");
        TC_ASSIGN_OR_RETURN(subgraph, jsonObject(*value.payload, "graph"));
      } else if (value.kind == "as_tensor") {
        TC_ASSIGN_OR_RETURN(std::string name, jsonString(*value.payload, "name"));
        arguments.push_back(name);
      }
    }
    if (subgraph == nullptr)
      return invalidInput("no subgraph argument (as_graph)");
    TC_ASSIGN_OR_RETURN(const Json *subInputs, jsonArray(*subgraph, "inputs"));
    if (subInputs->size() != arguments.size())
      return invalidInput("the subgraph takes " + std::to_string(subInputs->size()) +
                          " input(s), the node passes " + std::to_string(arguments.size()));
    for (size_t i = 0; i < arguments.size(); ++i) {
      auto outer = state_.values.find(arguments[i]);
      if (outer == state_.values.end())
        return invalidInput("argument '" + arguments[i] + "' is not defined before the node");
      TC_ASSIGN_OR_RETURN(JsonUnion input, jsonUnion((*subInputs)[i], "subgraph input"));
      if (input.kind != "as_tensor")
        return unsupported("a subgraph input of kind '" + input.kind + "'");
      TC_ASSIGN_OR_RETURN(std::string name, jsonString(*input.payload, "name"));
      state_.values[name] = outer->second;
    }
    // The subgraph's nodes read their metadata from its own tables.
    const Json *outerTensors = state_.tensorValues;
    const Json *outerSymInts = state_.symIntValues;
    TC_ASSIGN_OR_RETURN(state_.tensorValues, jsonObject(*subgraph, "tensor_values"));
    if (const Json *symInts = jsonFind(*subgraph, "sym_int_values"); symInts && symInts->is_object())
      state_.symIntValues = symInts;
    Status imported = importSubgraphNodes(*subgraph);
    state_.tensorValues = outerTensors;
    state_.symIntValues = outerSymInts;
    TC_TRY(imported);
    TC_ASSIGN_OR_RETURN(const Json *subOutputs, jsonArray(*subgraph, "outputs"));
    TC_ASSIGN_OR_RETURN(const Json *outputs, jsonArray(node, "outputs"));
    std::vector<std::string> names;
    for (const Json &output : *outputs) {
      TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(output, "node output"));
      if (value.kind == "as_tensor") {
        TC_ASSIGN_OR_RETURN(std::string name, jsonString(*value.payload, "name"));
        names.push_back(name);
      } else if (value.kind == "as_tensors" && value.payload->is_array()) {
        for (const Json &item : *value.payload) {
          TC_ASSIGN_OR_RETURN(std::string name, jsonString(item, "name"));
          names.push_back(name);
        }
      } else {
        return unsupported("a subgraph output of kind '" + value.kind + "'");
      }
    }
    if (names.size() != subOutputs->size())
      return invalidInput("the subgraph returns " + std::to_string(subOutputs->size()) +
                          " value(s), the node has " + std::to_string(names.size()));
    for (size_t i = 0; i < names.size(); ++i) {
      TC_ASSIGN_OR_RETURN(JsonUnion output, jsonUnion((*subOutputs)[i], "subgraph output"));
      if (output.kind != "as_tensor")
        return unsupported("a subgraph output of kind '" + output.kind + "'");
      TC_ASSIGN_OR_RETURN(std::string inner, jsonString(*output.payload, "name"));
      auto found = state_.values.find(inner);
      if (found == state_.values.end())
        return invalidInput("subgraph output '" + inner + "' is not defined by any node");
      state_.values[names[i]] = found->second;
    }
    return Status::success();
  }

  Status importSubgraphNodes(const Json &subgraph) {
    TC_ASSIGN_OR_RETURN(const Json *nodes, jsonArray(subgraph, "nodes"));
    for (size_t i = 0; i < nodes->size(); ++i)
      TC_TRY(importNode((*nodes)[i], i));
    return Status::success();
  }

  Status importMapped(const Json &node, const std::string &target, const std::string &name,
                      const ir::SourceInfo &source) {
    const OpSchema *schema = findOpSchema(target);
    ImportFunction function = findImportFunction(target);
    if (schema == nullptr || function == nullptr)
      return unsupported("no thunderc lowering for " + shortTarget(target));
    NodeImport import(state_, node, *schema, name, source);
    TC_TRY(import.matchArguments());
    return function(import);
  }

  void eraseNodesAfter(size_t count) {
    while (static_cast<size_t>(model_.graph->numNodes()) > count) {
      ir::Node *last = model_.graph->nodes().back().get();
      for (int i = 0; i < last->numResults(); ++i)
        for (auto it = state_.values.begin(); it != state_.values.end();)
          it = it->second == last->result(i) ? state_.values.erase(it) : std::next(it);
      model_.graph->eraseNode(last);
    }
  }

  // Keeps an op thunderc cannot compile: its tensor arguments as operands, its tensor
  // outputs as results, so the rest of the graph still imports and reports can list it.
  Status keepAsAtenCall(const Json &node, const std::string &name,
                        const ir::SourceInfo &source) {
    std::vector<ir::Value *> operands;
    if (const Json *inputs = jsonFind(node, "inputs"))
      forEachName(*inputs, [&](const std::string &name) {
        auto found = state_.values.find(name);
        if (found != state_.values.end())
          operands.push_back(found->second);
      });
    std::vector<std::string> names;
    std::vector<ir::TensorType> types;
    TC_ASSIGN_OR_RETURN(const Json *outputs, jsonArray(node, "outputs"));
    for (const Json &output : *outputs) {
      std::vector<const Json *> tensors;
      if (const Json *tensor = jsonFind(output, "as_tensor"))
        tensors.push_back(tensor);
      if (const Json *list = jsonFind(output, "as_tensors"); list && list->is_array())
        for (const Json &item : *list)
          tensors.push_back(&item);
      for (const Json *tensor : tensors) {
        TC_ASSIGN_OR_RETURN(std::string tensorName, jsonString(*tensor, "name"));
        TC_ASSIGN_OR_RETURN(ir::TensorType type, placeholderType(tensorName));
        names.push_back(tensorName);
        types.push_back(std::move(type));
      }
    }
    if (types.empty())
      return Status::success(); // nothing to keep: no later node can read it
    ir::AttrMap attrs;
    attrs.set("target", source.target);
    ir::Node *call =
        model_.graph->appendNode(ir::OpKind::AtenCall, operands, types, std::move(attrs));
    call->setName(name);
    call->source() = source;
    for (size_t i = 0; i < names.size(); ++i) {
      call->result(static_cast<int>(i))->setName(names[i]);
      state_.values[names[i]] = call->result(static_cast<int>(i));
    }
    return Status::success();
  }

  ImportedModel &model_;
  ImportState state_;
};

} // namespace

std::vector<std::string> supportedTargets() {
  std::set<std::string> targets;
  for (const std::string &target : importTableTargets())
    if (isDroppedAssertion(target) || findOpSchema(target) != nullptr)
      targets.insert(target);
  for (std::string_view target : kSymIntAtenTargets)
    targets.insert(shortTarget(std::string(target)));
  for (std::string_view target : kInlinedHigherOrderTargets)
    targets.insert(shortTarget(std::string(target)));
  return {targets.begin(), targets.end()};
}

Expected<ImportedModel> importPt2(const std::string &path) {
  ImportedModel model;
  TC_ASSIGN_OR_RETURN(Pt2Archive archive, Pt2Archive::open(path));
  model.archive = std::make_unique<Pt2Archive>(std::move(archive));
  const std::string &member = model.archive->modelMember();
  Expected<Json> program = parseJson(model.archive->modelJson());
  if (!program.ok())
    return std::move(program).error().withContext(member);
  ProgramImporter importer(model);
  // nlohmann throws type_error on a wrong-typed field we did not check by hand; treat it as
  // malformed input rather than crash.
  try {
    Status status = importer.run(*program);
    if (!status.ok())
      return std::move(status).error().withContext(member);
  } catch (const Json::exception &e) {
    return invalidInput(std::string("malformed program JSON: ") + e.what()).withContext(member);
  }
  return model;
}

} // namespace thunderc::frontend
