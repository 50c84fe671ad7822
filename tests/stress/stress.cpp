// The runtime under load and faults, against one compiled model (a bundle generated with
// --name model; tests/stress/CMakeLists.txt builds this beside it, tests/e2e/test_stress.py runs
// it, also under ThreadSanitizer). Every mode first computes the reference answers in one
// context on one thread, then:
//
//   stress concurrent WEIGHTS THREADS RUNS INPUT.npy...
//       THREADS threads, one context each, RUNS runs each with distinct inputs (request r
//       scales the floating-point inputs by 1 + r/1024); every output bit-identical to the
//       reference answer for that request.
//   stress lifecycle WEIGHTS THREADS ITERATIONS INPUT.npy...
//       THREADS threads, each ITERATIONS times: load its own model, create a context on it and
//       one on the shared model, run both, destroy everything, in varying order.
//   stress faults WEIGHTS INPUT.npy...                 (built with STRESS_COUNT_ALLOCATIONS)
//       For k = 1, 2, ...: fail the k-th allocation made by load, context creation and the
//       first two runs (the second with 2 threads); the failing call must return
//       TC_ERROR_OUT_OF_MEMORY (TC_ERROR_IO where the C library's open() fails), or recover
//       with the right answer; nothing may leak, and the same steps without the fault must
//       then succeed with the reference answer. Stops at the first k past the last
//       allocation; then checks that a warm context's run allocates nothing.
//   stress api WEIGHTS INPUT.npy...
//       Every generated entry point with null pointers, wrong counts, dtypes, ranks and shapes,
//       null data and bad settings: each returns its documented status with a message (and
//       the same status with a NULL tc_error), and the context still runs correctly after.
//
//   stress graphs WEIGHTS INPUT.npy...
//       CUDA bundles: runs captured into CUDA graphs once per key and replayed, bit-identical
//       to plain runs, at most the capacity kept; no capture with an observer or when off.
//
// A CUDA bundle (built with STRESS_CUDA, against the CPU emulation of CUDA or on a GPU) runs
// every request through model_run_host, and `api` also misuses the CUDA entry points
// (set_stream, synchronize, run_host, time_runs).
//
// Prints one summary line per mode; exits 1 with a message at the first failure.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "model.h"
#include "npy.h"
#ifdef STRESS_CUDA
#include "tc_cuda_api.h"
#endif

// --- Allocation counting and fault injection ------------------------------------------------
// The executable's own malloc family replaces glibc's for the whole process (the runtime, the
// kernels, libstdc++'s operator new), forwarding to glibc's internal entry points. Only built
// without sanitizers, which replace malloc themselves.
#if defined(STRESS_COUNT_ALLOCATIONS) && !defined(__GLIBC__)
#undef STRESS_COUNT_ALLOCATIONS // the interposer forwards to glibc's internal entry points
#endif
#ifdef STRESS_COUNT_ALLOCATIONS
extern "C" {
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *pointer, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *pointer);
}

namespace {
std::atomic<bool> gCounting{false};
std::atomic<long> gAllocations{0}; ///< allocations seen while counting
std::atomic<long> gLive{0};        ///< blocks allocated while counting and not yet freed
std::atomic<long> gFailAt{0};      ///< fail the allocation with this number (1-based); 0: none
std::atomic<bool> gFailed{false};  ///< the injected failure happened

/// The blocks allocated while counting (open addressing with tombstones, no allocation of its
/// own), so that a free of a block from before counting does not hide a leak. Cleared before
/// each counted attempt.
constexpr size_t kTableSize = size_t(1) << 16;
std::atomic<void *> gTable[kTableSize];
std::atomic<bool> gTableFull{false};
void *const kTombstone = reinterpret_cast<void *>(uintptr_t{1});

size_t slotOf(void *pointer) {
  return (reinterpret_cast<uintptr_t>(pointer) >> 4) * 0x9E3779B97F4A7C15ull % kTableSize;
}
void remember(void *pointer) {
  for (size_t i = slotOf(pointer), n = 0; n < kTableSize; i = (i + 1) % kTableSize, ++n) {
    void *empty = nullptr;
    if (gTable[i].compare_exchange_strong(empty, pointer)) {
      gLive.fetch_add(1);
      return;
    }
  }
  gTableFull = true;
}
void forget(void *pointer) {
  for (size_t i = slotOf(pointer), n = 0; n < kTableSize; i = (i + 1) % kTableSize, ++n) {
    void *expected = pointer;
    if (gTable[i].compare_exchange_strong(expected, kTombstone)) {
      gLive.fetch_sub(1);
      return;
    }
    if (expected == nullptr)
      return; // not a counted block
  }
}
void clearTable() {
  for (std::atomic<void *> &slot : gTable)
    slot.store(nullptr);
  gLive = 0;
}

/// Counts one allocation; false when this one is to fail.
bool admit() {
  if (!gCounting.load(std::memory_order_relaxed))
    return true;
  long number = gAllocations.fetch_add(1) + 1;
  if (number == gFailAt.load()) {
    gFailed = true;
    return false;
  }
  return true;
}
void *counted(void *pointer) {
  if (pointer != nullptr && gCounting.load(std::memory_order_relaxed))
    remember(pointer);
  return pointer;
}
} // namespace

