// A Google Benchmark console reporter that also prints each benchmark's time as a ratio to a
// baseline benchmark from the same run, so goals are stated against the machine the run is on.
//
// With --benchmark_repetitions the ratios are printed per aggregate (the `_median` and `_mean` rows
// Google Benchmark adds), and a goal is judged on the medians, which one slow repetition cannot move.
#ifndef HIPMEM_BASE_BENCH_RATIO_REPORTER_H_
#define HIPMEM_BASE_BENCH_RATIO_REPORTER_H_

#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace hipmem_bench {

struct RatioGoal {
  std::string benchmark;  // the measured benchmark's name
  std::string baseline;   // the baseline's name
  double max_ratio;       // goal: time(benchmark) / time(baseline) <= max_ratio (0: report only)
  // When set, the time both spend in this benchmark's floor (work neither can avoid, such as the system calls they
  // must both make) is taken off first: the ratio becomes (benchmark - floor) / (baseline - floor), each side's own
  // cost. Two rows that are mostly floor would otherwise look alike however different their own costs are.
  std::string floor = {};
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  explicit RatioReporter(std::vector<RatioGoal> goals) : goals_(std::move(goals)) {}

  void ReportRuns(const std::vector<Run>& runs) override;

  // Prints one line per goal, wall-time ratio first and CPU-time ratio after it
  // ("ratio: A / B = 2.31 (cpu 2.40) (goal <= 3.00: met)"); with repetitions, one line per aggregate
  // ("ratio: A_median / B_median = ..."), the goal judged on the median line. A goal with a floor prints
  // "ratio above floor: (A - F) / (B - F) = ...". Returns false if a goal with a limit was missed or a named
  // benchmark did not run.
  bool PrintRatios() const;

  // Whether a benchmark reported an error (SkipWithError) in a run seen so far.
  bool failed() const { return failed_; }

 private:
  bool failed_ = false;
  struct Times {
    double real_ns;  // wall time per iteration
    double cpu_ns;   // CPU time per iteration
  };
  std::vector<RatioGoal> goals_;
  // Keyed by Run::benchmark_name(): "BM_X" for an iteration run, "BM_X_median" / "BM_X_mean" for aggregates.
  std::map<std::string, Times> times_;
};

}  // namespace hipmem_bench

#endif  // HIPMEM_BASE_BENCH_RATIO_REPORTER_H_
