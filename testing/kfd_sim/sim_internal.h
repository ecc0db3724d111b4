// The simulated kernel's process state and the vocabulary its ioctl handlers share.
//
// Internal to the simulator: sim_file.cc dispatches each ioctl to a handler declared here, and the handlers live
// by subject as amdkfd's do -- memory and apertures (sim_memory_ioctls.cc), events (sim_event_ioctls.cc), queues
// (sim_queue_ioctls.cc), device and queue controls (sim_device_ioctls.cc), dma-buf sharing (sim_dmabuf_ioctls.cc) and
// the DKMS IPC handles (sim_ipc_ioctls.cc). Each handler returns 0 or -errno and may update its `args` (copied back
// for IOC_OUT
// requests); it runs with the world lock held shared and the process's lock held, unless noted.
#ifndef HIPMEM_TESTING_KFD_SIM_SIM_INTERNAL_H_
#define HIPMEM_TESTING_KFD_SIM_SIM_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "base/address_range_map.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/bo_pages.h"
#include "testing/kfd_sim/dmabuf_table.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/copy_workers.h"
#include "testing/kfd_sim/engines/doorbell_poller.h"
#include "testing/kfd_sim/engines/gfx9/gws.h"
#include "testing/kfd_sim/engines/pm4_engine.h"
#include "testing/kfd_sim/engines/queue_engine.h"
#include "testing/kfd_sim/engines/sdma_engine.h"
#include "testing/kfd_sim/events.h"
#include "testing/kfd_sim/gpu_page_table.h"
#include "testing/kfd_sim/ipc_table.h"
#include "testing/kfd_sim/shared_resources.h"
#include "testing/kfd_sim/sim_log.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/kfd_sim/svm_space.h"

namespace hipmem::kfd_sim::sim_internal {

namespace uapi = ::hipmem::kfd_uapi;

// The memory domain of a buffer: exactly one of the KFD_IOC_ALLOC_MEM_FLAGS domain bits.
enum class Domain { kVram, kGtt, kUserptr, kDoorbell, kMmioRemap };

// One buffer object (the kernel's kgd_mem behind an idr handle).
struct Bo {
  uint64_t handle = 0;
  size_t gpu_index = 0;              // the GPU it was allocated on
  std::optional<AddressRange> va;    // nullopt: a VRAM handle allocated without a VA (va_addr 0)
  Bytes size;
  uapi::AllocMemFlags flags = uapi::AllocMemFlags::kNone;
  Domain domain = Domain::kVram;
  Bytes accounted;                   // what SharedResources holds for it
  uint64_t mmap_offset = 0;          // start of its range in the render nodes' mmap-offset space
  uint64_t userptr = 0;              // USERPTR: the CPU address it stands for
  std::shared_ptr<BoPages> pages;    // VRAM, GTT and DOORBELL (the device's doorbell slice): the pages
  absl::btree_set<size_t> mapped_on; // GPUs (topology index) whose page table maps it
  // Set once the buffer is exported, and on an imported buffer: the shared object, which then holds the
  // accounting (an importer's `accounted` is 0: the pages are counted once, against the exporter).
  std::shared_ptr<const DmaBufObject> dmabuf = nullptr;
  // Set once the buffer is IPC-exported, and on an IPC import (mem->ipc_obj): its share handle's object, which
  // this BO keeps alive, and which a later export of this BO names again.
  std::shared_ptr<const IpcObject> ipc = nullptr;
};

// One user-mode queue (the kernel's struct queue + its MQD), and the engine that runs it.
struct Queue {
  uint32_t id = 0;
  size_t gpu_index = 0;
  uapi::QueueType type = uapi::QueueType::kSdma;
  uint64_t ring_base = 0;
  uint32_t ring_size = 0;
  uint64_t read_pointer = 0;   // GPU VA of the 64-bit read pointer the engine writes back
  uint64_t write_pointer = 0;  // GPU VA of the producer's 64-bit write pointer
  uint32_t percentage = 0;
  uint32_t priority = 0;
  std::optional<bool> sdma_pool_xgmi;  // SDMA queues: which slot pool it holds a slot of
  // The engine that runs it (SdmaEngine, ComputeEngine or Pm4Engine): made when the queue first becomes active,
  // suspended while UPDATE_QUEUE leaves it inactive.
  std::unique_ptr<QueueEngine> engine;
  // The ring the engine runs: UPDATE_QUEUE keeps the engine while the ring stays, and replaces it otherwise.
  uint64_t engine_ring_base = 0;
  uint32_t engine_ring_size = 0;
  // SET_CU_MASK's last mask (num_cu_mask / 32 words, capped at 1024 bits); empty: every CU. Recorded only:
  // the simulated CP does not model CUs.
  std::vector<uint32_t> cu_mask;
  // ALLOC_QUEUE_GWS gave this queue the GPU's global wave sync (one queue per GPU and process): the GWS state its
  // shaders' ds_gws_* operate on, shared with its engine (made anew on each allocation). Null: none.
  std::shared_ptr<gfx9::GwsBlock> gws;
  // Where the next engine starts (progress() units) while the queue has none.
  uint64_t parked_progress = 0;

