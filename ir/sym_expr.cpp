// SymExpr construction with light canonicalization, evaluation, printing and parsing.
#include "ir/sym_expr.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <utility>
#include <vector>

namespace thunderc::ir {

struct SymExpr::Node {
  Kind kind;
  int64_t value = 0;
  std::string name;
  std::vector<SymExpr> operands;
  std::string text; // canonical form, computed once
};

namespace {

/// False for b == 0 and for INT64_MIN / -1, whose quotient does not fit.
bool divisible(int64_t a, int64_t b) {
  return b != 0 && !(a == std::numeric_limits<int64_t>::min() && b == -1);
}

int64_t floorDivide(int64_t a, int64_t b) {
  int64_t quotient = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --quotient;
  return quotient;
}

int64_t pythonMod(int64_t a, int64_t b) {
  int64_t remainder = a % b;
  if (remainder != 0 && ((remainder < 0) != (b < 0)))
    remainder += b;
  return remainder;
}

const char *infixSymbol(SymExpr::Kind kind) {
  switch (kind) {
  case SymExpr::Kind::Add: return "+";
  case SymExpr::Kind::Mul: return "*";
  case SymExpr::Kind::FloorDiv: return "//";
  case SymExpr::Kind::Mod: return "%";
  default: return nullptr;
  }
}

} // namespace

SymExpr SymExpr::make(Kind kind, std::vector<SymExpr> operands) {
  auto node = std::make_shared<Node>();
  node->kind = kind;
  node->operands = std::move(operands);
  std::string text;
  if (const char *infix = infixSymbol(kind)) {
    text = "(";
    for (size_t i = 0; i < node->operands.size(); ++i)
      text += (i ? infix : "") + node->operands[i].str();
    text += ")";
  } else {
    text = std::string(kind == Kind::Max ? "max(" : "min(") + node->operands[0].str() + "," +
           node->operands[1].str() + ")";
  }
  node->text = std::move(text);
  return SymExpr(std::move(node));
}

SymExpr SymExpr::constant(int64_t value) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::Constant;
  node->value = value;
  node->text = std::to_string(value);
  return SymExpr(std::move(node));
}

SymExpr SymExpr::symbol(std::string name) {
  auto node = std::make_shared<Node>();
  node->kind = Kind::Symbol;
  node->name = name;
  node->text = std::move(name);
  return SymExpr(std::move(node));
}

namespace {

using Rebuild = SymExpr (*)(SymExpr::Kind, std::vector<SymExpr>);

// Flattens an associative, commutative operation (Add or Mul) over `operands`, folds its
// constants and sorts the terms. `rebuild` is SymExpr::make, which is private.
SymExpr flattenAssociative(SymExpr::Kind kind, const std::vector<SymExpr> &operands,
                           Rebuild rebuild) {
  const int64_t identity = kind == SymExpr::Kind::Add ? 0 : 1;
  std::vector<SymExpr> terms;
  int64_t folded = identity;
  auto take = [&](const SymExpr &part) {
    int64_t next = 0;
    bool overflows =
        part.isConstant() && (kind == SymExpr::Kind::Add
                                  ? __builtin_add_overflow(folded, part.constantValue(), &next)
                                  : __builtin_mul_overflow(folded, part.constantValue(), &next));
    if (part.isConstant() && !overflows)
      folded = next;
    else
      terms.push_back(part); // a constant that would overflow stays a term, unfolded
  };
  for (const SymExpr &operand : operands) {
    if (operand.kind() == kind)
      for (const SymExpr &part : operand.operands())
        take(part);
    else
      take(operand);
  }
  if (kind == SymExpr::Kind::Mul && folded == 0)
    return SymExpr::constant(0);
  std::sort(terms.begin(), terms.end(),
            [](const SymExpr &a, const SymExpr &b) { return a.str() < b.str(); });
  if (folded != identity || terms.empty())
    terms.push_back(SymExpr::constant(folded));
  if (terms.size() == 1)
    return terms[0];
  return rebuild(kind, std::move(terms));
}

} // namespace

SymExpr SymExpr::add(SymExpr lhs, SymExpr rhs) {
  return flattenAssociative(Kind::Add, {std::move(lhs), std::move(rhs)}, &SymExpr::make);
}

SymExpr SymExpr::mul(SymExpr lhs, SymExpr rhs) {
  return flattenAssociative(Kind::Mul, {std::move(lhs), std::move(rhs)}, &SymExpr::make);
}

SymExpr SymExpr::sum(const std::vector<SymExpr> &terms) {
  return flattenAssociative(Kind::Add, terms, &SymExpr::make);
}

SymExpr SymExpr::product(const std::vector<SymExpr> &factors) {
  return flattenAssociative(Kind::Mul, factors, &SymExpr::make);
}

