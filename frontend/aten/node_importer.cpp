// NodeImport: argument matching against op schemas, metadata types, and IR emission.
#include "frontend/aten/node_importer.h"

#include <algorithm>
#include <limits>

#include "frontend/pt2/sympy_expr.h"
#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

constexpr size_t kMaxRank = 16;

std::string quoteName(std::string_view arg) { return "'" + std::string(arg) + "'"; }

Expected<ir::Dim> symIntToDim(const Json &symInt, const ImportState &state) {
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(symInt, "SymInt"));
  if (value.kind == "as_int") {
    if (!value.payload->is_number_integer())
      return invalidInput("as_int is not an integer");
    return ir::Dim(value.payload->get<int64_t>());
  }
  if (value.kind == "as_expr") {
    TC_ASSIGN_OR_RETURN(std::string text, jsonString(*value.payload, "expr_str"));
    TC_ASSIGN_OR_RETURN(ir::SymExpr expr, parseSympySrepr(text, state.symbolRenames));
    return ir::Dim(expr);
  }
  if (value.kind == "as_name") {
    if (!value.payload->is_string())
      return invalidInput("as_name is not a string");
    auto it = state.symInts.find(value.payload->get<std::string>());
    if (it == state.symInts.end())
      return invalidInput("unknown symbolic int '" + value.payload->get<std::string>() + "'");
    return ir::Dim(it->second);
  }
  return invalidInput("unexpected SymInt kind '" + value.kind + "'");
}

// The eager strides recorded with a tensor's metadata. thunderc chooses its own layouts, but
// strides that cannot describe a tensor of these sizes mean the metadata is corrupt: the same
// rank as the sizes, no negative stride, and no element past the 2^48-element limit.
Status checkStrides(const Json &meta, const ir::TensorType &type) {
  const Json *strides = jsonFind(meta, "strides");
  if (strides == nullptr)
    return Status::success();
  if (!strides->is_array())
    return invalidInput("field 'strides' is not an array");
  if (strides->size() != type.shape.size())
    return invalidInput("strides have " + std::to_string(strides->size()) +
                        " entries for a tensor of rank " + std::to_string(type.shape.size()));
  unsigned __int128 lastElement = 0;
  for (size_t i = 0; i < type.shape.size(); ++i) {
    // Symbolic strides are expressions of the sizes' symbols; only static ones are checked.
    TC_ASSIGN_OR_RETURN(JsonUnion stride, jsonUnion((*strides)[i], "stride"));
    if (stride.kind != "as_int")
      continue;
    if (!stride.payload->is_number_integer())
      return invalidInput("stride of dimension " + std::to_string(i) + " is not an integer");
    int64_t value = stride.payload->get<int64_t>();
    if (value < 0)
      return invalidInput("stride " + std::to_string(value) + " of dimension " +
                          std::to_string(i) + " is negative");
    if (!type.shape[i].isStatic() || type.shape[i].value() == 0)
      continue;
    lastElement += static_cast<unsigned __int128>(type.shape[i].value() - 1) *
                   static_cast<uint64_t>(value);
    if (lastElement >= (static_cast<unsigned __int128>(1) << 48))
      return invalidInput("stride " + std::to_string(value) + " of dimension " +
                          std::to_string(i) + " addresses past the 2^48-element limit " +
                          "(sizes " + type.str() + ")");
  }
  return Status::success();
}

} // namespace

Expected<ir::TensorType> tensorTypeFromMeta(const Json &meta, const ImportState &state) {
  TC_ASSIGN_OR_RETURN(const Json *dtype, jsonField(meta, "dtype"));
  TC_TRY(checkLayoutAndDevice(meta));
  ir::TensorType type;
  TC_ASSIGN_OR_RETURN(type.dtype, schemaDType(*dtype));
  TC_ASSIGN_OR_RETURN(const Json *sizes, jsonArray(meta, "sizes"));
  if (sizes->size() > kMaxRank)
    return invalidInput("rank " + std::to_string(sizes->size()) + " exceeds the maximum of " +
                        std::to_string(kMaxRank));
  unsigned __int128 staticElements = 1;
  for (const Json &size : *sizes) {
    TC_ASSIGN_OR_RETURN(ir::Dim dim, symIntToDim(size, state));
    if (dim.isStatic()) {
      if (dim.value() < 0)
        return invalidInput("negative size " + std::to_string(dim.value()));
      staticElements *= static_cast<uint64_t>(dim.value());
      if (staticElements > (static_cast<unsigned __int128>(1) << 48))
        return invalidInput("tensor size overflows (more than 2^48 elements)");
    }
    type.shape.push_back(dim);
  }
  TC_TRY(checkStrides(meta, type));
  return type;
}

