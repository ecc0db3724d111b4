// VALU floating point (f32, f64, f16, conversions, compares), each instruction encoded by llvm-mc-19 from
// testdata/valu_float.s, run on one wave with lane 63 inactive; expected values come from host arithmetic or by hand.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/isa_test_util.h"
#include "testing/kfd_sim/engines/gfx9/valu_float_encodings_gfx908.h"
#include "testing/kfd_sim/engines/gfx9/valu_float_encodings_gfx90a.h"
#include "testing/kfd_sim/engines/gfx9/valu_float_encodings_gfx942.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

using hipmem_testing::valu_float_encodings_gfx908;
using hipmem_testing::valu_float_encodings_gfx90a;
using hipmem_testing::valu_float_encodings_gfx942;

// MODE as clang's kernels start: IEEE and DX10 clamp on, denormals kept, round to nearest even.
constexpr uint32_t kMode = 0x3f0;
constexpr uint32_t kFlush = 0x300;  // all denormals flushed
constexpr uint64_t kExec = ~uint64_t{0} >> 1;  // lane 63 inactive
constexpr uint32_t kUntouched = 0xdeadbeef;

uint32_t F(float v) { return std::bit_cast<uint32_t>(v); }
float BitsF32(uint32_t v) { return std::bit_cast<float>(v); }
uint64_t D(double v) { return std::bit_cast<uint64_t>(v); }
const float kInf = std::numeric_limits<float>::infinity();
const float kNan = std::numeric_limits<float>::quiet_NaN();
const double kInfD = std::numeric_limits<double>::infinity();
constexpr uint32_t kSnan = 0x7f800001;
constexpr uint32_t kDenorm = 0x00000001;  // the smallest f32 denormal

// One 32-bit-result instruction: v1, v2, v3 (every lane) hold a, b, c; v0 gets the result.
struct Row32 {
  const char* line;
  uint32_t a, b, c;
  uint32_t expect;
  uint32_t mode = kMode;
};

void Check32(Target target, std::span<const hipmem_testing::AsmEncoding> table, const Row32& row) {
  SCOPED_TRACE(row.line);
  IsaHarness h(target);
  h.wave().mode = row.mode;
  h.wave().set_exec(kExec);
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(0)[l] = kUntouched;
    h.wave().vgpr(1)[l] = row.a;
    h.wave().vgpr(2)[l] = row.b;
    h.wave().vgpr(3)[l] = row.c;
  }
  const absl::Status status = h.Run(table, {row.line});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(h.wave().vgpr(0)[0], row.expect) << std::hex << "got 0x" << h.wave().vgpr(0)[0] << " want 0x"
                                             << row.expect;
  EXPECT_EQ(h.wave().vgpr(0)[62], row.expect);
  EXPECT_EQ(h.wave().vgpr(0)[63], kUntouched) << "inactive lane written";
}

TEST(ValuFloatTest, F32Arithmetic) {
  const Row32 rows[] = {
      {"v_add_f32_e32 v0, v1, v2", F(1.5f), F(2.25f), 0, F(3.75f)},
      {"v_add_f32_e32 v0, v1, v2", F(kInf), F(-kInf), 0, F(kNan)},
      {"v_add_f32_e32 v0, v1, v2", F(-0.0f), F(-0.0f), 0, F(-0.0f)},
      {"v_add_f32_e32 v0, 0.5, v2", 0, F(2.0f), 0, F(2.5f)},                  // inline constant
      {"v_add_f32_e32 v0, 0x40400000, v2", 0, F(1.0f), 0, F(4.0f)},           // a literal (3.0)
      {"v_add_f32_e64 v0, -v1, |v2|", F(1.0f), F(-4.0f), 0, F(3.0f)},
      {"v_add_f32_e64 v0, v1, v2 clamp", F(0.75f), F(0.5f), 0, F(1.0f)},
      {"v_add_f32_e64 v0, v1, v2 clamp", F(-0.75f), F(0.5f), 0, F(0.0f)},
      {"v_add_f32_e64 v0, v1, v2 clamp", kSnan, F(0.5f), 0, F(0.0f)},          // DX10 clamp: NaN to 0
      {"v_add_f32_e64 v0, v1, v2 clamp", F(kNan), F(0.5f), 0, F(kNan), 0x2f0},  // no DX10 clamp: NaN passes
      {"v_add_f32_e64 v0, v1, v2 mul:2", F(1.0f), F(2.0f), 0, F(6.0f)},
      {"v_add_f32_e64 v0, v1, v2 mul:4", F(1.0f), F(2.0f), 0, F(12.0f)},
      {"v_add_f32_e64 v0, v1, v2 div:2", F(1.0f), F(2.0f), 0, F(1.5f)},
      // Denormals: kept under the kernel mode, flushed (inputs and output) when MODE says so.
      {"v_add_f32_e32 v0, v1, v2", kDenorm, kDenorm, 0, 2},
      {"v_add_f32_e32 v0, v1, v2", kDenorm, kDenorm, 0, 0, kFlush},
      {"v_mul_f32_e32 v0, v1, v2", F(0x1p-100f), F(0x1p-30f), 0, F(0x1p-130f)},
      {"v_mul_f32_e32 v0, v1, v2", F(0x1p-100f), F(-0x1p-30f), 0, F(-0.0f), kFlush},
      // Rounding modes: 1 + 2^-30 rounds to 1 by default, up to the next float toward +inf.
      {"v_add_f32_e32 v0, v1, v2", F(1.0f), F(0x1p-30f), 0, F(1.0f)},
      {"v_add_f32_e32 v0, v1, v2", F(1.0f), F(0x1p-30f), 0, F(1.0f) + 1, kMode | 1},
      {"v_add_f32_e32 v0, v1, v2", F(-1.0f), F(-0x1p-30f), 0, F(-1.0f) + 1, kMode | 2},
      {"v_sub_f32_e32 v0, v1, v2", F(1.0f), F(0x1p-30f), 0, F(1.0f) - 1, kMode | 3},
      {"v_sub_f32_e32 v0, v1, v2", F(5.0f), F(7.0f), 0, F(-2.0f)},
      {"v_subrev_f32_e32 v0, v1, v2", F(5.0f), F(7.0f), 0, F(2.0f)},
      {"v_mul_f32_e32 v0, v1, v2", F(3.0f), F(-0.5f), 0, F(-1.5f)},
      {"v_mul_legacy_f32_e64 v0, v1, v2", F(0.0f), F(kInf), 0, F(0.0f)},
      {"v_mul_legacy_f32_e64 v0, v1, v2", F(kNan), F(0.0f), 0, F(0.0f)},
      {"v_mul_legacy_f32_e64 v0, v1, v2", F(3.0f), F(2.0f), 0, F(6.0f)},
      {"v_fma_f32 v0, v1, v2, v3", F(1.0f + 0x1p-23f), F(1.0f - 0x1p-23f), F(-1.0f), F(-0x1p-46f)},  // fused
      {"v_fma_f32 v0, v1, v2, -v3", F(2.0f), F(3.0f), F(1.0f), F(5.0f)},
  };
  for (const Row32& row : rows) Check32(Target::kGfx90a, valu_float_encodings_gfx90a, row);
}

