// A simulated compute command processor: executes the AQL packets of one user-mode queue.
//
// Plays the MEC firmware behind an amdkfd CREATE_QUEUE of type COMPUTE_AQL: a ring of 64-byte AQL packets
// (aql_packets.h) in GPU-mapped memory, a 64-bit read index the CP writes back (amd_queue_t's
// read_dispatch_id), and a doorbell that carries the index of the last packet written (ROCr's AqlQueue stores
// the packet index itself on gfx9+ doorbells; the legacy +1 convention is not modelled). The CP thread
// watches its doorbell for a moment after its last packet, then sleeps on the doorbell futex (doorbell.h). A kernel
// dispatch runs a built-in blit kernel (blit_kernels.h) when its descriptor says so, and otherwise, on a GPU with a
// GFX9 instruction set (AqlQueueDescriptor::isa), the real kernel the AMDGPU kernel descriptor describes
// (gfx9/dispatch.h); its workgroups are spread over a pool of worker threads standing for the compute units. A
// wave that meets an instruction the engine cannot run halts the queue with kIllegalInstruction. Every access -- ring, read index, descriptors, kernargs, buffers, signals, mailboxes --
// goes through the GPU page table (GpuMemory): an unmapped address is a VM fault that halts the queue and is
// reported once; a packet the CP cannot execute is a queue error that halts it likewise.
//
// Ordering, stronger than HSA requires: packets complete strictly one after another (a dispatch finishes,
// and its completion signal is decremented, before the next packet starts), so the barrier bit and the
// acquire/release fence scopes are always satisfied and otherwise ignored. After a packet completes the CP
// puts INVALID back into its header, advances read_dispatch_id in memory, and then decrements the
// completion signal (hardware advances the read index at launch, so it also passes a packet before its
// signal fires).
//
// Profiling: when the amd_queue_t around the read index (ROCr's layout, checked once at creation) has
// AMD_QUEUE_PROPERTIES_ENABLE_PROFILING set, the CP stamps the GPU clock counter at the start and the end of each
// packet (dispatch or barrier) into its completion signal's start_ts / end_ts before decrementing it, as the MEC
// firmware does. The bit is read per packet, so enabling it affects the packets fetched afterwards.
//
// Doorbell values are packet indices; the CP tracks the furthest one announced (several producers may ring
// out of order) and executes every packet up to it whose header is no longer INVALID, then keeps going while
// the next slot already holds a published packet (one producer's ring can overwrite a higher index another
// rang a moment before). A slot that is still INVALID means its producer has not published it yet: the CP
// sleeps until the next ring. Because a futex wakes only on a changed word, the doorbell must start at a
// value that announces nothing, initial read index - 1 (IdleDoorbellValue; the private doorbell starts there).
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_COMPUTE_ENGINE_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_COMPUTE_ENGINE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gpu_abi/aql_packets.h"
#include "gpu_abi/blit_kernels.h"
#include "testing/kfd_sim/engines/gfx9/gws.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gpu_clock.h"
#include "testing/kfd_sim/engines/gpu_memory.h"
#include "testing/kfd_sim/engines/queue_engine.h"

