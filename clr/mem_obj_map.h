// The address -> memory object map every copy and pointer query classifies pointers with.
//
// Plays ROCclr's amd::MemObjMap (one ordered map under a lock: upper_bound, step back, bounds
// check), so interior pointers resolve to their allocation. Thread-safe.
//
// Where this differs from ROCclr, on purpose: beside the ordered map, small objects (up to kIndexedBytes) are
// indexed by 4 KiB page in a hash table and larger ones sit in a second ordered map of their own, so a lookup
// costs one hash probe (plus a search among the large objects only), not a walk down a tree of every allocation:
// hipPointerGetAttributes and every copy's classification stay flat from 10^3 to 10^6 live allocations
// (issue #9 §5). A page two small objects share is marked and resolved through the full map. The page index
// (clr/pointer_index.h) keeps a copy of each small object's description in its slot, so resolving one reads
// one cache line.
//
// An object the GPUs see at another address than the CPU (registered memory: its lock's GPU address) is also
// found at that address, as ROCclr's ihipHostRegister adds each device's address to the map: the pointer
// hipHostGetDevicePointer hands out then classifies as the registered memory it is, in copies and pointer queries.
// Its MemObjRef describes the object as usual (range = the CPU's range, offset into it).
#ifndef HIPMEM_CLR_MEM_OBJ_MAP_H_
#define HIPMEM_CLR_MEM_OBJ_MAP_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <vector>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/address_range_map.h"
#include "base/light_mutex.h"
#include "base/units.h"
#include "clr/memory.h"
#include "clr/pointer_index.h"

namespace hipmem::clr {

// What a pointer resolves to: a copy of the object's description and the offset into it.
struct MemObjRef {
  MemoryDesc desc;
  Bytes offset;
};

// A pointer looked up once, at the top of an operation (Context::Resolve), and handed down so that the layers below
// do not look it up again (issue #26). `object` is empty when no memory object covers the address (pageable host
// memory). A snapshot: it says what the address was when it was resolved.
struct ResolvedPointer {
  DeviceAddress address;
  std::optional<MemObjRef> object;
};

class MemObjMap {
 public:
  // Takes ownership of `memory` and gives it the next buffer id. kAlreadyExists when its range overlaps an
  // object already present.
  absl::Status Insert(std::unique_ptr<Memory> memory);

  // Sets the sync_mem_ops user data of the object containing `address`. kNotFound when none does.
  absl::Status SetSyncMemOps(DeviceAddress address, bool sync);

  // Removes and returns the object starting exactly at `base`, if it is of one of the `kinds`. kNotFound
  // when no object starts there (an interior pointer is not something one frees); kFailedPrecondition,
  // leaving it in place, when it is of another kind.
  absl::StatusOr<std::unique_ptr<Memory>> Extract(DeviceAddress base, std::initializer_list<MemoryKind> kinds);

  // Resolves any address inside an object.
  std::optional<MemObjRef> Find(DeviceAddress address) const;

  size_t size() const;

  // The start addresses of every object of `kind` that belongs to device `device`.
  std::vector<DeviceAddress> Bases(int device, MemoryKind kind) const;

 private:
  static constexpr uint64_t kPageShift = 12;
  // At most 5 pages per object in the index: every indexed page is one slot written at hipMalloc and one erased at
  // hipFree, so indexing a 64 KiB object page by page made it a third of a cached hipMalloc+hipFree pair; objects
  // above this go to large_, an ordered map only of them.
  static constexpr uint64_t kIndexedBytes = uint64_t{16} << 10;

  void Index(const Memory* memory) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Unindex(const Memory* memory) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Reindex(const Memory* memory) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);  // its mutable user data changed
  const Memory* Lookup(DeviceAddress address) const ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable LightMutex mu_;
  AddressRangeMap<std::unique_ptr<Memory>> objects_ ABSL_GUARDED_BY(mu_);  // every object, owned
  // Page number -> the one small object touching that page, or the mark that several do (see objects_).
  PointerIndex pages_ ABSL_GUARDED_BY(mu_);
  AddressRangeMap<const Memory*> large_ ABSL_GUARDED_BY(mu_);  // the objects above kIndexedBytes
  // GPU range -> the object, for objects whose gpu_address is not their range's base (and whose GPU range
  // overlaps no other object: ROCclr adds the alias only where the map has nothing).
  AddressRangeMap<const Memory*> aliases_ ABSL_GUARDED_BY(mu_);
  uint64_t next_buffer_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_MEM_OBJ_MAP_H_
