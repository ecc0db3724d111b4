// Stream-ordered allocation through the C API, as hip-tests' pool cases (hipMallocAsync, hipFreeAsync,
// hipMallocFromPoolAsync, hipMemPoolCreate/Destroy/SetGetAttribute/TrimTo/SetGetAccess, hipDeviceGet/SetMemPool,
// export/import) exercise it: behaviour and error codes a HIP program relies on.
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"
#include "testing/notification.h"

namespace {

constexpr size_t kSize = 64 << 10;

uint64_t Attr(hipMemPool_t pool, hipMemPoolAttr attr) {
  uint64_t v = ~0ull;
  EXPECT_EQ(hipMemPoolGetAttribute(pool, attr, &v), hipSuccess);
  return v;
}

hipMemPool_t DefaultPool() {
  hipMemPool_t pool = nullptr;
  EXPECT_EQ(hipDeviceGetDefaultMemPool(&pool, 0), hipSuccess);
  return pool;
}

void SetFlag(hipMemPool_t pool, hipMemPoolAttr attr, int on) {
  ASSERT_EQ(hipMemPoolSetAttribute(pool, attr, &on), hipSuccess);
}

// A stream whose queued work waits in a host function until Open().
class HeldStream {
 public:
  HeldStream() {
    EXPECT_EQ(hipStreamCreate(&stream_), hipSuccess);
    EXPECT_EQ(hipLaunchHostFunc(stream_, [](void* gate) { static_cast<hipmem_testing::Notification*>(gate)->WaitForNotification(); },
                                &gate_),
              hipSuccess);
  }
  ~HeldStream() {
    Open();
    EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
  }
  void Open() {
    if (!gate_.HasBeenNotified()) gate_.Notify();
  }
  hipStream_t get() const { return stream_; }

 private:
  hipStream_t stream_ = nullptr;
  hipmem_testing::Notification gate_;
};

class HipMemPoolCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    pool_ = DefaultPool();
    // Each test starts from defaults and an empty cache.
    for (hipMemPoolAttr a : {hipMemPoolReuseFollowEventDependencies, hipMemPoolReuseAllowOpportunistic,
                             hipMemPoolReuseAllowInternalDependencies}) {
      SetFlag(pool_, a, 1);
    }
    uint64_t zero = 0;
    ASSERT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrReleaseThreshold, &zero), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    ASSERT_EQ(hipMemPoolTrimTo(pool_, 0), hipSuccess);
  }
  hipMemPool_t pool_ = nullptr;
};

TEST_F(HipMemPoolCApi, DefaultPoolIsTheCurrentPoolAndChecksArguments) {
  hipMemPool_t current = nullptr;
  ASSERT_EQ(hipDeviceGetMemPool(&current, 0), hipSuccess);
  EXPECT_EQ(current, pool_);
  EXPECT_EQ(hipDeviceGetDefaultMemPool(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetDefaultMemPool(&current, 99), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetDefaultMemPool(&current, -1), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetMemPool(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetMemPool(&current, 99), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceSetMemPool(0, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceSetMemPool(99, pool_), hipErrorInvalidValue);
}

TEST_F(HipMemPoolCApi, MallocAsyncMemoryHoldsDataAndIsFreedInStreamOrder) {
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  void* p = nullptr;
  ASSERT_EQ(hipMallocAsync(&p, kSize, s), hipSuccess);
  ASSERT_NE(p, nullptr);
  ASSERT_EQ(hipMemsetAsync(p, 0x5a, kSize, s), hipSuccess);
  std::vector<unsigned char> out(kSize);
  ASSERT_EQ(hipMemcpyAsync(out.data(), p, kSize, hipMemcpyDeviceToHost, s), hipSuccess);
  ASSERT_EQ(hipFreeAsync(p, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(out, std::vector<unsigned char>(kSize, 0x5a));
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);

  EXPECT_EQ(hipMallocAsync(nullptr, kSize, nullptr), hipErrorInvalidValue);
  ASSERT_EQ(hipMallocAsync(&p, 0, nullptr), hipSuccess);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(hipFreeAsync(nullptr, nullptr), hipSuccess);
  int local = 0;
  EXPECT_EQ(hipFreeAsync(&local, nullptr), hipErrorInvalidValue);
}

TEST_F(HipMemPoolCApi, SameStreamReuseAccountingAndReleaseOnSynchronize) {
  HeldStream held;
  void* a = nullptr;
  ASSERT_EQ(hipMallocAsync(&a, kSize, held.get()), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemCurrent), kSize);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), kSize);
  ASSERT_EQ(hipFreeAsync(a, held.get()), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemCurrent), 0u);
  void* b = nullptr;
  ASSERT_EQ(hipMallocAsync(&b, kSize, held.get()), hipSuccess);
  EXPECT_EQ(b, a) << "a block freed on a stream is reused on it at once";
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), kSize);
  ASSERT_EQ(hipFreeAsync(b, held.get()), hipSuccess);
  held.Open();
  ASSERT_EQ(hipStreamSynchronize(held.get()), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), 0u) << "threshold 0: synchronisation releases it";
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemHigh), kSize);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemHigh), kSize);
}

