#include "clr/mem_pool.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "hsa/memory.h"

namespace hipmem::clr {

uint64_t NextPoolOrderTick() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_acq_rel);
}

MemoryPool::MemoryPool(Context& context, const Device& device, std::optional<Bytes> max_size)
    : context_(context), device_(device), max_size_(max_size), access_(context.devices().size(), false) {
  access_[device.ordinal] = true;
}

MemoryPool::~MemoryPool() {
  LightLock lock(&mu_);
  for (const auto& [key, fences] : free_) {
    // Work queued before a free may still touch the range: the device keeps its segment until that work is done.
    for (const Fence& f : fences) {
      if (f.marker.has_value()) (void)f.marker->Wait();
    }
  }
  segments_.clear();  // each segment's owner frees it
}

bool MemoryPool::Completed(const Fences& fences) {
  for (const Fence& f : fences) {
    if (f.marker.has_value() && !f.marker->Done()) return false;
  }
  return true;
}

void MemoryPool::MergeFences(Fences& into, Fences&& from) {
  for (Fence& f : from) {
    auto same = std::find_if(into.begin(), into.end(), [&f](const Fence& g) { return g.stream == f.stream; });
    if (same == into.end()) {
      into.push_back(std::move(f));
    } else if (f.tick > same->tick) {
      // Later on the same stream: its mark completes after the earlier one's, and an event following it
      // follows the earlier free too.
      *same = std::move(f);
    }
  }
}

MemoryPool::Reuse MemoryPool::ClassifyFence(const Fence& fence, const Stream& stream) const {
  // Same stream: the new owner's work is queued behind the free.
  if (fence.stream == &stream) return Reuse::kSafe;
  if (policy_.follow_event_dependencies) {
    auto it = safe_.find(std::make_pair(&stream, fence.stream));
    if (it != safe_.end() && it->second > fence.tick) return Reuse::kSafe;
  }
  if (policy_.allow_opportunistic && (!fence.marker.has_value() || fence.marker->Done())) return Reuse::kSafe;
  // Freed on an idle stream: an internal dependency would have nothing to wait for.
  if (!fence.marker.has_value()) return policy_.allow_internal_dependencies ? Reuse::kSafe : Reuse::kNo;
  if (policy_.allow_internal_dependencies) return Reuse::kAfterWait;
  return Reuse::kNo;
}

MemoryPool::Reuse MemoryPool::Classify(const Fences& fences, const Stream& stream,
                                       std::vector<const Marker*>* waits) const {
  Reuse verdict = Reuse::kSafe;
  for (const Fence& f : fences) {
    switch (ClassifyFence(f, stream)) {
      case Reuse::kNo:
        return Reuse::kNo;
      case Reuse::kAfterWait:
        verdict = Reuse::kAfterWait;
        if (waits != nullptr) waits->push_back(&*f.marker);
        break;
      case Reuse::kSafe:
        break;
    }
  }
  return verdict;
}

void MemoryPool::NoteBusy(Bytes size) {
  ++busy_count_;
  busy_bytes_ += size;
  used_high_ = std::max(used_high_, busy_bytes_);
  reserved_high_ = std::max(reserved_high_, busy_bytes_ + free_bytes_);
}

bool MemoryPool::OversizedLocked(FreeMap::iterator it, Bytes size) const {
  return it->first.first / 2 > size.raw() && WholeSegment(it->first.second, it->first.first) &&
         Completed(it->second);
}

DeviceAddress MemoryPool::TakeLocked(FreeMap::iterator chosen, Bytes size) {
  const uint64_t base = chosen->first.second;
  const Bytes whole(chosen->first.first);
  FreeMap::node_type node = free_.extract(chosen);
  free_bytes_ -= whole;
  auto range = ranges_.find(base);
  range->second.busy = true;
  if (whole > size) {
    // Split: the front goes out (so an exact reuse returns the same address), the rest stays free with the
    // same history (the node keeps its fences). Both sizes are multiples of kGranule.
    range->second.size = size;
    const uint64_t rest = base + size.raw();
    ranges_.emplace_hint(std::next(range), rest, Range{range->second.segment, whole - size, false});
    node.key() = std::make_pair((whole - size).raw(), rest);
    free_.insert(std::move(node));
    free_bytes_ += whole - size;
  } else {
    node.mapped().clear();
    spare_ = std::move(node);
  }
  NoteBusy(size);
  if (TraceEnabled()) {
    Trace(Layer::kClr, "pool of device ", device_.ordinal, ": reuse ", size.raw(), " B of ", whole.raw(), " B at ",
          AddressText(DeviceAddress(base)));
  }
  return DeviceAddress(base);
}

