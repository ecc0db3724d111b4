// A stream-ordered memory pool: the cache behind hipMallocAsync / hipFreeAsync.
//
// Plays hipamd's hip::MemoryPool (hip_mempool_impl.{hpp,cpp}, rocm_facts.md §6.2) on ROCclr's device memory. A
// pool owns segments of one device's VRAM (each one Context::AllocDevice) cut into ranges, busy (handed out) or
// free (given back, waiting for reuse). A range given back on a stream remembers, per stream whose frees it holds,
// that stream, a marker recorded there (done once every command queued before the free is) and an order tick: its
// fences. It is handed to a stream again only when nothing queued before any of its frees can still touch it,
// each fence passing one of these:
//   - the same stream: the new user's work queues behind the free;
//   - ReuseFollowEventDependencies: a stream that waited (hipStreamWaitEvent) on an event recorded after the free
//     on the freeing stream (upstream marks the stream safe whenever the wait happened, even for an event recorded
//     before the free; here the event's tick must follow the free's);
//   - ReuseAllowOpportunistic: any stream once the free's marker is done;
//   - ReuseAllowInternalDependencies: any stream, after making it wait on the free's marker on the GPU
//     (Stream::WaitFor; the host never blocks).
// Each attribute gates its own rule (upstream reads only Opportunistic, rocm-systems#10943).
//
// Block policy, where it departs from CLR. CLR keeps each hipMallocAsync's buffer whole: a request takes the
// smallest cached buffer that fits, any size on a safe stream but at most 9/8 of the request through an
// opportunistic or internal match, and a miss allocates a buffer of the request's size. Under a training loop's
// shifting sizes that reserves far more than is live (a small request pins a large buffer, a large one misses
// every small buffer). Here requests round up to 256 B (the alignment every pool pointer keeps); a miss allocates
// a segment of exactly that size; a hit takes the best fit, the smallest free range that fits among those the
// stream may take without a wait (else the smallest it may take after one), and splits it, the rest staying free
// with the same fences; a range given back coalesces with free neighbours of its segment, the merged range
// carrying the fences of both (one per stream, the latest, which orders after the earlier ones). Since nothing is
// pinned, CLR's 9/8 rule has no purpose and is gone. CUDA's pool maps physical pages into whatever range a request
// needs, so idle cached memory never makes it grow; with one device allocation per segment the nearest
// equivalent is reshaping: a miss first gives back wholly free segments smaller than the request, largest first,
// until they add up to it, and a wholly free segment over twice the request is not split but joins them (given
// back when they fall short), so a new segment of the request's size takes their place. Only segments whose
// frees completed (the device may hand their memory to anyone) and that the reuse rules let the stream take (no
// attribute is bypassed). With the release threshold at UINT64_MAX, as PyTorch sets it, this trades device
// allocations on a miss for a footprint close to the live bytes (pool_trace_benchmark).
//
// Accounting is exact: ReservedMem is the bytes of every segment held from the device, UsedMem the bytes of the
// busy ranges, each a request rounded up to 256 B. A segment goes back to the device (Context::Free) only whole
// and free with every fence's marker done: on ReleaseFreed (stream, event and device synchronisation) down to the
// release threshold, on TrimTo, on a miss (reshaping, above), and when a new segment would exceed the pool's
// maximum size or the device's memory. Thread-safe: one mutex guards the ranges; streams are only identified by address and used for
// Record/WaitFor while the caller holds them alive.
#ifndef HIPMEM_CLR_MEM_POOL_H_
#define HIPMEM_CLR_MEM_POOL_H_

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/light_mutex.h"
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

// hipMemPoolAttrReservedMem* / UsedMem*: reserved is every segment the pool holds from the device, used is the
// busy ranges (requests rounded up to MemoryPool::kGranule). Exact: bytes as allocated and handed out.
struct PoolUsage {
  Bytes reserved_current;
  Bytes reserved_high;
  Bytes used_current;
  Bytes used_high;
};

class MemoryPool {
 public:
  // Requests round up to this; every range, so every pointer the pool hands out, stays aligned to it (CUDA's and
  // HIP's allocation alignment).
  static constexpr Bytes kGranule = Bytes(256);

