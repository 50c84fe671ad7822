// Helpers of the CUDA emulation tests (emu_test.cpp, emu_blas_test.cpp): device arrays filled
// from and read back into host vectors through the emulated runtime API.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tc_cuda_api.h"

namespace emu_test {

/// `count` elements of device memory (cudaMalloc), freed on destruction.
template <typename T> class DeviceArray {
public:
  explicit DeviceArray(size_t count) : count_(count) {
    REQUIRE(cudaMalloc(&data_, count * sizeof(T)) == cudaSuccess);
  }
  explicit DeviceArray(const std::vector<T> &values) : DeviceArray(values.size()) { write(values); }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  T *data() const { return data_; }
  size_t size() const { return count_; }

  void write(const std::vector<T> &values) {
    REQUIRE(values.size() == count_);
    REQUIRE(cudaMemcpy(data_, values.data(), count_ * sizeof(T), cudaMemcpyHostToDevice) ==
            cudaSuccess);
  }
  std::vector<T> read() const {
    std::vector<T> values(count_);
    REQUIRE(cudaMemcpy(values.data(), data_, count_ * sizeof(T), cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    return values;
  }

private:
  T *data_ = nullptr;
  size_t count_;
};

/// Sets an environment variable for the scope of a test and restores its previous state.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    const char *previous = std::getenv(name);
    hadValue_ = previous != nullptr;
    if (hadValue_)
      previous_ = previous;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (hadValue_)
      setenv(name_.c_str(), previous_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  std::string name_;
  std::string previous_;
  bool hadValue_ = false;
};

} // namespace emu_test
