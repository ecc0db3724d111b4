// VALU integer, bitwise, move and lane operations: VOP1/VOP2 in their e32, e64, SDWA and DPP forms and the
// VOP3-only integer opcodes, for gfx908, gfx90a and gfx942.
//
// Hardware facts the handlers follow (AMD's Vega/CDNA ISA guides, LLVM's AMDGPU backend):
// - The integer clamp bit saturates instead of wrapping (unsigned ops to [0, max], signed ops to the signed range).
// - GFX9's VOP2 16-bit integer ops (and the VOP3 legacy v_mad_legacy_u16/i16) zero the destination's high half;
//   the op_sel-capable VOP3 16-bit ops GFX9 added write the half op_sel[3] names and keep the other.
// - Shift amounts use only the low bits the width needs (4 for 16-bit, 5 for 32-bit, 6 for 64-bit).
// The integer dot products (v_dot*c_i32_*), v_pack_b32_f16 and v_cvt_pk_{u16_u32,i16_i32} live with the f16 and
// conversion families (valu_f16.cc, valu_convert.cc); valu_int_test.cc checks them too.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

constexpr uint32_t kU32Max = 0xffffffffu;

uint32_t SatU32(uint64_t v, bool clamp) { return clamp && v > kU32Max ? kU32Max : static_cast<uint32_t>(v); }
uint32_t SatI32(int64_t v, bool clamp) {
  if (clamp) v = std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  return static_cast<uint32_t>(v);
}
uint16_t SatU16(int64_t v, bool clamp) {
  if (clamp) v = std::clamp<int64_t>(v, 0, 0xffff);
  return static_cast<uint16_t>(v);
}
uint16_t SatI16(int64_t v, bool clamp) {
  if (clamp) v = std::clamp<int64_t>(v, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max());
  return static_cast<uint16_t>(v);
}
int32_t I24(uint32_t v) { return static_cast<int32_t>(v << 8) >> 8; }
int64_t I32(uint32_t v) { return static_cast<int32_t>(v); }
int64_t I16(uint16_t v) { return static_cast<int16_t>(v); }

// ---- Handler shapes local to this family (valu_common.h's IntOp2/IntOp3 serve the ops without a clamp). ----

// A 32-bit operation of `kSources` sources that honours the clamp bit.
template <uint32_t (*F)(uint32_t, uint32_t, uint32_t, bool), int kSources>
void U32Op(Wave& w, const Inst& i, Context& c) {
  uint32_t s[3][kWaveSize] = {};
  for (int k = 0; k < kSources; ++k) ReadU32(w, i, c, k, s[k]);
  uint32_t r[kWaveSize];
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = F(s[0][l], s[1][l], s[2][l], i.clamp); });
  WriteV32(w, i, r, mask);
}

// A 16-bit operation of `kSources` 16-bit sources (op_sel picks their halves). kPreserveHigh: the result goes to
// the half op_sel[3] names and the other half stays; otherwise the high half is zeroed (SDWA's dst_sel applies).
template <uint16_t (*F)(uint16_t, uint16_t, uint16_t, bool), int kSources, bool kPreserveHigh>
void U16Op(Wave& w, const Inst& i, Context& c) {
  uint16_t s[3][kWaveSize] = {};
  for (int k = 0; k < kSources; ++k) ReadU16(w, i, c, k, s[k]);
  const uint64_t mask = WriteMask(w, i);
  if constexpr (kPreserveHigh) {
    uint16_t r[kWaveSize];
    ForEachLane(mask, [&](int l) { r[l] = F(s[0][l], s[1][l], s[2][l], i.clamp); });
    WriteV16(w, i, r, mask);
  } else {
    uint32_t r[kWaveSize];
    ForEachLane(mask, [&](int l) { r[l] = F(s[0][l], s[1][l], s[2][l], i.clamp); });
    WriteV32(w, i, r, mask);
  }
}

// A 64-bit result from sources read at the widths the operation names (kU32/kU64 per source).
enum class W : uint8_t { kNone, k32, k64 };

// U64Op's common case, the address arithmetic of nearly every kernel (v_lshl_add_u64 base, shift, v[n:n+1];
// v_lshlrev_b64 shift, v[n:n+1]): every lane active, one VGPR-pair source and the rest uniform. Computed straight
// from and into the registers, without staging 64 lanes of every source; each lane reads its sources before it
// writes, so a destination overlapping the source pair is fine. False (nothing done) when the case does not apply.
template <uint64_t (*F)(uint64_t, uint64_t, uint64_t, bool), W kA, W kB, W kC>
bool U64InPlace(Wave& w, const Inst& i, Context& c) {
  const W widths[3] = {kA, kB, kC};
  if (w.exec() != ~uint64_t{0} || i.extra != Extra::kNone) return false;
  int pair = -1;
  uint64_t u[3] = {};
  for (int k = 0; k < 3; ++k) {
    if (widths[k] == W::kNone) continue;
    if (!IsUniform(i, k)) {
      if (widths[k] != W::k64 || pair >= 0) return false;
      pair = k;
    } else {
      u[k] = widths[k] == W::k64 ? ScalarSource64(w, i, c, i.src[k]) : ScalarSource32(w, i, c, i.src[k]);
    }
  }
  if (pair < 0) return false;
  const uint32_t* lo = w.vgpr(i.src[pair] - op::kVgpr0);
  const uint32_t* hi = w.vgpr(i.src[pair] - op::kVgpr0 + 1);
  uint32_t* dlo = w.vgpr(i.dst - op::kVgpr0);
  uint32_t* dhi = w.vgpr(i.dst - op::kVgpr0 + 1);
  const bool clamp = i.clamp;
  // The pair's position as a constant, so that the uniform operands are loop invariants the compiler hoists.
  auto run = [&](auto position) {
    constexpr int kPair = decltype(position)::value;
    for (int l = 0; l < kWaveSize; ++l) {
      const uint64_t x = uint64_t{lo[l]} | (uint64_t{hi[l]} << 32);
      const uint64_t r = F(kPair == 0 ? x : u[0], kPair == 1 ? x : u[1], kPair == 2 ? x : u[2], clamp);
      dlo[l] = static_cast<uint32_t>(r);
      dhi[l] = static_cast<uint32_t>(r >> 32);
    }
  };
  if (pair == 0) run(std::integral_constant<int, 0>{});
  if (pair == 1) run(std::integral_constant<int, 1>{});
  if (pair == 2) run(std::integral_constant<int, 2>{});
  return true;
}

