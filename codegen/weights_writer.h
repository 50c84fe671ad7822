// Writes weights.bin (format in weights_format.h): used by the compiler to emit a bundle's
// weights and by tests to build valid and deliberately broken files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "thunderc_runtime.h"

namespace thunderc::codegen {

/// Collects tensors, then writes them as one weights.bin. The output is deterministic: its
/// bytes depend only on the tensors added and their order (which is the table's order), so
/// callers that add in graph or sorted order get byte-identical files.
class WeightsWriter {
public:
  /// Copies `byteSize` bytes from `data` as tensor `name`. Returns false, sets `*error` (when
  /// not null) and adds nothing if: the name is empty, contains a NUL or was added before; the
  /// dtype is invalid; the rank exceeds TC_MAX_RANK or a dim is negative; `byteSize` is not
  /// product(shape) * dtype size; `data` is null with a non-zero size; or the table would
  /// exceed the format's 4 GiB limit on entries plus names.
  bool add(const std::string &name, tc_dtype dtype, const std::vector<int64_t> &shape,
           const void *data, size_t byteSize, std::string *error = nullptr);

  /// add taking the bytes over (no copy): for tensors made for the file (a target's packed
  /// layout of a weight).
  bool addOwned(const std::string &name, tc_dtype dtype, const std::vector<int64_t> &shape,
                std::vector<uint8_t> bytes, std::string *error = nullptr);

  /// add without the copy: the writer keeps `data`, which must stay valid and unchanged until
  /// the writer is done writing (the compiler's weights live in the mapped archive or the
  /// graph for the whole compile, so the bundle's weights are read once, never copied).
  bool addBorrowed(const std::string &name, tc_dtype dtype, const std::vector<int64_t> &shape,
                   const void *data, size_t byteSize, std::string *error = nullptr);

  /// The number of tensors added so far.
  size_t size() const { return tensors_.size(); }

  /// A 64-bit FNV-1a digest of every tensor added so far: names, dtypes, shapes and the CRC-32
  /// of the bytes (a fingerprint of the weights, for the bundle's compile id).
  uint64_t digest() const;

  /// The complete file image.
  std::vector<uint8_t> encode() const;

  /// Writes the file image to `path`, streaming the tensors rather than building the image in
  /// memory. On failure returns false, sets `*error` ("out/weights.bin: cannot write file:
  /// No space left on device") and removes the partial file.
  bool write(const std::string &path, std::string *error = nullptr) const;

private:
  struct Tensor {
    std::string name;
    tc_dtype dtype;
    std::vector<int64_t> shape;
    std::vector<uint8_t> owned; ///< the copy made by add
    const uint8_t *borrowed;    ///< addBorrowed's bytes; null for a copy
    size_t byteSize;
    uint32_t crc32;
    const uint8_t *data() const { return borrowed != nullptr ? borrowed : owned.data(); }
  };

  bool addTensor(const std::string &name, tc_dtype dtype, const std::vector<int64_t> &shape,
                 const void *data, size_t byteSize, bool copy, std::string *error,
                 std::vector<uint8_t> *takeOver = nullptr);

  /// The header and table bytes, with every offset and checksum filled in.
  std::vector<uint8_t> encodeHeaderAndTable() const;

  std::vector<Tensor> tensors_;
  std::set<std::string> names_;
  uint64_t tableSize_ = 0; ///< entries plus name pool for the tensors added so far
};

} // namespace thunderc::codegen
