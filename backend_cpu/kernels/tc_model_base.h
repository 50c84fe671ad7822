// The CPU bundle's model base: everything a compiled model does the same way, so that the
// generated <name>.cpp holds only its tables, its input checks, its kernels and run_impl
// (tc_model_common.h lists what the generated `Model` provides). Host memory throughout:
//   load      weights.bin mapped and every tensor checked against kWeights (name, dtype,
//             shape), the compile id compared when the model asks for it;
//   context   the arena (grown only when a larger symbol binding needs it), the state's copy,
//             the thread pool (num_threads - 1 workers, started by the first run);
//   run       the checks of tc_model_common.h, then Model::run_impl, which calls begin_run
//             for its arena and pool.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits> // the generated code's
#include <new>

#include "arena.h"
#include "tc_kernels.h"
#include "tc_model_common.h"
#include "weights.h"

namespace tc {

/// `<name>_model` on the CPU: the mapped weights.bin and a tensor per weight.
template <size_t NumWeights> struct model_data {
  tc_weights *weights = nullptr;
  tc_tensor params[NumWeights > 0 ? NumWeights : 1] = {};
};

/// `<name>_context` on the CPU.
template <typename Model> struct context_data : context_common {
  const Model *model = nullptr;
  tc_arena *arena = nullptr;
  tc_arena *state = nullptr; ///< the program's state (kStates), kept between runs
  int num_threads = 1;       ///< threads per run, the caller included
  tc_pool *pool = nullptr;   ///< num_threads - 1 workers, started by the first run
};

template <typename Derived, typename Model, typename Context, typename Symbols>
struct ModelBase : model_common<Derived, Context, Symbols> {
  using common = model_common<Derived, Context, Symbols>;

  static tc_status load(const char *weights_path, Model **out, tc_error *err) {
    tc_error_clear(err);
    if (out == nullptr || weights_path == nullptr)
      return common::null_argument(err, "load");
    *out = nullptr;
    Model *model = new (std::nothrow) Model();
    if (model == nullptr)
      return common::out_of_memory(err, "load");
    // GEMMs run single-threaded inside the context's own threads (tc_parallel.h).
    detail::blas_single_threaded();
    tc_status status = common::open_weights(weights_path, &model->weights, model->params, err);
    if (status != TC_OK) {
      free(model);
      return status;
    }
    *out = model;
    return TC_OK;
  }

  static void free(Model *model) {
    if (model != nullptr)
      tc_weights_close(model->weights);
    delete model;
  }

  static tc_status context_create(const Model *model, Context **out, tc_error *err) {
    tc_error_clear(err);
    if (model == nullptr || out == nullptr)
      return common::null_argument(err, "context_create");
    *out = new (std::nothrow) Context();
    if (*out == nullptr)
      return common::out_of_memory(err, "context_create");
    (*out)->model = model;
    (*out)->num_threads = tc_available_cpus();
    tc_status status = context_reset(*out, err);
    if (status != TC_OK) {
      context_destroy(*out);
      *out = nullptr;
      return status;
    }
    return TC_OK;
  }

  static void context_destroy(Context *context) {
    if (context != nullptr) {
      tc_arena_destroy(context->arena);
      tc_arena_destroy(context->state);
      tc_pool_destroy(context->pool);
    }
    delete context;
  }

  /// Every state back to its initial value (allocated on first use); random ops replay.
  static tc_status context_reset(Context *context, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return common::null_context(err, "context_reset");
    context->runs = 0;
    if (context->state == nullptr) {
      tc_status status =
          tc_arena_create(std::max(Derived::kStateBytes, kAlign), &context->state, err);
      if (status != TC_OK) {
        tc_error_prefixf(err, "%s_context_reset: ", Derived::kName);
        return status;
      }
    }
    unsigned char *state = static_cast<unsigned char *>(tc_arena_base(context->state));
    for (int i = 0; i < Derived::kNumStates; ++i) {
      const StateSpec &spec = Derived::kStates[i];
      std::memcpy(state + spec.offset, context->model->params[spec.weight].data, spec.bytes);
    }
    return TC_OK;
  }

  static tc_status set_num_threads(Context *context, int num_threads, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return common::null_context(err, "context_set_num_threads");
    if (num_threads < 0 || num_threads > 1024)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                           "%s_context_set_num_threads: num_threads %d is outside [0, 1024] (0: "
                           "the default)",
                           Derived::kName, num_threads);
    context->num_threads = num_threads == 0 ? tc_available_cpus() : num_threads;
    if (tc_pool_num_threads(context->pool) != context->num_threads) {
      tc_pool_destroy(context->pool);
      context->pool = nullptr;
    }
    return TC_OK;
  }

  /// For run_impl: the context's arena grown to `bytes` (`*base`, its first byte) and its
  /// thread pool started. run_impl then installs the pool (tc::PoolScope) for its kernels.
  static tc_status begin_run(Context *context, size_t bytes, unsigned char **base,
                             tc_error *err) {
    tc_status status = TC_OK;
    if (context->arena == nullptr || tc_arena_size(context->arena) < bytes) {
      tc_arena_destroy(context->arena);
      context->arena = nullptr;
      status = tc_arena_create(std::max(bytes, kAlign), &context->arena, err);
    }
    if (status == TC_OK && context->num_threads > 1 && context->pool == nullptr)
      status = tc_pool_create(context->num_threads, &context->pool, err);
    if (status != TC_OK) {
      tc_error_prefixf(err, "%s_run: ", Derived::kName);
      return status;
    }
    *base = static_cast<unsigned char *>(tc_arena_base(context->arena));
    return TC_OK;
  }

  /// For run_impl: the first byte of the context's state.
  static unsigned char *state_base(Context *context) {
    return static_cast<unsigned char *>(tc_arena_base(context->state));
  }

  /// A copy for the observer and --debug-perturb: host memory on both sides.
  static bool debug_copy(Context *, void *dst, const void *src, size_t bytes, bool) {
    std::memcpy(dst, src, bytes);
    return true;
  }
};

} // namespace tc
