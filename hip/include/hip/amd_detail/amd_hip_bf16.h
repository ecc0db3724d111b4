/* bfloat16 for HIP, written for hipmem: upstream's __hip_bfloat16 / __hip_bfloat162 interface (clr hipamd's
 * amd_hip_bf16.h names and behaviour), for HIP-Clang's device and host sides and for host compilers.
 *
 * A __hip_bfloat16 is the top 16 bits of a float. The GFX9 targets have no bfloat16 arithmetic, so, as upstream
 * computes through float, every operation here takes the exact wider value and rounds its result once, to
 * nearest-even unless the name asks for another direction (amd_hip_narrow_float.h), identically on host and device.
 * The math functions are float's (ocml's, on the device) rounded to bfloat16; they and the shuffles are
 * device-only, as upstream's are.
 */
#ifndef HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_BF16_H
#define HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_BF16_H

#include <hip/amd_detail/host_defines.h>
#include <hip/hip_vector_types.h>

/* The raw patterns, as aggregates. */
typedef struct __attribute__((aligned(2))) {
  unsigned short x;
} __hip_bfloat16_raw;
typedef struct __attribute__((aligned(4))) {
  unsigned short x;
  unsigned short y;
} __hip_bfloat162_raw;

#if defined(__cplusplus)
#include <hip/amd_detail/amd_hip_narrow_float.h>

namespace __hipmem_narrow {
__host__ __device__ inline unsigned short BFloat16FromDouble(double v, Round mode) {
  return FromDouble<BFloat16>(v, mode);
}
/* A bfloat16 widens to float by its bits alone. */
__host__ __device__ inline float BFloat16ToFloat(unsigned short bits) {
  return __builtin_bit_cast(float, static_cast<unsigned int>(bits) << 16);
}
}  // namespace __hipmem_narrow

struct __attribute__((aligned(2))) __hip_bfloat16 {
 protected:
  unsigned short __x;

 public:
  __hip_bfloat16() = default;
  __host__ __device__ constexpr __hip_bfloat16(const __hip_bfloat16_raw& r) : __x(r.x) {}
  __host__ __device__ operator __hip_bfloat16_raw() const { return __hip_bfloat16_raw{__x}; }
  __host__ __device__ __hip_bfloat16& operator=(const __hip_bfloat16_raw& r) {
    __x = r.x;
    return *this;
  }
  /* From the arithmetic types, rounded to nearest-even once (float and the integers up to 2^53 are exact in double;
   * larger 64-bit integers are rounded to double first). */
  __host__ __device__ __hip_bfloat16(double d)
      : __x(__hipmem_narrow::BFloat16FromDouble(d, __hipmem_narrow::Round::kNearestEven)) {}
  __host__ __device__ __hip_bfloat16(float f) : __hip_bfloat16(static_cast<double>(f)) {}
  __host__ __device__ __hip_bfloat16(int i) : __hip_bfloat16(static_cast<double>(i)) {}
  __host__ __device__ __hip_bfloat16(unsigned int i) : __hip_bfloat16(static_cast<double>(i)) {}
  __host__ __device__ __hip_bfloat16(short i) : __hip_bfloat16(static_cast<double>(i)) {}
  __host__ __device__ __hip_bfloat16(unsigned short i) : __hip_bfloat16(static_cast<double>(i)) {}
  __host__ __device__ operator float() const { return __hipmem_narrow::BFloat16ToFloat(__x); }
  __host__ __device__ __hip_bfloat16& operator=(float f) { return *this = __hip_bfloat16(f); }
  __host__ __device__ __hip_bfloat16& operator=(double d) { return *this = __hip_bfloat16(d); }
};

/* A pair, x the low 16 bits. */
struct __attribute__((aligned(4))) __hip_bfloat162 {
  __hip_bfloat16 x;
  __hip_bfloat16 y;

