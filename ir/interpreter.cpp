// The reference interpreter's driver and the numeric helpers its op families share. The ops
// themselves live in ir/interpreter_{elementwise,reduction,nn,pool,shape}.cpp.
//
// interpret():
//  1. Check the user inputs against their types: bind every dim that is a plain symbol from
//     the given shapes, then check every dim (static, or a compound expression evaluated with
//     the bindings) and each bound symbol against its range in graph.symbols().
//  2. Copy the user inputs (strided views) and the weights (from the WeightProvider, checked
//     against their input types) into dense Tensors of doubles.
//  3. Run the nodes in graph order: evaluate the result shapes, run the node's op family,
//     round every result to its dtype, and free each value after its last use.
//  4. Encode the graph outputs as contiguous HostTensors in their dtypes.
#include "ir/interpreter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "ir/interpreter_internal.h"

namespace thunderc::ir {
namespace interp {
namespace {

/// Rounds a finite non-zero double to a binary float format with `mantissaBits` explicit
/// mantissa bits and smallest normal exponent `minExponent`, to nearest even (nearbyint in
/// the default rounding mode). Scaling by powers of two is exact, so this is one rounding.
double roundToFloatFormat(double value, int mantissaBits, int minExponent, double maxFinite) {
  if (!std::isfinite(value) || value == 0.0)
    return value;
  int exponent = 0;
  std::frexp(value, &exponent); // |value| = f * 2^exponent with f in [0.5, 1)
  int unitExponent = std::max(exponent - 1, minExponent) - mantissaBits;
  double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -unitExponent)), unitExponent);
  if (std::fabs(rounded) > maxFinite)
    return std::copysign(std::numeric_limits<double>::infinity(), value);
  return rounded;
}

/// Truncates toward zero and wraps modulo 2^width; fmod is exact, so is every step.
double roundToInteger(double value, DType dtype) {
  double truncated = std::trunc(value);
  int width = static_cast<int>(dtypeSize(dtype)) * 8;
  if (!std::isfinite(truncated)) {
    if (dtype == DType::I32 || dtype == DType::I64)
      return -std::ldexp(1.0, width - 1);
    return 0.0;
  }
  double modulus = std::ldexp(1.0, width);
  double wrapped = std::fmod(truncated, modulus) + 0.0; // + 0.0 turns -0 into 0
  if (dtype == DType::U8)
    return wrapped < 0 ? wrapped + modulus : wrapped;
  double half = modulus / 2;
  if (wrapped >= half)
    return wrapped - modulus;
  if (wrapped < -half)
    return wrapped + modulus;
  return wrapped;
}

template <typename T> T loadAs(const uint8_t *address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

template <typename T> void storeAs(uint8_t *address, T value) {
  std::memcpy(address, &value, sizeof(T));
}

} // namespace

double roundToDType(double value, DType dtype) {
  switch (dtype) {
  case DType::F64: return value;
  case DType::F32: return static_cast<double>(static_cast<float>(value));
  case DType::F16: return roundToFloatFormat(value, 10, -14, 65504.0);
  case DType::BF16:
    return roundToFloatFormat(value, 7, -126, std::ldexp(255.0, 120)); // (2 - 2^-7) * 2^127
  case DType::Bool: return value != 0.0 ? 1.0 : 0.0;
  case DType::U8:
  case DType::I8:
  case DType::I16:
  case DType::I32:
  case DType::I64: return roundToInteger(value, dtype);
  }
  return value;
}

int64_t wrapInteger(int64_t value, DType dtype) {
  switch (dtype) {
  case DType::Bool: return value != 0;
  case DType::U8: return static_cast<uint8_t>(value);
  case DType::I8: return static_cast<int8_t>(value);
  case DType::I16: return static_cast<int16_t>(value);
  case DType::I32: return static_cast<int32_t>(value);
  default: return value;
  }
}

uint16_t halfBits(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value))
    return sign | 0x7E00;
  double magnitude = std::fabs(value);
  if (magnitude == 0.0)
    return sign;
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  int unbiased = exponent - 1;
  if (std::isinf(magnitude) || unbiased > 15)
    return sign | 0x7C00;
  if (unbiased < -14) // subnormal: an exact multiple of 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(magnitude, 24));
  auto mantissa = static_cast<uint16_t>(std::ldexp(magnitude, 10 - unbiased) - 1024.0);
  return sign | static_cast<uint16_t>((unbiased + 15) << 10) | mantissa;
}

