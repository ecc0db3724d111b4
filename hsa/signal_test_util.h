// Test helpers for the signal tests.
#ifndef HIPMEM_HSA_SIGNAL_TEST_UTIL_H_
#define HIPMEM_HSA_SIGNAL_TEST_UTIL_H_

#include <condition_variable>
#include <mutex>

#include "absl/time/time.h"

namespace hipmem_testing {

// A one-shot notification built on std::mutex, which ThreadSanitizer sees. (Debian's absl::Notification is not
// instrumented, so TSan would miss the handoff it makes and report the data it publishes as raced.) Thread-safe.
class Notification {
 public:
  void Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    notified_ = true;
    cv_.notify_all();
  }
  bool HasBeenNotified() const {
    std::lock_guard<std::mutex> lock(mu_);
    return notified_;
  }
  // Returns whether Notify happened within `timeout`.
  bool WaitForNotificationWithTimeout(absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout), [this] { return notified_; });
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool notified_ = false;
};

}  // namespace hipmem_testing

#endif  // HIPMEM_HSA_SIGNAL_TEST_UTIL_H_
