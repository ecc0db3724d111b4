// The simulated kernel's memory ioctls: version, apertures, ACQUIRE_VM and the buffer objects (kfd_chardev.c's
// alloc/free/map/unmap_memory_of_gpu and get_available_memory, over amdgpu_amdkfd_gpuvm.c's rules).
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/units.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "testing/kfd_sim/sim_internal.h"
#include "testing/kfd_sim/user_memory.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14+; older libc headers lack the name
#endif

namespace hipmem::kfd_sim::sim_internal {
namespace {

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

// Whether GPU `peer` can reach GPU `owner`'s VRAM: itself, or an io link between their nodes (XGMI, or
// PCIe peer-to-peer as the topology lists it).
bool PeerCanReach(const Topology& topology, size_t owner, size_t peer) {
  if (owner == peer) return true;
  for (const IoLinkConfig& link : topology.io_links) {
    if (link.node_from == peer + 1 && link.node_to == owner + 1) return true;
  }
  return false;
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
  // Outside a fuzzer's window nothing counts as mapped (user_memory.h); without this check MADV_POPULATE_READ would
  // walk, and fault in, whatever of the fuzzer's own memory a fuzzed range covers.
  if (!UserRangeAllowed(userptr, size.raw())) return -EFAULT;
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

// The device-id array of MAP/UNMAP, fetched as the kernel does (kmalloc_array, then copy_from_user). Inline for the
// usual handful of GPUs: no heap allocation on every map and unmap.
struct DeviceIds {
  int error = 0;
  absl::InlinedVector<uint32_t, 8> ids;
};

DeviceIds CopyDeviceIds(uint64_t user_ptr, uint32_t n_devices) {
  if (n_devices > kMaxDeviceIds) return DeviceIds{.error = -ENOMEM, .ids = {}};
  DeviceIds result{.error = 0, .ids = absl::InlinedVector<uint32_t, 8>(n_devices)};
  if (!CopyFromUser(result.ids.data(), user_ptr, n_devices * sizeof(uint32_t))) {
    return DeviceIds{.error = -EFAULT, .ids = {}};
  }
  return result;
}

}  // namespace

std::optional<size_t> FindGpu(const Topology& topology, uint32_t gpu_id) {
  for (size_t i = 0; i < topology.gpus.size(); ++i) {
    if (topology.gpus[i].gpu_id == gpu_id) return i;
  }
  return std::nullopt;
}

std::shared_ptr<BoPages> DoorbellsOf(const Topology& topology, ProcessDevice& device, size_t gpu) {
  if (device.doorbells == nullptr) {
    // Its own file: the slice is made once per process and GPU, and /proc/self/fd names it.
    auto file = std::make_shared<PageFile>(absl::StrCat("kfd_sim doorbells gpu_id=0x", absl::Hex(topology.gpus[gpu].gpu_id)));
    absl::StatusOr<std::shared_ptr<BoPages>> slice = BoPages::Create(std::move(file), kDoorbellSlice);
    HIPMEM_CHECK(slice.ok(), slice.status().ToString());  // the first range of a fresh file
    device.doorbells = *std::move(slice);
  }
  return device.doorbells;
}

// On hardware this is the GPU's remapped register page (amdgpu's MMIO remap, one page of the BAR holding
// HDP_MEM_FLUSH_CNTL and HDP_REG_FLUSH_CNTL at the KFD_MMIO_REMAP_* offsets), the same physical page for every
// process. Deliberate: each process gets its own zeroed page here. Host writes to the simulated GPU's memory are
// visible to its engines at once, so there is no HDP cache to flush and a write to the page changes nothing; a
// page per process keeps one process's stores out of another's, which only the register's side effect joins.
std::shared_ptr<BoPages> MmioPageOf(const Topology& topology, ProcessDevice& device, size_t gpu) {
  if (device.mmio_page == nullptr) {
    auto file = std::make_shared<PageFile>(absl::StrCat("kfd_sim mmio gpu_id=0x", absl::Hex(topology.gpus[gpu].gpu_id)));
    absl::StatusOr<std::shared_ptr<BoPages>> page = BoPages::Create(std::move(file), kPageSize);
    HIPMEM_CHECK(page.ok(), page.status().ToString());  // the first range of a fresh file
    device.mmio_page = *std::move(page);
  }
  return device.mmio_page;
}

std::shared_ptr<PageFile> PageFileOf(const Topology& topology, ProcessState& process, Domain domain, size_t gpu) {
  std::shared_ptr<PageFile>& file = domain == Domain::kVram ? process.devices[gpu].vram_file : process.system_file;
  if (file == nullptr) {
    file = std::make_shared<PageFile>(domain == Domain::kVram
                                          ? absl::StrCat("kfd_sim vram gpu_id=0x", absl::Hex(topology.gpus[gpu].gpu_id))
                                          : std::string("kfd_sim gtt"));
  }
  return file;
}

std::optional<size_t> RenderTokenGpu(const ProcessState& process, int64_t token) {
  const int64_t index = token - kFirstRenderToken;
  if (index < 0 || index >= static_cast<int64_t>(process.render_nodes.size())) return std::nullopt;
  return process.render_nodes[static_cast<size_t>(index)];
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
    AddressRangeMap<uint64_t>& vas = c.process.devices[bo.gpu_index].allocated_vas;
    const AddressRangeMap<uint64_t>::Entry* entry = vas.FindStart(bo.va->base);
    HIPMEM_CHECK(entry != nullptr && entry->range == *bo.va && entry->value == bo.handle,
                 "a buffer's VA is missing from its GPU's allocated VAs");
    vas.Erase(bo.va->base);
  }
  // A shared buffer's accounting is its dma-buf object's, returned when the last holder lets go.
  const bool shared = bo.dmabuf != nullptr;
  if (!shared && bo.domain == Domain::kVram) {
    c.shared.ReleaseVram(bo.gpu_index, bo.accounted);
  } else if (!shared && !bo.accounted.is_zero()) {
    c.shared.ReleaseSystem(bo.accounted);
  }
  c.process.mmap_offsets.erase(bo.mmap_offset);
  c.process.bos.erase(it);
  // The descriptors may all be closed already; then this was the last holder but the table's.
  if (shared) c.shared.dmabufs().Sweep();
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

VaCheck CheckNewBufferVa(const ProcessDevice& device, uint64_t va_addr, Bytes size, bool may_omit) {
  if (!IsAligned(size, kPageSize) || !IsAligned(DeviceAddress(va_addr), kPageSize)) return VaCheck{.error = -EINVAL, .va = {}};
  if (va_addr == 0 && may_omit) return VaCheck{.error = 0, .va = std::nullopt};
  const std::optional<DeviceAddress> end = CheckedAdd(DeviceAddress(va_addr), size);
  if (!end || va_addr < kGpuvmBase || end->raw() - 1 > kGpuvmLimit) return VaCheck{.error = -EINVAL, .va = {}};
  const AddressRange va{DeviceAddress(va_addr), size};
  // Deliberate: overlap with another buffer of this process on this GPU is refused here, with the errno the
  // kernel uses for overlap with an SVM range, instead of -EINVAL at map time.
  if (device.allocated_vas.Overlaps(va)) return VaCheck{.error = -EADDRINUSE, .va = {}};
  return VaCheck{.error = 0, .va = va};
}

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
  // MMIO_REMAP: the register page, exactly one page (kfd_ioctl_alloc_memory_of_gpu).
  if (*domain == Domain::kMmioRemap && args.size != kPageSize.raw()) return -EINVAL;

