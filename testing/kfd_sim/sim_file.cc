// The ioctl side of the simulator: one SimFile per KFD process, the dispatcher and the handlers.
//
// This is the simulator's "kernel edge", the one file that speaks errno. Each handler mirrors its
// kfd_chardev.c counterpart: the same checks in the same order, so a thunk bug meets the errno it would
// meet on real hardware. Departures from the kernel are marked "Deliberate:".
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "base/log.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "base/scoped_lock.h"
#include "testing/kfd_sim/address_range_map.h"
#include "testing/kfd_sim/bo_pages.h"
#include "testing/kfd_sim/engines/compute_engine.h"
#include "testing/kfd_sim/engines/sdma_engine.h"
#include "testing/kfd_sim/events.h"
#include "testing/kfd_sim/gpu_page_table.h"
#include "testing/kfd_sim/shared_resources.h"
#include "testing/kfd_sim/sim_log.h"
#include "testing/kfd_sim/simulator.h"
#include "testing/kfd_sim/user_memory.h"

namespace hipmem::kfd_sim {

namespace uapi = ::hipmem::kfd_uapi;

namespace sim_internal {

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
  std::unique_ptr<SdmaEngine> sdma;    // SDMA queues: running while the queue is active
  std::unique_ptr<ComputeEngine> compute;  // AQL queues: running while the queue is active

  bool running() const { return sdma != nullptr || compute != nullptr; }
  bool halted() const { return (sdma != nullptr && sdma->halted()) || (compute != nullptr && compute->halted()); }
  // SDMA: bytes consumed; AQL: the next packet index.
  uint64_t progress() const { return sdma != nullptr ? sdma->rptr() : compute != nullptr ? compute->read_index() : 0; }
};

// One process's view of one GPU (the kernel's kfd_process_device).
struct ProcessDevice {
  std::optional<int> vm_token;    // the render token ACQUIRE_VM bound (the pdd's drm_file)
  // What this GPU can reach in this process. Behind a pointer: engines hold it across moves of the vector.
  std::unique_ptr<GpuPageTable> page_table = std::make_unique<GpuPageTable>();
  AddressRangeMap allocated_vas;  // VAs of the buffers allocated on this GPU
  // The process's doorbell slice on this GPU (kfd_get_process_doorbells), made on first use; shared by
  // the DOORBELL buffer, the /dev/kfd mmap and the engines.
  std::shared_ptr<BoPages> doorbells;
};

// Everything one KFD process owns.
struct ProcessState {
  explicit ProcessState(size_t gpu_count) : devices(gpu_count) {}

  std::vector<size_t> render_nodes;            // token - kFirstRenderToken -> GPU index
  std::vector<ProcessDevice> devices;          // by GPU index
  absl::btree_map<uint64_t, Bo> bos;           // by handle
  absl::btree_map<uint64_t, uint64_t> mmap_offsets;  // start offset -> handle
  uint32_t next_idr = 1;                       // never reused; 0 once the space has wrapped
  absl::btree_map<uint32_t, Queue> queues;     // by queue id
};

}  // namespace sim_internal

