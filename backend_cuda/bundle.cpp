// The bundle writer: collects every file of out/ in memory, then writes them to a temporary
// folder and swaps it in, so a failure never leaves a partial out/.
#include "backend_cuda/bundle.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

#include "backend_cuda/embedded_files.h"
#include "backend_cuda/host_emitter.h"
#include "backend_cuda/output_folder.h"
#include "weights_writer.h"

namespace thunderc::cuda {
namespace fs = std::filesystem;
namespace {

Expected<std::vector<uint8_t>> weightsFile(const ir::Graph &graph, const WeightSource &weights) {
  runtime::WeightsWriter writer;
  std::set<std::string> written;
  for (const auto &input : graph.inputs()) {
    if (input->inputKind() == ir::InputKind::User || written.count(input->weightName()))
      continue;
    const ir::HostTensor *folded = graph.constantData(input->weightName());
    Expected<ir::TensorView> fetched =
        folded ? Expected<ir::TensorView>(folded->view()) : weights(*input);
    TC_ASSIGN_OR_RETURN(ir::TensorView view, std::move(fetched));
    std::vector<uint8_t> bytes = ir::contiguousCopy(view).bytes;
    std::string error;
    if (!writer.add(input->weightName(), static_cast<tc_dtype>(view.dtype), view.shape,
                    bytes.data(), bytes.size(), &error))
      return invalidInput("weight '" + input->weightName() + "': " + error);
    written.insert(input->weightName());
  }
  return writer.encode();
}

std::string goldenTest(const std::string &n) {
  return R"(
enable_testing()
add_test(NAME )" + n + R"(_golden COMMAND )" + n + R"(_run --golden ${CMAKE_CURRENT_SOURCE_DIR}/golden)
)";
}

std::string cmakeLists(const BundleOptions &options, bool hasGolden) {
  const std::string &n = options.name;
  std::string text = R"(# The thunderc bundle ')" + n + R"(' (compiled from )" +
                     options.sourceName + R"(). Generated; do not edit.
#
#   cmake -S . -B build && cmake --build build     # the library, the runner, the golden test
#   build/)" + n + R"(_run --inputs x.npy --outputs y.npy
#   ctest --test-dir build                          # bundle vs PyTorch outputs
#
# Or from another project: add_subdirectory(<this folder>) and link the ')" + n + R"(' target.
cmake_minimum_required(VERSION 3.16)
project()" + n + R"(_bundle LANGUAGES CXX)

if(CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR AND NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
option(THUNDERC_BUNDLE_WERROR "Treat warnings in generated code as errors" OFF)
option(THUNDERC_BUNDLE_USE_BLAS "Use a CBLAS library (OpenBLAS) for GEMM and convolution" ON)

if(NOT TARGET thunderc_runtime)
  add_subdirectory(runtime)
endif()

add_library()" + n + R"( STATIC )" + n + R"(.cpp)
target_include_directories()" + n + R"( PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                                  PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/kernels)
target_link_libraries()" + n + R"( PUBLIC thunderc_runtime)
set_target_properties()" + n + R"( PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
                                          POSITION_INDEPENDENT_CODE ON)
if(NOT MSVC)
  target_compile_options()" + n + R"( PRIVATE -Wall -Wextra)
  if(THUNDERC_BUNDLE_WERROR)
    target_compile_options()" + n + R"( PRIVATE -Werror)
  endif()
endif()

# GEMMs and convolutions call CBLAS when one is found; otherwise portable loops are used.
if(THUNDERC_BUNDLE_USE_BLAS)
  find_path(THUNDERC_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas x86_64-linux-gnu aarch64-linux-gnu)
  find_library(THUNDERC_CBLAS_LIBRARY NAMES openblas cblas blas)
  if(THUNDERC_CBLAS_INCLUDE AND THUNDERC_CBLAS_LIBRARY)
    target_compile_definitions()" + n + R"( PRIVATE TC_USE_CBLAS)
    target_include_directories()" + n + R"( PRIVATE ${THUNDERC_CBLAS_INCLUDE})
    target_link_libraries()" + n + R"( PRIVATE ${THUNDERC_CBLAS_LIBRARY})
  else()
    message(WARNING ")" + n + R"(: no CBLAS found; GEMMs use portable loops")
  endif()
endif()

add_executable()" + n + R"(_run )" + n + R"(_run.cpp)
target_link_libraries()" + n + R"(_run PRIVATE )" + n + R"()
target_compile_definitions()" + n + R"(_run PRIVATE
                           TC_DEFAULT_WEIGHTS="${CMAKE_CURRENT_SOURCE_DIR}/weights.bin")
)";
  if (hasGolden)
    text += goldenTest(n);
  return text;
}

// A CUDA bundle: <name>.cu through nvcc and cuBLAS, or, with THUNDERC_BUNDLE_CUDA_EMULATE, the
// same code through the host compiler against the CPU emulation of CUDA.
std::string cudaCmakeLists(const BundleOptions &options, bool hasGolden) {
  const std::string &n = options.name;
  std::string text = R"cm(# The thunderc CUDA bundle ')cm" + n + R"cm(' (compiled from )cm" +
                     options.sourceName + R"cm(). Generated; do not edit.
#
#   cmake -S . -B build && cmake --build build          # nvcc + cuBLAS, for sm_80 and sm_90 (+PTX)
#   cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES=native  # only this machine's GPU (faster build)
#   cmake -S . -B build -DTHUNDERC_BUNDLE_CUDA_EMULATE=ON  # no GPU/toolkit: CPU emulation of CUDA
#   build/)cm" + n + R"cm(_run --inputs x.npy --outputs y.npy [--iters 100]
#   ctest --test-dir build                              # bundle vs PyTorch outputs
#
# Or from another project: add_subdirectory(<this folder>) and link the ')cm" + n + R"cm(' target.
cmake_minimum_required(VERSION 3.18)
project()cm" + n + R"cm(_bundle LANGUAGES CXX)

if(CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR AND NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
option(THUNDERC_BUNDLE_WERROR "Treat warnings in generated code as errors" OFF)
option(THUNDERC_BUNDLE_CUDA_EMULATE
       "Build the CUDA code with the host compiler against a CPU emulation of CUDA (no GPU)" OFF)

if(NOT TARGET thunderc_runtime)
  add_subdirectory(runtime)
endif()

if(THUNDERC_BUNDLE_CUDA_EMULATE)
  find_package(Threads REQUIRED)
  add_library()cm" + n + R"cm( STATIC )cm" + n + R"cm(_emulated.cpp)
  target_compile_definitions()cm" + n + R"cm( PRIVATE TC_CUDA_EMULATE TC_CUDA_ARCHITECTURES="emulated")
  target_link_libraries()cm" + n + R"cm( PRIVATE Threads::Threads)
else()
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES )cm" + options.cudaArchitectures + R"cm()
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # cuBLAS from the toolkit, or from the pip wheel nvidia-cublas (site-packages/nvidia/cu13).
  set(THUNDERC_CUBLAS_HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_TARGET_DIR})
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_Interpreter_FOUND)
    execute_process(
      COMMAND ${Python3_EXECUTABLE} -c
              "import nvidia, os; print(';'.join(os.path.join(p, 'cu13') for p in nvidia.__path__))"
      OUTPUT_VARIABLE THUNDERC_CUBLAS_WHEEL OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    list(APPEND THUNDERC_CUBLAS_HINTS ${THUNDERC_CUBLAS_WHEEL})
  endif()
  find_path(THUNDERC_CUBLAS_INCLUDE_DIR cublas_v2.h
            HINTS ${CUDAToolkit_INCLUDE_DIRS} ${THUNDERC_CUBLAS_HINTS} PATH_SUFFIXES include)
  find_library(THUNDERC_CUBLAS_LIBRARY NAMES cublas libcublas.so.13 libcublas.so.12
               HINTS ${THUNDERC_CUBLAS_HINTS} PATH_SUFFIXES lib lib64)
  if(NOT THUNDERC_CUBLAS_INCLUDE_DIR OR NOT THUNDERC_CUBLAS_LIBRARY)
    message(FATAL_ERROR ")cm" + n + R"cm(: cuBLAS not found (the CUDA toolkit's, or `pip install nvidia-cublas`); "
                        "without a GPU toolchain configure with -DTHUNDERC_BUNDLE_CUDA_EMULATE=ON")
  endif()
  add_library()cm" + n + R"cm( STATIC )cm" + n + R"cm(.cu)
  set_target_properties()cm" + n + R"cm( PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
  string(REPLACE ";" "," THUNDERC_ARCHITECTURE_LIST "${CMAKE_CUDA_ARCHITECTURES}")
  target_compile_definitions()cm" + n + R"cm( PRIVATE TC_CUDA_ARCHITECTURES="${THUNDERC_ARCHITECTURE_LIST}")
  target_include_directories()cm" + n + R"cm( SYSTEM PRIVATE ${THUNDERC_CUBLAS_INCLUDE_DIR})
  target_link_libraries()cm" + n + R"cm( PUBLIC CUDA::cudart PRIVATE ${THUNDERC_CUBLAS_LIBRARY})
  if(NOT MSVC)
    target_compile_options()cm" + n + R"cm( PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
  endif()
  if(THUNDERC_BUNDLE_WERROR)
    target_compile_options()cm" + n + R"cm( PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endif()

target_include_directories()cm" + n + R"cm( PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}
                                  PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/kernels)
target_link_libraries()cm" + n + R"cm( PUBLIC thunderc_runtime)
set_target_properties()cm" + n + R"cm( PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
                                          POSITION_INDEPENDENT_CODE ON)
if(NOT MSVC)
  target_compile_options()cm" + n + R"cm( PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
  if(THUNDERC_BUNDLE_WERROR)
    target_compile_options()cm" + n + R"cm( PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endif()

add_executable()cm" + n + R"cm(_run )cm" + n + R"cm(_run.cpp)
target_link_libraries()cm" + n + R"cm(_run PRIVATE )cm" + n + R"cm()
target_compile_definitions()cm" + n + R"cm(_run PRIVATE
                           TC_DEFAULT_WEIGHTS="${CMAKE_CURRENT_SOURCE_DIR}/weights.bin")
)cm";
  if (hasGolden)
    text += goldenTest(n);
  return text;
}

std::string readme(const ir::Graph &graph, const BundleOptions &options, bool hasGolden) {
  const std::string &n = options.name;
  std::string inputs, outputs;
  for (const auto &input : graph.inputs())
    if (input->inputKind() == ir::InputKind::User)
      inputs += "- `" + input->name() + "`: " + input->type().str() + "\n";
  for (size_t i = 0; i < graph.outputs().size(); ++i)
    outputs += "- output " + std::to_string(i) + ": " + graph.outputs()[i]->type().str() + "\n";
  std::string symbols;
  for (const auto &[symbol, range] : graph.symbols())
    symbols += "- `" + symbol + "` in [" + std::to_string(range.min) + ", " +
               (range.max ? std::to_string(*range.max) : "inf") + "]\n";
  return "# `" + n + "`: compiled by thunderc from `" + options.sourceName + "`\n\n" +
         "This folder is a self-contained CMake project: a C++ compiler, CMake and (optionally)\n"
         "a CBLAS such as OpenBLAS are all it needs. No Python, no libtorch.\n\n"
         "```sh\ncmake -S . -B build && cmake --build build\n"
         "build/" + n + "_run --inputs x.npy --outputs y.npy     # NumPy .npy, graph order\n"
         "build/" + n + "_run --inputs x.npy --iters 100          # prints median_us=<value>\n" +
         (hasGolden ? "ctest --test-dir build                         # golden test vs PyTorch\n"
                    : "") +
         "```\n\n## Inputs\n\n" + inputs + "\n## Outputs\n\n" + outputs +
         (symbols.empty() ? "" : "\n## Dynamic dims\n\n" + symbols) +
         "\n## API (`" + n + ".h`)\n\n"
         "`" + n + "_load(weights_path, &model, &err)` maps and checks `weights.bin`; `" + n +
         "_context_create(model, &ctx, &err)` makes one execution context per concurrent caller; `" +
         n + "_output_shapes(...)` tells the output shapes for given inputs; `" + n +
         "_run(ctx, inputs, n, outputs, m, &err)` runs. Every call returns a `tc_status` and "
         "fills the optional `tc_error` with a message; nothing throws or aborts. The C++ "
         "wrapper `thunderc::" + n + "::Model` / `thunderc::" + n + "::Context` owns the handles.\n\n"
         "From another CMake project: `add_subdirectory(path/to/this/folder)` and "
         "`target_link_libraries(app PRIVATE " + n + ")`.\n\n"
         "## Files\n\n"
         "- `" + n + ".h`, `" + n + ".cpp`: the model (generated)\n"
         "- `" + n + "_run.cpp`: the runner (generated; logic in `runtime/runner.cpp`)\n"
         "- `weights.bin`: the weights, 64-byte aligned, with a checked table of names, dtypes,\n"
         "  shapes and CRC-32s\n"
         "- `runtime/`: the runtime library; `kernels/`: the portable kernel headers\n" +
         (hasGolden ? "- `golden/`: sample inputs and PyTorch outputs for the golden test\n" : "");
}

std::string cudaReadme(const std::string &n, const std::string &architectures) {
  return "\n## CUDA\n\n"
         "This bundle runs on NVIDIA GPUs: `" + n + ".cu` holds the generated kernels and the "
         "host code, built by nvcc with cuBLAS (CMake's CUDA language; architectures "
         "`CMAKE_CUDA_ARCHITECTURES`, default `" + architectures + "`; `80-real 90` is sm_80 "
         "and sm_90 code plus PTX that newer GPUs compile at load). Without a GPU, `-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON` builds the "
         "same code with the host compiler against a CPU emulation of CUDA "
         "(`kernels/tc_cuda_emu.h`; slow, for tests).\n\n"
         "- `" + n + "_run` takes DEVICE tensors and is enqueued on the context's stream "
         "(`" + n + "_context_set_stream`, default stream otherwise); it returns without "
         "waiting; `" + n + "_synchronize` waits and reports device-side errors (an "
         "out-of-range embedding index) of the runs since its last call.\n"
         "- `" + n + "_run_host` takes host tensors: uploads, runs, downloads and waits; it "
         "also reports an out-of-range embedding index.\n"
         "- Weights are uploaded once at `" + n + "_load`; each context holds one device arena "
         "(the memory plan), a cuBLAS handle and staging buffers.\n"
         "- A CUDA or cuBLAS failure returns `TC_ERROR_DEVICE` with the generated file, line, "
         "graph node and call; a GPU the bundle was not built for is reported at load.\n";
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

Expected<std::string> cmakeCudaArchitecture(const std::string &arch) {
  static const std::regex kArch("^(sm|compute)_([0-9]{2,3}[af]?)$");
  std::smatch match;
  if (!std::regex_match(arch, match, kArch))
    return Error(ErrorKind::Usage,
                 "--arch '" + arch + "' is not a GPU architecture like sm_80 or compute_90a");
  return match[1].str() == "sm" ? match[2].str() : match[2].str() + "-virtual";
}

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

Status writeBundle(const ir::Graph &graph, const WeightSource &weights,
                   const BundleOptions &options, const std::string &outDir) {
  EmitOptions emitOptions{options.name, options.sourceName, options.target, options.allowTf32};
  TC_ASSIGN_OR_RETURN(auto files, emitModelSources(graph, emitOptions));
  TC_ASSIGN_OR_RETURN(std::vector<uint8_t> weightsBytes, weightsFile(graph, weights));
  files["weights.bin"] = std::string(weightsBytes.begin(), weightsBytes.end());
  for (size_t i = 0; i < kNumEmbeddedFiles; ++i) {
    std::string path = kEmbeddedFiles[i].path;
    std::string destination = path.rfind("runtime/", 0) == 0
                                  ? path
                                  : "kernels/" + fs::path(path).filename().string();
    files[destination] = std::string(reinterpret_cast<const char *>(kEmbeddedFiles[i].data),
                                     kEmbeddedFiles[i].size);
  }
  bool hasGolden = !options.goldenDir.empty();
  if (hasGolden) {
    size_t numInputs = 0;
    for (const auto &input : graph.inputs())
      numInputs += input->inputKind() == ir::InputKind::User ? 1 : 0;
    TC_TRY(copyGolden(options.goldenDir, files, numInputs, graph.outputs().size()));
  }
  files["CMakeLists.txt"] = options.target == Target::Cuda ? cudaCmakeLists(options, hasGolden)
                                                            : cmakeLists(options, hasGolden);
  files["README.md"] = readme(graph, options, hasGolden);
  if (options.target == Target::Cuda)
    files["README.md"] += cudaReadme(options.name, options.cudaArchitectures);
  return replaceFolder(files, outDir);
}

} // namespace thunderc::cuda
