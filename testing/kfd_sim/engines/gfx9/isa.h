// The GFX9 (Vega / CDNA: gfx908, gfx90a, gfx942) instruction set as the simulated compute units decode it.
//
// Plays the shader sequencer's instruction buffer: a 32- or 64-bit instruction word (plus a trailing 32-bit
// literal where a source names 255) decoded once into an `Inst` whose fields are the encoding's own, then
// executed by the handler its opcode table names (one table per encoding family, in the family's .cc file).
// Encodings and field layouts follow AMD's Vega and CDNA ISA guides and are checked against LLVM's assembler
// (llvm-mc-19 -show-encoding) in decoder_test.cc.
//
// Operands live in one numbering, the 9-bit source field's: 0-101 SGPRs, 102/103 FLAT_SCRATCH, 104/105
// XNACK_MASK, 106/107 VCC, 108-123 TTMP, 124 M0, 126/127 EXEC, 128-208 inline integers, 235-238 the aperture
// bases and limits, 240-248 inline floats, 251 VCCZ, 252 EXECZ, 253 SCC, 255 literal, 256-511 VGPRs.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_ISA_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_ISA_H_

#include <cstdint>

namespace hipmem::kfd_sim::gfx9 {

inline constexpr int kWaveSize = 64;

// The targets the engine runs; they differ in a few encodings and in what the kernel descriptor means.
enum class Target : uint8_t {
  kGfx908,  // MI100: separate AGPR file, unpacked work-item ids
  kGfx90a,  // MI200: unified VGPR/AGPR file (accum_offset), packed work-item ids, ACC bit in memory ops
  kGfx942,  // MI300: as gfx90a, plus architected flat scratch and SC0/SC1/NT cache bits
};

// Operand codes (the source-field numbering above).
namespace op {
inline constexpr uint16_t kSgprLast = 101;
inline constexpr uint16_t kFlatScratchLo = 102;
inline constexpr uint16_t kFlatScratchHi = 103;
inline constexpr uint16_t kXnackMaskLo = 104;
inline constexpr uint16_t kVccLo = 106;
inline constexpr uint16_t kVccHi = 107;
inline constexpr uint16_t kTtmp0 = 108;
inline constexpr uint16_t kM0 = 124;
inline constexpr uint16_t kExecLo = 126;
inline constexpr uint16_t kExecHi = 127;
inline constexpr uint16_t kZero = 128;
inline constexpr uint16_t kIntPosLast = 192;  // 129..192 are 1..64
inline constexpr uint16_t kIntNegLast = 208;  // 193..208 are -1..-16
inline constexpr uint16_t kSharedBase = 235;
inline constexpr uint16_t kSharedLimit = 236;
inline constexpr uint16_t kPrivateBase = 237;
inline constexpr uint16_t kPrivateLimit = 238;
inline constexpr uint16_t kPopsExitingWaveId = 239;
inline constexpr uint16_t kFloatFirst = 240;  // 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0, 1/(2*pi)
inline constexpr uint16_t kFloatLast = 248;
inline constexpr uint16_t kSdwa = 249;
inline constexpr uint16_t kDpp = 250;
inline constexpr uint16_t kVccz = 251;
inline constexpr uint16_t kExecz = 252;
inline constexpr uint16_t kScc = 253;
inline constexpr uint16_t kLiteral = 255;
inline constexpr uint16_t kVgpr0 = 256;
inline constexpr uint16_t kNone = 0xffff;  // an operand the instruction does not have
}  // namespace op

enum class Encoding : uint8_t {
  kSop2,
  kSopk,
  kSop1,
  kSopc,
  kSopp,
  kSmem,
  kVop2,   // e32 forms; their opcodes are renumbered into the VOP3 space (kVop2Base + op)
  kVop1,   // kVop1Base + op
  kVopc,   // op (VOPC occupies VOP3 opcodes 0-255)
  kVop3,   // VOP3A and VOP3B
  kVop3p,  // packed math, and MFMA on gfx908+
  kDs,
  kFlat,  // FLAT, GLOBAL and SCRATCH (Inst::seg)
  kMubuf,
  kMtbuf,
};

inline constexpr uint16_t kVop2Base = 0x100;
inline constexpr uint16_t kVop1Base = 0x140;

// The extra sub-dword or lane-permuting word of an e32 VALU instruction whose src0 field says SDWA or DPP.
enum class Extra : uint8_t { kNone, kSdwa, kDpp };

struct Wave;
struct Context;
struct Inst;

// Executes one decoded instruction on one wave. The interpreter has already moved wave.pc past the instruction;
// a branch overwrites it. A handler reports faults and illegal operands through the Context.
using Handler = void (*)(Wave& wave, const Inst& inst, Context& context);

struct OpInfo {
  const char* name = nullptr;  // LLVM's mnemonic
  Handler handler = nullptr;   // null: the engine does not implement the opcode (an illegal-instruction error)
};

// One decoded instruction. Fields an encoding does not have are left at their defaults.
struct Inst {
  Encoding encoding = Encoding::kSopp;
  Extra extra = Extra::kNone;
  uint8_t dwords = 1;  // the instruction's length including its literal
  uint16_t op = 0;     // opcode; VALU e32 forms renumbered into the VOP3 space
  const OpInfo* info = nullptr;

