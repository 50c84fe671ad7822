// Explicitly instantiates every template of tcg, the CUDA kernel library of CUDA bundles
// (backend_cuda/kernels/tc_cuda_lib.h), for each element type bundles use, so that a template
// or device-code error fails CI instead of the first bundle that happens to use it. CTest
// compiles it with `nvcc -std=c++17 -arch=sm_80 -c -Werror=all-warnings` (and sm_90), the way
// bundles include the library; it uses nothing but the kernel headers and cuBLAS's.
#include "tc_cuda_lib.h"

#include <cstdint>

#define TCG_EXEC const tcg::exec &

// Gathers over both index types the bundles use.
#define TCG_INSTANTIATE_GATHERS(T, I)                                                              \
  template tcg::result tcg::embedding<T, I>(TCG_EXEC, const T *, int64_t, int64_t, const I *,      \
                                            int64_t, T *);                                         \
  template tcg::result tcg::index_select<T, I>(TCG_EXEC, const T *, int64_t, int64_t, int64_t,     \
                                               const I *, int64_t, T *);                           \
  template tcg::result tcg::gather<T, I>(TCG_EXEC, const T *, int64_t, int64_t, int64_t,           \
                                         const I *, int64_t, T *);                                 \
  template tcg::result tcg::scatter<T, I>(TCG_EXEC, T *, int64_t, int64_t, int64_t, const I *,     \
                                          int64_t, const T *, tc::scatter_reduce, bool);

// Data movement, reductions, max pooling and GEMM: every element type.
#define TCG_INSTANTIATE_MOVEMENT(T)                                                                \
  template tcg::result tcg::copy<T>(TCG_EXEC, const T *, int64_t, T *);                            \
  template tcg::result tcg::strided_copy<T>(TCG_EXEC, const T *, int64_t, const int64_t *, int,    \
                                            const int64_t *, T *);                                 \
  template tcg::result tcg::strided_store<T>(TCG_EXEC, const T *, int, const int64_t *, T *,       \
                                             int64_t, const int64_t *);                            \
  template tcg::result tcg::triangle<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, int64_t,   \
                                        bool, T *);                                                \
  template tcg::result tcg::fill<T>(TCG_EXEC, T *, int64_t, double);                               \
  template tcg::result tcg::arange<T>(TCG_EXEC, T *, int64_t, double, double);                     \
  template tcg::result tcg::random_fill<T>(TCG_EXEC, T *, int64_t, tc::random_distribution,        \
                                           tc::random_key, int64_t, int64_t);                      \
  template tcg::result tcg::pad<T>(TCG_EXEC, const T *, int, const int64_t *, const int64_t *,     \
                                   const int64_t *, tc::pad_mode, double, T *);                    \
  template tcg::result tcg::upsample<T>(TCG_EXEC, const T *, int64_t, int, const int64_t *,        \
                                        const int64_t *, const double *, tc::upsample_mode, bool,  \
                                        T *);                                                      \
  TCG_INSTANTIATE_GATHERS(T, int64_t)                                                              \
  TCG_INSTANTIATE_GATHERS(T, int32_t)                                                              \
  template tcg::result tcg::reduce_any<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, bool *); \
  template tcg::result tcg::reduce<T, T>(TCG_EXEC, tcg::reduce_kind, const T *, int64_t, int64_t,  \
                                         int64_t, T *);                                            \
  template tcg::result tcg::argmax<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, int64_t *);  \
  template tcg::result tcg::cumsum<T, T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, T *);     \
  template tcg::result tcg::max_pool2d<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, int64_t, \
                                          int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,    \
                                          int64_t, int64_t, T *, int64_t, int64_t);                \
  template tcg::result tcg::max_pool3d<T>(TCG_EXEC, const T *, int64_t, const tc::pool_geometry &, \
                                          T *, int64_t *);                                         \
  template tcg::result tcg::gemm<T>(TCG_EXEC, int64_t, int64_t, int64_t, int64_t, const T *,       \
                                    int64_t, bool, const T *, int64_t, bool, double, double, T *); \
  template tcg::result tcg::grouped_gemm<T, int32_t>(TCG_EXEC, int64_t, int64_t, int64_t, int64_t, \
                                                     const T *, const T *, const int32_t *, T *);  \
  template tcg::result tcg::grouped_gemm<T, int64_t>(TCG_EXEC, int64_t, int64_t, int64_t, int64_t, \
                                                     const T *, const T *, const int64_t *, T *);

