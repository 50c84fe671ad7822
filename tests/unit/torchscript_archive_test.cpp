// Tests for frontend/pt2/pickle_check and frontend/torchscript/archive: the checks a TorchScript
// file passes before libtorch reads it. Pickles are written by hand, opcode by opcode, as
// torch.jit.save writes them (protocol 2).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "frontend/pt2/pickle_check.h"
#include "frontend/torchscript/archive.h"
#include "tests/support/test_zip.h"

using namespace thunderc;
using namespace thunderc::frontend;
using namespace thunderc::testing;

namespace {

std::string u32(uint32_t value) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i)
    out[i] = static_cast<char>(value >> (8 * i));
  return out;
}

std::string unicode(const std::string &text) { return "X" + u32(text.size()) + text; }

// _rebuild_tensor_v2(('storage', torch.FloatStorage, '0', 'cpu', numel), offset, (size,),
// (1,), False, OrderedDict()) -- a 1-d float tensor, as torch.jit.save pickles it.
std::string tensorPickle(int numel, int offset, int size) {
  return std::string("\x80\x02") + "ctorch._utils\n_rebuild_tensor_v2\n" + "((" +
         unicode("storage") + "ctorch\nFloatStorage\n" + unicode("0") + unicode("cpu") + "K" +
         static_cast<char>(numel) + "tQ" + "K" + static_cast<char>(offset) + "(K" +
         static_cast<char>(size) + "t(K\x01t\x89" + "ccollections\nOrderedDict\n)Rt" + "R.";
}

Expected<PickleSummary> check(const std::string &pickle, int64_t recordBytes = 48) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t *>(pickle.data()),
                                       pickle.size());
  return checkPickle(bytes, PickleLimits{}, [&](const std::string &key) -> int64_t {
    return key == "0" ? recordBytes : -1;
  });
}

std::string errorOf(const Expected<PickleSummary> &result) {
  REQUIRE_FALSE(result.ok());
  return result.error().message();
}

std::string errorOf(const Status &status) {
  REQUIRE_FALSE(status.ok());
  return status.error().message();
}

} // namespace

TEST_CASE("pickle: a tensor inside its storage passes") {
  Expected<PickleSummary> summary = check(tensorPickle(12, 2, 10));
  REQUIRE(summary.ok());
  REQUIRE(summary->storages.size() == 1);
  CHECK(summary->storages[0].key == "0");
  CHECK(summary->storages[0].numel == 12);
  CHECK(summary->tensors == 1);
}

TEST_CASE("pickle: a storage longer than its record is refused") {
  CHECK(errorOf(check(tensorPickle(12, 0, 12), 16)).find(
            "storage '0' (FloatStorage, 12 elements) needs 48 bytes, its record has 16") !=
        std::string::npos);
  CHECK(errorOf(check(tensorPickle(12, 0, 12), -1)).find("has no record") != std::string::npos);
}

TEST_CASE("pickle: a tensor reaching past its storage is refused") {
  CHECK(errorOf(check(tensorPickle(12, 4, 10))).find(
            "reaches element 13 of storage '0', which has 12") != std::string::npos);
}

TEST_CASE("pickle: a length past the end is refused before anything is allocated") {
  // 14 bytes that claim a 4 GiB string (a damaged debug_pkl made libtorch allocate 4.3 GB).
  const std::string pickle = std::string("\x80\x02") + "X" + u32(0xffffffffu) + "abcdefg";
  CHECK(pickle.size() == 14);
  CHECK(errorOf(check(pickle)) ==
        "pickle byte 2: a string of 4294967295 bytes runs past the end (14 bytes)");
}

TEST_CASE("pickle: nesting is bounded") {
  CHECK(errorOf(check(std::string("\x80\x02") + std::string(5000, '(') + "N.")).find(
            "opens more than 1000 MARKs") != std::string::npos);
  std::string tuples = "\x80\x02N";
  for (int i = 0; i < 2000; ++i)
    tuples += "\x85"; // TUPLE1: one more level
  CHECK(errorOf(check(tuples + ".")).find("nests containers deeper than 1000 levels") !=
        std::string::npos);
}

