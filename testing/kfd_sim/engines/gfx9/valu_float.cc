// VALU f32 and f64 arithmetic: add/sub/mul/min/max, the multiply-adds (fused and not), min3/max3/med3, the
// division helpers (div_scale, div_fmas, div_fixup), ldexp/frexp, rounding to integers, and the transcendentals.
// f16 lives in valu_f16.cc, conversions in valu_convert.cc, compares in valu_fcmp.cc; the MODE handling they share
// in valu_fp.h (which also says where results may differ from hardware).
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"
#include "testing/kfd_sim/engines/gfx9/valu_fp.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

// --- f32 lane operations ---
float Add32(const FpMode&, float a, float b) { return a + b; }
float Sub32(const FpMode&, float a, float b) { return a - b; }
float SubRev32(const FpMode&, float a, float b) { return b - a; }
float Mul32(const FpMode&, float a, float b) { return a * b; }
// The legacy multiply: zero times anything (infinity and NaN included) is zero.
float MulLegacy32(const FpMode&, float a, float b) { return a == 0.0f || b == 0.0f ? 0.0f : a * b; }
float Min32(const FpMode& m, float a, float b) { return FMinMax(m.ieee, false, a, b); }
float Max32(const FpMode& m, float a, float b) { return FMinMax(m.ieee, true, a, b); }
float Min3F32(const FpMode& m, float a, float b, float c) {
  return FMinMax(m.ieee, false, FMinMax(m.ieee, false, a, b), c);
}
float Max3F32(const FpMode& m, float a, float b, float c) {
  return FMinMax(m.ieee, true, FMinMax(m.ieee, true, a, b), c);
}
float Med3F32(const FpMode& m, float a, float b, float c) { return FMed3(m.ieee, a, b, c); }
float Fma32(const FpMode&, float a, float b, float c) { return std::fma(a, b, c); }
// v_mad_f32 / v_mac_f32 / v_madmk / v_madak: an unfused multiply-add that never keeps denormals (LLVM selects it
// only when f32 denormals are flushed).
float Mad32(const FpMode&, float a, float b, float c) {
  const float p = Flush32(false, Flush32(false, a) * Flush32(false, b));
  return Flush32(false, p + Flush32(false, c));
}
float MadLegacy32(const FpMode& m, float a, float b, float c) {
  return Flush32(false, Flush32(false, MulLegacy32(m, Flush32(false, a), Flush32(false, b))) + Flush32(false, c));
}
float Ldexp32(float a, int32_t e) { return std::ldexp(a, e < -400 ? -400 : e > 400 ? 400 : e); }

float Fract32(const FpMode&, float a) {
  const float r = a - std::floor(a);
  return std::isnan(r) ? r : std::fmin(r, 0x1.fffffep-1f);
}
float Trunc32(const FpMode&, float a) { return std::trunc(a); }
float Ceil32(const FpMode&, float a) { return std::ceil(a); }
float Floor32(const FpMode&, float a) { return std::floor(a); }
float Rndne32(const FpMode&, float a) { return RoundEven(a); }
// Transcendentals in double, rounded once (within the ISA's 1 ulp).
float Exp32(const FpMode&, float a) { return static_cast<float>(std::exp2(static_cast<double>(a))); }
float Log32(const FpMode&, float a) { return static_cast<float>(std::log2(static_cast<double>(a))); }
float Rcp32(const FpMode&, float a) { return static_cast<float>(1.0 / static_cast<double>(a)); }
float Rsq32(const FpMode&, float a) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(a))); }
float Sqrt32(const FpMode&, float a) { return std::sqrt(a); }
// sin/cos take revolutions: sin(2*pi*x). Whole revolutions are dropped first (exact in double).
double Revolutions(double x) { return x - std::nearbyint(x); }
float Sin32(const FpMode&, float a) {
  if (!std::isfinite(a)) return std::numeric_limits<float>::quiet_NaN();
  return static_cast<float>(std::sin(kTwoPi * Revolutions(a)));
}
float Cos32(const FpMode&, float a) {
  if (!std::isfinite(a)) return std::numeric_limits<float>::quiet_NaN();
  return static_cast<float>(std::cos(kTwoPi * Revolutions(a)));
}
// v_frexp_mant_*: infinity and NaN pass through unchanged (the ISA: "if S0 is INF or NAN then D = S0").
float FrexpMant32(const FpMode&, float a) {
  if (!std::isfinite(a)) return a;
  int e;
  return std::frexp(a, &e);
}

