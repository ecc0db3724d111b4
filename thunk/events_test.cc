// The thunk's event API (events.h) against a fresh simulated machine per test: kfdtest's KFDEventTest
// behaviours that need no queue, the Event owner's contract, and the errors libhsakmt reports.
#include "thunk/events.h"

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/status_matchers.h"
#include "thunk/errno_status.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

namespace hipmem::thunk {
namespace {

using ::hipmem_testing::IsOk;
using ::hipmem_testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr NodeId kGpuNode(1);
constexpr uint32_t kMaxSignalEvents = kfd_uapi::kSignalEventLimit - 1;  // id 0 is reserved

// A Kfd plus the simulated process behind it.
struct Process {
  std::unique_ptr<Kfd> kfd;
  kfd_sim::SimFile* file;  // owned by kfd's device
  uint64_t sim_id;
};

Process OpenProcess(const std::shared_ptr<SimMachine>& machine) {
  absl::StatusOr<std::unique_ptr<KfdDevice>> opened = OpenSimKfdDevice(machine);
  EXPECT_THAT(opened, IsOk());
  std::unique_ptr<KfdDevice> device = *std::move(opened);
  kfd_sim::SimFile* file = SimulatedFile(*device);
  const uint64_t sim_id = machine->simulator().Snapshot().processes.back().id;
  absl::StatusOr<std::unique_ptr<Kfd>> kfd = Kfd::Open(std::move(device));
  EXPECT_THAT(kfd, IsOk());
  return Process{kfd.ok() ? *std::move(kfd) : nullptr, file, sim_id};
}

EventDescriptor Signal(bool manual_reset = false, bool initially_signaled = false) {
  return EventDescriptor{.type = EventType::kSignal, .node = kGpuNode, .manual_reset = manual_reset,
                         .initially_signaled = initially_signaled};
}

class EventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(machine_, SimMachine::Create(kfd_sim::DefaultTopology()));
    process_ = OpenProcess(machine_);
    ASSERT_NE(process_.kfd, nullptr);
  }

  Kfd& kfd() { return *process_.kfd; }
  const kfd_sim::SimProcess* SimState(uint64_t sim_id) {
    snapshot_ = machine_->simulator().Snapshot();
    for (const kfd_sim::SimProcess& p : snapshot_.processes) {
      if (p.id == sim_id) return &p;
    }
    return nullptr;
  }
  std::vector<kfd_sim::SimEvent> SimEvents() { return SimState(process_.sim_id)->events; }

  // Blocks until `id` has `waiters` sleeping waits in the kernel: a synchronisation point on the
  // simulator's state, not a timing assumption.
  void AwaitWaiters(EventId id, size_t waiters) {
    while (true) {
      for (const kfd_sim::SimEvent& e : SimEvents()) {
        if (e.id == id.raw() && e.waiters == waiters) return;
      }
      std::this_thread::yield();
    }
  }

  std::shared_ptr<SimMachine> machine_;
  Process process_;
  kfd_sim::SimSnapshot snapshot_;
};

// ---- kfdtest KFDEventTest ----

TEST_F(EventsTest, CreateDestroyEvent) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  EXPECT_NE(event.handle().mailbox, nullptr) << "kfdtest: HWData2 != 0";
  EXPECT_EQ(event.handle().trigger_data, event.id().raw());
  EXPECT_EQ(*event.handle().mailbox, kfd_uapi::kUnsignaledEventSlot);
  EXPECT_THAT(SimEvents(), SizeIs(1));
  EXPECT_THAT(std::move(event).Free(), IsOk());
  EXPECT_THAT(SimEvents(), IsEmpty());
}

TEST_F(EventsTest, FirstEventHandsTheKernelAGttEventPageItThenKeeps) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  const std::optional<Kfd::AllocationInfo> page =
      kfd().FindAllocation(DeviceAddress::FromPointer(event.handle().mailbox));
  ASSERT_TRUE(page.has_value());
  EXPECT_EQ(page->range.size, Bytes(kfd_uapi::kSignalEventLimit * 8));
  EXPECT_FALSE(page->is_vram);
  EXPECT_THAT(page->mapped_gpus, SizeIs(1));
  EXPECT_EQ(DeviceAddress::FromPointer(event.handle().mailbox), page->range.base + Bytes(event.id().raw() * 8));
  // The kernel refuses to free the page it now uses; close() releases it.
  const absl::Status freed = kfd().FreeMemory(page->range.base);
  EXPECT_THAT(freed, StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_EQ(ToHsakmtStatus(freed), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ErrnoOf(freed), EPERM);
  // Later events share the page.
  ASSERT_OK_AND_ASSIGN(Event second, Event::Create(kfd(), Signal()));
  EXPECT_EQ(second.handle().mailbox, event.handle().mailbox + 1);
  EXPECT_THAT(kfd_sim::BosButMmioPages(*SimState(process_.sim_id)), SizeIs(1));
}

