// Blocked signal waits, as a ratio to the kernel's cheapest sleep/wake in the same run (issue #8 §6):
//   a round trip between two threads through two HSA interrupt signals, each side sleeping in a BLOCKED
//   hsa_signal_wait_scacquire until the other's hsa_signal_store_screlease wakes it (store, SET_EVENT,
//   WAIT_EVENTS on the simulated KFD) vs the same round trip through two futex words (FUTEX_WAIT /
//   FUTEX_WAKE). Both sides of both always sleep: neither spins. Each round trip is two wake-ups.
// Run: bazel run -c opt //hsa:signal_benchmark

#include <cstdint>
#include <cstdio>
#include <thread>

#include "benchmark/benchmark.h"
#include "hsa/hsa.h"
#include "base/bench/baselines.h"
#include "base/bench/ratio_reporter.h"

namespace {

constexpr uint64_t kForever = UINT64_MAX;

// ---- futex baseline ----

using ::hipmem::bench::BM_FutexRoundTrip;
BENCHMARK(BM_FutexRoundTrip)->UseRealTime();

// ---- HSA signals ----

void BM_SignalRoundTrip(benchmark::State& state) {
  hsa_signal_t ping{0}, pong{0};
  if (hsa_signal_create(0, 0, nullptr, &ping) != HSA_STATUS_SUCCESS ||
      hsa_signal_create(0, 0, nullptr, &pong) != HSA_STATUS_SUCCESS) {
    state.SkipWithError("hsa_signal_create failed");
    return;
  }
  std::thread partner([&] {
    hsa_signal_value_t seen = 0;
    while (true) {
      seen = hsa_signal_wait_scacquire(ping, HSA_SIGNAL_CONDITION_NE, seen, kForever, HSA_WAIT_STATE_BLOCKED);
      if (seen < 0) return;
      hsa_signal_store_screlease(pong, seen);
    }
  });
  hsa_signal_value_t round = 0;
  for (auto _ : state) {
    ++round;
    hsa_signal_store_screlease(ping, round);
    if (hsa_signal_wait_scacquire(pong, HSA_SIGNAL_CONDITION_EQ, round, kForever, HSA_WAIT_STATE_BLOCKED) != round) {
      state.SkipWithError("the wait returned another value");
      break;
    }
  }
  hsa_signal_store_screlease(ping, -1);
  partner.join();
  hsa_signal_destroy(ping);
  hsa_signal_destroy(pong);
}
BENCHMARK(BM_SignalRoundTrip)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (hsa_init() != HSA_STATUS_SUCCESS) {
    std::fprintf(stderr, "hsa_init failed\n");
    return 1;
  }
  hipmem_bench::RatioReporter reporter({
      {"BM_SignalRoundTrip/real_time", "BM_FutexRoundTrip/real_time", 4.0},
  });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  const bool met = reporter.PrintRatios();
  benchmark::Shutdown();
  hsa_shut_down();
  return met ? 0 : 1;
}
