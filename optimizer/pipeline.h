// The default pass pipeline for each optimization level (docs/DESIGN.md §4).
#pragma once

#include <string>
#include <vector>

namespace thunderc::opt {

/// The passes `-O<level>` runs, in order (level 0, 1 or 2; see pipeline.cpp for what each adds).
std::vector<std::string> defaultPipeline(int level);

} // namespace thunderc::opt
