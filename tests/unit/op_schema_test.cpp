// Tests for frontend/aten/op_schema: lookups by every target spelling, defaults converted into the
// serialized Argument form torch.export writes, and that the whole generated table parses.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "frontend/aten/op_schema.h"

using nlohmann::json;
using thunderc::frontend::ArgSchema;
using thunderc::frontend::findOpSchema;
using thunderc::frontend::OpSchema;
using thunderc::frontend::opSchemaCount;
using thunderc::frontend::parseOpSchema;

namespace {

constexpr std::string_view kGeneratedSchemas[] = {
#define TC_ATEN_SCHEMA(text) text,
#include "frontend/aten/schemas.inc"
#undef TC_ATEN_SCHEMA
};

const ArgSchema &arg(const OpSchema &schema, std::string_view name) {
  const ArgSchema *found = schema.findArg(name);
  REQUIRE_MESSAGE(found != nullptr, "no argument " << name << " in " << schema.name);
  return *found;
}

/// The default of `argName`, or a JSON string marking it required, for one-line CHECKs.
json defaultOf(const OpSchema &schema, std::string_view argName) {
  const ArgSchema &found = arg(schema, argName);
  return found.defaultArgument.value_or(json("<required>"));
}

} // namespace

// Proves every spelling the importer may meet resolves to the same entry.
TEST_CASE("findOpSchema accepts every target spelling") {
  const OpSchema *add = findOpSchema("torch.ops.aten.add.Tensor");
  REQUIRE(add != nullptr);
  CHECK(add->name == "add");
  CHECK(add->overload == "Tensor");
  CHECK(findOpSchema("aten.add.Tensor") == add);
  CHECK(findOpSchema("aten::add.Tensor") == add);
  CHECK(findOpSchema("add.Tensor") == add);

  const OpSchema *relu = findOpSchema("torch.ops.aten.relu.default");
  REQUIRE(relu != nullptr);
  CHECK(relu->overload == "default");
  CHECK(findOpSchema("aten.relu.default") == relu);
  CHECK(findOpSchema("aten::relu") == relu); // schema style: no overload means default
  CHECK(findOpSchema("relu") == relu);
  CHECK(findOpSchema("relu.default") == relu);
}

// Proves unknown names and other namespaces are reported as nullptr rather than guessed.
TEST_CASE("findOpSchema returns nullptr for unknown targets") {
  CHECK(findOpSchema("torch.ops.aten.no_such_op.default") == nullptr);
  CHECK(findOpSchema("torch.ops.aten.add.NoSuchOverload") == nullptr);
  CHECK(findOpSchema("torch.ops.aten.relu") == nullptr); // an OpOverloadPacket, not a target
  CHECK(findOpSchema("aten.relu") == nullptr);
  CHECK(findOpSchema("torch.ops.prims.add.default") == nullptr);
  CHECK(findOpSchema("prims::add") == nullptr);
  CHECK(findOpSchema("_operator.mul") == nullptr);
  CHECK(findOpSchema("torch.ops.higher_order.cond") == nullptr);
  CHECK(findOpSchema("") == nullptr);
  CHECK(findOpSchema("torch.ops.aten.") == nullptr);
}

// Proves a Scalar default written without a '.' becomes as_int, and kwarg-only is tracked.
TEST_CASE("add.Tensor alpha defaults to as_int 1 and is keyword-only") {
  const OpSchema *add = findOpSchema("aten.add.Tensor");
  REQUIRE(add != nullptr);
  REQUIRE(add->args.size() == 3);
  CHECK_FALSE(add->args[0].kwargOnly);
  CHECK_FALSE(add->args[0].defaultArgument.has_value());
  CHECK_FALSE(add->args[1].kwargOnly);
  CHECK(add->args[2].name == "alpha");
  CHECK(add->args[2].type == "Scalar");
  CHECK(add->args[2].kwargOnly);
  CHECK(defaultOf(*add, "alpha") == json::parse(R"({"as_int": 1})"));
  CHECK(defaultOf(*add, "alpha")["as_int"].is_number_integer());
  CHECK_FALSE(add->isMutating);
  REQUIRE(add->returns.size() == 1);
  CHECK(add->returns[0].type == "Tensor");
}

