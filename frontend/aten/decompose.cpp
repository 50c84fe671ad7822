// The decomposition layer (see decompose.h and the language in decompositions.def): a small
// parser for the table's expressions and an evaluator that emits IR nodes through NodeImport.
#include "frontend/aten/decompose.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "ir/ops.h"
#include "ir/shape_inference.h"

namespace thunderc::frontend {
namespace {

// ---- the table ----

struct Entry {
  std::string_view target; ///< "aten.addcmul.default"
  std::string_view source; ///< the expression; empty for an alias
  std::string_view alias;  ///< TC_ALIAS: the overload imported instead ("aten.permute.default")
};

constexpr Entry kEntries[] = {
#define TC_DECOMPOSE(target, source) {"aten." target, source, ""},
#define TC_DECOMPOSE_NS(space, target, source) {space "." target, source, ""},
#define TC_ALIAS(target, same) {"aten." target, "", "aten." same},
#include "frontend/aten/decompositions.def"
#undef TC_ALIAS
#undef TC_DECOMPOSE_NS
#undef TC_DECOMPOSE
};

// ---- syntax ----

struct Expr {
  enum class Kind {
    Number, Name, String, Call, Unary, Binary, List, Ternary, IsNone, Comprehension, Subscript
  };
  Kind kind = Kind::Number;
  std::string text;  ///< name, string, call name, or operator ("+", "not", "is not")
  double number = 0; ///< Number
  bool isFloat = false;
  std::vector<Expr> args;            ///< operands, call arguments, list items, ternary parts
  std::vector<std::string> keywords; ///< per call argument: its keyword or ""
};

struct Statement {
  std::string target;        ///< "" for the result statement
  std::vector<Expr> results; ///< one expression, or the `return a, b` list
};

struct Program {
  std::vector<Statement> statements;
};

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
        TC_ASSIGN_OR_RETURN(Expr source, expression());
        result.args = {std::move(first), std::move(source)};
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

// ---- parsed programs, once per entry ----

const std::map<std::string_view, Program> &programs() {
  static const std::map<std::string_view, Program> parsed = [] {
    std::map<std::string_view, Program> table;
    for (const Entry &entry : kEntries) {
      if (!entry.alias.empty())
        continue;
      Expected<Program> program = Parser(entry.source).parse();
      TC_CHECK(program.ok(), "frontend/aten/decompositions.def: " + std::string(entry.target) +
                                 ": " + (program.ok() ? "" : program.error().message()));
      TC_CHECK(table.emplace(entry.target, std::move(program).value()).second,
               "frontend/aten/decompositions.def: " + std::string(entry.target) + " twice");
    }
    return table;
  }();
  return parsed;
}

// ---- evaluation ----

/// A value of the language: a tensor, a Python scalar, a dim (possibly symbolic), a list, a
/// string or None.
struct Item {
  enum class Kind { None, Tensor, Int, Float, Bool, Dim, List, String };
  Kind kind = Kind::None;
  Value *tensor = nullptr;
  double number = 0;
  ir::Dim dim;
  std::vector<Item> list;
  std::string text;

  static Item ofTensor(Value *value) {
    Item item;
    item.kind = Kind::Tensor;
    item.tensor = value;
    return item;
  }
  static Item ofNumber(double value, Kind kind) {
    Item item;
    item.kind = kind;
    item.number = value;
    return item;
  }
  static Item ofDim(const ir::Dim &dim) {
    if (dim.isStatic())
      return ofNumber(static_cast<double>(dim.value()), Kind::Int);
    Item item;
    item.kind = Kind::Dim;
    item.dim = dim;
    return item;
  }
  bool isScalar() const { return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool; }
};

std::string_view kindName(Item::Kind kind) {
  switch (kind) {
  case Item::Kind::None: return "None";
  case Item::Kind::Tensor: return "a tensor";
  case Item::Kind::Int: return "an int";
  case Item::Kind::Float: return "a float";
  case Item::Kind::Bool: return "a bool";
  case Item::Kind::Dim: return "a symbolic size";
  case Item::Kind::List: return "a list";
  case Item::Kind::String: return "a string";
  }
  return "?";
}

int category(DType dtype) {
  if (dtype == DType::Bool)
    return 0;
  return ir::isFloatingPoint(dtype) ? 2 : 1;
}

int category(const Item &item) {
  if (item.kind == Item::Kind::Tensor)
    return category(item.tensor->type().dtype);
  return item.kind == Item::Kind::Bool ? 0 : item.kind == Item::Kind::Int ? 1 : 2;
}

class Evaluator {
public:
  Evaluator(NodeImport &node, std::string_view target) : node_(node), target_(target) {}

  Status run(const Program &program) {
    for (const Statement &statement : program.statements) {
      if (!statement.target.empty()) {
        // Lazy: evaluated when first read, unless it rebinds a name (then now, so that the
        // new expression sees the old value).
        const std::string &name = statement.target;
        if (locals_.count(name) || pending_.count(name)) {
          TC_ASSIGN_OR_RETURN(Item value, eval(statement.results.front()));
          pending_.erase(name);
          locals_[name] = std::move(value);
        } else {
          pending_[name] = &statement.results.front();
        }
        continue;
      }
      std::vector<Item> results;
      for (const Expr &expr : statement.results) {
        TC_ASSIGN_OR_RETURN(Item value, eval(expr));
        results.push_back(std::move(value));
      }
      if (results.size() == 1 && results[0].kind == Item::Kind::List)
        results = std::move(results[0].list);
      return bind(results);
    }
    return Status::success();
  }

private:
  Error fail(const std::string &what) const {
    return node_.unsupportedFeature(std::string(target_) + " (decomposition): " + what);
  }
  Error bug(const std::string &what) const {
    TC_CHECK(false, "frontend/aten/decompositions.def: " + std::string(target_) + ": " + what);
    return fail(what);
  }

  Status bind(const std::vector<Item> &results) {
    if (static_cast<int>(results.size()) < node_.numOutputs())
      return bug(std::to_string(results.size()) + " results for " +
                 std::to_string(node_.numOutputs()) + " outputs");
    for (int i = 0; i < node_.numOutputs(); ++i) {
      TC_ASSIGN_OR_RETURN(ir::TensorType out, node_.outputType(i));
      Value *value = nullptr;
      if (results[i].isScalar()) {
        value = node_.scalarConstant(results[i].number, out.dtype);
      } else if (results[i].kind == Item::Kind::Tensor) {
        value = node_.castTo(results[i].tensor, out.dtype);
      } else {
        return bug("result " + std::to_string(i) + " is " + std::string(kindName(results[i].kind)));
      }
      if (value->type().shape != out.shape) {
        if (value->type().rank() > out.rank() && value->type().rank() != 0)
          return bug("result " + std::to_string(i) + " is " + value->type().str() +
                     ", the exported output " + out.str());
        ir::AttrMap attrs;
        std::vector<ir::Dim> shape(out.shape.begin(), out.shape.end());
        attrs.set("shape", ir::makeDimsAttr(shape));
        TC_ASSIGN_OR_RETURN(value, node_.emitInferred(OpKind::Expand, {value}, std::move(attrs)));
        if (value->type().shape != out.shape)
          return bug("result " + std::to_string(i) + " does not broadcast to " + out.str());
      }
      node_.bindOutput(i, value);
    }
    return Status::success();
  }

