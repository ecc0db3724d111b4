// The event half of one simulated KFD process: its event table, its signal page and its waiters.
//
// Plays amdkfd's kfd_events.c (the per-process event_idr, signal_page and the wait queues of
// kfd_wait_on_events). SimFile (sim_file.cc) owns one EventTable per open file and calls it from the
// CREATE/DESTROY/SET/RESET_EVENT handlers, which run under the process lock, and from WAIT_EVENTS, which
// runs without it because a wait sleeps. The simulator's engines reach it through SimFile::SignalEvent,
// SignalEventInterrupt and RaiseMemoryException (see simulator.h).
//
// Kernel facts this reproduces (mainline kfd_events.c):
// - Event id 0 is reserved at process creation and signal_event_count starts at 1, so a process gets at
//   most (signal page slots - 1) signal events: 4095 with the 32 KiB page libhsakmt hands over, 255 with
//   the kernel's own page before user space mmaps it. One more answers -ENOSPC.
// - SIGNAL and DEBUG events take the lowest free id in [1, slots) and use it as their slot index; every
//   other type takes the lowest free id in [2^30, 2^31). Ids are reused once freed (idr_alloc).
// - Only SIGNAL events may be set or reset from the CPU (-EINVAL otherwise). Setting an auto-reset event
//   with waiters releases every current waiter and leaves it unsignaled; without waiters it stays signaled
//   until one wait consumes it. Every set bumps the event's age (1 at creation, never wraps to 0 or 1).
// - A wait resolves each id when it starts (-EINVAL for an unknown one, after consuming the auto-reset
//   signals of the ids before it), then sleeps until any/all are activated or the timeout passes
//   (wait_result TIMEOUT, return 0). Destroying a waited-on event fails the wait with -EIO.
#ifndef HIPMEM_TESTING_KFD_SIM_EVENTS_H_
#define HIPMEM_TESTING_KFD_SIM_EVENTS_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/status/statusor.h"
#include "base/light_mutex.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/memfd.h"

namespace hipmem::kfd_sim::sim_internal {

// A signal page as the kernel addresses it (kfd_signal_page): 8-byte slots behind a kernel-side mapping.
// Move-only; the destructor unmaps it. Thread-compatible; slot accesses are single atomic loads and
// stores (READ_ONCE/WRITE_ONCE), since user space and engines write the same page through their own
// mappings.
class SignalPage {
 public:
  // Maps `size` bytes of `fd` from `offset` (a buffer object's range of its backing store) shared, as
  // amdgpu_amdkfd_gpuvm_map_gtt_bo_to_kernel kmaps the event page user space allocated.
  // Errors: mmap's errno through absl::ErrnoToStatus.
  static absl::StatusOr<SignalPage> MapBuffer(int fd, Bytes size, uint64_t offset = 0);

  // Allocates the kernel's own page (allocate_signal_page): kSignalEventLimit slots in a fresh memfd.
  // Errors: memfd_create/ftruncate/mmap's errno through absl::ErrnoToStatus.
  static absl::StatusOr<SignalPage> AllocateKernelPage();

  SignalPage(const SignalPage&) = delete;
  SignalPage& operator=(const SignalPage&) = delete;
  SignalPage(SignalPage&& other) noexcept;
  SignalPage& operator=(SignalPage&& other) noexcept;
  ~SignalPage();

  // Both 0 once moved from.
  Bytes size() const { return size_; }
  size_t slot_count() const { return size_.raw() / sizeof(uint64_t); }

  // Sets every byte of the first min(size, kSignalEventLimit * 8) bytes to 0xff (all slots unsignaled).
  void Clear();
  // `slot` must be < slot_count().
  uint64_t Load(size_t slot) const;
  void Store(size_t slot, uint64_t value);

 private:
  SignalPage(uint64_t* slots, Bytes size, std::optional<MemFd> backing)
      : slots_(slots), size_(size), backing_(std::move(backing)) {}

  uint64_t* slots_ = nullptr;      // null once moved from
  Bytes size_;
  std::optional<MemFd> backing_;   // the kernel page's own store; nullopt for a mapped buffer
};

// One event as Snapshot() reports it.
struct EventState {
  uint32_t id;
  uint32_t type;  // kfd_uapi::EventType, raw: the kernel accepts any value
  bool auto_reset;
  bool signaled;
  uint64_t event_age;
  size_t waiters;  // waits currently queued on it
};

// The events of one KFD process. Thread-safe: one std::mutex (so ThreadSanitizer sees the sleeping
// waits' handoff through the std::condition_variable) guards everything; a waiting thread holds it only
// while it is awake. As the kernel's per-event wait queues, a set or destroy wakes only the waits queued
// on that event (each wait sleeps on its own condition variable), never every sleeper of the process.
class EventTable {
 public:
  EventTable() = default;
  EventTable(const EventTable&) = delete;
  EventTable& operator=(const EventTable&) = delete;
  // The process is gone (close()). No wait can still be running: a thread inside an ioctl holds the
  // file open. Aborts if one is, since that is a use-after-close by the caller.
  ~EventTable();

  // ---- the ioctls' kernel halves; each returns 0 or -errno ----

  // True once a signal page exists (handed over by user space or allocated by the first signal event).
  bool HasSignalPage() const;
  // The buffer handle user space handed over as the signal page (p->signal_handle), 0 when none.
  uint64_t signal_handle() const;

