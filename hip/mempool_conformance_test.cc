// hip-tests' stream-ordered pool scenarios (hipMallocAsync, hipFreeAsync, hipMallocFromPoolAsync, hipMemPoolApi,
// hipMemPoolCreate/Destroy/SetGetAttribute/SetGetAccess/TrimTo, hipDeviceGet/SetMemPool, export/import) that need
// no user kernel and that hip_mempool_c_api_test.cc does not already cover, through <hip/hip_runtime.h> only, with
// CLR's error codes. Where hip-tests hold a buffer busy with a spinning kernel, a host function waiting on a gate
// does the same on the stream. Departures from CLR, each asserted on purpose:
//   - ReuseAllowInternalDependencies is honoured (issue 10: CLR stores it and never reads it), so with it on a
//     block freed behind pending work goes to another stream after a GPU wait, where CLR hands out a new block;
//   - hipMemPoolTrimTo keeps at least minBytesToKeep reserved (CUDA's guarantee); CLR trims the free heap alone
//     down to that many bytes;
//   - a destroyed or foreign pool handle is hipErrorInvalidValue everywhere (CLR dereferences it);
//   - export and import answer hipErrorNotSupported after CLR's argument checks (one process on the simulator).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"
#include "testing/notification.h"

namespace {

constexpr size_t kPage = 4096;
constexpr size_t kMiB = size_t{1} << 20;
constexpr uint64_t kKeepAll = std::numeric_limits<uint64_t>::max();

uint64_t Attr(hipMemPool_t pool, hipMemPoolAttr attr) {
  uint64_t v = ~0ull;
  EXPECT_EQ(hipMemPoolGetAttribute(pool, attr, &v), hipSuccess);
  return v;
}

int Flag(hipMemPool_t pool, hipMemPoolAttr attr) {
  int v = -1;
  EXPECT_EQ(hipMemPoolGetAttribute(pool, attr, &v), hipSuccess);
  return v;
}

void SetFlag(hipMemPool_t pool, hipMemPoolAttr attr, int on) {
  ASSERT_EQ(hipMemPoolSetAttribute(pool, attr, &on), hipSuccess);
}

void SetThreshold(hipMemPool_t pool, uint64_t bytes) {
  ASSERT_EQ(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, &bytes), hipSuccess);
}

// Sets the three reuse rules at once: event dependencies, opportunistic, internal dependencies.
void SetReuse(hipMemPool_t pool, int events, int opportunistic, int internal) {
  SetFlag(pool, hipMemPoolReuseFollowEventDependencies, events);
  SetFlag(pool, hipMemPoolReuseAllowOpportunistic, opportunistic);
  SetFlag(pool, hipMemPoolReuseAllowInternalDependencies, internal);
}

int DeviceCount() {
  int n = 0;
  EXPECT_EQ(hipGetDeviceCount(&n), hipSuccess);
  return n;
}

hipMemPool_t DefaultPool(int device) {
  hipMemPool_t pool = nullptr;
  EXPECT_EQ(hipDeviceGetDefaultMemPool(&pool, device), hipSuccess);
  return pool;
}

hipMemPoolProps PinnedProps(int device) {
  hipMemPoolProps props;
  std::memset(&props, 0, sizeof(props));
  props.allocType = hipMemAllocationTypePinned;
  props.handleTypes = hipMemHandleTypeNone;
  props.location.type = hipMemLocationTypeDevice;
  props.location.id = device;
  return props;
}

// A pool created on `device` and destroyed with the test.
class CreatedPool {
 public:
  explicit CreatedPool(int device, size_t max_size = 0) {
    hipMemPoolProps props = PinnedProps(device);
    props.maxSize = max_size;
    EXPECT_EQ(hipMemPoolCreate(&pool_, &props), hipSuccess);
  }
  ~CreatedPool() {
    if (pool_ != nullptr) {
      EXPECT_EQ(hipMemPoolDestroy(pool_), hipSuccess);
    }
  }
  CreatedPool(const CreatedPool&) = delete;
  CreatedPool& operator=(const CreatedPool&) = delete;
  hipMemPool_t get() const { return pool_; }

 private:
  hipMemPool_t pool_ = nullptr;
};

// A stream (of the current device) whose later work waits in a host function until Open(), as hip-tests' spinning
// kernel holds a buffer busy.
class GatedStream {
 public:
  explicit GatedStream(unsigned flags = hipStreamDefault) {
    EXPECT_EQ(hipStreamCreateWithFlags(&stream_, flags), hipSuccess);
    Close();
  }
  ~GatedStream() {
    Open();
    EXPECT_EQ(hipStreamDestroy(stream_), hipSuccess);
  }
  GatedStream(const GatedStream&) = delete;
  GatedStream& operator=(const GatedStream&) = delete;
  // Queues a new gate: work queued after this waits until the next Open().
  void Close() {
    Open();
    gate_ = std::make_unique<hipmem_testing::Notification>();
    EXPECT_EQ(hipLaunchHostFunc(
                  stream_, [](void* g) { static_cast<hipmem_testing::Notification*>(g)->WaitForNotification(); }, gate_.get()),
              hipSuccess);
  }
  void Open() {
    if (gate_ != nullptr && !gate_->HasBeenNotified()) gate_->Notify();
  }
  hipStream_t get() const { return stream_; }

 private:
  hipStream_t stream_ = nullptr;
  std::unique_ptr<hipmem_testing::Notification> gate_;  // kept alive after Open: the host function may still read it
};

std::vector<uint8_t> ReadBack(const void* dev, size_t size, hipStream_t stream) {
  std::vector<uint8_t> out(size, 0);
  EXPECT_EQ(hipMemcpyAsync(out.data(), dev, size, hipMemcpyDeviceToHost, stream), hipSuccess);
  EXPECT_EQ(hipStreamSynchronize(stream), hipSuccess);
  return out;
}

class MemPoolConformance : public ::testing::Test {
 protected:
  void SetUp() override {
    devices_ = DeviceCount();
    ASSERT_GE(devices_, 1);
    // Every test starts on device 0 with each device's default pool current, at CLR's defaults, and empty.
    for (int d = 0; d < devices_; ++d) {
      ASSERT_EQ(hipSetDevice(d), hipSuccess);
      hipMemPool_t pool = DefaultPool(d);
      ASSERT_EQ(hipDeviceSetMemPool(d, pool), hipSuccess);
      SetReuse(pool, 1, 1, 1);
      SetThreshold(pool, 0);
      ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
      ASSERT_EQ(hipMemPoolTrimTo(pool, 0), hipSuccess);
    }
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
  }
  void TearDown() override { EXPECT_EQ(hipSetDevice(0), hipSuccess); }

  int devices_ = 0;
};

// --- hipMemPoolSetGetAttribute -------------------------------------------------------------------------------

TEST_F(MemPoolConformance, EveryDeviceReportsPoolSupport) {
  for (int d = 0; d < devices_; ++d) {
    int supported = 0;
    ASSERT_EQ(hipDeviceGetAttribute(&supported, hipDeviceAttributeMemoryPoolsSupported, d), hipSuccess);
    EXPECT_EQ(supported, 1) << "device " << d << ": hip-tests skip every pool case without it";
    hipDeviceProp_t prop;
    ASSERT_EQ(hipGetDeviceProperties(&prop, d), hipSuccess);
    EXPECT_EQ(prop.memoryPoolsSupported, 1);
  }
}

