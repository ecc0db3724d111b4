// hsaKmt* C entry points for events: thin shells over thunk/events.h on the shared thunk::Kfd. They
// convert HsaEvent to and from EventHandle, call the C++ API, and return ToHsakmtStatus(status).
//
// Every HsaEvent handed out is heap-allocated and remembered here, with the KFD that created it, until
// hsaKmtDestroyEvent frees it (or the last hsaKmtCloseKFD retires it), so a pointer this library did not hand
// out, has freed already, or that belonged to a closed KFD answers HSAKMT_STATUS_ERROR (what upstream's kernel
// round trip answers for an unknown event) without the memory being read. So does an event a forked child
// inherited, once the child has opened a KFD of its own (before that, every call answers
// KERNEL_IO_CHANNEL_NOT_OPENED): the parent's event id means nothing to the child's KFD, and may name one of the
// child's own events, which upstream, passing the id to the kernel, would set, wait on or destroy. Unlike
// upstream, a copy of an HsaEvent is not an event.
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/units.h"
#include "hsakmt/hsakmt.h"
#include "thunk/events.h"
#include "thunk/hsakmt_status.h"
#include "thunk/kfd.h"
#include "thunk/shared_kfd.h"

namespace hipmem::thunk {
namespace {

// A live event and the KFD it is an event of. A forked child's KFD is never the parent's: the parent's instance
// stays allocated in the child (shared_kfd.cc), so no later instance can reuse its address.
struct LiveEvent {
  std::unique_ptr<HsaEvent> event;
  const Kfd* owner;  // Not owned.
};
using EventMap = absl::flat_hash_map<const HsaEvent*, LiveEvent>;

ABSL_CONST_INIT absl::Mutex g_events_mu(absl::kConstInit);

// Never destroyed, like the shared Kfd: another thread may still be using an event at exit.
EventMap& LiveEvents() ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_events_mu) {
  static EventMap* const events = new EventMap();
  return *events;
}

EventHandle ToHandle(const HsaEvent& event) {
  return EventHandle{
      .id = EventId(event.EventId),
      .type = static_cast<EventType>(event.EventData.EventType),
      .trigger_data = event.EventData.HWData3,
      .mailbox = reinterpret_cast<uint64_t*>(static_cast<uintptr_t>(event.EventData.HWData2)),
  };
}

absl::Duration FromMilliseconds(HSAuint32 milliseconds) {
  return milliseconds == HSA_EVENTTIMEOUT_INFINITE ? absl::InfiniteDuration() : absl::Milliseconds(milliseconds);
}

void FillMemoryAccessFault(const MemoryAccessFault& fault, HsaMemoryAccessFault& out) {
  out.NodeId = fault.node.raw();
  out.VirtualAddress = fault.address.raw();
  out.Failure.NotPresent = fault.not_present ? 1 : 0;
  out.Failure.ReadOnly = fault.read_only ? 1 : 0;
  out.Failure.NoExecute = fault.no_execute ? 1 : 0;
  out.Failure.Imprecise = fault.imprecise ? 1 : 0;
  out.Failure.ErrorType = fault.error_type & 0x7;
  out.Failure.ECC = fault.error_type == 1 || fault.error_type == 2 ? 1 : 0;
  out.Flags = HSA_EVENTID_MEMORY_FATAL_PROCESS;
}

HSAKMT_STATUS Done(const absl::Status& status) { return ToHsakmtStatus(status); }

// Finds `event` among the live events of `kfd`; never dereferences anything else, so a destroyed event, a
// stranger, one of a closed KFD or one a forked child inherited from its parent is refused (HSAKMT_STATUS_ERROR,
// what the kernel answers for an id it does not know) instead of being read or, worse, naming another event of
// this process or a later one.
absl::StatusOr<EventMap::iterator> FindLive(const Kfd& kfd, const HsaEvent* event, const char* call)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_events_mu) {
  const auto it = LiveEvents().find(event);
  if (it == LiveEvents().end()) {
    return WithHsakmtStatus(
        absl::NotFoundError(absl::StrCat(call, "(", AddressText(event), "): not a live event of hsaKmtCreateEvent")),
        HSAKMT_STATUS_ERROR);
  }
  if (it->second.owner != &kfd) {
    return WithHsakmtStatus(absl::NotFoundError(absl::StrCat(call, "(", AddressText(event),
                                                             "): an event of another KFD (inherited across fork)")),
                            HSAKMT_STATUS_ERROR);
  }
  return it;
}

