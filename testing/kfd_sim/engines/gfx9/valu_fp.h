// What the VALU's floating-point families share (valu_float.cc, valu_f16.cc, valu_convert.cc, valu_fcmp.cc,
// vop3p.cc): the MODE register's float controls, denormal flushing, the host rounding mode around an operation,
// f16 <-> wider conversions with a chosen rounding, output modifiers as MODE says, and handlers templated on a
// per-lane operation for f32, f64 and f16 sources.
//
// Where the simulation may differ from hardware:
// - Results are IEEE-exact (the host's), also for operations the ISA only promises to about 1 ulp (v_rcp, v_rsq,
//   v_sqrt, v_exp, v_log, v_sin, v_cos): those are computed in double and rounded once, so they lie within the
//   documented error but not necessarily on the hardware's bit pattern.
// - NaN payloads follow the host (the first NaN operand, quieted); the ISA leaves them to the implementation.
// - f16 arithmetic runs in double and is rounded once to f16: exact for add, sub, mul and min/max; an f16 fma can
//   differ from a fused f16 result in its last bit for operands 60 binades apart.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_FP_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_FP_H_

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/valu_common.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// The MODE register's float fields. Round modes: 0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward zero.
// Denorm modes per width (bit 0 keeps input denormals, bit 1 keeps output denormals; 0 flushes both).
struct FpMode {
  explicit FpMode(uint32_t mode)
      : round32(mode & 3),
        round64((mode >> 2) & 3),
        in32(((mode >> 4) & 1) != 0),
        out32(((mode >> 5) & 1) != 0),
        in64(((mode >> 6) & 1) != 0),
        out64(((mode >> 7) & 1) != 0),
        dx10_clamp(((mode >> 8) & 1) != 0),
        ieee(((mode >> 9) & 1) != 0) {}
  int round32, round64;  // round64 also governs f16
  bool in32, out32, in64, out64;  // in64/out64 also govern f16
  bool dx10_clamp;  // clamp turns NaN into 0 (else NaN passes)
  bool ieee;        // min/max quiet signaling NaNs instead of ignoring them
};

// Sets the host's rounding to a MODE round mode for its lifetime (nothing to do for round-to-nearest-even, the
// host default, so the common case costs nothing).
class RoundingScope {
 public:
  explicit RoundingScope(int mode) : saved_(mode == 0 ? -1 : std::fegetround()) {
    if (mode != 0) std::fesetround(kHost[mode]);
  }
  ~RoundingScope() {
    if (saved_ != -1) std::fesetround(saved_);
  }
  RoundingScope(const RoundingScope&) = delete;
  RoundingScope& operator=(const RoundingScope&) = delete;

 private:
  static constexpr int kHost[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  int saved_;
};

// Denormal flushing to a zero of the same sign.
inline float Flush32(bool keep, float v) {
  return keep || std::fpclassify(v) != FP_SUBNORMAL ? v : std::copysign(0.0f, v);
}
inline double Flush64(bool keep, double v) {
  return keep || std::fpclassify(v) != FP_SUBNORMAL ? v : std::copysign(0.0, v);
}
inline uint16_t Flush16(bool keep, uint16_t h) {
  return keep || (h & 0x7c00) != 0 ? h : static_cast<uint16_t>(h & 0x8000);
}

inline bool IsSignalingNan32(float v) { return std::isnan(v) && (F32Bits(v) & 0x00400000u) == 0; }
inline bool IsSignalingNan64(double v) { return std::isnan(v) && (F64Bits(v) & (uint64_t{1} << 51)) == 0; }
inline float Quiet32(float v) { return BitsF32(F32Bits(v) | 0x00400000u); }
inline double Quiet64(double v) { return BitsF64(F64Bits(v) | (uint64_t{1} << 51)); }

// A NaN an operation creates from non-NaN operands is the positive quiet NaN on the GPU; x86 creates a negative
// one, so results are mended where no operand was a NaN. NaN operands propagate (quieted) as they are.
template <typename T, typename... Sources>
T CanonicalNan(T r, Sources... sources) {
  if (!std::isnan(r) || (std::isnan(static_cast<T>(sources)) || ...)) return r;
  return std::numeric_limits<T>::quiet_NaN();
}

// f16 bit patterns to and from wider floats. The narrowing rounds once, by a MODE round mode, from any double
// (so from any float exactly); NaNs stay NaNs (quieted, payload's top bits kept).
double F16ToF64(uint16_t h);
inline float F16ToF32(uint16_t h) { return static_cast<float>(F16ToF64(h)); }
uint16_t F64ToF16(double v, int round);

// min/max as the VALU does them: with IEEE set a signaling NaN operand gives a quiet NaN; otherwise a NaN operand
// yields the other operand. -0 orders below +0.
template <typename T>
T FMinMax(bool ieee, bool max, T a, T b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) {
    if (ieee) {
      if constexpr (sizeof(T) == 4) {
        if (IsSignalingNan32(a)) return Quiet32(a);
        if (IsSignalingNan32(b)) return Quiet32(b);
      } else {
        if (IsSignalingNan64(a)) return Quiet64(a);
        if (IsSignalingNan64(b)) return Quiet64(b);
      }
    }
    return na ? b : a;
  }
  if (a == b) return (std::signbit(a) != max) ? a : b;
  return (a < b) != max ? a : b;
}

