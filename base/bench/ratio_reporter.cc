#include "base/bench/ratio_reporter.h"

#include <cstdio>

namespace hipmem_bench {
namespace {

// The aggregates a ratio is printed for, the first one deciding goals. stddev and cv are not times.
constexpr const char* kAggregates[] = {"median", "mean"};

}  // namespace

void RatioReporter::ReportRuns(const std::vector<Run>& runs) {
  ConsoleReporter::ReportRuns(runs);
  for (const Run& run : runs) {
    failed_ = failed_ || run.error_occurred;
    if (run.error_occurred) continue;
    if (run.run_type == Run::RT_Aggregate) {
      bool wanted = false;
      for (const char* aggregate : kAggregates) wanted = wanted || run.aggregate_name == aggregate;
      if (!wanted) continue;
    }
    // Time per iteration in ns, whatever unit the benchmark prints in.
    const double multiplier = benchmark::GetTimeUnitMultiplier(run.time_unit);
    times_[run.benchmark_name()] = {run.GetAdjustedRealTime() / multiplier * 1e9,
                                    run.GetAdjustedCPUTime() / multiplier * 1e9};
  }
}

bool RatioReporter::PrintRatios() const {
  bool ok = true;
  for (const RatioGoal& goal : goals_) {
    // One (benchmark, baseline) name pair per aggregate that both have; the plain names otherwise.
    std::vector<std::pair<std::string, std::string>> rows;
    for (const char* aggregate : kAggregates) {
      const std::string suffix = std::string("_") + aggregate;
      if (times_.count(goal.benchmark + suffix) != 0 && times_.count(goal.baseline + suffix) != 0) {
        rows.emplace_back(goal.benchmark + suffix, goal.baseline + suffix);
      }
    }
    if (rows.empty() && times_.count(goal.benchmark) != 0 && times_.count(goal.baseline) != 0) {
      rows.emplace_back(goal.benchmark, goal.baseline);
    }
    if (rows.empty()) {
      std::printf("ratio: %s / %s: not measured\n", goal.benchmark.c_str(), goal.baseline.c_str());
      ok = false;
      continue;
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      const Times& b = times_.at(rows[i].first);
      const Times& base = times_.at(rows[i].second);
      const double ratio = b.real_ns / base.real_ns;
      const double cpu_ratio = base.cpu_ns > 0 ? b.cpu_ns / base.cpu_ns : 0;
      std::printf("ratio: %s / %s = %.3f (cpu %.3f)", rows[i].first.c_str(), rows[i].second.c_str(), ratio,
                  cpu_ratio);
      if (goal.max_ratio > 0 && i == 0) {
        const bool met = ratio <= goal.max_ratio;
        ok = ok && met;
        std::printf(" (goal <= %.2f: %s)", goal.max_ratio, met ? "met" : "MISSED");
      }
      std::printf("\n");
    }
  }
  return ok;
}

}  // namespace hipmem_bench
