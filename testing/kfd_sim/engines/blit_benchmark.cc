// Blit-kernel copy through an AQL queue (packet, doorbell, workgroups on every simulated compute unit,
// completion signal) vs a single-thread memcpy of the same aligned buffers. The CP gets an MI300X's 304 CUs,
// i.e. as many worker threads as the host has; the goal is that they are no slower than one host thread
// (time ratio <= 1.0). Run: bazel run -c opt //testing/kfd_sim/engines:blit_benchmark
#include <atomic>
#include <vector>

#include "benchmark/benchmark.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/blit_kernels.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/memcpy_baseline.h"
#include "testing/kfd_sim/engines/test_memory.h"
#include "base/bench/ratio_reporter.h"

namespace hipmem::kfd_sim {
namespace blit = ::hipmem::gpu_abi::blit;
namespace {

constexpr uint32_t kMi300xComputeUnits = 304;

void BM_BlitKernelCopy(benchmark::State& state) {
  CopyBuffers b(static_cast<size_t>(state.range(0)));
  IdentityPageTable memory;
  struct alignas(64) Slot {
    unsigned char bytes[aql::kPacketBytes];
  };
  constexpr uint32_t kSlots = 64;
  std::vector<Slot> ring(kSlots);
  for (Slot& s : ring) aql::InvalidateSlot(&s);
  uint64_t read_index = 0, write_index = 0;
  const blit::KernelDescriptor descriptor = blit::MakeDescriptor(blit::KernelId::kCopy);
  const blit::CopyArgs args =
      blit::MakeCopyArgs(reinterpret_cast<uint64_t>(b.dst), reinterpret_cast<uint64_t>(b.src), b.size);
  alignas(64) aql::AmdSignal done{};
  memory.Map(ring.data(), kSlots * aql::kPacketBytes);
  memory.Map(&read_index, 8);
  memory.Map(&descriptor, sizeof(descriptor));
  memory.Map(&args, sizeof(args));
  memory.Map(&done, sizeof(done));
  memory.Map(b.src, b.size);
  memory.Map(b.dst, b.size);
  ComputeEngine engine("cp0", &memory,
                       AqlQueueDescriptor{.ring_va = reinterpret_cast<uint64_t>(ring.data()),
                                          .ring_bytes = kSlots * aql::kPacketBytes,
                                          .read_dispatch_id_va = reinterpret_cast<uint64_t>(&read_index),
                                          .write_dispatch_id_va = reinterpret_cast<uint64_t>(&write_index)},
                       kMi300xComputeUnits, ComputeEngine::Callbacks{});
  state.counters["workers"] = engine.worker_count();
  const aql::KernelDispatchPacket packet =
      blit::MakeDispatch(reinterpret_cast<uint64_t>(&descriptor), reinterpret_cast<uint64_t>(&args), b.size,
                         reinterpret_cast<uint64_t>(&done));
  for (auto _ : state) {
    // A producer's submission: arm the signal, publish the packet, ring, then block (not spin: the host's
    // cores are the compute units) until the CP is idle, which includes the completion signal.
    std::atomic_ref<int64_t>(done.value).store(1, std::memory_order_relaxed);
    aql::WritePacket(&ring[write_index % kSlots], packet);
    engine.RingDoorbell(write_index++);
    if (!engine.WaitIdle() || std::atomic_ref<int64_t>(done.value).load(std::memory_order_acquire) != 0) {
      state.SkipWithError("queue halted");
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * state.range(0));
}

BENCHMARK(BM_Memcpy)->Arg(64 << 20)->Arg(1 << 30)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlitKernelCopy)->Arg(64 << 20)->Arg(1 << 30)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hipmem::kfd_sim

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  hipmem_bench::RatioReporter reporter({
      {"BM_BlitKernelCopy/67108864/real_time", "BM_Memcpy/67108864/real_time", 1.0},
      {"BM_BlitKernelCopy/1073741824/real_time", "BM_Memcpy/1073741824/real_time", 1.0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
