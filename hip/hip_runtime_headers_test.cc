// <hip/hip_runtime.h> as a host C++ program compiled without hipcc uses it: upstream layouts, the
// typed C++ overloads reaching the real allocator, the vector and channel types, and the entry
// points hipmem does not implement yet failing with hipErrorNotSupported and the thread's last
// error. Built as C++17 and C++20.
#include <hip/hip_bf16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gtest/gtest.h"

// The kernel registration ABI hipcc-compiled host code calls; no public header declares it.
extern "C" {
void** __hipRegisterFatBinary(const void* data);
void __hipUnregisterFatBinary(void** modules);
void __hipRegisterFunction(void** modules, const void* hostFunction, char* deviceFunction,
                           const char* deviceName, unsigned int threadLimit, void* tid, void* bid,
                           dim3* blockDim, dim3* gridDim, int* wSize);
}

namespace {

// Layouts upstream's ABI fixes (hipDeviceProp_t is the R0600 layout).
static_assert(std::is_same_v<hipDeviceProp_t, hipDeviceProp_tR0600>);
static_assert(sizeof(hipDeviceProp_t) == 1472);
static_assert(offsetof(hipDeviceProp_t, uuid) == 256);
static_assert(offsetof(hipDeviceProp_t, totalGlobalMem) == 288);
static_assert(offsetof(hipDeviceProp_t, gcnArchName) == 1160);
static_assert(offsetof(hipDeviceProp_t, arch) == 1428);
static_assert(sizeof(hipPointerAttribute_t) == 32);
static_assert(sizeof(hipMemcpy3DParms) == 160);
static_assert(sizeof(HIP_MEMCPY3D) == 184);
static_assert(sizeof(hipStreamBatchMemOpParams) == 48);
static_assert(sizeof(hipLaunchAttributeValue) == 64 && sizeof(hipLaunchAttribute) == 72);
static_assert(sizeof(hipGraphNodeParams) == 256);
static_assert(sizeof(hipDevResource) == 144);
static_assert(sizeof(hipMemPoolProps) == 88);
static_assert(sizeof(hipIpcMemHandle_t) == 64 && sizeof(hipIpcEventHandle_t) == 64);
static_assert(sizeof(dim3) == 12);

// Values.
static_assert(hipErrorNotSupported == 801 && hipErrorTbd == 1055);
static_assert(hipDeviceAttributeMultiprocessorCount == 63);
static_assert(hipDeviceAttributePciDomainID == hipDeviceAttributePciDomainId);
static_assert(hipDeviceAttributeClockInstructionRate == 10000);
static_assert(hipDeviceAttributeVendorSpecificBegin == 20000);
static_assert(hipMemPoolAttrUsedMemHigh == 8 && hipMemAccessFlagsProtReadWrite == 3);
static_assert(hipStreamNonBlocking == 1 && hipEventDisableTiming == 2);
static_assert(hipEventReleaseToSystem == 0x80000000u);
static_assert(HIP_VERSION == 71500000 && HIP_VERSION_MAJOR == 7 && HIP_VERSION_MINOR == 15);

// Vector types, as upstream lays them out for a host compiler.
static_assert(sizeof(float4) == 16 && alignof(float4) == 16);
static_assert(sizeof(float3) == 12 && alignof(float3) == 4);
static_assert(sizeof(double2) == 16 && alignof(double2) == 16);
static_assert(sizeof(uchar2) == 2 && alignof(uchar2) == 2);
static_assert(sizeof(int1) == 4 && sizeof(longlong4) == 32);

void HostStandIn(int /*n*/, float* /*out*/) {}

// A device global as hipcc would leave its host shadow.
float g_symbol_shadow[4];

TEST(HipRuntimeHeadersTest, TypedOverloadsReachTheAllocator) {
  float* device = nullptr;
  ASSERT_EQ(hipMalloc(&device, 256 * sizeof(float)), hipSuccess);
  hipPointerAttribute_t attributes{};
  ASSERT_EQ(hipPointerGetAttributes(&attributes, device), hipSuccess);
  EXPECT_EQ(attributes.type, hipMemoryTypeDevice);
  EXPECT_EQ(hipFree(device), hipSuccess);

  int* host = nullptr;
  ASSERT_EQ(hipHostMalloc(&host, 64 * sizeof(int)), hipSuccess);  // flags default to 0
  host[63] = 7;
  EXPECT_EQ(hipHostFree(host), hipSuccess);
}

TEST(HipRuntimeHeadersTest, UnimplementedCallsFailAndSetTheLastError) {
  static_cast<void>(hipGetLastError());
  hipGraph_t graph = nullptr;
  EXPECT_EQ(hipGraphCreate(&graph, 0), hipErrorNotSupported);
  EXPECT_EQ(hipPeekAtLastError(), hipErrorNotSupported);
  EXPECT_EQ(hipGetLastError(), hipErrorNotSupported);
  EXPECT_EQ(hipGetLastError(), hipSuccess);

  // hipGetDeviceProperties reaches the versioned symbol, as with upstream.
  hipDeviceProp_t prop{};
  EXPECT_EQ(hipGetDeviceProperties(&prop, 0), hipSuccess);
  EXPECT_NE(prop.name[0], '\0');
  EXPECT_EQ(hipExtGetLastError(), hipSuccess);
}

// A host function that no fat binary registered is not a kernel: CLR's hipErrorInvalidDeviceFunction.
TEST(HipRuntimeHeadersTest, LaunchingAnUnregisteredFunctionIsAnInvalidDeviceFunction) {
  static_cast<void>(hipGetLastError());
  float out = 0;
  hipLaunchKernelGGL(HostStandIn, dim3(4), dim3(64), 0, nullptr, 3, &out);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidDeviceFunction);
}

