// Cooperative groups (<hip/hip_cooperative_groups.h>) and cooperative launches on the simulated GPUs: grid-wide
// synchronisation across every block of a grid that fills the device, the block and its tiles, coalesced groups,
// and hipLaunchCooperativeKernelMultiDevice. Compiled by clang++-19 (hip_test) and run on each preset's ISA (gfx942
// on mi300x, gfx90a on 2xmi250x, gfx908 on mi100). Nothing here depends on timing: a grid barrier that let a block
// through early, or a scheduler that did not keep the grid resident, gives wrong values or never finishes.
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace {

namespace cg = cooperative_groups;

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

// Phase p computes row p + 1 of `buf` from row p, each element from its own and another element that in general
// another block wrote in the previous phase: every phase's result depends on every earlier phase of every block.
__host__ __device__ inline uint32_t Step(const uint32_t* src, uint32_t i, uint32_t n, uint32_t p) {
  return src[(i * 7 + p + 1) % n] * 3u + src[i] + p;
}

// Dynamic shared memory bounds how many blocks a CU holds (the launch asks for all of a CU's LDS): the grid that
// fills the device is one block per CU, a few hundred blocks rather than thousands.
__global__ void Phases(uint32_t* buf, uint32_t n, uint32_t phases) {
  extern __shared__ uint32_t staging[];
  cg::grid_group grid = cg::this_grid();
  const uint32_t i = static_cast<uint32_t>(grid.thread_rank());
  for (uint32_t p = 0; p < phases; ++p) {
    staging[threadIdx.x] = Step(buf + size_t{p} * n, i, n, p);
    buf[size_t{p + 1} * n + i] = staging[threadIdx.x];
    grid.sync();
  }
}

__global__ void GridFacts(uint32_t* out) {
  cg::grid_group grid = cg::this_grid();
  const uint32_t rank = static_cast<uint32_t>(grid.thread_rank());
  out[4 * rank + 0] = grid.is_valid() ? 1 : 0;
  out[4 * rank + 1] = static_cast<uint32_t>(grid.size());
  out[4 * rank + 2] = grid.block_rank();
  out[4 * rank + 3] = cg::this_thread_block().thread_rank();
}

class CooperativeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_HIP(hipGetDeviceProperties(&props_, 0)); }

  // Fills the device with Phases' blocks of 64 work-items holding a CU's LDS each; checks every row on the host.
  void RunPhases(int device, hipStream_t stream, bool multi_device);
  hipDeviceProp_t props_{};
};

constexpr uint32_t kPhases = 5;
constexpr uint32_t kBlock = 64;

std::vector<uint32_t> HostPhases(uint32_t n) {
  std::vector<uint32_t> rows(size_t{kPhases + 1} * n);
  for (uint32_t i = 0; i < n; ++i) rows[i] = i * 2654435761u;
  for (uint32_t p = 0; p < kPhases; ++p) {
    for (uint32_t i = 0; i < n; ++i) rows[size_t{p + 1} * n + i] = Step(rows.data() + size_t{p} * n, i, n, p);
  }
  return rows;
}

void CooperativeTest::RunPhases(int device, hipStream_t stream, bool multi_device) {
  ASSERT_HIP(hipSetDevice(device));
  hipDeviceProp_t props{};
  ASSERT_HIP(hipGetDeviceProperties(&props, device));
  const size_t shared = props.maxSharedMemoryPerMultiProcessor;
  int per_cu = 0;
  ASSERT_HIP(hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_cu, Phases, kBlock, shared));
  ASSERT_EQ(per_cu, 1);
  const uint32_t blocks = static_cast<uint32_t>(per_cu * props.multiProcessorCount);  // exactly the resident capacity
  const uint32_t n = blocks * kBlock;
  std::vector<uint32_t> want = HostPhases(n);
  std::vector<uint32_t> rows(want.size(), 0);
  for (uint32_t i = 0; i < n; ++i) rows[i] = want[i];
  uint32_t* buf = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&buf), rows.size() * 4));
  ASSERT_HIP(hipMemcpy(buf, rows.data(), rows.size() * 4, hipMemcpyHostToDevice));
  uint32_t phases = kPhases;
  void* args[] = {&buf, const_cast<uint32_t*>(&n), &phases};
  if (multi_device) {
    hipLaunchParams launch{reinterpret_cast<void*>(Phases), dim3(blocks), dim3(kBlock), args, shared, stream};
    ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(&launch, 1, 0));
  } else {
    ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(Phases), dim3(blocks), dim3(kBlock), args,
                                          shared, stream));
  }
  ASSERT_HIP(hipMemcpy(rows.data(), buf, rows.size() * 4, hipMemcpyDeviceToHost));
  ASSERT_HIP(hipFree(buf));
  for (uint32_t p = 1; p <= kPhases; ++p) {
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(rows[size_t{p} * n + i], want[size_t{p} * n + i]) << "phase " << p << " element " << i;
    }
  }
}

