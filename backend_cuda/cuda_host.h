// The host side of a CUDA bundle's <name>.cu that is the model's own (cuda_host.cpp): kernel
// launches in run_impl and the constants the model base (kernels/tc_cuda_model.h) reads.
// Everything else a CUDA model does on the host -- load and upload, contexts and streams,
// run_host's staging, synchronize, time_runs, graphs -- is that shipped base, not generated.
#pragma once

#include <string>
#include <vector>

#include "backend_cuda/cuda_kernels.h"
#include "codegen/code_writer.h"
#include "codegen/emit_state.h"

namespace thunderc::cuda {

/// Launches `kernel`, the kernel printed for `node`; for an epilogue fusion, first the library
/// call that writes the output the kernel finishes in place.
Status emitCudaKernelLaunch(const ir::Node &node, const CudaKernel &kernel,
                            codegen::EmitState &state);

/// Why a run of `graph` cannot be captured into a CUDA graph, naming the first node that
/// prevents it (a size or condition read back to the host, random numbers drawn with a
/// per-run counter); "" when it can.
std::string cudaGraphRefusal(const ir::Graph &graph);

/// Inside the generated `Model`: kAllowTf32, kGatherSites / kNumGatherSites (the labels of the
/// gather nodes, by EmitState::addGatherSite number) and kCudaGraphRefusal (`refusal` as
/// cudaGraphRefusal returned it).
void emitCudaModelConstants(codegen::CodeWriter &code, bool allowTf32,
                            const std::vector<std::string> &gatherSites,
                            const std::string &refusal);

} // namespace thunderc::cuda
