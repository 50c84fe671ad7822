// Symbolic integer expressions for dynamic tensor dims (e.g. s0, s0*16, s0//2), and Dim,
// one entry of a tensor shape: a constant or such an expression.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/status.h"

namespace thunderc::ir {

/// An immutable integer expression over named symbols. Constructors simplify: constants fold,
/// nested sums and products flatten, and operands sort by their text, so two expressions
/// that print alike are equal. Cheap to copy (shared nodes).
class SymExpr {
public:
  enum class Kind { Constant, Symbol, Add, Mul, FloorDiv, Mod, Max, Min };

  SymExpr() : SymExpr(constant(0)) {}
  static SymExpr constant(int64_t value);
  static SymExpr symbol(std::string name);
  static SymExpr add(SymExpr lhs, SymExpr rhs);
  static SymExpr mul(SymExpr lhs, SymExpr rhs);
  /// The sum / product of any number of terms (the constant 0 / 1 for none), flattened and
  /// sorted once: folding n terms pairwise with add/mul costs O(n^2), which a parser of
  /// untrusted text must not (a 4 KB "s0+s0+...+s0" took milliseconds per parse).
  static SymExpr sum(const std::vector<SymExpr> &terms);
  static SymExpr product(const std::vector<SymExpr> &factors);
  /// Python floor division; folds when both sides are constant and the divisor is not zero.
  static SymExpr floorDiv(SymExpr lhs, SymExpr rhs);
  /// Python modulo (sign of the divisor).
  static SymExpr mod(SymExpr lhs, SymExpr rhs);
  static SymExpr max(SymExpr lhs, SymExpr rhs);
  static SymExpr min(SymExpr lhs, SymExpr rhs);
  static SymExpr sub(SymExpr lhs, SymExpr rhs) { return add(lhs, mul(rhs, constant(-1))); }

  Kind kind() const;
  bool isConstant() const { return kind() == Kind::Constant; }
  int64_t constantValue() const;         ///< requires isConstant()
  const std::string &symbolName() const; ///< requires kind() == Symbol
  const std::vector<SymExpr> &operands() const;

  /// Value under the given symbol values; nullopt if a symbol is unbound or a division by
  /// zero occurs.
  std::optional<int64_t> evaluate(const std::map<std::string, int64_t> &bindings) const;

  void collectSymbols(std::set<std::string> &symbols) const;

  /// Canonical text: "7", "s0", "(s0*16)", "((s0*2)+1)", "(s0//2)", "(s0%2)", "max(s0,1)".
  /// Compound expressions are fully parenthesized, so the text parses back unambiguously.
  const std::string &str() const;

  friend bool operator==(const SymExpr &a, const SymExpr &b) { return a.str() == b.str(); }

private:
  struct Node;
  explicit SymExpr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  static SymExpr make(Kind kind, std::vector<SymExpr> operands);
  std::shared_ptr<const Node> node_;
};

/// Parses the text form written by SymExpr::str() (whitespace allowed; + - * // % and
/// max(a,b)/min(a,b); integer literals; identifiers are symbols).
Expected<SymExpr> parseSymExpr(std::string_view text);

/// One dimension of a tensor shape: a non-negative constant or a symbolic expression.
class Dim {
public:
  Dim(int64_t value = 0) : value_(value) {}
  /// A constant expression becomes a static Dim.
  Dim(SymExpr expr);

  bool isStatic() const { return !expr_.has_value(); }
  int64_t value() const; ///< requires isStatic()
  const SymExpr &expr() const; ///< requires !isStatic()
  SymExpr asExpr() const { return isStatic() ? SymExpr::constant(value_) : *expr_; }

  /// Text IR form: "784", "?s0", "?(s0*2)".
  std::string str() const;

  friend bool operator==(const Dim &a, const Dim &b) {
    if (a.isStatic() != b.isStatic())
      return false;
    return a.isStatic() ? a.value_ == b.value_ : *a.expr_ == *b.expr_;
  }

private:
  int64_t value_ = 0;
  std::optional<SymExpr> expr_;
};

using Shape = std::vector<Dim>;

/// "[2,?s0,8]".
std::string shapeStr(const Shape &shape);

/// Product of the dims (a static Dim if all are static).
Dim numElements(const Shape &shape);

/// The inclusive range of a symbol; max is nullopt when unbounded.
struct SymbolRange {
  int64_t min = 0;
  std::optional<int64_t> max;
  friend bool operator==(const SymbolRange &, const SymbolRange &) = default;
};

} // namespace thunderc::ir
