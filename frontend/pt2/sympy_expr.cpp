// A recursive-descent reader for the subset of sympy srepr that torch.export emits.
#include "frontend/pt2/sympy_expr.h"

#include <cctype>
#include <vector>

namespace thunderc::frontend {
namespace {

using ir::SymExpr;

class SreprParser {
public:
  SreprParser(std::string_view text, const std::map<std::string, std::string> &renames)
      : text_(text), renames_(renames) {}

  Expected<SymExpr> parseAll() {
    TC_ASSIGN_OR_RETURN(SymExpr expr, parseCall());
    skipSpace();
    if (pos_ != text_.size())
      return fail("trailing text");
    return expr;
  }

private:
  Error fail(const std::string &what) const {
    return invalidInput("bad symbolic size expression \"" + shown() + "\": " + what +
                        " at offset " + std::to_string(pos_));
  }
  /// The expression for messages: at most 160 characters, then "...".
  std::string shown() const {
    constexpr size_t kShown = 160;
    return text_.size() <= kShown ? std::string(text_)
                                  : std::string(text_.substr(0, kShown)) + "...";
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool consume(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string identifier() {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
      ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  Expected<std::string> quotedString() {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return fail("expected a quoted name");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos)
      return fail("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }

  Expected<int64_t> integerLiteral() {
    skipSpace();
    bool negative = consume('-');
    skipSpace();
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
      return fail("expected an integer");
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      if (value > (INT64_MAX - 9) / 10)
        return fail("integer overflow");
      value = value * 10 + (text_[pos_++] - '0');
    }
    return negative ? -value : value;
  }

  // Skips keyword arguments such as `positive=True, integer=True` up to the closing ')'.
  Status skipKeywords() {
    while (consume(',')) {
      identifier();
      if (!consume('='))
        return fail("expected '=' in keyword argument");
      identifier();
    }
    if (!consume(')'))
      return fail("expected ')'");
    return Status::success();
  }

  Expected<std::vector<SymExpr>> arguments() {
    std::vector<SymExpr> args;
    if (consume(')'))
      return args;
    do {
      TC_ASSIGN_OR_RETURN(SymExpr arg, parseCall());
      args.push_back(arg);
    } while (consume(','));
    if (!consume(')'))
      return fail("expected ')'");
    return args;
  }

  Expected<SymExpr> parseCall() {
    if (++depth_ > kMaxDepth)
      return fail("nested too deeply");
    std::string function = identifier();
    if (function.empty())
      return fail("expected a function name");
    if (!consume('('))
      return fail("expected '(' after " + function);
    Expected<SymExpr> result = parseBody(function);
    --depth_;
    return result;
  }

  Expected<SymExpr> parseBody(const std::string &function) {
    if (function == "Symbol") {
      TC_ASSIGN_OR_RETURN(std::string name, quotedString());
      TC_TRY(skipKeywords());
      auto renamed = renames_.find(name);
      return SymExpr::symbol(renamed == renames_.end() ? name : renamed->second);
    }
    if (function == "Integer") {
      TC_ASSIGN_OR_RETURN(int64_t value, integerLiteral());
      if (!consume(')'))
        return fail("expected ')'");
      return SymExpr::constant(value);
    }
    TC_ASSIGN_OR_RETURN(std::vector<SymExpr> args, arguments());
    return combine(function, args);
  }

  Expected<SymExpr> combine(const std::string &function, const std::vector<SymExpr> &args) {
    bool variadic = function == "Add" || function == "Mul" || function == "Max" ||
                    function == "Min";
    if (variadic && args.empty())
      return fail(function + " without arguments");
    if (!variadic && args.size() != 2)
      return unsupported("unsupported symbolic size function " + function + " in \"" +
                         shown() + "\"");
    bool divides = function == "FloorDiv" || function == "Mod" || function == "PythonMod";
    if (divides && args[1].isConstant() && args[1].constantValue() == 0)
      return fail("division by zero");
    // Sums and products combine all their arguments at once (pairwise is quadratic).
    if (function == "Add")
      return SymExpr::sum(args);
    if (function == "Mul")
      return SymExpr::product(args);
    SymExpr result = args[0];
    for (size_t i = 1; i < args.size(); ++i) {
      if (function == "Max")
        result = SymExpr::max(result, args[i]);
      else if (function == "Min")
        result = SymExpr::min(result, args[i]);
      else if (function == "FloorDiv")
        result = SymExpr::floorDiv(result, args[i]);
      else if (function == "Mod" || function == "PythonMod")
        result = SymExpr::mod(result, args[i]);
      else if (function == "Pow")
        return power(args[0], args[1]);
      else
        return unsupported("unsupported symbolic size function " + function + " in \"" +
                           shown() + "\"");
    }
    return result;
  }

  Expected<SymExpr> power(const SymExpr &base, const SymExpr &exponent) {
    if (!exponent.isConstant() || exponent.constantValue() < 0 ||
        exponent.constantValue() > 8)
      return unsupported("unsupported symbolic power in \"" + shown() + "\"");
    SymExpr result = SymExpr::constant(1);
    for (int64_t i = 0; i < exponent.constantValue(); ++i)
      result = SymExpr::mul(result, base);
    return result;
  }

  static constexpr int kMaxDepth = 64;
  std::string_view text_;
  const std::map<std::string, std::string> &renames_;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

Expected<ir::SymExpr> parseSympySrepr(std::string_view text,
                                      const std::map<std::string, std::string> &renames) {
  return SreprParser(text, renames).parseAll();
}

std::vector<std::string> sympySymbols(std::string_view text) {
  std::vector<std::string> names;
  constexpr std::string_view kPrefix = "Symbol(";
  for (size_t pos = text.find(kPrefix); pos != std::string_view::npos;
       pos = text.find(kPrefix, pos + 1)) {
    size_t start = pos + kPrefix.size();
    if (start >= text.size() || (text[start] != '\'' && text[start] != '"'))
      continue;
    size_t end = text.find(text[start], start + 1);
    if (end == std::string_view::npos)
      break;
    std::string name(text.substr(start + 1, end - start - 1));
    bool seen = false;
    for (const std::string &existing : names)
      seen = seen || existing == name;
    if (!seen)
      names.push_back(name);
  }
  return names;
}

} // namespace thunderc::frontend
