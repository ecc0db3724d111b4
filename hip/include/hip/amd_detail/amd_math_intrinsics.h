/* The CUDA/HIP math intrinsics, written for hipmem: the fast single-precision forms (__sinf, __expf, __fdividef ...)
 * and the IEEE operations with an explicit rounding mode (__fadd_rz, __fmul_ru, __fdiv_rd, __fsqrt_rn, __dadd_rz,
 * __fma_ru ...). Included by amd_math_functions.h (HIP-Clang only); every function is __device__.
 *
 * Directed rounding, two ways, both exact (correctly rounded in the mode the name says):
 *  - add, sub, mul and fma are one VALU instruction each, run under the MODE register's rounding field (set and
 *    restored around it in one asm statement, so the compiler can neither fold the operation at compile time in
 *    round-to-nearest nor move it out from under the mode);
 *  - div, rcp and sqrt are instruction sequences, so they are computed in round-to-nearest and then moved one ulp when
 *    the exact result lies on the other side: the sign of the exact residual (a - q*b, a - s*s) decides, computed by
 *    one fma whose result is exact because the operands are scaled near 1 first (f32 residuals are exact in double).
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_MATH_INTRINSICS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_MATH_INTRINSICS_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_math_intrinsics.h is for HIP-Clang (clang -x hip)"
#endif

#include <cstdint>

/* --- Fast single precision --------------------------------------------------------------------------------------
 * The hardware's approximations (v_sin_f32, v_exp_f32, v_log_f32, v_rcp_f32), as upstream maps them: accurate near
 * the origin and within a few ulps elsewhere, not for large arguments (CUDA's table gives their bounds). */
__HIPMEM_MATH float __sinf(float x) { return __ocml_native_sin_f32(x); }
__HIPMEM_MATH float __cosf(float x) { return __ocml_native_cos_f32(x); }
__HIPMEM_MATH float __tanf(float x) { return __ocml_native_sin_f32(x) / __ocml_native_cos_f32(x); }
__HIPMEM_MATH void __sincosf(float x, float* s, float* c) {
  *s = __ocml_native_sin_f32(x);
  *c = __ocml_native_cos_f32(x);
}
__HIPMEM_MATH float __expf(float x) { return __ocml_native_exp_f32(x); }
__HIPMEM_MATH float __exp10f(float x) { return __ocml_native_exp10_f32(x); }
__HIPMEM_MATH float __logf(float x) { return __ocml_native_log_f32(x); }
__HIPMEM_MATH float __log2f(float x) { return __ocml_native_log2_f32(x); }
__HIPMEM_MATH float __log10f(float x) { return __ocml_native_log10_f32(x); }
__HIPMEM_MATH float __powf(float x, float y) { return __ocml_native_exp2_f32(y * __ocml_native_log2_f32(x)); }
/* x * (1/y) with the hardware reciprocal (1 ulp), not the IEEE division sequence. */
__HIPMEM_MATH float __fdividef(float x, float y) { return x * __builtin_amdgcn_rcpf(y); }
__HIPMEM_MATH float fdividef(float x, float y) { return x / y; }
/* Clamped to [0, 1]; NaN gives 0. */
__HIPMEM_MATH float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }

/* --- Directed rounding: the modes ------------------------------------------------------------------------------
 * MODE.FP_ROUND: bits 1:0 for f32, 3:2 for f64/f16; 0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero.
 * The intrinsics set both fields alike. */
enum __hipmem_rounding { __hipmem_rn = 0, __hipmem_ru = 1, __hipmem_rd = 2, __hipmem_rz = 3 };

/* One instruction under a rounding mode: the MODE round field saved, set, restored around it. s_nop: a VALU reading
 * MODE right after s_setreg needs wait states. kMode * 5 sets the f32 and the f64/f16 field alike. */
#define __HIPMEM_UNDER_MODE(instruction)                                     \
  "s_getreg_b32 %[saved], hwreg(HW_REG_MODE, 0, 4)\n\t"                    \
  "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), %[mode]\n\t"               \
  "s_nop 1\n\t" instruction "\n\t"                                        \
  "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), %[saved]"
#define __HIPMEM_MODE_BINARY(name, T, mnemonic)                                                     \
  template <int kMode>                                                                              \
  __HIPMEM_MATH T name(T a, T b) {                                                                  \
    T r;                                                                                            \
    unsigned saved;                                                                                 \
    asm volatile(__HIPMEM_UNDER_MODE(mnemonic " %[r], %[a], %[b]")                                  \
                 : [r] "=v"(r), [saved] "=&s"(saved)                                                \
                 : [a] "v"(a), [b] "v"(b), [mode] "i"(kMode * 5));                                  \
    return r;                                                                                       \
  }
