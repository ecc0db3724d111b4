// CLR over the real HSA runtime, thunk and simulator (default simulated machine).
#include "clr/context.h"

#include <cstring>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::IsOkAndHolds;
using ::hipmem_testing::StatusIs;
using ::testing::Optional;

class ContextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Context>> ctx = Context::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = *std::move(ctx);
    ASSERT_FALSE(ctx_->devices().empty());
    device_ = &ctx_->devices()[0];
  }

  std::unique_ptr<Context> ctx_;
  const Device* device_ = nullptr;
};

// The owner suite (STYLE.md section 8) for Allocation.
TEST_F(ContextTest, AllocationOwnerFreesWhenDestroyed) {
  DeviceAddress base(0);
  {
    ASSERT_OK_AND_ASSIGN(Allocation memory, ctx_->AllocDevice(*device_, Bytes(4096), 0));
    base = memory.address();
    EXPECT_TRUE(ctx_->Find(base).has_value());
  }
  EXPECT_FALSE(ctx_->Find(base).has_value());
  ASSERT_OK_AND_ASSIGN(Allocation host, ctx_->AllocHost(*device_, Bytes(4096), HostCoherence::kCoherent, 0));
  const DeviceAddress host_base = host.address();
  { Allocation gone = std::move(host); }
  EXPECT_FALSE(ctx_->Find(host_base).has_value()) << "host memory has the same owner";
}

TEST_F(ContextTest, AllocationMoveEmptiesTheSourceAndMoveAssignFreesTheOld) {
  ASSERT_OK_AND_ASSIGN(Allocation a, ctx_->AllocDevice(*device_, Bytes(4096), 0));
  ASSERT_OK_AND_ASSIGN(Allocation b, ctx_->AllocDevice(*device_, Bytes(4096), 0));
  const DeviceAddress a_base = a.address();
  const DeviceAddress b_base = b.address();
  Allocation moved = std::move(a);
  EXPECT_THAT(std::move(a).Free(), StatusIs(absl::StatusCode::kFailedPrecondition)) << "the source is empty";
  EXPECT_TRUE(ctx_->Find(a_base).has_value());
  moved = std::move(b);
  EXPECT_FALSE(ctx_->Find(a_base).has_value()) << "move-assign frees what the target held";
  EXPECT_TRUE(ctx_->Find(b_base).has_value());
  Allocation& alias = moved;
  moved = std::move(alias);
  EXPECT_TRUE(ctx_->Find(b_base).has_value()) << "self-move keeps the allocation";
  EXPECT_THAT(std::move(moved).Free(), IsOk());
  EXPECT_FALSE(ctx_->Find(b_base).has_value());
}