extern "C" {
void *malloc(size_t size) { return admit() ? counted(__libc_malloc(size)) : nullptr; }
void *calloc(size_t count, size_t size) {
  return admit() ? counted(__libc_calloc(count, size)) : nullptr;
}
void free(void *pointer) {
  if (pointer != nullptr)
    forget(pointer);
  __libc_free(pointer);
}
void *realloc(void *pointer, size_t size) {
  if (pointer == nullptr)
    return malloc(size);
  if (size == 0) { // glibc frees the block
    free(pointer);
    return nullptr;
  }
  if (!admit())
    return nullptr;
  void *moved = __libc_realloc(pointer, size);
  if (moved != nullptr && moved != pointer) {
    forget(pointer);
    counted(moved);
  }
  return moved;
}
void *memalign(size_t alignment, size_t size) {
  return admit() ? counted(__libc_memalign(alignment, size)) : nullptr;
}
void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
  void *pointer = memalign(alignment, size);
  if (pointer == nullptr)
    return ENOMEM;
  *out = pointer;
  return 0;
}
} // extern "C"
#endif

namespace {

[[noreturn]] void fail(const char *format, ...) {
  std::va_list args;
  va_start(args, format);
  std::fprintf(stderr, "stress: FAILED: ");
  std::vfprintf(stderr, format, args);
  std::fprintf(stderr, "\n");
  va_end(args);
  std::exit(1);
}

void check(tc_status status, const tc_error &error, const char *what) {
  if (status != TC_OK)
    fail("%s: %s (%s)", what, tc_status_name(status), error.message);
}

/// Owned tensors: the buffers and the tc_tensor views on them.
struct Tensors {
  std::vector<std::vector<unsigned char>> data;
  std::vector<tc_tensor> views;
};

/// The inputs of request `index`: floating-point inputs scaled by 1 + index / 1024.
Tensors makeRequest(const std::vector<tc_tensor> &base, int index) {
  Tensors request;
  request.data.resize(base.size());
  for (size_t i = 0; i < base.size(); ++i) {
    const tc_tensor &input = base[i];
    std::vector<unsigned char> &bytes = request.data[i];
    bytes.resize(size_t(tc_tensor_byte_size(&input)));
    if (!bytes.empty())
      std::memcpy(bytes.data(), input.data, bytes.size());
    if (input.dtype == TC_DTYPE_F32) {
      auto *values = reinterpret_cast<float *>(bytes.data());
      for (size_t j = 0; j < bytes.size() / sizeof(float); ++j)
        values[j] *= 1.0f + float(index) / 1024.0f;
    }
    tc_tensor view = input;
    view.data = bytes.data();
    request.views.push_back(view);
  }
  return request;
}

/// Output buffers of the shapes the model reports for `inputs`.
Tensors makeOutputs(const Tensors &inputs) {
  Tensors outputs;
  outputs.views.resize(size_t(model_num_outputs()));
  tc_error error{};
  check(model_output_shapes(inputs.views.data(), int(inputs.views.size()), outputs.views.data(),
                            int(outputs.views.size()), &error),
        error, "model_output_shapes");
  outputs.data.resize(outputs.views.size());
  for (size_t i = 0; i < outputs.views.size(); ++i) {
    outputs.data[i].assign(size_t(tc_tensor_byte_size(&outputs.views[i])), 0xA5);
    outputs.views[i].data = outputs.data[i].data();
  }
  return outputs;
}

tc_status runOnce(model_context *context, const Tensors &inputs, Tensors &outputs,
                  tc_error *error) {
#ifdef STRESS_CUDA // host tensors: uploaded, run, downloaded
  return model_run_host(context, inputs.views.data(), int(inputs.views.size()),
                        outputs.views.data(), int(outputs.views.size()), error);
#else
  return model_run(context, inputs.views.data(), int(inputs.views.size()), outputs.views.data(),
                   int(outputs.views.size()), error);
#endif
}

bool sameBits(const Tensors &a, const Tensors &b) {
  if (a.data.size() != b.data.size())
    return false;
  for (size_t i = 0; i < a.data.size(); ++i)
    if (a.data[i] != b.data[i])
      return false;
  return true;
}

struct Setup {
  const char *weights = nullptr;
  std::vector<tc_tensor> base;     ///< the inputs as read
  model_model *model = nullptr;    ///< the shared model
  std::vector<Tensors> requests;   ///< request inputs
  std::vector<Tensors> references; ///< their answers, one context, one thread
};

/// Loads the model and the inputs, and computes `count` reference answers single-threaded.
Setup prepare(const char *weights, int argc, char **argv, int first, int count) {
  Setup setup;
  setup.weights = weights;
  tc_error error{};
  for (int i = first; i < argc; ++i) {
    tc_tensor tensor;
    check(tc_npy_read(argv[i], &tensor, &error), error, argv[i]);
    setup.base.push_back(tensor);
  }
  if (int(setup.base.size()) != model_num_inputs())
    fail("the model takes %d inputs, %zu given", model_num_inputs(), setup.base.size());
  check(model_load(weights, &setup.model, &error), error, "model_load");
  model_context *context = nullptr;
  check(model_context_create(setup.model, &context, &error), error, "model_context_create");
  check(model_context_set_num_threads(context, 1, &error), error, "set_num_threads(1)");
  for (int r = 0; r < count; ++r) {
    setup.requests.push_back(makeRequest(setup.base, r));
    setup.references.push_back(makeOutputs(setup.requests.back()));
    check(runOnce(context, setup.requests.back(), setup.references.back(), &error), error,
          "reference run");
    check(model_context_reset(context, &error), error, "model_context_reset");
  }
  model_context_destroy(context);
  return setup;
}

void release(Setup &setup) {
  model_free(setup.model);
  for (tc_tensor &tensor : setup.base)
    tc_npy_free(&tensor);
}

// Distinct requests per mode; runs cycle through them.
constexpr int kRequests = 16;

int concurrent(Setup &setup, int threads, int runs) {
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      tc_error error{};
      model_context *context = nullptr;
      if (model_context_create(setup.model, &context, &error) != TC_OK) {
        std::fprintf(stderr, "thread %d: model_context_create: %s\n", t, error.message);
        ++failures;
        return;
      }
      model_context_set_num_threads(context, 1 + t % 2, &error);
      for (int run = 0; run < runs; ++run) {
        int index = (t * 7 + run) % kRequests;
        Tensors outputs = makeOutputs(setup.requests[size_t(index)]);
        tc_status status = runOnce(context, setup.requests[size_t(index)], outputs, &error);
        if (status == TC_OK)
          status = model_context_reset(context, &error);
        if (status != TC_OK || !sameBits(outputs, setup.references[size_t(index)])) {
          std::fprintf(stderr, "thread %d run %d (request %d): %s\n", t, run, index,
                       status != TC_OK ? error.message : "outputs differ from the reference");
          ++failures;
          break;
        }
      }
      model_context_destroy(context);
    });
  }
  for (std::thread &worker : workers)
    worker.join();
  if (failures != 0)
    fail("concurrent: %d thread(s) failed", failures.load());
  std::printf("concurrent: %d threads x %d runs, every output bit-identical\n", threads, runs);
  return 0;
}

