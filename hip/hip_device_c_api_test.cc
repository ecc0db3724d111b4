// Device queries through the C API, on the preset HIPMEM_SIM_PRESET names (mi300x, 2xmi250x, rx7900xtx): what
// hipInfo-style programs and hip-tests' device cases read.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "hip/hip_runtime.h"

namespace {

std::string Preset() {
  const char* p = std::getenv("HIPMEM_SIM_PRESET");
  return p == nullptr ? "" : p;
}

int Attribute(hipDeviceAttribute_t attr, int device = 0) {
  int value = -12345;
  EXPECT_EQ(hipDeviceGetAttribute(&value, attr, device), hipSuccess) << "attribute " << attr;
  return value;
}

TEST(HipDeviceCApi, InitAcceptsOnlyZeroFlags) {
  EXPECT_EQ(hipInit(0), hipSuccess);
  EXPECT_EQ(hipInit(1), hipErrorInvalidValue);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);
}

TEST(HipDeviceCApi, PropertiesAgreeWithAttributes) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t p;
    ASSERT_EQ(hipGetDeviceProperties(&p, d), hipSuccess);
    EXPECT_EQ(Attribute(hipDeviceAttributeMultiprocessorCount, d), p.multiProcessorCount);
    EXPECT_EQ(Attribute(hipDeviceAttributeWarpSize, d), p.warpSize);
    EXPECT_EQ(Attribute(hipDeviceAttributeMaxThreadsPerBlock, d), 1024);
    EXPECT_EQ(Attribute(hipDeviceAttributeMaxBlockDimZ, d), 1024);
    EXPECT_EQ(Attribute(hipDeviceAttributeMaxGridDimX, d), 2147483647);
    EXPECT_EQ(Attribute(hipDeviceAttributeMaxGridDimY, d), 65536);
    EXPECT_EQ(Attribute(hipDeviceAttributeClockRate, d), p.clockRate);
    EXPECT_EQ(Attribute(hipDeviceAttributeMemoryBusWidth, d), p.memoryBusWidth);
    EXPECT_EQ(Attribute(hipDeviceAttributeL2CacheSize, d), p.l2CacheSize);
    EXPECT_EQ(Attribute(hipDeviceAttributeMaxSharedMemoryPerBlock, d), 65536);
    EXPECT_EQ(Attribute(hipDeviceAttributeComputeCapabilityMajor, d), p.major);
    EXPECT_EQ(Attribute(hipDeviceAttributePciBusId, d), p.pciBusID);
    EXPECT_EQ(Attribute(hipDeviceAttributeIsLargeBar, d), p.isLargeBar);
    EXPECT_EQ(Attribute(hipDeviceAttributeManagedMemory, d), 1) << "the simulated KFD has SVM ranges";
    EXPECT_EQ(Attribute(hipDeviceAttributeHostRegisterSupported, d), 1);
    EXPECT_EQ(Attribute(hipDeviceAttributeUnifiedAddressing, d), 1);
    EXPECT_EQ(Attribute(hipDeviceAttributeMaxBlocksPerMultiProcessor, d), p.maxThreadsPerMultiProcessor / p.warpSize);
    // totalGlobalMem is far above INT32_MAX: the int attribute saturates, as upstream's does.
    EXPECT_EQ(Attribute(hipDeviceAttributeTotalGlobalMem, d), 2147483647);
    size_t total = 0;
    ASSERT_EQ(hipDeviceTotalMem(&total, d), hipSuccess);
    EXPECT_EQ(total, p.totalGlobalMem);
    int major = -1, minor = -1;
    ASSERT_EQ(hipDeviceComputeCapability(&major, &minor, d), hipSuccess);
    EXPECT_EQ(major, p.major);
    EXPECT_EQ(minor, p.minor);
    char name[256];
    ASSERT_EQ(hipDeviceGetName(name, sizeof(name), d), hipSuccess);
    EXPECT_STREQ(name, p.name);
    hipUUID uuid;
    ASSERT_EQ(hipDeviceGetUuid(&uuid, d), hipSuccess);
    EXPECT_EQ(std::memcmp(uuid.bytes, p.uuid.bytes, sizeof(uuid.bytes)), 0);
  }
}

