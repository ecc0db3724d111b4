// DPP (lane permutations of src0 with row/bank write masks and bound_ctrl) and SDWA (byte/word source selects with
// sign extension, destination selects with PAD/SEXT/PRESERVE) as operands.cc applies them, on instructions encoded
// by llvm-mc-19 (testdata/dpp_sdwa.s) for gfx908, gfx90a and gfx942.
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/dpp_sdwa_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/dpp_sdwa_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/dpp_sdwa_encodings_gfx942.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/valu_test_util.h"
#include "testing/kfd_sim/engines/gfx9/valu_int_gfx942_encodings.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::AsmEncoding;

constexpr uint32_t kOld = 0xdeadbeefu;
constexpr uint64_t kAll = ~uint64_t{0};
constexpr int kNoSource = -1;  // out of range: zero under bound_ctrl, else not written
constexpr int kUnreached = -2;  // a broadcast does not reach the lane: not written

const std::array<TargetEncodings, 3> kTargets = Gfx9Targets(hipmem_testing::dpp_sdwa_encodings_gfx908,
                                                             hipmem_testing::dpp_sdwa_encodings_gfx90a,
                                                             hipmem_testing::dpp_sdwa_encodings_gfx942);

// A DPP v_mov_b32 and the lane each destination lane reads, written from the ISA's definition of the control.
struct DppCase {
  const char* line;
  int (*source)(int lane);
  bool bound_ctrl = false;
  uint8_t row_mask = 0xf;
  uint8_t bank_mask = 0xf;
};

const DppCase kDppCases[] = {
    {"v_mov_b32_dpp v0, v1 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf", [](int l) { return (l & ~3) + 3 - (l & 3); }},
    {"v_mov_b32_dpp v0, v1 quad_perm:[1,1,0,2] row_mask:0xf bank_mask:0xf",
     [](int l) {
       constexpr int kSel[] = {1, 1, 0, 2};
       return (l & ~3) + kSel[l & 3];
     }},
    {"v_mov_b32_dpp v0, v1 quad_perm:[0,1,2,3] row_mask:0x5 bank_mask:0x3", [](int l) { return l; }, false, 0x5, 0x3},
    // row_shl:n reads n lanes up within the row (data moves toward lane 0).
    {"v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf", [](int l) { return l % 16 < 15 ? l + 1 : kNoSource; }},
    {"v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xf bank_mask:0xf bound_ctrl:0",
     [](int l) { return l % 16 < 15 ? l + 1 : kNoSource; }, true},
    {"v_mov_b32_dpp v0, v1 row_shl:15 row_mask:0xf bank_mask:0xf", [](int l) { return l % 16 == 0 ? l + 15 : kNoSource; }},
    {"v_mov_b32_dpp v0, v1 row_shr:3 row_mask:0xf bank_mask:0xf", [](int l) { return l % 16 >= 3 ? l - 3 : kNoSource; }},
    {"v_mov_b32_dpp v0, v1 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:0",
     [](int l) { return l % 16 >= 3 ? l - 3 : kNoSource; }, true},
    {"v_mov_b32_dpp v0, v1 row_ror:5 row_mask:0xf bank_mask:0xf", [](int l) { return (l & ~15) + (l + 16 - 5) % 16; }},
    {"v_mov_b32_dpp v0, v1 wave_shl:1 row_mask:0xf bank_mask:0xf", [](int l) { return l < 63 ? l + 1 : kNoSource; }},
    {"v_mov_b32_dpp v0, v1 wave_rol:1 row_mask:0xf bank_mask:0xf", [](int l) { return (l + 1) % 64; }},
    {"v_mov_b32_dpp v0, v1 wave_shr:1 row_mask:0xf bank_mask:0xf", [](int l) { return l > 0 ? l - 1 : kNoSource; }},
    {"v_mov_b32_dpp v0, v1 wave_ror:1 row_mask:0xf bank_mask:0xf", [](int l) { return (l + 63) % 64; }},
    {"v_mov_b32_dpp v0, v1 row_mirror row_mask:0xf bank_mask:0xf", [](int l) { return (l & ~15) + 15 - (l & 15); }},
    {"v_mov_b32_dpp v0, v1 row_half_mirror row_mask:0xf bank_mask:0xf", [](int l) { return (l & ~7) + 7 - (l & 7); }},
    // Lane 15 of each row feeds all of the next row; the atomic optimizer's masks keep rows 1 and 3.
    {"v_mov_b32_dpp v0, v1 row_bcast:15 row_mask:0xa bank_mask:0xf",
     [](int l) { return l < 16 ? kUnreached : (l / 16) * 16 - 1; }, false, 0xa},
    // Lane 31 feeds rows 2 and 3.
    {"v_mov_b32_dpp v0, v1 row_bcast:31 row_mask:0xc bank_mask:0xf", [](int l) { return l < 32 ? kUnreached : 31; },
     false, 0xc},
};

