// Decodes GFX9 instruction words into Inst (isa.h).
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_DECODER_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_DECODER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"

namespace hipmem::kfd_sim::gfx9 {

// The register files an instruction may name: VGPR and AGPR operands must start inside them.
struct RegisterLimits {
  uint32_t vgprs = 256;
  uint32_t agprs = 0;
};

// Decodes the instruction starting at words[0]; `available` is how many dwords may be read (at least 1).
// Returns kOutOfRange for an instruction longer than `available`; kInvalidArgument for a word that is no GFX9
// instruction, or one naming a VGPR or AGPR
// outside `limits` (an illegal instruction on the simulated GPU). An opcode the engine does not implement still
// decodes; its Inst::info is null or has no handler.
absl::StatusOr<Inst> Decode(const uint32_t* words, uint32_t available, Target target, const RegisterLimits& limits);

// A VALU instruction's register fields that do not name VGPRs: an AGPR source (`index` 0-2) or destination (the
// AGPR moves, MFMA by its acc bits), or an SGPR destination in the vdst field (v_readlane_b32, v_readfirstlane_b32).
bool SourceIsAgpr(const Inst& inst, int index, Target target);
bool DestinationIsAgpr(const Inst& inst, Target target);
bool DestinationIsScalar(const Inst& inst);

// Whether the instruction is a VALU one (VOP1, VOP2, VOPC, VOP3, VOP3P; DPP and SDWA forms included).
inline bool IsValu(const Inst& inst) { return inst.encoding >= Encoding::kVop2 && inst.encoding <= Encoding::kVop3p; }
// A vector instruction, the kind MODE.VSKIP skips: VALU or vector memory (DS, FLAT/GLOBAL/SCRATCH, MUBUF, MTBUF).
inline bool IsVector(const Inst& inst) { return inst.encoding >= Encoding::kVop2; }

// The encoding's name, as LLVM's disassembler groups them ("SOP2", "VOP3", "FLAT", ...).
const char* EncodingName(Encoding encoding);

// "s_add_u32" or, for an opcode without a handler, "<ENCODING> opcode N".
std::string Mnemonic(const Inst& inst);

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_DECODER_H_
