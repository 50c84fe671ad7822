// Fuzz target: the JSON members of a valid .pt2 archive (the ExportedProgram model JSON, the
// weights' and constants' payload configs) through the importer. The input's first byte picks
// the member (modulo their count, in archive order); the rest replaces its text, and the
// archive is rebuilt around it (tests/support/test_zip.h), so mutations reach the JSON and
// the importer instead of failing the zip reader's checks. The template is a small exported
// model checked in beside the corpus (THUNDERC_FUZZ_TEMPLATE).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "frontend/pt2/zip_reader.h"
#include "tests/fuzz/fuzz_import.h"
#include "tests/support/test_zip.h"

namespace {

struct Template {
  std::vector<thunderc::testing::TestMember> members;
  std::vector<size_t> jsonMembers; ///< indices of the members whose name ends in ".json"
};

const Template &archiveTemplate() {
  static const Template loaded = [] {
    using namespace thunderc::frontend;
    Template result;
    thunderc::Expected<ZipArchive> zip = ZipArchive::open(THUNDERC_FUZZ_TEMPLATE);
    if (!zip.ok())
      std::abort();
    for (const ZipEntry &entry : zip->entries()) {
      thunderc::Expected<std::span<const uint8_t>> bytes = zip->read(entry);
      if (!bytes.ok() || entry.method != 0)
        std::abort();
      std::string name = entry.name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0)
        result.jsonMembers.push_back(result.members.size());
      result.members.push_back({name, std::string(bytes->begin(), bytes->end()), 0});
    }
    if (result.jsonMembers.empty())
      std::abort();
    return result;
  }();
  return loaded;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const Template &base = archiveTemplate();
  std::vector<thunderc::testing::TestMember> members = base.members;
  members[base.jsonMembers[data[0] % base.jsonMembers.size()]].data =
      std::string(reinterpret_cast<const char *>(data) + 1, size - 1);
  thunderc::testing::TestZip zip = thunderc::testing::buildZip(members);
  thunderc::fuzz::importArchive(zip.bytes.data(), zip.bytes.size());
  return 0;
}