// The median of three, as v_med3_f32 defines it: any NaN makes it the minimum of the three.
template <typename T>
T FMed3(bool ieee, T a, T b, T c) {
  if (std::isnan(a) || std::isnan(b) || std::isnan(c)) {
    return FMinMax(ieee, false, FMinMax(ieee, false, a, b), c);
  }
  const T hi = FMinMax(ieee, true, FMinMax(ieee, true, a, b), c);
  if (hi == a) return FMinMax(ieee, true, b, c);
  if (hi == b) return FMinMax(ieee, true, a, c);
  return FMinMax(ieee, true, a, b);
}

// Round to nearest even whatever the host's rounding mode.
template <typename T>
T RoundEven(T x) {
  if (!std::isfinite(x)) return x;
  T t = std::floor(x);
  const T diff = x - t;
  if (diff > T(0.5) || (diff == T(0.5) && std::fmod(t, T(2)) != 0)) t += 1;
  return std::copysign(t, x);
}

// The output modifier, then the clamp (NaN to 0 under DX10_CLAMP), then output denormal flushing.
inline float FinishF32(const Inst& i, const FpMode& m, float v) {
  switch (i.omod) {
    case 1: v *= 2.0f; break;
    case 2: v *= 4.0f; break;
    case 3: v *= 0.5f; break;
    default: break;
  }
  if (i.clamp) {
    if (std::isnan(v)) {
      if (m.dx10_clamp) v = 0.0f;
    } else {
      v = v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
    }
  }
  return Flush32(m.out32, v);
}
inline double FinishF64(const Inst& i, const FpMode& m, double v) {
  switch (i.omod) {
    case 1: v *= 2.0; break;
    case 2: v *= 4.0; break;
    case 3: v *= 0.5; break;
    default: break;
  }
  if (i.clamp) {
    if (std::isnan(v)) {
      if (m.dx10_clamp) v = 0.0;
    } else {
      v = v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
    }
  }
  return Flush64(m.out64, v);
}
// An f16 result computed in double: modifiers, then the one rounding to f16, then flushing.
inline uint16_t FinishF16(const Inst& i, const FpMode& m, double v) {
  switch (i.omod) {
    case 1: v *= 2.0; break;
    case 2: v *= 4.0; break;
    case 3: v *= 0.5; break;
    default: break;
  }
  uint16_t h = F64ToF16(v, m.round64);
  if (i.clamp) {
    if ((h & 0x7fff) > 0x7c00) {  // NaN
      if (m.dx10_clamp) h = 0;
    } else if ((h & 0x8000) != 0) {
      if (h != 0x8000) h = 0;  // negative to 0; -0 stays, as the f32 clamp keeps it
    } else if (h > 0x3c00) {
      h = 0x3c00;
    }
  }
  return Flush16(m.out64, h);
}

// Writes an f16 result: to the high half under VOP3 op_sel[3] (the low half kept), through SDWA's destination
// select, else to the low half with the high half zeroed (GFX9's 16-bit VALU ops) or kept (v_mac_f16 and
// v_madmk/madak_f16, which GFX9 changed to preserve it).
void WriteF16(Wave& w, const Inst& i, const uint16_t r[kWaveSize], uint64_t mask, bool keep_high);

