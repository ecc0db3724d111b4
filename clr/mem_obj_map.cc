#include "clr/mem_obj_map.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/light_mutex.h"

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
  ++next_buffer_id_;
  return absl::OkStatus();
}

absl::Status MemObjMap::SetSyncMemOps(DeviceAddress address, bool sync) {
  LightLock lock(&mu_);
  AddressRangeMap<std::unique_ptr<Memory>>::Entry* entry = objects_.Find(address);
  if (entry == nullptr) return absl::NotFoundError(absl::StrCat(AddressText(address), " is in no memory object"));
  entry->value->set_sync_mem_ops(sync);  // the indexes point at the same object
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
  return std::move(entry->value);
}

uint16_t MemObjMap::PageMask(uint64_t first, uint64_t last) {
  const uint64_t pages = last - first + 1;  // 1..kChunkPages, both in one chunk
  return static_cast<uint16_t>(((uint32_t{1} << pages) - 1) << (first % kChunkPages));
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
  for (uint64_t page = first; page <= last;) {
    Chunk& chunk = chunks_[page / kChunkPages];
    const uint64_t chunk_last = std::min(last, (page / kChunkPages + 1) * kChunkPages - 1);
    if (const uint16_t mask = PageMask(page, chunk_last); (chunk.occupied & mask) == 0) {
      // The common case, pages no other object touches: fill them in one go.
      std::fill(chunk.pages.begin() + page % kChunkPages, chunk.pages.begin() + chunk_last % kChunkPages + 1, memory);
      chunk.occupied |= mask;
      page = chunk_last + 1;
      continue;
    }
    for (; page <= chunk_last; ++page) {
      const uint16_t bit = uint16_t{1} << (page % kChunkPages);
      if ((chunk.occupied & bit) != 0) {
        chunk.pages[page % kChunkPages] = nullptr;  // shared with another small object
        chunk.shared |= bit;
      } else {
        chunk.pages[page % kChunkPages] = memory;
        chunk.occupied |= bit;
      }
    }
  }
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
  for (uint64_t page = first; page <= last;) {
    auto it = chunks_.find(page / kChunkPages);
    if (it == chunks_.end()) {
      page = (page / kChunkPages + 1) * kChunkPages;
      continue;
    }
    Chunk& chunk = it->second;
    const uint64_t chunk_last = std::min(last, (page / kChunkPages + 1) * kChunkPages - 1);
    const uint16_t mask = PageMask(page, chunk_last);
    if ((chunk.shared & mask) == 0 && (chunk.occupied & mask) == mask &&
        std::all_of(chunk.pages.begin() + page % kChunkPages, chunk.pages.begin() + chunk_last % kChunkPages + 1,
                    [memory](const Memory* m) { return m == memory; })) {
      // The common case, pages only this object touched: clear them in one go.
      std::fill(chunk.pages.begin() + page % kChunkPages, chunk.pages.begin() + chunk_last % kChunkPages + 1, nullptr);
      chunk.occupied &= static_cast<uint16_t>(~mask);
      page = chunk_last + 1;
      if (chunk.occupied == 0) chunks_.erase(it);
      continue;
    }
    for (; page <= chunk_last; ++page) {
      const uint16_t bit = uint16_t{1} << (page % kChunkPages);
      if ((chunk.occupied & bit) == 0) continue;
      if (chunk.pages[page % kChunkPages] == memory) {
        chunk.pages[page % kChunkPages] = nullptr;
        chunk.occupied &= static_cast<uint16_t>(~bit);
      } else if ((chunk.shared & bit) != 0) {
        // A shared page stays marked while another small object still touches it (Unindex runs after objects_
        // let go of `memory`).
        const AddressRange page_range{DeviceAddress(page << kPageShift), Bytes(uint64_t{1} << kPageShift)};
        if (!objects_.Overlaps(page_range)) {
          chunk.occupied &= static_cast<uint16_t>(~bit);
          chunk.shared &= static_cast<uint16_t>(~bit);
        }
      }
    }
    if (chunk.occupied == 0) chunks_.erase(it);
  }
}

const Memory* MemObjMap::Lookup(DeviceAddress address) const {
  auto contains = [address](const Memory* m) {
    const AddressRange& r = m->desc().range;
    return address.raw() >= r.base.raw() && address.raw() - r.base.raw() < r.size.raw();
  };
  const uint64_t page = address.raw() >> kPageShift;
  if (auto it = chunks_.find(page / kChunkPages);
      it != chunks_.end() && (it->second.occupied & (uint16_t{1} << (page % kChunkPages))) != 0) {
    const Memory* only = it->second.pages[page % kChunkPages];
    if (only != nullptr && contains(only)) return only;
    // A shared page, or a page a small object only partly covers: ask the full map.
    const AddressRangeMap<std::unique_ptr<Memory>>::Entry* entry = objects_.Find(address);
    return entry == nullptr ? nullptr : entry->value.get();
  }
  // No small object touches the page: only a large one can hold the address.
  const AddressRangeMap<const Memory*>::Entry* entry = large_.Find(address);
  return entry == nullptr ? nullptr : entry->value;
}

std::optional<MemObjRef> MemObjMap::Find(DeviceAddress address) const {
  LightLock lock(&mu_);
  const Memory* memory = Lookup(address);
  if (memory == nullptr) return std::nullopt;
  const MemoryDesc& desc = memory->desc();
  return MemObjRef{desc, address - desc.range.base};
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
