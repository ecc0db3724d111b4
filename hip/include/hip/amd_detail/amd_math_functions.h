/* The HIP device math library, written for hipmem: the float and double functions of <cmath> and of the CUDA/HIP
 * math API, the fast intrinsics (__sinf, __expf, __fdividef ...) and the directed-rounding intrinsics (__fadd_rz,
 * __dmul_ru, __fsqrt_rd ...), for HIP-Clang's device side. Included by amd_hip_runtime.h for HIP-Clang only (both
 * sides of the TU parse it; every function here is __device__, so the host side keeps <cmath>'s own).
 *
 * Where a function is one AMDGPU instruction or a clang builtin LLVM expands exactly (fabs, floor, sqrt, fma, fmin,
 * copysign ...), it is the builtin. The rest are ocml's (ROCm-Device-Libs' math library, Debian's rocm-device-libs
 * 5.2.3), declared below by their __ocml_<name>_f32/_f64 symbols; hip/defs.bzl links ocml.bc and its oclc_* control
 * bitcode into the device code (`--hip-device-lib`), so only the functions a kernel calls end up in it. Accuracy is
 * ocml's, which HIP's documentation gives in ulps per function (the test //hip:kernel_math_*_test holds the device
 * to those bounds against the host's libm).
 *
 * The C++ overloads (sin(float), std::sin on float and double) are pulled into namespace std like clang's own HIP
 * wrapper does, so device code calling std::sin(x) gets these and host code keeps libstdc++'s.
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_MATH_FUNCTIONS_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_MATH_FUNCTIONS_H

#if !defined(__clang__) || !defined(__HIP__)
#error "amd_math_functions.h is for HIP-Clang (clang -x hip)"
#endif

#include <hip/amd_detail/host_defines.h>

/* <cmath> first: its std:: declarations must exist before ours are added to namespace std (a later <cmath> would
 * see ours through its `using ::sin` and keep them). */
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#define __HIPMEM_MATH static __device__ inline __attribute__((always_inline))
/* ocml's out-parameters are OpenCL private (scratch, address space 5) pointers. */
#define __HIPMEM_PRIVATE __attribute__((address_space(5)))

/* --- ocml's declarations ---------------------------------------------------------------------------------------
 * Pure functions of their arguments (const: they read only the oclc_* constants). */
#define __HIPMEM_OCML1(name)                                                            \
  extern "C" __device__ __attribute__((const)) float __ocml_##name##_f32(float);     \
  extern "C" __device__ __attribute__((const)) double __ocml_##name##_f64(double);
#define __HIPMEM_OCML2(name)                                                               \
  extern "C" __device__ __attribute__((const)) float __ocml_##name##_f32(float, float);   \
  extern "C" __device__ __attribute__((const)) double __ocml_##name##_f64(double, double);
#define __HIPMEM_OCML_N(name)                                                           \
  extern "C" __device__ __attribute__((const)) float __ocml_##name##_f32(float, int);   \
  extern "C" __device__ __attribute__((const)) double __ocml_##name##_f64(double, int);

__HIPMEM_OCML1(acos) __HIPMEM_OCML1(acosh) __HIPMEM_OCML1(asin) __HIPMEM_OCML1(asinh) __HIPMEM_OCML1(atan)
__HIPMEM_OCML1(atanh) __HIPMEM_OCML1(cbrt) __HIPMEM_OCML1(cos) __HIPMEM_OCML1(cosh) __HIPMEM_OCML1(cospi)
__HIPMEM_OCML1(erf) __HIPMEM_OCML1(erfc) __HIPMEM_OCML1(erfcinv) __HIPMEM_OCML1(erfcx) __HIPMEM_OCML1(erfinv)
__HIPMEM_OCML1(exp) __HIPMEM_OCML1(exp10) __HIPMEM_OCML1(exp2) __HIPMEM_OCML1(expm1) __HIPMEM_OCML1(i0)
__HIPMEM_OCML1(i1) __HIPMEM_OCML1(j0) __HIPMEM_OCML1(j1) __HIPMEM_OCML1(lgamma) __HIPMEM_OCML1(log)
__HIPMEM_OCML1(log10) __HIPMEM_OCML1(log1p) __HIPMEM_OCML1(log2) __HIPMEM_OCML1(logb) __HIPMEM_OCML1(ncdf)
__HIPMEM_OCML1(ncdfinv) __HIPMEM_OCML1(rcbrt) __HIPMEM_OCML1(rsqrt) __HIPMEM_OCML1(sin) __HIPMEM_OCML1(sinh)
__HIPMEM_OCML1(sinpi) __HIPMEM_OCML1(tan) __HIPMEM_OCML1(tanh) __HIPMEM_OCML1(tanpi) __HIPMEM_OCML1(tgamma)
__HIPMEM_OCML1(y0) __HIPMEM_OCML1(y1) __HIPMEM_OCML1(round)
__HIPMEM_OCML2(atan2) __HIPMEM_OCML2(fdim) __HIPMEM_OCML2(fmod) __HIPMEM_OCML2(hypot) __HIPMEM_OCML2(nextafter)
__HIPMEM_OCML2(pow) __HIPMEM_OCML2(remainder) __HIPMEM_OCML2(rhypot)
__HIPMEM_OCML_N(ldexp) __HIPMEM_OCML_N(pown) __HIPMEM_OCML_N(rootn) __HIPMEM_OCML_N(scalbn)

