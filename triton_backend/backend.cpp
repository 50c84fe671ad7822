// The thunderc backend for Triton Inference Server (libtriton_thunderc.so, docs/TRITON.md): one
// backend library serves every bundle written with `thunderc --triton`.
//
// A model's version folder holds model.so (the bundle as a shared library exporting
// thunderc_model_api_v1, runtime/thunderc_model_api.h) and weights.bin. ModelInitialize loads
// the library and the weights once per model; the loaded model is immutable and shared by all
// instances; each instance owns one bundle context (its arena, its threads: parameter
// `num_threads`). Execute takes the requests Triton's scheduler hands it: for a batching model
// (max_batch_size > 0: dim 0 of every input and output is the batch) consecutive requests
// whose other dims agree are concatenated along dim 0 into the instance's staging buffers,
// run once, and each response gets its rows of the outputs; otherwise each request runs
// alone. A bundle error becomes an error response with the bundle's message (TRITONSERVER
// INVALID_ARG for bad inputs), and the instance keeps serving.
#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/thunderc_model_api.h"
#include "triton_backend/triton_api.h"

namespace {

using nlohmann::json;

uint64_t nowNs() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

TRITONSERVER_Error *error(TRITONSERVER_Error_Code code, const std::string &message) {
  return TRITONSERVER_ErrorNew(code, message.c_str());
}

void log(TRITONSERVER_LogLevel level, const std::string &message) {
  if (TRITONSERVER_Error *failed = TRITONSERVER_LogMessage(level, __FILE__, __LINE__,
                                                           message.c_str()))
    TRITONSERVER_ErrorDelete(failed);
}

/// For calls whose failure changes nothing the backend can do (statistics, releases).
void ignore(TRITONSERVER_Error *failed) {
  if (failed != nullptr)
    TRITONSERVER_ErrorDelete(failed);
}

#define RETURN_IF_ERROR(call)                                                                  \
  do {                                                                                         \
    if (TRITONSERVER_Error *failed_ = (call))                                                  \
      return failed_;                                                                          \
  } while (false)

struct TypeMap {
  TRITONSERVER_DataType triton;
  tc_dtype bundle;
  size_t bytes;
};
constexpr TypeMap kTypes[] = {
    {TRITONSERVER_TYPE_BOOL, TC_DTYPE_BOOL, 1}, {TRITONSERVER_TYPE_UINT8, TC_DTYPE_U8, 1},
    {TRITONSERVER_TYPE_INT8, TC_DTYPE_I8, 1},   {TRITONSERVER_TYPE_INT16, TC_DTYPE_I16, 2},
    {TRITONSERVER_TYPE_INT32, TC_DTYPE_I32, 4}, {TRITONSERVER_TYPE_INT64, TC_DTYPE_I64, 8},
    {TRITONSERVER_TYPE_FP16, TC_DTYPE_F16, 2},  {TRITONSERVER_TYPE_BF16, TC_DTYPE_BF16, 2},
    {TRITONSERVER_TYPE_FP32, TC_DTYPE_F32, 4},  {TRITONSERVER_TYPE_FP64, TC_DTYPE_F64, 8},
};

const TypeMap *byTriton(TRITONSERVER_DataType type) {
  for (const TypeMap &entry : kTypes)
    if (entry.triton == type)
      return &entry;
  return nullptr;
}

const TypeMap *byBundle(tc_dtype type) {
  for (const TypeMap &entry : kTypes)
    if (entry.bundle == type)
      return &entry;
  return nullptr;
}

int64_t elements(const int64_t *shape, int rank) {
  int64_t count = 1;
  for (int d = 0; d < rank; ++d)
    count *= shape[d];
  return count;
}

/// One model: its library, its weights, loaded once and shared by every instance.
struct ModelState {
  std::string name;
  void *library = nullptr;
  const thunderc_model_api *api = nullptr;
  void *model = nullptr;
  int64_t maxBatch = 0;
  int numThreads = 1;

