// The C++ side of signals: the Signal owner, where its amd_signal_t and event come from (SignalAllocator),
// the multi-signal waits' errors, and the handler thread's lifetime.
#include "hsa/signal.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <ctime>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/notification.h"
#include "hsa/async_signal_handler.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime.h"
#include "hsa/runtime_kfd.h"
#include "hsa/signal_allocator.h"
#include "testing/status_matchers.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST(ConditionTest, EachConditionComparesAsHsaSays) {
  struct Row {
    SignalCondition condition;
    SignalValue value, compare;
    bool holds;
  };
  constexpr Row kRows[] = {
      {SignalCondition::kEq, 3, 3, true},    {SignalCondition::kEq, 3, 4, false},
      {SignalCondition::kNe, 3, 4, true},    {SignalCondition::kNe, 3, 3, false},
      {SignalCondition::kLt, -1, 0, true},   {SignalCondition::kLt, 0, 0, false},
      {SignalCondition::kGte, 0, 0, true},   {SignalCondition::kGte, -1, 0, false},
      {static_cast<SignalCondition>(4), 0, 0, false},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(testing::Message() << static_cast<int>(row.condition) << " " << row.value << " " << row.compare);
    EXPECT_EQ(ConditionHolds(row.condition, row.value, row.compare), row.holds);
  }
  EXPECT_FALSE(IsValidCondition(static_cast<SignalCondition>(4)));
}

class SignalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(runtime_, Runtime::Create());
    allocator_ = std::make_unique<SignalAllocator>(KfdOf(*runtime_), /*interrupts=*/true);
  }
  void TearDown() override {
    allocator_.reset();  // before the runtime's KFD
  }

  Signal Make(SignalValue value, SignalKind kind = SignalKind::kInterrupt) {
    absl::StatusOr<Signal> s = Signal::Create(*allocator_, value, kind);
    EXPECT_THAT(s, IsOk());
    return *std::move(s);
  }

  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<SignalAllocator> allocator_;
};

TEST_F(SignalTest, DroppingTheOwnerDestroysTheSignal) {
  std::optional<SignalRef> kept;
  {
    Signal s = Make(4);
    kept = s.ref();
    EXPECT_FALSE(kept->destroyed());
  }
  EXPECT_TRUE(kept->destroyed());
  // The memory stays readable for the reference, and a wait on it returns 0 at once.
  EXPECT_EQ(kept->Load(MemoryOrder::kAcquire), 4);
  EXPECT_EQ(kept->Wait(SignalCondition::kEq, 5, absl::InfiniteDuration(), WaitHint::kBlocked), 0);
}

TEST_F(SignalTest, MoveEmptiesTheSourceAndMoveAssignDestroysTheOldSignal) {
  Signal a = Make(1);
  const SignalRef a_ref = a.ref();
  Signal b(std::move(a));
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_FALSE(b.empty());
  EXPECT_EQ(b->handle(), a_ref.handle());
  EXPECT_FALSE(a_ref.destroyed());

  Signal c = Make(2);
  const SignalRef c_ref = c.ref();
  c = std::move(b);
  EXPECT_TRUE(c_ref.destroyed());
  EXPECT_FALSE(a_ref.destroyed());
  EXPECT_EQ(c->handle(), a_ref.handle());

  Signal& alias = c;
  c = std::move(alias);
  EXPECT_FALSE(c.empty());
  EXPECT_FALSE(a_ref.destroyed());

  EXPECT_THAT(std::move(c).Free(), IsOk());
  EXPECT_TRUE(a_ref.destroyed());
  EXPECT_THAT(std::move(c).Free(), IsOk());  // empty now
}

