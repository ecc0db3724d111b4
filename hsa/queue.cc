#include "hsa/queue.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <span>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "gpu_abi/aql_packets.h"
#include "hsa/hsa_status.h"
#include "hsa/memory.h"
#include "hsa/topology.h"
#include "thunk/device_controls.h"

namespace hipmem::hsa {
namespace {

namespace aql = ::hipmem::gpu_abi::aql;
using thunk::MemFlags;

// The ring and the amd_queue_t page: host-visible, uncached system memory the GPU maps, as ROCr's system
// allocator gives AqlQueue.
constexpr MemFlags kSystemFlags =
    MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kUncached | MemFlags::kExecuteAccess;
constexpr Bytes kControlBytes = Bytes::KiB(4);
constexpr uint64_t kDoorbellSignalOffset = sizeof(AmdQueue);  // right after the amd_queue_t
constexpr Bytes kMinRingBytes = Bytes::KiB(4);                // the KFD maps whole pages
// hsa_queue_feature_t: KERNEL_DISPATCH | AGENT_DISPATCH, what ROCr's GPU queues advertise.
constexpr uint32_t kQueueFeatures = 1 | 2;

std::memory_order LoadOrder(MemoryOrder order) {
  return order == MemoryOrder::kRelaxed || order == MemoryOrder::kRelease ? std::memory_order_relaxed
                                                                          : std::memory_order_acquire;
}
std::memory_order StoreOrder(MemoryOrder order) {
  return order == MemoryOrder::kRelaxed || order == MemoryOrder::kAcquire ? std::memory_order_relaxed
                                                                          : std::memory_order_release;
}
std::memory_order RmwOrder(MemoryOrder order) {
  switch (order) {
    case MemoryOrder::kRelaxed: return std::memory_order_relaxed;
    case MemoryOrder::kAcquire: return std::memory_order_acquire;
    case MemoryOrder::kRelease: return std::memory_order_release;
    case MemoryOrder::kAcqRel: return std::memory_order_acq_rel;
  }
  return std::memory_order_seq_cst;
}

// queue_inactive_signal's codes, as ROCr's queue error handler decodes them.
hsa_status_t QueueErrorStatus(SignalValue code) {
  switch (code) {
    case 2: return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
    case 4: return HSA_STATUS_ERROR_INVALID_ALLOCATION;
    case 8: return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    case 32: return HSA_STATUS_ERROR_INVALID_PACKET_FORMAT;
    case 64: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    default: return HSA_STATUS_ERROR_EXCEPTION;
  }
}

// Queues alive in the process (every Queues together).
std::atomic<int64_t> g_live_queues{0};

std::atomic_ref<uint64_t> Word(const uint64_t& word) { return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(word)); }

}  // namespace

uint64_t LoadReadIndex(const AmdQueue& queue, MemoryOrder order) { return Word(queue.read_dispatch_id).load(LoadOrder(order)); }
uint64_t LoadWriteIndex(const AmdQueue& queue, MemoryOrder order) {
  return Word(queue.write_dispatch_id).load(LoadOrder(order));
}
void StoreReadIndex(AmdQueue& queue, uint64_t value, MemoryOrder order) {
  Word(queue.read_dispatch_id).store(value, StoreOrder(order));
}
void StoreWriteIndex(AmdQueue& queue, uint64_t value, MemoryOrder order) {
  Word(queue.write_dispatch_id).store(value, StoreOrder(order));
}
uint64_t CasWriteIndex(AmdQueue& queue, uint64_t expected, uint64_t desired, MemoryOrder order) {
  // A failed exchange only loads, so it takes the load half of the order (C++ forbids a release failure).
  Word(queue.write_dispatch_id).compare_exchange_strong(expected, desired, RmwOrder(order), LoadOrder(order));
  return expected;
}
uint64_t AddWriteIndex(AmdQueue& queue, uint64_t value, MemoryOrder order) {
  return Word(queue.write_dispatch_id).fetch_add(value, RmwOrder(order));
}