// What lane `l` of v0 holds after a DPP v_mov_b32 of v1 = 1000 + lane over v0 = kOld, with `exec`.
uint32_t DppExpected(const DppCase& k, uint64_t exec, int l) {
  const bool written = ((k.row_mask >> (l / 16)) & 1) != 0 && ((k.bank_mask >> ((l / 4) % 4)) & 1) != 0 &&
                       ((exec >> l) & 1) != 0;
  if (!written) return kOld;
  int s = k.source(l);
  if (s >= 0 && ((exec >> s) & 1) == 0) s = kNoSource;  // an inactive source lane is invalid
  if (s >= 0) return 1000u + static_cast<uint32_t>(s);
  return s == kNoSource && k.bound_ctrl ? 0 : kOld;
}

void RunDpp(const TargetEncodings& t, const DppCase& k, uint64_t exec) {
  SCOPED_TRACE(std::string(t.name) + ": " + k.line);
  IsaHarness h(t.target);
  Wave& w = h.wave();
  for (int l = 0; l < kWaveSize; ++l) {
    w.vgpr(1)[l] = 1000u + static_cast<uint32_t>(l);
    w.vgpr(0)[l] = kOld;
  }
  w.set_exec(exec);
  ASSERT_TRUE(h.Run(t.encodings, {k.line}).ok());
  for (int l = 0; l < kWaveSize; ++l) ASSERT_EQ(w.vgpr(0)[l], DppExpected(k, exec, l)) << "lane " << l;
}

TEST(DppTest, EveryControlMovesTheLanesTheIsaNames) {
  for (const TargetEncodings& t : kTargets) {
    for (const DppCase& k : kDppCases) RunDpp(t, k, kAll);
  }
}

TEST(DppTest, InactiveSourceLanesAreInvalidAndInactiveLanesAreNotWritten) {
  // Lanes 5, 20 and 47 off: their neighbours read an invalid source, they themselves keep kOld.
  const uint64_t exec = kAll & ~((uint64_t{1} << 5) | (uint64_t{1} << 20) | (uint64_t{1} << 47));
  for (const DppCase& k : kDppCases) RunDpp(kTargets[1], k, exec);
}

TEST(DppTest, OnlySrc0IsPermuted) {
  IsaHarness h(Target::kGfx90a);
  Wave& w = h.wave();
  for (int l = 0; l < kWaveSize; ++l) {
    w.vgpr(1)[l] = 1000u + static_cast<uint32_t>(l);
    w.vgpr(2)[l] = static_cast<uint32_t>(l) << 16;
    w.vgpr(0)[l] = kOld;
  }
  ASSERT_TRUE(h.Run(hipmem_testing::dpp_sdwa_encodings_gfx90a,
                    {"v_add_u32_dpp v0, v1, v2 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0"})
                  .ok());
  for (int l = 0; l < kWaveSize; ++l) {
    const uint32_t src0 = l % 16 == 0 ? 0 : 1000u + static_cast<uint32_t>(l - 1);  // bound_ctrl: zero
    EXPECT_EQ(w.vgpr(0)[l], src0 + (static_cast<uint32_t>(l) << 16)) << "lane " << l;
  }
}

// gfx90a+ row_newbcast:n: lane n of each row to the whole row, also for a 64-bit pair (gfx942's v_mov_b64).
TEST(DppTest, RowNewbcastBroadcastsWithinEachRow) {
  for (const Target target : {Target::kGfx90a, Target::kGfx942}) {
    IsaHarness h(target);
    Wave& w = h.wave();
    for (int l = 0; l < kWaveSize; ++l) w.vgpr(1)[l] = 1000u + static_cast<uint32_t>(l);
    ASSERT_TRUE(h.Run(hipmem_testing::valu_int_gfx942_encodings,
                      {"v_mov_b32_dpp v0, v1 row_newbcast:5 row_mask:0xf bank_mask:0xf"})
                    .ok());
    for (int l = 0; l < kWaveSize; ++l) EXPECT_EQ(w.vgpr(0)[l], 1000u + (l & ~15) + 5) << "lane " << l;
  }
  IsaHarness h(Target::kGfx942);
  Wave& w = h.wave();
  for (int l = 0; l < kWaveSize; ++l) {
    w.vgpr(6)[l] = static_cast<uint32_t>(l);
    w.vgpr(7)[l] = 0x100u + static_cast<uint32_t>(l);
  }
  ASSERT_TRUE(h.Run(hipmem_testing::valu_int_gfx942_encodings,
                    {"v_mov_b64_dpp v[4:5], v[6:7] row_newbcast:1 row_mask:0xf bank_mask:0xf"})
                  .ok());
  for (int l = 0; l < kWaveSize; ++l) {
    const uint32_t source = static_cast<uint32_t>((l & ~15) + 1);
    EXPECT_EQ(w.vgpr(4)[l], source) << "lane " << l;
    EXPECT_EQ(w.vgpr(5)[l], 0x100u + source) << "lane " << l;
  }
}

