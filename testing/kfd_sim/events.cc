#include "testing/kfd_sim/events.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/log.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/memfd.h"
#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_sim::sim_internal {

namespace uapi = ::hipmem::kfd_uapi;

namespace {

constexpr size_t kSlotBytes = sizeof(uint64_t);
constexpr Bytes kKernelPageSize(uint64_t{uapi::kSignalEventLimit} * kSlotBytes);

// Before user space mmaps the kernel's page, the kernel lets signal events use only the 256 slots the
// oldest user mode expected (allocate_event_notification_slot).
constexpr uint64_t kLegacyMappedSize = 256 * kSlotBytes;

// kfd_events.h: signal events use small ids (their slot), every other event the upper half of the
// non-negative int range.
constexpr uint32_t kFirstNonsignalEventId = (0x7fffffffu >> 1) + 1;
constexpr uint32_t kLastNonsignalEventId = 0x7fffffffu;

// sizeof(struct kfd_event_waiter) on x86-64 (a 40-byte wait_queue_entry, the event pointer, two bools)
// and kmalloc's ceiling (KMALLOC_MAX_SIZE): kcalloc of more waiters fails with -ENOMEM.
constexpr uint64_t kKernelWaiterBytes = 56;
constexpr uint64_t kKmallocMaxBytes = 4u << 20;

bool IsSignalType(uint32_t type) {
  return type == uapi::ToRaw(uapi::EventType::kSignal) || type == uapi::ToRaw(uapi::EventType::kDebugEvent);
}

absl::StatusOr<uint64_t*> MapShared(int fd, Bytes size, uint64_t offset = 0) {
  void* p = mmap(nullptr, size.raw(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(offset));
  if (p == MAP_FAILED) return absl::ErrnoToStatus(errno, "mmap(signal page)");
  (void)madvise(p, size.raw(), MADV_DONTFORK);  // the kernel's view of the page: not a forked child's
  return static_cast<uint64_t*>(p);
}

}  // namespace

// ---- SignalPage ----

absl::StatusOr<SignalPage> SignalPage::MapBuffer(int fd, Bytes size, uint64_t offset) {
  absl::StatusOr<uint64_t*> slots = MapShared(fd, size, offset);
  if (!slots.ok()) return slots.status();
  return SignalPage(*slots, size, std::nullopt);
}

absl::StatusOr<SignalPage> SignalPage::AllocateKernelPage() {
  absl::StatusOr<MemFd> backing = MemFd::Create("kfd_sim signal page", kKernelPageSize);
  if (!backing.ok()) return backing.status();
  absl::StatusOr<uint64_t*> slots = MapShared(backing->fd(), kKernelPageSize);
  if (!slots.ok()) return slots.status();
  SignalPage page(*slots, kKernelPageSize, *std::move(backing));
  page.Clear();
  return page;
}

SignalPage::SignalPage(SignalPage&& other) noexcept
    : slots_(std::exchange(other.slots_, nullptr)),
      size_(std::exchange(other.size_, Bytes(0))),
      backing_(std::exchange(other.backing_, std::nullopt)) {}

SignalPage& SignalPage::operator=(SignalPage&& other) noexcept {
  if (this != &other) {
    if (slots_ != nullptr && munmap(slots_, size_.raw()) != 0) {
      HIPMEM_LOG(kWarning, "munmap(signal page): errno ", errno);
    }
    slots_ = std::exchange(other.slots_, nullptr);
    size_ = std::exchange(other.size_, Bytes(0));
    backing_ = std::exchange(other.backing_, std::nullopt);
  }
  return *this;
}

SignalPage::~SignalPage() {
  if (slots_ != nullptr && munmap(slots_, size_.raw()) != 0) {
    HIPMEM_LOG(kWarning, "munmap(signal page): errno ", errno);
  }
}

void SignalPage::Clear() {
  // kfd_event_page_set memsets KFD_SIGNAL_EVENT_LIMIT slots whatever the buffer's size; a smaller buffer
  // would be overrun in the kernel, here it is cleared only as far as it goes.
  const size_t bytes = std::min<uint64_t>(size_.raw(), kKernelPageSize.raw());
  for (size_t i = 0; i < bytes / kSlotBytes; ++i) Store(i, uapi::kUnsignaledEventSlot);
}

uint64_t SignalPage::Load(size_t slot) const {
  return std::atomic_ref<uint64_t>(slots_[slot]).load(std::memory_order_acquire);
}

void SignalPage::Store(size_t slot, uint64_t value) {
  std::atomic_ref<uint64_t>(slots_[slot]).store(value, std::memory_order_release);
}

// ---- EventTable ----

class ABSL_SCOPED_LOCKABLE EventTable::WakingLock {
 public:
  explicit WakingLock(EventTable* table) ABSL_EXCLUSIVE_LOCK_FUNCTION(table->mu_) : table_(table), lock_(&table->mu_) {}
  // The analysis cannot see that lock_ holds table_->mu_ until the Unlock.
  ~WakingLock() ABSL_UNLOCK_FUNCTION() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    std::vector<std::shared_ptr<WaitEntry>> wake;
    wake.swap(table_->to_wake_);
    lock_.Unlock();
    for (const std::shared_ptr<WaitEntry>& entry : wake) entry->cv.notify_one();
  }
  WakingLock(const WakingLock&) = delete;
  WakingLock& operator=(const WakingLock&) = delete;

