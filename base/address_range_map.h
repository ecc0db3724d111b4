// An ordered map from disjoint address ranges to values: the one address -> object map of every layer.
//
// Every layer resolves addresses to what lives there: the simulator its GPU page tables and buffer VAs
// (amdgpu_vm), the thunk its KFD buffers (libhsakmt's fmm objects), the HSA runtime its pool allocations
// (ROCr's allocation_map_), CLR its memory objects (ROCclr's MemObjMap). Each is this map: entries keyed by
// range start, never overlapping, so an interior address resolves by stepping back from upper_bound and
// checking the bounds. Thread-compatible: the owner locks around it.
#ifndef HIPMEM_BASE_ADDRESS_RANGE_MAP_H_
#define HIPMEM_BASE_ADDRESS_RANGE_MAP_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/units.h"

namespace hipmem {

template <typename V>
class AddressRangeMap {
 public:
  struct Entry {
    AddressRange range;
    V value;
  };
  using Map = absl::btree_map<uint64_t, Entry>;
  using iterator = typename Map::iterator;
  using const_iterator = typename Map::const_iterator;

  // Inserts `value` over `range`. kInvalidArgument when the range is empty or wraps the address space;
  // kAlreadyExists, changing nothing, when it overlaps an entry.
  absl::Status Insert(AddressRange range, V value) {
    if (!EndOf(range).has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("address range [", AddressText(range.base), ", +",
                                                     range.size.raw(), "): empty or wrapping"));
    }
    if (Overlaps(range)) {
      return absl::AlreadyExistsError(absl::StrCat("address range [", AddressText(range.base), ", +",
                                                   range.size.raw(), "): overlaps an entry"));
    }
    entries_.emplace(range.base.raw(), Entry{range, std::move(value)});
    return absl::OkStatus();
  }

  // The entry containing `address`, or null. Valid until the next Insert or Erase.
  Entry* Find(DeviceAddress address) { return Lookup(entries_, address); }
  const Entry* Find(DeviceAddress address) const { return Lookup(entries_, address); }

  // The entry starting exactly at `base`, or null (an interior address is not an entry's name).
  Entry* FindStart(DeviceAddress base) {
    auto it = entries_.find(base.raw());
    return it == entries_.end() ? nullptr : &it->second;
  }
  const Entry* FindStart(DeviceAddress base) const {
    auto it = entries_.find(base.raw());
    return it == entries_.end() ? nullptr : &it->second;
  }

  // Removes the entry starting exactly at `base` and returns it; nullopt when there is none.
  std::optional<Entry> Extract(DeviceAddress base) {
    auto it = entries_.find(base.raw());
    if (it == entries_.end()) return std::nullopt;
    std::optional<Entry> out(std::move(it->second));
    entries_.erase(it);
    return out;
  }
  // Removes the entry starting exactly at `base`; false when there is none.
  bool Erase(DeviceAddress base) { return entries_.erase(base.raw()) != 0; }

  // Whether `range` overlaps any entry. An empty or wrapping range overlaps nothing.
  bool Overlaps(AddressRange range) const {
    const std::optional<uint64_t> end = EndOf(range);
    if (!end.has_value()) return false;
    // Only the last entry starting below `end` can reach past range.base: entries are disjoint.
    auto it = entries_.lower_bound(*end);
    if (it == entries_.begin()) return false;
    --it;
    return it->second.range.end() > range.base;
  }

  // Whether every byte of `range` lies in some entry (adjacent entries chain). An empty range is never covered.
  bool Covers(AddressRange range) const {
    const std::optional<uint64_t> end = EndOf(range);
    if (!end.has_value()) return false;
    uint64_t cursor = range.base.raw();
    auto it = entries_.upper_bound(cursor);
    if (it == entries_.begin()) return false;
    --it;
    for (; it != entries_.end() && it->first <= cursor; ++it) {
      const uint64_t entry_end = it->second.range.end().raw();
      if (entry_end >= *end) return true;
      if (entry_end <= cursor) return false;
      cursor = entry_end;
    }
    return false;
  }

  // In address order; each element is (start, Entry).
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

 private:
  static std::optional<uint64_t> EndOf(AddressRange range) {
    if (range.size.is_zero()) return std::nullopt;
    const std::optional<DeviceAddress> end = CheckedAdd(range.base, range.size);
    if (!end.has_value()) return std::nullopt;
    return end->raw();
  }

  template <typename M>
  static auto Lookup(M& map, DeviceAddress address) -> decltype(&map.begin()->second) {
    auto it = map.upper_bound(address.raw());
    if (it == map.begin()) return nullptr;
    --it;
    return it->second.range.Contains(address) ? &it->second : nullptr;
  }

  Map entries_;
};

}  // namespace hipmem

#endif  // HIPMEM_BASE_ADDRESS_RANGE_MAP_H_
