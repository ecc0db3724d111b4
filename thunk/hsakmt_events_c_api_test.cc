// kfdtest KFDEventTest-style checks through the hsaKmt* event calls, on the default simulated machine.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "hsakmt/hsakmt.h"
#include "thunk/hsakmt_test_nodes.h"
#include "testing/kfd_sim/simulator.h"
#include "thunk/kfd_device.h"
#include "thunk/kfd_device_sim.h"

// Fields of the pack(4) HsaEvent are read with unary + (a copy): gtest must not bind a reference to a
// misaligned 8-byte member.
namespace {

constexpr HSAuint32 kMaxSignalEvents = 4095;  // KFD_SIGNAL_EVENT_LIMIT slots, id 0 reserved

class HsakmtEventsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS); }
  void TearDown() override { EXPECT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS); }

  static HSAuint32 GpuNode() {
    const HSAuint32 node = hipmem_testing::FirstGpuNode();
    EXPECT_NE(node, 0u) << "no GPU node";
    return node;
  }

  // kfdtest's CreateQueueTypeEvent.
  static HSAKMT_STATUS CreateQueueTypeEvent(bool manual_reset, bool is_signaled, HsaEvent** event) {
    HsaEventDescriptor descriptor{};
    descriptor.EventType = HSA_EVENTTYPE_SIGNAL;
    descriptor.SyncVar.SyncVar.UserData = reinterpret_cast<void*>(0xABCDABCD);
    descriptor.NodeId = GpuNode();
    return hsaKmtCreateEvent(&descriptor, manual_reset, is_signaled, event);
  }

  static HsaEvent* MemoryEvent() {
    HsaEventDescriptor descriptor{};
    descriptor.EventType = HSA_EVENTTYPE_MEMORY;
    descriptor.NodeId = GpuNode();
    HsaEvent* event = nullptr;
    EXPECT_EQ(hsaKmtCreateEvent(&descriptor, true, false, &event), HSAKMT_STATUS_SUCCESS);
    return event;
  }
};

