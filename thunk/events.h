// KFD events: the thunk's side of the kernel's kfd_events.c.
//
// Plays libhsakmt's events.c (hsaKmtCreateEvent ... hsaKmtWaitOnMultipleEvents). An event is a kernel
// object of one KFD process, named by an EventId. SIGNAL (and DEBUG) events also get an 8-byte slot, their
// "mailbox", in the process's event page (Kfd::CreateEventWithPage): a GPU writes it and raises an
// interrupt carrying the event's trigger data, and the kernel then sets the event. Waiting blocks in the
// kernel (AMDKFD_IOC_WAIT_EVENTS), never spins.
//
// Two layers: free functions on an EventHandle (a copyable name, what upstream's HsaEvent holds and what
// the hsaKmt* shells in hsakmt_events.cc use), and the move-only Event owner for C++ callers, whose
// destructor destroys the event. Both are thread-safe: each call is one or two ioctls, serialised by the
// kernel.
#ifndef HIPMEM_THUNK_EVENTS_H_
#define HIPMEM_THUNK_EVENTS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/strong_id.h"
#include "base/units.h"
#include "thunk/kfd.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// A KFD event id: unique within one process while the event lives. The kernel reuses freed ids.
using EventId = StrongId<struct EventIdTag, uint32_t>;

// HSA_EVENTTYPE, whose values are the kernel's KFD_IOC_EVENT_*.
enum class EventType : uint32_t {
  kSignal = 0,
  kNodeChange = 1,
  kDeviceStateChange = 2,
  kHwException = 3,
  kSystemEvent = 4,
  kDebugEvent = 5,
  kProfileEvent = 6,
  kQueueEvent = 7,
  kMemory = 8,
};
constexpr uint32_t ToRaw(EventType t) { return static_cast<uint32_t>(t); }

// True for the types user mode may set and reset (SIGNAL and DEBUG_EVENT, which "behave as signal
// events"); the others are system events only the kernel sets.
constexpr bool IsUserSignaledType(EventType t) { return t == EventType::kSignal || t == EventType::kDebugEvent; }

struct EventDescriptor {
  EventType type = EventType::kSignal;
  NodeId node{0};                   // the GPU node the event comes from; the kernel ignores it
  bool manual_reset = false;        // false: the wait it releases resets it
  bool initially_signaled = false;  // honoured for user-signaled types only, as upstream
};

// Names one live event of a process: what CREATE_EVENT answered. Copyable, non-owning.
struct EventHandle {
  EventId id;
  EventType type;
  uint32_t trigger_data;  // event_trigger_data: what a GPU sends to set it (HsaEventData.HWData3)
  uint64_t* mailbox;      // its slot in the event page (HWData2); null for system events
};

enum class WaitMode { kAny, kAll };

// What a MEMORY event reported (HsaMemoryAccessFault).
struct MemoryAccessFault {
  NodeId node;            // the node of the GPU that faulted
  DeviceAddress address;  // the faulting address (the kernel reports its page)
  bool not_present;
  bool read_only;
  bool no_execute;
  bool imprecise;
  uint32_t error_type;  // kfd_uapi::kMemErr*: 1 (SRAM ECC) and 2 (poison) are ECC failures
};

// A completed wait.
struct WaitResult {
  // One entry per waited event, in order: the fault a MEMORY event that fired reported, else nullopt.
  std::vector<std::optional<MemoryAccessFault>> memory_faults;
};

// Creates an event: AMDKFD_IOC_CREATE_EVENT (handing the kernel the event page with the process's first
// event), then SET_EVENT when a user-signaled type is to start signaled (a failed set destroys it again).
// Errors: kInvalidArgument INVALID_PARAMETER for a type beyond kMemory; HSAKMT_STATUS_ERROR, as upstream,
// when the kernel refuses (keeping its errno and canonical code: kResourceExhausted for -ENOSPC once the
// process's 4095 signal slots are in use) or the event page cannot be allocated.
absl::StatusOr<EventHandle> CreateEvent(Kfd& kfd, const EventDescriptor& descriptor);