double halfFromBits(uint16_t bits) {
  double sign = (bits & 0x8000) ? -1.0 : 1.0;
  int exponent = (bits >> 10) & 0x1F;
  int mantissa = bits & 0x3FF;
  if (exponent == 0)
    return sign * std::ldexp(mantissa, -24);
  if (exponent == 31)
    return mantissa ? std::numeric_limits<double>::quiet_NaN()
                    : sign * std::numeric_limits<double>::infinity();
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

uint16_t bfloat16Bits(double value) {
  if (std::isnan(value))
    return 0x7FC0;
  auto single = static_cast<float>(value); // exact: bf16 values are f32 values
  uint32_t bits;
  std::memcpy(&bits, &single, sizeof(bits));
  return static_cast<uint16_t>(bits >> 16);
}

double bfloat16FromBits(uint16_t bits) {
  uint32_t widened = static_cast<uint32_t>(bits) << 16;
  float single;
  std::memcpy(&single, &widened, sizeof(single));
  return single;
}

double readElement(const uint8_t *address, DType dtype) {
  switch (dtype) {
  case DType::Bool: return *address != 0 ? 1.0 : 0.0;
  case DType::U8: return *address;
  case DType::I8: return loadAs<int8_t>(address);
  case DType::I16: return loadAs<int16_t>(address);
  case DType::I32: return loadAs<int32_t>(address);
  case DType::I64: return static_cast<double>(loadAs<int64_t>(address));
  case DType::F16: return halfFromBits(loadAs<uint16_t>(address));
  case DType::BF16: return bfloat16FromBits(loadAs<uint16_t>(address));
  case DType::F32: return loadAs<float>(address);
  case DType::F64: return loadAs<double>(address);
  }
  return 0.0;
}

void writeElement(uint8_t *address, DType dtype, double value) {
  switch (dtype) {
  case DType::Bool: *address = value != 0.0 ? 1 : 0; return;
  case DType::U8: *address = static_cast<uint8_t>(static_cast<int64_t>(value)); return;
  case DType::I8: storeAs(address, static_cast<int8_t>(value)); return;
  case DType::I16: storeAs(address, static_cast<int16_t>(value)); return;
  case DType::I32: storeAs(address, static_cast<int32_t>(value)); return;
  case DType::I64: storeAs(address, static_cast<int64_t>(value)); return;
  case DType::F16: storeAs(address, halfBits(value)); return;
  case DType::BF16: storeAs(address, bfloat16Bits(value)); return;
  case DType::F32: storeAs(address, static_cast<float>(value)); return;
  case DType::F64: storeAs(address, value); return;
  }
}

int64_t shapeNumel(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

Expected<int64_t> normalizeDim(int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank)
    return invalidInput("dim " + std::to_string(dim) + " is out of range for rank " +
                        std::to_string(rank));
  return dim < 0 ? dim + rank : dim;
}

Expected<std::vector<int64_t>> broadcastShapes(const std::vector<int64_t> &a,
                                               const std::vector<int64_t> &b) {
  size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t dimA = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t dimB = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (dimA != dimB && dimA != 1 && dimB != 1)
      return invalidInput("shapes " + shapeText(a) + " and " + shapeText(b) +
                          " do not broadcast");
    shape[i] = dimA == 1 ? dimB : dimA;
  }
  return shape;
}

std::vector<int64_t> broadcastStrides(const std::vector<int64_t> &shape,
                                      const std::vector<int64_t> &outShape) {
  TC_CHECK(shape.size() <= outShape.size(), "broadcast to a lower rank");
  std::vector<int64_t> strides(outShape.size(), 0);
  size_t lead = outShape.size() - shape.size();
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    TC_CHECK(shape[i] == outShape[lead + i] || shape[i] == 1, "shapes do not broadcast");
    strides[lead + i] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

Status expectShape(const Tensor &result, const std::vector<int64_t> &expected) {
  if (result.shape == expected)
    return Status::success();
  return invalidInput("result type has shape " + shapeText(result.shape) +
                      " but the op computes " + shapeText(expected));
}

} // namespace interp

