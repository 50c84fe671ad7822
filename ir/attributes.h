// Typed node attributes: a sorted name -> value map, so printing is deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/sym_expr.h"

namespace thunderc::ir {

/// The kinds of attribute values, matching the type names used in ir/ops.def.
enum class AttrType { Int, Float, Bool, Str, Ints, Floats, Dim, Dims, DType };

/// One attribute value. A `dims` list or `dim` whose entries are all static is stored as
/// Ints / Int (normalized on construction by makeDimAttr), so printing and parsing agree.
using AttrValue = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>,
                               std::vector<double>, Dim, std::vector<Dim>, DType>;

AttrType attrType(const AttrValue &value);
const char *attrTypeName(AttrType type);

/// Normalizing constructors: static dims become plain integers.
AttrValue makeDimAttr(const Dim &dim);
AttrValue makeDimsAttr(const std::vector<Dim> &dims);

/// Text IR form of a value: 3, 0.5, true, "tanh", [1,2], [0.5], ?s0, [?s0,4], f32.
/// Floats always print with a '.', an exponent, or as inf/-inf/nan, so they never read
/// back as integers; printing uses the shortest text that round-trips.
std::string attrValueStr(const AttrValue &value);

/// A node's attributes, sorted by name.
class AttrMap {
public:
  bool has(const std::string &name) const { return values_.count(name) != 0; }
  void set(const std::string &name, AttrValue value) { values_[name] = std::move(value); }
  void erase(const std::string &name) { values_.erase(name); }
  const AttrValue *find(const std::string &name) const;

  /// Typed getters; TC_CHECK that the attribute exists with that type (the verifier has
  /// checked attributes against ir/ops.def before anyone reads them).
  int64_t getInt(const std::string &name) const;
  double getFloat(const std::string &name) const; ///< accepts an Int attribute too
  bool getBool(const std::string &name) const;
  const std::string &getStr(const std::string &name) const;
  std::vector<int64_t> getInts(const std::string &name) const;
  std::vector<double> getFloats(const std::string &name) const;
  Dim getDim(const std::string &name) const;               ///< accepts Int
  std::vector<Dim> getDims(const std::string &name) const; ///< accepts Ints
  DType getDType(const std::string &name) const;

  const std::map<std::string, AttrValue> &all() const { return values_; }
  bool empty() const { return values_.empty(); }

private:
  std::map<std::string, AttrValue> values_;
};

} // namespace thunderc::ir
