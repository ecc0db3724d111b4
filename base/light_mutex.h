// A mutex for the short critical sections of hot paths (an allocation's maps), with Abseil's thread-safety
// annotations.
//
// Why not absl::Mutex there: Debian's libabsl_synchronization is built without NDEBUG, so every absl::Mutex
// Lock/Unlock also does Abseil's debug-only bookkeeping (the per-thread list of held locks), which no setting
// turns off: an uncontended lock/unlock pair costs ~45 ns with deadlock detection off (base/scoped_lock.cc)
// against ~12 ns for std::mutex on the same machine. A hipMalloc+hipFree from a cached fragment takes about ten
// of them. This is std::mutex (a futex, as ROCr's KernelMutex is), which ThreadSanitizer sees through its
// pthread interceptors, so it needs none of ScopedLock's annotations. It has no Await: code that waits on a
// condition of its own keeps absl::Mutex; code that waits on a std::condition_variable (a kernel-style wait
// queue) holds it with LightUniqueLock.
#ifndef HIPMEM_BASE_LIGHT_MUTEX_H_
#define HIPMEM_BASE_LIGHT_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "base/lock_count.h"

namespace hipmem {

class ABSL_LOCKABLE LightMutex {
 public:
  LightMutex() = default;
  LightMutex(const LightMutex&) = delete;
  LightMutex& operator=(const LightMutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  // Tells the analysis the caller holds it (a callback the owner runs under it); checks nothing at run time.
  void AssertHeld() const ABSL_ASSERT_EXCLUSIVE_LOCK() {}

 private:
  friend class LightUniqueLock;
  std::mutex mu_;
};

// Holds a LightMutex for its lifetime. Thread-compatible (the guard itself is not shared).
class ABSL_SCOPED_LOCKABLE LightLock {
 public:
  explicit LightLock(LightMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
    CountLockAcquisition();
  }
  LightLock(const LightLock&) = delete;
  LightLock& operator=(const LightLock&) = delete;
  ~LightLock() ABSL_UNLOCK_FUNCTION() { mu_->Unlock(); }

 private:
  LightMutex* const mu_;
};

// Holds a LightMutex as LightLock does, and can also wait on a std::condition_variable with it or release it
// early. To the thread-safety analysis the mutex stays held across a wait (the wait retakes it before it
// returns), as with absl::CondVar. Thread-compatible.
class ABSL_SCOPED_LOCKABLE LightUniqueLock {
 public:
  explicit LightUniqueLock(LightMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : lock_(mu->mu_) { CountLockAcquisition(); }
  LightUniqueLock(const LightUniqueLock&) = delete;
  LightUniqueLock& operator=(const LightUniqueLock&) = delete;
  ~LightUniqueLock() ABSL_UNLOCK_FUNCTION() {}  // releases it unless Unlock did

  void Wait(std::condition_variable& cv) { cv.wait(lock_); }
  // False when `deadline` passed first.
  template <typename Clock, typename Duration>
  bool WaitUntil(std::condition_variable& cv, const std::chrono::time_point<Clock, Duration>& deadline) {
    return cv.wait_until(lock_, deadline) == std::cv_status::no_timeout;
  }
  void Unlock() ABSL_UNLOCK_FUNCTION() { lock_.unlock(); }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace hipmem

#endif  // HIPMEM_BASE_LIGHT_MUTEX_H_