  // ---- names ----

  Expected<Item> lookup(const std::string &name) {
    if (auto it = locals_.find(name); it != locals_.end())
      return it->second;
    if (auto it = pending_.find(name); it != pending_.end()) {
      const Expr *expr = it->second;
      pending_.erase(it);
      TC_ASSIGN_OR_RETURN(Item value, eval(*expr));
      locals_[name] = value;
      return value;
    }
    // A schema argument shadows the constants (nan_to_num's `nan`), as a Python parameter does.
    if (const ArgSchema *arg = node_.schema().findArg(name)) {
      TC_ASSIGN_OR_RETURN(Item value, argument(*arg));
      locals_[name] = value;
      return value;
    }
    if (name == "None")
      return Item{};
    if (name == "True" || name == "False")
      return Item::ofNumber(name == "True" ? 1 : 0, Item::Kind::Bool);
    if (name == "inf")
      return Item::ofNumber(INFINITY, Item::Kind::Float);
    if (name == "nan")
      return Item::ofNumber(NAN, Item::Kind::Float);
    if (name == "pi")
      return Item::ofNumber(M_PI, Item::Kind::Float);
    return bug("unknown name '" + name + "'");
  }

  Expected<Item> argument(const ArgSchema &arg) {
    const std::string &type = arg.type;
    bool optional = !type.empty() && type.back() == '?';
    if (optional && node_.isNone(arg.name))
      return Item{};
    std::string base = optional ? type.substr(0, type.size() - 1) : type;
    if (base == "Tensor" || base == "Scalar") {
      // A Python scalar where the schema says Tensor (torch.export passes `x - 1.0` to
      // subtract.Tensor that way) is a scalar, as PyTorch's wrapped numbers are.
      TC_ASSIGN_OR_RETURN(ScalarOrTensor value, node_.scalarOrTensor(arg.name));
      if (value.tensor != nullptr)
        return Item::ofTensor(value.tensor);
      return Item::ofNumber(value.scalar, value.scalarIsBool    ? Item::Kind::Bool
                                          : value.scalarIsFloat ? Item::Kind::Float
                                                                : Item::Kind::Int);
    }
    if (base == "Tensor[]") {
      TC_ASSIGN_OR_RETURN(std::vector<Value *> values, node_.tensorList(arg.name));
      Item list;
      list.kind = Item::Kind::List;
      for (Value *value : values)
        list.list.push_back(Item::ofTensor(value));
      return list;
    }
    if (base == "int" || base == "SymInt") {
      TC_ASSIGN_OR_RETURN(std::optional<ir::Dim> value, node_.optionalSymInt(arg.name));
      if (!value)
        return Item{};
      return Item::ofDim(*value);
    }
    if (base == "float") {
      TC_ASSIGN_OR_RETURN(double value, node_.floatArg(arg.name));
      return Item::ofNumber(value, Item::Kind::Float);
    }
    if (base == "bool") {
      TC_ASSIGN_OR_RETURN(bool value, node_.boolArg(arg.name));
      return Item::ofNumber(value ? 1 : 0, Item::Kind::Bool);
    }
    if (base == "str") {
      TC_ASSIGN_OR_RETURN(std::optional<std::string> value, node_.optionalString(arg.name));
      Item item;
      if (value) {
        item.kind = Item::Kind::String;
        item.text = *value;
      }
      return item;
    }
    if (base.starts_with("int[") || base.starts_with("SymInt[")) {
      TC_ASSIGN_OR_RETURN(std::vector<int64_t> values, node_.intList(arg.name));
      Item list;
      list.kind = Item::Kind::List;
      for (int64_t value : values)
        list.list.push_back(Item::ofNumber(static_cast<double>(value), Item::Kind::Int));
      return list;
    }
    if (base == "ScalarType") {
      // Only "the default" can be followed: a dtype argument that is given changes what the
      // op computes in, which the table does not express yet.
      return fail("argument '" + arg.name + "' (a dtype) is given");
    }
    return fail("argument '" + arg.name + "' of type " + type);
  }

  // ---- conversions ----

  Expected<Value *> asTensor(const Item &item, DType dtype) {
    if (item.kind == Item::Kind::Tensor)
      return node_.castTo(item.tensor, dtype);
    if (item.isScalar())
      return node_.scalarConstant(item.number, dtype);
    return fail("expected a tensor, got " + std::string(kindName(item.kind)));
  }
  Expected<Value *> tensorOf(const Item &item) {
    if (item.kind != Item::Kind::Tensor)
      return fail("expected a tensor, got " + std::string(kindName(item.kind)));
    return item.tensor;
  }
  Expected<int64_t> intOf(const Item &item) {
    if (item.kind != Item::Kind::Int && item.kind != Item::Kind::Bool)
      return fail("expected an int, got " + std::string(kindName(item.kind)));
    return static_cast<int64_t>(item.number);
  }
  Expected<ir::Dim> dimOf(const Item &item) {
    if (item.kind == Item::Kind::Dim)
      return item.dim;
    TC_ASSIGN_OR_RETURN(int64_t value, intOf(item));
    return ir::Dim(value);
  }
  Expected<bool> truth(const Item &item) {
    if (item.kind == Item::Kind::None)
      return false;
    if (item.isScalar())
      return item.number != 0;
    if (item.kind == Item::Kind::List)
      return !item.list.empty();
    if (item.kind == Item::Kind::String)
      return !item.text.empty();
    return fail("a condition must be known at compile time, got " +
                std::string(kindName(item.kind)));
  }

  /// PyTorch's result_type over operands: dimensioned tensors > 0-d tensors > Python scalars,
  /// where a lower class only lifts the category (bool < integer < floating).
  DType resultType(const std::vector<Item> &items) {
    std::optional<DType> dimensioned, zeroDim;
    int scalarCategory = -1;
    for (const Item &item : items) {
      if (item.kind == Item::Kind::Tensor) {
        DType dtype = item.tensor->type().dtype;
        std::optional<DType> &slot = item.tensor->type().rank() == 0 ? zeroDim : dimensioned;
        slot = slot ? ir::promoteTypes(*slot, dtype) : dtype;
      } else if (item.isScalar()) {
        scalarCategory = std::max(scalarCategory, category(item));
      }
    }
    std::optional<DType> result = dimensioned;
    if (zeroDim) {
      if (!result)
        result = zeroDim;
      else if (category(*zeroDim) > category(*result))
        result = category(*zeroDim) == 2 ? *zeroDim : ir::promoteTypes(*result, *zeroDim);
    }
    if (!result)
      return scalarCategory == 2 ? DType::F32 : scalarCategory == 1 ? DType::I64 : DType::Bool;
    if (scalarCategory > category(*result))
      return scalarCategory == 2 ? DType::F32 : DType::I64;
    return *result;
  }

