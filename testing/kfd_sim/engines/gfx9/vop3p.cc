// Packed math (VOP3P): two 16-bit lanes per dword (or, on gfx90a+, two f32 lanes per VGPR pair), each source's
// half for the low result chosen by op_sel and for the high result by op_sel_hi, neg_lo/neg_hi negating float
// halves; the mixed-precision fma_mix ops; and the dot products. MFMA (v_mfma_*, v_smfmac_*, gfx908+) shares the
// encoding but has per-target tables of its own (mfma.cc).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/valu_fp.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// The 16-bit half of source `index` that result half `high` uses.
uint16_t Half(const Inst& i, int index, bool high, uint32_t v) {
  const bool sel = (((high ? i.opsel_hi : i.opsel) >> index) & 1) != 0;
  return static_cast<uint16_t>(sel ? v >> 16 : v);
}
// The same, as an f16 widened to double, with neg_lo/neg_hi applied and input denormals flushed.
double HalfF16(const Inst& i, const FpMode& m, int index, bool high, uint32_t v) {
  uint16_t h = Flush16(m.in64, Half(i, index, high, v));
  if ((((high ? i.neg_hi : i.neg) >> index) & 1) != 0) h ^= 0x8000;
  return F16ToF64(h);
}

// Packed f16: F on each half, rounded to f16 with MODE's f16 rounding; clamp applies per half.
template <double (*F)(const FpMode&, double, double, double), int kSources>
void PkF16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  uint32_t s[3][kWaveSize];
  for (int k = 0; k < kSources; ++k) ReadU32(w, i, c, k, s[k], Width::k16);
  uint32_t r[kWaveSize];
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round64);
  ForEachLane(mask, [&](int l) {
    uint32_t out = 0;
    for (int h = 0; h < 2; ++h) {
      double x[3] = {0, 0, 0};
      for (int k = 0; k < kSources; ++k) x[k] = HalfF16(i, m, k, h == 1, s[k][l]);
      out |= uint32_t{FinishF16(i, m, F(m, x[0], x[1], x[2]))} << (16 * h);
    }
    r[l] = out;
  });
  WriteV32(w, i, r, mask);
}

double Add(const FpMode&, double a, double b, double) { return a + b; }
double Mul(const FpMode&, double a, double b, double) { return a * b; }
double Fma(const FpMode&, double a, double b, double c) { return std::fma(a, b, c); }
double Min(const FpMode& m, double a, double b, double) { return FMinMax(m.ieee, false, a, b); }
double Max(const FpMode& m, double a, double b, double) { return FMinMax(m.ieee, true, a, b); }

// Packed 16-bit integers: F on each half's raw bits (no neg); clamp saturates where F says.
template <uint32_t (*F)(const Inst&, uint32_t, uint32_t, uint32_t), int kSources>
void PkInt16(Wave& w, const Inst& i, Context& c) {
  uint32_t s[3][kWaveSize];
  for (int k = 0; k < kSources; ++k) ReadU32(w, i, c, k, s[k]);
  uint32_t r[kWaveSize];
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    uint32_t out = 0;
    for (int h = 0; h < 2; ++h) {
      uint32_t x[3] = {0, 0, 0};
      for (int k = 0; k < kSources; ++k) x[k] = Half(i, k, h == 1, s[k][l]);
      out |= (F(i, x[0], x[1], x[2]) & 0xffff) << (16 * h);
    }
    r[l] = out;
  });
  WriteV32(w, i, r, mask);
}

