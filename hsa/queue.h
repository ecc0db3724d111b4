// HSA user-mode AQL queues on a GPU's compute CP: ROCr's AqlQueue (amd_aql_queue.cpp) and the index half
// of hsa.cpp's queue API.
//
// A queue is three things in GPU-mapped system memory: a ring of `size` 64-byte AQL packets filled with
// INVALID headers, an amd_queue_t (hsa_queue_t first, then the CP's read_dispatch_id and the producers'
// write_dispatch_id at ROCr's offsets), and the doorbell signal: an amd_signal_t of kind DOORBELL whose
// value word holds the hardware doorbell's address and whose queue_ptr names the amd_queue_t. The KFD
// queue (thunk::Queue, COMPUTE_AQL) gets the amd_queue_t's two dispatch ids as its pointers, as ROCr's
// hsaKmtCreateQueue call does. A store to the doorbell signal rings the KFD doorbell (Queues::RingDoorbell).
//
// Scratch: a queue starts without any and gets it when a dispatch needs it, through ROCr's dynamic scratch protocol:
// the CP stops with "insufficient scratch" in queue_inactive_signal, the signal's handler allocates the queue's
// scratch and fills the amd_queue_t's scratch fields (AqlQueue::GrowScratch says how it is sized), then stores 0 and
// the CP retries the dispatch.
//
// Where this differs from ROCr, on purpose: each queue's scratch is its own VRAM allocation (not carved from a
// per-GPU scratch aperture), and the hsa_queue_t sits at the start of the mapped block (ROCr also keeps it there).
// Thread-safe.
//
// Queue errors: the amd_queue_t's queue_inactive_signal is an interrupt signal at 0 with an async handler
// (ROCr's AqlQueue::DynamicQueueEventsHandler); the CP stores an error code into it when it halts on a packet
// it cannot run (the simulator models the firmware's report, testing/kfd_sim/engines/compute_engine.cc), and
// the handler maps the code as ROCr does and calls the queue's error callback once.
#ifndef HIPMEM_HSA_QUEUE_H_
#define HIPMEM_HSA_QUEUE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "hsa/runtime.h"
#include "hsa/signal.h"
#include "hsa/signal_runtime.h"

