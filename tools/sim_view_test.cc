// `hipmem info`'s simulator section and `hipmem dmesg` reflect what the stack really did: an allocation and
// a copy made through the public HSA C API in this process show up as a buffer, an SDMA queue, VRAM use and
// log lines of the process's simulated machine.
#include "tools/sim_view.h"

#include <stdlib.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "testing/status_matchers.h"
#include "thunk/device_controls.h"
#include "thunk/kfd.h"
#include "thunk/svm.h"

namespace hipmem::tools {
namespace {

using ::hipmem_testing::IsOk;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

struct Pools {
  hsa_amd_memory_pool_t gpu{};
  hsa_amd_memory_pool_t system{};
  bool have_gpu = false;
  bool have_system = false;
};

hsa_status_t FindPool(hsa_amd_memory_pool_t pool, void* data) {
  auto* pools = static_cast<Pools*>(data);
  hsa_amd_segment_t segment;
  hsa_amd_memory_pool_location_t location;
  bool allowed = false;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
      hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_LOCATION, &location) != HSA_STATUS_SUCCESS ||
      hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &allowed) !=
          HSA_STATUS_SUCCESS) {
    return HSA_STATUS_ERROR;
  }
  if (segment != HSA_AMD_SEGMENT_GLOBAL || !allowed) return HSA_STATUS_SUCCESS;
  if (location == HSA_AMD_MEMORY_POOL_LOCATION_GPU && !pools->have_gpu) {
    pools->gpu = pool;
    pools->have_gpu = true;
  } else if (location == HSA_AMD_MEMORY_POOL_LOCATION_CPU && !pools->have_system) {
    pools->system = pool;
    pools->have_system = true;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t FindPools(hsa_agent_t agent, void* data) {
  return hsa_amd_agent_iterate_memory_pools(agent, FindPool, data);
}

class SimViewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The test always runs on the simulator, also on a machine with a GPU.
    ASSERT_EQ(setenv("HIPMEM_KFD_BACKEND", "sim", 1), 0);
    ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);
    ASSERT_EQ(hsa_iterate_agents(FindPools, &pools_), HSA_STATUS_SUCCESS);
    ASSERT_TRUE(pools_.have_gpu && pools_.have_system);
  }
  void TearDown() override { hsa_shut_down(); }

  Pools pools_;
};

TEST_F(SimViewTest, InfoSectionShowsTheBufferAndQueueACopyMade) {
  constexpr size_t kBytes = size_t{1} << 20;
  void* device = nullptr;
  void* host = nullptr;
  ASSERT_EQ(hsa_amd_memory_pool_allocate(pools_.gpu, kBytes, 0, &device), HSA_STATUS_SUCCESS);
  ASSERT_EQ(hsa_amd_memory_pool_allocate(pools_.system, kBytes, 0, &host), HSA_STATUS_SUCCESS);
  std::memset(host, 0x5a, kBytes);
  // A copy to VRAM runs on the GPU's SDMA queue, which the runtime creates on first use.
  ASSERT_EQ(hsa_memory_copy(device, host, kBytes), HSA_STATUS_SUCCESS);

  ASSERT_OK_AND_ASSIGN(const std::string info, SimulatorSection());
  EXPECT_THAT(info, HasSubstr("=====================\nSimulator\n=====================\n"));
  EXPECT_THAT(info, HasSubstr("Process "));
  EXPECT_THAT(info, HasSubstr(absl::StrCat("va 0x", absl::Hex(reinterpret_cast<uintptr_t>(device)))))
      << "the device allocation is a buffer at its own address\n"
      << info;
  EXPECT_THAT(info, HasSubstr("size 1 MiB"));
  EXPECT_THAT(info, HasSubstr("VRAM|"));
  EXPECT_THAT(info, AllOf(HasSubstr(" SDMA "), HasSubstr("active"))) << info;
  EXPECT_THAT(info, HasSubstr("VRAM gpu 0x"));
  EXPECT_THAT(info, Not(HasSubstr("0 B used of"))) << "both VRAM and system memory are in use\n" << info;

  ASSERT_OK_AND_ASSIGN(const std::string dmesg, SimulatorDmesg());
  EXPECT_THAT(dmesg, AllOf(HasSubstr("opened /dev/kfd"), HasSubstr("created SDMA queue"))) << dmesg;

  EXPECT_EQ(hsa_amd_memory_pool_free(device), HSA_STATUS_SUCCESS);
  EXPECT_EQ(hsa_amd_memory_pool_free(host), HSA_STATUS_SUCCESS);
}