int32_t S16(uint32_t v) { return static_cast<int16_t>(v); }
uint32_t SatU16(const Inst& i, int64_t v) { return static_cast<uint32_t>(i.clamp ? std::clamp<int64_t>(v, 0, 0xffff) : v); }
uint32_t SatI16(const Inst& i, int64_t v) {
  return static_cast<uint32_t>(i.clamp ? std::clamp<int64_t>(v, INT16_MIN, INT16_MAX) : v);
}
uint32_t AddU16(const Inst& i, uint32_t a, uint32_t b, uint32_t) { return SatU16(i, int64_t{a} + b); }
uint32_t SubU16(const Inst& i, uint32_t a, uint32_t b, uint32_t) { return SatU16(i, int64_t{a} - b); }
uint32_t AddI16(const Inst& i, uint32_t a, uint32_t b, uint32_t) { return SatI16(i, int64_t{S16(a)} + S16(b)); }
uint32_t SubI16(const Inst& i, uint32_t a, uint32_t b, uint32_t) { return SatI16(i, int64_t{S16(a)} - S16(b)); }
uint32_t MulLoU16(const Inst&, uint32_t a, uint32_t b, uint32_t) { return a * b; }
uint32_t MadU16(const Inst& i, uint32_t a, uint32_t b, uint32_t d) { return SatU16(i, int64_t{a} * b + d); }
uint32_t MadI16(const Inst& i, uint32_t a, uint32_t b, uint32_t d) {
  return SatI16(i, int64_t{S16(a)} * S16(b) + S16(d));
}
// Shifts take the amount from src0's low 4 bits and the value from src1.
uint32_t LshlRev(const Inst&, uint32_t a, uint32_t b, uint32_t) { return b << (a & 15); }
uint32_t LshrRev(const Inst&, uint32_t a, uint32_t b, uint32_t) { return b >> (a & 15); }
uint32_t AshrRev(const Inst&, uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>(S16(b) >> (a & 15)); }
uint32_t MaxU16(const Inst&, uint32_t a, uint32_t b, uint32_t) { return std::max(a, b); }
uint32_t MinU16(const Inst&, uint32_t a, uint32_t b, uint32_t) { return std::min(a, b); }
uint32_t MaxI16(const Inst&, uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>(std::max(S16(a), S16(b))); }
uint32_t MinI16(const Inst&, uint32_t a, uint32_t b, uint32_t) { return static_cast<uint32_t>(std::min(S16(a), S16(b))); }

// v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16: each source is an f32 (op_sel_hi bit clear) or the f16 half
// op_sel picks (op_sel_hi bit set); neg (and abs, in neg_hi's bits) apply. The result is f32, or f16 written to the
// low or high half with the other half kept.
enum class Mix : uint8_t { kF32, kLo, kHi };
template <Mix kMix>
void VFmaMix(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  uint32_t s[3][kWaveSize];
  for (int k = 0; k < 3; ++k) ReadU32(w, i, c, k, s[k], ((i.opsel_hi >> k) & 1) != 0 ? Width::k16 : Width::k32);
  uint32_t* d = w.vgpr(i.dst - op::kVgpr0);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(kMix == Mix::kF32 ? m.round32 : m.round64);
  ForEachLane(mask, [&](int l) {
    double x[3];
    for (int k = 0; k < 3; ++k) {
      if (((i.opsel_hi >> k) & 1) != 0) {
        const bool high = ((i.opsel >> k) & 1) != 0;
        x[k] = F16ToF64(Flush16(m.in64, static_cast<uint16_t>(high ? s[k][l] >> 16 : s[k][l])));
      } else {
        x[k] = Flush32(m.in32, BitsF32(s[k][l]));
      }
      if (((i.neg_hi >> k) & 1) != 0) x[k] = std::fabs(x[k]);
      if (((i.neg >> k) & 1) != 0) x[k] = -x[k];
    }
    // The f32 product of widened f16/f32 values is exact in double; one fma rounds the sum.
    const double v = std::fma(x[0], x[1], x[2]);
    if constexpr (kMix == Mix::kF32) {
      d[l] = F32Bits(FinishF32(i, m, static_cast<float>(v)));
    } else {
      const uint32_t h = FinishF16(i, m, v);
      d[l] = kMix == Mix::kLo ? (d[l] & 0xffff0000u) | h : (d[l] & 0xffffu) | (h << 16);
    }
  });
}

// v_dot2_f32_f16: src0.lo*src1.lo + src0.hi*src1.hi + src2.f32 (op_sel picks and neg_lo/neg_hi apply to the f16
// halves), rounded once to f32.
void VDot2F32F16(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  uint32_t a[kWaveSize], b[kWaveSize], d[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a, Width::k16);
  ReadU32(w, i, c, 1, b, Width::k16);
  ReadU32(w, i, c, 2, d, Width::k32);
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) {
    const double lo = HalfF16(i, m, 0, false, a[l]) * HalfF16(i, m, 1, false, b[l]);
    const double hi = HalfF16(i, m, 0, true, a[l]) * HalfF16(i, m, 1, true, b[l]);
    const double acc = Flush32(m.in32, BitsF32(d[l]));
    r[l] = F32Bits(FinishF32(i, m, static_cast<float>(lo + hi + acc)));
  });
  WriteV32(w, i, r, mask);
}

