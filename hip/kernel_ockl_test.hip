// Device code calling the ROCm kernel library (ockl) by name: Debian's ockl.bc linked into the device side by
// hip/defs.bzl, declared by <hip/amd_detail/device_library_decls.h>. The work-item queries read code object v5's
// hidden arguments the runtime fills; the wave functions run on each preset's ISA (gfx942, gfx90a, gfx908: wave64);
// __ockl_grid_sync is ROCm 5.x's GWS barrier, which needs a cooperative launch.
#include <hip/hip_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace {

#define ASSERT_HIP(expr) ASSERT_EQ((expr), hipSuccess)

constexpr int kQueries = 16;

// Per work-item: what ockl answers for each query, to compare with HIP's own coordinates on the host.
__global__ void queries(unsigned long* out) {
  const unsigned long linear_block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned long linear_thread = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  unsigned long* o = out + (linear_block * blockDim.x * blockDim.y * blockDim.z + linear_thread) * kQueries;
  for (unsigned d = 0; d < 3; ++d) {
    o[d] = __ockl_get_local_size(d);
    o[3 + d] = __ockl_get_num_groups(d);
    o[6 + d] = __ockl_get_global_id(d);
    o[9 + d] = __ockl_get_group_id(d);
  }
  o[12] = __ockl_get_local_linear_id();
  o[13] = __ockl_get_global_size(0);
  o[14] = __ockl_get_work_dim();
  o[15] = __ockl_get_local_id(1);
}

TEST(Ockl, WorkItemQueriesAgreeWithTheLaunch) {
  const dim3 grid(3, 2, 2), block(8, 4, 2);
  const size_t threads = size_t{grid.x} * grid.y * grid.z * block.x * block.y * block.z;
  unsigned long* d = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&d), threads * kQueries * sizeof(unsigned long)));
  queries<<<grid, block>>>(d);
  ASSERT_HIP(hipGetLastError());
  std::vector<unsigned long> got(threads * kQueries);
  ASSERT_HIP(hipMemcpy(got.data(), d, got.size() * sizeof(unsigned long), hipMemcpyDeviceToHost));
  const unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  size_t index = 0;
  for (unsigned bz = 0; bz < grid.z; ++bz) {
    for (unsigned by = 0; by < grid.y; ++by) {
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        for (unsigned tz = 0; tz < block.z; ++tz) {
          for (unsigned ty = 0; ty < block.y; ++ty) {
            for (unsigned tx = 0; tx < block.x; ++tx, ++index) {
              const unsigned long* o = &got[index * kQueries];
              const unsigned blk[3] = {bx, by, bz}, thr[3] = {tx, ty, tz};
              for (int dim = 0; dim < 3; ++dim) {
                ASSERT_EQ(o[dim], b[dim]) << "local size, item " << index << " dim " << dim;
                ASSERT_EQ(o[3 + dim], g[dim]) << "groups, item " << index << " dim " << dim;
                ASSERT_EQ(o[6 + dim], blk[dim] * b[dim] + thr[dim]) << "global id, item " << index << " dim " << dim;
                ASSERT_EQ(o[9 + dim], blk[dim]) << "group id, item " << index << " dim " << dim;
              }
              ASSERT_EQ(o[12], tx + block.x * (ty + block.y * tz)) << index;
              ASSERT_EQ(o[13], size_t{grid.x} * block.x) << index;
              ASSERT_EQ(o[14], 3u) << index;
              ASSERT_EQ(o[15], ty) << index;
            }
          }
        }
      }
    }
  }
  ASSERT_HIP(hipFree(d));
}

struct WaveResults {
  unsigned lane[64];
  unsigned active_index[64];  // in the odd-lanes branch; ~0 for even lanes
  int sum[64];
  int scan_inclusive[64];
  int scan_exclusive[64];
  unsigned max_u[64];
  float sum_f[64];
  int any_big[64];
  int all_positive[64];
  unsigned bcast[64];
};