TEST_F(MemPoolConformance, EveryPoolStartsAtClrDefaultsAndRoundTripsEachAttribute) {
  for (int d = 0; d < devices_; ++d) {
    CreatedPool created(d);
    for (hipMemPool_t pool : {DefaultPool(d), created.get()}) {
      SCOPED_TRACE(testing::Message() << "device " << d << (pool == created.get() ? " created" : " default"));
      for (hipMemPoolAttr a : {hipMemPoolReuseFollowEventDependencies, hipMemPoolReuseAllowOpportunistic,
                               hipMemPoolReuseAllowInternalDependencies}) {
        EXPECT_EQ(Flag(pool, a), 1) << "reuse rules start enabled";
        SetFlag(pool, a, 0);
        EXPECT_EQ(Flag(pool, a), 0);
        SetFlag(pool, a, 1);
      }
      EXPECT_EQ(Attr(pool, hipMemPoolAttrReleaseThreshold), 0u) << "default release threshold";
      for (uint64_t t : {uint64_t{kPage}, kKeepAll, uint64_t{0}}) {
        SetThreshold(pool, t);
        EXPECT_EQ(Attr(pool, hipMemPoolAttrReleaseThreshold), t);
      }
      uint64_t zero = 0;
      ASSERT_EQ(hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemHigh, &zero), hipSuccess);
      ASSERT_EQ(hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, &zero), hipSuccess);
      EXPECT_EQ(Attr(pool, hipMemPoolAttrReservedMemHigh), 0u);
      EXPECT_EQ(Attr(pool, hipMemPoolAttrUsedMemHigh), 0u);
      EXPECT_EQ(Attr(pool, hipMemPoolAttrUsedMemCurrent), 0u);
      EXPECT_EQ(Attr(pool, hipMemPoolAttrReservedMemCurrent), 0u);
    }
  }
}

TEST_F(MemPoolConformance, AttributeArgumentsAreCheckedWithClrCodes) {
  hipMemPool_t pool = DefaultPool(0);
  int flag = 0;
  uint64_t bytes = 0;
  EXPECT_EQ(hipMemPoolSetAttribute(nullptr, hipMemPoolReuseFollowEventDependencies, &flag), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolGetAttribute(nullptr, hipMemPoolReuseFollowEventDependencies, &flag), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAttribute(pool, hipMemPoolReuseFollowEventDependencies, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, nullptr), hipErrorInvalidValue);
  for (int bad : {0, 9, -1}) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(hipMemPoolSetAttribute(pool, static_cast<hipMemPoolAttr>(bad), &bytes), hipErrorInvalidValue);
    EXPECT_EQ(hipMemPoolGetAttribute(pool, static_cast<hipMemPoolAttr>(bad), &bytes), hipErrorInvalidValue);
  }
  EXPECT_EQ(Flag(pool, hipMemPoolReuseFollowEventDependencies), 1) << "a failed set changes nothing";
  // Not a pool at all: CLR would dereference it; here it is refused.
  int not_a_pool = 0;
  EXPECT_EQ(hipMemPoolGetAttribute(reinterpret_cast<hipMemPool_t>(&not_a_pool), hipMemPoolAttrReleaseThreshold,
                                   &bytes),
            hipErrorInvalidValue);
}

TEST_F(MemPoolConformance, HighMarksResetToZeroOnceTheMemoryIsReleased) {
  CreatedPool pool(0);
  uint64_t zero = 0;
  ASSERT_EQ(hipMemPoolSetAttribute(pool.get(), hipMemPoolAttrReservedMemHigh, &zero), hipSuccess);
  ASSERT_EQ(hipMemPoolSetAttribute(pool.get(), hipMemPoolAttrUsedMemHigh, &zero), hipSuccess);
  void* p = nullptr;
  constexpr size_t kBytes = (1 << 14) * sizeof(int);
  ASSERT_EQ(hipMallocFromPoolAsync(&p, kBytes, pool.get(), nullptr), hipSuccess);
  ASSERT_EQ(hipFreeAsync(p, nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemHigh), kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemHigh), kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), 0u) << "threshold 0: the sync gave it back";
  ASSERT_EQ(hipMemPoolSetAttribute(pool.get(), hipMemPoolAttrReservedMemHigh, &zero), hipSuccess);
  ASSERT_EQ(hipMemPoolSetAttribute(pool.get(), hipMemPoolAttrUsedMemHigh, &zero), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemHigh), 0u);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemHigh), 0u);
}

TEST_F(MemPoolConformance, UsageStatisticsFollowTwentyAllocationsExactly) {
  constexpr int kCount = 20;
  constexpr size_t kBytes = (1 << 14) * sizeof(int);
  CreatedPool pool(0);
  uint64_t zero = 0;
  ASSERT_EQ(hipMemPoolSetAttribute(pool.get(), hipMemPoolAttrReservedMemHigh, &zero), hipSuccess);
  ASSERT_EQ(hipMemPoolSetAttribute(pool.get(), hipMemPoolAttrUsedMemHigh, &zero), hipSuccess);
  void* p[kCount] = {};
  for (void*& q : p) ASSERT_EQ(hipMallocFromPoolAsync(&q, kBytes, pool.get(), nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), kCount * kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemHigh), kCount * kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), kCount * kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemHigh), kCount * kBytes);
  for (int i = 0; i < kCount / 2; ++i) ASSERT_EQ(hipFreeAsync(p[i], nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), (kCount / 2) * kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), (kCount / 2) * kBytes) << "threshold 0";
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemHigh), kCount * kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemHigh), kCount * kBytes);
  for (int i = kCount / 2; i < kCount; ++i) ASSERT_EQ(hipFreeAsync(p[i], nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemHigh), kCount * kBytes);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemHigh), kCount * kBytes);
}

TEST_F(MemPoolConformance, OnlyThePoolAllocatedFromCountsTheMemory) {
  hipMemPool_t def = DefaultPool(0);
  CreatedPool created(0);
  void* plain = nullptr;
  ASSERT_EQ(hipMalloc(&plain, 1 << 16), hipSuccess);
  EXPECT_EQ(Attr(def, hipMemPoolAttrUsedMemCurrent), 0u) << "hipMalloc is not pool memory";
  EXPECT_EQ(Attr(def, hipMemPoolAttrReservedMemCurrent), 0u);
  EXPECT_EQ(Attr(def, hipMemPoolAttrUsedMemHigh), 0u);
  ASSERT_EQ(hipFree(plain), hipSuccess);

  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  void* a = nullptr;
  ASSERT_EQ(hipMallocAsync(&a, 1 << 16, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(Attr(def, hipMemPoolAttrUsedMemCurrent), 1u << 16);
  EXPECT_EQ(Attr(created.get(), hipMemPoolAttrUsedMemCurrent), 0u) << "a created pool is not current by itself";
  void* b = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&b, 1 << 15, created.get(), s), hipSuccess);
  EXPECT_EQ(Attr(created.get(), hipMemPoolAttrUsedMemCurrent), 1u << 15);
  EXPECT_EQ(Attr(def, hipMemPoolAttrUsedMemCurrent), 1u << 16);
  ASSERT_EQ(hipFreeAsync(a, s), hipSuccess);
  ASSERT_EQ(hipFreeAsync(b, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(Attr(def, hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(Attr(created.get(), hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// --- Reuse rules (hipMemPoolApi_Opportunistic, hipMemPoolSetAttribute_Opportunistic / _EventDependencies) ------

TEST_F(MemPoolConformance, WithEveryRuleOffOnlyTheFreeingStreamReuses) {
  CreatedPool pool(0);
  SetThreshold(pool.get(), kKeepAll);  // the completed free stays cached through the syncs below
  SetReuse(pool.get(), 0, 0, 0);
  GatedStream s1(hipStreamNonBlocking);
  hipStream_t s2 = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking), hipSuccess);
  constexpr size_t kBytes = 2 * kPage * kPage;
  void* a = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&a, kBytes, pool.get(), s1.get()), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(a, 1, kBytes, s1.get()), hipSuccess);
  ASSERT_EQ(hipFreeAsync(a, s1.get()), hipSuccess);
  s1.Open();
  ASSERT_EQ(hipStreamSynchronize(s1.get()), hipSuccess);
  void* b = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&b, kBytes, pool.get(), s2), hipSuccess);
  EXPECT_NE(b, a) << "no rule lets another stream take it, even with its work done";
  void* c = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&c, kBytes, pool.get(), s1.get()), hipSuccess);
  EXPECT_EQ(c, a) << "the freeing stream always may";
  ASSERT_EQ(hipFreeAsync(b, s2), hipSuccess);
  ASSERT_EQ(hipFreeAsync(c, s1.get()), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s2), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s1.get()), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s2), hipSuccess);
}

