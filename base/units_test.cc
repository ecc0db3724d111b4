#include "base/units.h"

#include <cstdint>
#include <optional>

#include "gtest/gtest.h"

namespace hipmem {
namespace {

TEST(BytesTest, CheckedAddDetectsOverflow) {
  EXPECT_EQ(CheckedAdd(Bytes(1), Bytes(2)), Bytes(3));
  EXPECT_EQ(CheckedAdd(Bytes(UINT64_MAX), Bytes(1)), std::nullopt);
  EXPECT_EQ(CheckedMultiply(Bytes(UINT64_MAX / 2 + 1), 2), std::nullopt);
}

TEST(BytesTest, AlignUpRoundsToPowerOfTwo) {
  EXPECT_EQ(AlignUp(Bytes(1), Bytes::KiB(4)), Bytes::KiB(4));
  EXPECT_EQ(AlignUp(Bytes::KiB(4), Bytes::KiB(4)), Bytes::KiB(4));
  EXPECT_EQ(AlignUp(Bytes(0), Bytes::KiB(4)), Bytes(0));
  EXPECT_EQ(AlignUp(Bytes(UINT64_MAX), Bytes::KiB(4)), std::nullopt);
  EXPECT_EQ(AlignUp(Bytes(5), Bytes(3)), std::nullopt);
  EXPECT_EQ(AlignDown(Bytes(4097), Bytes::KiB(4)), Bytes::KiB(4));
}

TEST(DeviceAddressTest, AffineArithmetic) {
  const DeviceAddress base(0x1000);
  EXPECT_EQ(base + Bytes(0x10), DeviceAddress(0x1010));
  EXPECT_EQ(DeviceAddress(0x1010) - base, Bytes(0x10));
  EXPECT_EQ(CheckedAdd(DeviceAddress(UINT64_MAX), Bytes(1)), std::nullopt);
}

TEST(DeviceAddressTest, AlignDownRoundsTowardZero) {
  EXPECT_EQ(AlignDown(DeviceAddress(0x1fff), Bytes::KiB(4)), DeviceAddress(0x1000));
  EXPECT_EQ(AlignDown(DeviceAddress(0x1000), Bytes::KiB(4)), DeviceAddress(0x1000));
  EXPECT_EQ(AlignDown(DeviceAddress(0xfff), Bytes::KiB(4)), DeviceAddress(0));
  EXPECT_EQ(AlignDown(DeviceAddress(0x1235), Bytes(1)), DeviceAddress(0x1235));
  // At the top of the address space it stays in range: the last page's start.
  EXPECT_EQ(AlignDown(DeviceAddress(UINT64_MAX), Bytes::KiB(4)), DeviceAddress(0xffff'ffff'ffff'f000));
}

TEST(DeviceAddressTest, AlignUpRoundsAwayFromZeroOrFailsPastTheTop) {
  EXPECT_EQ(AlignUp(DeviceAddress(0x1001), Bytes::KiB(4)), DeviceAddress(0x2000));
  EXPECT_EQ(AlignUp(DeviceAddress(0x1000), Bytes::KiB(4)), DeviceAddress(0x1000));
  EXPECT_EQ(AlignUp(DeviceAddress(0), Bytes::KiB(4)), DeviceAddress(0));
  EXPECT_EQ(AlignUp(DeviceAddress(0x1235), Bytes(1)), DeviceAddress(0x1235));
  // The highest aligned address is reachable; one byte past it the rounding would wrap to 0, which is refused.
  EXPECT_EQ(AlignUp(DeviceAddress(0xffff'ffff'ffff'efff), Bytes::KiB(4)), DeviceAddress(0xffff'ffff'ffff'f000));
  EXPECT_EQ(AlignUp(DeviceAddress(0xffff'ffff'ffff'f000), Bytes::KiB(4)), DeviceAddress(0xffff'ffff'ffff'f000));
  EXPECT_EQ(AlignUp(DeviceAddress(0xffff'ffff'ffff'f001), Bytes::KiB(4)), std::nullopt);
  EXPECT_EQ(AlignUp(DeviceAddress(UINT64_MAX), Bytes(2)), std::nullopt);
  EXPECT_EQ(AlignUp(DeviceAddress(UINT64_MAX), Bytes(1)), DeviceAddress(UINT64_MAX));
  // Only powers of two are alignments.
  EXPECT_EQ(AlignUp(DeviceAddress(0x1000), Bytes(3)), std::nullopt);
  EXPECT_EQ(AlignUp(DeviceAddress(0x1000), Bytes(0)), std::nullopt);
}

TEST(DeviceAddressTest, IsAlignedAtEveryPowerOfTwo) {
  EXPECT_TRUE(IsAligned(DeviceAddress(0x2000), Bytes::KiB(8)));
  EXPECT_FALSE(IsAligned(DeviceAddress(0x3000), Bytes::KiB(8)));
  EXPECT_TRUE(IsAligned(DeviceAddress(0x3000), Bytes::KiB(4)));
  EXPECT_TRUE(IsAligned(DeviceAddress(0), Bytes::GiB(1)));
  EXPECT_TRUE(IsAligned(DeviceAddress(0xffff'ffff'ffff'f000), Bytes::KiB(4)));
  EXPECT_FALSE(IsAligned(DeviceAddress(UINT64_MAX), Bytes(2)));
  // AlignDown and AlignUp land on aligned addresses.
  for (const uint64_t raw : {uint64_t{1}, uint64_t{0x1234'5677}, uint64_t{0xffff'ffff'fffe'0001}}) {
    SCOPED_TRACE(raw);
    EXPECT_TRUE(IsAligned(AlignDown(DeviceAddress(raw), Bytes::KiB(64)), Bytes::KiB(64)));
    const std::optional<DeviceAddress> up = AlignUp(DeviceAddress(raw), Bytes::KiB(64));
    ASSERT_TRUE(up.has_value());
    EXPECT_TRUE(IsAligned(*up, Bytes::KiB(64)));
    EXPECT_EQ(*up - AlignDown(DeviceAddress(raw), Bytes::KiB(64)), Bytes::KiB(64));
  }
}

TEST(AddressRangeTest, ContainsIsHalfOpen) {
  const AddressRange r{DeviceAddress(0x1000), Bytes(0x100)};
  EXPECT_TRUE(r.Contains(DeviceAddress(0x1000)));
  EXPECT_TRUE(r.Contains(DeviceAddress(0x10ff)));
  EXPECT_FALSE(r.Contains(DeviceAddress(0x1100)));
  EXPECT_FALSE(r.Contains(DeviceAddress(0xfff)));
}

TEST(AddressRangeTest, OverlapNeedsSharedByte) {
  const AddressRange r{DeviceAddress(0x1000), Bytes(0x100)};
  EXPECT_TRUE(r.Overlaps({DeviceAddress(0x10ff), Bytes(1)}));
  EXPECT_FALSE(r.Overlaps({DeviceAddress(0x1100), Bytes(0x100)}));
  EXPECT_FALSE(r.Overlaps({DeviceAddress(0x1000), Bytes(0)}));
}

}  // namespace
}  // namespace hipmem
