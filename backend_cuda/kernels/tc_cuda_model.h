// The CUDA bundle's model base: everything a compiled model does the same way, so that the
// generated <name>.cu holds only its tables, its input checks, its kernels and run_impl
// (tc_model_common.h lists what the generated `Model` provides):
//   load         weights.bin is mapped and checked as on the CPU, then uploaded once into one
//                device allocation; the host mapping is closed;
//   context      the caller's stream (default stream until <name>_context_set_stream), a cuBLAS
//                handle bound to it, a device error flag for gathers, the device arena (one
//                allocation, sized by the memory plan, grown only when a larger symbol binding
//                needs it) and staging buffers for <name>_run_host;
//   run          the checks of tc_model_common.h, then Model::run_impl: every node enqueued on
//                the stream (asynchronous; device pointers), directly or as a CUDA graph;
//   run_host     host tensors: uploads, runs, downloads, synchronizes, then reads the error flag;
//   time_runs    device-resident runs timed with CUDA events, for `<name>_run --iters`.
// Every CUDA/cuBLAS failure becomes TC_ERROR_DEVICE with file, line, the entry point and call
// (TC_CUDA_TRY, tc_cuda_bundle.h). The generated `Model` adds to tc_model_common.h's list:
//   kAllowTf32                      whether GEMMs may use TF32 (thunderc --allow-tf32)
//   kGatherSites[], kNumGatherSites the gathers that report out-of-range indices, by site
//   kCudaGraphRefusal               why runs cannot be CUDA graphs ("": they can)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits> // the generated code's
#include <new>
#include <vector>

#include "tc_cuda.h"
#include "tc_cuda_api.h"
#include "tc_cuda_bundle.h"
#include "tc_cuda_lib.h"
#include "tc_model_common.h"
#include "weights.h"

namespace tcg {
namespace {
/// An empty kernel: its attributes tell whether this GPU runs the bundle's code. In an
/// unnamed namespace, so that two bundles linked into one program do not clash.
__global__ void probe_kernel() {}
} // namespace

/// `<name>_model` on CUDA: the weights in device memory (one allocation; params[i].data
/// points into it).
template <size_t NumWeights> struct model_data {
  tc_tensor params[NumWeights > 0 ? NumWeights : 1] = {};
  device_buffer weights;
};

/// `<name>_context` on CUDA.
template <typename Model> struct context_data : tc::context_common {
  const Model *model = nullptr;
  exec ex;               ///< stream, cuBLAS handle, device error flag
  device_buffer arena;   ///< the memory plan's intermediates and workspaces
  device_buffer staging; ///< inputs and outputs of run_host / time_runs
  pinned_buffer pinned;  ///< their host side, page-locked
  device_buffer state;   ///< the program's state (kStates), kept between runs
  graph_cache graphs;    ///< _context_set_cuda_graphs (capacity 0: off)
  /// Owned: the stream graphs are captured on when the context had the default stream
  /// (blocking, so ordered with the default stream's work as the default stream is).
  cudaStream_t graph_stream = nullptr;
};

template <typename Derived, typename Model, typename Context, typename Symbols>
struct ModelBase : tc::model_common<Derived, Context, Symbols> {
  using common = tc::model_common<Derived, Context, Symbols>;
  static constexpr int kStagedInputs = Derived::kNumInputs > 0 ? Derived::kNumInputs : 1;
  static constexpr int kStagedOutputs = Derived::kNumOutputs > 0 ? Derived::kNumOutputs : 1;

