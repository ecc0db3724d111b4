#include "clr/stream.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/lock_count.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/blit_kernels.h"
#include "hsa/copy.h"
#include "hsa/runtime.h"

namespace hipmem::clr {
namespace {

namespace aql = gpu_abi::aql;
namespace blit = gpu_abi::blit;

// Packets per stream queue. CLR asks for ROC_AQL_QUEUE_SIZE (16384); a simulated stream rarely holds more than
// a few hundred commands, and 4096 keeps a test process with dozens of streams small.
constexpr uint32_t kQueuePackets = 4096;
// The control block: the blit kernel descriptors (one 64-byte slot per KernelId), then one kernarg slot per
// ring slot.
constexpr uint64_t DescriptorOffset(blit::KernelId id) { return (static_cast<uint64_t>(id) - 1) * 64; }
constexpr blit::KernelId kKernels[] = {blit::KernelId::kCopy, blit::KernelId::kFill, blit::KernelId::kFillBytes};
constexpr uint64_t kKernargOffset = 3 * 64;
constexpr uint64_t kKernargSlot = 32;
static_assert(sizeof(blit::CopyArgs) <= kKernargSlot && sizeof(blit::FillArgs) <= kKernargSlot);
constexpr Bytes kControlBytes = Bytes(kKernargOffset + uint64_t{kQueuePackets} * kKernargSlot);
// How long a submission waits for ring space before giving up on a stalled stream.
constexpr absl::Duration kRingWait = absl::Seconds(30);
// The kernarg ring of user kernels: CLR's kernarg pool holds a few hundred typical segments (a few hundred bytes
// each, with code object v5's 256 hidden bytes) before a dispatch has to wait for an earlier one's space.
constexpr uint64_t kKernargRingBytes = 1 << 20;
// Every segment starts 64-byte aligned (the kernarg_segment_align LLVM asks for is at most 16; a cache line apart
// keeps two dispatches' segments from sharing one).
constexpr uint64_t kKernargAlign = 64;
// Printf buffers a stream keeps between printing dispatches (each holds kPrintfDataBytes of system memory).
constexpr size_t kIdlePrintfBuffers = 2;

absl::Status FailedCommand(hsa::SignalValue value) {
  return absl::DataLossError(absl::StrCat("a command of the stream failed on the GPU (its signal ended at ", value,
                                          ")"));
}

}  // namespace

absl::Status QueueHealth::Error() const {
  LightLock lock(&mu_);
  return error_;
}

void QueueHealth::Report(const absl::Status& error) {
  std::vector<Dependent> dependents;
  bool first = false;
  {
    LightLock lock(&mu_);
    if (error_.ok()) {
      first = true;
      error_ = error;
      dependents = std::move(dependents_);
      dependents_.clear();
    }
  }
  {
    LightLock lock(&owner_mu_);
    if (owner_ != nullptr) owner_->FailPending();
  }
  // Only the first report travels on, so streams waiting on each other in a cycle stop.
  if (!first) return;
  for (const Dependent& d : dependents) {
    std::shared_ptr<StreamSignal> on = d.on.lock();
    // A wait on a signal that completed is over; one on a failed (or still pending) signal never ends.
    if (on == nullptr || on->value() == 0) continue;
    if (std::shared_ptr<QueueHealth> dependent = d.health.lock()) dependent->Report(error);
  }
}

void QueueHealth::AddDependent(const std::shared_ptr<QueueHealth>& dependent, const std::shared_ptr<StreamSignal>& on) {
  absl::Status failed;
  {
    LightLock lock(&mu_);
    if (error_.ok()) {
      std::erase_if(dependents_, [](const Dependent& d) { return d.health.expired() || d.on.expired(); });
      dependents_.push_back(Dependent{dependent, on});
      return;
    }
    failed = error_;
  }
  if (dependent.get() != this && on->value() != 0) dependent->Report(failed);
}

hsa::WaitHint WaitHintOf(const Context& context, const Device& device) {
  return context.ActiveWait(device.ordinal) ? hsa::WaitHint::kActive : hsa::WaitHint::kBlocked;
}

absl::Status WaitForSignal(const StreamSignal& signal, const QueueHealth& health, hsa::WaitHint hint) {
  // No timeout: a command that can no longer complete has its signal failed by QueueHealth::Report.
  const hsa::SignalValue value = signal.ref().Wait(hsa::SignalCondition::kLt, 1, absl::InfiniteDuration(), hint);
  if (value == 0) return absl::OkStatus();
  RETURN_IF_ERROR(health.Error());
  return FailedCommand(value);
}

std::optional<hsa::RegisteredSignal> SignalPool::Take() {
  std::optional<hsa::RegisteredSignal> signal;
  {
    LightLock lock(&mu_);
    if (idle_.empty()) return std::nullopt;
    signal.emplace(std::move(idle_.back()));
    idle_.pop_back();
  }
  // Release: the reset is ordered before the packet that carries the signal is published.
  signal->ref().Store(1, hsa::MemoryOrder::kRelease);
  return signal;
}

void SignalPool::Give(hsa::RegisteredSignal signal) {
  {
    LightLock lock(&mu_);
    if (idle_.size() < kMaxIdle) {
      idle_.push_back(std::move(signal));
      return;
    }
  }
  // Full: `signal` is destroyed here, outside the lock (destroying wakes its waiters).
}

absl::StatusOr<std::shared_ptr<StreamSignal>> StreamSignal::Create(hsa::SignalRuntime& signals) {
  ASSIGN_OR_RETURN(hsa::RegisteredSignal signal, signals.CreateOwned(1, {}));
  return std::shared_ptr<StreamSignal>(new StreamSignal(nullptr, std::move(signal)));
}

absl::StatusOr<std::shared_ptr<StreamSignal>> StreamSignal::Create(const std::shared_ptr<SignalPool>& pool) {
  std::optional<hsa::RegisteredSignal> signal = pool->Take();
  if (!signal.has_value()) {
    ASSIGN_OR_RETURN(signal, pool->signals().CreateOwned(1, {}));
  }
  return std::shared_ptr<StreamSignal>(new StreamSignal(pool, *std::move(signal)));
}

StreamSignal::~StreamSignal() {
  // Only a completed signal is reused: one that failed or never ran may still be changed by whoever failed it.
  // Otherwise signal_ destroys it.
  if (pool_ != nullptr && value() == 0) pool_->Give(std::move(signal_));
}

absl::Status Marker::Wait() const {
  const LockCountPause waiting;  // see Finish
  return WaitForSignal(*signal_, *health_, WaitHintOf(*context_, *device_));
}

std::optional<uint64_t> Marker::end_tick() const {
  if (signal_->value() != 0) return std::nullopt;
  // The signal's handle is the address of its amd_signal_t, where the CP stamped the packet's end.
  const auto* abi = reinterpret_cast<const aql::AmdSignal*>(signal_->handle().raw());
  const uint64_t tick = std::atomic_ref<const uint64_t>(abi->end_ts).load(std::memory_order_acquire);
  return tick == 0 ? std::nullopt : std::optional<uint64_t>(tick);
}

bool IsKernelException(const absl::Status& error) { return hsa::IsWaveException(error); }

absl::StatusOr<std::unique_ptr<Stream>> Stream::Create(Context& context, const Device& device,
                                                       StreamPriority priority) {
  return CreateOn(context, device, hsa::QueueKind::kMulti, priority);
}

absl::StatusOr<std::unique_ptr<Stream>> Stream::CreateCooperative(Context& context, const Device& device) {
  return CreateOn(context, device, hsa::QueueKind::kCooperative, StreamPriority::kNormal);
}

absl::StatusOr<std::unique_ptr<Stream>> Stream::CreateOn(Context& context, const Device& device, hsa::QueueKind kind,
                                                         StreamPriority priority) {
  auto health = std::make_shared<QueueHealth>();
  hsa::QueueRequest request;
  request.agent = device.agent;
  request.size = kQueuePackets;  // the cooperative queue has its own size (16384): the ring's room reads the queue's size
  request.kind = kind;
  request.on_error = [health](const absl::Status& error, hsa::AmdQueue*) { health->Report(error); };
  ASSIGN_OR_RETURN(hsa::Queue queue, context.queues().CreateOwned(request));
  // hsa_queue_create makes every queue at NORMAL; as CLR's acquireQueue, any other priority is set right after,
  // before the queue carries work.
  if (priority != StreamPriority::kNormal) {
    const hsa::QueuePriorityLevel level =
        priority == StreamPriority::kHigh ? hsa::QueuePriorityLevel::kHigh : hsa::QueuePriorityLevel::kLow;
    RETURN_IF_ERROR(context.queues().SetPriority(queue.get(), level));
  }
  // Markers carry the CP's timestamps (hipEventElapsedTime), as CLR turns profiling on for its queues.
  RETURN_IF_ERROR(context.queues().SetProfiling(queue.get(), true));
  // Kernel descriptors and kernargs live in fine-grained system memory every GPU of the context maps.
  ASSIGN_OR_RETURN(hsa::PoolAllocation control, context.runtime().Allocate(device.host_pool, kControlBytes));
  for (blit::KernelId id : kKernels) {
    const blit::KernelDescriptor descriptor = blit::MakeDescriptor(id);
    std::memcpy((control.address() + Bytes(DescriptorOffset(id))).ToPointer(), &descriptor, sizeof(descriptor));
  }
  Trace(Layer::kClr, "stream on device ", device.ordinal, ": ",
        kind == hsa::QueueKind::kCooperative ? "cooperative AQL queue of " : "AQL queue of ", queue.get()->size, " packets");
  std::unique_ptr<Stream> stream(new Stream(context, device, health, std::move(queue), std::move(control)));
  {
    LightLock lock(&health->owner_mu_);
    health->owner_ = stream.get();
  }
  // A fault anywhere on the device fails this stream too (CUDA's sticky context error); the health owns the
  // registration, so it lapses with the stream.
  context.faults().Watch(device.agent, health, [raw = health.get()](const absl::Status& error) { raw->Report(error); });
  return stream;
}

Stream::Stream(Context& context, const Device& device, std::shared_ptr<QueueHealth> health, hsa::Queue queue,
               hsa::PoolAllocation control)
    : context_(context),
      device_(device),
      health_(std::move(health)),
      queue_address_(reinterpret_cast<uint64_t>(queue.get())),
      control_(std::move(control)),
      signal_pool_(std::make_shared<SignalPool>(context.signals())),
      queue_(std::move(queue)) {}

Stream::~Stream() {
  bool released;
  {
    LightLock lock(&mu_);
    released = queue_.empty();
  }
  // A released stream failed on purpose (ReleaseQueue): nothing to wait for, nothing to warn about.
  if (absl::Status s = Finish(); !s.ok()) {
    if (!released) HIPMEM_LOG(kWarning, "releasing a stream: ", s.message());
    // Markers of this stream may outlive it: their waiters must not wait for work that will never run.
    FailPending();
  }
  {
    LightLock lock(&health_->owner_mu_);
    health_->owner_ = nullptr;
  }
  hsa::Queue queue;
  {
    LightLock lock(&mu_);
    in_flight_.clear();
    queue = std::move(queue_);
  }
  // Outside mu_ (as ReleaseQueue), and before the memory the CP reads goes with the members.
  if (!queue.empty()) {
    if (absl::Status s = std::move(queue).Destroy(); !s.ok()) HIPMEM_LOG(kError, "stream queue: ", s.message());
  }
  {
    LightLock lock(&mu_);
    FlushPrintf();
    printf_uses_.clear();
    idle_printf_.clear();
    kernarg_uses_.clear();
    kernarg_ring_.reset();  // the queue that read it is gone
  }
  // control_ goes with the members.
}

void Stream::ReleaseQueue(const absl::Status& why) {
  // The error first: from here on every command stops at Failure() before it touches the queue, and the pending ones
  // (and the streams waiting on them) fail rather than wait for a queue that is going away.
  health_->Report(why.ok() ? absl::FailedPreconditionError("the stream's queue was released") : why);
  hsa::Queue queue;
  {
    LightLock lock(&mu_);
    if (queue_.empty()) return;
    queue = std::move(queue_);
  }
  // Outside mu_: destroying the queue ends its error callback, which may be reporting to this stream (FailPending
  // takes mu_).
  if (absl::Status s = std::move(queue).Destroy(); !s.ok()) HIPMEM_LOG(kError, "stream queue: ", s.message());
  Trace(Layer::kClr, "stream ", absl::Hex(reinterpret_cast<uintptr_t>(this)), ": queue released (", why.message(), ")");
}

void Stream::FailPending() {
  LightLock lock(&mu_);
  FailPendingLocked();
}

void Stream::FailPendingLocked() {
  for (const InFlight& command : in_flight_) {
    // Only a signal still pending: one the engine completed meanwhile keeps its value.
    hsa::SignalValue value = command.done->value();
    while (value > 0) {
      const hsa::SignalValue before = command.done->ref().CompareExchange(value, -1, hsa::MemoryOrder::kAcqRel);
      if (before == value) break;
      value = before;
    }
  }
}

absl::Status Stream::StopOnFailure() {
  absl::Status failed = Failure();
  if (failed.ok()) return failed;
  // Every failure Failure() sees ends this stream's pending commands: a halted or released queue runs nothing more, a
  // device fault fails every queue of the device, and the commands behind a failed one wait on it forever.
  FailPendingLocked();
  FlushPrintf();
  return failed;
}

absl::Status Stream::Failure() const {
  RETURN_IF_ERROR(health_->Error());
  RETURN_IF_ERROR(context_.faults().Error(device_.agent));
  // A failed command's signal stays negative, and the commands behind it wait forever on it.
  for (const InFlight& command : in_flight_) {
    if (const hsa::SignalValue value = command.done->value(); value < 0) return FailedCommand(value);
  }
  return absl::OkStatus();
}

void Stream::FlushPrintf() {
  while (!printf_uses_.empty() && printf_uses_.front().done->value() <= 0) {
    PrintfUse use = std::move(printf_uses_.front());
    printf_uses_.pop_front();
    const PrintfOutput output = use.buffer.Decode();
    if (!output.text.empty()) {
      std::fwrite(output.text.data(), 1, output.text.size(), stdout);
      std::fflush(stdout);
    }
    if (!output.error_text.empty()) {
      std::fwrite(output.error_text.data(), 1, output.error_text.size(), stderr);
      std::fflush(stderr);
    }
    if (output.dropped != 0) {
      HIPMEM_LOG(kWarning, "device printf: ", output.dropped, " records of a kernel did not fit its ",
                 kPrintfDataBytes, "-byte buffer and were dropped");
    }
    use.buffer.Reset();
    if (idle_printf_.size() < kIdlePrintfBuffers) idle_printf_.push_back(std::move(use.buffer));
  }
}

void Stream::Retire() {
  FlushPrintf();
  // Completed dispatches give back their kernarg space and what they held (KernelDispatch::hold).
  while (!kernarg_uses_.empty() && kernarg_uses_.front().done->value() <= 0) kernarg_uses_.pop_front();
  // A command's signal is needed until the command after it has started (it waited on it): drop every entry
  // whose successor is done. The newest stays, as the next command's dependency.
  while (in_flight_.size() >= 2 && in_flight_[1].done->value() <= 0) in_flight_.pop_front();
}

std::vector<uint64_t> Stream::CrossEngineDeps() const {
  if (last_on_aql_ || in_flight_.empty()) return {};
  return {in_flight_.back().done->handle().raw()};
}

absl::Status Stream::SubmitAql(const std::vector<uint64_t>& deps,
                               const std::function<void(uint64_t index, void* slot)>& write,
                               const std::shared_ptr<StreamSignal>& done,
                               std::vector<std::shared_ptr<StreamSignal>> waits_on) {
  TraceSlice trace_slice(TraceCategory::kClr, "Stream::SubmitAql");
  RETURN_IF_ERROR(Failure());
  Retire();
  const uint64_t barriers = (deps.size() + aql::kMaxDepSignals - 1) / aql::kMaxDepSignals;
  const uint64_t packets = barriers + 1;
  hsa::AmdQueue& queue = *queue_.get();
  // Room: the CP must have consumed up to write_index_ + packets - size.
  const absl::Time deadline = absl::Now() + kRingWait;
  while (write_index_ + packets - hsa::LoadReadIndex(queue, hsa::MemoryOrder::kAcquire) > queue.size) {
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("stream queue full for ", absl::FormatDuration(kRingWait),
                                                      ": a command never completes"));
    }
    absl::SleepFor(absl::Microseconds(50));
  }
  auto* ring = reinterpret_cast<char*>(queue.base_address);
  auto slot = [&](uint64_t index) { return ring + (index % queue.size) * aql::kPacketBytes; };
  const uint64_t first = write_index_;
  for (uint64_t b = 0; b < barriers; ++b) {
    uint64_t group[aql::kMaxDepSignals] = {};
    for (uint64_t i = 0; i < static_cast<uint64_t>(aql::kMaxDepSignals); ++i) {
      if (const uint64_t k = b * aql::kMaxDepSignals + i; k < deps.size()) group[i] = deps[k];
    }
    aql::WritePacket(slot(write_index_++), aql::MakeBarrierAnd(group));
  }
  const uint64_t index = write_index_++;
  // Before the packet is published (the CP may read a valid header ahead of its doorbell).
  TraceFlowStart(TraceCategory::kClr, "enqueue", QueueSlotFlowId(reinterpret_cast<uint64_t>(queue.base_address), index));
  write(index, slot(index));
  hsa::StoreWriteIndex(queue, write_index_, hsa::MemoryOrder::kRelease);
  // AQL doorbells carry the index of the last packet published.
  for (uint64_t i = first; i < write_index_; ++i) context_.queues().RingDoorbell(queue.doorbell_signal, i);
  in_flight_.push_back(InFlight{done, std::move(waits_on)});
  last_on_aql_ = true;
  return absl::OkStatus();
}

