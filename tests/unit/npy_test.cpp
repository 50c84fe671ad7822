// Tests for frontend/npy: headers as numpy writes them (bytes captured from numpy 2.4
// np.save), the header variations older writers produce, and malformed files.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

#include "frontend/npy.h"

using namespace thunderc;
using namespace thunderc::frontend;

namespace {

std::vector<uint8_t> fromHex(std::string_view hex) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(uint8_t(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return bytes;
}

/// An .npy image with the given version and header text (no padding) and `dataSize` bytes.
std::vector<uint8_t> npyWithHeader(std::string_view header, size_t dataSize, int major = 1) {
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  size_t lengthWidth = major == 1 ? 2 : 4;
  for (size_t i = 0; i < lengthWidth; ++i)
    bytes.push_back(uint8_t(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.resize(bytes.size() + dataSize, 0xAB);
  return bytes;
}

std::string errorOf(const Expected<NpyArray> &array) {
  REQUIRE_FALSE(array.ok());
  return array.error().message();
}

// np.save(np.arange(6, dtype='<f4').reshape(2, 3))
constexpr std::string_view kNumpyF4 =
    "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046"
    "616c73652c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020"
    "202020202020202020202020202020202020202020202020202020202020202020202020200a00000000000080"
    "3f0000004000004040000080400000a040";
// np.save(np.array([True, False, True]))
constexpr std::string_view kNumpyBool =
    "934e554d5059010076007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046"
    "616c73652c20277368617065273a2028332c292c207d2020202020202020202020202020202020202020202020"
    "202020202020202020202020202020202020202020202020202020202020202020202020200a010001";
// np.save(np.float64(2.5))
constexpr std::string_view kNumpyScalar =
    "934e554d5059010076007b276465736372273a20273c6638272c2027666f727472616e5f6f72646572273a2046"
    "616c73652c20277368617065273a2028292c207d20202020202020202020202020202020202020202020202020"
    "202020202020202020202020202020202020202020202020202020202020202020202020200a00000000000004"
    "40";

} // namespace

TEST_CASE("npy: parses numpy's own files and writes them back byte for byte") {
  struct Case {
    std::string_view hex;
    std::string descr;
    std::vector<int64_t> shape;
  };
  for (const Case &c : {Case{kNumpyF4, "<f4", {2, 3}}, Case{kNumpyBool, "|b1", {3}},
                        Case{kNumpyScalar, "<f8", {}}}) {
    CAPTURE(c.descr);
    std::vector<uint8_t> bytes = fromHex(c.hex);
    Expected<NpyArray> array = parseNpy(bytes);
    REQUIRE(array.ok());
    CHECK(array->descr == c.descr);
    CHECK(array->shape == c.shape);
    CHECK_FALSE(array->fortranOrder);
    CHECK(array->data.size() == bytes.size() - 128);
    Expected<std::vector<uint8_t>> encoded = encodeNpy(*array);
    REQUIRE(encoded.ok());
    CHECK(*encoded == bytes);
  }
  Expected<NpyArray> f4 = parseNpy(fromHex(kNumpyF4));
  float last;
  std::memcpy(&last, f4->data.data() + 20, 4);
  CHECK(last == 5.0f);
}

TEST_CASE("npy: written data always starts 64-byte aligned") {
  for (size_t rank = 0; rank <= 8; ++rank) {
    NpyArray array{"<i2", std::vector<int64_t>(rank, 1), false, {7, 0}};
    Expected<std::vector<uint8_t>> bytes = encodeNpy(array);
    REQUIRE(bytes.ok());
    CHECK((bytes->size() - 2) % 64 == 0);
    CHECK((*bytes)[bytes->size() - 3] == '\n');
    Expected<NpyArray> back = parseNpy(*bytes);
    REQUIRE(back.ok());
    CHECK(back->shape == array.shape);
    CHECK(back->data == array.data);
  }
}

TEST_CASE("npy: header variations from other writers") {
  // Keys in another order, double quotes, no trailing comma, Python 2 longs, odd spacing.
  Expected<NpyArray> array =
      parseNpy(npyWithHeader("{ \"shape\":(2L,3L),'fortran_order':False,'descr':'<i8'}\n", 48));
  REQUIRE(array.ok());
  CHECK(array->descr == "<i8");
  CHECK(array->shape == std::vector<int64_t>{2, 3});

  // Format 2.0 and 3.0 have a 4-byte header length.
  for (int major : {2, 3}) {
    Expected<NpyArray> wide = parseNpy(
        npyWithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (0, 4), }\n", 0, major));
    REQUIRE(wide.ok());
    CHECK(wide->shape == std::vector<int64_t>{0, 4});
  }

  // Single-byte dtypes may be spelled with any byte order.
  Expected<NpyArray> bytes =
      parseNpy(npyWithHeader("{'descr': '<u1', 'fortran_order': False, 'shape': (3,), }", 3));
  REQUIRE(bytes.ok());
  CHECK(bytes->descr == "|u1");
}

TEST_CASE("npy: data size must match the shape") {
  CHECK(errorOf(parseNpy(npyWithHeader(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 12))) ==
        "npy data is 12 bytes, expected 16 for shape (2, 2) <f4");
  CHECK(errorOf(parseNpy(npyWithHeader(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 16))) ==
        "npy data is 16 bytes, expected 12 for shape (3,) <f4");
  CHECK(errorOf(parseNpy(npyWithHeader(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 0))) ==
        "npy data is 0 bytes, expected 8 for shape () <f8");
  // The product overflows 64 bits.
  CHECK(errorOf(parseNpy(npyWithHeader("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                       "(9223372036854775807, 4), }",
                                       0))) ==
        "npy shape (9223372036854775807, 4) is invalid or too large");
}

TEST_CASE("npy: unsupported but well-formed files") {
  auto kindOf = [](std::string_view header) {
    Expected<NpyArray> array = parseNpy(npyWithHeader(header, 16));
    REQUIRE_FALSE(array.ok());
    return array.error().kind();
  };
  CHECK(kindOf("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }") ==
        ErrorKind::Unsupported);
  CHECK(kindOf("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }") ==
        ErrorKind::Unsupported);
  CHECK(kindOf("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }") ==
        ErrorKind::Unsupported);
  CHECK(kindOf("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }") ==
        ErrorKind::Unsupported);
  CHECK(errorOf(parseNpy(npyWithHeader(
            "{'descr': '>f4', 'fortran_order': False, 'shape': (4,), }", 16))) ==
        "big-endian npy data ('>f4') is not supported");
  CHECK(errorOf(parseNpy(npyWithHeader(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16))) ==
        "npy arrays in Fortran order are not supported");
  CHECK(errorOf(parseNpy(npyWithHeader("{}", 0, 4))) == "npy format version 4.0 is not supported");
}

TEST_CASE("npy: malformed headers are errors") {
  for (std::string_view header : {
           "",
           "{",
           "{'descr': '<f4', 'fortran_order': False}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}",
           "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,)}",
           "{'descr': '<f4', 'fortran_order': false, 'shape': (4,)}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,)}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': [4]}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (4 4)}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
           "{'descr': '<f4 'fortran_order': False, 'shape': (4,)}",
           "{'descr': '<f4', 'fortran_order': False, 'shape': (4,)} trailing",
       }) {
    CAPTURE(header);
    Expected<NpyArray> array = parseNpy(npyWithHeader(header, 16));
    REQUIRE_FALSE(array.ok());
    CHECK(array.error().kind() == ErrorKind::InvalidInput);
    CHECK(array.error().message().find("malformed npy header") == 0);
  }
  CHECK(errorOf(parseNpy(fromHex("00112233445566778899"))) == "not an npy file (bad magic)");
}

TEST_CASE("npy: every truncation of a file is an error, never a crash") {
  std::vector<uint8_t> bytes = fromHex(kNumpyF4);
  for (size_t length = 0; length < bytes.size(); ++length) {
    CAPTURE(length);
    CHECK_FALSE(parseNpy({bytes.data(), length}).ok());
  }
}

TEST_CASE("npy: encodeNpy rejects arrays it cannot describe") {
  CHECK_FALSE(encodeNpy(NpyArray{"<c8", {1}, false, std::vector<uint8_t>(8)}).ok());
  CHECK_FALSE(encodeNpy(NpyArray{"<f4", {1}, true, std::vector<uint8_t>(4)}).ok());
  CHECK_FALSE(encodeNpy(NpyArray{"<f4", {-1}, false, {}}).ok());
  Expected<std::vector<uint8_t>> wrongSize = encodeNpy(NpyArray{"<f4", {2}, false, {1, 2, 3}});
  REQUIRE_FALSE(wrongSize.ok());
  CHECK(wrongSize.error().message() == "npy data is 3 bytes, expected 8 for shape (2,) <f4");
}

TEST_CASE("npy: item sizes") {
  CHECK(npyItemSize("<f4") == 4);
  CHECK(npyItemSize("<f8") == 8);
  CHECK(npyItemSize("<f2") == 2);
  CHECK(npyItemSize("<u2") == 2);
  CHECK(npyItemSize("<i8") == 8);
  CHECK(npyItemSize("|b1") == 1);
  CHECK(npyItemSize("|i1") == 1);
  CHECK(npyItemSize(">f4") == 0);
  CHECK(npyItemSize("<c8") == 0);
  CHECK(npyItemSize("") == 0);
}

TEST_CASE("npy: writeNpy and readNpy round-trip through a file") {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("thunderc_npy_test." + std::to_string(::getpid()) + ".npy"))
                         .string();
  NpyArray array{"<i4", {2, 1}, false, {1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}};
  REQUIRE(writeNpy(path, array).ok());
  Expected<NpyArray> back = readNpy(path);
  std::filesystem::remove(path);
  REQUIRE(back.ok());
  CHECK(back->descr == "<i4");
  CHECK(back->shape == array.shape);
  CHECK(back->data == array.data);

  Expected<NpyArray> missing = readNpy(path);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind() == ErrorKind::Io);
  Status unwritable = writeNpy(path + ".dir/nested/x.npy", array);
  REQUIRE_FALSE(unwritable.ok());
  CHECK(unwritable.error().kind() == ErrorKind::Io);
  CHECK(unwritable.error().message() == "cannot write file: No such file or directory");
}
