// cooperative_groups::multi_grid_group (<hip/hip_cooperative_groups.h>) in hipLaunchCooperativeKernelMultiDevice
// launches: one grid per listed device, synchronised with each other. Compiled by clang++-19 (hip_test) and run on
// 2xmi250x (gfx90a, two devices: the grids really are on two GPUs) and mi300x (one device: a launch list of one).
// Nothing depends on timing: a multi-grid barrier that let a grid through early gives wrong values (each round's
// value depends on what another grid wrote in the round before) or never finishes.
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace {

namespace cg = cooperative_groups;

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

// The launch every test uses on each device: 2x2 blocks of 16x4 work-items (two dimensions, so that the multi-grid
// thread rank's order, x fastest over the whole grid, differs from the block-major order of grid_group's).
const dim3 kGrid(2, 2);
const dim3 kBlock(16, 4);
constexpr uint32_t kPerGrid = 2 * 2 * 16 * 4;
constexpr uint32_t kRounds = 8;

// The work-item's index in its grid, x fastest over the grid's work-items: the order multi_grid_group ranks in.
__device__ uint32_t LinearIndex() {
  const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
  return y * gridDim.x * blockDim.x + x;
}

// One round's step, on host and device: each work-item's value from its own and the one it read.
__host__ __device__ inline uint32_t Mix(uint32_t own, uint32_t read, uint32_t round) {
  return own * 2654435761u + read * 31u + round;
}

// Where round r's values live: two halves used in turn (a grid that is one round ahead writes the other half while a
// slower one still reads this one; it cannot get two rounds ahead past the barrier), each a row of kPerGrid per grid.
__host__ __device__ inline size_t Slot(uint32_t round, uint32_t grid, uint32_t grids, uint32_t index) {
  return (size_t{round % 2} * grids + grid) * kPerGrid + index;
}

// Each round every work-item publishes its value, the grids synchronise, and each work-item reads the value that a
// work-item of the next grid (another device, another block) published in this round, and mixes it into its own.
// The three forms of sync alternate: the member, the free function, and the thread_group it converts to.
__global__ void Exchange(uint32_t* slots, uint32_t* results) {
  cg::multi_grid_group group = cg::this_multi_grid();
  const cg::thread_group as_group = group;
  const uint32_t grids = group.num_grids();
  const uint32_t me = group.grid_rank();
  const uint32_t peer = (me + 1) % grids;
  const uint32_t index = LinearIndex();
  uint32_t value = me * 1000003u + index;
  for (uint32_t r = 0; r < kRounds; ++r) {
    slots[Slot(r, me, grids, index)] = value;
    switch (r % 3) {
      case 0: group.sync(); break;
      case 1: cg::sync(group); break;
      default: as_group.sync(); break;
    }
    value = Mix(value, slots[Slot(r, peer, grids, (index * 5 + r + 1) % kPerGrid)], r);
  }
  results[size_t{me} * kPerGrid + index] = value;
}

std::vector<uint32_t> HostExchange(uint32_t grids) {
  std::vector<uint32_t> value(size_t{grids} * kPerGrid);
  for (uint32_t g = 0; g < grids; ++g) {
    for (uint32_t i = 0; i < kPerGrid; ++i) value[size_t{g} * kPerGrid + i] = g * 1000003u + i;
  }
  for (uint32_t r = 0; r < kRounds; ++r) {
    const std::vector<uint32_t> published = value;
    for (uint32_t g = 0; g < grids; ++g) {
      const uint32_t peer = (g + 1) % grids;
      for (uint32_t i = 0; i < kPerGrid; ++i) {
        const uint32_t read = published[size_t{peer} * kPerGrid + (i * 5 + r + 1) % kPerGrid];
        value[size_t{g} * kPerGrid + i] = Mix(value[size_t{g} * kPerGrid + i], read, r);
      }
    }
  }
  return value;
}

constexpr int kFacts = 6;

// What the groups say, per work-item, at its grid's row and its linear index.
__global__ void Facts(uint32_t* out) {
  cg::multi_grid_group group = cg::this_multi_grid();
  const bool valid = group.is_valid();
  const uint32_t grid = valid ? group.grid_rank() : 0;
  uint32_t* o = out + (size_t{grid} * kPerGrid + LinearIndex()) * kFacts;
  o[0] = valid ? 1 : 0;
  o[1] = cg::this_grid().is_valid() ? 1 : 0;
  if (valid) {
    const cg::thread_group as_group = group;
    o[2] = group.num_grids();
    o[3] = group.thread_rank();
    o[4] = group.size();
    o[5] = (as_group.size() == group.size() && as_group.thread_rank() == group.thread_rank() &&
            cg::thread_rank(group) == group.thread_rank() && cg::group_size(group) == group.size() &&
            cg::is_valid(group) && as_group.is_valid())
               ? 1
               : 0;
  }
}

class MultiGridTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_HIP(hipGetDeviceCount(&devices_));
    ASSERT_GE(devices_, 1);
    for (int d = 0; d < devices_; ++d) {
      ASSERT_HIP(hipSetDevice(d));
      hipStream_t stream = nullptr;
      ASSERT_HIP(hipStreamCreate(&stream));
      streams_.push_back(stream);
    }
    ASSERT_HIP(hipSetDevice(0));
  }
  void TearDown() override {
    for (int d = 0; d < static_cast<int>(streams_.size()); ++d) {
      ASSERT_HIP(hipSetDevice(d));
      ASSERT_HIP(hipStreamDestroy(streams_[d]));
    }
    ASSERT_HIP(hipSetDevice(0));
  }

  // One entry per device, in `order`, each with `args`.
  std::vector<hipLaunchParams> List(const void* kernel, const std::vector<int>& order, void** args) {
    std::vector<hipLaunchParams> list;
    for (int d : order) {
      list.push_back(hipLaunchParams{const_cast<void*>(kernel), kGrid, kBlock, args, 0, streams_[d]});
    }
    return list;
  }
  std::vector<int> AllDevices() const {
    std::vector<int> order;
    for (int d = 0; d < devices_; ++d) order.push_back(d);
    return order;
  }

  int devices_ = 0;
  std::vector<hipStream_t> streams_;
};

