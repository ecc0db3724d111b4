#include "hsa/queue.h"

#include "hsa/queue_memory.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "gpu_abi/aql_packets.h"
#include "hsa/hsa_status.h"
#include "hsa/hsa_ext_amd.h"
#include "hsa/memory.h"
#include "hsa/queue_memory.h"
#include "hsa/runtime_kfd.h"
#include "hsa/topology.h"
#include "thunk/device_controls.h"
#include "thunk/queues.h"

namespace hipmem::hsa {
namespace {

namespace aql = ::hipmem::gpu_abi::aql;
using thunk::MemFlags;

// The ring and the amd_queue_t page (QueueMemory).
constexpr Bytes kControlBytes = QueueMemory::kControlBytes;
constexpr uint64_t kDoorbellSignalOffset = sizeof(AmdQueue);  // right after the amd_queue_t
constexpr Bytes kMinRingBytes = Bytes::KiB(4);                // the KFD maps whole pages
// ROCr's GpuAgent::InitGWS: the cooperative queue's packets (defaultGWSQueueSize), whatever size the caller asks for.
constexpr uint32_t kCooperativeQueueSize = 0x4000;
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

// queue_inactive_signal's "insufficient scratch" bits, wave64 (1) and wave32 (0x400): a request, not an error.
constexpr SignalValue kInsufficientScratch = 0x401;

// queue_inactive_signal's codes, as ROCr's queue error handler decodes them: bit by bit, the first set bit in its
// order wins. The CP reports packet errors (2 to 256); the wave's trap handler reports a wave's exceptions, those of
// its v1 handler for a KFD without exception reporting: a memory violation (1 << 29), an illegal instruction
// (1 << 30), and s_trap 2, llvm.trap (1 << 31), which ROCr treats as a fatal debug trap.
hsa_status_t QueueErrorStatus(SignalValue code) {
  struct Row {
    SignalValue bit;
    hsa_status_t status;
  };
  static constexpr Row kRows[] = {
      {2, HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},  // invalid dimensions
      {4, HSA_STATUS_ERROR_INVALID_ALLOCATION},      // invalid group segment size
      {8, HSA_STATUS_ERROR_INVALID_CODE_OBJECT},     // invalid (or null) code
      {32, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},  // invalid packet
      {256, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},  // unsupported vendor-specific packet
      {64, HSA_STATUS_ERROR_INVALID_ARGUMENT},       // workgroup too large
      {128, static_cast<hsa_status_t>(HSA_STATUS_ERROR_OUT_OF_REGISTERS)},
      {SignalValue{1} << 29, static_cast<hsa_status_t>(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION)},
      {SignalValue{1} << 30, static_cast<hsa_status_t>(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION)},
      {SignalValue{1} << 31, HSA_STATUS_ERROR_EXCEPTION},
  };
  for (const Row& row : kRows) {
    if ((code & row.bit) != 0) return row.status;
  }
  return HSA_STATUS_ERROR_EXCEPTION;  // a code no row names (ROCr asserts, then reports HSA_STATUS_ERROR)
}

// Queues alive in the process (every Queues together).
std::atomic<int64_t> g_live_queues{0};

std::atomic_ref<uint64_t> Word(const uint64_t& word) { return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(word)); }

// The amd_queue_t whose indices `queue` uses: its own, or a counted handle's hardware queue's (set before the
// handle is handed out and never changed, so a plain load suffices).
const AmdQueue& Indices(const AmdQueue& queue) {
  return queue.index_owner == 0 ? queue : *reinterpret_cast<const AmdQueue*>(queue.index_owner);
}

}  // namespace

bool IsWaveException(const absl::Status& error) {
  // Only a code the callback's status carries: a bare kAborted (another layer's memory fault) maps to EXCEPTION too.
  if (!error.GetPayload(kHsaStatusPayloadUrl).has_value()) return false;
  const hsa_status_t code = ToHsaStatus(error);
  return code == HSA_STATUS_ERROR_EXCEPTION || code == static_cast<hsa_status_t>(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION);
}

uint64_t LoadReadIndex(const AmdQueue& queue, MemoryOrder order) {
  return Word(Indices(queue).read_dispatch_id).load(LoadOrder(order));
}
uint64_t LoadWriteIndex(const AmdQueue& queue, MemoryOrder order) {
  return Word(Indices(queue).write_dispatch_id).load(LoadOrder(order));
}
void StoreReadIndex(AmdQueue& queue, uint64_t value, MemoryOrder order) {
  Word(Indices(queue).read_dispatch_id).store(value, StoreOrder(order));
}
void StoreWriteIndex(AmdQueue& queue, uint64_t value, MemoryOrder order) {
  Word(Indices(queue).write_dispatch_id).store(value, StoreOrder(order));
}
uint64_t CasWriteIndex(AmdQueue& queue, uint64_t expected, uint64_t desired, MemoryOrder order) {
  // A failed exchange only loads, so it takes the load half of the order (C++ forbids a release failure).
  Word(Indices(queue).write_dispatch_id).compare_exchange_strong(expected, desired, RmwOrder(order), LoadOrder(order));
  return expected;
}
uint64_t AddWriteIndex(AmdQueue& queue, uint64_t value, MemoryOrder order) {
  return Word(Indices(queue).write_dispatch_id).fetch_add(value, RmwOrder(order));
}

