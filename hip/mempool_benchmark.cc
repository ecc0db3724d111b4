// The stream-ordered pool's hit path as a same-run ratio (issue 10 §3): hipMallocAsync + hipFreeAsync of one
// size on one stream, served from the pool's free heap every time after the first, against a glibc
// malloc + free pair of 64 B. Goal: <= 20x (CUDA on an H200 takes 1.15 us for the pair).
// Run: bazel run -c opt //hip:mempool_benchmark
#include <cstdio>
#include <cstdlib>

#include "benchmark/benchmark.h"
#include "hip/hip_runtime.h"
#include "base/bench/ratio_reporter.h"

namespace {

void BM_GlibcMallocFree(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  for (auto _ : state) {
    void* p = std::malloc(size);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
}

// `state.range(1)`: 0 for the null stream, 1 for a hipStreamNonBlocking stream.
void BM_PoolHit(benchmark::State& state) {
  const size_t size = static_cast<size_t>(state.range(0));
  hipStream_t stream = nullptr;
  if (state.range(1) == 1 && hipStreamCreateWithFlags(&stream, hipStreamNonBlocking) != hipSuccess) {
    state.SkipWithError("hipStreamCreateWithFlags failed");
    return;
  }
  void* warm = nullptr;
  if (hipMallocAsync(&warm, size, stream) != hipSuccess || hipFreeAsync(warm, stream) != hipSuccess) {
    state.SkipWithError("the warm-up pair failed");
    return;
  }
  for (auto _ : state) {
    void* p = nullptr;
    if (hipMallocAsync(&p, size, stream) != hipSuccess) {
      state.SkipWithError("hipMallocAsync failed");
      break;
    }
    benchmark::DoNotOptimize(p);
    if (hipFreeAsync(p, stream) != hipSuccess) {
      state.SkipWithError("hipFreeAsync failed");
      break;
    }
  }
  (void)hipStreamSynchronize(stream);
  if (stream != nullptr) (void)hipStreamDestroy(stream);
}

BENCHMARK(BM_GlibcMallocFree)->Arg(64)->UseRealTime();
BENCHMARK(BM_PoolHit)->Args({64, 0})->Args({64, 1})->Args({1 << 20, 1})->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (hipSetDevice(0) != hipSuccess) {
    std::fprintf(stderr, "no HIP device\n");
    return 2;
  }
  hipmem_bench::RatioReporter reporter({
      {"BM_PoolHit/64/1/real_time", "BM_GlibcMallocFree/64/real_time", 20.0},
      {"BM_PoolHit/64/0/real_time", "BM_GlibcMallocFree/64/real_time", 0},
      {"BM_PoolHit/1048576/1/real_time", "BM_GlibcMallocFree/64/real_time", 0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