// One queue: owns its ring, its amd_queue_t page and its KFD queue.
class Queues::AqlQueue {
 public:
  static absl::StatusOr<std::unique_ptr<AqlQueue>> Create(thunk::Kfd& kfd, thunk::NodeId gpu, uint32_t size,
                                                          QueueKind kind, uint64_t id) {
    const std::string context = absl::StrCat("hsa_queue_create(node=", gpu.raw(), ", size=", size, ")");
    const Bytes ring_bytes = std::max(Bytes(uint64_t{size} * aql::kPacketBytes), kMinRingBytes);
    const std::span<const thunk::NodeId> just_gpu(&gpu, 1);
    ASSIGN_OR_RETURN(const DeviceAddress ring, kfd.AllocMemory(thunk::NodeId(0), ring_bytes, kSystemFlags));
    absl::Cleanup free_ring = [&] { (void)kfd.FreeMemory(ring); };
    ASSIGN_OR_RETURN(const DeviceAddress control, kfd.AllocMemory(thunk::NodeId(0), kControlBytes, kSystemFlags));
    absl::Cleanup free_control = [&] { (void)kfd.FreeMemory(control); };
    RETURN_IF_ERROR(Annotate(kfd.MapMemoryToGpu(ring, just_gpu), context));
    RETURN_IF_ERROR(Annotate(kfd.MapMemoryToGpu(control, just_gpu), context));
    for (uint32_t slot = 0; slot < size; ++slot) {
      aql::InvalidateSlot(static_cast<char*>(ring.ToPointer()) + uint64_t{slot} * aql::kPacketBytes);
    }
    auto* amd = static_cast<AmdQueue*>(control.ToPointer());
    std::memset(amd, 0, kControlBytes.raw());
    amd->type = static_cast<uint32_t>(kind);
    amd->features = kQueueFeatures;
    amd->base_address = ring.raw();
    amd->doorbell_signal = control.raw() + kDoorbellSignalOffset;
    amd->size = size;
    amd->id = id;
    // Lets a debugger (and the CP firmware) find the hsa_queue_t from the read pointer the KFD holds.
    amd->read_dispatch_id_field_base_byte_offset = offsetof(AmdQueue, read_dispatch_id);
    thunk::QueueSpec spec{.node = gpu,
                          .type = thunk::QueueType::kComputeAql,
                          .percentage = 100,
                          .priority = thunk::QueuePriority::kNormal,
                          .ring = ring,
                          .ring_size = ring_bytes,
                          .aql_read_pointer = control + Bytes(offsetof(AmdQueue, read_dispatch_id)),
                          .aql_write_pointer = control + Bytes(offsetof(AmdQueue, write_dispatch_id))};
    absl::StatusOr<thunk::Queue> queue = thunk::Queue::Create(kfd, spec);
    if (!queue.ok()) return Annotate(queue.status(), context);
    aql::AmdSignal doorbell{};
    doorbell.kind = static_cast<int64_t>(aql::SignalKind::kDoorbell);
    // amd_signal_t's value word is the union with hardware_doorbell_ptr for a doorbell signal.
    doorbell.value = static_cast<int64_t>(reinterpret_cast<uintptr_t>(queue->doorbell()));
    doorbell.queue_ptr = control.raw();
    std::memcpy(static_cast<char*>(control.ToPointer()) + kDoorbellSignalOffset, &doorbell, sizeof(doorbell));
    std::move(free_ring).Cancel();
    std::move(free_control).Cancel();
    return std::unique_ptr<AqlQueue>(new AqlQueue(kfd, ring, ring_bytes, control, *std::move(queue)));
  }

  ~AqlQueue() {
    // The KFD queue goes first: its CP may not read the ring or the amd_queue_t after they are freed.
    Deactivate();
    for (DeviceAddress a : {ring_, control_}) {
      if (absl::Status s = kfd_.FreeMemory(a); !s.ok()) HIPMEM_LOG(kError, "hsa_queue_destroy: ", s.message());
    }
  }

  AmdQueue* amd() const { return static_cast<AmdQueue*>(control_.ToPointer()); }
  AgentId agent{0};
  // The KFD doorbell's address (amd_signal_t.hardware_doorbell_ptr of the doorbell signal).
  uint64_t doorbell_address = 0;
  // The queue_inactive_signal, owned by the SignalRuntime (0 until set).
  std::optional<SignalHandle> inactive_signal;
  uint64_t doorbell_signal() const { return amd()->doorbell_signal; }