bool isComplexMeta(const Json &meta) {
  const Json *dtype = jsonFind(meta, "dtype");
  if (dtype == nullptr)
    return false;
  if (dtype->is_number_integer()) {
    int64_t number = dtype->get<int64_t>(); // the schema's numbering: 9, 10, 11 are complex
    return number >= 9 && number <= 11;
  }
  return dtype->is_string() && dtype->get<std::string>().starts_with("COMPLEX");
}

Expected<ir::TensorType> complexPairTypeFromMeta(const Json &meta, const ImportState &state) {
  TC_ASSIGN_OR_RETURN(const Json *dtype, jsonField(meta, "dtype"));
  bool complex64 = (dtype->is_number_integer() && dtype->get<int64_t>() == 10) ||
                   (dtype->is_string() && dtype->get<std::string>() == "COMPLEXFLOAT");
  if (!complex64)
    return unsupported("dtype " + dtype->dump() + " is complex32 or complex128: thunderc "
                       "computes complex values as float32 pairs (complex64) only");
  Json real = meta;
  real["dtype"] = 7; // FLOAT: the pair's element type
  TC_ASSIGN_OR_RETURN(ir::TensorType type, tensorTypeFromMeta(real, state));
  type.shape.push_back(ir::Dim(2));
  return type;
}

NodeImport::NodeImport(ImportState &state, const Json &node, const OpSchema &schema,
                       std::string name, ir::SourceInfo source)
    : state_(state), node_(node), schema_(schema), name_(std::move(name)),
      source_(std::move(source)) {}

Status NodeImport::matchArguments() {
  TC_ASSIGN_OR_RETURN(const Json *inputs, jsonArray(node_, "inputs"));
  for (const Json &input : *inputs) {
    TC_ASSIGN_OR_RETURN(std::string argName, jsonString(input, "name"));
    TC_ASSIGN_OR_RETURN(const Json *arg, jsonField(input, "arg"));
    if (schema_.findArg(argName) == nullptr)
      return invalidInput("unknown argument " + quoteName(argName) + " for " + schema_.name + "." +
                          schema_.overload);
    arguments_[argName] = arg;
  }
  for (const ArgSchema &arg : schema_.args) {
    if (arguments_.count(arg.name))
      continue;
    if (!arg.defaultArgument)
      return invalidInput("missing required argument " + quoteName(arg.name));
    arguments_[arg.name] = &*arg.defaultArgument;
  }
  TC_ASSIGN_OR_RETURN(const Json *outputs, jsonArray(node_, "outputs"));
  for (const Json &output : *outputs) {
    TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(output, "output"));
    if (value.kind == "as_tensor") {
      TC_ASSIGN_OR_RETURN(std::string tensorName, jsonString(*value.payload, "name"));
      outputNames_.push_back(tensorName);
    } else if (value.kind == "as_tensors") {
      if (!value.payload->is_array())
        return invalidInput("as_tensors is not an array");
      for (const Json &item : *value.payload) {
        TC_ASSIGN_OR_RETURN(std::string tensorName, jsonString(item, "name"));
        outputNames_.push_back(tensorName);
      }
    } else if (value.kind != "as_none") {
      return unsupported("non-tensor output (" + value.kind + ")");
    }
  }
  return Status::success();
}

Expected<const Json *> NodeImport::argument(std::string_view arg) const {
  auto it = arguments_.find(arg);
  TC_CHECK(it != arguments_.end(), "import table reads argument '" + std::string(arg) +
                                       "' that " + schema_.name + " does not have");
  return it->second;
}

bool NodeImport::isNone(std::string_view arg) const {
  auto it = arguments_.find(arg);
  if (it == arguments_.end())
    return true;
  const Json &value = *it->second;
  if (!value.is_object() || value.size() != 1)
    return false;
  if (value.contains("as_none"))
    return true;
  // Optional tensors: {"as_optional_tensor": {"as_none": true}}.
  auto inner = value.begin();
  return inner.value().is_object() && inner.value().contains("as_none");
}

