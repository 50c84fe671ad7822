// Checking a TorchScript file (torch.jit.save) before libtorch reads it: the zip layout, every
// pickle (pt2/pickle_check.h: opcodes, lengths, nesting, each storage against its record, each
// tensor inside its storage), and the nesting of the serialized code, within bounds taken from
// CPython's own tokenizer. libtorch then runs on a file that cannot make it allocate more than
// the file holds or recurse without bound (docs/THREAT_MODEL.md).
#pragma once

#include <cstdint>
#include <vector>

#include "frontend/pt2/pickle_check.h"
#include "frontend/pt2/zip_reader.h"
#include "ir/status.h"

namespace thunderc::frontend {

struct TorchScriptArchiveLimits {
  uint64_t maxMemberBytes = uint64_t(256) << 20; ///< one code or debug member, uncompressed
  uint64_t maxCodeBytes = uint64_t(1) << 30;     ///< all of them together
  int maxBracketDepth = 200;   ///< CPython's MAXLEVEL of nested parentheses
  int maxIndentLevels = 100;   ///< CPython's MAXINDENT
  int maxOperatorChain = 200;  ///< prefix operators in a row, `**` or `if` in one statement
  PickleLimits pickle;
};

/// Checks every member of a TorchScript archive. Errors are ErrorKind::InvalidInput naming the
/// member and where in it ("archive/data.pkl: pickle byte 123: storage '0' (FloatStorage, 12
/// elements) needs 48 bytes, its record has 16"; "archive/code/__torch__.py: line 3: brackets
/// nested deeper than 200 levels"), or ErrorKind::Unsupported for a compression method other
/// than stored or deflate.
Status checkTorchScriptArchive(const ZipArchive &zip,
                               const TorchScriptArchiveLimits &limits = {});

/// A member's uncompressed bytes (stored, or deflated as torch.jit.save writes code), checked
/// against the size and CRC-32 the zip directory declares. The caller bounds entry.size.
Expected<std::vector<uint8_t>> readMember(const ZipArchive &zip, const ZipEntry &entry);

/// The nesting check of serialized TorchScript source alone (exposed for tests).
Status checkTorchScriptSource(std::string_view source, const TorchScriptArchiveLimits &limits);

} // namespace thunderc::frontend
