// Occupancy, function attributes and cooperative launches of HIP kernels, as CLR answers them: compiled by
// clang++-19 (hip_test) and asked about on each preset's ISA (gfx942 on mi300x, gfx90a on 2xmi250x, gfx908 on mi100).
#include <hip/hip_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

// Few registers: the SPI's limit of 8 waves per SIMD (32 per CU) is what binds.
__global__ void light(int* p) { p[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<int>(blockIdx.x); }

// Holds all 256 architectural VGPRs (one wave per SIMD is all __launch_bounds__(256) asks for): the register file
// binds: 256 VGPRs per SIMD on gfx908 hold one such wave, the 512 of gfx90a and gfx94x two.
__global__ __launch_bounds__(256) void heavy(int* p) {
  asm volatile("v_mov_b32 v255, 0" ::: "v255");
  p[blockIdx.x * blockDim.x + threadIdx.x] = 7;
}

// 16 KiB of static LDS.
__global__ void staged(int* p) {
  __shared__ int tile[4096];
  tile[threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  p[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

class OccupancyTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_HIP(hipGetDeviceProperties(&props_, 0)); }
  bool Gfx908() const { return std::string(props_.gcnArchName).rfind("gfx908", 0) == 0; }
  hipDeviceProp_t props_{};
};

TEST_F(OccupancyTest, ActiveBlocksFollowTheWavesAKernelsRegistersAllow) {
  int blocks = -1;
  // 32 waves per CU.
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, light, 64, 0));
  EXPECT_EQ(blocks, 32);
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, light, 1024, 0));
  EXPECT_EQ(blocks, 2);
  // 65 work-items take two waves.
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, light, 65, 0));
  EXPECT_EQ(blocks, 16);
  // One wave per SIMD (gfx908) or two: 4 or 8 waves per CU.
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, heavy, 256, 0));
  EXPECT_EQ(blocks, Gfx908() ? 1 : 2);
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, heavy, 64, 0,
                                                                  hipOccupancyDisableCachingOverride));
  EXPECT_EQ(blocks, Gfx908() ? 4 : 8);
  hipFuncAttributes attr{};
  ASSERT_HIP(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(heavy)));
  EXPECT_GE(attr.numRegs, 256);
  EXPECT_EQ(attr.maxThreadsPerBlock, 256);
}

TEST_F(OccupancyTest, SharedMemoryBoundsTheBlocksACuHolds) {
  const size_t lds = props_.maxSharedMemoryPerMultiProcessor;
  ASSERT_GT(lds, 0u);
  int blocks = -1;
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, light, 64, lds / 2));
  EXPECT_EQ(blocks, 2);
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, light, 64, lds / 3));
  EXPECT_EQ(blocks, 3);
  // The kernel's own 16 KiB count too.
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, staged, 64, 0));
  EXPECT_EQ(blocks, static_cast<int>(lds / (16 << 10)));
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, staged, 64, lds / 2 - (16 << 10)));
  EXPECT_EQ(blocks, 2);
}

TEST_F(OccupancyTest, PotentialBlockSizeFillsEveryCu) {
  const int cus = props_.multiProcessorCount;
  int grid = -1, block = -1;
  ASSERT_HIP(hipOccupancyMaxPotentialBlockSize(&grid, &block, light, 0, 0));
  EXPECT_EQ(block, 1024);
  EXPECT_EQ(grid, 2 * cus);
  ASSERT_HIP(hipOccupancyMaxPotentialBlockSize(&grid, &block, light, 0, 128));
  EXPECT_EQ(block, 128);
  EXPECT_EQ(grid, 16 * cus);
  // The register file's limit, whatever __launch_bounds__ says (as CLR answers).
  ASSERT_HIP(hipOccupancyMaxPotentialBlockSize(&grid, &block, heavy, 0, 0));
  EXPECT_EQ(block, Gfx908() ? 256 : 512);
  EXPECT_EQ(grid, cus);
}

TEST_F(OccupancyTest, BadArgumentsAreClrs) {
  int blocks = -1, grid = -1, block = -1;
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(nullptr, light, 64, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reinterpret_cast<const void*>(&blocks), 64, 0),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, light, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, light, 64, 0, 2), hipErrorInvalidValue);
  // A block the device cannot run: no blocks, no error.
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, light, 2048, 0));
  EXPECT_EQ(blocks, 0);
  EXPECT_EQ(hipOccupancyMaxPotentialBlockSize(nullptr, &block, light, 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipOccupancyMaxPotentialBlockSize(&grid, &block, static_cast<const void*>(nullptr), 0, 0),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, nullptr, 64, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipModuleOccupancyMaxPotentialBlockSize(&grid, &block, nullptr, 0, 0), hipErrorInvalidValue);
}