namespace hipmem::kfd_sim {
namespace gfx9 {
struct ScratchRing;  // dispatch.h
}  // namespace gfx9
namespace aql = ::hipmem::gpu_abi::aql;
namespace blit = ::hipmem::gpu_abi::blit;

struct AqlQueueDescriptor {
  uint64_t ring_va;               // ring base, GPU VA, 64-byte aligned
  uint32_t ring_bytes;            // a power of two and a multiple of 64 (ring_bytes / 64 packets)
  uint64_t read_dispatch_id_va;   // 64-bit read index the CP writes back (packets, monotonic), 8-byte aligned
  uint64_t write_dispatch_id_va;  // 64-bit write index the producers keep (informational)
  // The engine's view of the queue's doorbell word (doorbell.h); not owned. Null: the engine keeps a private
  // one that only RingDoorbell() rings (engine tests and benchmarks).
  uint64_t* doorbell = nullptr;
  uint64_t initial_read_index = 0;  // the first packet index the CP executes
  // The GPU's clock counter, which a profiling queue's packets are stamped with.
  GpuClock clock = GpuClock(GpuClock::kDefaultFrequencyHz);
  // The instruction set the compute units run, when they run real kernels (GFX9: gfx908, gfx90a, gfx942); without
  // one only the built-in blit kernels run and any other kernel object is a queue error.
  std::optional<gfx9::Target> isa = std::nullopt;
  // The process's flat apertures onto LDS and scratch (amdkfd's GFX9 layout).
  uint64_t shared_aperture_base = uint64_t{1} << 48;
  uint64_t private_aperture_base = uint64_t{2} << 48;
  // The process's scratch backing (SET_SCRATCH_BACKING_VA's SH_HIDDEN_PRIVATE_BASE, as a VA) when the queue was
  // mapped, as the scheduler hands it to the CP with the process; 0 when never set.
  uint64_t scratch_backing_base = 0;
  // The GPU's XCCs (accelerator complexes: 8 on MI300X). Each has its own CP programming COMPUTE_TMPRING_SIZE, so
  // the amd_queue_t's WAVES is per XCC (ROCr divides the queue's scratch among them): the ring holds WAVES times
  // this many waves at once.
  uint32_t xcc_count = 1;
};

// Why a queue stopped without a VM fault. ROCr reports these through the queue's error callback
// (HSA_STATUS_ERROR_INVALID_PACKET_FORMAT and friends).
enum class QueueError {
  kInvalidQueue,         // the descriptor itself is unusable (ring size or alignment)
  kUnsupportedPacket,    // VENDOR_SPECIFIC, AGENT_DISPATCH or an undefined packet type
  kInvalidDispatch,      // a kernel dispatch with a zero or multi-dimensional geometry
  kInvalidKernelObject,  // the descriptor's magic, version, kernel id or kernarg size is not a built-in kernel
  kInvalidKernarg,       // the kernel's arguments break its contract (a misaligned dword fill)
  kInvalidSignal,        // a signal or mailbox address that is not 8-byte aligned
  kIllegalInstruction,   // a kernel's wave met an instruction the compute units cannot run (or a malformed one)
  kTrap,                 // a kernel's wave executed s_trap (llvm.trap, abort, a failed assert): the trap handler halted it
  kOutOfScratch,         // the runtime could not grow the queue's scratch for a dispatch (it has reported that)
};

const char* QueueErrorName(QueueError error);

// Thread-safe. Owns its CP thread (QueueEngine) and its compute-unit worker threads.
class ComputeEngine final : public QueueEngine {
 public:
  struct Callbacks {
    // A completion signal with an event mailbox fired: the CP wrote event_id there and raised the interrupt.
    std::function<void(uint32_t event_id)> on_signal_interrupt;
    std::function<void(uint64_t va)> on_vm_fault;          // the queue halted on an unmapped address
    std::function<void(QueueError error)> on_queue_error;  // the queue halted on a packet it cannot run
  };

  // Starts the CP thread and min(cu_count, hardware threads) compute-unit workers (at least one). `memory` is
  // not owned and must outlive the engine. Callbacks run on the CP thread, never inside a
  // GpuMemory::AccessScope.
  ComputeEngine(std::string name, GpuMemory* memory, AqlQueueDescriptor queue, uint32_t cu_count, Callbacks callbacks);
  // Stops the CP (an unfinished barrier is abandoned, a running dispatch ends after its current workgroups)
  // and joins every thread.
  ~ComputeEngine() override;

  // The doorbell value that announces no packet for a queue starting at `initial_read_index`.
  static constexpr uint64_t IdleDoorbellValue(uint64_t initial_read_index) { return initial_read_index - 1; }

  // RingDoorbell takes the index of the last packet published. WaitIdle waits for every packet up to the furthest
  // index rung so far to complete (completion signal included); it returns false when the queue halted (VM fault
  // or queue error).

  void SetGws(std::shared_ptr<gfx9::GwsBlock> gws) override { gws_.Set(std::move(gws)); }

  // The index of the next packet the CP will execute (every earlier one has completed).
  uint64_t read_index() const { return progress(); }
  // How many compute-unit worker threads run workgroups.
  int worker_count() const;
  // Bytes copied or filled by completed dispatches.
  uint64_t bytes_moved() const { return bytes_moved_.load(std::memory_order_relaxed); }
  // Wave instructions executed by completed or failed real-kernel dispatches.
  uint64_t instructions_executed() const { return instructions_.load(std::memory_order_relaxed); }

 private:
  class WorkerPool;

  gfx9::GwsSlot gws_;  // the queue's global wave sync, when ALLOC_QUEUE_GWS gave it one

  bool Validate() override;
  Outcome Process(uint64_t doorbell) override;
  void ReportError() override;
  bool CaughtUp(uint64_t read_index, uint64_t doorbell) const override;