extern "C" __device__ __attribute__((const)) int __ocml_ilogb_f32(float);
extern "C" __device__ __attribute__((const)) int __ocml_ilogb_f64(double);
extern "C" __device__ __attribute__((const)) float __ocml_len3_f32(float, float, float);
extern "C" __device__ __attribute__((const)) double __ocml_len3_f64(double, double, double);
extern "C" __device__ __attribute__((const)) float __ocml_len4_f32(float, float, float, float);
extern "C" __device__ __attribute__((const)) double __ocml_len4_f64(double, double, double, double);
extern "C" __device__ __attribute__((const)) float __ocml_rlen3_f32(float, float, float);
extern "C" __device__ __attribute__((const)) double __ocml_rlen3_f64(double, double, double);
extern "C" __device__ __attribute__((const)) float __ocml_rlen4_f32(float, float, float, float);
extern "C" __device__ __attribute__((const)) double __ocml_rlen4_f64(double, double, double, double);
extern "C" __device__ float __ocml_frexp_f32(float, __HIPMEM_PRIVATE int*);
extern "C" __device__ double __ocml_frexp_f64(double, __HIPMEM_PRIVATE int*);
extern "C" __device__ float __ocml_modf_f32(float, __HIPMEM_PRIVATE float*);
extern "C" __device__ double __ocml_modf_f64(double, __HIPMEM_PRIVATE double*);
extern "C" __device__ float __ocml_remquo_f32(float, float, __HIPMEM_PRIVATE int*);
extern "C" __device__ double __ocml_remquo_f64(double, double, __HIPMEM_PRIVATE int*);
extern "C" __device__ float __ocml_sincos_f32(float, __HIPMEM_PRIVATE float*);
extern "C" __device__ double __ocml_sincos_f64(double, __HIPMEM_PRIVATE double*);
extern "C" __device__ float __ocml_sincospi_f32(float, __HIPMEM_PRIVATE float*);
extern "C" __device__ double __ocml_sincospi_f64(double, __HIPMEM_PRIVATE double*);
extern "C" __device__ float __ocml_lgamma_r_f32(float, __HIPMEM_PRIVATE int*);
extern "C" __device__ double __ocml_lgamma_r_f64(double, __HIPMEM_PRIVATE int*);
/* The native (hardware-precision) forms behind the fast intrinsics. */
extern "C" __device__ __attribute__((const)) float __ocml_native_sin_f32(float);
extern "C" __device__ __attribute__((const)) float __ocml_native_cos_f32(float);
extern "C" __device__ __attribute__((const)) float __ocml_native_exp_f32(float);
extern "C" __device__ __attribute__((const)) float __ocml_native_exp2_f32(float);
extern "C" __device__ __attribute__((const)) float __ocml_native_exp10_f32(float);
extern "C" __device__ __attribute__((const)) float __ocml_native_log_f32(float);
extern "C" __device__ __attribute__((const)) float __ocml_native_log2_f32(float);
extern "C" __device__ __attribute__((const)) float __ocml_native_log10_f32(float);