SymExpr SymExpr::floorDiv(SymExpr lhs, SymExpr rhs) {
  if (rhs.isConstant() && rhs.constantValue() == 1)
    return lhs;
  if (lhs.isConstant() && rhs.isConstant() && divisible(lhs.constantValue(), rhs.constantValue()))
    return constant(floorDivide(lhs.constantValue(), rhs.constantValue()));
  return make(Kind::FloorDiv, {std::move(lhs), std::move(rhs)});
}

SymExpr SymExpr::mod(SymExpr lhs, SymExpr rhs) {
  if (lhs.isConstant() && rhs.isConstant() && divisible(lhs.constantValue(), rhs.constantValue()))
    return constant(pythonMod(lhs.constantValue(), rhs.constantValue()));
  return make(Kind::Mod, {std::move(lhs), std::move(rhs)});
}

SymExpr SymExpr::max(SymExpr lhs, SymExpr rhs) {
  if (lhs.isConstant() && rhs.isConstant())
    return constant(std::max(lhs.constantValue(), rhs.constantValue()));
  if (lhs == rhs)
    return lhs;
  if (rhs.str() < lhs.str())
    std::swap(lhs, rhs);
  return make(Kind::Max, {std::move(lhs), std::move(rhs)});
}

SymExpr SymExpr::min(SymExpr lhs, SymExpr rhs) {
  if (lhs.isConstant() && rhs.isConstant())
    return constant(std::min(lhs.constantValue(), rhs.constantValue()));
  if (lhs == rhs)
    return lhs;
  if (rhs.str() < lhs.str())
    std::swap(lhs, rhs);
  return make(Kind::Min, {std::move(lhs), std::move(rhs)});
}

SymExpr::Kind SymExpr::kind() const { return node_->kind; }

int64_t SymExpr::constantValue() const {
  TC_CHECK(isConstant(), "constantValue() of a non-constant expression " + str());
  return node_->value;
}

const std::string &SymExpr::symbolName() const {
  TC_CHECK(kind() == Kind::Symbol, "symbolName() of a non-symbol " + str());
  return node_->name;
}

const std::vector<SymExpr> &SymExpr::operands() const { return node_->operands; }

const std::string &SymExpr::str() const { return node_->text; }

std::optional<int64_t>
SymExpr::evaluate(const std::map<std::string, int64_t> &bindings) const {
  switch (kind()) {
  case Kind::Constant:
    return node_->value;
  case Kind::Symbol: {
    auto it = bindings.find(node_->name);
    if (it == bindings.end())
      return std::nullopt;
    return it->second;
  }
  default:
    break;
  }
  std::vector<int64_t> values;
  for (const SymExpr &operand : operands()) {
    std::optional<int64_t> value = operand.evaluate(bindings);
    if (!value)
      return std::nullopt;
    values.push_back(*value);
  }
  int64_t result = kind() == Kind::Mul ? 1 : 0;
  switch (kind()) {
  case Kind::Add: // an overflowing size is no size
    for (int64_t value : values)
      if (__builtin_add_overflow(result, value, &result))
        return std::nullopt;
    return result;
  case Kind::Mul:
    for (int64_t value : values)
      if (__builtin_mul_overflow(result, value, &result))
        return std::nullopt;
    return result;
  case Kind::FloorDiv:
    if (!divisible(values[0], values[1]))
      return std::nullopt;
    return floorDivide(values[0], values[1]);
  case Kind::Mod:
    if (!divisible(values[0], values[1]))
      return std::nullopt;
    return pythonMod(values[0], values[1]);
  case Kind::Max:
    return std::max(values[0], values[1]);
  case Kind::Min:
    return std::min(values[0], values[1]);
  default:
    return std::nullopt;
  }
}

void SymExpr::collectSymbols(std::set<std::string> &symbols) const {
  if (kind() == Kind::Symbol)
    symbols.insert(node_->name);
  for (const SymExpr &operand : operands())
    operand.collectSymbols(symbols);
}

namespace {

// Recursive-descent parser over the canonical grammar:
//   expr := term (('+'|'-') term)*      term := atom (('*'|'//'|'%') atom)*
//   atom := integer | identifier | ('max'|'min') '(' expr ',' expr ')' | '(' expr ')' | '-' atom
class SymExprParser {
public:
  explicit SymExprParser(std::string_view text) : text_(text) {}

  Expected<SymExpr> parseAll() {
    TC_ASSIGN_OR_RETURN(SymExpr expr, parseExpr());
    skipSpace();
    if (pos_ != text_.size())
      return fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return expr;
  }

private:
  Error fail(const std::string &what) const {
    return invalidInput("bad symbolic expression '" + std::string(text_) + "': " + what);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool consume(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token)
      return false;
    pos_ += token.size();
    return true;
  }

