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

TEST(RatioReporterTest, AFloorIsTakenOffBothSidesBeforeTheyAreCompared) {
  // 1000 ns of each row is the floor both must pay; ours adds 100 ns to it, the baseline 400 ns. The plain ratio
  // (1100 / 1400) hides that, the ratio above the floor shows it.
  const std::vector<BenchmarkRun> runs = {MakeRun("BM_Ours", 1100, 1050), MakeRun("BM_Base", 1400, 1250),
                                          MakeRun("BM_Floor", 1000, 1000)};
  auto [met_out, met] = Report({{"BM_Ours", "BM_Base", 0.3, "BM_Floor"}}, runs);
  EXPECT_TRUE(met);
  EXPECT_THAT(met_out, HasSubstr("ratio above floor: (BM_Ours - BM_Floor) / (BM_Base - BM_Floor) = 0.250 (cpu 0.200) "
                                 "(goal <= 0.30: met)\n"));

  auto [missed_out, missed] = Report({{"BM_Ours", "BM_Base", 0.2, "BM_Floor"}}, runs);
  EXPECT_FALSE(missed);
  EXPECT_THAT(missed_out, HasSubstr("= 0.250 (cpu 0.200) (goal <= 0.20: MISSED)"));
}

TEST(RatioReporterTest, ABaselineNotAboveItsFloorGivesNoRatioAndMissesItsGoal) {
  const std::vector<BenchmarkRun> runs = {MakeRun("BM_Ours", 1100, 1100), MakeRun("BM_Base", 990, 990),
                                          MakeRun("BM_Floor", 1000, 1000)};
  auto [out, ok] = Report({{"BM_Ours", "BM_Base", 0.8, "BM_Floor"}}, runs);
  EXPECT_FALSE(ok);
  EXPECT_THAT(out, HasSubstr("(BM_Base - BM_Floor): baseline not above the floor (-10.0 ns) (goal <= 0.80: MISSED)"));

  auto [report_only_out, report_only_ok] = Report({{"BM_Ours", "BM_Base", 0, "BM_Floor"}}, runs);
  EXPECT_TRUE(report_only_ok);
}

TEST(RatioReporterTest, AFloorThatDidNotRunLeavesTheRatioNotMeasured) {
  auto [out, ok] = Report({{"BM_Ours", "BM_Base", 0, "BM_Floor"}},
                          {MakeRun("BM_Ours", 100, 100), MakeRun("BM_Base", 200, 200)});
  EXPECT_FALSE(ok);
  EXPECT_THAT(out, HasSubstr("ratio above floor: (BM_Ours - BM_Floor) / (BM_Base - BM_Floor): not measured\n"));
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
