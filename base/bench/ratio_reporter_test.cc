// RatioReporter turns Google Benchmark runs into the ratio lines and the verdict a benchmark binary exits with.
#include "base/bench/ratio_reporter.h"

#include <cstdio>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "base/bench/test_runs.h"

namespace hipmem_bench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using BenchmarkRun = benchmark::BenchmarkReporter::Run;

// Feeds `runs` to a reporter with `goals` and returns what PrintRatios printed and returned.
std::pair<std::string, bool> Report(std::vector<RatioGoal> goals, const std::vector<BenchmarkRun>& runs) {
  RatioReporter reporter(std::move(goals));
  ::testing::internal::CaptureStdout();
  reporter.ReportRuns(runs);
  std::fflush(stdout);
  (void)::testing::internal::GetCapturedStdout();  // the console table
  ::testing::internal::CaptureStdout();
  const bool ok = reporter.PrintRatios();
  std::fflush(stdout);
  return {::testing::internal::GetCapturedStdout(), ok};
}

TEST(RatioReporterTest, PrintsWallAndCpuRatiosAndJudgesTheGoalOnWallTime) {
  const std::vector<BenchmarkRun> runs = {MakeRun("BM_Ours", 200, 90), MakeRun("BM_Base", 100, 60)};
  auto [met_out, met] = Report({{"BM_Ours", "BM_Base", 3.0}}, runs);
  EXPECT_TRUE(met);
  EXPECT_THAT(met_out, HasSubstr("ratio: BM_Ours / BM_Base = 2.000 (cpu 1.500) (goal <= 3.00: met)"));

  auto [missed_out, missed] = Report({{"BM_Ours", "BM_Base", 1.5}}, runs);
  EXPECT_FALSE(missed);
  EXPECT_THAT(missed_out, HasSubstr("= 2.000 (cpu 1.500) (goal <= 1.50: MISSED)"));
}

TEST(RatioReporterTest, AReportOnlyRatioHasNoGoalAndNeverFails) {
  auto [out, ok] = Report({{"BM_Ours", "BM_Base", 0}}, {MakeRun("BM_Ours", 5000, 5000), MakeRun("BM_Base", 1, 1)});
  EXPECT_TRUE(ok);
  EXPECT_THAT(out, HasSubstr("ratio: BM_Ours / BM_Base = 5000.000 (cpu 5000.000)\n"));
}

TEST(RatioReporterTest, RepetitionsGiveARowPerAggregateAndTheMedianDecides) {
  // Five repetitions: the iteration rows, then the aggregates Google Benchmark adds. The mean is dragged up by
  // one slow repetition; the median is not, and it alone decides the goal.
  std::vector<BenchmarkRun> runs;
  for (int i = 0; i < 5; ++i) runs.push_back(MakeRun("BM_Ours", i == 4 ? 1000 : 100, 100));
  runs.push_back(MakeRun("BM_Ours", 100, 100, "median"));
  runs.push_back(MakeRun("BM_Ours", 280, 100, "mean"));
  runs.push_back(MakeRun("BM_Ours", 360, 0, "stddev"));
  for (int i = 0; i < 5; ++i) runs.push_back(MakeRun("BM_Base", 200, 200));
  runs.push_back(MakeRun("BM_Base", 200, 200, "median"));
  runs.push_back(MakeRun("BM_Base", 200, 200, "mean"));
  runs.push_back(MakeRun("BM_Base", 1, 0, "stddev"));

  auto [out, ok] = Report({{"BM_Ours", "BM_Base", 1.0}}, runs);
  EXPECT_TRUE(ok);
  EXPECT_THAT(out, HasSubstr("ratio: BM_Ours_median / BM_Base_median = 0.500 (cpu 0.500) (goal <= 1.00: met)\n"));
  EXPECT_THAT(out, HasSubstr("ratio: BM_Ours_mean / BM_Base_mean = 1.400 (cpu 0.500)\n"));
  EXPECT_THAT(out, Not(HasSubstr("stddev")));
  EXPECT_THAT(out, Not(HasSubstr("ratio: BM_Ours / BM_Base")));
}

TEST(RatioReporterTest, AMissingOrFailedBenchmarkIsNotMeasuredAndFails) {
  BenchmarkRun failed = MakeRun("BM_Ours", 100, 100);
  failed.error_occurred = true;
  auto [out, ok] = Report({{"BM_Ours", "BM_Base", 3.0}, {"BM_Base", "BM_Absent", 0}},
                          {failed, MakeRun("BM_Base", 100, 100)});
  EXPECT_FALSE(ok);
  EXPECT_THAT(out, HasSubstr("ratio: BM_Ours / BM_Base: not measured\n"));
  EXPECT_THAT(out, HasSubstr("ratio: BM_Base / BM_Absent: not measured\n"));
}

}  // namespace
}  // namespace hipmem_bench
