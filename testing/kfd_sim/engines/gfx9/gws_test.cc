// Global wave sync: the GWS block's semaphores and barriers (gws.h), and kernels using them through clang's
// ds_gws_* builtins (testdata/gws_kernels.hip) on gfx908, gfx90a and gfx942. No test depends on timing: a wave that
// waits for something that never comes hangs the test, whatever the interleaving.
#include "testing/kfd_sim/engines/gfx9/gws.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/engines/gfx9/dispatch.h"
#include "testing/kfd_sim/engines/gfx9/gws_code_objects.h"
#include "testing/kfd_sim/engines/gfx9/kernel_runner.h"

namespace hipmem::kfd_sim::gfx9 {
namespace {

TEST(GwsBlockTest, ASemaphoreGivesOutWhatInitAndReleasesPutIn) {
  GwsBlock gws;
  gws.Init(3, 1);
  EXPECT_FALSE(gws.SemaP(3).has_value()) << "the count init gave";
  std::optional<GwsBlock::Wait> wait = gws.SemaP(3);
  ASSERT_TRUE(wait.has_value()) << "the count is spent";
  EXPECT_FALSE(gws.Ready(*wait));
  gws.SemaV(3, 1);
  EXPECT_TRUE(gws.Ready(*wait)) << "sema_v lets one waiter go";
  EXPECT_EQ(gws.counter(3), 0u) << "and the waiter took it";
  gws.SemaV(3, 5);  // sema_br
  EXPECT_EQ(gws.counter(3), 5u);
  EXPECT_EQ(gws.counter(4), 0u) << "resources are independent";
  EXPECT_EQ(gws.counter(3 + GwsBlock::kResources), 5u) << "a resource id wraps at the block's size";
}

TEST(GwsBlockTest, ReleaseAllLetsEveryWaiterGoWithoutTakingTheCount) {
  GwsBlock gws;
  std::optional<GwsBlock::Wait> a = gws.SemaP(0);
  std::optional<GwsBlock::Wait> b = gws.SemaP(0);
  ASSERT_TRUE(a.has_value() && b.has_value());
  gws.SemaReleaseAll(0);
  std::optional<GwsBlock::Wait> later = gws.SemaP(0);  // arrives after the release: waits
  ASSERT_TRUE(later.has_value());
  EXPECT_TRUE(gws.Ready(*a));
  EXPECT_TRUE(gws.Ready(*b));
  EXPECT_FALSE(gws.Ready(*later));
  EXPECT_EQ(gws.counter(0), 0u);
}

TEST(GwsBlockTest, ABarrierReleasesItsRoundWhenValuePlusOneWavesArrived) {
  GwsBlock gws;
  std::vector<GwsBlock::Wait> waiting;
  for (int w = 0; w < 3; ++w) {
    std::optional<GwsBlock::Wait> wait = gws.Barrier(7, 3);  // 4 waves
    ASSERT_TRUE(wait.has_value()) << "wave " << w;
    waiting.push_back(*wait);
  }
  EXPECT_EQ(gws.arrived(7), 3u);
  for (const GwsBlock::Wait& w : waiting) EXPECT_FALSE(gws.Ready(w));
  EXPECT_FALSE(gws.Barrier(7, 3).has_value()) << "the fourth wave completes the round and goes on";
  for (const GwsBlock::Wait& w : waiting) EXPECT_TRUE(gws.Ready(w));
  EXPECT_EQ(gws.arrived(7), 0u);
  std::optional<GwsBlock::Wait> next = gws.Barrier(7, 3);
  ASSERT_TRUE(next.has_value()) << "the next round starts empty";
  EXPECT_FALSE(gws.Ready(*next));
  EXPECT_FALSE(gws.Barrier(9, 0).has_value()) << "a barrier of one wave never waits";
}

TEST(GwsBlockTest, ARoundIsAsLargeAsItsFirstArrivalOrInitSays) {
  GwsBlock gws;
  gws.Init(2, 2);  // CLR's gwsInit: 3 waves
  ASSERT_TRUE(gws.Barrier(2, 0).has_value()) << "init's size wins over a smaller value";
  ASSERT_TRUE(gws.Barrier(2, 0).has_value());
  EXPECT_FALSE(gws.Barrier(2, 0).has_value());
  ASSERT_TRUE(gws.Barrier(5, 0xffffffffu).has_value()) << "the largest value does not wrap to an empty round";
}

class GwsKernelTest : public CodeObjectTest {
 protected:
  // Runs `kernel` over `groups` one-wave workgroups on `units` compute units of the calling thread, on a queue whose
  // global wave sync is gws_.
  absl::StatusOr<RunResult> Run(const char* kernel, uint32_t groups, uint32_t units, const void* args,
                                size_t args_bytes, std::shared_ptr<GwsBlock> gws) {
    absl::StatusOr<uint64_t> kd = code_->KernelObject(kernel);
    if (!kd.ok()) return kd.status();
    memory_.Map(args, args_bytes);
    absl::StatusOr<RunResult> result =
        RunKernel(&memory_, GetParam().target, *kd,
                  Launch{.grid = {groups * 64, 1, 1}, .workgroup = {64, 1, 1}, .kernargs = args,
                         .compute_units = units, .gws = std::move(gws)});
    memory_.Unmap(args);
    return result;
  }
  absl::StatusOr<RunResult> Init(uint32_t value, uint32_t resource) {
    struct {
      uint32_t value;
      uint32_t resource;
      uint32_t hidden[64];
    } args{value, resource, {}};
    return Run("gws_init", 1, 1, &args, sizeof(args), gws_);
  }