template <uint64_t (*F)(uint64_t, uint64_t, uint64_t, bool), W kA, W kB, W kC>
void U64Op(Wave& w, const Inst& i, Context& c) {
  if (U64InPlace<F, kA, kB, kC>(w, i, c)) return;
  uint64_t s[3][kWaveSize];
  const W widths[3] = {kA, kB, kC};
  for (int k = 0; k < 3; ++k) {
    if (widths[k] == W::k64) {
      ReadU64(w, i, c, k, s[k]);
    } else if (widths[k] == W::k32) {
      uint32_t v[kWaveSize];
      ReadU32(w, i, c, k, v);
      std::copy(v, v + kWaveSize, s[k]);
    } else {
      std::fill(s[k], s[k] + kWaveSize, uint64_t{0});
    }
  }
  uint64_t r[kWaveSize];
  const uint64_t mask = WriteMask(w, i);
  const bool clamp = i.clamp;
  // A shift amount that is not a VGPR is one value for every lane: passed as one, the compiler vectorises the
  // shift (SSE2 has no per-lane 64-bit shift), which the address arithmetic of every kernel leans on.
  if (IsUniform(i, 0)) {
    const uint64_t a = s[0][0];
    ForEachLane(mask, [&](int l) { r[l] = F(a, s[1][l], s[2][l], clamp); });
  } else if (IsUniform(i, 1)) {
    const uint64_t b = s[1][0];
    ForEachLane(mask, [&](int l) { r[l] = F(s[0][l], b, s[2][l], clamp); });
  } else {
    ForEachLane(mask, [&](int l) { r[l] = F(s[0][l], s[1][l], s[2][l], clamp); });
  }
  WriteV64(w, i, r, mask);
}

// ---- 32-bit arithmetic. ----

uint32_t AddU32(uint32_t a, uint32_t b, uint32_t, bool clamp) { return SatU32(uint64_t{a} + b, clamp); }
uint32_t SubU32(uint32_t a, uint32_t b, uint32_t, bool clamp) { return clamp && b > a ? 0 : a - b; }
uint32_t SubRevU32(uint32_t a, uint32_t b, uint32_t, bool clamp) { return SubU32(b, a, 0, clamp); }
uint32_t AddI32(uint32_t a, uint32_t b, uint32_t, bool clamp) { return SatI32(I32(a) + I32(b), clamp); }
uint32_t SubI32(uint32_t a, uint32_t b, uint32_t, bool clamp) { return SatI32(I32(a) - I32(b), clamp); }
uint32_t MulI24(uint32_t a, uint32_t b, uint32_t, bool clamp) { return SatI32(int64_t{I24(a)} * I24(b), clamp); }
uint32_t MulU24(uint32_t a, uint32_t b, uint32_t, bool clamp) {
  return SatU32(uint64_t{a & 0xffffff} * (b & 0xffffff), clamp);
}
uint32_t MadI24(uint32_t a, uint32_t b, uint32_t d, bool clamp) {
  return SatI32(int64_t{I24(a)} * I24(b) + I32(d), clamp);
}
uint32_t MadU24(uint32_t a, uint32_t b, uint32_t d, bool clamp) {
  return SatU32(uint64_t{a & 0xffffff} * (b & 0xffffff) + d, clamp);
}
uint32_t MulHiI24(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(static_cast<uint64_t>(int64_t{I24(a)} * I24(b)) >> 32);
}
uint32_t MulHiU24(uint32_t a, uint32_t b) { return static_cast<uint32_t>((uint64_t{a & 0xffffff} * (b & 0xffffff)) >> 32); }
uint32_t MulLo(uint32_t a, uint32_t b) { return a * b; }
uint32_t MulHiU32(uint32_t a, uint32_t b) { return static_cast<uint32_t>((uint64_t{a} * b) >> 32); }
uint32_t MulHiI32(uint32_t a, uint32_t b) { return static_cast<uint32_t>(static_cast<uint64_t>(I32(a) * I32(b)) >> 32); }
uint32_t MinI32(uint32_t a, uint32_t b) { return I32(a) < I32(b) ? a : b; }
uint32_t MaxI32(uint32_t a, uint32_t b) { return I32(a) > I32(b) ? a : b; }
uint32_t MinU32(uint32_t a, uint32_t b) { return std::min(a, b); }
uint32_t MaxU32(uint32_t a, uint32_t b) { return std::max(a, b); }

