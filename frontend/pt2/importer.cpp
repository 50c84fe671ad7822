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
#include "frontend/pt2/json_util.h"
#include "frontend/aten/node_importer.h"
#include "frontend/pt2/sympy_expr.h"
#include "ir/op_attributes.h"

namespace thunderc::frontend {
namespace {

constexpr std::string_view kSetGradEnabled = "torch.ops.higher_order.wrap_with_set_grad_enabled";
constexpr std::string_view kHigherOrderPrefix = "torch.ops.higher_order.";

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

// Autocast's op lists (aten/src/ATen/autocast_mode.cpp), by device: ops that run in the
// autocast dtype (their floating tensor arguments are cast to it), ops that run in float32,
// and ops whose floating arguments are promoted to the widest one (the output's dtype).
constexpr std::string_view kAutocastLowerPrecisionCpu[] = {
    "conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm",
    "linear", "_convolution", "convolution", "matmul", "conv_tbc", "mkldnn_rnn_layer",
    "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
    "scaled_dot_product_attention", "_native_multi_head_attention"};
constexpr std::string_view kAutocastLowerPrecisionCuda[] = {
    "_convolution", "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d",
    "conv_transpose2d", "conv_transpose3d", "convolution", "prelu", "addmm", "addmv", "addr",
    "matmul", "einsum", "mm", "mv", "linalg_vecdot", "linear", "addbmm", "baddbmm", "bmm",
    "chain_matmul", "linalg_multi_dot", "_thnn_fused_lstm_cell", "_thnn_fused_gru_cell",
    "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell", "_scaled_dot_product_flash_attention",
    "scaled_dot_product_attention"};
constexpr std::string_view kAutocastFloat32Cpu[] = {
    "avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile",
    "nanquantile", "stft", "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse",
    "cholesky_solve", "inverse", "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d",
    "max_unpool2d", "max_unpool3d", "adaptive_avg_pool3d", "reflection_pad1d",
    "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d",
    "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss",
    "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss", "huber_loss",
    "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "ctc_loss", "kl_div", "multilabel_margin_loss", "binary_cross_entropy_with_logits",
    "fft_fft", "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft",
    "fft_irfft", "fft_rfft2", "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft",
    "linalg_cond", "linalg_matrix_rank", "linalg_solve", "linalg_cholesky", "linalg_svdvals",
    "linalg_eigvals", "linalg_eigvalsh", "linalg_inv", "linalg_householder_product",
    "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine", "geqrf",
    "_lu_with_info", "qr", "svd", "triangular_solve", "fractional_max_pool2d",
    "fractional_max_pool3d", "adaptive_max_pool3d", "multilabel_margin_loss_forward",
    "linalg_qr", "linalg_cholesky_ex", "linalg_svd", "linalg_eig", "linalg_eigh",
    "linalg_lstsq", "linalg_inv_ex"};
constexpr std::string_view kAutocastFloat32Cuda[] = {
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
    "reciprocal", "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "native_layer_norm",
    "group_norm", "frobenius_norm", "nuclear_norm", "cosine_similarity", "poisson_nll_loss",
    "cosine_embedding_loss", "nll_loss", "nll_loss2d", "hinge_embedding_loss", "kl_div",
    "l1_loss", "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
    "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp", "sum",
    "prod", "cumprod", "cumsum", "softmax", "log_softmax", "norm", "upsample_nearest1d",
    "_upsample_nearest_exact1d", "upsample_nearest2d", "_upsample_nearest_exact2d",
    "upsample_nearest3d", "_upsample_nearest_exact3d", "upsample_linear1d",
    "upsample_bilinear2d", "_upsample_bilinear2d_aa", "upsample_trilinear3d",
    "upsample_bicubic2d", "_upsample_bicubic2d_aa"};
constexpr std::string_view kAutocastPromote[] = {"stack", "cat", "index_copy", "addcdiv",
                                                 "addcmul", "atan2", "bilinear", "cross",
                                                 "dot", "vdot", "grid_sampler", "scatter_add",
                                                 "tensordot"};

/// How an autocast region treats an op's floating tensor arguments.
enum class AutocastPolicy { None, LowerPrecision, Float32, Promote };

template <size_t N>
bool listed(const std::string_view (&list)[N], const std::string &op) {
  return std::find(std::begin(list), std::end(list), op) != std::end(list);
}

// "torch.ops.aten.addmm.default" -> "addmm"; empty for non-ATen targets.
std::string atenOpName(const std::string &target) {
  constexpr std::string_view kAten = "torch.ops.aten.";
  if (target.rfind(kAten, 0) != 0)
    return "";
  std::string rest = target.substr(kAten.size());
  return rest.substr(0, rest.find('.'));
}

AutocastPolicy autocastPolicy(const std::string &device, const std::string &op) {
  bool cuda = device == "cuda";
  if (cuda ? listed(kAutocastLowerPrecisionCuda, op) : listed(kAutocastLowerPrecisionCpu, op))
    return AutocastPolicy::LowerPrecision;
  if (cuda ? listed(kAutocastFloat32Cuda, op) : listed(kAutocastFloat32Cpu, op))
    return AutocastPolicy::Float32;
  if (listed(kAutocastPromote, op))
    return AutocastPolicy::Promote;
  return AutocastPolicy::None;
}

// A copy of a subgraph with every tensor and SymInt name prefixed (`prefix` + name), so that
// inlining it (once per branch, or once per unrolled iteration) defines fresh IR value names.
Json prefixedNames(const Json &value, const std::string &prefix) {
  if (value.is_array()) {
    Json out = Json::array();
    for (const Json &item : value)
      out.push_back(prefixedNames(item, prefix));
    return out;
  }
  if (!value.is_object())
    return value;
  Json out = Json::object();
  // A NamedArgument's "name" is the schema's argument name, not a value's.
  bool isNamedArgument = value.contains("arg");
  for (auto it = value.begin(); it != value.end(); ++it) {
    bool renamesKeys = it.key() == "tensor_values" || it.key() == "sym_int_values" ||
                       it.key() == "sym_bool_values";
    bool isValueName = (it.key() == "name" && !isNamedArgument) || it.key() == "as_name";
    if (isValueName && it.value().is_string()) {
      out[it.key()] = prefix + it.value().get<std::string>();
    } else if (renamesKeys && it.value().is_object()) {
      Json renamed = Json::object();
      for (auto entry = it.value().begin(); entry != it.value().end(); ++entry)
        renamed[prefix + entry.key()] = prefixedNames(entry.value(), prefix);
      out[it.key()] = std::move(renamed);
    } else {
      out[it.key()] = prefixedNames(it.value(), prefix);
    }
  }
  return out;
}

// The arguments of a higher-order op node in order, lists flattened: its subgraphs apart.
struct HigherOrderArgs {
  std::vector<const Json *> graphs;  ///< as_graph payloads' "graph"
  std::vector<JsonUnion> values;     ///< every other argument, lists flattened
  std::vector<size_t> listSizes;     ///< for each list argument (as_tensors, ...), its length
};

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
    TC_TRY(importOutputs(*signature));
    dropUnusedSymbols();
    return Status::success();
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
                         " (thunderc reads schema " + std::to_string(kSupportedSchemaMajor) +
                         ", written by " + kSchemaTorchReleases + ")");
    return Status::success();
  }

  // range_constraints also lists the exporter's unbacked symbols that no size uses (the
  // SymFloat of a float item(), a count only compared in torch._check): symbols no type and
  // no binding node mentions are dropped, so that none is left without a value at run time.
  void dropUnusedSymbols() {
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

  // tensor.item() (aten.item / aten._local_scalar_dense) of a one-element tensor. Its value is
  // the tensor itself, as 0-d, for arithmetic that reads it (ImportState::symScalars). An
  // integer value the exporter gave an unbacked symbol also becomes an `item` node binding
  // that symbol at run time, so that sizes (a slice's end, a new tensor's length) can use it.
  Status importItem(const Json &node, const std::string &name, const ir::SourceInfo &source) {
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

  // ---- higher-order ops ----
  // Subgraphs are imported inline (importSubgraph): their names prefixed, so every inlined copy
  // defines fresh IR values, and scoped, so their names never shadow the caller's.

  /// An operand of a higher-order op: a tensor or a SymInt.
  struct SubgraphArg {
    ir::Value *tensor = nullptr;
    std::optional<ir::SymExpr> symInt;
  };
  /// One argument of a higher-order op node; lists (as_tensors, as_sym_ints) flattened.
  struct HigherOrderArg {
    bool isList = false;
    std::vector<JsonUnion> items;
  };
  /// An autocast region being imported (wrap_with_autocast).
  struct AutocastRegion {
    std::string device;
    ir::DType dtype;
    bool enabled;
  };
  /// A comparison of two SymInts (`_operator.gt(sym_size_int_1, 4)`), for cond predicates.
  struct SymComparison {
    ir::OpKind op;
    ir::SymExpr lhs, rhs;
  };

  static bool isSymBoolComparison(const std::string &target) {
    return symComparisonOp(target).has_value();
  }
  static std::optional<ir::OpKind> symComparisonOp(const std::string &target) {
    static const std::map<std::string, ir::OpKind> kOps = {
        {"_operator.gt", ir::OpKind::Gt}, {"_operator.lt", ir::OpKind::Lt},
        {"_operator.ge", ir::OpKind::Ge}, {"_operator.le", ir::OpKind::Le},
        {"_operator.eq", ir::OpKind::Eq}, {"_operator.ne", ir::OpKind::Ne}};
    auto it = kOps.find(target);
    return it == kOps.end() ? std::nullopt : std::optional<ir::OpKind>(it->second);
  }

  /// An int or a SymInt argument with a known expression; nullopt otherwise.
  std::optional<ir::SymExpr> symIntOf(const JsonUnion &value) {
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

  // A comparison of sizes is remembered for a cond predicate that may read it; one of other
  // values (SymFloats, ...) is left alone, as before, since only asserts read those.
  Status recordSymBool(const Json &node, const std::string &target) {
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

  Expected<std::vector<HigherOrderArg>> higherOrderArgs(const Json &node,
                                                        std::vector<const Json *> &graphs) {
    std::vector<HigherOrderArg> args;
    TC_ASSIGN_OR_RETURN(const Json *inputs, jsonArray(node, "inputs"));
    for (const Json &input : *inputs) {
      TC_ASSIGN_OR_RETURN(const Json *arg, jsonField(input, "arg"));
      TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*arg, "argument"));
      if (value.kind == "as_graph") {
        TC_ASSIGN_OR_RETURN(const Json *graph, jsonObject(*value.payload, "graph"));
        graphs.push_back(graph);
        continue;
      }
      HigherOrderArg flattened;
      if ((value.kind == "as_tensors" || value.kind == "as_sym_ints" || value.kind == "as_ints") &&
          value.payload->is_array()) {
        flattened.isList = true;
        std::string itemKind = value.kind.substr(0, value.kind.size() - 1);
        for (const Json &item : *value.payload)
          flattened.items.push_back({itemKind, &item});
      } else {
        flattened.items.push_back(value);
      }
      args.push_back(std::move(flattened));
    }
    return args;
  }

  Expected<SubgraphArg> resolveOperand(const JsonUnion &value) {
    if (value.kind == "as_tensor") {
      TC_ASSIGN_OR_RETURN(std::string name, jsonString(*value.payload, "name"));
      auto it = state_.values.find(name);
      if (it == state_.values.end())
        return invalidInput("argument '" + name + "' is not defined before the node");
      return SubgraphArg{it->second, std::nullopt};
    }
    if (std::optional<ir::SymExpr> expr = symIntOf(value))
      return SubgraphArg{nullptr, *expr};
    return unsupported("an operand of kind '" + value.kind + "'");
  }

  Expected<std::vector<SubgraphArg>> resolveOperands(const std::vector<HigherOrderArg> &args,
                                                     size_t first) {
    std::vector<SubgraphArg> operands;
    for (size_t i = first; i < args.size(); ++i)
      for (const JsonUnion &item : args[i].items) {
        TC_ASSIGN_OR_RETURN(SubgraphArg operand, resolveOperand(item));
        operands.push_back(operand);
      }
    return operands;
  }

  /// Tensor operands only (map's and scan's lists), each named for errors.
  Expected<std::vector<ir::Value *>> tensorOperands(const HigherOrderArg &arg,
                                                    const std::string &what) {
    std::vector<ir::Value *> tensors;
    for (const JsonUnion &item : arg.items) {
      TC_ASSIGN_OR_RETURN(SubgraphArg operand, resolveOperand(item));
      if (operand.tensor == nullptr)
        return unsupported(what + " holds a non-tensor value");
      tensors.push_back(operand.tensor);
    }
    return tensors;
  }

  Expected<std::vector<std::string>> nodeOutputNames(const Json &node) {
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
        return unsupported("a node output of kind '" + value.kind + "'");
      }
    }
    return names;
  }

  Status bindNodeOutputs(const Json &node, const std::vector<ir::Value *> &values) {
    TC_ASSIGN_OR_RETURN(std::vector<std::string> names, nodeOutputNames(node));
    if (names.size() != values.size())
      return invalidInput("the subgraph returns " + std::to_string(values.size()) +
                          " value(s), the node has " + std::to_string(names.size()));
    for (size_t i = 0; i < names.size(); ++i)
      state_.values[names[i]] = values[i];
    return Status::success();
  }

  /// Imports `original` inline with its inputs bound to `args`; returns its outputs. The
  /// caller's names are restored afterwards (the subgraph's are prefixed with `prefix`).
  Expected<std::vector<ir::Value *>> importSubgraph(const Json &original,
                                                    const std::vector<SubgraphArg> &args,
                                                    const std::string &prefix) {
    Json subgraph = prefixedNames(original, prefix);
    std::map<std::string, ir::Value *> outerValues = state_.values;
    std::map<std::string, ir::SymExpr> outerSymInts = state_.symInts;
    const Json *outerTensors = state_.tensorValues;
    const Json *outerSymIntValues = state_.symIntValues;
    Expected<std::vector<ir::Value *>> outputs = importSubgraphScoped(subgraph, args);
    state_.values = std::move(outerValues);
    state_.symInts = std::move(outerSymInts);
    state_.tensorValues = outerTensors;
    state_.symIntValues = outerSymIntValues;
    return outputs;
  }

  Expected<std::vector<ir::Value *>> importSubgraphScoped(const Json &subgraph,
                                                          const std::vector<SubgraphArg> &args) {
    TC_ASSIGN_OR_RETURN(const Json *inputs, jsonArray(subgraph, "inputs"));
    if (inputs->size() != args.size())
      return invalidInput("the subgraph takes " + std::to_string(inputs->size()) +
                          " input(s), the node passes " + std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i) {
      TC_ASSIGN_OR_RETURN(JsonUnion input, jsonUnion((*inputs)[i], "subgraph input"));
      if (input.kind == "as_tensor" && args[i].tensor != nullptr) {
        TC_ASSIGN_OR_RETURN(std::string name, jsonString(*input.payload, "name"));
        state_.values[name] = args[i].tensor;
      } else if (input.kind == "as_sym_int" && args[i].symInt) {
        state_.symInts.insert_or_assign(jsonStringOr(*input.payload, "as_name"), *args[i].symInt);
      } else {
        return unsupported("subgraph input " + std::to_string(i) + " of kind '" + input.kind +
                           "' bound to a " + (args[i].tensor ? "tensor" : "SymInt"));
      }
    }
    // The subgraph's nodes read their metadata from its own tables.
    TC_ASSIGN_OR_RETURN(state_.tensorValues, jsonObject(subgraph, "tensor_values"));
    if (const Json *symInts = jsonFind(subgraph, "sym_int_values"); symInts && symInts->is_object())
      state_.symIntValues = symInts;
    TC_ASSIGN_OR_RETURN(const Json *nodes, jsonArray(subgraph, "nodes"));
    TC_ASSIGN_OR_RETURN(const Json *subOutputs, jsonArray(subgraph, "outputs"));
    auto reference = [&](const std::string &name) { state_.referencedNames.insert(name); };
    for (const Json &node : *nodes)
      if (const Json *nodeInputs = jsonFind(node, "inputs"))
        forEachName(*nodeInputs, reference);
    forEachName(*subOutputs, reference);
    for (size_t i = 0; i < nodes->size(); ++i)
      TC_TRY(importNode((*nodes)[i], i));
    std::vector<ir::Value *> outputs;
    for (const Json &output : *subOutputs) {
      TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(output, "subgraph output"));
      if (value.kind != "as_tensor")
        return unsupported("a subgraph output of kind '" + value.kind + "'");
      TC_ASSIGN_OR_RETURN(std::string name, jsonString(*value.payload, "name"));
      auto found = state_.values.find(name);
      if (found == state_.values.end())
        return invalidInput("subgraph output '" + name + "' is not defined by any node");
      outputs.push_back(found->second);
    }
    return outputs;
  }

  ir::Value *appendHelper(const std::string &name, ir::OpKind op, std::vector<ir::Value *> operands,
                          ir::TensorType type, ir::AttrMap attrs = {}) {
    ir::Node *node = model_.graph->appendNode(op, std::move(operands), {std::move(type)},
                                              std::move(attrs));
    node->setName(name);
    return node->result();
  }

  /// `values` (equal types) stacked along a new dim 0.
  ir::Value *stackValues(const std::vector<ir::Value *> &values, const std::string &name) {
    std::vector<ir::Value *> rows;
    for (ir::Value *value : values) {
      ir::TensorType type = value->type();
      type.shape.insert(type.shape.begin(), ir::Dim(1));
      ir::AttrMap attrs;
      attrs.set("dim", int64_t{0});
      rows.push_back(appendHelper(name, ir::OpKind::Unsqueeze, {value}, type, std::move(attrs)));
    }
    if (rows.size() == 1)
      return rows.front();
    ir::TensorType type = rows.front()->type();
    type.shape[0] = ir::Dim(static_cast<int64_t>(rows.size()));
    ir::AttrMap attrs;
    attrs.set("dim", int64_t{0});
    return appendHelper(name, ir::OpKind::Concat, rows, type, std::move(attrs));
  }

  /// Slice `index` of dim 0 of each tensor.
  std::vector<SubgraphArg> slicesAt(const std::vector<ir::Value *> &tensors, int64_t index,
                                    const std::string &name) {
    std::vector<SubgraphArg> slices;
    for (ir::Value *tensor : tensors) {
      ir::TensorType type = tensor->type();
      type.shape.erase(type.shape.begin());
      ir::AttrMap attrs;
      attrs.set("dim", int64_t{0});
      attrs.set("index", index);
      slices.push_back(
          {appendHelper(name, ir::OpKind::Select, {tensor}, std::move(type), std::move(attrs)),
           std::nullopt});
    }
    return slices;
  }

  /// The static length of dim 0 shared by `tensors` (map's xs, scan's xs): the trip count
  /// of the unrolled loop.
  Expected<int64_t> tripCount(const std::vector<ir::Value *> &tensors, const std::string &op) {
    if (tensors.empty())
      return invalidInput(op + " over no tensors");
    int64_t count = -1;
    for (ir::Value *tensor : tensors) {
      const ir::Shape &shape = tensor->type().shape;
      if (shape.empty())
        return invalidInput(op + " over a 0-d tensor");
      if (!shape[0].isStatic())
        return unsupported(op + " over a dim of symbolic size " + shape[0].str() +
                           ": thunderc unrolls " + op + ", which needs a static trip count");
      if (count >= 0 && shape[0].value() != count)
        return invalidInput(op + " over dims of different sizes");
      count = shape[0].value();
    }
    if (count == 0)
      return unsupported(op + " over an empty dim (zero iterations)");
    return count;
  }

  Status importHigherOrder(const Json &node, const std::string &target, const std::string &name) {
    std::vector<const Json *> graphs;
    TC_ASSIGN_OR_RETURN(std::vector<HigherOrderArg> args, higherOrderArgs(node, graphs));
    std::string op = target.substr(kHigherOrderPrefix.size());
    if (op == "cond")
      return importCond(node, graphs, args, name);
    if (op == "map_impl")
      return importMap(node, graphs, args, name);
    if (op == "scan")
      return importScan(node, graphs, args, name);
    // wrap_with_set_grad_enabled(enabled, graph, *operands) only switches autograd, which
    // inference does not have; invoke_subgraph(graph, identifier, *operands) is a call;
    // wrap_with_autocast(device, dtype, enabled, cache_enabled, graph, *operands) runs the
    // graph with autocast's casts (see autocastNode).
    if (graphs.size() != 1)
      return invalidInput("expected one subgraph, got " + std::to_string(graphs.size()));
    size_t first = op == "wrap_with_autocast" ? 4 : 1;
    if (args.size() < first)
      return invalidInput("expected at least " + std::to_string(first) + " argument(s)");
    TC_ASSIGN_OR_RETURN(std::vector<SubgraphArg> operands, resolveOperands(args, first));
    bool pushed = false;
    if (op == "wrap_with_autocast") {
      TC_ASSIGN_OR_RETURN(AutocastRegion region, autocastRegion(args));
      autocast_.push_back(region);
      pushed = true;
    }
    Expected<std::vector<ir::Value *>> outputs = importSubgraph(*graphs[0], operands, name + "_");
    if (pushed)
      autocast_.pop_back();
    if (!outputs.ok())
      return std::move(outputs).error();
    return bindNodeOutputs(node, *outputs);
  }

  Expected<AutocastRegion> autocastRegion(const std::vector<HigherOrderArg> &args) {
    const JsonUnion &device = args[0].items.at(0);
    const JsonUnion &dtype = args[1].items.at(0);
    const JsonUnion &enabled = args[2].items.at(0);
    if (device.kind != "as_string" || enabled.kind != "as_bool")
      return invalidInput("wrap_with_autocast expects (device_type, dtype, enabled, "
                          "cache_enabled, subgraph, operands...)");
    AutocastRegion region;
    region.device = device.payload->get<std::string>();
    region.enabled = enabled.payload->get<bool>();
    region.dtype = region.device == "cuda" ? ir::DType::F16 : ir::DType::BF16;
    if (dtype.kind == "as_scalar_type") {
      TC_ASSIGN_OR_RETURN(region.dtype, schemaDType(*dtype.payload));
    }
    return region;
  }

  /// The device of a node's first tensor output ("cpu"), from the tensor metadata.
  std::string outputDevice(const Json &node) {
    const Json *outputs = jsonFind(node, "outputs");
    if (outputs == nullptr || !outputs->is_array() || outputs->empty())
      return "";
    const Json *tensor = jsonFind((*outputs)[0], "as_tensor");
    const Json *meta = tensor ? jsonFind(*state_.tensorValues,
                                         jsonStringOr(*tensor, "name").c_str())
                              : nullptr;
    const Json *device = meta ? jsonFind(*meta, "device") : nullptr;
    return device ? jsonStringOr(*device, "type") : "";
  }

  /// Inside an autocast region, an ATen op of autocast's lists gets its floating tensor
  /// arguments cast as autocast would (the casts are emitted here; `rewritten` reads them).
  /// Says whether the node was rewritten. A region applies to ops on its device only, and
  /// the innermost region for that device decides, as in eager.
  Expected<bool> autocastNode(const Json &node, const std::string &target,
                              const std::string &name, Json &rewritten) {
    std::string device = outputDevice(node);
    auto region = std::find_if(autocast_.rbegin(), autocast_.rend(),
                               [&](const AutocastRegion &r) { return r.device == device; });
    if (region == autocast_.rend() || !region->enabled)
      return false;
    AutocastPolicy policy = autocastPolicy(device, atenOpName(target));
    if (policy == AutocastPolicy::None)
      return false;
    ir::DType dtype = policy == AutocastPolicy::Float32 ? ir::DType::F32 : region->dtype;
    if (policy == AutocastPolicy::Promote) {
      const Json *tensor = jsonFind((*jsonFind(node, "outputs"))[0], "as_tensor");
      if (tensor == nullptr)
        return false;
      TC_ASSIGN_OR_RETURN(ir::TensorType type, placeholderType(jsonStringOr(*tensor, "name")));
      dtype = type.dtype;
    }
    rewritten = node;
    bool changed = false;
    auto castName = [&](Json &nameField) {
      if (!nameField.is_string())
        return;
      auto it = state_.values.find(nameField.get<std::string>());
      if (it == state_.values.end())
        return;
      const ir::TensorType &type = it->second->type();
      if (!ir::isFloatingPoint(type.dtype) || type.dtype == dtype)
        return;
      std::string castName = nameField.get<std::string>() + "_autocast_" +
                             std::string(ir::dtypeName(dtype));
      if (!state_.values.count(castName)) {
        ir::AttrMap attrs;
        attrs.set("dtype", dtype);
        ir::Value *cast = appendHelper(name, ir::OpKind::Cast, {it->second},
                                       ir::TensorType{dtype, type.shape}, std::move(attrs));
        state_.values[castName] = cast;
      }
      nameField = castName;
      changed = true;
    };
    for (Json &input : rewritten["inputs"]) {
      Json &arg = input["arg"];
      if (arg.contains("as_tensor"))
        castName(arg["as_tensor"]["name"]);
      if (arg.contains("as_optional_tensor") && arg["as_optional_tensor"].contains("as_tensor"))
        castName(arg["as_optional_tensor"]["as_tensor"]["name"]);
      if (arg.contains("as_tensors") && arg["as_tensors"].is_array())
        for (Json &item : arg["as_tensors"])
          castName(item["name"]);
    }
    return changed;
  }

  /// torch.cond(pred, true_fn, false_fn, operands). A predicate known at compile time (a
  /// Python bool, a comparison of static sizes) imports only the taken branch. Otherwise the
  /// predicate becomes a cond_predicate node, both branches are imported with a guard on each
  /// node (ir/ops.h kGuardAttr) so that only the taken one runs, and each result is
  /// where(predicate, true value, false value).
  Status importCond(const Json &node, const std::vector<const Json *> &graphs,
                    const std::vector<HigherOrderArg> &args, const std::string &name) {
    if (graphs.size() != 2 || args.empty() || args[0].items.size() != 1)
      return invalidInput("cond expects a predicate, two branch subgraphs and operands");
    TC_ASSIGN_OR_RETURN(std::vector<SubgraphArg> operands, resolveOperands(args, 1));
    const JsonUnion &pred = args[0].items[0];
    std::optional<bool> known;
    ir::Value *predicate = nullptr;
    if (pred.kind == "as_bool") {
      known = pred.payload->get<bool>();
    } else if (pred.kind == "as_sym_bool" && jsonFind(*pred.payload, "as_bool")) {
      known = jsonFind(*pred.payload, "as_bool")->get<bool>();
    } else if (pred.kind == "as_sym_bool") {
      std::string symbol = jsonStringOr(*pred.payload, "as_name");
      auto it = symBools_.find(symbol);
      if (it == symBools_.end())
        return unsupported("predicate '" + symbol + "' is a symbolic boolean thunderc cannot "
                           "evaluate (it reads comparisons of sizes and integers)");
      const SymComparison &comparison = it->second;
      if (comparison.lhs.isConstant() && comparison.rhs.isConstant())
        known = compareConstants(comparison);
      else
        predicate = appendHelper(name, comparison.op,
                                 {sizeTensor(comparison.lhs, name), sizeTensor(comparison.rhs, name)},
                                 ir::TensorType{ir::DType::Bool, {}});
    } else if (pred.kind == "as_tensor") {
      TC_ASSIGN_OR_RETURN(SubgraphArg operand, resolveOperand(pred));
      predicate = operand.tensor;
      const ir::TensorType &type = predicate->type();
      bool single = std::all_of(type.shape.begin(), type.shape.end(),
                                [](const ir::Dim &dim) { return dim == ir::Dim(1); });
      if (!single)
        return invalidInput("the predicate " + type.str() + " is not a one-element tensor");
      if (type.rank() != 0) {
        ir::AttrMap attrs;
        attrs.set("shape", std::vector<ir::Dim>{});
        predicate = appendHelper(name, ir::OpKind::Reshape, {predicate},
                                 ir::TensorType{type.dtype, {}}, std::move(attrs));
      }
      if (type.dtype != ir::DType::Bool) {
        ir::AttrMap attrs;
        attrs.set("dtype", ir::DType::Bool);
        predicate = appendHelper(name, ir::OpKind::Cast, {predicate},
                                 ir::TensorType{ir::DType::Bool, {}}, std::move(attrs));
      }
    } else {
      return unsupported("a predicate of kind '" + pred.kind + "'");
    }
    if (known) {
      TC_ASSIGN_OR_RETURN(std::vector<ir::Value *> outputs,
                          importSubgraph(*graphs[*known ? 0 : 1], operands,
                                         name + (*known ? "_true_" : "_false_")));
      return bindNodeOutputs(node, outputs);
    }
    int64_t id = nextPredicateId_++;
    ir::AttrMap attrs;
    attrs.set("predicate_id", id);
    ir::Value *flag = appendHelper(name, ir::OpKind::CondPredicate, {predicate},
                                   ir::TensorType{ir::DType::Bool, {}}, std::move(attrs));
    std::vector<ir::Value *> branchOutputs[2];
    for (int branch = 0; branch < 2; ++branch) {
      size_t before = static_cast<size_t>(model_.graph->numNodes());
      TC_ASSIGN_OR_RETURN(branchOutputs[branch],
                          importSubgraph(*graphs[branch], operands,
                                         name + (branch == 0 ? "_true_" : "_false_")));
      guardNodesAfter(before, id, branch == 0);
    }
    if (branchOutputs[0].size() != branchOutputs[1].size())
      return invalidInput("the branches return " + std::to_string(branchOutputs[0].size()) +
                          " and " + std::to_string(branchOutputs[1].size()) + " values");
    std::vector<ir::Value *> results;
    for (size_t i = 0; i < branchOutputs[0].size(); ++i) {
      ir::Value *onTrue = branchOutputs[0][i];
      ir::Value *onFalse = branchOutputs[1][i];
      if (onTrue == onFalse) {
        results.push_back(onTrue);
        continue;
      }
      if (!(onTrue->type() == onFalse->type()))
        return unsupported("output " + std::to_string(i) + " of the branches differs in type (" +
                           onTrue->type().str() + " and " + onFalse->type().str() +
                           "); thunderc needs both branches to return the same types");
      results.push_back(
          appendHelper(name, ir::OpKind::Where, {flag, onTrue, onFalse}, onTrue->type()));
    }
    return bindNodeOutputs(node, results);
  }

  static bool compareConstants(const SymComparison &comparison) {
    int64_t a = comparison.lhs.constantValue();
    int64_t b = comparison.rhs.constantValue();
    switch (comparison.op) {
    case ir::OpKind::Gt: return a > b;
    case ir::OpKind::Lt: return a < b;
    case ir::OpKind::Ge: return a >= b;
    case ir::OpKind::Le: return a <= b;
    case ir::OpKind::Eq: return a == b;
    default: return a != b;
    }
  }

  /// A 0-d i64 tensor holding `expr` at run time: a constant, or the element count of a
  /// `full` of that (nonnegative, as sizes are) length.
  ir::Value *sizeTensor(const ir::SymExpr &expr, const std::string &name) {
    ir::AttrMap attrs;
    if (expr.isConstant()) {
      attrs.set("value", static_cast<double>(expr.constantValue()));
      return appendHelper(name, ir::OpKind::Full, {}, ir::TensorType{ir::DType::I64, {}},
                          std::move(attrs));
    }
    attrs.set("value", 1.0);
    ir::Value *ones = appendHelper(name, ir::OpKind::Full, {},
                                   ir::TensorType{ir::DType::I64, {ir::Dim(expr)}},
                                   std::move(attrs));
    ir::AttrMap sumAttrs;
    sumAttrs.set("dims", std::vector<int64_t>{0});
    sumAttrs.set("keepdim", false);
    return appendHelper(name, ir::OpKind::Sum, {ones}, ir::TensorType{ir::DType::I64, {}},
                        std::move(sumAttrs));
  }

  /// Puts [id, polarity] in front of the guard of every node from position `count` on.
  void guardNodesAfter(size_t count, int64_t id, bool polarity) {
    auto it = std::next(model_.graph->nodes().begin(), static_cast<long>(count));
    for (; it != model_.graph->nodes().end(); ++it) {
      std::vector<int64_t> pairs = {id, polarity ? 1 : 0};
      if (const ir::AttrValue *guard = (*it)->attrs().find(ir::kGuardAttr)) {
        const auto &inner = std::get<std::vector<int64_t>>(*guard);
        pairs.insert(pairs.end(), inner.begin(), inner.end());
      }
      (*it)->attrs().set(ir::kGuardAttr, pairs);
    }
  }

  /// map_impl(f, xs, args): f runs on slice i of each of xs (with args) for every i of their
  /// dim 0, and each result is the stack of f's results. Unrolled (a static trip count).
  Status importMap(const Json &node, const std::vector<const Json *> &graphs,
                   const std::vector<HigherOrderArg> &args, const std::string &name) {
    if (graphs.size() != 1 || args.size() != 2)
      return invalidInput("map_impl expects (body, xs, args)");
    TC_ASSIGN_OR_RETURN(std::vector<ir::Value *> xs, tensorOperands(args[0], "map's xs"));
    TC_ASSIGN_OR_RETURN(std::vector<SubgraphArg> extra, resolveOperands(args, 1));
    TC_ASSIGN_OR_RETURN(int64_t count, tripCount(xs, "map"));
    std::vector<std::vector<ir::Value *>> perIteration;
    for (int64_t i = 0; i < count; ++i) {
      std::vector<SubgraphArg> operands = slicesAt(xs, i, name);
      operands.insert(operands.end(), extra.begin(), extra.end());
      TC_ASSIGN_OR_RETURN(std::vector<ir::Value *> outputs,
                          importSubgraph(*graphs[0], operands,
                                         name + "_" + std::to_string(i) + "_"));
      perIteration.push_back(std::move(outputs));
    }
    std::vector<ir::Value *> results;
    for (size_t j = 0; j < perIteration[0].size(); ++j) {
      std::vector<ir::Value *> column;
      for (const auto &outputs : perIteration)
        column.push_back(outputs.at(j));
      results.push_back(stackValues(column, name));
    }
    return bindNodeOutputs(node, results);
  }

  /// scan(combine, init, xs, additional_inputs): the carries start at init; step i calls
  /// combine(carries..., slice i of xs..., additional_inputs...) -> (carries..., ys...).
  /// Results: the last carries, then each y stacked over the steps. Unrolled (a static trip
  /// count).
  Status importScan(const Json &node, const std::vector<const Json *> &graphs,
                    const std::vector<HigherOrderArg> &args, const std::string &name) {
    if (graphs.size() != 1 || args.size() != 3)
      return invalidInput("scan expects (combine, init, xs, additional_inputs)");
    TC_ASSIGN_OR_RETURN(std::vector<ir::Value *> carries, tensorOperands(args[0], "scan's init"));
    TC_ASSIGN_OR_RETURN(std::vector<ir::Value *> xs, tensorOperands(args[1], "scan's xs"));
    TC_ASSIGN_OR_RETURN(std::vector<SubgraphArg> extra, resolveOperands(args, 2));
    TC_ASSIGN_OR_RETURN(int64_t count, tripCount(xs, "scan"));
    std::vector<std::vector<ir::Value *>> ys;
    for (int64_t i = 0; i < count; ++i) {
      std::vector<SubgraphArg> operands;
      for (ir::Value *carry : carries)
        operands.push_back({carry, std::nullopt});
      std::vector<SubgraphArg> slices = slicesAt(xs, i, name);
      operands.insert(operands.end(), slices.begin(), slices.end());
      operands.insert(operands.end(), extra.begin(), extra.end());
      TC_ASSIGN_OR_RETURN(std::vector<ir::Value *> outputs,
                          importSubgraph(*graphs[0], operands,
                                         name + "_" + std::to_string(i) + "_"));
      if (outputs.size() < carries.size())
        return invalidInput("the combine function returns fewer values than there are carries");
      for (size_t c = 0; c < carries.size(); ++c) {
        if (!(outputs[c]->type() == carries[c]->type()))
          return unsupported("carry " + std::to_string(c) + " changes type from " +
                             carries[c]->type().str() + " to " + outputs[c]->type().str());
        carries[c] = outputs[c];
      }
      ys.emplace_back(outputs.begin() + static_cast<long>(carries.size()), outputs.end());
    }
    std::vector<ir::Value *> results = carries;
    for (size_t j = 0; j < ys[0].size(); ++j) {
      std::vector<ir::Value *> column;
      for (const auto &step : ys)
        column.push_back(step.at(j));
      results.push_back(stackValues(column, name));
    }
    return bindNodeOutputs(node, results);
  }

  Status importMapped(const Json &node, const std::string &target, const std::string &name,
                      const ir::SourceInfo &source) {
    const OpSchema *schema = findOpSchema(target);
    // A node that reads or makes a complex value imports through the complex table only, so
    // that no real lowering ever computes on a pair as if it were a real tensor.
    bool complex = touchesComplex(node);
    ImportFunction function =
        complex ? findComplexImportFunction(target) : findImportFunction(target);
    if (complex && (schema == nullptr || function == nullptr))
      return unsupported(shortTarget(target) + " on complex values: " + complexOpsSummary());
    if (schema == nullptr || function == nullptr)
      return unsupported("no thunderc lowering for " + shortTarget(target));
    NodeImport import(state_, node, *schema, name, source);
    TC_TRY(import.matchArguments());
    return function(import);
  }

  // Whether the node reads a complex value or the exporter declares one of its outputs
  // complex (frontend/aten/complex.h).
  bool touchesComplex(const Json &node) const {
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

  void eraseNodesAfter(size_t count) {
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

  ImportedModel &model_;
  ImportState state_;
  std::vector<AutocastRegion> autocast_;           ///< innermost last
  std::map<std::string, SymComparison> symBools_; ///< SymBool name -> its comparison
  int64_t nextPredicateId_ = 0;
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
  targets.insert(shortTarget(std::string(kItem)));
  targets.insert(shortTarget(std::string(kLocalScalarDense)));
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
