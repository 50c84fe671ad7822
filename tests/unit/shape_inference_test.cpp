// Unit tests for ir/shape_inference.h: one valid example per op of ir/ops.def, then per family
// the edge cases (symbolic dims, broadcasting, size-0 and size-1 dims, negative dims,
// ceil_mode pooling) and the documented errors. Expected symbolic dims are the ones
// torch.export records (checked against torch 2.x where noted).
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/shape_inference.h"

namespace {

using namespace thunderc;
using namespace thunderc::ir;

// Splits "2,?max(s0,1),4" at the commas outside parentheses.
std::vector<std::string> splitTopLevel(std::string_view text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : text) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  if (!current.empty())
    parts.push_back(current);
  return parts;
}

Dim parseDim(const std::string &text) {
  if (text[0] != '?')
    return Dim(std::stoll(text));
  Expected<SymExpr> expr = parseSymExpr(text.substr(1));
  REQUIRE(expr.ok());
  return Dim(*expr);
}

// "[2,?s0]" -> shape.
Shape parseShape(std::string_view text) {
  REQUIRE(text.front() == '[');
  REQUIRE(text.back() == ']');
  Shape shape;
  for (const std::string &part : splitTopLevel(text.substr(1, text.size() - 2)))
    shape.push_back(parseDim(part));
  return shape;
}

// "f32[2,?s0]" -> type.
TensorType parseType(std::string_view text) {
  size_t bracket = text.find('[');
  std::optional<DType> dtype = parseDType(text.substr(0, bracket));
  REQUIRE(dtype.has_value());
  return TensorType{*dtype, parseShape(text.substr(bracket))};
}

AttrValue intAttr(int64_t value) { return value; }
AttrValue intsAttr(std::vector<int64_t> values) { return values; }
AttrValue dimAttr(const std::string &text) { return makeDimAttr(parseDim(text)); }
AttrValue dimsAttr(std::string_view text) { return makeDimsAttr(parseShape(text)); }

AttrMap attrs(std::initializer_list<std::pair<std::string, AttrValue>> entries) {
  AttrMap map;
  for (const auto &[name, value] : entries)
    map.set(name, value);
  return map;
}

// Builds a graph with one input per operand type and one `op` node declared with `declared`,
// and infers the node's result types: "f32[2,3]", "f32[2], f32[3]" or "error: <message>".
std::string infer(OpKind op, const std::vector<std::string> &operandTypes, AttrMap nodeAttrs = {},
                  const std::vector<std::string> &declaredTypes = {}) {
  Graph graph;
  std::vector<Value *> operands;
  for (size_t i = 0; i < operandTypes.size(); ++i)
    operands.push_back(graph.addInput("x" + std::to_string(i), parseType(operandTypes[i])));
  std::vector<TensorType> declared;
  for (const std::string &text : declaredTypes)
    declared.push_back(parseType(text));
  Node *node = graph.appendNode(op, operands, declared, std::move(nodeAttrs));

  std::vector<TensorType> types;
  for (const Value *operand : node->operands())
    types.push_back(operand->type());
  Expected<std::vector<TensorType>> inferred =
      inferResultTypes(node->op(), types, node->attrs(), declared);
  if (!inferred.ok())
    return "error: " + inferred.error().message();
  std::string text;
  for (size_t i = 0; i < inferred->size(); ++i)
    text += (i ? ", " : "") + (*inferred)[i].str();
  return text;
}

std::string broadcast(std::string_view a, std::string_view b) {
  Expected<Shape> shape = broadcastShapes(parseShape(a), parseShape(b));
  return shape.ok() ? shapeStr(*shape) : "error: " + shape.error().message();
}

AttrMap poolAttrs(std::vector<int64_t> kernel, std::vector<int64_t> stride,
                  std::vector<int64_t> padding, bool ceilMode) {
  return attrs({{"ceil_mode", ceilMode},
                {"dilation", intsAttr({1, 1})},
                {"kernel", intsAttr(std::move(kernel))},
                {"padding", intsAttr(std::move(padding))},
                {"stride", intsAttr(std::move(stride))}});
}

AttrMap avgPoolAttrs(std::vector<int64_t> kernel, std::vector<int64_t> stride,
                     std::vector<int64_t> padding, bool ceilMode) {
  return attrs({{"ceil_mode", ceilMode},
                {"count_include_pad", true},
                {"kernel", intsAttr(std::move(kernel))},
                {"padding", intsAttr(std::move(padding))},
                {"stride", intsAttr(std::move(stride))}});
}

AttrMap convAttrs(std::vector<int64_t> stride, std::vector<int64_t> padding,
                  std::vector<int64_t> dilation = {1, 1}, int64_t groups = 1) {
  return attrs({{"dilation", intsAttr(std::move(dilation))},
                {"groups", intAttr(groups)},
                {"padding", intsAttr(std::move(padding))},
                {"stride", intsAttr(std::move(stride))}});
}

AttrMap convTransposeAttrs(std::vector<int64_t> stride, std::vector<int64_t> padding,
                           std::vector<int64_t> outputPadding = {0, 0},
                           std::vector<int64_t> dilation = {1, 1}, int64_t groups = 1) {
  AttrMap map = convAttrs(std::move(stride), std::move(padding), std::move(dilation), groups);
  map.set("output_padding", intsAttr(std::move(outputPadding)));
  return map;
}

AttrMap reduceAttrs(std::vector<int64_t> dims, bool keepdim) {
  return attrs({{"dims", intsAttr(std::move(dims))}, {"keepdim", keepdim}});
}

// One valid use of an op and the types it infers.
struct Example {
  OpKind op;
  std::vector<std::string> operands;
  AttrMap attrs;
  std::vector<std::string> declared;
  std::string expected;
};

