// TorchScript input through the importer plugin, which runs only in a confined child process
// (frontend/torchscript/sandbox.h): the file is checked first (torchscript/archive.h), then the child loads
// the plugin, locks itself down and imports the file's bytes, and hands back the program JSON
// and the frozen weights over a pipe in the frame below. thunderc itself never loads libtorch.
//
// The frame (native byte order; the child is a fork of this process):
//   "TCTS" u32 version | i32 errorCode | str error | str programJson | u64 weightCount |
//   per weight: str fqn, i32 dtype, u64 rank, i64 shape[rank], i64 strides[rank], u64 bytes,
//               zero padding to a multiple of 64 from the frame's start, the bytes |
//   "END!"
// where str is a u64 length and that many bytes.
#include "frontend/torchscript/importer.h"

#include <dlfcn.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>

#include <nlohmann/json.hpp>

#include "frontend/pt2/json_util.h"
#include "frontend/pt2/mapped_file.h"
#include "frontend/torchscript/sandbox.h"
#include "frontend/torchscript/archive.h"
#include "frontend/torchscript/plugin.h"
#include "frontend/pt2/zip_reader.h"

namespace thunderc::frontend {
namespace {

constexpr const char *kPluginFile = "libthunderc_torchscript.so";
constexpr uint32_t kFrameVersion = 1;
constexpr size_t kAlignment = 64;

// ---- the frame, written by the child ----

class FrameWriter {
public:
  explicit FrameWriter(int fd) : fd_(fd) {}
  bool raw(const void *data, size_t size) {
    written_ += size;
    return writeAll(fd_, data, size);
  }
  template <typename T> bool value(T x) { return raw(&x, sizeof(x)); }
  bool text(const std::string &s) { return value<uint64_t>(s.size()) && raw(s.data(), s.size()); }
  bool pad() {
    static const uint8_t zeros[kAlignment] = {};
    const size_t padding = (kAlignment - written_ % kAlignment) % kAlignment;
    return raw(zeros, padding);
  }

private:
  int fd_;
  size_t written_ = 0;
};

bool writeFrame(int fd, const TorchScriptResult &result) {
  FrameWriter out(fd);
  bool ok = out.raw("TCTS", 4) && out.value(kFrameVersion) && out.value<int32_t>(result.errorCode) &&
            out.text(result.error) && out.text(result.programJson) &&
            out.value<uint64_t>(result.weights.size());
  for (const TorchScriptTensor &weight : result.weights) {
    ok = ok && out.text(weight.fqn) && out.value<int32_t>(weight.serializedDtype) &&
         out.value<uint64_t>(weight.shape.size());
    for (int64_t size : weight.shape)
      ok = ok && out.value(size);
    for (size_t d = 0; d < weight.shape.size(); ++d)
      ok = ok && out.value<int64_t>(d < weight.strides.size() ? weight.strides[d] : 0);
    ok = ok && out.value<uint64_t>(weight.bytes) && out.pad() && out.raw(weight.data, weight.bytes);
  }
  return ok && out.raw("END!", 4);
}

void writeError(int fd, int code, const std::string &message) {
  TorchScriptResult result;
  result.errorCode = code;
  result.error = message;
  writeFrame(fd, result);
}

// The child: load the plugin, let libtorch initialize, lock down, import the bytes.
int importInChild(const std::filesystem::path &plugin, std::span<const uint8_t> file,
                  const std::string &specJson, int fd) {
  void *handle = dlopen(plugin.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    writeError(fd, 4, "the TorchScript importer " + plugin.string() + " does not load (" +
                          dlerror() + "); is the torch wheel it was built against still "
                          "installed?");
    return 0;
  }
  auto prepare =
      reinterpret_cast<TorchScriptPrepareFn>(dlsym(handle, THUNDERC_TORCHSCRIPT_PREPARE));
  auto entry = reinterpret_cast<TorchScriptImportFn>(dlsym(handle, THUNDERC_TORCHSCRIPT_ENTRY));
  if (prepare == nullptr || entry == nullptr) {
    writeError(fd, 4, "the TorchScript importer " + plugin.string() + " has no entry " +
                          THUNDERC_TORCHSCRIPT_ENTRY + " (from another thunderc version?)");
    return 0;
  }
  if (const char *failure = prepare()) {
    writeError(fd, 4, std::string("libtorch does not start: ") + failure);
    return 0;
  }
  if (Status locked = lockDownProcess(); !locked.ok()) {
    writeError(fd, 4, locked.error().message() + "; thunderc does not run a TorchScript "
                          "file's code unconfined");
    return 0;
  }
  std::unique_ptr<TorchScriptResult> result(entry(file.data(), file.size(), specJson.c_str()));
  return writeFrame(fd, *result) ? 0 : 3;
}

// ---- the frame, read by the parent ----

class FrameReader {
public:
  explicit FrameReader(const std::vector<uint8_t> &bytes) : bytes_(bytes) {}
  bool raw(void *out, size_t size) {
    if (size > bytes_.size() - pos_)
      return false;
    std::memcpy(out, bytes_.data() + pos_, size);
    pos_ += size;
    return true;
  }
  template <typename T> bool value(T &x) { return raw(&x, sizeof(x)); }
  bool text(std::string &s) {
    uint64_t size = 0;
    if (!value(size) || size > bytes_.size() - pos_)
      return false;
    s.assign(reinterpret_cast<const char *>(bytes_.data() + pos_), size);
    pos_ += size;
    return true;
  }
  /// Skips the padding and `size` bytes; where they start.
  bool block(uint64_t size, size_t &start) {
    pos_ += (kAlignment - pos_ % kAlignment) % kAlignment;
    if (pos_ > bytes_.size() || size > bytes_.size() - pos_)
      return false;
    start = pos_;
    pos_ += size;
    return true;
  }

private:
  const std::vector<uint8_t> &bytes_;
  size_t pos_ = 0;
};

struct ChildWeight {
  std::string fqn;
  int dtype = 0;
  std::vector<int64_t> shape, strides;
  size_t offset = 0;
};

// The weights the child sent; the views point into the frame this owns.
class ChildWeights : public WeightSource {
public:
  ChildWeights(std::vector<uint8_t> frame, std::vector<ChildWeight> weights)
      : frame_(std::move(frame)), weights_(std::move(weights)) {}

