// hsa_init + hsa_shut_down on the largest simulated machine, as a ratio to one GPU in the same run (issue #8 §6):
// goals <= 50 ms per init/shut-down pair on 8xmi300x, and <= 8x the one-GPU time (the work should grow with the
// GPUs, not faster). Each iteration does what hsa_init does once the process's simulated machine exists (the
// first hsa_init of a process also builds the machine, which a real KFD already is): open a KFD process
// (OpenSimKfdDevice), read the topology and open the thunk (thunk::Kfd::Open), discover agents and pools
// (Runtime::Create) and the signal runtime; then tear all of it down as hsa_shut_down does.
// Run: bazel run -c opt //hsa:init_benchmark
// Steadier on a shared machine: -- --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "hsa/runtime.h"
#include "hsa/runtime_kfd.h"
#include "hsa/signal_runtime.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/kfd.h"
#include "thunk/kfd_device_sim.h"
#include "base/bench/ratio_reporter.h"

namespace {

using hipmem::hsa::Runtime;
using hipmem::hsa::SignalRuntime;

void InitShutDown(benchmark::State& state, int gpus) {
  absl::StatusOr<std::shared_ptr<hipmem::thunk::SimMachine>> machine =
      hipmem::thunk::SimMachine::Create(hipmem::kfd_sim::Mi300xTopology(gpus));
  if (!machine.ok()) {
    state.SkipWithError("SimMachine::Create failed");
    return;
  }
  for (auto _ : state) {
    absl::StatusOr<std::unique_ptr<hipmem::thunk::KfdDevice>> device = hipmem::thunk::OpenSimKfdDevice(*machine);
    if (!device.ok()) {
      state.SkipWithError("OpenSimKfdDevice failed");
      break;
    }
    absl::StatusOr<std::unique_ptr<hipmem::thunk::Kfd>> kfd = hipmem::thunk::Kfd::Open(*std::move(device));
    if (!kfd.ok()) {
      state.SkipWithError("Kfd::Open failed");
      break;
    }
    absl::StatusOr<std::unique_ptr<Runtime>> runtime = hipmem::hsa::CreateRuntime(*std::move(kfd));
    if (!runtime.ok()) {
      state.SkipWithError("CreateRuntime failed");
      break;
    }
    std::unique_ptr<SignalRuntime> signals = SignalRuntime::Create(**runtime);
    benchmark::DoNotOptimize(signals.get());
    signals.reset();  // as ReleaseSharedRuntime: signals first, then the runtime and its KFD process
    runtime->reset();
  }
}

void BM_InitShutDown1Gpu(benchmark::State& state) { InitShutDown(state, 1); }
void BM_InitShutDown8Gpus(benchmark::State& state) { InitShutDown(state, 8); }
BENCHMARK(BM_InitShutDown1Gpu)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InitShutDown8Gpus)->UseRealTime()->Unit(benchmark::kMillisecond);

// A fixed 50 ms of sleep: the absolute goal, expressed as a same-run ratio like the others.
void BM_FiftyMilliseconds(benchmark::State& state) {
  for (auto _ : state) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
    while (std::chrono::steady_clock::now() < end) std::this_thread::sleep_until(end);
  }
}
BENCHMARK(BM_FiftyMilliseconds)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  hipmem_bench::RatioReporter reporter({
      {"BM_InitShutDown8Gpus/real_time", "BM_InitShutDown1Gpu/real_time", 8.0},
      {"BM_InitShutDown8Gpus/real_time", "BM_FiftyMilliseconds/iterations:3/real_time", 1.0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  return met ? 0 : 1;
}