// --- f64 lane operations ---
double Add64(const FpMode&, double a, double b) { return a + b; }
double Mul64(const FpMode&, double a, double b) { return a * b; }
double Min64(const FpMode& m, double a, double b) { return FMinMax(m.ieee, false, a, b); }
double Max64(const FpMode& m, double a, double b) { return FMinMax(m.ieee, true, a, b); }
double Fma64(const FpMode&, double a, double b, double c) { return std::fma(a, b, c); }
double Fract64(const FpMode&, double a) {
  const double r = a - std::floor(a);
  return std::isnan(r) ? r : std::fmin(r, 0x1.fffffffffffffp-1);
}
double Trunc64(const FpMode&, double a) { return std::trunc(a); }
double Ceil64(const FpMode&, double a) { return std::ceil(a); }
double Floor64(const FpMode&, double a) { return std::floor(a); }
double Rndne64(const FpMode&, double a) { return RoundEven(a); }
double Rcp64(const FpMode&, double a) { return 1.0 / a; }
double Rsq64(const FpMode&, double a) { return 1.0 / std::sqrt(a); }
double Sqrt64(const FpMode&, double a) { return std::sqrt(a); }
double FrexpMant64(const FpMode&, double a) {
  if (!std::isfinite(a)) return a;
  int e;
  return std::frexp(a, &e);
}

int32_t FrexpExp(double a) {
  if (!std::isfinite(a) || a == 0.0) return 0;
  int e;
  std::frexp(a, &e);
  return e;
}

// The biased exponent field of a float/double (0 for zero and denormals).
int Exponent32(float v) { return static_cast<int>((F32Bits(v) >> 23) & 0xff); }
int Exponent64(double v) { return static_cast<int>((F64Bits(v) >> 52) & 0x7ff); }

// v_div_fixup: the last step of the division macro. src0 is the quotient, src1 the denominator, src2 the
// numerator; special operands (NaN, zero, infinity) give the IEEE quotient, otherwise the quotient with the
// expected sign.
template <typename T>
T DivFixup(T q, T d, T n) {
  const bool sign = std::signbit(d) != std::signbit(n);
  const T inf = std::numeric_limits<T>::infinity();
  if (std::isnan(n)) return n + n;  // quieted
  if (std::isnan(d)) return d + d;
  if (d == 0 && n == 0) return -std::numeric_limits<T>::quiet_NaN();
  if (std::isinf(d) && std::isinf(n)) return -std::numeric_limits<T>::quiet_NaN();
  if (d == 0 || std::isinf(n)) return sign ? -inf : inf;
  if (std::isinf(d) || n == 0) return sign ? T(-0.0) : T(0.0);
  if (std::isnan(q)) return sign ? -inf : inf;  // the macro overflowed
  return sign ? -std::fabs(q) : std::fabs(q);
}
float DivFixup32(const FpMode&, float q, float d, float n) { return DivFixup(q, d, n); }
double DivFixup64(const FpMode&, double q, double d, double n) { return DivFixup(q, d, n); }

// v_div_scale: scales the denominator or numerator (src0 is one of them) by 2^64 (f32) / 2^128 (f64) where the
// Newton-Raphson steps would meet denormals or overflow, and sets the lane's flag when the quotient needs the
// opposite scaling afterwards (v_div_fmas applies it).
template <typename T>
T DivScale(T s0, T d, T n, bool* flag) {
  constexpr bool k32 = sizeof(T) == 4;
  constexpr int kScale = k32 ? 64 : 128;
  constexpr int kFar = k32 ? 96 : 768;
  constexpr int kMantissa = k32 ? 23 : 53;
  const auto exponent = [](T v) { return k32 ? Exponent32(static_cast<float>(v)) : Exponent64(static_cast<double>(v)); };
  const auto denormal = [](auto v) { return std::fpclassify(v) == FP_SUBNORMAL; };
  *flag = false;
  if (n == 0 || d == 0) return std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(s0) || std::isnan(d) || std::isnan(n)) return std::numeric_limits<T>::quiet_NaN();
  // The ISA's pseudocode tests 1/d in double for both widths; for f32 the reciprocal that matters is the f32 one
  // (v_rcp_f32 of a denominator beyond 2^126 is denormal), so that is tested.
  const bool rcp_denormal = denormal(static_cast<T>(T(1) / d));
  // A quotient below the smallest normal, also one that would underflow to zero: the numerator is scaled up and the
  // quotient back down by v_div_fmas (judged in a wider type, where the quotient of two T cannot underflow). Testing
  // the T quotient for a denormal missed the zero case: a denormal numerator over a large denominator then fell
  // through to the tiny-numerator rule, scaling both up, and the denominator overflowed (2^-133 / 2^72 gave inf).
  using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
  const Wide wide_quotient = static_cast<Wide>(n) / static_cast<Wide>(d);
  const bool quotient_denormal = std::fabs(wide_quotient) < static_cast<Wide>(std::numeric_limits<T>::min());
  if (exponent(n) - exponent(d) >= kFar) {
    *flag = true;
    return s0 == d ? std::ldexp(s0, kScale) : s0;
  }
  if (denormal(d)) return std::ldexp(s0, kScale);
  if (rcp_denormal && quotient_denormal) {
    // The pseudocode scales the denominator up here, which would overflow a denominator beyond 2^126; scaling it
    // down keeps the macro's invariant (v_div_fmas scales a small quotient down).
    *flag = true;
    return s0 == d ? std::ldexp(s0, -kScale) : s0;
  }
  if (rcp_denormal) return std::ldexp(s0, -kScale);
  if (quotient_denormal) {
    *flag = true;
    return s0 == n ? std::ldexp(s0, kScale) : s0;
  }
  if (exponent(n) <= kMantissa) return std::ldexp(s0, kScale);
  return s0;
}

