// hip::Runtime's C++ API over a private CLR context (the default simulated machine).
#include "hip/runtime.h"

#include <atomic>
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

TEST_F(HipRuntimeTest, AsyncCopiesAndMemsetsRunInStreamOrder) {
  ASSERT_OK_AND_ASSIGN(StreamHandle stream, rt_->streams().Create(0, 0, 0));
  constexpr size_t kSize = 256 * 1024;
  ASSERT_OK_AND_ASSIGN(void* d, rt_->Malloc(kSize));
  ASSERT_OK_AND_ASSIGN(void* pinned, rt_->HostMalloc(kSize, 0));
  std::vector<unsigned char> pageable(kSize, 0);
  for (int round = 1; round <= 5; ++round) {
    ASSERT_THAT(rt_->Memset(d, 0x10 + round, 1, kSize, stream, /*async=*/true), IsOk());
    ASSERT_THAT(rt_->MemcpyAsync(pinned, d, kSize, MemcpyKind::kDeviceToHost, stream), IsOk());
    ASSERT_THAT(rt_->Memset(d, 0x20 + round, 1, kSize, stream, /*async=*/true), IsOk());
    ASSERT_THAT(rt_->MemcpyAsync(pageable.data(), d, kSize, MemcpyKind::kDeviceToHost, stream), IsOk());
    ASSERT_THAT(rt_->streams().Synchronize(*rt_->streams().Resolve(stream, 0).value()), IsOk());
    EXPECT_EQ(static_cast<unsigned char*>(pinned)[kSize - 1], 0x10 + round);
    EXPECT_EQ(pageable[0], 0x20 + round);
    EXPECT_EQ(pageable[kSize - 1], 0x20 + round);
  }
  EXPECT_THAT(rt_->streams().Destroy(stream), IsOk());
  EXPECT_EQ(ToHipError(rt_->MemcpyAsync(pinned, d, 16, MemcpyKind::kDefault, stream)), hipErrorInvalidHandle);
  EXPECT_THAT(rt_->Free(d), IsOk());
  EXPECT_THAT(rt_->Free(pinned), IsOk());
}

TEST_F(HipRuntimeTest, MemsetFollowsClrsChecks) {
  ASSERT_OK_AND_ASSIGN(void* d, rt_->Malloc(4096));
  std::vector<uint16_t> back(2048, 0);
  EXPECT_THAT(rt_->Memset(d, 0xabcd, 2, 2048, kNullStreamHandle, /*async=*/false), IsOk());
  EXPECT_THAT(rt_->Memcpy(back.data(), d, 4096, MemcpyKind::kDeviceToHost), IsOk());
  EXPECT_EQ(back[0], 0xabcd);
  EXPECT_EQ(back[2047], 0xabcd);
  char host[64];
  EXPECT_EQ(ToHipError(rt_->Memset(host, 0, 1, 64, kNullStreamHandle, false)), hipErrorInvalidValue) << "pageable";
  EXPECT_EQ(ToHipError(rt_->Memset(nullptr, 0, 1, 64, kNullStreamHandle, false)), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(rt_->Memset(d, 0, 4, 1025, kNullStreamHandle, false)), hipErrorInvalidValue) << "past the end";
  EXPECT_EQ(ToHipError(rt_->Memset(static_cast<char*>(d) + 1, 0, 4, 4, kNullStreamHandle, false)),
            hipErrorInvalidValue) << "misaligned D32";
  EXPECT_THAT(rt_->Memset(d, 0, 1, 0, kNullStreamHandle, false), IsOk());
  EXPECT_THAT(rt_->Free(d), IsOk());
}

TEST_F(HipRuntimeTest, HostFunctionsRunAfterThePrecedingWork) {
  ASSERT_OK_AND_ASSIGN(StreamHandle stream, rt_->streams().Create(0, kStreamNonBlocking, 0));
  ASSERT_OK_AND_ASSIGN(void* pinned, rt_->HostMalloc(4096, 0));
  ASSERT_OK_AND_ASSIGN(void* d, rt_->Malloc(4096));
  std::atomic<int> seen{-1};
  ASSERT_THAT(rt_->Memset(d, 0x5a, 1, 4096, stream, true), IsOk());
  ASSERT_THAT(rt_->MemcpyAsync(pinned, d, 4096, MemcpyKind::kDeviceToHost, stream), IsOk());
  ASSERT_THAT(rt_->LaunchHostFunc(stream, [&] { seen = static_cast<unsigned char*>(pinned)[4095]; }), IsOk());
  ASSERT_THAT(rt_->streams().Synchronize(*rt_->streams().Resolve(stream, 0).value()), IsOk());
  EXPECT_EQ(seen.load(), 0x5a);
  EXPECT_EQ(ToHipError(rt_->LaunchHostFunc(stream, nullptr)), hipErrorInvalidValue);
  EXPECT_THAT(rt_->streams().Destroy(stream), IsOk());
  EXPECT_THAT(rt_->Free(d), IsOk());
  EXPECT_THAT(rt_->Free(pinned), IsOk());
}

