// hipMallocAsync, hipFreeAsync and hipMemPool*: thin shells over hip::PoolTable. Argument checks CLR makes in
// hip_mempool.cpp before its pool code (null pointers, property and descriptor validation) are made here, with
// CLR's codes; the pools' rules live in clr::MemoryPool.
//
// Export and import (pointer and shareable handle) answer hipErrorNotSupported after CLR's argument checks: a
// pool's blocks would travel to another process as a dma-buf of the KFD allocation, and the simulated KFD serves
// one process, so there is nobody to import them. Managed pools (hipMemAllocationTypeManaged) answer the same
// until managed memory exists (issue 10 §2).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/scoped_lock.h"
#include "hip/c_shell.h"
#include "hip/hip_error.h"
#include "hip/hip_runtime_api.h"
#include "hip/mem_pools.h"
#include "hip/runtime.h"
#include "hip/streams.h"

namespace {

using hipmem::Bytes;
using hipmem::hip::HipStream;
using hipmem::hip::MemPoolHandle;
using hipmem::hip::PoolAttr;
using hipmem::hip::Return;
using hipmem::hip::Runtime;
using hipmem::hip::StreamHandle;

StreamHandle Handle(hipStream_t stream) { return StreamHandle(reinterpret_cast<uint64_t>(stream)); }
MemPoolHandle Handle(hipMemPool_t pool) { return MemPoolHandle(reinterpret_cast<uint64_t>(pool)); }
hipMemPool_t ToC(MemPoolHandle pool) { return reinterpret_cast<hipMemPool_t>(pool.raw()); }

// The peers a pool granted hipMemAccessFlagsProtRead, as (pool handle, device). The KFD maps a peer's VRAM
// read-write, so the pool only knows whether a peer reaches it; this keeps which grants asked for read-only so
// hipMemPoolGetAccess reports the flags it was given, as CLR does. Every grant and revoke rewrites the entry and
// only hipMemPoolSetAccess grants access, so a handle reused after hipMemPoolDestroy never shows a stale entry.
// Thread-safe.
class ReadOnlyGrants {
 public:
  void Set(MemPoolHandle pool, int device, bool read_only) {
    hipmem::ScopedLock lock(&mu_);
    if (read_only) {
      grants_.insert({pool.raw(), device});
    } else {
      grants_.erase(std::make_pair(pool.raw(), device));
    }
  }
  bool ReadOnly(MemPoolHandle pool, int device) const {
    hipmem::ScopedLock lock(&mu_);
    return grants_.contains(std::make_pair(pool.raw(), device));
  }
  void Forget(MemPoolHandle pool) {
    hipmem::ScopedLock lock(&mu_);
    absl::erase_if(grants_, [pool](const std::pair<uint64_t, int>& g) { return g.first == pool.raw(); });
  }

 private:
  mutable absl::Mutex mu_;
  absl::flat_hash_set<std::pair<uint64_t, int>> grants_ ABSL_GUARDED_BY(mu_);
};

// Leaked on purpose: C entry points may run during static destruction.
ReadOnlyGrants& Grants() {
  static ReadOnlyGrants* grants = new ReadOnlyGrants();
  return *grants;
}

// Allocates `size` bytes from `pool` (the stream's device's current pool when nullopt) for work on `stream`.
hipError_t MallocAsync(void** dev_ptr, size_t size, std::optional<MemPoolHandle> pool, hipStream_t stream) {
  HIPMEM_RUNTIME_OR_RETURN(rt);
  if (dev_ptr == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<HipStream*> s = rt.streams().Resolve(Handle(stream), rt.current_device());
  if (!s.ok()) return Return(s.status());
  if (size == 0) {
    *dev_ptr = nullptr;
    return Return(hipSuccess);
  }
  // No legacy-stream ordering here: an allocation queues no work of its own (at most a wait on an earlier free),
  // and the commands that use the block apply it when they are queued.
  absl::StatusOr<hipmem::DeviceAddress> base;
  if (pool.has_value()) {
    absl::StatusOr<std::shared_ptr<hipmem::clr::MemoryPool>> p = rt.pools().Find(*pool);
    if (!p.ok()) return Return(p.status());
    base = (*p)->Allocate(Bytes(size), (*s)->queue());
  } else {
    base = rt.pools().AllocateFromCurrent((*s)->device(), Bytes(size), (*s)->queue());
  }
  if (!base.ok()) return Return(hipmem::hip::DeviceFaultAsHip(base.status()));
  *dev_ptr = base->ToPointer();
  return Return(hipSuccess);
}

}  // namespace

extern "C" {

hipError_t hipMallocAsync(void** dev_ptr, size_t size, hipStream_t stream) {
  HIPMEM_API_SLICE(dev_ptr, size, stream);
  return MallocAsync(dev_ptr, size, std::nullopt, stream);
}

hipError_t hipMallocFromPoolAsync(void** dev_ptr, size_t size, hipMemPool_t mem_pool, hipStream_t stream) {
  HIPMEM_API_SLICE(dev_ptr, size, mem_pool, stream);
  if (mem_pool == nullptr) return Return(hipErrorInvalidValue);
  return MallocAsync(dev_ptr, size, Handle(mem_pool), stream);
}

hipError_t hipFreeAsync(void* dev_ptr, hipStream_t stream) {
  HIPMEM_INIT_OR_RETURN(rt, dev_ptr, stream);
  absl::StatusOr<HipStream*> s = rt.streams().Resolve(Handle(stream), rt.current_device());
  if (!s.ok()) return Return(s.status());
  if (dev_ptr == nullptr) return Return(hipSuccess);
  if (absl::Status before = rt.streams().BeforeCommand(**s); !before.ok()) return Return(before);
  absl::Status freed = rt.pools().Free(dev_ptr, &(*s)->queue());
  // CLR: memory no pool holds as a busy block gets a synchronous free (an unknown or already-freed pointer:
  // hipErrorInvalidValue).
  if (absl::IsNotFound(freed)) return Return(rt.Free(dev_ptr));
  return Return(hipmem::hip::DeviceFaultAsHip(freed));
}

hipError_t hipDeviceGetDefaultMemPool(hipMemPool_t* mem_pool, int device) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, device);
  if (mem_pool == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<MemPoolHandle> pool = rt.pools().DefaultPool(device);
  if (!pool.ok()) return Return(pool.status());
  *mem_pool = ToC(*pool);
  return Return(hipSuccess);
}

hipError_t hipDeviceGetMemPool(hipMemPool_t* mem_pool, int device) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, device);
  if (mem_pool == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<MemPoolHandle> pool = rt.pools().CurrentPool(device);
  if (!pool.ok()) return Return(pool.status());
  *mem_pool = ToC(*pool);
  return Return(hipSuccess);
}

