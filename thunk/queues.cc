#include "thunk/queues.h"

#include <iterator>
#include <span>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"

namespace hipmem::thunk {
namespace {

namespace uapi = ::hipmem::kfd_uapi;

// libhsakmt's priority_map: HSA_QUEUE_PRIORITY -3..3 onto the kernel's 0..15.
constexpr uint32_t kPriorityMap[] = {0, 3, 5, 7, 9, 11, 15};

// Where libhsakmt keeps an SDMA queue's pointers: its own GPU-mapped, host-visible, uncached memory.
constexpr Bytes kPointerBlock = Bytes::KiB(4);
constexpr MemFlags kPointerBlockFlags =
    MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kUncached | MemFlags::kExecuteAccess;

std::optional<uapi::QueueType> KernelQueueType(QueueType type) {
  switch (type) {
    case QueueType::kSdma: return uapi::QueueType::kSdma;
    case QueueType::kSdmaXgmi: return uapi::QueueType::kSdmaXgmi;
    case QueueType::kSdmaByEngineId: return uapi::QueueType::kSdmaByEngineId;
    case QueueType::kComputeAql: return uapi::QueueType::kComputeAql;
    case QueueType::kCompute: return uapi::QueueType::kCompute;
  }
  return std::nullopt;
}

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// The checks libhsakmt makes before any ioctl. Creating needs a ring; an update may pass none (kfdtest's
// Disable*QueueByUpdateWithNullAddress pass a null ring of size 0), which the kernel takes as "disable the queue"
// (pqm_update_queue_properties).
enum class RingUse { kCreate, kUpdate };
absl::Status CheckRing(const std::string& context, uint32_t percentage, QueuePriority priority, DeviceAddress ring,
                       Bytes ring_size, RingUse use = RingUse::kCreate) {
  if (percentage > uapi::kMaxQueuePercentage) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": percentage ", percentage, " is above 100"));
  }
  if (!KernelQueuePriority(priority)) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": priority ", static_cast<int32_t>(priority), " is outside -3..3"));
  }
  const bool update = use == RingUse::kUpdate;
  if (ring.raw() == 0 && !update) return absl::InvalidArgumentError(absl::StrCat(context, ": null ring"));
  // kfd_ioctl_update_queue takes a size of 0 too (and raises it to KFD_MIN_QUEUE_RING_SIZE).
  if (update && ring_size.is_zero()) return absl::OkStatus();
  if (!IsPowerOfTwo(ring_size.raw()) || ring_size.raw() > UINT32_MAX) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": ring size ", ring_size.raw(), " is not a power of two below 4 GiB"));
  }
  return absl::OkStatus();
}

}  // namespace

std::optional<uint32_t> KernelQueuePriority(QueuePriority priority) {
  const int32_t index = static_cast<int32_t>(priority) - static_cast<int32_t>(QueuePriority::kMinimum);
  if (index < 0 || index >= static_cast<int32_t>(std::size(kPriorityMap))) return std::nullopt;
  return kPriorityMap[index];
}

absl::StatusOr<Queue> Queue::Create(Kfd& kfd, const QueueSpec& spec) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtCreateQueue");
  const std::string context = absl::StrCat("hsaKmtCreateQueue(node ", spec.node.raw(), ")");
  RETURN_IF_ERROR(CheckRing(context, spec.percentage, spec.priority, spec.ring, spec.ring_size));
  const std::optional<uapi::QueueType> type = KernelQueueType(spec.type);
  if (!type) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": queue type ", static_cast<uint32_t>(spec.type),
                                                   " is not one this thunk creates"));
  }
  const bool aql = spec.type == QueueType::kComputeAql;
  if (aql && (spec.aql_read_pointer.raw() == 0 || spec.aql_write_pointer.raw() == 0)) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": an AQL queue needs its read and write pointers"));
  }
  ASSIGN_OR_RETURN(const NodeProperties* node, kfd.Node(spec.node));
  if (!node->is_gpu()) return InvalidNodeUnitError(absl::StrCat(context, ": node has no GPU"));
  ASSIGN_OR_RETURN(uint64_t* doorbells, kfd.DoorbellSlice(spec.node));

  Queue queue;
  DeviceAddress read_pointer = spec.aql_read_pointer;
  DeviceAddress write_pointer = spec.aql_write_pointer;
  if (!aql) {
    // The pointers live in system memory every GPU may map; this queue's GPU maps it now.
    absl::StatusOr<KfdAllocation> allocated = kfd.AllocMemory(NodeId(0), kPointerBlock, kPointerBlockFlags);
    if (!allocated.ok()) return Annotate(allocated.status(), context);
    const DeviceAddress block = allocated->address();
    queue.owned_pointers_ = *std::move(allocated);  // an early return frees it
    queue.kfd_ = &kfd;
    const NodeId node_id = spec.node;
    RETURN_IF_ERROR(Annotate(kfd.MapMemoryToGpu(block, std::span<const NodeId>(&node_id, 1)), context));
    read_pointer = block;
    write_pointer = DeviceAddress(block.raw() + sizeof(uint64_t));
  }

  uapi::CreateQueueArgs args{};
  args.ring_base_address = spec.ring.raw();
  args.write_pointer_address = write_pointer.raw();
  args.read_pointer_address = read_pointer.raw();
  args.ring_size = static_cast<uint32_t>(spec.ring_size.raw());
  args.gpu_id = node->gpu_id->raw();
  args.queue_type = static_cast<uint32_t>(*type);
  args.queue_percentage = spec.percentage;
  args.queue_priority = *KernelQueuePriority(spec.priority);
  args.sdma_engine_id = spec.sdma_engine_id;
  RETURN_IF_ERROR(WithHsakmtStatus(Annotate(Ioctl(kfd.device(), uapi::kCreateQueue, args), context),
                                   HSAKMT_STATUS_ERROR));

  queue.kfd_ = &kfd;
  queue.id_ = QueueId(args.queue_id);
  queue.node_ = spec.node;
  // SOC15: the low bits of doorbell_offset are the queue's byte offset inside the slice.
  queue.doorbell_ = doorbells + (args.doorbell_offset & (Kfd::kDoorbellSliceBytes - 1)) / sizeof(uint64_t);
  queue.read_pointer_ = static_cast<uint64_t*>(read_pointer.ToPointer());
  queue.write_pointer_ = static_cast<uint64_t*>(write_pointer.ToPointer());
  return queue;
}