std::optional<DeviceAddress> MemoryPool::TryAllocateCached(Bytes requested, const Stream& stream) {
  const std::optional<Bytes> size = AlignUp(requested, kGranule);
  if (requested.is_zero() || !size.has_value()) return std::nullopt;
  LightLock lock(&mu_);
  // Allocate's choice, as long as it is a range taken as it is.
  for (auto it = free_.lower_bound({size->raw(), 0}); it != free_.end(); ++it) {
    if (Classify(it->second, stream, nullptr) != Reuse::kSafe) continue;
    if (OversizedLocked(it, *size)) return std::nullopt;
    return TakeLocked(it, *size);
  }
  return std::nullopt;
}

absl::StatusOr<DeviceAddress> MemoryPool::Allocate(Bytes requested, Stream& stream) {
  if (requested.is_zero()) return absl::InvalidArgumentError("MemoryPool::Allocate: size 0");
  const std::optional<Bytes> rounded = AlignUp(requested, kGranule);
  if (!rounded.has_value()) {
    return absl::ResourceExhaustedError(absl::StrCat("MemoryPool::Allocate(size=", requested.raw(), "): too large"));
  }
  const Bytes size = *rounded;
  LightLock lock(&mu_);
  auto chosen = free_.end();
  auto after_wait = free_.end();
  for (auto it = free_.lower_bound({size.raw(), 0}); it != free_.end(); ++it) {
    const Reuse reuse = Classify(it->second, stream, nullptr);
    if (reuse == Reuse::kSafe) {
      chosen = it;
      break;
    }
    if (reuse == Reuse::kAfterWait && after_wait == free_.end()) after_wait = it;
  }
  // A completed, wholly free segment over twice the request is not split: the miss below gives back smaller free
  // segments for a segment of the request's own size and, when they fall short, this one too. Splitting it is
  // how a training loop's shifting sizes scatter activations over the large segments until a large request
  // misses with the pool's free bytes in pieces.
  auto oversized = free_.end();
  if (chosen != free_.end() && OversizedLocked(chosen, size)) {
    oversized = chosen;
    chosen = after_wait = free_.end();
  }
  if (chosen == free_.end() && after_wait != free_.end()) {
    // The allocating stream's later work waits on the GPU for the frees' marks; the host goes on.
    std::vector<const Marker*> waits;
    (void)Classify(after_wait->second, stream, &waits);
    for (const Marker* m : waits) RETURN_IF_ERROR(stream.WaitFor(*m));
    chosen = after_wait;
  }
  if (chosen != free_.end()) return TakeLocked(chosen, size);
  const std::string what = absl::StrCat("MemoryPool::Allocate(size=", size.raw(), ", device=", device_.ordinal, ")");
  // A miss: every free range this stream could take is too small, or oversized (see above).
  // CUDA's pool maps physical pages into whatever range a request needs, so idle cached memory never makes a
  // miss grow the pool; with one device allocation per segment, the nearest equivalent is to give back wholly
  // free segments smaller than the request, largest first, until they add up to the new one, so reserved memory
  // changes shape instead of growing. Only segments whose frees completed (the device may hand their memory to
  // anyone) and that the reuse rules let this stream take (so no attribute is bypassed).
  Bytes released;
  for (auto it = free_.lower_bound({size.raw(), 0}); it != free_.begin() && released < size;) {
    --it;
    if (!WholeSegment(it->first.second, it->first.first) || !Completed(it->second) ||
        Classify(it->second, stream, nullptr) != Reuse::kSafe) {
      continue;
    }
    const Bytes segment(it->first.first);
    // A failed device free drops the segment all the same (the context no longer holds it): the miss just grows
    // the pool.
    if (FreeSegmentLocked(it).ok()) released += segment;
  }
  if (released < size && oversized != free_.end()) (void)FreeSegmentLocked(oversized);
  if (max_size_.has_value()) {
    if (busy_bytes_ + free_bytes_ + size > *max_size_) RETURN_IF_ERROR(ReleaseLocked(Bytes(0)));
    if (busy_bytes_ + free_bytes_ + size > *max_size_) {
      return absl::ResourceExhaustedError(absl::StrCat(what, ": the pool's maximum size is ", max_size_->raw(),
                                                       " B and it holds ", (busy_bytes_ + free_bytes_).raw(), " B"));
    }
  }
  absl::StatusOr<Allocation> memory = context_.AllocDevice(device_, size, 0);
  if (absl::IsResourceExhausted(memory.status()) && !free_.empty()) {
    // Out of VRAM: cached segments whose work is done go back to the device first.
    RETURN_IF_ERROR(ReleaseLocked(Bytes(0)));
    memory = context_.AllocDevice(device_, size, 0);
  }
  if (!memory.ok()) return Annotate(memory.status(), what);
  const DeviceAddress base = memory->address();
  if (const std::vector<hsa::AgentId> peers = PeerAgentsLocked(); !peers.empty()) {
    // A refused grant returns before the segment is kept: `memory` frees it.
    RETURN_IF_ERROR(Annotate(context_.runtime().memory().AllowAccess(peers, base), what));
  }
  segments_.emplace(base.raw(), Segment{size, *std::move(memory)});
  ranges_.emplace(base.raw(), Range{base.raw(), size, true});
  NoteBusy(size);
  return base;
}

