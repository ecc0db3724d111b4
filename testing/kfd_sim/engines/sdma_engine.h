// A simulated SDMA engine: executes the packets of one SDMA queue on its own thread.
//
// Plays an SDMA engine's RLC queue as amdkfd sets it up (CREATE_QUEUE type SDMA/SDMA_XGMI): a ring
// in GPU-mapped memory, a read pointer the engine writes back, and a doorbell whose write carries
// the new write pointer. The thread sleeps until the doorbell rings (no polling while idle).
// Every access -- ring, pointers, copy sources and destinations -- goes through the GPU page
// table (GpuMemory); an unmapped address is a VM fault: the queue halts and reports the address.
// Thread-safe.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_SDMA_ENGINE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_SDMA_ENGINE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/engines/gpu_memory.h"

namespace hipmem::kfd_sim {

struct SdmaQueueDescriptor {
  uint64_t ring_va;        // ring base, GPU VA
  uint32_t ring_bytes;     // power of two, >= 256
  uint64_t rptr_va;        // 64-bit read pointer the engine writes back (bytes, monotonic)
  uint64_t wptr_va;        // 64-bit write pointer the producer keeps in memory (informational)
  // The engine's view of the queue's doorbell word (doorbell.h); not owned. Null: the engine keeps a
  // private one that only RingDoorbell() rings (engine tests and benchmarks).
  uint64_t* doorbell = nullptr;
  uint64_t initial_rptr = 0;  // where the engine starts reading (bytes, monotonic)
};

class SdmaEngine {
 public:
  struct Callbacks {
    std::function<void(uint32_t context)> on_trap;  // a TRAP packet: signal the queue's event
    std::function<void(uint64_t va)> on_vm_fault;   // the queue halted on an unmapped address
  };

  // Starts the engine thread for the queue. `memory` is not owned and must outlive the engine.
  SdmaEngine(std::string name, GpuMemory* memory, SdmaQueueDescriptor queue, Callbacks callbacks);
  // Stops the thread (an unfinished POLL is abandoned) and joins it.
  ~SdmaEngine();
  SdmaEngine(const SdmaEngine&) = delete;
  SdmaEngine& operator=(const SdmaEngine&) = delete;

  // Rings the queue's doorbell with the producer's new write pointer (bytes, monotonic), as a producer
  // that owns the doorbell page would (kfd_sim::RingDoorbell).
  void RingDoorbell(uint64_t wptr);

  // Blocks until every packet before the doorbell's current write pointer has executed, or the queue
  // halted. Returns false when it halted (VM fault or malformed packet).
  bool WaitIdle();

  // The read pointer the engine has reached (bytes, monotonic).
  uint64_t rptr() const;

  bool halted() const;
  const std::string& name() const { return name_; }
  // Bytes of COPY_LINEAR and CONST_FILL this engine has moved.
  uint64_t bytes_moved() const;

 private:
  enum class Outcome { kDone, kFault, kStopped, kMalformed };

  void Run();
  Outcome Execute(uint64_t rptr, uint32_t* dwords_consumed);
  bool ReadRing(uint64_t offset, uint32_t* out, uint32_t count);
  Outcome Copy(uint64_t dst, uint64_t src, uint64_t bytes);
  Outcome Fill(uint64_t dst, uint32_t value, uint64_t bytes);
  Outcome Poll(uint64_t addr, uint32_t reference, uint32_t mask, uint32_t function, uint32_t interval_us,
               uint32_t retries);
  void Fault(uint64_t va);
  bool stopping() const;

  const std::string name_;
  GpuMemory* const memory_;  // Not owned; must outlive this.
  const SdmaQueueDescriptor queue_;
  const Callbacks callbacks_;

  uint64_t private_doorbell_ = 0;  // the doorbell word when the descriptor brings none
  uint64_t* const doorbell_word_;
  const DoorbellWaiter doorbell_;

  mutable std::mutex mu_;
  std::condition_variable cv_;    // progress: rptr_, halted_, stop_
  uint64_t rptr_ = 0;           // guarded by mu_
  bool halted_ = false;         // guarded by mu_
  bool reporting_fault_ = false;  // guarded by mu_: the fault callback is running
  bool stop_ = false;           // guarded by mu_
  std::atomic<bool> stop_requested_{false};  // read by the thread without mu_ between doorbell waits
  std::atomic<bool> exited_{false};
  uint64_t bytes_moved_ = 0;    // guarded by mu_
  std::thread thread_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_SDMA_ENGINE_H_
