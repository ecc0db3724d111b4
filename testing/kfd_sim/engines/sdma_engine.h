// A simulated SDMA engine: executes the packets of one SDMA queue on its own thread.
//
// Plays an SDMA engine's RLC queue as amdkfd sets it up (CREATE_QUEUE type SDMA/SDMA_XGMI): a ring
// in GPU-mapped memory, a read pointer the engine writes back, and a doorbell whose write carries
// the new write pointer. The thread sleeps until the doorbell rings (no polling while idle).
// Every access -- ring, pointers, copy sources and destinations -- goes through the GPU page
// table (GpuMemory); an unmapped address is a VM fault: the queue halts and reports the address.
// Packets are decoded in the encoding of the queue's SDMA generation (gpu_abi/sdma_packets.h): COPY_LINEAR
// (with broadcast), COPY_LINEAR_SUB_WINDOW, WRITE_LINEAR, FENCE, TRAP, POLL_REGMEM (memory polls; HDP flushes),
// ATOMIC, CONST_FILL (byte and dword), TIMESTAMP (set/get local, get global), GCR_REQ (v5+) and NOP. Anything else -- an unknown opcode, a
// sub-opcode we do not simulate, a count wider than the generation's field, a misaligned address -- is an
// illegal packet: the queue halts where it stands and reports why.
// A large COPY_LINEAR is spread over the device's copy workers (copy_workers.h), as a real engine moves it at the
// memory's bandwidth rather than one CPU thread's: the engine thread translates the whole range first, inside the
// packet's access scope (which keeps the page table as it is until the packet ends), then it and the workers move
// the pieces, and the packet completes only when every piece has landed. Packet order, completion and faults are as
// for a copy on the engine thread alone: everything before the first unmapped byte is copied, nothing after it.
// A large CONST_FILL is spread the same way.
// Thread-safe.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_SDMA_ENGINE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_SDMA_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "gpu_abi/sdma_packets.h"
#include "testing/kfd_sim/engines/copy_workers.h"
#include "testing/kfd_sim/engines/gpu_clock.h"
#include "testing/kfd_sim/engines/gpu_memory.h"
#include "testing/kfd_sim/engines/queue_engine.h"

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
  // The packet encoding of the GPU the queue runs on (its gfx_target_version, sdma::GenerationOf).
  gpu_abi::sdma::Generation generation = gpu_abi::sdma::Generation::kV4_4;
  // The GPU's clock counter, which TIMESTAMP packets read.
  GpuClock clock = GpuClock(GpuClock::kDefaultFrequencyHz);
  // The device's copy workers, which large copies are spread over; not owned, must outlive the engine. Null: every
  // copy runs on the engine thread alone.
  CopyWorkers* copy_workers = nullptr;
};

class SdmaEngine final : public QueueEngine {
 public:
  struct Callbacks {
    std::function<void(uint32_t context)> on_trap;  // a TRAP packet: signal the queue's event
    std::function<void(uint64_t va)> on_vm_fault;   // the queue halted on an unmapped address
    // The queue halted on an illegal packet; `reason` names the packet, where it sits and what is wrong.
    std::function<void(const std::string& reason)> on_illegal_packet;
  };

  // Starts the engine thread for the queue. `memory` is not owned and must outlive the engine.
  SdmaEngine(std::string name, GpuMemory* memory, SdmaQueueDescriptor queue, Callbacks callbacks);
  // Stops the thread (an unfinished POLL or looping ATOMIC is abandoned) and joins it.
  ~SdmaEngine() override;

  // RingDoorbell takes the producer's new write pointer (bytes, monotonic). WaitIdle returns false when the queue
  // halted on a VM fault or an illegal packet.

  // The read pointer the engine has reached (bytes, monotonic). On a halt, where the offending packet starts.
  uint64_t rptr() const { return progress(); }
  // Bytes of COPY_LINEAR, COPY_LINEAR_SUB_WINDOW and CONST_FILL this engine has moved.
  uint64_t bytes_moved() const { return bytes_moved_.load(std::memory_order_relaxed); }

 private:
  Outcome Process(uint64_t wptr) override;
  void ReportError() override;
  bool CaughtUp(uint64_t rptr, uint64_t wptr) const override { return rptr >= wptr; }

  Outcome Execute(uint64_t rptr, uint32_t* dwords_consumed);
  bool ReadRing(uint64_t offset, uint32_t* out, uint32_t count);
  Outcome Copy(uint64_t dst, uint64_t src, uint64_t bytes);
  // Copy and Fill for a range longer than kSplitAbove, with copy workers.
  Outcome CopySplit(uint64_t dst, uint64_t src, uint64_t bytes);
  Outcome FillSplit(uint64_t dst, uint32_t value, uint64_t bytes, bool dwords);
  Outcome CopyRect(const uint32_t* packet);  // COPY_LINEAR_SUB_WINDOW's 13 dwords
  Outcome Write(uint64_t rptr, uint64_t dst, uint32_t dwords);
  Outcome Fill(uint64_t dst, uint32_t value, uint64_t bytes, bool dwords);
  Outcome Store64(uint64_t addr, uint64_t value);
  Outcome Poll(uint64_t addr, uint32_t reference, uint32_t mask, uint32_t function, uint32_t interval_us,
               uint32_t retries);
  Outcome DoAtomic(const uint32_t* p);
  // Records why the packet at the read pointer is illegal; returns kHalt.
  Outcome Illegal(std::string reason);

  GpuMemory* const memory_;  // Not owned; must outlive this.
  const SdmaQueueDescriptor queue_;
  const Callbacks callbacks_;

  // Engine thread only.
  uint64_t rptr_;                  // the read pointer (bytes, monotonic)
  std::string illegal_reason_;     // why the packet at rptr_ is illegal
  int64_t local_time_offset_ = 0;  // SET_LOCAL_TIMESTAMP: the local counter minus the GPU clock
  // A split copy's translated runs: host source and destination of `bytes` bytes starting `offset` bytes into the
  // copy. Kept to reuse its storage.
  struct CopyRun {
    uint64_t offset;
    uint64_t bytes;
    const uint8_t* src;
    uint8_t* dst;
  };
  std::vector<CopyRun> runs_;
  // Calls move(run, skip, n) for every byte of the first `bytes` of runs_ (`n` bytes from `skip` into `run`), spread
  // over the copy workers in kPieceBytes pieces; returns when all have returned.
  void SpreadRuns(uint64_t bytes, absl::FunctionRef<void(const CopyRun&, uint64_t skip, uint64_t n)> move);

  std::atomic<uint64_t> bytes_moved_{0};
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_SDMA_ENGINE_H_
