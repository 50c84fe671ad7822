// Shared by the archive fuzz targets (fuzz_pt2, fuzz_pt2_json): archive bytes through the
// importer, and the imported graph through the printer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "frontend/pt2/importer.h"
#include "ir/printer.h"
#include "tests/fuzz/fuzz_util.h"

namespace thunderc::fuzz {

inline void importArchive(const uint8_t *data, size_t size) {
  MemoryFile file(data, size);
  Expected<frontend::ImportedModel> model = frontend::importPt2(file.path());
  report(model);
  if (model.ok())
    (void)ir::printGraph(*model->graph);
}

} // namespace thunderc::fuzz