TEST_F(MemPoolConformance, OpportunisticReuseTakesOnlyACompletedFree) {
  CreatedPool pool(0);
  SetThreshold(pool.get(), kKeepAll);
  SetReuse(pool.get(), 0, 1, 0);
  GatedStream s1(hipStreamNonBlocking);
  hipStream_t s2 = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking), hipSuccess);
  constexpr size_t kBytes = 2 * kPage * kPage;
  void* a = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&a, kBytes, pool.get(), s1.get()), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(a, 1, kBytes, s1.get()), hipSuccess);
  ASSERT_EQ(hipFreeAsync(a, s1.get()), hipSuccess);
  void* pending = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&pending, kBytes, pool.get(), s2), hipSuccess);
  EXPECT_NE(pending, a) << "the free's work is still queued";
  s1.Open();
  ASSERT_EQ(hipStreamSynchronize(s1.get()), hipSuccess);
  void* done = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&done, kBytes, pool.get(), s2), hipSuccess);
  EXPECT_EQ(done, a) << "completed: any stream may take it";
  ASSERT_EQ(hipFreeAsync(pending, s2), hipSuccess);
  ASSERT_EQ(hipFreeAsync(done, s2), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s2), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s2), hipSuccess);
}

TEST_F(MemPoolConformance, WithoutEventDependenciesAWaitHandsNothingOver) {
  CreatedPool pool(0);
  hipStream_t s2 = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking), hipSuccess);
  hipEvent_t ev = nullptr;
  ASSERT_EQ(hipEventCreate(&ev), hipSuccess);
  constexpr size_t kBytes = 2 * kPage * kPage;
  for (int internal = 0; internal < 2; ++internal) {
    SCOPED_TRACE(internal);
    SetReuse(pool.get(), 0, 1, internal);
    GatedStream s1(hipStreamNonBlocking);
    void* a = nullptr;
    ASSERT_EQ(hipMallocFromPoolAsync(&a, kBytes, pool.get(), s1.get()), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(a, 0xaa, kBytes, s1.get()), hipSuccess);
    ASSERT_EQ(hipFreeAsync(a, s1.get()), hipSuccess);
    ASSERT_EQ(hipEventRecord(ev, s1.get()), hipSuccess);
    ASSERT_EQ(hipStreamWaitEvent(s2, ev, 0), hipSuccess);
    void* b = nullptr;
    ASSERT_EQ(hipMallocFromPoolAsync(&b, kBytes, pool.get(), s2), hipSuccess);
    // CLR's answer (a new block) with internal dependencies off; with them on, the block is reused behind a GPU
    // wait, which CLR never does (it ignores the attribute).
    EXPECT_EQ(b == a, internal == 1);
    ASSERT_EQ(hipMemsetAsync(b, 0xbb, kBytes, s2), hipSuccess);
    s1.Open();
    EXPECT_EQ(ReadBack(b, kBytes, s2), std::vector<uint8_t>(kBytes, 0xbb)) << "the old owner's fill never lands";
    ASSERT_EQ(hipFreeAsync(b, s2), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s2), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s1.get()), hipSuccess);
  }
  EXPECT_EQ(hipEventDestroy(ev), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s2), hipSuccess);
}

// --- hipMemPoolCreate / hipMemPoolDestroy / hipDeviceGet/SetMemPool ------------------------------------------

TEST_F(MemPoolConformance, CreateChecksPropertiesWithClrCodes) {
  hipMemPool_t pool = nullptr;
  hipMemPoolProps props = PinnedProps(0);
  props.location.type = hipMemLocationTypeInvalid;
  EXPECT_EQ(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
  props = PinnedProps(devices_);
  EXPECT_EQ(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue) << "one past the last device";
  props = PinnedProps(-1);
  EXPECT_EQ(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
  props = PinnedProps(0);
  props.allocType = static_cast<hipMemAllocationType>(0x7);
  EXPECT_EQ(hipMemPoolCreate(&pool, &props), hipErrorInvalidValue);
  EXPECT_EQ(pool, nullptr) << "nothing written on failure";
  // Linux: CLR takes any handle type at creation (only Windows refuses a POSIX descriptor).
  props = PinnedProps(0);
  props.handleTypes = hipMemHandleTypePosixFileDescriptor;
  ASSERT_EQ(hipMemPoolCreate(&pool, &props), hipSuccess);
  void* p = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&p, kPage, pool, nullptr), hipSuccess);
  int fd = -1;
  EXPECT_EQ(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 1),
            hipErrorInvalidValue)
      << "flags must be 0";
  EXPECT_EQ(hipMemPoolExportToShareableHandle(&fd, nullptr, hipMemHandleTypePosixFileDescriptor, 0),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolExportToShareableHandle(&fd, pool, hipMemHandleTypePosixFileDescriptor, 0),
            hipErrorNotSupported)
      << "one process on the simulated KFD";
  ASSERT_EQ(hipFreeAsync(p, nullptr), hipSuccess);
  ASSERT_EQ(hipMemPoolDestroy(pool), hipSuccess);
}