  Expected<ir::TensorView> tensor(const std::string &fqn) const override {
    for (const ChildWeight &weight : weights_) {
      if (weight.fqn != fqn)
        continue;
      TC_ASSIGN_OR_RETURN(ir::DType dtype, schemaDType(Json(weight.dtype)));
      return ir::TensorView{dtype, weight.shape, weight.strides, frame_.data() + weight.offset};
    }
    return invalidInput("the TorchScript module has no tensor '" + fqn + "'");
  }

private:
  std::vector<uint8_t> frame_;
  std::vector<ChildWeight> weights_;
};

struct ChildResult {
  int errorCode = 0;
  std::string error, programJson;
  std::unique_ptr<ChildWeights> weights;
};

// Reads the frame; nullopt when it is not one (the child died or was subverted).
std::optional<ChildResult> readFrame(std::vector<uint8_t> frame) {
  FrameReader in(frame);
  char magic[4];
  uint32_t version = 0;
  int32_t code = 0;
  uint64_t count = 0;
  ChildResult result;
  if (!in.raw(magic, 4) || std::memcmp(magic, "TCTS", 4) != 0 || !in.value(version) ||
      version != kFrameVersion || !in.value(code) || !in.text(result.error) ||
      !in.text(result.programJson) || !in.value(count) || count > frame.size())
    return std::nullopt;
  result.errorCode = code;
  std::vector<ChildWeight> weights;
  for (uint64_t i = 0; i < count; ++i) {
    ChildWeight weight;
    uint64_t rank = 0, bytes = 0;
    int32_t dtype = 0;
    if (!in.text(weight.fqn) || !in.value(dtype) || !in.value(rank) || rank > 64)
      return std::nullopt;
    weight.dtype = dtype;
    weight.shape.resize(rank);
    weight.strides.resize(rank);
    for (int64_t &size : weight.shape)
      if (!in.value(size) || size < 0)
        return std::nullopt;
    for (int64_t &stride : weight.strides)
      if (!in.value(stride))
        return std::nullopt;
    Expected<ir::DType> type = schemaDType(Json(dtype));
    if (!type.ok() || !in.value(bytes) || !in.block(bytes, weight.offset))
      return std::nullopt;
    // The bytes must be exactly the contiguous tensor's, with its strides: views into the
    // frame are read by stride.
    // An empty tensor has no bytes, and its strides are never used.
    const bool empty = std::find(weight.shape.begin(), weight.shape.end(), 0) != weight.shape.end();
    __int128 expected = empty ? 0 : ir::dtypeSize(*type);
    for (size_t d = weight.shape.size(); d-- > 0 && !empty;) {
      if (weight.shape[d] != 1 && weight.strides[d] != expected / ir::dtypeSize(*type))
        return std::nullopt;
      expected *= weight.shape[d];
      if (expected > static_cast<__int128>(bytes))
        return std::nullopt;
    }
    if (expected != static_cast<__int128>(bytes))
      return std::nullopt;
    weights.push_back(std::move(weight));
  }
  char end[4];
  if (!in.raw(end, 4) || std::memcmp(end, "END!", 4) != 0)
    return std::nullopt;
  result.weights = std::make_unique<ChildWeights>(std::move(frame), std::move(weights));
  return result;
}

// The plugin next to thunderc (build tree), or in ../lib/thunderc (installed);
// THUNDERC_TORCHSCRIPT_PLUGIN names another file.
std::vector<std::filesystem::path> pluginCandidates() {
  if (const char *path = std::getenv("THUNDERC_TORCHSCRIPT_PLUGIN"))
    return {path};
  std::error_code error;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error)
    return {};
  const std::filesystem::path dir = exe.parent_path();
  return {dir / kPluginFile, dir.parent_path() / "lib" / "thunderc" / kPluginFile,
          dir.parent_path() / "lib64" / "thunderc" / kPluginFile};
}

Expected<std::filesystem::path> findPlugin() {
  for (const std::filesystem::path &candidate : pluginCandidates()) {
    std::error_code error;
    if (std::filesystem::exists(candidate, error))
      return candidate;
  }
  return unsupported(std::string("TorchScript input needs thunderc's TorchScript importer (") +
                     kPluginFile + "), and this thunderc was built without it: rebuild with the "
                     "torch wheel installed (-DTHUNDERC_WITH_TORCHSCRIPT=ON), or export the model "
                     "with torch.export.export and torch.export.save and compile the .pt2");
}

// The child's limits: libtorch's own footprint plus a multiple of the file (weights are read,
// frozen and copied once or twice), capped by the machine's memory.
SandboxLimits importLimits(uint64_t fileBytes) {
  SandboxLimits limits;
  uint64_t memory = (uint64_t(6) << 30) + 6 * fileBytes;
  const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    memory = std::min<uint64_t>(memory, static_cast<uint64_t>(pages) *
                                            static_cast<uint64_t>(pageSize) +
                                            (uint64_t(4) << 30));
  limits.addressSpaceBytes = memory;
  // The weights come back once: the file's, plus constants freezing computed.
  limits.maxResultBytes = std::min<uint64_t>(memory, 2 * fileBytes + (uint64_t(2) << 30));
  return limits;
}

Error pluginError(int code, const std::string &message) {
  switch (code) {
  case 1:
    return Error(ErrorKind::Usage, message);
  case 2:
    return Error(ErrorKind::Io, message);
  case 4:
    return Error(ErrorKind::Unsupported, message);
  default:
    return Error(ErrorKind::InvalidInput, message);
  }
}

} // namespace

