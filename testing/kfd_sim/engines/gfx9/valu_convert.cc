// VALU conversions between integers, f16, f32 and f64, and the packing conversions (pkrtz, pknorm, pk_u8,
// pk_u16/i16). Float-to-integer conversions truncate, saturate, and turn NaN into 0.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"
#include "testing/kfd_sim/engines/gfx9/valu_fp.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// A double (any float widens exactly) to a saturated integer of [lo, hi], NaN to 0.
int64_t Saturate(double v, double lo, double hi) {
  if (std::isnan(v)) return 0;
  return static_cast<int64_t>(std::clamp(std::trunc(v), lo, hi));
}
uint32_t ToI32(double v) { return static_cast<uint32_t>(Saturate(v, INT32_MIN, INT32_MAX)); }
uint32_t ToU32(double v) { return static_cast<uint32_t>(Saturate(v, 0, UINT32_MAX)); }

// Which source and destination a conversion has; the handler reads, converts each lane and writes.
enum class Kind : uint8_t { kU32, kF32, kF64, kF16 };

template <Kind kFrom>
struct Source;
template <>
struct Source<Kind::kU32> {
  using T = uint32_t;
  static void Read(const Wave& w, const Inst& i, const Context& c, const FpMode&, T* out) { ReadU32(w, i, c, 0, out); }
};
template <>
struct Source<Kind::kF32> {
  using T = float;
  static void Read(const Wave& w, const Inst& i, const Context& c, const FpMode& m, T* out) {
    ReadF32In(w, i, c, m, 0, out);
  }
};
template <>
struct Source<Kind::kF64> {
  using T = double;
  static void Read(const Wave& w, const Inst& i, const Context& c, const FpMode& m, T* out) {
    ReadF64In(w, i, c, m, 0, out);
  }
};
template <>
struct Source<Kind::kF16> {
  using T = double;
  static void Read(const Wave& w, const Inst& i, const Context& c, const FpMode& m, T* out) {
    ReadF16In(w, i, c, m, 0, out);
  }
};

// A one-source conversion: F maps a lane's source to its result bits (32 or 64 wide by kTo). Float results are
// rounded by the destination width's round mode and finished with the output modifiers.
template <Kind kFrom, Kind kTo, auto F>
void Convert(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  typename Source<kFrom>::T a[kWaveSize];
  Source<kFrom>::Read(w, i, c, m, a);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(kTo == Kind::kF32 ? m.round32 : m.round64);
  if constexpr (kTo == Kind::kF64) {
    uint64_t r[kWaveSize];
    ForEachLane(mask, [&](int l) { r[l] = F64Bits(FinishF64(i, m, F(m, a[l]))); });
    WriteV64(w, i, r, mask);
  } else if constexpr (kTo == Kind::kF16) {
    uint16_t r[kWaveSize];
    ForEachLane(mask, [&](int l) { r[l] = FinishF16(i, m, F(m, a[l])); });
    WriteF16(w, i, r, mask, false);
  } else {
    uint32_t r[kWaveSize];
    ForEachLane(mask, [&](int l) {
      if constexpr (kTo == Kind::kF32) {
        r[l] = F32Bits(FinishF32(i, m, F(m, a[l])));
      } else {
        r[l] = F(m, a[l]);
      }
    });
    WriteV32(w, i, r, mask);
  }
}

float I32ToF32(const FpMode&, uint32_t v) { return static_cast<float>(static_cast<int32_t>(v)); }
float U32ToF32(const FpMode&, uint32_t v) { return static_cast<float>(v); }
double I32ToF64(const FpMode&, uint32_t v) { return static_cast<int32_t>(v); }
double U32ToF64(const FpMode&, uint32_t v) { return v; }
template <int kByte>
float UbyteToF32(const FpMode&, uint32_t v) { return static_cast<float>((v >> (8 * kByte)) & 0xff); }
// v_cvt_off_f32_i4: the low 4 bits as a signed integer, divided by 16.
float OffI4ToF32(const FpMode&, uint32_t v) { return static_cast<float>(static_cast<int32_t>(v << 28) >> 28) / 16.0f; }
uint32_t F32ToI32(const FpMode&, float v) { return ToI32(v); }
uint32_t F32ToU32(const FpMode&, float v) { return ToU32(v); }
uint32_t F64ToI32(const FpMode&, double v) { return ToI32(v); }
uint32_t F64ToU32(const FpMode&, double v) { return ToU32(v); }
// v_cvt_rpi_i32_f32 rounds half up (floor(x + 0.5)); v_cvt_flr_i32_f32 floors.
uint32_t RpiI32(const FpMode&, float v) { return ToI32(std::floor(static_cast<double>(v) + 0.5)); }
uint32_t FlrI32(const FpMode&, float v) { return ToI32(std::floor(static_cast<double>(v))); }
float F64ToF32(const FpMode&, double v) { return static_cast<float>(v); }
double F32ToF64(const FpMode&, float v) { return v; }
double NarrowToF16(const FpMode&, float v) { return v; }  // rounded to f16 by the handler's finish
float WidenF16(const FpMode&, double v) { return static_cast<float>(v); }
double U16ToF16(const FpMode&, uint32_t v) { return static_cast<uint16_t>(v); }
double I16ToF16(const FpMode&, uint32_t v) { return static_cast<int16_t>(v); }

