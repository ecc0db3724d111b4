// Buffer memory instructions: MUBUF (untyped), through a buffer resource (V#) in four SGPRs.
//
// The V#: base address (word0, word1[15:0]; 48 bits), stride (word1[29:16]), num_records (word2), and in word3
// ADD_TID_ENABLE (bit 23), which the private segment buffer the dispatch hands every wave sets (the queue's
// scratch_resource_descriptor, dispatch.h). A V# with ADD_TID_ENABLE is a swizzled per-lane buffer: the lanes' dwords
// interleave at base + soffset (ScratchLaneVa), with ROCr's ELEMENT_SIZE 4 and INDEX_STRIDE 64, which the engine
// assumes whatever word3 says; the range check is the wave's private memory (Context::scratch_va), not num_records.
// Any other V# addresses global memory at base + soffset + index * stride + offset, range-checked against
// num_records: bytes when the stride is 0 (each dword of a multi-dword access on its own; soffset is not part of the
// check), records (the index) otherwise. Out-of-range loads read 0 and stores are dropped; an atomic is in or out
// as a whole.
#include <array>
#include <cstdint>
#include <functional>

#include "testing/kfd_sim/engines/gfx9/buffer_format.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/lds_load.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

namespace ao = atomic_op;

constexpr uint32_t kAddTidEnable = 1u << 23;

struct Resource {
  uint64_t base = 0;
  uint32_t stride = 0;
  uint32_t num_records = 0;
  bool add_tid = false;
};

Resource ReadResource(const Wave& w, const Inst& i) {
  const uint32_t* s = &w.s[i.saddr];
  return Resource{uint64_t{s[0]} | (uint64_t{s[1] & 0xffffu} << 32), (s[1] >> 16) & 0x3fffu, s[2],
                  (s[3] & kAddTidEnable) != 0};
}

// How many leading bytes of a `bytes`-byte access at `offset` the range check lets through for a raw (stride 0)
// buffer: a sub-dword or dword access whole or not at all, a multi-dword access dword by dword.
uint32_t InRange(uint64_t offset, uint32_t bytes, uint32_t num_records) {
  if (bytes <= 4) return offset + bytes <= num_records ? bytes : 0;
  uint32_t in = 0;
  while (in < bytes && offset + in + 4 <= num_records) in += 4;
  return in;
}

// `whole`: the access is in or out as a whole (atomics).
auto Accessor(const Wave& w, const Inst& i, const Context& c, bool whole) {
  const Resource r = ReadResource(w, i);
  const uint64_t soffset = ScalarSource32(w, i, c, i.soffset);
  const uint32_t* v0 = w.vgpr(i.addr - op::kVgpr0);
  const uint32_t* v1 = w.vgpr(i.addr - op::kVgpr0 + 1);
  return [=, &i](int lane, uint32_t bytes) {
    const uint64_t index = i.idxen ? v0[lane] : 0;
    // The buffer offset is a 32-bit sum, as the range check sees it.
    const uint64_t offset = static_cast<uint32_t>((i.offen ? (i.idxen ? v1[lane] : v0[lane]) : 0) + static_cast<uint32_t>(i.imm));
    if (r.add_tid) {
      // Swizzled: the lane's index (plus its id) picks the record within a group of 64 and the group by stride.
      const uint64_t tid_index = index + static_cast<uint64_t>(lane);
      const uint64_t group_base = r.base + soffset + (tid_index / kWaveSize) * r.stride * kWaveSize;
      return LaneAccess{ScratchLane(group_base, offset, static_cast<int>(tid_index % kWaveSize)), bytes};
    }
    uint32_t in = bytes;
    if (r.stride == 0) {
      in = InRange(offset, bytes, r.num_records);
    } else if (index >= r.num_records) {
      in = 0;
    }
    if (whole && in != bytes) in = 0;
    return LaneAccess{LaneAddress{Space::kGlobal, r.base + soffset + index * r.stride + offset}, in};
  };
}

