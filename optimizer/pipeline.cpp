// The default pipeline: one linear list per level. Each pass says in its header what it
// expects and guarantees; the order below is what makes those guarantees line up.
#include "optimizer/pipeline.h"

namespace thunderc::opt {

std::vector<std::string> defaultPipeline(int level) {
  std::vector<std::string> passes;
  // -O0: the graph exactly as imported. Every op is its own kernel writing its own buffer;
  // views are copies; the arena holds every value at once. The reference for -O1/-O2.
  if (level <= 0)
    return passes;

  // -O1: graph cleanups that never change the kernel structure's meaning, then planning.
  // 1. One op set for both IR levels: core ATen's addmm(b, x, permute(w)) becomes linear,
  //    adaptive_avg_pool2d to 1x1 becomes mean, ... so training and core exports compile alike.
  passes.push_back("canonicalize");
  //    Linears on a weight dequantized from int8 (torchao, PT2E) become linear_wq, before
  //    fold-constants would turn the dequantized weight into a float constant.
  passes.push_back("quantized-linear");
  // 2. Inference batch_norm after conv2d disappears into the conv's weight and bias (the new
  //    weights are computed by the next pass, from the weights' data).
  passes.push_back("fold-batchnorm");
  // 3. Nodes whose operands are all weights or constants are computed at compile time and
  //    written to weights.bin (folded BN weights, transposed weights, ...).
  passes.push_back("fold-constants");
  //    With --quantize-weights, float linear weights become int8 or int4 linear_wq; 4-bit
  //    valued int8 weights are packed two per byte.
  passes.push_back("quantize-weights");
  // 4. x*1, x+0, identity casts/copies/reshapes, double permutes, expand feeding a broadcast.
  passes.push_back("simplify");
  // 5. Duplicates merge, then anything left unused goes.
  passes.push_back("cse");
  passes.push_back("dce");
  // 6. Views become strides on their operand's buffer; a copy is inserted only where a
  //    consumer (a library call, a graph output) needs contiguous data.
  passes.push_back("layout");
  if (level >= 2) {
    // -O2: kernels.
    // 7. Elementwise/broadcast chains, reductions with their prologue and epilogue, and
    //    library-call epilogues (bias, activation, residual) become fusion nodes.
    passes.push_back("fuse");
    // 8. Every node is now a kernel (fusion), a library call, or a view (no code); single
    //    elementwise nodes left over become one-node kernels.
    passes.push_back("partition");
  }
  // 9. Live intervals over the final order, best-fit offsets in one arena, in-place reuse.
  passes.push_back("plan-memory");
  return passes;
}

} // namespace thunderc::opt