// Copies the handle of `event` if it is a live event of `kfd` (FindLive).
absl::StatusOr<EventHandle> LiveHandle(const Kfd& kfd, const HsaEvent* event, const char* call) {
  ScopedLock lock(&g_events_mu);
  ASSIGN_OR_RETURN(const EventMap::iterator it, FindLive(kfd, event, call));
  return ToHandle(*it->second.event);
}

// The last hsaKmtCloseKFD ends the process and its events. Their HsaEvents are kept (never freed: callers may
// still hold the pointers) but are no longer live.
void RetireAllEvents(Kfd&) {
  static auto* const retired = new std::vector<std::unique_ptr<HsaEvent>>();
  ScopedLock lock(&g_events_mu);
  for (auto& [raw, live] : LiveEvents()) retired->push_back(std::move(live.event));
  LiveEvents().clear();
}

}  // namespace
}  // namespace hipmem::thunk

using hipmem::thunk::Done;
using hipmem::thunk::Kfd;

#define HSAKMT_EVENTS_KFD_OR_RETURN(kfd)                      \
  absl::StatusOr<Kfd*> kfd##_or = hipmem::thunk::SharedKfd(); \
  if (!kfd##_or.ok()) return Done(kfd##_or.status());         \
  Kfd& kfd = **kfd##_or

extern "C" {

HSAKMT_STATUS HSAKMTAPI hsaKmtCreateEvent(HsaEventDescriptor* EventDesc, bool ManualReset, bool IsSignaled,
                                          HsaEvent** Event) {
  HSAKMT_EVENTS_KFD_OR_RETURN(kfd);
  if (EventDesc == nullptr || Event == nullptr) return HSAKMT_STATUS_INVALID_PARAMETER;
  static const bool hooked = (hipmem::thunk::AddSharedKfdCloseHook(&hipmem::thunk::RetireAllEvents), true);
  (void)hooked;
  *Event = nullptr;
  const absl::StatusOr<hipmem::thunk::EventHandle> handle = hipmem::thunk::CreateEvent(
      kfd, hipmem::thunk::EventDescriptor{
               .type = static_cast<hipmem::thunk::EventType>(EventDesc->EventType),
               .node = hipmem::thunk::NodeId(EventDesc->NodeId),
               .manual_reset = ManualReset,
               .initially_signaled = IsSignaled,
           });
  if (!handle.ok()) return Done(handle.status());

  auto event = std::make_unique<HsaEvent>();
  std::memset(event.get(), 0, sizeof(HsaEvent));
  event->EventId = handle->id.raw();
  event->EventData.EventType = EventDesc->EventType;
  event->EventData.HWData1 = handle->id.raw();
  event->EventData.HWData2 = reinterpret_cast<uintptr_t>(handle->mailbox);
  event->EventData.HWData3 = handle->trigger_data;
  event->EventData.EventData.SyncVar.SyncVar.UserData = EventDesc->SyncVar.SyncVar.UserData;
  event->EventData.EventData.SyncVar.SyncVarSize = EventDesc->SyncVar.SyncVarSize;
  HsaEvent* raw = event.get();
  {
    hipmem::ScopedLock lock(&hipmem::thunk::g_events_mu);
    hipmem::thunk::LiveEvents().emplace(raw, hipmem::thunk::LiveEvent{std::move(event), &kfd});
  }
  *Event = raw;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtDestroyEvent(HsaEvent* Event) {
  HSAKMT_EVENTS_KFD_OR_RETURN(kfd);
  if (Event == nullptr) return HSAKMT_STATUS_INVALID_HANDLE;
  hipmem::ScopedLock lock(&hipmem::thunk::g_events_mu);
  const absl::StatusOr<hipmem::thunk::EventMap::iterator> it =
      hipmem::thunk::FindLive(kfd, Event, "hsaKmtDestroyEvent");
  if (!it.ok()) return Done(it.status());
  const absl::Status status = hipmem::thunk::DestroyEvent(kfd, hipmem::thunk::EventId(Event->EventId));
  // As upstream, the HsaEvent is freed only once the kernel let go of the event.
  if (status.ok()) hipmem::thunk::LiveEvents().erase(*it);
  return Done(status);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetEvent(HsaEvent* Event) {
  HSAKMT_EVENTS_KFD_OR_RETURN(kfd);
  if (Event == nullptr) return HSAKMT_STATUS_INVALID_HANDLE;
  const absl::StatusOr<hipmem::thunk::EventHandle> handle = hipmem::thunk::LiveHandle(kfd, Event, "hsaKmtSetEvent");
  if (!handle.ok()) return Done(handle.status());
  return Done(hipmem::thunk::SetEvent(kfd, *handle));
}

HSAKMT_STATUS HSAKMTAPI hsaKmtResetEvent(HsaEvent* Event) {
  HSAKMT_EVENTS_KFD_OR_RETURN(kfd);
  if (Event == nullptr) return HSAKMT_STATUS_INVALID_HANDLE;
  const absl::StatusOr<hipmem::thunk::EventHandle> handle = hipmem::thunk::LiveHandle(kfd, Event, "hsaKmtResetEvent");
  if (!handle.ok()) return Done(handle.status());
  return Done(hipmem::thunk::ResetEvent(kfd, *handle));
}

// Upstream checks only its argument; the state is learnt by waiting.
HSAKMT_STATUS HSAKMTAPI hsaKmtQueryEventState(HsaEvent* Event) {
  HSAKMT_EVENTS_KFD_OR_RETURN(kfd);
  (void)kfd;
  if (Event == nullptr) return HSAKMT_STATUS_INVALID_HANDLE;
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents(HsaEvent* Events[], HSAuint32 NumEvents, bool WaitOnAll,
                                                   HSAuint32 Milliseconds) {
  return hsaKmtWaitOnMultipleEvents_Ext(Events, NumEvents, WaitOnAll, Milliseconds, nullptr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnMultipleEvents_Ext(HsaEvent* Events[], HSAuint32 NumEvents, bool WaitOnAll,
                                                       HSAuint32 Milliseconds, uint64_t* event_age) {
  HSAKMT_EVENTS_KFD_OR_RETURN(kfd);
  if (Events == nullptr) return HSAKMT_STATUS_INVALID_HANDLE;
  std::vector<hipmem::thunk::EventHandle> handles;
  handles.reserve(NumEvents);
  for (HSAuint32 i = 0; i < NumEvents; ++i) {
    if (Events[i] == nullptr) return HSAKMT_STATUS_INVALID_HANDLE;
    const absl::StatusOr<hipmem::thunk::EventHandle> handle =
        hipmem::thunk::LiveHandle(kfd, Events[i], "hsaKmtWaitOnMultipleEvents");
    if (!handle.ok()) return Done(handle.status());
    handles.push_back(*handle);
  }
  const hipmem::thunk::WaitMode mode = WaitOnAll ? hipmem::thunk::WaitMode::kAll : hipmem::thunk::WaitMode::kAny;
  // event_age, when given, has NumEvents entries (libhsakmt reads and writes one per SIGNAL event).
  const std::span<uint64_t> ages = event_age != nullptr ? std::span<uint64_t>(event_age, NumEvents)
                                                        : std::span<uint64_t>();
  const absl::StatusOr<hipmem::thunk::WaitResult> result =
      hipmem::thunk::WaitOnEvents(kfd, handles, mode, hipmem::thunk::FromMilliseconds(Milliseconds), ages);
  if (!result.ok()) return Done(result.status());
  for (HSAuint32 i = 0; i < NumEvents; ++i) {
    const std::optional<hipmem::thunk::MemoryAccessFault>& fault = result->memory_faults[i];
    if (fault) hipmem::thunk::FillMemoryAccessFault(*fault, Events[i]->EventData.EventData.MemoryAccessFault);
  }
  return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent(HsaEvent* Event, HSAuint32 Milliseconds) {
  return hsaKmtWaitOnEvent_Ext(Event, Milliseconds, nullptr);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtWaitOnEvent_Ext(HsaEvent* Event, HSAuint32 Milliseconds, uint64_t* event_age) {
  if (Event == nullptr) return HSAKMT_STATUS_INVALID_HANDLE;
  return hsaKmtWaitOnMultipleEvents_Ext(&Event, 1, true, Milliseconds, event_age);
}

}  // extern "C"
