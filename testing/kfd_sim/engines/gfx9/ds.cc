// LDS instructions: DS. Every access is to the workgroup's LDS. An address past the workgroup's allocation reads 0
// and drops writes and atomics: GFX9 checks LDS addresses against the allocation (no longer against M0, which gfx9
// stopped using as the LDS limit).
//
// GDS and GWS, as a queue of ours has them, which is not at all:
// - The gds bit: gfx90a and gfx942 have no GDS (LLVM refuses the modifier there), so on them it is an illegal
//   instruction. gfx908 has GDS, but amdkfd gives a user queue's VMID no GDS partition (GDS_SIZE 0) and ROCr asks for
//   none, so every GDS address is out of range: loads read 0, stores and atomics are dropped (atomics return 0), as
//   an out-of-range LDS access. That a zero-sized partition behaves as out of range, rather than faulting, is inferred.
// - ds_gws_*: a queue has GWS only when the runtime asked the KFD for it (ALLOC_QUEUE_GWS: ROCr's cooperative queue,
//   kfdtest's GWS tests); they then operate on its GwsBlock (gws.h). Without it a GWS operation is an illegal
//   instruction (a queue error), our decision where the hardware's behaviour is not documented.
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/gfx9/gws.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

namespace ao = atomic_op;

// The lane's address plus the 16-bit offset, or (read2/write2) plus offset0 or offset1 in units of the element size,
// times 64 for the st64 forms. The sum wraps at 32 bits: LLVM folds a constant into the offset of an address it
// computed as a negative 32-bit value (ds_write_b16 v5, v4 offset:510 with v5 = -2 * tid).
// A GDS access (gfx908) is out of range whatever its address: no byte of it is inside the queue's empty partition.
auto Accessor(const Wave& w, const Inst& i, uint32_t offset) {
  const uint32_t* a = w.vgpr(i.addr - op::kVgpr0);
  const bool gds = i.gds;
  return [a, offset, gds](int lane, uint32_t bytes) {
    return LaneAccess{LaneAddress{Space::kLds, static_cast<uint32_t>(a[lane] + offset)}, gds ? 0 : bytes};
  };
}
auto Accessor(const Wave& w, const Inst& i) { return Accessor(w, i, static_cast<uint16_t>(i.imm)); }

// The gds bit where there is no GDS (gfx90a, gfx942), or on an operation that has no GDS form (the lane exchanges).
bool RefuseGds(const Inst& i, Context& c, bool has_gds_form = true) {
  if (!i.gds) return false;
  if (!has_gds_form) {
    c.Illegal("a lane exchange with the GDS bit");
    return true;
  }
  if (c.dispatch != nullptr && c.dispatch->target != Target::kGfx908) {
    c.Illegal("the GDS bit on a GPU without GDS (gfx90a, gfx942)");
    return true;
  }
  return false;
}

// GWS (gws.h). The resource is the offset field's low 6 bits plus M0[21:16] (LLVM puts a variable resource id in
// M0[21:16] and a constant one in the offset); the data, where the instruction has any, is the ADDR field's VGPR in
// the wave's first active lane. Without an allocation every form is illegal (see the top).
enum class GwsOp : uint8_t { kInit, kSemaV, kSemaBr, kSemaP, kReleaseAll, kBarrier };

template <GwsOp kOp>
void Gws(Wave& w, const Inst& i, Context& c) {
  if (c.gws == nullptr) {
    c.Illegal(absl::StrCat(i.info->name, ": the queue has no global wave sync resources (none allocated)"));
    return;
  }
  const uint64_t exec = w.exec();
  if (exec == 0) return;  // no lane to take the data from (inferred: the instruction does nothing)
  const int lane = __builtin_ctzll(exec);
  const uint32_t resource = (static_cast<uint32_t>(i.imm) & 0x3fu) + ((w.s[op::kM0] >> 16) & 0x3fu);
  const uint32_t data = w.vgpr(i.addr - op::kVgpr0)[lane];
  std::optional<GwsBlock::Wait> wait;
  switch (kOp) {
    case GwsOp::kInit: c.gws->Init(resource, data); break;
    case GwsOp::kSemaV: c.gws->SemaV(resource, 1); break;
    case GwsOp::kSemaBr: c.gws->SemaV(resource, data); break;
    case GwsOp::kReleaseAll: c.gws->SemaReleaseAll(resource); break;
    case GwsOp::kSemaP: wait = c.gws->SemaP(resource); break;
    case GwsOp::kBarrier: wait = c.gws->Barrier(resource, data); break;
  }
  if (wait.has_value()) {
    w.gws_wait = *wait;
    w.state = Wave::State::kGwsWait;
  }
}