// Destroys event `id`; its pending waits fail. Errors: HSAKMT_STATUS_ERROR with the kernel's -EINVAL
// (kInvalidArgument) for an id the process does not have, e.g. one destroyed already.
absl::Status DestroyEvent(Kfd& kfd, EventId id);

// Signals / clears `event`. Errors: HSAKMT_STATUS_ERROR, kInvalidArgument, for a system event type
// (upstream refuses without asking the kernel) or an id the kernel does not know.
absl::Status SetEvent(Kfd& kfd, const EventHandle& event);
absl::Status ResetEvent(Kfd& kfd, const EventHandle& event);

// Returns the kernel's WAIT_EVENTS timeout for `timeout`: 0 polls, InfiniteDuration() waits forever, a
// finite duration is rounded up to whole milliseconds and capped just below the "infinite" value.
uint32_t KfdTimeoutMs(absl::Duration timeout);

// Waits until all or any of `events` are signaled, consuming the signal of auto-reset ones, for at most
// `timeout` (see KfdTimeoutMs). An empty `events` completes at once, as the kernel does.
// Errors: WaitTimeoutError (kDeadlineExceeded, HSAKMT_STATUS_WAIT_TIMEOUT) when the time passes first;
// HSAKMT_STATUS_ERROR with the kernel's errno when it refuses: kInvalidArgument (-EINVAL) for an event
// the process does not have, kUnknown (-EIO) when a waited event was destroyed meanwhile;
// InvalidNodeUnitError when a fault names a GPU the topology does not have.
//
// `event_ages` (hsaKmtWaitOnMultipleEvents_Ext; KFD 1.14+ event age), when not empty, has one entry per event: for
// a SIGNAL event a non-zero entry is the age the caller last saw, and the wait completes at once for an event set
// since then; on return the entry holds the age the kernel reported for an event that fired (else it is left as
// it was). Entries of other event types, and zeros, are ignored. kInvalidArgument (INVALID_PARAMETER) when its
// size differs from `events`'.
absl::StatusOr<WaitResult> WaitOnEvents(Kfd& kfd, std::span<const EventHandle> events, WaitMode mode,
                                        absl::Duration timeout, std::span<uint64_t> event_ages = {});

// Owns one KFD event and destroys it when dropped (logging a failure). Move-only; a moved-from Event is
// empty and its methods answer kFailedPrecondition. Thread-safe as the functions above, except that
// moving, freeing or destroying must not race other uses of the same object.
class Event {
 public:
  // CreateEvent, adopted. `kfd` must outlive the Event.
  static absl::StatusOr<Event> Create(Kfd& kfd, const EventDescriptor& descriptor);

  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  ~Event();

  // The event's handle; meaningless once empty.
  const EventHandle& handle() const { return handle_; }
  EventId id() const { return handle_.id; }
  bool empty() const { return kfd_ == nullptr; }

  absl::Status Set() const;
  absl::Status Reset() const;

  // Waits for this event alone (WaitOnEvents of one).
  absl::StatusOr<WaitResult> Wait(absl::Duration timeout) const;

  // WaitOnEvents over several owners. kInvalidArgument when one is null, empty, or of another Kfd.
  static absl::StatusOr<WaitResult> WaitMultiple(std::span<const Event* const> events, WaitMode mode,
                                                 absl::Duration timeout);

  // Destroys the event now and reports the kernel's verdict; empty afterwards either way.
  absl::Status Free() &&;

  // Gives up ownership without destroying: DestroyEvent or closing the Kfd ends the event.
  [[nodiscard]] EventHandle Release() &&;

 private:
  Event(Kfd* kfd, EventHandle handle) : kfd_(kfd), handle_(handle) {}

  absl::Status CheckNotEmpty(const char* operation) const;

  Kfd* kfd_;  // Not owned; must outlive this. Null when empty.
  EventHandle handle_;
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_EVENTS_H_
