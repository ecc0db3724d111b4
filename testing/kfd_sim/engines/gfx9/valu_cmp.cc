// VALU compares (VOPC and their VOP3 forms): a mask bit per lane into VCC or an SGPR pair.
#include <cmath>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

bool Eq(uint32_t a, uint32_t b) { return a == b; }
bool Ne(uint32_t a, uint32_t b) { return a != b; }
bool LtU(uint32_t a, uint32_t b) { return a < b; }
bool GtU(uint32_t a, uint32_t b) { return a > b; }
bool LeU(uint32_t a, uint32_t b) { return a <= b; }
bool GeU(uint32_t a, uint32_t b) { return a >= b; }
bool LtI(uint32_t a, uint32_t b) { return static_cast<int32_t>(a) < static_cast<int32_t>(b); }
bool GtI(uint32_t a, uint32_t b) { return static_cast<int32_t>(a) > static_cast<int32_t>(b); }
bool LeI(uint32_t a, uint32_t b) { return static_cast<int32_t>(a) <= static_cast<int32_t>(b); }
bool GeI(uint32_t a, uint32_t b) { return static_cast<int32_t>(a) >= static_cast<int32_t>(b); }

}  // namespace

void AddValuCompareOps(ValuTable& t) {
  t[0xc1] = {"v_cmp_lt_i32", &CmpU32<LtI>};
  t[0xc2] = {"v_cmp_eq_i32", &CmpU32<Eq>};
  t[0xc3] = {"v_cmp_le_i32", &CmpU32<LeI>};
  t[0xc4] = {"v_cmp_gt_i32", &CmpU32<GtI>};
  t[0xc5] = {"v_cmp_ne_i32", &CmpU32<Ne>};
  t[0xc6] = {"v_cmp_ge_i32", &CmpU32<GeI>};
  t[0xc9] = {"v_cmp_lt_u32", &CmpU32<LtU>};
  t[0xca] = {"v_cmp_eq_u32", &CmpU32<Eq>};
  t[0xcb] = {"v_cmp_le_u32", &CmpU32<LeU>};
  t[0xcc] = {"v_cmp_gt_u32", &CmpU32<GtU>};
  t[0xcd] = {"v_cmp_ne_u32", &CmpU32<Ne>};
  t[0xce] = {"v_cmp_ge_u32", &CmpU32<GeU>};
}

}  // namespace hipmem::kfd_sim::gfx9