  // ---- expressions ----

  Expected<Item> eval(const Expr &expr) {
    switch (expr.kind) {
    case Expr::Kind::Number:
      return Item::ofNumber(expr.number, expr.isFloat ? Item::Kind::Float : Item::Kind::Int);
    case Expr::Kind::String: {
      Item item;
      item.kind = Item::Kind::String;
      item.text = expr.text;
      return item;
    }
    case Expr::Kind::Name:
      return lookup(expr.text);
    case Expr::Kind::List: {
      Item list;
      list.kind = Item::Kind::List;
      for (const Expr &element : expr.args) {
        TC_ASSIGN_OR_RETURN(Item value, eval(element));
        list.list.push_back(std::move(value));
      }
      return list;
    }
    case Expr::Kind::Comprehension: {
      TC_ASSIGN_OR_RETURN(Item source, eval(expr.args[1]));
      if (source.kind != Item::Kind::List)
        return bug("'for' over " + std::string(kindName(source.kind)));
      std::optional<Item> saved;
      if (auto it = locals_.find(expr.text); it != locals_.end())
        saved = it->second;
      Item list;
      list.kind = Item::Kind::List;
      for (const Item &element : source.list) {
        locals_[expr.text] = element;
        TC_ASSIGN_OR_RETURN(Item value, eval(expr.args[0]));
        list.list.push_back(std::move(value));
      }
      if (saved)
        locals_[expr.text] = *saved;
      else
        locals_.erase(expr.text);
      return list;
    }
    case Expr::Kind::Subscript: {
      TC_ASSIGN_OR_RETURN(Item base, eval(expr.args[0]));
      if (base.kind != Item::Kind::List)
        return bug("subscript of " + std::string(kindName(base.kind)));
      int64_t n = static_cast<int64_t>(base.list.size());
      auto bound = [&](const Item &item, int64_t fallback) -> Expected<int64_t> {
        if (item.kind == Item::Kind::None)
          return fallback;
        TC_ASSIGN_OR_RETURN(int64_t value, intOf(item));
        return std::clamp<int64_t>(value < 0 ? value + n : value, 0, n);
      };
      TC_ASSIGN_OR_RETURN(Item first, eval(expr.args[1]));
      if (expr.text != ":") {
        TC_ASSIGN_OR_RETURN(int64_t i, intOf(first));
        if (i < -n || i >= n)
          return fail("index " + std::to_string(i) + " of a list of " + std::to_string(n));
        return base.list[i < 0 ? i + n : i];
      }
      TC_ASSIGN_OR_RETURN(Item last, eval(expr.args[2]));
      TC_ASSIGN_OR_RETURN(int64_t begin, bound(first, 0));
      TC_ASSIGN_OR_RETURN(int64_t end, bound(last, n));
      Item slice;
      slice.kind = Item::Kind::List;
      for (int64_t i = begin; i < end; ++i)
        slice.list.push_back(base.list[i]);
      return slice;
    }
    case Expr::Kind::Ternary: {
      TC_ASSIGN_OR_RETURN(Item condition, eval(expr.args[0]));
      TC_ASSIGN_OR_RETURN(bool taken, truth(condition));
      return eval(expr.args[taken ? 1 : 2]);
    }
    case Expr::Kind::IsNone: {
      TC_ASSIGN_OR_RETURN(Item value, eval(expr.args[0]));
      bool none = value.kind == Item::Kind::None;
      return Item::ofNumber((expr.text == "is") == none ? 1 : 0, Item::Kind::Bool);
    }
    case Expr::Kind::Unary: {
      TC_ASSIGN_OR_RETURN(Item value, eval(expr.args[0]));
      if (expr.text == "not") {
        if (value.kind == Item::Kind::Tensor)
          return emit(OpKind::LogicalNot, {value}, {});
        TC_ASSIGN_OR_RETURN(bool taken, truth(value));
        return Item::ofNumber(taken ? 0 : 1, Item::Kind::Bool);
      }
      if (value.isScalar())
        return Item::ofNumber(-value.number, value.kind == Item::Kind::Bool ? Item::Kind::Int
                                                                             : value.kind);
      return emit(OpKind::Neg, {value}, {});
    }
    case Expr::Kind::Binary: {
      TC_ASSIGN_OR_RETURN(Item lhs, eval(expr.args[0]));
      TC_ASSIGN_OR_RETURN(Item rhs, eval(expr.args[1]));
      return binary(expr.text, lhs, rhs);
    }
    case Expr::Kind::Call:
      return call(expr);
    }
    return bug("unknown expression");
  }

  Expected<Item> binary(const std::string &op, const Item &lhs, const Item &rhs) {
    if (lhs.isScalar() && rhs.isScalar())
      return foldBinary(op, lhs, rhs);
    if (lhs.kind == Item::Kind::String || rhs.kind == Item::Kind::String ||
        lhs.kind == Item::Kind::None || rhs.kind == Item::Kind::None) {
      if (op != "==" && op != "!=")
        return bug("operator " + op + " on " + std::string(kindName(lhs.kind)));
      bool equal = lhs.kind == rhs.kind && lhs.text == rhs.text;
      return Item::ofNumber(equal == (op == "==") ? 1 : 0, Item::Kind::Bool);
    }
    if (lhs.kind == Item::Kind::List && rhs.kind == Item::Kind::List && op == "+") {
      Item joined = lhs;
      joined.list.insert(joined.list.end(), rhs.list.begin(), rhs.list.end());
      return joined;
    }
    if (lhs.kind == Item::Kind::Dim || rhs.kind == Item::Kind::Dim) {
      TC_ASSIGN_OR_RETURN(ir::Dim a, dimOf(lhs));
      TC_ASSIGN_OR_RETURN(ir::Dim b, dimOf(rhs));
      if (op == "==" || op == "!=")
        return Item::ofNumber((a == b) == (op == "==") ? 1 : 0, Item::Kind::Bool);
      if (op == "+")
        return Item::ofDim(ir::Dim(ir::SymExpr::add(a.asExpr(), b.asExpr())));
      if (op == "-")
        return Item::ofDim(ir::Dim(ir::SymExpr::add(
            a.asExpr(), ir::SymExpr::mul(ir::SymExpr::constant(-1), b.asExpr()))));
      if (op == "*")
        return Item::ofDim(ir::Dim(ir::SymExpr::mul(a.asExpr(), b.asExpr())));
      if (op == "//")
        return Item::ofDim(ir::Dim(ir::SymExpr::floorDiv(a.asExpr(), b.asExpr())));
      return fail("operator " + op + " on a symbolic size");
    }
    static const std::map<std::string, OpKind, std::less<>> kOps = {
        {"+", OpKind::Add}, {"-", OpKind::Sub}, {"*", OpKind::Mul}, {"/", OpKind::Div},
        {"**", OpKind::Pow}, {"//", OpKind::FloorDivide}, {"==", OpKind::Eq}, {"!=", OpKind::Ne}, {"<", OpKind::Lt},
        {"<=", OpKind::Le}, {">", OpKind::Gt}, {">=", OpKind::Ge}, {"&", OpKind::LogicalAnd},
        {"|", OpKind::LogicalOr}};
    auto it = kOps.find(op);
    if (it == kOps.end())
      return bug("operator " + op);
    return emit(it->second, {lhs, rhs}, {});
  }

