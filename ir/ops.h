// OpKind and the per-op facts generated from ir/ops.def: names, families, arities, traits,
// dtype rules, scalar expressions, ATen overloads and attributes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"

namespace thunderc::ir {

/// Trait bits of ir/ops.def. kElementwise, kBroadcast and kComparison are implied by an op's
/// family and dtype rule (see there); opInfo().traits holds them all.
enum OpTrait : uint32_t {
  kElementwise = 1u << 0,
  kBroadcast = 1u << 1,
  kReduction = 1u << 2,
  kView = 1u << 3,
  kComparison = 1u << 4,
};

/// An op's family (ir/ops.def): where the interpreter and shape inference route it.
enum class OpFamily : uint8_t { Unary, Binary, Ternary, Reduction, Nn, Pool, Shape, Linalg, Other };

/// How an op's result dtype follows from its operand (each rule is documented in ir/ops.def).
enum class DTypeRule : uint8_t {
  Same,
  Floating,
  Integral,
  Bool,
  I64,
  IntegersToI64,
  FromAttribute,
  Declared,
};

/// Whether an op must carry an attribute.
enum class AttrPresence : uint8_t { Required, Optional };

enum class OpKind : uint16_t {
#define TC_OP(Enum, name, family, minOperands, maxOperands, numResults, traits, dtypeRule,       \
              scalarExpression, atenOverloads, attributes)                                       \
  Enum,
#include "ir/ops.def"
};

inline constexpr int kNumOps = 0
#define TC_OP(Enum, name, family, minOperands, maxOperands, numResults, traits, dtypeRule,       \
              scalarExpression, atenOverloads, attributes)                                       \
  +1
#include "ir/ops.def"
    ;

/// Every attribute of ir/ops.def, by accessor name (ir/op_attributes.h reads them typed).
enum class AttrId : uint8_t {
#define TC_ATTR(accessor, key, type, presence) accessor,
#include "ir/ops.def"
};

inline constexpr int kNumAttrs = 0
#define TC_ATTR(accessor, key, type, presence) +1
#include "ir/ops.def"
    ;
static_assert(kNumAttrs <= 128, "OpInfo::attributeMask holds one bit per attribute");

/// A set of AttrIds, one bit each: what an op of ir/ops.def declares.
struct AttrMask {
  uint64_t low = 0;  ///< AttrIds 0..63
  uint64_t high = 0; ///< AttrIds 64..127

  static constexpr AttrMask of(AttrId id) {
    const auto bit = static_cast<unsigned>(id);
    return bit < 64 ? AttrMask{uint64_t{1} << bit, 0} : AttrMask{0, uint64_t{1} << (bit - 64)};
  }
  constexpr AttrMask operator|(AttrMask other) const {
    return {low | other.low, high | other.high};
  }
  constexpr bool has(AttrId id) const {
    const auto bit = static_cast<unsigned>(id);
    return bit < 64 ? ((low >> bit) & 1u) != 0 : ((high >> (bit - 64)) & 1u) != 0;
  }
};

/// The family of every op, for compile-time checks (opInfo(kind).family at run time).
inline constexpr OpFamily kOpFamilies[] = {
#define TC_OP(Enum, name, family, minOperands, maxOperands, numResults, traits, dtypeRule,       \
              scalarExpression, atenOverloads, attributes)                                       \
  OpFamily::family,
#include "ir/ops.def"
};

/// How many ops of ir/ops.def belong to `family`.
constexpr int countOps(OpFamily family) {
  int count = 0;
  for (OpFamily each : kOpFamilies)
    count += each == family ? 1 : 0;
  return count;
}

/// One attribute an op declares in ir/ops.def.
struct AttrSpec {
  AttrId id;
  std::string name; ///< the text-IR key
  AttrType type;
  bool optional;
};

/// Everything ir/ops.def says about one op.
struct OpInfo {
  OpKind kind;
  std::string_view name;
  OpFamily family;
  int minOperands;
  int maxOperands; ///< -1 = variadic
  int numResults;  ///< -1 = variadic
  uint32_t traits; ///< including the implied kElementwise, kBroadcast, kComparison
  DTypeRule dtypeRule;
  std::string_view scalarExpression; ///< empty: none, or built by the backend
  std::string_view atenOverloads;    ///< space-separated "<op>.<overload>" names
  std::vector<AttrSpec> attributes;  ///< sorted by name
  AttrMask attributeMask;            ///< bit AttrId of each declared attribute

  bool declares(AttrId id) const { return attributeMask.has(id); }
};

const OpInfo &opInfo(OpKind kind);
inline std::string_view opName(OpKind kind) { return opInfo(kind).name; }
inline bool hasTrait(OpKind kind, OpTrait trait) { return (opInfo(kind).traits & trait) != 0; }

/// An annotation any op may carry, set by the memory planner (optimizer/memory_plan.h): the
/// byte offset of each result in the run's arena, -1 for a result with no arena storage (a
/// view aliasing its operand, a graph output written straight to the caller's buffer).
inline constexpr const char *kArenaOffsetsAttr = "arena_offsets";

/// An annotation any op may carry, set by the importer on the nodes of a torch.cond branch:
/// pairs [predicate_id, polarity, ...] (polarity 1 or 0). The node runs only when every named
/// host predicate (set by the cond_predicate node of that id, which comes earlier) equals
/// its polarity; otherwise its results are undefined and only where() of the cond reads
/// them. A producer's guard is a subset of each of its consumers' guards, but for that where
/// (and a fusion holding it).
inline constexpr const char *kGuardAttr = "guard";

/// Looks an op up by its text-IR name; nullopt if unknown.
std::optional<OpKind> findOp(std::string_view name);

/// The text-IR key, type and presence of an attribute.
struct AttrDecl {
  std::string_view key;
  AttrType type;
  AttrPresence presence;
};
const AttrDecl &attrDecl(AttrId id);
std::string_view attrAccessorName(AttrId id);

/// The result dtype `op`'s dtype rule gives for an operand of `operand` dtype (where: of a
/// branch). Not for rule Declared; FromAttribute reads the `dtype` attribute.
DType ruleResultDType(OpKind op, DType operand, const AttrMap &attrs);

} // namespace thunderc::ir
