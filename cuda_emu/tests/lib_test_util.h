// Helpers of the tcg tests (lib_test.cpp, lib_nn_test.cpp): host arrays, device buffers, the
// execution context a bundle owns, deterministic random inputs and tolerance checks.
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "tc_cuda_lib.h"
#include "tc_kernels.h"

namespace lib_test {

// ---- host arrays, device buffers and the execution context ----

/// A host array of T; unlike std::vector it has data() for bool too.
template <typename T> class Array {
public:
  explicit Array(int64_t size = 0) : values_(new T[size > 0 ? size : 1]()), size_(size) {}
  T *data() { return values_.get(); }
  const T *data() const { return values_.get(); }
  int64_t size() const { return size_; }
  T &operator[](int64_t i) { return values_[i]; }
  const T &operator[](int64_t i) const { return values_[i]; }

private:
  std::unique_ptr<T[]> values_;
  int64_t size_;
};

/// Deterministic values in [low, high) cast to T (integers: rounded down), from a small LCG.
template <typename T>
inline Array<T> randomArray(int64_t size, double low, double high, uint32_t seed) {
  Array<T> values(size);
  uint32_t state = seed * 2654435761u + 12345u;
  for (int64_t i = 0; i < size; ++i) {
    state = state * 1664525u + 1013904223u;
    const double value = low + (high - low) * ((state >> 8) / double(1u << 24));
    values[i] = tc::cast<T>(std::is_integral<T>::value ? std::floor(value) : value);
  }
  return values;
}

/// A device allocation of `size` T (at least one, so a zero-size call still gets a pointer).
template <typename T> class Buffer {
public:
  explicit Buffer(int64_t size) : size_(size) {
    REQUIRE(cudaMalloc(reinterpret_cast<void **>(&data_), bytes(size > 0 ? size : 1)) ==
            cudaSuccess);
  }
  explicit Buffer(const Array<T> &host) : Buffer(host.size()) { write(host); }
  ~Buffer() { cudaFree(data_); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  T *data() const { return data_; }
  void write(const Array<T> &host) {
    REQUIRE(cudaMemcpy(data_, host.data(), bytes(host.size()), cudaMemcpyHostToDevice) ==
            cudaSuccess);
  }
  Array<T> read() const {
    Array<T> host(size_);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(cudaMemcpy(host.data(), data_, bytes(size_), cudaMemcpyDeviceToHost) == cudaSuccess);
    return host;
  }

private:
  static size_t bytes(int64_t size) { return static_cast<size_t>(size) * sizeof(T); }
  T *data_ = nullptr;
  int64_t size_;
};

/// The stream, cuBLAS handle and error flag a bundle's context owns.
struct Context {
  tcg::exec ex;
  Context() {
    REQUIRE(cudaStreamCreate(&ex.stream) == cudaSuccess);
    REQUIRE(cublasCreate(&ex.blas) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasSetStream(ex.blas, ex.stream) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cudaMalloc(reinterpret_cast<void **>(&ex.error), sizeof(tcg::gather_error)) ==
            cudaSuccess);
    REQUIRE(cudaMemset(ex.error, 0, sizeof(tcg::gather_error)) == cudaSuccess);
  }
  ~Context() {
    cudaFree(ex.error);
    cublasDestroy(ex.blas);
    cudaStreamDestroy(ex.stream);
  }
  tcg::gather_error gatherError() const {
    tcg::gather_error record;
    REQUIRE(cudaStreamSynchronize(ex.stream) == cudaSuccess);
    REQUIRE(cudaMemcpy(&record, ex.error, sizeof(record), cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    return record;
  }
  int errorFlag() const { return gatherError().flag; }
};

/// REQUIRE(call.ok()), reporting the failing API and message. Variadic so that template
/// arguments with commas pass through.
#define REQUIRE_OK(...)                                                                            \
  do {                                                                                             \
    const tcg::result outcome = (__VA_ARGS__);                                                     \
    REQUIRE_MESSAGE(outcome.ok(),                                                                  \
                    (std::string(outcome.api ? outcome.api : "") + ": " + outcome.message));       \
  } while (0)

/// Checks got[i] against want[i]: NaN where want is NaN, the same infinity, else
/// |got - want| <= atol + rtol * |want|. Reports the count and the first mismatch.
template <typename T>
void expectNear(const Array<T> &got, const Array<T> &want, double rtol, double atol) {
  REQUIRE(got.size() == want.size());
  int64_t failures = 0, first = -1;
  for (int64_t i = 0; i < want.size(); ++i) {
    const double g = tc::cast<double>(got[i]);
    const double w = tc::cast<double>(want[i]);
    const bool ok = std::isnan(w)   ? std::isnan(g)
                    : std::isinf(w) ? g == w
                                    : std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok && failures++ == 0)
      first = i;
  }
  CHECK_MESSAGE(failures == 0, failures, " of ", want.size(), " differ; first at ", first, ": got ",
                first < 0 ? 0.0 : tc::cast<double>(got[first]), ", want ",
                first < 0 ? 0.0 : tc::cast<double>(want[first]));
}

/// Exact agreement (NaN matching NaN): data movement, integer arithmetic, max/argmax.
template <typename T> void expectEqual(const Array<T> &got, const Array<T> &want) {
  expectNear(got, want, 0.0, 0.0);
}

/// Relative precision of one rounding to T (2^-mantissa bits): the tolerance unit of a result
/// rounded once from a more precise value.
template <typename T> inline double unitRoundoff() {
  if (std::is_same<T, tc::half>::value)
    return std::ldexp(1.0, -11);
  if (std::is_same<T, tc::bfloat16>::value)
    return std::ldexp(1.0, -8);
  if (std::is_same<T, double>::value)
    return std::ldexp(1.0, -53);
  return std::ldexp(1.0, -24);
}

/// Relative tolerance of a result both sides accumulate in double but in different orders,
/// then round to T: one rounding of T either way, or for double itself the reordering noise
/// (sums of <= 1500 terms of one sign-mixed magnitude: far below 1e-12 relative).
template <typename T> inline double reorderedSumTolerance() {
  return std::is_same<T, double>::value ? 1e-12 : 2 * unitRoundoff<T>();
}

} // namespace lib_test
