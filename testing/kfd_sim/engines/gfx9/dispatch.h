// One real kernel dispatch on the simulated compute units: the AQL packet and the kernel descriptor turned into
// workgroups of waves whose initial state is what the AMDGPU ABI (AMDGPUUsage, "Initial Kernel Execution State")
// defines, run to completion.
//
// Plays the SPI (shader processor input), which launches a dispatch's workgroups and loads each wave's user and
// system SGPRs and work-item id VGPRs, and the compute units that run them. Per wave, from the kernel
// descriptor's enables, in the ABI's order:
//   user SGPRs: private segment buffer (a V# over the wave's scratch), dispatch ptr (the AQL packet's VA), queue
//     ptr (the amd_queue_t/hsa_queue_t), kernarg segment ptr, dispatch id, flat scratch init, private segment
//     size, then gfx942's preloaded kernarg dwords;
//   system SGPRs from USER_SGPR_COUNT on: workgroup id X, Y, Z, workgroup info, private segment wave offset;
//   VGPRs: work-item ids X, Y, Z in v0-v2 (gfx908) or packed into v0 as X | Y << 10 | Z << 20 (gfx90a, gfx942).
// LDS is per workgroup (the packet's group_segment_size, at least the descriptor's static size; at most 64 KiB).
// Scratch: each wave's private memory is a slot of the queue's scratch backing memory (DispatchRequest::scratch),
// in GPU virtual memory through the page table, as the CP hands it out: the private segment buffer is the queue's
// scratch V# (amd_queue_t.scratch_resource_descriptor), flat scratch init the backing's base, the private segment
// wave offset the wave's slot (slot * TMPRING_SIZE.WAVESIZE KiB), and on gfx942 FLAT_SCRATCH their sum; the private
// aperture names the same bytes. Lanes' dwords are swizzled (vector_memory.h, ScratchLaneVa), so the runtime sees
// what a wave left in its scratch in the hardware's layout. Slots are the ring's TMPRING_SIZE.WAVES: a workgroup
// waits for free slots before it starts, as the SPI does (a unit holding resident workgroups runs them instead). A
// dispatch needing more scratch than the ring has is refused with kResourceExhausted, which the AQL CP turns into ROCr's dynamic scratch request (compute_engine.h).
// Scheduling, as the hardware keeps workgroups resident: each host thread running a dispatch plays one or more
// compute units (RunUnits) and holds up to their occupancy of the dispatch's workgroups resident at once (per CU:
// 8 waves per SIMD on 4 SIMDs, fewer when the kernel's VGPRs or its LDS do not fit that many; see
// ResidentWorkgroupsPerCu). It round-robins the resident workgroups in slices: every live wave of a workgroup runs
// until s_barrier, s_sleep, a GWS wait (gws.h), s_endpgm or a few thousand instructions, then the next resident
// workgroup has its turn.
// So workgroups that wait on each other through memory (a grid barrier, a lock) all make progress as long as the
// grid fits the resident capacity, which is what hipLaunchCooperativeKernel admits.
// Admission is lazy, which only changes timing: a unit starts with one resident workgroup and takes the next one
// from the dispatch when a slot is free; it fills more slots (doubling up to the limit) only when its resident
// workgroups stall, i.e. a wave slept, or several rounds passed with none of them ending. A dispatch whose
// workgroups each finish within a slice (the common case) thus keeps one workgroup's state hot per thread.
// A failure (VM fault, trap, illegal instruction) halts the whole dispatch: every unit drops its resident workgroups at
// their next turn and takes no more, as a halted queue stops its waves.
#ifndef HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_DISPATCH_H_
#define HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_DISPATCH_H_

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "gpu_abi/aql_packets.h"
#include "gpu_abi/kernel_descriptor.h"
#include "testing/kfd_sim/engines/gfx9/gws.h"
#include "testing/kfd_sim/engines/gfx9/isa.h"
#include "testing/kfd_sim/engines/gfx9/wave.h"
#include "testing/kfd_sim/engines/gpu_memory.h"