TEST_F(MemPoolConformance, ImportArgumentsAreCheckedBeforeNotSupported) {
  hipMemPool_t pool = nullptr;
  int fd = 3;
  EXPECT_EQ(hipMemPoolImportFromShareableHandle(nullptr, &fd, hipMemHandleTypePosixFileDescriptor, 0),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolImportFromShareableHandle(&pool, nullptr, hipMemHandleTypePosixFileDescriptor, 0),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolImportFromShareableHandle(&pool, &fd, hipMemHandleTypePosixFileDescriptor, 1),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolImportFromShareableHandle(&pool, &fd, hipMemHandleTypeNone, 0), hipErrorInvalidValue);
  hipMemPoolPtrExportData data;
  std::memset(&data, 0, sizeof(data));
  void* p = nullptr;
  EXPECT_EQ(hipMemPoolExportPointer(&data, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolImportPointer(nullptr, DefaultPool(0), &data), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolImportPointer(&p, nullptr, &data), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPoolImportPointer(&p, DefaultPool(0), nullptr), hipErrorInvalidValue);
}

TEST_F(MemPoolConformance, MaxSizeBoundsWhatThePoolHolds) {
  constexpr size_t kMax = 64 * kMiB;
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  {
    CreatedPool bounded(0, kMax);
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(hipMallocFromPoolAsync(&a, kMax / 2, bounded.get(), s), hipSuccess);
    EXPECT_EQ(hipMallocFromPoolAsync(&b, kMax / 2 + kMiB, bounded.get(), s), hipErrorOutOfMemory);
    EXPECT_EQ(Attr(bounded.get(), hipMemPoolAttrUsedMemCurrent), kMax / 2) << "a failed allocation holds nothing";
    ASSERT_EQ(hipMallocFromPoolAsync(&b, kMax / 2, bounded.get(), s), hipSuccess) << "exactly full is allowed";
    EXPECT_EQ(hipMallocFromPoolAsync(&b, std::numeric_limits<size_t>::max(), bounded.get(), s),
              hipErrorOutOfMemory);
    ASSERT_EQ(hipFreeAsync(a, s), hipSuccess);
    ASSERT_EQ(hipFreeAsync(b, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  }
  {
    CreatedPool unbounded(0);
    void* a = nullptr;
    void* b = nullptr;
    ASSERT_EQ(hipMallocFromPoolAsync(&a, kMax / 2, unbounded.get(), s), hipSuccess);
    ASSERT_EQ(hipMallocFromPoolAsync(&b, kMax / 2 + kMiB, unbounded.get(), s), hipSuccess);
    ASSERT_EQ(hipFreeAsync(a, s), hipSuccess);
    ASSERT_EQ(hipFreeAsync(b, s), hipSuccess);
    void* huge = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(hipMallocFromPoolAsync(&huge, std::numeric_limits<size_t>::max(), unbounded.get(), s),
              hipErrorOutOfMemory);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(Attr(unbounded.get(), hipMemPoolAttrUsedMemCurrent), 0u);
  }
  void* huge = nullptr;
  EXPECT_EQ(hipMallocAsync(&huge, std::numeric_limits<size_t>::max(), s), hipErrorOutOfMemory);
  EXPECT_EQ(Attr(DefaultPool(0), hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

TEST_F(MemPoolConformance, EachDeviceHasItsOwnDefaultAndCurrentPool) {
  std::vector<hipMemPool_t> defaults;
  for (int d = 0; d < devices_; ++d) {
    SCOPED_TRACE(d);
    defaults.push_back(DefaultPool(d));
    for (int e = 0; e < d; ++e) EXPECT_NE(defaults[d], defaults[e]);
    hipMemPool_t current = nullptr;
    ASSERT_EQ(hipDeviceGetMemPool(&current, d), hipSuccess);
    EXPECT_EQ(current, defaults[d]);
    hipMemLocation own = {hipMemLocationTypeDevice, d};
    hipMemAccessFlags flags = hipMemAccessFlagsProtNone;
    ASSERT_EQ(hipMemPoolGetAccess(&flags, defaults[d], &own), hipSuccess);
    EXPECT_EQ(flags, hipMemAccessFlagsProtReadWrite);
  }
  for (int d = 0; d < devices_; ++d) {
    SCOPED_TRACE(d);
    hipMemPoolProps props = PinnedProps(d);
    hipMemPool_t created = nullptr;
    ASSERT_EQ(hipMemPoolCreate(&created, &props), hipSuccess);
    hipMemPool_t current = nullptr;
    ASSERT_EQ(hipDeviceGetMemPool(&current, d), hipSuccess);
    EXPECT_EQ(current, defaults[d]) << "creating a pool does not make it current";
    ASSERT_EQ(hipDeviceSetMemPool(d, created), hipSuccess);
    ASSERT_EQ(hipDeviceGetMemPool(&current, d), hipSuccess);
    EXPECT_EQ(current, created);
    // hipMallocAsync takes from the current pool of the stream's device, whichever device is current.
    ASSERT_EQ(hipSetDevice(d), hipSuccess);
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    void* p = nullptr;
    ASSERT_EQ(hipMallocAsync(&p, 3 * kPage, s), hipSuccess);
    EXPECT_EQ(Attr(created, hipMemPoolAttrUsedMemCurrent), 3 * kPage);
    for (int e = 0; e < devices_; ++e) EXPECT_EQ(Attr(defaults[e], hipMemPoolAttrUsedMemCurrent), 0u);
    ASSERT_EQ(hipMemsetAsync(p, 0x3c, 3 * kPage, s), hipSuccess);
    EXPECT_EQ(ReadBack(p, 3 * kPage, s), std::vector<uint8_t>(3 * kPage, 0x3c));
    ASSERT_EQ(hipFreeAsync(p, s), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
    // Destroying the current pool makes the default current again.
    ASSERT_EQ(hipMemPoolDestroy(created), hipSuccess);
    ASSERT_EQ(hipDeviceGetMemPool(&current, d), hipSuccess);
    EXPECT_EQ(current, defaults[d]);
  }
  hipMemPool_t out = nullptr;
  EXPECT_EQ(hipDeviceGetMemPool(&out, -1), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetMemPool(&out, devices_), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceSetMemPool(-1, defaults[0]), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceSetMemPool(devices_, defaults[0]), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetDefaultMemPool(&out, devices_), hipErrorInvalidDevice);
  if (devices_ >= 2) {
    EXPECT_EQ(hipDeviceSetMemPool(1, defaults[0]), hipErrorInvalidDevice) << "a pool serves its own device";
  }
}

TEST_F(MemPoolConformance, DestroyedAndForeignPoolHandlesAreRefused) {
  hipMemPoolProps props = PinnedProps(0);
  hipMemPool_t gone = nullptr;
  ASSERT_EQ(hipMemPoolCreate(&gone, &props), hipSuccess);
  ASSERT_EQ(hipMemPoolDestroy(gone), hipSuccess);
  int local = 0;
  hipMemPool_t foreign = reinterpret_cast<hipMemPool_t>(&local);
  for (hipMemPool_t bad : {gone, foreign}) {
    SCOPED_TRACE(bad == gone ? "destroyed" : "foreign");
    void* p = nullptr;
    EXPECT_EQ(hipMallocFromPoolAsync(&p, kPage, bad, nullptr), hipErrorInvalidValue);
    EXPECT_EQ(p, nullptr);
    uint64_t v = 0;
    EXPECT_EQ(hipMemPoolSetAttribute(bad, hipMemPoolAttrReleaseThreshold, &v), hipErrorInvalidValue);
    EXPECT_EQ(hipMemPoolGetAttribute(bad, hipMemPoolAttrReleaseThreshold, &v), hipErrorInvalidValue);
    EXPECT_EQ(hipMemPoolTrimTo(bad, 0), hipErrorInvalidValue);
    hipMemAccessDesc desc = {{hipMemLocationTypeDevice, 0}, hipMemAccessFlagsProtReadWrite};
    EXPECT_EQ(hipMemPoolSetAccess(bad, &desc, 1), hipErrorInvalidValue);
    hipMemAccessFlags flags = hipMemAccessFlagsProtNone;
    EXPECT_EQ(hipMemPoolGetAccess(&flags, bad, &desc.location), hipErrorInvalidValue);
    EXPECT_EQ(hipDeviceSetMemPool(0, bad), hipErrorInvalidValue);
    EXPECT_EQ(hipMemPoolDestroy(bad), hipErrorInvalidValue);
    int fd = -1;
    EXPECT_EQ(hipMemPoolExportToShareableHandle(&fd, bad, hipMemHandleTypePosixFileDescriptor, 0),
              hipErrorInvalidValue);
  }
  hipMemPool_t current = nullptr;
  ASSERT_EQ(hipDeviceGetMemPool(&current, 0), hipSuccess);
  EXPECT_EQ(current, DefaultPool(0)) << "a refused set leaves the current pool";
}

// A pool destroyed while a freed block's earlier work is still queued keeps the block until that work is done:
// hipMemPoolDestroy returns only then (CLR's pool destructor waits the same way), so the work never lands in memory
// the device has handed to someone else.
TEST_F(MemPoolConformance, DestroyWaitsForWorkQueuedBeforeAFree) {
  hipMemPoolProps props = PinnedProps(0);
  hipMemPool_t pool = nullptr;
  ASSERT_EQ(hipMemPoolCreate(&pool, &props), hipSuccess);
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreateWithFlags(&s, hipStreamNonBlocking), hipSuccess);
  hipmem_testing::Notification gate;
  ASSERT_EQ(hipLaunchHostFunc(
                s, [](void* g) { static_cast<hipmem_testing::Notification*>(g)->WaitForNotification(); }, &gate),
            hipSuccess);
  void* p = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&p, 1 << 20, pool, s), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(p, 0x5a, 1 << 20, s), hipSuccess);
  ASSERT_EQ(hipFreeAsync(p, s), hipSuccess);
  EXPECT_EQ(hipStreamQuery(s), hipErrorNotReady);
  std::thread opener([&gate] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    gate.Notify();
  });
  ASSERT_EQ(hipMemPoolDestroy(pool), hipSuccess);
  EXPECT_EQ(hipStreamQuery(s), hipSuccess) << "the destroy waited for the work queued before the free";
  opener.join();
  EXPECT_EQ(hipMemPoolDestroy(pool), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// hipMemPoolCreate_DeviceTest "Accessibility": device 0's pool serves an allocation made while device 1 is
// current, on device 1's null stream; device 0 then uses it and frees it on its own null stream.
TEST_F(MemPoolConformance, APoolServesStreamsOfAnotherDevice) {
  if (devices_ < 2) GTEST_SKIP() << "needs two GPUs";
  CreatedPool pool(0);
  constexpr size_t kBytes = (1 << 12) * sizeof(int);
  for (int d = 1; d < devices_; ++d) {
    ASSERT_EQ(hipSetDevice(d), hipSuccess);
    void* p = nullptr;
    ASSERT_EQ(hipMallocFromPoolAsync(&p, kBytes, pool.get(), nullptr), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, p), hipSuccess);
    EXPECT_EQ(attr.device, 0) << "the pool's device holds it";
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(p, 0x42, kBytes, nullptr), hipSuccess);
    EXPECT_EQ(ReadBack(p, kBytes, nullptr), std::vector<uint8_t>(kBytes, 0x42));
    ASSERT_EQ(hipFreeAsync(p, nullptr), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
    EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), 0u);
  }
}

// --- hipMemPoolTrimTo ----------------------------------------------------------------------------------------

TEST_F(MemPoolConformance, TrimLeavesPendingFreesAndTheReleaseThresholdLeavesCompletedOnes) {
  CreatedPool pool(0);
  GatedStream s;
  const size_t big = 2 * kPage * kPage;
  const size_t small = kPage / 2;
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&a, big, pool.get(), s.get()), hipSuccess);
  ASSERT_EQ(hipMallocFromPoolAsync(&b, small, pool.get(), s.get()), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(a, 7, big, s.get()), hipSuccess);
  const uint64_t threshold = 128 * kMiB;
  SetThreshold(pool.get(), threshold);
  ASSERT_EQ(hipFreeAsync(a, s.get()), hipSuccess);
  const uint64_t before = Attr(pool.get(), hipMemPoolAttrReservedMemCurrent);
  EXPECT_EQ(before, big + small);
  ASSERT_EQ(hipMemPoolTrimTo(pool.get(), small), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), before) << "the free's work is still queued";
  s.Open();
  ASSERT_EQ(hipStreamSynchronize(s.get()), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), before) << "below the threshold: kept";
  ASSERT_EQ(hipMemPoolTrimTo(pool.get(), small), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), small);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReleaseThreshold), threshold);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), small);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemHigh), big + small);
  ASSERT_EQ(hipFreeAsync(b, s.get()), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s.get()), hipSuccess);
}

