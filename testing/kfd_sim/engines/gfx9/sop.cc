// Scalar ALU and program control: SOP2, SOPK, SOP1, SOPC and SOPP.
//
// Semantics follow AMD's Vega and CDNA ISA guides (SCC rules per opcode: carry or borrow for the unsigned adds,
// signed overflow for the signed ones, "result is non-zero" for the bitwise ops, shifts, BFE and the counts). What
// the simulated GPU does not model is an illegal instruction rather than a silent no-op when ignoring it would
// change what the kernel computes:
//   - fork/join (s_cbranch_g_fork, s_cbranch_i_fork, s_cbranch_join) and s_rfe_restore_b64: no compiler for these
//     targets emits them;
//   - halting (s_sethalt 1, s_sendmsghalt) and s_endpgm_ordered_ps_done (a pixel shader's).
// s_trap is a trap, not an illegal instruction: see Trap below.
#include <array>
#include <cstdint>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// Source `k` read as T (32 or 64 bits). A 64-bit source's literal is zero-extended unless the operation is signed
// (kI64), as the hardware reads a 32-bit literal for a 64-bit operand.
template <typename T, Width kWidth = Width::kB64>
T Src(const Wave& w, const Inst& i, const Context& c, int k) {
  if constexpr (sizeof(T) == 8) {
    return ScalarSource64(w, i, c, i.src[k], kWidth);
  } else {
    return ScalarSource32(w, i, c, i.src[k]);
  }
}

template <typename T>
void Write(Wave& w, uint16_t code, T value) {
  if constexpr (sizeof(T) == 8) {
    WriteScalar64(w, code, value);
  } else {
    WriteScalar32(w, code, value);
  }
}

// The SGPR (or other scalar register) a SOPK instruction names in its sdst field, which some opcodes read.
uint32_t SdstValue(const Wave& w, const Inst& i) { return i.dst < 128 ? w.s[i.dst] : 0; }

int32_t I32(uint32_t v) { return static_cast<int32_t>(v); }
bool SignedAddOverflows(uint32_t a, uint32_t b, uint32_t r) { return ((~(a ^ b) & (a ^ r)) >> 31) != 0; }
bool SignedSubOverflows(uint32_t a, uint32_t b, uint32_t r) { return (((a ^ b) & (a ^ r)) >> 31) != 0; }

// SOP2 ----------------------------------------------------------------------------------------------------------

// D = Op(S0, S1); with kScc, SCC = (D != 0). A is S0's type, B is S1's (a shift count or BFE control is 32 bits even
// for a 64-bit operation).
template <typename D, typename A, typename B, D (*kOp)(A, B), bool kScc, Width kWidth0 = Width::kB64>
void Sop2(Wave& w, const Inst& i, Context& c) {
  const D r = kOp(Src<A, kWidth0>(w, i, c, 0), Src<B>(w, i, c, 1));
  Write<D>(w, i.dst, r);
  if (kScc) w.scc = r != 0;
}

// s_add_u32 / s_addc_u32 / s_sub_u32 / s_subb_u32: SCC is the carry out (borrow out), kCarry adds SCC in.
template <bool kSub, bool kCarry>
void AddSubU32(Wave& w, const Inst& i, Context& c) {
  const uint64_t a = Src<uint32_t>(w, i, c, 0), b = Src<uint32_t>(w, i, c, 1);
  const uint64_t carry = kCarry && w.scc ? 1 : 0;
  const uint64_t r = kSub ? a - b - carry : a + b + carry;
  WriteScalar32(w, i.dst, static_cast<uint32_t>(r));
  w.scc = kSub ? b + carry > a : (r >> 32) != 0;
}

// s_add_i32 / s_sub_i32: SCC is the signed overflow.
template <bool kSub>
void AddSubI32(Wave& w, const Inst& i, Context& c) {
  const uint32_t a = Src<uint32_t>(w, i, c, 0), b = Src<uint32_t>(w, i, c, 1);
  const uint32_t r = kSub ? a - b : a + b;
  WriteScalar32(w, i.dst, r);
  w.scc = kSub ? SignedSubOverflows(a, b, r) : SignedAddOverflows(a, b, r);
}

// s_min/max_{i,u}32: SCC says S0 was chosen (strictly smaller, or larger).
template <typename T, bool kMax>
void MinMax(Wave& w, const Inst& i, Context& c) {
  const uint32_t a = Src<uint32_t>(w, i, c, 0), b = Src<uint32_t>(w, i, c, 1);
  const bool first = kMax ? static_cast<T>(a) > static_cast<T>(b) : static_cast<T>(a) < static_cast<T>(b);
  WriteScalar32(w, i.dst, first ? a : b);
  w.scc = first;
}

// s_cselect_b32/b64: S0 when SCC, else S1; SCC is unchanged.
template <typename T>
void Cselect(Wave& w, const Inst& i, Context& c) {
  Write<T>(w, i.dst, w.scc ? Src<T>(w, i, c, 0) : Src<T>(w, i, c, 1));
}

// s_lshl{1,2,3,4}_add_u32: (S0 << N) + S1 in 64 bits; SCC is whether it overflowed 32.
template <int kShift>
void LshlAdd(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = (uint64_t{Src<uint32_t>(w, i, c, 0)} << kShift) + Src<uint32_t>(w, i, c, 1);
  WriteScalar32(w, i.dst, static_cast<uint32_t>(r));
  w.scc = (r >> 32) != 0;
}

template <typename T> T And(T a, T b) { return a & b; }
template <typename T> T Or(T a, T b) { return a | b; }
template <typename T> T Xor(T a, T b) { return a ^ b; }
template <typename T> T Andn2(T a, T b) { return a & ~b; }
template <typename T> T Orn2(T a, T b) { return a | ~b; }
template <typename T> T Nand(T a, T b) { return ~(a & b); }
template <typename T> T Nor(T a, T b) { return ~(a | b); }
template <typename T> T Xnor(T a, T b) { return ~(a ^ b); }

