// Every pass, registered once by name, for --passes and --list-passes.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "optimizer/pass.h"

namespace thunderc::opt {

/// A fresh instance of the pass called `name`; nullptr if no pass has that name.
std::unique_ptr<Pass> createPass(std::string_view name);

/// The names of all registered passes, sorted.
std::vector<std::string> passNames();

} // namespace thunderc::opt
