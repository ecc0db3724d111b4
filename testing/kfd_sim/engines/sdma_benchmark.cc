// SDMA linear copies through a queue (packets, doorbell, completion), against baselines measured in the same run.
//   Large copies (issue #3 §6, issue #26 "bulk copies at the host's memory speed"): >= 0.8x a single-thread memcpy
//   (time ratio <= 1.25), and >= 0.5x the host's memcpy spread over every core (time ratio <= 2.0).
//   Small copies: one 4 KiB copy per doorbell (a round trip: the engine wakes, copies, completes), to the futex round
//   trip under it; and 256 copies of 4 KiB behind one doorbell (the engine's cost per packet), to memcpy of the same
//   bytes. Reported, not judged: their ratios are compared across builds (no slower than before).
// Run: bazel run -c opt //testing/kfd_sim/engines:sdma_benchmark -- --benchmark_repetitions=5
//   --benchmark_enable_random_interleaving=true
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "gpu_abi/sdma_packets.h"
#include "testing/kfd_sim/engines/memcpy_baseline.h"
#include "testing/kfd_sim/engines/sdma_engine.h"
#include "testing/kfd_sim/engines/test_memory.h"
#include "base/bench/baselines.h"
#include "base/bench/ratio_reporter.h"

namespace hipmem::kfd_sim {
namespace sdma = ::hipmem::gpu_abi::sdma;
namespace {

using ::hipmem::bench::BM_FutexRoundTrip;
using ::hipmem::bench::BM_MemcpyAllCores;

// One SDMA queue over an identity page table with `b` mapped: a 64 KiB ring, its read pointer and a fence word.
// Large copies are spread over `workers` (null: the engine thread alone).
class SdmaRig {
 public:
  SdmaRig(const CopyBuffers& b, CopyWorkers* workers) : ring_(1 << 14, 0) {
    memory_.Map(ring_.data(), ring_.size() * 4);
    memory_.Map(&rptr_, 8);
    memory_.Map(&fence_, 4);
    memory_.Map(b.src, b.size);
    memory_.Map(b.dst, b.size);
    engine_ = std::make_unique<SdmaEngine>(
        "sdma0", &memory_,
        SdmaQueueDescriptor{.ring_va = reinterpret_cast<uint64_t>(ring_.data()),
                            .ring_bytes = 1 << 16,
                            .rptr_va = reinterpret_cast<uint64_t>(&rptr_),
                            .wptr_va = reinterpret_cast<uint64_t>(&wptr_),
                            .copy_workers = workers},
        SdmaEngine::Callbacks{});
  }

  template <typename Packet>
  void Put(const Packet& packet) {
    const auto* dw = reinterpret_cast<const uint32_t*>(&packet);
    for (size_t i = 0; i < sizeof(packet) / 4; ++i) {
      ring_[(wptr_ / 4) % ring_.size()] = dw[i];
      wptr_ += 4;
    }
  }
  // Copies [offset, offset + bytes) of the source to the destination, split as ROCr splits at the engine's
  // maximum linear size.
  void PutCopy(const CopyBuffers& b, size_t offset, size_t bytes) {
    for (size_t off = offset; off < offset + bytes; off += sdma::kMaxLinearBytes) {
      const size_t n = std::min<size_t>(sdma::kMaxLinearBytes, offset + bytes - off);
      Put(sdma::MakeCopy(reinterpret_cast<uint64_t>(b.dst + off), reinterpret_cast<uint64_t>(b.src + off),
                         static_cast<uint32_t>(n)));
    }
  }
  // Puts a fence behind what is queued, rings and waits for all of it.
  bool Run(uint32_t fence_value) {
    Put(sdma::MakeFence(reinterpret_cast<uint64_t>(&fence_), fence_value));
    engine_->RingDoorbell(wptr_);
    return engine_->WaitIdle();
  }

