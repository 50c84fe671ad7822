// The <name>_run command line: parse the arguments, read the .npy inputs, load the model and run
// it once, timed, or against golden data. The golden comparison mirrors
// tests/golden/tolerances.py, the one written-down policy; change both together.
#include "runner.h"

#include "npy.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <vector>

#define TC_RUNNER_RETURN_IF_ERROR(expr)                                                            \
  do {                                                                                             \
    tc_status status_ = (expr);                                                                    \
    if (status_ != TC_OK)                                                                          \
      return status_;                                                                              \
  } while (0)

namespace {

/// The process exit codes, as --help documents them.
enum ExitCode : int { kExitSuccess = 0, kExitMismatch = 1, kExitUsage = 2, kExitError = 3 };

constexpr size_t kDataAlignment = 64;

// ---------------------------------------------------------------------------------------------
// Command line

/// The parsed command line. The runner has two modes: files (--inputs) and golden (--golden).
struct Options {
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::string weights;   ///< empty: the bundle's default
  std::string golden;    ///< empty: files mode
  std::string bisect;    ///< --bisect DIR (empty: not bisecting)
  long long warmup = -1; ///< -1: 1 with --iters, else 0
  long long iters = 0;   ///< 0: one untimed run
  long long threads = 0; ///< 0: the model's default (--threads N sets N)
  long long cudaGraphs = 0; ///< --cuda-graphs G (0: off)
  bool hasSeed = false;  ///< --seed given
  unsigned long long seed = 0;
};

bool isOption(const char *arg) { return std::strncmp(arg, "--", 2) == 0; }

bool isHelp(const char *arg) { return !std::strcmp(arg, "--help") || !std::strcmp(arg, "-h"); }

/// --help anywhere wins over everything else on the line, usage errors included.
bool wantsHelp(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (isHelp(argv[i]))
      return true;
  return false;
}

/// Appends the comma-separated names in `value` to `files`; false if a name is empty.
bool appendFileList(const std::string &value, std::vector<std::string> &files) {
  size_t start = 0;
  while (true) {
    size_t comma = value.find(',', start);
    std::string name = value.substr(start, comma == std::string::npos ? comma : comma - start);
    if (name.empty())
      return false;
    files.push_back(name);
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
}

/// A decimal integer >= `minimum`, nothing else (no sign, spaces or suffix).
bool parseCount(const std::string &text, long long minimum, long long &value) {
  if (text.empty() || text[0] < '0' || text[0] > '9')
    return false;
  errno = 0;
  char *end = nullptr;
  value = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0' && value >= minimum;
}

/// A decimal integer in [0, 2^64), nothing else.
bool parseSeed(const std::string &text, unsigned long long &value) {
  if (text.empty() || text[0] < '0' || text[0] > '9')
    return false;
  errno = 0;
  char *end = nullptr;
  value = std::strtoull(text.c_str(), &end, 10);
  return errno == 0 && *end == '\0';
}

/// Fills `options` from argv; false with a message in `error` on a usage error. Each option
/// takes the arguments up to the next "--" option as its values.
bool parseArguments(int argc, char **argv, Options &options, std::string &error) {
  std::vector<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string option = argv[i];
    if (isHelp(argv[i]))
      continue;
    if (!isOption(argv[i])) {
      error = "unexpected argument '" + option + "'";
      return false;
    }
    bool isList = option == "--inputs" || option == "--outputs";
    bool isScalar = option == "--weights" || option == "--golden" || option == "--bisect" ||
                    option == "--warmup" ||
                    option == "--iters" || option == "--threads" || option == "--seed" ||
                    option == "--cuda-graphs";
    if (!isList && !isScalar) {
      error = "unknown option '" + option + "'";
      return false;
    }
    if (std::find(seen.begin(), seen.end(), option) != seen.end()) {
      error = option + " is given twice";
      return false;
    }
    seen.push_back(option);
    std::vector<std::string> values;
    for (; i + 1 < argc && !isOption(argv[i + 1]); ++i)
      values.push_back(argv[i + 1]);
    if (values.empty() || values[0].empty()) {
      error = option + " needs a value";
      return false;
    }
    if (isScalar && values.size() > 1) {
      error = "unexpected argument '" + values[1] + "' after " + option + " " + values[0];
      return false;
    }
    if (isList) {
      std::vector<std::string> &files = option == "--inputs" ? options.inputs : options.outputs;
      for (const std::string &value : values) {
        if (!appendFileList(value, files)) {
          error = option + ": empty file name in '" + value + "'";
          return false;
        }
      }
    } else if (option == "--weights") {
      options.weights = values[0];
    } else if (option == "--golden") {
      options.golden = values[0];
    } else if (option == "--bisect") {
      options.bisect = values[0];
    } else if (option == "--warmup" && !parseCount(values[0], 0, options.warmup)) {
      error = "--warmup: expected a non-negative integer, got '" + values[0] + "'";
      return false;
    } else if (option == "--iters" && !parseCount(values[0], 1, options.iters)) {
      error = "--iters: expected a positive integer, got '" + values[0] + "'";
      return false;
    } else if (option == "--threads" &&
               (!parseCount(values[0], 1, options.threads) || options.threads > 1024)) {
      error = "--threads: expected an integer in [1, 1024], got '" + values[0] + "'";
      return false;
    } else if (option == "--cuda-graphs" &&
               (!parseCount(values[0], 1, options.cudaGraphs) || options.cudaGraphs > 1024)) {
      error = "--cuda-graphs: expected an integer in [1, 1024], got '" + values[0] + "'";
      return false;
    } else if (option == "--seed") {
      if (!parseSeed(values[0], options.seed)) {
        error = "--seed: expected an integer from 0 to 2^64 - 1, got '" + values[0] + "'";
        return false;
      }
      options.hasSeed = true;
    }
  }
  return true;
}

std::string fileCountError(const char *option, const char *what, int expected, size_t got) {
  return std::string(option) + ": the model has " + std::to_string(expected) + " " + what +
         (expected == 1 ? "" : "s") + ", got " + std::to_string(got) + " file" +
         (got == 1 ? "" : "s");
}

/// Checks the combination of options against each other and the model; false with a message.
bool checkMode(const Options &options, const tc_model_api &api, std::string &error) {
  if (!options.bisect.empty()) {
    if (!options.golden.empty() || !options.inputs.empty() || !options.outputs.empty() ||
        options.warmup >= 0 || options.iters != 0) {
      error = "--bisect cannot be combined with --golden, --inputs, --outputs, --warmup or --iters";
      return false;
    }
    if (api.set_observer == nullptr) {
      error = "--bisect: this bundle's model has no observer (compiled by an older thunderc)";
      return false;
    }
    return true;
  }
  if (!options.golden.empty()) {
    if (options.inputs.empty() && options.outputs.empty() && options.warmup < 0 &&
        options.iters == 0)
      return true;
    error = "--golden cannot be combined with --inputs, --outputs, --warmup or --iters";
    return false;
  }
  if (options.inputs.empty() && api.num_inputs > 0) {
    error = "missing --inputs (or --golden)";
    return false;
  }
  if (options.inputs.size() != size_t(api.num_inputs)) {
    error = fileCountError("--inputs", "input", api.num_inputs, options.inputs.size());
    return false;
  }
  if (options.outputs.empty() && options.iters == 0) {
    error = "missing --outputs (optional only with --iters)";
    return false;
  }
  if (!options.outputs.empty() && options.outputs.size() != size_t(api.num_outputs)) {
    error = fileCountError("--outputs", "output", api.num_outputs, options.outputs.size());
    return false;
  }
  return true;
}

std::string programName(const tc_model_api &api) {
  return std::string(api.name ? api.name : "model") + "_run";
}

void printHelp(const tc_model_api &api, const char *defaultWeights, FILE *out) {
  std::string program = programName(api);
  const char *model = api.name ? api.name : "model";
  std::fprintf(out,
               "usage: %s --inputs A.npy [B.npy ...] --outputs X.npy [Y.npy ...]\n"
               "       %*s [--weights PATH] [--warmup W] [--iters N] [--threads T] [--seed S]\n"
               "       %*s [--cuda-graphs G]\n"
               "       %s --golden DIR [--weights PATH] [--threads T] [--seed S]\n"
               "       %s --bisect DIR [--weights PATH] [--threads T] [--seed S]\n"
               "\n"
               "Runs the thunderc-compiled model '%s' on NumPy .npy files.\n"
               "\n"
               "  --inputs FILES   one .npy per graph input, in graph order, separated by spaces\n"
               "                   or commas; dynamic dims are taken from the files' shapes\n"
               "  --outputs FILES  one .npy per graph output, in graph order, written after the\n"
               "                   run (bfloat16 as '<u2' bit patterns)\n"
               "  --weights PATH   the weights file (default: %s)\n"
               "  --warmup W       untimed runs first (default: 1 with --iters, else 0)\n"
               "  --iters N        time N runs (load excluded) and print 'median_us=<value>' as\n"
               "                   the only line on stdout; --outputs is then optional and\n"
               "                   receives the last run's results\n"
               "  --threads T      threads per run (default: the CPUs this process may use;\n"
               "                   1 runs single-threaded)\n"
               "  --golden DIR     run DIR/inputs/input_<i>.npy and compare every output with\n"
               "                   DIR/expected/output_<i>.npy (and DIR/expected_fp64/\n"
               "                   output_<i>.npy as the fp64 referee, when present) by the\n"
               "                   policy of thunderc's tests/golden/tolerances.py\n"
               "  --bisect DIR     run DIR/inputs/input_<i>.npy once and compare every value the\n"
               "                   run writes with DIR/values/<value>.npy (DIR/values_fp64 as\n"
               "                   the fp64 referee), as written by thunderc's\n"
               "                   tools/dump_intermediates.py; names the first value that\n"
               "                   differs with its op and Python source line\n"
               "  --cuda-graphs G  CUDA bundles: capture the runs into CUDA graphs (at most G)\n"
               "                   and replay them; prints 'cuda_graphs: captures=C\n"
               "                   replays=R evictions=E' on stderr\n"
               "  --seed S         seed of the model's random numbers (default: the context's,\n"
               "                   67280421310721); run k after it draws the same numbers on\n"
               "                   every target, and each warmup or timed run counts\n"
               "  --help           print this message\n"
               "\n",
               program.c_str(), int(program.size()), "", int(program.size()), "", program.c_str(),
               program.c_str(), model,
               defaultWeights ? defaultWeights : "(none)");
  std::fprintf(out, "inputs (%d):", api.num_inputs);
  for (int i = 0; i < api.num_inputs; ++i) {
    const char *name = api.input_name(i);
    std::fprintf(out, " %d '%s'%s", i, name ? name : "", i + 1 < api.num_inputs ? "," : "");
  }
  std::fprintf(out,
               "\noutputs: %d\n"
               "\n"
               "exit codes:\n"
               "  0  success (with --golden: every output matches; with --bisect: every value)\n"
               "  1  golden or bisect mismatch\n"
               "  2  usage error\n"
               "  3  runtime or model error; stderr reads 'error: <status>: <message>'\n",
               api.num_outputs);
}

/// The name of the first missing entry point, or nullptr when `api` is complete.
const char *missingEntryPoint(const tc_model_api &api) {
  if (!api.input_name)
    return "input_name";
  if (!api.load)
    return "load";
  if (!api.free_model)
    return "free_model";
  if (!api.context_create)
    return "context_create";
  if (!api.context_destroy)
    return "context_destroy";
  if (!api.output_shapes)
    return "output_shapes";
  if (!api.run)
    return "run";
  return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Tensors and the model

std::string shapeText(const tc_tensor &tensor) {
  std::string text = "[";
  for (int32_t i = 0; i < tensor.rank; ++i)
    text += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  return text + "]";
}

bool sameShape(const tc_tensor &a, const tc_tensor &b) {
  return a.rank == b.rank && std::equal(a.shape, a.shape + a.rank, b.shape);
}

bool fileExists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

/// Tensors read with tc_npy_read, freed with tc_npy_free. An entry with NULL data stands for an
/// absent optional file.
struct NpyTensors {
  std::vector<tc_tensor> tensors;
  NpyTensors() = default;
  NpyTensors(const NpyTensors &) = delete;
  NpyTensors &operator=(const NpyTensors &) = delete;
  ~NpyTensors() {
    for (tc_tensor &tensor : tensors)
      tc_npy_free(&tensor);
  }

  tc_status read(const std::string &path, tc_error *err) {
    tensors.push_back(tc_tensor{});
    return tc_npy_read(path.c_str(), &tensors.back(), err);
  }
};

/// A loaded model with one context and output buffers sized for one set of inputs. Releases
/// whatever it acquired, whichever step failed.
class Session {
public:
  explicit Session(const tc_model_api &api) : api_(api) {}
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;
  ~Session() {
    for (tc_tensor &output : outputs_)
      ::operator delete(output.data, std::align_val_t(kDataAlignment));
    if (context_)
      api_.context_destroy(context_);
    if (model_)
      api_.free_model(model_);
  }

  /// Loads the weights, creates the context and allocates the outputs for `inputs`.
  tc_status open(const char *weightsPath, const std::vector<tc_tensor> &inputs,
                 const Options &options, tc_error *err) {
    // A failed call owns nothing, whatever it left in its out-parameter.
    if (check(api_.load(weightsPath, &model_, err), "load", err) != TC_OK) {
      model_ = nullptr;
      return err->status;
    }
    if (check(api_.context_create(model_, &context_, err), "context_create", err) != TC_OK) {
      context_ = nullptr;
      return err->status;
    }
    if (options.threads > 0) {
      if (api_.set_num_threads == nullptr)
        return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                             "--threads: this model has no thread setting");
      TC_RUNNER_RETURN_IF_ERROR(
          check(api_.set_num_threads(context_, int(options.threads), err), "set_num_threads", err));
    }
    if (options.cudaGraphs > 0) {
      if (api_.set_cuda_graphs == nullptr)
        return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                             "--cuda-graphs: this bundle is not a CUDA bundle");
      TC_RUNNER_RETURN_IF_ERROR(check(api_.set_cuda_graphs(context_, int(options.cudaGraphs), err),
                                      "context_set_cuda_graphs", err));
    }
    if (options.hasSeed && api_.set_seed != nullptr)
      TC_RUNNER_RETURN_IF_ERROR(
          check(api_.set_seed(context_, uint64_t(options.seed), err), "context_set_seed", err));
    outputs_.assign(size_t(api_.num_outputs), tc_tensor{});
    TC_RUNNER_RETURN_IF_ERROR(check(api_.output_shapes(inputs.data(), int(inputs.size()),
                                                       outputs_.data(), int(outputs_.size()), err),
                                    "output_shapes", err));
    for (size_t i = 0; i < outputs_.size(); ++i) {
      tc_tensor &output = outputs_[i];
      output.data = nullptr; // output_shapes fills everything but data
      int64_t bytes = tc_tensor_byte_size(&output);
      if (bytes < 0)
        return tc_error_setf(err, TC_ERROR_INTERNAL,
                             "%s.output_shapes: output %zu has an invalid dtype or shape",
                             modelName(), i);
      output.data = ::operator new(size_t(bytes == 0 ? 1 : bytes), std::align_val_t(kDataAlignment),
                                   std::nothrow);
      if (!output.data)
        return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY,
                             "cannot allocate %" PRId64 " bytes for output %zu", bytes, i);
      std::memset(output.data, 0, size_t(bytes));
    }
    return TC_OK;
  }

  tc_status run(const std::vector<tc_tensor> &inputs, tc_error *err) {
    return check(api_.run(context_, inputs.data(), int(inputs.size()), outputs_.data(),
                          int(outputs_.size()), err),
                 "run", err);
  }

  /// The model's own timing loop (api.time_runs, e.g. device-resident CUDA runs).
  tc_status timeRuns(const std::vector<tc_tensor> &inputs, long long warmup, long long iters,
                     double *median, tc_error *err) {
    return check(api_.time_runs(context_, inputs.data(), int(inputs.size()), outputs_.data(),
                                int(outputs_.size()), int(warmup), int(iters), median, err),
                 "time_runs", err);
  }

  const std::vector<tc_tensor> &outputs() const { return outputs_; }

  /// With --cuda-graphs: "cuda_graphs: captures=C replays=R evictions=E" on `errStream`.
  void reportCudaGraphs(const Options &options, FILE *errStream) const {
    tc_cuda_graph_stats stats{};
    tc_error error;
    tc_error_clear(&error);
    if (options.cudaGraphs > 0 && api_.cuda_graph_stats != nullptr &&
        api_.cuda_graph_stats(context_, &stats, &error) == TC_OK)
      std::fprintf(errStream, "cuda_graphs: captures=%lld replays=%lld evictions=%lld\n",
                   (long long)stats.captures, (long long)stats.replays,
                   (long long)stats.evictions);
  }

  tc_status setObserver(tc_observer observer, void *user, tc_error *err) {
    return check(api_.set_observer(context_, observer, user, err), "context_set_observer", err);
  }

