#include "hip/streams.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "clr/device_faults.h"
#include "clr/mem_pool.h"
#include "hip/hip_error.h"

namespace hipmem::hip {
namespace {

constexpr uint32_t kEventReleaseScopes = kEventDisableSystemFence | kEventReleaseToDevice | kEventReleaseToSystem;
constexpr uint32_t kKnownEventFlags = kEventBlockingSync | kEventDisableTiming | kEventInterprocess | kEventReleaseScopes;

// The per-thread streams are keyed by a number each thread draws once.
std::atomic<uint64_t> g_next_thread_key{1};
thread_local const uint64_t t_thread_key = g_next_thread_key.fetch_add(1);

// StreamTable::generation_ values: never reused, so a thread's remembered resolution can only match the table,
// and the table state, it came from.
std::atomic<uint64_t> g_next_generation{1};
uint64_t FreshGeneration() { return g_next_generation.fetch_add(1, std::memory_order_relaxed); }

// The last stream this thread resolved (StreamTable::Resolve's fast path: the pool hit and every stream-ordered
// call resolve a handle, and the table's lock was a fifth of a pool hit's cost).
struct Resolution {
  uint64_t generation = 0;
  uint64_t handle = 0;
  int device = -1;
  HipStream* stream = nullptr;
};
thread_local Resolution t_resolution;

std::string HandleText(uint64_t handle) { return absl::StrCat("0x", absl::Hex(handle)); }

// hip::Stream::Priority (High -1, Normal 0, Low 1) to the command queue's, as hipamd maps a clamped priority.
clr::StreamPriority QueuePriority(int priority) {
  if (priority <= StreamTable::kGreatestPriority) return clr::StreamPriority::kHigh;
  if (priority >= StreamTable::kLeastPriority) return clr::StreamPriority::kLow;
  return clr::StreamPriority::kNormal;
}

}  // namespace

absl::Status DeviceFaultAsHip(absl::Status status) {
  // A status that names its HIP code already keeps it (a launch beyond __launch_bounds__ is hipErrorLaunchFailure).
  if (status.GetPayload(kHipErrorPayloadUrl).has_value()) return status;
  // A kernel's trap or illegal instruction is no memory fault: CUDA's answer for a device trap is a failed launch.
  if (clr::IsKernelException(status)) return WithHipError(std::move(status), hipErrorLaunchFailure);
  // Only a fault: a thunk wait the kernel refused or an EINTR is kAborted too, and no illegal address.
  if (clr::IsGpuMemoryFault(status)) {
    return WithHipError(std::move(status), hipErrorIllegalAddress);
  }
  return status;
}

StreamTable::StreamTable(clr::Context& context) : context_(context), generation_(FreshGeneration()) {
  LightLock lock(&mu_);
  null_streams_.resize(context.devices().size());
}

StreamTable::~StreamTable() {
  // Events first (their markers hold stream signals), then every stream; each stream finishes its work.
  {
    LightLock lock(&mu_);
    ForgetResolutions();
    events_.clear();
    streams_.clear();
    per_thread_.clear();
    null_streams_.clear();
  }
  LightLock cooperative_lock(&cooperative_mu_);
  cooperative_.clear();  // after the streams whose work waited on them
}

absl::StatusOr<std::shared_ptr<clr::Stream>> StreamTable::Cooperative(int device) {
  ASSIGN_OR_RETURN(const clr::Device* d, context_.GetDevice(device));
  std::shared_ptr<clr::Stream> failed;  // destroyed after the lock, when this was its last holder
  LightLock lock(&cooperative_mu_);
  std::shared_ptr<clr::Stream>& stream = cooperative_[device];
  if (stream != nullptr) {
    absl::Status error = stream->Error();
    if (error.ok()) return stream;
    // A GPU memory fault fails every stream of the device until hipDeviceReset (which drops this one): a new stream
    // would fail the same way, so the launch gets its error from the failed one rather than a queue made per launch.
    if (!context_.faults().Error(d->agent).ok()) return stream;
    // hsa::Queues hands every holder of the agent's cooperative queue the same one: until the failed stream lets go
    // of it, a new stream would get the halted queue back (and write it behind the other's write index). Released
    // under the lock, so no other caller makes a stream in between; a thread still holding the failed stream keeps
    // its error.
    failed = std::move(stream);
    failed->ReleaseQueue(error);
  }
  ASSIGN_OR_RETURN(std::unique_ptr<clr::Stream> made, clr::Stream::CreateCooperative(context_, *d));
  stream = std::move(made);
  return stream;
}

void StreamTable::DropCooperative(int device) {
  std::shared_ptr<clr::Stream> dropped;  // destroyed after the lock, when this was its last holder
  LightLock lock(&cooperative_mu_);
  auto it = cooperative_.find(device);
  if (it == cooperative_.end()) return;
  dropped = std::move(it->second);
  cooperative_.erase(it);
  // Its work first, as every stream's at reset; then its queue, before another caller can ask for a new stream (the
  // lock), as in Cooperative.
  if (absl::Status finished = dropped->Finish(); !finished.ok()) {
    Trace(Layer::kHip, "hipDeviceReset: device ", device, "'s cooperative stream had failed: ", finished.message());
  }
  dropped->ReleaseQueue(absl::FailedPreconditionError(
      absl::StrCat("hipDeviceReset dropped device ", device, "'s cooperative stream")));
}

absl::StatusOr<std::unique_ptr<HipStream>> StreamTable::Make(int device, uint32_t flags, int priority, bool is_null) {
  ASSIGN_OR_RETURN(const clr::Device* d, context_.GetDevice(device));
  ASSIGN_OR_RETURN(std::unique_ptr<clr::Stream> queue, clr::Stream::Create(context_, *d, QueuePriority(priority)));
  ASSIGN_OR_RETURN(std::unique_ptr<clr::BlitManager> blit, clr::BlitManager::Create(context_, *queue));
  return std::unique_ptr<HipStream>(
      new HipStream(device, flags, priority, is_null, std::move(queue), std::move(blit)));
}

absl::StatusOr<StreamHandle> StreamTable::Create(int device, uint32_t flags, int priority) {
  if ((flags & ~kStreamNonBlocking) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("hipStreamCreateWithFlags: unknown flags 0x", absl::Hex(flags)));
  }
  priority = std::clamp(priority, kGreatestPriority, kLeastPriority);
  ASSIGN_OR_RETURN(std::unique_ptr<HipStream> stream, Make(device, flags, priority, /*is_null=*/false));
  const StreamHandle handle(reinterpret_cast<uint64_t>(stream.get()));
  LightLock lock(&mu_);
  streams_.emplace(handle.raw(), std::move(stream));
  Trace(Layer::kHip, "hipStreamCreate: ", HandleText(handle.raw()), " on device ", device,
        (flags & kStreamNonBlocking) != 0 ? " (non-blocking)" : "", ", priority ", priority);
  return handle;
}

