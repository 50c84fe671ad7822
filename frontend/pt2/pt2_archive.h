// A .pt2 archive written by torch.export.save (torch >= 2.9): its model JSON and its raw
// weight and constant files, validated and mapped in place (docs/PT2_FORMAT.md §1).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "frontend/pt2/weight_source.h"
#include "frontend/pt2/zip_reader.h"
#include "ir/host_tensor.h"
#include "ir/status.h"

namespace thunderc::frontend {

/// Where one weight or constant tensor lives in the archive (from a PayloadConfig entry).
struct TensorRecord {
  std::string member; ///< archive member holding the storage bytes
  ir::DType dtype = ir::DType::F32;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides; ///< elements
  int64_t storageOffset = 0;    ///< elements
};

/// An opened PT2 archive. Views returned by tensor() stay valid while the archive lives.
class Pt2Archive : public WeightSource {
public:
  /// Opens and validates the archive: zip structure, archive_format, the models/<name>.json
  /// member, and every PayloadConfig entry (dtype, sizes, strides, offset, and that the
  /// member holds every addressed element, with overflow-checked arithmetic). Older layouts
  /// (torch 2.8 pickled weights, <= 2.7 flat archives), TorchScript files and pickled tensor
  /// subclasses are ErrorKind::Unsupported with the supported versions named. Error messages
  /// name the archive member.
  static Expected<Pt2Archive> open(const std::string &path);

  /// The model name ("model") and the JSON member's full name ("tiny/models/model.json").
  const std::string &modelName() const { return modelName_; }
  const std::string &modelMember() const { return modelMember_; }
  /// The serialized ExportedProgram text.
  const std::string &modelJson() const { return modelJson_; }

  /// The validated tensor for a parameter / buffer / constant FQN; an error naming the FQN
  /// if the archive has none.
  Expected<ir::TensorView> tensor(const std::string &fqn) const override;
  const std::map<std::string, TensorRecord> &records() const { return records_; }

private:
  Status readPayloadConfig(const std::string &member, bool required);

  std::unique_ptr<ZipArchive> zip_;
  std::string topFolder_;
  std::string modelName_;
  std::string modelMember_;
  std::string modelJson_;
  std::map<std::string, TensorRecord> records_;
  /// Zero-filled storage for tensors whose file is empty (fake/meta tensors at export).
  std::vector<std::unique_ptr<std::vector<uint8_t>>> zeroStorage_;
  std::map<std::string, const uint8_t *> zeroData_;
};

} // namespace thunderc::frontend