TEST_F(HipMemPoolCApi, EventSynchronizeReleasesFreedMemoryAboveTheThreshold) {
  HeldStream held;  // the free's work is pending until the event's mark passes
  hipEvent_t done = nullptr;
  ASSERT_EQ(hipEventCreate(&done), hipSuccess);
  void* a = nullptr;
  ASSERT_EQ(hipMallocAsync(&a, kSize, held.get()), hipSuccess);
  ASSERT_EQ(hipFreeAsync(a, held.get()), hipSuccess);
  ASSERT_EQ(hipEventRecord(done, held.get()), hipSuccess);
  ASSERT_EQ(hipMemPoolTrimTo(pool_, 0), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), kSize) << "pending work keeps the block";
  held.Open();
  ASSERT_EQ(hipEventSynchronize(done), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), 0u);
  EXPECT_EQ(hipEventDestroy(done), hipSuccess);
}

TEST_F(HipMemPoolCApi, ReleaseThresholdKeepsMemoryAcrossSynchronize) {
  uint64_t threshold = UINT64_MAX;
  ASSERT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrReleaseThreshold, &threshold), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReleaseThreshold), UINT64_MAX);
  void* a = nullptr;
  ASSERT_EQ(hipMallocAsync(&a, kSize, nullptr), hipSuccess);
  ASSERT_EQ(hipFreeAsync(a, nullptr), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), kSize);
  ASSERT_EQ(hipMemPoolTrimTo(pool_, kSize), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), kSize) << "trim keeps at least what was asked";
  ASSERT_EQ(hipMemPoolTrimTo(pool_, 0), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), 0u);
  EXPECT_EQ(hipMemPoolTrimTo(nullptr, 0), hipErrorInvalidValue);
}

TEST_F(HipMemPoolCApi, AttributesFollowClrRules) {
  for (hipMemPoolAttr a : {hipMemPoolReuseFollowEventDependencies, hipMemPoolReuseAllowOpportunistic,
                           hipMemPoolReuseAllowInternalDependencies}) {
    SCOPED_TRACE(static_cast<int>(a));
    int v = -1;
    SetFlag(pool_, a, 0);
    ASSERT_EQ(hipMemPoolGetAttribute(pool_, a, &v), hipSuccess);
    EXPECT_EQ(v, 0);
    SetFlag(pool_, a, 1);
    ASSERT_EQ(hipMemPoolGetAttribute(pool_, a, &v), hipSuccess);
    EXPECT_EQ(v, 1);
  }
  uint64_t value = 1;
  EXPECT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrReservedMemCurrent, &value), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrUsedMemCurrent, &value), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrReservedMemHigh, &value), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrUsedMemHigh, &value), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAttribute(pool_, static_cast<hipMemPoolAttr>(99), &value), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolGetAttribute(pool_, static_cast<hipMemPoolAttr>(99), &value), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAttribute(nullptr, hipMemPoolAttrReleaseThreshold, &value), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolGetAttribute(pool_, hipMemPoolAttrReleaseThreshold, nullptr), hipErrorInvalidValue);

  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(hipMallocAsync(&a, 2 * kSize, nullptr), hipSuccess);
  ASSERT_EQ(hipMallocAsync(&b, kSize / 2, nullptr), hipSuccess);
  ASSERT_EQ(hipFreeAsync(a, nullptr), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemHigh), 2 * kSize + kSize / 2);
  value = 0;
  ASSERT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrUsedMemHigh, &value), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemHigh), kSize / 2) << "a reset high mark restarts at the current";
  ASSERT_EQ(hipMemPoolSetAttribute(pool_, hipMemPoolAttrReservedMemHigh, &value), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemHigh), 2 * kSize + kSize / 2) << "the freed block is still held";
  ASSERT_EQ(hipFreeAsync(b, nullptr), hipSuccess);
}

