// The model emitter's driver, the same for both targets. For a graph it writes:
//   1. <name>.h   the public C ABI (load, context, shapes, run) plus a thin C++ wrapper;
//   2. <name>.cpp (CUDA: <name>.cu) the implementation: weight binding at load, input checks
//      and symbol binding at run, a per-run arena layout (every intermediate and workspace gets
//      a 64-byte aligned slot; the arena only grows, so after warm-up a run allocates nothing),
//      then one block per node in graph order (library_calls*.cpp, or the target's kernels),
//      then output copies. The target backend (target_backend.h) writes includes, model and
//      context types, the lifecycle entry points, the arena and the kernels;
//   3. <name>_run.cpp the runner, a table of the model's functions for runtime/runner.h.
#include "codegen/model_emitter.h"

#include <algorithm>
#include <set>

#include "codegen/emit_state.h"
#include "codegen/template.h"

namespace thunderc::codegen {
namespace {

// "predicate0 && !predicate1" for the guard pairs [0, 1, 1, 0].
std::string guardCondition(const std::vector<int64_t> &pairs) {
  std::string condition;
  for (size_t i = 0; i + 1 < pairs.size(); i += 2)
    condition += std::string(condition.empty() ? "" : " && ") + (pairs[i + 1] ? "" : "!") +
                 predicateVariable(pairs[i]);
  return condition;
}

std::vector<const ir::Value *> userInputs(const ir::Graph &graph) {
  std::vector<const ir::Value *> inputs;
  for (const auto &input : graph.inputs())
    if (input->inputKind() == ir::InputKind::User)
      inputs.push_back(input.get());
  return inputs;
}

/// The State inputs, in input order: state k is "st<k>" in the generated code.
std::vector<const ir::Value *> stateInputs(const ir::Graph &graph) {
  std::vector<const ir::Value *> inputs;
  for (const auto &input : graph.inputs())
    if (input->inputKind() == ir::InputKind::State)
      inputs.push_back(input.get());
  return inputs;
}

/// Whether a node of the graph draws random numbers (the run then reads the seed and counts).
bool hasRandomNodes(const ir::Graph &graph) {
  return std::any_of(graph.nodes().begin(), graph.nodes().end(),
                     [](const auto &node) { return node->op() == ir::OpKind::Random; });
}

/// Every input backed by weights.bin; a State input's weight is its initial value.
std::vector<const ir::Value *> weightInputs(const ir::Graph &graph) {
  std::vector<const ir::Value *> inputs;
  for (const auto &input : graph.inputs())
    if (input->inputKind() != ir::InputKind::User)
      inputs.push_back(input.get());
  return inputs;
}

// Every node thunderc cannot compile, listed at once with its source line.
Status checkSupported(const ir::Graph &graph) {
  std::string list;
  int count = 0;
  for (const auto &node : graph.nodes()) {
    if (node->op() != ir::OpKind::AtenCall)
      continue;
    ++count;
    list += "\n  node '" + node->name() + "' (" + ir::attr::target(*node) + ")";
    if (!node->source().file.empty())
      list += " at " + node->source().file + ":" +
              node->source().loc.substr(node->source().loc.rfind(':') + 1) + ": " +
              node->source().code;
  }
  if (count == 0)
    return Status::success();
  return unsupported(std::to_string(count) +
                     " node(s) use ops thunderc cannot compile (no runtime fallback exists):" +
                     list);
}

class ModelEmitter {
public:
  ModelEmitter(const ir::Graph &graph, const EmitOptions &options, TargetBackend &backend)
      : graph_(graph), options_(options), backend_(backend), name_(options.name) {}

  Expected<std::map<std::string, std::string>> run() {
    TC_TRY(checkSupported(graph_));
    TC_TRY(planSymbolBinding());
    TC_TRY(backend_.prepare(graph_));
    stored_ = backend_.storedWeights(graph_);
    std::map<std::string, std::string> files;
    files[name_ + ".h"] = modelHeader(options_, backend_);
    TC_ASSIGN_OR_RETURN(files[name_ + backend_.modelBase().source], implementation());
    files[name_ + "_run.cpp"] = modelRunner(options_, backend_);
    return files;
  }

private:

