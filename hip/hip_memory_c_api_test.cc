// hipExtMallocWithFlags, the deprecated host-allocation aliases, pointer queries by attribute, allocation
// lookups and peer copies through the C API, as hip-tests' host-only cases use them (rocm_facts.md §7.2 rows 6,
// 10, 11, 12, 15). Runs on mi300x, 2xmi250x, rx7900xtx and 2xrx7900xtx.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

std::string Preset() {
  const char* p = std::getenv("HIPMEM_SIM_PRESET");
  return p == nullptr ? "" : p;
}

// Fills `size` bytes of `device` memory with `pattern` and reads them back.
void ExpectRoundTrip(void* device, size_t size, uint8_t pattern) {
  std::vector<uint8_t> in(size, pattern), out(size, 0);
  ASSERT_EQ(hipMemcpy(device, in.data(), size, hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy(out.data(), device, size, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(out, in);
}

class HipMemoryCApi : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(hipSetDevice(0), hipSuccess); }
};

// --- hipExtMallocWithFlags (hip-tests Unit_hipExtMallocWithFlags_*) ---

TEST_F(HipMemoryCApi, ExtMallocEveryDeviceKindHoldsDataAndReportsItsFlag) {
  for (unsigned int flags : {hipDeviceMallocDefault, hipDeviceMallocFinegrained, hipDeviceMallocUncached,
                             hipDeviceMallocContiguous}) {
    SCOPED_TRACE(flags);
    void* p = nullptr;
    ASSERT_EQ(hipExtMallocWithFlags(&p, 1 << 20, flags), hipSuccess);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 256, 0u);
    ExpectRoundTrip(p, 1 << 20, static_cast<uint8_t>(0x11 * (flags + 1)));
    hipPointerAttribute_t attributes{};
    ASSERT_EQ(hipPointerGetAttributes(&attributes, p), hipSuccess);
    EXPECT_EQ(attributes.type, hipMemoryTypeDevice) << "CLR keeps every device kind in VRAM";
    EXPECT_EQ(attributes.allocationFlags, flags);
    EXPECT_EQ(attributes.device, 0);
    EXPECT_EQ(hipFree(p), hipSuccess);
  }
}

TEST_F(HipMemoryCApi, ExtMallocRejectsWhatClrRejects) {
  void* p = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(hipExtMallocWithFlags(nullptr, 64, hipDeviceMallocDefault), hipErrorInvalidValue);
  EXPECT_EQ(hipExtMallocWithFlags(&p, 64, 5), hipErrorInvalidValue) << "kinds are values, not bits";
  EXPECT_EQ(hipExtMallocWithFlags(&p, 64, hipDeviceMallocFinegrained | hipDeviceMallocUncached | 0x8),
            hipErrorInvalidValue);
  EXPECT_EQ(hipExtMallocWithFlags(&p, 16, hipMallocSignalMemory), hipErrorInvalidValue);
  EXPECT_EQ(hipExtMallocWithFlags(&p, 0, hipMallocSignalMemory), hipErrorInvalidValue) << "size 8 only, 0 included";
  EXPECT_EQ(hipExtMallocWithFlags(&p, SIZE_MAX, hipDeviceMallocDefault), hipErrorOutOfMemory);
  EXPECT_EQ(hipExtMallocWithFlags(&p, SIZE_MAX, hipDeviceMallocUncached), hipErrorOutOfMemory);
  EXPECT_EQ(hipGetLastError(), hipErrorOutOfMemory);
}

TEST_F(HipMemoryCApi, ExtMallocZeroSizeGivesNull) {
  for (unsigned int flags : {hipDeviceMallocDefault, hipDeviceMallocFinegrained, hipDeviceMallocUncached,
                             hipDeviceMallocContiguous}) {
    void* p = reinterpret_cast<void*>(0x1);
    EXPECT_EQ(hipExtMallocWithFlags(&p, 0, flags), hipSuccess);
    EXPECT_EQ(p, nullptr);
  }
}