// ---- Bitwise and shifts. ----

uint32_t And(uint32_t a, uint32_t b) { return a & b; }
uint32_t Or(uint32_t a, uint32_t b) { return a | b; }
uint32_t Xor(uint32_t a, uint32_t b) { return a ^ b; }
uint32_t Xnor(uint32_t a, uint32_t b) { return ~(a ^ b); }
uint32_t LshlRev(uint32_t a, uint32_t b) { return b << (a & 31); }
uint32_t LshrRev(uint32_t a, uint32_t b) { return b >> (a & 31); }
uint32_t AshrRev(uint32_t a, uint32_t b) { return static_cast<uint32_t>(static_cast<int32_t>(b) >> (a & 31)); }
uint32_t Bfm(uint32_t a, uint32_t b) { return ((1u << (a & 31)) - 1) << (b & 31); }
uint32_t Bcnt(uint32_t a, uint32_t b) { return static_cast<uint32_t>(std::popcount(a)) + b; }
// ---- Three-source 32-bit operations. ----

uint32_t Add3(uint32_t a, uint32_t b, uint32_t d) { return a + b + d; }
uint32_t LshlAdd(uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) + d; }
uint32_t AddLshl(uint32_t a, uint32_t b, uint32_t d) { return (a + b) << (d & 31); }
uint32_t LshlOr(uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) | d; }
uint32_t AndOr(uint32_t a, uint32_t b, uint32_t d) { return (a & b) | d; }
uint32_t Or3(uint32_t a, uint32_t b, uint32_t d) { return a | b | d; }
uint32_t Xad(uint32_t a, uint32_t b, uint32_t d) { return (a ^ b) + d; }
uint32_t Bfi(uint32_t a, uint32_t b, uint32_t d) { return (a & b) | (~a & d); }
uint32_t AlignBit(uint32_t a, uint32_t b, uint32_t d) {
  return static_cast<uint32_t>(((uint64_t{a} << 32) | b) >> (d & 31));
}
uint32_t AlignByte(uint32_t a, uint32_t b, uint32_t d) {
  return static_cast<uint32_t>(((uint64_t{a} << 32) | b) >> (8 * (d & 3)));
}
// Bitfield extract: `width` bits from `offset`; a field reaching past bit 31 takes what is there.
uint32_t BfeU(uint32_t a, uint32_t b, uint32_t d) {
  const uint32_t offset = b & 31, width = d & 31;
  if (width == 0) return 0;
  return (a >> offset) & ((1u << width) - 1);
}
uint32_t BfeI(uint32_t a, uint32_t b, uint32_t d) {
  const uint32_t offset = b & 31, width = d & 31;
  if (width == 0) return 0;
  if (offset + width >= 32) return static_cast<uint32_t>(static_cast<int32_t>(a) >> offset);
  return static_cast<uint32_t>(static_cast<int32_t>(a << (32 - offset - width)) >> (32 - width));
}
template <typename T>
T Med3(T a, T b, T d) {
  return std::max(std::min(a, b), std::min(std::max(a, b), d));
}
uint32_t Min3I(uint32_t a, uint32_t b, uint32_t d) { return MinI32(MinI32(a, b), d); }
uint32_t Max3I(uint32_t a, uint32_t b, uint32_t d) { return MaxI32(MaxI32(a, b), d); }
uint32_t Med3I(uint32_t a, uint32_t b, uint32_t d) {
  return static_cast<uint32_t>(Med3<int32_t>(static_cast<int32_t>(a), static_cast<int32_t>(b), static_cast<int32_t>(d)));
}
uint32_t Min3U(uint32_t a, uint32_t b, uint32_t d) { return std::min({a, b, d}); }
uint32_t Max3U(uint32_t a, uint32_t b, uint32_t d) { return std::max({a, b, d}); }
uint32_t Med3U(uint32_t a, uint32_t b, uint32_t d) { return Med3(a, b, d); }
// Per-byte rounded average; bit 0 of each byte of src2 is that byte's rounding increment.
uint32_t LerpU8(uint32_t a, uint32_t b, uint32_t d) {
  uint32_t r = 0;
  for (int k = 0; k < 32; k += 8) r |= ((((a >> k) & 0xff) + ((b >> k) & 0xff) + ((d >> k) & 1)) >> 1) << k;
  return r;
}
// Byte permute of {src0, src1} (bytes 0-3 from src1, 4-7 from src0) by the selectors in src2's bytes: 8-11 replicate
// the sign of bytes 1, 3, 5, 7; 12 is 0x00; 13 and up are 0xff.
uint32_t Perm(uint32_t a, uint32_t b, uint32_t d) {
  const uint64_t in = (uint64_t{a} << 32) | b;
  uint32_t r = 0;
  for (int k = 0; k < 4; ++k) {
    const uint32_t sel = (d >> (8 * k)) & 0xff;
    uint32_t byte;
    if (sel >= 13) {
      byte = 0xff;
    } else if (sel == 12) {
      byte = 0;
    } else if (sel >= 8) {
      byte = ((in >> (16 * (sel - 8) + 15)) & 1) != 0 ? 0xff : 0;
    } else {
      byte = (in >> (8 * sel)) & 0xff;
    }
    r |= byte << (8 * k);
  }
  return r;
}

// ---- Sums of absolute differences (the clamp saturates the accumulation). ----