  void Deactivate() {
    ScopedLock lock(&mu_);
    if (queue_.empty()) return;
    if (absl::Status s = std::move(queue_).Destroy(); !s.ok()) HIPMEM_LOG(kError, "hsa_queue: ", s.message());
  }

  std::vector<uint32_t> cu_mask;  // guarded by Queues::mu_
  uint32_t cu_count = 0;
  // Word `i` of the mask that enables every CU of the GPU.
  uint32_t cu_mask_all(size_t i) const {
    const uint64_t first = uint64_t{i} * 32;
    if (first + 32 <= cu_count) return ~uint32_t{0};
    if (first >= cu_count) return 0;
    return (uint32_t{1} << (cu_count - first)) - 1;
  }

  absl::Status SetCuMask(thunk::Kfd& kfd, std::span<const uint32_t> mask) {
    ScopedLock lock(&mu_);
    if (queue_.empty()) return absl::FailedPreconditionError("hsa_amd_queue_cu_set_mask: the queue is inactive");
    return thunk::SetQueueCuMask(kfd, queue_, mask);
  }

  absl::Status SetPriority(thunk::QueuePriority priority) {
    ScopedLock lock(&mu_);
    if (queue_.empty()) {
      return WithHsaStatus(absl::InvalidArgumentError("hsa_amd_queue_set_priority: the queue is inactive"),
                           HSA_STATUS_ERROR_INVALID_QUEUE);
    }
    return queue_.Update(100, priority, ring_, ring_bytes_);
  }

  void Ring(uint64_t value) {
    ScopedLock lock(&mu_);
    // An inactive queue has no doorbell left: the store is dropped, as the CP no longer fetches.
    if (!queue_.empty()) queue_.RingDoorbell(value);
  }

 private:
  AqlQueue(thunk::Kfd& kfd, DeviceAddress ring, Bytes ring_bytes, DeviceAddress control, thunk::Queue queue)
      : kfd_(kfd), ring_(ring), ring_bytes_(ring_bytes), control_(control), queue_(std::move(queue)) {}

  thunk::Kfd& kfd_;  // Not owned; must outlive this.
  const DeviceAddress ring_;
  const Bytes ring_bytes_;
  const DeviceAddress control_;
  absl::Mutex mu_;
  thunk::Queue queue_ ABSL_GUARDED_BY(mu_);
};

// A software queue: owns its ring and its amd_queue_t, both allocated from the caller's region.
class Queues::SoftQueue {
 public:
  static absl::StatusOr<std::unique_ptr<SoftQueue>> Create(Runtime& runtime, const MemoryPool& region,
                                                           const SoftQueueRequest& request, uint64_t id) {
    const Bytes ring_bytes(uint64_t{request.size} * aql::kPacketBytes);
    ASSIGN_OR_RETURN(const DeviceAddress ring, runtime.memory().AllocateUnrestricted(region, ring_bytes));
    absl::Cleanup free_ring = [&] { (void)runtime.Free(ring); };
    ASSIGN_OR_RETURN(const DeviceAddress control,
                     runtime.memory().AllocateUnrestricted(region, Bytes(sizeof(AmdQueue))));
    std::move(free_ring).Cancel();
    for (uint32_t slot = 0; slot < request.size; ++slot) {
      aql::InvalidateSlot(static_cast<char*>(ring.ToPointer()) + uint64_t{slot} * aql::kPacketBytes);
    }
    auto* amd = static_cast<AmdQueue*>(control.ToPointer());
    std::memset(amd, 0, sizeof(AmdQueue));
    amd->type = static_cast<uint32_t>(request.kind);
    amd->features = request.features;
    amd->base_address = ring.raw();
    amd->doorbell_signal = request.doorbell.raw();
    amd->size = request.size;
    amd->id = id;
    amd->read_dispatch_id_field_base_byte_offset = offsetof(AmdQueue, read_dispatch_id);
    return std::unique_ptr<SoftQueue>(new SoftQueue(runtime, ring, control));
  }

