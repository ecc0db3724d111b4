// Stream-ordered allocation under load: 10^4 steps of alloc / fill / free / reuse over three streams, with random
// host-function delays holding streams back, random event edges between them and the reuse attributes switched
// at random, checked against a model. Each live block holds the pattern its owner's last fill wrote; an owner's
// fill is queued behind its delays, so a block handed to another stream while that fill is still pending gets
// the stale pattern written over the new owner's once the delay ends -- which the periodic check after a device
// synchronisation catches.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

constexpr int kStreams = 3;
constexpr int kSteps = 10000;
constexpr int kCheckEvery = 64;
constexpr size_t kSizes[] = {4 << 10, 8 << 10, 16 << 10, 64 << 10};

struct Live {
  void* ptr;
  size_t size;
  int stream;
  unsigned char pattern;
};

void Delay(void* micros) {
  std::this_thread::sleep_for(std::chrono::microseconds(reinterpret_cast<uintptr_t>(micros)));
}

TEST(MemPoolStress, RandomReuseAcrossStreamsNeverLetsStaleWorkLand) {
  std::mt19937 rng(20261126);
  hipStream_t streams[kStreams];
  hipEvent_t events[kStreams];
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_EQ(hipStreamCreate(&streams[i]), hipSuccess);
    ASSERT_EQ(hipEventCreateWithFlags(&events[i], hipEventDisableTiming), hipSuccess);
  }
  hipMemPool_t pool = nullptr;
  ASSERT_EQ(hipDeviceGetDefaultMemPool(&pool, 0), hipSuccess);
  uint64_t threshold = 1 << 20;  // some blocks survive each synchronisation, some go back
  ASSERT_EQ(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &threshold), hipSuccess);

  std::vector<Live> live;
  std::vector<int> freed_on;       // parallel to `recent`: the stream a recently freed address left on
  std::vector<void*> recent;
  int cross_stream_reuses = 0;
  int checks = 0;
  unsigned char next_pattern = 1;
  std::vector<unsigned char> host(64 << 10);

  for (int step = 0; step < kSteps; ++step) {
    const int s = static_cast<int>(rng() % kStreams);
    const unsigned roll = rng() % 100;
    if (roll < 15) {
      // Hold the stream back for a while: everything queued on it after this waits.
      ASSERT_EQ(hipLaunchHostFunc(streams[s], Delay, reinterpret_cast<void*>(uintptr_t{rng() % 300})), hipSuccess);
    } else if (roll < 25) {
      const int from = static_cast<int>(rng() % kStreams);
      ASSERT_EQ(hipEventRecord(events[from], streams[from]), hipSuccess);
      ASSERT_EQ(hipStreamWaitEvent(streams[s], events[from], 0), hipSuccess);
    } else if ((roll < 57 || live.empty()) && live.size() < 24) {
      const size_t size = kSizes[rng() % std::size(kSizes)];
      void* p = nullptr;
      ASSERT_EQ(hipMallocAsync(&p, size, streams[s]), hipSuccess);
      for (size_t i = 0; i < recent.size(); ++i) {
        if (recent[i] == p && freed_on[i] != s) ++cross_stream_reuses;
      }
      const unsigned char pattern = next_pattern;
      next_pattern = next_pattern == 255 ? 1 : next_pattern + 1;
      ASSERT_EQ(hipMemsetAsync(p, pattern, size, streams[s]), hipSuccess);
      live.push_back({p, size, s, pattern});
    } else if (roll < 67) {
      // The owner writes its block again (behind any delay queued on its stream).
      Live& b = live[rng() % live.size()];
      b.pattern = next_pattern;
      next_pattern = next_pattern == 255 ? 1 : next_pattern + 1;
      ASSERT_EQ(hipMemsetAsync(b.ptr, b.pattern, b.size, streams[b.stream]), hipSuccess);
    } else {
      const size_t i = rng() % live.size();
      const Live b = live[i];
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      ASSERT_EQ(hipFreeAsync(b.ptr, streams[b.stream]), hipSuccess);
      recent.push_back(b.ptr);
      freed_on.push_back(b.stream);
      if (recent.size() > 64) {
        recent.erase(recent.begin());
        freed_on.erase(freed_on.begin());
      }
    }
    if (step % 997 == 0) {
      // Switch the reuse rules: every combination must stay safe.
      for (hipMemPoolAttr a : {hipMemPoolReuseFollowEventDependencies, hipMemPoolReuseAllowOpportunistic,
                               hipMemPoolReuseAllowInternalDependencies}) {
        int on = static_cast<int>(rng() % 2);
        ASSERT_EQ(hipMemPoolSetAttribute(pool, a, &on), hipSuccess);
      }
    }
    if (step % kCheckEvery == kCheckEvery - 1) {
      ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
      for (const Live& b : live) {
        ASSERT_EQ(hipMemcpy(host.data(), b.ptr, b.size, hipMemcpyDeviceToHost), hipSuccess);
        for (size_t k = 0; k < b.size; ++k) {
          ASSERT_EQ(host[k], b.pattern) << "step " << step << ": block " << b.ptr << " of stream " << b.stream
                                        << " holds another owner's write at byte " << k;
        }
        ++checks;
      }
    }
  }
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  for (const Live& b : live) ASSERT_EQ(hipFreeAsync(b.ptr, streams[b.stream]), hipSuccess);
  for (int i = 0; i < kStreams; ++i) {
    EXPECT_EQ(hipStreamDestroy(streams[i]), hipSuccess);
    EXPECT_EQ(hipEventDestroy(events[i]), hipSuccess);
  }
  // The run exercised what it guards: blocks changed streams, and live data was checked.
  EXPECT_GT(cross_stream_reuses, 100);
  EXPECT_GT(checks, 500);
  uint64_t used = 1;
  ASSERT_EQ(hipMemPoolGetAttribute(pool, hipMemPoolAttrUsedMemCurrent, &used), hipSuccess);
  EXPECT_EQ(used, 0u);
}

}  // namespace
