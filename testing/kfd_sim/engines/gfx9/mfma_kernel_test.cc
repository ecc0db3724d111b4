// Small GEMMs (testdata/mfma_kernels.hip) that clang-19 compiles to MFMA for gfx908, gfx90a and gfx942, run on the
// GFX9 engine and checked against a host matrix multiply. Inputs are small integers, so every product and sum is
// exact and the check is bit for bit.
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"
#include "testing/kfd_sim/engines/gfx9/mfma_code_objects.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

class MfmaKernelTest : public CodeObjectTest {
 protected:
  template <typename T>
  T* Map(std::vector<T>& v) {
    memory_.Map(v.data(), v.size() * sizeof(T));
    return v.data();
  }

  // Runs `kernel` on `workgroups` workgroups of one wave, with the three pointers and then `ints` (4 bytes each) as
  // its arguments.
  void Run(std::string_view kernel, uint32_t workgroups, const void* a, const void* b, void* c,
           std::vector<int32_t> ints = {}) {
    kernargs_.assign(24 + 4 * ints.size() + 256, 0);
    const uint64_t ptrs[3] = {reinterpret_cast<uint64_t>(a), reinterpret_cast<uint64_t>(b),
                              reinterpret_cast<uint64_t>(c)};
    std::memcpy(kernargs_.data(), ptrs, sizeof(ptrs));
    std::memcpy(kernargs_.data() + 24, ints.data(), 4 * ints.size());
    memory_.Map(kernargs_.data(), kernargs_.size());
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    ASSERT_TRUE(kd.ok()) << kd.status();
    absl::StatusOr<RunResult> result =
        RunKernel(&memory_, GetParam().target, *kd,
                  Launch{.grid = {64 * workgroups, 1, 1}, .workgroup = {64, 1, 1}, .kernargs = kernargs_.data()});
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
  }

  // Host reference: c += a (m x k) * b (k x n), row-major.
  template <typename In, typename Acc>
  static std::vector<Acc> Gemm(const std::vector<In>& a, const std::vector<In>& b, std::vector<Acc> c, int m, int k,
                               int n) {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        double sum = static_cast<double>(c[i * n + j]);
        for (int t = 0; t < k; ++t) sum += static_cast<double>(a[i * k + t]) * static_cast<double>(b[t * n + j]);
        c[i * n + j] = static_cast<Acc>(sum);
      }
    }
    return c;
  }

  template <typename T>
  static std::vector<T> Small(size_t count, int seed, int limit) {
    std::vector<T> v(count);
    uint32_t s = static_cast<uint32_t>(seed);
    for (T& x : v) {
      s = s * 1664525u + 1013904223u;
      x = static_cast<T>(static_cast<int>((s >> 16) % static_cast<uint32_t>(2 * limit + 1)) - limit);
    }
    return v;
  }

  std::vector<unsigned char> kernargs_;
};

TEST_P(MfmaKernelTest, F32Gemm) {
  constexpr int kM = 32, kK = 8, kN = 64;  // two 32x32 tiles
  std::vector<float> a = Small<float>(kM * kK, 1, 4), b = Small<float>(kK * kN, 2, 4), c = Small<float>(kM * kN, 3, 8);
  const std::vector<float> expect = Gemm(a, b, c, kM, kK, kN);
  Run("gemm_f32_32x32x2", kN / 32, Map(a), Map(b), Map(c), {kK, kN});
  EXPECT_EQ(c, expect);
}

TEST_P(MfmaKernelTest, F16Gemm) {
  constexpr int kM = 16, kK = 32, kN = 32;  // two 16x16 tiles, two MFMAs deep
  const std::vector<float> af = Small<float>(kM * kK, 4, 4), bf = Small<float>(kK * kN, 5, 4);
  std::vector<_Float16> a(af.begin(), af.end()), b(bf.begin(), bf.end());
  std::vector<float> c = Small<float>(kM * kN, 6, 8);
  const std::vector<float> expect = Gemm(af, bf, c, kM, kK, kN);
  Run("gemm_f16_16x16x16", kN / 16, Map(a), Map(b), Map(c), {kK, kN});
  EXPECT_EQ(c, expect);
}