private:
  const char *modelName() const { return api_.name ? api_.name : "model"; }

  /// Makes `*err` agree with `status`, naming the entry point if the model left no message.
  tc_status check(tc_status status, const char *entryPoint, tc_error *err) const {
    if (status == TC_OK)
      return TC_OK;
    if (err->message[0] == '\0')
      return tc_error_setf(err, status, "%s.%s failed", modelName(), entryPoint);
    err->status = status;
    return status;
  }

  const tc_model_api &api_;
  void *model_ = nullptr;
  void *context_ = nullptr;
  std::vector<tc_tensor> outputs_;
};

// ---------------------------------------------------------------------------------------------
// Golden comparison (tests/golden/tolerances.py)

/// A floating dtype's assert_close tolerance, referee factor and torch.finfo(dtype).eps.
struct FloatPolicy {
  double rtol;
  double atol;
  double refereeFactor;
  double epsilon;
};

/// False for a dtype that is not floating.
bool floatPolicy(tc_dtype dtype, FloatPolicy &policy) {
  switch (dtype) {
  case TC_DTYPE_F16:
    policy = {1e-3, 1e-5, 3.0, 0x1p-10};
    return true;
  case TC_DTYPE_BF16:
    policy = {1.6e-2, 1e-5, 3.0, 0x1p-7};
    return true;
  case TC_DTYPE_F32:
    policy = {1.3e-6, 1e-5, 2.0, 0x1p-23};
    return true;
  case TC_DTYPE_F64:
    policy = {1e-7, 1e-7, 2.0, 0x1p-52};
    return true;
  default:
    return false;
  }
}

