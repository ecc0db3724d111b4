// Lookup of the range containing an address in a map keyed by range start.
//
// Every layer keeps its allocations in an ordered map from start address to a record holding an
// AddressRange (thunk: KFD BOs, hsa: pool allocations, clr: memory objects). Interior pointers
// resolve by stepping back from upper_bound and checking the bounds, as ROCclr's MemObjMap does.
#ifndef HIPMEM_BASE_ADDRESS_MAP_H_
#define HIPMEM_BASE_ADDRESS_MAP_H_

#include <iterator>

#include "base/units.h"

namespace hipmem {

// Returns the entry of `map` (keyed by the raw start address) whose range contains `address`, or
// map.end(). `range_of(value)` gives an entry's AddressRange.
template <typename Map, typename RangeOf>
auto FindContaining(Map& map, DeviceAddress address, RangeOf range_of) -> decltype(map.end()) {
  auto it = map.upper_bound(address.raw());
  if (it == map.begin()) return map.end();
  --it;
  return range_of(it->second).Contains(address) ? it : map.end();
}

}  // namespace hipmem

#endif  // HIPMEM_BASE_ADDRESS_MAP_H_
