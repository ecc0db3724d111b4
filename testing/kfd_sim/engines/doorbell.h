// The simulated doorbell: how a producer tells a simulated engine that its queue has new work.
//
// On hardware a doorbell is an MMIO write: the store itself wakes the engine. A simulated engine cannot
// observe a bare store without polling, so here a doorbell is a 64-bit word in shared memory (the
// process's doorbell page, kfd_doorbell.c's slice) plus a futex wake on it:
//   RingDoorbell(word, value)  = release-store `value` (the new write pointer), then FUTEX_WAKE;
//   DoorbellWaiter::Wait(seen) = sleep (FUTEX_WAIT on the low dword) while the word still reads `seen`.
// The wake is a shared (not PRIVATE) futex, so it reaches a waiter whose mapping of the same page sits at
// another virtual address, as the engine's view of a doorbell page does. A value that moved on before the
// waiter slept makes FUTEX_WAIT return at once, so a ring is never lost.
//
// Departure from hardware, stated once here: a client that only stores to its doorbell (no wake) is not
// noticed by the simulator. The thunk's queue doorbell write (thunk/queues.h) does both.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_H_

#include <atomic>
#include <cstdint>

namespace hipmem::kfd_sim {

// The producer's doorbell write. `word` is the producer's view of the doorbell (8-byte aligned).
void RingDoorbell(uint64_t* word, uint64_t value);

// The engine side of one doorbell. Thread-safe.
class DoorbellWaiter {
 public:
  // `word` is the engine's view of the doorbell (8-byte aligned); not owned, must outlive this.
  explicit DoorbellWaiter(uint64_t* word) : word_(word) {}

  // The last value written (acquire).
  uint64_t Load() const;

  // Sleeps until the word no longer reads `seen` or Wake() is called; may return spuriously.
  void Wait(uint64_t seen) const;

  // Wakes every waiter without changing the word (to stop an engine).
  void Wake() const;

  // Stops a waiter thread: keeps waking until `exited` is set. A single Wake() could be lost while the thread
  // sits between its last look at its stop flag and FUTEX_WAIT.
  void WakeUntil(const std::atomic<bool>& exited) const;

 private:
  uint64_t* const word_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_DOORBELL_H_
