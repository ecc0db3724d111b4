// User-mode queues: the thunk's side of the kernel's CREATE/UPDATE/DESTROY_QUEUE.
//
// Plays libhsakmt's queues.c (hsaKmtCreateQueue(Ext), hsaKmtUpdateQueue, hsaKmtDestroyQueue). A queue is
// a ring in GPU-mapped memory, a read pointer the engine writes back, a write pointer the producer keeps,
// and a doorbell in the process's doorbell slice (Kfd::DoorbellSlice). For SDMA queues the thunk owns
// the two pointers, as libhsakmt keeps them in its own GPU-mapped `struct queue`; an AQL queue's pointers
// are the runtime's (amd_queue_t's read/write dispatch ids) and come in the spec.
//
// Doorbell writes go through Queue::RingDoorbell, i.e. KfdDevice::RingDoorbell: a plain store on hardware,
// a store plus a wake on the simulator, which notices a bare store too but only at its next poll
// (testing/kfd_sim/engines/doorbell.h); the wake spares our own rings that wait.
#ifndef HIPMEM_THUNK_QUEUES_H_
#define HIPMEM_THUNK_QUEUES_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/strong_id.h"
#include "base/units.h"
#include "thunk/kfd.h"
#include "thunk/topology.h"

namespace hipmem::thunk {

// The kernel's queue id: unique within the process while the queue lives; the kernel reuses freed ids.
using QueueId = StrongId<struct QueueIdTag, uint32_t>;

// HSA_QUEUE_TYPE values (hsakmttypes.h) of the queue kinds this thunk creates.
enum class QueueType : uint32_t {
  kCompute = 1,          // PM4
  kSdma = 2,
  kSdmaXgmi = 5,
  kSdmaByEngineId = 6,   // KFD 1.17: QueueSpec::sdma_engine_id picks the engine
  kComputeAql = 21,
};

// HSA_QUEUE_PRIORITY.
enum class QueuePriority : int32_t {
  kMinimum = -3,
  kLow = -2,
  kBelowNormal = -1,
  kNormal = 0,
  kAboveNormal = 1,
  kHigh = 2,
  kMaximum = 3,
};

// Returns the kernel's queue priority (0..15) for `priority`, as libhsakmt's priority_map; nullopt outside
// [kMinimum, kMaximum].
std::optional<uint32_t> KernelQueuePriority(QueuePriority priority);

struct QueueSpec {
  NodeId node{0};
  QueueType type = QueueType::kSdma;
  uint32_t percentage = 100;  // 0 creates the queue inactive
  QueuePriority priority = QueuePriority::kNormal;
  DeviceAddress ring = DeviceAddress(0);  // GPU-mapped, at least `ring_size` bytes
  Bytes ring_size;     // a power of two
  uint32_t sdma_engine_id = 0;  // kSdmaByEngineId only
  // kComputeAql only: the runtime's 64-bit read and write dispatch ids, GPU-mapped.
  DeviceAddress aql_read_pointer = DeviceAddress(0);
  DeviceAddress aql_write_pointer = DeviceAddress(0);
};

// One user-mode queue. Move-only; the destructor destroys the queue (logging a failure) and frees the
// pointers the thunk allocated for it. `kfd` must outlive it. Thread-safe for RingDoorbell; creation,
// update and destruction must not race other uses of the same object.
class Queue {
 public:
  // Creates the queue: validates the spec as libhsakmt does, sets up the node's doorbell slice on first
  // use, allocates the pointers of an SDMA queue, and issues AMDKFD_IOC_CREATE_QUEUE.
  // Errors: kInvalidArgument INVALID_PARAMETER for a percentage above 100, a priority outside the enum, a
  // type this thunk does not create, a zero or non-power-of-two ring size, a null ring, or an AQL queue
  // without its pointers; INVALID_NODE_UNIT for a node without a GPU; HSAKMT_STATUS_ERROR with the
  // kernel's errno when it refuses (kResourceExhausted for -ENOMEM once the GPU's SDMA queue slots are
  // taken, kInvalidArgument for a ring the GPU does not map, ...).
  static absl::StatusOr<Queue> Create(Kfd& kfd, const QueueSpec& spec);

  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;
  Queue(Queue&& other) noexcept;
  Queue& operator=(Queue&& other) noexcept;
  ~Queue();

  QueueId id() const { return id_; }
  NodeId node() const { return node_; }
  bool empty() const { return kfd_ == nullptr; }
  // The queue's doorbell (in the CPU mapping of the doorbell slice) and its read/write pointers.
  uint64_t* doorbell() const { return doorbell_; }
  uint64_t* read_pointer() const { return read_pointer_; }
  uint64_t* write_pointer() const { return write_pointer_; }

  // Writes the doorbell: SDMA queues take the write pointer in bytes, AQL queues the index of the last
  // packet written.
  void RingDoorbell(uint64_t value) const;

  // AMDKFD_IOC_UPDATE_QUEUE: new ring, percentage and priority. A percentage of 0, or a null ring of size 0,
  // deactivates the queue until an update gives it a ring and a percentage again. Errors as Create's.
  absl::Status Update(uint32_t percentage, QueuePriority priority, DeviceAddress ring, Bytes ring_size);

  // Destroys the queue now and reports the kernel's verdict; empty afterwards either way.
  absl::Status Destroy() &&;

 private:
  Queue() = default;
  void Reset();

  Kfd* kfd_ = nullptr;  // Not owned. Null when empty.
  QueueId id_{0};
  NodeId node_{0};
  uint64_t* doorbell_ = nullptr;
  uint64_t* read_pointer_ = nullptr;
  uint64_t* write_pointer_ = nullptr;
  std::optional<KfdAllocation> owned_pointers_;  // SDMA: the block the thunk allocated for the pointers
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_QUEUES_H_
