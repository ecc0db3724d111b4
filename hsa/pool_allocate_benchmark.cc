// A 64 KiB hsa_amd_memory_pool_allocate + hsa_amd_memory_pool_free of VRAM served from a cached fragment
// block, as a ratio to a glibc malloc + free pair of the same size in the same run (issue #8 §6, goal <= 20x).
// With the fragment allocator the pair never reaches the KFD: ROCr's point in sub-allocating 2 MiB blocks.
// Run: bazel run -c opt //hsa:pool_allocate_benchmark
#include <cstdio>
#include <cstdlib>

#include "benchmark/benchmark.h"
#include "hsa/hsa.h"
#include "hsa/hsa_ext_amd.h"
#include "base/bench/ratio_reporter.h"

namespace {

constexpr size_t kSize = 64 << 10;

void BM_MallocFree(benchmark::State& state) {
  for (auto _ : state) {
    void* p = malloc(kSize);
    benchmark::DoNotOptimize(p);
    free(p);
  }
}
BENCHMARK(BM_MallocFree);

hsa_status_t FindGpu(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
  if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
  *static_cast<hsa_agent_t*>(data) = agent;
  return HSA_STATUS_INFO_BREAK;
}

hsa_status_t FindCoarseVram(hsa_amd_memory_pool_t pool, void* data) {
  uint32_t flags = 0;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags) != HSA_STATUS_SUCCESS) {
    return HSA_STATUS_ERROR;
  }
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) == 0) return HSA_STATUS_SUCCESS;
  *static_cast<hsa_amd_memory_pool_t*>(data) = pool;
  return HSA_STATUS_INFO_BREAK;
}

void BM_PoolAllocateFreeCachedFragment(benchmark::State& state) {
  hsa_agent_t gpu{0};
  hsa_amd_memory_pool_t pool{0};
  if (hsa_iterate_agents(FindGpu, &gpu) != HSA_STATUS_INFO_BREAK ||
      hsa_amd_agent_iterate_memory_pools(gpu, FindCoarseVram, &pool) != HSA_STATUS_INFO_BREAK) {
    state.SkipWithError("no GPU with a coarse-grained VRAM pool");
    return;
  }
  // Warm the cache: the first allocation takes a block from the KFD; freed, the block stays cached.
  void* warm = nullptr;
  if (hsa_amd_memory_pool_allocate(pool, kSize, 0, &warm) != HSA_STATUS_SUCCESS ||
      hsa_amd_memory_pool_free(warm) != HSA_STATUS_SUCCESS) {
    state.SkipWithError("warm-up allocation failed");
    return;
  }
  for (auto _ : state) {
    void* p = nullptr;
    if (hsa_amd_memory_pool_allocate(pool, kSize, 0, &p) != HSA_STATUS_SUCCESS) {
      state.SkipWithError("hsa_amd_memory_pool_allocate failed");
      return;
    }
    benchmark::DoNotOptimize(p);
    if (hsa_amd_memory_pool_free(p) != HSA_STATUS_SUCCESS) {
      state.SkipWithError("hsa_amd_memory_pool_free failed");
      return;
    }
  }
}
BENCHMARK(BM_PoolAllocateFreeCachedFragment);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (hsa_init() != HSA_STATUS_SUCCESS) {
    std::fprintf(stderr, "hsa_init failed\n");
    return 1;
  }
  hipmem_bench::RatioReporter reporter({
      {"BM_PoolAllocateFreeCachedFragment", "BM_MallocFree", 20.0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  hsa_shut_down();
  return met ? 0 : 1;
}