// Shifts take the count's low 5 (32-bit) or 6 (64-bit) bits.
template <typename T> constexpr uint32_t kCountMask = sizeof(T) * 8 - 1;
template <typename T> T Lshl(T a, uint32_t b) { return a << (b & kCountMask<T>); }
template <typename T> T Lshr(T a, uint32_t b) { return a >> (b & kCountMask<T>); }
template <typename T> T Ashr(T a, uint32_t b) {
  using S = std::make_signed_t<T>;
  return static_cast<T>(static_cast<S>(a) >> (b & kCountMask<T>));
}

// The low `width` bits set (all of T's bits when width >= T's).
template <typename T>
T LowBits(uint32_t width) {
  return width >= sizeof(T) * 8 ? ~T{0} : (T{1} << width) - 1;
}
// s_bfm: a mask of S0 ones shifted left by S1 (both counts mod the width).
template <typename T> T Bfm(uint32_t a, uint32_t b) {
  return LowBits<T>(a & kCountMask<T>) << (b & kCountMask<T>);
}
// s_bfe: the field at offset S1[4:0] (S1[5:0] for 64 bits), width S1[22:16], zero- or sign-extended from its top
// bit. A field reaching past the top takes the bits the (logical or arithmetic) shift brings in.
template <typename T, bool kSigned> T Bfe(T a, uint32_t b) {
  using S = std::make_signed_t<T>;
  constexpr uint32_t kBits = sizeof(T) * 8;
  const uint32_t offset = b & kCountMask<T>;
  const uint32_t width = (b >> 16) & 0x7f;
  if (width == 0) return 0;
  if (offset + width >= kBits) return kSigned ? static_cast<T>(static_cast<S>(a) >> offset) : a >> offset;
  const T up = a << (kBits - offset - width);  // the field's top bit at the top
  return kSigned ? static_cast<T>(static_cast<S>(up) >> (kBits - width)) : up >> (kBits - width);
}

uint32_t MulLo(uint32_t a, uint32_t b) { return a * b; }
uint32_t MulHiU(uint32_t a, uint32_t b) { return static_cast<uint32_t>((uint64_t{a} * b) >> 32); }
uint32_t MulHiI(uint32_t a, uint32_t b) { return static_cast<uint32_t>(static_cast<uint64_t>(int64_t{I32(a)} * I32(b)) >> 32); }
// |S0 - S1| in 32-bit two's complement (the difference wraps as the hardware's does).
uint32_t Absdiff(uint32_t a, uint32_t b) {
  const uint32_t d = a - b;
  return I32(d) < 0 ? 0u - d : d;
}
uint32_t PackLl(uint32_t a, uint32_t b) { return (a & 0xffff) | (b << 16); }
uint32_t PackLh(uint32_t a, uint32_t b) { return (a & 0xffff) | (b & 0xffff0000u); }
uint32_t PackHh(uint32_t a, uint32_t b) { return (a >> 16) | (b & 0xffff0000u); }

// SOPK ----------------------------------------------------------------------------------------------------------
uint32_t Simm16(const Inst& i) { return static_cast<uint32_t>(i.imm); }               // sign-extended
uint32_t Uimm16(const Inst& i) { return static_cast<uint32_t>(i.imm) & 0xffffu; }     // zero-extended

void Movk(Wave& w, const Inst& i, Context&) { WriteScalar32(w, i.dst, Simm16(i)); }
void Cmovk(Wave& w, const Inst& i, Context&) {
  if (w.scc) WriteScalar32(w, i.dst, Simm16(i));
}
// s_cmpk_*: the SGPR named by sdst against the immediate, sign-extended for _i32 and zero-extended for _u32.
template <bool kSigned, bool (*kCmp)(int64_t, int64_t)>
void Cmpk(Wave& w, const Inst& i, Context&) {
  const uint32_t a = SdstValue(w, i);
  w.scc = kSigned ? kCmp(I32(a), i.imm) : kCmp(a, Uimm16(i));
}
void Addk(Wave& w, const Inst& i, Context&) {
  const uint32_t a = SdstValue(w, i), b = Simm16(i);
  const uint32_t r = a + b;
  WriteScalar32(w, i.dst, r);
  w.scc = SignedAddOverflows(a, b, r);
}
void Mulk(Wave& w, const Inst& i, Context&) { WriteScalar32(w, i.dst, SdstValue(w, i) * Simm16(i)); }

// s_call_b64: the return address (the next instruction) into sdst, then a relative branch.
void Call(Wave& w, const Inst& i, Context&) {
  WriteScalar64(w, i.dst, w.pc);
  w.pc += static_cast<int64_t>(i.imm) * 4;
}

// Hardware registers (s_getreg / s_setreg). simm16 = id [5:0], first bit [10:6], size - 1 [15:11].
namespace hwreg {
constexpr uint32_t kMode = 1;
constexpr uint32_t kStatus = 2;
constexpr uint32_t kTrapsts = 3;
constexpr uint32_t kHwId = 4;
constexpr uint32_t kGprAlloc = 5;
constexpr uint32_t kLdsAlloc = 6;
constexpr uint32_t kIbSts = 7;
constexpr uint32_t kShMemBases = 15;

// STATUS bits the engine has state for.
constexpr uint32_t kStatusScc = 1u << 0;
constexpr uint32_t kStatusExecz = 1u << 9;
constexpr uint32_t kStatusVccz = 1u << 10;
constexpr uint32_t kStatusValid = 1u << 16;
}  // namespace hwreg

