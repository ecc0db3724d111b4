// Scalar ALU and program control: SOP2, SOPK, SOP1, SOPC and SOPP.
#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

uint32_t S0(const Wave& w, const Inst& i, const Context& c) { return ScalarSource32(w, i, c, i.src[0]); }
uint32_t S1(const Wave& w, const Inst& i, const Context& c) { return ScalarSource32(w, i, c, i.src[1]); }
uint64_t S0x64(const Wave& w, const Inst& i, const Context& c) { return ScalarSource64(w, i, c, i.src[0]); }
uint64_t S1x64(const Wave& w, const Inst& i, const Context& c) { return ScalarSource64(w, i, c, i.src[1]); }

// SOP2 ----------------------------------------------------------------------------------------------------------
void SAddU32(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = uint64_t{S0(w, i, c)} + S1(w, i, c);
  WriteScalar32(w, i.dst, static_cast<uint32_t>(r));
  w.scc = (r >> 32) != 0;
}
void SSubU32(Wave& w, const Inst& i, Context& c) {
  const uint32_t a = S0(w, i, c), b = S1(w, i, c);
  WriteScalar32(w, i.dst, a - b);
  w.scc = b > a;
}
void SAddcU32(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = uint64_t{S0(w, i, c)} + S1(w, i, c) + (w.scc ? 1 : 0);
  WriteScalar32(w, i.dst, static_cast<uint32_t>(r));
  w.scc = (r >> 32) != 0;
}
void SAndB32(Wave& w, const Inst& i, Context& c) {
  const uint32_t r = S0(w, i, c) & S1(w, i, c);
  WriteScalar32(w, i.dst, r);
  w.scc = r != 0;
}
void SAndB64(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = S0x64(w, i, c) & S1x64(w, i, c);
  WriteScalar64(w, i.dst, r);
  w.scc = r != 0;
}
void SOrB64(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = S0x64(w, i, c) | S1x64(w, i, c);
  WriteScalar64(w, i.dst, r);
  w.scc = r != 0;
}
void SXorB64(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = S0x64(w, i, c) ^ S1x64(w, i, c);
  WriteScalar64(w, i.dst, r);
  w.scc = r != 0;
}
void SAndn2B64(Wave& w, const Inst& i, Context& c) {
  const uint64_t r = S0x64(w, i, c) & ~S1x64(w, i, c);
  WriteScalar64(w, i.dst, r);
  w.scc = r != 0;
}
void SLshlB32(Wave& w, const Inst& i, Context& c) {
  const uint32_t r = S0(w, i, c) << (S1(w, i, c) & 31);
  WriteScalar32(w, i.dst, r);
  w.scc = r != 0;
}
void SMulI32(Wave& w, const Inst& i, Context& c) { WriteScalar32(w, i.dst, S0(w, i, c) * S1(w, i, c)); }

// SOPK ----------------------------------------------------------------------------------------------------------
void SMovkI32(Wave& w, const Inst& i, Context&) { WriteScalar32(w, i.dst, static_cast<uint32_t>(i.imm)); }

// SOP1 ----------------------------------------------------------------------------------------------------------
void SMovB32(Wave& w, const Inst& i, Context& c) { WriteScalar32(w, i.dst, S0(w, i, c)); }
void SMovB64(Wave& w, const Inst& i, Context& c) { WriteScalar64(w, i.dst, S0x64(w, i, c)); }
void SAndSaveexecB64(Wave& w, const Inst& i, Context& c) {
  const uint64_t old = w.exec();
  const uint64_t r = S0x64(w, i, c) & old;
  w.set_exec(r);
  WriteScalar64(w, i.dst, old);
  w.scc = r != 0;
}

// SOPC ----------------------------------------------------------------------------------------------------------
void SCmpEqU32(Wave& w, const Inst& i, Context& c) { w.scc = S0(w, i, c) == S1(w, i, c); }
void SCmpLgU32(Wave& w, const Inst& i, Context& c) { w.scc = S0(w, i, c) != S1(w, i, c); }