TEST_F(EventsTest, CreateMaxEvents) {
  // kfdtest: 256 events, then destroy them all.
  std::vector<Event> events;
  for (int i = 0; i < 256; ++i) {
    ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
    events.push_back(std::move(event));
  }
  for (Event& event : events) EXPECT_THAT(std::move(event).Free(), IsOk());
  EXPECT_THAT(SimEvents(), IsEmpty());
}

TEST_F(EventsTest, SignalSlotsRunOutAfterFourThousandNinetyFive) {
  std::vector<Event> events;
  events.reserve(kMaxSignalEvents);
  for (uint32_t i = 0; i < kMaxSignalEvents; ++i) {
    ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
    events.push_back(std::move(event));
  }
  const absl::StatusOr<Event> one_more = Event::Create(kfd(), Signal());
  EXPECT_THAT(one_more, StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("AMDKFD_IOC_CREATE_EVENT")));
  EXPECT_EQ(ToHsakmtStatus(one_more.status()), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ErrnoOf(one_more.status()), ENOSPC);
  // System events take no slot.
  EXPECT_THAT(Event::Create(kfd(), EventDescriptor{.type = EventType::kMemory}), IsOk());
}

TEST_F(EventsTest, SignalMaxEvents) {
  // kfdtest signals 4096 events through a queue (the last creation fails unnoticed); here the CPU sets
  // every slot's event and one wait collects them all.
  std::vector<Event> events;
  events.reserve(kMaxSignalEvents);
  for (uint32_t i = 0; i < kMaxSignalEvents; ++i) {
    ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
    events.push_back(std::move(event));
  }
  std::vector<const Event*> all;
  for (const Event& event : events) {
    ASSERT_THAT(event.Set(), IsOk());
    all.push_back(&event);
  }
  EXPECT_THAT(Event::WaitMultiple(all, WaitMode::kAll, absl::ZeroDuration()), IsOk());
  // The auto-reset signals are consumed.
  EXPECT_THAT(events.front().Wait(absl::ZeroDuration()), StatusIs(absl::StatusCode::kDeadlineExceeded));
}

// ---- semantics ----

TEST_F(EventsTest, SetThenWaitCompletes) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  ASSERT_THAT(event.Set(), IsOk());
  ASSERT_OK_AND_ASSIGN(WaitResult result, event.Wait(absl::InfiniteDuration()));
  ASSERT_THAT(result.memory_faults, SizeIs(1));
  EXPECT_FALSE(result.memory_faults[0].has_value());
}

TEST_F(EventsTest, WaitTimesOutAfterTheTimeout) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  const auto start = std::chrono::steady_clock::now();
  const absl::StatusOr<WaitResult> result = event.Wait(absl::Milliseconds(50));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("timeout_ms=50")));
  EXPECT_EQ(ToHsakmtStatus(result.status()), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_GE(elapsed, std::chrono::milliseconds(50));
  EXPECT_LT(elapsed, std::chrono::seconds(30));
}

TEST_F(EventsTest, AutoResetIsConsumedByOneWait) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal(/*manual_reset=*/false)));
  ASSERT_THAT(event.Set(), IsOk());
  EXPECT_THAT(event.Wait(absl::ZeroDuration()), IsOk());
  EXPECT_THAT(event.Wait(absl::ZeroDuration()), StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST_F(EventsTest, ManualResetStaysSignaledUntilReset) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal(/*manual_reset=*/true)));
  ASSERT_THAT(event.Set(), IsOk());
  EXPECT_THAT(event.Wait(absl::ZeroDuration()), IsOk());
  EXPECT_THAT(event.Wait(absl::ZeroDuration()), IsOk());
  ASSERT_THAT(event.Reset(), IsOk());
  EXPECT_THAT(event.Wait(absl::ZeroDuration()), StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST_F(EventsTest, InitiallySignaledEventCompletesAWait) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal(false, /*initially_signaled=*/true)));
  EXPECT_THAT(event.Wait(absl::ZeroDuration()), IsOk());
  // A system event ignores the request, as upstream.
  ASSERT_OK_AND_ASSIGN(Event memory, Event::Create(kfd(), EventDescriptor{.type = EventType::kMemory,
                                                                          .initially_signaled = true}));
  EXPECT_THAT(memory.Wait(absl::ZeroDuration()), StatusIs(absl::StatusCode::kDeadlineExceeded));
}

