#include "testing/kfd_sim/engines/compute_engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/aliased_memory_sync.h"
#include "base/log.h"
#include "base/trace.h"
#include "gpu_abi/blit_kernels.h"
#include "gpu_abi/kernel_descriptor.h"
#include "testing/kfd_sim/host/host_thread.h"
#include "testing/kfd_sim/engines/gfx9/dispatch.h"

namespace hipmem::kfd_sim {
namespace {

using aql::PacketType;
using blit::KernelId;

// Index arithmetic wraps at 2^64: `a` is after `b` when it is less than half the space ahead.
bool After(uint64_t a, uint64_t b) { return static_cast<int64_t>(a - b) > 0; }

bool IsPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Writes `m` bytes of a repeating little-endian 32-bit pattern at `out`; `phase` is the offset of `out` inside
// the fill, so bytes land where a whole-dword fill would put them whatever the host alignment.
void FillHost(unsigned char* out, uint64_t m, uint32_t pattern, uint64_t phase) {
  auto byte_at = [&](uint64_t offset) { return static_cast<unsigned char>(pattern >> (8 * (offset % 4))); };
  uint64_t i = 0;
  for (; i < m && reinterpret_cast<uintptr_t>(out + i) % 4 != 0; ++i) out[i] = byte_at(phase + i);
  const uint64_t words = (m - i) / 4;
  if (words > 0) {
    const uint32_t shift = 8 * ((phase + i) % 4);
    const uint32_t word = shift == 0 ? pattern : (pattern >> shift) | (pattern << (32 - shift));
    auto* w = reinterpret_cast<uint32_t*>(out + i);
    std::fill(w, w + words, word);
    i += words * 4;
  }
  for (; i < m; ++i) out[i] = byte_at(phase + i);
}

// What one workgroup of a blit kernel does. Returns the first unmapped VA it met; nothing is written
// through a missing mapping. Call inside an AccessScope.
struct Blit {
  KernelId id;
  uint64_t src;  // kCopy only
  uint64_t dst;
  uint64_t bytes;
  uint32_t pattern;  // kFill; kFillBytes: the byte replicated

  std::optional<uint64_t> Run(GpuMemory* memory, blit::ByteRange range) const {
    uint64_t offset = range.begin;
    while (offset < range.end) {
      const uint64_t n = range.end - offset;
      if (id == KernelId::kCopy) {
        std::optional<GpuMemory::Span> s = memory->Translate(src + offset, n);
        if (!s.has_value()) return src + offset;
        std::optional<GpuMemory::Span> d = memory->Translate(dst + offset, n);
        if (!d.has_value()) return dst + offset;
        const uint64_t m = std::min({s->bytes, d->bytes, n});
        const auto* sp = static_cast<const unsigned char*>(s->host);
        auto* dp = static_cast<unsigned char*>(d->host);
        if (dp + m <= sp || sp + m <= dp) {
          std::memcpy(dp, sp, m);
        } else {
          std::memmove(dp, sp, m);
        }
        offset += m;
      } else {
        std::optional<GpuMemory::Span> d = memory->Translate(dst + offset, n);
        if (!d.has_value()) return dst + offset;
        const uint64_t m = std::min(d->bytes, n);
        FillHost(static_cast<unsigned char*>(d->host), m, pattern, offset);
        offset += m;
      }
    }
    return std::nullopt;
  }
};

}  // namespace

const char* QueueErrorName(QueueError error) {
  switch (error) {
    case QueueError::kInvalidQueue: return "invalid queue";
    case QueueError::kUnsupportedPacket: return "unsupported packet";
    case QueueError::kInvalidDispatch: return "invalid dispatch";
    case QueueError::kInvalidKernelObject: return "invalid kernel object";
    case QueueError::kInvalidKernarg: return "invalid kernarg";
    case QueueError::kInvalidSignal: return "invalid signal";
    case QueueError::kIllegalInstruction: return "illegal instruction";
    case QueueError::kTrap: return "wave trap";
    case QueueError::kOutOfScratch: return "out of scratch";
  }
  return "unknown";
}

// The compute units: worker threads created once, asleep on a condition variable between dispatches (a
// single-workgroup dispatch runs on the CP thread instead). One dispatch at a time (only the CP thread calls Run).
class ComputeEngine::WorkerPool {
 public:
  explicit WorkerPool(int threads) {
    threads_.reserve(threads);
    for (int i = 0; i < threads; ++i) {
      absl::StatusOr<std::thread> thread = StartHostThread([this] { Loop(); });
      if (!thread.ok()) {
        HIPMEM_LOG(kError, "kfd_sim: compute unit ", i, ": ", thread.status().message());
        complete_ = false;
        return;
      }
      threads_.push_back(*std::move(thread));
    }
  }
  ~WorkerPool() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }
  // Whether every compute unit started: a GPU short of units is not a GPU the queue was created for.
  bool complete() const { return complete_; }

