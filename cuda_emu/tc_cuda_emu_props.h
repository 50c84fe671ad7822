// The device the CPU emulation of CUDA (tc_cuda_emu.h) pretends to be: its properties and
// attributes, with the compute capability and per-generation limits (SM count, opt-in shared
// memory) of the GPU that TC_EMU_ARCH names (e.g. "90"; default 8.0), and the per-kernel
// attributes, whose dynamic shared memory opt-in launches check.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "tc_cuda_emu_runtime.h"

/// The fields of CUDA's cudaDeviceProp that describe a device's limits (same names).
struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int concurrentKernels;
  int asyncEngineCount;
  int unifiedAddressing;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int managedMemory;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  int maxBlocksPerMultiProcessor;
  size_t reservedSharedMemPerBlock;
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

/// What cudaFuncGetAttributes reports (CUDA's field names; sizes the emulation cannot know,
/// like registers and static shared memory, are reported as 0).
struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
};

namespace tc {
namespace emu {
namespace detail {

/// The limits of one GPU generation; the emulated device is the one TC_EMU_ARCH names.
struct ArchTraits {
  int major, minor;
  int multiProcessors;
  int maxThreadsPerMultiProcessor;
  int sharedPerBlockOptin;
  int sharedPerMultiProcessor;
  int l2CacheBytes;
};

/// The GPUs TC_EMU_ARCH may name (one representative part per compute capability: V100,
/// T4, A100, A10, Orin, L4, H100, B200, RTX 50xx), as their datasheets and cudaDeviceProp give.
inline constexpr ArchTraits kArchTable[] = {
    {7, 0, 80, 2048, 98304, 98304, 6 << 20},      {7, 5, 40, 1024, 65536, 65536, 4 << 20},
    {8, 0, 108, 2048, 166912, 167936, 40 << 20},  {8, 6, 84, 1536, 101376, 102400, 6 << 20},
    {8, 7, 16, 1536, 166912, 167936, 4 << 20},    {8, 9, 128, 1536, 101376, 102400, 72 << 20},
    {9, 0, 132, 2048, 232448, 233472, 50 << 20},  {10, 0, 148, 2048, 232448, 233472, 126 << 20},
    {12, 0, 170, 1536, 101376, 102400, 96 << 20},
};

/// The traits of TC_EMU_ARCH ("90", "9.0", "sm_90", "sm_90a"; default 8.0): the entry of that
/// compute capability, or the closest lower minor version of the same major. A value that
/// names no known GPU is a broken test setup and aborts.
inline const ArchTraits &archTraits() {
  const char *value = std::getenv("TC_EMU_ARCH");
  if (value == nullptr || value[0] == '\0')
    value = "80";
  const char *digits = value;
  for (const char *prefix : {"sm_", "compute_"})
    if (std::strncmp(digits, prefix, std::strlen(prefix)) == 0)
      digits += std::strlen(prefix);
  int number = 0, count = 0;
  for (const char *c = digits; *c != '\0'; ++c) {
    if (*c >= '0' && *c <= '9') {
      number = number * 10 + (*c - '0');
      ++count;
    } else if (*c != '.' && !(c[1] == '\0' && (*c == 'a' || *c == 'f'))) {
      count = 0; // anything but digits, one dot and an a/f suffix is malformed
      break;
    }
  }
  const ArchTraits *best = nullptr;
  for (const ArchTraits &traits : kArchTable)
    if (count >= 2 && traits.major == number / 10 && traits.minor <= number % 10)
      best = &traits;
  if (best == nullptr)
    die("TC_EMU_ARCH='%s' names no GPU the emulation knows (use e.g. 70, 75, 80, 86, 89, 90, "
        "100, 120)",
        value);
  return *best;
}

/// What cudaMalloc/cudaMallocHost handed out; pinned host memory is device-accessible too
/// (unified addressing), so both count as valid device operands.

/// The key under which cudaFuncSetAttribute records a kernel's settings.
template <typename T> const void *kernelKey(T *entry) {
  return reinterpret_cast<const void *>(entry);
}

} // namespace detail
} // namespace emu
} // namespace tc

// ---- the device ----

