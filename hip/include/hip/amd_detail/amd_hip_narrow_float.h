/* hipmem's shared core of <hip/hip_fp16.h> and <hip/hip_bf16.h>: IEEE binary16 and bfloat16 values as 16-bit
 * patterns, converted to and from double in software with each of the four rounding directions.
 *
 * Why software: a host compiler may have no 16-bit float type at all (g++ 12 has _Float16 only in C, Debian's clang
 * 14 has none on x86-64, neither has __bf16), yet upstream's headers let host code convert and compute with __half
 * and __hip_bfloat16; and the GFX9 targets have no instruction converting with a directed rounding (ocml 5.2.3 ships
 * no __ocml_cvtrt*_f16_f32) nor any bfloat16 arithmetic. The device side of <hip/hip_fp16.h> uses the hardware's
 * f16 instructions where one gives the same result (round to nearest, the f16 ALU); everything else comes from here,
 * identically on host and device.
 *
 * Both formats go through double: every binary16 and bfloat16 value (and every float) is exact in double, and a
 * double result of +, -, *, / or sqrt of two such values rounds to the narrow format as the exact result would
 * (double's 53 bits exceed twice the narrow significand plus two); fma rounds to odd in double first, so the final
 * rounding to nearest cannot go the wrong way on a tie.
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_NARROW_FLOAT_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_NARROW_FLOAT_H

#include <hip/amd_detail/host_defines.h>

#if defined(__cplusplus)

namespace __hipmem_narrow {

/* The rounding directions, as the _rn/_rz/_rd/_ru suffixes name them. */
enum class Round { kNearestEven, kTowardZero, kDown, kUp };

/* A 16-bit format: 1 sign bit, 15 - kMantissa exponent bits, kMantissa stored significand bits. */
template <int kMantissaBits, int kBias>
struct Format {
  static constexpr int kMantissa = kMantissaBits;
  static constexpr int kEmax = kBias;                                 // the largest finite exponent
  static constexpr int kExponentMax = (1 << (15 - kMantissa)) - 1;  // the all-ones exponent field
  static constexpr int kEmin = 1 - kBias;                             // the smallest normal exponent
  static constexpr unsigned short kInfinity = static_cast<unsigned short>(kExponentMax << kMantissa);
  static constexpr unsigned short kMaxFinite = static_cast<unsigned short>(kInfinity - 1);
};
using Binary16 = Format<10, 15>;
using BFloat16 = Format<7, 127>;

__host__ __device__ inline unsigned long long DoubleBits(double v) {
  return __builtin_bit_cast(unsigned long long, v);
}
__host__ __device__ inline double BitsDouble(unsigned long long b) { return __builtin_bit_cast(double, b); }
/* 2^e for a normal double exponent. */
__host__ __device__ inline double Pow2(int e) {
  return BitsDouble(static_cast<unsigned long long>(e + 1023) << 52);
}

/* The 16-bit pattern of `v` rounded in direction `mode`. NaN stays NaN (quiet, sign and top payload bits kept);
 * a finite value past the largest finite one becomes infinity or the largest finite value, as the direction says. */
