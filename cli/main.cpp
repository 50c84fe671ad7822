// `thunderc`: parses flags once, then calls the driver's stages in order.
#include <cstdio>
#include <iostream>
#include <string>

#include <algorithm>

#include <cxxopts.hpp>
#include <spdlog/spdlog.h>

#include "codegen/bundle.h"
#include "codegen/output_folder.h"
#include "cli/driver.h"
#include "cli/exit_codes.h"
#include "cli/report.h"
#include "frontend/pt2/importer.h"
#include "ir/printer.h"
#include "optimizer/pass_registry.h"
#include "optimizer/pipeline.h"

namespace {

using namespace thunderc;
using namespace thunderc::cli;

/// `text` safe for a terminal and for tools that read stderr as UTF-8, on one line: valid
/// UTF-8 and tabs pass; control characters, newlines included, and bytes of invalid sequences
/// (an input's member names and JSON text reach messages) are written as \xNN, so that every
/// error is exactly one `error:` line.
std::string terminalSafe(const std::string &text) {
  std::string out;
  auto escape = [&out](unsigned char c) {
    char escaped[8];
    std::snprintf(escaped, sizeof(escaped), "\\x%02x", c);
    out += escaped;
  };
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3
                                 : (c >> 3) == 0x1E ? 4 : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (!valid || (length == 1 && ((c < 0x20 && c != '\t') || c == 0x7f))) {
      escape(c);
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out;
}

int fail(const Error &error) {
  std::fprintf(stderr, "error: %s\n", terminalSafe(error.message()).c_str());
  return exitCodeFor(error.kind());
}

int usage(const std::string &message) {
  std::fprintf(stderr, "error: %s (see thunderc --help)\n", terminalSafe(message).c_str());
  return kExitUsage;
}

int run(int argc, char **argv) {
  cxxopts::Options options(
      "thunderc", "thunderc: an ahead-of-time compiler for exported PyTorch programs");
  options.positional_help("INPUT");
  options.custom_help("INPUT [options]");
  // clang-format off
  options.add_options()
      ("input", "a .pt2 archive from torch.export.save (torch 2.9-2.14), a TorchScript file "
                "from torch.jit.save (.pt; needs the TorchScript importer), or text IR (.tir)",
       cxxopts::value<std::string>())
      ("o,output", "write the bundle (a CMake project) to this folder, replaced atomically: "
                   "absent, empty, or an earlier bundle holding only its own files and build/ "
                   "(kept)",
       cxxopts::value<std::string>())
      ("name", "C identifier of the bundle's library, header and runner (default: the input "
               "file's stem)", cxxopts::value<std::string>()->default_value(""))
      ("input-shape", "TorchScript input: the dtype and sizes of forward's inputs, for a "
                      "module without traced example inputs (a scripted one): "
                      "[NAME:]DTYPE[D0,D1,...], several separated by ';', e.g. "
                      "'ids:int64[1,8];mask:int64[1,8]'",
       cxxopts::value<std::string>()->default_value(""))
      ("golden", "folder with inputs/ and expected/ .npy files to ship as the bundle's golden "
                 "test", cxxopts::value<std::string>()->default_value(""))
      ("target", "where the bundle runs: cpu (C++17 loops, CBLAS) or cuda (CUDA kernels, cuBLAS, "
                 "device memory; builds with nvcc, or on the CPU with "
                 "-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON)",
       cxxopts::value<std::string>()->default_value("cpu"))
      ("allow-tf32", "cuda: let fp32 GEMMs and convolutions use TF32 tensor cores (faster, "
                     "about 1e-3 relative error); off by default, like PyTorch")
      ("cuda-emulation", "cuda: also ship the CPU emulation of CUDA in the bundle, so that it "
                         "builds and runs without a GPU (-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON; "
                         "slow, for tests)")
      ("triton", "also write a Triton Inference Server model (cpu target): triton/config.pbtxt "
                 "and the targets that build the model library and its model repository "
                 "(cmake --build B --target NAME_triton_repository; docs/TRITON.md)")
      ("quantize-weights", "store the weights of float linear layers quantized: int8 "
                           "(symmetric, one scale per output feature) or int4 (symmetric, "
                           "one scale per 32 inputs, two weights per byte), activations "
                           "float; or int4-act8: int4 weights, activations quantized to int8 "
                           "per 32 at run time for integer dot products (llama.cpp's Q4_0; "
                           "docs/LLM.md)",
       cxxopts::value<std::string>()->default_value(""))
      ("triton-max-batch", "with --triton: the largest batch of a model whose first dim is "
                           "its batch (default 64, at most the dim's exported upper bound)",
       cxxopts::value<int64_t>()->default_value("64"))
      ("debug-perturb", "for testing numerical debugging (the runner's --bisect): the bundle "
                        "computes the value of this node wrong on purpose (its first element "
                        "+ 1, after the kernel that writes it)",
       cxxopts::value<std::string>()->default_value(""))
      ("emit", "what to print: ir (the SSA graph), report (every op: status, node, source "
               "line; then the compiled kernels, library calls and views with FLOPs, bytes, "
               "why neighbours did not fuse, and the memory plan), report-json (the same as "
               "JSON, with weight checksums), dot (a Graphviz picture of the optimized graph: "
               "`thunderc M.pt2 --emit=dot | dot -Tsvg -o M.svg`), cuda (the generated CUDA "
               "kernels as one translation unit)",
       cxxopts::value<std::string>()->default_value("ir"))
      ("verify", "compile every generated CUDA kernel in-process with NVRTC (no GPU needed) "
                 "and list them; exit 1 if NVRTC rejects one (a thunderc bug), 5 if thunderc "
                 "was built without NVRTC. Alone it only verifies; with -o or --emit it "
                 "continues after a clean verification")
      ("arch", "GPU architecture for --verify (sm_80, sm_90a, compute_80, ...); with --target "
               "cuda also the bundle's default CMAKE_CUDA_ARCHITECTURES (sm_NN: code + PTX, "
               "compute_NN: PTX only; without --arch: sm_80 and sm_90 + PTX)",
       cxxopts::value<std::string>()->default_value("sm_80"))
      ("interpret", "run the reference interpreter on --inputs and write --outputs")
      ("seed", "with --interpret: the seed of the random ops (default 67280421310721, a "
               "bundle context's)", cxxopts::value<uint64_t>())
      ("run-index", "with --interpret: which run of a bundle context since its seed was set "
                    "(0 = the first) the random ops draw like", cxxopts::value<uint64_t>())
      ("inputs", "input .npy files, in graph input order (comma-separated; leave out, or give "
                 "\"\", for a program without inputs)",
       cxxopts::value<std::vector<std::string>>())
      ("outputs", "output .npy files, in graph output order (comma-separated)",
       cxxopts::value<std::vector<std::string>>())
      ("O", "optimization level: 0 (as imported), 1 (graph cleanups, folding, layout, memory "
            "plan), 2 (1 + fusion and partitioning). Default: 2 for .pt2 input, 0 for text IR",
       cxxopts::value<int>())
      ("passes", "run exactly these optimizer passes, in order, instead of any -O pipeline "
                 "(comma-separated; see --list-passes)",
       cxxopts::value<std::vector<std::string>>())
      ("list-passes", "print the names of the optimizer passes and exit")
      ("list-ops", "print every exported op thunderc compiles or handles (aten.add.Tensor, "
                   "...; one per line, sorted) and exit")
      ("print-ir-after", "print the IR to stderr after the named pass, or after every pass "
                         "with 'all'", cxxopts::value<std::string>()->default_value(""))
      ("verify-each", "verify the IR after every pass, blaming the pass that broke it")
      ("time-passes", "print how long each pass took, and pass statistics, to stderr")
      ("v,verbose", "log progress to stderr")
      ("q,quiet", "print errors only")
      ("version", "print the version and exit")
      ("h,help", "print this help and exit");
  // clang-format on
  options.parse_positional({"input"});
  cxxopts::ParseResult args;
  try {
    args = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception &e) {
    return usage(e.what());
  }
  if (args.count("help")) {
    std::cout << options.help() << "\n" << kExitCodeHelp;
    return kExitOk;
  }
  if (args.count("version")) {
    std::cout << "thunderc " << THUNDERC_VERSION << "\n"
              << "reads torch.export archives (.pt2) of schema " << frontend::kSupportedSchemaMajor
              << " (" << frontend::kSchemaTorchReleases << "; tested with torch "
              << frontend::kTestedTorch << ")\n";
    return kExitOk;
  }
  if (args.count("list-passes")) {
    for (const std::string &name : opt::passNames())
      std::cout << name << "\n";
    return kExitOk;
  }
  if (args.count("list-ops")) {
    for (const std::string &target : frontend::supportedTargets())
      std::cout << target << "\n";
    return kExitOk;
  }
  spdlog::set_pattern("thunderc: %v");
  spdlog::set_level(args.count("verbose")  ? spdlog::level::debug
                    : args.count("quiet") ? spdlog::level::err
                                          : spdlog::level::warn);
  if (!args.count("input"))
    return usage("no input file");
  std::string emit = args["emit"].as<std::string>();
  std::string target = args["target"].as<std::string>();
  if (target != "cpu" && target != "cuda")
    return usage("unknown --target value '" + target + "' (expected cpu or cuda)");
  if (args.count("allow-tf32") && target != "cuda")
    return usage("--allow-tf32 needs --target cuda");
  if (args.count("cuda-emulation") && target != "cuda")
    return usage("--cuda-emulation needs --target cuda");
  if (args.count("triton") && !args.count("output"))
    return usage("--triton needs -o (it writes the model into the bundle)");
  if (args["triton-max-batch"].as<int64_t>() < 1 ||
      args["triton-max-batch"].as<int64_t>() > (int64_t{1} << 20))
    return usage("--triton-max-batch takes 1 to 1048576, not " +
                 std::to_string(args["triton-max-batch"].as<int64_t>()));
  std::string quantize = args["quantize-weights"].as<std::string>();
  if (!quantize.empty() && quantize != "int8" && quantize != "int4" && quantize != "int4-act8")
    return usage("unknown --quantize-weights value '" + quantize +
                 "' (expected int8, int4 or int4-act8)");
  if (emit != "ir" && emit != "report" && emit != "report-json" && emit != "dot" &&
      emit != "cuda")
    return usage("unknown --emit value '" + emit + "'");

  std::string input = args["input"].as<std::string>();
  // Refuse an output folder that must not be replaced before any work is done.
  if (args.count("output")) {
    Status outputOk = codegen::checkOutputFolder(args["output"].as<std::string>(), input);
    if (outputOk.ok() && !args["name"].as<std::string>().empty())
      outputOk = codegen::checkBundleName(args["name"].as<std::string>());
    if (!outputOk.ok())
      return usage(outputOk.error().message());
    // A killed run's temporary folder goes now, whether or not this run succeeds.
    codegen::removeStaleTemporaries(args["output"].as<std::string>());
  }
  Expected<std::vector<frontend::InputShapeSpec>> shapes =
      frontend::parseInputShapes(args["input-shape"].as<std::string>());
  if (!shapes.ok())
    return usage(shapes.error().message());
  spdlog::debug("loading {}", input);
  Expected<LoadedProgram> program = loadProgram(input, *shapes);
  if (!program.ok())
    return fail(program.error());
  spdlog::debug("loaded {} nodes", program->graph->numNodes());

  opt::PassManagerOptions passOptions;
  passOptions.verifyEach = args.count("verify-each") > 0;
  passOptions.printIrAfter = args["print-ir-after"].as<std::string>();
  passOptions.timePasses = args.count("time-passes") > 0;
  std::vector<std::string> passes;
  if (args.count("passes")) {
    passes = args["passes"].as<std::vector<std::string>>();
  } else {
    int level = args.count("O") ? args["O"].as<int>() : program->parsedGraph ? 0 : 2;
    if (level < 0 || level > 2)
      return usage("-O takes 0, 1 or 2, not " + std::to_string(level));
    passes = opt::defaultPipeline(level);
  }
  if (!quantize.empty()) {
    if (std::find(passes.begin(), passes.end(), "quantize-weights") == passes.end())
      return usage("--quantize-weights needs the quantize-weights pass (-O1 or -O2, or "
                   "--passes listing it)");
    passOptions.quantizeWeightBits = quantize == "int8" ? 8 : 4;
    passOptions.quantizeActivations = quantize == "int4-act8";
  }
  Status optimized = optimizeProgram(*program, passes, passOptions);
  if (!optimized.ok())
    return fail(optimized.error());
  spdlog::debug("{} nodes after passes", program->graph->numNodes());

  if (args.count("verify")) {
    Expected<VerifyResult> verified = verifyKernels(*program, args["arch"].as<std::string>());
    if (!verified.ok())
      return fail(verified.error());
    if (!args.count("quiet"))
      std::cout << verified->summary;
    if (verified->failed > 0) {
      std::fprintf(stderr, "%s", verified->errors.c_str());
      return kExitInternal;
    }
    if (!args.count("output") && !args.count("emit") && !args.count("interpret"))
      return kExitOk;
  }
  if (args.count("interpret")) {
    if (!args.count("outputs"))
      return usage("--interpret needs --outputs (and --inputs unless the program has none)");
    // No --inputs, or `--inputs ""`, is a program without inputs.
    std::vector<std::string> inputFiles;
    if (args.count("inputs"))
      inputFiles = args["inputs"].as<std::vector<std::string>>();
    if (inputFiles.size() == 1 && inputFiles.front().empty())
      inputFiles.clear();
    ir::RandomState random;
    if (args.count("seed"))
      random.seed = args["seed"].as<uint64_t>();
    if (args.count("run-index"))
      random.run = args["run-index"].as<uint64_t>();
    Status status = interpretToFiles(*program, inputFiles,
                                     args["outputs"].as<std::vector<std::string>>(), random);
    if (!status.ok())
      return fail(status.error().withContext(input));
    return kExitOk;
  }
  if (args.count("output")) {
    BundleRequest request;
    request.outDir = args["output"].as<std::string>();
    request.name = args["name"].as<std::string>();
    request.goldenDir = args["golden"].as<std::string>();
    request.target = target == "cuda" ? codegen::Target::Cuda : codegen::Target::Cpu;
    request.cudaEmulation = args.count("cuda-emulation") > 0;
    request.allowTf32 = args.count("allow-tf32") > 0;
    request.triton = args.count("triton") > 0;
    request.tritonMaxBatch = args["triton-max-batch"].as<int64_t>();
    request.debugPerturb = args["debug-perturb"].as<std::string>();
    if (target == "cuda" && args.count("arch"))
      request.arch = args["arch"].as<std::string>();
    Status status = compileToBundle(*program, request);
    if (!status.ok())
      return fail(status.error());
    spdlog::info("wrote {}", args["output"].as<std::string>());
    return kExitOk;
  }
  if (emit == "cuda") {
    Expected<std::string> source = cudaSource(*program);
    if (!source.ok())
      return fail(source.error());
    std::cout << *source;
    return kExitOk;
  }
  if (emit == "ir")
    std::cout << ir::printGraph(*program->graph);
  else if (emit == "report")
    std::cout << textReport(*program);
  else if (emit == "dot")
    std::cout << dotGraph(*program->graph);
  else
    std::cout << jsonReport(*program);
  return kExitOk;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "internal compiler error: uncaught exception: %s\n",
                 terminalSafe(e.what()).c_str());
    return kExitInternal;
  }
}
