// Writes the bundle directory `out/`: generated sources, weights.bin, the runtime and kernel
// headers, CMakeLists.txt, README.md and golden data. The write is atomic.
#pragma once

#include <functional>
#include <string>

#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "backend_cuda/host_emitter.h"
#include "ir/status.h"

namespace thunderc::cuda {

struct BundleOptions {
  std::string name;       ///< C identifier for files, symbols and CMake targets
  std::string sourceName; ///< the input file's basename, for generated comments
  /// A folder with inputs/input_<i>.npy, expected/output_<i>.npy and optionally
  /// expected_fp64/output_<i>.npy, copied to out/golden/ and registered as the bundle's CTest
  /// golden test. Empty: no golden test.
  std::string goldenDir;
  Target target = Target::Cpu;
  bool allowTf32 = false; ///< CUDA: fp32 GEMMs/convolutions may use TF32 tensor cores
  /// CUDA: the bundle's default CMAKE_CUDA_ARCHITECTURES (space-separated CMake spelling).
  std::string cudaArchitectures = "80-real 90";
};

/// The CMake CUDA architecture for a GPU architecture name: "sm_90a" -> "90a" (machine code
/// and PTX), "compute_80" -> "80-virtual" (PTX only). Usage error for anything else.
Expected<std::string> cmakeCudaArchitecture(const std::string &arch);

/// The bytes of a weight input (Parameter/Buffer/Constant), possibly strided.
using WeightSource = std::function<Expected<ir::TensorView>(const ir::Value &input)>;

/// Emits and writes the bundle for `graph` into `outDir`. Everything is first written into a
/// temporary sibling folder, which then replaces `outDir` with renames; on any error the
/// temporary folder is removed and `outDir` is left as it was. Same inputs, same bytes.
Status writeBundle(const ir::Graph &graph, const WeightSource &weights,
                   const BundleOptions &options, const std::string &outDir);

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

} // namespace thunderc::cuda
