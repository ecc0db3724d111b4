// What every simulated process shares: each GPU's VRAM use against its capacity, system memory use
// (GTT + USERPTR buffers) against the host's, and the DRM mmap-offset space.
//
// Plays amdgpu's KFD memory limit (amdgpu_amdkfd_reserve_mem_limit / unreserve_mem_limit, which are
// global per device, not per process) and the drm_vma_offset_manager that hands out mmap offsets.
// Private to the simulator.
#ifndef HIPMEM_TESTING_KFD_SIM_SHARED_RESOURCES_H_
#define HIPMEM_TESTING_KFD_SIM_SHARED_RESOURCES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "testing/kfd_sim/dmabuf_table.h"
#include "testing/kfd_sim/ipc_table.h"

namespace hipmem::kfd_sim {

// Thread-safe.
class SharedResources {
 public:
  // `vram_capacity[i]` is GPU i's VRAM (topology order); `system_capacity` bounds GTT + USERPTR.
  SharedResources(std::vector<Bytes> vram_capacity, Bytes system_capacity);

  SharedResources(const SharedResources&) = delete;
  SharedResources& operator=(const SharedResources&) = delete;

  // Reserves `size` bytes of GPU `gpu_index`'s VRAM. Returns false, reserving nothing, when that would
  // exceed the capacity (the kernel's -ENOMEM).
  [[nodiscard]] bool TryReserveVram(size_t gpu_index, Bytes size);
  // Returns `size` bytes reserved earlier on GPU `gpu_index`.
  void ReleaseVram(size_t gpu_index, Bytes size);

  // Reserves `size` bytes of system memory for a GTT or USERPTR buffer; false when over capacity.
  [[nodiscard]] bool TryReserveSystem(Bytes size);
  void ReleaseSystem(Bytes size);

  Bytes VramCapacity(size_t gpu_index) const { return vram_capacity_[gpu_index]; }
  Bytes VramUsed(size_t gpu_index) const;
  // Returns VramCapacity - VramUsed: what AMDKFD_IOC_AVAILABLE_MEMORY reports.
  Bytes VramFree(size_t gpu_index) const;
  Bytes SystemCapacity() const { return system_capacity_; }
  Bytes SystemUsed() const;

  // Returns the start of a fresh, page-aligned range of `size` bytes in the mmap-offset space, never
  // handed out before; nullopt once the space is exhausted. One space serves every render node.
  std::optional<uint64_t> AllocateMmapOffset(Bytes size);

  // SDMA queue slots of GPU `gpu_index` (the device queue manager's sdma / xgmi_sdma bitmaps, global over
  // processes): takes one from the `xgmi` pool unless `capacity` are in use already (the kernel's -ENOMEM).
  [[nodiscard]] bool TryTakeSdmaQueue(size_t gpu_index, bool xgmi, uint32_t capacity);
  void ReturnSdmaQueue(size_t gpu_index, bool xgmi);

  // The dma-bufs exported by any process (dma-buf descriptors are the machine's, not a process's).
  DmaBufTable& dmabufs() { return dmabufs_; }
  // The IPC share handles of every process (the DKMS kernel's global kfd_ipc_handles).
  IpcTable& ipc() { return ipc_; }

 private:
  const std::vector<Bytes> vram_capacity_;
  const Bytes system_capacity_;

  mutable absl::Mutex mu_;
  std::vector<Bytes> vram_used_ ABSL_GUARDED_BY(mu_);
  Bytes system_used_ ABSL_GUARDED_BY(mu_);
  uint64_t next_mmap_offset_ ABSL_GUARDED_BY(mu_);
  absl::btree_map<std::pair<size_t, bool>, uint32_t> sdma_queues_ ABSL_GUARDED_BY(mu_);  // (gpu, xgmi) -> in use
  // Last: destroyed first, their objects' accounting returns to the counters above. The IPC table goes before the
  // dma-buf table: its objects hold dma-buf objects.
  DmaBufTable dmabufs_;
  IpcTable ipc_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_SHARED_RESOURCES_H_