uint32_t AbsDiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }
uint64_t SadBytes(uint32_t a, uint32_t b, bool masked) {
  uint64_t sum = 0;
  for (int k = 0; k < 32; k += 8) {
    const uint32_t y = (b >> k) & 0xff;
    if (!masked || y != 0) sum += AbsDiff((a >> k) & 0xff, y);
  }
  return sum;
}
uint32_t SadU8(uint32_t a, uint32_t b, uint32_t d, bool clamp) { return SatU32(SadBytes(a, b, false) + d, clamp); }
uint32_t SadHiU8(uint32_t a, uint32_t b, uint32_t d, bool clamp) {
  return SatU32((SadBytes(a, b, false) << 16) + d, clamp);
}
uint32_t MsadU8(uint32_t a, uint32_t b, uint32_t d, bool clamp) { return SatU32(SadBytes(a, b, true) + d, clamp); }
uint32_t SadU16(uint32_t a, uint32_t b, uint32_t d, bool clamp) {
  return SatU32(uint64_t{AbsDiff(a & 0xffff, b & 0xffff)} + AbsDiff(a >> 16, b >> 16) + d, clamp);
}
uint32_t SadU32(uint32_t a, uint32_t b, uint32_t d, bool clamp) { return SatU32(uint64_t{AbsDiff(a, b)} + d, clamp); }

// v_qsad_pk_u16_u8 / v_mqsad_pk_u16_u8: four SADs of src1 against the byte windows of the 64-bit src0 starting at
// bytes 0-3, each accumulated into (and clamped to) its 16-bit lane of src2.
template <bool kMasked>
uint64_t QsadPk(uint64_t a, uint64_t b, uint64_t d, bool clamp) {
  uint64_t r = 0;
  for (int k = 0; k < 4; ++k) {
    const uint64_t sum = SadBytes(static_cast<uint32_t>(a >> (8 * k)), static_cast<uint32_t>(b), kMasked) +
                         ((d >> (16 * k)) & 0xffff);
    r |= uint64_t{SatU16(static_cast<int64_t>(sum), clamp)} << (16 * k);
  }
  return r;
}

// ---- 16-bit operations. ----

uint16_t AddU16(uint16_t a, uint16_t b, uint16_t, bool clamp) { return SatU16(int64_t{a} + b, clamp); }
uint16_t SubU16(uint16_t a, uint16_t b, uint16_t, bool clamp) { return SatU16(int64_t{a} - b, clamp); }
uint16_t SubRevU16(uint16_t a, uint16_t b, uint16_t, bool clamp) { return SatU16(int64_t{b} - a, clamp); }
uint16_t AddI16(uint16_t a, uint16_t b, uint16_t, bool clamp) { return SatI16(I16(a) + I16(b), clamp); }
uint16_t SubI16(uint16_t a, uint16_t b, uint16_t, bool clamp) { return SatI16(I16(a) - I16(b), clamp); }
uint16_t MulLoU16(uint16_t a, uint16_t b, uint16_t, bool) { return static_cast<uint16_t>(a * b); }
uint16_t LshlRevB16(uint16_t a, uint16_t b, uint16_t, bool) { return static_cast<uint16_t>(b << (a & 15)); }
uint16_t LshrRevB16(uint16_t a, uint16_t b, uint16_t, bool) { return static_cast<uint16_t>(b >> (a & 15)); }
uint16_t AshrRevI16(uint16_t a, uint16_t b, uint16_t, bool) { return static_cast<uint16_t>(I16(b) >> (a & 15)); }
uint16_t MaxU16(uint16_t a, uint16_t b, uint16_t, bool) { return std::max(a, b); }
uint16_t MinU16(uint16_t a, uint16_t b, uint16_t, bool) { return std::min(a, b); }
uint16_t MaxI16(uint16_t a, uint16_t b, uint16_t, bool) { return I16(a) > I16(b) ? a : b; }
uint16_t MinI16(uint16_t a, uint16_t b, uint16_t, bool) { return I16(a) < I16(b) ? a : b; }
uint16_t MadU16(uint16_t a, uint16_t b, uint16_t d, bool clamp) { return SatU16(int64_t{a} * b + d, clamp); }
uint16_t MadI16(uint16_t a, uint16_t b, uint16_t d, bool clamp) { return SatI16(I16(a) * I16(b) + I16(d), clamp); }
uint16_t Min3U16(uint16_t a, uint16_t b, uint16_t d, bool) { return std::min({a, b, d}); }
uint16_t Max3U16(uint16_t a, uint16_t b, uint16_t d, bool) { return std::max({a, b, d}); }
uint16_t Med3U16(uint16_t a, uint16_t b, uint16_t d, bool) { return Med3(a, b, d); }
uint16_t Min3I16(uint16_t a, uint16_t b, uint16_t d, bool) {
  return static_cast<uint16_t>(std::min({I16(a), I16(b), I16(d)}));
}
uint16_t Max3I16(uint16_t a, uint16_t b, uint16_t d, bool) {
  return static_cast<uint16_t>(std::max({I16(a), I16(b), I16(d)}));
}
uint16_t Med3I16(uint16_t a, uint16_t b, uint16_t d, bool) { return static_cast<uint16_t>(Med3(I16(a), I16(b), I16(d))); }

