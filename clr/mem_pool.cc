#include "clr/mem_pool.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/scoped_lock.h"
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
  ScopedLock lock(&mu_);
  for (auto& [key, block] : free_) {
    // Work queued before the free may still touch the block: the device keeps it until that work is done.
    if (block.marker.has_value()) (void)block.marker->Wait();
    if (absl::Status s = context_.Free(block.base); !s.ok()) {
      HIPMEM_LOG(kError, "~MemoryPool: freeing ", AddressText(block.base), ": ", s.message());
    }
  }
  for (const auto& [base, size] : busy_) {
    if (absl::Status s = context_.Free(DeviceAddress(base)); !s.ok()) {
      HIPMEM_LOG(kError, "~MemoryPool: freeing ", AddressText(DeviceAddress(base)), ": ", s.message());
    }
  }
}

bool MemoryPool::Completed(const FreeBlock& block) { return !block.marker.has_value() || block.marker->Done(); }

MemoryPool::Reuse MemoryPool::Classify(const FreeBlock& block, const Stream& stream, Bytes size) const {
  // Same stream: the new owner's work is queued behind the free. No stream: freed after a device synchronisation.
  if (block.stream == nullptr || block.stream == &stream) return Reuse::kSafe;
  if (policy_.follow_event_dependencies) {
    auto it = safe_.find(std::make_pair(&stream, block.stream));
    if (it != safe_.end() && it->second > block.tick) return Reuse::kSafe;
  }
  // CLR's 12.5% slack: a much larger block is kept for streams that are safe without a completion check.
  if (block.size.raw() - size.raw() > size.raw() / 8) return Reuse::kNo;
  if (policy_.allow_opportunistic && Completed(block)) return Reuse::kSafe;
  // Freed on an idle stream: an internal dependency would have nothing to wait for.
  if (!block.marker.has_value()) return policy_.allow_internal_dependencies ? Reuse::kSafe : Reuse::kNo;
  if (policy_.allow_internal_dependencies) return Reuse::kAfterWait;
  return Reuse::kNo;
}

void MemoryPool::NoteBusy(DeviceAddress base, Bytes size) {
  busy_.emplace(base.raw(), size);
  busy_bytes_ += size;
  used_high_ = std::max(used_high_, busy_bytes_);
  reserved_high_ = std::max(reserved_high_, busy_bytes_ + free_bytes_);
}

absl::StatusOr<DeviceAddress> MemoryPool::Allocate(Bytes size, Stream& stream) {
  if (size.is_zero()) return absl::InvalidArgumentError("MemoryPool::Allocate: size 0");
  ScopedLock lock(&mu_);
  auto chosen = free_.end();
  auto after_wait = free_.end();
  for (auto it = free_.lower_bound({size.raw(), 0}); it != free_.end(); ++it) {
    const Reuse reuse = Classify(it->second, stream, size);
    if (reuse == Reuse::kSafe) {
      chosen = it;
      break;
    }
    if (reuse == Reuse::kAfterWait && after_wait == free_.end()) after_wait = it;
  }
  if (chosen == free_.end() && after_wait != free_.end()) {
    // The allocating stream's later work waits on the GPU for the free's mark; the host goes on.
    RETURN_IF_ERROR(stream.WaitFor(*after_wait->second.marker));
    chosen = after_wait;
  }
  if (chosen != free_.end()) {
    const FreeBlock block = std::move(chosen->second);
    free_.erase(chosen);
    free_index_.erase(block.base.raw());
    free_bytes_ -= block.size;
    NoteBusy(block.base, block.size);
    if (TraceEnabled()) {
      Trace(Layer::kClr, "pool of device ", device_.ordinal, ": reuse ", block.size.raw(), " B at ",
            AddressText(block.base), " for ", size.raw(), " B");
    }
    return block.base;
  }
  const std::string what = absl::StrCat("MemoryPool::Allocate(size=", size.raw(), ", device=", device_.ordinal, ")");
  if (max_size_.has_value()) {
    if (busy_bytes_ + free_bytes_ + size > *max_size_) RETURN_IF_ERROR(ReleaseLocked(Bytes(0)));
    if (busy_bytes_ + free_bytes_ + size > *max_size_) {
      return absl::ResourceExhaustedError(absl::StrCat(what, ": the pool's maximum size is ", max_size_->raw(),
                                                       " B and it holds ", (busy_bytes_ + free_bytes_).raw(), " B"));
    }
  }
  absl::StatusOr<DeviceAddress> base = context_.AllocDevice(device_, size, 0);
  if (absl::IsResourceExhausted(base.status()) && !free_.empty()) {
    // Out of VRAM: cached blocks whose work is done go back to the device first.
    RETURN_IF_ERROR(ReleaseLocked(Bytes(0)));
    base = context_.AllocDevice(device_, size, 0);
  }
  if (!base.ok()) return Annotate(base.status(), what);
  if (const std::vector<hsa::AgentId> peers = PeerAgentsLocked(); !peers.empty()) {
    if (absl::Status granted = context_.runtime().memory().AllowAccess(peers, *base); !granted.ok()) {
      (void)context_.Free(*base);
      return Annotate(granted, what);
    }
  }
  NoteBusy(*base, size);
  return *base;
}

absl::StatusOr<bool> MemoryPool::FreeIfIdle(DeviceAddress base, const Stream* stream) {
  ScopedLock lock(&mu_);
  if (!busy_.contains(base.raw())) {
    return absl::NotFoundError(absl::StrCat("MemoryPool::Free(", AddressText(base), "): not a busy block of the pool"));
  }
  // An idle stream needs no mark: nothing queued before the free can still touch the block, and the pool hit
  // stays clear of the queue (one lock).
  if (stream != nullptr && !stream->Idle()) return false;
  FreeLocked(base, stream, std::nullopt);
  return true;
}