TEST_F(CooperativeTest, GridSyncPhasesSeeEveryBlocksWorkOnAGridThatFillsTheDevice) {
  RunPhases(0, nullptr, /*multi_device=*/false);
}

TEST_F(CooperativeTest, AGridIsValidOnlyInACooperativeLaunch) {
  const dim3 grid(3, 2), block(8, 4);
  const uint32_t threads = 3 * 2 * 8 * 4;
  uint32_t* out = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&out), threads * 16));
  std::vector<uint32_t> host(threads * 4);
  void* args[] = {&out};
  ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(GridFacts), grid, block, args, 0, nullptr));
  ASSERT_HIP(hipMemcpy(host.data(), out, host.size() * 4, hipMemcpyDeviceToHost));
  // thread_rank: the block's rank (X fastest) times the block size, plus the rank in the block; each exactly once.
  for (uint32_t r = 0; r < threads; ++r) {
    EXPECT_EQ(host[4 * r + 0], 1u) << r;
    EXPECT_EQ(host[4 * r + 1], threads) << r;
    EXPECT_EQ(host[4 * r + 2], r / 32) << r;
    EXPECT_EQ(host[4 * r + 3], r % 32) << r;
  }
  hipLaunchKernelGGL(GridFacts, grid, block, 0, nullptr, out);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipMemcpy(host.data(), out, host.size() * 4, hipMemcpyDeviceToHost));
  for (uint32_t r = 0; r < threads; ++r) EXPECT_EQ(host[4 * r + 0], 0u) << r;
  ASSERT_HIP(hipFree(out));
}

// --- The block, its tiles and coalesced groups ------------------------------------------------------------------

constexpr int kFields = 20;

__global__ void BlockAndTiles(int* out) {
  __shared__ int cells[128];
  cg::thread_block block = cg::this_thread_block();
  const int rank = static_cast<int>(block.thread_rank());
  const int global_block = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
  int* o = out + (global_block * 128 + rank) * kFields;
  o[0] = rank;
  o[1] = static_cast<int>(block.size());
  o[2] = static_cast<int>(block.group_index().x + 10 * block.group_index().y);
  o[3] = static_cast<int>(block.thread_index().x + 100 * block.thread_index().y);
  o[4] = static_cast<int>(block.group_dim().x + 100 * block.group_dim().y + 10000 * block.group_dim().z);

  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  o[5] = static_cast<int>(tile.thread_rank() + 100 * tile.meta_group_rank() + 10000 * tile.meta_group_size());
  o[6] = tile.shfl(rank * 10, 5);
  o[7] = tile.shfl_down(rank, 1);
  o[8] = tile.shfl_up(rank, 2);
  o[9] = tile.shfl_xor(rank, 3);
  int sum = rank;
  for (int d = 8; d > 0; d /= 2) sum += tile.shfl_down(sum, d);
  o[10] = sum;  // meaningful in each tile's rank 0
  o[11] = static_cast<int>(tile.ballot(rank % 3 == 0));
  o[12] = tile.any(rank % 16 == 7) + 2 * tile.all(rank % 2 == 0) + 4 * tile.all(rank >= 0);

  // A tile's sync orders its shared memory: each reads the next member's cell.
  cells[rank] = rank * rank;
  tile.sync();
  o[13] = cells[(rank & ~15) + ((rank + 1) & 15)];

  cg::thread_block_tile<64> wave = cg::tiled_partition<64>(block);
  o[14] = wave.shfl(rank, 63);
  cg::thread_group eight = cg::tiled_partition(block, 8);
  o[15] = static_cast<int>(eight.thread_rank() + 100 * eight.size());
  cg::sync(eight);

  // The block's sync orders shared memory across its waves: each reads the mirror cell.
  block.sync();
  cells[rank] = rank + 1000;
  block.sync();
  o[16] = cells[127 - rank];

  o[17] = o[18] = o[19] = -1;
  if (rank % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    o[17] = static_cast<int>(active.size());
    o[18] = static_cast<int>(active.thread_rank());
    o[19] = active.shfl(rank, 1);
  }
}

