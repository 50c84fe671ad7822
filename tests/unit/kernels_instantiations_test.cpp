// Explicitly instantiates every template of the bundle kernel library
// (backend_cpu/kernels/tc_kernels.h) for each element type it serves, so a template error
// fails the build instead of the first bundle that happens to use it. Besides being part of
// the unit-test binary, CTest compiles this file on its own as C++17 with
// -Wall -Wextra -Werror (test "kernels_cxx17", tests/unit/CMakeLists.txt), the way bundles
// include the library; it therefore uses nothing but the kernel headers.
#include "tc_kernels.h"

#include <cstdint>

// No `using tc::bfloat16`: OpenBLAS's <cblas.h> (TC_USE_CBLAS) declares a global
// `typedef uint16_t bfloat16`, so code around the library must spell tc::bfloat16.

// Data movement: every element type, including integers and bool.
#define TC_INSTANTIATE_MOVEMENT(T)                                                                 \
  template void tc::strided_copy<T>(const T *, int64_t, const int64_t *, int, const int64_t *,     \
                                    T *);                                                          \
  template void tc::strided_store<T>(const T *, int, const int64_t *, T *, int64_t,                \
                                     const int64_t *);                                             \
  template void tc::triangle<T>(const T *, int64_t, int64_t, int64_t, int64_t, bool, T *);         \
  template void tc::fill<T>(T *, int64_t, double);                                                 \
  template void tc::arange<T>(T *, int64_t, double, double);                                       \
  template void tc::random_fill<T>(T *, int64_t, tc::random_distribution, tc::random_key,         \
                                   int64_t, int64_t);                                              \
  template bool tc::embedding<T, int64_t>(const T *, int64_t, int64_t, const int64_t *, int64_t,   \
                                          T *, int64_t *);                                         \
  template bool tc::embedding<T, int32_t>(const T *, int64_t, int64_t, const int32_t *, int64_t,   \
                                          T *, int64_t *);                                         \
  template bool tc::index_select<T, int64_t>(const T *, int64_t, int64_t, int64_t,                 \
                                             const int64_t *, int64_t, T *, int64_t *);            \
  template bool tc::index_select<T, int32_t>(const T *, int64_t, int64_t, int64_t,                 \
                                             const int32_t *, int64_t, T *, int64_t *);            \
  template bool tc::gather<T, int64_t>(const T *, int64_t, int64_t, int64_t, const int64_t *,      \
                                       int64_t, T *, int64_t *);                                   \
  template bool tc::gather<T, int32_t>(const T *, int64_t, int64_t, int64_t, const int32_t *,      \
                                       int64_t, T *, int64_t *);                                   \
  template void tc::pad<T>(const T *, int, const int64_t *, const int64_t *, const int64_t *,      \
                           tc::pad_mode, double, T *);                                             \
  template void tc::upsample<T>(const T *, int64_t, int, const int64_t *, const int64_t *,         \
                                const double *, tc::upsample_mode, bool, T *);                     \
  template bool tc::scatter<T, int64_t>(T *, int64_t, int64_t, int64_t, const int64_t *, int64_t,  \
                                        const T *, tc::scatter_reduce, bool, int64_t *);           \
  template bool tc::scatter<T, int32_t>(T *, int64_t, int64_t, int64_t, const int32_t *, int64_t,  \
                                        const T *, tc::scatter_reduce, bool, int64_t *);           \
  template void tc::reduce_any<T>(const T *, int64_t, int64_t, int64_t, bool *);                   \
  template void tc::reduce<T, T>(tc::reduce_kind, const T *, int64_t, int64_t, int64_t, T *);      \
  template void tc::argmax<T>(const T *, int64_t, int64_t, int64_t, int64_t *);                    \
  template void tc::cumsum<T, T>(const T *, int64_t, int64_t, int64_t, T *);                       \
  template void tc::max_pool2d<T>(const T *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, \
                                  int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, T *,       \
                                  int64_t, int64_t);                                               \
  template void tc::max_pool3d<T>(const T *, int64_t, const tc::pool_geometry &, T *, int64_t *);  \
  template void tc::gemm<T>(int64_t, int64_t, int64_t, int64_t, const T *, int64_t, bool,          \
                            const T *, int64_t, bool, double, double, T *);