  ~ModelState() {
    if (model != nullptr)
      api->free(model);
    // The library stays loaded: unloading code that libstdc++ or a thread pool may still
    // reference at exit is not worth the memory.
  }
};

/// One request's inputs, read from Triton's buffers (copied when they come in pieces).
struct RequestInputs {
  std::vector<tc_tensor> tensors;
  std::vector<std::vector<uint8_t>> joined; // inputs Triton holds in several buffers
  int64_t batch = 0;                        // dim 0 when batching
};

/// One instance: a bundle context and the staging buffers of batched runs.
struct InstanceState {
  ModelState *model = nullptr;
  void *context = nullptr;
  int device = 0; ///< the GPU of a CUDA bundle's GPU instance (0 for CPU instances)
  std::vector<std::vector<uint8_t>> inputStaging, outputStaging;

  ~InstanceState() {
    if (context != nullptr)
      model->api->context_destroy(context);
  }
};

TRITONSERVER_Error *readConfig(TRITONBACKEND_Model *model, ModelState &state) {
  TRITONSERVER_Message *message = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelConfig(model, 1, &message));
  const char *base = nullptr;
  size_t size = 0;
  TRITONSERVER_Error *failed = TRITONSERVER_MessageSerializeToJson(message, &base, &size);
  json config;
  if (failed == nullptr)
    config = json::parse(std::string(base, size), nullptr, /*allow_exceptions=*/false);
  TRITONSERVER_MessageDelete(message);
  RETURN_IF_ERROR(failed);
  if (config.is_discarded())
    return error(TRITONSERVER_ERROR_INTERNAL, "the model configuration is not JSON");
  state.maxBatch = config.value("max_batch_size", int64_t{0});
  if (config.contains("parameters") && config["parameters"].contains("num_threads")) {
    const std::string text = config["parameters"]["num_threads"].value("string_value", "1");
    char *end = nullptr;
    const long threads = std::strtol(text.c_str(), &end, 10);
    if (end == text.c_str() || *end != '\0' || threads < 0 || threads > 1024)
      return error(TRITONSERVER_ERROR_INVALID_ARG,
                   state.name + ": parameter num_threads is '" + text +
                       "', expected 0 (all cores) to 1024");
    state.numThreads = static_cast<int>(threads);
  }
  return nullptr;
}

TRITONSERVER_Error *loadModel(TRITONBACKEND_Model *model, ModelState &state) {
  const char *name = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelName(model, &name));
  state.name = name;
  uint64_t version = 0;
  RETURN_IF_ERROR(TRITONBACKEND_ModelVersion(model, &version));
  TRITONBACKEND_ArtifactType artifact;
  const char *location = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelRepository(model, &artifact, &location));
  if (artifact != TRITONBACKEND_ARTIFACT_FILESYSTEM)
    return error(TRITONSERVER_ERROR_UNSUPPORTED, state.name + ": the model repository must be "
                                                              "a folder on the file system");
  RETURN_IF_ERROR(readConfig(model, state));
  const std::string folder = std::string(location) + "/" + std::to_string(version);
  const std::string library = folder + "/model.so";
  state.library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (state.library == nullptr)
    return error(TRITONSERVER_ERROR_NOT_FOUND,
                 state.name + ": cannot load " + library + ": " + dlerror() +
                     " (build it with `cmake --build BUILD --target NAME_triton_repository` "
                     "from a bundle written by thunderc --triton)");
  auto entry = reinterpret_cast<thunderc_model_api_fn>(
      dlsym(state.library, THUNDERC_MODEL_API_SYMBOL));
  if (entry == nullptr || (state.api = entry()) == nullptr)
    return error(TRITONSERVER_ERROR_INVALID_ARG,
                 state.name + ": " + library + " is not a thunderc model (no " +
                     THUNDERC_MODEL_API_SYMBOL + ")");
  if (state.api->version != THUNDERC_MODEL_API_VERSION)
    return error(TRITONSERVER_ERROR_UNSUPPORTED,
                 state.name + ": " + library + " has model API version " +
                     std::to_string(state.api->version) + ", this backend reads version " +
                     std::to_string(THUNDERC_MODEL_API_VERSION));
  tc_error err{};
  const std::string weights = folder + "/weights.bin";
  if (state.api->load(weights.c_str(), &state.model, &err) != TC_OK)
    return error(TRITONSERVER_ERROR_INVALID_ARG, state.name + ": " + err.message);
  log(TRITONSERVER_LOG_INFO, "thunderc: loaded model " + state.name + " (bundle " +
                                 state.api->name + ", max_batch_size " +
                                 std::to_string(state.maxBatch) + ")");
  return nullptr;
}

