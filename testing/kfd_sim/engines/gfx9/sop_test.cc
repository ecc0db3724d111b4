// SOP2/SOPK/SOP1/SOPC/SOPP instructions, each encoded by llvm-mc-19 (testdata/sop.s), on one wave. Expected values
// are worked out by hand or with host arithmetic on the row's inputs, never by the engine's own helpers.
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/smem_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/smem_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/smem_encodings_gfx942.h"
#include "testing/kfd_sim/engines/gfx9/sop_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/sop_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/sop_encodings_gfx942.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::sop_encodings_gfx908;
using hipmem_testing::sop_encodings_gfx90a;
using hipmem_testing::sop_encodings_gfx942;

constexpr uint64_t kCanary = 0xdeadbeefcafef00dull;  // what s[0:1] holds before a row unless it says otherwise

// One ALU instruction whose sources are s2 / s[2:3] (a) and s4 / s[4:5] (b) and whose destination is s0 / s[0:1].
struct AluRow {
  const char* line;
  uint64_t a;
  uint64_t b;
  bool scc_in;
  uint64_t d;    // the destination afterwards (kCanary where the instruction has none or does not write)
  bool scc_out;
  int dwords = 1;          // destination width: 1 (s0; s1 must keep the canary's high half) or 2 (s[0:1])
  uint64_t d_in = kCanary;  // s[0:1] before: the instructions that read their destination (SOPK, s_bitset*)
};

void RunAluRows(std::span<const AluRow> rows) {
  for (const AluRow& row : rows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    h.wave().Write64(0, row.d_in);
    h.wave().Write64(2, row.a);
    h.wave().Write64(4, row.b);
    h.wave().scc = row.scc_in;
    ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {row.line}).ok());
    if (row.dwords == 2) {
      EXPECT_EQ(h.wave().Read64(0), row.d);
    } else {
      EXPECT_EQ(h.wave().s[0], static_cast<uint32_t>(row.d));
      EXPECT_EQ(h.wave().s[1], static_cast<uint32_t>(row.d_in >> 32)) << "a 32-bit result wrote past s0";
    }
    EXPECT_EQ(h.wave().scc, row.scc_out);
    EXPECT_EQ(h.wave().Read64(2), row.a) << "a source changed";
  }
}

constexpr uint32_t kA32 = 0xff00ff00u;
constexpr uint32_t kB32 = 0x0ff00ff0u;
constexpr uint64_t kA64 = 0xff00ff00f0f0f0f0ull;
constexpr uint64_t kB64 = 0x0ff00ff00ff00ff0ull;
constexpr uint64_t kTop = uint64_t{1} << 63;

TEST(Sop2Test, ArithmeticSetsCarryBorrowOrOverflowInScc) {
  constexpr AluRow kRows[] = {
      {"s_add_u32 s0, s2, s4", 0xffffffff, 2, false, 1, true},
      {"s_add_u32 s0, s2, s4", 1, 2, true, 3, false},
      {"s_sub_u32 s0, s2, s4", 1, 2, false, 0xffffffff, true},
      {"s_sub_u32 s0, s2, s4", 5, 5, true, 0, false},
      {"s_add_i32 s0, s2, s4", 0x7fffffff, 1, false, 0x80000000, true},
      {"s_add_i32 s0, s2, s4", 0xffffffff, 1, true, 0, false},  // -1 + 1: a carry but no overflow
      {"s_add_i32 s0, s2, s4", 0x80000000, 0x80000000, false, 0, true},
      {"s_sub_i32 s0, s2, s4", 0x80000000, 1, false, 0x7fffffff, true},
      {"s_sub_i32 s0, s2, s4", 5, 7, true, 0xfffffffe, false},  // a borrow but no overflow
      {"s_addc_u32 s0, s2, s4", 0xffffffff, 0, true, 0, true},
      {"s_addc_u32 s0, s2, s4", 1, 2, true, 4, false},
      {"s_addc_u32 s0, s2, s4", 0xffffffff, 1, false, 0, true},
      {"s_subb_u32 s0, s2, s4", 0, 0, true, 0xffffffff, true},
      {"s_subb_u32 s0, s2, s4", 5, 4, true, 0, false},
      {"s_subb_u32 s0, s2, s4", 5, 5, true, 0xffffffff, true},
      {"s_min_i32 s0, s2, s4", 0xffffffff, 1, false, 0xffffffff, true},  // SCC: S0 was chosen
      {"s_min_i32 s0, s2, s4", 3, 3, true, 3, false},
      {"s_min_u32 s0, s2, s4", 0xffffffff, 1, true, 1, false},
      {"s_max_i32 s0, s2, s4", 0xffffffff, 1, true, 1, false},
      {"s_max_i32 s0, s2, s4", 2, 1, false, 2, true},
      {"s_max_u32 s0, s2, s4", 0xffffffff, 1, false, 0xffffffff, true},
      {"s_mul_i32 s0, s2, s4", 0x12345678, 0x9abcdef0, true, uint32_t{0x12345678u * 0x9abcdef0u}, true},
      {"s_mul_hi_u32 s0, s2, s4", 0xffffffff, 0xffffffff, false, 0xfffffffe, false},
      {"s_mul_hi_i32 s0, s2, s4", 0xffffffff, 0xffffffff, true, 0, true},  // -1 * -1
      {"s_mul_hi_i32 s0, s2, s4", 0x80000000, 2, false, 0xffffffff, false},  // -2^31 * 2 = -2^32
      {"s_absdiff_i32 s0, s2, s4", 3, 10, false, 7, true},
      {"s_absdiff_i32 s0, s2, s4", 5, 5, true, 0, false},
      {"s_absdiff_i32 s0, s2, s4", 0x80000000, 1, false, 0x7fffffff, true},
      {"s_absdiff_i32 s0, s2, s4", 0x7fffffff, 0xffffffff, false, 0x80000000, true},  // the difference wraps
      {"s_lshl1_add_u32 s0, s2, s4", 0x80000000, 1, false, 1, true},
      {"s_lshl2_add_u32 s0, s2, s4", 3, 4, true, 16, false},
      {"s_lshl3_add_u32 s0, s2, s4", 1, 1, true, 9, false},
      {"s_lshl4_add_u32 s0, s2, s4", 0x10000000, 0, false, 0, true},
      {"s_add_u32 s0, s2, 0x12345678", 1, 0, true, 0x12345679, false},
  };
  RunAluRows(kRows);
}

