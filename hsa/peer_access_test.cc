// Peer access to another GPU's VRAM is granted exactly where the KFD topology links the two GPUs, as on ROCr:
// hive peers (2xmi250x, 8xmi300x) see each other's VRAM DISALLOWED_BY_DEFAULT one XGMI hop away and
// hsa_amd_agents_allow_access maps it on the peer; two Radeons without large BAR (2xrx7900xtx) have no link, so
// the VRAM is NEVER_ALLOWED, no hop away, and allow_access is refused with ROCr's status (its KFD map fails:
// OUT_OF_RESOURCES), leaving the peer unmapped.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"

namespace {

struct Expectation {
  const char* preset;
  bool linked;
  hsa_amd_link_info_type_t link_type;  // when linked
};

constexpr Expectation kExpectations[] = {
    {"2xmi250x", true, HSA_AMD_LINK_INFO_TYPE_XGMI},
    {"8xmi300x", true, HSA_AMD_LINK_INFO_TYPE_XGMI},
    {"2xrx7900xtx", false, HSA_AMD_LINK_INFO_TYPE_PCIE},
};

const Expectation* ForThisPreset() {
  const char* env = std::getenv("HIPMEM_SIM_PRESET");
  const std::string name = env == nullptr ? "" : env;
  for (const Expectation& e : kExpectations) {
    if (name == e.preset) return &e;
  }
  return nullptr;
}

hsa_status_t CollectGpu(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  if (type == HSA_DEVICE_TYPE_GPU) static_cast<std::vector<hsa_agent_t>*>(data)->push_back(agent);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t FindCoarseVram(hsa_amd_memory_pool_t pool, void* data) {
  hsa_amd_segment_t segment;
  uint32_t flags = 0;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
      hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS) {
    return HSA_STATUS_ERROR;
  }
  if (segment != HSA_AMD_SEGMENT_GLOBAL || (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) == 0) {
    return HSA_STATUS_SUCCESS;
  }
  *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
  return HSA_STATUS_INFO_BREAK;
}

std::vector<uint64_t> MappedOn(const void* p) {
  hsa_amd_pointer_info_t info{};
  info.size = sizeof(info);
  uint32_t count = 0;
  hsa_agent_t* agents = nullptr;
  EXPECT_EQ(hsa_amd_pointer_info(p, &info, malloc, &count, &agents), HSA_STATUS_SUCCESS);
  std::vector<uint64_t> handles;
  for (uint32_t i = 0; i < count; ++i) handles.push_back(agents[i].handle);
  free(agents);
  return handles;
}

bool Contains(const std::vector<uint64_t>& handles, hsa_agent_t agent) {
  for (uint64_t h : handles) {
    if (h == agent.handle) return true;
  }
  return false;
}

class PeerAccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    expected_ = ForThisPreset();
    ASSERT_NE(expected_, nullptr) << "run with HIPMEM_SIM_PRESET set to a multi-GPU preset of kExpectations";
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(CollectGpu, &gpus_), HSA_STATUS_SUCCESS);
    ASSERT_GE(gpus_.size(), 2u);
  }
  void TearDown() override { EXPECT_EQ(hsa_shut_down(), HSA_STATUS_SUCCESS); }

  hsa_amd_memory_pool_t CoarseVram(hsa_agent_t gpu) {
    hsa_amd_memory_pool_t pool{0};
    EXPECT_EQ(hsa_amd_agent_iterate_memory_pools(gpu, FindCoarseVram, &pool), HSA_STATUS_INFO_BREAK);
    return pool;
  }

  const Expectation* expected_ = nullptr;
  std::vector<hsa_agent_t> gpus_;
};

TEST_F(PeerAccessTest, PoolAccessFollowsTheTopologyLinks) {
  for (hsa_agent_t owner : gpus_) {
    const hsa_amd_memory_pool_t vram = CoarseVram(owner);
    for (hsa_agent_t peer : gpus_) {
      if (peer.handle == owner.handle) continue;
      SCOPED_TRACE(testing::Message() << "peer " << peer.handle << " -> VRAM of " << owner.handle);
      hsa_amd_memory_pool_access_t access{};
      uint32_t hops = 99;
      hsa_amd_memory_pool_link_info_t link{};
      ASSERT_EQ(hsa_amd_agent_memory_pool_get_info(peer, vram, HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS, &access),
                HSA_STATUS_SUCCESS);
      ASSERT_EQ(hsa_amd_agent_memory_pool_get_info(peer, vram, HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS, &hops),
                HSA_STATUS_SUCCESS);
      if (expected_->linked) {
        EXPECT_EQ(access, HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT);
        EXPECT_EQ(hops, 1u);
        ASSERT_EQ(hsa_amd_agent_memory_pool_get_info(peer, vram, HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO, &link),
                  HSA_STATUS_SUCCESS);
        EXPECT_EQ(link.link_type, expected_->link_type);
      } else {
        EXPECT_EQ(access, HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED);
        EXPECT_EQ(hops, 0u) << "no path: not two PCIe hops through the CPU";
      }
    }
  }
}

TEST_F(PeerAccessTest, AllowAccessMapsOnLinkedPeersAndIsRefusedWithoutALink) {
  const hsa_agent_t owner = gpus_[0];
  const hsa_agent_t peer = gpus_[1];
  void* p = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(CoarseVram(owner), 1 << 20, 0, &p), HSA_STATUS_SUCCESS);
  ASSERT_FALSE(Contains(MappedOn(p), peer)) << "not mapped on the peer before a grant";
  const hsa_status_t status = hsa_amd_agents_allow_access(1, &peer, nullptr, p);
  if (expected_->linked) {
    EXPECT_EQ(status, HSA_STATUS_SUCCESS);
    EXPECT_TRUE(Contains(MappedOn(p), peer));
  } else {
    EXPECT_EQ(status, HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    const std::vector<uint64_t> mapped = MappedOn(p);
    EXPECT_FALSE(Contains(mapped, peer)) << "a refused grant maps nothing on the peer";
    EXPECT_TRUE(Contains(mapped, owner)) << "and leaves the owner's mapping";
    // The owner alone is still a valid grant.
    EXPECT_EQ(hsa_amd_agents_allow_access(1, &owner, nullptr, p), HSA_STATUS_SUCCESS);
  }
  EXPECT_EQ(hsa_amd_memory_pool_free(p), HSA_STATUS_SUCCESS);
}

}  // namespace
