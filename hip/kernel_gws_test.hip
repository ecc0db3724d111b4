// Global wave sync from HIP: a cooperative launch runs on the device's cooperative queue, which the runtime gives GWS
// (hsa_queue_create(HSA_QUEUE_TYPE_COOPERATIVE) -> hsaKmtAllocQueueGWS -> ALLOC_QUEUE_GWS), so a kernel may
// synchronise its grid with ds_gws_barrier, as ROCm 5.x device libraries' __ockl_grid_sync does (value: the grid's
// waves that arrive, minus 1; no init). Run on each preset's ISA. Nothing depends on timing: a barrier that let a wave
// through early gives a wrong count, one that never released hangs.
#include <hip/hip_runtime.h>

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

constexpr uint32_t kRounds = 3;

// Per round: each block counts itself in that round's counter, its first wave waits at the GWS barrier for every
// block's, then the block records the count it sees, which can only be the whole grid.
__global__ void GwsRounds(uint32_t* arrived, uint32_t* seen) {
  for (uint32_t round = 0; round < kRounds; ++round) {
    if (threadIdx.x == 0) {
      __hip_atomic_fetch_add(&arrived[round], 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
      __builtin_amdgcn_ds_gws_barrier(gridDim.x - 1, 0);
      seen[round * gridDim.x + blockIdx.x] =
          __hip_atomic_load(&arrived[round], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    }
    __syncthreads();
  }
}

TEST(GwsTest, AGwsBarrierSynchronisesEveryBlockOfACooperativeGrid) {
  hipDeviceProp_t props{};
  ASSERT_HIP(hipGetDeviceProperties(&props, 0));
  const uint32_t blocks = static_cast<uint32_t>(props.multiProcessorCount);  // one block of one wave per CU
  uint32_t* arrived = nullptr;
  uint32_t* seen = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&arrived), kRounds * 4));
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&seen), size_t{kRounds} * blocks * 4));
  ASSERT_HIP(hipMemset(arrived, 0, kRounds * 4));
  ASSERT_HIP(hipMemset(seen, 0, size_t{kRounds} * blocks * 4));
  void* args[] = {&arrived, &seen};
  ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(GwsRounds), dim3(blocks), dim3(64), args, 0,
                                        nullptr));
  std::vector<uint32_t> got(size_t{kRounds} * blocks);
  ASSERT_HIP(hipMemcpy(got.data(), seen, got.size() * 4, hipMemcpyDeviceToHost));
  for (uint32_t r = 0; r < kRounds; ++r) {
    for (uint32_t b = 0; b < blocks; ++b) ASSERT_EQ(got[size_t{r} * blocks + b], blocks) << "round " << r << " block " << b;
  }
  ASSERT_HIP(hipFree(seen));
  ASSERT_HIP(hipFree(arrived));
}

}  // namespace
