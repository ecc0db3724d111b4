#include "thunk/events.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"
#include "thunk/topology.h"

namespace hipmem::thunk {
namespace {

namespace uapi = ::hipmem::kfd_uapi;

static_assert(ToRaw(EventType::kSignal) == uapi::ToRaw(uapi::EventType::kSignal));
static_assert(ToRaw(EventType::kDebugEvent) == uapi::ToRaw(uapi::EventType::kDebugEvent));
static_assert(ToRaw(EventType::kMemory) == uapi::ToRaw(uapi::EventType::kMemory));

// libhsakmt turns every refused event ioctl into HSAKMT_STATUS_ERROR; the errno and its canonical code stay.
absl::Status KernelRefused(absl::Status status, absl::string_view context) {
  return WithHsakmtStatus(Annotate(status, context), HSAKMT_STATUS_ERROR);
}

std::string EventContext(absl::string_view op, EventId id) {
  return absl::StrCat(op, "(event_id=0x", absl::Hex(id.raw()), ")");
}

// hsaKmtSetEvent/ResetEvent: "don't allow system-defined events to be signaled".
absl::Status CheckUserSignaled(const EventHandle& event, absl::string_view op) {
  if (IsUserSignaledType(event.type)) return absl::OkStatus();
  return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(EventContext(op, event.id), ": event type ",
                                                                  ToRaw(event.type), " is set by the kernel only")),
                          HSAKMT_STATUS_ERROR);
}

// hsaKmtSetEvent/ResetEvent's one ioctl. The message is built only on a failure: ROCr sets an interrupt signal's
// event on every store to it.
template <typename Args>
absl::Status UserSignal(Kfd& kfd, const EventHandle& event, absl::string_view op,
                        const uapi::IoctlDescriptor<Args>& request) {
  RETURN_IF_ERROR(CheckUserSignaled(event, op));
  Args args{};
  args.event_id = event.id.raw();
  const absl::Status status = Ioctl(kfd.device(), request, args);
  if (!status.ok()) return KernelRefused(status, EventContext(op, event.id));
  return absl::OkStatus();
}

absl::StatusOr<NodeId> NodeOfGpu(const Kfd& kfd, uint32_t gpu_id) {
  for (const NodeProperties& node : kfd.topology().nodes) {
    if (node.gpu_id.has_value() && node.gpu_id->raw() == gpu_id) return node.id;
  }
  return InvalidNodeUnitError(absl::StrCat("gpu_id 0x", absl::Hex(gpu_id), " is no node of this topology"));
}

}  // namespace

absl::StatusOr<EventHandle> CreateEvent(Kfd& kfd, const EventDescriptor& descriptor) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtCreateEvent");
  // Built only on a failure: event creation is a hot path (ROCr makes one per interrupt signal).
  auto context = [&descriptor] {
    return absl::StrCat("hsaKmtCreateEvent(type=", ToRaw(descriptor.type), ", node=", descriptor.node.raw(), ")");
  };
  if (ToRaw(descriptor.type) > ToRaw(EventType::kMemory)) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context(), ": no such event type")),
                            HSAKMT_STATUS_INVALID_PARAMETER);
  }
  uapi::CreateEventArgs args{};
  args.event_type = ToRaw(descriptor.type);
  args.node_id = descriptor.node.raw();
  args.auto_reset = descriptor.manual_reset ? 0 : 1;
  absl::StatusOr<std::span<uint64_t>> slots = kfd.CreateEventWithPage([&](uint64_t event_page_offset) {
    args.event_page_offset = event_page_offset;
    return Ioctl(kfd.device(), uapi::kCreateEvent, args);
  });
  if (!slots.ok()) return KernelRefused(slots.status(), context());

  // As libhsakmt: a signal event's mailbox is its slot in the page, when the page has that slot.
  uint64_t* mailbox = nullptr;
  if (args.event_page_offset != 0 && args.event_slot_index < slots->size()) mailbox = &(*slots)[args.event_slot_index];
  const EventHandle handle{EventId(args.event_id), descriptor.type, args.event_trigger_data, mailbox};

  if (descriptor.initially_signaled && IsUserSignaledType(descriptor.type)) {
    if (absl::Status set = SetEvent(kfd, handle); !set.ok()) {
      if (absl::Status destroyed = DestroyEvent(kfd, handle.id); !destroyed.ok()) {
        HIPMEM_LOG(kError, "destroying an event whose initial set failed: ", destroyed.message());
      }
      return Annotate(set, context());
    }
  }
  return handle;
}

