// Tests for runtime/runner: the <name>_run command line driven through fake models (one that adds
// a bias from its weights file to a dynamic-batch f32 input, one that copies any tensor), with
// .npy files in a temp dir. Covers the files, --iters and --golden modes, the comparison policy
// of tests/golden/tolerances.py, usage and runtime errors, and that every path frees the model.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

#include "runtime/npy.h"
#include "runtime/runner.h"

namespace {

// ---------------------------------------------------------------------------------------------
// Fake models

/// What the fake models did; each test case starts from zero.
struct FakeStats {
  int loads = 0;
  int liveModels = 0;
  int liveContexts = 0;
  int runs = 0;
  int failRunAt = 0; ///< the run (1-based) that fails, with an empty message; 0: none
};
FakeStats stats;

struct FakeModel {
  float bias;
};

struct FakeContext {
  const FakeModel *model;
};

const char *inputName(int index) { return index == 0 ? "x" : nullptr; }

void freeModel(void *model) {
  --stats.liveModels;
  delete static_cast<FakeModel *>(model);
}

tc_status createContext(const void *model, void **context, tc_error *err) {
  ++stats.liveContexts;
  *context = new FakeContext{static_cast<const FakeModel *>(model)};
  tc_error_clear(err);
  return TC_OK;
}

void destroyContext(void *context) {
  --stats.liveContexts;
  delete static_cast<FakeContext *>(context);
}

/// Counts a run; fails the one stats.failRunAt names, leaving the message for the runner.
tc_status countRun(tc_error *err) {
  tc_error_clear(err);
  return ++stats.runs == stats.failRunAt ? TC_ERROR_INTERNAL : TC_OK;
}

/// addbias: weights = an f32 .npy scalar b; input x: f32 [B, 3] with 1 <= B <= 8; outputs
/// y = x + b (f32 [B, 3]) and positives = the count of x > 0 per row (i64 [B]).
tc_status addBiasLoad(const char *path, void **model, tc_error *err) {
  ++stats.loads;
  tc_tensor weights;
  if (tc_npy_read(path, &weights, err) != TC_OK)
    return err->status;
  bool isScalar = weights.dtype == TC_DTYPE_F32 && weights.rank == 0;
  float bias = 0;
  if (isScalar)
    std::memcpy(&bias, weights.data, sizeof(bias));
  tc_npy_free(&weights);
  if (!isScalar)
    return tc_error_setf(err, TC_ERROR_CORRUPT_WEIGHTS, "%s: expected an f32 scalar", path);
  ++stats.liveModels;
  *model = new FakeModel{bias};
  tc_error_clear(err);
  return TC_OK;
}

tc_status addBiasShapes(const tc_tensor *inputs, int numInputs, tc_tensor *outputs, int numOutputs,
                        tc_error *err) {
  if (numInputs != 1 || numOutputs != 2)
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "addbias: wrong tensor count");
  const tc_tensor &x = inputs[0];
  if (x.dtype != TC_DTYPE_F32)
    return tc_error_setf(err, TC_ERROR_DTYPE_MISMATCH, "input 0 'x': dtype %s, expected f32",
                         tc_dtype_name(x.dtype));
  if (x.rank != 2 || x.shape[1] != 3)
    return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH, "input 0 'x': expected shape [B, 3]");
  if (x.shape[0] < 1 || x.shape[0] > 8)
    return tc_error_setf(err, TC_ERROR_OUT_OF_RANGE, "input 0 'x': B = %lld outside [1, 8]",
                         static_cast<long long>(x.shape[0]));
  outputs[0] = tc_tensor{nullptr, TC_DTYPE_F32, 2, {x.shape[0], 3}};
  outputs[1] = tc_tensor{nullptr, TC_DTYPE_I64, 1, {x.shape[0]}};
  tc_error_clear(err);
  return TC_OK;
}

tc_status addBiasRun(void *context, const tc_tensor *inputs, int numInputs, tc_tensor *outputs,
                     int numOutputs, tc_error *err) {
  tc_tensor shapes[2];
  if (addBiasShapes(inputs, numInputs, shapes, numOutputs, err) != TC_OK)
    return err->status;
  float bias = static_cast<FakeContext *>(context)->model->bias;
  const float *x = static_cast<const float *>(inputs[0].data);
  float *y = static_cast<float *>(outputs[0].data);
  int64_t *positives = static_cast<int64_t *>(outputs[1].data);
  for (int64_t row = 0; row < inputs[0].shape[0]; ++row) {
    positives[row] = 0;
    for (int64_t col = 0; col < 3; ++col) {
      y[row * 3 + col] = x[row * 3 + col] + bias;
      positives[row] += x[row * 3 + col] > 0;
    }
  }
  return countRun(err);
}

const tc_model_api kAddBias = {.name = "addbias",
                               .num_inputs = 1,
                               .num_outputs = 2,
                               .input_name = inputName,
                               .load = addBiasLoad,
                               .free_model = freeModel,
                               .context_create = createContext,
                               .context_destroy = destroyContext,
                               .output_shapes = addBiasShapes,
                               .run = addBiasRun,
                               .time_runs = nullptr};