template <typename F>
__host__ __device__ inline unsigned short FromDouble(double v, Round mode) {
  constexpr int kMantissa = F::kMantissa;
  const unsigned long long bits = DoubleBits(v);
  const bool negative = (bits >> 63) != 0;
  const unsigned short sign = negative ? 0x8000 : 0;
  const unsigned long long magnitude = bits & 0x7fffffffffffffffull;
  if (magnitude > 0x7ff0000000000000ull) {
    const unsigned short payload = static_cast<unsigned short>((magnitude >> (52 - kMantissa)) & ((1u << kMantissa) - 1));
    return static_cast<unsigned short>(sign | F::kInfinity | (1u << (kMantissa - 1)) | payload);
  }
  const bool to_infinity = mode == Round::kNearestEven || (mode == Round::kUp && !negative) ||
                           (mode == Round::kDown && negative);
  const unsigned short overflow = static_cast<unsigned short>(sign | (to_infinity ? F::kInfinity : F::kMaxFinite));
  if (magnitude == 0x7ff0000000000000ull) return static_cast<unsigned short>(sign | F::kInfinity);
  int exponent = static_cast<int>(magnitude >> 52) - 1023;  // a double denormal reads -1023: below any kEmin here
  if (exponent > F::kEmax) return overflow;
  if (exponent < F::kEmin) exponent = F::kEmin;
  // The magnitude in units of the result's last place: below 2^(kMantissa+1), so its integer part and fraction are
  // exact in double.
  const double scaled = BitsDouble(magnitude) * Pow2(kMantissa - exponent);
  unsigned int whole = static_cast<unsigned int>(scaled);
  const double fraction = scaled - static_cast<double>(whole);
  bool up = false;
  switch (mode) {
    case Round::kNearestEven: up = fraction > 0.5 || (fraction == 0.5 && (whole & 1u) != 0); break;
    case Round::kTowardZero: break;
    case Round::kDown: up = negative && fraction > 0; break;
    case Round::kUp: up = !negative && fraction > 0; break;
  }
  whole += up ? 1u : 0u;
  // Below the normal range `whole` is the denormal's field (2^kMantissa reads as the smallest normal); above, the
  // exponent field grows with it, so a carry out of the significand moves to the next binade by itself.
  const unsigned int field = (static_cast<unsigned int>(exponent - F::kEmin) << kMantissa) + whole;
  if (field >= F::kInfinity) return overflow;
  return static_cast<unsigned short>(sign | field);
}

/* The exact value of a 16-bit pattern. */
template <typename F>
__host__ __device__ inline double ToDouble(unsigned short h) {
  constexpr int kMantissa = F::kMantissa;
  const bool negative = (h & 0x8000) != 0;
  const int field = (h >> kMantissa) & F::kExponentMax;
  const unsigned int mantissa = h & ((1u << kMantissa) - 1);
  if (field == F::kExponentMax) {
    const unsigned long long sign = negative ? (1ull << 63) : 0;
    return BitsDouble(sign | 0x7ff0000000000000ull | (static_cast<unsigned long long>(mantissa) << (52 - kMantissa)));
  }
  const double v = field == 0 ? static_cast<double>(mantissa) * Pow2(F::kEmin - kMantissa)
                              : static_cast<double>(mantissa | (1u << kMantissa)) *
                                    Pow2(field - F::kEmax - kMantissa);
  return negative ? -v : v;
}

/* a*b + c rounded to odd in double, for a, b and c of a 16-bit format (their product is exact in double): the sum is
 * rounded to nearest, and where that was inexact and landed on an even significand it moves one double ulp toward
 * the exact value. Rounding this to a 16-bit format (far fewer bits) then equals rounding the exact value. */
__host__ __device__ inline double FmaRoundToOdd(double a, double b, double c) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  const double product = a * b;
  const double sum = product + c;
  // The exact rounding error of the sum (Knuth's two-sum).
  const double c_part = sum - product;
  const double error = (product - (sum - c_part)) + (c - c_part);
  const unsigned long long bits = DoubleBits(sum);
  // An infinite or NaN sum (an infinite operand) is already the answer; its two-sum error is meaningless.
  if ((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) return sum;
  if (error == 0 || (bits & 1u) != 0) return sum;
  return BitsDouble((error > 0) == (sum > 0) ? bits + 1 : bits - 1);
}

/* A value to an integer type's range, rounded in direction `mode`, saturating at [lowest, highest] as the
 * __half2int_r* family converts; NaN gives 0. */
