// The in-process KFD simulator: plays the Linux amdkfd driver (/dev/kfd), the amdgpu render nodes
// (/dev/dri/renderD*) and the GPUs behind them, so the thunk and every layer above it run hermetically.
//
// The thunk issues real KFD ioctls (same request numbers, same argument structs from kfd_uapi) to a SimFile
// instead of a kernel file descriptor. The simulator answers as kfd_chardev.c does: the same argument
// checks in the same order, the same errno, the same size tolerance, the same out-of-range quirks. It is
// a model of the driver, not a mock: bad input is refused, never crashes it, and never "succeeds".
//
// What it models today (KFD 1.17): GET_VERSION, GET_CLOCK_COUNTERS (each GPU's clock counter runs at its
// GpuConfig::gpu_clock_counter_hz; engines/gpu_clock.h), GET_PROCESS_APERTURES_NEW, ACQUIRE_VM,
// ALLOC/FREE_MEMORY_OF_GPU, MAP/UNMAP_MEMORY_TO/FROM_GPU, AVAILABLE_MEMORY, CREATE/DESTROY/UPDATE_QUEUE;
// the sysfs topology tree; CPU mappings of buffers through a render node and of doorbells through
// /dev/kfd; dma-buf export/import (EXPORT_DMABUF, GET_DMABUF_INFO, IMPORT_DMABUF) between its KFD processes; and,
// as the amdgpu-DKMS amdkfd does (mainline has no such ioctls), IPC share handles (IPC_EXPORT_HANDLE,
// IPC_IMPORT_HANDLE, nr 0x80/0x81): between the KFD processes of one simulator through its table, and between OS
// processes (each with its own simulator, e.g. after fork) through the exporter's IPC socket (ipc_socket.h), the
// importer mapping the exporter's pages. SVM (AMDKFD_IOC_SVM SET_ATTR/GET_ATTR over the process's own memory, with
// migration between system memory and VRAM and per-GPU mappings the engines translate through; svm_space.h says
// how, and where it departs from kfd_svm.c). Every other ioctl answers -ENOTTY.
// Queues: an AQL queue runs on a simulated compute CP; an SDMA queue (SDMA, SDMA_XGMI, SDMA_BY_ENG_ID) on its own engine
// (engines/sdma_engine.h) that reads the ring through this process's GPU page table, sleeps until its
// doorbell (engines/doorbell.h) rings, raises the queue's event on a TRAP packet and a memory-exception
// event on a VM fault. The doorbell slice is 8 KiB per process per GPU (1024 8-byte doorbells, SOC15);
// a queue's doorbell is slot `queue id`.
// Events (CREATE/DESTROY/SET/RESET_EVENT, WAIT_EVENTS; kfd_events.c, modelled in events.h): the signal
// page is the dGPU one, a GTT (or VRAM) buffer user space allocates and hands over by passing its handle
// in the first CREATE_EVENT's event_page_offset, as libhsakmt does; from then on FREE of that buffer
// answers -EPERM and close() releases it. Without a handed-over page the first signal event gets the
// kernel's own page (255 usable slots). TODO(#3): mmap of the EVENTS offset on /dev/kfd, which the APU
// path uses to reach that page (and which lifts it to 4095 slots). WAIT_EVENTS sleeps on a condition
// variable without holding the simulator's locks.
//
// Where it deliberately departs from the kernel (each is stated where it is implemented, in sim_file.cc):
// - ALLOC refuses a VA that overlaps another buffer of the same process on the same GPU with -EADDRINUSE.
//   The kernel refuses overlap with SVM ranges with -EADDRINUSE at alloc and overlapping BO mappings with
//   -EINVAL only at map time (amdgpu_vm_bo_map); refusing at alloc catches thunk VA bugs one step earlier.
//   Map time still refuses a conflict in the target GPU's page table with -EINVAL.
// - ALLOC demands exactly one domain bit (the kernel takes the first bit of an if-chain), page-aligned
//   va_addr and size, and [va, va+size) inside the process's GPUVM aperture.
// - An MMIO_REMAP buffer (the HDP-flush register page) is a zeroed page of the process's own; writing it flushes
//   nothing, since the simulated engines see host writes at once (sim_memory_ioctls.cc MmioPageOf).
// - An illegal SDMA packet (unknown opcode or sub-opcode, a count wider than the GPU's SDMA generation allows)
//   halts its queue with amdgpu's "Illegal instruction in SDMA command stream" line and sets the process's
//   HW_EXCEPTION events; on hardware the queue only stops (see sim_queue_ioctls.cc).
// - PM4 compute queues run on a PM4 packet processor (engines/pm4_engine.h) that runs no shader: a dispatch halts
//   the queue and is reported as a GPU hang (RaiseGpuHang). COMPUTE_AQL queues run on the compute CP
//   (engines/compute_engine.h) with the built-in blit kernels of gpu_abi/blit_kernels.h; it starts at the
//   read index user space left in read_dispatch_id.
// - CREATE_QUEUE checks the ring, both pointers and a compute queue's EOP buffer are GPU-mapped
//   (kfd_queue_acquire_buffers, Linux 6.12+) but not the CWSR area and sizes, which no simulated engine uses.
// - An idr is never reused within a process (the kernel reuses the lowest free one), so a stale handle
//   stays invalid (-EINVAL) instead of naming a newer buffer.
// - AVAILABLE_MEMORY is capacity minus use; the kernel also subtracts a page-table and RAS reserve and
//   rounds down to 2 MiB.
// - A VRAM buffer allocated without PUBLIC may be CPU-mapped only PROT_NONE; other protections -EPERM. That
//   mapping is a placeholder that never reaches the buffer's pages (the kernel's NO_CPU_ACCESS buffer SIGBUSes on
//   a touch): the range only loses its access, or gets anonymous PROT_NONE memory where it had a hole.
//
// - IPC between OS processes (each with its own simulator) goes over the exporter's unix socket (ipc_socket.h):
//   an import there is not charged to the importer's machine (the exporter's owns and counts the memory), and the
//   importer holds a descriptor of the exporter's whole page file, kept to the buffer's range only by this
//   simulator's bookkeeping. A share handle carries 96 random bits and the exporter's pid (the kernel: 128 bits).
//
// Seeing inside: Snapshot() is a consistent cut of every process, buffer, mapping, event, queue and the memory
// accounting (FormatSnapshot renders it, `hipmem info` prints it); Log() / Dmesg() are the kernel log
// (sim_log.h) with what amdkfd and amdgpu would print: the machine's GPUs at creation, each process opening and
// closing /dev/kfd (with what close released), queues created, updated and destroyed, GPU VM faults (process,
// GPU, address, queue), a queue halted on a bad packet, and failed ioctls (name and errno, ratelimited).
//
// Handles, gpu ids and offsets are the raw ABI integers on purpose: this is the kernel side of the ABI.
#ifndef HIPMEM_TESTING_KFD_SIM_SIMULATOR_H_
#define HIPMEM_TESTING_KFD_SIM_SIMULATOR_H_

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_log.h"

