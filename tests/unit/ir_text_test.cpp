// Tests for ir/printer and ir/parser: the exact canonical format, byte-identical round trips
// of hand-built graphs, and parse errors with their line:column.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/sym_expr.h"

using namespace thunderc;
using namespace thunderc::ir;

namespace {

Dim sym(const std::string &name) { return Dim(SymExpr::symbol(name)); }

TensorType f32(Shape shape) { return TensorType{DType::F32, std::move(shape)}; }

/// Parses `text`, failing the test with the error message if it does not parse.
std::unique_ptr<Graph> parseOrFail(const std::string &text) {
  Expected<std::unique_ptr<Graph>> graph = parseGraph(text, "test.tir");
  if (!graph.ok())
    FAIL("parse failed: " << graph.error().message());
  return std::move(graph).value();
}

/// Prints, parses and prints again; the two prints must be byte-identical.
std::string checkRoundTrip(const Graph &graph) {
  std::string printed = printGraph(graph);
  std::unique_ptr<Graph> reparsed = parseOrFail(printed);
  CHECK(printGraph(*reparsed) == printed);
  return printed;
}

/// The error message parsing `text` produces ("" if it parses).
std::string parseError(const std::string &text) {
  Expected<std::unique_ptr<Graph>> graph = parseGraph(text, "test.tir");
  if (graph.ok())
    return "";
  CHECK(graph.error().kind() == ErrorKind::InvalidInput);
  return graph.error().message();
}

/// The value of attribute `name` of the only node of the graph `text` parses to.
AttrValue attributeOf(const std::string &attrText, const std::string &name) {
  std::unique_ptr<Graph> graph =
      parseOrFail("graph @g(%x: f32[2]) -> (f32[2]) {\n  %y = copy(%x) {" + attrText +
                  "} : f32[2]\n  return %y\n}\n");
  const AttrValue *value = graph->nodes().front()->attrs().find(name);
  REQUIRE(value != nullptr);
  return *value;
}

} // namespace

TEST_CASE("printGraph writes the documented canonical form") {
  Graph graph("mlp");
  graph.symbols()["s0"] = SymbolRange{1, 64};
  Value *x = graph.addInput("x", f32({sym("s0"), 784}));
  Value *weight = graph.addInput("p_fc1_weight", f32({128, 784}), InputKind::Parameter,
                                 "fc1.weight");
  Node *linear = graph.appendNode(OpKind::Linear, {x, weight}, {f32({sym("s0"), 128})});
  linear->result()->setName("linear");
  linear->source().loc = "zoo.py:57";
  AttrMap splitAttrs;
  splitAttrs.set("dim", int64_t{1});
  splitAttrs.set("sizes", std::vector<int64_t>{64, 64});
  Node *split = graph.appendNode(OpKind::Split, {linear->result()},
                                 {f32({sym("s0"), 64}), f32({sym("s0"), 64})}, splitAttrs);
  split->result(0)->setName("a");
  split->result(1)->setName("b");
  graph.setOutputs({split->result(0), split->result(1)});

  const char *expected = R"(graph @mlp(
    %x: f32[?s0,784],
    %p_fc1_weight: f32[128,784] {param="fc1.weight"}
) -> (f32[?s0,64], f32[?s0,64]) symbols(s0: [1, 64]) {
  %linear = linear(%x, %p_fc1_weight) : f32[?s0,128] loc("zoo.py:57")
  %a, %b = split(%linear) {dim=1, sizes=[64,64]} : f32[?s0,64], f32[?s0,64]
  return %a, %b
}
)";
  CHECK(printGraph(graph) == expected);
  CHECK(checkRoundTrip(graph) == expected);
  CHECK(printNode(*split) ==
        "%a, %b = split(%linear) {dim=1, sizes=[64,64]} : f32[?s0,64], f32[?s0,64]");
}

TEST_CASE("a graph without inputs prints empty parentheses") {
  Graph graph("constant");
  AttrMap attrs;
  attrs.set("value", 0.5);
  Node *full = graph.appendNode(OpKind::Full, {}, {TensorType{DType::F16, {}}}, attrs);
  graph.setOutputs({full->result()});
  CHECK(checkRoundTrip(graph) == "graph @constant() -> (f16[]) {\n"
                                 "  %0 = full() {value=0.5} : f16[]\n"
                                 "  return %0\n"
                                 "}\n");
}