// With the lds bit the data goes to LDS instead of vdata (lds_load.h); only the dword and the extending byte and
// short loads have that form.
template <LoadKind kKind, uint32_t kBytes>
void Load(Wave& w, const Inst& i, Context& c) {
  if (i.lds) {
    if constexpr (kBytes <= 4 && (kKind == LoadKind::kZext || kKind == LoadKind::kSext || kKind == LoadKind::kDwords)) {
      LoadLanesToLds<kKind, kBytes>(w, i, c, Accessor(w, i, c, false));
    } else {
      c.Illegal("MUBUF load to LDS exists only for dword, ubyte, sbyte, ushort and sshort");
    }
    return;
  }
  LoadLanes<kKind, kBytes>(w, i, c, i.data0, Accessor(w, i, c, false));
}

template <uint32_t kBytes, bool kHigh>
void Store(Wave& w, const Inst& i, Context& c) {
  StoreLanes<kBytes, kHigh>(w, i, c, i.data0, Accessor(w, i, c, false));
}

// vdata holds the data (compare-swap: {new value, compare value}) and, with GLC (gfx942: SC0), receives the old value.
template <typename T, T (*F)(T, T, T)>
void Atomic(Wave& w, const Inst& i, Context& c) {
  AtomicLanes<T, F>(w, i, c, i.data0, static_cast<uint16_t>(i.data0 + sizeof(T) / 4), i.glc, i.data0,
                    Accessor(w, i, c, true));
}

// Cache write-backs and invalidations: the simulated memory is coherent, there is nothing to do.
void CacheControl(Wave&, const Inst&, Context&) {}

}  // namespace

std::function<LaneAccess(int lane, uint32_t bytes)> BufferAccessor(const Wave& wave, const Inst& inst,
                                                                   const Context& context) {
  return Accessor(wave, inst, context, false);
}

