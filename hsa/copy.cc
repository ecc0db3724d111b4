#include "hsa/copy.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/env.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/blit_kernels.h"
#include "gpu_abi/sdma_packets.h"
#include "hsa/gpu_access.h"
#include "hsa/queue_memory.h"
#include "hsa/hsa_status.h"
#include "hsa/runtime_kfd.h"
#include "thunk/clock.h"
#include "thunk/events.h"
#include "thunk/queues.h"

namespace hipmem::hsa {
namespace {

namespace aql = ::hipmem::gpu_abi::aql;
namespace blit = ::hipmem::gpu_abi::blit;
namespace sdma = ::hipmem::gpu_abi::sdma;
using thunk::MemFlags;

constexpr Bytes kSdmaRingBytes = Bytes::KiB(64);  // ROCr: 1 MiB; 64 KiB holds hundreds of queued copies
constexpr uint32_t kAqlSlots = 64;
constexpr Bytes kAqlRingBytes = Bytes(uint64_t{kAqlSlots} * aql::kPacketBytes);

// The SDMA control page: the end timestamp lands here first, since TIMESTAMP needs a 32-byte aligned target
// and amd_signal_t's end_ts is not; a COPY_LINEAR then moves it into the signal.
constexpr uint64_t kSdmaScratchOffset = 0;
// The AQL control page: amd_queue_t's dispatch ids, the two kernel descriptors, one kernarg block per slot.
constexpr uint64_t kReadIdOffset = 0;
constexpr uint64_t kWriteIdOffset = 8;
constexpr uint64_t kCopyDescriptorOffset = 64;
constexpr uint64_t kFillDescriptorOffset = 128;
constexpr uint64_t kKernargOffset = 256;
// Both control pages: the channel's own amd_signal_t, which counts (downwards from 0) the operations whose
// completion the watcher reports, waking it through the channel's event.
constexpr uint64_t kRetireSignalOffset = 3072;
static_assert(kKernargOffset + uint64_t{kAqlSlots} * sizeof(blit::CopyArgs) <= kRetireSignalOffset);
static_assert(kRetireSignalOffset % 64 == 0 && kRetireSignalOffset + 64 <= 4096);

constexpr absl::Duration kRingWait = absl::Seconds(30);  // for space in a ring held by blocked copies
constexpr absl::Duration kWatchPeriod = absl::Milliseconds(20);
constexpr absl::Duration kRetirePoll = absl::Microseconds(50);  // a channel without a retire event, while busy
constexpr uint64_t kPage = 4096;

uint64_t MonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

const thunk::NodeProperties* NodePropertiesOf(const Runtime& runtime, const Agent& agent) {
  const thunk::NodeId node = KfdNodeOf(runtime, agent);
  for (const thunk::NodeProperties& n : TopologyOf(runtime).nodes) {
    if (n.id == node) return &n;
  }
  return nullptr;
}

template <typename T>
absl::StatusOr<T> Annotated(absl::StatusOr<T> value, absl::string_view context) {
  if (!value.ok()) return Annotate(value.status(), context);
  return value;
}

bool IsGpu(const Agent& a) { return a.type == DeviceType::kGpu; }

}  // namespace

// One side of an operation made reachable by the GPU. `pin` keeps a registration of host memory nobody else
// registered, shared by every queued operation on that memory (the last one to finish unpins it).
struct Hold {
  std::shared_ptr<GpuAccess> pin;
  std::optional<GpuAccess> access;

  uint64_t gpu_address() const {
    if (access.has_value()) return access->gpu_address().raw();
    return pin->gpu_address().raw();
  }
};

// One operation for a channel, in GPU addresses.
struct ChannelOp {
  enum class Kind { kCopy, kFill, kSdmaStream } kind = Kind::kCopy;
  uint64_t dst = 0;
  uint64_t src = 0;
  uint64_t bytes = 0;
  uint32_t fill_value = 0;
  std::vector<uint64_t> dependencies;  // signal handles
  uint64_t completion = 0;             // signal handle
  bool profile = false;
  // The engine reports completion to the channel (its retire counter) instead of decrementing `completion`;
  // the watcher drops the op's pins and then decrements. For host memory pinned just for this op: its
  // owner may free it as soon as the signal says done, so it must be unpinned by then.
  bool via_host = false;
  // kSdmaStream: the packets between the dependency waits and the completion, and the memory they touch in
  // GPU addresses (what a VM fault is matched against).
  std::vector<uint32_t> stream;
  std::vector<AddressRange> stream_ranges;
};

class Copies::Channel {
 public:
  // A queue on `gpu`: the blit kernel's AQL queue for kBlitKernel, else an SDMA queue (XGMI when `xgmi`).
  static absl::StatusOr<std::unique_ptr<Channel>> Create(thunk::Kfd& kfd, const thunk::NodeProperties& gpu,
                                                         CopyEngineKind kind, bool xgmi) {
    std::unique_ptr<Channel> channel(new Channel(kfd, gpu, kind, xgmi));
    ScopedLock lock(&channel->mu_);
    RETURN_IF_ERROR(channel->EnsureQueue());
    return channel;
  }

  ~Channel() {
    {
      ScopedLock lock(&mu_);
      stop_ = true;
    }
    if (watcher_.joinable()) watcher_.join();
    ScopedLock lock(&mu_);
    DropQueue();
  }

  // Publishes `op`; `holds` (the GPU views of its sides) and `completion` live until it is done.
  absl::Status Submit(ChannelOp op, std::vector<Hold> holds, SignalRef completion) {
    ScopedLock lock(&mu_);
    RETURN_IF_ERROR(EnsureQueue());
    Retire();
    uint64_t host_seq = 0;
    if (op.via_host) host_seq = ++q_->host_ops;
    uint64_t end = 0;
    if (kind_ == CopyEngineKind::kSdma) {
      ASSIGN_OR_RETURN(end, WriteSdma(op));
    } else {
      ASSIGN_OR_RETURN(end, WriteAql(op));
    }
    std::vector<AddressRange> touched;
    if (op.kind == ChannelOp::Kind::kSdmaStream) {
      touched = std::move(op.stream_ranges);
    } else {
      touched.push_back(AddressRange{DeviceAddress(op.dst), Bytes(op.bytes)});
    }
    if (op.kind == ChannelOp::Kind::kCopy) touched.push_back(AddressRange{DeviceAddress(op.src), Bytes(op.bytes)});
    pending_.push_back(Pending{end, host_seq, std::move(completion), std::move(holds), std::move(touched)});
    return absl::OkStatus();
  }