// v_mad_u32_u16 / v_mad_i32_i16: 16-bit factors (op_sel picks their halves) and a 32-bit addend and result.
template <bool kSigned>
void VMad32x16(Wave& w, const Inst& i, Context& c) {
  uint16_t a[kWaveSize], b[kWaveSize];
  uint32_t d[kWaveSize], r[kWaveSize];
  ReadU16(w, i, c, 0, a);
  ReadU16(w, i, c, 1, b);
  ReadU32(w, i, c, 2, d);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    r[l] = kSigned ? SatI32(I16(a[l]) * I16(b[l]) + I32(d[l]), i.clamp) : SatU32(uint64_t{a[l]} * b[l] + d[l], i.clamp);
  });
  WriteV32(w, i, r, mask);
}

// ---- VOP1. ----

uint32_t Not(uint32_t a, uint32_t) { return ~a; }
uint32_t Bfrev(uint32_t a, uint32_t) {
  uint32_t r = 0;
  for (int k = 0; k < 32; ++k) r |= ((a >> k) & 1) << (31 - k);
  return r;
}
// The find-first-bit ops answer 0xffffffff when there is no such bit.
uint32_t FfbhU32(uint32_t a, uint32_t) { return a == 0 ? kU32Max : static_cast<uint32_t>(std::countl_zero(a)); }
uint32_t FfblB32(uint32_t a, uint32_t) { return a == 0 ? kU32Max : static_cast<uint32_t>(std::countr_zero(a)); }
// The position (from bit 31) of the first bit that differs from the sign bit.
uint32_t FfbhI32(uint32_t a, uint32_t) {
  const uint32_t x = (a >> 31) != 0 ? ~a : a;
  return x == 0 ? kU32Max : static_cast<uint32_t>(std::countl_zero(x));
}
// Two i16 halves saturated to u8, packed into the low 16 bits.
uint32_t SatPkU8I16(uint32_t a, uint32_t) {
  const auto sat = [](uint32_t h) { return static_cast<uint32_t>(std::clamp<int64_t>(I16(static_cast<uint16_t>(h)), 0, 255)); };
  return sat(a) | (sat(a >> 16) << 8);
}

void VMovB32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize];
  ReadU32(w, i, c, 0, a);
  WriteV32(w, i, a, WriteMask(w, i));
}

// gfx942's v_mov_b64 (DPP on it permutes the pair as one; gfx90a+ allows row_newbcast there).
void VMovB64(Wave& w, const Inst& i, Context& c) {
  uint64_t a[kWaveSize];
  ReadU64(w, i, c, 0, a);
  WriteV64(w, i, a, WriteMask(w, i));
}

void VNop(Wave&, const Inst&, Context&) {}

// v_readfirstlane_b32: the first active lane's value (lane 0's when EXEC is zero) into an SGPR named by vdst.
void VReadfirstlaneB32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize];
  ReadU32(w, i, c, 0, a);
  const uint64_t exec = w.exec();
  WriteScalar32(w, static_cast<uint16_t>(i.dst - op::kVgpr0), a[exec == 0 ? 0 : std::countr_zero(exec)]);
}

// v_readlane_b32 sdst, vsrc, lane: one lane (src1 mod 64) whatever EXEC says.
void VReadlaneB32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize];
  ReadU32(w, i, c, 0, a);
  const uint32_t lane = ScalarSource32(w, i, c, i.src[1]) & 63;
  WriteScalar32(w, static_cast<uint16_t>(i.dst - op::kVgpr0), a[lane]);
}

// v_writelane_b32 vdst, ssrc, lane: one lane (src1 mod 64) of vdst whatever EXEC says.
void VWritelaneB32(Wave& w, const Inst& i, Context& c) {
  const uint32_t value = ScalarSource32(w, i, c, i.src[0]);
  const uint32_t lane = ScalarSource32(w, i, c, i.src[1]) & 63;
  w.vgpr(i.dst - op::kVgpr0)[lane] = value;
}

// v_swap_b32 vdst, vsrc: exchanges the two registers in the active lanes.
void VSwapB32(Wave& w, const Inst& i, Context&) {
  uint32_t* d = w.vgpr(i.dst - op::kVgpr0);
  uint32_t* s = w.vgpr(i.src[0] - op::kVgpr0);
  ForEachLane(w.exec(), [&](int l) { std::swap(d[l], s[l]); });
}

// v_accvgpr_mov_b32 adst, asrc (gfx90a+): both operands are AGPRs, whose numbers the VGPR fields carry.
void VAccvgprMovB32(Wave& w, const Inst& i, Context&) {
  uint32_t* d = w.agpr(i.dst - op::kVgpr0);
  const uint32_t* s = w.agpr(i.src[0] - op::kVgpr0);
  ForEachLane(w.exec(), [&](int l) { d[l] = s[l]; });
}

// v_mbcnt_lo/hi_u32_b32: src1 plus the bits of src0 that stand for lower-numbered lanes (the low or high half
// of the 64-lane mask), so a chain of the two counts the lanes below each lane.
template <bool kHigh>
void VMbcnt(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    const uint64_t below = (uint64_t{1} << l) - 1;
    const uint32_t half = static_cast<uint32_t>(kHigh ? below >> 32 : below);
    r[l] = static_cast<uint32_t>(std::popcount(a[l] & half)) + b[l];
  });
  WriteV32(w, i, r, mask);
}

