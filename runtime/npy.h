/* Minimal NumPy .npy reading and writing for a bundle's runner executable, which takes its
 * inputs and writes its outputs as .npy files. Little-endian, C-order arrays of the tc_dtype
 * element types only; bfloat16 travels as "<u2" bit patterns, as NumPy has no bfloat16. */
#ifndef THUNDERC_RUNTIME_NPY_H
#define THUNDERC_RUNTIME_NPY_H

#include "thunderc_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The NumPy descr of `dtype` as tc_npy_write writes it: "|b1" "|u1" "|i1" "<i2" "<i4" "<i8"
 * "<f2" "<u2" (bf16) "<f4" "<f8"; NULL for an invalid dtype. */
const char *tc_npy_descr(tc_dtype dtype);

/** Parses an in-memory .npy image (format 1.0, 2.0 or 3.0; header keys in any order). On
 * success `*out` holds the dtype, shape and a freshly allocated, 64-byte-aligned copy of the
 * data (never NULL, even for an empty array) that the caller frees with tc_npy_free. "<u2" is
 * read as TC_DTYPE_BF16; "=" is accepted as little-endian. Failures leave `*out` zeroed and
 * return TC_ERROR_INVALID_ARGUMENT for a NULL argument, a bad magic or version, a malformed or
 * truncated header ("malformed npy header (expected ':' after 'descr')"), an unsupported or
 * big-endian descr, Fortran order, rank above TC_MAX_RANK, or a data size other than
 * product(shape) * itemsize; TC_ERROR_OUT_OF_MEMORY if the copy cannot be allocated. */
tc_status tc_npy_parse(const void *bytes, size_t size, tc_tensor *out, tc_error *err);

/** Reads and parses the .npy file at `path`: as tc_npy_parse, with messages prefixed by the
 * path, plus TC_ERROR_IO when the file cannot be opened or read or is not a regular file. */
tc_status tc_npy_read(const char *path, tc_tensor *out, tc_error *err);

/** Writes `tensor` to `path` as numpy.save would (format 1.0, C order, the header padded so
 * the data starts at a multiple of 64 bytes; byte-identical to numpy >= 1.22). Returns
 * TC_ERROR_INVALID_ARGUMENT for a NULL argument, an invalid dtype, rank or shape, or NULL data
 * with a non-zero size, and TC_ERROR_IO ("out.npy: cannot write file: ...") on I/O failure,
 * after removing the partial file. */
tc_status tc_npy_write(const char *path, const tc_tensor *tensor, tc_error *err);

/** Frees data that tc_npy_parse or tc_npy_read allocated and sets tensor->data to NULL.
 * A NULL tensor or data is ignored. Do not use on other tensors. */
void tc_npy_free(tc_tensor *tensor);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* THUNDERC_RUNTIME_NPY_H */