namespace hipmem::hsa {

// ROCr's amd_queue_t (amd_hsa_queue.h): 256 bytes, 64-byte aligned, hsa_queue_t at offset 0.
struct alignas(64) AmdQueue {
  // hsa_queue_t
  uint32_t type;
  uint32_t features;
  uint64_t base_address;
  uint64_t doorbell_signal;
  uint32_t size;
  uint32_t reserved0;
  uint64_t id;
  // AMD fields
  uint32_t caps;
  uint32_t reserved1[3];
  uint64_t write_dispatch_id;
  uint32_t group_segment_aperture_base_hi;
  uint32_t private_segment_aperture_base_hi;
  uint32_t max_cu_id;
  uint32_t max_wave_id;
  uint64_t max_legacy_doorbell_dispatch_id_plus_1;
  uint32_t legacy_doorbell_lock;
  uint32_t reserved2[9];
  uint64_t read_dispatch_id;
  uint32_t read_dispatch_id_field_base_byte_offset;
  uint32_t compute_tmpring_size;
  uint32_t scratch_resource_descriptor[4];
  uint64_t scratch_backing_memory_location;
  uint64_t scratch_backing_memory_byte_size;
  uint32_t scratch_wave64_lane_byte_size;
  uint32_t queue_properties;  // amd_queue_properties_t bits (kQueuePropertyEnableProfiling, ...)
  uint32_t reserved3[2];
  uint64_t queue_inactive_signal;
  uint32_t reserved4[12];
  // Host-only, in a reserved word no CP reads: for a counted-queue handle (a copy of a hardware queue's
  // amd_queue_t, as ROCr's SharedQueue), the amd_queue_t whose read and write indices it shares; 0 otherwise.
  uint64_t index_owner;
};
static_assert(sizeof(AmdQueue) == 256 && alignof(AmdQueue) == 64);
static_assert(offsetof(AmdQueue, doorbell_signal) == 16 && offsetof(AmdQueue, size) == 24);
static_assert(offsetof(AmdQueue, id) == 32 && offsetof(AmdQueue, write_dispatch_id) == 56);
static_assert(offsetof(AmdQueue, read_dispatch_id) == 128 && offsetof(AmdQueue, queue_inactive_signal) == 192);
static_assert(offsetof(AmdQueue, queue_properties) == 180 && offsetof(AmdQueue, index_owner) == 248);

// amd_queue_properties_t: AMD_QUEUE_PROPERTIES_ENABLE_PROFILING (bit 3), which the CP firmware reads to decide
// whether it stamps packet start and end times into completion signals.
inline constexpr uint32_t kQueuePropertyEnableProfiling = 1u << 3;
// AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE (bit 4): the queue's scratch is "large", sized for the dispatch that asked
// for it; the CP asks again for any later dispatch with a private segment.
inline constexpr uint32_t kQueuePropertyUseScratchOnce = 1u << 4;

// hsa_amd_queue_priority_t.
enum class QueuePriorityLevel : uint32_t { kLow = 0, kNormal = 1, kHigh = 2 };

// hsa_queue_type32_t.
enum class QueueKind : uint32_t { kMulti = 0, kSingle = 1, kCooperative = 2 };

// The index operations of hsa_queue_t (hsa_queue_load_read_index_* ... add_write_index_*), on the
// amd_queue_t the caller names (or, for a counted-queue handle, on its hardware queue's). They trust the
// pointer, as ROCr does. A load uses the acquire half of
// `order`, a store the release half.
uint64_t LoadReadIndex(const AmdQueue& queue, MemoryOrder order);
uint64_t LoadWriteIndex(const AmdQueue& queue, MemoryOrder order);
void StoreReadIndex(AmdQueue& queue, uint64_t value, MemoryOrder order);
void StoreWriteIndex(AmdQueue& queue, uint64_t value, MemoryOrder order);
// Returns the write index before; stores `desired` only if it was `expected`.
uint64_t CasWriteIndex(AmdQueue& queue, uint64_t expected, uint64_t desired, MemoryOrder order);
// Returns the write index before the addition.
uint64_t AddWriteIndex(AmdQueue& queue, uint64_t value, MemoryOrder order);

// hsa_queue_create's callback: a queue error, as ROCr's queue error handler reports it, on the signal
// handler thread. The status carries the hsa_status_t (ToHsaStatus): INVALID_CODE_OBJECT for a dispatch whose
// kernel object the CP does not know, INVALID_PACKET_FORMAT for a packet type it does not run,
// INVALID_ARGUMENT for a bad dispatch geometry, kernarg or signal address, EXCEPTION for a wave's trap,
// ILLEGAL_INSTRUCTION for a wave's illegal instruction, OUT_OF_RESOURCES for scratch the runtime cannot provide.
using QueueErrorCallback = std::function<void(const absl::Status& error, AmdQueue* queue)>;

// Whether `error`, as a QueueErrorCallback received it, is a wave's exception: a trap (llvm.trap, which a device
// abort() or failed assert reaches: HSA_STATUS_ERROR_EXCEPTION) or an illegal instruction
// (HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION), rather than a packet error or missing scratch.
bool IsWaveException(const absl::Status& error);

struct QueueRequest {
  AgentId agent{0};
  uint32_t size = 0;  // packets
  QueueKind kind = QueueKind::kMulti;
  QueueErrorCallback on_error = nullptr;  // may be empty
};

// hsa_soft_queue_create's arguments.
struct SoftQueueRequest {
  PoolId region{0};  // hsa_region_t: where the ring and the amd_queue_t are allocated
  uint32_t size = 0;  // packets
  QueueKind kind = QueueKind::kMulti;
  uint32_t features = 0;  // hsa_queue_feature_t bits, as the caller declares them
  SignalHandle doorbell{0};  // the caller's signal, stored to by producers and waited on by the consumer
};

// hsa_amd_counted_queue_acquire's arguments.
struct CountedQueueRequest {
  AgentId agent{0};
  QueueKind kind = QueueKind::kMulti;
  QueuePriorityLevel priority = QueuePriorityLevel::kNormal;
  QueueErrorCallback on_error = nullptr;  // may be empty; called with this handle when the shared queue halts
};

class Queues;

// One queue of a Queues (Queues::CreateOwned), owned: the destructor destroys it as hsa_queue_destroy does (for
// the cooperative queue, gives back one reference) and logs a failure; Destroy() && reports it instead. Move-only;
// a move empties the source. For the runtime's clients that hold a queue of their own (a stream's), so that no
// path destroys it by hand; the C API hands out the bare amd_queue_t instead. The Queues must outlive it.
class [[nodiscard]] Queue {
 public:
  Queue() = default;  // empty, as a moved-from one
  Queue(Queue&& other) noexcept;
  Queue& operator=(Queue&& other) noexcept;
  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  ~Queue();

  bool empty() const { return queues_ == nullptr; }
  // The amd_queue_t (its hsa_queue_t is the C handle); null when empty.
  AmdQueue* get() const { return amd_; }

  // Destroys the queue now: Queues::Destroy's errors; kFailedPrecondition when empty (moved from, destroyed).
  absl::Status Destroy() &&;

 private:
  friend class Queues;
  Queue(Queues* queues, AmdQueue* amd) : queues_(queues), amd_(amd) {}

