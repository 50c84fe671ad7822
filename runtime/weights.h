/* Loading weights.bin (format in weights_format.h): the file is memory-mapped read-only,
 * validated completely at open, and its tensors are then served as views into the mapping. */
#ifndef THUNDERC_RUNTIME_WEIGHTS_H
#define THUNDERC_RUNTIME_WEIGHTS_H

#include "thunderc_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded, validated weights file. Immutable after tc_weights_open, so one instance may be
 * shared by any number of threads until tc_weights_close. */
typedef struct tc_weights tc_weights;

/** Maps the weights file at `path` (POSIX mmap, read-only) and validates all of it before
 * returning: magic, version, header and table checksums, that the recorded file size matches
 * (so any truncation is caught), that the table, every name and every tensor lie inside the
 * file, tensor offsets are 64-byte aligned and in table order without overlap, padding is zero,
 * dtypes and ranks are valid, byte sizes equal product(shape) * dtype size, names are
 * non-empty, NUL-terminated and unique, and the CRC-32 of every tensor's bytes (this reads the
 * whole file once, about a second per few GB). On success sets `*out`; the caller releases it with
 * tc_weights_close. Failures leave `*out` NULL and return
 *   TC_ERROR_INVALID_ARGUMENT  a NULL path or out;
 *   TC_ERROR_IO                the file cannot be opened, is not a regular file, or mmap fails;
 *   TC_ERROR_CORRUPT_WEIGHTS   any validation failure, with a message naming the file and the
 *                              tensor ("w.bin: tensor 'fc1.weight': checksum mismatch (stored
 *                              0x1234abcd, computed 0x0badf00d)");
 *   TC_ERROR_OUT_OF_MEMORY     the index of the tensors cannot be allocated.
 * Never crashes on a malformed file. Truncating the file while it is mapped is not detectable
 * and makes later reads fault (SIGBUS), as for any mapped file. */
tc_status tc_weights_open(const char *path, tc_weights **out, tc_error *err);

/** Unmaps and frees `weights`; views obtained from it become dangling. NULL is ignored. */
void tc_weights_close(tc_weights *weights);

/** The number of tensors in the file (0 for a NULL `weights`). */
size_t tc_weights_count(const tc_weights *weights);

/** Fills `*out` with a view of the tensor named `name` (O(log count)). The view's data points
 * into the read-only mapping: it is 64-byte aligned and must not be written through; it is
 * NULL for a tensor with no elements. Returns TC_ERROR_INVALID_ARGUMENT for a NULL argument
 * and TC_ERROR_CORRUPT_WEIGHTS ("w.bin: no tensor named 'fc1.weight'") when the file has no
 * such tensor, i.e. it belongs to another model. */
tc_status tc_weights_find(const tc_weights *weights, const char *name, tc_tensor *out,
                          tc_error *err);

/** As tc_weights_find, then checks the tensor against what the generated code expects:
 * TC_ERROR_DTYPE_MISMATCH ("w.bin: tensor 'fc1.weight': dtype f16, expected f32") or
 * TC_ERROR_SHAPE_MISMATCH ("... shape [4, 8], expected [8, 4]"). `shape` holds `rank` dims and
 * may be NULL when rank is 0. `*out` is filled only on success. */
tc_status tc_weights_find_expected(const tc_weights *weights, const char *name, tc_dtype dtype,
                                   int32_t rank, const int64_t *shape, tc_tensor *out,
                                   tc_error *err);

/** The name of the tensor in which thunderc records the compile a weights file was written for:
 * u8 [16], the compile id as 16 hexadecimal digits. */
#define TC_COMPILE_ID_TENSOR "thunderc.compile_id"

/** TC_OK if `weights` was written by the compile whose id (16 hexadecimal digits) is
 * `compile_id`; else TC_ERROR_CORRUPT_WEIGHTS, with a message giving both ids (a weights.bin
 * of another compile: another model, other options or another thunderc) or saying that the
 * file carries none. */
tc_status tc_weights_check_compile_id(const tc_weights *weights, const char *compile_id,
                                      tc_error *err);

/** The `index`-th tensor in file order (0 .. count-1): sets `*name` (NUL-terminated, owned by
 * `weights`) and `*out`, as tc_weights_find does. TC_ERROR_INVALID_ARGUMENT for a NULL argument
 * or an index out of range. */
tc_status tc_weights_get(const tc_weights *weights, size_t index, const char **name,
                         tc_tensor *out, tc_error *err);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* THUNDERC_RUNTIME_WEIGHTS_H */
