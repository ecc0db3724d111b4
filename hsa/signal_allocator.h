// Where HSA signals live: their amd_signal_t in GPU-mapped system memory, and the KFD events that wake
// their waiters. Internal to hsa/ (signal.h is the API): this header names the thunk, so only hsa's own .cc
// files include it; hsa headers a client may include forward-declare SignalAllocator and SignalCore instead.
//
// Plays ROCr's SharedSignalPool_t (signal.cpp: blocks of signal ABI structs from the fine-grained system
// allocator, with NonPaged set, handed out from a free list and kept until the runtime goes) and
// InterruptSignal::EventPool (interrupt_signal.cpp: auto-reset SIGNAL events, created on demand, recycled
// when their signal goes; while the KFD refuses them, new interrupt signals get none and are polled). Unlike
// ROCr's pool, which keeps every event it ever made, this one keeps a bounded number idle and gives the rest
// back to the KFD: a burst of pending signals would otherwise hold the process's 4,095 signal-event slots for
// good, and the copy engines made later need slots of their own (issue #24). A signal's handle is
// the address of its amd_signal_t (ROCr's Signal::Convert), which is also its GPU address: the memory is
// mapped on every GPU, so a queue's completion write (CP or SDMA) lands in the value waiters read.
#ifndef HIPMEM_HSA_SIGNAL_ALLOCATOR_H_
#define HIPMEM_HSA_SIGNAL_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "gpu_abi/aql_packets.h"
#include "hsa/signal_kind.h"
#include "thunk/events.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

// amd_signal_t (ROCr's amd_hsa_signal.h, v1: 64 bytes, 64-byte aligned). The simulated CP reads the same
// definition, so what the runtime writes is what the hardware model sees.
using AmdSignal = gpu_abi::aql::AmdSignal;

class SignalAllocator;

// One amd_signal_t slot, lent by a SignalAllocator and given back (its kind set to INVALID) when dropped.
// Move-only; a moved-from slot is empty.
class SignalSlot {
 public:
  SignalSlot(SignalSlot&& other) noexcept;
  SignalSlot& operator=(SignalSlot&& other) noexcept;
  SignalSlot(const SignalSlot&) = delete;
  SignalSlot& operator=(const SignalSlot&) = delete;
  ~SignalSlot();

  // Null once empty.
  AmdSignal* get() const { return abi_; }

 private:
  friend class SignalAllocator;
  SignalSlot(SignalAllocator* owner, AmdSignal* abi) : owner_(owner), abi_(abi) {}

  SignalAllocator* owner_;  // Not owned; must outlive this. Null when empty.
  AmdSignal* abi_;
};

// One auto-reset KFD signal event, lent by a SignalAllocator's pool and given back when dropped. Move-only.
class PooledEvent {
 public:
  PooledEvent(PooledEvent&& other) noexcept;
  PooledEvent& operator=(PooledEvent&& other) noexcept;
  PooledEvent(const PooledEvent&) = delete;
  PooledEvent& operator=(const PooledEvent&) = delete;
  ~PooledEvent();

  const thunk::EventHandle& handle() const { return event_.handle(); }
  // hsaKmtSetEvent: wakes the event's waiters (or the next one, if none sleeps yet).
  absl::Status Set() const { return event_.Set(); }

 private:
  friend class SignalAllocator;
  PooledEvent(SignalAllocator* owner, thunk::Event event) : owner_(owner), event_(std::move(event)) {}

  SignalAllocator* owner_;  // Not owned; must outlive this. Null when empty.
  thunk::Event event_;
};

// Everything one signal holds, shared (ROCr's Retain/Release) by its owner and every operation in flight, so
// a signal destroyed while a thread waits on it stays readable until the wait returns. The slot and the
// event go back to the allocator with the last reference.
struct SignalCore {
  SignalCore(SignalSlot slot, std::optional<PooledEvent> event, SignalKind kind, thunk::Kfd* kfd, bool event_age)
      : slot(std::move(slot)), event(std::move(event)), kind(kind), kfd(kfd), event_age(event_age) {}