struct HwregField {
  uint32_t id;
  uint32_t offset;
  uint32_t mask;  // in place
};
HwregField Field(const Inst& i) {
  const uint32_t v = Uimm16(i);
  const uint32_t offset = (v >> 6) & 31;
  const uint32_t size = ((v >> 11) & 31) + 1;
  return HwregField{v & 63, offset, static_cast<uint32_t>(LowBits<uint64_t>(size) << offset)};
}

uint32_t ReadHwreg(const Wave& w, const Context& c, uint32_t id) {
  switch (id) {
    case hwreg::kMode: return w.mode;
    case hwreg::kStatus:
      // Priority, halt, trap and debug bits are never set here.
      return (w.scc ? hwreg::kStatusScc : 0) | (w.exec() == 0 ? hwreg::kStatusExecz : 0) |
             (w.vcc() == 0 ? hwreg::kStatusVccz : 0) | hwreg::kStatusValid;
    case hwreg::kTrapsts: return w.trapsts;
    case hwreg::kHwId:
      // WAVE_ID [3:0]: the wave's index in its workgroup (at most 16 waves of 64); SIMD, CU, SE, queue and VM ids
      // are all 0, so the value is stable across runs.
      return w.id_in_group & 0xf;
    case hwreg::kGprAlloc: {
      // VGPR_SIZE [13:8] in granules less one: 4 VGPRs on gfx908 (its AGPRs are a separate file of the same size),
      // 8 of the unified VGPR+AGPR file on gfx90a/gfx942. SGPR_SIZE [27:24] in granules of 16 less one: every wave
      // has all 102 SGPRs plus VCC (7 granules). Bases are 0.
      const bool unified = c.dispatch != nullptr && c.dispatch->target != Target::kGfx908;
      const uint32_t vgprs = unified ? w.vgpr_count + w.agpr_count : w.vgpr_count;
      const uint32_t granule = unified ? 8 : 4;
      const uint32_t vgpr_size = vgprs == 0 ? 0 : (vgprs + granule - 1) / granule - 1;
      return ((vgpr_size & 0x3f) << 8) | (6u << 24);
    }
    case hwreg::kLdsAlloc:
      // LDS_SIZE [20:12] in granules of 64 dwords; LDS_BASE 0.
      return (((c.lds_bytes + 255) / 256) & 0x1ff) << 12;
    case hwreg::kIbSts: return 0;  // no memory operation is ever outstanding
    case hwreg::kShMemBases: {
      // PRIVATE_BASE [15:0] and SHARED_BASE [31:16]: each aperture's address bits 63:48.
      if (c.dispatch == nullptr) return 0;
      return static_cast<uint32_t>(c.dispatch->private_aperture_base >> 48) |
             (static_cast<uint32_t>(c.dispatch->shared_aperture_base >> 48) << 16);
    }
    default: return 0;  // trap handler registers (there is none) and reserved ids read 0
  }
}

void Getreg(Wave& w, const Inst& i, Context& c) {
  const HwregField f = Field(i);
  WriteScalar32(w, i.dst, (ReadHwreg(w, c, f.id) & f.mask) >> f.offset);
}

// Writes the field of MODE or TRAPSTS, the registers a shader may write; writes to the others are ignored as the
// hardware ignores a user wave's writes to privileged or read-only state.
void SetregValue(Wave& w, const Inst& i, Context&, uint32_t value) {
  const HwregField f = Field(i);
  const uint32_t placed = (value << f.offset) & f.mask;
  if (f.id == hwreg::kMode) {
    w.mode = (w.mode & ~f.mask) | placed;  // VSKIP (bit 28) included: RunWave skips vector instructions while set
  } else if (f.id == hwreg::kTrapsts) {
    w.trapsts = (w.trapsts & ~f.mask) | placed;
  }
}
void Setreg(Wave& w, const Inst& i, Context& c) { SetregValue(w, i, c, SdstValue(w, i)); }
void SetregImm32(Wave& w, const Inst& i, Context& c) { SetregValue(w, i, c, i.literal); }

// SOP1 ----------------------------------------------------------------------------------------------------------

// D = Op(S0); with kScc, SCC = (D != 0).
template <typename D, typename A, D (*kOp)(A), bool kScc>
void Sop1(Wave& w, const Inst& i, Context& c) {
  const D r = kOp(Src<A>(w, i, c, 0));
  Write<D>(w, i.dst, r);
  if (kScc) w.scc = r != 0;
}

template <typename T>
void Cmov(Wave& w, const Inst& i, Context& c) {
  if (w.scc) Write<T>(w, i.dst, Src<T>(w, i, c, 0));
}

