// Parses the generated ATen schema table (frontend/aten/schemas.inc) on first use and turns
// each default into the serialized Argument JSON of docs/PT2_FORMAT.md §2.4, so that the
// importer treats an omitted argument exactly like one torch.export wrote out.
//
// Algorithm:
//   1. split `name.overload(args) -> returns` at the argument list's matching parenthesis;
//   2. split arguments and tuple returns at commas outside brackets, parentheses and quotes;
//   3. per argument: `*` starts the keyword-only ones; otherwise `type name[=default]`, the
//      type stripped of alias annotations and the default converted by the declared type;
//   4. index every overload by "name.overload" in a sorted map, built once (thread-safe).
#include "frontend/aten/op_schema.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>

#include "frontend/pt2/serde_enums.h"
#include "ir/status.h"

namespace thunderc::frontend {
namespace {

using nlohmann::json;

std::string_view trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos)
    return {};
  const size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

/// Calls `visit(index, char)` for every character of `text` that lies outside (), [] and
/// quoted strings; returns false from `visit` to stop. Returns false on unbalanced text.
bool forEachTopLevel(std::string_view text, const std::function<bool(size_t, char)> &visit) {
  int depth = 0;
  char quote = 0;
  for (size_t idx = 0; idx < text.size(); ++idx) {
    const char c = text[idx];
    if (quote != 0) {
      if (c == '\\')
        ++idx;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      if (--depth < 0)
        return false;
    } else if (depth == 0 && !visit(idx, c)) {
      return true;
    }
  }
  return depth == 0 && quote == 0;
}

/// Splits at top-level commas; an all-blank text gives no pieces.
std::vector<std::string_view> splitTopLevelCommas(std::string_view text,
                                                  std::string_view schema) {
  std::vector<std::string_view> pieces;
  if (trim(text).empty())
    return pieces;
  size_t start = 0;
  const bool balanced = forEachTopLevel(text, [&](size_t idx, char c) {
    if (c == ',') {
      pieces.push_back(trim(text.substr(start, idx - start)));
      start = idx + 1;
    }
    return true;
  });
  TC_CHECK(balanced, "unbalanced brackets in schema '" + std::string(schema) + "'");
  pieces.push_back(trim(text.substr(start)));
  return pieces;
}

size_t findFirstTopLevel(std::string_view text, char wanted) {
  size_t found = std::string_view::npos;
  forEachTopLevel(text, [&](size_t idx, char c) {
    if (c != wanted)
      return true;
    found = idx;
    return false;
  });
  return found;
}

size_t findLastTopLevel(std::string_view text, char wanted) {
  size_t found = std::string_view::npos;
  forEachTopLevel(text, [&](size_t idx, char c) {
    if (c == wanted)
      found = idx;
    return true;
  });
  return found;
}

/// A declared type with its alias annotations ("(a)", "(a!)", "(a -> *)") removed.
struct NormalizedType {
  std::string text;
  bool isMutated = false;
};

NormalizedType normalizeType(std::string_view raw) {
  NormalizedType type;
  int parenDepth = 0;
  for (const char c : raw) {
    if (c == '(')
      ++parenDepth;
    else if (c == ')')
      --parenDepth;
    else if (parenDepth > 0 && c == '!')
      type.isMutated = true;
    else if (parenDepth == 0 && c != ' ')
      type.text.push_back(c);
  }
  return type;
}

bool isIdentifier(std::string_view text) {
  if (text.empty() || (text[0] >= '0' && text[0] <= '9'))
    return false;
  for (const char c : text) {
    const bool isWordChar =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!isWordChar)
      return false;
  }
  return true;
}

// ---- default values -------------------------------------------------------------------

/// Context for TC_CHECK messages while converting one argument's default.
struct DefaultSite {
  std::string_view schema;
  std::string_view argName;
  std::string_view type;

  std::string describe(std::string_view literal) const {
    return "cannot convert default '" + std::string(literal) + "' of argument '" +
           std::string(argName) + "' (" + std::string(type) + ") in schema '" +
           std::string(schema) + "'";
  }
};