TEST_F(CooperativeTest, BlockTilesAndCoalescedGroupsAnswerAsUpstream) {
  const dim3 grid(2, 3), block(16, 8);
  const int blocks = 6, per_block = 128;
  int* out = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&out), size_t{blocks} * per_block * kFields * 4));
  hipLaunchKernelGGL(BlockAndTiles, grid, block, 0, nullptr, out);
  ASSERT_HIP(hipGetLastError());
  std::vector<int> host(size_t{blocks} * per_block * kFields);
  ASSERT_HIP(hipMemcpy(host.data(), out, host.size() * 4, hipMemcpyDeviceToHost));
  ASSERT_HIP(hipFree(out));
  for (int b = 0; b < blocks; ++b) {
    for (int r = 0; r < per_block; ++r) {
      SCOPED_TRACE(testing::Message() << "block " << b << " rank " << r);
      const int* o = &host[(size_t{static_cast<size_t>(b)} * per_block + r) * kFields];
      const int base = r & ~15;
      const int lane = r & 15;
      EXPECT_EQ(o[0], r);
      EXPECT_EQ(o[1], 128);
      EXPECT_EQ(o[2], (b % 2) + 10 * (b / 2));
      EXPECT_EQ(o[3], (r % 16) + 100 * (r / 16));
      EXPECT_EQ(o[4], 16 + 100 * 8 + 10000);
      EXPECT_EQ(o[5], lane + 100 * (r / 16) + 10000 * 8);
      EXPECT_EQ(o[6], (base + 5) * 10);
      EXPECT_EQ(o[7], lane == 15 ? r : r + 1);
      EXPECT_EQ(o[8], lane < 2 ? r : r - 2);
      EXPECT_EQ(o[9], base + (lane ^ 3));
      if (lane == 0) EXPECT_EQ(o[10], 16 * base + 120);
      int ballot = 0;
      for (int k = 0; k < 16; ++k) ballot |= ((base + k) % 3 == 0) << k;
      EXPECT_EQ(o[11], ballot);
      EXPECT_EQ(o[12], 1 + 0 + 4);
      EXPECT_EQ(o[13], (base + ((r + 1) & 15)) * (base + ((r + 1) & 15)));
      EXPECT_EQ(o[14], (r & ~63) + 63);
      EXPECT_EQ(o[15], (r & 7) + 800);
      EXPECT_EQ(o[16], 127 - r + 1000);
      if (r % 3 == 0) {
        // The active lanes of this wave: ranks of the wave divisible by 3, in lane order.
        std::vector<int> members;
        for (int k = r & ~63; k < (r & ~63) + 64; ++k) {
          if (k % 3 == 0) members.push_back(k);
        }
        int mine = 0;
        while (members[mine] != r) ++mine;
        EXPECT_EQ(o[17], static_cast<int>(members.size()));
        EXPECT_EQ(o[18], mine);
        EXPECT_EQ(o[19], members[1]);
      } else {
        EXPECT_EQ(o[17], -1);
      }
    }
  }
}

// --- Several devices -------------------------------------------------------------------------------------------

TEST_F(CooperativeTest, MultiDeviceLaunchRunsOnEveryListedStreamsDevice) {
  int devices = 0;
  ASSERT_HIP(hipGetDeviceCount(&devices));
  for (int d = 0; d < devices; ++d) {
    SCOPED_TRACE(d);
    ASSERT_HIP(hipSetDevice(d));
    hipStream_t stream = nullptr;
    ASSERT_HIP(hipStreamCreate(&stream));
    RunPhases(d, stream, /*multi_device=*/true);
    ASSERT_HIP(hipStreamDestroy(stream));
  }
  ASSERT_HIP(hipSetDevice(0));
}

__global__ void Mark(int* p, int value) { p[blockIdx.x * blockDim.x + threadIdx.x] = value; }