TEST(ValuFloatTest, F32MinMaxFollowIeeeMode) {
  const Row32 rows[] = {
      {"v_min_f32_e32 v0, v1, v2", F(1.0f), F(-2.0f), 0, F(-2.0f)},
      {"v_max_f32_e32 v0, v1, v2", F(1.0f), F(-2.0f), 0, F(1.0f)},
      {"v_min_f32_e32 v0, v1, v2", F(0.0f), F(-0.0f), 0, F(-0.0f)},
      {"v_max_f32_e32 v0, v1, v2", F(-0.0f), F(0.0f), 0, F(0.0f)},
      {"v_min_f32_e32 v0, v1, v2", F(kNan), F(3.0f), 0, F(3.0f)},           // quiet NaN: the other operand
      {"v_max_f32_e32 v0, v1, v2", F(3.0f), kSnan, 0, kSnan | 0x00400000},  // IEEE: signaling NaN quieted
      {"v_max_f32_e32 v0, v1, v2", F(3.0f), kSnan, 0, F(3.0f), 0x1f0},       // non-IEEE: ignored
      {"v_min3_f32 v0, v1, v2, v3", F(4.0f), F(-1.0f), F(2.0f), F(-1.0f)},
      {"v_max3_f32 v0, v1, v2, v3", F(4.0f), F(-1.0f), F(2.0f), F(4.0f)},
      {"v_med3_f32 v0, v1, v2, v3", F(4.0f), F(-1.0f), F(2.0f), F(2.0f)},
      {"v_med3_f32 v0, v1, v2, v3", F(-1.0f), F(2.0f), F(4.0f), F(2.0f)},
      {"v_med3_f32 v0, v1, v2, v3", F(kNan), F(2.0f), F(4.0f), F(2.0f)},  // NaN: the minimum of the rest
  };
  for (const Row32& row : rows) Check32(Target::kGfx90a, valu_float_encodings_gfx90a, row);
}

TEST(ValuFloatTest, F32RoundingAndParts) {
  int e;
  const Row32 rows[] = {
      {"v_fract_f32_e32 v0, v1", F(-1.25f), 0, 0, F(0.75f)},
      {"v_fract_f32_e32 v0, v1", F(-0x1p-30f), 0, 0, F(0x1.fffffep-1f)},  // clamped below 1
      {"v_fract_f32_e32 v0, v1", F(kInf), 0, 0, F(kNan)},
      {"v_trunc_f32_e32 v0, v1", F(-2.7f), 0, 0, F(-2.0f)},
      {"v_ceil_f32_e32 v0, v1", F(2.1f), 0, 0, F(3.0f)},
      {"v_ceil_f32_e32 v0, v1", F(-0.5f), 0, 0, F(-0.0f)},
      {"v_floor_f32_e32 v0, v1", F(-2.1f), 0, 0, F(-3.0f)},
      {"v_rndne_f32_e32 v0, v1", F(2.5f), 0, 0, F(2.0f)},
      {"v_rndne_f32_e32 v0, v1", F(3.5f), 0, 0, F(4.0f)},
      {"v_rndne_f32_e32 v0, v1", F(-0.5f), 0, 0, F(-0.0f)},
      {"v_frexp_mant_f32_e32 v0, v1", F(-48.0f), 0, 0, F(std::frexp(-48.0f, &e))},
      // Infinity and NaN come back unchanged (the ISA's "if S0 is INF or NAN then D = S0"): a division lowered to
      // frexp_mant/rcp/ldexp then gives 0 for an infinite denominator, not NaN (ocml's tgammaf below -31).
      {"v_frexp_mant_f32_e32 v0, v1", F(kInf), 0, 0, F(kInf)},
      {"v_frexp_mant_f32_e32 v0, v1", F(-kInf), 0, 0, F(-kInf)},
      {"v_frexp_exp_i32_f32_e32 v0, v1", F(48.0f), 0, 0, 6},
      {"v_frexp_exp_i32_f32_e32 v0, v1", F(kNan), 0, 0, 0},
      {"v_frexp_exp_i32_f32_e32 v0, v1", kDenorm, 0, 0, static_cast<uint32_t>(-148)},
      {"v_ldexp_f32 v0, v1, v2", F(1.5f), 4, 0, F(24.0f)},
      {"v_ldexp_f32 v0, v1, v2", F(1.5f), static_cast<uint32_t>(-200), 0, 0},
      {"v_ldexp_f32 v0, v1, v2", F(1.0f), 0x7fffffff, 0, F(kInf)},
  };
  for (const Row32& row : rows) Check32(Target::kGfx90a, valu_float_encodings_gfx90a, row);
}

// Transcendentals: the ISA promises about 1 ulp; the engine gives the correctly rounded value, checked here
// against the host's double computation rounded once.
TEST(ValuFloatTest, F32Transcendentals) {
  const double kTwoPi = 6.283185307179586;
  const Row32 rows[] = {
      {"v_exp_f32_e32 v0, v1", F(3.0f), 0, 0, F(8.0f)},
      {"v_exp_f32_e32 v0, v1", F(0.3f), 0, 0, F(static_cast<float>(std::exp2(0.3f * 1.0)))},
      {"v_exp_f32_e32 v0, v1", F(-kInf), 0, 0, F(0.0f)},
      {"v_log_f32_e32 v0, v1", F(1024.0f), 0, 0, F(10.0f)},
      {"v_log_f32_e32 v0, v1", F(0.0f), 0, 0, F(-kInf)},
      {"v_log_f32_e32 v0, v1", F(-1.0f), 0, 0, F(kNan)},
      {"v_rcp_f32_e32 v0, v1", F(4.0f), 0, 0, F(0.25f)},
      {"v_rcp_f32_e32 v0, v1", F(-0.0f), 0, 0, F(-kInf)},
      {"v_rcp_f32_e32 v0, v1", kDenorm, 0, 0, F(kInf), kFlush},  // a flushed denormal is a zero
      {"v_rcp_iflag_f32_e32 v0, v1", F(3.0f), 0, 0, F(1.0f / 3.0f)},
      {"v_rsq_f32_e32 v0, v1", F(16.0f), 0, 0, F(0.25f)},
      {"v_rsq_f32_e32 v0, v1", F(-0.0f), 0, 0, F(-kInf)},
      {"v_sqrt_f32_e32 v0, v1", F(2.0f), 0, 0, F(std::sqrt(2.0f))},
      {"v_sqrt_f32_e32 v0, v1", F(-4.0f), 0, 0, F(kNan)},
      {"v_sin_f32_e32 v0, v1", F(0.25f), 0, 0, F(1.0f)},  // input in revolutions
      {"v_sin_f32_e32 v0, v1", F(0.1f), 0, 0, F(static_cast<float>(std::sin(kTwoPi * 0.1f)))},
      {"v_sin_f32_e32 v0, v1", F(kInf), 0, 0, F(kNan)},
      {"v_cos_f32_e32 v0, v1", F(0.5f), 0, 0, F(-1.0f)},
      {"v_cos_f32_e32 v0, v1", F(2.0f), 0, 0, F(1.0f)},
  };
  for (const Row32& row : rows) Check32(Target::kGfx90a, valu_float_encodings_gfx90a, row);
}

