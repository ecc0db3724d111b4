// What every encoding family's .cc shares: the lookup into its opcode table.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_OP_TABLE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_OP_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/isa.h"

namespace hipmem::kfd_sim::gfx9 {

// The table's entry for `op`, or null when the opcode has none.
template <size_t N>
const OpInfo* FindOp(const std::array<OpInfo, N>& table, uint16_t op) {
  return op < N && table[op].name != nullptr ? &table[op] : nullptr;
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_OP_TABLE_H_