namespace hipmem::kfd_sim::gfx9 {

// A queue's scratch backing: wave slot s's private memory is base + s * wave_bytes.
struct ScratchRing {
  uint64_t base = 0;        // VA of slot 0: what flat scratch init holds
  uint64_t bytes = 0;       // the backing's size
  uint32_t wave_bytes = 0;  // COMPUTE_TMPRING_SIZE.WAVESIZE, in bytes (1 KiB units)
  uint32_t waves = 0;       // COMPUTE_TMPRING_SIZE.WAVES: how many waves may hold a slot at once
  std::array<uint32_t, 4> resource{};  // the private segment buffer V# (amd_queue_t.scratch_resource_descriptor)

  // COMPUTE_TMPRING_SIZE's fields: WAVES in bits 11:0, WAVESIZE (KiB) in bits 24:12.
  static uint32_t Waves(uint32_t tmpring) { return tmpring & 0xfffu; }
  static uint32_t WaveBytes(uint32_t tmpring) { return ((tmpring >> 12) & 0x1fffu) * 1024; }
};

struct DispatchRequest {
  Target target = Target::kGfx90a;
  gpu_abi::aql::KernelDispatchPacket packet{};
  uint64_t packet_va = 0;  // where the packet sits in the ring: the dispatch ptr
  uint64_t queue_va = 0;   // the hsa_queue_t the packet came from (0: none): the queue ptr
  uint64_t dispatch_id = 0;
  uint64_t shared_aperture_base = uint64_t{1} << 48;   // amdkfd's gfx9 LDS aperture
  uint64_t private_aperture_base = uint64_t{2} << 48;  // amdkfd's gfx9 scratch aperture
  // The queue's scratch as the CP sees it: for AQL the amd_queue_t's scratch fields (base = SH_HIDDEN_PRIVATE_BASE
  // + scratch_backing_memory_location), for PM4 SH_HIDDEN_PRIVATE_BASE and COMPUTE_TMPRING_SIZE.
  ScratchRing scratch;
  // Set by CreateFromRegisters: the user SGPRs are these dwords as the queue's producer wrote them (the first
  // USER_SGPR_COUNT of them), not the layout a descriptor's kernel_code_properties asks the CP to build.
  std::optional<std::array<uint32_t, 16>> user_sgprs;
  // The queue's global wave sync (ALLOC_QUEUE_GWS), shared with the queue's other dispatches; null: none, and
  // ds_gws_* are illegal instructions.
  std::shared_ptr<GwsBlock> gws;
};

// The COMPUTE_* register state a PM4 DISPATCH_DIRECT launches a shader with: no kernel descriptor and no AQL
// packet, so everything a descriptor would say comes from the registers the producer set with SET_SH_REG.
struct ShaderRegisters {
  uint64_t entry = 0;  // COMPUTE_PGM_LO/HI, shifted back to a byte address (256-byte aligned by construction)
  uint32_t rsrc1 = 0;  // COMPUTE_PGM_RSRC1: VGPR granules, float modes (the descriptor's compute_pgm_rsrc1 layout)
  uint32_t rsrc2 = 0;  // COMPUTE_PGM_RSRC2: USER_SGPR count, system SGPR and work-item id enables, LDS_SIZE
  uint32_t rsrc3 = 0;  // COMPUTE_PGM_RSRC3 (gfx90a, gfx942): ACCUM_OFFSET
  std::array<uint32_t, 16> user_data{};               // COMPUTE_USER_DATA_0..15
  std::array<uint32_t, 3> workgroup_size = {1, 1, 1};  // COMPUTE_NUM_THREAD_X/Y/Z
  // DISPATCH_DIRECT's dim_x/y/z: workgroups, or work-items when `dims_are_threads` (the initiator's
  // USE_THREAD_DIMENSIONS), in which case a last workgroup may be partial.
  std::array<uint32_t, 3> dims = {1, 1, 1};
  bool dims_are_threads = false;
  uint32_t private_bytes_per_lane = 0;  // from COMPUTE_TMPRING_SIZE's WAVESIZE
};

// How a dispatch ended when it did not complete.
struct DispatchFailure {
  // A wave's s_trap that halted it (any trap id but llvm.debugtrap's 3): the queue goes into the error state as
  // the runtime's trap handler puts it, which is not an illegal instruction.
  struct Trap {
    uint32_t id = 0;  // the trap id: 2 for llvm.trap (abort, a failed assert)
    uint64_t pc = 0;  // where the s_trap is
  };
  std::optional<uint64_t> fault_va = std::nullopt;  // a VM fault at this address
  std::optional<Trap> trap = std::nullopt;          // otherwise, a trap
  std::string illegal = {};                         // otherwise: the illegal instruction or state, and where
};

// Thread-safe: RunWorkgroup may be called from several threads at once, each for a different workgroup.
class KernelDispatch {
 public:
  // Checks the dispatch against `descriptor` (the 64 bytes at packet.kernel_object, which the CP has read).
  // Returns kFailedPrecondition when the bytes are no GFX9 kernel descriptor (reserved bytes set, an entry that is
  // not 256-byte aligned or at offset 0, a wave32 kernel), kInvalidArgument for a geometry the hardware cannot
  // run: no work-items, a workgroup over 1024 work-items, more than 64 KiB of LDS; kResourceExhausted when the
  // kernel has a private segment the queue's scratch cannot hold (a wave's 64 lanes over WAVESIZE, fewer slots than
  // a workgroup's waves, or slots past the backing's end): the CP's "insufficient scratch".
  static absl::StatusOr<std::unique_ptr<KernelDispatch>> Create(GpuMemory* memory, const DispatchRequest& request,
                                                                const gpu_abi::amdhsa::KernelDescriptor& descriptor);
  // A dispatch the registers define (a PM4 queue's). `request` gives the target, apertures and scratch ring; its
  // packet, user_sgprs and dispatch pointers are ignored. Returns kInvalidArgument for a geometry the hardware cannot
  // run (as Create), more work-items than a 32-bit grid holds, USER_SGPR_COUNT over 16, or scratch the ring cannot
  // hold (a PM4 queue has no dynamic scratch).
  static absl::StatusOr<std::unique_ptr<KernelDispatch>> CreateFromRegisters(GpuMemory* memory,
                                                                             const DispatchRequest& request,
                                                                             const ShaderRegisters& registers);

