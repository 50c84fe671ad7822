// Typed accessors for the attributes of ir/ops.def, one per TC_ATTR row:
//
//   int64_t dim = ir::attr::dim(node);                    // Required: the value
//   std::optional<double> max = ir::attr::max(attrs);     // Optional: nullopt when absent
//
// The Node overload also checks that the node's op declares the attribute; both check that it
// is present (Required) and of the declared type, and TC_CHECK otherwise (the verifier has
// checked attributes against ir/ops.def before anyone reads them). Accessors are named as
// their attributes (snake_case), so a read names the key it reads.
#pragma once

#include <optional>
#include <string>
#include <type_traits>

#include "ir/graph.h"

namespace thunderc::ir::attr {
namespace detail {

/// The C++ type and AttrMap getter of each attribute type.
template <AttrType T> struct Read;
template <> struct Read<AttrType::Int> {
  static int64_t get(const AttrMap &a, const std::string &k) { return a.getInt(k); }
};
template <> struct Read<AttrType::Float> {
  static double get(const AttrMap &a, const std::string &k) { return a.getFloat(k); }
};
template <> struct Read<AttrType::Bool> {
  static bool get(const AttrMap &a, const std::string &k) { return a.getBool(k); }
};
template <> struct Read<AttrType::Str> {
  static const std::string &get(const AttrMap &a, const std::string &k) { return a.getStr(k); }
};
template <> struct Read<AttrType::Ints> {
  static std::vector<int64_t> get(const AttrMap &a, const std::string &k) { return a.getInts(k); }
};
template <> struct Read<AttrType::Floats> {
  static std::vector<double> get(const AttrMap &a, const std::string &k) { return a.getFloats(k); }
};
template <> struct Read<AttrType::Dim> {
  static Dim get(const AttrMap &a, const std::string &k) { return a.getDim(k); }
};
template <> struct Read<AttrType::Dims> {
  static std::vector<Dim> get(const AttrMap &a, const std::string &k) { return a.getDims(k); }
};
template <> struct Read<AttrType::DType> {
  static DType get(const AttrMap &a, const std::string &k) { return a.getDType(k); }
};

template <AttrType T> using Value = decltype(Read<T>::get(std::declval<const AttrMap &>(), ""));

/// What an accessor returns: the value (a const reference for strings), or an optional copy.
template <AttrType T, AttrPresence P>
using Result = std::conditional_t<P == AttrPresence::Required, Value<T>,
                                  std::optional<std::decay_t<Value<T>>>>;

template <AttrType T, AttrPresence P>
Result<T, P> read(const AttrMap &attrs, const std::string &key) {
  if constexpr (P == AttrPresence::Optional) {
    if (!attrs.has(key))
      return std::nullopt;
  }
  return Read<T>::get(attrs, key);
}

/// TC_CHECKs that `node`'s op declares attribute `id` in ir/ops.def.
void checkDeclared(const Node &node, AttrId id);

} // namespace detail

#define TC_ATTR(accessor, key, type, presence)                                                 \
  using accessor##_type = detail::Result<AttrType::type, AttrPresence::presence>;               \
  inline accessor##_type accessor(const AttrMap &attrs) {                                       \
    static const std::string kKey = key;                                                       \
    return detail::read<AttrType::type, AttrPresence::presence>(attrs, kKey);                  \
  }                                                                                            \
  inline accessor##_type accessor(const Node &node) {                                           \
    detail::checkDeclared(node, AttrId::accessor);                                             \
    return accessor(node.attrs());                                                             \
  }
#include "ir/ops.def"

} // namespace thunderc::ir::attr