  // Whether nothing is queued (hsa_amd_memory_copy_engine_status's "free").
  bool Idle() {
    ScopedLock lock(&mu_);
    Retire();
    return pending_.empty();
  }

 private:
  struct Queue {
    // Declared before `queue`, which reads them, so they are freed after it.
    QueueMemory memory;
    DeviceAddress ring;
    DeviceAddress control;
    thunk::Queue queue;
    thunk::Event faults;  // MEMORY event: VM faults of the GPU
    std::optional<thunk::Event> done;  // signal event of the retire counter; none when the KFD had none left
    uint64_t written = 0;  // SDMA: bytes written (monotonic); AQL: the next packet index
    uint64_t host_ops = 0;  // via_host operations submitted

    uint64_t retire_signal() const { return control.raw() + kRetireSignalOffset; }
    // via_host operations the engine has finished.
    uint64_t host_ops_done() const {
      const auto* value = reinterpret_cast<int64_t*>(at(kRetireSignalOffset + aql::kSignalValueOffset));
      return static_cast<uint64_t>(-std::atomic_ref<int64_t>(*const_cast<int64_t*>(value)).load(std::memory_order_acquire));
    }

    char* at(uint64_t offset) const { return static_cast<char*>(control.ToPointer()) + offset; }
  };
  struct Pending {
    uint64_t end;  // the queue position past the op: SDMA bytes, AQL packet index
    uint64_t host_seq;  // via_host: its number among them (1, 2, ...); 0 otherwise
    SignalRef completion;
    std::vector<Hold> holds;
    std::vector<AddressRange> touched;
  };

  Channel(thunk::Kfd& kfd, const thunk::NodeProperties& gpu, CopyEngineKind kind, bool xgmi)
      : kfd_(kfd),
        gpu_(gpu.id),
        kind_(kind),
        xgmi_(xgmi),
        max_linear_(sdma::MaxLinearBytes(
            sdma::GenerationOf(static_cast<uint32_t>(gpu.Get("gfx_target_version"))).value_or(sdma::Generation::kV4_0))) {
    watcher_ = std::thread([this] { Watch(); });
  }

  std::string Name() const {
    return absl::StrCat(kind_ == CopyEngineKind::kSdma ? (xgmi_ ? "XGMI SDMA" : "SDMA") : "blit kernel",
                        " queue of node ", gpu_.raw());
  }

