// Attribute values: types, normalization and text form.
#include "ir/attributes.h"

#include <charconv>
#include <cmath>

#include "ir/status.h"

namespace thunderc::ir {
namespace {

std::string floatStr(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

template <typename T, typename F> std::string listStr(const std::vector<T> &items, F format) {
  std::string text = "[";
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? "," : "") + format(items[i]);
  return text + "]";
}

const AttrValue &getChecked(const std::map<std::string, AttrValue> &values,
                            const std::string &name) {
  auto it = values.find(name);
  TC_CHECK(it != values.end(), "missing attribute '" + name + "'");
  return it->second;
}

template <typename T> const T &getAs(const AttrValue &value, const std::string &name) {
  const T *typed = std::get_if<T>(&value);
  TC_CHECK(typed != nullptr, "attribute '" + name + "' has type " +
                                 attrTypeName(attrType(value)));
  return *typed;
}

} // namespace

AttrType attrType(const AttrValue &value) {
  static constexpr AttrType kByIndex[] = {AttrType::Int,  AttrType::Float,  AttrType::Bool,
                                          AttrType::Str,  AttrType::Ints,   AttrType::Floats,
                                          AttrType::Dim,  AttrType::Dims,   AttrType::DType};
  return kByIndex[value.index()];
}

const char *attrTypeName(AttrType type) {
  switch (type) {
  case AttrType::Int: return "int";
  case AttrType::Float: return "float";
  case AttrType::Bool: return "bool";
  case AttrType::Str: return "str";
  case AttrType::Ints: return "ints";
  case AttrType::Floats: return "floats";
  case AttrType::Dim: return "dim";
  case AttrType::Dims: return "dims";
  case AttrType::DType: return "dtype";
  }
  return "?";
}

AttrValue makeDimAttr(const Dim &dim) {
  if (dim.isStatic())
    return dim.value();
  return dim;
}

AttrValue makeDimsAttr(const std::vector<Dim> &dims) {
  std::vector<int64_t> values;
  for (const Dim &dim : dims) {
    if (!dim.isStatic())
      return dims;
    values.push_back(dim.value());
  }
  return values;
}

std::string attrValueStr(const AttrValue &value) {
  switch (attrType(value)) {
  case AttrType::Int: return std::to_string(std::get<int64_t>(value));
  case AttrType::Float: return floatStr(std::get<double>(value));
  case AttrType::Bool: return std::get<bool>(value) ? "true" : "false";
  case AttrType::Str: return quoted(std::get<std::string>(value));
  case AttrType::Ints:
    return listStr(std::get<std::vector<int64_t>>(value),
                   [](int64_t v) { return std::to_string(v); });
  case AttrType::Floats: return listStr(std::get<std::vector<double>>(value), floatStr);
  case AttrType::Dim: return std::get<Dim>(value).str();
  case AttrType::Dims:
    return listStr(std::get<std::vector<Dim>>(value), [](const Dim &d) { return d.str(); });
  case AttrType::DType: return std::string(dtypeName(std::get<DType>(value)));
  }
  return "?";
}

const AttrValue *AttrMap::find(const std::string &name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

int64_t AttrMap::getInt(const std::string &name) const {
  return getAs<int64_t>(getChecked(values_, name), name);
}

double AttrMap::getFloat(const std::string &name) const {
  const AttrValue &value = getChecked(values_, name);
  if (const int64_t *integer = std::get_if<int64_t>(&value))
    return static_cast<double>(*integer);
  return getAs<double>(value, name);
}

bool AttrMap::getBool(const std::string &name) const {
  return getAs<bool>(getChecked(values_, name), name);
}

const std::string &AttrMap::getStr(const std::string &name) const {
  return getAs<std::string>(getChecked(values_, name), name);
}

std::vector<int64_t> AttrMap::getInts(const std::string &name) const {
  return getAs<std::vector<int64_t>>(getChecked(values_, name), name);
}

std::vector<double> AttrMap::getFloats(const std::string &name) const {
  const AttrValue &value = getChecked(values_, name);
  if (const auto *integers = std::get_if<std::vector<int64_t>>(&value))
    return std::vector<double>(integers->begin(), integers->end());
  return getAs<std::vector<double>>(value, name);
}

Dim AttrMap::getDim(const std::string &name) const {
  const AttrValue &value = getChecked(values_, name);
  if (const int64_t *integer = std::get_if<int64_t>(&value))
    return Dim(*integer);
  return getAs<Dim>(value, name);
}

std::vector<Dim> AttrMap::getDims(const std::string &name) const {
  const AttrValue &value = getChecked(values_, name);
  if (const auto *integers = std::get_if<std::vector<int64_t>>(&value))
    return std::vector<Dim>(integers->begin(), integers->end());
  return getAs<std::vector<Dim>>(value, name);
}

DType AttrMap::getDType(const std::string &name) const {
  return getAs<DType>(getChecked(values_, name), name);
}

} // namespace thunderc::ir