#define __HIPMEM_MODE_TERNARY(name, T, mnemonic)                                                    \
  template <int kMode>                                                                              \
  __HIPMEM_MATH T name(T a, T b, T c) {                                                             \
    T r;                                                                                            \
    unsigned saved;                                                                                 \
    asm volatile(__HIPMEM_UNDER_MODE(mnemonic " %[r], %[a], %[b], %[c]")                            \
                 : [r] "=v"(r), [saved] "=&s"(saved)                                                \
                 : [a] "v"(a), [b] "v"(b), [c] "v"(c), [mode] "i"(kMode * 5));                      \
    return r;                                                                                       \
  }
__HIPMEM_MODE_BINARY(__hipmem_fadd, float, "v_add_f32")
__HIPMEM_MODE_BINARY(__hipmem_fmul, float, "v_mul_f32")
__HIPMEM_MODE_TERNARY(__hipmem_ffma, float, "v_fma_f32")
__HIPMEM_MODE_BINARY(__hipmem_dadd, double, "v_add_f64")
__HIPMEM_MODE_BINARY(__hipmem_dmul, double, "v_mul_f64")
__HIPMEM_MODE_TERNARY(__hipmem_dfma, double, "v_fma_f64")
#undef __HIPMEM_MODE_BINARY
#undef __HIPMEM_MODE_TERNARY
#undef __HIPMEM_UNDER_MODE

/* --- Directed rounding from the nearest result and the side the exact value lies on ----------------------------
 * `nearest` is the round-to-nearest result; `side` the sign of (exact - nearest): -1, 0 or +1. The directed result is
 * `nearest` or its neighbour toward the exact value. An overflow to infinity has side opposite to its sign (the
 * exact value is finite), which steps it back to the largest finite value where the mode says so. */
__HIPMEM_MATH float __hipmem_step_f32(float x, int up) {
  uint32_t bits = __builtin_bit_cast(uint32_t, x);
  if (x == 0.0f) return up ? 0x1p-149f : -0x1p-149f;
  bits = ((x > 0.0f) == (up != 0)) ? bits + 1 : bits - 1;
  return __builtin_bit_cast(float, bits);
}
__HIPMEM_MATH double __hipmem_step_f64(double x, int up) {
  uint64_t bits = __builtin_bit_cast(uint64_t, x);
  if (x == 0.0) return up ? 0x1p-1074 : -0x1p-1074;
  bits = ((x > 0.0) == (up != 0)) ? bits + 1 : bits - 1;
  return __builtin_bit_cast(double, bits);
}
template <int kMode, typename T, typename Step>
__HIPMEM_MATH T __hipmem_directed(T nearest, int side, Step step) {
  if (side == 0 || kMode == __hipmem_rn || nearest != nearest) return nearest;
  const bool up = side > 0;
  switch (kMode) {
    case __hipmem_ru: return up ? step(nearest, 1) : nearest;
    case __hipmem_rd: return up ? nearest : step(nearest, 0);
    default:  // toward zero: only when the nearest result is farther from zero than the exact one
      if (nearest > 0 && !up) return step(nearest, 0);
      if (nearest < 0 && up) return step(nearest, 1);
      return nearest;
  }
}
__HIPMEM_MATH int __hipmem_sign(double r) { return r > 0 ? 1 : (r < 0 ? -1 : 0); }

/* f32 division and square root: the residual is exact in double (products of two floats need 48 bits). */
template <int kMode>
__HIPMEM_MATH float __hipmem_fdiv(float a, float b) {
  const float q = a / b;
  if (!__builtin_isfinite(a) || !__builtin_isfinite(b) || b == 0.0f || a == 0.0f) return q;
  int side;
  if (__builtin_isinf(q)) {
    side = q > 0 ? -1 : 1;  // overflowed: the exact quotient is finite
  } else {
    const double residual = __builtin_fma(-static_cast<double>(q), static_cast<double>(b), static_cast<double>(a));
    side = __hipmem_sign(residual) * (b > 0 ? 1 : -1);
    if (q == 0.0f) side = (a > 0) == (b > 0) ? 1 : -1;  // underflowed to zero: the exact quotient is not
  }
  return __hipmem_directed<kMode>(q, side, __hipmem_step_f32);
}
template <int kMode>
__HIPMEM_MATH float __hipmem_fsqrt(float a) {
  const float s = __builtin_sqrtf(a);
  if (!(a > 0.0f) || __builtin_isinf(a)) return s;
  const double residual = __builtin_fma(-static_cast<double>(s), static_cast<double>(s), static_cast<double>(a));
  return __hipmem_directed<kMode>(s, __hipmem_sign(residual), __hipmem_step_f32);
}

/* f64 division: q = a/b in round-to-nearest, then the residual in a scaled copy where it is exact. Scaling by powers
 * of two is exact: a and b to [1, 2) (a subnormal one scales up without loss), q to [1, 2) when it is normal, or by
 * 2^1074 (an integer) when it is subnormal, whose spacing is absolute. Then a2 = a1 * 2^(ea - eb + shift) matches
 * q1 = q * 2^shift, and a2 - q1*b1 has the sign of the exact a/b - q (times b's sign) and is exact in one fma. */