TEST_F(HipMemoryCApi, SignalMemoryIsEightHostVisibleBytes) {
  void* p = nullptr;
  ASSERT_EQ(hipExtMallocWithFlags(&p, 8, hipMallocSignalMemory), hipSuccess);
  ASSERT_NE(p, nullptr);
  // Fine-grained system memory: the host writes it directly and a copy engine sees the value.
  *static_cast<volatile uint64_t*>(p) = 0x0123456789abcdefull;
  uint64_t seen = 0;
  ASSERT_EQ(hipMemcpy(&seen, p, 8, hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(seen, 0x0123456789abcdefull);
  hipPointerAttribute_t attributes{};
  ASSERT_EQ(hipPointerGetAttributes(&attributes, p), hipSuccess);
  EXPECT_EQ(attributes.type, hipMemoryTypeHost);
  EXPECT_EQ(attributes.allocationFlags, static_cast<unsigned>(hipMallocSignalMemory));
  size_t size = 0;
  ASSERT_EQ(hipMemPtrGetInfo(p, &size), hipSuccess);
  EXPECT_EQ(size, 8u);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

// --- hipMallocHost / hipMemAllocHost / hipHostAlloc (deprecated aliases of hipHostMalloc) ---
// The header marks the first two deprecated, as upstream does; calling them on purpose here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

TEST_F(HipMemoryCApi, HostAllocAliasesAllocatePinnedHostMemory) {
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  ASSERT_EQ(hipMallocHost(&a, 4), hipSuccess);
  ASSERT_EQ(hipMemAllocHost(&b, 4096), hipSuccess);
  ASSERT_EQ(hipHostAlloc(&c, 1 << 16, hipHostAllocMapped | hipHostAllocPortable), hipSuccess);
  for (void* p : {a, b, c}) {
    ASSERT_NE(p, nullptr);
    std::memset(p, 0x3c, 4);  // host memory: the CPU writes it directly
    hipPointerAttribute_t attributes{};
    ASSERT_EQ(hipPointerGetAttributes(&attributes, p), hipSuccess);
    EXPECT_EQ(attributes.type, hipMemoryTypeHost);
    EXPECT_EQ(attributes.hostPointer, p);
  }
  unsigned int flags = 99;
  ASSERT_EQ(hipHostGetFlags(&flags, a), hipSuccess);
  EXPECT_EQ(flags, 0u);
  ASSERT_EQ(hipHostGetFlags(&flags, c), hipSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(hipHostAllocMapped | hipHostAllocPortable));
  EXPECT_EQ(hipHostFree(a), hipSuccess);
  EXPECT_EQ(hipFreeHost(b), hipSuccess);  // the deprecated name frees the same way
  EXPECT_EQ(hipFreeHost(b), hipErrorInvalidValue);
  EXPECT_EQ(hipFreeHost(nullptr), hipSuccess);
  EXPECT_EQ(hipHostFree(c), hipSuccess);

  void* z = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(hipMallocHost(&z, 0), hipSuccess);
  EXPECT_EQ(z, nullptr);
  EXPECT_EQ(hipMallocHost(nullptr, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipMemAllocHost(nullptr, 16), hipErrorInvalidValue);
  EXPECT_EQ(hipHostAlloc(&z, 16, hipHostMallocCoherent | hipHostMallocNonCoherent), hipErrorInvalidValue);
}
#pragma GCC diagnostic pop

TEST_F(HipMemoryCApi, UncachedHostMemoryIsAcceptedAloneAsClrDoesOnLinux) {
  void* p = nullptr;
  ASSERT_EQ(hipHostAlloc(&p, 1 << 16, hipHostAllocUncached), hipSuccess);
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x42, 1 << 16);
  void* device = nullptr;
  ASSERT_EQ(hipMalloc(&device, 1 << 16), hipSuccess);
  ASSERT_EQ(hipMemcpy(device, p, 1 << 16, hipMemcpyHostToDevice), hipSuccess);
  std::vector<uint8_t> back(1 << 16);
  ASSERT_EQ(hipMemcpy(back.data(), device, back.size(), hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, std::vector<uint8_t>(1 << 16, 0x42));
  unsigned int flags = 0;
  ASSERT_EQ(hipHostGetFlags(&flags, p), hipSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(hipHostMallocUncached));
  EXPECT_EQ(hipHostFree(p), hipSuccess);
  EXPECT_EQ(hipFree(device), hipSuccess);
  EXPECT_EQ(hipHostMalloc(&p, 64, hipHostMallocUncached | hipHostMallocCoherent), hipErrorInvalidValue);
  EXPECT_EQ(hipHostMalloc(&p, 64, hipHostMallocUncached | hipHostMallocNonCoherent), hipErrorInvalidValue);
}

// --- hipPointerGetAttribute (hip-tests Unit_hipPtrGetAttribute_Simple) ---

template <typename T>
hipError_t Get(T* value, hipPointer_attribute attribute, const void* ptr) {
  return hipPointerGetAttribute(value, attribute, const_cast<void*>(ptr));
}

TEST_F(HipMemoryCApi, DeviceMemoryAttributesFromAnInteriorPointer) {
  void* base = nullptr;
  ASSERT_EQ(hipMalloc(&base, 10000), hipSuccess);
  char* inside = static_cast<char*>(base) + 1234;
  unsigned int type = 0;
  ASSERT_EQ(Get(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, inside), hipSuccess);
  EXPECT_EQ(type, static_cast<unsigned>(hipMemoryTypeDevice));
  void* device_pointer = nullptr;
  ASSERT_EQ(Get(&device_pointer, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER, inside), hipSuccess);
  EXPECT_EQ(device_pointer, inside);
  void* host_pointer = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(Get(&host_pointer, HIP_POINTER_ATTRIBUTE_HOST_POINTER, inside), hipErrorInvalidValue);
  EXPECT_EQ(host_pointer, nullptr) << "CLR writes null before failing";
  int ordinal = -1;
  ASSERT_EQ(Get(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, inside), hipSuccess);
  EXPECT_EQ(ordinal, 0);
  void* start = nullptr;
  ASSERT_EQ(Get(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, inside), hipSuccess);
  EXPECT_EQ(start, base);
  unsigned int range = 0;
  ASSERT_EQ(Get(&range, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, inside), hipSuccess);
  EXPECT_EQ(range, 10000u);
  bool mapped = false;
  ASSERT_EQ(Get(&mapped, HIP_POINTER_ATTRIBUTE_MAPPED, inside), hipSuccess);
  EXPECT_TRUE(mapped);
  bool managed = true;
  ASSERT_EQ(Get(&managed, HIP_POINTER_ATTRIBUTE_IS_MANAGED, inside), hipSuccess);
  EXPECT_FALSE(managed);
  int ipc = 0;
  ASSERT_EQ(Get(&ipc, HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE, inside), hipSuccess);
  EXPECT_EQ(ipc, 1) << "hipMalloc memory can be shared by IPC";
  unsigned int access = 99;
  ASSERT_EQ(Get(&access, HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS, inside), hipSuccess);
  EXPECT_EQ(access, 0u);
  hipCtx_t context = nullptr;
  ASSERT_EQ(Get(&context, HIP_POINTER_ATTRIBUTE_CONTEXT, inside), hipSuccess);
  EXPECT_NE(context, nullptr);

  // Buffer ids tell allocations apart and are the same from any pointer into one.
  void* other = nullptr;
  ASSERT_EQ(hipMalloc(&other, 64), hipSuccess);
  unsigned int id_base = 0, id_inside = 0, id_other = 0;
  ASSERT_EQ(Get(&id_base, HIP_POINTER_ATTRIBUTE_BUFFER_ID, base), hipSuccess);
  ASSERT_EQ(Get(&id_inside, HIP_POINTER_ATTRIBUTE_BUFFER_ID, inside), hipSuccess);
  ASSERT_EQ(Get(&id_other, HIP_POINTER_ATTRIBUTE_BUFFER_ID, other), hipSuccess);
  EXPECT_EQ(id_base, id_inside);
  EXPECT_NE(id_base, id_other);
  EXPECT_EQ(hipFree(other), hipSuccess);
  EXPECT_EQ(hipFree(base), hipSuccess);
  EXPECT_EQ(Get(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, inside), hipErrorInvalidValue) << "freed";
}

TEST_F(HipMemoryCApi, HostAndRegisteredMemoryAttributes) {
  void* pinned = nullptr;
  ASSERT_EQ(hipHostMalloc(&pinned, 8192, hipHostMallocMapped), hipSuccess);
  unsigned int type = 0;
  ASSERT_EQ(Get(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, pinned), hipSuccess);
  EXPECT_EQ(type, static_cast<unsigned>(hipMemoryTypeHost));
  void* host_pointer = nullptr;
  ASSERT_EQ(Get(&host_pointer, HIP_POINTER_ATTRIBUTE_HOST_POINTER, static_cast<char*>(pinned) + 8), hipSuccess);
  EXPECT_EQ(host_pointer, static_cast<char*>(pinned) + 8);
  hipCtx_t context = nullptr;
  EXPECT_EQ(Get(&context, HIP_POINTER_ATTRIBUTE_CONTEXT, pinned), hipErrorInvalidValue)
      << "host memory lives in CLR's host context";
  int ipc = 5;
  ASSERT_EQ(Get(&ipc, HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE, pinned), hipSuccess);
  EXPECT_EQ(ipc, 0);
  unsigned int access = 0;
  ASSERT_EQ(Get(&access, HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS, pinned), hipSuccess);
  EXPECT_EQ(access, static_cast<unsigned>(hipHostMallocMapped));
  EXPECT_EQ(hipHostFree(pinned), hipSuccess);

  constexpr size_t kSize = 1 << 16;
  void* user = std::aligned_alloc(4096, kSize);
  ASSERT_NE(user, nullptr);
  ASSERT_EQ(hipHostRegister(user, kSize, hipHostRegisterDefault), hipSuccess);
  char* inside = static_cast<char*>(user) + 100;
  ASSERT_EQ(Get(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, inside), hipSuccess);
  EXPECT_EQ(type, static_cast<unsigned>(hipMemoryTypeHost));
  ASSERT_EQ(Get(&host_pointer, HIP_POINTER_ATTRIBUTE_HOST_POINTER, inside), hipSuccess);
  EXPECT_EQ(host_pointer, inside);
  void* start = nullptr;
  ASSERT_EQ(Get(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, inside), hipSuccess);
  EXPECT_EQ(start, user) << "registered memory answers its host range";
  void* device_pointer = nullptr;
  void* mapped = nullptr;
  ASSERT_EQ(Get(&device_pointer, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER, inside), hipSuccess);
  ASSERT_EQ(hipHostGetDevicePointer(&mapped, user, 0), hipSuccess);
  EXPECT_EQ(device_pointer, static_cast<char*>(mapped) + 100);
  EXPECT_EQ(hipHostUnregister(user), hipSuccess);
  std::free(user);
}

// hip-tests' Unit_hipPointerGetAttributes_GpuIter_Unregistered_Memory and _Negative: memory HIP never returned
// (stack, malloc, mmap, and null itself in current hipamd) is success with type Unregistered; only a null
// attributes pointer is refused.
TEST_F(HipMemoryCApi, PointerGetAttributesOfUnknownMemoryIsUnregistered) {
  int on_stack = 0;
  std::vector<int> heap(16);
  // A null pointer is refused instead (hip_bad_input_c_api_test).
  for (const void* p : {static_cast<const void*>(&on_stack), static_cast<const void*>(heap.data())}) {
    SCOPED_TRACE(p);
    hipPointerAttribute_t a;
    std::memset(&a, 0x5a, sizeof(a));
    ASSERT_EQ(hipPointerGetAttributes(&a, p), hipSuccess);
    EXPECT_EQ(a.type, hipMemoryTypeUnregistered);
    EXPECT_EQ(a.device, hipInvalidDeviceId);
    EXPECT_EQ(a.devicePointer, nullptr);
    EXPECT_EQ(a.hostPointer, nullptr);
    EXPECT_EQ(a.isManaged, 0);
    EXPECT_EQ(a.allocationFlags, 0u);
  }
  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, 64), hipSuccess);
  EXPECT_EQ(hipPointerGetAttributes(nullptr, p), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HipMemoryCApi, UnknownMemoryFailsWithClrDefaults) {
  int on_stack = 0;
  unsigned int type = 7;
  EXPECT_EQ(Get(&type, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, &on_stack), hipErrorInvalidValue);
  EXPECT_EQ(type, 0u);
  int ordinal = 7;
  EXPECT_EQ(Get(&ordinal, HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, &on_stack), hipErrorInvalidValue);
  EXPECT_EQ(ordinal, hipInvalidDeviceId);
  unsigned int access = 7;
  EXPECT_EQ(Get(&access, HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS, &on_stack), hipSuccess) << "CLR does not fail here";
  EXPECT_EQ(access, 0u);
  unsigned int value = 0;
  for (hipPointer_attribute unsupported :
       {HIP_POINTER_ATTRIBUTE_P2P_TOKENS, HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
        HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE}) {
    EXPECT_EQ(Get(&value, unsupported, &on_stack), hipErrorNotSupported) << unsupported;
  }
  EXPECT_EQ(Get(&value, static_cast<hipPointer_attribute>(0), &on_stack), hipErrorInvalidValue);
  EXPECT_EQ(Get(&value, static_cast<hipPointer_attribute>(99), &on_stack), hipErrorInvalidValue);
  EXPECT_EQ(hipPointerGetAttribute(nullptr, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, &on_stack), hipErrorInvalidValue);
  EXPECT_EQ(hipPointerGetAttribute(&value, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, nullptr), hipErrorInvalidValue);
}

// --- hipMemGetHandleForAddressRange (hip-tests Unit_hipMemGetHandleForAddressRange_Negative, not gated on VMM) ---

TEST_F(HipMemoryCApi, HandleForAddressRangeRefusesBadRangesAsInvalidValue) {
  constexpr size_t kBytes = 10 * sizeof(int);
  void* d = nullptr;
  ASSERT_EQ(hipMalloc(&d, kBytes), hipSuccess);
  int fd = -1;
  EXPECT_EQ(hipMemGetHandleForAddressRange(&fd, nullptr, kBytes, hipMemRangeHandleTypeDmaBufFd, 0),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemGetHandleForAddressRange(&fd, d, 0, hipMemRangeHandleTypeDmaBufFd, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipMemGetHandleForAddressRange(&fd, d, kBytes, static_cast<hipMemRangeHandleType>(-1), 0),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemGetHandleForAddressRange(&fd, d, kBytes, hipMemRangeHandleTypeDmaBufFd, 0xFF),
            hipErrorInvalidValue);
  EXPECT_EQ(hipMemGetHandleForAddressRange(nullptr, d, kBytes, hipMemRangeHandleTypeDmaBufFd, 0),
            hipErrorInvalidValue);
  std::vector<int> host(10);
  EXPECT_EQ(hipMemGetHandleForAddressRange(&fd, host.data(), kBytes, hipMemRangeHandleTypeDmaBufFd, 0),
            hipErrorInvalidValue);
  // A valid request: the export itself is not modelled (DMABUF_SUPPORTED is false), so no fd comes back.
  EXPECT_EQ(hipMemGetHandleForAddressRange(&fd, d, kBytes, hipMemRangeHandleTypeDmaBufFd, 0), hipErrorNotSupported);
  EXPECT_EQ(fd, -1);
  EXPECT_EQ(hipFree(d), hipSuccess);
  EXPECT_EQ(hipMemGetHandleForAddressRange(&fd, d, kBytes, hipMemRangeHandleTypeDmaBufFd, 0), hipErrorInvalidValue)
      << "freed memory";
}

// --- hipDrvPointerGetAttributes (hip-tests Unit_hipDrvPtrGetAttributes_Negative / _Functional) ---

TEST_F(HipMemoryCApi, DrvPointerGetAttributesAnswersManyAtOnceAndAlwaysSucceeds) {
  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, 4096), hipSuccess);
  unsigned int type = 0;
  void* device_pointer = nullptr;
  int ordinal = -1;
  unsigned int range = 0;
  hipPointer_attribute attributes[] = {HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, HIP_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                       HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL, HIP_POINTER_ATTRIBUTE_RANGE_SIZE};
  void* data[] = {&type, &device_pointer, &ordinal, &range};
  ASSERT_EQ(hipDrvPointerGetAttributes(4, attributes, data, p), hipSuccess);
  EXPECT_EQ(type, static_cast<unsigned>(hipMemoryTypeDevice));
  EXPECT_EQ(device_pointer, p);
  EXPECT_EQ(ordinal, 0);
  EXPECT_EQ(range, 4096u);

  int on_stack = 0;
  ASSERT_EQ(hipDrvPointerGetAttributes(4, attributes, data, &on_stack), hipSuccess) << "failures leave defaults";
  EXPECT_EQ(type, 0u);
  EXPECT_EQ(device_pointer, nullptr);
  EXPECT_EQ(ordinal, hipInvalidDeviceId);
  EXPECT_EQ(range, 0u);

  EXPECT_EQ(hipDrvPointerGetAttributes(0, attributes, data, p), hipErrorInvalidValue);
  EXPECT_EQ(hipDrvPointerGetAttributes(4, nullptr, data, p), hipErrorInvalidValue);
  EXPECT_EQ(hipDrvPointerGetAttributes(4, attributes, nullptr, p), hipErrorInvalidValue);
  EXPECT_EQ(hipDrvPointerGetAttributes(4, attributes, data, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

// --- hipPointerSetAttribute ---

TEST_F(HipMemoryCApi, SyncMemopsIsTheOnlySettableAttribute) {
  void* p = nullptr;
  ASSERT_EQ(hipMalloc(&p, 4096), hipSuccess);
  bool sync = true;
  ASSERT_EQ(Get(&sync, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, p), hipSuccess);
  EXPECT_FALSE(sync);
  const unsigned int one = 1, two = 2;
  ASSERT_EQ(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, static_cast<char*>(p) + 10), hipSuccess);
  ASSERT_EQ(Get(&sync, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, p), hipSuccess);
  EXPECT_TRUE(sync);
  EXPECT_EQ(hipPointerSetAttribute(&two, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, p), hipErrorInvalidValue);
  EXPECT_EQ(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_MEMORY_TYPE, p), hipErrorInvalidValue);
  EXPECT_EQ(hipPointerSetAttribute(nullptr, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, p), hipErrorInvalidValue);
  EXPECT_EQ(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, nullptr), hipErrorInvalidValue);
  int on_stack = 0;
  EXPECT_EQ(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, &on_stack), hipErrorInvalidDevicePointer);
  EXPECT_EQ(hipFree(p), hipSuccess);
}

TEST_F(HipMemoryCApi, SyncMemopsMakesADeviceCopyFinishBeforeHipMemcpyReturns) {
  constexpr size_t kSize = 64 << 20;
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(hipMalloc(&a, kSize), hipSuccess);
  ASSERT_EQ(hipMalloc(&b, kSize), hipSuccess);
  const unsigned int one = 1;
  ASSERT_EQ(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, a), hipSuccess);
  ASSERT_EQ(hipPointerSetAttribute(&one, HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS, b), hipSuccess);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(hipMemcpy(b, a, kSize, hipMemcpyDeviceToDevice), hipSuccess);
    EXPECT_EQ(hipStreamQuery(nullptr), hipSuccess) << "the copy is done when hipMemcpy returns";
  }
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(b), hipSuccess);
}

