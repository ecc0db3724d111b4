#include "hsa/pin_table.h"

#include <memory>
#include <thread>
#include <utility>

#include "base/scoped_lock.h"
#include "base/status_macros.h"

namespace hipmem::hsa {

absl::StatusOr<Hold> PinTable::Reach(thunk::NodeId gpu, DeviceAddress address, Bytes size) {
  std::shared_ptr<GpuAccess> pin;  // declared before the lock: a last reference dropped here unpins after it
  ScopedLock lock(&mu_);
  const uint64_t start = address.raw();
  const uint64_t end = start + size.raw();
  // A pin whose last operation just finished is unpinned by its deleter, which waits for this lock. Until then the
  // thunk still sees the memory as registered, and an Acquire would only map it, relying on a registration about
  // to go: the copy would then fault on the engine. So wait until no overlapping pin is in that state.
  const auto unpinning = [this, start, end]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = pins_.upper_bound(start);
    if (it != pins_.begin()) --it;
    for (; it != pins_.end() && it->first < end; ++it) {
      if (it->first + it->second.size > start && it->second.pin.expired()) return true;
    }
    return false;
  };
  // Host memory a queued operation pinned stays pinned for this one too: otherwise the first to finish would
  // unpin it under the other. The thunk sees it as registered, so the Acquire below only maps it. The last
  // holder drops its reference without this lock, so a pin seen alive a moment ago may be dying now: look again.
  // The wait is a deregistration ioctl long; the lock is let go meanwhile so the deleter can run. (Not Await:
  // the releasing thread would evaluate the condition, which ThreadSanitizer does not see as under the lock.)
  for (bool dying = unpinning(); true; dying = unpinning()) {
    if (!dying) {
      auto it = pins_.upper_bound(start);
      if (it != pins_.begin()) {
        --it;
        if (end <= it->first + it->second.size) {
          pin = it->second.pin.lock();
          dying = pin == nullptr;
        }
      }
      if (!dying) break;
    }
    // As ScopedLock does, so ThreadSanitizer sees the uninstrumented mutex let go and taken again.
    scoped_lock_internal::BeforeUnlock(&mu_);
    mu_.Unlock();
    std::this_thread::yield();
    mu_.Lock();
    scoped_lock_internal::AfterLock(&mu_);
  }
  ASSIGN_OR_RETURN(GpuAccess access, GpuAccess::Acquire(kfd_, gpu, address, size));
  if (pin != nullptr || !access.pinned()) return Hold{std::move(pin), std::move(access)};
  // Unpinning takes the table's lock, so an Acquire never sees a registration that is going away; it also drops
  // the entry, so an expired entry always means an unpin still to come.
  pin = std::shared_ptr<GpuAccess>(new GpuAccess(std::move(access)), [this, start](GpuAccess* a) {
    ScopedLock unpin_lock(&mu_);
    delete a;
    if (auto entry = pins_.find(start); entry != pins_.end() && entry->second.pin.expired()) pins_.erase(entry);
  });
  pins_.insert_or_assign(start, PinEntry{size.raw(), pin});
  return Hold{std::move(pin), std::nullopt};
}

}  // namespace hipmem::hsa
