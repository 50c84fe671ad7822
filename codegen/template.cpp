// @KEY@ substitution for the embedded templates of the bundle's fixed text.
#include "codegen/template.h"

#include "codegen/embedded_files.h"
#include "ir/status.h"

namespace thunderc::codegen {
namespace {

bool isKeyCharacter(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

} // namespace

std::string_view embeddedFile(std::string_view path) {
  for (size_t i = 0; i < kNumEmbeddedFiles; ++i)
    if (path == kEmbeddedFiles[i].path)
      return {reinterpret_cast<const char *>(kEmbeddedFiles[i].data), kEmbeddedFiles[i].size};
  TC_CHECK(false, "no embedded file " + std::string(path));
  return {};
}

std::string renderTemplate(std::string_view text, const std::map<std::string, std::string> &values) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t at = text.find('@', i);
    if (at == std::string_view::npos) {
      out.append(text.substr(i));
      break;
    }
    out.append(text.substr(i, at - i));
    size_t end = at + 1;
    while (end < text.size() && isKeyCharacter(text[end]))
      ++end;
    if (end == at + 1 || end >= text.size() || text[end] != '@') {
      out += '@'; // not a placeholder: a lone '@' or '@' + other characters
      i = at + 1;
      continue;
    }
    std::string key(text.substr(at + 1, end - at - 1));
    auto value = values.find(key);
    TC_CHECK(value != values.end(), "template placeholder @" + key + "@ has no value");
    out += value->second;
    i = end + 1;
  }
  return out;
}

std::string renderEmbeddedTemplate(std::string_view path,
                                   const std::map<std::string, std::string> &values) {
  return renderTemplate(embeddedFile(path), values);
}

} // namespace thunderc::codegen