  std::shared_ptr<GwsBlock> gws_ = std::make_shared<GwsBlock>();
};

// kfdtest's GWS semaphore case, in our words: a semaphore of count 1 makes a non-atomic read-modify-write of one
// dword exclusive among every wave of the dispatch.
TEST_P(GwsKernelTest, ASemaphoreOfOneMakesAnUpdateExclusive) {
  ASSERT_TRUE(Init(1, 0).ok());
  EXPECT_EQ(gws_->counter(0), 1u);
  constexpr uint32_t kWaves = 48;
  uint32_t value = 0;
  memory_.Map(&value, sizeof(value));
  struct {
    uint32_t* value;
    uint32_t hidden[64];
  } args{&value, {}};
  absl::StatusOr<RunResult> result = Run("locked_increment", kWaves, 2, &args, sizeof(args), gws_);
  memory_.Unmap(&value);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
  EXPECT_EQ(value, kWaves) << "an increment was lost: two waves were inside at once";
  EXPECT_EQ(gws_->counter(0), 1u) << "every wave gave the semaphore back";
}

// ockl's grid sync: every wave of the grid passes the barrier only once all of them reached it, round after round,
// with the resource id in M0.
TEST_P(GwsKernelTest, ABarrierHoldsEveryWaveUntilTheWholeGridArrived) {
  constexpr uint32_t kGroups = 40;  // one wave each: 2 compute units hold all of them resident
  uint32_t arrived[2] = {0, 0};  // per round
  std::vector<uint32_t> seen(2 * kGroups, 0);
  memory_.Map(arrived, sizeof(arrived));
  memory_.Map(seen.data(), seen.size() * 4);
  struct {
    uint32_t* arrived;
    uint32_t* seen;
    uint32_t groups;
    uint32_t resource;
    uint32_t hidden[64];
  } args{arrived, seen.data(), kGroups, 5, {}};
  absl::StatusOr<RunResult> result = Run("barrier_rounds", kGroups, 2, &args, sizeof(args), gws_);
  memory_.Unmap(seen.data());
  memory_.Unmap(arrived);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
  for (uint32_t g = 0; g < kGroups; ++g) {
    EXPECT_EQ(seen[g], kGroups) << "round 1, workgroup " << g;
    EXPECT_EQ(seen[kGroups + g], kGroups) << "round 2, workgroup " << g;
  }
  EXPECT_EQ(gws_->arrived(5), 0u);
}

TEST_P(GwsKernelTest, ABulkReleaseLetsThatManyWaitersGo) {
  constexpr uint32_t kWaiters = 20;
  uint32_t passed = 0;
  memory_.Map(&passed, sizeof(passed));
  struct {
    uint32_t* passed;
    uint32_t waiters;
    uint32_t pad;
    uint32_t hidden[64];
  } args{&passed, kWaiters, 0, {}};
  absl::StatusOr<RunResult> result = Run("bulk_release", kWaiters + 1, 1, &args, sizeof(args), gws_);
  memory_.Unmap(&passed);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_FALSE(result->failure.has_value()) << result->failure->illegal;
  EXPECT_EQ(passed, kWaiters);
  EXPECT_EQ(gws_->counter(1), 0u);
}

// A queue the KFD gave no GWS: the first ds_gws_* is an illegal instruction, not a hang.
TEST_P(GwsKernelTest, WithoutGwsTheDispatchFailsAsIllegal) {
  struct {
    uint32_t value;
    uint32_t resource;
    uint32_t hidden[64];
  } args{1, 0, {}};
  absl::StatusOr<RunResult> result = Run("gws_init", 1, 1, &args, sizeof(args), nullptr);
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_TRUE(result->failure.has_value());
  EXPECT_NE(result->failure->illegal.find("no global wave sync"), std::string::npos) << result->failure->illegal;
}

INSTANTIATE_TEST_SUITE_P(Gfx9, GwsKernelTest,
                         ::testing::ValuesIn(Gfx9Targets(&hipmem_testing::gws_kernels_gfx908,
                                                         &hipmem_testing::gws_kernels_gfx90a,
                                                         &hipmem_testing::gws_kernels_gfx942)),
                         TargetCaseName);

}  // namespace
}  // namespace hipmem::kfd_sim::gfx9
