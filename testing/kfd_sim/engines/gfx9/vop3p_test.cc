// Packed math (VOP3P), each instruction encoded by llvm-mc-19 from testdata/vop3p.s, on one wave with lane 63
// inactive; expected values worked out by hand.
#include <bit>
#include <cstdint>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/vop3p_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/vop3p_encodings_gfx942.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::vop3p_encodings_gfx90a;
using hipmem_testing::vop3p_encodings_gfx942;

constexpr uint32_t kMode = 0x3f0;  // IEEE, DX10 clamp, denormals kept, round to nearest even
constexpr uint64_t kExec = ~uint64_t{0} >> 1;
constexpr uint32_t kUntouched = 0xdeadbeef;

uint32_t F(float v) { return std::bit_cast<uint32_t>(v); }

struct Row {
  const char* line;
  uint32_t a, b, c;
  uint32_t expect;
};

void Check(const Row& row) {
  SCOPED_TRACE(row.line);
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = kMode;
  h.wave().set_exec(kExec);
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(0)[l] = kUntouched;
    h.wave().vgpr(1)[l] = row.a;
    h.wave().vgpr(2)[l] = row.b;
    h.wave().vgpr(3)[l] = row.c;
  }
  const absl::Status status = h.Run(vop3p_encodings_gfx90a, {row.line});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(h.wave().vgpr(0)[0], row.expect) << std::hex << "got 0x" << h.wave().vgpr(0)[0];
  EXPECT_EQ(h.wave().vgpr(0)[63], kUntouched) << "inactive lane written";
}

TEST(Vop3pTest, PackedF16) {
  // f16: 1.0 0x3c00, 1.5 0x3e00, 2.0 0x4000, 3.0 0x4200, 4.0 0x4400, 6.0 0x4600, -1.0 0xbc00.
  const Row rows[] = {
      {"v_pk_add_f16 v0, v1, v2", 0x3e003c00, 0x40004000, 0, 0x43004200},  // (1+2, 1.5+2) = (3, 3.5)
      {"v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]", 0x3e003c00, 0x40004000, 0, 0x42004300},  // swapped
      {"v_pk_add_f16 v0, v1, v2 neg_lo:[1,0] neg_hi:[0,1]", 0x3e003c00, 0x40004000, 0, 0xb8003c00},
      {"v_pk_add_f16 v0, v1, v2 clamp", 0x3e003c00, 0xbc004000, 0, 0x38003c00},  // (1, 0.5) after clamp
      {"v_pk_mul_f16 v0, v1, v2", 0x3e004000, 0x40004200, 0, 0x42004600},
      {"v_pk_fma_f16 v0, v1, v2, v3", 0x3e004000, 0x40004200, 0x3c00bc00, 0x44004500},  // (2*3-1, 1.5*2+1)
      {"v_pk_min_f16 v0, v1, v2", 0x3e004000, 0x40003c00, 0, 0x3e003c00},
      {"v_pk_max_f16 v0, v1, v2", 0x3e004000, 0x7e003c00, 0, 0x3e004000},  // a quiet NaN is ignored
      {"v_pk_add_f16 v0, v1, 1.0", 0x3e003c00, 0, 0, 0x3e004000},  // an inline constant fills the low half only
  };
  for (const Row& row : rows) Check(row);
}