TEST_F(ContextTest, AllocationFreeReportsAndReleaseHandsItToTheContext) {
  ASSERT_OK_AND_ASSIGN(Allocation memory, ctx_->AllocDevice(*device_, Bytes(4096), 0));
  // hipDeviceReset frees the device's memory behind the owner's back: the owner's free reports it.
  ASSERT_THAT(ctx_->FreeDeviceMemory(*device_), IsOk());
  EXPECT_THAT(std::move(memory).Free(), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(Allocation kept, ctx_->AllocDevice(*device_, Bytes(4096), 0));
  const DeviceAddress kept_base = std::move(kept).Release();
  EXPECT_TRUE(ctx_->Find(kept_base).has_value()) << "released memory stays the context's";
  EXPECT_THAT(ctx_->Free(kept_base), IsOk());
  EXPECT_THAT(Released(ctx_->AllocDevice(*device_, device_->max_alloc_size + Bytes(1), 0)),
              StatusIs(absl::StatusCode::kResourceExhausted));
}

TEST_F(ContextTest, DevicePicksDistinctVramAndHostPools) {
  EXPECT_NE(device_->device_pool, device_->host_pool);
  EXPECT_NE(device_->host_pool, device_->host_coarse_pool);
  EXPECT_EQ(device_->max_alloc_size, device_->global_mem_size) << "GPU_SINGLE_ALLOC_PERCENT defaults to 100";
  EXPECT_THAT(ctx_->GetDevice(1), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ContextTest, InteriorPointersResolveToTheirObject) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress base, Released(ctx_->AllocDevice(*device_, Bytes(10000), 0)));
  std::optional<MemObjRef> ref = ctx_->Find(base + Bytes(1234));
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->desc.range.base, base);
  EXPECT_EQ(ref->desc.range.size, Bytes(10000));
  EXPECT_EQ(ref->offset, Bytes(1234));
  EXPECT_EQ(ref->desc.kind, MemoryKind::kDevice);
  EXPECT_FALSE(ctx_->Find(base + Bytes(10000)).has_value()) << "one past the end is not inside";
  EXPECT_THAT(ctx_->Free(base + Bytes(1)), StatusIs(absl::StatusCode::kNotFound)) << "interior pointers are not freed";
  EXPECT_THAT(ctx_->Free(base), IsOk());
  EXPECT_FALSE(ctx_->Find(base).has_value());
  EXPECT_THAT(ctx_->Free(base), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(ContextTest, OversizedAllocationFailsWithoutReachingTheDriver) {
  ASSERT_OK_AND_ASSIGN(MemInfo before, ctx_->GetMemInfo(*device_));
  EXPECT_THAT(ctx_->AllocDevice(*device_, device_->max_alloc_size + Bytes(1), 0),
              StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_THAT(ctx_->GetMemInfo(*device_), IsOkAndHolds(testing::Field(&MemInfo::free, before.free)));
}

TEST_F(ContextTest, MemInfoFreeDropsByTheAllocationAndComesBack) {
  ASSERT_OK_AND_ASSIGN(MemInfo before, ctx_->GetMemInfo(*device_));
  EXPECT_EQ(before.total, device_->global_mem_size);
  ASSERT_OK_AND_ASSIGN(DeviceAddress dev, Released(ctx_->AllocDevice(*device_, Bytes::MiB(8), 0)));
  ASSERT_OK_AND_ASSIGN(MemInfo during, ctx_->GetMemInfo(*device_));
  EXPECT_EQ(before.free - during.free, Bytes::MiB(8));
  ASSERT_THAT(ctx_->Free(dev), IsOk());
  EXPECT_THAT(ctx_->GetMemInfo(*device_), IsOkAndHolds(testing::Field(&MemInfo::free, before.free)));
}

TEST_F(ContextTest, DestroyingTheContextFreesLiveObjects) {
  ASSERT_OK_AND_ASSIGN(MemInfo before, ctx_->GetMemInfo(*device_));
  ASSERT_OK_AND_ASSIGN(DeviceAddress dev, Released(ctx_->AllocDevice(*device_, Bytes::MiB(2), 0)));
  (void)dev;
  ctx_.reset();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Context> again, Context::Create());
  EXPECT_THAT(again->GetMemInfo(again->devices()[0]), IsOkAndHolds(testing::Field(&MemInfo::free, before.free)));
}

TEST_F(ContextTest, RegisteredMemoryIsFoundAndReleasedByUnregister) {
  constexpr size_t kSize = 3 * 4096 + 100;  // not page-sized: the lock covers the pages around it
  std::vector<unsigned char> user(kSize, 0x42);
  const DeviceAddress host = DeviceAddress::FromPointer(user.data());
  ASSERT_OK_AND_ASSIGN(DeviceAddress gpu, ctx_->RegisterHost(*device_, host, Bytes(kSize), 0));
  EXPECT_NE(gpu.raw(), 0u);

  std::optional<MemObjRef> ref = ctx_->Find(host + Bytes(kSize - 1));
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->desc.kind, MemoryKind::kRegistered);
  EXPECT_EQ(ref->desc.range.base, host);
  EXPECT_EQ(ref->desc.gpu_address, gpu);

  // Copies through registered memory: blit_manager_test (RegisteredMemoryIsReachedThroughItsGpuAddress).
  ASSERT_OK_AND_ASSIGN(DeviceAddress dev, Released(ctx_->AllocDevice(*device_, Bytes(kSize), 0)));

  EXPECT_THAT(ctx_->Free(host), StatusIs(absl::StatusCode::kFailedPrecondition)) << "hipFree of registered memory";
  EXPECT_TRUE(ctx_->Find(host).has_value()) << "a refused free leaves the registration";
  EXPECT_THAT(ctx_->UnregisterHost(host + Bytes(1)), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(ctx_->UnregisterHost(dev), StatusIs(absl::StatusCode::kNotFound)) << "an allocation is not registered";
  EXPECT_TRUE(ctx_->Find(dev).has_value()) << "a refused unregister leaves the allocation";
  EXPECT_THAT(ctx_->UnregisterHost(host), IsOk());
  EXPECT_FALSE(ctx_->Find(host).has_value());
  EXPECT_THAT(ctx_->UnregisterHost(host), StatusIs(absl::StatusCode::kNotFound));
  // Registering again after unregistering works: nothing of the first lock is left behind.
  ASSERT_OK_AND_ASSIGN(DeviceAddress again, ctx_->RegisterHost(*device_, host, Bytes(kSize), 0));
  EXPECT_NE(again.raw(), 0u);
  EXPECT_THAT(ctx_->UnregisterHost(host), IsOk());
  EXPECT_THAT(ctx_->Free(dev), IsOk());
}

TEST_F(ContextTest, RegisteringRefusesBadAndOverlappingRanges) {
  std::vector<unsigned char> user(8192, 0);
  const DeviceAddress host = DeviceAddress::FromPointer(user.data());
  EXPECT_THAT(ctx_->RegisterHost(*device_, DeviceAddress(0), Bytes(4096), 0),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ctx_->RegisterHost(*device_, host, Bytes(0), 0), StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_THAT(ctx_->RegisterHost(*device_, host, Bytes(4096), 0), IsOk());
  EXPECT_THAT(ctx_->RegisterHost(*device_, host, Bytes(4096), 0), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(ctx_->RegisterHost(*device_, host + Bytes(4095), Bytes(100), 0),
              StatusIs(absl::StatusCode::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(DeviceAddress pinned, Released(ctx_->AllocHost(*device_, Bytes(4096), HostCoherence::kCoherent, 0)));
  EXPECT_THAT(ctx_->RegisterHost(*device_, pinned, Bytes(4096), 0), StatusIs(absl::StatusCode::kAlreadyExists))
      << "memory the runtime allocated is already known";
  EXPECT_THAT(ctx_->UnregisterHost(host), IsOk());
  EXPECT_THAT(ctx_->Free(pinned), IsOk());
}

TEST_F(ContextTest, RegistrationsStillHeldAreReleasedWithTheContext) {
  std::vector<unsigned char> user(4096, 0);
  ASSERT_THAT(ctx_->RegisterHost(*device_, DeviceAddress::FromPointer(user.data()), Bytes(4096), 0), IsOk());
  ctx_.reset();  // must unlock (ASan/LSan and the simulator's accounting would notice a leak)
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Context> again, Context::Create());
  EXPECT_THAT(again->RegisterHost(again->devices()[0], DeviceAddress::FromPointer(user.data()), Bytes(4096), 0),
              IsOk());
  EXPECT_THAT(again->UnregisterHost(DeviceAddress::FromPointer(user.data())), IsOk());
}

}  // namespace
}  // namespace hipmem::clr