template <typename T> T load(const tc_tensor &tensor, int64_t index) {
  T value;
  std::memcpy(&value, static_cast<const char *>(tensor.data) + index * int64_t(sizeof(T)),
              sizeof(T));
  return value;
}

double halfToDouble(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double magnitude = exponent == 0    ? std::ldexp(mantissa, -24)
                     : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                      : std::ldexp(mantissa + 1024, exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

/// Element `index` of an integer or bool tensor (bool: any non-zero byte is 1).
int64_t integerAt(const tc_tensor &tensor, int64_t index) {
  switch (tensor.dtype) {
  case TC_DTYPE_BOOL:
    return load<uint8_t>(tensor, index) != 0;
  case TC_DTYPE_U8:
    return load<uint8_t>(tensor, index);
  case TC_DTYPE_I8:
    return load<int8_t>(tensor, index);
  case TC_DTYPE_I16:
    return load<int16_t>(tensor, index);
  case TC_DTYPE_I32:
    return load<int32_t>(tensor, index);
  default:
    return load<int64_t>(tensor, index);
  }
}

/// Element `index` of any tensor, as a double.
double doubleAt(const tc_tensor &tensor, int64_t index) {
  switch (tensor.dtype) {
  case TC_DTYPE_F16:
    return halfToDouble(load<uint16_t>(tensor, index));
  case TC_DTYPE_BF16: {
    uint32_t bits = uint32_t(load<uint16_t>(tensor, index)) << 16;
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  case TC_DTYPE_F32:
    return load<float>(tensor, index);
  case TC_DTYPE_F64:
    return load<double>(tensor, index);
  default:
    return double(integerAt(tensor, index));
  }
}

/// |a - b|, where equal values (infinities included) and two NaNs differ by 0 and a NaN against
/// a number by infinity.
double absError(double a, double b) {
  if (a == b || (std::isnan(a) && std::isnan(b)))
    return 0.0;
  double error = std::fabs(a - b);
  return std::isnan(error) ? INFINITY : error;
}

/// torch.isclose(actual, expected, rtol, atol, equal_nan=True), computed in double as
/// torch.testing.assert_close does.
bool isClose(double actual, double expected, const FloatPolicy &policy) {
  if (actual == expected || (std::isnan(actual) && std::isnan(expected)))
    return true;
  if (!std::isfinite(actual) || !std::isfinite(expected))
    return false;
  return std::fabs(actual - expected) <= policy.atol + policy.rtol * std::fabs(expected);
}

/// The verdict on one output, as tolerances.compare returns it.
struct Comparison {
  bool ok;
  double maxAbsError; ///< max |actual - expected|
  std::string how;
};

Comparison compareIntegers(const tc_tensor &actual, const tc_tensor &expected, int64_t numel) {
  uint64_t maxError = 0;
  for (int64_t i = 0; i < numel; ++i) {
    int64_t a = integerAt(actual, i), e = integerAt(expected, i);
    // The exact distance: the unsigned difference of two int64 never wraps past 2^64 - 1.
    maxError = std::max(maxError, a > e ? uint64_t(a) - uint64_t(e) : uint64_t(e) - uint64_t(a));
  }
  return {maxError == 0, double(maxError), "exact"};
}

/// The fp64 referee: the output's largest error against the float64 run is at most
/// refereeFactor times eager's, plus one unit of the dtype's precision at the output's scale.
Comparison referee(const tc_tensor &actual, const tc_tensor &expected, const tc_tensor &reference,
                   int64_t numel, const FloatPolicy &policy, double maxAbsError) {
  double errorActual = 0, errorEager = 0, scale = 0;
  for (int64_t i = 0; i < numel; ++i) {
    double ref = doubleAt(reference, i);
    errorActual = std::max(errorActual, absError(doubleAt(actual, i), ref));
    errorEager = std::max(errorEager, absError(doubleAt(expected, i), ref));
    if (std::isfinite(ref))
      scale = std::max(scale, std::fabs(ref));
  }
  double allowed = policy.refereeFactor * errorEager + policy.epsilon * scale;
  bool ok = std::isfinite(errorActual) && errorActual <= allowed;
  char how[96];
  std::snprintf(how, sizeof(how), "fp64 referee: error %.3g vs allowed %.3g", errorActual, allowed);
  return {ok, maxAbsError, how};
}

/// Compares one output with its expected value; `reference` is the fp64 referee's tensor or
/// nullptr. The shapes of `expected` and `reference` agree (the caller checked).
Comparison compareOutput(const tc_tensor &actual, const tc_tensor &expected,
                         const tc_tensor *reference) {
  if (!sameShape(actual, expected))
    return {false, INFINITY, "shape " + shapeText(actual) + ", expected " + shapeText(expected)};
  if (actual.dtype != expected.dtype)
    return {false, INFINITY,
            std::string("dtype ") + tc_dtype_name(actual.dtype) + ", expected " +
                tc_dtype_name(expected.dtype)};
  int64_t numel = tc_tensor_numel(&expected);
  FloatPolicy policy;
  if (!floatPolicy(expected.dtype, policy))
    return compareIntegers(actual, expected, numel);
  double maxAbsError = 0;
  bool allClose = true;
  for (int64_t i = 0; i < numel; ++i) {
    double a = doubleAt(actual, i), e = doubleAt(expected, i);
    maxAbsError = std::max(maxAbsError, absError(a, e));
    allClose = allClose && isClose(a, e, policy);
  }
  if (allClose)
    return {true, maxAbsError, "assert_close"};
  if (!reference)
    return {false, maxAbsError, "assert_close failed and no fp64 referee"};
  return referee(actual, expected, *reference, numel, policy, maxAbsError);
}

// ---------------------------------------------------------------------------------------------
// The two modes

std::string indexedPath(const std::string &dir, const char *sub, const char *stem, int index) {
  return dir + "/" + sub + "/" + stem + std::to_string(index) + ".npy";
}

/// Files mode: runs warmup + max(iters, 1) times, writes the last results to --outputs and,
/// with --iters, prints the median time of the timed runs.
tc_status runFiles(const Options &options, const tc_model_api &api, const char *weightsPath,
                   FILE *out, FILE *errStream, tc_error *err) {
  NpyTensors inputs;
  for (const std::string &path : options.inputs)
    TC_RUNNER_RETURN_IF_ERROR(inputs.read(path, err));
  Session session(api);
  TC_RUNNER_RETURN_IF_ERROR(session.open(weightsPath, inputs.tensors, options, err));

  long long warmup = options.warmup >= 0 ? options.warmup : (options.iters > 0 ? 1 : 0);
  if (api.time_runs != nullptr && options.iters > 0) {
    double median = 0;
    TC_RUNNER_RETURN_IF_ERROR(session.timeRuns(inputs.tensors, warmup, options.iters, &median, err));
    for (size_t i = 0; i < options.outputs.size(); ++i)
      TC_RUNNER_RETURN_IF_ERROR(
          tc_npy_write(options.outputs[i].c_str(), &session.outputs()[i], err));
    std::fprintf(out, "median_us=%.3f\n", median);
    session.reportCudaGraphs(options, errStream);
    return TC_OK;
  }
  for (long long i = 0; i < warmup; ++i)
    TC_RUNNER_RETURN_IF_ERROR(session.run(inputs.tensors, err));
  std::vector<double> micros;
  micros.reserve(size_t(options.iters));
  for (long long i = 0; i < std::max(options.iters, 1LL); ++i) {
    auto start = std::chrono::steady_clock::now();
    TC_RUNNER_RETURN_IF_ERROR(session.run(inputs.tensors, err));
    auto stop = std::chrono::steady_clock::now();
    micros.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
  }

  for (size_t i = 0; i < options.outputs.size(); ++i)
    TC_RUNNER_RETURN_IF_ERROR(tc_npy_write(options.outputs[i].c_str(), &session.outputs()[i], err));
  session.reportCudaGraphs(options, errStream);
  if (options.iters == 0)
    return TC_OK;
  std::sort(micros.begin(), micros.end());
  size_t middle = micros.size() / 2;
  double median = micros.size() % 2 ? micros[middle] : (micros[middle - 1] + micros[middle]) / 2;
  std::fprintf(out, "median_us=%.3f\n", median);
  return TC_OK;
}

/// Golden mode: runs DIR's inputs once and prints one verdict line per output and a summary;
/// `passed` tells whether every output matched. Missing or unreadable golden files are errors.
tc_status runGolden(const Options &options, const tc_model_api &api, const char *weightsPath,
                    FILE *out, bool &passed, tc_error *err) {
  const std::string &dir = options.golden;
  NpyTensors inputs, expected, references;
  for (int i = 0; i < api.num_inputs; ++i)
    TC_RUNNER_RETURN_IF_ERROR(inputs.read(indexedPath(dir, "inputs", "input_", i), err));
  for (int i = 0; i < api.num_outputs; ++i) {
    TC_RUNNER_RETURN_IF_ERROR(expected.read(indexedPath(dir, "expected", "output_", i), err));
    std::string referencePath = indexedPath(dir, "expected_fp64", "output_", i);
    if (!fileExists(referencePath)) {
      references.tensors.push_back(tc_tensor{});
      continue;
    }
    TC_RUNNER_RETURN_IF_ERROR(references.read(referencePath, err));
    const tc_tensor &reference = references.tensors.back();
    if (!sameShape(reference, expected.tensors.back()))
      return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH, "%s: shape %s, expected %s as in %s",
                           referencePath.c_str(), shapeText(reference).c_str(),
                           shapeText(expected.tensors.back()).c_str(),
                           indexedPath(dir, "expected", "output_", i).c_str());
  }
  Session session(api);
  TC_RUNNER_RETURN_IF_ERROR(session.open(weightsPath, inputs.tensors, options, err));
  TC_RUNNER_RETURN_IF_ERROR(session.run(inputs.tensors, err));

  passed = true;
  for (int i = 0; i < api.num_outputs; ++i) {
    const tc_tensor &reference = references.tensors[size_t(i)];
    Comparison result = compareOutput(session.outputs()[size_t(i)], expected.tensors[size_t(i)],
                                      reference.data ? &reference : nullptr);
    std::fprintf(out, "output %d: max_abs_error=%.3g %s (%s)\n", i, result.maxAbsError,
                 result.ok ? "OK" : "MISMATCH", result.how.c_str());
    passed = passed && result.ok;
  }
  std::fprintf(out, "golden: %s\n", passed ? "PASS" : "FAIL");
  return TC_OK;
}

/// The element where |actual - expected| is largest, as "[i, j]: got A, expected E".
std::string largestError(const tc_tensor &actual, const tc_tensor &expected) {
  int64_t numel = tc_tensor_numel(&expected), element = 0;
  double largest = -1;
  for (int64_t i = 0; i < numel; ++i) {
    double error = absError(doubleAt(actual, i), doubleAt(expected, i));
    if (error > largest) {
      largest = error;
      element = i;
    }
  }
  std::string index;
  for (int64_t d = expected.rank - 1, rest = element; d >= 0; --d) {
    index = std::to_string(rest % expected.shape[d]) + (index.empty() ? "" : ", ") + index;
    rest /= expected.shape[d];
  }
  char text[96];
  std::snprintf(text, sizeof(text), "]: got %.6g, expected %.6g", doubleAt(actual, element),
                doubleAt(expected, element));
  return "[" + index + text;
}

/// What --bisect learns from the observer during its one run.
struct BisectState {
  std::string dir;
  int compared = 0;
  int withoutReference = 0;
  int differing = 0;
  bool haveFirst = false;
  tc_observed_value first = {}; ///< the first differing value (tensor data not kept)
  Comparison firstVerdict = {true, 0, ""};
  std::string firstWhere;       ///< its largest error's element
  tc_error error = {};          ///< a reference that could not be read stops the comparison
  std::string log;              ///< one line per value, printed after the run
};

void bisectObserve(BisectState &state, const tc_observed_value &value) {
  if (state.error.status != TC_OK)
    return;
  std::string path = state.dir + "/values/" + value.name + ".npy";
  char line[160];
  if (value.name[0] == '\0' || !fileExists(path)) {
    ++state.withoutReference;
    std::snprintf(line, sizeof(line), "bisect: value %d '%s' (%s): no reference\n", value.index,
                  value.name, value.op);
    state.log += line;
    return;
  }
  NpyTensors reference;
  if (reference.read(path, &state.error) != TC_OK)
    return;
  std::string refereePath = state.dir + "/values_fp64/" + value.name + ".npy";
  const tc_tensor *referee = nullptr;
  if (fileExists(refereePath)) {
    if (reference.read(refereePath, &state.error) != TC_OK)
      return;
    if (sameShape(reference.tensors[1], reference.tensors[0]))
      referee = &reference.tensors[1];
  }
  const tc_tensor &expected = reference.tensors[0];
  Comparison verdict = sameShape(value.tensor, expected)
                           ? compareOutput(value.tensor, expected, referee)
                           : Comparison{false, INFINITY,
                                        "shape " + shapeText(value.tensor) + ", expected " +
                                            shapeText(expected)};
  ++state.compared;
  std::snprintf(line, sizeof(line), "bisect: value %d '%s' (%s): max_abs_error=%.3g %s\n",
                value.index, value.name, value.op, verdict.maxAbsError,
                verdict.ok ? "OK" : "DIFFERS");
  state.log += line;
  if (verdict.ok)
    return;
  ++state.differing;
  if (state.haveFirst)
    return;
  state.haveFirst = true;
  state.first = value;
  state.first.tensor.data = nullptr;
  state.firstVerdict = verdict;
  if (sameShape(value.tensor, expected) && tc_tensor_numel(&expected) > 0)
    state.firstWhere = largestError(value.tensor, expected);
}

extern "C" void bisectObserver(void *user, const tc_observed_value *value) {
  try {
    bisectObserve(*static_cast<BisectState *>(user), *value);
  } catch (...) {
    tc_error_setf(&static_cast<BisectState *>(user)->error, TC_ERROR_OUT_OF_MEMORY,
                  "--bisect: out of memory comparing '%s'", value->name);
  }
}

/// Bisect mode: one run of DIR's inputs with an observer comparing every value with DIR's
/// reference intermediates; prints the first value that differs. `passed`: none does.
tc_status runBisect(const Options &options, const tc_model_api &api, const char *weightsPath,
                    FILE *out, bool &passed, tc_error *err) {
  BisectState state;
  state.dir = options.bisect;
  tc_error_clear(&state.error);
  std::string values = state.dir + "/values";
  if (!fileExists(values))
    return tc_error_setf(err, TC_ERROR_IO,
                         "--bisect: %s does not exist (write it with "
                         "tools/dump_intermediates.py)",
                         values.c_str());
  NpyTensors inputs;
  for (int i = 0; i < api.num_inputs; ++i)
    TC_RUNNER_RETURN_IF_ERROR(inputs.read(indexedPath(state.dir, "inputs", "input_", i), err));
  Session session(api);
  TC_RUNNER_RETURN_IF_ERROR(session.open(weightsPath, inputs.tensors, options, err));
  TC_RUNNER_RETURN_IF_ERROR(session.setObserver(bisectObserver, &state, err));
  TC_RUNNER_RETURN_IF_ERROR(session.run(inputs.tensors, err));
  if (state.error.status != TC_OK) {
    *err = state.error;
    return err->status;
  }
  std::fputs(state.log.c_str(), out);
  std::fprintf(out, "bisect: %d values compared with %s (%d without a reference), %d differ\n",
               state.compared, values.c_str(), state.withoutReference, state.differing);
  passed = !state.haveFirst;
  if (state.haveFirst) {
    const tc_observed_value &first = state.first;
    std::fprintf(out, "bisect: first difference: value %d '%s' (%s%s)\n", first.index,
                 first.name, first.op, first.fused ? ", in a fused kernel" : "");
    std::fprintf(out, "bisect:   at %s\n", first.source[0] ? first.source : "(no source line)");
    std::fprintf(out, "bisect:   max_abs_error=%.3g (%s)%s%s, shape %s\n",
                 state.firstVerdict.maxAbsError, state.firstVerdict.how.c_str(),
                 state.firstWhere.empty() ? "" : ", largest at ", state.firstWhere.c_str(),
                 shapeText(first.tensor).c_str());
  }
  std::fprintf(out, "bisect: %s\n", passed ? "PASS" : "FAIL");
  return TC_OK;
}

int usageError(const tc_model_api &api, const std::string &message, FILE *errStream) {
  std::string program = programName(api);
  std::fprintf(errStream, "error: %s\nrun '%s --help' for usage\n", message.c_str(),
               program.c_str());
  return kExitUsage;
}

int runnerMain(int argc, char **argv, const tc_model_api *api, const char *defaultWeights,
               FILE *out, FILE *errStream) {
  const char *missing = api ? missingEntryPoint(*api) : "api";
  if (missing || api->num_inputs < 0 || api->num_outputs < 0) {
    std::fprintf(errStream, "error: %s: tc_runner_main: incomplete tc_model_api (%s)\n",
                 tc_status_name(TC_ERROR_INVALID_ARGUMENT), missing ? missing : "negative count");
    return kExitError;
  }
  if (wantsHelp(argc, argv)) {
    printHelp(*api, defaultWeights, out);
    return kExitSuccess;
  }
  Options options;
  std::string usage;
  if (!parseArguments(argc, argv, options, usage) || !checkMode(options, *api, usage))
    return usageError(*api, usage, errStream);
  const char *weightsPath = options.weights.empty() ? defaultWeights : options.weights.c_str();
  if (!weightsPath)
    return usageError(*api, "missing --weights (the bundle has no default)", errStream);

  tc_error err;
  tc_error_clear(&err);
  bool passed = true;
  tc_status status = !options.bisect.empty()
                         ? runBisect(options, *api, weightsPath, out, passed, &err)
                     : options.golden.empty()
                         ? runFiles(options, *api, weightsPath, out, errStream, &err)
                         : runGolden(options, *api, weightsPath, out, passed, &err);
  if (status != TC_OK) {
    std::fprintf(errStream, "error: %s: %s\n", tc_status_name(status), err.message);
    return kExitError;
  }
  return passed ? kExitSuccess : kExitMismatch;
}

} // namespace

extern "C" int tc_runner_main_streams(int argc, char **argv, const tc_model_api *api,
                                      const char *default_weights_path, FILE *out, FILE *err) {
  out = out ? out : stdout;
  err = err ? err : stderr;
  int code;
  try {
    code = runnerMain(argc, argv, api, default_weights_path, out, err);
  } catch (const std::bad_alloc &) {
    std::fprintf(err, "error: %s: out of memory\n", tc_status_name(TC_ERROR_OUT_OF_MEMORY));
    code = kExitError;
  } catch (const std::length_error &) { // a vector or string larger than max_size()
    std::fprintf(err, "error: %s: out of memory\n", tc_status_name(TC_ERROR_OUT_OF_MEMORY));
    code = kExitError;
  } catch (...) {
    std::fprintf(err, "error: %s: unexpected exception in the runner or the model\n",
                 tc_status_name(TC_ERROR_INTERNAL));
    code = kExitError;
  }
  std::fflush(out);
  std::fflush(err);
  return code;
}

extern "C" int tc_runner_main(int argc, char **argv, const tc_model_api *api,
                              const char *default_weights_path) {
  return tc_runner_main_streams(argc, argv, api, default_weights_path, stdout, stderr);
}

#undef TC_RUNNER_RETURN_IF_ERROR