// SOPP ----------------------------------------------------------------------------------------------------------
void SNop(Wave&, const Inst&, Context&) {}
void SEndpgm(Wave& w, const Inst&, Context&) { w.state = Wave::State::kEnded; }
void Branch(Wave& w, const Inst& i) { w.pc += static_cast<int64_t>(i.imm) * 4; }
void SBranch(Wave& w, const Inst& i, Context&) { Branch(w, i); }
void SCbranchScc0(Wave& w, const Inst& i, Context&) {
  if (!w.scc) Branch(w, i);
}
void SCbranchScc1(Wave& w, const Inst& i, Context&) {
  if (w.scc) Branch(w, i);
}
void SCbranchVccz(Wave& w, const Inst& i, Context&) {
  if (w.vcc() == 0) Branch(w, i);
}
void SCbranchVccnz(Wave& w, const Inst& i, Context&) {
  if (w.vcc() != 0) Branch(w, i);
}
void SCbranchExecz(Wave& w, const Inst& i, Context&) {
  if (w.exec() == 0) Branch(w, i);
}
void SCbranchExecnz(Wave& w, const Inst& i, Context&) {
  if (w.exec() != 0) Branch(w, i);
}
void SBarrier(Wave& w, const Inst&, Context&) { w.state = Wave::State::kBarrier; }
// Memory operations complete before the instruction after them runs, so every counter is always zero.
void SWaitcnt(Wave&, const Inst&, Context&) {}

}  // namespace

const OpInfo* Sop2Op(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[0x00] = {"s_add_u32", &SAddU32};
    t[0x01] = {"s_sub_u32", &SSubU32};
    t[0x04] = {"s_addc_u32", &SAddcU32};
    t[0x0c] = {"s_and_b32", &SAndB32};
    t[0x0d] = {"s_and_b64", &SAndB64};
    t[0x0f] = {"s_or_b64", &SOrB64};
    t[0x11] = {"s_xor_b64", &SXorB64};
    t[0x13] = {"s_andn2_b64", &SAndn2B64};
    t[0x1c] = {"s_lshl_b32", &SLshlB32};
    t[0x24] = {"s_mul_i32", &SMulI32};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* SopkOp(uint16_t op) {
  static const std::array<OpInfo, 32> table = [] {
    std::array<OpInfo, 32> t{};
    t[0x00] = {"s_movk_i32", &SMovkI32};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* Sop1Op(uint16_t op) {
  static const std::array<OpInfo, 256> table = [] {
    std::array<OpInfo, 256> t{};
    t[0x00] = {"s_mov_b32", &SMovB32};
    t[0x01] = {"s_mov_b64", &SMovB64};
    t[0x20] = {"s_and_saveexec_b64", &SAndSaveexecB64};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* SopcOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[0x06] = {"s_cmp_eq_u32", &SCmpEqU32};
    t[0x07] = {"s_cmp_lg_u32", &SCmpLgU32};
    return t;
  }();
  return FindOp(table, op);
}

const OpInfo* SoppOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[0x00] = {"s_nop", &SNop};
    t[0x01] = {"s_endpgm", &SEndpgm};
    t[0x02] = {"s_branch", &SBranch};
    t[0x04] = {"s_cbranch_scc0", &SCbranchScc0};
    t[0x05] = {"s_cbranch_scc1", &SCbranchScc1};
    t[0x06] = {"s_cbranch_vccz", &SCbranchVccz};
    t[0x07] = {"s_cbranch_vccnz", &SCbranchVccnz};
    t[0x08] = {"s_cbranch_execz", &SCbranchExecz};
    t[0x09] = {"s_cbranch_execnz", &SCbranchExecnz};
    t[0x0a] = {"s_barrier", &SBarrier};
    t[0x0c] = {"s_waitcnt", &SWaitcnt};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