// Reads source `index` as f32 with input denormals flushed as MODE says.
inline void ReadF32In(const Wave& w, const Inst& i, const Context& c, const FpMode& m, int index,
                      float out[kWaveSize]) {
  ReadF32(w, i, c, index, out);
  if (!m.in32) {
    for (int l = 0; l < kWaveSize; ++l) out[l] = Flush32(false, out[l]);
  }
}
inline void ReadF64In(const Wave& w, const Inst& i, const Context& c, const FpMode& m, int index,
                      double out[kWaveSize]) {
  ReadF64(w, i, c, index, out);
  if (!m.in64) {
    for (int l = 0; l < kWaveSize; ++l) out[l] = Flush64(false, out[l]);
  }
}
// f16 sources widened to double (exactly), denormals flushed as MODE says.
inline void ReadF16In(const Wave& w, const Inst& i, const Context& c, const FpMode& m, int index,
                      double out[kWaveSize]) {
  uint16_t h[kWaveSize];
  ReadF16Bits(w, i, c, index, h);
  for (int l = 0; l < kWaveSize; ++l) out[l] = F16ToF64(Flush16(m.in64, h[l]));
}

template <bool kCanon, typename T, typename... Sources>
T Canon(T r, Sources... sources) {
  return kCanon ? CanonicalNan(r, sources...) : r;
}

// Handlers over a per-lane operation of N sources, the lane function taking the MODE first. The op runs under
// the MODE's rounding, a NaN it creates is made canonical (kCanon; v_div_fixup's deliberate -NaN is not), and the
// result goes through the output modifiers.
template <float (*F)(const FpMode&, float), bool kCanon = true>
void F32Unary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(FinishF32(i, m, Canon<kCanon>(F(m, a[l]), a[l]))); });
  WriteV32(w, i, r, mask);
}
template <float (*F)(const FpMode&, float, float), bool kCanon = true>
void F32Binary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize], b[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  ReadF32In(w, i, c, m, 1, b);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(FinishF32(i, m, Canon<kCanon>(F(m, a[l], b[l]), a[l], b[l]))); });
  WriteV32(w, i, r, mask);
}
template <float (*F)(const FpMode&, float, float, float), bool kCanon = true>
void F32Ternary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize], b[kWaveSize], d[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  ReadF32In(w, i, c, m, 1, b);
  ReadF32In(w, i, c, m, 2, d);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(FinishF32(i, m, Canon<kCanon>(F(m, a[l], b[l], d[l]), a[l], b[l], d[l]))); });
  WriteV32(w, i, r, mask);
}
template <double (*F)(const FpMode&, double), bool kCanon = true>
void F64Unary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint64_t r[kWaveSize];
  ReadF64In(w, i, c, m, 0, a);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) { r[l] = F64Bits(FinishF64(i, m, Canon<kCanon>(F(m, a[l]), a[l]))); });
  WriteV64(w, i, r, mask);
}
template <double (*F)(const FpMode&, double, double), bool kCanon = true>
void F64Binary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize];
  uint64_t r[kWaveSize];
  ReadF64In(w, i, c, m, 0, a);
  ReadF64In(w, i, c, m, 1, b);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) { r[l] = F64Bits(FinishF64(i, m, Canon<kCanon>(F(m, a[l], b[l]), a[l], b[l]))); });
  WriteV64(w, i, r, mask);
}
template <double (*F)(const FpMode&, double, double, double), bool kCanon = true>
void F64Ternary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize], d[kWaveSize];
  uint64_t r[kWaveSize];
  ReadF64In(w, i, c, m, 0, a);
  ReadF64In(w, i, c, m, 1, b);
  ReadF64In(w, i, c, m, 2, d);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) { r[l] = F64Bits(FinishF64(i, m, Canon<kCanon>(F(m, a[l], b[l], d[l]), a[l], b[l], d[l]))); });
  WriteV64(w, i, r, mask);
}

// f16 operations compute in double on exactly widened sources; the result is rounded once to f16.
template <double (*F)(const FpMode&, double), bool kKeepHigh = false, bool kCanon = true>
void F16Unary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) { r[l] = FinishF16(i, m, Canon<kCanon>(F(m, a[l]), a[l])); });
  WriteF16(w, i, r, mask, kKeepHigh);
}
template <double (*F)(const FpMode&, double, double), bool kKeepHigh = false, bool kCanon = true>
void F16Binary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  ReadF16In(w, i, c, m, 1, b);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) { r[l] = FinishF16(i, m, Canon<kCanon>(F(m, a[l], b[l]), a[l], b[l])); });
  WriteF16(w, i, r, mask, kKeepHigh);
}
template <double (*F)(const FpMode&, double, double, double), bool kKeepHigh = false, bool kCanon = true>
void F16Ternary(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize], d[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  ReadF16In(w, i, c, m, 1, b);
  ReadF16In(w, i, c, m, 2, d);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) { r[l] = FinishF16(i, m, Canon<kCanon>(F(m, a[l], b[l], d[l]), a[l], b[l], d[l])); });
  WriteF16(w, i, r, mask, kKeepHigh);
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_FP_H_