/// Reads one request's inputs by the bundle's input names.
TRITONSERVER_Error *readInputs(const ModelState &model, TRITONBACKEND_Request *request,
                               RequestInputs &out) {
  const thunderc_model_api &api = *model.api;
  out.tensors.assign(static_cast<size_t>(api.num_inputs), tc_tensor{});
  out.joined.assign(static_cast<size_t>(api.num_inputs), {});
  for (int i = 0; i < api.num_inputs; ++i) {
    TRITONBACKEND_Input *input = nullptr;
    RETURN_IF_ERROR(TRITONBACKEND_RequestInput(request, api.input_names[i], &input));
    const char *name = nullptr;
    TRITONSERVER_DataType type;
    const int64_t *shape = nullptr;
    uint32_t rank = 0, buffers = 0;
    uint64_t bytes = 0;
    RETURN_IF_ERROR(
        TRITONBACKEND_InputProperties(input, &name, &type, &shape, &rank, &bytes, &buffers));
    const TypeMap *dtype = byTriton(type);
    if (dtype == nullptr)
      return error(TRITONSERVER_ERROR_INVALID_ARG,
                   std::string("input '") + name + "' has a data type thunderc does not read");
    if (rank > TC_MAX_RANK)
      return error(TRITONSERVER_ERROR_INVALID_ARG,
                   std::string("input '") + name + "' has " + std::to_string(rank) + " dims");
    tc_tensor &tensor = out.tensors[static_cast<size_t>(i)];
    tensor.dtype = dtype->bundle;
    tensor.rank = static_cast<int32_t>(rank);
    for (uint32_t d = 0; d < rank; ++d)
      tensor.shape[d] = shape[d];
    if (model.maxBatch > 0) {
      const int64_t batch = rank > 0 ? shape[0] : 0;
      if (i > 0 && batch != out.batch)
        return error(TRITONSERVER_ERROR_INVALID_ARG,
                     std::string("input '") + name + "' has batch " + std::to_string(batch) +
                         ", input '" + api.input_names[0] + "' has " +
                         std::to_string(out.batch));
      out.batch = batch;
    }
    std::vector<std::pair<const void *, uint64_t>> pieces;
    for (uint32_t b = 0; b < buffers; ++b) {
      const void *data = nullptr;
      uint64_t size = 0;
      TRITONSERVER_MemoryType memory = TRITONSERVER_MEMORY_CPU;
      int64_t memoryId = 0;
      RETURN_IF_ERROR(TRITONBACKEND_InputBuffer(input, b, &data, &size, &memory, &memoryId));
      if (memory == TRITONSERVER_MEMORY_GPU)
        return error(TRITONSERVER_ERROR_UNSUPPORTED,
                     std::string("input '") + name + "' is in GPU memory; the thunderc "
                                                     "backend serves CPU bundles");
      pieces.emplace_back(data, size);
    }
    if (pieces.size() == 1) {
      tensor.data = const_cast<void *>(pieces[0].first);
    } else {
      std::vector<uint8_t> &joined = out.joined[static_cast<size_t>(i)];
      joined.reserve(bytes);
      for (const auto &[data, size] : pieces)
        joined.insert(joined.end(), static_cast<const uint8_t *>(data),
                      static_cast<const uint8_t *>(data) + size);
      tensor.data = joined.data();
    }
    // The bundle checks shapes and dtypes; here only that the bytes are all there.
    const int64_t count = elements(tensor.shape, tensor.rank);
    if (count < 0 || static_cast<uint64_t>(count) * dtype->bytes != bytes)
      return error(TRITONSERVER_ERROR_INVALID_ARG,
                   std::string("input '") + name + "' holds " + std::to_string(bytes) +
                       " bytes, its shape needs " + std::to_string(count * int64_t(dtype->bytes)));
  }
  return nullptr;
}

bool sameExceptBatch(const RequestInputs &a, const RequestInputs &b) {
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const tc_tensor &x = a.tensors[i], &y = b.tensors[i];
    if (x.rank != y.rank || x.dtype != y.dtype)
      return false;
    for (int d = 1; d < x.rank; ++d)
      if (x.shape[d] != y.shape[d])
        return false;
  }
  return true;
}