TEST(ValuFloatTest, F32DivisionHelpers) {
  const Row32 rows[] = {
      // v_div_fixup: q in src0, denominator src1, numerator src2.
      {"v_div_fixup_f32 v0, v1, v2, v3", F(2.0f), F(-3.0f), F(6.0f), F(-2.0f)},
      {"v_div_fixup_f32 v0, v1, v2, v3", F(1.0f), F(0.0f), F(0.0f), 0xffc00000},  // 0/0
      {"v_div_fixup_f32 v0, v1, v2, v3", F(1.0f), F(0.0f), F(-5.0f), F(-kInf)},
      {"v_div_fixup_f32 v0, v1, v2, v3", F(1.0f), F(kInf), F(5.0f), F(0.0f)},
      {"v_div_fixup_f32 v0, v1, v2, v3", F(1.0f), F(2.0f), F(kNan), F(kNan)},
      // v_div_fmas without VCC is an fma (VCC is 0 in these rows).
      {"v_div_fmas_f32 v0, v1, v2, v3", F(2.0f), F(3.0f), F(1.0f), F(7.0f)},
      // v_div_scale: an ordinary quotient is not scaled.
      {"v_div_scale_f32 v0, vcc, v1, v2, v3", F(3.0f), F(3.0f), F(6.0f), F(3.0f)},
      // a tiny numerator is scaled up by 2^64.
      {"v_div_scale_f32 v0, vcc, v1, v2, v3", F(0x1p-140f), F(3.0f), F(0x1p-140f), F(0x1p-76f)},
  };
  for (const Row32& row : rows) Check32(Target::kGfx90a, valu_float_encodings_gfx90a, row);
}

TEST(ValuFloatTest, DivScaleFlagsAndFmasScalesBack) {
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = kMode;
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(1)[l] = F(l < 32 ? 0x1p-130f : 6.0f);  // numerator: lanes 0-31 give a denormal quotient
    h.wave().vgpr(2)[l] = F(l < 32 ? 4.0f : 3.0f);       // denominator
  }
  h.wave().set_vcc(~uint64_t{0});
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_div_scale_f32 v0, vcc, v1, v2, v1"}).ok());
  EXPECT_EQ(h.wave().vcc(), 0x00000000ffffffffull);
  EXPECT_EQ(h.wave().vgpr(0)[0], F(0x1p-66f));  // the numerator scaled by 2^64
  EXPECT_EQ(h.wave().vgpr(0)[40], F(6.0f));
  // v_div_fmas: flagged lanes with a small quotient are scaled back down by 2^64.
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(1)[l] = F(1.0f);
    h.wave().vgpr(2)[l] = F(0x1p-68f);
    h.wave().vgpr(3)[l] = F(0.0f);
  }
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_div_fmas_f32 v0, v1, v2, v3"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[0], F(0x1p-132f));
  EXPECT_EQ(h.wave().vgpr(0)[40], F(0x1p-68f));
}

// A quotient below the denormals (2^-133 / 2^72 underflows to 0) is the small-quotient case too: only the numerator
// is scaled up (scaling both, as for a merely tiny numerator, overflowed the large denominator: the division macro
// returned infinity). And v_div_fmas scales before it rounds: 2^-85 * (2.5 + 2^-30) scaled down to the denormals
// is 3 denormal units, where rounding the fma first (to 2.5 units, a tie) and then scaling gave 2.
TEST(ValuFloatTest, DivScaleUnderflowingQuotientAndFmasRoundsOnce) {
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = kMode;
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(1)[l] = F(0x1.b2d9p-133f);  // numerator (a denormal)
    h.wave().vgpr(2)[l] = F(0x1.abea8p+72f);  // denominator
  }
  h.wave().set_vcc(0);
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_div_scale_f32 v0, vcc, v1, v2, v1"}).ok());
  EXPECT_EQ(h.wave().vcc(), ~uint64_t{0});
  EXPECT_EQ(h.wave().vgpr(0)[0], F(0x1.b2d9p-69f));
  h.wave().set_vcc(0);
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_div_scale_f32 v0, vcc, v1, v2, v3"}).ok());
  EXPECT_EQ(h.wave().vcc(), 0u);  // v3 is not a numerator here: an ordinary 0 / 2^72
  for (int l = 0; l < kWaveSize; ++l) h.wave().vgpr(3)[l] = F(0x1.b2d9p-133f);
  for (int l = 0; l < kWaveSize; ++l) h.wave().vgpr(1)[l] = F(0x1.abea8p+72f);
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_div_scale_f32 v0, vcc, v1, v2, v3"}).ok());
  EXPECT_EQ(h.wave().vcc(), ~uint64_t{0});
  EXPECT_EQ(h.wave().vgpr(0)[0], F(0x1.abea8p+72f));  // the denominator is left alone
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(1)[l] = F(0x1.4p-84f);
    h.wave().vgpr(2)[l] = F(1.0f);
    h.wave().vgpr(3)[l] = F(0x1p-115f);
  }
  h.wave().set_vcc(~uint64_t{0});
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_div_fmas_f32 v0, v1, v2, v3"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[0], F(0x1.8p-148f));
}

TEST(ValuFloatTest, AccumulatorsReadTheDestination) {
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = kMode;
  h.wave().set_exec(kExec);
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(0)[l] = F(1.0f);
    h.wave().vgpr(1)[l] = F(2.0f);
    h.wave().vgpr(2)[l] = F(static_cast<float>(l));
  }
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_fmac_f32_e32 v0, v1, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[5], F(11.0f));
  EXPECT_EQ(h.wave().vgpr(0)[63], F(1.0f));
  // v_mac_f32 (gfx908/gfx90a): unfused, flushing denormals whatever MODE says.
  for (int l = 0; l < kWaveSize; ++l) h.wave().vgpr(0)[l] = kDenorm;
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_mac_f32_e32 v0, v1, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[3], F(6.0f));
  // v_fmac_f64 (VOP2 0x04 on gfx90a+).
  for (int l = 0; l < kWaveSize; ++l) {
    const uint64_t a = D(1.5), b = D(-2.0), c = D(10.0);
    h.wave().vgpr(2)[l] = static_cast<uint32_t>(a);
    h.wave().vgpr(3)[l] = static_cast<uint32_t>(a >> 32);
    h.wave().vgpr(4)[l] = static_cast<uint32_t>(b);
    h.wave().vgpr(5)[l] = static_cast<uint32_t>(b >> 32);
    h.wave().vgpr(0)[l] = static_cast<uint32_t>(c);
    h.wave().vgpr(1)[l] = static_cast<uint32_t>(c >> 32);
  }
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_fmac_f64_e32 v[0:1], v[2:3], v[4:5]"}).ok());
  EXPECT_EQ(uint64_t{h.wave().vgpr(0)[7]} | (uint64_t{h.wave().vgpr(1)[7]} << 32), D(7.0));
}