TEST(Sop2Test, CselectFollowsSccAndKeepsIt) {
  constexpr AluRow kRows[] = {
      {"s_cselect_b32 s0, s2, s4", 7, 9, true, 7, true},
      {"s_cselect_b32 s0, s2, s4", 7, 9, false, 9, false},
      {"s_cselect_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, true, kA64, true, 2},
      {"s_cselect_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, kB64, false, 2},
  };
  RunAluRows(kRows);
}

TEST(Sop2Test, BitwiseOpsSetSccWhenTheResultIsNonZero) {
  constexpr AluRow kRows[] = {
      {"s_and_b32 s0, s2, s4", kA32, kB32, false, kA32 & kB32, true},
      {"s_and_b32 s0, s2, s4", 0xff, 0x100, true, 0, false},
      {"s_or_b32 s0, s2, s4", kA32, kB32, false, kA32 | kB32, true},
      {"s_xor_b32 s0, s2, s4", kA32, kB32, false, kA32 ^ kB32, true},
      {"s_andn2_b32 s0, s2, s4", kA32, kB32, false, kA32 & ~kB32, true},
      {"s_orn2_b32 s0, s2, s4", kA32, kB32, false, kA32 | ~kB32, true},
      {"s_nand_b32 s0, s2, s4", kA32, kB32, false, ~(kA32 & kB32), true},
      {"s_nor_b32 s0, s2, s4", kA32, kB32, false, ~(kA32 | kB32), true},
      {"s_nor_b32 s0, s2, s4", 0xffffffff, 0, true, 0, false},
      {"s_xnor_b32 s0, s2, s4", kA32, kB32, false, ~(kA32 ^ kB32), true},
      {"s_and_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, kA64 & kB64, true, 2},
      {"s_and_b64 s[0:1], s[2:3], s[4:5]", kTop, ~kTop, true, 0, false, 2},
      {"s_or_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, kA64 | kB64, true, 2},
      {"s_xor_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, kA64 ^ kB64, true, 2},
      {"s_xor_b64 s[0:1], s[2:3], s[4:5]", kA64, kA64, true, 0, false, 2},
      {"s_andn2_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, kA64 & ~kB64, true, 2},
      {"s_orn2_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, kA64 | ~kB64, true, 2},
      {"s_nand_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, ~(kA64 & kB64), true, 2},
      {"s_nor_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, ~(kA64 | kB64), true, 2},
      {"s_xnor_b64 s[0:1], s[2:3], s[4:5]", kA64, kB64, false, ~(kA64 ^ kB64), true, 2},
      // Inline constants are 64-bit for a 64-bit operand; a 32-bit literal is zero-extended (clang relies on it).
      {"s_and_b64 s[0:1], s[2:3], -1", kA64, 0, false, kA64, true, 2},
      {"s_mov_b64 s[0:1], 0xffffffff", 0, 0, false, 0x00000000ffffffffull, false, 2},
      {"s_mov_b64 s[0:1], 1.0", 0, 0, false, 0x3ff0000000000000ull, false, 2},
      {"s_mov_b32 s0, 1.0", 0, 0, false, 0x3f800000, false},
  };
  RunAluRows(kRows);
}

TEST(Sop2Test, ShiftsUseTheCountModuloTheWidth) {
  constexpr AluRow kRows[] = {
      {"s_lshl_b32 s0, s2, s4", 0x80000001, 1, false, 2, true},
      {"s_lshl_b32 s0, s2, s4", 0x80000001, 33, false, 2, true},
      {"s_lshl_b32 s0, s2, s4", 0x80000000, 1, true, 0, false},
      {"s_lshr_b32 s0, s2, s4", 0x80000000, 31, false, 1, true},
      {"s_lshr_b32 s0, s2, s4", 0x80000000, 32, false, 0x80000000, true},
      {"s_ashr_i32 s0, s2, s4", 0x80000000, 31, false, 0xffffffff, true},
      {"s_ashr_i32 s0, s2, s4", 0x80000000, 4, false, 0xf8000000, true},
      {"s_ashr_i32 s0, s2, s4", 0x40000000, 31, true, 0, false},
      {"s_lshl_b64 s[0:1], s[2:3], s4", 1, 63, false, kTop, true, 2},
      {"s_lshl_b64 s[0:1], s[2:3], s4", 1, 64, false, 1, true, 2},
      {"s_lshl_b64 s[0:1], s[2:3], s4", kTop, 1, true, 0, false, 2},
      {"s_lshr_b64 s[0:1], s[2:3], s4", kTop, 63, false, 1, true, 2},
      {"s_lshr_b64 s[0:1], s[2:3], s4", kA64, 68, false, kA64 >> 4, true, 2},
      {"s_ashr_i64 s[0:1], s[2:3], s4", kTop, 62, false, 0xfffffffffffffffeull, true, 2},
      {"s_ashr_i64 s[0:1], s[2:3], s4", kTop, 64, false, kTop, true, 2},
  };
  RunAluRows(kRows);
}

constexpr uint32_t BfeControl(uint32_t offset, uint32_t width) { return offset | (width << 16); }

TEST(Sop2Test, BitFieldsExtractAndMake) {
  constexpr uint64_t kBits = 0x123456789abcdef0ull;
  constexpr AluRow kRows[] = {
      {"s_bfm_b32 s0, s2, s4", 4, 8, true, 0xf00, true},
      {"s_bfm_b32 s0, s2, s4", 31, 1, false, 0xfffffffe, false},
      {"s_bfm_b32 s0, s2, s4", 32, 0, true, 0, true},  // a width of 32 is 0 (mod 32)
      {"s_bfm_b64 s[0:1], s2, s4", 40, 20, false, ((uint64_t{1} << 40) - 1) << 20, false, 2},
      {"s_bfe_u32 s0, s2, s4", 0x12345678, BfeControl(4, 8), false, 0x67, true},
      {"s_bfe_u32 s0, s2, s4", 0x12345678, BfeControl(4, 0), true, 0, false},
      {"s_bfe_u32 s0, s2, s4", 0x12345678, BfeControl(28, 8), false, 0x1, true},  // past the top: what remains
      {"s_bfe_u32 s0, s2, s4", 0x12345678, BfeControl(36, 32), false, 0x12345678 >> 4, true},
      {"s_bfe_i32 s0, s2, s4", 0xf0, BfeControl(4, 4), false, 0xffffffff, true},
      {"s_bfe_i32 s0, s2, s4", 0x70, BfeControl(4, 4), false, 7, true},
      {"s_bfe_i32 s0, s2, s4", 0x80000000, BfeControl(28, 8), false, 0xfffffff8, true},  // the sign shifts in
      {"s_bfe_u64 s[0:1], s[2:3], s4", kBits, BfeControl(36, 16), false, (kBits >> 36) & 0xffff, true, 2},
      {"s_bfe_u64 s[0:1], s[2:3], s4", kBits, BfeControl(60, 8), false, kBits >> 60, true, 2},
      {"s_bfe_i64 s[0:1], s[2:3], s4", kTop, BfeControl(60, 8), false, 0xfffffffffffffff8ull, true, 2},
      {"s_bfe_i64 s[0:1], s[2:3], s4", 0x0000f00000000000ull, BfeControl(44, 4), false, ~uint64_t{0}, true, 2},
      {"s_bfe_i64 s[0:1], s[2:3], s4", 0x0000f00000000000ull, BfeControl(44, 0), true, 0, false, 2},
  };
  RunAluRows(kRows);
}

TEST(Sop2Test, PacksHalves) {
  constexpr AluRow kRows[] = {
      {"s_pack_ll_b32_b16 s0, s2, s4", 0x11112222, 0x33334444, true, 0x44442222, true},
      {"s_pack_lh_b32_b16 s0, s2, s4", 0x11112222, 0x33334444, false, 0x33332222, false},
      {"s_pack_hh_b32_b16 s0, s2, s4", 0x11112222, 0x33334444, false, 0x33331111, false},
  };
  RunAluRows(kRows);
}

TEST(SopkTest, ImmediatesAreSignExtendedExceptForUnsignedCompares) {
  constexpr AluRow kRows[] = {
      {"s_movk_i32 s0, 0x8000", 0, 0, true, 0xffff8000, true},
      {"s_movk_i32 s0, 0x7fff", 0, 0, false, 0x7fff, false},
      {"s_cmovk_i32 s0, 0x8000", 0, 0, true, 0xffff8000, true},
      {"s_cmovk_i32 s0, 0x8000", 0, 0, false, kCanary, false},
      {"s_addk_i32 s0, 0x8000", 0, 0, false, 0x7fff8000, true, 1, 0x80000000},  // INT_MIN - 32768 overflows
      {"s_addk_i32 s0, 0x1", 0, 0, true, 6, false, 1, 5},
      {"s_mulk_i32 s0, 0xfffe", 0, 0, true, 0xfffffff2, true, 1, 7},  // 7 * -2; SCC untouched
      // The compares read s2 (a) and leave s0 alone.
      {"s_cmpk_eq_i32 s2, 0xfffe", 0xfffffffe, 0, false, kCanary, true},
      {"s_cmpk_lg_i32 s2, 0xfffe", 0xfffffffe, 0, true, kCanary, false},
      {"s_cmpk_gt_i32 s2, 0xfffe", 0, 0, false, kCanary, true},
      {"s_cmpk_ge_i32 s2, 0xfffe", 0xfffffffe, 0, false, kCanary, true},
      {"s_cmpk_lt_i32 s2, 0xfffe", 0xfffffffd, 0, false, kCanary, true},
      {"s_cmpk_le_i32 s2, 0xfffe", 0, 0, true, kCanary, false},
      {"s_cmpk_eq_u32 s2, 0xfffe", 0xfffffffe, 0, true, kCanary, false},
      {"s_cmpk_eq_u32 s2, 0xfffe", 0xfffe, 0, false, kCanary, true},
      {"s_cmpk_lg_u32 s2, 0xfffe", 0xfffe, 0, true, kCanary, false},
      {"s_cmpk_gt_u32 s2, 0xfffe", 0xfffffffe, 0, false, kCanary, true},
      {"s_cmpk_ge_u32 s2, 0xfffe", 0xfffe, 0, false, kCanary, true},
      {"s_cmpk_lt_u32 s2, 0xfffe", 0xfffffffe, 0, true, kCanary, false},
      {"s_cmpk_le_u32 s2, 0xfffe", 0xfffe, 0, false, kCanary, true},
  };
  RunAluRows(kRows);
}

TEST(Sop1Test, UnaryOps) {
  constexpr AluRow kRows[] = {
      {"s_mov_b32 s0, s2", 0x12345678, 0, true, 0x12345678, true},
      {"s_mov_b64 s[0:1], s[2:3]", kA64, 0, false, kA64, false, 2},
      {"s_cmov_b32 s0, s2", 0x12345678, 0, true, 0x12345678, true},
      {"s_cmov_b32 s0, s2", 0x12345678, 0, false, kCanary, false},
      {"s_cmov_b64 s[0:1], s[2:3]", kA64, 0, true, kA64, true, 2},
      {"s_cmov_b64 s[0:1], s[2:3]", kA64, 0, false, kCanary, false, 2},
      {"s_not_b32 s0, s2", 0xffffffff, 0, true, 0, false},
      {"s_not_b32 s0, s2", 0, 0, false, 0xffffffff, true},
      {"s_not_b64 s[0:1], s[2:3]", kA64, 0, false, ~kA64, true, 2},
      {"s_wqm_b32 s0, s2", 0x00100801, 0, false, 0x00f00f0f, true},
      {"s_wqm_b32 s0, s2", 0, 0, true, 0, false},
      {"s_wqm_b64 s[0:1], s[2:3]", kTop | 2, 0, false, 0xf00000000000000full, true, 2},
      {"s_quadmask_b32 s0, s2", 0x0000f010, 0, false, 0xa, true},
      {"s_quadmask_b32 s0, s2", 0, 0, true, 0, false},
      {"s_quadmask_b64 s[0:1], s[2:3]", kTop | 1, 0, false, 0x8001, true, 2},
      {"s_brev_b32 s0, s2", 0x12345678, 0, true, 0x1e6a2c48, true},
      {"s_brev_b64 s[0:1], s[2:3]", 0x12345678, 0, false, 0x1e6a2c4800000000ull, false, 2},
      {"s_bcnt0_i32_b32 s0, s2", 0xff, 0, false, 24, true},
      {"s_bcnt0_i32_b32 s0, s2", 0xffffffff, 0, true, 0, false},
      {"s_bcnt0_i32_b64 s0, s[2:3]", 0, 0, false, 64, true},
      {"s_bcnt1_i32_b32 s0, s2", 0xf0f0, 0, false, 8, true},
      {"s_bcnt1_i32_b64 s0, s[2:3]", 0xff00000000000001ull, 0, false, 9, true},
      {"s_bcnt1_i32_b64 s0, s[2:3]", 0, 0, true, 0, false},
      // Find-first and leading-bit counts answer -1 when nothing qualifies and leave SCC alone.
      {"s_ff0_i32_b32 s0, s2", 0xffffffff, 0, true, 0xffffffff, true},
      {"s_ff0_i32_b32 s0, s2", 0x0000ffff, 0, false, 16, false},
      {"s_ff0_i32_b64 s0, s[2:3]", 0x00000000ffffffffull, 0, false, 32, false},
      {"s_ff0_i32_b64 s0, s[2:3]", ~uint64_t{0}, 0, false, 0xffffffff, false},
      {"s_ff1_i32_b32 s0, s2", 0, 0, false, 0xffffffff, false},
      {"s_ff1_i32_b32 s0, s2", 0x80, 0, false, 7, false},
      {"s_ff1_i32_b64 s0, s[2:3]", uint64_t{1} << 40, 0, false, 40, false},
      {"s_flbit_i32_b32 s0, s2", 0x00010000, 0, false, 15, false},
      {"s_flbit_i32_b32 s0, s2", 0, 0, true, 0xffffffff, true},
      {"s_flbit_i32_b32 s0, s2", 0x80000000, 0, false, 0, false},
      {"s_flbit_i32_b64 s0, s[2:3]", 1, 0, false, 63, false},
      {"s_flbit_i32_b64 s0, s[2:3]", uint64_t{1} << 40, 0, false, 23, false},
      {"s_flbit_i32_b64 s0, s[2:3]", 0, 0, false, 0xffffffff, false},
      {"s_flbit_i32 s0, s2", 0x40000000, 0, false, 1, false},
      {"s_flbit_i32 s0, s2", 0xc0000000, 0, false, 2, false},
      {"s_flbit_i32 s0, s2", 0xfffffffe, 0, false, 31, false},
      {"s_flbit_i32 s0, s2", 0xffffffff, 0, false, 0xffffffff, false},
      {"s_flbit_i32 s0, s2", 0, 0, false, 0xffffffff, false},
      {"s_flbit_i32_i64 s0, s[2:3]", 0xffffffff00000000ull, 0, false, 32, false},
      {"s_flbit_i32_i64 s0, s[2:3]", 1, 0, false, 63, false},
      {"s_flbit_i32_i64 s0, s[2:3]", ~uint64_t{0}, 0, false, 0xffffffff, false},
      {"s_sext_i32_i8 s0, s2", 0x180, 0, false, 0xffffff80, false},
      {"s_sext_i32_i8 s0, s2", 0x17f, 0, true, 0x7f, true},
      {"s_sext_i32_i16 s0, s2", 0x18000, 0, false, 0xffff8000, false},
      {"s_abs_i32 s0, s2", 0xfffffff6, 0, false, 10, true},
      {"s_abs_i32 s0, s2", 0, 0, true, 0, false},
      {"s_abs_i32 s0, s2", 0x80000000, 0, false, 0x80000000, true},
      {"s_bitreplicate_b64_b32 s[0:1], s2", 0x80000005, 0, false, 0xc000000000000033ull, false, 2},
      // s_bitset* modify their destination: the bit index is S0 modulo the width.
      {"s_bitset0_b32 s0, s2", 35, 0, false, 0xfffffff7, false, 1, 0xffffffffffffffffull},
      {"s_bitset1_b32 s0, s2", 31, 0, true, 0x80000000, true, 1, 0},
      {"s_bitset0_b64 s[0:1], s2", 40, 0, false, ~(uint64_t{1} << 40), false, 2, ~uint64_t{0}},
      {"s_bitset1_b64 s[0:1], s2", 127, 0, false, kTop | 1, false, 2, 1},
  };
  RunAluRows(kRows);
}

TEST(SopcTest, ComparesSetScc) {
  constexpr AluRow kRows[] = {
      // -1 against 1: signed it is smaller, unsigned larger.
      {"s_cmp_eq_i32 s2, s4", 0xffffffff, 1, true, kCanary, false},
      {"s_cmp_lg_i32 s2, s4", 0xffffffff, 1, false, kCanary, true},
      {"s_cmp_gt_i32 s2, s4", 0xffffffff, 1, true, kCanary, false},
      {"s_cmp_ge_i32 s2, s4", 0xffffffff, 1, true, kCanary, false},
      {"s_cmp_lt_i32 s2, s4", 0xffffffff, 1, false, kCanary, true},
      {"s_cmp_le_i32 s2, s4", 0xffffffff, 1, false, kCanary, true},
      {"s_cmp_eq_u32 s2, s4", 0xffffffff, 1, true, kCanary, false},
      {"s_cmp_lg_u32 s2, s4", 0xffffffff, 1, false, kCanary, true},
      {"s_cmp_gt_u32 s2, s4", 0xffffffff, 1, false, kCanary, true},
      {"s_cmp_ge_u32 s2, s4", 0xffffffff, 1, false, kCanary, true},
      {"s_cmp_lt_u32 s2, s4", 0xffffffff, 1, true, kCanary, false},
      {"s_cmp_le_u32 s2, s4", 0xffffffff, 1, true, kCanary, false},
      // Equal operands.
      {"s_cmp_eq_i32 s2, s4", 7, 7, false, kCanary, true},
      {"s_cmp_ge_i32 s2, s4", 7, 7, false, kCanary, true},
      {"s_cmp_gt_i32 s2, s4", 7, 7, true, kCanary, false},
      {"s_cmp_le_u32 s2, s4", 7, 7, false, kCanary, true},
      {"s_cmp_lt_u32 s2, s4", 7, 7, true, kCanary, false},
      {"s_cmp_eq_u64 s[2:3], s[4:5]", kA64, kA64, false, kCanary, true},
      {"s_cmp_eq_u64 s[2:3], s[4:5]", kA64, kA64 ^ kTop, true, kCanary, false},  // only the high halves differ
      {"s_cmp_lg_u64 s[2:3], s[4:5]", kA64, kA64 ^ kTop, false, kCanary, true},
      {"s_cmp_lg_u64 s[2:3], s[4:5]", kA64, kA64, true, kCanary, false},
      {"s_bitcmp0_b32 s2, s4", 0x10, 4, true, kCanary, false},
      {"s_bitcmp0_b32 s2, s4", 0x10, 5, false, kCanary, true},
      {"s_bitcmp0_b32 s2, s4", 0x10, 36, true, kCanary, false},  // bit 36 mod 32
      {"s_bitcmp1_b32 s2, s4", 0x10, 4, false, kCanary, true},
      {"s_bitcmp0_b64 s[2:3], s4", uint64_t{1} << 40, 40, true, kCanary, false},
      {"s_bitcmp1_b64 s[2:3], s4", uint64_t{1} << 40, 40, false, kCanary, true},
      {"s_bitcmp1_b64 s[2:3], s4", uint64_t{1} << 40, 41, true, kCanary, false},
  };
  RunAluRows(kRows);
}

// s_*_saveexec_b64 s[0:1], s[2:3] and s_*_wrexec_b64.
TEST(Sop1Test, SaveexecAndWrexecUpdateExec) {
  constexpr uint64_t kS0 = 0x00ff00ff00ff00ffull;
  constexpr uint64_t kExec = 0x0f0f0f0f0f0f0f0full;
  struct Row {
    const char* line;
    uint64_t s0;
    uint64_t exec;
    uint64_t d;  // s[0:1] afterwards
    uint64_t exec_out;
  };
  constexpr Row kRows[] = {
      {"s_and_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, kS0 & kExec},
      {"s_and_saveexec_b64 s[0:1], s[2:3]", 0, kExec, kExec, 0},
      {"s_or_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, kS0 | kExec},
      {"s_xor_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, kS0 ^ kExec},
      {"s_andn2_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, kS0 & ~kExec},
      {"s_orn2_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, kS0 | ~kExec},
      {"s_nand_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, ~(kS0 & kExec)},
      {"s_nor_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, ~(kS0 | kExec)},
      {"s_xnor_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, ~(kS0 ^ kExec)},
      {"s_andn1_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, ~kS0 & kExec},
      {"s_orn1_saveexec_b64 s[0:1], s[2:3]", kS0, kExec, kExec, ~kS0 | kExec},
      // wrexec: the destination gets the new EXEC.
      {"s_andn1_wrexec_b64 s[0:1], s[2:3]", kS0, kExec, ~kS0 & kExec, ~kS0 & kExec},
      {"s_andn2_wrexec_b64 s[0:1], s[2:3]", kS0, kExec, kS0 & ~kExec, kS0 & ~kExec},
      {"s_andn2_wrexec_b64 s[0:1], s[2:3]", kS0, kS0, 0, 0},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    h.wave().Write64(2, row.s0);
    h.wave().set_exec(row.exec);
    h.wave().scc = row.exec_out == 0;  // the opposite of what it must become
    ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {row.line}).ok());
    EXPECT_EQ(h.wave().Read64(0), row.d);
    EXPECT_EQ(h.wave().exec(), row.exec_out);
    EXPECT_EQ(h.wave().scc, row.exec_out != 0);
  }
}

TEST(Sop1Test, MovrelIndexesSgprsByM0) {
  IsaHarness h(Target::kGfx90a);
  for (uint16_t k = 10; k < 20; ++k) h.wave().s[k] = 0x100u + k;
  h.wave().s[2] = 0xabcd;
  h.wave().Write64(4, 0x1111222233334444ull);
  h.wave().s[op::kM0] = 3;
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_movrels_b32 s0, s10", "s_movreld_b32 s10, s2"}).ok());
  EXPECT_EQ(h.wave().s[0], 0x10du);    // s13
  EXPECT_EQ(h.wave().s[13], 0xabcdu);  // s10 + 3
  EXPECT_EQ(h.wave().s[10], 0x10au);
  h.wave().s[op::kM0] = 4;
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_movrels_b64 s[0:1], s[10:11]", "s_movreld_b64 s[10:11], s[4:5]"}).ok());
  EXPECT_EQ(h.wave().Read64(0), 0x0000010f0000010eull);  // s[14:15]
  EXPECT_EQ(h.wave().Read64(14), 0x1111222233334444ull);
}

TEST(Sop1Test, MovrelPastTheSgprsReadsZeroAndWritesNothing) {
  IsaHarness h(Target::kGfx90a);
  h.wave().s[0] = 0x5555;
  h.wave().s[2] = 0xabcd;
  h.wave().s[op::kM0] = 100;  // s10 + 100 is past s101
  const auto before = h.wave().s;
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_movreld_b32 s10, s2"}).ok());
  EXPECT_EQ(h.wave().s, before);
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_movrels_b32 s0, s10"}).ok());
  EXPECT_EQ(h.wave().s[0], 0u);
}

TEST(SoppTest, ConditionalBranchesFollowTheirCondition) {
  struct Row {
    const char* line;
    bool scc;
    uint64_t vcc;
    uint64_t exec;
    bool taken;
  };
  constexpr Row kRows[] = {
      {"s_cbranch_scc0 1", false, 0, 1, true},       {"s_cbranch_scc0 1", true, 0, 1, false},
      {"s_cbranch_scc1 1", true, 0, 1, true},        {"s_cbranch_scc1 1", false, 0, 1, false},
      {"s_cbranch_vccz 1", false, 0, 1, true},       {"s_cbranch_vccz 1", false, kTop, 1, false},
      {"s_cbranch_vccnz 1", false, kTop, 1, true},   {"s_cbranch_vccnz 1", false, 0, 1, false},
      {"s_cbranch_execz 1", false, 0, 0, true},      {"s_cbranch_execz 1", false, 0, kTop, false},
      {"s_cbranch_execnz 1", false, 0, kTop, true},  {"s_cbranch_execnz 1", false, 0, 0, false},
      {"s_branch 1", false, 0, 1, true},
      // The conditional-debug branches: no debugger sets STATUS.COND_DBG_*.
      {"s_cbranch_cdbgsys 1", true, ~uint64_t{0}, 1, false},
      {"s_cbranch_cdbguser 1", true, ~uint64_t{0}, 1, false},
      {"s_cbranch_cdbgsys_or_user 1", true, ~uint64_t{0}, 1, false},
      {"s_cbranch_cdbgsys_and_user 1", true, ~uint64_t{0}, 1, false},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    h.wave().scc = row.scc;
    h.wave().set_vcc(row.vcc);
    h.wave().set_exec(row.exec);
    ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {row.line, "s_mov_b32 s7, 1", "s_mov_b32 s8, 2"}).ok());
    EXPECT_EQ(h.wave().s[7], row.taken ? 0u : 1u);
    EXPECT_EQ(h.wave().s[8], 2u);
  }
}

TEST(SoppTest, BackwardBranchLoops) {
  IsaHarness h(Target::kGfx90a);
  h.wave().s[2] = 5;
  h.wave().s[3] = 7;
  // s1 += s3 while --s2 != 0; the branch goes back over the three instructions before it and itself.
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a,
                    {"s_add_u32 s1, s1, s3", "s_sub_u32 s2, s2, 1", "s_cmp_lg_u32 s2, 0", "s_cbranch_scc1 -4"})
                  .ok());
  EXPECT_EQ(h.wave().s[1], 35u);
  EXPECT_EQ(h.executed(), 5u * 4 + 1);
}

TEST(SoppTest, GetpcSwappcAndSetpcCallAndReturn) {
  IsaHarness h(Target::kGfx90a);
  // A at 0: the call; the function at A+28 returns to A+16, and the program ends at A+20.
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {
                                              "s_getpc_b64 s[0:1]",                // A+0: s[0:1] = A+4
                                              "s_add_u32 s0, s0, 24",              // A+4: A+28
                                              "s_addc_u32 s1, s1, 0",              // A+8
                                              "s_swappc_b64 s[30:31], s[0:1]",     // A+12: s[30:31] = A+16
                                              "s_mov_b32 s9, 2",                   // A+16
                                              "s_endpgm",                          // A+20
                                              "s_nop 0",                           // A+24
                                              "s_mov_b32 s8, 1",                   // A+28
                                              "s_setpc_b64 s[30:31]",              // A+32
                                          })
                  .ok());
  const uint64_t a = h.wave().pc - 24;  // s_endpgm at A+20 left the pc past itself
  EXPECT_EQ(h.wave().Read64(0), a + 28);
  EXPECT_EQ(h.wave().Read64(30), a + 16);
  EXPECT_EQ(h.wave().s[8], 1u);
  EXPECT_EQ(h.wave().s[9], 2u);
  EXPECT_EQ(h.executed(), 8u);
}

TEST(SopkTest, CallSavesTheReturnAddressAndBranches) {
  IsaHarness h(Target::kGfx90a);
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a,
                    {"s_call_b64 s[30:31], 2", "s_mov_b32 s7, 1", "s_mov_b32 s8, 1", "s_mov_b32 s9, 2"})
                  .ok());
  const uint64_t a = h.wave().pc - 20;  // four instructions and the harness's s_endpgm
  EXPECT_EQ(h.wave().Read64(30), a + 4);
  EXPECT_EQ(h.wave().s[7], 0u);
  EXPECT_EQ(h.wave().s[8], 0u);
  EXPECT_EQ(h.wave().s[9], 2u);
}

TEST(Sop1Test, RfeJumps) {
  IsaHarness h(Target::kGfx90a);
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_getpc_b64 s[0:1]", "s_add_u32 s0, s0, 12", "s_rfe_b64 s[0:1]",
                                           "s_mov_b32 s7, 1", "s_mov_b32 s8, 2"})
                  .ok());
  EXPECT_EQ(h.wave().s[7], 0u);
  EXPECT_EQ(h.wave().s[8], 2u);
}

TEST(SopkTest, GetregReadsTheWaveState) {
  IsaHarness h(Target::kGfx90a);
  h.wave().id_in_group = 5;
  h.wave().vgpr_count = 24;
  h.wave().agpr_count = 8;
  h.wave().mode = 0x2f0;
  h.wave().scc = true;
  h.wave().set_vcc(0);
  h.wave().set_exec(0);
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {
                                              "s_getreg_b32 s0, hwreg(HW_REG_MODE)",
                                              "s_getreg_b32 s1, hwreg(HW_REG_STATUS)",
                                              "s_getreg_b32 s2, hwreg(HW_REG_HW_ID)",
                                              "s_getreg_b32 s3, hwreg(HW_REG_GPR_ALLOC)",
                                              "s_getreg_b32 s4, hwreg(HW_REG_LDS_ALLOC)",
                                              "s_getreg_b32 s5, hwreg(HW_REG_IB_STS)",
                                              "s_getreg_b32 s6, hwreg(HW_REG_SH_MEM_BASES)",
                                              "s_getreg_b32 s7, hwreg(HW_REG_SH_MEM_BASES, 16, 16)",
                                              "s_getreg_b32 s8, hwreg(HW_REG_MODE, 4, 4)",
                                          })
                  .ok());
  EXPECT_EQ(h.wave().s[0], 0x2f0u);
  EXPECT_EQ(h.wave().s[1], 0x1u | 0x200u | 0x400u | 0x10000u);  // SCC, EXECZ, VCCZ, VALID
  EXPECT_EQ(h.wave().s[2], 5u);                                  // WAVE_ID
  EXPECT_EQ(h.wave().s[3], (3u << 8) | (6u << 24));              // 32 unified VGPRs = 4 granules of 8; 112 SGPRs
  EXPECT_EQ(h.wave().s[4], 256u << 12);                          // 64 KiB of LDS in 256-byte granules
  EXPECT_EQ(h.wave().s[5], 0u);
  // The harness's apertures: shared 1 << 48, private 2 << 48.
  EXPECT_EQ(h.wave().s[6], 0x00010002u);
  EXPECT_EQ(h.wave().s[7], 1u);
  EXPECT_EQ(h.wave().s[8], 0xfu);
}

TEST(SopkTest, GprAllocCountsGfx908VgprsInGranulesOfFour) {
  IsaHarness h(Target::kGfx908);
  h.wave().vgpr_count = 24;
  h.wave().agpr_count = 24;
  ASSERT_TRUE(h.Run(sop_encodings_gfx908, {"s_getreg_b32 s3, hwreg(HW_REG_GPR_ALLOC)"}).ok());
  EXPECT_EQ(h.wave().s[3], (5u << 8) | (6u << 24));
}

TEST(SopkTest, SetregWritesModeAndTrapstsFields) {
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = 0x300;
  h.wave().s[2] = 0xffffffff;
  h.wave().s[3] = 0x5;
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {
                                              "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 4, 2), 3",  // f32 denormals on
                                              "s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s2",       // only 4 bits of s2
                                              "s_setreg_b32 hwreg(HW_REG_TRAPSTS, 8, 4), s3",
                                              "s_setreg_b32 hwreg(HW_REG_HW_ID), s2",            // read-only: ignored
                                              "s_getreg_b32 s0, hwreg(HW_REG_MODE)",
                                              "s_getreg_b32 s1, hwreg(HW_REG_TRAPSTS)",
                                              "s_getreg_b32 s4, hwreg(HW_REG_HW_ID)",
                                          })
                  .ok());
  EXPECT_EQ(h.wave().mode, 0x33fu);
  EXPECT_EQ(h.wave().s[0], 0x33fu);
  EXPECT_EQ(h.wave().trapsts, 0x500u);
  EXPECT_EQ(h.wave().s[1], 0x500u);
  EXPECT_EQ(h.wave().s[4], 0u);
}

TEST(SoppTest, NoOpsRunAndChangeNothing) {
  constexpr const char* kLines[] = {
      "s_nop 7",         "s_waitcnt vmcnt(0) lgkmcnt(0)", "s_sleep 1",       "s_wakeup",     "s_setprio 2",
      "s_sendmsg 3",     "s_icache_inv",                  "s_incperflevel 1", "s_decperflevel 1",
      "s_ttracedata",    "s_setkill 1",                   "s_sethalt 0",     "s_barrier",
  };
  for (const char* line : kLines) {
    SCOPED_TRACE(line);
    IsaHarness h(Target::kGfx90a);
    h.wave().s[3] = 0x1234;
    h.wave().scc = true;
    const auto before = h.wave().s;
    ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {line}).ok());
    EXPECT_EQ(h.wave().s, before);
    EXPECT_TRUE(h.wave().scc);
    EXPECT_EQ(h.executed(), 2u);
  }
}

