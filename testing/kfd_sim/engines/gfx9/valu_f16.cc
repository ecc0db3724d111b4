// VALU f16 arithmetic (VOP2, VOP1 and the VOP3-only f16 ops with op_sel), the f16 conversions to and from wider
// floats, and the v_dot2c accumulating dot products (VOP2 on gfx908+).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"
#include "testing/kfd_sim/engines/gfx9/valu_fp.h"

namespace hipmem::kfd_sim::gfx9 {

double F16ToF64(uint16_t h) {
  const bool negative = (h & 0x8000) != 0;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v;
  if (exponent == 0x1f) {
    if (mantissa == 0) {
      v = std::numeric_limits<double>::infinity();
    } else {
      // Keep the payload (and quiet bit) in the double's top mantissa bits, as a hardware widening does.
      v = BitsF64(0x7ff0000000000000ull | (uint64_t{static_cast<uint32_t>(mantissa)} << 42));
    }
  } else if (exponent == 0) {
    v = std::ldexp(static_cast<double>(mantissa), -24);
  } else {
    v = std::ldexp(static_cast<double>(mantissa | 0x400), exponent - 25);
  }
  return negative ? -v : v;
}

uint16_t F64ToF16(double v, int round) {
  const uint64_t bits = F64Bits(v);
  const uint16_t sign = (bits >> 63) != 0 ? 0x8000 : 0;
  const uint64_t magnitude = bits & ~(uint64_t{1} << 63);
  if (magnitude > 0x7ff0000000000000ull) return sign | 0x7e00 | static_cast<uint16_t>((magnitude >> 42) & 0x1ff);
  // The largest finite f16 or infinity, whichever the rounding direction gives on overflow.
  const bool to_infinity = round == 0 || (round == 1 && sign == 0) || (round == 2 && sign != 0);
  const uint16_t overflow = sign | (to_infinity ? 0x7c00 : 0x7bff);
  if (magnitude == 0x7ff0000000000000ull) return sign | 0x7c00;
  if (magnitude == 0) return sign;
  int exponent = static_cast<int>(magnitude >> 52) - 1023;
  uint64_t mantissa = magnitude & ((uint64_t{1} << 52) - 1);
  if ((magnitude >> 52) == 0) {
    exponent = -1022;
  } else {
    mantissa |= uint64_t{1} << 52;
  }
  if (exponent > 15) return overflow;
  // The value is mantissa * 2^(exponent - 52); the f16 result's unit is 2^(max(exponent, -14) - 10).
  const int shift = std::max(exponent, -14) - 10 - (exponent - 52);
  uint64_t kept = 0;
  bool above_half = false, half = false, inexact = true;
  if (shift < 64) {
    kept = mantissa >> shift;
    const uint64_t rest = mantissa & ((uint64_t{1} << shift) - 1);
    const uint64_t halfway = uint64_t{1} << (shift - 1);
    above_half = rest > halfway;
    half = rest == halfway;
    inexact = rest != 0;
  }
  bool up = false;
  switch (round) {
    case 0: up = above_half || (half && (kept & 1) != 0); break;
    case 1: up = inexact && sign == 0; break;
    case 2: up = inexact && sign != 0; break;
    default: break;
  }
  kept += up ? 1 : 0;
  const uint64_t result = exponent >= -14 ? (static_cast<uint64_t>(exponent + 14) << 10) + kept : kept;
  if (result >= 0x7c00) return overflow;
  return sign | static_cast<uint16_t>(result);
}

void WriteF16(Wave& w, const Inst& i, const uint16_t r[kWaveSize], uint64_t mask, bool keep_high) {
  const bool high = i.encoding == Encoding::kVop3 && ((i.opsel >> 3) & 1) != 0;
  if (i.extra == Extra::kSdwa || (!high && !keep_high)) {
    uint32_t widened[kWaveSize];
    for (int l = 0; l < kWaveSize; ++l) widened[l] = r[l];
    WriteV32(w, i, widened, mask);
    return;
  }
  WriteV16(w, i, r, mask);
}

namespace {

double Add(const FpMode&, double a, double b) { return a + b; }
double Sub(const FpMode&, double a, double b) { return a - b; }
double SubRev(const FpMode&, double a, double b) { return b - a; }
double Mul(const FpMode&, double a, double b) { return a * b; }
double Min(const FpMode& m, double a, double b) { return FMinMax(m.ieee, false, a, b); }
double Max(const FpMode& m, double a, double b) { return FMinMax(m.ieee, true, a, b); }
double Min3(const FpMode& m, double a, double b, double c) { return Min(m, Min(m, a, b), c); }
double Max3(const FpMode& m, double a, double b, double c) { return Max(m, Max(m, a, b), c); }
double Med3(const FpMode& m, double a, double b, double c) { return FMed3(m.ieee, a, b, c); }
double Fma(const FpMode&, double a, double b, double c) { return std::fma(a, b, c); }
// The f16 multiply-adds: the product of two f16 values is exact in double, so one rounding of the sum is the
// fused result; v_mad_f16 rounds the product to f16 first.
double Mad(const FpMode& m, double a, double b, double c) { return F16ToF64(F64ToF16(a * b, m.round64)) + c; }
double Rcp(const FpMode&, double a) { return 1.0 / a; }
double Sqrt(const FpMode&, double a) { return std::sqrt(a); }
double Rsq(const FpMode&, double a) { return 1.0 / std::sqrt(a); }
double Log(const FpMode&, double a) { return std::log2(a); }
double Exp(const FpMode&, double a) { return std::exp2(a); }
double Floor(const FpMode&, double a) { return std::floor(a); }
double Ceil(const FpMode&, double a) { return std::ceil(a); }
double Trunc(const FpMode&, double a) { return std::trunc(a); }
double Rndne(const FpMode&, double a) { return RoundEven(a); }
double Fract(const FpMode&, double a) {
  const double r = a - std::floor(a);
  return std::isnan(r) ? r : std::fmin(r, 0x1.ffcp-1);  // the largest f16 below 1
}
double Sin(const FpMode&, double a) {
  if (!std::isfinite(a)) return std::numeric_limits<double>::quiet_NaN();
  return std::sin(6.283185307179586476925286766559 * (a - std::nearbyint(a)));
}
double Cos(const FpMode&, double a) {
  if (!std::isfinite(a)) return std::numeric_limits<double>::quiet_NaN();
  return std::cos(6.283185307179586476925286766559 * (a - std::nearbyint(a)));
}
double FrexpMant(const FpMode&, double a) {
  if (!std::isfinite(a)) return a;  // infinity and NaN unchanged, as the f32 form
  int e;
  return std::frexp(a, &e);
}
// v_div_fixup_f16: as the f32 form (valu_float.cc), on f16 operands widened exactly.
double DivFixup(const FpMode&, double q, double d, double n) {
  const bool sign = std::signbit(d) != std::signbit(n);
  const double inf = std::numeric_limits<double>::infinity();
  if (std::isnan(n)) return n;
  if (std::isnan(d)) return d;
  if ((d == 0 && n == 0) || (std::isinf(d) && std::isinf(n))) return -std::numeric_limits<double>::quiet_NaN();
  if (d == 0 || std::isinf(n)) return sign ? -inf : inf;
  if (std::isinf(d) || n == 0) return sign ? -0.0 : 0.0;
  if (std::isnan(q)) return sign ? -inf : inf;
  return sign ? -std::fabs(q) : std::fabs(q);
}

// v_mac_f16: the destination's low half is the addend; the high half is kept.
void VMacF16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  ReadF16In(w, i, c, m, 1, b);
  const uint32_t* d = w.vgpr(i.dst - op::kVgpr0);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) {
    r[l] = FinishF16(i, m, Mad(m, a[l], b[l], F16ToF64(Flush16(m.in64, static_cast<uint16_t>(d[l])))));
  });
  WriteF16(w, i, r, mask, true);
}