// Upstream's C++ overloads instantiate with a host compiler and reach the C entry points: a host variable no fat
// binary registered is no device symbol (hipErrorInvalidSymbol), a host function no kernel; the occupancy API is a
// stub (hipErrorNotSupported).
TEST(HipRuntimeHeadersTest, CxxOverloadsInstantiateAndReachTheCApi) {
  const float values[4] = {1, 2, 3, 4};
  EXPECT_EQ(hipMemcpyToSymbol(HIP_SYMBOL(g_symbol_shadow), values, sizeof(values)),
            hipErrorInvalidSymbol);
  EXPECT_EQ(hipMemcpyFromSymbolAsync(nullptr, g_symbol_shadow, 4, 0, hipMemcpyDeviceToHost),
            hipErrorInvalidSymbol);
  size_t symbol_size = 0;
  EXPECT_EQ(hipGetSymbolSize(&symbol_size, g_symbol_shadow), hipErrorInvalidSymbol);

  double* managed = nullptr;
  ASSERT_EQ(hipMallocManaged(&managed, 64), hipSuccess);  // implemented (hip/managed.h), typed
  managed[7] = 1.5;
  EXPECT_EQ(hipFree(managed), hipSuccess);
  float* pitched = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(hipMallocPitch(&pitched, &pitch, 64, 4), hipSuccess);  // implemented (hip/pitched.h)
  EXPECT_GE(pitch, 64u);
  EXPECT_EQ(hipFree(pitched), hipSuccess);
  int* async = nullptr;
  ASSERT_EQ(hipMallocAsync(&async, 64, nullptr), hipSuccess);  // implemented (hip/mem_pools.h)
  EXPECT_NE(async, nullptr);
  EXPECT_EQ(hipFreeAsync(async, nullptr), hipSuccess);
  EXPECT_EQ(hipMallocFromPoolAsync(&async, 64, nullptr, nullptr), hipErrorInvalidValue);  // typed, null pool
  char* host_alloc = nullptr;
  ASSERT_EQ(hipHostAlloc(&host_alloc, 64), hipSuccess);  // implemented: the typed overload reaches it
  EXPECT_NE(host_alloc, nullptr);
  EXPECT_EQ(hipHostFree(host_alloc), hipSuccess);

  int blocks = 0;
  // Implemented now (hip/occupancy.h): a host function no fat binary registered is no kernel, as CLR finds it.
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, HostStandIn, 64, 0),
            hipErrorInvalidDeviceFunction);
  int grid = 0;
  int block = 0;
  EXPECT_EQ(hipOccupancyMaxPotentialBlockSizeVariableSMem(&grid, &block, HostStandIn,
                                                          [](int size) { return size * 4; }),
            hipErrorInvalidDeviceFunction);  // hipFuncGetAttributes, the first call it makes
  void* args[2] = {};
  EXPECT_EQ(hipLaunchCooperativeKernel(HostStandIn, dim3(1), dim3(1), args, 0, nullptr),
            hipErrorInvalidDeviceFunction);  // implemented: the typed overload reaches it
  hipLaunchConfig_t config = {};
  float out = 0;
  EXPECT_EQ(hipLaunchKernelEx(&config, HostStandIn, 3, &out), hipErrorNotSupported);

  texture<float, hipTextureType1D, hipReadModeElementType> tex;
  EXPECT_EQ(tex.channelDesc.f, hipChannelFormatKindFloat);
  EXPECT_EQ(tex.channelDesc.x, 32);
  size_t offset = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  EXPECT_EQ(hipBindTexture(&offset, tex, values, sizeof(values)), hipErrorNotSupported);
  EXPECT_EQ(hipUnbindTexture(tex), hipErrorNotSupported);
