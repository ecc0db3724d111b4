#include "thunk/svm_aperture.h"

#include <sys/mman.h>

#include <bit>
#include <cerrno>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/scoped_lock.h"

namespace hipmem::thunk {
namespace {

constexpr AddressRange kNoRange{DeviceAddress(0), Bytes(0)};

}  // namespace

VaReservation::VaReservation(VaReservation&& other) noexcept
    : space_(std::exchange(other.space_, nullptr)),
      range_(std::exchange(other.range_, kNoRange)),
      contents_(std::exchange(other.contents_, Contents::kAnything)) {}

VaReservation& VaReservation::operator=(VaReservation&& other) noexcept {
  if (this != &other) {
    Reset();
    space_ = std::exchange(other.space_, nullptr);
    range_ = std::exchange(other.range_, kNoRange);
    contents_ = std::exchange(other.contents_, Contents::kAnything);
  }
  return *this;
}

AddressRange VaReservation::Release() && {
  space_ = nullptr;
  contents_ = Contents::kAnything;
  return std::exchange(range_, kNoRange);
}

void VaReservation::Reset() {
  if (space_ != nullptr) {
    VaSpace* space = std::exchange(space_, nullptr);
    switch (std::exchange(contents_, Contents::kAnything)) {
      case Contents::kUnchanged: space->ReleaseUnchanged(range_); break;
      case Contents::kRevocableMapping: space->ReleaseRevocable(range_); break;
      case Contents::kAnything: space->Release(range_); break;
    }
  }
  range_ = kNoRange;
}

HandleAperture::HandleAperture(DeviceAddress base, Bytes size, uint64_t guard_pages)
    : base_(base), size_(size), guard_(Bytes(guard_pages * kPageSize.raw())) {}

absl::StatusOr<VaReservation> HandleAperture::Allocate(Bytes size) {
  const std::optional<Bytes> span = CheckedAdd(size, guard_ + guard_);
  if (size.is_zero() || !IsAligned(size, kPageSize) || !span.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("handle aperture: size ", size.raw()));
  }
  ScopedLock lock(&mu_);
  // First fit: the gaps between used spans, in address order. A handful of buffers at most live here.
  uint64_t candidate = base_.raw();
  for (const auto& [start, used] : used_) {
    if (start - candidate >= span->raw()) break;
    candidate = start + used;
  }
  if (candidate - base_.raw() > size_.raw() || size_.raw() - (candidate - base_.raw()) < span->raw()) {
    return absl::ResourceExhaustedError(absl::StrCat("handle aperture: no room for ", size.raw(), " bytes"));
  }
  used_.emplace(candidate, span->raw());
  return VaReservation(this, AddressRange{DeviceAddress(candidate) + guard_, size});
}

void HandleAperture::Release(const AddressRange& range) {
  ScopedLock lock(&mu_);
  used_.erase((range.base - guard_).raw());
}


SvmAperture::SvmAperture(DeviceAddress base, DeviceAddress limit, Bytes max_alignment, uint64_t guard_pages)
    : base_(base), limit_(limit), max_alignment_(max_alignment), guard_(Bytes(guard_pages * kPageSize.raw())) {}

SvmAperture::~SvmAperture() {
  ScopedLock lock(&mu_);
  for (const auto& [size, base] : kept_) Unmap(AddressRange{base, Bytes(size)});
  kept_.clear();
}

Bytes SvmAperture::DefaultAlignment(Bytes size) const {
  if (size >= max_alignment_) return max_alignment_;
  const Bytes pow2(std::bit_ceil(size.raw()));
  return pow2 < kPageSize ? kPageSize : pow2;
}

AddressRange SvmAperture::WithGuards(const AddressRange& range) const {
  return AddressRange{range.base - guard_, range.size + guard_ + guard_};
}

absl::StatusOr<VaReservation> SvmAperture::Allocate(Bytes size, Bytes alignment) {
  absl::StatusOr<AddressRange> range = Reserve(size, alignment);
  if (!range.ok()) return range.status();
  return VaReservation(this, *range);
}

absl::StatusOr<VaReservation> SvmAperture::AllocateAt(DeviceAddress address, Bytes size) {
  const std::optional<DeviceAddress> end = CheckedAdd(address, size);
  if (size.is_zero() || !IsAligned(size, kPageSize) || !IsAligned(address, kPageSize) || !end.has_value() ||
      address < base_ + guard_ || *end - Bytes(1) > limit_ - guard_) {
    return absl::InvalidArgumentError(absl::StrCat("fixed address ", AddressText(address), " size ", size.raw(),
                                                   ": not page aligned or outside the GPUVM aperture"));
  }
  const AddressRange range{address, size};
  const AddressRange whole = WithGuards(range);
  {
    // A range kept for reuse is free to the caller, but still mapped: return the ones in the way to the OS first.
    ScopedLock lock(&mu_);
    for (auto it = kept_.begin(); it != kept_.end();) {
      const AddressRange kept{it->second, Bytes(it->first)};
      if (WithGuards(kept).Overlaps(whole)) {
        Unmap(kept);
        it = kept_.erase(it);
      } else {
        ++it;
      }
    }
  }
  void* p = mmap(whole.base.ToPointer(), whole.size.raw(), PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) {
    return absl::AlreadyExistsError(absl::StrCat("fixed address ", AddressText(address), " size ", size.raw(),
                                                 ": in use (errno ", errno, ")"));
  }
  // Kernels before 4.17 ignore MAP_FIXED_NOREPLACE and treat the address as a hint.
  if (p != whole.base.ToPointer()) {
    munmap(p, whole.size.raw());
    return absl::AlreadyExistsError(absl::StrCat("fixed address ", AddressText(address), ": in use"));
  }
  return VaReservation(this, range);
}