// gfx908's VOP2 opcode 0x04 is v_mul_legacy_f32, and it still has v_mad_f32, v_madmk/madak.
TEST(ValuFloatTest, Gfx908LegacyMultiplyAndMad) {
  const Row32 rows[] = {
      {"v_mul_legacy_f32_e32 v0, v1, v2", F(0.0f), F(kNan), 0, F(0.0f)},
      {"v_mul_legacy_f32_e32 v0, v1, v2", F(1.5f), F(2.0f), 0, F(3.0f)},
      {"v_mad_f32 v0, v1, v2, v3", F(1.5f), F(2.0f), F(0.5f), F(3.5f)},
      {"v_mad_f32 v0, v1, v2, v3", F(1.0f + 0x1p-23f), F(1.0f - 0x1p-23f), F(-1.0f), F(0.0f)},  // unfused
      {"v_mad_legacy_f32 v0, v1, v2, v3", F(0.0f), F(kInf), F(2.0f), F(2.0f)},
      {"v_madmk_f32 v0, v1, 0x41000000, v2", F(2.0f), F(1.0f), 0, F(17.0f)},
      {"v_madak_f32 v0, v1, v2, 0x41000000", F(2.0f), F(3.0f), 0, F(14.0f)},
  };
  for (const Row32& row : rows) Check32(Target::kGfx908, valu_float_encodings_gfx908, row);
}

TEST(ValuFloatTest, SdwaAndDppForms) {
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = kMode;
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(1)[l] = F(static_cast<float>(l));
    h.wave().vgpr(2)[l] = F(100.0f);
    h.wave().vgpr(4)[l] = 0x3c004000;  // f16 2.0 low, 1.0 high
  }
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a,
                    {"v_add_f32_dpp v0, v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf",
                     "v_cvt_f32_f16_sdwa v3, v4 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1"})
                  .ok());
  EXPECT_EQ(h.wave().vgpr(0)[0], F(101.0f));  // lane 0 reads lane 1
  EXPECT_EQ(h.wave().vgpr(0)[1], F(100.0f));
  EXPECT_EQ(h.wave().vgpr(3)[9], F(1.0f));
}

TEST(ValuFloatTest, ExecZeroWritesNothing) {
  IsaHarness h(Target::kGfx90a);
  h.wave().set_exec(0);
  h.wave().vgpr(0)[0] = kUntouched;
  h.wave().set_vcc(0x1234);
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_add_f32_e32 v0, v1, v2", "v_cmp_eq_f32_e32 vcc, v1, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[0], kUntouched);
  EXPECT_EQ(h.wave().vcc(), 0u);  // a compare's inactive lanes are 0
}

// --- f64 ---
struct Row64 {
  const char* line;
  uint64_t a, b, c;
  uint64_t expect;
  uint32_t mode = kMode;
};

void Check64(const Row64& row) {
  SCOPED_TRACE(row.line);
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = row.mode;
  h.wave().set_exec(kExec);
  const uint64_t in[3] = {row.a, row.b, row.c};
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(0)[l] = kUntouched;
    h.wave().vgpr(1)[l] = kUntouched;
    for (int k = 0; k < 3; ++k) {
      h.wave().vgpr(2 + 2 * k)[l] = static_cast<uint32_t>(in[k]);
      h.wave().vgpr(3 + 2 * k)[l] = static_cast<uint32_t>(in[k] >> 32);
    }
  }
  const absl::Status status = h.Run(valu_float_encodings_gfx90a, {row.line});
  ASSERT_TRUE(status.ok()) << status;
  const uint64_t got = uint64_t{h.wave().vgpr(0)[0]} | (uint64_t{h.wave().vgpr(1)[0]} << 32);
  EXPECT_EQ(got, row.expect) << std::hex << "got 0x" << got << " want 0x" << row.expect;
  EXPECT_EQ(h.wave().vgpr(0)[63], kUntouched);
  EXPECT_EQ(h.wave().vgpr(1)[63], kUntouched);
}