TEST(SoppTest, EndpgmSavedEndsTheWave) {
  IsaHarness h(Target::kGfx90a);
  ASSERT_TRUE(h.Run(sop_encodings_gfx90a, {"s_endpgm_saved", "s_mov_b32 s7, 1"}).ok());
  EXPECT_EQ(h.wave().s[7], 0u);
}

// MODE.VSKIP: while it is set, vector instructions (VALU, DS, GLOBAL) are not issued, scalar ones are; s_setvskip
// sets it from a bit of an SGPR, s_setreg writes it directly, and s_getreg reads it back.
TEST(SopTest, VskipSkipsVectorInstructionsOnly) {
  for (const bool by_setreg : {true, false}) {
    SCOPED_TRACE(by_setreg ? "s_setreg" : "s_setvskip");
    IsaHarness h(Target::kGfx90a);
    Wave& w = h.wave();
    w.vgpr(1)[0] = 0x11;
    w.vgpr(3)[0] = 0;  // LDS offset 0
    // An unmapped address: the store would be a VM fault if it were issued.
    for (int l = 0; l < kWaveSize; ++l) {
      w.vgpr(4)[l] = 0x1000;
      w.vgpr(5)[l] = 0;
    }
    w.s[2] = 0x4;  // bit 2 set
    w.s[4] = 2;
    h.lds()[0] = 0x77;
    w.set_vcc(0);
    const absl::Status status =
        h.Run(sop_encodings_gfx90a, {by_setreg ? "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 1" : "s_setvskip s2, s4",
                                     "s_getreg_b32 s9, hwreg(HW_REG_MODE, 28, 1)", "v_mov_b32_e32 v1, 5",
                                     "v_cmp_eq_u32_e32 vcc, v1, v1", "ds_write_b32 v3, v1",
                                     "global_store_dword v[4:5], v1, off", "s_mov_b32 s8, 1"});
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(w.s[9], 1u) << "s_getreg reads VSKIP back";
    EXPECT_EQ(w.s[8], 1u) << "scalar instructions still run";
    EXPECT_EQ(w.vgpr(1)[0], 0x11u) << "v_mov skipped";
    EXPECT_EQ(w.vcc(), 0u) << "v_cmp skipped";
    EXPECT_EQ(h.lds()[0], 0x77) << "ds_write skipped";
    // Cleared again, vector instructions run.
    w.s[2] = 0;
    const absl::Status again = h.Run(
        sop_encodings_gfx90a, {by_setreg ? "s_setreg_imm32_b32 hwreg(HW_REG_MODE, 28, 1), 0" : "s_setvskip s2, s4",
                               "s_getreg_b32 s9, hwreg(HW_REG_MODE, 28, 1)", "v_mov_b32_e32 v1, 5",
                               "ds_write_b32 v3, v1"});
    ASSERT_TRUE(again.ok()) << again;
    EXPECT_EQ(w.s[9], 0u);
    EXPECT_EQ(w.vgpr(1)[0], 5u);
    EXPECT_EQ(h.lds()[0], 5);
    // And a vector instruction that faults does fault once VSKIP is off.
    EXPECT_EQ(h.Run(sop_encodings_gfx90a, {"global_store_dword v[4:5], v1, off"}).code(), absl::StatusCode::kAborted);
  }
}

