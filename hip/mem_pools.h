// HIP's stream-ordered memory pools: what hipMallocAsync, hipFreeAsync and hipMemPool* are thin shells over.
//
// Plays hipamd's pool bookkeeping in hip::Device (hip_device.cpp: the default and current pool per device) and
// hip_mempool.cpp's argument checks, over clr::MemoryPool (clr/mem_pool.h, which holds the reuse rules). Each
// device has a default pool, made on first use, which cannot be destroyed; hipMemPoolCreate makes more. Handles
// are the pools' addresses, as in CLR, checked against the live set so a destroyed or foreign handle is an error
// instead of a crash. A pool destroyed while it still has allocations out lives on, unreachable by handle, until
// the runtime ends, so hipFree / hipFreeAsync of those allocations still work (CLR's pool reference count).
// Thread-safe.
#ifndef HIPMEM_HIP_MEM_POOLS_H_
#define HIPMEM_HIP_MEM_POOLS_H_

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/light_mutex.h"
#include "base/strong_id.h"
#include "base/units.h"
#include "clr/context.h"
#include "clr/mem_pool.h"
#include "clr/stream.h"

namespace hipmem::hip {

// hipMemPool_t's value.
using MemPoolHandle = StrongId<struct MemPoolHandleTag, uint64_t>;

// hipMemPoolAttr values.
enum class PoolAttr : int {
  kReuseFollowEventDependencies = 1,
  kReuseAllowOpportunistic = 2,
  kReuseAllowInternalDependencies = 3,
  kReleaseThreshold = 4,
  kReservedMemCurrent = 5,
  kReservedMemHigh = 6,
  kUsedMemCurrent = 7,
  kUsedMemHigh = 8,
};

class PoolTable {
 public:
  // `context` must outlive the table.
  explicit PoolTable(clr::Context& context);
  // Destroys every pool, each after the work queued before its frees is done.
  ~PoolTable();
  PoolTable(const PoolTable&) = delete;
  PoolTable& operator=(const PoolTable&) = delete;

  // hipDeviceGetDefaultMemPool. InvalidDeviceError for an ordinal out of range.
  absl::StatusOr<MemPoolHandle> DefaultPool(int device);
  // hipDeviceGetMemPool: the pool hipMallocAsync takes from on `device`. kInvalidArgument for an ordinal out of
  // range (CLR's answer here).
  absl::StatusOr<MemPoolHandle> CurrentPool(int device);
  // The pool CurrentPool names, in one lookup (the hipMallocAsync hit path). kInvalidArgument as CurrentPool.
  absl::StatusOr<std::shared_ptr<clr::MemoryPool>> CurrentPoolOf(int device);
  // hipMallocAsync from `device`'s current pool: CurrentPoolOf + clr::MemoryPool::Allocate, with a pool hit served
  // under the table's lock (no reference to the pool taken: one lock and no shared count on the hit path).
  // Errors: CurrentPoolOf's and Allocate's.
  absl::StatusOr<DeviceAddress> AllocateFromCurrent(int device, Bytes size, clr::Stream& stream);
  // hipDeviceSetMemPool. Errors: kInvalidArgument for an ordinal out of range or an unknown pool;
  // InvalidDeviceError for a pool of another device.
  absl::Status SetCurrentPool(int device, MemPoolHandle pool);

  // hipMemPoolCreate of a pool of `device`'s VRAM, bounded by `max_size` (nullopt: unbounded). kInvalidArgument
  // for an ordinal out of range.
  absl::StatusOr<MemPoolHandle> Create(int device, std::optional<Bytes> max_size);
  // hipMemPoolDestroy: gives back its completed free blocks; the device's current pool reverts to the default.
  // Errors: kInvalidArgument for an unknown pool or a default pool.
  absl::Status Destroy(MemPoolHandle pool);
  // The pool `handle` names, shared so a concurrent Destroy cannot free it under the caller. kInvalidArgument
  // for an unknown handle.
  absl::StatusOr<std::shared_ptr<clr::MemoryPool>> Find(MemPoolHandle handle);

  // hipFreeAsync / hipFree of pool memory: `ptr` goes back to the pool holding it (see clr::MemoryPool::Free).
  // kNotFound when no pool holds it as a busy block (the caller frees it synchronously, as CLR does).
  absl::Status Free(void* ptr, clr::Stream* stream);
  // Whether a pool holds `ptr` as a busy block.
  bool Owns(const void* ptr);
  // How the pools hold `ptr`, in one pass: hipFree asks this of every pointer, pool memory or not.
  enum class Hold {
    kNone,  // no pool holds it: ordinary memory, or unknown
    kBusy,  // the start of a busy block: the caller's to free
    kPool,  // inside a pool's memory but not a busy block's start (a block already freed, or an interior pointer)
  };
  Hold Classify(const void* ptr);

  // hipStreamWaitEvent: see clr::MemoryPool::AddSafeStream; applied to every pool.
  void AddSafeStream(const clr::Stream& waiter, const clr::Stream& origin, uint64_t event_tick);
  // hipStreamDestroy: see clr::MemoryPool::ForgetStream; `stream` is only compared, never used.
  void ForgetStream(const clr::Stream* stream);
  // Stream, event and device synchronisation: every pool gives back completed free blocks above its release
  // threshold. Returns the first error after trying them all.
  absl::Status ReleaseFreed();
  // hipDeviceReset: destroys every pool of `device` with its blocks (handles of created pools become unknown);
  // the default pool is made afresh on next use.
  void DropDevice(int device);

  // hipMemPoolSetAttribute: `value` points at an int (the three reuse flags) or a uint64_t (the rest). Errors:
  // kInvalidArgument for an unknown pool or attribute, the read-only currents, and a high mark other than 0.
  absl::Status SetAttribute(MemPoolHandle pool, PoolAttr attr, const void* value);
  // hipMemPoolGetAttribute, with the same value types. kInvalidArgument for an unknown pool or attribute.
  absl::Status GetAttribute(MemPoolHandle pool, PoolAttr attr, void* value);

 private:
  // The device's default pool, made on first use.
  std::shared_ptr<clr::MemoryPool>& DefaultLocked(int device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The pool CurrentPoolOf names, as held by the table.
  const std::shared_ptr<clr::MemoryPool>& CurrentLocked(int device) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::shared_ptr<clr::MemoryPool>> AllLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::vector<std::shared_ptr<clr::MemoryPool>> All() const;

  clr::Context& context_;  // Not owned; must outlive this.
  mutable LightMutex mu_;
  // Set once a pool exists, never cleared (a retired pool may hold memory): until then no pointer can be pool
  // memory, and a hipFree of ordinary memory looks no further. A pointer from a pool was handed out after its
  // pool's creation, so a thread freeing it sees the flag set (acquire/release).
  std::atomic<bool> has_pools_{false};
  std::vector<std::shared_ptr<clr::MemoryPool>> defaults_ ABSL_GUARDED_BY(mu_);  // by device, made on first use
  std::vector<clr::MemoryPool*> current_ ABSL_GUARDED_BY(mu_);                 // by device; nullptr: the default
  absl::flat_hash_map<uint64_t, std::shared_ptr<clr::MemoryPool>> created_ ABSL_GUARDED_BY(mu_);
  // Destroyed pools that still had allocations out.
  std::vector<std::shared_ptr<clr::MemoryPool>> retired_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::hip

#endif  // HIPMEM_HIP_MEM_POOLS_H_
