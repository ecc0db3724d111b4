// The runtime's MemoryManager over the real thunk and simulator: the fragment allocator's trim-and-retry when
// the KFD runs out of VRAM, and HSA_DISABLE_FRAGMENT_ALLOCATOR (this file also runs with it set).
#include "hsa/memory.h"

#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"
#include "hsa/runtime_kfd.h"
#include "hsa/runtime_testing.h"
#include "testing/status_matchers.h"
#include "thunk/kfd_testing.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;

bool FragmentsDisabled() {
  const char* v = std::getenv("HSA_DISABLE_FRAGMENT_ALLOCATOR");
  return v != nullptr && std::string(v) == "1";
}

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(rt_, Runtime::Create());
    for (const Agent& a : rt_->agents()) {
      if (a.type == DeviceType::kGpu && gpu_ == nullptr) gpu_ = &a;
    }
    ASSERT_NE(gpu_, nullptr);
    for (PoolId id : gpu_->pools) {
      const MemoryPool* p = *rt_->GetPool(id);
      if (p->segment == Segment::kGlobal && p->global_flags == GlobalFlags::kCoarseGrained) vram_ = p;
    }
    ASSERT_NE(vram_, nullptr);
  }

  // Takes all of the GPU's VRAM but `left` with one KFD buffer of the test's own.
  void LeaveOnly(Bytes left) {
    ASSERT_OK_AND_ASSIGN(Bytes available, KfdOf(*rt_).AvailableMemory(KfdNodeOf(*rt_, *gpu_)));
    ASSERT_GT(available, left);
    ASSERT_OK_AND_ASSIGN(hog_, thunk::Unowned(KfdOf(*rt_).AllocMemory(KfdNodeOf(*rt_, *gpu_), available - left,
                                                       thunk::MemFlags::kNonPaged | thunk::MemFlags::kNoSubstitute)));
    ASSERT_THAT(KfdOf(*rt_).AvailableMemory(KfdNodeOf(*rt_, *gpu_)), IsOkAndHolds(left));
  }
  void TearDown() override {
    if (hog_.has_value()) {
      EXPECT_THAT(KfdOf(*rt_).FreeMemory(*hog_), IsOk());
    }
  }

  std::unique_ptr<Runtime> rt_;
  const Agent* gpu_ = nullptr;
  const MemoryPool* vram_ = nullptr;
  std::optional<DeviceAddress> hog_;
};

TEST_F(MemoryTest, RecommendedGranuleFollowsTheFragmentAllocatorSwitch) {
  EXPECT_EQ(vram_->alloc_rec_granule, FragmentsDisabled() ? Bytes::KiB(4) : Bytes::MiB(2));
}

TEST_F(MemoryTest, SmallAllocationTakesABlockOrItsOwnPages) {
  ASSERT_OK_AND_ASSIGN(Bytes before, rt_->MemoryAvailable(gpu_->id));
  ASSERT_OK_AND_ASSIGN(DeviceAddress p, Unowned(rt_->Allocate(vram_->id, Bytes::KiB(64))));
  ASSERT_OK_AND_ASSIGN(Bytes during, rt_->MemoryAvailable(gpu_->id));
  EXPECT_EQ(before - during, FragmentsDisabled() ? Bytes::KiB(64) : Bytes::MiB(2));
  std::optional<thunk::Kfd::AllocationInfo> buffer = KfdOf(*rt_).FindAllocation(p);
  ASSERT_TRUE(buffer.has_value());
  EXPECT_EQ(buffer->range.size, FragmentsDisabled() ? Bytes::KiB(64) : Bytes::MiB(2));
  ASSERT_THAT(rt_->Free(p), IsOk());
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), IsOkAndHolds(before));
  // Disabled, the free goes straight back to the KFD; enabled, the block stays cached.
  EXPECT_EQ(KfdOf(*rt_).FindAllocation(p).has_value(), !FragmentsDisabled());
}

