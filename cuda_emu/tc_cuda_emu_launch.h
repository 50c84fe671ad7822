// Kernel launches for the CPU emulation of CUDA (tc_cuda_emu.h): TC_LAUNCH(grid, block, smem,
// stream, kernel)(args...) validates the configuration like the CUDA runtime (an invalid one
// runs nothing and sets the last error), converts the arguments to the kernel's parameter
// types once, and runs the grid synchronously, every thread getting its own copy of them (or,
// on a capturing stream, records the launch with its arguments for cudaGraphLaunch).
#pragma once

#include <cstdio>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>

#include "tc_cuda_emu_props.h"
#include "tc_cuda_emu_sched.h"

namespace tc {
namespace emu {
namespace detail {

struct LaunchShape {
  dim3 grid;
  dim3 block;
  size_t sharedBytes;
  cudaStream_t stream;
  const void *kernel; // cudaFuncSetAttribute's key; nullptr for lambdas
};

/// The error the CUDA runtime reports for launching `shape`, or cudaSuccess.
inline cudaError_t launchError(const LaunchShape &shape) {
  const dim3 &block = shape.block, &grid = shape.grid;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 ||
      block.z > 64 || uint64_t{block.x} * block.y * block.z > 1024)
    return cudaErrorInvalidConfiguration;
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u || grid.y > 65535 ||
      grid.z > 65535)
    return cudaErrorInvalidConfiguration;
  // Above 48 KiB a kernel needs cudaFuncAttributeMaxDynamicSharedMemorySize, as on a GPU.
  if (shape.sharedBytes > static_cast<size_t>(registry().dynamicSharedLimit(shape.kernel)))
    return cudaErrorInvalidValue;
  if (!registry().validStream(shape.stream))
    return cudaErrorInvalidResourceHandle;
  return cudaSuccess;
}

/// False (after saying why) when `argument` is a pointer into host memory that no
/// cudaMalloc/cudaMallocHost returned: the first access would fault on a GPU, and the
/// emulation, which would happily read it, must not hide that.
template <typename T> bool deviceAccessible(const T &argument, size_t position) {
  if constexpr (std::is_pointer<T>::value &&
                !std::is_function<typename std::remove_pointer<T>::type>::value) {
    if (argument == nullptr || registry().accessible(argument, 0))
      return true;
    std::fprintf(stderr,
                 "tc_cuda_emu: kernel argument %zu is %p, which is not device memory (no "
                 "cudaMalloc or cudaMallocHost allocation holds it): a GPU would fault\n",
                 position, static_cast<const volatile void *>(argument));
    return false;
  } else {
    return true;
  }
}

template <typename Tuple, size_t... Positions>
bool argumentsAccessible(const Tuple &arguments, std::index_sequence<Positions...>) {
  // Every argument is checked (and reported), not just those up to the first bad one.
  return ((deviceAccessible(std::get<Positions>(arguments), Positions) ? 0 : 1) + ... + 0) == 0;
}

/// Each device thread's entry: calls the kernel with copies of the launch's arguments.
template <typename Closure> void invokeClosure(const void *closure) {
  const Closure &launch = *static_cast<const Closure *>(closure);
  std::apply(launch.kernel, launch.arguments);
}

/// Validates one launch and runs it, or records it when its stream is capturing; errors become
/// the host thread's last error at launch time, as on a GPU.
template <typename Closure> void runLaunch(const LaunchShape &shape, const Closure &closure) {
  constexpr size_t kArity = std::tuple_size<decltype(closure.arguments)>::value;
  if (cudaError_t error = launchError(shape); error != cudaSuccess) {
    fail(error);
    return;
  }
  if (!argumentsAccessible(closure.arguments, std::make_index_sequence<kArity>())) {
    fail(cudaErrorIllegalAddress);
    return;
  }
  if (Scheduler::forThisThread().running())
    die("a kernel launched another kernel (dynamic parallelism is not emulated)");
  enqueue(shape.stream, [shape, closure] {
    std::lock_guard<std::mutex> lock(deviceMutex());
    Scheduler::forThisThread().runGrid(shape.grid, shape.block, shape.sharedBytes,
                                       &invokeClosure<Closure>, &closure);
  });
}

/// The callable TC_LAUNCH returns for a __global__ function.
template <typename... Params> class FunctionLaunch {
public:
  using Kernel = void (*)(Params...);
  FunctionLaunch(const LaunchShape &shape, Kernel kernel) : shape_(shape), kernel_(kernel) {}

  template <typename... Args> void operator()(Args &&...args) const {
    static_assert(sizeof...(Args) == sizeof...(Params),
                  "kernel launched with the wrong number of arguments");
    Closure closure{kernel_, std::tuple<Params...>(std::forward<Args>(args)...)};
    runLaunch(shape_, closure);
  }

private:
  static_assert(!(std::is_reference<Params>::value || ...),
                "__global__ functions take their parameters by value");
  struct Closure {
    Kernel kernel;
    std::tuple<Params...> arguments;
  };
  LaunchShape shape_;
  Kernel kernel_;
};

/// The callable TC_LAUNCH returns for any other callable (a lambda standing in for a
/// __global__ function in tests); its parameters must be values or const references.
template <typename Kernel> class CallableLaunch {
public:
  CallableLaunch(const LaunchShape &shape, Kernel kernel)
      : shape_(shape), kernel_(std::move(kernel)) {}

  template <typename... Args> void operator()(Args &&...args) const {
    Closure<typename std::decay<Args>::type...> closure{
        kernel_, std::tuple<typename std::decay<Args>::type...>(std::forward<Args>(args)...)};
    runLaunch(shape_, closure);
  }

private:
  template <typename... Values> struct Closure {
    Kernel kernel; // a copy: a captured launch outlives the call
    std::tuple<Values...> arguments;
  };
  LaunchShape shape_;
  Kernel kernel_;
};

} // namespace detail

/// Returns a callable that runs `kernel` over `grid` x `block` with `dynamicSharedBytes` of
/// dynamic shared memory when called with the kernel's arguments; see TC_LAUNCH.
template <typename... Params>
detail::FunctionLaunch<Params...> launch(dim3 grid, dim3 block, size_t dynamicSharedBytes,
                                         cudaStream_t stream, void (*kernel)(Params...)) {
  return {detail::LaunchShape{grid, block, dynamicSharedBytes, stream, detail::kernelKey(kernel)},
          kernel};
}

template <typename Kernel, typename std::enable_if<!std::is_pointer<Kernel>::value, int>::type = 0>
detail::CallableLaunch<Kernel> launch(dim3 grid, dim3 block, size_t dynamicSharedBytes,
                                      cudaStream_t stream, Kernel kernel) {
  return {detail::LaunchShape{grid, block, dynamicSharedBytes, stream, nullptr}, std::move(kernel)};
}

} // namespace emu
} // namespace tc