// Each stops the wave with an illegal-instruction error naming it.
TEST(SopTest, UnmodelledInstructionsAreIllegal) {
  struct Row {
    const char* line;
    const char* message;
  };
  constexpr Row kRows[] = {
      {"s_sethalt 1", "s_sethalt"},
      {"s_sendmsghalt 3", "s_sendmsghalt"},
      {"s_endpgm_ordered_ps_done", "s_endpgm_ordered_ps_done"},
      {"s_cbranch_g_fork s[2:3], s[4:5]", "s_cbranch_g_fork"},
      {"s_cbranch_i_fork s[2:3], 4", "s_cbranch_i_fork"},
      {"s_cbranch_join s2", "s_cbranch_join"},
      {"s_rfe_restore_b64 s[2:3], s4", "s_rfe_restore_b64"},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    const absl::Status status = h.Run(sop_encodings_gfx90a, {row.line, "s_mov_b32 s7, 1"});
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
    EXPECT_NE(status.message().find(row.message), std::string::npos) << status;
    EXPECT_EQ(h.wave().s[7], 0u);
  }
}

// s_trap is a trap, not an illegal instruction: llvm.trap's id 2 (and any id but 3) halts the wave where it is,
// naming the id (the immediate's low 8 bits); llvm.debugtrap's id 3 falls through, as without a debugger.
TEST(SopTest, TrapHaltsTheWaveExceptDebugTrap) {
  struct Row {
    const char* line;
    const char* message;
  };
  constexpr Row kHalting[] = {{"s_trap 2", "s_trap 2"}, {"s_trap 1", "s_trap 1"}, {"s_trap 0x107", "s_trap 7"}};
  for (const Row& row : kHalting) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    const absl::Status status = h.Run(sop_encodings_gfx90a, {row.line, "s_mov_b32 s7, 1"});
    EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
    EXPECT_EQ(status.message(), std::string(row.message));
    EXPECT_EQ(h.wave().s[7], 0u) << "the wave ran past its trap";
  }
  IsaHarness h(Target::kGfx90a);
  const absl::Status status = h.Run(sop_encodings_gfx90a, {"s_trap 3", "s_mov_b32 s7, 1"});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(h.wave().s[7], 1u);
}

// The tests here and in smem_test.cc run the gfx90a encodings; gfx908's and gfx942's are the same bytes.
void ExpectSameEncodings(std::span<const hipmem_testing::AsmEncoding> gfx908,
                         std::span<const hipmem_testing::AsmEncoding> gfx90a,
                         std::span<const hipmem_testing::AsmEncoding> gfx942) {
  ASSERT_EQ(gfx908.size(), gfx90a.size());
  ASSERT_EQ(gfx942.size(), gfx90a.size());
  for (size_t k = 0; k < gfx90a.size(); ++k) {
    SCOPED_TRACE(gfx90a[k].text);
    EXPECT_EQ(gfx908[k].bytes, gfx90a[k].bytes);
    EXPECT_EQ(gfx942[k].bytes, gfx90a[k].bytes);
  }
}

TEST(SopTest, ScalarEncodingsAreTheSameOnEveryGfx9Target) {
  ExpectSameEncodings(sop_encodings_gfx908, sop_encodings_gfx90a, sop_encodings_gfx942);
  ExpectSameEncodings(hipmem_testing::smem_encodings_gfx908, hipmem_testing::smem_encodings_gfx90a,
                      hipmem_testing::smem_encodings_gfx942);
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
