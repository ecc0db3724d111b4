// The simulated GPU's doorbell polling: how a bare store to a doorbell reaches a sleeping engine.
//
// Plays the hardware's doorbell path, the part a store alone triggers. On a GPU the doorbell is an MMIO
// write the engine (or the CP's MES/HWS firmware) sees without help from the writer. A simulated engine sleeps
// on a futex on its doorbell word (doorbell.h), and a plain store wakes no futex, so one process-wide poller
// thread stands for the hardware: it looks at every watched doorbell each period and FUTEX_WAKEs the sleepers
// whose word no longer reads the value they went to sleep on. One thread for every queue of every simulated
// GPU, not one per engine: an idle simulator pays one cheap look per period whatever its number of queues, and
// nothing at all while no doorbell is watched (the thread then waits without a timer).
//
// The period adapts, because a timer wakeup is the whole cost and its price depends on the host (about 2 us on
// bare metal, 30-45 us in the project's Firecracker VMs, where 2 kHz alone is 6-8% of a core):
//   kDoorbellPollPeriod (0.5 ms) from a doorbell's registration and for kDoorbellPollWarmFor after any
//     watched doorbell last moved: a client that creates a queue, or has rung one lately, has its bare store
//     noticed within 0.5 ms plus timer slack and scheduling delay (under 1 ms on a host that is not
//     overloaded);
//   kDoorbellIdlePollPeriod (8 ms) once every doorbell has been still that long: the first bare store after a
//     long silence waits up to 8 ms, and the poller warms up again.
// The ring path of our own stack (RingDoorbell: store, then FUTEX_WAKE) never waits for the poller.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_POLLER_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_POLLER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace hipmem::kfd_sim {

// How often the poller looks at the watched doorbells while warm, and once they have all been still for
// kDoorbellPollWarmFor. A bare store is noticed within one period plus the poller thread's timer slack
// (kDoorbellPollSlack) and its scheduling delay.
inline constexpr std::chrono::microseconds kDoorbellPollPeriod{500};
inline constexpr std::chrono::microseconds kDoorbellIdlePollPeriod{8000};
inline constexpr std::chrono::milliseconds kDoorbellPollWarmFor{1000};
// The poller thread's timer slack (PR_SET_TIMERSLACK): how late the kernel may fire its timer to batch it with
// other wakeups.
inline constexpr std::chrono::microseconds kDoorbellPollSlack{100};

// One doorbell word watched by the poller, for the one thread that sleeps on it. Registers on construction
// (starting the poller thread on the first registration in the process) and unregisters on destruction.
// Not movable: the poller holds its address. Thread-safe, but Arm/Disarm belong to the single sleeping thread.
class DoorbellWatch {
 public:
  // `word` is the sleeper's view of the doorbell (8-byte aligned); not owned, must outlive this.
  explicit DoorbellWatch(uint64_t* word);
  // Returns only once the poller no longer reads or wakes the word, so the caller may then unmap it.
  ~DoorbellWatch();
  DoorbellWatch(const DoorbellWatch&) = delete;
  DoorbellWatch& operator=(const DoorbellWatch&) = delete;

  // Announces that the calling thread is about to FUTEX_WAIT on the word while it reads `seen`: from now on
  // the poller wakes the word whenever it reads anything else. Comparing with the sleeper's value (not with
  // the poller's previous look) loses no store, however the word moves: a store the sleeper missed before
  // FUTEX_WAIT makes the wait return at once, one after it is seen on the next look.
  void Arm(uint64_t seen);
  // Announces that the thread is awake again: the poller leaves the word alone.
  void Disarm();

 private:
  friend class DoorbellPoller;

  uint64_t* const word_;
  uint64_t last_seen_ = 0;  // the poller's: what the word read at its last look (guarded by the poller's lock)
  std::atomic<uint64_t> sleeping_on_{0};  // meaningful while armed_
  std::atomic<bool> armed_{false};
};

// What the poller has done since the process started, for tests and benchmarks.
struct DoorbellPollerStats {
  uint64_t looks = 0;    // timer wakeups in which the poller looked at the watched doorbells
  uint64_t wakes = 0;    // FUTEX_WAKEs it issued for doorbells that moved under a sleeper
  size_t watched = 0;    // doorbells registered now
  std::chrono::microseconds period{0};  // the period the poller is using (0: no timer, nothing watched)
};

// Returns the process-wide poller's counters.
DoorbellPollerStats GetDoorbellPollerStats();

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_POLLER_H_
