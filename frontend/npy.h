// NumPy .npy reading and writing, for model inputs, outputs and reference tensors exchanged
// with Python. Only little-endian, C-order arrays of the dtypes thunderc handles are supported.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/status.h"

namespace thunderc::frontend {

/// An array as stored in an .npy file.
struct NpyArray {
  std::string descr;          ///< numpy dtype string: <f4 <f8 <f2 <i8 <i4 <i2 |i1 |u1 |b1 <u2
                              ///< (bfloat16 travels as <u2 bit patterns)
  std::vector<int64_t> shape; ///< empty for a 0-d array
  bool fortranOrder = false;  ///< always false: Fortran order is rejected
  std::vector<uint8_t> data;  ///< product(shape) * itemsize raw little-endian bytes
};

/// The size in bytes of one element of `descr`, or 0 if thunderc does not support it.
int64_t npyItemSize(std::string_view descr);

/// Parses an .npy file image (format 1.0, 2.0 or 3.0). The header dict's keys may come in any
/// order. Malformed headers and a data size other than product(shape) * itemsize are
/// ErrorKind::InvalidInput ("npy data is 12 bytes, expected 16 for shape (2, 2) <f4");
/// big-endian data, other dtypes and fortran_order True are ErrorKind::Unsupported.
/// A single-byte descr is returned as "|" + kind, as numpy writes it.
Expected<NpyArray> parseNpy(std::span<const uint8_t> bytes);

/// Reads and parses the .npy file at `path`; errors as MappedFile::open and parseNpy, and do
/// not name `path` (callers prepend it).
Expected<NpyArray> readNpy(const std::string &path);

/// The .npy file image of `array`, byte-identical to numpy.save's (numpy >= 1.22): format 1.0,
/// little-endian, C order, the header padded with spaces so the data starts at a multiple of
/// 64 bytes. An unsupported descr, Fortran order, or a data size that does not match the shape
/// is an error.
Expected<std::vector<uint8_t>> encodeNpy(const NpyArray &array);

/// Writes encodeNpy(array) to `path`; I/O failures are ErrorKind::Io ("cannot write file: ...").
Status writeNpy(const std::string &path, const NpyArray &array);

} // namespace thunderc::frontend