// The reads and writes, the common DS instructions, go to LDS lane by lane in one pass: an LDS access cannot fault,
// so there is nothing to resolve for every lane before data moves (as LoadLanes/StoreLanes do for memory that can).
// A lane's access that does not lie wholly inside the first `reach` bytes reads 0 and writes nothing (as
// ResolveLane's LDS case). `reach` is the workgroup's allocation, or 0 for a GDS access (gfx908's empty partition).
uint32_t Reach(const Inst& i, const Context& c) { return i.gds ? 0 : c.lds_bytes; }

// The LDS bytes of a kBytes-byte access at `address`, or null when it is out of range.
template <uint32_t kBytes>
unsigned char* LdsBytes(const Context& c, uint32_t reach, uint32_t address) {
  return uint64_t{address} + kBytes <= reach ? c.lds + address : nullptr;
}

// Loads kBytes per lane at the lane's address + `offset` into the registers from `dst` on. Each lane reads its
// address before it writes its own destination lane, so a destination overlapping the address register is fine.
template <LoadKind kKind, uint32_t kBytes>
void ReadLds(Wave& w, const Inst& i, const Context& c, uint32_t offset) {
  constexpr uint32_t kDwords = kBytes < 4 ? 1 : kBytes / 4;
  const uint32_t reach = Reach(i, c);
  const uint32_t* a = w.vgpr(i.addr - op::kVgpr0);
  uint32_t* d[kDwords];
  for (uint32_t k = 0; k < kDwords; ++k) d[k] = DataRegister(w, i, static_cast<uint16_t>(i.dst + k));
  ForEachLane(w.exec(), [&](int l) {
    unsigned char bytes[4 * kDwords] = {};
    if (const unsigned char* p = LdsBytes<kBytes>(c, reach, a[l] + offset)) std::memcpy(bytes, p, kBytes);
    for (uint32_t k = 0; k < kDwords; ++k) d[k][l] = LoadedDword(kKind, kBytes, bytes + 4 * k, d[k][l]);
  });
}

// Stores the low kBytes (kHigh: the high half's) of the data registers from `data` on at the lane's address +
// `offset`, lowest lane first, so that where lanes' bytes overlap the highest lane's land last.
template <uint32_t kBytes, bool kHigh>
void WriteLds(Wave& w, const Inst& i, const Context& c, uint16_t data, uint32_t offset) {
  constexpr uint32_t kDwords = kBytes < 4 ? 1 : kBytes / 4;
  const uint32_t reach = Reach(i, c);
  const uint32_t* a = w.vgpr(i.addr - op::kVgpr0);
  const uint32_t* s[kDwords];
  for (uint32_t k = 0; k < kDwords; ++k) s[k] = DataRegister(w, i, static_cast<uint16_t>(data + k));
  ForEachLane(w.exec(), [&](int l) {
    unsigned char* p = LdsBytes<kBytes>(c, reach, a[l] + offset);
    if (p == nullptr) return;
    unsigned char bytes[4 * kDwords];
    for (uint32_t k = 0; k < kDwords; ++k) {
      const uint32_t v = kHigh ? s[k][l] >> 16 : s[k][l];
      std::memcpy(bytes + 4 * k, &v, 4);
    }
    std::memcpy(p, bytes, kBytes);
  });
}

template <LoadKind kKind, uint32_t kBytes>
void Read(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  ReadLds<kKind, kBytes>(w, i, c, static_cast<uint16_t>(i.imm));
}

template <uint32_t kBytes, bool kHigh>
void Write(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  WriteLds<kBytes, kHigh>(w, i, c, i.data0, static_cast<uint16_t>(i.imm));
}

