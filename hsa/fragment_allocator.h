// Sub-allocation of VRAM from 2 MiB blocks, with a cache of empty blocks.
//
// Plays ROCr's SimpleHeap<MemoryRegion::BlockAllocator> (core/util/simple_heap.h, amd_memory_region.h):
// every hsa_amd_memory_pool_allocate of ordinary VRAM (no pool flags) is carved from a 2 MiB block the KFD
// allocated and mapped once, so small allocations cost no KFD round trip (rocm_facts.md §6.1):
//  - best fit over the free fragments of every block; when nothing fits, the most recently cached empty block
//    (for requests smaller than a block), else a new block from the BlockSource;
//  - a request larger than a block gets a block of its own (rounded up to whole blocks) that nothing else is
//    carved from and that goes back to the source when freed ("discarded" upstream);
//  - freed neighbours merge; a block left empty goes to the cache, and the oldest cached blocks go back to the
//    source while more than one is cached and the cache holds more than twice the bytes of blocks in use;
//  - Trim() empties the cache (the runtime calls it when the KFD refuses memory, then retries).
// Thread-compatible: the owner serialises calls.
#ifndef HIPMEM_HSA_FRAGMENT_ALLOCATOR_H_
#define HIPMEM_HSA_FRAGMENT_ALLOCATOR_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <utility>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/address_range_map.h"
#include "base/units.h"

namespace hipmem::hsa {

// Where blocks come from and go back to (the KFD, through the runtime; a fake in tests).
class BlockSource {
 public:
  virtual ~BlockSource() = default;
  // Returns a new block of `size` bytes (a multiple of the block size), mapped and ready for use.
  virtual absl::StatusOr<DeviceAddress> AllocateBlock(Bytes size) = 0;
  // Gives a block back. Errors are the source's to report; the allocator forgets the block either way.
  virtual void FreeBlock(DeviceAddress base, Bytes size) = 0;
};

class FragmentAllocator;

// Owns one fragment in use: destroying it frees the fragment (so a block left empty goes to the cache). Move-only.
// The allocator is thread-compatible, so a fragment is destroyed (or moved onto) only where its allocator's owner
// serialises calls; the allocator must outlive it.
class Fragment {
 public:
  Fragment() = default;
  Fragment(Fragment&& other) noexcept
      : heap_(std::exchange(other.heap_, nullptr)), range_(other.range_), block_(other.block_) {}
  Fragment& operator=(Fragment&& other) noexcept {
    if (this != &other) {
      Fragment old(std::move(*this));  // frees what this held when it goes
      heap_ = std::exchange(other.heap_, nullptr);
      range_ = other.range_;
      block_ = other.block_;
    }
    return *this;
  }
  // Inline, with the free out of line: a record moves its fragment several times per hipMalloc.
  ~Fragment() {
    if (heap_ != nullptr) FreeFromHeap();
  }
  Fragment(const Fragment&) = delete;
  Fragment& operator=(const Fragment&) = delete;

  // What the caller got (rounded to pages), and the block it lies in (one KFD buffer, shared with other fragments).
  const AddressRange& range() const { return range_; }
  const AddressRange& block() const { return block_; }

 private:
  friend class FragmentAllocator;
  Fragment(FragmentAllocator* heap, AddressRange range, AddressRange block)
      : heap_(heap), range_(range), block_(block) {}
  void FreeFromHeap();

  FragmentAllocator* heap_ = nullptr;  // Not owned; null when empty or moved from.
  AddressRange range_{DeviceAddress(0), Bytes(0)};
  AddressRange block_{DeviceAddress(0), Bytes(0)};
};

class FragmentAllocator {
 public:
  // ROCr's block size for VRAM (RUNTIME_ALLOC_REC_GRANULE of VRAM pools).
  static constexpr Bytes kDefaultBlockSize = Bytes::MiB(2);
  // Fragments are page multiples, as the pool's RUNTIME_ALLOC_GRANULE promises.
  static constexpr Bytes kGranule = Bytes::KiB(4);

  // `source` is not owned and must outlive this. `block_size` is a power-of-two multiple of kGranule.
  explicit FragmentAllocator(BlockSource* source, Bytes block_size = kDefaultBlockSize);
  // Returns every block still held (cached or not) to the source.
  ~FragmentAllocator();
  FragmentAllocator(const FragmentAllocator&) = delete;
  FragmentAllocator& operator=(const FragmentAllocator&) = delete;

  // The fragment in use containing an address and the block it lies in.
  struct Lookup {
    AddressRange fragment;
    AddressRange block;
  };

  // Returns the owner of `size` bytes (rounded up to kGranule) from a block, which knows its block without a
  // second lookup. kInvalidArgument for size 0 or one that overflows when rounded; the source's error when it has
  // no block to give.
  absl::StatusOr<Fragment> Carve(Bytes size);

  // The primitives the owner wraps, as malloc and free: Allocate returns the fragment's start, and Free frees the
  // fragment starting at `address` (kNotFound when no fragment in use starts there). The runtime uses Carve.
  absl::StatusOr<DeviceAddress> Allocate(Bytes size) {
    absl::StatusOr<Lookup> carved = CarveRange(size);
    if (!carved.ok()) return carved.status();
    return carved->fragment.base;
  }
  absl::Status Free(DeviceAddress address);

  // The fragment in use containing `address` and the block it lies in, if any.
  std::optional<Lookup> Find(DeviceAddress address) const;

  // Returns every cached block to the source.
  void Trim();

  Bytes cached_bytes() const { return cached_bytes_; }
  // Bytes of the shared (not discarded) blocks that hold at least one fragment in use.
  Bytes in_use_block_bytes() const { return in_use_bytes_; }
  size_t cached_blocks() const { return cache_.size(); }
  Bytes block_size() const { return block_size_; }

 private:
  // One piece of a block: a fragment in use, or free space.
  struct Tile {
    Bytes size;
    bool free;
  };
  absl::StatusOr<Lookup> CarveRange(Bytes size);

  struct Block {
    bool discarded;  // a large request's own block: never carved again, never cached
    // Empty and in cache_: its one free fragment is not in free_by_size_, so only taking the block from the
    // cache carves it. It keeps its record (and the fragment map's node) so a block going to the cache and
    // back costs no map insert or erase, and no heap allocation.
    bool cached = false;
    // By start address; they tile the block. std::map: merging erases while holding iterators to neighbours.
    std::map<uint64_t, Tile> fragments;
  };

  // Releases cached blocks, oldest first, while the cache is over its balance.
  void Balance();
  // Gives the oldest cached block back to the source.
  void ReleaseOldestCached();
  void AddFree(uint64_t address, Bytes size) { free_by_size_.emplace(size.raw(), address); }
  void RemoveFree(uint64_t address, Bytes size);

  BlockSource* source_;  // Not owned; must outlive this.
  const Bytes block_size_;
  AddressRangeMap<Block> blocks_;  // every block held: with fragments in use, or cached
  // Free fragment size -> start, for best fit. A B-tree: inserting and erasing seldom allocates.
  absl::btree_multimap<uint64_t, uint64_t> free_by_size_;
  std::deque<AddressRange> cache_;  // empty blocks, oldest first
  Bytes cached_bytes_;
  Bytes in_use_bytes_;
};

}  // namespace hipmem::hsa

#endif  // HIPMEM_HSA_FRAGMENT_ALLOCATOR_H_