absl::Status Stream::DispatchBlit(blit::KernelId kernel, DeviceAddress dst, uint64_t src_or_pattern, Bytes size) {
  if (size.is_zero()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> done, StreamSignal::Create(signal_pool_));
  LightLock lock(&mu_);
  auto write = [&](uint64_t index, void* packet_slot) {
    const DeviceAddress kernarg = control_.address() + Bytes(kKernargOffset + (index % kQueuePackets) * kKernargSlot);
    if (kernel != blit::KernelId::kCopy) {
      const blit::FillArgs args = blit::MakeFillArgs(dst.raw(), static_cast<uint32_t>(src_or_pattern), size.raw());
      std::memcpy(kernarg.ToPointer(), &args, sizeof(args));
    } else {
      const blit::CopyArgs args = blit::MakeCopyArgs(dst.raw(), src_or_pattern, size.raw());
      std::memcpy(kernarg.ToPointer(), &args, sizeof(args));
    }
    const DeviceAddress descriptor = control_.address() + Bytes(DescriptorOffset(kernel));
    aql::WritePacket(packet_slot,
                     blit::MakeDispatch(descriptor.raw(), kernarg.raw(), size.raw(), done->handle().raw()));
  };
  return SubmitAql(CrossEngineDeps(), write, done, {});
}