int lifecycle(Setup &setup, int threads, int iterations) {
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      tc_error error{};
      for (int i = 0; i < iterations && failures == 0; ++i) {
        model_model *own = nullptr;
        model_context *mine = nullptr, *shared = nullptr;
        const Tensors &request = setup.requests[size_t((t + i) % kRequests)];
        const Tensors &reference = setup.references[size_t((t + i) % kRequests)];
        Tensors a = makeOutputs(request), b = makeOutputs(request);
        bool ok = model_load(setup.weights, &own, &error) == TC_OK &&
                  model_context_create(own, &mine, &error) == TC_OK &&
                  model_context_create(setup.model, &shared, &error) == TC_OK &&
                  model_context_set_num_threads(mine, 1 + i % 2, &error) == TC_OK &&
                  runOnce(mine, request, a, &error) == TC_OK &&
                  runOnce(shared, request, b, &error) == TC_OK;
        if (!ok || !sameBits(a, reference) || !sameBits(b, reference)) {
          std::fprintf(stderr, "thread %d iteration %d: %s\n", t, i,
                       ok ? "outputs differ from the reference" : error.message);
          ++failures;
        }
        // Destroy in varying order: a context may outlive another's model, never its own.
        if (i % 2 == 0) {
          model_context_destroy(shared);
          model_context_destroy(mine);
          model_free(own);
        } else {
          model_context_destroy(mine);
          model_free(own);
          model_context_destroy(shared);
        }
      }
    });
  }
  for (std::thread &worker : workers)
    worker.join();
  if (failures != 0)
    fail("lifecycle: %d thread(s) failed", failures.load());
  std::printf("lifecycle: %d threads x %d load/create/run/destroy cycles\n", threads,
              iterations);
  return 0;
}

