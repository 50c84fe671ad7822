// The host side of CUDA bundles that is the model's own: the kernel launches in run_impl and
// the constants the shipped model base (kernels/tc_cuda_model.h) reads. The base does the rest
// (load and upload, contexts and streams, run_host's staging, synchronize, time_runs, graphs);
// every CUDA/cuBLAS failure becomes TC_ERROR_DEVICE with file, line, node and call
// (TC_CUDA_TRY, kernels/tc_cuda_bundle.h).
#include "backend_cuda/cuda_host.h"

#include "codegen/emit_state.h"
#include "codegen/fusion_kernel.h"

namespace thunderc::cuda {
using namespace codegen;

Status emitCudaKernelLaunch(const ir::Node &node, const CudaKernel &kernel, EmitState &state) {
  if (node.op() == ir::OpKind::Fusion && ir::attr::kind(node) == "epilogue") {
    // The library op writes the fusion's output; the kernel then finishes it in place.
    TC_ASSIGN_OR_RETURN(EpilogueKernel epilogue, describeEpilogue(node));
    TC_TRY(emitEpilogueLibraryCall(node, epilogue, state));
    state.setCurrentNode(&node);
  }
  std::string arguments = kernel.name + "_index(sym)";
  for (const ir::Value *input : kernel.inputs)
    arguments += ", " + state.ptr(input);
  for (const ir::Value *output : kernel.outputs)
    arguments += ", " + state.ptr(output);
  state.code().line("TC_CUDA_TRY(tcg::check(launch_" + kernel.name + "(" + arguments +
                    ", ex.stream), \"kernel launch\"), \"" + state.currentNodeLabel() + "\");");
  return Status::success();
}

std::string cudaGraphRefusal(const ir::Graph &graph) {
  for (const auto &node : graph.nodes()) {
    std::string label = "node '" + node->name() + "' (" + std::string(node->info().name) + ")";
    switch (node->op()) {
    case ir::OpKind::Nonzero:
    case ir::OpKind::Item:
      return label + " reads a size back to the host during the run";
    case ir::OpKind::CondPredicate:
      return label + " reads a condition back to the host during the run";
    case ir::OpKind::Random:
      return label + " draws random numbers that change with every run";
    default:
      break;
    }
  }
  return "";
}

void emitCudaModelConstants(CodeWriter &code, bool allowTf32,
                            const std::vector<std::string> &gatherSites,
                            const std::string &refusal) {
  code.line(std::string("static constexpr bool kAllowTf32 = ") + (allowTf32 ? "true" : "false") +
            ";");
  code.line("static constexpr const char *kGatherSites[] = {");
  for (const std::string &site : gatherSites)
    code.line("    " + stringLiteral(site) + ",");
  code.line("    \"a gather\",");
  code.line("};");
  code.line("static constexpr int kNumGatherSites = " + std::to_string(gatherSites.size()) + ";");
  code.line("/// Why this model's runs cannot be CUDA graphs (\"\": they can).");
  code.line("static constexpr const char *kCudaGraphRefusal = " + stringLiteral(refusal) + ";");
}

} // namespace thunderc::cuda
