// The op table built from ir/ops.def, with the attribute signatures parsed once.
#include "ir/ops.h"

#include <array>
#include <sstream>

#include "ir/status.h"

namespace thunderc::ir {
namespace {

AttrType parseAttrType(const std::string &text) {
  static const std::pair<const char *, AttrType> kTypes[] = {
      {"int", AttrType::Int},     {"float", AttrType::Float},   {"bool", AttrType::Bool},
      {"str", AttrType::Str},     {"ints", AttrType::Ints},     {"floats", AttrType::Floats},
      {"dim", AttrType::Dim},     {"dims", AttrType::Dims},     {"dtype", AttrType::DType}};
  for (const auto &[name, type] : kTypes)
    if (text == name)
      return type;
  TC_CHECK(false, "ir/ops.def: unknown attribute type '" + text + "'");
}

std::vector<AttrSpec> parseAttrSpecs(std::string_view signature) {
  std::vector<AttrSpec> specs;
  std::stringstream stream{std::string(signature)};
  std::string entry;
  while (std::getline(stream, entry, ',')) {
    size_t colon = entry.find(':');
    TC_CHECK(colon != std::string::npos, "ir/ops.def: bad attribute '" + entry + "'");
    std::string type = entry.substr(colon + 1);
    bool optional = !type.empty() && type.back() == '?';
    if (optional)
      type.pop_back();
    specs.push_back({entry.substr(0, colon), parseAttrType(type), optional});
    TC_CHECK(specs.size() < 2 || specs[specs.size() - 2].name < specs.back().name,
             "ir/ops.def: attributes must be sorted: " + std::string(signature));
  }
  return specs;
}

std::array<OpInfo, kNumOps> buildTable() {
  return {{
#define TC_OP(Enum, name, minOperands, maxOperands, numResults, traits, attributes)            \
  OpInfo{OpKind::Enum, name,   minOperands, maxOperands, numResults,                          \
         traits,       parseAttrSpecs(attributes)},
#include "ir/ops.def"
#undef TC_OP
  }};
}

const std::array<OpInfo, kNumOps> &table() {
  static const std::array<OpInfo, kNumOps> kTable = buildTable();
  return kTable;
}

} // namespace

const OpInfo &opInfo(OpKind kind) { return table()[static_cast<size_t>(kind)]; }

std::optional<OpKind> findOp(std::string_view name) {
  for (const OpInfo &info : table())
    if (info.name == name)
      return info.kind;
  return std::nullopt;
}

} // namespace thunderc::ir
