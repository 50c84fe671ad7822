// Tests for runtime/npy, the one .npy codec (bundles' runners and thunderc --interpret): files
// byte-identical to numpy.save's (bytes captured from numpy 2.4), a round trip for every dtype
// and rank, the header variations other writers produce, and malformed files, which must be
// TC_ERROR_INVALID_ARGUMENT with a message rather than a crash.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include "runtime/npy.h"

namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "tc_npy_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string &name) const { return (path / name).string(); }
};

std::vector<uint8_t> fromHex(std::string_view hex) {
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(uint8_t(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return bytes;
}

std::vector<uint8_t> readBytes(const std::string &path) {
  std::ifstream stream(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream stream(path, std::ios::binary | std::ios::trunc);
  stream.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
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

/// Parses `bytes`, expecting failure; returns the message.
std::string parseError(const std::vector<uint8_t> &bytes) {
  tc_tensor tensor;
  tc_error err;
  CHECK(tc_npy_parse(bytes.data(), bytes.size(), &tensor, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(tensor.data == nullptr);
  return err.message;
}

std::vector<int64_t> shapeOf(const tc_tensor &tensor) {
  return {tensor.shape, tensor.shape + tensor.rank};
}

/// One numpy.save output: the dtype and shape it holds.
struct NumpyCase {
  const char *what;
  std::string_view hex;
  tc_dtype dtype;
  std::vector<int64_t> shape;
};

const NumpyCase kNumpyCases[] = {
    {"np.arange(6, dtype='<f4').reshape(2, 3)",
     "934e554d5059010076007b276465736372273a20273c6634272c2027666f727472616e5f6f72646572273a2046"
     "616c73652c20277368617065273a2028322c2033292c207d202020202020202020202020202020202020202020"
     "202020202020202020202020202020202020202020202020202020202020202020202020200a00000000000080"
     "3f0000004000004040000080400000a040",
     TC_DTYPE_F32,
     {2, 3}},
    {"np.array([True, False, True])",
     "934e554d5059010076007b276465736372273a20277c6231272c2027666f727472616e5f6f72646572273a2046"
     "616c73652c20277368617065273a2028332c292c207d2020202020202020202020202020202020202020202020"
     "202020202020202020202020202020202020202020202020202020202020202020202020200a010001",
     TC_DTYPE_BOOL,
     {3}},
    {"np.float64(2.5)",
     "934e554d5059010076007b276465736372273a20273c6638272c2027666f727472616e5f6f72646572273a2046"
     "616c73652c20277368617065273a2028292c207d20202020202020202020202020202020202020202020202020"
     "202020202020202020202020202020202020202020202020202020202020202020202020200a00000000000004"
     "40",
     TC_DTYPE_F64,
     {}},
    {"np.array([[-1, 2, 300]], dtype='<i2')",
     "934e554d5059010076007b276465736372273a20273c6932272c2027666f727472616e5f6f72646572273a2046"
     "616c73652c20277368617065273a2028312c2033292c207d202020202020202020202020202020202020202020"
     "202020202020202020202020202020202020202020202020202020202020202020202020200affff02002c01",
     TC_DTYPE_I16,
     {1, 3}},
    {"np.array([0x3f80, 0xc000], dtype='<u2') (bf16 1.0, -2.0)",
     "934e554d5059010076007b276465736372273a20273c7532272c2027666f727472616e5f6f72646572273a2046"
     "616c73652c20277368617065273a2028322c292c207d2020202020202020202020202020202020202020202020"
     "202020202020202020202020202020202020202020202020202020202020202020202020200a803f00c0",
     TC_DTYPE_BF16,
     {2}},
    {"np.zeros((0, 4), dtype='|i1')",
     "934e554d5059010076007b276465736372273a20277c6931272c2027666f727472616e5f6f72646572273a2046"
     "616c73652c20277368617065273a2028302c2034292c207d202020202020202020202020202020202020202020"
     "202020202020202020202020202020202020202020202020202020202020202020202020200a",
     TC_DTYPE_I8,
     {0, 4}},
};

} // namespace

TEST_CASE("runtime npy: reads numpy files and writes them byte for byte") {
  TempDir dir;
  for (const NumpyCase &numpyCase : kNumpyCases) {
    CAPTURE(numpyCase.what);
    std::vector<uint8_t> bytes = fromHex(numpyCase.hex);
    tc_tensor tensor;
    tc_error err;
    REQUIRE_MESSAGE(tc_npy_parse(bytes.data(), bytes.size(), &tensor, &err) == TC_OK,
                    err.message);
    CHECK(tensor.dtype == numpyCase.dtype);
    CHECK(shapeOf(tensor) == numpyCase.shape);
    REQUIRE(tensor.data != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(tensor.data) % 64 == 0);
    size_t dataSize = size_t(tc_tensor_byte_size(&tensor));
    CHECK(std::memcmp(tensor.data, bytes.data() + bytes.size() - dataSize, dataSize) == 0);

    std::string path = dir.file("out.npy");
    REQUIRE_MESSAGE(tc_npy_write(path.c_str(), &tensor, &err) == TC_OK, err.message);
    CHECK(readBytes(path) == bytes);
    tc_npy_free(&tensor);
    CHECK(tensor.data == nullptr);
  }
}

TEST_CASE("runtime npy: every dtype round-trips through a file") {
  TempDir dir;
  for (int dtypeIndex = 0; dtypeIndex < TC_DTYPE_COUNT; ++dtypeIndex) {
    tc_dtype dtype = tc_dtype(dtypeIndex);
    CAPTURE(tc_dtype_name(dtype));
    tc_tensor tensor{};
    tensor.dtype = dtype;
    tensor.rank = 3;
    tensor.shape[0] = 2;
    tensor.shape[1] = 1;
    tensor.shape[2] = 5;
    std::vector<uint8_t> data(size_t(tc_tensor_byte_size(&tensor)));
    for (size_t i = 0; i < data.size(); ++i)
      data[i] = dtype == TC_DTYPE_BOOL ? uint8_t(i % 2) : uint8_t(i * 37 + 11);
    tensor.data = data.data();

    std::string path = dir.file(std::string(tc_dtype_name(dtype)) + ".npy");
    tc_error err;
    REQUIRE_MESSAGE(tc_npy_write(path.c_str(), &tensor, &err) == TC_OK, err.message);
    std::vector<uint8_t> file = readBytes(path);
    CHECK((file.size() - data.size()) % 64 == 0); // data 64-byte aligned, as numpy does
    tc_tensor read;
    REQUIRE_MESSAGE(tc_npy_read(path.c_str(), &read, &err) == TC_OK, err.message);
    CHECK(read.dtype == dtype);
    CHECK(shapeOf(read) == std::vector<int64_t>{2, 1, 5});
    CHECK(std::memcmp(read.data, data.data(), data.size()) == 0);
    CHECK(std::string(tc_npy_descr(dtype)).size() == 3);
    tc_npy_free(&read);
  }
  CHECK(tc_npy_descr(TC_DTYPE_BF16) == std::string("<u2"));
  CHECK(tc_npy_descr(tc_dtype(TC_DTYPE_COUNT)) == nullptr);
}

TEST_CASE("runtime npy: written data starts 64-byte aligned at every rank") {
  // The header's padding depends on the length of the shape text, so try each rank.
  TempDir dir;
  std::string path = dir.file("aligned.npy");
  int16_t value = 7;
  for (int32_t rank = 0; rank <= TC_MAX_RANK; ++rank) {
    CAPTURE(rank);
    tc_tensor tensor{&value, TC_DTYPE_I16, rank, {}};
    for (int32_t i = 0; i < rank; ++i)
      tensor.shape[i] = 1;
    tc_error err;
    REQUIRE_MESSAGE(tc_npy_write(path.c_str(), &tensor, &err) == TC_OK, err.message);
    std::vector<uint8_t> file = readBytes(path);
    CHECK((file.size() - sizeof(value)) % 64 == 0);
    CHECK(file[file.size() - sizeof(value) - 1] == '\n');
    tc_tensor read;
    REQUIRE_MESSAGE(tc_npy_read(path.c_str(), &read, &err) == TC_OK, err.message);
    CHECK(shapeOf(read) == shapeOf(tensor));
    CHECK(*static_cast<int16_t *>(read.data) == 7);
    tc_npy_free(&read);
  }
}

TEST_CASE("runtime npy: header variations other writers produce") {
  tc_tensor tensor;
  tc_error err;
  // Keys in another order, double quotes, version 2.0, "=" byte order, Python 2's "L".
  std::vector<uint8_t> bytes = npyWithHeader(
      "{\"shape\": (2L, 3), 'fortran_order': False, 'descr': '=i4'}\n", 24, 2);
  REQUIRE_MESSAGE(tc_npy_parse(bytes.data(), bytes.size(), &tensor, &err) == TC_OK, err.message);
  CHECK(tensor.dtype == TC_DTYPE_I32);
  CHECK(shapeOf(tensor) == std::vector<int64_t>{2, 3});
  tc_npy_free(&tensor);
  // Version 3.0, a single-byte type with a '<' mark, no trailing comma.
  bytes = npyWithHeader("{'descr': '<u1', 'fortran_order': False, 'shape': (4,)}", 4, 3);
  REQUIRE_MESSAGE(tc_npy_parse(bytes.data(), bytes.size(), &tensor, &err) == TC_OK, err.message);
  CHECK(tensor.dtype == TC_DTYPE_U8);
  tc_npy_free(&tensor);
  // Version 1.0 with no spaces at all but one after '{', and a newline after the dict.
  bytes = npyWithHeader("{ \"shape\":(2L,3L),'fortran_order':False,'descr':'<i8'}\n", 48);
  REQUIRE_MESSAGE(tc_npy_parse(bytes.data(), bytes.size(), &tensor, &err) == TC_OK, err.message);
  CHECK(tensor.dtype == TC_DTYPE_I64);
  CHECK(shapeOf(tensor) == std::vector<int64_t>{2, 3});
  tc_npy_free(&tensor);
  // Empty bf16 arrays in the 4-byte-length formats still get (non-NULL) data.
  for (int major : {2, 3}) {
    CAPTURE(major);
    bytes = npyWithHeader("{'descr': '<u2', 'fortran_order': False, 'shape': (0, 4), }\n", 0,
                          major);
    REQUIRE_MESSAGE(tc_npy_parse(bytes.data(), bytes.size(), &tensor, &err) == TC_OK,
                    err.message);
    CHECK(tensor.dtype == TC_DTYPE_BF16);
    CHECK(shapeOf(tensor) == std::vector<int64_t>{0, 4});
    CHECK(tensor.data != nullptr);
    tc_npy_free(&tensor);
  }
}

TEST_CASE("runtime npy: malformed files") {
  auto header = [](std::string_view text, size_t dataSize = 0, int major = 1) {
    return parseError(npyWithHeader(text, dataSize, major));
  };
  CHECK(parseError({}) == "not an npy file (bad magic)");
  CHECK(parseError({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0}) == "not an npy file (bad magic)");
  CHECK(parseError(npyWithHeader("{}", 0, 4)) == "npy format version 4.0 is not supported");
  CHECK(parseError({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x10}) == "truncated npy header");
  std::vector<uint8_t> longer = npyWithHeader("{'descr': '<f4'}", 0);
  longer[8] = 0xFF; // header length past the end
  CHECK(parseError(longer) == "truncated npy header");

  CHECK(header("") == "malformed npy header (expected '{')");
  CHECK(header("{") == "malformed npy header (expected a string)");
  CHECK(header("{'descr' '<f4'}") == "malformed npy header (expected ':' after 'descr')");
  CHECK(header("{'descr': '<f4}") == "malformed npy header (unterminated string)");
  CHECK(header("{'descr': '<f4', 'descr': '<f4'}") ==
        "malformed npy header (unexpected or repeated key 'descr')");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'extra': 1}") ==
        "malformed npy header (unexpected or repeated key 'extra')");
  CHECK(header("{'descr': '<f4 'fortran_order': False, 'shape': (4,)}") ==
        "malformed npy header (expected ',' or '}')");
  CHECK(header("{'descr': '<f4', 'fortran_order': Nope, 'shape': ()}") ==
        "malformed npy header (expected True or False)");
  CHECK(header("{'descr': '<f4', 'fortran_order': False}") ==
        "malformed npy header (missing 'descr', 'fortran_order' or 'shape')");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}") ==
        "malformed npy header (expected a dimension)");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}") ==
        "malformed npy header (dimension too large)");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1)}") ==
        "malformed npy header (rank exceeds 8)");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}") ==
        "malformed npy header (expected ',' or ')' in shape)");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': [4]}") ==
        "malformed npy header (expected a shape tuple)");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': ()} x") ==
        "malformed npy header (unexpected text after the dict)");
  CHECK(header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}") ==
        "malformed npy header (structured dtypes are not supported)");

  CHECK(header("{'descr': '>f4', 'fortran_order': False, 'shape': ()}", 4) ==
        "unsupported npy dtype '>f4' (big-endian)");
  CHECK(header("{'descr': '<c8', 'fortran_order': False, 'shape': ()}", 8) ==
        "unsupported npy dtype '<c8'");
  CHECK(header("{'descr': '', 'fortran_order': False, 'shape': ()}", 8) ==
        "unsupported npy dtype ''");
  CHECK(header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2)}", 16) ==
        "npy arrays in Fortran order are not supported");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2)}", 12) ==
        "npy data is 12 bytes, expected 16 for shape (2, 2) <f4");
  CHECK(header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 9) ==
        "npy data is 9 bytes, expected 8 for shape (2,) <f4");
  CHECK(header("{'descr': '<f8', 'fortran_order': False, 'shape': ()}") ==
        "npy data is 0 bytes, expected 8 for shape () <f8");
  // The element count overflows, and then the byte count alone does.
  CHECK(header("{'descr': '<f8', 'fortran_order': False, "
               "'shape': (4294967296, 4294967296)}") ==
        "npy shape (4294967296, 4294967296) is too large");
  CHECK(header("{'descr': '<f8', 'fortran_order': False, "
               "'shape': (9223372036854775807, 4)}") ==
        "npy shape (9223372036854775807, 4) is too large");

  // Every prefix of a valid file is an error, never a crash.
  std::vector<uint8_t> valid = fromHex(kNumpyCases[0].hex);
  for (size_t size = 0; size < valid.size(); ++size) {
    CAPTURE(size);
    parseError(std::vector<uint8_t>(valid.begin(), valid.begin() + long(size)));
  }
}