TEST_CASE("unnamed values get numbers that no named value uses") {
  Graph graph("numbers");
  Value *x = graph.addInput("", f32({4}));
  Node *first = graph.appendNode(OpKind::Relu, {x}, {f32({4})});
  Node *named = graph.appendNode(OpKind::Neg, {first->result()}, {f32({4})});
  named->result()->setName("1");
  Node *last = graph.appendNode(OpKind::Exp, {named->result()}, {f32({4})});
  graph.setOutputs({last->result()});
  // %0 is the input, %1 is taken by a named value, so the unnamed results get 2 and 3.
  CHECK(checkRoundTrip(graph) == "graph @numbers(\n"
                                 "    %0: f32[4]\n"
                                 ") -> (f32[4]) {\n"
                                 "  %2 = relu(%0) : f32[4]\n"
                                 "  %1 = neg(%2) : f32[4]\n"
                                 "  %3 = exp(%1) : f32[4]\n"
                                 "  return %3\n"
                                 "}\n");
  CHECK(printNode(*first) == "%? = relu(%?) : f32[4]");
}

TEST_CASE("weight inputs, symbolic dims and symbol ranges round-trip") {
  Graph graph("weights");
  graph.symbols()["s0"] = SymbolRange{2, std::nullopt};
  graph.symbols()["s1"] = SymbolRange{0, 8};
  Dim batch = sym("s0");
  Dim packed(SymExpr::add(SymExpr::mul(SymExpr::symbol("s1"), SymExpr::constant(16)),
                          SymExpr::constant(1)));
  Dim clamped(SymExpr::max(SymExpr::symbol("s0"), SymExpr::constant(1)));
  Value *x = graph.addInput("x", f32({batch, packed, clamped}));
  graph.addInput("w", f32({3}), InputKind::Parameter, "layer.0.weight");
  graph.addInput("running_mean", f32({3}), InputKind::Buffer, "bn.running_mean");
  graph.addInput("c", TensorType{DType::I64, {}}, InputKind::Constant, "quote\"back\\slash");
  Node *relu = graph.appendNode(OpKind::Relu, {x}, {x->type()});
  graph.setOutputs({relu->result()});
  std::string printed = checkRoundTrip(graph);
  CHECK(printed.find("%x: f32[?s0,?((s1*16)+1),?max(1,s0)],\n") != std::string::npos);
  CHECK(printed.find("{buffer=\"bn.running_mean\"}") != std::string::npos);
  CHECK(printed.find("{constant=\"quote\\\"back\\\\slash\"}\n") != std::string::npos);
  CHECK(printed.find("symbols(s0: [2, inf], s1: [0, 8])") != std::string::npos);

  std::unique_ptr<Graph> reparsed = parseOrFail(printed);
  CHECK(reparsed->input(0)->type() == x->type());
  CHECK(reparsed->input(1)->inputKind() == InputKind::Parameter);
  CHECK(reparsed->input(3)->weightName() == "quote\"back\\slash");
  CHECK(reparsed->symbols() == graph.symbols());
}