/// identity: copies its one input of any dtype and shape; the weights path is not opened.
tc_status identityLoad(const char *, void **model, tc_error *err) {
  ++stats.loads;
  ++stats.liveModels;
  *model = new FakeModel{0};
  tc_error_clear(err);
  return TC_OK;
}

tc_status identityShapes(const tc_tensor *inputs, int, tc_tensor *outputs, int, tc_error *err) {
  outputs[0] = inputs[0];
  outputs[0].data = nullptr;
  tc_error_clear(err);
  return TC_OK;
}

tc_status identityRun(void *, const tc_tensor *inputs, int, tc_tensor *outputs, int,
                      tc_error *err) {
  std::memcpy(outputs[0].data, inputs[0].data, size_t(tc_tensor_byte_size(&inputs[0])));
  return countRun(err);
}

const tc_model_api kIdentity = {.name = "identity",
                                .num_inputs = 1,
                                .num_outputs = 1,
                                .input_name = inputName,
                                .load = identityLoad,
                                .free_model = freeModel,
                                .context_create = createContext,
                                .context_destroy = destroyContext,
                                .output_shapes = identityShapes,
                                .run = identityRun,
                                .time_runs = nullptr};

/// addbias with an observer and CUDA-graph settings: after each run it shows the observer
/// 'add' (y), 'gt' (positives) and an unnamed value; set_cuda_graphs records its argument.
tc_observer gObserver = nullptr;
void *gObserverUser = nullptr;
int gCudaGraphs = 0;

tc_status setObserver(void *, tc_observer observer, void *user, tc_error *err) {
  gObserver = observer;
  gObserverUser = user;
  tc_error_clear(err);
  return TC_OK;
}

tc_status observedRun(void *context, const tc_tensor *inputs, int numInputs, tc_tensor *outputs,
                      int numOutputs, tc_error *err) {
  tc_status status = addBiasRun(context, inputs, numInputs, outputs, numOutputs, err);
  if (status != TC_OK || gObserver == nullptr)
    return status;
  const char *names[] = {"add", "gt", ""};
  const char *ops[] = {"aten.add.Tensor", "aten.gt.Scalar", "copy"};
  for (int i = 0; i < 3; ++i) {
    tc_observed_value value = {};
    value.index = i;
    value.name = names[i];
    value.op = ops[i];
    value.source = i == 0 ? "model.py:3: y = x + b" : "";
    value.tensor = outputs[i == 2 ? 0 : i];
    gObserver(gObserverUser, &value);
  }
  return TC_OK;
}

tc_status setCudaGraphs(void *, int maxGraphs, tc_error *err) {
  gCudaGraphs = maxGraphs;
  tc_error_clear(err);
  return TC_OK;
}

tc_status cudaGraphStats(void *, tc_cuda_graph_stats *stats, tc_error *err) {
  *stats = tc_cuda_graph_stats{1, 2, 0, 1, gCudaGraphs};
  tc_error_clear(err);
  return TC_OK;
}

tc_model_api observedAddBias() {
  tc_model_api api = kAddBias;
  api.run = observedRun;
  api.set_observer = setObserver;
  api.set_cuda_graphs = setCudaGraphs;
  api.cuda_graph_stats = cudaGraphStats;
  return api;
}

// ---------------------------------------------------------------------------------------------
// Files and running

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tc_runner_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string &name) const {
    std::filesystem::path full = path / name;
    std::filesystem::create_directories(full.parent_path());
    return full.string();
  }
};

template <typename T>
void writeNpy(const std::string &path, tc_dtype dtype, std::vector<int64_t> shape,
              std::vector<T> values) {
  tc_tensor tensor{values.data(), dtype, int32_t(shape.size()), {}};
  std::copy(shape.begin(), shape.end(), tensor.shape);
  tc_error err;
  REQUIRE_MESSAGE(tc_npy_write(path.c_str(), &tensor, &err) == TC_OK, err.message);
}

void writeF32(const std::string &path, std::vector<int64_t> shape, std::vector<float> values) {
  writeNpy(path, TC_DTYPE_F32, std::move(shape), std::move(values));
}

/// The contents of an .npy file as T, and its shape.
template <typename T>
std::vector<T> readNpy(const std::string &path, std::vector<int64_t> *shape = nullptr) {
  tc_tensor tensor;
  tc_error err;
  REQUIRE_MESSAGE(tc_npy_read(path.c_str(), &tensor, &err) == TC_OK, err.message);
  REQUIRE(tc_dtype_size(tensor.dtype) == sizeof(T));
  const T *data = static_cast<const T *>(tensor.data);
  std::vector<T> values(data, data + tc_tensor_numel(&tensor));
  if (shape)
    shape->assign(tensor.shape, tensor.shape + tensor.rank);
  tc_npy_free(&tensor);
  return values;
}

struct RunResult {
  int code;
  std::string out;
  std::string err;
};