  uint64_t workgroup_count() const { return workgroups_[0] * workgroups_[1] * workgroups_[2]; }

  // How many of this dispatch's workgroups one compute unit holds resident at once: the waves a CU holds (8 per
  // SIMD on 4 SIMDs, fewer when the kernel's VGPRs, rounded to the allocation granule, do not fit 8 in a SIMD's
  // file) divided by the workgroup's waves, and no more than the CU's 64 KiB of LDS fits; at least 1. SGPRs are not
  // counted, so this is never below what hipOccupancyMaxActiveBlocksPerMultiprocessor answers.
  uint32_t ResidentWorkgroupsPerCu() const;

  // Plays `compute_units` compute units on the calling thread: keeps up to that many units' resident workgroups,
  // taking workgroup indices (X fastest) from `next` until it answers nullopt, and round-robins them to completion
  // (see the file comment). Several threads may run units of one dispatch at once, sharing one `next`.
  // `interrupted` is polled between turns; an interrupted or failed dispatch's workgroups stop where they are.
  void RunUnits(uint32_t compute_units, const std::function<std::optional<uint64_t>()>& next,
                const std::function<bool()>& interrupted);

  // Runs workgroup `index` alone to completion or to its first fault (RunUnits with just that workgroup).
  void RunWorkgroup(uint64_t index, const std::function<bool()>& interrupted);

  // The failure of the lowest-numbered failed workgroup, if any.
  std::optional<DispatchFailure> failure() const;
  uint64_t instructions() const { return instructions_.load(std::memory_order_relaxed); }