  Expected<Item> foldBinary(const std::string &op, const Item &lhs, const Item &rhs) {
    double a = lhs.number, b = rhs.number;
    Item::Kind kind = std::max(category(lhs), category(rhs)) == 2 ? Item::Kind::Float
                                                                   : Item::Kind::Int;
    auto number = [&](double value, Item::Kind k) { return Item::ofNumber(value, k); };
    auto boolean = [&](bool value) { return Item::ofNumber(value ? 1 : 0, Item::Kind::Bool); };
    if (op == "+") return number(a + b, kind);
    if (op == "-") return number(a - b, kind);
    if (op == "*") return number(a * b, kind);
    if (op == "/") return number(a / b, Item::Kind::Float);
    if (op == "//") return number(std::floor(a / b), kind);
    if (op == "**") return number(std::pow(a, b), kind);
    if (op == "==") return boolean(a == b);
    if (op == "!=") return boolean(a != b);
    if (op == "<") return boolean(a < b);
    if (op == "<=") return boolean(a <= b);
    if (op == ">") return boolean(a > b);
    if (op == ">=") return boolean(a >= b);
    if (op == "&") return boolean(a != 0 && b != 0);
    if (op == "|") return boolean(a != 0 || b != 0);
    return bug("operator " + op);
  }

  /// Emits IR op `op` with PyTorch's operand conversions: elementwise operands in their
  /// result_type (a comparison's in theirs, where's condition as bool; logical ops in bool);
  /// a float-only op of an integer tensor computes in f32, as PyTorch's do.
  Expected<Item> emit(OpKind op, std::vector<Item> operands, ir::AttrMap attrs) {
    const ir::OpInfo &info = ir::opInfo(op);
    std::vector<Value *> values;
    bool elementwise = info.family == ir::OpFamily::Unary || info.family == ir::OpFamily::Binary ||
                       info.family == ir::OpFamily::Ternary;
    if (op == OpKind::LogicalAnd || op == OpKind::LogicalOr || op == OpKind::LogicalXor ||
        op == OpKind::LogicalNot) {
      for (const Item &operand : operands) {
        TC_ASSIGN_OR_RETURN(Value * value, asTensor(operand, DType::Bool));
        values.push_back(value);
      }
    } else if (op == OpKind::Where) {
      if (operands.size() != 3)
        return bug("where takes 3 operands");
      TC_ASSIGN_OR_RETURN(Value * condition, asTensor(operands[0], DType::Bool));
      DType dtype = resultType({operands[1], operands[2]});
      TC_ASSIGN_OR_RETURN(Value * a, asTensor(operands[1], dtype));
      TC_ASSIGN_OR_RETURN(Value * b, asTensor(operands[2], dtype));
      values = {condition, a, b};
    } else if (elementwise || op == OpKind::Matmul || op == OpKind::Concat ||
               op == OpKind::Addmm || op == OpKind::Linear) {
      DType dtype = resultType(operands);
      if (op == OpKind::Div && !ir::isFloatingPoint(dtype))
        dtype = DType::F32;
      if (info.dtypeRule == ir::DTypeRule::Floating && !ir::isFloatingPoint(dtype))
        dtype = DType::F32;
      for (const Item &operand : operands) {
        TC_ASSIGN_OR_RETURN(Value * value, asTensor(operand, dtype));
        values.push_back(value);
      }
    } else {
      for (const Item &operand : operands) {
        TC_ASSIGN_OR_RETURN(Value * value, tensorOf(operand));
        if (info.dtypeRule == ir::DTypeRule::Floating &&
            !ir::isFloatingPoint(value->type().dtype))
          value = node_.castTo(value, DType::F32);
        values.push_back(value);
      }
    }
    TC_ASSIGN_OR_RETURN(Value * result, node_.emitInferred(op, std::move(values), std::move(attrs)));
    return Item::ofTensor(result);
  }

  Expected<ir::AttrValue> attribute(const ir::AttrSpec &spec, const Item &item) {
    switch (spec.type) {
    case ir::AttrType::Int: {
      TC_ASSIGN_OR_RETURN(int64_t value, intOf(item));
      return ir::AttrValue(value);
    }
    case ir::AttrType::Float:
      if (!item.isScalar())
        return fail("attribute '" + spec.name + "' wants a number");
      return ir::AttrValue(item.number);
    case ir::AttrType::Bool: {
      TC_ASSIGN_OR_RETURN(bool value, truth(item));
      return ir::AttrValue(value);
    }
    case ir::AttrType::Str:
      if (item.kind != Item::Kind::String)
        return fail("attribute '" + spec.name + "' wants a string");
      return ir::AttrValue(item.text);
    case ir::AttrType::DType: {
      std::optional<DType> dtype =
          item.kind == Item::Kind::String ? ir::parseDType(item.text) : std::nullopt;
      if (!dtype)
        return fail("attribute '" + spec.name + "' wants a dtype name");
      return ir::AttrValue(*dtype);
    }
    case ir::AttrType::Dim: {
      TC_ASSIGN_OR_RETURN(ir::Dim dim, dimOf(item));
      return ir::makeDimAttr(dim);
    }
    case ir::AttrType::Ints:
    case ir::AttrType::Dims:
    case ir::AttrType::Floats: {
      std::vector<Item> elements =
          item.kind == Item::Kind::List ? item.list : std::vector<Item>{item};
      if (spec.type == ir::AttrType::Floats) {
        std::vector<double> values;
        for (const Item &element : elements)
          values.push_back(element.number);
        return ir::AttrValue(values);
      }
      std::vector<ir::Dim> dims;
      for (const Item &element : elements) {
        TC_ASSIGN_OR_RETURN(ir::Dim dim, dimOf(element));
        dims.push_back(dim);
      }
      if (spec.type == ir::AttrType::Dims)
        return ir::makeDimsAttr(dims);
      std::vector<int64_t> ints;
      for (const ir::Dim &dim : dims) {
        if (!dim.isStatic())
          return fail("attribute '" + spec.name + "' of symbolic sizes");
        ints.push_back(dim.value());
      }
      return ir::AttrValue(ints);
    }
    }
    return bug("attribute type");
  }

