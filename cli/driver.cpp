// Loading, reporting and interpreting, each a plain function over a LoadedProgram.
#include "cli/driver.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "backend_cpu/cpu_backend.h"
#include "backend_cuda/cuda_backend.h"
#include "codegen/bundle.h"
#include "backend_cuda/cuda_kernels.h"
#include "backend_cuda/nvrtc_verify.h"
#include "codegen/output_folder.h"
#include "cli/report.h"
#include "crc32.h"
#include "ir/interpreter.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "npy.h"

namespace thunderc::cli {
namespace {

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Expected<std::string> readFile(const std::string &path) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream)
    return ioError("cannot open file");
  std::stringstream buffer;
  buffer << stream.rdbuf();
  return buffer.str();
}

const char *inputKindName(ir::InputKind kind) {
  switch (kind) {
  case ir::InputKind::User: return "input";
  case ir::InputKind::Parameter: return "parameter";
  case ir::InputKind::Buffer: return "buffer";
  case ir::InputKind::Constant: return "constant";
  case ir::InputKind::State: return "state";
  }
  return "?";
}

// tc_dtype follows ir::DType's order (runtime/thunderc_runtime.h), so the two convert by value.
static_assert(TC_DTYPE_COUNT == ir::kNumDTypes && TC_DTYPE_BF16 == int(ir::DType::BF16) &&
                  TC_DTYPE_F64 == int(ir::DType::F64),
              "tc_dtype and ir::DType disagree");

/// The Error for a failed runtime .npy call, whose message already names the file. Running out
/// of memory there means the file was too large to read, so it counts as I/O; every other
/// failure is a bad file.
Error npyError(const tc_error &err) {
  bool io = err.status == TC_ERROR_IO || err.status == TC_ERROR_OUT_OF_MEMORY;
  return Error(io ? ErrorKind::Io : ErrorKind::InvalidInput, err.message);
}

/// Reads the .npy file at `path` with the runtime's reader, the one bundles' runners use, so
/// that the interpreter accepts exactly the inputs a bundle does.
Expected<ir::HostTensor> readNpy(const std::string &path) {
  tc_tensor tensor;
  tc_error err;
  if (tc_npy_read(path.c_str(), &tensor, &err) != TC_OK)
    return npyError(err);
  ir::HostTensor host;
  host.dtype = static_cast<ir::DType>(tensor.dtype);
  host.shape.assign(tensor.shape, tensor.shape + tensor.rank);
  const auto *data = static_cast<const uint8_t *>(tensor.data);
  host.bytes.assign(data, data + tc_tensor_byte_size(&tensor));
  tc_npy_free(&tensor);
  return host;
}

/// Writes `tensor` to `path` as numpy.save would.
Status writeNpy(const std::string &path, const ir::HostTensor &tensor) {
  if (tensor.shape.size() > TC_MAX_RANK)
    return unsupported(path + ": cannot write a rank-" + std::to_string(tensor.shape.size()) +
                       " tensor to .npy (at most " + std::to_string(TC_MAX_RANK) + " dims)");
  tc_tensor view{};
  // tc_tensor's data is not const, but tc_npy_write only reads it.
  view.data = const_cast<uint8_t *>(tensor.bytes.data());
  view.dtype = static_cast<tc_dtype>(tensor.dtype);
  view.rank = static_cast<int32_t>(tensor.shape.size());
  std::copy(tensor.shape.begin(), tensor.shape.end(), view.shape);
  tc_error err;
  if (tc_npy_write(path.c_str(), &view, &err) != TC_OK)
    return npyError(err);
  return Status::success();
}

} // namespace

Expected<LoadedProgram> loadProgram(const std::string &path,
                                    const std::vector<frontend::InputShapeSpec> &shapes) {
  LoadedProgram program;
  program.path = path;
  if (endsWith(path, ".tir")) {
    Expected<std::string> text = readFile(path);
    if (!text.ok())
      return std::move(text).error().withContext(path);
    TC_ASSIGN_OR_RETURN(program.parsedGraph, ir::parseGraph(*text, path));
    program.graph = program.parsedGraph.get();
  } else {
    Expected<frontend::ImportedModel> imported = frontend::isTorchScriptFile(path)
                                                     ? frontend::importTorchScript(path, shapes)
                                                     : frontend::importPt2(path);
    if (!imported.ok())
      return std::move(imported).error().withContext(path);
    program.imported = std::move(*imported);
    program.graph = program.imported.graph.get();
  }
  Status verified = ir::verifyGraph(*program.graph);
  if (!verified.ok())
    return std::move(verified).error().withContext(path);
  for (const auto &input : program.graph->inputs())
    if (input->inputKind() != ir::InputKind::User)
      program.loadedWeights.push_back({input->weightName(), input->inputKind(), input->type()});
  program.loadedOps = program.graph->numNodes();
  return program;
}

