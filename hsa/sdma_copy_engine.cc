#include "hsa/sdma_copy_engine.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/log.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "gpu_abi/sdma_packets.h"
#include "hsa/engine_completion.h"
#include "hsa/gpu_access.h"

namespace hipmem::hsa {
namespace {

namespace sdma = ::hipmem::gpu_abi::sdma;
using thunk::MemFlags;

// The ring: host-visible, uncached system memory every GPU may map (ROCr's system_allocator, executable).
constexpr MemFlags kRingFlags = MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kUncached | MemFlags::kExecuteAccess;
constexpr absl::Duration kCopyTimeout = absl::Minutes(1);  // for draining the ring

}  // namespace

struct SdmaCopyEngine::Channel {
  DeviceAddress ring{0};
  thunk::Queue queue;
  thunk::Event done;    // auto-reset signal event: the queue's FENCE + TRAP
  thunk::Event faults;  // MEMORY event: the queue's VM faults
  uint64_t wptr = 0;    // bytes written into the ring, monotonic
};

SdmaCopyEngine::SdmaCopyEngine(thunk::Kfd& kfd, thunk::NodeId gpu) : kfd_(kfd), gpu_(gpu) {}

SdmaCopyEngine::~SdmaCopyEngine() {
  ScopedLock lock(&mu_);
  DropChannel();
}

void SdmaCopyEngine::DropChannel() {
  if (channel_ == nullptr) return;
  // The queue goes first: its engine may not read the ring after it is freed.
  if (absl::Status s = std::move(channel_->queue).Destroy(); !s.ok()) HIPMEM_LOG(kError, "SDMA queue: ", s.message());
  if (absl::Status s = kfd_.FreeMemory(channel_->ring); !s.ok()) HIPMEM_LOG(kError, "SDMA ring: ", s.message());
  channel_.reset();
}

absl::Status SdmaCopyEngine::EnsureChannel() {
  if (channel_ != nullptr) return absl::OkStatus();
  const std::string context = absl::StrCat("SDMA copy engine of node ", gpu_.raw());
  ASSIGN_OR_RETURN(const DeviceAddress ring, kfd_.AllocMemory(thunk::NodeId(0), kRingSize, kRingFlags));
  absl::Cleanup free_ring = [&] { (void)kfd_.FreeMemory(ring); };
  const thunk::NodeId node = gpu_;
  RETURN_IF_ERROR(Annotate(kfd_.MapMemoryToGpu(ring, std::span<const thunk::NodeId>(&node, 1)), context));
  ASSIGN_OR_RETURN(thunk::Queue queue,
                   thunk::Queue::Create(kfd_, thunk::QueueSpec{.node = gpu_,
                                                               .type = thunk::QueueType::kSdma,
                                                               .percentage = 100,
                                                               .priority = thunk::QueuePriority::kMaximum,
                                                               .ring = ring,
                                                               .ring_size = kRingSize}));
  ASSIGN_OR_RETURN(thunk::Event done,
                   thunk::Event::Create(kfd_, thunk::EventDescriptor{.type = thunk::EventType::kSignal, .node = gpu_}));
  ASSIGN_OR_RETURN(thunk::Event faults,
                   thunk::Event::Create(kfd_, thunk::EventDescriptor{.type = thunk::EventType::kMemory, .node = gpu_}));
  if (done.handle().mailbox == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(context, ": the signal event has no mailbox"));
  }
  std::move(free_ring).Cancel();
  const uint64_t wptr = *queue.write_pointer();
  channel_ = std::unique_ptr<Channel>(new Channel{ring, std::move(queue), std::move(done), std::move(faults), wptr});
  return absl::OkStatus();
}

absl::Status SdmaCopyEngine::Copy(DeviceAddress dst, DeviceAddress src, Bytes size) {
  ScopedLock lock(&mu_);
  RETURN_IF_ERROR(EnsureChannel());
  ASSIGN_OR_RETURN(const GpuAccess from, GpuAccess::Acquire(kfd_, gpu_, src, size));
  ASSIGN_OR_RETURN(const GpuAccess to, GpuAccess::Acquire(kfd_, gpu_, dst, size));
  return Submit(to.gpu_address(), from.gpu_address(), size);
}

absl::Status SdmaCopyEngine::Submit(DeviceAddress dst, DeviceAddress src, Bytes size) {
  Channel& ch = *channel_;
  const uint64_t ring_bytes = kRingSize.raw();
  auto* ring = static_cast<char*>(ch.ring.ToPointer());
  // The whole command stream of this copy, then the completion signal.
  const uint64_t copies = (size.raw() + sdma::kMaxLinearBytes - 1) / sdma::kMaxLinearBytes;
  const uint64_t stream = copies * sizeof(sdma::CopyLinear) + sizeof(sdma::Fence) + sizeof(sdma::Trap);
  if (stream > ring_bytes) {
    // Larger than one ring's worth: copy it in pieces (each piece is a whole copy with its own signal).
    const Bytes piece(uint64_t{sdma::kMaxLinearBytes} * ((ring_bytes - 64) / sizeof(sdma::CopyLinear)));
    for (uint64_t done = 0; done < size.raw(); done += piece.raw()) {
      const Bytes n(std::min(piece.raw(), size.raw() - done));
      RETURN_IF_ERROR(Submit(DeviceAddress(dst.raw() + done), DeviceAddress(src.raw() + done), n));
    }
    return absl::OkStatus();
  }
  // Every earlier copy completed before its caller returned, but the engine writes its read pointer back
  // after the trap that woke us: wait until the ring is free again.
  const absl::Time deadline = absl::Now() + kCopyTimeout;
  while (std::atomic_ref<uint64_t>(*ch.queue.read_pointer()).load(std::memory_order_acquire) != ch.wptr) {
    if (absl::Now() > deadline) return absl::DeadlineExceededError("SDMA queue did not drain");
    std::this_thread::yield();
  }
  auto push = [&](const auto& packet) {
    const auto* bytes = reinterpret_cast<const char*>(&packet);
    for (size_t i = 0; i < sizeof(packet); i += 4) std::memcpy(ring + (ch.wptr + i) % ring_bytes, bytes + i, 4);
    ch.wptr += sizeof(packet);
  };
  for (uint64_t offset = 0; offset < size.raw(); offset += sdma::kMaxLinearBytes) {
    const auto n = static_cast<uint32_t>(std::min<uint64_t>(sdma::kMaxLinearBytes, size.raw() - offset));
    push(sdma::MakeCopy(dst.raw() + offset, src.raw() + offset, n));
  }
  const thunk::EventHandle& done = ch.done.handle();
  push(sdma::MakeFence(reinterpret_cast<uint64_t>(done.mailbox), done.trigger_data));
  push(sdma::MakeTrap(done.trigger_data));
  std::atomic_ref<uint64_t>(*ch.queue.write_pointer()).store(ch.wptr, std::memory_order_release);
  ch.queue.RingDoorbell(ch.wptr);

  if (absl::Status s = WaitForEngine(ch.done, ch.faults, "an SDMA copy"); !s.ok()) {
    if (absl::IsDataLoss(s)) DropChannel();  // the queue halted; the next copy builds a new one
    return s;
  }
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
