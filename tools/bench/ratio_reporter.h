// A Google Benchmark console reporter that also prints each benchmark's time as a ratio to a
// baseline benchmark from the same run, so goals are stated against the machine the run is on.
#ifndef HIPMEM_TOOLS_BENCH_RATIO_REPORTER_H_
#define HIPMEM_TOOLS_BENCH_RATIO_REPORTER_H_

#include <map>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"

namespace hipmem_bench {

struct RatioGoal {
  std::string benchmark;  // the measured benchmark's name
  std::string baseline;   // the baseline's name
  double max_ratio;       // goal: time(benchmark) / time(baseline) <= max_ratio (0: report only)
};

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  explicit RatioReporter(std::vector<RatioGoal> goals) : goals_(std::move(goals)) {}

  void ReportRuns(const std::vector<Run>& runs) override;

  // Prints one line per goal ("ratio: A / B = 2.31 (goal <= 3.00: met)"); returns false if a goal
  // with a limit was missed or a named benchmark did not run.
  bool PrintRatios() const;

 private:
  std::vector<RatioGoal> goals_;
  std::map<std::string, double> real_ns_;
};

}  // namespace hipmem_bench

#endif  // HIPMEM_TOOLS_BENCH_RATIO_REPORTER_H_