Expected<ir::Value *> NodeImport::tensor(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  const Json *payload = value.payload;
  if (value.kind == "as_optional_tensor") {
    TC_ASSIGN_OR_RETURN(JsonUnion inner, jsonUnion(*payload, "argument " + quoteName(arg)));
    if (inner.kind != "as_tensor")
      return invalidInput("argument " + quoteName(arg) + " is None, expected a tensor");
    payload = inner.payload;
  } else if (value.kind != "as_tensor") {
    return invalidInput("argument " + quoteName(arg) + " is " + value.kind + ", expected a tensor");
  }
  TC_ASSIGN_OR_RETURN(std::string tensorName, jsonString(*payload, "name"));
  auto it = state_.values.find(tensorName);
  if (it == state_.values.end())
    return invalidInput("argument " + quoteName(arg) + " uses undefined tensor " +
                        quoteName(tensorName));
  return it->second;
}

Expected<ir::Value *> NodeImport::optionalTensor(std::string_view arg) const {
  if (isNone(arg))
    return static_cast<ir::Value *>(nullptr);
  return tensor(arg);
}

Expected<std::vector<ir::Value *>> NodeImport::tensorList(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  if (value.kind != "as_tensors" || !value.payload->is_array())
    return invalidInput("argument " + quoteName(arg) + " is " + value.kind +
                        ", expected a tensor list");
  std::vector<ir::Value *> tensors;
  for (const Json &item : *value.payload) {
    TC_ASSIGN_OR_RETURN(std::string tensorName, jsonString(item, "name"));
    auto it = state_.values.find(tensorName);
    if (it == state_.values.end())
      return invalidInput("argument " + quoteName(arg) + " uses undefined tensor " +
                          quoteName(tensorName));
    tensors.push_back(it->second);
  }
  return tensors;
}

Expected<std::vector<ir::Value *>> NodeImport::optionalTensorList(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  if (value.kind == "as_tensors")
    return tensorList(arg);
  if (value.kind != "as_optional_tensors" || !value.payload->is_array())
    return invalidInput("argument " + quoteName(arg) + " is " + value.kind +
                        ", expected a list of optional tensors");
  std::vector<ir::Value *> tensors;
  for (const Json &item : *value.payload) {
    TC_ASSIGN_OR_RETURN(JsonUnion entry, jsonUnion(item, "argument " + quoteName(arg)));
    if (entry.kind == "as_none") {
      tensors.push_back(nullptr);
      continue;
    }
    if (entry.kind != "as_tensor")
      return invalidInput("argument " + quoteName(arg) + " has an entry of kind " + entry.kind +
                          ", expected as_tensor or as_none");
    TC_ASSIGN_OR_RETURN(std::string tensorName, jsonString(*entry.payload, "name"));
    auto it = state_.values.find(tensorName);
    if (it == state_.values.end())
      return invalidInput("argument " + quoteName(arg) + " uses undefined tensor " +
                          quoteName(tensorName));
    tensors.push_back(it->second);
  }
  return tensors;
}

Expected<int64_t> NodeImport::intArg(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> value, optionalInt(arg));
  if (!value)
    return invalidInput("argument " + quoteName(arg) + " is None, expected an int");
  return *value;
}

Expected<std::optional<int64_t>> NodeImport::optionalInt(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(std::optional<ir::Dim> dim, optionalSymInt(arg));
  if (!dim)
    return std::optional<int64_t>();
  if (!dim->isStatic())
    return unsupported("symbolic value for argument " + quoteName(arg));
  return std::optional<int64_t>(dim->value());
}

Expected<std::optional<ir::Dim>> NodeImport::optionalSymInt(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  if (value.kind == "as_none")
    return std::optional<ir::Dim>();
  if (value.kind == "as_int" && value.payload->is_number_integer())
    return std::optional<ir::Dim>(ir::Dim(value.payload->get<int64_t>()));
  if (value.kind == "as_sym_int") {
    Expected<ir::Dim> dim = symIntToDim(*value.payload, state_);
    if (!dim.ok())
      return std::move(dim).error().withContext("argument " + quoteName(arg));
    return std::optional<ir::Dim>(*dim);
  }
  return invalidInput("argument " + quoteName(arg) + " is " + value.kind + ", expected an int");
}