  using Claim = std::function<std::optional<uint64_t>()>;

  // Calls body(i) for every i in [0, count), spread over the workers, and returns when all calls returned.
  // Workgroups are handed out in increasing order.
  void Run(uint64_t count, const std::function<void(uint64_t)>& body) {
    RunOnWorkers(count, [&](const Claim& claim) {
      for (std::optional<uint64_t> i = claim(); i.has_value(); i = claim()) body(*i);
    });
  }

  // Calls unit(claim) once on every worker (on the calling thread alone for a count of 1); `claim` hands out the
  // indices [0, count) in increasing order, each once over all workers, then nullopt. Returns when all returned.
  void RunOnWorkers(uint64_t count, const std::function<void(const Claim&)>& unit) {
    // A dispatch of one workgroup (every copy or fill up to 256 KiB) runs on the calling thread: handing it to a
    // sleeping worker would cost two thread wake-ups, several times the work itself, and no unit runs beside it.
    if (count <= 1) {
      bool taken = count == 0;
      unit([&]() -> std::optional<uint64_t> {
        if (taken) return std::nullopt;
        taken = true;
        return 0;
      });
      return;
    }
    std::unique_lock<std::mutex> lock(mu_);
    body_ = &unit;
    count_ = count;
    next_.store(0, std::memory_order_relaxed);
    busy_ = size();
    ++generation_;
    work_cv_.notify_all();
    done_cv_.wait(lock, [&] { return busy_ == 0; });
    body_ = nullptr;
  }

 private:
  void Loop() {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      work_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      const std::function<void(const Claim&)>* body = body_;
      const uint64_t count = count_;
      lock.unlock();
      (*body)([this, count]() -> std::optional<uint64_t> {
        const uint64_t i = next_.fetch_add(1, std::memory_order_relaxed);
        if (i < count) return i;
        return std::nullopt;
      });
      lock.lock();
      if (--busy_ == 0) done_cv_.notify_one();
    }
  }

  std::mutex mu_;
  std::condition_variable work_cv_;                      // a new generation or stop_
  std::condition_variable done_cv_;                      // busy_ reached 0
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  const std::function<void(const Claim&)>* body_ ABSL_GUARDED_BY(mu_) = nullptr;
  uint64_t count_ ABSL_GUARDED_BY(mu_) = 0;
  int busy_ ABSL_GUARDED_BY(mu_) = 0;  // workers still in the current generation
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<uint64_t> next_{0};                        // the next workgroup to hand out
  std::vector<std::thread> threads_;
  bool complete_ = true;
};

ComputeEngine::ComputeEngine(std::string name, GpuMemory* memory, AqlQueueDescriptor queue, uint32_t cu_count,
                             Callbacks callbacks)
    : QueueEngine(std::move(name), queue.doorbell, IdleDoorbellValue(queue.initial_read_index),
                  queue.initial_read_index, callbacks.on_vm_fault),
      memory_(memory),
      queue_(queue),
      callbacks_(std::move(callbacks)),
      slots_(IsPowerOfTwo(queue.ring_bytes) && queue.ring_bytes >= aql::kPacketBytes && queue.ring_va % 64 == 0 &&
                     queue.read_dispatch_id_va % 8 == 0
                 ? queue.ring_bytes / aql::kPacketBytes
                 : 0),
      amd_queue_base_(ProbeAmdQueue(memory, queue)),
      read_(queue.initial_read_index),
      announced_end_(queue.initial_read_index),
      cu_count_(std::max(cu_count, 1u)),
      units_(std::make_unique<WorkerPool>(
          static_cast<int>(std::clamp<uint32_t>(cu_count, 1, std::max(1u, std::thread::hardware_concurrency()))))) {
  if (units_->complete()) Start();  // else not running(): the queue's creator fails
}

ComputeEngine::~ComputeEngine() { Stop(); }

int ComputeEngine::worker_count() const { return units_->size(); }

bool ComputeEngine::CaughtUp(uint64_t read_index, uint64_t doorbell) const {
  // The doorbell word may have moved back (producers ring out of order) or not been seen by the CP yet.
  return !After(doorbell + 1, read_index) && !After(announced_end_.load(std::memory_order_acquire), read_index);
}

ComputeEngine::Outcome ComputeEngine::Error(QueueError error, const std::string& detail) {
  error_ = error;
  error_detail_ = detail;
  return Outcome::kHalt;
}

void ComputeEngine::ReportError() {
  HIPMEM_LOG(kWarning, name(), ": ", QueueErrorName(*error_), " (", error_detail_, "); queue halted");
  RaiseQueueInactive(*error_);
  if (callbacks_.on_queue_error) callbacks_.on_queue_error(*error_);
}

