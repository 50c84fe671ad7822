// A bundle as a Triton Inference Server model (`thunderc --triton`, docs/TRITON.md): its
// config.pbtxt, the shared library's name-independent entry table (runtime/thunderc_model_api.h)
// and the CMake lines that build the library and lay out the model repository.
#pragma once

#include <map>
#include <string>

#include "codegen/bundle.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::codegen {

/// The files `--triton` adds to a bundle: triton/config.pbtxt and triton/<name>_model_api.cpp.
/// Unsupported for a graph the backend cannot serve (an input dtype Triton has no type for).
/// `cuda`: a CUDA bundle (GPU instances; the library runs on host tensors through
/// <name>_run_host and selects the instance's device).
Expected<std::map<std::string, std::string>> tritonFiles(const ir::Graph &graph,
                                                         const BundleOptions &options,
                                                         bool cuda);

/// The CMake lines of the bundle's Triton targets (empty without --triton).
std::string tritonCmake(const BundleOptions &options);

} // namespace thunderc::codegen
