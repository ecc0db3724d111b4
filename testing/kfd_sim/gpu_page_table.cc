#include "testing/kfd_sim/gpu_page_table.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "testing/kfd_sim/engines/doorbell.h"

namespace hipmem::kfd_sim {
namespace {

// The doorbell words the calling thread's open access scope has translated: (first word, count). A thread has at
// most one scope open at a time (engines bracket each packet's accesses; nothing nests them).
struct DoorbellWords {
  uint64_t* first;
  size_t count;
};
thread_local std::vector<DoorbellWords> scope_doorbells;

}  // namespace

void GpuPageTable::BeginAccess() {
  mu_.lock_shared();
  // Lock order: this table, then the SVM ranges (the SVM side never waits for a page table while it holds them).
  if (svm_ != nullptr) svm_->BeginGpuAccess();
}

void GpuPageTable::EndAccess() {
  // Before the scope closes: an unmap waits for it, so the slice is still mapped.
  for (const DoorbellWords& words : scope_doorbells) NotifyDoorbellStores(words.first, words.count);
  scope_doorbells.clear();
  if (svm_ != nullptr) svm_->EndGpuAccess();
  mu_.unlock_shared();
}

void GpuPageTable::AttachSvm(SvmTranslator* svm, size_t gpu_index) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  svm_ = svm;
  svm_gpu_index_ = gpu_index;
}

bool GpuPageTable::Overlaps(AddressRange range) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return mappings_.Overlaps(range);
}

absl::Status GpuPageTable::Map(AddressRange range, uint64_t handle, PageSource source) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  return mappings_.Insert(range, Mapping{handle, std::move(source)});
}

absl::Status GpuPageTable::Unmap(AddressRange range, uint64_t handle) {
  // Waits for every engine access scope to close: nothing still copies through this range afterwards.
  std::unique_lock<std::shared_mutex> lock(mu_);
  const AddressRangeMap<Mapping>::Entry* entry = mappings_.FindStart(range.base);
  if (entry == nullptr || entry->range != range || entry->value.handle != handle) {
    return absl::NotFoundError(absl::StrCat("GpuPageTable::Unmap(base=0x", absl::Hex(range.base.raw()),
                                            ", handle=0x", absl::Hex(handle), "): no such mapping"));
  }
  mappings_.Erase(range.base);
  return absl::OkStatus();
}

bool GpuPageTable::Covers(AddressRange range) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return mappings_.Covers(range);
}

size_t GpuPageTable::size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return mappings_.size();
}

std::optional<GpuMemory::Span> GpuPageTable::Translate(uint64_t va, uint64_t bytes) {
  // The caller holds an access scope (mu_ shared).
  const AddressRangeMap<Mapping>::Entry* found = mappings_.Find(DeviceAddress(va));
  if (found == nullptr) {
    return svm_ != nullptr ? svm_->TranslateForGpu(svm_gpu_index_, va, bytes) : std::nullopt;
  }
  const AddressRange range = found->range;
  const Mapping& entry = found->value;
  const uint64_t offset = va - range.base.raw();
  const uint64_t left = std::min(range.size.raw() - offset, bytes);
  if (entry.source.pages == nullptr) return Span{reinterpret_cast<void*>(entry.source.userptr + offset), left};
  std::byte* view = entry.source.pages->EngineView();
  if (view == nullptr) return std::nullopt;
  if (entry.source.doorbell) {
    // Every word the span touches, partly covered ones included (a store of the low dword alone also rings).
    const uint64_t first = offset / sizeof(uint64_t);
    const uint64_t end = (offset + left + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    scope_doorbells.push_back(
        DoorbellWords{reinterpret_cast<uint64_t*>(view) + first, static_cast<size_t>(end - first)});
  }
  return Span{view + offset, left};
}

}  // namespace hipmem::kfd_sim