/// Runs `<name>_run args...` with stdout and stderr captured, then checks that the runner
/// released every model and context it obtained.
RunResult runRunner(const tc_model_api &api, std::vector<std::string> args,
                    const std::string &defaultWeights) {
  args.insert(args.begin(), std::string(api.name) + "_run");
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  char *outText = nullptr, *errText = nullptr;
  size_t outSize = 0, errSize = 0;
  FILE *out = open_memstream(&outText, &outSize);
  FILE *err = open_memstream(&errText, &errSize);
  REQUIRE((out && err));
  int code =
      tc_runner_main_streams(int(args.size()), argv.data(), &api, defaultWeights.c_str(), out, err);
  std::fclose(out);
  std::fclose(err);
  RunResult result{code, std::string(outText, outSize), std::string(errText, errSize)};
  std::free(outText);
  std::free(errText);
  CHECK(stats.liveModels == 0);
  CHECK(stats.liveContexts == 0);
  return result;
}

/// True for exactly "median_us=<digits>.<3 digits>\n".
bool isOneMedianLine(const std::string &text) {
  const std::string prefix = "median_us=";
  size_t dot = text.find('.');
  auto allDigits = [&](size_t begin, size_t end) {
    return begin < end && text.find_first_not_of("0123456789", begin) >= end;
  };
  return text.compare(0, prefix.size(), prefix) == 0 && dot != std::string::npos &&
         allDigits(prefix.size(), dot) && text.size() == dot + 5 && allDigits(dot + 1, dot + 4) &&
         text.back() == '\n';
}

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

/// A temp dir holding addbias's weights (bias 1.5) and a batch-2 input.
struct AddBiasFiles : TempDir {
  std::string weights = file("weights.npy");
  std::string x = file("x.npy");
  std::string y = file("y.npy");
  std::string positives = file("positives.npy");
  AddBiasFiles() {
    stats = FakeStats{};
    writeNpy(weights, TC_DTYPE_F32, {}, std::vector<float>{1.5f});
    writeF32(x, {2, 3}, {-1, 0, 1, 2, 3, 4});
  }
  RunResult run(std::vector<std::string> args) {
    return runRunner(kAddBias, std::move(args), weights);
  }
};

} // namespace

TEST_CASE("runtime runner: runs once and writes the outputs") {
  AddBiasFiles files;
  RunResult result = files.run({"--inputs", files.x, "--outputs", files.y, files.positives});
  CHECK(result.code == 0);
  CHECK(result.out.empty());
  CHECK(result.err.empty());
  CHECK(stats.loads == 1);
  CHECK(stats.runs == 1);
  std::vector<int64_t> shape;
  CHECK(readNpy<float>(files.y, &shape) == std::vector<float>{0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f});
  CHECK(shape == std::vector<int64_t>{2, 3});
  CHECK(readNpy<int64_t>(files.positives) == std::vector<int64_t>{1, 3});
}

