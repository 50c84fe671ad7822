// The documented exit codes of `thunderc` (also printed by --help).
#pragma once

#include "ir/status.h"

namespace thunderc::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitInternal = 1,    ///< a compiler bug (internal compiler error)
  kExitUsage = 2,       ///< bad command line
  kExitIo = 3,          ///< a file could not be read or written
  kExitInvalid = 4,     ///< malformed model, IR text or input data
  kExitUnsupported = 5, ///< well-formed, but uses something thunderc does not compile
};

inline int exitCodeFor(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::Usage: return kExitUsage;
  case ErrorKind::Io: return kExitIo;
  case ErrorKind::InvalidInput: return kExitInvalid;
  case ErrorKind::Unsupported: return kExitUnsupported;
  }
  return kExitInternal;
}

inline constexpr const char *kExitCodeHelp = R"(exit codes:
  0  success
  1  internal compiler error (a bug in thunderc; please report it)
  2  usage error (bad command line)
  3  I/O error (a file could not be read or written)
  4  invalid input (malformed .pt2 archive, JSON, text IR or .npy data)
  5  unsupported (a valid model that uses an op or feature thunderc does not compile)
)";

} // namespace thunderc::cli