  static tc_status load(const char *weights_path, Model **out, tc_error *err) {
    tc_error_clear(err);
    if (out == nullptr || weights_path == nullptr)
      return common::null_argument(err, "load");
    *out = nullptr;
    tc_status status = check_device(probe_kernel, tc::entry_label(Derived::kName, "load"), err);
    if (status != TC_OK)
      return status;
    Model *model = new (std::nothrow) Model();
    if (model == nullptr)
      return common::out_of_memory(err, "load");
    tc_weights *host = nullptr;
    status = common::open_weights(weights_path, &host, model->params, err);
    size_t offsets[Derived::kNumWeights > 0 ? Derived::kNumWeights : 1] = {};
    size_t bytes = 0;
    for (size_t i = 0; status == TC_OK && i < Derived::kNumWeights; ++i) {
      offsets[i] = bytes;
      bytes += tc::align_up(size_t(tc_tensor_byte_size(&model->params[i])));
    }
    // One upload at load; the runs never touch host weights again.
    auto upload = [&]() -> tc_status {
      TC_CUDA_TRY(reserve(model->weights, bytes, nullptr),
                  tc::entry_label(Derived::kName, "load", ": weights"));
      for (size_t i = 0; i < Derived::kNumWeights; ++i) {
        void *device = model->weights.data + offsets[i];
        TC_CUDA_TRY(check(cudaMemcpy(device, model->params[i].data,
                                     size_t(tc_tensor_byte_size(&model->params[i])),
                                     cudaMemcpyHostToDevice),
                          "cudaMemcpy"),
                    Derived::kWeights[i].name);
        model->params[i].data = device;
      }
      return TC_OK;
    };
    if (status == TC_OK)
      status = upload();
    tc_weights_close(host);
    if (status != TC_OK) {
      free(model);
      return status;
    }
    *out = model;
    return TC_OK;
  }

  static void free(Model *model) {
    if (model != nullptr)
      release(model->weights);
    delete model;
  }

  static tc_status context_create(const Model *model, Context **out, tc_error *err) {
    tc_error_clear(err);
    if (model == nullptr || out == nullptr)
      return common::null_argument(err, "context_create");
    *out = nullptr;
    Context *context = new (std::nothrow) Context();
    if (context == nullptr)
      return common::out_of_memory(err, "context_create");
    context->model = model;
    auto create = [&]() -> tc_status {
      const tc::entry_label what(Derived::kName, "context_create");
      TC_CUDA_TRY(check(cublasCreate(&context->ex.blas), "cublasCreate"), what);
      TC_CUDA_TRY(check(cublasSetStream(context->ex.blas, context->ex.stream), "cublasSetStream"),
                  what);
      TC_CUDA_TRY(check(cudaMalloc(reinterpret_cast<void **>(&context->ex.error),
                                   sizeof(gather_error)),
                        "cudaMalloc"),
                  what);
      TC_CUDA_TRY(check(cudaMemset(context->ex.error, 0, sizeof(gather_error)), "cudaMemset"),
                  what);
      // The record is zero before any stream (the caller's may not sync with the legacy
      // default stream) can touch it.
      TC_CUDA_TRY(check(cudaDeviceSynchronize(), "cudaDeviceSynchronize"), what);
      return TC_OK;
    };
    tc_status status = create();
    if (status != TC_OK) {
      context_destroy(context);
      return status;
    }
    context->ex.allow_tf32 = Derived::kAllowTf32;
    status = context_reset(context, err);
    if (status != TC_OK) {
      context_destroy(context);
      return status;
    }
    *out = context;
    return TC_OK;
  }

  static void context_destroy(Context *context) {
    if (context == nullptr)
      return;
    if (context->ex.blas != nullptr)
      cublasDestroy(context->ex.blas);
    context->graphs.resize(0);
    if (context->graph_stream != nullptr) {
      cudaStreamSynchronize(context->graph_stream);
      cudaStreamDestroy(context->graph_stream);
    }
    cudaFree(context->ex.error);
    release(context->arena);
    release(context->staging);
    release(context->pinned);
    release(context->state);
    delete context;
  }

  static tc_status set_stream(Context *context, void *stream, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return common::null_context(err, "context_set_stream");
    context->ex.stream = static_cast<cudaStream_t>(stream);
    TC_CUDA_TRY(check(cublasSetStream(context->ex.blas, context->ex.stream), "cublasSetStream"),
                tc::entry_label(Derived::kName, "context_set_stream"));
    return TC_OK;
  }

  /// Checks the argument only: the host work of a CUDA run is the caller's thread.
  static tc_status set_num_threads(Context *context, int num_threads, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return common::null_context(err, "context_set_num_threads");
    if (num_threads < 0 || num_threads > 1024)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                           "%s_context_set_num_threads: num_threads %d is outside [0, 1024] (0: "
                           "the default)",
                           Derived::kName, num_threads);
    return TC_OK;
  }