  __hip_bfloat162() = default;
  __host__ __device__ constexpr __hip_bfloat162(const __hip_bfloat16& a, const __hip_bfloat16& b) : x(a), y(b) {}
  __host__ __device__ constexpr __hip_bfloat162(const __hip_bfloat162_raw& r)
      : x(__hip_bfloat16_raw{r.x}), y(__hip_bfloat16_raw{r.y}) {}
  __host__ __device__ operator __hip_bfloat162_raw() const {
    return __hip_bfloat162_raw{static_cast<__hip_bfloat16_raw>(x).x, static_cast<__hip_bfloat16_raw>(y).x};
  }
  __host__ __device__ operator float2() const { return float2(static_cast<float>(x), static_cast<float>(y)); }
  __host__ __device__ __hip_bfloat162& operator=(const __hip_bfloat162_raw& r) { return *this = __hip_bfloat162(r); }
};

static_assert(sizeof(__hip_bfloat16) == 2 && sizeof(__hip_bfloat162) == 4, "bfloat16 types are their bit patterns");

namespace __hipmem_narrow {
template <>
inline constexpr unsigned short kOne<__hip_bfloat16> = 0x3f80;
template <>
inline constexpr unsigned short kInfinity<__hip_bfloat16> = 0x7f80;

__host__ __device__ inline unsigned short Bits(__hip_bfloat16 h) { return static_cast<__hip_bfloat16_raw>(h).x; }
template <>
__host__ __device__ inline __hip_bfloat16 FromBits<__hip_bfloat16>(unsigned short bits) {
  return __hip_bfloat16(__hip_bfloat16_raw{bits});
}
__host__ __device__ inline float ToFloat(__hip_bfloat16 h) { return BFloat16ToFloat(Bits(h)); }
__host__ __device__ inline double Wide(__hip_bfloat16 h) { return ToFloat(h); }
__host__ __device__ inline __hip_bfloat16 BFloat16Rounded(double v, Round mode) {
  return FromBits<__hip_bfloat16>(BFloat16FromDouble(v, mode));
}
__host__ __device__ inline __hip_bfloat16 BFloat16Narrow(double v) { return BFloat16Rounded(v, Round::kNearestEven); }
__host__ __device__ inline __hip_bfloat16 Add(__hip_bfloat16 a, __hip_bfloat16 b) { return BFloat16Narrow(Wide(a) + Wide(b)); }
__host__ __device__ inline __hip_bfloat16 Sub(__hip_bfloat16 a, __hip_bfloat16 b) { return BFloat16Narrow(Wide(a) - Wide(b)); }
__host__ __device__ inline __hip_bfloat16 Mul(__hip_bfloat16 a, __hip_bfloat16 b) { return BFloat16Narrow(Wide(a) * Wide(b)); }
__host__ __device__ inline __hip_bfloat16 Div(__hip_bfloat16 a, __hip_bfloat16 b) { return BFloat16Narrow(Wide(a) / Wide(b)); }
__host__ __device__ inline __hip_bfloat16 Fma(__hip_bfloat16 a, __hip_bfloat16 b, __hip_bfloat16 c) {
  return BFloat16Narrow(FmaRoundToOdd(Wide(a), Wide(b), Wide(c)));
}
}  // namespace __hipmem_narrow