TEST_CASE("every attribute type round-trips") {
  Graph graph("attributes");
  Value *x = graph.addInput("x", f32({2}));
  AttrMap attrs;
  attrs.set("a_int", int64_t{-3});
  attrs.set("b_float", 0.1);
  attrs.set("c_bool", true);
  attrs.set("d_str", std::string("tanh \"q\" \\ line\nbreak"));
  attrs.set("e_ints", std::vector<int64_t>{1, -2, 3});
  attrs.set("f_floats", std::vector<double>{0.5, 1e-05, -std::numeric_limits<double>::infinity()});
  attrs.set("g_dim", makeDimAttr(sym("s0")));
  attrs.set("h_dims", makeDimsAttr({sym("s0"), 4}));
  attrs.set("i_dtype", DType::BF16);
  attrs.set("j_empty", std::vector<int64_t>{});
  attrs.set("k_false", false);
  Node *node = graph.appendNode(OpKind::Copy, {x}, {f32({2})}, attrs);
  graph.setOutputs({node->result()});

  std::string printed = checkRoundTrip(graph);
  CHECK(printed.find("{a_int=-3, b_float=0.1, c_bool=true, "
                     "d_str=\"tanh \\\"q\\\" \\\\ line\\nbreak\", e_ints=[1,-2,3], "
                     "f_floats=[0.5,1e-05,-inf], g_dim=?s0, h_dims=[?s0,4], i_dtype=bf16, "
                     "j_empty=[], k_false=false}") != std::string::npos);
  std::unique_ptr<Graph> reparsed = parseOrFail(printed);
  const AttrMap &parsed = reparsed->nodes().front()->attrs();
  for (const auto &entry : attrs.all()) {
    const std::string &name = entry.first; // not a structured binding: INFO captures it
    const auto &value = entry.second;
    INFO("attribute " << name);
    REQUIRE(parsed.find(name) != nullptr);
    CHECK(attrType(*parsed.find(name)) == attrType(value));
    CHECK(attrValueStr(*parsed.find(name)) == attrValueStr(value));
  }
  CHECK(parsed.getStr("d_str") == "tanh \"q\" \\ line\nbreak");
}

TEST_CASE("floats read back bit-exactly") {
  const double values[] = {0.1,
                           1e-05,
                           -0.0,
                           1e+20,
                           100.0,
                           1.0 / 3.0,
                           5e-324,
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity()};
  for (double value : values) {
    std::string text = attrValueStr(AttrValue(value));
    INFO("text " << text);
    AttrValue parsed = attributeOf("v=" + text, "v");
    REQUIRE(attrType(parsed) == AttrType::Float);
    double back = std::get<double>(parsed);
    CHECK(std::memcmp(&back, &value, sizeof(double)) == 0);
  }
  AttrValue nan = attributeOf("v=nan", "v");
  REQUIRE(attrType(nan) == AttrType::Float);
  CHECK(std::isnan(std::get<double>(nan)));
}

TEST_CASE("attribute values keep the type they are written with") {
  // The parser does not coerce to ir/ops.def types; the verifier judges them.
  CHECK(attrType(attributeOf("v=1", "v")) == AttrType::Int);
  CHECK(attrType(attributeOf("v=1.0", "v")) == AttrType::Float);
  CHECK(attrType(attributeOf("v=2e3", "v")) == AttrType::Float);
  CHECK(attrType(attributeOf("v=[1,2]", "v")) == AttrType::Ints);
  CHECK(attrType(attributeOf("v=[1,2.5]", "v")) == AttrType::Floats);
  CHECK(attrType(attributeOf("v=[inf]", "v")) == AttrType::Floats);
  CHECK(attrType(attributeOf("v=[]", "v")) == AttrType::Ints);
  CHECK(attrType(attributeOf("v=[?s0,2]", "v")) == AttrType::Dims);
  CHECK(attrType(attributeOf("v=?(s0*2)", "v")) == AttrType::Dim);
  CHECK(attrType(attributeOf("v=\"x\"", "v")) == AttrType::Str);
  CHECK(attrType(attributeOf("v=i64", "v")) == AttrType::DType);
  CHECK(attrType(attributeOf("v=false", "v")) == AttrType::Bool);
}

TEST_CASE("the parser tolerates whitespace and comments") {
  const char *messy = R"(// A comment before the graph.
graph   @g ( %x :f32[ ?s0 , 3 ] {param = "w"} )->( f32[?s0,3] )  symbols( s0 : [ 1 , inf ] )
{ // the body
  %y=relu( %x ) :f32[?s0,3]   loc( "a.py:1" )  // trailing comment
  %z = clamp(%y) { min = 0.0 , max=6 } : f32[?s0,3]
  return   %z
}  // done
)";
  std::unique_ptr<Graph> graph = parseOrFail(messy);
  std::string canonical = printGraph(*graph);
  CHECK(canonical == R"(graph @g(
    %x: f32[?s0,3] {param="w"}
) -> (f32[?s0,3]) symbols(s0: [1, inf]) {
  %y = relu(%x) : f32[?s0,3] loc("a.py:1")
  %z = clamp(%y) {max=6, min=0.0} : f32[?s0,3]
  return %z
}
)");
  CHECK(printGraph(*parseOrFail(canonical)) == canonical);
}