// f16 to 16-bit integers (truncating, saturating, NaN to 0) and to the normalized forms (scaled by 32767 or 65535
// after clamping to [-1, 1] or [0, 1], rounded to nearest even).
int64_t NormI16(double v) { return std::isnan(v) ? 0 : static_cast<int64_t>(RoundEven(std::clamp(v, -1.0, 1.0) * 32767)); }
int64_t NormU16(double v) { return std::isnan(v) ? 0 : static_cast<int64_t>(RoundEven(std::clamp(v, 0.0, 1.0) * 65535)); }

template <int64_t (*F)(double)>
void F16ToInt16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize];
  uint16_t r[kWaveSize];
  ReadF16In(w, i, c, m, 0, a);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = static_cast<uint16_t>(F(a[l])); });
  WriteF16(w, i, r, mask, false);
}
int64_t TruncU16(double v) { return Saturate(v, 0, UINT16_MAX); }
int64_t TruncI16(double v) { return Saturate(v, INT16_MIN, INT16_MAX); }

// Two-source packs into one dword, src0's result in the low half.
template <int64_t (*F)(double), bool kF16Sources>
void PackNorm(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  double a[kWaveSize], b[kWaveSize];
  if constexpr (kF16Sources) {
    ReadF16In(w, i, c, m, 0, a);
    ReadF16In(w, i, c, m, 1, b);
  } else {
    float fa[kWaveSize], fb[kWaveSize];
    ReadF32In(w, i, c, m, 0, fa);
    ReadF32In(w, i, c, m, 1, fb);
    std::copy(fa, fa + kWaveSize, a);
    std::copy(fb, fb + kWaveSize, b);
  }
  uint32_t r[kWaveSize];
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    r[l] = (static_cast<uint32_t>(F(a[l])) & 0xffff) | (static_cast<uint32_t>(F(b[l])) << 16);
  });
  WriteV32(w, i, r, mask);
}

// v_cvt_pkrtz_f16_f32: both f32 sources to f16 rounding toward zero whatever MODE says.
void VCvtPkrtz(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize], b[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  ReadF32In(w, i, c, m, 1, b);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    const uint16_t lo = Flush16(m.out64, F64ToF16(a[l], 3));
    const uint16_t hi = Flush16(m.out64, F64ToF16(b[l], 3));
    r[l] = lo | (uint32_t{hi} << 16);
  });
  WriteV32(w, i, r, mask);
}

// v_cvt_pk_u16_u32 / v_cvt_pk_i16_i32: two 32-bit integers saturated to 16 bits and packed.
template <bool kSigned>
void VCvtPk16(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  const auto sat = [](uint32_t v) -> uint32_t {
    if (kSigned) return static_cast<uint16_t>(std::clamp<int32_t>(static_cast<int32_t>(v), INT16_MIN, INT16_MAX));
    return std::min<uint32_t>(v, UINT16_MAX);
  };
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = sat(a[l]) | (sat(b[l]) << 16); });
  WriteV32(w, i, r, mask);
}

// v_cvt_pk_u8_f32: src0 converted to an unsigned byte (rounded to nearest even, saturated) replaces byte
// src1[1:0] of src2.
void VCvtPkU8F32(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  float a[kWaveSize];
  uint32_t sel[kWaveSize], d[kWaveSize], r[kWaveSize];
  ReadF32In(w, i, c, m, 0, a);
  ReadU32(w, i, c, 1, sel);
  ReadU32(w, i, c, 2, d);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    const uint32_t byte =
        std::isnan(a[l]) ? 0 : static_cast<uint32_t>(RoundEven(std::clamp(static_cast<double>(a[l]), 0.0, 255.0)));
    const int shift = 8 * (sel[l] & 3);
    r[l] = (d[l] & ~(0xffu << shift)) | (byte << shift);
  });
  WriteV32(w, i, r, mask);
}

}  // namespace

