// The host side of CUDA bundles: kernel launches in the run function, and the parts of
// <name>.cu that differ from the CPU bundle's <name>.cpp (codegen/model_emitter.cpp writes the
// rest):
//   load         weights.bin is mapped and checked as on the CPU, then uploaded once into one
//                device allocation; the host mapping is closed;
//   context      the caller's stream (default stream until <name>_context_set_stream), a cuBLAS
//                handle bound to it, a device error flag for gathers, the device arena (one
//                allocation, sized by the memory plan, grown only when a larger symbol binding
//                needs it) and staging buffers for <name>_run_host;
//   run          the same validation, symbol binding and arena layout as the CPU bundle, then
//                every node enqueued on the stream (asynchronous; device pointers);
//   run_host     host tensors: uploads, runs, downloads, synchronizes, then reads the error flag;
//   time_runs    device-resident runs timed with CUDA events, for `<name>_run --iters`.
// Every CUDA/cuBLAS failure becomes TC_ERROR_DEVICE with file, line, node and call
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

void emitCudaIncludes(CodeWriter &code) {
  code.line("#include <algorithm>");
  code.line("#include <cmath>");
  code.line("#include <cstdint>");
  code.line("#include <cstring>");
  code.line("#include <limits>");
  code.line("#include <new>");
  code.line("#include <vector>");
  code.line();
  code.line("#include \"tc_cuda_api.h\"");
  code.line("#include \"tc_cuda.h\"");
  code.line("#include \"tc_cuda_lib.h\"");
  code.line("#include \"tc_cuda_bundle.h\"");
  code.line("#include \"weights.h\"");
}

void emitCudaModelTypes(CodeWriter &code, const std::string &name, size_t numWeights) {
  code.open("struct " + name + "_model");
  code.line("/// Weights in device memory (one allocation); params[i].data points into it.");
  code.line("tc_tensor params[" + std::to_string(std::max<size_t>(numWeights, 1)) + "] = {};");
  code.line("tcg::device_buffer weights;");
  code.close(";");
  code.line();
  code.open("struct " + name + "_context");
  code.line("const " + name + "_model *model = nullptr;");
  code.line("tcg::exec ex;               ///< stream, cuBLAS handle, device error flag");
  code.line("tcg::device_buffer arena;   ///< the memory plan's intermediates and workspaces");
  code.line("tcg::device_buffer staging; ///< inputs and outputs of run_host / time_runs");
  code.line("tcg::pinned_buffer pinned;   ///< their host side, page-locked");
  code.line("tcg::device_buffer state;   ///< the program's state (kStates), kept between runs");
  code.line("uint64_t seed = tc::kDefaultRandomSeed; ///< random ops' seed (_context_set_seed)");
  code.line("uint64_t runs = 0; ///< runs since the seed was set or the context reset");
  code.line("tc_observer observer = nullptr; ///< _context_set_observer");
  code.line("void *observer_user = nullptr;");
  code.line("std::vector<unsigned char> observed; ///< the observer's host copy of a value");
  code.line("tcg::graph_cache graphs; ///< _context_set_cuda_graphs (capacity 0: off)");
  code.line("/// Owned: the stream graphs are captured on when the context had the default stream");
  code.line("/// (blocking, so ordered with the default stream's work as the default stream is).");
  code.line("cudaStream_t graph_stream = nullptr;");
  code.close(";");
}