#ifdef STRESS_COUNT_ALLOCATIONS
/// Load, create, run on one thread, run on two; the status of the first failing step.
tc_status steps(const Setup &setup, Tensors &outputs, tc_error *error) {
  model_model *model = nullptr;
  model_context *context = nullptr;
  tc_status status = model_load(setup.weights, &model, error);
  if (status == TC_OK)
    status = model_context_create(model, &context, error);
  if (status == TC_OK)
    status = model_context_set_num_threads(context, 1, error);
  if (status == TC_OK)
    status = runOnce(context, setup.requests[0], outputs, error);
  if (status == TC_OK) // the second run must see the state the first one did
    status = model_context_reset(context, error);
  if (status == TC_OK)
    status = model_context_set_num_threads(context, 2, error);
  if (status == TC_OK)
    status = runOnce(context, setup.requests[0], outputs, error);
  model_context_destroy(context);
  model_free(model);
  return status;
}

int faults(Setup &setup) {
  // Once uncounted: the C library keeps some memory of the first thread it starts (its TLS
  // block, cached with the thread's stack) for the life of the process.
  {
    tc_error error{};
    Tensors outputs = makeOutputs(setup.requests[0]);
    check(steps(setup, outputs, &error), error, "the warm-up steps");
  }
  long k = 1;
  for (;; ++k) {
    Tensors outputs = makeOutputs(setup.requests[0]);
    tc_error error{};
    gAllocations = 0;
    clearTable();
    gFailed = false;
    gFailAt = k;
    gCounting = true;
    tc_status status = steps(setup, outputs, &error);
    gCounting = false;
    gFailAt = 0;
    if (!gFailed) { // k is past the last allocation: the steps ran clean
      check(status, error, "the steps without a fault");
      break;
    }
    // A failure the code recovers from (TC_OK) must not change the answer.
    if (status == TC_OK && !sameBits(outputs, setup.references[0]))
      fail("allocation %ld failed: every step returned TC_OK but the outputs are wrong", k);
    if (status != TC_OK && status != TC_ERROR_OUT_OF_MEMORY && status != TC_ERROR_IO)
      fail("allocation %ld failed: the steps returned %s (%s), not TC_ERROR_OUT_OF_MEMORY", k,
           tc_status_name(status), error.message);
    if (gTableFull)
      fail("more live allocations than the stress program can track");
    if (gLive != 0)
      fail("allocation %ld failed: %ld allocation(s) leaked", k, gLive.load());
    Tensors retry = makeOutputs(setup.requests[0]);
    check(steps(setup, retry, &error), error, "the retry after a failed allocation");
    if (!sameBits(retry, setup.references[0]))
      fail("allocation %ld failed: the retry's outputs differ from the reference", k);
  }
  // A warm context's run allocates nothing.
  tc_error error{};
  model_context *context = nullptr;
  check(model_context_create(setup.model, &context, &error), error, "model_context_create");
  check(model_context_set_num_threads(context, 2, &error), error, "set_num_threads(2)");
  Tensors outputs = makeOutputs(setup.requests[1]);
  check(runOnce(context, setup.requests[1], outputs, &error), error, "warm-up run");
  gAllocations = 0;
  gCounting = true;
  tc_status status = runOnce(context, setup.requests[1], outputs, &error);
  gCounting = false;
  check(status, error, "warm run");
  model_context_destroy(context);
  if (gAllocations != 0)
    fail("a warm run made %ld allocation(s)", gAllocations.load());
  std::printf("faults: each of %ld allocations failed in turn: out-of-memory status, no leak, "
              "retry correct; a warm run allocates nothing\n",
              k - 1);
  return 0;
}
#endif

