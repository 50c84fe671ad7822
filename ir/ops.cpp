// The op table built from ir/ops.def: the attribute declarations, and per op its facts with
// the implied traits added and its attribute list checked once.
#include "ir/ops.h"

#include <array>

#include "ir/op_attributes.h"
#include "ir/status.h"

namespace thunderc::ir {
namespace {

constexpr AttrDecl kAttrDecls[] = {
#define TC_ATTR(accessor, key, type, presence) {key, AttrType::type, AttrPresence::presence},
#include "ir/ops.def"
};

constexpr std::string_view kAttrAccessors[] = {
#define TC_ATTR(accessor, key, type, presence) #accessor,
#include "ir/ops.def"
};

// kElementwise, kBroadcast and kComparison follow from the family and the dtype rule.
uint32_t impliedTraits(OpFamily family, DTypeRule rule) {
  uint32_t traits = 0;
  if (family == OpFamily::Unary || family == OpFamily::Binary || family == OpFamily::Ternary)
    traits |= kElementwise;
  if (family == OpFamily::Binary || family == OpFamily::Ternary)
    traits |= kBroadcast;
  if (rule == DTypeRule::Bool)
    traits |= kComparison;
  return traits;
}

OpInfo makeInfo(OpKind kind, std::string_view name, OpFamily family, int minOperands,
                int maxOperands, int numResults, uint32_t traits, DTypeRule rule,
                std::string_view scalarExpression, std::string_view atenOverloads,
                AttrMask attributeMask) {
  OpInfo info{kind,
              name,
              family,
              minOperands,
              maxOperands,
              numResults,
              traits | impliedTraits(family, rule),
              rule,
              scalarExpression,
              atenOverloads,
              {},
              attributeMask};
  for (int index = 0; index < kNumAttrs; ++index) {
    auto id = static_cast<AttrId>(index);
    if (!info.declares(id))
      continue;
    const AttrDecl &decl = attrDecl(id);
    info.attributes.push_back(
        {id, std::string(decl.key), decl.type, decl.presence == AttrPresence::Optional});
    // The verifier relies on the order; accessor order is key order but for arange's.
    TC_CHECK(info.attributes.size() < 2 ||
                 info.attributes[info.attributes.size() - 2].name < info.attributes.back().name,
             "ir/ops.def: the attributes of " + std::string(name) + " must be sorted by key");
  }
  return info;
}

std::array<OpInfo, kNumOps> buildTable() {
  return {{
// The attributes column expands to `| bit | bit`: no commas, so TC_UNARY can pass it on.
#define TC_A(accessor) | AttrMask::of(AttrId::accessor)
#define TC_OP(Enum, name, family, minOperands, maxOperands, numResults, traits, dtypeRule,       \
              scalarExpression, atenOverloads, attributes)                                       \
  makeInfo(OpKind::Enum, name, OpFamily::family, minOperands, maxOperands, numResults, traits,   \
           DTypeRule::dtypeRule, scalarExpression, atenOverloads, AttrMask{} attributes),
#include "ir/ops.def"
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

const AttrDecl &attrDecl(AttrId id) { return kAttrDecls[static_cast<size_t>(id)]; }

std::string_view attrAccessorName(AttrId id) { return kAttrAccessors[static_cast<size_t>(id)]; }

DType ruleResultDType(OpKind op, DType operand, const AttrMap &attrs) {
  switch (opInfo(op).dtypeRule) {
  case DTypeRule::Same:
  case DTypeRule::Floating:
  case DTypeRule::Integral:
    return operand;
  case DTypeRule::Bool:
    return DType::Bool;
  case DTypeRule::I64:
    return DType::I64;
  case DTypeRule::IntegersToI64:
    return isFloatingPoint(operand) ? operand : DType::I64;
  case DTypeRule::FromAttribute:
    return attr::dtype(attrs);
  case DTypeRule::Declared:
    break;
  }
  TC_CHECK(false, std::string(opName(op)) + " has no dtype rule: its result types are declared");
}

} // namespace thunderc::ir
