// HIP streams and events over ROCclr's command queues: what hipStream* and hipEvent* are thin shells over.
//
// Plays hipamd's hip::Stream / hip::Event (hip_stream.cpp, hip_event.cpp) on clr::Stream. Each device has a
// null stream (the legacy default stream), made on first use. The legacy rules (CUDA's, which CLR follows):
// work queued on the null stream waits for the work already queued on every blocking stream of its device,
// and work queued on a blocking stream waits for the null stream's; hipStreamNonBlocking streams take part
// in neither. hipStreamPerThread names a per-thread blocking stream of the current device. These waits are
// dependencies on signals (markers), never host blocking.
//
// Handles are the objects' addresses, as in CLR, and every call checks them against the live set, so a
// destroyed or foreign handle is an error instead of a crash. Thread-safe.
#ifndef HIPMEM_HIP_STREAMS_H_
#define HIPMEM_HIP_STREAMS_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/light_mutex.h"
#include "base/strong_id.h"
#include "clr/blit_manager.h"
#include "clr/context.h"
#include "clr/stream.h"

namespace hipmem::hip {

// hipStream_t's value: 0 and 1 (hipStreamLegacy) name the current device's null stream, 2 the calling
// thread's per-thread stream (hipStreamPerThread); any other value, a stream StreamTable::Create made.
using StreamHandle = StrongId<struct StreamHandleTag, uint64_t>;
inline constexpr StreamHandle kNullStreamHandle{0};
inline constexpr StreamHandle kLegacyStreamHandle{1};
inline constexpr StreamHandle kPerThreadStreamHandle{2};
// hipEvent_t's value.
using EventHandle = StrongId<struct EventHandleTag, uint64_t>;

// hipStreamDefault / hipStreamNonBlocking.
inline constexpr uint32_t kStreamNonBlocking = 0x1;
// hipEventCreateWithFlags' bits, as current CLR accepts them (hip_event.cpp ihipEventCreateWithFlags).
inline constexpr uint32_t kEventBlockingSync = 0x1;
inline constexpr uint32_t kEventDisableTiming = 0x2;
inline constexpr uint32_t kEventInterprocess = 0x4;
// The release scopes of the event's marker: at most one of them. They choose which caches the marker flushes;
// the simulated engines keep no caches, so every scope is already exact and the bits are only validated.
inline constexpr uint32_t kEventDisableSystemFence = 0x20000000;
inline constexpr uint32_t kEventReleaseToDevice = 0x40000000;
inline constexpr uint32_t kEventReleaseToSystem = 0x80000000;

// A GPU memory fault reaches HIP as clr's sticky GpuMemoryFaultError (clr/device_faults.h): returns it tagged
// hipErrorIllegalAddress, CUDA's answer, where CLR would have ended the process. A kernel's wave exception (its trap,
// which abort() and a failed device assert reach, or an illegal instruction; clr::IsKernelException), where CLR ends
// the process too, is tagged hipErrorLaunchFailure, CUDA's answer for a trap. Other statuses (another kAborted among
// them: a failed thunk wait, an EINTR), and a status that carries its own HIP code, unchanged.
absl::Status DeviceFaultAsHip(absl::Status status);

class HipStream {
 public:
  int device() const { return device_; }
  uint32_t flags() const { return flags_; }
  int priority() const { return priority_; }
  bool is_null() const { return is_null_; }
  // Whether it synchronizes with the null stream (everything but hipStreamNonBlocking streams).
  bool blocking() const { return (flags_ & kStreamNonBlocking) == 0; }
  clr::Stream& queue() { return *queue_; }
  clr::BlitManager& blit() { return *blit_; }

 private:
  friend class StreamTable;
  HipStream(int device, uint32_t flags, int priority, bool is_null, std::unique_ptr<clr::Stream> queue,
            std::unique_ptr<clr::BlitManager> blit)
      : device_(device), flags_(flags), priority_(priority), is_null_(is_null), queue_(std::move(queue)),
        blit_(std::move(blit)) {}