// --- hipMemGetAddressRange / hipMemPtrGetInfo (hip-tests Unit_hipMemGetAddressRange_*, Unit_hipMemPtrGetInfo_Basic) ---

TEST_F(HipMemoryCApi, AddressRangeAndSizeOfAllocations) {
  void* device = nullptr;
  void* host = nullptr;
  ASSERT_EQ(hipMalloc(&device, 5000), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&host, 3000, 0), hipSuccess);
  for (auto [base, size] : {std::pair<void*, size_t>{device, 5000}, {host, 3000}}) {
    hipDeviceptr_t found = nullptr;
    size_t found_size = 0;
    ASSERT_EQ(hipMemGetAddressRange(&found, &found_size, static_cast<char*>(base) + size - 1), hipSuccess);
    EXPECT_EQ(found, base);
    EXPECT_EQ(found_size, size);
    size_t info = 0;
    ASSERT_EQ(hipMemPtrGetInfo(base, &info), hipSuccess);
    EXPECT_EQ(info, size);
  }
  hipDeviceptr_t found = nullptr;
  size_t found_size = 0;
  int on_stack = 0;
  EXPECT_EQ(hipMemGetAddressRange(&found, &found_size, &on_stack), hipErrorNotFound);
  EXPECT_EQ(hipMemGetAddressRange(&found, &found_size, static_cast<char*>(device) + 5000), hipErrorNotFound)
      << "one past the end";
  EXPECT_EQ(hipMemGetAddressRange(nullptr, &found_size, device), hipErrorInvalidValue);
  EXPECT_EQ(hipMemGetAddressRange(&found, nullptr, device), hipErrorInvalidValue);
  size_t info = 7;
  EXPECT_EQ(hipMemPtrGetInfo(nullptr, &info), hipSuccess);
  EXPECT_EQ(info, 0u);
  EXPECT_EQ(hipMemPtrGetInfo(&on_stack, &info), hipErrorInvalidValue);
  EXPECT_EQ(hipMemPtrGetInfo(device, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipFree(device), hipSuccess);
  EXPECT_EQ(hipHostFree(host), hipSuccess);
  EXPECT_EQ(hipMemGetAddressRange(&found, &found_size, device), hipErrorNotFound) << "freed";
}