  /// Every state back to its initial value (allocated on first use); random ops replay.
  static tc_status context_reset(Context *context, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return common::null_context(err, "context_reset");
    const tc::entry_label what(Derived::kName, "context_reset");
    context->runs = 0;
    TC_CUDA_TRY(reserve(context->state, std::max(Derived::kStateBytes, tc::kAlign),
                        context->ex.stream),
                what);
    // On the context's stream: later runs see the initial values, earlier ones finish first.
    for (int i = 0; i < Derived::kNumStates; ++i) {
      const tc::StateSpec &spec = Derived::kStates[i];
      TC_CUDA_TRY(check(cudaMemcpyAsync(context->state.data + spec.offset,
                                        context->model->params[spec.weight].data, spec.bytes,
                                        cudaMemcpyDeviceToDevice, context->ex.stream),
                        "cudaMemcpyAsync"),
                  what);
    }
    return TC_OK;
  }

  /// For run_impl: the context's device arena grown to `bytes` (`*base`, its first byte).
  static tc_status begin_run(Context *context, size_t bytes, unsigned char **base,
                             tc_error *err) {
    TC_CUDA_TRY(reserve(context->arena, std::max(bytes, tc::kAlign), context->ex.stream),
                tc::entry_label(Derived::kName, "run", ": arena"));
    *base = context->arena.data;
    return TC_OK;
  }

  /// For run_impl: the first byte of the context's state.
  static unsigned char *state_base(Context *context) { return context->state.data; }

  /// For run_impl: runs `work` (every launch of the run) directly, or through the context's
  /// CUDA graphs when they are on: captured once per key -- the memory the launches touch and
  /// the input sizes -- and replayed after.
  template <typename Work>
  static tc_status run_work(Context *context, const uint64_t *key, size_t length, Work &&work,
                            tc_error *err) {
    if (context->graphs.capacity() == 0 || context->observer != nullptr)
      return work();
    static const tc::entry_label where(Derived::kName, "run"); // once, not per run
    return run_graph(context->graphs, context->ex.stream, key, length, work, where, err);
  }

  /// The stream's work so far, then a blocking copy (the observer reads values on the host).
  static bool debug_copy(Context *context, void *dst, const void *src, size_t bytes,
                         bool to_host) {
    if (cudaStreamSynchronize(context->ex.stream) != cudaSuccess)
      return false;
    return cudaMemcpy(dst, src, bytes,
                      to_host ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice) == cudaSuccess;
  }