  bool running() const { return engine != nullptr && !engine->suspended(); }
  bool halted() const { return engine != nullptr && engine->halted(); }
  // SDMA: bytes consumed; AQL: the next packet index; PM4: dwords consumed.
  uint64_t progress() const { return engine != nullptr ? engine->progress() : parked_progress; }
};

// One process's view of one GPU (the kernel's kfd_process_device).
struct ProcessDevice {
  std::optional<int> vm_token;    // the render token ACQUIRE_VM bound (the pdd's drm_file)
  // What this GPU can reach in this process. Behind a pointer: engines hold it across moves of the vector.
  std::unique_ptr<GpuPageTable> page_table = std::make_unique<GpuPageTable>();
  AddressRangeMap<uint64_t> allocated_vas;  // VAs of the buffers allocated on this GPU, to their handles
  // The process's doorbell slice on this GPU (kfd_get_process_doorbells), made on first use; shared by
  // the DOORBELL buffer, the /dev/kfd mmap and the engines.
  std::shared_ptr<BoPages> doorbells;
  // The client's CPU mappings of that slice (MmapKfd), watched for bare stores (doorbell_poller.h). After
  // `doorbells`, so they are unregistered before the engines' view of the slice can go.
  std::vector<DoorbellClientMapping> doorbell_mappings;
  // The HDP-flush register page an MMIO_REMAP buffer and the /dev/kfd mmap reach (see MmioPageOf).
  std::shared_ptr<BoPages> mmio_page;
  // SET_MEMORY_POLICY's last policies (qpd sh_mem_config; only pre-gfx9 ASICs act on them) and SET_TRAP_HANDLER's
  // addresses (qpd tba_addr / tma_addr). Recorded, not acted on: no simulated shader traps.
  uapi::CachePolicy default_policy = uapi::CachePolicy::kNoncoherent;
  uapi::CachePolicy alternate_policy = uapi::CachePolicy::kNoncoherent;
  uint64_t trap_handler_base = 0;
  uint64_t trap_memory_base = 0;
  // SET_SCRATCH_BACKING_VA's last value (qpd sh_hidden_private_base: the scratch backing address >> 16). Under the
  // hardware scheduler it travels with the process to the CP when a queue is mapped (StartEngine), which adds an AQL
  // queue's scratch_backing_memory_location to it.
  uint64_t sh_hidden_private_base = 0;
  // The file this GPU's VRAM buffers of this process take their pages from, made on first use (VramFileOf).
  std::shared_ptr<PageFile> vram_file;
  // The host threads this GPU's SDMA engines spread large copies over (started by the first one). Behind a pointer:
  // engines hold it across moves of the vector; they are gone before it (ProcessState's queues go first).
  std::unique_ptr<CopyWorkers> copy_workers = std::make_unique<CopyWorkers>();
};

// The process's runtime-enable state (kfd_process.runtime_info.runtime_state), which RUNTIME_ENABLE moves. The
// debugger's BUSY/ERROR states never arise: the simulator has no debug trap.
enum class RuntimeState { kDisabled, kEnabled };

// Everything one KFD process owns.
struct ProcessState {
  explicit ProcessState(size_t gpu_count) : devices(gpu_count) {}
  // The SVM ranges' VRAM comes back with the process, whoever holds them last.
  ~ProcessState() {
    if (svm != nullptr) svm->Close();
  }
  ProcessState(const ProcessState&) = delete;
  ProcessState& operator=(const ProcessState&) = delete;

