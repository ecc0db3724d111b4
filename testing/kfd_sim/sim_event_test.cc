// Events: CREATE/DESTROY/SET/RESET_EVENT, WAIT_EVENTS, the signal page, and the engine hooks.
#include <sys/mman.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "base/units.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_test_util.h"
#include "testing/kfd_sim/simulator.h"

namespace hipmem::kfd_sim {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
using ::hipmem_testing::AcquireAllVms;
using ::hipmem_testing::Alloc;
using ::hipmem_testing::AllocResult;
using ::hipmem_testing::Free;
using ::hipmem_testing::Ioctl;
using ::hipmem_testing::kTestVa;
using ::hipmem_testing::MakeSimulator;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using AllocMemFlags = ::hipmem::kfd_uapi::AllocMemFlags;
using EventType = ::hipmem::kfd_uapi::EventType;

// What libhsakmt allocates for its event page: KFD_SIGNAL_EVENT_LIMIT slots of GTT.
constexpr Bytes kEventPageSize(uint64_t{uapi::kSignalEventLimit} * 8);
constexpr AllocMemFlags kGttFlags = AllocMemFlags::kGtt | AllocMemFlags::kWritable | AllocMemFlags::kExecutable |
                                    AllocMemFlags::kNoSubstitute | AllocMemFlags::kCoherent |
                                    AllocMemFlags::kUncached;
constexpr uint32_t kFirstNonsignalId = 0x40000000;

struct Created {
  int ret;
  uapi::CreateEventArgs args;
};

Created Create(SimFile& file, EventType type, bool auto_reset, uint64_t event_page_offset = 0) {
  uapi::CreateEventArgs args{};
  args.event_page_offset = event_page_offset;
  args.event_type = uapi::ToRaw(type);
  args.auto_reset = auto_reset ? 1 : 0;
  const int ret = Ioctl(file, uapi::kCreateEvent, args);
  return Created{ret, args};
}

int Destroy(SimFile& file, uint32_t id) {
  uapi::DestroyEventArgs args{.event_id = id, .pad = 0};
  return Ioctl(file, uapi::kDestroyEvent, args);
}
int Set(SimFile& file, uint32_t id) {
  uapi::SetEventArgs args{.event_id = id, .pad = 0};
  return Ioctl(file, uapi::kSetEvent, args);
}
int Reset(SimFile& file, uint32_t id) {
  uapi::ResetEventArgs args{.event_id = id, .pad = 0};
  return Ioctl(file, uapi::kResetEvent, args);
}

struct Waited {
  int ret;
  uint32_t wait_result;
  std::vector<uapi::EventData> data;
};

Waited Wait(SimFile& file, const std::vector<uint32_t>& ids, bool all, uint32_t timeout_ms,
            const std::vector<uint64_t>& ages = {}) {
  std::vector<uapi::EventData> data(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    data[i] = uapi::EventData{};
    data[i].event_id = ids[i];
    if (i < ages.size()) data[i].signal_event_data.last_event_age = ages[i];
  }
  uapi::WaitEventsArgs args{};
  args.events_ptr = reinterpret_cast<uintptr_t>(data.data());
  args.num_events = static_cast<uint32_t>(ids.size());
  args.wait_for_all = all ? 1 : 0;
  args.timeout = timeout_ms;
  args.wait_result = 0xdead;
  const int ret = Ioctl(file, uapi::kWaitEvents, args);
  return Waited{ret, args.wait_result, data};
}

constexpr uint32_t kComplete = uapi::ToRaw(uapi::WaitResult::kComplete);
constexpr uint32_t kTimeout = uapi::ToRaw(uapi::WaitResult::kTimeout);
constexpr uint32_t kFail = uapi::ToRaw(uapi::WaitResult::kFail);

// Blocks until `id` of `process_id` has `waiters` sleeping waits (a synchronisation point, not a timing
// assumption: it polls the simulator's own state).
void AwaitWaiters(const Simulator& sim, uint64_t process_id, uint32_t id, size_t waiters) {
  while (true) {
    for (const SimProcess& p : sim.Snapshot().processes) {
      if (p.id != process_id) continue;
      for (const SimEvent& e : p.events) {
        if (e.id == id && e.waiters == waiters) return;
      }
    }
    std::this_thread::yield();
  }
}

class SimEventTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = MakeSimulator();
    file_ = sim_->Open();
    AcquireAllVms(*sim_, *file_);
  }
  void TearDown() override { file_.reset(); }

  uint32_t gpu_id() const { return sim_->topology().gpus[0].gpu_id; }
  uint64_t process_id() const { return sim_->Snapshot().processes.back().id; }

  // Allocates the 32 KiB GTT event page as libhsakmt does.
  AllocResult AllocEventPage() { return Alloc(*file_, gpu_id(), kTestVa, kEventPageSize, kGttFlags); }

  std::unique_ptr<Simulator> sim_;
  std::unique_ptr<SimFile> file_;
};