namespace {

using interp::Bindings;
using interp::Tensor;

std::string concreteTypeText(DType dtype, const std::vector<int64_t> &shape) {
  return std::string(dtypeName(dtype)) + interp::shapeText(shape);
}

std::string inputLabel(const Graph &graph, int index) {
  const Value &value = *graph.input(index);
  std::string label = "input " + std::to_string(index) + " '" + value.name() + "'";
  if (value.inputKind() != InputKind::User)
    label += " (weight '" + value.weightName() + "')";
  return label;
}

std::string nodeLabel(const Node &node, int position) {
  std::string name = node.name();
  if (name.empty())
    name = node.result()->name().empty() ? "#" + std::to_string(position)
                                          : "%" + node.result()->name();
  return "node '" + name + "' (" + std::string(node.info().name) + ")";
}

/// Every dim of `shape` under `bindings`; error if a symbol is unbound or a dim is negative.
Expected<std::vector<int64_t>> evaluateShape(const Shape &shape, const Bindings &bindings) {
  std::vector<int64_t> values;
  for (const Dim &dim : shape) {
    if (dim.isStatic()) {
      values.push_back(dim.value());
      continue;
    }
    std::optional<int64_t> value = dim.expr().evaluate(bindings);
    if (!value)
      return invalidInput("dim " + dim.str() +
                          " cannot be evaluated: a symbol is not bound by any input dim");
    if (*value < 0)
      return invalidInput("dim " + dim.str() + " evaluates to " + std::to_string(*value));
    values.push_back(*value);
  }
  return values;
}

/// Checks a borrowed view's own consistency; the buffer bounds are the caller's contract.
Status checkView(const TensorView &view) {
  if (view.strides.size() != view.shape.size())
    return invalidInput("view has " + std::to_string(view.shape.size()) + " dims but " +
                        std::to_string(view.strides.size()) + " strides");
  for (int64_t dim : view.shape)
    if (dim < 0)
      return invalidInput("view has negative dim in shape " + interp::shapeText(view.shape));
  if (view.data == nullptr && interp::shapeNumel(view.shape) != 0)
    return invalidInput("view has no data");
  return Status::success();
}

/// Step 1 of interpret(): binds symbols from plain-symbol dims, then checks all dims.
Expected<Bindings> bindSymbols(const Graph &graph, const std::vector<TensorView> &userInputs,
                               const std::vector<int> &userInputIndices) {
  Bindings bindings;
  std::map<std::string, std::string> boundBy; // symbol -> label of the input that bound it
  for (size_t i = 0; i < userInputIndices.size(); ++i) {
    int index = userInputIndices[i];
    const TensorType &type = graph.input(index)->type();
    const TensorView &view = userInputs[i];
    std::string label = inputLabel(graph, index);
    TC_TRY_CONTEXT(checkView(view), label);
    if (view.dtype != type.dtype || static_cast<int64_t>(view.shape.size()) != type.rank())
      return invalidInput(label + ": expected " + type.str() + ", got " +
                          concreteTypeText(view.dtype, view.shape));
    for (size_t d = 0; d < type.shape.size(); ++d) {
      const Dim &dim = type.shape[d];
      if (dim.isStatic() || dim.expr().kind() != SymExpr::Kind::Symbol)
        continue;
      const std::string &symbol = dim.expr().symbolName();
      auto [it, inserted] = bindings.emplace(symbol, view.shape[d]);
      if (!inserted && it->second != view.shape[d])
        return invalidInput(label + ": dim " + std::to_string(d) + " is " +
                            std::to_string(view.shape[d]) + " but symbol " + symbol + " is " +
                            std::to_string(it->second) + " from " + boundBy[symbol]);
      boundBy.emplace(symbol, label);
    }
  }
  for (const auto &[symbol, value] : bindings) {
    auto range = graph.symbols().find(symbol);
    if (range == graph.symbols().end())
      continue;
    const SymbolRange &bounds = range->second;
    if (value >= bounds.min && (!bounds.max || value <= *bounds.max))
      continue;
    std::string max = bounds.max ? std::to_string(*bounds.max) : "inf";
    return invalidInput(boundBy[symbol] + ": symbol " + symbol + " = " + std::to_string(value) +
                        " is outside its range [" + std::to_string(bounds.min) + ", " + max +
                        "]");
  }
  for (size_t i = 0; i < userInputIndices.size(); ++i) {
    const TensorType &type = graph.input(userInputIndices[i])->type();
    std::string label = inputLabel(graph, userInputIndices[i]);
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> expected,
                        interp::withContext(evaluateShape(type.shape, bindings), label));
    if (expected != userInputs[i].shape)
      return invalidInput(label + ": expected " + type.str() + ", got " +
                          concreteTypeText(userInputs[i].dtype, userInputs[i].shape));
  }
  return bindings;
}