namespace {

using sim_internal::Bo;
using sim_internal::Domain;
using sim_internal::EventTable;
using sim_internal::SignalPage;
using sim_internal::ProcessDevice;
using sim_internal::ProcessState;
using sim_internal::Queue;
using BoMap = absl::btree_map<uint64_t, Bo>;

constexpr Bytes kPageSize = Bytes::KiB(4);

// Render tokens start here so that a zeroed or stdio fd is never mistaken for one.
constexpr int kFirstRenderToken = 1000;

// The GFX9+ canonical apertures every process gets on every GPU (kfd_flat_memory.c,
// kfd_init_apertures_v9): GPUVM covers the 47-bit user half above a reserved bottom; LDS and scratch live
// in the non-canonical range, one 4 GiB window each.
constexpr uint64_t kGpuvmBase = 0x200000;                 // 2 MiB, like AMDGPU_VA_RESERVED_BOTTOM
constexpr uint64_t kGpuvmLimit = (uint64_t{1} << 47) - 1;
constexpr uint64_t kLdsBase = uint64_t{1} << 48;          // MAKE_LDS_APP_BASE_V9
constexpr uint64_t kScratchBase = uint64_t{2} << 48;      // MAKE_SCRATCH_APP_BASE_V9
constexpr uint64_t kApertureWindow = 0xffffffff;          // limit = base + 4 GiB - 1

// kmalloc_array's ceiling (KMALLOC_MAX_SIZE, 4 MiB on x86-64) in device ids: a longer MAP/UNMAP array
// fails with -ENOMEM before anything is read.
constexpr uint32_t kMaxDeviceIds = (4u << 20) / sizeof(uint32_t);

// Doorbells (kfd_doorbell.c, SOC15): 8-byte doorbells, KFD_MAX_NUM_OF_QUEUES_PER_PROCESS of them per
// process per device, so the slice a process maps is 8 KiB. A queue's doorbell is slot `queue id`.
constexpr uint32_t kDoorbellBytes = 8;
constexpr uint32_t kMaxQueuesPerProcess = 1024;
constexpr Bytes kDoorbellSlice = Bytes(kDoorbellBytes * kMaxQueuesPerProcess);
// KFD_MIN_QUEUE_RING_SIZE: CREATE/UPDATE_QUEUE raise a smaller ring size to this.
constexpr uint32_t kMinQueueRingSize = 1024;
// num_sdma_queues_per_engine, as the sysfs tree reports it (sysfs_writer.cc).
constexpr uint32_t kSdmaQueuesPerEngine = 8;
// The kernel-internal ENOTSUPP (include/linux/errno.h): CREATE_QUEUE's answer to an unknown queue type.
constexpr int kEnotsupp = 524;

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

std::optional<size_t> FindGpu(const Topology& topology, uint32_t gpu_id) {
  for (size_t i = 0; i < topology.gpus.size(); ++i) {
    if (topology.gpus[i].gpu_id == gpu_id) return i;
  }
  return std::nullopt;
}

// Returns the process's doorbell slice on `gpu`, making it on first use; never null.
std::shared_ptr<BoPages> DoorbellsOf(const Topology& topology, ProcessDevice& device, size_t gpu) {
  if (device.doorbells == nullptr) {
    device.doorbells = std::make_shared<BoPages>("doorbells", topology.gpus[gpu].gpu_id, kDoorbellSlice);
  }
  return device.doorbells;
}

// Whether GPU `peer` can reach GPU `owner`'s VRAM: itself, or an io link between their nodes (XGMI, or
// PCIe peer-to-peer as the topology lists it).
bool PeerCanReach(const Topology& topology, size_t owner, size_t peer) {
  if (owner == peer) return true;
  for (const IoLinkConfig& link : topology.io_links) {
    if (link.node_from == peer + 1 && link.node_to == owner + 1) return true;
  }
  return false;
}

std::optional<size_t> RenderTokenGpu(const ProcessState& process, int64_t token) {
  const int64_t index = token - kFirstRenderToken;
  if (index < 0 || index >= static_cast<int64_t>(process.render_nodes.size())) return std::nullopt;
  return process.render_nodes[static_cast<size_t>(index)];
}

// Returns the domain when exactly one domain bit is set.
std::optional<Domain> DomainOf(uint32_t flags) {
  switch (flags & uapi::kAllocMemDomainMask) {
    case uapi::ToRaw(uapi::AllocMemFlags::kVram): return Domain::kVram;
    case uapi::ToRaw(uapi::AllocMemFlags::kGtt): return Domain::kGtt;
    case uapi::ToRaw(uapi::AllocMemFlags::kUserptr): return Domain::kUserptr;
    case uapi::ToRaw(uapi::AllocMemFlags::kDoorbell): return Domain::kDoorbell;
    case uapi::ToRaw(uapi::AllocMemFlags::kMmioRemap): return Domain::kMmioRemap;
    default: return std::nullopt;
  }
}

// Frees one buffer: drops it from every page table (the kernel unmaps a still-mapped BO on free), returns
// its accounting exactly, and closes its backing store.
void ReleaseBo(IoctlContext& c, BoMap::iterator it) {
  Bo& bo = it->second;
  for (size_t gpu : bo.mapped_on) {
    const absl::Status s = c.process.devices[gpu].page_table->Unmap(*bo.va, bo.handle);
    HIPMEM_CHECK(s.ok(), s.ToString());
  }
  if (bo.va) {
    const absl::Status s = c.process.devices[bo.gpu_index].allocated_vas.Erase(*bo.va, bo.handle);
    HIPMEM_CHECK(s.ok(), s.ToString());
  }
  if (bo.domain == Domain::kVram) {
    c.shared.ReleaseVram(bo.gpu_index, bo.accounted);
  } else if (!bo.accounted.is_zero()) {
    c.shared.ReleaseSystem(bo.accounted);
  }
  c.process.mmap_offsets.erase(bo.mmap_offset);
  c.process.bos.erase(it);
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14+; older libc headers lack the name
#endif

// Returns whether this kernel answers MADV_POPULATE_READ (5.14+), probed once on a page known to be readable.
bool HasPopulateRead() {
  static const bool supported = [] {
    alignas(4096) static const char probe_page[4096] = {};
    return madvise(const_cast<char*>(probe_page), sizeof(probe_page), MADV_POPULATE_READ) == 0;
  }();
  return supported;
}

// get_user_pages over [userptr, userptr + size), as amdgpu_ttm_tt_get_user_pages does when KFD creates a USERPTR
// BO: -EFAULT when a page has no VMA (vma_lookup, or a hole for hmm_range_fault) or its VMA is not readable
// (PROT_NONE, which hmm refuses). Running in the caller's process, the simulator asks the same question of the
// real kernel without touching the memory, so a bad range cannot crash it: MADV_POPULATE_READ walks the range in
// one call and fails with ENOMEM on a hole and EINVAL on an inaccessible VMA. On kernels without it, each page is
// probed by a one-byte process_vm_readv (CopyFromUser).
// Deliberate: the kernel write-faults the pages (a KFD userptr is never read-only), so it refuses a read-only
// mapping (-EPERM) and pins private pages; here a read-only range is accepted and untouched pages are only
// mapped read-only (to the zero page), which keeps registering large ranges cheap.
int PinUserPages(uint64_t userptr, Bytes size) {
  if (HasPopulateRead()) {
    int r;
    do {
      r = madvise(reinterpret_cast<void*>(static_cast<uintptr_t>(userptr)), size.raw(), MADV_POPULATE_READ);
    } while (r != 0 && errno == EINTR);
    return r == 0 ? 0 : -EFAULT;
  }
  for (uint64_t page = userptr; page - userptr < size.raw(); page += kPageSize.raw()) {
    char byte;
    if (!CopyFromUser(&byte, page, 1)) return -EFAULT;
  }
  return 0;
}

// Makes [addr, addr + span) the PROT_NONE placeholder of an invisible VRAM buffer. The kernel allocates such
// a buffer NO_CPU_ACCESS, so the CPU never reaches its pages: a touch faults (SIGBUS there, SIGSEGV here),
// whatever protection user space sets later. Nothing of the buffer needs to be behind the placeholder, then.
// Deliberate: a range that is mapped already (user space places the buffer over its own PROT_NONE
// reservation) only loses its access (mprotect, which creates no mapping and, over a PROT_NONE range, changes
// nothing); a range with a hole gets a fresh anonymous PROT_NONE mapping, as MAP_FIXED would replace it. A
// later mprotect then reveals what was there before (zeroes over a reservation), never the buffer's pages.
int MapInvisibleVramPlaceholder(void* addr, Bytes span) {
  if (mprotect(addr, span.raw(), PROT_NONE) == 0) return 0;
  if (errno != ENOMEM) return -errno;  // ENOMEM: part of the range is not mapped
  void* mapped = mmap(addr, span.raw(), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  if (mapped == MAP_FAILED) return -errno;
  return 0;
}

// ---- handlers: each returns 0 or -errno and may update `args` (copied back for IOC_OUT requests) ----

int GetVersion(IoctlContext&, uapi::GetVersionArgs& args) {
  args.major_version = uapi::kIoctlMajorVersion;
  args.minor_version = uapi::kIoctlMinorVersion;
  return 0;
}

int GetProcessAperturesNew(IoctlContext& c, uapi::GetProcessAperturesNewArgs& args) {
  const uint32_t gpu_count = static_cast<uint32_t>(c.topology.gpus.size());
  // num_of_nodes == 0 asks how many entries to allocate.
  if (args.num_of_nodes == 0) {
    args.num_of_nodes = gpu_count;
    return 0;
  }
  const uint32_t n = std::min(gpu_count, args.num_of_nodes);
  std::vector<uapi::ProcessDeviceApertures> apertures(n);
  for (uint32_t i = 0; i < n; ++i) {
    apertures[i] = uapi::ProcessDeviceApertures{
        .lds_base = kLdsBase,
        .lds_limit = kLdsBase + kApertureWindow,
        .scratch_base = kScratchBase,
        .scratch_limit = kScratchBase + kApertureWindow,
        .gpuvm_base = kGpuvmBase,
        .gpuvm_limit = kGpuvmLimit,
        .gpu_id = c.topology.gpus[i].gpu_id,
        .pad = 0,
    };
  }
  args.num_of_nodes = n;
  if (!CopyToUser(args.kfd_process_device_apertures_ptr, apertures.data(),
                  apertures.size() * sizeof(uapi::ProcessDeviceApertures))) {
    return -EFAULT;
  }
  return 0;
}

int AcquireVm(IoctlContext& c, uapi::AcquireVmArgs& args) {
  // fget(drm_fd) failing: not an open file of this process.
  const std::optional<size_t> token_gpu = RenderTokenGpu(c.process, args.drm_fd);
  if (!token_gpu) return -EINVAL;
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  ProcessDevice& device = c.process.devices[*gpu];
  // Already acquired: the same file again is fine, another one is busy. The kernel decides this before
  // looking at which device the file belongs to.
  if (device.vm_token) return *device.vm_token == static_cast<int>(args.drm_fd) ? 0 : -EBUSY;
  // kfd_process_device_init_vm: the render node must be this GPU's.
  if (*token_gpu != *gpu) return -EINVAL;
  device.vm_token = static_cast<int>(args.drm_fd);
  return 0;
}

int AllocMemoryOfGpu(IoctlContext& c, uapi::AllocMemoryOfGpuArgs& args) {
  if (args.size == 0) return -EINVAL;
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  ProcessDevice& device = c.process.devices[*gpu];
  // kfd_bind_process_to_device: a device whose VM was never acquired has no drm_priv.
  if (!device.vm_token) return -ENODEV;

  // Deliberate: exactly one domain bit (the kernel takes the first one of an if-chain).
  const std::optional<Domain> domain = DomainOf(args.flags);
  if (!domain) return -EINVAL;
  // DOORBELL: the buffer is the process's doorbell slice on this GPU, exactly that size.
  if (*domain == Domain::kDoorbell && args.size != kDoorbellSlice.raw()) return -EINVAL;
  // Deliberate: there is no simulated MMIO register page (HDP flush) to remap.
  if (*domain == Domain::kMmioRemap) return -EINVAL;

  // "Alloc host visible vram on small bar is not allowed".
  if (*domain == Domain::kVram && (args.flags & uapi::ToRaw(uapi::AllocMemFlags::kPublic)) != 0 &&
      !c.topology.gpus[*gpu].large_bar) {
    return -EINVAL;
  }

  // Deliberate: page-aligned va and size, inside the GPUVM aperture (the kernel would fail the later
  // amdgpu_vm_bo_map instead). A VRAM buffer may come without a VA (va_addr 0), as the kernel allows.
  const Bytes size(args.size);
  const DeviceAddress va_addr(args.va_addr);
  if (!IsAligned(size, kPageSize) || !IsAligned(va_addr, kPageSize)) return -EINVAL;
  std::optional<AddressRange> va;
  if (args.va_addr != 0 || *domain != Domain::kVram) {
    const std::optional<DeviceAddress> end = CheckedAdd(va_addr, size);
    if (!end || va_addr.raw() < kGpuvmBase || end->raw() - 1 > kGpuvmLimit) return -EINVAL;
    va = AddressRange{va_addr, size};
  }

  // USERPTR: mmap_offset carries the CPU address; pinning a null or misaligned one faults, and so does pinning
  // a range that is not mapped and readable in the caller.
  // Deliberate: pinned here, before the accounting; the kernel pins after reserving and unreserves when pinning
  // fails, so only the errno when several checks fail at once can differ.
  uint64_t userptr = 0;
  if (*domain == Domain::kUserptr) {
    userptr = args.mmap_offset;
    if (userptr == 0 || !IsAligned(Bytes(userptr), kPageSize)) return -EFAULT;
    if (const int pinned = PinUserPages(userptr, size); pinned != 0) return pinned;
  }

  // Deliberate: overlap with another buffer of this process on this GPU is refused here, with the errno the
  // kernel uses for overlap with an SVM range, instead of -EINVAL at map time.
  if (va && device.allocated_vas.Overlaps(*va)) return -EADDRINUSE;

  // idr_alloc failing (our idr space has wrapped).
  if (c.process.next_idr == 0) return -EFAULT;

  // amdgpu_amdkfd_reserve_mem_limit: VRAM against the GPU, GTT and USERPTR against system memory, global
  // over all processes. The amount is PAGE_ALIGN(size), halved for AQL queue memory (mapped twice).
  const uapi::AllocMemFlags flags = uapi::AllocMemFlagsFromRaw(args.flags);
  // Doorbell buffers are not counted (they are the device's doorbell BAR, not memory).
  const bool aql = uapi::HasFlag(flags, uapi::AllocMemFlags::kAqlQueueMem);
  const bool doorbell = *domain == Domain::kDoorbell;
  const Bytes accounted = doorbell ? Bytes(0) : *AlignUp(aql ? Bytes(size.raw() / 2) : size, kPageSize);
  const bool vram = *domain == Domain::kVram;
  if (vram ? !c.shared.TryReserveVram(*gpu, accounted) : !c.shared.TryReserveSystem(accounted)) return -ENOMEM;
  absl::Cleanup unreserve = [&] {
    if (vram) {
      c.shared.ReleaseVram(*gpu, accounted);
    } else {
      c.shared.ReleaseSystem(accounted);
    }
  };

  // A doorbell buffer's mmap offset is the /dev/kfd one (KFD_MMAP_TYPE_DOORBELL | gpu id), reserved in the
  // DRM space all the same so that every buffer has a distinct key in mmap_offsets.
  const std::optional<uint64_t> drm_offset = c.shared.AllocateMmapOffset(size);
  if (!drm_offset) return -ENOMEM;
  std::shared_ptr<BoPages> pages;
  if (doorbell) {
    pages = DoorbellsOf(c.topology, device, *gpu);
  } else if (*domain != Domain::kUserptr) {
    // The pages get their backing file when something first reaches them (BoPages): a buffer that is only
    // allocated, GPU-mapped and freed costs no system call here.
    pages = std::make_shared<BoPages>("bo", args.gpu_id, size);
  }
  const uint64_t mmap_offset = *drm_offset;

  const uint32_t idr = c.process.next_idr++;
  const uint64_t handle = uapi::MakeHandle(args.gpu_id, idr);
  if (va) {
    const absl::Status s = device.allocated_vas.Insert(*va, handle);
    HIPMEM_CHECK(s.ok(), s.ToString());
  }
  c.process.mmap_offsets.emplace(mmap_offset, handle);
  c.process.bos.emplace(handle, Bo{
                                    .handle = handle,
                                    .gpu_index = *gpu,
                                    .va = va,
                                    .size = size,
                                    .flags = flags,
                                    .domain = *domain,
                                    .accounted = accounted,
                                    .mmap_offset = mmap_offset,
                                    .userptr = userptr,
                                    .pages = std::move(pages),
                                    .mapped_on = {},
                                });
  std::move(unreserve).Cancel();

  args.handle = handle;
  // As amdgpu_amdkfd_gpuvm_alloc_memory_of_gpu: every BO gets its DRM mmap offset back, USERPTR included
  // (mapping that one through the render node is refused with -EPERM); a doorbell gets the /dev/kfd one.
  args.mmap_offset = doorbell ? uapi::kMmapTypeDoorbell | (uint64_t{args.gpu_id} << uapi::kMmapGpuIdShift)
                              : mmap_offset;
  return 0;
}

int FreeMemoryOfGpu(IoctlContext& c, uapi::FreeMemoryOfGpuArgs& args) {
  // The event page user space handed to CREATE_EVENT is the kernel's until close().
  const uint64_t signal_handle = c.events.signal_handle();
  if (signal_handle != 0 && signal_handle == args.handle) return -EPERM;
  if (!FindGpu(c.topology, uapi::HandleGpuId(args.handle))) return -EINVAL;
  // Double free, another process's handle, or a handle never issued.
  const auto it = c.process.bos.find(args.handle);
  if (it == c.process.bos.end()) return -EINVAL;
  ReleaseBo(c, it);
  return 0;
}

// The device-id array of MAP/UNMAP, fetched as the kernel does (kmalloc_array, then copy_from_user).
struct DeviceIds {
  int error = 0;
  std::vector<uint32_t> ids;
};

DeviceIds CopyDeviceIds(uint64_t user_ptr, uint32_t n_devices) {
  if (n_devices > kMaxDeviceIds) return DeviceIds{.error = -ENOMEM, .ids = {}};
  DeviceIds result{.error = 0, .ids = std::vector<uint32_t>(n_devices)};
  if (!CopyFromUser(result.ids.data(), user_ptr, n_devices * sizeof(uint32_t))) {
    return DeviceIds{.error = -EFAULT, .ids = {}};
  }
  return result;
}

int MapMemoryToGpu(IoctlContext& c, uapi::MapMemoryToGpuArgs& args) {
  if (args.n_devices == 0) return -EINVAL;
  if (args.n_success > args.n_devices) return -EINVAL;
  const DeviceIds devices = CopyDeviceIds(args.device_ids_array_ptr, args.n_devices);
  if (devices.error != 0) return devices.error;
  const std::optional<size_t> gpu = FindGpu(c.topology, uapi::HandleGpuId(args.handle));
  if (!gpu) return -EINVAL;
  if (!c.process.devices[*gpu].vm_token) return -ENODEV;  // kfd_bind_process_to_device
  const auto it = c.process.bos.find(args.handle);
  if (it == c.process.bos.end()) return -ENOMEM;  // sic: the kernel's errno for an unknown handle here
  Bo& bo = it->second;

  // Resume after the devices a failed earlier call already mapped.
  for (uint32_t i = args.n_success; i < args.n_devices; ++i) {
    const std::optional<size_t> peer = FindGpu(c.topology, devices.ids[i]);
    if (!peer) return -EINVAL;
    ProcessDevice& peer_device = c.process.devices[*peer];
    if (!peer_device.vm_token) return -ENODEV;  // kfd_bind_process_to_device on the peer
    // Mapping a buffer already mapped on this GPU is a no-op (its attachment is_mapped).
    if (!bo.mapped_on.contains(*peer)) {
      // amdgpu_vm_bo_map: no VA to map at, or the range conflicts with a mapping in this VM.
      if (!bo.va) return -EINVAL;
      // kfd_mem_attach: another GPU's VRAM is reachable only over a link (XGMI or PCIe P2P).
      if (bo.domain == Domain::kVram && !PeerCanReach(c.topology, bo.gpu_index, *peer)) return -EINVAL;
      if (!peer_device.page_table->Map(*bo.va, bo.handle, PageSource{.pages = bo.pages, .userptr = bo.userptr}).ok()) {
        return -EINVAL;
      }
      bo.mapped_on.insert(*peer);
    }
    args.n_success = i + 1;
  }
  return 0;
}

int UnmapMemoryFromGpu(IoctlContext& c, uapi::UnmapMemoryFromGpuArgs& args) {
  if (args.n_devices == 0) return -EINVAL;
  if (args.n_success > args.n_devices) return -EINVAL;
  const DeviceIds devices = CopyDeviceIds(args.device_ids_array_ptr, args.n_devices);
  if (devices.error != 0) return devices.error;
  if (!FindGpu(c.topology, uapi::HandleGpuId(args.handle))) return -EINVAL;
  const auto it = c.process.bos.find(args.handle);
  if (it == c.process.bos.end()) return -ENOMEM;  // sic, as in MAP
  Bo& bo = it->second;

  for (uint32_t i = args.n_success; i < args.n_devices; ++i) {
    const std::optional<size_t> peer = FindGpu(c.topology, devices.ids[i]);
    if (!peer) return -EINVAL;
    // amdgpu_amdkfd_gpuvm_unmap_memory_from_gpu: no VM had it mapped.
    if (!bo.mapped_on.contains(*peer)) return -EINVAL;
    const absl::Status s = c.process.devices[*peer].page_table->Unmap(*bo.va, bo.handle);
    HIPMEM_CHECK(s.ok(), s.ToString());
    bo.mapped_on.erase(*peer);
    args.n_success = i + 1;
  }
  return 0;
}

int AvailableMemory(IoctlContext& c, uapi::GetAvailableMemoryArgs& args) {
  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;
  args.available = c.shared.VramFree(*gpu).raw();
  return 0;
}

// kfd_kmap_event_page: adopts the buffer `event_page_offset` names (a BO handle) as the signal page.
int KmapEventPage(IoctlContext& c, uint64_t event_page_offset) {
  if (c.events.HasSignalPage()) return -EINVAL;  // "Event page is already set"
  const std::optional<size_t> gpu = FindGpu(c.topology, uapi::HandleGpuId(event_page_offset));
  if (!gpu) return -EINVAL;
  if (!c.process.devices[*gpu].vm_token) return -ENODEV;  // kfd_bind_process_to_device
  const auto it = c.process.bos.find(event_page_offset);
  if (it == c.process.bos.end()) return -EINVAL;  // "Can't find BO"
  const Bo& bo = it->second;
  // amdgpu_amdkfd_gpuvm_map_gtt_bo_to_kernel: user pages cannot be kmapped. (A VRAM buffer would be
  // pinned into GTT first; its backing store maps the same way here.)
  if (bo.domain == Domain::kUserptr) return -EINVAL;
  const absl::StatusOr<int> fd = bo.pages->File();
  if (!fd.ok()) return -ENOMEM;
  absl::StatusOr<SignalPage> page = SignalPage::MapBuffer(*fd, *AlignUp(bo.size, kPageSize));
  if (!page.ok()) return -ENOMEM;
  return c.events.SetSignalPage(*std::move(page), event_page_offset);
}

int CreateEvent(IoctlContext& c, uapi::CreateEventArgs& args) {
  // dGPUs: user space allocated the event page and passes its handle with the first event.
  if (args.event_page_offset != 0) {
    if (const int err = KmapEventPage(c, args.event_page_offset); err != 0) return err;
  }
  return c.events.Create(args);
}

int DestroyEvent(IoctlContext& c, uapi::DestroyEventArgs& args) { return c.events.Destroy(args.event_id); }
int SetEvent(IoctlContext& c, uapi::SetEventArgs& args) { return c.events.Set(args.event_id); }
int ResetEvent(IoctlContext& c, uapi::ResetEventArgs& args) { return c.events.Reset(args.event_id); }

// Runs without the world and process locks: it may sleep until another thread sets an event.
int WaitEvents(EventTable& events, uapi::WaitEventsArgs& args) { return events.Wait(args); }

// ---- queues (kfd_chardev.c create/destroy/update_queue, kfd_process_queue_manager.c) ----

// access_ok() on x86-64: the range lies below TASK_SIZE_MAX.
bool UserRange(uint64_t address, uint64_t size) {
  constexpr uint64_t kTaskSizeMax = (uint64_t{1} << 47) - 4096;
  return address <= kTaskSizeMax && size <= kTaskSizeMax - address;
}

// The checks set_queue_properties_from_user and kfd_ioctl_update_queue share, in the kernel's order.
// Raises a short ring to KFD_MIN_QUEUE_RING_SIZE, as the kernel does.
int CheckQueueCommon(uint32_t percentage, uint32_t priority, uint64_t ring_base, uint32_t& ring_size) {
  if ((percentage & 0xff) > uapi::kMaxQueuePercentage) return -EINVAL;
  if (priority > uapi::kMaxQueuePriority) return -EINVAL;
  if (ring_base != 0 && !UserRange(ring_base, sizeof(uint64_t))) return -EFAULT;
  if (ring_size != 0 && (ring_size & (ring_size - 1)) != 0) return -EINVAL;
  if (ring_size < kMinQueueRingSize) ring_size = kMinQueueRingSize;
  return 0;
}

bool QueueIsActive(const Queue& q) { return q.ring_size > 0 && q.ring_base != 0 && (q.percentage & 0xff) > 0; }

bool IsSdma(uapi::QueueType type) {
  return type == uapi::QueueType::kSdma || type == uapi::QueueType::kSdmaXgmi ||
         type == uapi::QueueType::kSdmaByEngineId;
}

// Starts the engine of an active queue (the MQD loaded onto a hardware queue). `initial_progress` continues
// a queue that UPDATE_QUEUE stopped: bytes for SDMA, the next packet index for AQL.
void StartEngine(IoctlContext& c, Queue& q, uint64_t initial_progress) {
  if (!QueueIsActive(q)) return;
  ProcessDevice& device = c.process.devices[q.gpu_index];
  const GpuConfig& gpu = c.topology.gpus[q.gpu_index];
  const uint32_t gpu_id = gpu.gpu_id;
  auto* doorbell = reinterpret_cast<uint64_t*>(device.doorbells->EngineView() + uint64_t{q.id} * kDoorbellBytes);
  SimFile* file = &c.file;
  const uint32_t queue_id = q.id;
  auto on_vm_fault = [file, gpu_id, queue_id](uint64_t va) {
    file->RaiseMemoryException(SimVmFault{.gpu_id = gpu_id,
                                          .va = DeviceAddress(va),
                                          .not_present = true,
                                          .read_only = false,
                                          .no_execute = false,
                                          .queue_id = queue_id});
  };
  if (q.type == uapi::QueueType::kComputeAql) {
    const std::string name = absl::StrCat("gpu 0x", absl::Hex(gpu_id), " aql queue ", q.id);
    q.compute = std::make_unique<ComputeEngine>(
        name, device.page_table.get(),
        AqlQueueDescriptor{.ring_va = q.ring_base,
                           .ring_bytes = q.ring_size,
                           .read_dispatch_id_va = q.read_pointer,
                           .write_dispatch_id_va = q.write_pointer,
                           .doorbell = doorbell,
                           .initial_read_index = initial_progress},
        gpu.simd_per_cu == 0 ? 1 : gpu.simd_count / gpu.simd_per_cu,
        ComputeEngine::Callbacks{
            // The CP's end-of-pipe interrupt carries the event id the signal's mailbox names.
            .on_signal_interrupt = [file](uint32_t event_id) { file->SignalEventInterrupt(event_id, 32); },
            .on_vm_fault = on_vm_fault,
            // The CP's bad-opcode / invalid-packet interrupt: amdgpu reports it as an error (and echoes it
            // to the console).
            .on_queue_error =
                [log = &c.log, process_id = c.process_id, name](QueueError error) {
                  log->Write(SimLogLevel::kError, absl::StrCat("kfd_sim: process ", process_id, ": ", name,
                                                               ": halted on a queue error: ", QueueErrorName(error)));
                },
        });
    return;
  }
  q.sdma = std::make_unique<SdmaEngine>(
      absl::StrCat("gpu 0x", absl::Hex(gpu_id), " sdma queue ", q.id), device.page_table.get(),
      SdmaQueueDescriptor{.ring_va = q.ring_base,
                          .ring_bytes = q.ring_size,
                          .rptr_va = q.read_pointer,
                          .wptr_va = q.write_pointer,
                          .doorbell = doorbell,
                          .initial_rptr = initial_progress},
      SdmaEngine::Callbacks{
          // The SDMA trap interrupt carries 28 bits of context: the event id (sdma_v4/v5 + kfd_int_process).
          .on_trap = [file](uint32_t context) { file->SignalEventInterrupt(context & 0x0fffffff, 28); },
          .on_vm_fault = on_vm_fault,
      });
}

// Stops a queue's engine (unmapping its MQD); returns the progress it reached.
uint64_t StopEngine(Queue& q) {
  const uint64_t progress = q.progress();
  q.sdma.reset();
  q.compute.reset();
  return progress;
}

// Writes one queue lifecycle line: "kfd_sim: process 1: gpu_id 0x1e6a: <what> SDMA queue 0: ring ..., <state>".
void LogQueue(IoctlContext& c, const Queue& q, absl::string_view what) {
  const uint32_t gpu_id = c.topology.gpus[q.gpu_index].gpu_id;
  c.log.Write(SimLogLevel::kInfo,
              absl::StrCat("kfd_sim: process ", c.process_id, ": gpu_id 0x", absl::Hex(gpu_id), ": ", what, " ",
                           QueueTypeName(q.type), " queue ", q.id, ": ring 0x", absl::Hex(q.ring_base), " (",
                           SizeText(Bytes(q.ring_size)), "), ", q.percentage & 0xff, "%, priority ", q.priority, ", ",
                           q.running() ? "active" : "inactive"));
}

void ReleaseQueue(IoctlContext& c, absl::btree_map<uint32_t, Queue>::iterator it) {
  Queue& q = it->second;
  StopEngine(q);
  if (q.sdma_pool_xgmi) c.shared.ReturnSdmaQueue(q.gpu_index, *q.sdma_pool_xgmi);
  c.process.queues.erase(it);
}

int CreateQueue(IoctlContext& c, uapi::CreateQueueArgs& args) {
  // set_queue_properties_from_user.
  if (const int err = CheckQueueCommon(args.queue_percentage, args.queue_priority, args.ring_base_address,
                                       args.ring_size);
      err != 0) {
    return err;
  }
  if (!UserRange(args.read_pointer_address, sizeof(uint64_t))) return -EFAULT;
  if (!UserRange(args.write_pointer_address, sizeof(uint64_t))) return -EFAULT;
  if (args.eop_buffer_address != 0 && !UserRange(args.eop_buffer_address, sizeof(uint32_t))) return -EFAULT;
  if (args.ctx_save_restore_address != 0 && !UserRange(args.ctx_save_restore_address, sizeof(uint32_t))) {
    return -EFAULT;
  }
  const auto type = static_cast<uapi::QueueType>(args.queue_type);
  switch (type) {
    case uapi::QueueType::kCompute:
    case uapi::QueueType::kSdma:
    case uapi::QueueType::kComputeAql:
    case uapi::QueueType::kSdmaXgmi:
    case uapi::QueueType::kSdmaByEngineId:
      break;
    default:
      return -kEnotsupp;
  }

  const std::optional<size_t> gpu = FindGpu(c.topology, args.gpu_id);
  if (!gpu) return -EINVAL;  // "Did not find gpu"
  ProcessDevice& device = c.process.devices[*gpu];
  if (!device.vm_token) return -ESRCH;  // kfd_bind_process_to_device failing
  // kfd_queue_acquire_buffers (Linux 6.12+): the ring and both pointers must sit in buffers this GPU maps.
  if (args.ring_base_address == 0 ||
      !device.page_table->Covers(AddressRange{DeviceAddress(args.ring_base_address), Bytes(args.ring_size)}) ||
      !device.page_table->Covers(AddressRange{DeviceAddress(args.read_pointer_address), Bytes(8)}) ||
      !device.page_table->Covers(AddressRange{DeviceAddress(args.write_pointer_address), Bytes(8)})) {
    return -EINVAL;
  }
  // Deliberate: PM4 compute queues have no simulated engine; refused rather than created to never run.
  if (type == uapi::QueueType::kCompute) return -EINVAL;

  // find_available_queue_slot: the lowest free queue id of the process.
  uint32_t qid = 0;
  while (c.process.queues.contains(qid)) ++qid;
  if (qid >= kMaxQueuesPerProcess) return -ENOMEM;

  Queue q;
  q.id = qid;
  q.gpu_index = *gpu;
  q.type = type;
  q.ring_base = args.ring_base_address;
  q.ring_size = args.ring_size;
  q.read_pointer = args.read_pointer_address;
  q.write_pointer = args.write_pointer_address;
  q.percentage = args.queue_percentage;
  q.priority = args.queue_priority;

  if (IsSdma(type)) {
    const GpuConfig& config = c.topology.gpus[*gpu];
    bool xgmi = type == uapi::QueueType::kSdmaXgmi;
    if (type == uapi::QueueType::kSdmaByEngineId) {
      if (args.sdma_engine_id >= config.num_sdma_engines + config.num_sdma_xgmi_engines) return -EINVAL;
      xgmi = args.sdma_engine_id >= config.num_sdma_engines;
    }
    const uint32_t engines = xgmi ? config.num_sdma_xgmi_engines : config.num_sdma_engines;
    // allocate_sdma_queue: "No more SDMA queue to allocate".
    if (!c.shared.TryTakeSdmaQueue(*gpu, xgmi, engines * kSdmaQueuesPerEngine)) return -ENOMEM;
    q.sdma_pool_xgmi = xgmi;
  }
  absl::Cleanup return_slot = [&] {
    if (q.sdma_pool_xgmi) c.shared.ReturnSdmaQueue(*gpu, *q.sdma_pool_xgmi);
  };
  const std::shared_ptr<BoPages> doorbells = DoorbellsOf(c.topology, device, *gpu);
  std::byte* doorbell_view = doorbells->EngineView();
  if (doorbell_view == nullptr) return -ENOMEM;
  // Where the engine starts: an SDMA ring at byte 0 (the MQD's initial pointers); an AQL queue at the read
  // index user space left in read_dispatch_id. The doorbell slot then announces nothing, whatever a queue that
  // had this slot before left in it: 0 for SDMA, the index before the first packet for AQL.
  uint64_t start = 0;
  if (type == uapi::QueueType::kComputeAql) {
    GpuMemory::AccessScope scope(device.page_table.get());
    const std::optional<GpuMemory::Span> rptr = device.page_table->Translate(args.read_pointer_address, 8);
    if (!rptr || rptr->bytes < 8) return -EINVAL;
    start = std::atomic_ref<uint64_t>(*static_cast<uint64_t*>(rptr->host)).load();
  }
  const uint64_t idle = type == uapi::QueueType::kComputeAql ? ComputeEngine::IdleDoorbellValue(start) : 0;
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(doorbell_view + uint64_t{qid} * kDoorbellBytes)).store(idle);
  std::move(return_slot).Cancel();

  auto [it, inserted] = c.process.queues.emplace(qid, std::move(q));
  HIPMEM_CHECK(inserted, "queue id reused while live");
  StartEngine(c, it->second, start);
  LogQueue(c, it->second, "created");

  args.queue_id = qid;
  // SOC15: the mmap offset of the process's doorbell slice, plus this queue's byte offset inside it.
  args.doorbell_offset = uapi::kMmapTypeDoorbell | (uint64_t{args.gpu_id} << uapi::kMmapGpuIdShift) |
                         uint64_t{qid} * kDoorbellBytes;
  return 0;
}

int DestroyQueue(IoctlContext& c, uapi::DestroyQueueArgs& args) {
  const auto it = c.process.queues.find(args.queue_id);
  if (it == c.process.queues.end()) return -EINVAL;  // "Queue id does not match any known queue"
  const Queue& q = it->second;
  const uint32_t gpu_id = c.topology.gpus[q.gpu_index].gpu_id;
  c.log.Write(SimLogLevel::kInfo, absl::StrCat("kfd_sim: process ", c.process_id, ": gpu_id 0x", absl::Hex(gpu_id),
                                               ": destroyed ", QueueTypeName(q.type), " queue ", q.id,
                                               " at read pointer ", q.progress(), q.halted() ? " (halted)" : ""));
  ReleaseQueue(c, it);
  return 0;
}

int UpdateQueue(IoctlContext& c, uapi::UpdateQueueArgs& args) {
  uint32_t ring_size = args.ring_size;
  if (const int err = CheckQueueCommon(args.queue_percentage, args.queue_priority, args.ring_base_address, ring_size);
      err != 0) {
    return err;
  }
  const auto it = c.process.queues.find(args.queue_id);
  if (it == c.process.queues.end()) return -EFAULT;  // pqm_update_queue_properties: "No queue ... exists"
  Queue& q = it->second;
  ProcessDevice& device = c.process.devices[q.gpu_index];
  if (args.ring_base_address != 0 &&
      !device.page_table->Covers(AddressRange{DeviceAddress(args.ring_base_address), Bytes(ring_size)})) {
    return -EINVAL;  // kfd_queue_buffer_get on the new ring
  }
  const uint64_t rptr = StopEngine(q);
  q.ring_base = args.ring_base_address;
  q.ring_size = ring_size;
  q.percentage = args.queue_percentage;
  q.priority = args.queue_priority;
  StartEngine(c, q, rptr);
  LogQueue(c, q, "updated");
  return 0;
}

// ---- the dispatch table (amdkfd_ioctls[]) ----

struct IoctlEntry {
  uapi::IoctlDirection direction = uapi::IoctlDirection::kNone;
  uint32_t kernel_size = 0;  // sizeof the kernel's Args
  int (*handler)(IoctlContext&, std::byte* kdata) = nullptr;
  // Set instead of `handler` for an ioctl that may sleep (WAIT_EVENTS): it runs without the world and
  // process locks, so other threads' ioctls, Open() and Snapshot() proceed meanwhile.
  int (*sleeping_handler)(EventTable&, std::byte* kdata) = nullptr;
};

// Builds the entry for `kDescriptor` from a handler typed by the descriptor's own Args, so pairing a
// request with the wrong struct does not compile. The handler runs on an aligned typed copy of kdata.
template <const auto& kDescriptor, auto kHandler>
constexpr std::pair<uint32_t, IoctlEntry> Entry() {
  using Args = typename std::remove_cvref_t<decltype(kDescriptor)>::Args;
  static_assert(std::is_same_v<decltype(kHandler), int (*)(IoctlContext&, Args&)>,
                "the handler must take the descriptor's Args");
  return {kDescriptor.nr, IoctlEntry{
                              .direction = kDescriptor.direction,
                              .kernel_size = sizeof(Args),
                              .handler = [](IoctlContext& c, std::byte* kdata) {
                                Args args;
                                std::memcpy(&args, kdata, sizeof(Args));
                                const int ret = kHandler(c, args);
                                std::memcpy(kdata, &args, sizeof(Args));
                                return ret;
                              },
                          }};
}

// As Entry, for a handler that sleeps (see IoctlEntry::sleeping_handler).
template <const auto& kDescriptor, auto kHandler>
constexpr std::pair<uint32_t, IoctlEntry> SleepingEntry() {
  using Args = typename std::remove_cvref_t<decltype(kDescriptor)>::Args;
  static_assert(std::is_same_v<decltype(kHandler), int (*)(EventTable&, Args&)>,
                "the handler must take the descriptor's Args");
  return {kDescriptor.nr, IoctlEntry{
                              .direction = kDescriptor.direction,
                              .kernel_size = sizeof(Args),
                              .handler = nullptr,
                              .sleeping_handler = [](EventTable& events, std::byte* kdata) {
                                Args args;
                                std::memcpy(&args, kdata, sizeof(Args));
                                const int ret = kHandler(events, args);
                                std::memcpy(kdata, &args, sizeof(Args));
                                return ret;
                              },
                          }};
}

constexpr std::array<IoctlEntry, uapi::kCommandEnd> BuildIoctlTable() {
  std::array<IoctlEntry, uapi::kCommandEnd> table{};
  for (const auto& [nr, entry] : {
           Entry<uapi::kGetVersion, &GetVersion>(),
           Entry<uapi::kCreateQueue, &CreateQueue>(),
           Entry<uapi::kDestroyQueue, &DestroyQueue>(),
           Entry<uapi::kUpdateQueue, &UpdateQueue>(),
           Entry<uapi::kCreateEvent, &CreateEvent>(),
           Entry<uapi::kDestroyEvent, &DestroyEvent>(),
           Entry<uapi::kSetEvent, &SetEvent>(),
           Entry<uapi::kResetEvent, &ResetEvent>(),
           SleepingEntry<uapi::kWaitEvents, &WaitEvents>(),
           Entry<uapi::kGetProcessAperturesNew, &GetProcessAperturesNew>(),
           Entry<uapi::kAcquireVm, &AcquireVm>(),
           Entry<uapi::kAllocMemoryOfGpu, &AllocMemoryOfGpu>(),
           Entry<uapi::kFreeMemoryOfGpu, &FreeMemoryOfGpu>(),
           Entry<uapi::kMapMemoryToGpu, &MapMemoryToGpu>(),
           Entry<uapi::kUnmapMemoryFromGpu, &UnmapMemoryFromGpu>(),
           Entry<uapi::kAvailableMemory, &AvailableMemory>(),
       }) {
    table[nr] = entry;
  }
  return table;
}

constexpr std::array<IoctlEntry, uapi::kCommandEnd> kIoctlTable = BuildIoctlTable();

bool HasDirection(uapi::IoctlDirection set, uapi::IoctlDirection bit) {
  return (static_cast<uint32_t>(set) & static_cast<uint32_t>(bit)) != 0;
}

// The errno's symbolic name ("EINVAL"), including the kernel-internal ENOTSUPP that glibc does not know.
std::string ErrnoName(int err) {
  if (err == kEnotsupp) return "ENOTSUPP";
  const char* name = strerrorname_np(err);
  return name != nullptr ? name : absl::StrCat("errno ", err);
}

}  // namespace

SimFile::SimFile(Simulator* sim, uint64_t id)
    : sim_(sim),
      id_(id),
      opener_pid_(CurrentPid()),
      events_(std::make_unique<EventTable>()),
      state_(std::make_unique<ProcessState>(sim->topology().gpus.size())) {}

SimFile::~SimFile() {
  ScopedLock world(&sim_->world_mu_);  // exclusive: no snapshot sees a half-closed process
  {
    ScopedLock lock(&mu_);
    IoctlContext c{sim_->topology_, *sim_->shared_, *state_, *events_, *this, sim_->log_, id_};
    // What close() gives back, for the log: kfd_process_wq_release's teardown in one line.
    const size_t queues = state_->queues.size();
    const size_t bos = state_->bos.size();
    const size_t events = events_->Snapshot().size();
    Bytes vram;
    Bytes system;
    for (const auto& [handle, bo] : state_->bos) (bo.domain == Domain::kVram ? vram : system) += bo.accounted;
    // Queues first: their engines may still be reading the buffers.
    while (!state_->queues.empty()) ReleaseQueue(c, state_->queues.begin());
    while (!state_->bos.empty()) ReleaseBo(c, state_->bos.begin());
    state_.reset();
    sim_->log_.Write(SimLogLevel::kInfo,
                     absl::StrCat("kfd_sim: process ", id_, " (pid ", opener_pid_, ") closed /dev/kfd: released ",
                                  queues, " queue(s), ", bos, " buffer(s) (", SizeText(vram), " VRAM, ",
                                  SizeText(system), " system memory), ", events, " event(s)"));
  }
  sim_->processes_.erase(id_);
}

int SimFile::Ioctl(unsigned long request, void* arg) {
  const int ret = DispatchIoctl(request, arg);
  // kfd_ioctl's pr_debug of the result, for failures only and ratelimited: a caller probing in a loop must
  // not push the faults and lifecycle lines out of the ring.
  if (ret < 0) {
    sim_->log_.WriteRatelimited(SimLogLevel::kDebug,
                                absl::StrCat("kfd_sim: process ", id_, ": ", uapi::IoctlName(request), " (nr 0x",
                                             absl::Hex(uapi::IoctlNr(request)), ") failed: ", ret, " (",
                                             ErrnoName(-ret), ")"));
  }
  return ret;
}

int SimFile::DispatchIoctl(unsigned long request, void* arg) {
  // kfd_ioctl(): the nr selects the handler; the type byte and the caller's direction bits are ignored,
  // the kernel trusts only its own table.
  const uint32_t nr = uapi::IoctlNr(request);
  if (nr < uapi::kCommandStart || nr >= uapi::kCommandEnd) return -ENOTTY;
  const IoctlEntry& entry = kIoctlTable[nr];
  // The kernel has a handler for every nr in range; the ones not simulated yet are unknown to the caller.
  if (entry.handler == nullptr && entry.sleeping_handler == nullptr) return -ENOTTY;
  // Only the process that opened /dev/kfd may use it; a forked child must open its own.
  if (CurrentPid() != opener_pid_) return -EBADF;

  // Size tolerance: copy the caller's usize bytes in, zero up to max(usize, sizeof(Args)), run the
  // handler, copy usize bytes back. Older (shorter) and newer (longer) structs both work.
  const uint32_t usize = uapi::IoctlSize(request);
  const uint32_t asize = std::max(usize, entry.kernel_size);
  // Like the kernel: arguments up to 128 bytes live on the stack, larger ones on the heap.
  constexpr uint32_t kStackArgs = 128;
  alignas(8) std::byte stack_data[kStackArgs] = {};
  std::vector<std::byte> heap_data(asize > kStackArgs ? asize : 0);  // zero-filled
  std::byte* const kdata_ptr = asize > kStackArgs ? heap_data.data() : stack_data;
  const uint64_t user = reinterpret_cast<uintptr_t>(arg);
  const bool copy_in = HasDirection(entry.direction, uapi::IoctlDirection::kWrite);
  const bool copy_out = HasDirection(entry.direction, uapi::IoctlDirection::kRead);
  if (copy_in && !CopyFromUser(kdata_ptr, user, usize)) return -EFAULT;

  int ret = 0;
  if (entry.sleeping_handler != nullptr) {
    ret = entry.sleeping_handler(*events_, kdata_ptr);
  } else {
    ScopedReaderLock world(&sim_->world_mu_);
    ScopedLock lock(&mu_);
    IoctlContext c{sim_->topology_, *sim_->shared_, *state_, *events_, *this, sim_->log_, id_};
    ret = entry.handler(c, kdata_ptr);
  }
  // Copied back even when the handler failed: MAP/UNMAP report their progress in n_success.
  if (copy_out && !CopyToUser(user, kdata_ptr, usize)) ret = -EFAULT;
  return ret;
}

int SimFile::OpenRenderNode(uint32_t drm_render_minor) {
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  const std::vector<GpuConfig>& gpus = sim_->topology_.gpus;
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (gpus[i].drm_render_minor != drm_render_minor) continue;
    state_->render_nodes.push_back(i);
    return kFirstRenderToken + static_cast<int>(state_->render_nodes.size() - 1);
  }
  return -ENOENT;
}

