// The decomposition layer's private parts (frontend/aten/decompose*.cpp): the syntax tree of
// decompositions.def's expressions, the values the evaluator computes with, and the evaluator.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/aten/node_importer.h"

namespace thunderc::frontend::decompose {

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

/// The statements of one entry's expression (decompose_syntax.cpp).
Expected<Program> parseProgram(std::string_view source);

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

inline std::string_view kindName(Item::Kind kind) {
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

inline int category(DType dtype) {
  if (dtype == DType::Bool)
    return 0;
  return ir::isFloatingPoint(dtype) ? 2 : 1;
}

inline int category(const Item &item) {
  if (item.kind == Item::Kind::Tensor)
    return category(item.tensor->type().dtype);
  return item.kind == Item::Kind::Bool ? 0 : item.kind == Item::Kind::Int ? 1 : 2;
}

class Evaluator {
public:
  Evaluator(NodeImport &node, std::string_view target) : node_(node), target_(target) {}

  Status run(const Program &program);

private:
  Error fail(const std::string &what) const;
  Error bug(const std::string &what) const;

  Status bind(const std::vector<Item> &results);

  // ---- names ----

  Expected<Item> lookup(const std::string &name);

  Expected<Item> argument(const ArgSchema &arg);

  // ---- conversions ----

  Expected<Value *> asTensor(const Item &item, DType dtype);
  Expected<Value *> tensorOf(const Item &item);
  Expected<int64_t> intOf(const Item &item);
  Expected<ir::Dim> dimOf(const Item &item);
  Expected<bool> truth(const Item &item);

  DType resultType(const std::vector<Item> &items);

  // ---- expressions ----

  Expected<Item> eval(const Expr &expr);

  Expected<Item> binary(const std::string &op, const Item &lhs, const Item &rhs);

  Expected<Item> foldBinary(const std::string &op, const Item &lhs, const Item &rhs);

  Expected<Item> emit(OpKind op, std::vector<Item> operands, ir::AttrMap attrs);

  Expected<ir::AttrValue> attribute(const ir::AttrSpec &spec, const Item &item);

  Expected<Item> broadcastTo(const std::vector<Item> &items);

  // ---- calls: builtins, then IR ops by name ----

  Expected<Item> call(const Expr &expr);

  NodeImport &node_;
  std::string_view target_;
  std::map<std::string, Item> locals_;
  std::map<std::string, const Expr *> pending_; ///< statements not read yet
};

} // namespace thunderc::frontend::decompose