  std::vector<size_t> render_nodes;            // token - kFirstRenderToken -> GPU index
  std::vector<ProcessDevice> devices;          // by GPU index
  absl::btree_map<uint64_t, Bo> bos;           // by handle
  absl::btree_map<uint64_t, uint64_t> mmap_offsets;  // start offset -> handle
  uint32_t next_idr = 1;                       // never reused; 0 once the space has wrapped
  absl::btree_map<uint32_t, Queue> queues;     // by queue id
  // SET_XNACK_MODE's state. A new process starts with XNACK off: kfd_process_xnack_mode(p, false) is false on every
  // simulated GPU, whose boot-time noretry setting is on (amdgpu_gmc_noretry_set's default for them).
  bool xnack_enabled = false;
  RuntimeState runtime_state = RuntimeState::kDisabled;
  uint64_t runtime_r_debug = 0;  // RUNTIME_ENABLE's r_debug pointer while enabled
  bool runtime_ttmp_setup = false;
  // The file GTT buffers take their pages from, made on first use.
  std::shared_ptr<PageFile> system_file;
  // The SVM ranges (AMDKFD_IOC_SVM), made on first use and attached to every page table then. Last: gone first,
  // bringing VRAM-resident ranges back while the page tables still exist.
  std::shared_ptr<SvmSpace> svm;
};

using BoMap = absl::btree_map<uint64_t, Bo>;
using QueueMap = absl::btree_map<uint32_t, Queue>;

inline constexpr Bytes kPageSize = Bytes::KiB(4);

// Render tokens start here so that a zeroed or stdio fd is never mistaken for one.
inline constexpr int kFirstRenderToken = 1000;

// Doorbells (kfd_doorbell.c, SOC15): 8-byte doorbells, KFD_MAX_NUM_OF_QUEUES_PER_PROCESS of them per
// process per device, so the slice a process maps is 8 KiB. A queue's doorbell is slot `queue id`.
inline constexpr uint32_t kDoorbellBytes = 8;
inline constexpr uint32_t kMaxQueuesPerProcess = 1024;
inline constexpr Bytes kDoorbellSlice = Bytes(kDoorbellBytes * kMaxQueuesPerProcess);
// The kernel-internal ENOTSUPP (include/linux/errno.h): CREATE_QUEUE's answer to an unknown queue type.
inline constexpr int kEnotsupp = 524;

// What a handler may touch. Built by SimFile with world_mu_ held shared and SimFile::mu_ held.
struct IoctlContext {
  const Topology& topology;
  SharedResources& shared;
  ProcessState& process;
  EventTable& events;  // thread-safe on its own; WAIT_EVENTS reaches it without the locks above
  SimFile& file;       // for the engines' interrupt hooks (SignalEventInterrupt, RaiseMemoryException)
  SimLog& log;         // the kernel log; thread-safe, below every lock held here
  uint64_t process_id;  // SimProcess::id, how log lines name the process
};

// ---- helpers the handlers and SimFile share (sim_memory_ioctls.cc, sim_queue_ioctls.cc) ----

// The topology index of the GPU with `gpu_id`.
std::optional<size_t> FindGpu(const Topology& topology, uint32_t gpu_id);
// Returns the process's doorbell slice on `gpu`, making it on first use; never null.
std::shared_ptr<BoPages> DoorbellsOf(const Topology& topology, ProcessDevice& device, size_t gpu);
// Returns the page `gpu`'s MMIO_REMAP buffers and KFD_MMAP_TYPE_MMIO mappings reach in this process, making it on
// first use; never null.
std::shared_ptr<BoPages> MmioPageOf(const Topology& topology, ProcessDevice& device, size_t gpu);
// Returns the page file of the process's VRAM buffers on `gpu` (kind kVram) or of its GTT buffers, making it
// on first use.
std::shared_ptr<PageFile> PageFileOf(const Topology& topology, ProcessState& process, Domain domain, size_t gpu);
// The GPU a render-node token of this process belongs to.
std::optional<size_t> RenderTokenGpu(const ProcessState& process, int64_t token);
// Frees one buffer: unmaps it everywhere, returns its accounting, closes its backing store.
void ReleaseBo(IoctlContext& c, BoMap::iterator it);
// Makes [addr, addr + span) the PROT_NONE CPU placeholder of an invisible VRAM buffer; 0 or -errno.
int MapInvisibleVramPlaceholder(void* addr, Bytes span);
// Stops a queue's engine, returns its SDMA slot and forgets it.
void ReleaseQueue(IoctlContext& c, QueueMap::iterator it);

// ---- handlers (amdkfd_ioctls[]) ----

int GetVersion(IoctlContext& c, uapi::GetVersionArgs& args);
// sim_clock_ioctls.cc
int GetClockCounters(IoctlContext& c, uapi::GetClockCountersArgs& args);
int GetProcessAperturesNew(IoctlContext& c, uapi::GetProcessAperturesNewArgs& args);
int AcquireVm(IoctlContext& c, uapi::AcquireVmArgs& args);
int AllocMemoryOfGpu(IoctlContext& c, uapi::AllocMemoryOfGpuArgs& args);
int FreeMemoryOfGpu(IoctlContext& c, uapi::FreeMemoryOfGpuArgs& args);
int MapMemoryToGpu(IoctlContext& c, uapi::MapMemoryToGpuArgs& args);
int UnmapMemoryFromGpu(IoctlContext& c, uapi::UnmapMemoryFromGpuArgs& args);
int AvailableMemory(IoctlContext& c, uapi::GetAvailableMemoryArgs& args);

// sim_dmabuf_ioctls.cc
int GetDmabufInfo(IoctlContext& c, uapi::GetDmabufInfoArgs& args);
int ImportDmabuf(IoctlContext& c, uapi::ImportDmabufArgs& args);
int ExportDmabuf(IoctlContext& c, uapi::ExportDmabufArgs& args);
// Checks a new buffer's GPU VA as ALLOC_MEMORY_OF_GPU does: 0 with the range (nullopt for va_addr 0 when
// `may_omit`), or -EINVAL (misaligned, outside GPUVM) / -EADDRINUSE (overlaps a buffer of this process there).
struct VaCheck {
  int error = 0;
  std::optional<AddressRange> va;
};
VaCheck CheckNewBufferVa(const ProcessDevice& device, uint64_t va_addr, Bytes size, bool may_omit);
// Makes `bo` shareable as amdgpu_gem_prime_export does, on its first export: its dma-buf object, which takes over
// its accounting. 0, or -EPERM (user pages) / -EINVAL (a doorbell slice).
int EnsureDmaBufObject(IoctlContext& c, Bo& bo);
// Adds a BO of this process on GPU `gpu` for the shared buffer `object` (an import: the pages and their
// accounting stay the object's) at `va` (nullopt: none), holding `ipc` when it is an IPC import. Returns the
// handle and the render node mmap offset, or -EFAULT (no handle left) / -ENOMEM (no mmap offset left).
struct ImportedBo {
  int error = 0;
  uint64_t handle = 0;
  uint64_t mmap_offset = 0;
};
ImportedBo AddImportedBo(IoctlContext& c, size_t gpu, const std::optional<AddressRange>& va,
                         std::shared_ptr<const DmaBufObject> object, std::shared_ptr<const IpcObject> ipc);

// sim_ipc_ioctls.cc: the amdgpu-DKMS extension (not in mainline).
int IpcImportHandle(IoctlContext& c, uapi::IpcImportHandleArgs& args);
int IpcExportHandle(IoctlContext& c, uapi::IpcExportHandleArgs& args);

int CreateEvent(IoctlContext& c, uapi::CreateEventArgs& args);
int DestroyEvent(IoctlContext& c, uapi::DestroyEventArgs& args);
int SetEvent(IoctlContext& c, uapi::SetEventArgs& args);
int ResetEvent(IoctlContext& c, uapi::ResetEventArgs& args);
// Runs without the world and process locks: it may sleep until another thread sets an event.
int WaitEvents(EventTable& events, uapi::WaitEventsArgs& args);

int CreateQueue(IoctlContext& c, uapi::CreateQueueArgs& args);
int DestroyQueue(IoctlContext& c, uapi::DestroyQueueArgs& args);
int UpdateQueue(IoctlContext& c, uapi::UpdateQueueArgs& args);

// sim_device_ioctls.cc: the device and queue controls.
int SetMemoryPolicy(IoctlContext& c, uapi::SetMemoryPolicyArgs& args);
int SetScratchBackingVa(IoctlContext& c, uapi::SetScratchBackingVaArgs& args);
int GetTileConfig(IoctlContext& c, uapi::GetTileConfigArgs& args);
int SetTrapHandler(IoctlContext& c, uapi::SetTrapHandlerArgs& args);
int SetCuMask(IoctlContext& c, uapi::SetCuMaskArgs& args);
int AllocQueueGws(IoctlContext& c, uapi::AllocQueueGwsArgs& args);
int SetXnackMode(IoctlContext& c, uapi::SetXnackModeArgs& args);
int RuntimeEnable(IoctlContext& c, uapi::RuntimeEnableArgs& args);

// sim_svm_ioctls.cc: AMDKFD_IOC_SVM, whose attributes follow its header (`size`: the bytes copied in, >= 24).
int Svm(IoctlContext& c, std::byte* kdata, uint32_t size);
// Returns the process's SVM ranges, making them on first use.
SvmSpace& SvmOf(IoctlContext& c);

}  // namespace hipmem::kfd_sim::sim_internal

#endif  // HIPMEM_TESTING_KFD_SIM_SIM_INTERNAL_H_