template <typename I>
__host__ __device__ inline I RoundToInteger(double v, Round mode, double lowest, double highest) {
  if (v != v) return 0;
  if (v <= lowest) return static_cast<I>(lowest);
  if (v >= highest) return static_cast<I>(highest);
  // From 2^52 up every double is an integer; below, the truncation is exact in long long.
  const bool integral = v >= 4503599627370496.0 || v <= -4503599627370496.0;
  double whole = integral ? v : static_cast<double>(static_cast<long long>(v));
  const double fraction = v - whole;  // exact; v's sign
  const bool odd = !integral && (static_cast<long long>(whole) & 1) != 0;
  switch (mode) {
    case Round::kNearestEven:
      if (fraction > 0.5 || (fraction == 0.5 && odd)) whole += 1;
      if (fraction < -0.5 || (fraction == -0.5 && odd)) whole -= 1;
      break;
    case Round::kTowardZero: break;
    case Round::kDown:
      if (fraction < 0) whole -= 1;
      break;
    case Round::kUp:
      if (fraction > 0) whole += 1;
      break;
  }
  if (whole <= lowest) return static_cast<I>(lowest);
  if (whole >= highest) return static_cast<I>(highest);
  return static_cast<I>(whole);
}

/* Per-type constants the shared interface needs (specialised by each header): the pattern of 1.0 and of +infinity. */
template <typename T>
inline constexpr unsigned short kOne = 0;
template <typename T>
inline constexpr unsigned short kInfinity = 0;
/* A value of type T from its bit pattern (specialised by each header). */
template <typename T>
__host__ __device__ inline T FromBits(unsigned short bits);
/* 1.0 or 0.0, what the lane-wise comparisons (__heq2 ...) give. */
template <typename T>
__host__ __device__ inline T Truth(bool v) {
  return FromBits<T>(v ? kOne<T> : 0);
}

}  // namespace __hipmem_narrow


/* The part of the two headers' interfaces that is the same for __half and __hip_bfloat16 (T, with its pair type T2
 * of members x and y): arithmetic, saturation, comparisons, min/max, classification, the pair forms, operators.
 * Each header first defines, in namespace __hipmem_narrow, the primitives for its type: Bits(T), FromBits(unsigned
 * short), ToFloat(T) (exact), Add/Sub/Mul/Div(T, T) and Fma(T, T, T), each correctly rounded to nearest-even. */