namespace hipmem::kfd_sim {

// One cache of a GPU node, written as nodes/N/caches/C/properties. processor_id_low is the node's
// simd_id_base (the first CU); sibling_map marks the first `cus_shared` CUs, as kfd_crat.c does for the
// first instance of each cache kind.
struct CacheConfig {
  uint32_t level;                // 1, 2, 3
  uint32_t size_kib;             // sysfs `size`, in KiB as the kernel reports it
  uint32_t cache_line_size;      // bytes
  uint32_t cache_lines_per_tag = 0;  // 0: not reported (the kernel's GPU cache tables leave it 0)
  uint32_t association = 0;          // ways; 0: not reported
  uint32_t latency = 0;              // ns; 0: not reported
  uint32_t type;                 // HsaCacheType bits: Data 1, Instruction 2, CPU 4, HSACU 8
  uint32_t cus_shared;           // CUs sharing one instance, in [1, 1024]
};

// HSA_IOLINKTYPE values of io_links/L/properties `type` that the simulated machines use.
enum class IoLinkType : uint32_t {
  kPcieExpress = 2,
  kXgmi = 11,
};

// One directed io link, written as nodes/<node_from>/io_links/L/properties (L counts the links of
// node_from in Topology::io_links order). Node 0 is the CPU; node i is Topology::gpus[i - 1]. The
// kernel lists both directions of every link, each on its own node.
struct IoLinkConfig {
  uint32_t node_from;
  uint32_t node_to;
  IoLinkType type;
  uint32_t weight;         // KFD's relative cost: 20 for a PCIe hop, 15 per XGMI hop (kfd_crat.c)
  uint32_t min_latency;    // ns; 0: not reported
  uint32_t max_latency;    // ns; 0: not reported
  uint32_t min_bandwidth;  // MB/s
  uint32_t max_bandwidth;  // MB/s
  uint32_t flags;          // CRAT_IOLINK_FLAGS_*: ENABLED 1, NON_COHERENT 2, NO_ATOMICS_32/64 4/8
};

// One GPU node of the topology. Field names follow the keys of the sysfs node `properties` file.
struct GpuConfig {
  uint32_t gpu_id;              // KFD gpu_id: non-zero, unique
  uint32_t drm_render_minor;    // 128, 129, ...: /dev/dri/renderD<minor>
  std::string name;             // "gfx942"
  std::string marketing_name;   // "AMD Instinct MI300X"
  uint32_t gfx_target_version;  // major*10000 + minor*100 + stepping, e.g. 90402
  uint64_t vram_bytes;          // size_in_bytes of the VRAM bank
  uint32_t simd_count;
  uint32_t max_waves_per_simd;
  uint32_t wave_front_size;
  uint32_t lds_size_in_kb;
  uint32_t cu_per_simd_array;
  uint32_t simd_per_cu;
  uint32_t array_count;
  uint32_t simd_arrays_per_engine;
  uint32_t vendor_id;
  uint32_t device_id;
  uint32_t location_id;  // PCI bus << 8 | device << 3 | function
  uint32_t domain;       // PCI domain
  uint32_t max_engine_clk_fcompute;  // MHz
  uint32_t num_sdma_engines;
  uint32_t num_sdma_xgmi_engines;
  uint32_t num_xcc;
  uint32_t capability;  // HSA_CAPABILITY bits
  uint64_t hive_id;  // XGMI hive; 0 outside a hive
  uint64_t unique_id;
  uint32_t mem_width;               // mem_banks/0 width: VRAM bus width in bits
  uint32_t mem_clk_max;             // mem_banks/0 mem_clk_max: MHz
  std::vector<CacheConfig> caches;  // nodes/N/caches/0.., in this order
  // Whether the CPU can reach all of VRAM through the PCI BAR (large/resizable BAR): the bank is
  // FRAME_BUFFER_PUBLIC. Without it the bank is FRAME_BUFFER_PRIVATE and ALLOC of PUBLIC VRAM answers
  // -EINVAL, as kfd_chardev.c refuses host-visible VRAM on a small-BAR dGPU.
  bool large_bar = true;
  // Global wave sync slots (sysfs num_gws); 0: the GPU has none and ALLOC_QUEUE_GWS answers -ENODEV.
  uint32_t num_gws = 64;
  // The PCI revision id (sysfs .../revision), which with device_id picks the amdgpu.ids product name.
  uint32_t pci_revision = 0;
  // amdgpu's family id (AMDGPU_FAMILY_*: 141 for gfx9 "AI", 145 for gfx11), the node's family_id.
  uint32_t family_id = 0;
  // The CP (MEC) and SDMA microcode versions, fw_version and sdma_fw_version of the node.
  uint32_t fw_version = 177;
  uint32_t sdma_fw_version = 19;
  // The ASIC revision the kernel packs into capability bits 22-25 (HSA_CAPABILITY.ASICRevision).
  uint32_t asic_revision = 0;
  // The frequency of the GPU's clock counter (GET_CLOCK_COUNTERS' gpu_clock_counter, the SDMA's global
  // timestamp): the fixed reference clock, 100 MHz on gfx94x/gfx10/gfx11, 25 MHz on the other gfx9 parts
  // (LLVM libc's AMDGPU clock table). Non-zero.
  uint64_t gpu_clock_counter_hz = 100'000'000;
};

struct Topology {
  // The CPU node's SYSTEM memory bank (the presets: the host's RAM, HostSystemMemory()).
  uint64_t system_memory_bytes;
  // The bound for GTT + USERPTR allocations of all processes (amdgpu's kfd_mem_limit.max_system_mem_limit);
  // nullopt: what amdgpu sets for this much RAM, KfdSystemMemoryLimit(system_memory_bytes).
  std::optional<uint64_t> system_memory_limit_bytes;
  uint32_t cpu_cores;
  std::vector<GpuConfig> gpus;         // sysfs nodes 1..N, in this order
  std::vector<IoLinkConfig> io_links;  // every direction of every link; see IoLinkConfig
  // The host CPU's top clock (MHz): max_engine_clk_ccompute of every node, as kfd_topology.c reports it.
  uint32_t cpu_max_engine_clk_mhz;
};

// Returns amdgpu's default limit on the system memory KFD buffers may take (GTT + USERPTR, all processes) on a host
// with `ram` (amdgpu_amdkfd_gpuvm_init_mem_limits, current mainline; older kernels took 15/16 of the free RAM):
// RAM less 1/64, then less a 1.5 GiB reserve, or instead halved where it is under twice the reserve.
Bytes KfdSystemMemoryLimit(Bytes ram);

// Returns one CPU node (node 0) and one MI300X-like GPU (node 1: gfx942, 192 GiB VRAM, render minor 128):
// the "mi300x" preset of presets.h.
Topology DefaultTopology();

// Returns one CPU node and `gpu_count` MI300X-like GPUs with distinct gpu ids, render minors (128 + i) and
// PCI locations, each PCIe-linked to the CPU and, when there are several, XGMI-linked all-to-all in one
// hive. `gpu_count` must be in [1, 8] (one MI300X platform); other values are a programming error and
// abort. Defined in presets.cc with the other presets.
Topology Mi300xTopology(int gpu_count);

// ---- introspection (Simulator::Snapshot) ----

// One live buffer object.
struct SimBo {
  uint64_t handle;  // as ALLOC_MEMORY_OF_GPU returned it
  uint32_t gpu_id;  // the GPU it was allocated on
  DeviceAddress va;  // GPU VA; 0 for a VRAM buffer allocated without one
  Bytes size;
  kfd_uapi::AllocMemFlags flags;
  std::vector<uint32_t> mapped_gpu_ids;  // GPUs whose page table maps it, in topology order
};

// One open SimFile (one KFD process).
// One event of a process.
struct SimEvent {
  uint32_t id;
  uint32_t type;  // kfd_uapi::EventType, raw
  bool auto_reset;
  bool signaled;
  size_t waiters;  // WAIT_EVENTS calls currently sleeping on it
};

// One user-mode queue.
struct SimQueue {
  uint32_t id;
  uint32_t gpu_id;
  kfd_uapi::QueueType type;
  DeviceAddress ring_base;
  Bytes ring_size;
  bool active;           // ring, size and percentage non-zero: its engine runs
  bool halted;           // its engine stopped on a VM fault or a malformed packet
  uint64_t read_pointer;  // what the engine has consumed (SDMA: bytes; AQL: packets; PM4: dwords)
  uint32_t priority = 0;  // the kernel's queue priority (0..15) from CREATE_QUEUE or the last UPDATE_QUEUE
};

// One SVM range of a process (AMDKFD_IOC_SVM SET_ATTR made it; svm_space.h).
struct SimSvmRange {
  DeviceAddress start;  // GPU VA == CPU VA
  Bytes size;
  uint32_t location;  // the gpu_id whose VRAM holds it; 0: system memory
  std::vector<uint32_t> mapped_gpu_ids;  // GPUs whose page table maps it, in topology order
  uint32_t preferred_loc;  // a gpu_id, kSvmLocationSysmem (0) or kSvmLocationUndefined
  uint32_t prefetch_loc;   // likewise
};

struct SimProcess {
  uint64_t id;               // 1, 2, ... in Open() order; not an OS pid
  std::vector<SimBo> bos;    // ascending handle
  std::vector<SimEvent> events;  // ascending id
  std::vector<SimQueue> queues;  // ascending id
  bool xnack_enabled = false;    // SET_XNACK_MODE: recoverable page faults on
  // Per GPU, topology order: SET_SCRATCH_BACKING_VA's last va_addr (the scratch backing address >> 16), 0 if never
  // set.
  std::vector<uint64_t> sh_hidden_private_base;
  std::vector<SimSvmRange> svm_ranges;  // ascending start
};

struct SimGpuUsage {
  uint32_t gpu_id;
  Bytes vram_total;
  Bytes vram_used;  // summed over every process
};

// A consistent cut of the whole simulator: no ioctl runs while it is taken.
struct SimSnapshot {
  std::vector<SimProcess> processes;  // ascending id
  std::vector<SimGpuUsage> gpus;      // topology order
  Bytes system_total;
  Bytes system_used;  // GTT + USERPTR, every process
};

// `process`'s buffers without its MMIO_REMAP ones: the HDP register page libhsakmt maps on every GPU at open, which
// a test counting what its scenario allocated leaves out.
std::vector<SimBo> BosButMmioPages(const SimProcess& process);

// Returns the KFD_IOC_QUEUE_TYPE_* name without the prefix ("SDMA", "COMPUTE_AQL"), or "UNKNOWN".
const char* QueueTypeName(kfd_uapi::QueueType type);

// Renders `snapshot` for people: one block per process listing its buffers (handle, GPU, VA, size, domain
// and flags, GPUs mapping it), SVM ranges (start, size, where the pages live, GPUs mapping it, preferred and
// prefetch location), queues (id, GPU, type, ring, state, read pointer) and events, then VRAM use
// per GPU and system memory use. Lines are indented by two spaces per level; the layout is stable
// (`hipmem info` prints it).
std::string FormatSnapshot(const SimSnapshot& snapshot);

class SharedResources;
class SimFile;
namespace sim_internal {
struct ProcessState;
class EventTable;
}  // namespace sim_internal

// A GPU page fault as the VM fault interrupt reports it (SimFile::RaiseMemoryException).
struct SimVmFault {
  uint32_t gpu_id;
  DeviceAddress va;  // any address in the faulting page
  bool not_present;  // no valid PTE
  bool read_only;    // a write to a read-only page
  bool no_execute;   // an instruction fetch from a non-executable page
  // The queue whose engine faulted, when known (the interrupt's ring/vmid): only the log reports it.
  std::optional<uint32_t> queue_id = std::nullopt;
};

// The "kernel + hardware". Thread-safe. Must outlive every SimFile it opened (destroying it first aborts).
class Simulator {
 public:
  // Validates `topology` and builds the simulator.
  // Errors: kInvalidArgument for a zero or duplicate gpu_id, a render minor outside [128, 255] or
  // duplicated, zero VRAM or system memory, an empty GPU name, a cache of level 0, zero size or a
  // cus_shared outside [1, 1024], or an io link naming a node that does not exist or linking a node to
  // itself; kFailedPrecondition when the host page size is not 4 KiB (the KFD ABI's PAGE_SIZE here).
  static absl::StatusOr<std::unique_ptr<Simulator>> Create(Topology topology);

  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  ~Simulator();