  absl::Status EnsureQueue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (q_ != nullptr) return absl::OkStatus();
    const std::string context = Name();
    const bool sdma = kind_ == CopyEngineKind::kSdma;
    const Bytes ring_bytes = sdma ? kSdmaRingBytes : kAqlRingBytes;
    ASSIGN_OR_RETURN(QueueMemory memory, QueueMemory::Allocate(kfd_, gpu_, ring_bytes, context));
    const DeviceAddress ring = memory.ring.address();
    const DeviceAddress control = memory.control.address();
    thunk::QueueSpec spec{.node = gpu_, .percentage = 100, .ring = ring, .ring_size = ring_bytes};
    char* base = static_cast<char*>(control.ToPointer());
    if (sdma) {
      spec.type = xgmi_ ? thunk::QueueType::kSdmaXgmi : thunk::QueueType::kSdma;
      spec.priority = thunk::QueuePriority::kMaximum;
    } else {
      for (uint32_t slot = 0; slot < kAqlSlots; ++slot) {
        aql::InvalidateSlot(static_cast<char*>(ring.ToPointer()) + uint64_t{slot} * aql::kPacketBytes);
      }
      const blit::KernelDescriptor copy = blit::MakeDescriptor(blit::KernelId::kCopy);
      const blit::KernelDescriptor fill = blit::MakeDescriptor(blit::KernelId::kFill);
      std::memcpy(base + kCopyDescriptorOffset, &copy, sizeof(copy));
      std::memcpy(base + kFillDescriptorOffset, &fill, sizeof(fill));
      spec.type = thunk::QueueType::kComputeAql;
      spec.priority = thunk::QueuePriority::kNormal;
      spec.aql_read_pointer = control + Bytes(kReadIdOffset);
      spec.aql_write_pointer = control + Bytes(kWriteIdOffset);
    }
    ASSIGN_OR_RETURN(thunk::Queue queue, Annotated(thunk::Queue::Create(kfd_, spec), context));
    ASSIGN_OR_RETURN(thunk::Event faults,
                     thunk::Event::Create(kfd_, thunk::EventDescriptor{.type = thunk::EventType::kMemory, .node = gpu_}));
    // The retire counter's event. When the process's signal events are used up (AMDKFD_IOC_CREATE_EVENT: ENOSPC,
    // e.g. by thousands of pending interrupt signals), the counter is a polled one, as ROCr's signals degrade
    // when its event pool runs dry: the watcher then looks at it often instead of sleeping until it is set.
    std::optional<thunk::Event> done;
    absl::StatusOr<thunk::Event> made =
        thunk::Event::Create(kfd_, thunk::EventDescriptor{.type = thunk::EventType::kSignal, .node = gpu_});
    if (made.ok()) {
      done = *std::move(made);
    } else if (!absl::IsResourceExhausted(made.status())) {
      return Annotate(made.status(), context);
    } else {
      HIPMEM_LOG(kWarning, context, ": no KFD signal event left (", made.status().message(),
                 "); its completions are polled");
    }
    if (done.has_value() && done->handle().mailbox == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(context, ": the signal event has no mailbox"));
    }
    aql::AmdSignal retire{};
    retire.kind = static_cast<int64_t>(aql::SignalKind::kUser);
    if (done.has_value()) {
      retire.event_mailbox_ptr = reinterpret_cast<uint64_t>(done->handle().mailbox);
      retire.event_id = done->handle().trigger_data;
    }
    std::memcpy(base + kRetireSignalOffset, &retire, sizeof(retire));
    const uint64_t written = sdma ? *queue.write_pointer() : 0;
    q_ = std::unique_ptr<Queue>(
        new Queue{std::move(memory), ring, control, std::move(queue), std::move(faults), std::move(done), written, 0});
    return absl::OkStatus();
  }

  void DropQueue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (q_ == nullptr) return;
    // The queue goes first: its engine may not read the ring or the control page after they are freed (with q_).
    if (absl::Status s = std::move(q_->queue).Destroy(); !s.ok()) HIPMEM_LOG(kError, Name(), ": ", s.message());
    q_.reset();
  }

  // How far the engine got: SDMA's read pointer (bytes), AQL's read dispatch id.
  uint64_t Position() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    uint64_t* word = kind_ == CopyEngineKind::kSdma ? q_->queue.read_pointer()
                                                    : reinterpret_cast<uint64_t*>(q_->at(kReadIdOffset));
    return std::atomic_ref<uint64_t>(*word).load(std::memory_order_acquire);
  }

  // Drops the ops the engine has finished, in order; a via_host op is unpinned, then its signal decremented.
  void Retire() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (q_ == nullptr) return;
    const uint64_t position = Position();
    const uint64_t host_done = q_->host_ops_done();
    while (!pending_.empty()) {
      Pending& p = pending_.front();
      if (p.host_seq != 0 ? p.host_seq > host_done : p.end > position) break;
      p.holds.clear();
      if (p.host_seq != 0) p.completion.Apply(SignalOp::kSubtract, 1, MemoryOrder::kRelease);
      pending_.pop_front();
    }
  }

  // Waits (holding the lock: the engine, not the watcher, makes room) until `bytes` more fit in the ring.
  absl::Status WaitForRoom(uint64_t needed, uint64_t capacity) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (needed > capacity) return absl::InvalidArgumentError(absl::StrCat(Name(), ": an operation larger than the ring"));
    const absl::Time deadline = absl::Now() + kRingWait;
    while (q_->written + needed - Position() > capacity) {
      if (absl::Now() > deadline) {
        return absl::DeadlineExceededError(absl::StrCat(Name(), ": the ring stayed full (copies waiting on signals?)"));
      }
      std::this_thread::yield();
    }
    return absl::OkStatus();
  }

  absl::StatusOr<uint64_t> WriteSdma(const ChannelOp& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Queue& q = *q_;
    const uint64_t ring_bytes = kSdmaRingBytes.raw();
    const bool linear = op.kind != ChannelOp::Kind::kSdmaStream;
    const uint64_t pieces = op.bytes == 0 || !linear ? 0 : (op.bytes + max_linear_ - 1) / max_linear_;
    const uint64_t target = op.via_host ? q.retire_signal() : op.completion;
    const auto* signal = reinterpret_cast<const aql::AmdSignal*>(target);
    const bool has_event = signal != nullptr && signal->event_mailbox_ptr != 0;
    const uint64_t stream = op.dependencies.size() * 2 * sizeof(sdma::PollRegMem) +
                            pieces * std::max(sizeof(sdma::CopyLinear), sizeof(sdma::ConstFill)) +
                            op.stream.size() * sizeof(uint32_t) +
                            (op.profile ? 2 * sizeof(sdma::Timestamp) + sizeof(sdma::CopyLinear) : 0) +
                            (signal ? sizeof(sdma::Atomic) : 0) +
                            (has_event ? sizeof(sdma::Fence) + sizeof(sdma::Trap) : 0);
    RETURN_IF_ERROR(WaitForRoom(stream, ring_bytes));
    auto* ring = static_cast<char*>(q.ring.ToPointer());
    const uint64_t first = q.written;
    auto push = [&](const auto& packet) {
      const auto* bytes = reinterpret_cast<const char*>(&packet);
      for (size_t i = 0; i < sizeof(packet); i += 4) std::memcpy(ring + (q.written + i) % ring_bytes, bytes + i, 4);
      q.written += sizeof(packet);
    };
    // Dependencies: wait on the GPU until each value reads 0, low then high half (ROCr's BuildPollCommand).
    for (uint64_t dep : op.dependencies) {
      for (uint64_t half : {uint64_t{0}, uint64_t{4}}) {
        push(sdma::MakePoll(dep + aql::kSignalValueOffset + half, 0, 0xffffffffu, sdma::PollFunction::kEqual));
      }
    }
    const uint64_t scratch = q.control.raw() + kSdmaScratchOffset;
    if (op.profile) push(sdma::MakeTimestamp(op.completion + offsetof(aql::AmdSignal, start_ts)));
    for (const uint32_t dword : op.stream) push(dword);
    for (uint64_t offset = 0; linear && offset < op.bytes; offset += max_linear_) {
      const auto n = static_cast<uint32_t>(std::min<uint64_t>(max_linear_, op.bytes - offset));
      if (op.kind == ChannelOp::Kind::kCopy) {
        push(sdma::MakeCopy(op.dst + offset, op.src + offset, n));
      } else {
        push(sdma::MakeFill(op.dst + offset, op.fill_value, n));
      }
    }
    if (op.profile) {
      push(sdma::MakeTimestamp(scratch));
      push(sdma::MakeCopy(op.completion + offsetof(aql::AmdSignal, end_ts), scratch, sizeof(uint64_t)));
    }
    if (signal != nullptr) {
      push(sdma::MakeAtomic(target + aql::kSignalValueOffset, sdma::AtomicOp::kAdd64, ~uint64_t{0}));
      if (has_event) {
        push(sdma::MakeFence(signal->event_mailbox_ptr, signal->event_id));
        push(sdma::MakeTrap(signal->event_id));
      }
    }
    // Before the engine can see the packets: its end of the arrow is drawn only for a flow already started.
    TraceFlowStart(TraceCategory::kHsaApi, "enqueue", QueueSlotFlowId(q.ring.raw(), first));
    std::atomic_ref<uint64_t>(*q.queue.write_pointer()).store(q.written, std::memory_order_release);
    q.queue.RingDoorbell(q.written);
    return q.written;
  }

  absl::StatusOr<uint64_t> WriteAql(const ChannelOp& op) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    Queue& q = *q_;
    const uint64_t barriers = (op.dependencies.size() + aql::kMaxDepSignals - 1) / aql::kMaxDepSignals;
    RETURN_IF_ERROR(WaitForRoom(barriers + 1, kAqlSlots));
    auto* ring = static_cast<char*>(q.ring.ToPointer());
    auto slot = [&](uint64_t index) { return ring + (index % kAqlSlots) * aql::kPacketBytes; };
    const uint64_t first = q.written;
    for (uint64_t b = 0; b < barriers; ++b) {
      uint64_t deps[aql::kMaxDepSignals] = {};
      for (int i = 0; i < aql::kMaxDepSignals; ++i) {
        const uint64_t k = b * aql::kMaxDepSignals + i;
        if (k < op.dependencies.size()) deps[i] = op.dependencies[k];
      }
      aql::WritePacket(slot(q.written++), aql::MakeBarrierAnd(deps));
    }
    const uint64_t index = q.written++;
    const uint64_t kernarg = q.control.raw() + kKernargOffset + (index % kAqlSlots) * sizeof(blit::CopyArgs);
    uint64_t descriptor = q.control.raw() + kCopyDescriptorOffset;
    if (op.kind == ChannelOp::Kind::kCopy) {
      const blit::CopyArgs args = blit::MakeCopyArgs(op.dst, op.src, op.bytes);
      std::memcpy(reinterpret_cast<void*>(kernarg), &args, sizeof(args));
    } else {
      const blit::FillArgs args = blit::MakeFillArgs(op.dst, op.fill_value, op.bytes);
      std::memcpy(reinterpret_cast<void*>(kernarg), &args, sizeof(args));
      descriptor = q.control.raw() + kFillDescriptorOffset;
    }
    // Before the packet is published (a CP may read a valid header ahead of its doorbell).
    TraceFlowStart(TraceCategory::kHsaApi, "enqueue", QueueSlotFlowId(q.ring.raw(), index));
    aql::WritePacket(slot(index),
                     blit::MakeDispatch(descriptor, kernarg, op.bytes, op.via_host ? q.retire_signal() : op.completion));
    std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(q.at(kWriteIdOffset)))
        .store(q.written, std::memory_order_release);
    // AQL doorbells carry the index of the last packet published.
    for (uint64_t i = first; i < q.written; ++i) q.queue.RingDoorbell(i);
    return q.written;
  }

  // The watcher thread: retires finished ops and fails the queued ones when the queue faulted.
  void Watch() {
    while (true) {
      const thunk::Event* faults = nullptr;
      const thunk::Event* done = nullptr;
      bool busy = false;
      {
        ScopedLock lock(&mu_);
        if (stop_) return;
        Retire();
        // Only this thread drops the queue (besides the destructor, after joining it), so the events stay valid
        // while they are waited on below.
        if (q_ != nullptr) {
          faults = &q_->faults;
          if (q_->done.has_value()) done = &*q_->done;
        }
        busy = !pending_.empty();
      }
      if (faults == nullptr) {
        absl::SleepFor(kWatchPeriod);
        continue;
      }
      // Without a retire event nothing wakes this thread when an op finishes: it polls while ops are queued.
      const absl::Duration period = done == nullptr && busy ? kRetirePoll : kWatchPeriod;
      const thunk::Event* both[] = {faults, done};
      const std::span<const thunk::Event* const> waited(both, done == nullptr ? 1 : 2);
      absl::StatusOr<thunk::WaitResult> result = thunk::Event::WaitMultiple(waited, thunk::WaitMode::kAny, period);
      if (!result.ok() || result->memory_faults.empty() || !result->memory_faults[0].has_value()) continue;
      OnFault(*result->memory_faults[0]);
    }
  }

  void OnFault(const thunk::MemoryAccessFault& fault) {
    ScopedLock lock(&mu_);
    if (q_ == nullptr) return;
    Retire();
    // Every queue of the GPU hears the fault; it is ours if it lies in a page an op still queued here touches.
    const uint64_t page = fault.address.raw() & ~(kPage - 1);
    const bool ours = std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) {
      return std::any_of(p.touched.begin(), p.touched.end(), [&](const AddressRange& r) {
        const uint64_t first = r.base.raw() & ~(kPage - 1);
        return page >= first && page < r.base.raw() + std::max<uint64_t>(r.size.raw(), 1);
      });
    });
    if (!ours) return;
    HIPMEM_LOG(kError, Name(), ": memory access fault on ", AddressText(fault.address), "; failing ",
               pending_.size(), " queued operation(s)");
    // The halted queue will not finish them: each leaves its completion signal negative (ROCr reports a
    // failed copy the same way), and the next submission builds a new queue.
    for (Pending& p : pending_) {
      p.holds.clear();
      p.completion.Store(-1, MemoryOrder::kRelease);
    }
    pending_.clear();
    DropQueue();
  }

  thunk::Kfd& kfd_;
  const thunk::NodeId gpu_;
  const CopyEngineKind kind_;
  const bool xgmi_;
  const uint64_t max_linear_;  // the most bytes one COPY_LINEAR / CONST_FILL moves on this GPU

  absl::Mutex mu_;
  std::unique_ptr<Queue> q_ ABSL_GUARDED_BY(mu_);
  std::deque<Pending> pending_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watcher_;  // declared last: started once everything else is built
};