TEST(HsakmtEventsClosedTest, EveryCallNeedsAnOpenKfd) {
  HsaEventDescriptor descriptor{};
  HsaEvent* event = nullptr;
  EXPECT_EQ(hsaKmtCreateEvent(&descriptor, false, false, &event), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  HsaEvent fake{};
  EXPECT_EQ(hsaKmtSetEvent(&fake), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtDestroyEvent(&fake), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
  EXPECT_EQ(hsaKmtWaitOnEvent(&fake, 0), HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED);
}

TEST_F(HsakmtEventsTest, CreateDestroyEvent) {
  HsaEvent* event = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &event), HSAKMT_STATUS_SUCCESS);
  ASSERT_NE(event, nullptr);
  EXPECT_NE(+event->EventData.HWData2, 0u) << "the mailbox in the event page";
  EXPECT_EQ(*reinterpret_cast<volatile HSAuint64*>(+event->EventData.HWData2), ~HSAuint64{0}) << "unsignaled";
  EXPECT_EQ(+event->EventData.HWData1, event->EventId);
  EXPECT_EQ(+event->EventData.HWData3, event->EventId);
  EXPECT_EQ(event->EventData.EventType, HSA_EVENTTYPE_SIGNAL);
  EXPECT_EQ(+event->EventData.EventData.SyncVar.SyncVar.UserData, reinterpret_cast<void*>(0xABCDABCD));
  EXPECT_EQ(hsaKmtQueryEventState(event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, CreateMaxEvents) {
  std::vector<HsaEvent*> events(256, nullptr);
  for (HsaEvent*& event : events) ASSERT_EQ(CreateQueueTypeEvent(false, false, &event), HSAKMT_STATUS_SUCCESS);
  for (HsaEvent* event : events) EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, SignalMaxEvents) {
  std::vector<HsaEvent*> events(kMaxSignalEvents, nullptr);
  for (HsaEvent*& event : events) ASSERT_EQ(CreateQueueTypeEvent(false, false, &event), HSAKMT_STATUS_SUCCESS);
  HsaEvent* one_more = nullptr;
  EXPECT_EQ(CreateQueueTypeEvent(false, false, &one_more), HSAKMT_STATUS_ERROR) << "the slots are used up";
  EXPECT_EQ(one_more, nullptr);
  for (HsaEvent* event : events) ASSERT_EQ(hsaKmtSetEvent(event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events.data(), kMaxSignalEvents, true, HSA_EVENTTIMEOUT_IMMEDIATE),
            HSAKMT_STATUS_SUCCESS);
  for (HsaEvent* event : events) EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, SetThenWaitSucceeds) {
  HsaEvent* event = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &event), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtSetEvent(event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent(event, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, WaitTimesOutAfterTheTimeout) {
  HsaEvent* event = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &event), HSAKMT_STATUS_SUCCESS);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(hsaKmtWaitOnEvent(event, 50), HSAKMT_STATUS_WAIT_TIMEOUT);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(50));
  EXPECT_LT(elapsed, std::chrono::seconds(30));
  EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, AutoResetIsConsumedManualResetIsNot) {
  HsaEvent* automatic = nullptr;
  HsaEvent* manual = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, /*is_signaled=*/true, &automatic), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(CreateQueueTypeEvent(true, /*is_signaled=*/true, &manual), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent(automatic, 0), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent(automatic, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(hsaKmtWaitOnEvent(manual, 0), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent(manual, 0), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtResetEvent(manual), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnEvent(manual, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(hsaKmtDestroyEvent(automatic), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(manual), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, WaitAnyReturnsWhenAnotherThreadSets) {
  HsaEvent* events[2] = {nullptr, nullptr};
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &events[0]), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &events[1]), HSAKMT_STATUS_SUCCESS);
  // Whether the set lands before or during the wait, the wait completes: an unconsumed auto-reset
  // signal stays until a wait takes it.
  std::thread setter([&] { EXPECT_EQ(hsaKmtSetEvent(events[1]), HSAKMT_STATUS_SUCCESS); });
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 2, false, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
  setter.join();
  for (HsaEvent* event : events) EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, WaitAllNeedsAll) {
  HsaEvent* events[2] = {nullptr, nullptr};
  ASSERT_EQ(CreateQueueTypeEvent(true, false, &events[0]), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(CreateQueueTypeEvent(true, false, &events[1]), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtSetEvent(events[0]), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 2, true, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 2, false, 0), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtSetEvent(events[1]), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(events, 2, true, 0), HSAKMT_STATUS_SUCCESS);
  for (HsaEvent* event : events) EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, DestroyOfUnknownOrDestroyedEventIsError) {
  EXPECT_EQ(hsaKmtDestroyEvent(nullptr), HSAKMT_STATUS_INVALID_HANDLE);
  HsaEvent stranger{};
  stranger.EventId = 1234;
  EXPECT_EQ(hsaKmtDestroyEvent(&stranger), HSAKMT_STATUS_ERROR) << "not from hsaKmtCreateEvent";
  EXPECT_EQ(hsaKmtSetEvent(&stranger), HSAKMT_STATUS_ERROR) << "the kernel does not know id 1234";
  EXPECT_EQ(hsaKmtWaitOnEvent(&stranger, 0), HSAKMT_STATUS_ERROR);

  HsaEvent* event = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(event), HSAKMT_STATUS_ERROR) << "double destroy, without touching the freed event";
}