absl::StatusOr<bool> MemoryPool::FreeIfIdle(DeviceAddress base, const Stream* stream) {
  LightLock lock(&mu_);
  auto range = ranges_.find(base.raw());
  if (range == ranges_.end() || !range->second.busy) {
    return absl::NotFoundError(absl::StrCat("MemoryPool::Free(", AddressText(base), "): not a busy block of the pool"));
  }
  // An idle stream needs no mark: nothing queued before the free can still touch the range, and the pool hit
  // stays clear of the queue (one lock).
  if (stream != nullptr && !stream->Idle()) return false;
  FreeLocked(range, stream, std::nullopt);
  return true;
}

absl::Status MemoryPool::Free(DeviceAddress base, Stream* stream) {
  ASSIGN_OR_RETURN(const bool freed, FreeIfIdle(base, stream));
  if (freed) return absl::OkStatus();
  // Recorded outside the lock: a mark may wait for room on the stream's ring.
  ASSIGN_OR_RETURN(Marker marker, stream->Record());
  LightLock lock(&mu_);
  // Another thread freed it meanwhile: a double free, reported as an unknown block.
  auto range = ranges_.find(base.raw());
  if (range == ranges_.end() || !range->second.busy) {
    return absl::NotFoundError(absl::StrCat("MemoryPool::Free(", AddressText(base), "): not a busy block of the pool"));
  }
  FreeLocked(range, stream, std::move(marker));
  return absl::OkStatus();
}

void MemoryPool::FreeLocked(std::map<uint64_t, Range>::iterator range, const Stream* stream, std::optional<Marker> marker) {
  const Bytes size = range->second.size;
  busy_bytes_ -= size;
  free_bytes_ += size;
  --busy_count_;
  range->second.busy = false;
  // The range's entry in free_: the spare node when there is one, so the hit path allocates nothing; its fences
  // are filled in place.
  FreeMap::node_type node = spare_.empty() ? FreeMap::node_type() : std::move(spare_);
  Fences fences_storage;
  Fences& fences = node.empty() ? fences_storage : node.mapped();
  // A synchronous free (no stream) follows a device synchronisation: it leaves nothing to wait for. Ticked after
  // the mark: an event recorded later on `stream` ticks above it (NextPoolOrderTick).
  if (stream != nullptr) fences.push_back(Fence{stream, std::move(marker), NextPoolOrderTick()});
  const uint64_t segment = range->second.segment;
  // Coalesce with the free neighbours in the same segment (segments are separate device allocations).
  if (auto next = std::next(range); next != ranges_.end() && !next->second.busy && next->second.segment == segment) {
    auto entry = free_.find({next->second.size.raw(), next->first});
    MergeFences(fences, std::move(entry->second));
    free_.erase(entry);
    range->second.size += next->second.size;
    ranges_.erase(next);
  }
  if (range != ranges_.begin()) {
    auto prev = std::prev(range);
    if (!prev->second.busy && prev->second.segment == segment) {
      auto entry = free_.find({prev->second.size.raw(), prev->first});
      MergeFences(fences, std::move(entry->second));
      free_.erase(entry);
      prev->second.size += range->second.size;
      ranges_.erase(range);
      range = prev;
    }
  }
  const std::pair<uint64_t, uint64_t> key(range->second.size.raw(), range->first);
  if (node.empty()) {
    free_.emplace(key, std::move(fences_storage));
  } else {
    node.key() = key;
    free_.insert(std::move(node));
  }
}

bool MemoryPool::OwnsBusy(DeviceAddress address) const {
  LightLock lock(&mu_);
  auto range = ranges_.find(address.raw());
  return range != ranges_.end() && range->second.busy;
}

bool MemoryPool::Holds(DeviceAddress address) const {
  LightLock lock(&mu_);
  auto it = segments_.upper_bound(address.raw());
  if (it == segments_.begin()) return false;
  --it;
  return address.raw() - it->first < it->second.size.raw();
}

void MemoryPool::AddSafeStream(const Stream& waiter, const Stream& origin, uint64_t event_tick) {
  if (&waiter == &origin) return;
  LightLock lock(&mu_);
  uint64_t& tick = safe_[std::make_pair(&waiter, &origin)];
  tick = std::max(tick, event_tick);
}

void MemoryPool::ForgetStream(const Stream* stream) {
  LightLock lock(&mu_);
  absl::erase_if(safe_, [stream](const auto& entry) {
    return entry.first.first == stream || entry.first.second == stream;
  });
}