absl::StatusOr<DeviceAddress> Stream::ReserveKernargs(Bytes size) {
  if (size.raw() > kKernargRingBytes) {
    return absl::InvalidArgumentError(absl::StrCat("kernarg segment of ", size.raw(), " bytes: larger than the ",
                                                   kKernargRingBytes, "-byte kernarg ring"));
  }
  if (!kernarg_ring_.has_value()) {
    ASSIGN_OR_RETURN(hsa::PoolAllocation ring, context_.runtime().Allocate(device_.host_pool, Bytes(kKernargRingBytes)));
    kernarg_ring_ = std::move(ring);
  }
  uint64_t begin = (kernarg_head_ + kKernargAlign - 1) / kKernargAlign * kKernargAlign;
  if (begin + size.raw() > kKernargRingBytes) begin = 0;
  const uint64_t end = begin + size.raw();
  auto overlaps = [&](const KernargUse& use) { return use.begin < end && begin < use.end; };
  const absl::Time deadline = absl::Now() + kRingWait;
  while (true) {
    while (!kernarg_uses_.empty() && kernarg_uses_.front().done->value() <= 0) kernarg_uses_.pop_front();
    if (std::none_of(kernarg_uses_.begin(), kernarg_uses_.end(), overlaps)) break;
    // Dispatches complete in order: wait for the oldest. Not through QueueHealth's FailPending, which needs this
    // stream's lock: a failed queue or device shows in Failure() between short waits.
    RETURN_IF_ERROR(Failure());
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("stream kernarg ring full for ", absl::FormatDuration(kRingWait),
                                                      ": a kernel never completes"));
    }
    kernarg_uses_.front().done->ref().Wait(hsa::SignalCondition::kLt, 1, absl::Milliseconds(10),
                                           WaitHintOf(context_, device_));
  }
  kernarg_head_ = end;
  return kernarg_ring_->address() + Bytes(begin);
}

