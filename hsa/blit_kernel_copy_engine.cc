#include "hsa/blit_kernel_copy_engine.h"

#include <atomic>
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
#include "gpu_abi/blit_kernels.h"
#include "hsa/engine_completion.h"
#include "hsa/gpu_access.h"
#include "thunk/events.h"
#include "thunk/queues.h"

namespace hipmem::hsa {
namespace {

namespace aql = ::hipmem::gpu_abi::aql;
namespace blit = ::hipmem::gpu_abi::blit;
using thunk::MemFlags;

constexpr MemFlags kSystemFlags = MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kUncached | MemFlags::kExecuteAccess;
constexpr Bytes kRingBytes = Bytes(uint64_t{BlitKernelCopyEngine::kRingPackets} * aql::kPacketBytes);

// The control block, one 4 KiB page of GPU-mapped system memory: amd_queue_t's dispatch ids, the copy
// kernel's descriptor, one kernarg block and the completion signal.
constexpr uint64_t kReadIdOffset = 0;
constexpr uint64_t kWriteIdOffset = 8;
constexpr uint64_t kDescriptorOffset = 64;
constexpr uint64_t kKernargOffset = 128;
constexpr uint64_t kSignalOffset = 192;
constexpr Bytes kControlBytes = Bytes::KiB(4);
constexpr int64_t kAmdSignalKindUser = 1;

}  // namespace

struct BlitKernelCopyEngine::Channel {
  DeviceAddress ring{0};
  DeviceAddress control{0};
  thunk::Queue queue;
  thunk::Event done;
  thunk::Event faults;
  uint64_t next_index = 0;

