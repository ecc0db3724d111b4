// Scalar memory (SMEM): loads, stores and atomics through an SGPR-pair address (s_load_*, s_store_*, s_atomic_*),
// through a buffer resource (s_buffer_*), or into the wave's scratch (s_scratch_*); the cache controls and time
// counters.
//
// Addresses: base + offset, where the offset is the instruction's signed 21-bit immediate (IMM), an SGPR, or both
// (IMM with SOE); the hardware ignores the address's low two bits. Every global access goes through the GPU page
// table, so an unmapped address is a VM fault at that address. Atomics on global memory are atomic with respect to
// the host and to other waves (std::atomic_ref on the host word), and return the old value when GLC is set.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

uint64_t Offset(const Wave& w, const Inst& i) {
  if (!i.imm_offset) return w.s[i.soffset];
  uint64_t offset = static_cast<uint64_t>(static_cast<int64_t>(i.imm));
  if (i.soffset_enable) offset += w.s[i.soffset];
  return offset;
}

// The VA of an s_load/s_store/s_atomic: the SGPR-pair base plus the offset, dword-aligned.
uint64_t Address(const Wave& w, const Inst& i) { return (w.Read64(i.saddr) + Offset(w, i)) & ~uint64_t{3}; }

// A buffer resource (V#) in four SGPRs: base = word0 | word1[15:0] << 32; NUM_RECORDS (word2) bounds the byte offset.
struct Buffer {
  uint64_t base;
  uint32_t records;
  // The VA of the `bytes` at `offset`, or nullopt when they are outside the buffer (the hardware's range check: an
  // out-of-range load returns 0, an out-of-range store or atomic does nothing).
  std::optional<uint64_t> At(uint64_t offset, uint32_t bytes) const {
    if (offset + bytes > records) return std::nullopt;
    return base + offset;
  }
};
Buffer BufferOf(const Wave& w, const Inst& i) {
  return Buffer{uint64_t{w.s[i.saddr]} | (uint64_t{w.s[i.saddr + 1] & 0xffff} << 32), w.s[i.saddr + 2]};
}

// The sdata register `k` (a destination for loads, the data for stores and atomics).
uint16_t Data(const Inst& i, int k) { return static_cast<uint16_t>(i.dst + k); }

// s_load_dword{,x2,x4,x8,x16}: nothing is written when any dword faults.
template <int Dwords>
void Load(Wave& w, const Inst& i, Context& c) {
  uint32_t data[Dwords];
  if (std::optional<uint64_t> fault = c.memory->Read(Address(w, i), data, sizeof(data))) {
    c.Fault(*fault);
    return;
  }
  for (int k = 0; k < Dwords; ++k) WriteScalar32(w, Data(i, k), data[k]);
}

// s_store_dword{,x2,x4}.
template <int Dwords>
void Store(Wave& w, const Inst& i, Context& c) {
  uint32_t data[Dwords];
  for (int k = 0; k < Dwords; ++k) data[k] = ScalarSource32(w, i, c, Data(i, k));
  if (std::optional<uint64_t> fault = c.memory->Write(Address(w, i), data, sizeof(data))) c.Fault(*fault);
}

// s_buffer_load_dword{,...}: each dword is range-checked on its own, so a load straddling the end reads zeros past
// it.
template <int Dwords>
void BufferLoad(Wave& w, const Inst& i, Context& c) {
  const Buffer buffer = BufferOf(w, i);
  const uint64_t offset = Offset(w, i) & ~uint64_t{3};
  uint32_t data[Dwords] = {};
  for (int k = 0; k < Dwords; ++k) {
    const std::optional<uint64_t> va = buffer.At(offset + 4u * k, 4);
    if (!va.has_value()) continue;
    if (std::optional<uint64_t> fault = c.memory->Read(*va, &data[k], 4)) {
      c.Fault(*fault);
      return;
    }
  }
  for (int k = 0; k < Dwords; ++k) WriteScalar32(w, Data(i, k), data[k]);
}

