// What the VALU's families share: handlers templated on a per-lane operation, for 32-bit integer and f32 ops of
// two or three sources and for compares. The VOP3 opcode table (valu.cc) is filled by one function per family.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_COMMON_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_COMMON_H_

#include <array>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

using ValuTable = std::array<OpInfo, 1024>;

// Each fills its opcodes into the VOP3-space table (valu_int.cc, valu_cmp.cc, valu_float.cc).
void AddValuIntegerOps(ValuTable& t);
void AddValuCompareOps(ValuTable& t);
void AddValuFloatOps(ValuTable& t);
void AddValuF16Ops(ValuTable& t);
void AddValuConvertOps(ValuTable& t);
void AddValuFloatCompareOps(ValuTable& t);


// A 32-bit integer operation of two sources.
template <uint32_t (*F)(uint32_t, uint32_t)>
void IntOp2(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = F(a[l], b[l]); });
  WriteV32(w, i, r, mask);
}

// A 32-bit integer operation of three sources (VOP3-only ops such as v_add3_u32).
template <uint32_t (*F)(uint32_t, uint32_t, uint32_t)>
void IntOp3(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize], d[kWaveSize], r[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  ReadU32(w, i, c, 2, d);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = F(a[l], b[l], d[l]); });
  WriteV32(w, i, r, mask);
}

// A float operation of two f32 sources, output modifiers applied.
template <float (*F)(float, float)>
void F32Op2(Wave& w, const Inst& i, Context& c) {
  float a[kWaveSize], b[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32(w, i, c, 0, a);
  ReadF32(w, i, c, 1, b);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(OutputModifiersF32(i, F(a[l], b[l]))); });
  WriteV32(w, i, r, mask);
}

template <float (*F)(float, float, float)>
void F32Op3(Wave& w, const Inst& i, Context& c) {
  float a[kWaveSize], b[kWaveSize], d[kWaveSize];
  uint32_t r[kWaveSize];
  ReadF32(w, i, c, 0, a);
  ReadF32(w, i, c, 1, b);
  ReadF32(w, i, c, 2, d);
  const uint64_t mask = WriteMask(w, i);
  ForEachLane(mask, [&](int l) { r[l] = F32Bits(OutputModifiersF32(i, F(a[l], b[l], d[l]))); });
  WriteV32(w, i, r, mask);
}

// A compare: writes the lanes' verdicts (bit per lane; inactive lanes 0) to the scalar destination (VCC for e32).
template <bool (*F)(uint32_t, uint32_t)>
void CmpU32(Wave& w, const Inst& i, Context& c) {
  uint32_t a[kWaveSize], b[kWaveSize];
  ReadU32(w, i, c, 0, a);
  ReadU32(w, i, c, 1, b);
  uint64_t result = 0;
  ForEachLane(w.exec(), [&](int l) { result |= uint64_t{F(a[l], b[l])} << l; });
  WriteScalar64(w, i.sdst, result);
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_COMMON_H_
