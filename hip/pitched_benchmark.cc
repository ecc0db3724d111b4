// 2D copies and memsets against the linear call moving the same bytes, as same-run ratios:
// bazel run -c opt //hip:pitched_benchmark
//
// A pitched rectangle between GPU-reachable sides is one SDMA sub-window copy (clr/blit_rect.cc); these
// ratios show what the rows cost over one linear copy of the whole allocation, and keep that from regressing
// to a command per row (~200x).
#include <cstdio>
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "hip/hip_runtime.h"
#include "base/bench/ratio_reporter.h"

namespace {

constexpr size_t kWidth = 1000;  // bytes of each row
constexpr size_t kRows = 4096;

struct Pitched {
  void* ptr = nullptr;
  size_t pitch = 0;
};

Pitched Alloc() {
  Pitched p;
  if (hipMallocPitch(&p.ptr, &p.pitch, kWidth, kRows) != hipSuccess) p.ptr = nullptr;
  return p;
}

void BM_Memcpy2D_D2D(benchmark::State& state) {
  Pitched a = Alloc(), b = Alloc();
  for (auto _ : state) {
    if (hipMemcpy2D(b.ptr, b.pitch, a.ptr, a.pitch, kWidth, kRows, hipMemcpyDeviceToDevice) != hipSuccess) {
      state.SkipWithError("hipMemcpy2D failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * kWidth * kRows);
  (void)hipFree(a.ptr);
  (void)hipFree(b.ptr);
}

void BM_Memcpy_D2D(benchmark::State& state) {
  Pitched a = Alloc(), b = Alloc();
  for (auto _ : state) {
    // A same-device hipMemcpy may still run when it returns; the 2D copy has finished.
    if (hipMemcpy(b.ptr, a.ptr, a.pitch * kRows, hipMemcpyDeviceToDevice) != hipSuccess ||
        hipDeviceSynchronize() != hipSuccess) {
      state.SkipWithError("hipMemcpy failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * a.pitch * kRows);
  (void)hipFree(a.ptr);
  (void)hipFree(b.ptr);
}

void BM_Memcpy2D_D2H_Pageable(benchmark::State& state) {
  Pitched a = Alloc();
  std::vector<char> host(kWidth * kRows);
  for (auto _ : state) {
    if (hipMemcpy2D(host.data(), kWidth, a.ptr, a.pitch, kWidth, kRows, hipMemcpyDeviceToHost) != hipSuccess) {
      state.SkipWithError("hipMemcpy2D failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * kWidth * kRows);
  (void)hipFree(a.ptr);
}

void BM_Memcpy_D2H_Pageable(benchmark::State& state) {
  Pitched a = Alloc();
  std::vector<char> host(a.pitch * kRows);
  for (auto _ : state) {
    if (hipMemcpy(host.data(), a.ptr, host.size(), hipMemcpyDeviceToHost) != hipSuccess) {
      state.SkipWithError("hipMemcpy failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * host.size());
  (void)hipFree(a.ptr);
}

void BM_Memset2D(benchmark::State& state) {
  Pitched a = Alloc();
  for (auto _ : state) {
    if (hipMemset2D(a.ptr, a.pitch, 0x5a, kWidth, kRows) != hipSuccess) {
      state.SkipWithError("hipMemset2D failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * kWidth * kRows);
  (void)hipFree(a.ptr);
}

void BM_Memset(benchmark::State& state) {
  Pitched a = Alloc();
  for (auto _ : state) {
    if (hipMemset(a.ptr, 0x5a, a.pitch * kRows) != hipSuccess) {
      state.SkipWithError("hipMemset failed");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * a.pitch * kRows);
  (void)hipFree(a.ptr);
}

BENCHMARK(BM_Memcpy2D_D2D)->UseRealTime();
BENCHMARK(BM_Memcpy_D2D)->UseRealTime();
BENCHMARK(BM_Memcpy2D_D2H_Pageable)->UseRealTime();
BENCHMARK(BM_Memcpy_D2H_Pageable)->UseRealTime();
BENCHMARK(BM_Memset2D)->UseRealTime();
BENCHMARK(BM_Memset)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (hipSetDevice(0) != hipSuccess) {
    std::fprintf(stderr, "no HIP device\n");
    return 1;
  }
  hipmem_bench::RatioReporter reporter({
      // Measured ~2.0-2.3 (-c opt, 2 cores): the simulated SDMA walks the box row by row. A command per row
      // would be ~100x.
      {"BM_Memcpy2D_D2D/real_time", "BM_Memcpy_D2D/real_time", 4.0},
      {"BM_Memcpy2D_D2H_Pageable/real_time", "BM_Memcpy_D2H_Pageable/real_time", 4.0},
      {"BM_Memset2D/real_time", "BM_Memset/real_time", 4.0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
