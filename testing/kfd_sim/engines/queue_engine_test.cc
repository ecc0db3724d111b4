#include "testing/kfd_sim/engines/queue_engine.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace hipmem::kfd_sim {
namespace {

using std::chrono::milliseconds;

// The smallest packet processor: the doorbell announces how many packets there are, and packet i counts one
// execution, waits while `hold` is set (as a POLL or a barrier would), faults at `fault_at`, and completes.
class CountingEngine final : public QueueEngine {
 public:
  explicit CountingEngine(bool valid = true)
      : QueueEngine("counting", /*doorbell=*/nullptr, /*idle_doorbell=*/0, /*initial_progress=*/0,
                    [this](uint64_t va) { faults.push_back(va); }),
        valid_(valid) {
    Start();
  }
  ~CountingEngine() override { Stop(); }

  std::atomic<int> executions{0};  // packets started, abandoned ones included
  std::atomic<bool> hold{false};
  std::atomic<uint64_t> fault_at{UINT64_MAX};
  // Written by the engine thread in its halt report; read after WaitIdle returned.
  std::vector<uint64_t> faults;
  int errors = 0;

 private:
  bool Validate() override { return valid_; }
  Outcome Process(uint64_t doorbell) override {
    if (doorbell <= next_) return Outcome::kNotReady;
    executions.fetch_add(1);
    while (hold.load()) {
      if (!SleepUnlessInterrupted(std::chrono::microseconds(100))) return Outcome::kStopped;
    }
    if (next_ == fault_at.load()) return Fault(0x1000 + next_);
    Advance(++next_);
    return Outcome::kDone;
  }
  void ReportError() override { ++errors; }
  bool CaughtUp(uint64_t progress, uint64_t doorbell) const override { return progress >= doorbell; }

  const bool valid_;
  uint64_t next_ = 0;  // engine thread only
};

void WaitForExecutions(const CountingEngine& engine, int count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (engine.executions.load() < count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_EQ(engine.executions.load(), count);
}

TEST(QueueEngineTest, RunsWhatTheDoorbellAnnounces) {
  CountingEngine engine;
  engine.RingDoorbell(3);
  ASSERT_TRUE(engine.WaitIdle());
  EXPECT_EQ(engine.progress(), 3u);
  EXPECT_EQ(engine.executions.load(), 3);
  EXPECT_FALSE(engine.halted());
}

TEST(QueueEngineTest, ASuspendedQueueRunsNothingAndResumeRunsWhatWasRungMeanwhileWithoutANewRing) {
  CountingEngine engine;
  engine.RingDoorbell(2);
  ASSERT_TRUE(engine.WaitIdle());

  engine.Suspend();
  EXPECT_TRUE(engine.suspended());
  engine.RingDoorbell(5);
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(engine.progress(), 2u) << "a suspended queue starts no packet";
  EXPECT_EQ(engine.executions.load(), 2);

  engine.Resume();  // no ring after this: the doorbell already says 5
  EXPECT_FALSE(engine.suspended());
  ASSERT_TRUE(engine.WaitIdle());
  EXPECT_EQ(engine.progress(), 5u);
}

TEST(QueueEngineTest, SuspendAbandonsAWaitingPacketWhichRunsAgainOnResume) {
  CountingEngine engine;
  engine.hold.store(true);
  engine.RingDoorbell(1);
  WaitForExecutions(engine, 1);

  engine.Suspend();  // returns although the packet's wait is not satisfied
  EXPECT_EQ(engine.progress(), 0u) << "the abandoned packet did not complete";
  engine.hold.store(false);
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(engine.executions.load(), 1) << "nothing runs while suspended";

  engine.Resume();
  ASSERT_TRUE(engine.WaitIdle());
  EXPECT_EQ(engine.progress(), 1u);
  EXPECT_EQ(engine.executions.load(), 2) << "the packet ran again from its start";
}

TEST(QueueEngineTest, DestructionAbandonsAWaitingPacket) {
  auto engine = std::make_unique<CountingEngine>();
  engine->hold.store(true);
  engine->RingDoorbell(1);
  WaitForExecutions(*engine, 1);
  engine.reset();  // returns: the wait gives up
}

TEST(QueueEngineTest, AVmFaultHaltsTheQueueOnceAndLaterDoorbellsAreIgnored) {
  CountingEngine engine;
  engine.fault_at.store(1);
  engine.RingDoorbell(3);
  EXPECT_FALSE(engine.WaitIdle());
  EXPECT_TRUE(engine.halted());
  EXPECT_EQ(engine.faults, std::vector<uint64_t>{0x1001});
  EXPECT_EQ(engine.progress(), 1u) << "where the faulting packet starts";

  engine.fault_at.store(UINT64_MAX);
  engine.RingDoorbell(10);
  engine.Suspend();
  engine.Resume();
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_TRUE(engine.halted()) << "a resumed halted queue stays halted";
  EXPECT_EQ(engine.executions.load(), 2);
  EXPECT_FALSE(engine.WaitIdle());
  EXPECT_EQ(engine.faults.size(), 1u);
}

TEST(QueueEngineTest, AQueueThatFailsValidationHaltsBeforeItsFirstPacket) {
  CountingEngine engine(/*valid=*/false);
  EXPECT_FALSE(engine.WaitIdle());
  EXPECT_EQ(engine.errors, 1);
  engine.RingDoorbell(1);
  std::this_thread::sleep_for(milliseconds(20));
  EXPECT_EQ(engine.executions.load(), 0);
}

}  // namespace
}  // namespace hipmem::kfd_sim