TEST_F(OccupancyTest, FuncSetAttributeLowersTheDynamicSharedMemoryCeiling) {
  hipFuncAttributes attr{};
  ASSERT_HIP(hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(staged)));
  const int available = static_cast<int>(props_.maxSharedMemoryPerMultiProcessor) - (16 << 10);
  EXPECT_EQ(attr.sharedSizeBytes, 16u << 10);
  EXPECT_EQ(attr.maxDynamicSharedSizeBytes, available);
  const void* f = reinterpret_cast<const void*>(staged);
  ASSERT_HIP(hipFuncSetAttribute(f, hipFuncAttributeMaxDynamicSharedMemorySize, 4096));
  ASSERT_HIP(hipFuncGetAttributes(&attr, f));
  EXPECT_EQ(attr.maxDynamicSharedSizeBytes, 4096);
  EXPECT_EQ(hipFuncSetAttribute(f, hipFuncAttributeMaxDynamicSharedMemorySize, available + 1), hipErrorInvalidValue);
  EXPECT_EQ(hipFuncSetAttribute(f, hipFuncAttributeMaxDynamicSharedMemorySize, -1), hipErrorInvalidValue);
  ASSERT_HIP(hipFuncSetAttribute(f, hipFuncAttributeMaxDynamicSharedMemorySize, available));
  ASSERT_HIP(hipFuncSetAttribute(f, hipFuncAttributePreferredSharedMemoryCarveout, 50));
  EXPECT_EQ(hipFuncSetAttribute(f, hipFuncAttributePreferredSharedMemoryCarveout, 101), hipErrorInvalidValue);
  EXPECT_EQ(hipFuncSetAttribute(f, static_cast<hipFuncAttribute>(hipFuncAttributeMax + 1), 0), hipErrorInvalidValue);
  EXPECT_EQ(hipFuncSetAttribute(nullptr, hipFuncAttributeMaxDynamicSharedMemorySize, 0),
            hipErrorInvalidDeviceFunction);
  EXPECT_EQ(hipFuncSetAttribute(&attr, hipFuncAttributeMaxDynamicSharedMemorySize, 0), hipErrorInvalidDeviceFunction);
  // Hints the hardware has no use for, checked as CLR checks them.
  ASSERT_HIP(hipFuncSetCacheConfig(f, hipFuncCachePreferShared));
  EXPECT_EQ(hipFuncSetCacheConfig(f, static_cast<hipFuncCache_t>(7)), hipErrorInvalidValue);
  EXPECT_EQ(hipFuncSetCacheConfig(nullptr, hipFuncCachePreferL1), hipErrorInvalidDeviceFunction);
  ASSERT_HIP(hipFuncSetSharedMemConfig(f, hipSharedMemBankSizeFourByte));
  EXPECT_EQ(hipFuncSetSharedMemConfig(f, static_cast<hipSharedMemConfig>(9)), hipErrorInvalidValue);
  // The launch still runs with the kernel's LDS.
  int* out = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&out), 64 * sizeof(int)));
  staged<<<1, 64>>>(out);
  std::vector<int> host(64);
  ASSERT_HIP(hipMemcpy(host.data(), out, 64 * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i) ASSERT_EQ(host[i], 63 - i);
  ASSERT_HIP(hipFree(out));
}

TEST_F(OccupancyTest, CooperativeLaunchesAreBoundedByWhatTheDeviceHoldsAtOnce) {
  int cooperative = 0;
  ASSERT_HIP(hipDeviceGetAttribute(&cooperative, hipDeviceAttributeCooperativeLaunch, 0));
  ASSERT_EQ(cooperative, 1);
  int grid = 0, block = 0;
  ASSERT_HIP(hipOccupancyMaxPotentialBlockSize(&grid, &block, heavy, 0, 256));
  ASSERT_EQ(block, 256);
  const int resident = grid;  // blocks of 256 the device holds at once
  int* p = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&p), size_t{256} * (resident + 1) * sizeof(int)));
  void* args[] = {&p};
  const void* f = reinterpret_cast<const void*>(heavy);
  ASSERT_HIP(hipLaunchCooperativeKernel(f, dim3(resident), dim3(256), args, 0, nullptr));
  std::vector<int> host(size_t{256} * resident);
  ASSERT_HIP(hipMemcpy(host.data(), p, host.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < host.size(); ++i) ASSERT_EQ(host[i], 7) << i;
  EXPECT_EQ(hipLaunchCooperativeKernel(f, dim3(resident + 1), dim3(256), args, 0, nullptr),
            hipErrorCooperativeLaunchTooLarge);
  EXPECT_EQ(hipGetLastError(), hipErrorCooperativeLaunchTooLarge);
  EXPECT_EQ(hipLaunchCooperativeKernel(f, dim3(1), dim3(256), args, props_.maxSharedMemoryPerMultiProcessor + 1,
                                       nullptr),
            hipErrorCooperativeLaunchTooLarge);
  EXPECT_EQ(hipLaunchCooperativeKernel(f, dim3(1), dim3(0), args, 0, nullptr), hipErrorInvalidConfiguration);
  EXPECT_EQ(hipLaunchCooperativeKernel(f, dim3(1), dim3(2048), args, 0, nullptr), hipErrorInvalidConfiguration);
  EXPECT_EQ(hipLaunchCooperativeKernel(static_cast<const void*>(nullptr), dim3(1), dim3(64), args, 0, nullptr),
            hipErrorInvalidDeviceFunction);
  // Beyond __launch_bounds__: CLR's hipErrorLaunchFailure, before the residency check.
  EXPECT_EQ(hipLaunchCooperativeKernel(f, dim3(1), dim3(512), args, 0, nullptr), hipErrorLaunchFailure);
  ASSERT_HIP(hipFree(p));
}

}  // namespace
