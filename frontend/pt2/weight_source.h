// Where an imported program's weights live: a .pt2 archive's mapped members, or the frozen
// tensors the TorchScript importer plugin holds.
#pragma once

#include <string>

#include "ir/host_tensor.h"
#include "ir/status.h"

namespace thunderc::frontend {

class WeightSource {
public:
  virtual ~WeightSource() = default;
  /// The tensor of a parameter / buffer / constant FQN; an error naming the FQN if there is
  /// none. Views stay valid while the source lives.
  virtual Expected<ir::TensorView> tensor(const std::string &fqn) const = 0;
};

} // namespace thunderc::frontend
