// Contiguous strides and views of owned host tensors.
#include "ir/host_tensor.h"

namespace thunderc::ir {

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i > 1; --i)
    strides[i - 2] = strides[i - 1] * shape[i - 1];
  return strides;
}

TensorView HostTensor::view() const {
  return TensorView{dtype, shape, contiguousStrides(shape), bytes.data()};
}

} // namespace thunderc::ir
