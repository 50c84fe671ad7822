// config.pbtxt for the thunderc Triton backend, and the model library's entry table.
//
// Batching: when every user input and every output has the same symbol as its first dim, and
// that symbol appears nowhere else and its range includes 1, the model batches: config.pbtxt
// says max_batch_size (the symbol's upper bound, at most BundleOptions::tritonMaxBatch) with
// dynamic batching on, and lists the other dims; the backend concatenates the requests of a
// batch along dim 0. Otherwise max_batch_size is 0 and every request runs alone.
#include "codegen/triton_model.h"

#include <set>
#include <sstream>

#include "codegen/template.h"

namespace thunderc::codegen {
namespace {

std::optional<std::string> tritonType(ir::DType dtype) {
  switch (dtype) {
  case ir::DType::F32: return "TYPE_FP32";
  case ir::DType::F16: return "TYPE_FP16";
  case ir::DType::BF16: return "TYPE_BF16";
  case ir::DType::F64: return "TYPE_FP64";
  case ir::DType::I64: return "TYPE_INT64";
  case ir::DType::I32: return "TYPE_INT32";
  case ir::DType::I16: return "TYPE_INT16";
  case ir::DType::I8: return "TYPE_INT8";
  case ir::DType::U8: return "TYPE_UINT8";
  case ir::DType::Bool: return "TYPE_BOOL";
  default: return std::nullopt;
  }
}

struct Signature {
  std::vector<std::pair<std::string, ir::TensorType>> inputs, outputs;
};

Signature signatureOf(const ir::Graph &graph) {
  Signature signature;
  for (const auto &input : graph.inputs())
    if (input->inputKind() == ir::InputKind::User)
      signature.inputs.emplace_back(input->name(), input->type());
  for (size_t i = 0; i < graph.numUserOutputs(); ++i)
    signature.outputs.emplace_back("output_" + std::to_string(i), graph.outputs()[i]->type());
  return signature;
}

/// The batch symbol and its largest batch, or nullopt when the model does not batch.
std::optional<std::pair<std::string, int64_t>> batchSymbol(const ir::Graph &graph,
                                                           const Signature &signature,
                                                           int64_t limit) {
  std::optional<std::string> symbol;
  auto all = signature.inputs;
  all.insert(all.end(), signature.outputs.begin(), signature.outputs.end());
  for (const auto &[name, type] : all) {
    if (type.shape.empty() || type.shape[0].isStatic() ||
        type.shape[0].expr().kind() != ir::SymExpr::Kind::Symbol)
      return std::nullopt;
    const std::string &first = type.shape[0].expr().symbolName();
    if (symbol && *symbol != first)
      return std::nullopt;
    symbol = first;
    for (size_t d = 1; d < type.shape.size(); ++d) {
      std::set<std::string> used;
      if (!type.shape[d].isStatic())
        type.shape[d].expr().collectSymbols(used);
      if (used.count(first))
        return std::nullopt;
    }
  }
  if (!symbol)
    return std::nullopt;
  auto range = graph.symbols().find(*symbol);
  if (range == graph.symbols().end() || range->second.min > 1)
    return std::nullopt;
  int64_t largest = range->second.max ? std::min(*range->second.max, limit) : limit;
  if (largest < 1)
    return std::nullopt;
  return std::make_pair(*symbol, largest);
}

Expected<std::string> tensorEntry(const std::string &name, const ir::TensorType &type,
                                  bool batched, const char *what) {
  std::optional<std::string> dataType = tritonType(type.dtype);
  if (!dataType)
    return unsupported(std::string("--triton: ") + what + " '" + name + "' has dtype " +
                       std::string(ir::dtypeName(type.dtype)) + ", which Triton has no type for");
  std::string dims;
  for (size_t d = batched ? 1 : 0; d < type.shape.size(); ++d)
    dims += (dims.empty() ? "" : ", ") +
            (type.shape[d].isStatic() ? std::to_string(type.shape[d].value()) : "-1");
  // Triton needs at least one dim: a 0-d tensor (or, batched, one value per request) is
  // declared [1] and reshaped to no dims, which holds the same bytes.
  const bool scalar = dims.empty();
  std::ostringstream out;
  out << "  {\n    name: \"" << name << "\"\n    data_type: " << *dataType << "\n    dims: [ "
      << (scalar ? "1" : dims) << " ]\n";
  if (scalar)
    out << "    reshape: { shape: [ ] }\n";
  out << "  }";
  return out.str();
}

} // namespace

namespace {

// A CUDA bundle's library selects the instance's GPU; the CPU emulation has one device.
constexpr const char *kCudaDeviceCode = R"(
#ifdef TC_CUDA_EMULATE
tc_status selectDevice(int device, tc_error *err) {
  if (device != 0)
    return tc_error_setf(err, TC_ERROR_DEVICE,
                         "the CPU emulation of CUDA has one device, 0, not %d", device);
  tc_error_clear(err);
  return TC_OK;
}
#else
tc_status selectDevice(int device, tc_error *err) {
  const cudaError_t status = cudaSetDevice(device);
  if (status != cudaSuccess)
    return tc_error_setf(err, TC_ERROR_DEVICE, "cudaSetDevice(%d): %s", device,
                         cudaGetErrorString(status));
  tc_error_clear(err);
  return TC_OK;
}
#endif
)";

} // namespace

