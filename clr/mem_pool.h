// A stream-ordered memory pool: the cache behind hipMallocAsync / hipFreeAsync.
//
// Plays hipamd's hip::MemoryPool (hip_mempool_impl.{hpp,cpp}, rocm_facts.md §6.2) on ROCclr's device memory. A
// pool owns VRAM blocks of one device in two heaps: busy (handed out) and free (given back, waiting for reuse).
// A block given back on a stream remembers that stream, a marker recorded there (done once every command queued
// before the free is), and an order tick. It is handed to a stream again only when nothing queued before its free
// can still touch it:
//   - the same stream: the new user's work queues behind the free;
//   - ReuseFollowEventDependencies: a stream that waited (hipStreamWaitEvent) on an event recorded after the free
//     on the freeing stream (upstream marks the stream safe whenever the wait happened, even for an event recorded
//     before the free; here the event's tick must follow the free's);
//   - ReuseAllowOpportunistic: any stream once the free's marker is done;
//   - ReuseAllowInternalDependencies: any stream, after making it wait on the free's marker on the GPU
//     (Stream::WaitFor; the host never blocks).
// Each attribute gates its own rule (upstream reads only Opportunistic, rocm-systems#10943). A block larger than
// 9/8 of the request is reused only on a stream that is already safe, as CLR does, so a small request does not
// pin a large block through an opportunistic or internal match.
//
// Freed blocks go back to the device (Context::Free) only when their marker is done: on ReleaseFreed (stream,
// event and device synchronisation) down to the release threshold, on TrimTo, and when a new block would exceed
// the pool's maximum size. Thread-safe: one mutex guards both heaps; streams are only identified by address and
// used for Record/WaitFor while the caller holds them alive.
#ifndef HIPMEM_CLR_MEM_POOL_H_
#define HIPMEM_CLR_MEM_POOL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "clr/context.h"
#include "clr/stream.h"

namespace hipmem::clr {

// A process-wide, strictly increasing count ordering frees against event records. A free takes its tick after
// recording its marker and an event record takes its tick before recording its own, so a free whose tick is below
// an event's on the same stream was queued before that event's mark.
uint64_t NextPoolOrderTick();

// The reuse policy and release threshold (hipMemPoolAttr's writable attributes). CUDA's and CLR's defaults.
struct PoolReusePolicy {
  bool follow_event_dependencies = true;
  bool allow_opportunistic = true;
  bool allow_internal_dependencies = true;
  Bytes release_threshold{0};
};

// hipMemPoolAttrReservedMem* / UsedMem*: reserved is every block the pool holds from the device (busy + free),
// used is the busy blocks. Exact: each counts whole blocks, as allocated from the device.
struct PoolUsage {
  Bytes reserved_current;
  Bytes reserved_high;
  Bytes used_current;
  Bytes used_high;
};

class MemoryPool {
 public:
  // A pool of `device`'s VRAM in `context`, which must outlive it. `max_size` (hipMemPoolProps.maxSize) bounds the
  // reserved bytes; nullopt for no bound.
  MemoryPool(Context& context, const Device& device, std::optional<Bytes> max_size = std::nullopt);
  // Waits for every freed block's marker and gives every block, busy or free, back to the device.
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  const Device& device() const { return device_; }

  // hipMallocAsync: a block of at least `size` bytes usable by work queued on `stream` from now on; a cached block
  // when a reuse rule allows one, else a new one from the device (mapped for the pool's peers). Size must be > 0.
  // Errors: kInvalidArgument for size 0; kResourceExhausted when the pool's maximum size or the device's memory
  // (after releasing completed free blocks) cannot hold it; WaitFor's errors for an internal dependency (the
  // block stays free).
  absl::StatusOr<DeviceAddress> Allocate(Bytes size, Stream& stream);

  // hipFreeAsync: `base` returns to the free heap, reusable once work queued on `stream` before now is done.
  // Without a stream (hipFree of pool memory, after the caller synchronised the device) it is reusable anywhere.
  // Errors: kNotFound when `base` is not a busy block of this pool; the stream's Record errors (the block stays
  // busy).
  absl::Status Free(DeviceAddress base, Stream* stream);
  // The part of Free that needs no mark: frees `base` and returns true when `stream` is null or idle, returns
  // false (nothing changed) when the free needs a mark on `stream`. kNotFound as Free.
  absl::StatusOr<bool> FreeIfIdle(DeviceAddress base, const Stream* stream);

  // Whether `address` is the start of a busy block of this pool.
  bool OwnsBusy(DeviceAddress address) const;
  // Whether `address` is the start of any block of this pool, busy or free (a free one is the pool's, not the
  // caller's: hipFree of it is a double free).
  bool Holds(DeviceAddress address) const;