TEST_F(EventsTest, WaitAnyReturnsWhenAnotherThreadSetsOne) {
  ASSERT_OK_AND_ASSIGN(Event a, Event::Create(kfd(), Signal()));
  ASSERT_OK_AND_ASSIGN(Event b, Event::Create(kfd(), Signal()));
  std::thread setter([&] {
    AwaitWaiters(b.id(), 1);
    EXPECT_THAT(b.Set(), IsOk());
  });
  const std::array<const Event*, 2> both = {&a, &b};
  const absl::StatusOr<WaitResult> result = Event::WaitMultiple(both, WaitMode::kAny, absl::InfiniteDuration());
  setter.join();
  EXPECT_THAT(result, IsOk());
}

TEST_F(EventsTest, WaitAllNeedsAll) {
  ASSERT_OK_AND_ASSIGN(Event a, Event::Create(kfd(), Signal(/*manual_reset=*/true)));
  ASSERT_OK_AND_ASSIGN(Event b, Event::Create(kfd(), Signal(/*manual_reset=*/true)));
  const std::array<const Event*, 2> both = {&a, &b};
  ASSERT_THAT(a.Set(), IsOk());
  EXPECT_THAT(Event::WaitMultiple(both, WaitMode::kAll, absl::ZeroDuration()),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  EXPECT_THAT(Event::WaitMultiple(both, WaitMode::kAny, absl::ZeroDuration()), IsOk());
  std::thread setter([&] {
    AwaitWaiters(b.id(), 1);
    EXPECT_THAT(b.Set(), IsOk());
  });
  EXPECT_THAT(Event::WaitMultiple(both, WaitMode::kAll, absl::InfiniteDuration()), IsOk());
  setter.join();
}

TEST_F(EventsTest, DestroyingAWaitedEventFailsTheWait) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  const EventHandle handle = event.handle();
  absl::StatusOr<WaitResult> result = WaitResult{};
  std::thread waiter([&] { result = WaitOnEvents(kfd(), {&handle, 1}, WaitMode::kAll, absl::InfiniteDuration()); });
  AwaitWaiters(handle.id, 1);
  EXPECT_THAT(std::move(event).Free(), IsOk());
  waiter.join();
  EXPECT_THAT(result, StatusIs(absl::StatusCode::kUnknown, HasSubstr("AMDKFD_IOC_WAIT_EVENTS")));
  EXPECT_EQ(ErrnoOf(result.status()), EIO);
  EXPECT_EQ(ToHsakmtStatus(result.status()), HSAKMT_STATUS_ERROR);
}

TEST_F(EventsTest, EngineSignalSetsTheEventAndAcknowledgesTheMailbox) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  process_.file->SignalEvent(event.id().raw());
  EXPECT_EQ(*event.handle().mailbox, kfd_uapi::kUnsignaledEventSlot);
  EXPECT_THAT(event.Wait(absl::ZeroDuration()), IsOk());
}

TEST_F(EventsTest, VmFaultReachesMemoryEventsWithNodeAndPage) {
  ASSERT_OK_AND_ASSIGN(Event memory, Event::Create(kfd(), EventDescriptor{.type = EventType::kMemory}));
  ASSERT_OK_AND_ASSIGN(Event signal, Event::Create(kfd(), Signal()));
  const uint32_t gpu_id = machine_->simulator().topology().gpus[0].gpu_id;
  ASSERT_TRUE(process_.file->RaiseMemoryException(kfd_sim::SimVmFault{
      .gpu_id = gpu_id, .va = DeviceAddress(0x7f0000001234), .not_present = false, .read_only = true,
      .no_execute = false}));
  const std::array<const Event*, 2> both = {&signal, &memory};
  ASSERT_OK_AND_ASSIGN(WaitResult result, Event::WaitMultiple(both, WaitMode::kAny, absl::ZeroDuration()));
  ASSERT_THAT(result.memory_faults, SizeIs(2));
  EXPECT_FALSE(result.memory_faults[0].has_value());
  ASSERT_TRUE(result.memory_faults[1].has_value());
  const MemoryAccessFault& fault = *result.memory_faults[1];
  EXPECT_EQ(fault.node, kGpuNode);
  EXPECT_EQ(fault.address, DeviceAddress(0x7f0000001000));
  EXPECT_TRUE(fault.read_only);
  EXPECT_FALSE(fault.not_present);
  EXPECT_FALSE(fault.imprecise);
  EXPECT_EQ(fault.error_type, kfd_uapi::kMemErrNoRas);
}

