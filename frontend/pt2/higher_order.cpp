// Higher-order ops of the ExportedProgram (frontend/pt2/program_importer.h): their subgraphs
// are imported inline, names prefixed so that every inlined copy defines fresh IR values.
// cond's branches are imported under guards (or only the taken one when the predicate is
// static), map and scan are unrolled over their static trip count, and autocast and set_grad
// regions apply their dtype policy to the ops inside (docs/DESIGN.md "Control flow").
#include <algorithm>
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

constexpr std::string_view kHigherOrderPrefix = "torch.ops.higher_order.";

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

} // namespace

Expected<std::vector<ProgramImporter::HigherOrderArg>>
ProgramImporter::higherOrderArgs(const Json &node, std::vector<const Json *> &graphs) {
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

Expected<ProgramImporter::SubgraphArg> ProgramImporter::resolveOperand(const JsonUnion &value) {
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

Expected<std::vector<ProgramImporter::SubgraphArg>>
ProgramImporter::resolveOperands(const std::vector<HigherOrderArg> &args, size_t first) {
  std::vector<SubgraphArg> operands;
  for (size_t i = first; i < args.size(); ++i)
    for (const JsonUnion &item : args[i].items) {
      TC_ASSIGN_OR_RETURN(SubgraphArg operand, resolveOperand(item));
      operands.push_back(operand);
    }
  return operands;
}

Expected<std::vector<ir::Value *>> ProgramImporter::tensorOperands(const HigherOrderArg &arg,
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

Expected<std::vector<std::string>> ProgramImporter::nodeOutputNames(const Json &node) {
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

Status ProgramImporter::bindNodeOutputs(const Json &node, const std::vector<ir::Value *> &values) {
  TC_ASSIGN_OR_RETURN(std::vector<std::string> names, nodeOutputNames(node));
  if (names.size() != values.size())
    return invalidInput("the subgraph returns " + std::to_string(values.size()) +
                        " value(s), the node has " + std::to_string(names.size()));
  for (size_t i = 0; i < names.size(); ++i)
    state_.values[names[i]] = values[i];
  return Status::success();
}

Expected<std::vector<ir::Value *>> ProgramImporter::importSubgraph(const Json &original,
    const std::vector<SubgraphArg> &args, const std::string &prefix) {
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

Expected<std::vector<ir::Value *>> ProgramImporter::importSubgraphScoped(const Json &subgraph,
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

ir::Value *ProgramImporter::appendHelper(const std::string &name, ir::OpKind op,
                                         std::vector<ir::Value *> operands, ir::TensorType type,
                                         ir::AttrMap attrs) {
  ir::Node *node = model_.graph->appendNode(op, std::move(operands), {std::move(type)},
                                            std::move(attrs));
  node->setName(name);
  return node->result();
}

ir::Value *ProgramImporter::stackValues(const std::vector<ir::Value *> &values,
                                        const std::string &name) {
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

std::vector<ProgramImporter::SubgraphArg>
ProgramImporter::slicesAt(const std::vector<ir::Value *> &tensors, int64_t index,
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

Expected<int64_t> ProgramImporter::tripCount(const std::vector<ir::Value *> &tensors,
                                             const std::string &op) {
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

Status ProgramImporter::importHigherOrder(const Json &node, const std::string &target,
                                          const std::string &name) {
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

Expected<ProgramImporter::AutocastRegion>
ProgramImporter::autocastRegion(const std::vector<HigherOrderArg> &args) {
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

std::string ProgramImporter::outputDevice(const Json &node) {
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

Expected<bool> ProgramImporter::autocastNode(const Json &node, const std::string &target,
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

Status ProgramImporter::importCond(const Json &node, const std::vector<const Json *> &graphs,
                                   const std::vector<HigherOrderArg> &args,
                                   const std::string &name) {
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

bool ProgramImporter::compareConstants(const SymComparison &comparison) {
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

ir::Value *ProgramImporter::sizeTensor(const ir::SymExpr &expr, const std::string &name) {
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

void ProgramImporter::guardNodesAfter(size_t count, int64_t id, bool polarity) {
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

Status ProgramImporter::importMap(const Json &node, const std::vector<const Json *> &graphs,
                                  const std::vector<HigherOrderArg> &args,
                                  const std::string &name) {
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

Status ProgramImporter::importScan(const Json &node, const std::vector<const Json *> &graphs,
                                   const std::vector<HigherOrderArg> &args,
                                   const std::string &name) {
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

Status ProgramImporter::importMapped(const Json &node, const std::string &target,
                                     const std::string &name, const ir::SourceInfo &source) {
  const OpSchema *schema = findOpSchema(target);
  // A node that reads or makes a complex value imports through the complex table only, so
  // that no real lowering ever computes on a pair as if it were a real tensor.
  bool complex = touchesComplex(node);
  ImportFunction function =
      complex ? findComplexImportFunction(target) : findImportFunction(target);
  if (complex && (schema == nullptr || function == nullptr))
    return unsupported(std::string(stripTorchOps(target)) + " on complex values: " + complexOpsSummary());
  if (schema == nullptr || function == nullptr)
    return unsupported("no thunderc lowering for " + std::string(stripTorchOps(target)));
  NodeImport import(state_, node, *schema, name, source);
  TC_TRY(import.matchArguments());
  return function(import);
}

} // namespace thunderc::frontend::detail