absl::Status StreamTable::Destroy(StreamHandle handle) {
  std::shared_ptr<HipStream> stream;
  {
    LightLock lock(&mu_);
    // hip_stream.cpp hipStreamDestroy: the null stream answers hipErrorInvalidHandle, the per-thread and legacy
    // streams hipErrorInvalidResourceHandle (both 400): none of them is ever destroyed.
    if (handle.raw() <= kPerThreadStreamHandle.raw()) {
      return InvalidHandleError(absl::StrCat("hipStreamDestroy(", HandleText(handle.raw()), "): a built-in stream"));
    }
    auto it = streams_.find(handle.raw());
    if (it == streams_.end()) {
      // hip-tests' Unit_hipStreamDestroy_Negative_DoubleDestroy: destroying a destroyed stream answers
      // hipErrorContextIsDestroyed (709), where using one elsewhere answers 400 (ResolveLocked).
      return ContextIsDestroyedError(absl::StrCat("hipStreamDestroy(", HandleText(handle.raw()),
                                                  "): not a stream hipStreamCreate made, or destroyed already"));
    }
    stream = std::move(it->second);
    streams_.erase(it);
    ForgetResolutions();
  }
  // Outside the table's lock: wait for its work here, as the destructor would, since a thread synchronising the
  // device may still hold the stream and run the destructor itself.
  (void)stream->queue().Finish();
  stream.reset();
  return absl::OkStatus();
}