  Queues* queues_ = nullptr;  // Not owned; must outlive this. Null once empty.
  AmdQueue* amd_ = nullptr;   // Null once empty.
};

// The HSA queues of one runtime (ROCr keeps them in its agents). Destroying it destroys every queue left.
class Queues {
 public:
  // `runtime` and `signals` must outlive it.
  Queues(Runtime& runtime, SignalRuntime& signals);
  ~Queues();
  Queues(const Queues&) = delete;
  Queues& operator=(const Queues&) = delete;

  // hsa_queue_create. Returns the amd_queue_t (its hsa_queue_t is the C handle). Errors: InvalidAgentError
  // for an unknown agent; kInvalidArgument for a size that is 0 or not a power of two, or an unknown kind;
  // INVALID_QUEUE_CREATION for a CPU agent or a size above HSA_AGENT_INFO_QUEUE_MAX_SIZE; the KFD's (memory
  // or queue creation) errors. A size below QUEUE_MIN_SIZE is raised to it, as ROCr.
  //
  // kCooperative (ROCr's GpuAgent::QueueCreate and InitGWS): the agent's one cooperative queue, shared and counted.
  // The first request makes it -- 16384 packets whatever the size asked (once it is a power of two), with the GPU's
  // global wave sync from the KFD (thunk::AllocQueueGws), its type COOPERATIVE in the hsa_queue_t -- and every
  // request takes one reference, which Destroy gives back; the last Destroy destroys it. Where ROCr gives the queue
  // no error callback, here each request's `on_error` is kept while the queue lives and every one is told of its
  // errors (hipmem's clr learns so that a cooperative dispatch failed). Errors: INVALID_QUEUE_CREATION for an
  // agent whose node has no GWS (HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES false); OUT_OF_RESOURCES when the KFD
  // refuses the GWS; the queue creation's.
  absl::StatusOr<AmdQueue*> Create(const QueueRequest& request);
  // As Create, owned by the caller instead of by its address alone.
  absl::StatusOr<Queue> CreateOwned(const QueueRequest& request);

  // hsa_soft_queue_create: a queue no packet processor services (ROCr's HostQueue). The ring (filled with
  // INVALID headers) and the amd_queue_t come from `region`; the doorbell signal is the caller's, so a store to
  // it is an ordinary signal store that wakes whoever drains the queue. The index operations work as on a GPU
  // queue; the queue-extension calls (get_info, CU masks, priority, profiling) answer INVALID_QUEUE, as there is
  // no CP behind it. Errors: kInvalidArgument for a size that is 0 or not a power of two, a type other than
  // MULTI or SINGLE, or no features (ROCr's checks); INVALID_REGION for an unknown region; SignalRuntime::Find's
  // for the doorbell; the allocation's errors.
  absl::StatusOr<AmdQueue*> CreateSoft(const SoftQueueRequest& request);

  // hsa_amd_counted_queue_acquire (ROCr's CountedQueuePoolManager): a new handle on one of at most
  // GPU_MAX_HW_QUEUES (default 4) hardware queues per agent and priority, of HSA_COUNTED_QUEUE_SIZE (default
  // 16384) packets, created at that priority with profiling on. Below the limit a new hardware queue is made;
  // at it, the least-used one is shared. The handle is a copy of the hardware queue's amd_queue_t (same ring,
  // doorbell, size and id) whose index operations act on the hardware queue's indices. Errors:
  // kInvalidArgument for an unknown priority; INVALID_QUEUE_CREATION for a type other than MULTI; Create's.
  absl::StatusOr<AmdQueue*> AcquireCounted(const CountedQueueRequest& request);
  // hsa_amd_counted_queue_release: drops the handle and one use of its hardware queue, which stays in the pool
  // (as ROCr). Errors: INVALID_QUEUE for a handle that is not a live counted one.
  // Counted handles have no owner type (unlike Queue): only the C API holds them, and it hands them out bare.
  absl::Status ReleaseCounted(const AmdQueue* handle);

  // hsa_queue_destroy (of the cooperative queue: one reference, see Create). Errors: kInvalidArgument
  // (INVALID_QUEUE) for a queue this runtime did not make, or one whose last reference is gone.
  absl::Status Destroy(const AmdQueue* queue);

  // hsa_queue_inactivate: the CP stops fetching packets from the queue for good; the memory stays valid
  // until Destroy. Errors as Destroy's.
  absl::Status Inactivate(const AmdQueue* queue);

