// A clang-19-compiled kernel that runs almost entirely on the scalar unit (testdata/scalar_kernels.hip: 64-bit
// scalar arithmetic, a uniform loop, a call through s_getpc/s_swappc/s_setpc), on gfx908, gfx90a and gfx942,
// checked against the same computation on the host.
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"
#include "testing/kfd_sim/engines/gfx9/scalar_kernel_code_objects.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

// What scalar_mix writes, computed on the host.
std::vector<uint64_t> HostMix(const std::vector<uint64_t>& in, uint32_t n) {
  uint64_t acc = 0x9e3779b97f4a7c15ull;
  uint32_t bits = 0;
  uint32_t low = 0xffffffffu;
  int64_t sum = 0;
  for (uint32_t k = 0; k < n; ++k) {
    uint64_t x = acc + in[k];
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    acc = (x << 13) | (x >> 51);
    bits += static_cast<uint32_t>(__builtin_popcountll(acc) + __builtin_clzll(acc | 1));
    const uint32_t field = static_cast<uint32_t>(acc >> 20) & 0xfff;
    low = field < low ? field : low;
    sum += static_cast<int64_t>(acc) >> 7;
    acc = (bits & 4) != 0 ? acc - k : acc + (uint64_t{k} << 40);
  }
  return {acc, bits, low, static_cast<uint64_t>(sum), acc ^ (uint64_t{n} << 32)};
}

class ScalarKernelTest : public CodeObjectTest {};

TEST_P(ScalarKernelTest, ScalarMixMatchesTheHost) {
  IdentityPageTable& memory = memory_;
  absl::StatusOr<uint64_t> kd = code_->KernelObject("scalar_mix");
  ASSERT_TRUE(kd.ok()) << kd.status();

  std::vector<uint64_t> in(64);
  uint64_t seed = 1;
  for (uint64_t& v : in) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    v = seed;
  }
  memory.Map(in.data(), in.size() * 8);
  // n = 0 never enters the loop; 1 takes one trip; 37 takes both sides of the branch.
  for (const uint32_t n : {0u, 1u, 37u}) {
    SCOPED_TRACE(n);
    std::vector<uint64_t> out(6, 0x5555555555555555ull);
    memory.Map(out.data(), out.size() * 8);
    struct {
      const uint64_t* in;
      uint64_t* out;
      uint32_t n;
      uint32_t pad;
      uint32_t hidden[64];  // code object v5 hidden arguments (unused by this kernel)
    } args{in.data(), out.data(), n, 0, {}};
    memory.Map(&args, sizeof(args));
    absl::StatusOr<RunResult> result =
        RunKernel(&memory, GetParam().target, *kd, Launch{.grid = {64, 1, 1}, .workgroup = {64, 1, 1}, .kernargs = &args});
    memory.Unmap(&args);
    memory.Unmap(out.data());
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_FALSE(result->failure.has_value())
        << result->failure->illegal << " fault 0x" << std::hex << result->failure->fault_va.value_or(0);
    const std::vector<uint64_t> want = HostMix(in, n);
    for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(out[k], want[k]) << "out[" << k << "]";
    EXPECT_EQ(out[5], 0x5555555555555555ull) << "written past the results";
  }
}

INSTANTIATE_TEST_SUITE_P(Gfx9, ScalarKernelTest,
                         ::testing::ValuesIn(Gfx9Targets(&hipmem_testing::scalar_kernels_gfx908, &hipmem_testing::scalar_kernels_gfx90a,
                                                         &hipmem_testing::scalar_kernels_gfx942)),
                         TargetCaseName);

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
