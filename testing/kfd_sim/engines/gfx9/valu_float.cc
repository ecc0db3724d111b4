// VALU floating point: f16, f32 and f64 arithmetic, transcendentals and conversions.
#include <cmath>
#include <cstdint>

#include "testing/kfd_sim/engines/gfx9/valu_common.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

float FAdd(float a, float b) { return a + b; }
float FSub(float a, float b) { return a - b; }
float FMul(float a, float b) { return a * b; }
float FFma(float a, float b, float d) { return std::fma(a, b, d); }

}  // namespace

void AddValuFloatOps(ValuTable& t) {
  t[kVop2Base + 0x01] = {"v_add_f32", &F32Op2<FAdd>};
  t[kVop2Base + 0x02] = {"v_sub_f32", &F32Op2<FSub>};
  t[kVop2Base + 0x05] = {"v_mul_f32", &F32Op2<FMul>};
  t[0x1cb] = {"v_fma_f32", &F32Op3<FFma>};
}

}  // namespace hipmem::kfd_sim::gfx9
