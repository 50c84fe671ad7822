// The TorchScript importer plugin: a TorchScript module (torch.jit.save of a traced or scripted
// module) -> the serialized ExportedProgram JSON of a .pt2 archive plus the frozen weights,
// which thunderc imports through its one ATen import table (docs/TORCHSCRIPT.md).
//
// Algorithm:
//   0. Refuse ops that act outside the model (sideEffectOf, plugin_support.h): in forward and in every class's
//      __setstate__ (which the loader runs), before anything else runs. The process this runs
//      in is confined (frontend/torchscript/sandbox.h): whatever the loader itself runs cannot open files.
//   1. torch::jit::load from memory; eval; remember every parameter and buffer by its storage (for names);
//      freeze (parameters and attributes become constants); inline every method call; drop the
//      unused `self` input; turn in-place and list mutation into functional ops.
//   2. Example inputs (zeros): the caller's --input-shape specs, else the shapes and dtypes of
//      the inputs the tracer stored in the file (torch.jit.trace keeps them; loading with
//      restore_shapes types the graph's inputs with them), else a usage error.
//   3. Specialize to those shapes, repeatedly until no control flow is left: constant
//      propagation and dead-code elimination; run the graph once on the example inputs with
//      every top-level value as an extra output ("profile"); classify each value as
//      input-dependent ("dynamic": it depends on the input tensors' data) or static (a constant,
//      or computed only from constants and from tensor sizes, dtypes and devices, which are
//      fixed); replace every static non-tensor value by a constant, so that prim::If on shapes
//      or flags folds and prim::Loop with a constant trip count unrolls. Control flow whose
//      condition depends on input data is an unsupported error naming the node's source line.
//   4. Emit: each dynamic aten:: node becomes a serialized node (torch.ops.aten.<op>.<overload>,
//      arguments by schema name, output metadata from the profile); static tensors become
//      lifted constants (or parameters/buffers, named by their module path); lists, tuples
//      and dicts are resolved into the arguments and outputs that read them.
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/passes/constant_propagation.h>
#include <torch/csrc/jit/passes/dead_code_elimination.h>
#include <torch/csrc/jit/passes/freeze_module.h>
#include <torch/csrc/jit/passes/inliner.h>
#include <torch/csrc/jit/passes/loop_unrolling.h>
#include <torch/csrc/jit/passes/lower_tuples.h>
#include <torch/csrc/jit/passes/remove_mutation.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/api/function_impl.h>
#include <torch/jit.h>
#include <torch/csrc/jit/runtime/interpreter.h>
#include <torch/csrc/jit/runtime/print_handler.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/script.h>
#include <torch/version.h>

#include <sys/resource.h>

#include <cmath>
#include <istream>
#include <map>
#include <streambuf>
#include <regex>
#include <set>
#include <sstream>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "frontend/pt2/serde_enums.h"
#include "frontend/torchscript/plugin.h"
#include "frontend/torchscript/plugin_support.h"