// A KFD process of its own (as a second library in the application would open) gives a piece of its memory SVM
// attributes with XNACK on: the section lists the range under that process with where it lives and who maps it.
TEST_F(SimViewTest, InfoSectionShowsAProcesssSvmRangesWithTheirLocationAndMappings) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<thunk::Kfd> kfd, thunk::Kfd::Open());
  ASSERT_THAT(thunk::SetXnackMode(*kfd, true), IsOk());
  ASSERT_OK_AND_ASSIGN(const thunk::NodeProperties* gpu, kfd->Node(thunk::NodeId(1)));
  ASSERT_TRUE(gpu->gpu_id.has_value());
  const std::string gpu_id = absl::StrCat("0x", absl::Hex(gpu->gpu_id->raw()));
  constexpr size_t kBytes = 64 << 10;
  void* mem = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mem, MAP_FAILED);
  const DeviceAddress start(reinterpret_cast<uintptr_t>(mem));
  const thunk::SvmAttribute attrs[] = {{thunk::SvmAttrType::kAccessInPlace, 1}, {thunk::SvmAttrType::kPrefetchLoc, 1}};
  ASSERT_THAT(thunk::SvmSetAttr(*kfd, start, Bytes(kBytes), attrs), IsOk());

  ASSERT_OK_AND_ASSIGN(const std::string info, SimulatorSection());
  ASSERT_OK_AND_ASSIGN(const std::string dmesg, SimulatorDmesg());
  // Without userfaultfd the simulator keeps ranges in system memory (and says so once in its log).
  const bool in_vram = dmesg.find("ranges stay in system memory") == std::string::npos;
  EXPECT_THAT(info, HasSubstr("XNACK:                   on")) << info;
  EXPECT_THAT(info, HasSubstr("SVM ranges:              1\n")) << info;
  EXPECT_THAT(info, HasSubstr(absl::StrCat("    svm ", absl::StrCat("0x", absl::Hex(start.raw())))));
  EXPECT_THAT(info, HasSubstr("size 64 KiB"));
  EXPECT_THAT(info, HasSubstr(in_vram ? absl::StrCat(" in VRAM ", gpu_id) : std::string(" in system "))) << info;
  EXPECT_THAT(info, HasSubstr(absl::StrCat("mapped on ", gpu_id))) << info;
  EXPECT_THAT(info, HasSubstr(absl::StrCat("preferred none prefetch ", gpu_id))) << info;

  // Back in system memory and no longer anyone's to map: the line follows.
  const thunk::SvmAttribute back[] = {{thunk::SvmAttrType::kNoAccess, 1}, {thunk::SvmAttrType::kPrefetchLoc, 0}};
  ASSERT_THAT(thunk::SvmSetAttr(*kfd, start, Bytes(kBytes), back), IsOk());
  ASSERT_OK_AND_ASSIGN(const std::string after, SimulatorSection());
  EXPECT_THAT(after, HasSubstr("in system        mapped on none     preferred none prefetch system")) << after;
  kfd.reset();
  munmap(mem, kBytes);
}

TEST_F(SimViewTest, ShuttingTheRuntimeDownClosesItsProcessInTheLog) {
  hsa_shut_down();
  ASSERT_OK_AND_ASSIGN(const std::string dmesg, SimulatorDmesg());
  EXPECT_THAT(dmesg, HasSubstr("closed /dev/kfd: released")) << dmesg;
  ASSERT_OK_AND_ASSIGN(const std::string info, SimulatorSection());
  EXPECT_THAT(info, HasSubstr("Processes:                 0\n")) << info;
  ASSERT_EQ(hsa_init(), HSA_STATUS_SUCCESS);  // for TearDown
}

TEST(SimViewBackendTest, AnotherBackendIsSaidToHaveNoSimulator) {
  ASSERT_EQ(setenv("HIPMEM_KFD_BACKEND", "linux", 1), 0);
  EXPECT_FALSE(SimulatorInUse());
  ASSERT_OK_AND_ASSIGN(const std::string info, SimulatorSection());
  EXPECT_THAT(info, HasSubstr("Not in use"));
  ASSERT_OK_AND_ASSIGN(const std::string dmesg, SimulatorDmesg());
  EXPECT_THAT(dmesg, HasSubstr("Linux driver"));
  ASSERT_EQ(setenv("HIPMEM_KFD_BACKEND", "sim", 1), 0);
  EXPECT_TRUE(SimulatorInUse());
}

}  // namespace
}  // namespace hipmem::tools