// The integer dot products: src2 plus the sum of the products of src0's and src1's kBits-wide elements, signed or
// unsigned; clamp saturates to 32 bits.
template <int kBits, bool kSigned>
void VDotInt(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], d[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  ReadU32(w, i, c, 2, d);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    int64_t sum = kSigned ? int64_t{static_cast<int32_t>(d[l])} : int64_t{d[l]};
    for (int k = 0; k < 32 / kBits; ++k) {
      const int shift = 32 - kBits;
      int64_t x, y;
      if (kSigned) {
        x = static_cast<int32_t>(a[l] << (shift - k * kBits)) >> shift;
        y = static_cast<int32_t>(b[l] << (shift - k * kBits)) >> shift;
      } else {
        x = (a[l] << (shift - k * kBits)) >> shift;
        y = (b[l] << (shift - k * kBits)) >> shift;
      }
      sum += x * y;
    }
    if (i.clamp) sum = kSigned ? std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX) : std::min<int64_t>(sum, UINT32_MAX);
    r[l] = static_cast<uint32_t>(sum);
  });
  WriteV32(w, i, r, mask);
}

// gfx90a's packed f32: each source is a VGPR or SGPR pair; op_sel picks the dword for the low result, op_sel_hi
// for the high one. An inline constant or literal is taken as the same 32-bit value in both dwords (LLVM's
// assembler encodes constants that way; not checked against hardware).
void ReadPair(const Wave& w, const Inst& i, const Context& c, int index, uint32_t lo[kWaveSize],
              uint32_t hi[kWaveSize]) {
  const uint16_t code = i.src[index];
  if (code >= op::kVgpr0 && code != op::kNone) {
    std::copy(w.vgpr(code - op::kVgpr0), w.vgpr(code - op::kVgpr0) + kWaveSize, lo);
    std::copy(w.vgpr(code - op::kVgpr0 + 1), w.vgpr(code - op::kVgpr0 + 1) + kWaveSize, hi);
  } else if (code < 128) {
    std::fill(lo, lo + kWaveSize, w.s[code]);
    std::fill(hi, hi + kWaveSize, w.s[code + 1]);
  } else {
    const uint32_t v = ScalarSource32(w, i, c, code, Width::k32);
    std::fill(lo, lo + kWaveSize, v);
    std::fill(hi, hi + kWaveSize, v);
  }
}

template <int kOp, int kSources>  // kOp: 0 fma, 1 mul, 2 add
void PkF32(Wave& w, const Inst& i, Context& c) {
  const FpMode m(w.mode);
  uint32_t lo[3][kWaveSize], hi[3][kWaveSize];
  for (int k = 0; k < kSources; ++k) ReadPair(w, i, c, k, lo[k], hi[k]);
  uint64_t r[kWaveSize];
  const uint64_t mask = WriteMask(w, i);
  RoundingScope round(m.round32);
  ForEachLane(mask, [&](int l) {
    uint32_t out[2];
    for (int h = 0; h < 2; ++h) {
      float x[3] = {0, 0, 0};
      for (int k = 0; k < kSources; ++k) {
        const bool sel = (((h == 1 ? i.opsel_hi : i.opsel) >> k) & 1) != 0;
        uint32_t bits = sel ? hi[k][l] : lo[k][l];
        if ((((h == 1 ? i.neg_hi : i.neg) >> k) & 1) != 0) bits ^= 0x80000000u;
        x[k] = Flush32(m.in32, BitsF32(bits));
      }
      switch (kOp) {
        case 0: out[h] = F32Bits(FinishF32(i, m, std::fma(x[0], x[1], x[2]))); break;
        case 1: out[h] = F32Bits(FinishF32(i, m, x[0] * x[1])); break;
        default: out[h] = F32Bits(FinishF32(i, m, x[0] + x[1])); break;
      }
    }
    r[l] = uint64_t{out[0]} | (uint64_t{out[1]} << 32);
  });
  WriteV64(w, i, r, mask);
}

// v_pk_mov_b32: the low result is the dword of src0 that op_sel[0] picks, the high one the dword of src1 that
// op_sel[1] picks (how LLVM copies 64-bit registers on gfx90a).
void VPkMovB32(Wave& w, const Inst& i, Context& c) {
  uint32_t lo[2][kWaveSize], hi[2][kWaveSize];
  ReadPair(w, i, c, 0, lo[0], hi[0]);
  ReadPair(w, i, c, 1, lo[1], hi[1]);
  uint64_t r[kWaveSize];
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    const uint32_t a = (i.opsel & 1) != 0 ? hi[0][l] : lo[0][l];
    const uint32_t b = (i.opsel & 2) != 0 ? hi[1][l] : lo[1][l];
    r[l] = uint64_t{a} | (uint64_t{b} << 32);
  });
  WriteV64(w, i, r, mask);
}