namespace thunderc::frontend {
namespace {

using namespace plugin;
using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

constexpr int kUsage = 1, kInvalidInput = 3, kUnsupported = 4;
constexpr int kMaxSpecializationRounds = 16;

struct Failure {
  int code;
  std::string message;
};

[[noreturn]] void fail(int code, std::string message) { throw Failure{code, std::move(message)}; }

// libtorch's messages: c10 errors carry a C++ backtrace, script errors start with a newline
// and quote code over several lines. Users get the first three non-empty lines, on one line.
std::string brief(const std::string &message) {
  std::istringstream lines(message);
  std::string text;
  int kept = 0;
  for (std::string line; kept < 3 && std::getline(lines, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
      line.pop_back();
    if (line.empty())
      continue;
    if (line.rfind("Exception raised from", 0) == 0)
      break;
    text += (kept++ ? " " : "") + line;
  }
  return text;
}

std::string brief(const c10::Error &error) { return brief(error.what_without_backtrace()); }

// "File "/x/model.py", line 12, in forward\n    y = f(x)": the original Python line when the
// file kept its debug information, else the line of the serialized TorchScript code.
std::string stackTrace(const Node *node, const std::string &function = "forward") {
  torch::jit::SourceRange range = node->sourceRange();
  if (auto original = range.findSourceRangeThatGenerated())
    range = *original;
  if (!range.source())
    return "";
  // A traced node's range holds the tracer's Python stack, innermost frame first:
  // "/x/model.py(12): forward\n/x/torch/nn/modules/module.py(1768): _slow_forward\n...".
  static const std::regex kTracedFrame(R"(^(.+)\((\d+)\): (\S+)$)");
  std::vector<std::string> frames;
  std::istringstream lines(range.text().str());
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (!std::regex_match(line, match, kTracedFrame)) {
      frames.clear();
      break;
    }
    frames.push_back("File \"" + match[1].str() + "\", line " + match[2].str() + ", in " +
                     match[3].str() + "\n    \n");
  }
  if (!frames.empty()) {
    std::string trace;
    for (auto frame = frames.rbegin(); frame != frames.rend(); ++frame)
      trace += *frame;
    return trace;
  }
  auto where = range.file_line_col();
  if (!where)
    return "";
  const auto &[file, line, column] = *where;
  std::string code;
  if (range.source()) { // the whole line holding the range's start
    const std::string_view text = range.source()->text_str().str();
    if (range.start() < text.size()) {
      const size_t before = text.rfind('\n', range.start());
      const size_t start = before == std::string_view::npos ? 0 : before + 1;
      const size_t end = text.find('\n', range.start());
      code = std::string(text.substr(start, end == std::string_view::npos ? end : end - start));
      code.erase(0, code.find_first_not_of(' '));
    }
  }
  return "File \"" + file + "\", line " + std::to_string(line) + ", in " + function + "\n    " +
         code;
}

std::string describe(const Node *node, const std::string &function = "forward") {
  std::ostringstream out;
  out << node->kind().toQualString();
  const std::string trace = stackTrace(node, function);
  if (!trace.empty()) {
    const size_t newline = trace.find('\n');
    out << " at " << trace.substr(0, newline);
  }
  return out.str();
}

int serializedDtype(c10::ScalarType type) {
  std::optional<int> value = serializedFromC10(kScalarTypes, static_cast<int>(type));
  if (!value)
    fail(kUnsupported, std::string("tensor dtype ") + c10::toString(type));
  return *value;
}


json tensorMeta(const at::Tensor &tensor) {
  return json{{"dtype", serializedDtype(tensor.scalar_type())},
              {"sizes", intList(tensor.sizes())},
              {"strides", intList(tensor.strides())},
              {"storage_offset", json{{"as_int", tensor.storage_offset()}}},
              {"requires_grad", false},
              {"device", json{{"type", "cpu"}, {"index", nullptr}}},
              {"layout", 7}};
}

// A read-only, seekable stream over the file's bytes (libtorch reads the zip through it).
class MemoryBuffer : public std::streambuf {
public:
  MemoryBuffer(const uint8_t *data, size_t size) {
    char *begin = reinterpret_cast<char *>(const_cast<uint8_t *>(data));
    setg(begin, begin, begin + size);
  }

protected:
  pos_type seekoff(off_type offset, std::ios_base::seekdir dir,
                   std::ios_base::openmode) override {
    char *base = dir == std::ios_base::beg   ? eback()
                 : dir == std::ios_base::cur ? gptr()
                                             : egptr();
    if (offset < eback() - base || offset > egptr() - base)
      return pos_type(off_type(-1));
    setg(eback(), base + offset, egptr());
    return pos_type(gptr() - eback());
  }
  pos_type seekpos(pos_type position, std::ios_base::openmode mode) override {
    return seekoff(off_type(position), std::ios_base::beg, mode);
  }
};

/// What a value is at emission time: a tensor by name, a constant, or a list/tuple of refs.
struct Ref {
  enum class Kind { Tensor, Constant, List } kind = Kind::Constant;
  std::string name;
  c10::IValue value;
  std::vector<Ref> items;
};

class Converter {
public:
  Converter(const uint8_t *data, size_t size) : data_(data), size_(size) {}

