// SDMA linear copy through a queue (packets, doorbell, completion) vs a single-thread memcpy of
// the same aligned buffers, issue #3 §6 (goal: SDMA throughput >= 0.8x memcpy, i.e. time ratio
// <= 1.25). Run: bazel run -c opt //testing/kfd_sim/engines:sdma_benchmark
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "testing/kfd_sim/engines/memcpy_baseline.h"
#include "testing/kfd_sim/engines/sdma_engine.h"
#include "gpu_abi/sdma_packets.h"
#include "testing/kfd_sim/engines/test_memory.h"
#include "tools/bench/ratio_reporter.h"

namespace hipmem::kfd_sim {
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace {

void BM_SdmaLinearCopy(benchmark::State& state) {
  CopyBuffers b(static_cast<size_t>(state.range(0)));
  IdentityPageTable memory;
  std::vector<uint32_t> ring(1 << 14, 0);  // 64 KiB ring
  uint64_t rptr = 0, wptr = 0;
  uint32_t fence = 0;
  memory.Map(ring.data(), ring.size() * 4);
  memory.Map(&rptr, 8);
  memory.Map(&fence, 4);
  memory.Map(b.src, b.size);
  memory.Map(b.dst, b.size);
  SdmaEngine engine("sdma0", &memory, SdmaQueueDescriptor{reinterpret_cast<uint64_t>(ring.data()), 1 << 16,
                                                          reinterpret_cast<uint64_t>(&rptr), reinterpret_cast<uint64_t>(&wptr)},
                    SdmaEngine::Callbacks{});
  auto put = [&](const auto& packet) {
    const auto* dw = reinterpret_cast<const uint32_t*>(&packet);
    for (size_t i = 0; i < sizeof(packet) / 4; ++i) {
      ring[(wptr / 4) % ring.size()] = dw[i];
      wptr += 4;
    }
  };
  for (auto _ : state) {
    // Split like ROCr does at the engine's maximum linear size.
    for (size_t off = 0; off < b.size; off += sdma::kMaxLinearBytes) {
      const size_t n = std::min<size_t>(sdma::kMaxLinearBytes, b.size - off);
      put(sdma::MakeCopy(reinterpret_cast<uint64_t>(b.dst + off), reinterpret_cast<uint64_t>(b.src + off),
                         static_cast<uint32_t>(n)));
    }
    put(sdma::MakeFence(reinterpret_cast<uint64_t>(&fence), static_cast<uint32_t>(state.iterations())));
    engine.RingDoorbell(wptr);
    if (!engine.WaitIdle()) state.SkipWithError("queue halted");
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_Memcpy)->Arg(64 << 20)->Arg(1 << 30)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SdmaLinearCopy)->Arg(64 << 20)->Arg(1 << 30)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hipmem::kfd_sim

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  hipmem_bench::RatioReporter reporter({
      {"BM_SdmaLinearCopy/67108864/real_time", "BM_Memcpy/67108864/real_time", 1.25},
      {"BM_SdmaLinearCopy/1073741824/real_time", "BM_Memcpy/1073741824/real_time", 1.25},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