TEST_P(MfmaKernelTest, BroadcastOfOneABlockToAllSixteen) {
  std::vector<float> a = Small<float>(64, 7, 4), b = Small<float>(64, 8, 4), c = Small<float>(256, 9, 8);
  std::vector<float> expect = c;
  for (int blk = 0; blk < 16; ++blk) {
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) expect[blk * 16 + i * 4 + j] += a[5 * 4 + i] * b[blk * 4 + j];
    }
  }
  Run("outer_f32_4x4x1_broadcast", 1, Map(a), Map(b), Map(c));
  EXPECT_EQ(c, expect);
}

TEST_P(MfmaKernelTest, F64Gemm) {
  if (GetParam().target == Target::kGfx908) GTEST_SKIP() << "gfx908 has no f64 MFMA";
  constexpr int kM = 16, kK = 8, kN = 32;
  std::vector<double> a = Small<double>(kM * kK, 10, 4), b = Small<double>(kK * kN, 11, 4),
                      c = Small<double>(kM * kN, 12, 8);
  const std::vector<double> expect = Gemm(a, b, c, kM, kK, kN);
  Run("gemm_f64_16x16x4", kN / 16, Map(a), Map(b), Map(c), {kK, kN});
  EXPECT_EQ(c, expect);
}

TEST_P(MfmaKernelTest, Bf16Gemm) {
  if (GetParam().target == Target::kGfx908) GTEST_SKIP() << "the _1k bf16 MFMA is gfx90a+";
  constexpr int kM = 16, kK = 32, kN = 32;
  const std::vector<float> af = Small<float>(kM * kK, 13, 4), bf = Small<float>(kK * kN, 14, 4);
  // Small integers are exact in bf16: the high half of their f32 bits.
  auto bf16 = [](const std::vector<float>& v) {
    std::vector<uint16_t> out(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      uint32_t bits;
      std::memcpy(&bits, &v[i], 4);
      out[i] = static_cast<uint16_t>(bits >> 16);
    }
    return out;
  };
  std::vector<uint16_t> a = bf16(af), b = bf16(bf);
  std::vector<float> c = Small<float>(kM * kN, 15, 8);
  const std::vector<float> expect = Gemm(af, bf, c, kM, kK, kN);
  Run("gemm_bf16_16x16x16", kN / 16, Map(a), Map(b), Map(c), {kK, kN});
  EXPECT_EQ(c, expect);
}

// Products of int8 extremes and a wrapping accumulator: the sum is exact in int32 and wraps as the hardware's does.
TEST_P(MfmaKernelTest, I8Gemm) {
  constexpr int kM = 16, kK = 64, kN = 32;
  std::vector<int8_t> a = Small<int8_t>(kM * kK, 16, 127), b = Small<int8_t>(kK * kN, 17, 127);
  a[0] = -128;
  b[0] = -128;
  std::vector<int32_t> c = Small<int32_t>(kM * kN, 18, 1000);
  c[0] = INT32_MAX;  // wraps
  std::vector<int32_t> expect = c;
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      uint32_t sum = static_cast<uint32_t>(c[i * kN + j]);
      for (int t = 0; t < kK; ++t) sum += static_cast<uint32_t>(a[i * kK + t] * b[t * kN + j]);
      expect[i * kN + j] = static_cast<int32_t>(sum);
    }
  }
  Run("gemm_i8_16x16", kN / 16, Map(a), Map(b), Map(c), {kK, kN});
  EXPECT_EQ(c, expect);
}

INSTANTIATE_TEST_SUITE_P(Gfx9, MfmaKernelTest,
                         ::testing::ValuesIn(Gfx9Targets(&hipmem_testing::mfma_kernels_gfx908,
                                                         &hipmem_testing::mfma_kernels_gfx90a,
                                                         &hipmem_testing::mfma_kernels_gfx942)),
                         TargetCaseName);

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