CopyFlags CopyFlags::FromEnvironment() {
  CopyFlags flags;
  if (const char* v = std::getenv("HSA_ENABLE_SDMA"); v != nullptr && *v != '\0') flags.enable_sdma = EnvUint64("HSA_ENABLE_SDMA", 1) != 0;
  flags.enable_peer_sdma = EnvUint64("HSA_ENABLE_PEER_SDMA", 1) != 0;
  flags.force_sdma_size = Bytes(EnvUint64("HSA_FORCE_SDMA_SIZE", Bytes::MiB(1).raw()));
  return flags;
}

std::unique_ptr<Copies> Copies::Create(Runtime& runtime, SignalAllocator& signals, CopyFlags flags) {
  return std::unique_ptr<Copies>(new Copies(runtime, signals, flags));
}

Copies::Copies(Runtime& runtime, SignalAllocator& signals, CopyFlags flags)
    : runtime_(runtime), signals_(signals), flags_(flags) {
  // The first clock reading of each GPU: TickToSystem measures the GPU's counter rate from it.
  ScopedLock lock(&mu_);
  for (const Agent& agent : runtime_.agents()) {
    if (!IsGpu(agent)) continue;
    absl::StatusOr<thunk::ClockCounters> c = thunk::GetClockCounters(KfdOf(runtime_), KfdNodeOf(runtime_, agent));
    if (c.ok()) clock_origin_.emplace(agent.id.raw(), ClockSample{c->gpu_clock_counter, c->cpu_clock_counter});
  }
}

Copies::~Copies() {
  ScopedLock lock(&mu_);
  channels_.clear();
}

bool Copies::SdmaAllowed(const Agent& gpu) const {
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, gpu);
  if (node == nullptr || node->Get("num_sdma_engines") == 0) return false;
  const auto gfx = static_cast<uint32_t>(node->Get("gfx_target_version"));
  // No SDMA packet model for the GPU (gfx12 and later here): its copies run on the blit kernel.
  if (!sdma::GenerationOf(gfx).has_value()) return false;
  if (flags_.enable_sdma.has_value()) return *flags_.enable_sdma;
  return gfx != 100103;  // ROCr keeps SDMA off on gfx1013 by default
}