#pragma GCC diagnostic pop
}

TEST(HipRuntimeHeadersTest, LaunchConfigurationStackIsLastInFirstOut) {
  ASSERT_EQ(__hipPushCallConfiguration(dim3(2, 3, 4), dim3(64), 128, nullptr), hipSuccess);
  ASSERT_EQ(__hipPushCallConfiguration(dim3(9), dim3(32, 2), 0, hipStreamPerThread), hipSuccess);
  dim3 grid;
  dim3 block;
  size_t shared = 1;
  hipStream_t stream = nullptr;
  ASSERT_EQ(__hipPopCallConfiguration(&grid, &block, &shared, &stream), hipSuccess);
  EXPECT_EQ(grid.x, 9u);
  EXPECT_EQ(block.y, 2u);
  EXPECT_EQ(shared, 0u);
  EXPECT_EQ(stream, hipStreamPerThread);
  ASSERT_EQ(__hipPopCallConfiguration(&grid, &block, &shared, &stream), hipSuccess);
  EXPECT_EQ(grid.z, 4u);
  EXPECT_EQ(block.x, 64u);
  EXPECT_EQ(block.z, 1u);  // dim3's defaults
  EXPECT_EQ(shared, 128u);
  EXPECT_EQ(__hipPopCallConfiguration(&grid, &block, &shared, &stream),
            hipErrorMissingConfiguration);
  EXPECT_EQ(hipGetLastError(), hipErrorMissingConfiguration);
}

// clang's registration ABI: a wrapper without clang's magic registers nothing (null, as CLR answers); a fat binary
// without a code object for the device registers, and launching its kernel finds no code to run: current CLR passes
// the fat binary's error on, hipErrorInvalidImage when no device has a code object.
TEST(HipRuntimeHeadersTest, CodeObjectRegistrationFollowsClangsWrapper) {
  const char not_a_wrapper[24] = {};
  EXPECT_EQ(__hipRegisterFatBinary(not_a_wrapper), nullptr);

  // "__CLANG_OFFLOAD_BUNDLE__", no entries.
  static const char bundle[32] = "__CLANG_OFFLOAD_BUNDLE__";
  struct {
    unsigned magic, version;
    const void* binary;
    const void* unused;
  } const wrapper = {0x48495046u, 1u, bundle, nullptr};
  void** modules = __hipRegisterFatBinary(&wrapper);
  ASSERT_NE(modules, nullptr);
  char device_name[] = "_Z11HostStandIniPf";
  __hipRegisterFunction(modules, reinterpret_cast<const void*>(&HostStandIn), device_name,
                        device_name, 0, nullptr, nullptr, nullptr, nullptr, nullptr);
  int n = 3;
  float out = 0;
  float* out_ptr = &out;
  void* args[] = {&n, &out_ptr};
  EXPECT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(&HostStandIn), dim3(1), dim3(64), args, 0, nullptr),
            hipErrorInvalidImage);
  __hipUnregisterFatBinary(modules);
}