Expected<double> NodeImport::floatArg(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(std::optional<double> value, optionalFloat(arg));
  if (!value)
    return invalidInput("argument " + quoteName(arg) + " is None, expected a number");
  return *value;
}

Expected<std::optional<double>> NodeImport::optionalFloat(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(ScalarOrTensor value, scalarOrTensor(arg));
  if (value.tensor != nullptr)
    return unsupported("tensor value for scalar argument " + quoteName(arg));
  if (isNone(arg))
    return std::optional<double>();
  return std::optional<double>(value.scalar);
}

Expected<bool> NodeImport::boolArg(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  if (value.kind != "as_bool" || !value.payload->is_boolean())
    return invalidInput("argument " + quoteName(arg) + " is " + value.kind + ", expected a bool");
  return value.payload->get<bool>();
}

Expected<std::optional<std::string>> NodeImport::optionalString(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  if (value.kind == "as_none")
    return std::optional<std::string>();
  if (value.kind != "as_string" || !value.payload->is_string())
    return invalidInput("argument " + quoteName(arg) + " is " + value.kind +
                        ", expected a string");
  return std::optional<std::string>(value.payload->get<std::string>());
}

Expected<bool> NodeImport::isContiguousFormat(std::string_view arg) const {
  if (isNone(arg))
    return false;
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  // torch/_export/serde/schema.py's MemoryFormat: ContiguousFormat = 1.
  return value.kind == "as_memory_format" && value.payload->is_number_integer() &&
         value.payload->get<int64_t>() == 1;
}

Expected<std::vector<int64_t>> NodeImport::intList(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  std::vector<int64_t> values;
  if (value.kind == "as_int" && value.payload->is_number_integer())
    return std::vector<int64_t>{value.payload->get<int64_t>()};
  if ((value.kind != "as_ints" && value.kind != "as_sym_ints") || !value.payload->is_array())
    return invalidInput("argument " + quoteName(arg) + " is " + value.kind +
                        ", expected an int list");
  for (const Json &item : *value.payload) {
    if (item.is_number_integer()) {
      values.push_back(item.get<int64_t>());
      continue;
    }
    Expected<ir::Dim> dim = symIntToDim(item, state_);
    if (!dim.ok())
      return std::move(dim).error().withContext("argument " + quoteName(arg));
    if (!dim->isStatic())
      return unsupported("symbolic entry in argument " + quoteName(arg));
    values.push_back(dim->value());
  }
  return values;
}

Expected<std::optional<std::vector<double>>>
NodeImport::optionalFloatList(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  if (value.kind == "as_none")
    return std::optional<std::vector<double>>();
  if (value.kind == "as_float" && value.payload->is_number())
    return std::optional<std::vector<double>>(std::vector<double>{value.payload->get<double>()});
  if (value.kind != "as_floats" || !value.payload->is_array())
    return invalidInput("argument " + quoteName(arg) + " is " + value.kind +
                        ", expected a float list");
  std::vector<double> values;
  for (const Json &item : *value.payload) {
    if (!item.is_number())
      return invalidInput("argument " + quoteName(arg) + " holds a non-number");
    values.push_back(item.get<double>());
  }
  return std::optional<std::vector<double>>(std::move(values));
}

