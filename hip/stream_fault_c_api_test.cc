// A GPU memory fault under a HIP stream does not hang the host program: hipStreamSynchronize,
// hipEventSynchronize and hipDeviceSynchronize return hipErrorIllegalAddress (CUDA's sticky answer; CLR would end
// the process) and keep returning it. HIP checks every pointer it is given, so the faulting command is queued
// below HIP, on the stream's ROCclr queue, as a user kernel's stray store would be.
#include <atomic>
#include <cstdint>
#include <memory>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "hip/hip_runtime.h"
#include "hip/runtime.h"
#include "hip/streams.h"
#include "testing/notification.h"

namespace hipmem::hip {
namespace {

constexpr size_t kSize = 64 << 10;

TEST(HipStreamFault, EveryWaitOnTheFaultedDeviceReturnsIllegalAddress) {
  hipStream_t stream = nullptr, bystander = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_EQ(hipStreamCreateWithFlags(&bystander, hipStreamNonBlocking), hipSuccess);
  void* vram = nullptr;
  ASSERT_EQ(hipMalloc(&vram, kSize), hipSuccess);
  hipEvent_t after = nullptr;
  ASSERT_EQ(hipEventCreate(&after), hipSuccess);

  absl::StatusOr<Runtime*> rt = Runtime::Get();
  ASSERT_TRUE(rt.ok());
  absl::StatusOr<HipStream*> s = (*rt)->streams().Resolve(StreamHandle(reinterpret_cast<uint64_t>(stream)), 0);
  ASSERT_TRUE(s.ok());
  // Held back behind a host function, so the event is recorded before the fault can be reported.
  hipmem_testing::Notification release;
  ASSERT_EQ(hipLaunchHostFunc(
                stream, [](void* n) { static_cast<hipmem_testing::Notification*>(n)->WaitForNotification(); }, &release),
            hipSuccess);
  auto unmapped = std::make_unique<uint8_t[]>(kSize);  // process memory no GPU maps
  ASSERT_TRUE((*s)->queue()
                  .ShaderCopy(DeviceAddress::FromPointer(unmapped.get()), DeviceAddress::FromPointer(vram),
                              Bytes(kSize))
                  .ok());
  ASSERT_EQ(hipEventRecord(after, stream), hipSuccess);
  struct Seen {
    std::atomic<int> calls{0};
    std::atomic<hipError_t> status{hipSuccess};
    hipmem_testing::Notification ran;
  } seen;
  ASSERT_EQ(hipStreamAddCallback(
                stream,
                [](hipStream_t, hipError_t status, void* user) {
                  auto* seen = static_cast<Seen*>(user);
                  seen->status.store(status);
                  if (++seen->calls == 1) seen->ran.Notify();
                },
                &seen, 0),
            hipSuccess);
  EXPECT_EQ(hipEventQuery(after), hipErrorNotReady);
  release.Notify();

  EXPECT_EQ(hipEventSynchronize(after), hipErrorIllegalAddress);
  EXPECT_EQ(hipStreamSynchronize(stream), hipErrorIllegalAddress);
  EXPECT_EQ(hipGetLastError(), hipErrorIllegalAddress);
  // Sticky for the device: its other streams and the device as a whole report it too.
  EXPECT_EQ(hipStreamSynchronize(bystander), hipErrorIllegalAddress);
  EXPECT_EQ(hipDeviceSynchronize(), hipErrorIllegalAddress);
  EXPECT_EQ(hipStreamSynchronize(stream), hipErrorIllegalAddress);
  // A callback queued behind the fault still runs (on the handler thread, after the waits above returned), and
  // is told of it.
  ASSERT_TRUE(seen.ran.WaitForNotificationWithTimeout(absl::Seconds(30)));
  EXPECT_EQ(seen.calls.load(), 1);
  EXPECT_EQ(seen.status.load(), hipErrorIllegalAddress);
  // New work on the device is refused with the same error, synchronous or not.
  EXPECT_EQ(hipMemsetAsync(vram, 0, kSize, bystander), hipErrorIllegalAddress);
  EXPECT_EQ(hipMemset(vram, 0, kSize), hipErrorIllegalAddress);
  EXPECT_EQ(hipLaunchHostFunc(bystander, [](void*) {}, nullptr), hipErrorIllegalAddress);

  int devices = 0;
  ASSERT_EQ(hipGetDeviceCount(&devices), hipSuccess);
  if (devices > 1) {
    // Another GPU is another context: untouched.
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    hipStream_t other = nullptr;
    ASSERT_EQ(hipStreamCreate(&other), hipSuccess);
    void* other_vram = nullptr;
    ASSERT_EQ(hipMalloc(&other_vram, kSize), hipSuccess);
    EXPECT_EQ(hipMemsetAsync(other_vram, 0x5a, kSize, other), hipSuccess);
    EXPECT_EQ(hipStreamSynchronize(other), hipSuccess);
    EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(other), hipSuccess);
    EXPECT_EQ(hipFree(other_vram), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
  }
  // Destroying the faulted stream returns instead of waiting for work that will never run.
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipEventDestroy(after), hipSuccess);

  // hipDeviceReset ends the sticky error (CUDA's way back): the device works again, null stream included.
  EXPECT_EQ(hipDeviceReset(), hipSuccess);
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
  unsigned char* host = nullptr;
  ASSERT_EQ(hipHostMalloc(reinterpret_cast<void**>(&host), kSize), hipSuccess);
  EXPECT_EQ(hipMemset(host, 0x6b, kSize), hipSuccess);
  EXPECT_EQ(host[kSize - 1], 0x6b);
  hipStream_t fresh = nullptr;
  ASSERT_EQ(hipStreamCreate(&fresh), hipSuccess);
  EXPECT_EQ(hipMemsetAsync(host, 0x2c, kSize, fresh), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(fresh), hipSuccess);
  EXPECT_EQ(host[0], 0x2c);
  EXPECT_EQ(hipStreamSynchronize(hipStreamPerThread), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(fresh), hipSuccess);
  EXPECT_EQ(hipHostFree(host), hipSuccess);
}

}  // namespace
}  // namespace hipmem::hip