TEST_F(CooperativeTest, MultiDeviceLaunchesEachDeviceAtOnceAndAnswersClrsErrors) {
  int devices = 0;
  ASSERT_HIP(hipGetDeviceCount(&devices));
  std::vector<hipStream_t> streams(devices);
  std::vector<int*> marks(devices);
  std::vector<int> values(devices);
  std::vector<std::vector<void*>> args(devices);
  std::vector<hipLaunchParams> list(devices);
  for (int d = 0; d < devices; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipStreamCreate(&streams[d]));
    ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&marks[d]), 64 * sizeof(int)));
    values[d] = 100 + d;
    args[d] = {&marks[d], &values[d]};
    list[d] = hipLaunchParams{reinterpret_cast<void*>(Mark), dim3(2), dim3(32), args[d].data(), 0, streams[d]};
  }
  ASSERT_HIP(hipSetDevice(0));
  ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(list.data(), devices, 0));
  for (int d = 0; d < devices; ++d) {
    std::vector<int> host(64);
    ASSERT_HIP(hipMemcpy(host.data(), marks[d], 64 * sizeof(int), hipMemcpyDeviceToHost));
    for (int v : host) ASSERT_EQ(v, 100 + d) << "device " << d;
  }
  int current = -1;
  ASSERT_HIP(hipGetDevice(&current));
  EXPECT_EQ(current, 0);  // the launch leaves the caller's device current

  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(nullptr, 1, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(list.data(), devices + 1, 0), hipErrorInvalidDevice);
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(list.data(), 0, 0), hipErrorInvalidValue);
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(list.data(), devices, 4), hipErrorInvalidValue);
  EXPECT_EQ(hipExtLaunchMultiKernelMultiDevice(list.data(), devices, 4), hipErrorInvalidValue);
  hipLaunchParams bad = list[0];
  bad.stream = nullptr;
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidResourceHandle);
  bad = list[0];
  bad.blockDim = dim3(0);
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidConfiguration);
  bad = list[0];
  bad.func = static_cast<void*>(&values);  // a host variable, no kernel
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorInvalidDeviceFunction);
  if (devices >= 2) {
    std::vector<hipLaunchParams> twice = {list[0], list[0]};
    EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(twice.data(), 2, 0), hipErrorInvalidDevice);
    std::vector<hipLaunchParams> uneven = {list[0], list[1]};
    uneven[1].gridDim = dim3(1);
    EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(uneven.data(), 2, 0), hipErrorInvalidValue);
  }
  // Too many blocks to be resident: the single-device launch's error.
  bad = list[0];
  bad.gridDim = dim3(props_.multiProcessorCount * 64 + 1);
  EXPECT_EQ(hipLaunchCooperativeKernelMultiDevice(&bad, 1, 0), hipErrorCooperativeLaunchTooLarge);
  for (int d = 0; d < devices; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipStreamDestroy(streams[d]));
    ASSERT_HIP(hipFree(marks[d]));
  }
  ASSERT_HIP(hipSetDevice(0));
}

// hipLaunchCooperativeKernel_spt (what a -fgpu-default-stream=per-thread build calls) runs a launch on the null stream
// on the calling thread's per-thread stream, as CLR's PER_THREAD_DEFAULT_STREAM: another thread's per-thread stream,
// held back by a host function, does not hold it back, where the legacy null stream would wait for it (a blocking
// stream's work). No timing: the other thread's stream stays blocked until every check is done.
TEST_F(CooperativeTest, ThePerThreadFormLaunchesOnTheCallingThreadsPerThreadStream) {
  static std::atomic<bool> release{false};
  release.store(false);
  std::thread([] {
    EXPECT_EQ(hipLaunchHostFunc(
                  hipStreamPerThread, [](void*) { while (!release.load()) std::this_thread::yield(); }, nullptr),
              hipSuccess);
  }).join();
  int* marks = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&marks), 64 * sizeof(int), 0));
  for (int i = 0; i < 64; ++i) marks[i] = 0;
  int value = 41;
  void* args[] = {&marks, &value};
  ASSERT_HIP(hipLaunchCooperativeKernel_spt(reinterpret_cast<const void*>(Mark), dim3(2), dim3(32), args, 0, nullptr));
  value = 42;
  ASSERT_HIP(hipLaunchCooperativeKernel_spt(reinterpret_cast<const void*>(Mark), dim3(2), dim3(32), args, 0,
                                            hipStreamLegacy));
  ASSERT_HIP(hipStreamSynchronize(hipStreamPerThread));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(marks[i], 42) << i;
  EXPECT_EQ(hipStreamQuery(nullptr), hipSuccess) << "nothing went to the null stream";
  // Another stream is used as given.
  hipStream_t stream = nullptr;
  ASSERT_HIP(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  value = 43;
  ASSERT_HIP(hipLaunchCooperativeKernel_spt(reinterpret_cast<const void*>(Mark), dim3(2), dim3(32), args, 0, stream));
  ASSERT_HIP(hipStreamSynchronize(stream));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(marks[i], 43) << i;
  EXPECT_EQ(hipLaunchCooperativeKernel_spt(nullptr, dim3(1), dim3(32), args, 0, nullptr), hipErrorInvalidDeviceFunction);
  release.store(true);
  ASSERT_HIP(hipDeviceSynchronize());
  ASSERT_HIP(hipStreamDestroy(stream));
  ASSERT_HIP(hipHostFree(marks));
}

// hipDeviceReset drops the device's cooperative stream with its other streams; the next cooperative launch makes a new
// one and runs.
TEST_F(CooperativeTest, ACooperativeLaunchAfterADeviceResetRuns) {
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    int* marks = nullptr;
    ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&marks), 64 * sizeof(int)));
    int value = 7 + round;
    void* args[] = {&marks, &value};
    ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(Mark), dim3(2), dim3(32), args, 0, nullptr));
    std::vector<int> host(64);
    ASSERT_HIP(hipMemcpy(host.data(), marks, 64 * sizeof(int), hipMemcpyDeviceToHost));
    for (int v : host) ASSERT_EQ(v, 7 + round);
    ASSERT_HIP(hipDeviceReset());  // frees `marks` with the device's other memory
  }
}

}  // namespace