TEST_F(SignalTest, SlotsAndEventsAreRecycledOnceTheLastReferenceGoes) {
  SignalHandle handle(0);
  std::optional<uint32_t> event;
  {
    Signal s = Make(0);
    handle = s->handle();
    event = s->event_id();
    ASSERT_TRUE(event.has_value());
  }
  const Signal again = Make(7);
  EXPECT_EQ(again->handle(), handle);
  EXPECT_EQ(again->event_id(), event);
  EXPECT_EQ(again->Load(MemoryOrder::kRelaxed), 7);
  const auto* abi = reinterpret_cast<const AmdSignal*>(handle.raw());
  EXPECT_EQ(abi->kind, 1);
  EXPECT_EQ(abi->event_id, *event);
}

TEST_F(SignalTest, ADestroyedSlotReadsAsAnInvalidKind) {
  SignalHandle handle(0);
  {
    Signal s = Make(0);
    handle = s->handle();
  }
  EXPECT_EQ(reinterpret_cast<const AmdSignal*>(handle.raw())->kind, 0);  // AMD_SIGNAL_KIND_INVALID
}

TEST_F(SignalTest, SignalMemoryIsMappedOnEveryGpuAndGrowsInBlocks) {
  std::vector<Signal> signals;
  for (int i = 0; i < 70; ++i) signals.push_back(Make(i));  // more than the first 4 KiB block holds
  std::vector<thunk::NodeId> gpus;
  for (const Agent& a : runtime_->agents()) {
    if (a.type == DeviceType::kGpu) gpus.push_back(KfdNodeOf(*runtime_, a));
  }
  ASSERT_FALSE(gpus.empty());
  for (int i = 0; i < 70; ++i) {
    const SignalHandle h = signals[i]->handle();
    EXPECT_EQ(h.raw() % 64, 0u);
    const thunk::PointerInfo info = KfdOf(*runtime_).QueryPointerInfo(reinterpret_cast<const void*>(h.raw()));
    ASSERT_EQ(info.type, thunk::PointerType::kAllocated);
    EXPECT_TRUE(thunk::HasFlag(info.flags, thunk::MemFlags::kNonPaged));
    EXPECT_TRUE(thunk::HasFlag(info.flags, thunk::MemFlags::kHostAccess));
    for (thunk::NodeId gpu : gpus) EXPECT_THAT(info.mapped_nodes, Contains(gpu));
    EXPECT_EQ(signals[i]->Load(MemoryOrder::kRelaxed), i);
  }
}

TEST_F(SignalTest, DefaultSignalsAndAllocatorsWithoutInterruptsHaveNoEvent) {
  const Signal gpu_only = Make(0, SignalKind::kDefault);
  EXPECT_EQ(gpu_only->kind(), SignalKind::kDefault);
  EXPECT_EQ(gpu_only->event_id(), std::nullopt);
  SignalAllocator polled(KfdOf(*runtime_), /*interrupts=*/false);
  ASSERT_OK_AND_ASSIGN(const Signal s, Signal::Create(polled, 0, SignalKind::kInterrupt));
  EXPECT_EQ(s->kind(), SignalKind::kDefault);
  EXPECT_EQ(s->event_id(), std::nullopt);
}

TEST_F(SignalTest, InterruptSignalsBeyondTheKfdsEventsArePolled) {
  // The process has 4095 signal events; the engines' and this test's other events take some.
  std::vector<Signal> signals;
  size_t with_event = 0;
  for (int i = 0; i < 4100; ++i) {
    signals.push_back(Make(0));
    if (signals.back()->event_id().has_value()) ++with_event;
  }
  EXPECT_GT(with_event, 4000u);
  EXPECT_LT(with_event, 4100u);
  const SignalRef last = signals.back().ref();
  EXPECT_EQ(last.kind(), SignalKind::kInterrupt);
  ASSERT_EQ(last.event_id(), std::nullopt);
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(10));
    last.Store(1, MemoryOrder::kRelease);
  });
  EXPECT_EQ(last.Wait(SignalCondition::kEq, 1, absl::Seconds(10), WaitHint::kBlocked), 1);
  setter.join();
}