// read2/write2: two elements of kBytes (4 or 8) at offset0 and offset1 elements (x64 for st64); data0 and data1 are
// the two sources, the destination holds the two results back to back. Both of a lane's addresses are taken before
// its destination is written, since it may overlap the address register.
template <uint32_t kBytes, uint32_t kStride>
void Read2(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  constexpr uint32_t kDwords = kBytes / 4;
  const uint32_t reach = Reach(i, c);
  const uint32_t offsets[2] = {uint32_t{i.offset0} * kBytes * kStride, uint32_t{i.offset1} * kBytes * kStride};
  const uint32_t* a = w.vgpr(i.addr - op::kVgpr0);
  uint32_t* d[2 * kDwords];
  for (uint32_t k = 0; k < 2 * kDwords; ++k) d[k] = DataRegister(w, i, static_cast<uint16_t>(i.dst + k));
  ForEachLane(w.exec(), [&](int l) {
    uint32_t values[2 * kDwords] = {};
    for (int k = 0; k < 2; ++k) {
      if (const unsigned char* p = LdsBytes<kBytes>(c, reach, a[l] + offsets[k])) {
        std::memcpy(values + k * kDwords, p, kBytes);
      }
    }
    for (uint32_t k = 0; k < 2 * kDwords; ++k) d[k][l] = values[k];
  });
}

template <uint32_t kBytes, uint32_t kStride>
void Write2(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  WriteLds<kBytes, false>(w, i, c, i.data0, uint32_t{i.offset0} * kBytes * kStride);
  WriteLds<kBytes, false>(w, i, c, i.data1, uint32_t{i.offset1} * kBytes * kStride);
}

// An atomic with one data operand (data0); kReturn writes the old value to the destination.
template <typename T, T (*F)(T, T, T), bool kReturn>
void Atomic(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  AtomicLanes<T, F>(w, i, c, i.data0, i.data0, kReturn, i.dst, Accessor(w, i));
}

// The two-operand atomics take data0 as the compare value (cmpst), the mask (mskor) or the limit (wrap) and data1
// as the new value or data: the operation sees data1 as its data and data0 as its compare operand.
template <typename T, T (*F)(T, T, T), bool kReturn>
void Atomic2(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  AtomicLanes<T, F>(w, i, c, i.data1, i.data0, kReturn, i.dst, Accessor(w, i));
}

// ds_add_f32 honours the MODE register's f32 denormal field (3: keep them; otherwise flush), unlike the global f32
// atomic add, which always flushes.
template <bool kReturn>
void AddF32(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  if (((w.mode >> 4) & 3) == 3) {
    AtomicLanes<uint32_t, ao::AddF32>(w, i, c, i.data0, i.data0, kReturn, i.dst, Accessor(w, i));
  } else {
    AtomicLanes<uint32_t, ao::AddF32Ftz>(w, i, c, i.data0, i.data0, kReturn, i.dst, Accessor(w, i));
  }
}

// Float compare-store: the compare is a float compare (+0 equals -0, a NaN equals nothing).
uint32_t CmpStF32(uint32_t old, uint32_t d, uint32_t cmp) { return BitsF32(old) == BitsF32(cmp) ? d : old; }
uint64_t CmpStF64(uint64_t old, uint64_t d, uint64_t cmp) { return BitsF64(old) == BitsF64(cmp) ? d : old; }

// wrxchg2: exchanges data0 at offset0 and data1 at offset1 (elements, x64 for st64); the old values go to the
// destination back to back (both addresses and data are read before it is written).
template <typename T, uint32_t kStride>
void Exchange2(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  constexpr uint32_t kDwords = sizeof(T) / 4;
  const uint64_t mask = w.exec();
  LaneSpan spans[2][kWaveSize];
  const uint8_t offsets[2] = {i.offset0, i.offset1};
  for (int k = 0; k < 2; ++k) {
    auto access = Accessor(w, i, static_cast<uint32_t>(offsets[k] * sizeof(T) * kStride));
    (void)ResolveLanes(c, mask, [&](int l) { return access(l, static_cast<uint32_t>(sizeof(T))); }, spans[k]);
  }
  const uint16_t data[2] = {i.data0, i.data1};
  ForEachLane(mask, [&](int l) {
    uint32_t old[2 * kDwords];
    for (int k = 0; k < 2; ++k) {
      T v = 0;
      for (uint32_t j = 0; j < kDwords; ++j) {
        v |= static_cast<T>(static_cast<uint64_t>(DataRegister(w, i, static_cast<uint16_t>(data[k] + j))[l]) << (32 * j));
      }
      const T o = AtomicAt<T>(spans[k][l], [v](T) { return v; });
      for (uint32_t j = 0; j < kDwords; ++j) old[k * kDwords + j] = static_cast<uint32_t>(static_cast<uint64_t>(o) >> (32 * j));
    }
    for (uint32_t j = 0; j < 2 * kDwords; ++j) DataRegister(w, i, static_cast<uint16_t>(i.dst + j))[l] = old[j];
  });
}

