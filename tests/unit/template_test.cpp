// Tests of the @KEY@ substitution that fills the bundle's template files (codegen/template.h),
// and that every embedded template renders with the values its caller passes.
#include <doctest/doctest.h>

#include "codegen/embedded_files.h"
#include "codegen/template.h"

using thunderc::codegen::embeddedFile;
using thunderc::codegen::renderEmbeddedTemplate;
using thunderc::codegen::renderTemplate;

TEST_CASE("renderTemplate replaces @KEY@ placeholders, verbatim and once") {
  CHECK(renderTemplate("add_library(@NAME@ STATIC @NAME@.cpp)", {{"NAME", "mlp"}}) ==
        "add_library(mlp STATIC mlp.cpp)");
  CHECK(renderTemplate("@A@@B@", {{"A", "1"}, {"B", "2"}}) == "12");
  // Inserted values are not scanned again, so a value may hold '@'.
  CHECK(renderTemplate("x=@A@", {{"A", "@B@"}}) == "x=@B@");
  CHECK(renderTemplate("@EMPTY@end", {{"EMPTY", ""}}) == "end");
  CHECK(renderTemplate("", {}) == "");
}

TEST_CASE("renderTemplate copies every '@' that is not a placeholder") {
  CHECK(renderTemplate("user@example.com", {}) == "user@example.com");
  CHECK(renderTemplate("@", {}) == "@");
  CHECK(renderTemplate("@@", {}) == "@@");
  CHECK(renderTemplate("@lower@ and @A-B@", {}) == "@lower@ and @A-B@");
  CHECK(renderTemplate("trailing @NAME", {{"NAME", "x"}}) == "trailing @NAME");
  CHECK(renderTemplate("$<$<CONFIG:Debug>:-g> ${VAR}", {}) == "$<$<CONFIG:Debug>:-g> ${VAR}");
}

TEST_CASE("the embedded templates render with their callers' keys") {
  std::map<std::string, std::string> values = {{"NAME", "m"},
                                               {"SOURCE", "m.pt2"},
                                               {"CUDA_ARCHITECTURES", "80-real 90"},
                                               {"GOLDEN_COMMAND", ""},
                                               {"INPUTS", ""},
                                               {"OUTPUTS", ""},
                                               {"SYMBOLS", ""},
                                               {"GOLDEN_FILES", ""},
                                               {"PROVENANCE", ""},
                                               {"NEEDS_LAPACK", "OFF"}};
  for (const char *path :
       {"codegen/templates/README.md.in", "codegen/templates/golden_test.cmake.in",
        "backend_cpu/templates/CMakeLists.txt.in", "backend_cuda/templates/CMakeLists.txt.in",
        "backend_cuda/templates/README.md.in"}) {
    CAPTURE(path);
    std::string text = renderEmbeddedTemplate(path, values);
    CHECK(text.find("@NAME@") == std::string::npos);
    CHECK(!text.empty());
  }
  CHECK(embeddedFile("backend_cpu/templates/CMakeLists.txt.in").find("project(@NAME@_bundle") !=
        std::string::npos);
}