bool Copies::HivePeers(const Agent& a, const Agent& b) const {
  const thunk::NodeProperties* na = NodePropertiesOf(runtime_, a);
  const thunk::NodeProperties* nb = NodePropertiesOf(runtime_, b);
  if (na == nullptr || nb == nullptr) return false;
  const uint64_t hive = na->Get("hive_id");
  return hive != 0 && hive == nb->Get("hive_id") && na->Get("num_sdma_xgmi_engines") != 0;
}

absl::StatusOr<EngineChoice> Copies::ChooseEngine(AgentId dst_id, AgentId src_id, Bytes size) const {
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(dst_id));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(src_id));
  // ROCr's copy agent: the source if it is a GPU, else the destination.
  const Agent* gpu = IsGpu(*src) ? src : (IsGpu(*dst) ? dst : nullptr);
  if (gpu == nullptr) return EngineChoice{CopyEngineKind::kHost, std::nullopt, 0};
  const EngineChoice kernel{CopyEngineKind::kBlitKernel, gpu->id, 0};
  if (!SdmaAllowed(*gpu)) return kernel;
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *gpu);
  const uint64_t num_sdma = node->Get("num_sdma_engines");
  const uint32_t d2h = num_sdma > 1 ? 2 : 1;
  bool profiling;
  {
    ScopedLock lock(&mu_);
    profiling = profiling_;
  }
  if (src == dst) {
    // Small same-GPU copies go to SDMA: a kernel's cache flushes cost more than the copy.
    if (size < flags_.force_sdma_size || profiling) return EngineChoice{CopyEngineKind::kSdma, gpu->id, d2h};
    return kernel;
  }
  if (IsGpu(*src) && IsGpu(*dst)) {
    if (!flags_.enable_peer_sdma && !profiling) return kernel;
    if (HivePeers(*src, *dst)) {
      // XGMI engines, spread over destinations (ROCr round-robins per peer).
      const uint64_t xgmi = node->Get("num_sdma_xgmi_engines");
      return EngineChoice{CopyEngineKind::kSdma, gpu->id, static_cast<uint32_t>(num_sdma + 1 + KfdNodeOf(runtime_, *dst).raw() % xgmi)};
    }
    return EngineChoice{CopyEngineKind::kSdma, gpu->id, d2h};
  }
  return EngineChoice{CopyEngineKind::kSdma, gpu->id, IsGpu(*dst) ? 1u : d2h};
}

absl::StatusOr<Copies::Channel*> Copies::GetChannel(AgentId gpu, CopyEngineKind kind, uint32_t sdma_engine) {
  ASSIGN_OR_RETURN(const Agent* agent, runtime_.GetAgent(gpu));
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *agent);
  if (node == nullptr) return InvalidAgentError(absl::StrCat("agent 0x", absl::Hex(gpu.raw()), " has no node"));
  const uint32_t key = kind == CopyEngineKind::kSdma ? sdma_engine : 0;
  ScopedLock lock(&mu_);
  auto it = channels_.find({gpu.raw(), key});
  if (it != channels_.end()) return it->second.get();
  const bool xgmi = kind == CopyEngineKind::kSdma && sdma_engine > node->Get("num_sdma_engines");
  ASSIGN_OR_RETURN(std::unique_ptr<Channel> channel, Channel::Create(KfdOf(runtime_), *node, kind, xgmi));
  return channels_.emplace(std::make_pair(gpu.raw(), key), std::move(channel)).first->second.get();
}

absl::Status Copies::Copy(const CopyRequest& request) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_async_copy");
  ASSIGN_OR_RETURN(const EngineChoice choice, ChooseEngine(request.dst_agent, request.src_agent, request.size));
  return Submit(request, choice);
}

absl::Status Copies::CopyOnEngine(const CopyRequest& request, uint32_t engine_mask, bool force_sdma) {
  const std::string context = absl::StrCat("hsa_amd_memory_async_copy_on_engine(engine=0x", absl::Hex(engine_mask), ")");
  if (engine_mask == 0 || (engine_mask & (engine_mask - 1)) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": the engine id must be exactly one bit"));
  }
  const auto offset = static_cast<uint32_t>(__builtin_ffs(static_cast<int>(engine_mask)));
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(request.dst_agent));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(request.src_agent));
  const Agent* gpu = IsGpu(*src) ? src : (IsGpu(*dst) ? dst : nullptr);
  if (gpu == nullptr) return Submit(request, EngineChoice{CopyEngineKind::kHost, std::nullopt, 0});
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *gpu);
  const uint64_t num_sdma = node->Get("num_sdma_engines");
  if (offset > num_sdma + node->Get("num_sdma_xgmi_engines")) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": node ", node->id.raw(), " has no such SDMA engine"));
  }
  const bool peers = IsGpu(*src) && IsGpu(*dst) && src != dst;
  const EngineChoice kernel{CopyEngineKind::kBlitKernel, gpu->id, 0};
  if (!SdmaAllowed(*gpu) || (peers && !flags_.enable_peer_sdma)) return Submit(request, kernel);
  if (src == dst && !force_sdma) return Submit(request, kernel);
  const bool xgmi_copy = peers && HivePeers(*src, *dst);
  if (xgmi_copy != (offset > num_sdma)) {
    return absl::InvalidArgumentError(absl::StrCat(context, xgmi_copy ? ": a copy between hive peers needs an XGMI engine"
                                                                      : ": XGMI engines serve only hive peers"));
  }
  return Submit(request, EngineChoice{CopyEngineKind::kSdma, gpu->id, offset});
}

absl::Status Copies::Submit(const CopyRequest& request, const EngineChoice& choice) {
  const std::string context = absl::StrCat("hsa_amd_memory_async_copy(dst=", AddressText(request.dst),
                                           ", src=", AddressText(request.src), ", size=", request.size.raw(), ")");
  if (request.dst.raw() == 0 || request.src.raw() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  }
  if (request.completion == nullptr) return absl::InvalidArgumentError(absl::StrCat(context, ": no completion signal"));
  // Each side once: one lookup, one bounds check. Memory the runtime did not allocate is the caller's
  // (registered or plain host memory); GpuAccess pins what needs pinning.
  for (const DeviceAddress side : {request.src, request.dst}) {
    const std::optional<PointerInfo> info = runtime_.FindPointer(side);
    if (!info.has_value()) continue;
    const std::optional<DeviceAddress> end = CheckedAdd(side, request.size);
    if (!end.has_value() || *end > info->allocation.end()) {
      return absl::OutOfRangeError(
          absl::StrCat(context, ": runs past the allocation at ", AddressText(info->allocation.base)));
    }
  }
  return Launch(request, choice, context);
}