std::optional<int64_t> parseInteger(std::string_view literal) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
  if (error != std::errc() || end != literal.data() + literal.size())
    return std::nullopt;
  return value;
}

std::optional<double> parseFloat(std::string_view literal) {
  if (literal == "inf")
    return HUGE_VAL;
  if (literal == "-inf")
    return -HUGE_VAL;
  if (literal == "nan")
    return std::nan("");
  double value = 0;
  const auto [end, error] = std::from_chars(literal.data(), literal.data() + literal.size(), value);
  if (error != std::errc() || end != literal.data() + literal.size())
    return std::nullopt;
  return value;
}

/// torch's serializer writes non-finite floats as strings (json allow_nan=False).
json floatValue(double value) {
  if (std::isnan(value))
    return "NaN";
  if (std::isinf(value))
    return value > 0 ? "Infinity" : "-Infinity";
  return value;
}

/// Torch prints a Scalar's integer defaults without a '.', its float ones with one.
bool looksLikeFloat(std::string_view literal) {
  return literal.find_first_of(".eE") != std::string_view::npos || literal == "inf" ||
         literal == "-inf" || literal == "nan";
}

std::optional<std::string> unquote(std::string_view literal) {
  if (literal.size() < 2 || (literal.front() != '"' && literal.front() != '\'') ||
      literal.back() != literal.front())
    return std::nullopt;
  std::string text;
  for (size_t idx = 1; idx + 1 < literal.size(); ++idx) {
    char c = literal[idx];
    if (c == '\\' && idx + 2 < literal.size()) {
      c = literal[++idx];
      if (c == 'n')
        c = '\n';
      else if (c == 't')
        c = '\t';
    }
    text.push_back(c);
  }
  return text;
}

template <size_t N>
std::optional<int> serializedEnum(const EnumEntry (&table)[N], std::string_view literal) {
  const std::optional<int64_t> c10Value = parseInteger(literal);
  for (const EnumEntry &entry : table) {
    if (c10Value ? entry.c10Value == *c10Value : entry.name == literal)
      return entry.serializedValue;
  }
  return std::nullopt;
}

/// `cpu`, `"cuda:1"` -> {"type": "cuda", "index": 1}, as serialize_input writes a device.
std::optional<json> deviceValue(std::string_view literal) {
  const std::string text = unquote(literal).value_or(std::string(literal));
  const size_t colon = text.find(':');
  const std::string type = text.substr(0, colon);
  if (!isIdentifier(type))
    return std::nullopt;
  if (colon == std::string::npos)
    return json{{"type", type}, {"index", nullptr}};
  const std::optional<int64_t> index = parseInteger(std::string_view(text).substr(colon + 1));
  if (!index)
    return std::nullopt;
  return json{{"type", type}, {"index", *index}};
}

/// A default of a non-list type, e.g. `Scalar alpha=1` -> {"as_int": 1}.
json convertScalarDefault(std::string_view base, std::string_view literal,
                          const DefaultSite &site) {
  std::optional<json> converted;
  if (base == "int" || base == "SymInt") {
    if (const auto value = parseInteger(literal))
      converted = json{{"as_int", *value}};
  } else if (base == "bool") {
    if (literal == "True" || literal == "False")
      converted = json{{"as_bool", literal == "True"}};
  } else if (base == "float" || base == "SymFloat") {
    if (const auto value = parseFloat(literal))
      converted = json{{"as_float", floatValue(*value)}};
  } else if (base == "Scalar") {
    if (literal == "True" || literal == "False")
      converted = json{{"as_bool", literal == "True"}};
    else if (!looksLikeFloat(literal)) {
      if (const auto value = parseInteger(literal))
        converted = json{{"as_int", *value}};
    } else if (const auto value = parseFloat(literal)) {
      converted = json{{"as_float", floatValue(*value)}};
    }
  } else if (base == "str") {
    if (auto text = unquote(literal))
      converted = json{{"as_string", std::move(*text)}};
  } else if (base == "ScalarType") {
    if (const auto value = serializedEnum(kScalarTypes, literal))
      converted = json{{"as_scalar_type", *value}};
  } else if (base == "MemoryFormat") {
    if (const auto value = serializedEnum(kMemoryFormats, literal))
      converted = json{{"as_memory_format", *value}};
  } else if (base == "Layout") {
    if (const auto value = serializedEnum(kLayouts, literal))
      converted = json{{"as_layout", *value}};
  } else if (base == "Device") {
    if (auto device = deviceValue(literal))
      converted = json{{"as_device", std::move(*device)}};
  }
  TC_CHECK(converted.has_value(), site.describe(literal));
  return std::move(*converted);
}

