// Small GEMMs on the matrix cores through clang's MFMA builtins, for mfma_kernel_test.cc: one wave (64 work-items)
// per workgroup computes one output tile, stepping through K one MFMA at a time. Each kernel loads its operands in
// the lane layout the instruction defines and stores the accumulator back from it, so a layout the engine got wrong
// shows up as a wrong product. Matrices are row-major: A is MxK, B is KxN, C (in and out) MxN.
#include <stdint.h>

#define __global__ __attribute__((global))

typedef float float4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));
typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef double double4_t __attribute__((ext_vector_type(4)));
typedef int int4_t __attribute__((ext_vector_type(4)));

static __attribute__((device)) inline unsigned Lane() { return __builtin_amdgcn_workitem_id_x(); }

// f32, 32x32 tile per workgroup (tiles along N by workgroup id), K a multiple of 2: v_mfma_f32_32x32x2f32. Lane l
// holds A[l%32][k0 + l/32] and B[k0 + l/32][l%32]; accumulator register r of lane l is C[8*(r/4) + 4*(l/32) +
// r%4][l%32].
extern "C" __global__ void gemm_f32_32x32x2(const float* a, const float* b, float* c, int k, int n) {
  const unsigned l = Lane();
  const unsigned col0 = __builtin_amdgcn_workgroup_id_x() * 32;
  float16_t acc;
  for (int r = 0; r < 16; ++r) acc[r] = c[(8 * (r / 4) + 4 * (l / 32) + r % 4) * n + col0 + l % 32];
  for (int k0 = 0; k0 < k; k0 += 2) {
    const float x = a[(l % 32) * k + k0 + l / 32];
    const float y = b[(k0 + l / 32) * n + col0 + l % 32];
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(x, y, acc, 0, 0, 0);
  }
  for (int r = 0; r < 16; ++r) c[(8 * (r / 4) + 4 * (l / 32) + r % 4) * n + col0 + l % 32] = acc[r];
}

// f16 inputs, f32 accumulator, 16x16 tile, K a multiple of 16: v_mfma_f32_16x16x16f16. Lane l holds A[l%16][k0 +
// 4*(l/16) + t] and B[k0 + 4*(l/16) + t][l%16] for t = 0..3; accumulator register r is C[4*(l/16) + r][l%16].
extern "C" __global__ void gemm_f16_16x16x16(const _Float16* a, const _Float16* b, float* c, int k, int n) {
  const unsigned l = Lane();
  const unsigned col0 = __builtin_amdgcn_workgroup_id_x() * 16;
  float4_t acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (l / 16) + r) * n + col0 + l % 16];
  for (int k0 = 0; k0 < k; k0 += 16) {
    half4_t x, y;
    for (int t = 0; t < 4; ++t) {
      x[t] = a[(l % 16) * k + k0 + 4 * (l / 16) + t];
      y[t] = b[(k0 + 4 * (l / 16) + t) * n + col0 + l % 16];
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(x, y, acc, 0, 0, 0);
  }
  for (int r = 0; r < 4; ++r) c[(4 * (l / 16) + r) * n + col0 + l % 16] = acc[r];
}

// Sixteen 4x4 products at once with one A broadcast (v_mfma_f32_4x4x1f32, CBSZ 4, ABID 5): block b of the output is
// C_b + A_5 * B_b, every block using A's block 5. Lane l holds A_{l/4}[l%4][0] and B_{l/4}[0][l%4]; register r
// of lane l is C_{l/4}[r][l%4]. a is 16 blocks of 4x1, b 16 blocks of 1x4, c 16 blocks of 4x4.
extern "C" __global__ void outer_f32_4x4x1_broadcast(const float* a, const float* b, float* c) {
  const unsigned l = Lane();
  float4_t acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(l / 4) * 16 + r * 4 + l % 4];
  acc = __builtin_amdgcn_mfma_f32_4x4x1f32(a[(l / 4) * 4 + l % 4], b[(l / 4) * 4 + l % 4], acc, 4, 5, 0);
  for (int r = 0; r < 4; ++r) c[(l / 4) * 16 + r * 4 + l % 4] = acc[r];
}