  const Topology& topology() const { return topology_; }

  // Writes a tree shaped like /sys/devices/virtual/kfd/kfd/topology under `root`, creating directories:
  // generation_id, system_properties, and nodes/N/{gpu_id, name, properties, mem_banks/0/properties,
  // caches/C/properties, io_links/L/properties, p2p_links/ (empty)}. Node 0 is the CPU (gpu_id 0, one
  // SYSTEM bank, no caches); node i is topology().gpus[i-1] (one FRAME_BUFFER_PUBLIC bank of vram_bytes, PRIVATE without large_bar,
  // local_mem_size 0 as current kernels report, its caches). io_links come from topology().io_links;
  // caches_count and io_links_count in each node's properties match the directories written.
  // Errors: the errno of a failing mkdir/open/write, through absl::ErrnoToStatus.
  absl::Status WriteSysfs(const std::string& root) const;

  // Opens /dev/kfd: returns a new KFD process context (its own handles, VAs, page tables, render nodes),
  // bound to the calling OS process.
  std::unique_ptr<SimFile> Open();

  // Returns every live process and buffer and the per-GPU and system usage, atomically.
  SimSnapshot Snapshot() const;

  // Returns the kernel log, oldest first: the newest SimLog::kDefaultCapacity lines since Create().
  // Never waits for an ioctl or an engine.
  std::vector<SimLogLine> Log() const;
  // Returns the kernel log formatted as `dmesg` prints it, one line per entry (FormatLogLine).
  std::string Dmesg() const;

