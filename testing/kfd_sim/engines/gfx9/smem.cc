// Scalar memory: SMEM loads (s_load_*, s_buffer_load_*), stores and the time counters.
#include <array>
#include <chrono>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// The byte offset an SMEM instruction adds to its base: the signed 21-bit immediate (plus an SGPR with SOE), or
// an SGPR.
uint64_t Offset(const Wave& w, const Inst& i) {
  if (!i.imm_offset) return w.s[i.soffset];
  uint64_t offset = static_cast<uint64_t>(static_cast<int64_t>(i.imm));
  if (i.soffset_enable) offset += w.s[i.soffset];
  return offset;
}

// s_load_dword{,x2,x4,x8,x16}: `Dwords` dwords at SGPR-pair base + offset into sdata (the address's low two bits
// are ignored, as the hardware ignores them).
template <int Dwords>
void SLoad(Wave& w, const Inst& i, Context& c) {
  const uint64_t va = (w.Read64(i.saddr) + Offset(w, i)) & ~uint64_t{3};
  uint32_t data[Dwords];
  if (std::optional<uint64_t> fault = c.memory->Read(va, data, sizeof(data))) {
    c.Fault(*fault);
    return;
  }
  for (int k = 0; k < Dwords; ++k) WriteScalar32(w, static_cast<uint16_t>(i.dst + k), data[k]);
}

// s_buffer_load_dword{,...}: through a buffer resource (V#) in four SGPRs: base = word0 | word1[15:0] << 32,
// range-checked against num_records (word2); out-of-range dwords read 0.
template <int Dwords>
void SBufferLoad(Wave& w, const Inst& i, Context& c) {
  const uint64_t base = (uint64_t{w.s[i.saddr]} | (uint64_t{w.s[i.saddr + 1] & 0xffff} << 32));
  const uint32_t records = w.s[i.saddr + 2];
  const uint64_t offset = Offset(w, i) & ~uint64_t{3};
  for (int k = 0; k < Dwords; ++k) {
    const uint64_t o = offset + 4u * k;
    uint32_t v = 0;
    if (o + 4 <= records) {
      if (std::optional<uint64_t> fault = c.memory->Read(base + o, &v, 4)) {
        c.Fault(*fault);
        return;
      }
    }
    WriteScalar32(w, static_cast<uint16_t>(i.dst + k), v);
  }
}

// s_memtime / s_memrealtime: a 64-bit clock (the simulated GPU counts host nanoseconds).
void SMemtime(Wave& w, const Inst& i, Context&) {
  const auto now = std::chrono::steady_clock::now().time_since_epoch();
  WriteScalar64(w, i.dst, static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()));
}
// Scalar caches are coherent here: write-back and invalidate have nothing to do.
void SCacheOp(Wave&, const Inst&, Context&) {}

}  // namespace

const OpInfo* SmemOp(uint16_t op) {
  static const std::array<OpInfo, 256> table = [] {
    std::array<OpInfo, 256> t{};
    t[0x00] = {"s_load_dword", &SLoad<1>};
    t[0x01] = {"s_load_dwordx2", &SLoad<2>};
    t[0x02] = {"s_load_dwordx4", &SLoad<4>};
    t[0x03] = {"s_load_dwordx8", &SLoad<8>};
    t[0x04] = {"s_load_dwordx16", &SLoad<16>};
    t[0x08] = {"s_buffer_load_dword", &SBufferLoad<1>};
    t[0x09] = {"s_buffer_load_dwordx2", &SBufferLoad<2>};
    t[0x0a] = {"s_buffer_load_dwordx4", &SBufferLoad<4>};
    t[0x0b] = {"s_buffer_load_dwordx8", &SBufferLoad<8>};
    t[0x0c] = {"s_buffer_load_dwordx16", &SBufferLoad<16>};
    t[0x20] = {"s_dcache_inv", &SCacheOp};
    t[0x21] = {"s_dcache_wb", &SCacheOp};
    t[0x22] = {"s_dcache_inv_vol", &SCacheOp};
    t[0x23] = {"s_dcache_wb_vol", &SCacheOp};
    t[0x24] = {"s_memtime", &SMemtime};
    t[0x25] = {"s_memrealtime", &SMemtime};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