std::vector<Example> examples() {
  std::vector<Example> list;
  // Every unary op of ir/ops.def that keeps its operand's type and has only required float
  // attributes (set to 0.5), so a new such row needs no example of its own.
  for (int i = 0; i < kNumOps; ++i) {
    const OpInfo &info = opInfo(static_cast<OpKind>(i));
    bool keepsType = info.dtypeRule == DTypeRule::Same || info.dtypeRule == DTypeRule::Floating;
    bool floatAttributes =
        std::all_of(info.attributes.begin(), info.attributes.end(), [](const AttrSpec &spec) {
          return spec.type == AttrType::Float && !spec.optional;
        });
    if (info.family != OpFamily::Unary || !keepsType || !floatAttributes)
      continue;
    AttrMap values;
    for (const AttrSpec &spec : info.attributes)
      values.set(spec.name, 0.5);
    list.push_back({info.kind, {"f16[2,?s0]"}, values, {}, "f16[2,?s0]"});
  }
  list.push_back(
      {OpKind::Gelu, {"f32[4]"}, attrs({{"approximate", std::string("tanh")}}), {}, "f32[4]"});
  list.push_back(
      {OpKind::Clamp, {"f32[4]"}, attrs({{"max", 6.0}, {"min", intAttr(0)}}), {}, "f32[4]"});
  list.push_back({OpKind::LogicalNot, {"f32[4]"}, {}, {}, "bool[4]"});
  list.push_back({OpKind::Cast, {"f32[4]"}, attrs({{"dtype", DType::I32}}), {}, "i32[4]"});
  for (OpKind op : {OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div, OpKind::FloorDivide,
                    OpKind::Remainder, OpKind::Pow, OpKind::Maximum, OpKind::Minimum})
    list.push_back({op, {"f32[?s0,1,3]", "f32[4,1]"}, {}, {}, "f32[?s0,4,3]"});
  for (OpKind op : {OpKind::Eq, OpKind::Ne, OpKind::Lt, OpKind::Le, OpKind::Gt, OpKind::Ge,
                    OpKind::LogicalAnd, OpKind::LogicalOr})
    list.push_back({op, {"i64[2,3]", "i64[]"}, {}, {}, "bool[2,3]"});
  list.push_back({OpKind::Where, {"bool[2,1,1]", "f32[3,1]", "f32[4]"}, {}, {}, "f32[2,3,4]"});
  // More core ATen elementwise ops.
  list.push_back({OpKind::RoundDecimals, {"bf16[?s0]"}, attrs({{"decimals", intAttr(-2)}}), {},
                  "bf16[?s0]"});
  list.push_back({OpKind::Elu,
                  {"f16[2,3]"},
                  attrs({{"alpha", 1.0}, {"input_scale", 1.0}, {"scale", 2.0}}),
                  {},
                  "f16[2,3]"});
  for (OpKind op : {OpKind::IsNan, OpKind::IsInf})
    list.push_back({op, {"f16[?s0,2]"}, {}, {}, "bool[?s0,2]"});
  list.push_back({OpKind::BitwiseNot, {"u8[3]"}, {}, {}, "u8[3]"});
  for (OpKind op : {OpKind::Atan2, OpKind::Fmod, OpKind::Zeta, OpKind::Nextafter})
    list.push_back({op, {"f32[?s0,1,3]", "f32[4,1]"}, {}, {}, "f32[?s0,4,3]"});
  // torch.special's binary functions (incomplete gamma, orthogonal polynomials).
  for (OpKind op : {OpKind::Igamma, OpKind::Igammac, OpKind::ChebyshevT, OpKind::ChebyshevU,
                    OpKind::ChebyshevV, OpKind::ChebyshevW, OpKind::ShiftedChebyshevT,
                    OpKind::ShiftedChebyshevU, OpKind::ShiftedChebyshevV,
                    OpKind::ShiftedChebyshevW, OpKind::HermiteH, OpKind::HermiteHe,
                    OpKind::LaguerreL, OpKind::LegendreP})
    list.push_back({op, {"f64[2,1]", "f64[3]"}, {}, {}, "f64[2,3]"});
  list.push_back({OpKind::LogicalXor, {"bool[2,3]", "bool[]"}, {}, {}, "bool[2,3]"});
  for (OpKind op : {OpKind::BitwiseAnd, OpKind::BitwiseOr, OpKind::BitwiseXor, OpKind::ShiftLeft,
                    OpKind::ShiftRight, OpKind::Gcd})
    list.push_back({op, {"i32[2,1]", "i32[3]"}, {}, {}, "i32[2,3]"});
  for (OpKind op : {OpKind::Sum, OpKind::Mean, OpKind::Amax, OpKind::Amin, OpKind::Prod})
    list.push_back({op, {"f32[?s0,3,4]"}, reduceAttrs({1}, false), {}, "f32[?s0,4]"});
  list.push_back({OpKind::Any, {"f32[?s0,3,4]"}, reduceAttrs({-1}, true), {}, "bool[?s0,3,1]"});
  list.push_back({OpKind::Var,
                  {"f32[2,3]"},
                  attrs({{"correction", intAttr(1)}, {"dims", intsAttr({})}, {"keepdim", false}}),
                  {},
                  "f32[]"});
  list.push_back({OpKind::Argmax,
                  {"f32[2,3]"},
                  attrs({{"dim", intAttr(1)}, {"keepdim", false}}),
                  {},
                  "i64[2]"});
  for (OpKind op : {OpKind::Softmax, OpKind::LogSoftmax})
    list.push_back({op, {"f32[?s0,10]"}, attrs({{"dim", intAttr(-1)}}), {}, "f32[?s0,10]"});
  list.push_back({OpKind::LayerNorm,
                  {"f32[?s0,8,16]", "f32[16]", "f32[16]"},
                  attrs({{"eps", 1e-5}, {"normalized_shape", intsAttr({16})}}),
                  {},
                  "f32[?s0,8,16]"});
  list.push_back({OpKind::BatchNorm,
                  {"f32[2,3,4,4]", "f32[3]", "f32[3]", "f32[3]", "f32[3]"},
                  attrs({{"eps", 1e-5}}),
                  {},
                  "f32[2,3,4,4]"});
  list.push_back(
      {OpKind::Linear, {"f32[?s0,784]", "f32[128,784]", "f32[128]"}, {}, {}, "f32[?s0,128]"});
  list.push_back({OpKind::LinearWq,
                  {"f32[?s0,64]", "u8[16,32]", "f32[16,2]", "f32[16,2]", "f32[16]"},
                  attrs({{"bits", intAttr(4)}, {"has_zeros", true}}),
                  {},
                  "f32[?s0,16]"});
  list.push_back({OpKind::Conv2dWq,
                  {"u8[2,4,9,9]", "i8[8,4,3,3]", "f32[8,1]", "f32[8]"},
                  [] {
                    AttrMap map = convAttrs({2, 2}, {1, 1});
                    map.set("has_zeros", false);
                    map.set("x_scale", 0.05);
                    map.set("x_zero", int64_t(128));
                    return map;
                  }(),
                  {},
                  "f32[2,8,5,5]"});
  list.push_back({OpKind::Matmul, {"f32[2,1,3,4]", "f32[5,4,6]"}, {}, {}, "f32[2,5,3,6]"});
  list.push_back({OpKind::Addmm,
                  {"f32[3]", "f32[2,4]", "f32[4,3]"},
                  attrs({{"alpha", 1.0}, {"beta", intAttr(1)}}),
                  {},
                  "f32[2,3]"});
  list.push_back({OpKind::Conv2d,
                  {"f32[1,3,224,224]", "f32[64,3,7,7]", "f32[64]"},
                  convAttrs({2, 2}, {3, 3}),
                  {},
                  "f32[1,64,112,112]"});
  list.push_back({OpKind::ConvTranspose2d,
                  {"f32[1,64,56,56]", "f32[64,32,2,2]", "f32[32]"},
                  convTransposeAttrs({2, 2}, {0, 0}),
                  {},
                  "f32[1,32,112,112]"});
  list.push_back({OpKind::Attention,
                  {"f16[2,8,?s0,64]", "f16[2,8,?s0,64]", "f16[2,8,?s0,32]"},
                  attrs({{"is_causal", true}}),
                  {},
                  "f16[2,8,?s0,32]"});
  list.push_back({OpKind::MaxPool2d,
                  {"f32[1,64,112,112]"},
                  poolAttrs({3, 3}, {2, 2}, {1, 1}, false),
                  {},
                  "f32[1,64,56,56]"});
  list.push_back({OpKind::AvgPool2d,
                  {"f32[1,3,7,7]"},
                  avgPoolAttrs({2, 2}, {2, 2}, {0, 0}, true),
                  {},
                  "f32[1,3,4,4]"});
  list.push_back({OpKind::AdaptiveAvgPool2d,
                  {"f32[?s0,512,7,7]"},
                  attrs({{"output_size", intsAttr({1, 1})}}),
                  {},
                  "f32[?s0,512,1,1]"});
  list.push_back({OpKind::MaxPool3d,
                  {"f32[2,3,8,9,10]"},
                  attrs({{"ceil_mode", true},
                         {"dilation", intsAttr({1, 1, 2})},
                         {"kernel", intsAttr({2, 3, 3})},
                         {"padding", intsAttr({1, 1, 0})},
                         {"stride", intsAttr({2, 2, 1})}}),
                  {},
                  "f32[2,3,5,5,6]"});
  list.push_back({OpKind::AvgPool3d,
                  {"f32[3,6,6,6]"},
                  avgPoolAttrs({2, 2, 2}, {2, 2, 2}, {1, 0, 0}, false),
                  {},
                  "f32[3,4,3,3]"});
  list.push_back({OpKind::AdaptiveAvgPool3d,
                  {"bf16[?s0,4,5,6,7]"},
                  attrs({{"output_size", intsAttr({1, 2, 3})}}),
                  {},
                  "bf16[?s0,4,1,2,3]"});
  list.push_back({OpKind::MaxPoolIndices,
                  {"f16[1,4,8,8]"},
                  poolAttrs({2, 2}, {2, 2}, {0, 0}, false),
                  {},
                  "i64[1,4,4,4]"});
  list.push_back({OpKind::GridSample,
                  {"f32[2,3,8,9]", "f32[2,4,5,2]"},
                  attrs({{"align_corners", false},
                         {"mode", std::string("bicubic")},
                         {"padding_mode", std::string("reflection")}}),
                  {},
                  "f32[2,3,4,5]"});
  list.push_back({OpKind::Reshape,
                  {"f32[?s0,4,16]"},
                  attrs({{"shape", dimsAttr("[?s0,64]")}}),
                  {},
                  "f32[?s0,64]"});
  list.push_back(
      {OpKind::Permute, {"f32[2,3,4]"}, attrs({{"dims", intsAttr({2, 0, 1})}}), {}, "f32[4,2,3]"});
  list.push_back(
      {OpKind::Expand, {"f32[3,1]"}, attrs({{"shape", dimsAttr("[2,3,4]")}}), {}, "f32[2,3,4]"});
  list.push_back({OpKind::Slice,
                  {"f32[8,10]"},
                  attrs({{"dim", intAttr(1)},
                         {"end", dimAttr("10")},
                         {"start", intAttr(2)},
                         {"step", intAttr(1)}}),
                  {},
                  "f32[8,8]"});
  list.push_back({OpKind::Select,
                  {"f32[2,3,4]"},
                  attrs({{"dim", intAttr(1)}, {"index", intAttr(-1)}}),
                  {},
                  "f32[2,4]"});
  list.push_back(
      {OpKind::Squeeze, {"f32[1,3,1]"}, attrs({{"dims", intsAttr({0, 2})}}), {}, "f32[3]"});
  list.push_back({OpKind::Unsqueeze, {"f32[2,3]"}, attrs({{"dim", intAttr(0)}}), {}, "f32[1,2,3]"});
  list.push_back({OpKind::Concat,
                  {"f32[2,3]", "f32[2,5]", "f32[2,0]"},
                  attrs({{"dim", intAttr(1)}}),
                  {},
                  "f32[2,8]"});
  list.push_back({OpKind::Split,
                  {"f32[?s0,10]"},
                  attrs({{"dim", intAttr(1)}, {"sizes", dimsAttr("[3,7]")}}),
                  {},
                  "f32[?s0,3], f32[?s0,7]"});
  for (OpKind op : {OpKind::Tril, OpKind::Triu})
    list.push_back({op, {"f32[?s0,4,4]"}, attrs({{"diagonal", intAttr(-1)}}), {}, "f32[?s0,4,4]"});
  list.push_back({OpKind::Full, {}, attrs({{"value", 0.5}}), {"f32[]"}, "f32[]"});
  list.push_back({OpKind::Arange,
                  {},
                  attrs({{"start", intAttr(0)}, {"step", intAttr(1)}}),
                  {"i64[?s0]"},
                  "i64[?s0]"});
  list.push_back({OpKind::Embedding, {"f32[1000,64]", "i64[2,?s0]"}, {}, {}, "f32[2,?s0,64]"});
  list.push_back(
      {OpKind::IndexSelect, {"f32[5,4]", "i32[3]"}, attrs({{"dim", intAttr(0)}}), {}, "f32[3,4]"});
  list.push_back(
      {OpKind::Gather, {"f16[5,4]", "i64[7,4]"}, attrs({{"dim", intAttr(0)}}), {}, "f16[7,4]"});
  list.push_back(
      {OpKind::Cumsum, {"i32[?s0,3]"}, attrs({{"dim", intAttr(-1)}}), {}, "i64[?s0,3]"});
  list.push_back(
      {OpKind::GroupedMatmul, {"bf16[?s0,16]", "bf16[4,16,8]", "i64[4]"}, {}, {}, "bf16[?s0,8]"});
  list.push_back({OpKind::Pad,
                  {"f32[2,?s0,5]"},
                  attrs({{"mode", std::string("reflect")},
                         {"pads", intsAttr({0, 0, 2, 1, 3, -1})},
                         {"value", 0.0}}),
                  {},
                  "f32[2,?(s0+3),7]"});
  list.push_back({OpKind::Upsample,
                  {"f16[2,3,4,5]"},
                  attrs({{"align_corners", false},
                         {"mode", std::string("linear")},
                         {"scales", std::vector<double>{2.0, 0.0}},
                         {"shape", dimsAttr("[2,3,8,9]")}}),
                  {},
                  "f16[2,3,8,9]"});
  // flips, diagonals, strided copies and scatters
  list.push_back({OpKind::Flip, {"f32[?s0,3]"}, attrs({{"dims", intsAttr({0, 1})}}), {},
                  "f32[?s0,3]"});
  list.push_back({OpKind::Diagonal,
                  {"f32[3,4,5]"},
                  attrs({{"diagonal", intAttr(1)}, {"dims", intsAttr({2, 0})}}),
                  {},
                  "f32[4,2]"});
  list.push_back({OpKind::AsStrided,
                  {"f32[4,6]"},
                  attrs({{"shape", dimsAttr("[3,3]")},
                         {"start", intAttr(1)},
                         {"stride", intsAttr({2, 1})}}),
                  {},
                  "f32[3,3]"});
  list.push_back({OpKind::SliceScatter,
                  {"i64[4,?s0]", "i64[2,?s0]"},
                  attrs({{"dim", intAttr(0)},
                         {"end", intAttr(4)},
                         {"start", intAttr(1)},
                         {"step", intAttr(2)}}),
                  {},
                  "i64[4,?s0]"});
  list.push_back({OpKind::Scatter,
                  {"bf16[4,6]", "i32[9,6]", "bf16[9,6]"},
                  attrs({{"dim", intAttr(0)},
                         {"include_self", false},
                         {"reduce", std::string("amax")}}),
                  {},
                  "bf16[4,6]"});
  // sorting and embedding bags
  list.push_back({OpKind::Sort, {"bf16[?s0,5]"},
                  attrs({{"descending", true}, {"dim", intAttr(-2)}}), {},
                  "bf16[?s0,5], i64[?s0,5]"});
  list.push_back({OpKind::EmbeddingBag, {"f16[10,4]", "i32[?s0]", "i32[6]", "f16[?s0]"},
                  attrs({{"include_last_offset", true},
                         {"mode", std::string("sum")},
                         {"padding_idx", intAttr(-1)}}),
                  {}, "f16[5,4]"});
  // dense linear algebra: batched matrices, i32 pivots and info
  list.push_back({OpKind::Cholesky, {"f32[?s0,3,3]"}, attrs({{"upper", false}}), {},
                  "f32[?s0,3,3], i32[?s0]"});
  list.push_back({OpKind::LuFactor, {"f64[2,5,3]"}, {}, {}, "f64[2,5,3], i32[2,3], i32[2]"});
  list.push_back({OpKind::LuPermutation, {"i32[2,3]"}, attrs({{"rows", dimAttr("5")}}), {},
                  "i64[2,5]"});
  list.push_back({OpKind::TriangularSolve, {"f32[2,4,4]", "f32[2,7,4]"},
                  attrs({{"left", false}, {"unitriangular", false}, {"upper", true}}), {},
                  "f32[2,7,4]"});
  list.push_back({OpKind::Qr, {"f32[5,3]"}, attrs({{"full", true}}), {}, "f32[5,5], f32[5,3]"});
  list.push_back({OpKind::Eigh, {"f32[4,4]"}, attrs({{"upper", false}, {"vectors", true}}), {},
                  "f32[4], f32[4,4], i32[]"});
  list.push_back({OpKind::Svd, {"f32[2,3,5]"}, attrs({{"full", false}, {"vectors", true}}), {},
                  "f32[2,3,3], f32[2,3], f32[2,3,5], i32[2]"});
  list.push_back({OpKind::Geqrf, {"f32[?s0,5,3]"}, {}, {}, "f32[?s0,5,3], f32[?s0,3]"});
  list.push_back({OpKind::HouseholderProduct, {"f64[2,5,4]", "f64[2,3]"}, {}, {}, "f64[2,5,4]"});
  list.push_back({OpKind::Ormqr, {"f32[2,4,3]", "f32[2,2]", "f32[2,6,4]"},
                  attrs({{"left", false}}), {}, "f32[2,6,4]"});
  list.push_back({OpKind::LdlFactor, {"f32[2,4,4]"}, {}, {}, "f32[2,4,4], i32[2,4], i32[2]"});
  list.push_back({OpKind::LdlSolve, {"f32[?s0,4,4]", "i32[?s0,4]", "f32[?s0,4,7]"}, {}, {},
                  "f32[?s0,4,7]"});
  list.push_back({OpKind::MatrixExp, {"f64[3,3]"}, {}, {}, "f64[3,3]"});
  list.push_back({OpKind::AtenCall,
                  {"f32[2]"},
                  attrs({{"target", std::string("aten.foo.default")}}),
                  {"f32[3]", "i64[]"},
                  "f32[3], i64[]"});
  // A fusion's types are its body's outputs (checked by the verifier): declared types go.
  list.push_back({OpKind::Fusion,
                  {"f32[4,8]", "f32[8]"},
                  attrs({{"kind", std::string("elementwise")}}),
                  {"f32[4,8]"},
                  "f32[4,8]"});
  // Control flow: a cond's predicate reads a 0-d bool.
  list.push_back(
      {OpKind::CondPredicate, {"bool[]"}, attrs({{"predicate_id", intAttr(0)}}), {}, "bool[]"});
  // Data-dependent sizes: nonzero's rows are its symbol, item's result a 0-d i64.
  list.push_back({OpKind::Nonzero, {"bool[2,?s0,4]"}, attrs({{"symbol", std::string("s1")}}), {},
                  "i64[?s1,3]"});
  list.push_back({OpKind::Item, {"i32[1,1]"}, attrs({{"symbol", std::string("s2")}}), {},
                  "i64[]"});
  // Random numbers: the declared type, symbolic dims included.
  list.push_back({OpKind::Random,
                  {},
                  attrs({{"distribution", std::string("normal")}, {"stream", intAttr(0)}}),
                  {"bf16[?s0,3]"},
                  "bf16[?s0,3]"});
  return list;
}