// CUDA's rule: after TrimTo(n) the pool still reserves at least n bytes (CLR trims the free heap to n instead).
TEST_F(MemPoolConformance, TrimKeepsAtLeastMinBytesToKeepReserved) {
  CreatedPool pool(0);
  SetThreshold(pool.get(), kKeepAll);
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  void* p[4] = {};
  for (void*& q : p) ASSERT_EQ(hipMallocFromPoolAsync(&q, kMiB, pool.get(), s), hipSuccess);
  for (int i = 1; i < 4; ++i) ASSERT_EQ(hipFreeAsync(p[i], s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), 4 * kMiB);
  ASSERT_EQ(hipMemPoolTrimTo(pool.get(), 10 * kMiB), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), 4 * kMiB) << "less than asked: a no-op";
  ASSERT_EQ(hipMemPoolTrimTo(pool.get(), 3 * kMiB + kMiB / 2), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), 4 * kMiB) << "one block less would be too little";
  ASSERT_EQ(hipMemPoolTrimTo(pool.get(), 3 * kMiB), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), 3 * kMiB);
  ASSERT_EQ(hipMemPoolTrimTo(pool.get(), kMiB / 2), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), kMiB) << "the busy block counts, never trimmed";
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), kMiB);
  ASSERT_EQ(hipFreeAsync(p[0], s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  ASSERT_EQ(hipMemPoolTrimTo(pool.get(), 0), hipSuccess);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), 0u);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// hipMemPoolTrimTo_VaryingMinBytesToHold: a trim between rounds never disturbs the data of the next round.
TEST_F(MemPoolConformance, TrimBetweenRoundsKeepsResultsRight) {
  constexpr int kRounds = 10;
  constexpr size_t kBytes = 256 << 10;
  for (int d = 0; d < devices_; ++d) {
    SCOPED_TRACE(d);
    ASSERT_EQ(hipSetDevice(d), hipSuccess);
    CreatedPool pool(d);
    SetThreshold(pool.get(), kKeepAll);
    hipStream_t s = nullptr;
    ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
    std::vector<uint8_t> in(kBytes);
    for (int r = 1; r <= kRounds; ++r) {
      const size_t keep = kBytes * 3 * (kRounds - r) / kRounds;
      const uint64_t reserved = Attr(pool.get(), hipMemPoolAttrReservedMemCurrent);
      ASSERT_EQ(hipMemPoolTrimTo(pool.get(), keep), hipSuccess);
      const uint64_t after = Attr(pool.get(), hipMemPoolAttrReservedMemCurrent);
      EXPECT_LE(after, reserved);
      EXPECT_GE(after, std::min<uint64_t>(reserved, keep));
      for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<uint8_t>(i * 7 + r);
      void* a = nullptr;
      void* b = nullptr;
      void* c = nullptr;
      ASSERT_EQ(hipMallocFromPoolAsync(&a, kBytes, pool.get(), s), hipSuccess);
      ASSERT_EQ(hipMallocFromPoolAsync(&b, kBytes, pool.get(), s), hipSuccess);
      ASSERT_EQ(hipMallocFromPoolAsync(&c, kBytes, pool.get(), s), hipSuccess);
      ASSERT_EQ(hipMemcpyAsync(a, in.data(), kBytes, hipMemcpyHostToDevice, s), hipSuccess);
      ASSERT_EQ(hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, s), hipSuccess);
      ASSERT_EQ(hipMemcpyAsync(c, b, kBytes, hipMemcpyDeviceToDevice, s), hipSuccess);
      std::vector<uint8_t> out = ReadBack(c, kBytes, s);
      EXPECT_EQ(out, in);
      for (void* q : {a, b, c}) ASSERT_EQ(hipFreeAsync(q, s), hipSuccess);
      ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
    }
    EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
  }
}

// --- hipMemPoolSetAccess / hipMemPoolGetAccess ---------------------------------------------------------------

TEST_F(MemPoolConformance, AccessDescriptorsAreCheckedWithClrCodes) {
  for (int d = 0; d < devices_; ++d) {
    CreatedPool created(d);
    for (hipMemPool_t pool : {DefaultPool(d), created.get()}) {
      SCOPED_TRACE(testing::Message() << "device " << d << (pool == created.get() ? " created" : " default"));
      hipMemAccessDesc desc = {{hipMemLocationTypeDevice, d}, hipMemAccessFlagsProtReadWrite};
      EXPECT_EQ(hipMemPoolSetAccess(pool, &desc, 1), hipSuccess) << "own device read-write: a no-op";
      hipMemAccessFlags flags = hipMemAccessFlagsProtNone;
      ASSERT_EQ(hipMemPoolGetAccess(&flags, pool, &desc.location), hipSuccess);
      EXPECT_EQ(flags, hipMemAccessFlagsProtReadWrite);
      EXPECT_EQ(hipMemPoolSetAccess(pool, &desc, 0), hipSuccess) << "an empty list";
      EXPECT_EQ(hipMemPoolSetAccess(pool, &desc, devices_ + 1), hipErrorInvalidDevice);
      hipMemAccessDesc bad = desc;
      bad.flags = static_cast<hipMemAccessFlags>(0xffff);
      EXPECT_EQ(hipMemPoolSetAccess(pool, &bad, 1), hipErrorInvalidValue);
      bad = desc;
      bad.location.type = hipMemLocationTypeInvalid;
      EXPECT_EQ(hipMemPoolSetAccess(pool, &bad, 1), hipErrorInvalidValue);
      bad = desc;
      bad.location.id = -1;
      EXPECT_EQ(hipMemPoolSetAccess(pool, &bad, 1), hipErrorInvalidDevice);
      bad.location.id = devices_;
      EXPECT_EQ(hipMemPoolSetAccess(pool, &bad, 1), hipErrorInvalidDevice);

      hipMemLocation loc = {hipMemLocationTypeInvalid, d};
      EXPECT_EQ(hipMemPoolGetAccess(&flags, pool, &loc), hipErrorInvalidValue);
      loc = {hipMemLocationTypeDevice, devices_};
      EXPECT_EQ(hipMemPoolGetAccess(&flags, pool, &loc), hipErrorInvalidValue);
      loc.id = -1;
      EXPECT_EQ(hipMemPoolGetAccess(&flags, pool, &loc), hipErrorInvalidValue);
      EXPECT_EQ(hipMemPoolGetAccess(&flags, pool, nullptr), hipErrorInvalidValue);
      EXPECT_EQ(hipMemPoolGetAccess(&flags, nullptr, &desc.location), hipErrorInvalidValue);
    }
  }
}