TEST_F(SimEventTest, SignalEventTakesSlotOneAndReportsEventsMmapOffset) {
  const Created e = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(e.ret, 0);
  EXPECT_EQ(e.args.event_id, 1u) << "id 0 is reserved";
  EXPECT_EQ(e.args.event_slot_index, 1u);
  EXPECT_EQ(e.args.event_trigger_data, 1u);
  EXPECT_EQ(e.args.event_page_offset, uapi::kMmapTypeEvents);
}

TEST_F(SimEventTest, NonSignalEventsUseTheUpperIdRange) {
  const Created memory = Create(*file_, EventType::kMemory, false);
  ASSERT_EQ(memory.ret, 0);
  EXPECT_EQ(memory.args.event_id, kFirstNonsignalId);
  EXPECT_EQ(memory.args.event_page_offset, 0u);
  const Created hw = Create(*file_, EventType::kHwException, false);
  ASSERT_EQ(hw.ret, 0);
  EXPECT_EQ(hw.args.event_id, kFirstNonsignalId + 1);
}

TEST_F(SimEventTest, KernelPageAllowsTwoHundredFiftyFiveSignalEvents) {
  // Without a handed-over page the kernel allocates its own and, until user space mmaps it, lets only
  // 256 slots be used, one of which is the reserved id 0.
  for (uint32_t i = 1; i <= 255; ++i) {
    const Created e = Create(*file_, EventType::kSignal, true);
    ASSERT_EQ(e.ret, 0) << i;
    ASSERT_EQ(e.args.event_id, i);
  }
  EXPECT_EQ(Create(*file_, EventType::kSignal, true).ret, -ENOSPC);
  EXPECT_EQ(Create(*file_, EventType::kDebugEvent, true).ret, -ENOSPC) << "DEBUG events take slots too";
  EXPECT_EQ(Create(*file_, EventType::kMemory, false).ret, 0) << "non-signal events take none";
  // A freed id is the lowest free one again.
  ASSERT_EQ(Destroy(*file_, 17), 0);
  const Created again = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(again.ret, 0);
  EXPECT_EQ(again.args.event_id, 17u);
}

TEST_F(SimEventTest, HandedOverPageAllowsFourThousandNinetyFiveSignalEvents) {
  const AllocResult page = AllocEventPage();
  ASSERT_EQ(page.ret, 0);
  ASSERT_EQ(Create(*file_, EventType::kSignal, true, page.handle).ret, 0);
  for (uint32_t i = 2; i < uapi::kSignalEventLimit; ++i) {
    ASSERT_EQ(Create(*file_, EventType::kSignal, true).ret, 0) << i;
  }
  EXPECT_EQ(Create(*file_, EventType::kSignal, true).ret, -ENOSPC);
  ASSERT_THAT(sim_->Snapshot().processes[0].events, SizeIs(uapi::kSignalEventLimit - 1));
}