TEST_CASE("runtime runner: dynamic batch from the file, comma lists, --weights") {
  // A batch of 5 rather than 2, lists given comma-separated, a bias of -1 instead of 1.5.
  AddBiasFiles files;
  std::string otherWeights = files.file("other.npy");
  writeNpy(otherWeights, TC_DTYPE_F32, {}, std::vector<float>{-1});
  std::string x5 = files.file("x5.npy");
  writeF32(x5, {5, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  RunResult result = files.run(
      {"--weights", otherWeights, "--inputs", x5, "--outputs", files.y + "," + files.positives});
  CHECK(result.code == 0);
  std::vector<int64_t> shape;
  CHECK(readNpy<float>(files.y, &shape)[14] == 14.0f);
  CHECK(shape == std::vector<int64_t>{5, 3});
  CHECK(readNpy<int64_t>(files.positives).size() == 5);
}

TEST_CASE("runtime runner: --iters prints exactly one median_us line") {
  CHECK(isOneMedianLine("median_us=12.345\n"));
  CHECK(!isOneMedianLine("median_us=12.34\n"));
  CHECK(!isOneMedianLine("median_us=.345\n"));
  CHECK(!isOneMedianLine("median_us=1.345\nmedian_us=1.345\n"));

  AddBiasFiles files;

  SUBCASE("explicit warmup, no outputs") {
    RunResult result = files.run({"--inputs", files.x, "--warmup", "2", "--iters", "5"});
    CHECK(result.code == 0);
    CHECK(isOneMedianLine(result.out));
    CHECK(result.err.empty());
    CHECK(stats.runs == 7);
    CHECK(stats.loads == 1);
    CHECK(!std::filesystem::exists(files.y));
  }
  SUBCASE("default warmup of 1, outputs written") {
    RunResult result =
        files.run({"--iters", "4", "--inputs", files.x, "--outputs", files.y, files.positives});
    CHECK(result.code == 0);
    CHECK(isOneMedianLine(result.out));
    CHECK(stats.runs == 5);
    CHECK(readNpy<float>(files.y)[0] == 0.5f);
  }
  SUBCASE("warmup 0") {
    RunResult result = files.run({"--inputs", files.x, "--warmup", "0", "--iters", "1"});
    CHECK(result.code == 0);
    CHECK(isOneMedianLine(result.out));
    CHECK(stats.runs == 1);
  }
  SUBCASE("a failing timed run prints no median") {
    stats.failRunAt = 3;
    RunResult result = files.run({"--inputs", files.x, "--iters", "5"});
    CHECK(result.code == 3);
    CHECK(result.out.empty());
    CHECK(result.err == "error: TC_ERROR_INTERNAL: addbias.run failed\n");
    CHECK(stats.runs == 3);
  }
}

/// A model-side timing loop (as CUDA bundles have): runs warmup + iters times, reports 42 µs.
tc_status addBiasTimeRuns(void *context, const tc_tensor *inputs, int num_inputs,
                          tc_tensor *outputs, int num_outputs, int warmup, int iters,
                          double *median_us, tc_error *err) {
  for (int i = 0; i < warmup + iters; ++i) {
    tc_status status = addBiasRun(context, inputs, num_inputs, outputs, num_outputs, err);
    if (status != TC_OK)
      return status;
  }
  *median_us = 42.0;
  return TC_OK;
}

TEST_CASE("runtime runner: --iters uses the model's own timing loop when it has one") {
  AddBiasFiles files;
  tc_model_api api = kAddBias;
  api.time_runs = addBiasTimeRuns;
  RunResult result =
      runRunner(api, {"--inputs", files.x, "--outputs", files.y, files.positives, "--warmup", "2",
                      "--iters", "3"},
                files.weights);
  CHECK(result.code == 0);
  CHECK(result.out == "median_us=42.000\n");
  CHECK(stats.runs == 5);
  CHECK(readNpy<float>(files.y)[0] == 0.5f);
  SUBCASE("a failing run inside it is reported like any run") {
    stats = FakeStats{};
    stats.failRunAt = 2;
    result = runRunner(api, {"--inputs", files.x, "--iters", "3"}, files.weights);
    CHECK(result.code == 3);
    CHECK(result.out.empty());
  }
}

TEST_CASE("runtime runner: --help documents the interface and the exit codes") {
  AddBiasFiles files;
  RunResult result = files.run({"--help"});
  CHECK(result.code == 0);
  CHECK(result.err.empty());
  CHECK(contains(result.out, "usage: addbias_run --inputs A.npy"));
  CHECK(contains(result.out, "--golden DIR"));
  CHECK(contains(result.out, "median_us=<value>"));
  CHECK(contains(result.out, "(default: " + files.weights + ")"));
  CHECK(contains(result.out, "inputs (1): 0 'x'"));
  CHECK(contains(result.out, "exit codes:"));
  CHECK(contains(result.out, "2  usage error"));
  CHECK(contains(result.out, "3  runtime or model error"));
  CHECK(stats.loads == 0);
  // --help wins over anything else on the line, even a usage error.
  CHECK(files.run({"--bogus", "--help"}).code == 0);
}

TEST_CASE("runtime runner: usage errors exit 2 before loading the model") {
  AddBiasFiles files;
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{}, "missing --inputs (or --golden)"},
      {{"--inputs", files.x}, "missing --outputs (optional only with --iters)"},
      {{"--inputs", files.x, files.x, "--outputs", files.y, files.positives},
       "--inputs: the model has 1 input, got 2 files"},
      {{"--inputs", files.x, "--outputs", files.y},
       "--outputs: the model has 2 outputs, got 1 file"},
      {{"--inputs", files.x, "--iters", "0"}, "--iters: expected a positive integer, got '0'"},
      {{"--inputs", files.x, "--iters", "3x"}, "--iters: expected a positive integer, got '3x'"},
      {{"--inputs", files.x, "--iters", "99999999999999999999"},
       "--iters: expected a positive integer"},
      {{"--inputs", files.x, "--iters", "2", "--warmup", "-1"},
       "--warmup: expected a non-negative integer, got '-1'"},
      {{"--inputs", files.x, "--iters", "2", "--warmup", "+1"},
       "--warmup: expected a non-negative integer, got '+1'"},
      {{"--inputs", files.x, "--inputs", files.x}, "--inputs is given twice"},
      {{"--inputs", files.x + ",", "--iters", "1"}, "--inputs: empty file name"},
      {{"--inputs", "--iters", "1"}, "--inputs needs a value"},
      {{"--inputs", files.x, "--iters", "1", "2"}, "unexpected argument '2' after --iters 1"},
      {{"stray.npy"}, "unexpected argument 'stray.npy'"},
      {{"--input", files.x}, "unknown option '--input'"},
      {{"--golden", files.path.string(), "--inputs", files.x}, "--golden cannot be combined"},
      {{"--golden", files.path.string(), "--iters", "3"}, "--golden cannot be combined"},
  };
  for (const Case &usage : cases) {
    CAPTURE(usage.message);
    RunResult result = files.run(usage.args);
    CHECK(result.code == 2);
    CHECK(result.out.empty());
    CHECK(contains(result.err, "error: " + usage.message));
    CHECK(contains(result.err, "run 'addbias_run --help' for usage"));
  }
  CHECK(stats.loads == 0);
}

