// hip::Runtime's C++ API over a private CLR context (the default simulated machine).
#include "hip/runtime.h"

#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "testing/status_matchers.h"

namespace hipmem::hip {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;

class HipRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<clr::Context>> ctx = clr::Context::Create();
    ASSERT_THAT(ctx, IsOk());
    rt_ = std::make_unique<Runtime>(*std::move(ctx));
  }
  std::unique_ptr<Runtime> rt_;
};

TEST_F(HipRuntimeTest, ZeroSizedAllocationsAreNull) {
  EXPECT_THAT(rt_->Malloc(0), hipmem_testing::IsOkAndHolds(nullptr));
  EXPECT_THAT(rt_->HostMalloc(0, 0), hipmem_testing::IsOkAndHolds(nullptr));
}

TEST_F(HipRuntimeTest, HostMallocFlagsAreValidated) {
  EXPECT_EQ(ToHipError(rt_->HostMalloc(64, 0x100).status()), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(rt_->HostMalloc(64, hipHostMallocCoherent | hipHostMallocNonCoherent).status()),
            hipErrorInvalidValue);
  ASSERT_OK_AND_ASSIGN(void* nc, rt_->HostMalloc(64, hipHostMallocNonCoherent));
  EXPECT_EQ(rt_->GetPointerAttributes(nc).allocation_flags, static_cast<uint32_t>(hipHostMallocNonCoherent));
  EXPECT_THAT(rt_->Free(nc), IsOk());
}

TEST_F(HipRuntimeTest, FreeOfUnknownInteriorOrFreedPointerIsInvalidValue) {
  ASSERT_OK_AND_ASSIGN(void* p, rt_->Malloc(4096));
  EXPECT_EQ(ToHipError(rt_->Free(static_cast<char*>(p) + 16)), hipErrorInvalidValue);
  EXPECT_THAT(rt_->Free(p), IsOk());
  EXPECT_EQ(ToHipError(rt_->Free(p)), hipErrorInvalidValue);
  EXPECT_THAT(rt_->Free(nullptr), IsOk());
}

TEST_F(HipRuntimeTest, MemcpyKindIsOnlyValidated) {
  ASSERT_OK_AND_ASSIGN(void* d, rt_->Malloc(64));
  char host[64];
  std::memset(host, 9, sizeof(host));
  // A "wrong" but valid kind still copies in the direction the pointers say (as CLR does).
  EXPECT_THAT(rt_->Memcpy(d, host, 64, MemcpyKind::kDeviceToHost), IsOk());
  char back[64] = {};
  EXPECT_THAT(rt_->Memcpy(back, d, 64, MemcpyKind::kDefault), IsOk());
  EXPECT_EQ(std::memcmp(host, back, 64), 0);
  EXPECT_EQ(ToHipError(rt_->Memcpy(d, host, 64, static_cast<MemcpyKind>(5))), hipErrorInvalidMemcpyDirection);
  EXPECT_THAT(rt_->Memcpy(d, host, 64, MemcpyKind::kDeviceToDeviceNoCu), IsOk());
  // Two unknown pointers with a device kind: the device cannot reach pageable memory.
  EXPECT_EQ(ToHipError(rt_->Memcpy(back, host, 64, MemcpyKind::kHostToDevice)), hipErrorInvalidValue);
  EXPECT_THAT(rt_->Memcpy(back, host, 64, MemcpyKind::kHostToHost), IsOk());
  EXPECT_THAT(rt_->Free(d), IsOk());
}

TEST_F(HipRuntimeTest, CurrentDeviceIsPerThread) {
  EXPECT_EQ(rt_->current_device(), 0);
  EXPECT_EQ(ToHipError(rt_->SetDevice(-1)), hipErrorInvalidDevice);
  EXPECT_EQ(ToHipError(rt_->SetDevice(rt_->device_count())), hipErrorInvalidDevice);
  EXPECT_THAT(rt_->SetDevice(0), IsOk());
  int seen = -1;
  std::thread([&] { seen = rt_->current_device(); }).join();
  EXPECT_EQ(seen, 0);
}

TEST_F(HipRuntimeTest, PointerAttributesOfUnknownPointerAreUnregistered) {
  int local = 0;
  const PointerAttributes a = rt_->GetPointerAttributes(&local);
  EXPECT_EQ(a.type, MemoryType::kUnregistered);
  EXPECT_EQ(a.device, hipInvalidDeviceId);
  EXPECT_EQ(a.device_pointer, nullptr);
}

TEST_F(HipRuntimeTest, ConcurrentMallocFreeKeepsAccountingExact) {
  ASSERT_OK_AND_ASSIGN(clr::MemInfo before, rt_->MemGetInfo());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        absl::StatusOr<void*> p = rt_->Malloc(4096 * (1 + i % 3));
        if (p.ok()) (void)rt_->Free(*p);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  ASSERT_OK_AND_ASSIGN(clr::MemInfo after, rt_->MemGetInfo());
  EXPECT_EQ(after.free, before.free);
}

}  // namespace
}  // namespace hipmem::hip