  // A pool of `device`'s VRAM in `context`, which must outlive it. `max_size` (hipMemPoolProps.maxSize) bounds the
  // reserved bytes; nullopt for no bound.
  MemoryPool(Context& context, const Device& device, std::optional<Bytes> max_size = std::nullopt);
  // Waits for every freed block's marker and gives every block, busy or free, back to the device.
  ~MemoryPool();
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  const Device& device() const { return device_; }

  // hipMallocAsync: `size` bytes, rounded up to kGranule, usable by work queued on `stream` from now on; carved
  // from a free range when the reuse rules allow one, else a new segment from the device (mapped for the pool's
  // peers). Errors: kInvalidArgument for size 0; kResourceExhausted when the pool's maximum size or the device's
  // memory (after releasing completed free segments) cannot hold it; WaitFor's errors for an internal dependency
  // (the range stays free).
  absl::StatusOr<DeviceAddress> Allocate(Bytes size, Stream& stream);

  // The part of Allocate that needs neither the device nor a wait: the range Allocate would carve when it is
  // one `stream` may take as it is; nullopt when Allocate would do anything else (a miss, a reshape, a wait, a
  // bad size). For a caller that holds a lock of its own across it (PoolTable's hit path).
  std::optional<DeviceAddress> TryAllocateCached(Bytes size, const Stream& stream);

  // hipFreeAsync: `base` returns to the free ranges, reusable once work queued on `stream` before now is done.
  // Without a stream (hipFree of pool memory, after the caller synchronised the device) it is reusable anywhere.
  // Errors: kNotFound when `base` is not a busy block of this pool; the stream's Record errors (the block stays
  // busy).
  absl::Status Free(DeviceAddress base, Stream* stream);
  // The part of Free that needs no mark: frees `base` and returns true when `stream` is null or idle, returns
  // false (nothing changed) when the free needs a mark on `stream`. kNotFound as Free.
  absl::StatusOr<bool> FreeIfIdle(DeviceAddress base, const Stream* stream);

  // Whether `address` is the start of a busy range of this pool.
  bool OwnsBusy(DeviceAddress address) const;
  // Whether `address` lies in a segment of this pool, busy or free (memory the pool holds is not the caller's to
  // hipFree unless it is a busy range's start; anything else there is a double or an interior free).
  bool Holds(DeviceAddress address) const;

  // hipStreamWaitEvent on an event recorded on `origin` at `event_tick`: work queued on `waiter` from now on runs
  // after everything `origin` had queued before the event, so blocks freed on `origin` before it are safe there.
  void AddSafeStream(const Stream& waiter, const Stream& origin, uint64_t event_tick);
  // Drops what AddSafeStream learnt about a stream being destroyed, so the table stays as small as the live
  // streams. Keeping it would be safe too: a destroyed stream finished its work, waits included.
  void ForgetStream(const Stream* stream);

  // Gives back completed free segments, largest first, until the free ranges hold at most the release threshold
  // (CLR's ReleaseFreedMemory). Returns the first Context::Free error after trying the others.
  absl::Status ReleaseFreed();
  // hipMemPoolTrimTo: gives back completed free segments, largest first, as long as the pool still reserves at
  // least `keep` bytes afterwards (CUDA's guarantee). Errors as ReleaseFreed.
  absl::Status TrimTo(Bytes keep);

  PoolReusePolicy policy() const;
  void set_policy(const PoolReusePolicy& policy);
  PoolUsage usage() const;
  // hipMemPoolSetAttribute(*High, 0): the high mark restarts at the current value.
  void ResetReservedHigh();
  void ResetUsedHigh();

  // hipMemPoolSetAccess: whether `peer`'s GPU reaches the pool's blocks, those held now and those made later.
  // Granting maps every segment on `peer`; revoking affects later grants only (a mapped block stays mapped, as
  // Context::DisablePeerAccess leaves mappings). Errors: kInvalidArgument for the pool's own device (it always
  // has access) or a peer without a path; the mapping's errors (the access is left as it was).
  absl::Status SetPeerAccess(const Device& peer, bool enabled);
  // hipMemPoolGetAccess: true for the pool's own device.
  bool PeerAccess(const Device& peer) const;