void ComputeEngine::RaiseQueueInactive(QueueError error) {
  // Only a queue in ROCr's amd_queue_t layout (ProbeAmdQueue) has a queue_inactive_signal, at 192; other layouts
  // (the runtime's own blit queues) are left alone.
  // The codes ROCr decodes from queue_inactive_signal (ComputeQueue::HandleError's table).
  int64_t code = 0;
  switch (error) {
    case QueueError::kInvalidKernelObject: code = 8; break;     // HSA_STATUS_ERROR_INVALID_CODE_OBJECT
    case QueueError::kUnsupportedPacket: code = 32; break;      // HSA_STATUS_ERROR_INVALID_PACKET_FORMAT
    case QueueError::kInvalidDispatch:                          // HSA_STATUS_ERROR_INVALID_ARGUMENT
    case QueueError::kInvalidKernarg:
    case QueueError::kInvalidSignal: code = 64; break;
    // A wave's exceptions, as the trap handler ROCr installs on a KFD without exception reporting (its v1 handler;
    // the simulated KFD has no debugger interface) stores them into the queue's queue_inactive_signal: an illegal
    // instruction 1 << 30 (HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION), s_trap 2 (llvm.trap) 1 << 31, which ROCr decodes as
    // a debug trap, HSA_STATUS_ERROR_EXCEPTION. A newer KFD carries the same through its exception codes
    // (EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION; EC_QUEUE_WAVE_ABORT for id 2, EC_QUEUE_WAVE_TRAP for other ids), which ROCr
    // maps to the same two statuses. The newer handler's generic wave trap also takes the reserved ids here.
    case QueueError::kIllegalInstruction: code = int64_t{1} << 30; break;
    case QueueError::kTrap: code = int64_t{1} << 31; break;
    case QueueError::kInvalidQueue: return;  // the CP never ran: nothing to report through
    case QueueError::kOutOfScratch: return;  // the runtime's scratch handler reported it already
  }
  (void)StoreQueueInactive(code);
}

std::optional<uint64_t> ComputeEngine::StoreQueueInactive(int64_t code) {
  constexpr uint64_t kInactiveSignalOffset = 192;
  uint64_t signal = 0;
  uint64_t mailbox = 0;
  uint32_t event_id = 0;
  {
    if (!amd_queue_base_.has_value()) return std::nullopt;
    GpuMemory::AccessScope scope(memory_);
    if (ReadGpu(memory_, *amd_queue_base_ + kInactiveSignalOffset, &signal, 8) || signal == 0 || signal % 8 != 0) {
      return std::nullopt;
    }
    auto* value = TranslateWord<int64_t>(memory_, signal + aql::kSignalValueOffset);
    if (value == nullptr) return std::nullopt;
    PublishThroughAliases();
    std::atomic_ref<int64_t>(*value).store(code, std::memory_order_release);
    if (ReadGpu(memory_, signal + aql::kSignalMailboxOffset, &mailbox, 8) || mailbox == 0 || mailbox % 8 != 0) {
      return signal;
    }
    if (ReadGpu(memory_, signal + aql::kSignalEventIdOffset, &event_id, 4)) return signal;
    auto* slot = TranslateWord<uint64_t>(memory_, mailbox);
    if (slot == nullptr) return signal;
    std::atomic_ref<uint64_t>(*slot).store(event_id, std::memory_order_release);
  }
  if (callbacks_.on_signal_interrupt) callbacks_.on_signal_interrupt(event_id);
  return signal;
}

std::optional<uint64_t> ComputeEngine::ReadScratchRing(gfx9::ScratchRing* ring) const {
  // ROCr's amd_queue_t: compute_tmpring_size at 140, scratch_resource_descriptor[4] at 144,
  // scratch_backing_memory_location at 160, scratch_backing_memory_byte_size at 168.
  unsigned char fields[36];
  GpuMemory::AccessScope scope(memory_);
  ObserveThroughAliases();  // the runtime's handler rewrote them before it restarted the queue
  if (std::optional<uint64_t> fault = ReadGpu(memory_, *amd_queue_base_ + 140, fields, sizeof(fields))) return fault;
  uint32_t tmpring = 0;
  uint64_t location = 0;
  std::memcpy(&tmpring, fields, 4);
  std::memcpy(ring->resource.data(), fields + 4, 16);
  std::memcpy(&location, fields + 20, 8);
  std::memcpy(&ring->bytes, fields + 28, 8);
  // The location is an offset into the process's scratch backing (SH_HIDDEN_PRIVATE_BASE), as ROCr keeps it; a
  // runtime that never sets that base (ours) gives the VA itself.
  ring->base = queue_.scratch_backing_base + location;
  ring->wave_bytes = gfx9::ScratchRing::WaveBytes(tmpring);
  // WAVES is per XCC; the XCCs share the backing, so no more waves than it holds.
  uint64_t waves = uint64_t{gfx9::ScratchRing::Waves(tmpring)} * std::max(queue_.xcc_count, 1u);
  if (ring->wave_bytes != 0) waves = std::min(waves, ring->bytes / ring->wave_bytes);
  ring->waves = static_cast<uint32_t>(std::min<uint64_t>(waves, UINT32_MAX));
  return std::nullopt;
}

