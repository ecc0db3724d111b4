// The simulated GPU's doorbell logic: how a bare store to a doorbell reaches a sleeping engine.
//
// Plays the hardware's doorbell path, the part a store alone triggers. On a GPU the doorbell is an MMIO
// write the engine (or the CP's MES/HWS firmware) sees without help from the writer. A simulated engine sleeps
// on a futex on its doorbell word (doorbell.h), and a plain store wakes no futex, so one process-wide thread
// stands for the hardware. It notices stores in one of two ways:
//
// Event-driven (userfaultfd write-protect; the default where the kernel allows it). Every client CPU mapping of
//   a doorbell page (SimFile::MmapKfd's, announced with DoorbellClientMapping::Watch) is registered with one
//   process-wide userfaultfd in write-protect mode and kept write-protected while its doorbells are still. The
//   first store after a silence faults; the handler thread (which otherwise sleeps in read(), no timer) lifts
//   the protection of that page (waking the writer, whose store then lands), marks the page hot, watches the
//   page's sleeping engines for a few microseconds so that the store usually wakes its engine at once, and then
//   the poller looks at the hot page every kDoorbellHotPollPeriod until its doorbells have been still for
//   kDoorbellHotFor, when it write-protects the page again and looks once more. A bare store after any silence
//   is noticed within about one fault round trip (tens of microseconds), at worst kDoorbellHotPollPeriod plus
//   scheduling delay; an idle simulator costs no CPU at all. The proof that no store is lost is in
//   doorbell_poller.cc (DoorbellPoller's comment).
// Polling (the fallback: no userfaultfd, a step of its set-up failed, HIPMEM_SIM_DOORBELL_POLL=1 in the
//   environment, or a doorbell word no watched client mapping covers, such as the engine tests' private words).
//   The poller looks at every such doorbell each period and FUTEX_WAKEs the sleepers whose word no longer reads
//   the value they went to sleep on. The period adapts, because a timer wakeup is the whole cost and its price
//   depends on the host (about 2 us on bare metal, 30-45 us in the project's Firecracker VMs, where 2 kHz alone is
//   6-8% of a core):
//     kDoorbellPollPeriod (0.5 ms) from a doorbell's registration and for kDoorbellPollWarmFor after any
//       polled doorbell last moved;
//     kDoorbellIdlePollPeriod (8 ms) once every polled doorbell has been still that long: the first bare store
//       after a long silence waits up to 8 ms.
// The process says once, in a HIPMEM_LOG line at the first Watch, which of the two it uses and why.
// The ring path of our own stack (RingDoorbell: store, then FUTEX_WAKE) never waits for either; through a
// write-protected client mapping its store costs one fault round trip.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_POLLER_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_POLLER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>
#include <utility>

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
// Event-driven mode: how often the poller looks at a page whose write protection a store lifted, and how long
// the page's doorbells must have been still before it is write-protected again.
inline constexpr std::chrono::microseconds kDoorbellHotPollPeriod{250};
inline constexpr std::chrono::milliseconds kDoorbellHotFor{10};

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
  // Whether the poller thread ran when the word was registered; without it a bare store to the word wakes nobody,
  // so an engine must not start on it (QueueEngine::running).
  bool polled() const { return polled_; }

 private:
  friend class DoorbellPoller;

  uint64_t* const word_;
  uint64_t last_seen_ = 0;  // the poller's: what the word read at its last look (guarded by the poller's lock)
  bool polled_ = false;     // set once, at registration
  std::atomic<uint64_t> sleeping_on_{0};  // meaningful while armed_
  std::atomic<bool> armed_{false};
};

// A client's CPU mapping of doorbell pages, watched for stores (event-driven mode above). Move-only owner: the
// destructor unregisters the mapping (UFFDIO_UNREGISTER, which also lifts the protection and wakes a writer
// blocked on it), after which stores through it are plain stores again; it does not unmap anything.
class DoorbellClientMapping {
 public:
  // `client` (page-aligned, `bytes` a multiple of the page size) maps the same pages as `engine_view`, the
  // engines' view through which their DoorbellWaiters read the doorbells. Never fails: where userfaultfd is
  // unavailable or refuses this mapping, the doorbells of these pages stay polled (and event_driven() is false).
  static DoorbellClientMapping Watch(void* client, size_t bytes, void* engine_view);

  DoorbellClientMapping() = default;  // watches nothing
  ~DoorbellClientMapping();
  DoorbellClientMapping(DoorbellClientMapping&& other) noexcept
      : id_(std::exchange(other.id_, 0)), event_driven_(std::exchange(other.event_driven_, false)) {}
  DoorbellClientMapping& operator=(DoorbellClientMapping&& other) noexcept;
  DoorbellClientMapping(const DoorbellClientMapping&) = delete;
  DoorbellClientMapping& operator=(const DoorbellClientMapping&) = delete;

  // Whether stores through this mapping are noticed by write-protect faults (false: by polling).
  bool event_driven() const { return event_driven_; }

 private:
  DoorbellClientMapping(uint64_t id, bool event_driven) : id_(id), event_driven_(event_driven) {}
  uint64_t id_ = 0;  // the poller's id of the mapping (registered or not); 0: watches nothing
  bool event_driven_ = false;
};

// What the poller has done since the process started, for tests and benchmarks.
struct DoorbellPollerStats {
  uint64_t looks = 0;    // timer wakeups in which the poller looked at the watched doorbells
  uint64_t wakes = 0;    // FUTEX_WAKEs it issued for doorbells that moved under a sleeper
  size_t watched = 0;    // doorbells registered now
  std::chrono::microseconds period{0};  // the period the poller is using (0: no timer)
  bool event_driven = false;  // userfaultfd is set up (after the first DoorbellClientMapping::Watch)
  uint64_t faults = 0;        // write-protect faults the handler served
  uint64_t protects = 0;      // pages write-protected again after a hot spell
};

// Returns the process-wide poller's counters.
DoorbellPollerStats GetDoorbellPollerStats();

// Returns each client address of the doorbell word the engines read at `engine_word`: the same memory, seen
// through the watched client mappings (DoorbellClientMapping::Watch). Taken under the poller's lock and returned,
// so the caller acts on them with no lock held (a writer blocked on a write-protect fault of that page may hold
// locks of its own until the handler, which needs the poller's lock, lets it go).
std::vector<const void*> ClientAliases(const uint64_t* engine_word);

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_POLLER_H_