  void run(const std::string &inputSpecJson, TorchScriptResult &result) {
    load();
    exampleInputs(inputSpecJson);
    specialize();
    emit(result);
  }

private:
  // ---- 1. load, name the weights, freeze ----
  void load() {
    auto unit = std::make_shared<torch::jit::CompilationUnit>();
    try {
      // restore_shapes: also read the example inputs torch.jit.trace stored (traced_inputs.pkl).
      MemoryBuffer buffer(data_, size_);
      std::istream stream(&buffer);
      torch::jit::ExtraFilesMap extraFiles;
      module_ = torch::jit::import_ir_module(unit, stream, c10::Device(c10::kCPU), extraFiles,
                                             /*load_debug_files=*/true, /*restore_shapes=*/true);
    } catch (const std::bad_alloc &) {
      throw;
    } catch (const std::exception &error) {
      // A __setstate__ that acts outside the model fails inside the confined process; say
      // which op it was rather than what the failure looked like.
      refuseSideEffects(*unit);
      const c10::Error *c10Error = dynamic_cast<const c10::Error *>(&error);
      fail(kInvalidInput, "not a TorchScript file torch.jit.load can read: " +
                              (c10Error ? brief(*c10Error) : brief(error.what())));
    }
    refuseSideEffects(*unit);
    {
      auto forward = module_.find_method("forward");
      if (forward) {
        std::shared_ptr<Graph> graph = forward->graph()->copy();
        torch::jit::Inline(*graph);
        const char *why = nullptr;
        if (const Node *node = findSideEffect(graph->block(), &why))
          fail(kUnsupported, "forward uses " + describe(node) + ", which thunderc refuses: " +
                                 why + " (compiling never runs ops that act outside the model)");
      }
    }
    if (!module_.find_method("forward"))
      fail(kInvalidInput, "the TorchScript module has no forward method");
    module_.eval();
    for (Value *input : module_.get_method("forward").graph()->inputs())
      inputTypes_.push_back(input->type());
    for (const auto &parameter : module_.named_parameters(/*recurse=*/true))
      remember(parameter.name, parameter.value, "parameter");
    for (const auto &buffer : module_.named_buffers(/*recurse=*/true))
      remember(buffer.name, buffer.value, "buffer");
    try {
      torch::jit::freeze_module_inplace(&module_);
    } catch (const c10::Error &error) {
      fail(kUnsupported, "freezing the module failed: " + brief(error));
    }
    graph_ = module_.get_method("forward").graph()->copy();
    torch::jit::Inline(*graph_);
    Value *self = graph_->inputs().at(0);
    if (self->type()->cast<c10::ClassType>()) {
      if (self->hasUses()) {
        const Node *user = self->uses().front().user;
        const std::string attribute = user->hasAttribute(c10::attr::name)
                                          ? " '" + user->s(c10::attr::name) + "'"
                                          : std::string();
        fail(kUnsupported, "forward still reads the module" + attribute + " after freezing (" +
                               describe(user) + "): state the module changes while it runs "
                               "cannot be compiled ahead of time");
      }
      graph_->eraseInput(0);
    }
    torch::jit::RemoveListMutation(graph_);
    torch::jit::RemoveTensorMutation(graph_);
  }

  // The loader runs every class's __setstate__: refuse one that acts outside the model.
  static void refuseSideEffects(torch::jit::CompilationUnit &unit) {
    for (torch::jit::Function *function : unit.get_functions()) {
      if (function->name() != "__setstate__" || !function->isGraphFunction())
        continue;
      std::shared_ptr<Graph> graph = torch::jit::toGraphFunction(*function).graph()->copy();
      torch::jit::Inline(*graph);
      const char *why = nullptr;
      if (const Node *node = findSideEffect(graph->block(), &why))
        fail(kUnsupported, function->qualname().qualifiedName() + " uses " +
                               describe(node, function->name()) +
                               ", which thunderc refuses: " + why +
                               " (compiling never runs ops that act outside the model)");
    }
  }

  void remember(const std::string &fqn, const at::Tensor &tensor, const char *kind) {
    names_.emplace(key(tensor), std::make_pair(fqn, std::string(kind)));
    keepAlive_.push_back(tensor);
  }

  static std::string key(const at::Tensor &tensor) {
    std::ostringstream out;
    out << tensor.data_ptr() << '|' << tensor.sizes() << '|' << tensor.strides() << '|'
        << tensor.scalar_type();
    return out.str();
  }

  // ---- 2. example inputs ----
  void exampleInputs(const std::string &specJson) {
    const size_t count = graph_->inputs().size();
    json specs = json::parse(specJson.empty() ? "[]" : specJson);
    if (!specs.empty()) {
      if (specs.size() != count)
        fail(kUsage, "--input-shape was given " + std::to_string(specs.size()) +
                         " times, but forward takes " + std::to_string(count) + " tensor inputs");
      for (size_t i = 0; i < count; ++i) {
        const json &spec = specs[i];
        const std::string name = spec.value("name", "");
        const std::string inputName = graph_->inputs()[i]->debugName();
        if (!name.empty() && name != inputName && name != baseName(inputName))
          fail(kUsage, "--input-shape " + std::to_string(i + 1) + " is for '" + name +
                           "', but forward's input " + std::to_string(i + 1) + " is '" +
                           baseName(inputName) + "'");
        const std::vector<int64_t> shape = spec.at("shape").get<std::vector<int64_t>>();
        inputs_.emplace_back(at::zeros(shape, at::TensorOptions().dtype(dtypeNamed(
                                                  spec.value("dtype", "float32")))));
      }
      return;
    }
    // restore_shapes gave each input of a traced module the type of its example input.
    for (size_t i = 0; i < count; ++i) {
      Value *input = graph_->inputs()[i];
      // Freezing drops the input types; they were read before (after `self`).
      const size_t typeIndex = i + inputTypes_.size() - count;
      const auto type = inputTypes_.at(typeIndex)->cast<c10::TensorType>();
      if (!type)
        fail(kUnsupported, "forward's input '" + baseName(input->debugName()) + "' is a " +
                               input->type()->str() +
                               ", not a tensor (thunderc compiles tensor inputs)");
      const auto sizes = type->sizes().concrete_sizes();
      if (!sizes || !type->scalarType())
        fail(kUsage, "the TorchScript file does not record the shape of forward's input '" +
                         baseName(input->debugName()) + "' (a scripted module, or one traced "
                         "without stored inputs): give each input's shape with --input-shape "
                         "NAME:DTYPE[D0,D1,...], e.g. --input-shape x:float32[1,3,224,224]");
      inputs_.emplace_back(at::zeros(*sizes, at::TensorOptions().dtype(*type->scalarType())));
    }
  }