  ~SoftQueue() {
    for (DeviceAddress a : {ring_, control_}) {
      if (absl::Status s = runtime_.Free(a); !s.ok()) HIPMEM_LOG(kError, "hsa_queue_destroy: ", s.message());
    }
  }

  AmdQueue* amd() const { return static_cast<AmdQueue*>(control_.ToPointer()); }

 private:
  SoftQueue(Runtime& runtime, DeviceAddress ring, DeviceAddress control)
      : runtime_(runtime), ring_(ring), control_(control) {}

  Runtime& runtime_;  // Not owned; must outlive this.
  const DeviceAddress ring_;
  const DeviceAddress control_;
};

Queues::Queues(Runtime& runtime, SignalRuntime& signals) : runtime_(runtime), signals_(signals) {}

Queues::~Queues() {
  ScopedLock lock(&mu_);
  if (!queues_.empty()) HIPMEM_LOG(kWarning, "hsa_shut_down: destroying ", queues_.size(), " queue(s) left");
  doorbells_.clear();
  for (auto& [address, queue] : queues_) DropQueue(std::move(queue));
  queues_.clear();
  soft_queues_.clear();
}

bool Queues::AnyQueues() { return g_live_queues.load(std::memory_order_relaxed) > 0; }

void Queues::DropQueue(std::unique_ptr<AqlQueue> queue) {
  g_live_queues.fetch_sub(1, std::memory_order_relaxed);
  // The CP goes first, so nothing raises the inactive signal once it is destroyed; the ring and the
  // amd_queue_t go last, after the signal's handler can no longer run.
  queue->Deactivate();
  if (queue->inactive_signal.has_value()) {
    if (absl::Status s = signals_.DestroySignal(*queue->inactive_signal); !s.ok()) {
      HIPMEM_LOG(kError, "hsa_queue_destroy: ", s.message());
    }
  }
  queue.reset();
}

absl::StatusOr<AmdQueue*> Queues::Create(const QueueRequest& request) {
  const std::string context = absl::StrCat("hsa_queue_create(agent=", request.agent.raw(), ", size=", request.size, ")");
  ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(request.agent));
  if (request.size == 0 || !std::has_single_bit(request.size)) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": the size is not a power of two"));
  }
  if (request.kind != QueueKind::kMulti && request.kind != QueueKind::kSingle) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": unknown queue type ", static_cast<uint32_t>(request.kind)));
  }
  if (agent->type != DeviceType::kGpu) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat(context, ": a CPU agent has no queues")),
                         HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  }
  if (request.size > kAqlQueueMaxSize) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat(context, ": above the agent's QUEUE_MAX_SIZE ",
                                                                 kAqlQueueMaxSize)),
                         HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  }
  const uint32_t size = std::max(request.size, kAqlQueueMinSize);
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(std::unique_ptr<AqlQueue> queue,
                   AqlQueue::Create(runtime_.kfd(), agent->node, size, request.kind, next_id_));
  ++next_id_;
  queue->agent = request.agent;
  {
    aql::AmdSignal doorbell;
    std::memcpy(&doorbell, reinterpret_cast<const void*>(queue->doorbell_signal()), sizeof(doorbell));
    queue->doorbell_address = static_cast<uint64_t>(doorbell.value);
  }
  for (const thunk::NodeProperties& node : runtime_.topology().nodes) {
    if (node.id != agent->node || node.Get("simd_per_cu") == 0) continue;
    queue->cu_count = static_cast<uint32_t>(node.Get("simd_count") / node.Get("simd_per_cu"));
  }
  queue->cu_mask.assign((queue->cu_count + 31) / 32, ~uint32_t{0});
  if (queue->cu_count % 32 != 0) queue->cu_mask.back() = (uint32_t{1} << (queue->cu_count % 32)) - 1;
  AmdQueue* amd = queue->amd();
  // The error report channel: created after the KFD queue (which cannot halt before a doorbell rings) and
  // destroyed with it.
  ASSIGN_OR_RETURN(const SignalHandle inactive, signals_.CreateSignal(0, {}));
  absl::Cleanup drop_signal = [&] { (void)signals_.DestroySignal(inactive); };
  queue->inactive_signal = inactive;
  amd->queue_inactive_signal = inactive.raw();
  QueueErrorCallback on_error = request.on_error;
  RETURN_IF_ERROR(signals_.SetAsyncHandler(
      inactive, SignalCondition::kNe, 0, [on_error = std::move(on_error), amd, id = amd->id](SignalValue code) {
        const hsa_status_t status = QueueErrorStatus(code);
        absl::Status error = FromHsaStatus(status, absl::StrCat("queue ", id, ": the CP halted (code ", code, ")"));
        HIPMEM_LOG(kError, error.message());
        if (on_error) on_error(error, amd);
        return false;  // once: the queue stays halted
      }));
  std::move(drop_signal).Cancel();
  doorbells_[queue->doorbell_signal()] = queue.get();
  g_live_queues.fetch_add(1, std::memory_order_relaxed);
  queues_[reinterpret_cast<uint64_t>(amd)] = std::move(queue);
  return amd;
}

