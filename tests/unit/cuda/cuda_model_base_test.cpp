// Tests for the CUDA model base (backend_cuda/kernels/tc_cuda_model.h) on the CPU emulation of
// CUDA: a hand-written `Model` shaped like generated code (y = x + w, one launch) exercises
// load's upload, contexts and streams, run_host's staging, synchronize's report of an
// out-of-range gather, time_runs, CUDA graphs (captured and replayed, or refused) and a
// failing device allocation.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "codegen/weights_writer.h"
#include "tc_cuda_model.h"

namespace {

struct toy_model : tcg::model_data<1> {};
struct toy_context : tcg::context_data<toy_model> {};
struct Symbols {};

__global__ void add_kernel(const float *x, const float *w, float *y) {
  const int i = int(threadIdx.x);
  if (i < 4)
    y[i] = x[i] + w[i];
}

template <bool Refuse> struct ToyModel
    : tcg::ModelBase<ToyModel<Refuse>, toy_model, toy_context, Symbols> {
  using Base = tcg::ModelBase<ToyModel<Refuse>, toy_model, toy_context, Symbols>;
  static constexpr const char *kName = "toy";
  static constexpr int kNumInputs = 1;
  static constexpr int kNumOutputs = 1;
  static constexpr tc::WeightSpec kWeights[] = {{"w", TC_DTYPE_F32, 1, {4}}};
  static constexpr size_t kNumWeights = 1;
  static constexpr bool kCheckCompileId = false;
  static constexpr const char *kCompileId = "";
  static constexpr tc::StateSpec kStates[] = {{0, 0, 0}};
  static constexpr int kNumStates = 0;
  static constexpr size_t kStateBytes = 0;
  static constexpr tc::InputSpec kInputs[] = {{"x", TC_DTYPE_F32, "f32", 1, "f32[4]"}};
  static constexpr tc::ObservedSpec kObserved[] = {{"", "", "", 0, TC_DTYPE_F32}};
  static constexpr tc::OutputDim kDataDependent[] = {{0, 0}};
  static constexpr int kNumDataDependent = 0;
  static constexpr bool kAllowTf32 = true;
  static constexpr const char *kGatherSites[] = {"node 'emb' (embedding)", "a gather"};
  static constexpr int kNumGatherSites = 1;
  static constexpr const char *kCudaGraphRefusal =
      Refuse ? "node 'n' (nonzero) reads a size back to the host during the run" : "";

  static tc_status bind_inputs(const tc_tensor *inputs, int num_inputs, Symbols &,
                               tc_error *err) {
    tc_status status = Base::check_inputs(inputs, num_inputs, err);
    if (status != TC_OK)
      return status;
    const int64_t dims[] = {4};
    return Base::check_input_dims(inputs, dims, err);
  }
  static void fill_output_shapes(const Symbols &, tc_tensor *outputs) {
    outputs[0].dtype = TC_DTYPE_F32;
    outputs[0].rank = 1;
    outputs[0].shape[0] = 4;
  }
  static tc_status run_impl(toy_context *context, const tc_tensor *inputs, tc_tensor *outputs,
                            Symbols &, tc_error *err) {
    unsigned char *base = nullptr;
    tc_status status = Base::begin_run(context, 64, &base, err);
    if (status != TC_OK)
      return status;
    const tcg::exec &ex = context->ex;
    auto work = [&]() -> tc_status {
      TC_LAUNCH(1, 4, 0, ex.stream, add_kernel)(
          static_cast<const float *>(inputs[0].data),
          static_cast<const float *>(context->model->params[0].data),
          static_cast<float *>(outputs[0].data));
      TC_CUDA_TRY(tcg::check(cudaGetLastError(), "kernel launch"), "node 'y' (add)");
      return TC_OK;
    };
    const uint64_t key[] = {uint64_t(reinterpret_cast<uintptr_t>(base)),
                            uint64_t(reinterpret_cast<uintptr_t>(inputs[0].data)),
                            uint64_t(reinterpret_cast<uintptr_t>(outputs[0].data))};
    return Base::run_work(context, key, 3, work, err);
  }
};
using Model = ToyModel<false>;
using RefusingModel = ToyModel<true>;

struct WeightsFile {
  std::filesystem::path folder;
  std::string path;
  WeightsFile() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tc_cuda_model_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    folder = pattern;
    path = (folder / "weights.bin").string();
    static const float kW[] = {10, 20, 30, 40};
    thunderc::codegen::WeightsWriter writer;
    REQUIRE(writer.add("w", TC_DTYPE_F32, {4}, kW, sizeof(kW)));
    REQUIRE(writer.write(path));
  }
  ~WeightsFile() { std::filesystem::remove_all(folder); }
};

tc_tensor vector4(float *data) {
  tc_tensor t = {};
  t.dtype = TC_DTYPE_F32;
  t.rank = 1;
  t.shape[0] = 4;
  t.data = data;
  return t;
}