int SimFile::MmapBo(int render_fd, void* addr, uint64_t size, int prot, uint64_t mmap_offset) {
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  ProcessState& process = *state_;
  const std::optional<size_t> gpu = RenderTokenGpu(process, render_fd);
  if (!gpu) return -EBADF;
  const uint64_t addr_raw = reinterpret_cast<uintptr_t>(addr);
  if (addr_raw == 0 || !IsAligned(Bytes(addr_raw), kPageSize) || size == 0 ||
      !IsAligned(Bytes(mmap_offset), kPageSize)) {
    return -EINVAL;
  }
  if ((prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) != 0) return -EINVAL;
  const std::optional<Bytes> span = AlignUp(Bytes(size), kPageSize);
  if (!span) return -EINVAL;

  // drm_vma_offset_lookup_locked: the one buffer of this render node whose offset range holds the request.
  auto offset_it = process.mmap_offsets.upper_bound(mmap_offset);
  if (offset_it == process.mmap_offsets.begin()) return -EINVAL;
  --offset_it;
  const auto bo_it = process.bos.find(offset_it->second);
  HIPMEM_CHECK(bo_it != process.bos.end(), "mmap offset without a buffer");
  const Bo& bo = bo_it->second;
  const Bytes bo_span = *AlignUp(bo.size, kPageSize);
  const Bytes delta(mmap_offset - offset_it->first);
  if (bo.gpu_index != *gpu || delta >= bo_span || *span > bo_span - delta) return -EINVAL;

  // amdgpu_gem_object_mmap: user pages are not mappable through the render node; doorbells are mapped
  // through /dev/kfd (MmapKfd).
  if (bo.domain == Domain::kUserptr) return -EPERM;
  if (bo.domain == Domain::kDoorbell) return -EINVAL;
  // Deliberate (see simulator.h): invisible VRAM may only hold a PROT_NONE placeholder mapping.
  if (bo.domain == Domain::kVram && !uapi::HasFlag(bo.flags, uapi::AllocMemFlags::kPublic)) {
    return prot == PROT_NONE ? MapInvisibleVramPlaceholder(addr, *span) : -EPERM;
  }
  // The backing file failing to appear is the kernel's bo allocation failing for lack of pages.
  const absl::StatusOr<int> fd = bo.pages->File();
  if (!fd.ok()) return -ENOMEM;
  void* mapped = mmap(addr, span->raw(), prot, MAP_SHARED | MAP_FIXED, *fd, static_cast<off_t>(delta.raw()));
  if (mapped == MAP_FAILED) return -errno;
  return 0;
}