// On 2xmi250x the two grids run on two GPUs and exchange values through fine-grained host memory every GPU maps.
TEST_F(MultiGridTest, EachRoundEveryGridReadsWhatTheNextGridWroteBeforeTheBarrier) {
  const uint32_t grids = static_cast<uint32_t>(devices_);
  uint32_t* slots = nullptr;
  uint32_t* results = nullptr;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&slots), size_t{2} * grids * kPerGrid * 4,
                           hipHostMallocCoherent | hipHostMallocPortable));
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&results), size_t{grids} * kPerGrid * 4,
                           hipHostMallocCoherent | hipHostMallocPortable));
  void* args[] = {&slots, &results};
  std::vector<hipLaunchParams> list = List(reinterpret_cast<const void*>(Exchange), AllDevices(), args);
  const std::vector<uint32_t> want = HostExchange(grids);
  for (int launch = 0; launch < 2; ++launch) {  // a second launch gets a fresh barrier
    std::fill(results, results + size_t{grids} * kPerGrid, 0u);
    ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(list.data(), devices_, 0));
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(results[i], want[i]) << "launch " << launch << " grid " << i / kPerGrid << " item " << i % kPerGrid;
    }
  }
  ASSERT_HIP(hipHostFree(slots));
  ASSERT_HIP(hipHostFree(results));
}

// The same through device memory: each grid's slots in its own device's fine-grained VRAM, which the other device
// reaches once peer access is enabled; every grid writes its own device's memory and reads its peer's.
__global__ void ExchangeAcrossDevices(uint32_t* const* slots, uint32_t* results) {
  cg::multi_grid_group group = cg::this_multi_grid();
  const uint32_t grids = group.num_grids();
  const uint32_t me = group.grid_rank();
  const uint32_t peer = (me + 1) % grids;
  const uint32_t index = LinearIndex();
  uint32_t value = me * 1000003u + index;
  for (uint32_t r = 0; r < kRounds; ++r) {
    slots[me][Slot(r, 0, 1, index)] = value;
    group.sync();
    value = Mix(value, slots[peer][Slot(r, 0, 1, (index * 5 + r + 1) % kPerGrid)], r);
  }
  results[size_t{me} * kPerGrid + index] = value;
}

TEST_F(MultiGridTest, GridsExchangeThroughEachOthersFineGrainedDeviceMemory) {
  const uint32_t grids = static_cast<uint32_t>(devices_);
  for (int a = 0; a < devices_; ++a) {
    for (int b = 0; b < devices_; ++b) {
      if (a == b) continue;
      int can = 0;
      ASSERT_HIP(hipDeviceCanAccessPeer(&can, a, b));
      ASSERT_EQ(can, 1);
      ASSERT_HIP(hipSetDevice(a));
      ASSERT_HIP(hipDeviceEnablePeerAccess(b, 0));
    }
  }
  uint32_t** table = nullptr;  // grid g's slots, for every device to read
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&table), grids * sizeof(uint32_t*), hipHostMallocPortable));
  for (int d = 0; d < devices_; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipExtMallocWithFlags(reinterpret_cast<void**>(&table[d]), size_t{2} * kPerGrid * 4,
                                     hipDeviceMallocFinegrained));
  }
  uint32_t* results = nullptr;
  ASSERT_HIP(hipSetDevice(0));
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&results), size_t{grids} * kPerGrid * 4,
                           hipHostMallocCoherent | hipHostMallocPortable));
  void* args[] = {&table, &results};
  std::vector<hipLaunchParams> list = List(reinterpret_cast<const void*>(ExchangeAcrossDevices), AllDevices(), args);
  ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(list.data(), devices_, 0));
  const std::vector<uint32_t> want = HostExchange(grids);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(results[i], want[i]) << "grid " << i / kPerGrid << " item " << i % kPerGrid;
  }
  for (int d = 0; d < devices_; ++d) {
    ASSERT_HIP(hipSetDevice(d));
    ASSERT_HIP(hipFree(table[d]));
    for (int b = 0; b < devices_; ++b) {
      if (b != d) ASSERT_HIP(hipDeviceDisablePeerAccess(b));
    }
  }
  ASSERT_HIP(hipSetDevice(0));
  ASSERT_HIP(hipHostFree(table));
  ASSERT_HIP(hipHostFree(results));
}

