// VGPR indexing mode: s_set_gpr_idx_on/off/mode/idx (encoded by llvm-mc-19 for gfx90a, testdata/gpr_index.s) and
// the VALU operands M0's index offsets while MODE.GPR_IDX_EN is set. Every VGPR starts out holding a value that names
// it (Tag), so a result says which register an operand read.
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/gpr_index_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::gpr_index_encodings_gfx90a;

constexpr uint32_t kModeGprIdxEnBit = 1u << 27;  // MODE.GPR_IDX_EN, as s_getreg reads it

uint32_t Tag(uint32_t reg, int lane) { return reg * 1000 + static_cast<uint32_t>(lane); }
uint32_t F(float f) {
  uint32_t u;
  __builtin_memcpy(&u, &f, 4);
  return u;
}

// A gfx90a wave whose v0..v63 hold Tag(register, lane).
class Tagged : public IsaHarness {
 public:
  Tagged() : IsaHarness(Target::kGfx90a) {
    for (uint32_t r = 0; r < 64; ++r) {
      for (int l = 0; l < kWaveSize; ++l) wave().vgpr(r)[l] = Tag(r, l);
    }
  }
};

// Sets every lane of the registers to the floats: {{register, value}, ...}.
void SetFloats(IsaHarness& h, std::initializer_list<std::pair<uint32_t, float>> values) {
  for (const auto& [reg, value] : values) {
    for (int l = 0; l < kWaveSize; ++l) h.wave().vgpr(reg)[l] = F(value);
  }
}

absl::Status Exec(IsaHarness& h, std::initializer_list<const char*> lines) {
  return h.Run(gpr_index_encodings_gfx90a, lines);
}

TEST(GprIndexTest, SetGprIdxOnWritesIndexAndModeIntoM0AndKeepsItsOtherBits) {
  Tagged h;
  h.wave().s[op::kM0] = 0xabcd5a5au;
  h.wave().s[2] = 0x1234u;  // only the low 8 bits are the index
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)", "s_getreg_b32 s6, hwreg(HW_REG_MODE)"}).ok());
  // M0[7:0] = 0x34, M0[15:12] = 0b1001; bits 11:8 and 31:16 as they were.
  EXPECT_EQ(h.wave().s[op::kM0], 0xabcd9a34u);
  EXPECT_NE(h.wave().s[6] & kModeGprIdxEnBit, 0u);

  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_off", "s_getreg_b32 s6, hwreg(HW_REG_MODE)"}).ok());
  EXPECT_EQ(h.wave().s[6] & kModeGprIdxEnBit, 0u);
  EXPECT_EQ(h.wave().s[op::kM0], 0xabcd9a34u) << "s_set_gpr_idx_off leaves M0 alone";

  h.wave().s[3] = 0xffffff07u;
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_mode gpr_idx(SRC0)", "s_set_gpr_idx_idx s3"}).ok());
  EXPECT_EQ(h.wave().s[op::kM0], 0xabcd1a07u);
}

TEST(GprIndexTest, EachModeBitOffsetsItsOperand) {
  struct Row {
    const char* on;
    const char* op;
    uint32_t expect_reg;  // the register written
    uint32_t expect;      // lane 5's value there
  };
  // Index 3 throughout (s2 = 3).
  const Row kRows[] = {
      {"s_set_gpr_idx_on s2, gpr_idx(SRC0)", "v_mov_b32_e32 v1, v2", 1, Tag(5, 5)},
      {"s_set_gpr_idx_on s2, gpr_idx(DST)", "v_mov_b32_e32 v1, v2", 4, Tag(2, 5)},
      {"s_set_gpr_idx_on s2, gpr_idx(SRC1)", "v_add_u32_e32 v1, v2, v3", 1, Tag(2, 5) + Tag(6, 5)},
      {"s_set_gpr_idx_on s2, gpr_idx(SRC0)", "v_add_u32_e64 v1, v2, v3", 1, Tag(5, 5) + Tag(3, 5)},
      {"s_set_gpr_idx_on s2, gpr_idx(SRC2)", "v_add3_u32 v1, v2, v3, v4", 1, Tag(2, 5) + Tag(3, 5) + Tag(7, 5)},
      {"s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,SRC2,DST)", "v_add3_u32 v1, v2, v3, v4", 4,
       Tag(5, 5) + Tag(6, 5) + Tag(7, 5)},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(std::string(row.on) + " / " + row.op);
    Tagged h;
    h.wave().s[2] = 3;
    ASSERT_TRUE(Exec(h, {row.on, row.op}).ok());
    EXPECT_EQ(h.wave().vgpr(row.expect_reg)[5], row.expect);
    if (row.expect_reg != 1) {
      EXPECT_EQ(h.wave().vgpr(1)[5], Tag(1, 5)) << "the unindexed destination was written";
    }
  }
}