  // Free ranges (after coalescing) and busy ranges.
  size_t free_block_count() const;
  size_t busy_block_count() const;

 private:
  // What a free range waits for from one stream whose free it holds.
  struct Fence {
    const Stream* stream;          // the freeing stream; never nullptr (a synchronous free leaves no fence)
    std::optional<Marker> marker;  // the free's mark on `stream`; none when `stream` was idle at the free
    uint64_t tick;                 // NextPoolOrderTick after the mark
  };
  // At most one per stream; empty: safe everywhere. Inline: a free on the hit path allocates nothing.
  using Fences = absl::InlinedVector<Fence, 2>;
  using FreeMap = std::map<std::pair<uint64_t, uint64_t>, Fences>;
  struct Range {
    uint64_t segment;  // base of the segment holding it
    Bytes size;
    bool busy;
  };
  // How a free range may go to the allocating stream.
  enum class Reuse { kNo, kSafe, kAfterWait };

  Reuse ClassifyFence(const Fence& fence, const Stream& stream) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The weakest of `fences`' verdicts; with kAfterWait, `waits` gets the markers `stream` must wait for.
  Reuse Classify(const Fences& fences, const Stream& stream, std::vector<const Marker*>* waits) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether the work queued before every free `fences` hold is done (or there was none).
  static bool Completed(const Fences& fences);
  // Adds `from` to `into`, keeping the later fence of each stream.
  static void MergeFences(Fences& into, Fences&& from);
  // Gives back free segments whose fences completed, largest first, while the free ranges hold more than `keep`.
  absl::Status ReleaseLocked(Bytes keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Gives back free segments whose fences completed, largest first, each only when the reserved bytes stay >=
  // `keep`.
  absl::Status TrimLocked(Bytes keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Gives back free range `it`, a whole segment, to the device.
  absl::Status FreeSegmentLocked(FreeMap::iterator& it)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether free range (size, base) is a whole segment.
  bool WholeSegment(uint64_t base, uint64_t size) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The GPUs besides the owner that must reach a segment: the pool's access list and the context's peers.
  std::vector<hsa::AgentId> PeerAgentsLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NoteBusy(Bytes size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The first free range of at least `size` that `stream` may take without a wait, or free_.end().
  FreeMap::iterator FirstSafeLocked(Bytes size, const Stream& stream) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether free range `it` is a completed, wholly free segment over twice `size`: Allocate reshapes it.
  bool OversizedLocked(FreeMap::iterator it, Bytes size) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Hands out the front `size` bytes of free range `chosen`, the rest staying free.
  DeviceAddress TakeLocked(FreeMap::iterator chosen, Bytes size) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves busy range `base` to the free ranges, coalescing it with free neighbours.
  void FreeLocked(std::map<uint64_t, Range>::iterator range, const Stream* stream, std::optional<Marker> marker)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Context& context_;       // Not owned; must outlive this.
  const Device& device_;   // Not owned; must outlive this.
  const std::optional<Bytes> max_size_;

  mutable LightMutex mu_;
  PoolReusePolicy policy_ ABSL_GUARDED_BY(mu_);
  struct Segment {
    Bytes size;         // as allocated from the device
    Allocation memory;  // the device allocation, freed with the segment
  };
  std::map<uint64_t, Segment> segments_ ABSL_GUARDED_BY(mu_);  // by base
  // Every range of every segment by base; a segment's ranges tile it.
  std::map<uint64_t, Range> ranges_ ABSL_GUARDED_BY(mu_);
  // Free ranges by (size, base) with their fences: a walk from lower_bound(size) meets the best fits first.
  FreeMap free_ ABSL_GUARDED_BY(mu_);
  // A node of free_ the last exact reuse left, for the next free to fill: the hit path allocates nothing.
  FreeMap::node_type spare_ ABSL_GUARDED_BY(mu_);
  size_t busy_count_ ABSL_GUARDED_BY(mu_) = 0;
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