// v_cndmask_b32: src1 where the mask (VCC, or the e64 form's SGPR pair) has the lane's bit, else src0. The e64
// form's abs and neg modifiers act on the sources' bit 31 as on an f32 (LLVM folds fabs/fneg of a select into them:
// `v_cndmask_b32_e64 v2, |v1|, v5, vcc`).
void VCndmaskB32(Wave& w, const Inst& i, Context& c) {
  float a[kWaveSize], b[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32(w, i, c, 0, a);
  ReadF32(w, i, c, 1, b);
  const uint64_t select = ScalarSource64(w, i, c, i.src[2]);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(((select >> l) & 1) != 0 ? b[l] : a[l]); });
  WriteV32(w, i, r, mask);
}

// v_add_co_u32 / v_addc_co_u32 / v_sub_co_u32 ...: 32-bit add or subtract with a carry (borrow) in and out, per
// lane, the carry-out mask going to VCC (e32) or an SGPR pair (e64); inactive lanes' bits are 0. The clamp
// saturates the value; the carry still reports the overflow.
template <bool kSub, bool kReverse, bool kCarryIn>
void VAddCo(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  const uint64_t carry_in = kCarryIn ? ScalarSource64(w, i, c, i.src[2]) : 0;
  const uint64_t mask = WriteMask(w, i);
  uint64_t carry_out = 0;
  ForEachLane(mask, [&](int l) {
    const uint64_t x = kReverse ? b[l] : a[l];
    const uint64_t y = kReverse ? a[l] : b[l];
    const uint64_t cin = (carry_in >> l) & 1;
    const bool out = kSub ? y + cin > x : x + y + cin > kU32Max;
    const uint64_t wide = kSub ? x - y - cin : x + y + cin;
    r[l] = i.clamp && out ? (kSub ? 0 : kU32Max) : static_cast<uint32_t>(wide);
    carry_out |= uint64_t{out} << l;
  });
  WriteV32(w, i, r, mask);
  WriteScalar64(w, i.sdst, carry_out);
}

// v_mad_u64_u32 / v_mad_i64_i32 (VOP3B): a 32x32 product plus a 64-bit addend, computed in 65 bits; bit 64 goes to
// the lane's bit of sdst (the unsigned carry; for the signed form, the 65-bit result's sign). The clamp saturates.
template <bool kSigned>
void VMad64(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize];
  uint64_t d[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  ReadU64(w, i, c, 2, d, kSigned ? Width::kI64 : Width::kB64);
  const uint64_t mask = WriteMask(w, i);
  uint64_t carry = 0;
  ForEachLane(mask, [&](int l) {
    __int128 wide;
    if (kSigned) {
      wide = static_cast<__int128>(I32(a[l]) * I32(b[l])) + static_cast<int64_t>(d[l]);
    } else {
      wide = static_cast<__int128>(static_cast<unsigned __int128>(uint64_t{a[l]} * b[l]) + d[l]);
    }
    carry |= static_cast<uint64_t>((wide >> 64) & 1) << l;
    if (i.clamp) {
      const __int128 lo = kSigned ? std::numeric_limits<int64_t>::min() : 0;
      const __int128 hi = kSigned ? static_cast<__int128>(std::numeric_limits<int64_t>::max())
                                  : static_cast<__int128>(std::numeric_limits<uint64_t>::max());
      wide = std::clamp(wide, lo, hi);
    }
    r[l] = static_cast<uint64_t>(wide);
  });
  WriteV64(w, i, r, mask);
  WriteScalar64(w, i.sdst, carry);
}

// v_mqsad_u32_u8: four masked SADs of src1 against the byte windows of the 64-bit src0, each accumulated into its
// dword of the 128-bit src2 and written to the four registers of vdst.
void VMqsadU32U8(Wave& w, const Inst& i, Context& c) {
  uint64_t a[kWaveSize];
  uint32_t b[kWaveSize];
  ReadU64(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  uint32_t acc[4][kWaveSize];
  const uint16_t code = i.src[2];
  for (int k = 0; k < 4; ++k) {
    if (code >= op::kVgpr0 && code != op::kNone) {
      const uint32_t* v = w.vgpr(code - op::kVgpr0 + k);
      std::copy(v, v + kWaveSize, acc[k]);
    } else {
      std::fill(acc[k], acc[k] + kWaveSize, code < 128 ? w.s[code + k] : ScalarSource32(w, i, c, code));
    }
  }
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) {
    for (int k = 0; k < 4; ++k) {
      const uint32_t window = static_cast<uint32_t>(a[l] >> (8 * k));
      w.vgpr(i.dst - op::kVgpr0 + k)[l] = SatU32(SadBytes(window, b[l], true) + acc[k][l], i.clamp);
    }
  });
}

// ---- 64-bit shifts and adds. ----

uint64_t LshlRevB64(uint64_t a, uint64_t b, uint64_t, bool) { return b << (a & 63); }
uint64_t LshrRevB64(uint64_t a, uint64_t b, uint64_t, bool) { return b >> (a & 63); }
uint64_t AshrRevI64(uint64_t a, uint64_t b, uint64_t, bool) {
  return static_cast<uint64_t>(static_cast<int64_t>(b) >> (a & 63));
}
// gfx942's v_lshl_add_u64: (src0 << src1[2:0]) + src2.
uint64_t LshlAddU64(uint64_t a, uint64_t b, uint64_t d, bool) { return (a << (b & 7)) + d; }

}  // namespace