TEST_CASE("shape inference: one example per op, covering every op of ir/ops.def") {
  std::set<OpKind> covered;
  for (const Example &example : examples()) {
    CAPTURE(opName(example.op));
    CHECK(infer(example.op, example.operands, example.attrs, example.declared) == example.expected);
    covered.insert(example.op);
  }
  for (int i = 0; i < kNumOps; ++i) {
    CAPTURE(opName(static_cast<OpKind>(i)));
    CHECK(covered.count(static_cast<OpKind>(i)) == 1);
  }
}

TEST_CASE("shape inference: operand counts follow ir/ops.def") {
  CHECK(infer(OpKind::Add, {"f32[2]"}) == "error: add expects 2 operands, got 1");
  CHECK(infer(OpKind::LayerNorm, {"f32[2]", "f32[2]", "f32[2]", "f32[2]"},
              attrs({{"eps", 1e-5}, {"normalized_shape", intsAttr({2})}})) ==
        "error: layer_norm expects 1 to 3 operands, got 4");
  CHECK(infer(OpKind::Concat, {}, attrs({{"dim", intAttr(0)}})) ==
        "error: concat expects at least 1 operand, got 0");
}

TEST_CASE("normalizeDim wraps negative dims and rejects out-of-range ones") {
  CHECK(*normalizeDim(-1, 3) == 2);
  CHECK(*normalizeDim(-3, 3) == 0);
  CHECK(*normalizeDim(2, 3) == 2);
  CHECK(normalizeDim(3, 3).error().message() == "dim 3 out of range for rank 3");
  CHECK(normalizeDim(-4, 3).error().message() == "dim -4 out of range for rank 3");
  CHECK(normalizeDim(0, 0).error().message() == "dim 0 out of range for rank 0");
}

TEST_CASE("reducedDims: all dims for an empty list, negative dims wrap, none for a 0-d input") {
  CHECK(reducedDims({}, 3) == std::vector<int64_t>{0, 1, 2});
  CHECK(reducedDims({-1, 0}, 3) == std::vector<int64_t>{0, 2});
  CHECK(reducedDims({1, -2}, 3) == std::vector<int64_t>{1});
  // A 0-d tensor's dim 0 / -1 is its one element: nothing of the shape is folded.
  CHECK(reducedDims({0}, 0).empty());
  CHECK(reducedDims({-1}, 0).empty());
  CHECK(reducedDims({}, 0).empty());
}

TEST_CASE("broadcastShapes: NumPy rules with symbolic dims") {
  CHECK(broadcast("[2,3]", "[3]") == "[2,3]");
  CHECK(broadcast("[2,1]", "[1,3]") == "[2,3]");
  CHECK(broadcast("[]", "[4]") == "[4]");
  CHECK(broadcast("[0]", "[1]") == "[0]");
  CHECK(broadcast("[1,0]", "[5,1]") == "[5,0]");
  CHECK(broadcast("[?s0,1]", "[1,4]") == "[?s0,4]");
  CHECK(broadcast("[1]", "[?s0]") == "[?s0]");
  CHECK(broadcast("[?s0]", "[?s0]") == "[?s0]");
  // Two different symbolic dims: torch.export would have guarded them equal; the first wins.
  CHECK(broadcast("[?s0]", "[?s1]") == "[?s0]");
  CHECK(broadcast("[?(s0*2)]", "[?s1]") == "[?(s0*2)]");
  CHECK(broadcast("[2,3]", "[4]") == "error: shapes [2,3] and [4] do not broadcast");
  CHECK(broadcast("[0]", "[3]") == "error: shapes [0] and [3] do not broadcast");
  CHECK(broadcast("[?s0]", "[4]") == "error: shapes [?s0] and [4] do not broadcast");
}

TEST_CASE("elementwise unary: dtype kept, floating-only ops checked") {
  CHECK(infer(OpKind::Neg, {"i64[0,3]"}) == "i64[0,3]");
  CHECK(infer(OpKind::Relu, {"i32[]"}) == "i32[]");
  CHECK(infer(OpKind::Floor, {"i64[2]"}) == "i64[2]");
  CHECK(infer(OpKind::Copy, {"bool[?s0]"}) == "bool[?s0]");
  CHECK(infer(OpKind::Exp, {"i64[2]"}) == "error: exp requires a floating dtype, got i64");
  CHECK(infer(OpKind::Sigmoid, {"bool[2]"}) ==
        "error: sigmoid requires a floating dtype, got bool");
  CHECK(infer(OpKind::LogicalNot, {"i64[?s0,2]"}) == "bool[?s0,2]");
  CHECK(infer(OpKind::Cast, {"bool[2]"}, attrs({{"dtype", DType::BF16}})) == "bf16[2]");
  CHECK(infer(OpKind::Clamp, {"i64[3]"}) == "i64[3]");
  CHECK(infer(OpKind::Clamp, {"f32[3]"}, attrs({{"min", 0.0}})) == "f32[3]");
  CHECK(infer(OpKind::Gelu, {"f32[3]"}, attrs({{"approximate", std::string("none")}})) == "f32[3]");
  CHECK(infer(OpKind::Gelu, {"f32[3]"}, attrs({{"approximate", std::string("fast")}})) ==
        "error: gelu approximate must be \"none\" or \"tanh\", got \"fast\"");
}

TEST_CASE("elementwise binary: broadcasting, shared dtype, comparisons give bool") {
  CHECK(infer(OpKind::Add, {"f32[2,3]", "f32[]"}) == "f32[2,3]");
  CHECK(infer(OpKind::Mul, {"f32[0,1]", "f32[1,5]"}) == "f32[0,5]");
  CHECK(infer(OpKind::Sub, {"f32[?s0,1]", "f32[?s0,8]"}) == "f32[?s0,8]");
  CHECK(infer(OpKind::Pow, {"i64[3]", "i64[3]"}) == "i64[3]");
  CHECK(infer(OpKind::Lt, {"f16[?s0,4]", "f16[1]"}) == "bool[?s0,4]");
  CHECK(infer(OpKind::LogicalAnd, {"bool[2]", "bool[2]"}) == "bool[2]");
  CHECK(infer(OpKind::Add, {"f32[2,3]", "f32[4]"}) ==
        "error: operands f32[2,3] and f32[4] do not broadcast");
  CHECK(infer(OpKind::Add, {"f32[2]", "f16[2]"}) == "error: operand dtypes f32 and f16 differ");
  CHECK(infer(OpKind::Eq, {"i64[2]", "i32[2]"}) == "error: operand dtypes i64 and i32 differ");
  CHECK(infer(OpKind::Div, {"i64[2]", "i64[2]"}) ==
        "error: div requires a floating dtype, got i64");
  CHECK(infer(OpKind::FloorDivide, {"i64[2]", "i64[]"}) == "i64[2]");
  CHECK(infer(OpKind::Fmod, {"i64[2]", "i64[]"}) == "i64[2]");
  CHECK(infer(OpKind::BitwiseXor, {"bool[2]", "bool[2]"}) == "bool[2]");
  CHECK(infer(OpKind::BitwiseAnd, {"f32[2]", "f32[2]"}) ==
        "error: bitwise_and requires a bool or integer dtype, got f32");
  CHECK(infer(OpKind::BitwiseNot, {"f16[2]"}) ==
        "error: bitwise_not requires a bool or integer dtype, got f16");
  CHECK(infer(OpKind::Atan2, {"i64[2]", "i64[2]"}) ==
        "error: atan2 requires a floating dtype, got i64");
}

TEST_CASE("where: bool condition, broadcast of all three operands") {
  CHECK(infer(OpKind::Where, {"bool[?s0,1]", "f32[]", "f32[1,4]"}) == "f32[?s0,4]");
  CHECK(infer(OpKind::Where, {"bool[0]", "i64[1]", "i64[]"}) == "i64[0]");
  CHECK(infer(OpKind::Where, {"f32[2]", "f32[2]", "f32[2]"}) ==
        "error: where condition must be bool, got f32[2]");
  CHECK(infer(OpKind::Where, {"bool[2]", "f32[2]", "f16[2]"}) ==
        "error: operand dtypes f32 and f16 differ");
  CHECK(infer(OpKind::Where, {"bool[3]", "f32[2,1]", "f32[4,1]"}) ==
        "error: operands f32[2,3] and f32[4,1] do not broadcast");
}

