#include "clr/mem_obj_map.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"

namespace hipmem::clr {

absl::Status MemObjMap::Insert(std::unique_ptr<Memory> memory) {
  const AddressRange range = memory->desc().range;
  ScopedLock lock(&mu_);
  memory->set_buffer_id(next_buffer_id_);
  if (absl::Status s = objects_.Insert(range, std::move(memory)); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("memory object at ", AddressText(range.base), ": ", s.message()));
  }
  ++next_buffer_id_;
  return absl::OkStatus();
}

absl::Status MemObjMap::SetSyncMemOps(DeviceAddress address, bool sync) {
  ScopedLock lock(&mu_);
  AddressRangeMap<std::unique_ptr<Memory>>::Entry* entry = objects_.Find(address);
  if (entry == nullptr) return absl::NotFoundError(absl::StrCat(AddressText(address), " is in no memory object"));
  entry->value->set_sync_mem_ops(sync);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Memory>> MemObjMap::Extract(DeviceAddress base,
                                                         std::initializer_list<MemoryKind> kinds) {
  ScopedLock lock(&mu_);
  if (const AddressRangeMap<std::unique_ptr<Memory>>::Entry* found = objects_.Find(base);
      found != nullptr && found->range.base == base &&
      std::find(kinds.begin(), kinds.end(), found->value->desc().kind) == kinds.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the memory object at ", AddressText(base), " is of another kind"));
  }
  std::optional<AddressRangeMap<std::unique_ptr<Memory>>::Entry> entry = objects_.Extract(base);
  if (!entry.has_value()) {
    return absl::NotFoundError(absl::StrCat(AddressText(base), " is not the start of a memory object"));
  }
  return std::move(entry->value);
}

std::optional<MemObjRef> MemObjMap::Find(DeviceAddress address) const {
  ScopedLock lock(&mu_);
  const AddressRangeMap<std::unique_ptr<Memory>>::Entry* entry = objects_.Find(address);
  if (entry == nullptr) return std::nullopt;
  const MemoryDesc& desc = entry->value->desc();
  return MemObjRef{desc, address - desc.range.base};
}

size_t MemObjMap::size() const {
  ScopedLock lock(&mu_);
  return objects_.size();
}

std::vector<DeviceAddress> MemObjMap::Bases(int device, MemoryKind kind) const {
  ScopedLock lock(&mu_);
  std::vector<DeviceAddress> bases;
  for (const auto& [base, entry] : objects_) {
    const MemoryDesc& desc = entry.value->desc();
    if (desc.device == device && desc.kind == kind) bases.push_back(desc.range.base);
  }
  return bases;
}

}  // namespace hipmem::clr