bool ComputeEngine::ScratchIsSpent(uint64_t index, uint32_t private_bytes) const {
  constexpr uint64_t kQueuePropertiesOffset = 180;  // amd_queue_t.queue_properties
  constexpr uint32_t kUseScratchOnce = 1u << 4;     // AMD_QUEUE_PROPERTIES_USE_SCRATCH_ONCE
  if (private_bytes == 0 || !amd_queue_base_.has_value() || scratch_grown_for_ == index) return false;
  GpuMemory::AccessScope scope(memory_);
  auto* properties = TranslateWord<uint32_t>(memory_, *amd_queue_base_ + kQueuePropertiesOffset);
  return properties != nullptr &&
         (std::atomic_ref<uint32_t>(*properties).load(std::memory_order_acquire) & kUseScratchOnce) != 0;
}

ComputeEngine::Outcome ComputeEngine::AwaitScratch(const std::string& detail) {
  constexpr int64_t kInsufficientScratch = 1;  // ROCr's DynamicScratchHandler: error_code & 1, a wave64 request
  const std::optional<uint64_t> signal = StoreQueueInactive(kInsufficientScratch);
  // No amd_queue_t or no signal to ask through: nobody can grow the scratch, so the dispatch cannot run.
  if (!signal.has_value()) return Error(QueueError::kInvalidDispatch, detail);
  HIPMEM_LOG(kInfo, name(), ": ", detail, "; waiting for the runtime to grow the queue's scratch");
  auto backoff = std::chrono::microseconds(20);
  while (true) {
    int64_t value = kInsufficientScratch;
    {
      GpuMemory::AccessScope scope(memory_);
      auto* word = TranslateWord<int64_t>(memory_, *signal + aql::kSignalValueOffset);
      if (word == nullptr) return Fault(*signal + aql::kSignalValueOffset);
      value = std::atomic_ref<int64_t>(*word).load(std::memory_order_acquire);
      ObserveThroughAliases();
    }
    if (value == 0) return Outcome::kDone;
    if (value != kInsufficientScratch) return Error(QueueError::kOutOfScratch, detail);
    if (!SleepUnlessInterrupted(backoff)) return Outcome::kStopped;
    backoff = std::min(backoff * 2, std::chrono::microseconds(1000));
  }
}

std::optional<uint64_t> ComputeEngine::ProbeAmdQueue(GpuMemory* memory, const AqlQueueDescriptor& queue) {
  // ROCr's amd_queue_t: read_dispatch_id at 128, read_dispatch_id_field_base_byte_offset right after it (how
  // firmware and debuggers find the hsa_queue_t from the read pointer the KFD holds), hsa_queue_t.base_address at
  // 8. Only a queue whose offset reads 128 and whose base_address names this ring is taken for one.
  constexpr uint64_t kReadIdOffset = 128;
  constexpr uint64_t kBaseAddressOffset = 8;
  if (queue.read_dispatch_id_va < kReadIdOffset) return std::nullopt;
  const uint64_t base = queue.read_dispatch_id_va - kReadIdOffset;
  GpuMemory::AccessScope scope(memory);
  uint32_t field_offset = 0;
  uint64_t ring = 0;
  if (ReadGpu(memory, queue.read_dispatch_id_va + 8, &field_offset, 4) || field_offset != kReadIdOffset) {
    return std::nullopt;
  }
  if (ReadGpu(memory, base + kBaseAddressOffset, &ring, 8) || ring != queue.ring_va) return std::nullopt;
  return base;
}

bool ComputeEngine::ProfilingEnabled() const {
  constexpr uint64_t kQueuePropertiesOffset = 180;  // amd_queue_t.queue_properties
  constexpr uint32_t kEnableProfiling = 1u << 3;    // AMD_QUEUE_PROPERTIES_ENABLE_PROFILING
  if (!amd_queue_base_.has_value()) return false;
  GpuMemory::AccessScope scope(memory_);
  auto* properties = TranslateWord<uint32_t>(memory_, *amd_queue_base_ + kQueuePropertiesOffset);
  return properties != nullptr &&
         (std::atomic_ref<uint32_t>(*properties).load(std::memory_order_acquire) & kEnableProfiling) != 0;
}