  // Operands in the source-field numbering (VGPR n is 256 + n); op::kNone where absent.
  uint16_t src[3] = {op::kNone, op::kNone, op::kNone};
  uint16_t dst = op::kNone;   // SALU sdst, SMEM sdata, VALU vdst (256 + n), memory vdst (256 + n)
  uint16_t sdst = op::kNone;  // VOP3B's and VOPC's scalar destination (carry out / compare mask)
  uint32_t literal = 0;       // the trailing literal, when an operand names op::kLiteral
  int32_t imm = 0;            // SOPK/SOPP simm16 (sign-extended), SMEM/FLAT/MUBUF/DS offset

  // VOP3/VOP3P/SDWA/DPP modifiers; bit i applies to src[i].
  uint8_t abs = 0;
  uint8_t neg = 0;
  uint8_t neg_hi = 0;     // VOP3P
  uint8_t opsel = 0;      // VOP3 (bits 0-2 sources, bit 3 destination) and VOP3P
  uint8_t opsel_hi = 0;   // VOP3P
  uint8_t omod = 0;       // 0 none, 1 *2, 2 *4, 3 /2
  bool clamp = false;

  // SDWA: selects per source and for the destination (0-3 bytes, 4-5 words, 6 dword), sign extension.
  uint8_t sdwa_sel[2] = {6, 6};
  uint8_t sdwa_dst_sel = 6;
  uint8_t sdwa_dst_unused = 0;  // 0 pad with zeros, 1 sign-extend, 2 preserve
  uint8_t sdwa_sext = 0;
  // DPP
  uint16_t dpp_ctrl = 0;
  uint8_t dpp_row_mask = 0xf;
  uint8_t dpp_bank_mask = 0xf;
  bool dpp_bound_ctrl = false;

  // Memory instructions.
  uint16_t addr = op::kNone;   // VGPR address (256 + n) for DS/FLAT/MUBUF vaddr
  uint16_t data0 = op::kNone;  // VGPR data (256 + n); the store or atomic source
  uint16_t data1 = op::kNone;  // DS second data
  uint16_t saddr = op::kNone;  // GLOBAL/SCRATCH scalar base (op::kNone for "off"); SMEM sbase; MUBUF srsrc
  uint16_t soffset = op::kNone;  // SMEM/MUBUF scalar offset
  uint8_t offset0 = 0;         // DS
  uint8_t offset1 = 0;         // DS
  uint8_t seg = 0;             // FLAT: 0 flat, 1 scratch, 2 global
  bool glc = false;            // also gfx942's SC0
  bool slc = false;            // also gfx942's NT
  bool sc1 = false;            // gfx942
  bool gds = false;
  bool offen = false;          // MUBUF
  bool idxen = false;          // MUBUF
  bool lds = false;            // MUBUF/FLAT load to LDS
  bool acc = false;            // gfx90a+: the data or destination VGPR is an AGPR
  bool sve = false;            // gfx942 SCRATCH: a VGPR address is present
  uint8_t dfmt = 0;            // MTBUF data format
  uint8_t nfmt = 0;            // MTBUF number format
  bool soffset_enable = false; // SMEM SOE
  bool imm_offset = false;     // SMEM IMM
};

// The opcode tables, one per family; each returns null for an opcode outside its table.
const OpInfo* Sop2Op(uint16_t op);
const OpInfo* SopkOp(uint16_t op);
const OpInfo* Sop1Op(uint16_t op);
const OpInfo* SopcOp(uint16_t op);
const OpInfo* SoppOp(uint16_t op);
const OpInfo* SmemOp(uint16_t op);
const OpInfo* ValuOp(uint16_t op);   // the VOP3 opcode space: VOPC, VOP2 and VOP1 renumbered, VOP3-only
const OpInfo* Vop3pOp(uint16_t op);
// MFMA (VOP3P-MAI, mfma.cc): the opcodes differ per target.
const OpInfo* MfmaOp(uint16_t op, Target target);
// VOP3P opcodes of the MAI form (MFMA/SMFMAC): all from 0x3e up but the AGPR moves.
inline bool IsMfmaOpcode(uint16_t op) { return op >= 0x3e && op != 0x58 && op != 0x59; }
const OpInfo* DsOp(uint16_t op);
const OpInfo* FlatOp(uint16_t op);   // FLAT, GLOBAL and SCRATCH share opcodes
const OpInfo* MubufOp(uint16_t op);
const OpInfo* MtbufOp(uint16_t op);  // buffer_format.cc

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_ISA_H_