TEST_F(HipMemPoolCApi, HipFreeOfPoolMemoryReturnsItToThePool) {
  void* a = nullptr;
  ASSERT_EQ(hipMallocAsync(&a, kSize, nullptr), hipSuccess);
  ASSERT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrReservedMemCurrent), kSize);
  hipStream_t other = nullptr;
  ASSERT_EQ(hipStreamCreate(&other), hipSuccess);
  void* b = nullptr;
  SetFlag(pool_, hipMemPoolReuseAllowOpportunistic, 0);
  SetFlag(pool_, hipMemPoolReuseAllowInternalDependencies, 0);
  ASSERT_EQ(hipMallocAsync(&b, kSize, other), hipSuccess);
  EXPECT_EQ(b, a) << "a synchronous free is safe on every stream";
  ASSERT_EQ(hipFreeAsync(b, other), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(other), hipSuccess);
  EXPECT_EQ(hipFree(b), hipErrorInvalidValue) << "already back in the pool";
}

TEST_F(HipMemPoolCApi, FreeAsyncOfOrdinaryMemoryFreesItSynchronously) {
  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, kSize), hipSuccess);
  ASSERT_EQ(hipFreeAsync(p, nullptr), hipSuccess);
  EXPECT_EQ(hipFree(p), hipErrorInvalidValue);
}

// A stream still running work queued before a free must never see the block's new owner's data overwritten.
TEST_F(HipMemPoolCApi, CrossStreamReuseNeverLetsStaleWorkLand) {
  hipStream_t b_stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&b_stream), hipSuccess);
  for (int internal = 0; internal < 2; ++internal) {
    SCOPED_TRACE(internal);
    SetFlag(pool_, hipMemPoolReuseAllowInternalDependencies, internal);
    HeldStream held;
    void* a = nullptr;
    ASSERT_EQ(hipMallocAsync(&a, kSize, held.get()), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(a, 0xaa, kSize, held.get()), hipSuccess);  // queued behind the host function
    ASSERT_EQ(hipFreeAsync(a, held.get()), hipSuccess);
    void* b = nullptr;
    ASSERT_EQ(hipMallocAsync(&b, kSize, b_stream), hipSuccess);
    EXPECT_EQ(b == a, internal == 1) << "reused only through an internal dependency";
    ASSERT_EQ(hipMemsetAsync(b, 0xbb, kSize, b_stream), hipSuccess);
    held.Open();
    std::vector<unsigned char> out(kSize);
    ASSERT_EQ(hipMemcpyAsync(out.data(), b, kSize, hipMemcpyDeviceToHost, b_stream), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(b_stream), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(held.get()), hipSuccess);
    EXPECT_EQ(out, std::vector<unsigned char>(kSize, 0xbb));
    ASSERT_EQ(hipFreeAsync(b, b_stream), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(b_stream), hipSuccess);
  }
  EXPECT_EQ(hipStreamDestroy(b_stream), hipSuccess);
}

TEST_F(HipMemPoolCApi, EventDependencyHandsTheBlockToTheWaitingStream) {
  SetFlag(pool_, hipMemPoolReuseAllowOpportunistic, 0);
  SetFlag(pool_, hipMemPoolReuseAllowInternalDependencies, 0);
  hipStream_t b_stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&b_stream), hipSuccess);
  hipEvent_t before = nullptr, after = nullptr;
  ASSERT_EQ(hipEventCreate(&before), hipSuccess);
  ASSERT_EQ(hipEventCreate(&after), hipSuccess);
  {
    HeldStream held;
    void* a = nullptr;
    ASSERT_EQ(hipMallocAsync(&a, kSize, held.get()), hipSuccess);
    ASSERT_EQ(hipEventRecord(before, held.get()), hipSuccess);
    ASSERT_EQ(hipFreeAsync(a, held.get()), hipSuccess);
    ASSERT_EQ(hipStreamWaitEvent(b_stream, before, 0), hipSuccess);
    void* b = nullptr;
    ASSERT_EQ(hipMallocAsync(&b, kSize, b_stream), hipSuccess);
    EXPECT_NE(b, a) << "an event recorded before the free orders nothing after it";
    ASSERT_EQ(hipEventRecord(after, held.get()), hipSuccess);
    ASSERT_EQ(hipStreamWaitEvent(b_stream, after, 0), hipSuccess);
    void* c = nullptr;
    ASSERT_EQ(hipMallocAsync(&c, kSize, b_stream), hipSuccess);
    EXPECT_EQ(c, a);
    ASSERT_EQ(hipFreeAsync(b, b_stream), hipSuccess);
    ASSERT_EQ(hipFreeAsync(c, b_stream), hipSuccess);
    held.Open();
  }
  ASSERT_EQ(hipStreamSynchronize(b_stream), hipSuccess);
  EXPECT_EQ(hipEventDestroy(before), hipSuccess);
  EXPECT_EQ(hipEventDestroy(after), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(b_stream), hipSuccess);
}

