// CodeWriter and the C++ spellings of types and shapes.
#include "codegen/code_writer.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "ir/status.h"

namespace thunderc::codegen {

void CodeWriter::line(const std::string &text) {
  if (!text.empty())
    text_ += std::string(static_cast<size_t>(indent_) * 2, ' ') + text;
  text_ += "\n";
}

void CodeWriter::open(const std::string &text) {
  line(text.empty() ? "{" : text + " {");
  ++indent_;
}

void CodeWriter::close(const std::string &suffix) {
  TC_CHECK(indent_ > 0, "unbalanced CodeWriter::close");
  --indent_;
  line("}" + suffix);
}

void CodeWriter::raw(const std::string &text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string piece = text.substr(start, end - start);
    if (piece.empty())
      text_ += "\n";
    else
      line(piece);
    start = end + 1;
  }
}

std::string cppType(ir::DType dtype) {
  switch (dtype) {
  case ir::DType::Bool: return "bool";
  case ir::DType::U8: return "uint8_t";
  case ir::DType::I8: return "int8_t";
  case ir::DType::I16: return "int16_t";
  case ir::DType::I32: return "int32_t";
  case ir::DType::I64: return "int64_t";
  case ir::DType::F16: return "tc::half";
  case ir::DType::BF16: return "tc::bfloat16";
  case ir::DType::F32: return "float";
  case ir::DType::F64: return "double";
  }
  return "void";
}

std::string computeType(ir::DType dtype) {
  if (dtype == ir::DType::F16 || dtype == ir::DType::BF16)
    return "float";
  return cppType(dtype);
}

std::string abiDType(ir::DType dtype) {
  std::string name(ir::dtypeName(dtype));
  for (char &c : name)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "TC_DTYPE_" + name;
}

std::string symExpr(const ir::SymExpr &expr) {
  using Kind = ir::SymExpr::Kind;
  switch (expr.kind()) {
  case Kind::Constant: return "int64_t(" + std::to_string(expr.constantValue()) + ")";
  case Kind::Symbol: return "sym." + expr.symbolName();
  case Kind::FloorDiv:
    return "tc::floordiv_i64(" + symExpr(expr.operands()[0]) + ", " +
           symExpr(expr.operands()[1]) + ")";
  case Kind::Mod:
    return "tc::mod_i64(" + symExpr(expr.operands()[0]) + ", " + symExpr(expr.operands()[1]) +
           ")";
  case Kind::Max:
  case Kind::Min:
    return std::string(expr.kind() == Kind::Max ? "std::max" : "std::min") + "(" +
           symExpr(expr.operands()[0]) + ", " + symExpr(expr.operands()[1]) + ")";
  case Kind::Add:
  case Kind::Mul: {
    std::string text = "(";
    for (size_t i = 0; i < expr.operands().size(); ++i)
      text += (i ? (expr.kind() == Kind::Add ? " + " : " * ") : "") + symExpr(expr.operands()[i]);
    return text + ")";
  }
  }
  return "0";
}

std::string dimExpr(const ir::Dim &dim) {
  return dim.isStatic() ? "int64_t(" + std::to_string(dim.value()) + ")" : symExpr(dim.expr());
}

std::string productExpr(const std::vector<ir::Dim> &dims) {
  return dimExpr(ir::numElements(dims));
}

std::string braceList(const std::vector<std::string> &items) {
  if (items.empty())
    return "{0}";
  std::string text = "{";
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? ", " : "") + items[i];
  return text + "}";
}

std::string escapeString(const std::string &text) {
  std::string out;
  for (char c : text) {
    unsigned char byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      char octal[5];
      std::snprintf(octal, sizeof(octal), "\\%03o", byte);
      out += octal;
    } else {
      out += c;
    }
  }
  return out;
}

std::string stringLiteral(const std::string &text) { return "\"" + escapeString(text) + "\""; }

std::string doubleLiteral(double value) {
  // tc_math.h's helpers, not std::numeric_limits: they are TC_HD, so the same literal works in
  // host loops and in CUDA kernels (nvcc needs no --expt-relaxed-constexpr).
  if (std::isnan(value))
    return "tc::quiet_nan<double>()";
  if (std::isinf(value))
    return value > 0 ? "tc::infinity<double>()" : "-tc::infinity<double>()";
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

} // namespace thunderc::codegen
