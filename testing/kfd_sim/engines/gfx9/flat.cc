// FLAT, GLOBAL and SCRATCH memory instructions (one opcode space; Inst::seg says which address form).
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// The lane's address:
//   FLAT:    64-bit VGPR pair + offset, then the apertures decide (LDS, scratch or global);
//   GLOBAL:  SGPR pair + 32-bit VGPR + offset, or (saddr off) 64-bit VGPR pair + offset;
//   SCRATCH: a private-segment offset: SGPR + offset, VGPR + offset (gfx9: when saddr is off; gfx942: under SVE),
//            or the offset alone.
LaneAddress Address(const Wave& w, const Inst& i, const Context& c, int lane) {
  const uint32_t* lo = w.vgpr(i.addr - op::kVgpr0);
  switch (i.seg) {
    case 2: {
      if (i.saddr != op::kNone) return LaneAddress{Space::kGlobal, w.Read64(i.saddr) + lo[lane] + int64_t{i.imm}};
      const uint64_t base = uint64_t{lo[lane]} | (uint64_t{w.vgpr(i.addr - op::kVgpr0 + 1)[lane]} << 32);
      return LaneAddress{Space::kGlobal, base + int64_t{i.imm}};
    }
    case 1: {
      uint64_t offset = static_cast<uint64_t>(int64_t{i.imm});
      if (i.saddr != op::kNone) offset += w.s[i.saddr];
      const bool vaddr = c.dispatch != nullptr && c.dispatch->target == Target::kGfx942 ? i.sve : i.saddr == op::kNone;
      if (vaddr) offset += lo[lane];
      return LaneAddress{Space::kScratch, static_cast<uint32_t>(offset)};
    }
    default: {
      const uint64_t base = uint64_t{lo[lane]} | (uint64_t{w.vgpr(i.addr - op::kVgpr0 + 1)[lane]} << 32);
      return Classify(c, base + int64_t{i.imm});
    }
  }
}

// Loads `Bytes` bytes per lane into the destination: 1 and 2 extended to a dword (sign-extended when kSigned), 4-16
// as consecutive dwords.
template <int Bytes, bool kSigned>
void Load(Wave& w, const Inst& i, Context& c) {
  constexpr int kDwords = Bytes < 4 ? 1 : Bytes / 4;
  uint32_t* d[kDwords];
  for (int k = 0; k < kDwords; ++k) d[k] = DataRegister(w, i, static_cast<uint16_t>(i.dst + k));
  ForEachLane(w.exec(), [&](int l) {
    if (c.stopped()) return;
    unsigned char bytes[16] = {};
    if (!LaneRead(c, l, Address(w, i, c, l), bytes, Bytes)) return;
    if (Bytes == 1) {
      d[0][l] = kSigned ? static_cast<uint32_t>(static_cast<int8_t>(bytes[0])) : bytes[0];
    } else if (Bytes == 2) {
      uint16_t h;
      std::memcpy(&h, bytes, 2);
      d[0][l] = kSigned ? static_cast<uint32_t>(static_cast<int16_t>(h)) : h;
    } else {
      for (int k = 0; k < kDwords; ++k) std::memcpy(&d[k][l], bytes + 4 * k, 4);
    }
  });
}

// Stores the low `Bytes` bytes (1, 2) or `Bytes / 4` dwords of the data operand per lane; kHigh stores the high
// half of the dword (the _d16_hi forms).
template <int Bytes, bool kHigh>
void Store(Wave& w, const Inst& i, Context& c) {
  constexpr int kDwords = Bytes < 4 ? 1 : Bytes / 4;
  uint32_t* s[kDwords];
  for (int k = 0; k < kDwords; ++k) s[k] = DataRegister(w, i, static_cast<uint16_t>(i.data0 + k));
  ForEachLane(w.exec(), [&](int l) {
    if (c.stopped()) return;
    unsigned char bytes[16];
    for (int k = 0; k < kDwords; ++k) {
      const uint32_t v = kHigh ? s[k][l] >> 16 : s[k][l];
      std::memcpy(bytes + 4 * k, &v, 4);
    }
    LaneWrite(c, l, Address(w, i, c, l), bytes, Bytes);
  });
}