TEST_CASE("reductions: dims, keepdim, empty dims, dtypes") {
  CHECK(infer(OpKind::Sum, {"f32[2,3,4]"}, reduceAttrs({0, -1}, false)) == "f32[3]");
  CHECK(infer(OpKind::Sum, {"f32[2,3,4]"}, reduceAttrs({0, -1}, true)) == "f32[1,3,1]");
  CHECK(infer(OpKind::Sum, {"f32[2,?s0]"}, reduceAttrs({}, false)) == "f32[]");
  CHECK(infer(OpKind::Sum, {"f32[2,?s0]"}, reduceAttrs({}, true)) == "f32[1,1]");
  CHECK(infer(OpKind::Mean, {"f32[?s0,8]"}, reduceAttrs({1}, false)) == "f32[?s0]");
  // Reducing a size-0 dim is fine for sum (0) and mean (nan)...
  CHECK(infer(OpKind::Sum, {"f32[0,3]"}, reduceAttrs({0}, false)) == "f32[3]");
  // ...but amax/amin have no identity.
  CHECK(infer(OpKind::Amax, {"f32[0,3]"}, reduceAttrs({0}, false)) ==
        "error: amax over dim 0 of size 0 (f32[0,3]) has no identity");
  CHECK(infer(OpKind::Amin, {"f32[0,3]"}, reduceAttrs({1}, false)) == "f32[0]");
  // 0-d operands accept dim 0 and -1, like PyTorch.
  CHECK(infer(OpKind::Sum, {"f32[]"}, reduceAttrs({0}, false)) == "f32[]");
  CHECK(infer(OpKind::Prod, {"f32[]"}, reduceAttrs({-1}, true)) == "f32[]");
  CHECK(infer(OpKind::Sum, {"f32[]"}, reduceAttrs({1}, false)) ==
        "error: dim 1 out of range for rank 0");
  // torch.sum / torch.prod accumulate bool and integers in i64.
  CHECK(infer(OpKind::Sum, {"i32[4]"}, reduceAttrs({}, false)) == "i64[]");
  CHECK(infer(OpKind::Prod, {"bool[4]"}, reduceAttrs({0}, false)) == "i64[]");
  CHECK(infer(OpKind::Sum, {"bf16[4]"}, reduceAttrs({0}, false)) == "bf16[]");
  CHECK(infer(OpKind::Amax, {"i32[4,2]"}, reduceAttrs({0}, false)) == "i32[2]");
  CHECK(infer(OpKind::Any, {"i64[4,2]"}, reduceAttrs({}, false)) == "bool[]");
  CHECK(infer(OpKind::Mean, {"i64[4]"}, reduceAttrs({}, false)) ==
        "error: mean requires a floating dtype, got i64");
  CHECK(infer(OpKind::Var, {"i64[4]"},
              attrs({{"correction", 0.0}, {"dims", intsAttr({})}, {"keepdim", false}})) ==
        "error: var requires a floating dtype, got i64");
  CHECK(infer(OpKind::Sum, {"f32[2,3]"}, reduceAttrs({1, -1}, false)) ==
        "error: dim -1 appears more than once in [1,-1]");
  CHECK(infer(OpKind::Sum, {"f32[2,3]"}, reduceAttrs({2}, false)) ==
        "error: dim 2 out of range for rank 2");
}

TEST_CASE("argmax: one dim, i64 result") {
  CHECK(infer(OpKind::Argmax, {"f32[?s0,10]"}, attrs({{"dim", intAttr(-1)}, {"keepdim", true}})) ==
        "i64[?s0,1]");
  CHECK(infer(OpKind::Argmax, {"f32[]"}, attrs({{"dim", intAttr(0)}, {"keepdim", false}})) ==
        "i64[]");
  CHECK(infer(OpKind::Argmax, {"f32[3,0]"}, attrs({{"dim", intAttr(1)}, {"keepdim", false}})) ==
        "error: argmax over dim 1 of size 0 (f32[3,0]) has no identity");
  CHECK(infer(OpKind::Argmax, {"f32[3]"}, attrs({{"dim", intAttr(1)}, {"keepdim", false}})) ==
        "error: dim 1 out of range for rank 1");
}

TEST_CASE("softmax and log_softmax keep the type") {
  CHECK(infer(OpKind::Softmax, {"f32[2,0]"}, attrs({{"dim", intAttr(0)}})) == "f32[2,0]");
  CHECK(infer(OpKind::LogSoftmax, {"f64[]"}, attrs({{"dim", intAttr(-1)}})) == "f64[]");
  CHECK(infer(OpKind::Softmax, {"f32[2,3]"}, attrs({{"dim", intAttr(-3)}})) ==
        "error: dim -3 out of range for rank 2");
  CHECK(infer(OpKind::Softmax, {"i64[2,3]"}, attrs({{"dim", intAttr(1)}})) ==
        "error: softmax requires a floating dtype, got i64");
}

TEST_CASE("layer_norm and batch_norm") {
  AttrMap norm = attrs({{"eps", 1e-5}, {"normalized_shape", intsAttr({4, 8})}});
  CHECK(infer(OpKind::LayerNorm, {"bf16[?s0,4,8]"}, norm) == "bf16[?s0,4,8]");
  CHECK(infer(OpKind::LayerNorm, {"f32[4,8]", "f32[4,8]"}, norm) == "f32[4,8]");
  CHECK(infer(OpKind::LayerNorm, {"f32[8,4]"}, norm) ==
        "error: layer_norm normalized_shape [4,8] does not match the trailing dims of f32[8,4]");
  CHECK(infer(OpKind::LayerNorm, {"f32[8]"}, norm) ==
        "error: layer_norm normalized_shape [4,8] does not match the trailing dims of f32[8]");
  CHECK(infer(OpKind::LayerNorm, {"f32[2,4,8]", "f32[4,8]", "f32[8]"}, norm) ==
        "error: layer_norm bias f32[8] does not match normalized_shape [4,8]");
  CHECK(infer(OpKind::LayerNorm, {"f32[2,4,8]", "f16[4,8]"}, norm) ==
        "error: operand dtypes f32 and f16 differ");
  CHECK(infer(OpKind::LayerNorm, {"f32[2,8]"},
              attrs({{"eps", 1e-5}, {"normalized_shape", intsAttr({})}})) ==
        "error: layer_norm normalized_shape must not be empty");

  AttrMap eps = attrs({{"eps", 1e-5}});
  CHECK(infer(OpKind::BatchNorm, {"f32[?s0,3]", "f32[3]", "f32[3]"}, eps) == "f32[?s0,3]");
  CHECK(infer(OpKind::BatchNorm, {"f32[2,3,5]", "f32[3]", "f32[4]"}, eps) ==
        "error: batch_norm operand 2 f32[4] does not match the 3 channels of f32[2,3,5]");
  CHECK(infer(OpKind::BatchNorm, {"f32[3]", "f32[3]", "f32[3]"}, eps) ==
        "error: batch_norm input must have rank at least 2, got f32[3]");
  CHECK(infer(OpKind::BatchNorm, {"i64[2,3]", "i64[3]", "i64[3]"}, eps) ==
        "error: batch_norm requires a floating dtype, got i64");
}

TEST_CASE("linear and addmm") {
  CHECK(infer(OpKind::Linear, {"f32[784]", "f32[128,784]"}) == "f32[128]");
  CHECK(infer(OpKind::Linear, {"f32[2,?s0,64]", "f32[32,64]", "f32[1]"}) == "f32[2,?s0,32]");
  CHECK(infer(OpKind::Linear, {"f32[0,64]", "f32[32,64]"}) == "f32[0,32]");
  CHECK(infer(OpKind::Linear, {"f32[2,64]", "f32[64,32]"}) ==
        "error: linear inner dims 64 and 32 differ (f32[2,64] and weight f32[64,32])");
  CHECK(infer(OpKind::Linear, {"f32[2,64]", "f32[64]"}) ==
        "error: linear weight must have rank 2, got f32[64]");
  CHECK(infer(OpKind::Linear, {"f32[2,64]", "f32[32,64]", "f32[2]"}) ==
        "error: linear bias f32[2] does not broadcast to f32[2,32]");
  CHECK(infer(OpKind::Linear, {"f32[2,64]", "f16[32,64]"}) ==
        "error: operand dtypes f32 and f16 differ");

  AttrMap scale = attrs({{"alpha", 1.0}, {"beta", 1.0}});
  CHECK(infer(OpKind::Addmm, {"f32[2,1]", "f32[2,4]", "f32[4,3]"}, scale) == "f32[2,3]");
  CHECK(infer(OpKind::Addmm, {"f32[]", "f32[?s0,4]", "f32[4,3]"}, scale) == "f32[?s0,3]");
  CHECK(infer(OpKind::Addmm, {"f32[4]", "f32[2,4]", "f32[4,3]"}, scale) ==
        "error: addmm bias f32[4] does not broadcast to f32[2,3]");
  CHECK(infer(OpKind::Addmm, {"f32[3]", "f32[2,5]", "f32[4,3]"}, scale) ==
        "error: addmm inner dims 5 and 4 differ (f32[2,5] and f32[4,3])");
  CHECK(infer(OpKind::Addmm, {"f32[3]", "f32[2,3,4]", "f32[4,3]"}, scale) ==
        "error: addmm matrix must have rank 2, got f32[2,3,4]");
}

TEST_CASE("matmul follows torch.matmul") {
  CHECK(infer(OpKind::Matmul, {"f32[4]", "f32[4]"}) == "f32[]");
  CHECK(infer(OpKind::Matmul, {"f32[3,4]", "f32[4]"}) == "f32[3]");
  CHECK(infer(OpKind::Matmul, {"f32[4]", "f32[4,5]"}) == "f32[5]");
  CHECK(infer(OpKind::Matmul, {"f32[3,4]", "f32[4,5]"}) == "f32[3,5]");
  CHECK(infer(OpKind::Matmul, {"f32[4]", "f32[2,4,6]"}) == "f32[2,6]");
  CHECK(infer(OpKind::Matmul, {"f32[2,3,4]", "f32[4]"}) == "f32[2,3]");
  CHECK(infer(OpKind::Matmul, {"f32[?s0,3,4]", "f32[4,5]"}) == "f32[?s0,3,5]");
  CHECK(infer(OpKind::Matmul, {"f32[?s0,8,?s1,16]", "f32[?s0,8,16,?s1]"}) == "f32[?s0,8,?s1,?s1]");
  CHECK(infer(OpKind::Matmul, {"f32[3,0]", "f32[0,5]"}) == "f32[3,5]");
  CHECK(infer(OpKind::Matmul, {"f32[3,64]", "f32[32,5]"}) ==
        "error: matmul inner dims 64 and 32 differ (f32[3,64] and f32[32,5])");
  CHECK(infer(OpKind::Matmul, {"f32[4]", "f32[5]"}) ==
        "error: matmul inner dims 4 and 5 differ (f32[4] and f32[5])");
  CHECK(infer(OpKind::Matmul, {"f32[2,3,4]", "f32[5,4,6]"}) ==
        "error: matmul batch dims of f32[2,3,4] and f32[5,4,6] do not broadcast");
  CHECK(infer(OpKind::Matmul, {"f32[]", "f32[3]"}) ==
        "error: matmul operands must have rank at least 1, got f32[] and f32[3]");
  CHECK(infer(OpKind::Matmul, {"f32[3,4]", "f16[4,5]"}) ==
        "error: operand dtypes f32 and f16 differ");
}

