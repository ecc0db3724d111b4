#include "hsa/fragment_allocator.h"

#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::SizeIs;

constexpr Bytes kBlock = FragmentAllocator::kDefaultBlockSize;

// Hands out blocks at increasing addresses and records what is live; can be told to refuse.
class FakeSource : public BlockSource {
 public:
  absl::StatusOr<DeviceAddress> AllocateBlock(Bytes size) override {
    ++allocations;
    if (refuse) return absl::ResourceExhaustedError("fake KFD: out of VRAM");
    const DeviceAddress base(next_);
    next_ += size.raw() + kBlock.raw();  // a gap, so adjacent blocks never look contiguous
    live.emplace(base.raw(), size);
    return base;
  }
  void FreeBlock(DeviceAddress base, Bytes size) override {
    auto it = live.find(base.raw());
    ASSERT_NE(it, live.end()) << "freed a block twice or one never allocated";
    EXPECT_EQ(it->second, size);
    live.erase(it);
  }

  bool refuse = false;
  int allocations = 0;
  std::map<uint64_t, Bytes> live;

 private:
  uint64_t next_ = 0x7f00'0000'0000;
};

TEST(FragmentAllocatorTest, SmallAllocationsShareOneBlock) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(Bytes::KiB(64)));
  EXPECT_EQ(source.allocations, 1);
  EXPECT_EQ(b - a, Bytes::KiB(64));
  EXPECT_EQ(heap.in_use_block_bytes(), kBlock);
}

TEST(FragmentAllocatorTest, SizesRoundUpToPages) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes(1)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(Bytes(1)));
  EXPECT_EQ(b - a, Bytes::KiB(4));
  std::optional<FragmentAllocator::Lookup> found = heap.Find(a + Bytes(100));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->fragment, (AddressRange{a, Bytes::KiB(4)}));
  EXPECT_EQ(found->block.size, kBlock);
}

TEST(FragmentAllocatorTest, ZeroOrOverflowingSizeIsInvalid) {
  FakeSource source;
  FragmentAllocator heap(&source);
  EXPECT_THAT(heap.Allocate(Bytes(0)).status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(heap.Allocate(Bytes(UINT64_MAX)).status(), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(source.allocations, 0);
}

TEST(FragmentAllocatorTest, BestFitPicksTheSmallestHoleThatFits) {
  FakeSource source;
  FragmentAllocator heap(&source);
  // Layout: [a 64K][b 256K][c 64K][d 128K][e 64K][rest]. Freeing b and d leaves holes of 256K and 128K.
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(Bytes::KiB(256)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress c, heap.Allocate(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress d, heap.Allocate(Bytes::KiB(128)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress e, heap.Allocate(Bytes::KiB(64)));
  (void)a; (void)c; (void)e;
  ASSERT_THAT(heap.Free(b), IsOk());
  ASSERT_THAT(heap.Free(d), IsOk());
  ASSERT_OK_AND_ASSIGN(DeviceAddress f, heap.Allocate(Bytes::KiB(100)));
  EXPECT_EQ(f, d);
  ASSERT_OK_AND_ASSIGN(DeviceAddress g, heap.Allocate(Bytes::KiB(200)));
  EXPECT_EQ(g, b);
  EXPECT_EQ(source.allocations, 1);
}

TEST(FragmentAllocatorTest, FreedNeighboursMergeIntoOneHole) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress c, heap.Allocate(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress keep, heap.Allocate(kBlock - Bytes::KiB(192)));  // fills the block
  (void)keep;
  ASSERT_THAT(heap.Free(a), IsOk());
  ASSERT_THAT(heap.Free(c), IsOk());
  ASSERT_THAT(heap.Free(b), IsOk());
  // Only a merged 192 KiB hole holds this without a new block.
  ASSERT_OK_AND_ASSIGN(DeviceAddress big, heap.Allocate(Bytes::KiB(192)));
  EXPECT_EQ(big, a);
  EXPECT_EQ(source.allocations, 1);
}

TEST(FragmentAllocatorTest, EmptyBlockIsCachedAndReused) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(64)));
  ASSERT_THAT(heap.Free(a), IsOk());
  EXPECT_EQ(heap.cached_bytes(), kBlock);
  EXPECT_THAT(source.live, SizeIs(1));  // one cached block stays, whatever the balance says
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(Bytes::KiB(64)));
  EXPECT_EQ(b, a);
  EXPECT_EQ(source.allocations, 1);
  EXPECT_EQ(heap.cached_bytes(), Bytes(0));
}

