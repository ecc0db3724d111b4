// FLAT, GLOBAL and SCRATCH memory instructions (one opcode space; Inst::seg says which address form).
#include <array>
#include <cstdint>
#include <cstring>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/lds_load.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

namespace ao = atomic_op;

uint64_t VgprPair(const Wave& w, const Inst& i, int lane) {
  return uint64_t{w.vgpr(i.addr - op::kVgpr0)[lane]} | (uint64_t{w.vgpr(i.addr - op::kVgpr0 + 1)[lane]} << 32);
}

// The lane's address:
//   FLAT:    64-bit VGPR pair + offset, then the apertures decide (LDS, scratch or global);
//   GLOBAL:  SGPR pair + 32-bit VGPR + offset, or (saddr off) 64-bit VGPR pair + offset;
//   SCRATCH: a private-segment offset: SGPR + offset, VGPR + offset (gfx9: when saddr is off; gfx942: under SVE),
//            or the offset alone.
LaneAddress Address(const Wave& w, const Inst& i, const Context& c, int lane) {
  switch (i.seg) {
    case 2: {
      if (i.saddr != op::kNone) {
        return LaneAddress{Space::kGlobal, w.Read64(i.saddr) + w.vgpr(i.addr - op::kVgpr0)[lane] + int64_t{i.imm}};
      }
      return LaneAddress{Space::kGlobal, VgprPair(w, i, lane) + int64_t{i.imm}};
    }
    case 1: {
      uint64_t offset = static_cast<uint64_t>(int64_t{i.imm});
      if (i.saddr != op::kNone) offset += w.s[i.saddr];
      const bool vaddr = c.dispatch != nullptr && c.dispatch->target == Target::kGfx942 ? i.sve : i.saddr == op::kNone;
      if (vaddr) offset += w.vgpr(i.addr - op::kVgpr0)[lane];
      return ScratchLane(w.Read64(op::kFlatScratchLo), static_cast<uint32_t>(offset), lane);
    }
    default:
      return Classify(c, VgprPair(w, i, lane) + int64_t{i.imm}, w.Read64(op::kFlatScratchLo), lane);
  }
}

// Every lane's VA at once (plain loops the compiler vectorises), for the whole-wave path: GLOBAL always, FLAT when
// no active lane's address falls in the LDS or scratch aperture. False (va unspecified) otherwise: SCRATCH, or a
// FLAT access that reaches LDS or scratch, which resolve lane by lane.
bool GlobalAddresses(const Wave& w, const Inst& i, const Context& c, uint64_t va[kWaveSize]) {
  if (i.seg == 1) return false;
  const int64_t offset = i.imm;
  const uint32_t* lo = w.vgpr(i.addr - op::kVgpr0);
  if (i.seg == 2 && i.saddr != op::kNone) {
    const uint64_t base = w.Read64(i.saddr) + static_cast<uint64_t>(offset);
    for (int l = 0; l < kWaveSize; ++l) va[l] = base + lo[l];
    return true;
  }
  const uint32_t* hi = w.vgpr(i.addr - op::kVgpr0 + 1);
  for (int l = 0; l < kWaveSize; ++l) va[l] = (uint64_t{lo[l]} | (uint64_t{hi[l]} << 32)) + static_cast<uint64_t>(offset);
  if (i.seg == 2) return true;
  bool local = false;
  ForEachLane(w.exec(), [&](int l) { local = local || Classify(c, va[l]).space != Space::kGlobal; });
  return !local;
}

