// Fuzz target: the zip reader (frontend/pt2/zip_reader.h). Indexes the input as an archive and
// reads every member with its CRC-32 checked; any outcome but a crash or sanitizer report is
// fine (malformed archives must come back as errors).
#include <cstdint>
#include <vector>

#include "frontend/pt2/zip_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace thunderc::frontend;
  thunderc::Expected<ZipArchive> archive = ZipArchive::fromBuffer({data, data + size});
  if (!archive.ok())
    return 0;
  for (const ZipEntry &entry : archive->entries()) {
    (void)archive->find(entry.name);
    (void)archive->read(entry, /*verifyCrc=*/true);
  }
  (void)archive->topFolder();
  return 0;
}
