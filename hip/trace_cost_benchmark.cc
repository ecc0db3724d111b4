// What the five-layer trace (base/trace.h, issue #27 §1) costs a cached hipMalloc+hipFree pair, as same-run ratios:
//
//   off  goal: <= 0.02   BM_TraceSitesOff / BM_CachedMallocFree
//   on   reported        BM_CachedMallocFree_TraceDiscard / BM_CachedMallocFree   (records built, then dropped)
//   on   reported        BM_CachedMallocFree_TraceFile / BM_CachedMallocFree      (HIPMEM_TRACE's JSON file)
//
// Why the off cost is measured this way: the instrumentation cannot be compiled out of one binary and left in
// another and still be compared in one run, so the benchmark measures the off sites themselves. Before timing, a
// counting sink is installed for one pair, which counts the slices, lines and flow points the pair passes through
// (each is one trace site); BM_TraceSitesOff then passes through that many sites of each kind with no sink
// installed, which is exactly the work the instrumentation adds to an untraced pair (a relaxed load and a branch
// per site; a slice's arguments are formatted only when traced). The goal is the issue's: within 2% of untraced.
//
// Run: bazel run -c opt //hip:trace_cost_benchmark -- --benchmark_repetitions=9
//        --benchmark_enable_random_interleaving=true   (one command line)
// Exit status: 0 when the goal was met, 1 when it was missed, 2 when a benchmark failed.
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "base/trace.h"
#include "base/trace_file_sink.h"
#include "benchmark/benchmark.h"
#include "hip/hip_runtime_api.h"
#include "base/bench/ratio_reporter.h"

