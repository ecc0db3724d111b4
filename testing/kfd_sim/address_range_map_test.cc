#include "testing/kfd_sim/address_range_map.h"

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "base/units.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

AddressRange Range(uint64_t base, uint64_t size) { return AddressRange{DeviceAddress(base), Bytes(size)}; }

TEST(AddressRangeMapTest, InsertRefusesOverlapAndKeepsAdjacent) {
  AddressRangeMap map;
  ASSERT_THAT(map.Insert(Range(0x1000, 0x1000), 1), IsOk());
  EXPECT_THAT(map.Insert(Range(0x1000, 0x1000), 2), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(map.Insert(Range(0x1800, 0x1000), 2), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(map.Insert(Range(0x0800, 0x1000), 2), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(map.Insert(Range(0x0000, 0x10000), 2), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_EQ(map.size(), 1u);
  EXPECT_THAT(map.Insert(Range(0x2000, 0x1000), 2), IsOk());
  EXPECT_THAT(map.Insert(Range(0x0000, 0x1000), 3), IsOk());
  EXPECT_EQ(map.size(), 3u);
}

TEST(AddressRangeMapTest, InsertRefusesEmptyAndWrappingRanges) {
  AddressRangeMap map;
  EXPECT_THAT(map.Insert(Range(0x1000, 0), 1), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(map.Insert(Range(UINT64_MAX - 0xfff, 0x2000), 1), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(map.empty());
}

TEST(AddressRangeMapTest, EraseNeedsTheExactEntry) {
  AddressRangeMap map;
  ASSERT_THAT(map.Insert(Range(0x1000, 0x1000), 7), IsOk());
  EXPECT_THAT(map.Erase(Range(0x1000, 0x800), 7), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(map.Erase(Range(0x1000, 0x1000), 8), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(map.Erase(Range(0x2000, 0x1000), 7), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(map.Erase(Range(0x1000, 0x1000), 7), IsOk());
  EXPECT_TRUE(map.empty());
}

TEST(AddressRangeMapTest, CoversChainsAdjacentEntriesOnly) {
  AddressRangeMap map;
  ASSERT_THAT(map.Insert(Range(0x1000, 0x1000), 1), IsOk());
  ASSERT_THAT(map.Insert(Range(0x2000, 0x1000), 2), IsOk());
  ASSERT_THAT(map.Insert(Range(0x4000, 0x1000), 3), IsOk());
  EXPECT_TRUE(map.Covers(Range(0x1000, 0x2000)));
  EXPECT_TRUE(map.Covers(Range(0x1800, 0x1000)));
  EXPECT_TRUE(map.Covers(Range(0x4fff, 1)));
  EXPECT_FALSE(map.Covers(Range(0x1000, 0x3000))) << "hole at 0x3000";
  EXPECT_FALSE(map.Covers(Range(0x0fff, 2)));
  EXPECT_FALSE(map.Covers(Range(0x5000, 1)));
  EXPECT_FALSE(map.Covers(Range(0x1000, 0))) << "empty range";
}

TEST(AddressRangeMapTest, OverlapsAndLookupFindTheContainingEntry) {
  AddressRangeMap map;
  ASSERT_THAT(map.Insert(Range(0x1000, 0x1000), 1), IsOk());
  EXPECT_TRUE(map.Overlaps(Range(0x1fff, 0x10)));
  EXPECT_FALSE(map.Overlaps(Range(0x2000, 0x10)));
  EXPECT_FALSE(map.Overlaps(Range(0x0, 0x1000)));
  EXPECT_FALSE(map.Overlaps(Range(0x1000, 0)));
  const std::optional<AddressRangeMap::Entry> hit = map.Lookup(DeviceAddress(0x1abc));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->handle, 1u);
  EXPECT_EQ(hit->range, Range(0x1000, 0x1000));
  EXPECT_FALSE(map.Lookup(DeviceAddress(0x2000)).has_value());
  EXPECT_FALSE(map.Lookup(DeviceAddress(0xfff)).has_value());
}

}  // namespace
}  // namespace hipmem::kfd_sim