// A cached block is nobody's memory: no fragment is found in it, freeing its base again is a double free, and
// only a request smaller than a block takes it back (at its head).
TEST(FragmentAllocatorTest, CachedBlockHoldsNoFragment) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(8)));
  ASSERT_THAT(heap.Free(a), IsOk());
  ASSERT_EQ(heap.cached_blocks(), 1u);
  EXPECT_EQ(heap.Find(a), std::nullopt);
  EXPECT_EQ(heap.Find(a + Bytes::KiB(100)), std::nullopt);
  EXPECT_THAT(heap.Free(a), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(DeviceAddress whole, heap.Allocate(kBlock));  // a block's worth: a new block
  EXPECT_NE(whole, a);
  EXPECT_EQ(source.allocations, 2);
  EXPECT_EQ(heap.cached_blocks(), 1u);
  ASSERT_OK_AND_ASSIGN(Fragment carved, heap.Carve(Bytes(100)));
  EXPECT_EQ(carved.range().base, a);  // the cached block's head
  EXPECT_EQ(carved.range().size, Bytes::KiB(4));
  EXPECT_EQ(carved.block(), (AddressRange{a, kBlock}));
  EXPECT_EQ(heap.cached_blocks(), 0u);
  // The rest of the block is free again for best fit.
  ASSERT_OK_AND_ASSIGN(Fragment next, heap.Carve(Bytes::KiB(4)));
  EXPECT_EQ(next.range().base, a + Bytes::KiB(4));
  std::optional<FragmentAllocator::Lookup> found = heap.Find(next.range().base + Bytes(10));
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->fragment, next.range());
  EXPECT_EQ(found->block, next.block());
  EXPECT_EQ(source.allocations, 2);
}

// The owner the runtime holds: it frees its fragment exactly once, wherever it was moved, and a block it leaves
// empty goes to the cache as after Free.
TEST(FragmentAllocatorTest, FragmentOwnerFreesOnceAfterMoves) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(Fragment a, heap.Carve(Bytes::KiB(64)));
  const AddressRange range = a.range();
  Fragment moved(std::move(a));
  Fragment assigned;
  assigned = std::move(moved);
  EXPECT_EQ(assigned.range(), range);
  ASSERT_TRUE(heap.Find(range.base).has_value());
  {
    Fragment gone = std::move(assigned);
  }
  EXPECT_FALSE(heap.Find(range.base).has_value());
  EXPECT_EQ(heap.cached_blocks(), 1u);
  // Assigning onto an owner frees what it held first.
  ASSERT_OK_AND_ASSIGN(Fragment b, heap.Carve(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(Fragment c, heap.Carve(Bytes::KiB(64)));
  const DeviceAddress b_base = b.range().base;
  b = std::move(c);
  EXPECT_FALSE(heap.Find(b_base).has_value());
  EXPECT_TRUE(heap.Find(b.range().base).has_value());
}

// Blocks going to the cache and back many times keep the accounting exact and give every block back at the end.
TEST(FragmentAllocatorTest, CacheRoundTripsKeepAccounting) {
  FakeSource source;
  {
    FragmentAllocator heap(&source);
    for (int i = 0; i < 100; ++i) {
      ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(8 * (1 + i % 7))));
      ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(kBlock - Bytes::KiB(4)));
      EXPECT_EQ(heap.in_use_block_bytes(), kBlock + kBlock);
      ASSERT_THAT(heap.Free(a), IsOk());
      ASSERT_THAT(heap.Free(b), IsOk());
      EXPECT_EQ(heap.in_use_block_bytes(), Bytes(0));
      EXPECT_EQ(heap.cached_bytes(), Bytes(heap.cached_blocks() * kBlock.raw()));
      EXPECT_LE(heap.cached_blocks(), 1u);
    }
    EXPECT_EQ(source.allocations, 2 + 99);  // the balance lets one of the two blocks go each round
  }
  EXPECT_THAT(source.live, SizeIs(0));
}