TEST(ValuFloatTest, F64Arithmetic) {
  int e;
  const Row64 rows[] = {
      {"v_add_f64 v[0:1], v[2:3], v[4:5]", D(0.1), D(0.2), 0, D(0.1 + 0.2)},
      {"v_add_f64 v[0:1], v[2:3], -v[4:5]", D(1.0), D(0x1p-60), 0, D(1.0 - 0x1p-60)},
      {"v_add_f64 v[0:1], v[2:3], v[4:5]", D(1.0), D(0x1p-60), 0, D(1.0) + 1, kMode | 0x4},  // f64 round up
      {"v_add_f64 v[0:1], v[2:3], v[4:5]", 1, 1, 0, 0, kFlush},                            // denormals flushed
      {"v_mul_f64 v[0:1], v[2:3], v[4:5]", D(3.0), D(-1.25), 0, D(-3.75)},
      {"v_mul_f64 v[0:1], v[2:3], v[4:5] clamp", D(3.0), D(1.25), 0, D(1.0)},
      {"v_min_f64 v[0:1], v[2:3], v[4:5]", D(3.0), D(-1.25), 0, D(-1.25)},
      {"v_max_f64 v[0:1], v[2:3], v[4:5]", D(3.0), D(std::nan("")), 0, D(3.0)},
      {"v_fma_f64 v[0:1], v[2:3], v[4:5], v[6:7]", D(1.0 + 0x1p-52), D(1.0 - 0x1p-52), D(-1.0), D(-0x1p-104)},
      {"v_ldexp_f64 v[0:1], v[2:3], v4", D(3.0), 10, 0, D(3072.0)},
      // v_trig_preop_f64: 53-bit segments of 2/pi's fraction (0.a2f9836e4e441529fc2757d1...), computed from pi with
      // exact integer arithmetic (Machin's formula): bits 1-53; bits 54-106 (segment 1); for 2^100 (biased exponent
      // 1123) shifted 46 further; for 2^1000 (exponent >= 1968) shifted 946 and scaled up by 2^128.
      {"v_trig_preop_f64 v[0:1], v[2:3], v4", D(1.0), 0, 0, D(0x1.45f306dc9c882p-1)},
      {"v_trig_preop_f64 v[0:1], v[2:3], v4", D(-3.0), 1, 0, D(0x1.4a7f09d5f47d4p-54)},
      {"v_trig_preop_f64 v[0:1], v[2:3], v4", D(0x1p100), 0, 0, D(0x1.529fc2757d1ep-52)},
      {"v_trig_preop_f64 v[0:1], v[2:3], v4", D(0x1p1000), 0, 0, D(0x1.516ba93dd63f5p-819)},
      {"v_trig_preop_f64 v[0:1], v[2:3], v4", D(1.0), 31, 0, 0},  // past the 1201 bits
      {"v_fract_f64_e32 v[0:1], v[2:3]", D(-1.25), 0, 0, D(0.75)},
      {"v_trunc_f64_e32 v[0:1], v[2:3]", D(-2.5), 0, 0, D(-2.0)},
      {"v_ceil_f64_e32 v[0:1], v[2:3]", D(2.5), 0, 0, D(3.0)},
      {"v_rndne_f64_e32 v[0:1], v[2:3]", D(2.5), 0, 0, D(2.0)},
      {"v_floor_f64_e32 v[0:1], v[2:3]", D(-2.5), 0, 0, D(-3.0)},
      {"v_rcp_f64_e32 v[0:1], v[2:3]", D(8.0), 0, 0, D(0.125)},
      {"v_rsq_f64_e32 v[0:1], v[2:3]", D(0.25), 0, 0, D(2.0)},
      {"v_sqrt_f64_e32 v[0:1], v[2:3]", D(2.0), 0, 0, D(std::sqrt(2.0))},
      {"v_frexp_mant_f64_e32 v[0:1], v[2:3]", D(-48.0), 0, 0, D(std::frexp(-48.0, &e))},
      {"v_frexp_mant_f64_e32 v[0:1], v[2:3]", D(-kInfD), 0, 0, D(-kInfD)},  // infinity unchanged
      {"v_div_fixup_f64 v[0:1], v[2:3], v[4:5], v[6:7]", D(2.0), D(-3.0), D(6.0), D(-2.0)},
      {"v_div_fixup_f64 v[0:1], v[2:3], v[4:5], v[6:7]", D(2.0), D(0.0), D(0.0), 0xfff8000000000000ull},
      {"v_div_fmas_f64 v[0:1], v[2:3], v[4:5], v[6:7]", D(2.0), D(3.0), D(1.0), D(7.0)},
  };
  for (const Row64& row : rows) Check64(row);
  // Conversions with an f64 source and a 32-bit result.
  const Row64 narrow[] = {
      {"v_frexp_exp_i32_f64_e32 v0, v[2:3]", D(48.0), 0, 0, 6},
      {"v_cvt_i32_f64_e32 v0, v[2:3]", D(-3.9), 0, 0, static_cast<uint32_t>(-3)},
      {"v_cvt_i32_f64_e32 v0, v[2:3]", D(1e20), 0, 0, 0x7fffffff},
      {"v_cvt_i32_f64_e32 v0, v[2:3]", D(std::nan("")), 0, 0, 0},
      {"v_cvt_u32_f64_e32 v0, v[2:3]", D(-3.9), 0, 0, 0},
      {"v_cvt_u32_f64_e32 v0, v[2:3]", D(4e9), 0, 0, 4000000000u},
      {"v_cvt_f32_f64_e32 v0, v[2:3]", D(0.1), 0, 0, F(0.1f)},
      {"v_cvt_f32_f64_e32 v0, v[2:3]", D(1e300), 0, 0, F(kInf)},
  };
  for (const Row64& row : narrow) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    h.wave().mode = kMode;
    for (int l = 0; l < kWaveSize; ++l) {
      h.wave().vgpr(2)[l] = static_cast<uint32_t>(row.a);
      h.wave().vgpr(3)[l] = static_cast<uint32_t>(row.a >> 32);
    }
    ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {row.line}).ok());
    EXPECT_EQ(h.wave().vgpr(0)[0], static_cast<uint32_t>(row.expect));
  }
}

TEST(ValuFloatTest, F64DivScale) {
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = kMode;
  for (int l = 0; l < kWaveSize; ++l) {
    const uint64_t n = D(l == 0 ? 0x1p-1050 : 6.0), d = D(3.0);
    h.wave().vgpr(2)[l] = static_cast<uint32_t>(n);
    h.wave().vgpr(3)[l] = static_cast<uint32_t>(n >> 32);
    h.wave().vgpr(4)[l] = static_cast<uint32_t>(d);
    h.wave().vgpr(5)[l] = static_cast<uint32_t>(d >> 32);
  }
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {"v_div_scale_f64 v[0:1], s[4:5], v[2:3], v[4:5], v[2:3]"}).ok());
  EXPECT_EQ(h.wave().Read64(4), 1u);  // only lane 0's quotient is denormal
  EXPECT_EQ(uint64_t{h.wave().vgpr(0)[0]} | (uint64_t{h.wave().vgpr(1)[0]} << 32), D(0x1p-922));
  EXPECT_EQ(uint64_t{h.wave().vgpr(0)[1]} | (uint64_t{h.wave().vgpr(1)[1]} << 32), D(6.0));
}