TEST(GprIndexTest, OffIndexesNothingAndModeAndIdxChangeWhatFollows) {
  Tagged h;
  h.wave().s[2] = 3;
  h.wave().s[3] = 10;
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0)", "s_set_gpr_idx_off", "v_mov_b32_e32 v1, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(1)[0], Tag(2, 0));
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0)", "s_set_gpr_idx_mode gpr_idx(DST)", "s_set_gpr_idx_idx s3",
                      "v_mov_b32_e32 v1, v2", "s_set_gpr_idx_off"})
                  .ok());
  EXPECT_EQ(h.wave().vgpr(11)[0], Tag(2, 0)) << "index 10 on the destination only";
}

// s_setreg can switch the mode on too; M0 then says what to offset.
TEST(GprIndexTest, SetregTurnsIndexingOn) {
  Tagged h;
  h.wave().s[op::kM0] = (0x1u << 12) | 4;  // src0, index 4
  ASSERT_TRUE(Exec(h, {"s_setreg_imm32_b32 hwreg(HW_REG_MODE, 27, 1), 1", "v_mov_b32_e32 v1, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(1)[9], Tag(6, 9));
}

TEST(GprIndexTest, ScalarAndConstantOperandsAreNotOffset) {
  Tagged h;
  h.wave().s[2] = 3;
  h.wave().s[5] = 777;
  h.wave().s[8] = 999;
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0)", "v_mov_b32_e32 v1, s5", "s_set_gpr_idx_off"}).ok());
  EXPECT_EQ(h.wave().vgpr(1)[0], 777u);
  // v_readfirstlane's destination is an SGPR in the vdst field: the DST bit leaves it alone, SRC0 offsets v2.
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0,DST)", "v_readfirstlane_b32 s1, v2"}).ok());
  EXPECT_EQ(h.wave().s[1], Tag(5, 0));
  EXPECT_EQ(h.wave().s[4], 0u);
}

TEST(GprIndexTest, WidthsAndImplicitOperandsFollowTheGuide) {
  {
    // A 64-bit source moves as a pair.
    Tagged h;
    h.wave().s[2] = 2;
    ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC1)", "v_lshlrev_b64 v[6:7], 1, v[2:3]"}).ok());
    const uint64_t source = uint64_t{Tag(4, 7)} | (uint64_t{Tag(5, 7)} << 32);
    EXPECT_EQ(uint64_t{h.wave().vgpr(6)[7]} | (uint64_t{h.wave().vgpr(7)[7]} << 32), source << 1);
  }
  {
    // v_mac reads its accumulator through the destination: the DST bit moves both.
    Tagged h;
    h.wave().s[2] = 4;
    SetFloats(h, {{2, 3.0f}, {3, 5.0f}, {5, 100.0f}});
    ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(DST)", "v_mac_f32_e32 v1, v2, v3"}).ok());
    EXPECT_EQ(h.wave().vgpr(5)[0], F(115.0f));
    EXPECT_EQ(h.wave().vgpr(1)[0], Tag(1, 0));
  }
  {
    // v_madmk's addend sits in the src1 field but is the VALU's src2: SRC2 moves it, SRC1 does not.
    for (const bool src2 : {true, false}) {
      SCOPED_TRACE(src2 ? "SRC2" : "SRC1");
      Tagged h;
      h.wave().s[2] = 2;
      SetFloats(h, {{2, 3.0f}, {3, 1.0f}, {5, 10.0f}});
      ASSERT_TRUE(Exec(h, {src2 ? "s_set_gpr_idx_on s2, gpr_idx(SRC2)" : "s_set_gpr_idx_on s2, gpr_idx(SRC1)",
                          "v_madmk_f32 v1, v2, 0x40000000, v3"})
                      .ok());
      EXPECT_EQ(h.wave().vgpr(1)[0], F(src2 ? 16.0f : 7.0f));  // 3 * 2 + (10 or 1)
    }
  }
  {
    // v_madak's multiplicand is an ordinary src1.
    Tagged h;
    h.wave().s[2] = 2;
    SetFloats(h, {{2, 3.0f}, {3, 1.0f}, {5, 10.0f}});
    ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC1)", "v_madak_f32 v1, v2, v3, 0x40000000"}).ok());
    EXPECT_EQ(h.wave().vgpr(1)[0], F(32.0f));  // 3 * 10 + 2
  }
  {
    // v_writelane's scalar sources are not offset; its VGPR destination is.
    Tagged h;
    h.wave().s[2] = 2;
    h.wave().s[5] = 4242;
    const absl::Status status = Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,DST)", "v_writelane_b32 v1, s5, 3"});
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(h.wave().vgpr(3)[3], 4242u);
    EXPECT_EQ(h.wave().vgpr(3)[2], Tag(3, 2));
    EXPECT_EQ(h.wave().vgpr(1)[3], Tag(1, 3));
  }
  {
    // SDWA's preserved destination bits come from the offset destination.
    Tagged h;
    h.wave().s[2] = 6;
    ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(DST)",
                        "v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_0"})
                    .ok());
    EXPECT_EQ(h.wave().vgpr(7)[9], (Tag(2, 9) << 16) | (Tag(7, 9) & 0xffffu));
  }
}