void emitCudaLifecycle(CodeWriter &code, const std::string &n) {
  openEntryPoint(code,
                 "tc_status " + n + "_load(const char *weights_path, " + n +
                     "_model **out, tc_error *err)",
                 "out == nullptr || weights_path == nullptr", n + "_load: null argument");
  code.line("*out = nullptr;");
  code.line("tc_status status = tcg::check_device(probe_kernel, \"" + n + "_load\", err);");
  code.open("if (status != TC_OK)");
  code.line("return status;");
  code.close();
  code.line(n + "_model *model = new (std::nothrow) " + n + "_model();");
  code.open("if (model == nullptr)");
  code.line("return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, \"" + n +
            "_load: out of memory\");");
  code.close();
  code.line("tc_weights *host = nullptr;");
  code.line("status = tc_weights_open(weights_path, &host, err);");
  code.open("if (status == TC_OK && kCheckCompileId)");
  code.line("status = tc_weights_check_compile_id(host, kCompileId, err);");
  code.close();
  code.line("size_t offsets[" + std::string("kNumWeights > 0 ? kNumWeights : 1") + "] = {};");
  code.line("size_t bytes = 0;");
  code.open("for (size_t i = 0; status == TC_OK && i < kNumWeights; ++i)");
  code.line("const WeightSpec &spec = kWeights[i];");
  code.line("status = tc_weights_find_expected(host, spec.name, spec.dtype, spec.rank, "
            "spec.shape, &model->params[i], err);");
  code.line("offsets[i] = bytes;");
  code.line("bytes += alignUp(size_t(tc_tensor_byte_size(&model->params[i])));");
  code.close();
  code.line("// One upload at load; the runs never touch host weights again.");
  code.open("auto upload = [&]() -> tc_status");
  code.line("TC_CUDA_TRY(tcg::reserve(model->weights, bytes, nullptr), \"" + n +
            "_load: weights\");");
  code.open("for (size_t i = 0; i < kNumWeights; ++i)");
  code.line("void *device = model->weights.data + offsets[i];");
  code.line("TC_CUDA_TRY(tcg::check(cudaMemcpy(device, model->params[i].data, "
            "size_t(tc_tensor_byte_size(&model->params[i])), cudaMemcpyHostToDevice), "
            "\"cudaMemcpy\"), kWeights[i].name);");
  code.line("model->params[i].data = device;");
  code.close();
  code.line("return TC_OK;");
  code.close(";");
  code.open("if (status == TC_OK)");
  code.line("status = upload();");
  code.close();
  code.line("tc_weights_close(host);");
  code.open("if (status != TC_OK)");
  code.line(n + "_free(model);");
  code.line("return status;");
  code.close();
  code.line("*out = model;");
  code.line("return TC_OK;");
  code.close();
  code.line();
  code.open("void " + n + "_free(" + n + "_model *model)");
  code.open("if (model != nullptr)");
  code.line("tcg::release(model->weights);");
  code.close();
  code.line("delete model;");
  code.close();
  code.line();
  openEntryPoint(code,
                 "tc_status " + n + "_context_create(const " + n + "_model *model, " + n +
                     "_context **out, tc_error *err)",
                 "model == nullptr || out == nullptr", n + "_context_create: null argument");
  code.line("*out = nullptr;");
  code.line(n + "_context *context = new (std::nothrow) " + n + "_context();");
  code.open("if (context == nullptr)");
  code.line("return tc_error_setf(err, TC_ERROR_OUT_OF_MEMORY, \"" + n +
            "_context_create: out of memory\");");
  code.close();
  code.line("context->model = model;");
  code.open("auto create = [&]() -> tc_status");
  code.line("const char *what = \"" + n + "_context_create\";");
  code.line("TC_CUDA_TRY(tcg::check(cublasCreate(&context->ex.blas), \"cublasCreate\"), what);");
  code.line("TC_CUDA_TRY(tcg::check(cublasSetStream(context->ex.blas, context->ex.stream), "
            "\"cublasSetStream\"), what);");
  code.line("TC_CUDA_TRY(tcg::check(cudaMalloc(reinterpret_cast<void **>(&context->ex.error), "
            "sizeof(tcg::gather_error)), \"cudaMalloc\"), what);");
  code.line("TC_CUDA_TRY(tcg::check(cudaMemset(context->ex.error, 0, sizeof(tcg::gather_error)), "
            "\"cudaMemset\"), what);");
  code.line("// The record is zero before any stream (the caller's may not sync with the legacy");
  code.line("// default stream) can touch it.");
  code.line("TC_CUDA_TRY(tcg::check(cudaDeviceSynchronize(), \"cudaDeviceSynchronize\"), what);");
  code.line("return TC_OK;");
  code.close(";");
  code.line("tc_status status = create();");
  code.open("if (status != TC_OK)");
  code.line(n + "_context_destroy(context);");
  code.line("return status;");
  code.close();
  code.line("context->ex.allow_tf32 = kAllowTf32;");
  code.line("status = " + n + "_context_reset(context, err);");
  code.open("if (status != TC_OK)");
  code.line(n + "_context_destroy(context);");
  code.line("return status;");
  code.close();
  code.line("*out = context;");
  code.line("return TC_OK;");
  code.close();
  code.line();
  code.open("void " + n + "_context_destroy(" + n + "_context *context)");
  code.open("if (context == nullptr)");
  code.line("return;");
  code.close();
  code.open("if (context->ex.blas != nullptr)");
  code.line("cublasDestroy(context->ex.blas);");
  code.close();
  code.line("context->graphs.resize(0);");
  code.open("if (context->graph_stream != nullptr)");
  code.line("cudaStreamSynchronize(context->graph_stream);");
  code.line("cudaStreamDestroy(context->graph_stream);");
  code.close();
  code.line("cudaFree(context->ex.error);");
  code.line("tcg::release(context->arena);");
  code.line("tcg::release(context->staging);");
  code.line("tcg::release(context->pinned);");
  code.line("tcg::release(context->state);");
  code.line("delete context;");
  code.close();
  code.line();
  openEntryPoint(code,
                 "tc_status " + n + "_context_set_stream(" + n +
                     "_context *context, void *stream, tc_error *err)",
                 "context == nullptr", n + "_context_set_stream: null context");
  code.line("context->ex.stream = static_cast<cudaStream_t>(stream);");
  code.line("TC_CUDA_TRY(tcg::check(cublasSetStream(context->ex.blas, context->ex.stream), "
            "\"cublasSetStream\"), \"" + n + "_context_set_stream\");");
  code.line("return TC_OK;");
  code.close();
  code.line();
}