  static c10::ScalarType dtypeNamed(const std::string &name) {
    static const std::map<std::string, c10::ScalarType> kinds = {
        {"float32", at::kFloat}, {"float", at::kFloat},   {"float16", at::kHalf},
        {"half", at::kHalf},     {"bfloat16", at::kBFloat16}, {"float64", at::kDouble},
        {"int64", at::kLong},    {"long", at::kLong},     {"int32", at::kInt},
        {"int", at::kInt},       {"int16", at::kShort},   {"int8", at::kChar},
        {"uint8", at::kByte},    {"bool", at::kBool}};
    auto it = kinds.find(name);
    if (it == kinds.end())
      fail(kUsage, "--input-shape: unknown dtype '" + name + "'");
    return it->second;
  }

  // "x.1" -> "x": TorchScript numbers the SSA versions of a Python variable.
  static std::string baseName(const std::string &debugName) {
    const size_t dot = debugName.find('.');
    return dot == std::string::npos ? debugName : debugName.substr(0, dot);
  }

  // ---- 3. specialize to the example shapes ----
  void specialize() {
    for (int round = 0;; ++round) {
      torch::jit::ConstantPropagation(graph_);
      torch::jit::EliminateDeadCode(graph_);
      torch::jit::LowerSimpleTuples(graph_);
      torch::jit::UnrollConstantLoops(graph_);
      profile();
      classify();
      Node *control = nullptr;
      for (Node *node : graph_->nodes())
        if (!node->blocks().empty()) {
          control = node;
          break;
        }
      if (control == nullptr)
        return;
      if (!foldStatic() || round == kMaxSpecializationRounds)
        fail(kUnsupported, "data-dependent control flow (" + describe(control) +
                               "): its condition or trip count depends on the values of the "
                               "inputs, which an ahead-of-time compile cannot know");
    }
  }

  // Runs the graph on the example inputs with every top-level value as an extra output.
  void profile() {
    auto copy = std::make_shared<Graph>();
    std::unordered_map<Value *, Value *> map;
    for (Value *input : graph_->inputs())
      map[input] = copy->addInput()->copyMetadata(input);
    std::vector<Value *> watched(graph_->inputs().begin(), graph_->inputs().end());
    for (Node *node : graph_->nodes()) {
      Node *clone = copy->insertNode(
          copy->createClone(node, [&](Value *value) { return map.at(value); }));
      for (size_t i = 0; i < node->outputs().size(); ++i) {
        map[node->outputs()[i]] = clone->outputs()[i];
        watched.push_back(node->outputs()[i]);
      }
    }
    std::vector<Value *> packed;
    for (Value *value : watched)
      packed.push_back(map.at(value));
    copy->registerOutput(copy->insertNode(copy->createTuple(packed))->output());
    torch::jit::Stack stack(inputs_.begin(), inputs_.end());
    try {
      torch::jit::Code code(copy, "thunderc_profile");
      torch::jit::InterpreterState state(code);
      state.run(stack);
    } catch (const c10::Error &error) {
      fail(kInvalidInput, "running forward on the example inputs failed: " + brief(error));
    }
    const auto &values = stack.back().toTupleRef().elements();
    values_.clear();
    for (size_t i = 0; i < watched.size(); ++i)
      values_[watched[i]] = values[i];
  }

  void classify() {
    dynamic_.clear();
    for (Value *input : graph_->inputs())
      dynamic_.insert(input);
    for (Node *node : graph_->nodes()) {
      bool isDynamic = !node->blocks().empty() || node->isNondeterministic();
      if (!readsOnlyMetadata(node))
        for (Value *input : node->inputs())
          isDynamic = isDynamic || dynamic_.count(input) != 0;
      if (isDynamic)
        for (Value *output : node->outputs())
          dynamic_.insert(output);
    }
  }

  // Replaces every static non-tensor value that something reads by a constant.
  bool foldStatic() {
    bool folded = false;
    std::vector<Node *> nodes(graph_->nodes().begin(), graph_->nodes().end());
    for (Node *node : nodes) {
      if (node->kind() == c10::prim::Constant)
        continue;
      for (Value *output : node->outputs()) {
        if (dynamic_.count(output) || !output->hasUses())
          continue;
        const c10::IValue &value = values_.at(output);
        if (holdsTensor(value))
          continue;
        torch::jit::WithInsertPoint point(graph_->nodes().front());
        std::optional<Value *> constant = torch::jit::tryInsertConstant(*graph_, value);
        if (!constant)
          continue;
        output->replaceAllUsesWith(*constant);
        folded = true;
      }
    }
    return folded;
  }