TEST_CASE("conv2d output size: floor((H + 2p - d(k-1) - 1) / s) + 1") {
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,32,32]", "f32[8,3,3,3]"}, convAttrs({1, 1}, {1, 1})) ==
        "f32[1,8,32,32]");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,32,30]", "f32[8,3,3,3]"},
              convAttrs({1, 2}, {0, 0}, {2, 1})) == "f32[1,8,28,14]");
  // Depthwise, unbatched ([C,H,W]) and an empty batch.
  CHECK(infer(OpKind::Conv2d, {"f32[2,32,8,8]", "f32[32,1,3,3]"},
              convAttrs({2, 2}, {1, 1}, {1, 1}, 32)) == "f32[2,32,4,4]");
  CHECK(infer(OpKind::Conv2d, {"f32[3,5,5]", "f32[4,3,5,5]"}, convAttrs({1, 1}, {0, 0})) ==
        "f32[4,1,1]");
  CHECK(infer(OpKind::Conv2d, {"f32[0,3,5,5]", "f32[4,3,1,1]"}, convAttrs({1, 1}, {0, 0})) ==
        "f32[0,4,5,5]");
  // Symbolic sizes simplify like torch.export: conv2d(3x3, s2, p1) of 2*s16 is s16.
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,?(s16*2),16]", "f32[4,3,3,3]", "f32[4]"},
              convAttrs({2, 2}, {1, 1})) == "f32[1,4,?s16,8]");
  CHECK(infer(OpKind::Conv2d, {"f32[?s0,3,?s1,?s1]", "f32[4,3,3,3]"}, convAttrs({2, 2}, {0, 0})) ==
        "f32[?s0,4,?(((s1+-3)//2)+1),?(((s1+-3)//2)+1)]");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,?s1,8]", "f32[4,3,3,3]"}, convAttrs({1, 1}, {1, 1})) ==
        "f32[1,4,?s1,8]");

  CHECK(infer(OpKind::Conv2d, {"f32[1,4,8,8]", "f32[8,3,3,3]"}, convAttrs({1, 1}, {0, 0})) ==
        "error: conv2d input f32[1,4,8,8] has 4 channels but weight f32[8,3,3,3] with groups 1 "
        "expects 3");
  CHECK(infer(OpKind::Conv2d, {"f32[1,4,8,8]", "f32[6,1,3,3]"},
              convAttrs({1, 1}, {0, 0}, {1, 1}, 4)) ==
        "error: conv2d output channels 6 are not divisible by groups 4");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,2,2]", "f32[8,3,3,3]"}, convAttrs({1, 1}, {0, 0})) ==
        "error: conv2d output size 0 of spatial dim 0 is too small (input f32[1,3,2,2])");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,8,8]", "f32[8,3,3,3]", "f32[4]"},
              convAttrs({1, 1}, {0, 0})) ==
        "error: conv2d bias f32[4] does not match 8 output channels");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,8,8]", "f32[8,3,3,3]"}, convAttrs({1}, {0, 0})) ==
        "error: conv2d stride must have 2 entries, got [1]");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,8,8]", "f32[8,3,3,3]"}, convAttrs({0, 1}, {0, 0})) ==
        "error: conv2d stride must be at least 1, got [0,1]");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,8,8]", "f32[8,3,3,3]"}, convAttrs({1, 1}, {-1, 0})) ==
        "error: conv2d padding must be at least 0, got [-1,0]");
  CHECK(infer(OpKind::Conv2d, {"f32[1,3,8,8]", "f32[8,3,3,3]"},
              convAttrs({1, 1}, {0, 0}, {1, 1}, 0)) ==
        "error: conv2d groups must be positive, got 0");
  CHECK(infer(OpKind::Conv2d, {"f32[3,8]", "f32[8,3,3,3]"}, convAttrs({1, 1}, {0, 0})) ==
        "error: conv2d input must have rank 3 or 4, got f32[3,8]");
}

TEST_CASE("conv_transpose2d output size: (H - 1)s - 2p + d(k-1) + output_padding + 1") {
  // Values checked against torch.nn.functional.conv_transpose2d.
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[2,4,6,5]", "f32[4,3,3,3]"},
              convTransposeAttrs({2, 2}, {1, 1}, {1, 1})) == "f32[2,3,12,10]");
  CHECK(infer(OpKind::ConvTranspose2d, {"f16[2,4,6,5]", "f16[4,5,2,3]", "f16[5]"},
              convTransposeAttrs({3, 2}, {1, 2}, {2, 1})) == "f16[2,5,17,8]");
  // Grouped: weight [C, O/groups, kH, kW]; dilation allows output padding up to dilation - 1.
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[1,4,3,3]", "f32[4,3,3,3]"},
              convTransposeAttrs({1, 1}, {0, 0}, {1, 1}, {2, 2}, 2)) == "f32[1,6,8,8]");
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[4,3,3]", "f32[4,2,1,1]"},
              convTransposeAttrs({1, 1}, {0, 0})) == "f32[2,3,3]");
  // A symbolic size stays linear: 2*s0.
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[1,4,?s0,8]", "f32[4,2,2,2]"},
              convTransposeAttrs({2, 2}, {0, 0})) == "f32[1,2,?(s0*2),16]");

  CHECK(infer(OpKind::ConvTranspose2d, {"f32[1,4,3,3]", "f32[4,2,3,3]"},
              convTransposeAttrs({2, 2}, {0, 0}, {2, 0})) ==
        "error: conv_transpose2d output_padding [2,0] must be smaller than stride or dilation in "
        "each dim (stride [2,2], dilation [1,1])");
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[1,5,3,3]", "f32[4,2,3,3]"},
              convTransposeAttrs({1, 1}, {0, 0})) ==
        "error: conv_transpose2d input f32[1,5,3,3] has 5 channels but weight f32[4,2,3,3] "
        "expects 4");
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[1,6,3,3]", "f32[6,2,3,3]"},
              convTransposeAttrs({1, 1}, {0, 0}, {0, 0}, {1, 1}, 4)) ==
        "error: conv_transpose2d input channels 6 are not divisible by groups 4");
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[1,4,1,1]", "f32[4,2,1,1]"},
              convTransposeAttrs({1, 1}, {1, 0})) ==
        "error: conv_transpose2d output size -1 of spatial dim 0 is too small (input "
        "f32[1,4,1,1])");
  CHECK(infer(OpKind::ConvTranspose2d, {"f32[1,4,3,3]", "f32[4,2,3,3]", "f32[4]"},
              convTransposeAttrs({1, 1}, {0, 0})) ==
        "error: conv_transpose2d bias f32[4] does not match 2 output channels");
  CHECK(infer(OpKind::ConvTranspose2d, {"i64[1,4,3,3]", "i64[4,2,3,3]"},
              convTransposeAttrs({1, 1}, {0, 0})) ==
        "error: conv_transpose2d requires a floating dtype, got i64");
}

TEST_CASE("attention: q[...,L,E], k[...,S,E], v[...,S,Ev] -> [...,L,Ev]") {
  AttrMap plain = attrs({{"is_causal", false}});
  CHECK(infer(OpKind::Attention, {"f32[4,8]", "f32[6,8]", "f32[6,3]"}, plain) == "f32[4,3]");
  // Batch dims broadcast (as in PyTorch's math path).
  CHECK(infer(OpKind::Attention, {"f32[2,1,4,8]", "f32[1,3,5,8]", "f32[5,6]"}, plain) ==
        "f32[2,3,4,6]");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[2,5,8]", "f32[2,5,8]", "bool[4,5]"},
              attrs({{"is_causal", false}, {"scale", 0.125}})) == "f32[2,4,8]");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[2,5,8]", "f32[2,5,8]", "f32[2,1,5]"}, plain) ==
        "f32[2,4,8]");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[2,5,8]", "f32[2,5,8]", "f32[3,4,5]"}, plain) ==
        "error: attention mask f32[3,4,5] does not broadcast to the scores [2,4,5]");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[2,5,8]", "f32[2,5,8]", "i64[4,5]"}, plain) ==
        "error: attention mask i64[4,5] must be bool or f32");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[2,5,8]", "f32[2,5,8]", "bool[4,5]"},
              attrs({{"is_causal", true}})) ==
        "error: attention takes a mask or is_causal, not both");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[2,5,7]", "f32[2,5,8]"}, plain) ==
        "error: attention query f32[2,4,8] and key f32[2,5,7] differ in the last dim");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[2,5,8]", "f32[2,6,8]"}, plain) ==
        "error: attention key f32[2,5,8] and value f32[2,6,8] differ in sequence length");
  CHECK(infer(OpKind::Attention, {"f32[2,4,8]", "f32[3,5,8]", "f32[3,5,8]"}, plain) ==
        "error: attention batch dims of f32[2,4,8], f32[3,5,8] and f32[3,5,8] do not broadcast");
  CHECK(infer(OpKind::Attention, {"f32[8]", "f32[5,8]", "f32[5,8]"}, plain) ==
        "error: attention query, key and value must have rank at least 2, got f32[8]");
  CHECK(infer(OpKind::Attention, {"i64[4,8]", "i64[5,8]", "i64[5,8]"}, plain) ==
        "error: attention requires a floating dtype, got i64");
}

TEST_CASE("3-d pools, pooling indices and grid_sample: shapes and refusals") {
  // Values checked against torch.nn.functional.max_pool3d / avg_pool3d.
  AttrMap pool3 = attrs({{"ceil_mode", false},
                         {"dilation", intsAttr({1, 1, 1})},
                         {"kernel", intsAttr({3, 3, 3})},
                         {"padding", intsAttr({1, 1, 1})},
                         {"stride", intsAttr({2, 2, 2})}});
  CHECK(infer(OpKind::MaxPool3d, {"f32[2,3,5,6,7]"}, pool3) == "f32[2,3,3,3,4]");
  CHECK(infer(OpKind::MaxPoolIndices, {"f32[2,3,5,6,7]"}, pool3) == "i64[2,3,3,3,4]");
  CHECK(infer(OpKind::MaxPool3d, {"f32[3,5,6,7]"}, pool3) == "f32[3,3,3,4]");
  CHECK(infer(OpKind::MaxPool3d, {"f32[5,6,7]"}, pool3) ==
        "error: max_pool3d input must have rank 4 or 5, got f32[5,6,7]");
  CHECK(infer(OpKind::MaxPool3d, {"f32[1,3,5,6,7]"}, poolAttrs({2, 2}, {2, 2}, {0, 0}, false)) ==
        "error: max_pool3d kernel must have 3 entries, got [2,2]");
  CHECK(infer(OpKind::AvgPool3d, {"f32[1,3,5,6,7]"},
              avgPoolAttrs({3, 3, 3}, {1, 1, 1}, {2, 0, 0}, false)) ==
        "error: avg_pool3d padding [2,0,0] exceeds half the kernel [3,3,3]");
  CHECK(infer(OpKind::AdaptiveAvgPool3d, {"f32[1,3,0,6,7]"},
              attrs({{"output_size", intsAttr({1, 1, 1})}})) ==
        "error: adaptive_avg_pool3d input f32[1,3,0,6,7] has an empty dim 2");
  AttrMap sample = attrs({{"align_corners", true},
                          {"mode", std::string("bilinear")},
                          {"padding_mode", std::string("zeros")}});
  CHECK(infer(OpKind::GridSample, {"bf16[1,2,4,4]", "bf16[1,3,3,2]"}, sample) == "bf16[1,2,3,3]");
  CHECK(infer(OpKind::GridSample, {"f32[1,2,4,4]", "f32[2,3,3,2]"}, sample) ==
        "error: grid_sample grid f32[2,3,3,2] must be [N, H, W, 2] for input f32[1,2,4,4]");
  CHECK(infer(OpKind::GridSample, {"f32[1,2,4,4]", "f16[1,3,3,2]"}, sample).rfind("error:", 0) ==
        0);
  CHECK(infer(OpKind::GridSample, {"i64[1,2,4,4]", "i64[1,3,3,2]"}, sample) ==
        "error: grid_sample requires a floating dtype, got i64");
  AttrMap badMode = sample;
  badMode.set("mode", std::string("area"));
  CHECK(infer(OpKind::GridSample, {"f32[1,2,4,4]", "f32[1,3,3,2]"}, badMode) ==
        "error: grid_sample mode 'area' (expected 'bilinear', 'nearest' or 'bicubic')");
}

