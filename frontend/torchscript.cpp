// TorchScript input through the importer plugin: finding and loading it (dlopen), the
// --input-shape grammar, and the plugin's weights as a WeightSource.
#include "frontend/torchscript.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "frontend/json_util.h"
#include "frontend/torchscript_plugin.h"
#include "frontend/zip_reader.h"

namespace thunderc::frontend {
namespace {

constexpr const char *kPluginFile = "libthunderc_torchscript.so";

// The plugin's frozen tensors; deleting the result (plugin code) frees them.
class PluginWeights : public WeightSource {
public:
  explicit PluginWeights(TorchScriptResult *result) : result_(result) {}
  ~PluginWeights() override { delete result_; }
  PluginWeights(const PluginWeights &) = delete;
  PluginWeights &operator=(const PluginWeights &) = delete;

  Expected<ir::TensorView> tensor(const std::string &fqn) const override {
    for (const TorchScriptTensor &weight : result_->weights) {
      if (weight.fqn != fqn)
        continue;
      TC_ASSIGN_OR_RETURN(ir::DType dtype, schemaDType(Json(weight.serializedDtype)));
      return ir::TensorView{dtype, weight.shape, weight.strides,
                            static_cast<const uint8_t *>(weight.data)};
    }
    return invalidInput("the TorchScript module has no tensor '" + fqn + "'");
  }

private:
  TorchScriptResult *result_;
};

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

Expected<TorchScriptImportFn> loadPlugin() {
  static std::mutex mutex;
  static TorchScriptImportFn entry = nullptr;
  std::lock_guard<std::mutex> lock(mutex);
  if (entry != nullptr)
    return entry;
  for (const std::filesystem::path &candidate : pluginCandidates()) {
    std::error_code error;
    if (!std::filesystem::exists(candidate, error))
      continue;
    // Never closed: the weights' destructors are the plugin's code.
    void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
      return unsupported(std::string("the TorchScript importer ") + candidate.string() +
                         " does not load (" + dlerror() +
                         "); is the torch wheel it was built against still installed?");
    entry = reinterpret_cast<TorchScriptImportFn>(dlsym(handle, THUNDERC_TORCHSCRIPT_ENTRY));
    if (entry == nullptr)
      return unsupported("the TorchScript importer " + candidate.string() + " has no entry " +
                         THUNDERC_TORCHSCRIPT_ENTRY + " (from another thunderc version?)");
    return entry;
  }
  return unsupported(std::string("TorchScript input needs thunderc's TorchScript importer (") +
                     kPluginFile + "), and this thunderc was built without it: rebuild with the "
                     "torch wheel installed (-DTHUNDERC_WITH_TORCHSCRIPT=ON), or export the model "
                     "with torch.export.export and torch.export.save and compile the .pt2");
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
  TC_ASSIGN_OR_RETURN(TorchScriptImportFn entry, loadPlugin());
  nlohmann::json specs = nlohmann::json::array();
  for (const InputShapeSpec &spec : shapes)
    specs.push_back({{"name", spec.name}, {"dtype", spec.dtype}, {"shape", spec.shape}});
  std::unique_ptr<TorchScriptResult> result(entry(path.c_str(), specs.dump().c_str()));
  if (result->errorCode != 0)
    return pluginError(result->errorCode, result->error);
  const std::string programJson = std::move(result->programJson);
  return importProgram(std::make_unique<PluginWeights>(result.release()), programJson,
                       "forward");
}

} // namespace thunderc::frontend
