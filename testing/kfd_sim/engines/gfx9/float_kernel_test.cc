// Float kernels (testdata/float_kernels.hip) that clang-19 compiles for gfx908, gfx90a and gfx942, run on the GFX9
// engine and checked against host arithmetic: bit for bit where the compiled code is correctly rounded (IEEE
// division, sqrt, fma, conversions), within the ISA's documented error for the hardware approximations.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/float_code_objects.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// The distance between two floats in units in the last place (ordered bit patterns).
int64_t Ulps(float a, float b) {
  int32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  const int64_t ox = x < 0 ? int64_t{INT32_MIN} - x : x;
  const int64_t oy = y < 0 ? int64_t{INT32_MIN} - y : y;
  return ox > oy ? ox - oy : oy - ox;
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0 || (std::isnan(a) && std::isnan(b)); }
bool SameBits(double a, double b) { return std::memcmp(&a, &b, 8) == 0 || (std::isnan(a) && std::isnan(b)); }

class FloatKernelTest : public CodeObjectTest {
 protected:
  template <typename T>
  T* Map(std::vector<T>& v) {
    memory_.Map(v.data(), v.size() * sizeof(T));
    return v.data();
  }

  // Runs `kernel` over `n` work-items in workgroups of 64 with the explicit arguments `args` (pointers and 32-bit
  // integers, each in an 8-byte slot), followed by code object v5's hidden block counts and group sizes.
  void Run(std::string_view kernel, uint32_t n, std::vector<uint64_t> args) {
    constexpr uint32_t kGroup = 64;
    kernargs_.assign(args.size() * 8 + 256, 0);
    std::memcpy(kernargs_.data(), args.data(), args.size() * 8);
    unsigned char* hidden = kernargs_.data() + args.size() * 8;
    const uint32_t blocks[3] = {(n + kGroup - 1) / kGroup, 1, 1};
    const uint16_t sizes[3] = {kGroup, 1, 1};
    std::memcpy(hidden, blocks, sizeof(blocks));
    std::memcpy(hidden + 12, sizes, sizeof(sizes));
    memory_.Map(kernargs_.data(), kernargs_.size());
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    ASSERT_TRUE(kd.ok()) << kd.status();
    absl::StatusOr<RunResult> result = RunKernel(
        &memory_, GetParam().target, *kd,
        Launch{.grid = {n, 1, 1}, .workgroup = {kGroup, 1, 1}, .kernargs = kernargs_.data()});
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
  }

  static uint64_t Ptr(const void* p) { return reinterpret_cast<uint64_t>(p); }

  std::vector<unsigned char> kernargs_;
};

TEST_P(FloatKernelTest, DivisionAndSqrtAreCorrectlyRounded) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> a = {1.0f,    2.0f,     1.0f,   -7.5f,   0.1f,    1e-40f, 3e38f,   1e-30f, 0.0f,
                          -0.0f,   inf,      5.0f,   1.0f,    1e38f,   2e-38f, 123.0f,  NAN,    1e-44f};
  std::vector<float> b = {3.0f,    7.0f,     -0.0f,  2.5f,    0.3f,    3.0f,   1e-3f,   1e30f,  0.0f,
                          5.0f,    inf,      inf,    1e-40f,  3e38f,   1e10f,  -11.0f,  1.0f,   3.0f};
  for (int k = 0; k < 46; ++k) {  // ordinary values across the range
    a.push_back(std::ldexp(1.0f + 0.0137f * static_cast<float>(k), k * 5 - 110));
    b.push_back(std::ldexp(1.0f + 0.0291f * static_cast<float>(k), 60 - k * 3));
  }
  const int n = static_cast<int>(a.size());
  std::vector<float> q(n, -1.0f), s(n, -1.0f);
  Run("f32_div_sqrt", n, {Ptr(Map(a)), Ptr(Map(b)), Ptr(Map(q)), Ptr(Map(s)), static_cast<uint64_t>(n)});
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(std::to_string(a[i]) + " / " + std::to_string(b[i]));
    EXPECT_TRUE(SameBits(q[i], a[i] / b[i])) << q[i] << " vs " << a[i] / b[i];
    EXPECT_TRUE(SameBits(s[i], std::sqrt(a[i]))) << s[i] << " vs " << std::sqrt(a[i]);
  }
}

// v_rcp/v_exp/v_log within 1 ulp (the ISA's figure), v_sin/v_cos (inputs in revolutions) within 2^-20 absolute.
TEST_P(FloatKernelTest, TranscendentalsAreWithinTheIsaPrecision) {
  std::vector<float> x;
  for (int k = 0; k < 64; ++k) x.push_back(0.03125f + 0.37f * static_cast<float>(k) * (k % 2 == 0 ? 1.0f : 0.25f));
  const int n = static_cast<int>(x.size());
  std::vector<float> out(5 * n, -1.0f);
  Run("f32_transcendentals", n, {Ptr(Map(x)), Ptr(Map(out)), static_cast<uint64_t>(n)});
  const double kTwoPi = 6.283185307179586;
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(x[i]);
    EXPECT_LE(Ulps(out[5 * i + 0], static_cast<float>(1.0 / x[i])), 1);
    EXPECT_LE(Ulps(out[5 * i + 1], static_cast<float>(std::exp2(static_cast<double>(x[i])))), 1);
    EXPECT_LE(Ulps(out[5 * i + 2], static_cast<float>(std::log2(static_cast<double>(x[i])))), 1);
    EXPECT_NEAR(out[5 * i + 3], std::sin(kTwoPi * x[i]), 0x1p-20);
    EXPECT_NEAR(out[5 * i + 4], std::cos(kTwoPi * x[i]), 0x1p-20);
  }
}