  // Interrupt delivery by process, as the kernel finds the process by the PASID in an interrupt: runs
  // SimFile::SignalEvent / RaiseMemoryException on the open process `process_id` (SimProcess::id), which
  // cannot close meanwhile. Return false when no such process is open (and, for the fault, when the
  // process's call does). Defined in sim_file.cc with the hooks.
  bool SignalEvent(uint64_t process_id, uint32_t event_id);
  bool RaiseMemoryException(uint64_t process_id, const SimVmFault& fault);

 private:
  friend class SimFile;

  explicit Simulator(Topology topology);

  const Topology topology_;
  const std::unique_ptr<SharedResources> shared_;  // never null
  // Thread-safe on its own. Its mutex is below every other lock of the simulator (see the order below), so
  // any code path may write a line while holding whatever it holds.
  SimLog log_;

  // Held shared by every SimFile operation and exclusively by Open(), SimFile destruction and Snapshot(),
  // so a snapshot never sees half an ioctl. Lock order: world_mu_, then SimFile::mu_, then the
  // SharedResources mutex (or a process's event-table lock, or an engine's own lock), then, last, the log's
  // mutex (log_), under which nothing else is taken.
  mutable absl::Mutex world_mu_;
  absl::btree_map<uint64_t, SimFile*> processes_ ABSL_GUARDED_BY(world_mu_);  // not owned
  uint64_t next_process_id_ ABSL_GUARDED_BY(world_mu_) = 1;
};

// One open file description of /dev/kfd, i.e. one KFD process. Thread-safe.
// The destructor is close(): it frees every buffer and GPU mapping the process held, and the shared VRAM
// and system accounting returns exactly to what it was before. CPU mappings made with MmapBo belong to the
// caller (munmap them); as with a real DRM mapping they keep the pages alive after the buffer is freed.
class SimFile {
 public:
  SimFile(const SimFile&) = delete;
  SimFile& operator=(const SimFile&) = delete;
  ~SimFile();