// An atomic read-modify-write per lane; with GLC (gfx942: SC0) the old value goes to the destination.
template <typename T, T (*F)(T old, T data, T compare)>
void Atomic(Wave& w, const Inst& i, Context& c) {
  constexpr int kDwords = sizeof(T) / 4;
  uint32_t* data[kDwords];
  uint32_t* compare[kDwords];
  uint32_t* dst[kDwords];
  for (int k = 0; k < kDwords; ++k) {
    data[k] = DataRegister(w, i, static_cast<uint16_t>(i.data0 + k));
    compare[k] = DataRegister(w, i, static_cast<uint16_t>(i.data0 + kDwords + k));  // cmpswap: {src, cmp}
    dst[k] = DataRegister(w, i, static_cast<uint16_t>(i.dst + k));
  }
  ForEachLane(w.exec(), [&](int l) {
    if (c.stopped()) return;
    T v = 0, cmp = 0;
    for (int k = 0; k < kDwords; ++k) {
      v |= static_cast<T>(static_cast<uint64_t>(data[k][l]) << (32 * k));
      cmp |= static_cast<T>(static_cast<uint64_t>(compare[k][l]) << (32 * k));
    }
    const LaneAddress a = Address(w, i, c, l);
    if (a.address % sizeof(T) != 0) {
      c.Illegal("misaligned atomic");
      return;
    }
    bool shared = false, dropped = false;
    void* word = LaneWord(c, l, a, sizeof(T), &shared, &dropped);
    if (word == nullptr && !dropped) return;  // a fault
    T old = 0;
    if (word != nullptr) {
      T* p = static_cast<T*>(word);
      if (shared) {
        std::atomic_ref<T> ref(*p);
        old = ref.load(std::memory_order_relaxed);
        while (!ref.compare_exchange_weak(old, F(old, v, cmp), std::memory_order_seq_cst)) {
        }
      } else {
        old = *p;
        *p = F(old, v, cmp);
      }
    }
    if (i.glc) {
      for (int k = 0; k < kDwords; ++k) dst[k][l] = static_cast<uint32_t>(static_cast<uint64_t>(old) >> (32 * k));
    }
  });
}

template <typename T> T Swap(T, T d, T) { return d; }
template <typename T> T CmpSwap(T old, T d, T cmp) { return old == cmp ? d : old; }
template <typename T> T AddOp(T old, T d, T) { return old + d; }
template <typename T> T SubOp(T old, T d, T) { return old - d; }

}  // namespace

const OpInfo* FlatOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    t[16] = {"flat_load_ubyte", &Load<1, false>};
    t[17] = {"flat_load_sbyte", &Load<1, true>};
    t[18] = {"flat_load_ushort", &Load<2, false>};
    t[19] = {"flat_load_sshort", &Load<2, true>};
    t[20] = {"flat_load_dword", &Load<4, false>};
    t[21] = {"flat_load_dwordx2", &Load<8, false>};
    t[22] = {"flat_load_dwordx3", &Load<12, false>};
    t[23] = {"flat_load_dwordx4", &Load<16, false>};
    t[24] = {"flat_store_byte", &Store<1, false>};
    t[25] = {"flat_store_byte_d16_hi", &Store<1, true>};
    t[26] = {"flat_store_short", &Store<2, false>};
    t[27] = {"flat_store_short_d16_hi", &Store<2, true>};
    t[28] = {"flat_store_dword", &Store<4, false>};
    t[29] = {"flat_store_dwordx2", &Store<8, false>};
    t[30] = {"flat_store_dwordx3", &Store<12, false>};
    t[31] = {"flat_store_dwordx4", &Store<16, false>};
    t[64] = {"flat_atomic_swap", &Atomic<uint32_t, Swap<uint32_t>>};
    t[65] = {"flat_atomic_cmpswap", &Atomic<uint32_t, CmpSwap<uint32_t>>};
    t[66] = {"flat_atomic_add", &Atomic<uint32_t, AddOp<uint32_t>>};
    t[67] = {"flat_atomic_sub", &Atomic<uint32_t, SubOp<uint32_t>>};
    t[96] = {"flat_atomic_swap_x2", &Atomic<uint64_t, Swap<uint64_t>>};
    t[97] = {"flat_atomic_cmpswap_x2", &Atomic<uint64_t, CmpSwap<uint64_t>>};
    t[98] = {"flat_atomic_add_x2", &Atomic<uint64_t, AddOp<uint64_t>>};
    t[99] = {"flat_atomic_sub_x2", &Atomic<uint64_t, SubOp<uint64_t>>};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