  // Terms and factors are collected and combined once (SymExpr::sum/product): combining them
  // pairwise as they are read is quadratic in their count.
  Expected<SymExpr> parseExpr() {
    TC_ASSIGN_OR_RETURN(SymExpr first, parseTerm());
    std::vector<SymExpr> terms{first};
    while (true) {
      if (consume("+")) {
        TC_ASSIGN_OR_RETURN(SymExpr rhs, parseTerm());
        terms.push_back(rhs);
      } else if (consume("-")) {
        TC_ASSIGN_OR_RETURN(SymExpr rhs, parseTerm());
        terms.push_back(SymExpr::mul(rhs, SymExpr::constant(-1)));
      } else {
        return terms.size() == 1 ? terms[0] : SymExpr::sum(terms);
      }
    }
  }

  Expected<SymExpr> parseTerm() {
    TC_ASSIGN_OR_RETURN(SymExpr first, parseAtom());
    std::vector<SymExpr> factors{first}; // a run of '*' since the last '//' or '%'
    auto collapse = [&factors] {
      SymExpr product = factors.size() == 1 ? factors[0] : SymExpr::product(factors);
      factors.clear();
      return product;
    };
    while (true) {
      if (consume("//")) {
        TC_ASSIGN_OR_RETURN(SymExpr rhs, parseAtom());
        SymExpr lhs = collapse();
        factors.push_back(SymExpr::floorDiv(lhs, rhs));
      } else if (consume("*")) {
        TC_ASSIGN_OR_RETURN(SymExpr rhs, parseAtom());
        factors.push_back(rhs);
      } else if (consume("%")) {
        TC_ASSIGN_OR_RETURN(SymExpr rhs, parseAtom());
        SymExpr lhs = collapse();
        factors.push_back(SymExpr::mod(lhs, rhs));
      } else {
        return collapse();
      }
    }
  }

  /// Deeper nesting of parentheses, unary minus and max/min than any exported size needs is
  /// refused: the parser and every walk of the expression recurse once per level.
  static constexpr int kMaxDepth = 256;

  Expected<SymExpr> parseAtom() {
    struct Level {
      int &depth;
      explicit Level(int &d) : depth(++d) {}
      ~Level() { --depth; }
    } level(depth_);
    if (depth_ > kMaxDepth)
      return invalidInput("bad symbolic expression: nested more than " +
                          std::to_string(kMaxDepth) + " levels deep at offset " +
                          std::to_string(pos_));
    skipSpace();
    if (pos_ >= text_.size())
      return fail("unexpected end");
    if (consume("(")) {
      TC_ASSIGN_OR_RETURN(SymExpr inner, parseExpr());
      if (!consume(")"))
        return fail("expected ')'");
      return inner;
    }
    if (consume("-")) {
      TC_ASSIGN_OR_RETURN(SymExpr inner, parseAtom());
      return SymExpr::mul(inner, SymExpr::constant(-1));
    }
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      int64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (value > (INT64_MAX - 9) / 10)
          return fail("integer overflow");
        value = value * 10 + (text_[pos_++] - '0');
      }
      return SymExpr::constant(value);
    }
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_')
      return fail("unexpected '" + std::string(1, c) + "'");
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    std::string name(text_.substr(start, pos_ - start));
    if ((name == "max" || name == "min") && consume("(")) {
      TC_ASSIGN_OR_RETURN(SymExpr lhs, parseExpr());
      if (!consume(","))
        return fail("expected ','");
      TC_ASSIGN_OR_RETURN(SymExpr rhs, parseExpr());
      if (!consume(")"))
        return fail("expected ')'");
      return name == "max" ? SymExpr::max(lhs, rhs) : SymExpr::min(lhs, rhs);
    }
    return SymExpr::symbol(name);
  }

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0; ///< parseAtom calls in progress
};

} // namespace

Expected<SymExpr> parseSymExpr(std::string_view text) { return SymExprParser(text).parseAll(); }

Dim::Dim(SymExpr expr) {
  if (expr.isConstant())
    value_ = expr.constantValue();
  else
    expr_ = std::move(expr);
}

int64_t Dim::value() const {
  TC_CHECK(isStatic(), "value() of symbolic dim " + expr_->str());
  return value_;
}

const SymExpr &Dim::expr() const {
  TC_CHECK(!isStatic(), "expr() of static dim");
  return *expr_;
}

std::string Dim::str() const { return isStatic() ? std::to_string(value_) : "?" + expr_->str(); }

std::string shapeStr(const Shape &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + shape[i].str();
  return text + "]";
}

Dim numElements(const Shape &shape) {
  SymExpr product = SymExpr::constant(1);
  for (const Dim &dim : shape)
    product = SymExpr::mul(product, dim.asExpr());
  return Dim(product);
}

} // namespace thunderc::ir