  // Dispatches one KFD ioctl exactly as the kernel's kfd_ioctl(): decodes nr and the caller's size from
  // `request`, copies the argument in (zero-filling up to the kernel's struct size), runs the handler and
  // copies the caller's size back out, even when the handler failed. Returns 0 or a negative errno:
  // -ENOTTY for an nr outside [kCommandStart, kCommandEnd) and the DKMS [kDkmsCommandStart, kDkmsCommandEnd), or
  // one the simulator does not implement;
  // -EBADF when called from another OS process than the one that opened the file (e.g. after fork);
  // -EFAULT when `arg` cannot be read or written; otherwise the handler's result.
  // (An int errno, not a Status, because this is the kernel edge the thunk's ioctl() wrapper stands on.)
  int Ioctl(unsigned long request, void* arg);

  // Stands in for open("/dev/dri/renderD<drm_render_minor>"): returns a new process-local token (>= 0, and
  // never 0..2 so a zeroed fd is caught) to pass as drm_fd to ACQUIRE_VM and as render_fd to MmapBo.
  // -ENOENT for a minor no GPU has; -EBADF from another OS process (a forked child) than the opener.
  int OpenRenderNode(uint32_t drm_render_minor);

  // Stands in for mmap(addr, size, prot, MAP_SHARED | MAP_FIXED, render_fd, mmap_offset): maps the part of
  // a VRAM or GTT buffer of this process, on the render node's GPU, that starts `mmap_offset - (the
  // buffer's mmap_offset)` bytes in, at `addr`. Two mappings of one buffer share its pages.
  // Returns 0 or a negative errno: -EBADF when render_fd is not a token of this process, or when called from
  // another OS process than the opener (a forked child); -EINVAL for a null or misaligned addr, a zero size, unknown prot bits, or an offset range that is not inside one
  // buffer of that GPU; -EPERM for a USERPTR buffer, or a VRAM buffer allocated without PUBLIC and `prot`
  // other than PROT_NONE (as on hardware without a large BAR); -ENOMEM when the buffer's backing store
  // cannot be made; the errno of mmap() or mprotect() itself. Invisible VRAM gets only an inaccessible
  // placeholder (see the departures above).
  int MmapBo(int render_fd, void* addr, uint64_t size, int prot, uint64_t mmap_offset);