/* --- Conversions ------------------------------------------------------------------------------------------------ */
__host__ __device__ inline float __bfloat162float(__hip_bfloat16 a) { return __hipmem_narrow::ToFloat(a); }
__host__ __device__ inline __hip_bfloat16 __float2bfloat16(float f) { return __hip_bfloat16(f); }
__host__ __device__ inline __hip_bfloat16 __float2bfloat16_rn(float f) { return __hip_bfloat16(f); }
__host__ __device__ inline __hip_bfloat16 __float2bfloat16_rz(float f) {
  return __hipmem_narrow::BFloat16Rounded(f, __hipmem_narrow::Round::kTowardZero);
}
__host__ __device__ inline __hip_bfloat16 __float2bfloat16_rd(float f) {
  return __hipmem_narrow::BFloat16Rounded(f, __hipmem_narrow::Round::kDown);
}
__host__ __device__ inline __hip_bfloat16 __float2bfloat16_ru(float f) {
  return __hipmem_narrow::BFloat16Rounded(f, __hipmem_narrow::Round::kUp);
}
__host__ __device__ inline __hip_bfloat16 __double2bfloat16(double d) { return __hip_bfloat16(d); }
__host__ __device__ inline __hip_bfloat16 __int2bfloat16_rn(int i) { return __hip_bfloat16(i); }
__host__ __device__ inline __hip_bfloat162 __float2bfloat162_rn(float f) {
  return __hip_bfloat162(__float2bfloat16(f), __float2bfloat16(f));
}
__host__ __device__ inline __hip_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __hip_bfloat162(__float2bfloat16(a), __float2bfloat16(b));
}
__host__ __device__ inline __hip_bfloat162 __float22bfloat162_rn(float2 v) { return __floats2bfloat162_rn(v.x, v.y); }
__host__ __device__ inline float2 __bfloat1622float2(__hip_bfloat162 a) { return a; }
__host__ __device__ inline __hip_bfloat162 __bfloat162bfloat162(__hip_bfloat16 a) { return __hip_bfloat162(a, a); }
__host__ __device__ inline __hip_bfloat162 __halves2bfloat162(__hip_bfloat16 a, __hip_bfloat16 b) {
  return __hip_bfloat162(a, b);
}
__host__ __device__ inline __hip_bfloat16 __low2bfloat16(__hip_bfloat162 a) { return a.x; }
__host__ __device__ inline __hip_bfloat16 __high2bfloat16(__hip_bfloat162 a) { return a.y; }
__host__ __device__ inline __hip_bfloat162 __low2bfloat162(__hip_bfloat162 a) { return __hip_bfloat162(a.x, a.x); }
__host__ __device__ inline __hip_bfloat162 __high2bfloat162(__hip_bfloat162 a) { return __hip_bfloat162(a.y, a.y); }
__host__ __device__ inline __hip_bfloat162 __lows2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __hip_bfloat162(a.x, b.x);
}
__host__ __device__ inline __hip_bfloat162 __highs2bfloat162(__hip_bfloat162 a, __hip_bfloat162 b) {
  return __hip_bfloat162(a.y, b.y);
}
__host__ __device__ inline short __bfloat16_as_short(__hip_bfloat16 h) {
  return static_cast<short>(__hipmem_narrow::Bits(h));
}
__host__ __device__ inline unsigned short __bfloat16_as_ushort(__hip_bfloat16 h) { return __hipmem_narrow::Bits(h); }
__host__ __device__ inline __hip_bfloat16 __short_as_bfloat16(short i) {
  return __hipmem_narrow::FromBits<__hip_bfloat16>(static_cast<unsigned short>(i));
}
__host__ __device__ inline __hip_bfloat16 __ushort_as_bfloat16(unsigned short i) {
  return __hipmem_narrow::FromBits<__hip_bfloat16>(i);
}

/* --- Arithmetic, comparisons, pairs, operators (shared with __half) -------------------------------------------- */
__HIPMEM_NARROW_FLOAT_API(__hip_bfloat16, __hip_bfloat162)

/* --- Math and shuffles: device code ----------------------------------------------------------------------------- */
#if defined(__clang__) && defined(__HIP__)
#include <hip/amd_detail/amd_math_functions.h>
#include <hip/amd_detail/amd_warp_functions.h>

/* The float function of the exact value, rounded to nearest-even. */
#define __HIPMEM_BF16_MATH(name, pair, fn)                                                                          \
  __device__ inline __hip_bfloat16 name(__hip_bfloat16 h) { return __hip_bfloat16(fn(__bfloat162float(h))); }      \
  __device__ inline __hip_bfloat162 pair(__hip_bfloat162 h) { return __hip_bfloat162(name(h.x), name(h.y)); }
