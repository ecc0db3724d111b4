// A simulated PM4 packet processor: executes the type-3 packets of one PM4 compute queue on its own thread.
//
// Plays the MEC firmware behind an amdkfd CREATE_QUEUE of type COMPUTE (the non-AQL compute queue kfdtest's
// PM4Queue drives): a ring of dwords in GPU-mapped memory (gpu_abi/pm4_packets.h), a doorbell whose value is
// the producer's 64-bit write pointer in dwords (monotonic, gfx9+), and a read pointer the CP writes back as a
// 32-bit dword offset that wraps at the ring size (CP_HQD_PQ_RPTR_REPORT: kfdtest waits for it to equal
// wptr % ring dwords). The thread sleeps on the doorbell while idle (doorbell.h).
//
// Every access -- ring, indirect buffers, packet targets, the read pointer -- goes through the GPU page table
// (GpuMemory): an unmapped address is a VM fault that halts the queue and is reported once. A packet the CP
// cannot execute (another packet type, an unknown opcode, a malformed body, a register or GDS access, an IB
// nested too deep) halts it as a queue error; so does a shader dispatch, because the simulator runs no user
// shader code. Packets complete strictly in order, so cache actions, EVENT_WRITE flushes and ACQUIRE_MEM are
// satisfied by construction; SET_SH_REG and SET_UCONFIG_REG only record register state. The read pointer moves
// past a packet once it has completed (hardware reports it at fetch), so a consumer that sees the read pointer
// reach its write pointer also sees every packet's effect.
//
// A packet the write pointer covers only partly is not started: the CP waits for the rest, as hardware fetches
// up to the write pointer. WAIT_REG_MEM polls memory with a bounded interval (exponential back-off to 1 ms) and
// is abandoned when the engine stops.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_ENGINE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_ENGINE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "testing/kfd_sim/engines/doorbell.h"
#include "testing/kfd_sim/engines/gpu_clock.h"
#include "testing/kfd_sim/engines/gpu_memory.h"

namespace hipmem::kfd_sim {

struct Pm4QueueDescriptor {
  uint64_t ring_va;     // ring base, GPU VA, 4-byte aligned
  uint32_t ring_bytes;  // a power of two, >= 8
  uint64_t rptr_va;     // where the CP writes its read pointer (32-bit dword offset in the ring), 4-byte aligned
  uint64_t wptr_va;     // the producer's 64-bit write pointer in memory (informational)
  // The engine's view of the queue's doorbell word (doorbell.h); not owned. Null: the engine keeps a private
  // one that only RingDoorbell() rings (engine tests).
  uint64_t* doorbell = nullptr;
  uint64_t initial_rptr = 0;  // the dword the CP starts at (dwords, monotonic)
  // The GPU's clock counter, which RELEASE_MEM and COPY_DATA timestamps read (the system clock they can also
  // write is CLOCK_MONOTONIC_RAW in ns, as GET_CLOCK_COUNTERS reports it).
  GpuClock clock{GpuClock::kDefaultFrequencyHz};
};

// Why a PM4 queue stopped without a VM fault.
enum class Pm4Error {
  kInvalidQueue,       // the descriptor itself is unusable (ring size or alignment)
  kBadPacketType,      // a type-0, type-1 or type-2 header
  kUnknownOpcode,      // a type-3 opcode the simulated MEC does not execute
  kMalformedPacket,    // a body too short for its opcode, or longer than the ring or its IB
  kUnsupported,        // a valid packet asking for what is not simulated (register or GDS space, ...)
  kIbNesting,          // an INDIRECT_BUFFER inside a second-level IB
  kShaderDispatch,     // DISPATCH_DIRECT/INDIRECT: user shader code, which the simulator cannot run
};

const char* Pm4ErrorName(Pm4Error error);

// Thread-safe. Owns its CP thread.
class Pm4Engine {
 public:
  struct Callbacks {
    // RELEASE_MEM's end-of-pipe interrupt (int_sel 1 or 2), carrying the packet's int_ctxid.
    std::function<void(uint32_t context_id)> on_interrupt;
    std::function<void(uint64_t va)> on_vm_fault;  // the queue halted on an unmapped address
    // The queue halted on a packet it cannot run; `detail` says which and where.
    std::function<void(Pm4Error error, const std::string& detail)> on_queue_error;
  };