absl::StatusOr<PrintfBuffer> Stream::TakePrintfBuffer() {
  {
    LightLock lock(&mu_);
    if (!idle_printf_.empty()) {
      PrintfBuffer buffer = std::move(idle_printf_.back());
      idle_printf_.pop_back();
      return buffer;
    }
  }
  return PrintfBuffer::Create(context_.runtime(), device_.host_pool);
}

absl::Status Stream::DispatchKernel(const KernelDispatch& dispatch, std::optional<PrintfBuffer> printf) {
  TraceSlice trace_slice(TraceCategory::kClr, "Stream::DispatchKernel");
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> done, StreamSignal::Create(signal_pool_));
  LightLock lock(&mu_);
  RETURN_IF_ERROR(SubmitDispatch(dispatch, done));
  if (printf.has_value()) printf_uses_.push_back(PrintfUse{std::move(done), std::move(*printf)});
  return absl::OkStatus();
}

absl::Status Stream::SubmitDispatch(const KernelDispatch& dispatch, const std::shared_ptr<StreamSignal>& done) {
  RETURN_IF_ERROR(Failure());
  ASSIGN_OR_RETURN(DeviceAddress kernargs, ReserveKernargs(Bytes(dispatch.kernargs.size())));
  std::memcpy(kernargs.ToPointer(), dispatch.kernargs.data(), dispatch.kernargs.size());
  if (dispatch.grid_sync_arg.has_value() && *dispatch.grid_sync_arg + uint64_t{8} <= dispatch.kernargs.size()) {
    auto* field = static_cast<unsigned char*>(kernargs.ToPointer()) + *dispatch.grid_sync_arg;
    uint64_t offset;
    std::memcpy(&offset, field, sizeof(offset));
    const uint64_t address = kernargs.raw() + offset;
    std::memcpy(field, &address, sizeof(address));
  }
  if (TraceEnabled()) {
    Trace(Layer::kClr, "stream ", absl::Hex(reinterpret_cast<uintptr_t>(this)), ": kernel 0x",
          absl::Hex(dispatch.kernel_object), " grid ", dispatch.grid[0], "x", dispatch.grid[1], "x", dispatch.grid[2],
          " work-group ", dispatch.workgroup[0], "x", dispatch.workgroup[1], "x", dispatch.workgroup[2], ", ",
          dispatch.group_segment_size, " B LDS");
  }
  auto write = [&](uint64_t, void* packet_slot) {
    aql::KernelDispatchPacket packet{};
    packet.header = aql::Header(aql::PacketType::kKernelDispatch);
    const uint16_t dims = dispatch.grid[2] > 1 ? 3 : dispatch.grid[1] > 1 ? 2 : 1;
    packet.setup = static_cast<uint16_t>(dims << aql::kSetupDimensionsShift);
    packet.workgroup_size_x = dispatch.workgroup[0];
    packet.workgroup_size_y = dispatch.workgroup[1];
    packet.workgroup_size_z = dispatch.workgroup[2];
    packet.grid_size_x = dispatch.grid[0];
    packet.grid_size_y = dispatch.grid[1];
    packet.grid_size_z = dispatch.grid[2];
    packet.private_segment_size = dispatch.private_segment_size;
    packet.group_segment_size = dispatch.group_segment_size;
    packet.kernel_object = dispatch.kernel_object;
    packet.kernarg_address = kernargs.raw();
    packet.completion_signal = done->handle().raw();
    aql::WritePacket(packet_slot, packet);
  };
  const uint64_t begin = (kernargs - kernarg_ring_->address()).raw();
  RETURN_IF_ERROR(SubmitAql(CrossEngineDeps(), write, done, {}));
  kernarg_uses_.push_back(KernargUse{begin, begin + dispatch.kernargs.size(), done, dispatch.hold});
  return absl::OkStatus();
}