// s_buffer_store_dword{,x2,x4}: dwords past NUM_RECORDS are dropped.
template <int Dwords>
void BufferStore(Wave& w, const Inst& i, Context& c) {
  const Buffer buffer = BufferOf(w, i);
  const uint64_t offset = Offset(w, i) & ~uint64_t{3};
  for (int k = 0; k < Dwords; ++k) {
    const std::optional<uint64_t> va = buffer.At(offset + 4u * k, 4);
    if (!va.has_value()) continue;
    const uint32_t v = ScalarSource32(w, i, c, Data(i, k));
    if (std::optional<uint64_t> fault = c.memory->Write(*va, &v, 4)) {
      c.Fault(*fault);
      return;
    }
  }
}

// s_scratch_load/store: the hardware ignores sbase and adds the offset to FLAT_SCRATCH, the wave's scratch base. The
// address is not swizzled: scratch memory being swizzled per lane in dwords (ScratchLaneVa), wave-relative byte A is
// lane (A / 4) % 64's private byte (A / 256) * 4 + A % 4, so a scalar access sees what the lanes' scratch accesses
// wrote, as on hardware. Dwords outside the wave's private memory read 0 and are not written, as the lanes'
// out-of-range accesses.
LaneAddress ScratchDword(const Wave& w, const Inst& i, int k) {
  return LaneAddress{Space::kScratch, ((w.Read64(op::kFlatScratchLo) + Offset(w, i)) & ~uint64_t{3}) + 4u * k};
}
template <int Dwords>
void ScratchLoad(Wave& w, const Inst& i, Context& c) {
  uint32_t data[Dwords];
  for (int k = 0; k < Dwords; ++k) {
    if (!LaneRead(c, ScratchDword(w, i, k), &data[k], 4)) return;
  }
  for (int k = 0; k < Dwords; ++k) WriteScalar32(w, Data(i, k), data[k]);
}
template <int Dwords>
void ScratchStore(Wave& w, const Inst& i, Context& c) {
  for (int k = 0; k < Dwords; ++k) {
    const uint32_t v = ScalarSource32(w, i, c, Data(i, k));
    if (!LaneWrite(c, ScratchDword(w, i, k), &v, 4)) return;
  }
}

// Atomic operations: the new value from the old one, the data and (cmpswap) the compare value.
template <typename T> T Swap(T, T d, T) { return d; }
template <typename T> T CmpSwap(T old, T d, T cmp) { return old == cmp ? d : old; }
template <typename T> T Add(T old, T d, T) { return old + d; }
template <typename T> T Sub(T old, T d, T) { return old - d; }
template <typename T> T Smin(T old, T d, T) {
  using S = std::make_signed_t<T>;
  return static_cast<S>(d) < static_cast<S>(old) ? d : old;
}
template <typename T> T Umin(T old, T d, T) { return d < old ? d : old; }
template <typename T> T Smax(T old, T d, T) {
  using S = std::make_signed_t<T>;
  return static_cast<S>(d) > static_cast<S>(old) ? d : old;
}
template <typename T> T Umax(T old, T d, T) { return d > old ? d : old; }
template <typename T> T And(T old, T d, T) { return old & d; }
template <typename T> T Or(T old, T d, T) { return old | d; }
template <typename T> T Xor(T old, T d, T) { return old ^ d; }
// inc wraps to 0 past the data value; dec wraps to the data value at 0 or above it.
template <typename T> T Inc(T old, T d, T) { return old >= d ? 0 : old + 1; }
template <typename T> T Dec(T old, T d, T) { return old == 0 || old > d ? d : old - 1; }

// T from the SGPRs starting at `code`.
template <typename T>
T ReadSgprs(const Wave& w, uint16_t code) {
  return sizeof(T) == 8 ? static_cast<T>(w.Read64(code)) : static_cast<T>(w.s[code]);
}