Expected<std::map<std::string, std::string>> tritonFiles(const ir::Graph &graph,
                                                         const BundleOptions &options,
                                                         bool cuda) {
  const Signature signature = signatureOf(graph);
  const auto batch = batchSymbol(graph, signature, options.tritonMaxBatch);
  std::ostringstream config;
  config << "# Written by thunderc --triton for the thunderc backend (docs/TRITON.md). The model\n"
            "# library and weights.bin are in version folder 1.\n";
  config << "name: \"" << options.name << "\"\nbackend: \"thunderc\"\n";
  config << "max_batch_size: " << (batch ? batch->second : 0) << "\n";
  for (const auto &[key, list, what] :
       {std::tuple{"input", &signature.inputs, "input"},
        std::tuple{"output", &signature.outputs, "output"}}) {
    config << key << " [\n";
    for (size_t i = 0; i < list->size(); ++i) {
      TC_ASSIGN_OR_RETURN(std::string entry,
                          tensorEntry((*list)[i].first, (*list)[i].second, batch.has_value(),
                                      what));
      config << entry << (i + 1 < list->size() ? ",\n" : "\n");
    }
    config << "]\n";
  }
  if (batch)
    config << "dynamic_batching {\n  max_queue_delay_microseconds: 100\n}\n";
  // A CUDA bundle's instances are GPU instances (its CMake project writes KIND_CPU into the
  // repository's copy when it is built against the CPU emulation of CUDA).
  config << "instance_group [\n  {\n    count: 1\n    kind: " << (cuda ? "KIND_GPU" : "KIND_CPU")
         << "\n  }\n]\n";
  config << "parameters {\n  key: \"num_threads\"\n  value: { string_value: \"1\" }\n}\n";

  std::string names;
  for (const auto &[name, type] : signature.inputs)
    names += "\"" + name + "\", ";
  std::string source = renderEmbeddedTemplate(
      "codegen/templates/triton_model_api.cpp.in",
      {{"NAME", options.name},
       {"NUM_INPUTS", std::to_string(signature.inputs.size())},
       {"NUM_OUTPUTS", std::to_string(signature.outputs.size())},
       {"INPUT_NAMES", names + "nullptr"},
       {"RUN", options.name + (cuda ? "_run_host" : "_run")},
       {"DEVICE_INCLUDE",
        cuda ? "#ifndef TC_CUDA_EMULATE\n#include <cuda_runtime_api.h>\n#endif\n" : ""},
       {"DEVICE_CODE", cuda ? kCudaDeviceCode : ""},
       {"SELECT_DEVICE", cuda ? "selectDevice" : "nullptr"}});
  return std::map<std::string, std::string>{
      {"triton/config.pbtxt", config.str()},
      {"triton/" + options.name + "_model_api.cpp", std::move(source)}};
}

std::string tritonCmake(const BundleOptions &options) {
  if (!options.triton)
    return "";
  return renderEmbeddedTemplate("codegen/templates/triton.cmake.in", {{"NAME", options.name}});
}

} // namespace thunderc::codegen