absl::Status MemoryPool::Free(DeviceAddress base, Stream* stream) {
  ASSIGN_OR_RETURN(const bool freed, FreeIfIdle(base, stream));
  if (freed) return absl::OkStatus();
  // Recorded outside the lock: a mark may wait for room on the stream's ring.
  ASSIGN_OR_RETURN(Marker marker, stream->Record());
  ScopedLock lock(&mu_);
  // Another thread freed it meanwhile: a double free, reported as an unknown block.
  if (!busy_.contains(base.raw())) {
    return absl::NotFoundError(absl::StrCat("MemoryPool::Free(", AddressText(base), "): not a busy block of the pool"));
  }
  FreeLocked(base, stream, std::move(marker));
  return absl::OkStatus();
}

void MemoryPool::FreeLocked(DeviceAddress base, const Stream* stream, std::optional<Marker> marker) {
  // Ticked after the mark: an event recorded later on `stream` ticks above it (NextPoolOrderTick).
  const uint64_t tick = NextPoolOrderTick();
  auto it = busy_.find(base.raw());
  const Bytes size = it->second;
  busy_.erase(it);
  busy_bytes_ -= size;
  free_bytes_ += size;
  free_.emplace(std::make_pair(size.raw(), base.raw()), FreeBlock{base, size, stream, std::move(marker), tick});
  free_index_.emplace(base.raw(), size);
}

bool MemoryPool::OwnsBusy(DeviceAddress address) const {
  ScopedLock lock(&mu_);
  return busy_.contains(address.raw());
}

bool MemoryPool::Holds(DeviceAddress address) const {
  ScopedLock lock(&mu_);
  return busy_.contains(address.raw()) || free_index_.contains(address.raw());
}

void MemoryPool::AddSafeStream(const Stream& waiter, const Stream& origin, uint64_t event_tick) {
  if (&waiter == &origin) return;
  ScopedLock lock(&mu_);
  uint64_t& tick = safe_[std::make_pair(&waiter, &origin)];
  tick = std::max(tick, event_tick);
}

void MemoryPool::ForgetStream(const Stream* stream) {
  ScopedLock lock(&mu_);
  absl::erase_if(safe_, [stream](const auto& entry) {
    return entry.first.first == stream || entry.first.second == stream;
  });
}

absl::Status MemoryPool::ReleaseLocked(Bytes keep) {
  absl::Status first;
  for (auto it = free_.end(); it != free_.begin() && free_bytes_ > keep;) {
    --it;
    if (!Completed(it->second)) continue;
    absl::Status s = context_.Free(it->second.base);
    if (!s.ok()) {
      if (first.ok()) first = s;
      continue;
    }
    free_bytes_ -= it->second.size;
    free_index_.erase(it->second.base.raw());
    it = free_.erase(it);
  }
  return first;
}

absl::Status MemoryPool::TrimLocked(Bytes keep) {
  absl::Status first;
  for (auto it = free_.end(); it != free_.begin();) {
    --it;
    // CUDA's guarantee: the pool still reserves at least `keep` bytes afterwards.
    if (!Completed(it->second) || busy_bytes_ + free_bytes_ < keep + it->second.size) continue;
    absl::Status s = context_.Free(it->second.base);
    if (!s.ok()) {
      if (first.ok()) first = s;
      continue;
    }
    free_bytes_ -= it->second.size;
    free_index_.erase(it->second.base.raw());
    it = free_.erase(it);
  }
  return first;
}

absl::Status MemoryPool::ReleaseFreed() {
  ScopedLock lock(&mu_);
  return ReleaseLocked(policy_.release_threshold);
}

absl::Status MemoryPool::TrimTo(Bytes keep) {
  ScopedLock lock(&mu_);
  return TrimLocked(keep);
}

PoolReusePolicy MemoryPool::policy() const {
  ScopedLock lock(&mu_);
  return policy_;
}

void MemoryPool::set_policy(const PoolReusePolicy& policy) {
  ScopedLock lock(&mu_);
  policy_ = policy;
}

PoolUsage MemoryPool::usage() const {
  ScopedLock lock(&mu_);
  return PoolUsage{busy_bytes_ + free_bytes_, reserved_high_, busy_bytes_, used_high_};
}

void MemoryPool::ResetReservedHigh() {
  ScopedLock lock(&mu_);
  reserved_high_ = busy_bytes_ + free_bytes_;
}

void MemoryPool::ResetUsedHigh() {
  ScopedLock lock(&mu_);
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
  ScopedLock lock(&mu_);
  if (!enabled || access_[peer.ordinal]) {
    access_[peer.ordinal] = enabled;
    return absl::OkStatus();
  }
  access_[peer.ordinal] = true;
  const std::vector<hsa::AgentId> agents = PeerAgentsLocked();
  std::vector<DeviceAddress> blocks;
  for (const auto& [base, size] : busy_) blocks.push_back(DeviceAddress(base));
  for (const auto& [key, block] : free_) blocks.push_back(block.base);
  for (DeviceAddress base : blocks) {
    if (absl::Status granted = context_.runtime().memory().AllowAccess(agents, base); !granted.ok()) {
      access_[peer.ordinal] = false;
      return Annotate(granted, what);
    }
  }
  return absl::OkStatus();
}

bool MemoryPool::PeerAccess(const Device& peer) const {
  ScopedLock lock(&mu_);
  return access_[peer.ordinal];
}

size_t MemoryPool::free_block_count() const {
  ScopedLock lock(&mu_);
  return free_.size();
}

size_t MemoryPool::busy_block_count() const {
  ScopedLock lock(&mu_);
  return busy_.size();
}

}  // namespace hipmem::clr