Expected<ScalarOrTensor> NodeImport::scalarOrTensor(std::string_view arg) const {
  TC_ASSIGN_OR_RETURN(const Json *json, argument(arg));
  TC_ASSIGN_OR_RETURN(JsonUnion value, jsonUnion(*json, "argument " + quoteName(arg)));
  ScalarOrTensor result;
  if (value.kind == "as_tensor" || value.kind == "as_optional_tensor") {
    TC_ASSIGN_OR_RETURN(result.tensor, tensor(arg));
    return result;
  }
  if (value.kind == "as_none")
    return result;
  if (value.kind == "as_int" && value.payload->is_number_integer()) {
    result.scalar = static_cast<double>(value.payload->get<int64_t>());
    return result;
  }
  if (value.kind == "as_float") {
    TC_ASSIGN_OR_RETURN(result.scalar, jsonNumber(*value.payload));
    result.scalarIsFloat = true;
    return result;
  }
  if (value.kind == "as_bool" && value.payload->is_boolean()) {
    result.scalar = value.payload->get<bool>() ? 1.0 : 0.0;
    result.scalarIsBool = true;
    return result;
  }
  if (value.kind == "as_sym_int" || value.kind == "as_sym_float" || value.kind == "as_sym_bool") {
    // tensor.item(): the 0-d tensor it was read from.
    const Json *nameField = value.payload->is_object() ? jsonFind(*value.payload, "as_name")
                                                       : nullptr;
    if (nameField && nameField->is_string()) {
      auto found = state_.symScalars.find(nameField->get<std::string>());
      if (found != state_.symScalars.end()) {
        result.tensor = found->second;
        return result;
      }
    }
  }
  if (value.kind == "as_sym_int") { // a symbolic size (`x.add_(seq_len)`): a 0-d i64 tensor
    TC_ASSIGN_OR_RETURN(ir::Dim size, symIntToDim(*value.payload, state_));
    result.tensor = const_cast<NodeImport *>(this)->sizeTensor(size);
    return result;
  }
  return invalidInput("argument " + quoteName(arg) + " is " + value.kind +
                      ", expected a number or a tensor");
}

ir::Value *NodeImport::sizeTensor(const ir::Dim &size) {
  if (size.isStatic())
    return scalarConstant(static_cast<double>(size.value()), ir::DType::I64);
  ir::AttrMap one;
  one.set("value", 1.0);
  ir::Value *ones = emitTemp(ir::OpKind::Full, {}, ir::TensorType{ir::DType::I64, {size}},
                             std::move(one));
  ir::AttrMap all;
  all.set("dims", std::vector<int64_t>{0});
  all.set("keepdim", false);
  return emitTemp(ir::OpKind::Sum, {ones}, ir::TensorType{ir::DType::I64, {}}, std::move(all));
}

bool NodeImport::isOutputUsed(int index) const {
  return state_.referencedNames.count(outputName(index)) != 0;
}

Expected<ir::TensorType> NodeImport::outputType(int index) const {
  if (index >= numOutputs())
    return invalidInput("missing output " + std::to_string(index));
  const std::string &tensorName = outputName(index);
  if (state_.tensorValues == nullptr || !state_.tensorValues->contains(tensorName))
    return invalidInput("no tensor_values entry for output " + quoteName(tensorName));
  const Json &meta = (*state_.tensorValues)[tensorName];
  Expected<ir::TensorType> type =
      complexComponentOutputs_ && isComplexMeta(meta) ? complexPairTypeFromMeta(meta, state_)
                                                      : tensorTypeFromMeta(meta, state_);
  if (type.ok() && complexComponentOutputs_ && isComplexMeta(meta))
    type->shape.pop_back();
  if (!type.ok())
    return std::move(type).error().withContext("tensor_values[" + quoteName(tensorName) + "]");
  return type;
}

std::vector<std::string> NodeImport::inputTensorNames() const {
  std::vector<std::string> names;
  auto addName = [&](const Json &tensor) {
    if (const Json *name = tensor.is_object() ? jsonFind(tensor, "name") : nullptr;
        name != nullptr && name->is_string())
      names.push_back(name->get<std::string>());
  };
  for (const ArgSchema &arg : schema_.args) {
    auto it = arguments_.find(arg.name);
    if (it == arguments_.end() || !it->second->is_object() || it->second->size() != 1)
      continue;
    auto value = it->second->begin();
    const std::string &kind = value.key();
    if (kind == "as_tensor") {
      addName(value.value());
    } else if (kind == "as_optional_tensor") {
      if (const Json *inner = jsonFind(value.value(), "as_tensor"))
        addName(*inner);
    } else if ((kind == "as_tensors" || kind == "as_optional_tensors") &&
               value.value().is_array()) {
      for (const Json &item : value.value()) {
        const Json *inner = item.is_object() ? jsonFind(item, "as_tensor") : nullptr;
        addName(inner != nullptr ? *inner : item);
      }
    }
  }
  return names;
}

bool NodeImport::isComplexOutput(int index) const {
  if (index >= numOutputs() || state_.tensorValues == nullptr)
    return false;
  const Json *meta = jsonFind(*state_.tensorValues, outputName(index).c_str());
  return meta != nullptr && isComplexMeta(*meta);
}