  const SignalSlot slot;
  // Set for an interrupt signal unless the process's events were used up when it was made.
  const std::optional<PooledEvent> event;
  const SignalKind kind;
  thunk::Kfd* const kfd;  // Not owned; must outlive this.
  const bool event_age;   // the KFD reports event ages (1.14+): waits pass the age they last saw
  // Threads waiting on the signal: a change to the value sets the event only when there are some (ROCr's
  // waiting_ and InterruptSignal::SetEvent).
  std::atomic<uint32_t> waiters{0};
  // hsa_signal_destroy happened: the handle is gone, waits return 0.
  std::atomic<bool> destroyed{false};
  // The newest age of the event a wait has seen (1: none yet), which the next wait starts from, so it sleeps
  // in its first WAIT_EVENTS instead of being sent back at once for sets it has no use for. Read before a
  // wait's first look at the value, it can hold no set that comes after that look (see WaitSession).
  std::atomic<uint64_t> seen_event_age{1};
};

// Hands out signal slots and events for one KFD process. Thread-safe.
class SignalAllocator {
 public:
  // `kfd` must outlive the allocator. Without `interrupts` (HSA_ENABLE_INTERRUPT=0) every signal is a
  // default one. Nothing is allocated yet.
  SignalAllocator(thunk::Kfd& kfd, bool interrupts);
  // Frees the signal memory and the pooled events, after waiting up to a second for slots still lent (a
  // waiter leaving a destroyed signal); logs the ones that stay lent (signals that outlive it).
  ~SignalAllocator();
  SignalAllocator(const SignalAllocator&) = delete;
  SignalAllocator& operator=(const SignalAllocator&) = delete;

  // Makes a signal's core: a zeroed amd_signal_t of kind USER holding `initial`; for kInterrupt (when
  // interrupts are on) also an event, whose mailbox address and id go into event_mailbox_ptr / event_id.
  // When the KFD refuses more events the signal gets none (logged once) and is polled, as ROCr's event pool
  // degrades; once an event has been given back to the KFD, new interrupt signals try again. Errors: allocating or mapping a new block of signal memory (the thunk's, e.g.
  // kResourceExhausted); creating an event for another reason than exhaustion.
  absl::StatusOr<std::shared_ptr<SignalCore>> Allocate(int64_t initial, SignalKind kind);

  bool interrupts() const { return interrupts_; }
  thunk::Kfd& kfd() const { return kfd_; }

  // The first block holds 64 signals; each new block is twice the last, up to kMaxBlock.
  static constexpr Bytes kFirstBlock = Bytes::KiB(4);
  static constexpr Bytes kMaxBlock = Bytes::MiB(1);
  // Idle events kept for the next interrupt signals; one more is destroyed, its KFD slot free for anyone.
  static constexpr size_t kMaxIdleEvents = 256;

 private:
  friend class SignalSlot;
  friend class PooledEvent;
  class Block;  // one allocation of signal memory

  absl::StatusOr<SignalSlot> TakeSlot();
  absl::StatusOr<std::optional<PooledEvent>> TakeEvent();
  void Return(AmdSignal* abi);
  void Return(thunk::Event event);

  thunk::Kfd& kfd_;
  const bool interrupts_;
  const bool event_age_;

  absl::Mutex mu_;
  std::vector<Block> blocks_ ABSL_GUARDED_BY(mu_);
  Bytes next_block_ ABSL_GUARDED_BY(mu_) = kFirstBlock;
  std::vector<AmdSignal*> free_slots_ ABSL_GUARDED_BY(mu_);
  size_t slots_lent_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<thunk::Event> free_events_ ABSL_GUARDED_BY(mu_);
  // The KFD refused an event and none has been given back since: new interrupt signals are polled.
  bool events_exhausted_ ABSL_GUARDED_BY(mu_) = false;
  bool exhaustion_logged_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SIGNAL_ALLOCATOR_H_