/// Copies a strided view into a dense tensor of doubles (dtype and shape already checked).
Tensor tensorFromView(const TensorView &view) {
  Tensor tensor{view.dtype, view.shape, std::vector<double>(
                                            static_cast<size_t>(interp::shapeNumel(view.shape)))};
  int64_t elementSize = dtypeSize(view.dtype);
  interp::forEachIndex<1>(view.shape, {&view.strides},
                          [&](int64_t linear, const std::array<int64_t, 1> &offsets) {
                            tensor.data[static_cast<size_t>(linear)] = interp::readElement(
                                view.data + offsets[0] * elementSize, view.dtype);
                          });
  return tensor;
}

HostTensor toHostTensor(const Tensor &tensor) {
  HostTensor host;
  host.dtype = tensor.dtype;
  host.shape = tensor.shape;
  int64_t elementSize = dtypeSize(tensor.dtype);
  host.bytes.resize(static_cast<size_t>(tensor.numel() * elementSize));
  for (int64_t i = 0; i < tensor.numel(); ++i)
    interp::writeElement(host.bytes.data() + i * elementSize, tensor.dtype,
                         tensor.data[static_cast<size_t>(i)]);
  return host;
}

/// Routes a node to its op family. The switch names every op, so a new op in ir/ops.def
/// that the interpreter does not know is a -Wswitch warning.
Status runNode(interp::OpCall &call) {
  switch (call.node.op()) {
  case OpKind::Neg:
  case OpKind::Abs:
  case OpKind::Relu:
  case OpKind::Sigmoid:
  case OpKind::Tanh:
  case OpKind::Exp:
  case OpKind::Log:
  case OpKind::Sqrt:
  case OpKind::Rsqrt:
  case OpKind::Reciprocal:
  case OpKind::Erf:
  case OpKind::Sin:
  case OpKind::Cos:
  case OpKind::Floor:
  case OpKind::Ceil:
  case OpKind::Silu:
  case OpKind::Hardswish:
  case OpKind::Hardsigmoid:
  case OpKind::Gelu:
  case OpKind::Clamp:
  case OpKind::LogicalNot:
  case OpKind::Cast:
  case OpKind::Copy:
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::FloorDivide:
  case OpKind::Remainder:
  case OpKind::Pow:
  case OpKind::Maximum:
  case OpKind::Minimum:
  case OpKind::Eq:
  case OpKind::Ne:
  case OpKind::Lt:
  case OpKind::Le:
  case OpKind::Gt:
  case OpKind::Ge:
  case OpKind::LogicalAnd:
  case OpKind::LogicalOr:
  case OpKind::Where: return interp::runElementwiseOp(call);
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Amax:
  case OpKind::Amin:
  case OpKind::Prod:
  case OpKind::Any:
  case OpKind::Var:
  case OpKind::Argmax: return interp::runReductionOp(call);
  case OpKind::Softmax:
  case OpKind::LogSoftmax:
  case OpKind::LayerNorm:
  case OpKind::BatchNorm:
  case OpKind::Linear:
  case OpKind::Matmul:
  case OpKind::Addmm:
  case OpKind::Conv2d:
  case OpKind::Attention: return interp::runNnOp(call);
  case OpKind::MaxPool2d:
  case OpKind::AvgPool2d:
  case OpKind::AdaptiveAvgPool2d: return interp::runPoolOp(call);
  case OpKind::Reshape:
  case OpKind::Permute:
  case OpKind::Expand:
  case OpKind::Slice:
  case OpKind::Select:
  case OpKind::Squeeze:
  case OpKind::Unsqueeze:
  case OpKind::Concat:
  case OpKind::Split:
  case OpKind::Tril:
  case OpKind::Triu:
  case OpKind::Full:
  case OpKind::Arange:
  case OpKind::Embedding:
  case OpKind::IndexSelect: return interp::runShapeOp(call);
  case OpKind::AtenCall: break; // refused by interpret() before its results are allocated
  }
  TC_CHECK(false, "op kind without an interpreter family");
}

} // namespace

