// hsa::DescribePoolPath on the two-GPU presets: XGMI-joined MI250X GCDs and PCIe RX 7900 XTX cards without P2P.
#include "hsa/pool_path.h"

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/runtime.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;

std::string Preset() {
  const char* p = std::getenv("HIPMEM_SIM_PRESET");
  return p == nullptr ? "" : p;
}

struct Gpu {
  AgentId agent;
  PoolId coarse_vram;
};

std::vector<Gpu> Gpus(const Runtime& runtime) {
  std::vector<Gpu> gpus;
  for (const Agent& agent : runtime.agents()) {
    if (agent.type != DeviceType::kGpu) continue;
    for (PoolId id : agent.pools) {
      const MemoryPool* pool = *runtime.GetPool(id);
      if (pool->segment == Segment::kGlobal && pool->global_flags == GlobalFlags::kCoarseGrained) {
        gpus.push_back({agent.id, id});
        break;
      }
    }
  }
  return gpus;
}

TEST(PoolPathTest, OwnPoolIsAllowedWithoutHops) {
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create();
  ASSERT_THAT(runtime, IsOk());
  const std::vector<Gpu> gpus = Gpus(**runtime);
  ASSERT_FALSE(gpus.empty());
  absl::StatusOr<PoolPath> path = DescribePoolPath(**runtime, gpus[0].agent, gpus[0].coarse_vram);
  ASSERT_THAT(path, IsOk());
  EXPECT_EQ(path->access, PoolAccess::kAllowedByDefault);
  EXPECT_TRUE(path->hops.empty());
  EXPECT_FALSE(DescribePoolPath(**runtime, AgentId(0xdead), gpus[0].coarse_vram).ok());
  EXPECT_FALSE(DescribePoolPath(**runtime, gpus[0].agent, PoolId(0xdead)).ok());
}

TEST(PoolPathTest, PeerVramOverXgmiOrNotAtAll) {
  absl::StatusOr<std::unique_ptr<Runtime>> runtime = Runtime::Create();
  ASSERT_THAT(runtime, IsOk());
  const std::vector<Gpu> gpus = Gpus(**runtime);
  if (gpus.size() < 2) GTEST_SKIP() << "two GPUs needed";
  absl::StatusOr<PoolPath> path = DescribePoolPath(**runtime, gpus[0].agent, gpus[1].coarse_vram);
  ASSERT_THAT(path, IsOk());
  if (Preset() == "2xmi250x") {
    EXPECT_EQ(path->access, PoolAccess::kDisallowedByDefault) << "reachable after an access grant";
    ASSERT_EQ(path->hops.size(), 1u);
    EXPECT_EQ(path->hops[0].type, LinkType::kXgmi);
    EXPECT_EQ(path->hops[0].numa_distance, 15u) << "the KFD's XGMI io-link weight";
  } else if (Preset() == "2xrx7900xtx") {
    EXPECT_EQ(path->access, PoolAccess::kNeverAllowed) << "no PCIe peer link";
    EXPECT_TRUE(path->hops.empty());
  }
}

}  // namespace
}  // namespace hipmem::hsa