absl::StatusOr<AmdQueue*> Queues::CreateSoft(const SoftQueueRequest& request) {
  const std::string context =
      absl::StrCat("hsa_soft_queue_create(region=", request.region.raw(), ", size=", request.size, ")");
  if (request.size == 0 || !std::has_single_bit(request.size)) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": the size is not a power of two"));
  }
  if (request.kind != QueueKind::kMulti && request.kind != QueueKind::kSingle) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": unknown queue type ", static_cast<uint32_t>(request.kind)));
  }
  if (request.features == 0) return absl::InvalidArgumentError(absl::StrCat(context, ": no features"));
  absl::StatusOr<const MemoryPool*> region = runtime_.GetPool(request.region);
  if (!region.ok()) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat(context, ": no such region")),
                         HSA_STATUS_ERROR_INVALID_REGION);
  }
  RETURN_IF_ERROR(signals_.Find(request.doorbell).status());
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(std::unique_ptr<SoftQueue> queue, SoftQueue::Create(runtime_, **region, request, next_id_));
  ++next_id_;
  AmdQueue* amd = queue->amd();
  soft_queues_[reinterpret_cast<uint64_t>(amd)] = std::move(queue);
  return amd;
}

absl::Status Queues::Destroy(const AmdQueue* queue) {
  std::unique_ptr<AqlQueue> owned;
  {
    ScopedLock lock(&mu_);
    if (auto soft = soft_queues_.find(reinterpret_cast<uint64_t>(queue)); soft != soft_queues_.end()) {
      soft_queues_.erase(soft);  // nothing services it: its memory can go at once
      return absl::OkStatus();
    }
    auto it = queues_.find(reinterpret_cast<uint64_t>(queue));
    if (it == queues_.end()) {
      return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("hsa_queue_destroy(0x", absl::Hex(reinterpret_cast<uintptr_t>(queue)),
                                                                   "): not a queue of this runtime")),
                           HSA_STATUS_ERROR_INVALID_QUEUE);
    }
    owned = std::move(it->second);
    doorbells_.erase(owned->doorbell_signal());
    queues_.erase(it);
  }
  DropQueue(std::move(owned));
  return absl::OkStatus();
}

absl::Status Queues::Inactivate(const AmdQueue* queue) {
  ScopedLock lock(&mu_);
  // A software queue has no packet processor to stop (ROCr's HostQueue::Inactivate does nothing either).
  if (soft_queues_.contains(reinterpret_cast<uint64_t>(queue))) return absl::OkStatus();
  auto it = queues_.find(reinterpret_cast<uint64_t>(queue));
  if (it == queues_.end()) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("hsa_queue_inactivate(0x", absl::Hex(reinterpret_cast<uintptr_t>(queue)),
                                                                 "): not a queue of this runtime")),
                         HSA_STATUS_ERROR_INVALID_QUEUE);
  }
  it->second->Deactivate();
  return absl::OkStatus();
}