__HIPMEM_BF16_MATH(hsqrt, h2sqrt, sqrtf)
__HIPMEM_BF16_MATH(hrsqrt, h2rsqrt, rsqrtf)
__HIPMEM_BF16_MATH(hexp, h2exp, expf)
__HIPMEM_BF16_MATH(hexp2, h2exp2, exp2f)
__HIPMEM_BF16_MATH(hexp10, h2exp10, exp10f)
__HIPMEM_BF16_MATH(hlog, h2log, logf)
__HIPMEM_BF16_MATH(hlog2, h2log2, log2f)
__HIPMEM_BF16_MATH(hlog10, h2log10, log10f)
__HIPMEM_BF16_MATH(hsin, h2sin, sinf)
__HIPMEM_BF16_MATH(hcos, h2cos, cosf)
__HIPMEM_BF16_MATH(hceil, h2ceil, ceilf)
__HIPMEM_BF16_MATH(hfloor, h2floor, floorf)
__HIPMEM_BF16_MATH(htrunc, h2trunc, truncf)
__HIPMEM_BF16_MATH(hrint, h2rint, rintf)
#undef __HIPMEM_BF16_MATH
/* 1/x, correctly rounded. */
__device__ inline __hip_bfloat16 hrcp(__hip_bfloat16 h) { return __hdiv(__hip_bfloat16(1.0f), h); }
__device__ inline __hip_bfloat162 h2rcp(__hip_bfloat162 h) { return __hip_bfloat162(hrcp(h.x), hrcp(h.y)); }

/* Shuffles, as of the 32-bit int holding the pattern. */
__device__ inline __hip_bfloat16 __shfl(__hip_bfloat16 v, int src_lane, int width = warpSize) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(__shfl(static_cast<int>(__bfloat16_as_ushort(v)), src_lane, width)));
}
__device__ inline __hip_bfloat16 __shfl_up(__hip_bfloat16 v, unsigned int delta, int width = warpSize) {
  return __ushort_as_bfloat16(static_cast<unsigned short>(__shfl_up(static_cast<int>(__bfloat16_as_ushort(v)), delta, width)));
}
__device__ inline __hip_bfloat16 __shfl_down(__hip_bfloat16 v, unsigned int delta, int width = warpSize) {
  return __ushort_as_bfloat16(
      static_cast<unsigned short>(__shfl_down(static_cast<int>(__bfloat16_as_ushort(v)), delta, width)));
}
__device__ inline __hip_bfloat16 __shfl_xor(__hip_bfloat16 v, int lane_mask, int width = warpSize) {
  return __ushort_as_bfloat16(
      static_cast<unsigned short>(__shfl_xor(static_cast<int>(__bfloat16_as_ushort(v)), lane_mask, width)));
}
__device__ inline __hip_bfloat162 __shfl(__hip_bfloat162 v, int src_lane, int width = warpSize) {
  return __builtin_bit_cast(__hip_bfloat162, __shfl(__builtin_bit_cast(int, v), src_lane, width));
}
__device__ inline __hip_bfloat162 __shfl_up(__hip_bfloat162 v, unsigned int delta, int width = warpSize) {
  return __builtin_bit_cast(__hip_bfloat162, __shfl_up(__builtin_bit_cast(int, v), delta, width));
}
__device__ inline __hip_bfloat162 __shfl_down(__hip_bfloat162 v, unsigned int delta, int width = warpSize) {
  return __builtin_bit_cast(__hip_bfloat162, __shfl_down(__builtin_bit_cast(int, v), delta, width));
}
__device__ inline __hip_bfloat162 __shfl_xor(__hip_bfloat162 v, int lane_mask, int width = warpSize) {
  return __builtin_bit_cast(__hip_bfloat162, __shfl_xor(__builtin_bit_cast(int, v), lane_mask, width));
}
#endif /* HIP-Clang */

#endif /* __cplusplus */
#endif /* HIP_INCLUDE_HIP_AMD_DETAIL_AMD_HIP_BF16_H */
