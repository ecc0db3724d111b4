#include "clr/mem_obj_map.h"

#include "base/address_map.h"

#include <iterator>
#include <utility>

#include "base/scoped_lock.h"
#include "absl/strings/str_cat.h"

namespace hipmem::clr {

absl::Status MemObjMap::Insert(std::unique_ptr<Memory> memory) {
  const AddressRange range = memory->desc().range;
  ScopedLock lock(&mu_);
  auto next = objects_.lower_bound(range.base.raw());
  if (next != objects_.end() && next->second->desc().range.Overlaps(range)) {
    return absl::AlreadyExistsError(absl::StrCat("memory object at ", AddressText(range.base), " overlaps one at ", AddressText(DeviceAddress(next->first))));
  }
  if (next != objects_.begin() && std::prev(next)->second->desc().range.Overlaps(range)) {
    return absl::AlreadyExistsError(absl::StrCat("memory object at ", AddressText(range.base), " overlaps its predecessor"));
  }
  objects_.emplace(range.base.raw(), std::move(memory));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Memory>> MemObjMap::Extract(DeviceAddress base) {
  ScopedLock lock(&mu_);
  auto it = objects_.find(base.raw());
  if (it == objects_.end()) return absl::NotFoundError(absl::StrCat(AddressText(base), " is not the start of a memory object"));
  std::unique_ptr<Memory> memory = std::move(it->second);
  objects_.erase(it);
  return memory;
}

std::optional<MemObjRef> MemObjMap::Find(DeviceAddress address) const {
  ScopedLock lock(&mu_);
  auto it = FindContaining(objects_, address, [](const std::unique_ptr<Memory>& m) { return m->desc().range; });
  if (it == objects_.end()) return std::nullopt;
  const MemoryDesc& desc = it->second->desc();
  return MemObjRef{desc, address - desc.range.base};
}

size_t MemObjMap::size() const {
  ScopedLock lock(&mu_);
  return objects_.size();
}

}  // namespace hipmem::clr