absl::StatusOr<AddressRange> SvmAperture::Reserve(Bytes size, Bytes alignment) {
  if (alignment.is_zero()) alignment = DefaultAlignment(size);
  if (!IsPowerOfTwo(alignment) || alignment < kPageSize) {
    return absl::InvalidArgumentError(absl::StrCat("alignment ", alignment.raw(), " is not a power of two >= 4 KiB"));
  }
  {
    ScopedLock lock(&mu_);
    // The most recently released first: its pages are the likeliest to be in the TLB and caches.
    auto [first, last] = kept_.equal_range(size.raw());
    for (auto it = last; it != first;) {
      --it;
      if (!IsAligned(it->second, alignment)) continue;
      const AddressRange range{it->second, size};
      kept_.erase(it);
      return range;
    }
  }
  // Over-reserve so an aligned start with a guard before it fits, then trim both ends. mmap
  // already returns page-aligned addresses, so page alignment needs no slack and no trimming.
  const Bytes slack = alignment > kPageSize ? alignment : Bytes(0);
  const std::optional<Bytes> span = CheckedAdd(size, slack + guard_ + guard_);
  if (!span.has_value() || size.is_zero()) return absl::InvalidArgumentError(absl::StrCat("size ", size.raw()));
  void* p = mmap(nullptr, span->raw(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return absl::ResourceExhaustedError(absl::StrCat("no VA for ", size.raw(), " bytes"));
  const DeviceAddress raw_start = DeviceAddress::FromPointer(p);
  const DeviceAddress raw_end = raw_start + *span;
  // User-space addresses are below 2^47, so aligning up cannot overflow.
  const DeviceAddress start(AlignUp(Bytes((raw_start + guard_).raw()), alignment)->raw());
  const DeviceAddress keep_begin = start - guard_;
  const DeviceAddress keep_end = start + size + guard_;
  if (keep_begin > raw_start) munmap(raw_start.ToPointer(), (keep_begin - raw_start).raw());
  if (raw_end > keep_end) munmap(keep_end.ToPointer(), (raw_end - keep_end).raw());
  const AddressRange range{start, size};
  if (start < base_ || range.end() - Bytes(1) > limit_) {
    Unmap(range);  // never kept: it is outside the aperture
    return absl::ResourceExhaustedError(absl::StrCat("VA ", start.raw(), " outside the GPUVM aperture"));
  }
  return range;
}

bool SvmAperture::Keep(const AddressRange& range, absl::FunctionRef<bool()> reserve) {
  if (range.size > kMaxKeptSize) return false;
  ScopedLock lock(&mu_);
  if (kept_.size() >= kMaxKeptRanges || !reserve()) return false;
  kept_.emplace(range.size.raw(), range.base);
  return true;
}

void SvmAperture::Release(const AddressRange& range) {
  const bool kept = Keep(range, [&] {
    // One MAP_FIXED call replaces the buffer's mapping and whatever else is there with a fresh
    // reservation. It can fail only for want of kernel memory or map count, where munmap is the remedy.
    const AddressRange whole = WithGuards(range);
    void* p = mmap(whole.base.ToPointer(), whole.size.raw(), PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) return true;
    HIPMEM_LOG(kWarning, "re-reserving the SVM range at ", AddressText(range.base), " failed: errno ", errno);
    return false;
  });
  if (!kept) Unmap(range);
}

void SvmAperture::ReleaseUnchanged(const AddressRange& range) {
  // Still the PROT_NONE reservation Reserve made, guard pages included: nothing to replace.
  if (!Keep(range, [] { return true; })) Unmap(range);
}

void SvmAperture::ReleaseRevocable(const AddressRange& range) {
  // The guard pages are still the reservation's; only the mapping between them loses its access. mprotect fails
  // only for want of kernel memory (a split), where replacing the mapping is the remedy.
  const bool kept =
      Keep(range, [&] { return mprotect(range.base.ToPointer(), range.size.raw(), PROT_NONE) == 0; });
  if (!kept) Release(range);
}

void SvmAperture::Unmap(const AddressRange& range) const {
  const AddressRange whole = WithGuards(range);
  if (munmap(whole.base.ToPointer(), whole.size.raw()) != 0) {
    HIPMEM_LOG(kError, "munmap of SVM range at ", AddressText(range.base), " failed");
  }
}

size_t SvmAperture::kept_ranges() const {
  ScopedLock lock(&mu_);
  return kept_.size();
}

absl::Status SvmAperture::CommitAnonymous(const AddressRange& range) const {
  void* p = mmap(range.base.ToPointer(), range.size.raw(), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED) return absl::ResourceExhaustedError(absl::StrCat("cannot commit ", range.size.raw(), " bytes"));
  return KeepFromForkedChildren(range);
}

absl::Status SvmAperture::Decommit(const AddressRange& range) const {
  void* p = mmap(range.base.ToPointer(), range.size.raw(), PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED) return absl::ResourceExhaustedError(absl::StrCat("cannot re-reserve ", range.size.raw(), " bytes"));
  return absl::OkStatus();
}

absl::Status KeepFromForkedChildren(const AddressRange& range) {
  if (madvise(range.base.ToPointer(), range.size.raw(), MADV_DONTFORK) == 0) return absl::OkStatus();
  const int error = errno;
  return absl::Status(absl::ErrnoToStatusCode(error), absl::StrCat("madvise(", AddressText(range.base), ", ",
                                                                   range.size.raw(), ", MADV_DONTFORK): errno ", error));
}

}  // namespace hipmem::thunk