// --- Many small allocations, queried from several threads (Unit_hipPointerGetAttributes_TinyClusterAlloc,
// _MultiThread) ---

TEST_F(HipMemoryCApi, TinyAllocationsEachResolveToThemselvesAcrossThreads) {
  constexpr int kCount = 200;
  std::vector<void*> pointers(kCount);
  for (int i = 0; i < kCount; ++i) ASSERT_EQ(hipMalloc(&pointers[i], 1 + i % 7), hipSuccess);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      std::set<unsigned int> ids;
      for (int i = 0; i < kCount; ++i) {
        void* start = nullptr;
        unsigned int size = 0, id = 0;
        if (Get(&start, HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR, pointers[i]) != hipSuccess || start != pointers[i] ||
            Get(&size, HIP_POINTER_ATTRIBUTE_RANGE_SIZE, pointers[i]) != hipSuccess ||
            size != static_cast<unsigned>(1 + i % 7) ||
            Get(&id, HIP_POINTER_ATTRIBUTE_BUFFER_ID, pointers[i]) != hipSuccess || !ids.insert(id).second) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
  for (void* p : pointers) EXPECT_EQ(hipFree(p), hipSuccess);
}

// --- hipMemcpyPeer / hipMemcpyPeerAsync ---

TEST_F(HipMemoryCApi, MemcpyPeerChecksOrdinalsAndStream) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_EQ(hipMalloc(&a, 64), hipSuccess);
  ASSERT_EQ(hipMalloc(&b, 64), hipSuccess);
  EXPECT_EQ(hipMemcpyPeer(b, count, a, 0, 64), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemcpyPeer(b, 0, a, -1, 64), hipErrorInvalidDevice);
  EXPECT_EQ(hipMemcpyPeerAsync(b, 0, a, count, 64, nullptr), hipErrorInvalidDevice);
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
  EXPECT_EQ(hipMemcpyPeerAsync(b, 0, a, 0, 64, s), hipErrorInvalidHandle);
  EXPECT_EQ(hipMemcpyPeer(nullptr, 0, a, 0, 64), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyPeer(b, 0, a, 0, 65), hipErrorInvalidValue) << "past the end";
  std::vector<uint8_t> h1(64), h2(64);
  EXPECT_EQ(hipMemcpyPeer(h2.data(), 0, h1.data(), 0, 64), hipErrorInvalidValue) << "no HIP memory on either side";
  EXPECT_EQ(hipMemcpyPeer(b, 0, a, 0, 0), hipSuccess);

  // Within one device it is a device-to-device copy.
  ExpectRoundTrip(a, 64, 0x5d);
  ASSERT_EQ(hipMemcpyPeer(b, 0, a, 0, 64), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  ASSERT_EQ(hipMemcpy(h2.data(), b, 64, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(h2, std::vector<uint8_t>(64, 0x5d));
  EXPECT_EQ(hipFree(a), hipSuccess);
  EXPECT_EQ(hipFree(b), hipSuccess);
}

TEST_F(HipMemoryCApi, MemcpyPeerMovesDataBetweenTwoGpus) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count < 2) GTEST_SKIP() << "one GPU on " << Preset();
  constexpr size_t kSize = 3 << 20;
  void* on0 = nullptr;
  void* on1 = nullptr;
  ASSERT_EQ(hipMalloc(&on0, kSize), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  ASSERT_EQ(hipMalloc(&on1, kSize), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  std::vector<uint8_t> pattern(kSize), back(kSize);
  for (size_t i = 0; i < kSize; ++i) pattern[i] = static_cast<uint8_t>(i * 7 + i / 4096);
  ASSERT_EQ(hipMemcpy(on0, pattern.data(), kSize, hipMemcpyHostToDevice), hipSuccess);

  // Without peer access enabled: CLR copies anyway, through its P2P staging buffer in host memory.
  ASSERT_EQ(hipMemcpyPeer(on1, 1, on0, 0, kSize), hipSuccess);
  ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
  ASSERT_EQ(hipMemcpy(back.data(), on1, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, pattern);

  // Back again on a stream, from the other device's point of view.
  ASSERT_EQ(hipMemset(on0, 0, kSize), hipSuccess);
  ASSERT_EQ(hipSetDevice(1), hipSuccess);
  hipStream_t s = nullptr;
  ASSERT_EQ(hipStreamCreate(&s), hipSuccess);
  ASSERT_EQ(hipMemcpyPeerAsync(on0, 0, on1, 1, kSize, s), hipSuccess);
  ASSERT_EQ(hipStreamSynchronize(s), hipSuccess);
  std::fill(back.begin(), back.end(), 0);
  ASSERT_EQ(hipMemcpy(back.data(), on0, kSize, hipMemcpyDeviceToHost), hipSuccess);
  EXPECT_EQ(back, pattern);
  ASSERT_EQ(hipStreamDestroy(s), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);

  // With peer access (XGMI GCDs only), the destination's GPU reads the source's VRAM directly.
  int can = 0;
  ASSERT_EQ(hipDeviceCanAccessPeer(&can, 1, 0), hipSuccess);
  if (can == 1) {
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    ASSERT_EQ(hipDeviceEnablePeerAccess(0, 0), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
    ASSERT_EQ(hipMemset(on0, 0xee, kSize), hipSuccess);
    ASSERT_EQ(hipMemcpyPeer(on1, 1, on0, 0, kSize), hipSuccess);
    ASSERT_EQ(hipDeviceSynchronize(), hipSuccess);
    ASSERT_EQ(hipMemcpy(back.data(), on1, kSize, hipMemcpyDeviceToHost), hipSuccess);
    EXPECT_EQ(back, std::vector<uint8_t>(kSize, 0xee));
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    ASSERT_EQ(hipDeviceDisablePeerAccess(0), hipSuccess);
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
  }
  EXPECT_EQ(hipFree(on0), hipSuccess);
  EXPECT_EQ(hipFree(on1), hipSuccess);
}

// --- hipDeviceGetLimit / hipDeviceSetLimit, hipSetValidDevices ---

TEST_F(HipMemoryCApi, LimitsRoundTripPerDevice) {
  size_t value = 0;
  ASSERT_EQ(hipDeviceGetLimit(&value, hipLimitStackSize), hipSuccess);
  const size_t original_stack = value;
  ASSERT_EQ(hipDeviceSetLimit(hipLimitStackSize, 2048), hipSuccess);
  ASSERT_EQ(hipDeviceGetLimit(&value, hipLimitStackSize), hipSuccess);
  EXPECT_EQ(value, 2048u);
  EXPECT_EQ(hipDeviceSetLimit(hipLimitStackSize, 4 << 20), hipErrorInvalidValue) << "beyond every ISA's ceiling";
  ASSERT_EQ(hipDeviceSetLimit(hipLimitStackSize, 1025), hipSuccess);
  ASSERT_EQ(hipDeviceGetLimit(&value, hipLimitStackSize), hipSuccess);
  EXPECT_EQ(value, 1040u) << "ROCclr keeps the stack size rounded up to 16 bytes";
  size_t total = 0;
  ASSERT_EQ(hipMemGetInfo(&value, &total), hipSuccess);
  EXPECT_EQ(hipDeviceSetLimit(hipLimitMallocHeapSize, total), hipErrorInvalidValue) << "the heap stays below memory";
  ASSERT_EQ(hipDeviceSetLimit(hipLimitMallocHeapSize, 64 << 20), hipSuccess);
  ASSERT_EQ(hipDeviceGetLimit(&value, hipLimitMallocHeapSize), hipSuccess);
  EXPECT_EQ(value, 64u << 20);
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  if (count > 1) {
    ASSERT_EQ(hipSetDevice(1), hipSuccess);
    ASSERT_EQ(hipDeviceGetLimit(&value, hipLimitStackSize), hipSuccess);
    EXPECT_EQ(value, original_stack) << "limits belong to a device";
    ASSERT_EQ(hipSetDevice(0), hipSuccess);
  }
  EXPECT_EQ(hipDeviceGetLimit(&value, hipLimitPrintfFifoSize), hipErrorUnsupportedLimit);
  EXPECT_EQ(hipDeviceSetLimit(hipLimitPrintfFifoSize, 1 << 20), hipErrorUnsupportedLimit);
  EXPECT_EQ(hipDeviceGetLimit(&value, hipLimitRange), hipErrorInvalidValue);
  // hip-tests' Unit_hipDevice{Get,Set}Limit_Negative_Parameters on AMD: -1 reads as a negative int, not past the range.
  EXPECT_EQ(hipDeviceGetLimit(&value, static_cast<hipLimit_t>(-1)), hipErrorUnsupportedLimit);
  EXPECT_EQ(hipDeviceSetLimit(static_cast<hipLimit_t>(-1), 1024), hipErrorUnsupportedLimit);
  EXPECT_EQ(hipDeviceGetLimit(nullptr, hipLimitStackSize), hipErrorInvalidValue);
  ASSERT_EQ(hipDeviceSetLimit(hipLimitStackSize, original_stack), hipSuccess);
}

TEST_F(HipMemoryCApi, SetValidDevicesPicksTheFirstUnlessTheThreadChoseOne) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  int last = count - 1;
  EXPECT_EQ(hipSetValidDevices(nullptr, 0), hipSuccess);
  EXPECT_EQ(hipSetValidDevices(nullptr, 1), hipErrorInvalidValue);
  EXPECT_EQ(hipSetValidDevices(&last, -1), hipErrorInvalidValue);
  std::vector<int> too_many(count + 1, 0);
  EXPECT_EQ(hipSetValidDevices(too_many.data(), count + 1), hipErrorInvalidValue);
  int bad = count;
  EXPECT_EQ(hipSetValidDevices(&bad, 1), hipErrorInvalidDevice);

  int chosen = -1;
  std::thread fresh([&] {
    if (hipSetValidDevices(&last, 1) == hipSuccess) (void)hipGetDevice(&chosen);
  });
  fresh.join();
  EXPECT_EQ(chosen, last) << "a thread that never called hipSetDevice starts on the first valid device";
  // This thread called hipSetDevice(0) in SetUp: its choice stands.
  ASSERT_EQ(hipSetValidDevices(&last, 1), hipSuccess);
  int current = -1;
  ASSERT_EQ(hipGetDevice(&current), hipSuccess);
  EXPECT_EQ(current, 0);
}

}  // namespace