ComputeEngine::Outcome ComputeEngine::Stamp(uint64_t handle, uint64_t start, uint64_t end) {
  GpuMemory::AccessScope scope(memory_);
  auto* start_ts = TranslateWord<uint64_t>(memory_, handle + aql::kSignalStartTsOffset);
  if (start_ts == nullptr) return Fault(handle + aql::kSignalStartTsOffset);
  auto* end_ts = TranslateWord<uint64_t>(memory_, handle + aql::kSignalEndTsOffset);
  if (end_ts == nullptr) return Fault(handle + aql::kSignalEndTsOffset);
  // Relaxed: the signal's acq_rel decrement that follows publishes them to a waiter.
  std::atomic_ref<uint64_t>(*start_ts).store(start, std::memory_order_relaxed);
  std::atomic_ref<uint64_t>(*end_ts).store(end, std::memory_order_relaxed);
  return Outcome::kDone;
}

bool ComputeEngine::Validate() {
  if (slots_ != 0) return true;
  Error(QueueError::kInvalidQueue, absl::StrCat("ring_bytes=", queue_.ring_bytes, " ring_va=0x",
                                                absl::Hex(queue_.ring_va), " read_dispatch_id_va=0x",
                                                absl::Hex(queue_.read_dispatch_id_va)));
  return false;
}

ComputeEngine::Outcome ComputeEngine::Process(uint64_t doorbell) {
  uint64_t end = announced_end_.load(std::memory_order_relaxed);
  if (After(doorbell + 1, end)) {
    // No producer can be more than one ring ahead of the read index; a wild doorbell value is clipped.
    end = After(doorbell + 1, read_ + slots_) ? read_ + slots_ : doorbell + 1;
    announced_end_.store(end, std::memory_order_release);
  }
  if (!After(end, read_) && !more_) return Outcome::kNotReady;
  const Outcome outcome = Step(read_);
  if (outcome == Outcome::kDone) {
    ++read_;
    more_ = true;
  } else if (outcome == Outcome::kNotReady) {
    more_ = false;  // the slot is not published yet: its producer rings once it is
  }
  return outcome;
}

ComputeEngine::Outcome ComputeEngine::Step(uint64_t index) {
  const uint64_t slot_va = queue_.ring_va + (index & (slots_ - 1)) * aql::kPacketBytes;
  unsigned char raw[aql::kPacketBytes];
  uint32_t header_and_setup = 0;
  {
    GpuMemory::AccessScope scope(memory_);
    uint32_t* header_word = TranslateWord<uint32_t>(memory_, slot_va);
    if (header_word == nullptr) return Fault(slot_va);
    // Acquire: a header the producer released makes the rest of its packet visible.
    header_and_setup = std::atomic_ref<uint32_t>(*header_word).load(std::memory_order_acquire);
    if (aql::TypeOf(static_cast<uint16_t>(header_and_setup)) == PacketType::kInvalid) return Outcome::kNotReady;
    // A slot read ahead of its doorbell: pair with the producer's publish (aql::WritePacket), which ThreadSanitizer
    // cannot match to this mapping's load.
    ObserveThroughAliases();
    std::memcpy(raw, &header_and_setup, sizeof(header_and_setup));
    if (std::optional<uint64_t> fault = ReadGpu(memory_, slot_va + 4, raw + 4, aql::kPacketBytes - 4)) {
      return Fault(*fault);
    }
  }
  const auto header = static_cast<uint16_t>(header_and_setup);
  TraceSlice trace_slice(TraceCategory::kCompute, aql::TypeOf(header) == PacketType::kKernelDispatch ? "kernel dispatch"
                                                                                                   : "AQL packet");
  if (trace_slice.active()) {
    trace_slice.Arg("index", index);
    trace_slice.Arg("type", static_cast<int>(aql::TypeOf(header)));
    TraceFlowEnd(TraceCategory::kCompute, "enqueue", QueueSlotFlowId(queue_.ring_va, index));
  }
  // Every packet type the CP runs keeps its completion signal in the last eight bytes.
  static_assert(offsetof(aql::KernelDispatchPacket, completion_signal) == aql::kPacketBytes - 8 &&
                offsetof(aql::BarrierPacket, completion_signal) == aql::kPacketBytes - 8);
  uint64_t completion_signal = 0;
  std::memcpy(&completion_signal, raw + aql::kPacketBytes - 8, sizeof(completion_signal));
  // The firmware samples the property per packet; the start stamp is taken as the packet begins to run.
  const bool profiling = completion_signal != 0 && completion_signal % 8 == 0 && ProfilingEnabled();
  const uint64_t start = profiling ? queue_.clock.Now() : 0;
  Outcome outcome = Outcome::kDone;
  switch (aql::TypeOf(header)) {
    case PacketType::kKernelDispatch: {
      aql::KernelDispatchPacket packet;
      std::memcpy(&packet, raw, sizeof(packet));
      outcome = Dispatch(packet, slot_va, index);
      break;
    }
    case PacketType::kBarrierAnd:
    case PacketType::kBarrierOr: {
      aql::BarrierPacket packet;
      std::memcpy(&packet, raw, sizeof(packet));
      outcome = Barrier(packet);
      break;
    }
    default:
      return Error(QueueError::kUnsupportedPacket,
                   absl::StrCat("packet ", index, " type ", static_cast<int>(aql::TypeOf(header))));
  }
  if (outcome != Outcome::kDone) return outcome;
  if (profiling) {
    if (const Outcome stamped = Stamp(completion_signal, start, queue_.clock.Now()); stamped != Outcome::kDone) {
      return stamped;
    }
  }
  return Complete(index, header_and_setup, completion_signal);
}