#define __HIPMEM_NARROW_FLOAT_API(T, T2)                                                                             \
  __host__ __device__ inline T __hneg(T a) {                                                                         \
    return __hipmem_narrow::FromBits<T>(static_cast<unsigned short>(__hipmem_narrow::Bits(a) ^ 0x8000u));             \
  }                                                                                                                  \
  __host__ __device__ inline T __habs(T a) {                                                                         \
    return __hipmem_narrow::FromBits<T>(static_cast<unsigned short>(__hipmem_narrow::Bits(a) & 0x7fffu));             \
  }                                                                                                                  \
  __host__ __device__ inline T __hadd(T a, T b) { return __hipmem_narrow::Add(a, b); }                              \
  __host__ __device__ inline T __hsub(T a, T b) { return __hipmem_narrow::Sub(a, b); }                              \
  __host__ __device__ inline T __hmul(T a, T b) { return __hipmem_narrow::Mul(a, b); }                              \
  __host__ __device__ inline T __hdiv(T a, T b) { return __hipmem_narrow::Div(a, b); }                              \
  __host__ __device__ inline T __hfma(T a, T b, T c) { return __hipmem_narrow::Fma(a, b, c); }                      \
  /* _sat: the result clamped to [0, 1], NaN to +0. */                                                               \
  __host__ __device__ inline T __hipmem_saturate(T a) {                                                              \
    const float f = __hipmem_narrow::ToFloat(a);                                                                     \
    return f > 0 ? (f < 1 ? a : __hipmem_narrow::FromBits<T>(__hipmem_narrow::kOne<T>))                             \
                 : __hipmem_narrow::FromBits<T>(0);                                                                  \
  }                                                                                                                  \
  __host__ __device__ inline T __hadd_sat(T a, T b) { return __hipmem_saturate(__hadd(a, b)); }                     \
  __host__ __device__ inline T __hsub_sat(T a, T b) { return __hipmem_saturate(__hsub(a, b)); }                     \
  __host__ __device__ inline T __hmul_sat(T a, T b) { return __hipmem_saturate(__hmul(a, b)); }                     \
  __host__ __device__ inline T __hfma_sat(T a, T b, T c) { return __hipmem_saturate(__hfma(a, b, c)); }             \
  /* Ordered comparisons are false with a NaN operand, the unordered (u) ones true. */                               \
  __host__ __device__ inline bool __heq(T a, T b) { return __hipmem_narrow::ToFloat(a) == __hipmem_narrow::ToFloat(b); } \
  __host__ __device__ inline bool __hne(T a, T b) {                                                                  \
    const float x = __hipmem_narrow::ToFloat(a), y = __hipmem_narrow::ToFloat(b);                                    \
    return x < y || x > y;                                                                                           \
  }                                                                                                                  \
  __host__ __device__ inline bool __hlt(T a, T b) { return __hipmem_narrow::ToFloat(a) < __hipmem_narrow::ToFloat(b); } \
  __host__ __device__ inline bool __hle(T a, T b) { return __hipmem_narrow::ToFloat(a) <= __hipmem_narrow::ToFloat(b); } \
  __host__ __device__ inline bool __hgt(T a, T b) { return __hipmem_narrow::ToFloat(a) > __hipmem_narrow::ToFloat(b); } \
  __host__ __device__ inline bool __hge(T a, T b) { return __hipmem_narrow::ToFloat(a) >= __hipmem_narrow::ToFloat(b); } \
  __host__ __device__ inline bool __hequ(T a, T b) { return !__hne(a, b); }                                          \
  __host__ __device__ inline bool __hneu(T a, T b) { return !__heq(a, b); }                                          \
  __host__ __device__ inline bool __hltu(T a, T b) { return !__hge(a, b); }                                          \
  __host__ __device__ inline bool __hleu(T a, T b) { return !__hgt(a, b); }                                          \
  __host__ __device__ inline bool __hgtu(T a, T b) { return !__hle(a, b); }                                          \
  __host__ __device__ inline bool __hgeu(T a, T b) { return !__hlt(a, b); }                                          \
  __host__ __device__ inline bool __hisnan(T a) { return (__hipmem_narrow::Bits(a) & 0x7fffu) > __hipmem_narrow::kInfinity<T>; } \
  /* -1 for negative infinity, 1 for positive infinity, else 0. */                                                   \
  __host__ __device__ inline int __hisinf(T a) {                                                                     \
    const unsigned short bits = __hipmem_narrow::Bits(a);                                                            \
    return (bits & 0x7fffu) != __hipmem_narrow::kInfinity<T> ? 0 : (bits & 0x8000u) != 0 ? -1 : 1;                   \
  }                                                                                                                  \
  /* fmax/fmin: a NaN operand gives the other; the _nan forms give NaN. */                                           \
  __host__ __device__ inline T __hmax(T a, T b) { return __hisnan(a) ? b : __hisnan(b) ? a : __hlt(a, b) ? b : a; } \
  __host__ __device__ inline T __hmin(T a, T b) { return __hisnan(a) ? b : __hisnan(b) ? a : __hlt(b, a) ? b : a; } \
  __host__ __device__ inline T __hmax_nan(T a, T b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hmax(a, b); }    \
  __host__ __device__ inline T __hmin_nan(T a, T b) { return __hisnan(a) ? a : __hisnan(b) ? b : __hmin(a, b); }    \
  /* Pairs: each lane on its own. */                                                                                 \
  __host__ __device__ inline T2 __hneg2(T2 a) { return T2(__hneg(a.x), __hneg(a.y)); }                              \
  __host__ __device__ inline T2 __habs2(T2 a) { return T2(__habs(a.x), __habs(a.y)); }                              \
  __host__ __device__ inline T2 __hadd2(T2 a, T2 b) { return T2(__hadd(a.x, b.x), __hadd(a.y, b.y)); }              \
  __host__ __device__ inline T2 __hsub2(T2 a, T2 b) { return T2(__hsub(a.x, b.x), __hsub(a.y, b.y)); }              \
  __host__ __device__ inline T2 __hmul2(T2 a, T2 b) { return T2(__hmul(a.x, b.x), __hmul(a.y, b.y)); }              \
  __host__ __device__ inline T2 __h2div(T2 a, T2 b) { return T2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }              \
  __host__ __device__ inline T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); } \
  __host__ __device__ inline T2 __hadd2_sat(T2 a, T2 b) { return T2(__hadd_sat(a.x, b.x), __hadd_sat(a.y, b.y)); }  \
  __host__ __device__ inline T2 __hsub2_sat(T2 a, T2 b) { return T2(__hsub_sat(a.x, b.x), __hsub_sat(a.y, b.y)); }  \
  __host__ __device__ inline T2 __hmul2_sat(T2 a, T2 b) { return T2(__hmul_sat(a.x, b.x), __hmul_sat(a.y, b.y)); }  \
  __host__ __device__ inline T2 __hfma2_sat(T2 a, T2 b, T2 c) {                                                     \
    return T2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));                                                 \
  }                                                                                                                  \
  __host__ __device__ inline T2 __hmax2(T2 a, T2 b) { return T2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }              \
  __host__ __device__ inline T2 __hmin2(T2 a, T2 b) { return T2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }              \
  /* Lane-wise comparisons as 1.0 / 0.0 in each lane; the __hb forms are true when both lanes are. */                 \
  __host__ __device__ inline T2 __hisnan2(T2 a) { return T2(__hipmem_narrow::Truth<T>(__hisnan(a.x)), __hipmem_narrow::Truth<T>(__hisnan(a.y))); } \
  __HIPMEM_NARROW_PAIR_COMPARE(T, T2, eq) __HIPMEM_NARROW_PAIR_COMPARE(T, T2, ne)                                     \
  __HIPMEM_NARROW_PAIR_COMPARE(T, T2, lt) __HIPMEM_NARROW_PAIR_COMPARE(T, T2, le)                                     \
  __HIPMEM_NARROW_PAIR_COMPARE(T, T2, gt) __HIPMEM_NARROW_PAIR_COMPARE(T, T2, ge)                                     \
  __HIPMEM_NARROW_PAIR_COMPARE(T, T2, equ) __HIPMEM_NARROW_PAIR_COMPARE(T, T2, neu)                                   \
  __HIPMEM_NARROW_PAIR_COMPARE(T, T2, ltu) __HIPMEM_NARROW_PAIR_COMPARE(T, T2, leu)                                   \
  __HIPMEM_NARROW_PAIR_COMPARE(T, T2, gtu) __HIPMEM_NARROW_PAIR_COMPARE(T, T2, geu)                                   \
  __host__ __device__ inline float __low2float(T2 a) { return __hipmem_narrow::ToFloat(a.x); }                       \
  __host__ __device__ inline float __high2float(T2 a) { return __hipmem_narrow::ToFloat(a.y); }                      \
  __host__ __device__ inline T2 __lowhigh2highlow(T2 a) { return T2(a.y, a.x); }                                     \
  __HIPMEM_NARROW_OPERATORS(T, T2)

