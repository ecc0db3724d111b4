// The kfdtest-style raw shaders PM4 dispatch tests run (testdata/pm4_*.s, assembled by llvm-mc-19 for each GFX9
// target), and the COMPUTE_PGM_RSRC values kfdtest launches such shaders with.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_TEST_SHADERS_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_TEST_SHADERS_H_

#include <cstdint>
#include <string_view>

#include "gpu_abi/kernel_descriptor.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/pm4_shaders.h"

namespace hipmem::kfd_sim {

struct Pm4TestShaders {
  std::string_view write_constant;  // *s[0:1] = 0x1234abcd
  std::string_view copy_dword;      // *s[2:3] = *s[0:1]
  std::string_view atomic_loop;     // s2 times: atomic *s[0:1] += 1, every lane
  std::string_view ids;             // out[(y * s2 + x) * 64 + tid] = x << 24 | y << 16 | tid
  std::string_view illegal;         // an MFMA, which the engine does not run
  std::string_view trap;            // writes 0x1234abcd to *s[0:1], then s_trap 2
  std::string_view gws_init;        // GWS resource 0 = *s[0:1]
  std::string_view gws_locked_increment;  // per wave, under GWS semaphore 0: *s[0:1] += 1 (not atomic)
};

inline Pm4TestShaders Pm4ShadersFor(gfx9::Target target) {
  using namespace ::hipmem_testing;  // NOLINT: the generated embed functions
  switch (target) {
    case gfx9::Target::kGfx908:
      return {pm4_write_constant_gfx908(), pm4_copy_dword_gfx908(), pm4_atomic_loop_gfx908(), pm4_ids_gfx908(),
              pm4_illegal_gfx908(), pm4_trap_gfx908(), pm4_gws_init_gfx908(), pm4_gws_locked_increment_gfx908()};
    case gfx9::Target::kGfx90a:
      return {pm4_write_constant_gfx90a(), pm4_copy_dword_gfx90a(), pm4_atomic_loop_gfx90a(), pm4_ids_gfx90a(),
              pm4_illegal_gfx90a(), pm4_trap_gfx90a(), pm4_gws_init_gfx90a(), pm4_gws_locked_increment_gfx90a()};
    case gfx9::Target::kGfx942:
      return {pm4_write_constant_gfx942(), pm4_copy_dword_gfx942(), pm4_atomic_loop_gfx942(), pm4_ids_gfx942(),
              pm4_illegal_gfx942(), pm4_trap_gfx942(), pm4_gws_init_gfx942(), pm4_gws_locked_increment_gfx942()};
  }
  return {};
}

// kfdtest's COMPUTE_PGM_RSRC1: FLOAT_MODE 0xc0 (denormals kept), SGPRS granule 2, VGPRS granule 4.
inline constexpr uint32_t kKfdtestRsrc1 = (0xc0u << 12) | (2u << 6) | 4u;
// kfdtest's COMPUTE_PGM_RSRC3 on gfx90a and gfx942: ACCUM_OFFSET 9, the AGPRs from v40 on.
inline constexpr uint32_t kKfdtestRsrc3 = 9;

// COMPUTE_PGM_RSRC2 with `user_sgprs` user SGPRs and the workgroup-id system SGPRs asked for.
inline uint32_t Rsrc2(uint32_t user_sgprs, bool tgid_x = false, bool tgid_y = false) {
  namespace rsrc2 = ::hipmem::gpu_abi::amdhsa::rsrc2;
  uint32_t v = rsrc2::kUserSgprCount.Set(0, user_sgprs);
  v = rsrc2::kEnableSgprWorkgroupIdX.Set(v, tgid_x ? 1 : 0);
  return rsrc2::kEnableSgprWorkgroupIdY.Set(v, tgid_y ? 1 : 0);
}

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_TEST_SHADERS_H_