  // hsa_amd_queue_cu_set_mask: `mask` bit i (word i / 32) enables CU i; its length is a whole number of
  // 32-bit words. Bits past the GPU's CUs are dropped, as ROCr. Errors: kInvalidArgument for an empty mask or
  // one that enables no CU of the GPU; INVALID_QUEUE for a foreign queue; SetQueueCuMask's.
  absl::Status SetCuMask(const AmdQueue* queue, std::span<const uint32_t> mask);
  // hsa_amd_queue_cu_get_mask: the queue's mask in `out.size()` words (zero past the GPU's CUs; every CU is
  // set until SetCuMask). Errors: kInvalidArgument for no words; INVALID_QUEUE for a foreign queue.
  absl::Status GetCuMask(const AmdQueue* queue, std::span<uint32_t> out) const;
  // hsa_amd_queue_set_priority: ROCr's map (LOW -> MINIMUM, NORMAL, HIGH -> MAXIMUM) through UPDATE_QUEUE.
  // Errors: kInvalidArgument for an unknown level; INVALID_QUEUE for a foreign queue or an inactive one;
  // Queue::Update's.
  absl::Status SetPriority(const AmdQueue* queue, QueuePriorityLevel level);

  // What hsa_amd_queue_get_info reports about a queue (ROCr's AqlQueue::GetInfo).
  struct Info {
    AgentId agent;              // HSA_AMD_QUEUE_INFO_AGENT
    uint64_t doorbell_address;  // HSA_AMD_QUEUE_INFO_DOORBELL_ID: the hardware doorbell's address, as ROCr
    uint64_t hw_id;             // HSA_QUEUE_INFO_HW_ID: the hsa_queue_t id
    // HSA_QUEUE_INFO_USE_COUNT: the handles sharing a counted queue's hardware queue; nullopt otherwise.
    std::optional<uint32_t> use_count;
    bool profiling;             // queue_properties' ENABLE_PROFILING bit
  };
  // hsa_amd_queue_get_info. Errors: INVALID_QUEUE (kInvalidArgument) for a queue this runtime did not make.
  absl::StatusOr<Info> GetInfo(const AmdQueue* queue) const;

  // hsa_amd_profiling_set_profiler_enabled: sets or clears AMD_QUEUE_PROPERTIES_ENABLE_PROFILING in the
  // amd_queue_t, which tells the CP to stamp start_ts / end_ts into each packet's completion signal. Errors:
  // INVALID_QUEUE for a queue this runtime did not make.
  absl::Status SetProfiling(const AmdQueue* queue, bool enable);

  // A store of `value` to `signal` when it is the doorbell signal of one of these queues: rings the KFD
  // doorbell and returns true. False for any other signal.
  bool RingDoorbell(uint64_t signal, int64_t value);

  size_t queue_count() const;

  // Whether any Queues in the process holds a queue: lets every other signal store skip the doorbell lookup
  // (one relaxed load instead of two locks).
  static bool AnyQueues();

 private:
  class AqlQueue;
  class SoftQueue;
  struct CountedHandle;
  struct CountedCallbacks;

  absl::StatusOr<AmdQueue*> CreateLocked(const QueueRequest& request) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<AmdQueue*> ShareCooperativeLocked(const Agent& agent, const QueueRequest& request)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Destroys a queue CreateLocked just made, whose setup then failed (nothing else knows it yet).
  void DropCreatedLocked(AmdQueue* amd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A queue error callback that tells each of `callbacks` (with its handle).
  static QueueErrorCallback FanOut(std::shared_ptr<CountedCallbacks> callbacks);

  absl::StatusOr<AqlQueue*> Find(const char* function, const AmdQueue* queue) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Runtime& runtime_;         // Not owned; must outlive this.
  SignalRuntime& signals_;  // Not owned; must outlive this.
  mutable absl::Mutex mu_;
  // By the amd_queue_t address; and the doorbell signal handle -> the same queue.
  absl::flat_hash_map<uint64_t, std::unique_ptr<AqlQueue>> queues_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, AqlQueue*> doorbells_ ABSL_GUARDED_BY(mu_);
  // Counted-queue handles, by their address; and the hardware queues behind them, by agent and priority.
  absl::flat_hash_map<uint64_t, std::unique_ptr<CountedHandle>> counted_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::pair<uint64_t, uint32_t>, std::vector<AmdQueue*>> counted_pools_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, uint32_t> use_counts_ ABSL_GUARDED_BY(mu_);  // by hardware amd_queue_t
  absl::flat_hash_map<uint64_t, std::shared_ptr<CountedCallbacks>> counted_callbacks_ ABSL_GUARDED_BY(mu_);
  // Each agent's cooperative queue (a queue of queues_), by agent, while it has references.
  struct CooperativeQueue {
    AmdQueue* queue = nullptr;
    uint32_t references = 0;
    std::shared_ptr<CountedCallbacks> callbacks;
  };
  absl::flat_hash_map<uint64_t, CooperativeQueue> cooperative_ ABSL_GUARDED_BY(mu_);
  // Software queues, by the amd_queue_t address.
  absl::flat_hash_map<uint64_t, std::unique_ptr<SoftQueue>> soft_queues_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_QUEUE_H_