 private:
  EventTable* const table_;
  LightUniqueLock lock_;
};

EventTable::~EventTable() {
  LightLock lock(&mu_);
  for (const auto& [id, event] : events_) {
    HIPMEM_CHECK(event->waiters.empty(), "kfd_sim: process closed while a thread waits on event ", id);
  }
}

bool EventTable::HasSignalPage() const {
  LightLock lock(&mu_);
  return signal_page_.has_value();
}

uint64_t EventTable::signal_handle() const {
  LightLock lock(&mu_);
  return signal_handle_;
}

int EventTable::SetSignalPage(SignalPage page, uint64_t user_handle) {
  LightLock lock(&mu_);
  if (signal_page_) return -EBUSY;
  page.Clear();
  signal_mapped_size_ = page.size().raw();
  signal_page_ = std::move(page);
  signal_handle_ = user_handle;
  return 0;
}

EventTable::Event* EventTable::Find(uint32_t event_id) {
  const auto it = events_.find(event_id);
  return it == events_.end() ? nullptr : it->second.get();
}

std::optional<uint32_t> EventTable::LowestFreeId(uint32_t first, uint32_t last, size_t in_range) const {
  if (first > last) return std::nullopt;
  // Fast path, the common case: the `in_range` ids in [first, last] are exactly [first, highest].
  const auto above = events_.upper_bound(last);
  if (above == events_.begin() || std::prev(above)->first < first) return first;
  const uint32_t highest = std::prev(above)->first;
  if (uint64_t{highest} - first + 1 == in_range) {
    if (highest == last) return std::nullopt;
    return highest + 1;
  }
  // A hole: the lowest one, as idr_alloc finds it.
  uint32_t candidate = first;
  for (auto it = events_.lower_bound(first); it != events_.end() && it->first == candidate; ++it) {
    if (candidate == last) return std::nullopt;
    ++candidate;
  }
  return candidate;
}

int EventTable::CreateSignalSlot(Event& event) {
  // create_signal_event: the slots user space can address are all taken.
  if (signal_mapped_size_ != 0 && signal_event_count_ == signal_mapped_size_ / kSlotBytes) return -ENOSPC;
  // allocate_event_notification_slot: the first signal event without a user page gets the kernel's own.
  if (!signal_page_) {
    absl::StatusOr<SignalPage> page = SignalPage::AllocateKernelPage();
    if (!page.ok()) return -ENOMEM;
    signal_page_ = *std::move(page);
    signal_mapped_size_ = kLegacyMappedSize;
  }
  const uint64_t slots = std::min<uint64_t>(signal_mapped_size_ / kSlotBytes, signal_page_->slot_count());
  if (slots == 0) return -ENOSPC;
  // idr_alloc(0, slots): id 0 holds the reserved NULL entry, so signal ids are in [1, slots), and
  // signal_event_count_ counts them plus that entry.
  const auto last = static_cast<uint32_t>(std::min<uint64_t>(slots - 1, kFirstNonsignalEventId - 1));
  const std::optional<uint32_t> id = LowestFreeId(1, last, signal_event_count_ - 1);
  if (!id) return -ENOSPC;
  event.id = *id;
  signal_page_->Store(*id, uapi::kUnsignaledEventSlot);
  ++signal_event_count_;
  return 0;
}