TEST_CASE("runtime runner: runtime and model errors exit 3 with the status name") {
  AddBiasFiles files;
  std::string missing = files.file("missing.npy");
  std::vector<std::string> outputs = {"--outputs", files.y, files.positives};
  auto runWith = [&](std::vector<std::string> args) {
    args.insert(args.end(), outputs.begin(), outputs.end());
    return files.run(args);
  };

  SUBCASE("missing input file") {
    RunResult result = runWith({"--inputs", missing});
    CHECK(result.code == 3);
    CHECK(contains(result.err, "error: TC_ERROR_IO: " + missing));
    CHECK(stats.loads == 0);
  }
  SUBCASE("malformed input file") {
    std::ofstream(files.file("bad.npy")) << "not an npy file";
    RunResult result = runWith({"--inputs", files.file("bad.npy")});
    CHECK(result.code == 3);
    CHECK(contains(result.err, "error: TC_ERROR_INVALID_ARGUMENT: "));
  }
  SUBCASE("missing weights file") {
    RunResult result = runWith({"--inputs", files.x, "--weights", missing});
    CHECK(result.code == 3);
    CHECK(contains(result.err, "error: TC_ERROR_IO: " + missing));
  }
  SUBCASE("wrong weights file") {
    RunResult result = runWith({"--inputs", files.x, "--weights", files.x});
    CHECK(result.code == 3);
    CHECK(result.err ==
          "error: TC_ERROR_CORRUPT_WEIGHTS: " + files.x + ": expected an f32 scalar\n");
  }
  SUBCASE("input dtype differs from the model's") {
    std::string x64 = files.file("x64.npy");
    writeNpy(x64, TC_DTYPE_F64, {2, 3}, std::vector<double>(6, 1.0));
    RunResult result = runWith({"--inputs", x64});
    CHECK(result.code == 3);
    CHECK(result.err == "error: TC_ERROR_DTYPE_MISMATCH: input 0 'x': dtype f64, expected f32\n");
    CHECK(stats.loads == 1);
  }
  SUBCASE("batch outside the exported range") {
    std::string x9 = files.file("x9.npy");
    writeF32(x9, {9, 3}, std::vector<float>(27, 0));
    RunResult result = runWith({"--inputs", x9});
    CHECK(result.code == 3);
    CHECK(result.err == "error: TC_ERROR_OUT_OF_RANGE: input 0 'x': B = 9 outside [1, 8]\n");
  }
  SUBCASE("unwritable output") {
    outputs = {"--outputs", (files.path / "no_dir" / "y.npy").string(), files.positives};
    std::filesystem::remove(files.path / "no_dir");
    RunResult result = runWith({"--inputs", files.x});
    CHECK(result.code == 3);
    CHECK(contains(result.err, "error: TC_ERROR_IO: "));
    CHECK(stats.runs == 1);
  }
  CHECK(!std::filesystem::exists(files.y));
}

namespace {

/// A golden dir for the identity model: input_0 = actual, expected/output_0 and optionally
/// expected_fp64/output_0.
struct IdentityGolden : TempDir {
  IdentityGolden() { stats = FakeStats{}; }
  template <typename T, typename E>
  void write(tc_dtype actualDtype, std::vector<int64_t> shape, std::vector<T> actual,
             tc_dtype expectedDtype, std::vector<E> expected) {
    writeNpy(file("inputs/input_0.npy"), actualDtype, shape, std::move(actual));
    writeNpy(file("expected/output_0.npy"), expectedDtype, shape, std::move(expected));
  }
  void writeReference(std::vector<int64_t> shape, std::vector<double> reference) {
    writeNpy(file("expected_fp64/output_0.npy"), TC_DTYPE_F64, shape, std::move(reference));
  }
  RunResult run() { return runRunner(kIdentity, {"--golden", path.string()}, "unused.bin"); }
};

} // namespace