Expected<std::vector<InputShapeSpec>> parseInputShapes(const std::string &text) {
  std::vector<InputShapeSpec> specs;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = text.find(';', start);
    const std::string part = text.substr(start, end == std::string::npos ? end : end - start);
    auto bad = [&](const std::string &why) {
      return Error(ErrorKind::Usage, "--input-shape '" + part + "': " + why +
                                         " (expected [NAME:]DTYPE[D0,D1,...], e.g. "
                                         "x:float32[1,3,224,224]; several separated by ';')");
    };
    InputShapeSpec spec;
    const size_t open = part.find('[');
    if (open == std::string::npos || part.back() != ']')
      return bad("no [sizes]");
    std::string head = part.substr(0, open);
    if (const size_t colon = head.find(':'); colon != std::string::npos) {
      spec.name = head.substr(0, colon);
      head = head.substr(colon + 1);
    }
    if (!head.empty())
      spec.dtype = head;
    const std::string dims = part.substr(open + 1, part.size() - open - 2);
    size_t pos = 0;
    while (pos < dims.size()) {
      size_t comma = dims.find(',', pos);
      const std::string dim = dims.substr(pos, comma == std::string::npos ? comma : comma - pos);
      char *endptr = nullptr;
      errno = 0;
      const long long value = std::strtoll(dim.c_str(), &endptr, 10);
      if (dim.empty() || *endptr != '\0' || errno != 0 || value < 0 || value > (1LL << 31))
        return bad("size '" + dim + "' is not an integer in [0, 2^31]");
      spec.shape.push_back(value);
      if (comma == std::string::npos)
        break;
      pos = comma + 1;
    }
    specs.push_back(std::move(spec));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return specs;
}

