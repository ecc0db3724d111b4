// ManagedMemory: hipMallocManaged's buffers in ROCclr -- allocation into the object map, advice read back,
// stream-ordered prefetch both ways with the data intact and the VRAM accounted, copies into managed memory, and
// release. Built per preset (BUILD): mi300x and 2xmi250x.
#include "clr/svm.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "clr/blit_manager.h"
#include "clr/context.h"
#include "clr/stream.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::ElementsAre;

constexpr Bytes kSize = Bytes::MiB(2);

class ManagedMemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(ctx_, Context::Create());
    managed_ = std::make_unique<ManagedMemory>(*ctx_);
    ASSERT_OK_AND_ASSIGN(stream_, Stream::Create(*ctx_, ctx_->devices()[0]));
  }
  void TearDown() override {
    stream_.reset();
    managed_.reset();
    ctx_.reset();
  }
  Bytes Available(int device) { return *ctx_->runtime().MemoryAvailable(ctx_->devices()[device].agent); }

  std::unique_ptr<Context> ctx_;
  std::unique_ptr<ManagedMemory> managed_;
  std::unique_ptr<Stream> stream_;
};

TEST_F(ManagedMemoryTest, AllocationIsAManagedObjectAndFreeReleasesIt) {
  ASSERT_OK_AND_ASSIGN(const DeviceAddress p, managed_->Allocate(ctx_->devices()[0], Bytes(1000), 1));
  const std::optional<MemObjRef> ref = ctx_->Find(p + Bytes(999));
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->desc.kind, MemoryKind::kManaged);
  EXPECT_EQ(ref->desc.range.size, Bytes(4096)) << "whole pages";
  EXPECT_EQ(ref->desc.user_flags, 1u);
  std::memset(p.ToPointer(), 0x11, 1000);  // the CPU owns it from the start
  EXPECT_THAT(ctx_->Free(p + Bytes(8)), StatusIs(absl::StatusCode::kNotFound)) << "an interior pointer";
  EXPECT_THAT(ctx_->Free(p), IsOk());
  EXPECT_FALSE(ctx_->Find(p).has_value());
  EXPECT_THAT(managed_->Allocate(ctx_->devices()[0], Bytes(0), 1), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(ManagedMemoryTest, AdviceReadsBack) {
  ASSERT_OK_AND_ASSIGN(const DeviceAddress p, managed_->Allocate(ctx_->devices()[0], kSize, 1));
  ASSERT_OK_AND_ASSIGN(ManagedRangeAttributes fresh, managed_->GetAttributes(p, kSize));
  EXPECT_FALSE(fresh.read_mostly);
  EXPECT_EQ(fresh.preferred_location, std::nullopt);
  EXPECT_EQ(fresh.last_prefetch, std::nullopt);
  EXPECT_TRUE(fresh.accessed_by.empty());
  EXPECT_EQ(fresh.grain, hsa::SvmGrain::kFineGrained);

  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kSetReadMostly, 0), IsOk());
  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kSetPreferredLocation, kCpuDeviceId), IsOk());
  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kSetAccessedBy, 0), IsOk());
  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kSetCoarseGrain, 0), IsOk());
  ASSERT_OK_AND_ASSIGN(ManagedRangeAttributes set, managed_->GetAttributes(p, kSize));
  EXPECT_TRUE(set.read_mostly);
  EXPECT_EQ(set.preferred_location, kCpuDeviceId);
  EXPECT_THAT(set.accessed_by, ElementsAre(0));
  EXPECT_EQ(set.grain, hsa::SvmGrain::kCoarseGrained);

  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kUnsetReadMostly, 0), IsOk());
  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kSetPreferredLocation, 0), IsOk());
  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kUnsetAccessedBy, 0), IsOk());
  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kUnsetCoarseGrain, 0), IsOk());
  ASSERT_OK_AND_ASSIGN(ManagedRangeAttributes unset, managed_->GetAttributes(p, kSize));
  EXPECT_FALSE(unset.read_mostly);
  EXPECT_EQ(unset.preferred_location, 0);
  EXPECT_TRUE(unset.accessed_by.empty());
  EXPECT_EQ(unset.grain, hsa::SvmGrain::kFineGrained);
  ASSERT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kUnsetPreferredLocation, 0), IsOk());
  ASSERT_OK_AND_ASSIGN(ManagedRangeAttributes cleared, managed_->GetAttributes(p, kSize));
  EXPECT_EQ(cleared.preferred_location, std::nullopt);
}