TEST_CASE("runtime runner: golden PASS and FAIL on a real model") {
  AddBiasFiles files;
  writeF32(files.file("golden/inputs/input_0.npy"), {2, 3}, {-1, 0, 1, 2, 3, 4});
  writeF32(files.file("golden/expected/output_0.npy"), {2, 3},
           {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f});
  writeNpy(files.file("golden/expected/output_1.npy"), TC_DTYPE_I64, {2},
           std::vector<int64_t>{1, 3});
  std::string golden = files.file("golden");

  SUBCASE("pass") {
    RunResult result = files.run({"--golden", golden});
    CHECK(result.code == 0);
    CHECK(result.out == "output 0: max_abs_error=0 OK (assert_close)\n"
                        "output 1: max_abs_error=0 OK (exact)\n"
                        "golden: PASS\n");
    CHECK(result.err.empty());
    CHECK(stats.runs == 1);
  }
  SUBCASE("float beyond rtol without a referee, integer off by two") {
    writeF32(files.file("golden/expected/output_0.npy"), {2, 3},
             {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.501f});
    writeNpy(files.file("golden/expected/output_1.npy"), TC_DTYPE_I64, {2},
             std::vector<int64_t>{1, 5});
    RunResult result = files.run({"--golden", golden});
    CHECK(result.code == 1);
    CHECK(result.out == "output 0: max_abs_error=0.001 MISMATCH (assert_close failed and no "
                        "fp64 referee)\n"
                        "output 1: max_abs_error=2 MISMATCH (exact)\n"
                        "golden: FAIL\n");
  }
  SUBCASE("missing golden file") {
    std::filesystem::remove(files.file("golden/expected/output_1.npy"));
    RunResult result = files.run({"--golden", golden});
    CHECK(result.code == 3);
    CHECK(result.out.empty());
    CHECK(contains(result.err, "error: TC_ERROR_IO: " + golden + "/expected/output_1.npy"));
    CHECK(stats.loads == 0);
  }
  SUBCASE("the model rejects the golden input") {
    writeF32(files.file("golden/inputs/input_0.npy"), {2, 4}, std::vector<float>(8, 0));
    RunResult result = files.run({"--golden", golden});
    CHECK(result.code == 3);
    CHECK(result.err == "error: TC_ERROR_SHAPE_MISMATCH: input 0 'x': expected shape [B, 3]\n");
  }
}

TEST_CASE("runtime runner: golden fp64 referee") {
  // Eager is 4e-4 off the float64 result, so the referee allows 2 * 4e-4 + eps(f32) * 100.
  // An actual value 5e-4 from eager fails assert_close (allowed 1e-5 + 1.3e-6 * 100) but is
  // only 1e-4 from float64: the referee accepts it. One 2e-3 from float64 it rejects.
  IdentityGolden golden;
  std::vector<double> reference = {100.0, -1.0};
  std::vector<float> expected = {float(100.0 + 4e-4), -1.0f};

  SUBCASE("within the referee, outside rtol") {
    golden.write(TC_DTYPE_F32, {2}, std::vector<float>{float(100.0 - 1e-4), -1.0f}, TC_DTYPE_F32,
                 expected);
    golden.writeReference({2}, reference);
    RunResult result = golden.run();
    CHECK(result.code == 0);
    CHECK(contains(result.out, "output 0: max_abs_error=0.000496 OK (fp64 referee: error "
                               "9.92e-05 vs allowed 0.000805)\n"));
    CHECK(contains(result.out, "golden: PASS\n"));
  }
  SUBCASE("the same result without the referee") {
    golden.write(TC_DTYPE_F32, {2}, std::vector<float>{float(100.0 - 1e-4), -1.0f}, TC_DTYPE_F32,
                 expected);
    RunResult result = golden.run();
    CHECK(result.code == 1);
    CHECK(contains(result.out, "MISMATCH (assert_close failed and no fp64 referee)"));
  }
  SUBCASE("beyond the referee") {
    golden.write(TC_DTYPE_F32, {2}, std::vector<float>{float(100.0 + 2e-3), -1.0f}, TC_DTYPE_F32,
                 expected);
    golden.writeReference({2}, reference);
    RunResult result = golden.run();
    CHECK(result.code == 1);
    CHECK(
        contains(result.out,
                 "max_abs_error=0.0016 MISMATCH (fp64 referee: error 0.002 vs allowed 0.000805)"));
    CHECK(contains(result.out, "golden: FAIL\n"));
  }
  SUBCASE("a referee whose shape differs from expected is bad golden data") {
    golden.write(TC_DTYPE_F32, {2}, expected, TC_DTYPE_F32, expected);
    golden.writeReference({1}, {100.0});
    RunResult result = golden.run();
    CHECK(result.code == 3);
    CHECK(contains(result.err, "error: TC_ERROR_SHAPE_MISMATCH: "));
    CHECK(contains(result.err, "shape [1], expected [2]"));
  }
}