  // ---- 4. emit the serialized program ----
  void emit(TorchScriptResult &result) {
    result_ = &result;
    json inputs = json::array();
    for (size_t i = 0; i < graph_->inputs().size(); ++i) {
      Value *input = graph_->inputs()[i];
      const std::string name = uniqueName(baseName(input->debugName()));
      tensorValues_[name] = tensorMeta(inputs_[i].toTensor());
      userInputs_.push_back(json{{"user_input", {{"arg", {{"as_tensor", {{"name", name}}}}}}}});
      refs_[input] = tensorRef(name);
    }
    for (Node *node : graph_->nodes())
      emitNode(node);
    json outputSpecs = json::array();
    for (Value *output : graph_->outputs())
      addOutputs(refOf(output), outputSpecs);
    json graphInputs = json::array();
    for (const json &spec : weightSpecs_)
      graphInputs.push_back(json{{"as_tensor", spec.begin().value()["arg"]}});
    for (const json &spec : userInputs_)
      graphInputs.push_back(spec["user_input"]["arg"]);
    json inputSpecs = weightSpecs_;
    for (const json &spec : userInputs_)
      inputSpecs.push_back(spec);
    json graphOutputs = json::array();
    for (const json &spec : outputSpecs)
      graphOutputs.push_back(spec["user_output"]["arg"]);
    json program = {
        {"graph_module",
         {{"graph",
           {{"inputs", graphInputs},
            {"outputs", graphOutputs},
            {"nodes", nodes_},
            {"tensor_values", tensorValues_},
            {"sym_int_values", json::object()},
            {"sym_bool_values", json::object()},
            {"sym_float_values", json::object()},
            {"custom_obj_values", json::object()},
            {"is_single_tensor_return", false}}},
          {"signature", {{"input_specs", inputSpecs}, {"output_specs", outputSpecs}}},
          {"module_call_graph", json::array()}}},
        {"opset_version", {{"aten", 10}}},
        {"range_constraints", json::object()},
        {"schema_version", {{"major", 8}, {"minor", 0}}},
        {"verifiers", json::array({"TORCHSCRIPT"})},
        {"torch_version", TORCH_VERSION}};
    result.programJson = program.dump();
  }

  static Ref tensorRef(const std::string &name) {
    Ref ref;
    ref.kind = Ref::Kind::Tensor;
    ref.name = name;
    return ref;
  }

  static Ref constantRef(const c10::IValue &value) {
    Ref ref;
    ref.value = value;
    return ref;
  }

  static Ref listRef(std::vector<Ref> items) {
    Ref ref;
    ref.kind = Ref::Kind::List;
    ref.items = std::move(items);
    return ref;
  }

  Ref refOf(Value *value) {
    auto it = refs_.find(value);
    if (it != refs_.end())
      return it->second;
    if (!dynamic_.count(value))
      return constantRef(values_.at(value));
    fail(kUnsupported, "value %" + value->debugName() + " is read before it is defined");
  }

  std::string uniqueName(std::string name) {
    for (char &c : name)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
        c = '_';
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
      name = "v" + name;
    std::string unique = name;
    for (int suffix = 1; !usedNames_.insert(unique).second; ++suffix)
      unique = name + "_" + std::to_string(suffix);
    return unique;
  }

  void emitNode(Node *node) {
    bool anyDynamic = false;
    for (Value *output : node->outputs())
      anyDynamic = anyDynamic || dynamic_.count(output) != 0;
    if (!anyDynamic)
      return; // every output is known: read from the profile where it is used
    const std::string kind = node->kind().toQualString();
    if (kind == "prim::ListConstruct" || kind == "prim::TupleConstruct") {
      std::vector<Ref> items;
      for (Value *input : node->inputs())
        items.push_back(refOf(input));
      refs_[node->output()] = listRef(std::move(items));
    } else if (kind == "prim::DictConstruct") { // model outputs: the values, in order
      std::vector<Ref> items;
      for (size_t i = 1; i < node->inputs().size(); i += 2)
        items.push_back(refOf(node->inputs()[i]));
      refs_[node->output()] = listRef(std::move(items));
    } else if (kind == "prim::ListUnpack" || kind == "prim::TupleUnpack") {
      const Ref list = refOf(node->input());
      if (list.kind != Ref::Kind::List || list.items.size() != node->outputs().size())
        fail(kUnsupported, "cannot unpack " + describe(node));
      for (size_t i = 0; i < node->outputs().size(); ++i)
        refs_[node->outputs()[i]] = list.items[i];
    } else if (kind == "prim::TupleIndex" || kind == "aten::__getitem__") {
      const Ref list = refOf(node->inputs()[0]);
      const Ref index = refOf(node->inputs()[1]);
      if (list.kind != Ref::Kind::List || index.kind != Ref::Kind::Constant ||
          !index.value.isInt())
        fail(kUnsupported, "cannot index " + describe(node));
      int64_t at = index.value.toInt();
      if (at < 0)
        at += static_cast<int64_t>(list.items.size());
      if (at < 0 || at >= static_cast<int64_t>(list.items.size()))
        fail(kInvalidInput, "index out of range in " + describe(node));
      refs_[node->output()] = list.items[static_cast<size_t>(at)];
    } else if (node->kind().is_aten()) {
      emitAten(node);
    } else {
      fail(kUnsupported, describe(node) + " computes a value from the input data that thunderc "
                                          "cannot compile ahead of time");
    }
  }