// SDWA: one instruction on uniform inputs v1, v2, s4, VCC; v0 starts as kOld.
struct SdwaCase {
  const char* line;
  uint32_t v1, v2;
  uint32_t want;  // v0, or the VCC / s[2:3] verdict (0 or 1) for a compare
};

constexpr SdwaCase kSdwaCases[] = {
    // Source selects: the byte or word, zero- or sign-extended.
    {"v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1", 0x1122f344, 0, 0xf3},
    {"v_mov_b32_sdwa v0, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1", 0x1122f344, 0, 0xfffffff3},
    {"v_mov_b32_sdwa v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1", 0x8122f344, 0, 0x8122},
    {"v_mov_b32_sdwa v0, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1", 0x8122f344, 0, 0xffff8122},
    // Destination selects: PAD zeroes the rest, SEXT copies the field's sign upward (zeros below), PRESERVE keeps
    // the rest of kOld.
    {"v_mov_b32_sdwa v0, v1 dst_sel:BYTE_2 dst_unused:UNUSED_PAD src0_sel:DWORD", 0x123456ab, 0, 0x00ab0000},
    {"v_mov_b32_sdwa v0, v1 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:DWORD", 0x123456ab, 0, 0xffab0000},
    {"v_mov_b32_sdwa v0, v1 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:DWORD", 0x1234567b, 0, 0x007b0000},
    {"v_mov_b32_sdwa v0, v1 dst_sel:BYTE_3 dst_unused:UNUSED_SEXT src0_sel:DWORD", 0x000000ab, 0, 0xab000000},
    {"v_mov_b32_sdwa v0, v1 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD", 0x99991234, 0, 0x1234beef},
    {"v_mov_b32_sdwa v0, v1 dst_sel:WORD_0 dst_unused:UNUSED_PRESERVE src0_sel:DWORD", 0x99991234, 0, 0xdead1234},
    // An SGPR source (s4 = 0xab000000) is selected like a VGPR.
    {"v_mov_b32_sdwa v0, s4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_3", 0, 0, 0xab},
    // VOP2: both sources select; the clamp saturates.
    {"v_add_u32_sdwa v0, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:WORD_1", 0x12345678,
     0x00050000, 0x7d},
    {"v_sub_u32_sdwa v0, sext(v1), v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:DWORD", 0xff, 1,
     0xfffffffe},
    {"v_add_u32_sdwa v0, v1, v2 clamp dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:DWORD", 0xffffffff,
     2, 0xffffffff},
    {"v_add_u16_sdwa v0, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:WORD_1 src1_sel:WORD_0",
     0x00070000, 3, 0x000abeef},
    {"v_not_b32_sdwa v0, v1 dst_sel:BYTE_0 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1", 0x0000f000, 0, 0xdeadbe0f},
    // VCC (all ones) picks src1's byte 1, placed in word 1.
    {"v_cndmask_b32_sdwa v0, v1, v2, vcc dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:BYTE_1", 0x11,
     0x2200, 0x00220000},
    {"v_add_co_u32_sdwa v0, vcc, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD",
     0xffff0000, 1, 0x10000},
    // Compares select their sources too.
    {"v_cmp_eq_u32_sdwa s[2:3], v1, v2 src0_sel:BYTE_1 src1_sel:WORD_0", 0x00003400, 0xffff0034, 1},
    {"v_cmp_lt_i32_sdwa vcc, sext(v1), v2 src0_sel:BYTE_0 src1_sel:DWORD", 0xff, 0, 1},  // -1 < 0
    {"v_cmp_lt_i32_sdwa vcc, v1, v2 src0_sel:BYTE_0 src1_sel:DWORD", 0xff, 0, 0},        // 255 < 0
};

TEST(SdwaTest, SourceAndDestinationSelects) {
  for (const TargetEncodings& t : kTargets) {
    for (const SdwaCase& k : kSdwaCases) {
      SCOPED_TRACE(std::string(t.name) + ": " + k.line);
      IsaHarness h(t.target);
      Wave& w = h.wave();
      for (int l = 0; l < kWaveSize; ++l) {
        w.vgpr(0)[l] = kOld;
        w.vgpr(1)[l] = k.v1;
        w.vgpr(2)[l] = k.v2;
      }
      w.s[4] = 0xab000000u;
      w.set_vcc(kAll);
      w.set_exec(kAll >> 1);  // lane 63 inactive
      ASSERT_TRUE(h.Run(t.encodings, {k.line}).ok());
      const std::string line = k.line;
      if (line.starts_with("v_cmp")) {
        const uint64_t mask = line.find("s[2:3]") != std::string::npos ? w.Read64(2) : w.vcc();
        EXPECT_EQ(mask, k.want != 0 ? kAll >> 1 : 0);
        continue;
      }
      for (int l = 0; l < kWaveSize - 1; ++l) ASSERT_EQ(w.vgpr(0)[l], k.want) << "lane " << l;
      EXPECT_EQ(w.vgpr(0)[63], kOld);
    }
  }
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
