// Kernels clang-19 compiles for gfx908, gfx90a and gfx942, run on the GFX9 engine through an identity page table.
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"
#include "testing/kfd_sim/engines/gfx9/test_code_objects.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

class KernelTest : public CodeObjectTest {
 protected:
  // Maps a host vector for the GPU.
  template <typename T>
  void Map(std::vector<T>& v) {
    memory_.Map(v.data(), v.size() * sizeof(T));
  }

  RunResult Run(std::string_view kernel, const Launch& launch) {
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    EXPECT_TRUE(kd.ok()) << kd.status();
    absl::StatusOr<RunResult> result = RunKernel(&memory_, GetParam().target, *kd, launch);
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return RunResult{};
    if (result->failure.has_value()) {
      ADD_FAILURE() << "dispatch failed: " << result->failure->illegal << " fault "
                    << result->failure->fault_va.value_or(0);
    }
    return *result;
  }

};

TEST_P(KernelTest, VectorAddAddsEveryElementAndNoMore) {
  constexpr int kN = 1000;  // not a multiple of the workgroup: the last workgroup is partial
  std::vector<float> a(kN), b(kN), c(kN + 64, -1.0f);
  for (int i = 0; i < kN; ++i) {
    a[i] = static_cast<float>(i) * 0.5f;
    b[i] = 1000.0f - static_cast<float>(i);
  }
  Map(a);
  Map(b);
  Map(c);
  struct {
    const float* a;
    const float* b;
    float* c;
    int32_t n;
    uint32_t pad;
    uint32_t hidden[64];  // code object v5 hidden arguments: block counts and group sizes
  } args{a.data(), b.data(), c.data(), kN, 0, {}};
  args.hidden[0] = (kN + 255) / 256;  // hidden_block_count_x
  args.hidden[1] = 1;
  args.hidden[2] = 1;
  args.hidden[3] = 256 | (1u << 16);  // hidden_group_size_x, _y
  args.hidden[4] = 1;                 // hidden_group_size_z
  memory_.Map(&args, sizeof(args));
  Run("vector_add", Launch{.grid = {kN, 1, 1}, .workgroup = {256, 1, 1}, .kernargs = &args});
  for (int i = 0; i < kN; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
  for (int i = kN; i < kN + 64; ++i) ASSERT_EQ(c[i], -1.0f) << "element " << i << " past the grid was written";
}

INSTANTIATE_TEST_SUITE_P(Gfx9, KernelTest,
                         ::testing::ValuesIn(Gfx9Targets(&hipmem_testing::kernels_gfx908, &hipmem_testing::kernels_gfx90a,
                                                         &hipmem_testing::kernels_gfx942)),
                         TargetCaseName);

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