absl::Status Copies::Launch(const CopyRequest& request, const EngineChoice& choice, absl::string_view context) {
  if (choice.kind == CopyEngineKind::kHost) {
    // ROCr's CpuAgent::DmaCopy: both sides are system memory, so the calling thread does it.
    Trace(Layer::kHsa, context, " on the calling CPU thread");
    for (const SignalRef& dep : request.dependencies) {
      dep.Wait(SignalCondition::kEq, 0, absl::InfiniteDuration(), WaitHint::kBlocked);
    }
    if (!request.size.is_zero()) std::memmove(request.dst.ToPointer(), request.src.ToPointer(), request.size.raw());
    request.completion->Apply(SignalOp::kSubtract, 1, MemoryOrder::kRelease);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const Agent* gpu, runtime_.GetAgent(*choice.gpu));
  std::vector<Hold> holds;
  ChannelOp op;
  op.bytes = request.size.raw();
  if (!request.size.is_zero()) {
    ASSIGN_OR_RETURN(Hold from, Annotated(Reach(*gpu, request.src, request.size), context));
    op.src = from.gpu_address();
    holds.push_back(std::move(from));
    ASSIGN_OR_RETURN(Hold to, Annotated(Reach(*gpu, request.dst, request.size), context));
    op.dst = to.gpu_address();
    holds.push_back(std::move(to));
  }
  for (const SignalRef& dep : request.dependencies) op.dependencies.push_back(dep.handle().raw());
  op.completion = request.completion->handle().raw();
  op.profile = choice.kind == CopyEngineKind::kSdma && profiling_enabled();
  op.via_host = std::any_of(holds.begin(), holds.end(), [](const Hold& h) { return h.pin != nullptr; });
  absl::StatusOr<Channel*> channel = GetChannel(gpu->id, choice.kind, choice.sdma_engine);
  EngineChoice used = choice;
  if (!channel.ok() && choice.kind == CopyEngineKind::kSdma) {
    // ROCr falls back to a blit kernel when its SDMA blit cannot be created (no free SDMA queue slot, ...).
    HIPMEM_LOG(kWarning, context, ": SDMA engine ", choice.sdma_engine, " unavailable (", channel.status().message(),
               "); using the blit kernel");
    used = EngineChoice{CopyEngineKind::kBlitKernel, gpu->id, 0};
    op.profile = false;
    channel = GetChannel(gpu->id, used.kind, 0);
  }
  if (!channel.ok()) return Annotate(channel.status(), context);
  if (op.profile) {
    ScopedLock lock(&mu_);
    profiled_.insert_or_assign(op.completion, gpu->id);
  }
  Trace(Layer::kHsa, context, " on ", used.kind == CopyEngineKind::kSdma ? "SDMA engine " : "the blit kernel",
        used.kind == CopyEngineKind::kSdma ? absl::StrCat(used.sdma_engine) : "", " of node ", KfdNodeOf(runtime_, *gpu).raw());
  return Annotate((*channel)->Submit(op, std::move(holds), *request.completion), context);
}

absl::Status Copies::LaunchSdma(const Agent& gpu, uint32_t sdma_engine, std::span<const AddressRange> ranges,
                                const SdmaStreamBuilder& build, std::span<const SignalRef> dependencies,
                                const SignalRef& completion, absl::string_view context) {
  std::vector<Hold> holds;
  ChannelOp op;
  op.kind = ChannelOp::Kind::kSdmaStream;
  std::vector<uint64_t> gpu_addresses;
  for (const AddressRange& range : ranges) {
    ASSIGN_OR_RETURN(Hold hold, Annotated(Reach(gpu, range.base, range.size), context));
    gpu_addresses.push_back(hold.gpu_address());
    op.stream_ranges.push_back(AddressRange{DeviceAddress(hold.gpu_address()), range.size});
    holds.push_back(std::move(hold));
  }
  ASSIGN_OR_RETURN(op.stream, Annotated(build(gpu_addresses), context));
  for (const SignalRef& dep : dependencies) op.dependencies.push_back(dep.handle().raw());
  op.completion = completion.handle().raw();
  op.profile = profiling_enabled();
  op.via_host = std::any_of(holds.begin(), holds.end(), [](const Hold& h) { return h.pin != nullptr; });
  // No blit-kernel fallback: the stream is SDMA packets (ROCr answers OUT_OF_RESOURCES without an SDMA blit).
  ASSIGN_OR_RETURN(Channel * channel, Annotated(GetChannel(gpu.id, CopyEngineKind::kSdma, sdma_engine), context));
  if (op.profile) {
    ScopedLock lock(&mu_);
    profiled_.insert_or_assign(op.completion, gpu.id);
  }
  Trace(Layer::kHsa, context, " on SDMA engine ", sdma_engine, " of node ", KfdNodeOf(runtime_, gpu).raw());
  return Annotate(channel->Submit(std::move(op), std::move(holds), completion), context);
}

absl::StatusOr<Hold> Copies::Reach(const Agent& gpu, DeviceAddress address, Bytes size) {
  std::shared_ptr<GpuAccess> pin;  // declared before the lock: a last reference dropped here unpins after it
  ScopedLock lock(&pins_mu_);
  const uint64_t start = address.raw();
  const uint64_t end = start + size.raw();
  // A pin whose last operation just finished is unpinned by its deleter, which waits for this lock. Until then the
  // thunk still sees the memory as registered, and an Acquire would only map it, relying on a registration about
  // to go: the copy would then fault on the engine. So wait until no overlapping pin is in that state.
  const auto unpinning = [this, start, end]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(pins_mu_) {
    auto it = pins_.upper_bound(start);
    if (it != pins_.begin()) --it;
    for (; it != pins_.end() && it->first < end; ++it) {
      if (it->first + it->second.size > start && it->second.pin.expired()) return true;
    }
    return false;
  };
  // Host memory a queued operation pinned stays pinned for this one too: otherwise the first to finish would
  // unpin it under the other. The thunk sees it as registered, so the Acquire below only maps it. The last
  // holder drops its reference without this lock, so a pin seen alive a moment ago may be dying now: look again.
  // The wait is a deregistration ioctl long; the lock is let go meanwhile so the deleter can run. (Not Await:
  // the releasing thread would evaluate the condition, which ThreadSanitizer does not see as under the lock.)
  for (bool dying = unpinning(); true; dying = unpinning()) {
    if (!dying) {
      auto it = pins_.upper_bound(start);
      if (it != pins_.begin()) {
        --it;
        if (end <= it->first + it->second.size) {
          pin = it->second.pin.lock();
          dying = pin == nullptr;
        }
      }
      if (!dying) break;
    }
    // As ScopedLock does, so ThreadSanitizer sees the uninstrumented mutex let go and taken again.
    scoped_lock_internal::BeforeUnlock(&pins_mu_);
    pins_mu_.Unlock();
    std::this_thread::yield();
    pins_mu_.Lock();
    scoped_lock_internal::AfterLock(&pins_mu_);
  }
  ASSIGN_OR_RETURN(GpuAccess access, GpuAccess::Acquire(KfdOf(runtime_), KfdNodeOf(runtime_, gpu), address, size));
  if (pin != nullptr || !access.pinned()) return Hold{std::move(pin), std::move(access)};
  // Unpinning takes the table's lock, so an Acquire never sees a registration that is going away; it also drops
  // the entry, so an expired entry always means an unpin still to come.
  pin = std::shared_ptr<GpuAccess>(new GpuAccess(std::move(access)), [this, start](GpuAccess* a) {
    ScopedLock unpin_lock(&pins_mu_);
    delete a;
    if (auto entry = pins_.find(start); entry != pins_.end() && entry->second.pin.expired()) pins_.erase(entry);
  });
  pins_.insert_or_assign(start, PinEntry{size.raw(), pin});
  return Hold{std::move(pin), std::nullopt};
}

