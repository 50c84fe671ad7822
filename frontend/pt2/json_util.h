// Checked access to the exported program's JSON: every lookup that the file controls
// returns an Error naming the field, never throws or crashes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ir/dtype.h"
#include "ir/status.h"

namespace thunderc::frontend {

using Json = nlohmann::json;

/// The deepest nesting of arrays and objects parseJson accepts. An exported program nests
/// about a dozen levels per graph (a higher-order op's subgraph adds another dozen); the bound
/// keeps every recursive walk over the parsed document within a small, fixed stack.
constexpr int kMaxJsonDepth = 256;

/// Parses JSON text; errors read "invalid JSON: <parser message>". Documents nested deeper
/// than kMaxJsonDepth are refused before parsing (with the byte offset where the limit is
/// crossed), so no later walk over the result can exhaust the stack.
Expected<Json> parseJson(const std::string &text);

/// The nesting depth of JSON text (arrays and objects; strings are skipped), or the byte
/// offset at which `limit` is first exceeded, as an error.
Status checkJsonDepth(std::string_view text, int limit);

/// obj[key] when obj is an object that has key, otherwise nullptr. Never throws and never
/// reads past the document: use it wherever a field is optional.
const Json *jsonFind(const Json &object, const char *key);
/// obj[key] when it is a string, otherwise `fallback`.
std::string jsonStringOr(const Json &object, const char *key, const std::string &fallback = "");

/// obj[key] when obj is an object that has key; error "missing field 'key'" otherwise.
Expected<const Json *> jsonField(const Json &object, const char *key);
/// obj[key] as an integer / string / array / object, with "field 'key' is not a ..." errors.
Expected<int64_t> jsonInt(const Json &object, const char *key);
Expected<std::string> jsonString(const Json &object, const char *key);
Expected<const Json *> jsonArray(const Json &object, const char *key);
Expected<const Json *> jsonObject(const Json &object, const char *key);

/// A serialized union ({"as_tensor": {...}}): the single key and its payload.
struct JsonUnion {
  std::string kind;
  const Json *payload;
};
Expected<JsonUnion> jsonUnion(const Json &value, const std::string &what);

/// The schema's ScalarType numbering (docs/PT2_FORMAT.md §2.6) -> DType. Unknown numbers
/// are InvalidInput; known types thunderc does not compile (complex, float8, ...) are
/// Unsupported. Accepts the enum name as a string too.
Expected<ir::DType> schemaDType(const Json &value);

/// Checks a TensorMeta's layout and device fields where present: the layout must be strided
/// (schema number 7; the sparse and MKLDNN layouts 1-6 are Unsupported, other values
/// InvalidInput), the device an object with a string "type" (its value is not used: thunderc
/// chooses the target).
Status checkLayoutAndDevice(const Json &tensorMeta);

/// A number as the serializer writes it: JSON number, or "Infinity"/"-Infinity"/"NaN".
Expected<double> jsonNumber(const Json &value);

} // namespace thunderc::frontend