// Every attribute the header declares either answers or, exactly where upstream's switch has no case, fails with
// hipErrorInvalidValue.
TEST(HipDeviceCApi, EveryDeclaredAttributeAnswersAsUpstream) {
  const std::set<int> unanswered = {
      hipDeviceAttributeLuid, hipDeviceAttributeMaxSurface1DLayered, hipDeviceAttributeMaxSurface2D,
      hipDeviceAttributeMaxSurface2DLayered, hipDeviceAttributeMaxSurface3D, hipDeviceAttributeMaxSurfaceCubemap,
      hipDeviceAttributeMaxSurfaceCubemapLayered, hipDeviceAttributeMaxTexture1DLayered,
      hipDeviceAttributeMaxTexture2DGather, hipDeviceAttributeMaxTexture2DLayered, hipDeviceAttributeMaxTexture2DLinear,
      hipDeviceAttributeMaxTexture2DMipmap, hipDeviceAttributeMaxTexture3DAlt,
      hipDeviceAttributeMaxTextureCubemapLayered, hipDeviceAttributeMaxThreadsDim, hipDeviceAttributeUnused1,
      hipDeviceAttributeSingleToDoublePrecisionPerfRatio, hipDeviceAttributeTccDriver, hipDeviceAttributeUnused2,
      hipDeviceAttributeClockInstructionRate, hipDeviceAttributeUnused3, hipDeviceAttributeUnused4,
      hipDeviceAttributeUnused5};
  auto check = [&](int attr) {
    int64_t value = 0;  // room for the two attributes that answer a pointer
    const hipError_t e = hipDeviceGetAttribute(reinterpret_cast<int*>(&value), static_cast<hipDeviceAttribute_t>(attr), 0);
    EXPECT_EQ(e, unanswered.count(attr) != 0 ? hipErrorInvalidValue : hipSuccess) << "attribute " << attr;
  };
  for (int a = hipDeviceAttributeCudaCompatibleBegin; a <= hipDeviceAttributeGPUDirectRDMAWritesOrdering; ++a) check(a);
  for (int a = hipDeviceAttributeAmdSpecificBegin; a <= hipDeviceAttributeMaxDynDataPrefetchRegions; ++a) check(a);
  for (int marker : {hipDeviceAttributeCudaCompatibleEnd, hipDeviceAttributeAmdSpecificEnd,
                     hipDeviceAttributeVendorSpecificBegin}) {
    int value = 0;
    EXPECT_EQ(hipDeviceGetAttribute(&value, static_cast<hipDeviceAttribute_t>(marker), 0), hipErrorInvalidValue);
  }
}