Status optimizeProgram(LoadedProgram &program, const std::vector<std::string> &passes,
                       const opt::PassManagerOptions &options) {
  if (passes.empty())
    return Status::success();
  opt::PassContext context;
  context.quantizeWeightBits = options.quantizeWeightBits;
  context.quantizeActivations = options.quantizeActivations;
  if (program.imported.weights)
    context.weights = [&program](const ir::Value &input) -> Expected<ir::TensorView> {
      return program.imported.weights->tensor(input.weightName());
    };
  Expected<bool> changed = opt::runPasses(*program.graph, passes, options, context);
  if (changed.ok())
    return Status::success();
  if (changed.error().kind() == ErrorKind::Usage)
    return std::move(changed).error();
  return std::move(changed).error().withContext(program.path);
}

std::string textReport(const LoadedProgram &program) {
  std::ostringstream out;
  const frontend::ImportedModel &model = program.imported;
  out << "model: " << program.path;
  if (!model.torchVersion.empty())
    out << " (torch " << model.torchVersion << ", " << model.irLevel << " IR)";
  out << "\n";
  for (const auto &input : program.graph->inputs())
    if (input->inputKind() == ir::InputKind::User)
      out << "input:  %" << input->name() << ": " << input->type().str() << "\n";
  for (size_t i = 0; i < program.graph->outputs().size(); ++i) {
    const ir::Value *output = program.graph->outputs()[i];
    if (const std::string *state = program.graph->stateOf(i))
      out << "state:  " << *state << ": " << output->type().str() << " (kept between runs)\n";
    else
      out << "output: " << output->type().str() << "\n";
  }
  for (const auto &[name, range] : program.graph->symbols())
    out << "symbol: " << name << " in [" << range.min << ", "
        << (range.max ? std::to_string(*range.max) : "inf") << "]\n";
  std::map<std::string, int> counts;
  for (const auto &node : model.nodes)
    ++counts[node.status];
  out << "nodes: " << model.nodes.size() << " exported, " << counts["compiled"] << " compiled, "
      << counts["unsupported"] << " unsupported, " << counts["dropped"]
      << " dropped (assertions), " << counts["shape"] << " shape arithmetic, "
      << counts["inlined"] << " inlined (higher-order ops); "
      << program.loadedOps << " thunderc ops\n\n";
  char line[512];
  std::snprintf(line, sizeof(line), "%-12s %-28s %-44s %-22s %s\n", "status", "node", "op",
                "thunderc", "source");
  out << line;
  for (const auto &node : model.nodes) {
    std::string ops;
    for (const std::string &op : node.irOps)
      ops += (ops.empty() ? "" : ",") + op;
    std::string source = node.source.loc.empty() ? "-" : node.source.loc + "  " + node.source.code;
    std::snprintf(line, sizeof(line), "%-12s %-28s %-44s %-22s %s\n", node.status.c_str(),
                  node.name.c_str(), node.target.c_str(), ops.empty() ? "-" : ops.c_str(),
                  source.c_str());
    out << line;
  }
  out << "\n";
  if (model.unsupported.empty())
    out << "unsupported: none; every op compiles\n";
  else
    out << "unsupported: " << model.unsupported.size() << " node(s) cannot be compiled:\n";
  for (const auto &node : model.unsupported)
    out << "  node '" << node.name << "' (" << node.target << "): " << node.reason
        << (node.source.loc.empty() ? "" : "  at " + node.source.file + ":" +
                                               node.source.loc.substr(node.source.loc.rfind(':') + 1))
        << "\n";
  out << "\n" << compiledText(compiledReport(*program.graph));
  return out.str();
}