// Arithmetic kernels: the floating types.
#define TCG_INSTANTIATE_FLOATING(T)                                                                \
  TCG_INSTANTIATE_MOVEMENT(T)                                                                      \
  template tcg::result tcg::conv2d<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, int64_t,     \
                                      const T *, int64_t, int64_t, int64_t, const T *, int64_t,    \
                                      int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, T *,   \
                                      int64_t, int64_t, T *);                                      \
  template tcg::result tcg::conv_transpose2d<T>(                                                   \
      TCG_EXEC, const T *, int64_t, int64_t, int64_t, int64_t, const T *, int64_t, int64_t,        \
      int64_t, const T *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, T *,      \
      int64_t, int64_t, tcg::detail::float_acc_t<T> *);                                            \
  template tcg::result tcg::avg_pool2d<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, int64_t, \
                                          int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,    \
                                          bool, int64_t, T *, int64_t, int64_t);                   \
  template tcg::result tcg::adaptive_avg_pool2d<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, \
                                                   int64_t, T *, int64_t, int64_t);                \
  template tcg::result tcg::avg_pool3d<T>(TCG_EXEC, const T *, int64_t, const tc::pool_geometry &, \
                                          bool, int64_t, T *);                                     \
  template tcg::result tcg::adaptive_avg_pool3d<T>(TCG_EXEC, const T *, int64_t,                   \
                                                   const tc::pool_geometry &, T *);                \
  template tcg::result tcg::grid_sample<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t,         \
                                           int64_t, const T *, int64_t, int64_t, tc::grid_mode,    \
                                           tc::grid_padding, bool, T *);                           \
  template tcg::result tcg::variance<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, double,    \
                                        T *);                                                      \
  template tcg::result tcg::softmax<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, bool, T *); \
  template tcg::result tcg::layer_norm<T>(TCG_EXEC, const T *, int64_t, int64_t, const T *,        \
                                          const T *, double, T *);                                 \
  template tcg::result tcg::batch_norm<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t,          \
                                          const T *, const T *, const T *, const T *, double,      \
                                          T *);                                                    \
  template tcg::result tcg::attention<T>(TCG_EXEC, const T *, const T *, const T *, int64_t,       \
                                         int64_t, int64_t, int64_t, int64_t, const void *, bool,   \
                                         double, bool, T *, double *);

// Reductions whose result type differs from the operand's.
#define TCG_INSTANTIATE_REDUCE_INTO(T, Out)                                                        \
  template tcg::result tcg::reduce<T, Out>(TCG_EXEC, tcg::reduce_kind, const T *, int64_t,         \
                                           int64_t, int64_t, Out *);                               \
  template tcg::result tcg::cumsum<T, Out>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, Out *);

TCG_INSTANTIATE_FLOATING(float)
TCG_INSTANTIATE_FLOATING(double)
TCG_INSTANTIATE_FLOATING(tc::half)
TCG_INSTANTIATE_FLOATING(tc::bfloat16)
TCG_INSTANTIATE_MOVEMENT(int64_t)
TCG_INSTANTIATE_MOVEMENT(int32_t)
TCG_INSTANTIATE_MOVEMENT(int16_t)
TCG_INSTANTIATE_MOVEMENT(int8_t)
TCG_INSTANTIATE_MOVEMENT(uint8_t)
TCG_INSTANTIATE_MOVEMENT(bool)

// f16/bf16 and f32 summed into f32/f64; integers and bool summed into i64.
TCG_INSTANTIATE_REDUCE_INTO(tc::half, float)
TCG_INSTANTIATE_REDUCE_INTO(tc::bfloat16, float)
TCG_INSTANTIATE_REDUCE_INTO(float, double)
TCG_INSTANTIATE_REDUCE_INTO(int32_t, int64_t)
TCG_INSTANTIATE_REDUCE_INTO(int16_t, int64_t)
TCG_INSTANTIATE_REDUCE_INTO(int8_t, int64_t)
TCG_INSTANTIATE_REDUCE_INTO(uint8_t, int64_t)
TCG_INSTANTIATE_REDUCE_INTO(bool, int64_t)

// The host-side size helpers are plain inline functions; odr-use them so they are compiled.
int64_t tcg_instantiations_workspace_sizes() {
  return tcg::conv2d_workspace_size(8, 3, 3, 5, 5, 2) + tcg::attention_workspace_size(1, 1, 700, 64) +
         tcg::conv_transpose2d_workspace_size(4, 3, 3, 5, 5, 11);
}

// sort (every element type) and embedding_bag (floating tables, both index types).
#define TCG_INSTANTIATE_SORT(T)                                                                    \
  template tcg::result tcg::sort<T>(TCG_EXEC, const T *, int64_t, int64_t, int64_t, bool, T *,     \
                                    int64_t *, T *, int64_t *);
#define TCG_INSTANTIATE_BAG(T, I)                                                                  \
  template tcg::result tcg::embedding_bag<T, I>(TCG_EXEC, const T *, int64_t, int64_t, const I *,  \
                                                int64_t, const I *, int64_t, bool, tcg::bag_mode,  \
                                                int64_t, const T *, T *);
TCG_INSTANTIATE_SORT(float)
TCG_INSTANTIATE_SORT(double)
TCG_INSTANTIATE_SORT(tc::half)
TCG_INSTANTIATE_SORT(tc::bfloat16)
TCG_INSTANTIATE_SORT(int64_t)
TCG_INSTANTIATE_SORT(int32_t)
TCG_INSTANTIATE_SORT(int16_t)
TCG_INSTANTIATE_SORT(int8_t)
TCG_INSTANTIATE_SORT(uint8_t)
TCG_INSTANTIATE_SORT(bool)
TCG_INSTANTIATE_BAG(float, int64_t)
TCG_INSTANTIATE_BAG(float, int32_t)
TCG_INSTANTIATE_BAG(double, int64_t)
TCG_INSTANTIATE_BAG(tc::half, int64_t)
TCG_INSTANTIATE_BAG(tc::bfloat16, int32_t)