ComputeEngine::Outcome ComputeEngine::Complete(uint64_t index, uint32_t header_and_setup, uint64_t completion_signal) {
  {
    GpuMemory::AccessScope scope(memory_);
    // Hand the slot back: INVALID first, then the read index that lets a producer reuse it.
    const uint64_t slot_va = queue_.ring_va + (index & (slots_ - 1)) * aql::kPacketBytes;
    uint32_t* header_word = TranslateWord<uint32_t>(memory_, slot_va);
    if (header_word == nullptr) return Fault(slot_va);
    std::atomic_ref<uint32_t>(*header_word)
        .store((header_and_setup & 0xffff0000u) | static_cast<uint32_t>(PacketType::kInvalid),
               std::memory_order_release);
    uint64_t* read_word = TranslateWord<uint64_t>(memory_, queue_.read_dispatch_id_va);
    if (read_word == nullptr) return Fault(queue_.read_dispatch_id_va);
    std::atomic_ref<uint64_t>(*read_word).store(index + 1, std::memory_order_release);
  }
  if (const Outcome signalled = Signal(completion_signal); signalled != Outcome::kDone) return signalled;
  Advance(index + 1);
  return Outcome::kDone;
}

ComputeEngine::Outcome ComputeEngine::Signal(uint64_t handle) {
  if (handle == 0) return Outcome::kDone;
  if (handle % 8 != 0) return Error(QueueError::kInvalidSignal, absl::StrCat("signal 0x", absl::Hex(handle)));
  uint64_t mailbox = 0;
  uint32_t event_id = 0;
  {
    GpuMemory::AccessScope scope(memory_);
    auto* value = TranslateWord<int64_t>(memory_, handle + aql::kSignalValueOffset);
    if (value == nullptr) return Fault(handle + aql::kSignalValueOffset);
    PublishThroughAliases();
    // The arrow to whoever waits for the new value starts before the value can be seen.
    if (TraceEnabled()) {
      const int64_t now = std::atomic_ref<int64_t>(*value).load(std::memory_order_relaxed) - 1;
      TraceFlowStart(TraceCategory::kCompute, "completion", SignalFlowId(handle, now));
    }
    std::atomic_ref<int64_t>(*value).fetch_sub(1, std::memory_order_acq_rel);
    if (std::optional<uint64_t> fault = ReadGpu(memory_, handle + aql::kSignalMailboxOffset, &mailbox, 8)) {
      return Fault(*fault);
    }
    if (mailbox == 0) return Outcome::kDone;
    if (std::optional<uint64_t> fault = ReadGpu(memory_, handle + aql::kSignalEventIdOffset, &event_id, 4)) {
      return Fault(*fault);
    }
    if (mailbox % 8 != 0) return Error(QueueError::kInvalidSignal, absl::StrCat("mailbox 0x", absl::Hex(mailbox)));
    // The device library's signal store writes the event id as one 64-bit release store, then interrupts.
    auto* slot = TranslateWord<uint64_t>(memory_, mailbox);
    if (slot == nullptr) return Fault(mailbox);
    std::atomic_ref<uint64_t>(*slot).store(event_id, std::memory_order_release);
  }
  if (callbacks_.on_signal_interrupt) callbacks_.on_signal_interrupt(event_id);
  return Outcome::kDone;
}

ComputeEngine::Outcome ComputeEngine::Barrier(const aql::BarrierPacket& packet) {
  const bool all = aql::TypeOf(packet.header) == PacketType::kBarrierAnd;
  for (const uint64_t handle : packet.dep_signal) {
    if (handle % 8 != 0) return Error(QueueError::kInvalidSignal, absl::StrCat("dependency 0x", absl::Hex(handle)));
  }
  auto backoff = std::chrono::microseconds(20);
  while (true) {
    bool any_met = false;
    bool all_met = true;
    {
      // One scope per look: the page table may change between looks, as between a real CP's reads.
      GpuMemory::AccessScope scope(memory_);
      for (const uint64_t handle : packet.dep_signal) {
        // A zero handle is a satisfied dependency for AND and an unsatisfied one for OR (hsa.h).
        if (handle == 0) continue;
        auto* value = TranslateWord<int64_t>(memory_, handle + aql::kSignalValueOffset);
        if (value == nullptr) return Fault(handle + aql::kSignalValueOffset);
        const bool met = std::atomic_ref<int64_t>(*value).load(std::memory_order_acquire) == 0;
        ObserveThroughAliases();  // the host may have set it through its own mapping
        any_met = any_met || met;
        all_met = all_met && met;
      }
    }
    if (all ? all_met : any_met) return Outcome::kDone;
    if (!SleepUnlessInterrupted(backoff)) return Outcome::kStopped;
    backoff = std::min(backoff * 2, std::chrono::microseconds(1000));
  }
}

