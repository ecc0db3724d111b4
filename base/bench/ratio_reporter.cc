#include "base/bench/ratio_reporter.h"

#include <cstdio>
#include <string>
#include <vector>

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
    const bool has_floor = !goal.floor.empty();
    // One (benchmark, baseline, floor) name triple per aggregate that all have; the plain names otherwise.
    struct Names {
      std::string benchmark, baseline, floor;
    };
    auto measured = [&](const std::string& suffix) {
      return times_.count(goal.benchmark + suffix) != 0 && times_.count(goal.baseline + suffix) != 0 &&
             (!has_floor || times_.count(goal.floor + suffix) != 0);
    };
    std::vector<Names> rows;
    for (const char* aggregate : kAggregates) {
      const std::string suffix = std::string("_") + aggregate;
      if (measured(suffix)) rows.push_back({goal.benchmark + suffix, goal.baseline + suffix, goal.floor + suffix});
    }
    if (rows.empty() && measured("")) rows.push_back({goal.benchmark, goal.baseline, goal.floor});
    if (rows.empty()) {
      if (has_floor) {
        std::printf("ratio above floor: (%s - %s) / (%s - %s): not measured\n", goal.benchmark.c_str(),
                    goal.floor.c_str(), goal.baseline.c_str(), goal.floor.c_str());
      } else {
        std::printf("ratio: %s / %s: not measured\n", goal.benchmark.c_str(), goal.baseline.c_str());
      }
      ok = false;
      continue;
    }
    for (size_t i = 0; i < rows.size(); ++i) {
      Times b = times_.at(rows[i].benchmark);
      Times base = times_.at(rows[i].baseline);
      if (has_floor) {
        const Times& floor = times_.at(rows[i].floor);
        b = {b.real_ns - floor.real_ns, b.cpu_ns - floor.cpu_ns};
        base = {base.real_ns - floor.real_ns, base.cpu_ns - floor.cpu_ns};
        std::printf("ratio above floor: (%s - %s) / (%s - %s)", rows[i].benchmark.c_str(), rows[i].floor.c_str(),
                    rows[i].baseline.c_str(), rows[i].floor.c_str());
      } else {
        std::printf("ratio: %s / %s", rows[i].benchmark.c_str(), rows[i].baseline.c_str());
      }
      // A baseline at or under its floor has no cost of its own to compare with: no ratio, and a goal is missed.
      if (base.real_ns <= 0) {
        std::printf(": baseline not above the floor (%.1f ns)", base.real_ns);
        if (goal.max_ratio > 0 && i == 0) {
          ok = false;
          std::printf(" (goal <= %.2f: MISSED)", goal.max_ratio);
        }
        std::printf("\n");
        continue;
      }
      const double ratio = b.real_ns / base.real_ns;
      const double cpu_ratio = base.cpu_ns > 0 ? b.cpu_ns / base.cpu_ns : 0;
      std::printf(" = %.3f (cpu %.3f)", ratio, cpu_ratio);
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