TEST_CASE("a graph with no outputs round-trips") {
  Graph graph("empty");
  graph.addInput("x", f32({1}));
  CHECK(checkRoundTrip(graph) == "graph @empty(\n    %x: f32[1]\n) -> () {\n  return\n}\n");
}

TEST_CASE("parse errors name the line and column") {
  const std::string header = "graph @g(%x: f32[2]) -> (f32[2]) {\n";
  CHECK(parseError(header + "  %y = foo(%x) : f32[2]\n  return %y\n}\n") ==
        "test.tir:2:8: unknown op 'foo'");
  CHECK(parseError(header + "  %y = relu(%w) : f32[2]\n  return %y\n}\n") ==
        "test.tir:2:13: use of undefined value '%w'");
  CHECK(parseError(header + "  %x = relu(%x) : f32[2]\n  return %x\n}\n") ==
        "test.tir:2:3: redefinition of value '%x'");
  CHECK(parseError(header + "  %y = relu(%x) f32[2]\n  return %y\n}\n") ==
        "test.tir:2:17: expected ':'");
  CHECK(parseError(header + "  %y = relu(%x) : f33[2]\n  return %y\n}\n") ==
        "test.tir:2:19: unknown dtype 'f33'");
  CHECK(parseError(header + "  %y, %z = relu(%x) : f32[2]\n  return %y\n}\n") ==
        "test.tir:2:23: 2 result names but 1 result types");
  CHECK(parseError(header + "  %y = relu(%x) {a=1, a=2} : f32[2]\n  return %y\n}\n") ==
        "test.tir:2:23: duplicate attribute 'a'");
  CHECK(parseError(header + "  %y = relu(%x) {a=\"open} : f32[2]\n  return %y\n}\n") ==
        "test.tir:2:20: unterminated string");
  CHECK(parseError(header + "  %y = relu(%x) {a=bogus} : f32[2]\n  return %y\n}\n") ==
        "test.tir:2:20: unknown attribute value 'bogus'");
  CHECK(parseError(header + "  %y = relu(%x) {a=99999999999999999999} : f32[2]\n}\n") ==
        "test.tir:2:20: integer '99999999999999999999' out of range");
  CHECK(parseError(header + "  %y = relu(%x) : f32[?(s0+]\n  return %y\n}\n") ==
        "test.tir:2:23: unbalanced '(' in symbolic dim");
  CHECK(parseError(header + "  %y = relu(%x) : f32[-1]\n  return %y\n}\n") ==
        "test.tir:2:23: negative dim -1");
  CHECK(parseError(header + "  %y = relu(%x) : f32[?(0-3)]\n  return %y\n}\n") ==
        "test.tir:2:23: negative dim -3");
  CHECK(parseError(header + "  return %x, %x\n}\n") ==
        "test.tir:2:3: graph declares 1 result types but returns 2 values");
  CHECK(parseError(header + "  %y = cast(%x) {dtype=f16} : f16[2]\n  return %y\n}\n") ==
        "test.tir:3:10: returned value has type f16[2] but the graph declares f32[2]");
  CHECK(parseError(header + "  return %x\n}\n}\n") ==
        "test.tir:4:1: unexpected text after the graph");
  CHECK(parseError(header + "  %y = relu(%x) : f32[2]\n") == "test.tir:3:1: expected 'return'");
  CHECK(parseError("graph @g(%x: f32[2] {weight=\"w\"}) -> () {\n  return\n}\n") ==
        "test.tir:1:22: expected 'param', 'buffer', 'constant' or 'state'");
  CHECK(parseError("\n\n  // only a comment\n") == "test.tir:4:1: expected 'graph'");
  CHECK(parseError("graph @g(%x: f32[2]) -> (f32[2]) symbols(s0: [1, 2], s0: [1, 3]) {\n"
                   "  return %x\n}\n") == "test.tir:1:54: redefinition of symbol 's0'");
}