int gApiChecks = 0;

/// Checks one misuse: `status` must be `expected`, with a message in `error`.
void expectStatus(tc_status status, const tc_error &error, tc_status expected, const char *what) {
  ++gApiChecks;
  if (status != expected)
    fail("api: %s: returned %s (%s), documented %s", what, tc_status_name(status),
         error.message, tc_status_name(expected));
  if (expected != TC_OK && (error.status != expected || error.message[0] == '\0'))
    fail("api: %s: the tc_error does not say why (status %s, message '%s')", what,
         tc_status_name(error.status), error.message);
}

int api(Setup &setup) {
  tc_error error{};
  const Tensors &request = setup.requests[0];
  const int inputs = model_num_inputs(), outputs = model_num_outputs();
  // Loading.
  model_model *model = nullptr;
  expectStatus(model_load(nullptr, &model, &error), error, TC_ERROR_INVALID_ARGUMENT,
               "model_load(NULL path)");
  expectStatus(model_load(setup.weights, nullptr, &error), error, TC_ERROR_INVALID_ARGUMENT,
               "model_load(NULL out)");
  expectStatus(model_load("/nonexistent/weights.bin", &model, &error), error, TC_ERROR_IO,
               "model_load(missing file)");
  expectStatus(model_load("/", &model, &error), error, TC_ERROR_IO, "model_load(a folder)");
  if (model != nullptr)
    fail("api: a failed model_load left *out set");
  ++gApiChecks;
  if (model_load(nullptr, &model, nullptr) != TC_ERROR_INVALID_ARGUMENT)
    fail("api: model_load(NULL path) with a NULL tc_error");
  model_free(nullptr);
  model_context_destroy(nullptr);
  // Contexts and settings.
  model_context *context = nullptr;
  expectStatus(model_context_create(nullptr, &context, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "model_context_create(NULL model)");
  expectStatus(model_context_create(setup.model, nullptr, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "model_context_create(NULL out)");
  check(model_context_create(setup.model, &context, &error), error, "model_context_create");
  expectStatus(model_context_reset(nullptr, &error), error, TC_ERROR_INVALID_ARGUMENT,
               "model_context_reset(NULL)");
  expectStatus(model_context_set_num_threads(nullptr, 1, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "set_num_threads(NULL)");
  expectStatus(model_context_set_num_threads(context, -1, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "set_num_threads(-1)");
  expectStatus(model_context_set_seed(nullptr, 1, &error), error, TC_ERROR_INVALID_ARGUMENT,
               "set_seed(NULL)");
  expectStatus(model_context_set_observer(nullptr, nullptr, nullptr, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "set_observer(NULL)");
  ++gApiChecks;
  if (model_input_name(-1) != nullptr || model_input_name(inputs) != nullptr)
    fail("api: model_input_name out of range is not NULL");
  // Shapes and runs.
  Tensors out = makeOutputs(request);
  const tc_tensor *in = request.views.data();
  tc_tensor *o = out.views.data();
  expectStatus(model_output_shapes(nullptr, inputs, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "output_shapes(NULL inputs)");
  expectStatus(model_output_shapes(in, inputs + 1, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "output_shapes(too many inputs)");
  expectStatus(model_output_shapes(in, inputs, nullptr, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "output_shapes(NULL outputs)");
  expectStatus(model_output_shapes(in, inputs, o, outputs + 1, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "output_shapes(too many outputs)");
  expectStatus(model_run(nullptr, in, inputs, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run(NULL context)");
  expectStatus(model_run(context, nullptr, inputs, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run(NULL inputs)");
  expectStatus(model_run(context, in, inputs - 1, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run(too few inputs)");
  expectStatus(model_run(context, in, inputs, o, outputs - 1, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run(too few outputs)");
  expectStatus(model_run(context, in, inputs, nullptr, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run(NULL outputs)");
  // Says what is wrong: not "expected N output(s), got N".
  if (std::strstr(error.message, "outputs is null") == nullptr)
    fail("api: run(NULL outputs) says '%s', not that outputs is null", error.message);
  expectStatus(model_output_shapes(in, inputs, nullptr, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "output_shapes(NULL outputs)");
  if (std::strstr(error.message, "outputs is null") == nullptr)
    fail("api: output_shapes(NULL outputs) says '%s', not that outputs is null", error.message);
  ++gApiChecks;
  if (model_run(context, in, inputs, nullptr, outputs, nullptr) != TC_ERROR_INVALID_ARGUMENT)
    fail("api: run(NULL outputs) with a NULL tc_error");
  // One bad tensor at a time, first input and first output.
  struct Bad {
    const char *what;
    void (*damage)(tc_tensor &);
    tc_status expected;
    bool needsDims; ///< damages a dim: skipped for rank-0 tensors
  };
  const Bad bad[] = {
      {"null data", [](tc_tensor &t) { t.data = nullptr; }, TC_ERROR_INVALID_ARGUMENT, false},
      {"another dtype",
       [](tc_tensor &t) { t.dtype = t.dtype == TC_DTYPE_F64 ? TC_DTYPE_F32 : TC_DTYPE_F64; },
       TC_ERROR_DTYPE_MISMATCH, false},
      {"an invalid dtype", [](tc_tensor &t) { t.dtype = static_cast<tc_dtype>(999); },
       TC_ERROR_DTYPE_MISMATCH, false}, // "dtype invalid, expected f32"
      {"rank + 1",
       [](tc_tensor &t) {
         if (t.rank < TC_MAX_RANK)
           t.shape[t.rank] = 1;
         ++t.rank; // at TC_MAX_RANK this is an invalid rank: the model says SHAPE or INVALID
       },
       TC_ERROR_SHAPE_MISMATCH, false},
      {"rank above TC_MAX_RANK", [](tc_tensor &t) { t.rank = TC_MAX_RANK + 1; },
       TC_ERROR_INVALID_ARGUMENT, false},
      {"negative rank", [](tc_tensor &t) { t.rank = -1; }, TC_ERROR_INVALID_ARGUMENT, false},
      {"negative dim", [](tc_tensor &t) { t.shape[t.rank - 1] = -3; },
       TC_ERROR_INVALID_ARGUMENT, true},
      {"last dim + 1000", [](tc_tensor &t) { t.shape[t.rank - 1] += 1000; },
       TC_ERROR_SHAPE_MISMATCH, true},
  };
  using RunFn = tc_status (*)(model_context *, const tc_tensor *, int, tc_tensor *, int,
                              tc_error *);
  std::vector<std::pair<const char *, RunFn>> runs = {{"run", model_run}};
#ifdef STRESS_CUDA
  runs.emplace_back("run_host", model_run_host);
  // The CUDA entry points.
  expectStatus(model_context_set_stream(nullptr, nullptr, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "context_set_stream(NULL context)");
  expectStatus(model_synchronize(nullptr, &error), error, TC_ERROR_INVALID_ARGUMENT,
               "synchronize(NULL context)");
  expectStatus(model_run_host(nullptr, in, inputs, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run_host(NULL context)");
  expectStatus(model_run_host(context, nullptr, inputs, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run_host(NULL inputs)");
  expectStatus(model_run_host(context, in, inputs + 1, o, outputs, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run_host(too many inputs)");
  expectStatus(model_run_host(context, in, inputs, o, outputs - 1, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "run_host(too few outputs)");
  double median = 0;
  expectStatus(model_time_runs(nullptr, in, inputs, o, outputs, 0, 1, &median, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "time_runs(NULL context)");
  expectStatus(model_time_runs(context, in, inputs, o, outputs, 0, 1, nullptr, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "time_runs(NULL median)");
  expectStatus(model_time_runs(context, in, inputs, o, outputs, -1, 1, &median, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "time_runs(warmup -1)");
  expectStatus(model_time_runs(context, in, inputs, o, outputs, 0, 0, &median, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "time_runs(iters 0)");
  check(model_synchronize(context, &error), error, "synchronize after the misuse");
#endif
  for (const auto &[name, runFn] : runs) {
    for (const Bad &b : bad) {
      std::vector<tc_tensor> badInputs(in, in + inputs);
      if (b.needsDims && badInputs[0].rank == 0)
        continue;
      b.damage(badInputs[0]);
      std::string what = std::string(name) + "(input 0 with " + b.what + ")";
      tc_status status = runFn(context, badInputs.data(), inputs, o, outputs, &error);
      // A symbolic dim may take the damaged size: then an out-of-range status is documented.
      if (b.expected == TC_ERROR_SHAPE_MISMATCH && status == TC_ERROR_OUT_OF_RANGE)
        status = TC_ERROR_SHAPE_MISMATCH;
      expectStatus(status, error, b.expected, what.c_str());
      std::vector<tc_tensor> badOutputs(o, o + outputs);
      if (b.needsDims && badOutputs[0].rank == 0)
        continue;
      b.damage(badOutputs[0]);
      what = std::string(name) + "(output 0 with " + b.what + ")";
      expectStatus(runFn(context, in, inputs, badOutputs.data(), outputs, &error), error,
                   b.expected, what.c_str());
    }
  }
  // After all that the context is intact.
  check(runOnce(context, request, out, &error), error, "run after the misuse");
  if (!sameBits(out, setup.references[0]))
    fail("api: the outputs after the misuse differ from the reference");
  model_context_destroy(context);
  std::printf("api: %d misuses, each with its documented status and a message\n", gApiChecks);
  return 0;
}

#ifdef STRESS_CUDA
void observeNothing(void *, const tc_observed_value *) {}

/// Device copies of a request's inputs and buffers for its outputs (model_run's tensors).
struct DeviceRequest {
  std::vector<void *> buffers;
  std::vector<tc_tensor> inputs, outputs;
  DeviceRequest(const Tensors &request, const Tensors &answer) {
    for (const auto &[host, views] : {std::make_pair(&request, &inputs),
                                      std::make_pair(&answer, &outputs)})
      for (size_t i = 0; i < host->views.size(); ++i) {
        void *device = nullptr;
        size_t bytes = host->data[i].size();
        if (cudaMalloc(&device, bytes == 0 ? 1 : bytes) != cudaSuccess)
          fail("graphs: cudaMalloc");
        if (views == &inputs && bytes > 0 &&
            cudaMemcpy(device, host->data[i].data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
          fail("graphs: upload");
        buffers.push_back(device);
        tc_tensor view = host->views[i];
        view.data = device;
        views->push_back(view);
      }
  }
  ~DeviceRequest() {
    for (void *buffer : buffers)
      cudaFree(buffer);
  }
  Tensors download(const Tensors &like) const {
    Tensors result = like;
    for (size_t i = 0; i < outputs.size(); ++i)
      if (!result.data[i].empty() &&
          cudaMemcpy(result.data[i].data(), outputs[i].data, result.data[i].size(),
                     cudaMemcpyDeviceToHost) != cudaSuccess)
        fail("graphs: download");
    return result;
  }
};

void expectGraphs(model_context *context, long captures, long replays, long evictions,
                  int cached, const char *when) {
  tc_error error{};
  tc_cuda_graph_stats stats{};
  check(model_context_cuda_graph_stats(context, &stats, &error), error, "cuda_graph_stats");
  if (stats.captures != captures || stats.replays != replays || stats.evictions != evictions ||
      stats.cached != cached)
    fail("graphs: %s: captures=%lld replays=%lld evictions=%lld cached=%d, expected %ld %ld %ld "
         "%d", when, (long long)stats.captures, (long long)stats.replays,
         (long long)stats.evictions, stats.cached, captures, replays, evictions, cached);
}

/// CUDA graphs: runs captured once per key and replayed, every answer bit-identical to a plain
/// run's; at most the capacity kept (least recently used dropped); no capture with an
/// observer or at capacity 0; the setting's misuse refused.
int graphs(Setup &setup) {
  tc_error error{};
  model_context *context = nullptr;
  check(model_context_create(setup.model, &context, &error), error, "model_context_create");
  expectStatus(model_context_set_cuda_graphs(nullptr, 1, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "set_cuda_graphs(NULL)");
  expectStatus(model_context_set_cuda_graphs(context, -1, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "set_cuda_graphs(-1)");
  expectStatus(model_context_set_cuda_graphs(context, 1025, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "set_cuda_graphs(1025)");
  tc_cuda_graph_stats stats{};
  expectStatus(model_context_cuda_graph_stats(nullptr, &stats, &error), error,
               TC_ERROR_INVALID_ARGUMENT, "cuda_graph_stats(NULL)");
  check(model_context_set_cuda_graphs(context, 2, &error), error, "set_cuda_graphs(2)");
  // run_host stages every request at the same addresses: one graph, replayed with new data.
  const int requests = int(setup.requests.size());
  for (int r = 0; r < 6; ++r) {
    Tensors out = makeOutputs(setup.requests[size_t(r % requests)]);
    check(runOnce(context, setup.requests[size_t(r % requests)], out, &error), error,
          "graphs: run_host");
    if (!sameBits(out, setup.references[size_t(r % requests)]))
      fail("graphs: run_host %d differs from the plain run", r);
  }
  expectGraphs(context, 1, 5, 0, 1, "run_host x6");
  // Device tensors at three addresses: three keys, two kept.
  std::vector<DeviceRequest *> device;
  for (int r = 0; r < 3; ++r)
    device.push_back(new DeviceRequest(setup.requests[size_t(r % requests)],
                                       setup.references[size_t(r % requests)]));
  const int order[] = {0, 1, 0, 2, 1, 2};
  for (int r : order) {
    DeviceRequest &d = *device[size_t(r)];
    check(model_run(context, d.inputs.data(), int(d.inputs.size()), d.outputs.data(),
                    int(d.outputs.size()), &error),
          error, "graphs: run");
    check(model_synchronize(context, &error), error, "graphs: synchronize");
    if (!sameBits(d.download(setup.references[size_t(r % requests)]),
                  setup.references[size_t(r % requests)]))
      fail("graphs: the device run of request %d differs from the plain run", r);
  }
  // 0: captured; 1: captured, run_host's dropped; 0: replayed; 2: captured, 1 dropped;
  // 1: captured, 0 dropped; 2: replayed.
  expectGraphs(context, 5, 7, 3, 2, "device runs");
  // An observer sees every value: those runs are not captured.
  check(model_context_set_observer(context, observeNothing, nullptr, &error), error,
        "set_observer");
  Tensors out = makeOutputs(setup.requests[0]);
  check(runOnce(context, setup.requests[0], out, &error), error, "graphs: observed run");
  check(model_context_set_observer(context, nullptr, nullptr, &error), error, "set_observer");
  expectGraphs(context, 5, 7, 3, 2, "an observed run");
  // Off: the graphs go, runs are plain.
  check(model_context_set_cuda_graphs(context, 0, &error), error, "set_cuda_graphs(0)");
  check(runOnce(context, setup.requests[0], out, &error), error, "graphs: plain run");
  if (!sameBits(out, setup.references[0]))
    fail("graphs: the plain run after graphs differs");
  expectGraphs(context, 5, 7, 5, 0, "off");
  for (DeviceRequest *d : device)
    delete d;
  model_context_destroy(context);
  std::printf("graphs: captured once per key, replayed bit-identically, at most 2 kept\n");
  return 0;
}
#endif

int usage() {
  std::fprintf(stderr, "usage: stress concurrent WEIGHTS THREADS RUNS INPUT.npy...\n"
                       "       stress lifecycle WEIGHTS THREADS ITERATIONS INPUT.npy...\n"
                       "       stress faults WEIGHTS INPUT.npy...\n"
                       "       stress api WEIGHTS INPUT.npy...\n"
                       "       stress graphs WEIGHTS INPUT.npy...   (CUDA bundles)\n");
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4)
    return usage();
  std::string mode = argv[1];
  const char *weights = argv[2];
  if (mode == "concurrent" || mode == "lifecycle") {
    if (argc < 6)
      return usage();
    int threads = std::atoi(argv[3]), count = std::atoi(argv[4]);
    Setup setup = prepare(weights, argc, argv, 5, kRequests);
    int result = mode == "concurrent" ? concurrent(setup, threads, count)
                                      : lifecycle(setup, threads, count);
    release(setup);
    return result;
  }
  if (mode == "api") {
    Setup setup = prepare(weights, argc, argv, 3, 1);
    int result = api(setup);
    release(setup);
    return result;
  }
  if (mode == "graphs") {
#ifdef STRESS_CUDA
    Setup setup = prepare(weights, argc, argv, 3, 3);
    int result = graphs(setup);
    release(setup);
    return result;
#else
    std::fprintf(stderr, "stress: graphs needs a CUDA bundle\n");
    return 2;
#endif
  }
  if (mode == "faults") {
#ifdef STRESS_COUNT_ALLOCATIONS
    Setup setup = prepare(weights, argc, argv, 3, 2);
    int result = faults(setup);
    release(setup);
    return result;
#else
    std::fprintf(stderr, "stress: built without STRESS_COUNT_ALLOCATIONS\n");
    return 2;
#endif
  }
  return usage();
}