const OpInfo* MubufOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    using u32 = uint32_t;
    using u64 = uint64_t;
    // 0x00-0x0f, 0x26, 0x27: the format loads and stores, converting through the V#'s formats (buffer_format.cc).
    for (uint16_t f = 0; f < 0x28; ++f) {
      if (const OpInfo* format = MubufFormatOp(f)) t[f] = *format;
    }
    t[0x10] = {"buffer_load_ubyte", &Load<LoadKind::kZext, 1>};
    t[0x11] = {"buffer_load_sbyte", &Load<LoadKind::kSext, 1>};
    t[0x12] = {"buffer_load_ushort", &Load<LoadKind::kZext, 2>};
    t[0x13] = {"buffer_load_sshort", &Load<LoadKind::kSext, 2>};
    t[0x14] = {"buffer_load_dword", &Load<LoadKind::kDwords, 4>};
    t[0x15] = {"buffer_load_dwordx2", &Load<LoadKind::kDwords, 8>};
    t[0x16] = {"buffer_load_dwordx3", &Load<LoadKind::kDwords, 12>};
    t[0x17] = {"buffer_load_dwordx4", &Load<LoadKind::kDwords, 16>};
    t[0x18] = {"buffer_store_byte", &Store<1, false>};
    t[0x19] = {"buffer_store_byte_d16_hi", &Store<1, true>};
    t[0x1a] = {"buffer_store_short", &Store<2, false>};
    t[0x1b] = {"buffer_store_short_d16_hi", &Store<2, true>};
    t[0x1c] = {"buffer_store_dword", &Store<4, false>};
    t[0x1d] = {"buffer_store_dwordx2", &Store<8, false>};
    t[0x1e] = {"buffer_store_dwordx3", &Store<12, false>};
    t[0x1f] = {"buffer_store_dwordx4", &Store<16, false>};
    t[0x20] = {"buffer_load_ubyte_d16", &Load<LoadKind::kD16Zext, 1>};
    t[0x21] = {"buffer_load_ubyte_d16_hi", &Load<LoadKind::kD16HiZext, 1>};
    t[0x22] = {"buffer_load_sbyte_d16", &Load<LoadKind::kD16Sext, 1>};
    t[0x23] = {"buffer_load_sbyte_d16_hi", &Load<LoadKind::kD16HiSext, 1>};
    t[0x24] = {"buffer_load_short_d16", &Load<LoadKind::kD16Zext, 2>};
    t[0x25] = {"buffer_load_short_d16_hi", &Load<LoadKind::kD16HiZext, 2>};
    t[0x28] = {"buffer_wbl2", &CacheControl};
    t[0x29] = {"buffer_invl2", &CacheControl};  // gfx942: buffer_inv
    t[0x3e] = {"buffer_wbinvl1", &CacheControl};
    t[0x3f] = {"buffer_wbinvl1_vol", &CacheControl};
    t[0x40] = {"buffer_atomic_swap", &Atomic<u32, ao::Swap<u32>>};
    t[0x41] = {"buffer_atomic_cmpswap", &Atomic<u32, ao::CmpSwap<u32>>};
    t[0x42] = {"buffer_atomic_add", &Atomic<u32, ao::Add<u32>>};
    t[0x43] = {"buffer_atomic_sub", &Atomic<u32, ao::Sub<u32>>};
    t[0x44] = {"buffer_atomic_smin", &Atomic<u32, ao::SMin<u32>>};
    t[0x45] = {"buffer_atomic_umin", &Atomic<u32, ao::UMin<u32>>};
    t[0x46] = {"buffer_atomic_smax", &Atomic<u32, ao::SMax<u32>>};
    t[0x47] = {"buffer_atomic_umax", &Atomic<u32, ao::UMax<u32>>};
    t[0x48] = {"buffer_atomic_and", &Atomic<u32, ao::And<u32>>};
    t[0x49] = {"buffer_atomic_or", &Atomic<u32, ao::Or<u32>>};
    t[0x4a] = {"buffer_atomic_xor", &Atomic<u32, ao::Xor<u32>>};
    t[0x4b] = {"buffer_atomic_inc", &Atomic<u32, ao::Inc<u32>>};
    t[0x4c] = {"buffer_atomic_dec", &Atomic<u32, ao::Dec<u32>>};
    t[0x4d] = {"buffer_atomic_add_f32", &Atomic<u32, ao::AddF32Ftz>};
    t[0x4e] = {"buffer_atomic_pk_add_f16", &Atomic<u32, ao::PkAddF16>};
    t[0x4f] = {"buffer_atomic_add_f64", &Atomic<u64, ao::AddF64>};
    t[0x50] = {"buffer_atomic_min_f64", &Atomic<u64, ao::MinF64>};
    t[0x51] = {"buffer_atomic_max_f64", &Atomic<u64, ao::MaxF64>};
    t[0x60] = {"buffer_atomic_swap_x2", &Atomic<u64, ao::Swap<u64>>};
    t[0x61] = {"buffer_atomic_cmpswap_x2", &Atomic<u64, ao::CmpSwap<u64>>};
    t[0x62] = {"buffer_atomic_add_x2", &Atomic<u64, ao::Add<u64>>};
    t[0x63] = {"buffer_atomic_sub_x2", &Atomic<u64, ao::Sub<u64>>};
    t[0x64] = {"buffer_atomic_smin_x2", &Atomic<u64, ao::SMin<u64>>};
    t[0x65] = {"buffer_atomic_umin_x2", &Atomic<u64, ao::UMin<u64>>};
    t[0x66] = {"buffer_atomic_smax_x2", &Atomic<u64, ao::SMax<u64>>};
    t[0x67] = {"buffer_atomic_umax_x2", &Atomic<u64, ao::UMax<u64>>};
    t[0x68] = {"buffer_atomic_and_x2", &Atomic<u64, ao::And<u64>>};
    t[0x69] = {"buffer_atomic_or_x2", &Atomic<u64, ao::Or<u64>>};
    t[0x6a] = {"buffer_atomic_xor_x2", &Atomic<u64, ao::Xor<u64>>};
    t[0x6b] = {"buffer_atomic_inc_x2", &Atomic<u64, ao::Inc<u64>>};
    t[0x6c] = {"buffer_atomic_dec_x2", &Atomic<u64, ao::Dec<u64>>};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