// --- conversions with 32-bit sources ---
TEST(ValuFloatTest, Conversions) {
  const Row32 rows[] = {
      {"v_cvt_f32_i32_e32 v0, v1", static_cast<uint32_t>(-7), 0, 0, F(-7.0f)},
      {"v_cvt_f32_i32_e32 v0, v1", 16777217, 0, 0, F(16777216.0f)},
      {"v_cvt_f32_i32_e32 v0, v1", 16777217, 0, 0, F(16777218.0f), kMode | 1},  // round up
      {"v_cvt_f32_u32_e32 v0, v1", 0xffffffffu, 0, 0, F(4294967296.0f)},
      {"v_cvt_u32_f32_e32 v0, v1", F(-1.5f), 0, 0, 0},
      {"v_cvt_u32_f32_e32 v0, v1", F(1e10f), 0, 0, 0xffffffffu},
      {"v_cvt_u32_f32_e32 v0, v1", F(7.9f), 0, 0, 7},
      {"v_cvt_i32_f32_e32 v0, v1", F(-7.9f), 0, 0, static_cast<uint32_t>(-7)},
      {"v_cvt_i32_f32_e32 v0, v1", F(-1e10f), 0, 0, 0x80000000u},
      {"v_cvt_i32_f32_e32 v0, v1", F(kNan), 0, 0, 0},
      {"v_cvt_rpi_i32_f32_e32 v0, v1", F(-2.5f), 0, 0, static_cast<uint32_t>(-2)},
      {"v_cvt_rpi_i32_f32_e32 v0, v1", F(2.5f), 0, 0, 3},
      {"v_cvt_flr_i32_f32_e32 v0, v1", F(-2.5f), 0, 0, static_cast<uint32_t>(-3)},
      {"v_cvt_off_f32_i4_e32 v0, v1", 0xf8, 0, 0, F(-0.5f)},
      {"v_cvt_off_f32_i4_e32 v0, v1", 0x7, 0, 0, F(0.4375f)},
      {"v_cvt_f32_ubyte0_e32 v0, v1", 0x04030201, 0, 0, F(1.0f)},
      {"v_cvt_f32_ubyte1_e32 v0, v1", 0x04030201, 0, 0, F(2.0f)},
      {"v_cvt_f32_ubyte2_e32 v0, v1", 0x04030201, 0, 0, F(3.0f)},
      {"v_cvt_f32_ubyte3_e32 v0, v1", 0xff030201, 0, 0, F(255.0f)},
      // f32 -> f16: rounding to nearest even, overflow, NaN; the high half is zeroed (GFX9).
      {"v_cvt_f16_f32_e32 v0, v1", F(1.0f), 0, 0, 0x3c00},
      {"v_cvt_f16_f32_e32 v0, v1", F(1.0f + 0x1p-11f), 0, 0, 0x3c00},                  // tie to even
      {"v_cvt_f16_f32_e32 v0, v1", F(1.0f + 0x1p-11f + 0x1p-20f), 0, 0, 0x3c01},
      {"v_cvt_f16_f32_e32 v0, v1", F(1.0f + 0x1p-20f), 0, 0, 0x3c01, kMode | 0x4},     // f16 rounds up
      {"v_cvt_f16_f32_e32 v0, v1", F(70000.0f), 0, 0, 0x7c00},
      {"v_cvt_f16_f32_e32 v0, v1", F(70000.0f), 0, 0, 0x7bff, kMode | 0xc},  // toward zero: the largest finite
      {"v_cvt_f16_f32_e32 v0, v1", F(0x1p-24f), 0, 0, 0x0001},
      {"v_cvt_f16_f32_e32 v0, v1", F(0x1p-24f), 0, 0, 0x0000, kFlush},
      {"v_cvt_f16_f32_e32 v0, v1", F(-kNan), 0, 0, 0xfe00},
      {"v_cvt_f32_f16_e32 v0, v1", 0xabcd3e00, 0, 0, F(1.5f)},
      {"v_cvt_f32_f16_e32 v0, v1", 0x00000001, 0, 0, F(0x1p-24f)},
      {"v_cvt_f32_f16_e32 v0, v1", 0x0000fc00, 0, 0, F(-kInf)},
      {"v_cvt_f16_u16_e32 v0, v1", 0xffff0003, 0, 0, 0x4200},
      {"v_cvt_f16_i16_e32 v0, v1", 0x0000fffe, 0, 0, 0xc000},
      {"v_cvt_f16_u16_e32 v0, v1", 0x0000ffff, 0, 0, 0x7c00},  // 65535 rounds past the largest f16
      {"v_cvt_u16_f16_e32 v0, v1", 0x00004500, 0, 0, 5},
      {"v_cvt_i16_f16_e32 v0, v1", 0x0000c500, 0, 0, 0xfffb},
      {"v_cvt_i16_f16_e32 v0, v1", 0x00007c00, 0, 0, 0x7fff},
      {"v_cvt_norm_i16_f16_e32 v0, v1", 0x0000bc00, 0, 0, 0x8001},
      {"v_cvt_norm_u16_f16_e32 v0, v1", 0x00003800, 0, 0, 32768},  // 0.5 * 65535 = 32767.5, to even
      {"v_cvt_pkrtz_f16_f32 v0, v1, v2", F(1.0f + 0x1p-11f + 0x1p-20f), F(-2.0f), 0, 0xc0003c00},
      {"v_cvt_pknorm_i16_f32 v0, v1, v2", F(1.0f), F(-2.0f), 0, 0x80017fff},
      {"v_cvt_pknorm_u16_f32 v0, v1, v2", F(1.0f), F(-2.0f), 0, 0x0000ffff},
      {"v_cvt_pknorm_i16_f16 v0, v1, v2", 0x3c00, 0x3800, 0, 0x40007fff},
      {"v_cvt_pknorm_u16_f16 v0, v1, v2", 0x3c00, 0xbc00, 0, 0x0000ffff},
      {"v_cvt_pk_u16_u32 v0, v1, v2", 70000, 5, 0, 0x0005ffff},
      {"v_cvt_pk_i16_i32 v0, v1, v2", static_cast<uint32_t>(-70000), 5, 0, 0x00058000},
      {"v_cvt_pk_u8_f32 v0, v1, v2, v3", F(300.0f), 2, 0x11223344, 0x11ff3344},
      {"v_cvt_pk_u8_f32 v0, v1, v2, v3", F(2.5f), 0, 0x11223344, 0x11223302},
  };
  for (const Row32& row : rows) Check32(Target::kGfx90a, valu_float_encodings_gfx90a, row);
}

TEST(ValuFloatTest, F64Conversions) {
  struct Row {
    const char* line;
    uint32_t a;
    uint64_t expect;
  };
  const Row rows[] = {
      {"v_cvt_f64_i32_e32 v[0:1], v2", static_cast<uint32_t>(-5), D(-5.0)},
      {"v_cvt_f64_u32_e32 v[0:1], v2", 0xffffffffu, D(4294967295.0)},
      {"v_cvt_f64_f32_e32 v[0:1], v2", F(0.1f), D(static_cast<double>(0.1f))},
      {"v_cvt_f64_f32_e32 v[0:1], v2", kDenorm, D(0x1p-149)},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    h.wave().mode = kMode;
    for (int l = 0; l < kWaveSize; ++l) h.wave().vgpr(2)[l] = row.a;
    ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {row.line}).ok());
    EXPECT_EQ(uint64_t{h.wave().vgpr(0)[0]} | (uint64_t{h.wave().vgpr(1)[0]} << 32), row.expect);
  }
}

