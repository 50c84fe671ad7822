// Tests of the CUDA runtime API subset of the CPU emulation (cuda_emu/
// tc_cuda_emu_runtime.h, tc_cuda_emu_props.h): memory and its garbage fill, copies checked
// against allocations, the last error, streams, events, and the device TC_EMU_ARCH describes.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tc_cuda_api.h"

#include "tc_cuda.h"

#include "emu_test_util.h"

namespace {

using emu_test::DeviceArray;
using emu_test::ScopedEnv;

TEST_CASE("cudaMalloc: 256-byte aligned, 0xFF-filled memory that round-trips through memcpy") {
  float *device = nullptr;
  REQUIRE(cudaMalloc(&device, 100 * sizeof(float)) == cudaSuccess);
  CHECK(reinterpret_cast<uintptr_t>(device) % 256 == 0);
  std::vector<float> back(100, 0.0f);
  REQUIRE(cudaMemcpy(back.data(), device, 400, cudaMemcpyDeviceToHost) == cudaSuccess);
  uint32_t bits;
  std::memcpy(&bits, &back[99], sizeof(bits));
  CHECK(bits == 0xFFFFFFFFu); // a NaN: reading memory nobody wrote shows

  std::vector<float> values(100);
  for (int i = 0; i < 100; ++i)
    values[i] = static_cast<float>(i) / 3;
  REQUIRE(cudaMemcpy(device, values.data(), 400, cudaMemcpyHostToDevice) == cudaSuccess);
  float *copy = nullptr;
  REQUIRE(cudaMalloc(&copy, 400) == cudaSuccess);
  REQUIRE(cudaMemcpyAsync(copy, device, 400, cudaMemcpyDeviceToDevice, nullptr) == cudaSuccess);
  REQUIRE(cudaMemcpy(back.data(), copy, 400, cudaMemcpyDefault) == cudaSuccess);
  CHECK(back == values);
  REQUIRE(cudaMemset(copy + 50, 0, 200) == cudaSuccess);
  REQUIRE(cudaMemcpy(back.data(), copy, 400, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(back[49] == values[49]);
  CHECK(back[50] == 0.0f);
  CHECK(back[99] == 0.0f);
  CHECK(cudaFree(copy) == cudaSuccess);
  CHECK(cudaFree(device) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("copies and memsets outside an allocation fail with cudaErrorInvalidValue") {
  DeviceArray<int> device(16);
  std::vector<int> host(32, 0);
  CHECK(cudaMemcpy(device.data(), host.data(), 17 * sizeof(int), cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemcpy(host.data(), device.data() + 8, 9 * sizeof(int), cudaMemcpyDeviceToHost) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemcpy(host.data(), host.data() + 16, 4, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue); // the "device" side is host memory
  CHECK(cudaMemset(device.data() + 15, 0, 8) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(device.data(), host.data(), 4, static_cast<cudaMemcpyKind>(7)) ==
        cudaErrorInvalidMemcpyDirection);
  CHECK(cudaGetLastError() == cudaErrorInvalidMemcpyDirection); // the most recent one
  CHECK(cudaMemcpy(device.data() + 8, host.data(), 8 * sizeof(int), cudaMemcpyHostToDevice) ==
        cudaSuccess); // exactly up to the end
  CHECK(cudaMemcpy(device.data(), host.data(), 0, cudaMemcpyHostToDevice) == cudaSuccess);
}

TEST_CASE("cudaFree: nullptr is a no-op, anything cudaMalloc did not return is an error") {
  CHECK(cudaFree(nullptr) == cudaSuccess);
  int host = 0;
  CHECK(cudaFree(&host) == cudaErrorInvalidValue);
  void *device = nullptr;
  REQUIRE(cudaMalloc(&device, 64) == cudaSuccess);
  CHECK(cudaFreeHost(device) == cudaErrorInvalidValue); // device memory is not pinned memory
  CHECK(cudaFree(device) == cudaSuccess);
  CHECK(cudaFree(device) == cudaErrorInvalidValue); // twice
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  void *empty = &host;
  CHECK(cudaMalloc(&empty, 0) == cudaSuccess);
  CHECK(empty == nullptr);
}

TEST_CASE("TC_EMU_FAIL_MALLOC makes cudaMalloc fail, and device memory is finite") {
  void *device = nullptr;
  {
    ScopedEnv failing("TC_EMU_FAIL_MALLOC", "1");
    CHECK(cudaMalloc(&device, 64) == cudaErrorMemoryAllocation);
    CHECK(device == nullptr);
    CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
    CHECK(cudaMallocHost(&device, 64) == cudaSuccess); // pinned host memory is not affected
    CHECK(cudaFreeHost(device) == cudaSuccess);
  }
  size_t free = 0, total = 0;
  REQUIRE(cudaMemGetInfo(&free, &total) == cudaSuccess);
  CHECK(cudaMalloc(&device, total + 1) == cudaErrorMemoryAllocation);
  CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
  REQUIRE(cudaMalloc(&device, 1 << 20) == cudaSuccess);
  size_t freeAfter = 0;
  REQUIRE(cudaMemGetInfo(&freeAfter, &total) == cudaSuccess);
  CHECK(freeAfter == free - (1 << 20));
  CHECK(cudaFree(device) == cudaSuccess);
}

TEST_CASE("error names and strings are CUDA's") {
  CHECK(std::string(cudaGetErrorName(cudaErrorInvalidConfiguration)) ==
        "cudaErrorInvalidConfiguration");
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidValue)) == "invalid argument");
  CHECK(std::string(cudaGetErrorString(cudaErrorMemoryAllocation)) == "out of memory");
  CHECK(std::string(cudaGetErrorString(cudaSuccess)) == "no error");
  CHECK(cudaErrorNoKernelImageForDevice == 209);
  CHECK(cudaErrorIllegalAddress == 700);
}

TEST_CASE("streams and events: synchronous work, wall-clock timing, checked handles") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  cudaEvent_t start = nullptr, stop = nullptr, untimed = nullptr;
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
  REQUIRE(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming) == cudaSuccess);
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle); // unrecorded
  REQUIRE(cudaEventRecord(start, stream) == cudaSuccess);
  DeviceArray<int> data(std::vector<int>(1000, 1));
  REQUIRE(cudaMemsetAsync(data.data(), 0, 4000, stream) == cudaSuccess);
  REQUIRE(cudaEventRecord(stop, stream) == cudaSuccess);
  REQUIRE(cudaEventRecord(untimed, stream) == cudaSuccess);
  REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
  REQUIRE(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
  CHECK(ms >= 0.0f);
  CHECK(cudaEventElapsedTime(&ms, start, untimed) == cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamSynchronize(stream) == cudaSuccess);
  CHECK(cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess);
  CHECK(data.read() == std::vector<int>(1000, 0));
  for (cudaEvent_t event : {start, stop, untimed})
    CHECK(cudaEventDestroy(event) == cudaSuccess);
  CHECK(cudaEventDestroy(start) == cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
  CHECK(cudaStreamDestroy(stream) == cudaErrorInvalidResourceHandle);
  CHECK(cudaStreamDestroy(nullptr) == cudaErrorInvalidResourceHandle); // the default stream
  CHECK(cudaMemsetAsync(data.data(), 0, 4, stream) == cudaErrorInvalidResourceHandle);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
}

__global__ void noop() {}

TEST_CASE("a launch on a destroyed stream fails with cudaErrorInvalidResourceHandle") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  TC_LAUNCH(1, 1, 0, stream, noop)();
  CHECK(cudaGetLastError() == cudaSuccess);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  TC_LAUNCH(1, 1, 0, stream, noop)();
  CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
}

TEST_CASE("the device: one, named, sm_80 unless TC_EMU_ARCH says otherwise") {
  int count = 0, device = -1;
  REQUIRE(cudaGetDeviceCount(&count) == cudaSuccess);
  CHECK(count == 1);
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  CHECK(device == 0);
  CHECK(cudaSetDevice(0) == cudaSuccess);
  CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice);
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 1) == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  {
    ScopedEnv arch("TC_EMU_ARCH", "");
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    CHECK(std::string(prop.name) == "thunderc CUDA emulation");
    CHECK(prop.major == 8);
    CHECK(prop.minor == 0);
    CHECK(prop.multiProcessorCount == 108);
    CHECK(prop.sharedMemPerBlock == 48 * 1024);
    CHECK(prop.sharedMemPerBlockOptin == 166912);
    CHECK(prop.maxThreadsPerBlock == 1024);
    CHECK(prop.warpSize == 32);
    CHECK(prop.totalGlobalMem == size_t{16} << 30);
  }
  struct Case {
    const char *value;
    int major, minor, optin;
  };
  for (const Case &arch :
       {Case{"90", 9, 0, 232448}, Case{"sm_86", 8, 6, 101376}, Case{"9.0", 9, 0, 232448},
        Case{"sm_90a", 9, 0, 232448}, Case{"120", 12, 0, 101376}, Case{"75", 7, 5, 65536}}) {
    ScopedEnv setting("TC_EMU_ARCH", arch.value);
    CAPTURE(arch.value);
    int major = 0, minor = 0, optin = 0, sms = 0;
    REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0) == cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) ==
            cudaSuccess);
    REQUIRE(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess);
    CHECK(major == arch.major);
    CHECK(minor == arch.minor);
    CHECK(optin == arch.optin);
    CHECK(sms > 0);
  }
  cudaFuncAttributes attributes{};
  CHECK(cudaFuncGetAttributes(&attributes, noop) == cudaSuccess);
  CHECK(attributes.maxThreadsPerBlock == 1024);
  CHECK(attributes.maxDynamicSharedSizeBytes == 48 * 1024);
}

} // namespace

