// A tiny indented-text builder for generated C++ and the C++ spellings of IR types and
// shape expressions shared by the emitters.
#pragma once

#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/sym_expr.h"

namespace thunderc::codegen {

/// Accumulates lines with the current indentation (two spaces per level).
class CodeWriter {
public:
  void line(const std::string &text = "");
  void open(const std::string &text);  ///< writes `text {` and indents
  void close(const std::string &suffix = ""); ///< dedents and writes `}` + suffix
  /// Appends already-formatted lines, re-indented to the current level.
  void raw(const std::string &text);
  const std::string &str() const { return text_; }

private:
  std::string text_;
  int indent_ = 0;
};

/// The C++ element type of a dtype in generated code ("float", "tc::half", "int64_t").
std::string cppType(ir::DType dtype);
/// The type arithmetic happens in: float for f16/bf16, the type itself otherwise.
std::string computeType(ir::DType dtype);
/// The runtime ABI enumerator ("TC_DTYPE_F32").
std::string abiDType(ir::DType dtype);

/// A C++ int64_t expression for a dim; symbols read from the `sym` struct ("sym.s0").
std::string dimExpr(const ir::Dim &dim);
std::string symExpr(const ir::SymExpr &expr);
/// Product of dims as a C++ expression ("1" for none).
std::string productExpr(const std::vector<ir::Dim> &dims);
/// "{a, b, c}" initializer text (at least one element, so arrays are never zero-sized).
std::string braceList(const std::vector<std::string> &items);
/// A C++ double literal that reads back exactly (inf/nan spelled tc::infinity/tc::quiet_nan).
std::string doubleLiteral(double value);
/// `text` escaped for the inside of a C/C++ string literal: quotes and backslashes escaped,
/// control bytes as three-digit octal escapes; other bytes (UTF-8 included) as they are.
std::string escapeString(const std::string &text);
/// `text` as a C/C++ string literal: "\"" + escapeString(text) + "\"".
std::string stringLiteral(const std::string &text);

} // namespace thunderc::codegen