/// A default of a list type `element[size]`: `[0, 0]`, `[]`, or a scalar repeated `size`
/// times (`int[2] padding=0` -> {"as_ints": [0, 0]}). Empty lists take their key from the
/// element type, as torch's serialize_input does.
json convertListDefault(std::string_view element, std::optional<int64_t> size,
                        std::string_view literal, const DefaultSite &site) {
  std::vector<std::string_view> items;
  if (literal.starts_with('[')) {
    TC_CHECK(literal.ends_with(']'), site.describe(literal));
    items = splitTopLevelCommas(literal.substr(1, literal.size() - 2), site.schema);
  } else {
    TC_CHECK(size.has_value(), site.describe(literal));
    items.assign(static_cast<size_t>(*size), literal);
  }

  std::string_view key;
  std::string_view scalarKey;
  if (element == "int" || element == "SymInt") {
    key = "as_ints", scalarKey = "as_int";
  } else if (element == "float" || element == "SymFloat") {
    key = "as_floats", scalarKey = "as_float";
  } else if (element == "bool") {
    key = "as_bools", scalarKey = "as_bool";
  } else if (element == "str") {
    key = "as_strings", scalarKey = "as_string";
  } else if (element.starts_with("Tensor") && items.empty()) {
    return json{{"as_tensors", json::array()}};
  }
  TC_CHECK(!key.empty(), site.describe(literal));

  json values = json::array();
  for (const std::string_view item : items) {
    json converted = convertScalarDefault(element, item, site);
    values.push_back(std::move(converted.at(std::string(scalarKey))));
  }
  return json{{std::string(key), std::move(values)}};
}

/// Converts `literal` (as printed after `=`) by the argument's normalized type.
json convertDefault(std::string_view type, std::string_view literal, const DefaultSite &site) {
  if (literal == "None") {
    TC_CHECK(type.ends_with('?'), site.describe(literal));
    return json{{"as_none", true}};
  }
  if (type.ends_with('?'))
    type.remove_suffix(1);
  if (!type.ends_with(']'))
    return convertScalarDefault(type, literal, site);

  const size_t open = type.rfind('[');
  TC_CHECK(open != std::string_view::npos, site.describe(literal));
  const std::string_view sizeText = type.substr(open + 1, type.size() - open - 2);
  std::optional<int64_t> size;
  if (!sizeText.empty()) {
    size = parseInteger(sizeText);
    TC_CHECK(size.has_value() && *size >= 0, site.describe(literal));
  }
  std::string_view element = type.substr(0, open);
  if (element.ends_with('?'))
    element.remove_suffix(1);
  return convertListDefault(element, size, literal, site);
}

// ---- schema text ----------------------------------------------------------------------

/// Index of the ')' matching the '(' at `open`, skipping quoted text.
size_t matchingParen(std::string_view text, size_t open) {
  int depth = 0;
  char quote = 0;
  for (size_t idx = open; idx < text.size(); ++idx) {
    const char c = text[idx];
    if (quote != 0) {
      if (c == '\\')
        ++idx;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth == 0) {
      return idx;
    }
  }
  return std::string_view::npos;
}