// Proves fixed-size list defaults: `[]` stays empty, a scalar is repeated to the list size.
TEST_CASE("max_pool2d_with_indices list defaults") {
  const OpSchema *pool = findOpSchema("torch.ops.aten.max_pool2d_with_indices.default");
  REQUIRE(pool != nullptr);
  CHECK(arg(*pool, "kernel_size").type == "int[2]");
  CHECK_FALSE(arg(*pool, "kernel_size").defaultArgument.has_value());
  CHECK(defaultOf(*pool, "stride") == json::parse(R"({"as_ints": []})"));
  CHECK(defaultOf(*pool, "padding") == json::parse(R"({"as_ints": [0, 0]})"));
  CHECK(defaultOf(*pool, "dilation") == json::parse(R"({"as_ints": [1, 1]})"));
  CHECK(defaultOf(*pool, "ceil_mode") == json::parse(R"({"as_bool": false})"));
  CHECK(pool->returns.size() == 2);
}

// Proves None, float and bool defaults and the keyword-only split of SDPA.
TEST_CASE("scaled_dot_product_attention defaults") {
  const OpSchema *sdpa = findOpSchema("torch.ops.aten.scaled_dot_product_attention.default");
  REQUIRE(sdpa != nullptr);
  CHECK(defaultOf(*sdpa, "attn_mask") == json::parse(R"({"as_none": true})"));
  CHECK(arg(*sdpa, "attn_mask").type == "Tensor?");
  CHECK(defaultOf(*sdpa, "dropout_p") == json::parse(R"({"as_float": 0.0})"));
  CHECK(defaultOf(*sdpa, "dropout_p")["as_float"].is_number_float());
  CHECK(defaultOf(*sdpa, "is_causal") == json::parse(R"({"as_bool": false})"));
  CHECK_FALSE(arg(*sdpa, "is_causal").kwargOnly);
  CHECK(defaultOf(*sdpa, "scale") == json::parse(R"({"as_none": true})"));
  CHECK(arg(*sdpa, "scale").kwargOnly);
  CHECK(defaultOf(*sdpa, "enable_gqa") == json::parse(R"({"as_bool": false})"));
  CHECK(arg(*sdpa, "enable_gqa").kwargOnly);
}

// Proves string defaults lose their quotes (the .inc escapes them as \").
TEST_CASE("gelu approximate defaults to as_string none") {
  const OpSchema *gelu = findOpSchema("aten::gelu");
  REQUIRE(gelu != nullptr);
  CHECK(defaultOf(*gelu, "approximate") == json::parse(R"({"as_string": "none"})"));
  CHECK(arg(*gelu, "approximate").kwargOnly);
}

// Proves an op without defaults keeps every argument required and in schema order.
TEST_CASE("convolution has only required arguments") {
  const OpSchema *conv = findOpSchema("torch.ops.aten.convolution.default");
  REQUIRE(conv != nullptr);
  const char *names[] = {"input",      "weight",     "bias",           "stride", "padding",
                         "dilation",   "transposed", "output_padding", "groups"};
  REQUIRE(conv->args.size() == std::size(names));
  for (size_t idx = 0; idx < conv->args.size(); ++idx) {
    CHECK(conv->args[idx].name == names[idx]);
    CHECK_FALSE(conv->args[idx].defaultArgument.has_value());
    CHECK_FALSE(conv->args[idx].kwargOnly);
  }
  CHECK(arg(*conv, "bias").type == "Tensor?");
  CHECK(arg(*conv, "stride").type == "SymInt[]");
  CHECK(arg(*conv, "groups").type == "SymInt");
}