void StreamTable::DestroyDeviceStreams(int device) {
  std::vector<std::shared_ptr<HipStream>> doomed;
  {
    LightLock lock(&mu_);
    for (auto it = streams_.begin(); it != streams_.end();) {
      if (it->second->device() == device) {
        doomed.push_back(std::move(it->second));
        streams_.erase(it++);
      } else {
        ++it;
      }
    }
    ForgetResolutions();
  }
  // Outside the table's lock, as in Destroy: each destructor waits for its stream's work.
  doomed.clear();
}

void StreamTable::DropFailedDefaultStreams(int device) {
  std::vector<std::shared_ptr<HipStream>> doomed;
  {
    LightLock lock(&mu_);
    if (device >= 0 && static_cast<size_t>(device) < null_streams_.size() && null_streams_[device] != nullptr &&
        !null_streams_[device]->queue().Error().ok()) {
      doomed.push_back(std::move(null_streams_[device]));
    }
    for (auto it = per_thread_.begin(); it != per_thread_.end();) {
      if (it->second != nullptr && it->second->device() == device && !it->second->queue().Error().ok()) {
        doomed.push_back(std::move(it->second));
        per_thread_.erase(it++);
      } else {
        ++it;
      }
    }
    ForgetResolutions();
  }
  doomed.clear();  // outside the table's lock, as in Destroy
}

absl::StatusOr<HipStream*> StreamTable::NullStream(int device) {
  if (device < 0 || static_cast<size_t>(device) >= null_streams_.size()) {
    return InvalidDeviceError(absl::StrCat("device ", device));
  }
  if (null_streams_[device] == nullptr) {
    ASSIGN_OR_RETURN(null_streams_[device], Make(device, 0, 0, /*is_null=*/true));
  }
  return null_streams_[device].get();
}

void StreamTable::ForgetResolutions() { generation_.store(FreshGeneration(), std::memory_order_release); }

absl::StatusOr<HipStream*> StreamTable::Resolve(StreamHandle handle, int current_device) {
  // As after the locked lookup, the stream stays alive only while nobody destroys it concurrently (the caller's
  // rule); the remembered answer is exactly what the lookup would return while no stream has left the table.
  const Resolution& last = t_resolution;
  if (last.stream != nullptr && last.handle == handle.raw() && last.device == current_device &&
      last.generation == generation_.load(std::memory_order_acquire)) {
    return last.stream;
  }
  LightLock lock(&mu_);
  ASSIGN_OR_RETURN(HipStream* const stream, ResolveLocked(handle, current_device));
  t_resolution = {generation_.load(std::memory_order_relaxed), handle.raw(), current_device, stream};
  return stream;
}

absl::StatusOr<HipStream*> StreamTable::ResolveLocked(StreamHandle handle, int current_device) {
  if (handle == kNullStreamHandle || handle == kLegacyStreamHandle) return NullStream(current_device);
  if (handle == kPerThreadStreamHandle) {
    const uint64_t key = (t_thread_key << 8) | static_cast<uint64_t>(current_device & 0xff);
    std::shared_ptr<HipStream>& stream = per_thread_[key];
    if (stream == nullptr) {
      ASSIGN_OR_RETURN(stream, Make(current_device, 0, 0, /*is_null=*/false));
    }
    return stream.get();
  }
  auto it = streams_.find(handle.raw());
  if (it == streams_.end()) {
    // CLR's stream argument checks (hip_stream.cpp hipStreamGetFlags_common, hipStreamGetId_common: !hip::isValid)
    // answer hipErrorInvalidResourceHandle, 400; its other entry points do not check at all.
    return InvalidHandleError(absl::StrCat("stream ", HandleText(handle.raw()), " is not a live stream"));
  }
  return it->second.get();
}

std::vector<std::shared_ptr<HipStream>> StreamTable::DeviceStreams(int device) {
  std::vector<std::shared_ptr<HipStream>> out;
  if (device >= 0 && static_cast<size_t>(device) < null_streams_.size() && null_streams_[device] != nullptr) {
    out.push_back(null_streams_[device]);
  }
  for (auto& [handle, stream] : streams_) {
    if (stream->device() == device) out.push_back(stream);
  }
  for (auto& [key, stream] : per_thread_) {
    if (stream != nullptr && stream->device() == device) out.push_back(stream);
  }
  return out;
}