void emitCudaContextReset(CodeWriter &code, const std::string &n) {
  openEntryPoint(code, "tc_status " + n + "_context_reset(" + n + "_context *context, tc_error *err)",
                 "context == nullptr", n + "_context_reset: null context");
  code.line("const char *what = \"" + n + "_context_reset\";");
  code.line("context->runs = 0; // random ops replay their sequence");
  code.line("TC_CUDA_TRY(tcg::reserve(context->state, std::max(kStateBytes, kAlign), "
            "context->ex.stream), what);");
  code.line("// On the context's stream: later runs see the initial values, earlier ones finish first.");
  code.open("for (int i = 0; i < kNumStates; ++i)");
  code.line("TC_CUDA_TRY(tcg::check(cudaMemcpyAsync(context->state.data + kStates[i].offset, "
            "context->model->params[kStates[i].weight].data, kStates[i].bytes, "
            "cudaMemcpyDeviceToDevice, context->ex.stream), \"cudaMemcpyAsync\"), what);");
  code.close();
  code.line("return TC_OK;");
  code.close();
  code.line();
}

void emitCudaArena(CodeWriter &code, const std::string &n) {
  code.line("TC_CUDA_TRY(tcg::reserve(context->arena, std::max(bytes, kAlign), context->ex.stream), "
            "\"" + n + "_run: arena\");");
  code.line("[[maybe_unused]] unsigned char *base = context->arena.data;");
  code.line("const tcg::exec &ex = context->ex;");
}