template <typename T> T Mov(T a) { return a; }
template <typename T> T Not(T a) { return ~a; }
// Whole quad mode: each group of four bits becomes all ones if any of it is set.
template <typename T> T Wqm(T a) {
  T r = 0;
  for (uint32_t q = 0; q < sizeof(T) * 8; q += 4) {
    if (((a >> q) & 0xf) != 0) r |= T{0xf} << q;
  }
  return r;
}
// One bit per quad: bit q is whether quad q (bits 4q..4q+3) has any bit set.
template <typename T> T Quadmask(T a) {
  T r = 0;
  for (uint32_t q = 0; q < sizeof(T) * 2; ++q) {
    if (((a >> (4 * q)) & 0xf) != 0) r |= T{1} << q;
  }
  return r;
}
template <typename T> T Brev(T a) {
  T r = 0;
  for (uint32_t b = 0; b < sizeof(T) * 8; ++b) r |= ((a >> b) & 1) << (sizeof(T) * 8 - 1 - b);
  return r;
}
template <typename T> uint32_t Bcnt1(T a) { return static_cast<uint32_t>(__builtin_popcountll(a)); }
template <typename T> uint32_t Bcnt0(T a) { return static_cast<uint32_t>(sizeof(T) * 8) - Bcnt1<T>(a); }
// Counts return -1 (all ones) when no bit qualifies.
template <typename T> uint32_t Ff1(T a) { return a == 0 ? ~0u : static_cast<uint32_t>(__builtin_ctzll(a)); }
template <typename T> uint32_t Ff0(T a) { return Ff1<T>(static_cast<T>(~a)); }
// The position of the first 1 counted from the most significant bit.
template <typename T> uint32_t Flbit(T a) {
  return a == 0 ? ~0u : static_cast<uint32_t>(__builtin_clzll(a) - (64 - sizeof(T) * 8));
}
// The position, from the most significant bit, of the first bit that differs from the sign bit.
template <typename T> uint32_t FlbitSigned(T a) {
  const T sign_fill = (a >> (sizeof(T) * 8 - 1)) != 0 ? ~T{0} : T{0};
  return Flbit<T>(a ^ sign_fill);
}
uint32_t SextI8(uint32_t a) { return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int8_t>(a))); }
uint32_t SextI16(uint32_t a) { return static_cast<uint32_t>(static_cast<int32_t>(static_cast<int16_t>(a))); }
uint32_t Abs(uint32_t a) { return I32(a) < 0 ? 0u - a : a; }  // |INT_MIN| stays 0x80000000
// Each bit of S0 twice, in adjacent bits.
uint64_t Bitreplicate(uint32_t a) {
  uint64_t r = 0;
  for (int b = 0; b < 32; ++b) r |= uint64_t{(a >> b) & 1u} * 3 << (2 * b);
  return r;
}

// s_bitset0/1: clears or sets bit S0[4:0] (S0[5:0] for 64 bits) of D, leaving D's other bits.
template <typename T, bool kSet>
void Bitset(Wave& w, const Inst& i, Context& c) {
  const T bit = T{1} << (Src<uint32_t>(w, i, c, 0) & kCountMask<T>);
  T d = 0;
  if constexpr (sizeof(T) == 8) {
    d = i.dst < 127 ? w.Read64(i.dst) : 0;
  } else {
    d = SdstValue(w, i);
  }
  Write<T>(w, i.dst, kSet ? d | bit : d & ~bit);
}

// s_getpc_b64: the address of the next instruction.
void Getpc(Wave& w, const Inst& i, Context&) { WriteScalar64(w, i.dst, w.pc); }
// s_setpc_b64, and s_rfe_b64 (returning from a trap handler is just the jump: privilege is not modelled).
void Setpc(Wave& w, const Inst& i, Context& c) { w.pc = Src<uint64_t>(w, i, c, 0); }
void Swappc(Wave& w, const Inst& i, Context& c) {
  const uint64_t target = Src<uint64_t>(w, i, c, 0);
  WriteScalar64(w, i.dst, w.pc);
  w.pc = target;
}

// s_*_saveexec_b64: D = EXEC, then EXEC = Op(S0, EXEC), SCC = (EXEC != 0).
template <uint64_t (*kOp)(uint64_t s0, uint64_t exec)>
void Saveexec(Wave& w, const Inst& i, Context& c) {
  const uint64_t s0 = Src<uint64_t>(w, i, c, 0);
  const uint64_t old = w.exec();
  const uint64_t r = kOp(s0, old);
  WriteScalar64(w, i.dst, old);
  w.set_exec(r);
  w.scc = r != 0;
}
// s_andn{1,2}_wrexec_b64: EXEC = Op(S0, EXEC) and D gets the new EXEC; SCC = (EXEC != 0).
template <uint64_t (*kOp)(uint64_t s0, uint64_t exec)>
void Wrexec(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = kOp(Src<uint64_t>(w, i, c, 0), w.exec());
  w.set_exec(r);
  WriteScalar64(w, i.dst, r);
  w.scc = r != 0;
}
uint64_t Andn1(uint64_t a, uint64_t b) { return ~a & b; }
uint64_t Orn1(uint64_t a, uint64_t b) { return ~a | b; }

// s_movrels (D = SGPR[S0 + M0]) and s_movreld (SGPR[D + M0] = S0). An index past s101 reads 0 and writes nothing:
// the ISA guides leave it undefined, and this keeps a bad index inside the SGPRs.
bool RelativeSgpr(const Wave& w, uint16_t base, int dwords, uint16_t* out) {
  const uint64_t index = uint64_t{base} + w.s[op::kM0];
  if (base > op::kSgprLast || index + dwords - 1 > op::kSgprLast) return false;
  *out = static_cast<uint16_t>(index);
  return true;
}
template <typename T>
void Movrels(Wave& w, const Inst& i, Context&) {
  uint16_t from = 0;
  T v = 0;
  if (RelativeSgpr(w, i.src[0], sizeof(T) / 4, &from)) {
    v = static_cast<T>(sizeof(T) == 8 ? w.Read64(from) : w.s[from]);
  }
  Write<T>(w, i.dst, v);
}
template <typename T>
void Movreld(Wave& w, const Inst& i, Context& c) {
  uint16_t to = 0;
  const T v = Src<T>(w, i, c, 0);
  if (RelativeSgpr(w, i.dst, sizeof(T) / 4, &to)) Write<T>(w, to, v);
}

// SOPC ----------------------------------------------------------------------------------------------------------
bool Eq(int64_t a, int64_t b) { return a == b; }
bool Ne(int64_t a, int64_t b) { return a != b; }
bool Gt(int64_t a, int64_t b) { return a > b; }
bool Ge(int64_t a, int64_t b) { return a >= b; }
bool Lt(int64_t a, int64_t b) { return a < b; }
bool Le(int64_t a, int64_t b) { return a <= b; }

