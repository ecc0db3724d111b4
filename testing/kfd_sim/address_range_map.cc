#include "testing/kfd_sim/address_range_map.h"

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/units.h"

namespace hipmem::kfd_sim {
namespace {

// Returns the exclusive end of `range`, or nullopt when it is empty or wraps.
std::optional<uint64_t> EndOf(AddressRange range) {
  if (range.size.is_zero()) return std::nullopt;
  const std::optional<DeviceAddress> end = CheckedAdd(range.base, range.size);
  if (!end) return std::nullopt;
  return end->raw();
}

}  // namespace

absl::Status AddressRangeMap::Insert(AddressRange range, uint64_t handle) {
  const std::optional<uint64_t> end = EndOf(range);
  if (!end) {
    return absl::InvalidArgumentError(
        absl::StrCat("AddressRangeMap::Insert(base=0x", absl::Hex(range.base.raw()), ", size=",
                     range.size.raw(), "): empty or wrapping range"));
  }
  if (Overlaps(range)) {
    return absl::AlreadyExistsError(absl::StrCat("AddressRangeMap::Insert(base=0x", absl::Hex(range.base.raw()),
                                                 ", size=", range.size.raw(), "): overlaps a mapping"));
  }
  entries_.emplace(range.base.raw(), Entry{range, handle});
  return absl::OkStatus();
}

absl::Status AddressRangeMap::Erase(AddressRange range, uint64_t handle) {
  const auto it = entries_.find(range.base.raw());
  if (it == entries_.end() || it->second.range != range || it->second.handle != handle) {
    return absl::NotFoundError(absl::StrCat("AddressRangeMap::Erase(base=0x", absl::Hex(range.base.raw()),
                                            ", handle=0x", absl::Hex(handle), "): no such mapping"));
  }
  entries_.erase(it);
  return absl::OkStatus();
}

bool AddressRangeMap::Overlaps(AddressRange range) const {
  const std::optional<uint64_t> end = EndOf(range);
  if (!end) return false;
  // The first entry starting at or after `end` cannot overlap; the one before it is the only entry
  // that can start below `end` and reach past range.base, since entries are disjoint.
  auto it = entries_.lower_bound(*end);
  if (it == entries_.begin()) return false;
  --it;
  return it->second.range.end() > range.base;
}

bool AddressRangeMap::Covers(AddressRange range) const {
  const std::optional<uint64_t> end = EndOf(range);
  if (!end) return false;
  uint64_t cursor = range.base.raw();
  // Start from the entry containing range.base, then walk entries as long as each begins exactly where
  // the previous one ended.
  auto it = entries_.upper_bound(cursor);
  if (it == entries_.begin()) return false;
  --it;
  while (it != entries_.end() && it->first <= cursor) {
    const uint64_t entry_end = it->second.range.end().raw();
    if (entry_end >= *end) return true;
    if (entry_end <= cursor) return false;
    cursor = entry_end;
    ++it;
  }
  return false;
}

std::optional<AddressRangeMap::Entry> AddressRangeMap::Lookup(DeviceAddress address) const {
  auto it = entries_.upper_bound(address.raw());
  if (it == entries_.begin()) return std::nullopt;
  --it;
  if (!it->second.range.Contains(address)) return std::nullopt;
  return it->second;
}

}  // namespace hipmem::kfd_sim
