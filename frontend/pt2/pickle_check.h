// A bounded reader of the pickles inside a TorchScript file (data.pkl, constants.pkl,
// *.debug_pkl): it accepts exactly the protocol-2 opcodes libtorch's unpickler reads, checks
// every length against the bytes that are there, limits nesting, and evaluates the storage
// references and tensor rebuilds, so that a tensor can be checked against the archive record
// that holds its bytes before libtorch sees the file (docs/THREAT_MODEL.md).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ir/status.h"

namespace thunderc::frontend {

/// A persistent storage reference: ('storage', torch.<T>Storage, key, location, numel).
struct PickleStorage {
  std::string key;       ///< the record name under the pickle's folder ("0")
  std::string typeName;  ///< "FloatStorage"
  uint64_t itemSize = 0; ///< bytes per element of typeName
  int64_t numel = 0;
  size_t offset = 0; ///< where in the pickle the BINPERSID opcode is
};

/// What a pickle refers to.
struct PickleSummary {
  std::vector<PickleStorage> storages;
  size_t tensors = 0; ///< torch._utils._rebuild_tensor_v2 / _rebuild_qtensor calls
};

/// Nesting and size limits. Real modules stay far below them: nesting follows the module tree.
struct PickleLimits {
  size_t maxDepth = 1000;       ///< containers inside containers, and open MARKs
  size_t maxStringBytes = 1u << 30;
};

/// Reads `bytes` as libtorch's unpickler would, without building objects. `storageBytes` is
/// asked for the size of the record behind each storage key (or -1 when there is none); a
/// storage must hold numel elements, and a tensor must lie inside its storage. Errors are
/// ErrorKind::InvalidInput naming the byte offset: "opcode 0x41 at byte 12 is not one
/// libtorch reads", "a string of 4294967295 bytes at byte 3 runs past the end (14 bytes)",
/// "storage '0' (FloatStorage, 12 elements) needs 48 bytes, its record has 16".
Expected<PickleSummary> checkPickle(std::span<const uint8_t> bytes, const PickleLimits &limits,
                                    const std::function<int64_t(const std::string &)> &storageBytes);

} // namespace thunderc::frontend