  const int device_;
  const uint32_t flags_;
  const int priority_;
  const bool is_null_;
  std::unique_ptr<clr::Stream> queue_;
  std::unique_ptr<clr::BlitManager> blit_;  // declared after queue_: goes first
};

class StreamTable {
 public:
  // hipDeviceGetStreamPriorityRange: CLR's Priority enum, High = -1 (greatest) ... Low = 1 (least).
  static constexpr int kGreatestPriority = -1;
  static constexpr int kLeastPriority = 1;

  // `context` must outlive the table.
  explicit StreamTable(clr::Context& context);
  // Destroys every stream and event left, each after its work is done.
  ~StreamTable();
  StreamTable(const StreamTable&) = delete;
  StreamTable& operator=(const StreamTable&) = delete;

  // hipStreamCreateWithPriority on `device`. A priority outside the range is clamped to it, as CLR does.
  // Errors: kInvalidArgument for unknown flag bits; the queue's (kResourceExhausted).
  absl::StatusOr<StreamHandle> Create(int device, uint32_t flags, int priority);
  // hipStreamDestroy: waits for the stream's work, then releases it. Errors: InvalidHandleError for the null
  // stream, hipStreamPerThread or a handle that names no live stream.
  absl::Status Destroy(StreamHandle handle);
  // The stream `handle` names for work issued while `current_device` is current. Errors:
  // InvalidHandleError (hipErrorInvalidResourceHandle) for a handle that names no live stream, as CLR's stream argument
  // checks answer (entry points where CLR answers otherwise, such as the module launches' hipErrorContextIsDestroyed,
  // check before they resolve); the null or per-thread stream's creation errors.
  absl::StatusOr<HipStream*> Resolve(StreamHandle handle, int current_device);

  // Applies the legacy default stream's rules before a command is queued on `stream`.
  absl::Status BeforeCommand(HipStream& stream);
  // hipStreamSynchronize. The null stream also waits for every blocking stream of its device (CLR's
  // SyncAllStreams). Errors: kDataLoss when a command failed; hipErrorIllegalAddress (sticky) after a GPU
  // memory fault on the device.
  absl::Status Synchronize(HipStream& stream);
  // hipStreamQuery: OK when idle, kUnavailable (hipErrorNotReady) otherwise.
  absl::Status Query(HipStream& stream);
  // hipDeviceSynchronize: every stream of `device`.
  absl::Status SynchronizeDevice(int device);
  // hipDeviceReset: destroys every stream hipStreamCreate made on `device`, each after its work (the null and
  // per-thread streams stay). Their handles are dead afterwards, as after hipStreamDestroy.
  void DestroyDeviceStreams(int device);
  // After a GPU memory fault on `device` (hipDeviceReset): drops its null and per-thread streams when they
  // failed, so the next use makes working ones.
  void DropFailedDefaultStreams(int device);

  // hipEventCreateWithFlags: an event of `device` (the caller's current device). Errors: kInvalidArgument for
  // unknown flag bits, two release scopes, or hipEventInterprocess without hipEventDisableTiming.
  absl::StatusOr<EventHandle> CreateEvent(uint32_t flags, int device);
  // hipEventDestroy. Errors: kNotFound for an unknown event (destroyed already; CLR answers
  // hipErrorContextIsDestroyed from its set of live events).
  absl::Status DestroyEvent(EventHandle event);
  // hipEventRecord: the event now marks the end of `stream`'s queued work. Errors: InvalidHandleError, also for a
  // stream of another device than the event's.
  absl::Status RecordEvent(EventHandle event, HipStream& stream);
  // hipEventQuery: OK when the marked work is done (or the event was never recorded), kUnavailable
  // (hipErrorNotReady) otherwise. Errors: InvalidHandleError.
  absl::Status QueryEvent(EventHandle event);
  // hipEventSynchronize: blocks until the marked work is done. Errors: InvalidHandleError; kDataLoss;
  // hipErrorIllegalAddress after a GPU memory fault.
  absl::Status SynchronizeEvent(EventHandle event);
  // hipStreamWaitEvent: work queued on `stream` afterwards waits for the event's marked work; a never-recorded
  // event is no wait. Errors: kInvalidArgument for flags other than 0; InvalidHandleError.
  absl::Status WaitEvent(HipStream& stream, EventHandle event, uint32_t flags);
  // Where an event's mark was recorded: its stream and the pool order tick taken just before (clr/mem_pool.h).
  struct EventMark {
    const clr::Stream* origin;
    uint64_t tick;
  };
  // WaitEvent, returning the mark waited on (nullopt for a never-recorded event), so the memory pools can hand
  // `stream` the blocks freed on its origin before it (PoolTable::AddSafeStream).
  absl::StatusOr<std::optional<EventMark>> WaitEventMark(HipStream& stream, EventHandle event, uint32_t flags);
  // hipEventElapsedTime: milliseconds from `start`'s mark to `stop`'s, from the CP's timestamps. Errors:
  // InvalidHandleError for an unknown event, one created with hipEventDisableTiming, or one never recorded;
  // kUnavailable (hipErrorNotReady) while either mark is pending.
  absl::StatusOr<float> ElapsedMs(EventHandle start, EventHandle stop);

