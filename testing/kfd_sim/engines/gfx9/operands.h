// Reading and writing an instruction's operands, for the handlers of every encoding family.
//
// Scalar sources resolve the whole source-field numbering (isa.h): registers, inline constants (whose float forms
// depend on the operand's width), the literal, the aperture registers, VCCZ/EXECZ/SCC. Vector sources fill all 64
// lanes (a scalar source is broadcast), applying the SDWA selection or the DPP lane permutation of an e32
// instruction that carries one; float readers then apply abs and neg. Writes touch only the lanes the write mask
// (EXEC, narrowed by DPP's row and bank masks) enables, and apply SDWA's destination selection.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_OPERANDS_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_OPERANDS_H_

#include <cstdint>
#include <string>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// How a source is read: its width picks the float inline constants' encoding; a 64-bit literal is zero-extended
// (kB64), sign-extended (kI64) or the high half of a double (kF64).
enum class Width : uint8_t { k16, k32, kB64, kI64, kF64 };

// A scalar source value (also a VALU source that is not a VGPR).
uint32_t ScalarSource32(const Wave& wave, const Inst& inst, const Context& context, uint16_t code,
                        Width width = Width::k32);
uint64_t ScalarSource64(const Wave& wave, const Inst& inst, const Context& context, uint16_t code,
                        Width width = Width::kB64);
// Writes a scalar destination (SGPRs, VCC, M0, EXEC, FLAT_SCRATCH, TTMP); other codes are ignored, as writes to
// read-only operands are on hardware.
void WriteScalar32(Wave& wave, uint16_t code, uint32_t value);
void WriteScalar64(Wave& wave, uint16_t code, uint64_t value);

// VGPR indexing mode (MODE.GPR_IDX_EN, set by s_set_gpr_idx_on): `inst` as the VALU executes it, its VGPR operands
// offset by the index in M0[7:0] where M0[15:12] enables them (bit 0 src0, 1 src1, 2 src2, 3 the destination). Per
// AMD's Vega/CDNA ISA guides ("VGPR Indexing Details"), the bits follow the operands the VALU receives: v_madmk's
// addend (its src1 field) is the VALU's src2; v_mac/v_fmac, and SDWA's preserved destination, read their
// destination under the destination's bit (the handlers read it through `dst`); an SGPR, constant or literal
// operand, and the SGPR destination of v_readlane/v_readfirstlane, are never offset. Returns false, `why` saying
// which, when an offset operand leaves the kernel's register file, which the guides call illegal (CLRX's notes say
// the hardware then substitutes v0; the simulated GPU stops the wave instead).
bool IndexVgprs(const Wave& wave, const Inst& inst, Target target, Inst* indexed, std::string* why);

// Whether source `index` reads the same value in every lane (it is no VGPR: an SGPR, a constant or the literal), so
// a handler may read it once.
inline bool IsUniform(const Inst& inst, int index) { return inst.src[index] < op::kVgpr0; }

// The lanes an instruction writes: EXEC, narrowed by the DPP masks of an e32 DPP instruction.
uint64_t WriteMask(const Wave& wave, const Inst& inst);

// All 64 lanes of source `index` (0-2) as raw 32-bit values (SDWA selection and DPP applied; no abs/neg).
void ReadU32(const Wave& wave, const Inst& inst, const Context& context, int index, uint32_t out[kWaveSize],
             Width width = Width::k32);
// As ReadU32, with abs then neg applied to the f32 sign bit.
void ReadF32(const Wave& wave, const Inst& inst, const Context& context, int index, float out[kWaveSize]);
// 64-bit sources: a VGPR pair (v[n:n+1]) or a scalar 64-bit source.
void ReadU64(const Wave& wave, const Inst& inst, const Context& context, int index, uint64_t out[kWaveSize],
             Width width = Width::kB64);
void ReadF64(const Wave& wave, const Inst& inst, const Context& context, int index, double out[kWaveSize]);
// 16-bit sources: the low half, or the high half when the instruction's op_sel bit for the source is set; f16
// readers apply abs/neg to bit 15.
void ReadU16(const Wave& wave, const Inst& inst, const Context& context, int index, uint16_t out[kWaveSize]);
void ReadF16Bits(const Wave& wave, const Inst& inst, const Context& context, int index, uint16_t out[kWaveSize]);

// Writes the lanes of `mask` of the VALU destination (SDWA destination selection applied).
void WriteV32(Wave& wave, const Inst& inst, const uint32_t value[kWaveSize], uint64_t mask);
void WriteV64(Wave& wave, const Inst& inst, const uint64_t value[kWaveSize], uint64_t mask);
// Writes 16 bits: the low half (preserving the high), or the high half when VOP3 op_sel[3] is set.
void WriteV16(Wave& wave, const Inst& inst, const uint16_t value[kWaveSize], uint64_t mask);

// Float results: the output modifier then the clamp, as the VOP3/SDWA bits ask.
float OutputModifiersF32(const Inst& inst, float value);
double OutputModifiersF64(const Inst& inst, double value);

inline uint32_t F32Bits(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}
inline float BitsF32(uint32_t u) {
  float f;
  __builtin_memcpy(&f, &u, 4);
  return f;
}
inline uint64_t F64Bits(double f) {
  uint64_t u;
  __builtin_memcpy(&u, &f, 8);
  return u;
}
inline double BitsF64(uint64_t u) {
  double f;
  __builtin_memcpy(&f, &u, 8);
  return f;
}

// Calls body(lane) for every lane set in `mask`, lowest first. A full wave takes a plain loop, which the compiler can
// vectorise.
template <typename Body>
inline void ForEachLane(uint64_t mask, Body body) {
  if (mask == ~uint64_t{0}) {
    for (int lane = 0; lane < kWaveSize; ++lane) body(lane);
    return;
  }
  while (mask != 0) {
    const int lane = __builtin_ctzll(mask);
    body(lane);
    mask &= mask - 1;
  }
}

// A lane mask from 64 per-lane bytes of 0 or 1 (lane l's bit from bits[l]), eight lanes per multiply: the multiply
// moves byte k's low bit to bit 56 + k and nothing carries, since every partial product lands on a bit of its own.
// For a whole wave's compare, whose result |= bit << lane loop the compiler cannot vectorise.
inline uint64_t PackLaneBits(const uint8_t bits[kWaveSize]) {
  uint64_t mask = 0;
  for (int k = 0; k < kWaveSize / 8; ++k) {
    uint64_t eight;
    __builtin_memcpy(&eight, bits + 8 * k, 8);
    mask |= ((eight * 0x0102040810204080ull) >> 56) << (8 * k);
  }
  return mask;
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_OPERANDS_H_