TEST_CASE("runtime runner: golden tolerances per dtype, NaN, inf, shape and dtype") {
  IdentityGolden golden;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto verdict = [&] {
    RunResult result = golden.run();
    CHECK(result.code == (contains(result.out, "golden: PASS\n") ? 0 : 1));
    return result.out.substr(0, result.out.find('\n'));
  };

  SUBCASE("f32") {
    golden.write(TC_DTYPE_F32, {2}, std::vector<float>{1.0f, 1000.0f}, TC_DTYPE_F32,
                 std::vector<float>{1.0f + 1e-5f, 1000.0f + 1e-3f});
    CHECK(verdict() == "output 0: max_abs_error=0.000977 OK (assert_close)");
    golden.write(TC_DTYPE_F32, {1}, std::vector<float>{1.0f}, TC_DTYPE_F32,
                 std::vector<float>{1.0f + 2e-5f});
    CHECK(verdict() == "output 0: max_abs_error=2e-05 MISMATCH (assert_close failed and no "
                       "fp64 referee)");
  }
  SUBCASE("f16: one ulp at 1.0 is within rtol 1e-3, two are not") {
    golden.write(TC_DTYPE_F16, {2}, std::vector<uint16_t>{0x3C01, 0xC000}, TC_DTYPE_F16,
                 std::vector<uint16_t>{0x3C00, 0xC000});
    CHECK(verdict() == "output 0: max_abs_error=0.000977 OK (assert_close)");
    golden.write(TC_DTYPE_F16, {2}, std::vector<uint16_t>{0x3C02, 0x0001}, TC_DTYPE_F16,
                 std::vector<uint16_t>{0x3C00, 0x0001});
    CHECK(verdict() == "output 0: max_abs_error=0.00195 MISMATCH (assert_close failed and no "
                       "fp64 referee)");
  }
  SUBCASE("bf16 travels as <u2: one ulp at 1.0 is within rtol 1.6e-2, four are not") {
    golden.write(TC_DTYPE_BF16, {1}, std::vector<uint16_t>{0x3F81}, TC_DTYPE_BF16,
                 std::vector<uint16_t>{0x3F80});
    CHECK(verdict() == "output 0: max_abs_error=0.00781 OK (assert_close)");
    golden.write(TC_DTYPE_BF16, {1}, std::vector<uint16_t>{0x3F84}, TC_DTYPE_BF16,
                 std::vector<uint16_t>{0x3F80});
    CHECK(verdict() == "output 0: max_abs_error=0.0312 MISMATCH (assert_close failed and no "
                       "fp64 referee)");
  }
  SUBCASE("f64") {
    golden.write(TC_DTYPE_F64, {1}, std::vector<double>{1.0 + 1e-7}, TC_DTYPE_F64,
                 std::vector<double>{1.0});
    CHECK(contains(verdict(), "OK (assert_close)"));
    golden.write(TC_DTYPE_F64, {1}, std::vector<double>{1.0 + 3e-7}, TC_DTYPE_F64,
                 std::vector<double>{1.0});
    CHECK(contains(verdict(), "MISMATCH"));
  }
  SUBCASE("NaN in the same positions is equal; infinities compare by value") {
    golden.write(TC_DTYPE_F32, {3}, std::vector<float>{nan, inf, -inf}, TC_DTYPE_F32,
                 std::vector<float>{nan, inf, -inf});
    CHECK(verdict() == "output 0: max_abs_error=0 OK (assert_close)");
    golden.write(TC_DTYPE_F32, {2}, std::vector<float>{nan, 1.0f}, TC_DTYPE_F32,
                 std::vector<float>{1.0f, 1.0f});
    CHECK(verdict() == "output 0: max_abs_error=inf MISMATCH (assert_close failed and no fp64 "
                       "referee)");
    golden.write(TC_DTYPE_F32, {1}, std::vector<float>{inf}, TC_DTYPE_F32,
                 std::vector<float>{-inf});
    CHECK(contains(verdict(), "max_abs_error=inf MISMATCH"));
  }
  SUBCASE("NaN where the referee has a number is rejected by the referee too") {
    golden.write(TC_DTYPE_F32, {2}, std::vector<float>{nan, 1.0f}, TC_DTYPE_F32,
                 std::vector<float>{1.0f, 1.0f});
    golden.writeReference({2}, {1.0, 1.0});
    CHECK(verdict() == "output 0: max_abs_error=inf MISMATCH (fp64 referee: error inf vs allowed "
                       "1.19e-07)");
  }
  SUBCASE("integers and bools are exact") {
    golden.write(TC_DTYPE_I32, {2}, std::vector<int32_t>{7, -7}, TC_DTYPE_I32,
                 std::vector<int32_t>{7, -7});
    CHECK(verdict() == "output 0: max_abs_error=0 OK (exact)");
    golden.write(TC_DTYPE_BOOL, {2}, std::vector<uint8_t>{1, 0}, TC_DTYPE_BOOL,
                 std::vector<uint8_t>{1, 1});
    CHECK(verdict() == "output 0: max_abs_error=1 MISMATCH (exact)");
    golden.write(TC_DTYPE_I64, {1}, std::vector<int64_t>{INT64_MIN}, TC_DTYPE_I64,
                 std::vector<int64_t>{INT64_MAX});
    CHECK(verdict() == "output 0: max_abs_error=1.84e+19 MISMATCH (exact)");
  }
  SUBCASE("shape and dtype must match") {
    writeNpy(golden.file("inputs/input_0.npy"), TC_DTYPE_F32, {2}, std::vector<float>{1, 2});
    writeNpy(golden.file("expected/output_0.npy"), TC_DTYPE_F32, {1, 2}, std::vector<float>{1, 2});
    CHECK(verdict() == "output 0: max_abs_error=inf MISMATCH (shape [2], expected [1, 2])");
    writeNpy(golden.file("expected/output_0.npy"), TC_DTYPE_F64, {2}, std::vector<double>{1, 2});
    CHECK(verdict() == "output 0: max_abs_error=inf MISMATCH (dtype f32, expected f64)");
  }
  SUBCASE("empty outputs match") {
    golden.write(TC_DTYPE_F32, {0, 3}, std::vector<float>{}, TC_DTYPE_F32, std::vector<float>{});
    CHECK(verdict() == "output 0: max_abs_error=0 OK (assert_close)");
  }
}