absl::Status DestroyEvent(Kfd& kfd, EventId id) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtDestroyEvent");
  uapi::DestroyEventArgs args{};
  args.event_id = id.raw();
  const absl::Status status = Ioctl(kfd.device(), uapi::kDestroyEvent, args);
  if (!status.ok()) return KernelRefused(status, EventContext("hsaKmtDestroyEvent", id));
  return absl::OkStatus();
}

absl::Status SetEvent(Kfd& kfd, const EventHandle& event) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtSetEvent");
  return UserSignal(kfd, event, "hsaKmtSetEvent", uapi::kSetEvent);
}

absl::Status ResetEvent(Kfd& kfd, const EventHandle& event) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtResetEvent");
  return UserSignal(kfd, event, "hsaKmtResetEvent", uapi::kResetEvent);
}

uint32_t KfdTimeoutMs(absl::Duration timeout) {
  if (timeout == absl::InfiniteDuration()) return uapi::kEventTimeoutInfinite;
  if (timeout <= absl::ZeroDuration()) return uapi::kEventTimeoutImmediate;
  const int64_t ms = absl::ToInt64Milliseconds(absl::Ceil(timeout, absl::Milliseconds(1)));
  return static_cast<uint32_t>(std::min<int64_t>(ms, int64_t{uapi::kEventTimeoutInfinite} - 1));
}

absl::StatusOr<WaitResult> WaitOnEvents(Kfd& kfd, std::span<const EventHandle> events, WaitMode mode,
                                        absl::Duration timeout, std::span<uint64_t> event_ages) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtWaitOnMultipleEvents");
  const uint32_t timeout_ms = KfdTimeoutMs(timeout);
  // Formatted only for an error or a timeout: every blocked signal wait comes through here.
  const auto context = [&] {
    return absl::StrCat("hsaKmtWaitOnMultipleEvents(num_events=", events.size(), ", ",
                        mode == WaitMode::kAll ? "all" : "any", ", timeout_ms=", timeout_ms, ")");
  };
  if (!event_ages.empty() && event_ages.size() != events.size()) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context(), ": ", event_ages.size(),
                                                                    " event ages for ", events.size(), " events")),
                            HSAKMT_STATUS_INVALID_PARAMETER);
  }
  // Only SIGNAL events carry an age (the kernel ignores it on other types; libhsakmt sends none for them).
  const auto tracks_age = [&](size_t i) { return !event_ages.empty() && events[i].type == EventType::kSignal; };
  std::vector<uapi::EventData> data(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    data[i] = uapi::EventData{};
    data[i].event_id = events[i].id.raw();
    if (tracks_age(i)) data[i].signal_event_data.last_event_age = event_ages[i];
  }
  uapi::WaitEventsArgs args{};
  args.events_ptr = reinterpret_cast<uintptr_t>(data.data());
  args.num_events = static_cast<uint32_t>(events.size());
  args.wait_for_all = mode == WaitMode::kAll ? 1 : 0;
  args.timeout = timeout_ms;
  const absl::Status status = Ioctl(kfd.device(), uapi::kWaitEvents, args);
  // The kernel writes an age back only for a fired event; the others keep what was sent, as upstream copies it.
  for (size_t i = 0; i < events.size(); ++i) {
    if (tracks_age(i)) event_ages[i] = data[i].signal_event_data.last_event_age;
  }
  if (!status.ok()) return KernelRefused(status, context());
  if (args.wait_result == uapi::ToRaw(uapi::WaitResult::kTimeout)) {
    return WaitTimeoutError(absl::StrCat(context(), ": timed out"));
  }

  WaitResult result;
  result.memory_faults.resize(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    // The kernel writes the fault only into the entries of MEMORY events that fired.
    const uapi::MemoryExceptionData& fault = data[i].memory_exception_data;
    if (events[i].type != EventType::kMemory || fault.gpu_id == 0) continue;
    ASSIGN_OR_RETURN(const NodeId node, NodeOfGpu(kfd, fault.gpu_id));
    result.memory_faults[i] = MemoryAccessFault{
        .node = node,
        .address = DeviceAddress(fault.va),
        .not_present = fault.failure.NotPresent != 0,
        .read_only = fault.failure.ReadOnly != 0,
        .no_execute = fault.failure.NoExecute != 0,
        .imprecise = fault.failure.imprecise != 0,
        .error_type = fault.ErrorType,
    };
  }
  return result;
}