namespace {

// GPU_MAX_HW_QUEUES and HSA_COUNTED_QUEUE_SIZE, ROCr's knobs for counted queues, with its defaults.
uint32_t EnvU32(const char* name, uint32_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 0);
  if (*end != '\0' || value == 0 || value > UINT32_MAX) return fallback;
  return static_cast<uint32_t>(value);
}

}  // namespace

// One queue: owns its ring, its amd_queue_t page and its KFD queue.
class Queues::AqlQueue {
 public:
  static absl::StatusOr<std::unique_ptr<AqlQueue>> Create(thunk::Kfd& kfd, thunk::NodeId gpu, uint32_t size,
                                                          QueueKind kind, uint64_t id) {
    const std::string context = absl::StrCat("hsa_queue_create(node=", gpu.raw(), ", size=", size, ")");
    const Bytes ring_bytes = std::max(Bytes(uint64_t{size} * aql::kPacketBytes), kMinRingBytes);
    ASSIGN_OR_RETURN(QueueMemory memory, QueueMemory::Allocate(kfd, gpu, ring_bytes, context));
    const DeviceAddress ring = memory.ring.address();
    const DeviceAddress control = memory.control.address();
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
    return std::unique_ptr<AqlQueue>(new AqlQueue(kfd, gpu, std::move(memory), ring_bytes, *std::move(queue)));
  }

  ~AqlQueue() {
    // The KFD queue goes first: its CP may not read the ring, the amd_queue_t or the scratch after they are freed,
    // nor raise the inactive signal once it is gone. The members then go in reverse order: the inactive signal
    // (whose handler touches the scratch and the amd_queue_t), then the ring and amd_queue_t, then the scratch.
    Deactivate();
    g_live_queues.fetch_sub(1, std::memory_order_relaxed);
  }