ArgSchema parseArgument(std::string_view text, bool kwargOnly, std::string_view schema) {
  std::string_view declaration = text;
  std::optional<std::string_view> literal;
  if (const size_t equals = findFirstTopLevel(text, '='); equals != std::string_view::npos) {
    declaration = trim(text.substr(0, equals));
    literal = trim(text.substr(equals + 1));
  }
  const size_t space = findLastTopLevel(declaration, ' ');
  TC_CHECK(space != std::string_view::npos,
           "argument '" + std::string(text) + "' has no name in schema '" + std::string(schema) +
               "'");

  ArgSchema arg;
  arg.name = std::string(trim(declaration.substr(space + 1)));
  TC_CHECK(isIdentifier(arg.name),
           "bad argument name in '" + std::string(text) + "' of '" + std::string(schema) + "'");
  NormalizedType type = normalizeType(declaration.substr(0, space));
  TC_CHECK(!type.text.empty(), "argument '" + arg.name + "' has no type in schema '" +
                                   std::string(schema) + "'");
  arg.type = std::move(type.text);
  arg.isMutated = type.isMutated;
  arg.kwargOnly = kwargOnly;
  if (literal)
    arg.defaultArgument =
        convertDefault(arg.type, *literal, DefaultSite{schema, arg.name, arg.type});
  return arg;
}

ReturnSchema parseReturn(std::string_view text, std::string_view schema) {
  TC_CHECK(!text.empty(), "empty return in schema '" + std::string(schema) + "'");
  ReturnSchema result;
  std::string_view typeText = text;
  if (const size_t space = findLastTopLevel(text, ' '); space != std::string_view::npos) {
    typeText = text.substr(0, space);
    result.name = std::string(trim(text.substr(space + 1)));
    TC_CHECK(isIdentifier(result.name),
             "bad return name in '" + std::string(text) + "' of '" + std::string(schema) + "'");
  }
  result.type = normalizeType(typeText).text;
  TC_CHECK(!result.type.empty(), "return without type in schema '" + std::string(schema) + "'");
  return result;
}

/// `Tensor`, `Tensor(a)[]`, `()`, or `(Tensor values, Tensor indices)`.
std::vector<ReturnSchema> parseReturns(std::string_view text, std::string_view schema) {
  std::vector<ReturnSchema> returns;
  const bool isTuple = text.starts_with('(') && matchingParen(text, 0) == text.size() - 1;
  if (!isTuple) {
    returns.push_back(parseReturn(text, schema));
    return returns;
  }
  const std::string_view inner = text.substr(1, text.size() - 2);
  for (const std::string_view piece : splitTopLevelCommas(inner, schema))
    returns.push_back(parseReturn(piece, schema));
  return returns;
}

// ---- the generated table --------------------------------------------------------------

constexpr std::string_view kSchemaTexts[] = {
#define TC_ATEN_SCHEMA(text) text,
#include "frontend/aten/schemas.inc"
#undef TC_ATEN_SCHEMA
};

struct Registry {
  std::vector<OpSchema> schemas;
  std::map<std::string, size_t, std::less<>> indexByKey; ///< "add.Tensor" -> schemas index
};

Registry buildRegistry() {
  Registry registry;
  registry.schemas.reserve(std::size(kSchemaTexts));
  for (const std::string_view text : kSchemaTexts) {
    OpSchema schema = parseOpSchema(text);
    // aten schemas are written without their namespace; another library's keep it
    // ("transformers::grouped_mm_fallback(...)") and are keyed with it.
    std::string key = schema.name + "." + schema.overload;
    if (schema.space != "aten")
      key = schema.space + "::" + key;
    const bool inserted = registry.indexByKey.emplace(key, registry.schemas.size()).second;
    TC_CHECK(inserted, "duplicate schema '" + key + "' in frontend/aten/schemas.inc");
    registry.schemas.push_back(std::move(schema));
  }
  return registry;
}

const Registry &registry() {
  static const Registry instance = buildRegistry(); // C++11 magic statics: thread-safe
  return instance;
}

} // namespace