// The three sources of a division helper, unflushed (the helpers exist to handle denormals themselves).
template <typename T>
void ReadSources3(const Wave& w, const Inst& i, const Context& c, T* a, T* b, T* d) {
  if constexpr (sizeof(T) == 4) {
    ReadF32(w, i, c, 0, a);
    ReadF32(w, i, c, 1, b);
    ReadF32(w, i, c, 2, d);
  } else {
    ReadF64(w, i, c, 0, a);
    ReadF64(w, i, c, 1, b);
    ReadF64(w, i, c, 2, d);
  }
}

template <typename T>
void VDivScale(Wave& w, const Inst& i, Context& c) {
  constexpr bool k32 = sizeof(T) == 4;
  T a[kWaveSize], b[kWaveSize], d[kWaveSize];
  ReadSources3(w, i, c, a, b, d);
  const uint64_t mask = WriteMask(w, i);
  uint64_t flags = 0;
  if constexpr (k32) {
    uint32_t r[kWaveSize];
    ForEachLane(mask, [&](int l) {
      bool flag;
      r[l] = F32Bits(DivScale(a[l], b[l], d[l], &flag));
      flags |= uint64_t{flag} << l;
    });
    WriteV32(w, i, r, mask);
  } else {
    uint64_t r[kWaveSize];
    ForEachLane(mask, [&](int l) {
      bool flag;
      r[l] = F64Bits(DivScale(a[l], b[l], d[l], &flag));
      flags |= uint64_t{flag} << l;
    });
    WriteV64(w, i, r, mask);
  }
  WriteScalar64(w, i.sdst, flags);
}

// fma(a, b, c) * 2^scale rounded once, in the host's current rounding mode, as the hardware scales before it
// rounds: a scaled-down quotient lands among the denormals, where rounding the fma first and the scaled value
// again could be off by one. The fma is taken in a wider type rounded to odd (toward zero, then the last bit set
// when inexact): with at least two more bits than T, that rounds correctly to T in any mode.
template <typename T>
T ScaledFma(T a, T b, T c, int scale) {
  using Wide = std::conditional_t<sizeof(T) == 4, double, long double>;
  const int mode = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  Wide r = std::fma(static_cast<Wide>(a), static_cast<Wide>(b), static_cast<Wide>(c));
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  std::fesetround(mode);
  if (inexact && std::isfinite(r)) {
    // Odd: the truncated value, or its neighbour away from zero when its last bit is even.
    int exponent;
    const Wide mantissa = std::frexp(r, &exponent);
    const Wide units = std::ldexp(mantissa, std::numeric_limits<Wide>::digits);  // an integer
    if (std::fmod(units, Wide(2)) == 0) {
      r = std::nextafter(r, r > 0 ? std::numeric_limits<Wide>::infinity() : -std::numeric_limits<Wide>::infinity());
    }
  }
  return static_cast<T>(std::ldexp(r, scale));
}