// One wave, full or partial (the block's size): lane l holds l + 1. The sub-group functions are called by every
// lane together; only __ockl_activelane_u32 is called in divergent code, which is what it is for.
__global__ void wave_functions(WaveResults* r) {
  const unsigned l = threadIdx.x;
  const int v = static_cast<int>(l) + 1;
  r->lane[l] = __ockl_lane_u32();
  r->active_index[l] = ~0u;
  if (l % 2 == 1) r->active_index[l] = __ockl_activelane_u32();
  r->sum[l] = __ockl_wfred_add_i32(v);
  r->scan_inclusive[l] = __ockl_wfscan_add_i32(v, true);
  r->scan_exclusive[l] = __ockl_wfscan_add_i32(v, false);
  r->max_u[l] = __ockl_wfred_max_u32(l * 3u % 64u);
  r->sum_f[l] = __ockl_wfred_add_f32(0.5f);
  r->any_big[l] = __ockl_wfany_i32(v > 38);
  r->all_positive[l] = __ockl_wfall_i32(v > 0);
  r->bcast[l] = __ockl_wfbcast_u32(l * 10u, 17u);
}

class OcklWave : public ::testing::TestWithParam<unsigned> {};

TEST_P(OcklWave, WaveFunctionsCombineTheWavesLanes) {
  int warp = 0;
  ASSERT_HIP(hipDeviceGetAttribute(&warp, hipDeviceAttributeWarpSize, 0));
  ASSERT_EQ(warp, 64) << "every preset is gfx9, wave64";
  const unsigned n = GetParam();
  WaveResults* d = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&d), sizeof(WaveResults)));
  wave_functions<<<1, n>>>(d);
  WaveResults r{};
  ASSERT_HIP(hipMemcpy(&r, d, sizeof(r), hipMemcpyDeviceToHost));
  unsigned max_u = 0;
  for (unsigned l = 0; l < n; ++l) max_u = std::max(max_u, l * 3u % 64u);
  int running = 0;
  for (unsigned l = 0; l < n; ++l) {
    SCOPED_TRACE(l);
    EXPECT_EQ(r.lane[l], l);
    EXPECT_EQ(r.active_index[l], l % 2 == 1 ? l / 2 : ~0u);
    EXPECT_EQ(r.sum[l], static_cast<int>(n * (n + 1) / 2));
    EXPECT_EQ(r.scan_exclusive[l], running);
    running += static_cast<int>(l) + 1;
    EXPECT_EQ(r.scan_inclusive[l], running);
    EXPECT_EQ(r.max_u[l], max_u);
    EXPECT_EQ(r.sum_f[l], 0.5f * static_cast<float>(n));
    EXPECT_EQ(r.any_big[l], n > 38 ? 1 : 0);
    EXPECT_EQ(r.all_positive[l], 1);
    EXPECT_EQ(r.bcast[l], 170u);
  }
  ASSERT_HIP(hipFree(d));
}

// A full wave, a partial wave that crosses lane 32 (ockl reads lane 32's half only when it is active), and one
// within the low half.
INSTANTIATE_TEST_SUITE_P(Lanes, OcklWave, ::testing::Values(64u, 40u, 24u));

// Every work-item of a 256-wide workgroup (four waves) calls it; each gets the workgroup's sum.
__global__ void workgroup_sum(int* out) {
  out[blockIdx.x * blockDim.x + threadIdx.x] = __ockl_wgred_add_i32(static_cast<int>(threadIdx.x) + blockIdx.x);
}

TEST(Ockl, WorkgroupReductionSpansEveryWave) {
  constexpr int kBlocks = 3, kBlock = 256;
  int* d = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&d), kBlocks * kBlock * sizeof(int)));
  workgroup_sum<<<kBlocks, kBlock>>>(d);
  std::vector<int> got(kBlocks * kBlock);
  ASSERT_HIP(hipMemcpy(got.data(), d, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b) {
    const int want = kBlock * (kBlock - 1) / 2 + b * kBlock;
    for (int t = 0; t < kBlock; ++t) ASSERT_EQ(got[b * kBlock + t], want) << b << " " << t;
  }
  ASSERT_HIP(hipFree(d));
}

