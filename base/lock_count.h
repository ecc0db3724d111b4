// How many mutexes this thread acquired through the project's lock guards (ScopedLock, ScopedReaderLock, LightLock,
// LightUniqueLock), in any layer.
//
// Issue #26 asks for the locks one hipMemcpy takes before the doorbell, counted by a test as its address lookups are
// (base/lookup_count.h). Every guard counts here, so the count needs no list of the copy path's mutexes to keep up
// to date. A thread's own counter: the hot paths pay one thread-local increment beside a lock that costs ten or more
// times that, and a test is not disturbed by other threads (the engines' and watchers' locks are theirs).
// Locks taken while the thread waits (hsa::SignalRef::Wait's polling) are counted only outside a LockCountPause:
// how many a wait takes says how long it waited, not what the path costs.
#ifndef HIPMEM_BASE_LOCK_COUNT_H_
#define HIPMEM_BASE_LOCK_COUNT_H_

#include <cstdint>

namespace hipmem {

namespace lock_count_internal {
// constinit: the compiler reads it directly, without the wrapper call a thread_local defined elsewhere may need.
extern constinit thread_local uint64_t t_locks;
}  // namespace lock_count_internal

// Counts one lock acquisition on this thread.
inline void CountLockAcquisition() { ++lock_count_internal::t_locks; }
// The acquisitions counted on this thread so far.
uint64_t LockAcquisitionsOnThisThread();

// While one lives, this thread's acquisitions are not counted (a wait's): it puts the count back as it found it, so
// the guards pay no check. Nests.
class LockCountPause {
 public:
  LockCountPause() : saved_(lock_count_internal::t_locks) {}
  ~LockCountPause() { lock_count_internal::t_locks = saved_; }
  LockCountPause(const LockCountPause&) = delete;
  LockCountPause& operator=(const LockCountPause&) = delete;

 private:
  const uint64_t saved_;
};

}  // namespace hipmem

#endif  // HIPMEM_BASE_LOCK_COUNT_H_