  // hipStreamWaitEvent on an event recorded on `origin` at `event_tick`: work queued on `waiter` from now on runs
  // after everything `origin` had queued before the event, so blocks freed on `origin` before it are safe there.
  void AddSafeStream(const Stream& waiter, const Stream& origin, uint64_t event_tick);
  // Drops what AddSafeStream learnt about a stream being destroyed, so the table stays as small as the live
  // streams. Keeping it would be safe too: a destroyed stream finished its work, waits included.
  void ForgetStream(const Stream* stream);

  // Gives back completed free blocks, largest first, until the free heap holds at most the release threshold
  // (CLR's ReleaseFreedMemory). Returns the first Context::Free error after trying the others.
  absl::Status ReleaseFreed();
  // hipMemPoolTrimTo: gives back completed free blocks, largest first, as long as the pool still reserves at
  // least `keep` bytes afterwards (CUDA's guarantee). Errors as ReleaseFreed.
  absl::Status TrimTo(Bytes keep);

  PoolReusePolicy policy() const;
  void set_policy(const PoolReusePolicy& policy);
  PoolUsage usage() const;
  // hipMemPoolSetAttribute(*High, 0): the high mark restarts at the current value.
  void ResetReservedHigh();
  void ResetUsedHigh();

  // hipMemPoolSetAccess: whether `peer`'s GPU reaches the pool's blocks, those held now and those made later.
  // Granting maps every block on `peer`; revoking affects later grants only (a mapped block stays mapped, as
  // Context::DisablePeerAccess leaves mappings). Errors: kInvalidArgument for the pool's own device (it always
  // has access) or a peer without a path; the mapping's errors (the access is left as it was).
  absl::Status SetPeerAccess(const Device& peer, bool enabled);
  // hipMemPoolGetAccess: true for the pool's own device.
  bool PeerAccess(const Device& peer) const;

  size_t free_block_count() const;
  size_t busy_block_count() const;

 private:
  struct FreeBlock {
    DeviceAddress base;
    Bytes size;
    const Stream* stream;           // the freeing stream; nullptr: freed synchronously, safe everywhere
    std::optional<Marker> marker;   // the free's mark on `stream`; none when `stream` was idle at the free
    uint64_t tick;                  // NextPoolOrderTick after the mark
  };
  // How a free block may go to the allocating stream.
  enum class Reuse { kNo, kSafe, kAfterWait };

  Reuse Classify(const FreeBlock& block, const Stream& stream, Bytes size) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the work queued before `block`'s free is done (or there was none).
  static bool Completed(const FreeBlock& block);
  // Gives back completed free blocks, largest first, while the free heap holds more than `keep`.
  absl::Status ReleaseLocked(Bytes keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Gives back completed free blocks, largest first, each only when the reserved bytes stay >= `keep`.
  absl::Status TrimLocked(Bytes keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The GPUs besides the owner that must reach a block: the pool's access list and the context's peers.
  std::vector<hsa::AgentId> PeerAgentsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteBusy(DeviceAddress base, Bytes size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves busy block `base` to the free heap.
  void FreeLocked(DeviceAddress base, const Stream* stream, std::optional<Marker> marker)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Context& context_;       // Not owned; must outlive this.
  const Device& device_;   // Not owned; must outlive this.
  const std::optional<Bytes> max_size_;

  mutable absl::Mutex mu_;
  PoolReusePolicy policy_ ABSL_GUARDED_BY(mu_);
  // Free blocks by (size, base): a walk from lower_bound(size) finds the smallest fits first.
  std::map<std::pair<uint64_t, uint64_t>, FreeBlock> free_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, Bytes> busy_ ABSL_GUARDED_BY(mu_);  // base -> size
  absl::flat_hash_map<uint64_t, Bytes> free_index_ ABSL_GUARDED_BY(mu_);  // base -> size, the blocks in free_
  Bytes free_bytes_ ABSL_GUARDED_BY(mu_);
  Bytes busy_bytes_ ABSL_GUARDED_BY(mu_);
  Bytes reserved_high_ ABSL_GUARDED_BY(mu_);
  Bytes used_high_ ABSL_GUARDED_BY(mu_);
  // (waiter, origin) -> the newest event tick of `origin` that `waiter` waited on.
  absl::flat_hash_map<std::pair<const Stream*, const Stream*>, uint64_t> safe_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> access_ ABSL_GUARDED_BY(mu_);  // by device ordinal
};

}  // namespace hipmem::clr

#endif  // HIPMEM_CLR_MEM_POOL_H_
