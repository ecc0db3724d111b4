// A one-shot event between test threads that ThreadSanitizer can see.
//
// Debian's Abseil is built without ThreadSanitizer's annotations, so absl::Notification (an absl::Mutex inside)
// orders nothing as far as TSan knows: a test whose only edge between "the host read the buffer" and "the engine
// wrote it" runs through one reports a race that is not there. This one is std::mutex and std::condition_variable,
// which TSan intercepts. Same interface as the parts of absl::Notification the tests use.
#ifndef HIPMEM_TESTING_NOTIFICATION_H_
#define HIPMEM_TESTING_NOTIFICATION_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "absl/base/thread_annotations.h"
#include "absl/time/time.h"

namespace hipmem_testing {

class Notification {
 public:
  Notification() = default;
  Notification(const Notification&) = delete;
  Notification& operator=(const Notification&) = delete;

  // Wakes the waiters under the lock: a waiter may destroy the notification as soon as it returns.
  void Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    notified_ = true;
    cv_.notify_all();
  }
  bool HasBeenNotified() const {
    std::lock_guard<std::mutex> lock(mu_);
    return notified_;
  }
  void WaitForNotification() const {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return notified_; });
  }
  // Whether Notify happened within `timeout`.
  bool WaitForNotificationWithTimeout(absl::Duration timeout) const {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout), [&] { return notified_; });
  }

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool notified_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace hipmem_testing

#endif  // HIPMEM_TESTING_NOTIFICATION_H_
