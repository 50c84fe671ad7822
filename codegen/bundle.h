// Writes the bundle directory `out/`: generated sources, weights.bin, the runtime and kernel
// headers, CMakeLists.txt, README.md and golden data. The write is atomic.
#pragma once

#include <functional>
#include <string>

#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "codegen/model_emitter.h"
#include "ir/status.h"

namespace thunderc::codegen {

struct BundleOptions {
  std::string name;       ///< C identifier for files, symbols and CMake targets
  std::string sourceName; ///< the input file's basename, for generated comments
  /// A folder with inputs/input_<i>.npy, expected/output_<i>.npy and optionally
  /// expected_fp64/output_<i>.npy, copied to out/golden/ and registered as the bundle's CTest
  /// golden test. Empty: no golden test.
  std::string goldenDir;
  bool allowTf32 = false; ///< CUDA: fp32 GEMMs/convolutions may use TF32 tensor cores
  /// CUDA: the bundle's default CMAKE_CUDA_ARCHITECTURES (space-separated CMake spelling).
  std::string cudaArchitectures = "80-real 90";
  /// CUDA: also ship the CPU emulation of CUDA, so that the bundle builds and runs without a
  /// GPU (-DTHUNDERC_BUNDLE_CUDA_EMULATE=ON).
  bool cudaEmulation = false;
  /// thunderc's version, part of the compile id (a weights.bin is for one compile only).
  std::string thundercVersion;
  /// Provenance for the bundle's README: the torch that exported the program and its IR level
  /// ("TRAINING", "ATEN", "TORCHSCRIPT"); empty for text IR.
  std::string torchVersion;
  std::string irLevel;
  /// Also write a Triton Inference Server model: triton/config.pbtxt, the model library's
  /// entry table and its CMake targets (codegen/triton_model.h, docs/TRITON.md).
  bool triton = false;
  /// --triton: the largest batch config.pbtxt allows a batching model (and at most the batch
  /// symbol's upper bound).
  int64_t tritonMaxBatch = 64;
  /// Testing the numerical bisect: EmitOptions::perturbNode (part of the compile id).
  std::string debugPerturb;
};

/// The bytes of a weight input (Parameter/Buffer/Constant), possibly strided.
using WeightSource = std::function<Expected<ir::TensorView>(const ir::Value &input)>;

/// Emits and writes the bundle for `graph` into `outDir` with `backend` writing the target's
/// parts. Everything is first written into a temporary sibling folder, which then replaces
/// `outDir` (output_folder.h); on any error `outDir` is left as it was. Same inputs, same bytes.
Status writeBundle(const ir::Graph &graph, const WeightSource &weights,
                   const BundleOptions &options, TargetBackend &backend,
                   const std::string &outDir);

/// The CMake lines that register the bundle's golden test (empty without one), for the
/// targets' CMakeLists.txt.
std::string goldenTestCmake(const BundleOptions &options, bool hasGolden);

/// A safe bundle name derived from a file stem: other characters become '_' (runs of '_'
/// collapse), a leading digit or '_' gets an 'm' prefix, and a name checkBundleName would
/// refuse gets a "_model" suffix ("resnet-18" -> "resnet_18", "3d" -> "m3d",
/// "class" -> "class_model"). At most 64 characters.
std::string sanitizeName(const std::string &stem);

/// Usage error unless `name` can name a bundle: a C identifier of at most 64 characters that is
/// not a C++ keyword, a reserved identifier (leading '_' or "__"), an all-capital (macro-like)
/// name, a macro of the C library or the compiler, or a target name CMake or the bundle
/// reserves. Names of C library functions (`exp`, `main`, `index`) are fine: the bundle's C++
/// wrapper lives in `thunderc::<name>`.
Status checkBundleName(const std::string &name);

} // namespace thunderc::codegen