  // ROCr's dynamic scratch (AqlQueue::HandleInsufficientScratch and GpuAgent::AcquireQueueMainScratch), the
  // runtime's half: the CP stopped on `packet` (at the read index) because the queue's scratch cannot hold its private
  // segment. The queue's scratch is replaced by one sized as ROCr sizes it:
  //   - a wave's slot: the private segment per work-item rounded up so 64 lanes fill whole KiB, times 64 lanes;
  //     over COMPUTE_TMPRING_SIZE.WAVESIZE's 8191 KiB no wave can run: OUT_OF_RESOURCES;
  //   - a slot for every wave the GPU holds at once (max_slots_scratch_cu on every CU) when that is at most ROCr's
  //     single-use limit (HSA_SCRATCH_SINGLE_LIMIT's default, 140 MiB): kept for every later dispatch;
  //   - past it the scratch is "large": slots for this dispatch's waves only (all of its workgroups, at most the
  //     GPU's slots), marked USE_SCRATCH_ONCE so the CP asks again for the next dispatch that needs scratch. Sized
  //     so, every workgroup the GPU can hold gets a slot at once, which is what a cooperative grid (grid sync) needs:
  //     one whose workgroups did not all get slots would wait forever at its grid barrier.
  //   - when that allocation fails (ROCr: its scratch pool is exhausted), a cooperative queue fails the dispatch
  //     with OUT_OF_RESOURCES, as ROCr does: its grid must be resident whole. Any other queue gets fewer slots
  //     (ROCr's occupancy reduction, a workgroup's waves per CU at a time), so the dispatch runs with fewer waves
  //     at once; none at all is OUT_OF_RESOURCES.
  // Deliberate differences: ROCr counts a dispatch's workgroups per shader engine and aligns the CU count to them
  // (harvested CUs); this runtime knows no shader engines and counts the grid's workgroups and the node's CUs. ROCr
  // returns large scratch right after its dispatch (the CP's "reclaim" request); this runtime keeps it until the
  // CP asks again or the queue goes (its scratch is per queue: nothing waits for it). Carved from the GPU's VRAM
  // (host-visible, mapped for the GPU) rather than ROCr's scratch aperture: this runtime never sets
  // SH_HIDDEN_PRIVATE_BASE, so the CP's base plus scratch_backing_memory_location is the VA itself. hipmem's clr, as
  // CLR, runs cooperative launches (hipLaunchCooperativeKernel*) on the device's cooperative queue, so such a grid
  // fails here rather than running with fewer workgroups resident than its grid sync waits for.
  absl::Status GrowScratch(const aql::KernelDispatchPacket& packet) {
    constexpr uint64_t kLanes = 64;
    constexpr uint64_t kMaxWaveBytes = uint64_t{0x1fff} * 1024;  // WAVESIZE is 13 bits of KiB
    constexpr uint64_t kSingleLimit = uint64_t{140} << 20;        // ROCr's DEFAULT_SCRATCH_SINGLE_LIMIT
    constexpr uint64_t kMaxWaves = 0xfff;                          // COMPUTE_TMPRING_SIZE.WAVES is 12 bits
    const uint64_t per_lane = (uint64_t{packet.private_segment_size} + 15) & ~uint64_t{15};  // 1 KiB / 64 lanes
    const uint64_t wave_bytes = per_lane * kLanes;
    FreeScratch();
    AmdQueue* q = amd();
    std::atomic_ref<uint32_t> properties(q->queue_properties);
    properties.fetch_and(~kQueuePropertyUseScratchOnce, std::memory_order_release);
    if (wave_bytes == 0) return absl::OkStatus();
    if (wave_bytes > kMaxWaveBytes) {
      return WithHsaStatus(absl::ResourceExhaustedError(absl::StrCat(
                               "queue scratch: ", packet.private_segment_size, " bytes per work-item is over a wave's limit")),
                           HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    }
    const uint64_t cus = std::max(cu_count, 1u);
    // COMPUTE_TMPRING_SIZE is per XCC: WAVES counts one XCC's share, so waves go in multiples of the XCCs.
    const uint64_t xccs = std::max(xcc_count, 1u);
    auto per_xcc = [xccs](uint64_t n) { return (n + xccs - 1) / xccs * xccs; };
    const uint64_t device_slots = std::min(cus * std::max(scratch_slots_per_cu, 1u), kMaxWaves * xccs);
    const uint64_t lanes_per_group =
        uint64_t{packet.workgroup_size_x} * packet.workgroup_size_y * packet.workgroup_size_z;
    const uint64_t waves_per_group = std::max<uint64_t>((lanes_per_group + kLanes - 1) / kLanes, 1);
    auto groups_in = [](uint32_t grid, uint16_t size) { return size == 0 ? 0 : (uint64_t{grid} + size - 1) / size; };
    const uint64_t groups = groups_in(packet.grid_size_x, packet.workgroup_size_x) *
                            groups_in(packet.grid_size_y, packet.workgroup_size_y) *
                            groups_in(packet.grid_size_z, packet.workgroup_size_z);
    const uint64_t dispatch_slots = std::clamp(groups * waves_per_group, waves_per_group, device_slots);
    const bool large = device_slots * wave_bytes > kSingleLimit;
    uint64_t waves = per_xcc(large ? dispatch_slots : device_slots);
    absl::StatusOr<thunk::KfdAllocation> allocated = Allocate(Bytes(waves * wave_bytes));
    if (!allocated.ok()) {
      if (q->type == static_cast<uint32_t>(QueueKind::kCooperative)) {
        return WithHsaStatus(absl::ResourceExhaustedError(absl::StrCat(
                                 "queue scratch: ", waves, " waves of ", wave_bytes,
                                 " bytes for a cooperative queue's dispatch: ", allocated.status().message())),
                             HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      }
      // ROCr's occupancy reduction: whole workgroups' waves per CU, fewer each time, down to one workgroup's.
      uint64_t per_cu = (waves / cus + waves_per_group - 1) / waves_per_group * waves_per_group;
      for (; per_cu >= waves_per_group && !allocated.ok(); per_cu -= waves_per_group) {
        waves = per_xcc(std::min(per_cu * cus, kMaxWaves * xccs));
        allocated = Allocate(Bytes(waves * wave_bytes));
      }
      if (!allocated.ok()) {
        return WithHsaStatus(absl::ResourceExhaustedError(absl::StrCat("queue scratch: not even one workgroup's ",
                                                                       waves_per_group, " waves of ", wave_bytes,
                                                                       " bytes: ", allocated.status().message())),
                             HSA_STATUS_ERROR_OUT_OF_RESOURCES);
      }
    }
    const Bytes bytes(waves * wave_bytes);
    const DeviceAddress scratch = allocated->address();
    scratch_ = *std::move(allocated);
    const std::array<uint32_t, 4> resource = aql::Gfx9ScratchResource(scratch.raw(), static_cast<uint32_t>(bytes.raw()));
    std::memcpy(q->scratch_resource_descriptor, resource.data(), sizeof(q->scratch_resource_descriptor));
    q->scratch_backing_memory_location = scratch.raw();
    q->scratch_backing_memory_byte_size = bytes.raw();
    q->scratch_wave64_lane_byte_size = static_cast<uint32_t>(per_lane);
    // COMPUTE_TMPRING_SIZE: WAVES (11:0), WAVESIZE in KiB (24:12).
    q->compute_tmpring_size =
        static_cast<uint32_t>(std::min(waves / xccs, kMaxWaves)) | (static_cast<uint32_t>(wave_bytes / 1024) << 12);
    if (large) properties.fetch_or(kQueuePropertyUseScratchOnce, std::memory_order_release);
    return absl::OkStatus();
  }

  AmdQueue* amd() const { return static_cast<AmdQueue*>(memory_.control.pointer()); }
  AgentId agent{0};
  // The KFD doorbell's address (amd_signal_t.hardware_doorbell_ptr of the doorbell signal).
  uint64_t doorbell_address = 0;
  uint64_t doorbell_signal() const { return amd()->doorbell_signal; }

  // Makes `signal` the queue's queue_inactive_signal, which the queue owns from now on (destroyed after the CP
  // stops and before the memory its handler touches).
  void AdoptInactiveSignal(RegisteredSignal signal) {
    amd()->queue_inactive_signal = signal.handle().raw();
    inactive_signal_.emplace(std::move(signal));
  }

  void Deactivate() {
    ScopedLock lock(&mu_);
    if (queue_.empty()) return;
    if (absl::Status s = std::move(queue_).Destroy(); !s.ok()) HIPMEM_LOG(kError, "hsa_queue: ", s.message());
  }

  // Read and written only by Queues' calls, under Queues::mu_: another object's lock, which ABSL_GUARDED_BY cannot
  // name from here.
  std::vector<uint32_t> cu_mask;
  uint32_t cu_count = 0;
  uint32_t scratch_slots_per_cu = 0;  // the node's max_slots_scratch_cu
  uint32_t xcc_count = 1;             // the node's num_xcc
  // Word `i` of the mask that enables every CU of the GPU.
  uint32_t cu_mask_all(size_t i) const {
    const uint64_t first = uint64_t{i} * 32;
    if (first + 32 <= cu_count) return ~uint32_t{0};
    if (first >= cu_count) return 0;
    return (uint32_t{1} << (cu_count - first)) - 1;
  }

  // ROCr's AqlQueue::EnableGWS: the KFD gives the queue its GPU's global wave sync (one slot, as ROCr asks for), and
  // the queue becomes the agent's cooperative queue. Any KFD refusal is OUT_OF_RESOURCES, as ROCr maps it.
  absl::Status EnableGws(thunk::Kfd& kfd) {
    ScopedLock lock(&mu_);
    if (queue_.empty()) return absl::FailedPreconditionError("GWS for an inactive queue");
    if (absl::StatusOr<uint32_t> first = thunk::AllocQueueGws(kfd, queue_, 1); !first.ok()) {
      return WithHsaStatus(absl::ResourceExhaustedError(absl::StrCat("GWS allocation failed: ", first.status().message())),
                           HSA_STATUS_ERROR_OUT_OF_RESOURCES);
    }
    amd()->type = static_cast<uint32_t>(QueueKind::kCooperative);
    return absl::OkStatus();
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
    return queue_.Update(100, priority, memory_.ring.address(), ring_bytes_);
  }

  void Ring(uint64_t value) {
    ScopedLock lock(&mu_);
    // An inactive queue has no doorbell left: the store is dropped, as the CP no longer fetches.
    if (!queue_.empty()) queue_.RingDoorbell(value);
  }

 private:
  AqlQueue(thunk::Kfd& kfd, thunk::NodeId node, QueueMemory memory, Bytes ring_bytes, thunk::Queue queue)
      : kfd_(kfd), node_(node), memory_(std::move(memory)), ring_bytes_(ring_bytes), queue_(std::move(queue)) {
    // Counted from here to the destructor, so that no signal store skips the doorbell lookup while it may ring.
    g_live_queues.fetch_add(1, std::memory_order_relaxed);
  }

  // `bytes` of VRAM for the queue's scratch, host-visible and mapped for the GPU.
  absl::StatusOr<thunk::KfdAllocation> Allocate(Bytes bytes) {
    const std::span<const thunk::NodeId> just_gpu(&node_, 1);
    ASSIGN_OR_RETURN(thunk::KfdAllocation allocated,
                     kfd_.AllocMemory(node_, bytes, MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kCoarseGrain));
    RETURN_IF_ERROR(kfd_.MapMemoryToGpu(allocated.address(), just_gpu));  // else `allocated` frees it
    return allocated;
  }

  // Drops the queue's scratch and clears its amd_queue_t fields (the CP is stopped or gone: nothing uses it).
  void FreeScratch() {
    AmdQueue* q = amd();
    std::memset(q->scratch_resource_descriptor, 0, sizeof(q->scratch_resource_descriptor));
    q->scratch_backing_memory_location = 0;
    q->scratch_backing_memory_byte_size = 0;
    q->scratch_wave64_lane_byte_size = 0;
    q->compute_tmpring_size = 0;
    if (!scratch_.has_value()) return;
    if (absl::Status s = std::move(*scratch_).Free(); !s.ok()) HIPMEM_LOG(kError, "queue scratch: ", s.message());
    scratch_.reset();
  }

  thunk::Kfd& kfd_;  // Not owned; must outlive this.
  const thunk::NodeId node_;
  // The queue's scratch backing, once a dispatch asked for one (GrowScratch). Touched only with the CP stopped on
  // the dispatch that asked (the queue_inactive_signal handler) or gone (the destructor).
  std::optional<thunk::KfdAllocation> scratch_;
  // The ring and the amd_queue_t page. Declared before queue_, which reads them, so they are freed after it.
  const QueueMemory memory_;
  const Bytes ring_bytes_;
  // The queue_inactive_signal (AdoptInactiveSignal). Declared after memory_ and scratch_, which its handler touches,
  // so it is destroyed before them; the destructor has stopped the CP that raises it.
  std::optional<RegisteredSignal> inactive_signal_;
  absl::Mutex mu_;
  thunk::Queue queue_ ABSL_GUARDED_BY(mu_);
};

// A software queue: owns its ring and its amd_queue_t, both allocated from the caller's region.
class Queues::SoftQueue {
 public:
  static absl::StatusOr<std::unique_ptr<SoftQueue>> Create(Runtime& runtime, const MemoryPool& region,
                                                           const SoftQueueRequest& request, uint64_t id) {
    const Bytes ring_bytes(uint64_t{request.size} * aql::kPacketBytes);
    ASSIGN_OR_RETURN(PoolAllocation ring, runtime.memory().AllocateUnrestricted(region, ring_bytes));
    ASSIGN_OR_RETURN(PoolAllocation control, runtime.memory().AllocateUnrestricted(region, Bytes(sizeof(AmdQueue))));
    for (uint32_t slot = 0; slot < request.size; ++slot) {
      aql::InvalidateSlot(static_cast<char*>(ring.pointer()) + uint64_t{slot} * aql::kPacketBytes);
    }
    auto* amd = static_cast<AmdQueue*>(control.pointer());
    std::memset(amd, 0, sizeof(AmdQueue));
    amd->type = static_cast<uint32_t>(request.kind);
    amd->features = request.features;
    amd->base_address = ring.address().raw();
    amd->doorbell_signal = request.doorbell.raw();
    amd->size = request.size;
    amd->id = id;
    amd->read_dispatch_id_field_base_byte_offset = offsetof(AmdQueue, read_dispatch_id);
    return std::unique_ptr<SoftQueue>(new SoftQueue(std::move(ring), std::move(control)));
  }

  AmdQueue* amd() const { return static_cast<AmdQueue*>(control_.pointer()); }

 private:
  SoftQueue(PoolAllocation ring, PoolAllocation control) : ring_(std::move(ring)), control_(std::move(control)) {}

  // The runtime must outlive them.
  const PoolAllocation ring_;
  const PoolAllocation control_;
};

// One counted-queue handle: a copy of its hardware queue's amd_queue_t.
struct Queues::CountedHandle {
  std::unique_ptr<AmdQueue> amd;
  AmdQueue* hardware;  // Not owned; a queue of queues_, which outlives the handle.
  std::pair<uint64_t, uint32_t> pool;
};

// The error callbacks of the handles sharing one hardware queue; the queue's own error callback (on the
// signal handler thread) calls each with its handle. Shared with that callback, so it outlives Queues' locks.
struct Queues::CountedCallbacks {
  absl::Mutex mu;
  std::vector<std::pair<AmdQueue*, QueueErrorCallback>> callbacks ABSL_GUARDED_BY(mu);
};

Queues::Queues(Runtime& runtime, SignalRuntime& signals) : runtime_(runtime), signals_(signals) {}

Queues::~Queues() {
  ScopedLock lock(&mu_);
  // The counted queues' hardware queues are the runtime's own (ROCr destroys its pools at shutdown too).
  size_t pooled = 0;
  for (const auto& [key, pool] : counted_pools_) pooled += pool.size();
  if (queues_.size() > pooled) {
    HIPMEM_LOG(kWarning, "hsa_shut_down: destroying ", queues_.size() - pooled, " queue(s) left");
  }
  doorbells_.clear();
  counted_.clear();
  cooperative_.clear();
  queues_.clear();
  soft_queues_.clear();
}

bool Queues::AnyQueues() { return g_live_queues.load(std::memory_order_relaxed) > 0; }

absl::StatusOr<AmdQueue*> Queues::Create(const QueueRequest& request) {
  ScopedLock lock(&mu_);
  return CreateLocked(request);
}

absl::StatusOr<Queue> Queues::CreateOwned(const QueueRequest& request) {
  ASSIGN_OR_RETURN(AmdQueue * amd, Create(request));
  return Queue(this, amd);
}

Queue::Queue(Queue&& other) noexcept
    : queues_(std::exchange(other.queues_, nullptr)), amd_(std::exchange(other.amd_, nullptr)) {}

Queue& Queue::operator=(Queue&& other) noexcept {
  if (this != &other) {
    Queue old(std::move(*this));  // destroys what this held when it goes
    queues_ = std::exchange(other.queues_, nullptr);
    amd_ = std::exchange(other.amd_, nullptr);
  }
  return *this;
}

Queue::~Queue() {
  if (queues_ == nullptr) return;
  if (absl::Status s = queues_->Destroy(amd_); !s.ok()) HIPMEM_LOG(kError, "destroying a queue: ", s.message());
}

absl::Status Queue::Destroy() && {
  Queues* queues = std::exchange(queues_, nullptr);
  if (queues == nullptr) return absl::FailedPreconditionError("Queue::Destroy: nothing owned");
  return queues->Destroy(std::exchange(amd_, nullptr));
}

absl::StatusOr<AmdQueue*> Queues::CreateLocked(const QueueRequest& request) {
  const std::string context = absl::StrCat("hsa_queue_create(agent=", request.agent.raw(), ", size=", request.size, ")");
  ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(request.agent));
  if (request.size == 0 || !std::has_single_bit(request.size)) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": the size is not a power of two"));
  }
  if (request.kind != QueueKind::kMulti && request.kind != QueueKind::kSingle &&
      request.kind != QueueKind::kCooperative) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": unknown queue type ", static_cast<uint32_t>(request.kind)));
  }
  if (agent->type != DeviceType::kGpu) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat(context, ": a CPU agent has no queues")),
                         HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  }
  // ROCr's GpuAgent::QueueCreate hands out its cooperative queue before any check of the size against the agent's.
  if (request.kind == QueueKind::kCooperative) return ShareCooperativeLocked(*agent, request);
  if (request.size > kAqlQueueMaxSize) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat(context, ": above the agent's QUEUE_MAX_SIZE ",
                                                                 kAqlQueueMaxSize)),
                         HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  }
  const uint32_t size = std::max(request.size, kAqlQueueMinSize);
  ASSIGN_OR_RETURN(std::unique_ptr<AqlQueue> queue,
                   AqlQueue::Create(KfdOf(runtime_), KfdNodeOf(runtime_, *agent), size, request.kind, next_id_));
  ++next_id_;
  queue->agent = request.agent;
  {
    aql::AmdSignal doorbell;
    std::memcpy(&doorbell, reinterpret_cast<const void*>(queue->doorbell_signal()), sizeof(doorbell));
    queue->doorbell_address = static_cast<uint64_t>(doorbell.value);
  }
  for (const thunk::NodeProperties& node : TopologyOf(runtime_).nodes) {
    if (node.id != KfdNodeOf(runtime_, *agent) || node.Get("simd_per_cu") == 0) continue;
    queue->cu_count = static_cast<uint32_t>(node.Get("simd_count") / node.Get("simd_per_cu"));
    queue->scratch_slots_per_cu = static_cast<uint32_t>(node.Get("max_slots_scratch_cu"));
    queue->xcc_count = std::max<uint32_t>(static_cast<uint32_t>(node.Get("num_xcc")), 1);
  }
  queue->cu_mask.assign((queue->cu_count + 31) / 32, ~uint32_t{0});
  if (queue->cu_count % 32 != 0) queue->cu_mask.back() = (uint32_t{1} << (queue->cu_count % 32)) - 1;
  AmdQueue* amd = queue->amd();
  // The error report channel: created after the KFD queue (which cannot halt before a doorbell rings) and
  // destroyed with it.
  ASSIGN_OR_RETURN(RegisteredSignal inactive, signals_.CreateOwned(0, {}));
  const SignalRef inactive_ref = inactive.ref();
  queue->AdoptInactiveSignal(std::move(inactive));  // from here an early return destroys it with the queue
  QueueErrorCallback on_error = request.on_error;
  RETURN_IF_ERROR(signals_.SetAsyncHandler(
      inactive_ref.handle(), SignalCondition::kNe, 0,
      [on_error = std::move(on_error), amd, id = amd->id, aql = queue.get(), inactive_ref](SignalValue code) {
        absl::Status error;
        if ((code & kInsufficientScratch) != 0) {
          // The CP waits on the packet at the read index; grown scratch and a 0 restart it (ROCr's handler).
          const uint64_t slot = LoadReadIndex(*amd, MemoryOrder::kAcquire) & (amd->size - 1);
          aql::KernelDispatchPacket packet;
          std::memcpy(&packet, reinterpret_cast<const char*>(amd->base_address) + slot * aql::kPacketBytes,
                      sizeof(packet));
          error = aql->GrowScratch(packet);
          if (error.ok()) {
            inactive_ref.Store(0, MemoryOrder::kRelease);
            return true;  // keep watching for the next request or error
          }
          HIPMEM_LOG(kError, error.message());
          if (on_error) on_error(error, amd);
          // Anything but 0 or the request tells the waiting CP that no scratch will come (ROCr stores -1).
          inactive_ref.Store(-1, MemoryOrder::kRelease);
          return false;  // once: the queue stays halted
        }
        error = FromHsaStatus(QueueErrorStatus(code), absl::StrCat("queue ", id, ": the CP halted (code ", code, ")"));
        HIPMEM_LOG(kError, error.message());
        if (on_error) on_error(error, amd);
        return false;  // once: the queue stays halted
      }));
  doorbells_[queue->doorbell_signal()] = queue.get();
  queues_[reinterpret_cast<uint64_t>(amd)] = std::move(queue);
  return amd;
}

