// Workgroups that wait on each other through memory (testdata/cooperative_kernels.hip) complete when the grid fits
// what the compute units hold resident: the dispatch's scheduling, as a cooperative launch relies on it. Run on
// gfx908, gfx90a and gfx942. None of these tests depends on timing: a scheduler that ran workgroups one after
// another to completion would hang them, one that keeps them resident finishes them in any interleaving.
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu_abi/kernel_descriptor.h"
#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/cooperative_code_objects.h"
#include "testing/kfd_sim/engines/gfx9/dispatch.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

struct WaitArgs {
  uint32_t* counter;
  uint32_t* seen;
  uint32_t groups;
  uint32_t pad;
  uint32_t hidden[64];  // code object v5 hidden arguments (unused)
};

class CooperativeTest : public CodeObjectTest {
 protected:
  // Runs `kernel` over `groups` workgroups of `workgroup` work-items on `units` compute units of the calling thread.
  absl::StatusOr<RunResult> Run(const char* kernel, uint32_t groups, uint32_t workgroup, uint32_t units,
                                const void* args, size_t args_bytes) {
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    if (!kd.ok()) return kd.status();
    memory_.Map(args, args_bytes);
    absl::StatusOr<RunResult> result =
        RunKernel(&memory_, GetParam().target, *kd,
                  Launch{.grid = {groups * workgroup, 1, 1}, .workgroup = {workgroup, 1, 1}, .kernargs = args,
                         .compute_units = units});
    memory_.Unmap(args);
    return result;
  }

  // Every workgroup of a grid that exactly fills `units` compute units (8 workgroups of 4 waves each) arrives, then
  // waits for all the others.
  void ExpectAllArrive(const char* kernel) {
    constexpr uint32_t kUnits = 5;
    constexpr uint32_t kGroups = kUnits * 8;
    uint32_t counter = 0;
    std::vector<uint32_t> seen(kGroups, 0);
    memory_.Map(&counter, sizeof(counter));
    memory_.Map(seen.data(), seen.size() * 4);
    WaitArgs args{&counter, seen.data(), kGroups, 0, {}};
    absl::StatusOr<RunResult> result = Run(kernel, kGroups, 256, kUnits, &args, sizeof(args));
    memory_.Unmap(seen.data());
    memory_.Unmap(&counter);
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
    EXPECT_EQ(counter, kGroups);
    for (uint32_t g = 0; g < kGroups; ++g) EXPECT_EQ(seen[g], kGroups) << "workgroup " << g;
  }
};

TEST_P(CooperativeTest, WorkgroupsSleepingOnEachOtherAllComplete) { ExpectAllArrive("arrive_and_wait_sleeping"); }

TEST_P(CooperativeTest, WorkgroupsPollingWithoutSleepAllComplete) { ExpectAllArrive("arrive_and_wait_busy"); }

TEST_P(CooperativeTest, AChainAgainstDispatchOrderCompletes) {
  constexpr uint32_t kGroups = 64;  // one wave each: 2 compute units hold all 64
  std::vector<uint32_t> tokens(kGroups, 0);
  memory_.Map(tokens.data(), tokens.size() * 4);
  struct {
    uint32_t* tokens;
    uint32_t groups;
    uint32_t pad;
    uint32_t hidden[64];
  } args{tokens.data(), kGroups, 0, {}};
  absl::StatusOr<RunResult> result = Run("reverse_chain", kGroups, 64, 2, &args, sizeof(args));
  memory_.Unmap(tokens.data());
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
  uint32_t want = 1;
  for (uint32_t g = kGroups; g-- > 0;) {
    want = want * 3 + g;
    EXPECT_EQ(tokens[g], want) << "workgroup " << g;
  }
}

TEST_P(CooperativeTest, AFaultHaltsWorkgroupsThatWaitForTheFaultingOne) {
  constexpr uint32_t kGroups = 16;
  uint32_t counter = 0;
  memory_.Map(&counter, sizeof(counter));
  uint32_t unmapped = 0;  // never mapped: the store through it faults
  struct {
    uint32_t* counter;
    uint32_t* bad;
    uint32_t faulty;
    uint32_t pad;
    uint32_t hidden[64];
  } args{&counter, &unmapped, 5, 0, {}};
  absl::StatusOr<RunResult> result = Run("fault_while_others_wait", kGroups, 64, 1, &args, sizeof(args));
  memory_.Unmap(&counter);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->failure.has_value());
  EXPECT_EQ(result->failure->fault_va, reinterpret_cast<uint64_t>(&unmapped));
  EXPECT_EQ(counter, 0u);
}

// The occupancy bound: 32 waves per CU, at most 64 KiB of LDS.
TEST_P(CooperativeTest, ResidentWorkgroupsPerCuFollowWavesAndLds) {
  absl::StatusOr<uint64_t> kd = code_->KernelObject("arrive_and_wait_sleeping");
  ASSERT_TRUE(kd.ok()) << kd.status();
  gpu_abi::amdhsa::KernelDescriptor descriptor;
  std::memcpy(&descriptor, reinterpret_cast<const void*>(*kd), sizeof(descriptor));
  auto per_cu = [&](uint16_t workgroup, uint32_t lds) -> uint32_t {
    DispatchRequest request;
    request.target = GetParam().target;
    request.packet.setup = 1;
    request.packet.workgroup_size_x = workgroup;
    request.packet.workgroup_size_y = request.packet.workgroup_size_z = 1;
    request.packet.grid_size_x = workgroup;
    request.packet.grid_size_y = request.packet.grid_size_z = 1;
    request.packet.group_segment_size = lds;
    request.packet.kernel_object = *kd;
    absl::StatusOr<std::unique_ptr<KernelDispatch>> dispatch = KernelDispatch::Create(&memory_, request, descriptor);
    EXPECT_TRUE(dispatch.ok()) << dispatch.status();
    return dispatch.ok() ? (*dispatch)->ResidentWorkgroupsPerCu() : 0;
  };
  EXPECT_EQ(per_cu(64, 0), 32u);
  EXPECT_EQ(per_cu(65, 0), 16u);  // two waves
  EXPECT_EQ(per_cu(256, 0), 8u);
  EXPECT_EQ(per_cu(1024, 0), 2u);
  EXPECT_EQ(per_cu(64, 16 * 1024), 4u);
  EXPECT_EQ(per_cu(64, 40 * 1024), 1u);
}

INSTANTIATE_TEST_SUITE_P(Gfx9, CooperativeTest,
                         ::testing::ValuesIn(Gfx9Targets(&hipmem_testing::cooperative_kernels_gfx908,
                                                         &hipmem_testing::cooperative_kernels_gfx90a,
                                                         &hipmem_testing::cooperative_kernels_gfx942)),
                         TargetCaseName);

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