// The streaming case of a dword load or store, told from the address registers alone (32-bit compares the compiler
// vectorises, no 64 lane addresses to build): every lane active, lane l at lane 0's VA + 4 * l, and all of it
// global. Sets `*first` to lane 0's VA. False otherwise; the caller then takes the general path, which also finds
// any fault. For FLAT, lanes 0 and 63 outside the apertures put every lane outside them: an aperture (4 GiB) cannot
// fit between two addresses 252 bytes apart.
bool ContiguousDwords(const Wave& w, const Inst& i, const Context& c, uint64_t* first) {
  if (i.seg == 1 || w.exec() != ~uint64_t{0}) return false;
  constexpr uint32_t kSpan = 4 * kWaveSize;
  const uint32_t* lo = w.vgpr(i.addr - op::kVgpr0);
  if (lo[0] > UINT32_MAX - (kSpan - 4)) return false;  // the low halves would wrap
  uint32_t differ = 0;
  for (int l = 0; l < kWaveSize; ++l) differ |= lo[l] - (lo[0] + 4u * static_cast<uint32_t>(l));
  const uint64_t offset = static_cast<uint64_t>(int64_t{i.imm});
  if (i.seg == 2 && i.saddr != op::kNone) {
    *first = w.Read64(i.saddr) + lo[0] + offset;
  } else {
    const uint32_t* hi = w.vgpr(i.addr - op::kVgpr0 + 1);
    for (int l = 0; l < kWaveSize; ++l) differ |= hi[l] ^ hi[0];
    *first = ((uint64_t{hi[0]} << 32) | lo[0]) + offset;
    if (i.seg == 0 && (Classify(c, *first).space != Space::kGlobal ||
                       Classify(c, *first + kSpan - 4).space != Space::kGlobal)) {
      return false;
    }
  }
  return differ == 0 && *first + kSpan > *first;
}

auto Accessor(const Wave& w, const Inst& i, const Context& c) {
  return [&w, &i, &c](int lane, uint32_t bytes) { return LaneAccess{Address(w, i, c, lane), bytes}; };
}

// gfx9's LDS bit (a load that writes LDS instead of VGPRs) is not something LLVM emits for these targets.
bool RefuseLds(const Inst& i, Context& c) {
  if (!i.lds) return false;
  c.Illegal("FLAT/GLOBAL load to LDS (the lds bit) is not simulated");
  return true;
}

template <LoadKind kKind, uint32_t kBytes>
void Load(Wave& w, const Inst& i, Context& c) {
  if (RefuseLds(i, c)) return;
  if constexpr (kKind == LoadKind::kDwords && kBytes == 4) {
    uint64_t first = 0;
    if (ContiguousDwords(w, i, c, &first)) {
      if (const void* host = c.memory->Range(first, 4 * kWaveSize)) {  // one translation holds the whole wave's
        std::memcpy(DataRegister(w, i, i.dst), host, 4 * kWaveSize);
        return;
      }
    }
  }
  uint64_t va[kWaveSize];
  if (GlobalAddresses(w, i, c, va) && LoadWave<kKind, kBytes>(w, i, c, i.dst, va)) return;
  LoadLanes<kKind, kBytes>(w, i, c, i.dst, Accessor(w, i, c));
}

template <uint32_t kBytes, bool kHigh>
void Store(Wave& w, const Inst& i, Context& c) {
  if (RefuseLds(i, c)) return;
  if constexpr (kBytes == 4 && !kHigh) {
    uint64_t first = 0;
    if (ContiguousDwords(w, i, c, &first)) {
      if (void* host = c.memory->Range(first, 4 * kWaveSize)) {  // one translation holds the whole wave's
        std::memcpy(host, DataRegister(w, i, i.data0), 4 * kWaveSize);
        return;
      }
    }
  }
  uint64_t va[kWaveSize];
  if (GlobalAddresses(w, i, c, va) && StoreWave<kBytes, kHigh>(w, i, c, i.data0, va)) return;
  StoreLanes<kBytes, kHigh>(w, i, c, i.data0, Accessor(w, i, c));
}