const ArgSchema *OpSchema::findArg(std::string_view argName) const {
  for (const ArgSchema &arg : args) {
    if (arg.name == argName)
      return &arg;
  }
  return nullptr;
}

OpSchema parseOpSchema(std::string_view text) {
  const std::string_view schemaText = trim(text);
  const size_t open = schemaText.find('(');
  TC_CHECK(open != std::string_view::npos,
           "schema '" + std::string(schemaText) + "' has no argument list");
  const size_t close = matchingParen(schemaText, open);
  TC_CHECK(close != std::string_view::npos,
           "schema '" + std::string(schemaText) + "' has an unclosed argument list");
  std::string_view rest = trim(schemaText.substr(close + 1));
  TC_CHECK(rest.starts_with("->"), "schema '" + std::string(schemaText) + "' has no '->'");
  rest = trim(rest.substr(2));

  std::string_view qualifiedName = trim(schemaText.substr(0, open));
  OpSchema schema;
  if (const size_t colons = qualifiedName.find("::"); colons != std::string_view::npos) {
    schema.space = std::string(qualifiedName.substr(0, colons));
    qualifiedName = qualifiedName.substr(colons + 2);
  }
  const size_t dot = qualifiedName.find('.');
  schema.name = std::string(qualifiedName.substr(0, dot));
  schema.overload =
      dot == std::string_view::npos ? "default" : std::string(qualifiedName.substr(dot + 1));
  TC_CHECK(isIdentifier(schema.name) && isIdentifier(schema.overload),
           "bad operator name in schema '" + std::string(schemaText) + "'");

  bool kwargOnly = false;
  const std::string_view argsText = schemaText.substr(open + 1, close - open - 1);
  for (const std::string_view piece : splitTopLevelCommas(argsText, schemaText)) {
    if (piece == "*") {
      TC_CHECK(!kwargOnly, "two '*' in schema '" + std::string(schemaText) + "'");
      kwargOnly = true;
      continue;
    }
    schema.args.push_back(parseArgument(piece, kwargOnly, schemaText));
    schema.isMutating = schema.isMutating || schema.args.back().isMutated;
  }
  schema.returns = parseReturns(rest, schemaText);
  return schema;
}

const OpSchema *findOpSchema(std::string_view target) {
  bool overloadOptional = true; // "aten::relu" and "relu" name the default overload
  const bool qualified = target.starts_with("torch.ops.");
  if (qualified)
    target.remove_prefix(std::string_view("torch.ops.").size());
  const size_t firstDot = target.find('.');
  const bool threeParts = firstDot != std::string_view::npos &&
                          target.find('.', firstDot + 1) != std::string_view::npos;
  if ((qualified || threeParts) && !target.starts_with("aten.")) {
    // Another library's op ("torch.ops.transformers.grouped_mm_fallback.default"): keyed
    // "transformers::grouped_mm_fallback.default".
    if (!threeParts)
      return nullptr;
    std::string key = std::string(target.substr(0, firstDot)) + "::" +
                      std::string(target.substr(firstDot + 1));
    const auto found = registry().indexByKey.find(key);
    return found == registry().indexByKey.end() ? nullptr : &registry().schemas[found->second];
  }
  if (target.starts_with("aten.")) {
    target.remove_prefix(std::string_view("aten.").size());
    overloadOptional = false; // "aten.relu" is a Python OpOverloadPacket, not an overload
  } else if (target.starts_with("aten::")) {
    target.remove_prefix(std::string_view("aten::").size());
  }
  if (target.empty() || target.find(':') != std::string_view::npos)
    return nullptr;

  std::string key(target);
  if (target.find('.') == std::string_view::npos) {
    if (!overloadOptional)
      return nullptr;
    key += ".default";
  }
  const Registry &table = registry();
  const auto found = table.indexByKey.find(key);
  return found == table.indexByKey.end() ? nullptr : &table.schemas[found->second];
}

size_t opSchemaCount() { return registry().schemas.size(); }

} // namespace thunderc::frontend