  // Starts the CP thread. `memory` is not owned and must outlive the engine. Callbacks run on the CP thread,
  // never inside a GpuMemory::AccessScope.
  Pm4Engine(std::string name, GpuMemory* memory, Pm4QueueDescriptor queue, Callbacks callbacks);
  // Stops the thread (an unsatisfied WAIT_REG_MEM is abandoned) and joins it.
  ~Pm4Engine();
  Pm4Engine(const Pm4Engine&) = delete;
  Pm4Engine& operator=(const Pm4Engine&) = delete;

  // Rings the queue's doorbell with the producer's new write pointer (dwords, monotonic), as a producer that
  // owns the doorbell page would (kfd_sim::RingDoorbell).
  void RingDoorbell(uint64_t wptr);

  // Blocks until every packet before the doorbell's write pointer has completed, or the queue halted. Returns
  // false when it halted. A packet the write pointer covers only partly keeps it waiting.
  bool WaitIdle();

  // The dwords the CP has consumed (monotonic; the ring offset is this modulo the ring's dwords).
  uint64_t rptr() const;
  bool halted() const;
  const std::string& name() const { return name_; }
  // The value the last SET_SH_REG wrote to register `reg` (absolute offset), if any.
  std::optional<uint32_t> sh_register(uint32_t reg) const;

 private:
  enum class Outcome { kDone, kNotReady, kFault, kError, kStopped };
  // Where packets come from: the ring (wraps, bounded by the write pointer) or an indirect buffer.
  struct Stream {
    uint64_t base;
    uint64_t dwords;  // ring: its size; IB: its length
    bool ring;
  };
  struct Packet {
    uint32_t header;
    std::vector<uint32_t> body;  // count + 1 dwords
  };

  void Run();
  // Runs the packet at dword `index` of `stream` with `available` dwords readable from there; on kDone
  // `*consumed` is its length in dwords.
  Outcome Execute(const Stream& stream, uint64_t index, uint64_t available, int ib_depth, uint32_t* consumed);
  Outcome ReadPacket(const Stream& stream, uint64_t index, uint64_t available, Packet* packet);
  Outcome RunIndirectBuffer(Stream ib, int ib_depth);
  Outcome WriteData(const Packet& p);
  Outcome ReleaseMem(const Packet& p);
  Outcome WaitRegMem(const Packet& p);
  Outcome CopyData(const Packet& p);
  Outcome SetRegisters(const Packet& p, uint32_t base, std::map<uint32_t, uint32_t>& file);
  Outcome WriteBackRptr(uint64_t rptr);
  // Record why the queue halts; ReportHalt() logs it and runs the callback once no access scope is open.
  Outcome Fault(uint64_t va);
  Outcome Error(Pm4Error error, std::string detail);
  void ReportHalt();
  // Sleeps `period` or until the engine stops; returns true when it stops.
  bool SleepUnlessStopped(std::chrono::microseconds period);
  bool stopping() const { return stop_requested_.load(std::memory_order_acquire); }

  const std::string name_;
  GpuMemory* const memory_;  // Not owned; must outlive this.
  const Pm4QueueDescriptor queue_;
  const Callbacks callbacks_;
  const uint64_t ring_dwords_;  // 0 when the descriptor is unusable

  uint64_t private_doorbell_ = 0;  // the doorbell word when the descriptor brings none
  uint64_t* const doorbell_word_;
  const DoorbellWaiter doorbell_;

  mutable std::mutex mu_;
  std::condition_variable cv_;                // progress: rptr_, halted_, stop_
  uint64_t rptr_;                             // guarded by mu_
  bool halted_ = false;                       // guarded by mu_
  bool reporting_ = false;                    // guarded by mu_: the halt callback is running
  bool stop_ = false;                         // guarded by mu_
  std::map<uint32_t, uint32_t> sh_regs_;      // guarded by mu_
  std::map<uint32_t, uint32_t> uconfig_regs_;  // guarded by mu_
  std::atomic<bool> stop_requested_{false};   // read without mu_ between packets and polls
  std::atomic<bool> exited_{false};

  // CP thread only.
  std::optional<Stream> chain_;  // set by a chained INDIRECT_BUFFER inside an IB: the IB that replaces it
  std::optional<uint64_t> halt_fault_va_;
  std::optional<Pm4Error> halt_error_;
  std::string halt_detail_;

  std::thread thread_;
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_ENGINE_H_