// Proves tuple returns, named returns, list returns and `-> ()`.
TEST_CASE("returns: tuples, names, lists and none") {
  const OpSchema *layerNorm = findOpSchema("torch.ops.aten.native_layer_norm.default");
  REQUIRE(layerNorm != nullptr);
  REQUIRE(layerNorm->returns.size() == 3);
  for (const auto &result : layerNorm->returns) {
    CHECK(result.type == "Tensor");
    CHECK(result.name.empty());
  }

  const OpSchema *split = findOpSchema("torch.ops.aten.split_with_sizes.default");
  REQUIRE(split != nullptr);
  REQUIRE(split->returns.size() == 1);
  CHECK(split->returns[0].type == "Tensor[]"); // "Tensor(a)[]" without its alias annotation
  CHECK(arg(*split, "self").type == "Tensor");  // "Tensor(a -> *)"
  CHECK(defaultOf(*split, "dim") == json::parse(R"({"as_int": 0})"));
  CHECK_FALSE(split->isMutating);

  const OpSchema *maxDim = findOpSchema("aten.max.dim");
  REQUIRE(maxDim != nullptr);
  REQUIRE(maxDim->returns.size() == 2);
  CHECK(maxDim->returns[0].name == "values");
  CHECK(maxDim->returns[1].name == "indices");

  const OpSchema *assertScalar = findOpSchema("torch.ops.aten._assert_scalar.default");
  REQUIRE(assertScalar != nullptr);
  CHECK(assertScalar->returns.empty());
}

// Proves `!` marks both the argument and the op as mutating.
TEST_CASE("in-place ops are mutating") {
  const OpSchema *addInPlace = findOpSchema("torch.ops.aten.add_.Tensor");
  REQUIRE(addInPlace != nullptr);
  CHECK(addInPlace->isMutating);
  CHECK(arg(*addInPlace, "self").isMutated);
  CHECK(arg(*addInPlace, "self").type == "Tensor");
  CHECK_FALSE(arg(*addInPlace, "other").isMutated);
  CHECK(addInPlace->returns[0].type == "Tensor");
}

// Proves c10 enum numbers printed by torch become the serialization enums, which differ.
TEST_CASE("enum defaults use the serialization numbering") {
  const OpSchema *randperm = findOpSchema("torch.ops.aten.randperm.default");
  REQUIRE(randperm != nullptr);
  // Printed as `ScalarType? dtype=4` (c10 Long); serialized LONG is 5.
  CHECK(defaultOf(*randperm, "dtype") == json::parse(R"({"as_scalar_type": 5})"));
  CHECK(defaultOf(*randperm, "layout") == json::parse(R"({"as_none": true})"));

  const OpSchema *contiguous = findOpSchema("torch.ops.aten.contiguous.default");
  REQUIRE(contiguous != nullptr);
  // Printed as `MemoryFormat memory_format=0` (c10 Contiguous); serialized ContiguousFormat 1.
  CHECK(defaultOf(*contiguous, "memory_format") == json::parse(R"({"as_memory_format": 1})"));
}

// Proves float-valued Scalar and float defaults keep their value and JSON float type.
TEST_CASE("float defaults") {
  const OpSchema *leakyRelu = findOpSchema("torch.ops.aten.leaky_relu.default");
  REQUIRE(leakyRelu != nullptr);
  CHECK(defaultOf(*leakyRelu, "negative_slope") == json::parse(R"({"as_float": 0.01})"));

  const OpSchema *groupNorm = findOpSchema("torch.ops.aten.group_norm.default");
  REQUIRE(groupNorm != nullptr);
  const json eps = defaultOf(*groupNorm, "eps");
  REQUIRE(eps.contains("as_float"));
  CHECK(eps["as_float"].get<double>() == 1e-05); // printed as 1.0000000000000001e-05
  CHECK(defaultOf(*groupNorm, "cudnn_enabled") == json::parse(R"({"as_bool": true})"));
}

// Proves the generated table parses in full and every entry is reachable under its own name.
TEST_CASE("every generated schema parses and is indexed") {
  CHECK(opSchemaCount() == std::size(kGeneratedSchemas));
  CHECK(opSchemaCount() > 250);
  for (const std::string_view text : kGeneratedSchemas) {
    CAPTURE(text);
    const OpSchema parsed = parseOpSchema(text);
    // Another library's op is found by its exported target ("torch.ops.transformers.x.default").
    const size_t colons = text.substr(0, text.find('(')).find("::");
    const std::string target =
        colons == std::string_view::npos
            ? parsed.name + "." + parsed.overload
            : "torch.ops." + std::string(text.substr(0, colons)) + "." + parsed.name + "." +
                  parsed.overload;
    const OpSchema *indexed = findOpSchema(target);
    REQUIRE(indexed != nullptr);
    CHECK(indexed->args.size() == parsed.args.size());
    for (const ArgSchema &argument : indexed->args) {
      CHECK(argument.type.find('(') == std::string::npos);
      if (!argument.defaultArgument)
        continue;
      const json &value = *argument.defaultArgument;
      REQUIRE(value.is_object());
      REQUIRE(value.size() == 1);
      CHECK(value.begin().key().starts_with("as_"));
    }
  }
}