std::string jsonReport(const LoadedProgram &program) {
  using nlohmann::json;
  const frontend::ImportedModel &model = program.imported;
  json report;
  report["model"] = program.path;
  report["torch_version"] = model.torchVersion;
  report["ir_level"] = model.irLevel;
  report["inputs"] = json::array();
  report["weights"] = json::array();
  for (const auto &input : program.graph->inputs())
    if (input->inputKind() == ir::InputKind::User)
      report["inputs"].push_back({{"name", input->name()}, {"type", input->type().str()}});
  for (const LoadedWeight &loaded : program.loadedWeights) {
    json weight{{"name", loaded.name},
                {"kind", inputKindName(loaded.kind)},
                {"type", loaded.type.str()}};
    if (model.weights) {
      Expected<ir::TensorView> view = model.weights->tensor(loaded.name);
      if (view.ok()) {
        ir::HostTensor bytes = ir::contiguousCopy(*view);
        weight["crc32"] = runtime::crc32(bytes.bytes.data(), bytes.bytes.size());
      }
    }
    report["weights"].push_back(weight);
  }
  report["outputs"] = json::array();
  report["states"] = json::array();
  for (size_t i = 0; i < program.graph->outputs().size(); ++i) {
    const ir::Value *output = program.graph->outputs()[i];
    if (const std::string *state = program.graph->stateOf(i))
      report["states"].push_back({{"name", *state}, {"type", output->type().str()}});
    else
      report["outputs"].push_back({{"type", output->type().str()}});
  }
  report["nodes"] = json::array();
  std::map<std::string, int> counts;
  for (const auto &node : model.nodes) {
    ++counts[node.status];
    report["nodes"].push_back({{"name", node.name},
                               {"target", node.target},
                               {"status", node.status},
                               {"thunderc_ops", node.irOps},
                               {"loc", node.source.loc},
                               {"file", node.source.file},
                               {"code", node.source.code}});
  }
  report["unsupported"] = json::array();
  for (const auto &node : model.unsupported)
    report["unsupported"].push_back({{"name", node.name},
                                     {"target", node.target},
                                     {"reason", node.reason},
                                     {"loc", node.source.loc}});
  report["counts"] = {{"exported_nodes", model.nodes.size()},
                      {"compiled", counts["compiled"]},
                      {"unsupported", counts["unsupported"]},
                      {"dropped", counts["dropped"]},
                      {"shape", counts["shape"]},
                      {"inlined", counts["inlined"]},
                      {"thunderc_ops", program.loadedOps}};
  report["compiled"] = compiledJson(compiledReport(*program.graph));
  return report.dump(2) + "\n";
}

/// Refuses a program with nodes thunderc cannot compile, before anything is written: one line
/// naming each (target, reason) once, with how many nodes share it and the first one's name
/// and source line.
Status checkCompilable(const LoadedProgram &program) {
  // Only the nodes still in the (optimized) graph: one whose results nothing reads is gone.
  std::set<std::string> kept;
  for (const auto &node : program.graph->nodes())
    if (node->op() == ir::OpKind::AtenCall)
      kept.insert(node->name());
  std::vector<frontend::UnsupportedNode> nodes;
  for (const frontend::UnsupportedNode &node : program.imported.unsupported)
    if (kept.count(node.name))
      nodes.push_back(node);
  if (nodes.empty())
    return Status::success();
  struct Group {
    const frontend::UnsupportedNode *first;
    int count;
  };
  std::vector<Group> groups;
  for (const frontend::UnsupportedNode &node : nodes) {
    auto same = std::find_if(groups.begin(), groups.end(), [&](const Group &group) {
      return group.first->target == node.target && group.first->reason == node.reason;
    });
    if (same != groups.end())
      ++same->count;
    else
      groups.push_back({&node, 1});
  }
  std::string list;
  for (const Group &group : groups) {
    const frontend::UnsupportedNode &node = *group.first;
    list += (list.empty() ? "" : "; ") + node.target + " (node '" + node.name + "'";
    if (group.count > 1)
      list += " and " + std::to_string(group.count - 1) + " more";
    if (!node.source.file.empty())
      list += ", " + std::filesystem::path(node.source.file).filename().string() + ":" +
              node.source.loc.substr(node.source.loc.rfind(':') + 1);
    list += "): " + node.reason;
  }
  return unsupported(std::to_string(nodes.size()) +
                     " node(s) use ops thunderc cannot compile: " + list +
                     " (thunderc --emit=report lists every node)");
}

Status interpretToFiles(const LoadedProgram &program, const std::vector<std::string> &inputs,
                        const std::vector<std::string> &outputs, const ir::RandomState &random) {
  TC_TRY(checkCompilable(program));
  std::vector<ir::HostTensor> tensors;
  std::vector<ir::TensorView> views;
  std::vector<const ir::Value *> userInputs;
  for (const auto &input : program.graph->inputs())
    if (input->inputKind() == ir::InputKind::User)
      userInputs.push_back(input.get());
  if (inputs.size() != userInputs.size())
    return invalidInput("the model takes " + std::to_string(userInputs.size()) +
                        " input(s), " + std::to_string(inputs.size()) + " given");
  tensors.reserve(inputs.size());
  for (const std::string &path : inputs) {
    TC_ASSIGN_OR_RETURN(ir::HostTensor tensor, readNpy(path));
    tensors.push_back(std::move(tensor));
    views.push_back(tensors.back().view());
  }
  ir::WeightProvider weights = [&](const ir::Value &input) -> Expected<ir::TensorView> {
    if (!program.imported.weights)
      return invalidInput("text IR carries no weights for '" + input.name() + "'");
    return program.imported.weights->tensor(input.weightName());
  };
  TC_ASSIGN_OR_RETURN(std::vector<ir::HostTensor> results,
                      ir::interpret(*program.graph, views, weights, random));
  if (outputs.size() != results.size())
    return invalidInput("the model has " + std::to_string(results.size()) + " output(s), " +
                        std::to_string(outputs.size()) + " output file(s) given");
  for (size_t i = 0; i < results.size(); ++i)
    TC_TRY(writeNpy(outputs[i], results[i]));
  return Status::success();
}