template <int kMode>
__HIPMEM_MATH double __hipmem_ddiv(double a, double b) {
  const double q = a / b;
  if (!__builtin_isfinite(a) || !__builtin_isfinite(b) || b == 0.0 || a == 0.0) return q;
  int side;
  if (__builtin_isinf(q)) {
    side = q > 0 ? -1 : 1;
  } else if (q == 0.0) {
    side = (a > 0) == (b > 0) ? 1 : -1;
  } else {
    const int ea = __ocml_ilogb_f64(a);
    const int eb = __ocml_ilogb_f64(b);
    const double a1 = __ocml_ldexp_f64(a, -ea);
    const double b1 = __ocml_ldexp_f64(b, -eb);
    const int shift = __builtin_fabs(q) >= 0x1p-1022 ? -__ocml_ilogb_f64(q) : 1074;
    const double q1 = __ocml_ldexp_f64(q, shift);
    const double a2 = __ocml_ldexp_f64(a1, ea - eb + shift);
    side = __hipmem_sign(__builtin_fma(-q1, b1, a2)) * (b > 0 ? 1 : -1);
  }
  return __hipmem_directed<kMode>(q, side, __hipmem_step_f64);
}
/* f64 square root: a scaled by an even power of two to [1, 4) scales the root exactly (to [1, 2)). */
template <int kMode>
__HIPMEM_MATH double __hipmem_dsqrt(double a) {
  const double s = __builtin_sqrt(a);
  if (!(a > 0.0) || __builtin_isinf(a)) return s;
  const int half = __ocml_ilogb_f64(a) >> 1;  // floor(e / 2)
  const double a1 = __ocml_ldexp_f64(a, -2 * half);
  const double s1 = __ocml_ldexp_f64(s, -half);
  return __hipmem_directed<kMode>(s, __hipmem_sign(__builtin_fma(-s1, s1, a1)), __hipmem_step_f64);
}

/* --- The intrinsics --------------------------------------------------------------------------------------------- */
#define __HIPMEM_DIRECTED(suffix, mode)                                                                             \
  __HIPMEM_MATH float __fadd_##suffix(float a, float b) { return __hipmem_fadd<mode>(a, b); }                       \
  __HIPMEM_MATH float __fsub_##suffix(float a, float b) { return __hipmem_fadd<mode>(a, -b); }                      \
  __HIPMEM_MATH float __fmul_##suffix(float a, float b) { return __hipmem_fmul<mode>(a, b); }                       \
  __HIPMEM_MATH float __fmaf_##suffix(float a, float b, float c) { return __hipmem_ffma<mode>(a, b, c); }            \
  __HIPMEM_MATH float __fdiv_##suffix(float a, float b) { return __hipmem_fdiv<mode>(a, b); }                       \
  __HIPMEM_MATH float __frcp_##suffix(float a) { return __hipmem_fdiv<mode>(1.0f, a); }                             \
  __HIPMEM_MATH float __fsqrt_##suffix(float a) { return __hipmem_fsqrt<mode>(a); }                                 \
  __HIPMEM_MATH double __dadd_##suffix(double a, double b) { return __hipmem_dadd<mode>(a, b); }                    \
  __HIPMEM_MATH double __dsub_##suffix(double a, double b) { return __hipmem_dadd<mode>(a, -b); }                   \
  __HIPMEM_MATH double __dmul_##suffix(double a, double b) { return __hipmem_dmul<mode>(a, b); }                    \
  __HIPMEM_MATH double __fma_##suffix(double a, double b, double c) { return __hipmem_dfma<mode>(a, b, c); }        \
  __HIPMEM_MATH double __ddiv_##suffix(double a, double b) { return __hipmem_ddiv<mode>(a, b); }                    \
  __HIPMEM_MATH double __drcp_##suffix(double a) { return __hipmem_ddiv<mode>(1.0, a); }                            \
  __HIPMEM_MATH double __dsqrt_##suffix(double a) { return __hipmem_dsqrt<mode>(a); }
__HIPMEM_DIRECTED(rn, __hipmem_rn)
__HIPMEM_DIRECTED(rz, __hipmem_rz)
__HIPMEM_DIRECTED(ru, __hipmem_ru)
__HIPMEM_DIRECTED(rd, __hipmem_rd)
#undef __HIPMEM_DIRECTED

/* HIP's names for the plain IEEE forms and the reciprocal square root. */
__HIPMEM_MATH float __fmaf_ieee_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
__HIPMEM_MATH float __frsqrt_rn(float x) { return __ocml_rsqrt_f32(x); }

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_MATH_INTRINSICS_H */