TEST_F(MemPoolConformance, PeerAccessFlagsAreKeptAndCheckedBeforeAnyApplies) {
  if (devices_ < 2) GTEST_SKIP() << "needs two GPUs";
  CreatedPool pool(0);
  hipMemLocation peer = {hipMemLocationTypeDevice, 1};
  hipMemAccessFlags flags = hipMemAccessFlagsProtReadWrite;
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool.get(), &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtNone) << "a peer starts without access";
  // One bad descriptor fails the whole list before anything applies.
  hipMemAccessDesc list[2] = {{peer, hipMemAccessFlagsProtReadWrite},
                              {{hipMemLocationTypeDevice, 0}, hipMemAccessFlagsProtNone}};
  EXPECT_EQ(hipMemPoolSetAccess(pool.get(), list, 2), hipErrorInvalidDevice);
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool.get(), &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtNone);
  // Read-only for a peer is reported back as it was set (the KFD maps it read-write underneath).
  hipMemAccessDesc read = {peer, hipMemAccessFlagsProtRead};
  ASSERT_EQ(hipMemPoolSetAccess(pool.get(), &read, 1), hipSuccess);
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool.get(), &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtRead);
  // Own device and peer in one list, as hip-tests' array case does.
  list[1].flags = hipMemAccessFlagsProtReadWrite;
  ASSERT_EQ(hipMemPoolSetAccess(pool.get(), list, 2), hipSuccess);
  for (int d : {0, 1}) {
    hipMemLocation loc = {hipMemLocationTypeDevice, d};
    ASSERT_EQ(hipMemPoolGetAccess(&flags, pool.get(), &loc), hipSuccess);
    EXPECT_EQ(flags, hipMemAccessFlagsProtReadWrite) << d;
  }
  hipMemAccessDesc none = {peer, hipMemAccessFlagsProtNone};
  ASSERT_EQ(hipMemPoolSetAccess(pool.get(), &none, 1), hipSuccess);
  ASSERT_EQ(hipMemPoolGetAccess(&flags, pool.get(), &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtNone);
  // Access of another pool is its own.
  ASSERT_EQ(hipMemPoolGetAccess(&flags, DefaultPool(0), &peer), hipSuccess);
  EXPECT_EQ(flags, hipMemAccessFlagsProtNone);
}

// hipMemPoolSetGetAccess_Positive_P2P and hipMemPoolSetAccess_SetAccess without kernels: device 1's engines fill
// and copy blocks of device 0's pool once the pool grants it access, ordered by an event across devices.
TEST_F(MemPoolConformance, APeerWithAccessWorksOnThePoolsBlocks) {
  if (devices_ < 2) GTEST_SKIP() << "needs two GPUs";
  CreatedPool created(0);
  for (hipMemPool_t pool : {DefaultPool(0), created.get()}) {
    SCOPED_TRACE(pool == created.get() ? "created" : "default");
    for (size_t bytes : {kPage / 2, kPage, 2 * kPage}) {
      SCOPED_TRACE(bytes);
      ASSERT_EQ(hipSetDevice(0), hipSuccess);
      hipStream_t s0 = nullptr;
      ASSERT_EQ(hipStreamCreateWithFlags(&s0, hipStreamNonBlocking), hipSuccess);
      hipEvent_t filled = nullptr;
      ASSERT_EQ(hipEventCreate(&filled), hipSuccess);
      void* src = nullptr;
      ASSERT_EQ(hipMallocFromPoolAsync(&src, bytes, pool, s0), hipSuccess);
      std::vector<uint8_t> in(bytes);
      for (size_t i = 0; i < bytes; ++i) in[i] = static_cast<uint8_t>(i * 31 + 5);
      ASSERT_EQ(hipMemcpyAsync(src, in.data(), bytes, hipMemcpyHostToDevice, s0), hipSuccess);
      ASSERT_EQ(hipEventRecord(filled, s0), hipSuccess);

      ASSERT_EQ(hipSetDevice(1), hipSuccess);
      hipStream_t s1 = nullptr;
      ASSERT_EQ(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking), hipSuccess);
      void* dst = nullptr;
      ASSERT_EQ(hipMallocAsync(&dst, bytes, s1), hipSuccess);
      hipMemAccessDesc desc = {{hipMemLocationTypeDevice, 1}, hipMemAccessFlagsProtReadWrite};
      ASSERT_EQ(hipMemPoolSetAccess(pool, &desc, 1), hipSuccess);
      hipMemAccessFlags flags = hipMemAccessFlagsProtNone;
      ASSERT_EQ(hipMemPoolGetAccess(&flags, pool, &desc.location), hipSuccess);
      EXPECT_EQ(flags, hipMemAccessFlagsProtReadWrite);
      // A block made after the grant is reachable too.
      void* later = nullptr;
      ASSERT_EQ(hipMallocFromPoolAsync(&later, bytes, pool, s1), hipSuccess);
      ASSERT_EQ(hipStreamWaitEvent(s1, filled, 0), hipSuccess);
      ASSERT_EQ(hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, s1), hipSuccess);
      ASSERT_EQ(hipMemsetAsync(src, 0x11, bytes, s1), hipSuccess) << "device 1 writes device 0's block";
      ASSERT_EQ(hipMemcpyAsync(later, dst, bytes, hipMemcpyDeviceToDevice, s1), hipSuccess);
      std::vector<uint8_t> copied = ReadBack(later, bytes, s1);
      std::vector<uint8_t> overwritten = ReadBack(src, bytes, s1);
      // Device 0's pool blocks freed on device 1's stream, as hip-tests do.
      ASSERT_EQ(hipFreeAsync(src, s1), hipSuccess);
      ASSERT_EQ(hipFreeAsync(later, s1), hipSuccess);
      ASSERT_EQ(hipFreeAsync(dst, s1), hipSuccess);
      ASSERT_EQ(hipStreamSynchronize(s1), hipSuccess);
      EXPECT_EQ(copied, in);
      EXPECT_EQ(overwritten, std::vector<uint8_t>(bytes, 0x11));
      EXPECT_EQ(hipStreamDestroy(s1), hipSuccess);
      hipMemAccessDesc revoke = {{hipMemLocationTypeDevice, 1}, hipMemAccessFlagsProtNone};
      ASSERT_EQ(hipMemPoolSetAccess(pool, &revoke, 1), hipSuccess);
      ASSERT_EQ(hipSetDevice(0), hipSuccess);
      ASSERT_EQ(hipStreamSynchronize(s0), hipSuccess);
      EXPECT_EQ(hipEventDestroy(filled), hipSuccess);
      EXPECT_EQ(hipStreamDestroy(s0), hipSuccess);
      EXPECT_EQ(Attr(pool, hipMemPoolAttrUsedMemCurrent), 0u);
      EXPECT_EQ(Attr(DefaultPool(1), hipMemPoolAttrUsedMemCurrent), 0u);
    }
  }
}

// --- hipFreeAsync / hipMallocAsync on special streams --------------------------------------------------------

