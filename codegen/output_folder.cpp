// `-o` safety and the atomic folder swap (see output_folder.h).
#include "codegen/output_folder.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <vector>
#include <fcntl.h>
#include <unistd.h>

namespace thunderc::codegen {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kStagingTag = ".thunderc-tmp.";
constexpr std::string_view kPreviousTag = ".thunderc-old.";
constexpr std::string_view kMarkerText =
    "This folder is a bundle written by thunderc. `thunderc -o` replaces it only while it holds\n"
    "nothing but the files listed below and a build/ folder (the bundle's README builds there;\n"
    "a recompile keeps it): put files of your own elsewhere.\n";
// The line after which the marker lists, one per line, every file thunderc wrote.
constexpr std::string_view kFileListHeader = "files:\n";
// The build folder the bundle's README tells users to create (`cmake -S out -B out/build`).
constexpr std::string_view kBuildFolder = "build";
// How many unexpected entries a refusal names.
constexpr size_t kNamedEntries = 5;

Error usageError(const std::string &message) { return Error(ErrorKind::Usage, message); }

// `path` as an absolute, normalized path without a trailing separator, with symbolic links
// resolved as far as the path exists.
fs::path resolved(const fs::path &path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error).lexically_normal();
  fs::path canonical = fs::weakly_canonical(absolute, error);
  fs::path result = error ? absolute : canonical;
  if (result.filename().empty() && result.has_parent_path() && result != result.root_path())
    result = result.parent_path();
  return result;
}

// True when `ancestor` is `path` or one of its parent folders (both resolved).
bool isSameOrAncestor(const fs::path &ancestor, const fs::path &path) {
  auto a = ancestor.begin();
  auto p = path.begin();
  for (; a != ancestor.end(); ++a, ++p) {
    if (a->empty())
      continue; // a trailing separator
    if (p == path.end() || *a != *p)
      return false;
  }
  return true;
}

bool isEmptyFolder(const fs::path &path) {
  std::error_code error;
  return fs::is_directory(path, error) && fs::is_empty(path, error) && !error;
}

bool hasMarker(const fs::path &folder) {
  std::error_code error;
  return fs::is_regular_file(folder / kBundleMarker, error);
}

std::string markerText(const std::vector<std::string> &files) {
  std::string text = std::string(kMarkerText) + std::string(kFileListHeader);
  for (const std::string &file : files)
    text += file + "\n";
  return text;
}

// The files a bundle's marker lists, or nullopt when it lists none (an unreadable marker, or
// one an older thunderc wrote).
std::optional<std::set<std::string>> listedFiles(const fs::path &folder) {
  std::ifstream stream(folder / kBundleMarker, std::ios::binary);
  if (!stream)
    return std::nullopt;
  std::string line;
  bool inList = false;
  std::set<std::string> files;
  while (std::getline(stream, line)) {
    if (inList)
      files.insert(line);
    else if (line + "\n" == kFileListHeader)
      inList = true;
  }
  if (!inList)
    return std::nullopt;
  return files;
}

// `path` for a message, quoted, on one line.
std::string quotedPath(const std::string &path) {
  std::string out = "'";
  for (char c : path)
    out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out + "'";
}

// What `folder` (a bundle) holds besides its marker, the files it lists, the folders leading
// to them and a top-level build folder: relative paths, sorted. Every entry when the marker
// lists nothing.
std::vector<std::string> unexpectedEntries(const fs::path &folder) {
  std::optional<std::set<std::string>> listed = listedFiles(folder);
  std::set<std::string> known = listed.value_or(std::set<std::string>{});
  std::set<std::string> parents;
  for (const std::string &file : known)
    for (fs::path parent = fs::path(file).parent_path(); !parent.empty();
         parent = parent.parent_path())
      parents.insert(parent.generic_string());
  std::vector<std::string> unexpected;
  std::error_code error;
  fs::recursive_directory_iterator it(folder, error), end;
  for (; !error && it != end; it.increment(error)) {
    std::string relative = it->path().lexically_relative(folder).generic_string();
    bool isFolder = it->is_directory(error) && !it->is_symlink(error);
    if (relative == kBundleMarker || (listed && relative == kBuildFolder && isFolder)) {
      if (isFolder)
        it.disable_recursion_pending(); // build/: the user's build tree, kept as a whole
      continue;
    }
    if (isFolder ? parents.count(relative) != 0 : known.count(relative) != 0)
      continue;
    unexpected.push_back(relative);
    if (isFolder)
      it.disable_recursion_pending(); // name the folder, not everything in it
  }
  if (error)
    unexpected.push_back("(" + folder.string() + " could not be read: " + error.message() + ")");
  std::sort(unexpected.begin(), unexpected.end());
  return unexpected;
}

