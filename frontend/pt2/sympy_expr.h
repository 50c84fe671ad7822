// Reads the sympy srepr strings torch.export writes for symbolic sizes
// ("Mul(Integer(16), Symbol('s77', positive=True, integer=True))") into ir::SymExpr.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "ir/status.h"
#include "ir/sym_expr.h"

namespace thunderc::frontend {

/// Parses a sympy srepr. Symbols are renamed through `renames` (exporter name -> thunderc
/// name); a symbol missing from the map keeps its name. Understood: Symbol, Integer, Add,
/// Mul, FloorDiv, Mod/PythonMod, Max, Min, and Pow with a small non-negative integer
/// exponent. Anything else is ErrorKind::Unsupported naming the function; malformed text is
/// InvalidInput.
Expected<ir::SymExpr> parseSympySrepr(std::string_view text,
                                      const std::map<std::string, std::string> &renames);

/// The short names of the symbols in a srepr, in order of appearance ("s77").
std::vector<std::string> sympySymbols(std::string_view text);

} // namespace thunderc::frontend
