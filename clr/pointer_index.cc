#include "clr/pointer_index.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace hipmem::clr {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

// Entry copies every MemoryDesc field: one added there must be added to Entry, Assign and desc() too.
static_assert(sizeof(MemoryDesc) == 64, "MemoryDesc changed: carry the new field in PointerIndex::Entry");

void PointerIndex::Entry::Assign(const Memory& memory) {
  const MemoryDesc& desc = memory.desc();
  base_ = desc.range.base.raw();
  size_ = desc.range.size.raw();
  gpu_address_ = desc.gpu_address.raw();
  pool_ = desc.pool.raw();
  buffer_id_ = desc.buffer_id;
  user_flags_ = desc.user_flags;
  device_ = desc.device;
  kind_ = static_cast<uint8_t>(desc.kind);
  sync_mem_ops_ = desc.sync_mem_ops ? 1 : 0;
  shared_ = 0;
}

MemoryDesc PointerIndex::Entry::desc() const {
  return MemoryDesc{.range = AddressRange{DeviceAddress(base_), Bytes(size_)},
                    .gpu_address = DeviceAddress(gpu_address_),
                    .kind = static_cast<MemoryKind>(kind_),
                    .device = device_,
                    .user_flags = user_flags_,
                    .pool = hsa::PoolId(pool_),
                    .buffer_id = buffer_id_,
                    .sync_mem_ops = sync_mem_ops_ != 0};
}

void PointerIndex::Add(uint64_t page, const Memory& memory) {
  if (Entry* entry = FindMutable(page); entry != nullptr) {
    entry->shared_ = 1;  // a second object on the page: the caller's full map tells them apart
    return;
  }
  if ((size_ + 1) * 2 > capacity()) Rehash(capacity() == 0 ? kMinCapacity : capacity() * 2);
  uint64_t i = Home(page);
  while (slots_[i].page_ != Entry::kEmpty) i = (i + 1) & mask_;
  slots_[i].page_ = page;
  slots_[i].Assign(memory);
  ++size_;
}

void PointerIndex::Refresh(uint64_t page, const Memory& memory) {
  if (Entry* entry = FindMutable(page); entry != nullptr && entry->Describes(memory)) entry->Assign(memory);
}

void PointerIndex::Erase(uint64_t page) {
  if (size_ == 0) return;
  uint64_t hole = Home(page);
  while (slots_[hole].page_ != page) {
    if (slots_[hole].page_ == Entry::kEmpty) return;
    hole = (hole + 1) & mask_;
  }
  // Backward shift: an entry further along the run moves into the hole when the hole lies on its probe path
  // (between its home slot and where it sits), so every remaining entry stays reachable from its home.
  for (uint64_t j = (hole + 1) & mask_; slots_[j].page_ != Entry::kEmpty; j = (j + 1) & mask_) {
    const uint64_t home = Home(slots_[j].page_);
    if (((j - home) & mask_) >= ((j - hole) & mask_)) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole].page_ = Entry::kEmpty;
  --size_;
  // Give memory back once the population has fallen well below the table (a load of 1/8, so a following
  // growth at 1/2 is four times as many Adds away).
  if (capacity() > kMinCapacity && size_ * 8 < capacity()) Rehash(capacity() / 2);
}

PointerIndex::Slots PointerIndex::Allocate(size_t capacity) {
  const size_t bytes = capacity * sizeof(Entry);
  const bool huge = bytes >= kHugePage;
  // A power of two no smaller than the alignment, so aligned_alloc's size rule holds.
  void* memory = std::aligned_alloc(huge ? kHugePage : alignof(Entry), bytes);
  // Like a standard container without exceptions: the process cannot go on without its pointer index.
  if (memory == nullptr) std::abort();
  // A hint only: without huge pages the table works the same, with more TLB misses.
  if (huge) (void)madvise(memory, bytes, MADV_HUGEPAGE);
  Entry* slots = static_cast<Entry*>(memory);
  for (size_t i = 0; i < capacity; ++i) new (&slots[i]) Entry();
  return Slots(slots);
}

void PointerIndex::Rehash(size_t capacity) {
  Slots old = std::exchange(slots_, Allocate(capacity));
  const uint64_t old_capacity = mask_ + (old == nullptr ? 0 : 1);
  mask_ = capacity - 1;
  shift_ = 64 - __builtin_ctzll(capacity);
  for (uint64_t k = 0; k < old_capacity; ++k) {
    if (old[k].page_ == Entry::kEmpty) continue;
    uint64_t i = Home(old[k].page_);
    while (slots_[i].page_ != Entry::kEmpty) i = (i + 1) & mask_;
    slots_[i] = old[k];
  }
}

}  // namespace hipmem::clr
