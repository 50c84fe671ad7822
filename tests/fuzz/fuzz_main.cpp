// The replay driver for builds without libFuzzer (any compiler): runs LLVMFuzzerTestOneInput
// once on every file named on the command line or found under a named folder, in sorted order,
// so that the checked-in corpus (tests/fuzz/corpus/<target>/) is a regression test under
// ASan/UBSan. A crash or sanitizer report fails the process; otherwise it prints the count.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const fs::directory_entry &entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file())
          files.push_back(entry.path());
    } else if (fs::is_regular_file(arg)) {
      files.push_back(arg);
    } else {
      std::fprintf(stderr, "error: %s is neither a file nor a folder\n", argv[i]);
      return 2;
    }
  }
  if (files.empty()) {
    std::fprintf(stderr, "error: no inputs (usage: %s FILE_OR_FOLDER...)\n", argv[0]);
    return 2;
  }
  std::sort(files.begin(), files.end());
  for (const fs::path &file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    // libFuzzer passes a non-null pointer for empty inputs too.
    uint8_t empty = 0;
    LLVMFuzzerTestOneInput(bytes.empty() ? &empty : bytes.data(), bytes.size());
  }
  std::printf("%s: %zu inputs replayed\n", fs::path(argv[0]).filename().c_str(), files.size());
  return 0;
}