absl::StatusOr<uint32_t> Copies::EngineStatus(AgentId dst_id, AgentId src_id) {
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(dst_id));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(src_id));
  if (dst == src) return InvalidAgentError("hsa_amd_memory_copy_engine_status: the same agent on both sides");
  const Agent* gpu = IsGpu(*src) ? src : (IsGpu(*dst) ? dst : nullptr);
  if (gpu == nullptr) return InvalidAgentError("hsa_amd_memory_copy_engine_status: no GPU agent");
  const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *gpu);
  const uint64_t num_sdma = node->Get("num_sdma_engines");
  uint64_t first = 1, last = std::min<uint64_t>(num_sdma, 2);
  if (IsGpu(*src) && IsGpu(*dst) && HivePeers(*src, *dst)) {
    first = num_sdma + 1;
    last = num_sdma + node->Get("num_sdma_xgmi_engines");
  }
  uint32_t mask = 0;
  for (uint64_t offset = first; offset <= last && offset <= 32; ++offset) {
    Channel* channel = nullptr;
    {
      ScopedLock lock(&mu_);
      auto it = channels_.find({gpu->id.raw(), static_cast<uint32_t>(offset)});
      if (it != channels_.end()) channel = it->second.get();
    }
    // Channels are never removed while the runtime lives, so the pointer outlives the lock.
    if (channel == nullptr || channel->Idle()) mask |= 1u << (offset - 1);
  }
  if (mask == 0) return absl::ResourceExhaustedError("hsa_amd_memory_copy_engine_status: every engine is busy");
  return mask;
}

absl::StatusOr<uint32_t> Copies::PreferredEngine(AgentId dst_id, AgentId src_id) const {
  ASSIGN_OR_RETURN(const Agent* dst, runtime_.GetAgent(dst_id));
  ASSIGN_OR_RETURN(const Agent* src, runtime_.GetAgent(src_id));
  if (IsGpu(*src) && IsGpu(*dst) && src != dst) {
    if (const thunk::NodeProperties* node = NodePropertiesOf(runtime_, *src)) {
      for (const thunk::IoLink& link : node->io_links) {
        if (link.node_to == KfdNodeOf(runtime_, *dst) && link.recommended_sdma_engine_id_mask != 0) {
          return link.recommended_sdma_engine_id_mask;
        }
      }
    }
  }
  ASSIGN_OR_RETURN(const EngineChoice choice, ChooseEngine(dst_id, src_id, Bytes::GiB(1)));
  return choice.kind == CopyEngineKind::kSdma ? 1u << (choice.sdma_engine - 1) : 0u;
}

absl::Status Copies::Fill(DeviceAddress ptr, uint32_t value, uint64_t count) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_amd_memory_fill");
  const std::string context =
      absl::StrCat("hsa_amd_memory_fill(ptr=", AddressText(ptr), ", value=0x", absl::Hex(value), ", count=", count, ")");
  if (ptr.raw() == 0) return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  if (ptr.raw() % 4 != 0) return absl::InvalidArgumentError(absl::StrCat(context, ": not 4-byte aligned"));
  if (count == 0) return absl::OkStatus();
  if (count > UINT64_MAX / 4) return absl::InvalidArgumentError(absl::StrCat(context, ": size overflows"));
  const Bytes size(count * 4);
  const std::optional<PointerInfo> info = runtime_.FindPointer(ptr);
  if (!info.has_value()) return InvalidAllocationError(absl::StrCat(context, ": not memory of this runtime"));
  const std::optional<DeviceAddress> end = CheckedAdd(ptr, size);
  if (!end.has_value() || *end > info->allocation.end()) {
    return absl::OutOfRangeError(absl::StrCat(context, ": runs past the allocation at ", AddressText(info->allocation.base)));
  }
  ASSIGN_OR_RETURN(const MemoryPool* pool, runtime_.GetPool(info->pool));
  if (pool->location != PoolLocation::kGpu) {
    // ROCr's CpuAgent::DmaFill: system memory is filled by the CPU.
    std::fill_n(static_cast<uint32_t*>(ptr.ToPointer()), count, value);
    return absl::OkStatus();
  }
  ASSIGN_OR_RETURN(const Agent* gpu, runtime_.GetAgent(pool->owner));
  ASSIGN_OR_RETURN(GpuAccess access, Annotated(GpuAccess::Acquire(KfdOf(runtime_), KfdNodeOf(runtime_, *gpu), ptr, size), context));
  ASSIGN_OR_RETURN(Signal done, Annotated(Signal::Create(signals_, 1), context));
  ChannelOp op{ChannelOp::Kind::kFill, access.gpu_address().raw(), 0, size.raw(), value, {}, done->handle().raw(), false, false};
  std::vector<Hold> holds;
  holds.push_back(Hold{nullptr, std::move(access)});
  ASSIGN_OR_RETURN(Channel * channel, Annotated(GetChannel(gpu->id, CopyEngineKind::kBlitKernel, 0), context));
  RETURN_IF_ERROR(Annotate(channel->Submit(op, std::move(holds), done.ref()), context));
  const SignalValue v = done->Wait(SignalCondition::kLt, 1, absl::InfiniteDuration(), WaitHint::kBlocked);
  if (v != 0) return absl::DataLossError(absl::StrCat(context, ": the fill failed on the GPU (signal ", v, ")"));
  return absl::OkStatus();
}