void AddValuConvertOps(ValuTable& t) {
  using K = Kind;
  t[kVop1Base + 0x03] = {"v_cvt_i32_f64", &Convert<K::kF64, K::kU32, F64ToI32>};
  t[kVop1Base + 0x04] = {"v_cvt_f64_i32", &Convert<K::kU32, K::kF64, I32ToF64>};
  t[kVop1Base + 0x05] = {"v_cvt_f32_i32", &Convert<K::kU32, K::kF32, I32ToF32>};
  t[kVop1Base + 0x06] = {"v_cvt_f32_u32", &Convert<K::kU32, K::kF32, U32ToF32>};
  t[kVop1Base + 0x07] = {"v_cvt_u32_f32", &Convert<K::kF32, K::kU32, F32ToU32>};
  t[kVop1Base + 0x08] = {"v_cvt_i32_f32", &Convert<K::kF32, K::kU32, F32ToI32>};
  t[kVop1Base + 0x0a] = {"v_cvt_f16_f32", &Convert<K::kF32, K::kF16, NarrowToF16>};
  t[kVop1Base + 0x0b] = {"v_cvt_f32_f16", &Convert<K::kF16, K::kF32, WidenF16>};
  t[kVop1Base + 0x0c] = {"v_cvt_rpi_i32_f32", &Convert<K::kF32, K::kU32, RpiI32>};
  t[kVop1Base + 0x0d] = {"v_cvt_flr_i32_f32", &Convert<K::kF32, K::kU32, FlrI32>};
  t[kVop1Base + 0x0e] = {"v_cvt_off_f32_i4", &Convert<K::kU32, K::kF32, OffI4ToF32>};
  t[kVop1Base + 0x0f] = {"v_cvt_f32_f64", &Convert<K::kF64, K::kF32, F64ToF32>};
  t[kVop1Base + 0x10] = {"v_cvt_f64_f32", &Convert<K::kF32, K::kF64, F32ToF64>};
  t[kVop1Base + 0x11] = {"v_cvt_f32_ubyte0", &Convert<K::kU32, K::kF32, UbyteToF32<0>>};
  t[kVop1Base + 0x12] = {"v_cvt_f32_ubyte1", &Convert<K::kU32, K::kF32, UbyteToF32<1>>};
  t[kVop1Base + 0x13] = {"v_cvt_f32_ubyte2", &Convert<K::kU32, K::kF32, UbyteToF32<2>>};
  t[kVop1Base + 0x14] = {"v_cvt_f32_ubyte3", &Convert<K::kU32, K::kF32, UbyteToF32<3>>};
  t[kVop1Base + 0x15] = {"v_cvt_u32_f64", &Convert<K::kF64, K::kU32, F64ToU32>};
  t[kVop1Base + 0x16] = {"v_cvt_f64_u32", &Convert<K::kU32, K::kF64, U32ToF64>};
  t[kVop1Base + 0x39] = {"v_cvt_f16_u16", &Convert<K::kU32, K::kF16, U16ToF16>};
  t[kVop1Base + 0x3a] = {"v_cvt_f16_i16", &Convert<K::kU32, K::kF16, I16ToF16>};
  t[kVop1Base + 0x3b] = {"v_cvt_u16_f16", &F16ToInt16<TruncU16>};
  t[kVop1Base + 0x3c] = {"v_cvt_i16_f16", &F16ToInt16<TruncI16>};
  t[kVop1Base + 0x4d] = {"v_cvt_norm_i16_f16", &F16ToInt16<NormI16>};
  t[kVop1Base + 0x4e] = {"v_cvt_norm_u16_f16", &F16ToInt16<NormU16>};
  t[0x1dd] = {"v_cvt_pk_u8_f32", &VCvtPkU8F32};
  t[0x294] = {"v_cvt_pknorm_i16_f32", &PackNorm<NormI16, false>};
  t[0x295] = {"v_cvt_pknorm_u16_f32", &PackNorm<NormU16, false>};
  t[0x296] = {"v_cvt_pkrtz_f16_f32", &VCvtPkrtz};
  t[0x297] = {"v_cvt_pk_u16_u32", &VCvtPk16<false>};
  t[0x298] = {"v_cvt_pk_i16_i32", &VCvtPk16<true>};
  t[0x299] = {"v_cvt_pknorm_i16_f16", &PackNorm<NormI16, true>};
  t[0x29a] = {"v_cvt_pknorm_u16_f16", &PackNorm<NormU16, true>};
}

}  // namespace hipmem::kfd_sim::gfx9