#if defined(__gfx90a__) || defined(__gfx942__)
// f64, 16x16 tile, K a multiple of 4: v_mfma_f64_16x16x4f64. Lane l holds A[l%16][k0 + l/16] and B[k0 + l/16][l%16];
// accumulator register (pair) r of lane l is C[4*r + l/16][l%16].
extern "C" __global__ void gemm_f64_16x16x4(const double* a, const double* b, double* c, int k, int n) {
  const unsigned l = Lane();
  const unsigned col0 = __builtin_amdgcn_workgroup_id_x() * 16;
  double4_t acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * r + l / 16) * n + col0 + l % 16];
  for (int k0 = 0; k0 < k; k0 += 4) {
    acc = __builtin_amdgcn_mfma_f64_16x16x4f64(a[(l % 16) * k + k0 + l / 16], b[(k0 + l / 16) * n + col0 + l % 16], acc,
                                               0, 0, 0);
  }
  for (int r = 0; r < 4; ++r) c[(4 * r + l / 16) * n + col0 + l % 16] = acc[r];
}
#endif

typedef short short4_t __attribute__((ext_vector_type(4)));

#if defined(__gfx90a__) || defined(__gfx942__)
// bf16 inputs (four per lane: the _1k forms), 16x16 tile, K a multiple of 16: v_mfma_f32_16x16x16bf16_1k (gfx942:
// v_mfma_f32_16x16x16_bf16). The lane layout is gemm_f16_16x16x16's; a and b hold bf16 bit patterns.
extern "C" __global__ void gemm_bf16_16x16x16(const unsigned short* a, const unsigned short* b, float* c, int k, int n) {
  const unsigned l = Lane();
  const unsigned col0 = __builtin_amdgcn_workgroup_id_x() * 16;
  float4_t acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (l / 16) + r) * n + col0 + l % 16];
  for (int k0 = 0; k0 < k; k0 += 16) {
    short4_t x, y;
    for (int t = 0; t < 4; ++t) {
      x[t] = static_cast<short>(a[(l % 16) * k + k0 + 4 * (l / 16) + t]);
      y[t] = static_cast<short>(b[(k0 + 4 * (l / 16) + t) * n + col0 + l % 16]);
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(x, y, acc, 0, 0, 0);
  }
  for (int r = 0; r < 4; ++r) c[(4 * (l / 16) + r) * n + col0 + l % 16] = acc[r];
}
#endif

// int8 inputs, i32 accumulator, 16x16 tile: v_mfma_i32_16x16x16i8 (K 16, four int8 per lane) on gfx908/gfx90a,
// v_mfma_i32_16x16x32_i8 (K 32, eight per lane) on gfx942. Lane l holds A[l%16][k0 + E*(l/16) + t] and
// B[k0 + E*(l/16) + t][l%16] for t < E; accumulator register r is C[4*(l/16) + r][l%16]. k is a multiple of 32.
extern "C" __global__ void gemm_i8_16x16(const signed char* a, const signed char* b, int* c, int k, int n) {
  const unsigned l = Lane();
  const unsigned col0 = __builtin_amdgcn_workgroup_id_x() * 16;
#if defined(__gfx942__)
  constexpr int kE = 8;
#else
  constexpr int kE = 4;
#endif
  int4_t acc;
  for (int r = 0; r < 4; ++r) acc[r] = c[(4 * (l / 16) + r) * n + col0 + l % 16];
  for (int k0 = 0; k0 < k; k0 += 4 * kE) {
    unsigned long long x = 0, y = 0;
    for (int t = 0; t < kE; ++t) {
      x |= static_cast<unsigned long long>(static_cast<unsigned char>(a[(l % 16) * k + k0 + kE * (l / 16) + t])) << (8 * t);
      y |= static_cast<unsigned long long>(static_cast<unsigned char>(b[(k0 + kE * (l / 16) + t) * n + col0 + l % 16]))
           << (8 * t);
    }
#if defined(__gfx942__)
    acc = __builtin_amdgcn_mfma_i32_16x16x32_i8(static_cast<long>(x), static_cast<long>(y), acc, 0, 0, 0);
#else
    acc = __builtin_amdgcn_mfma_i32_16x16x16i8(static_cast<int>(x), static_cast<int>(y), acc, 0, 0, 0);
#endif
  }
  for (int r = 0; r < 4; ++r) c[(4 * (l / 16) + r) * n + col0 + l % 16] = acc[r];
}
