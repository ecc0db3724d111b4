#include "base/strong_id.h"

#include <cstdint>
#include <sstream>
#include <type_traits>

#include "absl/hash/hash.h"
#include "gtest/gtest.h"

namespace hipmem {
namespace {

using GpuId = StrongId<struct GpuIdTag, uint32_t>;
using NodeId = StrongId<struct NodeIdTag, uint32_t>;

TEST(StrongIdTest, DistinctTagsDoNotConvert) {
  static_assert(!std::is_convertible_v<uint32_t, GpuId>);
  static_assert(!std::is_convertible_v<GpuId, uint32_t>);
  static_assert(!std::is_convertible_v<NodeId, GpuId>);
  static_assert(!std::is_default_constructible_v<GpuId>);
}

TEST(StrongIdTest, ComparesAndHashesByValue) {
  EXPECT_EQ(GpuId(7), GpuId(7));
  EXPECT_LT(GpuId(1), GpuId(2));
  EXPECT_EQ(absl::Hash<GpuId>()(GpuId(9)), absl::Hash<GpuId>()(GpuId(9)));
  EXPECT_EQ(GpuId(0x1e6a).raw(), 0x1e6au);
}

TEST(StrongIdTest, PrintsAsHex) {
  std::ostringstream os;
  os << GpuId(0x2a);
  EXPECT_EQ(os.str(), "0x2a");
}

}  // namespace
}  // namespace hipmem
