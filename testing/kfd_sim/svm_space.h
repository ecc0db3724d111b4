// One simulated KFD process's shared-virtual-memory ranges: their attributes, where their pages live, and which
// GPUs map them.
//
// Plays amdkfd's svm_range_list (kfd_svm.c) with kfd_migrate.c's page migration. An SVM range is a page-aligned
// piece of the process's own CPU address space (GPU VA == CPU VA) that AMDKFD_IOC_SVM SET_ATTR gave attributes;
// ranges split where a SET_ATTR covers part of one and merge again where neighbours end up alike and both live in
// system memory. GET_ATTR answers over any page-aligned range as the kernel does (UNDEFINED where the covered
// ranges disagree on a location, the intersection of their flags, the smallest granularity).
//
// Residency. A range lives in system memory -- its pages are the process's own, at its CPU address -- or in one
// GPU's VRAM: a range of a page file of this process (bo_pages.h), charged to that GPU as AVAILABLE_MEMORY
// reports it. PREFETCH_LOC migrates: system memory -> VRAM copies the pages out, VRAM -> VRAM copies them across,
// VRAM -> system memory copies them back. As the kernel does (svm_range_trigger_migration), a migration to VRAM
// that cannot get the VRAM leaves the range where it was and SET_ATTR still succeeds.
//
// The CPU can always touch managed memory, as with HMM: a range living in VRAM comes back on a CPU touch. The
// mechanism is userfaultfd in MISSING mode, which is safe inside a library (no signal handler, nothing the
// application's own handlers can see): moving a range to VRAM registers its CPU pages with one process-wide
// userfaultfd and drops them (MADV_DONTNEED); a CPU touch then blocks in the kernel while a handler thread copies
// the granule around the address (1 << granularity pages, within the range) back from VRAM with UFFDIO_COPY,
// which wakes the toucher, returns the VRAM, and unregisters those pages. Only private anonymous memory can work
// this way (a shared mapping keeps its page cache); other memory, and a process without userfaultfd, keep their
// ranges in system memory: a prefetch to a GPU then records PREFETCH_LOC and migrates nothing, which the log says
// once. Where only UFFD_USER_MODE_ONLY is allowed (unprivileged, vm.unprivileged_userfaultfd=0), a system call
// that reads or writes a VRAM-resident range (read(2) into it, for instance) fails with EFAULT instead of
// bringing it back; a forked child's copy of a VRAM-resident range reads zeroes (no UFFD_FEATURE_EVENT_FORK).
// Departures, deliberately: a CPU store racing with the migration of its range to VRAM may be lost (the kernel's
// migrate_vma locks the pages).
//
// munmap. As the kernel's MMU notifier does (svm_range_unmap_from_cpu), a munmap of all or part of a range drops
// that part: its GPU mappings and its VRAM go, and a buffer may then take the VA (kfdtest's
// PartialUnmapSysMemTest). The same userfaultfd reports it: every range is registered in write-protect mode when
// it is made (which alone makes no fault) and the kernel reports its munmap (UFFD_FEATURE_EVENT_UNMAP); the
// handler notes it, and the next ioctl that looks at the ranges applies it first. Departures: the kernel drops
// the range before the pages go, here an engine may still reach them between the munmap and that next ioctl (a
// process unmapping memory its GPU is using); memory userfaultfd cannot register (file mappings), and a process
// without userfaultfd, keep their ranges after a munmap, as before; a forked child's ranges are not watched; and
// a range made over memory that another KFD process of the same OS process keeps in VRAM re-registers those pages
// for munmap only (one registration per page), so their CPU touch reads zeroes (a test-only situation: a real
// process has one KFD process).
//
// GPU access. Each range records which GPUs' page tables map it. XNACK off: SET_ATTR maps it on every GPU with
// ACCESS or ACCESS_IN_PLACE (svm_range_validate_and_map) and an access from any other GPU is a VM fault. XNACK
// on: SET_ATTR maps it on the ACCESS_IN_PLACE GPUs, on the GPU it lives on if that one has ACCESS, and on all ACCESS
// GPUs with GPU_ALWAYS_MAPPED; an access from another GPU with ACCESS is a recoverable fault: the range is mapped
// where it lies (the kernel may migrate it to the faulting GPU first) and the access retried. A GPU with
// NO_ACCESS, or one that cannot reach the VRAM the range lives in, faults for good either way. A migration
// leaves the mappings the rule above gives, so under XNACK the other GPUs fault again, as after the kernel's
// eviction. A VA in no range at all is a VM fault (the kernel, under XNACK, makes a range for any valid CPU
// address a GPU touches). Mapping system memory checks first that the CPU may write all of it (hmm_range_fault's
// condition): PROT_NONE or read-only memory is not mapped (SET_ATTR -EFAULT; under XNACK a VM fault), so an
// engine never stores where the process would crash. Deliberately, the pages are not faulted in then (the kernel's
// hmm_range_fault does, whole): they come on first touch, by the CPU or an engine, so a large managed range costs
// the host only what is used of it (issue #24). Deliberately, read-only memory is refused even for a GPU_RO
// range (the simulated engines do not enforce GPU_RO), and a protection changed after mapping is not noticed.
#ifndef HIPMEM_TESTING_KFD_SIM_SVM_SPACE_H_
#define HIPMEM_TESTING_KFD_SIM_SVM_SPACE_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "base/units.h"
#include "kfd_uapi/kfd_svm.h"
#include "testing/kfd_sim/bo_pages.h"
#include "testing/kfd_sim/engines/gpu_memory.h"
#include "testing/kfd_sim/gpu_page_table.h"
#include "testing/kfd_sim/shared_resources.h"
#include "testing/kfd_sim/sim_log.h"