TEST_F(HipMemPoolCApi, ExplicitPoolsAreCreatedBoundedSelectedAndDestroyed) {
  hipMemPoolProps props = {};
  props.allocType = hipMemAllocationTypePinned;
  props.location.type = hipMemLocationTypeDevice;
  props.location.id = 0;
  props.maxSize = 2 * kSize;
  hipMemPool_t pool = nullptr;
  EXPECT_EQ(hipMemPoolCreate(nullptr, &props), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolCreate(&pool, nullptr), hipErrorInvalidValue);
  hipMemPoolProps bad = props;
  bad.allocType = hipMemAllocationTypeInvalid;
  EXPECT_EQ(hipMemPoolCreate(&pool, &bad), hipErrorInvalidValue);
  bad = props;
  bad.location.type = hipMemLocationTypeHost;
  EXPECT_EQ(hipMemPoolCreate(&pool, &bad), hipErrorInvalidValue);
  bad = props;
  bad.location.id = 99;
  EXPECT_EQ(hipMemPoolCreate(&pool, &bad), hipErrorInvalidValue);
  ASSERT_EQ(hipMemPoolCreate(&pool, &props), hipSuccess);
  ASSERT_NE(pool, pool_);

  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&a, kSize, pool, nullptr), hipSuccess);
  ASSERT_EQ(hipMallocFromPoolAsync(&b, kSize, pool, nullptr), hipSuccess);
  EXPECT_EQ(hipMallocFromPoolAsync(&c, 1, pool, nullptr), hipErrorOutOfMemory) << "maxSize reached";
  EXPECT_EQ(hipMallocFromPoolAsync(&c, 1, nullptr, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(Attr(pool, hipMemPoolAttrUsedMemCurrent), 2 * kSize);
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemCurrent), 0u);

  ASSERT_EQ(hipDeviceSetMemPool(0, pool), hipSuccess);
  hipMemPool_t current = nullptr;
  ASSERT_EQ(hipDeviceGetMemPool(&current, 0), hipSuccess);
  EXPECT_EQ(current, pool);
  ASSERT_EQ(hipFreeAsync(a, nullptr), hipSuccess);
  ASSERT_EQ(hipMallocAsync(&c, kSize, nullptr), hipSuccess);
  EXPECT_EQ(c, a) << "hipMallocAsync draws from the device's current pool";

  EXPECT_EQ(hipMemPoolDestroy(pool_), hipErrorInvalidValue) << "a default pool stays";
  EXPECT_EQ(hipMemPoolDestroy(nullptr), hipErrorInvalidValue);
  ASSERT_EQ(hipMemPoolDestroy(pool), hipSuccess);
  EXPECT_EQ(hipMemPoolDestroy(pool), hipErrorInvalidValue);
  ASSERT_EQ(hipDeviceGetMemPool(&current, 0), hipSuccess);
  EXPECT_EQ(current, pool_) << "destroying the current pool restores the default";
  // Allocations out when the pool went are still freed normally.
  EXPECT_EQ(hipFreeAsync(b, nullptr), hipSuccess);
  EXPECT_EQ(hipFree(c), hipSuccess);
  EXPECT_EQ(hipDeviceSynchronize(), hipSuccess);
}

