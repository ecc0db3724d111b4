// A multi-device cooperative launch that includes a device lost to a GPU memory fault (hipErrorIllegalAddress, sticky)
// answers that error and queues none of its grids: a grid queued on a healthy device would wait at its first
// multi_grid_group::sync() for a grid that never comes, and the launch's own synchronisation after it would never
// return. With hipCooperativeLaunchMultiDeviceNoPreSync the launch does not wait for the streams first, so the fault is
// seen only when the grids are checked. One process, one fault: its own test binary (hip/BUILD), on 2xmi250x.
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace {

namespace cg = cooperative_groups;

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

__global__ void StoreTo(int* p) { p[threadIdx.x] = 1; }

// Counts its grid's arrivals, then waits for every grid.
__global__ void CountAndSync(uint32_t* arrivals) {
  cg::multi_grid_group group = cg::this_multi_grid();
  if (threadIdx.x == 0) atomicAdd_system(arrivals, 1u);
  group.sync();
}

TEST(MultiGridFault, ALaunchIncludingAFaultedDeviceQueuesNoGridAndAnswersIllegalAddress) {
  int devices = 0;
  ASSERT_HIP(hipGetDeviceCount(&devices));
  ASSERT_EQ(devices, 2);
  std::vector<hipStream_t> streams(2);
  for (int d = 0; d < 2; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipStreamCreate(&streams[d]));
  }
  uint32_t* arrivals = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&arrivals), sizeof(uint32_t),
                           hipHostMallocCoherent | hipHostMallocPortable));
  *arrivals = 0;
  void* args[] = {&arrivals};
  std::vector<hipLaunchParams> list;
  for (int d = 0; d < 2; ++d) {
    list.push_back(hipLaunchParams{reinterpret_cast<void*>(CountAndSync), dim3(2), dim3(64), args, 0, streams[d]});
  }
  // Healthy first: both grids run and meet.
  ASSERT_HIP(hipSetDevice(0));
  ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(list.data(), 2, 0));
  ASSERT_EQ(*arrivals, 4u);

  // Device 1 faults.
  ASSERT_HIP(hipSetDevice(1));
  StoreTo<<<1, 64, 0, streams[1]>>>(reinterpret_cast<int*>(0x10000));
  ASSERT_HIP(hipGetLastError());
  ASSERT_EQ(hipStreamSynchronize(streams[1]), hipErrorIllegalAddress);
  ASSERT_HIP(hipSetDevice(0));

  *arrivals = 0;
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(list.data(), 2, hipCooperativeLaunchMultiDeviceNoPreSync),
            hipErrorIllegalAddress);
  // Device 0's stream is idle and nothing ran there.
  ASSERT_HIP(hipStreamSynchronize(streams[0]));
  EXPECT_EQ(*arrivals, 0u);
  // Device 0 alone still launches.
  ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(list.data(), 1, 0));
  EXPECT_EQ(*arrivals, 2u);
  ASSERT_HIP(hipStreamDestroy(streams[0]));
  (void)hipStreamDestroy(streams[1]);  // on the lost device: whatever it answers, the stream goes
  ASSERT_HIP(hipHostFree(arrivals));
}

}  // namespace
