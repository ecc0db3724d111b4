// Copies with the GPU's built-in blit kernel on an AQL queue: ROCr's BlitKernel, which serves device-to-device
// copies inside one GPU's VRAM (rocm_facts.md §5.1: BlitDevToDev is always a blit kernel).
//
// On first use it creates a COMPUTE_AQL queue on the GPU (thunk::Queue with the runtime's own read/write
// dispatch ids, like amd_queue_t's), writes the copy kernel's descriptor (gpu_abi/blit_kernels.h) into
// GPU-mapped memory, and sets up a completion signal (amd_signal_t) whose event mailbox is a thunk signal
// event, plus a MEMORY event for VM faults. A copy writes the kernargs, publishes one KERNEL_DISPATCH packet,
// rings the doorbell with its index and sleeps until the signal's interrupt or a fault. Thread-safe; copies
// on one engine run one at a time.
#ifndef HIPMEM_HSA_BLIT_KERNEL_COPY_ENGINE_H_
#define HIPMEM_HSA_BLIT_KERNEL_COPY_ENGINE_H_

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "hsa/copy_engine.h"
#include "thunk/kfd.h"

namespace hipmem::hsa {

class BlitKernelCopyEngine final : public CopyEngine {
 public:
  // The blit engine of `gpu`. `kfd` must outlive it. Nothing is created until the first copy.
  BlitKernelCopyEngine(thunk::Kfd& kfd, thunk::NodeId gpu);
  ~BlitKernelCopyEngine() override;

  absl::string_view name() const override { return "blit kernel"; }

  // Errors as SdmaCopyEngine::Copy's, plus kInternal when the queue stopped on a queue error.
  absl::Status Copy(DeviceAddress dst, DeviceAddress src, Bytes size) override;

  static constexpr uint32_t kRingPackets = 64;

 private:
  struct Channel;

  absl::Status EnsureChannel() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropChannel() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  thunk::Kfd& kfd_;
  const thunk::NodeId gpu_;

  absl::Mutex mu_;
  std::unique_ptr<Channel> channel_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_BLIT_KERNEL_COPY_ENGINE_H_
