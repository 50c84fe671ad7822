// Tests for the CPU model base (backend_cpu/kernels/tc_model_base.h and its target-neutral
// part, runtime/kernels/tc_model_common.h): a hand-written `Model` shaped like generated code
// (tables, bind_inputs, fill_output_shapes, run_impl) exercises every entry point the C ABI
// forwards to -- load and its refusals, contexts, state reset, threads, seed, observer,
// --debug-perturb, output_shapes and every check of the caller's tensors.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "codegen/weights_writer.h"
#include "tc_model_base.h"

namespace {

struct toy_model : tc::model_data<2> {};
struct toy_context : tc::context_data<toy_model> {};

struct Symbols {
  int64_t s0 = 0;
  int64_t u0 = 0; // data-dependent: the count of positive elements
};

/// y = x + w (f32[s0,2]), z = the positive elements of y (f32[u0], u0 <= 8), and a state
/// `total` (f32[2], initial value: the weight "total") that accumulates the column sums of y.
struct Model : tc::ModelBase<Model, toy_model, toy_context, Symbols> {
  static constexpr const char *kName = "toy";
  static constexpr int kNumInputs = 1;
  static constexpr int kNumOutputs = 2;
  static constexpr tc::WeightSpec kWeights[] = {
      {"w", TC_DTYPE_F32, 1, {2}},
      {"total", TC_DTYPE_F32, 1, {2}},
  };
  static constexpr size_t kNumWeights = 2;
  static constexpr bool kCheckCompileId = true;
  static constexpr const char *kCompileId = "0123456789abcdef";
  static constexpr tc::StateSpec kStates[] = {{1, 0, 8}};
  static constexpr int kNumStates = 1;
  static constexpr size_t kStateBytes = 64;
  static constexpr tc::InputSpec kInputs[] = {{"x", TC_DTYPE_F32, "f32", 2, "f32[s0,2]"}};
  static constexpr tc::ObservedSpec kObserved[] = {{"y", "aten.add.Tensor", "toy.py:1", 0,
                                                    TC_DTYPE_F32}};
  static constexpr tc::OutputDim kDataDependent[] = {{1, 0}};
  static constexpr int kNumDataDependent = 1;

  static tc_status bind_inputs(const tc_tensor *inputs, int num_inputs, Symbols &sym,
                               tc_error *err) {
    tc_status status = check_inputs(inputs, num_inputs, err);
    if (status != TC_OK)
      return status;
    sym.s0 = inputs[0].shape[0];
    if (sym.s0 < 1 || sym.s0 > 4)
      return tc_error_setf(err, TC_ERROR_OUT_OF_RANGE,
                           "input 0 'x' dim 0: s0 = %lld is outside its range [1, 4]",
                           (long long)sym.s0);
    sym.u0 = 8;
    const int64_t dims[] = {sym.s0, 2};
    return check_input_dims(inputs, dims, err);
  }

  static void fill_output_shapes(const Symbols &sym, tc_tensor *outputs) {
    outputs[0].dtype = TC_DTYPE_F32;
    outputs[0].rank = 2;
    outputs[0].shape[0] = sym.s0;
    outputs[0].shape[1] = 2;
    outputs[1].dtype = TC_DTYPE_F32;
    outputs[1].rank = 1;
    outputs[1].shape[0] = sym.u0;
  }