TEST_F(SimEventTest, HandedOverPageIsClearedAndAcknowledgedThroughTheUsersMapping) {
  const AllocResult page = AllocEventPage();
  ASSERT_EQ(page.ret, 0);
  void* cpu = mmap(nullptr, kEventPageSize.raw(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(cpu, MAP_FAILED);
  const int render_fd = file_->OpenRenderNode(sim_->topology().gpus[0].drm_render_minor);
  ASSERT_EQ(file_->MmapBo(render_fd, cpu, kEventPageSize.raw(), PROT_READ | PROT_WRITE, page.mmap_offset), 0);
  volatile uint64_t* slots = static_cast<volatile uint64_t*>(cpu);
  slots[5] = 42;  // garbage the kernel must overwrite when it adopts the page

  const Created e = Create(*file_, EventType::kSignal, true, page.handle);
  ASSERT_EQ(e.ret, 0);
  EXPECT_EQ(slots[5], uapi::kUnsignaledEventSlot);
  EXPECT_EQ(slots[e.args.event_slot_index], uapi::kUnsignaledEventSlot);

  // An engine writes the mailbox and interrupts; the kernel acknowledges the slot and sets the event.
  file_->SignalEvent(e.args.event_id);
  EXPECT_EQ(slots[e.args.event_slot_index], uapi::kUnsignaledEventSlot);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kComplete);

  // An engine that writes the slot itself and sends an interrupt without a usable id: the kernel scans.
  slots[e.args.event_slot_index] = e.args.event_id;
  file_->SignalEventInterrupt(0, 0);
  EXPECT_EQ(slots[e.args.event_slot_index], uapi::kUnsignaledEventSlot);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kComplete);
  munmap(cpu, kEventPageSize.raw());
}

TEST_F(SimEventTest, EventPageHandOverErrors) {
  const AllocResult page = AllocEventPage();
  ASSERT_EQ(page.ret, 0);
  alignas(4096) static char user_pages[4096];
  const AllocResult userptr = Alloc(*file_, gpu_id(), kTestVa + Bytes::MiB(2).raw(), Bytes::KiB(4),
                                    AllocMemFlags::kUserptr | AllocMemFlags::kWritable,
                                    reinterpret_cast<uintptr_t>(user_pages));
  ASSERT_EQ(userptr.ret, 0);

  EXPECT_EQ(Create(*file_, EventType::kSignal, true, uapi::MakeHandle(0xbad, 1)).ret, -EINVAL) << "unknown GPU";
  EXPECT_EQ(Create(*file_, EventType::kSignal, true, uapi::MakeHandle(gpu_id(), 999)).ret, -EINVAL) << "no BO";
  EXPECT_EQ(Create(*file_, EventType::kSignal, true, userptr.handle).ret, -EINVAL) << "userptr cannot be kmapped";
  ASSERT_EQ(Create(*file_, EventType::kSignal, true, page.handle).ret, 0);
  EXPECT_EQ(Create(*file_, EventType::kSignal, true, page.handle).ret, -EINVAL) << "page already set";

  // The page is the kernel's now: FREE refuses it, before even looking at the handle.
  EXPECT_EQ(Free(*file_, page.handle), -EPERM);
  EXPECT_EQ(Free(*file_, userptr.handle), 0);
}

TEST_F(SimEventTest, EventPageOnAGpuWithoutVmIsEnodev) {
  auto other = sim_->Open();
  EXPECT_EQ(Create(*other, EventType::kSignal, true, uapi::MakeHandle(gpu_id(), 1)).ret, -ENODEV);
}

TEST_F(SimEventTest, CloseReleasesTheEventPageAndEvents) {
  const SimSnapshot before = sim_->Snapshot();
  auto other = sim_->Open();
  AcquireAllVms(*sim_, *other);
  const AllocResult page = Alloc(*other, gpu_id(), kTestVa, kEventPageSize, kGttFlags);
  ASSERT_EQ(page.ret, 0);
  ASSERT_EQ(Create(*other, EventType::kSignal, true, page.handle).ret, 0);
  ASSERT_EQ(Create(*other, EventType::kMemory, false).ret, 0);
  EXPECT_THAT(sim_->Snapshot().processes.back().events, SizeIs(2));
  EXPECT_EQ(sim_->Snapshot().system_used, before.system_used + kEventPageSize);
  other.reset();
  const SimSnapshot after = sim_->Snapshot();
  EXPECT_EQ(after.system_used, before.system_used);
  ASSERT_THAT(after.processes, SizeIs(1));
  // A new process starts from an empty table.
  auto fresh = sim_->Open();
  EXPECT_EQ(Create(*fresh, EventType::kSignal, true).args.event_id, 1u);
}