  char* at(uint64_t offset) const { return static_cast<char*>(control.ToPointer()) + offset; }
};

BlitKernelCopyEngine::BlitKernelCopyEngine(thunk::Kfd& kfd, thunk::NodeId gpu) : kfd_(kfd), gpu_(gpu) {}

BlitKernelCopyEngine::~BlitKernelCopyEngine() {
  ScopedLock lock(&mu_);
  DropChannel();
}

void BlitKernelCopyEngine::DropChannel() {
  if (channel_ == nullptr) return;
  // The queue goes first: its CP may not read the ring or the control block after they are freed.
  if (absl::Status s = std::move(channel_->queue).Destroy(); !s.ok()) HIPMEM_LOG(kError, "blit queue: ", s.message());
  for (DeviceAddress a : {channel_->ring, channel_->control}) {
    if (absl::Status s = kfd_.FreeMemory(a); !s.ok()) HIPMEM_LOG(kError, "blit queue memory: ", s.message());
  }
  channel_.reset();
}

absl::Status BlitKernelCopyEngine::EnsureChannel() {
  if (channel_ != nullptr) return absl::OkStatus();
  const std::span<const thunk::NodeId> just_gpu(&gpu_, 1);
  ASSIGN_OR_RETURN(const DeviceAddress ring, kfd_.AllocMemory(thunk::NodeId(0), kRingBytes, kSystemFlags));
  absl::Cleanup free_ring = [&] { (void)kfd_.FreeMemory(ring); };
  ASSIGN_OR_RETURN(const DeviceAddress control, kfd_.AllocMemory(thunk::NodeId(0), kControlBytes, kSystemFlags));
  absl::Cleanup free_control = [&] { (void)kfd_.FreeMemory(control); };
  RETURN_IF_ERROR(kfd_.MapMemoryToGpu(ring, just_gpu));
  RETURN_IF_ERROR(kfd_.MapMemoryToGpu(control, just_gpu));

  // A fresh ring holds INVALID packets; the code object holds the copy kernel's descriptor.
  for (uint32_t slot = 0; slot < kRingPackets; ++slot) {
    aql::InvalidateSlot(static_cast<char*>(ring.ToPointer()) + uint64_t{slot} * aql::kPacketBytes);
  }
  char* base = static_cast<char*>(control.ToPointer());
  const blit::KernelDescriptor descriptor = blit::MakeDescriptor(blit::KernelId::kCopy);
  std::memcpy(base + kDescriptorOffset, &descriptor, sizeof(descriptor));

  ASSIGN_OR_RETURN(thunk::Queue queue,
                   thunk::Queue::Create(kfd_, thunk::QueueSpec{.node = gpu_,
                                                               .type = thunk::QueueType::kComputeAql,
                                                               .percentage = 100,
                                                               .priority = thunk::QueuePriority::kNormal,
                                                               .ring = ring,
                                                               .ring_size = kRingBytes,
                                                               .aql_read_pointer = control + Bytes(kReadIdOffset),
                                                               .aql_write_pointer = control + Bytes(kWriteIdOffset)}));
  ASSIGN_OR_RETURN(thunk::Event done,
                   thunk::Event::Create(kfd_, thunk::EventDescriptor{.type = thunk::EventType::kSignal, .node = gpu_}));
  ASSIGN_OR_RETURN(thunk::Event faults,
                   thunk::Event::Create(kfd_, thunk::EventDescriptor{.type = thunk::EventType::kMemory, .node = gpu_}));
  if (done.handle().mailbox == nullptr) return absl::FailedPreconditionError("blit queue: the signal event has no mailbox");
  aql::AmdSignal signal{};
  signal.kind = kAmdSignalKindUser;
  signal.event_mailbox_ptr = reinterpret_cast<uint64_t>(done.handle().mailbox);
  signal.event_id = done.handle().trigger_data;
  std::memcpy(base + kSignalOffset, &signal, sizeof(signal));

  std::move(free_ring).Cancel();
  std::move(free_control).Cancel();
  channel_ = std::unique_ptr<Channel>(new Channel{ring, control, std::move(queue), std::move(done), std::move(faults), 0});
  return absl::OkStatus();
}

absl::Status BlitKernelCopyEngine::Copy(DeviceAddress dst, DeviceAddress src, Bytes size) {
  ScopedLock lock(&mu_);
  RETURN_IF_ERROR(EnsureChannel());
  ASSIGN_OR_RETURN(const GpuAccess from, GpuAccess::Acquire(kfd_, gpu_, src, size));
  ASSIGN_OR_RETURN(const GpuAccess to, GpuAccess::Acquire(kfd_, gpu_, dst, size));
  Channel& ch = *channel_;

  const blit::CopyArgs args = blit::MakeCopyArgs(to.gpu_address().raw(), from.gpu_address().raw(), size.raw());
  std::memcpy(ch.at(kKernargOffset), &args, sizeof(args));
  std::atomic_ref<int64_t>(*reinterpret_cast<int64_t*>(ch.at(kSignalOffset + aql::kSignalValueOffset)))
      .store(1, std::memory_order_release);
  const uint64_t index = ch.next_index++;
  const uint64_t gpu_control = ch.control.raw();
  aql::WritePacket(static_cast<char*>(ch.ring.ToPointer()) + (index % kRingPackets) * aql::kPacketBytes,
                   blit::MakeDispatch(gpu_control + kDescriptorOffset, gpu_control + kKernargOffset, size.raw(),
                                      gpu_control + kSignalOffset));
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(ch.at(kWriteIdOffset))).store(index + 1, std::memory_order_release);
  ch.queue.RingDoorbell(index);  // AQL doorbells carry the index of the packet just published

  if (absl::Status s = WaitForEngine(ch.done, ch.faults, "a blit-kernel copy"); !s.ok()) {
    if (absl::IsDataLoss(s)) DropChannel();  // the queue halted; the next copy builds a new one
    return s;
  }
  const int64_t value =
      std::atomic_ref<int64_t>(*reinterpret_cast<int64_t*>(ch.at(kSignalOffset + aql::kSignalValueOffset))).load();
  if (value != 0) return absl::InternalError(absl::StrCat("blit completion signal reads ", value, " after its interrupt"));
  return absl::OkStatus();
}

}  // namespace hipmem::hsa