TEST_CASE("runtime npy: file errors name the path") {
  TempDir dir;
  tc_tensor tensor;
  tc_error err;
  std::string missing = dir.file("missing.npy");
  CHECK(tc_npy_read(missing.c_str(), &tensor, &err) == TC_ERROR_IO);
  CHECK(std::string(err.message) == missing + ": cannot open file: No such file or directory");
  CHECK(tc_npy_read(dir.path.string().c_str(), &tensor, &err) == TC_ERROR_IO);
  CHECK(std::string(err.message) == dir.path.string() + ": not a regular file");
  std::string bad = dir.file("bad.npy");
  writeBytes(bad, {'n', 'o', 'p', 'e'});
  CHECK(tc_npy_read(bad.c_str(), &tensor, &err) == TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) == bad + ": not an npy file (bad magic)");

  float value = 1.0f;
  tc_tensor scalar{&value, TC_DTYPE_F32, 0, {}};
  std::string unwritable = dir.file("no/such/dir/x.npy");
  CHECK(tc_npy_write(unwritable.c_str(), &scalar, &err) == TC_ERROR_IO);
  CHECK(std::string(err.message) ==
        unwritable + ": cannot write file: No such file or directory");
  tc_tensor nullData{nullptr, TC_DTYPE_F32, 1, {2}};
  CHECK(tc_npy_write(dir.file("x.npy").c_str(), &nullData, &err) == TC_ERROR_INVALID_ARGUMENT);
  tc_tensor badRank{&value, TC_DTYPE_F32, 9, {}};
  CHECK(tc_npy_write(dir.file("x.npy").c_str(), &badRank, &err) == TC_ERROR_INVALID_ARGUMENT);
  tc_tensor badDtype{&value, tc_dtype(TC_DTYPE_COUNT), 0, {}};
  CHECK(tc_npy_write(dir.file("x.npy").c_str(), &badDtype, &err) == TC_ERROR_INVALID_ARGUMENT);
  tc_tensor negativeDim{&value, TC_DTYPE_F32, 1, {-1}};
  CHECK(tc_npy_write(dir.file("x.npy").c_str(), &negativeDim, &err) ==
        TC_ERROR_INVALID_ARGUMENT);
  CHECK(std::string(err.message) ==
        dir.file("x.npy") + ": invalid dtype, rank or shape for an npy file");
  CHECK_FALSE(std::filesystem::exists(dir.file("x.npy")));
  CHECK(tc_npy_read(nullptr, &tensor, &err) == TC_ERROR_INVALID_ARGUMENT);
  tc_npy_free(nullptr);
}