  // Stands in for mmap(addr, size, prot, MAP_SHARED | MAP_FIXED, <this /dev/kfd fd>, mmap_offset). Maps
  // the process's doorbell slice on a GPU for offset KFD_MMAP_TYPE_DOORBELL | gpu id << 46 (what
  // CREATE_QUEUE and a DOORBELL allocation return, without the queue's byte offset); the pages are the
  // ones the engines wait on. Returns 0 or a negative errno: -ESRCH from another OS process than the opener (a
  // forked child: kfd_mmap finds no KFD process of its own); -EINVAL for a null or misaligned addr, unknown
  // prot bits, another mmap type (EVENTS and RESERVED_MEM are not simulated yet), an unknown GPU or one
  // whose VM was never acquired, or a size other than the 8 KiB slice; -ENOMEM when the slice's backing
  // store cannot be made; the errno of mmap() itself.
  int MmapKfd(void* addr, uint64_t size, int prot, uint64_t mmap_offset);

  // Returns whether every byte of [va, va + size) is mapped in this process's page table on `gpu_id`.
  // For the simulator's engines and tests; false for an unknown gpu_id or an empty range.
  bool IsMapped(uint32_t gpu_id, DeviceAddress va, Bytes size) const;

  // Copies the `size` bytes GPU `gpu_id`'s engines read at `va` in this process into `out`, through this
  // process's page table, as a copy engine would. Returns false (copying nothing useful) when any byte is not
  // mapped, or for an unknown gpu_id. For tests: what a process's GPU sees, without a queue.
  bool ReadGpuMemory(uint32_t gpu_id, DeviceAddress va, Bytes size, void* out) const;