  void emitAten(Node *node) {
    const c10::FunctionSchema *schema = node->maybeSchema();
    if (schema == nullptr)
      fail(kUnsupported, describe(node) + " has no operator schema");
    std::string name = schema->name().substr(6); // drop "aten::"
    std::string overload = schema->overload_name().empty() ? "default" : schema->overload_name();
    // aten::_convolution (what tracing F.conv* records) carries cuDNN switches beside
    // convolution's arguments.
    static const std::set<std::string> kConvolutionArgs = {
        "input", "weight", "bias", "stride", "padding", "dilation", "transposed",
        "output_padding", "groups"};
    const bool isConvolution = name == "_convolution";
    if (isConvolution) {
      name = "convolution";
      overload = "default";
    }
    json inputs = json::array();
    const auto &arguments = schema->arguments();
    for (size_t i = 0; i < node->inputs().size() && i < arguments.size(); ++i) {
      const c10::Argument &argument = arguments[i];
      if (isConvolution && !kConvolutionArgs.count(argument.name()))
        continue;
      inputs.push_back(json{{"name", argument.name()},
                            {"arg", argumentJson(refOf(node->inputs()[i]), argument, node)},
                            {"kind", argument.kwarg_only() ? 2 : 1}});
    }
    json outputs = json::array();
    std::string nodeName;
    for (Value *output : node->outputs()) {
      const c10::IValue &value = values_.at(output);
      const std::string outputName = uniqueName(baseName(output->debugName()));
      if (nodeName.empty())
        nodeName = outputName;
      if (value.isTensor()) {
        tensorValues_[outputName] = tensorMeta(value.toTensor());
        outputs.push_back(json{{"as_tensor", {{"name", outputName}}}});
        refs_[output] = tensorRef(outputName);
      } else if (value.isTensorList()) {
        json names = json::array();
        std::vector<Ref> items;
        const auto list = value.toTensorVector();
        for (size_t i = 0; i < list.size(); ++i) {
          const std::string itemName = uniqueName(outputName + "_" + std::to_string(i));
          tensorValues_[itemName] = tensorMeta(list[i]);
          names.push_back(json{{"name", itemName}});
          items.push_back(tensorRef(itemName));
        }
        outputs.push_back(json{{"as_tensors", names}});
        refs_[output] = listRef(std::move(items));
      } else if (!dynamic_.count(output)) {
        outputs.push_back(json{{"as_none", true}});
      } else {
        fail(kUnsupported, describe(node) + " returns a " + value.tagKind() +
                               " computed from the input data (a data-dependent scalar)");
      }
    }
    json metadata = json::object();
    if (std::string trace = stackTrace(node); !trace.empty())
      metadata["stack_trace"] = trace;
    nodes_.push_back(json{{"target", "torch.ops.aten." + name + "." + overload},
                          {"name", nodeName},
                          {"inputs", inputs},
                          {"outputs", outputs},
                          {"metadata", metadata}});
  }

  json argumentJson(const Ref &ref, const c10::Argument &argument, Node *node) {
    c10::TypePtr type = argument.real_type();
    if (auto optional = type->cast<c10::OptionalType>())
      type = optional->getElementType();
    if (ref.kind == Ref::Kind::Tensor)
      return json{{"as_tensor", {{"name", ref.name}}}};
    if (ref.kind == Ref::Kind::List) {
      json tensors = json::array();
      bool anyNone = false;
      for (const Ref &item : ref.items) {
        if (item.kind == Ref::Kind::Tensor) {
          tensors.push_back(json{{"name", item.name}});
        } else if (item.kind == Ref::Kind::Constant && item.value.isTensor()) {
          tensors.push_back(json{{"name", constantName(item.value.toTensor())}});
        } else if (item.kind == Ref::Kind::Constant && item.value.isNone()) {
          tensors.push_back(nullptr);
          anyNone = true;
        } else {
          fail(kUnsupported, "argument '" + argument.name() + "' of " + describe(node) +
                                 " is a list that mixes input-dependent and other values");
        }
      }
      if (!anyNone)
        return json{{"as_tensors", tensors}};
      json optional = json::array();
      for (const json &item : tensors)
        optional.push_back(item.is_null() ? json{{"as_none", true}}
                                          : json{{"as_tensor", item}});
      return json{{"as_optional_tensors", optional}};
    }
    return constantJson(ref.value, type, argument, node);
  }