// s_cmp_*_{i32,u32}: both operands widened to 64 bits (sign- or zero-extended) so one comparison serves both.
template <bool kSigned, bool (*kCmp)(int64_t, int64_t)>
void Cmp32(Wave& w, const Inst& i, Context& c) {
  const uint32_t a = Src<uint32_t>(w, i, c, 0), b = Src<uint32_t>(w, i, c, 1);
  w.scc = kSigned ? kCmp(I32(a), I32(b)) : kCmp(a, b);
}
template <bool kEqual>
void Cmp64(Wave& w, const Inst& i, Context& c) {
  w.scc = (Src<uint64_t>(w, i, c, 0) == Src<uint64_t>(w, i, c, 1)) == kEqual;
}
// s_bitcmp{0,1}: SCC = (bit S1[4:0] (S1[5:0]) of S0 is 0 / 1).
template <typename T, bool kOne>
void Bitcmp(Wave& w, const Inst& i, Context& c) {
  const T a = Src<T>(w, i, c, 0);
  w.scc = (((a >> (Src<uint32_t>(w, i, c, 1) & kCountMask<T>)) & 1) != 0) == kOne;
}

// s_setvskip: MODE.VSKIP = bit S1[4:0] of S0.
void Setvskip(Wave& w, const Inst& i, Context& c) {
  const bool skip = ((Src<uint32_t>(w, i, c, 0) >> (Src<uint32_t>(w, i, c, 1) & 31)) & 1) != 0;
  w.mode = skip ? w.mode | kModeVskip : w.mode & ~kModeVskip;
}

// SOPP ----------------------------------------------------------------------------------------------------------
// No-ops here: s_nop; s_waitcnt (memory operations complete before the next instruction, so every counter is always
// zero); s_wakeup, s_setprio (one wave runs at a time on its host thread); s_sendmsg (no message a compute
// wave sends has an effect here); s_icache_inv; s_incperflevel/decperflevel, s_ttracedata (no counters or
// trace); s_setkill (a pixel shader's).
// VGPR indexing mode (Vega/CDNA ISA guides, "VGPR Indexing"): the index lives in M0[7:0], the operands it applies
// to in M0[15:12], the switch in MODE.GPR_IDX_EN; the rest of M0 is kept. s_set_gpr_idx_on's second operand is the
// raw 4-bit mode field, not a register (the decoder keeps it in Inst::imm).
void SetM0GprIndex(Wave& w, uint32_t index) { w.s[op::kM0] = (w.s[op::kM0] & ~kM0GprIndexMask) | (index & kM0GprIndexMask); }
void SetM0GprMode(Wave& w, uint32_t mode) {
  w.s[op::kM0] = (w.s[op::kM0] & ~kM0GprModeMask) | ((mode << kM0GprModeShift) & kM0GprModeMask);
}
void SetGprIdxOn(Wave& w, const Inst& i, Context& c) {
  SetM0GprIndex(w, ScalarSource32(w, i, c, i.src[0]));
  SetM0GprMode(w, static_cast<uint32_t>(i.imm));
  w.mode |= kModeGprIdxEn;
}
void SetGprIdxOff(Wave& w, const Inst&, Context&) { w.mode &= ~kModeGprIdxEn; }
void SetGprIdxMode(Wave& w, const Inst& i, Context&) { SetM0GprMode(w, static_cast<uint32_t>(i.imm)); }
void SetGprIdxIdx(Wave& w, const Inst& i, Context& c) { SetM0GprIndex(w, ScalarSource32(w, i, c, i.src[0])); }

void Nop(Wave&, const Inst&, Context&) {}
void Endpgm(Wave& w, const Inst&, Context&) { w.state = Wave::State::kEnded; }
void Barrier(Wave& w, const Inst&, Context&) { w.state = Wave::State::kBarrier; }
// s_sleep: a wave that sleeps is waiting for something another wave or workgroup will do (a spin lock, a grid
// barrier), so it ends its slice and the compute unit runs the others; the time it sleeps is not modelled.
void Sleep(Wave& w, const Inst&, Context&) { w.state = Wave::State::kSleeping; }

// Branch targets are relative to the next instruction, in dwords.
template <bool (*kTaken)(const Wave&)>
void Branch(Wave& w, const Inst& i, Context&) {
  if (kTaken(w)) w.pc += static_cast<int64_t>(i.imm) * 4;
}
bool Always(const Wave&) { return true; }
bool Never(const Wave&) { return false; }  // the conditional-debug branches: STATUS.COND_DBG_* are never set
bool Scc0(const Wave& w) { return !w.scc; }
bool Scc1(const Wave& w) { return w.scc; }
bool Vccz(const Wave& w) { return w.vcc() == 0; }
bool Vccnz(const Wave& w) { return w.vcc() != 0; }
bool Execz(const Wave& w) { return w.exec() == 0; }
bool Execnz(const Wave& w) { return w.exec() != 0; }

// s_trap enters the trap handler the runtime installs, which (AMDGPUUsage, "Trap Handler ABI"; ROCr's handler) lets
// llvm.debugtrap (trap id 3) fall through as a no-op when no debugger is attached -- none ever is here -- and answers
// every other id by halting the wave and putting its queue into the error state: llvm.trap (2, which HIP's abort()
// and a failed device assert reach) as an abort, the reserved ids as a generic wave trap. The program counter has
// already moved past the instruction, where the handler returns to.
constexpr uint32_t kTrapIdDebugTrap = 3;
void Trap(Wave&, const Inst& i, Context& c) {
  const uint32_t id = Uimm16(i) & 0xff;
  if (id != kTrapIdDebugTrap) c.Trap(id);
}
// s_sethalt 0 leaves a running wave running; halting one is not modelled.
void Sethalt(Wave&, const Inst& i, Context& c) {
  if ((i.imm & 1) != 0) c.Illegal("s_sethalt 1: halting a wave is not modelled");
}

}  // namespace

