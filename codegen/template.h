// The bundle's fixed text (CMake projects, READMEs) lives in template files embedded at build
// time; this fills their @KEY@ placeholders.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace thunderc::codegen {

/// `text` with every `@KEY@` (KEY: capital letters, digits, '_') replaced by values.at(KEY).
/// Any other '@' is copied unchanged. A placeholder without a value is a thunderc bug
/// (TC_CHECK): templates and their callers ship together. Values are inserted verbatim and
/// not rescanned.
std::string renderTemplate(std::string_view text, const std::map<std::string, std::string> &values);

/// renderTemplate of the embedded template at `path` ("backend_cpu/templates/CMakeLists.txt.in").
std::string renderEmbeddedTemplate(std::string_view path,
                                   const std::map<std::string, std::string> &values);

} // namespace thunderc::codegen