int EventTable::Create(uapi::CreateEventArgs& args) {
  auto event = std::make_unique<Event>();
  event->type = args.event_type;
  event->auto_reset = args.auto_reset != 0;
  args.event_page_offset = 0;

  LightLock lock(&mu_);
  if (IsSignalType(event->type)) {
    if (const int err = CreateSignalSlot(*event); err != 0) return err;
    args.event_page_offset = uapi::kMmapTypeEvents;
    args.event_slot_index = event->id;
  } else {
    // create_other_event: idr_alloc in the upper half.
    const std::optional<uint32_t> id =
        LowestFreeId(kFirstNonsignalEventId, kLastNonsignalEventId, events_.size() - (signal_event_count_ - 1));
    if (!id) return -ENOSPC;
    event->id = *id;
  }
  args.event_id = event->id;
  args.event_trigger_data = event->id;
  const uint32_t id = event->id;
  events_.emplace(id, std::move(event));
  return 0;
}

int EventTable::Destroy(uint32_t event_id) {
  WakingLock lock(this);
  const auto it = events_.find(event_id);
  if (it == events_.end()) return -EINVAL;
  Event& event = *it->second;
  // destroy_event: pending waiters see their event vanish and fail.
  for (Waiter* waiter : event.waiters) {
    waiter->event = nullptr;
    to_wake_.push_back(waiter->wake);
  }
  if (IsSignalType(event.type)) --signal_event_count_;
  events_.erase(it);
  return 0;
}

void EventTable::SetLocked(Event& event) {
  // set_event: an auto-reset event with waiters is consumed by waking them.
  event.signaled = !event.auto_reset || event.waiters.empty();
  if (++event.event_age == 0) event.event_age = 2;  // never back to the reserved ages 0 and 1
  for (Waiter* waiter : event.waiters) {
    waiter->activated = true;
    to_wake_.push_back(waiter->wake);
  }
}

int EventTable::Set(uint32_t event_id) {
  WakingLock lock(this);
  Event* event = Find(event_id);
  if (event == nullptr || event->type != uapi::ToRaw(uapi::EventType::kSignal)) return -EINVAL;
  SetLocked(*event);
  return 0;
}

int EventTable::Reset(uint32_t event_id) {
  LightLock lock(&mu_);
  Event* event = Find(event_id);
  if (event == nullptr || event->type != uapi::ToRaw(uapi::EventType::kSignal)) return -EINVAL;
  event->signaled = false;
  return 0;
}

int EventTable::InitWaiter(Waiter& waiter, const uapi::EventData& data) {
  Event* event = Find(data.event_id);
  if (event == nullptr) return -EINVAL;
  waiter.event = event;
  waiter.activated = event->signaled;
  event->signaled = event->signaled && !event->auto_reset;
  // last_event_age 0 keeps the pre-1.14 behaviour.
  if (event->type == uapi::ToRaw(uapi::EventType::kSignal) && data.signal_event_data.last_event_age != 0) {
    waiter.event_age_enabled = true;
    if (event->event_age != data.signal_event_data.last_event_age) waiter.activated = true;
  }
  if (!waiter.activated) event->waiters.push_back(&waiter);
  return 0;
}

uapi::WaitResult EventTable::TestCondition(bool all, const std::vector<Waiter>& waiters) {
  size_t activated = 0;
  for (const Waiter& waiter : waiters) {
    if (waiter.event == nullptr) return uapi::WaitResult::kFail;
    if (waiter.activated) {
      if (!all) return uapi::WaitResult::kComplete;
      ++activated;
    }
  }
  return activated == waiters.size() ? uapi::WaitResult::kComplete : uapi::WaitResult::kTimeout;
}