Queue::Queue(Queue&& other) noexcept { *this = std::move(other); }

Queue& Queue::operator=(Queue&& other) noexcept {
  if (this != &other) {
    Reset();
    kfd_ = std::exchange(other.kfd_, nullptr);
    id_ = other.id_;
    node_ = other.node_;
    doorbell_ = std::exchange(other.doorbell_, nullptr);
    read_pointer_ = std::exchange(other.read_pointer_, nullptr);
    write_pointer_ = std::exchange(other.write_pointer_, nullptr);
    owned_pointers_ = std::exchange(other.owned_pointers_, std::nullopt);
  }
  return *this;
}

Queue::~Queue() { Reset(); }

void Queue::Reset() {
  if (kfd_ == nullptr) return;
  if (absl::Status s = std::move(*this).Destroy(); !s.ok()) HIPMEM_LOG(kError, "destroying queue: ", s.message());
}

void Queue::RingDoorbell(uint64_t value) const {
  if (doorbell_ != nullptr) kfd_->device().RingDoorbell(doorbell_, value);
}

absl::Status Queue::Update(uint32_t percentage, QueuePriority priority, DeviceAddress ring, Bytes ring_size) {
  const std::string context = absl::StrCat("hsaKmtUpdateQueue(queue ", id_.raw(), ")");
  if (doorbell_ == nullptr) return absl::FailedPreconditionError(absl::StrCat(context, ": no queue"));
  RETURN_IF_ERROR(CheckRing(context, percentage, priority, ring, ring_size, RingUse::kUpdate));
  uapi::UpdateQueueArgs args{};
  args.ring_base_address = ring.raw();
  args.queue_id = id_.raw();
  args.ring_size = static_cast<uint32_t>(ring_size.raw());
  args.queue_percentage = percentage;
  args.queue_priority = *KernelQueuePriority(priority);
  return WithHsakmtStatus(Annotate(Ioctl(kfd_->device(), uapi::kUpdateQueue, args), context), HSAKMT_STATUS_ERROR);
}

absl::Status Queue::Destroy() && {
  Kfd* kfd = std::exchange(kfd_, nullptr);
  if (kfd == nullptr) return absl::FailedPreconditionError("hsaKmtDestroyQueue: no queue");
  absl::Status status = absl::OkStatus();
  if (doorbell_ != nullptr) {
    uapi::DestroyQueueArgs args{.queue_id = id_.raw(), .pad = 0};
    status = WithHsakmtStatus(
        Annotate(Ioctl(kfd->device(), uapi::kDestroyQueue, args), absl::StrCat("hsaKmtDestroyQueue(", id_.raw(), ")")),
        HSAKMT_STATUS_ERROR);
  }
  // The engine has stopped (or never started): its pointers may go.
  if (owned_pointers_) {
    if (absl::Status s = std::move(*owned_pointers_).Free(); !s.ok() && status.ok()) status = s;
  }
  doorbell_ = read_pointer_ = write_pointer_ = nullptr;
  owned_pointers_.reset();
  return status;
}

}  // namespace hipmem::thunk