TEST_CASE("max_pool2d and avg_pool2d, with PyTorch's ceil_mode rule") {
  // Values checked against torch.nn.functional.max_pool2d.
  // Height 12 gains a partial window with ceil_mode; width 11 would too, but that window
  // would start in the right padding, so it is dropped.
  CHECK(infer(OpKind::MaxPool2d, {"f32[1,1,12,11]"}, poolAttrs({3, 3}, {3, 3}, {1, 1}, true)) ==
        "f32[1,1,5,4]");
  CHECK(infer(OpKind::MaxPool2d, {"f32[1,1,12,11]"}, poolAttrs({3, 3}, {3, 3}, {1, 1}, false)) ==
        "f32[1,1,4,4]");
  // ceil_mode drops a last window that would start past the input: 4 -> 2, 5 -> 3.
  CHECK(infer(OpKind::MaxPool2d, {"f32[1,1,4,5]"}, poolAttrs({1, 1}, {2, 2}, {0, 0}, true)) ==
        "f32[1,1,2,3]");
  CHECK(infer(OpKind::MaxPool2d, {"f32[3,9,9]"},
              attrs({{"ceil_mode", false},
                     {"dilation", intsAttr({2, 2})},
                     {"kernel", intsAttr({3, 3})},
                     {"padding", intsAttr({0, 1})},
                     {"stride", intsAttr({1, 2})}})) == "f32[3,5,4]");
  CHECK(infer(OpKind::AvgPool2d, {"f32[1,3,7,7]"}, avgPoolAttrs({2, 2}, {2, 2}, {0, 0}, false)) ==
        "f32[1,3,3,3]");
  CHECK(infer(OpKind::AvgPool2d, {"f32[1,3,6,6]"}, avgPoolAttrs({3, 3}, {2, 2}, {1, 1}, true)) ==
        "f32[1,3,4,4]");

  // Symbolic sizes, as torch.export records them for an input of height 2*s16.
  CHECK(infer(OpKind::MaxPool2d, {"f32[1,3,?(s16*2),16]"},
              poolAttrs({3, 3}, {2, 2}, {0, 0}, false)) == "f32[1,3,?(s16+-1),7]");
  CHECK(infer(OpKind::AvgPool2d, {"f32[1,3,?(s16*2),16]"},
              avgPoolAttrs({2, 2}, {2, 2}, {0, 0}, true)) == "f32[1,3,?s16,8]");
  CHECK(infer(OpKind::MaxPool2d, {"f32[1,3,?s0,16]"}, poolAttrs({1, 1}, {2, 2}, {0, 0}, true)) ==
        "error: max_pool2d with ceil_mode on symbolic size ?s0 depends on its value");

  CHECK(infer(OpKind::MaxPool2d, {"f32[1,1,2,2]"}, poolAttrs({3, 3}, {1, 1}, {0, 0}, false)) ==
        "error: max_pool2d output size 0 of spatial dim 0 is too small (input f32[1,1,2,2])");
  CHECK(infer(OpKind::MaxPool2d, {"f32[1,1,8,8]"}, poolAttrs({3, 3}, {1, 1}, {2, 2}, false)) ==
        "error: max_pool2d padding [2,2] exceeds half the kernel [3,3]");
  CHECK(infer(OpKind::MaxPool2d, {"f32[1,1,8,8]"}, poolAttrs({3, 3}, {}, {0, 0}, false)) ==
        "error: max_pool2d stride must have 2 entries, got []");
  CHECK(infer(OpKind::MaxPool2d, {"f32[8,8]"}, poolAttrs({3, 3}, {1, 1}, {0, 0}, false)) ==
        "error: max_pool2d input must have rank 3 or 4, got f32[8,8]");
  AttrMap zeroDivisor = avgPoolAttrs({2, 2}, {2, 2}, {0, 0}, false);
  zeroDivisor.set("divisor_override", int64_t{0});
  CHECK(infer(OpKind::AvgPool2d, {"f32[1,1,8,8]"}, zeroDivisor) ==
        "error: avg_pool2d divisor_override must not be zero");
}

TEST_CASE("adaptive_avg_pool2d replaces the last two dims by output_size") {
  AttrMap size = attrs({{"output_size", intsAttr({2, 3})}});
  CHECK(infer(OpKind::AdaptiveAvgPool2d, {"f32[3,7,7]"}, size) == "f32[3,2,3]");
  CHECK(infer(OpKind::AdaptiveAvgPool2d, {"f32[0,3,?s0,5]"}, size) == "f32[0,3,2,3]");
  CHECK(infer(OpKind::AdaptiveAvgPool2d, {"f32[1,3,0,5]"}, size) ==
        "error: adaptive_avg_pool2d input f32[1,3,0,5] has an empty dim 2");
  CHECK(
      infer(OpKind::AdaptiveAvgPool2d, {"f32[1,3,4,5]"}, attrs({{"output_size", intsAttr({2})}})) ==
      "error: adaptive_avg_pool2d output_size must have 2 entries, got [2]");
}

TEST_CASE("reshape takes the attribute's dims") {
  CHECK(infer(OpKind::Reshape, {"f32[2,3]"}, attrs({{"shape", dimsAttr("[3,2,1]")}})) ==
        "f32[3,2,1]");
  CHECK(infer(OpKind::Reshape, {"f32[0,4]"}, attrs({{"shape", dimsAttr("[2,0]")}})) == "f32[2,0]");
  CHECK(infer(OpKind::Reshape, {"f32[5]"}, attrs({{"shape", dimsAttr("[]")}})) ==
        "error: cannot reshape f32[5] (5 elements) to [] (1 elements)");
  CHECK(infer(OpKind::Reshape, {"f32[?s0,4]"}, attrs({{"shape", dimsAttr("[?s0,2,2]")}})) ==
        "f32[?s0,2,2]");
  CHECK(infer(OpKind::Reshape, {"f32[2,3]"}, attrs({{"shape", dimsAttr("[-1,3]")}})) ==
        "error: reshape shape [-1,3] has a negative dim");
  CHECK(infer(OpKind::Reshape, {"f32[2,3]"}, attrs({{"shape", dimsAttr("[4,2]")}})) ==
        "error: cannot reshape f32[2,3] (6 elements) to [4,2] (8 elements)");
}

TEST_CASE("permute and expand") {
  CHECK(infer(OpKind::Permute, {"f32[2,?s0,4]"}, attrs({{"dims", intsAttr({-1, 0, 1})}})) ==
        "f32[4,2,?s0]");
  CHECK(infer(OpKind::Permute, {"f32[]"}, attrs({{"dims", intsAttr({})}})) == "f32[]");
  CHECK(infer(OpKind::Permute, {"f32[2,3]"}, attrs({{"dims", intsAttr({1, -1})}})) ==
        "error: permute dims [1,-1] are not a permutation of the dims of f32[2,3]");
  CHECK(infer(OpKind::Permute, {"f32[2,3]"}, attrs({{"dims", intsAttr({0})}})) ==
        "error: permute dims [0] are not a permutation of the dims of f32[2,3]");

  CHECK(infer(OpKind::Expand, {"f32[?s0,1]"}, attrs({{"shape", dimsAttr("[?s0,5]")}})) ==
        "f32[?s0,5]");
  CHECK(infer(OpKind::Expand, {"f32[]"}, attrs({{"shape", dimsAttr("[0,2]")}})) == "f32[0,2]");
  CHECK(infer(OpKind::Expand, {"f32[1]"}, attrs({{"shape", dimsAttr("[?s1]")}})) == "f32[?s1]");
  CHECK(infer(OpKind::Expand, {"f32[2,3]"}, attrs({{"shape", dimsAttr("[4,3]")}})) ==
        "error: cannot expand f32[2,3] to [4,3]");
  CHECK(infer(OpKind::Expand, {"f32[2,3]"}, attrs({{"shape", dimsAttr("[3]")}})) ==
        "error: cannot expand f32[2,3] to [3]");
  CHECK(infer(OpKind::Expand, {"f32[2,3]"}, attrs({{"shape", dimsAttr("[-1,3]")}})) ==
        "error: expand shape [-1,3] has a negative dim");
}

AttrMap sliceAttrs(int64_t dim, int64_t start, const std::string &end, int64_t step) {
  return attrs({{"dim", intAttr(dim)},
                {"end", dimAttr(end)},
                {"start", intAttr(start)},
                {"step", intAttr(step)}});
}

TEST_CASE("slice: ceil((end - start) / step) elements") {
  CHECK(infer(OpKind::Slice, {"f32[8,10]"}, sliceAttrs(-1, 1, "10", 3)) == "f32[8,3]");
  CHECK(infer(OpKind::Slice, {"f32[8,10]"}, sliceAttrs(1, 1, "9", 2)) == "f32[8,4]");
  CHECK(infer(OpKind::Slice, {"f32[8,10]"}, sliceAttrs(0, 4, "4", 1)) == "f32[0,10]");
  CHECK(infer(OpKind::Slice, {"f32[0]"}, sliceAttrs(0, 0, "0", 2)) == "f32[0]");
  // Symbolic ends, as torch.export records x[:, :, 1::3], x[:, :, 2:], x[:, :, 1:-1:2] for a
  // dim of size 2*s16: ((2*s16 + 1)//3), 2*s16 - 2, s16 - 1.
  CHECK(infer(OpKind::Slice, {"f32[1,?(s16*2)]"}, sliceAttrs(1, 1, "?(s16*2)", 3)) ==
        "f32[1,?(((s16*2)+1)//3)]");
  CHECK(infer(OpKind::Slice, {"f32[1,?(s16*2)]"}, sliceAttrs(1, 2, "?(s16*2)", 1)) ==
        "f32[1,?((s16*2)+-2)]");
  CHECK(infer(OpKind::Slice, {"f32[1,?(s16*2)]"}, sliceAttrs(1, 1, "?((s16*2)+-1)", 2)) ==
        "f32[1,?(s16+-1)]");
  CHECK(infer(OpKind::Slice, {"f32[?s0,4]"}, sliceAttrs(0, 0, "?s0", 1)) == "f32[?s0,4]");

  CHECK(infer(OpKind::Slice, {"f32[8]"}, sliceAttrs(0, 0, "8", 0)) ==
        "error: slice step must be positive, got 0");
  CHECK(infer(OpKind::Slice, {"f32[8]"}, sliceAttrs(0, 0, "9", 1)) ==
        "error: slice end 9 is past size 8 of dim 0 of f32[8]");
  CHECK(infer(OpKind::Slice, {"f32[8]"}, sliceAttrs(0, 5, "3", 1)) ==
        "error: slice start 5 is past end 3");
  CHECK(infer(OpKind::Slice, {"f32[8]"}, sliceAttrs(0, -1, "3", 1)) ==
        "error: slice start -1 and end 3 must not be negative");
  CHECK(infer(OpKind::Slice, {"f32[8]"}, sliceAttrs(1, 0, "3", 1)) ==
        "error: dim 1 out of range for rank 1");
}

