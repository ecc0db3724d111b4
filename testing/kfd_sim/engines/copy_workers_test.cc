#include "testing/kfd_sim/engines/copy_workers.h"

#include <atomic>
#include <cstdint>
#include <latch>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace hipmem::kfd_sim {
namespace {

TEST(CopyWorkersTest, EveryPieceRunsOnceAndHasLandedOnReturn) {
  CopyWorkers workers(3);
  for (uint64_t count : {0u, 1u, 2u, 7u, 1000u}) {
    std::vector<uint32_t> calls(count, 0);  // plain stores: the return must order them before the reads below
    workers.ParallelFor(count, [&](uint64_t i) { ++calls[i]; });
    for (uint64_t i = 0; i < count; ++i) EXPECT_EQ(calls[i], 1u) << "piece " << i << " of " << count;
  }
}

TEST(CopyWorkersTest, ThreadsStartWithTheFirstSplitTransfer) {
  CopyWorkers workers(2);
  workers.ParallelFor(1, [](uint64_t) {});
  EXPECT_EQ(workers.started_threads(), 0) << "one piece runs on its caller";
  workers.ParallelFor(4, [](uint64_t) {});
  EXPECT_EQ(workers.started_threads(), 2);
}

TEST(CopyWorkersTest, PiecesRunAtOnce) {
  // Each piece waits for the other to start: only two threads at once finish this.
  CopyWorkers workers(1);
  std::latch both(2);
  workers.ParallelFor(2, [&](uint64_t) { both.arrive_and_wait(); });
  EXPECT_TRUE(both.try_wait());
}

TEST(CopyWorkersTest, WithoutWorkersEveryPieceRunsOnTheCaller) {
  CopyWorkers workers(0);
  const std::thread::id caller = std::this_thread::get_id();
  int on_caller = 0;
  workers.ParallelFor(5, [&](uint64_t) { on_caller += std::this_thread::get_id() == caller ? 1 : 0; });
  EXPECT_EQ(on_caller, 5);
  EXPECT_EQ(workers.started_threads(), 0);
}

TEST(CopyWorkersTest, ConcurrentCallersEachFinishTheirOwn) {
  // More callers than workers, and pieces that wait for every caller to be inside: a caller whose pieces only
  // workers could run would never finish.
  constexpr int kCallers = 4;
  constexpr uint64_t kPieces = 64;
  CopyWorkers workers(1);
  std::latch inside(kCallers);
  std::vector<std::vector<std::atomic<uint32_t>>> calls(kCallers);
  for (auto& c : calls) c = std::vector<std::atomic<uint32_t>>(kPieces);
  std::vector<std::thread> callers;
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&, t] {
      workers.ParallelFor(kPieces, [&](uint64_t i) {
        if (i == 0) inside.arrive_and_wait();
        calls[t][i].fetch_add(1);
      });
    });
  }
  for (std::thread& c : callers) c.join();
  for (int t = 0; t < kCallers; ++t) {
    for (uint64_t i = 0; i < kPieces; ++i) EXPECT_EQ(calls[t][i].load(), 1u) << "caller " << t << " piece " << i;
  }
}

}  // namespace
}  // namespace hipmem::kfd_sim
