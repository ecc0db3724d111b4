// The pool's reuse rules per attribute, never-unsafe reuse while a host function holds the freeing stream,
// release threshold, trim, maximum size, accounting and peer access, over the simulator.
#include "clr/mem_pool.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/memory.h"
#include "testing/notification.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

constexpr Bytes kSize = Bytes::KiB(64);

PoolReusePolicy Only(bool events, bool opportunistic, bool internal) {
  PoolReusePolicy p;
  p.follow_event_dependencies = events;
  p.allow_opportunistic = opportunistic;
  p.allow_internal_dependencies = internal;
  return p;
}

class MemPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(ctx_, Context::Create());
    device_ = &ctx_->devices()[0];
    ASSERT_OK_AND_ASSIGN(s1_, Stream::Create(*ctx_, *device_));
    ASSERT_OK_AND_ASSIGN(s2_, Stream::Create(*ctx_, *device_));
    pool_ = std::make_unique<MemoryPool>(*ctx_, *device_);
  }
  void TearDown() override {
    gate_.reset();
    pool_.reset();
    s1_.reset();
    s2_.reset();
    ctx_.reset();
  }

  // Holds `stream` in a host function until Open(): work queued before a later free is still pending.
  void Hold(Stream& stream) {
    gate_ = std::make_unique<hipmem_testing::Notification>();
    hipmem_testing::Notification* gate = gate_.get();
    ASSERT_THAT(stream.HostFunction([gate] { gate->WaitForNotification(); }), IsOk());
  }
  void Open() { gate_->Notify(); }

  DeviceAddress Alloc(Stream& s, Bytes size = kSize) {
    absl::StatusOr<DeviceAddress> a = pool_->Allocate(size, s);
    EXPECT_THAT(a, IsOk());
    return a.value_or(DeviceAddress(0));
  }
  Bytes Reserved() const { return pool_->usage().reserved_current; }

  // An event of `origin` recorded now and waited on by `waiter`, as hipEventRecord + hipStreamWaitEvent do.
  void EventEdge(Stream& origin, Stream& waiter) {
    const uint64_t tick = NextPoolOrderTick();
    absl::StatusOr<Marker> mark = origin.Record();
    ASSERT_THAT(mark, IsOk());
    ASSERT_THAT(waiter.WaitFor(*mark), IsOk());
    pool_->AddSafeStream(waiter, origin, tick);
  }

  std::unique_ptr<Context> ctx_;
  const Device* device_ = nullptr;
  std::unique_ptr<Stream> s1_;
  std::unique_ptr<Stream> s2_;
  std::unique_ptr<MemoryPool> pool_;
  std::unique_ptr<hipmem_testing::Notification> gate_;
};