  static tc_status run_impl(toy_context *context, const tc_tensor *inputs, tc_tensor *outputs,
                            Symbols &sym, tc_error *err) {
    unsigned char *base = nullptr;
    tc_status status = begin_run(context, 64, &base, err);
    if (status != TC_OK)
      return status;
    tc::PoolScope pool_scope(context->pool);
    const float *x = static_cast<const float *>(inputs[0].data);
    const float *w = static_cast<const float *>(context->model->params[0].data);
    float *y = static_cast<float *>(outputs[0].data);
    float *z = static_cast<float *>(outputs[1].data);
    float *total = reinterpret_cast<float *>(state_base(context) + kStates[0].offset);
    sym.u0 = 0;
    for (int64_t i = 0; i < sym.s0; ++i)
      for (int j = 0; j < 2; ++j) {
        y[i * 2 + j] = x[i * 2 + j] + w[j];
        total[j] += y[i * 2 + j];
        if (y[i * 2 + j] > 0)
          z[sym.u0++] = y[i * 2 + j];
      }
    if (context->observer != nullptr)
      observe(context, 0, y, {sym.s0, 2});
    fill_output_shapes(sym, outputs);
    return TC_OK;
  }
};

/// A weights.bin in a fresh temporary folder, removed at scope exit.
struct WeightsFile {
  std::filesystem::path folder;
  std::string path;
  explicit WeightsFile(std::vector<float> w = {1, -2}, const std::string &compileId =
                                                           "0123456789abcdef") {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tc_model_base_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    folder = pattern;
    path = (folder / "weights.bin").string();
    static const float kTotal[] = {10, 20};
    thunderc::codegen::WeightsWriter writer;
    REQUIRE(writer.add("w", TC_DTYPE_F32, {int64_t(w.size())}, w.data(), w.size() * 4));
    REQUIRE(writer.add("total", TC_DTYPE_F32, {2}, kTotal, sizeof(kTotal)));
    REQUIRE(writer.add(TC_COMPILE_ID_TENSOR, TC_DTYPE_U8, {16}, compileId.data(), 16));
    REQUIRE(writer.write(path));
  }
  ~WeightsFile() { std::filesystem::remove_all(folder); }
};

tc_tensor tensor(tc_dtype dtype, std::vector<int64_t> shape, void *data) {
  tc_tensor t = {};
  t.dtype = dtype;
  t.rank = int32_t(shape.size());
  for (size_t d = 0; d < shape.size(); ++d)
    t.shape[d] = shape[d];
  t.data = data;
  return t;
}

/// A loaded model and a context over it.
struct Loaded {
  WeightsFile file;
  toy_model *model = nullptr;
  toy_context *context = nullptr;
  Loaded() {
    tc_error err;
    REQUIRE(Model::load(file.path.c_str(), &model, &err) == TC_OK);
    REQUIRE(Model::context_create(model, &context, &err) == TC_OK);
  }
  ~Loaded() {
    Model::context_destroy(context);
    Model::free(model);
  }
};

struct Observed {
  std::vector<std::string> names;
  std::vector<float> values;
};

void record(void *user, const tc_observed_value *value) {
  auto *observed = static_cast<Observed *>(user);
  observed->names.push_back(value->name);
  const float *data = static_cast<const float *>(value->tensor.data);
  observed->values.assign(data, data + tc_tensor_numel(&value->tensor));
}

} // namespace

TEST_CASE("model base: the tables' entry points") {
  CHECK(Model::num_inputs() == 1);
  CHECK(Model::num_outputs() == 2);
  CHECK(Model::num_states() == 1);
  CHECK(std::string(Model::input_name(0)) == "x");
  CHECK(Model::input_name(1) == nullptr);
  CHECK(Model::input_name(-1) == nullptr);
}

