// checkTorchScriptArchive: the members of a torch.jit.save zip, checked before libtorch reads
// them (pickles through pt2/pickle_check.h, code through a tokenizer that only counts nesting).
#include "frontend/torchscript/archive.h"

#include <zlib.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/crc32.h"

namespace thunderc::frontend {
namespace {


bool startsWith(const std::string &text, std::string_view prefix) {
  return text.size() >= prefix.size() && text.compare(0, prefix.size(), prefix) == 0;
}

bool endsWith(const std::string &text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

Expected<std::vector<uint8_t>> readMember(const ZipArchive &zip, const ZipEntry &entry) {
  if (entry.method == 0) {
    TC_ASSIGN_OR_RETURN(std::span<const uint8_t> bytes, zip.read(entry, /*verifyCrc=*/true));
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  }
  // read() refuses compressed members: inflate what readRaw gives.
  const std::span<const uint8_t> all = zip.readRaw(entry);
  std::vector<uint8_t> out(entry.size);
  z_stream stream{};
  if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
    return invalidInput("cannot start inflating");
  stream.next_in = const_cast<Bytef *>(all.data());
  stream.avail_in = static_cast<uInt>(std::min<uint64_t>(all.size(), UINT32_MAX));
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  const int result = inflate(&stream, Z_FINISH);
  const uint64_t produced = stream.total_out;
  inflateEnd(&stream);
  if (result != Z_STREAM_END || produced != entry.size)
    return invalidInput("the deflated data does not inflate to the " +
                        std::to_string(entry.size) + " bytes the zip directory declares");
  if (runtime::crc32(out.data(), out.size()) != entry.crc32)
    return invalidInput("CRC-32 mismatch");
  return out;
}

Status checkTorchScriptSource(std::string_view source, const TorchScriptArchiveLimits &limits) {
  int depth = 0, line = 1, chain = 0, powers = 0, conditionals = 0;
  std::vector<size_t> indents{0};
  bool lineStart = true;
  const size_t n = source.size();
  auto fail = [&](const std::string &what) {
    return invalidInput("line " + std::to_string(line) + ": " + what);
  };
  size_t i = 0;
  while (i < n) {
    const char c = source[i];
    if (lineStart && depth == 0) {
      size_t j = i;
      while (j < n && (source[j] == ' ' || source[j] == '\t'))
        ++j;
      const bool blank = j >= n || source[j] == '\n' || source[j] == '\r' || source[j] == '#';
      const size_t column = j - i;
      if (!blank && column > indents.back()) {
        indents.push_back(column);
        if (indents.size() - 1 > static_cast<size_t>(limits.maxIndentLevels))
          return fail("blocks nested deeper than " + std::to_string(limits.maxIndentLevels) +
                      " levels");
      }
      while (!blank && column < indents.back())
        indents.pop_back();
      lineStart = false;
      i = j;
      continue;
    }
    if (c == '\n') {
      ++line;
      chain = 0;
      if (depth == 0) {
        lineStart = true;
        powers = conditionals = 0;
      }
      ++i;
      continue;
    }
    if (c == '#') {
      while (i < n && source[i] != '\n')
        ++i;
      continue;
    }
    if (c == '\\' && i + 1 < n && source[i + 1] == '\n') {
      i += 2;
      ++line;
      continue;
    }
    if (c == '\'' || c == '"') {
      const bool triple = i + 2 < n && source[i + 1] == c && source[i + 2] == c;
      i += triple ? 3 : 1;
      while (i < n) {
        if (source[i] == '\\') {
          if (i + 1 < n && source[i + 1] == '\n')
            ++line;
          i += 2;
          continue;
        }
        if (source[i] == '\n')
          ++line;
        if (source[i] == c && (!triple || (i + 2 < n && source[i + 1] == c && source[i + 2] == c))) {
          i += triple ? 3 : 1;
          break;
        }
        ++i;
      }
      chain = 0;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (++depth > limits.maxBracketDepth)
        return fail("brackets nested deeper than " + std::to_string(limits.maxBracketDepth) +
                    " levels");
      chain = 0;
      ++i;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
      chain = 0;
      ++i;
      continue;
    }
    if (c == '*' && i + 1 < n && source[i + 1] == '*') {
      if (++powers > limits.maxOperatorChain)
        return fail("more than " + std::to_string(limits.maxOperatorChain) +
                    " '**' in one statement");
      chain = 0;
      i += 2;
      continue;
    }
    if (c == '-' || c == '+' || c == '~') {
      if (++chain > limits.maxOperatorChain)
        return fail("more than " + std::to_string(limits.maxOperatorChain) +
                    " prefix operators in a row");
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = i;
      while (end < n && (std::isalnum(static_cast<unsigned char>(source[end])) ||
                         source[end] == '_'))
        ++end;
      const std::string_view word = source.substr(i, end - i);
      if (word == "not") {
        if (++chain > limits.maxOperatorChain)
          return fail("more than " + std::to_string(limits.maxOperatorChain) +
                      " prefix operators in a row");
      } else {
        chain = 0;
        if (word == "if" && ++conditionals > limits.maxOperatorChain)
          return fail("more than " + std::to_string(limits.maxOperatorChain) +
                      " conditional expressions in one statement");
      }
      i = end;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\r')
      chain = 0;
    ++i;
  }
  return Status::success();
}

Status checkTorchScriptArchive(const ZipArchive &zip, const TorchScriptArchiveLimits &limits) {
  const std::string top = zip.topFolder();
  if (top.empty())
    return invalidInput("not a TorchScript file: its members are not under one folder");
  const std::string prefix = top + "/";
  uint64_t codeBytes = 0;
  bool hasData = false;
  for (const ZipEntry &entry : zip.entries()) {
    const auto where = [&](Error error) { return std::move(error).withContext(entry.name); };
    if (!startsWith(entry.name, prefix))
      return invalidInput("member '" + entry.name + "' is outside the archive's folder '" +
                          top + "/' (libtorch reads every member from one folder)");
    if (entry.method != 0 && entry.method != 8)
      return where(unsupported("compression method " + std::to_string(entry.method) +
                               " (TorchScript files are stored or deflated)"));
    const std::string name = entry.name.substr(prefix.size());
    const bool isCode = startsWith(name, "code/") && endsWith(name, ".py");
    const bool isDebug = startsWith(name, "code/") && endsWith(name, ".debug_pkl");
    const bool isPickle = name.find('/') == std::string::npos && endsWith(name, ".pkl");
    if (!isCode && !isDebug && !isPickle)
      continue;
    if (entry.size > limits.maxMemberBytes)
      return where(invalidInput(std::to_string(entry.size) + " bytes exceed thunderc's limit "
                                "of " + std::to_string(limits.maxMemberBytes) +
                                " for one TorchScript code or pickle member"));
    codeBytes += entry.size;
    if (codeBytes > limits.maxCodeBytes)
      return where(invalidInput("the code and pickle members exceed thunderc's limit of " +
                                std::to_string(limits.maxCodeBytes) + " bytes together"));
    Expected<std::vector<uint8_t>> bytes = readMember(zip, entry);
    if (!bytes.ok())
      return where(bytes.error());
    if (isCode) {
      const std::string_view text(reinterpret_cast<const char *>(bytes->data()), bytes->size());
      if (Status status = checkTorchScriptSource(text, limits); !status.ok())
        return where(status.error());
      continue;
    }
    // A pickle's storages are the records in the folder of its name (data.pkl -> data/).
    const std::string folder = prefix + name.substr(0, name.size() - 4) + "/";
    hasData = hasData || name == "data.pkl";
    // torch.jit.save writes the example inputs of a trace (traced_inputs.pkl) with empty
    // records: only their shapes are kept, and only their shapes are read.
    const bool shapesOnly = name == "traced_inputs.pkl";
    auto storageBytes = [&](const std::string &key) -> int64_t {
      if (isDebug || key.empty() || key.find('/') != std::string::npos)
        return -1;
      const ZipEntry *record = zip.find(folder + key);
      if (record == nullptr)
        return -1;
      return shapesOnly && record->size == 0 ? INT64_MAX : static_cast<int64_t>(record->size);
    };
    Expected<PickleSummary> summary = checkPickle(*bytes, limits.pickle, storageBytes);
    if (!summary.ok())
      return where(summary.error());
  }
  if (!hasData)
    return invalidInput("not a TorchScript file: missing archive member '" + prefix +
                        "data.pkl'");
  return Status::success();
}

} // namespace thunderc::frontend
