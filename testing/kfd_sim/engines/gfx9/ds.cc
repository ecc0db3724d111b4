// LDS (and GDS) instructions: DS.
#include <array>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/operands.h"
#include "testing/kfd_sim/engines/gfx9/vector_memory.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

LaneAddress Address(const Wave& w, const Inst& i, int lane) {
  return LaneAddress{Space::kLds, uint64_t{w.vgpr(i.addr - op::kVgpr0)[lane]} + static_cast<uint32_t>(i.imm)};
}

template <int Bytes>
void Write(Wave& w, const Inst& i, Context& c) {
  constexpr int kDwords = Bytes < 4 ? 1 : Bytes / 4;
  ForEachLane(w.exec(), [&](int l) {
    uint32_t data[kDwords];
    for (int k = 0; k < kDwords; ++k) data[k] = DataRegister(w, i, static_cast<uint16_t>(i.data0 + k))[l];
    LaneWrite(c, l, Address(w, i, l), data, Bytes);
  });
}

template <int Bytes>
void Read(Wave& w, const Inst& i, Context& c) {
  constexpr int kDwords = Bytes < 4 ? 1 : Bytes / 4;
  ForEachLane(w.exec(), [&](int l) {
    uint32_t data[kDwords] = {};
    LaneRead(c, l, Address(w, i, l), data, Bytes);
    for (int k = 0; k < kDwords; ++k) DataRegister(w, i, static_cast<uint16_t>(i.dst + k))[l] = data[k];
  });
}

}  // namespace

const OpInfo* DsOp(uint16_t op) {
  static const std::array<OpInfo, 256> table = [] {
    std::array<OpInfo, 256> t{};
    t[0x0d] = {"ds_write_b32", &Write<4>};
    t[0x36] = {"ds_read_b32", &Read<4>};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
