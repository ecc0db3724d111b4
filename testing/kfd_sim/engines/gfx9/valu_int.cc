// VALU integer, bitwise, move and lane operations.
#include <cmath>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

uint32_t Add(uint32_t a, uint32_t b) { return a + b; }
uint32_t Sub(uint32_t a, uint32_t b) { return a - b; }
uint32_t SubRev(uint32_t a, uint32_t b) { return b - a; }
uint32_t And(uint32_t a, uint32_t b) { return a & b; }
uint32_t Or(uint32_t a, uint32_t b) { return a | b; }
uint32_t Xor(uint32_t a, uint32_t b) { return a ^ b; }
uint32_t LshlRev(uint32_t a, uint32_t b) { return b << (a & 31); }
uint32_t LshrRev(uint32_t a, uint32_t b) { return b >> (a & 31); }
uint32_t AshrRev(uint32_t a, uint32_t b) { return static_cast<uint32_t>(static_cast<int32_t>(b) >> (a & 31)); }
uint32_t MulLo(uint32_t a, uint32_t b) { return a * b; }
uint32_t Add3(uint32_t a, uint32_t b, uint32_t d) { return a + b + d; }
uint32_t LshlAdd(uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) + d; }
uint32_t LshlOr(uint32_t a, uint32_t b, uint32_t d) { return (a << (b & 31)) | d; }
uint32_t AndOr(uint32_t a, uint32_t b, uint32_t d) { return (a & b) | d; }

void VMovB32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize];
  ReadU32(w, i, c, 0, a);
  WriteV32(w, i, a, WriteMask(w, i));
}

void VNop(Wave&, const Inst&, Context&) {}

// v_readfirstlane_b32: the first active lane's value (lane 0's when EXEC is zero) into an SGPR named by vdst.
void VReadfirstlaneB32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize];
  ReadU32(w, i, c, 0, a);
  const uint64_t exec = w.exec();
  WriteScalar32(w, static_cast<uint16_t>(i.dst - op::kVgpr0), a[exec == 0 ? 0 : __builtin_ctzll(exec)]);
}

// v_cndmask_b32: src1 where the mask (VCC, or the e64 form's SGPR pair) has the lane's bit, else src0.
void VCndmaskB32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  const uint64_t select = ScalarSource64(w, i, c, i.src[2]);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = ((select >> l) & 1) != 0 ? b[l] : a[l]; });
  WriteV32(w, i, r, mask);
}

// v_add_co_u32 / v_addc_co_u32 / v_sub_co_u32 ...: 32-bit add or subtract with a carry (borrow) in and out, per
// lane, the carry-out mask going to VCC (e32) or an SGPR pair (e64); inactive lanes' bits are 0.
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
    uint64_t wide;
    bool out;
    if (kSub) {
      wide = x - y - cin;
      out = y + cin > x;
    } else {
      wide = x + y + cin;
      out = (wide >> 32) != 0;
    }
    r[l] = static_cast<uint32_t>(wide);
    carry_out |= uint64_t{out} << l;
  });
  WriteV32(w, i, r, mask);
  WriteScalar64(w, i.sdst, carry_out);
}

// v_lshlrev_b64 (shift in src0, value in src1) and gfx942's v_lshl_add_u64 (src0 << src1 + src2).
void VLshlrevB64(Wave& w, const Inst& i, Context& c) {
  uint32_t s[kWaveSize];
  uint64_t v[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, s);
  ReadU64(w, i, c, 1, v);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = v[l] << (s[l] & 63); });
  WriteV64(w, i, r, mask);
}
void VLshlAddU64(Wave& w, const Inst& i, Context& c) {
  uint64_t a[kWaveSize], d[kWaveSize], r[kWaveSize];
  uint32_t s[kWaveSize];
  ReadU64(w, i, c, 0, a);
  ReadU32(w, i, c, 1, s);
  ReadU64(w, i, c, 2, d);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = (a[l] << (s[l] & 7)) + d[l]; });
  WriteV64(w, i, r, mask);
}

}  // namespace

void AddValuIntegerOps(ValuTable& t) {
  t[kVop2Base + 0x00] = {"v_cndmask_b32", &VCndmaskB32};
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
  t[kVop2Base + 0x34] = {"v_add_u32", &IntOp2<Add>};
  t[kVop2Base + 0x35] = {"v_sub_u32", &IntOp2<Sub>};
  t[kVop2Base + 0x36] = {"v_subrev_u32", &IntOp2<SubRev>};
  t[kVop1Base + 0x00] = {"v_nop", &VNop};
  t[kVop1Base + 0x01] = {"v_mov_b32", &VMovB32};
  t[kVop1Base + 0x02] = {"v_readfirstlane_b32", &VReadfirstlaneB32};
  t[0x1fd] = {"v_lshl_add_u32", &IntOp3<LshlAdd>};
  t[0x1ff] = {"v_add3_u32", &IntOp3<Add3>};
  t[0x200] = {"v_lshl_or_b32", &IntOp3<LshlOr>};
  t[0x201] = {"v_and_or_b32", &IntOp3<AndOr>};
  t[0x208] = {"v_lshl_add_u64", &VLshlAddU64};  // gfx942
  t[0x285] = {"v_mul_lo_u32", &IntOp2<MulLo>};
  t[0x28f] = {"v_lshlrev_b64", &VLshlrevB64};
}

}  // namespace hipmem::kfd_sim::gfx9