#undef __HIPMEM_OCML1
#undef __HIPMEM_OCML2
#undef __HIPMEM_OCML_N

/* --- The C functions: f-suffixed float and plain double ------------------------------------------------------- */
#define __HIPMEM_OVER_OCML1(fn, ocml)                                          \
  __HIPMEM_MATH float fn##f(float x) { return __ocml_##ocml##_f32(x); }     \
  __HIPMEM_MATH double fn(double x) { return __ocml_##ocml##_f64(x); }
#define __HIPMEM_OVER_OCML2(fn, ocml)                                                    \
  __HIPMEM_MATH float fn##f(float x, float y) { return __ocml_##ocml##_f32(x, y); }   \
  __HIPMEM_MATH double fn(double x, double y) { return __ocml_##ocml##_f64(x, y); }
#define __HIPMEM_OVER_BUILTIN1(fn)                                             \
  __HIPMEM_MATH float fn##f(float x) { return __builtin_##fn##f(x); }       \
  __HIPMEM_MATH double fn(double x) { return __builtin_##fn(x); }
#define __HIPMEM_OVER_BUILTIN2(fn)                                                       \
  __HIPMEM_MATH float fn##f(float x, float y) { return __builtin_##fn##f(x, y); }     \
  __HIPMEM_MATH double fn(double x, double y) { return __builtin_##fn(x, y); }

__HIPMEM_OVER_OCML1(acos, acos) __HIPMEM_OVER_OCML1(acosh, acosh) __HIPMEM_OVER_OCML1(asin, asin)
__HIPMEM_OVER_OCML1(asinh, asinh) __HIPMEM_OVER_OCML1(atan, atan) __HIPMEM_OVER_OCML1(atanh, atanh)
__HIPMEM_OVER_OCML1(cbrt, cbrt) __HIPMEM_OVER_OCML1(cos, cos) __HIPMEM_OVER_OCML1(cosh, cosh)
__HIPMEM_OVER_OCML1(cospi, cospi) __HIPMEM_OVER_OCML1(cyl_bessel_i0, i0) __HIPMEM_OVER_OCML1(cyl_bessel_i1, i1)
__HIPMEM_OVER_OCML1(erf, erf) __HIPMEM_OVER_OCML1(erfc, erfc) __HIPMEM_OVER_OCML1(erfcinv, erfcinv)
__HIPMEM_OVER_OCML1(erfcx, erfcx) __HIPMEM_OVER_OCML1(erfinv, erfinv) __HIPMEM_OVER_OCML1(exp, exp)
__HIPMEM_OVER_OCML1(exp10, exp10) __HIPMEM_OVER_OCML1(exp2, exp2) __HIPMEM_OVER_OCML1(expm1, expm1)
__HIPMEM_OVER_OCML1(j0, j0) __HIPMEM_OVER_OCML1(j1, j1) __HIPMEM_OVER_OCML1(lgamma, lgamma)
__HIPMEM_OVER_OCML1(log, log) __HIPMEM_OVER_OCML1(log10, log10) __HIPMEM_OVER_OCML1(log1p, log1p)
__HIPMEM_OVER_OCML1(log2, log2) __HIPMEM_OVER_OCML1(logb, logb) __HIPMEM_OVER_OCML1(normcdf, ncdf)
__HIPMEM_OVER_OCML1(normcdfinv, ncdfinv) __HIPMEM_OVER_OCML1(rcbrt, rcbrt) __HIPMEM_OVER_OCML1(rsqrt, rsqrt)
__HIPMEM_OVER_OCML1(sin, sin) __HIPMEM_OVER_OCML1(sinh, sinh) __HIPMEM_OVER_OCML1(sinpi, sinpi)
__HIPMEM_OVER_OCML1(tan, tan) __HIPMEM_OVER_OCML1(tanh, tanh) __HIPMEM_OVER_OCML1(tgamma, tgamma)
__HIPMEM_OVER_OCML1(y0, y0) __HIPMEM_OVER_OCML1(y1, y1) __HIPMEM_OVER_OCML1(round, round)
__HIPMEM_OVER_OCML2(atan2, atan2) __HIPMEM_OVER_OCML2(fdim, fdim) __HIPMEM_OVER_OCML2(fmod, fmod)
__HIPMEM_OVER_OCML2(hypot, hypot) __HIPMEM_OVER_OCML2(nextafter, nextafter) __HIPMEM_OVER_OCML2(pow, pow)
__HIPMEM_OVER_OCML2(remainder, remainder) __HIPMEM_OVER_OCML2(rhypot, rhypot)
__HIPMEM_OVER_BUILTIN1(fabs) __HIPMEM_OVER_BUILTIN1(floor) __HIPMEM_OVER_BUILTIN1(ceil)
__HIPMEM_OVER_BUILTIN1(trunc) __HIPMEM_OVER_BUILTIN1(rint) __HIPMEM_OVER_BUILTIN1(nearbyint)
__HIPMEM_OVER_BUILTIN1(sqrt) __HIPMEM_OVER_BUILTIN2(fmin) __HIPMEM_OVER_BUILTIN2(fmax)
__HIPMEM_OVER_BUILTIN2(copysign)

#undef __HIPMEM_OVER_OCML1
#undef __HIPMEM_OVER_OCML2
#undef __HIPMEM_OVER_BUILTIN1
#undef __HIPMEM_OVER_BUILTIN2

__HIPMEM_MATH float fmaf(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
__HIPMEM_MATH double fma(double x, double y, double z) { return __builtin_fma(x, y, z); }
__HIPMEM_MATH float ldexpf(float x, int n) { return __ocml_ldexp_f32(x, n); }
__HIPMEM_MATH double ldexp(double x, int n) { return __ocml_ldexp_f64(x, n); }
__HIPMEM_MATH float scalbnf(float x, int n) { return __ocml_scalbn_f32(x, n); }
__HIPMEM_MATH double scalbn(double x, int n) { return __ocml_scalbn_f64(x, n); }
/* scalbln: an exponent beyond int's range saturates the result anyway (every float is within 2^+-1100). */
__HIPMEM_MATH int __hipmem_clamp_exponent(long n) { return n > 4096 ? 4096 : n < -4096 ? -4096 : static_cast<int>(n); }
__HIPMEM_MATH float scalblnf(float x, long n) { return __ocml_scalbn_f32(x, __hipmem_clamp_exponent(n)); }
__HIPMEM_MATH double scalbln(double x, long n) { return __ocml_scalbn_f64(x, __hipmem_clamp_exponent(n)); }
__HIPMEM_MATH float powif(float x, int n) { return __ocml_pown_f32(x, n); }
__HIPMEM_MATH double powi(double x, int n) { return __ocml_pown_f64(x, n); }
__HIPMEM_MATH int ilogbf(float x) { return __ocml_ilogb_f32(x); }
__HIPMEM_MATH int ilogb(double x) { return __ocml_ilogb_f64(x); }
__HIPMEM_MATH float norm3df(float a, float b, float c) { return __ocml_len3_f32(a, b, c); }
__HIPMEM_MATH double norm3d(double a, double b, double c) { return __ocml_len3_f64(a, b, c); }
__HIPMEM_MATH float norm4df(float a, float b, float c, float d) { return __ocml_len4_f32(a, b, c, d); }
__HIPMEM_MATH double norm4d(double a, double b, double c, double d) { return __ocml_len4_f64(a, b, c, d); }
__HIPMEM_MATH float rnorm3df(float a, float b, float c) { return __ocml_rlen3_f32(a, b, c); }
__HIPMEM_MATH double rnorm3d(double a, double b, double c) { return __ocml_rlen3_f64(a, b, c); }
__HIPMEM_MATH float rnorm4df(float a, float b, float c, float d) { return __ocml_rlen4_f32(a, b, c, d); }
__HIPMEM_MATH double rnorm4d(double a, double b, double c, double d) { return __ocml_rlen4_f64(a, b, c, d); }

/* Euclidean norm of n elements: scaled by the largest magnitude, so neither overflows nor underflows early. */
template <typename T>
__HIPMEM_MATH T __hipmem_norm(int n, const T* a) {
  T largest = 0;
  for (int i = 0; i < n; ++i) largest = fmax(largest, fabs(a[i]));
  if (largest == 0 || __builtin_isinf(largest)) return largest;
  T sum = 0;
  for (int i = 0; i < n; ++i) {
    const T scaled = a[i] / largest;
    sum = fma(scaled, scaled, sum);
  }
  return largest * sqrt(sum);
}
__HIPMEM_MATH float normf(int n, const float* a) { return __hipmem_norm<float>(n, a); }
__HIPMEM_MATH double norm(int n, const double* a) { return __hipmem_norm<double>(n, a); }
__HIPMEM_MATH float rnormf(int n, const float* a) { return 1.0f / __hipmem_norm<float>(n, a); }
__HIPMEM_MATH double rnorm(int n, const double* a) { return 1.0 / __hipmem_norm<double>(n, a); }

/* Out-parameter functions: ocml writes a private (scratch) variable, copied to wherever the caller's pointer points. */
#define __HIPMEM_OUT1(fn, T, Out, ocml)                                 \
  __HIPMEM_MATH T fn(T x, Out* out) {                                   \
    Out value;                                                          \
    const T r = __ocml_##ocml(x, (__HIPMEM_PRIVATE Out*)&value);        \
    *out = value;                                                       \
    return r;                                                           \
  }
__HIPMEM_OUT1(frexpf, float, int, frexp_f32)
__HIPMEM_OUT1(frexp, double, int, frexp_f64)
__HIPMEM_OUT1(modff, float, float, modf_f32)
__HIPMEM_OUT1(modf, double, double, modf_f64)
#undef __HIPMEM_OUT1
__HIPMEM_MATH float remquof(float x, float y, int* quo) {
  int q;
  const float r = __ocml_remquo_f32(x, y, (__HIPMEM_PRIVATE int*)&q);
  *quo = q;
  return r;
}
__HIPMEM_MATH double remquo(double x, double y, int* quo) {
  int q;
  const double r = __ocml_remquo_f64(x, y, (__HIPMEM_PRIVATE int*)&q);
  *quo = q;
  return r;
}
/* sin and cos at once: ocml returns the sine and writes the cosine. */
#define __HIPMEM_SINCOS(fn, T, ocml)                                    \
  __HIPMEM_MATH void fn(T x, T* s, T* c) {                              \
    T cosine;                                                           \
    *s = __ocml_##ocml(x, (__HIPMEM_PRIVATE T*)&cosine);                \
    *c = cosine;                                                        \
  }
__HIPMEM_SINCOS(sincosf, float, sincos_f32)
__HIPMEM_SINCOS(sincos, double, sincos_f64)
__HIPMEM_SINCOS(sincospif, float, sincospi_f32)
__HIPMEM_SINCOS(sincospi, double, sincospi_f64)
#undef __HIPMEM_SINCOS

/* Rounding to integers: the rounded value converted (C leaves out-of-range results unspecified). */
__HIPMEM_MATH long lroundf(float x) { return static_cast<long>(__ocml_round_f32(x)); }
__HIPMEM_MATH long lround(double x) { return static_cast<long>(__ocml_round_f64(x)); }
__HIPMEM_MATH long long llroundf(float x) { return static_cast<long long>(__ocml_round_f32(x)); }
__HIPMEM_MATH long long llround(double x) { return static_cast<long long>(__ocml_round_f64(x)); }
__HIPMEM_MATH long lrintf(float x) { return static_cast<long>(__builtin_rintf(x)); }
__HIPMEM_MATH long lrint(double x) { return static_cast<long>(__builtin_rint(x)); }
__HIPMEM_MATH long long llrintf(float x) { return static_cast<long long>(__builtin_rintf(x)); }
__HIPMEM_MATH long long llrint(double x) { return static_cast<long long>(__builtin_rint(x)); }

/* nan(tag): a quiet NaN whose payload is the tag read as strtoull would (0x hex, leading-0 octal, else decimal);
 * a tag that is not a number gives payload 0. */
__HIPMEM_MATH uint64_t __hipmem_nan_payload(const char* tag) {
  if (tag == nullptr) return 0;
  unsigned base = 10;
  if (tag[0] == '0') {
    base = (tag[1] == 'x' || tag[1] == 'X') ? 16 : 8;
    tag += base == 16 ? 2 : 1;
  }
  uint64_t value = 0;
  for (; *tag != '\0'; ++tag) {
    const char c = *tag;
    unsigned digit;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
    else return 0;
    if (digit >= base) return 0;
    value = value * base + digit;
  }
  return value;
}
__HIPMEM_MATH float nanf(const char* tag) {
  return __builtin_bit_cast(float, static_cast<uint32_t>(0x7fc00000u | (__hipmem_nan_payload(tag) & 0x3fffffu)));
}
__HIPMEM_MATH double nan(const char* tag) {
  return __builtin_bit_cast(double, 0x7ff8000000000000ull | (__hipmem_nan_payload(tag) & 0x7ffffffffffffull));
}

/* Classification, as bool-returning device overloads (libstdc++'s std:: forms are constexpr builtins already). */
__HIPMEM_MATH bool isnan(float x) { return __builtin_isnan(x); }
__HIPMEM_MATH bool isnan(double x) { return __builtin_isnan(x); }
__HIPMEM_MATH bool isinf(float x) { return __builtin_isinf(x); }
__HIPMEM_MATH bool isinf(double x) { return __builtin_isinf(x); }
__HIPMEM_MATH bool isfinite(float x) { return __builtin_isfinite(x); }
__HIPMEM_MATH bool isfinite(double x) { return __builtin_isfinite(x); }
__HIPMEM_MATH bool signbit(float x) { return __builtin_signbit(x); }
__HIPMEM_MATH bool signbit(double x) { return __builtin_signbit(x); }
/* CUDA's int-returning spellings. */
__HIPMEM_MATH int __isnanf(float x) { return __builtin_isnan(x); }
__HIPMEM_MATH int __isnan(double x) { return __builtin_isnan(x); }
__HIPMEM_MATH int __isinff(float x) { return __builtin_isinf(x); }
__HIPMEM_MATH int __isinf(double x) { return __builtin_isinf(x); }
__HIPMEM_MATH int __finitef(float x) { return __builtin_isfinite(x); }
__HIPMEM_MATH int __finite(double x) { return __builtin_isfinite(x); }
__HIPMEM_MATH int __signbitf(float x) { return __builtin_signbit(x); }
__HIPMEM_MATH int __signbit(double x) { return __builtin_signbit(x); }

/* --- C++ float overloads of the <cmath> names, and namespace std ----------------------------------------------- */
#define __HIPMEM_FLOAT1(fn) \
  __HIPMEM_MATH float fn(float x) { return fn##f(x); }
#define __HIPMEM_FLOAT2(fn) \
  __HIPMEM_MATH float fn(float x, float y) { return fn##f(x, y); }
__HIPMEM_FLOAT1(acos) __HIPMEM_FLOAT1(acosh) __HIPMEM_FLOAT1(asin) __HIPMEM_FLOAT1(asinh) __HIPMEM_FLOAT1(atan)
__HIPMEM_FLOAT1(atanh) __HIPMEM_FLOAT1(cbrt) __HIPMEM_FLOAT1(ceil) __HIPMEM_FLOAT1(cos) __HIPMEM_FLOAT1(cosh)
__HIPMEM_FLOAT1(erf) __HIPMEM_FLOAT1(erfc) __HIPMEM_FLOAT1(exp) __HIPMEM_FLOAT1(exp2) __HIPMEM_FLOAT1(expm1)
__HIPMEM_FLOAT1(fabs) __HIPMEM_FLOAT1(floor) __HIPMEM_FLOAT1(lgamma) __HIPMEM_FLOAT1(log) __HIPMEM_FLOAT1(log10)
__HIPMEM_FLOAT1(log1p) __HIPMEM_FLOAT1(log2) __HIPMEM_FLOAT1(logb) __HIPMEM_FLOAT1(nearbyint)
__HIPMEM_FLOAT1(rint) __HIPMEM_FLOAT1(round) __HIPMEM_FLOAT1(sin) __HIPMEM_FLOAT1(sinh) __HIPMEM_FLOAT1(sqrt)
__HIPMEM_FLOAT1(tan) __HIPMEM_FLOAT1(tanh) __HIPMEM_FLOAT1(tgamma) __HIPMEM_FLOAT1(trunc)
__HIPMEM_FLOAT2(atan2) __HIPMEM_FLOAT2(copysign) __HIPMEM_FLOAT2(fdim) __HIPMEM_FLOAT2(fmax) __HIPMEM_FLOAT2(fmin)
__HIPMEM_FLOAT2(fmod) __HIPMEM_FLOAT2(hypot) __HIPMEM_FLOAT2(nextafter) __HIPMEM_FLOAT2(pow)
__HIPMEM_FLOAT2(remainder)
#undef __HIPMEM_FLOAT1
#undef __HIPMEM_FLOAT2
__HIPMEM_MATH float fma(float x, float y, float z) { return fmaf(x, y, z); }
__HIPMEM_MATH float ldexp(float x, int n) { return ldexpf(x, n); }
__HIPMEM_MATH float scalbn(float x, int n) { return scalbnf(x, n); }
__HIPMEM_MATH float scalbln(float x, long n) { return scalblnf(x, n); }
__HIPMEM_MATH float frexp(float x, int* e) { return frexpf(x, e); }
__HIPMEM_MATH float modf(float x, float* integral) { return modff(x, integral); }
__HIPMEM_MATH float remquo(float x, float y, int* quo) { return remquof(x, y, quo); }
__HIPMEM_MATH int ilogb(float x) { return ilogbf(x); }
__HIPMEM_MATH long lround(float x) { return lroundf(x); }
__HIPMEM_MATH long long llround(float x) { return llroundf(x); }
__HIPMEM_MATH long lrint(float x) { return lrintf(x); }
__HIPMEM_MATH long long llrint(float x) { return llrintf(x); }
__HIPMEM_MATH float abs(float x) { return __builtin_fabsf(x); }
__HIPMEM_MATH double abs(double x) { return __builtin_fabs(x); }
/* pow with an int exponent, as <cmath>'s C++98 overloads had it. */
__HIPMEM_MATH float pow(float x, int n) { return __ocml_pown_f32(x, n); }
__HIPMEM_MATH double pow(double x, int n) { return __ocml_pown_f64(x, n); }

namespace std {
using ::abs;
using ::acos; using ::acosh; using ::asin; using ::asinh; using ::atan; using ::atan2; using ::atanh; using ::cbrt;
using ::ceil; using ::copysign; using ::cos; using ::cosh; using ::erf; using ::erfc; using ::exp; using ::exp2;
using ::expm1; using ::fabs; using ::fdim; using ::floor; using ::fma; using ::fmax; using ::fmin; using ::fmod;
using ::frexp; using ::hypot; using ::ilogb; using ::ldexp; using ::lgamma; using ::llrint; using ::llround;
using ::log; using ::log10; using ::log1p; using ::log2; using ::logb; using ::lrint; using ::lround; using ::modf;
using ::nan; using ::nanf; using ::nearbyint; using ::nextafter; using ::pow; using ::remainder; using ::remquo;
using ::rint; using ::round; using ::scalbln; using ::scalbn; using ::signbit; using ::sin; using ::sinh;
using ::sqrt; using ::tan; using ::tanh; using ::tgamma; using ::trunc; using ::isfinite;
/* libstdc++'s std::isnan/isinf are its own (its ::isnan is glibc's), so only ours for the others. */
using ::acosf; using ::acoshf; using ::asinf; using ::asinhf; using ::atan2f; using ::atanf; using ::atanhf;
using ::cbrtf; using ::ceilf; using ::copysignf; using ::cosf; using ::coshf; using ::erfcf; using ::erff;
using ::exp2f; using ::expf; using ::expm1f; using ::fabsf; using ::fdimf; using ::floorf; using ::fmaf;
using ::fmaxf; using ::fminf; using ::fmodf; using ::frexpf; using ::hypotf; using ::ilogbf; using ::ldexpf;
using ::lgammaf; using ::llrintf; using ::llroundf; using ::log10f; using ::log1pf; using ::log2f; using ::logbf;
using ::logf; using ::lrintf; using ::lroundf; using ::modff; using ::nearbyintf; using ::nextafterf; using ::powf;
using ::remainderf; using ::remquof; using ::rintf; using ::roundf; using ::scalblnf; using ::scalbnf; using ::sinf;
using ::sinhf; using ::sqrtf; using ::tanf; using ::tanhf; using ::tgammaf; using ::truncf;
}  // namespace std

#include <hip/amd_detail/amd_math_intrinsics.h>

#undef __HIPMEM_PRIVATE

#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_MATH_FUNCTIONS_H */
