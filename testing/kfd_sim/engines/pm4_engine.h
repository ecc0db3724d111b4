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
// nested too deep) halts it as a queue error. SET_SH_REG and SET_UCONFIG_REG record register state; on a GPU with a
// GFX9 instruction set (Pm4QueueDescriptor::isa) DISPATCH_DIRECT and DISPATCH_INDIRECT run the shader those
// registers describe (COMPUTE_PGM_*, COMPUTE_USER_DATA_*, COMPUTE_NUM_THREAD_*, COMPUTE_TMPRING_SIZE) on the GFX9
// compute units (gfx9/dispatch.h), its workgroups one after another on the CP thread, and the packet completes when
// every wave has ended. A wave's VM fault halts the queue as a VM fault, an instruction the compute units cannot
// run as kIllegalInstruction. Without an instruction set a dispatch halts the queue (kShaderDispatch). Packets
// complete strictly in order, so cache actions, EVENT_WRITE flushes and ACQUIRE_MEM are satisfied by
// construction. The read pointer moves
// past a packet once it has completed (hardware reports it at fetch), so a consumer that sees the read pointer
// reach its write pointer also sees every packet's effect.
//
// A packet the write pointer covers only partly is not started: the CP waits for the rest, as hardware fetches
// up to the write pointer. WAIT_REG_MEM polls memory with a bounded interval (exponential back-off to 1 ms) and
// is abandoned when the engine stops.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_ENGINE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_ENGINE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "testing/kfd_sim/engines/gfx9/gws.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gpu_clock.h"
#include "testing/kfd_sim/engines/gpu_memory.h"
#include "testing/kfd_sim/engines/queue_engine.h"

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
  // The instruction set the compute units run shaders in (GFX9: gfx908, gfx90a, gfx942); none: a dispatch halts
  // the queue with kShaderDispatch.
  std::optional<gfx9::Target> isa = std::nullopt;
  // The process's flat apertures onto LDS and scratch (amdkfd's GFX9 layout).
  uint64_t shared_aperture_base = uint64_t{1} << 48;
  uint64_t private_aperture_base = uint64_t{2} << 48;
  // The process's scratch backing (SET_SCRATCH_BACKING_VA's SH_HIDDEN_PRIVATE_BASE, as a VA) when the queue was
  // mapped, as the scheduler hands it to the CP with the process; 0 when never set.
  uint64_t scratch_backing_base = 0;
};

// Why a PM4 queue stopped without a VM fault.
enum class Pm4Error {
  kInvalidQueue,       // the descriptor itself is unusable (ring size or alignment)
  kBadPacketType,      // a type-0, type-1 or type-2 header
  kUnknownOpcode,      // a type-3 opcode the simulated MEC does not execute
  kMalformedPacket,    // a body too short for its opcode, or longer than the ring or its IB
  kUnsupported,        // a valid packet asking for what is not simulated (register or GDS space, ...)
  kIbNesting,          // an INDIRECT_BUFFER inside a second-level IB
  kShaderDispatch,     // DISPATCH_DIRECT/INDIRECT on a GPU whose instruction set the simulator cannot run
  kInvalidDispatch,    // a dispatch the registers describe badly (no work-items, a workgroup over 1024, LDS over 64 KiB)
  kIllegalInstruction,  // a shader's wave met an instruction the compute units cannot run (or a malformed one)
  kTrap,                // a shader's wave executed s_trap (not llvm.debugtrap's id 3): the trap handler halted it
};

const char* Pm4ErrorName(Pm4Error error);

// Thread-safe. Owns its CP thread (QueueEngine).
class Pm4Engine final : public QueueEngine {
 public:
  struct Callbacks {
    // RELEASE_MEM's end-of-pipe interrupt (int_sel 1 or 2), carrying the packet's int_ctxid.
    std::function<void(uint32_t context_id)> on_interrupt = nullptr;
    std::function<void(uint64_t va)> on_vm_fault = nullptr;  // the queue halted on an unmapped address
    // The queue halted on a packet it cannot run; `detail` says which and where.
    std::function<void(Pm4Error error, const std::string& detail)> on_queue_error = nullptr;
  };

  // Starts the CP thread. `memory` is not owned and must outlive the engine. Callbacks run on the CP thread,
  // never inside a GpuMemory::AccessScope.
  Pm4Engine(std::string name, GpuMemory* memory, Pm4QueueDescriptor queue, Callbacks callbacks);
  // Stops the thread (an unsatisfied WAIT_REG_MEM is abandoned) and joins it.
  ~Pm4Engine() override;

  // RingDoorbell takes the producer's new write pointer (dwords, monotonic). WaitIdle returns false when the queue
  // halted; a packet the write pointer covers only partly keeps it waiting.

  void SetGws(std::shared_ptr<gfx9::GwsBlock> gws) override { gws_.Set(std::move(gws)); }

  // The dwords the CP has consumed (monotonic; the ring offset is this modulo the ring's dwords).
  uint64_t rptr() const { return progress(); }
  // The value the last SET_SH_REG wrote to register `reg` (absolute offset), if any.
  std::optional<uint32_t> sh_register(uint32_t reg) const;

 private:
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

  gfx9::GwsSlot gws_;  // the queue's global wave sync, when ALLOC_QUEUE_GWS gave it one

  bool Validate() override;
  Outcome Process(uint64_t wptr) override;
  void ReportError() override;
  bool CaughtUp(uint64_t rptr, uint64_t wptr) const override { return rptr >= wptr; }

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
  // DISPATCH_INDIRECT: reads dim_x/y/z from memory, then dispatches.
  Outcome DispatchIndirect(const Packet& p, const std::string& where);
  // Launches the shader the COMPUTE_* registers describe over `dims` and runs it to completion.
  Outcome Dispatch(const char* what, const std::array<uint32_t, 3>& dims, uint32_t initiator,
                   const std::string& where);
  // The last value SET_SH_REG wrote to `reg`, or 0 (the registers' reset value).
  uint32_t ShRegister(uint32_t reg) const;
  // Records why the queue halts; returns kHalt.
  Outcome Error(Pm4Error error, std::string detail);

  GpuMemory* const memory_;  // Not owned; must outlive this.
  const Pm4QueueDescriptor queue_;
  const Callbacks callbacks_;
  const uint64_t ring_dwords_;  // 0 when the descriptor is unusable

  // CP thread only.
  uint64_t rptr_;                // the dwords consumed
  std::optional<Stream> chain_;  // set by a chained INDIRECT_BUFFER inside an IB: the IB that replaces it
  std::optional<Pm4Error> error_;  // why the queue halted, when not on a VM fault
  std::string error_detail_;

  mutable std::mutex registers_mu_;
  std::map<uint32_t, uint32_t> sh_regs_ ABSL_GUARDED_BY(registers_mu_);
  std::map<uint32_t, uint32_t> uconfig_regs_ ABSL_GUARDED_BY(registers_mu_);
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_PM4_ENGINE_H_