hipError_t hipDeviceSetMemPool(int device, hipMemPool_t mem_pool) {
  HIPMEM_INIT_OR_RETURN(rt, device, mem_pool);
  if (mem_pool == nullptr) return Return(hipErrorInvalidValue);
  return Return(rt.pools().SetCurrentPool(device, Handle(mem_pool)));
}

hipError_t hipMemPoolCreate(hipMemPool_t* mem_pool, const hipMemPoolProps* pool_props) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, pool_props);
  if (mem_pool == nullptr || pool_props == nullptr) return Return(hipErrorInvalidValue);
  if (pool_props->allocType == hipMemAllocationTypeManaged) return Return(hipErrorNotSupported);
  if (pool_props->allocType != hipMemAllocationTypePinned) return Return(hipErrorInvalidValue);
  if (pool_props->location.type != hipMemLocationTypeDevice || pool_props->location.id < 0 ||
      pool_props->location.id >= rt.device_count()) {
    return Return(hipErrorInvalidValue);
  }
  const std::optional<Bytes> max_size =
      pool_props->maxSize == 0 ? std::nullopt : std::optional<Bytes>(Bytes(pool_props->maxSize));
  absl::StatusOr<MemPoolHandle> pool = rt.pools().Create(pool_props->location.id, max_size);
  if (!pool.ok()) return Return(pool.status());
  *mem_pool = ToC(*pool);
  return Return(hipSuccess);
}

hipError_t hipMemPoolDestroy(hipMemPool_t mem_pool) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool);
  if (mem_pool == nullptr) return Return(hipErrorInvalidValue);
  absl::Status destroyed = rt.pools().Destroy(Handle(mem_pool));
  if (destroyed.ok()) Grants().Forget(Handle(mem_pool));
  return Return(destroyed);
}

hipError_t hipMemPoolTrimTo(hipMemPool_t mem_pool, size_t min_bytes_to_hold) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, min_bytes_to_hold);
  if (mem_pool == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<std::shared_ptr<hipmem::clr::MemoryPool>> pool = rt.pools().Find(Handle(mem_pool));
  if (!pool.ok()) return Return(pool.status());
  return Return((*pool)->TrimTo(Bytes(min_bytes_to_hold)));
}

hipError_t hipMemPoolSetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void* value) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, attr, value);
  if (mem_pool == nullptr || value == nullptr) return Return(hipErrorInvalidValue);
  return Return(rt.pools().SetAttribute(Handle(mem_pool), static_cast<PoolAttr>(attr), value));
}

hipError_t hipMemPoolGetAttribute(hipMemPool_t mem_pool, hipMemPoolAttr attr, void* value) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, attr, value);
  if (mem_pool == nullptr || value == nullptr) return Return(hipErrorInvalidValue);
  return Return(rt.pools().GetAttribute(Handle(mem_pool), static_cast<PoolAttr>(attr), value));
}