namespace hipmem::kfd_sim {

// The kernel's default granularity (svm_default_granularity): 2^9 pages, 2 MiB, and its ceiling on the attribute.
inline constexpr uint32_t kSvmDefaultGranularity = 9;
inline constexpr uint32_t kSvmMaxGranularity = 0x3f;

// One GPU as the SVM ranges see it.
struct SvmGpu {
  uint32_t gpu_id;
  uint64_t reaches;  // bit j: this GPU reaches GPU j's VRAM (itself, or an XGMI / PCIe peer link)
};

// What an SVM range is, for tests and the log.
struct SvmRangeInfo {
  AddressRange range;
  std::optional<size_t> vram_gpu;  // the GPU whose VRAM holds it; nullopt: system memory
  uint64_t mapped;                 // bit i: GPU i's page table maps it
  uint32_t preferred_loc;
  uint32_t prefetch_loc;
};

namespace svm_detail {

struct Attributes {
  uint32_t preferred_loc = kfd_uapi::kSvmLocationUndefined;
  uint32_t prefetch_loc = kfd_uapi::kSvmLocationUndefined;
  uint64_t access = 0;    // bit i: GPU i has ACCESS
  uint64_t in_place = 0;  // bit i: GPU i has ACCESS_IN_PLACE
  uint32_t flags = kfd_uapi::ToRaw(kfd_uapi::SvmFlags::kHostAccess) | kfd_uapi::ToRaw(kfd_uapi::SvmFlags::kCoherent);
  uint32_t granularity = kSvmDefaultGranularity;
  bool operator==(const Attributes&) const = default;
};
// Copyable holder of the mapped-GPU bits, which engines set under the shared lock (a recoverable fault).
struct MappedBits {
  MappedBits() = default;
  explicit MappedBits(uint64_t v) : bits(v) {}
  MappedBits(const MappedBits& other) : bits(other.bits.load(std::memory_order_relaxed)) {}
  MappedBits& operator=(const MappedBits& other) {
    bits.store(other.bits.load(std::memory_order_relaxed), std::memory_order_relaxed);
    return *this;
  }
  std::atomic<uint64_t> bits{0};
};
struct Range {
  uint64_t end = 0;  // exclusive
  Attributes attrs;
  std::optional<size_t> vram_gpu;   // nullopt: system memory
  std::shared_ptr<BoPages> pages;   // VRAM: the pages, shared by the pieces of a split range
  uint64_t pages_offset = 0;        // VRAM: where this range's first byte is in `pages`
  MappedBits mapped;
};
}  // namespace svm_detail

// Thread-safe. Ioctls and the CPU-fault handler change it under an exclusive lock; engines read it inside
// their access scopes (SvmTranslator), which hold it shared, so a migration waits for every open scope.
class SvmSpace final : public SvmTranslator, public std::enable_shared_from_this<SvmSpace> {
 public:
  // `shared` and `log` are not owned and must outlive this; `process_id` names the process in log lines.
  static std::shared_ptr<SvmSpace> Create(std::vector<SvmGpu> gpus, SharedResources* shared, SimLog* log,
                                          uint64_t process_id, bool xnack_enabled);
  // Closes (below).
  ~SvmSpace() override;
  // Brings every VRAM-resident range back to system memory (the application may go on using its memory after
  // closing /dev/kfd) and returns the VRAM. The process's teardown calls it, so the VRAM is free when close()
  // returns even while the CPU-fault handler still holds this object for a moment.
  void Close();
  SvmSpace(const SvmSpace&) = delete;
  SvmSpace& operator=(const SvmSpace&) = delete;