// v_div_fmas: a fused multiply-add whose result is scaled back where v_div_scale flagged the lane in VCC: up by
// 2^64 (2^128 for f64) when the quotient is large (the denominator was scaled), down when it is small (the
// numerator was). Input denormals are kept.
template <typename T>
void VDivFmas(Wave& w, const Inst& i, Context& c) {
  constexpr bool k32 = sizeof(T) == 4;
  const FpMode m(w.mode);
  const uint64_t vcc = w.vcc();
  T a[kWaveSize], b[kWaveSize], d[kWaveSize];
  ReadSources3(w, i, c, a, b, d);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(k32 ? m.round32 : m.round64);
  const auto lane = [&](int l) {
    if (((vcc >> l) & 1) == 0) return std::fma(a[l], b[l], d[l]);
    return ScaledFma(a[l], b[l], d[l], (std::fabs(d[l]) >= T(2) ? 1 : -1) * (k32 ? 64 : 128));
  };
  if constexpr (k32) {
    uint32_t r[kWaveSize];
    ForEachLane(mask, [&](int l) { r[l] = F32Bits(FinishF32(i, m, lane(l))); });
    WriteV32(w, i, r, mask);
  } else {
    uint64_t r[kWaveSize];
    ForEachLane(mask, [&](int l) { r[l] = F64Bits(FinishF64(i, m, lane(l))); });
    WriteV64(w, i, r, mask);
  }
}

// v_mac_f32 / v_fmac_f32 / v_fmac_f64 and v_dot2c: the destination is the accumulator (the e64 form's src2
// field is unused).
void ReadDst32(const Wave& w, const Inst& i, float out[kWaveSize]) {
  const uint32_t* d = w.vgpr(i.dst - op::kVgpr0);
  for (int l = 0; l < kWaveSize; ++l) out[l] = BitsF32(d[l]);
}

template <float (*F)(const FpMode&, float, float, float)>
void F32Accumulate(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize], b[kWaveSize], d[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  ReadF32In(w, i, c, m, 1, b);
  ReadDst32(w, i, d);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(FinishF32(i, m, F(m, a[l], b[l], Flush32(m.in32, d[l])))); });
  WriteV32(w, i, r, mask);
}

void VFmacF64(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize];
  uint64_t r[kWaveSize];
  ReadF64In(w, i, c, m, 0, a);
  ReadF64In(w, i, c, m, 1, b);
  const uint32_t* lo = w.vgpr(i.dst - op::kVgpr0);
  const uint32_t* hi = w.vgpr(i.dst - op::kVgpr0 + 1);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) {
    const double acc = Flush64(m.in64, BitsF64(uint64_t{lo[l]} | (uint64_t{hi[l]} << 32)));
    r[l] = F64Bits(FinishF64(i, m, std::fma(a[l], b[l], acc)));
  });
  WriteV64(w, i, r, mask);
}

// VOP2 opcode 0x04 is v_mul_legacy_f32 on gfx908 and v_fmac_f64 from gfx90a on (which moved the legacy multiply
// to VOP3 0x2a1).
void VOp2Opcode4(Wave& w, const Inst& i, Context& c) {
  if (c.dispatch != nullptr && c.dispatch->target == Target::kGfx908) {
    F32Binary<MulLegacy32>(w, i, c);
  } else {
    VFmacF64(w, i, c);
  }
}

// v_madmk_f32 (src0 * K + src1) and v_madak_f32 (src0 * src1 + K); the decoder puts K in src2. gfx942 has no
// unfused multiply-add: the same VOP2 opcodes are v_fmamk_f32 / v_fmaak_f32 there.
bool Gfx942(const Context& c) { return c.dispatch != nullptr && c.dispatch->target == Target::kGfx942; }
template <bool kFused>
void VMadmkF32(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize], b[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  ReadF32In(w, i, c, m, 1, b);
  const float k = BitsF32(i.literal);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) {
    r[l] = F32Bits(FinishF32(i, m, kFused ? std::fma(a[l], k, b[l]) : Mad32(m, a[l], k, b[l])));
  });
  WriteV32(w, i, r, mask);
}
void VOp2Madmk(Wave& w, const Inst& i, Context& c) {
  if (Gfx942(c)) {
    VMadmkF32<true>(w, i, c);
  } else {
    VMadmkF32<false>(w, i, c);
  }
}
void VOp2Madak(Wave& w, const Inst& i, Context& c) {
  if (Gfx942(c)) {
    F32Ternary<Fma32>(w, i, c);
  } else {
    F32Ternary<Mad32>(w, i, c);
  }
}