  // kfd_event_page_set: adopts `page` (user_handle's kernel mapping) as the signal page, clearing it.
  // -EBUSY when the process already has one.
  int SetSignalPage(SignalPage page, uint64_t user_handle);

  // kfd_event_create: reads event_type and auto_reset, fills event_id, event_trigger_data,
  // event_page_offset (the EVENTS mmap type for a signal event, else 0) and event_slot_index.
  // -ENOSPC when the signal slots are used up; -ENOMEM when the kernel page cannot be allocated.
  int Create(kfd_uapi::CreateEventArgs& args);

  // kfd_event_destroy: -EINVAL for an unknown id. Wakes the event's waiters, whose waits fail (-EIO).
  int Destroy(uint32_t event_id);

  // kfd_set_event / kfd_reset_event: -EINVAL for an unknown id or an event that is not a SIGNAL event.
  int Set(uint32_t event_id);
  int Reset(uint32_t event_id);

  // kfd_wait_on_events: reads num_events EventData at events_ptr, sleeps as described in the file
  // comment, writes wait_result and, on completion, the activated events' data back. Errors: -ENOMEM
  // when the kernel could not allocate num_events waiters; -EFAULT for an unreadable or unwritable
  // array; -EINVAL for an unknown id; -EIO when a waited-on event was destroyed. num_events 0 completes
  // at once (the kernel's loop over zero waiters), whatever events_ptr is.
  int Wait(kfd_uapi::WaitEventsArgs& args);

  // ---- what the hardware does (the simulator's engines and tests) ----

  // kfd_signal_event_interrupt: an event interrupt carrying the low `valid_id_bits` bits of an event id
  // (0: none). Sets the SIGNAL/DEBUG event whose slot is no longer unsignaled (acknowledging the slot),
  // scanning every slot when the id does not identify one.
  void Interrupt(uint32_t partial_id, uint32_t valid_id_bits);

  // What a GPU engine does to signal event `event_id`: writes the id into its slot (when the process
  // has a signal page and the slot exists), then raises the interrupt with the full id. No-op for an
  // id that is not a SIGNAL/DEBUG event.
  void SignalFromEngine(uint32_t event_id);

  // kfd_signal_vm_fault_event with SoC15 fault data: stores `data` in every MEMORY event and sets it.
  void VmFault(const kfd_uapi::MemoryExceptionData& data);

  // Sets every HW_EXCEPTION event. With `data` (kfd_signal_reset_event's per-process half) each event stores it;
  // without (kfd_signal_hw_exception_event, which passes none) a waiter reads back what the event held before.
  void HwException(const std::optional<kfd_uapi::HwExceptionData>& data = std::nullopt);

  // Every event, ascending id.
  std::vector<EventState> Snapshot() const;

 private:
  struct Event;
  // One waiting call's entry on the wait queues of its events: what a set or destroy notifies. Shared, so that
  // it can be notified after the table's lock is released, even if the wait has returned by then.
  struct WaitEntry {
    std::condition_variable cv;
  };
  // Holds mu_; on destruction releases it and only then notifies the waits activated meanwhile (to_wake_), so
  // a woken waiter does not run straight into the lock its waker still holds.
  class WakingLock;
  // One event of one wait (kfd_event_waiter). Lives on the waiting thread's stack.
  struct Waiter {
    Event* event = nullptr;  // null once the event is destroyed
    bool activated = false;
    bool event_age_enabled = false;
    std::shared_ptr<WaitEntry> wake;  // the waiting call's; notified when this activates or dies
  };
  struct Event {
    uint32_t id;
    uint32_t type;
    bool auto_reset;
    bool signaled = false;
    uint64_t event_age = 1;
    kfd_uapi::MemoryExceptionData memory_exception_data{};
    kfd_uapi::HwExceptionData hw_exception_data{};
    std::vector<Waiter*> waiters;  // the wait queue
  };
  using EventMap = absl::btree_map<uint32_t, std::unique_ptr<Event>>;

  static kfd_uapi::WaitResult TestCondition(bool all, const std::vector<Waiter>& waiters);
  Event* Find(uint32_t event_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // idr_alloc's choice in [first, last], which holds `in_range` events: the lowest free id.
  std::optional<uint32_t> LowestFreeId(uint32_t first, uint32_t last, size_t in_range) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int CreateSignalSlot(Event& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetLocked(Event& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SetFromInterrupt(Event* event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Event* SignaledByPartialId(uint32_t id, uint32_t bits) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void InterruptLocked(uint32_t partial_id, uint32_t valid_id_bits) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int InitWaiter(Waiter& waiter, const kfd_uapi::EventData& data) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int CopySignaledData(const std::vector<Waiter>& waiters, uint64_t events_ptr) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable LightMutex mu_;
  std::vector<std::shared_ptr<WaitEntry>> to_wake_ ABSL_GUARDED_BY(mu_);  // notified by the WakingLock
  EventMap events_ ABSL_GUARDED_BY(mu_);
  std::optional<SignalPage> signal_page_ ABSL_GUARDED_BY(mu_);
  uint64_t signal_mapped_size_ ABSL_GUARDED_BY(mu_) = 0;  // bytes user space may address
  uint64_t signal_handle_ ABSL_GUARDED_BY(mu_) = 0;
  uint32_t signal_event_count_ ABSL_GUARDED_BY(mu_) = 1;  // id 0 is reserved
};

}  // namespace hipmem::kfd_sim::sim_internal

#endif  // HIPMEM_TESTING_KFD_SIM_EVENTS_H_
