// Fuzz target: the checks a TorchScript file passes before libtorch reads it
// (frontend/torchscript/archive.h: zip layout, pickles, storages against their records,
// tensors inside their storages, code nesting). The input's first byte picks what it is: 255,
// a whole archive (the rest of the input); otherwise a member of the template
// (THUNDERC_FUZZ_TEMPLATE, a small traced module) to replace by the rest of the input, modulo
// the count of its pickle and code members, and the archive is rebuilt around it
// (tests/support/test_zip.h, every member stored), so mutations reach the pickle machine and
// the code scan instead of failing CRC checks.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "frontend/torchscript/archive.h"
#include "frontend/pt2/zip_reader.h"
#include "tests/support/test_zip.h"

namespace {

struct Template {
  std::vector<thunderc::testing::TestMember> members;
  std::vector<size_t> checked; ///< the members that are pickles or code
};

const Template &archiveTemplate() {
  static const Template loaded = [] {
    using namespace thunderc::frontend;
    Template result;
    thunderc::Expected<ZipArchive> zip = ZipArchive::open(THUNDERC_FUZZ_TEMPLATE);
    if (!zip.ok())
      std::abort();
    for (const ZipEntry &entry : zip->entries()) {
      const std::string &name = entry.name;
      const bool pickle = name.ends_with(".pkl") || name.ends_with(".debug_pkl");
      if (pickle || name.ends_with(".py"))
        result.checked.push_back(result.members.size());
      thunderc::Expected<std::vector<uint8_t>> bytes = readMember(*zip, entry);
      if (!bytes.ok())
        std::abort();
      result.members.push_back({name, std::string(bytes->begin(), bytes->end()), 0});
    }
    if (result.checked.empty())
      std::abort();
    return result;
  }();
  return loaded;
}

// THUNDERC_FUZZ_VERBOSE=1: print what each input came to (to see that seeds get past the
// first checks).
void report(const thunderc::Status &status) {
  static const bool verbose = std::getenv("THUNDERC_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s\n", status.ok() ? "ok" : status.error().message().c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace thunderc::frontend;
  if (size == 0)
    return 0;
  if (data[0] == 255) {
    thunderc::Expected<ZipArchive> zip = ZipArchive::fromBuffer({data + 1, data + size});
    report(zip.ok() ? checkTorchScriptArchive(*zip) : thunderc::Status(zip.error()));
    return 0;
  }
  const Template &base = archiveTemplate();
  std::vector<thunderc::testing::TestMember> members = base.members;
  members[base.checked[data[0] % base.checked.size()]].data =
      std::string(reinterpret_cast<const char *>(data) + 1, size - 1);
  thunderc::testing::TestZip built = thunderc::testing::buildZip(members);
  thunderc::Expected<ZipArchive> zip = ZipArchive::fromBuffer(std::move(built.bytes));
  if (!zip.ok())
    std::abort(); // the writer's archives always index
  report(checkTorchScriptArchive(*zip));
  return 0;
}
