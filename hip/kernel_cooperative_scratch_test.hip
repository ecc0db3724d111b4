// Cooperative launches run on the device's cooperative queue (HSA_QUEUE_TYPE_COOPERATIVE), ordered with their stream
// as CLR orders them, and a grid whose scratch cannot be had for all of its workgroups fails instead of waiting for
// ever at its grid sync. VRAM runs short through the simulated KFD's fault injection (testing/kfd_sim): the
// allocation of the grid's scratch is refused once, so a queue that reduced occupancy (what an ordinary queue does)
// would get a smaller one and leave the grid's last workgroups out. One process (the injection is process-wide),
// mi300x.
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "testing/kfd_sim/fault_injection.h"

namespace {

namespace cg = cooperative_groups;

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

constexpr int kBlock = 256;
constexpr int kPrivateWords = 16384;  // 64 KiB of scratch per work-item: 4 MiB per wave

// Every work-item keeps a private array in scratch, then the grid syncs, then each writes what the grid counted.
__global__ void ScratchThenSync(uint32_t* arrived, uint32_t* out, uint32_t seed) {
  volatile uint32_t words[kPrivateWords];
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  words[(i * 131 + seed) % kPrivateWords] = i;
  if (threadIdx.x == 0) atomicAdd(arrived, 1u);
  cg::this_grid().sync();
  out[i] = *arrived + (words[(i * 131 + seed) % kPrivateWords] == i ? 0u : 1000000u);
}

__global__ void AddOne(uint32_t* out, uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += 1;
}

// Half the device's CUs, one block each: well within what the device holds at once.
uint32_t Blocks() {
  hipDeviceProp_t props{};
  if (hipGetDeviceProperties(&props, 0) != hipSuccess) return 0;
  return static_cast<uint32_t>(props.multiProcessorCount / 2);
}

// hipStreamSynchronize, bounded: a wait that does not end within a minute is the hang this file guards against, and
// ends the process rather than the test run. The stream is polled on this thread until it has nothing pending (done
// or failed), so no second thread has to hand the answer over (a std::future's hand-over, a futex inside libstdc++,
// is invisible to ThreadSanitizer, which then took the stream's error read there for a race with its release here).
hipError_t BoundedSynchronize(hipStream_t stream) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (hipStreamQuery(stream) == hipErrorNotReady) {
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "the stream still has work after 60 s: the grid hangs";
      std::_Exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return hipStreamSynchronize(stream);
}

hipError_t LaunchScratchThenSync(uint32_t blocks, hipStream_t stream, uint32_t* arrived, uint32_t* out, uint32_t seed) {
  void* args[] = {&arrived, &out, &seed};
  return hipLaunchCooperativeKernel(reinterpret_cast<const void*>(ScratchThenSync), dim3(blocks), dim3(kBlock), args,
                                    0, stream);
}

// The cooperative launch waits for the stream's work before it and the stream's work after it waits for the launch,
// though the launch runs on another queue: a fill before, the grid, then an add after, all queued without a host wait.
TEST(CooperativeQueue, ALaunchIsOrderedWithItsStream) {
  const uint32_t blocks = Blocks();
  ASSERT_GT(blocks, 0u);
  const uint32_t n = blocks * kBlock;
  hipStream_t stream;
  ASSERT_HIP(hipStreamCreate(&stream));
  uint32_t* arrived = nullptr;
  uint32_t* out = nullptr;
  ASSERT_HIP(hipMalloc(&arrived, sizeof(uint32_t)));
  ASSERT_HIP(hipMalloc(&out, n * sizeof(uint32_t)));
  ASSERT_HIP(hipMemsetAsync(arrived, 0, sizeof(uint32_t), stream));
  ASSERT_HIP(LaunchScratchThenSync(blocks, stream, arrived, out, 7));
  AddOne<<<blocks, kBlock, 0, stream>>>(out, n);
  ASSERT_HIP(hipGetLastError());
  std::vector<uint32_t> host(n);
  ASSERT_HIP(hipMemcpyAsync(host.data(), out, n * sizeof(uint32_t), hipMemcpyDeviceToHost, stream));
  ASSERT_HIP(BoundedSynchronize(stream));
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(host[i], blocks + 1) << i;
  ASSERT_HIP(hipFree(out));
  ASSERT_HIP(hipFree(arrived));
  ASSERT_HIP(hipStreamDestroy(stream));
}

TEST(CooperativeQueue, AGridThatCannotGetScratchForAllItsWorkgroupsFailsInsteadOfHanging) {
  const uint32_t blocks = Blocks();
  ASSERT_GT(blocks, 0u);
  const uint32_t n = blocks * kBlock;
  hipStream_t stream;
  ASSERT_HIP(hipStreamCreate(&stream));
  uint32_t* arrived = nullptr;
  uint32_t* out = nullptr;
  ASSERT_HIP(hipMalloc(&arrived, sizeof(uint32_t)));
  ASSERT_HIP(hipMalloc(&out, n * sizeof(uint32_t)));
  // Once with VRAM to spare: the cooperative queue, the stream's kernarg ring and every other first-use allocation
  // exist afterwards, so the next VRAM allocation of a launch is the grid's scratch (4 MiB a wave is far past ROCr's
  // 140 MiB single-use limit for the whole device: each dispatch asks for its own).
  ASSERT_HIP(hipMemset(arrived, 0, sizeof(uint32_t)));
  ASSERT_HIP(LaunchScratchThenSync(blocks, stream, arrived, out, 1));
  ASSERT_HIP(BoundedSynchronize(stream));

  ASSERT_HIP(hipMemset(arrived, 0, sizeof(uint32_t)));
  {
    // Every thread's: the runtime's signal handler thread allocates the scratch.
    hipmem::kfd_sim::ScopedFaultInjection short_of_vram(
        hipmem::kfd_sim::FaultPlan{.fail_at = 1,
                                   .fail_count = 1,
                                   .only_ioctl_nr = hipmem::kfd_uapi::kAllocMemoryOfGpu.nr,
                                   .all_threads = true});
    ASSERT_HIP(LaunchScratchThenSync(blocks, stream, arrived, out, 2));
    const hipError_t synced = BoundedSynchronize(stream);
    EXPECT_EQ(short_of_vram.failed(), 1u) << short_of_vram.failed_name();
    // The queue's OUT_OF_RESOURCES, which this runtime answers as hipErrorOutOfMemory (CLR's queue callback aborts).
    EXPECT_EQ(synced, hipErrorOutOfMemory) << hipGetErrorName(synced);
  }
  (void)hipStreamDestroy(stream);  // the failed stream goes, whatever it answers

  // The device's next cooperative launch gets a working cooperative queue, and runs.
  hipStream_t again;
  ASSERT_HIP(hipStreamCreate(&again));
  ASSERT_HIP(hipMemset(arrived, 0, sizeof(uint32_t)));
  ASSERT_HIP(LaunchScratchThenSync(blocks, again, arrived, out, 3));
  ASSERT_HIP(BoundedSynchronize(again));
  std::vector<uint32_t> host(n);
  ASSERT_HIP(hipMemcpy(host.data(), out, n * sizeof(uint32_t), hipMemcpyDeviceToHost));
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(host[i], blocks) << i;
  ASSERT_HIP(hipFree(out));
  ASSERT_HIP(hipFree(arrived));
  ASSERT_HIP(hipStreamDestroy(again));
}

}  // namespace