absl::Status Stream::DispatchCooperative(Stream& cooperative, const KernelDispatch& dispatch,
                                         std::optional<PrintfBuffer> printf) {
  TraceSlice trace_slice(TraceCategory::kClr, "Stream::DispatchCooperative");
  LightLock lock(&cooperative.cooperative_mu_);
  // The cooperative stream fails with this one's prior work (its barrier never opens otherwise), and this one with
  // the launch (WaitFor makes each the other's dependent).
  ASSIGN_OR_RETURN(const Marker before, Record());
  RETURN_IF_ERROR(cooperative.WaitFor(before));
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> done, StreamSignal::Create(cooperative.signal_pool_));
  {
    LightLock cooperative_lock(&cooperative.mu_);
    RETURN_IF_ERROR(cooperative.SubmitDispatch(dispatch, done));
  }
  if (printf.has_value()) {
    // Here rather than on the cooperative stream, which every launch of the device shares and nobody synchronises:
    // tied to the dispatch's own signal, the buffer lives exactly as long as the kernel may write it, even if a step
    // below fails, and this stream's Finish (which waits for the barrier behind the dispatch) prints it.
    LightLock lock(&mu_);
    printf_uses_.push_back(PrintfUse{std::move(done), std::move(*printf)});
  }
  // The grid is submitted, and may already have failed (a small grid that traps can halt the cooperative queue, or
  // complete its dispatch signal negative, before this call gets here): as for an ordinary launch, a failure from
  // here on is this stream's to report at its next synchronise, not the launch's, so it is recorded on this stream
  // (which then fails every later command, as the missing ordering would require) and the launch succeeds.
  absl::StatusOr<Marker> after = cooperative.Record();
  absl::Status ordered = after.ok() ? WaitFor(*after) : after.status();
  if (!ordered.ok()) health_->Report(ordered);
  return absl::OkStatus();
}