  json constantJson(const c10::IValue &value, const c10::TypePtr &type,
                    const c10::Argument &argument, Node *node) {
    if (value.isNone())
      return json{{"as_none", true}};
    if (value.isTensor())
      return json{{"as_tensor", {{"name", constantName(value.toTensor())}}}};
    if (value.isBool())
      return json{{"as_bool", value.toBool()}};
    if (value.isInt()) {
      const int64_t number = value.toInt();
      std::optional<int> enumValue;
      if (type->kind() == c10::TypeKind::ScalarTypeType)
        return json{{"as_scalar_type", serializedDtype(static_cast<c10::ScalarType>(number))}};
      if (type->kind() == c10::TypeKind::LayoutType)
        enumValue = serializedFromC10(kLayouts, static_cast<int>(number));
      else if (type->kind() == c10::TypeKind::MemoryFormatType)
        enumValue = serializedFromC10(kMemoryFormats, static_cast<int>(number));
      else if (type->kind() == c10::TypeKind::FloatType)
        return json{{"as_float", static_cast<double>(number)}};
      else
        return json{{"as_int", number}};
      if (!enumValue)
        fail(kUnsupported, "argument '" + argument.name() + "' of " + describe(node) +
                               " has an unknown enumerator " + std::to_string(number));
      return json{{type->kind() == c10::TypeKind::LayoutType ? "as_layout" : "as_memory_format",
                   *enumValue}};
    }
    if (value.isDouble())
      return json{{"as_float", floatJson(value.toDouble())}};
    if (value.isString())
      return json{{"as_string", value.toStringRef()}};
    if (value.isDevice())
      return json{{"as_device", {{"type", "cpu"}, {"index", nullptr}}}};
    if (value.isIntList())
      return json{{"as_ints", value.toIntVector()}};
    if (value.isDoubleList()) {
      json list = json::array();
      for (double item : value.toDoubleVector())
        list.push_back(floatJson(item));
      return json{{"as_floats", list}};
    }
    if (value.isBoolList()) {
      json list = json::array();
      for (bool item : value.toBoolList())
        list.push_back(static_cast<bool>(item));
      return json{{"as_bools", list}};
    }
    if (value.isList() || value.isTuple()) {
      std::vector<Ref> items;
      const auto elements = value.isList() ? value.toListRef().vec()
                                           : value.toTupleRef().elements().vec();
      for (const c10::IValue &item : elements)
        items.push_back(constantRef(item));
      if (holdsTensor(value))
        return argumentJson(listRef(std::move(items)), argument, node);
      if (!elements.empty() && elements.front().isInt()) { // a tuple of ints
        json list = json::array();
        for (const c10::IValue &item : elements)
          list.push_back(item.toInt());
        return json{{"as_ints", list}};
      }
    }
    fail(kUnsupported, "argument '" + argument.name() + "' of " + describe(node) + " is a " +
                           value.tagKind() + ", which thunderc does not read");
  }

  // A static tensor becomes a weight: a parameter or buffer by its module path when it is one,
  // else a lifted constant.
  std::string constantName(const at::Tensor &tensor) {
    const std::string tensorKey = key(tensor);
    if (auto it = constantNames_.find(tensorKey); it != constantNames_.end())
      return it->second;
    std::string fqn, kind = "tensor_constant";
    if (auto it = names_.find(tensorKey); it != names_.end()) {
      fqn = it->second.first;
      kind = it->second.second;
    } else {
      fqn = "_tensor_constant" + std::to_string(constantCount_++);
    }
    const std::string placeholder =
        uniqueName((kind == "parameter" ? "p_" : kind == "buffer" ? "b_" : "c_") + fqn);
    at::Tensor stored = tensor.contiguous();
    keepAlive_.push_back(stored);
    TorchScriptTensor weight;
    weight.fqn = fqn;
    weight.serializedDtype = serializedDtype(stored.scalar_type());
    weight.shape = stored.sizes().vec();
    weight.strides = stored.strides().vec();
    weight.data = stored.data_ptr();
    weight.bytes = stored.nbytes();
    result_->weights.push_back(std::move(weight));
    tensorValues_[placeholder] = tensorMeta(stored);
    const char *field = kind == "parameter" ? "parameter_name"
                        : kind == "buffer"  ? "buffer_name"
                                            : "tensor_constant_name";
    json spec = {{"arg", {{"name", placeholder}}}, {field, fqn}};
    if (kind == "buffer")
      spec["persistent"] = true;
    weightSpecs_.push_back(json{{kind, spec}});
    constantNames_[tensorKey] = placeholder;
    return placeholder;
  }