__global__ void addOne(float *data, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    data[i] += 1.0f;
}

TEST_CASE("stream capture records launches, async copies and memsets; a graph replays them") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  DeviceArray<float> data(std::vector<float>(64, 1.0f));
  DeviceArray<float> copy(64);
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(stream, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusActive);
  CHECK(cudaMemsetAsync(copy.data(), 0, 64 * sizeof(float), stream) == cudaSuccess);
  TC_LAUNCH(2, 32, 0, stream, addOne)(data.data(), 64);
  CHECK(cudaMemcpyAsync(copy.data(), data.data(), 64 * sizeof(float), cudaMemcpyDeviceToDevice,
                        stream) == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  REQUIRE(graph != nullptr);
  CHECK(cudaStreamIsCapturing(stream, &status) == cudaSuccess);
  CHECK(status == cudaStreamCaptureStatusNone);
  // Nothing ran while capturing.
  CHECK(data.read() == std::vector<float>(64, 1.0f));
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphDestroy(graph) == cudaSuccess); // the executable graph is independent
  for (float expected : {2.0f, 3.0f}) {
    REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    CHECK(data.read() == std::vector<float>(64, expected));
    CHECK(copy.read() == std::vector<float>(64, expected));
  }
  CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
  CHECK(cudaGraphExecDestroy(exec) == cudaErrorInvalidValue);
  CHECK(cudaGraphLaunch(exec, stream) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("a prohibited call during capture fails and invalidates the capture") {
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  DeviceArray<float> data(std::vector<float>(4, 1.0f));
  float host[4] = {};
  void *memory = nullptr;
  // Each unsafe call: a synchronous copy and memset, an allocation, synchronizing the stream.
  for (int call = 0; call < 4; ++call) {
    CAPTURE(call);
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    cudaError_t error =
        call == 0   ? cudaMemcpy(host, data.data(), sizeof(host), cudaMemcpyDeviceToHost)
        : call == 1 ? cudaMemset(data.data(), 0, 4)
        : call == 2 ? cudaMalloc(&memory, 64)
                    : cudaStreamSynchronize(stream);
    CHECK(error != cudaSuccess);
    CHECK(memory == nullptr);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    CHECK(cudaStreamIsCapturing(stream, &status) == cudaSuccess);
    CHECK(status == cudaStreamCaptureStatusInvalidated);
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(&host);
    CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorStreamCaptureInvalidated);
    CHECK(graph == nullptr);
    (void)cudaGetLastError();
  }
  CHECK(data.read() == std::vector<float>(4, 1.0f)); // the memset did not run
  // The default stream cannot capture; a stream captures once at a time; ending needs a capture.
  CHECK(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeThreadLocal) ==
        cudaErrorStreamCaptureUnsupported);
  cudaGraph_t graph = nullptr;
  CHECK(cudaStreamEndCapture(stream, &graph) == cudaErrorIllegalState);
  REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaErrorIllegalState);
  REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
  CHECK(cudaGraphDestroy(graph) == cudaSuccess);
  (void)cudaGetLastError();
  REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
}
