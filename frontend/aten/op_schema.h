// ATen operator schemas (from the generated frontend/aten/schemas.inc), with every default
// value already in the serialized Argument JSON form torch.export writes. torch.export omits
// arguments left at their default, so the importer fills them in from here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace thunderc::frontend {

/// One schema argument.
struct ArgSchema {
  std::string name;
  /// The type as written in the schema with alias annotations dropped: "Tensor", "Tensor?",
  /// "Tensor[]", "Tensor?[]", "int[2]", "SymInt[]", "SymInt[]?", "Scalar", "ScalarType?".
  std::string type;
  /// Declared after the `*` marker, so it can only be passed by keyword (NamedArgument
  /// kind 2 in the serialized program).
  bool kwargOnly = false;
  /// Annotated with `!` (e.g. `Tensor(a!) self`): the op writes to this argument.
  bool isMutated = false;
  /// The default as the serialized Argument torch.export would have written had it been
  /// passed explicitly: {"as_none": true}, {"as_int": 1}, {"as_ints": [0, 0]},
  /// {"as_float": 0.5} or {"as_float": "-Infinity"}, {"as_bool": false},
  /// {"as_string": "none"}, {"as_scalar_type": 5} (serialization numbering, not c10),
  /// {"as_memory_format": 1}, {"as_layout": 7}, {"as_bools": [...]}, {"as_floats": [...]}.
  /// A scalar default of a fixed-size list (`int[2] padding=0`) is repeated to the size.
  /// std::nullopt when the argument is required.
  std::optional<nlohmann::json> defaultArgument;
};

/// One schema return; `name` is empty unless the schema names it
/// (`-> (Tensor values, Tensor indices)`).
struct ReturnSchema {
  std::string name;
  std::string type; ///< as in ArgSchema::type: "Tensor", "Tensor[]", "SymInt", "Scalar"
};

/// A parsed `name.overload(args) -> returns` schema.
struct OpSchema {
  std::string space = "aten"; ///< the library: "aten", "quantized_decomposed", ...
  std::string name;     ///< "add"
  std::string overload; ///< "Tensor"; "default" when the schema has no overload name
  std::vector<ArgSchema> args;
  std::vector<ReturnSchema> returns; ///< empty for `-> ()`
  bool isMutating = false;           ///< some argument is annotated with `!`

  /// The argument called `argName`, or nullptr.
  const ArgSchema *findArg(std::string_view argName) const;
};

/// Looks up an ATen overload known to thunderc. Accepts "torch.ops.aten.add.Tensor" (the
/// serialized Node.target), "aten.add.Tensor", "aten::add.Tensor" and "add.Tensor". The
/// default overload is "<op>.default" in every form; the schema-style "aten::relu" and
/// "relu" (no overload) also mean the default overload. Returns nullptr for an unknown op or
/// overload, another namespace ("torch.ops.prims.x", "_operator.mul") or an empty string.
/// Parses the generated table on first use (thread-safe); the pointer stays valid forever.
const OpSchema *findOpSchema(std::string_view target);

/// Number of overloads in the generated table (frontend/aten/schemas.inc).
size_t opSchemaCount();

/// Parses one schema string, e.g. "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
/// -> Tensor", with or without a leading "aten::". For compiler-controlled text only: a
/// malformed schema or a default that cannot be converted is a compiler bug and aborts
/// through TC_CHECK.
OpSchema parseOpSchema(std::string_view text);

} // namespace thunderc::frontend