  void addOutputs(const Ref &ref, json &specs) {
    if (ref.kind == Ref::Kind::List) {
      for (const Ref &item : ref.items)
        addOutputs(item, specs);
      return;
    }
    std::string name = ref.name;
    if (ref.kind == Ref::Kind::Constant) {
      if (ref.value.isTensor()) {
        name = constantName(ref.value.toTensor());
      } else if (ref.value.isList() || ref.value.isTuple()) {
        const auto elements = ref.value.isList() ? ref.value.toListRef().vec()
                                                 : ref.value.toTupleRef().elements().vec();
        for (const c10::IValue &item : elements)
          addOutputs(constantRef(item), specs);
        return;
      } else if (ref.value.isNone()) {
        return;
      } else {
        fail(kUnsupported, std::string("forward returns a ") + ref.value.tagKind() +
                               " (thunderc compiles models that return tensors)");
      }
    }
    specs.push_back(json{{"user_output", {{"arg", {{"as_tensor", {{"name", name}}}}}}}});
  }

  const uint8_t *data_;
  size_t size_;
  torch::jit::Module module_;
  std::shared_ptr<Graph> graph_;
  std::vector<c10::IValue> inputs_;
  std::vector<c10::TypePtr> inputTypes_; ///< forward's input types as loaded, `self` first
  std::unordered_map<Value *, c10::IValue> values_;
  std::set<Value *> dynamic_;
  std::map<std::string, std::pair<std::string, std::string>> names_; // key -> (fqn, kind)
  std::vector<at::Tensor> keepAlive_;

  TorchScriptResult *result_ = nullptr;
  std::unordered_map<Value *, Ref> refs_;
  std::set<std::string> usedNames_;
  std::map<std::string, std::string> constantNames_;
  int constantCount_ = 0;
  json nodes_ = json::array();
  json tensorValues_ = json::object();
  json weightSpecs_ = json::array();
  std::vector<json> userInputs_;

  friend struct PluginResult;

public:
  std::vector<at::Tensor> takeTensors() { return std::move(keepAlive_); }
};

/// The result keeps the tensors the weights point into.
struct PluginResult : TorchScriptResult {
  std::vector<at::Tensor> tensors;
};

} // namespace
} // namespace thunderc::frontend

namespace {
void ignorePrint(const std::string &) {}
} // namespace

extern "C" __attribute__((visibility("default"))) const char *thunderc_torchscript_prepare_v2() {
  using namespace thunderc::frontend;
  static std::string failure;
  torch::jit::setPrintHandler(&ignorePrint);
  try {
    // Run once what libtorch initializes lazily, opening files as it does: CPU detection,
    // the intra-op thread pool, the TorchScript compiler, its builtins and interpreter.
    at::Tensor x = at::ones({8, 8});
    at::Tensor y = at::matmul(x, x).relu().sum(0);
    at::parallel_for(0, 64, 1, [](int64_t, int64_t) {});
    auto unit = torch::jit::compile(
        "def f(x: Tensor, n: int):\n"
        "    y = torch.softmax(x, -1) + x.sum() * n\n"
        "    return torch.cat([y, y * 2.0], 0).t().reshape(-1)[:n]\n");
    unit->run_method("f", y.reshape({2, 4}), 3);
  } catch (const std::exception &error) {
    failure = brief(error.what());
    return failure.c_str();
  }
  return nullptr;
}

extern "C" __attribute__((visibility("default"))) thunderc::frontend::TorchScriptResult *
thunderc_torchscript_import_v2(const uint8_t *data, size_t size, const char *inputSpecJson) {
  using namespace thunderc::frontend;
  auto *result = new PluginResult();
  // libtorch's warnings (e.g. about shapes it cannot restore) are not thunderc's messages.
  struct QuietHandler : c10::WarningHandler {
    void process(const c10::Warning &) override {}
  } quiet;
  c10::WarningUtils::WarningHandlerGuard guard(&quiet);
  try {
    Converter converter(data, size);
    converter.run(inputSpecJson ? inputSpecJson : "", *result);
    result->tensors = converter.takeTensors();
  } catch (const Failure &failure) {
    result->errorCode = failure.code;
    result->error = failure.message;
  } catch (const std::bad_alloc &) {
    struct rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    result->errorCode = kInvalidInput;
    result->error = "libtorch ran out of the memory thunderc gives the TorchScript importer (" +
                    std::to_string(limit.rlim_cur >> 20) + " MiB, from the file's size)";
  } catch (const c10::Error &error) {
    result->errorCode = kInvalidInput;
    result->error = brief(error);
  } catch (const std::exception &error) {
    result->errorCode = kInvalidInput;
    result->error = brief(error.what());
  }
  if (result->errorCode != 0) {
    result->weights.clear();
    result->programJson.clear();
  }
  return result;
}