Expected<ir::TensorType> NodeImport::complexOutputType(int index) const {
  if (index >= numOutputs())
    return invalidInput("missing output " + std::to_string(index));
  const std::string &tensorName = outputName(index);
  if (state_.tensorValues == nullptr || !state_.tensorValues->contains(tensorName))
    return invalidInput("no tensor_values entry for output " + quoteName(tensorName));
  Expected<ir::TensorType> type =
      complexPairTypeFromMeta((*state_.tensorValues)[tensorName], state_);
  if (!type.ok())
    return std::move(type).error().withContext("tensor_values[" + quoteName(tensorName) + "]");
  return type;
}

Expected<ir::Node *> NodeImport::emit(ir::OpKind op, std::vector<ir::Value *> operands,
                                      ir::AttrMap attrs, int numResults) {
  if (numOutputs() < numResults)
    return invalidInput("node has " + std::to_string(numOutputs()) + " outputs, expected " +
                        std::to_string(numResults));
  for (int i = numResults; i < numOutputs(); ++i)
    if (isOutputUsed(i))
      return unsupported("output " + std::to_string(i) + " ('" + outputName(i) +
                         "') is used; thunderc computes only the first " +
                         std::to_string(numResults));
  std::vector<ir::TensorType> types;
  for (int i = 0; i < numResults; ++i) {
    TC_ASSIGN_OR_RETURN(ir::TensorType type, outputType(i));
    types.push_back(std::move(type));
  }
  ir::Node *node =
      state_.graph->appendNode(op, std::move(operands), std::move(types), std::move(attrs));
  node->setName(name_);
  node->source() = source_;
  for (int i = 0; i < numResults; ++i) {
    node->result(i)->setName(outputName(i));
    state_.values[outputName(i)] = node->result(i);
    if (ir::hasTrait(op, ir::kView))
      state_.viewResults.insert(node->result(i));
  }
  return node;
}

Expected<int64_t> normalizedDim(NodeImport &node, int64_t dim, int64_t rank) {
  int64_t normalized = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
  if (normalized < 0 || normalized >= std::max<int64_t>(rank, 1))
    return invalidInput("dim " + std::to_string(dim) + " out of range for rank " +
                        std::to_string(rank) + " in node '" + node.name() + "'");
  return normalized;
}

Expected<int64_t> shapeDim(NodeImport &node, int64_t dim, int64_t rank, std::string_view op) {
  if (rank == 0)
    return invalidInput(std::string(op) + " of a 0-d tensor (dim " + std::to_string(dim) +
                        ") in node '" + node.name() + "'");
  return normalizedDim(node, dim, rank);
}

Expected<std::vector<int64_t>> normalizedDims(NodeImport &node, std::vector<int64_t> dims,
                                              int64_t rank) {
  for (int64_t &dim : dims) {
    TC_ASSIGN_OR_RETURN(dim, normalizedDim(node, dim, rank));
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  return dims;
}

ir::Value *NodeImport::emitTemp(ir::OpKind op, std::vector<ir::Value *> operands,
                                ir::TensorType type, ir::AttrMap attrs) {
  ir::Node *node =
      state_.graph->appendNode(op, std::move(operands), {std::move(type)}, std::move(attrs));
  node->setName(name_);
  node->source() = source_;
  return node->result();
}

Expected<ir::Value *> NodeImport::emitInferred(ir::OpKind op, std::vector<ir::Value *> operands,
                                               ir::AttrMap attrs) {
  std::vector<ir::TensorType> types;
  for (const ir::Value *operand : operands)
    types.push_back(operand->type());
  Expected<std::vector<ir::TensorType>> results = ir::inferResultTypes(op, types, attrs, {});
  if (!results.ok())
    return std::move(results).error().withContext("node '" + name_ + "' (" +
                                                  std::string(ir::opName(op)) + ")");
  return emitTemp(op, std::move(operands), results.value().front(), std::move(attrs));
}

std::vector<ir::Value *> NodeImport::emitTemps(ir::OpKind op, std::vector<ir::Value *> operands,
                                               std::vector<ir::TensorType> types,
                                               ir::AttrMap attrs) {
  ir::Node *node =
      state_.graph->appendNode(op, std::move(operands), std::move(types), std::move(attrs));
  node->setName(name_);
  node->source() = source_;
  std::vector<ir::Value *> results;
  for (int i = 0; i < node->numResults(); ++i)
    results.push_back(node->result(i));
  return results;
}

void NodeImport::bindOutput(int index, ir::Value *value) {
  state_.values[outputName(index)] = value;
}

ir::Value *NodeImport::castTo(ir::Value *value, ir::DType dtype) {
  if (value->type().dtype == dtype)
    return value;
  ir::TensorType type{dtype, value->type().shape};
  ir::AttrMap attrs;
  attrs.set("dtype", dtype);
  return emitTemp(ir::OpKind::Cast, {value}, std::move(type), std::move(attrs));
}

ir::Value *NodeImport::scalarConstant(double value, ir::DType dtype) {
  ir::AttrMap attrs;
  attrs.set("value", value);
  return emitTemp(ir::OpKind::Full, {}, ir::TensorType{dtype, {}}, std::move(attrs));
}

ir::Value *NodeImport::materialize(const ScalarOrTensor &operand, ir::DType dtype) {
  if (operand.tensor != nullptr)
    return castTo(operand.tensor, dtype);
  return scalarConstant(operand.scalar, dtype);
}

} // namespace thunderc::frontend