absl::Status Stream::ShaderCopy(DeviceAddress dst, DeviceAddress src, Bytes size) {
  if (TraceEnabled()) {
    Trace(Layer::kClr, "stream ", absl::Hex(reinterpret_cast<uintptr_t>(this)), ": shader copy ", size.raw(), " B ",
          AddressText(src), " -> ", AddressText(dst));
  }
  return DispatchBlit(blit::KernelId::kCopy, dst, src.raw(), size);
}

absl::Status Stream::ShaderFill(DeviceAddress dst, uint32_t pattern, uint32_t element_size, uint64_t count) {
  if (element_size != 1 && element_size != 2 && element_size != 4) {
    return absl::InvalidArgumentError(absl::StrCat("fill element of ", element_size, " bytes: 1, 2 or 4"));
  }
  if (dst.raw() % element_size != 0) {
    return absl::InvalidArgumentError(absl::StrCat("fill of ", element_size, "-byte elements at ", AddressText(dst),
                                                   ": not aligned to the element"));
  }
  if (count > UINT64_MAX / element_size) return absl::InvalidArgumentError("fill size overflows");
  const Bytes size(count * element_size);
  if (TraceEnabled()) {
    Trace(Layer::kClr, "stream ", absl::Hex(reinterpret_cast<uintptr_t>(this)), ": shader fill ", size.raw(), " B at ",
          AddressText(dst), " with a ", element_size, "-byte pattern");
  }
  if (element_size == 1) return DispatchBlit(blit::KernelId::kFillBytes, dst, pattern & 0xff, size);
  // Dword fills over the aligned middle (a 2-byte pattern repeats within a dword, so any dword of the range
  // holds it twice); the bytes before and after it one at a time, each byte of the pattern in its place.
  const uint32_t word = element_size == 2 ? ((pattern & 0xffff) | (pattern << 16)) : pattern;
  const DeviceAddress end = dst + size;
  // A dst in the last 3 bytes of the address space has no aligned dword after it: the body is empty.
  const DeviceAddress body = std::min(AlignUp(dst, Bytes(4)).value_or(end), end);
  const DeviceAddress body_end = std::max(AlignDown(end, Bytes(4)), body);
  auto bytes = [&](DeviceAddress from, DeviceAddress to) -> absl::Status {
    for (DeviceAddress a = from; a < to; a = a + Bytes(1)) {
      const uint32_t byte = (word >> (8 * (a.raw() % 4))) & 0xff;
      RETURN_IF_ERROR(DispatchBlit(blit::KernelId::kFillBytes, a, byte, Bytes(1)));
    }
    return absl::OkStatus();
  };
  RETURN_IF_ERROR(bytes(dst, body));
  RETURN_IF_ERROR(DispatchBlit(blit::KernelId::kFill, body, word, body_end - body));
  return bytes(body_end, end);
}

