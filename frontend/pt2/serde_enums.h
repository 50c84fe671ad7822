// The enumerations of the torch.export serialization format (torch/_export/serde/schema.py)
// next to their c10 values: the ATen schema table's defaults and the TorchScript importer
// both convert c10 values into the serialized numbering (docs/PT2_FORMAT.md §2.6).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace thunderc::frontend {

/// One enumerator: its c10 value (what str(schema) prints), its serialization value
/// (torch/_export/serde/schema.py), and the name native_functions.yaml uses.
struct EnumEntry {
  int c10Value;
  int serializedValue;
  std::string_view name;
};

// c10::ScalarType -> serde ScalarType; the numbering differs (docs/PT2_FORMAT.md §2.6).
inline constexpr EnumEntry kScalarTypes[] = {
    {0, 1, "uint8"},           {1, 2, "int8"},           {2, 3, "int16"},
    {3, 4, "int"},             {4, 5, "long"},           {5, 6, "half"},
    {6, 7, "float"},           {7, 8, "double"},         {8, 9, "complex32"},
    {9, 10, "complex64"},      {10, 11, "complex128"},   {11, 12, "bool"},
    {15, 13, "bfloat16"},      {23, 30, "float8_e5m2"},  {24, 29, "float8_e4m3fn"},
    {25, 32, "float8_e5m2fnuz"}, {26, 31, "float8_e4m3fnuz"}, {27, 28, "uint16"},
    {28, 34, "uint32"},        {29, 35, "uint64"},       {44, 33, "float8_e8m0fnu"},
};
// c10::MemoryFormat -> serde MemoryFormat.
inline constexpr EnumEntry kMemoryFormats[] = {
    {0, 1, "contiguous_format"},
    {1, 4, "preserve_format"},
    {2, 2, "channels_last"},
    {3, 3, "channels_last_3d"},
};
// c10::Layout -> serde Layout (c10's Jagged has no serialized form).
inline constexpr EnumEntry kLayouts[] = {
    {0, 7, "strided"},    {1, 1, "sparse_coo"}, {2, 2, "sparse_csr"}, {3, 6, "_mkldnn"},
    {4, 3, "sparse_csc"}, {5, 4, "sparse_bsr"}, {6, 5, "sparse_bsc"},
};

/// The serialized value of a c10 enumerator, or nullopt if the table has none.
template <size_t N>
constexpr std::optional<int> serializedFromC10(const EnumEntry (&table)[N], int c10Value) {
  for (const EnumEntry &entry : table)
    if (entry.c10Value == c10Value)
      return entry.serializedValue;
  return std::nullopt;
}

} // namespace thunderc::frontend