TEST_F(SimEventTest, UnknownIdsAndNonSignalEventsAreEinval) {
  EXPECT_EQ(Destroy(*file_, 1), -EINVAL);
  EXPECT_EQ(Set(*file_, 1), -EINVAL);
  EXPECT_EQ(Reset(*file_, 1), -EINVAL);
  const Created memory = Create(*file_, EventType::kMemory, false);
  ASSERT_EQ(memory.ret, 0);
  EXPECT_EQ(Set(*file_, memory.args.event_id), -EINVAL) << "only SIGNAL events are set from the CPU";
  EXPECT_EQ(Reset(*file_, memory.args.event_id), -EINVAL);
  const Created debug = Create(*file_, EventType::kDebugEvent, false);
  ASSERT_EQ(debug.ret, 0);
  EXPECT_EQ(Set(*file_, debug.args.event_id), -EINVAL);
  EXPECT_EQ(Destroy(*file_, memory.args.event_id), 0);
  EXPECT_EQ(Destroy(*file_, memory.args.event_id), -EINVAL) << "double destroy";
}

TEST_F(SimEventTest, EventsOfAnotherProcessAreUnknown) {
  auto other = sim_->Open();
  const Created e = Create(*file_, EventType::kSignal, false);
  ASSERT_EQ(e.ret, 0);
  EXPECT_EQ(Set(*other, e.args.event_id), -EINVAL);
  EXPECT_EQ(Wait(*other, {e.args.event_id}, true, 0).ret, -EINVAL);
  EXPECT_EQ(Destroy(*other, e.args.event_id), -EINVAL);
  // B's own first event gets the same id: ids are per process.
  EXPECT_EQ(Create(*other, EventType::kSignal, false).args.event_id, e.args.event_id);
  EXPECT_EQ(Destroy(*file_, e.args.event_id), 0);
}

TEST_F(SimEventTest, PollOfUnsignaledEventTimesOut) {
  const Created e = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(e.ret, 0);
  const Waited w = Wait(*file_, {e.args.event_id}, true, uapi::kEventTimeoutImmediate);
  EXPECT_EQ(w.ret, 0);
  EXPECT_EQ(w.wait_result, kTimeout);
}

TEST_F(SimEventTest, TimedWaitSleepsAtLeastTheTimeout) {
  const Created e = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(e.ret, 0);
  const auto start = std::chrono::steady_clock::now();
  const Waited w = Wait(*file_, {e.args.event_id}, true, 50);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(w.ret, 0);
  EXPECT_EQ(w.wait_result, kTimeout);
  EXPECT_GE(elapsed, std::chrono::milliseconds(50));
  EXPECT_LT(elapsed, std::chrono::seconds(30));
}

TEST_F(SimEventTest, AutoResetSignalIsConsumedByOneWait) {
  const Created e = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(e.ret, 0);
  ASSERT_EQ(Set(*file_, e.args.event_id), 0);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kComplete);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kTimeout);
}

TEST_F(SimEventTest, ManualResetSignalStaysUntilReset) {
  const Created e = Create(*file_, EventType::kSignal, false);
  ASSERT_EQ(e.ret, 0);
  ASSERT_EQ(Set(*file_, e.args.event_id), 0);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kComplete);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kComplete);
  ASSERT_EQ(Reset(*file_, e.args.event_id), 0);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kTimeout);
}

TEST_F(SimEventTest, WaitAllNeedsEveryEventAndWaitAnyOne) {
  const Created a = Create(*file_, EventType::kSignal, false);
  const Created b = Create(*file_, EventType::kSignal, false);
  ASSERT_EQ(a.ret, 0);
  ASSERT_EQ(b.ret, 0);
  ASSERT_EQ(Set(*file_, a.args.event_id), 0);
  EXPECT_EQ(Wait(*file_, {a.args.event_id, b.args.event_id}, true, 0).wait_result, kTimeout);
  EXPECT_EQ(Wait(*file_, {a.args.event_id, b.args.event_id}, false, 0).wait_result, kComplete);
  ASSERT_EQ(Set(*file_, b.args.event_id), 0);
  EXPECT_EQ(Wait(*file_, {a.args.event_id, b.args.event_id}, true, 0).wait_result, kComplete);
}

