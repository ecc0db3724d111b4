// clr::Memory is a move-only owner of one HSA allocation.
#include "clr/memory.h"

#include <memory>
#include <utility>

#include "gtest/gtest.h"
#include "hsa/runtime.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

class MemoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<hsa::Runtime>> rt = hsa::Runtime::Create();
    ASSERT_THAT(rt, IsOk());
    rt_ = *std::move(rt);
    for (const hsa::Agent& a : rt_->agents()) {
      if (a.type == hsa::DeviceType::kGpu) pool_ = a.pools.front();  // coarse-grained VRAM
    }
  }

  Memory Make(Bytes size) {
    absl::StatusOr<hsa::PoolAllocation> allocation = rt_->Allocate(pool_, size);
    EXPECT_THAT(allocation, IsOk());
    const DeviceAddress base = allocation->address();
    return Memory(*std::move(allocation), rt_.get(), MemoryDesc{{base, size}, base, MemoryKind::kDevice, 0, 0, pool_});
  }

  bool Live(const Memory& m) const { return rt_->FindPointer(m.desc().range.base).has_value(); }

  std::unique_ptr<hsa::Runtime> rt_;
  hsa::PoolId pool_{0};
};

TEST_F(MemoryTest, DestructorFrees) {
  DeviceAddress base(0);
  {
    Memory m = Make(Bytes::KiB(4));
    base = m.desc().range.base;
    EXPECT_TRUE(Live(m));
  }
  EXPECT_FALSE(rt_->FindPointer(base).has_value());
}

TEST_F(MemoryTest, MoveEmptiesTheSource) {
  Memory a = Make(Bytes::KiB(4));
  Memory b(std::move(a));
  EXPECT_TRUE(Live(b));
  EXPECT_THAT(std::move(a).Free(), StatusIs(absl::StatusCode::kFailedPrecondition));  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(Live(b)) << "freeing the moved-from object must not free the allocation";
}

TEST_F(MemoryTest, MoveAssignFreesTheOldAllocation) {
  Memory a = Make(Bytes::KiB(4));
  Memory b = Make(Bytes::KiB(8));
  const DeviceAddress old = b.desc().range.base;
  b = std::move(a);
  EXPECT_FALSE(rt_->FindPointer(old).has_value());
  EXPECT_TRUE(Live(b));
}

TEST_F(MemoryTest, SelfMoveIsHarmless) {
  Memory a = Make(Bytes::KiB(4));
  Memory& alias = a;
  a = std::move(alias);
  EXPECT_TRUE(Live(a));
}

TEST_F(MemoryTest, FreeReportsErrors) {
  Memory a = Make(Bytes::KiB(4));
  ASSERT_THAT(rt_->Free(a.desc().range.base), IsOk());  // freed behind the owner's back
  EXPECT_THAT(std::move(a).Free(), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace hipmem::clr
