/* The C ABI shared by every thunderc bundle: status codes, the per-call error record, dtypes
 * and tensor descriptors. Plain C99/C++17 so a bundle's users can call it from either; every
 * generated <name>.h includes this file. */
#ifndef THUNDERC_RUNTIME_H
#define THUNDERC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define TC_PRINTF_FORMAT(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define TC_PRINTF_FORMAT(fmt, args)
#endif

/** What a runtime call returns. TC_OK is 0; every other value is a failure whose details are
 * in the call's tc_error. Values are stable across releases (they may be stored or logged). */
typedef enum tc_status {
  TC_OK = 0,
  TC_ERROR_INVALID_ARGUMENT, /**< a null pointer, bad rank, wrong input count, bad .npy file */
  TC_ERROR_IO,               /**< a file could not be opened, read, mapped or written */
  TC_ERROR_CORRUPT_WEIGHTS,  /**< weights.bin is truncated, malformed or fails a checksum */
  TC_ERROR_SHAPE_MISMATCH,   /**< a tensor's shape differs from the one the model expects */
  TC_ERROR_DTYPE_MISMATCH,   /**< a tensor's dtype differs from the one the model expects */
  TC_ERROR_OUT_OF_RANGE,     /**< a symbolic dim lies outside its exported range */
  TC_ERROR_OUT_OF_MEMORY,    /**< an allocation failed */
  TC_ERROR_INTERNAL,         /**< a bug in thunderc or the runtime; please report it */
  TC_ERROR_DEVICE,           /**< a CUDA or cuBLAS call failed, or the GPU is not one the bundle
                                  was built for (the message names the call, file and line) */
  TC_STATUS_MAX_ENUM = 0x7FFFFFFF /**< not a status: makes every int32 >= 0 a valid value */
} tc_status;

/** The enumerator's spelling ("TC_OK", "TC_ERROR_IO", ...); "TC_UNKNOWN_STATUS" for a value
 * outside the enum. Never null; the string is static. */
const char *tc_status_name(tc_status status);

/** How a call reports failure details. Every runtime call takes a `tc_error *err` as its last
 * parameter, which may be NULL when the caller only wants the returned status. When it is not
 * NULL the call always fills it: status equals the returned status and message is "" on success
 * or a lower-case, NUL-terminated description with context on failure
 * ("weights.bin: tensor 'fc1.weight': checksum mismatch (stored 0x1, computed 0x2)"). Messages
 * longer than the buffer are truncated. The record belongs to the caller, so concurrent calls on
 * different threads never share error state. */
#define TC_ERROR_MESSAGE_SIZE 512
typedef struct tc_error {
  tc_status status;
  char message[TC_ERROR_MESSAGE_SIZE];
} tc_error;

/** Sets `*err` to TC_OK with an empty message. A NULL `err` is ignored. */
void tc_error_clear(tc_error *err);

/** Sets `*err` to `status` with a printf-formatted message (truncated to fit) and returns
 * `status`, so that failures read `return tc_error_setf(err, TC_ERROR_IO, "...", ...);`.
 * A NULL `err` is ignored; the status is still returned. */
tc_status tc_error_setf(tc_error *err, tc_status status, const char *format, ...)
    TC_PRINTF_FORMAT(3, 4);

/** Prepends a printf-formatted context ("model.run: ") to err->message, truncating the end if
 * the result does not fit. The status is unchanged. A NULL `err` is ignored. */
void tc_error_prefixf(tc_error *err, const char *format, ...) TC_PRINTF_FORMAT(2, 3);

/** Element types. The numeric values are stored in weights.bin and match the compiler's
 * ir::DType order, so they never change; new types are appended. Like tc_status, the enum
 * ends in a sentinel so that C++ code may hold and check any 32-bit value a C caller passes
 * without undefined behaviour; switches over it need a default label. */
typedef enum tc_dtype {
  TC_DTYPE_BOOL = 0,
  TC_DTYPE_U8,
  TC_DTYPE_I8,
  TC_DTYPE_I16,
  TC_DTYPE_I32,
  TC_DTYPE_I64,
  TC_DTYPE_F16,
  TC_DTYPE_BF16,
  TC_DTYPE_F32,
  TC_DTYPE_F64,
  TC_DTYPE_MAX_ENUM = 0x7FFFFFFF /**< not a dtype */
} tc_dtype;

/** The number of tc_dtype values; valid dtypes are 0 .. TC_DTYPE_COUNT - 1. */
#define TC_DTYPE_COUNT 10

/** Bytes per element (bool is 1 byte); 0 for a value that is not a valid tc_dtype. */
size_t tc_dtype_size(tc_dtype dtype);

/** The compiler's short name: "bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32",
 * "f64"; "invalid" for a value that is not a valid tc_dtype. Never null. */
const char *tc_dtype_name(tc_dtype dtype);

/** Maximum tensor rank the ABI carries. */
#define TC_MAX_RANK 8

/** A dense, contiguous, row-major tensor the caller owns: element [i0, ..., iR-1] lies at
 * data + dtype_size * (((i0 * shape[1] + i1) * shape[2] + ...) ). Only shape[0 .. rank-1] is
 * meaningful; rank 0 is a scalar with one element. A tensor with a zero dim has no elements and
 * its data may be NULL. */
typedef struct tc_tensor {
  void *data;
  tc_dtype dtype;
  int32_t rank;
  int64_t shape[TC_MAX_RANK];
} tc_tensor;

/** The number of elements of `tensor` (1 for rank 0), or -1 if `tensor` is NULL, its rank is
 * outside 0 .. TC_MAX_RANK, a dim is negative, or the product overflows int64_t. */
int64_t tc_tensor_numel(const tc_tensor *tensor);

/** numel * dtype size, or -1 in the cases tc_tensor_numel reports and when the dtype is invalid
 * or the byte count overflows int64_t. */
int64_t tc_tensor_byte_size(const tc_tensor *tensor);

/** One value a run has just computed, as a context's observer sees it (<name>_context_set_observer):
 * every result a kernel or library call writes to memory, in execution order. Values that live
 * only inside a fused kernel, and views of other values, are not observed. */
typedef struct tc_observed_value {
  int index;          /**< its position among the model's observable values (execution order) */
  const char *name;   /**< the graph value: the exported program's FX node that produced it */
  const char *op;     /**< the exported op that computed it ("aten.addmm.default") */
  const char *source; /**< "file:line: code" of the Python line that produced it, or "" */
  int fused;          /**< 1 when computed by a fused kernel, together with other ops */
  tc_tensor tensor;   /**< a host copy, dense row-major; valid only during the call */
} tc_observed_value;

/** Called by a run after each observable value; must not call into the model. */
typedef void (*tc_observer)(void *user, const tc_observed_value *value);

/** A CUDA bundle context's CUDA-graph counters (<name>_context_cuda_graph_stats). */
typedef struct tc_cuda_graph_stats {
  int64_t captures;  /**< runs captured into a new graph (and then launched) */
  int64_t replays;   /**< runs that launched a graph captured before */
  int64_t evictions; /**< graphs dropped to stay within the capacity (least recently used) */
  int32_t cached;    /**< graphs held now */
  int32_t capacity;  /**< the most it holds; 0: runs are not captured */
} tc_cuda_graph_stats;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* THUNDERC_RUNTIME_H */