// Usage error naming what `folder` holds that thunderc did not write, or success.
Status checkOnlyOurFiles(const fs::path &folder, const std::string &shown) {
  std::vector<std::string> unexpected = unexpectedEntries(folder);
  if (unexpected.empty())
    return Status::success();
  if (!listedFiles(folder))
    return usageError(shown + " has a " + kBundleMarker + " marker without a list of the files "
                      "thunderc wrote (an older thunderc wrote it); remove the folder first or "
                      "give a new folder");
  std::string names;
  for (size_t i = 0; i < unexpected.size() && i < kNamedEntries; ++i)
    names += (i ? ", " : "") + quotedPath(unexpected[i]);
  if (unexpected.size() > kNamedEntries)
    names += " and " + std::to_string(unexpected.size() - kNamedEntries) + " more";
  return usageError(shown + " is a thunderc bundle that also holds " + names +
                    ", which thunderc did not write; thunderc replaces the whole output folder, "
                    "so move them out first (or give a new folder)");
}

// True when `name` is `<stem><tag><pid>` for a process that no longer exists.
bool isStaleTemporary(const std::string &name, const std::string &stem, std::string_view tag) {
  std::string prefix = stem + std::string(tag);
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
    return false;
  std::string digits = name.substr(prefix.size());
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  pid_t pid = static_cast<pid_t>(std::stol(digits));
  if (pid <= 0 || pid == ::getpid())
    return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

// Removes `OUT.thunderc-tmp.<pid>` / `OUT.thunderc-old.<pid>` folders of killed runs. Only
// folders that are empty or carry the marker are touched, so nothing else can be deleted.
void removeStaleTemporaryFolders(const fs::path &target) {
  std::error_code error;
  std::string stem = target.filename().string();
  for (fs::directory_iterator it(target.parent_path(), error), end; !error && it != end;
       it.increment(error)) {
    std::string name = it->path().filename().string();
    if (!isStaleTemporary(name, stem, kStagingTag) && !isStaleTemporary(name, stem, kPreviousTag))
      continue;
    std::error_code ignored;
    if (fs::is_symlink(it->path(), ignored) || !fs::is_directory(it->path(), ignored))
      continue;
    if (hasMarker(it->path()) || isEmptyFolder(it->path()))
      fs::remove_all(it->path(), ignored);
  }
}

// An I/O error naming `path`, `what` failed and why (errno's text).
Error ioFailure(const fs::path &path, const std::string &what, int code) {
  return ioError(path.string() + ": " + what + ": " + std::strerror(code));
}

Status createFolders(const fs::path &folder) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error)
    return ioFailure(folder, "cannot create folder", error.value());
  return Status::success();
}

Status writeFile(const fs::path &path, std::string_view contents) {
  TC_TRY(createFolders(path.parent_path()));
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return ioFailure(path, "cannot write file", errno);
  for (size_t done = 0; done < contents.size();) {
    ssize_t written = ::write(fd, contents.data() + done, contents.size() - done);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      int code = written < 0 ? errno : EIO;
      ::close(fd);
      return ioFailure(path, "cannot write file", code);
    }
    done += static_cast<size_t>(written);
  }
  if (::close(fd) != 0)
    return ioFailure(path, "cannot write file", errno);
  return Status::success();
}

// Puts `staging` in the place of an existing `target`; afterwards `staging` holds the old
// folder. One atomic exchange where the file system has it, else two renames.
Status swapIn(const fs::path &staging, const fs::path &target) {
#ifdef RENAME_EXCHANGE
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0)
    return Status::success();
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
    return ioError(target.string() + ": cannot replace the existing folder: " +
                   std::strerror(errno));
#endif
  fs::path previous = target.string() + std::string(kPreviousTag) + std::to_string(::getpid());
  std::error_code error;
  fs::rename(target, previous, error);
  if (error)
    return ioError(target.string() + ": cannot replace the existing folder: " + error.message());
  fs::rename(staging, target, error);
  if (error) {
    std::error_code ignored;
    fs::rename(previous, target, ignored);
    return ioError(target.string() + ": cannot create the output folder: " + error.message());
  }
  fs::rename(previous, staging, error);
  return Status::success();
}

} // namespace