// --- f16 (operands in the low halves; the high halves hold 0xabcd to show they are not read) ---
TEST(ValuFloatTest, F16Arithmetic) {
  const Row32 rows[] = {
      {"v_add_f16_e32 v0, v1, v2", 0xabcd3c00, 0xabcd3e00, 0, 0x00004100},  // 1 + 1.5 = 2.5, high half zeroed
      {"v_add_f16_e32 v0, v1, v2", 0x7bff, 0x7bff, 0, 0x7c00},              // overflow to inf
      {"v_add_f16_e32 v0, v1, v2", 0x0001, 0x0001, 0, 0x0002},              // denormals kept
      {"v_add_f16_e32 v0, v1, v2", 0x0001, 0x0001, 0, 0x0000, kFlush},
      {"v_add_f16_e64 v0, v1, v2 clamp", 0x3c00, 0x3c00, 0, 0x3c00},
      {"v_sub_f16_e32 v0, v1, v2", 0x3c00, 0x4000, 0, 0xbc00},
      {"v_subrev_f16_e32 v0, v1, v2", 0x3c00, 0x4000, 0, 0x3c00},
      {"v_mul_f16_e32 v0, v1, v2", 0x3e00, 0xc000, 0, 0xc200},
      {"v_mul_f16_e64 v0, -v1, |v2|", 0x3e00, 0xc000, 0, 0xc200},
      {"v_max_f16_e32 v0, v1, v2", 0x3e00, 0xc000, 0, 0x3e00},
      {"v_min_f16_e32 v0, v1, v2", 0x3e00, 0xc000, 0, 0xc000},
      {"v_min_f16_e32 v0, v1, v2", 0x7e00, 0xc000, 0, 0xc000},
      {"v_ldexp_f16_e32 v0, v1, v2", 0x3e00, 3, 0, 0x4a00},
      {"v_ldexp_f16_e32 v0, v1, v2", 0x3e00, static_cast<uint32_t>(-30), 0, 0x0000},
      {"v_rcp_f16_e32 v0, v1", 0x4400, 0, 0, 0x3400},
      {"v_sqrt_f16_e32 v0, v1", 0x4400, 0, 0, 0x4000},
      {"v_rsq_f16_e32 v0, v1", 0x4400, 0, 0, 0x3800},
      {"v_log_f16_e32 v0, v1", 0x4400, 0, 0, 0x4000},
      {"v_exp_f16_e32 v0, v1", 0x4000, 0, 0, 0x4400},
      {"v_frexp_mant_f16_e32 v0, v1", 0x4600, 0, 0, 0x3a00},  // 6 = 0.75 * 2^3
      {"v_frexp_mant_f16_e32 v0, v1", 0xfc00, 0, 0, 0xfc00},  // -infinity unchanged
      {"v_frexp_exp_i16_f16_e32 v0, v1", 0x4600, 0, 0, 3},
      {"v_floor_f16_e32 v0, v1", 0xbe00, 0, 0, 0xc000},
      {"v_ceil_f16_e32 v0, v1", 0xbe00, 0, 0, 0xbc00},
      {"v_trunc_f16_e32 v0, v1", 0xbe00, 0, 0, 0xbc00},
      {"v_rndne_f16_e32 v0, v1", 0x4100, 0, 0, 0x4000},
      {"v_fract_f16_e32 v0, v1", 0xbd00, 0, 0, 0x3a00},  // -1.25 -> 0.75
      {"v_sin_f16_e32 v0, v1", 0x3400, 0, 0, 0x3c00},    // sin(2*pi/4)
      {"v_cos_f16_e32 v0, v1", 0x3800, 0, 0, 0xbc00},
      {"v_fma_f16 v0, v1, v2, v3", 0x3e00, 0x4000, 0x3c00, 0x4400},
      {"v_fma_f16 v0, v1, v2, v3 op_sel:[1,0,1,1]", 0x3e000000, 0x4000, 0x3c00abcd, 0x4400beef},  // low kept
      {"v_mad_f16 v0, v1, v2, v3", 0x3e00, 0x4000, 0xbc00, 0x4000},
      {"v_mad_legacy_f16 v0, v1, v2, v3", 0x3e00, 0x4000, 0xbc00, 0x4000},
      {"v_fma_legacy_f16 v0, v1, v2, v3", 0x3e00, 0x4000, 0xbc00, 0x4000},
      {"v_min3_f16 v0, v1, v2, v3", 0x3e00, 0x4000, 0xbc00, 0xbc00},
      {"v_max3_f16 v0, v1, v2, v3", 0x3e00, 0x4000, 0xbc00, 0x4000},
      {"v_med3_f16 v0, v1, v2, v3", 0x3e00, 0x4000, 0xbc00, 0x3e00},
      {"v_div_fixup_f16 v0, v1, v2, v3", 0x4000, 0xc200, 0x4600, 0xc000},
      {"v_div_fixup_legacy_f16 v0, v1, v2, v3", 0x4000, 0x0000, 0x4600, 0x7c00},
      {"v_pack_b32_f16 v0, v1, v2", 0xabcd3c00, 0x12344000, 0, 0x40003c00},
      {"v_pack_b32_f16 v0, -v1, v2 op_sel:[1,0]", 0x3c000000, 0x4000, 0, 0x4000bc00},
  };
  for (const Row32& row : rows) Check32(Target::kGfx90a, valu_float_encodings_gfx90a, row);
}

TEST(ValuFloatTest, F16AccumulatorsKeepTheHighHalf) {
  IsaHarness h(Target::kGfx908);
  h.wave().mode = kMode;
  for (int l = 0; l < kWaveSize; ++l) {
    h.wave().vgpr(0)[l] = 0x12343c00;  // high 0x1234, low 1.0
    h.wave().vgpr(1)[l] = 0x4000;
    h.wave().vgpr(2)[l] = 0x4200;
  }
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx908, {"v_mac_f16_e32 v0, v1, v2"}).ok());
  EXPECT_EQ(h.wave().vgpr(0)[0], 0x12344700u);  // 2 * 3 + 1 = 7
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx908, {"v_madmk_f16 v0, v1, 0x4400, v2", "v_madak_f16 v5, v1, v2, 0x4400"})
                  .ok());
  EXPECT_EQ(h.wave().vgpr(0)[0], 0x12344980u);  // 2 * 4 + 3 = 11
  EXPECT_EQ(h.wave().vgpr(5)[0], 0x00004900u);  // 2 * 3 + 4 = 10
}

TEST(ValuFloatTest, DotProductsAccumulate) {
  const Row32 rows[] = {
      {"v_dot2c_f32_f16_e32 v0, v1, v2", 0x40003c00, 0x42004400, 0, F(10.0f + 1.0f)},
      {"v_dot2c_i32_i16_e32 v0, v1, v2", 0xffff0003, 0x00050002, 0, static_cast<uint32_t>(6 - 5 + 1)},
      {"v_dot4c_i32_i8_e32 v0, v1, v2", 0x01ff0203, 0x01010101, 0, static_cast<uint32_t>(3 + 2 - 1 + 1 + 1)},
      {"v_dot8c_i32_i4_e32 v0, v1, v2", 0x0000000f, 0x00000007, 0, static_cast<uint32_t>(-7 + 1)},
  };
  for (const Row32& row : rows) {
    SCOPED_TRACE(row.line);
    IsaHarness h(Target::kGfx90a);
    h.wave().mode = kMode;
    for (int l = 0; l < kWaveSize; ++l) {
      h.wave().vgpr(0)[l] = std::string(row.line).find("f32") != std::string::npos ? F(1.0f) : 1;
      h.wave().vgpr(1)[l] = row.a;
      h.wave().vgpr(2)[l] = row.b;
    }
    ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {row.line}).ok());
    EXPECT_EQ(h.wave().vgpr(0)[0], row.expect);
  }
}

// --- compares ---
struct CmpRow {
  const char* line;
  uint32_t a, b;
  bool expect;
};