void AddValuIntegerOps(ValuTable& t) {
  // VOP2 (and their VOP3 forms).
  t[kVop2Base + 0x00] = {"v_cndmask_b32", &VCndmaskB32};
  t[kVop2Base + 0x06] = {"v_mul_i32_i24", &U32Op<MulI24, 2>};
  t[kVop2Base + 0x07] = {"v_mul_hi_i32_i24", &IntOp2<MulHiI24>};
  t[kVop2Base + 0x08] = {"v_mul_u32_u24", &U32Op<MulU24, 2>};
  t[kVop2Base + 0x09] = {"v_mul_hi_u32_u24", &IntOp2<MulHiU24>};
  t[kVop2Base + 0x0c] = {"v_min_i32", &IntOp2<MinI32>};
  t[kVop2Base + 0x0d] = {"v_max_i32", &IntOp2<MaxI32>};
  t[kVop2Base + 0x0e] = {"v_min_u32", &IntOp2<MinU32>};
  t[kVop2Base + 0x0f] = {"v_max_u32", &IntOp2<MaxU32>};
  t[kVop2Base + 0x10] = {"v_lshrrev_b32", &IntOp2<LshrRev>};
  t[kVop2Base + 0x11] = {"v_ashrrev_i32", &IntOp2<AshrRev>};
  t[kVop2Base + 0x12] = {"v_lshlrev_b32", &IntOp2<LshlRev>};
  t[kVop2Base + 0x13] = {"v_and_b32", &IntOp2<And>};
  t[kVop2Base + 0x14] = {"v_or_b32", &IntOp2<Or>};
  t[kVop2Base + 0x15] = {"v_xor_b32", &IntOp2<Xor>};
  t[kVop2Base + 0x19] = {"v_add_co_u32", &VAddCo<false, false, false>};
  t[kVop2Base + 0x1a] = {"v_sub_co_u32", &VAddCo<true, false, false>};
  t[kVop2Base + 0x1b] = {"v_subrev_co_u32", &VAddCo<true, true, false>};
  t[kVop2Base + 0x1c] = {"v_addc_co_u32", &VAddCo<false, false, true>};
  t[kVop2Base + 0x1d] = {"v_subb_co_u32", &VAddCo<true, false, true>};
  t[kVop2Base + 0x1e] = {"v_subbrev_co_u32", &VAddCo<true, true, true>};
  t[kVop2Base + 0x26] = {"v_add_u16", &U16Op<AddU16, 2, false>};
  t[kVop2Base + 0x27] = {"v_sub_u16", &U16Op<SubU16, 2, false>};
  t[kVop2Base + 0x28] = {"v_subrev_u16", &U16Op<SubRevU16, 2, false>};
  t[kVop2Base + 0x29] = {"v_mul_lo_u16", &U16Op<MulLoU16, 2, false>};
  t[kVop2Base + 0x2a] = {"v_lshlrev_b16", &U16Op<LshlRevB16, 2, false>};
  t[kVop2Base + 0x2b] = {"v_lshrrev_b16", &U16Op<LshrRevB16, 2, false>};
  t[kVop2Base + 0x2c] = {"v_ashrrev_i16", &U16Op<AshrRevI16, 2, false>};
  t[kVop2Base + 0x2f] = {"v_max_u16", &U16Op<MaxU16, 2, false>};
  t[kVop2Base + 0x30] = {"v_max_i16", &U16Op<MaxI16, 2, false>};
  t[kVop2Base + 0x31] = {"v_min_u16", &U16Op<MinU16, 2, false>};
  t[kVop2Base + 0x32] = {"v_min_i16", &U16Op<MinI16, 2, false>};
  t[kVop2Base + 0x34] = {"v_add_u32", &U32Op<AddU32, 2>};
  t[kVop2Base + 0x35] = {"v_sub_u32", &U32Op<SubU32, 2>};
  t[kVop2Base + 0x36] = {"v_subrev_u32", &U32Op<SubRevU32, 2>};
  t[kVop2Base + 0x3d] = {"v_xnor_b32", &IntOp2<Xnor>};

  // VOP1.
  t[kVop1Base + 0x00] = {"v_nop", &VNop};
  t[kVop1Base + 0x01] = {"v_mov_b32", &VMovB32};
  t[kVop1Base + 0x02] = {"v_readfirstlane_b32", &VReadfirstlaneB32};
  t[kVop1Base + 0x2b] = {"v_not_b32", &IntOp2<Not>};
  t[kVop1Base + 0x2c] = {"v_bfrev_b32", &IntOp2<Bfrev>};
  t[kVop1Base + 0x2d] = {"v_ffbh_u32", &IntOp2<FfbhU32>};
  t[kVop1Base + 0x2e] = {"v_ffbl_b32", &IntOp2<FfblB32>};
  t[kVop1Base + 0x2f] = {"v_ffbh_i32", &IntOp2<FfbhI32>};
  t[kVop1Base + 0x38] = {"v_mov_b64", &VMovB64};  // gfx942
  t[kVop1Base + 0x4f] = {"v_sat_pk_u8_i16", &IntOp2<SatPkU8I16>};
  t[kVop1Base + 0x51] = {"v_swap_b32", &VSwapB32};
  t[kVop1Base + 0x52] = {"v_accvgpr_mov_b32", &VAccvgprMovB32};  // gfx90a+

  // VOP3-only.
  t[0x1c2] = {"v_mad_i32_i24", &U32Op<MadI24, 3>};
  t[0x1c3] = {"v_mad_u32_u24", &U32Op<MadU24, 3>};
  t[0x1c8] = {"v_bfe_u32", &IntOp3<BfeU>};
  t[0x1c9] = {"v_bfe_i32", &IntOp3<BfeI>};
  t[0x1ca] = {"v_bfi_b32", &IntOp3<Bfi>};
  t[0x1cd] = {"v_lerp_u8", &IntOp3<LerpU8>};
  t[0x1ce] = {"v_alignbit_b32", &IntOp3<AlignBit>};
  t[0x1cf] = {"v_alignbyte_b32", &IntOp3<AlignByte>};
  t[0x1d1] = {"v_min3_i32", &IntOp3<Min3I>};
  t[0x1d2] = {"v_min3_u32", &IntOp3<Min3U>};
  t[0x1d4] = {"v_max3_i32", &IntOp3<Max3I>};
  t[0x1d5] = {"v_max3_u32", &IntOp3<Max3U>};
  t[0x1d7] = {"v_med3_i32", &IntOp3<Med3I>};
  t[0x1d8] = {"v_med3_u32", &IntOp3<Med3U>};
  t[0x1d9] = {"v_sad_u8", &U32Op<SadU8, 3>};
  t[0x1da] = {"v_sad_hi_u8", &U32Op<SadHiU8, 3>};
  t[0x1db] = {"v_sad_u16", &U32Op<SadU16, 3>};
  t[0x1dc] = {"v_sad_u32", &U32Op<SadU32, 3>};
  t[0x1e4] = {"v_msad_u8", &U32Op<MsadU8, 3>};
  t[0x1e5] = {"v_qsad_pk_u16_u8", &U64Op<QsadPk<false>, W::k64, W::k32, W::k64>};
  t[0x1e6] = {"v_mqsad_pk_u16_u8", &U64Op<QsadPk<true>, W::k64, W::k32, W::k64>};
  t[0x1e7] = {"v_mqsad_u32_u8", &VMqsadU32U8};
  t[0x1e8] = {"v_mad_u64_u32", &VMad64<false>};
  t[0x1e9] = {"v_mad_i64_i32", &VMad64<true>};
  t[0x1eb] = {"v_mad_legacy_u16", &U16Op<MadU16, 3, false>};
  t[0x1ec] = {"v_mad_legacy_i16", &U16Op<MadI16, 3, false>};
  t[0x1ed] = {"v_perm_b32", &IntOp3<Perm>};
  t[0x1f1] = {"v_mad_u32_u16", &VMad32x16<false>};
  t[0x1f2] = {"v_mad_i32_i16", &VMad32x16<true>};
  t[0x1f3] = {"v_xad_u32", &IntOp3<Xad>};
  t[0x1f5] = {"v_min3_i16", &U16Op<Min3I16, 3, true>};
  t[0x1f6] = {"v_min3_u16", &U16Op<Min3U16, 3, true>};
  t[0x1f8] = {"v_max3_i16", &U16Op<Max3I16, 3, true>};
  t[0x1f9] = {"v_max3_u16", &U16Op<Max3U16, 3, true>};
  t[0x1fb] = {"v_med3_i16", &U16Op<Med3I16, 3, true>};
  t[0x1fc] = {"v_med3_u16", &U16Op<Med3U16, 3, true>};
  t[0x1fd] = {"v_lshl_add_u32", &IntOp3<LshlAdd>};
  t[0x1fe] = {"v_add_lshl_u32", &IntOp3<AddLshl>};
  t[0x1ff] = {"v_add3_u32", &IntOp3<Add3>};
  t[0x200] = {"v_lshl_or_b32", &IntOp3<LshlOr>};
  t[0x201] = {"v_and_or_b32", &IntOp3<AndOr>};
  t[0x202] = {"v_or3_b32", &IntOp3<Or3>};
  t[0x204] = {"v_mad_u16", &U16Op<MadU16, 3, true>};
  t[0x205] = {"v_mad_i16", &U16Op<MadI16, 3, true>};
  t[0x208] = {"v_lshl_add_u64", &U64Op<LshlAddU64, W::k64, W::k32, W::k64>};  // gfx942
  t[0x285] = {"v_mul_lo_u32", &IntOp2<MulLo>};
  t[0x286] = {"v_mul_hi_u32", &IntOp2<MulHiU32>};
  t[0x287] = {"v_mul_hi_i32", &IntOp2<MulHiI32>};
  t[0x289] = {"v_readlane_b32", &VReadlaneB32};
  t[0x28a] = {"v_writelane_b32", &VWritelaneB32};
  t[0x28b] = {"v_bcnt_u32_b32", &IntOp2<Bcnt>};
  t[0x28c] = {"v_mbcnt_lo_u32_b32", &VMbcnt<false>};
  t[0x28d] = {"v_mbcnt_hi_u32_b32", &VMbcnt<true>};
  t[0x28f] = {"v_lshlrev_b64", &U64Op<LshlRevB64, W::k32, W::k64, W::kNone>};
  t[0x290] = {"v_lshrrev_b64", &U64Op<LshrRevB64, W::k32, W::k64, W::kNone>};
  t[0x291] = {"v_ashrrev_i64", &U64Op<AshrRevI64, W::k32, W::k64, W::kNone>};
  t[0x293] = {"v_bfm_b32", &IntOp2<Bfm>};
  t[0x29c] = {"v_add_i32", &U32Op<AddI32, 2>};
  t[0x29d] = {"v_sub_i32", &U32Op<SubI32, 2>};
  t[0x29e] = {"v_add_i16", &U16Op<AddI16, 2, true>};
  t[0x29f] = {"v_sub_i16", &U16Op<SubI16, 2, true>};
}

}  // namespace hipmem::kfd_sim::gfx9
