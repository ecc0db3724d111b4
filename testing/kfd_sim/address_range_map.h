// A set of disjoint GPU virtual-address ranges, each naming the buffer object (KFD handle) behind it.
//
// Plays the VA bookkeeping of amdgpu_vm (amdgpu_vm_bo_map / amdgpu_vm_bo_unmap) that KFD's
// MAP/UNMAP_MEMORY_TO/FROM_GPU drive: the simulator keeps one map per process per GPU as that GPU's page
// table, and one more per process per GPU for the VAs of the buffers allocated there. There are no
// physical pages behind it; the simulated engines translate a GPU address through Lookup().
#ifndef HIPMEM_TESTING_KFD_SIM_ADDRESS_RANGE_MAP_H_
#define HIPMEM_TESTING_KFD_SIM_ADDRESS_RANGE_MAP_H_

#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "base/units.h"

namespace hipmem::kfd_sim {

// Thread-compatible.
class AddressRangeMap {
 public:
  struct Entry {
    AddressRange range;
    uint64_t handle;  // the raw KFD handle, (gpu_id << 32) | idr
  };

  // Inserts `range` for `handle`.
  // Errors: kInvalidArgument when the range is empty or wraps the address space; kAlreadyExists,
  // changing nothing, when it overlaps an entry (amdgpu_vm_bo_map refuses such a conflict).
  absl::Status Insert(AddressRange range, uint64_t handle);

  // Removes the entry that is exactly `range` for `handle`.
  // Errors: kNotFound when there is no such entry.
  absl::Status Erase(AddressRange range, uint64_t handle);

  // Returns whether `range` overlaps any entry. An empty range overlaps nothing.
  bool Overlaps(AddressRange range) const;

  // Returns whether every byte of `range` lies in some entry (adjacent entries chain). An empty range is
  // never covered.
  bool Covers(AddressRange range) const;

  // Returns the entry that contains `address`, if any.
  std::optional<Entry> Lookup(DeviceAddress address) const;

  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

 private:
  // Keyed by range.base; entries never overlap, so they are also ordered by end.
  absl::btree_map<uint64_t, Entry> entries_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ADDRESS_RANGE_MAP_H_
