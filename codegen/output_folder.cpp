// `-o` safety and the atomic folder swap (see output_folder.h).
#include "codegen/output_folder.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>
#include <fcntl.h>
#include <unistd.h>

namespace thunderc::codegen {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kStagingTag = ".thunderc-tmp.";
constexpr std::string_view kPreviousTag = ".thunderc-old.";
constexpr std::string_view kMarkerText =
    "This folder is a bundle written by thunderc. `thunderc -o` replaces a folder only when it\n"
    "holds this file (or is empty): do not keep other files here.\n";

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
  if (isEmptyFolder(given) || hasMarker(given))
    return Status::success();
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
  removeStaleTemporaryFolders(target);

  fs::path staging = target.string() + std::string(kStagingTag) + std::to_string(::getpid());
  fs::remove_all(staging, error);
  // The marker goes first: a staging folder of a killed run then always carries it (or is
  // empty), which is what lets a later run remove it.
  Status written = writeFile(staging / kBundleMarker, kMarkerText);
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
  Status swapped = swapIn(staging, target);
  fs::remove_all(staging, error); // the new bundle on failure, the old one on success
  return swapped;
}

} // namespace thunderc::codegen
