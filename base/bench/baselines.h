// Baselines the runtime's benchmarks report their ratios against, measured in the same binary and run.
//
// Register them under these names in each benchmark (BENCHMARK(BM_Memcpy)... after a using-declaration), so the
// ratio tables name them alike everywhere.
#ifndef HIPMEM_BASE_BENCH_BASELINES_H_
#define HIPMEM_BASE_BENCH_BASELINES_H_

#include "benchmark/benchmark.h"

namespace hipmem::bench {

// Single-thread memcpy of state.range(0) bytes between two host buffers, bytes counted.
void BM_Memcpy(benchmark::State& state);

// The host's memcpy spread over every hardware thread: state.range(0) bytes cut into one contiguous slice per
// thread, each slice copied by its own thread (started once, outside the timing; the calling thread takes the last
// slice). The most a copy in host memory can move on this machine, what a copy engine's bandwidth is judged
// against. Use real time.
void BM_MemcpyAllCores(benchmark::State& state);

// Two threads handing a counter back and forth through two futex words, each asleep in FUTEX_WAIT until the
// other's FUTEX_WAKE: the kernel's cheapest pair of cross-thread wake-ups, the floor under anything that wakes an
// engine and is woken by its completion (a copy's round trip, a signal's). Use real time.
void BM_FutexRoundTrip(benchmark::State& state);

}  // namespace hipmem::bench

#endif  // HIPMEM_BASE_BENCH_BASELINES_H_