TEST(HipRuntimeHeadersTest, PerThreadStreamCopyIsTheSynchronousCopy) {
  int* device = nullptr;
  ASSERT_EQ(hipMalloc(&device, sizeof(int)), hipSuccess);
  const int sent = 42;
  int received = 0;
  ASSERT_EQ(hipMemcpy_spt(device, &sent, sizeof(int), hipMemcpyHostToDevice), hipSuccess);
  ASSERT_EQ(hipMemcpy_spt(&received, device, sizeof(int), hipMemcpyDefault), hipSuccess);
  EXPECT_EQ(received, 42);
  EXPECT_EQ(hipMemcpy_spt(nullptr, &sent, sizeof(int), hipMemcpyHostToDevice),
            hipErrorInvalidValue);
  EXPECT_EQ(hipFree(device), hipSuccess);
}

TEST(HipRuntimeHeadersTest, ExplicitInitialisationFindsTheSimulatedDevices) {
  EXPECT_EQ(hip_impl::hip_init(), hipSuccess);
  int count = 0;
  ASSERT_EQ(hipGetDeviceCount(&count), hipSuccess);
  EXPECT_GT(count, 0);
}

TEST(HipRuntimeHeadersTest, VersionAndErrorNameQueries) {
  int version = 0;
  ASSERT_EQ(hipRuntimeGetVersion(&version), hipSuccess);
  EXPECT_EQ(version, HIP_VERSION);
  ASSERT_EQ(hipDriverGetVersion(&version), hipSuccess);
  EXPECT_EQ(version, HIP_VERSION);
  EXPECT_EQ(hipRuntimeGetVersion(nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipGetLastError(), hipErrorInvalidValue);

  const char* text = nullptr;
  ASSERT_EQ(hipDrvGetErrorName(hipErrorNotSupported, &text), hipSuccess);
  EXPECT_STREQ(text, "hipErrorNotSupported");
  ASSERT_EQ(hipDrvGetErrorString(hipErrorNotSupported, &text), hipSuccess);
  EXPECT_STREQ(text, hipGetErrorString(hipErrorNotSupported));
  EXPECT_EQ(hipDrvGetErrorName(hipSuccess, nullptr), hipErrorInvalidValue);
}

TEST(HipRuntimeHeadersTest, ChannelDescriptorsFollowTheElementType) {
  const hipChannelFormatDesc f4 = hipCreateChannelDesc<float4>();
  EXPECT_EQ(f4.x, 32);
  EXPECT_EQ(f4.w, 32);
  EXPECT_EQ(f4.f, hipChannelFormatKindFloat);
  const hipChannelFormatDesc u2 = hipCreateChannelDesc<uchar2>();
  EXPECT_EQ(u2.x, 8);
  EXPECT_EQ(u2.y, 8);
  EXPECT_EQ(u2.z, 0);
  EXPECT_EQ(u2.f, hipChannelFormatKindUnsigned);
  EXPECT_EQ(hipCreateChannelDescHalf2().y, 16);
}

TEST(HipRuntimeHeadersTest, VectorTypesComputeComponentWise) {
  const float4 a = make_float4(1, 2, 3, 4);
  const float4 b = make_float4(10, 20, 30, 40);
  const float4 sum = a + b;
  EXPECT_EQ(sum.x, 11);
  EXPECT_EQ(sum.w, 44);
  const int2 r = make_int2(7, 9) % make_int2(4, 5);
  EXPECT_EQ(r.x, 3);
  EXPECT_EQ(r.y, 4);
  const dim3 d(5);
  EXPECT_EQ(d.x * d.y * d.z, 5u);
}

TEST(HipRuntimeHeadersTest, VectorTypesConstructLikeUpstream) {
  static_assert(std::is_trivially_default_constructible_v<float4>);
  static_assert(!std::is_convertible_v<float, float4>);  // a splat is explicit
  const float4 splat(2.5f);
  EXPECT_EQ(splat.x, 2.5f);
  EXPECT_EQ(splat.w, 2.5f);
  const double2 pair(1, 2);  // components convert to the element type
  EXPECT_EQ(pair.y, 2.0);
  const uchar3 bytes = {1, 2, 3};
  EXPECT_EQ(bytes.z, 3);
  EXPECT_TRUE(make_int4(1, 2, 3, 4) == int4(1, 2, 3, 4));
}

// <hip/hip_fp16.h> and <hip/hip_bf16.h> in host code: the types are their bit patterns, conversions round in the
// direction asked, arithmetic rounds to nearest-even.
TEST(HipRuntimeHeadersTest, HalfAndBFloat16WorkInHostCode) {
  static_assert(sizeof(__half) == 2 && sizeof(__half2) == 4 && alignof(__half2) == 4);
  static_assert(sizeof(__hip_bfloat16) == 2 && sizeof(__hip_bfloat162) == 4 && alignof(__hip_bfloat162) == 4);
  static_assert(std::is_trivially_copyable_v<__half> && std::is_trivially_copyable_v<__hip_bfloat162>);
  // 1/3 is 0x3555 in binary16 rounded to nearest or toward zero, 0x3556 rounded away from zero.
  EXPECT_EQ(__half_as_ushort(__float2half(1.0f / 3)), 0x3555);
  EXPECT_EQ(__half_as_ushort(__float2half_ru(1.0f / 3)), 0x3556);
  EXPECT_EQ(__half_as_ushort(__float2half_rz(-1.0f / 3)), 0xb555);
  EXPECT_EQ(__half_as_ushort(__float2half_rd(-1.0f / 3)), 0xb556);
  // 65520 is halfway past the largest finite half: to nearest it overflows, toward zero it stays finite.
  EXPECT_EQ(__half_as_ushort(__float2half(65520.0f)), 0x7c00);
  EXPECT_EQ(__half_as_ushort(__float2half_rz(1e9f)), 0x7bff);
  EXPECT_EQ(__half2float(__ushort_as_half(0x0001)), std::ldexp(1.0f, -24));
  const __half a = 1.5f, b = 2.0f;
  EXPECT_EQ(__half2float(a * b + a), 4.5f);
  EXPECT_EQ(__half2float(__hfma(a, b, __float2half(-3.0f))), 0.0f);
  EXPECT_TRUE(__hlt(a, b));
  EXPECT_FALSE(__heq(__float2half(NAN), __float2half(NAN)));
  EXPECT_EQ(__half2int_rn(__float2half(2.5f)), 2);
  EXPECT_EQ(__half2int_ru(__float2half(2.25f)), 3);
  const __half2 pair = __floats2half2_rn(1.0f, -2.0f);
  EXPECT_EQ(__high2float(__hmul2(pair, pair)), 4.0f);
  // bfloat16 is a float's top half: 1/3 (0x3eaaaaab) rounds up to 0x3eab to nearest and down to 0x3eaa toward zero.
  EXPECT_EQ(__bfloat16_as_ushort(__float2bfloat16(1.0f / 3)), 0x3eab);
  EXPECT_EQ(__bfloat16_as_ushort(__float2bfloat16_rz(1.0f / 3)), 0x3eaa);
  EXPECT_EQ(__bfloat162float(__ushort_as_bfloat16(0x3f80)), 1.0f);
  const __hip_bfloat16 x = 3.0f, y = 0.5f;
  EXPECT_EQ(__bfloat162float(__hsub(x, y)), 2.5f);
  EXPECT_EQ(__bfloat162float(x / y), 6.0f);
  EXPECT_EQ(__hisinf(__float2bfloat16(-INFINITY)), -1);
}

}  // namespace
