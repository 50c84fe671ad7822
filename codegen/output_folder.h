// The output folder of `thunderc -o`: which folders thunderc may replace, and the atomic
// replacement itself. A bundle is written whole into a temporary sibling folder and swapped in,
// so the user sees either the old folder or the new one, never a mix and never nothing.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "ir/status.h"

namespace thunderc::codegen {

/// The file every bundle carries at its top level, listing every file thunderc wrote there.
/// Only a folder holding it and nothing else but those files and a top-level `build/` folder
/// (where the bundle's README builds it), or an empty or absent path, is ever replaced by `-o`.
inline constexpr const char *kBundleMarker = ".thunderc-bundle";

/// Usage error unless `outDir` may receive a bundle compiled from `inputPath`: it must be a
/// non-empty path that is absent, an empty folder, or a bundle holding only what its marker
/// lists and a `build/` folder; never the input file, a folder containing it, the working
/// directory or one of its ancestors, a symbolic link, anything that is not a folder, or a
/// bundle holding files of the user's (the message names them) or whose marker lists no files
/// (an older thunderc's). The message says which rule refused it.
Status checkOutputFolder(const std::string &outDir, const std::string &inputPath);

/// Removes the temporary siblings `OUT.thunderc-tmp.<pid>` / `OUT.thunderc-old.<pid>` of
/// `outDir` that runs killed mid-write left (their process is gone; the folder is empty or
/// carries the marker), so that a killed run's files never outlive the next run, whatever
/// becomes of it. Never fails: what cannot be removed stays.
void removeStaleTemporaries(const std::string &outDir);

/// Writes `files` (relative path -> bytes; the marker, listing them, is added) into the
/// temporary sibling `OUT.thunderc-tmp.<pid>` and swaps it in for `outDir`: one atomic
/// exchange of the two folders on Linux (renameat2 RENAME_EXCHANGE), a rename when `outDir` is
/// absent, two renames on file systems without the exchange. The old bundle's `build/` folder
/// moves into the new one. `outDir` is checked again first (checkOutputFolder's bundle rules),
/// and temporary folders left by killed runs are removed. On any error `outDir` is left as it
/// was; an I/O error names the path and the system's reason.
/// `streamed` files (relative path -> writer) are written by their writer, given the file's
/// path in the staging folder, so that large ones (weights.bin) never exist whole in memory.
using FileWriter = std::function<Status(const std::string &path)>;
Status replaceFolder(const std::map<std::string, std::string> &files, const std::string &outDir,
                     const std::map<std::string, FileWriter> &streamed = {});

} // namespace thunderc::codegen
