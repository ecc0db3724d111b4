// Vector ALU: VOP1, VOP2, VOPC and VOP3 (one table in the VOP3 opcode space; e32 forms are renumbered into it by
// the decoder, so one handler serves an opcode's e32, e64, SDWA and DPP forms). The families fill the table.
#include "testing/kfd_sim/engines/gfx9/op_table.h"
#include "testing/kfd_sim/engines/gfx9/valu_common.h"

namespace hipmem::kfd_sim::gfx9 {

const OpInfo* ValuOp(uint16_t op) {
  static const ValuTable table = [] {
    ValuTable t{};
    AddValuIntegerOps(t);
    AddValuCompareOps(t);
    AddValuFloatOps(t);
    AddValuF16Ops(t);
    AddValuConvertOps(t);
    AddValuFloatCompareOps(t);
    return t;
  }();
  return FindOp(table, op);
}

}  // namespace hipmem::kfd_sim::gfx9
