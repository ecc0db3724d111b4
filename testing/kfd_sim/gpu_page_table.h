// One GPU's page table in one simulated process: which GPU virtual addresses that GPU's engines can
// reach, and the pages behind them.
//
// Plays amdgpu_vm for one process on one device, as KFD's MAP/UNMAP_MEMORY_TO/FROM_GPU drive it. The
// ioctl side changes it (Map/Unmap, under the process lock); the simulated engines read it through the
// GpuMemory interface. A change waits until no engine is inside an access scope, as the kernel waits for
// the VM's fences before it invalidates page-table entries, so an engine never copies through a mapping
// that is being removed.
//
// A doorbell slice mapped on the GPU (libhsakmt maps the DOORBELL buffer for GPU access at its CPU address, so a
// queue can ring another queue: kfdtest's GPUDoorbellWrite) is the doorbell BAR as the GPU sees it: a store into it
// rings. The engines write through their own view of the pages, which no doorbell watch sees, so the page table
// notes every doorbell range an access scope translated and, as the scope closes, announces the words to the
// engines asleep on them (NotifyDoorbellStores). A scope that only read them causes a spurious wake, no more.
#ifndef HIPMEM_TESTING_KFD_SIM_GPU_PAGE_TABLE_H_
#define HIPMEM_TESTING_KFD_SIM_GPU_PAGE_TABLE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "base/address_range_map.h"
#include "base/units.h"
#include "testing/kfd_sim/bo_pages.h"
#include "testing/kfd_sim/engines/gpu_memory.h"

namespace hipmem::kfd_sim {

// What a mapped range translates to: the buffer's pages (VRAM, GTT, doorbell), or the caller's own
// memory at `userptr` (USERPTR buffers: the simulator shares the caller's address space).
struct PageSource {
  std::shared_ptr<BoPages> pages;  // null for USERPTR
  uint64_t userptr = 0;            // USERPTR: the CPU address of the range's first byte
  bool doorbell = false;           // `pages` is a doorbell slice: a store rings
};

// The process's shared-virtual-memory ranges as one GPU's page table sees them (svm_space.h): what a VA that no
// buffer maps translates to. An engine's access scope holds the SVM side's access too, so a migration waits for
// it as an unmap does. Thread-safe.
class SvmTranslator {
 public:
  virtual ~SvmTranslator() = default;
  virtual void BeginGpuAccess() = 0;
  virtual void EndGpuAccess() = 0;
  // Returns the host bytes behind `va` for GPU `gpu_index`, or nullopt (a VM fault). Inside an access scope.
  virtual std::optional<GpuMemory::Span> TranslateForGpu(size_t gpu_index, uint64_t va, uint64_t bytes) = 0;
};

// Thread-safe: Map/Unmap/queries may run concurrently with engines' Translate.
class GpuPageTable final : public GpuMemory {
 public:
  // Maps `range` (page-aligned) of buffer `handle` onto `source`.
  // Errors: AddressRangeMap::Insert's (kAlreadyExists for a conflict with another mapping, kInvalidArgument for
  // an empty or wrapping range).
  absl::Status Map(AddressRange range, uint64_t handle, PageSource source);
  // Removes the mapping that is exactly `range` for `handle`. Errors: kNotFound.
  absl::Status Unmap(AddressRange range, uint64_t handle);

  bool Covers(AddressRange range) const;
  // Returns whether any buffer mapping shares a byte with `range`.
  bool Overlaps(AddressRange range) const;
  size_t size() const;

  // Sends the VAs no buffer maps to `svm` as GPU `gpu_index` (SVM: GPU VA == CPU VA). Not owned; must outlive
  // every later access scope, or be detached (null) first. Waits for open access scopes.
  void AttachSvm(SvmTranslator* svm, size_t gpu_index);

  std::optional<Span> Translate(uint64_t va, uint64_t bytes) override;

 protected:
  void BeginAccess() override;
  // Announces the doorbells the scope may have written, then lets changes in.
  void EndAccess() override;

 private:
  struct Mapping {
    uint64_t handle;
    PageSource source;
  };

  // Shared by engines for a packet's accesses; exclusive for changes. (std::shared_mutex, not absl: its
  // waits must be visible to ThreadSanitizer, and engines lock it through the GpuMemory hooks.)
  mutable std::shared_mutex mu_;
  AddressRangeMap<Mapping> mappings_;
  SvmTranslator* svm_ ABSL_GUARDED_BY(mu_) = nullptr;  // not owned
  size_t svm_gpu_index_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_GPU_PAGE_TABLE_H_
