// The HSA runtime over the real thunk and simulator (default simulated machine).
#include "hsa/runtime.h"
#include "hsa/runtime_testing.h"
#include "hsa/hsa_test_util.h"
#include "hsa/runtime_kfd.h"

#include <cstring>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::SizeIs;

class RuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Runtime>> rt = Runtime::Create();
    ASSERT_THAT(rt, IsOk());
    rt_ = *std::move(rt);
    const hsa_test::RuntimeAgents agents = hsa_test::SplitAgents(*rt_);
    cpu_ = agents.cpu;
    gpu_ = agents.gpus.empty() ? nullptr : agents.gpus.back();
    ASSERT_NE(gpu_, nullptr);
    ASSERT_NE(cpu_, nullptr);
  }

  const MemoryPool& Pool(const Agent& agent, GlobalFlags flags) {
    if (const MemoryPool* pool = hsa_test::GlobalPool(*rt_, agent, flags)) return *pool;
    ADD_FAILURE() << "no such pool";
    return *rt_->GetPool(agent.pools[0]).value();
  }

  std::unique_ptr<Runtime> rt_;
  const Agent* cpu_ = nullptr;
  const Agent* gpu_ = nullptr;
};

TEST_F(RuntimeTest, AgentsAndPoolsLookLikeRocr) {
  EXPECT_EQ(rt_->agents().front().type, DeviceType::kCpu) << "the CPU agent comes first";
  EXPECT_EQ(gpu_->name, "gfx942");
  EXPECT_THAT(cpu_->pools, SizeIs(4));  // fine, extended fine, kernarg, coarse
  const MemoryPool& vram = Pool(*gpu_, GlobalFlags::kCoarseGrained);
  EXPECT_EQ(vram.location, PoolLocation::kGpu);
  EXPECT_EQ(vram.alloc_granule, Bytes::KiB(4));
  EXPECT_EQ(vram.alloc_rec_granule, Bytes::MiB(2));
  EXPECT_EQ(vram.alloc_alignment, Bytes::KiB(4));
  EXPECT_FALSE(vram.accessible_by_all);
  EXPECT_EQ(vram.alloc_max_size, vram.size);
  const MemoryPool& fine = Pool(*cpu_, GlobalFlags::kFineGrained);
  EXPECT_TRUE(fine.accessible_by_all);
  EXPECT_EQ(fine.location, PoolLocation::kCpu);
  const MemoryPool& kernarg = Pool(*cpu_, GlobalFlags::kKernargInit | GlobalFlags::kFineGrained);
  EXPECT_TRUE(kernarg.alloc_allowed);
  // The GROUP (LDS) pool is reported but not allocatable.
  const MemoryPool* group = *rt_->GetPool(gpu_->pools.back());
  EXPECT_EQ(group->segment, Segment::kGroup);
  EXPECT_FALSE(group->alloc_allowed);
  EXPECT_THAT(Unowned(rt_->Allocate(group->id, Bytes(64))), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(ToHsaStatus(Unowned(rt_->Allocate(group->id, Bytes(64))).status()), HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

TEST_F(RuntimeTest, ForeignHandlesAreRefusedWithTheirOwnCodes) {
  EXPECT_EQ(ToHsaStatus(rt_->GetAgent(AgentId(12345)).status()), HSA_STATUS_ERROR_INVALID_AGENT);
  EXPECT_EQ(ToHsaStatus(rt_->GetPool(PoolId(gpu_->id.raw())).status()), static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL))
      << "an agent handle is not a pool handle";
}

TEST_F(RuntimeTest, AllocateRoundsToGranuleAndMapsForTheGpu) {
  const MemoryPool& vram = Pool(*gpu_, GlobalFlags::kCoarseGrained);
  ASSERT_OK_AND_ASSIGN(Bytes before, rt_->MemoryAvailable(gpu_->id));
  ASSERT_OK_AND_ASSIGN(DeviceAddress p, Unowned(rt_->Allocate(vram.id, Bytes(100))));
  ASSERT_OK_AND_ASSIGN(Bytes during, rt_->MemoryAvailable(gpu_->id));
  // The 4 KiB fragment is carved from a 2 MiB block, which is what the KFD hands out.
  EXPECT_EQ(before - during, Bytes::MiB(2));
  std::optional<PointerInfo> info = rt_->FindPointer(p + Bytes(50));
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->allocation.size, Bytes::KiB(4));
  EXPECT_EQ(info->owner, gpu_->id);
  std::optional<thunk::Kfd::AllocationInfo> kfd_info = KfdOf(*rt_).FindAllocation(p);
  ASSERT_TRUE(kfd_info.has_value());
  EXPECT_THAT(kfd_info->mapped_gpus, SizeIs(1));
  EXPECT_EQ(kfd_info->range.size, Bytes::MiB(2));
  ASSERT_THAT(rt_->Free(p), IsOk());
  // The block stays cached, and MEMORY_AVAIL counts it as free.
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), hipmem_testing::IsOkAndHolds(before));
  EXPECT_TRUE(KfdOf(*rt_).FindAllocation(p).has_value());
}

TEST_F(RuntimeTest, BadAllocationsAreRefusedWithRocrCodes) {
  const MemoryPool& vram = Pool(*gpu_, GlobalFlags::kCoarseGrained);
  EXPECT_EQ(ToHsaStatus(Unowned(rt_->Allocate(vram.id, Bytes(0))).status()), HSA_STATUS_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ToHsaStatus(Unowned(rt_->Allocate(vram.id, vram.alloc_max_size + Bytes(1))).status()),
            HSA_STATUS_ERROR_INVALID_ALLOCATION);
  EXPECT_EQ(ToHsaStatus(Unowned(rt_->Allocate(PoolId(1), Bytes(4096))).status()), static_cast<hsa_status_t>(HSA_STATUS_ERROR_INVALID_MEMORY_POOL));
  int local = 0;
  EXPECT_EQ(ToHsaStatus(rt_->Free(DeviceAddress::FromPointer(&local))), HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

TEST_F(RuntimeTest, ShutdownFreesOutstandingAllocations) {
  const MemoryPool& vram = Pool(*gpu_, GlobalFlags::kCoarseGrained);
  ASSERT_OK_AND_ASSIGN(Bytes before, rt_->MemoryAvailable(gpu_->id));
  ASSERT_OK_AND_ASSIGN(DeviceAddress d, Unowned(rt_->Allocate(vram.id, Bytes::MiB(4))));
  (void)d;
  rt_.reset();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Runtime> again, Runtime::Create());
  const Agent* gpu = nullptr;
  for (const Agent& a : again->agents()) {
    if (a.type == DeviceType::kGpu) gpu = &a;
  }
  ASSERT_NE(gpu, nullptr);
  EXPECT_THAT(again->MemoryAvailable(gpu->id), hipmem_testing::IsOkAndHolds(before));
}

}  // namespace
}  // namespace hipmem::hsa