TEST_F(ManagedMemoryTest, BadRangesAndAdviceAreInvalidArguments) {
  ASSERT_OK_AND_ASSIGN(const DeviceAddress p, managed_->Allocate(ctx_->devices()[0], kSize, 1));
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Released(ctx_->AllocDevice(ctx_->devices()[0], kSize, 0)));
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  EXPECT_THAT(managed_->Advise(p, kSize + Bytes(1), MemoryAdvice::kSetReadMostly, 0), StatusIs(kInvalid));
  EXPECT_THAT(managed_->Advise(p, Bytes(0), MemoryAdvice::kSetReadMostly, 0), StatusIs(kInvalid));
  EXPECT_THAT(managed_->Advise(vram, kSize, MemoryAdvice::kSetReadMostly, 0), StatusIs(kInvalid));
  EXPECT_THAT(managed_->Advise(p, kSize, static_cast<MemoryAdvice>(7), 0), StatusIs(kInvalid));
  EXPECT_THAT(managed_->Advise(p, kSize, MemoryAdvice::kSetPreferredLocation, 99), StatusIs(kInvalid));
  EXPECT_THAT(managed_->Prefetch(vram, kSize, 0, *stream_), StatusIs(kInvalid));
  EXPECT_THAT(managed_->GetAttributes(p + Bytes(4096), kSize), StatusIs(kInvalid));
  EXPECT_THAT(ctx_->Free(vram), IsOk());
}

TEST_F(ManagedMemoryTest, StreamOrderedPrefetchBothWaysKeepsDataAndMovesVram) {
  ASSERT_OK_AND_ASSIGN(const DeviceAddress p, managed_->Allocate(ctx_->devices()[0], kSize, 1));
  auto* words = static_cast<uint32_t*>(p.ToPointer());
  const size_t n = kSize.raw() / 4;
  for (size_t i = 0; i < n; ++i) words[i] = static_cast<uint32_t>(i * 7 + 3);
  const Bytes before = Available(0);
  ASSERT_THAT(managed_->Prefetch(p, kSize, 0, *stream_), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  ASSERT_OK_AND_ASSIGN(ManagedRangeAttributes on_gpu, managed_->GetAttributes(p, kSize));
  EXPECT_EQ(on_gpu.last_prefetch, 0);
  const bool migrated = Available(0) != before;  // false only without userfaultfd in the simulator
  if (migrated) {
    EXPECT_EQ(before - Available(0), kSize);
  }

  // A GPU copy out of the range while it lives in VRAM, then back to the CPU.
  ASSERT_OK_AND_ASSIGN(const DeviceAddress vram, Released(ctx_->AllocDevice(ctx_->devices()[0], kSize, 0)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<BlitManager> blit, BlitManager::Create(*ctx_, *stream_));
  ASSERT_THAT(blit->Copy(vram, p, kSize).status(), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  const Bytes with_copy = Available(0);
  ASSERT_THAT(managed_->Prefetch(p, kSize, kCpuDeviceId, *stream_), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  if (migrated) {
    EXPECT_EQ(Available(0), with_copy + kSize) << "the managed range's VRAM came back";
  }
  ASSERT_OK_AND_ASSIGN(ManagedRangeAttributes on_cpu, managed_->GetAttributes(p, kSize));
  EXPECT_EQ(on_cpu.last_prefetch, kCpuDeviceId);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(words[i], static_cast<uint32_t>(i * 7 + 3)) << i;

  // And the VRAM copy holds the same bytes: copy it into a second managed buffer.
  ASSERT_OK_AND_ASSIGN(const DeviceAddress q, managed_->Allocate(ctx_->devices()[0], kSize, 1));
  ASSERT_THAT(blit->Copy(q, vram, kSize).status(), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  EXPECT_EQ(std::memcmp(p.ToPointer(), q.ToPointer(), kSize.raw()), 0);
  blit.reset();
  EXPECT_THAT(ctx_->Free(vram), IsOk());
  EXPECT_THAT(ctx_->Free(q), IsOk());
}

TEST_F(ManagedMemoryTest, FreeReturnsTheVramOfAPrefetchedBuffer) {
  ASSERT_OK_AND_ASSIGN(const DeviceAddress p, managed_->Allocate(ctx_->devices()[0], kSize, 1));
  std::memset(p.ToPointer(), 1, kSize.raw());
  const Bytes before = Available(0);
  ASSERT_THAT(managed_->Prefetch(p, kSize, 0, *stream_), IsOk());
  ASSERT_THAT(stream_->Finish(), IsOk());
  ASSERT_THAT(ctx_->Free(p), IsOk());
  EXPECT_EQ(Available(0), before);
}

}  // namespace
}  // namespace hipmem::clr