template <typename M> struct Loaded {
  WeightsFile file;
  toy_model *model = nullptr;
  toy_context *context = nullptr;
  Loaded() {
    tc_error err;
    REQUIRE(M::load(file.path.c_str(), &model, &err) == TC_OK);
    REQUIRE(M::context_create(model, &context, &err) == TC_OK);
  }
  ~Loaded() {
    M::context_destroy(context);
    M::free(model);
  }
};

} // namespace

TEST_CASE("cuda model base: load uploads, run_host stages, time_runs times") {
  Loaded<Model> loaded;
  tc_error err;
  CHECK(loaded.context->ex.allow_tf32);
  float x[4] = {1, 2, 3, 4};
  float y[4] = {};
  tc_tensor in = vector4(x), out = vector4(y);
  REQUIRE(Model::run_host(loaded.context, &in, 1, &out, 1, &err) == TC_OK);
  CHECK(y[0] == 11);
  CHECK(y[3] == 44);
  double median = -1;
  REQUIRE(Model::time_runs(loaded.context, &in, 1, &out, 1, 1, 3, &median, &err) == TC_OK);
  CHECK(median >= 0);
  CHECK(Model::time_runs(loaded.context, &in, 1, &out, 1, 0, 0, &median, &err) ==
        TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) ==
        "toy_time_runs: need median_us, warmup >= 0 and iters >= 1");
  // A bad host tensor is refused before anything is staged, named as run_host's.
  float *none = nullptr;
  tc_tensor bad = vector4(none);
  CHECK(Model::run_host(loaded.context, &bad, 1, &out, 1, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "toy_run_host: input 0 'x': data is null");
  CHECK(Model::set_num_threads(loaded.context, 2, &err) == TC_OK);
  CHECK(Model::set_num_threads(loaded.context, -1, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(Model::set_stream(loaded.context, nullptr, &err) == TC_OK);
  CHECK(Model::set_stream(nullptr, nullptr, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "toy_context_set_stream: null context");
}

TEST_CASE("cuda model base: synchronize reports an out-of-range gather once") {
  Loaded<Model> loaded;
  tc_error err;
  tcg::gather_error record;
  record.flag = 1;
  record.site = 0;
  record.position = 3;
  record.value = 99;
  record.extent = 8;
  REQUIRE(cudaMemcpy(loaded.context->ex.error, &record, sizeof(record), cudaMemcpyHostToDevice) ==
          cudaSuccess);
  CHECK(Model::synchronize(loaded.context, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message).find("toy_synchronize: node 'emb' (embedding): index 99 at "
                                      "position 3 of the indices is out of range: valid indices "
                                      "are 0 to 7") == 0);
  CHECK(Model::synchronize(loaded.context, &err) == TC_OK); // the flag was reset
  record.site = 5; // not a known site
  REQUIRE(cudaMemcpy(loaded.context->ex.error, &record, sizeof(record), cudaMemcpyHostToDevice) ==
          cudaSuccess);
  CHECK(Model::synchronize(loaded.context, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message).find("toy_synchronize: a gather: index 99") == 0);
}

TEST_CASE("cuda model base: graphs are captured once per key, or refused") {
  Loaded<Model> loaded;
  tc_error err;
  CHECK(Model::set_cuda_graphs(loaded.context, 2000, &err) == TC_ERROR_INVALID_ARGUMENT);
  REQUIRE(Model::set_cuda_graphs(loaded.context, 4, &err) == TC_OK);
  CHECK(loaded.context->ex.stream != nullptr); // off the legacy default stream
  float x[4] = {1, 2, 3, 4};
  float y[4] = {};
  tc_tensor in = vector4(x), out = vector4(y);
  for (int i = 0; i < 3; ++i)
    REQUIRE(Model::run_host(loaded.context, &in, 1, &out, 1, &err) == TC_OK);
  CHECK(y[1] == 22);
  tc_cuda_graph_stats stats = {};
  REQUIRE(Model::cuda_graph_stats(loaded.context, &stats, &err) == TC_OK);
  CHECK(stats.captures == 1);
  CHECK(stats.replays == 2);
  REQUIRE(Model::set_cuda_graphs(loaded.context, 0, &err) == TC_OK);
  CHECK(loaded.context->ex.stream == nullptr);

  Loaded<RefusingModel> refusing;
  CHECK(RefusingModel::set_cuda_graphs(refusing.context, 1, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) ==
        "toy_context_set_cuda_graphs: this model's runs cannot be captured in a CUDA graph: "
        "node 'n' (nonzero) reads a size back to the host during the run");
}

TEST_CASE("cuda model base: a failing device allocation is a device status naming the call") {
  WeightsFile file;
  tc_error err;
  toy_model *model = nullptr;
  setenv("TC_EMU_FAIL_MALLOC", "1", 1);
  const tc_status status = Model::load(file.path.c_str(), &model, &err);
  unsetenv("TC_EMU_FAIL_MALLOC");
  CHECK(status == TC_ERROR_DEVICE);
  CHECK(model == nullptr);
  const std::string message = err.message;
  CHECK(message.find("toy_load: weights: cudaMalloc failed") != std::string::npos);
  CHECK(message.find("tc_cuda_model.h:") == 0);
}