TEST_F(SignalTest, MultiSignalWaitsReportTheirErrors) {
  const Signal a = Make(0);
  std::vector<SignalWait> none;
  EXPECT_THAT(WaitAny(none, absl::ZeroDuration(), WaitHint::kBlocked), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(WaitAll(none, absl::ZeroDuration(), WaitHint::kBlocked), StatusIs(absl::StatusCode::kInvalidArgument));
  const SignalWait bad[] = {{a.ref(), static_cast<SignalCondition>(9), 0}};
  EXPECT_THAT(WaitAny(bad, absl::ZeroDuration(), WaitHint::kBlocked),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("condition 9")));
  const SignalWait unmet[] = {{a.ref(), SignalCondition::kEq, 1}};
  EXPECT_THAT(WaitAny(unmet, absl::Milliseconds(1), WaitHint::kBlocked),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_THAT(WaitAll(unmet, absl::Milliseconds(1), WaitHint::kActive),
              StatusIs(absl::StatusCode::kDeadlineExceeded));

  Signal doomed = Make(0);
  const SignalWait on_doomed[] = {{a.ref(), SignalCondition::kEq, 1}, {doomed.ref(), SignalCondition::kEq, 1}};
  std::thread destroyer([&] {
    absl::SleepFor(absl::Milliseconds(10));
    EXPECT_THAT(std::move(doomed).Free(), IsOk());
  });
  const absl::StatusOr<WaitAnyResult> woke = WaitAny(on_doomed, absl::InfiniteDuration(), WaitHint::kBlocked);
  destroyer.join();
  EXPECT_THAT(woke, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("signal 1")));
  EXPECT_EQ(ToHsaStatus(woke.status()), HSA_STATUS_ERROR_INVALID_SIGNAL);
}

// A BLOCKED wait sleeps on the signal's KFD event instead of spinning (issue #8): waiting 100 ms costs its thread
// a small fraction of that in CPU time. The value a thread sets still ends it.
TEST_F(SignalTest, BlockedWaitsSleepInsteadOfSpinning) {
  const Signal s = Make(1);
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(100));
    s.ref().Store(0, MemoryOrder::kRelease);
  });
  timespec before{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &before);
  const SignalValue seen = s.ref().Wait(SignalCondition::kEq, 0, absl::Seconds(10), WaitHint::kBlocked);
  timespec after{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &after);
  setter.join();
  EXPECT_EQ(seen, 0);
  const absl::Duration cpu = absl::DurationFromTimespec(after) - absl::DurationFromTimespec(before);
  EXPECT_LT(cpu, absl::Milliseconds(25)) << "the waiting thread burnt " << cpu << " of CPU in a 100 ms wait";
}

TEST_F(SignalTest, AsyncHandlerRunsFunctionsInOrderAndRefusesWorkOnceStopped) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<AsyncSignalHandler> handler, AsyncSignalHandler::Start(*allocator_));
  std::vector<int> order;
  hipmem_testing::Notification done;
  for (int i = 0; i < 3; ++i) ASSERT_THAT(handler->Run([&order, i] { order.push_back(i); }), IsOk());
  ASSERT_THAT(handler->Run([&done] { done.Notify(); }), IsOk());
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));

  const Signal s = Make(0);
  std::atomic<int> calls{0};
  ASSERT_THAT(handler->Register(s.ref(), SignalCondition::kEq, 1, [&](SignalValue) { return ++calls < 0; }), IsOk());
  EXPECT_THAT(handler->Register(s.ref(), static_cast<SignalCondition>(5), 1, [](SignalValue) { return false; }),
              StatusIs(absl::StatusCode::kInvalidArgument));
  handler->Stop();
  handler->Stop();  // idempotent
  s->Store(1, MemoryOrder::kRelease);
  absl::SleepFor(absl::Milliseconds(10));
  EXPECT_EQ(calls, 0);
  EXPECT_THAT(handler->Register(s.ref(), SignalCondition::kEq, 1, [](SignalValue) { return false; }),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(handler->Run([] {}), StatusIs(absl::StatusCode::kFailedPrecondition));
}

}  // namespace
}  // namespace hipmem::hsa