 private:
  IdentityPageTable memory_;
  std::vector<uint32_t> ring_;
  uint64_t rptr_ = 0, wptr_ = 0;
  uint32_t fence_ = 0;
  std::unique_ptr<SdmaEngine> engine_;
};

// One copy of state.range(0) bytes per doorbell, large ones spread over `workers` (null: the engine thread alone).
void LinearCopy(benchmark::State& state, CopyWorkers* workers) {
  CopyBuffers b(static_cast<size_t>(state.range(0)));
  SdmaRig rig(b, workers);
  for (auto _ : state) {
    rig.PutCopy(b, 0, b.size);
    if (!rig.Run(static_cast<uint32_t>(state.iterations()))) state.SkipWithError("queue halted");
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

// As in the simulator: the device's copy workers, one fewer than the host's hardware threads.
void BM_SdmaLinearCopy(benchmark::State& state) {
  CopyWorkers workers;
  LinearCopy(state, &workers);
}

// The engine thread alone, as before copies were split: against BM_SdmaLinearCopy around the split threshold, where
// splitting starts to pay (sdma_engine.cc kSplitAbove).
void BM_SdmaOneThreadCopy(benchmark::State& state) { LinearCopy(state, nullptr); }

// 256 copies of state.range(0) bytes each behind one doorbell: what the engine spends per packet.
constexpr int kBatch = 256;
void BM_SdmaCopyBatch(benchmark::State& state) {
  const auto each = static_cast<size_t>(state.range(0));
  CopyBuffers b(each * kBatch);
  CopyWorkers workers;
  SdmaRig rig(b, &workers);
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) rig.PutCopy(b, i * each, each);
    if (!rig.Run(static_cast<uint32_t>(state.iterations()))) state.SkipWithError("queue halted");
  }
  state.SetBytesProcessed(state.iterations() * state.range(0) * kBatch);
}

constexpr int64_t k4K = 4 << 10;
constexpr int64_t k64M = 64 << 20;
constexpr int64_t k1G = int64_t{1} << 30;

BENCHMARK(BM_Memcpy)->Arg(k4K * kBatch)->Arg(k64M)->Arg(k1G)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MemcpyAllCores)->Arg(k64M)->Arg(k1G)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FutexRoundTrip)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SdmaLinearCopy)->Arg(k4K)->Arg(k64M)->Arg(k1G)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SdmaCopyBatch)->Arg(k4K)->UseRealTime()->Unit(benchmark::kMicrosecond);
// Around the split threshold.
BENCHMARK(BM_SdmaLinearCopy)->RangeMultiplier(2)->Range(256 << 10, 4 << 20)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SdmaOneThreadCopy)->RangeMultiplier(2)->Range(256 << 10, 4 << 20)->UseRealTime()->Unit(benchmark::kMicrosecond);

std::string Name(const char* benchmark, int64_t arg) {
  return std::string(benchmark) + "/" + std::to_string(arg) + "/real_time";
}

}  // namespace
}  // namespace hipmem::kfd_sim

int main(int argc, char** argv) {
  using ::hipmem::kfd_sim::Name;
  using ::hipmem::kfd_sim::k1G;
  using ::hipmem::kfd_sim::k4K;
  using ::hipmem::kfd_sim::k64M;
  using ::hipmem::kfd_sim::kBatch;
  benchmark::Initialize(&argc, argv);
  hipmem_bench::RatioReporter reporter({
      {Name("BM_SdmaLinearCopy", k64M), Name("BM_Memcpy", k64M), 1.25},
      {Name("BM_SdmaLinearCopy", k1G), Name("BM_Memcpy", k1G), 1.25},
      {Name("BM_SdmaLinearCopy", k64M), Name("BM_MemcpyAllCores", k64M), 2.0},
      {Name("BM_SdmaLinearCopy", k1G), Name("BM_MemcpyAllCores", k1G), 2.0},
      {Name("BM_SdmaLinearCopy", k4K), "BM_FutexRoundTrip/real_time", 0},
      {Name("BM_SdmaCopyBatch", k4K), Name("BM_Memcpy", k4K * kBatch), 0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
