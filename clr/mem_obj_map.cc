#include "clr/mem_obj_map.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/lookup_count.h"

namespace hipmem::clr {

absl::Status MemObjMap::Insert(std::unique_ptr<Memory> memory) {
  const AddressRange range = memory->desc().range;
  LightLock lock(&mu_);
  memory->set_buffer_id(next_buffer_id_);
  const Memory* indexed = memory.get();
  if (absl::Status s = objects_.Insert(range, std::move(memory)); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("memory object at ", AddressText(range.base), ": ", s.message()));
  }
  Index(indexed);
  if (const DeviceAddress gpu = indexed->desc().gpu_address; gpu != range.base) {
    const AddressRange alias{gpu, range.size};
    if (!objects_.Overlaps(alias)) (void)aliases_.Insert(alias, indexed);  // fails only on an overlap: skipped
  }
  ++next_buffer_id_;
  return absl::OkStatus();
}

absl::Status MemObjMap::SetSyncMemOps(DeviceAddress address, bool sync) {
  LightLock lock(&mu_);
  AddressRangeMap<std::unique_ptr<Memory>>::Entry* entry = objects_.Find(address);
  if (entry == nullptr) return absl::NotFoundError(absl::StrCat(AddressText(address), " is in no memory object"));
  entry->value->set_sync_mem_ops(sync);  // the ordered indexes point at the same object
  Reindex(entry->value.get());            // the page index holds a copy
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Memory>> MemObjMap::Extract(DeviceAddress base,
                                                         std::initializer_list<MemoryKind> kinds) {
  LightLock lock(&mu_);
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
  Unindex(entry->value.get());
  if (const AddressRangeMap<const Memory*>::Entry* alias = aliases_.FindStart(entry->value->desc().gpu_address);
      alias != nullptr && alias->value == entry->value.get()) {
    aliases_.Erase(alias->range.base);
  }
  return std::move(entry->value);
}

void MemObjMap::Index(const Memory* memory) {
  const AddressRange range = memory->desc().range;
  if (range.size.raw() == 0) return;  // holds no address
  if (range.size.raw() > kIndexedBytes) {
    (void)large_.Insert(range, memory);  // cannot overlap: objects_ accepted it
    return;
  }
  const uint64_t first = range.base.raw() >> kPageShift;
  const uint64_t last = (range.base.raw() + range.size.raw() - 1) >> kPageShift;
  for (uint64_t page = first; page <= last; ++page) pages_.Add(page, *memory);  // marked shared if another has it
}

void MemObjMap::Unindex(const Memory* memory) {
  const AddressRange range = memory->desc().range;
  if (range.size.raw() == 0) return;
  if (range.size.raw() > kIndexedBytes) {
    large_.Erase(range.base);
    return;
  }
  const uint64_t first = range.base.raw() >> kPageShift;
  const uint64_t last = (range.base.raw() + range.size.raw() - 1) >> kPageShift;
  for (uint64_t page = first; page <= last; ++page) {
    const PointerIndex::Entry* entry = pages_.Find(page);
    if (entry == nullptr) continue;
    if (entry->Describes(*memory)) {
      pages_.Erase(page);
    } else if (entry->shared()) {
      // A shared page: it stays marked while another small object still touches it.
      const AddressRange page_range{DeviceAddress(page << kPageShift), Bytes(uint64_t{1} << kPageShift)};
      // (Unindex runs after objects_ let go of `memory`.)
      const bool others = objects_.Overlaps(page_range);
      if (!others) pages_.Erase(page);
    }
  }
}

void MemObjMap::Reindex(const Memory* memory) {
  const AddressRange range = memory->desc().range;
  if (range.size.raw() == 0 || range.size.raw() > kIndexedBytes) return;
  const uint64_t first = range.base.raw() >> kPageShift;
  const uint64_t last = (range.base.raw() + range.size.raw() - 1) >> kPageShift;
  for (uint64_t page = first; page <= last; ++page) pages_.Refresh(page, *memory);
}

const Memory* MemObjMap::Lookup(DeviceAddress address) const {
  if (pages_.Find(address.raw() >> kPageShift) != nullptr) {
    // A shared page, or a page a small object only partly covers (Find answers a sole object's own
    // addresses from the slot): ask the full map.
    const AddressRangeMap<std::unique_ptr<Memory>>::Entry* entry = objects_.Find(address);
    return entry == nullptr ? nullptr : entry->value.get();
  }
  // No small object touches the page: only a large one can hold the address.
  const AddressRangeMap<const Memory*>::Entry* entry = large_.Find(address);
  return entry == nullptr ? nullptr : entry->value;
}

std::optional<MemObjRef> MemObjMap::Find(DeviceAddress address) const {
  CountAddressLookup();
  LightLock lock(&mu_);
  // The common case in one cache line: a small object alone on its page, described by the page's slot.
  if (const PointerIndex::Entry* entry = pages_.Find(address.raw() >> kPageShift);
      entry != nullptr && entry->Contains(address)) {
    return MemObjRef{entry->desc(), address - entry->base()};
  }
  if (const Memory* memory = Lookup(address); memory != nullptr) {
    const MemoryDesc& desc = memory->desc();
    return MemObjRef{desc, address - desc.range.base};
  }
  if (aliases_.empty()) return std::nullopt;
  const AddressRangeMap<const Memory*>::Entry* alias = aliases_.Find(address);
  if (alias == nullptr) return std::nullopt;
  return MemObjRef{alias->value->desc(), address - alias->range.base};
}

size_t MemObjMap::size() const {
  LightLock lock(&mu_);
  return objects_.size();
}

std::vector<DeviceAddress> MemObjMap::Bases(int device, MemoryKind kind) const {
  LightLock lock(&mu_);
  std::vector<DeviceAddress> bases;
  for (const auto& [base, entry] : objects_) {
    const MemoryDesc& desc = entry.value->desc();
    if (desc.device == device && desc.kind == kind) bases.push_back(desc.range.base);
  }
  return bases;
}

}  // namespace hipmem::clr
