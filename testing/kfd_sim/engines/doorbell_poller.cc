#include "testing/kfd_sim/engines/doorbell_poller.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace hipmem::kfd_sim {

// The process's one poller. Thread-safe.
class DoorbellPoller {
 public:
  using Clock = std::chrono::steady_clock;

  // Never destroyed: engines of static objects may unregister during exit, and the detached thread may still
  // be looking when main returns. One per OS process: a forked child has no poller thread and may have inherited
  // mu_ locked by it, so the child gets a fresh poller and leaves the parent's (memory only) untouched.
  static DoorbellPoller& Get() {
    static std::atomic<DoorbellPoller*> current{nullptr};
    static std::mutex create_mu;
    const pid_t pid = getpid();
    DoorbellPoller* poller = current.load(std::memory_order_acquire);
    if (poller != nullptr && poller->pid_ == pid) return *poller;
    std::lock_guard<std::mutex> lock(create_mu);
    poller = current.load(std::memory_order_acquire);
    if (poller == nullptr || poller->pid_ != pid) {
      poller = new DoorbellPoller(pid, poller);
      current.store(poller, std::memory_order_release);
    }
    return *poller;
  }

  void Add(DoorbellWatch* watch) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      watch->last_seen_ = Read(watch);
      watches_.push_back(watch);
      // A new queue is the moment a raw client is about to ring: warm at once, even mid idle period.
      last_activity_ = Clock::now();
      kicked_ = true;
      if (!started_) {
        // Started by the first doorbell, so a process that never creates a queue never has the thread.
        started_ = true;
        std::thread([this] { Run(); }).detach();
      }
    }
    cv_.notify_one();
  }

  void Remove(DoorbellWatch* watch) {
    // The poller reads words only while holding mu_, so once this returns it will not read this one again.
    std::lock_guard<std::mutex> lock(mu_);
    // Absent only for a watch of another process's poller (a parent's engine torn down in a forked child).
    if (auto it = std::find(watches_.begin(), watches_.end(), watch); it != watches_.end()) watches_.erase(it);
  }

  DoorbellPollerStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return DoorbellPollerStats{.looks = looks_,
                               .wakes = wakes_,
                               .watched = watches_.size(),
                               .period = watches_.empty() ? std::chrono::microseconds(0) : PeriodLocked()};
  }

 private:
  DoorbellPoller(pid_t pid, DoorbellPoller* parent) : pid_(pid), parent_(parent) {}

  static uint64_t Read(const DoorbellWatch* watch) {
    return std::atomic_ref<uint64_t>(*watch->word_).load(std::memory_order_relaxed);
  }

  // Called with mu_ held.
  std::chrono::microseconds PeriodLocked() const {
    return Clock::now() - last_activity_ < kDoorbellPollWarmFor ? kDoorbellPollPeriod : kDoorbellIdlePollPeriod;
  }

  void Run() {
    pthread_setname_np(pthread_self(), "kfdsim-doorbell");
    // The kernel may fire the timer up to this late, batching it with other wakeups; the default (50 us)
    // would do too, but saying it keeps the latency bound in one place (doorbell_poller.h).
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(
                                 std::chrono::duration_cast<std::chrono::nanoseconds>(kDoorbellPollSlack).count()));
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      // Nothing to watch: sleep without a timer until a doorbell registers.
      cv_.wait(lock, [&] { return !watches_.empty(); });
      // Absolute deadlines keep the period from drifting by the time each look takes.
      Clock::time_point deadline = Clock::now() + PeriodLocked();
      while (!watches_.empty()) {
        cv_.wait_until(lock, deadline, [&] { return kicked_ || watches_.empty(); });
        if (watches_.empty()) break;
        const Clock::time_point now = Clock::now();
        if (kicked_) {
          // A registration: re-plan on the warm period (an idle period may have had milliseconds to run).
          kicked_ = false;
          deadline = std::min(deadline, now + PeriodLocked());
          if (now < deadline) continue;
        }
        Look(now);
        deadline += PeriodLocked();
        // Fell behind (a loaded host): start the period afresh rather than catching up with a burst of looks.
        if (deadline < now) deadline = now + PeriodLocked();
      }
    }
  }

  // Wakes every armed doorbell that no longer reads what its sleeper saw, and notes whether any doorbell moved
  // (the poller stays warm while clients ring). Called with mu_ held.
  void Look(Clock::time_point now) {
    ++looks_;
    for (DoorbellWatch* watch : watches_) {
      const uint64_t value = Read(watch);
      if (value != watch->last_seen_) {
        watch->last_seen_ = value;
        last_activity_ = now;
      }
      // Acquire pairs with Arm's release: `seen` is this arming's value (or a later arming's; either way a wrong
      // guess costs one spurious wake or one more period, never a lost store, since a sleeper whose word moved
      // stays armed until woken and is looked at again).
      if (!watch->armed_.load(std::memory_order_acquire)) continue;
      const uint64_t seen = watch->sleeping_on_.load(std::memory_order_relaxed);
      if (value == seen) continue;
      // A shared futex on the sleeper's own view of the word, exactly where it waits (doorbell.cc); the
      // futex word is the low dword of the little-endian doorbell.
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(watch->word_), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
      ++wakes_;
    }
  }

  const pid_t pid_;                // the process whose thread this is
  DoorbellPoller* const parent_;   // the parent's, left behind in a forked child; kept reachable (leak checkers)
  std::mutex mu_;
  std::condition_variable cv_;           // a doorbell registered
  std::vector<DoorbellWatch*> watches_;  // guarded by mu_; not owned, each unregisters before it goes
  bool started_ = false;                 // guarded by mu_
  bool kicked_ = false;                  // guarded by mu_: a registration since the poller last planned
  Clock::time_point last_activity_;      // guarded by mu_: the last registration or moved doorbell
  uint64_t looks_ = 0;                   // guarded by mu_
  uint64_t wakes_ = 0;                   // guarded by mu_
};

DoorbellWatch::DoorbellWatch(uint64_t* word) : word_(word) { DoorbellPoller::Get().Add(this); }

DoorbellWatch::~DoorbellWatch() { DoorbellPoller::Get().Remove(this); }

void DoorbellWatch::Arm(uint64_t seen) {
  sleeping_on_.store(seen, std::memory_order_relaxed);
  armed_.store(true, std::memory_order_release);
}

void DoorbellWatch::Disarm() { armed_.store(false, std::memory_order_relaxed); }

DoorbellPollerStats GetDoorbellPollerStats() { return DoorbellPoller::Get().stats(); }

}  // namespace hipmem::kfd_sim
