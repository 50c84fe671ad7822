// Files embedded into thunderc at build time (cmake/embed_files.cmake): the bundle runtime
// (runtime/), the kernel headers that ship in bundles (runtime/kernels/, backend_cpu/kernels/,
// backend_cuda/kernels/, cuda_emu/), and the templates of the bundle's fixed text
// (*/templates/*.in).
#pragma once

#include <cstddef>
#include <string_view>

namespace thunderc::codegen {

struct EmbeddedFile {
  const char *path; ///< relative to the repository root, e.g. "runtime/weights.cpp"
  const unsigned char *data;
  size_t size;
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kNumEmbeddedFiles;

/// The contents of the embedded file at `path` (a repository path). A path that was not
/// embedded is a thunderc bug (TC_CHECK), never a user error.
std::string_view embeddedFile(std::string_view path);

} // namespace thunderc::codegen