TEST(GprIndexTest, MemoryInstructionsAreNotIndexed) {
  Tagged h;
  h.wave().s[2] = 1;
  for (int l = 0; l < kWaveSize; ++l) h.wave().vgpr(2)[l] = 4 * static_cast<uint32_t>(l);
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0,SRC1,SRC2,DST)", "ds_write_b32 v2, v3"}).ok());
  uint32_t lane9;
  __builtin_memcpy(&lane9, &h.lds()[36], 4);
  EXPECT_EQ(lane9, Tag(3, 9));
}

TEST(GprIndexTest, AnIndexPastTheRegisterFileIsIllegal) {
  Tagged h;  // 256 VGPRs
  h.wave().s[2] = 254;
  h.wave().s[7] = 0;
  const absl::Status status = Exec(h, {"s_set_gpr_idx_on s2, gpr_idx(SRC0)", "v_mov_b32_e32 v1, v2"});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_NE(status.message().find("VGPR index 254"), std::string::npos) << status;
  EXPECT_EQ(h.wave().vgpr(1)[0], Tag(1, 0));
  // v1 + 254 = v255 is still inside.
  Tagged ok;
  ok.wave().s[2] = 254;
  for (int l = 0; l < kWaveSize; ++l) ok.wave().vgpr(255)[l] = 55;
  ASSERT_TRUE(Exec(ok, {"s_set_gpr_idx_on s2, gpr_idx(SRC0)", "v_mov_b32_e32 v1, v1"}).ok());
  EXPECT_EQ(ok.wave().vgpr(1)[0], 55u);
}

// s_set_gpr_idx_on reads an immediate first operand as an inline constant.
TEST(GprIndexTest, ImmediateIndex) {
  Tagged h;
  ASSERT_TRUE(Exec(h, {"s_set_gpr_idx_on 5, gpr_idx(SRC0)", "v_mov_b32_e32 v1, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(1)[0], Tag(7, 0));
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
