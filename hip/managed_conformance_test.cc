// Managed memory through the HIP C API, the behaviour hip-tests' hipMallocManaged*, hipMemAdvise*,
// hipMemPrefetchAsync* and hipMemRangeGetAttribute* cases check (scenarios, not their code): allocation flags and
// errors, pointer attributes, data surviving prefetches to every GPU and back, stream order of a prefetch, advice
// read back, copies and fills into managed memory, and the managed device attributes following XNACK. Built per
// preset (BUILD): mi300x, 2xmi250x, rx7900xtx, and mi300x with HSA_XNACK=1.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime_api.h"

namespace {

constexpr size_t kSize = 1 << 20;

std::string Preset() {
  const char* p = std::getenv("HIPMEM_SIM_PRESET");
  return p == nullptr ? "mi300x" : p;
}

bool XnackRequested() {
  const char* x = std::getenv("HSA_XNACK");
  return x != nullptr && std::strcmp(x, "1") == 0;
}

int DeviceCount() {
  int n = 0;
  EXPECT_EQ(hipGetDeviceCount(&n), hipSuccess);
  return n;
}

int RangeInt(hipMemRangeAttribute attribute, const void* p, size_t size) {
  int value = 12345;
  EXPECT_EQ(hipMemRangeGetAttribute(&value, sizeof(value), attribute, p, size), hipSuccess);
  return value;
}

TEST(ManagedConformance, MallocManagedFlagsAndErrors) {
  void* p = nullptr;
  EXPECT_EQ(hipMallocManaged(nullptr, kSize, hipMemAttachGlobal), hipErrorInvalidValue);
  EXPECT_EQ(hipMallocManaged(&p, 0, hipMemAttachGlobal), hipErrorInvalidValue);
  EXPECT_EQ(hipMallocManaged(&p, kSize, hipMemAttachSingle), hipErrorInvalidValue);
  EXPECT_EQ(hipMallocManaged(&p, kSize, 0), hipErrorInvalidValue);
  EXPECT_EQ(p, nullptr) << "a refused call writes nothing";
  for (unsigned int flags : {hipMemAttachGlobal, hipMemAttachHost}) {
    SCOPED_TRACE(flags);
    ASSERT_EQ(hipMallocManaged(&p, kSize, flags), hipSuccess);
    ASSERT_NE(p, nullptr);
    std::memset(p, 0x42, kSize);  // the CPU can use it at once
    EXPECT_EQ(static_cast<unsigned char*>(p)[kSize - 1], 0x42);
    EXPECT_EQ(hipFree(p), hipSuccess);
    EXPECT_EQ(hipFree(p), hipErrorInvalidValue) << "a second free";
  }
}

TEST(ManagedConformance, PointerAttributesSayManaged) {
  void* p = nullptr;
  ASSERT_EQ(hipMallocManaged(&p, kSize), hipSuccess);
  hipPointerAttribute_t a{};
  ASSERT_EQ(hipPointerGetAttributes(&a, static_cast<char*>(p) + 100), hipSuccess);
  EXPECT_EQ(a.type, hipMemoryTypeManaged);
  EXPECT_EQ(a.isManaged, 1);
  EXPECT_EQ(a.device, 0);
  EXPECT_EQ(a.hostPointer, static_cast<char*>(p) + 100);
  EXPECT_EQ(a.devicePointer, static_cast<char*>(p) + 100);
  unsigned int managed = 0;
  ASSERT_EQ(hipPointerGetAttribute(&managed, HIP_POINTER_ATTRIBUTE_IS_MANAGED, reinterpret_cast<hipDeviceptr_t>(p)),
            hipSuccess);
  EXPECT_EQ(managed, 1u);
  unsigned int type = 0;
  ASSERT_EQ(hipPointerGetAttribute(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<hipDeviceptr_t>(p)),
            hipSuccess);
  EXPECT_EQ(type, static_cast<unsigned int>(hipMemoryTypeManaged));
  void* device_memory = nullptr;
  ASSERT_EQ(hipMalloc(&device_memory, kSize), hipSuccess);
  ASSERT_EQ(hipPointerGetAttributes(&a, device_memory), hipSuccess);
  EXPECT_EQ(a.isManaged, 0);
  EXPECT_EQ(hipFree(device_memory), hipSuccess);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST(ManagedConformance, PrefetchToEveryGpuAndBackKeepsTheData) {
  const int n = DeviceCount();
  uint32_t* p = nullptr;
  ASSERT_EQ(hipMallocManaged(reinterpret_cast<void**>(&p), kSize), hipSuccess);
  const size_t words = kSize / 4;
  for (size_t i = 0; i < words; ++i) p[i] = static_cast<uint32_t>(i * 2654435761u);
  for (int device = 0; device < n; ++device) {
    SCOPED_TRACE(device);
    ASSERT_EQ(hipSetDevice(device), hipSuccess);
    ASSERT_EQ(hipMemPrefetchAsync(p, kSize, device, nullptr), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    EXPECT_EQ(RangeInt(hipMemRangeAttributeLastPrefetchLocation, p, kSize), device);
    size_t free_now = 0;
    size_t total = 0;
    ASSERT_EQ(hipMemGetInfo(&free_now, &total), hipSuccess);
    EXPECT_LT(free_now, total) << "the range is charged to this GPU's VRAM";
  }
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipMemPrefetchAsync(p, kSize, hipCpuDeviceId, nullptr), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(nullptr), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributeLastPrefetchLocation, p, kSize), hipCpuDeviceId);
  for (size_t i = 0; i < words; ++i) ASSERT_EQ(p[i], static_cast<uint32_t>(i * 2654435761u)) << "word " << i;
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST(ManagedConformance, CpuTouchAfterPrefetchToGpuSeesTheData) {
  char* p = nullptr;
  ASSERT_EQ(hipMallocManaged(reinterpret_cast<void**>(&p), kSize), hipSuccess);
  std::memset(p, 7, kSize);
  ASSERT_EQ(hipMemPrefetchAsync(p, kSize, 0, nullptr), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(p[kSize / 2], 7) << "the page comes back on the CPU's touch";
  p[0] = 9;
  EXPECT_EQ(p[0], 9);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST(ManagedConformance, PrefetchIsStreamOrdered) {
  void* p = nullptr;
  ASSERT_EQ(hipMallocManaged(&p, kSize), hipSuccess);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  struct Gate {
    std::atomic<bool> open{false};
  } gate;
  struct Seen {
    void* p;
    int location = 12345;
  } seen{p};
  ASSERT_EQ(hipLaunchHostFunc(
                stream,
                [](void* g) {
                  while (!static_cast<Gate*>(g)->open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                },
                &gate),
            hipSuccess);
  ASSERT_EQ(hipMemPrefetchAsync(p, kSize, 0, stream), hipSuccess);
  ASSERT_EQ(hipLaunchHostFunc(
                stream,
                [](void* s) {
                  auto* seen = static_cast<Seen*>(s);
                  (void)hipMemRangeGetAttribute(&seen->location, sizeof(int), hipMemRangeAttributeLastPrefetchLocation,
                                                seen->p, kSize);
                },
                &seen),
            hipSuccess);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_EQ(RangeInt(hipMemRangeAttributeLastPrefetchLocation, p, kSize), hipInvalidDeviceId)
      << "the prefetch waits for the work queued before it";
  gate.open = true;
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  EXPECT_EQ(seen.location, 0) << "work queued after the prefetch sees it done";
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST(ManagedConformance, FreeWaitsForAPrefetchQueuedOnAnotherDevice) {
  if (DeviceCount() < 2) GTEST_SKIP() << "one GPU in this preset";
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  size_t free_before = 0;
  size_t total = 0;
  ASSERT_EQ(hipMemGetInfo(&free_before, &total), hipSuccess);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  void* p = nullptr;
  ASSERT_EQ(hipMallocManaged(&p, kSize), hipSuccess);
  std::memset(p, 3, kSize);
  std::atomic<bool> open{false};
  ASSERT_EQ(hipLaunchHostFunc(
                stream,
                [](void* g) {
                  while (!static_cast<std::atomic<bool>*>(g)->load()) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                  }
                },
                &open),
            hipSuccess);
  ASSERT_EQ(hipMemPrefetchAsync(p, kSize, 1, stream), hipSuccess);
  std::thread opener([&open] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    open = true;
  });
  // Allocated with device 0 current, prefetched on device 1's stream: the free waits for that prefetch.
  EXPECT_EQ(hipFree(p), hipSuccess);
  EXPECT_TRUE(open.load()) << "hipFree returned before the prefetch queued ahead of it could run";
  opener.join();
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  size_t free_after = 0;
  ASSERT_EQ(hipMemGetInfo(&free_after, &total), hipSuccess);
  EXPECT_EQ(free_after, free_before) << "the prefetched range's VRAM came back with the free";
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
}

TEST(ManagedConformance, AdviceReadsBackThroughRangeAttributes) {
  const int n = DeviceCount();
  void* p = nullptr;
  ASSERT_EQ(hipMallocManaged(&p, kSize), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributeReadMostly, p, kSize), 0);
  EXPECT_EQ(RangeInt(hipMemRangeAttributePreferredLocation, p, kSize), hipInvalidDeviceId);
  EXPECT_EQ(RangeInt(hipMemRangeAttributeCoherencyMode, p, kSize), hipMemRangeCoherencyModeFineGrain);

  ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseSetReadMostly, 0), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributeReadMostly, p, kSize), 1);
  ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseUnsetReadMostly, 0), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributeReadMostly, p, kSize), 0);

  ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseSetPreferredLocation, n - 1), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributePreferredLocation, p, kSize), n - 1);
  ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseSetPreferredLocation, hipCpuDeviceId), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributePreferredLocation, p, kSize), hipCpuDeviceId);
  ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseUnsetPreferredLocation, 0), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributePreferredLocation, p, kSize), hipInvalidDeviceId);

  for (int device = 0; device < n; ++device) ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseSetAccessedBy, device), hipSuccess);
  std::vector<int> accessed(n + 2, 12345);
  ASSERT_EQ(hipMemRangeGetAttribute(accessed.data(), accessed.size() * sizeof(int), hipMemRangeAttributeAccessedBy, p,
                                    kSize),
            hipSuccess);
  for (int device = 0; device < n; ++device) EXPECT_EQ(accessed[device], device);
  EXPECT_EQ(accessed[n], hipInvalidDeviceId) << "unused slots";
  ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseUnsetAccessedBy, 0), hipSuccess);
  ASSERT_EQ(hipMemRangeGetAttribute(accessed.data(), accessed.size() * sizeof(int), hipMemRangeAttributeAccessedBy, p,
                                    kSize),
            hipSuccess);
  EXPECT_NE(accessed[0], 0) << "device 0 is no longer listed";

  ASSERT_EQ(hipMemAdvise(p, kSize, hipMemAdviseSetCoarseGrain, 0), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributeCoherencyMode, p, kSize), hipMemRangeCoherencyModeCoarseGrain);
  // Half the range back to fine grain: the whole reads indeterminate.
  ASSERT_EQ(hipMemAdvise(p, kSize / 2, hipMemAdviseUnsetCoarseGrain, 0), hipSuccess);
  EXPECT_EQ(RangeInt(hipMemRangeAttributeCoherencyMode, p, kSize), hipMemRangeCoherencyModeIndeterminate);

  // Several at once.
  int read_mostly = 5;
  int preferred = 5;
  void* data[] = {&read_mostly, &preferred};
  size_t sizes[] = {sizeof(int), sizeof(int)};
  hipMemRangeAttribute attributes[] = {hipMemRangeAttributeReadMostly, hipMemRangeAttributePreferredLocation};
  ASSERT_EQ(hipMemRangeGetAttributes(data, sizes, attributes, 2, p, kSize), hipSuccess);
  EXPECT_EQ(read_mostly, 0);
  EXPECT_EQ(preferred, hipInvalidDeviceId);
  void* null_data[] = {&read_mostly, nullptr};
  EXPECT_EQ(hipMemRangeGetAttributes(null_data, sizes, attributes, 2, p, kSize), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttributes(data, sizes, attributes, 0, p, kSize), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST(ManagedConformance, BadInputGetsHipsErrorCodes) {
  void* p = nullptr;
  ASSERT_EQ(hipMallocManaged(&p, kSize), hipSuccess);
  void* device_memory = nullptr;
  ASSERT_EQ(hipMalloc(&device_memory, kSize), hipSuccess);
  std::vector<char> pageable(kSize);

  EXPECT_EQ(hipMemAdvise(nullptr, kSize, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(p, 0, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(p, kSize, hipMemAdviseSetPreferredLocation, 99), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemAdvise(p, kSize, static_cast<hipMemoryAdvise>(42), 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(p, kSize + 4096, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAdvise(device_memory, kSize, hipMemAdviseSetReadMostly, 0), hipErrorInvalidValue);

  EXPECT_EQ(hipMemPrefetchAsync(nullptr, kSize, 0, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPrefetchAsync(p, 0, 0, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPrefetchAsync(p, kSize, 99, nullptr), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemPrefetchAsync(p, kSize + 4096, 0, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPrefetchAsync(pageable.data(), kSize, 0, nullptr), hipErrorNotSupported);
  EXPECT_EQ(hipMemPrefetchAsync(device_memory, kSize, 0, nullptr), hipErrorInvalidValue);
  hipMemLocation host{hipMemLocationTypeHost, 0};
  EXPECT_EQ(hipMemPrefetchAsync_v2(p, kSize, host, 1, nullptr), hipErrorInvalidValue) << "flags must be 0";
  EXPECT_EQ(hipMemPrefetchAsync_v2(p, kSize, host, 0, nullptr), hipSuccess);

  int value = 0;
  EXPECT_EQ(hipMemRangeGetAttribute(nullptr, 4, hipMemRangeAttributeReadMostly, p, kSize), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(&value, 3, hipMemRangeAttributeReadMostly, p, kSize), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(&value, 4, static_cast<hipMemRangeAttribute>(9), p, kSize), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(&value, 4, hipMemRangeAttributeReadMostly, p, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemRangeGetAttribute(&value, 4, hipMemRangeAttributeReadMostly, device_memory, kSize),
            hipErrorInvalidValue);

  EXPECT_EQ(hipStreamAttachMemAsync(nullptr, p, 0, hipMemAttachGlobal), hipSuccess);
  EXPECT_EQ(hipStreamAttachMemAsync(nullptr, p, kSize, hipMemAttachHost), hipSuccess);
  EXPECT_EQ(hipStreamAttachMemAsync(nullptr, nullptr, 0, hipMemAttachGlobal), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamAttachMemAsync(nullptr, p, 0, 8), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamAttachMemAsync(nullptr, p, 0, hipMemAttachSingle), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamAttachMemAsync(nullptr, p, kSize / 2, hipMemAttachGlobal), hipErrorInvalidValue);
  EXPECT_EQ(hipStreamAttachMemAsync(nullptr, pageable.data(), kSize, hipMemAttachGlobal), hipErrorInvalidValue);

  EXPECT_EQ(hipFree(device_memory), hipSuccess);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST(ManagedConformance, CopiesAndFillsIntoManagedMemory) {
  uint8_t* managed = nullptr;
  ASSERT_EQ(hipMallocManaged(reinterpret_cast<void**>(&managed), kSize), hipSuccess);
  void* device_memory = nullptr;
  ASSERT_EQ(hipMalloc(&device_memory, kSize), hipSuccess);
  std::vector<uint8_t> host(kSize);
  for (size_t i = 0; i < kSize; ++i) host[i] = static_cast<uint8_t>(i * 31);

  // Host -> managed -> device -> managed (after a prefetch to the GPU) -> host.
  ASSERT_EQ(hipMemcpy(managed, host.data(), kSize, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(device_memory, managed, kSize, hipMemcpyDefault), hipSuccess);
  ASSERT_EQ(hipMemset(managed, 0, kSize), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  EXPECT_EQ(managed[kSize - 1], 0) << "the fill landed";
  ASSERT_EQ(hipMemPrefetchAsync(managed, kSize, 0, nullptr), hipSuccess);
  ASSERT_EQ(hipMemcpy(managed, device_memory, kSize, hipMemcpyDeviceToDevice), hipSuccess);
  std::vector<uint8_t> back(kSize);
  ASSERT_EQ(hipMemcpy(back.data(), managed, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, host);
  EXPECT_EQ(std::memcmp(managed, host.data(), kSize), 0) << "the CPU reads the same bytes";
  EXPECT_EQ(hipFree(device_memory), hipSuccess);
  EXPECT_EQ(hipFree(managed), hipSuccess);
}

TEST(ManagedConformance, DeviceAttributesFollowXnack) {
  // gfx942 and gfx90a switch XNACK per process; gfx1100 never retries faults.
  const bool xnack = XnackRequested() && Preset().find("rx7900xtx") == std::string::npos;
  for (int device = 0; device < DeviceCount(); ++device) {
    SCOPED_TRACE(device);
    int value = -1;
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeManagedMemory, device), hipSuccess);
    EXPECT_EQ(value, 1);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeConcurrentManagedAccess, device), hipSuccess);
    EXPECT_EQ(value, xnack ? 1 : 0);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributePageableMemoryAccess, device), hipSuccess);
    EXPECT_EQ(value, xnack ? 1 : 0);
    ASSERT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeDirectManagedMemAccessFromHost, device), hipSuccess);
    EXPECT_EQ(value, 0) << "a discrete GPU: the host does not reach managed memory in VRAM directly";
  }
}

}  // namespace