namespace {

constexpr size_t kPairSize = 4096;  // served from a cached 2 MiB fragment block after the first pair

// Counts what reaches it; builds nothing.
class CountingSink final : public hipmem::TraceSink {
 public:
  void Record(hipmem::Layer, absl::string_view) override { lines.fetch_add(1, std::memory_order_relaxed); }
  void Slice(const hipmem::TraceSliceRecord&) override { slices.fetch_add(1, std::memory_order_relaxed); }
  void Flow(const hipmem::TraceFlowRecord&) override { flows.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<int64_t> lines{0};
  std::atomic<int64_t> slices{0};
  std::atomic<int64_t> flows{0};
};

// Receives every record, as a sink that keeps nothing: the cost of building the records (names, arguments, clocks).
class DiscardingSink final : public hipmem::TraceSink {
 public:
  void Record(hipmem::Layer, absl::string_view message) override { benchmark::DoNotOptimize(message.data()); }
  void Slice(const hipmem::TraceSliceRecord& slice) override { benchmark::DoNotOptimize(slice.end_ns); }
  void Flow(const hipmem::TraceFlowRecord& flow) override { benchmark::DoNotOptimize(flow.id); }
};

// The trace sites one cached pair passes through, counted once before the benchmarks run.
struct SiteCounts {
  int64_t lines = 0;
  int64_t slices = 0;
  int64_t flows = 0;
};
SiteCounts g_sites;

bool Pair() {
  void* p = nullptr;
  if (hipMalloc(&p, kPairSize) != hipSuccess) return false;
  return hipFree(p) == hipSuccess;
}

void RunPairs(benchmark::State& state) {
  for (auto _ : state) {
    if (!Pair()) {
      state.SkipWithError("hipMalloc or hipFree failed");
      return;
    }
  }
}

void BM_CachedMallocFree(benchmark::State& state) { RunPairs(state); }

// The sites of one pair with no sink installed: each slice site constructs and destroys a TraceSlice and asks
// for one argument, each line site calls Trace, each flow site offers a flow start. Each site's outcome is kept
// (DoNotOptimize) so the compiler cannot drop it; no memory barrier is added between sites, since the real sites
// have none (a barrier would force every value to memory and measure that instead).
void BM_TraceSitesOff(benchmark::State& state) {
  if (hipmem::TraceEnabled()) {
    state.SkipWithError("a trace sink is installed (unset HIPMEM_TRACE)");
    return;
  }
  const SiteCounts sites = g_sites;
  for (auto _ : state) {
    for (int64_t i = 0; i < sites.slices; ++i) {
      hipmem::TraceSlice slice(hipmem::TraceCategory::kClr, "site");
      slice.Arg("size", i);
      bool active = slice.active();
      benchmark::DoNotOptimize(active);
    }
    for (int64_t i = 0; i < sites.lines; ++i) {
      hipmem::Trace(hipmem::Layer::kHsa, "site ", i);
      benchmark::DoNotOptimize(i);
    }
    for (int64_t i = 0; i < sites.flows; ++i) {
      hipmem::TraceFlowStart(hipmem::TraceCategory::kClr, "site", static_cast<uint64_t>(i));
      benchmark::DoNotOptimize(i);
    }
  }
  state.counters["sites"] = static_cast<double>(sites.slices + sites.lines + sites.flows);
}

// Installs `sink` for the benchmark's duration.
void RunPairsTraced(benchmark::State& state, hipmem::TraceSink* sink) {
  hipmem::TraceSink* previous = hipmem::SetTraceSink(sink);
  RunPairs(state);
  hipmem::SetTraceSink(previous);
}

// The sinks below are never destroyed: an engine thread may still hold the pointer it loaded just before the
// sink was removed (trace.h: a sink must outlive every record begun while it was installed).
void BM_CachedMallocFree_TraceDiscard(benchmark::State& state) {
  static DiscardingSink* const sink = new DiscardingSink;
  RunPairsTraced(state, sink);
}

// The file sink writes to an unlinked temporary file, so the disk's speed counts but nothing is left behind.
void BM_CachedMallocFree_TraceFile(benchmark::State& state) {
  char path[] = "/tmp/hipmem_trace_cost_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    state.SkipWithError("mkstemp failed");
    return;
  }
  close(fd);
  auto sink = hipmem::TraceFileSink::Open(path);
  unlink(path);
  if (!sink.ok()) {
    state.SkipWithError("cannot open the trace file");
    return;
  }
  // Never destroyed, as above; kept reachable, so that LeakSanitizer does not report it (one per run of this
  // benchmark).
  static auto* const kept = new std::vector<std::unique_ptr<hipmem::TraceFileSink>>();
  hipmem::TraceFileSink* const file_sink = kept->emplace_back(*std::move(sink)).get();
  RunPairsTraced(state, file_sink);
  file_sink->Close();
}

BENCHMARK(BM_CachedMallocFree)->UseRealTime();
BENCHMARK(BM_TraceSitesOff)->UseRealTime();
BENCHMARK(BM_CachedMallocFree_TraceDiscard)->UseRealTime();
BENCHMARK(BM_CachedMallocFree_TraceFile)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  if (hipmem::TraceEnabled()) {
    std::fprintf(stderr, "trace_cost_benchmark measures the trace itself: run it without HIPMEM_TRACE\n");
    return 2;
  }
  // The first pair takes the fragment block from the KFD; the counted pair is a cached one, as the timed ones.
  if (!Pair() || !Pair()) {
    std::fprintf(stderr, "hipMalloc/hipFree failed\n");
    return 2;
  }
  static CountingSink counter;  // static for the reason the other sinks are never destroyed
  hipmem::SetTraceSink(&counter);
  const bool ok = Pair();
  hipmem::SetTraceSink(nullptr);
  if (!ok) return 2;
  g_sites = {counter.lines.load(), counter.slices.load(), counter.flows.load()};
  std::printf("one cached hipMalloc+hipFree passes %lld slice, %lld line and %lld flow sites\n",
              static_cast<long long>(g_sites.slices), static_cast<long long>(g_sites.lines),
              static_cast<long long>(g_sites.flows));
  if (g_sites.slices == 0) {
    std::fprintf(stderr, "the counted pair recorded no slice: the hip entry points are not traced\n");
    return 2;
  }
  hipmem_bench::RatioReporter reporter({
      {"BM_TraceSitesOff/real_time", "BM_CachedMallocFree/real_time", 0.02},
      {"BM_CachedMallocFree_TraceDiscard/real_time", "BM_CachedMallocFree/real_time", 0},
      {"BM_CachedMallocFree_TraceFile/real_time", "BM_CachedMallocFree/real_time", 0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  if (reporter.failed()) return 2;
  return met ? 0 : 1;
}