void sendError(TRITONBACKEND_Request *request, TRITONSERVER_Error *failure) {
  TRITONBACKEND_Response *response = nullptr;
  if (TRITONBACKEND_ResponseNew(&response, request) == nullptr)
    ignore(TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, failure));
  TRITONSERVER_ErrorDelete(failure);
}

/// Sends request r its rows [row, row + batch) of the batch's outputs (all of them when the
/// model does not batch).
TRITONSERVER_Error *respond(const ModelState &model, TRITONBACKEND_Request *request,
                            const std::vector<tc_tensor> &outputs, int64_t row, int64_t batch) {
  TRITONBACKEND_Response *response = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ResponseNew(&response, request));
  uint32_t requested = 0;
  TRITONSERVER_Error *failed = TRITONBACKEND_RequestOutputCount(request, &requested);
  for (uint32_t r = 0; failed == nullptr && r < requested; ++r) {
    const char *name = nullptr;
    failed = TRITONBACKEND_RequestOutputName(request, r, &name);
    if (failed != nullptr)
      break;
    int index = -1;
    if (std::strncmp(name, "output_", 7) == 0)
      index = std::atoi(name + 7);
    if (index < 0 || index >= model.api->num_outputs) {
      failed = error(TRITONSERVER_ERROR_INVALID_ARG, std::string("unknown output '") + name +
                                                         "' (the outputs are output_0 .. output_" +
                                                         std::to_string(model.api->num_outputs - 1) + ")");
      break;
    }
    const tc_tensor &whole = outputs[static_cast<size_t>(index)];
    int64_t shape[TC_MAX_RANK];
    for (int d = 0; d < whole.rank; ++d)
      shape[d] = whole.shape[d];
    int64_t rowBytes = static_cast<int64_t>(byBundle(whole.dtype)->bytes);
    for (int d = model.maxBatch > 0 ? 1 : 0; d < whole.rank; ++d)
      rowBytes *= whole.shape[d];
    if (model.maxBatch > 0)
      shape[0] = batch;
    const uint64_t bytes = static_cast<uint64_t>(rowBytes * (model.maxBatch > 0 ? batch : 1));
    TRITONBACKEND_Output *output = nullptr;
    failed = TRITONBACKEND_ResponseOutput(response, &output, name,
                                          byBundle(whole.dtype)->triton, shape,
                                          static_cast<uint32_t>(whole.rank));
    if (failed != nullptr)
      break;
    void *buffer = nullptr;
    TRITONSERVER_MemoryType memory = TRITONSERVER_MEMORY_CPU;
    int64_t memoryId = 0;
    failed = TRITONBACKEND_OutputBuffer(output, &buffer, bytes, &memory, &memoryId);
    if (failed == nullptr && memory == TRITONSERVER_MEMORY_GPU)
      failed = error(TRITONSERVER_ERROR_UNSUPPORTED, "the server gave a GPU output buffer");
    if (failed == nullptr && bytes > 0)
      std::memcpy(buffer, static_cast<const uint8_t *>(whole.data) + row * rowBytes, bytes);
  }
  if (failed != nullptr) {
    ignore(TRITONBACKEND_ResponseDelete(response));
    return failed;
  }
  return TRITONBACKEND_ResponseSend(response, TRITONSERVER_RESPONSE_COMPLETE_FINAL, nullptr);
}