absl::Status StreamTable::BeforeCommand(HipStream& stream) {
  if (!stream.blocking()) return absl::OkStatus();
  LightLock lock(&mu_);
  if (stream.is_null()) {
    // The null stream waits for what every blocking stream of its device has queued.
    for (const std::shared_ptr<HipStream>& other : DeviceStreams(stream.device())) {
      if (other.get() == &stream || !other->blocking() || other->queue().Idle()) continue;
      ASSIGN_OR_RETURN(clr::Marker mark, other->queue().Record());
      RETURN_IF_ERROR(stream.queue().WaitFor(mark));
    }
    return absl::OkStatus();
  }
  HipStream* null = null_streams_[stream.device()].get();
  if (null == nullptr || null->queue().Idle()) return absl::OkStatus();
  ASSIGN_OR_RETURN(clr::Marker mark, null->queue().Record());
  return stream.queue().WaitFor(mark);
}

absl::Status StreamTable::Synchronize(HipStream& stream) {
  if (stream.is_null()) {
    std::vector<std::shared_ptr<HipStream>> blocking;
    {
      LightLock lock(&mu_);
      for (std::shared_ptr<HipStream>& s : DeviceStreams(stream.device())) {
        if (s->blocking()) blocking.push_back(std::move(s));
      }
    }
    for (const std::shared_ptr<HipStream>& s : blocking) RETURN_IF_ERROR(DeviceFaultAsHip(s->queue().Finish()));
    return absl::OkStatus();
  }
  return DeviceFaultAsHip(stream.queue().Finish());
}

absl::Status StreamTable::Query(HipStream& stream) {
  if (stream.queue().Idle()) return absl::OkStatus();
  return WithHipError(absl::UnavailableError("the stream has work in progress"), hipErrorNotReady);
}

absl::Status StreamTable::SynchronizeDevice(int device) {
  std::vector<std::shared_ptr<HipStream>> all;
  {
    LightLock lock(&mu_);
    all = DeviceStreams(device);
  }
  absl::Status first;
  for (const std::shared_ptr<HipStream>& s : all) {
    if (absl::Status st = s->queue().Finish(); !st.ok() && first.ok()) first = st;
  }
  return DeviceFaultAsHip(std::move(first));
}

absl::StatusOr<EventHandle> StreamTable::CreateEvent(uint32_t flags, int device) {
  if ((flags & ~kKnownEventFlags) != 0) {
    return absl::InvalidArgumentError(absl::StrCat("hipEventCreateWithFlags: unknown flags 0x", absl::Hex(flags)));
  }
  if (std::popcount(flags & kEventReleaseScopes) > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("hipEventCreateWithFlags(0x", absl::Hex(flags), "): more than one release scope"));
  }
  // An interprocess event carries no timestamps across processes.
  if ((flags & kEventInterprocess) != 0 && (flags & kEventDisableTiming) == 0) {
    return absl::InvalidArgumentError("hipEventCreateWithFlags: hipEventInterprocess needs hipEventDisableTiming");
  }
  auto event = std::make_unique<Event>(Event{flags, device, std::nullopt, std::nullopt, std::nullopt});
  const EventHandle handle(reinterpret_cast<uint64_t>(event.get()));
  LightLock lock(&mu_);
  events_.emplace(handle.raw(), std::move(event));
  return handle;
}

absl::StatusOr<StreamTable::Event*> StreamTable::FindEvent(EventHandle event) {
  auto it = events_.find(event.raw());
  if (it == events_.end()) {
    return InvalidHandleError(absl::StrCat("event ", HandleText(event.raw()), " is not a live event"));
  }
  return it->second.get();
}

absl::Status StreamTable::DestroyEvent(EventHandle event) {
  LightLock lock(&mu_);
  if (events_.erase(event.raw()) == 0) {
    return absl::NotFoundError(absl::StrCat("event ", HandleText(event.raw()), " is not a live event"));
  }
  return absl::OkStatus();
}

