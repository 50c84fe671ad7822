// What every bundle's model code does the same way on both targets, written once: the tables a
// model describes itself with (weights, states, observed values), the entry points that only
// read them (counts, input names, output shapes, seed, observer), the checks of the caller's
// output tensors, the run's validation before the model's own code, and the observer's and
// --debug-perturb's hooks. The target's model base (tc_model_base.h for the CPU,
// tc_cuda_model.h for CUDA) derives from model_common and adds memory, threads, streams.
//
// The generated code (<name>.cpp / <name>.cu) defines one struct, `Model`, deriving from its
// target's base (the AOTInductor `AOTInductorModelBase<Model>` pattern), with:
//   kName                           the bundle's name, for messages ("<kName>_run: ...")
//   kNumInputs, kNumOutputs         user inputs and outputs
//   kWeights[], kNumWeights         every tensor read from weights.bin, in parameter order
//   kCheckCompileId, kCompileId     whether _load refuses a weights.bin of another compile
//   kStates[], kNumStates, kStateBytes   the program's state, a slot per State input
//   kInputs[]                       each user input: name, dtype, rank, its type for messages
//   kObserved[]                     the values the observer sees, in execution order
//   kDataDependent[], kNumDataDependent  output dims known only after the run
//   bind_inputs(inputs, n, sym, err)     check_inputs, the symbols bound and range-checked,
//                                        then check_input_dims with the dims they give
//   fill_output_shapes(sym, outputs)     dtype, rank and shape of every output
//   run_impl(context, inputs, outputs, sym, err)   the arena, then every node
// and the C ABI (`<name>_run` ...) is one line per entry point calling the base.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "tc_random.h"
#include "thunderc_runtime.h"
#include "weights.h"