int SimFile::MmapKfd(void* addr, uint64_t size, int prot, uint64_t mmap_offset) {
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  const uint64_t addr_raw = reinterpret_cast<uintptr_t>(addr);
  if (addr_raw == 0 || !IsAligned(Bytes(addr_raw), kPageSize) || size == 0) return -EINVAL;
  if ((prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) != 0) return -EINVAL;
  // kfd_mmap: the top two bits pick what is mapped, the next sixteen the GPU.
  const uint64_t type = mmap_offset & (uint64_t{3} << uapi::kMmapTypeShift);
  const auto gpu_id = static_cast<uint32_t>((mmap_offset >> uapi::kMmapGpuIdShift) & 0xffff);
  // TODO(#3): KFD_MMAP_TYPE_EVENTS (the APU signal page) and RESERVED_MEM.
  if (type != uapi::kMmapTypeDoorbell) return -EINVAL;
  // kfd_doorbell_mmap: a device this process uses, and exactly the doorbell slice.
  const std::optional<size_t> gpu = FindGpu(sim_->topology_, gpu_id);
  if (!gpu) return -EINVAL;
  ProcessDevice& device = state_->devices[*gpu];
  if (!device.vm_token) return -EINVAL;
  if (size != kDoorbellSlice.raw()) return -EINVAL;
  const absl::StatusOr<int> fd = DoorbellsOf(sim_->topology_, device, *gpu)->File();
  if (!fd.ok()) return -ENOMEM;
  void* mapped = mmap(addr, size, prot, MAP_SHARED | MAP_FIXED, *fd, 0);
  if (mapped == MAP_FAILED) return -errno;
  return 0;
}