// Arithmetic kernels: the floating types.
#define TC_INSTANTIATE_FLOATING(T)                                                                 \
  TC_INSTANTIATE_MOVEMENT(T)                                                                       \
  template void tc::gemm_loops<T>(int64_t, int64_t, int64_t, int64_t, const T *, int64_t, bool,    \
                                  const T *, int64_t, bool, double, double, T *);                  \
  template void tc::conv2d<T>(const T *, int64_t, int64_t, int64_t, int64_t, const T *, int64_t,   \
                              int64_t, int64_t, const T *, int64_t, int64_t, int64_t, int64_t,     \
                              int64_t, int64_t, int64_t, T *, int64_t, int64_t, T *);              \
  template void tc::conv_transpose2d<T>(const T *, int64_t, int64_t, int64_t, int64_t, const T *,  \
                                        int64_t, int64_t, int64_t, const T *, int64_t, int64_t,    \
                                        int64_t, int64_t, int64_t, int64_t, int64_t, T *, int64_t, \
                                        int64_t, tc::compute_t<T> *);                              \
  template void tc::avg_pool2d<T>(const T *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, \
                                  int64_t, int64_t, int64_t, int64_t, bool, int64_t, T *, int64_t, \
                                  int64_t);                                                        \
  template void tc::adaptive_avg_pool2d<T>(const T *, int64_t, int64_t, int64_t, int64_t, T *,     \
                                           int64_t, int64_t);                                      \
  template void tc::avg_pool3d<T>(const T *, int64_t, const tc::pool_geometry &, bool, int64_t,    \
                                  T *);                                                            \
  template void tc::adaptive_avg_pool3d<T>(const T *, int64_t, const tc::pool_geometry &, T *);    \
  template void tc::grid_sample<T>(const T *, int64_t, int64_t, int64_t, int64_t, const T *,       \
                                   int64_t, int64_t, tc::grid_mode, tc::grid_padding, bool, T *);  \
  template void tc::variance<T>(const T *, int64_t, int64_t, int64_t, double, T *);                \
  template void tc::softmax<T>(const T *, int64_t, int64_t, int64_t, bool, T *);                   \
  template void tc::layer_norm<T>(const T *, int64_t, int64_t, const T *, const T *, double, T *); \
  template void tc::batch_norm<T>(const T *, int64_t, int64_t, int64_t, const T *, const T *,      \
                                  const T *, const T *, double, T *);                              \
  template void tc::attention<T>(const T *, const T *, const T *, int64_t, int64_t, int64_t,       \
                                 int64_t, int64_t, const void *, bool, double, bool, T *,          \
                                 double *);

// Scalar helpers: the compute types float and double.
#define TC_INSTANTIATE_SCALAR(T)                                                                   \
  template T tc::relu<T>(T);                                                                       \
  template T tc::sigmoid<T>(T);                                                                    \
  template T tc::silu<T>(T);                                                                       \
  template T tc::gelu_erf<T>(T);                                                                   \
  template T tc::gelu_tanh<T>(T);                                                                  \
  template T tc::hardswish<T>(T);                                                                  \
  template T tc::hardsigmoid<T>(T);                                                                \
  template T tc::rsqrt<T>(T);                                                                      \
  template T tc::reciprocal<T>(T);                                                                 \
  template T tc::clamp<T>(T, T, T);                                                                \
  template T tc::clamp_min<T>(T, T);                                                               \
  template T tc::clamp_max<T>(T, T);                                                               \
  template T tc::maximum<T>(T, T);                                                                 \
  template T tc::minimum<T>(T, T);                                                                 \
  template T tc::floor_divide<T>(T, T);                                                            \
  template T tc::py_mod<T>(T, T);                                                                  \
  template T tc::pow_<T>(T, T);

// Integer scalar helpers.
#define TC_INSTANTIATE_INTEGER(T)                                                                  \
  template T tc::relu<T>(T);                                                                       \
  template T tc::clamp<T>(T, T, T);                                                                \
  template T tc::maximum<T>(T, T);                                                                 \
  template T tc::minimum<T>(T, T);                                                                 \
  template T tc::floor_divide<T>(T, T);                                                            \
  template T tc::py_mod<T>(T, T);                                                                  \
  template T tc::pow_<T>(T, T);