TEST_F(SimEventTest, WaitAnyWakesWhenAnotherThreadSets) {
  const Created a = Create(*file_, EventType::kSignal, true);
  const Created b = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(a.ret, 0);
  ASSERT_EQ(b.ret, 0);
  std::thread setter([&] {
    AwaitWaiters(*sim_, process_id(), b.args.event_id, 1);
    EXPECT_EQ(Set(*file_, b.args.event_id), 0);
  });
  const Waited w = Wait(*file_, {a.args.event_id, b.args.event_id}, false, uapi::kEventTimeoutInfinite);
  setter.join();
  EXPECT_EQ(w.ret, 0);
  EXPECT_EQ(w.wait_result, kComplete);
  // The set woke a waiter, so the auto-reset event did not stay signaled.
  EXPECT_EQ(Wait(*file_, {b.args.event_id}, true, 0).wait_result, kTimeout);
}

TEST_F(SimEventTest, SetOfAutoResetEventReleasesEveryCurrentWaiter) {
  const Created e = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(e.ret, 0);
  std::vector<std::thread> waiters;
  std::vector<Waited> results(2);
  for (Waited& r : results) {
    waiters.emplace_back([&, out = &r] { *out = Wait(*file_, {e.args.event_id}, true, uapi::kEventTimeoutInfinite); });
  }
  AwaitWaiters(*sim_, process_id(), e.args.event_id, 2);
  ASSERT_EQ(Set(*file_, e.args.event_id), 0);
  for (std::thread& t : waiters) t.join();
  for (const Waited& r : results) EXPECT_EQ(r.wait_result, kComplete);
  EXPECT_FALSE(sim_->Snapshot().processes[0].events[0].signaled);
}

TEST_F(SimEventTest, DestroyingAWaitedEventFailsTheWaitWithEio) {
  const Created e = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(e.ret, 0);
  Waited result{};
  std::thread waiter([&] { result = Wait(*file_, {e.args.event_id}, true, uapi::kEventTimeoutInfinite); });
  AwaitWaiters(*sim_, process_id(), e.args.event_id, 1);
  ASSERT_EQ(Destroy(*file_, e.args.event_id), 0);
  waiter.join();
  EXPECT_EQ(result.ret, -EIO);
  EXPECT_EQ(result.wait_result, kFail);
  EXPECT_THAT(sim_->Snapshot().processes[0].events, IsEmpty());
}

TEST_F(SimEventTest, WaitArgumentErrors) {
  const Created e = Create(*file_, EventType::kSignal, false);
  ASSERT_EQ(e.ret, 0);
  ASSERT_EQ(Set(*file_, e.args.event_id), 0);

  // Zero events: the kernel's loop over no waiters completes, whatever events_ptr is.
  uapi::WaitEventsArgs none{.events_ptr = 0, .num_events = 0, .wait_for_all = 1, .timeout = 0, .wait_result = 7};
  EXPECT_EQ(Ioctl(*file_, uapi::kWaitEvents, none), 0);
  EXPECT_EQ(none.wait_result, kComplete);

  uapi::WaitEventsArgs null_ptr{.events_ptr = 0, .num_events = 1, .wait_for_all = 1, .timeout = 0, .wait_result = 7};
  EXPECT_EQ(Ioctl(*file_, uapi::kWaitEvents, null_ptr), -EFAULT);
  EXPECT_EQ(null_ptr.wait_result, kFail);

  uapi::WaitEventsArgs huge{.events_ptr = 0, .num_events = 1u << 20, .wait_for_all = 1, .timeout = 0, .wait_result = 7};
  EXPECT_EQ(Ioctl(*file_, uapi::kWaitEvents, huge), -ENOMEM) << "kcalloc of a million waiters";
  EXPECT_EQ(huge.wait_result, kFail);

  const Waited unknown = Wait(*file_, {e.args.event_id, 12345}, false, 0);
  EXPECT_EQ(unknown.ret, -EINVAL);
  EXPECT_EQ(unknown.wait_result, kFail);
}