TEST_CASE("model base: load and its refusals") {
  tc_error err;
  toy_model *model = nullptr;
  CHECK(Model::load(nullptr, &model, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "toy_load: null argument");
  CHECK(Model::load("/nonexistent/weights.bin", &model, &err) == TC_ERROR_IO);
  CHECK(model == nullptr);
  {
    WeightsFile wrongShape({1, 2, 3});
    CHECK(Model::load(wrongShape.path.c_str(), &model, &err) != TC_OK);
    CHECK(std::string(err.message).find("'w'") != std::string::npos);
    CHECK(model == nullptr);
  }
  {
    WeightsFile otherCompile({1, -2}, "fedcba9876543210");
    CHECK(Model::load(otherCompile.path.c_str(), &model, &err) == TC_ERROR_CORRUPT_WEIGHTS);
    CHECK(std::string(err.message).find("another compile") != std::string::npos);
  }
  toy_context *context = nullptr;
  CHECK(Model::context_create(nullptr, &context, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "toy_context_create: null argument");
  Model::free(nullptr);
  Model::context_destroy(nullptr);
}

TEST_CASE("model base: runs, state, reset") {
  Loaded loaded;
  tc_error err;
  float x[4] = {1, 1, -3, 5};
  float y[4] = {};
  float z[8] = {};
  tc_tensor in = tensor(TC_DTYPE_F32, {2, 2}, x);
  tc_tensor out[2] = {tensor(TC_DTYPE_F32, {2, 2}, y), tensor(TC_DTYPE_F32, {8}, z)};
  REQUIRE(Model::run(loaded.context, &in, 1, out, 2, &err) == TC_OK);
  CHECK(y[0] == 2);
  CHECK(y[1] == -1);
  CHECK(y[2] == -2);
  CHECK(y[3] == 3);
  // The data-dependent dim is the run's: two positive elements.
  CHECK(out[1].shape[0] == 2);
  CHECK(z[0] == 2);
  CHECK(z[1] == 3);
  // The state accumulated from its initial value, and a reset restores that.
  const float *total =
      reinterpret_cast<const float *>(Model::state_base(loaded.context) + Model::kStates[0].offset);
  CHECK(total[0] == 10);
  CHECK(total[1] == 22);
  // The caller's data-dependent dim may be anything on the next run (output_shapes' bound is
  // what the buffer must hold).
  REQUIRE(Model::run(loaded.context, &in, 1, out, 2, &err) == TC_OK);
  CHECK(total[1] == 24);
  REQUIRE(Model::context_reset(loaded.context, &err) == TC_OK);
  CHECK(total[0] == 10);
  CHECK(total[1] == 20);
}

TEST_CASE("model base: every check of the caller's tensors") {
  Loaded loaded;
  tc_error err;
  float x[8] = {};
  float y[8] = {};
  float z[8] = {};
  tc_tensor out[2] = {tensor(TC_DTYPE_F32, {2, 2}, y), tensor(TC_DTYPE_F32, {8}, z)};
  auto run = [&](tc_tensor in, int numInputs = 1, tc_tensor *outputs = nullptr,
                 int numOutputs = 2) {
    return Model::run(loaded.context, &in, numInputs, outputs ? outputs : out, numOutputs, &err);
  };
  auto message = [&] { return std::string(err.message); };
  CHECK(run(tensor(TC_DTYPE_F32, {2, 2}, x), 2) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_run: expected 1 input(s), got 2");
  CHECK(Model::run(loaded.context, nullptr, 1, out, 2, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_run: inputs is null");
  CHECK(run(tensor(TC_DTYPE_F32, {2, -1}, x)) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message().find("toy_run: input 0 'x': not a valid tensor") == 0);
  CHECK(run(tensor(TC_DTYPE_I32, {2, 2}, x)) == TC_ERROR_DTYPE_MISMATCH);
  CHECK(message() == "toy_run: input 0 'x': dtype i32, expected f32");
  CHECK(run(tensor(TC_DTYPE_F32, {4}, x)) == TC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "toy_run: input 0 'x': rank 1, expected 2 (f32[s0,2])");
  CHECK(run(tensor(TC_DTYPE_F32, {5, 2}, x)) == TC_ERROR_OUT_OF_RANGE);
  CHECK(message() == "toy_run: input 0 'x' dim 0: s0 = 5 is outside its range [1, 4]");
  CHECK(run(tensor(TC_DTYPE_F32, {2, 3}, x)) == TC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "toy_run: input 0 'x': dim 1 is 3, expected 2 (f32[s0,2])");
  CHECK(run(tensor(TC_DTYPE_F32, {2, 2}, nullptr)) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_run: input 0 'x': data is null");
  // Outputs.
  tc_tensor good = tensor(TC_DTYPE_F32, {2, 2}, x);
  CHECK(run(good, 1, out, 1) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_run: expected 2 output(s), got 1");
  CHECK(Model::run(loaded.context, &good, 1, nullptr, 2, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_run: outputs is null");
  tc_tensor wrong[2] = {tensor(TC_DTYPE_F32, {3, 2}, y), out[1]};
  CHECK(run(good, 1, wrong) == TC_ERROR_SHAPE_MISMATCH);
  CHECK(message() == "toy_run: output 0 has the wrong shape (see toy_output_shapes)");
  wrong[0] = tensor(TC_DTYPE_F64, {2, 2}, y);
  CHECK(run(good, 1, wrong) == TC_ERROR_DTYPE_MISMATCH);
  CHECK(message() == "toy_run: output 0: dtype f64, expected f32");
  wrong[0] = tensor(TC_DTYPE_F32, {2, 2}, nullptr);
  CHECK(run(good, 1, wrong) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_run: output 0: data is null");
  // A data-dependent dim is not checked: whatever the caller left there.
  tc_tensor anyCount[2] = {out[0], tensor(TC_DTYPE_F32, {3}, z)};
  CHECK(run(good, 1, anyCount) == TC_OK);
  CHECK(Model::run(nullptr, &good, 1, out, 2, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_run: null context");

  tc_tensor shapes[2] = {};
  CHECK(Model::output_shapes(&good, 1, shapes, 2, &err) == TC_OK);
  CHECK(shapes[0].rank == 2);
  CHECK(shapes[0].shape[0] == 2);
  CHECK(shapes[1].shape[0] == 8); // the bound
  CHECK(Model::output_shapes(&good, 1, shapes, 3, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(message() == "toy_output_shapes: expected 2 output(s), got 3");
  tc_tensor bad = tensor(TC_DTYPE_F32, {9, 2}, x);
  CHECK(Model::output_shapes(&bad, 1, shapes, 2, &err) == TC_ERROR_OUT_OF_RANGE);
  CHECK(message().find("toy_output_shapes: input 0 'x' dim 0") == 0);
}

TEST_CASE("model base: threads, seed, observer, debug perturb") {
  Loaded loaded;
  tc_error err;
  CHECK(loaded.context->num_threads == tc_available_cpus());
  CHECK(Model::set_num_threads(loaded.context, 1025, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) ==
        "toy_context_set_num_threads: num_threads 1025 is outside [0, 1024] (0: the default)");
  CHECK(Model::set_num_threads(nullptr, 1, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == "toy_context_set_num_threads: null context");
  CHECK(Model::set_num_threads(loaded.context, 3, &err) == TC_OK);
  CHECK(loaded.context->num_threads == 3);

  loaded.context->runs = 5;
  CHECK(Model::set_seed(loaded.context, 42, &err) == TC_OK);
  CHECK(loaded.context->seed == 42);
  CHECK(loaded.context->runs == 0);
  CHECK(Model::set_seed(nullptr, 1, &err) == TC_ERROR_INVALID_ARGUMENT);

  Observed observed;
  CHECK(Model::set_observer(loaded.context, record, &observed, &err) == TC_OK);
  float x[2] = {1, 1};
  float y[2] = {};
  float z[8] = {};
  tc_tensor in = tensor(TC_DTYPE_F32, {1, 2}, x);
  tc_tensor out[2] = {tensor(TC_DTYPE_F32, {1, 2}, y), tensor(TC_DTYPE_F32, {8}, z)};
  REQUIRE(Model::run(loaded.context, &in, 1, out, 2, &err) == TC_OK); // three threads
  REQUIRE(observed.names == std::vector<std::string>{"y"});
  CHECK(observed.values == std::vector<float>{2, -1});

  float f32 = 1.5f;
  Model::debug_perturb(loaded.context, &f32, TC_DTYPE_F32, 1);
  CHECK(f32 == 2.5f);
  uint16_t half = 0x3c00; // 1.0: its sign flips
  Model::debug_perturb(loaded.context, &half, TC_DTYPE_F16, 1);
  CHECK(half == 0xbc00);
  uint16_t zero = 0;
  Model::debug_perturb(loaded.context, &zero, TC_DTYPE_BF16, 1);
  CHECK(zero == 0x3f80);
  int64_t i = 7;
  Model::debug_perturb(loaded.context, &i, TC_DTYPE_I64, 0); // no elements: unchanged
  CHECK(i == 7);
}