// Proves grammar the current table does not exercise: non-finite floats, bool and float
// lists, single quotes, enum names as native_functions.yaml writes them, devices, named
// mutable tuple returns, Tensor lists with alias annotations, and the aten:: prefix.
TEST_CASE("parseOpSchema handles the rest of the schema grammar") {
  const OpSchema schema = parseOpSchema(
      "aten::demo.overload(Tensor(a!)[] tensors, float low=-inf, float high=inf, "
      "float? nothing=nan, bool[3] mask=[True, False, True], float[] scales=[1., 2.5], "
      "float[2] pair=0.5, str name='it\\'s', Tensor[] empty=[], *, "
      "ScalarType dtype=long, MemoryFormat memory_format=channels_last, "
      "Layout layout=strided, Device device=cuda:1, Scalar flag=True, Scalar neg=-2) -> "
      "(Tensor(a!) out, Tensor(b -> *)[] rest)");
  CHECK(schema.name == "demo");
  CHECK(schema.overload == "overload");
  CHECK(schema.isMutating);
  CHECK(arg(schema, "tensors").type == "Tensor[]");
  CHECK(arg(schema, "tensors").isMutated);
  CHECK(defaultOf(schema, "low") == json::parse(R"({"as_float": "-Infinity"})"));
  CHECK(defaultOf(schema, "high") == json::parse(R"({"as_float": "Infinity"})"));
  CHECK(defaultOf(schema, "nothing") == json::parse(R"({"as_float": "NaN"})"));
  CHECK(defaultOf(schema, "mask") == json::parse(R"({"as_bools": [true, false, true]})"));
  CHECK(defaultOf(schema, "scales") == json::parse(R"({"as_floats": [1.0, 2.5]})"));
  CHECK(defaultOf(schema, "pair") == json::parse(R"({"as_floats": [0.5, 0.5]})"));
  CHECK(defaultOf(schema, "name") == json::parse(R"({"as_string": "it's"})"));
  CHECK(defaultOf(schema, "empty") == json::parse(R"({"as_tensors": []})"));
  CHECK_FALSE(arg(schema, "empty").kwargOnly);
  CHECK(arg(schema, "dtype").kwargOnly);
  CHECK(defaultOf(schema, "dtype") == json::parse(R"({"as_scalar_type": 5})"));
  CHECK(defaultOf(schema, "memory_format") == json::parse(R"({"as_memory_format": 2})"));
  CHECK(defaultOf(schema, "layout") == json::parse(R"({"as_layout": 7})"));
  CHECK(defaultOf(schema, "device") ==
        json::parse(R"({"as_device": {"type": "cuda", "index": 1}})"));
  CHECK(defaultOf(schema, "flag") == json::parse(R"({"as_bool": true})"));
  CHECK(defaultOf(schema, "neg") == json::parse(R"({"as_int": -2})"));
  REQUIRE(schema.returns.size() == 2);
  CHECK(schema.returns[0].name == "out");
  CHECK(schema.returns[0].type == "Tensor");
  CHECK(schema.returns[1].name == "rest");
  CHECK(schema.returns[1].type == "Tensor[]");

  const OpSchema quoted = parseOpSchema("q(str a=\"x, y\", str b='(z)') -> ()");
  CHECK(defaultOf(quoted, "a") == json::parse(R"({"as_string": "x, y"})"));
  CHECK(defaultOf(quoted, "b") == json{{"as_string", "(z)"}});
  CHECK(quoted.overload == "default");
  CHECK(quoted.returns.empty());
  CHECK(parseOpSchema("f() -> Tensor").args.empty());
}
