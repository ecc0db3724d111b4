// Device memory pool choice (hipExtMallocWithFlags underneath), buffer ids and sync_mem_ops user data, on the
// presets that differ: mi300x (one GPU, no hive: no fine-grained VRAM pool), 2xmi250x (a hive: fine-grained VRAM),
// rx7900xtx (gfx11, no hive).
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "clr/context.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hsa/runtime.h"
#include "testing/status_matchers.h"

namespace hipmem::clr {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

std::string Preset() {
  const char* p = std::getenv("HIPMEM_SIM_PRESET");
  return p == nullptr ? "" : p;
}

class DevicePoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Context>> ctx = Context::Create();
    ASSERT_THAT(ctx, IsOk());
    ctx_ = *std::move(ctx);
    device_ = &ctx_->devices()[0];
  }

  hsa::GlobalFlags FlagsOf(hsa::PoolId pool) {
    absl::StatusOr<const hsa::MemoryPool*> p = ctx_->runtime().GetPool(pool);
    EXPECT_THAT(p, IsOk());
    return p.ok() ? (*p)->global_flags : hsa::GlobalFlags::kNone;
  }

  std::unique_ptr<Context> ctx_;
  const Device* device_ = nullptr;
};

TEST_F(DevicePoolTest, UncachedMemoryComesFromExtendedScopeFineGrainedVram) {
  ASSERT_TRUE(device_->uncached_device_pool.has_value()) << "every preset here is gfx9/gfx11";
  const hsa::PoolId pool = Context::DevicePool(*device_, DeviceGrain::kUncached);
  EXPECT_EQ(FlagsOf(pool), hsa::GlobalFlags::kExtendedScopeFineGrained);
  ASSERT_OK_AND_ASSIGN(DeviceAddress base,
                       Released(ctx_->AllocDevice(*device_, Bytes(4096), 3, {DeviceGrain::kUncached, /*contiguous=*/false})));
  std::optional<MemObjRef> ref = ctx_->Find(base);
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->desc.pool, pool);
  EXPECT_EQ(ref->desc.kind, MemoryKind::kDevice);
  EXPECT_EQ(ref->desc.user_flags, 3u);
  EXPECT_THAT(ctx_->Free(base), IsOk());
}

TEST_F(DevicePoolTest, ContiguousUncachedAllocationSucceeds) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress base,
                       Released(ctx_->AllocDevice(*device_, Bytes::MiB(4), 4, {DeviceGrain::kUncached, /*contiguous=*/true})));
  EXPECT_EQ(ctx_->Find(base)->desc.pool, Context::DevicePool(*device_, DeviceGrain::kUncached));
  EXPECT_THAT(ctx_->Free(base), IsOk());
}

TEST_F(DevicePoolTest, FineGrainedVramWhereTheAgentHasItElseCoarse) {
  const hsa::PoolId pool = Context::DevicePool(*device_, DeviceGrain::kFineGrained);
  if (Preset() == "2xmi250x") {
    EXPECT_TRUE(device_->fine_device_pool.has_value()) << "GCDs of a hive";
  }
  if (Preset() == "rx7900xtx") {
    EXPECT_FALSE(device_->fine_device_pool.has_value()) << "no hive and no HSA_FORCE_FINE_GRAIN_PCIE";
  }
  if (device_->fine_device_pool.has_value()) {
    EXPECT_EQ(FlagsOf(pool), hsa::GlobalFlags::kFineGrained);
  } else {
    EXPECT_EQ(pool, device_->device_pool) << "ROCclr falls back to coarse-grained VRAM";
  }
  ASSERT_OK_AND_ASSIGN(DeviceAddress base,
                       Released(ctx_->AllocDevice(*device_, Bytes(100), 1, {DeviceGrain::kFineGrained, false})));
  EXPECT_EQ(ctx_->Find(base)->desc.pool, pool);
  EXPECT_THAT(ctx_->Free(base), IsOk());
  EXPECT_EQ(Context::DevicePool(*device_, DeviceGrain::kCoarse), device_->device_pool);
}

TEST_F(DevicePoolTest, UncachedHostMemoryComesFromTheCpusExtendedScopePool) {
  ASSERT_TRUE(device_->host_uncached_pool.has_value()) << "ROCr's CPU pools include extended-scope fine-grained";
  EXPECT_EQ(FlagsOf(*device_->host_uncached_pool), hsa::GlobalFlags::kExtendedScopeFineGrained);
  ASSERT_OK_AND_ASSIGN(DeviceAddress base, Released(ctx_->AllocHost(*device_, Bytes(4096), HostCoherence::kUncached, 0)));
  EXPECT_EQ(ctx_->Find(base)->desc.pool, *device_->host_uncached_pool);
  EXPECT_EQ(ctx_->Find(base)->desc.kind, MemoryKind::kHost);
  EXPECT_THAT(ctx_->Free(base), IsOk());
}

TEST_F(DevicePoolTest, BufferIdsAreUniqueAndNeverReused) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, Released(ctx_->AllocDevice(*device_, Bytes(4096), 0)));
  const uint64_t first = ctx_->Find(a)->desc.buffer_id;
  EXPECT_NE(first, 0u);
  ASSERT_THAT(ctx_->Free(a), IsOk());
  // The same address may come back; its id does not.
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, Released(ctx_->AllocDevice(*device_, Bytes(4096), 0)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress h, Released(ctx_->AllocHost(*device_, Bytes(4096), HostCoherence::kCoherent, 0)));
  const uint64_t second = ctx_->Find(b)->desc.buffer_id;
  const uint64_t third = ctx_->Find(h)->desc.buffer_id;
  EXPECT_NE(second, first);
  EXPECT_NE(third, second);
  EXPECT_NE(third, first);
  EXPECT_THAT(ctx_->Free(b), IsOk());
  EXPECT_THAT(ctx_->Free(h), IsOk());
}

TEST_F(DevicePoolTest, SyncMemOpsIsKeptPerObjectAndFoundFromInteriorPointers) {
  ASSERT_OK_AND_ASSIGN(DeviceAddress a, Released(ctx_->AllocDevice(*device_, Bytes(8192), 0)));
  ASSERT_OK_AND_ASSIGN(DeviceAddress b, Released(ctx_->AllocDevice(*device_, Bytes(8192), 0)));
  EXPECT_FALSE(ctx_->Find(a)->desc.sync_mem_ops);
  ASSERT_THAT(ctx_->SetSyncMemOps(a + Bytes(100), true), IsOk());
  EXPECT_TRUE(ctx_->Find(a + Bytes(8000))->desc.sync_mem_ops);
  EXPECT_FALSE(ctx_->Find(b)->desc.sync_mem_ops);
  ASSERT_THAT(ctx_->SetSyncMemOps(a, false), IsOk());
  EXPECT_FALSE(ctx_->Find(a)->desc.sync_mem_ops);
  EXPECT_THAT(ctx_->SetSyncMemOps(DeviceAddress(0x1000), true), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(ctx_->Free(a), IsOk());
  EXPECT_THAT(ctx_->Free(b), IsOk());
}

}  // namespace
}  // namespace hipmem::clr
