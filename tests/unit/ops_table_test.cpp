// Unit tests for the op table of ir/ops.def as ir/ops.h and ir/op_attributes.h read it: the
// implied traits, the columns that must agree with each other (scalar expressions with
// families and attributes, ATen overloads with the generated schemas and the import table),
// and the typed attribute accessors.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "frontend/aten/node_importer.h"
#include "frontend/aten/op_schema.h"
#include "ir/graph.h"
#include "ir/op_attributes.h"

namespace {

using namespace thunderc;
using namespace thunderc::ir;

std::vector<OpKind> allOps() {
  std::vector<OpKind> ops;
  for (int i = 0; i < kNumOps; ++i)
    ops.push_back(static_cast<OpKind>(i));
  return ops;
}

bool isElementwiseFamily(OpFamily family) {
  return family == OpFamily::Unary || family == OpFamily::Binary || family == OpFamily::Ternary;
}

// The "{name}" placeholders of a scalar expression.
std::vector<std::string> placeholders(std::string_view expression) {
  std::vector<std::string> names;
  for (size_t open = expression.find('{'); open != std::string_view::npos;
       open = expression.find('{', open + 1)) {
    size_t close = expression.find('}', open);
    REQUIRE(close != std::string_view::npos);
    names.emplace_back(expression.substr(open + 1, close - open - 1));
  }
  return names;
}

std::vector<std::string_view> overloadsOf(const OpInfo &info) {
  std::vector<std::string_view> overloads;
  std::string_view names = info.atenOverloads;
  while (!names.empty()) {
    size_t space = names.find(' ');
    overloads.push_back(names.substr(0, space));
    names.remove_prefix(space == std::string_view::npos ? names.size() : space + 1);
  }
  return overloads;
}

} // namespace

TEST_CASE("op table: traits implied by family and dtype rule") {
  for (OpKind op : allOps()) {
    const OpInfo &info = opInfo(op);
    INFO(info.name);
    CHECK(hasTrait(op, kElementwise) == isElementwiseFamily(info.family));
    CHECK(hasTrait(op, kBroadcast) ==
          (info.family == OpFamily::Binary || info.family == OpFamily::Ternary));
    CHECK(hasTrait(op, kComparison) == (info.dtypeRule == DTypeRule::Bool));
    if (info.family == OpFamily::Unary)
      CHECK((info.minOperands == 1 && info.maxOperands == 1 && info.numResults == 1));
    if (info.family == OpFamily::Binary)
      CHECK((info.minOperands == 2 && info.maxOperands == 2 && info.numResults == 1));
  }
  CHECK(opInfo(OpKind::Lt).traits == (kElementwise | kBroadcast | kComparison));
  CHECK(opInfo(OpKind::Any).traits == (kReduction | kComparison));
  CHECK(opInfo(OpKind::Reshape).traits == kView);
}

TEST_CASE("op table: scalar expressions belong to elementwise ops and name float attributes") {
  for (OpKind op : allOps()) {
    const OpInfo &info = opInfo(op);
    INFO(info.name);
    bool builtByBackend = op == OpKind::Gelu || op == OpKind::Clamp || op == OpKind::Elu ||
                          op == OpKind::RoundDecimals;
    CHECK(info.scalarExpression.empty() == (!isElementwiseFamily(info.family) || builtByBackend));
    for (const std::string &name : placeholders(info.scalarExpression)) {
      INFO("{" << name << "}");
      bool declaredFloat = false;
      for (const AttrSpec &spec : info.attributes)
        declaredFloat |= spec.name == name && spec.type == AttrType::Float && !spec.optional;
      CHECK(declaredFloat);
    }
  }
}

TEST_CASE("op table: every generic ATen overload has a schema and imports to its op") {
  int count = 0;
  for (OpKind op : allOps()) {
    const OpInfo &info = opInfo(op);
    for (std::string_view overload : overloadsOf(info)) {
      std::string target = "aten." + std::string(overload);
      INFO(info.name << ": " << target);
      CHECK((info.family == OpFamily::Unary || info.family == OpFamily::Binary));
      CHECK(frontend::findOpSchema(target) != nullptr);
      CHECK(static_cast<bool>(frontend::findImportFunction("torch.ops." + target)));
      ++count;
    }
  }
  CHECK(count > 40);
  CHECK(static_cast<bool>(frontend::findImportFunction("torch.ops.aten.sigmoid.default")));
  CHECK(!frontend::findImportFunction("torch.ops.aten.sigmoid.out"));
  CHECK(static_cast<bool>(frontend::findImportFunction("aten.add.Tensor")));
}

TEST_CASE("op table: attribute declarations") {
  CHECK(attrDecl(AttrId::arange_start).key == "start");
  CHECK(attrDecl(AttrId::start).type == AttrType::Int);
  CHECK(attrDecl(AttrId::arange_start).type == AttrType::Float);
  CHECK(attrDecl(AttrId::scale).presence == AttrPresence::Optional);
  CHECK(opInfo(OpKind::Slice).declares(AttrId::start));
  CHECK(!opInfo(OpKind::Slice).declares(AttrId::arange_start));
  CHECK(opInfo(OpKind::Arange).declares(AttrId::arange_step));
  std::vector<std::string> arange;
  for (const AttrSpec &spec : opInfo(OpKind::Arange).attributes)
    arange.push_back(spec.name);
  CHECK(arange == std::vector<std::string>{"start", "step"});
}

TEST_CASE("typed attribute accessors") {
  Graph graph("g");
  Value *x = graph.addInput("x", TensorType{DType::F32, {4, 6}});
  AttrMap sliceAttrs;
  sliceAttrs.set("dim", int64_t{1});
  sliceAttrs.set("start", int64_t{2});
  sliceAttrs.set("step", int64_t{2});
  sliceAttrs.set("end", makeDimAttr(Dim(6)));
  Node *slice = graph.appendNode(OpKind::Slice, {x}, {TensorType{DType::F32, {4, 2}}},
                                 std::move(sliceAttrs));
  CHECK(attr::dim(*slice) == 1);
  CHECK(attr::start(*slice) == 2);
  CHECK(attr::step(slice->attrs()) == 2);
  CHECK(attr::end(*slice) == Dim(6));

  AttrMap clampAttrs;
  clampAttrs.set("min", -1.5);
  Node *clamp = graph.appendNode(OpKind::Clamp, {x}, {x->type()}, std::move(clampAttrs));
  CHECK(attr::min(*clamp) == -1.5);
  CHECK(!attr::max(*clamp).has_value());

  AttrMap gelu;
  gelu.set("approximate", std::string("tanh"));
  CHECK(attr::approximate(gelu) == "tanh");
  AttrMap cast;
  cast.set("dtype", DType::F16);
  CHECK(attr::dtype(cast) == DType::F16);
  CHECK(ruleResultDType(OpKind::Cast, DType::F32, cast) == DType::F16);
  CHECK(ruleResultDType(OpKind::Sum, DType::I32, {}) == DType::I64);
  CHECK(ruleResultDType(OpKind::Sum, DType::BF16, {}) == DType::BF16);
  CHECK(ruleResultDType(OpKind::Eq, DType::F32, {}) == DType::Bool);
  CHECK(ruleResultDType(OpKind::Argmax, DType::F32, {}) == DType::I64);
}
