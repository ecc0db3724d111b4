// SOP2/SOP1/SOPC/SOPP instructions, each encoded by llvm-mc-19, on one wave.
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/sop_encodings_gfx90a.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::sop_encodings_gfx90a;

TEST(SopTest, AddU32SetsTheCarryInScc) {
  IsaHarness h(Target::kGfx90a);
  h.wave().s[2] = 0xffffffffu;
  h.wave().s[3] = 2;
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_add_u32 s1, s2, s3"}).ok());
  EXPECT_EQ(h.wave().s[1], 1u);
  EXPECT_TRUE(h.wave().scc);
  h.wave().s[5] = 10;
  h.wave().s[6] = 20;
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_addc_u32 s4, s5, s6"}).ok());
  EXPECT_EQ(h.wave().s[4], 31u);  // the carry from before comes in
  EXPECT_FALSE(h.wave().scc);
}

TEST(SopTest, AndSaveexecNarrowsExecAndKeepsTheOldMask) {
  IsaHarness h(Target::kGfx90a);
  h.wave().set_exec(0xff00ff00ff00ff00ull);
  h.wave().set_vcc(0x0f0f0f0f0f0f0f0full);
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_and_saveexec_b64 s[2:3], vcc"}).ok());
  EXPECT_EQ(h.wave().exec(), 0x0f000f000f000f00ull);
  EXPECT_EQ(h.wave().Read64(2), 0xff00ff00ff00ff00ull);
  EXPECT_TRUE(h.wave().scc);
}

TEST(SopTest, BranchSkipsTheInstructionWhenTaken) {
  IsaHarness h(Target::kGfx90a);
  h.wave().s[1] = 4;
  h.wave().s[2] = 4;
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a,
                    {"s_cmp_eq_u32 s1, s2", "s_cbranch_scc1 1", "s_mov_b32 s7, 1", "s_mov_b32 s8, 2"})
                  .ok());
  EXPECT_EQ(h.wave().s[7], 0u);
  EXPECT_EQ(h.wave().s[8], 2u);
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
