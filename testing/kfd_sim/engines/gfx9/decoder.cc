#include "testing/kfd_sim/engines/gfx9/decoder.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

int32_t SignExtend(uint32_t value, int bits) {
  const uint32_t m = 1u << (bits - 1);
  value &= (1u << bits) - 1;
  return static_cast<int32_t>((value ^ m) - m);
}

uint16_t Vgpr(uint32_t field) { return static_cast<uint16_t>(op::kVgpr0 + (field & 0xff)); }

// VOP2 opcodes whose 32-bit constant K follows the instruction whatever the sources say.
bool Vop2HasConstant(uint32_t op) {
  return op == 0x17 || op == 0x18 ||  // v_madmk_f32, v_madak_f32
         op == 0x24 || op == 0x25;    // v_madmk_f16, v_madak_f16
}

// VOP3 opcodes in the VOP3B form (a scalar carry or mask destination in bits 14:8, no abs/op_sel).
bool IsVop3b(uint32_t op) {
  return (op >= 0x119 && op <= 0x11e) ||  // v_add_co_u32 .. v_subbrev_co_u32
         op == 0x1e0 || op == 0x1e1 ||      // v_div_scale_f32/f64
         op == 0x1e8 || op == 0x1e9;        // v_mad_u64_u32, v_mad_i64_i32
}

absl::Status Truncated(uint32_t need) {
  return absl::OutOfRangeError(absl::StrCat("instruction needs ", need, " dwords past the end of the code"));
}

}  // namespace

const char* EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kSop2: return "SOP2";
    case Encoding::kSopk: return "SOPK";
    case Encoding::kSop1: return "SOP1";
    case Encoding::kSopc: return "SOPC";
    case Encoding::kSopp: return "SOPP";
    case Encoding::kSmem: return "SMEM";
    case Encoding::kVop2: return "VOP2";
    case Encoding::kVop1: return "VOP1";
    case Encoding::kVopc: return "VOPC";
    case Encoding::kVop3: return "VOP3";
    case Encoding::kVop3p: return "VOP3P";
    case Encoding::kDs: return "DS";
    case Encoding::kFlat: return "FLAT";
    case Encoding::kMubuf: return "MUBUF";
    case Encoding::kMtbuf: return "MTBUF";
  }
  return "?";
}

// The AGPR moves name AGPRs in VGPR fields: v_accvgpr_mov_b32 (VOP1, gfx90a+) both, v_accvgpr_read_b32 (VOP3P)
// its source, v_accvgpr_write_b32 (VOP3P) its destination. MFMA names AGPRs by its acc bits: A and B by
// op_sel_hi[0]/[1], C and D by ACC_CD (the clamp bit; always AGPRs on gfx908).
bool SourceIsAgpr(const Inst& i, int index, Target target) {
  const bool vop3p = i.encoding == Encoding::kVop3p;
  if (vop3p && IsMfmaOpcode(i.op)) {
    return index < 2 ? ((i.opsel_hi >> index) & 1) != 0 : target == Target::kGfx908 || i.clamp;
  }
  if (index != 0) return false;
  return (!vop3p && i.op == kVop1Base + 0x52) || (vop3p && i.op == 0x58);
}
bool DestinationIsAgpr(const Inst& i, Target target) {
  const bool vop3p = i.encoding == Encoding::kVop3p;
  if (vop3p && IsMfmaOpcode(i.op)) return target == Target::kGfx908 || i.clamp;
  return (!vop3p && i.op == kVop1Base + 0x52) || (vop3p && i.op == 0x59);
}
// v_readfirstlane_b32 and v_readlane_b32 name an SGPR in their vdst field.
bool DestinationIsScalar(const Inst& i) {
  return i.encoding != Encoding::kVop3p && (i.op == kVop1Base + 0x02 || i.op == 0x289);
}

std::string Mnemonic(const Inst& inst) {
  if (inst.info != nullptr && inst.info->name != nullptr) return inst.info->name;
  return absl::StrCat(EncodingName(inst.encoding), " opcode 0x", absl::Hex(inst.op));
}