  // ---- hooks for the simulator's engines (issue #3's SDMA engine, VM faults) and tests ----
  // Each is safe to call from any thread, also while another thread sleeps in WAIT_EVENTS, and takes
  // no lock but the process's event lock.

  // Signals event `event_id` the way a GPU engine does (a RELEASE_MEM that writes the event id into the
  // event's slot of the signal page, then an end-of-pipe interrupt carrying the id): the kernel
  // acknowledges the slot and sets the event, waking its waiters. No-op for an id that is not a SIGNAL or
  // DEBUG event of this process, as the kernel ignores such interrupts.
  void SignalEvent(uint32_t event_id);

  // Raises just the event interrupt (kfd_signal_event_interrupt) with the low `valid_id_bits` bits of an
  // id, for an engine that wrote the slot itself: sets every SIGNAL/DEBUG event whose slot it finds
  // written, scanning all slots when the id does not pin one down.
  void SignalEventInterrupt(uint32_t partial_id, uint32_t valid_id_bits);

  // Reports a GPU VM fault (kfd_signal_vm_fault_event): every MEMORY event of this process is set and
  // carries the fault (gpu_id, the faulting page, the failure bits) to its next WAIT_EVENTS. Returns false,
  // delivering nothing, for a gpu_id the topology does not have.
  bool RaiseMemoryException(const SimVmFault& fault);

  // Reports a hardware exception (kfd_signal_hw_exception_event): every HW_EXCEPTION event of this process is
  // set. What the kernel raised for a CP bad opcode before the debugger's exception path; the simulator raises it
  // for an illegal SDMA packet (see sim_queue_ioctls.cc).
  void RaiseHwException();
  // Reports that GPU `gpu_id` hung on this process's work (kfd_signal_reset_event after a hang): every
  // HW_EXCEPTION event of this process is set and carries {whole-GPU reset, GPU_HANG, memory lost, gpu_id}.
  // Deliberate: only this process hears of it and nothing is reset; on hardware the reset reaches every
  // process on the GPU.
  void RaiseGpuHang(uint32_t gpu_id);

 private:
  friend class Simulator;

  SimFile(Simulator* sim, uint64_t id);

  // Ioctl without the log: decodes, checks and runs the handler; returns 0 or a negative errno.
  int DispatchIoctl(unsigned long request, void* arg);

  // Returns this process's part of a snapshot. The caller holds sim_->world_mu_ exclusively.
  SimProcess TakeSnapshot() const;

  Simulator* const sim_;  // Not owned; must outlive this.
  const uint64_t id_;
  const pid_t opener_pid_;
  // Thread-safe on its own (a std::mutex WAIT_EVENTS sleeps on); not guarded by mu_.
  const std::unique_ptr<sim_internal::EventTable> events_;

  mutable absl::Mutex mu_;
  std::unique_ptr<sim_internal::ProcessState> state_ ABSL_GUARDED_BY(mu_);
};

}  // namespace hipmem::kfd_sim

#endif  // HIPMEM_TESTING_KFD_SIM_SIMULATOR_H_
