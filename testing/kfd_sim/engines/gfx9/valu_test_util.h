// For the VALU instruction tests: one llvm-mc encoding table per GFX9 target, and uniform register set-up.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_TEST_UTIL_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_TEST_UTIL_H_

#include <array>
#include <cstdint>
#include <span>

#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"

namespace hipmem::kfd_sim::gfx9 {

// A testdata file's encodings for one target (amdgpu_encodings builds one table per mcpu).
struct TargetEncodings {
  Target target;
  const char* name;
  std::span<const hipmem_testing::AsmEncoding> encodings;
};

// The three GFX9 targets with their tables of the same file, in the order gfx908, gfx90a, gfx942.
inline std::array<TargetEncodings, 3> Gfx9Targets(std::span<const hipmem_testing::AsmEncoding> gfx908,
                                                  std::span<const hipmem_testing::AsmEncoding> gfx90a,
                                                  std::span<const hipmem_testing::AsmEncoding> gfx942) {
  return {{{Target::kGfx908, "gfx908", gfx908}, {Target::kGfx90a, "gfx90a", gfx90a}, {Target::kGfx942, "gfx942", gfx942}}};
}

// Sets VGPR `reg` (or the pair from `reg`) to `value` in every lane.
inline void Broadcast(Wave& w, uint32_t reg, uint32_t value) {
  for (int l = 0; l < kWaveSize; ++l) w.vgpr(reg)[l] = value;
}
inline void Broadcast64(Wave& w, uint32_t reg, uint64_t value) {
  Broadcast(w, reg, static_cast<uint32_t>(value));
  Broadcast(w, reg + 1, static_cast<uint32_t>(value >> 32));
}
// Lane `lane` of the VGPR pair from `reg`.
inline uint64_t Lane64(const Wave& w, uint32_t reg, int lane) {
  return w.vgpr(reg)[lane] | (uint64_t{w.vgpr(reg + 1)[lane]} << 32);
}

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_VALU_TEST_UTIL_H_
