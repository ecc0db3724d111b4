// Issue #24 §2: hipEvents recorded and destroyed by the thousand give their KFD event slots back, and the copy
// engines created after them still work with correct data. The KFD has 4,095 signal-event slots per process (the
// 32 KiB signal page libhsakmt maps); a process whose pending events outnumbered them at one time must not keep
// them once the events are gone.
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

// Two streams, each held behind a host function until every event is recorded, so all of them are pending at
// once: more than the KFD has slots for, whatever the CP's speed.
constexpr int kStreams = 2;
constexpr int kEventsPerStream = 3'000;  // under the stream's 4,096-packet queue, so recording never blocks

void WaitForGate(void* gate) {
  auto* open = static_cast<std::atomic<bool>*>(gate);
  while (!open->load(std::memory_order_acquire)) open->wait(false, std::memory_order_acquire);
}

// A copy round trip through both copy paths a program uses first: H2D from pinned memory, D2D, D2H.
void ExpectCopiesWork(hipStream_t stream) {
  constexpr size_t kBytes = 8 << 20;
  std::vector<uint8_t> src(kBytes), back(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
  void* pinned = nullptr;
  ASSERT_EQ(hipHostMalloc(&pinned, kBytes, hipHostMallocDefault), hipSuccess);
  std::memcpy(pinned, src.data(), kBytes);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(hipMalloc(&a, kBytes), hipSuccess);
  ASSERT_EQ(hipMalloc(&b, kBytes), hipSuccess);
  EXPECT_EQ(hipMemcpy(a, pinned, kBytes, hipMemcpyHostToDevice), hipSuccess);
  EXPECT_EQ(hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, stream), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(hipMemcpy(back.data(), b, kBytes, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(std::memcmp(back.data(), src.data(), kBytes), 0);
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(b), hipSuccess);
  EXPECT_EQ(hipHostFree(pinned), hipSuccess);
}

TEST(HipEventChurn, MorePendingEventsThanKfdSlotsThenCopiesStillWorkWithCorrectData) {
  std::atomic<bool> gate{false};
  hipStream_t streams[kStreams] = {};
  for (hipStream_t& s : streams) {
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipLaunchHostFunc(s, WaitForGate, &gate), hipSuccess);
  }
  for (int i = 0; i < kEventsPerStream; ++i) {
    for (hipStream_t s : streams) {
      hipEvent_t event = nullptr;
      ASSERT_EQ(hipEventCreate(&event), hipSuccess) << "event " << i;
      ASSERT_EQ(hipEventRecord(event, s), hipSuccess) << "event " << i;
      ASSERT_EQ(hipEventDestroy(event), hipSuccess) << "event " << i;
    }
  }
  gate.store(true, std::memory_order_release);
  gate.notify_all();
  for (hipStream_t s : streams) ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);

  // The first copies of the process: their SDMA queues (and the blit kernel's) are made only now, and need KFD
  // events of their own.
  ExpectCopiesWork(streams[0]);

  // Events still work after the churn.
  hipEvent_t last = nullptr;
  ASSERT_EQ(hipEventCreate(&last), hipSuccess);
  ASSERT_EQ(hipEventRecord(last, streams[1]), hipSuccess);
  EXPECT_EQ(hipEventSynchronize(last), hipSuccess);
  EXPECT_EQ(hipEventDestroy(last), hipSuccess);
  for (hipStream_t s : streams) EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST(HipEventChurn, TenThousandEventsRecordedAndDestroyedOneByOne) {
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  for (int i = 0; i < 10'000; ++i) {
    hipEvent_t event = nullptr;
    ASSERT_EQ(hipEventCreate(&event), hipSuccess) << "event " << i;
    ASSERT_EQ(hipEventRecord(event, stream), hipSuccess) << "event " << i;
    if (i % 64 == 0) {
      ASSERT_EQ(hipEventSynchronize(event), hipSuccess) << "event " << i;
    }
    ASSERT_EQ(hipEventDestroy(event), hipSuccess) << "event " << i;
  }
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  ExpectCopiesWork(stream);
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
}

}  // namespace