TEST_CASE("pickle: what libtorch's unpickler does not read is refused") {
  CHECK(errorOf(check("\x80\x04N.")).find("protocol 4") != std::string::npos);
  CHECK(errorOf(check("\x80\x02S'x'\n.")).find("opcode 0x53") != std::string::npos);
  CHECK(errorOf(check(std::string("\x80\x02N") + "r" + u32(4000000000u) + ".")).find(
            "memo index 4000000000") != std::string::npos);
  CHECK(errorOf(check("\x80\x02h\x05.")).find("never stored") != std::string::npos);
  CHECK(errorOf(check("\x80\x02NN.")).find("2 values on the stack") != std::string::npos);
  CHECK(errorOf(check("\x80\x02N")).find("without a STOP") != std::string::npos);
  CHECK(errorOf(check("\x80\x02t.")).find("never opened") != std::string::npos);
  CHECK(errorOf(check("\x80\x02NNR.")).find("not a GLOBAL") != std::string::npos);
}

TEST_CASE("TorchScript source: nesting within CPython's limits passes, beyond is refused") {
  const TorchScriptArchiveLimits limits;
  CHECK(checkTorchScriptSource("def forward(self, x):\n  return f((x + 1) * -y)[0]\n", limits)
            .ok());
  // Brackets inside strings and comments do not count.
  CHECK(checkTorchScriptSource("x = '" + std::string(500, '(') + "'  # " +
                                   std::string(500, '[') + "\n",
                               limits)
            .ok());
  CHECK(errorOf(checkTorchScriptSource("y = " + std::string(300, '(') + "x\n", limits)) ==
        "line 1: brackets nested deeper than 200 levels");
  std::string unary = "def f(x):\n  return ";
  for (int i = 0; i < 300; ++i)
    unary += "- ";
  CHECK(errorOf(checkTorchScriptSource(unary + "x\n", limits)) ==
        "line 2: more than 200 prefix operators in a row");
  std::string nots = "y = ";
  for (int i = 0; i < 300; ++i)
    nots += "not ";
  CHECK(errorOf(checkTorchScriptSource(nots + "x\n", limits)).find("prefix operators") !=
        std::string::npos);
  std::string powers = "y = x";
  for (int i = 0; i < 300; ++i)
    powers += " ** x";
  CHECK(errorOf(checkTorchScriptSource(powers + "\n", limits)).find("'**'") !=
        std::string::npos);
  std::string blocks;
  for (int i = 0; i < 150; ++i)
    blocks += std::string(i, ' ') + "if x:\n";
  CHECK(errorOf(checkTorchScriptSource(blocks + std::string(150, ' ') + "pass\n", limits)) ==
        "line 102: blocks nested deeper than 100 levels");
  // A long flat list of negative numbers is not nesting.
  std::string flat = "y = [";
  for (int i = 0; i < 1000; ++i)
    flat += "-1, ";
  CHECK(checkTorchScriptSource(flat + "0]\n", limits).ok());
}

TEST_CASE("TorchScript archive: storages are checked against their records") {
  std::vector<TestMember> members = {{"m/data.pkl", tensorPickle(12, 0, 12)},
                                     {"m/data/0", std::string(48, '\0')},
                                     {"m/code/__torch__.py", "def forward(self):\n  pass\n"},
                                     {"m/version", "10\n"}};
  {
    Expected<ZipArchive> zip = ZipArchive::fromBuffer(buildZip(members).bytes);
    REQUIRE(zip.ok());
    CHECK(checkTorchScriptArchive(*zip).ok());
  }
  members[1].data.resize(16); // truncated storage
  {
    Expected<ZipArchive> zip = ZipArchive::fromBuffer(buildZip(members).bytes);
    REQUIRE(zip.ok());
    CHECK(errorOf(checkTorchScriptArchive(*zip)) ==
          "m/data.pkl: pickle byte 86: storage '0' (FloatStorage, 12 elements) needs 48 bytes, "
          "its record has 16");
  }
  members[2].data = "y = " + std::string(300, '[') + "\n";
  members[1].data.resize(48);
  {
    Expected<ZipArchive> zip = ZipArchive::fromBuffer(buildZip(members).bytes);
    REQUIRE(zip.ok());
    CHECK(errorOf(checkTorchScriptArchive(*zip)) ==
          "m/code/__torch__.py: line 1: brackets nested deeper than 200 levels");
  }
  members[2].data = "pass\n";
  members.push_back({"elsewhere/x", "1"});
  {
    Expected<ZipArchive> zip = ZipArchive::fromBuffer(buildZip(members).bytes);
    REQUIRE(zip.ok());
    CHECK(errorOf(checkTorchScriptArchive(*zip)).find("outside the archive's folder") !=
          std::string::npos);
  }
  Expected<ZipArchive> noData =
      ZipArchive::fromBuffer(buildZip({{"m/constants.pkl", "\x80\x02N."}}).bytes);
  REQUIRE(noData.ok());
  CHECK(errorOf(checkTorchScriptArchive(*noData)).find("missing archive member 'm/data.pkl'") !=
        std::string::npos);
}