TEST_CASE("select, squeeze and unsqueeze") {
  AttrMap select = attrs({{"dim", intAttr(0)}, {"index", intAttr(2)}});
  CHECK(infer(OpKind::Select, {"f32[3]"}, select) == "f32[]");
  CHECK(infer(OpKind::Select, {"f32[?s0,4]"}, select) == "f32[4]");
  CHECK(infer(OpKind::Select, {"f32[2,4]"}, select) ==
        "error: select index 2 out of range for size 2 of dim 0 of f32[2,4]");
  CHECK(infer(OpKind::Select, {"f32[0,4]"}, attrs({{"dim", intAttr(0)}, {"index", intAttr(-1)}})) ==
        "error: select index -1 out of range for size 0 of dim 0 of f32[0,4]");

  // squeeze.dims removes the listed size-1 dims and leaves the others alone.
  CHECK(infer(OpKind::Squeeze, {"f32[1,3,1]"}, attrs({{"dims", intsAttr({-1})}})) == "f32[1,3]");
  CHECK(infer(OpKind::Squeeze, {"f32[1,3,1]"}, attrs({{"dims", intsAttr({1})}})) == "f32[1,3,1]");
  CHECK(infer(OpKind::Squeeze, {"f32[1,3,1]"}, attrs({{"dims", intsAttr({})}})) == "f32[1,3,1]");
  CHECK(infer(OpKind::Squeeze, {"f32[?s0,1]"}, attrs({{"dims", intsAttr({0, 1})}})) == "f32[?s0]");
  CHECK(infer(OpKind::Squeeze, {"f32[]"}, attrs({{"dims", intsAttr({0})}})) == "f32[]");
  CHECK(infer(OpKind::Squeeze, {"f32[1,1]"}, attrs({{"dims", intsAttr({0, -2})}})) ==
        "error: dim -2 appears more than once in [0,-2]");
  CHECK(infer(OpKind::Squeeze, {"f32[1,1]"}, attrs({{"dims", intsAttr({2})}})) ==
        "error: dim 2 out of range for rank 2");

  CHECK(infer(OpKind::Unsqueeze, {"f32[2,3]"}, attrs({{"dim", intAttr(-1)}})) == "f32[2,3,1]");
  CHECK(infer(OpKind::Unsqueeze, {"f32[2,3]"}, attrs({{"dim", intAttr(2)}})) == "f32[2,3,1]");
  CHECK(infer(OpKind::Unsqueeze, {"f32[2,3]"}, attrs({{"dim", intAttr(-3)}})) == "f32[1,2,3]");
  CHECK(infer(OpKind::Unsqueeze, {"f32[]"}, attrs({{"dim", intAttr(0)}})) == "f32[1]");
  CHECK(infer(OpKind::Unsqueeze, {"f32[2,3]"}, attrs({{"dim", intAttr(3)}})) ==
        "error: dim 3 out of range for rank 3");
}

TEST_CASE("concat and split") {
  AttrMap dim0 = attrs({{"dim", intAttr(0)}});
  CHECK(infer(OpKind::Concat, {"f32[2,3]"}, dim0) == "f32[2,3]");
  // Like terms combine the way sympy does: s0 + s0 = 2*s0.
  CHECK(infer(OpKind::Concat, {"f32[?s0,4]", "f32[?s0,4]"}, dim0) == "f32[?(s0*2),4]");
  CHECK(infer(OpKind::Concat, {"f32[?(s0*2),4]", "f32[3,4]", "f32[?s0,4]"}, dim0) ==
        "f32[?((s0*3)+3),4]");
  CHECK(infer(OpKind::Concat, {"f32[2,3]", "f32[4,3]"}, attrs({{"dim", intAttr(-1)}})) ==
        "error: concat operands f32[2,3] and f32[4,3] differ in dim 0");
  CHECK(infer(OpKind::Concat, {"f32[2,3]", "f32[0]"}, dim0) ==
        "error: concat operands f32[2,3] and f32[0] differ in rank");
  CHECK(infer(OpKind::Concat, {"f32[2]", "i64[2]"}, dim0) ==
        "error: operand dtypes f32 and i64 differ");
  CHECK(infer(OpKind::Concat, {"f32[]"}, dim0) ==
        "error: concat operands must have rank at least 1, got f32[]");

  CHECK(infer(OpKind::Split, {"f32[?s0,4]"},
              attrs({{"dim", intAttr(0)}, {"sizes", dimsAttr("[?(s0+-1),1]")}})) ==
        "f32[?(s0+-1),4], f32[1,4]");
  CHECK(infer(OpKind::Split, {"f32[5,4]"},
              attrs({{"dim", intAttr(-2)}, {"sizes", dimsAttr("[2,0,3]")}})) ==
        "f32[2,4], f32[0,4], f32[3,4]");
  CHECK(infer(OpKind::Split, {"f32[5,4]"},
              attrs({{"dim", intAttr(1)}, {"sizes", dimsAttr("[2,3]")}})) ==
        "error: split sizes [2,3] do not add up to size 4 of dim 1 of f32[5,4]");
  CHECK(infer(OpKind::Split, {"f32[5,4]"},
              attrs({{"dim", intAttr(0)}, {"sizes", dimsAttr("[6,-1]")}})) ==
        "error: split sizes [6,-1] has a negative dim");
}

TEST_CASE("tril, triu, full, arange and aten_call") {
  CHECK(infer(OpKind::Tril, {"f32[3]"}, attrs({{"diagonal", intAttr(0)}})) ==
        "error: tril operand must have rank at least 2, got f32[3]");
  CHECK(infer(OpKind::Triu, {"bool[0,0]"}, attrs({{"diagonal", intAttr(1)}})) == "bool[0,0]");
  CHECK(infer(OpKind::Full, {}, attrs({{"value", 1.0}}), {"i64[2,?s0]"}) == "i64[2,?s0]");
  CHECK(infer(OpKind::Full, {}, attrs({{"value", 1.0}}), {"f32[]", "f32[]"}) ==
        "error: expected 1 declared result type, got 2");
  CHECK(infer(OpKind::Full, {}, attrs({{"value", 1.0}})) ==
        "error: expected 1 declared result type, got 0");
  CHECK(infer(OpKind::Arange, {}, attrs({{"start", 0.0}, {"step", 0.5}}), {"f32[2,2]"}) ==
        "error: arange result must have rank 1, got f32[2,2]");
  CHECK(infer(OpKind::Arange, {}, attrs({{"start", 0.0}, {"step", 0.0}}), {"f32[4]"}) ==
        "error: arange step must not be zero");
  CHECK(infer(OpKind::AtenCall, {}, attrs({{"target", std::string("aten.foo.default")}})) == "");
  CHECK(infer(OpKind::Random, {},
              attrs({{"distribution", std::string("uniform")}, {"stream", intAttr(0)}}),
              {"i64[4]"}) == "error: random uniform needs a floating result, got i64[4]");
  CHECK(infer(OpKind::Random, {},
              attrs({{"distribution", std::string("integer")},
                     {"high", intAttr(3)},
                     {"low", intAttr(3)},
                     {"stream", intAttr(0)}}),
              {"i32[4]"}) == "error: random integer needs low < high, got [3, 3)");
  CHECK(infer(OpKind::Item, {"i64[2]"}, attrs({{"symbol", std::string("s1")}})) ==
        "error: item expects a one-element operand, got i64[2]");
  CHECK(infer(OpKind::Item, {"f32[]"}, attrs({{"symbol", std::string("s1")}})) ==
        "error: item binds an integer symbol: expects an integer or bool operand, got f32[]");
  CHECK(infer(OpKind::Random, {},
              attrs({{"distribution", std::string("integer")}, {"stream", intAttr(1)}}),
              {"i32[4]"}) == "error: random integer needs both low and high");
  CHECK(infer(OpKind::Random, {},
              attrs({{"distribution", std::string("poisson")}, {"stream", intAttr(1)}}),
              {"f32[4]"}) == "error: random distribution must be \"uniform\", \"normal\" or "
                             "\"integer\", got \"poisson\"");
  CHECK(infer(OpKind::CondPredicate, {"f32[]"}, attrs({{"predicate_id", intAttr(0)}})) ==
        "error: cond_predicate expects a 0-d bool operand, got f32[]");
}

TEST_CASE("pad and upsample: sizes, crops and PyTorch's per-mode bounds") {
  auto padAttrs = [](const char *mode, std::vector<int64_t> pads) {
    return attrs({{"mode", std::string(mode)}, {"pads", intsAttr(pads)}, {"value", 0.0}});
  };
  CHECK(infer(OpKind::Pad, {"i64[3,4]"}, padAttrs("constant", {-1, 2, 0, 0})) == "i64[4,4]");
  CHECK(infer(OpKind::Pad, {"f32[3,4]"}, padAttrs("constant", {-2, -2, 0, 0})) ==
        "error: pad pads [-2,-2,0,0] crop dim 0 of f32[3,4] to a negative size -1");
  CHECK(infer(OpKind::Pad, {"f32[3,4]"}, padAttrs("reflect", {0, 0, 4, 0})) ==
        "error: pad: mode 'reflect' pads [4, 0] of dim 1 (size 4) must be less than the size");
  CHECK(infer(OpKind::Pad, {"f32[3,4]"}, padAttrs("circular", {0, 0, 4, 4})) == "f32[3,12]");
  CHECK(infer(OpKind::Pad, {"f32[3,4]"}, padAttrs("circular", {0, 0, 5, 0})) ==
        "error: pad: mode 'circular' pads [5, 0] of dim 1 (size 4) must be at most the size");
  CHECK(infer(OpKind::Pad, {"f32[0,4]"}, padAttrs("replicate", {1, 0, 0, 0})) ==
        "error: pad: mode 'replicate' pads [1, 0] of dim 0 (size 0) cannot pad an empty dim");
  CHECK(infer(OpKind::Pad, {"f32[3,4]"}, padAttrs("constant", {1, 1})) ==
        "error: pad pads [1,1] must have 2 entries per dim of f32[3,4]");
  CHECK(infer(OpKind::Pad, {"f32[3]"}, padAttrs("edge", {1, 1})) ==
        "error: pad mode 'edge' is not one of constant, reflect, replicate, circular");
  auto upsampleAttrs = [](const char *mode, std::vector<double> scales, const char *shape) {
    return attrs({{"align_corners", false},
                  {"mode", std::string(mode)},
                  {"scales", scales},
                  {"shape", dimsAttr(shape)}});
  };
  CHECK(infer(OpKind::Upsample, {"i64[2,3,4]"}, upsampleAttrs("nearest", {0.0}, "[2,3,9]")) ==
        "i64[2,3,9]");
  CHECK(infer(OpKind::Upsample, {"i64[2,3,4]"}, upsampleAttrs("linear", {0.0}, "[2,3,9]")) ==
        "error: upsample requires a floating dtype, got i64");
  CHECK(infer(OpKind::Upsample, {"f32[2,3,4]"}, upsampleAttrs("nearest", {0.0}, "[2,4,9]")) ==
        "error: upsample result shape [2,4,9] differs from the input f32[2,3,4] outside the "
        "spatial dims");
  CHECK(infer(OpKind::Upsample, {"f32[2,3,4]"}, upsampleAttrs("nearest", {0.0}, "[2,3,0]")) ==
        "error: upsample from f32[2,3,4] to [2,3,0]: spatial sizes must be positive");
  CHECK(infer(OpKind::Upsample, {"f32[2,3,4]"},
              upsampleAttrs("bicubic", {0.0}, "[2,3,8]")) ==
        "error: upsample mode 'bicubic' is not one of nearest, nearest-exact, linear");
}

