// Contiguous strides and views of owned host tensors.
#include "ir/host_tensor.h"

#include <cstring>

namespace thunderc::ir {

std::vector<int64_t> contiguousStrides(const std::vector<int64_t> &shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i > 1; --i)
    strides[i - 2] = strides[i - 1] * shape[i - 1];
  return strides;
}

HostTensor contiguousCopy(const TensorView &view) {
  HostTensor tensor;
  tensor.dtype = view.dtype;
  tensor.shape = view.shape;
  int64_t itemSize = dtypeSize(view.dtype);
  int64_t count = tensor.numel();
  tensor.bytes.resize(static_cast<size_t>(count * itemSize));
  std::vector<int64_t> index(view.shape.size(), 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t offset = 0;
    for (size_t d = 0; d < index.size(); ++d)
      offset += index[d] * view.strides[d];
    std::memcpy(tensor.bytes.data() + linear * itemSize, view.data + offset * itemSize,
                static_cast<size_t>(itemSize));
    for (size_t d = index.size(); d-- > 0;) {
      if (++index[d] < view.shape[d])
        break;
      index[d] = 0;
    }
  }
  return tensor;
}

TensorView HostTensor::view() const {
  return TensorView{dtype, shape, contiguousStrides(shape), bytes.data()};
}

} // namespace thunderc::ir