// s_atomic_* (kBuffer false) and s_buffer_atomic_*: sdata holds the data (then the compare value for cmpswap);
// with GLC the old value goes back to sdata's first register (pair). A 64-bit atomic needs an 8-byte-aligned
// address (an illegal instruction otherwise); a buffer atomic outside NUM_RECORDS does nothing and returns 0.
template <typename T, T (*kOp)(T old, T data, T compare), bool kBuffer>
void Atomic(Wave& w, const Inst& i, Context& c) {
  constexpr uint16_t kDwords = sizeof(T) / 4;
  const T data = ReadSgprs<T>(w, i.dst);
  const T compare = ReadSgprs<T>(w, static_cast<uint16_t>(i.dst + kDwords));
  std::optional<uint64_t> va;
  if (kBuffer) {
    va = BufferOf(w, i).At(Offset(w, i) & ~uint64_t{3}, sizeof(T));
  } else {
    va = Address(w, i);
  }
  T old = 0;
  if (va.has_value()) {
    if (*va % sizeof(T) != 0) {
      c.Illegal("misaligned 64-bit scalar atomic");
      return;
    }
    void* word = c.memory->Word(*va, sizeof(T));
    if (word == nullptr) {
      c.Fault(*va);
      return;
    }
    std::atomic_ref<T> ref(*static_cast<T*>(word));
    old = ref.load(std::memory_order_relaxed);
    while (!ref.compare_exchange_weak(old, kOp(old, data, compare), std::memory_order_seq_cst)) {
    }
  }
  if (!i.glc) return;
  if constexpr (sizeof(T) == 8) {
    WriteScalar64(w, i.dst, old);
  } else {
    WriteScalar32(w, i.dst, old);
  }
}

// The atomic ops' handlers in opcode order (the same for both widths and both address forms).
template <typename T, bool kBuffer>
constexpr Handler kAtomicHandlers[] = {
    &Atomic<T, Swap<T>, kBuffer>, &Atomic<T, CmpSwap<T>, kBuffer>, &Atomic<T, Add<T>, kBuffer>,
    &Atomic<T, Sub<T>, kBuffer>,  &Atomic<T, Smin<T>, kBuffer>,    &Atomic<T, Umin<T>, kBuffer>,
    &Atomic<T, Smax<T>, kBuffer>, &Atomic<T, Umax<T>, kBuffer>,    &Atomic<T, And<T>, kBuffer>,
    &Atomic<T, Or<T>, kBuffer>,   &Atomic<T, Xor<T>, kBuffer>,     &Atomic<T, Inc<T>, kBuffer>,
    &Atomic<T, Dec<T>, kBuffer>,
};

// Fills the 13 atomic opcodes from `first` (32-bit) and `first + 0x20` (64-bit).
template <bool kBuffer>
void AddAtomics(std::array<OpInfo, 256>& t, uint16_t first, const char* const (&names)[26]) {
  for (uint16_t k = 0; k < 13; ++k) {
    t[first + k] = {names[k], kAtomicHandlers<uint32_t, kBuffer>[k]};
    t[first + 0x20 + k] = {names[13 + k], kAtomicHandlers<uint64_t, kBuffer>[k]};
  }
}

constexpr const char* kAtomicNames[26] = {
    "s_atomic_swap",    "s_atomic_cmpswap",    "s_atomic_add",    "s_atomic_sub",    "s_atomic_smin",
    "s_atomic_umin",    "s_atomic_smax",       "s_atomic_umax",   "s_atomic_and",    "s_atomic_or",
    "s_atomic_xor",     "s_atomic_inc",        "s_atomic_dec",    "s_atomic_swap_x2", "s_atomic_cmpswap_x2",
    "s_atomic_add_x2",  "s_atomic_sub_x2",     "s_atomic_smin_x2", "s_atomic_umin_x2", "s_atomic_smax_x2",
    "s_atomic_umax_x2", "s_atomic_and_x2",     "s_atomic_or_x2",  "s_atomic_xor_x2", "s_atomic_inc_x2",
    "s_atomic_dec_x2",
};
constexpr const char* kBufferAtomicNames[26] = {
    "s_buffer_atomic_swap",    "s_buffer_atomic_cmpswap",    "s_buffer_atomic_add",    "s_buffer_atomic_sub",
    "s_buffer_atomic_smin",    "s_buffer_atomic_umin",       "s_buffer_atomic_smax",   "s_buffer_atomic_umax",
    "s_buffer_atomic_and",     "s_buffer_atomic_or",         "s_buffer_atomic_xor",    "s_buffer_atomic_inc",
    "s_buffer_atomic_dec",     "s_buffer_atomic_swap_x2",    "s_buffer_atomic_cmpswap_x2", "s_buffer_atomic_add_x2",
    "s_buffer_atomic_sub_x2",  "s_buffer_atomic_smin_x2",    "s_buffer_atomic_umin_x2", "s_buffer_atomic_smax_x2",
    "s_buffer_atomic_umax_x2", "s_buffer_atomic_and_x2",     "s_buffer_atomic_or_x2",  "s_buffer_atomic_xor_x2",
    "s_buffer_atomic_inc_x2",  "s_buffer_atomic_dec_x2",
};