TEST(Vop3pTest, PackedInt16) {
  const Row rows[] = {
      {"v_pk_add_u16 v0, v1, v2", 0xffff0001, 0x00020003, 0, 0x00010004},
      {"v_pk_add_u16 v0, v1, v2 clamp", 0xffff0001, 0x00020003, 0, 0xffff0004},
      {"v_pk_sub_u16 v0, v1, v2 clamp", 0x00010005, 0x00020003, 0, 0x00000002},
      {"v_pk_add_i16 v0, v1, v2 clamp", 0x7fff0001, 0x00010003, 0, 0x7fff0004},
      {"v_pk_sub_i16 v0, v1, v2", 0x00010005, 0x00020003, 0, 0xffff0002},
      {"v_pk_mul_lo_u16 v0, v1, v2", 0x01000003, 0x01000005, 0, 0x0000000f},
      {"v_pk_mad_u16 v0, v1, v2, v3", 0x00020003, 0x00040005, 0x00010001, 0x00090010},
      {"v_pk_mad_i16 v0, v1, v2, v3", 0xfffe0003, 0x00040005, 0x00010001, 0xfff90010},
      {"v_pk_lshlrev_b16 v0, v1, v2", 0x00110004, 0x00010001, 0, 0x00020010},  // shift by the low 4 bits
      {"v_pk_lshrrev_b16 v0, v1, v2", 0x00010004, 0x80008000, 0, 0x40000800},
      {"v_pk_ashrrev_i16 v0, v1, v2", 0x00010004, 0x80008000, 0, 0xc000f800},
      {"v_pk_max_i16 v0, v1, v2", 0xffff0001, 0x00010002, 0, 0x00010002},
      {"v_pk_min_i16 v0, v1, v2", 0xffff0001, 0x00010002, 0, 0xffff0001},
      {"v_pk_max_u16 v0, v1, v2", 0xffff0001, 0x00010002, 0, 0xffff0002},
      {"v_pk_min_u16 v0, v1, v2", 0xffff0001, 0x00010002, 0, 0x00010001},
  };
  for (const Row& row : rows) Check(row);
}

TEST(Vop3pTest, MixedPrecisionAndDots) {
  const Row rows[] = {
      // fma_mix: op_sel_hi[k] set reads an f16 (op_sel picks the half), clear reads an f32.
      {"v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[1,1,0]", 0x3e00, 0x4000, F(0.25f), F(1.5f * 2.0f + 0.25f)},
      {"v_fma_mix_f32 v0, v1, v2, v3 op_sel:[0,1,0] op_sel_hi:[1,1,0]", 0x3e00, 0x40000000, F(0.25f), F(3.25f)},
      {"v_fma_mix_f32 v0, v1, v2, v3", F(1.5f), F(2.0f), F(0.25f), F(3.25f)},
      {"v_fma_mixlo_f16 v0, v1, v2, v3 op_sel_hi:[1,1,0]", 0x3e00, 0x4000, F(1.0f), 0xdead4400},
      {"v_fma_mixhi_f16 v0, v1, v2, v3 op_sel_hi:[1,1,0]", 0x3e00, 0x4000, F(1.0f), 0x4400beef},
      {"v_dot2_f32_f16 v0, v1, v2, v3", 0x40003c00, 0x42004400, F(0.5f), F(10.5f)},
      {"v_dot2_i32_i16 v0, v1, v2, v3", 0xffff0003, 0x00050002, 10, 11},
      {"v_dot2_u32_u16 v0, v1, v2, v3", 0xffff0003, 0x00010002, 10, 0xffff + 6 + 10},
      {"v_dot4_i32_i8 v0, v1, v2, v3", 0x01ff0203, 0x01010101, 0, 5},
      {"v_dot4_u32_u8 v0, v1, v2, v3", 0x01ff0203, 0x01010101, 0, 0x105},
      {"v_dot8_i32_i4 v0, v1, v2, v3", 0x1111111f, 0x22222227, 0, static_cast<uint32_t>(-7 + 7 * 2)},
      {"v_dot8_u32_u4 v0, v1, v2, v3", 0x1111111f, 0x22222227, 0, 15 * 7 + 7 * 2},
      {"v_dot2_i32_i16 v0, v1, v2, v3 clamp", 0x7fff7fff, 0x7fff7fff, 0x7fffffff, 0x7fffffff},
  };
  for (const Row& row : rows) Check(row);
}