// Lane exchanges through the LDS crossbar (no LDS is touched). A source lane EXEC disables contributes 0; only
// enabled lanes are written.
template <typename SourceFn>
void Gather(Wave& w, const Inst& i, uint16_t data_register, SourceFn source) {
  const uint64_t exec = w.exec();
  const uint32_t* data = w.vgpr(data_register - op::kVgpr0);
  uint32_t tmp[kWaveSize];
  for (int l = 0; l < kWaveSize; ++l) {
    const int s = source(l);
    tmp[l] = ((exec >> s) & 1) != 0 ? data[s] : 0;
  }
  uint32_t* dst = w.vgpr(i.dst - op::kVgpr0);
  ForEachLane(exec, [&](int l) { dst[l] = tmp[l]; });
}

// ds_swizzle_b32 (its source is the ADDR field's VGPR): offset[15] set, a permutation within each quad by the 2-bit fields of offset[7:0]; clear, a
// bit-mask permutation within each half of the wave: ((lane & and_mask) | or_mask) ^ xor_mask over the low 5 bits,
// the masks in offset[4:0], [9:5], [14:10].
void Swizzle(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c, false)) return;
  const uint32_t offset = static_cast<uint16_t>(i.imm);
  if ((offset & 0x8000u) != 0) {
    Gather(w, i, i.addr, [offset](int l) { return (l & ~3) | static_cast<int>((offset >> (2 * (l & 3))) & 3); });
  } else {
    const int and_mask = offset & 0x1f, or_mask = (offset >> 5) & 0x1f, xor_mask = (offset >> 10) & 0x1f;
    Gather(w, i, i.addr, [=](int l) { return (l & 0x20) | ((((l & 0x1f) & and_mask) | or_mask) ^ xor_mask); });
  }
}

// The lane a permute's address names: (address + offset) / 4, modulo the wave.
int PermuteLane(const Inst& i, uint32_t address) {
  return static_cast<int>(((address + static_cast<uint16_t>(i.imm)) >> 2) & (kWaveSize - 1));
}

// ds_bpermute_b32: each lane reads data0 of the lane its address names.
void Bpermute(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c, false)) return;
  const uint32_t* a = w.vgpr(i.addr - op::kVgpr0);
  Gather(w, i, i.data0, [&](int l) { return PermuteLane(i, a[l]); });
}

// ds_permute_b32: each enabled lane writes its data0 to the lane its address names (the highest lane wins when two
// name the same one); lanes nobody writes get 0.
void Permute(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c, false)) return;
  const uint64_t exec = w.exec();
  const uint32_t* a = w.vgpr(i.addr - op::kVgpr0);
  const uint32_t* data = w.vgpr(i.data0 - op::kVgpr0);
  uint32_t tmp[kWaveSize] = {};
  ForEachLane(exec, [&](int l) { tmp[PermuteLane(i, a[l])] = data[l]; });
  uint32_t* dst = w.vgpr(i.dst - op::kVgpr0);
  ForEachLane(exec, [&](int l) { dst[l] = tmp[l]; });
}

// ds_append / ds_consume on LDS: the dword at M0[15:0] + offset grows (shrinks) by the number of enabled lanes; every
// enabled lane receives the value before.
template <bool kAppend>
void Counter(Wave& w, const Inst& i, Context& c) {
  if (RefuseGds(i, c)) return;
  const uint64_t exec = w.exec();
  if (exec == 0) return;
  const uint32_t count = static_cast<uint32_t>(__builtin_popcountll(exec));
  LaneSpan span;
  const uint64_t address = (w.s[op::kM0] & 0xffffu) + static_cast<uint16_t>(i.imm);
  (void)ResolveLane(c, LaneAccess{LaneAddress{Space::kLds, address & ~uint64_t{3}}, i.gds ? 0u : 4u}, &span);
  const uint32_t old = AtomicAt<uint32_t>(span, [&](uint32_t o) { return kAppend ? o + count : o - count; });
  uint32_t* dst = w.vgpr(i.dst - op::kVgpr0);
  ForEachLane(exec, [&](int l) { dst[l] = old; });
}

void Nop(Wave&, const Inst&, Context&) {}

}  // namespace

