// Checked JSON access and the schema dtype table.
#include "frontend/pt2/json_util.h"

#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace thunderc::frontend {

Status checkJsonDepth(std::string_view text, int limit) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i; // the escaped character cannot end the string
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return invalidInput("invalid JSON: nesting deeper than " + std::to_string(limit) +
                            " levels at byte " + std::to_string(i));
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Status::success();
}

const Json *jsonFind(const Json &object, const char *key) {
  if (!object.is_object())
    return nullptr;
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string jsonStringOr(const Json &object, const char *key, const std::string &fallback) {
  const Json *value = jsonFind(object, key);
  return value && value->is_string() ? value->get<std::string>() : fallback;
}

namespace {

/// Thrown by the parse callback to stop at the first strictness violation.
struct StrictJsonError {
  std::string message;
};

/// Checks what nlohmann accepts but an exported program never holds: a key twice in one
/// object (nlohmann keeps the last; another reader may keep the first), and integers above
/// INT64_MAX (every integer the schema has is an int64; get<int64_t>() would wrap them).
class StrictChecks {
public:
  bool operator()(int /*depth*/, Json::parse_event_t event, Json &parsed) {
    switch (event) {
    case Json::parse_event_t::object_start:
      keys_.emplace_back();
      break;
    case Json::parse_event_t::object_end:
      if (!keys_.empty())
        keys_.pop_back();
      break;
    case Json::parse_event_t::key:
      if (!keys_.empty() && !keys_.back().insert(parsed.get<std::string>()).second)
        throw StrictJsonError{"duplicate key '" + parsed.get<std::string>() + "' in an object"};
      break;
    case Json::parse_event_t::value:
      if (parsed.is_number_unsigned() &&
          parsed.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
        throw StrictJsonError{"integer " + std::to_string(parsed.get<uint64_t>()) +
                              " does not fit in int64"};
      break;
    default:
      break;
    }
    return true;
  }

private:
  std::vector<std::set<std::string>> keys_; ///< keys seen in each open object
};

} // namespace

Expected<Json> parseJson(const std::string &text) {
  TC_TRY(checkJsonDepth(text, kMaxJsonDepth));
  // The JSON parser is the one place that reports through exceptions; convert at the edge.
  try {
    StrictChecks checks;
    return Json::parse(text, std::ref(checks));
  } catch (const StrictJsonError &e) {
    return invalidInput("invalid JSON: " + e.message);
  } catch (const Json::exception &e) {
    std::string message = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] "; keep what follows.
    size_t bracket = message.find("] ");
    return invalidInput("invalid JSON: " +
                        (bracket == std::string::npos ? message : message.substr(bracket + 2)));
  }
}

Status checkLayoutAndDevice(const Json &tensorMeta) {
  if (const Json *layout = jsonFind(tensorMeta, "layout")) {
    constexpr int64_t kStrided = 7; // torch/_export/serde/schema.py Layout
    bool strided = (layout->is_number_integer() && layout->get<int64_t>() == kStrided) ||
                   (layout->is_string() && layout->get<std::string>() == "Strided");
    if (!strided && layout->is_number_integer() && layout->get<int64_t>() >= 1 &&
        layout->get<int64_t>() <= 6)
      return unsupported("layout " + layout->dump() + " is sparse or MKLDNN; thunderc compiles "
                         "strided (dense) tensors");
    if (!strided)
      return invalidInput("unknown layout " + layout->dump());
  }
  if (const Json *device = jsonFind(tensorMeta, "device")) {
    const Json *type = jsonFind(*device, "type");
    if (type == nullptr || !type->is_string())
      return invalidInput("field 'device' has no string 'type'");
  }
  return Status::success();
}

Expected<const Json *> jsonField(const Json &object, const char *key) {
  if (!object.is_object())
    return invalidInput(std::string("expected an object with field '") + key + "'");
  auto it = object.find(key);
  if (it == object.end())
    return invalidInput(std::string("missing field '") + key + "'");
  return &*it;
}

Expected<int64_t> jsonInt(const Json &object, const char *key) {
  TC_ASSIGN_OR_RETURN(const Json *value, jsonField(object, key));
  if (!value->is_number_integer())
    return invalidInput(std::string("field '") + key + "' is not an integer");
  return value->get<int64_t>();
}

Expected<std::string> jsonString(const Json &object, const char *key) {
  TC_ASSIGN_OR_RETURN(const Json *value, jsonField(object, key));
  if (!value->is_string())
    return invalidInput(std::string("field '") + key + "' is not a string");
  return value->get<std::string>();
}

Expected<const Json *> jsonArray(const Json &object, const char *key) {
  TC_ASSIGN_OR_RETURN(const Json *value, jsonField(object, key));
  if (!value->is_array())
    return invalidInput(std::string("field '") + key + "' is not an array");
  return value;
}

Expected<const Json *> jsonObject(const Json &object, const char *key) {
  TC_ASSIGN_OR_RETURN(const Json *value, jsonField(object, key));
  if (!value->is_object())
    return invalidInput(std::string("field '") + key + "' is not an object");
  return value;
}

Expected<JsonUnion> jsonUnion(const Json &value, const std::string &what) {
  if (!value.is_object() || value.size() != 1)
    return invalidInput(what + " is not a union (an object with exactly one key)");
  auto it = value.begin();
  return JsonUnion{it.key(), &it.value()};
}

Expected<ir::DType> schemaDType(const Json &value) {
  struct Entry {
    int number;
    const char *name;
    std::optional<ir::DType> dtype;
  };
  static const Entry kTable[] = {
      {1, "BYTE", ir::DType::U8},      {2, "CHAR", ir::DType::I8},
      {3, "SHORT", ir::DType::I16},    {4, "INT", ir::DType::I32},
      {5, "LONG", ir::DType::I64},     {6, "HALF", ir::DType::F16},
      {7, "FLOAT", ir::DType::F32},    {8, "DOUBLE", ir::DType::F64},
      {9, "COMPLEXHALF", {}},          {10, "COMPLEXFLOAT", {}},
      {11, "COMPLEXDOUBLE", {}},       {12, "BOOL", ir::DType::Bool},
      {13, "BFLOAT16", ir::DType::BF16}, {28, "UINT16", {}},
      {29, "FLOAT8E4M3FN", {}},        {30, "FLOAT8E5M2", {}},
      {31, "FLOAT8E4M3FNUZ", {}},      {32, "FLOAT8E5M2FNUZ", {}},
      {33, "FLOAT8E8M0FNU", {}},       {34, "UINT32", {}},
      {35, "UINT64", {}}};
  for (const Entry &entry : kTable) {
    bool matches = value.is_number_integer() ? value.get<int64_t>() == entry.number
                                             : value.is_string() && value == entry.name;
    if (!matches)
      continue;
    if (!entry.dtype)
      return unsupported(std::string("unsupported dtype ") + entry.name);
    return *entry.dtype;
  }
  return invalidInput("unknown dtype number " + value.dump());
}

Expected<double> jsonNumber(const Json &value) {
  if (value.is_number())
    return value.get<double>();
  if (value == "Infinity")
    return std::numeric_limits<double>::infinity();
  if (value == "-Infinity")
    return -std::numeric_limits<double>::infinity();
  if (value == "NaN")
    return std::numeric_limits<double>::quiet_NaN();
  return invalidInput("expected a number, got " + value.dump());
}

} // namespace thunderc::frontend
