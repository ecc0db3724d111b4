// Float kernels for float_kernel_test.cc, compiled by clang-19 for gfx908, gfx90a and gfx942: division, square
// roots and the hardware transcendentals through clang's builtins, a dependent FMA chain, double and half math.
#include <stdint.h>

#define __global__ __attribute__((global))

static __attribute__((device)) inline unsigned Id() {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
}

// IEEE division (LLVM's div_scale / rcp / fma / div_fmas / div_fixup sequence) and sqrt.
extern "C" __global__ void f32_div_sqrt(const float* a, const float* b, float* q, float* s, int n) {
  const unsigned i = Id();
  if (i >= static_cast<unsigned>(n)) return;
  q[i] = a[i] / b[i];
  s[i] = __builtin_sqrtf(a[i]);
}

// The hardware's own approximations: v_rcp_f32, v_exp_f32, v_log_f32, v_sin_f32 / v_cos_f32 (revolutions).
extern "C" __global__ void f32_transcendentals(const float* x, float* out, int n) {
  const unsigned i = Id();
  if (i >= static_cast<unsigned>(n)) return;
  out[5 * i + 0] = __builtin_amdgcn_rcpf(x[i]);
  out[5 * i + 1] = __builtin_amdgcn_exp2f(x[i]);
  out[5 * i + 2] = __builtin_amdgcn_logf(x[i]);
  out[5 * i + 3] = __builtin_amdgcn_sinf(x[i]);
  out[5 * i + 4] = __builtin_amdgcn_cosf(x[i]);
}

// A dependent chain of 64 fused multiply-adds (the compute-bound shape), unrolled so that it is all VALU.
extern "C" __global__ void fma_chain(const float* x, float* out) {
  const unsigned i = Id();
  float v = x[i];
#pragma unroll
  for (int k = 0; k < 64; ++k) v = __builtin_fmaf(v, 0.999f, 0.001f * static_cast<float>(k & 7));
  out[i] = v;
}

// Double precision: division, multiply, fma, and conversions to and from int and float. (sqrt is left out: its
// expansion needs s_brev_b32, which the SALU does not have yet.)
extern "C" __global__ void f64_math(const double* a, const double* b, double* out, int n) {
  const unsigned i = Id();
  if (i >= static_cast<unsigned>(n)) return;
  out[4 * i + 0] = a[i] / b[i];
  out[4 * i + 1] = a[i] * b[i];
  out[4 * i + 2] = __builtin_fma(a[i], b[i], -1.0);
  out[4 * i + 3] = static_cast<double>(static_cast<int>(a[i])) + static_cast<double>(static_cast<float>(b[i]));
}

// Half precision: arithmetic in _Float16 and conversions to and from float.
extern "C" __global__ void f16_math(const _Float16* a, const _Float16* b, _Float16* out, float* wide, int n) {
  const unsigned i = Id();
  if (i >= static_cast<unsigned>(n)) return;
  const _Float16 x = a[i], y = b[i];
  out[3 * i + 0] = x * y + x;
  out[3 * i + 1] = x > y ? x - y : y - x;
  out[3 * i + 2] = static_cast<_Float16>(static_cast<float>(x) / static_cast<float>(y));
  wide[i] = static_cast<float>(x) * 2.0f;
}