  /// Waits for the context's stream, then reports an out-of-range gather index of the runs
  /// since the last synchronize.
  static tc_status synchronize(Context *context, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return common::null_context(err, "synchronize");
    static const tc::entry_label what(Derived::kName, "synchronize"); // once, not per run
    const cudaStream_t stream = context->ex.stream;
    gather_error record;
    TC_CUDA_TRY(check(cudaMemcpyAsync(&record, context->ex.error, sizeof(record),
                                      cudaMemcpyDeviceToHost, stream),
                      "cudaMemcpyAsync"),
                what);
    TC_CUDA_TRY(check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"), what);
    if (record.flag == 0)
      return TC_OK;
    // Reset on the context's stream, so that no later run races with it.
    TC_CUDA_TRY(check(cudaMemsetAsync(context->ex.error, 0, sizeof(record), stream),
                      "cudaMemsetAsync"),
                what);
    TC_CUDA_TRY(check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"), what);
    const char *site = record.site >= 0 && record.site < Derived::kNumGatherSites
                           ? Derived::kGatherSites[record.site]
                           : "a gather";
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                         "%s_synchronize: %s: index %lld at position %lld of the indices is out "
                         "of range: valid indices are 0 to %lld (in a run since the last "
                         "synchronize; the rows of bad indices are zeros)",
                         Derived::kName, site, record.value, record.position, record.extent - 1);
  }

  /// `<name>_run` with host tensors: uploads, runs, downloads and synchronizes.
  static tc_status run_host(Context *context, const tc_tensor *inputs, int num_inputs,
                            tc_tensor *outputs, int num_outputs, tc_error *err) {
    tc_error_clear(err);
    Staged staged;
    tc_status status = stage(context, inputs, num_inputs, outputs, num_outputs, staged, err);
    if (status == TC_OK)
      status = common::run(context, staged.inputs, num_inputs, staged.outputs, num_outputs, err);
    if (status == TC_OK)
      status = finish(context, staged, outputs, err);
    if (status != TC_OK)
      tc_error_prefixf(err, "%s_run_host: ", Derived::kName);
    return status;
  }

  /// Device-resident runs of host tensors timed with CUDA events: the median in microseconds.
  static tc_status time_runs(Context *context, const tc_tensor *inputs, int num_inputs,
                             tc_tensor *outputs, int num_outputs, int warmup, int iters,
                             double *median_us, tc_error *err) {
    tc_error_clear(err);
    if (median_us == nullptr || warmup < 0 || iters < 1)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                           "%s_time_runs: need median_us, warmup >= 0 and iters >= 1",
                           Derived::kName);
    Staged staged;
    tc_status status = stage(context, inputs, num_inputs, outputs, num_outputs, staged, err);
    cudaEvent_t start = nullptr, stop = nullptr;
    std::vector<double> samples;
    auto measure = [&]() -> tc_status {
      const tc::entry_label what(Derived::kName, "time_runs");
      TC_CUDA_TRY(check(cudaEventCreate(&start), "cudaEventCreate"), what);
      TC_CUDA_TRY(check(cudaEventCreate(&stop), "cudaEventCreate"), what);
      for (int i = 0; i < warmup + iters; ++i) {
        TC_CUDA_TRY(check(cudaEventRecord(start, context->ex.stream), "cudaEventRecord"), what);
        tc_status run =
            common::run(context, staged.inputs, num_inputs, staged.outputs, num_outputs, err);
        if (run != TC_OK)
          return run;
        TC_CUDA_TRY(check(cudaEventRecord(stop, context->ex.stream), "cudaEventRecord"), what);
        TC_CUDA_TRY(check(cudaEventSynchronize(stop), "cudaEventSynchronize"), what);
        float ms = 0;
        TC_CUDA_TRY(check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime"), what);
        if (i >= warmup)
          samples.push_back(double(ms) * 1000.0);
      }
      return finish(context, staged, outputs, err);
    };
    if (status == TC_OK)
      status = measure();
    // Only events that exist: cudaEventDestroy(nullptr) fails and leaves its error for
    // cudaGetLastError, which the next kernel launch's check would then report.
    if (start != nullptr)
      cudaEventDestroy(start);
    if (stop != nullptr)
      cudaEventDestroy(stop);
    if (status != TC_OK) {
      tc_error_prefixf(err, "%s_time_runs: ", Derived::kName);
      return status;
    }
    *median_us = median(samples);
    return TC_OK;
  }

  /// Up to `max_graphs` captured runs kept per context (0: off); refused for a model whose
  /// runs read values back to the host or change with every run.
  static tc_status set_cuda_graphs(Context *context, int max_graphs, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return common::null_context(err, "context_set_cuda_graphs");
    if (max_graphs < 0 || max_graphs > 1024)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                           "%s_context_set_cuda_graphs: max_graphs %d is outside [0, 1024] (0: "
                           "off)",
                           Derived::kName, max_graphs);
    if (max_graphs > 0 && Derived::kCudaGraphRefusal[0] != '\0')
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                           "%s_context_set_cuda_graphs: this model's runs cannot be captured in "
                           "a CUDA graph: %s",
                           Derived::kName, Derived::kCudaGraphRefusal);
    const tc::entry_label what(Derived::kName, "context_set_cuda_graphs");
    // Graphs cannot be captured on the legacy default stream: a context on it moves to a
    // blocking stream of its own (ordered with the default stream), and back at 0.
    cudaStream_t stream = context->ex.stream;
    if (max_graphs > 0 && stream == nullptr) {
      if (context->graph_stream == nullptr)
        TC_CUDA_TRY(check(cudaStreamCreateWithFlags(&context->graph_stream, cudaStreamDefault),
                          "cudaStreamCreateWithFlags"),
                    what);
      stream = context->graph_stream;
    }
    if (max_graphs == 0 && stream != nullptr && stream == context->graph_stream) {
      TC_CUDA_TRY(check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"), what);
      stream = nullptr;
    }
    if (stream != context->ex.stream) {
      TC_CUDA_TRY(check(cublasSetStream(context->ex.blas, stream), "cublasSetStream"), what);
      context->ex.stream = stream;
    }
    context->graphs.resize(max_graphs);
    return TC_OK;
  }

  static tc_status cuda_graph_stats(const Context *context, tc_cuda_graph_stats *stats,
                                    tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr || stats == nullptr)
      return common::null_argument(err, "context_cuda_graph_stats");
    *stats = context->graphs.stats();
    return TC_OK;
  }