bool isTorchScriptFile(const std::string &path) {
  Expected<ZipArchive> zip = ZipArchive::open(path);
  if (!zip.ok())
    return false;
  bool code = false, constants = false;
  for (const ZipEntry &entry : zip->entries()) {
    code = code || entry.name.find("/code/") != std::string::npos;
    constants = constants || entry.name.ends_with("/constants.pkl");
  }
  return code && constants;
}

Expected<ImportedModel> importTorchScript(const std::string &path,
                                          const std::vector<InputShapeSpec> &shapes) {
  TC_ASSIGN_OR_RETURN(ZipArchive zip, ZipArchive::open(path));
  TC_TRY(checkTorchScriptArchive(zip));
  TC_ASSIGN_OR_RETURN(std::filesystem::path plugin, findPlugin());
  TC_ASSIGN_OR_RETURN(MappedFile file, MappedFile::open(path));
  nlohmann::json specs = nlohmann::json::array();
  for (const InputShapeSpec &spec : shapes)
    specs.push_back({{"name", spec.name}, {"dtype", spec.dtype}, {"shape", spec.shape}});
  const std::string specJson = specs.dump();
  const std::span<const uint8_t> bytes(file.data(), file.size());
  const SandboxLimits limits = importLimits(file.size());
  TC_ASSIGN_OR_RETURN(SandboxOutcome outcome, runConfined(limits, [&](int fd) {
                        return importInChild(plugin, bytes, specJson, fd);
                      }));
  std::optional<ChildResult> result;
  if (outcome.exitCode == 0 && !outcome.timedOut && !outcome.resultTooLarge)
    result = readFrame(std::move(outcome.result));
  if (!result) {
    std::string message = "the TorchScript importer (libtorch, in a confined process) " +
                          outcome.describe();
    if (outcome.signal == SIGXCPU)
      message += " (" + std::to_string(limits.cpuSeconds) + " s)";
    if (outcome.timedOut)
      message += " (" + std::to_string(limits.wallSeconds) + " s)";
    if (!outcome.stderrTail.empty())
      message += " (" + outcome.stderrTail + ")";
    return invalidInput(message + " while reading the file: it is damaged, or not a "
                                  "TorchScript file libtorch can read");
  }
  if (result->errorCode != 0)
    return pluginError(result->errorCode, result->error);
  return importProgram(std::move(result->weights), result->programJson, "forward");
}

} // namespace thunderc::frontend