absl::Status Stream::SdmaCopy(const hsa::ResolvedSide& dst, const hsa::ResolvedSide& src, Bytes size) {
  TraceSlice trace_slice(TraceCategory::kClr, "Stream::SdmaCopy");
  if (size.is_zero()) return absl::OkStatus();
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> done, StreamSignal::Create(context_.signals()));
  LightLock lock(&mu_);
  RETURN_IF_ERROR(Failure());
  Retire();
  std::vector<hsa::SignalRef> deps;
  if (!in_flight_.empty()) deps.push_back(in_flight_.back().done->ref());
  const hsa::SignalRef& completion = done->ref();
  const hsa::ResolvedCopyRequest request{
      .dst = dst, .src = src, .size = size, .dependencies = deps, .completion = &completion};
  if (TraceEnabled()) {
    Trace(Layer::kClr, "stream ", absl::Hex(reinterpret_cast<uintptr_t>(this)), ": SDMA copy ", size.raw(), " B ",
          AddressText(src.gpu), " -> ", AddressText(dst.gpu));
  }
  RETURN_IF_ERROR(context_.copies().CopyResolved(request));
  in_flight_.push_back(InFlight{std::move(done), {}});
  last_on_aql_ = false;
  return absl::OkStatus();
}

absl::Status Stream::SdmaCopyRect(const hsa::ResolvedSurface& dst, const hsa::ResolvedSurface& src, hsa::Dim3 range,
                                  hsa::CopyDirection direction) {
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> done, StreamSignal::Create(context_.signals()));
  LightLock lock(&mu_);
  RETURN_IF_ERROR(Failure());
  Retire();
  std::vector<hsa::SignalRef> deps;
  if (!in_flight_.empty()) deps.push_back(in_flight_.back().done->ref());
  const hsa::SignalRef& completion = done->ref();
  // Each base is the box's first byte: no offsets.
  const hsa::ResolvedCopyRectRequest request{.dst = dst,
                                             .dst_offset = {},
                                             .src = src,
                                             .src_offset = {},
                                             .range = range,
                                             .copy_agent = device_.agent,
                                             .direction = direction,
                                             .dependencies = deps,
                                             .completion = &completion};
  RETURN_IF_ERROR(context_.copies().CopyRectResolved(request));
  in_flight_.push_back(InFlight{std::move(done), {}});
  last_on_aql_ = false;
  return absl::OkStatus();
}

absl::StatusOr<Marker> Stream::Record() {
  TraceSlice trace_slice(TraceCategory::kClr, "Stream::Record");
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> done, StreamSignal::Create(signal_pool_));
  LightLock lock(&mu_);
  // A barrier-AND with the barrier bit completes after every packet before it; the cross-engine dependency
  // covers work that ran elsewhere.
  auto write = [&](uint64_t, void* packet_slot) {
    const uint64_t none[aql::kMaxDepSignals] = {};
    aql::WritePacket(packet_slot, aql::MakeBarrierAnd(none, done->handle().raw()));
  };
  RETURN_IF_ERROR(SubmitAql(CrossEngineDeps(), write, done, {}));
  return Marker(std::move(done), health_, context_, device_);
}

absl::StatusOr<Marker> Stream::MarkNewestCommand() {
  {
    LightLock lock(&mu_);
    if (!in_flight_.empty()) return Marker(in_flight_.back().done, health_, context_, device_);
  }
  return Record();
}

