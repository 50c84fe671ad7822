// ExportedProgram JSON -> ir::Graph. The algorithm:
//   1. open the archive and parse models/<name>.json; check the schema version;
//   2. rename the exporter's symbols (s77, s27, ...) to s0, s1, ... in order of first use by
//      the user inputs, and record their ranges from range_constraints;
//   3. create graph inputs from the signature (weights first, as exported), checking each
//      weight's archive record against the placeholder's metadata;
//   4. import nodes in order: assertions are dropped, SymInt arithmetic becomes symbolic
//      expressions, ATen ops go through the import table, higher-order ops are inlined (cond's
//      branches under guards, map and scan unrolled; docs/DESIGN.md "Control flow"), anything
//      else stays as aten_call;
//   5. set the outputs from the signature's user outputs.
#include "frontend/pt2/importer.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "frontend/aten/complex.h"
#include "frontend/aten/node_importer.h"
#include "frontend/pt2/json_util.h"
#include "frontend/pt2/program_importer.h"
#include "frontend/pt2/sympy_expr.h"
#include "ir/op_attributes.h"

namespace thunderc::frontend::detail {
namespace {

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

// ATen ops that compute a SymInt: they become symbolic expressions, not IR nodes. The layout
// queries among them (storage offset, contiguity) leave no runtime work either: the exporter
// resolves a static answer into the nodes that read it (the query's output is then None) and
// records a symbolic offset in sym_int_values; a SymBool no expression holds is refused.
constexpr std::string_view kIsContiguous = "torch.ops.aten.sym_is_contiguous.default";
// tensor.item(): handled by importItem (training IR and core ATen spell it differently).
constexpr std::string_view kItem = "torch.ops.aten.item.default";
constexpr std::string_view kLocalScalarDense = "torch.ops.aten._local_scalar_dense.default";
constexpr std::string_view kSymIntAtenTargets[] = {
    "torch.ops.aten.sym_size.int", "torch.ops.aten.sym_numel.default",
    "torch.ops.aten.sym_stride.int", "torch.ops.aten.sym_storage_offset.default", kIsContiguous};

// Higher-order ops the importer compiles (see importHigherOrder): subgraphs inlined (cond's
// branches under guards), map and scan unrolled. while_loop is reported as unsupported.
constexpr std::string_view kInlinedHigherOrderTargets[] = {
    kSetGradEnabled,
    "torch.ops.higher_order.wrap_with_autocast",
    "torch.ops.higher_order.invoke_subgraph",
    "torch.ops.higher_order.cond",
    "torch.ops.higher_order.map_impl",
    "torch.ops.higher_order.scan"};

bool isSymIntTarget(const std::string &target) {
  return target.rfind("_operator.", 0) == 0 || target.rfind("math.", 0) == 0 ||
         std::find(std::begin(kSymIntAtenTargets), std::end(kSymIntAtenTargets), target) !=
             std::end(kSymIntAtenTargets) ||
         target.rfind("torch.sym_", 0) == 0;
}

} // namespace

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

Status ProgramImporter::run(const Json &program) {
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
  TC_TRY(importOutputs(*signature));
  dropUnusedSymbols();
  return Status::success();
}

Status ProgramImporter::checkVersion(const Json &program) {
  model_.torchVersion = jsonStringOr(program, "torch_version", model_.torchVersion);
  if (const Json *verifiers = jsonFind(program, "verifiers");
      verifiers && verifiers->is_array() && !verifiers->empty() && (*verifiers)[0].is_string())
    model_.irLevel = (*verifiers)[0].get<std::string>();
  TC_ASSIGN_OR_RETURN(const Json *version, jsonObject(program, "schema_version"));
  TC_ASSIGN_OR_RETURN(int64_t major, jsonInt(*version, "major"));
  if (major != kSupportedSchemaMajor)
    return unsupported("export schema version " + std::to_string(major) +
                       " (thunderc reads schema " + std::to_string(kSupportedSchemaMajor) +
                       ", written by " + kSchemaTorchReleases + ")");
  return Status::success();
}

void ProgramImporter::dropUnusedSymbols() {
  std::set<std::string> used;
  auto collect = [&](const ir::TensorType &type) {
    for (const ir::Dim &dim : type.shape)
      if (!dim.isStatic())
        dim.expr().collectSymbols(used);
  };
  for (const auto &input : model_.graph->inputs())
    collect(input->type());
  for (const auto &node : model_.graph->nodes()) {
    for (int r = 0; r < node->numResults(); ++r)
      collect(node->result(r)->type());
    if (node->op() == ir::OpKind::Nonzero || node->op() == ir::OpKind::Item)
      used.insert(ir::attr::symbol(*node));
    for (const auto &[key, attr] : node->attrs().all()) {
      if (const auto *one = std::get_if<ir::Dim>(&attr); one && !one->isStatic())
        one->expr().collectSymbols(used);
      if (const auto *dims = std::get_if<std::vector<ir::Dim>>(&attr))
        for (const ir::Dim &dim : *dims)
          if (!dim.isStatic())
            dim.expr().collectSymbols(used);
    }
  }
  std::map<std::string, ir::SymbolRange> &symbols = model_.graph->symbols();
  for (auto it = symbols.begin(); it != symbols.end();)
    it = used.count(it->first) ? std::next(it) : symbols.erase(it);
}

Status ProgramImporter::collectReferences(const Json &graph, const Json &signature) {
  auto reference = [&](const std::string &name) { state_.referencedNames.insert(name); };
  TC_ASSIGN_OR_RETURN(const Json *nodes, jsonArray(graph, "nodes"));
  for (const Json &node : *nodes)
    if (const Json *inputs = jsonFind(node, "inputs"))
      forEachName(*inputs, reference);
  if (const Json *outputSpecs = jsonFind(signature, "output_specs"))
    forEachName(*outputSpecs, reference);
  return Status::success();
}

Status ProgramImporter::declareSymbols(const Json &program, const Json &signature) {
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
      // An integer, or null for no bound (torch writes max_val null for int_oo).
      for (const char *key : {"min_val", "max_val"}) {
        const Json *bound = jsonFind(*bounds, key);
        if (bound == nullptr || bound->is_null())
          continue;
        if (!bound->is_number_integer())
          return invalidInput("range_constraints['" + order[i] + "']: " + key +
                              " is neither an integer nor null");
        if (key[1] == 'i')
          range.min = bound->get<int64_t>();
        else
          range.max = bound->get<int64_t>();
      }
    }
    if (range.max && *range.max < range.min)
      return invalidInput("range_constraints['" + order[i] + "']: empty range");
    model_.graph->symbols()[name] = range;
  }
  return Status::success();
}

