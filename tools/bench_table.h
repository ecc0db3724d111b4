// `hipmem bench`: the performance goals of every benchmark program in one table (issue #27 §2).
//
// Each benchmark program prints its same-run ratios through base/bench's RatioReporter, one line per ratio:
//   ratio: BENCH / BASELINE = 1.234 (cpu 1.200) (goal <= 2.00: met)
//   ratio: BENCH / BASELINE: not measured
// The runner collects those lines from every program and prints them as one table. The table keeps the ratio
// each goal is judged on (the median of repetitions, or the single run without repetitions) and drops the
// means, which RatioReporter prints beside the medians for reference only.
#ifndef HIPMEM_TOOLS_BENCH_TABLE_H_
#define HIPMEM_TOOLS_BENCH_TABLE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace hipmem::tools {

struct BenchRatio {
  std::string program;   // the benchmark program that printed it (its runfile path, e.g. "hip/hip_benchmark")
  std::string benchmark;
  std::string baseline;
  std::optional<double> ratio;  // real time; absent when not measured
  std::optional<double> cpu_ratio;
  std::optional<double> goal;   // absent when the ratio is only reported
  bool met = false;             // meaningful only with a goal
};

// The ratio lines of one program's output, in order; other lines are ignored. A line that starts as a ratio line but
// does not parse is an error (a changed RatioReporter format must not drop rows silently).
absl::StatusOr<std::vector<BenchRatio>> ParseRatioLines(absl::string_view program, absl::string_view output);

// One row per ratio: program, ratio, real, cpu, goal, verdict ("met", "MISSED", "reported", "not measured").
std::string FormatBenchTable(const std::vector<BenchRatio>& ratios);

// True when every goal in `ratios` was measured and met.
bool AllGoalsMet(const std::vector<BenchRatio>& ratios);

}  // namespace hipmem::tools

#endif  // HIPMEM_TOOLS_BENCH_TABLE_H_