TEST_F(MemoryTest, KfdOutOfMemoryTrimsTheCacheAndRetries) {
  if (FragmentsDisabled()) GTEST_SKIP() << "no cache to trim";
  LeaveOnly(Bytes::MiB(6));
  // Three whole blocks, then two back: the cache keeps both (4 MiB is not above twice the 2 MiB in use).
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(2))));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(2))));
  ASSERT_OK_AND_ASSIGN(DeviceAddress c, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(2))));
  ASSERT_THAT(rt_->Free(a), IsOk());
  ASSERT_THAT(rt_->Free(b), IsOk());
  EXPECT_THAT(KfdOf(*rt_).AvailableMemory(KfdNodeOf(*rt_, *gpu_)), IsOkAndHolds(Bytes(0)));
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), IsOkAndHolds(Bytes::MiB(4))) << "cached blocks count as available";

  // A 4 MiB buffer of its own: the KFD has nothing, the cache gives its blocks back, the retry succeeds.
  ASSERT_OK_AND_ASSIGN(DeviceAddress big, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(4), PoolAllocFlags::kPcie)));
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), IsOkAndHolds(Bytes(0)));
  ASSERT_THAT(rt_->Free(big), IsOk());

  // Again through the fragment allocator itself: a 4 MiB request gets its own block, and the trim that makes
  // room runs on the very allocator asking.
  ASSERT_OK_AND_ASSIGN(DeviceAddress d, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(2))));
  ASSERT_THAT(rt_->Free(d), IsOk());  // cached again
  ASSERT_THAT(rt_->Free(c), IsOk());  // nothing in use: the balance keeps one cached block and returns the other
  EXPECT_THAT(KfdOf(*rt_).AvailableMemory(KfdNodeOf(*rt_, *gpu_)), IsOkAndHolds(Bytes::MiB(4)));
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), IsOkAndHolds(Bytes::MiB(6)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress e, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(6))));
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), IsOkAndHolds(Bytes(0)));

  // Nothing cached and nothing free: the KFD's refusal is OUT_OF_RESOURCES.
  absl::StatusOr<DeviceAddress> refused = Unowned(rt_->Allocate(vram_->id, Bytes::KiB(4)));
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(ToHsaStatus(refused.status()), HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  ASSERT_THAT(rt_->Free(e), IsOk());
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), IsOkAndHolds(Bytes::MiB(6))) << "a large block is never cached";
}

TEST_F(MemoryTest, FreeOfAnInteriorPointerIsInvalidAllocation) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress p, Unowned(rt_->Allocate(vram_->id, Bytes::KiB(8))));
  EXPECT_EQ(ToHsaStatus(rt_->Free(p + Bytes::KiB(4))), HSA_STATUS_ERROR_INVALID_ALLOCATION);
  ASSERT_THAT(rt_->Free(p), IsOk());
  EXPECT_EQ(ToHsaStatus(rt_->Free(p)), HSA_STATUS_ERROR_INVALID_ALLOCATION);
}

// The runtime's map out of step with the KFD: an allocation freed through the thunk behind the runtime's back
// keeps its record, and the KFD hands the same range out again. The runtime refuses the new allocation (its record
// would overlap the stale one) and must leave nothing behind.
TEST_F(MemoryTest, RefusedRecordGivesTheKfdAllocationBack) {
  thunk::Kfd& kfd = KfdOf(*rt_);
  const thunk::NodeId node = KfdNodeOf(*rt_, *gpu_);
  // PCIe-coherent: a KFD buffer of its own, never a fragment.
  ASSERT_OK_AND_ASSIGN(DeviceAddress stale, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(2), PoolAllocFlags::kPcie)));
  ASSERT_THAT(kfd.FreeMemory(stale), IsOk());
  ASSERT_OK_AND_ASSIGN(Bytes before, kfd.AvailableMemory(node));
  absl::StatusOr<PoolAllocation> again = rt_->Allocate(vram_->id, Bytes::MiB(2), PoolAllocFlags::kPcie);
  ASSERT_THAT(again, StatusIs(absl::StatusCode::kAlreadyExists)) << "the KFD gave the same range again";
  EXPECT_THAT(kfd.AvailableMemory(node), IsOkAndHolds(before)) << "the refused buffer went back to the KFD";
  EXPECT_FALSE(kfd.FindAllocation(stale).has_value());
}

