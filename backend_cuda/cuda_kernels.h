// The CUDA kernel printer: every fused kernel of a partitioned graph as CUDA C++ (the GPU
// twin of the CPU loop printer, backend_cpu/loop_kernels.cpp; both print the same TC_HD scalar
// functions, codegen/fusion_kernel.h).
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace thunderc::cuda {

/// One generated kernel: its scalar function(s), its __global__ wrapper, and host code to
/// fill its index struct from the model's symbols and launch it on a stream.
struct CudaKernel {
  std::string name;     ///< "k3"; the __global__ function is "k3_kernel", the launcher "launch_k3"
  std::string kind;     ///< elementwise, reduction or epilogue (the fusion's kind)
  std::string nodeName; ///< the graph node it computes (empty for an unnamed node)
  std::string ops;      ///< that node's ops, in order ("mul, add, relu"; "copy")
  std::string loc;      ///< that node's source location ("zoo.py:12"), may be empty
  std::string code;     ///< the kernel's code, without the includes (see cudaKernelSource)
  /// The values behind launch_kN's pointer parameters, in order: each input's storage (the
  /// buffer its layout reads; index offsets are relative to it), then each output.
  std::vector<const ir::Value *> inputs;
  std::vector<const ir::Value *> outputs;
};

/// Prints a kernel for every top-level fusion node (elementwise, reduction, and the
/// elementwise part of an epilogue fusion, run in place over the library op's output) and
/// every top-level elementwise node, in graph order. Reads the memory plan's layouts when the
/// graph has one (views are strided windows on their storage), else every value is its own
/// contiguous buffer. Unsupported (with the node's name) for a kernel the printer cannot
/// express, e.g. a reduction fusion holding two reductions.
Expected<std::vector<CudaKernel>> emitCudaKernels(const ir::Graph &graph);

/// A self-contained translation unit holding `kernels`: the includes (tc_cuda.h from
/// backend_cuda/kernels/, which includes tc_math.h from runtime/kernels/), the model's Symbols
/// struct, then each kernel.
/// Host code (index fillers, launchers) is compiled by nvcc and skipped under NVRTC
/// (__CUDACC_RTC__), so the same text serves `nvcc -c` and `thunderc --verify`.
std::string cudaTranslationUnit(const ir::Graph &graph, const std::vector<CudaKernel> &kernels,
                                const std::string &sourceName);

} // namespace thunderc::cuda