// ---- Event ----

absl::StatusOr<Event> Event::Create(Kfd& kfd, const EventDescriptor& descriptor) {
  ASSIGN_OR_RETURN(const EventHandle handle, CreateEvent(kfd, descriptor));
  return Event(&kfd, handle);
}

Event::Event(Event&& other) noexcept : kfd_(std::exchange(other.kfd_, nullptr)), handle_(other.handle_) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    if (absl::Status s = std::move(*this).Free(); !s.ok()) HIPMEM_LOG(kError, "destroying an event: ", s.message());
    kfd_ = std::exchange(other.kfd_, nullptr);
    handle_ = other.handle_;
  }
  return *this;
}

Event::~Event() {
  if (absl::Status s = std::move(*this).Free(); !s.ok()) HIPMEM_LOG(kError, "destroying an event: ", s.message());
}

absl::Status Event::CheckNotEmpty(const char* operation) const {
  if (kfd_ != nullptr) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("Event::", operation, ": empty (moved from or freed)"));
}

absl::Status Event::Set() const {
  RETURN_IF_ERROR(CheckNotEmpty("Set"));
  return SetEvent(*kfd_, handle_);
}

absl::Status Event::Reset() const {
  RETURN_IF_ERROR(CheckNotEmpty("Reset"));
  return ResetEvent(*kfd_, handle_);
}

absl::StatusOr<WaitResult> Event::Wait(absl::Duration timeout) const {
  RETURN_IF_ERROR(CheckNotEmpty("Wait"));
  return WaitOnEvents(*kfd_, std::span<const EventHandle>(&handle_, 1), WaitMode::kAll, timeout);
}

absl::StatusOr<WaitResult> Event::WaitMultiple(std::span<const Event* const> events, WaitMode mode,
                                               absl::Duration timeout) {
  Kfd* kfd = nullptr;
  std::vector<EventHandle> handles;
  handles.reserve(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const Event* event = events[i];
    if (event == nullptr || event->empty()) {
      return absl::InvalidArgumentError(absl::StrCat("Event::WaitMultiple: event ", i, " is null or empty"));
    }
    if (kfd == nullptr) kfd = event->kfd_;
    if (event->kfd_ != kfd) {
      return absl::InvalidArgumentError(absl::StrCat("Event::WaitMultiple: event ", i, " belongs to another process"));
    }
    handles.push_back(event->handle_);
  }
  // Nothing to wait for: as the kernel, complete at once.
  if (kfd == nullptr) return WaitResult{};
  return WaitOnEvents(*kfd, handles, mode, timeout);
}

absl::Status Event::Free() && {
  Kfd* kfd = std::exchange(kfd_, nullptr);
  if (kfd == nullptr) return absl::OkStatus();
  return DestroyEvent(*kfd, handle_.id);
}

EventHandle Event::Release() && {
  kfd_ = nullptr;
  return handle_;
}

}  // namespace hipmem::thunk
