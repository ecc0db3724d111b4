#include "base/address_range_map.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace hipmem {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

constexpr DeviceAddress kBase(0x10000);

AddressRange At(uint64_t offset, uint64_t size) { return AddressRange{kBase + Bytes(offset), Bytes(size)}; }

TEST(AddressRangeMapTest, InteriorAddressesResolveAndEndsDoNot) {
  AddressRangeMap<int> map;
  ASSERT_THAT(map.Insert(At(0, 0x1000), 1), IsOk());
  ASSERT_THAT(map.Insert(At(0x3000, 0x1000), 2), IsOk());
  ASSERT_NE(map.Find(kBase), nullptr);
  EXPECT_EQ(map.Find(kBase + Bytes(0xfff))->value, 1);
  EXPECT_EQ(map.Find(kBase + Bytes(0x1000)), nullptr) << "one past the end belongs to nobody";
  EXPECT_EQ(map.Find(kBase - Bytes(1)), nullptr);
  EXPECT_EQ(map.Find(kBase + Bytes(0x3800))->value, 2);
  EXPECT_EQ(map.Find(kBase + Bytes(0x3800))->range, At(0x3000, 0x1000));
  EXPECT_EQ(map.Find(DeviceAddress(0)), nullptr);
}

TEST(AddressRangeMapTest, OverlapsAreRefusedAndChangeNothing) {
  AddressRangeMap<int> map;
  ASSERT_THAT(map.Insert(At(0x1000, 0x2000), 1), IsOk());
  EXPECT_THAT(map.Insert(At(0x2fff, 0x10), 2), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(map.Insert(At(0, 0x1001), 2), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(map.Insert(At(0x1800, 0x10), 2), StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT(map.Insert(At(0, 0x10000), 2), StatusIs(absl::StatusCode::kAlreadyExists)) << "a range around one";
  EXPECT_EQ(map.size(), 1u);
  // Touching is not overlapping.
  EXPECT_THAT(map.Insert(At(0, 0x1000), 3), IsOk());
  EXPECT_THAT(map.Insert(At(0x3000, 0x1000), 4), IsOk());
  EXPECT_EQ(map.size(), 3u);
}

TEST(AddressRangeMapTest, EmptyOrWrappingRangesAreInvalid) {
  AddressRangeMap<int> map;
  EXPECT_THAT(map.Insert(At(0, 0), 1), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(map.Insert(AddressRange{DeviceAddress(UINT64_MAX - 10), Bytes(100)}, 1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(map.empty());
  EXPECT_FALSE(map.Overlaps(At(0, 0)));
}

TEST(AddressRangeMapTest, ExtractAndEraseTakeOnlyExactStarts) {
  AddressRangeMap<std::unique_ptr<int>> map;  // move-only values
  ASSERT_THAT(map.Insert(At(0, 0x1000), std::make_unique<int>(7)), IsOk());
  EXPECT_FALSE(map.Extract(kBase + Bytes(8)).has_value());
  EXPECT_FALSE(map.Erase(kBase + Bytes(8)));
  EXPECT_EQ(map.FindStart(kBase + Bytes(8)), nullptr);
  ASSERT_NE(map.FindStart(kBase), nullptr);
  std::optional<AddressRangeMap<std::unique_ptr<int>>::Entry> out = map.Extract(kBase);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out->value, 7);
  EXPECT_TRUE(map.empty());
  ASSERT_THAT(map.Insert(At(0, 0x1000), std::make_unique<int>(8)), IsOk());
  EXPECT_TRUE(map.Erase(kBase));
  EXPECT_FALSE(map.Erase(kBase));
}

TEST(AddressRangeMapTest, CoversChainsAdjacentEntriesOnly) {
  AddressRangeMap<int> map;
  ASSERT_THAT(map.Insert(At(0, 0x1000), 1), IsOk());
  ASSERT_THAT(map.Insert(At(0x1000, 0x1000), 2), IsOk());
  ASSERT_THAT(map.Insert(At(0x3000, 0x1000), 3), IsOk());
  EXPECT_TRUE(map.Covers(At(0x800, 0x1000)));
  EXPECT_TRUE(map.Covers(At(0, 0x2000)));
  EXPECT_FALSE(map.Covers(At(0x1800, 0x1000))) << "a hole at 0x2000";
  EXPECT_FALSE(map.Covers(At(0, 0)));
  EXPECT_FALSE(map.Covers(AddressRange{kBase - Bytes(1), Bytes(2)}));
}

TEST(AddressRangeMapTest, IteratesInAddressOrder) {
  AddressRangeMap<int> map;
  ASSERT_THAT(map.Insert(At(0x5000, 0x10), 3), IsOk());
  ASSERT_THAT(map.Insert(At(0, 0x10), 1), IsOk());
  ASSERT_THAT(map.Insert(At(0x2000, 0x10), 2), IsOk());
  std::vector<int> order;
  for (const auto& [start, entry] : map) order.push_back(entry.value);
  EXPECT_THAT(order, ::testing::ElementsAre(1, 2, 3));
  map.clear();
  EXPECT_TRUE(map.empty());
}

}  // namespace
}  // namespace hipmem