Expected<ir::TensorType> ProgramImporter::placeholderType(const std::string &name) {
  const Json *meta = jsonFind(*state_.tensorValues, name.c_str());
  if (!meta)
    return invalidInput("no tensor_values entry for input '" + name + "'");
  Expected<ir::TensorType> type = tensorTypeFromMeta(*meta, state_);
  if (!type.ok())
    return std::move(type).error().withContext("tensor_values['" + name + "']");
  return type;
}

Status ProgramImporter::checkWeight(const std::string &fqn, const ir::TensorType &type) {
  Expected<ir::TensorView> view = model_.weights->tensor(fqn);
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

Status ProgramImporter::importInputs(const Json &signature) {
  TC_ASSIGN_OR_RETURN(const Json *inputSpecs, jsonArray(signature, "input_specs"));
  for (const Json &spec : *inputSpecs) {
    TC_ASSIGN_OR_RETURN(JsonUnion input, jsonUnion(spec, "input spec"));
    const Json &payload = *input.payload;
    if (input.kind == "constant_input")
      continue; // a specialized non-tensor user input; it has no placeholder to feed
    if (input.kind == "token")
      continue; // orders side effects (with_effects); the checks it threads are dropped
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
      return unsupported("graph signature: an input of kind '" + input.kind +
                         "' (thunderc compiles parameter, buffer, tensor_constant, "
                         "constant_input and user_input inputs)");
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
    if (const Json *meta = jsonFind(*state_.tensorValues, name.c_str());
        meta != nullptr && isComplexMeta(*meta))
      return unsupported("the program input '" + name + "' is complex: thunderc has no "
                         "complex dtype (pass torch.view_as_real(x) and call "
                         "torch.view_as_complex inside the model instead)");
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

Status ProgramImporter::importOutputs(const Json &signature) {
  TC_ASSIGN_OR_RETURN(const Json *outputSpecs, jsonArray(signature, "output_specs"));
  std::vector<ir::Value *> outputs;
  for (const Json &spec : *outputSpecs) {
    TC_ASSIGN_OR_RETURN(JsonUnion output, jsonUnion(spec, "output spec"));
    if (output.kind == "buffer_mutation") {
      TC_TRY(importBufferMutation(*output.payload));
      continue;
    }
    if (output.kind == "token")
      continue; // the side-effect token threaded through with_effects: nothing to return
    if (output.kind == "parameter_mutation")
      return unsupported("the program updates a parameter in place (parameter_mutation); "
                         "only buffers can be model state — export the model in eval mode");
    if (output.kind == "user_input_mutation")
      return unsupported("the program writes into its user input (user_input_mutation): a "
                         "compiled model does not write into the caller's tensors (return "
                         "the updated tensor instead)");
    if (output.kind != "user_output")
      return unsupported("graph signature: an output of kind '" + output.kind +
                         "' (thunderc compiles user_output and buffer_mutation outputs)");
    TC_ASSIGN_OR_RETURN(const Json *arg, jsonObject(*output.payload, "arg"));
    TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*arg, "user output"));
    if (value.kind != "as_tensor")
      return unsupported("non-tensor model output (" + value.kind + ")");
    TC_ASSIGN_OR_RETURN(std::string name, jsonString(*value.payload, "name"));
    auto it = state_.values.find(name);
    if (it == state_.values.end())
      return invalidInput("output '" + name + "' is not defined by any node");
    if (state_.complexValues.count(it->second))
      return unsupported("the program output '" + name + "' is complex: thunderc has no "
                         "complex dtype, so a model returns real tensors (return "
                         "torch.view_as_real(x), x.real, x.imag or x.abs() instead)");
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

Status ProgramImporter::importBufferMutation(const Json &payload) {
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

Status ProgramImporter::importSymIntNode(const Json &node, const std::string &name) {
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

Status ProgramImporter::importItem(const Json &node, const std::string &name,
                                   const ir::SourceInfo &source) {
  TC_ASSIGN_OR_RETURN(const Json *inputs, jsonArray(node, "inputs"));
  TC_ASSIGN_OR_RETURN(const Json *outputs, jsonArray(node, "outputs"));
  if (inputs->size() != 1 || outputs->size() != 1)
    return invalidInput("expected one input and one output");
  TC_ASSIGN_OR_RETURN(const Json *arg, jsonField((*inputs)[0], "arg"));
  const Json *tensorArg = jsonFind(*arg, "as_tensor");
  if (!tensorArg)
    return invalidInput("input 'self' is not a tensor");
  std::string tensorName = jsonStringOr(*tensorArg, "name");
  auto found = state_.values.find(tensorName);
  if (found == state_.values.end())
    return invalidInput("unknown tensor '" + tensorName + "'");
  ir::Value *x = found->second;
  ir::Dim count = ir::numElements(x->type().shape);
  if (!count.isStatic() || count.value() != 1)
    return invalidInput("item() of a tensor with " + count.str() +
                        " elements: it needs exactly one (" + x->type().str() + ")");
  auto helper = [&](ir::OpKind op, std::vector<ir::Value *> operands, ir::TensorType type,
                    ir::AttrMap attrs = {}) {
    ir::Value *value = appendHelper(name, op, std::move(operands), std::move(type),
                                    std::move(attrs));
    value->producer()->source() = source;
    return value;
  };
  ir::Value *scalar = x;
  if (x->type().rank() != 0) {
    ir::AttrMap attrs;
    attrs.set("shape", std::vector<ir::Dim>{});
    scalar = helper(ir::OpKind::Reshape, {x}, ir::TensorType{x->type().dtype, {}},
                    std::move(attrs));
  }
  TC_ASSIGN_OR_RETURN(JsonUnion output, jsonUnion((*outputs)[0], "output"));
  std::string symName = output.payload->is_object() ? jsonStringOr(*output.payload, "as_name")
                                                    : "";
  if (symName.empty())
    return invalidInput("output is " + output.kind + ", expected a symbolic scalar");
  if (output.kind == "as_sym_float") {
    state_.symScalars[symName] = scalar;
    return Status::success();
  }
  if (output.kind == "as_sym_bool") {
    if (scalar->type().dtype != ir::DType::Bool) {
      ir::AttrMap attrs;
      attrs.set("dtype", ir::DType::Bool);
      scalar = helper(ir::OpKind::Cast, {scalar}, ir::TensorType{ir::DType::Bool, {}},
                      std::move(attrs));
    }
    state_.symScalars[symName] = scalar;
    return Status::success();
  }
  if (output.kind != "as_sym_int")
    return invalidInput("output is " + output.kind + ", expected a symbolic scalar");
  if (ir::isFloatingPoint(x->type().dtype))
    return unsupported("an integer item() of floating tensor " + x->type().str());
  const Json *value =
      state_.symIntValues ? jsonFind(*state_.symIntValues, symName.c_str()) : nullptr;
  if (!value)
    return unsupported("item() value '" + symName + "' has no expression in sym_int_values");
  Expected<ir::TensorType> probe =
      tensorTypeFromMeta(Json{{"dtype", 5}, {"sizes", Json::array({*value})}}, state_);
  if (!probe.ok())
    return std::move(probe).error().withContext("sym_int_values['" + symName + "']");
  const ir::Dim &dim = probe->shape[0];
  if (dim.isStatic() || dim.expr().kind() != ir::SymExpr::Kind::Symbol)
    return unsupported("item() value '" + symName + "' is " + dim.str() +
                       ", not a data-dependent symbol of its own");
  ir::AttrMap attrs;
  attrs.set("symbol", dim.expr().symbolName());
  ir::Value *bound = helper(ir::OpKind::Item, {scalar}, ir::TensorType{ir::DType::I64, {}},
                            std::move(attrs));
  state_.symInts[symName] = dim.asExpr();
  state_.symScalars[symName] = bound;
  return Status::success();
}

std::string ProgramImporter::nodeName(const Json &node, size_t index) {
  if (const Json *nameField = jsonFind(node, "name"); nameField && nameField->is_string())
    return nameField->get<std::string>();
  const Json *outputs = jsonFind(node, "outputs");
  if (outputs && outputs->is_array() && !outputs->empty())
    if (const Json *tensor = jsonFind((*outputs)[0], "as_tensor"))
      if (std::string name = jsonStringOr(*tensor, "name"); !name.empty())
        return name;
  return "node_" + std::to_string(index);
}

Status ProgramImporter::importNode(const Json &node, size_t index) {
  std::string name = nodeName(node, index);
  Expected<std::string> target = jsonString(node, "target");
  if (!target.ok())
    return std::move(target).error().withContext("node '" + name + "'");
  std::string context = "node '" + name + "' (" + std::string(stripTorchOps(*target)) + ")";
  // SSA: a node may not define a tensor an input or an earlier node defined.
  if (const Json *outputs = jsonFind(node, "outputs"); outputs && outputs->is_array())
    for (const Json &output : *outputs)
      if (const Json *tensor = jsonFind(output, "as_tensor"))
        if (const Json *outputName = jsonFind(*tensor, "name");
            outputName && outputName->is_string() &&
            state_.values.count(outputName->get<std::string>()))
          return invalidInput(context + ": defines tensor '" +
                              outputName->get<std::string>() + "', which is already defined");
  ir::SourceInfo source;
  if (const Json *metadata = jsonFind(node, "metadata"))
    source = sourceFromStackTrace(jsonStringOr(*metadata, "stack_trace"));
  source.target = std::string(stripTorchOps(*target));
  ImportedNodeRecord record{name, source.target, "compiled", {}, source};

  if (isDroppedAssertion(*target)) {
    record.status = "dropped";
    model_.nodes.push_back(record);
    return Status::success();
  }
  if (*target == "torch.ops.higher_order.with_effects") {
    // A side-effecting op threaded through a token: an assertion (linalg's error check) is
    // dropped like the others (the *_ex info outputs still report it); any other effect is
    // not compiled.
    const Json *inputs = jsonFind(node, "inputs");
    const Json *op = inputs && inputs->is_array() && inputs->size() > 1
                         ? jsonFind((*inputs)[1], "arg")
                         : nullptr;
    const Json *opName = op ? jsonFind(*op, "as_operator") : nullptr;
    std::string effect = opName && opName->is_string() ? opName->get<std::string>() : "";
    if (!effect.empty() && isDroppedAssertion(effect)) {
      record.status = "dropped";
      record.target = std::string(stripTorchOps(effect));
      model_.nodes.push_back(record);
      return Status::success();
    }
    return unsupported(context + ": the side effect " +
                       (effect.empty() ? std::string("of unknown op") : effect) +
                       " (with_effects) is not compiled");
  }
  if (std::find(std::begin(kInlinedHigherOrderTargets), std::end(kInlinedHigherOrderTargets),
                *target) != std::end(kInlinedHigherOrderTargets)) {
    record.status = "inlined";
    size_t recordIndex = model_.nodes.size();
    size_t firstNode = static_cast<size_t>(model_.graph->numNodes());
    model_.nodes.push_back(record);
    TC_TRY_CONTEXT(importHigherOrder(node, *target, name), context);
    // The op's own IR ops (cond's predicate and result selects): every op it added that no
    // record of its subgraphs' nodes lists.
    std::map<std::string, int> nested;
    for (size_t i = recordIndex + 1; i < model_.nodes.size(); ++i)
      for (const std::string &op : model_.nodes[i].irOps)
        ++nested[op];
    auto it = std::next(model_.graph->nodes().begin(), static_cast<long>(firstNode));
    for (; it != model_.graph->nodes().end(); ++it) {
      std::string op(ir::opName((*it)->op()));
      if (nested[op] > 0)
        --nested[op];
      else
        model_.nodes[recordIndex].irOps.push_back(op);
    }
    return Status::success();
  }
  if (*target == "torch.ops.higher_order.while_loop") {
    // No loop construct in the IR yet: the trip count is data dependent, so it cannot be
    // unrolled. Kept as aten_call, so the report lists it with this reason.
    record.status = "unsupported";
    model_.nodes.push_back(record);
    model_.unsupported.push_back(
        {name, source.target,
         "a data-dependent loop (torch.while_loop): thunderc's IR has no loop construct yet, "
         "so its body cannot run a trip count known only at run time",
         source});
    TC_TRY_CONTEXT(keepAsAtenCall(node, name, source), context);
    return Status::success();
  }
  if (isSymBoolComparison(*target)) {
    record.status = "shape";
    model_.nodes.push_back(record);
    TC_TRY_CONTEXT(recordSymBool(node, *target), context);
    return Status::success();
  }
  if (isSymIntTarget(*target)) {
    record.status = "shape";
    model_.nodes.push_back(record);
    TC_TRY_CONTEXT(importSymIntNode(node, name), context);
    return Status::success();
  }
  size_t nodesBefore = static_cast<size_t>(model_.graph->numNodes());
  Status status = Status::success();
  if (*target == kItem || *target == kLocalScalarDense) {
    status = importItem(node, name, source);
  } else {
    Json autocastRewritten;
    const Json *mapped = &node;
    if (!autocast_.empty()) {
      Expected<bool> rewritten = autocastNode(node, *target, name, autocastRewritten);
      if (!rewritten.ok())
        return std::move(rewritten).error().withContext(context);
      if (*rewritten)
        mapped = &autocastRewritten;
    }
    status = importMapped(*mapped, *target, name, source);
  }
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

bool ProgramImporter::isSymBoolComparison(const std::string &target) {
  return symComparisonOp(target).has_value();
}

std::optional<ir::OpKind> ProgramImporter::symComparisonOp(const std::string &target) {
  static const std::map<std::string, ir::OpKind> kOps = {
      {"_operator.gt", ir::OpKind::Gt}, {"_operator.lt", ir::OpKind::Lt},
      {"_operator.ge", ir::OpKind::Ge}, {"_operator.le", ir::OpKind::Le},
      {"_operator.eq", ir::OpKind::Eq}, {"_operator.ne", ir::OpKind::Ne}};
  auto it = kOps.find(target);
  return it == kOps.end() ? std::nullopt : std::optional<ir::OpKind>(it->second);
}

std::optional<ir::SymExpr> ProgramImporter::symIntOf(const JsonUnion &value) {
  if (value.kind == "as_int" && value.payload->is_number_integer())
    return ir::SymExpr::constant(value.payload->get<int64_t>());
  if (value.kind != "as_sym_int")
    return std::nullopt;
  if (const Json *constant = jsonFind(*value.payload, "as_int");
      constant && constant->is_number_integer())
    return ir::SymExpr::constant(constant->get<int64_t>());
  auto it = state_.symInts.find(jsonStringOr(*value.payload, "as_name"));
  return it == state_.symInts.end() ? std::nullopt : std::optional<ir::SymExpr>(it->second);
}

Status ProgramImporter::recordSymBool(const Json &node, const std::string &target) {
  TC_ASSIGN_OR_RETURN(const Json *inputs, jsonArray(node, "inputs"));
  TC_ASSIGN_OR_RETURN(const Json *outputs, jsonArray(node, "outputs"));
  if (inputs->size() != 2 || outputs->size() != 1)
    return Status::success();
  std::optional<ir::SymExpr> sides[2];
  for (size_t i = 0; i < 2; ++i) {
    const Json *arg = jsonFind((*inputs)[i], "arg");
    if (arg == nullptr)
      return Status::success();
    TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*arg, "argument"));
    sides[i] = symIntOf(value);
  }
  const Json *result = jsonFind((*outputs)[0], "as_sym_bool");
  if (!sides[0] || !sides[1] || result == nullptr)
    return Status::success();
  symBools_.insert_or_assign(jsonStringOr(*result, "as_name"),
                             SymComparison{*symComparisonOp(target), *sides[0], *sides[1]});
  return Status::success();
}

bool ProgramImporter::touchesComplex(const Json &node) const {
  bool complex = false;
  if (const Json *inputs = jsonFind(node, "inputs"))
    forEachName(*inputs, [&](const std::string &name) {
      auto found = state_.values.find(name);
      complex = complex || (found != state_.values.end() &&
                            state_.complexValues.count(found->second) != 0);
    });
  if (const Json *outputs = jsonFind(node, "outputs"); outputs && state_.tensorValues)
    forEachName(*outputs, [&](const std::string &name) {
      const Json *meta = jsonFind(*state_.tensorValues, name.c_str());
      complex = complex || (meta != nullptr && isComplexMeta(*meta));
    });
  return complex;
}

void ProgramImporter::eraseNodesAfter(size_t count) {
  while (static_cast<size_t>(model_.graph->numNodes()) > count) {
    ir::Node *last = model_.graph->nodes().back().get();
    for (int i = 0; i < last->numResults(); ++i) {
      state_.complexValues.erase(last->result(i));
      state_.realOfComplex.erase(last->result(i));
    }
    for (int i = 0; i < last->numResults(); ++i)
      for (auto it = state_.values.begin(); it != state_.values.end();)
        it = it->second == last->result(i) ? state_.values.erase(it) : std::next(it);
    model_.graph->eraseNode(last);
  }
}

Status ProgramImporter::keepAsAtenCall(const Json &node, const std::string &name,
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
  std::set<size_t> complexResults;
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
      // A complex result is kept as its pair type, so later complex ops still import.
      const Json *meta = jsonFind(*state_.tensorValues, tensorName.c_str());
      if (meta != nullptr && isComplexMeta(*meta)) {
        Expected<ir::TensorType> pair = complexPairTypeFromMeta(*meta, state_);
        if (pair.ok()) {
          names.push_back(tensorName);
          types.push_back(std::move(*pair));
          complexResults.insert(names.size() - 1);
          continue;
        }
      }
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
    if (complexResults.count(i))
      state_.complexValues.insert(call->result(static_cast<int>(i)));
  }
  return Status::success();
}

} // namespace thunderc::frontend::detail

namespace thunderc::frontend {
using detail::ProgramImporter;
using detail::kInlinedHigherOrderTargets;
using detail::kItem;
using detail::kLocalScalarDense;
using detail::kSymIntAtenTargets;

std::vector<std::string> supportedTargets() {
  std::set<std::string> targets;
  for (const std::string &target : importTableTargets())
    if (isDroppedAssertion(target) || findOpSchema(target) != nullptr)
      targets.insert(target);
  for (std::string_view target : kSymIntAtenTargets)
    targets.emplace(stripTorchOps(target));
  for (std::string_view target : kInlinedHigherOrderTargets)
    targets.emplace(stripTorchOps(target));
  targets.emplace(stripTorchOps(kItem));
  targets.emplace(stripTorchOps(kLocalScalarDense));
  return {targets.begin(), targets.end()};
}

Expected<ImportedModel> importPt2(const std::string &path) {
  TC_ASSIGN_OR_RETURN(Pt2Archive opened, Pt2Archive::open(path));
  auto archive = std::make_unique<Pt2Archive>(std::move(opened));
  const std::string member = archive->modelMember();
  const std::string &text = archive->modelJson();
  return importProgram(std::move(archive), text, member);
}

Expected<ImportedModel> importProgram(std::unique_ptr<WeightSource> weights,
                                      const std::string &programJson, const std::string &member) {
  ImportedModel model;
  model.weights = std::move(weights);
  Expected<Json> program = parseJson(programJson);
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
