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
    std::map<std::string, std::string> files;
    files[name_ + ".h"] = modelHeader(options_, backend_);
    TC_ASSIGN_OR_RETURN(files[backend_.sourceFile(name_)], implementation());
    backend_.addSources(name_, files);
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

  // Checks of the caller's input tensors and binding of symbols; writes into `sym`.
  void emitBindInputs(CodeWriter &code) {
    std::vector<const ir::Value *> inputs = userInputs(graph_);
    code.open("tc_status bindInputs(const tc_tensor *inputs, int num_inputs, Symbols &sym, "
              "tc_error *err)");
    code.open("if (num_inputs != " + std::to_string(inputs.size()) + ")");
    code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"expected " +
              std::to_string(inputs.size()) + " input(s), got %d\", num_inputs);");
    code.close();
    if (!inputs.empty()) {
      code.open("if (inputs == nullptr)");
      code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"inputs is null\");");
      code.close();
    }
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::TensorType &type = inputs[i]->type();
      std::string t = "inputs[" + std::to_string(i) + "]";
      std::string label = "input " + std::to_string(i) + " '" + inputs[i]->name() + "'";
      // Not a tensor at all (rank outside 0..TC_MAX_RANK, a negative dim, a size overflowing
      // int64) is a bad argument, before any comparison with what the model expects.
      code.open("if (tc_tensor_numel(&" + t + ") < 0)");
      code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + label +
                ": not a valid tensor (rank %d: outside 0..TC_MAX_RANK, a negative dim or "
                "an element count overflowing int64)\", " + t + ".rank);");
      code.close();
      code.open("if (" + t + ".dtype != " + abiDType(type.dtype) + ")");
      code.line("return tc_error_setf(err, TC_ERROR_DTYPE_MISMATCH, \"" + label +
                ": dtype %s, expected " + std::string(ir::dtypeName(type.dtype)) + "\", " +
                "tc_dtype_name(" + t + ".dtype));");
      code.close();
      code.open("if (" + t + ".rank != " + std::to_string(type.rank()) + ")");
      code.line("return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH, \"" + label +
                ": rank %d, expected " + std::to_string(type.rank()) + " (" + type.str() +
                ")\", " + t + ".rank);");
      code.close();
    }
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
    for (size_t i = 0; i < inputs.size(); ++i) {
      const ir::TensorType &type = inputs[i]->type();
      std::string t = "inputs[" + std::to_string(i) + "]";
      std::string label = "input " + std::to_string(i) + " '" + inputs[i]->name() + "'";
      for (size_t d = 0; d < type.shape.size(); ++d) {
        code.open("if (" + t + ".shape[" + std::to_string(d) + "] != " + dimExpr(type.shape[d]) +
                  ")");
        code.line("return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH, \"" + label + ": dim " +
                  std::to_string(d) + " is %lld, expected %lld (" + type.str() +
                  ")\", (long long)" + t + ".shape[" + std::to_string(d) +
                  "], (long long)(" + dimExpr(type.shape[d]) + "));");
        code.close();
      }
      code.open("if (" + t + ".data == nullptr && " + productExpr(type.shape) + " > 0)");
      code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + label +
                ": data is null\");");
      code.close();
    }
    code.line("(void)sym;");
    code.line("return TC_OK;");
    code.close();
  }

  void emitOutputShapes(CodeWriter &code) {
    code.open("void fillOutputShapes(const Symbols &sym, tc_tensor *outputs)");
    for (size_t i = 0; i < graph_.numUserOutputs(); ++i) {
      const ir::TensorType &type = graph_.outputs()[i]->type();
      std::string t = "outputs[" + std::to_string(i) + "]";
      code.line(t + ".dtype = " + abiDType(type.dtype) + ";");
      code.line(t + ".rank = " + std::to_string(type.rank()) + ";");
      for (size_t d = 0; d < type.shape.size(); ++d)
        code.line(t + ".shape[" + std::to_string(d) + "] = " + dimExpr(type.shape[d]) + ";");
    }
    code.line("(void)sym;");
    code.line("(void)outputs;");
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
    for (size_t i = 0; i < weights.size(); ++i)
      state.setPtr(weights[i], "w" + std::to_string(i));
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
    code.open("struct StateSpec");
    code.line("size_t weight; ///< index into kWeights: the initial value");
    code.line("size_t offset; ///< bytes from the first byte of the context's state");
    code.line("size_t bytes;");
    code.close(";");
    std::vector<const ir::Value *> states = stateInputs(graph_);
    code.line("const StateSpec kStates[] = {");
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
    if (states.empty())
      code.line("    {0, 0, 0},");
    code.line("};");
    // int, not size_t: with no state, `i < kNumStates` must not be an unsigned compare with 0.
    code.line("constexpr int kNumStates = " + std::to_string(states.size()) + ";");
    code.line("constexpr size_t kStateBytes = " + std::to_string(offset) + ";");
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

    CodeWriter code;
    code.line("// " + backend_.sourceFile(name_) + ": the model compiled by thunderc from " +
              options_.sourceName + ". Generated; do not edit.");
    code.line("#include \"" + name_ + ".h\"");
    code.line();
    backend_.emitIncludesAndTypes(code, name_, weights.size());
    code.line("#include <initializer_list>");
    code.line();
    code.line("namespace {");
    code.line();
    code.line("constexpr size_t kAlign = 64;");
    code.line("[[maybe_unused]] size_t alignUp(size_t bytes) {"
              " return (bytes + kAlign - 1) / kAlign * kAlign; }");
    code.line();
    code.open("struct Symbols");
    for (const auto &[symbol, range] : graph_.symbols())
      code.line("int64_t " + symbol + " = 0;");
    code.close(";");
    code.line();
    code.open("struct WeightSpec");
    code.line("const char *name;");
    code.line("tc_dtype dtype;");
    code.line("int32_t rank;");
    code.line("int64_t shape[TC_MAX_RANK];");
    code.close(";");
    code.line();
    code.line("const WeightSpec kWeights[] = {");
    for (const ir::Value *weight : weights) {
      std::vector<std::string> dims;
      for (const ir::Dim &dim : weight->type().shape)
        dims.push_back(std::to_string(dim.value()));
      code.line("    {" + stringLiteral(weight->weightName()) + ", " + abiDType(weight->type().dtype) +
                ", " + std::to_string(weight->type().rank()) + ", " + braceList(dims) + "},");
    }
    if (weights.empty())
      code.line("    {\"\", TC_DTYPE_F32, 0, {0}},");
    code.line("};");
    code.line("constexpr size_t kNumWeights = " + std::to_string(weights.size()) + ";");
    code.line("// The compile this code belongs to: _load refuses a weights.bin of another.");
    code.line("constexpr bool kCheckCompileId = " +
              std::string(options_.compileId.empty() ? "false" : "true") + ";");
    code.line("const char kCompileId[] = " + stringLiteral(options_.compileId) + ";");
    emitStateTable(code, weights);
    code.line("const char *const kInputNames[] = " +
              [&] {
                std::vector<std::string> names;
                for (const ir::Value *input : inputs)
                  names.push_back(stringLiteral(input->name()));
                return braceList(names.empty() ? std::vector<std::string>{"\"\""} : names);
              }() +
              ";");
    code.line();
    emitBindInputs(code);
    code.line();
    emitOutputShapes(code);
    code.line();
    emitCheckOutputs(code);
    code.line();
    code.raw(functions.str());
    backend_.emitDefinitions(code, options_);
    emitObserveSupport(code);
    code.line("} // namespace");
    code.line();
    emitApi(code, inputs.size());
    emitRun(code, state, body, inputs, weights);
    backend_.emitMoreEntryPoints(code, name_, inputs.size(), graph_.numUserOutputs(), state);
    return code.str();
  }

  void emitApi(CodeWriter &code, size_t numInputs) {
    std::string n = name_;
    code.line("int " + n + "_num_inputs(void) { return " + std::to_string(numInputs) + "; }");
    code.line("int " + n + "_num_outputs(void) { return " +
              std::to_string(graph_.numUserOutputs()) + "; }");
    code.line("int " + n + "_num_states(void) { return kNumStates; }");
    code.open("const char *" + n + "_input_name(int index)");
    code.line("return index >= 0 && index < " + std::to_string(numInputs) +
              " ? kInputNames[index] : nullptr;");
    code.close();
    code.line();
    backend_.emitLifecycle(code, n);
    backend_.emitContextReset(code, n);
    backend_.emitSetNumThreads(code, n);
    emitSetSeed(code);
    emitSetObserver(code);
    emitOutputShapesApi(code);
  }

  /// `<name>_context_<what>(context, <parameters>, err)`: the null-context check, then
  /// `statements`, then TC_OK.
  void emitContextSetter(CodeWriter &code, const std::string &what, const std::string &parameters,
                         const std::vector<std::string> &statements) {
    std::string n = name_;
    openEntryPoint(code,
                   "tc_status " + n + "_context_" + what + "(" + n + "_context *context, " +
                       parameters + ", tc_error *err)",
                   "context == nullptr", n + "_context_" + what + ": null context");
    for (const std::string &statement : statements)
      code.line(statement);
    code.line("return TC_OK;");
    code.close();
    code.line();
  }

  void emitSetObserver(CodeWriter &code) {
    emitContextSetter(code, "set_observer", "tc_observer observer, void *user",
                      {"context->observer = observer;", "context->observer_user = user;"});
  }

  // The random ops' seed: a host field the run reads (the context's `seed` and `runs`, which
  // both targets declare); a new seed restarts the run count, so its sequence replays.
  void emitSetSeed(CodeWriter &code) {
    emitContextSetter(code, "set_seed", "uint64_t seed",
                      {"context->seed = seed;", "context->runs = 0;"});
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
        code.line("debugPerturb(context, " + state.ptr(result) + ", " + abiDType(type.dtype) +
                  ", " + productExpr(type.shape) + ");");
        perturbed_ = true;
      }
      code.line("if (context->observer != nullptr) observe(context, " + std::to_string(index) +
                ", " + state.ptr(result) + ", " + shape + ");");
    }
  }

  /// kObserved (what each observable value is) and the functions the hooks call.
  void emitObserveSupport(CodeWriter &code) {
    code.line();
    code.open("struct ObservedSpec");
    code.line("const char *name;");
    code.line("const char *op;");
    code.line("const char *source;");
    code.line("int fused;");
    code.line("tc_dtype dtype;");
    code.close(";");
    code.line("const ObservedSpec kObserved[] = {");
    for (const std::string &entry : observed_)
      code.line("    " + entry + ",");
    if (observed_.empty())
      code.line("    {\"\", \"\", \"\", 0, TC_DTYPE_F32},");
    code.line("};");
    backend_.emitDebugCopy(code, name_);
    code.line("/// Hands value `index` of this run to the context's observer (a host copy).");
    code.open("[[maybe_unused]] void observe(" + name_ + "_context *context, int index, "
              "const void *data, std::initializer_list<int64_t> shape)");
    code.line("tc_observed_value value = {};");
    code.line("value.index = index;");
    code.line("value.name = kObserved[index].name;");
    code.line("value.op = kObserved[index].op;");
    code.line("value.source = kObserved[index].source;");
    code.line("value.fused = kObserved[index].fused;");
    code.line("value.tensor.dtype = kObserved[index].dtype;");
    code.line("value.tensor.rank = int32_t(shape.size());");
    code.line("int rank = 0;");
    code.line("for (int64_t dim : shape) value.tensor.shape[rank++] = dim;");
    code.line("const int64_t bytes = tc_tensor_byte_size(&value.tensor);");
    code.line("if (bytes < 0) return;");
    code.open("try");
    code.line("context->observed.resize(size_t(bytes) + 1);");
    code.close();
    code.open("catch (...)");
    code.line("return; // no memory for the copy: this value is not observed");
    code.close();
    code.line("if (bytes > 0 && !debugCopy(context, context->observed.data(), data, size_t(bytes), "
              "true)) return;");
    code.line("value.tensor.data = context->observed.data();");
    code.line("context->observer(context->observer_user, &value);");
    code.close();
    code.line("/// --debug-perturb: the first element + 1 (16-bit floats: a sign flip, or 1 for 0).");
    code.open("[[maybe_unused]] void debugPerturb(" + name_ + "_context *context, void *data, "
              "tc_dtype dtype, int64_t count)");
    code.line("unsigned char bytes[8] = {};");
    code.line("tc_tensor one = {};");
    code.line("one.dtype = dtype;");
    code.line("const size_t size = size_t(tc_tensor_byte_size(&one));");
    code.line("if (count < 1 || size > sizeof(bytes) || !debugCopy(context, bytes, data, size, "
              "true)) return;");
    code.open("switch (dtype)");
    code.line("case TC_DTYPE_F32: { float v; std::memcpy(&v, bytes, 4); v += 1.0f; "
              "std::memcpy(bytes, &v, 4); break; }");
    code.line("case TC_DTYPE_F64: { double v; std::memcpy(&v, bytes, 8); v += 1.0; "
              "std::memcpy(bytes, &v, 8); break; }");
    code.line("case TC_DTYPE_F16: case TC_DTYPE_BF16: { uint16_t v; std::memcpy(&v, bytes, 2); "
              "v = (v & 0x7fff) ? uint16_t(v ^ 0x8000) : uint16_t(dtype == TC_DTYPE_F16 ? "
              "0x3c00 : 0x3f80); std::memcpy(bytes, &v, 2); break; }");
    code.line("case TC_DTYPE_BOOL: bytes[0] = bytes[0] ? 0 : 1; break;");
    code.line("default: bytes[0] = static_cast<unsigned char>(bytes[0] + 1); break; "
              "// little-endian integers: + 1 (mod 256 in the low byte)");
    code.close();
    code.line("debugCopy(context, data, bytes, size, false);");
    code.close();
  }

  void emitOutputShapesApi(CodeWriter &code) {
    std::string n = name_;
    code.open("tc_status " + n + "_output_shapes(const tc_tensor *inputs, int num_inputs, " +
              "tc_tensor *outputs, int num_outputs, tc_error *err)");
    code.line("tc_error_clear(err);");
    code.line("Symbols sym;");
    code.line("tc_status status = bindInputs(inputs, num_inputs, sym, err);");
    code.open("if (status != TC_OK)");
    code.line("tc_error_prefixf(err, \"" + n + "_output_shapes: \");");
    code.line("return status;");
    code.close();
    code.open("if (num_outputs != " + std::to_string(graph_.numUserOutputs()) + ")");
    code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + n +
              "_output_shapes: expected " + std::to_string(graph_.numUserOutputs()) +
              " output(s), got %d\", num_outputs);");
    code.close();
    if (graph_.numUserOutputs() > 0) {
      code.open("if (outputs == nullptr)");
      code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + n +
                "_output_shapes: outputs is null\");");
      code.close();
    }
    code.line("fillOutputShapes(sym, outputs);");
    code.line("return TC_OK;");
    code.close();
    code.line();
  }

  // The caller's output tensors against the shapes these inputs give.
  void emitCheckOutputs(CodeWriter &code) {
    size_t numOutputs = graph_.numUserOutputs();
    code.open("tc_status checkOutputs(const Symbols &sym, const tc_tensor *outputs, int num_outputs, "
              "tc_error *err)");
    code.open("if (num_outputs != " + std::to_string(numOutputs) + ")");
    code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"expected " +
              std::to_string(numOutputs) + " output(s), got %d\", num_outputs);");
    code.close();
    // A null array with the right count is its own mistake (not "expected 1, got 1").
    if (numOutputs > 0) {
      code.open("if (outputs == nullptr)");
      code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"outputs is null\");");
      code.close();
    }
    code.line("tc_tensor expected[" + std::to_string(std::max<size_t>(numOutputs, 1)) + "] = {};");
    code.line("fillOutputShapes(sym, expected);");
    // A data-dependent dim is the run's to write: any value the caller left there goes (the
    // buffer must hold the upper bound output_shapes reported).
    for (size_t i = 0; i < numOutputs; ++i) {
      const ir::Shape &shape = graph_.outputs()[i]->type().shape;
      for (size_t d = 0; d < shape.size(); ++d)
        if (isDataDependent(shape[d]))
          code.line("expected[" + std::to_string(i) + "].shape[" + std::to_string(d) +
                    "] = outputs[" + std::to_string(i) + "].shape[" + std::to_string(d) + "];");
    }
    code.open("for (int i = 0; i < " + std::to_string(numOutputs) + "; ++i)");
    code.open("if (tc_tensor_numel(&outputs[i]) < 0)");
    code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"output %d: not a valid "
              "tensor (rank %d: outside 0..TC_MAX_RANK, a negative dim or an element count "
              "overflowing int64)\", i, outputs[i].rank);");
    code.close();
    code.open("if (outputs[i].dtype != expected[i].dtype)");
    code.line("return tc_error_setf(err, TC_ERROR_DTYPE_MISMATCH, \"output %d: dtype %s, expected %s\", i, tc_dtype_name(outputs[i].dtype), "
              "tc_dtype_name(expected[i].dtype));");
    code.close();
    code.line("bool sameShape = outputs[i].rank == expected[i].rank;");
    code.line("int64_t count = 1;");
    code.open("for (int d = 0; sameShape && d < expected[i].rank; ++d)");
    code.line("sameShape = outputs[i].shape[d] == expected[i].shape[d];");
    code.line("count *= expected[i].shape[d];");
    code.close();
    code.open("if (!sameShape)");
    code.line("return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH, \"output %d has the wrong shape (see " + name_ + "_output_shapes)\", i);");
    code.close();
    code.open("if (outputs[i].data == nullptr && count > 0)");
    code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"output %d: data is null\", i);");
    code.close();
    code.close();
    code.line("return TC_OK;");
    code.close();
  }

  void emitRun(CodeWriter &code, EmitState &state, const CodeWriter &body,
               const std::vector<const ir::Value *> &inputs,
               const std::vector<const ir::Value *> &weights) {
    std::string n = name_;
    openEntryPoint(code,
                   "tc_status " + n + "_run(" + n + "_context *context, const tc_tensor *inputs, " +
                       "int num_inputs, tc_tensor *outputs, int num_outputs, tc_error *err)",
                   "context == nullptr", n + "_run: null context");
    code.line("Symbols sym;");
    code.line("tc_status status = bindInputs(inputs, num_inputs, sym, err);");
    code.open("if (status != TC_OK)");
    code.line("tc_error_prefixf(err, \"" + n + "_run: \");");
    code.line("return status;");
    code.close();
    code.line("status = checkOutputs(sym, outputs, num_outputs, err);");
    code.open("if (status != TC_OK)");
    code.line("tc_error_prefixf(err, \"" + n + "_run: \");");
    code.line("return status;");
    code.close();
    if (hasRandomNodes(graph_)) {
      code.line("// The random ops draw from this context's seed and run number (tc_random.h).");
      code.line("const uint64_t rng_seed = context->seed;");
      code.line("const uint32_t rng_run = static_cast<uint32_t>(context->runs++);");
    }
    code.line();
    std::vector<std::pair<std::string, std::string>> pointers; // name, type
    if (planned_) {
      code.line("// Arena: the memory plan's offsets (computed for the symbols' upper bounds),");
      code.line("// then this node's workspaces.");
    } else {
      code.line("// Arena layout for this run's sizes: one 64-byte aligned slot per value.");
    }
    code.line("size_t bytes = 0;");
    for (const Slot &slot : slots_) {
      std::string type = cppType(slot.value->type().dtype);
      std::string size = "alignUp(size_t(" + productExpr(slot.value->type().shape) +
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
      code.line("bytes += alignUp(size_t(" + slot.elements + ") * sizeof(" + slot.type + "));");
      pointers.push_back({slot.name, slot.type});
    }
    backend_.emitArena(code, n);
    const bool wrapped = backend_.wrapsRunWork();
    if (wrapped)
      code.open("auto work = [&]() -> tc_status");
    for (size_t i = 0; i < inputs.size(); ++i) {
      std::string type = cppType(inputs[i]->type().dtype);
      code.line("[[maybe_unused]] const " + type + " *in" + std::to_string(i) + " = static_cast<const " + type +
                " *>(inputs[" + std::to_string(i) + "].data);");
    }
    for (size_t i = 0; i < weights.size(); ++i) {
      std::string type = cppType(weights[i]->type().dtype);
      code.line("[[maybe_unused]] const " + type + " *w" + std::to_string(i) + " = static_cast<const " + type +
                " *>(context->model->params[" + std::to_string(i) + "].data);");
    }
    for (const auto &[pointer, type] : pointers)
      code.line(type + " *" + pointer + " = reinterpret_cast<" + type + " *>(base + off_" +
                pointer + ");");
    std::vector<const ir::Value *> states = stateInputs(graph_);
    if (!states.empty())
      code.line("unsigned char *state = " + backend_.stateBase() + ";");
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
      code.line("fillOutputShapes(sym, outputs);");
    }
    code.line("return TC_OK;");
    if (wrapped) {
      code.close(";");
      std::vector<std::string> key = {"uint64_t(reinterpret_cast<uintptr_t>(base))"};
      if (!states.empty())
        key.push_back("uint64_t(reinterpret_cast<uintptr_t>(" + backend_.stateBase() + "))");
      for (size_t i = 0; i < inputs.size(); ++i) {
        std::string t = "inputs[" + std::to_string(i) + "]";
        key.push_back("uint64_t(reinterpret_cast<uintptr_t>(" + t + ".data))");
        for (int d = 0; d < inputs[i]->type().rank(); ++d)
          key.push_back("uint64_t(" + t + ".shape[" + std::to_string(d) + "])");
      }
      for (size_t i = 0; i < graph_.numUserOutputs(); ++i)
        key.push_back("uint64_t(reinterpret_cast<uintptr_t>(outputs[" + std::to_string(i) +
                      "].data))");
      backend_.emitRunWork(code, n, key);
    }
    code.close();
  }

  // Graph outputs not written in place: copied (or gathered, for a strided view) into the
  // caller's buffers.
  void emitOutputCopies(EmitState &state) {
    CodeWriter &code = state.code();
    state.setCurrentNode(nullptr);
    code.line();
    code.line("// Results to the caller's buffers, then the new state into the context's.");
    for (size_t i = 0; i < graph_.outputs().size(); ++i) {
      const ir::Value *output = graph_.outputs()[i];
      if (pinnedOutputs_.count(i))
        continue;
      std::string type = cppType(output->type().dtype);
      std::string target = graph_.stateOf(i) ? outputPointer(i)
                                             : "static_cast<" + type + " *>(outputs[" +
                                                   std::to_string(i) + "].data)";
      if (!opt::isContiguous(state.layout(output), output->type().shape)) {
        emitGather(state, output, target);
        continue;
      }
      if (state.ptr(output) == target)
        continue; // the state is unchanged
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
  std::map<std::string, std::pair<size_t, size_t>> bindings_; ///< symbol -> (input, dim)
  /// Symbols bound by nonzero/item nodes at run time -> their ranges.
  std::map<std::string, ir::SymbolRange> dataDependent_;
};

} // namespace

void openEntryPoint(CodeWriter &code, const std::string &signature, const std::string &condition,
                    const std::string &message) {
  code.open(signature);
  code.line("tc_error_clear(err);");
  code.open("if (" + condition + ")");
  code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + message + "\");");
  code.close();
}

Expected<std::map<std::string, std::string>> emitModelSources(const ir::Graph &graph,
                                                              const EmitOptions &options,
                                                              TargetBackend &backend) {
  return ModelEmitter(graph, options, backend).run();
}

} // namespace thunderc::codegen