int EventTable::CopySignaledData(const std::vector<Waiter>& waiters, uint64_t events_ptr) {
  for (size_t i = 0; i < waiters.size(); ++i) {
    const Waiter& waiter = waiters[i];
    if (waiter.event == nullptr) return -EINVAL;  // destroyed
    if (!waiter.activated) continue;
    const uint64_t element = events_ptr + i * sizeof(uapi::EventData);
    if (waiter.event->type == uapi::ToRaw(uapi::EventType::kMemory)) {
      if (!CopyToUser(element + offsetof(uapi::EventData, memory_exception_data), &waiter.event->memory_exception_data,
                      sizeof(uapi::MemoryExceptionData))) {
        return -EFAULT;
      }
    } else if (waiter.event->type == uapi::ToRaw(uapi::EventType::kHwException)) {
      if (!CopyToUser(element + offsetof(uapi::EventData, hw_exception_data), &waiter.event->hw_exception_data,
                      sizeof(uapi::HwExceptionData))) {
        return -EFAULT;
      }
    } else if (waiter.event->type == uapi::ToRaw(uapi::EventType::kSignal) && waiter.event_age_enabled) {
      if (!CopyToUser(element + offsetof(uapi::EventData, signal_event_data), &waiter.event->event_age,
                      sizeof(uint64_t))) {
        return -EFAULT;
      }
    }
  }
  return 0;
}

int EventTable::Wait(uapi::WaitEventsArgs& args) {
  const bool all = args.wait_for_all != 0;
  int ret = 0;
  uapi::WaitResult result = uapi::WaitResult::kFail;
  // alloc_event_waiters: kcalloc of num_events waiters.
  if (uint64_t{args.num_events} * kKernelWaiterBytes > kKmallocMaxBytes) {
    args.wait_result = uapi::ToRaw(uapi::WaitResult::kFail);
    return -ENOMEM;
  }
  // user_timeout_to_jiffies: the kernel treats values above 2^31 - 1 as that (finite) value.
  const bool infinite = args.timeout == uapi::kEventTimeoutInfinite;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(std::min<uint32_t>(args.timeout, 0x7fffffff));

  std::vector<Waiter> waiters(args.num_events);  // never reallocated: events point into it
  const auto entry = std::make_shared<WaitEntry>();  // this wait's wait-queue entry (shared by its waiters)
  for (Waiter& waiter : waiters) waiter.wake = entry;
  LightUniqueLock lock(&mu_);
  for (size_t i = 0; i < waiters.size() && ret == 0; ++i) {
    uapi::EventData data;
    if (!CopyFromUser(&data, args.events_ptr + i * sizeof(uapi::EventData), sizeof(data))) {
      ret = -EFAULT;
    } else {
      ret = InitWaiter(waiters[i], data);
    }
  }
  if (ret == 0) {
    // Check once, then sleep until the condition holds or the time is up, checking once more after the
    // last wake-up as schedule_timeout's loop does.
    while (true) {
      result = TestCondition(all, waiters);
      if (result != uapi::WaitResult::kTimeout) break;
      if (args.timeout == uapi::kEventTimeoutImmediate) break;
      if (infinite) {
        lock.Wait(entry->cv);
      } else if (!lock.WaitUntil(entry->cv, deadline)) {
        result = TestCondition(all, waiters);
        break;
      }
    }
    if (result == uapi::WaitResult::kComplete) ret = CopySignaledData(waiters, args.events_ptr);
  }
  // free_waiters: leave every wait queue still there.
  for (Waiter& waiter : waiters) {
    if (waiter.event == nullptr) continue;
    std::vector<Waiter*>& queue = waiter.event->waiters;
    queue.erase(std::remove(queue.begin(), queue.end(), &waiter), queue.end());
  }
  lock.Unlock();

  if (ret != 0) {
    result = uapi::WaitResult::kFail;
  } else if (result == uapi::WaitResult::kFail) {
    ret = -EIO;
  }
  args.wait_result = uapi::ToRaw(result);
  return ret;
}