TEST_F(HsakmtEventsTest, EventsOfAClosedKfdNeverReachTheNextProcess) {
  HsaEvent* old_event = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(true, false, &old_event), HSAKMT_STATUS_SUCCESS);
  const HSAuint32 old_id = old_event->EventId;
  ASSERT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);  // the last reference: the process and its events end
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  HsaEvent* fresh = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(true, false, &fresh), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(+fresh->EventId, old_id) << "the new process's kernel hands out the same id";
  EXPECT_EQ(hsaKmtSetEvent(old_event), HSAKMT_STATUS_ERROR) << "an event of the closed process";
  EXPECT_EQ(hsaKmtWaitOnEvent(fresh, 0), HSAKMT_STATUS_WAIT_TIMEOUT) << "the stale set did not reach it";
  EXPECT_EQ(hsaKmtDestroyEvent(old_event), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(hsaKmtDestroyEvent(fresh), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, ArgumentErrors) {
  HsaEvent* event = nullptr;
  HsaEventDescriptor bad_type{};
  bad_type.EventType = HSA_EVENTTYPE_MAXID;
  EXPECT_EQ(hsaKmtCreateEvent(&bad_type, false, false, &event), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtCreateEvent(nullptr, false, false, &event), HSAKMT_STATUS_INVALID_PARAMETER);
  HsaEventDescriptor descriptor{};
  EXPECT_EQ(hsaKmtCreateEvent(&descriptor, false, false, nullptr), HSAKMT_STATUS_INVALID_PARAMETER);
  EXPECT_EQ(hsaKmtSetEvent(nullptr), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(hsaKmtResetEvent(nullptr), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(hsaKmtQueryEventState(nullptr), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(hsaKmtWaitOnEvent(nullptr, 0), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(nullptr, 1, true, 0), HSAKMT_STATUS_INVALID_HANDLE);
  HsaEvent* none[1] = {nullptr};
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(none, 1, true, 0), HSAKMT_STATUS_INVALID_HANDLE);
  EXPECT_EQ(hsaKmtWaitOnMultipleEvents(none, 0, true, 0), HSAKMT_STATUS_SUCCESS) << "no events: complete";
}

TEST_F(HsakmtEventsTest, SystemEventsCannotBeSetOrReset) {
  HsaEvent* memory = MemoryEvent();
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(+memory->EventData.HWData2, 0u) << "no slot for a system event";
  EXPECT_EQ(hsaKmtSetEvent(memory), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(hsaKmtResetEvent(memory), HSAKMT_STATUS_ERROR);
  EXPECT_EQ(hsaKmtWaitOnEvent(memory, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
  EXPECT_EQ(hsaKmtDestroyEvent(memory), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, VmFaultFillsTheMemoryAccessFault) {
  HsaEvent* memory = MemoryEvent();
  ASSERT_NE(memory, nullptr);
  const HSAuint32 node = GpuNode();
  absl::StatusOr<std::shared_ptr<hipmem::thunk::SimMachine>> machine = hipmem::thunk::SimMachine::Default();
  ASSERT_TRUE(machine.ok());
  hipmem::kfd_sim::Simulator& sim = (*machine)->simulator();
  ASSERT_EQ(sim.Snapshot().processes.size(), 1u);
  ASSERT_TRUE(sim.RaiseMemoryException(sim.Snapshot().processes[0].id,
                                       hipmem::kfd_sim::SimVmFault{.gpu_id = sim.topology().gpus[0].gpu_id,
                                                                   .va = hipmem::DeviceAddress(0x1234567000),
                                                                   .not_present = true,
                                                                   .read_only = false,
                                                                   .no_execute = true}));
  ASSERT_EQ(hsaKmtWaitOnEvent(memory, 0), HSAKMT_STATUS_SUCCESS);
  const HsaMemoryAccessFault& fault = memory->EventData.EventData.MemoryAccessFault;
  const HSAuint64 va = fault.VirtualAddress;  // a copy: 8 bytes at a 4-byte offset
  EXPECT_EQ(fault.NodeId, node);
  EXPECT_EQ(va, 0x1234567000u);
  EXPECT_EQ(fault.Failure.NotPresent, 1u);
  EXPECT_EQ(fault.Failure.NoExecute, 1u);
  EXPECT_EQ(fault.Failure.ReadOnly, 0u);
  EXPECT_EQ(fault.Failure.ECC, 0u);
  EXPECT_EQ(fault.Flags, HSA_EVENTID_MEMORY_FATAL_PROCESS);
  EXPECT_EQ(hsaKmtDestroyEvent(memory), HSAKMT_STATUS_SUCCESS);
}

TEST_F(HsakmtEventsTest, CloseReleasesEvents) {
  HsaEvent* first = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &first), HSAKMT_STATUS_SUCCESS);
  const HSA_EVENTID first_id = first->EventId;
  HsaEvent* second = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &second), HSAKMT_STATUS_SUCCESS);
  // Close the process with both events alive, then open a new one: its event table starts empty.
  ASSERT_EQ(hsaKmtCloseKFD(), HSAKMT_STATUS_SUCCESS);
  ASSERT_EQ(hsaKmtOpenKFD(), HSAKMT_STATUS_SUCCESS);
  HsaEvent* fresh = nullptr;
  ASSERT_EQ(CreateQueueTypeEvent(false, false, &fresh), HSAKMT_STATUS_SUCCESS);
  EXPECT_EQ(fresh->EventId, first_id);
  EXPECT_EQ(hsaKmtSetEvent(second), HSAKMT_STATUS_ERROR) << "the kernel released it with the old process";
  EXPECT_EQ(hsaKmtDestroyEvent(fresh), HSAKMT_STATUS_SUCCESS);
  // As upstream, the HsaEvents of the closed process stay allocated: destroying them fails.
  EXPECT_EQ(hsaKmtDestroyEvent(second), HSAKMT_STATUS_ERROR);
}

}  // namespace
