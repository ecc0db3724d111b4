#include "testing/kfd_sim/shared_resources.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/units.h"
#include "base/scoped_lock.h"

namespace hipmem::kfd_sim {
namespace {

constexpr Bytes kPageSize = Bytes::KiB(4);

// DRM_FILE_PAGE_OFFSET_START: DRM hands out mmap offsets from 4 GiB up (in bytes, on 64-bit).
constexpr uint64_t kFirstMmapOffset = uint64_t{1} << 32;

// Returns used + size when it fits in capacity.
std::optional<Bytes> Reserve(Bytes used, Bytes size, Bytes capacity) {
  const std::optional<Bytes> total = CheckedAdd(used, size);
  if (!total || *total > capacity) return std::nullopt;
  return total;
}

}  // namespace

SharedResources::SharedResources(std::vector<Bytes> vram_capacity, Bytes system_capacity)
    : vram_capacity_(std::move(vram_capacity)),
      system_capacity_(system_capacity),
      vram_used_(vram_capacity_.size()),
      next_mmap_offset_(kFirstMmapOffset) {}

bool SharedResources::TryReserveVram(size_t gpu_index, Bytes size) {
  ScopedLock lock(&mu_);
  const std::optional<Bytes> total = Reserve(vram_used_[gpu_index], size, vram_capacity_[gpu_index]);
  if (!total) return false;
  vram_used_[gpu_index] = *total;
  return true;
}

void SharedResources::ReleaseVram(size_t gpu_index, Bytes size) {
  ScopedLock lock(&mu_);
  HIPMEM_CHECK(vram_used_[gpu_index] >= size, "VRAM release of ", size.raw(), " bytes exceeds use");
  vram_used_[gpu_index] -= size;
}

bool SharedResources::TryReserveSystem(Bytes size) {
  ScopedLock lock(&mu_);
  const std::optional<Bytes> total = Reserve(system_used_, size, system_capacity_);
  if (!total) return false;
  system_used_ = *total;
  return true;
}

void SharedResources::ReleaseSystem(Bytes size) {
  ScopedLock lock(&mu_);
  HIPMEM_CHECK(system_used_ >= size, "system memory release of ", size.raw(), " bytes exceeds use");
  system_used_ -= size;
}

Bytes SharedResources::VramUsed(size_t gpu_index) const {
  ScopedLock lock(&mu_);
  return vram_used_[gpu_index];
}

Bytes SharedResources::VramFree(size_t gpu_index) const {
  ScopedLock lock(&mu_);
  return vram_capacity_[gpu_index] - vram_used_[gpu_index];
}

Bytes SharedResources::SystemUsed() const {
  ScopedLock lock(&mu_);
  return system_used_;
}

std::optional<uint64_t> SharedResources::AllocateMmapOffset(Bytes size) {
  const std::optional<Bytes> span = AlignUp(size, kPageSize);
  if (!span) return std::nullopt;
  ScopedLock lock(&mu_);
  const std::optional<Bytes> next = CheckedAdd(Bytes(next_mmap_offset_), *span);
  // Offsets must stay below 2^63 so that they survive the off_t of mmap().
  if (!next || next->raw() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return std::exchange(next_mmap_offset_, next->raw());
}

bool SharedResources::TryTakeSdmaQueue(size_t gpu_index, bool xgmi, uint32_t capacity) {
  ScopedLock lock(&mu_);
  uint32_t& used = sdma_queues_[{gpu_index, xgmi}];
  if (used >= capacity) return false;
  ++used;
  return true;
}

void SharedResources::ReturnSdmaQueue(size_t gpu_index, bool xgmi) {
  ScopedLock lock(&mu_);
  uint32_t& used = sdma_queues_[{gpu_index, xgmi}];
  HIPMEM_CHECK(used > 0, "SDMA queue returned that was never taken");
  --used;
}

}  // namespace hipmem::kfd_sim