namespace tc {

/// A tensor of weights.bin the model reads.
struct WeightSpec {
  const char *name;
  tc_dtype dtype;
  int32_t rank;
  int64_t shape[TC_MAX_RANK];
};

/// A user input, with its type as messages print it ("f32[s0,8]").
struct InputSpec {
  const char *name;
  tc_dtype dtype;
  const char *dtype_name;
  int32_t rank;
  const char *type;
};

/// A State input: its initial value and its slot in the context's state.
struct StateSpec {
  size_t weight; ///< index into kWeights: the initial value
  size_t offset; ///< bytes from the first byte of the context's state
  size_t bytes;
};

/// A value the observer (`<name>_context_set_observer`) is shown.
struct ObservedSpec {
  const char *name;
  const char *op;
  const char *source;
  int fused;
  tc_dtype dtype;
};

/// An output dim whose size only the run knows (after a nonzero or item node).
struct OutputDim {
  int output;
  int dim;
};

/// Arena slots and staging buffers start on 64-byte boundaries.
constexpr size_t kAlign = 64;
constexpr size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

/// "<model>_<entry><suffix>" for messages and device-call sites ("mlp_load: weights").
class entry_label {
public:
  entry_label(const char *model, const char *entry, const char *suffix = "") {
    std::snprintf(text_, sizeof(text_), "%s_%s%s", model, entry, suffix);
  }
  operator const char *() const { return text_; }

private:
  char text_[192];
};

/// The fields of a context both targets keep.
struct context_common {
  uint64_t seed = kDefaultRandomSeed; ///< random ops' seed (_context_set_seed)
  uint64_t runs = 0;                  ///< runs since the seed was set or the context reset
  tc_observer observer = nullptr;     ///< _context_set_observer
  void *observer_user = nullptr;
  std::vector<unsigned char> observed; ///< the observer's host copy of a value
};

/// The target-independent entry points of `Derived` (the generated `Model`), whose context
/// type is `Context` and whose symbolic sizes are `Symbols`. `Derived` (through its target
/// base) provides `debug_copy(context, dst, src, bytes, to_host)`.
template <typename Derived, typename Context, typename Symbols> struct model_common {
  static int num_inputs() { return Derived::kNumInputs; }
  static int num_outputs() { return Derived::kNumOutputs; }
  static int num_states() { return Derived::kNumStates; }
  static const char *input_name(int index) {
    return index >= 0 && index < Derived::kNumInputs ? Derived::kInputs[index].name : nullptr;
  }

  /// The first half of bind_inputs: the caller's inputs counted, and each a valid tensor of
  /// the input's dtype and rank.
  static tc_status check_inputs(const tc_tensor *inputs, int num_inputs, tc_error *err) {
    if (num_inputs != Derived::kNumInputs)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "expected %d input(s), got %d",
                           Derived::kNumInputs, num_inputs);
    if (Derived::kNumInputs > 0 && inputs == nullptr)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "inputs is null");
    for (int i = 0; i < Derived::kNumInputs; ++i) {
      const InputSpec &spec = Derived::kInputs[i];
      // Not a tensor at all (rank outside 0..TC_MAX_RANK, a negative dim, a size overflowing
      // int64) is a bad argument, before any comparison with what the model expects.
      if (tc_tensor_numel(&inputs[i]) < 0)
        return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                             "input %d '%s': not a valid tensor (rank %d: outside "
                             "0..TC_MAX_RANK, a negative dim or an element count overflowing "
                             "int64)",
                             i, spec.name, inputs[i].rank);
      if (inputs[i].dtype != spec.dtype)
        return tc_error_setf(err, TC_ERROR_DTYPE_MISMATCH, "input %d '%s': dtype %s, expected %s",
                             i, spec.name, tc_dtype_name(inputs[i].dtype), spec.dtype_name);
      if (inputs[i].rank != spec.rank)
        return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH,
                             "input %d '%s': rank %d, expected %d (%s)", i, spec.name,
                             inputs[i].rank, spec.rank, spec.type);
    }
    return TC_OK;
  }

  /// The second half of bind_inputs: every dim of every input against `dims` (all inputs'
  /// expected dims in order, computed from the bound symbols), and data where there are
  /// elements.
  static tc_status check_input_dims(const tc_tensor *inputs, const int64_t *dims,
                                    tc_error *err) {
    for (int i = 0; i < Derived::kNumInputs; ++i) {
      const InputSpec &spec = Derived::kInputs[i];
      int64_t count = 1;
      for (int d = 0; d < spec.rank; ++d, ++dims) {
        if (inputs[i].shape[d] != *dims)
          return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH,
                               "input %d '%s': dim %d is %lld, expected %lld (%s)", i, spec.name,
                               d, (long long)inputs[i].shape[d], (long long)*dims, spec.type);
        count *= *dims;
      }
      if (inputs[i].data == nullptr && count > 0)
        return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "input %d '%s': data is null", i,
                             spec.name);
    }
    return TC_OK;
  }

  /// The random ops' seed; a new seed restarts the run count, so its sequence replays.
  static tc_status set_seed(Context *context, uint64_t seed, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return null_context(err, "context_set_seed");
    context->seed = seed;
    context->runs = 0;
    return TC_OK;
  }

  static tc_status set_observer(Context *context, tc_observer observer, void *user,
                                tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return null_context(err, "context_set_observer");
    context->observer = observer;
    context->observer_user = user;
    return TC_OK;
  }

  /// The outputs' dtypes and shapes for these inputs (data-dependent dims at their bound).
  static tc_status output_shapes(const tc_tensor *inputs, int num_inputs, tc_tensor *outputs,
                                 int num_outputs, tc_error *err) {
    tc_error_clear(err);
    Symbols sym;
    tc_status status = Derived::bind_inputs(inputs, num_inputs, sym, err);
    if (status != TC_OK) {
      tc_error_prefixf(err, "%s_output_shapes: ", Derived::kName);
      return status;
    }
    if (num_outputs != Derived::kNumOutputs)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                           "%s_output_shapes: expected %d output(s), got %d", Derived::kName,
                           Derived::kNumOutputs, num_outputs);
    if (Derived::kNumOutputs > 0 && outputs == nullptr)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "%s_output_shapes: outputs is null",
                           Derived::kName);
    Derived::fill_output_shapes(sym, outputs);
    return TC_OK;
  }

  /// The caller's output tensors against the shapes these inputs give.
  static tc_status check_outputs(const Symbols &sym, const tc_tensor *outputs, int num_outputs,
                                 tc_error *err) {
    constexpr int n = Derived::kNumOutputs;
    if (num_outputs != n)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "expected %d output(s), got %d", n,
                           num_outputs);
    // A null array with the right count is its own mistake (not "expected 1, got 1").
    if (n > 0 && outputs == nullptr)
      return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "outputs is null");
    tc_tensor expected[n > 0 ? n : 1] = {};
    Derived::fill_output_shapes(sym, expected);
    // A data-dependent dim is the run's to write: any value the caller left there goes (the
    // buffer must hold the upper bound output_shapes reported).
    for (int k = 0; k < Derived::kNumDataDependent; ++k) {
      const OutputDim &dim = Derived::kDataDependent[k];
      expected[dim.output].shape[dim.dim] = outputs[dim.output].shape[dim.dim];
    }
    for (int i = 0; i < n; ++i) {
      if (tc_tensor_numel(&outputs[i]) < 0)
        return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT,
                             "output %d: not a valid tensor (rank %d: outside 0..TC_MAX_RANK, a "
                             "negative dim or an element count overflowing int64)",
                             i, outputs[i].rank);
      if (outputs[i].dtype != expected[i].dtype)
        return tc_error_setf(err, TC_ERROR_DTYPE_MISMATCH, "output %d: dtype %s, expected %s", i,
                             tc_dtype_name(outputs[i].dtype), tc_dtype_name(expected[i].dtype));
      bool same_shape = outputs[i].rank == expected[i].rank;
      int64_t count = 1;
      for (int d = 0; same_shape && d < expected[i].rank; ++d) {
        same_shape = outputs[i].shape[d] == expected[i].shape[d];
        count *= expected[i].shape[d];
      }
      if (!same_shape)
        return tc_error_setf(err, TC_ERROR_SHAPE_MISMATCH,
                             "output %d has the wrong shape (see %s_output_shapes)", i,
                             Derived::kName);
      if (outputs[i].data == nullptr && count > 0)
        return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "output %d: data is null", i);
    }
    return TC_OK;
  }

  /// `<name>_run`: the inputs and outputs checked and the symbols bound, then the model.
  static tc_status run(Context *context, const tc_tensor *inputs, int num_inputs,
                       tc_tensor *outputs, int num_outputs, tc_error *err) {
    tc_error_clear(err);
    if (context == nullptr)
      return null_context(err, "run");
    Symbols sym;
    tc_status status = Derived::bind_inputs(inputs, num_inputs, sym, err);
    if (status == TC_OK)
      status = check_outputs(sym, outputs, num_outputs, err);
    if (status != TC_OK) {
      tc_error_prefixf(err, "%s_run: ", Derived::kName);
      return status;
    }
    return Derived::run_impl(context, inputs, outputs, sym, err);
  }

  /// Hands value `index` of this run to the context's observer (a host copy).
  static void observe(Context *context, int index, const void *data,
                      std::initializer_list<int64_t> shape) {
    const ObservedSpec &spec = Derived::kObserved[index];
    tc_observed_value value = {};
    value.index = index;
    value.name = spec.name;
    value.op = spec.op;
    value.source = spec.source;
    value.fused = spec.fused;
    value.tensor.dtype = spec.dtype;
    value.tensor.rank = int32_t(shape.size());
    int rank = 0;
    for (int64_t dim : shape)
      value.tensor.shape[rank++] = dim;
    const int64_t bytes = tc_tensor_byte_size(&value.tensor);
    if (bytes < 0)
      return;
    try {
      context->observed.resize(size_t(bytes) + 1);
    } catch (...) {
      return; // no memory for the copy: this value is not observed
    }
    if (bytes > 0 &&
        !Derived::debug_copy(context, context->observed.data(), data, size_t(bytes), true))
      return;
    value.tensor.data = context->observed.data();
    context->observer(context->observer_user, &value);
  }

  /// --debug-perturb: the first element + 1 (16-bit floats: a sign flip, or 1 for 0).
  static void debug_perturb(Context *context, void *data, tc_dtype dtype, int64_t count) {
    unsigned char bytes[8] = {};
    tc_tensor one = {};
    one.dtype = dtype;
    const size_t size = size_t(tc_tensor_byte_size(&one));
    if (count < 1 || size > sizeof(bytes) || !Derived::debug_copy(context, bytes, data, size, true))
      return;
    switch (dtype) {
    case TC_DTYPE_F32: {
      float v;
      std::memcpy(&v, bytes, 4);
      v += 1.0f;
      std::memcpy(bytes, &v, 4);
      break;
    }
    case TC_DTYPE_F64: {
      double v;
      std::memcpy(&v, bytes, 8);
      v += 1.0;
      std::memcpy(bytes, &v, 8);
      break;
    }
    case TC_DTYPE_F16:
    case TC_DTYPE_BF16: {
      uint16_t v;
      std::memcpy(&v, bytes, 2);
      v = (v & 0x7fff) ? uint16_t(v ^ 0x8000) : uint16_t(dtype == TC_DTYPE_F16 ? 0x3c00 : 0x3f80);
      std::memcpy(bytes, &v, 2);
      break;
    }
    case TC_DTYPE_BOOL:
      bytes[0] = bytes[0] ? 0 : 1;
      break;
    default: // little-endian integers: + 1 (mod 256 in the low byte)
      bytes[0] = static_cast<unsigned char>(bytes[0] + 1);
      break;
    }
    Derived::debug_copy(context, data, bytes, size, false);
  }