// ---- errors ----

TEST_F(EventsTest, UnknownAndDoubleDestroyAreErrorWithEinval) {
  const absl::Status unknown = DestroyEvent(kfd(), EventId(77));
  EXPECT_THAT(unknown, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("event_id=0x4d")));
  EXPECT_EQ(ToHsakmtStatus(unknown), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ErrnoOf(unknown), EINVAL);

  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  const EventHandle handle = std::move(event).Release();
  EXPECT_THAT(DestroyEvent(kfd(), handle.id), IsOk());
  EXPECT_EQ(ToHsakmtStatus(DestroyEvent(kfd(), handle.id)), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ToHsakmtStatus(SetEvent(kfd(), handle)), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ToHsakmtStatus(WaitOnEvents(kfd(), {&handle, 1}, WaitMode::kAll, absl::ZeroDuration()).status()),
            HSAKMT_STATUS_ERROR);
}

TEST_F(EventsTest, SystemEventsCannotBeSetOrResetFromUserMode) {
  ASSERT_OK_AND_ASSIGN(Event memory, Event::Create(kfd(), EventDescriptor{.type = EventType::kMemory}));
  EXPECT_EQ(memory.handle().mailbox, nullptr);
  for (const absl::Status& s : {memory.Set(), memory.Reset()}) {
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("set by the kernel only")));
    EXPECT_EQ(ToHsakmtStatus(s), HSAKMT_STATUS_ERROR);
    EXPECT_FALSE(ErrnoOf(s).has_value()) << "refused before any ioctl";
  }
}

TEST_F(EventsTest, UnknownEventTypeIsInvalidParameterAndCreatesNothing) {
  const absl::StatusOr<Event> event = Event::Create(kfd(), EventDescriptor{.type = static_cast<EventType>(9)});
  EXPECT_THAT(event, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(ToHsakmtStatus(event.status()), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_THAT(SimEvents(), IsEmpty());
  EXPECT_THAT(kfd_sim::BosButMmioPages(*SimState(process_.sim_id)), IsEmpty()) << "no event page either";
}

TEST_F(EventsTest, EventsAreIsolatedBetweenProcesses) {
  Process other = OpenProcess(machine_);
  ASSERT_NE(other.kfd, nullptr);
  ASSERT_OK_AND_ASSIGN(Event mine, Event::Create(kfd(), Signal()));
  // The other process knows no event by that id.
  EXPECT_EQ(ToHsakmtStatus(SetEvent(*other.kfd, mine.handle())), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(ToHsakmtStatus(DestroyEvent(*other.kfd, mine.id())), HSAKMT_STATUS_ERROR);
  // Its own first event has the same id: ids are per process.
  ASSERT_OK_AND_ASSIGN(Event theirs, Event::Create(*other.kfd, Signal()));
  EXPECT_EQ(theirs.id(), mine.id());
  ASSERT_THAT(theirs.Set(), IsOk());
  EXPECT_THAT(mine.Wait(absl::ZeroDuration()), StatusIs(absl::StatusCode::kDeadlineExceeded));
  const std::array<const Event*, 2> mixed = {&mine, &theirs};
  EXPECT_THAT(Event::WaitMultiple(mixed, WaitMode::kAny, absl::ZeroDuration()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("another process")));
}

TEST_F(EventsTest, CloseReleasesEventsAndTheEventPage) {
  const kfd_sim::SimSnapshot before = machine_->simulator().Snapshot();
  Process other = OpenProcess(machine_);
  ASSERT_NE(other.kfd, nullptr);
  std::vector<EventHandle> leaked;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(Event event, Event::Create(*other.kfd, Signal()));
    leaked.push_back(std::move(event).Release());
  }
  ASSERT_NE(SimState(other.sim_id), nullptr);
  EXPECT_THAT(SimState(other.sim_id)->events, SizeIs(3));
  other.kfd.reset();
  EXPECT_EQ(SimState(other.sim_id), nullptr);
  EXPECT_EQ(machine_->simulator().Snapshot().system_used, before.system_used);
}

// ---- the Event owner ----

TEST_F(EventsTest, OwnerDestructorDestroys) {
  { ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal())); }
  EXPECT_THAT(SimEvents(), IsEmpty());
}