Expected<std::vector<HostTensor>> interpret(const Graph &graph,
                                            const std::vector<TensorView> &userInputs,
                                            const WeightProvider &weights) {
  // 1. Bind and check the user inputs.
  std::vector<int> userInputIndices;
  for (int i = 0; i < graph.numInputs(); ++i)
    if (graph.input(i)->inputKind() == InputKind::User)
      userInputIndices.push_back(i);
  if (userInputs.size() != userInputIndices.size())
    return invalidInput("expected " + std::to_string(userInputIndices.size()) +
                        " user inputs, got " + std::to_string(userInputs.size()));
  TC_ASSIGN_OR_RETURN(Bindings bindings, bindSymbols(graph, userInputs, userInputIndices));

  // 2. Dense copies of the inputs and weights.
  std::unordered_map<const Value *, Tensor> live;
  for (size_t i = 0; i < userInputIndices.size(); ++i)
    live.emplace(graph.input(userInputIndices[i]), tensorFromView(userInputs[i]));
  for (int i = 0; i < graph.numInputs(); ++i) {
    const Value &input = *graph.input(i);
    if (input.inputKind() == InputKind::User)
      continue;
    std::string label = inputLabel(graph, i);
    TC_ASSIGN_OR_RETURN(TensorView view, interp::withContext(weights(input), label));
    TC_TRY_CONTEXT(checkView(view), label);
    TC_ASSIGN_OR_RETURN(std::vector<int64_t> expected,
                        interp::withContext(evaluateShape(input.type().shape, bindings), label));
    if (view.dtype != input.type().dtype || view.shape != expected)
      return invalidInput(label + ": expected " + input.type().str() + ", got " +
                          concreteTypeText(view.dtype, view.shape));
    live.emplace(&input, tensorFromView(view));
  }

  // The node position after which each value is dead (graph outputs never are).
  std::unordered_map<const Value *, int> lastUse;
  int position = 0;
  for (const auto &node : graph.nodes()) {
    for (Value *operand : node->operands())
      lastUse[operand] = position;
    ++position;
  }
  auto releaseIfDead = [&](const Value *value, int now) {
    auto it = lastUse.find(value);
    bool deadNow = it == lastUse.end() ? true : it->second <= now;
    if (deadNow && !graph.isOutput(value))
      live.erase(value);
  };
  for (int i = 0; i < graph.numInputs(); ++i)
    if (lastUse.find(graph.input(i)) == lastUse.end())
      releaseIfDead(graph.input(i), -1);

  // 3. Run the nodes.
  position = 0;
  for (const auto &nodePtr : graph.nodes()) {
    const Node &node = *nodePtr;
    std::string label = nodeLabel(node, position);
    if (node.op() == OpKind::AtenCall)
      return unsupported(label + ": exported op '" + node.attrs().getStr("target") +
                         "' has no thunderc equivalent");
    interp::OpCall call{node, bindings, {}, {}};
    for (Value *operand : node.operands()) {
      auto it = live.find(operand);
      TC_CHECK(it != live.end(), label + ": operand used before it is defined or after free");
      call.operands.push_back(&it->second);
    }
    for (int r = 0; r < node.numResults(); ++r) {
      const TensorType &type = node.result(r)->type();
      TC_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                          interp::withContext(evaluateShape(type.shape, bindings), label));
      size_t count = static_cast<size_t>(interp::shapeNumel(shape));
      call.results.push_back(Tensor{type.dtype, std::move(shape), std::vector<double>(count)});
    }
    TC_TRY_CONTEXT(runNode(call), label);
    for (int r = 0; r < node.numResults(); ++r) {
      Tensor &result = call.result(r);
      TC_CHECK(result.numel() == interp::shapeNumel(result.shape), label + ": result resized");
      if (result.dtype != DType::F64)
        for (double &element : result.data)
          element = interp::roundToDType(element, result.dtype);
      live.emplace(node.result(r), std::move(result));
    }
    for (Value *operand : node.operands())
      releaseIfDead(operand, position);
    for (int r = 0; r < node.numResults(); ++r)
      releaseIfDead(node.result(r), position);
    ++position;
  }

  // 4. Encode the outputs.
  std::vector<HostTensor> outputs;
  for (const Value *output : graph.outputs()) {
    auto it = live.find(output);
    TC_CHECK(it != live.end(), "graph output is not computed by the graph");
    outputs.push_back(toHostTensor(it->second));
  }
  return outputs;
}

} // namespace thunderc::ir