// s_memtime / s_memrealtime: a 64-bit clock (the simulated GPU counts host nanoseconds).
void Memtime(Wave& w, const Inst& i, Context&) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  WriteScalar64(w, i.dst, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()));
}
// The scalar cache is coherent here (every access goes to memory), so invalidate, write back, discard and the
// address-translation probes have nothing to do.
void CacheOp(Wave&, const Inst&, Context&) {}

}  // namespace

const OpInfo* SmemOp(uint16_t op) {
  static const std::array<OpInfo, 256> table = [] {
    std::array<OpInfo, 256> t{};
    t[0x00] = {"s_load_dword", &Load<1>};
    t[0x01] = {"s_load_dwordx2", &Load<2>};
    t[0x02] = {"s_load_dwordx4", &Load<4>};
    t[0x03] = {"s_load_dwordx8", &Load<8>};
    t[0x04] = {"s_load_dwordx16", &Load<16>};
    t[0x05] = {"s_scratch_load_dword", &ScratchLoad<1>};
    t[0x06] = {"s_scratch_load_dwordx2", &ScratchLoad<2>};
    t[0x07] = {"s_scratch_load_dwordx4", &ScratchLoad<4>};
    t[0x08] = {"s_buffer_load_dword", &BufferLoad<1>};
    t[0x09] = {"s_buffer_load_dwordx2", &BufferLoad<2>};
    t[0x0a] = {"s_buffer_load_dwordx4", &BufferLoad<4>};
    t[0x0b] = {"s_buffer_load_dwordx8", &BufferLoad<8>};
    t[0x0c] = {"s_buffer_load_dwordx16", &BufferLoad<16>};
    t[0x10] = {"s_store_dword", &Store<1>};
    t[0x11] = {"s_store_dwordx2", &Store<2>};
    t[0x12] = {"s_store_dwordx4", &Store<4>};
    t[0x15] = {"s_scratch_store_dword", &ScratchStore<1>};
    t[0x16] = {"s_scratch_store_dwordx2", &ScratchStore<2>};
    t[0x17] = {"s_scratch_store_dwordx4", &ScratchStore<4>};
    t[0x18] = {"s_buffer_store_dword", &BufferStore<1>};
    t[0x19] = {"s_buffer_store_dwordx2", &BufferStore<2>};
    t[0x1a] = {"s_buffer_store_dwordx4", &BufferStore<4>};
    t[0x20] = {"s_dcache_inv", &CacheOp};
    t[0x21] = {"s_dcache_wb", &CacheOp};
    t[0x22] = {"s_dcache_inv_vol", &CacheOp};
    t[0x23] = {"s_dcache_wb_vol", &CacheOp};
    t[0x24] = {"s_memtime", &Memtime};
    t[0x25] = {"s_memrealtime", &Memtime};
    t[0x26] = {"s_atc_probe", &CacheOp};
    t[0x27] = {"s_atc_probe_buffer", &CacheOp};
    t[0x28] = {"s_dcache_discard", &CacheOp};
    t[0x29] = {"s_dcache_discard_x2", &CacheOp};
    AddAtomics<true>(t, 0x40, kBufferAtomicNames);
    AddAtomics<false>(t, 0x80, kAtomicNames);
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