namespace thunderc::frontend {
namespace {

/// Whether a view result of the import aliases `base` (its chain of operand 0 reaches it).
bool hasView(const ImportState &state, const ir::Value *base) {
  for (const ir::Value *view : state.viewResults) {
    const ir::Value *value = view;
    while (value != base && !value->isGraphInput() &&
           ir::hasTrait(value->producer()->op(), ir::kView))
      value = value->producer()->operand(0);
    if (value == base && view != base)
      return true;
  }
  return false;
}

} // namespace

Status NodeImport::importInPlace(Status (*functional)(NodeImport &node)) {
  TC_ASSIGN_OR_RETURN(ir::Value * self, tensor("self"));
  ir::Value *stateInput = nullptr;
  if (auto it = state_.stateOf.find(self); it != state_.stateOf.end()) {
    stateInput = it->second;
  } else if (self->isGraphInput()) {
    switch (self->inputKind()) {
    case ir::InputKind::User:
      return unsupportedFeature("in-place update of the user input '" + self->name() +
                                "': a compiled model does not write into the caller's tensors "
                                "(return the updated tensor instead)");
    case ir::InputKind::Parameter:
      return unsupportedFeature("in-place update of the parameter '" + self->weightName() +
                                "' (model state must be a buffer)");
    default:
      if (hasView(state_, self))
        return unsupportedFeature("in-place update of the buffer '" + self->weightName() +
                                  "' while a view aliases it");
      stateInput = self;
      state_.graph->setInputKind(self, ir::InputKind::State);
      state_.stateOf[self] = self;
      break;
    }
  } else if (state_.viewResults.count(self)) {
    return unsupportedFeature("in-place update of a view");
  }
  TC_TRY(functional(*this));
  ir::Value *result = state_.values.at(outputName(0));
  for (auto &[name, value] : state_.values)
    if (value == self)
      value = result;
  if (stateInput != nullptr) {
    state_.stateOf[result] = stateInput;
    auto it = std::find_if(state_.stateUpdates.begin(), state_.stateUpdates.end(),
                           [&](const auto &update) { return update.first == stateInput; });
    if (it == state_.stateUpdates.end())
      state_.stateUpdates.emplace_back(stateInput, result);
    else
      it->second = result;
  }
  return Status::success();
}

Value *onesLike(NodeImport &node, const Value *like) {
  AttrMap one;
  one.set("value", 1.0);
  return node.emitTemp(OpKind::Full, {}, like->type(), std::move(one));
}

Status emitOne(NodeImport &node, OpKind op, std::vector<Value *> operands, AttrMap attrs) {
  TC_ASSIGN_OR_RETURN(ir::Node * emitted, node.emit(op, std::move(operands), std::move(attrs)));
  (void)emitted;
  return Status::success();
}

Status emitThenCast(NodeImport &node, OpKind op, std::vector<Value *> operands, AttrMap attrs,
                    DType dtype) {
  TC_ASSIGN_OR_RETURN(Value * wide, node.emitInferred(op, std::move(operands), std::move(attrs)));
  AttrMap cast;
  cast.set("dtype", dtype);
  return emitOne(node, OpKind::Cast, {wide}, std::move(cast));
}

} // namespace thunderc::frontend
