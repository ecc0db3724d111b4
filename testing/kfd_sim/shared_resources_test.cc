#include "testing/kfd_sim/shared_resources.h"

#include <cstdint>
#include <optional>

#include "base/units.h"
#include "gtest/gtest.h"

namespace hipmem::kfd_sim {
namespace {

TEST(SharedResourcesTest, VramIsBoundedPerGpu) {
  SharedResources shared({Bytes::MiB(8), Bytes::MiB(4)}, Bytes::MiB(2));
  EXPECT_TRUE(shared.TryReserveVram(0, Bytes::MiB(6)));
  EXPECT_FALSE(shared.TryReserveVram(0, Bytes::MiB(3)));
  EXPECT_TRUE(shared.TryReserveVram(1, Bytes::MiB(4)));
  EXPECT_EQ(shared.VramUsed(0), Bytes::MiB(6));
  EXPECT_EQ(shared.VramFree(0), Bytes::MiB(2));
  EXPECT_EQ(shared.VramFree(1), Bytes(0));
  shared.ReleaseVram(0, Bytes::MiB(6));
  EXPECT_EQ(shared.VramFree(0), Bytes::MiB(8));
  EXPECT_FALSE(shared.TryReserveVram(0, Bytes(UINT64_MAX))) << "no overflow";
}

TEST(SharedResourcesTest, SystemMemoryIsOnePool) {
  SharedResources shared({Bytes::MiB(8)}, Bytes::MiB(2));
  EXPECT_TRUE(shared.TryReserveSystem(Bytes::MiB(2)));
  EXPECT_FALSE(shared.TryReserveSystem(Bytes(1)));
  EXPECT_EQ(shared.VramUsed(0), Bytes(0));
  shared.ReleaseSystem(Bytes::MiB(2));
  EXPECT_EQ(shared.SystemUsed(), Bytes(0));
}

TEST(SharedResourcesTest, MmapOffsetsArePageAlignedAndNeverReused) {
  SharedResources shared({}, Bytes::MiB(1));
  const std::optional<uint64_t> a = shared.AllocateMmapOffset(Bytes(1));
  const std::optional<uint64_t> b = shared.AllocateMmapOffset(Bytes::MiB(2));
  const std::optional<uint64_t> c = shared.AllocateMmapOffset(Bytes(1));
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(*a % 4096, 0u);
  EXPECT_EQ(*b, *a + 4096);
  EXPECT_EQ(*c, *b + (2u << 20));
  EXPECT_FALSE(shared.AllocateMmapOffset(Bytes(uint64_t{1} << 63)).has_value());
}

}  // namespace
}  // namespace hipmem::kfd_sim