TEST_CASE("bad symbolic dims report the parseSymExpr message at the dim") {
  std::string message =
      parseError("graph @g(%x: f32[?(s0+)]) -> () {\n  return\n}\n");
  CHECK(message.rfind("test.tir:1:18: bad symbolic expression '(s0+)'", 0) == 0);
}

TEST_CASE("state inputs and state outputs round-trip") {
  std::string text = R"(graph @step(
    %x: f32[1,4],
    %pos: i64[1],
    %cache: f32[8,4] {state="cache"},
    %count: i64[] {state="count"}
) -> (f32[8,4], f32[8,4], i64[]) {
  %0 = expand(%pos) {shape=[1,4]} : i64[1,4]
  %1 = scatter(%cache, %0, %x) {dim=0, include_self=true, reduce="none"} : f32[8,4]
  %2 = add(%count, %count) : i64[]
  return %1, %1 {state="cache"}, %2 {state="count"}
}
)";
  std::unique_ptr<Graph> graph = parseOrFail(text);
  CHECK(printGraph(*graph) == text);
  CHECK(graph->numUserOutputs() == 1);
  REQUIRE(graph->stateOf(1) != nullptr);
  CHECK(*graph->stateOf(1) == "cache");
  CHECK(*graph->stateOf(2) == "count");
  CHECK(graph->stateOf(0) == nullptr);
  CHECK(graph->input(2)->inputKind() == InputKind::State);
  CHECK(parseError("graph @g(%x: f32[2] {state=\"s\"}) -> (f32[2], f32[2]) {\n"
                   "  return %x {state=\"s\"}, %x\n}\n") ==
        "test.tir:2:26: a user output after a state output");
}

TEST_CASE("SymExpr::sum/product match pairwise add/mul; long sums parse in one combine") {
  std::vector<SymExpr> terms{SymExpr::symbol("s1"), SymExpr::constant(3),
                             SymExpr::add(SymExpr::symbol("s0"), SymExpr::constant(2)),
                             SymExpr::mul(SymExpr::symbol("s2"), SymExpr::constant(-1)),
                             SymExpr::constant(std::numeric_limits<int64_t>::max())};
  SymExpr pairwiseSum = terms[0], pairwiseProduct = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    pairwiseSum = SymExpr::add(pairwiseSum, terms[i]);
    pairwiseProduct = SymExpr::mul(pairwiseProduct, terms[i]);
  }
  CHECK(SymExpr::sum(terms).str() == pairwiseSum.str());
  CHECK(SymExpr::product(terms).str() == pairwiseProduct.str());
  CHECK(SymExpr::sum({}).str() == "0");
  CHECK(SymExpr::product({}).str() == "1");
  CHECK(SymExpr::product({SymExpr::symbol("s0"), SymExpr::constant(0)}).str() == "0");

  // The text parser keeps precedence and left-to-right order around '//' and '%'.
  auto parsed = [](const std::string &text) {
    Expected<SymExpr> expr = parseSymExpr(text);
    REQUIRE_MESSAGE(expr.ok(), text);
    return expr->str();
  };
  CHECK(parsed("s0*4//2*s1") ==
        SymExpr::mul(SymExpr::floorDiv(SymExpr::mul(SymExpr::symbol("s0"), SymExpr::constant(4)),
                                       SymExpr::constant(2)),
                     SymExpr::symbol("s1"))
            .str());
  CHECK(parsed("s0-s1%3+2") ==
        SymExpr::add(SymExpr::sub(SymExpr::symbol("s0"),
                                  SymExpr::mod(SymExpr::symbol("s1"), SymExpr::constant(3))),
                     SymExpr::constant(2))
            .str());
  // 20,000 terms (pairwise this was 20,000 re-sorts of a growing list): one flat sum.
  std::string text = "s0";
  for (int i = 1; i < 20000; ++i)
    text += i % 2 ? "+s1" : "-s0";
  Expected<SymExpr> big = parseSymExpr(text);
  REQUIRE(big.ok());
  CHECK(big->kind() == SymExpr::Kind::Add);
  CHECK(big->operands().size() == 20000);
}
