#include "testing/kfd_sim/gpu_page_table.h"

#include <algorithm>
#include <mutex>
#include <utility>

namespace hipmem::kfd_sim {

absl::Status GpuPageTable::Map(AddressRange range, uint64_t handle, PageSource source) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (absl::Status s = ranges_.Insert(range, handle); !s.ok()) return s;
  entries_.emplace(range.base.raw(), Entry{range, std::move(source)});
  return absl::OkStatus();
}

absl::Status GpuPageTable::Unmap(AddressRange range, uint64_t handle) {
  // Waits for every engine access scope to close: nothing still copies through this range afterwards.
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (absl::Status s = ranges_.Erase(range, handle); !s.ok()) return s;
  entries_.erase(range.base.raw());
  return absl::OkStatus();
}

bool GpuPageTable::Covers(AddressRange range) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return ranges_.Covers(range);
}

size_t GpuPageTable::size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return ranges_.size();
}

std::optional<GpuMemory::Span> GpuPageTable::Translate(uint64_t va, uint64_t bytes) {
  // The caller holds an access scope (mu_ shared).
  auto it = entries_.upper_bound(va);
  if (it == entries_.begin()) return std::nullopt;
  --it;
  const Entry& entry = it->second;
  const uint64_t offset = va - entry.range.base.raw();
  if (offset >= entry.range.size.raw()) return std::nullopt;
  const uint64_t left = std::min(entry.range.size.raw() - offset, bytes);
  if (entry.source.pages == nullptr) return Span{reinterpret_cast<void*>(entry.source.userptr + offset), left};
  std::byte* view = entry.source.pages->EngineView();
  if (view == nullptr) return std::nullopt;
  return Span{view + offset, left};
}

}  // namespace hipmem::kfd_sim
