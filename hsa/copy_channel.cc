#include "hsa/copy_channel.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/blit_kernels.h"
#include "gpu_abi/sdma_packets.h"
#include "hsa/queue_memory.h"
#include "thunk/queues.h"

namespace hipmem::hsa {
namespace {

namespace aql = ::hipmem::gpu_abi::aql;
namespace blit = ::hipmem::gpu_abi::blit;
namespace sdma = ::hipmem::gpu_abi::sdma;

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
constexpr Bytes kPage = Bytes::KiB(4);

}  // namespace

struct CopyChannel::Queue {
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

absl::StatusOr<std::unique_ptr<CopyChannel>> CopyChannel::Create(thunk::Kfd& kfd, const thunk::NodeProperties& gpu,
                                                                 CopyEngineKind kind, bool xgmi) {
  std::unique_ptr<CopyChannel> channel(new CopyChannel(kfd, gpu, kind, xgmi));
  ScopedLock lock(&channel->mu_);
  RETURN_IF_ERROR(channel->EnsureQueue());
  return channel;
}

CopyChannel::CopyChannel(thunk::Kfd& kfd, const thunk::NodeProperties& gpu, CopyEngineKind kind, bool xgmi)
    : kfd_(kfd),
      gpu_(gpu.id),
      kind_(kind),
      xgmi_(xgmi),
      max_linear_(sdma::MaxLinearBytes(
          sdma::GenerationOf(static_cast<uint32_t>(gpu.Get("gfx_target_version"))).value_or(sdma::Generation::kV4_0))) {
  watcher_ = std::thread([this] { Watch(); });
}

CopyChannel::~CopyChannel() {
  {
    ScopedLock lock(&mu_);
    stop_ = true;
  }
  if (watcher_.joinable()) watcher_.join();
  ScopedLock lock(&mu_);
  DropQueue();
}

absl::Status CopyChannel::Submit(ChannelOp op, std::vector<Hold> holds, SignalRef completion) {
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

bool CopyChannel::Idle() {
  ScopedLock lock(&mu_);
  Retire();
  return pending_.empty();
}

std::string CopyChannel::Name() const {
  return absl::StrCat(kind_ == CopyEngineKind::kSdma ? (xgmi_ ? "XGMI SDMA" : "SDMA") : "blit kernel",
                      " queue of node ", gpu_.raw());
}

absl::Status CopyChannel::EnsureQueue() {
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
  absl::StatusOr<thunk::Queue> created = thunk::Queue::Create(kfd_, spec);
  if (!created.ok()) return Annotate(created.status(), context);
  thunk::Queue queue = *std::move(created);
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

void CopyChannel::DropQueue() {
  if (q_ == nullptr) return;
  // The queue goes first: its engine may not read the ring or the control page after they are freed (with q_).
  if (absl::Status s = std::move(q_->queue).Destroy(); !s.ok()) HIPMEM_LOG(kError, Name(), ": ", s.message());
  q_.reset();
}

uint64_t CopyChannel::Position() const {
  uint64_t* word = kind_ == CopyEngineKind::kSdma ? q_->queue.read_pointer()
                                                  : reinterpret_cast<uint64_t*>(q_->at(kReadIdOffset));
  return std::atomic_ref<uint64_t>(*word).load(std::memory_order_acquire);
}

void CopyChannel::Retire() {
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

absl::Status CopyChannel::WaitForRoom(uint64_t needed, uint64_t capacity) {
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

absl::StatusOr<uint64_t> CopyChannel::WriteSdma(const ChannelOp& op) {
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

absl::StatusOr<uint64_t> CopyChannel::WriteAql(const ChannelOp& op) {
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

void CopyChannel::Watch() {
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

void CopyChannel::OnFault(const thunk::MemoryAccessFault& fault) {
  ScopedLock lock(&mu_);
  if (q_ == nullptr) return;
  Retire();
  // Every queue of the GPU hears the fault; it is ours if it lies in a page an op still queued here touches.
  const DeviceAddress page = AlignDown(fault.address, kPage);
  const bool ours = std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) {
    return std::any_of(p.touched.begin(), p.touched.end(), [&](const AddressRange& r) {
      return page >= AlignDown(r.base, kPage) && page < r.base + std::max(r.size, Bytes(1));
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

}  // namespace hipmem::hsa
