// Copies through one GPU's SDMA engine: the runtime's DMA path, as ROCr's BlitSdma serves hsa_memory_copy.
//
// On first use it creates an SDMA queue on the GPU (a ring in GPU-mapped system memory, thunk::Queue), a
// signal event whose mailbox the queue writes, and a MEMORY event that catches the queue's VM faults. A copy
// writes LINEAR_COPY packets (at most 1 GiB each), then the completion sequence ROCr uses -- a FENCE that
// writes the event id into the event's mailbox and a TRAP carrying it -- rings the doorbell and sleeps in
// WAIT_EVENTS until the event or a VM fault fires. The CPU never reads or writes the copied bytes.
//
// Both sides must be reachable by the GPU: memory the thunk allocated is mapped onto this GPU if it is not
// yet (another GPU's VRAM needs a link in the topology); host memory the thunk does not know is registered
// (USERPTR, the pages pinned) for the copy and deregistered afterwards, as ROCr pins an unregistered host
// buffer for a DMA. Thread-safe: copies on one engine run one at a time, in order.
#ifndef HIPMEM_HSA_SDMA_COPY_ENGINE_H_
#define HIPMEM_HSA_SDMA_COPY_ENGINE_H_

#include <memory>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "hsa/copy_engine.h"
#include "thunk/events.h"
#include "thunk/kfd.h"
#include "thunk/queues.h"

namespace hipmem::hsa {

class SdmaCopyEngine final : public CopyEngine {
 public:
  // The engine of `gpu`'s SDMA queue. `kfd` must outlive it. Nothing is created until the first copy.
  SdmaCopyEngine(thunk::Kfd& kfd, thunk::NodeId gpu);
  ~SdmaCopyEngine() override;

  absl::string_view name() const override { return "sdma"; }

  // Errors: setting up the queue (kResourceExhausted when the GPU's SDMA slots are taken, ...); mapping or
  // registering a side (the kernel's errno: kInvalidArgument when another GPU's VRAM has no link to this
  // one, ...); kDataLoss when the queue hit a VM fault (the fault's address in the message; the queue is
  // replaced on the next copy); kDeadlineExceeded when the engine does not answer within a minute.
  absl::Status Copy(DeviceAddress dst, DeviceAddress src, Bytes size) override;

  // Ring capacity: ROCr uses 1 MiB; 64 KiB holds more than 2000 copy packets, enough for any single copy.
  static constexpr Bytes kRingSize = Bytes::KiB(64);

 private:
  struct Channel;  // the queue, its ring and its two events

  absl::Status EnsureChannel() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropChannel() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status Submit(DeviceAddress dst, DeviceAddress src, Bytes size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  thunk::Kfd& kfd_;
  const thunk::NodeId gpu_;

  absl::Mutex mu_;
  std::unique_ptr<Channel> channel_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_SDMA_COPY_ENGINE_H_
