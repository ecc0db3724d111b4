// Prefetch migration vs explicit copies: hipMemPrefetchAsync of 256 MiB of managed memory to GPU 0 and back to
// the CPU, against a hipMemcpy of 256 MiB host -> device plus device -> host, in the same run. The ratio is
// report-only (no goal yet): on the simulator both sides are CPU copies, so it measures the migration machinery's
// overhead over the blit path (the KFD's page moves, VRAM accounting and the stream's host-function hop).
//   bazel run -c opt //hip:managed_benchmark
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "hip/hip_runtime.h"
#include "base/bench/ratio_reporter.h"

namespace {

constexpr size_t kSize = size_t{256} << 20;

void BM_MemcpyRoundTrip(benchmark::State& state) {
  std::vector<char> host(kSize, 1);
  void* device = nullptr;
  if (hipMalloc(&device, kSize) != hipSuccess) {
    state.SkipWithError("hipMalloc failed");
    return;
  }
  for (auto _ : state) {
    if (hipMemcpy(device, host.data(), kSize, hipMemcpyHostToDevice) != hipSuccess ||
        hipMemcpy(host.data(), device, kSize, hipMemcpyDeviceToHost) != hipSuccess) {
      state.SkipWithError("hipMemcpy failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * kSize);
  (void)hipFree(device);
}

void BM_PrefetchRoundTrip(benchmark::State& state) {
  void* managed = nullptr;
  if (hipMallocManaged(&managed, kSize) != hipSuccess) {
    state.SkipWithError("hipMallocManaged failed");
    return;
  }
  std::memset(managed, 1, kSize);  // resident in system memory, as the host vector of the baseline
  for (auto _ : state) {
    if (hipMemPrefetchAsync(managed, kSize, 0, nullptr) != hipSuccess ||
        hipMemPrefetchAsync(managed, kSize, hipCpuDeviceId, nullptr) != hipSuccess ||
        hipStreamSynchronize(nullptr) != hipSuccess) {
      state.SkipWithError("hipMemPrefetchAsync failed");
      break;
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * kSize);
  (void)hipFree(managed);
}

BENCHMARK(BM_MemcpyRoundTrip)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PrefetchRoundTrip)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (hipSetDevice(0) != hipSuccess) {
    std::fprintf(stderr, "no HIP device\n");
    return 2;
  }
  hipmem_bench::RatioReporter reporter({
      {"BM_PrefetchRoundTrip/real_time", "BM_MemcpyRoundTrip/real_time", 0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