inline cudaError_t cudaGetDeviceCount(int *count) {
  if (count == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

inline cudaError_t cudaGetDevice(int *device) {
  if (device == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

inline cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess : tc::emu::detail::fail(cudaErrorInvalidDevice);
}

inline cudaError_t cudaDeviceReset() { return cudaSuccess; }

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device) {
  if (prop == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  if (device != 0)
    return tc::emu::detail::fail(cudaErrorInvalidDevice);
  const tc::emu::detail::ArchTraits &arch = tc::emu::detail::archTraits();
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof(prop->name), "thunderc CUDA emulation");
  prop->totalGlobalMem = tc::emu::detail::kTotalGlobalMemory;
  prop->sharedMemPerBlock = tc::emu::detail::kDefaultDynamicSharedLimit;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->memPitch = 2147483647;
  prop->maxThreadsPerBlock = 1024;
  prop->maxThreadsDim[0] = 1024;
  prop->maxThreadsDim[1] = 1024;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = 2147483647;
  prop->maxGridSize[1] = 65535;
  prop->maxGridSize[2] = 65535;
  prop->totalConstMem = 65536;
  prop->major = arch.major;
  prop->minor = arch.minor;
  prop->textureAlignment = 512;
  prop->multiProcessorCount = arch.multiProcessors;
  prop->canMapHostMemory = 1;
  prop->concurrentKernels = 1;
  prop->asyncEngineCount = 2;
  prop->unifiedAddressing = 1;
  prop->l2CacheSize = arch.l2CacheBytes;
  prop->maxThreadsPerMultiProcessor = arch.maxThreadsPerMultiProcessor;
  prop->managedMemory = 1;
  prop->sharedMemPerMultiprocessor = static_cast<size_t>(arch.sharedPerMultiProcessor);
  prop->regsPerMultiprocessor = 65536;
  prop->sharedMemPerBlockOptin = static_cast<size_t>(arch.sharedPerBlockOptin);
  prop->maxBlocksPerMultiProcessor = 32;
  prop->reservedSharedMemPerBlock = 1024;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  if (value == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  cudaDeviceProp prop;
  if (cudaError_t error = cudaGetDeviceProperties(&prop, device); error != cudaSuccess)
    return error;
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock:
    *value = prop.maxThreadsPerBlock;
    break;
  case cudaDevAttrMaxBlockDimX:
    *value = prop.maxThreadsDim[0];
    break;
  case cudaDevAttrMaxBlockDimY:
    *value = prop.maxThreadsDim[1];
    break;
  case cudaDevAttrMaxBlockDimZ:
    *value = prop.maxThreadsDim[2];
    break;
  case cudaDevAttrMaxGridDimX:
    *value = prop.maxGridSize[0];
    break;
  case cudaDevAttrMaxGridDimY:
    *value = prop.maxGridSize[1];
    break;
  case cudaDevAttrMaxGridDimZ:
    *value = prop.maxGridSize[2];
    break;
  case cudaDevAttrMaxSharedMemoryPerBlock:
    *value = static_cast<int>(prop.sharedMemPerBlock);
    break;
  case cudaDevAttrTotalConstantMemory:
    *value = static_cast<int>(prop.totalConstMem);
    break;
  case cudaDevAttrWarpSize:
    *value = prop.warpSize;
    break;
  case cudaDevAttrMaxRegistersPerBlock:
    *value = prop.regsPerBlock;
    break;
  case cudaDevAttrMultiProcessorCount:
    *value = prop.multiProcessorCount;
    break;
  case cudaDevAttrL2CacheSize:
    *value = prop.l2CacheSize;
    break;
  case cudaDevAttrMaxThreadsPerMultiProcessor:
    *value = prop.maxThreadsPerMultiProcessor;
    break;
  case cudaDevAttrComputeCapabilityMajor:
    *value = prop.major;
    break;
  case cudaDevAttrComputeCapabilityMinor:
    *value = prop.minor;
    break;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
    *value = static_cast<int>(prop.sharedMemPerMultiprocessor);
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    *value = static_cast<int>(prop.sharedMemPerBlockOptin);
    break;
  default:
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

// ---- kernel attributes ----

/// Raising cudaFuncAttributeMaxDynamicSharedMemorySize past 48 KiB is what lets a launch use
/// more (up to the device's opt-in limit); launches above the kernel's limit fail with
/// cudaErrorInvalidValue, exactly as a real GPU rejects a forgotten opt-in.
template <typename T>
cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value) {
  using tc::emu::detail::fail;
  if (entry == nullptr)
    return fail(cudaErrorInvalidDeviceFunction);
  if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
    return value >= -1 && value <= 100 ? cudaSuccess : fail(cudaErrorInvalidValue);
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
      value > tc::emu::detail::archTraits().sharedPerBlockOptin)
    return fail(cudaErrorInvalidValue);
  tc::emu::detail::Registry &state = tc::emu::detail::registry();
  std::lock_guard<std::mutex> lock(state.mutex);
  state.dynamicSharedLimits[tc::emu::detail::kernelKey(entry)] = value;
  return cudaSuccess;
}

template <typename T> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *entry) {
  if (attr == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidValue);
  if (entry == nullptr)
    return tc::emu::detail::fail(cudaErrorInvalidDeviceFunction);
  const tc::emu::detail::ArchTraits &arch = tc::emu::detail::archTraits();
  *attr = cudaFuncAttributes{};
  attr->maxThreadsPerBlock = 1024;
  attr->ptxVersion = arch.major * 10 + arch.minor;
  attr->binaryVersion = attr->ptxVersion;
  attr->maxDynamicSharedSizeBytes =
      tc::emu::detail::registry().dynamicSharedLimit(tc::emu::detail::kernelKey(entry));
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}
