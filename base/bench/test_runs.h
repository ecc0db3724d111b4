// Google Benchmark runs made by hand, for tests of what reads benchmark results (RatioReporter, `hipmem bench`).
#ifndef HIPMEM_BASE_BENCH_TEST_RUNS_H_
#define HIPMEM_BASE_BENCH_TEST_RUNS_H_

#include <string>

#include "benchmark/benchmark.h"

namespace hipmem_bench {

// One run of `name` taking `real_ns` of wall time and `cpu_ns` of CPU time per iteration; an aggregate row of
// that name when `aggregate` is given ("median", "mean", "stddev"). Printed in microseconds: what reads the runs must
// not depend on the unit.
inline benchmark::BenchmarkReporter::Run MakeRun(const std::string& name, double real_ns, double cpu_ns,
                                                 const std::string& aggregate = "") {
  benchmark::BenchmarkReporter::Run run;
  run.run_name.function_name = name;
  run.iterations = 10;
  run.time_unit = benchmark::kMicrosecond;
  run.real_accumulated_time = real_ns * 1e-9 * 10;  // accumulated over the iterations, in seconds
  run.cpu_accumulated_time = cpu_ns * 1e-9 * 10;
  if (!aggregate.empty()) {
    run.run_type = benchmark::BenchmarkReporter::Run::RT_Aggregate;
    run.aggregate_name = aggregate;
  }
  return run;
}

}  // namespace hipmem_bench

#endif  // HIPMEM_BASE_BENCH_TEST_RUNS_H_