const OpInfo* Sop2Op(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    using u32 = uint32_t;
    using u64 = uint64_t;
    t[0x00] = {"s_add_u32", &AddSubU32<false, false>};
    t[0x01] = {"s_sub_u32", &AddSubU32<true, false>};
    t[0x02] = {"s_add_i32", &AddSubI32<false>};
    t[0x03] = {"s_sub_i32", &AddSubI32<true>};
    t[0x04] = {"s_addc_u32", &AddSubU32<false, true>};
    t[0x05] = {"s_subb_u32", &AddSubU32<true, true>};
    t[0x06] = {"s_min_i32", &MinMax<int32_t, false>};
    t[0x07] = {"s_min_u32", &MinMax<uint32_t, false>};
    t[0x08] = {"s_max_i32", &MinMax<int32_t, true>};
    t[0x09] = {"s_max_u32", &MinMax<uint32_t, true>};
    t[0x0a] = {"s_cselect_b32", &Cselect<u32>};
    t[0x0b] = {"s_cselect_b64", &Cselect<u64>};
    t[0x0c] = {"s_and_b32", &Sop2<u32, u32, u32, And<u32>, true>};
    t[0x0d] = {"s_and_b64", &Sop2<u64, u64, u64, And<u64>, true>};
    t[0x0e] = {"s_or_b32", &Sop2<u32, u32, u32, Or<u32>, true>};
    t[0x0f] = {"s_or_b64", &Sop2<u64, u64, u64, Or<u64>, true>};
    t[0x10] = {"s_xor_b32", &Sop2<u32, u32, u32, Xor<u32>, true>};
    t[0x11] = {"s_xor_b64", &Sop2<u64, u64, u64, Xor<u64>, true>};
    t[0x12] = {"s_andn2_b32", &Sop2<u32, u32, u32, Andn2<u32>, true>};
    t[0x13] = {"s_andn2_b64", &Sop2<u64, u64, u64, Andn2<u64>, true>};
    t[0x14] = {"s_orn2_b32", &Sop2<u32, u32, u32, Orn2<u32>, true>};
    t[0x15] = {"s_orn2_b64", &Sop2<u64, u64, u64, Orn2<u64>, true>};
    t[0x16] = {"s_nand_b32", &Sop2<u32, u32, u32, Nand<u32>, true>};
    t[0x17] = {"s_nand_b64", &Sop2<u64, u64, u64, Nand<u64>, true>};
    t[0x18] = {"s_nor_b32", &Sop2<u32, u32, u32, Nor<u32>, true>};
    t[0x19] = {"s_nor_b64", &Sop2<u64, u64, u64, Nor<u64>, true>};
    t[0x1a] = {"s_xnor_b32", &Sop2<u32, u32, u32, Xnor<u32>, true>};
    t[0x1b] = {"s_xnor_b64", &Sop2<u64, u64, u64, Xnor<u64>, true>};
    t[0x1c] = {"s_lshl_b32", &Sop2<u32, u32, u32, Lshl<u32>, true>};
    t[0x1d] = {"s_lshl_b64", &Sop2<u64, u64, u32, Lshl<u64>, true>};
    t[0x1e] = {"s_lshr_b32", &Sop2<u32, u32, u32, Lshr<u32>, true>};
    t[0x1f] = {"s_lshr_b64", &Sop2<u64, u64, u32, Lshr<u64>, true>};
    t[0x20] = {"s_ashr_i32", &Sop2<u32, u32, u32, Ashr<u32>, true>};
    t[0x21] = {"s_ashr_i64", &Sop2<u64, u64, u32, Ashr<u64>, true, Width::kI64>};
    t[0x22] = {"s_bfm_b32", &Sop2<u32, u32, u32, Bfm<u32>, false>};
    t[0x23] = {"s_bfm_b64", &Sop2<u64, u32, u32, Bfm<u64>, false>};
    t[0x24] = {"s_mul_i32", &Sop2<u32, u32, u32, MulLo, false>};
    t[0x25] = {"s_bfe_u32", &Sop2<u32, u32, u32, Bfe<u32, false>, true>};
    t[0x26] = {"s_bfe_i32", &Sop2<u32, u32, u32, Bfe<u32, true>, true>};
    t[0x27] = {"s_bfe_u64", &Sop2<u64, u64, u32, Bfe<u64, false>, true>};
    t[0x28] = {"s_bfe_i64", &Sop2<u64, u64, u32, Bfe<u64, true>, true, Width::kI64>};
    t[0x29] = {"s_cbranch_g_fork", nullptr};
    t[0x2a] = {"s_absdiff_i32", &Sop2<u32, u32, u32, Absdiff, true>};
    t[0x2b] = {"s_rfe_restore_b64", nullptr};
    t[0x2c] = {"s_mul_hi_u32", &Sop2<u32, u32, u32, MulHiU, false>};
    t[0x2d] = {"s_mul_hi_i32", &Sop2<u32, u32, u32, MulHiI, false>};
    t[0x2e] = {"s_lshl1_add_u32", &LshlAdd<1>};
    t[0x2f] = {"s_lshl2_add_u32", &LshlAdd<2>};
    t[0x30] = {"s_lshl3_add_u32", &LshlAdd<3>};
    t[0x31] = {"s_lshl4_add_u32", &LshlAdd<4>};
    t[0x32] = {"s_pack_ll_b32_b16", &Sop2<u32, u32, u32, PackLl, false>};
    t[0x33] = {"s_pack_lh_b32_b16", &Sop2<u32, u32, u32, PackLh, false>};
    t[0x34] = {"s_pack_hh_b32_b16", &Sop2<u32, u32, u32, PackHh, false>};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* SopkOp(uint16_t op) {
  static const std::array<OpInfo, 32> table = [] {
    std::array<OpInfo, 32> t{};
    t[0x00] = {"s_movk_i32", &Movk};
    t[0x01] = {"s_cmovk_i32", &Cmovk};
    t[0x02] = {"s_cmpk_eq_i32", &Cmpk<true, Eq>};
    t[0x03] = {"s_cmpk_lg_i32", &Cmpk<true, Ne>};
    t[0x04] = {"s_cmpk_gt_i32", &Cmpk<true, Gt>};
    t[0x05] = {"s_cmpk_ge_i32", &Cmpk<true, Ge>};
    t[0x06] = {"s_cmpk_lt_i32", &Cmpk<true, Lt>};
    t[0x07] = {"s_cmpk_le_i32", &Cmpk<true, Le>};
    t[0x08] = {"s_cmpk_eq_u32", &Cmpk<false, Eq>};
    t[0x09] = {"s_cmpk_lg_u32", &Cmpk<false, Ne>};
    t[0x0a] = {"s_cmpk_gt_u32", &Cmpk<false, Gt>};
    t[0x0b] = {"s_cmpk_ge_u32", &Cmpk<false, Ge>};
    t[0x0c] = {"s_cmpk_lt_u32", &Cmpk<false, Lt>};
    t[0x0d] = {"s_cmpk_le_u32", &Cmpk<false, Le>};
    t[0x0e] = {"s_addk_i32", &Addk};
    t[0x0f] = {"s_mulk_i32", &Mulk};
    t[0x10] = {"s_cbranch_i_fork", nullptr};
    t[0x11] = {"s_getreg_b32", &Getreg};
    t[0x12] = {"s_setreg_b32", &Setreg};
    t[0x14] = {"s_setreg_imm32_b32", &SetregImm32};
    t[0x15] = {"s_call_b64", &Call};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* Sop1Op(uint16_t op) {
  static const std::array<OpInfo, 256> table = [] {
    std::array<OpInfo, 256> t{};
    using u32 = uint32_t;
    using u64 = uint64_t;
    t[0x00] = {"s_mov_b32", &Sop1<u32, u32, Mov<u32>, false>};
    t[0x01] = {"s_mov_b64", &Sop1<u64, u64, Mov<u64>, false>};
    t[0x02] = {"s_cmov_b32", &Cmov<u32>};
    t[0x03] = {"s_cmov_b64", &Cmov<u64>};
    t[0x04] = {"s_not_b32", &Sop1<u32, u32, Not<u32>, true>};
    t[0x05] = {"s_not_b64", &Sop1<u64, u64, Not<u64>, true>};
    t[0x06] = {"s_wqm_b32", &Sop1<u32, u32, Wqm<u32>, true>};
    t[0x07] = {"s_wqm_b64", &Sop1<u64, u64, Wqm<u64>, true>};
    t[0x08] = {"s_brev_b32", &Sop1<u32, u32, Brev<u32>, false>};
    t[0x09] = {"s_brev_b64", &Sop1<u64, u64, Brev<u64>, false>};
    t[0x0a] = {"s_bcnt0_i32_b32", &Sop1<u32, u32, Bcnt0<u32>, true>};
    t[0x0b] = {"s_bcnt0_i32_b64", &Sop1<u32, u64, Bcnt0<u64>, true>};
    t[0x0c] = {"s_bcnt1_i32_b32", &Sop1<u32, u32, Bcnt1<u32>, true>};
    t[0x0d] = {"s_bcnt1_i32_b64", &Sop1<u32, u64, Bcnt1<u64>, true>};
    t[0x0e] = {"s_ff0_i32_b32", &Sop1<u32, u32, Ff0<u32>, false>};
    t[0x0f] = {"s_ff0_i32_b64", &Sop1<u32, u64, Ff0<u64>, false>};
    t[0x10] = {"s_ff1_i32_b32", &Sop1<u32, u32, Ff1<u32>, false>};
    t[0x11] = {"s_ff1_i32_b64", &Sop1<u32, u64, Ff1<u64>, false>};
    t[0x12] = {"s_flbit_i32_b32", &Sop1<u32, u32, Flbit<u32>, false>};
    t[0x13] = {"s_flbit_i32_b64", &Sop1<u32, u64, Flbit<u64>, false>};
    t[0x14] = {"s_flbit_i32", &Sop1<u32, u32, FlbitSigned<u32>, false>};
    t[0x15] = {"s_flbit_i32_i64", &Sop1<u32, u64, FlbitSigned<u64>, false>};
    t[0x16] = {"s_sext_i32_i8", &Sop1<u32, u32, SextI8, false>};
    t[0x17] = {"s_sext_i32_i16", &Sop1<u32, u32, SextI16, false>};
    t[0x18] = {"s_bitset0_b32", &Bitset<u32, false>};
    t[0x19] = {"s_bitset0_b64", &Bitset<u64, false>};
    t[0x1a] = {"s_bitset1_b32", &Bitset<u32, true>};
    t[0x1b] = {"s_bitset1_b64", &Bitset<u64, true>};
    t[0x1c] = {"s_getpc_b64", &Getpc};
    t[0x1d] = {"s_setpc_b64", &Setpc};
    t[0x1e] = {"s_swappc_b64", &Swappc};
    t[0x1f] = {"s_rfe_b64", &Setpc};
    t[0x20] = {"s_and_saveexec_b64", &Saveexec<And<u64>>};
    t[0x21] = {"s_or_saveexec_b64", &Saveexec<Or<u64>>};
    t[0x22] = {"s_xor_saveexec_b64", &Saveexec<Xor<u64>>};
    t[0x23] = {"s_andn2_saveexec_b64", &Saveexec<Andn2<u64>>};
    t[0x24] = {"s_orn2_saveexec_b64", &Saveexec<Orn2<u64>>};
    t[0x25] = {"s_nand_saveexec_b64", &Saveexec<Nand<u64>>};
    t[0x26] = {"s_nor_saveexec_b64", &Saveexec<Nor<u64>>};
    t[0x27] = {"s_xnor_saveexec_b64", &Saveexec<Xnor<u64>>};
    t[0x28] = {"s_quadmask_b32", &Sop1<u32, u32, Quadmask<u32>, true>};
    t[0x29] = {"s_quadmask_b64", &Sop1<u64, u64, Quadmask<u64>, true>};
    t[0x2a] = {"s_movrels_b32", &Movrels<u32>};
    t[0x2b] = {"s_movrels_b64", &Movrels<u64>};
    t[0x2c] = {"s_movreld_b32", &Movreld<u32>};
    t[0x2d] = {"s_movreld_b64", &Movreld<u64>};
    t[0x2e] = {"s_cbranch_join", nullptr};
    t[0x30] = {"s_abs_i32", &Sop1<u32, u32, Abs, true>};
    t[0x32] = {"s_set_gpr_idx_idx", &SetGprIdxIdx};
    t[0x33] = {"s_andn1_saveexec_b64", &Saveexec<Andn1>};
    t[0x34] = {"s_orn1_saveexec_b64", &Saveexec<Orn1>};
    t[0x35] = {"s_andn1_wrexec_b64", &Wrexec<Andn1>};
    t[0x36] = {"s_andn2_wrexec_b64", &Wrexec<Andn2<u64>>};
    t[0x37] = {"s_bitreplicate_b64_b32", &Sop1<u64, u32, Bitreplicate, false>};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* SopcOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[0x00] = {"s_cmp_eq_i32", &Cmp32<true, Eq>};
    t[0x01] = {"s_cmp_lg_i32", &Cmp32<true, Ne>};
    t[0x02] = {"s_cmp_gt_i32", &Cmp32<true, Gt>};
    t[0x03] = {"s_cmp_ge_i32", &Cmp32<true, Ge>};
    t[0x04] = {"s_cmp_lt_i32", &Cmp32<true, Lt>};
    t[0x05] = {"s_cmp_le_i32", &Cmp32<true, Le>};
    t[0x06] = {"s_cmp_eq_u32", &Cmp32<false, Eq>};
    t[0x07] = {"s_cmp_lg_u32", &Cmp32<false, Ne>};
    t[0x08] = {"s_cmp_gt_u32", &Cmp32<false, Gt>};
    t[0x09] = {"s_cmp_ge_u32", &Cmp32<false, Ge>};
    t[0x0a] = {"s_cmp_lt_u32", &Cmp32<false, Lt>};
    t[0x0b] = {"s_cmp_le_u32", &Cmp32<false, Le>};
    t[0x0c] = {"s_bitcmp0_b32", &Bitcmp<uint32_t, false>};
    t[0x0d] = {"s_bitcmp1_b32", &Bitcmp<uint32_t, true>};
    t[0x0e] = {"s_bitcmp0_b64", &Bitcmp<uint64_t, false>};
    t[0x0f] = {"s_bitcmp1_b64", &Bitcmp<uint64_t, true>};
    t[0x10] = {"s_setvskip", &Setvskip};
    t[0x11] = {"s_set_gpr_idx_on", &SetGprIdxOn};
    t[0x12] = {"s_cmp_eq_u64", &Cmp64<true>};
    t[0x13] = {"s_cmp_lg_u64", &Cmp64<false>};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* SoppOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[0x00] = {"s_nop", &Nop};
    t[0x01] = {"s_endpgm", &Endpgm};
    t[0x02] = {"s_branch", &Branch<Always>};
    t[0x03] = {"s_wakeup", &Nop};
    t[0x04] = {"s_cbranch_scc0", &Branch<Scc0>};
    t[0x05] = {"s_cbranch_scc1", &Branch<Scc1>};
    t[0x06] = {"s_cbranch_vccz", &Branch<Vccz>};
    t[0x07] = {"s_cbranch_vccnz", &Branch<Vccnz>};
    t[0x08] = {"s_cbranch_execz", &Branch<Execz>};
    t[0x09] = {"s_cbranch_execnz", &Branch<Execnz>};
    t[0x0a] = {"s_barrier", &Barrier};
    t[0x0b] = {"s_setkill", &Nop};
    t[0x0c] = {"s_waitcnt", &Nop};
    t[0x0d] = {"s_sethalt", &Sethalt};
    t[0x0e] = {"s_sleep", &Sleep};
    t[0x0f] = {"s_setprio", &Nop};
    t[0x10] = {"s_sendmsg", &Nop};
    t[0x11] = {"s_sendmsghalt", nullptr};
    t[0x12] = {"s_trap", &Trap};
    t[0x13] = {"s_icache_inv", &Nop};
    t[0x14] = {"s_incperflevel", &Nop};
    t[0x15] = {"s_decperflevel", &Nop};
    t[0x16] = {"s_ttracedata", &Nop};
    t[0x17] = {"s_cbranch_cdbgsys", &Branch<Never>};
    t[0x18] = {"s_cbranch_cdbguser", &Branch<Never>};
    t[0x19] = {"s_cbranch_cdbgsys_or_user", &Branch<Never>};
    t[0x1a] = {"s_cbranch_cdbgsys_and_user", &Branch<Never>};
    t[0x1b] = {"s_endpgm_saved", &Endpgm};
    t[0x1c] = {"s_set_gpr_idx_off", &SetGprIdxOff};
    t[0x1d] = {"s_set_gpr_idx_mode", &SetGprIdxMode};
    t[0x1e] = {"s_endpgm_ordered_ps_done", nullptr};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