  size_t stream_count() const;

  // `device`'s cooperative stream (clr::Stream::CreateCooperative), where its cooperative launches run, made on first
  // use; a new one once a launch failed the last (its HSA queue halted), so one failed grid does not fail the
  // device's later cooperative launches. The replacement is decided under the table's lock by whichever caller sees
  // the failure first: it releases the failed stream's HSA queue (clr::Stream::ReleaseQueue) before it makes the new
  // stream, so the new one gets a queue of its own even while another thread still holds the failed stream (which
  // goes on answering its own error); the callers that come after get the new one. While the device has a GPU memory
  // fault (sticky until hipDeviceReset) the failed stream is returned as it is. Errors: CreateCooperative's.
  absl::StatusOr<std::shared_ptr<clr::Stream>> Cooperative(int device);
  // hipDeviceReset: drops `device`'s cooperative stream after its work, so the next cooperative launch makes a new
  // one. Its HSA queue is released here, whoever still holds the stream (a launch racing the reset then fails with
  // kFailedPrecondition instead of sharing the new stream's queue).
  void DropCooperative(int device);

 private:
  struct Event {
    uint32_t flags;
    int device;  // the device current when it was made: it records only on that device's streams
    std::optional<clr::Marker> marker;
    // The mark's time in system nanoseconds, converted once (as CLR stores each command's timestamps), so
    // every elapsed time between two events agrees with the others.
    std::optional<uint64_t> end_ns;
    std::optional<EventMark> mark;  // where `marker` was recorded
  };

  absl::StatusOr<std::unique_ptr<HipStream>> Make(int device, uint32_t flags, int priority, bool is_null);
  absl::StatusOr<HipStream*> NullStream(int device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Event*> FindEvent(EventHandle event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The streams of `device`, null stream included. Shared, so a caller may use them after dropping the lock
  // while another thread destroys one (the last holder runs its destructor, which waits for its work).
  std::vector<std::shared_ptr<HipStream>> DeviceStreams(int device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  clr::Context& context_;
  // A stream left the table: no thread may use its cached resolution (Resolve) any more.
  void ForgetResolutions() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<HipStream*> ResolveLocked(StreamHandle handle, int current_device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable LightMutex mu_;
  // A process-wide fresh number, renewed whenever a stream leaves the table. Each thread remembers the last
  // stream it resolved with the number current then, and trusts that memory only while the number is unchanged:
  // a handle (a freed stream's address) may name another stream later.
  std::atomic<uint64_t> generation_;
  absl::flat_hash_map<uint64_t, std::shared_ptr<HipStream>> streams_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<HipStream>> null_streams_ ABSL_GUARDED_BY(mu_);  // by device, made on first use
  // hipStreamPerThread's streams, by (thread key << 8 | device), made on first use.
  absl::flat_hash_map<uint64_t, std::shared_ptr<HipStream>> per_thread_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, std::unique_ptr<Event>> events_ ABSL_GUARDED_BY(mu_);
  // Taken before any stream's lock and never with mu_: held while a cooperative stream is released and its
  // replacement made (queue creation is slow, and mu_ serves every stream lookup).
  LightMutex cooperative_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  // By device; shared with the launch that queues on one while another thread may replace it.
  absl::flat_hash_map<int, std::shared_ptr<clr::Stream>> cooperative_ ABSL_GUARDED_BY(cooperative_mu_);
};

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_STREAMS_H_