absl::Status Stream::WaitFor(const Marker& marker) {
  TraceSlice trace_slice(TraceCategory::kClr, "Stream::WaitFor");
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> done, StreamSignal::Create(signal_pool_));
  // Before this stream's lock: when the marker's stream failed already, this one fails now, and the submission
  // below reports it.
  if (marker.health_ != health_) marker.health_->AddDependent(health_, marker.signal_);
  LightLock lock(&mu_);
  std::vector<uint64_t> deps = CrossEngineDeps();
  deps.push_back(marker.signal_->handle().raw());
  auto write = [&](uint64_t, void* packet_slot) {
    const uint64_t none[aql::kMaxDepSignals] = {};
    aql::WritePacket(packet_slot, aql::MakeBarrierAnd(none, done->handle().raw()));
  };
  return SubmitAql(deps, write, done, {marker.signal_});
}

absl::Status Stream::HostFunction(std::function<void()> function) {
  return HostCallback([function = std::move(function)](const absl::Status&) { function(); });
}

absl::Status Stream::HostCallback(std::function<void(const absl::Status&)> callback) {
  // The gate: work queued after the callback waits on it; the handler opens it once the callback returned.
  ASSIGN_OR_RETURN(std::shared_ptr<StreamSignal> gate, StreamSignal::Create(context_.signals()));
  LightLock lock(&mu_);
  RETURN_IF_ERROR(Failure());
  Retire();
  if (in_flight_.empty() || in_flight_.back().done->value() <= 0) {
    // Nothing pending: CLR still runs the callback on its own thread, never on the caller's.
    RETURN_IF_ERROR(context_.signals().RunAsync([callback = std::move(callback), gate] {
      callback(absl::OkStatus());
      gate->ref().Store(0, hsa::MemoryOrder::kRelease);
    }));
  } else {
    std::shared_ptr<StreamSignal> after = in_flight_.back().done;
    RETURN_IF_ERROR(context_.signals().SetAsyncHandler(
        after->handle(), hsa::SignalCondition::kLt, 1,
        [callback = std::move(callback), gate, after, health = health_](hsa::SignalValue value) {
          absl::Status status;
          if (value < 0) {
            status = health->Error();
            if (status.ok()) status = FailedCommand(value);
          }
          callback(status);
          gate->ref().Store(0, hsa::MemoryOrder::kRelease);
          return false;  // once
        }));
  }
  in_flight_.push_back(InFlight{std::move(gate), {}});
  last_on_aql_ = false;
  return absl::OkStatus();
}

absl::Status Stream::Finish() {
  TraceSlice trace_slice(TraceCategory::kClr, "Stream::Finish");
  // How many rounds this loop makes, each with the stream's lock, depends on how far the GPU got: issue #26's lock
  // counts (base/lock_count.h) leave waits for the GPU out, so that they count what a call costs, not how long.
  const LockCountPause waiting;
  while (true) {
    std::shared_ptr<StreamSignal> next;
    {
      LightLock lock(&mu_);
      FlushPrintf();
      RETURN_IF_ERROR(StopOnFailure());  // a failed dispatch's records too
      Retire();
      for (const InFlight& command : in_flight_) {
        if (command.done->value() > 0) {
          next = command.done;
          break;
        }
      }
      if (next == nullptr) return absl::OkStatus();
    }
    // The oldest pending command, without a timeout: it completes, completes negative (a failed command, which
    // the next round reports; the commands behind it may never run), or is failed by FailPending when the
    // queue halts or the device faults.
    next->ref().Wait(hsa::SignalCondition::kLt, 1, absl::InfiniteDuration(), WaitHintOf(context_, device_));
  }
}

absl::Status Stream::WaitForQueued() {
  const LockCountPause waiting;  // see Finish
  std::shared_ptr<StreamSignal> last;
  {
    LightLock lock(&mu_);
    RETURN_IF_ERROR(StopOnFailure());
    if (in_flight_.empty()) return absl::OkStatus();
    last = in_flight_.back().done;
  }
  while (true) {
    // As Finish, one pending command at a time up to `last`, so a failure before it is reported rather than
    // leaving `last` waiting forever.
    std::shared_ptr<StreamSignal> next;
    {
      LightLock lock(&mu_);
      RETURN_IF_ERROR(StopOnFailure());
      if (last->value() <= 0) break;
      for (const InFlight& command : in_flight_) {
        if (command.done->value() > 0) {
          next = command.done;
          break;
        }
      }
      if (next == nullptr) break;
    }
    next->ref().Wait(hsa::SignalCondition::kLt, 1, absl::InfiniteDuration(), WaitHintOf(context_, device_));
  }
  {
    LightLock lock(&mu_);
    FlushPrintf();
  }
  const hsa::SignalValue value = last->value();
  return value < 0 ? FailedCommand(value) : absl::OkStatus();
}

bool Stream::Idle() const {
  LightLock lock(&mu_);
  return in_flight_.empty() || in_flight_.back().done->value() <= 0;
}

absl::Status Stream::Error() const {
  LightLock lock(&mu_);
  return Failure();
}

}  // namespace hipmem::clr
