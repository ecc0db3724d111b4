// `hipmem bench`'s table reads what RatioReporter prints: the lines come from the reporter itself, so a change of
// its format fails here rather than dropping rows from the table.
#include "tools/bench_table.h"

#include <cstdio>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "base/bench/ratio_reporter.h"
#include "base/bench/test_runs.h"

namespace hipmem::tools {
namespace {

using ::testing::HasSubstr;
using BenchmarkRun = benchmark::BenchmarkReporter::Run;
using ::hipmem_bench::MakeRun;

// What a benchmark program prints: the console table, then the ratio lines.
std::string ProgramOutput(std::vector<hipmem_bench::RatioGoal> goals, const std::vector<BenchmarkRun>& runs) {
  hipmem_bench::RatioReporter reporter(std::move(goals));
  ::testing::internal::CaptureStdout();
  reporter.ReportRuns(runs);
  reporter.PrintRatios();
  std::fflush(stdout);
  return ::testing::internal::GetCapturedStdout();
}

TEST(BenchTableTest, KeepsEachGoalsMedianRowAndItsVerdict) {
  const std::string output = ProgramOutput(
      {{"BM_Fast", "BM_Base", 2.0}, {"BM_Slow", "BM_Base", 2.0}, {"BM_Info", "BM_Base", 0}},
      {MakeRun("BM_Base", 100, 100, "median"), MakeRun("BM_Base", 110, 100, "mean"),
       MakeRun("BM_Fast", 150, 140, "median"), MakeRun("BM_Fast", 900, 900, "mean"),
       MakeRun("BM_Slow", 250, 100, "median"), MakeRun("BM_Slow", 250, 100, "mean"),
       MakeRun("BM_Info", 1234.5, 617.25, "median"), MakeRun("BM_Info", 1, 1, "mean")});
  absl::StatusOr<std::vector<BenchRatio>> ratios = ParseRatioLines("hip/x_benchmark", output);
  ASSERT_TRUE(ratios.ok()) << ratios.status();
  ASSERT_EQ(ratios->size(), 3u);  // the means are dropped

  const BenchRatio& fast = (*ratios)[0];
  EXPECT_EQ(fast.program, "hip/x_benchmark");
  EXPECT_EQ(fast.benchmark, "BM_Fast_median");
  EXPECT_EQ(fast.baseline, "BM_Base_median");
  ASSERT_TRUE(fast.ratio.has_value());
  EXPECT_DOUBLE_EQ(*fast.ratio, 1.5);
  EXPECT_DOUBLE_EQ(*fast.cpu_ratio, 1.4);
  ASSERT_TRUE(fast.goal.has_value());
  EXPECT_DOUBLE_EQ(*fast.goal, 2.0);
  EXPECT_TRUE(fast.met);

  EXPECT_FALSE((*ratios)[1].met);
  EXPECT_DOUBLE_EQ(*(*ratios)[1].ratio, 2.5);
  EXPECT_FALSE((*ratios)[2].goal.has_value());  // reported only
  EXPECT_NEAR(*(*ratios)[2].ratio, 12.345, 0.001);

  EXPECT_FALSE(AllGoalsMet(*ratios));
  const std::vector<BenchRatio> without_slow = {(*ratios)[0], (*ratios)[2]};
  EXPECT_TRUE(AllGoalsMet(without_slow));

  const std::string table = FormatBenchTable(*ratios);
  EXPECT_THAT(table, HasSubstr("program          ratio"));
  EXPECT_THAT(table, HasSubstr("hip/x_benchmark  BM_Fast_median / BM_Base_median  1.500   1.400  <= 2.000  met\n"));
  EXPECT_THAT(table, HasSubstr("BM_Slow_median / BM_Base_median  2.500   1.000  <= 2.000  MISSED\n"));
  EXPECT_THAT(table, HasSubstr("BM_Info_median / BM_Base_median  12.345  6.172  -         reported\n"));
}

TEST(BenchTableTest, ASingleRunHasPlainNamesAndAMissingBenchmarkIsNotMeasured) {
  const std::string output = ProgramOutput({{"BM_Ours", "BM_Base", 3.0}, {"BM_Gone", "BM_Base", 1.0}},
                                           {MakeRun("BM_Base", 100, 100), MakeRun("BM_Ours", 200, 200)});
  absl::StatusOr<std::vector<BenchRatio>> ratios = ParseRatioLines("p", output);
  ASSERT_TRUE(ratios.ok()) << ratios.status();
  ASSERT_EQ(ratios->size(), 2u);
  EXPECT_EQ((*ratios)[0].benchmark, "BM_Ours");
  EXPECT_TRUE((*ratios)[0].met);
  EXPECT_EQ((*ratios)[1].benchmark, "BM_Gone");
  EXPECT_FALSE((*ratios)[1].ratio.has_value());
  EXPECT_FALSE(AllGoalsMet(*ratios));
  EXPECT_THAT(FormatBenchTable(*ratios), HasSubstr("not measured\n"));
}

TEST(BenchTableTest, ARatioLineItCannotReadIsAnError) {
  EXPECT_FALSE(ParseRatioLines("p", "ratio: A / B = fast (cpu 1.0)\n").ok());
  EXPECT_FALSE(ParseRatioLines("p", "ratio: A / B is 2\n").ok());
  absl::StatusOr<std::vector<BenchRatio>> none = ParseRatioLines("p", "BM_A  10 ns  10 ns  100\nratios follow\n");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

}  // namespace
}  // namespace hipmem::tools