  /// items[0] expanded to the broadcast shape of every item.
  Expected<Item> broadcastTo(const std::vector<Item> &items) {
    ir::Shape shape;
    for (const Item &item : items) {
      TC_ASSIGN_OR_RETURN(Value * value, tensorOf(item));
      Expected<std::vector<ir::TensorType>> joined = ir::inferResultTypes(
          OpKind::Add, {ir::TensorType{DType::F32, shape}, ir::TensorType{DType::F32, value->type().shape}},
          {}, {});
      if (!joined.ok())
        return std::move(joined).error().withContext("node '" + node_.name() + "'");
      shape = joined.value().front().shape;
    }
    if (items[0].tensor->type().shape == shape)
      return items[0];
    ir::AttrMap attrs;
    attrs.set("shape", ir::makeDimsAttr(std::vector<ir::Dim>(shape.begin(), shape.end())));
    return emit(OpKind::Expand, {items[0]}, std::move(attrs));
  }

  // ---- calls: builtins, then IR ops by name ----

  Expected<Item> call(const Expr &expr) {
    std::vector<Item> args;
    std::map<std::string, Item> keywords;
    for (size_t i = 0; i < expr.args.size(); ++i) {
      TC_ASSIGN_OR_RETURN(Item value, eval(expr.args[i]));
      if (expr.keywords[i].empty())
        args.push_back(std::move(value));
      else
        keywords[expr.keywords[i]] = std::move(value);
    }
    const std::string &name = expr.text;
    auto need = [&](size_t count) -> Status {
      if (args.size() != count)
        return bug(name + " takes " + std::to_string(count) + " arguments");
      return Status::success();
    };
    auto rankOf = [&](const Item &item) -> Expected<int64_t> {
      TC_ASSIGN_OR_RETURN(Value * value, tensorOf(item));
      return value->type().rank();
    };
    if (name == "rank") {
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(int64_t rank, rankOf(args[0]));
      return Item::ofNumber(static_cast<double>(rank), Item::Kind::Int);
    }
    if (name == "dim" || name == "size") {
      // dim(x, d): d normalized against x's rank; size(x, d): x's size along d.
      TC_TRY(need(2));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      TC_ASSIGN_OR_RETURN(int64_t d, intOf(args[1]));
      TC_ASSIGN_OR_RETURN(int64_t normalized, normalizedDim(node_, d, x->type().rank()));
      if (name == "dim")
        return Item::ofNumber(static_cast<double>(normalized), Item::Kind::Int);
      if (x->type().rank() == 0)
        return Item::ofNumber(1, Item::Kind::Int);
      return Item::ofDim(x->type().shape[normalized]);
    }
    if (name == "dims") {
      // dims(x, d): an int, a list or None (None and [] mean every dim), normalized, sorted.
      TC_TRY(need(2));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      std::vector<int64_t> dims;
      if (args[1].kind == Item::Kind::List) {
        for (const Item &element : args[1].list) {
          TC_ASSIGN_OR_RETURN(int64_t d, intOf(element));
          dims.push_back(d);
        }
      } else if (args[1].kind != Item::Kind::None) {
        TC_ASSIGN_OR_RETURN(int64_t d, intOf(args[1]));
        dims.push_back(d);
      }
      TC_ASSIGN_OR_RETURN(dims, normalizedDims(node_, dims, x->type().rank()));
      Item list;
      list.kind = Item::Kind::List;
      for (int64_t d : dims)
        list.list.push_back(Item::ofNumber(static_cast<double>(d), Item::Kind::Int));
      return list;
    }
    if (name == "shape") {
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      Item list;
      list.kind = Item::Kind::List;
      for (const ir::Dim &d : x->type().shape)
        list.list.push_back(Item::ofDim(d));
      return list;
    }
    if (name == "len") {
      TC_TRY(need(1));
      if (args[0].kind != Item::Kind::List)
        return fail("len of " + std::string(kindName(args[0].kind)));
      return Item::ofNumber(static_cast<double>(args[0].list.size()), Item::Kind::Int);
    }
    if (name == "item") {
      // item(list, i): element i of a list (negative counts from the end).
      TC_TRY(need(2));
      TC_ASSIGN_OR_RETURN(int64_t i, intOf(args[1]));
      int64_t n = static_cast<int64_t>(args[0].list.size());
      if (args[0].kind != Item::Kind::List || i < -n || i >= n)
        return fail("item " + std::to_string(i) + " of " + std::string(kindName(args[0].kind)));
      return args[0].list[i < 0 ? i + n : i];
    }
    if (name == "dtype") {
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      Item item;
      item.kind = Item::Kind::String;
      item.text = std::string(ir::dtypeName(x->type().dtype));
      return item;
    }
    if (name == "out_dtype") {
      // out_dtype(i): the dtype of the exported node's output i.
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(int64_t i, intOf(args[0]));
      TC_ASSIGN_OR_RETURN(ir::TensorType out, node_.outputType(static_cast<int>(i)));
      Item item;
      item.kind = Item::Kind::String;
      item.text = std::string(ir::dtypeName(out.dtype));
      return item;
    }
    if (name == "is_float" || name == "is_int" || name == "is_bool") {
      // The category of a tensor's dtype (or of a scalar).
      TC_TRY(need(1));
      int c = category(args[0]);
      int want = name == "is_float" ? 2 : name == "is_int" ? 1 : 0;
      return Item::ofNumber(c == want ? 1 : 0, Item::Kind::Bool);
    }
    if (name == "cast") {
      // cast(x, "f32") or cast(x, dtype(y)); a scalar becomes a 0-d tensor of that dtype.
      TC_TRY(need(2));
      std::optional<DType> dtype =
          args[1].kind == Item::Kind::String ? ir::parseDType(args[1].text) : std::nullopt;
      if (!dtype)
        return bug("cast wants a dtype name");
      TC_ASSIGN_OR_RETURN(Value * value, asTensor(args[0], *dtype));
      return Item::ofTensor(value);
    }
    if (name == "float") {
      // The tensor in f32 unless it is floating already (PyTorch's int -> float promotion).
      TC_TRY(need(1));
      if (args[0].isScalar())
        return Item::ofNumber(args[0].number, Item::Kind::Float);
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      return Item::ofTensor(ir::isFloatingPoint(x->type().dtype) ? x
                                                                 : node_.castTo(x, DType::F32));
    }
    if (name == "full_like") {
      // full_like(x, value[, dtype]): x's shape, filled.
      if (args.size() < 2 || args.size() > 3)
        return bug("full_like takes 2 or 3 arguments");
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      if (!args[1].isScalar())
        return fail("full_like of a non-constant value");
      ir::TensorType type = x->type();
      if (args.size() == 3) {
        std::optional<DType> dtype = ir::parseDType(args[2].text);
        if (args[2].kind != Item::Kind::String || !dtype)
          return bug("full_like wants a dtype name");
        type.dtype = *dtype;
      }
      ir::AttrMap attrs;
      attrs.set("value", args[1].number);
      return Item::ofTensor(node_.emitTemp(OpKind::Full, {}, type, std::move(attrs)));
    }
    if (name == "transpose") {
      // transpose(x, a, b): the permutation swapping dims a and b.
      TC_TRY(need(3));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      int64_t rank = x->type().rank();
      TC_ASSIGN_OR_RETURN(int64_t a, intOf(args[1]));
      TC_ASSIGN_OR_RETURN(int64_t b, intOf(args[2]));
      TC_ASSIGN_OR_RETURN(a, normalizedDim(node_, a, rank));
      TC_ASSIGN_OR_RETURN(b, normalizedDim(node_, b, rank));
      if (rank < 2 || a == b)
        return Item::ofTensor(x);
      std::vector<int64_t> perm(rank);
      for (int64_t i = 0; i < rank; ++i)
        perm[i] = i;
      std::swap(perm[a], perm[b]);
      ir::AttrMap attrs;
      attrs.set("dims", perm);
      return emit(OpKind::Permute, {args[0]}, std::move(attrs));
    }
    if (name == "broadcast") {
      // broadcast(x, y...): x expanded to the broadcast shape of all arguments.
      if (args.empty())
        return bug("broadcast takes arguments");
      return broadcastTo(args);
    }
    if (name == "broadcast_all") {
      // broadcast_all([x, y, ...]): every tensor expanded to their common broadcast shape.
      TC_TRY(need(1));
      if (args[0].kind != Item::Kind::List)
        return bug("broadcast_all wants a list");
      Item list;
      list.kind = Item::Kind::List;
      for (const Item &x : args[0].list) {
        std::vector<Item> all{x};
        all.insert(all.end(), args[0].list.begin(), args[0].list.end());
        TC_ASSIGN_OR_RETURN(Item expanded, broadcastTo(all));
        list.list.push_back(std::move(expanded));
      }
      return list;
    }
    if (name == "meshgrid") {
      // meshgrid([x0, x1, ...], indexing): torch.meshgrid of 0-d or 1-d tensors.
      TC_TRY(need(2));
      if (args[0].kind != Item::Kind::List || args[1].kind != Item::Kind::String)
        return bug("meshgrid wants a list and an indexing string");
      std::vector<Value *> inputs;
      for (const Item &x : args[0].list) {
        TC_ASSIGN_OR_RETURN(Value * value, tensorOf(x));
        if (value->type().rank() > 1)
          return fail("meshgrid of a " + std::to_string(value->type().rank()) + "-d tensor");
        inputs.push_back(value);
      }
      bool xy = args[1].text == "xy" && inputs.size() >= 2;
      if (xy)
        std::swap(inputs[0], inputs[1]);
      std::vector<ir::Dim> shape;
      for (Value *value : inputs)
        shape.push_back(value->type().rank() == 0 ? ir::Dim(1) : value->type().shape[0]);
      Item list;
      list.kind = Item::Kind::List;
      for (size_t i = 0; i < inputs.size(); ++i) {
        std::vector<ir::Dim> column(shape.size(), ir::Dim(1));
        column[i] = shape[i];
        ir::AttrMap reshape, expand;
        reshape.set("shape", ir::makeDimsAttr(column));
        expand.set("shape", ir::makeDimsAttr(shape));
        TC_ASSIGN_OR_RETURN(Value * grid,
                            node_.emitInferred(OpKind::Reshape, {inputs[i]}, std::move(reshape)));
        TC_ASSIGN_OR_RETURN(grid, node_.emitInferred(OpKind::Expand, {grid}, std::move(expand)));
        if (xy) {
          std::vector<int64_t> perm(shape.size());
          for (size_t d = 0; d < perm.size(); ++d)
            perm[d] = static_cast<int64_t>(d);
          std::swap(perm[0], perm[1]);
          ir::AttrMap permute;
          permute.set("dims", perm);
          TC_ASSIGN_OR_RETURN(grid, node_.emitInferred(OpKind::Permute, {grid}, std::move(permute)));
        }
        list.list.push_back(Item::ofTensor(grid));
      }
      if (xy)
        std::swap(list.list[0], list.list[1]);
      return list;
    }
    if (name == "reduce") {
      // reduce(x, reduction): a loss's reduction (0 none, 1 mean, 2 sum over every element).
      TC_TRY(need(2));
      TC_ASSIGN_OR_RETURN(int64_t reduction, intOf(args[1]));
      if (reduction == 0)
        return args[0];
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      std::vector<int64_t> all(static_cast<size_t>(x->type().rank()));
      for (size_t i = 0; i < all.size(); ++i)
        all[i] = static_cast<int64_t>(i);
      ir::AttrMap attrs;
      attrs.set("dims", all);
      attrs.set("keepdim", false);
      if (reduction == 1 || reduction == 2)
        return emit(reduction == 1 ? OpKind::Mean : OpKind::Sum, {args[0]}, std::move(attrs));
      return fail("reduction " + std::to_string(reduction));
    }
    if (name == "find_dim") {
      // find_dim(x, n): the first dim of x of size n (cross's dim=None).
      TC_TRY(need(2));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      TC_ASSIGN_OR_RETURN(int64_t n, intOf(args[1]));
      for (int64_t d = 0; d < x->type().rank(); ++d) {
        const ir::Dim &size = x->type().shape[d];
        if (size.isStatic() && size.value() == n)
          return Item::ofNumber(static_cast<double>(d), Item::Kind::Int);
      }
      return fail("no dimension of size " + std::to_string(n));
    }
    if (name == "min" || name == "max") {
      // min(a, b) / max(a, b) of compile-time numbers.
      TC_TRY(need(2));
      if (!args[0].isScalar() || !args[1].isScalar())
        return bug(name + " of non-numbers");
      bool first = name == "min" ? args[0].number <= args[1].number
                                 : args[0].number >= args[1].number;
      return first ? args[0] : args[1];
    }
    if (name == "finfo_max") {
      // finfo_max(x): torch.finfo(x.dtype).max (f32's for a non-floating x).
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      DType dtype = x->type().dtype;
      double max = dtype == DType::F64    ? std::numeric_limits<double>::max()
                   : dtype == DType::F16  ? 65504.0
                   : dtype == DType::BF16 ? 3.3895313892515355e+38
                                          : static_cast<double>(std::numeric_limits<float>::max());
      return Item::ofNumber(max, Item::Kind::Float);
    }
    if (name == "finfo_eps") {
      // finfo_eps(x): torch.finfo(x.dtype).eps (f32 for a non-floating x).
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      DType dtype = x->type().dtype;
      double eps = dtype == DType::F64   ? 2.220446049250313e-16
                   : dtype == DType::F16 ? 0.0009765625
                   : dtype == DType::BF16 ? 0.0078125
                                          : 1.1920928955078125e-07;
      return Item::ofNumber(eps, Item::Kind::Float);
    }
    if (name == "zeros") {
      // zeros(size, dtype): a tensor of zeros.
      TC_TRY(need(2));
      std::optional<DType> dtype =
          args[1].kind == Item::Kind::String ? ir::parseDType(args[1].text) : std::nullopt;
      if (args[0].kind != Item::Kind::List || !dtype)
        return bug("zeros wants a size list and a dtype name");
      ir::Shape shape;
      for (const Item &d : args[0].list) {
        TC_ASSIGN_OR_RETURN(ir::Dim dim, dimOf(d));
        shape.push_back(dim);
      }
      ir::AttrMap attrs;
      attrs.set("value", 0.0);
      return Item::ofTensor(
          node_.emitTemp(OpKind::Full, {}, ir::TensorType{*dtype, shape}, std::move(attrs)));
    }
    if (name == "factorial") {
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(int64_t n, intOf(args[0]));
      double value = 1;
      for (int64_t i = 2; i <= n; ++i)
        value *= static_cast<double>(i);
      return Item::ofNumber(value, Item::Kind::Float);
    }
    if (name == "range") {
      // range(n): [0, 1, ..., n-1]; range(a, b): [a, ..., b-1].
      if (args.empty() || args.size() > 2)
        return bug("range takes 1 or 2 arguments");
      TC_ASSIGN_OR_RETURN(int64_t first, intOf(args.size() == 2 ? args[0] : Item::ofNumber(0, Item::Kind::Int)));
      TC_ASSIGN_OR_RETURN(int64_t last, intOf(args.back()));
      Item list;
      list.kind = Item::Kind::List;
      for (int64_t i = first; i < last; ++i)
        list.list.push_back(Item::ofNumber(static_cast<double>(i), Item::Kind::Int));
      return list;
    }
    if (name == "reversed") {
      TC_TRY(need(1));
      if (args[0].kind != Item::Kind::List)
        return bug("reversed wants a list");
      Item list = args[0];
      std::reverse(list.list.begin(), list.list.end());
      return list;
    }
    if (name == "numel") {
      // numel(x): the element count (possibly symbolic).
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      return Item::ofDim(ir::numElements(x->type().shape));
    }
    if (name == "flatten") {
      // flatten(x): x as a 1-d tensor (a 0-d one becomes [1]).
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      ir::AttrMap attrs;
      attrs.set("shape", ir::makeDimsAttr({ir::numElements(x->type().shape)}));
      return emit(OpKind::Reshape, {args[0]}, std::move(attrs));
    }
    if (name == "prefix_scan") {
      // prefix_scan(x, dim, "prod" | "max" | "min"): the running product (values) or the
      // running max / min with the index where it was reached ([values, indices], PyTorch's
      // cummax/cummin: a NaN wins, and on ties the later index). A log-depth scan
      // (Hillis-Steele): ceil(log2(n)) steps each combine every element with the one 2^k
      // before it, so the dim must be static.
      TC_TRY(need(3));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      if (args[2].kind != Item::Kind::String)
        return bug("prefix_scan wants a kind");
      const std::string kind = args[2].text;
      if (kind != "prod" && kind != "max" && kind != "min")
        return bug("prefix_scan kind " + kind);
      const bool withIndices = kind != "prod";
      if (x->type().rank() == 0) {
        if (!withIndices)
          return Item::ofTensor(x);
        Item list;
        list.kind = Item::Kind::List;
        list.list = {Item::ofTensor(x), Item::ofTensor(node_.scalarConstant(0.0, DType::I64))};
        return list;
      }
      TC_ASSIGN_OR_RETURN(int64_t dim, intOf(args[1]));
      TC_ASSIGN_OR_RETURN(dim, normalizedDim(node_, dim, x->type().rank()));
      const ir::Dim extent = x->type().shape[static_cast<size_t>(dim)];
      if (!extent.isStatic())
        return fail("cumprod/cummax/cummin over the symbolic dim " + extent.str());
      const int64_t n = extent.value();
      // The positions before the first element: 1 for a product; for max/min an index of -1,
      // which never wins (so no value of the dtype need be one that never wins).
      const double fill = withIndices ? 0.0 : 1.0;
      auto slice = [&](Value *value, int64_t start, int64_t end) {
        ir::AttrMap attrs;
        attrs.set("dim", dim);
        attrs.set("start", start);
        attrs.set("end", ir::makeDimAttr(ir::Dim(end)));
        attrs.set("step", int64_t{1});
        return node_.emitInferred(OpKind::Slice, {value}, std::move(attrs));
      };
      // value shifted by k along dim, the first k positions `with`.
      auto shifted = [&](Value *value, int64_t k, double with) -> Expected<Value *> {
        TC_ASSIGN_OR_RETURN(Value * head, slice(value, 0, k));
        ir::AttrMap full;
        full.set("value", with);
        Value *filler = node_.emitTemp(OpKind::Full, {}, head->type(), std::move(full));
        TC_ASSIGN_OR_RETURN(Value * body, slice(value, 0, n - k));
        ir::AttrMap concat;
        concat.set("dim", dim);
        return node_.emitInferred(OpKind::Concat, {filler, body}, std::move(concat));
      };
      Value *values = x;
      Value *indices = nullptr;
      if (withIndices) {
        ir::AttrMap range;
        range.set("start", 0.0);
        range.set("step", 1.0);
        Value *line = node_.emitTemp(OpKind::Arange, {}, ir::TensorType{DType::I64, {extent}},
                                     std::move(range));
        ir::Shape lined(x->type().shape.size(), ir::Dim(1));
        lined[static_cast<size_t>(dim)] = extent;
        ir::AttrMap reshape;
        reshape.set("shape", lined);
        TC_ASSIGN_OR_RETURN(line, node_.emitInferred(OpKind::Reshape, {line}, std::move(reshape)));
        ir::AttrMap expand;
        expand.set("shape", x->type().shape);
        TC_ASSIGN_OR_RETURN(indices, node_.emitInferred(OpKind::Expand, {line}, std::move(expand)));
      }
      Value *zero = withIndices ? node_.scalarConstant(0.0, DType::I64) : nullptr;
      for (int64_t k = 1; k < n; k *= 2) {
        TC_ASSIGN_OR_RETURN(Value * before, shifted(values, k, fill));
        if (!withIndices) {
          TC_ASSIGN_OR_RETURN(values, node_.emitInferred(OpKind::Mul, {values, before}));
          continue;
        }
        TC_ASSIGN_OR_RETURN(Value * beforeIndex, shifted(indices, k, -1.0));
        TC_ASSIGN_OR_RETURN(Value * nan, node_.emitInferred(OpKind::IsNan, {values}));
        TC_ASSIGN_OR_RETURN(Value * wins,
                            node_.emitInferred(kind == "max" ? OpKind::Ge : OpKind::Le,
                                               {values, before}));
        TC_ASSIGN_OR_RETURN(Value * take, node_.emitInferred(OpKind::LogicalOr, {nan, wins}));
        TC_ASSIGN_OR_RETURN(Value * first, node_.emitInferred(OpKind::Lt, {beforeIndex, zero}));
        TC_ASSIGN_OR_RETURN(take, node_.emitInferred(OpKind::LogicalOr, {take, first}));
        TC_ASSIGN_OR_RETURN(values, node_.emitInferred(OpKind::Where, {take, values, before}));
        TC_ASSIGN_OR_RETURN(indices,
                            node_.emitInferred(OpKind::Where, {take, indices, beforeIndex}));
      }
      if (!withIndices)
        return Item::ofTensor(values);
      Item list;
      list.kind = Item::Kind::List;
      list.list = {Item::ofTensor(values), Item::ofTensor(indices)};
      return list;
    }
    if (name == "iota") {
      // iota(n): the i64 vector 0, 1, ..., n-1 (n may be symbolic).
      TC_TRY(need(1));
      TC_ASSIGN_OR_RETURN(ir::Dim n, dimOf(args[0]));
      ir::AttrMap attrs;
      attrs.set("start", 0.0);
      attrs.set("step", 1.0);
      return Item::ofTensor(node_.emitTemp(OpKind::Arange, {}, ir::TensorType{DType::I64, {n}},
                                           std::move(attrs)));
    }
    if (name == "expand_to") {
      // expand_to(x, size): torch's expand (-1 keeps a dim; new dims lead).
      TC_TRY(need(2));
      TC_ASSIGN_OR_RETURN(Value * x, tensorOf(args[0]));
      if (args[1].kind != Item::Kind::List)
        return bug("expand_to wants a size list");
      const ir::Shape &from = x->type().shape;
      int64_t rank = static_cast<int64_t>(args[1].list.size());
      int64_t lead = rank - static_cast<int64_t>(from.size());
      if (lead < 0)
        return fail("expand to fewer dims than the tensor has");
      std::vector<ir::Dim> shape;
      for (int64_t i = 0; i < rank; ++i) {
        TC_ASSIGN_OR_RETURN(ir::Dim d, dimOf(args[1].list[i]));
        if (d.isStatic() && d.value() == -1) {
          if (i < lead)
            return fail("expand with -1 for a new leading dim");
          d = from[i - lead];
        }
        shape.push_back(d);
      }
      ir::AttrMap attrs;
      attrs.set("shape", ir::makeDimsAttr(shape));
      return emit(OpKind::Expand, {args[0]}, std::move(attrs));
    }
    if (name == "unsupported") {
      // unsupported("why"): this case of the op is not compiled (a clear Unsupported error).
      TC_TRY(need(1));
      return fail(args[0].text);
    }

    std::optional<OpKind> op = ir::findOp(name);
    if (!op)
      return bug("unknown function '" + name + "'");
    const ir::OpInfo &info = ir::opInfo(*op);
    ir::AttrMap attrs;
    for (const auto &[keyword, value] : keywords) {
      const ir::AttrSpec *spec = nullptr;
      for (const ir::AttrSpec &candidate : info.attributes)
        if (candidate.name == keyword)
          spec = &candidate;
      if (spec == nullptr)
        return bug(name + " has no attribute '" + keyword + "'");
      if (value.kind == Item::Kind::None)
        continue;
      TC_ASSIGN_OR_RETURN(ir::AttrValue attr, attribute(*spec, value));
      attrs.set(keyword, std::move(attr));
    }
    // A required bool attribute left out is false (keepdim).
    for (const ir::AttrSpec &spec : info.attributes)
      if (spec.type == ir::AttrType::Bool && !spec.optional && !keywords.count(spec.name))
        attrs.set(spec.name, false);
    // A list among the operands spreads into them (concat([a, b], dim=0)).
    std::vector<Item> operands;
    for (Item &arg : args) {
      if (arg.kind == Item::Kind::List)
        operands.insert(operands.end(), arg.list.begin(), arg.list.end());
      else
        operands.push_back(std::move(arg));
    }
    return emit(*op, std::move(operands), std::move(attrs));
  }