TEST_F(MemPoolConformance, FreeAsyncRefusesDoubleFreesAndDeadStreams) {
  hipMemPool_t pool = DefaultPool(0);
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  void* p = nullptr;
  ASSERT_EQ(hipMallocAsync(&p, 1024, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  ASSERT_EQ(hipFreeAsync(p, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(hipFreeAsync(p, s), hipErrorInvalidValue) << "freed and given back to the device";

  // Freed twice while the block is still cached: the pool keeps it, whole.
  SetThreshold(pool, kKeepAll);
  ASSERT_EQ(hipMallocAsync(&p, 1024, s), hipSuccess);
  ASSERT_EQ(hipFreeAsync(p, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(hipFreeAsync(p, s), hipErrorInvalidValue);
  EXPECT_EQ(hipFreeAsync(p, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(Attr(pool, hipMemPoolAttrReservedMemCurrent), 1024u);
  EXPECT_EQ(Attr(pool, hipMemPoolAttrUsedMemCurrent), 0u);
  void* again = nullptr;
  ASSERT_EQ(hipMallocAsync(&again, 1024, s), hipSuccess);
  EXPECT_EQ(again, p) << "still in the pool, reusable";
  ASSERT_EQ(hipMemsetAsync(again, 0x77, 1024, s), hipSuccess);
  EXPECT_EQ(ReadBack(again, 1024, s), std::vector<uint8_t>(1024, 0x77));

  // A destroyed stream: both calls fail and change nothing.
  hipStream_t dead = nullptr;
  ASSERT_EQ(hipStreamCreate(&dead), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(dead), hipSuccess);
  EXPECT_EQ(hipFreeAsync(again, dead), hipErrorInvalidHandle);
  EXPECT_EQ(Attr(pool, hipMemPoolAttrUsedMemCurrent), 1024u) << "still allocated";
  void* q = nullptr;
  EXPECT_EQ(hipMallocAsync(&q, 1024, dead), hipErrorInvalidHandle);
  EXPECT_EQ(hipMallocFromPoolAsync(&q, 1024, pool, dead), hipErrorInvalidHandle);
  EXPECT_EQ(Attr(pool, hipMemPoolAttrUsedMemCurrent), 1024u);
  ASSERT_EQ(hipFreeAsync(again, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// hipMallocFromPoolAsync_NullStream / _hipStreamPerThread with the default threshold and the maximum one.
TEST_F(MemPoolConformance, NullAndPerThreadStreamsRoundTripWithBothThresholds) {
  constexpr size_t kBytes = 1 << 20;
  std::vector<uint8_t> in(kBytes);
  for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<uint8_t>(i ^ (i >> 9));
  for (hipStream_t s : {static_cast<hipStream_t>(nullptr), hipStreamPerThread}) {
    for (uint64_t threshold : {uint64_t{0}, kKeepAll}) {
      SCOPED_TRACE(testing::Message() << (s == nullptr ? "null stream" : "per-thread stream") << ", threshold "
                                      << threshold);
      CreatedPool pool(0);
      SetThreshold(pool.get(), threshold);
      void* first = nullptr;
      for (int round = 0; round < 3; ++round) {
        void* a = nullptr;
        void* b = nullptr;
        ASSERT_EQ(hipMallocFromPoolAsync(&a, kBytes, pool.get(), s), hipSuccess);
        ASSERT_EQ(hipMallocFromPoolAsync(&b, kBytes, pool.get(), s), hipSuccess);
        if (round == 0) first = a;
        ASSERT_EQ(hipMemcpyAsync(a, in.data(), kBytes, hipMemcpyHostToDevice, s), hipSuccess);
        ASSERT_EQ(hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, s), hipSuccess);
        std::vector<uint8_t> out = ReadBack(b, kBytes, s);
        EXPECT_EQ(out, in);
        ASSERT_EQ(hipFreeAsync(a, s), hipSuccess);
        ASSERT_EQ(hipFreeAsync(b, s), hipSuccess);
        ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
        EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrReservedMemCurrent), threshold == 0 ? 0 : 2 * kBytes);
        if (threshold != 0 && round > 0) {
          EXPECT_TRUE(a == first || b == first) << "kept blocks are reused";
        }
      }
    }
  }
}

// A free on the legacy null stream is ordered after work already queued on the blocking streams of the device, and
// a free on the (blocking) per-thread stream after work queued on the null stream, so the next user of the block on
// the freeing stream is never overwritten by that work.
TEST_F(MemPoolConformance, FreeOnLegacyStreamsWaitsForTheWorkTheyOrderAfter) {
  constexpr size_t kBytes = 64 << 10;
  hipStream_t user = nullptr;
  ASSERT_EQ(hipStreamCreate(&user), hipSuccess);  // blocking: the null stream waits for it
  const hipStream_t cases[2][2] = {{user, nullptr}, {nullptr, hipStreamPerThread}};  // {busy, freer}
  for (const auto& c : cases) {
    const hipStream_t busy = c[0];
    const hipStream_t freer = c[1];
    SCOPED_TRACE(freer == nullptr ? "freed on the null stream" : "freed on the per-thread stream");
    hipmem_testing::Notification gate;
    ASSERT_EQ(hipLaunchHostFunc(
                  busy, [](void* g) { static_cast<hipmem_testing::Notification*>(g)->WaitForNotification(); }, &gate),
              hipSuccess);
    void* p = nullptr;
    ASSERT_EQ(hipMallocAsync(&p, kBytes, busy), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(p, 0xaa, kBytes, busy), hipSuccess);  // held behind the gate
    ASSERT_EQ(hipFreeAsync(p, freer), hipSuccess);
    void* q = nullptr;
    ASSERT_EQ(hipMallocAsync(&q, kBytes, freer), hipSuccess);
    EXPECT_EQ(q, p) << "the freeing stream reuses at once";
    ASSERT_EQ(hipMemsetAsync(q, 0xbb, kBytes, freer), hipSuccess);
    gate.Notify();
    EXPECT_EQ(ReadBack(q, kBytes, freer), std::vector<uint8_t>(kBytes, 0xbb));
    ASSERT_EQ(hipFreeAsync(q, freer), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(freer), hipSuccess);
    ASSERT_EQ(hipStreamSynchronize(busy), hipSuccess);
  }
  EXPECT_EQ(hipStreamDestroy(user), hipSuccess);
}

TEST_F(MemPoolConformance, FreeAsyncOfHipMallocMemoryIsImmediateOnEveryStream) {
  for (hipStream_t s : {static_cast<hipStream_t>(nullptr), hipStreamPerThread}) {
    void* p = nullptr;
    ASSERT_EQ(hipMalloc(&p, 1 << 16), hipSuccess);
    ASSERT_EQ(hipMemsetAsync(p, 1, 1 << 16, s), hipSuccess);
    ASSERT_EQ(hipFreeAsync(p, s), hipSuccess);
    hipPointerAttribute_t attr;
    ASSERT_EQ(hipPointerGetAttributes(&attr, p), hipSuccess);
    EXPECT_EQ(attr.type, hipMemoryTypeUnregistered) << "gone when hipFreeAsync returns";
    EXPECT_EQ(hipFree(p), hipErrorInvalidValue);
    EXPECT_EQ(Attr(DefaultPool(0), hipMemPoolAttrUsedMemCurrent), 0u);
  }
}

// hipMallocAsync_StreamEvent_CrissCross without kernels: each stream allocates and fills its buffer, the streams
// wait on each other's events, each then reads and frees the other's buffer.
TEST_F(MemPoolConformance, CrissCrossedStreamsUseAndFreeEachOthersBlocks) {
  constexpr size_t kBytes = 1 << 20;
  hipStream_t s[2] = {};
  hipEvent_t ev[2] = {};
  void* buf[2] = {};
  std::vector<std::vector<uint8_t>> in(2, std::vector<uint8_t>(kBytes)), out(2, std::vector<uint8_t>(kBytes, 0));
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(hipStreamCreate(&s[k]), hipSuccess);
    ASSERT_EQ(hipEventCreate(&ev[k]), hipSuccess);
    for (size_t i = 0; i < kBytes; ++i) in[k][i] = static_cast<uint8_t>(i * (2 * k + 3));
    ASSERT_EQ(hipMallocAsync(&buf[k], kBytes, s[k]), hipSuccess);
    ASSERT_EQ(hipMemcpyAsync(buf[k], in[k].data(), kBytes, hipMemcpyHostToDevice, s[k]), hipSuccess);
  }
  for (int k = 0; k < 2; ++k) ASSERT_EQ(hipEventRecord(ev[k], s[k]), hipSuccess);
  ASSERT_EQ(hipStreamWaitEvent(s[1], ev[0], 0), hipSuccess);
  ASSERT_EQ(hipStreamWaitEvent(s[0], ev[1], 0), hipSuccess);
  for (int k = 0; k < 2; ++k) {
    const int other = 1 - k;
    ASSERT_EQ(hipMemcpyAsync(out[other].data(), buf[other], kBytes, hipMemcpyDeviceToHost, s[k]), hipSuccess);
    ASSERT_EQ(hipFreeAsync(buf[other], s[k]), hipSuccess);
  }
  for (int k = 0; k < 2; ++k) ASSERT_EQ(hipStreamSynchronize(s[k]), hipSuccess);
  EXPECT_EQ(out, in);
  EXPECT_EQ(Attr(DefaultPool(0), hipMemPoolAttrUsedMemCurrent), 0u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(hipEventDestroy(ev[k]), hipSuccess);
    EXPECT_EQ(hipStreamDestroy(s[k]), hipSuccess);
  }
}

// hipMallocAsync_Multidevice_Concurrent without kernels: one thread per device, each on its own stream and its
// device's default pool, at the same time.
TEST_F(MemPoolConformance, DevicesAllocateConcurrentlyFromTheirOwnPools) {
  constexpr size_t kBytes = 256 << 10;
  constexpr int kRounds = 20;
  std::vector<int> failures(devices_, 0);
  std::vector<std::thread> threads;
  for (int d = 0; d < devices_; ++d) {
    threads.emplace_back([d, &failures] {
      hipStream_t s = nullptr;
      if (hipSetDevice(d) != hipSuccess || hipStreamCreate(&s) != hipSuccess) {
        ++failures[d];
        return;
      }
      std::vector<uint8_t> out(kBytes);
      for (int r = 0; r < kRounds; ++r) {
        const uint8_t pattern = static_cast<uint8_t>(d * 100 + r + 1);
        void* a = nullptr;
        void* b = nullptr;
        hipPointerAttribute_t attr;
        if (hipMallocAsync(&a, kBytes, s) != hipSuccess || hipMallocAsync(&b, kBytes, s) != hipSuccess ||
            hipPointerGetAttributes(&attr, a) != hipSuccess || attr.device != d ||
            hipMemsetAsync(a, pattern, kBytes, s) != hipSuccess ||
            hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, s) != hipSuccess ||
            hipMemcpyAsync(out.data(), b, kBytes, hipMemcpyDeviceToHost, s) != hipSuccess ||
            hipFreeAsync(a, s) != hipSuccess || hipFreeAsync(b, s) != hipSuccess ||
            hipStreamSynchronize(s) != hipSuccess || out != std::vector<uint8_t>(kBytes, pattern)) {
          ++failures[d];
        }
      }
      if (hipStreamDestroy(s) != hipSuccess) ++failures[d];
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(devices_, 0));
  for (int d = 0; d < devices_; ++d) EXPECT_EQ(Attr(DefaultPool(d), hipMemPoolAttrUsedMemCurrent), 0u) << d;
}

// hipMallocFromPoolAsync's multi-stream sync: made on one stream, used on a second, freed on a third, each ordered
// by an event.
TEST_F(MemPoolConformance, AllocUseAndFreeOnThreeStreamsOrderedByEvents) {
  constexpr size_t kBytes = 1 << 20;
  CreatedPool pool(0);
  hipStream_t create = nullptr, access = nullptr, destroy = nullptr;
  for (hipStream_t* s : {&create, &access, &destroy}) ASSERT_EQ(hipStreamCreate(s), hipSuccess);
  hipEvent_t made = nullptr, used = nullptr;
  ASSERT_EQ(hipEventCreate(&made), hipSuccess);
  ASSERT_EQ(hipEventCreate(&used), hipSuccess);
  std::vector<uint8_t> in(kBytes), out(kBytes, 0);
  for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<uint8_t>(i * 3);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(hipMallocFromPoolAsync(&a, kBytes, pool.get(), create), hipSuccess);
  ASSERT_EQ(hipMallocFromPoolAsync(&b, kBytes, pool.get(), create), hipSuccess);
  ASSERT_EQ(hipMemcpyAsync(a, in.data(), kBytes, hipMemcpyHostToDevice, create), hipSuccess);
  ASSERT_EQ(hipEventRecord(made, create), hipSuccess);
  ASSERT_EQ(hipStreamWaitEvent(access, made, 0), hipSuccess);
  ASSERT_EQ(hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, access), hipSuccess);
  ASSERT_EQ(hipMemcpyAsync(out.data(), b, kBytes, hipMemcpyDeviceToHost, access), hipSuccess);
  ASSERT_EQ(hipEventRecord(used, access), hipSuccess);
  ASSERT_EQ(hipStreamWaitEvent(destroy, used, 0), hipSuccess);
  ASSERT_EQ(hipFreeAsync(a, destroy), hipSuccess);
  ASSERT_EQ(hipFreeAsync(b, destroy), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(destroy), hipSuccess);
  EXPECT_EQ(out, in);
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(hipEventDestroy(made), hipSuccess);
  EXPECT_EQ(hipEventDestroy(used), hipSuccess);
  for (hipStream_t s : {create, access, destroy}) EXPECT_EQ(hipStreamDestroy(s), hipSuccess);
}

// hipMallocFromPoolAsync's concurrent case: a user stream, the null stream and hipStreamPerThread share one pool,
// each with its own data, and none sees another's.
TEST_F(MemPoolConformance, UserNullAndPerThreadStreamsShareAPool) {
  constexpr size_t kBytes = 512 << 10;
  CreatedPool pool(0);
  hipStream_t user = nullptr;
  ASSERT_EQ(hipStreamCreate(&user), hipSuccess);
  const hipStream_t streams[3] = {user, nullptr, hipStreamPerThread};
  std::vector<std::vector<uint8_t>> in(3, std::vector<uint8_t>(kBytes)), out(3, std::vector<uint8_t>(kBytes, 0));
  for (int k = 0; k < 3; ++k) {
    for (size_t i = 0; i < kBytes; ++i) in[k][i] = static_cast<uint8_t>(i * (k + 3) + k);
  }
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 3; ++k) {
      void* a = nullptr;
      void* b = nullptr;
      ASSERT_EQ(hipMallocFromPoolAsync(&a, kBytes, pool.get(), streams[k]), hipSuccess);
      ASSERT_EQ(hipMallocFromPoolAsync(&b, kBytes, pool.get(), streams[k]), hipSuccess);
      ASSERT_EQ(hipMemcpyAsync(a, in[k].data(), kBytes, hipMemcpyHostToDevice, streams[k]), hipSuccess);
      ASSERT_EQ(hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, streams[k]), hipSuccess);
      ASSERT_EQ(hipMemcpyAsync(out[k].data(), b, kBytes, hipMemcpyDeviceToHost, streams[k]), hipSuccess);
      ASSERT_EQ(hipFreeAsync(a, streams[k]), hipSuccess);
      ASSERT_EQ(hipFreeAsync(b, streams[k]), hipSuccess);
    }
    for (int k = 0; k < 3; ++k) {
      ASSERT_EQ(hipStreamSynchronize(streams[k]), hipSuccess);
      EXPECT_EQ(out[k], in[k]) << "stream " << k << ", round " << round;
    }
  }
  EXPECT_EQ(Attr(pool.get(), hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_EQ(hipStreamDestroy(user), hipSuccess);
}

// hipMallocFromPoolAsync_MThread_CommonMpool: threads with their own streams draw from one created pool that keeps
// everything (threshold maximum), so blocks move between threads' streams.
TEST_F(MemPoolConformance, ThreadsShareACreatedPoolThatKeepsItsBlocks) {
  constexpr int kThreads = 4;
  constexpr int kRounds = 40;
  constexpr size_t kBytes = 16 << 10;
  CreatedPool pool(0);
  SetThreshold(pool.get(), kKeepAll);
  hipMemPool_t shared = pool.get();
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, shared, &failures] {
      if (hipSetDevice(0) != hipSuccess) {
        ++failures[t];
        return;
      }
      hipStream_t s = nullptr;
      if (hipStreamCreate(&s) != hipSuccess) {
        ++failures[t];
        return;
      }
      std::vector<uint8_t> in(kBytes), out(kBytes);
      for (int r = 0; r < kRounds && failures[t] == 0; ++r) {
        for (size_t i = 0; i < kBytes; ++i) in[i] = static_cast<uint8_t>(t * 61 + r * 7 + i);
        void* a = nullptr;
        void* b = nullptr;
        if (hipMallocFromPoolAsync(&a, kBytes, shared, s) != hipSuccess ||
            hipMallocFromPoolAsync(&b, kBytes, shared, s) != hipSuccess ||
            hipMemcpyAsync(a, in.data(), kBytes, hipMemcpyHostToDevice, s) != hipSuccess ||
            hipMemcpyAsync(b, a, kBytes, hipMemcpyDeviceToDevice, s) != hipSuccess ||
            hipMemcpyAsync(out.data(), b, kBytes, hipMemcpyDeviceToHost, s) != hipSuccess ||
            hipFreeAsync(a, s) != hipSuccess || hipFreeAsync(b, s) != hipSuccess ||
            hipStreamSynchronize(s) != hipSuccess || out != in) {
          ++failures[t];
        }
      }
      if (hipStreamDestroy(s) != hipSuccess) ++failures[t];
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(kThreads, 0));
  EXPECT_EQ(Attr(shared, hipMemPoolAttrUsedMemCurrent), 0u);
  EXPECT_LE(Attr(shared, hipMemPoolAttrReservedMemCurrent), 2u * kThreads * kBytes)
      << "kept blocks are reused rather than piled up";
}

}  // namespace