  // "Alloc host visible vram on small bar is not allowed".
  if (*domain == Domain::kVram && (args.flags & uapi::ToRaw(uapi::AllocMemFlags::kPublic)) != 0 &&
      !c.topology.gpus[*gpu].large_bar) {
    return -EINVAL;
  }

  // Deliberate: page-aligned va and size, inside the GPUVM aperture (the kernel would fail the later
  // amdgpu_vm_bo_map instead). A VRAM buffer may come without a VA (va_addr 0), as the kernel allows.
  const Bytes size(args.size);
  if (!IsAligned(size, kPageSize) || !IsAligned(DeviceAddress(args.va_addr), kPageSize)) return -EINVAL;
  if (args.va_addr != 0 || *domain != Domain::kVram) {
    const std::optional<DeviceAddress> end = CheckedAdd(DeviceAddress(args.va_addr), size);
    if (!end || args.va_addr < kGpuvmBase || end->raw() - 1 > kGpuvmLimit) return -EINVAL;
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

  // The range itself was checked above, before pinning; here its overlap with this process's buffers.
  const VaCheck checked = CheckNewBufferVa(device, args.va_addr, size, *domain == Domain::kVram);
  if (checked.error != 0) return checked.error;
  const std::optional<AddressRange> va = checked.va;
  // svm_range_check_vm's other side: a buffer may not take a VA an SVM range holds.
  if (va && c.process.svm != nullptr && c.process.svm->Overlaps(*va)) return -EADDRINUSE;

  // idr_alloc failing (our idr space has wrapped).
  if (c.process.next_idr == 0) return -EFAULT;

  // amdgpu_amdkfd_reserve_mem_limit: VRAM against the GPU, GTT and USERPTR against system memory, global
  // over all processes. The amount is PAGE_ALIGN(size), halved for AQL queue memory (mapped twice).
  const uapi::AllocMemFlags flags = uapi::AllocMemFlagsFromRaw(args.flags);
  // Doorbell and MMIO_REMAP buffers are not counted (they are BAR pages, not memory).
  const bool aql = uapi::HasFlag(flags, uapi::AllocMemFlags::kAqlQueueMem);
  const bool doorbell = *domain == Domain::kDoorbell;
  const bool mmio = *domain == Domain::kMmioRemap;
  const Bytes accounted = doorbell || mmio ? Bytes(0) : *AlignUp(aql ? Bytes(size.raw() / 2) : size, kPageSize);
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
  } else if (mmio) {
    pages = MmioPageOf(c.topology, device, *gpu);
  } else if (*domain != Domain::kUserptr) {
    // A range of the process's VRAM (or GTT) file; no system call (BoPages).
    absl::StatusOr<std::shared_ptr<BoPages>> taken = BoPages::Create(PageFileOf(c.topology, c.process, *domain, *gpu), size);
    if (!taken.ok()) return -ENOMEM;
    pages = *std::move(taken);
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
  // (mapping that one through the render node is refused with -EPERM); a doorbell or MMIO_REMAP buffer gets the
  // /dev/kfd one.
  const uint64_t kfd_offset_gpu = uint64_t{args.gpu_id} << uapi::kMmapGpuIdShift;
  args.mmap_offset = doorbell ? uapi::kMmapTypeDoorbell | kfd_offset_gpu
                     : mmio   ? uapi::kMmapTypeMmio | kfd_offset_gpu
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
      const PageSource source{.pages = bo.pages, .userptr = bo.userptr, .doorbell = bo.domain == Domain::kDoorbell};
      if (!peer_device.page_table->Map(*bo.va, bo.handle, source).ok()) {
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

}  // namespace hipmem::kfd_sim::sim_internal
