// Files embedded into thunderc at build time (cmake/embed_files.cmake): the bundle runtime
// (runtime/) and the portable kernel headers (backend_cuda/kernels/), copied into every out/.
#pragma once

#include <cstddef>

namespace thunderc::cuda {

struct EmbeddedFile {
  const char *path; ///< relative to the repository root, e.g. "runtime/weights.cpp"
  const unsigned char *data;
  size_t size;
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kNumEmbeddedFiles;

} // namespace thunderc::cuda
