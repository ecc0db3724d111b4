// The SVM aperture: where the thunk places every GPU allocation in the process's address space.
//
// Plays libhsakmt's mmap aperture (fmm.c init_mmap_apertures), the model on GFX9+ whose GPUVM limit
// reaches 2^47: GPU VA == CPU VA, each allocation is an anonymous PROT_NONE, MAP_NORESERVE
// reservation aligned to the next power of two of its size (capped at HSA_MAX_VA_ALIGN, 2 MiB by
// default) with HSA_SVM_GUARD_PAGES (default 1) guard pages on each side.
//
// Deliberate: libhsakmt's mmap aperture munmaps a released range, so the next allocation pays for a new
// mmap (and the munmap before it). Here a released range of up to kMaxKeptSize (4 GiB) is instead turned back
// into a fresh reservation in one MAP_FIXED mmap over it, guard pages included (what libhsakmt's reserved
// aperture does on release), and handed to the next Reserve of the same size, which then costs no system
// call. Replacing the mapping drops whatever was there exactly as munmap does: the buffer's CPU mapping
// (and with it the kernel's reference to the BO) and any committed anonymous memory. Where the backend lets a
// freed buffer's CPU mapping stay (the simulator's, see KfdDevice::FreedBoCpuMappingMayStay), the range is instead
// kept after an mprotect(PROT_NONE), which is cheaper than replacing the mapping. At most kMaxKeptRanges ranges
// are kept; the rest, and every range once the object is destroyed, go back to the OS.
#ifndef HIPMEM_THUNK_SVM_APERTURE_H_
#define HIPMEM_THUNK_SVM_APERTURE_H_

#include <cstddef>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"

namespace hipmem::thunk {

inline constexpr Bytes kPageSize = Bytes::KiB(4);

// A range of GPU VA that an allocation occupies. Implemented by the apertures; Release takes back a range Reserve
// handed out. Thread-safe.
class VaSpace {
 public:
  virtual ~VaSpace() = default;
  virtual void Release(const AddressRange& range) = 0;
  // Release, for a range the caller vouches is exactly as Reserve handed it out: nothing was ever mapped over it
  // or touched in it (see VaReservation::MarkUnchanged). A space may then skip re-reserving it.
  virtual void ReleaseUnchanged(const AddressRange& range) { Release(range); }
  // Release, for a range the caller vouches holds exactly one freed buffer's CPU mapping that may stay once it is
  // inaccessible (see VaReservation::MarkRevocableMapping). A space may then revoke access in place instead of
  // replacing the mapping.
  virtual void ReleaseRevocable(const AddressRange& range) { Release(range); }
};

// Owns one range reserved in a VaSpace; the destructor releases it. Thread-compatible.
class VaReservation {
 public:
  // Adopts `range`, which `space` handed out. `space` is not owned and must outlive this.
  VaReservation(VaSpace* space, AddressRange range) : space_(space), range_(range) {}
  ~VaReservation() { Reset(); }
  VaReservation(VaReservation&& other) noexcept;
  VaReservation& operator=(VaReservation&& other) noexcept;
  VaReservation(const VaReservation&) = delete;
  VaReservation& operator=(const VaReservation&) = delete;

  // The reserved range; empty (size 0) once moved from or released.
  const AddressRange& range() const { return range_; }
  bool empty() const { return space_ == nullptr; }

  // Gives up ownership without releasing: the caller (or the kernel) now owns the range.
  [[nodiscard]] AddressRange Release() &&;

  // Vouches that the range is still the space's untouched reservation and will be when released: whatever was
  // placed in it left the reservation itself in place (a backend whose CPU "mapping" of invisible VRAM only
  // changes protection over it; see KfdDevice::InvisibleVramKeepsReservation). Releasing then uses
  // VaSpace::ReleaseUnchanged.
  void MarkUnchanged() { contents_ = Contents::kUnchanged; }

  // Vouches that, when released, the range holds one buffer's CPU mapping (freed by then) and nothing else, and
  // that the mapping may stay as the range's reservation once made inaccessible: the backend neither keeps the
  // buffer alive for it nor hands its pages to another buffer (KfdDevice::FreedBoCpuMappingMayStay). Releasing
  // then uses VaSpace::ReleaseRevocable.
  void MarkRevocableMapping() { contents_ = Contents::kRevocableMapping; }

 private:
  // What releasing must undo.
  enum class Contents : uint8_t { kAnything, kUnchanged, kRevocableMapping };

  void Reset();

  VaSpace* space_;  // Not owned; null when empty.
  AddressRange range_;
  Contents contents_ = Contents::kAnything;
};


// Hands out VA for buffers the CPU never maps (HsaMemFlags NoAddress: a VRAM buffer created without a GPU VA, to
// be mapped later through another API). The addresses are only names for the buffers in the thunk's tables, taken
// from a range of the non-canonical hole so that they can never be a CPU or GPUVM address: libhsakmt's
// mem_handle_aperture (fmm.c init_mem_handle_aperture). Thread-safe.
class HandleAperture : public VaSpace {
 public:
  // [base, base + size) must be a range no CPU pointer or GPU aperture reaches.
  HandleAperture(DeviceAddress base, Bytes size, uint64_t guard_pages);

  // Reserves `size` bytes (a page multiple, not 0), page aligned, guard pages apart from its neighbours.
  // kInvalidArgument for a size 0, not a page multiple or one that overflows; kResourceExhausted when full.
  absl::StatusOr<VaReservation> Allocate(Bytes size);
  void Release(const AddressRange& range) override;