void Copies::EnableProfiling(bool enable) {
  ScopedLock lock(&mu_);
  profiling_ = enable;
}

bool Copies::profiling_enabled() const {
  ScopedLock lock(&mu_);
  return profiling_;
}

absl::StatusOr<CopyTime> Copies::GetCopyTime(const SignalRef& signal) {
  std::optional<AgentId> gpu;
  {
    ScopedLock lock(&mu_);
    auto it = profiled_.find(signal.handle().raw());
    if (it != profiled_.end()) gpu = it->second;
  }
  if (!gpu.has_value()) {
    return InvalidSignalError(absl::StrCat("hsa_amd_profiling_get_async_copy_time(signal=0x",
                                           absl::Hex(signal.handle().raw()), "): no profiled copy completed it"));
  }
  const auto* abi = reinterpret_cast<const aql::AmdSignal*>(signal.handle().raw());
  const uint64_t start = std::atomic_ref<const uint64_t>(abi->start_ts).load(std::memory_order_acquire);
  const uint64_t end = std::atomic_ref<const uint64_t>(abi->end_ts).load(std::memory_order_acquire);
  ASSIGN_OR_RETURN(const uint64_t start_ns, TickToSystem(*gpu, start));
  ASSIGN_OR_RETURN(const uint64_t end_ns, TickToSystem(*gpu, end));
  return CopyTime{start_ns, end_ns};
}

absl::StatusOr<uint64_t> Copies::TickToSystem(AgentId gpu_id, uint64_t tick) {
  ASSIGN_OR_RETURN(const Agent* gpu, runtime_.GetAgent(gpu_id));
  if (!IsGpu(*gpu)) return InvalidAgentError("hsa_amd_profiling_convert_tick_to_system_domain: not a GPU agent");
  std::optional<ClockSample> origin;
  {
    ScopedLock lock(&mu_);
    auto it = clock_origin_.find(gpu_id.raw());
    if (it != clock_origin_.end()) origin = it->second;
  }
  // ROCr's TranslateTime: the GPU counter's rate from two readings far enough apart, then the tick placed
  // against the newer one. The system domain is CLOCK_MONOTONIC; the kernel's CPU counter is MONOTONIC_RAW,
  // so the newer reading is bracketed by two CLOCK_MONOTONIC reads.
  for (int attempt = 0;; ++attempt) {
    const uint64_t before = MonotonicNs();
    ASSIGN_OR_RETURN(const thunk::ClockCounters now, thunk::GetClockCounters(KfdOf(runtime_), KfdNodeOf(runtime_, *gpu)));
    const uint64_t after = MonotonicNs();
    if (!origin.has_value()) {
      ScopedLock lock(&mu_);
      origin = clock_origin_.emplace(gpu_id.raw(), ClockSample{now.gpu_clock_counter, now.cpu_clock_counter})
                   .first->second;
    }
    const uint64_t ticks = now.gpu_clock_counter - origin->gpu_ticks;
    if (ticks < 100'000 && attempt < 20) {  // too close for a precise rate: wait a little and read again
      absl::SleepFor(absl::Milliseconds(1));
      continue;
    }
    if (ticks == 0) return absl::InternalError("the GPU clock counter does not advance");
    const unsigned __int128 ns = now.cpu_clock_counter - origin->raw_ns;
    const __int128 delta = static_cast<__int128>(tick) - static_cast<__int128>(now.gpu_clock_counter);
    const __int128 offset = delta * static_cast<__int128>(ns) / static_cast<__int128>(ticks);
    const __int128 result = static_cast<__int128>(before + (after - before) / 2) + offset;
    return result < 0 ? 0 : static_cast<uint64_t>(result);
  }
}

absl::Status Copies::CopySync(DeviceAddress dst, DeviceAddress src, Bytes size) {
  TraceSlice trace_slice(TraceCategory::kHsaApi, "hsa_memory_copy");
  const std::string context =
      absl::StrCat("hsa_memory_copy(dst=", AddressText(dst), ", src=", AddressText(src), ", size=", size.raw(), ")");
  if (dst.raw() == 0 || src.raw() == 0) return absl::InvalidArgumentError(absl::StrCat(context, ": null pointer"));
  if (size.is_zero()) return absl::OkStatus();
  // Host memory the runtime did not allocate belongs to the CPU agent: the caller vouches for it, and the
  // engine pins it for the copy.
  const Agent* cpu = nullptr;
  for (const Agent& agent : runtime_.agents()) {
    if (!IsGpu(agent)) {
      cpu = &agent;
      break;
    }
  }
  if (cpu == nullptr) return InvalidAgentError(absl::StrCat(context, ": the runtime has no CPU agent"));
  // Each side once: its owner agent and one bounds check. Launch below does not look them up again.
  AgentId owners[2] = {cpu->id, cpu->id};
  const DeviceAddress sides[2] = {dst, src};
  for (int i = 0; i < 2; ++i) {
    const std::optional<PointerInfo> info = runtime_.FindPointer(sides[i]);
    if (!info.has_value()) continue;
    const std::optional<DeviceAddress> end = CheckedAdd(sides[i], size);
    if (!end.has_value() || *end > info->allocation.end()) {
      return absl::OutOfRangeError(
          absl::StrCat(context, ": runs past the allocation at ", AddressText(info->allocation.base)));
    }
    owners[i] = info->owner;
  }
  ASSIGN_OR_RETURN(const Agent* dst_agent, runtime_.GetAgent(owners[0]));
  // ROCr's GpuAgent::DmaCopy serves hsa_memory_copy inside one GPU's memory with its BlitDevToDev blit
  // kernel, whatever the size (the HSA_FORCE_SDMA_SIZE rule is the asynchronous path's).
  EngineChoice choice{CopyEngineKind::kBlitKernel, dst_agent->id, 0};
  if (owners[0] != owners[1] || !IsGpu(*dst_agent)) {
    ASSIGN_OR_RETURN(choice, ChooseEngine(owners[0], owners[1], size));
  }
  ASSIGN_OR_RETURN(Signal done, Annotated(Signal::Create(signals_, 1), context));
  const CopyRequest request{dst, owners[0], src, owners[1], size, {}, &done.ref()};
  RETURN_IF_ERROR(Launch(request, choice, context));
  // hsa_memory_copy returns when the bytes have landed; a VM fault leaves the signal negative.
  const SignalValue v = done->Wait(SignalCondition::kLt, 1, absl::InfiniteDuration(), WaitHint::kBlocked);
  if (v != 0) return absl::DataLossError(absl::StrCat(context, ": the copy failed on the GPU (signal ", v, ")"));
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
