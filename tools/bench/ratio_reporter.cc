#include "tools/bench/ratio_reporter.h"

#include <cstdio>

namespace hipmem_bench {

void RatioReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    if (run.error_occurred || run.run_type != Run::RT_Iteration) continue;
    // Time per iteration in ns, whatever unit the benchmark prints in.
    real_ns_[run.benchmark_name()] = run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
  }
}

bool RatioReporter::PrintRatios() const {
  bool ok = true;
  for (const RatioGoal& goal : goals_) {
    auto b = real_ns_.find(goal.benchmark);
    auto base = real_ns_.find(goal.baseline);
    if (b == real_ns_.end() || base == real_ns_.end()) {
      std::printf("ratio: %s / %s: not measured\n", goal.benchmark.c_str(), goal.baseline.c_str());
      ok = false;
      continue;
    }
    const double ratio = b->second / base->second;
    if (goal.max_ratio > 0) {
      const bool met = ratio <= goal.max_ratio;
      ok = ok && met;
      std::printf("ratio: %s / %s = %.2f (goal <= %.2f: %s)\n", goal.benchmark.c_str(), goal.baseline.c_str(), ratio,
                  goal.max_ratio, met ? "met" : "MISSED");
    } else {
      std::printf("ratio: %s / %s = %.2f\n", goal.benchmark.c_str(), goal.baseline.c_str(), ratio);
    }
  }
  return ok;
}

}  // namespace hipmem_bench