  DeviceAddress base() const { return base_; }
  Bytes size() const { return size_; }

 private:
  const DeviceAddress base_;
  const Bytes size_;
  const Bytes guard_;
  mutable absl::Mutex mu_;
  absl::btree_map<uint64_t, uint64_t> used_ ABSL_GUARDED_BY(mu_);  // start -> size, guards included
};

// Owns the reservations it keeps for reuse. Thread-safe.
class SvmAperture : public VaSpace {
 public:
  // Released ranges kept for reuse: how many, and the largest (guard pages not counted). A kept range costs no
  // memory (PROT_NONE, MAP_NORESERVE, its pages dropped or punched), only address space: at most 128 GiB of the
  // 128 TiB a process has. Up to 4 GiB so a cold 1 GiB hipMalloc+hipFree pays no mmap and munmap of the whole
  // range each time (each walks the range's page tables: twice the cost of a 4 KiB pair, issue #9 §5).
  static constexpr size_t kMaxKeptRanges = 32;
  static constexpr Bytes kMaxKeptSize = Bytes::GiB(4);

  // [base, limit] is the GPUVM range every GPU of the process can address.
  SvmAperture(DeviceAddress base, DeviceAddress limit, Bytes max_alignment, uint64_t guard_pages);
  // Returns the kept reservations to the OS. Ranges still reserved are the caller's.
  ~SvmAperture();
  SvmAperture(const SvmAperture&) = delete;
  SvmAperture& operator=(const SvmAperture&) = delete;

  // Reserves `size` bytes (a page multiple) at an address aligned to `alignment` (zero: the
  // default rule above), reusing a kept range of that size and alignment when there is one. The caller owns the
  // range and gives it back with Release; Allocate hands it out in an owner instead.
  // kResourceExhausted when the OS has no room inside the aperture; kInvalidArgument for an
  // alignment that is not a power of two or a size that overflows.
  absl::StatusOr<AddressRange> Reserve(Bytes size, Bytes alignment);

  // Reserve, adopted by an owner that releases it.
  absl::StatusOr<VaReservation> Allocate(Bytes size, Bytes alignment);

  // Reserves exactly [address, address + size) and a guard page area on each side, as libhsakmt's mmap aperture
  // does for a fixed address (mmap with MAP_FIXED_NOREPLACE): it fails when anything is mapped there already,
  // except ranges this aperture keeps for reuse, which are free.
  // Deliberate: libhsakmt reserves no guard pages around a fixed address; here they must be free too, so that
  // releasing it (which unmaps the guards as for every other range) never takes a neighbour's pages.
  // kInvalidArgument for an address or size that is not page aligned, a size 0, or a range outside the aperture;
  // kAlreadyExists when part of it is in use.
  absl::StatusOr<VaReservation> AllocateAt(DeviceAddress address, Bytes size);

  // Takes back a range from Reserve (with its guard pages), whatever is mapped in it now: it is
  // kept as a fresh reservation or returned to the OS (see above).
  void Release(const AddressRange& range) override;
  // Release of a range that is still the reservation Reserve made: kept as it is, with no system call.
  void ReleaseUnchanged(const AddressRange& range) override;
  // Release of a range holding a freed buffer's CPU mapping that may stay: kept after one mprotect(PROT_NONE) over
  // it, which changes the mapping in place, where replacing it (Release) costs an mmap that unmaps it and maps a
  // reservation. A CPU touch faults either way.
  void ReleaseRevocable(const AddressRange& range) override;

  // Replaces part of a reservation with fresh anonymous read/write memory (for pageable system
  // memory, which the kernel then registers as a USERPTR BO), kept out of forked children (KeepFromForkedChildren).
  absl::Status CommitAnonymous(const AddressRange& range) const;

  // Puts a fresh PROT_NONE reservation over part of a reservation, dropping whatever was mapped there (a buffer's
  // CPU mapping), as libhsakmt does when it unmaps scratch backing.
  absl::Status Decommit(const AddressRange& range) const;

  Bytes DefaultAlignment(Bytes size) const;
  DeviceAddress base() const { return base_; }
  DeviceAddress limit() const { return limit_; }
  // How many released ranges are kept for reuse now.
  size_t kept_ranges() const;

 private:
  // The whole span of a reservation: the range and its guard pages.
  AddressRange WithGuards(const AddressRange& range) const;
  // Keeps `range` for reuse once `reserve` (run with mu_ held) made it a reservation and returned true; false when
  // it is too large, the kept list is full, or `reserve` failed.
  bool Keep(const AddressRange& range, absl::FunctionRef<bool()> reserve);
  // Returns a reservation to the OS.
  void Unmap(const AddressRange& range) const;

  const DeviceAddress base_;
  const DeviceAddress limit_;
  const Bytes max_alignment_;
  const Bytes guard_;

  mutable absl::Mutex mu_;
  // Kept reservations, by size; each value is the range's base.
  absl::btree_multimap<uint64_t, DeviceAddress> kept_ ABSL_GUARDED_BY(mu_);
};

// madvise(MADV_DONTFORK) over `range`: a forked child gets nothing mapped there (libhsakmt marks the memory it
// maps for the GPU so). Every CPU mapping of memory the GPU may reach goes through this: the parent's buffers, rings,
// signals and doorbells are shared mappings, and a child writing them would change the parent's data or feed its
// queues. Errors: madvise's (kInvalidArgument for a range that is not mapped).
absl::Status KeepFromForkedChildren(const AddressRange& range);

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_SVM_APERTURE_H_