TEST(FragmentAllocatorTest, BalanceKeepsAtMostTwiceTheBytesInUse) {
  FakeSource source;
  FragmentAllocator heap(&source);
  // Five full blocks, then free four of them: in use 2 MiB, so the cache may keep 4 MiB (two blocks).
  std::vector<DeviceAddress> full;
  for (int i = 0; i < 5; ++i) {
    ASSERT_OK_AND_ASSIGN(DeviceAddress p, heap.Allocate(kBlock));
    full.push_back(p);
  }
  EXPECT_EQ(source.allocations, 5);
  for (int i = 0; i < 4; ++i) ASSERT_THAT(heap.Free(full[i]), IsOk());
  EXPECT_EQ(heap.in_use_block_bytes(), kBlock);
  EXPECT_EQ(heap.cached_bytes(), kBlock + kBlock);
  EXPECT_EQ(heap.cached_blocks(), 2u);
  EXPECT_THAT(source.live, SizeIs(3));
  // The oldest went back: the two newest stay cached.
  EXPECT_FALSE(source.live.contains(full[0].raw()));
  EXPECT_TRUE(source.live.contains(full[3].raw()));
  // The last one freed: the cache keeps one block, since nothing is in use.
  ASSERT_THAT(heap.Free(full[4]), IsOk());
  EXPECT_EQ(heap.cached_blocks(), 1u);
  EXPECT_THAT(source.live, SizeIs(1));
}

TEST(FragmentAllocatorTest, LargeRequestGetsItsOwnBlockReleasedOnFree) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress big, heap.Allocate(kBlock + Bytes::KiB(4)));
  ASSERT_THAT(source.live, SizeIs(1));
  EXPECT_EQ(source.live.begin()->second, kBlock + kBlock);
  // Its tail is not carved: a small request takes a new block.
  ASSERT_OK_AND_ASSIGN(DeviceAddress small, heap.Allocate(Bytes::KiB(4)));
  EXPECT_EQ(source.allocations, 2);
  EXPECT_EQ(heap.in_use_block_bytes(), kBlock);  // the large block is not counted in the balance
  ASSERT_THAT(heap.Free(big), IsOk());
  EXPECT_THAT(source.live, SizeIs(1));
  EXPECT_EQ(heap.cached_bytes(), Bytes(0));
  ASSERT_THAT(heap.Free(small), IsOk());
}

TEST(FragmentAllocatorTest, TrimReturnsEveryCachedBlock) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(64)));
  ASSERT_THAT(heap.Free(a), IsOk());
  ASSERT_THAT(source.live, SizeIs(1));
  heap.Trim();
  EXPECT_THAT(source.live, SizeIs(0));
  EXPECT_EQ(heap.cached_bytes(), Bytes(0));
}

TEST(FragmentAllocatorTest, SourceFailureIsReturnedAndLeavesNothing) {
  FakeSource source;
  source.refuse = true;
  FragmentAllocator heap(&source);
  EXPECT_THAT(heap.Allocate(Bytes::KiB(4)).status(), StatusIs(absl::StatusCode::kResourceExhausted));
  EXPECT_EQ(heap.in_use_block_bytes(), Bytes(0));
  source.refuse = false;
  EXPECT_THAT(heap.Allocate(Bytes::KiB(4)), IsOk());
}

TEST(FragmentAllocatorTest, FreeOfUnknownOrInteriorOrFreedAddressIsNotFound) {
  FakeSource source;
  FragmentAllocator heap(&source);
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(64)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(Bytes::KiB(64)));
  EXPECT_THAT(heap.Free(DeviceAddress(0x1000)), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(heap.Free(a + Bytes::KiB(4)), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_THAT(heap.Free(a), IsOk());
  EXPECT_THAT(heap.Free(a), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_FALSE(heap.Find(a).has_value());
  EXPECT_TRUE(heap.Find(b).has_value());
}

TEST(FragmentAllocatorTest, DestructorReturnsEveryBlock) {
  FakeSource source;
  {
    FragmentAllocator heap(&source);
    ASSERT_OK_AND_ASSIGN(DeviceAddress a, heap.Allocate(Bytes::KiB(64)));
    ASSERT_OK_AND_ASSIGN(DeviceAddress b, heap.Allocate(Bytes::MiB(3)));
    ASSERT_OK_AND_ASSIGN(DeviceAddress c, heap.Allocate(kBlock));
    (void)a; (void)b;
    ASSERT_THAT(heap.Free(c), IsOk());  // cached
    ASSERT_THAT(source.live, SizeIs(3));
  }
  EXPECT_THAT(source.live, SizeIs(0));
}

}  // namespace
}  // namespace hipmem::hsa