absl::StatusOr<Inst> Decode(const uint32_t* words, uint32_t available, Target target, const RegisterLimits& limits) {
  if (available == 0) return Truncated(1);
  const uint32_t w = words[0];
  Inst i;
  auto second = [&]() -> absl::StatusOr<uint32_t> {
    if (available < 2) return Truncated(2);
    i.dwords = 2;
    return words[1];
  };

  if ((w >> 23) == 0x17f) {
    i.encoding = Encoding::kSopp;
    i.op = (w >> 16) & 0x7f;
    i.imm = SignExtend(w, 16);
    i.info = SoppOp(i.op);
  } else if ((w >> 23) == 0x17e) {
    i.encoding = Encoding::kSopc;
    i.op = (w >> 16) & 0x7f;
    i.src[0] = w & 0xff;
    i.src[1] = (w >> 8) & 0xff;
    if (i.op == 0x11) {  // s_set_gpr_idx_on: the ssrc1 field is the raw mode (SIMM4), never a register or literal
      i.imm = i.src[1] & 0xf;
      i.src[1] = op::kNone;
    }
    i.info = SopcOp(i.op);
  } else if ((w >> 23) == 0x17d) {
    i.encoding = Encoding::kSop1;
    i.op = (w >> 8) & 0xff;
    i.src[0] = w & 0xff;
    i.dst = (w >> 16) & 0x7f;
    i.info = Sop1Op(i.op);
  } else if ((w >> 28) == 0xb) {
    i.encoding = Encoding::kSopk;
    i.op = (w >> 23) & 0x1f;
    i.dst = (w >> 16) & 0x7f;
    i.imm = SignExtend(w, 16);
    i.info = SopkOp(i.op);
    if (i.op == 0x14) {  // s_setreg_imm32_b32: its value follows
      absl::StatusOr<uint32_t> k = second();
      if (!k.ok()) return k.status();
      i.literal = *k;
    }
  } else if ((w >> 30) == 0x2) {
    i.encoding = Encoding::kSop2;
    i.op = (w >> 23) & 0x7f;
    i.src[0] = w & 0xff;
    i.src[1] = (w >> 8) & 0xff;
    i.dst = (w >> 16) & 0x7f;
    i.info = Sop2Op(i.op);
  } else if ((w >> 26) == 0x30) {
    absl::StatusOr<uint32_t> w1 = second();
    if (!w1.ok()) return w1.status();
    i.encoding = Encoding::kSmem;
    i.op = (w >> 18) & 0xff;
    i.saddr = static_cast<uint16_t>((w & 0x3f) * 2);
    i.dst = (w >> 6) & 0x7f;
    i.soffset_enable = ((w >> 14) & 1) != 0;
    i.glc = ((w >> 16) & 1) != 0;
    i.imm_offset = ((w >> 17) & 1) != 0;
    if (i.imm_offset) {
      i.imm = SignExtend(*w1, 21);
      if (i.soffset_enable) i.soffset = (*w1 >> 25) & 0x7f;
    } else {
      i.soffset = *w1 & 0x7f;  // the offset is in an SGPR
    }
    i.info = SmemOp(i.op);
  } else if ((w >> 25) == 0x3f || (w >> 25) == 0x3e || (w >> 31) == 0) {
    // VOP1, VOPC, VOP2 (e32), possibly with an SDWA or DPP word or a literal.
    if ((w >> 25) == 0x3f) {
      i.encoding = Encoding::kVop1;
      i.op = static_cast<uint16_t>(kVop1Base + ((w >> 9) & 0xff));
      i.dst = Vgpr(w >> 17);
    } else if ((w >> 25) == 0x3e) {
      i.encoding = Encoding::kVopc;
      i.op = (w >> 17) & 0xff;
      i.src[1] = Vgpr(w >> 9);
      i.sdst = op::kVccLo;
    } else {
      i.encoding = Encoding::kVop2;
      const uint32_t op2 = (w >> 25) & 0x3f;
      i.op = static_cast<uint16_t>(kVop2Base + op2);
      i.dst = Vgpr(w >> 17);
      i.src[1] = Vgpr(w >> 9);
      if (Vop2HasConstant(op2)) i.src[2] = op::kLiteral;
    }
    i.src[0] = w & 0x1ff;
    if (i.src[0] == op::kSdwa || i.src[0] == op::kDpp) {
      absl::StatusOr<uint32_t> x = second();
      if (!x.ok()) return x.status();
      if (i.src[0] == op::kSdwa) {
        i.extra = Extra::kSdwa;
        const bool s0 = ((*x >> 23) & 1) != 0;
        i.src[0] = s0 ? (*x & 0xff) : Vgpr(*x);
        i.sdwa_sel[0] = (*x >> 16) & 7;
        i.sdwa_sel[1] = (*x >> 24) & 7;
        i.sdwa_sext = static_cast<uint8_t>(((*x >> 19) & 1) | (((*x >> 27) & 1) << 1));
        i.neg = static_cast<uint8_t>(((*x >> 20) & 1) | (((*x >> 28) & 1) << 1));
        i.abs = static_cast<uint8_t>(((*x >> 21) & 1) | (((*x >> 29) & 1) << 1));
        if (((*x >> 31) & 1) != 0 && i.src[1] != op::kNone) i.src[1] = (w >> 9) & 0xff;  // src1 is an SGPR
        if (i.encoding == Encoding::kVopc) {
          if (((*x >> 15) & 1) != 0) i.sdst = (*x >> 8) & 0x7f;
        } else {
          i.sdwa_dst_sel = (*x >> 8) & 7;
          i.sdwa_dst_unused = (*x >> 11) & 3;
          i.clamp = ((*x >> 13) & 1) != 0;
          i.omod = (*x >> 14) & 3;
        }
      } else {
        i.extra = Extra::kDpp;
        i.src[0] = Vgpr(*x);
        i.dpp_ctrl = (*x >> 8) & 0x1ff;
        i.dpp_bound_ctrl = ((*x >> 19) & 1) != 0;
        i.neg = static_cast<uint8_t>(((*x >> 20) & 1) | (((*x >> 22) & 1) << 1));
        i.abs = static_cast<uint8_t>(((*x >> 21) & 1) | (((*x >> 23) & 1) << 1));
        i.dpp_bank_mask = (*x >> 24) & 0xf;
        i.dpp_row_mask = (*x >> 28) & 0xf;
      }
    }
    if (i.encoding == Encoding::kVop2) {
      const uint32_t op2 = i.op - kVop2Base;
      // v_cndmask_b32 and the carry-in ops read VCC; the carry-out ops write it (their e64 forms name an SGPR pair).
      if (op2 == 0x00 || op2 == 0x1c || op2 == 0x1d || op2 == 0x1e) i.src[2] = op::kVccLo;
      if (op2 >= 0x19 && op2 <= 0x1e) i.sdst = op::kVccLo;
    }
    i.info = ValuOp(i.op);
  } else if ((w >> 23) == 0x1a7) {
    absl::StatusOr<uint32_t> w1 = second();
    if (!w1.ok()) return w1.status();
    i.encoding = Encoding::kVop3p;
    i.op = (w >> 16) & 0x7f;
    i.dst = Vgpr(w);
    i.neg_hi = (w >> 8) & 7;
    i.opsel = (w >> 11) & 7;
    i.opsel_hi = static_cast<uint8_t>(((*w1 >> 27) & 3) | (((w >> 14) & 1) << 2));
    i.clamp = ((w >> 15) & 1) != 0;
    i.src[0] = *w1 & 0x1ff;
    i.src[1] = (*w1 >> 9) & 0x1ff;
    i.src[2] = (*w1 >> 18) & 0x1ff;
    i.neg = (*w1 >> 29) & 7;
    i.info = IsMfmaOpcode(i.op) ? MfmaOp(i.op, target) : Vop3pOp(i.op);
  } else if ((w >> 26) == 0x34) {
    absl::StatusOr<uint32_t> w1 = second();
    if (!w1.ok()) return w1.status();
    i.encoding = Encoding::kVop3;
    i.op = (w >> 16) & 0x3ff;
    i.clamp = ((w >> 15) & 1) != 0;
    i.src[0] = *w1 & 0x1ff;
    i.src[1] = (*w1 >> 9) & 0x1ff;
    i.src[2] = (*w1 >> 18) & 0x1ff;
    i.omod = (*w1 >> 27) & 3;
    i.neg = (*w1 >> 29) & 7;
    if (IsVop3b(i.op)) {
      i.sdst = (w >> 8) & 0x7f;
      i.dst = Vgpr(w);
    } else {
      i.abs = (w >> 8) & 7;
      i.opsel = (w >> 11) & 0xf;
      if (i.op < 0x100) {
        i.sdst = w & 0xff;  // a compare's mask destination
      } else {
        i.dst = Vgpr(w);
      }
    }
    i.info = ValuOp(i.op);
  } else if ((w >> 26) == 0x36) {
    absl::StatusOr<uint32_t> w1 = second();
    if (!w1.ok()) return w1.status();
    i.encoding = Encoding::kDs;
    i.offset0 = w & 0xff;
    i.offset1 = (w >> 8) & 0xff;
    i.imm = static_cast<int32_t>(w & 0xffff);
    i.gds = ((w >> 16) & 1) != 0;
    i.op = (w >> 17) & 0xff;
    i.acc = target != Target::kGfx908 && ((w >> 25) & 1) != 0;
    i.addr = Vgpr(*w1);
    i.data0 = Vgpr(*w1 >> 8);
    i.data1 = Vgpr(*w1 >> 16);
    i.dst = Vgpr(*w1 >> 24);
    i.info = DsOp(i.op);
  } else if ((w >> 26) == 0x37) {
    absl::StatusOr<uint32_t> w1 = second();
    if (!w1.ok()) return w1.status();
    i.encoding = Encoding::kFlat;
    i.seg = (w >> 14) & 3;
    i.imm = i.seg == 0 ? static_cast<int32_t>(w & 0xfff) : SignExtend(w, 13);
    i.lds = target != Target::kGfx942 && ((w >> 13) & 1) != 0;
    i.sve = target == Target::kGfx942 && i.seg == 1 && ((w >> 13) & 1) != 0;
    i.glc = ((w >> 16) & 1) != 0;
    i.slc = ((w >> 17) & 1) != 0;
    i.op = (w >> 18) & 0x7f;
    i.sc1 = target == Target::kGfx942 && ((w >> 25) & 1) != 0;
    i.addr = Vgpr(*w1);
    i.data0 = Vgpr(*w1 >> 8);
    const uint32_t saddr = (*w1 >> 16) & 0x7f;
    if (i.seg != 0 && saddr != 0x7f) i.saddr = static_cast<uint16_t>(saddr);
    i.acc = target != Target::kGfx908 && ((*w1 >> 23) & 1) != 0;
    i.dst = Vgpr(*w1 >> 24);
    i.info = FlatOp(i.op);
  } else if ((w >> 26) == 0x38) {
    absl::StatusOr<uint32_t> w1 = second();
    if (!w1.ok()) return w1.status();
    i.encoding = Encoding::kMubuf;
    i.imm = static_cast<int32_t>(w & 0xfff);
    i.offen = ((w >> 12) & 1) != 0;
    i.idxen = ((w >> 13) & 1) != 0;
    i.glc = ((w >> 14) & 1) != 0;
    i.lds = ((w >> 16) & 1) != 0;
    i.slc = ((w >> 17) & 1) != 0;
    i.op = (w >> 18) & 0x7f;
    i.addr = Vgpr(*w1);
    i.data0 = Vgpr(*w1 >> 8);
    i.dst = i.data0;
    i.saddr = static_cast<uint16_t>(((*w1 >> 16) & 0x1f) * 4);
    i.acc = target != Target::kGfx908 && ((*w1 >> 23) & 1) != 0;
    i.soffset = (*w1 >> 24) & 0xff;
    i.info = MubufOp(i.op);
  } else if ((w >> 26) == 0x3a) {
    absl::StatusOr<uint32_t> w1 = second();
    if (!w1.ok()) return w1.status();
    i.encoding = Encoding::kMtbuf;
    i.imm = static_cast<int32_t>(w & 0xfff);
    i.offen = ((w >> 12) & 1) != 0;
    i.idxen = ((w >> 13) & 1) != 0;
    i.glc = ((w >> 14) & 1) != 0;
    i.op = (w >> 15) & 0xf;
    i.dfmt = (w >> 19) & 0xf;
    i.nfmt = (w >> 23) & 7;
    i.addr = Vgpr(*w1);
    i.data0 = Vgpr(*w1 >> 8);
    i.dst = i.data0;
    i.saddr = static_cast<uint16_t>(((*w1 >> 16) & 0x1f) * 4);
    i.slc = ((*w1 >> 22) & 1) != 0;
    i.acc = target != Target::kGfx908 && ((*w1 >> 23) & 1) != 0;
    i.soffset = (*w1 >> 24) & 0xff;
    i.info = MtbufOp(i.op);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("0x", absl::Hex(w, absl::kZeroPad8), " is no GFX9 instruction"));
  }

  // A trailing literal (one per instruction, shared by every source that names it).
  bool literal = false;
  for (const uint16_t s : i.src) literal = literal || s == op::kLiteral;
  if (i.encoding == Encoding::kSopk && i.op == 0x14) literal = false;  // already read
  if (literal) {
    if (available < i.dwords + 1u) return Truncated(i.dwords + 1u);
    i.literal = words[i.dwords];
    ++i.dwords;
  }

  // Every register operand must start inside the kernel's register files.
  auto check_vgpr = [&](uint16_t code, bool acc) -> absl::Status {
    if (code == op::kNone || code < op::kVgpr0) return absl::OkStatus();
    const uint32_t n = code - op::kVgpr0;
    const uint32_t limit = acc ? limits.agprs : limits.vgprs;
    if (n < limit) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(Mnemonic(i), " names ", acc ? "a" : "v", n, " of ", limit));
  };
  // Only the VALU's operands are checked: memory instructions carry data fields they may not use, and every file
  // is allocated whole (wave.h), so a stray field never reaches outside it.
  if (IsValu(i)) {
    for (int k = 0; k < 3; ++k) {
      if (absl::Status st = check_vgpr(i.src[k], SourceIsAgpr(i, k, target)); !st.ok()) return st;
    }
    if (!DestinationIsScalar(i)) {
      if (absl::Status st = check_vgpr(i.dst, DestinationIsAgpr(i, target)); !st.ok()) return st;
    }
  }
  return i;
}

}  // namespace hipmem::kfd_sim::gfx9