absl::StatusOr<AmdQueue*> Queues::ShareCooperativeLocked(const Agent& agent, const QueueRequest& request) {
  const std::string context = absl::StrCat("hsa_queue_create(agent=", request.agent.raw(), ", COOPERATIVE)");
  bool has_gws = false;
  for (const thunk::NodeProperties& node : TopologyOf(runtime_).nodes) {
    if (node.id == KfdNodeOf(runtime_, agent)) has_gws = node.Get("num_gws") != 0;
  }
  if (!has_gws) {
    return WithHsaStatus(
        absl::InvalidArgumentError(absl::StrCat(context, ": the agent has no GWS (HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES)")),
        HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  }
  auto [it, fresh] = cooperative_.try_emplace(request.agent.raw());
  CooperativeQueue& shared = it->second;
  if (fresh) {
    absl::Cleanup forget = [&] { cooperative_.erase(request.agent.raw()); };
    shared.callbacks = std::make_shared<CountedCallbacks>();
    ASSIGN_OR_RETURN(AmdQueue * amd, CreateLocked({.agent = request.agent,
                                                   .size = kCooperativeQueueSize,
                                                   .kind = QueueKind::kMulti,
                                                   .on_error = FanOut(shared.callbacks)}));
    if (absl::Status s = queues_.at(reinterpret_cast<uint64_t>(amd))->EnableGws(KfdOf(runtime_)); !s.ok()) {
      DropCreatedLocked(amd);
      return Annotate(s, context);
    }
    shared.queue = amd;
    std::move(forget).Cancel();
  }
  ++shared.references;
  if (request.on_error) {
    ScopedLock lock(&shared.callbacks->mu);
    shared.callbacks->callbacks.emplace_back(shared.queue, request.on_error);
  }
  return shared.queue;
}

void Queues::DropCreatedLocked(AmdQueue* amd) {
  std::unique_ptr<AqlQueue> owned = std::move(queues_.at(reinterpret_cast<uint64_t>(amd)));
  doorbells_.erase(owned->doorbell_signal());
  queues_.erase(reinterpret_cast<uint64_t>(amd));
}

QueueErrorCallback Queues::FanOut(std::shared_ptr<CountedCallbacks> callbacks) {
  return [callbacks = std::move(callbacks)](const absl::Status& error, AmdQueue*) {
    std::vector<std::pair<AmdQueue*, QueueErrorCallback>> copy;
    {
      ScopedLock lock(&callbacks->mu);
      copy = callbacks->callbacks;
    }
    for (auto& [handle, callback] : copy) callback(error, handle);
  };
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
  std::unique_ptr<AqlQueue> owned;  // declared outside the lock: the queue's teardown does not hold mu_
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
    // The agent's cooperative queue: one reference less (ROCr's GpuAgent::GWSRelease); the last one destroys it,
    // and the next hsa_queue_create(COOPERATIVE) makes a new one.
    if (auto shared = cooperative_.find(it->second->agent.raw());
        shared != cooperative_.end() && shared->second.queue == queue) {
      if (--shared->second.references > 0) return absl::OkStatus();
      cooperative_.erase(shared);
    }
    owned = std::move(it->second);
    doorbells_.erase(owned->doorbell_signal());
    queues_.erase(it);
  }
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
  // A counted handle stands for its hardware queue.
  if (auto counted = counted_.find(reinterpret_cast<uint64_t>(queue)); counted != counted_.end()) {
    queue = counted->second->hardware;
  }
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
  RETURN_IF_ERROR(q->SetCuMask(KfdOf(runtime_), clipped));
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
  std::optional<uint32_t> use_count;
  if (counted_.contains(reinterpret_cast<uint64_t>(queue))) {
    auto it = use_counts_.find(reinterpret_cast<uint64_t>(q->amd()));
    use_count = it == use_counts_.end() ? 0 : it->second;
  }
  return Info{.agent = q->agent,
              .doorbell_address = q->doorbell_address,
              .hw_id = q->amd()->id,
              .use_count = use_count,
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

absl::StatusOr<AmdQueue*> Queues::AcquireCounted(const CountedQueueRequest& request) {
  const std::string context = absl::StrCat("hsa_amd_counted_queue_acquire(agent=", request.agent.raw(), ")");
  if (request.priority != QueuePriorityLevel::kLow && request.priority != QueuePriorityLevel::kNormal &&
      request.priority != QueuePriorityLevel::kHigh) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": unknown priority ", static_cast<uint32_t>(request.priority)));
  }
  if (request.kind != QueueKind::kMulti) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat(context, ": counted queues are MULTI only")),
                         HSA_STATUS_ERROR_INVALID_QUEUE_CREATION);
  }
  ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(request.agent));
  (void)agent;
  const uint32_t max_hw_queues = EnvU32("GPU_MAX_HW_QUEUES", 4);
  const uint32_t queue_size = EnvU32("HSA_COUNTED_QUEUE_SIZE", 16384);
  const std::pair<uint64_t, uint32_t> key(request.agent.raw(), static_cast<uint32_t>(request.priority));
  ScopedLock lock(&mu_);
  std::vector<AmdQueue*>& pool = counted_pools_[key];
  AmdQueue* hardware = nullptr;
  if (pool.size() >= max_hw_queues) {
    // At the limit the least-used queue is shared (the first of equals, as ROCr's scan).
    uint32_t least = UINT32_MAX;
    for (AmdQueue* q : pool) {
      const uint32_t uses = use_counts_[reinterpret_cast<uint64_t>(q)];
      if (uses < least) {
        least = uses;
        hardware = q;
      }
    }
  } else {
    auto callbacks = std::make_shared<CountedCallbacks>();
    ASSIGN_OR_RETURN(hardware, CreateLocked({.agent = request.agent,
                                             .size = queue_size,
                                             .kind = QueueKind::kMulti,
                                             .on_error = FanOut(callbacks)}));
    AqlQueue* q = queues_.at(reinterpret_cast<uint64_t>(hardware)).get();
    thunk::QueuePriority priority = thunk::QueuePriority::kNormal;
    if (request.priority == QueuePriorityLevel::kLow) priority = thunk::QueuePriority::kMinimum;
    if (request.priority == QueuePriorityLevel::kHigh) priority = thunk::QueuePriority::kMaximum;
    if (absl::Status s = q->SetPriority(priority); !s.ok()) {
      DropCreatedLocked(hardware);
      return s;
    }
    // ROCr turns profiling on for the queues it pools.
    std::atomic_ref<uint32_t>(hardware->queue_properties).fetch_or(kQueuePropertyEnableProfiling);
    pool.push_back(hardware);
    counted_callbacks_[reinterpret_cast<uint64_t>(hardware)] = std::move(callbacks);
  }
  auto handle = std::make_unique<CountedHandle>();
  handle->amd = std::make_unique<AmdQueue>();
  std::memcpy(handle->amd.get(), hardware, sizeof(AmdQueue));
  handle->amd->index_owner = reinterpret_cast<uint64_t>(hardware);
  handle->hardware = hardware;
  handle->pool = key;
  AmdQueue* amd = handle->amd.get();
  if (request.on_error) {
    CountedCallbacks& callbacks = *counted_callbacks_.at(reinterpret_cast<uint64_t>(hardware));
    ScopedLock callbacks_lock(&callbacks.mu);
    callbacks.callbacks.emplace_back(amd, request.on_error);
  }
  ++use_counts_[reinterpret_cast<uint64_t>(hardware)];
  counted_[reinterpret_cast<uint64_t>(amd)] = std::move(handle);
  return amd;
}

