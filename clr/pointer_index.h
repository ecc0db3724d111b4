// The page index behind MemObjMap's lookups of small memory objects: page number -> a copy of the description
// of the one small object touching that page.
//
// Plays no ROCclr part of its own: ROCclr's amd::MemObjMap walks an ordered map of every object per lookup.
// It is laid out for the cache, because a pointer query among 10^6 live allocations (hipPointerGetAttributes,
// every copy's classification; issue #9 §5) is a handful of DRAM round trips, not instructions:
//   - one open-addressed table of 64-byte, line-aligned slots, and each slot holds the object's whole
//     MemoryDesc, so a hit reads the one line the probe lands on (a node-based or Swiss-table map reads a
//     control group, a key/pointer slot, then the Memory object behind the pointer: three or four lines at
//     unrelated addresses);
//   - linear probing at a load of at most 1/2, so a miss in the home slot goes on to the adjacent line, which
//     the hardware's adjacent-line and stream prefetchers are already fetching;
//   - once the table reaches 2 MiB it is aligned to 2 MiB and madvise(MADV_HUGEPAGE)d (this host's THP mode is
//     "madvise"), so the index of 10^6 objects (128 MiB) needs 64 TLB entries rather than 32768: a lookup then
//     rarely walks the page tables, whose own reads would be further misses.
// Deletion shifts later entries back (no tombstones), so probe lengths do not grow with churn.
//
// Thread-compatible: MemObjMap's lock guards it.
#ifndef HIPMEM_CLR_POINTER_INDEX_H_
#define HIPMEM_CLR_POINTER_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "base/units.h"
#include "clr/memory.h"

namespace hipmem::clr {

class PointerIndex {
 public:
  // One page's slot: a copy of the description of the one small object touching the page, or the mark that
  // several do (then the caller asks its full map).
  class alignas(64) Entry {
   public:
    bool shared() const { return shared_ != 0; }
    // Whether `address` lies inside the object (false for a shared slot).
    bool Contains(DeviceAddress address) const { return !shared() && address.raw() - base_ < size_; }
    // Whether the slot describes `memory` (objects in one map never share a base).
    bool Describes(const Memory& memory) const {
      return !shared() && base_ == memory.desc().range.base.raw();
    }
    DeviceAddress base() const { return DeviceAddress(base_); }
    MemoryDesc desc() const;

   private:
    friend class PointerIndex;
    static constexpr uint64_t kEmpty = ~uint64_t{0};  // no page number: addresses have 64 bits, pages 52

    void Assign(const Memory& memory);

    uint64_t page_ = kEmpty;
    // The MemoryDesc, flattened so it fits the line beside the key.
    uint64_t base_ = 0;
    uint64_t size_ = 0;
    uint64_t gpu_address_ = 0;
    uint64_t pool_ = 0;
    uint64_t buffer_id_ = 0;
    uint32_t user_flags_ = 0;
    int32_t device_ = 0;
    uint8_t kind_ = 0;
    uint8_t sync_mem_ops_ = 0;
    uint8_t shared_ = 0;
  };
  static_assert(sizeof(Entry) == 64, "a slot is one cache line");

  PointerIndex() = default;
  PointerIndex(const PointerIndex&) = delete;
  PointerIndex& operator=(const PointerIndex&) = delete;

  // Records that `memory` touches `page`: the page then describes it, or, when another object already touches
  // the page, is marked shared.
  void Add(uint64_t page, const Memory& memory);

  // Copies `memory`'s description again into `page`'s slot if the slot describes it (its mutable user data
  // changed); does nothing otherwise.
  void Refresh(uint64_t page, const Memory& memory);

  // Forgets `page` (nothing when it is absent).
  void Erase(uint64_t page);

  // The slot of `page`, or null. Valid until the next Add or Erase.
  const Entry* Find(uint64_t page) const {
    if (size_ == 0) return nullptr;
    for (uint64_t i = Home(page);; i = (i + 1) & mask_) {
      const Entry& entry = slots_[i];
      if (entry.page_ == page) return &entry;
      if (entry.page_ == Entry::kEmpty) return nullptr;  // the load stays <= 1/2: an empty slot always ends a probe
    }
  }

  size_t size() const { return size_; }
  size_t capacity() const { return mask_ + (slots_ == nullptr ? 0 : 1); }

 private:
  struct Free {
    void operator()(Entry* slots) const { std::free(slots); }
  };
  using Slots = std::unique_ptr<Entry[], Free>;

  static constexpr size_t kMinCapacity = 16;

  // Fibonacci hashing: page numbers of neighbouring allocations are consecutive, and the golden-ratio
  // multiplier spreads them over the table's top bits.
  uint64_t Home(uint64_t page) const { return (page * uint64_t{0x9e3779b97f4a7c15}) >> shift_; }
  Entry* FindMutable(uint64_t page) { return const_cast<Entry*>(Find(page)); }
  static Slots Allocate(size_t capacity);
  void Rehash(size_t capacity);

  Slots slots_;
  uint64_t mask_ = 0;  // capacity - 1
  int shift_ = 64;     // 64 - log2(capacity)
  size_t size_ = 0;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_POINTER_INDEX_H_