bool SimFile::IsMapped(uint32_t gpu_id, DeviceAddress va, Bytes size) const {
  ScopedReaderLock world(&sim_->world_mu_);
  ScopedLock lock(&mu_);
  const std::optional<size_t> gpu = FindGpu(sim_->topology_, gpu_id);
  if (!gpu) return false;
  return state_->devices[*gpu].page_table->Covers(AddressRange{va, size});
}

void SimFile::SignalEvent(uint32_t event_id) { events_->SignalFromEngine(event_id); }

void SimFile::SignalEventInterrupt(uint32_t partial_id, uint32_t valid_id_bits) {
  events_->Interrupt(partial_id, valid_id_bits);
}

bool SimFile::RaiseMemoryException(const SimVmFault& fault) {
  // kfd_signal_vm_fault_event: a fault on a GPU the process does not know is dropped (WARN_ONCE).
  if (!FindGpu(sim_->topology_, fault.gpu_id)) {
    sim_->log_.Write(SimLogLevel::kWarning, absl::StrCat("kfd_sim: process ", id_, ": VM fault on unknown gpu_id 0x",
                                                         absl::Hex(fault.gpu_id), " dropped"));
    return false;
  }
  // The gfx9+ fault path reports the faulting page, with the protection bits of the failed access.
  uapi::MemoryExceptionData data{};
  data.gpu_id = fault.gpu_id;
  data.va = AlignDown(Bytes(fault.va.raw()), kPageSize).raw();
  // amdgpu's gmc interrupt handler prints the fault (process, page, the client that faulted) before KFD
  // signals it, so the line is in the log by the time a waiter on the memory event wakes up.
  std::vector<absl::string_view> why;
  if (fault.not_present) why.push_back("not present");
  if (fault.read_only) why.push_back("write to read-only page");
  if (fault.no_execute) why.push_back("execute from no-execute page");
  sim_->log_.Write(SimLogLevel::kError,
                   absl::StrCat("kfd_sim: gpu_id 0x", absl::Hex(fault.gpu_id), ": VM fault in process ", id_,
                                fault.queue_id ? absl::StrCat(" from queue ", *fault.queue_id) : std::string(),
                                " at address 0x", absl::Hex(fault.va.raw()), " (page 0x", absl::Hex(+data.va), "): ",
                                why.empty() ? "no reason given" : absl::StrJoin(why, ", ")));
  data.failure.NotPresent = fault.not_present ? 1 : 0;
  data.failure.ReadOnly = fault.read_only ? 1 : 0;
  data.failure.NoExecute = fault.no_execute ? 1 : 0;
  data.failure.imprecise = 0;
  data.ErrorType = uapi::kMemErrNoRas;
  events_->VmFault(data);
  return true;
}

