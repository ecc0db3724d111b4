// HIP kernels end to end, as a HIP program writes them: compiled by clang++-19 in HIP mode against hipmem's headers
// (hip_test in hip/defs.bzl), registered by clang's constructor, launched with <<<>>> and hipLaunchKernelGGL, and
// run by the simulated GPU's GFX9 engine on each preset's ISA (gfx942 on mi300x, gfx90a on 2xmi250x, gfx908 on mi100).
#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

template <typename T>
__global__ void scale(T* p, T factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= factor;
}

// Each block reverses its slice through dynamic shared memory.
__global__ void reverse_blocks(const int* in, int* out) {
  extern __shared__ int staged[];
  const unsigned t = threadIdx.x;
  const unsigned base = blockIdx.x * blockDim.x;
  staged[t] = in[base + t];
  __syncthreads();
  out[base + t] = staged[blockDim.x - 1 - t];
}

struct AtomicCounters {
  int sum;
  unsigned max;
  unsigned wrapping;
  unsigned cas_claims;
  float fsum;
  unsigned long long bits;
};

__global__ void atomics(AtomicCounters* c) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(&c->sum, 1);
  atomicMax(&c->max, i);
  atomicInc(&c->wrapping, 99u);  // counts modulo 100
  if (atomicCAS(&c->cas_claims, 0u, i + 1) == 0u) atomicAdd(&c->sum, 1000);
  atomicAdd(&c->fsum, 0.5f);
  atomicOr(&c->bits, 1ull << (i % 64));
}

// Each wave sums its lanes' values with a butterfly of __shfl_xor; lane 0 writes the wave's sum.
__global__ void wave_sums(const int* in, int* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int mask = warpSize / 2; mask > 0; mask /= 2) v += __shfl_xor(v, mask);
  if (__lane_id() == 0) out[i / warpSize] = v;
}

__global__ void store_to(int* p) { p[threadIdx.x] = 1; }

__global__ __launch_bounds__(128) void bounded(int* p) { p[threadIdx.x] = 2; }

__constant__ int kTable[4];
__device__ int device_counter;

__global__ void read_table(int* out) {
  out[threadIdx.x] = kTable[threadIdx.x % 4] + threadIdx.x;
  if (threadIdx.x == 0) device_counter += 5;
}

class KernelTest : public ::testing::Test {
 protected:
  template <typename T>
  T* Device(size_t n) {
    void* p = nullptr;
    EXPECT_EQ(hipMalloc(&p, n * sizeof(T)), hipSuccess);
    allocations_.push_back(p);
    return static_cast<T*>(p);
  }
  void TearDown() override {
    for (void* p : allocations_) EXPECT_EQ(hipFree(p), hipSuccess);
  }
  std::vector<void*> allocations_;
};

