// Reads the text IR written by ir/printer.h back into a Graph.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::ir {

/// Parses one graph in the canonical text form (see printGraph). Whitespace and `//` line
/// comments are free between tokens. `sourceName` prefixes error messages, which read
/// "<sourceName>:<line>:<column>: <what>" (ErrorKind::InvalidInput): unknown op, unknown or
/// redefined value, wrong attribute syntax, bad type, trailing garbage. The parser does not
/// run the verifier; callers do.
Expected<std::unique_ptr<Graph>> parseGraph(std::string_view text,
                                            const std::string &sourceName = "<input>");

} // namespace thunderc::ir
