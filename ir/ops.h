// OpKind and the per-op facts generated from ir/ops.def: names, arities, traits, attributes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"

namespace thunderc::ir {

/// Trait bits used in ir/ops.def.
enum OpTrait : uint32_t {
  kElementwise = 1u << 0,
  kBroadcast = 1u << 1,
  kReduction = 1u << 2,
  kView = 1u << 3,
  kComparison = 1u << 4,
};

enum class OpKind : uint16_t {
#define TC_OP(Enum, name, minOperands, maxOperands, numResults, traits, attributes) Enum,
#include "ir/ops.def"
#undef TC_OP
};

inline constexpr int kNumOps = 0
#define TC_OP(Enum, name, minOperands, maxOperands, numResults, traits, attributes) +1
#include "ir/ops.def"
#undef TC_OP
    ;

/// One attribute an op declares in ir/ops.def.
struct AttrSpec {
  std::string name;
  AttrType type;
  bool optional;
};

/// Everything ir/ops.def says about one op.
struct OpInfo {
  OpKind kind;
  std::string_view name;
  int minOperands;
  int maxOperands; ///< -1 = variadic
  int numResults;  ///< -1 = variadic
  uint32_t traits;
  std::vector<AttrSpec> attributes; ///< sorted by name
};

const OpInfo &opInfo(OpKind kind);
inline std::string_view opName(OpKind kind) { return opInfo(kind).name; }
inline bool hasTrait(OpKind kind, OpTrait trait) { return (opInfo(kind).traits & trait) != 0; }

/// An annotation any op may carry, set by the memory planner (optimizer/memory_plan.h): the
/// byte offset of each result in the run's arena, -1 for a result with no arena storage (a
/// view aliasing its operand, a graph output written straight to the caller's buffer).
inline constexpr const char *kArenaOffsetsAttr = "arena_offsets";

/// Looks an op up by its text-IR name; nullopt if unknown.
std::optional<OpKind> findOp(std::string_view name);

} // namespace thunderc::ir