TEST_CASE("cumsum and gather") {
  auto contains = [](const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  };
  CHECK(infer(OpKind::GroupedMatmul, {"f32[?s0,64]", "f32[8,64,128]", "i32[8]"}) ==
        "f32[?s0,128]");
  CHECK(contains(infer(OpKind::GroupedMatmul, {"f32[6,64]", "f32[8,32,128]", "i32[8]"}),
                 "inner dims"));
  CHECK(contains(infer(OpKind::GroupedMatmul, {"f32[6,64]", "f32[8,64,128]", "i32[7]"}),
                 "7 offsets for 8 groups"));
  CHECK(contains(infer(OpKind::GroupedMatmul, {"f32[6,64]", "f32[8,64,128]", "f32[8]"}),
                 "not integers"));
  CHECK(infer(OpKind::Cumsum, {"bool[4]"}, attrs({{"dim", intAttr(0)}})) == "i64[4]");
  CHECK(infer(OpKind::Cumsum, {"bf16[]"}, attrs({{"dim", intAttr(-1)}})) == "bf16[]");
  CHECK(contains(infer(OpKind::Cumsum, {"f32[2,3]"}, attrs({{"dim", intAttr(2)}})),
                 "out of range"));
  CHECK(infer(OpKind::Gather, {"f32[5,4]", "i32[5,?s0]"}, attrs({{"dim", intAttr(-1)}})) ==
        "f32[5,?s0]");
  CHECK(infer(OpKind::Gather, {"f32[5,4]", "i64[3,4]"}, attrs({{"dim", intAttr(1)}})) ==
        "error: gather index i64[3,4] differs from the input f32[5,4] in dim 0 (only dim 1 "
        "may)");
  CHECK(contains(infer(OpKind::Gather, {"f32[5,4]", "i64[5]"}, attrs({{"dim", intAttr(0)}})),
                 "differ in rank"));
  CHECK(contains(infer(OpKind::Gather, {"f32[5,4]", "f32[5,4]"}, attrs({{"dim", intAttr(0)}})),
                 "gather"));
}

TEST_CASE("flip, diagonal, as_strided, slice_scatter and scatter refuse bad operands") {
  auto contains = [](const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  };
  CHECK(contains(infer(OpKind::Flip, {"f32[2,3]"}, attrs({{"dims", intsAttr({1, 0})}})),
                 "must be sorted"));
  CHECK(infer(OpKind::Diagonal, {"f32[2,5]"},
              attrs({{"diagonal", intAttr(-2)}, {"dims", intsAttr({0, 1})}})) == "f32[0]");
  CHECK(contains(infer(OpKind::Diagonal, {"f32[2,5]"},
                       attrs({{"diagonal", intAttr(0)}, {"dims", intsAttr({1, 1})}})),
                 "distinct"));
  CHECK(contains(infer(OpKind::AsStrided, {"f32[4,6]"},
                       attrs({{"shape", dimsAttr("[3,3]")},
                              {"start", intAttr(20)},
                              {"stride", intsAttr({2, 1})}})),
                 "reads positions 20 to 26 of f32[4,6], which has 24 elements"));
  CHECK(contains(infer(OpKind::SliceScatter, {"f32[4,6]", "f32[3,6]"},
                       attrs({{"dim", intAttr(0)},
                              {"end", intAttr(4)},
                              {"start", intAttr(0)},
                              {"step", intAttr(2)}})),
                 "does not fill the window f32[2,6]"));
  AttrMap sum = attrs({{"dim", intAttr(1)}, {"include_self", true}, {"reduce", std::string("sum")}});
  CHECK(contains(infer(OpKind::Scatter, {"f32[4,6]", "i64[3,2]", "f32[3,2]"}, sum),
                 "differs from the input f32[4,6] in dim 0"));
  CHECK(contains(infer(OpKind::Scatter, {"f32[4,6]", "f32[4,2]", "f32[4,2]"}, sum),
                 "must be i64 or i32"));
  CHECK(contains(infer(OpKind::Scatter, {"f32[4,6]", "i64[4,2]", "f32[4,2]"},
                       attrs({{"dim", intAttr(1)},
                              {"include_self", true},
                              {"reduce", std::string("mean")}})),
                 "is not one of none, sum, prod, amax, amin"));
}

TEST_CASE("embedding and index_select") {
  CHECK(infer(OpKind::Embedding, {"bf16[10,4]", "i32[]"}) == "bf16[4]");
  CHECK(infer(OpKind::Embedding, {"f32[10,4]", "i64[0,3]"}) == "f32[0,3,4]");
  CHECK(infer(OpKind::Embedding, {"f32[10,4]", "f32[3]"}) ==
        "error: embedding indices must be i64 or i32, got f32[3]");
  CHECK(infer(OpKind::Embedding, {"f32[10]", "i64[3]"}) ==
        "error: embedding weight must have rank 2, got f32[10]");

  CHECK(infer(OpKind::IndexSelect, {"f32[5,4]", "i64[?s0]"}, attrs({{"dim", intAttr(-1)}})) ==
        "f32[5,?s0]");
  CHECK(infer(OpKind::IndexSelect, {"f32[5,4]", "i64[]"}, attrs({{"dim", intAttr(0)}})) ==
        "f32[1,4]");
  CHECK(infer(OpKind::IndexSelect, {"f32[5,4]", "i64[2,2]"}, attrs({{"dim", intAttr(0)}})) ==
        "error: index_select indices must have rank 0 or 1, got i64[2,2]");
  CHECK(infer(OpKind::IndexSelect, {"f32[5,4]", "i64[2]"}, attrs({{"dim", intAttr(2)}})) ==
        "error: dim 2 out of range for rank 2");
  // A 0-d input takes dim 0 and -1 (PyTorch's rule) and one index; the result stays 0-d.
  CHECK(infer(OpKind::IndexSelect, {"f32[]", "i64[1]"}, attrs({{"dim", intAttr(0)}})) == "f32[]");
  CHECK(infer(OpKind::IndexSelect, {"f32[]", "i64[]"}, attrs({{"dim", intAttr(-1)}})) == "f32[]");
  CHECK(infer(OpKind::IndexSelect, {"f32[]", "i64[2]"}, attrs({{"dim", intAttr(0)}})) ==
        "error: index_select of a 0-d input takes one index, got i64[2]");
  CHECK(infer(OpKind::IndexSelect, {"f32[]", "i64[1]"}, attrs({{"dim", intAttr(1)}})) ==
        "error: dim 1 out of range for rank 0");
}

} // namespace

TEST_CASE("sort and embedding_bag") {
  auto contains = [](const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
  };
  CHECK(contains(infer(OpKind::Cholesky, {"f32[3,4]"}, attrs({{"upper", false}})),
                 "must be square"));
  CHECK(contains(infer(OpKind::Svd, {"f16[3,3]"}, attrs({{"full", false}, {"vectors", true}})),
                 "must be f32 or f64"));
  CHECK(contains(infer(OpKind::TriangularSolve, {"f32[4,4]", "f32[3,2]"},
                       attrs({{"left", true}, {"unitriangular", false}, {"upper", false}})),
                 "does not match A"));
  CHECK(contains(infer(OpKind::HouseholderProduct, {"f32[3,5]", "f32[3]"}), "k <= n <= m"));
  CHECK(contains(infer(OpKind::HouseholderProduct, {"f32[5,3]", "f32[2,3]"}),
                 "one vector per matrix"));
  CHECK(contains(infer(OpKind::Ormqr, {"f32[4,3]", "f32[2]", "f32[5,4]"},
                       attrs({{"left", true}})),
                 "do not match"));
  CHECK(contains(infer(OpKind::LdlSolve, {"f32[4,4]", "i64[4]", "f32[4,2]"}),
                 "must be i32"));
  CHECK(contains(infer(OpKind::MatrixExp, {"f32[2,3]"}), "must be square"));
  CHECK(infer(OpKind::Sort, {"i32[]"}, attrs({{"descending", false}, {"dim", intAttr(0)}})) ==
        "i32[], i64[]");
  CHECK(contains(infer(OpKind::Sort, {"f32[2,3]"},
                       attrs({{"descending", false}, {"dim", intAttr(2)}})),
                 "out of range"));
  AttrMap bag = attrs({{"include_last_offset", false},
                       {"mode", std::string("max")},
                       {"padding_idx", intAttr(3)}});
  CHECK(infer(OpKind::EmbeddingBag, {"f32[10,4]", "i64[7]", "i64[?s0]"}, bag) == "f32[?s0,4]");
  CHECK(infer(OpKind::EmbeddingBag, {"f32[10,4]", "i64[7]", "i32[3]"}, bag) ==
        "error: embedding_bag offsets i32[3] and indices i64[7] differ in dtype");
  CHECK(contains(infer(OpKind::EmbeddingBag, {"f32[10,4]", "i64[7]", "i64[3]", "f32[7]"}, bag),
                 "per_sample_weights need mode sum"));
  CHECK(contains(infer(OpKind::EmbeddingBag, {"i64[10,4]", "i64[7]", "i64[3]"}, bag),
                 "floating"));
  CHECK(contains(infer(OpKind::EmbeddingBag, {"f32[10,4]", "f32[7]", "f32[3]"}, bag),
                 "indices must be i64 or i32"));
  AttrMap last = attrs({{"include_last_offset", true},
                        {"mode", std::string("sum")},
                        {"padding_idx", intAttr(-1)}});
  CHECK(infer(OpKind::EmbeddingBag, {"f32[10,4]", "i64[7]", "i64[?s0]"}, last) ==
        "f32[?(s0+-1),4]");
  CHECK(contains(infer(OpKind::EmbeddingBag, {"f32[10,4]", "i64[7]", "i64[0]"}, last),
                 "at least one offset"));
}