TEST_F(EventsTest, OwnerMoveEmptiesTheSource) {
  ASSERT_OK_AND_ASSIGN(Event a, Event::Create(kfd(), Signal()));
  const EventId id = a.id();
  Event b = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the contract under test
  EXPECT_THAT(a.Set(), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_THAT(a.Wait(absl::ZeroDuration()), StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_EQ(b.id(), id);
  EXPECT_THAT(SimEvents(), SizeIs(1));
}

TEST_F(EventsTest, OwnerMoveAssignDestroysTheOldEvent) {
  ASSERT_OK_AND_ASSIGN(Event a, Event::Create(kfd(), Signal()));
  ASSERT_OK_AND_ASSIGN(Event b, Event::Create(kfd(), Signal()));
  const EventId kept = b.id();
  a = std::move(b);
  ASSERT_THAT(SimEvents(), SizeIs(1));
  EXPECT_EQ(SimEvents()[0].id, kept.raw());
  EXPECT_EQ(a.id(), kept);
}

TEST_F(EventsTest, OwnerSelfMoveIsHarmless) {
  ASSERT_OK_AND_ASSIGN(Event a, Event::Create(kfd(), Signal()));
  Event& alias = a;
  a = std::move(alias);
  EXPECT_FALSE(a.empty());
  EXPECT_THAT(a.Set(), IsOk());
  EXPECT_THAT(SimEvents(), SizeIs(1));
}

TEST_F(EventsTest, OwnerFreeReportsTheKernelsVerdict) {
  ASSERT_OK_AND_ASSIGN(Event event, Event::Create(kfd(), Signal()));
  ASSERT_THAT(DestroyEvent(kfd(), event.id()), IsOk());  // behind the owner's back
  const absl::Status freed = std::move(event).Free();
  EXPECT_THAT(freed, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(ToHsakmtStatus(freed), HSAKMT_STATUS_ERROR);
  EXPECT_TRUE(event.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_THAT(std::move(event).Free(), IsOk()) << "an empty owner has nothing to free";
}

TEST_F(EventsTest, EmptyWaitMultipleCompletesAndNullIsRefused) {
  EXPECT_THAT(Event::WaitMultiple({}, WaitMode::kAll, absl::ZeroDuration()), IsOk());
  const std::array<const Event*, 1> null = {nullptr};
  EXPECT_THAT(Event::WaitMultiple(null, WaitMode::kAll, absl::ZeroDuration()),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // The kernel completes a wait on no events at once.
  EXPECT_THAT(WaitOnEvents(kfd(), {}, WaitMode::kAll, absl::ZeroDuration()), IsOk());
}

// ---- pieces ----

TEST(KfdTimeoutTest, ConvertsDurationsToTheKernelsMilliseconds) {
  struct Row {
    absl::Duration timeout;
    uint32_t ms;
  };
  const Row kRows[] = {
      {absl::ZeroDuration(), kfd_uapi::kEventTimeoutImmediate},
      {-absl::Seconds(1), kfd_uapi::kEventTimeoutImmediate},
      {absl::Microseconds(1), 1},
      {absl::Milliseconds(50), 50},
      {absl::Microseconds(50001), 51},
      {absl::Hours(24 * 365), 0xFFFFFFFE},
      {absl::InfiniteDuration(), kfd_uapi::kEventTimeoutInfinite},
  };
  for (const Row& row : kRows) {
    SCOPED_TRACE(absl::FormatDuration(row.timeout));
    EXPECT_EQ(KfdTimeoutMs(row.timeout), row.ms);
  }
}

TEST(EventDescribeArgsTest, DecodesTheEventStructs) {
  kfd_uapi::CreateEventArgs create{};
  create.event_type = 8;
  create.event_id = 0x40000000;
  EXPECT_THAT(DescribeArgs(create), HasSubstr("type=8"));
  EXPECT_THAT(DescribeArgs(create), HasSubstr("event_id=0x40000000"));
  EXPECT_EQ(DescribeArgs(kfd_uapi::DestroyEventArgs{.event_id = 0x2a, .pad = 0}), "event_id=0x2a");
  EXPECT_EQ(DescribeArgs(kfd_uapi::SetEventArgs{.event_id = 1, .pad = 0}), "event_id=0x1");
  EXPECT_EQ(DescribeArgs(kfd_uapi::ResetEventArgs{.event_id = 1, .pad = 0}), "event_id=0x1");
  kfd_uapi::WaitEventsArgs wait{};
  wait.num_events = 3;
  wait.timeout = 0xFFFFFFFF;
  EXPECT_THAT(DescribeArgs(wait), HasSubstr("num_events=3"));
  EXPECT_THAT(DescribeArgs(wait), HasSubstr("timeout=4294967295"));
}

}  // namespace
}  // namespace hipmem::thunk