  KernelDispatch(const KernelDispatch&) = delete;
  KernelDispatch& operator=(const KernelDispatch&) = delete;
  ~KernelDispatch();

 private:
  struct Worker;
  struct Resident;
  enum class Turn : uint8_t { kLive, kEnded, kFailed };
  // Sets up workgroup `index` in `r`; false when it failed at once (its failure recorded).
  bool Start(uint64_t index, Worker& worker, Resident& r);
  // Runs each live wave of `r` one slice; `slept` is set when one executed s_sleep.
  Turn RunTurn(Worker& worker, Resident& r, uint64_t* executed, bool* slept);
  KernelDispatch(GpuMemory* memory, const DispatchRequest& request, const gpu_abi::amdhsa::KernelDescriptor& kd);
  // Checks the packet's geometry and `lds` bytes, then builds the dispatch that runs from `entry`.
  static absl::StatusOr<std::unique_ptr<KernelDispatch>> Build(GpuMemory* memory, const DispatchRequest& request,
                                                               const gpu_abi::amdhsa::KernelDescriptor& kd,
                                                               uint64_t entry, uint32_t lds);
  // Checks that the scratch ring holds the dispatch's waves (kResourceExhausted otherwise).
  absl::Status CheckScratch() const;
  // An idle worker, or a new one while scratch slots remain; otherwise waits for one to come back.
  std::unique_ptr<Worker> TakeWorker();
  void GiveBack(std::unique_ptr<Worker> worker);
  // A free group of group_waves_ scratch slots for one workgroup (its first slot; 0 for a dispatch without scratch).
  // With no group free: nullopt when `wait_unless` is null, else waits until one is, or until *wait_unless answers
  // true or the dispatch fails (nullopt).
  std::optional<uint64_t> TakeSlots(const std::function<bool()>* wait_unless);
  void GiveBackSlots(uint64_t first_slot);
  // Where wave `wave` of resident workgroup `r` has its scratch, from the ring's base.
  uint64_t ScratchOffset(const Resident& r, uint32_t wave) const;
  void InitWave(Wave& wave, uint32_t wave_index, const uint32_t group_id[3], const uint32_t group_size[3],
                uint32_t threads, uint64_t scratch_offset) const;
  void Fail(uint64_t workgroup, DispatchFailure failure);

  GpuMemory* const memory_;  // Not owned; must outlive this.
  const DispatchRequest request_;
  const gpu_abi::amdhsa::KernelDescriptor kd_;
  DispatchInfo info_;
  uint64_t code_entry_ = 0;
  uint32_t vgprs_ = 0;
  uint32_t agprs_ = 0;
  uint32_t lds_bytes_ = 0;
  uint64_t workgroups_[3] = {1, 1, 1};
  uint32_t initial_mode_ = 0;
  uint32_t group_waves_ = 1;  // waves of a whole workgroup: the scratch slots a resident workgroup holds
  uint64_t max_slot_groups_ = ~uint64_t{0};  // workgroups the ring's slots hold at once (unlimited without scratch)

  std::atomic<uint64_t> instructions_{0};
  mutable std::mutex mu_;
  std::condition_variable slots_back_;          // a slot group went back to free_slot_groups_
  std::vector<std::unique_ptr<Worker>> idle_ ABSL_GUARDED_BY(mu_);
  std::vector<uint64_t> free_slot_groups_ ABSL_GUARDED_BY(mu_);  // first slots of the groups given back
  // Groups handed out so far (group k from slot k * group_waves_).
  uint64_t slot_groups_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t failed_workgroup_ ABSL_GUARDED_BY(mu_) = ~uint64_t{0};
  DispatchFailure failure_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> failed_{false};            // set with failed_workgroup_: every unit stops
};

}  // namespace hipmem::kfd_sim::gfx9

#endif  // HIPMEM_TESTING_KFD_SIM_ENGINES_GFX9_DISPATCH_H_
