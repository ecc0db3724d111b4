// The page index: a slot gives back the whole description, pages two objects touch are marked shared,
// removal keeps every other page reachable through growth, shrinking and collisions, against a plain map.
#include "clr/pointer_index.h"

#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace hipmem::clr {
namespace {

std::unique_ptr<Memory> Object(uint64_t base, uint64_t size) {
  const MemoryDesc desc{.range = AddressRange{DeviceAddress(base), Bytes(size)},
                        .gpu_address = DeviceAddress(base),
                        .kind = MemoryKind::kDevice,
                        .device = 0,
                        .user_flags = 0,
                        .pool = hsa::PoolId(1)};
  return std::make_unique<Memory>(nullptr, desc);  // no runtime: nothing to release
}

TEST(PointerIndexTest, SlotCarriesEveryFieldOfTheDescription) {
  const MemoryDesc desc{.range = AddressRange{DeviceAddress(0x7f1234567000), Bytes(0x1800)},
                        .gpu_address = DeviceAddress(0x200000000),
                        .kind = MemoryKind::kRegistered,
                        .device = 3,
                        .user_flags = 0x80000002,
                        .pool = hsa::PoolId(0xabcdef),
                        .buffer_id = 0x1234567890,
                        .sync_mem_ops = true};
  const Memory memory(nullptr, desc);
  PointerIndex index;
  index.Add(0x7f1234568, memory);
  const PointerIndex::Entry* entry = index.Find(0x7f1234568);
  ASSERT_NE(entry, nullptr);
  EXPECT_FALSE(entry->shared());
  EXPECT_TRUE(entry->Describes(memory));
  const MemoryDesc copy = entry->desc();
  EXPECT_EQ(copy.range.base, desc.range.base);
  EXPECT_EQ(copy.range.size, desc.range.size);
  EXPECT_EQ(copy.gpu_address, desc.gpu_address);
  EXPECT_EQ(copy.kind, desc.kind);
  EXPECT_EQ(copy.device, desc.device);
  EXPECT_EQ(copy.user_flags, desc.user_flags);
  EXPECT_EQ(copy.pool, desc.pool);
  EXPECT_EQ(copy.buffer_id, desc.buffer_id);
  EXPECT_EQ(copy.sync_mem_ops, desc.sync_mem_ops);
  EXPECT_TRUE(entry->Contains(DeviceAddress(0x7f1234567000)));
  EXPECT_TRUE(entry->Contains(DeviceAddress(0x7f12345687ff)));
  EXPECT_FALSE(entry->Contains(DeviceAddress(0x7f1234568800)));  // past the end, same page
  EXPECT_FALSE(entry->Contains(DeviceAddress(0x7f1234566fff)));  // before the base
  EXPECT_EQ(index.Find(0x7f1234567), nullptr);  // only the pages it was added for
}

TEST(PointerIndexTest, RefreshCopiesChangedUserDataOnlyIntoItsOwnSlot) {
  auto a = Object(0x10000, 0x100);
  auto b = Object(0x10100, 0x100);
  auto c = Object(0x20000, 0x100);
  PointerIndex index;
  index.Add(0x10, *a);
  index.Add(0x10, *b);  // the same page: shared
  index.Add(0x20, *c);
  ASSERT_TRUE(index.Find(0x10)->shared());
  EXPECT_FALSE(index.Find(0x10)->Contains(DeviceAddress(0x10000)));
  c->set_sync_mem_ops(true);
  a->set_sync_mem_ops(true);
  index.Refresh(0x20, *c);
  index.Refresh(0x10, *a);  // shared: nothing to copy into
  index.Refresh(0x20, *a);  // not its slot
  EXPECT_TRUE(index.Find(0x20)->desc().sync_mem_ops);
  EXPECT_EQ(index.Find(0x20)->base(), DeviceAddress(0x20000));
  EXPECT_TRUE(index.Find(0x10)->shared());
}

// Random adds and erases of pages whose numbers crowd together (as neighbouring allocations' do, and as
// colliding runs need) agree with a plain map through growth and shrinking.
TEST(PointerIndexTest, AgreesWithAMapThroughGrowthShrinkingAndCollisions) {
  std::mt19937_64 rng(11);
  std::vector<std::unique_ptr<Memory>> objects;
  PointerIndex index;
  std::map<uint64_t, uint64_t> reference;  // page -> base of the object it describes
  size_t peak_capacity = 0;
  for (int round = 0; round < 4; ++round) {
    // Fill with many, then drain to a few, so the table grows and shrinks every round.
    const size_t target = round % 2 == 0 ? 5000 : 20;
    for (int step = 0; step < 40000; ++step) {
      const uint64_t page = 0x7f000000 + rng() % 12000;
      const bool add = reference.size() < target ? rng() % 4 != 0 : rng() % 4 == 0;
      if (add && !reference.contains(page)) {
        objects.push_back(Object(page << 12, 0x1000));
        index.Add(page, *objects.back());
        reference[page] = page << 12;
      } else if (!add && !reference.empty()) {
        auto it = reference.lower_bound(0x7f000000 + rng() % 12000);
        if (it == reference.end()) it = reference.begin();
        index.Erase(it->first);
        reference.erase(it);
      }
      peak_capacity = std::max(peak_capacity, index.capacity());
      ASSERT_LE(index.size() * 2, index.capacity());
      if (step % 251 == 0) {
        for (uint64_t p = 0x7f000000; p < 0x7f000000 + 12000; p += 1 + rng() % 7) {
          const PointerIndex::Entry* entry = index.Find(p);
          auto it = reference.find(p);
          ASSERT_EQ(entry != nullptr, it != reference.end()) << std::hex << p;
          if (entry != nullptr) {
            ASSERT_EQ(entry->base().raw(), it->second) << std::hex << p;
          }
        }
      }
    }
    EXPECT_EQ(index.size(), reference.size());
  }
  EXPECT_GE(peak_capacity, 8192u);
  EXPECT_LT(index.capacity(), 1024u);  // drained to a few: the memory went back
  index.Erase(0x12345);                // an absent page: nothing happens
  EXPECT_EQ(index.size(), reference.size());
}

}  // namespace
}  // namespace hipmem::clr