constexpr int kIntegerCases = 12;

__global__ void integer_helpers(const int* a, const int* b, int* out) {
  const int i = threadIdx.x;
  const int x = a[i], y = b[i];
  int* o = out + i * kIntegerCases;
  o[0] = static_cast<int>(__ockl_clz_u32(static_cast<unsigned>(x)));
  o[1] = static_cast<int>(__ockl_ctz_u32(static_cast<unsigned>(x)));
  o[2] = static_cast<int>(__ockl_popcount_u32(static_cast<unsigned>(x)));
  o[3] = __ockl_mul24_i32(x, y);
  o[4] = static_cast<int>(__ockl_mul24_u32(static_cast<unsigned>(x), static_cast<unsigned>(y)));
  o[5] = __ockl_mul_hi_i32(x, y);
  o[6] = static_cast<int>(__ockl_mul_hi_u32(static_cast<unsigned>(x), static_cast<unsigned>(y)));
  o[7] = __ockl_add_sat_i32(x, y);
  o[8] = __ockl_sub_sat_i32(x, y);
  o[9] = __ockl_min3_i32(x, y, 7);
  o[10] = __ockl_max3_i32(x, y, 7);
  o[11] = __ockl_median3_i32(x, y, 7);
}

int SignExtend24(int v) { return static_cast<int>(static_cast<unsigned>(v) << 8) >> 8; }

TEST(Ockl, IntegerHelpersComputeWhatTheirNamesSay) {
  const std::vector<int> a = {1, -1, 0x00f000f0, INT_MAX, INT_MIN, 12345678, -5, 0x7fffff, 0x123456, 1 << 31 >> 3};
  const std::vector<int> b = {2, 3, -7, 1, -1, -8765432, INT_MIN, 0x7fffff, -0x800000, 9};
  const int n = static_cast<int>(a.size());
  int *da = nullptr, *db = nullptr, *dout = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&da), n * sizeof(int)));
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&db), n * sizeof(int)));
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&dout), n * kIntegerCases * sizeof(int)));
  ASSERT_HIP(hipMemcpy(da, a.data(), n * sizeof(int), hipMemcpyHostToDevice));
  ASSERT_HIP(hipMemcpy(db, b.data(), n * sizeof(int), hipMemcpyHostToDevice));
  integer_helpers<<<1, n>>>(da, db, dout);
  std::vector<int> got(n * kIntegerCases);
  ASSERT_HIP(hipMemcpy(got.data(), dout, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    SCOPED_TRACE(i);
    const int x = a[i], y = b[i];
    const unsigned ux = static_cast<unsigned>(x), uy = static_cast<unsigned>(y);
    const int* o = &got[i * kIntegerCases];
    EXPECT_EQ(o[0], ux == 0 ? 32 : __builtin_clz(ux));
    EXPECT_EQ(o[1], ux == 0 ? 32 : __builtin_ctz(ux));
    EXPECT_EQ(o[2], __builtin_popcount(ux));
    // mul24: the low 24 bits of each operand (sign-extended for the signed form), the low 32 bits of the product.
    EXPECT_EQ(o[3], static_cast<int>(static_cast<int64_t>(SignExtend24(x)) * SignExtend24(y)));
    EXPECT_EQ(static_cast<unsigned>(o[4]), static_cast<unsigned>(uint64_t{ux & 0xffffff} * (uy & 0xffffff)));
    EXPECT_EQ(o[5], static_cast<int>((int64_t{x} * int64_t{y}) >> 32));
    EXPECT_EQ(static_cast<unsigned>(o[6]), static_cast<unsigned>((uint64_t{ux} * uy) >> 32));
    const int64_t sum = int64_t{x} + y, difference = int64_t{x} - y;
    EXPECT_EQ(o[7], static_cast<int>(sum > INT_MAX ? INT_MAX : sum < INT_MIN ? INT_MIN : sum));
    EXPECT_EQ(o[8], static_cast<int>(difference > INT_MAX ? INT_MAX : difference < INT_MIN ? INT_MIN : difference));
    const int lo = std::min({x, y, 7}), hi = std::max({x, y, 7});
    EXPECT_EQ(o[9], lo);
    EXPECT_EQ(o[10], hi);
    EXPECT_EQ(o[11], x + y + 7 - lo - hi);
  }
  ASSERT_HIP(hipFree(da));
  ASSERT_HIP(hipFree(db));
  ASSERT_HIP(hipFree(dout));
}