  Outcome Step(uint64_t index);
  // Runs a dispatch: a built-in blit kernel, or a real kernel on the GFX9 compute units. `packet_va` (the
  // dispatch ptr) and `index` (the dispatch id) are what the ABI hands the kernel's waves.
  Outcome Dispatch(const aql::KernelDispatchPacket& packet, uint64_t packet_va, uint64_t index);
  Outcome DispatchBlit(const aql::KernelDispatchPacket& packet, const blit::KernelDescriptor& descriptor);
  Outcome DispatchIsa(const aql::KernelDispatchPacket& packet, uint64_t packet_va, uint64_t index,
                      const unsigned char (&descriptor)[64]);
  Outcome Barrier(const aql::BarrierPacket& packet);
  Outcome Complete(uint64_t index, uint32_t header_and_setup, uint64_t completion_signal);
  Outcome Signal(uint64_t handle);
  // The amd_queue_t around `queue`'s read index when it has ROCr's layout (see RaiseQueueInactive). Probed once,
  // when the engine is made: the runtime fills the amd_queue_t in before it creates the KFD queue (as ROCr
  // does), and the words around a read index of another layout may belong to someone else afterwards.
  static std::optional<uint64_t> ProbeAmdQueue(GpuMemory* memory, const AqlQueueDescriptor& queue);
  // Whether the amd_queue_t asks for packet timestamps right now.
  bool ProfilingEnabled() const;
  // Stamps `start` and `end` into completion signal `handle` (non-zero, 8-byte aligned).
  Outcome Stamp(uint64_t handle, uint64_t start, uint64_t end);
  // The MEC firmware's report of a queue error to the runtime: stores the error's code into the amd_queue_t's
  // queue_inactive_signal and interrupts on its event. Does nothing for a queue without an amd_queue_t around
  // its read index (see compute_engine.cc).
  void RaiseQueueInactive(QueueError error);
  // Stores `code` into queue_inactive_signal and interrupts on its event; returns the signal's handle, or nullopt
  // when the queue has none (no amd_queue_t, or a signal the CP cannot reach).
  std::optional<uint64_t> StoreQueueInactive(int64_t code);
  // Reads the amd_queue_t's scratch fields into `ring` (ROCr's AqlQueue::InitScratchSRD fills them). Returns the
  // faulting VA if they are not mapped.
  std::optional<uint64_t> ReadScratchRing(gfx9::ScratchRing* ring) const;
  // ROCr's dynamic scratch, the CP's half: stops with "insufficient scratch" (code 1) in queue_inactive_signal and
  // waits for the runtime's handler to grow the queue's scratch and store 0 (kDone: retry the dispatch). Any other
  // value is the handler giving up, having reported it: the queue halts (kOutOfScratch).
  Outcome AwaitScratch(const std::string& detail);
  // Whether the dispatch at `index`, whose private segment is `private_bytes` per work-item, must ask for scratch
  // although the ring may hold it: the ring is ROCr's single-use ("large") scratch, sized for another dispatch
  // (amd_queue_t.queue_properties' USE_SCRATCH_ONCE; ROCr takes it back after that dispatch).
  bool ScratchIsSpent(uint64_t index, uint32_t private_bytes) const;
  // Records why the queue halts; returns kHalt.
  Outcome Error(QueueError error, const std::string& detail);

  GpuMemory* const memory_;  // Not owned; must outlive this.
  const AqlQueueDescriptor queue_;
  const Callbacks callbacks_;
  const uint64_t slots_;  // packets in the ring (0 when the descriptor is unusable)
  const std::optional<uint64_t> amd_queue_base_;  // ProbeAmdQueue's answer

  // CP thread only.
  uint64_t read_ = 0;  // the next packet index to execute
  // The last packet completed, so the next slot is worth a look even past the announced end: a producer's ring can
  // overwrite a higher index another producer rang just before (the word holds one value).
  bool more_ = false;
  std::optional<QueueError> error_;  // why the queue halted, when not on a VM fault
  std::optional<uint64_t> scratch_grown_for_;  // the dispatch index the runtime last grew the scratch for
  std::string error_detail_;

  // One past the furthest index the CP has seen rung: written by the CP thread, read by WaitIdle.
  std::atomic<uint64_t> announced_end_;
  std::atomic<uint64_t> bytes_moved_{0};
  std::atomic<uint64_t> instructions_{0};
  const uint32_t cu_count_;            // the compute units the device has (each worker plays a share of them)
  std::unique_ptr<WorkerPool> units_;  // the compute units; outlive the CP thread (Stop in the destructor)
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_COMPUTE_ENGINE_H_