Status compileToBundle(const LoadedProgram &program, const BundleRequest &request) {
  std::filesystem::path input(program.path);
  codegen::BundleOptions options;
  if (!request.name.empty())
    TC_TRY(codegen::checkBundleName(request.name));
  options.name = request.name.empty() ? codegen::sanitizeName(input.stem().string()) : request.name;
  options.sourceName = input.filename().string();
  options.goldenDir = request.goldenDir;
  options.cudaEmulation = request.cudaEmulation;
  options.triton = request.triton;
  options.tritonMaxBatch = request.tritonMaxBatch;
  options.allowTf32 = request.allowTf32;
  options.debugPerturb = request.debugPerturb;
  options.thundercVersion = THUNDERC_VERSION;
  options.torchVersion = program.imported.torchVersion;
  options.irLevel = program.imported.irLevel;
  if (!request.arch.empty()) {
    TC_ASSIGN_OR_RETURN(options.cudaArchitectures, cuda::cmakeCudaArchitecture(request.arch));
  }
  const std::string &outDir = request.outDir;
  TC_TRY(codegen::checkOutputFolder(outDir, program.path));
  if (Status compilable = checkCompilable(program); !compilable.ok())
    return std::move(compilable).error().withContext(program.path);
  codegen::WeightSource weights = [&](const ir::Value &value) -> Expected<ir::TensorView> {
    if (!program.imported.weights)
      return invalidInput("text IR carries no weights for '" + value.name() + "'");
    return program.imported.weights->tensor(value.weightName());
  };
  std::unique_ptr<codegen::TargetBackend> backend = request.target == codegen::Target::Cuda
                                                        ? cuda::makeCudaBackend()
                                                        : cpu::makeCpuBackend();
  Status status = codegen::writeBundle(*program.graph, weights, options, *backend, outDir);
  if (!status.ok())
    return std::move(status).error().withContext(program.path);
  return Status::success();
}

Expected<std::string> cudaSource(const LoadedProgram &program) {
  Expected<std::vector<cuda::CudaKernel>> kernels = cuda::emitCudaKernels(*program.graph);
  if (!kernels.ok())
    return std::move(kernels).error().withContext(program.path);
  return cuda::cudaTranslationUnit(*program.graph, *kernels,
                                   std::filesystem::path(program.path).filename().string());
}

Expected<VerifyResult> verifyKernels(const LoadedProgram &program, const std::string &arch) {
  Expected<std::vector<cuda::CudaKernel>> kernels = cuda::emitCudaKernels(*program.graph);
  if (!kernels.ok())
    return std::move(kernels).error().withContext(program.path);
  Expected<std::vector<cuda::KernelCompilation>> compiled =
      cuda::compileKernelsWithNvrtc(*program.graph, *kernels, arch);
  if (!compiled.ok() && compiled.error().kind() == ErrorKind::Usage)
    return std::move(compiled).error();
  if (!compiled.ok())
    return std::move(compiled).error().withContext(program.path);
  VerifyResult result;
  double seconds = 0;
  size_t ptxBytes = 0;
  char line[512];
  for (const cuda::KernelCompilation &compilation : *compiled) {
    const cuda::CudaKernel &kernel = *compilation.kernel;
    std::string node =
        (kernel.nodeName.empty() ? "unnamed node" : "node '" + kernel.nodeName + "'") + " (" +
        kernel.ops + ")" + (kernel.loc.empty() ? "" : " at " + kernel.loc);
    ++result.kernels;
    seconds += compilation.seconds;
    ptxBytes += compilation.ptxBytes;
    std::snprintf(line, sizeof(line), "%-6s %-12s %-8s %7.3f s %8zu B PTX  %s\n",
                  kernel.name.c_str(), kernel.kind.c_str(), compilation.ok ? "ok" : "FAILED",
                  compilation.seconds, compilation.ptxBytes, node.c_str());
    result.summary += line;
    if (compilation.ok)
      continue;
    ++result.failed;
    result.errors += "error: " + program.path + ": kernel " + kernel.name + " (" + kernel.kind +
                     ", " + node + "): NVRTC rejected the generated code (a thunderc bug):\n" +
                     compilation.log + "\n";
  }
  std::snprintf(line, sizeof(line),
                "verify: %d kernel(s), %d failed, compiled by %s for %s in %.2f s (sum of "
                "per-kernel times), %zu B PTX\n",
                result.kernels, result.failed, cuda::nvrtcDescription().c_str(), arch.c_str(),
                seconds, ptxBytes);
  result.summary += line;
  return result;
}

} // namespace thunderc::cli