// v_madmk_f16 (src0 * K + src1) and v_madak_f16 (src0 * src1 + K), K the literal's low half.
template <bool kMk>
void VMadKF16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  ReadF16In(w, i, c, m, 1, b);
  const double k = F16ToF64(static_cast<uint16_t>(i.literal));
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) { r[l] = FinishF16(i, m, kMk ? Mad(m, a[l], k, b[l]) : Mad(m, a[l], b[l], k)); });
  WriteF16(w, i, r, mask, true);
}

// v_ldexp_f16: src1 is a signed 32-bit exponent (its low 16 bits in the e32 form's register).
void VLdexpF16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint32_t e[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  ReadU32(w, i, c, 1, e);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) {
    const int32_t x = static_cast<int32_t>(e[l]);
    r[l] = FinishF16(i, m, std::ldexp(a[l], std::clamp(x, -100, 100)));
  });
  WriteF16(w, i, r, mask, false);
}

// v_frexp_exp_i16_f16: frexp's exponent as a 16-bit integer (0 for zero, infinity and NaN).
void VFrexpExpF16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    int e = 0;
    if (std::isfinite(a[l]) && a[l] != 0) std::frexp(a[l], &e);
    r[l] = static_cast<uint16_t>(e);
  });
  WriteF16(w, i, r, mask, false);
}