// gfx90a's packed f32 on VGPR pairs: v[2:3] op v[4:5] (+ v[6:7]) into v[0:1].
TEST(Vop3pTest, PackedF32) {
  struct Row64 {
    const char* line;
    float a[2], b[2], c[2];
    float expect[2];
  };
  const Row64 rows[] = {
      {"v_pk_add_f32 v[0:1], v[2:3], v[4:5]", {1, 2}, {10, 20}, {0, 0}, {11, 22}},
      {"v_pk_mul_f32 v[0:1], v[2:3], v[4:5]", {1, 2}, {10, 20}, {0, 0}, {10, 40}},
      {"v_pk_fma_f32 v[0:1], v[2:3], v[4:5], v[6:7]", {1, 2}, {10, 20}, {0.5f, 0.25f}, {10.5f, 40.25f}},
      {"v_pk_add_f32 v[0:1], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[0,1]", {1, 2}, {10, 20}, {0, 0}, {12, 21}},
      {"v_pk_mul_f32 v[0:1], v[2:3], v[4:5] neg_lo:[1,0] neg_hi:[0,1]", {1, 2}, {10, 20}, {0, 0}, {-10, -40}},
      {"v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[1,0]", {1, 2}, {10, 20}, {0, 0}, {2, 10}},
      {"v_pk_mov_b32 v[0:1], v[2:3], v[4:5] op_sel:[0,1]", {1, 2}, {10, 20}, {0, 0}, {1, 20}},
  };
  for (const Row64& row : rows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    h.wave().mode = kMode;
    h.wave().set_exec(kExec);
    for (int l = 0; l < kWaveSize; ++l) {
      for (int k = 0; k < 2; ++k) {
        h.wave().vgpr(k)[l] = kUntouched;
        h.wave().vgpr(2 + k)[l] = F(row.a[k]);
        h.wave().vgpr(4 + k)[l] = F(row.b[k]);
        h.wave().vgpr(6 + k)[l] = F(row.c[k]);
      }
    }
    ASSERT_TRUE(h.Run(vop3p_encodings_gfx90a, {row.line}).ok());
    EXPECT_EQ(h.wave().vgpr(0)[0], F(row.expect[0]));
    EXPECT_EQ(h.wave().vgpr(1)[0], F(row.expect[1]));
    EXPECT_EQ(h.wave().vgpr(0)[63], kUntouched);
  }
}

TEST(Vop3pTest, Gfx942PackedF32) {
  IsaHarness h(Target::kGfx942);
  h.wave().mode = kMode;
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(2)[l] = F(1.0f);
    h.wave().vgpr(3)[l] = F(2.0f);
    h.wave().vgpr(4)[l] = F(3.0f);
    h.wave().vgpr(5)[l] = F(4.0f);
  }
  ASSERT_TRUE(h.Run(vop3p_encodings_gfx942, {"v_pk_add_f32 v[0:1], v[2:3], v[4:5]"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[9], F(4.0f));
  EXPECT_EQ(h.wave().vgpr(1)[9], F(6.0f));
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9

namespace hipmem::kfd_sim::gfx9 {
namespace {

// gfx908 spills VGPRs to AGPRs (and gfx90a+ may): a value written to an AGPR and read back through it, active lanes
// only; gfx90a+ also writes an inline constant.
TEST(Vop3pTest, AccvgprWriteThenReadMovesThroughAnAgpr) {
  IsaHarness h(Target::kGfx90a);
  h.wave().set_exec(kExec);
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(1)[l] = 100 + l;
    h.wave().vgpr(6)[l] = kUntouched;
  }
  ASSERT_TRUE(h.Run(vop3p_encodings_gfx90a,
                    {"v_accvgpr_write_b32 a5, v1", "v_accvgpr_read_b32 v6, a5", "v_accvgpr_write_b32 a7, 17"})
                  .ok());
  for (int l = 0; l < kWaveSize - 1; ++l) {
    ASSERT_EQ(h.wave().agpr(5)[l], 100u + l) << l;
    ASSERT_EQ(h.wave().vgpr(6)[l], 100u + l) << l;
    ASSERT_EQ(h.wave().agpr(7)[l], 17u) << l;
  }
  EXPECT_EQ(h.wave().vgpr(6)[63], kUntouched);
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