TEST_F(MemPoolTest, RejectsZeroSizeAndUnknownOrDoubleFrees) {
  EXPECT_THAT(pool_->Allocate(Bytes(0), *s1_), StatusIs(absl::StatusCode::kInvalidArgument));
  const DeviceAddress a = Alloc(*s1_);
  EXPECT_THAT(pool_->Free(a + Bytes(256), s1_.get()), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EXPECT_THAT(pool_->Free(a, s1_.get()), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_FALSE(pool_->OwnsBusy(a));
}

TEST_F(MemPoolTest, SameStreamReusesEvenWithEveryAttributeOff) {
  pool_->set_policy(Only(false, false, false));
  Hold(*s1_);
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EXPECT_EQ(Alloc(*s1_), a);
  EXPECT_EQ(Reserved(), kSize);
  Open();
  ASSERT_THAT(s1_->Finish(), IsOk());
}

TEST_F(MemPoolTest, PendingFreeIsNeverHandedToAnotherStreamWithoutADependency) {
  pool_->set_policy(Only(true, true, false));
  Hold(*s1_);
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  const DeviceAddress b = Alloc(*s2_);
  EXPECT_NE(b, a);
  EXPECT_EQ(Reserved(), kSize + kSize);
  EXPECT_EQ(pool_->free_block_count(), 1u);
  Open();
  ASSERT_THAT(s1_->Finish(), IsOk());
}

TEST_F(MemPoolTest, OpportunisticReuseOnceTheFreeCompletedAndOnlyWhenAllowed) {
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  ASSERT_THAT(s1_->Finish(), IsOk());
  pool_->set_policy(Only(true, false, false));
  const DeviceAddress b = Alloc(*s2_);
  EXPECT_NE(b, a);  // opportunistic off: the completed block stays put
  pool_->set_policy(Only(false, true, false));
  EXPECT_EQ(Alloc(*s2_), a);
  EXPECT_EQ(Reserved(), kSize + kSize);
}

TEST_F(MemPoolTest, InternalDependencyMakesTheNewStreamWaitOnTheGpu) {
  pool_->set_policy(Only(false, false, true));
  Hold(*s1_);
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EXPECT_EQ(Alloc(*s2_), a);  // returns at once: the host did not wait for the held stream
  ASSERT_OK_AND_ASSIGN(Marker after, s2_->Record());
  EXPECT_FALSE(after.Done());  // s2's later work waits for the free
  Open();
  ASSERT_THAT(after.Wait(), IsOk());
  EXPECT_EQ(Reserved(), kSize);
}

TEST_F(MemPoolTest, EventRecordedAfterTheFreeMakesTheWaiterSafe) {
  pool_->set_policy(Only(true, false, false));
  Hold(*s1_);
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EventEdge(*s1_, *s2_);
  EXPECT_EQ(Alloc(*s2_), a);
  EXPECT_EQ(Reserved(), kSize);
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
}

TEST_F(MemPoolTest, EventRecordedBeforeTheFreeDoesNotMakeTheWaiterSafe) {
  pool_->set_policy(Only(true, false, false));
  Hold(*s1_);
  const DeviceAddress a = Alloc(*s1_);
  EventEdge(*s1_, *s2_);  // upstream would mark s2 safe here and hand over the block freed below
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EXPECT_NE(Alloc(*s2_), a);
  EXPECT_EQ(Reserved(), kSize + kSize);
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
}

TEST_F(MemPoolTest, ForgettingAStreamDropsItsEventEdges) {
  pool_->set_policy(Only(true, false, false));
  Hold(*s1_);
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EventEdge(*s1_, *s2_);
  pool_->ForgetStream(s2_.get());
  EXPECT_NE(Alloc(*s2_), a);
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
}

TEST_F(MemPoolTest, EventDependenciesOffIgnoresTheEdge) {
  pool_->set_policy(Only(false, false, false));
  Hold(*s1_);
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EventEdge(*s1_, *s2_);
  EXPECT_NE(Alloc(*s2_), a);
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
}

TEST_F(MemPoolTest, LargerFreeRangesAreSplitAndTheRestStaysFree) {
  const DeviceAddress big = Alloc(*s1_, kSize);
  ASSERT_THAT(pool_->Free(big, s1_.get()), IsOk());
  ASSERT_THAT(s1_->Finish(), IsOk());
  // Completed, so another stream may take it; only the request's bytes leave the free range.
  const DeviceAddress a = Alloc(*s2_, Bytes::KiB(40));
  EXPECT_EQ(a, big);
  const DeviceAddress b = Alloc(*s1_, Bytes::KiB(16));
  EXPECT_EQ(b, big + Bytes::KiB(40));
  EXPECT_EQ(pool_->usage().used_current, Bytes::KiB(56));
  EXPECT_EQ(Reserved(), kSize);
  EXPECT_EQ(pool_->free_block_count(), 1u);
  // A request larger than what is left gets its own segment.
  const DeviceAddress c = Alloc(*s1_, Bytes::KiB(56));
  EXPECT_EQ(Reserved(), kSize + Bytes::KiB(56));
  ASSERT_THAT(pool_->Free(c, s1_.get()), IsOk());
  ASSERT_THAT(pool_->Free(a, s2_.get()), IsOk());
  ASSERT_THAT(pool_->Free(b, s1_.get()), IsOk());
}

TEST_F(MemPoolTest, RequestsRoundToTheGranuleAndKeepItsAlignment) {
  const DeviceAddress a = Alloc(*s1_, Bytes(1));
  const DeviceAddress b = Alloc(*s1_, Bytes(300));
  EXPECT_EQ(pool_->usage().used_current, MemoryPool::kGranule + MemoryPool::kGranule + MemoryPool::kGranule);
  ASSERT_THAT(pool_->Free(b, s1_.get()), IsOk());
  const DeviceAddress c = Alloc(*s1_, Bytes(100));  // carved from b's 512 B
  EXPECT_EQ(c, b);
  const DeviceAddress d = Alloc(*s1_, Bytes(200));  // the rest of it
  EXPECT_EQ(d, b + MemoryPool::kGranule);
  for (DeviceAddress p : {a, b, c, d}) EXPECT_EQ(p.raw() % MemoryPool::kGranule.raw(), 0u);
  EXPECT_EQ(Reserved(), Bytes(768));
}

TEST_F(MemPoolTest, FreedNeighboursCoalesceAndTheWholeSegmentGoesBack) {
  Hold(*s1_);  // pending frees: the segment is split, not given back (see the reshaping tests)
  const DeviceAddress big = Alloc(*s1_, kSize);
  ASSERT_THAT(pool_->Free(big, s1_.get()), IsOk());
  std::vector<DeviceAddress> parts;
  for (int i = 0; i < 4; ++i) parts.push_back(Alloc(*s1_, Bytes::KiB(16)));
  EXPECT_EQ(parts[0], big);
  EXPECT_EQ(pool_->free_block_count(), 0u);
  EXPECT_EQ(Reserved(), kSize);
  // Freed out of order: each joins its free neighbours.
  for (int i : {1, 3, 0}) ASSERT_THAT(pool_->Free(parts[i], s1_.get()), IsOk());
  EXPECT_EQ(pool_->free_block_count(), 2u);
  ASSERT_THAT(pool_->Free(parts[2], s1_.get()), IsOk());
  EXPECT_EQ(pool_->free_block_count(), 1u);
  EXPECT_EQ(Alloc(*s1_, kSize), big) << "the whole segment is one range again";
  ASSERT_THAT(pool_->Free(big, s1_.get()), IsOk());
  Open();
  ASSERT_THAT(s1_->Finish(), IsOk());
  ASSERT_THAT(pool_->TrimTo(Bytes(0)), IsOk());
  EXPECT_EQ(Reserved(), Bytes(0));
}

TEST_F(MemPoolTest, CoalescedRangeIsOnlyAsReusableAsItsLeastSafePart) {
  pool_->set_policy(Only(false, true, false));
  const DeviceAddress big = Alloc(*s1_, kSize + kSize);
  ASSERT_THAT(pool_->Free(big, s1_.get()), IsOk());
  const DeviceAddress x = Alloc(*s1_, kSize);
  const DeviceAddress y = Alloc(*s1_, kSize);
  ASSERT_EQ(y, x + kSize);
  Hold(*s2_);
  ASSERT_THAT(pool_->Free(x, s2_.get()), IsOk());  // pending behind the held s2
  ASSERT_THAT(pool_->Free(y, s1_.get()), IsOk());  // s1 is idle: nothing to wait for
  EXPECT_EQ(pool_->free_block_count(), 1u);
  // s1 may take y's half alone, but the merged range carries s2's pending free: it is not s1's yet.
  const DeviceAddress z = Alloc(*s1_, Bytes::KiB(8));
  EXPECT_TRUE(z.raw() < big.raw() || z.raw() >= (big + kSize + kSize).raw());
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
  EXPECT_EQ(Alloc(*s1_, kSize + kSize), big) << "opportunistic once s2's free completed";
}

TEST_F(MemPoolTest, AMissTradesCompletedFreeSegmentsInsteadOfGrowing) {
  const DeviceAddress a = Alloc(*s1_, kSize);
  const DeviceAddress b = Alloc(*s1_, Bytes::KiB(32));
  Hold(*s2_);
  const DeviceAddress pending = Alloc(*s2_, Bytes::KiB(16));
  ASSERT_THAT(pool_->Free(pending, s2_.get()), IsOk());  // behind the held s2: must stay
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  ASSERT_THAT(pool_->Free(b, s1_.get()), IsOk());
  ASSERT_THAT(s1_->Finish(), IsOk());
  // Neither free segment fits 96 KiB; both completed, so they go back as the new segment comes.
  Alloc(*s1_, Bytes::KiB(96));
  EXPECT_EQ(Reserved(), Bytes::KiB(96) + Bytes::KiB(16));
  EXPECT_EQ(pool_->usage().reserved_high, kSize + Bytes::KiB(48)) << "never more than before the miss";
  EXPECT_EQ(pool_->free_block_count(), 1u) << "the pending segment stays";
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
}

TEST_F(MemPoolTest, AWhollyFreeSegmentOverTwiceTheRequestIsReshapedNotSplit) {
  const DeviceAddress big = Alloc(*s1_, Bytes::KiB(256));
  const DeviceAddress a = Alloc(*s1_, Bytes::KiB(32));
  const DeviceAddress b = Alloc(*s1_, Bytes::KiB(32));
  for (DeviceAddress p : {big, a, b}) ASSERT_THAT(pool_->Free(p, s1_.get()), IsOk());
  ASSERT_THAT(s1_->Finish(), IsOk());
  // 64 KiB: a and b go back for a segment of its own; the 256 KiB one stays whole for a request its size.
  const DeviceAddress c = Alloc(*s1_, kSize);
  EXPECT_NE(c, big);
  EXPECT_EQ(Reserved(), Bytes::KiB(256) + kSize);
  EXPECT_EQ(pool_->usage().reserved_high, Bytes::KiB(320)) << "the trade did not grow the pool";
  // Nothing smaller left to give back: the 256 KiB segment goes for one of 64 KiB.
  Alloc(*s1_, kSize);
  EXPECT_EQ(Reserved(), kSize + kSize);
  EXPECT_EQ(pool_->free_block_count(), 0u);
}

TEST_F(MemPoolTest, AnOversizedSegmentStillPendingIsSplitNotGivenBack) {
  Hold(*s1_);
  const DeviceAddress big = Alloc(*s1_, Bytes::KiB(256));
  ASSERT_THAT(pool_->Free(big, s1_.get()), IsOk());
  EXPECT_EQ(Alloc(*s1_, kSize), big) << "the device cannot take it back while work may touch it";
  EXPECT_EQ(Reserved(), Bytes::KiB(256));
  Open();
  ASSERT_THAT(s1_->Finish(), IsOk());
}

TEST_F(MemPoolTest, TryAllocateCachedServesOnlyWhatAllocateTakesAsItIs) {
  EXPECT_EQ(pool_->TryAllocateCached(kSize, *s1_), std::nullopt) << "a miss is Allocate's";
  EXPECT_EQ(Reserved(), Bytes(0));
  EXPECT_EQ(pool_->TryAllocateCached(Bytes(0), *s1_), std::nullopt);
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EXPECT_EQ(pool_->TryAllocateCached(kSize, *s1_), a);
  Hold(*s1_);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EXPECT_EQ(pool_->TryAllocateCached(kSize, *s2_), std::nullopt) << "s2 would need a wait";
  EXPECT_EQ(pool_->free_block_count(), 1u);
  EXPECT_EQ(Alloc(*s2_), a);
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
}

TEST_F(MemPoolTest, HoldsEveryAddressInsideItsSegments) {
  const DeviceAddress a = Alloc(*s1_, kSize);
  EXPECT_TRUE(pool_->OwnsBusy(a));
  EXPECT_FALSE(pool_->OwnsBusy(a + Bytes(256)));
  EXPECT_TRUE(pool_->Holds(a + Bytes(256)));
  EXPECT_TRUE(pool_->Holds(a + kSize - Bytes(1)));
  EXPECT_FALSE(pool_->Holds(a + kSize + Bytes::MiB(64)));
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  EXPECT_TRUE(pool_->Holds(a)) << "a freed range is still the pool's";
}

TEST_F(MemPoolTest, FreeOnAnIdleStreamNeedsNoWaitButStillHonoursTheAttributes) {
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(s1_->Finish(), IsOk());
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());  // nothing queued before it: no mark
  pool_->set_policy(Only(true, false, false));
  EXPECT_NE(Alloc(*s2_), a) << "neither opportunistic nor internal reuse allowed";
  pool_->set_policy(Only(false, false, true));
  EXPECT_EQ(Alloc(*s2_), a);
  ASSERT_OK_AND_ASSIGN(Marker after, s2_->Record());
  EXPECT_THAT(after.Wait(), IsOk());
}

TEST_F(MemPoolTest, SynchronousFreeIsReusableAnywhere) {
  pool_->set_policy(Only(false, false, false));
  const DeviceAddress a = Alloc(*s1_);
  ASSERT_THAT(s1_->Finish(), IsOk());
  ASSERT_THAT(pool_->Free(a, nullptr), IsOk());
  EXPECT_EQ(Alloc(*s2_), a);
}

TEST_F(MemPoolTest, AccountingTracksCurrentAndHighMarks) {
  const DeviceAddress a = Alloc(*s1_, kSize);
  const DeviceAddress b = Alloc(*s1_, kSize + kSize);
  ASSERT_THAT(pool_->Free(b, s1_.get()), IsOk());
  PoolUsage u = pool_->usage();
  EXPECT_EQ(u.used_current, kSize);
  EXPECT_EQ(u.used_high, Bytes::KiB(192));
  EXPECT_EQ(u.reserved_current, Bytes::KiB(192));
  EXPECT_EQ(u.reserved_high, Bytes::KiB(192));
  ASSERT_THAT(s1_->Finish(), IsOk());
  ASSERT_THAT(pool_->ReleaseFreed(), IsOk());
  u = pool_->usage();
  EXPECT_EQ(u.reserved_current, kSize);
  EXPECT_EQ(u.reserved_high, Bytes::KiB(192));
  pool_->ResetReservedHigh();
  pool_->ResetUsedHigh();
  u = pool_->usage();
  EXPECT_EQ(u.reserved_high, kSize);
  EXPECT_EQ(u.used_high, kSize);
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
}

TEST_F(MemPoolTest, ReleaseKeepsTheThresholdAndNeverPendingBlocks) {
  PoolReusePolicy p;
  p.release_threshold = kSize;
  pool_->set_policy(p);
  std::vector<DeviceAddress> blocks;
  for (int i = 0; i < 3; ++i) blocks.push_back(Alloc(*s1_));
  for (DeviceAddress b : blocks) ASSERT_THAT(pool_->Free(b, s1_.get()), IsOk());
  ASSERT_THAT(s1_->Finish(), IsOk());
  ASSERT_THAT(pool_->ReleaseFreed(), IsOk());
  EXPECT_EQ(Reserved(), kSize);

  Hold(*s2_);
  const DeviceAddress pending = Alloc(*s2_);
  ASSERT_THAT(pool_->Free(pending, s2_.get()), IsOk());
  ASSERT_THAT(pool_->TrimTo(Bytes(0)), IsOk());
  EXPECT_EQ(Reserved(), kSize);  // the held stream's block stays; the completed one went
  EXPECT_EQ(pool_->free_block_count(), 1u);
  Open();
  ASSERT_THAT(s2_->Finish(), IsOk());
  ASSERT_THAT(pool_->TrimTo(Bytes(0)), IsOk());
  EXPECT_EQ(Reserved(), Bytes(0));
}

TEST_F(MemPoolTest, TrimKeepsAtLeastTheRequestedBytes) {
  std::vector<DeviceAddress> blocks;
  for (int i = 0; i < 4; ++i) blocks.push_back(Alloc(*s1_));
  for (DeviceAddress b : blocks) ASSERT_THAT(pool_->Free(b, s1_.get()), IsOk());
  ASSERT_THAT(s1_->Finish(), IsOk());
  ASSERT_THAT(pool_->TrimTo(kSize + Bytes(1)), IsOk());
  EXPECT_EQ(Reserved(), kSize + kSize);
}

TEST_F(MemPoolTest, MaximumSizeBoundsReservedAndReleasesCompletedBlocksFirst) {
  pool_ = std::make_unique<MemoryPool>(*ctx_, *device_, kSize + kSize);
  const DeviceAddress a = Alloc(*s1_);
  Alloc(*s1_, Bytes::KiB(32));
  EXPECT_THAT(pool_->Allocate(kSize, *s1_), StatusIs(absl::StatusCode::kResourceExhausted));
  ASSERT_THAT(pool_->Free(a, s1_.get()), IsOk());
  ASSERT_THAT(s1_->Finish(), IsOk());
  // A larger size misses the cache; the completed 64 KiB segment goes back to make room.
  ASSERT_OK_AND_ASSIGN(DeviceAddress c, pool_->Allocate(Bytes::KiB(96), *s2_));
  (void)c;
  EXPECT_EQ(Reserved(), Bytes::KiB(32) + Bytes::KiB(96));
}

TEST_F(MemPoolTest, PeerAccessMapsHeldAndNewBlocks) {
  if (ctx_->devices().size() < 2) GTEST_SKIP() << "needs two GPUs";
  const Device& peer = ctx_->devices()[1];
  EXPECT_THAT(pool_->SetPeerAccess(*device_, false), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(pool_->PeerAccess(*device_));
  EXPECT_FALSE(pool_->PeerAccess(peer));
  auto mapped_on_peer = [&](DeviceAddress a) {
    const std::vector<hsa::AgentId> acc = ctx_->runtime().memory().Describe(a.ToPointer()).accessible;
    return std::find(acc.begin(), acc.end(), peer.agent) != acc.end();
  };
  const DeviceAddress held = Alloc(*s1_, Bytes::MiB(4));  // above the fragment size: its own buffer
  EXPECT_FALSE(mapped_on_peer(held));
  ASSERT_THAT(pool_->SetPeerAccess(peer, true), IsOk());
  EXPECT_TRUE(pool_->PeerAccess(peer));
  EXPECT_TRUE(mapped_on_peer(held));
  EXPECT_TRUE(mapped_on_peer(Alloc(*s1_, Bytes::MiB(4))));
  ASSERT_THAT(pool_->SetPeerAccess(peer, false), IsOk());
  EXPECT_FALSE(pool_->PeerAccess(peer));
  EXPECT_FALSE(mapped_on_peer(Alloc(*s1_, Bytes::MiB(6))));
}

}  // namespace
}  // namespace hipmem::clr