// v_ldexp_f32 / v_ldexp_f64: src1 is a signed integer exponent.
void VLdexpF32(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize];
  uint32_t e[kWaveSize], r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  ReadU32(w, i, c, 1, e);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(FinishF32(i, m, Ldexp32(a[l], static_cast<int32_t>(e[l])))); });
  WriteV32(w, i, r, mask);
}
void VLdexpF64(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint32_t e[kWaveSize];
  uint64_t r[kWaveSize];
  ReadF64In(w, i, c, m, 0, a);
  ReadU32(w, i, c, 1, e);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) {
    const int32_t x = static_cast<int32_t>(e[l]);
    r[l] = F64Bits(FinishF64(i, m, std::ldexp(a[l], x < -3000 ? -3000 : x > 3000 ? 3000 : x)));
  });
  WriteV64(w, i, r, mask);
}

// v_trig_preop_f64: 53 bits of 2/pi for a Payne-Hanek argument reduction of src0 (sin/cos of large doubles).
// Segment src1[4:0] picks fraction bits 53*segment+1 on (bit 1 weighs 2^-1), shifted further by how far src0's
// biased exponent exceeds 1077 so the product with src0 keeps the bits that matter; the result is those 53 bits
// scaled to their weight, times 2^128 when the exponent is at least 1968 (the caller pre-scales such inputs). The
// ISA holds 1201 fraction bits of 2/pi; later ones read as 0.
constexpr uint32_t kTwoOverPi[38] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561, 0xb7246e3a,
    0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
    0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b, 0x5a0a6d1f, 0x6d367ecf,
    0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
    0x56033046, 0xfc7b6bab};
constexpr int kTwoOverPiBits = 1201;

double TrigPreop64(double x, uint32_t segment) {
  const int exponent = static_cast<int>((F64Bits(x) >> 52) & 0x7ff);
  int shift = static_cast<int>(segment & 31) * 53;
  if (exponent > 1077) shift += exponent - 1077;
  uint64_t bits = 0;
  for (int k = 1; k <= 53; ++k) {
    const int position = shift + k - 1;  // 0-based fraction bit
    const uint64_t bit =
        position < kTwoOverPiBits ? (kTwoOverPi[position / 32] >> (31 - position % 32)) & 1 : 0;
    bits = (bits << 1) | bit;
  }
  int scale = -53 - shift;
  if (exponent >= 1968) scale += 128;
  return std::ldexp(static_cast<double>(bits), scale);
}

void VTrigPreopF64(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint32_t segment[kWaveSize];
  uint64_t r[kWaveSize];
  ReadF64(w, i, c, 0, a);
  ReadU32(w, i, c, 1, segment);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = F64Bits(FinishF64(i, m, TrigPreop64(a[l], segment[l]))); });
  WriteV64(w, i, r, mask);
}

// v_frexp_exp_i32_f32 / _f64: the exponent frexp gives (0 for zero, infinity and NaN).
void VFrexpExpF32(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = static_cast<uint32_t>(FrexpExp(a[l])); });
  WriteV32(w, i, r, mask);
}
void VFrexpExpF64(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF64In(w, i, c, m, 0, a);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = static_cast<uint32_t>(FrexpExp(a[l])); });
  WriteV32(w, i, r, mask);
}

}  // namespace