// Grid ranks follow the launch list, not the device ordinals (CLR's gridId is the entry's index): the list here names
// the devices last first. Thread ranks count the work-items of the grids listed before, then x fastest over the grid.
TEST_F(MultiGridTest, RanksAndSizesFollowTheLaunchList) {
  const uint32_t grids = static_cast<uint32_t>(devices_);
  uint32_t* out = nullptr;
  const size_t words = size_t{grids} * kPerGrid * kFacts;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&out), words * 4, hipHostMallocCoherent | hipHostMallocPortable));
  std::fill(out, out + words, 0xdeadbeefu);
  std::vector<int> order;
  for (int d = devices_ - 1; d >= 0; --d) order.push_back(d);
  void* args[] = {&out};
  std::vector<hipLaunchParams> list = List(reinterpret_cast<const void*>(Facts), order, args);
  ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(list.data(), devices_, 0));
  for (uint32_t g = 0; g < grids; ++g) {
    for (uint32_t i = 0; i < kPerGrid; ++i) {
      SCOPED_TRACE(testing::Message() << "grid " << g << " item " << i);
      const uint32_t* o = out + (size_t{g} * kPerGrid + i) * kFacts;
      EXPECT_EQ(o[0], 1u);
      EXPECT_EQ(o[1], 1u);
      EXPECT_EQ(o[2], grids);
      EXPECT_EQ(o[3], g * kPerGrid + i);
      EXPECT_EQ(o[4], grids * kPerGrid);
      EXPECT_EQ(o[5], 1u);
    }
  }
  ASSERT_HIP(hipHostFree(out));
}

// Outside a multi-device cooperative launch there is no multi-grid group: not in a plain launch (no workspace at all)
// and not in a single-device cooperative one, whose grid group is valid (CLR writes no grids into its record).
TEST_F(MultiGridTest, IsValidOnlyInAMultiDeviceCooperativeLaunch) {
  uint32_t* out = nullptr;
  const size_t words = size_t{kPerGrid} * kFacts;
  ASSERT_HIP(hipHostMalloc(reinterpret_cast<void**>(&out), words * 4, hipHostMallocCoherent | hipHostMallocPortable));
  std::fill(out, out + words, 7u);
  hipLaunchKernelGGL(Facts, kGrid, kBlock, 0, streams_[0], out);
  ASSERT_HIP(hipGetLastError());
  ASSERT_HIP(hipStreamSynchronize(streams_[0]));
  for (uint32_t i = 0; i < kPerGrid; ++i) {
    EXPECT_EQ(out[i * kFacts + 0], 0u) << i;
    EXPECT_EQ(out[i * kFacts + 1], 0u) << i;
  }
  std::fill(out, out + words, 7u);
  void* args[] = {&out};
  ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(Facts), kGrid, kBlock, args, 0, streams_[0]));
  ASSERT_HIP(hipStreamSynchronize(streams_[0]));
  for (uint32_t i = 0; i < kPerGrid; ++i) {
    EXPECT_EQ(out[i * kFacts + 0], 0u) << i;
    EXPECT_EQ(out[i * kFacts + 1], 1u) << i;
  }
  // A launch list of one device is a multi-grid of one grid.
  std::fill(out, out + words, 7u);
  std::vector<hipLaunchParams> one = List(reinterpret_cast<const void*>(Facts), {0}, args);
  ASSERT_HIP(hipLaunchCooperativeKernelMultiDevice(one.data(), 1, 0));
  for (uint32_t i = 0; i < kPerGrid; ++i) {
    EXPECT_EQ(out[i * kFacts + 0], 1u) << i;
    EXPECT_EQ(out[i * kFacts + 2], 1u) << i;
    EXPECT_EQ(out[i * kFacts + 3], i) << i;
    EXPECT_EQ(out[i * kFacts + 4], kPerGrid) << i;
  }
  ASSERT_HIP(hipHostFree(out));
}

}  // namespace