TEST_F(KernelTest, VectorAddCoversAPartialLastBlockAndNoMore) {
  constexpr int kN = 100'003;
  std::vector<float> a(kN), b(kN), c(kN + 64, -1.0f);
  for (int i = 0; i < kN; ++i) {
    a[i] = 0.25f * static_cast<float>(i);
    b[i] = 7.0f - static_cast<float>(i);
  }
  float* da = Device<float>(kN);
  float* db = Device<float>(kN);
  float* dc = Device<float>(kN + 64);
  ASSERT_HIP(hipMemcpy(da, a.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  ASSERT_HIP(hipMemcpy(db, b.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  ASSERT_HIP(hipMemcpy(dc, c.data(), (kN + 64) * sizeof(float), hipMemcpyHostToDevice));
  vector_add<<<(kN + 255) / 256, 256>>>(da, db, dc, kN);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipMemcpy(c.data(), dc, (kN + 64) * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  for (int i = kN; i < kN + 64; ++i) ASSERT_EQ(c[i], -1.0f) << i;
}

TEST_F(KernelTest, KernelTemplatesLaunchWithChevronsAndTheGglMacro) {
  constexpr int kN = 1000;
  std::vector<float> f(kN);
  std::vector<int> n(kN);
  std::iota(f.begin(), f.end(), 0.0f);
  std::iota(n.begin(), n.end(), 0);
  float* df = Device<float>(kN);
  int* dn = Device<int>(kN);
  ASSERT_HIP(hipMemcpy(df, f.data(), kN * sizeof(float), hipMemcpyHostToDevice));
  ASSERT_HIP(hipMemcpy(dn, n.data(), kN * sizeof(int), hipMemcpyHostToDevice));
  scale<float><<<dim3((kN + 127) / 128), dim3(128), 0, 0>>>(df, 1.5f, kN);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<int>), dim3((kN + 63) / 64), dim3(64), 0, 0, dn, 3, kN);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipMemcpy(f.data(), df, kN * sizeof(float), hipMemcpyDeviceToHost));
  ASSERT_HIP(hipMemcpy(n.data(), dn, kN * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(f[i], 1.5f * static_cast<float>(i)) << i;
    ASSERT_EQ(n[i], 3 * i) << i;
  }
}

TEST_F(KernelTest, DynamicSharedMemoryIsSizedByTheLaunch) {
  constexpr int kBlock = 128, kBlocks = 6, kN = kBlock * kBlocks;
  std::vector<int> in(kN), out(kN, 0);
  std::iota(in.begin(), in.end(), 0);
  int* din = Device<int>(kN);
  int* dout = Device<int>(kN);
  ASSERT_HIP(hipMemcpy(din, in.data(), kN * sizeof(int), hipMemcpyHostToDevice));
  reverse_blocks<<<kBlocks, kBlock, kBlock * sizeof(int)>>>(din, dout);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipMemcpy(out.data(), dout, kN * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(out[i], (i / kBlock) * kBlock + kBlock - 1 - i % kBlock) << i;
}

TEST_F(KernelTest, AtomicsLoseNoUpdate) {
  constexpr unsigned kBlocks = 40, kBlock = 256, kThreads = kBlocks * kBlock;
  AtomicCounters* d = Device<AtomicCounters>(1);
  ASSERT_HIP(hipMemset(d, 0, sizeof(AtomicCounters)));
  atomics<<<kBlocks, kBlock>>>(d);
  ASSERT_HIP(hipGetLastError());
  AtomicCounters c;
  ASSERT_HIP(hipMemcpy(&c, d, sizeof(c), hipMemcpyDeviceToHost));
  EXPECT_EQ(c.sum, static_cast<int>(kThreads) + 1000);  // one CAS winner
  EXPECT_EQ(c.max, kThreads - 1);
  EXPECT_EQ(c.wrapping, kThreads % 100);
  EXPECT_NE(c.cas_claims, 0u);
  EXPECT_EQ(c.fsum, 0.5f * kThreads);
  EXPECT_EQ(c.bits, ~0ull);
}

TEST_F(KernelTest, ShflXorReducesEachWave) {
  constexpr int kN = 64 * 32;
  std::vector<int> in(kN);
  for (int i = 0; i < kN; ++i) in[i] = i * 3 + 1;
  int* din = Device<int>(kN);
  int* dout = Device<int>(kN / 64);
  ASSERT_HIP(hipMemcpy(din, in.data(), kN * sizeof(int), hipMemcpyHostToDevice));
  wave_sums<<<kN / 256, 256>>>(din, dout);
  std::vector<int> out(kN / 64);
  ASSERT_HIP(hipMemcpy(out.data(), dout, out.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (int w = 0; w < kN / 64; ++w) {
    int sum = 0;
    for (int l = 0; l < 64; ++l) sum += in[w * 64 + l];
    ASSERT_EQ(out[w], sum) << w;
  }
}

TEST_F(KernelTest, AKernelBetweenTwoAsyncCopiesRunsInStreamOrder) {
  constexpr int kN = 1 << 16;
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  float* host = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&host), kN * sizeof(float), 0));
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i);
  float* d = Device<float>(kN);
  for (int round = 0; round < 3; ++round) {
    ASSERT_HIP(hipMemcpyAsync(d, host, kN * sizeof(float), hipMemcpyHostToDevice, stream));
    scale<float><<<kN / 256, 256, 0, stream>>>(d, 2.0f, kN);
    ASSERT_HIP(hipMemcpyAsync(host, d, kN * sizeof(float), hipMemcpyDeviceToHost, stream));
  }
  ASSERT_HIP(hipStreamSynchronize(stream));
  for (int i = 0; i < kN; ++i) ASSERT_EQ(host[i], 8.0f * static_cast<float>(i)) << i;
  ASSERT_HIP(hipHostFree(host));
  ASSERT_HIP(hipStreamDestroy(stream));
}

TEST_F(KernelTest, DeviceSymbolsAreReadAndWrittenByName) {
  const int table[4] = {10, 20, 30, 40};
  ASSERT_HIP(hipMemcpyToSymbol(HIP_SYMBOL(kTable), table, sizeof(table)));
  const int zero = 0;
  ASSERT_HIP(hipMemcpyToSymbol(HIP_SYMBOL(device_counter), &zero, sizeof(zero)));
  size_t size = 0;
  ASSERT_HIP(hipGetSymbolSize(&size, HIP_SYMBOL(kTable)));
  EXPECT_EQ(size, sizeof(table));
  void* address = nullptr;
  ASSERT_HIP(hipGetSymbolAddress(&address, HIP_SYMBOL(device_counter)));
  EXPECT_NE(address, nullptr);
  int* out = Device<int>(64);
  read_table<<<1, 64>>>(out);
  read_table<<<1, 64>>>(out);
  std::vector<int> host(64);
  ASSERT_HIP(hipMemcpy(host.data(), out, 64 * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(host[i], table[i % 4] + i) << i;
  int counter = 0;
  ASSERT_HIP(hipMemcpyFromSymbol(&counter, HIP_SYMBOL(device_counter), sizeof(counter)));
  EXPECT_EQ(counter, 10);
  EXPECT_EQ(hipMemcpyToSymbol(HIP_SYMBOL(kTable), table, sizeof(table), 4), hipErrorInvalidValue);
  EXPECT_EQ(hipMemcpyToSymbol(&size, table, sizeof(table)), hipErrorInvalidSymbol);
}

TEST_F(KernelTest, FunctionAttributesComeFromTheCodeObject) {
  hipFuncAttributes attr{};
  ASSERT_HIP(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(bounded)));
  EXPECT_EQ(attr.maxThreadsPerBlock, 128);
  ASSERT_HIP(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(vector_add)));
  EXPECT_EQ(attr.maxThreadsPerBlock, 1024);
  EXPECT_EQ(attr.sharedSizeBytes, 0u);
  EXPECT_GT(attr.numRegs, 0);
}

TEST_F(KernelTest, LaunchConfigurationErrorsAreClrs) {
  int* p = Device<int>(2048);
  void* args[] = {&p};
  const void* k = reinterpret_cast<const void*>(store_to);
  EXPECT_EQ(hipLaunchKernel(k, dim3(1), dim3(0), args, 0, nullptr), hipErrorInvalidConfiguration);
  EXPECT_EQ(hipLaunchKernel(k, dim3(0), dim3(64), args, 0, nullptr), hipErrorInvalidConfiguration);
  EXPECT_EQ(hipLaunchKernel(k, dim3(1), dim3(1025), args, 0, nullptr), hipErrorInvalidConfiguration);
  EXPECT_EQ(hipLaunchKernel(k, dim3(1), dim3(64), args, 1 << 20, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipLaunchKernel(k, dim3(1), dim3(64), nullptr, 0, nullptr), hipErrorInvalidValue);
  EXPECT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(&args), dim3(1), dim3(64), args, 0, nullptr),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipLaunchKernel(reinterpret_cast<const void*>(bounded), dim3(1), dim3(256), args, 0, nullptr),
            hipErrorLaunchFailure);
  EXPECT_EQ(hipGetLastError(), hipErrorLaunchFailure);
  // A valid launch after them all still runs.
  ASSERT_HIP(hipLaunchKernel(reinterpret_cast<const void*>(bounded), dim3(1), dim3(128), args, 0, nullptr));
  int first = 0;
  ASSERT_HIP(hipMemcpy(&first, p, sizeof(first), hipMemcpyDeviceToHost));
  EXPECT_EQ(first, 2);
}

TEST_F(KernelTest, ExtLaunchKernelRecordsItsEvents) {
  int* p = Device<int>(64);
  void* args[] = {&p};
  hipEvent_t start = nullptr, stop = nullptr;
  ASSERT_HIP(hipEventCreate(&start));
  ASSERT_HIP(hipEventCreate(&stop));
  ASSERT_HIP(hipExtLaunchKernel(reinterpret_cast<const void*>(store_to), dim3(1), dim3(64), args, 0, nullptr, start,
                                stop, 0));
  ASSERT_HIP(hipEventSynchronize(stop));
  float ms = -1.0f;
  ASSERT_HIP(hipEventElapsedTime(&ms, start, stop));
  EXPECT_GE(ms, 0.0f);
  ASSERT_HIP(hipEventDestroy(start));
  ASSERT_HIP(hipEventDestroy(stop));
}

TEST_F(KernelTest, EachDeviceRunsTheCodeObjectForItsIsa) {
  int count = 0;
  ASSERT_HIP(hipGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "one device";
  constexpr int kN = 4096;
  std::vector<float*> buffers(count);
  for (int d = 0; d < count; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&buffers[d]), kN * sizeof(float)));
    std::vector<float> v(kN, static_cast<float>(d + 1));
    ASSERT_HIP(hipMemcpy(buffers[d], v.data(), kN * sizeof(float), hipMemcpyHostToDevice));
    scale<float><<<kN / 256, 256>>>(buffers[d], 10.0f, kN);
  }
  for (int d = 0; d < count; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    std::vector<float> v(kN);
    ASSERT_HIP(hipMemcpy(v.data(), buffers[d], kN * sizeof(float), hipMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i) ASSERT_EQ(v[i], 10.0f * static_cast<float>(d + 1)) << d << " " << i;
    ASSERT_HIP(hipFree(buffers[d]));
  }
  ASSERT_HIP(hipSetDevice(0));
}

// Last: the fault is sticky for the rest of the process, as CUDA's is.
TEST_F(KernelTest, ZZ_AKernelTouchingAnUnmappedAddressIsAnIllegalAddressThatSticks) {
  int* unmapped = reinterpret_cast<int*>(0x10000);
  store_to<<<1, 64>>>(unmapped);
  EXPECT_EQ(hipGetLastError(), hipSuccess);  // queued: the fault shows at the next synchronisation
  EXPECT_EQ(hipDeviceSynchronize(), hipErrorIllegalAddress);
  EXPECT_EQ(hipDeviceSynchronize(), hipErrorIllegalAddress);
  allocations_.clear();  // the device is lost: frees answer the fault too
  EXPECT_EQ(hipStreamSynchronize(nullptr), hipErrorIllegalAddress);
  store_to<<<1, 64>>>(unmapped);
  EXPECT_EQ(hipGetLastError(), hipErrorIllegalAddress);
}

}  // namespace