const OpInfo* DsOp(uint16_t op) {
  static const std::array<OpInfo, 256> table = [] {
    std::array<OpInfo, 256> t{};
    using u32 = uint32_t;
    using u64 = uint64_t;
    // 32-bit atomics without (0x00-) and with (0x20-) return.
    t[0x00] = {"ds_add_u32", &Atomic<u32, ao::Add<u32>, false>};
    t[0x01] = {"ds_sub_u32", &Atomic<u32, ao::Sub<u32>, false>};
    t[0x02] = {"ds_rsub_u32", &Atomic<u32, ao::Rsub<u32>, false>};
    t[0x03] = {"ds_inc_u32", &Atomic<u32, ao::Inc<u32>, false>};
    t[0x04] = {"ds_dec_u32", &Atomic<u32, ao::Dec<u32>, false>};
    t[0x05] = {"ds_min_i32", &Atomic<u32, ao::SMin<u32>, false>};
    t[0x06] = {"ds_max_i32", &Atomic<u32, ao::SMax<u32>, false>};
    t[0x07] = {"ds_min_u32", &Atomic<u32, ao::UMin<u32>, false>};
    t[0x08] = {"ds_max_u32", &Atomic<u32, ao::UMax<u32>, false>};
    t[0x09] = {"ds_and_b32", &Atomic<u32, ao::And<u32>, false>};
    t[0x0a] = {"ds_or_b32", &Atomic<u32, ao::Or<u32>, false>};
    t[0x0b] = {"ds_xor_b32", &Atomic<u32, ao::Xor<u32>, false>};
    t[0x0c] = {"ds_mskor_b32", &Atomic2<u32, ao::MskOr<u32>, false>};
    t[0x0d] = {"ds_write_b32", &Write<4, false>};
    t[0x0e] = {"ds_write2_b32", &Write2<4, 1>};
    t[0x0f] = {"ds_write2st64_b32", &Write2<4, 64>};
    t[0x10] = {"ds_cmpst_b32", &Atomic2<u32, ao::CmpSwap<u32>, false>};
    t[0x11] = {"ds_cmpst_f32", &Atomic2<u32, CmpStF32, false>};
    t[0x12] = {"ds_min_f32", &Atomic<u32, ao::MinF32, false>};
    t[0x13] = {"ds_max_f32", &Atomic<u32, ao::MaxF32, false>};
    t[0x14] = {"ds_nop", &Nop};
    t[0x15] = {"ds_add_f32", &AddF32<false>};
    t[0x17] = {"ds_pk_add_f16", &Atomic<u32, ao::PkAddF16, false>};
    t[0x18] = {"ds_pk_add_bf16", &Atomic<u32, ao::PkAddBf16, false>};
    t[0x1e] = {"ds_write_b8", &Write<1, false>};
    t[0x1f] = {"ds_write_b16", &Write<2, false>};
    t[0x20] = {"ds_add_rtn_u32", &Atomic<u32, ao::Add<u32>, true>};
    t[0x21] = {"ds_sub_rtn_u32", &Atomic<u32, ao::Sub<u32>, true>};
    t[0x22] = {"ds_rsub_rtn_u32", &Atomic<u32, ao::Rsub<u32>, true>};
    t[0x23] = {"ds_inc_rtn_u32", &Atomic<u32, ao::Inc<u32>, true>};
    t[0x24] = {"ds_dec_rtn_u32", &Atomic<u32, ao::Dec<u32>, true>};
    t[0x25] = {"ds_min_rtn_i32", &Atomic<u32, ao::SMin<u32>, true>};
    t[0x26] = {"ds_max_rtn_i32", &Atomic<u32, ao::SMax<u32>, true>};
    t[0x27] = {"ds_min_rtn_u32", &Atomic<u32, ao::UMin<u32>, true>};
    t[0x28] = {"ds_max_rtn_u32", &Atomic<u32, ao::UMax<u32>, true>};
    t[0x29] = {"ds_and_rtn_b32", &Atomic<u32, ao::And<u32>, true>};
    t[0x2a] = {"ds_or_rtn_b32", &Atomic<u32, ao::Or<u32>, true>};
    t[0x2b] = {"ds_xor_rtn_b32", &Atomic<u32, ao::Xor<u32>, true>};
    t[0x2c] = {"ds_mskor_rtn_b32", &Atomic2<u32, ao::MskOr<u32>, true>};
    t[0x2d] = {"ds_wrxchg_rtn_b32", &Atomic<u32, ao::Swap<u32>, true>};
    t[0x2e] = {"ds_wrxchg2_rtn_b32", &Exchange2<u32, 1>};
    t[0x2f] = {"ds_wrxchg2st64_rtn_b32", &Exchange2<u32, 64>};
    t[0x30] = {"ds_cmpst_rtn_b32", &Atomic2<u32, ao::CmpSwap<u32>, true>};
    t[0x31] = {"ds_cmpst_rtn_f32", &Atomic2<u32, CmpStF32, true>};
    t[0x32] = {"ds_min_rtn_f32", &Atomic<u32, ao::MinF32, true>};
    t[0x33] = {"ds_max_rtn_f32", &Atomic<u32, ao::MaxF32, true>};
    t[0x34] = {"ds_wrap_rtn_b32", &Atomic2<u32, ao::Wrap<u32>, true>};
    t[0x35] = {"ds_add_rtn_f32", &AddF32<true>};
    t[0x36] = {"ds_read_b32", &Read<LoadKind::kDwords, 4>};
    t[0x37] = {"ds_read2_b32", &Read2<4, 1>};
    t[0x38] = {"ds_read2st64_b32", &Read2<4, 64>};
    t[0x39] = {"ds_read_i8", &Read<LoadKind::kSext, 1>};
    t[0x3a] = {"ds_read_u8", &Read<LoadKind::kZext, 1>};
    t[0x3b] = {"ds_read_i16", &Read<LoadKind::kSext, 2>};
    t[0x3c] = {"ds_read_u16", &Read<LoadKind::kZext, 2>};
    t[0x3d] = {"ds_swizzle_b32", &Swizzle};
    t[0x3e] = {"ds_permute_b32", &Permute};
    t[0x3f] = {"ds_bpermute_b32", &Bpermute};
    // 64-bit atomics without (0x40-) and with (0x60-) return.
    t[0x40] = {"ds_add_u64", &Atomic<u64, ao::Add<u64>, false>};
    t[0x41] = {"ds_sub_u64", &Atomic<u64, ao::Sub<u64>, false>};
    t[0x42] = {"ds_rsub_u64", &Atomic<u64, ao::Rsub<u64>, false>};
    t[0x43] = {"ds_inc_u64", &Atomic<u64, ao::Inc<u64>, false>};
    t[0x44] = {"ds_dec_u64", &Atomic<u64, ao::Dec<u64>, false>};
    t[0x45] = {"ds_min_i64", &Atomic<u64, ao::SMin<u64>, false>};
    t[0x46] = {"ds_max_i64", &Atomic<u64, ao::SMax<u64>, false>};
    t[0x47] = {"ds_min_u64", &Atomic<u64, ao::UMin<u64>, false>};
    t[0x48] = {"ds_max_u64", &Atomic<u64, ao::UMax<u64>, false>};
    t[0x49] = {"ds_and_b64", &Atomic<u64, ao::And<u64>, false>};
    t[0x4a] = {"ds_or_b64", &Atomic<u64, ao::Or<u64>, false>};
    t[0x4b] = {"ds_xor_b64", &Atomic<u64, ao::Xor<u64>, false>};
    t[0x4c] = {"ds_mskor_b64", &Atomic2<u64, ao::MskOr<u64>, false>};
    t[0x4d] = {"ds_write_b64", &Write<8, false>};
    t[0x4e] = {"ds_write2_b64", &Write2<8, 1>};
    t[0x4f] = {"ds_write2st64_b64", &Write2<8, 64>};
    t[0x50] = {"ds_cmpst_b64", &Atomic2<u64, ao::CmpSwap<u64>, false>};
    t[0x51] = {"ds_cmpst_f64", &Atomic2<u64, CmpStF64, false>};
    t[0x52] = {"ds_min_f64", &Atomic<u64, ao::MinF64, false>};
    t[0x53] = {"ds_max_f64", &Atomic<u64, ao::MaxF64, false>};
    t[0x54] = {"ds_write_b8_d16_hi", &Write<1, true>};
    t[0x55] = {"ds_write_b16_d16_hi", &Write<2, true>};
    t[0x56] = {"ds_read_u8_d16", &Read<LoadKind::kD16Zext, 1>};
    t[0x57] = {"ds_read_u8_d16_hi", &Read<LoadKind::kD16HiZext, 1>};
    t[0x58] = {"ds_read_i8_d16", &Read<LoadKind::kD16Sext, 1>};
    t[0x59] = {"ds_read_i8_d16_hi", &Read<LoadKind::kD16HiSext, 1>};
    t[0x5a] = {"ds_read_u16_d16", &Read<LoadKind::kD16Zext, 2>};
    t[0x5b] = {"ds_read_u16_d16_hi", &Read<LoadKind::kD16HiZext, 2>};
    t[0x5c] = {"ds_add_f64", &Atomic<u64, ao::AddF64, false>};
    t[0x60] = {"ds_add_rtn_u64", &Atomic<u64, ao::Add<u64>, true>};
    t[0x61] = {"ds_sub_rtn_u64", &Atomic<u64, ao::Sub<u64>, true>};
    t[0x62] = {"ds_rsub_rtn_u64", &Atomic<u64, ao::Rsub<u64>, true>};
    t[0x63] = {"ds_inc_rtn_u64", &Atomic<u64, ao::Inc<u64>, true>};
    t[0x64] = {"ds_dec_rtn_u64", &Atomic<u64, ao::Dec<u64>, true>};
    t[0x65] = {"ds_min_rtn_i64", &Atomic<u64, ao::SMin<u64>, true>};
    t[0x66] = {"ds_max_rtn_i64", &Atomic<u64, ao::SMax<u64>, true>};
    t[0x67] = {"ds_min_rtn_u64", &Atomic<u64, ao::UMin<u64>, true>};
    t[0x68] = {"ds_max_rtn_u64", &Atomic<u64, ao::UMax<u64>, true>};
    t[0x69] = {"ds_and_rtn_b64", &Atomic<u64, ao::And<u64>, true>};
    t[0x6a] = {"ds_or_rtn_b64", &Atomic<u64, ao::Or<u64>, true>};
    t[0x6b] = {"ds_xor_rtn_b64", &Atomic<u64, ao::Xor<u64>, true>};
    t[0x6c] = {"ds_mskor_rtn_b64", &Atomic2<u64, ao::MskOr<u64>, true>};
    t[0x6d] = {"ds_wrxchg_rtn_b64", &Atomic<u64, ao::Swap<u64>, true>};
    t[0x6e] = {"ds_wrxchg2_rtn_b64", &Exchange2<u64, 1>};
    t[0x6f] = {"ds_wrxchg2st64_rtn_b64", &Exchange2<u64, 64>};
    t[0x70] = {"ds_cmpst_rtn_b64", &Atomic2<u64, ao::CmpSwap<u64>, true>};
    t[0x71] = {"ds_cmpst_rtn_f64", &Atomic2<u64, CmpStF64, true>};
    t[0x72] = {"ds_min_rtn_f64", &Atomic<u64, ao::MinF64, true>};
    t[0x73] = {"ds_max_rtn_f64", &Atomic<u64, ao::MaxF64, true>};
    t[0x76] = {"ds_read_b64", &Read<LoadKind::kDwords, 8>};
    t[0x77] = {"ds_read2_b64", &Read2<8, 1>};
    t[0x78] = {"ds_read2st64_b64", &Read2<8, 64>};
    t[0x7c] = {"ds_add_rtn_f64", &Atomic<u64, ao::AddF64, true>};
    t[0xb7] = {"ds_pk_add_rtn_f16", &Atomic<u32, ao::PkAddF16, true>};
    t[0xb8] = {"ds_pk_add_rtn_bf16", &Atomic<u32, ao::PkAddBf16, true>};
    t[0xbd] = {"ds_consume", &Counter<false>};
    t[0x98] = {"ds_gws_sema_release_all", &Gws<GwsOp::kReleaseAll>};
    t[0x99] = {"ds_gws_init", &Gws<GwsOp::kInit>};
    t[0x9a] = {"ds_gws_sema_v", &Gws<GwsOp::kSemaV>};
    t[0x9b] = {"ds_gws_sema_br", &Gws<GwsOp::kSemaBr>};
    t[0x9c] = {"ds_gws_sema_p", &Gws<GwsOp::kSemaP>};
    t[0x9d] = {"ds_gws_barrier", &Gws<GwsOp::kBarrier>};
    t[0xbe] = {"ds_append", &Counter<true>};
    t[0xde] = {"ds_write_b96", &Write<12, false>};
    t[0xdf] = {"ds_write_b128", &Write<16, false>};
    t[0xfe] = {"ds_read_b96", &Read<LoadKind::kDwords, 12>};
    t[0xff] = {"ds_read_b128", &Read<LoadKind::kDwords, 16>};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
