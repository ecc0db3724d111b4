// A GPU without global wave sync (HIPMEM_SIM_NUM_GWS=0 in this test's environment), as CLR answers for one: its
// cooperativeLaunch and cooperativeMultiDeviceLaunch attributes are 0 (cooperativeGroups_ follows the agent's
// HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES), and every cooperative launch fails with hipErrorLaunchFailure
// (ihipModuleLaunchKernel's check of cooperativeGroups_) before anything is queued, while ordinary launches run.
#include <hip/hip_runtime.h>

#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

__global__ void Mark(int* p, int value) { p[blockIdx.x * blockDim.x + threadIdx.x] = value; }

TEST(NoGws, TheDeviceOffersNoCooperativeLaunches) {
  int value = -1;
  ASSERT_HIP(hipDeviceGetAttribute(&value, hipDeviceAttributeCooperativeLaunch, 0));
  EXPECT_EQ(value, 0);
  ASSERT_HIP(hipDeviceGetAttribute(&value, hipDeviceAttributeCooperativeMultiDeviceLaunch, 0));
  EXPECT_EQ(value, 0);
  hipDeviceProp_t props{};
  ASSERT_HIP(hipGetDeviceProperties(&props, 0));
  EXPECT_EQ(props.cooperativeLaunch, 0);
}

TEST(NoGws, CooperativeLaunchesFailAndOrdinaryOnesRun) {
  int* marks = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&marks), 64 * sizeof(int)));
  ASSERT_HIP(hipMemset(marks, 0, 64 * sizeof(int)));
  int mark = 5;
  void* args[] = {&marks, &mark};
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreate(&stream));
  EXPECT_EQ(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(Mark), dim3(2), dim3(32), args, 0, stream),
            hipErrorLaunchFailure);
  EXPECT_EQ(hipGetLastError(), hipErrorLaunchFailure);
  EXPECT_EQ(hipLaunchCooperativeKernel_spt(reinterpret_cast<const void*>(Mark), dim3(2), dim3(32), args, 0, nullptr),
            hipErrorLaunchFailure);
  hipLaunchParams list{reinterpret_cast<void*>(Mark), dim3(2), dim3(32), args, 0, stream};
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(&list, 1, 0), hipErrorLaunchFailure);
  EXPECT_EQ(hipGetLastError(), hipErrorLaunchFailure);  // and reset, for the launch below
  // Not a launch failure of the stream: it still runs work, and nothing of the refused launches ran.
  ASSERT_HIP(hipStreamSynchronize(stream));
  std::vector<int> host(64, -1);
  ASSERT_HIP(hipMemcpy(host.data(), marks, 64 * sizeof(int), hipMemcpyDeviceToHost));
  for (int v : host) ASSERT_EQ(v, 0);
  Mark<<<2, 32, 0, stream>>>(marks, 6);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipMemcpyAsync(host.data(), marks, 64 * sizeof(int), hipMemcpyDeviceToHost, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  for (int v : host) ASSERT_EQ(v, 6);
  ASSERT_HIP(hipStreamDestroy(stream));
  ASSERT_HIP(hipFree(marks));
}

}  // namespace