bool MemoryPool::WholeSegment(uint64_t base, uint64_t size) const {
  auto it = segments_.find(base);
  return it != segments_.end() && it->second.size.raw() == size;
}

absl::Status MemoryPool::FreeSegmentLocked(FreeMap::iterator& it) {
  const uint64_t base = it->first.second;
  auto segment = segments_.find(base);
  if (segment == segments_.end()) {
    return absl::InternalError(absl::StrCat("MemoryPool: free range ", AddressText(DeviceAddress(base)),
                                            " is no segment"));
  }
  absl::Status freed = std::move(segment->second.memory).Free();
  free_bytes_ -= Bytes(it->first.first);
  segments_.erase(segment);
  ranges_.erase(base);
  it = free_.erase(it);
  return freed;
}

absl::Status MemoryPool::ReleaseLocked(Bytes keep) {
  absl::Status first;
  for (auto it = free_.end(); it != free_.begin() && free_bytes_ > keep;) {
    --it;
    if (!WholeSegment(it->first.second, it->first.first) || !Completed(it->second)) continue;
    if (absl::Status s = FreeSegmentLocked(it); !s.ok() && first.ok()) first = s;
  }
  return first;
}

absl::Status MemoryPool::TrimLocked(Bytes keep) {
  absl::Status first;
  for (auto it = free_.end(); it != free_.begin();) {
    --it;
    if (!WholeSegment(it->first.second, it->first.first) || !Completed(it->second)) continue;
    // CUDA's guarantee: the pool still reserves at least `keep` bytes afterwards.
    if (busy_bytes_ + free_bytes_ < keep + Bytes(it->first.first)) continue;
    if (absl::Status s = FreeSegmentLocked(it); !s.ok() && first.ok()) first = s;
  }
  return first;
}

absl::Status MemoryPool::ReleaseFreed() {
  LightLock lock(&mu_);
  return ReleaseLocked(policy_.release_threshold);
}

absl::Status MemoryPool::TrimTo(Bytes keep) {
  LightLock lock(&mu_);
  return TrimLocked(keep);
}

PoolReusePolicy MemoryPool::policy() const {
  LightLock lock(&mu_);
  return policy_;
}

void MemoryPool::set_policy(const PoolReusePolicy& policy) {
  LightLock lock(&mu_);
  policy_ = policy;
}

PoolUsage MemoryPool::usage() const {
  LightLock lock(&mu_);
  return PoolUsage{busy_bytes_ + free_bytes_, reserved_high_, busy_bytes_, used_high_};
}

void MemoryPool::ResetReservedHigh() {
  LightLock lock(&mu_);
  reserved_high_ = busy_bytes_ + free_bytes_;
}

void MemoryPool::ResetUsedHigh() {
  LightLock lock(&mu_);
  used_high_ = busy_bytes_;
}

std::vector<hsa::AgentId> MemoryPool::PeerAgentsLocked() const {
  std::vector<hsa::AgentId> agents;
  for (const Device& d : context_.devices()) {
    if (d.ordinal == device_.ordinal) continue;
    if (access_[d.ordinal] || context_.PeerAccessEnabled(d, device_)) agents.push_back(d.agent);
  }
  return agents;
}

absl::Status MemoryPool::SetPeerAccess(const Device& peer, bool enabled) {
  const std::string what = absl::StrCat("MemoryPool::SetPeerAccess(device=", device_.ordinal, ", peer=",
                                        peer.ordinal, ")");
  if (peer.ordinal == device_.ordinal) {
    if (enabled) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(what, ": the pool's own device always has access"));
  }
  if (enabled && !context_.CanAccessPeer(peer, device_)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": no path from the peer to the pool's memory"));
  }
  LightLock lock(&mu_);
  if (!enabled || access_[peer.ordinal]) {
    access_[peer.ordinal] = enabled;
    return absl::OkStatus();
  }
  access_[peer.ordinal] = true;
  const std::vector<hsa::AgentId> agents = PeerAgentsLocked();
  for (const auto& [base, segment] : segments_) {
    if (absl::Status granted = context_.runtime().memory().AllowAccess(agents, DeviceAddress(base)); !granted.ok()) {
      access_[peer.ordinal] = false;
      return Annotate(granted, what);
    }
  }
  return absl::OkStatus();
}

bool MemoryPool::PeerAccess(const Device& peer) const {
  LightLock lock(&mu_);
  return access_[peer.ordinal];
}

size_t MemoryPool::free_block_count() const {
  LightLock lock(&mu_);
  return free_.size();
}

size_t MemoryPool::busy_block_count() const {
  LightLock lock(&mu_);
  return busy_count_;
}

}  // namespace hipmem::clr