absl::StatusOr<Queues::AqlQueue*> Queues::Find(const char* function, const AmdQueue* queue) const {
  auto it = queues_.find(reinterpret_cast<uint64_t>(queue));
  if (it == queues_.end()) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat(function, "(0x", absl::Hex(reinterpret_cast<uintptr_t>(queue)),
                                                                 "): not a queue of this runtime")),
                         HSA_STATUS_ERROR_INVALID_QUEUE);
  }
  return it->second.get();
}

absl::Status Queues::SetCuMask(const AmdQueue* queue, std::span<const uint32_t> mask) {
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(AqlQueue * q, Find("hsa_amd_queue_cu_set_mask", queue));
  if (mask.empty()) return absl::InvalidArgumentError("hsa_amd_queue_cu_set_mask: an empty mask");
  // Only the GPU's CUs count (ROCr clips the mask to them too).
  std::vector<uint32_t> clipped(q->cu_mask.size(), 0);
  for (size_t i = 0; i < clipped.size() && i < mask.size(); ++i) clipped[i] = mask[i] & q->cu_mask_all(i);
  if (std::all_of(clipped.begin(), clipped.end(), [](uint32_t w) { return w == 0; })) {
    return absl::InvalidArgumentError("hsa_amd_queue_cu_set_mask: the mask enables no CU of the GPU");
  }
  RETURN_IF_ERROR(q->SetCuMask(runtime_.kfd(), clipped));
  q->cu_mask = std::move(clipped);
  return absl::OkStatus();
}

absl::Status Queues::GetCuMask(const AmdQueue* queue, std::span<uint32_t> out) const {
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(AqlQueue * q, Find("hsa_amd_queue_cu_get_mask", queue));
  if (out.empty()) return absl::InvalidArgumentError("hsa_amd_queue_cu_get_mask: no words to write");
  for (size_t i = 0; i < out.size(); ++i) out[i] = i < q->cu_mask.size() ? q->cu_mask[i] : 0;
  return absl::OkStatus();
}

absl::Status Queues::SetPriority(const AmdQueue* queue, QueuePriorityLevel level) {
  thunk::QueuePriority priority;
  switch (level) {
    case QueuePriorityLevel::kLow: priority = thunk::QueuePriority::kMinimum; break;
    case QueuePriorityLevel::kNormal: priority = thunk::QueuePriority::kNormal; break;
    case QueuePriorityLevel::kHigh: priority = thunk::QueuePriority::kMaximum; break;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("hsa_amd_queue_set_priority: unknown priority ", static_cast<uint32_t>(level)));
  }
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(AqlQueue * q, Find("hsa_amd_queue_set_priority", queue));
  return q->SetPriority(priority);
}

absl::StatusOr<Queues::Info> Queues::GetInfo(const AmdQueue* queue) const {
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(AqlQueue * q, Find("hsa_amd_queue_get_info", queue));
  const uint32_t properties =
      std::atomic_ref<uint32_t>(q->amd()->queue_properties).load(std::memory_order_relaxed);
  return Info{.agent = q->agent,
              .doorbell_address = q->doorbell_address,
              .hw_id = q->amd()->id,
              .profiling = (properties & kQueuePropertyEnableProfiling) != 0};
}

absl::Status Queues::SetProfiling(const AmdQueue* queue, bool enable) {
  ScopedLock lock(&mu_);
  ASSIGN_OR_RETURN(AqlQueue * q, Find("hsa_amd_profiling_set_profiler_enabled", queue));
  // The CP reads the word at every packet; an atomic update keeps the other property bits intact.
  std::atomic_ref<uint32_t> properties(q->amd()->queue_properties);
  if (enable) {
    properties.fetch_or(kQueuePropertyEnableProfiling, std::memory_order_release);
  } else {
    properties.fetch_and(~kQueuePropertyEnableProfiling, std::memory_order_release);
  }
  return absl::OkStatus();
}

bool Queues::RingDoorbell(uint64_t signal, int64_t value) {
  ScopedLock lock(&mu_);
  auto it = doorbells_.find(signal);
  if (it == doorbells_.end()) return false;
  it->second->Ring(static_cast<uint64_t>(value));
  return true;
}

size_t Queues::queue_count() const {
  ScopedLock lock(&mu_);
  return queues_.size() + soft_queues_.size();
}

}  // namespace hipmem::hsa
