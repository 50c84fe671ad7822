// The portable CPU kernel library that every generated bundle includes: header-only C++17,
// namespace tc, no dependency beyond the standard library (and <cblas.h> when the bundle
// defines TC_USE_CBLAS). Generated code calls these routines with contiguous row-major
// buffers; each routine computes what the reference interpreter (ir/interpreter*.cpp)
// computes, within float rounding. One header per op family:
//   tc_math.h              scalar helpers, half/bfloat16, cast (also compiled by nvcc), and
//                          random_element over tc_random.h's Philox generator
//   tc_kernels_shape.h     strided_copy/strided_store, triangle, fill, arange, random_fill,
//                          embedding, index_select, gather, pad, scatter
//   tc_kernels_linalg.h    gemm (own AVX-512 GEMM, BLAS or loops), gemm_packed (weights
//                          stored pre-packed), conv2d (im2col + gemm), conv_transpose2d
//                          (gemm + col2im)
//   tc_kernels_sgemm.h     the AVX-512 float GEMM: packed 32-column panels, 12 x 32 register
//                          block, chosen by the CPU at run time; pack_b_whole (also run by
//                          thunderc to write pre-packed weights)
//   tc_kernels_quant.h     linear_wq (int8 / packed int4 weights; AVX-512, AVX2 or scalar
//                          GEMV by the CPU, dequantized blocks + gemm for many rows),
//                          linear_wq_qx and conv2d_wq (statically quantized activations)
//   tc_kernels_qgemm.h     the u8 x s8 integer GEMM (AMX-INT8, AVX-512 VNNI or portable,
//                          by the CPU) on int8 weights packed with their column sums
//   tc_kernels_pool.h      max_pool2d, avg_pool2d, adaptive_avg_pool2d, upsample
//   tc_kernels_reduce.h    reduce (sum/mean/amax/amin/prod), reduce_any, variance, argmax,
//                          cumsum
//   tc_kernels_nn.h        softmax, layer_norm, batch_norm, attention
//   tc_kernels_sort.h      sort (stable, NaN largest), embedding_bag
//   tc_lapack.h            cholesky, lu_factor, qr, eigh, svd (LAPACK when the bundle
//                          defines TC_USE_LAPACK), triangular_solve, pivot_permutation
#pragma once

#include "tc_math.h"

#include "tc_kernels_linalg.h"
#include "tc_kernels_nn.h"
#include "tc_parallel.h"
#include "tc_kernels_pool.h"
#include "tc_kernels_quant.h"
#include "tc_kernels_reduce.h"
#include "tc_kernels_shape.h"
#include "tc_kernels_sort.h"
#include "tc_lapack.h"
