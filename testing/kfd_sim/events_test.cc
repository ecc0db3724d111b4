// The event table's parts on their own: the signal page owner and the table without a SimFile around it.
#include "testing/kfd_sim/events.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <utility>

#include "base/units.h"
#include "gtest/gtest.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/memfd.h"
#include "testing/status_matchers.h"

namespace hipmem::kfd_sim::sim_internal {
namespace {

namespace uapi = ::hipmem::kfd_uapi;
using ::hipmem_testing::IsOk;

constexpr Bytes kPage = Bytes::KiB(32);

TEST(SignalPageTest, KernelPageStartsUnsignaled) {
  ASSERT_OK_AND_ASSIGN(SignalPage page, SignalPage::AllocateKernelPage());
  EXPECT_EQ(page.size(), kPage);
  ASSERT_EQ(page.slot_count(), uapi::kSignalEventLimit);
  EXPECT_EQ(page.Load(0), uapi::kUnsignaledEventSlot);
  EXPECT_EQ(page.Load(uapi::kSignalEventLimit - 1), uapi::kUnsignaledEventSlot);
}

TEST(SignalPageTest, MappedBufferSharesPagesWithOtherMappings) {
  ASSERT_OK_AND_ASSIGN(MemFd buffer, MemFd::Create("signal page test", kPage));
  void* user = mmap(nullptr, kPage.raw(), PROT_READ | PROT_WRITE, MAP_SHARED, buffer.fd(), 0);
  ASSERT_NE(user, MAP_FAILED);
  volatile uint64_t* slots = static_cast<volatile uint64_t*>(user);
  ASSERT_OK_AND_ASSIGN(SignalPage page, SignalPage::MapBuffer(buffer.fd(), kPage));
  EXPECT_EQ(slots[3], 0u) << "a fresh buffer is zero until the kernel adopts it";
  page.Clear();
  EXPECT_EQ(slots[3], uapi::kUnsignaledEventSlot);
  slots[3] = 3;
  EXPECT_EQ(page.Load(3), 3u);
  page.Store(3, 7);
  EXPECT_EQ(slots[3], 7u);
  munmap(user, kPage.raw());
}

TEST(SignalPageTest, MappingAnInvalidFdFails) {
  // mmap's EBADF, through absl::ErrnoToStatus.
  EXPECT_EQ(SignalPage::MapBuffer(-1, kPage).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(SignalPageTest, MoveEmptiesTheSourceAndSelfMoveIsHarmless) {
  ASSERT_OK_AND_ASSIGN(SignalPage a, SignalPage::AllocateKernelPage());
  a.Store(1, 42);
  SignalPage b = std::move(a);
  EXPECT_EQ(a.slot_count(), 0u);  // NOLINT(bugprone-use-after-move): the contract under test
  EXPECT_EQ(b.Load(1), 42u);
  ASSERT_OK_AND_ASSIGN(SignalPage c, SignalPage::AllocateKernelPage());
  c = std::move(b);  // unmaps c's old page
  EXPECT_EQ(c.Load(1), 42u);
  SignalPage& alias = c;
  c = std::move(alias);
  EXPECT_EQ(c.Load(1), 42u);
}

TEST(EventTableTest, SecondSignalPageIsBusy) {
  EventTable table;
  ASSERT_OK_AND_ASSIGN(SignalPage first, SignalPage::AllocateKernelPage());
  ASSERT_OK_AND_ASSIGN(SignalPage second, SignalPage::AllocateKernelPage());
  EXPECT_EQ(table.SetSignalPage(std::move(first), 0x1234), 0);
  EXPECT_TRUE(table.HasSignalPage());
  EXPECT_EQ(table.signal_handle(), 0x1234u);
  EXPECT_EQ(table.SetSignalPage(std::move(second), 0x5678), -EBUSY);
  EXPECT_EQ(table.signal_handle(), 0x1234u);
}

TEST(EventTableTest, IdsAreTheLowestFreeOnesOfEachRange) {
  EventTable table;
  uapi::CreateEventArgs signal{};
  signal.event_type = uapi::ToRaw(uapi::EventType::kSignal);
  uapi::CreateEventArgs memory{};
  memory.event_type = uapi::ToRaw(uapi::EventType::kMemory);
  for (uint32_t want : {1u, 2u, 3u}) {
    ASSERT_EQ(table.Create(signal), 0);
    EXPECT_EQ(signal.event_id, want);
  }
  for (uint32_t want : {0x40000000u, 0x40000001u}) {
    ASSERT_EQ(table.Create(memory), 0);
    EXPECT_EQ(memory.event_id, want);
  }
  ASSERT_EQ(table.Destroy(2), 0);
  ASSERT_EQ(table.Destroy(0x40000000), 0);
  ASSERT_EQ(table.Create(signal), 0);
  EXPECT_EQ(signal.event_id, 2u);
  ASSERT_EQ(table.Create(memory), 0);
  EXPECT_EQ(memory.event_id, 0x40000000u);
  ASSERT_EQ(table.Create(signal), 0);
  EXPECT_EQ(signal.event_id, 4u);
  EXPECT_EQ(table.Snapshot().size(), 6u);
}

TEST(EventTableTest, UnknownTypesAreNonSignalEvents) {
  // The kernel does not validate event_type: anything but SIGNAL and DEBUG is a "non-signal" event.
  EventTable table;
  uapi::CreateEventArgs odd{};
  odd.event_type = 42;
  ASSERT_EQ(table.Create(odd), 0);
  EXPECT_EQ(odd.event_id, 0x40000000u);
  EXPECT_EQ(odd.event_page_offset, 0u);
  EXPECT_FALSE(table.HasSignalPage());
}

}  // namespace
}  // namespace hipmem::kfd_sim::sim_internal