/// Runs requests [first, last) of `inputs` as one batch (or one request) and responds.
void runGroup(TRITONBACKEND_ModelInstance *instance, InstanceState &state,
              TRITONBACKEND_Request **requests, std::vector<RequestInputs> &inputs,
              const std::vector<size_t> &group, uint64_t execStart) {
  const ModelState &model = *state.model;
  const thunderc_model_api &api = *model.api;
  const bool batching = model.maxBatch > 0;
  std::vector<tc_tensor> batchInputs = inputs[group[0]].tensors;
  int64_t total = 0;
  for (size_t index : group)
    total += inputs[index].batch;
  if (batching && group.size() > 1) { // concatenate along dim 0 into the staging buffers
    state.inputStaging.resize(batchInputs.size());
    for (size_t i = 0; i < batchInputs.size(); ++i) {
      tc_tensor &tensor = batchInputs[i];
      tensor.shape[0] = total;
      const size_t bytes = static_cast<size_t>(elements(tensor.shape, tensor.rank)) *
                           byBundle(tensor.dtype)->bytes;
      std::vector<uint8_t> &staging = state.inputStaging[i];
      if (staging.size() < bytes)
        staging.resize(bytes);
      size_t offset = 0;
      for (size_t index : group) {
        const tc_tensor &piece = inputs[index].tensors[i];
        const size_t pieceBytes = static_cast<size_t>(elements(piece.shape, piece.rank)) *
                                  byBundle(piece.dtype)->bytes;
        if (pieceBytes > 0)
          std::memcpy(staging.data() + offset, piece.data, pieceBytes);
        offset += pieceBytes;
      }
      tensor.data = staging.data();
    }
  }
  std::vector<tc_tensor> outputs(static_cast<size_t>(api.num_outputs), tc_tensor{});
  tc_error err{};
  tc_status status = api.output_shapes(batchInputs.data(), api.num_inputs, outputs.data(),
                                       api.num_outputs, &err);
  const uint64_t computeStart = nowNs();
  if (status == TC_OK) {
    state.outputStaging.resize(outputs.size());
    for (size_t o = 0; o < outputs.size(); ++o) {
      const size_t bytes = static_cast<size_t>(elements(outputs[o].shape, outputs[o].rank)) *
                           byBundle(outputs[o].dtype)->bytes;
      if (state.outputStaging[o].size() < bytes)
        state.outputStaging[o].resize(bytes);
      outputs[o].data = state.outputStaging[o].data();
    }
    status = api.run(state.context, batchInputs.data(), api.num_inputs, outputs.data(),
                     api.num_outputs, &err);
  }
  const uint64_t computeEnd = nowNs();
  int64_t row = 0;
  for (size_t index : group) {
    TRITONBACKEND_Request *request = requests[index];
    bool ok = status == TC_OK;
    if (ok) {
      if (TRITONSERVER_Error *failed =
              respond(model, request, outputs, row, inputs[index].batch)) {
        sendError(request, failed);
        ok = false;
      }
    } else {
      const TRITONSERVER_Error_Code code = status == TC_ERROR_OUT_OF_MEMORY ||
                                                   status == TC_ERROR_INTERNAL
                                               ? TRITONSERVER_ERROR_INTERNAL
                                               : TRITONSERVER_ERROR_INVALID_ARG;
      sendError(request, error(code, model.name + ": " + err.message));
    }
    row += inputs[index].batch;
    ignore(TRITONBACKEND_ModelInstanceReportStatistics(instance, request, ok, execStart,
                                                       computeStart, computeEnd, nowNs()));
  }
  if (status == TC_OK)
    ignore(TRITONBACKEND_ModelInstanceReportBatchStatistics(
        instance, static_cast<uint64_t>(batching ? total : 1), execStart, computeStart,
        computeEnd, nowNs()));
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) TRITONSERVER_Error *
TRITONBACKEND_Initialize(TRITONBACKEND_Backend *) {
  uint32_t major = 0, minor = 0;
  RETURN_IF_ERROR(TRITONBACKEND_ApiVersion(&major, &minor));
  if (major != TRITONBACKEND_API_VERSION_MAJOR || minor < TRITONBACKEND_API_VERSION_MINOR)
    return error(TRITONSERVER_ERROR_UNSUPPORTED,
                 "thunderc backend: the server's backend API is " + std::to_string(major) + "." +
                     std::to_string(minor) + ", the backend needs " +
                     std::to_string(TRITONBACKEND_API_VERSION_MAJOR) + "." +
                     std::to_string(TRITONBACKEND_API_VERSION_MINOR) + " or a later 1.x");
  return nullptr;
}

__attribute__((visibility("default"))) TRITONSERVER_Error *
TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model *model) {
  auto state = std::make_unique<ModelState>();
  RETURN_IF_ERROR(loadModel(model, *state));
  RETURN_IF_ERROR(TRITONBACKEND_ModelSetState(model, state.get()));
  state.release();
  return nullptr;
}

