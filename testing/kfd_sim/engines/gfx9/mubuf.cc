// Buffer memory instructions: MUBUF (untyped), through a buffer resource (V#) in four SGPRs.
#include <array>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"

namespace hipmem::kfd_sim::gfx9 {

const OpInfo* MubufOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