// An atomic; with GLC (gfx942: SC0, the same bit 16) the old value goes to the destination. Compare-swap's data is
// {new value, compare value}: the compare operand follows the data.
template <typename T, T (*F)(T, T, T)>
void Atomic(Wave& w, const Inst& i, Context& c) {
  if (i.seg == 1) {
    c.Illegal("SCRATCH has no atomics");
    return;
  }
  AtomicLanes<T, F>(w, i, c, i.data0, static_cast<uint16_t>(i.data0 + sizeof(T) / 4), i.glc, i.dst,
                    Accessor(w, i, c));
}

// gfx942's GLOBAL/SCRATCH loads to LDS (lds_load.h): each lane's value goes to LDS at M0 + the instruction offset +
// 4 * lane (the offset applies to both addresses), not to a VGPR.
template <LoadKind kKind, uint32_t kBytes>
void LoadLds(Wave& w, const Inst& i, Context& c) {
  if (c.dispatch == nullptr || c.dispatch->target != Target::kGfx942 || i.seg == 0) {
    c.Illegal("global_load_lds_* and scratch_load_lds_* exist only on gfx942");
    return;
  }
  LoadLanesToLds<kKind, kBytes>(w, i, c, Accessor(w, i, c));
}

}  // namespace

const OpInfo* FlatOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[0x10] = {"flat_load_ubyte", &Load<LoadKind::kZext, 1>};
    t[0x11] = {"flat_load_sbyte", &Load<LoadKind::kSext, 1>};
    t[0x12] = {"flat_load_ushort", &Load<LoadKind::kZext, 2>};
    t[0x13] = {"flat_load_sshort", &Load<LoadKind::kSext, 2>};
    t[0x14] = {"flat_load_dword", &Load<LoadKind::kDwords, 4>};
    t[0x15] = {"flat_load_dwordx2", &Load<LoadKind::kDwords, 8>};
    t[0x16] = {"flat_load_dwordx3", &Load<LoadKind::kDwords, 12>};
    t[0x17] = {"flat_load_dwordx4", &Load<LoadKind::kDwords, 16>};
    t[0x18] = {"flat_store_byte", &Store<1, false>};
    t[0x19] = {"flat_store_byte_d16_hi", &Store<1, true>};
    t[0x1a] = {"flat_store_short", &Store<2, false>};
    t[0x1b] = {"flat_store_short_d16_hi", &Store<2, true>};
    t[0x1c] = {"flat_store_dword", &Store<4, false>};
    t[0x1d] = {"flat_store_dwordx2", &Store<8, false>};
    t[0x1e] = {"flat_store_dwordx3", &Store<12, false>};
    t[0x1f] = {"flat_store_dwordx4", &Store<16, false>};
    t[0x20] = {"flat_load_ubyte_d16", &Load<LoadKind::kD16Zext, 1>};
    t[0x21] = {"flat_load_ubyte_d16_hi", &Load<LoadKind::kD16HiZext, 1>};
    t[0x22] = {"flat_load_sbyte_d16", &Load<LoadKind::kD16Sext, 1>};
    t[0x23] = {"flat_load_sbyte_d16_hi", &Load<LoadKind::kD16HiSext, 1>};
    t[0x24] = {"flat_load_short_d16", &Load<LoadKind::kD16Zext, 2>};
    t[0x25] = {"flat_load_short_d16_hi", &Load<LoadKind::kD16HiZext, 2>};
    t[0x26] = {"global_load_lds_ubyte", &LoadLds<LoadKind::kZext, 1>};  // gfx942
    t[0x27] = {"global_load_lds_sbyte", &LoadLds<LoadKind::kSext, 1>};
    t[0x28] = {"global_load_lds_ushort", &LoadLds<LoadKind::kZext, 2>};
    t[0x29] = {"global_load_lds_sshort", &LoadLds<LoadKind::kSext, 2>};
    t[0x2a] = {"global_load_lds_dword", &LoadLds<LoadKind::kDwords, 4>};
    t[0x40] = {"flat_atomic_swap", &Atomic<uint32_t, ao::Swap<uint32_t>>};
    t[0x41] = {"flat_atomic_cmpswap", &Atomic<uint32_t, ao::CmpSwap<uint32_t>>};
    t[0x42] = {"flat_atomic_add", &Atomic<uint32_t, ao::Add<uint32_t>>};
    t[0x43] = {"flat_atomic_sub", &Atomic<uint32_t, ao::Sub<uint32_t>>};
    t[0x44] = {"flat_atomic_smin", &Atomic<uint32_t, ao::SMin<uint32_t>>};
    t[0x45] = {"flat_atomic_umin", &Atomic<uint32_t, ao::UMin<uint32_t>>};
    t[0x46] = {"flat_atomic_smax", &Atomic<uint32_t, ao::SMax<uint32_t>>};
    t[0x47] = {"flat_atomic_umax", &Atomic<uint32_t, ao::UMax<uint32_t>>};
    t[0x48] = {"flat_atomic_and", &Atomic<uint32_t, ao::And<uint32_t>>};
    t[0x49] = {"flat_atomic_or", &Atomic<uint32_t, ao::Or<uint32_t>>};
    t[0x4a] = {"flat_atomic_xor", &Atomic<uint32_t, ao::Xor<uint32_t>>};
    t[0x4b] = {"flat_atomic_inc", &Atomic<uint32_t, ao::Inc<uint32_t>>};
    t[0x4c] = {"flat_atomic_dec", &Atomic<uint32_t, ao::Dec<uint32_t>>};
    t[0x4d] = {"flat_atomic_add_f32", &Atomic<uint32_t, ao::AddF32Ftz>};
    t[0x4e] = {"flat_atomic_pk_add_f16", &Atomic<uint32_t, ao::PkAddF16>};
    t[0x4f] = {"flat_atomic_add_f64", &Atomic<uint64_t, ao::AddF64>};
    t[0x50] = {"flat_atomic_min_f64", &Atomic<uint64_t, ao::MinF64>};
    t[0x51] = {"flat_atomic_max_f64", &Atomic<uint64_t, ao::MaxF64>};
    t[0x52] = {"flat_atomic_pk_add_bf16", &Atomic<uint32_t, ao::PkAddBf16>};
    t[0x60] = {"flat_atomic_swap_x2", &Atomic<uint64_t, ao::Swap<uint64_t>>};
    t[0x61] = {"flat_atomic_cmpswap_x2", &Atomic<uint64_t, ao::CmpSwap<uint64_t>>};
    t[0x62] = {"flat_atomic_add_x2", &Atomic<uint64_t, ao::Add<uint64_t>>};
    t[0x63] = {"flat_atomic_sub_x2", &Atomic<uint64_t, ao::Sub<uint64_t>>};
    t[0x64] = {"flat_atomic_smin_x2", &Atomic<uint64_t, ao::SMin<uint64_t>>};
    t[0x65] = {"flat_atomic_umin_x2", &Atomic<uint64_t, ao::UMin<uint64_t>>};
    t[0x66] = {"flat_atomic_smax_x2", &Atomic<uint64_t, ao::SMax<uint64_t>>};
    t[0x67] = {"flat_atomic_umax_x2", &Atomic<uint64_t, ao::UMax<uint64_t>>};
    t[0x68] = {"flat_atomic_and_x2", &Atomic<uint64_t, ao::And<uint64_t>>};
    t[0x69] = {"flat_atomic_or_x2", &Atomic<uint64_t, ao::Or<uint64_t>>};
    t[0x6a] = {"flat_atomic_xor_x2", &Atomic<uint64_t, ao::Xor<uint64_t>>};
    t[0x6b] = {"flat_atomic_inc_x2", &Atomic<uint64_t, ao::Inc<uint64_t>>};
    t[0x6c] = {"flat_atomic_dec_x2", &Atomic<uint64_t, ao::Dec<uint64_t>>};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
