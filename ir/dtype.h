// Element types of tensors, their names in the text IR ("f32") and PyTorch's promotion rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace thunderc::ir {

/// The element types thunderc compiles. Order is the text IR's canonical order, not c10's.
enum class DType : uint8_t { Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64 };

inline constexpr int kNumDTypes = 10;

/// Short name used by the text IR: "bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16",
/// "f32", "f64".
std::string_view dtypeName(DType dtype);

/// Inverse of dtypeName; nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);

/// Bytes per element.
int64_t dtypeSize(DType dtype);

bool isFloatingPoint(DType dtype);
bool isIntegral(DType dtype); ///< integers, not bool

/// torch.promote_types for two tensor dtypes (both operands are tensors of rank >= 1 or both
/// 0-d). The result is the smallest type that holds both; bool < integers < floating.
DType promoteTypes(DType a, DType b);

} // namespace thunderc::ir