void emitCudaHostRuns(CodeWriter &code, const std::string &n, size_t numInputs,
                      size_t numOutputs, const std::vector<std::string> &gatherSites) {
  std::string inputs = std::to_string(std::max<size_t>(numInputs, 1));
  std::string outputs = std::to_string(std::max<size_t>(numOutputs, 1));
  openEntryPoint(code, "tc_status " + n + "_synchronize(" + n + "_context *context, tc_error *err)",
                 "context == nullptr", n + "_synchronize: null context");
  code.line("const char *what = \"" + n + "_synchronize\";");
  code.line("const cudaStream_t stream = context->ex.stream;");
  code.line("tcg::gather_error record;");
  code.line("TC_CUDA_TRY(tcg::check(cudaMemcpyAsync(&record, context->ex.error, sizeof(record), "
            "cudaMemcpyDeviceToHost, stream), \"cudaMemcpyAsync\"), what);");
  code.line("TC_CUDA_TRY(tcg::check(cudaStreamSynchronize(stream), \"cudaStreamSynchronize\"), "
            "what);");
  code.open("if (record.flag == 0)");
  code.line("return TC_OK;");
  code.close();
  code.line("// Reset on the context's stream, so that no later run races with it.");
  code.line("TC_CUDA_TRY(tcg::check(cudaMemsetAsync(context->ex.error, 0, sizeof(record), "
            "stream), \"cudaMemsetAsync\"), what);");
  code.line("TC_CUDA_TRY(tcg::check(cudaStreamSynchronize(stream), \"cudaStreamSynchronize\"), "
            "what);");
  std::string sites;
  for (const std::string &site : gatherSites)
    sites += "\"" + site + "\", ";
  code.line("static const char *const kGatherSites[] = {" + sites + "\"a gather\"};");
  code.line("const int site = record.site >= 0 && record.site < " +
            std::to_string(gatherSites.size()) + " ? record.site : " +
            std::to_string(gatherSites.size()) + ";");
  code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + n +
            "_synchronize: %s: index %lld at position %lld of the indices is out of range: "
            "valid indices are 0 to %lld (in a run since the last synchronize; the rows of bad "
            "indices are zeros)\", kGatherSites[site], record.value, record.position, "
            "record.extent - 1);");
  code.close();
  code.line();
  code.line("namespace {");
  code.line();
  code.line("/// Host tensors mirrored in the context's staging buffer.");
  code.open("struct Staged");
  code.line("tc_tensor inputs[" + inputs + "] = {};");
  code.line("tc_tensor outputs[" + outputs + "] = {};");
  code.line("unsigned char *pinnedOutputs[" + outputs + "] = {}; ///< where the downloads land");
  code.close(";");
  code.line();
  code.line("/// Validates host tensors like " + n + "_run and uploads the inputs on the stream.");
  code.open("tc_status stage(" + n + "_context *context, const tc_tensor *inputs, int num_inputs, "
            "tc_tensor *outputs, int num_outputs, Staged &staged, tc_error *err)");
  code.open("if (context == nullptr)");
  code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"null context\");");
  code.close();
  code.line("Symbols sym;");
  code.line("tc_status status = bindInputs(inputs, num_inputs, sym, err);");
  code.open("if (status != TC_OK)");
  code.line("return status;");
  code.close();
  code.line("status = checkOutputs(sym, outputs, num_outputs, err);");
  code.open("if (status != TC_OK)");
  code.line("return status;");
  code.close();
  // Output staging is sized by output_shapes' shapes: a data-dependent dim at its upper
  // bound, whatever an earlier run left in the caller's tensor.
  code.line("tc_tensor bound[" + std::to_string(std::max<size_t>(numOutputs, 1)) + "] = {};");
  code.line("fillOutputShapes(sym, bound);");
  code.line("size_t bytes = 0;");
  code.line("size_t offsets[" + std::to_string(numInputs + numOutputs + 1) + "] = {};");
  code.open("for (int i = 0; i < " + std::to_string(numInputs + numOutputs) + "; ++i)");
  code.line("const tc_tensor &tensor = i < " + std::to_string(numInputs) + " ? inputs[i] : bound[i - " +
            std::to_string(numInputs) + "];");
  code.line("offsets[i] = bytes;");
  code.line("bytes += alignUp(size_t(tc_tensor_byte_size(&tensor)));");
  code.close();
  code.line("TC_CUDA_TRY(tcg::reserve(context->staging, bytes, context->ex.stream), "
            "\"staging buffers\");");
  code.line("TC_CUDA_TRY(tcg::reserve(context->pinned, bytes, context->ex.stream), "
            "\"pinned staging buffers\");");
  code.line("const cudaStream_t stream = context->ex.stream;");
  code.line("// run_host and time_runs leave the stream idle, so no copy still reads the pinned buffer.");
  code.open("for (int i = 0; i < " + std::to_string(numInputs) + "; ++i)");
  code.line("staged.inputs[i] = inputs[i];");
  code.line("staged.inputs[i].data = context->staging.data + offsets[i];");
  code.line("const size_t size = size_t(tc_tensor_byte_size(&inputs[i]));");
  code.line("if (size > 0) std::memcpy(context->pinned.data + offsets[i], inputs[i].data, size);");
  code.line("TC_CUDA_TRY(tcg::check(cudaMemcpyAsync(staged.inputs[i].data, "
            "context->pinned.data + offsets[i], size, cudaMemcpyHostToDevice, stream), "
            "\"cudaMemcpyAsync\"), \"input upload\");");
  code.close();
  code.open("for (int i = 0; i < " + std::to_string(numOutputs) + "; ++i)");
  code.line("staged.outputs[i] = bound[i];");
  code.line("staged.outputs[i].data = context->staging.data + offsets[" +
            std::to_string(numInputs) + " + i];");
  code.line("staged.pinnedOutputs[i] = context->pinned.data + offsets[" +
            std::to_string(numInputs) + " + i];");
  code.close();
  code.line("return TC_OK;");
  code.close();
  code.line();
  code.line("/// Downloads the outputs, waits for the stream and reports an out-of-range gather.");
  code.open("tc_status finish(" + n + "_context *context, const Staged &staged, tc_tensor *outputs, "
            "tc_error *err)");
  code.line("const cudaStream_t stream = context->ex.stream;");
  code.open("for (int i = 0; i < " + std::to_string(numOutputs) + "; ++i)");
  code.line("outputs[i].rank = staged.outputs[i].rank; // the run's sizes (data-dependent dims)");
  code.line("for (int d = 0; d < TC_MAX_RANK; ++d) outputs[i].shape[d] = staged.outputs[i].shape[d];");
  code.line("TC_CUDA_TRY(tcg::check(cudaMemcpyAsync(staged.pinnedOutputs[i], "
            "staged.outputs[i].data, size_t(tc_tensor_byte_size(&staged.outputs[i])), "
            "cudaMemcpyDeviceToHost, stream), \"cudaMemcpyAsync\"), \"output download\");");
  code.close();
  code.line("const tc_status status = " + n + "_synchronize(context, err);");
  code.line("// The downloads are complete once the stream is: copy them out of the pinned buffer");
  code.line("// (also after an out-of-range index, whose rows are zeros, as the status says).");
  code.open("for (int i = 0; i < " + std::to_string(numOutputs) + "; ++i)");
  code.line("const size_t size = size_t(tc_tensor_byte_size(&staged.outputs[i]));");
  code.line("if (size > 0 && status != TC_ERROR_DEVICE) std::memcpy(outputs[i].data, "
            "staged.pinnedOutputs[i], size);");
  code.close();
  code.line("return status;");
  code.close();
  code.line();
  code.line("} // namespace");
  code.line();
  code.open("tc_status " + n + "_run_host(" + n + "_context *context, const tc_tensor *inputs, "
            "int num_inputs, tc_tensor *outputs, int num_outputs, tc_error *err)");
  code.line("tc_error_clear(err);");
  code.line("Staged staged;");
  code.line("tc_status status = stage(context, inputs, num_inputs, outputs, num_outputs, staged, "
            "err);");
  code.open("if (status == TC_OK)");
  code.line("status = " + n + "_run(context, staged.inputs, num_inputs, staged.outputs, "
            "num_outputs, err);");
  code.close();
  code.open("if (status == TC_OK)");
  code.line("status = finish(context, staged, outputs, err);");
  code.close();
  code.open("if (status != TC_OK)");
  code.line("tc_error_prefixf(err, \"" + n + "_run_host: \");");
  code.close();
  code.line("return status;");
  code.close();
  code.line();
  openEntryPoint(code,
                 "tc_status " + n + "_time_runs(" + n +
                     "_context *context, const tc_tensor *inputs, int num_inputs, "
                     "tc_tensor *outputs, int num_outputs, int warmup, int iters, "
                     "double *median_us, tc_error *err)",
                 "median_us == nullptr || warmup < 0 || iters < 1",
                 n + "_time_runs: need median_us, warmup >= 0 and iters >= 1");
  code.line("Staged staged;");
  code.line("tc_status status = stage(context, inputs, num_inputs, outputs, num_outputs, staged, "
            "err);");
  code.line("cudaEvent_t start = nullptr, stop = nullptr;");
  code.line("std::vector<double> samples;");
  code.open("auto measure = [&]() -> tc_status");
  code.line("const char *what = \"" + n + "_time_runs\";");
  code.line("TC_CUDA_TRY(tcg::check(cudaEventCreate(&start), \"cudaEventCreate\"), what);");
  code.line("TC_CUDA_TRY(tcg::check(cudaEventCreate(&stop), \"cudaEventCreate\"), what);");
  code.open("for (int i = 0; i < warmup + iters; ++i)");
  code.line("TC_CUDA_TRY(tcg::check(cudaEventRecord(start, context->ex.stream), "
            "\"cudaEventRecord\"), what);");
  code.line("tc_status run = " + n + "_run(context, staged.inputs, num_inputs, staged.outputs, "
            "num_outputs, err);");
  code.open("if (run != TC_OK)");
  code.line("return run;");
  code.close();
  code.line("TC_CUDA_TRY(tcg::check(cudaEventRecord(stop, context->ex.stream), "
            "\"cudaEventRecord\"), what);");
  code.line("TC_CUDA_TRY(tcg::check(cudaEventSynchronize(stop), \"cudaEventSynchronize\"), what);");
  code.line("float ms = 0;");
  code.line("TC_CUDA_TRY(tcg::check(cudaEventElapsedTime(&ms, start, stop), "
            "\"cudaEventElapsedTime\"), what);");
  code.open("if (i >= warmup)");
  code.line("samples.push_back(double(ms) * 1000.0);");
  code.close();
  code.close();
  code.line("return finish(context, staged, outputs, err);");
  code.close(";");
  code.open("if (status == TC_OK)");
  code.line("status = measure();");
  code.close();
  code.line("// Only events that exist: cudaEventDestroy(nullptr) fails and leaves its error for");
  code.line("// cudaGetLastError, which the next kernel launch's check would then report.");
  code.open("if (start != nullptr)");
  code.line("cudaEventDestroy(start);");
  code.close();
  code.open("if (stop != nullptr)");
  code.line("cudaEventDestroy(stop);");
  code.close();
  code.open("if (status != TC_OK)");
  code.line("tc_error_prefixf(err, \"" + n + "_time_runs: \");");
  code.line("return status;");
  code.close();
  code.line("*median_us = tcg::median(samples);");
  code.line("return TC_OK;");
  code.close();
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