TEST_F(SimEventTest, EventAgeActivatesAWaitThatMissedTheSet) {
  const Created e = Create(*file_, EventType::kSignal, true);
  ASSERT_EQ(e.ret, 0);
  // Age 1 is the age at creation: nothing happened since.
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0, {1}).wait_result, kTimeout);
  ASSERT_EQ(Set(*file_, e.args.event_id), 0);
  EXPECT_EQ(Wait(*file_, {e.args.event_id}, true, 0).wait_result, kComplete) << "consumes the signal";
  // The set bumped the age to 2: a waiter that last saw age 1 is activated although the event is no
  // longer signaled, and learns the new age.
  const Waited aged = Wait(*file_, {e.args.event_id}, true, 0, {1});
  EXPECT_EQ(aged.wait_result, kComplete);
  EXPECT_EQ(aged.data[0].signal_event_data.last_event_age, 2u);
}

TEST_F(SimEventTest, VmFaultSetsMemoryEventsWithTheFault) {
  const Created memory = Create(*file_, EventType::kMemory, false);
  const Created signal = Create(*file_, EventType::kSignal, false);
  ASSERT_EQ(memory.ret, 0);
  ASSERT_EQ(signal.ret, 0);
  EXPECT_FALSE(file_->RaiseMemoryException(SimVmFault{.gpu_id = 0xbad, .va = DeviceAddress(kTestVa),
                                                      .not_present = true, .read_only = false,
                                                      .no_execute = false}));
  EXPECT_EQ(Wait(*file_, {memory.args.event_id}, true, 0).wait_result, kTimeout);

  ASSERT_TRUE(file_->RaiseMemoryException(SimVmFault{.gpu_id = gpu_id(), .va = DeviceAddress(kTestVa + 0x123),
                                                     .not_present = true, .read_only = false,
                                                     .no_execute = false}));
  const Waited w = Wait(*file_, {signal.args.event_id, memory.args.event_id}, false, 0);
  ASSERT_EQ(w.ret, 0);
  EXPECT_EQ(w.wait_result, kComplete);
  const uapi::MemoryExceptionData& fault = w.data[1].memory_exception_data;
  EXPECT_EQ(fault.gpu_id, gpu_id());
  EXPECT_EQ(fault.va, kTestVa) << "the faulting page";
  EXPECT_EQ(fault.failure.NotPresent, 1u);
  EXPECT_EQ(fault.failure.ReadOnly, 0u);
  EXPECT_EQ(fault.failure.imprecise, 0u);
  EXPECT_EQ(fault.ErrorType, uapi::kMemErrNoRas);
  EXPECT_EQ(w.data[0].memory_exception_data.gpu_id, 0u) << "an unsignaled event's data is left alone";
}

TEST_F(SimEventTest, SimulatorDeliversInterruptsByProcessId) {
  const Created signal = Create(*file_, EventType::kSignal, true);
  const Created memory = Create(*file_, EventType::kMemory, false);
  ASSERT_EQ(signal.ret, 0);
  ASSERT_EQ(memory.ret, 0);
  EXPECT_FALSE(sim_->SignalEvent(process_id() + 100, signal.args.event_id)) << "no such process";
  EXPECT_FALSE(sim_->RaiseMemoryException(process_id() + 100, SimVmFault{.gpu_id = gpu_id(), .va = DeviceAddress(0),
                                                                        .not_present = true, .read_only = false,
                                                                        .no_execute = false}));
  EXPECT_TRUE(sim_->SignalEvent(process_id(), signal.args.event_id));
  EXPECT_EQ(Wait(*file_, {signal.args.event_id}, true, 0).wait_result, kComplete);
  EXPECT_TRUE(sim_->RaiseMemoryException(process_id(), SimVmFault{.gpu_id = gpu_id(), .va = DeviceAddress(0),
                                                                  .not_present = true, .read_only = false,
                                                                  .no_execute = false}));
  EXPECT_EQ(Wait(*file_, {memory.args.event_id}, true, 0).wait_result, kComplete);
}

TEST_F(SimEventTest, EngineSignalOfNonSignalEventIsIgnored) {
  const Created memory = Create(*file_, EventType::kMemory, false);
  ASSERT_EQ(memory.ret, 0);
  file_->SignalEvent(memory.args.event_id);
  file_->SignalEvent(999);
  EXPECT_EQ(Wait(*file_, {memory.args.event_id}, true, 0).wait_result, kTimeout);
}

}  // namespace
}  // namespace hipmem::kfd_sim
