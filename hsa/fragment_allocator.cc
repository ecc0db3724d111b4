#include "hsa/fragment_allocator.h"

#include <iterator>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/log.h"

namespace hipmem::hsa {

void Fragment::FreeFromHeap() {
  // Only a fragment the allocator handed out reaches here, and only once: a refusal means its books are broken.
  if (absl::Status s = heap_->Free(range_.base); !s.ok()) {
    HIPMEM_LOG(kError, "fragment allocator out of step with its fragment: ", s.message());
  }
}

absl::StatusOr<Fragment> FragmentAllocator::Carve(Bytes size) {
  absl::StatusOr<Lookup> carved = CarveRange(size);
  if (!carved.ok()) return carved.status();
  return Fragment(this, carved->fragment, carved->block);
}

FragmentAllocator::FragmentAllocator(BlockSource* source, Bytes block_size)
    : source_(source), block_size_(block_size) {}

FragmentAllocator::~FragmentAllocator() {
  Trim();
  // Blocks with fragments still in use: the runtime is going away, so they go back too.
  for (const auto& [base, block] : blocks_) source_->FreeBlock(block.range.base, block.range.size);
}

void FragmentAllocator::RemoveFree(uint64_t address, Bytes size) {
  auto [first, last] = free_by_size_.equal_range(size.raw());
  for (auto it = first; it != last; ++it) {
    if (it->second == address) {
      free_by_size_.erase(it);
      return;
    }
  }
}

absl::StatusOr<FragmentAllocator::Lookup> FragmentAllocator::CarveRange(Bytes size) {
  const std::optional<Bytes> rounded = size.is_zero() ? std::nullopt : AlignUp(size, kGranule);
  if (!rounded.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("fragment allocation of ", size.raw(), " bytes: bad size"));
  }
  const Bytes want = *rounded;

  // Best fit: the smallest free fragment that holds the request.
  if (auto best = free_by_size_.lower_bound(want.raw()); best != free_by_size_.end()) {
    const uint64_t start = best->second;
    const Bytes found(best->first);
    free_by_size_.erase(best);
    AddressRangeMap<Block>::Entry& entry = *blocks_.Find(DeviceAddress(start));
    Block& block = entry.value;
    block.fragments.at(start) = Tile{want, false};
    if (found > want) {
      block.fragments.emplace(start + want.raw(), Tile{found - want, true});
      AddFree(start + want.raw(), found - want);
    }
    return Lookup{AddressRange{DeviceAddress(start), want}, entry.range};
  }

  if (want < block_size_ && !cache_.empty()) {
    // The most recently cached block: the one whose pages are most likely still warm.
    const AddressRange range = cache_.back();
    cache_.pop_back();
    cached_bytes_ -= range.size;
    in_use_bytes_ += range.size;
    Block& block = blocks_.FindStart(range.base)->value;
    block.cached = false;
    // Its one free fragment spans the block: the request takes its head.
    auto head = block.fragments.begin();
    head->second = Tile{want, false};
    if (range.size > want) {
      block.fragments.emplace_hint(std::next(head), range.base.raw() + want.raw(), Tile{range.size - want, true});
      AddFree(range.base.raw() + want.raw(), range.size - want);
    }
    return Lookup{AddressRange{range.base, want}, range};
  }

  const std::optional<Bytes> block_bytes = AlignUp(want, block_size_);
  if (!block_bytes.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat("fragment allocation of ", size.raw(), " bytes: bad size"));
  }
  absl::StatusOr<DeviceAddress> base = source_->AllocateBlock(*block_bytes);
  if (!base.ok()) return base.status();
  const AddressRange range{*base, *block_bytes};
  // A request above one block keeps its block to itself, so a small fragment cannot pin a large block.
  const bool discarded = want > block_size_;
  Block block{discarded, false, {}};
  block.fragments.emplace(range.base.raw(), Tile{want, false});
  if (range.size > want) {
    // A discarded block's tail is never handed out, so it is not published as free.
    block.fragments.emplace(range.base.raw() + want.raw(), Tile{range.size - want, true});
    if (!discarded) AddFree(range.base.raw() + want.raw(), range.size - want);
  }
  if (absl::Status s = blocks_.Insert(range, std::move(block)); !s.ok()) {
    // The source handed out a block overlapping one it already gave: its bug, and nothing to carve from.
    if (!discarded && range.size > want) RemoveFree(range.base.raw() + want.raw(), range.size - want);
    source_->FreeBlock(range.base, range.size);
    return absl::InternalError(absl::StrCat("fragment allocator: new block ", s.message()));
  }
  if (!discarded) in_use_bytes_ += range.size;
  return Lookup{AddressRange{range.base, want}, range};
}

absl::Status FragmentAllocator::Free(DeviceAddress address) {
  auto not_found = [&] {
    return absl::NotFoundError(absl::StrCat("fragment free(", AddressText(address), "): no fragment starts there"));
  };
  AddressRangeMap<Block>::Entry* entry = blocks_.Find(address);
  if (entry == nullptr) return not_found();
  Block& block = entry->value;
  auto it = block.fragments.find(address.raw());
  if (it == block.fragments.end() || it->second.free) return not_found();

  it->second.free = true;
  // Merge with the free neighbours on both sides.
  if (it != block.fragments.begin()) {
    auto lower = std::prev(it);
    if (lower->second.free) {
      if (!block.discarded) RemoveFree(lower->first, lower->second.size);
      lower->second.size += it->second.size;
      block.fragments.erase(it);
      it = lower;
    }
  }
  if (auto upper = std::next(it); upper != block.fragments.end() && upper->second.free) {
    if (!block.discarded) RemoveFree(upper->first, upper->second.size);
    it->second.size += upper->second.size;
    block.fragments.erase(upper);
  }

  if (block.fragments.size() == 1) {
    const AddressRange range = entry->range;
    if (block.discarded) {
      blocks_.Erase(range.base);
      source_->FreeBlock(range.base, range.size);
    } else {
      // Cached with its record: the free fragment stays out of free_by_size_ (see Block::cached).
      block.cached = true;
      in_use_bytes_ -= range.size;
      cache_.push_back(range);
      cached_bytes_ += range.size;
      Balance();
    }
    return absl::OkStatus();
  }
  if (!block.discarded) AddFree(it->first, it->second.size);
  return absl::OkStatus();
}

std::optional<FragmentAllocator::Lookup> FragmentAllocator::Find(DeviceAddress address) const {
  const AddressRangeMap<Block>::Entry* entry = blocks_.Find(address);
  if (entry == nullptr) return std::nullopt;
  auto it = std::prev(entry->value.fragments.upper_bound(address.raw()));
  if (it->second.free) return std::nullopt;
  return Lookup{AddressRange{DeviceAddress(it->first), it->second.size}, entry->range};
}

void FragmentAllocator::ReleaseOldestCached() {
  const AddressRange oldest = cache_.front();
  cache_.pop_front();
  cached_bytes_ -= oldest.size;
  blocks_.Erase(oldest.base);
  source_->FreeBlock(oldest.base, oldest.size);
}

void FragmentAllocator::Balance() {
  // ROCr's balance: keep at least one empty block for the next burst, but never cache more than twice
  // what is in use.
  while (cache_.size() > 1 && cached_bytes_.raw() > 2 * in_use_bytes_.raw()) ReleaseOldestCached();
}

void FragmentAllocator::Trim() {
  while (!cache_.empty()) ReleaseOldestCached();
}

}  // namespace hipmem::hsa