bool Simulator::SignalEvent(uint64_t process_id, uint32_t event_id) {
  ScopedReaderLock world(&world_mu_);  // keeps the process open
  const auto it = processes_.find(process_id);
  if (it == processes_.end()) return false;
  it->second->SignalEvent(event_id);
  return true;
}

bool Simulator::RaiseMemoryException(uint64_t process_id, const SimVmFault& fault) {
  ScopedReaderLock world(&world_mu_);
  const auto it = processes_.find(process_id);
  if (it == processes_.end()) return false;
  return it->second->RaiseMemoryException(fault);
}

SimProcess SimFile::TakeSnapshot() const {
  ScopedLock lock(&mu_);
  SimProcess process{.id = id_, .bos = {}, .events = {}, .queues = {}};
  for (const auto& [qid, q] : state_->queues) {
    process.queues.push_back(SimQueue{
        .id = qid,
        .gpu_id = sim_->topology_.gpus[q.gpu_index].gpu_id,
        .type = q.type,
        .ring_base = DeviceAddress(q.ring_base),
        .ring_size = Bytes(q.ring_size),
        .active = q.running(),
        .halted = q.halted(),
        .read_pointer = q.progress(),
    });
  }
  for (const sim_internal::EventState& event : events_->Snapshot()) {
    process.events.push_back(SimEvent{
        .id = event.id,
        .type = event.type,
        .auto_reset = event.auto_reset,
        .signaled = event.signaled,
        .waiters = event.waiters,
    });
  }
  process.bos.reserve(state_->bos.size());
  for (const auto& [handle, bo] : state_->bos) {
    SimBo info{
        .handle = handle,
        .gpu_id = sim_->topology_.gpus[bo.gpu_index].gpu_id,
        .va = bo.va ? bo.va->base : DeviceAddress(0),
        .size = bo.size,
        .flags = bo.flags,
        .mapped_gpu_ids = {},
    };
    for (size_t gpu : bo.mapped_on) info.mapped_gpu_ids.push_back(sim_->topology_.gpus[gpu].gpu_id);
    process.bos.push_back(std::move(info));
  }
  return process;
}

}  // namespace hipmem::kfd_sim