hipError_t hipMemPoolSetAccess(hipMemPool_t mem_pool, const hipMemAccessDesc* desc_list, size_t count) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, desc_list, count);
  if (mem_pool == nullptr || desc_list == nullptr) return Return(hipErrorInvalidValue);
  if (count > static_cast<size_t>(rt.device_count())) return Return(hipErrorInvalidDevice);
  absl::StatusOr<std::shared_ptr<hipmem::clr::MemoryPool>> pool = rt.pools().Find(Handle(mem_pool));
  if (!pool.ok()) return Return(pool.status());
  const int own = (*pool)->device().ordinal;
  // Every descriptor is checked before any applies, as CLR does.
  for (size_t i = 0; i < count; ++i) {
    const hipMemAccessDesc& d = desc_list[i];
    if (d.location.type != hipMemLocationTypeDevice) return Return(hipErrorInvalidValue);
    if (d.location.id < 0 || d.location.id >= rt.device_count()) return Return(hipErrorInvalidDevice);
    if (d.flags != hipMemAccessFlagsProtNone && d.flags != hipMemAccessFlagsProtRead &&
        d.flags != hipMemAccessFlagsProtReadWrite) {
      return Return(hipErrorInvalidValue);
    }
    if (d.location.id == own && d.flags == hipMemAccessFlagsProtNone) return Return(hipErrorInvalidDevice);
    if (d.location.id == own && d.flags == hipMemAccessFlagsProtRead) return Return(hipErrorNotSupported);
  }
  for (size_t i = 0; i < count; ++i) {
    const hipMemAccessDesc& d = desc_list[i];
    if (d.location.id == own) continue;
    // The KFD maps a peer's VRAM read-write: ProtRead grants the same mapping.
    absl::Status set = (*pool)->SetPeerAccess(rt.context().devices()[d.location.id],
                                              d.flags != hipMemAccessFlagsProtNone);
    if (!set.ok()) return Return(set);
    Grants().Set(Handle(mem_pool), d.location.id, d.flags == hipMemAccessFlagsProtRead);
  }
  return Return(hipSuccess);
}

hipError_t hipMemPoolGetAccess(hipMemAccessFlags* flags, hipMemPool_t mem_pool, hipMemLocation* location) {
  HIPMEM_INIT_OR_RETURN(rt, flags, mem_pool, location);
  if (flags == nullptr || mem_pool == nullptr || location == nullptr) return Return(hipErrorInvalidValue);
  if (location->type != hipMemLocationTypeDevice || location->id < 0 || location->id >= rt.device_count()) {
    return Return(hipErrorInvalidValue);
  }
  absl::StatusOr<std::shared_ptr<hipmem::clr::MemoryPool>> pool = rt.pools().Find(Handle(mem_pool));
  if (!pool.ok()) return Return(pool.status());
  if (!(*pool)->PeerAccess(rt.context().devices()[location->id])) {
    *flags = hipMemAccessFlagsProtNone;
  } else {
    *flags = Grants().ReadOnly(Handle(mem_pool), location->id) ? hipMemAccessFlagsProtRead
                                                               : hipMemAccessFlagsProtReadWrite;
  }
  return Return(hipSuccess);
}

hipError_t hipMemPoolExportToShareableHandle(void* shared_handle, hipMemPool_t mem_pool,
                                             hipMemAllocationHandleType handle_type, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, shared_handle, mem_pool, handle_type, flags);
  if (mem_pool == nullptr || shared_handle == nullptr || flags != 0) return Return(hipErrorInvalidValue);
  if (handle_type == hipMemHandleTypeNone) return Return(hipErrorInvalidValue);
  absl::StatusOr<std::shared_ptr<hipmem::clr::MemoryPool>> pool = rt.pools().Find(Handle(mem_pool));
  if (!pool.ok()) return Return(pool.status());
  return Return(hipErrorNotSupported);
}

hipError_t hipMemPoolImportFromShareableHandle(hipMemPool_t* mem_pool, void* shared_handle,
                                               hipMemAllocationHandleType handle_type, unsigned int flags) {
  HIPMEM_INIT_OR_RETURN(rt, mem_pool, shared_handle, handle_type, flags);
  (void)rt;
  if (mem_pool == nullptr || shared_handle == nullptr || flags != 0) return Return(hipErrorInvalidValue);
  if (handle_type == hipMemHandleTypeNone) return Return(hipErrorInvalidValue);
  return Return(hipErrorNotSupported);
}

hipError_t hipMemPoolExportPointer(hipMemPoolPtrExportData* export_data, void* dev_ptr) {
  HIPMEM_INIT_OR_RETURN(rt, export_data, dev_ptr);
  if (export_data == nullptr || dev_ptr == nullptr) return Return(hipErrorInvalidValue);
  if (!rt.pools().Owns(dev_ptr)) return Return(hipErrorInvalidValue);
  return Return(hipErrorNotSupported);
}

hipError_t hipMemPoolImportPointer(void** dev_ptr, hipMemPool_t mem_pool, hipMemPoolPtrExportData* export_data) {
  HIPMEM_INIT_OR_RETURN(rt, dev_ptr, mem_pool, export_data);
  if (dev_ptr == nullptr || mem_pool == nullptr || export_data == nullptr) return Return(hipErrorInvalidValue);
  absl::StatusOr<std::shared_ptr<hipmem::clr::MemoryPool>> pool = rt.pools().Find(Handle(mem_pool));
  if (!pool.ok()) return Return(pool.status());
  return Return(hipErrorNotSupported);
}

}  // extern "C"
