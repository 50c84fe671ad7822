// The bundle writer: collects every file of out/ in memory, then writes them to a temporary
// folder and swaps it in, so a failure never leaves a partial out/.
#include "codegen/triton_model.h"
#include "codegen/bundle.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include "codegen/embedded_files.h"
#include "codegen/model_emitter.h"
#include "codegen/output_folder.h"
#include "codegen/parallel_work.h"
#include "codegen/template.h"
#include "codegen/weights_writer.h"
#include "ir/printer.h"
#include "weights.h"

namespace thunderc::codegen {
namespace fs = std::filesystem;
namespace {

/// The writer of weights.bin. Contiguous weights are borrowed, not copied: they live in the
/// mapped archive or the graph's folded constants until the bundle is written, so the file is
/// streamed from them; only strided views are copied into contiguous order, and the weights
/// the target stores in its own layout (`stored`) are written in it.
Expected<WeightsWriter> weightsFile(const ir::Graph &graph, const WeightSource &weights,
                                    const std::map<std::string, StoredWeight> &stored) {
  struct Entry {
    std::string name;
    ir::TensorView view;
    const StoredWeight *layout; ///< the target's layout, or null for row-major
    std::vector<uint8_t> packed;
  };
  std::vector<Entry> entries;
  std::set<std::string> seen;
  for (const auto &input : graph.inputs()) {
    if (input->inputKind() == ir::InputKind::User || seen.count(input->weightName()))
      continue;
    const ir::HostTensor *folded = graph.constantData(input->weightName());
    Expected<ir::TensorView> fetched =
        folded ? Expected<ir::TensorView>(folded->view()) : weights(*input);
    TC_ASSIGN_OR_RETURN(ir::TensorView view, std::move(fetched));
    auto own = stored.find(input->weightName());
    entries.push_back({input->weightName(), view, own != stored.end() ? &own->second : nullptr,
                       {}});
    seen.insert(input->weightName());
  }
  // The target's layouts are computed on every core (independent weights; the file's order
  // and bytes do not depend on the schedule).
  std::vector<size_t> toPack;
  for (size_t i = 0; i < entries.size(); ++i)
    if (entries[i].layout != nullptr)
      toPack.push_back(i);
  forEachOnCores(toPack.size(), [&](size_t i) {
    Entry &entry = entries[toPack[i]];
    entry.packed = entry.layout->pack(entry.view);
  });

  WeightsWriter writer;
  for (Entry &entry : entries) {
    const ir::TensorView &view = entry.view;
    int64_t count = 1;
    for (int64_t dim : view.shape)
      count *= dim;
    const size_t byteSize = static_cast<size_t>(count) * ir::dtypeSize(view.dtype);
    std::string error;
    bool added = false;
    if (entry.layout != nullptr) {
      added = writer.addOwned(entry.name, static_cast<tc_dtype>(entry.layout->dtype),
                              entry.layout->shape, std::move(entry.packed), &error);
    } else if (count == 0 || view.strides == ir::contiguousStrides(view.shape)) {
      added = writer.addBorrowed(entry.name, static_cast<tc_dtype>(view.dtype), view.shape,
                                 view.data, byteSize, &error);
    } else {
      std::vector<uint8_t> bytes = ir::contiguousCopy(view).bytes;
      added = writer.add(entry.name, static_cast<tc_dtype>(view.dtype), view.shape,
                         bytes.data(), bytes.size(), &error);
    }
    if (!added)
      return invalidInput("weight '" + entry.name + "': " + error);
  }
  return writer;
}

/// 16 hexadecimal digits naming this compile: a 64-bit FNV-1a of thunderc's version, the
/// bundle's name and target options, the optimized graph as text and the weights' digest. The
/// generated code and weights.bin both carry it, so a weights.bin of another compile (another
/// model, other options, another thunderc) is refused at load instead of silently misread.
std::string compileIdOf(const ir::Graph &graph, const WeightsWriter &weights,
                        const BundleOptions &options, const TargetBackend &backend) {
  uint64_t hash = 14695981039346656037ull;
  auto mix = [&hash](std::string_view text) {
    for (unsigned char c : text)
      hash = (hash ^ c) * 1099511628211ull;
    hash = (hash ^ 0xFFu) * 1099511628211ull; // field separator
  };
  mix(options.thundercVersion);
  mix(options.name);
  mix(backend.target() == Target::Cuda ? "cuda" : "cpu");
  mix(options.allowTf32 ? "tf32" : "");
  if (!options.debugPerturb.empty())
    mix("perturb " + options.debugPerturb);
  mix(options.cudaEmulation ? "emulation" : "");
  mix(options.cudaArchitectures);
  mix(ir::printGraph(graph));
  const uint64_t digest = weights.digest();
  mix(std::string_view(reinterpret_cast<const char *>(&digest), sizeof digest));
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

/// Which thunderc compiled what: a bundle can be traced back to its program (the compile id
/// fingerprints the graph, the weights and the options, not the archive's bytes, so a
/// re-zipped archive gives the same bundle).
std::string provenance(const BundleOptions &options, const std::string &compileId) {
  std::string text = "\n## Provenance\n\n- compiled by thunderc " +
                     (options.thundercVersion.empty() ? std::string("(unknown)")
                                                      : options.thundercVersion) +
                     " from `" + options.sourceName + "`\n";
  if (!options.torchVersion.empty())
    text += "- exported by torch " + options.torchVersion +
            (options.irLevel.empty() ? "" : " (" + options.irLevel + " IR)") + "\n";
  if (!compileId.empty())
    text += "- compile id `" + compileId + "` (also in `weights.bin`: `" + options.name +
            "_load` refuses the weights of another compile)\n";
  return text;
}

std::string readme(const ir::Graph &graph, const BundleOptions &options, bool hasGolden,
                   const std::string &compileId) {
  std::string inputs, outputs;
  for (const auto &input : graph.inputs())
    if (input->inputKind() == ir::InputKind::User)
      inputs += "- `" + input->name() + "`: " + input->type().str() + "\n";
  for (size_t i = 0; i < graph.numUserOutputs(); ++i)
    outputs += "- output " + std::to_string(i) + ": " + graph.outputs()[i]->type().str() + "\n";
  std::string symbols;
  for (const auto &[symbol, range] : graph.symbols())
    symbols += "- `" + symbol + "` in [" + std::to_string(range.min) + ", " +
               (range.max ? std::to_string(*range.max) : "inf") + "]\n";
  return renderEmbeddedTemplate(
      "codegen/templates/README.md.in",
      {{"NAME", options.name},
       {"SOURCE", options.sourceName},
       {"GOLDEN_COMMAND",
        hasGolden ? "ctest --test-dir build                         # golden test vs PyTorch\n"
                  : ""},
       {"INPUTS", inputs},
       {"OUTPUTS", outputs},
       {"SYMBOLS", symbols.empty() ? "" : "\n## Dynamic dims\n\n" + symbols},
       {"GOLDEN_FILES",
        hasGolden ? "- `golden/`: sample inputs and PyTorch outputs for the golden test\n" : ""},
       {"PROVENANCE", provenance(options, compileId)}});
}

Status copyGolden(const std::string &goldenDir, std::map<std::string, std::string> &files,
                  size_t numInputs, size_t numOutputs) {
  auto copy = [&](const std::string &folder, const std::string &stem, size_t count,
                  bool required) -> Status {
    for (size_t i = 0; i < count; ++i) {
      std::string relative = folder + "/" + stem + "_" + std::to_string(i) + ".npy";
      fs::path source = fs::path(goldenDir) / relative;
      std::ifstream stream(source, std::ios::binary);
      if (!stream) {
        if (!required)
          return Status::success();
        return ioError(source.string() + ": cannot open golden file");
      }
      files["golden/" + relative] =
          std::string(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
    }
    return Status::success();
  };
  TC_TRY(copy("inputs", "input", numInputs, true));
  TC_TRY(copy("expected", "output", numOutputs, true));
  return copy("expected_fp64", "output", numOutputs, false);
}

} // namespace


namespace {

// Names a bundle cannot take: the bare name is a C++ namespace (`thunderc::<name>::Model`),
// a CMake target and the stem of every generated symbol and file.
bool isReservedName(const std::string &name) {
  static const std::set<std::string> kReserved = {
      // C++ keywords and alternative tokens
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "restrict",
      // macros of the C library and predefined macros of GNU compilers (-std=gnu++17)
      "assert", "errno", "stdin", "stdout", "stderr", "offsetof", "setjmp", "va_arg", "va_copy",
      "va_end", "va_start", "linux", "unix", "i386", "math_errhandling", "static_assert",
      // namespaces and targets of the bundle itself, and CMake's reserved target names
      "thunderc", "tc", "tcg", "std", "thunderc_runtime", "all", "clean", "help", "install",
      "test", "package", "package_source", "edit_cache", "rebuild_cache",
      "list_install_components", "ALL_BUILD", "ZERO_CHECK", "RUN_TESTS", "INSTALL", "PACKAGE"};
  if (kReserved.count(name))
    return true;
  // Reserved identifiers (a leading underscore, a double underscore) and all-capital names,
  // the spelling of macros (NULL, EOF, INFINITY, ...).
  if (name[0] == '_' || name.find("__") != std::string::npos)
    return true;
  return std::none_of(name.begin(), name.end(),
                      [](char c) { return std::islower(static_cast<unsigned char>(c)); });
}

bool isIdentifier(const std::string &name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

constexpr size_t kMaxNameLength = 64;

} // namespace

Status checkBundleName(const std::string &name) {
  if (!isIdentifier(name))
    return Error(ErrorKind::Usage,
                 "--name '" + name + "' is not a C identifier (letters, digits and '_', not "
                 "starting with a digit)");
  if (name.size() > kMaxNameLength)
    return Error(ErrorKind::Usage, "--name '" + name + "' is longer than " +
                                       std::to_string(kMaxNameLength) + " characters");
  if (isReservedName(name))
    return Error(ErrorKind::Usage,
                 "--name '" + name + "' is reserved (a C++ keyword, a macro-like or reserved "
                 "identifier, or a CMake or thunderc target name); choose another name");
  return Status::success();
}

std::string sanitizeName(const std::string &stem) {
  std::string name;
  for (char c : stem.substr(0, kMaxNameLength))
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "m" + name;
  if (isReservedName(name))
    name += "_model";
  while (name.find("__") != std::string::npos)
    name.replace(name.find("__"), 2, "_");
  if (name[0] == '_')
    name = "m" + name;
  return name;
}

std::string goldenTestCmake(const BundleOptions &options, bool hasGolden) {
  if (!hasGolden)
    return "";
  return renderEmbeddedTemplate("codegen/templates/golden_test.cmake.in",
                                {{"NAME", options.name}});
}

Status writeBundle(const ir::Graph &graph, const WeightSource &weights,
                   const BundleOptions &options, TargetBackend &backend,
                   const std::string &outDir) {
  TC_ASSIGN_OR_RETURN(WeightsWriter weightsWriter,
                      weightsFile(graph, weights, backend.storedWeights(graph)));
  std::string compileId = compileIdOf(graph, weightsWriter, options, backend);
  EmitOptions emitOptions{options.name, options.sourceName, options.allowTf32, compileId,
                          options.debugPerturb};
  TC_ASSIGN_OR_RETURN(auto files, emitModelSources(graph, emitOptions, backend));
  if (!weightsWriter.add(TC_COMPILE_ID_TENSOR, TC_DTYPE_U8, {int64_t(compileId.size())},
                         compileId.data(), compileId.size()))
    return invalidInput("a weight is named '" TC_COMPILE_ID_TENSOR "', a name thunderc reserves "
                        "for the compile id of weights.bin");
  // The runtime ships whole; of the kernel headers (the target-neutral runtime/kernels/ among
  // them), those the target asks for, flat in kernels/.
  for (size_t i = 0; i < kNumEmbeddedFiles; ++i) {
    std::string path = kEmbeddedFiles[i].path;
    std::string contents(reinterpret_cast<const char *>(kEmbeddedFiles[i].data),
                         kEmbeddedFiles[i].size);
    if (path.rfind("runtime/", 0) == 0 && path.rfind("runtime/kernels/", 0) != 0)
      files[path] = std::move(contents);
    else if (path.find("/templates/") == std::string::npos &&
             backend.shipsKernelHeader(path, options))
      files["kernels/" + fs::path(path).filename().string()] = std::move(contents);
  }
  bool hasGolden = !options.goldenDir.empty();
  if (hasGolden) {
    size_t numInputs = 0;
    for (const auto &input : graph.inputs())
      numInputs += input->inputKind() == ir::InputKind::User ? 1 : 0;
    TC_TRY(copyGolden(options.goldenDir, files, numInputs, graph.numUserOutputs()));
  }
  if (options.triton) {
    TC_ASSIGN_OR_RETURN(auto triton,
                        tritonFiles(graph, options, backend.target() == Target::Cuda));
    files.insert(triton.begin(), triton.end());
  }
  files["README.md"] = readme(graph, options, hasGolden, compileId);
  for (auto &[path, text] : backend.bundleFiles(options, hasGolden)) {
    if (path == "CMakeLists.txt")
      files[path] = text + tritonCmake(options);
    else if (path == "README.md")
      files[path] += text;
    else
      files[path] = std::move(text);
  }
  FileWriter writeWeights = [&weightsWriter](const std::string &path) -> Status {
    std::string error;
    if (!weightsWriter.write(path, &error))
      return ioError(error);
    return Status::success();
  };
  return replaceFolder(files, outDir, {{"weights.bin", writeWeights}});
}

} // namespace thunderc::codegen