// v_accvgpr_read_b32 vdst, asrc: an AGPR's lanes into a VGPR (the source field carries the AGPR's number).
void VAccvgprReadB32(Wave& w, const Inst& i, Context&) {
  const uint32_t* a = w.agpr(i.src[0] - op::kVgpr0);
  uint32_t* d = w.vgpr(i.dst - op::kVgpr0);
  ForEachLane(w.exec(), [&](int l) { d[l] = a[l]; });
}

// v_accvgpr_write_b32 adst, src: a VGPR (or, on gfx90a+, an inline constant or SGPR) into an AGPR named by the
// destination field. gfx908 spills VGPRs this way, gfx90a+ as well.
void VAccvgprWriteB32(Wave& w, const Inst& i, Context& c) {
  uint32_t v[kWaveSize];
  ReadU32(w, i, c, 0, v);
  uint32_t* a = w.agpr(i.dst - op::kVgpr0);
  ForEachLane(w.exec(), [&](int l) { a[l] = v[l]; });
}

}  // namespace

const OpInfo* Vop3pOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[0x00] = {"v_pk_mad_i16", &PkInt16<MadI16, 3>};
    t[0x58] = {"v_accvgpr_read_b32", &VAccvgprReadB32};
    t[0x59] = {"v_accvgpr_write_b32", &VAccvgprWriteB32};
    t[0x01] = {"v_pk_mul_lo_u16", &PkInt16<MulLoU16, 2>};
    t[0x02] = {"v_pk_add_i16", &PkInt16<AddI16, 2>};
    t[0x03] = {"v_pk_sub_i16", &PkInt16<SubI16, 2>};
    t[0x04] = {"v_pk_lshlrev_b16", &PkInt16<LshlRev, 2>};
    t[0x05] = {"v_pk_lshrrev_b16", &PkInt16<LshrRev, 2>};
    t[0x06] = {"v_pk_ashrrev_i16", &PkInt16<AshrRev, 2>};
    t[0x07] = {"v_pk_max_i16", &PkInt16<MaxI16, 2>};
    t[0x08] = {"v_pk_min_i16", &PkInt16<MinI16, 2>};
    t[0x09] = {"v_pk_mad_u16", &PkInt16<MadU16, 3>};
    t[0x0a] = {"v_pk_add_u16", &PkInt16<AddU16, 2>};
    t[0x0b] = {"v_pk_sub_u16", &PkInt16<SubU16, 2>};
    t[0x0c] = {"v_pk_max_u16", &PkInt16<MaxU16, 2>};
    t[0x0d] = {"v_pk_min_u16", &PkInt16<MinU16, 2>};
    t[0x0e] = {"v_pk_fma_f16", &PkF16<Fma, 3>};
    t[0x0f] = {"v_pk_add_f16", &PkF16<Add, 2>};
    t[0x10] = {"v_pk_mul_f16", &PkF16<Mul, 2>};
    t[0x11] = {"v_pk_min_f16", &PkF16<Min, 2>};
    t[0x12] = {"v_pk_max_f16", &PkF16<Max, 2>};
    t[0x20] = {"v_fma_mix_f32", &VFmaMix<Mix::kF32>};
    t[0x21] = {"v_fma_mixlo_f16", &VFmaMix<Mix::kLo>};
    t[0x22] = {"v_fma_mixhi_f16", &VFmaMix<Mix::kHi>};
    t[0x23] = {"v_dot2_f32_f16", &VDot2F32F16};
    t[0x26] = {"v_dot2_i32_i16", &VDotInt<16, true>};
    t[0x27] = {"v_dot2_u32_u16", &VDotInt<16, false>};
    t[0x28] = {"v_dot4_i32_i8", &VDotInt<8, true>};
    t[0x29] = {"v_dot4_u32_u8", &VDotInt<8, false>};
    t[0x2a] = {"v_dot8_i32_i4", &VDotInt<4, true>};
    t[0x2b] = {"v_dot8_u32_u4", &VDotInt<4, false>};
    t[0x30] = {"v_pk_fma_f32", &PkF32<0, 3>};  // gfx90a+
    t[0x31] = {"v_pk_mul_f32", &PkF32<1, 2>};
    t[0x32] = {"v_pk_add_f32", &PkF32<2, 2>};
    t[0x33] = {"v_pk_mov_b32", &VPkMovB32};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