TEST_F(MemoryTest, RefusedRecordGivesTheFragmentBack) {
  if (FragmentsDisabled()) GTEST_SKIP() << "no fragments";
  thunk::Kfd& kfd = KfdOf(*rt_);
  ASSERT_OK_AND_ASSIGN(DeviceAddress stale, Unowned(rt_->Allocate(vram_->id, Bytes::MiB(2), PoolAllocFlags::kPcie)));
  ASSERT_THAT(kfd.FreeMemory(stale), IsOk());
  ASSERT_OK_AND_ASSIGN(Bytes before, rt_->MemoryAvailable(gpu_->id));
  // A new 2 MiB block lands on the stale record, and the fragment carved from it cannot be recorded.
  absl::StatusOr<PoolAllocation> fragment = rt_->Allocate(vram_->id, Bytes::KiB(64));
  ASSERT_THAT(fragment, StatusIs(absl::StatusCode::kAlreadyExists)) << "the KFD gave the same range again";
  // The block stays cached, free again: a fragment kept in use would hold it (and count as unavailable).
  EXPECT_THAT(rt_->MemoryAvailable(gpu_->id), IsOkAndHolds(before));
}

// The owner suite (STYLE.md section 8) for HostLock: a locked range reads as kLocked until its owner lets it go.
class HostLockTest : public MemoryTest {
 protected:
  PointerType TypeOf(const std::vector<unsigned char>& buffer) const {
    return rt_->memory().Describe(buffer.data()).type;
  }
  absl::StatusOr<HostLock> LockOf(std::vector<unsigned char>& buffer) {
    return rt_->memory().Lock(buffer.data(), Bytes(buffer.size()), {}, std::nullopt);
  }
};

TEST_F(HostLockTest, DestructorUnlocks) {
  std::vector<unsigned char> user(8192, 1);
  {
    ASSERT_OK_AND_ASSIGN(HostLock lock, LockOf(user));
    EXPECT_EQ(lock.host(), user.data());
    EXPECT_NE(lock.gpu_address().raw(), 0u);
    EXPECT_EQ(TypeOf(user), PointerType::kLocked);
  }
  EXPECT_EQ(TypeOf(user), PointerType::kUnknown);
}

TEST_F(HostLockTest, MoveEmptiesTheSourceAndMoveAssignUnlocksTheOld) {
  std::vector<unsigned char> a(4096, 1), b(4096, 2);
  ASSERT_OK_AND_ASSIGN(HostLock first, LockOf(a));
  ASSERT_OK_AND_ASSIGN(HostLock second, LockOf(b));
  HostLock moved = std::move(first);
  EXPECT_THAT(std::move(first).Unlock(), StatusIs(absl::StatusCode::kFailedPrecondition)) << "the source is empty";
  EXPECT_EQ(TypeOf(a), PointerType::kLocked);
  moved = std::move(second);
  EXPECT_EQ(TypeOf(a), PointerType::kUnknown) << "move-assign unlocks what the target held";
  EXPECT_EQ(TypeOf(b), PointerType::kLocked);
  HostLock& alias = moved;
  moved = std::move(alias);
  EXPECT_EQ(TypeOf(b), PointerType::kLocked) << "self-move keeps the lock";
  EXPECT_THAT(std::move(moved).Unlock(), IsOk());
  EXPECT_EQ(TypeOf(b), PointerType::kUnknown);
  EXPECT_THAT(std::move(moved).Unlock(), StatusIs(absl::StatusCode::kFailedPrecondition)) << "unlocked once only";
}

TEST_F(HostLockTest, ReleaseLeavesTheMemoryLockedForTheCApi) {
  std::vector<unsigned char> user(4096, 1);
  DeviceAddress gpu(0);
  {
    ASSERT_OK_AND_ASSIGN(HostLock lock, LockOf(user));
    gpu = std::move(lock).Release();
  }
  EXPECT_NE(gpu.raw(), 0u);
  EXPECT_EQ(TypeOf(user), PointerType::kLocked);
  EXPECT_THAT(rt_->memory().Unlock(user.data()), IsOk());
  EXPECT_EQ(TypeOf(user), PointerType::kUnknown);
}

TEST_F(HostLockTest, FailedLockLeavesNothingLocked) {
  std::vector<unsigned char> user(4096, 1);
  EXPECT_THAT(rt_->memory().Lock(user.data(), Bytes(0), {}, std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(TypeOf(user), PointerType::kUnknown);
}

}  // namespace
}  // namespace hipmem::hsa
