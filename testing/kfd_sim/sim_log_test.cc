// The kernel log's own contract: dmesg's line format, the bounded ring, the ratelimit window, and
// concurrent writers and readers.
#include "testing/kfd_sim/sim_log.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "base/units.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace hipmem::kfd_sim {
namespace {

using std::chrono::microseconds;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;

// A clock the test moves by hand. Atomic: the log reads it under its own lock, from any thread.
class FakeClock {
 public:
  SimLog::Clock clock() {
    return [this] { return microseconds(now_us_.load()); };
  }
  void Advance(microseconds d) { now_us_ += d.count(); }

 private:
  std::atomic<int64_t> now_us_{0};
};

std::vector<std::string> Texts(const SimLog& log) {
  std::vector<std::string> texts;
  for (const SimLogLine& line : log.Lines()) texts.push_back(line.text);
  return texts;
}

TEST(SimLogTest, LinesAreFormattedLikeDmesgWithTheirLevel) {
  EXPECT_EQ(FormatLogLine(SimLogLine{
                .sequence = 0, .time = microseconds(1234567), .level = SimLogLevel::kInfo, .text = "kfd_sim: hello"}),
            "[    1.234567] info : kfd_sim: hello");
  EXPECT_EQ(
      FormatLogLine(SimLogLine{.sequence = 9, .time = microseconds(42), .level = SimLogLevel::kError, .text = "fault"}),
      "[    0.000042] err  : fault");
  // Past five digits of seconds the field grows instead of truncating.
  EXPECT_EQ(FormatLogLine(SimLogLine{
                .sequence = 1, .time = microseconds(123456000001), .level = SimLogLevel::kDebug, .text = "x"}),
            "[123456.000001] debug: x");
}

TEST(SimLogTest, LinesCarryTheClockTimeAndAnIncreasingSequence) {
  FakeClock clock;
  SimLog log(8, clock.clock());
  log.Write(SimLogLevel::kInfo, "a");
  clock.Advance(microseconds(1500));
  log.Write(SimLogLevel::kWarning, "b");
  const std::vector<SimLogLine> lines = log.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].sequence, 0u);
  EXPECT_EQ(lines[0].time, microseconds(0));
  EXPECT_EQ(lines[1].sequence, 1u);
  EXPECT_EQ(lines[1].time, microseconds(1500));
  EXPECT_EQ(lines[1].level, SimLogLevel::kWarning);
  EXPECT_EQ(log.Format(), "[    0.000000] info : a\n[    0.001500] warn : b\n");
}

TEST(SimLogTest, AFullRingDropsItsOldestLines) {
  FakeClock clock;
  SimLog log(3, clock.clock());
  for (int i = 0; i < 5; ++i) log.Write(SimLogLevel::kInfo, std::to_string(i));
  EXPECT_THAT(Texts(log), ElementsAre("2", "3", "4"));
  EXPECT_EQ(log.dropped(), 2u);
  // The sequence numbers keep counting, so a reader sees how many lines it missed.
  EXPECT_EQ(log.Lines().front().sequence, 2u);
}

TEST(SimLogTest, TheRatelimitAllowsABurstPerWindowAndCountsTheRest) {
  FakeClock clock;
  SimLog log(64, clock.clock());
  int written = 0;
  for (int i = 0; i < 15; ++i) written += log.WriteRatelimited(SimLogLevel::kDebug, std::to_string(i)) ? 1 : 0;
  EXPECT_EQ(written, static_cast<int>(SimLog::kRatelimitBurst));
  // Plain lines are never held back by the ratelimit.
  log.Write(SimLogLevel::kInfo, "plain");
  EXPECT_EQ(log.Lines().size(), SimLog::kRatelimitBurst + 1);

  clock.Advance(SimLog::kRatelimitInterval - microseconds(1));
  EXPECT_FALSE(log.WriteRatelimited(SimLogLevel::kDebug, "still the same window"));
  clock.Advance(microseconds(1));
  EXPECT_TRUE(log.WriteRatelimited(SimLogLevel::kDebug, "next window"));
  const std::vector<std::string> texts = Texts(log);
  ASSERT_GE(texts.size(), 2u);
  EXPECT_THAT(texts[texts.size() - 2], HasSubstr("6 lines suppressed"));
  EXPECT_EQ(texts.back(), "next window");
}

TEST(SimLogTest, SizesReadAsTheLargestExactUnit) {
  constexpr struct Row {
    uint64_t bytes;
    const char* text;
  } kRows[] = {
      {0, "0 B"},
      {1000, "1000 B"},
      {4096, "4 KiB"},
      {uint64_t{3} << 19, "1536 KiB"},
      {uint64_t{2} << 20, "2 MiB"},
      {uint64_t{192} << 30, "192 GiB"},
      {uint64_t{1} << 40, "1 TiB"},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(row.bytes);
    EXPECT_EQ(SizeText(Bytes(row.bytes)), row.text);
  }
}

// Under TSan this is the check that writers, ratelimited writers and readers share the ring safely; in
// every build, that no line is lost or reordered between the threads.
TEST(SimLogTest, ConcurrentWritersAndReadersKeepTheRingConsistent) {
  FakeClock clock;  // stopped: the whole test is one ratelimit window however slow the sanitizer makes it
  SimLog log(256, clock.clock());
  constexpr int kWriters = 4;
  constexpr int kLinesEach = 500;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      const std::vector<SimLogLine> lines = log.Lines();
      for (size_t i = 1; i < lines.size(); ++i) {
        ASSERT_EQ(lines[i].sequence, lines[i - 1].sequence + 1);
      }
      (void)log.Format();
    }
  });
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&log, w] {
      for (int i = 0; i < kLinesEach; ++i) {
        log.Write(SimLogLevel::kInfo, std::to_string(w));
        log.WriteRatelimited(SimLogLevel::kDebug, "limited");
      }
    });
  }
  for (std::thread& t : writers) t.join();
  done = true;
  reader.join();

  const std::vector<SimLogLine> lines = log.Lines();
  EXPECT_EQ(lines.size(), 256u);
  // Every plain line and the one burst of ratelimited lines went through the ring.
  EXPECT_EQ(log.dropped() + lines.size(), uint64_t{kWriters} * kLinesEach + SimLog::kRatelimitBurst);
  EXPECT_THAT(lines.back(), Field(&SimLogLine::sequence, log.dropped() + lines.size() - 1));
}

}  // namespace
}  // namespace hipmem::kfd_sim
