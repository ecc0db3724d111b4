// The simulated doorbell: how a producer tells a simulated engine that its queue has new work.
//
// On hardware a doorbell is an MMIO write: the store itself wakes the engine. Here a doorbell is a 64-bit word
// in shared memory (the process's doorbell page, kfd_doorbell.c's slice) that the engine sleeps on with a
// futex (FUTEX_WAIT on the low dword while the word still reads what the engine last saw), after watching it
// for kDoorbellWatchFor (below). Three things wake it:
//   a bare store `*doorbell = wptr`, as every real client (kfdtest, libhsakmt users, ROCr) rings: through a
//     watched client mapping (DoorbellClientMapping) it faults on the write-protected page and the handler wakes
//     the engine, as the hardware's doorbell logic would; elsewhere (no userfaultfd, or a word no watched
//     mapping covers) the poller notices it within one poll period (doorbell_poller.h);
//   RingDoorbell(word, value) = release-store `value`, then FUTEX_WAKE: our own stack's ring (the thunk's
//     KfdDevice::RingDoorbell on the simulator), which wakes the engine at once instead of within a period;
//   a GPU engine's store into a GPU-mapped doorbell slice (kfdtest's GPUDoorbellWrite): the page table announces it
//     with NotifyDoorbellStores when the engine's access scope closes (gpu_page_table.h).
// All wakes are shared (not PRIVATE) futex wakes, so they reach a waiter whose mapping of the same page sits at
// another virtual address, as the engine's view of a doorbell page does. A value that moved on before the
// waiter slept makes FUTEX_WAIT return at once, and the poller compares with the value the waiter went to sleep
// on (not with what it saw last), so no ring is lost either way.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "testing/kfd_sim/engines/doorbell_poller.h"

namespace hipmem::kfd_sim {

// How long an engine that has run out of work keeps looking at its doorbell before it sleeps. A hardware engine
// sees every doorbell write at once. A sleeping simulated one costs the producer a futex wake and then a thread
// wake-up before the next packet runs: about 5 us each in the project's VMs, where an idle vCPU halts. Watching
// for a while after each burst keeps back-to-back work free of both: a copy, its wait, the next copy. The cost is
// bounded, at most this much CPU per burst, and an idle engine still costs nothing. 50 us covers a host's
// turnaround between one command's completion and the next submission with room to spare.
inline constexpr std::chrono::microseconds kDoorbellWatchFor{50};

// The producer's doorbell write. `word` is the producer's view of the doorbell (8-byte aligned).
void RingDoorbell(uint64_t* word, uint64_t value);

// Announces stores that already reached the `count` doorbell words from `first` by another path: a GPU engine's
// write through its page table into a GPU-mapped doorbell slice, which the hardware's doorbell logic sees like any
// doorbell write. Wakes the engines asleep on those words, and publishes what the writer did before the stores to
// them, as RingDoorbell does. A word that did not change costs one spurious wake.
void NotifyDoorbellStores(uint64_t* first, size_t count);

// The engine side of one doorbell: watched by the doorbell poller for as long as this lives, so a bare store
// wakes Wait(). Thread-safe, except that one thread at a time calls Wait (the engine's).
class DoorbellWaiter {
 public:
  // `word` is the engine's view of the doorbell (8-byte aligned); not owned, must outlive this. Registers the
  // word with the poller; the destructor returns only once the poller no longer reads it.
  explicit DoorbellWaiter(uint64_t* word) : word_(word), watch_(word) {}
  DoorbellWaiter(const DoorbellWaiter&) = delete;
  DoorbellWaiter& operator=(const DoorbellWaiter&) = delete;

  // The last value written (acquire).
  uint64_t Load() const;

  // Returns once the word no longer reads `seen`, or on WakeUntil; may return spuriously. It first watches the
  // word for kDoorbellWatchFor, then sleeps: a RingDoorbell wakes it at once, a bare store on its fault or within
  // a poll period.
  void Wait(uint64_t seen) const;

  // Whether the doorbell poller watches the word (DoorbellWatch::polled).
  bool polled() const { return watch_.polled(); }

  // Wakes every sleeping waiter without changing the word. A waiter still watching the word does not notice: to
  // stop an engine, use WakeUntil.
  void Wake() const;

  // Stops a waiter thread: keeps waking until `exited` is set. A single Wake() could be lost while the thread
  // sits between its last look at its stop flag and FUTEX_WAIT.
  void WakeUntil(const std::atomic<bool>& exited) const;

 private:
  // Looks at the word until it no longer reads `seen` (true) or kDoorbellWatchFor has passed (false).
  bool Watch(uint64_t seen) const;

  uint64_t* const word_;
  mutable DoorbellWatch watch_;  // Wait arms it; mutable because waiting does not change the doorbell
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_H_
