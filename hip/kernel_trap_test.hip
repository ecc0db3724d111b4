// A kernel's trap (__builtin_trap: llvm.trap, s_trap 2, what a device abort() or failed assert reaches) fails its
// launch: the stream it ran on answers hipErrorLaunchFailure, CUDA's answer for a device trap, where CLR's queue
// callback would end the process. It is no memory fault (hipErrorIllegalAddress). __builtin_debugtrap (s_trap 3)
// does nothing without a debugger.
#include <hip/hip_runtime.h>

#include <cstdint>

#include "gtest/gtest.h"

namespace {

__global__ void store_then_trap(uint32_t* out) {
  out[threadIdx.x] = 7;
  __builtin_trap();
}

__global__ void debugtrap_then_store(uint32_t* out) {
  __builtin_debugtrap();
  out[threadIdx.x] = 9;
}

TEST(KernelTrap, ATrapFailsTheLaunchOnItsStream) {
  uint32_t* out = nullptr;
  ASSERT_EQ(hipHostMalloc(&out, 64 * sizeof(uint32_t), 0), hipSuccess);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  store_then_trap<<<1, 64, 0, stream>>>(out);
  EXPECT_EQ(hipGetLastError(), hipSuccess) << "the launch itself is fine";
  EXPECT_EQ(hipStreamSynchronize(stream), hipErrorLaunchFailure);
  EXPECT_EQ(hipGetLastError(), hipErrorLaunchFailure);
  EXPECT_EQ(hipStreamSynchronize(stream), hipErrorLaunchFailure) << "the stream stays failed";
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 7u) << i;  // what the waves stored before the trap
  (void)hipStreamDestroy(stream);
  (void)hipHostFree(out);
}

TEST(KernelTrap, ADebugTrapWithoutADebuggerDoesNothing) {
  uint32_t* out = nullptr;
  ASSERT_EQ(hipHostMalloc(&out, 64 * sizeof(uint32_t), 0), hipSuccess);
  hipStream_t stream = nullptr;
  ASSERT_EQ(hipStreamCreate(&stream), hipSuccess);
  debugtrap_then_store<<<1, 64, 0, stream>>>(out);
  ASSERT_EQ(hipStreamSynchronize(stream), hipSuccess);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[i], 9u) << i;
  EXPECT_EQ(hipStreamDestroy(stream), hipSuccess);
  EXPECT_EQ(hipHostFree(out), hipSuccess);
}

}  // namespace
