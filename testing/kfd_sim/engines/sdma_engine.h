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

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace hipmem::kfd_sim {

// The GPU's view of memory: one GPU's page table in one process. Thread-safe.
class GpuMemory {
 public:
  struct Span {
    void* host;      // where the engine reads or writes the first byte
    uint64_t bytes;  // how many following bytes are contiguous there (> 0)
  };
  virtual ~GpuMemory() = default;
  // Returns the host bytes behind `va`, at most `bytes` of them, or nullopt when `va` is not mapped
  // in this GPU's page table (a VM fault).
  virtual std::optional<Span> Translate(uint64_t va, uint64_t bytes) = 0;
};

struct SdmaQueueDescriptor {
  uint64_t ring_va;        // ring base, GPU VA
  uint32_t ring_bytes;     // power of two, >= 256
  uint64_t rptr_va;        // 64-bit read pointer the engine writes back (bytes, monotonic)
  uint64_t wptr_va;        // 64-bit write pointer the producer keeps in memory (informational)
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

  // The doorbell: publishes the producer's new write pointer (bytes, monotonic) and wakes the engine.
  void RingDoorbell(uint64_t wptr);

  // Blocks until every packet before the last doorbell's write pointer has executed, or the queue
  // halted. Returns false when it halted (VM fault or malformed packet).
  bool WaitIdle();

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

  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t doorbell_wptr_ = 0;  // guarded by mu_
  uint64_t rptr_ = 0;           // guarded by mu_
  bool halted_ = false;         // guarded by mu_
  bool stop_ = false;           // guarded by mu_
  uint64_t bytes_moved_ = 0;    // guarded by mu_
  std::thread thread_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_SDMA_ENGINE_H_