absl::Status Queues::ReleaseCounted(const AmdQueue* queue) {
  ScopedLock lock(&mu_);
  auto it = counted_.find(reinterpret_cast<uint64_t>(queue));
  if (it == counted_.end()) {
    return WithHsaStatus(absl::InvalidArgumentError(absl::StrCat("hsa_amd_counted_queue_release(0x",
                                                                 absl::Hex(reinterpret_cast<uintptr_t>(queue)),
                                                                 "): not a live counted queue")),
                         HSA_STATUS_ERROR_INVALID_QUEUE);
  }
  AmdQueue* hardware = it->second->hardware;
  uint32_t& uses = use_counts_[reinterpret_cast<uint64_t>(hardware)];
  if (uses > 0) --uses;
  if (auto callbacks = counted_callbacks_.find(reinterpret_cast<uint64_t>(hardware));
      callbacks != counted_callbacks_.end()) {
    ScopedLock callbacks_lock(&callbacks->second->mu);
    std::erase_if(callbacks->second->callbacks, [&](const auto& entry) { return entry.first == queue; });
  }
  counted_.erase(it);
  return absl::OkStatus();
}

bool Queues::RingDoorbell(uint64_t signal, int64_t value) {
  // ROCr: a store to the queue's doorbell signal.
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_signal_store_screlease");
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
