// Scoped locks over absl::Mutex that ThreadSanitizer can see.
//
// Debian's libabsl_synchronization.so is not built with -fsanitize=thread, so TSan cannot observe
// absl::Mutex::Lock/Unlock and reports every access to mutex-guarded state from two threads as a data
// race. Under TSan these guards add the happens-before edges the uninstrumented mutex provides
// (__tsan_acquire right after locking, __tsan_release right before unlocking); in every other build they
// are exactly absl::MutexLock and absl::ReaderMutexLock. Reader locks also release/acquire, which only
// over-approximates the mutex's ordering (TSan may miss a reader/reader race, never invent one).
#ifndef HIPMEM_BASE_SCOPED_LOCK_H_
#define HIPMEM_BASE_SCOPED_LOCK_H_

#include "absl/base/config.h"
#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "base/lock_count.h"

#ifdef ABSL_HAVE_THREAD_SANITIZER
#include <sanitizer/tsan_interface.h>
#endif

namespace hipmem {

namespace scoped_lock_internal {
inline void AfterLock([[maybe_unused]] absl::Mutex* mu) {
#ifdef ABSL_HAVE_THREAD_SANITIZER
  __tsan_acquire(mu);
#endif
}
inline void BeforeUnlock([[maybe_unused]] absl::Mutex* mu) {
#ifdef ABSL_HAVE_THREAD_SANITIZER
  __tsan_release(mu);
#endif
}
}  // namespace scoped_lock_internal

// Holds `mu` exclusively for its lifetime. Thread-compatible (the guard itself is not shared).
class ABSL_SCOPED_LOCKABLE ScopedLock {
 public:
  explicit ScopedLock(absl::Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->Lock();
    scoped_lock_internal::AfterLock(mu_);
    CountLockAcquisition();
  }
  ScopedLock(const ScopedLock&) = delete;
  ScopedLock& operator=(const ScopedLock&) = delete;
  ~ScopedLock() ABSL_UNLOCK_FUNCTION() {
    scoped_lock_internal::BeforeUnlock(mu_);
    mu_->Unlock();
  }

 private:
  absl::Mutex* const mu_;
};

// Holds `mu` shared for its lifetime. Thread-compatible.
class ABSL_SCOPED_LOCKABLE ScopedReaderLock {
 public:
  explicit ScopedReaderLock(absl::Mutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu_->ReaderLock();
    scoped_lock_internal::AfterLock(mu_);
    CountLockAcquisition();
  }
  ScopedReaderLock(const ScopedReaderLock&) = delete;
  ScopedReaderLock& operator=(const ScopedReaderLock&) = delete;
  ~ScopedReaderLock() ABSL_UNLOCK_FUNCTION() {
    scoped_lock_internal::BeforeUnlock(mu_);
    mu_->ReaderUnlock();
  }

 private:
  absl::Mutex* const mu_;
};

}  // namespace hipmem

#endif  // HIPMEM_BASE_SCOPED_LOCK_H_
