// The syntax of decompositions.def's expressions: a recursive-descent parser for the small
// Python-like language the table states its entries in (decompositions.def describes it).
#include "frontend/aten/decompose_internal.h"

#include <cctype>
#include <utility>

namespace thunderc::frontend::decompose {
namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expected<Program> parse() {
    Program program;
    while (true) {
      skipSpace();
      if (pos_ >= text_.size())
        break;
      Statement statement;
      if (acceptWord("return")) {
        TC_ASSIGN_OR_RETURN(statement.results, exprList());
      } else {
        size_t save = pos_;
        std::string name = identifier();
        skipSpace();
        if (!name.empty() && peek() == '=' && peekAt(1) != '=') {
          ++pos_;
          statement.target = name;
        } else {
          pos_ = save;
        }
        TC_ASSIGN_OR_RETURN(Expr expr, expression());
        statement.results.push_back(std::move(expr));
      }
      program.statements.push_back(std::move(statement));
      skipSpace();
      if (pos_ < text_.size() && !accept(";"))
        return error("expected ';'");
    }
    if (program.statements.empty() || !program.statements.back().target.empty())
      return error("the last statement must be the result");
    return program;
  }

private:
  Error error(const std::string &what) const {
    return invalidInput(what + " at offset " + std::to_string(pos_) + " of \"" +
                        std::string(text_) + "\"");
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  char peekAt(size_t ahead) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool accept(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token)
      return false;
    pos_ += token.size();
    return true;
  }
  bool acceptWord(std::string_view word) {
    skipSpace();
    if (text_.substr(pos_, word.size()) != word)
      return false;
    char after = pos_ + word.size() < text_.size() ? text_[pos_ + word.size()] : ' ';
    if (std::isalnum(static_cast<unsigned char>(after)) || after == '_')
      return false;
    pos_ += word.size();
    return true;
  }
  std::string identifier() {
    skipSpace();
    size_t start = pos_;
    if (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) ||
                                text_[pos_] == '_')) {
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                     text_[pos_] == '_'))
        ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  Expected<std::vector<Expr>> exprList() {
    std::vector<Expr> list;
    do {
      TC_ASSIGN_OR_RETURN(Expr expr, expression());
      list.push_back(std::move(expr));
    } while (accept(","));
    return list;
  }

  // expression := or ['if' or 'else' expression]
  Expected<Expr> expression() {
    TC_ASSIGN_OR_RETURN(Expr value, binaryLevel(0));
    if (!acceptWord("if"))
      return value;
    TC_ASSIGN_OR_RETURN(Expr condition, binaryLevel(0));
    if (!acceptWord("else"))
      return error("expected 'else'");
    TC_ASSIGN_OR_RETURN(Expr otherwise, expression());
    Expr ternary;
    ternary.kind = Expr::Kind::Ternary;
    ternary.args = {std::move(condition), std::move(value), std::move(otherwise)};
    return ternary;
  }

  // Binary levels, loosest first: or, and, comparison, additive, multiplicative.
  Expected<Expr> binaryLevel(int level) {
    static const std::vector<std::vector<std::string_view>> kLevels = {
        {"or", "|"}, {"and", "&"}, {"==", "!=", "<=", ">=", "<", ">"}, {"+", "-"}, {"*", "//", "/"}};
    if (level == static_cast<int>(kLevels.size()))
      return unary();
    TC_ASSIGN_OR_RETURN(Expr lhs, binaryLevel(level + 1));
    while (true) {
      if (level == 2 && acceptWord("is")) {
        bool negated = acceptWord("not");
        if (!acceptWord("None"))
          return error("expected 'None' after 'is'");
        Expr test;
        test.kind = Expr::Kind::IsNone;
        test.text = negated ? "is not" : "is";
        test.args = {std::move(lhs)};
        lhs = std::move(test);
        continue;
      }
      std::string_view matched;
      for (std::string_view op : kLevels[level]) {
        bool word = std::isalpha(static_cast<unsigned char>(op[0]));
        if (word ? acceptWord(op) : (op == "*" && peekAfterSpace("**") ? false : accept(op))) {
          matched = op;
          break;
        }
      }
      if (matched.empty())
        return lhs;
      TC_ASSIGN_OR_RETURN(Expr rhs, binaryLevel(level + 1));
      Expr binary;
      binary.kind = Expr::Kind::Binary;
      binary.text = matched == "or" ? "|" : matched == "and" ? "&" : std::string(matched);
      binary.args = {std::move(lhs), std::move(rhs)};
      lhs = std::move(binary);
    }
  }
  bool peekAfterSpace(std::string_view token) {
    skipSpace();
    return text_.substr(pos_, token.size()) == token;
  }

  Expected<Expr> unary() {
    if (accept("-") || acceptWord("not")) {
      std::string op = text_[pos_ - 1] == '-' ? "-" : "not";
      TC_ASSIGN_OR_RETURN(Expr operand, unary());
      Expr result;
      result.kind = Expr::Kind::Unary;
      result.text = op;
      result.args = {std::move(operand)};
      return result;
    }
    TC_ASSIGN_OR_RETURN(Expr base, primary());
    if (accept("**")) {
      TC_ASSIGN_OR_RETURN(Expr exponent, unary());
      Expr power;
      power.kind = Expr::Kind::Binary;
      power.text = "**";
      power.args = {std::move(base), std::move(exponent)};
      return power;
    }
    return base;
  }

  Expected<Expr> primary() {
    skipSpace();
    Expr result;
    char c = peek();
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') {
      size_t start = pos_;
      while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                     text_[pos_] == '.' ||
                                     ((text_[pos_] == '-' || text_[pos_] == '+') &&
                                      (text_[pos_ - 1] == 'e'))))
        ++pos_;
      std::string literal(text_.substr(start, pos_ - start));
      result.kind = Expr::Kind::Number;
      result.isFloat = literal.find_first_of(".en") != std::string::npos;
      try {
        result.number = std::stod(literal);
      } catch (...) {
        return error("bad number '" + literal + "'");
      }
      return result;
    }
    if (c == '"') {
      size_t end = text_.find('"', pos_ + 1);
      if (end == std::string_view::npos)
        return error("unterminated string");
      result.kind = Expr::Kind::String;
      result.text = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return result;
    }
    if (accept("(")) {
      TC_ASSIGN_OR_RETURN(result, expression());
      if (!accept(")"))
        return error("expected ')'");
      return result;
    }
    if (accept("[")) {
      result.kind = Expr::Kind::List;
      if (accept("]"))
        return postfix(std::move(result));
      TC_ASSIGN_OR_RETURN(Expr first, expression());
      if (acceptWord("for")) {
        // [expr for name in list]
        result.kind = Expr::Kind::Comprehension;
        result.text = identifier();
        if (result.text.empty() || !acceptWord("in"))
          return error("expected 'NAME in' after 'for'");
        // The source stops before a filter's 'if' (a ternary there needs parentheses).
        TC_ASSIGN_OR_RETURN(Expr source, binaryLevel(0));
        result.args = {std::move(first), std::move(source)};
        if (acceptWord("if")) {
          // [expr for name in list if condition]
          TC_ASSIGN_OR_RETURN(Expr condition, binaryLevel(0));
          result.args.push_back(std::move(condition));
        }
      } else {
        result.args.push_back(std::move(first));
        while (accept(",")) {
          TC_ASSIGN_OR_RETURN(Expr next, expression());
          result.args.push_back(std::move(next));
        }
      }
      if (!accept("]"))
        return error("expected ']'");
      return postfix(std::move(result));
    }
    std::string name = identifier();
    if (name.empty())
      return error("expected an expression");
    result.text = name;
    if (!accept("(")) {
      result.kind = Expr::Kind::Name;
      return postfix(std::move(result));
    }
    result.kind = Expr::Kind::Call;
    if (accept(")"))
      return result;
    do {
      size_t save = pos_;
      std::string keyword = identifier();
      skipSpace();
      if (keyword.empty() || peek() != '=' || peekAt(1) == '=') {
        pos_ = save;
        keyword.clear();
      } else {
        ++pos_;
      }
      TC_ASSIGN_OR_RETURN(Expr argument, expression());
      result.args.push_back(std::move(argument));
      result.keywords.push_back(keyword);
    } while (accept(","));
    if (!accept(")"))
      return error("expected ')' after the arguments of " + name);
    return postfix(std::move(result));
  }

  // list[i] and list[a:b] (either end may be left out; negative counts from the end).
  Expected<Expr> postfix(Expr base) {
    while (peekAfterSpace("[")) {
      ++pos_;
      Expr subscript;
      subscript.kind = Expr::Kind::Subscript;
      subscript.args.push_back(std::move(base));
      Expr none;
      none.kind = Expr::Kind::Name;
      none.text = "None";
      if (accept(":")) {
        subscript.text = ":";
        subscript.args.push_back(none);
      } else {
        TC_ASSIGN_OR_RETURN(Expr index, expression());
        subscript.args.push_back(std::move(index));
        if (accept(":"))
          subscript.text = ":";
      }
      if (subscript.text == ":") {
        if (peekAfterSpace("]")) {
          subscript.args.push_back(none);
        } else {
          TC_ASSIGN_OR_RETURN(Expr end, expression());
          subscript.args.push_back(std::move(end));
        }
      }
      if (!accept("]"))
        return error("expected ']'");
      base = std::move(subscript);
    }
    return base;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

} // namespace

Expected<Program> parseProgram(std::string_view source) { return Parser(source).parse(); }

} // namespace thunderc::frontend::decompose