TEST_F(HipRuntimeTest, RegisteredMemoryFollowsClrsRules) {
  std::vector<unsigned char> user(64 * 1024, 0x33);
  EXPECT_EQ(ToHipError(rt_->HostRegister(nullptr, 4096, 0)), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(rt_->HostRegister(user.data(), 0, 0)), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(rt_->HostRegister(user.data(), 4096, 0x10)), hipErrorInvalidValue);
  EXPECT_EQ(ToHipError(rt_->HostRegister(user.data(), 4096, 0x40000000)), hipErrorInvalidValue);
  ASSERT_THAT(rt_->HostRegister(user.data(), 4096, hipExtHostRegisterUncached | hipHostRegisterMapped), IsOk());
  ASSERT_THAT(rt_->HostUnregister(user.data()), IsOk());
  ASSERT_THAT(rt_->HostRegister(user.data(), user.size(), 0x2), IsOk());
  EXPECT_EQ(ToHipError(rt_->HostRegister(user.data(), 4096, 0)), hipErrorHostMemoryAlreadyRegistered);
  EXPECT_EQ(ToHipError(rt_->HostGetFlags(user.data() + 10).status()), hipErrorInvalidValue)
      << "registered memory has no host allocation flags";
  ASSERT_OK_AND_ASSIGN(void* gpu, rt_->HostGetDevicePointer(user.data() + 100, 0));
  EXPECT_NE(gpu, nullptr);
  EXPECT_EQ(ToHipError(rt_->HostGetDevicePointer(user.data(), 1).status()), hipErrorInvalidValue);
  const PointerAttributes attributes = rt_->GetPointerAttributes(user.data() + 100);
  EXPECT_EQ(attributes.type, MemoryType::kHost);
  EXPECT_EQ(attributes.device_pointer, gpu);
  EXPECT_EQ(attributes.host_pointer, user.data() + 100);

  // Registered memory is host memory to a copy: 64 KiB goes to SDMA through its GPU address.
  ASSERT_OK_AND_ASSIGN(void* d, rt_->Malloc(user.size()));
  EXPECT_THAT(rt_->Memcpy(d, user.data(), user.size(), MemcpyKind::kHostToDevice), IsOk());
  std::vector<unsigned char> back(user.size(), 0);
  EXPECT_THAT(rt_->Memcpy(back.data(), d, back.size(), MemcpyKind::kDeviceToHost), IsOk());
  EXPECT_EQ(back, user);

  EXPECT_EQ(ToHipError(rt_->Free(user.data())), hipErrorInvalidValue) << "hipHostFree of registered memory";
  EXPECT_EQ(ToHipError(rt_->HostUnregister(user.data() + 1)), hipErrorHostMemoryNotRegistered);
  EXPECT_EQ(ToHipError(rt_->HostUnregister(static_cast<char*>(gpu) - 100)), hipErrorHostMemoryNotRegistered)
      << "by its GPU address";
  EXPECT_EQ(ToHipError(rt_->HostUnregister(nullptr)), hipErrorInvalidValue);
  EXPECT_THAT(rt_->HostUnregister(user.data()), IsOk());
  EXPECT_EQ(ToHipError(rt_->HostUnregister(user.data())), hipErrorHostMemoryNotRegistered);
  EXPECT_EQ(ToHipError(rt_->HostGetFlags(user.data()).status()), hipErrorInvalidValue);
  EXPECT_THAT(rt_->Free(d), IsOk());
}

// The scheduling mode decides how the host waits for the device's work (CLR's Device::ActiveWait): a device starts
// spinning, BlockingSync sleeps, Spin and Yield spin, Auto spins while the process has fewer GPUs than the host has
// hardware threads, and hipDeviceReset starts it spinning again. Work still completes either way.
TEST_F(HipRuntimeTest, SchedulingModeSetsHowTheHostWaits) {
  const clr::Context& context = rt_->context();
  EXPECT_TRUE(context.ActiveWait(0));
  ASSERT_THAT(rt_->SetDeviceFlags(hipDeviceScheduleBlockingSync), IsOk());
  EXPECT_FALSE(context.ActiveWait(0));
  absl::StatusOr<void*> allocated = rt_->Malloc(4096);
  ASSERT_THAT(allocated, IsOk());
  void* device = *allocated;
  std::vector<char> host(4096, 7);
  ASSERT_THAT(rt_->Memcpy(device, host.data(), host.size(), MemcpyKind::kHostToDevice), IsOk());
  std::vector<char> back(4096, 0);
  ASSERT_THAT(rt_->Memcpy(back.data(), device, back.size(), MemcpyKind::kDeviceToHost), IsOk());
  EXPECT_EQ(back, host);
  ASSERT_THAT(rt_->SetDeviceFlags(hipDeviceScheduleYield), IsOk());
  EXPECT_TRUE(context.ActiveWait(0));
  ASSERT_THAT(rt_->SetDeviceFlags(hipDeviceScheduleAuto), IsOk());
  EXPECT_EQ(context.ActiveWait(0), static_cast<unsigned>(rt_->device_count()) < std::thread::hardware_concurrency());
  ASSERT_THAT(rt_->SetDeviceFlags(hipDeviceScheduleBlockingSync), IsOk());
  ASSERT_THAT(rt_->Free(device), IsOk());
  ASSERT_THAT(rt_->DeviceReset(), IsOk());
  EXPECT_TRUE(context.ActiveWait(0));
}

}  // namespace
}  // namespace hipmem::hip