ComputeEngine::Outcome ComputeEngine::Dispatch(const aql::KernelDispatchPacket& packet, uint64_t packet_va,
                                               uint64_t index) {
  unsigned char descriptor[64];
  {
    GpuMemory::AccessScope scope(memory_);
    if (std::optional<uint64_t> fault = ReadGpu(memory_, packet.kernel_object, descriptor, sizeof(descriptor))) {
      return Fault(*fault);
    }
  }
  blit::KernelDescriptor blit_descriptor;
  std::memcpy(&blit_descriptor, descriptor, sizeof(blit_descriptor));
  if (blit_descriptor.magic == blit::kDescriptorMagic || !queue_.isa.has_value()) {
    return DispatchBlit(packet, blit_descriptor);
  }
  return DispatchIsa(packet, packet_va, index, descriptor);
}

ComputeEngine::Outcome ComputeEngine::DispatchIsa(const aql::KernelDispatchPacket& packet, uint64_t packet_va,
                                                  uint64_t index, const unsigned char (&descriptor)[64]) {
  gfx9::DispatchRequest request;
  request.target = *queue_.isa;
  request.packet = packet;
  request.packet_va = packet_va;
  request.queue_va = amd_queue_base_.value_or(0);
  request.dispatch_id = index;
  request.shared_aperture_base = queue_.shared_aperture_base;
  request.private_aperture_base = queue_.private_aperture_base;
  request.gws = gws_.Get();
  absl::StatusOr<std::unique_ptr<gfx9::KernelDispatch>> dispatch;
  // A single-use scratch served the dispatch it was grown for: the runtime sizes a new one for this dispatch.
  const gpu_abi::amdhsa::KernelDescriptor kd = gpu_abi::amdhsa::KernelDescriptor::FromBytes(descriptor);
  const bool spent = ScratchIsSpent(index, std::max(packet.private_segment_size, kd.private_segment_fixed_size));
  if (spent) {
    if (const Outcome grown = AwaitScratch("the queue's single-use scratch served another dispatch");
        grown != Outcome::kDone) {
      return grown;
    }
    scratch_grown_for_ = index;
  }
  for (bool retried = spent;; retried = true) {
    if (amd_queue_base_.has_value()) {
      if (std::optional<uint64_t> fault = ReadScratchRing(&request.scratch)) return Fault(*fault);
    }
    dispatch = gfx9::KernelDispatch::Create(memory_, request, kd);
    // Too little scratch: once, ask the runtime for more and try again; a second time, its scratch still does not
    // fit the dispatch (a kernel descriptor asking for more than the packet's private_segment_size, which ROCr
    // sizes the new scratch by), and the dispatch is refused.
    if (dispatch.ok() || !absl::IsResourceExhausted(dispatch.status()) || retried) break;
    if (const Outcome grown = AwaitScratch(std::string(dispatch.status().message())); grown != Outcome::kDone) {
      return grown;
    }
    scratch_grown_for_ = index;
  }
  if (!dispatch.ok()) {
    return Error(absl::IsFailedPrecondition(dispatch.status()) ? QueueError::kInvalidKernelObject
                                                               : QueueError::kInvalidDispatch,
                 std::string(dispatch.status().message()));
  }
  gfx9::KernelDispatch& d = **dispatch;
  const std::function<bool()> stop = [this] { return interrupted(); };
  // Each worker plays its share of the device's compute units, holding their resident workgroups (so a grid that
  // fits the device's resident capacity, as a cooperative launch does, has every workgroup making progress).
  // Workgroups go out in order; a failure halts the dispatch (KernelDispatch stops every unit).
  const uint32_t workers = static_cast<uint32_t>(units_->size());
  const uint32_t units_per_worker = (cu_count_ + workers - 1) / workers;
  units_->RunOnWorkers(d.workgroup_count(), [&](const WorkerPool::Claim& claim) {
    d.RunUnits(units_per_worker, [&]() -> std::optional<uint64_t> {
      if (interrupted()) return std::nullopt;
      return claim();
    }, stop);
  });
  instructions_.fetch_add(d.instructions(), std::memory_order_relaxed);
  if (interrupted()) return Outcome::kStopped;
  if (std::optional<gfx9::DispatchFailure> failure = d.failure()) {
    if (failure->fault_va.has_value()) return Fault(*failure->fault_va);
    if (failure->trap.has_value()) {
      return Error(QueueError::kTrap,
                   absl::StrCat("s_trap ", failure->trap->id, " at 0x", absl::Hex(failure->trap->pc)));
    }
    return Error(QueueError::kIllegalInstruction, failure->illegal);
  }
  return Outcome::kDone;
}