TEST_CASE("runtime runner: an incomplete model api is an error, not a crash") {
  stats = FakeStats{};
  tc_model_api api = kIdentity;
  api.run = nullptr;
  RunResult result = runRunner(api, {"--help"}, "unused.bin");
  CHECK(result.code == 3);
  CHECK(result.err ==
        "error: TC_ERROR_INVALID_ARGUMENT: tc_runner_main: incomplete tc_model_api (run)\n");
}

TEST_CASE("runtime runner: --bisect names the first value that differs") {
  AddBiasFiles files;
  const tc_model_api api = observedAddBias();
  gObserver = nullptr;
  writeF32(files.file("ref/inputs/input_0.npy"), {2, 3}, {-1, 0, 1, 2, 3, 4});
  writeF32(files.file("ref/values/add.npy"), {2, 3}, {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f});
  writeNpy(files.file("ref/values/gt.npy"), TC_DTYPE_I64, {2}, std::vector<int64_t>{1, 3});
  std::string ref = files.file("ref");

  SUBCASE("every value matches") {
    RunResult result = runRunner(api, {"--bisect", ref}, files.weights);
    CHECK(result.code == 0);
    CHECK(result.out == "bisect: value 0 'add' (aten.add.Tensor): max_abs_error=0 OK\n"
                        "bisect: value 1 'gt' (aten.gt.Scalar): max_abs_error=0 OK\n"
                        "bisect: value 2 '' (copy): no reference\n"
                        "bisect: 2 values compared with " + ref + "/values (1 without a "
                        "reference), 0 differ\n"
                        "bisect: PASS\n");
    const bool observerSet = gObserver != nullptr;
    CHECK(observerSet);
  }
  SUBCASE("the first value that differs, with its source line and largest error") {
    writeF32(files.file("ref/values/add.npy"), {2, 3}, {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 4.5f});
    writeNpy(files.file("ref/values/gt.npy"), TC_DTYPE_I64, {2}, std::vector<int64_t>{1, 2});
    RunResult result = runRunner(api, {"--bisect", ref}, files.weights);
    CHECK(result.code == 1);
    CHECK(contains(result.out, "bisect: 2 values compared with " + ref +
                                   "/values (1 without a reference), 2 differ\n"
                                   "bisect: first difference: value 0 'add' (aten.add.Tensor)\n"
                                   "bisect:   at model.py:3: y = x + b\n"
                                   "bisect:   max_abs_error=1 (assert_close failed and no fp64 "
                                   "referee), largest at [1, 2]: got 5.5, expected 4.5, shape "
                                   "[2, 3]\n"
                                   "bisect: FAIL\n"));
  }
  SUBCASE("errors") {
    tc_model_api plain = kAddBias;
    RunResult result = runRunner(plain, {"--bisect", ref}, files.weights);
    CHECK(result.code == 2);
    CHECK(contains(result.err, "--bisect: this bundle's model has no observer"));
    result = runRunner(api, {"--bisect", ref, "--inputs", files.x}, files.weights);
    CHECK(result.code == 2);
    CHECK(contains(result.err, "--bisect cannot be combined with"));
    result = runRunner(api, {"--bisect", files.file("nowhere")}, files.weights);
    CHECK(result.code == 3);
    CHECK(contains(result.err, "nowhere/values does not exist (write it with "
                               "tools/dump_intermediates.py)"));
    writeF32(files.file("ref/values/gt.npy"), {2}, {1, 3});
    result = runRunner(api, {"--bisect", ref}, files.weights);
    CHECK(result.code == 1); // a reference of another dtype is a difference, not a crash
    CHECK(contains(result.out, "first difference: value 1 'gt'"));
  }
  gObserver = nullptr;
}

TEST_CASE("runtime runner: --cuda-graphs") {
  AddBiasFiles files;
  const tc_model_api api = observedAddBias();
  RunResult result = runRunner(api, {"--inputs", files.x, "--outputs", files.y, files.positives,
                                     "--cuda-graphs", "3"},
                               files.weights);
  CHECK(result.code == 0);
  CHECK(gCudaGraphs == 3);
  CHECK(result.err == "cuda_graphs: captures=1 replays=2 evictions=0\n");
  result = runRunner(kAddBias, {"--inputs", files.x, "--outputs", files.y, files.positives,
                                "--cuda-graphs", "3"},
                     files.weights);
  CHECK(result.code == 3);
  CHECK(contains(result.err, "--cuda-graphs: this bundle is not a CUDA bundle"));
  for (const char *bad : {"0", "1025", "x"}) {
    result = runRunner(api, {"--inputs", files.x, "--outputs", files.y, files.positives,
                             "--cuda-graphs", bad},
                       files.weights);
    CHECK(result.code == 2);
    CHECK(contains(result.err, "--cuda-graphs: expected an integer in [1, 1024]"));
  }
}
