// The SVM aperture: where the thunk places every GPU allocation in the process's address space.
//
// Plays libhsakmt's mmap aperture (fmm.c init_mmap_apertures), the model on GFX9+ whose GPUVM limit
// reaches 2^47: GPU VA == CPU VA, each allocation is an anonymous PROT_NONE, MAP_NORESERVE
// reservation aligned to the next power of two of its size (capped at HSA_MAX_VA_ALIGN, 2 MiB by
// default) with HSA_SVM_GUARD_PAGES (default 1) guard pages on each side. Releasing returns the VA
// to the OS, so a later allocation may reuse it. Thread-safe (mmap/munmap are).
#ifndef HIPMEM_THUNK_SVM_APERTURE_H_
#define HIPMEM_THUNK_SVM_APERTURE_H_

#include "absl/status/statusor.h"
#include "base/units.h"

namespace hipmem::thunk {

inline constexpr Bytes kPageSize = Bytes::KiB(4);

class SvmAperture {
 public:
  // [base, limit] is the GPUVM range every GPU of the process can address.
  SvmAperture(DeviceAddress base, DeviceAddress limit, Bytes max_alignment, uint64_t guard_pages);

  // Reserves `size` bytes (a page multiple) at an address aligned to `alignment` (zero: the
  // default rule above). kResourceExhausted when the OS has no room inside the aperture;
  // kInvalidArgument for an alignment that is not a power of two or a size that overflows.
  absl::StatusOr<AddressRange> Reserve(Bytes size, Bytes alignment) const;

  // Returns a range from Reserve (with its guard pages) to the OS.
  void Release(const AddressRange& range) const;

  // Replaces part of a reservation with fresh anonymous read/write memory (for pageable system
  // memory, which the kernel then registers as a USERPTR BO).
  absl::Status CommitAnonymous(const AddressRange& range) const;

  Bytes DefaultAlignment(Bytes size) const;
  DeviceAddress base() const { return base_; }
  DeviceAddress limit() const { return limit_; }

 private:
  DeviceAddress base_;
  DeviceAddress limit_;
  Bytes max_alignment_;
  Bytes guard_;
};

}  // namespace hipmem::thunk

#endif  // HIPMEM_THUNK_SVM_APERTURE_H_