  // svm_range_check_attr: returns 0, or -EINVAL for an unknown attribute type or a gpu_id not of this process.
  int CheckSetAttrs(std::span<const kfd_uapi::SvmAttribute> attrs) const;
  // The range half of svm_range_is_valid: returns 0, -EINVAL (the range wraps) or -EFAULT (a page of it is not
  // mapped in the process). The caller adds the buffer half (-EADDRINUSE: a GPU maps a buffer there).
  static int CheckRange(uint64_t start, uint64_t size);
  // SET_ATTR over [start, start + size), checked already (alignment, non-zero size, CheckSetAttrs, CheckRange):
  // applies `attrs` in order to every range there (making and splitting ranges as needed), migrates on a
  // PREFETCH_LOC, updates the GPU mappings. Returns 0, or -EFAULT when system memory a GPU should map cannot be
  // written (the attributes stay applied, that GPU unmapped).
  int SetAttr(uint64_t start, uint64_t size, std::span<const kfd_uapi::SvmAttribute> attrs);
  // GET_ATTR over [start, start + size), range checked already: fills in `attrs` (an ACCESS query's type becomes
  // the answer). Returns 0, or -EINVAL (ACCESS_IN_PLACE, NO_ACCESS or an unknown type asked; an ACCESS query's
  // gpu_id not of this process).
  int GetAttr(uint64_t start, uint64_t size, std::span<kfd_uapi::SvmAttribute> attrs);

  // SET_XNACK_MODE changed the process's mode.
  void SetXnack(bool enabled) { xnack_.store(enabled, std::memory_order_relaxed); }
  // Returns whether any range shares a byte with `range` (ALLOC refuses such a VA with -EADDRINUSE).
  bool Overlaps(AddressRange range);
  // Returns every range, ascending.
  std::vector<SvmRangeInfo> Ranges();
  // The CPU-fault handler: the process unmapped [start, end). Applied by the next call that looks at the ranges
  // (it may come while the ranges are locked, by the unmapping thread itself).
  void NoteUnmap(uint64_t start, uint64_t end);

  // The CPU-fault handler: if `page` lies in one of this process's ranges living in VRAM, brings its granule back
  // and wakes the toucher: kHandled. kNotMine: no range here has it in VRAM. kBusy: the ranges are locked (an ioctl
  // or an engine scope), ask again later; never waits for the lock, whose holder may be the toucher itself.
  enum class FaultAnswer { kHandled, kNotMine, kBusy };
  FaultAnswer HandleCpuFault(uint64_t page);

  // SvmTranslator.
  void BeginGpuAccess() override { mu_.lock_shared(); }
  void EndGpuAccess() override { mu_.unlock_shared(); }
  std::optional<GpuMemory::Span> TranslateForGpu(size_t gpu_index, uint64_t va, uint64_t bytes) override;

 private:
  using Attributes = svm_detail::Attributes;
  using Range = svm_detail::Range;
  using RangeMap = absl::btree_map<uint64_t, Range>;  // by start

  SvmSpace(std::vector<SvmGpu> gpus, SharedResources* shared, SimLog* log, uint64_t process_id, bool xnack);

  std::optional<size_t> GpuIndex(uint32_t gpu_id) const;
  // Splits the range holding `addr` (if any) so that one starts there.
  void SplitAt(uint64_t addr);
  // Fills the holes of [start, end) with fresh ranges of the default attributes, watched for munmap.
  void FillHoles(uint64_t start, uint64_t end);
  // Drops every range's part the process unmapped since the last call (NoteUnmap). Takes mu_.
  void ApplyUnmaps();
  void MergeAround(uint64_t start, uint64_t end);
  // The mappings the kernel's validate-and-map gives `r` now.
  uint64_t MappingsFor(const Range& r) const;
  bool Reaches(size_t gpu, const Range& r) const;
  // Moves `r` (starting at `start`) to `gpu`'s VRAM or to system memory (nullopt). Returns whether it moved.
  bool MigrateToVram(uint64_t start, Range& r, size_t gpu, const char* why);
  bool MigrateToSystem(uint64_t start, Range& r, const char* why);
  void Log(const std::string& text);

  const std::vector<SvmGpu> gpus_;
  SharedResources* const shared_;  // Not owned; must outlive this.
  SimLog* const log_;              // Not owned; must outlive this.
  const uint64_t process_id_;
  std::atomic<bool> xnack_;
  std::vector<std::shared_ptr<PageFile>> vram_files_;  // by GPU; written at construction only

  // std::shared_mutex, not absl: engines lock it through the page table's access scope (as GpuPageTable's).
  mutable std::shared_mutex mu_;
  RangeMap ranges_ ABSL_GUARDED_BY(mu_);
  bool registered_with_handler_ ABSL_GUARDED_BY(mu_) = false;
  bool told_no_migration_ ABSL_GUARDED_BY(mu_) = false;
  bool told_no_watch_ ABSL_GUARDED_BY(mu_) = false;

  std::mutex unmapped_mu_;
  std::vector<std::pair<uint64_t, uint64_t>> unmapped_ ABSL_GUARDED_BY(unmapped_mu_);  // [start, end), oldest first
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_SVM_SPACE_H_