TC_INSTANTIATE_FLOATING(float)
TC_INSTANTIATE_FLOATING(double)
TC_INSTANTIATE_FLOATING(tc::half)
TC_INSTANTIATE_FLOATING(tc::bfloat16)
TC_INSTANTIATE_MOVEMENT(int64_t)
TC_INSTANTIATE_MOVEMENT(int32_t)
TC_INSTANTIATE_MOVEMENT(uint8_t)
TC_INSTANTIATE_MOVEMENT(bool)
TC_INSTANTIATE_SCALAR(float)
TC_INSTANTIATE_SCALAR(double)
TC_INSTANTIATE_INTEGER(int64_t)
TC_INSTANTIATE_INTEGER(int32_t)
TC_INSTANTIATE_INTEGER(int16_t)
TC_INSTANTIATE_INTEGER(int8_t)
TC_INSTANTIATE_INTEGER(uint8_t)

// Reductions whose result type differs from the operand's: f16/bf16 and f32 summed into
// f32/f64, i32 and bool into i64.
template void tc::reduce<tc::half, float>(tc::reduce_kind, const tc::half *, int64_t, int64_t,
                                          int64_t, float *);
template void tc::reduce<tc::bfloat16, float>(tc::reduce_kind, const tc::bfloat16 *, int64_t,
                                              int64_t, int64_t, float *);
template void tc::reduce<float, double>(tc::reduce_kind, const float *, int64_t, int64_t, int64_t,
                                        double *);
template void tc::reduce<int32_t, int64_t>(tc::reduce_kind, const int32_t *, int64_t, int64_t,
                                           int64_t, int64_t *);
template void tc::reduce<bool, int64_t>(tc::reduce_kind, const bool *, int64_t, int64_t, int64_t,
                                        int64_t *);
template void tc::cumsum<int32_t, int64_t>(const int32_t *, int64_t, int64_t, int64_t, int64_t *);
template void tc::cumsum<bool, int64_t>(const bool *, int64_t, int64_t, int64_t, int64_t *);

// cast between every pair of element types (implicit instantiation through calls).
namespace {
template <typename... Types> struct TypeList {};
using ElementTypes = TypeList<bool, uint8_t, int8_t, int16_t, int32_t, int64_t, tc::half,
                              tc::bfloat16, float, double>;

template <typename To, typename... Froms> void castFromEach(TypeList<Froms...>) {
  (static_cast<void>(tc::cast<To>(Froms{})), ...);
}

template <typename... Tos> void castEachPair(TypeList<Tos...> types) {
  (castFromEach<Tos>(types), ...);
}
} // namespace

/// Never called; having external linkage, it makes the compiler instantiate every cast.
void tcKernelsInstantiateCasts() { castEachPair(ElementTypes{}); }

// sort (every element type) and embedding_bag (floating tables, both index types).
#define TC_INSTANTIATE_SORT(T)                                                                     \
  template void tc::sort<T>(const T *, int64_t, int64_t, int64_t, bool, T *, int64_t *, int64_t *);
#define TC_INSTANTIATE_BAG(T, I)                                                                   \
  template bool tc::embedding_bag<T, I>(const T *, int64_t, int64_t, const I *, int64_t,          \
                                        const I *, int64_t, bool, tc::bag_mode, int64_t,           \
                                        const T *, T *, int64_t *, double *);
TC_INSTANTIATE_SORT(float)
TC_INSTANTIATE_SORT(double)
TC_INSTANTIATE_SORT(tc::half)
TC_INSTANTIATE_SORT(tc::bfloat16)
TC_INSTANTIATE_SORT(int64_t)
TC_INSTANTIATE_SORT(int32_t)
TC_INSTANTIATE_SORT(int16_t)
TC_INSTANTIATE_SORT(int8_t)
TC_INSTANTIATE_SORT(uint8_t)
TC_INSTANTIATE_SORT(bool)
TC_INSTANTIATE_BAG(float, int64_t)
TC_INSTANTIATE_BAG(float, int32_t)
TC_INSTANTIATE_BAG(double, int64_t)
TC_INSTANTIATE_BAG(tc::half, int64_t)
TC_INSTANTIATE_BAG(tc::bfloat16, int32_t)