void AddValuFloatOps(ValuTable& t) {
  // VOP2
  t[kVop2Base + 0x01] = {"v_add_f32", &F32Binary<Add32>};
  t[kVop2Base + 0x02] = {"v_sub_f32", &F32Binary<Sub32>};
  t[kVop2Base + 0x03] = {"v_subrev_f32", &F32Binary<SubRev32>};
  t[kVop2Base + 0x04] = {"v_mul_legacy_f32 (gfx908) / v_fmac_f64", &VOp2Opcode4};
  t[kVop2Base + 0x05] = {"v_mul_f32", &F32Binary<Mul32>};
  t[kVop2Base + 0x0a] = {"v_min_f32", &F32Binary<Min32>};
  t[kVop2Base + 0x0b] = {"v_max_f32", &F32Binary<Max32>};
  t[kVop2Base + 0x16] = {"v_mac_f32", &F32Accumulate<Mad32>};
  t[kVop2Base + 0x17] = {"v_madmk_f32 / v_fmamk_f32 (gfx942)", &VOp2Madmk};
  t[kVop2Base + 0x18] = {"v_madak_f32 / v_fmaak_f32 (gfx942)", &VOp2Madak};
  t[kVop2Base + 0x3b] = {"v_fmac_f32", &F32Accumulate<Fma32>};
  // VOP1
  t[kVop1Base + 0x1b] = {"v_fract_f32", &F32Unary<Fract32>};
  t[kVop1Base + 0x1c] = {"v_trunc_f32", &F32Unary<Trunc32>};
  t[kVop1Base + 0x1d] = {"v_ceil_f32", &F32Unary<Ceil32>};
  t[kVop1Base + 0x1e] = {"v_rndne_f32", &F32Unary<Rndne32>};
  t[kVop1Base + 0x1f] = {"v_floor_f32", &F32Unary<Floor32>};
  t[kVop1Base + 0x20] = {"v_exp_f32", &F32Unary<Exp32>};
  t[kVop1Base + 0x21] = {"v_log_f32", &F32Unary<Log32>};
  t[kVop1Base + 0x22] = {"v_rcp_f32", &F32Unary<Rcp32>};
  t[kVop1Base + 0x23] = {"v_rcp_iflag_f32", &F32Unary<Rcp32>};
  t[kVop1Base + 0x24] = {"v_rsq_f32", &F32Unary<Rsq32>};
  t[kVop1Base + 0x25] = {"v_rcp_f64", &F64Unary<Rcp64>};
  t[kVop1Base + 0x26] = {"v_rsq_f64", &F64Unary<Rsq64>};
  t[kVop1Base + 0x27] = {"v_sqrt_f32", &F32Unary<Sqrt32>};
  t[kVop1Base + 0x28] = {"v_sqrt_f64", &F64Unary<Sqrt64>};
  t[kVop1Base + 0x29] = {"v_sin_f32", &F32Unary<Sin32>};
  t[kVop1Base + 0x2a] = {"v_cos_f32", &F32Unary<Cos32>};
  t[kVop1Base + 0x17] = {"v_trunc_f64", &F64Unary<Trunc64>};
  t[kVop1Base + 0x18] = {"v_ceil_f64", &F64Unary<Ceil64>};
  t[kVop1Base + 0x19] = {"v_rndne_f64", &F64Unary<Rndne64>};
  t[kVop1Base + 0x1a] = {"v_floor_f64", &F64Unary<Floor64>};
  t[kVop1Base + 0x30] = {"v_frexp_exp_i32_f64", &VFrexpExpF64};
  t[kVop1Base + 0x31] = {"v_frexp_mant_f64", &F64Unary<FrexpMant64>};
  t[kVop1Base + 0x32] = {"v_fract_f64", &F64Unary<Fract64>};
  t[kVop1Base + 0x33] = {"v_frexp_exp_i32_f32", &VFrexpExpF32};
  t[kVop1Base + 0x34] = {"v_frexp_mant_f32", &F32Unary<FrexpMant32>};
  // VOP3-only
  t[0x1c0] = {"v_mad_legacy_f32", &F32Ternary<MadLegacy32>};
  t[0x1c1] = {"v_mad_f32", &F32Ternary<Mad32>};
  t[0x1cb] = {"v_fma_f32", &F32Ternary<Fma32>};
  t[0x1cc] = {"v_fma_f64", &F64Ternary<Fma64>};
  t[0x1d0] = {"v_min3_f32", &F32Ternary<Min3F32>};
  t[0x1d3] = {"v_max3_f32", &F32Ternary<Max3F32>};
  t[0x1d6] = {"v_med3_f32", &F32Ternary<Med3F32>};
  t[0x1de] = {"v_div_fixup_f32", &F32Ternary<DivFixup32, false>};
  t[0x1df] = {"v_div_fixup_f64", &F64Ternary<DivFixup64, false>};
  t[0x1e0] = {"v_div_scale_f32", &VDivScale<float>};
  t[0x1e1] = {"v_div_scale_f64", &VDivScale<double>};
  t[0x1e2] = {"v_div_fmas_f32", &VDivFmas<float>};
  t[0x1e3] = {"v_div_fmas_f64", &VDivFmas<double>};
  t[0x280] = {"v_add_f64", &F64Binary<Add64>};
  t[0x281] = {"v_mul_f64", &F64Binary<Mul64>};
  t[0x282] = {"v_min_f64", &F64Binary<Min64>};
  t[0x283] = {"v_max_f64", &F64Binary<Max64>};
  t[0x284] = {"v_ldexp_f64", &VLdexpF64};
  t[0x288] = {"v_ldexp_f32", &VLdexpF32};
  t[0x292] = {"v_trig_preop_f64", &VTrigPreopF64};
  t[0x2a1] = {"v_mul_legacy_f32", &F32Binary<MulLegacy32>};  // gfx90a+
}

}  // namespace hipmem::kfd_sim::gfx9