// v_pack_b32_f16: the two f16 sources (op_sel picks halves; abs/neg apply) packed, src0 in the low half.
void VPackB32F16(Wave& w, const Inst& i, Context& c) {
  uint16_t a[kWaveSize], b[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF16Bits(w, i, c, 0, a);
  ReadF16Bits(w, i, c, 1, b);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = a[l] | (uint32_t{b[l]} << 16); });
  WriteV32(w, i, r, mask);
}

// v_dot2c_f32_f16: D.f32 += S0.lo * S1.lo + S0.hi * S1.hi (each product exact in double; the sum rounded once to
// f32, as a fused dot product).
void VDot2cF32F16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  uint32_t a[kWaveSize], b[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a, Width::k16);
  ReadU32(w, i, c, 1, b, Width::k16);
  const uint32_t* d = w.vgpr(i.dst - op::kVgpr0);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) {
    const double lo = F16ToF64(Flush16(m.in64, static_cast<uint16_t>(a[l]))) *
                      F16ToF64(Flush16(m.in64, static_cast<uint16_t>(b[l])));
    const double hi = F16ToF64(Flush16(m.in64, static_cast<uint16_t>(a[l] >> 16))) *
                      F16ToF64(Flush16(m.in64, static_cast<uint16_t>(b[l] >> 16)));
    const double acc = Flush32(m.in32, BitsF32(d[l]));
    r[l] = F32Bits(FinishF32(i, m, static_cast<float>(lo + hi + acc)));
  });
  WriteV32(w, i, r, mask);
}

// The integer accumulating dot products: D.i32 += sum of the signed products of 16-, 8- or 4-bit elements.
template <int kBits>
void VDotcI32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  const uint32_t* d = w.vgpr(i.dst - op::kVgpr0);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    int64_t sum = static_cast<int32_t>(d[l]);
    for (int k = 0; k < 32 / kBits; ++k) {
      const int shift = 32 - kBits;
      const int32_t x = static_cast<int32_t>(a[l] << (shift - k * kBits)) >> shift;
      const int32_t y = static_cast<int32_t>(b[l] << (shift - k * kBits)) >> shift;
      sum += int64_t{x} * y;
    }
    if (i.clamp) sum = std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX);
    r[l] = static_cast<uint32_t>(sum);
  });
  WriteV32(w, i, r, mask);
}

}  // namespace

