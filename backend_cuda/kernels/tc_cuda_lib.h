// tcg, the CUDA kernel library of thunderc's CUDA bundles: the functions of the CPU library tc::
// (tc_kernels*.h) with the same names, arguments and results, taking a `const tcg::exec &`
// first, working on device pointers and enqueuing on ex.stream; each returns a tcg::result
// (launch errors, cuBLAS failures, or a limit of tcg). Header-only; compiled by nvcc, and by a
// host compiler against the CUDA emulation (TC_CUDA_EMULATE) in CI. One header per family:
//   tc_cuda_lib_common.h     exec, result, check, shared device helpers
//   tc_cuda_lib_shape.h      copy, strided_copy/strided_store, triangle, fill, arange, random_fill,
//                            embedding, index_select, gather, pad, scatter
//   tc_cuda_lib_reduce.h     reduce (sum/mean/amax/amin/prod), reduce_any, variance, argmax,
//                            cumsum
//   tc_cuda_lib_nn.h         softmax, layer_norm, batch_norm
//   tc_cuda_lib_pool.h       max_pool2d, avg_pool2d, adaptive_avg_pool2d, upsample
//   tc_cuda_lib_linalg.h     gemm (cuBLAS, tiled for integers), conv2d, conv_transpose2d
//   tc_cuda_lib_attention.h  attention (fused, online softmax)
//   tc_cuda_lib_sort.h       sort (bitonic in shared memory, merge passes for long rows),
//                            embedding_bag
// Zero-size calls do nothing and succeed. Shape and stride arguments are host arrays.
#pragma once

#include "tc_cuda.h"
#include "tc_cuda_api.h"

#include "tc_cuda_lib_attention.h"
#include "tc_cuda_lib_common.h"
#include "tc_cuda_lib_linalg.h"
#include "tc_cuda_lib_nn.h"
#include "tc_cuda_lib_pool.h"
#include "tc_cuda_lib_reduce.h"
#include "tc_cuda_lib_shape.h"
#include "tc_cuda_lib_sort.h"