TEST(HipDeviceCApi, BadArgumentsGetClrErrors) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  hipDeviceProp_t p;
  int value = 0;
  EXPECT_EQ(hipGetDeviceProperties(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipGetDeviceProperties(&p, count), hipErrorInvalidDevice);
  EXPECT_EQ(hipGetDeviceProperties(&p, -1), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetAttribute(nullptr, hipDeviceAttributeWarpSize, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeWarpSize, count), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGetAttribute(&value, hipDeviceAttributeUnused1, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetAttribute(&value, static_cast<hipDeviceAttribute_t>(123456), 0), hipErrorInvalidValue);
  hipDevice_t device = -1;
  EXPECT_EQ(hipDeviceGet(&device, count), hipErrorInvalidDevice);
  EXPECT_EQ(hipDeviceGet(nullptr, 0), hipErrorInvalidValue);
  ASSERT_EQ(hipDeviceGet(&device, count - 1), hipSuccess);
  EXPECT_EQ(device, count - 1);
  char name[8];
  EXPECT_EQ(hipDeviceGetName(name, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetName(name, 8, count), hipErrorInvalidDevice);
  ASSERT_EQ(hipDeviceGetName(name, 8, 0), hipSuccess);
  EXPECT_EQ(std::strlen(name), 7u) << "a short buffer gets the name cut, NUL-terminated";
  EXPECT_EQ(hipDeviceTotalMem(nullptr, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetUuid(nullptr, 0), hipErrorInvalidValue);
  int major = 0;
  EXPECT_EQ(hipDeviceComputeCapability(&major, nullptr, 0), hipErrorInvalidValue);
}

TEST(HipDeviceCApi, PciBusIdRoundTrips) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  for (int d = 0; d < count; ++d) {
    char id[13];
    ASSERT_EQ(hipDeviceGetPCIBusId(id, sizeof(id), d), hipSuccess);
    hipDeviceProp_t p;
    ASSERT_EQ(hipGetDeviceProperties(&p, d), hipSuccess);
    char expected[32];
    std::snprintf(expected, sizeof(expected), "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
    EXPECT_STREQ(id, expected);
    int found = -1;
    ASSERT_EQ(hipDeviceGetByPCIBusId(&found, id), hipSuccess);
    EXPECT_EQ(found, d);
  }
  char small[12];
  EXPECT_EQ(hipDeviceGetPCIBusId(small, sizeof(small), 0), hipErrorInvalidValue) << "12 characters and a NUL";
  int found = -1;
  EXPECT_EQ(hipDeviceGetByPCIBusId(&found, "ffff:ff:1f.7"), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetByPCIBusId(&found, "not a bus id"), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetByPCIBusId(nullptr, "0000:00:00.0"), hipErrorInvalidValue);
}

TEST(HipDeviceCApi, DeviceFlagsAreValidatedAsClrDoes) {
  unsigned flags = 99;
  ASSERT_EQ(hipGetDeviceFlags(&flags), hipSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(hipDeviceScheduleSpin));
  EXPECT_EQ(hipSetDeviceFlags(hipDeviceScheduleBlockingSync | hipDeviceMapHost), hipSuccess);
  ASSERT_EQ(hipGetDeviceFlags(&flags), hipSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(hipDeviceScheduleBlockingSync)) << "only the scheduling bits are kept";
  EXPECT_EQ(hipSetDeviceFlags(hipDeviceScheduleSpin | hipDeviceScheduleYield), hipErrorInvalidValue);
  EXPECT_EQ(hipSetDeviceFlags(0x100), hipErrorInvalidValue);
  EXPECT_EQ(hipGetDeviceFlags(nullptr), hipErrorInvalidValue);
  // hipDeviceReset puts the flags back.
  ASSERT_EQ(hipDeviceReset(), hipSuccess);
  ASSERT_EQ(hipGetDeviceFlags(&flags), hipSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(hipDeviceScheduleSpin));
}

TEST(HipDeviceCApi, InitDeviceAppliesFlagsOnlyWhenMarkedValid) {
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  ASSERT_EQ(hipSetDevice(0), hipSuccess);
  ASSERT_EQ(hipSetDeviceFlags(hipDeviceScheduleSpin), hipSuccess);
  EXPECT_EQ(hipInitDevice(0, hipDeviceScheduleYield, 0), hipSuccess);
  unsigned flags = 0;
  ASSERT_EQ(hipGetDeviceFlags(&flags), hipSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(hipDeviceScheduleSpin)) << "flags 0: deviceFlags ignored";
  EXPECT_EQ(hipInitDevice(0, hipDeviceScheduleYield, hipInitDeviceFlagsAreValid), hipSuccess);
  ASSERT_EQ(hipGetDeviceFlags(&flags), hipSuccess);
  EXPECT_EQ(flags, static_cast<unsigned>(hipDeviceScheduleYield));
  EXPECT_EQ(hipInitDevice(0, 0x100, hipInitDeviceFlagsAreValid), hipErrorInvalidValue);
  EXPECT_EQ(hipInitDevice(0, 0, 2), hipErrorInvalidValue);
  EXPECT_EQ(hipInitDevice(count, 0, 0), hipErrorInvalidDevice);
  ASSERT_EQ(hipSetDeviceFlags(hipDeviceScheduleSpin), hipSuccess);
}

TEST(HipDeviceCApi, CacheAndSharedMemoryConfigsAreValidated) {
  hipFuncCache_t cache = hipFuncCachePreferL1;
  ASSERT_EQ(hipDeviceGetCacheConfig(&cache), hipSuccess);
  EXPECT_EQ(cache, hipFuncCachePreferNone);
  EXPECT_EQ(hipDeviceSetCacheConfig(hipFuncCachePreferShared), hipSuccess);
  EXPECT_EQ(hipDeviceSetCacheConfig(static_cast<hipFuncCache_t>(9)), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetCacheConfig(nullptr), hipErrorInvalidValue);
  hipSharedMemConfig config = hipSharedMemBankSizeEightByte;
  ASSERT_EQ(hipDeviceGetSharedMemConfig(&config), hipSuccess);
  EXPECT_EQ(config, hipSharedMemBankSizeFourByte);
  EXPECT_EQ(hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte), hipSuccess);
  EXPECT_EQ(hipDeviceSetSharedMemConfig(static_cast<hipSharedMemConfig>(7)), hipErrorInvalidValue);
  EXPECT_EQ(hipDeviceGetSharedMemConfig(nullptr), hipErrorInvalidValue);
}

TEST(HipDeviceCApi, DeviceResetFreesDeviceMemoryButNotHostMemory) {
  void* device_memory = nullptr;
  void* host_memory = nullptr;
  ASSERT_EQ(hipMalloc(&device_memory, 1 << 20), hipSuccess);
  ASSERT_EQ(hipHostMalloc(&host_memory, 4096, 0), hipSuccess);
  ASSERT_EQ(hipMemset(device_memory, 1, 1 << 20), hipSuccess);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  ASSERT_EQ(hipMemsetAsync(device_memory, 2, 1 << 20, stream), hipSuccess);
  ASSERT_EQ(hipDeviceReset(), hipSuccess);
  EXPECT_NE(hipStreamQuery(stream), hipSuccess) << "the reset destroyed the stream";
  EXPECT_NE(hipStreamDestroy(stream), hipSuccess);
  hipPointerAttribute_t a;
  ASSERT_EQ(hipPointerGetAttributes(&a, device_memory), hipSuccess);
  EXPECT_EQ(a.type, hipMemoryTypeUnregistered) << "the reset freed the device allocation";
  EXPECT_EQ(hipFree(device_memory), hipErrorInvalidValue);
  ASSERT_EQ(hipPointerGetAttributes(&a, host_memory), hipSuccess);
  EXPECT_EQ(a.type, hipMemoryTypeHost);
  EXPECT_EQ(hipHostFree(host_memory), hipSuccess);
  // The device is usable afterwards.
  ASSERT_EQ(hipMalloc(&device_memory, 4096), hipSuccess);
  EXPECT_EQ(hipFree(device_memory), hipSuccess);
}

TEST(HipDeviceCApi, ChooseDevicePicksADeviceMeetingTheRequest) {
  hipDeviceProp_t want;
  std::memset(&want, 0, sizeof(want));
  int device = -1;
  ASSERT_EQ(hipChooseDevice(&device, &want), hipSuccess);
  EXPECT_EQ(device, 0);
  hipDeviceProp_t have;
  ASSERT_EQ(hipGetDeviceProperties(&have, 0), hipSuccess);
  want.multiProcessorCount = have.multiProcessorCount;
  want.major = have.major;
  ASSERT_EQ(hipChooseDevice(&device, &want), hipSuccess);
  EXPECT_EQ(device, 0);
  EXPECT_EQ(hipChooseDevice(nullptr, &want), hipErrorInvalidValue);
  EXPECT_EQ(hipChooseDevice(&device, nullptr), hipErrorInvalidValue);
}

// The preset's numbers as real hardware reports them (see clr/device_info_test.cc for the sources).
TEST(HipDeviceCApi, PresetMatchesRealHardware) {
  hipDeviceProp_t p;
  ASSERT_EQ(hipGetDeviceProperties(&p, 0), hipSuccess);
  if (Preset() == "mi300x") {
    EXPECT_STREQ(p.name, "AMD Instinct MI300X");
    EXPECT_STREQ(p.gcnArchName, "gfx942:sramecc+:xnack-");
    EXPECT_EQ(p.multiProcessorCount, 304);
    EXPECT_EQ(p.clockRate, 2100000);
    EXPECT_EQ(p.memoryClockRate, 1300000);
    EXPECT_EQ(p.memoryBusWidth, 8192);
    EXPECT_EQ(p.l2CacheSize, 4194304);
    EXPECT_EQ(p.maxThreadsPerMultiProcessor, 2048);
    EXPECT_EQ(p.major, 9);
    EXPECT_EQ(p.minor, 4);
    EXPECT_EQ(p.isLargeBar, 1);
    EXPECT_EQ(Attribute(hipDeviceAttributeNumberOfXccs), 8);
    EXPECT_EQ(Attribute(hipDeviceAttributePciChipId), 0x74a1);
  } else if (Preset() == "rx7900xtx") {
    EXPECT_STREQ(p.name, "AMD Radeon RX 7900 XTX");
    EXPECT_STREQ(p.gcnArchName, "gfx1100");
    EXPECT_EQ(p.multiProcessorCount, 48);
    EXPECT_EQ(Attribute(hipDeviceAttributePhysicalMultiProcessorCount), 96);
    EXPECT_EQ(p.warpSize, 32);
    EXPECT_EQ(p.maxThreadsPerMultiProcessor, 2048);
    EXPECT_EQ(p.memoryBusWidth, 384);
    EXPECT_EQ(p.l2CacheSize, 6291456);
    EXPECT_EQ(p.major, 11);
    EXPECT_EQ(p.isLargeBar, 0);
  } else if (Preset() == "2xmi250x") {
    int count = 0;
    ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
    ASSERT_EQ(count, 2);
    hipDeviceProp_t q;
    ASSERT_EQ(hipGetDeviceProperties(&q, 1), hipSuccess);
    EXPECT_STREQ(p.gcnArchName, "gfx90a:sramecc+:xnack-");
    EXPECT_EQ(p.multiProcessorCount, 110);
    EXPECT_NE(p.pciBusID, q.pciBusID);
    EXPECT_NE(std::memcmp(p.uuid.bytes, q.uuid.bytes, sizeof(p.uuid.bytes)), 0);
  } else {
    GTEST_SKIP() << "no reference numbers for preset '" << Preset() << "'";
  }
}

}  // namespace