void AddValuF16Ops(ValuTable& t) {
  // VOP2
  t[kVop2Base + 0x1f] = {"v_add_f16", &F16Binary<Add>};
  t[kVop2Base + 0x20] = {"v_sub_f16", &F16Binary<Sub>};
  t[kVop2Base + 0x21] = {"v_subrev_f16", &F16Binary<SubRev>};
  t[kVop2Base + 0x22] = {"v_mul_f16", &F16Binary<Mul>};
  t[kVop2Base + 0x23] = {"v_mac_f16", &VMacF16};
  t[kVop2Base + 0x24] = {"v_madmk_f16", &VMadKF16<true>};
  t[kVop2Base + 0x25] = {"v_madak_f16", &VMadKF16<false>};
  t[kVop2Base + 0x2d] = {"v_max_f16", &F16Binary<Max>};
  t[kVop2Base + 0x2e] = {"v_min_f16", &F16Binary<Min>};
  t[kVop2Base + 0x33] = {"v_ldexp_f16", &VLdexpF16};
  t[kVop2Base + 0x37] = {"v_dot2c_f32_f16", &VDot2cF32F16};
  t[kVop2Base + 0x38] = {"v_dot2c_i32_i16", &VDotcI32<16>};
  t[kVop2Base + 0x39] = {"v_dot4c_i32_i8", &VDotcI32<8>};
  t[kVop2Base + 0x3a] = {"v_dot8c_i32_i4", &VDotcI32<4>};
  // VOP1
  t[kVop1Base + 0x3d] = {"v_rcp_f16", &F16Unary<Rcp>};
  t[kVop1Base + 0x3e] = {"v_sqrt_f16", &F16Unary<Sqrt>};
  t[kVop1Base + 0x3f] = {"v_rsq_f16", &F16Unary<Rsq>};
  t[kVop1Base + 0x40] = {"v_log_f16", &F16Unary<Log>};
  t[kVop1Base + 0x41] = {"v_exp_f16", &F16Unary<Exp>};
  t[kVop1Base + 0x42] = {"v_frexp_mant_f16", &F16Unary<FrexpMant>};
  t[kVop1Base + 0x43] = {"v_frexp_exp_i16_f16", &VFrexpExpF16};
  t[kVop1Base + 0x44] = {"v_floor_f16", &F16Unary<Floor>};
  t[kVop1Base + 0x45] = {"v_ceil_f16", &F16Unary<Ceil>};
  t[kVop1Base + 0x46] = {"v_trunc_f16", &F16Unary<Trunc>};
  t[kVop1Base + 0x47] = {"v_rndne_f16", &F16Unary<Rndne>};
  t[kVop1Base + 0x48] = {"v_fract_f16", &F16Unary<Fract>};
  t[kVop1Base + 0x49] = {"v_sin_f16", &F16Unary<Sin>};
  t[kVop1Base + 0x4a] = {"v_cos_f16", &F16Unary<Cos>};
  // VOP3-only
  t[0x1ea] = {"v_mad_legacy_f16", &F16Ternary<Mad>};
  t[0x1ee] = {"v_fma_legacy_f16", &F16Ternary<Fma>};
  t[0x1ef] = {"v_div_fixup_legacy_f16", &F16Ternary<DivFixup, false, false>};
  t[0x1f4] = {"v_min3_f16", &F16Ternary<Min3>};
  t[0x1f7] = {"v_max3_f16", &F16Ternary<Max3>};
  t[0x1fa] = {"v_med3_f16", &F16Ternary<Med3>};
  t[0x203] = {"v_mad_f16", &F16Ternary<Mad>};
  t[0x206] = {"v_fma_f16", &F16Ternary<Fma>};
  t[0x207] = {"v_div_fixup_f16", &F16Ternary<DivFixup, false, false>};
  t[0x2a0] = {"v_pack_b32_f16", &VPackB32F16};
}

}  // namespace hipmem::kfd_sim::gfx9
