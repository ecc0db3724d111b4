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
