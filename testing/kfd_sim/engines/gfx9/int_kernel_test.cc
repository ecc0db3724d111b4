// Integer kernels (testdata/int_kernels.hip) that clang-19 compiles for gfx908, gfx90a and gfx942, run on the GFX9
// engine and checked against host arithmetic: 64-bit integer math (carry chains, v_mad_u64_u32, 64-bit shifts and
// compares, bit counts and reversals) and wave operations (DPP scans with row broadcasts, readlane, readfirstlane,
// ballots counted with mbcnt), and private arrays held in registers, indexed through VGPR indexing mode.
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/int_code_objects.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

class IntKernelTest : public CodeObjectTest {
 protected:
  // Maps `v` for the GPU and returns its address as a kernel argument.
  template <typename T>
  uint64_t Arg(std::vector<T>& v) {
    memory_.Map(v.data(), v.size() * sizeof(T));
    return reinterpret_cast<uint64_t>(v.data());
  }

  // Runs `kernel` on `waves` workgroups of one full wave each; the kernels read only their pointer arguments.
  void Run(std::string_view kernel, uint32_t waves, const std::vector<uint64_t>& args) {
    kernargs_ = args;
    kernargs_.resize(args.size() + 32, 0);  // room for the implicit arguments the descriptor counts
    memory_.Map(kernargs_.data(), kernargs_.size() * 8);
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    ASSERT_TRUE(kd.ok()) << kd.status();
    absl::StatusOr<RunResult> result = RunKernel(
        &memory_, GetParam().target, *kd,
        Launch{.grid = {64 * waves, 1, 1}, .workgroup = {64, 1, 1}, .kernargs = kernargs_.data()});
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
  }

  std::vector<uint64_t> kernargs_;
};

// A fixed pseudo-random sequence (splitmix64), so failures reproduce.
uint64_t Next(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t BitReverse(uint64_t v) {
  uint64_t r = 0;
  for (int k = 0; k < 64; ++k) r |= ((v >> k) & 1) << (63 - k);
  return r;
}

TEST_P(IntKernelTest, Int64MathMatchesTheHost) {
  constexpr uint32_t kWaves = 4;
  constexpr uint32_t kN = 64 * kWaves;
  std::vector<uint64_t> a(kN), b(kN), out(12 * kN + 64, 0x5a5a5a5a5a5a5a5aull);
  uint64_t seed = 42;
  for (uint32_t i = 0; i < kN; ++i) {
    a[i] = Next(seed);
    b[i] = Next(seed);
  }
  // Edge cases: carries across the dword boundary, sign bits, zero, all ones, shifts of 0, 31, 32 and 63.
  const uint64_t edges[][2] = {{0xffffffffull, 1},          {0xffffffffffffffffull, 0xffffffffffffffffull},
                               {0x8000000000000000ull, 63}, {0, 0},
                               {1, 32},                     {0x7fffffffffffffffull, 31},
                               {0x00000001ffffffffull, 0x00000000ffffffffull}};
  for (size_t k = 0; k < std::size(edges); ++k) {
    a[k] = edges[k][0];
    b[k] = edges[k][1];
  }
  Run("int64_math", kWaves, {Arg(a), Arg(b), Arg(out)});
  for (uint32_t i = 0; i < kN; ++i) {
    SCOPED_TRACE("element " + std::to_string(i));
    const uint64_t x = a[i], y = b[i];
    const unsigned s = static_cast<unsigned>(y) & 63;
    const uint64_t want[12] = {
        x + y,
        x - y,
        x * y,
        static_cast<uint64_t>((static_cast<unsigned __int128>(x) * y) >> 64),
        x << s,
        x >> s,
        static_cast<uint64_t>(static_cast<int64_t>(x) >> s),
        x < y ? x : y,
        static_cast<int64_t>(x) > static_cast<int64_t>(y) ? x : y,
        static_cast<uint64_t>(std::popcount(x)) + static_cast<uint64_t>(std::countl_zero(y | 1)) * 100,
        BitReverse(x) ^ __builtin_bswap64(y),
        std::rotl(x, 13) + (static_cast<int64_t>(x) < 0 ? 7 : 3),
    };
    for (int k = 0; k < 12; ++k) ASSERT_EQ(out[12 * i + k], want[k]) << "result " << k;
  }
  for (uint32_t i = 12 * kN; i < out.size(); ++i) ASSERT_EQ(out[i], 0x5a5a5a5a5a5a5a5aull) << "past the end";
}

TEST_P(IntKernelTest, WaveScanTotalFirstLaneAndBallotRank) {
  constexpr uint32_t kWaves = 3;
  constexpr uint32_t kN = 64 * kWaves;
  std::vector<uint32_t> in(kN), scan(kN), total(kWaves), first(kWaves), rank(kN);
  uint64_t seed = 7;
  for (uint32_t i = 0; i < kN; ++i) in[i] = static_cast<uint32_t>(Next(seed) % 100000);
  Run("wave_ops", kWaves, {Arg(in), Arg(scan), Arg(total), Arg(first), Arg(rank)});
  for (uint32_t w = 0; w < kWaves; ++w) {
    SCOPED_TRACE("wave " + std::to_string(w));
    uint32_t sum = 0, odd = 0;
    for (uint32_t l = 0; l < 64; ++l) {
      const uint32_t i = 64 * w + l;
      sum += in[i];
      ASSERT_EQ(scan[i], sum) << "lane " << l;  // inclusive prefix sum
      ASSERT_EQ(rank[i], odd) << "lane " << l;  // odd lanes below this one
      odd += in[i] & 1;
    }
    EXPECT_EQ(total[w], sum);
    EXPECT_EQ(first[w], in[64 * w]);
  }
}

// Dynamic indexing of an array held in registers: the uniform index runs through VGPR indexing mode
// (s_set_gpr_idx_on), so a wrong offset or a missed s_set_gpr_idx_off shows in the sums.
TEST_P(IntKernelTest, RegisterArrayIndexedByUniformAndPerLaneIndices) {
  constexpr uint32_t kWaves = 2;
  constexpr uint32_t kN = 64 * kWaves;
  std::vector<uint32_t> in(16 * kN), lane_index(kN), out(2 * kN);
  uint64_t seed = 11;
  for (uint32_t& v : in) v = static_cast<uint32_t>(Next(seed));
  for (uint32_t& v : lane_index) v = static_cast<uint32_t>(Next(seed) % 256);
  for (const uint32_t uniform : {0x00u, 0x3cu, 0xf5u}) {
    SCOPED_TRACE("uniform index 0x" + std::to_string(uniform));
    Run("register_array_index", kWaves, {Arg(in), Arg(lane_index), Arg(out), uniform});
    for (uint32_t i = 0; i < kN; ++i) {
      uint32_t a[16];
      for (int k = 0; k < 16; ++k) a[k] = in[16 * i + k];
      a[uniform & 15] += 1000;
      a[lane_index[i] & 15] ^= 0x5a5a;
      uint32_t s = 0;
      for (int k = 0; k < 16; ++k) s = s * 31 + a[k];
      ASSERT_EQ(out[2 * i], s) << "work-item " << i;
      ASSERT_EQ(out[2 * i + 1], a[(uniform >> 4) & 15] + a[(lane_index[i] >> 4) & 15]) << "work-item " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gfx9, IntKernelTest,
                         ::testing::ValuesIn(Gfx9Targets(&hipmem_testing::int_kernels_gfx908, &hipmem_testing::int_kernels_gfx90a,
                                                         &hipmem_testing::int_kernels_gfx942)),
                         TargetCaseName);

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