void EventTable::SetFromInterrupt(Event* event) {
  if (event == nullptr || !IsSignalType(event->type)) return;
  // acknowledge_signal: the slot is free for the next signal.
  if (event->id < signal_page_->slot_count()) signal_page_->Store(event->id, uapi::kUnsignaledEventSlot);
  SetLocked(*event);
}

EventTable::Event* EventTable::SignaledByPartialId(uint32_t id, uint32_t bits) {
  if (!signal_page_ || id >= uapi::kSignalEventLimit) return nullptr;
  const size_t slots = signal_page_->slot_count();
  // The id is exact: it names the event if its slot was written.
  if (bits > 31 || (1u << bits) >= uapi::kSignalEventLimit) {
    if (id >= slots || signal_page_->Load(id) == uapi::kUnsignaledEventSlot) return nullptr;
    return Find(id);
  }
  // Only the low bits are known: the first written slot among the candidates.
  Event* event = nullptr;
  for (; id < uapi::kSignalEventLimit && id < slots && event == nullptr; id += 1u << bits) {
    if (signal_page_->Load(id) == uapi::kUnsignaledEventSlot) continue;
    event = Find(id);
  }
  return event;
}

void EventTable::InterruptLocked(uint32_t partial_id, uint32_t valid_id_bits) {
  Event* event = valid_id_bits != 0 ? SignaledByPartialId(partial_id, valid_id_bits) : nullptr;
  if (event != nullptr) {
    SetFromInterrupt(event);
    return;
  }
  if (!signal_page_) return;
  // The id did not identify a written slot: search every signaled slot.
  const size_t slots = std::min<size_t>(signal_page_->slot_count(), uapi::kSignalEventLimit);
  if (signal_event_count_ < uapi::kSignalEventLimit / 64) {
    std::vector<Event*> hits;
    for (const auto& [id, candidate] : events_) {
      if (id >= slots) break;
      if (signal_page_->Load(id) != uapi::kUnsignaledEventSlot) hits.push_back(candidate.get());
    }
    for (Event* hit : hits) SetFromInterrupt(hit);
  } else {
    for (uint32_t id = 1; id < slots; ++id) {
      if (signal_page_->Load(id) != uapi::kUnsignaledEventSlot) SetFromInterrupt(Find(id));
    }
  }
}

void EventTable::Interrupt(uint32_t partial_id, uint32_t valid_id_bits) {
  WakingLock lock(this);
  InterruptLocked(partial_id, valid_id_bits);
}

void EventTable::SignalFromEngine(uint32_t event_id) {
  WakingLock lock(this);
  Event* event = Find(event_id);
  if (event == nullptr || !IsSignalType(event->type)) return;
  // The engine's write to the mailbox (a RELEASE_MEM of the event id), then its interrupt.
  if (signal_page_ && event_id < signal_page_->slot_count()) signal_page_->Store(event_id, event_id);
  InterruptLocked(event_id, 32);
}

void EventTable::VmFault(const uapi::MemoryExceptionData& data) {
  WakingLock lock(this);
  for (auto it = events_.lower_bound(kFirstNonsignalEventId); it != events_.end(); ++it) {
    Event& event = *it->second;
    if (event.type != uapi::ToRaw(uapi::EventType::kMemory)) continue;
    event.memory_exception_data = data;
    SetLocked(event);
  }
}

void EventTable::HwException(const std::optional<uapi::HwExceptionData>& data) {
  WakingLock lock(this);
  for (auto it = events_.lower_bound(kFirstNonsignalEventId); it != events_.end(); ++it) {
    Event& event = *it->second;
    if (event.type != uapi::ToRaw(uapi::EventType::kHwException)) continue;
    if (data) event.hw_exception_data = *data;
    SetLocked(event);
  }
}

std::vector<EventState> EventTable::Snapshot() const {
  LightLock lock(&mu_);
  std::vector<EventState> states;
  states.reserve(events_.size());
  for (const auto& [id, event] : events_) {
    states.push_back(EventState{
        .id = id,
        .type = event->type,
        .auto_reset = event->auto_reset,
        .signaled = event->signaled,
        .event_age = event->event_age,
        .waiters = event->waiters.size(),
    });
  }
  return states;
}

}  // namespace hipmem::kfd_sim::sim_internal