ComputeEngine::Outcome ComputeEngine::DispatchBlit(const aql::KernelDispatchPacket& packet,
                                                   const blit::KernelDescriptor& descriptor) {
  if (aql::Dimensions(packet.setup) != 1 || packet.workgroup_size_x == 0 || packet.grid_size_x == 0 ||
      packet.workgroup_size_y != 1 || packet.workgroup_size_z != 1 || packet.grid_size_y != 1 ||
      packet.grid_size_z != 1) {
    return Error(QueueError::kInvalidDispatch,
                 absl::StrCat("setup ", packet.setup, " workgroup ", packet.workgroup_size_x, "x",
                              packet.workgroup_size_y, "x", packet.workgroup_size_z, " grid ", packet.grid_size_x, "x",
                              packet.grid_size_y, "x", packet.grid_size_z));
  }
  Blit blit{};
  {
    GpuMemory::AccessScope scope(memory_);
    const uint32_t kernarg_size = blit::KernargSize(descriptor.kernel_id);
    if (descriptor.magic != blit::kDescriptorMagic || descriptor.version != blit::kDescriptorVersion ||
        kernarg_size == 0 || descriptor.kernarg_size != kernarg_size) {
      return Error(QueueError::kInvalidKernelObject,
                   absl::StrCat("kernel_object 0x", absl::Hex(packet.kernel_object), " magic 0x",
                                absl::Hex(descriptor.magic), " version ", descriptor.version, " kernel ",
                                descriptor.kernel_id, " kernarg_size ", descriptor.kernarg_size));
    }
    blit.id = static_cast<KernelId>(descriptor.kernel_id);
    if (blit.id == KernelId::kCopy) {
      blit::CopyArgs args;
      if (std::optional<uint64_t> fault = ReadGpu(memory_, packet.kernarg_address, &args, sizeof(args))) {
        return Fault(*fault);
      }
      blit.src = args.src;
      blit.dst = args.dst;
      blit.bytes = args.bytes;
    } else {
      blit::FillArgs args;
      if (std::optional<uint64_t> fault = ReadGpu(memory_, packet.kernarg_address, &args, sizeof(args))) {
        return Fault(*fault);
      }
      blit.dst = args.dst;
      blit.bytes = args.bytes;
      blit.pattern = blit.id == KernelId::kFill ? args.pattern : (args.pattern & 0xff) * 0x01010101u;
    }
  }
  if (blit.id == KernelId::kFill && (blit.dst % 4 != 0 || blit.bytes % 4 != 0)) {
    return Error(QueueError::kInvalidKernarg,
                 absl::StrCat("dword fill of ", blit.bytes, " bytes at 0x", absl::Hex(blit.dst)));
  }

  // The first fault in workgroup order is the one reported, whatever order the units hit faults in: every
  // workgroup below a faulting one was already handed out (they go out in order) and still runs.
  std::mutex fault_mu;
  uint64_t fault_workgroup = std::numeric_limits<uint64_t>::max();  // guarded by fault_mu
  uint64_t fault_va = 0;                                            // guarded by fault_mu
  std::atomic<uint64_t> first_fault{std::numeric_limits<uint64_t>::max()};
  const uint64_t workgroups = (uint64_t{packet.grid_size_x} + packet.workgroup_size_x - 1) / packet.workgroup_size_x;
  const std::function<void(uint64_t)> workgroup = [&](uint64_t w) {
    if (interrupted() || first_fault.load(std::memory_order_relaxed) < w) return;
    const blit::ByteRange range =
        blit::WorkgroupRange(blit.id, blit.bytes, packet.grid_size_x, packet.workgroup_size_x, w);
    std::optional<uint64_t> fault;
    {
      GpuMemory::AccessScope scope(memory_);
      fault = blit.Run(memory_, range);
    }
    if (!fault.has_value()) return;
    std::lock_guard<std::mutex> lock(fault_mu);
    if (w < fault_workgroup) {
      fault_workgroup = w;
      fault_va = *fault;
      first_fault.store(w, std::memory_order_relaxed);
    }
  };
  units_->Run(workgroups, workgroup);
  if (interrupted()) return Outcome::kStopped;
  std::optional<uint64_t> fault;
  {
    std::lock_guard<std::mutex> lock(fault_mu);
    if (fault_workgroup != std::numeric_limits<uint64_t>::max()) fault = fault_va;
  }
  if (fault.has_value()) return Fault(*fault);
  bytes_moved_.fetch_add(blit.bytes, std::memory_order_relaxed);
  return Outcome::kDone;
}

}  // namespace hipmem::kfd_sim
