// Helpers shared by the reference-interpreter tests (interpreter_test.cpp and
// interpreter_ops_test.cpp): building tensors from values, running a one-node graph, and
// comparing results with tolerance (expected numbers come from PyTorch 2.9 eager).
#pragma once

#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/interpreter.h"
#include "ir/interpreter_internal.h"
#include "ir/verifier.h"

namespace interpreter_test {

using namespace thunderc;
using namespace thunderc::ir;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// A contiguous tensor holding `values` rounded to `dtype`.
inline HostTensor makeTensor(DType dtype, std::vector<int64_t> shape,
                             const std::vector<double> &values) {
  HostTensor tensor;
  tensor.dtype = dtype;
  tensor.shape = std::move(shape);
  REQUIRE(static_cast<int64_t>(values.size()) == tensor.numel());
  int64_t size = dtypeSize(dtype);
  tensor.bytes.resize(values.size() * static_cast<size_t>(size));
  for (size_t i = 0; i < values.size(); ++i)
    interp::writeElement(tensor.bytes.data() + i * size, dtype,
                         interp::roundToDType(values[i], dtype));
  return tensor;
}

inline HostTensor f32(std::vector<int64_t> shape, const std::vector<double> &values) {
  return makeTensor(DType::F32, std::move(shape), values);
}

inline std::vector<double> valuesOf(const HostTensor &tensor) {
  std::vector<double> values;
  int64_t size = dtypeSize(tensor.dtype);
  for (int64_t i = 0; i < tensor.numel(); ++i)
    values.push_back(interp::readElement(tensor.bytes.data() + i * size, tensor.dtype));
  return values;
}

/// The 16-bit patterns of an f16/bf16 tensor.
inline std::vector<uint16_t> bitsOf(const HostTensor &tensor) {
  std::vector<uint16_t> bits(static_cast<size_t>(tensor.numel()));
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = static_cast<uint16_t>(tensor.bytes[2 * i] | (tensor.bytes[2 * i + 1] << 8));
  return bits;
}

inline TensorType typeOf(DType dtype, std::vector<int64_t> shape) {
  return TensorType{dtype, Shape(shape.begin(), shape.end())};
}

inline TensorType typeOf(const HostTensor &tensor) { return typeOf(tensor.dtype, tensor.shape); }

inline AttrMap attrs(std::initializer_list<std::pair<std::string, AttrValue>> entries) {
  AttrMap map;
  for (const auto &[name, value] : entries)
    map.set(name, value);
  return map;
}

inline Expected<TensorView> noWeights(const Value &input) {
  return invalidInput("no weight '" + input.weightName() + "'");
}

/// The graph passes the verifier (interpreter tests run verified IR, like every stage).
inline void checkVerified(const Graph &graph) {
  Status verified = verifyGraph(graph);
  CHECK_MESSAGE(verified.ok(), (verified.ok() ? "" : verified.error().message()));
}

/// Runs a graph of one `op` node whose operands are user inputs holding `inputs`. With
/// `verify`, the graph must also pass the verifier, so the interpreter's idea of each op's
/// result shape is checked against shape inference's.
inline Expected<std::vector<HostTensor>> runOp(OpKind op, const std::vector<HostTensor> &inputs,
                                               std::vector<TensorType> results,
                                               AttrMap attributes = {}, bool verify = true) {
  Graph graph;
  std::vector<Value *> operands;
  std::vector<TensorView> views;
  for (size_t i = 0; i < inputs.size(); ++i) {
    operands.push_back(graph.addInput("x" + std::to_string(i), typeOf(inputs[i])));
    views.push_back(inputs[i].view());
  }
  Node *node = graph.appendNode(op, operands, std::move(results), std::move(attributes));
  std::vector<Value *> outputs;
  for (int r = 0; r < node->numResults(); ++r)
    outputs.push_back(node->result(r));
  graph.setOutputs(outputs);
  if (verify)
    checkVerified(graph);
  return interpret(graph, views, noWeights);
}

/// The values of the single result of runOp, which must succeed with the result's shape.
inline std::vector<double> evalOp(OpKind op, const std::vector<HostTensor> &inputs,
                                  const TensorType &result, AttrMap attributes = {}) {
  Expected<std::vector<HostTensor>> outputs = runOp(op, inputs, {result}, std::move(attributes));
  if (!outputs.ok())
    FAIL(opName(op) << ": " << outputs.error().message());
  REQUIRE(outputs->size() == 1);
  CHECK((*outputs)[0].dtype == result.dtype);
  return valuesOf((*outputs)[0]);
}

/// The error message of runOp on an unverified graph, which must fail.
inline std::string opError(OpKind op, const std::vector<HostTensor> &inputs,
                           const TensorType &result, AttrMap attributes = {}) {
  Expected<std::vector<HostTensor>> outputs =
      runOp(op, inputs, {result}, std::move(attributes), /*verify=*/false);
  if (outputs.ok())
    FAIL(opName(op) << ": expected an error");
  return outputs.error().message();
}

/// Element-wise comparison: NaN matches NaN, infinities match exactly, other values within
/// `tolerance` relative to max(1, |expected|).
inline void checkValues(const std::vector<double> &actual, const std::vector<double> &expected,
                        double tolerance = 1e-6) {
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    INFO("element " << i << ": got " << actual[i] << ", expected " << expected[i]);
    if (std::isnan(expected[i]))
      CHECK(std::isnan(actual[i]));
    else if (std::isinf(expected[i]))
      CHECK(actual[i] == expected[i]);
    else
      CHECK(std::fabs(actual[i] - expected[i]) <=
            tolerance * std::max(1.0, std::fabs(expected[i])));
  }
}

inline bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

} // namespace interpreter_test