  // Each symbol is bound from the first user-input dim that is exactly that symbol.
  Status planSymbolBinding() {
    std::vector<const ir::Value *> inputs = userInputs(graph_);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::Shape &shape = inputs[i]->type().shape;
      for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d].isStatic() || shape[d].expr().kind() != ir::SymExpr::Kind::Symbol)
          continue;
        bindings_.emplace(shape[d].expr().symbolName(), std::make_pair(i, d));
      }
    }
    // Data-dependent symbols are bound by the nonzero or item node that computes them; until
    // then (the arena, output_shapes, the check of the caller's outputs) they stand at their
    // upper bound, which every type using them needs.
    std::set<std::string> used;
    for (const auto &node : graph_.nodes())
      for (int r = 0; r < node->numResults(); ++r)
        for (const ir::Dim &dim : node->result(r)->type().shape)
          if (!dim.isStatic())
            dim.expr().collectSymbols(used);
    for (const auto &node : graph_.nodes()) {
      if (node->op() != ir::OpKind::Nonzero && node->op() != ir::OpKind::Item)
        continue;
      const std::string &symbol = ir::attr::symbol(*node);
      auto range = graph_.symbols().find(symbol);
      if (range == graph_.symbols().end())
        return invalidInput("node '" + node->name() + "' binds undeclared symbol " + symbol);
      if (used.count(symbol) && !range->second.max)
        return unsupported(
            "node '" + node->name() + "' (" + std::string(node->info().name) + ") computes symbol " +
            symbol + " at run time and later sizes depend on it, but it has no upper bound to "
            "plan memory for: bound it in the exported program (torch._check(value <= N))");
      dataDependent_[symbol] = range->second;
    }
    for (const auto &[symbol, range] : graph_.symbols())
      if (!bindings_.count(symbol) && !dataDependent_.count(symbol))
        return unsupported("symbol " + symbol +
                           " is not the size of any input dim, so it cannot be bound at run "
                           "time");
    return Status::success();
  }

  /// Whether a dim of an output depends on a data-dependent symbol (its size is known only
  /// after the run; the caller's buffer holds the upper bound).
  bool isDataDependent(const ir::Dim &dim) const {
    if (dim.isStatic() || dataDependent_.empty())
      return false;
    std::set<std::string> symbols;
    dim.expr().collectSymbols(symbols);
    return std::any_of(symbols.begin(), symbols.end(),
                       [&](const std::string &symbol) { return dataDependent_.count(symbol); });
  }

  // Checks of the caller's input tensors and binding of symbols; writes into `sym`. The
  // base checks what a table says (count, dtype, rank; then every dim against the dims the
  // symbols give); the symbols and their ranges are the model's own.
  void emitBindInputs(CodeWriter &code) {
    std::vector<const ir::Value *> inputs = userInputs(graph_);
    code.open("static tc_status bind_inputs(const tc_tensor *inputs, int num_inputs, "
              "[[maybe_unused]] Symbols &sym, tc_error *err)");
    code.line("tc_status status = check_inputs(inputs, num_inputs, err);");
    code.line("if (status != TC_OK) return status;");
    for (const auto &[symbol, where] : bindings_) {
      code.line("sym." + symbol + " = inputs[" + std::to_string(where.first) + "].shape[" +
                std::to_string(where.second) + "];");
      const ir::SymbolRange &range = graph_.symbols().at(symbol);
      std::string condition = "sym." + symbol + " < " + std::to_string(range.min);
      if (range.max)
        condition += " || sym." + symbol + " > " + std::to_string(*range.max);
      code.open("if (" + condition + ")");
      code.line("return tc_error_setf(err, TC_ERROR_OUT_OF_RANGE, \"input " +
                std::to_string(where.first) + " '" + inputs[where.first]->name() + "' dim " +
                std::to_string(where.second) + ": " + symbol + " = %lld is outside its range [" +
                std::to_string(range.min) + ", " +
                (range.max ? std::to_string(*range.max) : "inf") + "]\", (long long)sym." +
                symbol + ");");
      code.close();
    }
    for (const auto &[symbol, range] : dataDependent_)
      if (range.max)
        code.line("sym." + symbol + " = " + std::to_string(*range.max) +
                  "; // data-dependent: its upper bound until the node binding it runs");
    std::vector<std::string> dims;
    for (const ir::Value *input : inputs)
      for (const ir::Dim &dim : input->type().shape)
        dims.push_back(dimExpr(dim));
    code.line("const int64_t dims[] = " + braceList(dims.empty() ? std::vector<std::string>{"0"}
                                                                 : dims) + ";");
    code.line("return check_input_dims(inputs, dims, err);");
    code.close();
  }

  void emitOutputShapes(CodeWriter &code) {
    code.open("static void fill_output_shapes([[maybe_unused]] const Symbols &sym, "
              "[[maybe_unused]] tc_tensor *outputs)");
    for (size_t i = 0; i < graph_.numUserOutputs(); ++i) {
      const ir::TensorType &type = graph_.outputs()[i]->type();
      std::string t = "outputs[" + std::to_string(i) + "]";
      code.line(t + ".dtype = " + abiDType(type.dtype) + ";");
      code.line(t + ".rank = " + std::to_string(type.rank()) + ";");
      for (size_t d = 0; d < type.shape.size(); ++d)
        code.line(t + ".shape[" + std::to_string(d) + "] = " + dimExpr(type.shape[d]) + ";");
    }
    code.close();
  }

  // Pointer names: graph inputs read the caller's tensors, weights the mapped file. Without a
  // memory plan every node result has its own arena slot ("v7"). With one (arena_offsets on
  // the nodes), results sit at their planned offsets, views point into their operand's
  // storage, and graph outputs are written straight to the caller's buffers ("out0").
  void assignPointers(EmitState &state) {
    std::vector<const ir::Value *> inputs = userInputs(graph_);
    for (size_t i = 0; i < inputs.size(); ++i)
      state.setPtr(inputs[i], "in" + std::to_string(i));
    std::vector<const ir::Value *> weights = weightInputs(graph_);
    for (size_t i = 0; i < weights.size(); ++i) {
      state.setPtr(weights[i], "w" + std::to_string(i));
      if (stored_.count(weights[i]->weightName()))
        state.markPackedWeight("w" + std::to_string(i));
    }
    std::vector<const ir::Value *> states = stateInputs(graph_);
    for (size_t k = 0; k < states.size(); ++k) {
      state.setPtr(states[k], "st" + std::to_string(k));
      stateIndex_[states[k]->weightName()] = k;
    }
    int counter = 0;
    for (const auto &node : graph_.nodes()) {
      const ir::AttrValue *offsets = node->attrs().find(ir::kArenaOffsetsAttr);
      for (int r = 0; r < node->numResults(); ++r) {
        const ir::Value *result = node->result(r);
        std::string name = "v" + std::to_string(counter++);
        if (!planned_) {
          state.setPtr(result, name);
          slots_.push_back({name, result, -1});
          continue;
        }
        int64_t offset = offsets ? std::get<std::vector<int64_t>>(*offsets)[r] : -1;
        if (ir::hasTrait(node->op(), ir::kView)) {
          opt::ValueLayout layout = state.layout(result);
          std::string base = state.ptr(layout.storage);
          state.setPtr(result, layout.offset == ir::Dim(0)
                                   ? base
                                   : "(" + base + " + " + dimExpr(layout.offset) + ")");
        } else if (offset >= 0) {
          state.setPtr(result, name);
          slots_.push_back({name, result, offset});
        } else {
          auto it = std::find(graph_.outputs().begin(), graph_.outputs().end(), result);
          TC_CHECK(it != graph_.outputs().end(),
                   "planned result without an offset that is not a graph output");
          size_t index = static_cast<size_t>(it - graph_.outputs().begin());
          state.setPtr(result, outputPointer(index));
          pinnedOutputs_[index] = result;
        }
      }
    }
  }

  /// Where output `index` is written: the caller's buffer ("out2"), or for a state output
  /// the context's copy of that state ("st0").
  std::string outputPointer(size_t index) const {
    if (const std::string *stateName = graph_.stateOf(index))
      return "st" + std::to_string(stateIndex_.at(*stateName));
    return "out" + std::to_string(index);
  }

  /// kStates: per State input, its weight (initial value) and its slot in the context's state.
  void emitStateTable(CodeWriter &code, const std::vector<const ir::Value *> &weights) {
    std::vector<const ir::Value *> states = stateInputs(graph_);
    if (states.empty()) {
      code.line("static constexpr tc::StateSpec kStates[] = {{0, 0, 0}};");
      code.line("static constexpr int kNumStates = 0;");
      code.line("static constexpr size_t kStateBytes = 0;");
      return;
    }
    code.line("static constexpr tc::StateSpec kStates[] = {");
    int64_t offset = 0;
    for (const ir::Value *input : states) {
      size_t weight = static_cast<size_t>(
          std::find(weights.begin(), weights.end(), input) - weights.begin());
      int64_t bytes = ir::numElements(input->type().shape).value() *
                      static_cast<int64_t>(ir::dtypeSize(input->type().dtype));
      code.line("    {" + std::to_string(weight) + ", " + std::to_string(offset) + ", " +
                std::to_string(bytes) + "}, // " + input->weightName());
      offset += (bytes + 63) / 64 * 64;
    }
    code.line("};");
    // int, not size_t: with no state, `i < kNumStates` must not be an unsigned compare with 0.
    code.line("static constexpr int kNumStates = " + std::to_string(states.size()) + ";");
    code.line("static constexpr size_t kStateBytes = " + std::to_string(offset) + ";");
  }

  /// `static constexpr <type> <name>[] = {...};` with a placeholder entry when `entries` is
  /// empty (a zero-length array is not C++).
  static void emitTable(CodeWriter &code, const std::string &declaration,
                        const std::vector<std::string> &entries, const std::string &placeholder) {
    if (entries.empty()) {
      code.line("static constexpr " + declaration + "[] = {" + placeholder + "};");
      return;
    }
    code.line("static constexpr " + declaration + "[] = {");
    for (const std::string &entry : entries)
      code.line("    " + entry + ",");
    code.line("};");
  }

  /// The model's description for its base (tc_model_common.h lists what it reads).
  void emitTables(CodeWriter &code, const std::vector<const ir::Value *> &inputs,
                  const std::vector<const ir::Value *> &weights) {
    code.line("static constexpr const char *kName = " + stringLiteral(name_) + ";");
    code.line("static constexpr int kNumInputs = " + std::to_string(inputs.size()) + ";");
    code.line("static constexpr int kNumOutputs = " + std::to_string(graph_.numUserOutputs()) +
              ";");
    std::vector<std::string> entries;
    for (const ir::Value *weight : weights) {
      std::vector<std::string> dims;
      ir::DType dtype = weight->type().dtype;
      auto own = stored_.find(weight->weightName());
      if (own != stored_.end()) {
        // Stored in the target's layout: weights.bin holds that shape.
        for (int64_t dim : own->second.shape)
          dims.push_back(std::to_string(dim));
        dtype = own->second.dtype;
      } else {
        for (const ir::Dim &dim : weight->type().shape)
          dims.push_back(std::to_string(dim.value()));
      }
      entries.push_back("{" + stringLiteral(weight->weightName()) + ", " + abiDType(dtype) +
                        ", " + std::to_string(dims.size()) + ", " + braceList(dims) + "}");
    }
    emitTable(code, "tc::WeightSpec kWeights", entries, "{\"\", TC_DTYPE_F32, 0, {0}}");
    code.line("static constexpr size_t kNumWeights = " + std::to_string(weights.size()) + ";");
    code.line("static constexpr bool kCheckCompileId = " +
              std::string(options_.compileId.empty() ? "false" : "true") + ";");
    code.line("static constexpr const char *kCompileId = " + stringLiteral(options_.compileId) +
              ";");
    emitStateTable(code, weights);
    entries.clear();
    for (const ir::Value *input : inputs) {
      const ir::TensorType &type = input->type();
      entries.push_back("{" + stringLiteral(input->name()) + ", " + abiDType(type.dtype) + ", \"" +
                        std::string(ir::dtypeName(type.dtype)) + "\", " +
                        std::to_string(type.rank()) + ", " + stringLiteral(type.str()) + "}");
    }
    emitTable(code, "tc::InputSpec kInputs", entries, "{\"\", TC_DTYPE_F32, \"\", 0, \"\"}");
    emitTable(code, "tc::ObservedSpec kObserved", observed_, "{\"\", \"\", \"\", 0, TC_DTYPE_F32}");
    entries.clear();
    for (size_t i = 0; i < graph_.numUserOutputs(); ++i) {
      const ir::Shape &shape = graph_.outputs()[i]->type().shape;
      for (size_t d = 0; d < shape.size(); ++d)
        if (isDataDependent(shape[d]))
          entries.push_back("{" + std::to_string(i) + ", " + std::to_string(d) + "}");
    }
    emitTable(code, "tc::OutputDim kDataDependent", entries, "{0, 0}");
    code.line("static constexpr int kNumDataDependent = " + std::to_string(entries.size()) + ";");
  }

  Expected<std::string> implementation() {
    CodeWriter body;
    CodeWriter functions;
    EmitState state(body, functions, &backend_);
    planned_ = std::any_of(graph_.nodes().begin(), graph_.nodes().end(), [](const auto &node) {
      return node->attrs().has(ir::kArenaOffsetsAttr);
    });
    if (planned_) {
      layouts_ = opt::computeLayouts(graph_);
      state.setLayouts(&layouts_);
    }
    assignPointers(state);
    for (const auto &node : graph_.nodes())
      if (node->op() == ir::OpKind::CondPredicate)
        body.line("[[maybe_unused]] bool " + predicateVariable(ir::attr::predicate_id(*node)) +
                  " = false;");
    for (const auto &node : graph_.nodes()) {
      // A node of a cond branch runs only when the branch is taken.
      const ir::AttrValue *guard = node->attrs().find(ir::kGuardAttr);
      if (guard != nullptr)
        body.open("if (" + guardCondition(std::get<std::vector<int64_t>>(*guard)) + ")");
      Status status = emitNode(*node, state);
      if (!status.ok())
        return std::move(status).error().withContext("node '" + node->name() + "'");
      emitObserveHooks(*node, state);
      if (guard != nullptr)
        body.close();
    }
    if (!options_.perturbNode.empty() && !perturbed_)
      return Error(ErrorKind::Usage, "--debug-perturb: no value named '" + options_.perturbNode +
                          "' is written to memory in this compile (views and values inside a "
                          "fused kernel are not; `--emit=report` lists what is)");
    emitOutputCopies(state);
    std::vector<const ir::Value *> inputs = userInputs(graph_);
    std::vector<const ir::Value *> weights = weightInputs(graph_);
    const ModelBaseSpec base = backend_.modelBase();

    CodeWriter code;
    code.line("// " + name_ + base.source + ": the model compiled by thunderc from " +
              options_.sourceName + ". Generated; do not edit.");
    code.line("// What every model does alike is " + base.header + "'s " + base.ns +
              "::ModelBase; here are this model's tables, checks, kernels and run_impl.");
    code.line("#include \"" + name_ + ".h\"");
    code.line();
    code.line("#include \"" + base.header + "\"");
    code.line();
    code.line("struct " + name_ + "_model : " + base.ns + "::model_data<" +
              std::to_string(weights.size()) + "> {};");
    code.line("struct " + name_ + "_context : " + base.ns + "::context_data<" + name_ +
              "_model> {};");
    code.line();
    code.line("namespace {");
    code.line();
    if (graph_.symbols().empty()) {
      code.line("struct Symbols {};");
    } else {
      code.open("struct Symbols");
      for (const auto &[symbol, range] : graph_.symbols())
        code.line("int64_t " + symbol + " = 0;");
      code.close(";");
    }
    code.line();
    code.raw(functions.str());
    backend_.emitDefinitions(code, options_);
    code.line();
    code.open("struct Model : " + base.ns + "::ModelBase<Model, " + name_ + "_model, " + name_ +
              "_context, Symbols>");
    emitTables(code, inputs, weights);
    backend_.emitModelConstants(code, options_, state);
    code.line();
    emitBindInputs(code);
    code.line();
    emitOutputShapes(code);
    code.line();
    emitRun(code, state, body, inputs, weights, base);
    code.close(";");
    code.line();
    code.line("} // namespace");
    code.line();
    std::map<std::string, std::string> values = backend_.abiValues(name_);
    code.raw(renderEmbeddedTemplate("codegen/templates/model_abi.cpp.in",
                                    {{"NAME", name_}, {"TARGET_ABI", values.at("TARGET_ABI")}}));
    return code.str();
  }

  /// After a node's code: the test-only perturbation of its value, then the observer's call
  /// for every result it wrote to memory (views and values kept in registers are not).
  void emitObserveHooks(const ir::Node &node, EmitState &state) {
    if (node.op() == ir::OpKind::CondPredicate)
      return;
    CodeWriter &code = state.code();
    for (int r = 0; r < node.numResults(); ++r) {
      const ir::Value *result = node.result(r);
      const ir::TensorType &type = result->type();
      if (type.rank() > 8 || (planned_ && ir::hasTrait(node.op(), ir::kView)) ||
          (planned_ && !opt::isContiguous(state.layout(result), type.shape)))
        continue;
      // A fused kernel's result is the value of the op inside it that produced it.
      const ir::Node *origin = &node;
      if (node.body() != nullptr && node.body()->outputs()[size_t(r)]->producer() != nullptr)
        origin = node.body()->outputs()[size_t(r)]->producer();
      // A copy thunderc inserted (a view made contiguous) holds the copied value's elements.
      std::string name = result->name();
      if (name.empty() && origin->op() == ir::OpKind::Copy) {
        const ir::Value *copied = origin->operand(0);
        if (node.body() != nullptr)
          for (size_t i = 0; i < node.body()->inputs().size(); ++i)
            if (node.body()->inputs()[i].get() == copied)
              copied = node.operand(static_cast<int>(i));
        name = copied->name();
      }
      std::string op = origin->source().target.empty() ? std::string(origin->info().name)
                                                       : origin->source().target;
      std::string source;
      if (!origin->source().file.empty())
        source = origin->source().file + ":" +
                 origin->source().loc.substr(origin->source().loc.rfind(':') + 1) + ": " +
                 origin->source().code;
      std::vector<std::string> dims;
      for (const ir::Dim &dim : type.shape)
        dims.push_back("int64_t(" + dimExpr(dim) + ")");
      std::string shape = "{";
      for (size_t d = 0; d < dims.size(); ++d)
        shape += (d ? ", " : "") + dims[d];
      shape += "}";
      int index = static_cast<int>(observed_.size());
      observed_.push_back("{" + stringLiteral(name) + ", " + stringLiteral(op) + ", " + stringLiteral(source) +
                          ", " + (node.body() != nullptr ? "1" : "0") + ", " +
                          abiDType(type.dtype) + "}");
      if (!options_.perturbNode.empty() && !name.empty() && name == options_.perturbNode) {
        code.line("// --debug-perturb: this value is made wrong on purpose (testing bisect).");
        code.line("debug_perturb(context, " + state.ptr(result) + ", " + abiDType(type.dtype) +
                  ", " + productExpr(type.shape) + ");");
        perturbed_ = true;
      }
      code.line("if (context->observer != nullptr) observe(context, " + std::to_string(index) +
                ", " + state.ptr(result) + ", " + shape + ");");
    }
  }

  /// `run_impl`: after the base's checks, the arena laid out for this run's sizes, the
  /// pointers, every node, the output copies.
  void emitRun(CodeWriter &code, EmitState &state, const CodeWriter &body,
               const std::vector<const ir::Value *> &inputs,
               const std::vector<const ir::Value *> &weights, const ModelBaseSpec &base) {
    code.open("static tc_status run_impl(" + name_ + "_context *context, "
              "[[maybe_unused]] const tc_tensor *inputs, [[maybe_unused]] tc_tensor *outputs, "
              "[[maybe_unused]] Symbols &sym, [[maybe_unused]] tc_error *err)");
    if (hasRandomNodes(graph_)) {
      code.line("// The random ops draw from this context's seed and run number (tc_random.h).");
      code.line("const uint64_t rng_seed = context->seed;");
      code.line("const uint32_t rng_run = static_cast<uint32_t>(context->runs++);");
    }
    std::vector<std::pair<std::string, std::string>> pointers; // name, type
    if (planned_) {
      code.line("// Arena: the memory plan's offsets (for the symbols' upper bounds), then workspaces.");
    } else {
      code.line("// Arena layout for this run's sizes: one 64-byte aligned slot per value.");
    }
    code.line("size_t bytes = 0;");
    for (const Slot &slot : slots_) {
      std::string type = cppType(slot.value->type().dtype);
      std::string size = "tc::align_up(size_t(" + productExpr(slot.value->type().shape) +
                         ") * sizeof(" + type + "))";
      if (slot.offset >= 0) {
        code.line("const size_t off_" + slot.name + " = " + std::to_string(slot.offset) + ";");
        code.line("bytes = std::max(bytes, off_" + slot.name + " + " + size + ");");
      } else {
        code.line("const size_t off_" + slot.name + " = bytes;");
        code.line("bytes += " + size + ";");
      }
      pointers.push_back({slot.name, type});
    }
    for (const EmitState::Slot &slot : state.workspaces()) {
      code.line("const size_t off_" + slot.name + " = bytes;");
      code.line("bytes += tc::align_up(size_t(" + slot.elements + ") * sizeof(" + slot.type +
                "));");
      pointers.push_back({slot.name, slot.type});
    }
    code.line("[[maybe_unused]] unsigned char *base = nullptr;");
    code.line("tc_status status = begin_run(context, bytes, &base, err);");
    code.line("if (status != TC_OK) return status;");
    for (const std::string &line : base.runPrologue)
      code.line(line);
    if (base.graphs)
      code.open("auto work = [&]() -> tc_status");
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string type = cppType(inputs[i]->type().dtype);
      code.line("[[maybe_unused]] const " + type + " *in" + std::to_string(i) +
                " = static_cast<const " + type + " *>(inputs[" + std::to_string(i) + "].data);");
    }
    for (size_t i = 0; i < weights.size(); ++i) {
      std::string type = cppType(weights[i]->type().dtype);
      code.line("[[maybe_unused]] const " + type + " *w" + std::to_string(i) +
                " = static_cast<const " + type + " *>(context->model->params[" +
                std::to_string(i) + "].data);");
    }
    for (const auto &[pointer, type] : pointers)
      code.line(type + " *" + pointer + " = reinterpret_cast<" + type + " *>(base + off_" +
                pointer + ");");
    std::vector<const ir::Value *> states = stateInputs(graph_);
    if (!states.empty())
      code.line("unsigned char *state = state_base(context);");
    for (size_t k = 0; k < states.size(); ++k) {
      std::string type = cppType(states[k]->type().dtype);
      code.line("[[maybe_unused]] " + type + " *st" + std::to_string(k) + " = reinterpret_cast<" +
                type + " *>(state + kStates[" + std::to_string(k) + "].offset);");
    }
    for (const auto &[index, value] : pinnedOutputs_) {
      if (graph_.stateOf(index))
        continue;
      std::string type = cppType(value->type().dtype);
      code.line(type + " *out" + std::to_string(index) + " = static_cast<" + type +
                " *>(outputs[" + std::to_string(index) + "].data);");
    }
    code.line();
    code.raw(body.str());
    code.line();
    if (!dataDependent_.empty()) {
      code.line("// Outputs with data-dependent dims: this run's sizes.");
      code.line("fill_output_shapes(sym, outputs);");
    }
    code.line("return TC_OK;");
    if (base.graphs) {
      code.close(";");
      // What the captured launches bake in: the arena, the state, every input's data and
      // dims, every output's data.
      code.line("const uint64_t key[] = {");
      code.line("    uint64_t(reinterpret_cast<uintptr_t>(base)),");
      if (!states.empty())
        code.line("    uint64_t(reinterpret_cast<uintptr_t>(state_base(context))),");
      for (size_t i = 0; i < inputs.size(); ++i) {
        std::string t = "inputs[" + std::to_string(i) + "]";
        code.line("    uint64_t(reinterpret_cast<uintptr_t>(" + t + ".data)),");
        for (int d = 0; d < inputs[i]->type().rank(); ++d)
          code.line("    uint64_t(" + t + ".shape[" + std::to_string(d) + "]),");
      }
      for (size_t i = 0; i < graph_.numUserOutputs(); ++i)
        code.line("    uint64_t(reinterpret_cast<uintptr_t>(outputs[" + std::to_string(i) +
                  "].data)),");
      code.line("};");
      code.line("return run_work(context, key, sizeof(key) / sizeof(key[0]), work, err);");
    }
    code.close();
  }

  // Graph outputs not written in place: copied (or gathered, for a strided view) into the
  // caller's buffers.
  void emitOutputCopies(EmitState &state) {
    CodeWriter &code = state.code();
    state.setCurrentNode(nullptr);
    bool commented = false;
    for (size_t i = 0; i < graph_.outputs().size(); ++i) {
      const ir::Value *output = graph_.outputs()[i];
      if (pinnedOutputs_.count(i))
        continue;
      std::string type = cppType(output->type().dtype);
      std::string target = graph_.stateOf(i) ? outputPointer(i)
                                             : "static_cast<" + type + " *>(outputs[" +
                                                   std::to_string(i) + "].data)";
      const bool contiguous = opt::isContiguous(state.layout(output), output->type().shape);
      if (contiguous && state.ptr(output) == target)
        continue; // the state is unchanged
      if (!commented)
        code.line("// Results to the caller's buffers, then the new state into the context's.");
      commented = true;
      if (!contiguous) {
        emitGather(state, output, target);
        continue;
      }
      state.copyElements(type, state.ptr(output), productExpr(output->type().shape), target);
    }
  }

  /// An arena slot: a node result with its planned offset (-1: laid out in order).
  struct Slot {
    std::string name;
    const ir::Value *value;
    int64_t offset;
  };

  const ir::Graph &graph_;
  const EmitOptions &options_;
  TargetBackend &backend_;
  bool planned_ = false;
  std::map<const ir::Value *, opt::ValueLayout> layouts_;
  std::vector<Slot> slots_;
  std::map<size_t, const ir::Value *> pinnedOutputs_; ///< output index -> value written there
  std::vector<std::string> observed_; ///< kObserved's entries, in execution order
  bool perturbed_ = false;            ///< --debug-perturb's value was found
  std::map<std::string, size_t> stateIndex_;          ///< state weight name -> k of "st<k>"
  std::string name_;
  std::map<std::string, StoredWeight> stored_; ///< the target's own weight layouts, by name
  std::map<std::string, std::pair<size_t, size_t>> bindings_; ///< symbol -> (input, dim)
  /// Symbols bound by nonzero/item nodes at run time -> their ranges.
  std::map<std::string, ir::SymbolRange> dataDependent_;
};

} // namespace

Expected<std::map<std::string, std::string>> emitModelSources(const ir::Graph &graph,
                                                              const EmitOptions &options,
                                                              TargetBackend &backend) {
  return ModelEmitter(graph, options, backend).run();
}

} // namespace thunderc::codegen