#define __HIPMEM_NARROW_PAIR_COMPARE(T, T2, op)                                                                      \
  __host__ __device__ inline T2 __h##op##2(T2 a, T2 b) {                                                             \
    return T2(__hipmem_narrow::Truth<T>(__h##op(a.x, b.x)), __hipmem_narrow::Truth<T>(__h##op(a.y, b.y)));                                 \
  }                                                                                                                  \
  __host__ __device__ inline bool __hb##op##2(T2 a, T2 b) { return __h##op(a.x, b.x) && __h##op(a.y, b.y); }

/* C++ operators, unless the program asks for none (upstream's __HIP_NO_HALF_OPERATORS__). */
#if defined(__HIP_NO_HALF_OPERATORS__)
#define __HIPMEM_NARROW_OPERATORS(T, T2)
#else
#define __HIPMEM_NARROW_OPERATORS(T, T2)                                                                             \
  __host__ __device__ inline T operator+(T a) { return a; }                                                          \
  __host__ __device__ inline T operator-(T a) { return __hneg(a); }                                                  \
  __host__ __device__ inline T operator+(T a, T b) { return __hadd(a, b); }                                          \
  __host__ __device__ inline T operator-(T a, T b) { return __hsub(a, b); }                                          \
  __host__ __device__ inline T operator*(T a, T b) { return __hmul(a, b); }                                          \
  __host__ __device__ inline T operator/(T a, T b) { return __hdiv(a, b); }                                          \
  __host__ __device__ inline T& operator+=(T& a, T b) { return a = __hadd(a, b); }                                   \
  __host__ __device__ inline T& operator-=(T& a, T b) { return a = __hsub(a, b); }                                   \
  __host__ __device__ inline T& operator*=(T& a, T b) { return a = __hmul(a, b); }                                   \
  __host__ __device__ inline T& operator/=(T& a, T b) { return a = __hdiv(a, b); }                                   \
  __host__ __device__ inline T& operator++(T& a) { return a = __hadd(a, __hipmem_narrow::Truth<T>(true)); }                     \
  __host__ __device__ inline T& operator--(T& a) { return a = __hsub(a, __hipmem_narrow::Truth<T>(true)); }                     \
  __host__ __device__ inline T operator++(T& a, int) { const T old = a; ++a; return old; }                           \
  __host__ __device__ inline T operator--(T& a, int) { const T old = a; --a; return old; }                           \
  __host__ __device__ inline bool operator==(T a, T b) { return __heq(a, b); }                                       \
  __host__ __device__ inline bool operator!=(T a, T b) { return __hneu(a, b); }                                      \
  __host__ __device__ inline bool operator<(T a, T b) { return __hlt(a, b); }                                        \
  __host__ __device__ inline bool operator<=(T a, T b) { return __hle(a, b); }                                       \
  __host__ __device__ inline bool operator>(T a, T b) { return __hgt(a, b); }                                        \
  __host__ __device__ inline bool operator>=(T a, T b) { return __hge(a, b); }                                       \
  __host__ __device__ inline T2 operator+(T2 a) { return a; }                                                        \
  __host__ __device__ inline T2 operator-(T2 a) { return __hneg2(a); }                                               \
  __host__ __device__ inline T2 operator+(T2 a, T2 b) { return __hadd2(a, b); }                                      \
  __host__ __device__ inline T2 operator-(T2 a, T2 b) { return __hsub2(a, b); }                                      \
  __host__ __device__ inline T2 operator*(T2 a, T2 b) { return __hmul2(a, b); }                                      \
  __host__ __device__ inline T2 operator/(T2 a, T2 b) { return __h2div(a, b); }                                      \
  __host__ __device__ inline T2& operator+=(T2& a, T2 b) { return a = __hadd2(a, b); }                               \
  __host__ __device__ inline T2& operator-=(T2& a, T2 b) { return a = __hsub2(a, b); }                               \
  __host__ __device__ inline T2& operator*=(T2& a, T2 b) { return a = __hmul2(a, b); }                               \
  __host__ __device__ inline T2& operator/=(T2& a, T2 b) { return a = __h2div(a, b); }                               \
  __host__ __device__ inline bool operator==(T2 a, T2 b) { return __hbeq2(a, b); }                                   \
  __host__ __device__ inline bool operator!=(T2 a, T2 b) { return __hbneu2(a, b); }                                  \
  __host__ __device__ inline bool operator<(T2 a, T2 b) { return __hblt2(a, b); }                                    \
  __host__ __device__ inline bool operator<=(T2 a, T2 b) { return __hble2(a, b); }                                   \
  __host__ __device__ inline bool operator>(T2 a, T2 b) { return __hbgt2(a, b); }                                    \
  __host__ __device__ inline bool operator>=(T2 a, T2 b) { return __hbge2(a, b); }
#endif

#endif /* __cplusplus */
#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_NARROW_FLOAT_H */
