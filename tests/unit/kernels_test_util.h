// Helpers shared by the tests of the bundle kernel library (kernels_*_test.cpp): random
// operands, running one op through the reference interpreter (the oracle), converting
// between typed kernel buffers and doubles, and per-dtype tolerances.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "interpreter_test_util.h"
#include "ir/shape_inference.h"
#include "tc_kernels.h"

namespace kernels_test {

using namespace interpreter_test;

/// The IR dtype of a kernel element type.
template <typename T> DType dtypeOf();
template <> inline DType dtypeOf<float>() { return DType::F32; }
template <> inline DType dtypeOf<double>() { return DType::F64; }
template <> inline DType dtypeOf<tc::half>() { return DType::F16; }
template <> inline DType dtypeOf<tc::bfloat16>() { return DType::BF16; }
template <> inline DType dtypeOf<int64_t>() { return DType::I64; }
template <> inline DType dtypeOf<int32_t>() { return DType::I32; }
template <> inline DType dtypeOf<int16_t>() { return DType::I16; }
template <> inline DType dtypeOf<int8_t>() { return DType::I8; }
template <> inline DType dtypeOf<uint8_t>() { return DType::U8; }
template <> inline DType dtypeOf<bool>() { return DType::Bool; }

/// Relative-or-absolute tolerance (checkValues: tolerance * max(1, |expected|)) for kernel
/// results of `dtype` against the interpreter. Both compute in double and round once, so
/// f16/bf16 differ by at most one unit in the last place; f32 allows BLAS's float GEMM.
inline double toleranceFor(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return 1e-12;
  case DType::F32:
    return 1e-5;
  case DType::F16:
    return 2e-3;
  case DType::BF16:
    return 1.6e-2;
  default:
    return 0.0;
  }
}

/// `count` values uniform in [low, high) from a fixed seed, so failures reproduce.
inline std::vector<double> randomValues(int64_t count, uint64_t seed, double low = -2.0,
                                        double high = 2.0) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> distribution(low, high);
  std::vector<double> values(static_cast<size_t>(count));
  for (double &value : values)
    value = distribution(engine);
  return values;
}

inline int64_t numelOf(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

/// A random tensor of `dtype` (values already rounded to it); integers are drawn from
/// [low, high) and truncated.
inline HostTensor randomTensor(DType dtype, const std::vector<int64_t> &shape, uint64_t seed,
                               double low = -2.0, double high = 2.0) {
  return makeTensor(dtype, shape, randomValues(numelOf(shape), seed, low, high));
}

/// The tensor's elements as a typed kernel buffer (exact: every value is representable).
template <typename T> std::vector<T> typedOf(const HostTensor &tensor) {
  std::vector<T> typed;
  for (double value : valuesOf(tensor))
    typed.push_back(tc::cast<T>(value));
  return typed;
}

/// A typed kernel buffer widened to doubles, for checkValues.
template <typename T> std::vector<double> doublesOf(const std::vector<T> &typed) {
  std::vector<double> values;
  for (const T &value : typed)
    values.push_back(tc::cast<double>(value));
  return values;
}

/// std::vector<bool> has no data(); kernels write bool buffers through this.
template <typename T>
using Buffer = std::vector<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;

/// The result type shape inference gives `op` on `inputs` with `attributes` (the verifier's
/// view of the op, so the kernel is checked against the shapes the compiler will plan).
inline TensorType inferredType(OpKind op, const std::vector<HostTensor> &inputs,
                               const AttrMap &attributes) {
  std::vector<TensorType> operandTypes;
  for (const HostTensor &input : inputs)
    operandTypes.push_back(typeOf(input));
  Expected<std::vector<TensorType>> types = inferResultTypes(op, operandTypes, attributes, {});
  if (!types.ok())
    FAIL(opName(op) << ": " << types.error().message());
  REQUIRE(types->size() == 1);
  return (*types)[0];
}

/// The concrete shape of a static type.
inline std::vector<int64_t> shapeOf(const TensorType &type) {
  std::vector<int64_t> shape;
  for (const Dim &dim : type.shape) {
    REQUIRE(dim.isStatic());
    shape.push_back(dim.value());
  }
  return shape;
}

/// The interpreter's result of the one-node graph `op(inputs)`, whose type is inferred.
inline std::vector<double> interpretOp(OpKind op, const std::vector<HostTensor> &inputs,
                                       const AttrMap &attributes = {}) {
  return evalOp(op, inputs, inferredType(op, inputs, attributes), attributes);
}

/// Human-readable shape for INFO messages.
inline std::string shapeString(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

/// A [rows, cols] matrix stored transposed ([cols, rows]).
template <typename T>
std::vector<T> transposed(const std::vector<T> &matrix, int64_t rows, int64_t cols) {
  std::vector<T> result(matrix.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      result[static_cast<size_t>(c * rows + r)] = matrix[static_cast<size_t>(r * cols + c)];
  return result;
}

} // namespace kernels_test
