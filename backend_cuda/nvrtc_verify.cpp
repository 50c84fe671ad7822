// NVRTC verification of generated kernels:
//   1. check the architecture ("sm_80" -> --gpu-architecture=compute_80);
//   2. hand NVRTC the embedded runtime/kernels/ and backend_cuda/kernels/ headers by file name (tc_cuda.h,
//      tc_math.h, tc_rtc_std.h, ...): NVRTC has no host headers and no include path here;
//   3. compile each kernel's own translation unit to PTX, on a few threads (NVRTC programs are
//      independent), timing each and keeping its log.
// Built without NVRTC (THUNDERC_HAVE_NVRTC undefined), only the "unavailable" answers remain.
#include "backend_cuda/nvrtc_verify.h"

#include <algorithm>
#include <regex>

#include "codegen/embedded_files.h"

#if defined(THUNDERC_HAVE_NVRTC)
#include <chrono>

#include "codegen/parallel_work.h"
#include <nvrtc.h>
#endif

namespace thunderc::cuda {
using namespace codegen;
namespace {

/// "sm_80" / "compute_80" / "sm_90a" -> "compute_80" / "compute_90a"; empty when malformed.
std::string virtualArch(const std::string &arch) {
  static const std::regex kArch("^(sm|compute)_([0-9]{2,3}[af]?)$");
  std::smatch match;
  if (!std::regex_match(arch, match, kArch))
    return "";
  return "compute_" + match[2].str();
}

#if defined(THUNDERC_HAVE_NVRTC)

/// The kernel headers, named as generated code includes them.
struct Headers {
  std::vector<std::string> names;
  std::vector<std::string> contents;
};

// The scalar layer (runtime/kernels/: tc_math.h, and tc_rtc_std.h, NVRTC's stand-in for the
// standard headers) and the CUDA kernel headers, by file name as bundles ship them.
Headers kernelHeaders() {
  Headers headers;
  for (size_t i = 0; i < kNumEmbeddedFiles; ++i) {
    std::string path = kEmbeddedFiles[i].path;
    size_t folder = 0;
    for (const std::string prefix : {"runtime/kernels/", "backend_cuda/kernels/"})
      if (path.compare(0, prefix.size(), prefix) == 0)
        folder = prefix.size();
    if (folder == 0)
      continue;
    headers.names.push_back(path.substr(folder));
    headers.contents.emplace_back(reinterpret_cast<const char *>(kEmbeddedFiles[i].data),
                                  kEmbeddedFiles[i].size);
  }
  return headers;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\0' || text.back() == ' '))
    text.pop_back();
  return text;
}

/// Compiles one translation unit; `apiError` is set when an NVRTC call other than the
/// compilation itself fails.
KernelCompilation compileOne(const CudaKernel &kernel, const std::string &source,
                             const Headers &headers, const std::vector<std::string> &options,
                             std::string &apiError) {
  KernelCompilation result;
  result.kernel = &kernel;
  std::vector<const char *> names, contents, flags;
  for (size_t i = 0; i < headers.names.size(); ++i) {
    names.push_back(headers.names[i].c_str());
    contents.push_back(headers.contents[i].c_str());
  }
  for (const std::string &option : options)
    flags.push_back(option.c_str());
  nvrtcProgram program = nullptr;
  std::string fileName = kernel.name + ".cu";
  nvrtcResult created =
      nvrtcCreateProgram(&program, source.c_str(), fileName.c_str(),
                         static_cast<int>(names.size()), contents.data(), names.data());
  if (created != NVRTC_SUCCESS) {
    apiError = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(created);
    return result;
  }
  auto start = std::chrono::steady_clock::now();
  nvrtcResult compiled =
      nvrtcCompileProgram(program, static_cast<int>(flags.size()), flags.data());
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t logSize = 0;
  if (nvrtcGetProgramLogSize(program, &logSize) == NVRTC_SUCCESS && logSize > 1) {
    std::string log(logSize, '\0');
    if (nvrtcGetProgramLog(program, log.data()) == NVRTC_SUCCESS)
      result.log = trimmed(log);
  }
  if (compiled == NVRTC_SUCCESS) {
    result.ok = true;
    nvrtcGetPTXSize(program, &result.ptxBytes);
  } else if (compiled != NVRTC_ERROR_COMPILATION) {
    apiError = std::string("nvrtcCompileProgram: ") + nvrtcGetErrorString(compiled) +
               (result.log.empty() ? "" : ": " + result.log);
  }
  nvrtcDestroyProgram(&program);
  return result;
}

#endif // THUNDERC_HAVE_NVRTC

} // namespace

bool nvrtcAvailable() {
#if defined(THUNDERC_HAVE_NVRTC)
  return true;
#else
  return false;
#endif
}

std::string nvrtcDescription() {
#if defined(THUNDERC_HAVE_NVRTC)
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "NVRTC (version unknown)";
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
#else
  return "built without NVRTC";
#endif
}

Expected<std::vector<KernelCompilation>> compileKernelsWithNvrtc(
    const ir::Graph &graph, const std::vector<CudaKernel> &kernels, const std::string &arch) {
  std::string virtualName = virtualArch(arch);
  if (virtualName.empty())
    return Error(ErrorKind::Usage, "--arch '" + arch +
                                       "' is not a GPU architecture like sm_80 or compute_90a");
#if !defined(THUNDERC_HAVE_NVRTC)
  (void)graph;
  (void)kernels;
  return unsupported("--verify needs NVRTC, and this thunderc was built without NVRTC "
                     "(install the nvidia-cuda-nvrtc wheel, scripts/install_deps.sh, then "
                     "reconfigure with -DTHUNDERC_WITH_NVRTC=ON)");
#else
  Headers headers = kernelHeaders();
  std::vector<std::string> options = {"--gpu-architecture=" + virtualName, "-std=c++17"};
  std::vector<std::string> sources;
  for (const CudaKernel &kernel : kernels)
    sources.push_back(cudaTranslationUnit(graph, {kernel}, "kernel " + kernel.name));

  std::vector<KernelCompilation> results(kernels.size());
  std::vector<std::string> apiErrors(kernels.size());
  forEachOnCores(kernels.size(), [&](size_t i) {
    results[i] = compileOne(kernels[i], sources[i], headers, options, apiErrors[i]);
  });
  for (size_t i = 0; i < kernels.size(); ++i)
    if (!apiErrors[i].empty())
      return ioError("NVRTC failed on kernel " + kernels[i].name + ": " + apiErrors[i]);
  return results;
#endif
}

} // namespace thunderc::cuda
