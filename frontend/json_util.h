// Checked access to the exported program's JSON: every lookup that the file controls
// returns an Error naming the field, never throws or crashes.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "ir/dtype.h"
#include "ir/status.h"

namespace thunderc::frontend {

using Json = nlohmann::json;

/// Parses JSON text; errors read "invalid JSON: <parser message>".
Expected<Json> parseJson(const std::string &text);

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

/// The schema's ScalarType numbering (shared/PT2_FORMAT.md §2.6) -> DType. Unknown numbers
/// are InvalidInput; known types thunderc does not compile (complex, float8, ...) are
/// Unsupported. Accepts the enum name as a string too.
Expected<ir::DType> schemaDType(const Json &value);

/// A number as the serializer writes it: JSON number, or "Infinity"/"-Infinity"/"NaN".
Expected<double> jsonNumber(const Json &value);

} // namespace thunderc::frontend