// Two rounds: each block writes its slot, __ockl_grid_sync, then reads its neighbour's, which only a grid-wide
// barrier guarantees is written.
__global__ void grid_sync_rounds(int* slots, int* seen, unsigned* valid) {
  const unsigned b = blockIdx.x, n = gridDim.x;
  if (threadIdx.x == 0) valid[b] = __ockl_grid_is_valid();
  for (int round = 1; round <= 2; ++round) {
    if (threadIdx.x == 0) __hip_atomic_store(&slots[b], round * 1000 + static_cast<int>(b), __ATOMIC_RELAXED,
                                             __HIP_MEMORY_SCOPE_AGENT);
    __ockl_grid_sync();
    if (threadIdx.x == 0) {
      seen[(round - 1) * n + b] =
          __hip_atomic_load(&slots[(b + 1) % n], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    }
    __ockl_grid_sync();
  }
}

__global__ void grid_validity(unsigned* valid) { valid[blockIdx.x] = __ockl_grid_is_valid(); }

TEST(Ockl, GridSyncInACooperativeLaunch) {
  hipDeviceProp_t props{};
  ASSERT_HIP(hipGetDeviceProperties(&props, 0));
  const unsigned blocks = static_cast<unsigned>(props.multiProcessorCount) * 2;
  int *slots = nullptr, *seen = nullptr;
  unsigned* valid = nullptr;
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&slots), blocks * sizeof(int)));
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&seen), 2 * blocks * sizeof(int)));
  ASSERT_HIP(hipMalloc(reinterpret_cast<void**>(&valid), blocks * sizeof(unsigned)));
  ASSERT_HIP(hipMemset(slots, 0, blocks * sizeof(int)));
  void* args[] = {&slots, &seen, &valid};
  ASSERT_HIP(hipLaunchCooperativeKernel(reinterpret_cast<const void*>(grid_sync_rounds), dim3(blocks), dim3(128), args,
                                        0, nullptr));
  std::vector<int> got(2 * blocks);
  ASSERT_HIP(hipMemcpy(got.data(), seen, got.size() * sizeof(int), hipMemcpyDeviceToHost));
  for (unsigned r = 0; r < 2; ++r) {
    for (unsigned b = 0; b < blocks; ++b) {
      ASSERT_EQ(got[r * blocks + b], static_cast<int>((r + 1) * 1000 + (b + 1) % blocks)) << r << " " << b;
    }
  }
  std::vector<unsigned> validity(blocks);
  ASSERT_HIP(hipMemcpy(validity.data(), valid, blocks * sizeof(unsigned), hipMemcpyDeviceToHost));
  for (unsigned b = 0; b < blocks; ++b) EXPECT_NE(validity[b], 0u) << b;
  // An ordinary launch is not a cooperative grid.
  grid_validity<<<4, 64>>>(valid);
  ASSERT_HIP(hipMemcpy(validity.data(), valid, 4 * sizeof(unsigned), hipMemcpyDeviceToHost));
  for (unsigned b = 0; b < 4; ++b) EXPECT_EQ(validity[b], 0u) << b;
  ASSERT_HIP(hipFree(slots));
  ASSERT_HIP(hipFree(seen));
  ASSERT_HIP(hipFree(valid));
}

}  // namespace