void CheckCompare(const CmpRow& row, bool exec_too, bool wide) {
  SCOPED_TRACE(row.line);
  IsaHarness h(Target::kGfx90a);
  h.wave().mode = kMode;
  h.wave().set_exec(kExec);
  h.wave().set_vcc(0x5555);
  for (int l = 0; l < kWaveSize; ++l) {
    if (wide) {
      const uint64_t a = D(static_cast<double>(BitsF32(row.a))), b = D(static_cast<double>(BitsF32(row.b)));
      h.wave().vgpr(2)[l] = static_cast<uint32_t>(a);
      h.wave().vgpr(3)[l] = static_cast<uint32_t>(a >> 32);
      h.wave().vgpr(4)[l] = static_cast<uint32_t>(b);
      h.wave().vgpr(5)[l] = static_cast<uint32_t>(b >> 32);
    } else {
      h.wave().vgpr(1)[l] = row.a;
      h.wave().vgpr(2)[l] = row.b;
    }
  }
  ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {row.line}).ok());
  const uint64_t want = row.expect ? kExec : 0;
  const std::string line = row.line;
  const uint64_t got = line.find("vcc") != std::string::npos ? h.wave().vcc() : h.wave().Read64(8);
  EXPECT_EQ(got, want);
  if (exec_too) {
    EXPECT_EQ(h.wave().exec(), want);
  }
}

TEST(ValuFloatTest, FloatComparesHandleNan) {
  const uint32_t one = F(1.0f), two = F(2.0f), nan = F(kNan);
  // Every predicate on (1, 2), (2, 2) and (1, NaN), for f32; truth tables written out by hand.
  const char* preds[16] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt", "nle", "neq", "nlt", "tru"};
  const bool less[16] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
  const bool equal[16] = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1};
  const bool unordered[16] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};
  for (int p = 0; p < 16; ++p) {
    for (const char* width : {"f16", "f32", "f64"}) {
      for (int x = 0; x < 2; ++x) {
        const std::string kind = x == 0 ? "v_cmp_" : "v_cmpx_";
        const std::string w = width;
        const std::string line = w == "f64" ? kind + preds[p] + "_f64_e32 vcc, v[2:3], v[4:5]"
                                            : kind + preds[p] + "_" + w + "_e32 vcc, v1, v2";
        const uint32_t h1 = 0x3c00, h2 = 0x4000, hn = 0x7e00;
        const bool f16 = w == "f16";
        CheckCompare({line.c_str(), f16 ? h1 : one, f16 ? h2 : two, less[p]}, x == 1, w == "f64");
        CheckCompare({line.c_str(), f16 ? h2 : two, f16 ? h2 : two, equal[p]}, x == 1, w == "f64");
        CheckCompare({line.c_str(), f16 ? h1 : one, f16 ? hn : nan, unordered[p]}, x == 1, w == "f64");
      }
    }
  }
  // The VOP3 form writes an SGPR pair.
  CheckCompare({"v_cmp_lt_f32_e64 s[8:9], v1, v2", one, two, true}, false, false);
  CheckCompare({"v_cmpx_lt_f32_e64 s[8:9], v1, v2", two, one, false}, true, false);
  CheckCompare({"v_cmp_lt_f32_e64 s[8:9], -v1, -v2", one, two, false}, false, false);
}

TEST(ValuFloatTest, ClassCompares) {
  struct Row {
    const char* line;
    uint32_t a;  // f32 bits (f16 bits for the f16 rows; widened to f64 for the f64 rows)
    int bit;     // the class it is
  };
  const Row rows[] = {
      {"v_cmp_class_f32_e32 vcc, v1, v2", kSnan, 0},
      {"v_cmp_class_f32_e32 vcc, v1, v2", F(kNan), 1},
      {"v_cmp_class_f32_e32 vcc, v1, v2", F(-kInf), 2},
      {"v_cmp_class_f32_e32 vcc, v1, v2", F(-1.0f), 3},
      {"v_cmp_class_f32_e32 vcc, v1, v2", 0x80000001, 4},
      {"v_cmp_class_f32_e32 vcc, v1, v2", F(-0.0f), 5},
      {"v_cmp_class_f32_e32 vcc, v1, v2", F(0.0f), 6},
      {"v_cmp_class_f32_e32 vcc, v1, v2", kDenorm, 7},
      {"v_cmp_class_f32_e32 vcc, v1, v2", F(1.0f), 8},
      {"v_cmp_class_f32_e32 vcc, v1, v2", F(kInf), 9},
      {"v_cmpx_class_f32_e32 vcc, v1, v2", F(kInf), 9},
      {"v_cmp_class_f16_e32 vcc, v1, v2", 0x7c01, 0},
      {"v_cmp_class_f16_e32 vcc, v1, v2", 0x8001, 4},
      {"v_cmp_class_f16_e32 vcc, v1, v2", 0x3c00, 8},
      {"v_cmpx_class_f16_e32 vcc, v1, v2", 0xfc00, 2},
      {"v_cmp_class_f64_e32 vcc, v[2:3], v4", F(-1.0f), 3},
      {"v_cmpx_class_f64_e32 vcc, v[2:3], v4", F(0.0f), 6},
  };
  for (const Row& row : rows) {
    for (uint32_t mask : {1u << row.bit, 0x3ffu & ~(1u << row.bit)}) {
      SCOPED_TRACE(row.line);
      IsaHarness h(Target::kGfx90a);
      h.wave().mode = kFlush;  // classification ignores the denormal mode
      h.wave().set_exec(kExec);
      const uint64_t wide = D(static_cast<double>(BitsF32(row.a)));
      for (int l = 0; l < kWaveSize; ++l) {
        h.wave().vgpr(1)[l] = row.a;
        h.wave().vgpr(2)[l] = mask;
        if (std::string(row.line).find("f64") != std::string::npos) {
          h.wave().vgpr(2)[l] = static_cast<uint32_t>(wide);
          h.wave().vgpr(3)[l] = static_cast<uint32_t>(wide >> 32);
          h.wave().vgpr(4)[l] = mask;
        }
      }
      ASSERT_TRUE(h.Run(valu_float_encodings_gfx90a, {row.line}).ok());
      const uint64_t want = mask == (1u << row.bit) ? kExec : 0;
      EXPECT_EQ(h.wave().vcc(), want) << "mask 0x" << std::hex << mask;
      if (std::string(row.line).starts_with("v_cmpx")) {
        EXPECT_EQ(h.wave().exec(), want);
      }
    }
  }
}

// gfx942 shares the encodings; one instruction per family confirms its table.
TEST(ValuFloatTest, Gfx942RunsTheSameOpcodes) {
  const Row32 rows[] = {
      {"v_add_f32_e32 v0, v1, v2", F(1.5f), F(2.25f), 0, F(3.75f)},
      {"v_mul_legacy_f32 v0, v1, v2", F(0.0f), F(kInf), 0, F(0.0f)},
      {"v_cvt_f16_f32_e32 v0, v1", F(1.0f), 0, 0, 0x3c00},
      // VOP2 0x17/0x18 are the fused v_fmamk_f32 / v_fmaak_f32 on gfx942.
      {"v_fmamk_f32 v0, v1, 0x3f7fffff, v2", F(1.0f + 0x1p-23f), F(-1.0f), 0, F(0x1.fffffcp-25f)},  // fused: 0 if not
      {"v_fmaak_f32 v0, v1, v2, 0x3f800000", F(2.0f), F(3.0f), 0, F(7.0f)},
  };
  for (const Row32& row : rows) Check32(Target::kGfx942, valu_float_encodings_gfx942, row);
}

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