Status checkOutputFolder(const std::string &outDir, const std::string &inputPath) {
  if (outDir.empty())
    return usageError("-o needs a folder name, not an empty path");
  fs::path target = resolved(outDir);
  std::string shown = "-o '" + outDir + "'";
  std::error_code error;
  fs::path cwd = resolved(fs::current_path(error));
  if (!error && isSameOrAncestor(target, cwd))
    return usageError(shown + " is the working directory or one of its parents; thunderc "
                              "replaces the whole output folder, so give a new folder such as "
                              "'out/'");
  if (!inputPath.empty()) {
    fs::path input = resolved(inputPath);
    if (target == input)
      return usageError(shown + " is the input file");
    if (isSameOrAncestor(target, input))
      return usageError(shown + " contains the input file '" + inputPath +
                        "'; thunderc replaces the whole output folder");
  }
  fs::path given = fs::absolute(fs::path(outDir), error).lexically_normal();
  if (given.filename().empty() && given.has_parent_path())
    given = given.parent_path();
  fs::file_status status = fs::symlink_status(given, error);
  if (status.type() == fs::file_type::not_found)
    return Status::success();
  if (fs::is_symlink(status))
    return usageError(shown + " is a symbolic link; give the folder it points to, or a new "
                              "path");
  if (!fs::is_directory(status))
    return usageError(shown + " exists and is not a folder; thunderc writes a bundle folder "
                              "and replaces only folders it wrote");
  if (isEmptyFolder(given))
    return Status::success();
  if (hasMarker(given))
    return checkOnlyOurFiles(given, shown);
  return usageError(shown + " is a folder that thunderc did not write (it has files but no " +
                    kBundleMarker + " marker); thunderc replaces the whole output folder, so "
                    "remove it first or give a new folder");
}

void removeStaleTemporaries(const std::string &outDir) {
  if (outDir.empty())
    return;
  fs::path target = resolved(outDir);
  if (target.has_parent_path() && target != target.root_path())
    removeStaleTemporaryFolders(target);
}

Status replaceFolder(const std::map<std::string, std::string> &files, const std::string &outDir,
                     const std::map<std::string, FileWriter> &streamed) {
  if (outDir.empty())
    return usageError("-o needs a folder name, not an empty path");
  fs::path target = fs::absolute(fs::path(outDir)).lexically_normal();
  if (target.filename().empty())
    target = target.parent_path();
  if (!target.has_parent_path() || target == target.root_path())
    return usageError("-o '" + outDir + "': cannot replace the root folder");
  // The last line of defence, whoever calls: never replace something that is not ours.
  std::error_code error;
  fs::file_status status = fs::symlink_status(target, error);
  bool hadTarget = status.type() != fs::file_type::not_found;
  if (hadTarget && (fs::is_symlink(status) || !fs::is_directory(status) ||
                    (!hasMarker(target) && !isEmptyFolder(target))))
    return usageError("-o '" + outDir + "' is not a thunderc bundle folder; not replaced");
  // Checked again now that the compile is done: files may have appeared meanwhile.
  if (hadTarget && hasMarker(target))
    TC_TRY(checkOnlyOurFiles(target, "-o '" + outDir + "'"));
  removeStaleTemporaryFolders(target);

  fs::path staging = target.string() + std::string(kStagingTag) + std::to_string(::getpid());
  fs::remove_all(staging, error);
  // The marker goes first, listing every file to come: a staging folder of a killed run then
  // always carries it (or is empty), which is what lets a later run remove it.
  std::vector<std::string> names;
  for (const auto &[name, contents] : files)
    names.push_back(name);
  for (const auto &[name, writer] : streamed)
    names.push_back(name);
  std::sort(names.begin(), names.end());
  Status written = writeFile(staging / kBundleMarker, markerText(names));
  for (auto it = files.begin(); written.ok() && it != files.end(); ++it)
    written = writeFile(staging / it->first, it->second);
  for (auto it = streamed.begin(); written.ok() && it != streamed.end(); ++it) {
    fs::path path = staging / it->first;
    written = createFolders(path.parent_path());
    if (written.ok())
      written = it->second(path.string());
  }
  if (!written.ok()) {
    fs::remove_all(staging, error);
    return written;
  }
  if (!hadTarget) {
    fs::rename(staging, target, error);
    if (error) {
      std::error_code ignored;
      fs::remove_all(staging, ignored);
      return ioFailure(target, "cannot create the output folder", error.value());
    }
    return Status::success();
  }
  // The build folder the bundle's README creates moves into the new bundle (an incremental
  // rebuild; nothing of the user's is deleted), and back if the swap fails. (A run killed
  // between the two renames leaves it in its staging folder, which the next run removes: a
  // build tree, which the next configure recreates.)
  fs::path build = target / kBuildFolder;
  fs::path carried = staging / kBuildFolder;
  bool carry = fs::is_directory(fs::symlink_status(build, error));
  if (carry) {
    fs::rename(build, carried, error);
    if (error) {
      std::error_code ignored;
      fs::remove_all(staging, ignored);
      return ioFailure(build, "cannot move the build folder into the new bundle", error.value());
    }
  }
  Status swapped = swapIn(staging, target);
  if (!swapped.ok() && carry)
    fs::rename(carried, build, error);
  fs::remove_all(staging, error); // the new bundle on failure, the old one on success
  return swapped;
}

} // namespace thunderc::codegen
