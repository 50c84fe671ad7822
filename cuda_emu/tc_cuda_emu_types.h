// CUDA's built-in vector types (float4, int2, uchar4, ... with CUDA's sizes and alignments),
// dim3, and their make_* constructors, for the CPU emulation of CUDA (tc_cuda_emu.h). The
// alignments matter: device code reinterprets buffers as float4/int4 for vector loads, and
// struct layouts shared with host code must be identical under nvcc and the emulation.
#pragma once

// The N-component vector type `prefix##N` of `T`, aligned like CUDA's (vector_types.h):
// 1 and 3 components at T's alignment, 2 and 4 components at min(N * sizeof(T), 16) (CUDA 13
// deprecates the 8-byte-element 4-vectors, still 16-aligned, for explicit _16a/_32a variants).
#define TC_EMU_VECTOR_TYPES(prefix, T, align2, align4)                                             \
  struct prefix##1 {                                                                               \
    T x;                                                                                           \
  };                                                                                               \
  struct alignas(align2) prefix##2 {                                                               \
    T x, y;                                                                                        \
  };                                                                                               \
  struct prefix##3 {                                                                               \
    T x, y, z;                                                                                     \
  };                                                                                               \
  struct alignas(align4) prefix##4 {                                                               \
    T x, y, z, w;                                                                                  \
  };                                                                                               \
  inline prefix##1 make_##prefix##1(T x) { return prefix##1 {x}; }                                 \
  inline prefix##2 make_##prefix##2(T x, T y) { return prefix##2 {x, y}; }                         \
  inline prefix##3 make_##prefix##3(T x, T y, T z) { return prefix##3 {x, y, z}; }                 \
  inline prefix##4 make_##prefix##4(T x, T y, T z, T w) { return prefix##4 {x, y, z, w}; }

TC_EMU_VECTOR_TYPES(char, signed char, 2, 4)
TC_EMU_VECTOR_TYPES(uchar, unsigned char, 2, 4)
TC_EMU_VECTOR_TYPES(short, short, 4, 8)
TC_EMU_VECTOR_TYPES(ushort, unsigned short, 4, 8)
TC_EMU_VECTOR_TYPES(int, int, 8, 16)
TC_EMU_VECTOR_TYPES(float, float, 8, 16)
TC_EMU_VECTOR_TYPES(long, long, 2 * sizeof(long), 16)
TC_EMU_VECTOR_TYPES(ulong, unsigned long, 2 * sizeof(long), 16)
TC_EMU_VECTOR_TYPES(longlong, long long, 16, 16)
TC_EMU_VECTOR_TYPES(ulonglong, unsigned long long, 16, 16)
TC_EMU_VECTOR_TYPES(double, double, 16, 16)

#undef TC_EMU_VECTOR_TYPES

// uint is spelled out: CUDA's uint3 is the type of threadIdx and blockIdx.
struct uint1 {
  unsigned int x;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct uint3 {
  unsigned int x, y, z;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
inline uint1 make_uint1(unsigned int x) { return uint1{x}; }
inline uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
  return uint4{x, y, z, w};
}

/// A launch extent: grid size in blocks or block size in threads; unspecified dims are 1.
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 must match CUDA");
static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 must match CUDA");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2 must match CUDA");
static_assert(sizeof(uchar4) == 4 && alignof(uchar4) == 4, "uchar4 must match CUDA");
static_assert(sizeof(short2) == 4 && alignof(short2) == 4, "short2 must match CUDA");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3 must match CUDA");