__attribute__((visibility("default"))) TRITONSERVER_Error *
TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model *model) {
  void *state = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelState(model, &state));
  delete static_cast<ModelState *>(state);
  return nullptr;
}

__attribute__((visibility("default"))) TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceInitialize(TRITONBACKEND_ModelInstance *instance) {
  TRITONBACKEND_Model *model = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceModel(instance, &model));
  void *modelState = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelState(model, &modelState));
  auto state = std::make_unique<InstanceState>();
  state->model = static_cast<ModelState *>(modelState);
  const thunderc_model_api &api = *state->model->api;
  TRITONSERVER_InstanceGroupKind kind;
  RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceKind(instance, &kind));
  if (kind == TRITONSERVER_INSTANCEGROUPKIND_GPU) {
    if (api.select_device == nullptr)
      return error(TRITONSERVER_ERROR_INVALID_ARG,
                   state->model->name + ": a CPU bundle cannot serve a KIND_GPU instance "
                                        "(compile with --target cuda, or use KIND_CPU)");
    int32_t device = 0;
    RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceDeviceId(instance, &device));
    state->device = device;
  }
  tc_error err{};
  if (api.select_device != nullptr && api.select_device(state->device, &err) != TC_OK)
    return error(TRITONSERVER_ERROR_INTERNAL, state->model->name + ": " + err.message);
  if (api.context_create(state->model->model, &state->context, &err) != TC_OK ||
      api.context_set_num_threads(state->context, state->model->numThreads, &err) != TC_OK)
    return error(TRITONSERVER_ERROR_INTERNAL, state->model->name + ": " + err.message);
  RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceSetState(instance, state.get()));
  state.release();
  return nullptr;
}

__attribute__((visibility("default"))) TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceFinalize(TRITONBACKEND_ModelInstance *instance) {
  void *state = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceState(instance, &state));
  delete static_cast<InstanceState *>(state);
  return nullptr;
}

__attribute__((visibility("default"))) TRITONSERVER_Error *
TRITONBACKEND_ModelInstanceExecute(TRITONBACKEND_ModelInstance *instance,
                                   TRITONBACKEND_Request **requests,
                                   const uint32_t request_count) {
  const uint64_t execStart = nowNs();
  void *raw = nullptr;
  RETURN_IF_ERROR(TRITONBACKEND_ModelInstanceState(instance, &raw));
  InstanceState &state = *static_cast<InstanceState *>(raw);
  const bool batching = state.model->maxBatch > 0;
  // Triton may call Execute on any of its threads: make the instance's GPU current.
  tc_error deviceError{};
  const thunderc_model_api &api = *state.model->api;
  if (api.select_device != nullptr && api.select_device(state.device, &deviceError) != TC_OK)
    return error(TRITONSERVER_ERROR_INTERNAL, state.model->name + ": " + deviceError.message);
  // Read every request; one whose inputs cannot be read gets its error now.
  std::vector<RequestInputs> inputs(request_count);
  std::vector<bool> valid(request_count, false);
  for (uint32_t r = 0; r < request_count; ++r) {
    if (TRITONSERVER_Error *failed = readInputs(*state.model, requests[r], inputs[r])) {
      sendError(requests[r], failed);
      ignore(TRITONBACKEND_ModelInstanceReportStatistics(instance, requests[r], false,
                                                         execStart, execStart, execStart,
                                                         nowNs()));
    } else {
      valid[r] = true;
    }
  }
  // Consecutive requests whose dims other than the batch agree run together.
  std::vector<size_t> group;
  auto flush = [&]() {
    if (!group.empty())
      runGroup(instance, state, requests, inputs, group, execStart);
    group.clear();
  };
  for (uint32_t r = 0; r < request_count; ++r) {
    if (!valid[r])
      continue;
    if (!batching || (!group.empty() && !sameExceptBatch(inputs[group[0]], inputs[r])))
      flush();
    group.push_back(r);
    if (!batching)
      flush();
  }
  flush();
  for (uint32_t r = 0; r < request_count; ++r)
    ignore(TRITONBACKEND_RequestRelease(requests[r], TRITONSERVER_REQUEST_RELEASE_ALL));
  return nullptr;
}

} // extern "C"