TEST_F(HipMemPoolCApi, AccessOfTheOwnDeviceFollowsClr) {
  hipMemLocation loc = {hipMemLocationTypeDevice, 0};
  hipMemAccessFlags flags = hipMemAccessFlagsProtNone;
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool_, &loc), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtReadWrite);
  hipMemAccessDesc desc = {loc, hipMemAccessFlagsProtNone};
  EXPECT_EQ(hipMemPoolSetAccess(pool_, &desc, 1), hipErrorInvalidDevice);
  desc.flags = hipMemAccessFlagsProtRead;
  EXPECT_EQ(hipMemPoolSetAccess(pool_, &desc, 1), hipErrorNotSupported);
  desc.flags = hipMemAccessFlagsProtReadWrite;
  EXPECT_EQ(hipMemPoolSetAccess(pool_, &desc, 1), hipSuccess);
  desc.location.id = 99;
  EXPECT_EQ(hipMemPoolSetAccess(pool_, &desc, 1), hipErrorInvalidDevice);
  desc.location = {hipMemLocationTypeHost, 0};
  EXPECT_EQ(hipMemPoolSetAccess(pool_, &desc, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAccess(pool_, nullptr, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAccess(pool_, &desc, 99), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemPoolGetAccess(nullptr, pool_, &loc), hipErrorInvalidValue);
  loc.id = 99;
  EXPECT_EQ(hipMemPoolGetAccess(&flags, pool_, &loc), hipErrorInvalidValue);
}

TEST_F(HipMemPoolCApi, PeersGainAccessToHeldAndNewBlocks) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count < 2) GTEST_SKIP() << "needs two GPUs";
  void* held = nullptr;
  ASSERT_EQ(hipMallocAsync(&held, kSize, nullptr), hipSuccess);
  hipMemLocation peer = {hipMemLocationTypeDevice, 1};
  hipMemAccessFlags flags = hipMemAccessFlagsProtReadWrite;
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool_, &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtNone);
  hipMemAccessDesc desc = {peer, hipMemAccessFlagsProtReadWrite};
  ASSERT_EQ(hipMemPoolSetAccess(pool_, &desc, 1), hipSuccess);
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool_, &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtReadWrite);
  desc.flags = hipMemAccessFlagsProtNone;
  ASSERT_EQ(hipMemPoolSetAccess(pool_, &desc, 1), hipSuccess);
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool_, &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtNone);
  // A pool of the peer is reachable from device 0 the same way.
  hipMemPool_t peer_pool = nullptr;
  ASSERT_EQ(hipDeviceGetDefaultMemPool(&peer_pool, 1), hipSuccess);
  EXPECT_NE(peer_pool, pool_);
  hipMemAccessDesc back = {{hipMemLocationTypeDevice, 0}, hipMemAccessFlagsProtReadWrite};
  ASSERT_EQ(hipMemPoolSetAccess(peer_pool, &back, 1), hipSuccess);
  EXPECT_EQ(hipDeviceSetMemPool(0, peer_pool), hipErrorInvalidDevice) << "a pool serves its own device";
  ASSERT_EQ(hipFreeAsync(held, nullptr), hipSuccess);
}

TEST_F(HipMemPoolCApi, ThreadsShareOnePoolSafely) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 200;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      hipStream_t s = nullptr;
      if (hipStreamCreate(&s) != hipSuccess) {
        ++failures[t];
        return;
      }
      std::vector<unsigned char> out(4096);
      for (int r = 0; r < kRounds; ++r) {
        void* p = nullptr;
        const unsigned char pattern = static_cast<unsigned char>(t * 50 + r % 50 + 1);
        if (hipMallocAsync(&p, 4096, s) != hipSuccess || hipMemsetAsync(p, pattern, 4096, s) != hipSuccess ||
            hipMemcpyAsync(out.data(), p, 4096, hipMemcpyDeviceToHost, s) != hipSuccess ||
            hipFreeAsync(p, s) != hipSuccess || hipStreamSynchronize(s) != hipSuccess) {
          ++failures[t];
          break;
        }
        if (out != std::vector<unsigned char>(4096, pattern)) ++failures[t];
      }
      if (hipStreamDestroy(s) != hipSuccess) ++failures[t];
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
  EXPECT_EQ(Attr(pool_, hipMemPoolAttrUsedMemCurrent), 0u);
}

TEST_F(HipMemPoolCApi, ExportAndImportAreNotSupportedAfterArgumentChecks) {
  int fd = -1;
  EXPECT_EQ(hipMemPoolExportToShareableHandle(nullptr, pool_, hipMemHandleTypePosixFileDescriptor, 0),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolExportToShareableHandle(&fd, pool_, hipMemHandleTypeNone, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolExportToShareableHandle(&fd, pool_, hipMemHandleTypePosixFileDescriptor, 0),
            hipErrorNotSupported);
  hipMemPool_t imported = nullptr;
  EXPECT_EQ(hipMemPoolImportFromShareableHandle(&imported, &fd, hipMemHandleTypePosixFileDescriptor, 0),
            hipErrorNotSupported);
  void* p = nullptr;
  ASSERT_EQ(hipMallocAsync(&p, kSize, nullptr), hipSuccess);
  hipMemPoolPtrExportData data = {};
  EXPECT_EQ(hipMemPoolExportPointer(nullptr, p), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolExportPointer(&data, p), hipErrorNotSupported);
  EXPECT_EQ(hipMemPoolImportPointer(&p, pool_, &data), hipErrorNotSupported);
  EXPECT_EQ(hipFreeAsync(p, nullptr), hipSuccess);
}

}  // namespace
