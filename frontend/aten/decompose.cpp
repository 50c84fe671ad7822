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

#include "frontend/aten/decompose_internal.h"

namespace thunderc::frontend {
namespace decompose {

Status Evaluator::run(const Program &program) {
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

Error Evaluator::fail(const std::string &what) const {
  return node_.unsupportedFeature(std::string(target_) + " (decomposition): " + what);
}

Error Evaluator::bug(const std::string &what) const {
  TC_CHECK(false, "frontend/aten/decompositions.def: " + std::string(target_) + ": " + what);
  return fail(what);
}

Status Evaluator::bind(const std::vector<Item> &results) {
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

Expected<Item> Evaluator::lookup(const std::string &name) {
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

Expected<Item> Evaluator::argument(const ArgSchema &arg) {
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
  if (base.starts_with("float[")) {
    TC_ASSIGN_OR_RETURN(std::optional<std::vector<double>> values,
                        node_.optionalFloatList(arg.name));
    if (!values)
      return Item{};
    Item list;
    list.kind = Item::Kind::List;
    for (double value : *values)
      list.list.push_back(Item::ofNumber(value, Item::Kind::Float));
    return list;
  }
  if (base == "ScalarType") {
    // Only "the default" can be followed: a dtype argument that is given changes what the
    // op computes in, which the table does not express yet.
    return fail("argument '" + arg.name + "' (a dtype) is given");
  }
  return fail("argument '" + arg.name + "' of type " + type);
}

Expected<Value *> Evaluator::asTensor(const Item &item, DType dtype) {
  if (item.kind == Item::Kind::Tensor)
    return node_.castTo(item.tensor, dtype);
  if (item.isScalar())
    return node_.scalarConstant(item.number, dtype);
  return fail("expected a tensor, got " + std::string(kindName(item.kind)));
}

Expected<Value *> Evaluator::tensorOf(const Item &item) {
  if (item.kind != Item::Kind::Tensor)
    return fail("expected a tensor, got " + std::string(kindName(item.kind)));
  return item.tensor;
}

Expected<int64_t> Evaluator::intOf(const Item &item) {
  if (item.kind != Item::Kind::Int && item.kind != Item::Kind::Bool)
    return fail("expected an int, got " + std::string(kindName(item.kind)));
  return static_cast<int64_t>(item.number);
}

Expected<ir::Dim> Evaluator::dimOf(const Item &item) {
  if (item.kind == Item::Kind::Dim)
    return item.dim;
  TC_ASSIGN_OR_RETURN(int64_t value, intOf(item));
  return ir::Dim(value);
}

Expected<bool> Evaluator::truth(const Item &item) {
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
DType Evaluator::resultType(const std::vector<Item> &items) {
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

Expected<Item> Evaluator::eval(const Expr &expr) {
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
      if (expr.args.size() > 2) {
        TC_ASSIGN_OR_RETURN(Item keep, eval(expr.args[2]));
        TC_ASSIGN_OR_RETURN(bool taken, truth(keep));
        if (!taken)
          continue;
      }
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

Expected<Item> Evaluator::binary(const std::string &op, const Item &lhs, const Item &rhs) {
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

Expected<Item> Evaluator::foldBinary(const std::string &op, const Item &lhs, const Item &rhs) {
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
Expected<Item> Evaluator::emit(OpKind op, std::vector<Item> operands, ir::AttrMap attrs) {
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
      // A linalg op's integer operands after its matrix are pivots (ldl_solve's): kept.
      bool pivots = info.family == ir::OpFamily::Linalg && !values.empty();
      if (info.dtypeRule == ir::DTypeRule::Floating && !pivots &&
          !ir::isFloatingPoint(value->type().dtype))
        value = node_.castTo(value, DType::F32);
      values.push_back(value);
    }
  }
  std::vector<ir::TensorType> types;
  for (const Value *value : values)
    types.push_back(value->type());
  Expected<std::vector<ir::TensorType>> results = ir::inferResultTypes(op, types, attrs, {});
  if (!results.ok())
    return std::move(results).error().withContext("node '" + node_.name() + "' (" +
                                                  std::string(ir::opName(op)) + ")");
  if (results.value().size() == 1)
    return Item::ofTensor(node_.emitTemp(op, std::move(values), results.value().front(),
                                         std::move(attrs)));
  // Several results (sort: values and indices) make a list.
  Item list;
  list.kind = Item::Kind::List;
  for (Value *result : node_.emitTemps(op, std::move(values), results.value(), std::move(attrs)))
    list.list.push_back(Item::ofTensor(result));
  return list;
}

Expected<ir::AttrValue> Evaluator::attribute(const ir::AttrSpec &spec, const Item &item) {
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
Expected<Item> Evaluator::broadcastTo(const std::vector<Item> &items) {
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

} // namespace decompose

namespace {
using namespace decompose;


// ---- the table ----

struct Entry {
  std::string_view target; ///< "aten.addcmul.default"
  std::string_view source; ///< the expression; empty for an alias
  std::string_view alias;  ///< TC_ALIAS: the overload imported instead ("aten.permute.default")
  bool inPlace = false;    ///< TC_DECOMPOSE_INPLACE: the result replaces `self`
};

constexpr Entry kEntries[] = {
#define TC_DECOMPOSE(target, source) {"aten." target, source, "", false},
#define TC_DECOMPOSE_INPLACE(target, source) {"aten." target, source, "", true},
#define TC_DECOMPOSE_NS(space, target, source) {space "." target, source, "", false},
#define TC_ALIAS(target, same) {"aten." target, "", "aten." same, false},
#include "frontend/aten/decompositions.def"
#undef TC_ALIAS
#undef TC_DECOMPOSE_NS
#undef TC_DECOMPOSE_INPLACE
#undef TC_DECOMPOSE
};

// ---- parsed programs, once per entry ----

const std::map<std::string_view, Program> &programs() {
  static const std::map<std::string_view, Program> parsed = [] {
    std::map<std::string_view, Program> table;
    for (const Entry &entry : kEntries) {
      if (!entry.alias.empty())
        continue;
      Expected<Program> program = parseProgram(entry.source);
      TC_CHECK(program.ok(), "frontend/aten/decompositions.def: " + std::string(entry.target) +
                                 ": " + (program.ok() ? "" : program.error().message()));
      TC_CHECK(table.emplace(entry.target, std::move(program).value()).second,
               "frontend/aten/decompositions.def: " + std::string(entry.target) + " twice");
    }
    return table;
  }();
  return parsed;
}


Status runProgram(NodeImport &node) {
  std::string target =
      node.schema().space + "." + node.schema().name + "." + node.schema().overload;
  auto it = programs().find(target);
  TC_CHECK(it != programs().end(), "no decomposition for " + target);
  return Evaluator(node, it->first).run(it->second);
}

Status importDecomposed(NodeImport &node) {
  std::string target =
      node.schema().space + "." + node.schema().name + "." + node.schema().overload;
  for (const Entry &entry : kEntries) {
    if (entry.target != target)
      continue;
    if (entry.inPlace)
      return node.importInPlace(runProgram); // later reads of `self` see the result
    if (entry.alias.empty())
      break;
    const OpSchema *schema = findOpSchema(entry.alias);
    ImportFunction same = findImportFunction(entry.alias);
    TC_CHECK(schema != nullptr && same != nullptr && same != importDecomposed,
             "frontend/aten/decompositions.def: " + target + " aliases " +
                 std::string(entry.alias) + ", which thunderc does not import");
    NodeImport renamed = node.withSchema(*schema);
    TC_TRY(renamed.matchArguments());
    return same(renamed);
  }
  return runProgram(node);
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
    Expected<Program> program = parseProgram(entry.source);
    if (!program.ok())
      return std::string(entry.target) + ": " + program.error().message();
  }
  return "";
}

} // namespace thunderc::frontend