private:
  /// Host tensors mirrored in the context's staging buffer.
  struct Staged {
    tc_tensor inputs[kStagedInputs] = {};
    tc_tensor outputs[kStagedOutputs] = {};
    unsigned char *pinned_outputs[kStagedOutputs] = {}; ///< where the downloads land
  };

  /// Validates host tensors like <name>_run and uploads the inputs on the stream.
  static tc_status stage(Context *context, const tc_tensor *inputs, int num_inputs,
                         tc_tensor *outputs, int num_outputs, Staged &staged, tc_error *err) {
    constexpr int n_in = Derived::kNumInputs, n_out = Derived::kNumOutputs;
    if (context == nullptr)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "null context");
    Symbols sym;
    tc_status status = Derived::bind_inputs(inputs, num_inputs, sym, err);
    if (status != TC_OK)
      return status;
    status = common::check_outputs(sym, outputs, num_outputs, err);
    if (status != TC_OK)
      return status;
    // Output staging is sized by output_shapes' shapes: a data-dependent dim at its upper
    // bound, whatever an earlier run left in the caller's tensor.
    tc_tensor bound[kStagedOutputs] = {};
    Derived::fill_output_shapes(sym, bound);
    size_t bytes = 0;
    size_t offsets[n_in + n_out + 1] = {};
    for (int i = 0; i < n_in + n_out; ++i) {
      const tc_tensor &tensor = i < n_in ? inputs[i] : bound[i - n_in];
      offsets[i] = bytes;
      bytes += tc::align_up(size_t(tc_tensor_byte_size(&tensor)));
    }
    TC_CUDA_TRY(reserve(context->staging, bytes, context->ex.stream), "staging buffers");
    TC_CUDA_TRY(reserve(context->pinned, bytes, context->ex.stream), "pinned staging buffers");
    const cudaStream_t stream = context->ex.stream;
    // run_host and time_runs leave the stream idle, so no copy still reads the pinned buffer.
    for (int i = 0; i < n_in; ++i) {
      staged.inputs[i] = inputs[i];
      staged.inputs[i].data = context->staging.data + offsets[i];
      const size_t size = size_t(tc_tensor_byte_size(&inputs[i]));
      if (size > 0)
        std::memcpy(context->pinned.data + offsets[i], inputs[i].data, size);
      TC_CUDA_TRY(check(cudaMemcpyAsync(staged.inputs[i].data, context->pinned.data + offsets[i],
                                        size, cudaMemcpyHostToDevice, stream),
                        "cudaMemcpyAsync"),
                  "input upload");
    }
    for (int i = 0; i < n_out; ++i) {
      staged.outputs[i] = bound[i];
      staged.outputs[i].data = context->staging.data + offsets[n_in + i];
      staged.pinned_outputs[i] = context->pinned.data + offsets[n_in + i];
    }
    return TC_OK;
  }

  /// Downloads the outputs, waits for the stream and reports an out-of-range gather.
  static tc_status finish(Context *context, const Staged &staged, tc_tensor *outputs,
                          tc_error *err) {
    const cudaStream_t stream = context->ex.stream;
    for (int i = 0; i < Derived::kNumOutputs; ++i) {
      outputs[i].rank = staged.outputs[i].rank; // the run's sizes (data-dependent dims)
      for (int d = 0; d < TC_MAX_RANK; ++d)
        outputs[i].shape[d] = staged.outputs[i].shape[d];
      TC_CUDA_TRY(check(cudaMemcpyAsync(staged.pinned_outputs[i], staged.outputs[i].data,
                                        size_t(tc_tensor_byte_size(&staged.outputs[i])),
                                        cudaMemcpyDeviceToHost, stream),
                        "cudaMemcpyAsync"),
                  "output download");
    }
    const tc_status status = synchronize(context, err);
    // The downloads are complete once the stream is: copy them out of the pinned buffer
    // (also after an out-of-range index, whose rows are zeros, as the status says).
    for (int i = 0; i < Derived::kNumOutputs; ++i) {
      const size_t size = size_t(tc_tensor_byte_size(&staged.outputs[i]));
      if (size > 0 && status != TC_ERROR_DEVICE)
        std::memcpy(outputs[i].data, staged.pinned_outputs[i], size);
    }
    return status;
  }
};

} // namespace tcg
