// DType names and promotion, following torch.promote_types.
#include "ir/dtype.h"

#include <array>

namespace thunderc::ir {
namespace {

constexpr std::array<std::string_view, kNumDTypes> kNames = {
    "bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
constexpr std::array<int64_t, kNumDTypes> kSizes = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};

int index(DType dtype) { return static_cast<int>(dtype); }

} // namespace

std::string_view dtypeName(DType dtype) { return kNames[index(dtype)]; }

std::optional<DType> parseDType(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kNames[i] == name)
      return static_cast<DType>(i);
  return std::nullopt;
}

int64_t dtypeSize(DType dtype) { return kSizes[index(dtype)]; }

bool isFloatingPoint(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

bool isIntegral(DType dtype) { return !isFloatingPoint(dtype) && dtype != DType::Bool; }

DType promoteTypes(DType a, DType b) {
  if (a == b)
    return a;
  if (a == DType::Bool)
    return b;
  if (b == DType::Bool)
    return a;
  bool aFloat = isFloatingPoint(a);
  bool bFloat = isFloatingPoint(b);
  if (aFloat != bFloat)
    return aFloat ? a : b;
  if (aFloat) {
    // f16 and bf16 promote to f32; otherwise the wider type wins.
    if ((a == DType::F16 && b == DType::BF16) || (a == DType::BF16 && b == DType::F16))
      return DType::F32;
    return dtypeSize(a) >= dtypeSize(b) ? a : b;
  }
  // u8 with a signed type: the signed type must be wider than u8 (i8 + u8 -> i16).
  if (a == DType::U8 || b == DType::U8) {
    DType other = a == DType::U8 ? b : a;
    return other == DType::I8 ? DType::I16 : other;
  }
  return dtypeSize(a) >= dtypeSize(b) ? a : b;
}

} // namespace thunderc::ir
