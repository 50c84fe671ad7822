// Host tensors handed to and returned by the reference interpreter: a borrowed strided view
// (weights inside an mmapped archive, user inputs) and an owned contiguous tensor (results).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/dtype.h"

namespace thunderc::ir {

/// A borrowed, possibly non-contiguous view. `data` points at element [0, ..., 0] (any
/// storage offset already applied); strides count elements, not bytes. The caller has
/// checked that every addressed element lies inside its buffer.
struct TensorView {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  const uint8_t *data = nullptr;
};

/// An owned, contiguous, row-major tensor. bf16/f16 are stored as their 16-bit patterns.
struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t numel() const {
    int64_t count = 1;
    for (int64_t dim : shape)
      count *= dim;
    return count;
  }
  TensorView view() const;
};

/// A contiguous row-major copy of a (possibly strided) view.
HostTensor contiguousCopy(const TensorView &view);

/// Contiguous row-major strides for `shape`.
std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape);

} // namespace thunderc::ir