void emitCudaGraphRun(CodeWriter &code, const std::string &n, const std::vector<std::string> &key) {
  code.line("// CUDA graphs (" + n + "_context_set_cuda_graphs): the launches above are captured");
  code.line("// once per key -- the memory they touch and the input sizes -- and replayed after.");
  code.open("if (context->graphs.capacity() == 0 || context->observer != nullptr)");
  code.line("return work();");
  code.close();
  code.line("const uint64_t key[] = {");
  for (const std::string &part : key)
    code.line("    " + part + ",");
  code.line("};");
  code.line("return tcg::run_graph(context->graphs, ex.stream, key, sizeof(key) / sizeof(key[0]), "
            "work, \"" + n + "_run\", err);");
}

void emitCudaGraphApi(CodeWriter &code, const std::string &n, const std::string &refusal) {
  code.line("/// Why this model's runs cannot be CUDA graphs (\"\": they can).");
  code.line("static const char kCudaGraphRefusal[] = " + stringLiteral(refusal) + ";");
  openEntryPoint(code,
                 "tc_status " + n + "_context_set_cuda_graphs(" + n +
                     "_context *context, int max_graphs, tc_error *err)",
                 "context == nullptr", n + "_context_set_cuda_graphs: null context");
  code.open("if (max_graphs < 0 || max_graphs > 1024)");
  code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + n +
            "_context_set_cuda_graphs: max_graphs %d is outside [0, 1024] (0: off)\", "
            "max_graphs);");
  code.close();
  code.open("if (max_graphs > 0 && kCudaGraphRefusal[0] != '\\0')");
  code.line("return tc_error_setf(err, TC_ERROR_INVALID_ARGUMENT, \"" + n +
            "_context_set_cuda_graphs: this model's runs cannot be captured in a CUDA graph: "
            "%s\", kCudaGraphRefusal);");
  code.close();
  code.line("// Graphs cannot be captured on the legacy default stream: a context on it moves to a");
  code.line("// blocking stream of its own (ordered with the default stream), and back at 0.");
  code.line("cudaStream_t stream = context->ex.stream;");
  code.open("if (max_graphs > 0 && stream == nullptr)");
  code.open("if (context->graph_stream == nullptr)");
  code.line("TC_CUDA_TRY(tcg::check(cudaStreamCreateWithFlags(&context->graph_stream, "
            "cudaStreamDefault), \"cudaStreamCreateWithFlags\"), \"" + n +
            "_context_set_cuda_graphs\");");
  code.close();
  code.line("stream = context->graph_stream;");
  code.close();
  code.open("if (max_graphs == 0 && stream != nullptr && stream == context->graph_stream)");
  code.line("TC_CUDA_TRY(tcg::check(cudaStreamSynchronize(stream), \"cudaStreamSynchronize\"), \"" +
            n + "_context_set_cuda_graphs\");");
  code.line("stream = nullptr;");
  code.close();
  code.open("if (stream != context->ex.stream)");
  code.line("TC_CUDA_TRY(tcg::check(cublasSetStream(context->ex.blas, stream), \"cublasSetStream\"), "
            "\"" + n + "_context_set_cuda_graphs\");");
  code.line("context->ex.stream = stream;");
  code.close();
  code.line("context->graphs.resize(max_graphs);");
  code.line("return TC_OK;");
  code.close();
  code.line();
  openEntryPoint(code,
                 "tc_status " + n + "_context_cuda_graph_stats(const " + n +
                     "_context *context, tc_cuda_graph_stats *stats, tc_error *err)",
                 "context == nullptr || stats == nullptr",
                 n + "_context_cuda_graph_stats: null argument");
  code.line("*stats = context->graphs.stats();");
  code.line("return TC_OK;");
  code.close();
  code.line();
}

} // namespace thunderc::cuda