  NodeImport &node_;
  std::string_view target_;
  std::map<std::string, Item> locals_;
  std::map<std::string, const Expr *> pending_; ///< statements not read yet
};

Status importDecomposed(NodeImport &node) {
  std::string target =
      node.schema().space + "." + node.schema().name + "." + node.schema().overload;
  for (const Entry &entry : kEntries) {
    if (entry.target != target || entry.alias.empty())
      continue;
    const OpSchema *schema = findOpSchema(entry.alias);
    ImportFunction same = findImportFunction(entry.alias);
    TC_CHECK(schema != nullptr && same != nullptr && same != importDecomposed,
             "frontend/aten/decompositions.def: " + target + " aliases " +
                 std::string(entry.alias) + ", which thunderc does not import");
    NodeImport renamed = node.withSchema(*schema);
    TC_TRY(renamed.matchArguments());
    return same(renamed);
  }
  auto it = programs().find(target);
  TC_CHECK(it != programs().end(), "no decomposition for " + target);
  return Evaluator(node, it->first).run(it->second);
}

} // namespace

ImportFunction findDecomposition(std::string_view target) {
  target = stripTorchOps(target);
  for (const Entry &entry : kEntries)
    if (entry.target == target)
      return importDecomposed;
  return nullptr;
}

std::vector<std::string> decompositionTargets() {
  std::vector<std::string> targets;
  for (const Entry &entry : kEntries)
    targets.emplace_back(entry.target);
  return targets;
}

std::string checkDecompositionTable() {
  for (const Entry &entry : kEntries) {
    if (!entry.alias.empty()) {
      if (findOpSchema(entry.alias) == nullptr || findImportFunction(entry.alias) == nullptr ||
          findImportFunction(entry.alias) == importDecomposed)
        return std::string(entry.target) + ": alias of " + std::string(entry.alias) +
               ", which the import table does not convert";
      continue;
    }
    Expected<Program> program = Parser(entry.source).parse();
    if (!program.ok())
      return std::string(entry.target) + ": " + program.error().message();
  }
  return "";
}

} // namespace thunderc::frontend
