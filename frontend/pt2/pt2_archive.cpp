// Opening a PT2 archive: layout detection, model JSON, PayloadConfig validation.
#include "frontend/pt2/pt2_archive.h"

#include "frontend/pt2/json_util.h"

namespace thunderc::frontend {
namespace {

constexpr int64_t kMaxRank = 16;

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool hasMemberEndingWith(const ZipArchive &zip, const std::string &suffix) {
  for (const ZipEntry &entry : zip.entries())
    if (endsWith(entry.name, suffix))
      return true;
  return false;
}

// Explains why an archive that is not a torch >= 2.9 PT2 archive cannot be read.
Error describeUnsupportedLayout(const ZipArchive &zip) {
  if (hasMemberEndingWith(zip, "serialized_exported_program.json"))
    return unsupported("legacy torch.export archive (torch <= 2.7); re-export with torch >= "
                       "2.9 (thunderc reads PT2 archives written by torch 2.9 to 2.14)");
  if (hasMemberEndingWith(zip, "data.pkl") || hasMemberEndingWith(zip, "constants.pkl"))
    return unsupported("this is a TorchScript or torch.save file, not a torch.export archive; "
                       "export the model with torch.export.export and torch.export.save");
  return invalidInput("not a PT2 archive (no archive_format member)");
}

// sizes/strides/storage_offset of a TensorMeta; weights must be static.
Expected<std::vector<int64_t>> staticInts(const Json &meta, const char *key) {
  TC_ASSIGN_OR_RETURN(const Json *list, jsonArray(meta, key));
  if (static_cast<int64_t>(list->size()) > kMaxRank)
    return invalidInput(std::string("'") + key + "' has rank " +
                        std::to_string(list->size()) + ", more than " +
                        std::to_string(kMaxRank));
  std::vector<int64_t> values;
  for (const Json &entry : *list) {
    TC_ASSIGN_OR_RETURN(JsonUnion symInt, jsonUnion(entry, key));
    if (symInt.kind != "as_int" || !symInt.payload->is_number_integer())
      return invalidInput(std::string("'") + key + "' entries must be static integers");
    values.push_back(symInt.payload->get<int64_t>());
  }
  return values;
}

// Bytes needed to hold every element the view addresses; error on negative values or
// overflow. 0 for an empty tensor.
Expected<uint64_t> requiredBytes(const TensorRecord &record) {
  if (record.storageOffset < 0)
    return invalidInput("negative storage_offset");
  unsigned __int128 lastElement = static_cast<uint64_t>(record.storageOffset);
  for (size_t i = 0; i < record.shape.size(); ++i) {
    if (record.shape[i] < 0)
      return invalidInput("negative size " + std::to_string(record.shape[i]));
    if (record.strides[i] < 0)
      return invalidInput("negative stride " + std::to_string(record.strides[i]));
    if (record.shape[i] == 0)
      return uint64_t{0};
    lastElement += static_cast<unsigned __int128>(record.shape[i] - 1) *
                   static_cast<uint64_t>(record.strides[i]);
    if (lastElement > (static_cast<unsigned __int128>(1) << 62))
      return invalidInput("size or stride arithmetic overflows");
  }
  unsigned __int128 bytes = (lastElement + 1) * static_cast<uint64_t>(
                                                    ir::dtypeSize(record.dtype));
  if (bytes > (static_cast<unsigned __int128>(1) << 62))
    return invalidInput("size or stride arithmetic overflows");
  return static_cast<uint64_t>(bytes);
}

Expected<TensorRecord> parsePayloadMeta(const Json &meta, const std::string &folder) {
  TC_ASSIGN_OR_RETURN(std::string pathName, jsonString(meta, "path_name"));
  if (pathName.empty() || pathName.find('/') != std::string::npos ||
      pathName.find("..") != std::string::npos)
    return invalidInput("bad path_name '" + pathName + "'");
  if (const Json *usePickle = jsonFind(meta, "use_pickle")) {
    if (!usePickle->is_boolean())
      return invalidInput("field 'use_pickle' is not a boolean");
    if (usePickle->get<bool>())
      return unsupported(
          "pickled tensor (a tensor subclass such as torchao's quantized weights; thunderc never "
          "unpickles): export at core ATen (ep.run_decompositions()), which leaves plain tensors "
          "and core ops");
  }
  TC_ASSIGN_OR_RETURN(const Json *tensorMeta, jsonObject(meta, "tensor_meta"));
  TC_ASSIGN_OR_RETURN(const Json *dtypeField, jsonField(*tensorMeta, "dtype"));
  TC_TRY(checkLayoutAndDevice(*tensorMeta));
  TensorRecord record;
  record.member = folder + pathName;
  TC_ASSIGN_OR_RETURN(record.dtype, schemaDType(*dtypeField));
  TC_ASSIGN_OR_RETURN(record.shape, staticInts(*tensorMeta, "sizes"));
  TC_ASSIGN_OR_RETURN(record.strides, staticInts(*tensorMeta, "strides"));
  if (record.strides.size() != record.shape.size())
    return invalidInput("sizes and strides have different lengths");
  TC_ASSIGN_OR_RETURN(const Json *offset, jsonField(*tensorMeta, "storage_offset"));
  TC_ASSIGN_OR_RETURN(JsonUnion offsetUnion, jsonUnion(*offset, "storage_offset"));
  if (offsetUnion.kind != "as_int" || !offsetUnion.payload->is_number_integer())
    return invalidInput("storage_offset must be a static integer");
  record.storageOffset = offsetUnion.payload->get<int64_t>();
  return record;
}

} // namespace

Expected<Pt2Archive> Pt2Archive::open(const std::string &path) {
  Pt2Archive archive;
  TC_ASSIGN_OR_RETURN(ZipArchive zip, ZipArchive::open(path));
  archive.zip_ = std::make_unique<ZipArchive>(std::move(zip));
  const ZipArchive &files = *archive.zip_;
  archive.topFolder_ = files.topFolder();
  std::string prefix = archive.topFolder_.empty() ? "" : archive.topFolder_ + "/";

  const ZipEntry *format = files.find(prefix + "archive_format");
  if (format == nullptr)
    return describeUnsupportedLayout(files);
  TC_ASSIGN_OR_RETURN(std::string formatText,
                      files.readText(format->name, /*verifyCrc=*/true));
  if (formatText.rfind("pt2", 0) != 0)
    return invalidInput(format->name + ": unknown archive format '" + formatText + "'");
  // torch.export.save writes every member under one folder.
  for (const ZipEntry &entry : files.entries())
    if (entry.name.rfind(prefix, 0) != 0)
      return invalidInput("member '" + entry.name + "' lies outside the archive's folder '" +
                          prefix + "'");
  // Tensors are stored in the writer's byte order; thunderc reads little-endian ones.
  if (const ZipEntry *order = files.find(prefix + "byteorder")) {
    TC_ASSIGN_OR_RETURN(std::string orderText, files.readText(order->name, true));
    if (orderText != "little")
      return unsupported(order->name + ": tensors are stored in byte order '" + orderText +
                         "'; thunderc reads archives written on little-endian machines");
  }

  // torch.export.save always names the model "model"; accept any single model.
  for (const ZipEntry &entry : files.entries()) {
    std::string modelsFolder = prefix + "models/";
    if (entry.name.rfind(modelsFolder, 0) != 0 || !endsWith(entry.name, ".json"))
      continue;
    if (!archive.modelMember_.empty())
      return unsupported("archive holds several models; thunderc compiles one per archive");
    archive.modelMember_ = entry.name;
    archive.modelName_ = entry.name.substr(modelsFolder.size(),
                                           entry.name.size() - modelsFolder.size() - 5);
  }
  if (archive.modelMember_.empty()) {
    if (hasMemberEndingWith(files, "data/aotinductor"))
      return unsupported("AOTInductor package; thunderc reads torch.export.save archives");
    return invalidInput("missing archive member '" + prefix + "models/<name>.json'");
  }
  TC_ASSIGN_OR_RETURN(archive.modelJson_, files.readText(archive.modelMember_, true));

  std::string weightsConfig =
      prefix + "data/weights/" + archive.modelName_ + "_weights_config.json";
  if (files.find(weightsConfig) == nullptr &&
      files.find(prefix + "data/weights/" + archive.modelName_ + ".pt") != nullptr)
    return unsupported("torch 2.8 archive with pickled weights; re-export with torch >= 2.9 "
                       "(thunderc reads PT2 archives written by torch 2.9 to 2.14)");
  TC_TRY(archive.readPayloadConfig(weightsConfig, /*required=*/false));
  TC_TRY(archive.readPayloadConfig(
      prefix + "data/constants/" + archive.modelName_ + "_constants_config.json",
      /*required=*/false));
  return archive;
}

Status Pt2Archive::readPayloadConfig(const std::string &member, bool required) {
  const ZipEntry *entry = zip_->find(member);
  if (entry == nullptr) {
    if (required)
      return invalidInput("missing archive member '" + member + "'");
    return Status::success();
  }
  TC_ASSIGN_OR_RETURN(std::string text, zip_->readText(member, /*verifyCrc=*/true));
  Expected<Json> parsed = parseJson(text);
  if (!parsed.ok())
    return std::move(parsed).error().withContext(member);
  Expected<const Json *> config = jsonObject(*parsed, "config");
  if (!config.ok())
    return std::move(config).error().withContext(member);
  std::string folder = member.substr(0, member.rfind('/') + 1);
  for (auto it = (*config)->begin(); it != (*config)->end(); ++it) {
    std::string context = member + ": '" + it.key() + "'";
    Expected<TensorRecord> record = parsePayloadMeta(it.value(), folder);
    if (!record.ok())
      return std::move(record).error().withContext(context);
    const ZipEntry *storage = zip_->find(record->member);
    if (storage == nullptr)
      return invalidInput(context + ": missing archive member '" + record->member + "'");
    Expected<uint64_t> needed = requiredBytes(*record);
    if (!needed.ok())
      return std::move(needed).error().withContext(context);
    if (storage->size == 0) {
      // torch writes an empty file for fake/meta tensors; the loader makes zeros.
      zeroStorage_.push_back(std::make_unique<std::vector<uint8_t>>(*needed, 0));
      zeroData_[it.key()] = zeroStorage_.back()->data();
    } else if (storage->size < *needed) {
      return invalidInput(context + ": member '" + record->member + "' holds " +
                          std::to_string(storage->size) + " bytes, the tensor view needs " +
                          std::to_string(*needed));
    }
    records_[it.key()] = std::move(*record);
  }
  return Status::success();
}

Expected<ir::TensorView> Pt2Archive::tensor(const std::string &fqn) const {
  auto it = records_.find(fqn);
  if (it == records_.end())
    return invalidInput("no weight or constant named '" + fqn + "' in the archive");
  const TensorRecord &record = it->second;
  const uint8_t *base = nullptr;
  auto zero = zeroData_.find(fqn);
  if (zero != zeroData_.end()) {
    base = zero->second;
  } else {
    TC_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, zip_->read(*zip_->find(record.member)));
    base = bytes.data();
  }
  ir::TensorView view;
  view.dtype = record.dtype;
  view.shape = record.shape;
  view.strides = record.strides;
  view.data = base + record.storageOffset * ir::dtypeSize(record.dtype);
  return view;
}

} // namespace thunderc::frontend
