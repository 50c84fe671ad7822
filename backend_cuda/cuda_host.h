// The pieces of a CUDA bundle's <name>.cu that differ from a CPU bundle's <name>.cpp
// (cuda_host.cpp); cuda_backend.cpp assembles them into the CUDA TargetBackend.
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
/// Standard, CUDA and kernel-library includes.
void emitCudaIncludes(codegen::CodeWriter &code);
/// <name>_model (device weights) and <name>_context (stream, cuBLAS, arena, staging).
void emitCudaModelTypes(codegen::CodeWriter &code, const std::string &name, size_t numWeights);
/// load (upload), free, context_create/destroy and context_set_stream. Needs kWeights,
/// kNumWeights, alignUp, kAllowTf32 and probe_kernel in scope.
void emitCudaLifecycle(codegen::CodeWriter &code, const std::string &name);
/// Inside <name>_run once `bytes` is known: the device arena, `base` and the `ex` resources.
void emitCudaArena(codegen::CodeWriter &code, const std::string &name);
/// `<name>_context_reset`: the context's state buffer reserved, then every state copied from
/// its initial value in the device weights, on the context's stream.
void emitCudaContextReset(codegen::CodeWriter &code, const std::string &name);
/// synchronize, run_host and time_runs (host tensors staged through the context). Needs
/// bindInputs and checkOutputs in scope. `gatherSites` are the labels of the gather nodes, by
/// EmitState::addGatherSite number.
void emitCudaHostRuns(codegen::CodeWriter &code, const std::string &name, size_t numInputs,
                      size_t numOutputs, const std::vector<std::string> &gatherSites);

/// Why a run of `graph` cannot be captured into a CUDA graph, naming the first node that
/// prevents it (a size or condition read back to the host, random numbers drawn with a
/// per-run counter); "" when it can.
std::string cudaGraphRefusal(const ir::Graph &graph);
/// The end of <name>_run: `work` (the run's launches) run directly, or through the context's
/// CUDA graphs keyed by `key` when they are on.
void emitCudaGraphRun(codegen::CodeWriter &code, const std::string &name,
                      const std::vector<std::string> &key);
/// <name>_context_set_cuda_graphs and <name>_context_cuda_graph_stats; `refusal` as
/// cudaGraphRefusal returned it.
void emitCudaGraphApi(codegen::CodeWriter &code, const std::string &name,
                      const std::string &refusal);

} // namespace thunderc::cuda