protected:
  /// For load: weights.bin opened (`*weights`), checked to belong to this compile when the
  /// model asks, and every tensor of kWeights found with its name, dtype and shape
  /// (`params`, pointing into the mapping). On failure the caller closes `*weights`.
  static tc_status open_weights(const char *path, tc_weights **weights, tc_tensor *params,
                                tc_error *err) {
    tc_status status = tc_weights_open(path, weights, err);
    if (status == TC_OK && Derived::kCheckCompileId)
      status = tc_weights_check_compile_id(*weights, Derived::kCompileId, err);
    for (size_t i = 0; status == TC_OK && i < Derived::kNumWeights; ++i) {
      const WeightSpec &spec = Derived::kWeights[i];
      status = tc_weights_find_expected(*weights, spec.name, spec.dtype, spec.rank, spec.shape,
                                        &params[i], err);
    }
    return status;
  }

  /// "<name>_<entry>: null context" as TC_ERROR_INVALID_ARGUMENT.
  static tc_status null_context(tc_error *err, const char *entry) {
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "%s_%s: null context", Derived::kName,
                         entry);
  }
  /// "<name>_<entry>: null argument" as TC_ERROR_INVALID_ARGUMENT.
  static tc_status null_argument(tc_error *err, const char *entry) {
    return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, "%s_%s: null argument", Derived::kName,
                         entry);
  }
  /// "<name>_<entry>: out of memory" as TC_ERROR_OUT_OF_MEMORY.
  static tc_status out_of_memory(tc_error *err, const char *entry) {
    return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, "%s_%s: out of memory", Derived::kName,
                         entry);
  }
};

} // namespace tc