absl::Status StreamTable::RecordEvent(EventHandle event, HipStream& stream) {
  {
    // Checked before anything is queued: a refused record leaves the stream as it was.
    LightLock lock(&mu_);
    ASSIGN_OR_RETURN(const Event* e, FindEvent(event));
    if (e->device != stream.device()) {
      return InvalidHandleError(absl::StrCat("hipEventRecord: event ", HandleText(event.raw()), " belongs to device ",
                                             e->device, ", the stream to device ", stream.device()));
    }
  }
  // Taken before the mark, so a pool free ticked below it was queued before the mark (clr/mem_pool.h).
  const uint64_t tick = clr::NextPoolOrderTick();
  absl::StatusOr<clr::Marker> recorded = stream.queue().Record();
  if (!recorded.ok()) return DeviceFaultAsHip(recorded.status());
  clr::Marker mark = *std::move(recorded);
  LightLock lock(&mu_);
  // Destroyed meanwhile by another thread: the mark is simply not kept.
  ASSIGN_OR_RETURN(Event * e, FindEvent(event));
  e->marker = std::move(mark);
  e->end_ns.reset();
  e->mark = EventMark{&stream.queue(), tick};
  return absl::OkStatus();
}

absl::Status StreamTable::QueryEvent(EventHandle event) {
  LightLock lock(&mu_);
  ASSIGN_OR_RETURN(Event * e, FindEvent(event));
  if (!e->marker.has_value() || e->marker->Done()) return absl::OkStatus();
  return WithHipError(absl::UnavailableError("the event's work is in progress"), hipErrorNotReady);
}

absl::Status StreamTable::SynchronizeEvent(EventHandle event) {
  std::optional<clr::Marker> mark;
  {
    LightLock lock(&mu_);
    ASSIGN_OR_RETURN(Event * e, FindEvent(event));
    mark = e->marker;
  }
  return mark.has_value() ? DeviceFaultAsHip(mark->Wait()) : absl::OkStatus();
}

absl::Status StreamTable::WaitEvent(HipStream& stream, EventHandle event, uint32_t flags) {
  return WaitEventMark(stream, event, flags).status();
}

absl::StatusOr<std::optional<StreamTable::EventMark>> StreamTable::WaitEventMark(HipStream& stream, EventHandle event,
                                                                                uint32_t flags) {
  if (flags != 0) {
    return absl::InvalidArgumentError(absl::StrCat("hipStreamWaitEvent: flags 0x", absl::Hex(flags), " (must be 0)"));
  }
  std::optional<clr::Marker> mark;
  std::optional<EventMark> where;
  {
    LightLock lock(&mu_);
    ASSIGN_OR_RETURN(Event * e, FindEvent(event));
    mark = e->marker;
    where = e->mark;
  }
  if (!mark.has_value()) return std::optional<EventMark>();
  RETURN_IF_ERROR(DeviceFaultAsHip(stream.queue().WaitFor(*mark)));
  return where;
}

absl::StatusOr<float> StreamTable::ElapsedMs(EventHandle start, EventHandle stop) {
  LightLock lock(&mu_);
  Event* events[2] = {};
  const EventHandle handles[2] = {start, stop};
  for (int i = 0; i < 2; ++i) {
    ASSIGN_OR_RETURN(events[i], FindEvent(handles[i]));
  }
  if (events[0]->device != events[1]->device) {
    return InvalidHandleError(absl::StrCat("hipEventElapsedTime: the events belong to devices ", events[0]->device,
                                           " and ", events[1]->device));
  }
  for (int i = 0; i < 2; ++i) {
    if ((events[i]->flags & kEventDisableTiming) != 0) {
      return InvalidHandleError(absl::StrCat("hipEventElapsedTime: event ", HandleText(handles[i].raw()),
                                             " was created with hipEventDisableTiming"));
    }
    if (!events[i]->marker.has_value()) {
      return InvalidHandleError(
          absl::StrCat("hipEventElapsedTime: event ", HandleText(handles[i].raw()), " was never recorded"));
    }
  }
  double ns[2] = {};
  for (int i = 0; i < 2; ++i) {
    Event& e = *events[i];
    if (!e.end_ns.has_value()) {
      const std::optional<uint64_t> tick = e.marker->end_tick();
      if (!tick.has_value()) {
        return WithHipError(absl::UnavailableError("hipEventElapsedTime: an event's work is in progress"),
                            hipErrorNotReady);
      }
      ASSIGN_OR_RETURN(e.end_ns, context_.copies().TickToSystem(e.marker->agent(), *tick));
    }
    ns[i] = static_cast<double>(*e.end_ns);
  }
  return static_cast<float>((ns[1] - ns[0]) / 1e6);
}

size_t StreamTable::stream_count() const {
  LightLock lock(&mu_);
  return streams_.size();
}

}  // namespace hipmem::hip