TEST_P(FloatKernelTest, FmaChainMatchesTheHostBitForBit) {
  constexpr int kN = 256;
  std::vector<float> x(kN), out(kN, -1.0f);
  for (int i = 0; i < kN; ++i) x[i] = static_cast<float>(i) * 0.173f - 20.0f;
  Run("fma_chain", kN, {Ptr(Map(x)), Ptr(Map(out))});
  for (int i = 0; i < kN; ++i) {
    float v = x[i];
    for (int k = 0; k < 64; ++k) v = std::fma(v, 0.999f, 0.001f * static_cast<float>(k & 7));
    ASSERT_TRUE(SameBits(out[i], v)) << "element " << i << ": " << out[i] << " vs " << v;
  }
}

TEST_P(FloatKernelTest, DoublePrecisionIsExact) {
  std::vector<double> a = {1.0, -7.25, 1e300, 1e-310, 3.0, 0.1, 2.5e9, -0.0};
  std::vector<double> b = {3.0, 0.1, 1e-10, 7.0, 1e300, 0.3, 3.0, 2.0};
  for (int k = 0; k < 24; ++k) {
    a.push_back(std::ldexp(1.0 + 0.013 * k, k * 40 - 500));
    b.push_back(std::ldexp(1.0 + 0.029 * k, 300 - k * 25));
  }
  const int n = static_cast<int>(a.size());
  std::vector<double> out(4 * n, -1.0);
  Run("f64_math", n, {Ptr(Map(a)), Ptr(Map(b)), Ptr(Map(out)), static_cast<uint64_t>(n)});
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(std::to_string(a[i]) + ", " + std::to_string(b[i]));
    EXPECT_TRUE(SameBits(out[4 * i + 0], a[i] / b[i])) << out[4 * i + 0] << " vs " << a[i] / b[i];
    EXPECT_TRUE(SameBits(out[4 * i + 1], a[i] * b[i]));
    EXPECT_TRUE(SameBits(out[4 * i + 2], std::fma(a[i], b[i], -1.0)));
    if (std::fabs(a[i]) < 2e9) {  // the int conversion saturates on the GPU; the host's is undefined
      EXPECT_TRUE(SameBits(out[4 * i + 3], static_cast<double>(static_cast<int>(a[i])) +
                                               static_cast<double>(static_cast<float>(b[i]))));
    }
  }
}

TEST_P(FloatKernelTest, HalfPrecision) {
  std::vector<_Float16> a, b;
  for (int k = 0; k < 64; ++k) {
    a.push_back(static_cast<_Float16>(0.25f + 0.5f * static_cast<float>(k)));
    b.push_back(static_cast<_Float16>(3.0f - 0.125f * static_cast<float>(k)));
  }
  const int n = static_cast<int>(a.size());
  std::vector<_Float16> out(3 * n, static_cast<_Float16>(-1.0f));
  std::vector<float> wide(n, -1.0f);
  Run("f16_math", n, {Ptr(Map(a)), Ptr(Map(b)), Ptr(Map(out)), Ptr(Map(wide)), static_cast<uint64_t>(n)});
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    const double x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
    // x * y + x may be fused: the product is exact in double, so one rounding to f16 is the fused result.
    EXPECT_EQ(static_cast<float>(out[3 * i + 0]), static_cast<float>(static_cast<_Float16>(x * y + x)));
    EXPECT_EQ(static_cast<float>(out[3 * i + 1]), static_cast<float>(static_cast<_Float16>(std::fabs(x - y))));
    // The f16 division goes through v_rcp_f32: within one f16 ulp of the true quotient.
    const float want = static_cast<float>(static_cast<_Float16>(x / y));
    if (std::isinf(want)) {
      EXPECT_EQ(static_cast<float>(out[3 * i + 2]), want);
    } else {
      EXPECT_NEAR(static_cast<float>(out[3 * i + 2]), want, std::fabs(want) * 0x1p-10 + 0x1p-24);
    }
    EXPECT_EQ(wide[i], static_cast<float>(x) * 2.0f);
  }
}

INSTANTIATE_TEST_SUITE_P(Gfx9, FloatKernelTest,
                         ::testing::ValuesIn(Gfx9Targets(&hipmem_testing::float_kernels_gfx908, &hipmem_testing::float_kernels_gfx90a,
                                                         &hipmem_testing::float_kernels_gfx942)),
                         TargetCaseName);

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
