#include "thunk/kfd.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "base/scoped_lock.h"
#include "base/address_map.h"
#include "base/env.h"
#include "base/log.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/default_kfd_device.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"

namespace hipmem::thunk {
namespace {

using kfd_uapi::AllocMemFlags;

absl::Status InvalidParameter(absl::string_view message) {
  return WithHsakmtStatus(absl::InvalidArgumentError(message), HSAKMT_STATUS_INVALID_PARAMETER);
}

// The flags libhsakmt puts on every user allocation (fmm_translate_hsa_to_ioc_flags + the ALLOC
// call): EXECUTABLE always, since ROCr cannot express per-allocation permissions. `disable_cache` is
// HSA_DISABLE_CACHE, which libhsakmt reads once when it sets up the apertures.
AllocMemFlags CommonIocFlags(MemFlags flags, bool disable_cache) {
  AllocMemFlags ioc = AllocMemFlags::kExecutable | AllocMemFlags::kNoSubstitute;
  if (!HasFlag(flags, MemFlags::kReadOnly)) ioc |= AllocMemFlags::kWritable;
  if (HasFlag(flags, MemFlags::kAqlQueueMemory)) ioc |= AllocMemFlags::kAqlQueueMem | AllocMemFlags::kUncached;
  if (!HasFlag(flags, MemFlags::kCoarseGrain) || disable_cache) ioc |= AllocMemFlags::kCoherent;
  if (HasFlag(flags, MemFlags::kUncached) || disable_cache) ioc |= AllocMemFlags::kUncached;
  return ioc;
}

std::string NodeContext(absl::string_view op, NodeId node, Bytes size, MemFlags flags) {
  return absl::StrCat(op, "(node=", node.raw(), ", size=", size.raw(), ", flags=0x", absl::Hex(ToRaw(flags)), ")");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Kfd>> Kfd::Open() {
  ASSIGN_OR_RETURN(std::unique_ptr<KfdDevice> device, OpenDefaultKfdDevice());
  return Open(std::move(device));
}

absl::StatusOr<std::unique_ptr<Kfd>> Kfd::Open(std::unique_ptr<KfdDevice> device) {
  kfd_uapi::GetVersionArgs version{};
  RETURN_IF_ERROR(Ioctl(*device, kfd_uapi::kGetVersion, version));
  if (version.major_version != kfd_uapi::kIoctlMajorVersion) {
    return WithHsakmtStatus(absl::FailedPreconditionError(absl::StrCat("KFD ioctl version ", version.major_version, ".",
                                                                       version.minor_version, ": need major 1")),
                            HSAKMT_STATUS_DRIVER_MISMATCH);
  }
  ASSIGN_OR_RETURN(SystemTopology topology, ReadTopology(device->sysfs_topology_root()));

  std::vector<Gpu> gpus;
  absl::Cleanup close_render_nodes = [&] {
    for (const Gpu& gpu : gpus) device->CloseRenderNode(gpu.render_fd);
  };
  for (const NodeProperties& node : topology.nodes) {
    if (!node.is_gpu()) continue;
    const auto minor = static_cast<uint32_t>(node.Get("drm_render_minor"));
    // Like libhsakmt, a GPU whose render node cannot be opened is not usable and is skipped.
    absl::StatusOr<int> fd = device->OpenRenderNode(minor);
    if (!fd.ok()) {
      HIPMEM_LOG(kWarning, "skipping node ", node.id.raw(), ": ", fd.status().message());
      continue;
    }
    gpus.push_back(Gpu{node.id, *node.gpu_id, *fd});
  }

  // GPUVM apertures: on GFX9+ every GPU's range is canonical; the SVM aperture is their intersection.
  DeviceAddress svm_base(kPageSize.raw());
  DeviceAddress svm_limit((1ull << 47) - 1);
  if (!gpus.empty()) {
    std::vector<kfd_uapi::ProcessDeviceApertures> apertures(gpus.size());
    kfd_uapi::GetProcessAperturesNewArgs args{};
    args.kfd_process_device_apertures_ptr = reinterpret_cast<uintptr_t>(apertures.data());
    args.num_of_nodes = static_cast<uint32_t>(apertures.size());
    RETURN_IF_ERROR(Ioctl(*device, kfd_uapi::kGetProcessAperturesNew, args));
    for (uint32_t i = 0; i < args.num_of_nodes && i < apertures.size(); ++i) {
      svm_base = std::max(svm_base, DeviceAddress(apertures[i].gpuvm_base));
      svm_limit = std::min(svm_limit, DeviceAddress(apertures[i].gpuvm_limit));
    }
  }
  for (const Gpu& gpu : gpus) {
    kfd_uapi::AcquireVmArgs args{static_cast<uint32_t>(gpu.render_fd), gpu.gpu_id.raw()};
    RETURN_IF_ERROR(Annotate(Ioctl(*device, kfd_uapi::kAcquireVm, args), absl::StrCat("gpu_id=", gpu.gpu_id.raw())));
  }
  const Bytes max_align(kPageSize.raw() << EnvUint64("HSA_MAX_VA_ALIGN", 9));
  auto aperture = std::make_unique<SvmAperture>(svm_base, svm_limit, max_align, EnvUint64("HSA_SVM_GUARD_PAGES", 1));
  const bool disable_cache = EnvUint64("HSA_DISABLE_CACHE", 0) != 0;
  std::move(close_render_nodes).Cancel();
  const KfdVersion v{version.major_version, version.minor_version};
  Trace(Layer::kThunk, "hsaKmtOpenKFD: backend=", device->backend_name(), ", KFD ", v.major, ".", v.minor, ", ",
        topology.nodes.size(), " nodes, ", gpus.size(), " GPUs");
  return std::unique_ptr<Kfd>(
      new Kfd(std::move(device), v, std::move(topology), std::move(gpus), std::move(aperture), disable_cache));
}

Kfd::Kfd(std::unique_ptr<KfdDevice> device, KfdVersion version, SystemTopology topology, std::vector<Gpu> gpus,
         std::unique_ptr<SvmAperture> aperture, bool disable_cache)
    : device_(std::move(device)),
      version_(version),
      topology_(std::move(topology)),
      gpus_(std::move(gpus)),
      aperture_(std::move(aperture)),
      disable_cache_(disable_cache) {}

Kfd::~Kfd() {
  ScopedLock lock(&mu_);
  for (auto& [start, allocation] : allocations_) {
    // The event page is the kernel's (FREE would answer -EPERM); closing the device releases it.
    if (allocation.kernel_owned) {
      aperture_->Release(allocation.range);
      continue;
    }
    if (absl::Status s = FreeLocked(allocation); !s.ok()) HIPMEM_LOG(kError, "releasing KFD allocation: ", s.message());
  }
  allocations_.clear();
  user_ranges_.clear();
  for (const Gpu& gpu : gpus_) device_->CloseRenderNode(gpu.render_fd);
}

absl::StatusOr<const NodeProperties*> Kfd::Node(NodeId node) const {
  if (node.raw() >= topology_.nodes.size()) {
    return InvalidNodeUnitError(absl::StrCat("node ", node.raw(), ": only ", topology_.nodes.size(), " nodes"));
  }
  return &topology_.nodes[node.raw()];
}

const Kfd::Gpu* Kfd::GpuOfNode(NodeId node) const {
  for (const Gpu& gpu : gpus_) {
    if (gpu.node == node) return &gpu;
  }
  return nullptr;
}

// libhsakmt's hsakmt_validate_nodeid_array: an unknown node is INVALID_NODE_UNIT; a node without a GPU has no
// gpu_id to hand the kernel.
absl::StatusOr<Kfd::GpuIdList> Kfd::GpuIdsOfNodes(std::span<const NodeId> nodes, absl::string_view context) const {
  GpuIdList gpu_ids;
  for (NodeId node : nodes) {
    RETURN_IF_ERROR(Annotate(Node(node).status(), context));
    const Gpu* gpu = GpuOfNode(node);
    if (gpu == nullptr) return InvalidParameter(absl::StrCat(context, ": node ", node.raw(), " has no GPU"));
    gpu_ids.push_back(gpu->gpu_id.raw());
  }
  return gpu_ids;
}

std::vector<NodeId> Kfd::NodesOfGpus(const std::vector<GpuId>& gpu_ids) const {
  std::vector<NodeId> nodes;
  for (GpuId id : gpu_ids) {
    for (const Gpu& gpu : gpus_) {
      if (gpu.gpu_id == id) nodes.push_back(gpu.node);
    }
  }
  return nodes;
}

// libhsakmt's vm_find_object(address, size) on the mmap aperture: a registered pointer first (`size` 0 takes the
// only registration at that pointer, otherwise the one of that size), then the BO whose GPU VA starts on
// `address`'s page: an allocation only at its very start, a registration at its GPU address (VA plus the
// registered pointer's page offset).
const Kfd::Allocation* Kfd::FindLocked(DeviceAddress address, Bytes size) const {
  const Allocation* registered = nullptr;
  int matches = 0;
  auto [first, last] = user_ranges_.equal_range(address.raw());
  for (auto it = first; it != last; ++it) {
    const Allocation& a = allocations_.at(it->second);
    if (size.is_zero() || a.user->size == size) {
      registered = &a;
      ++matches;
    }
  }
  if (matches == 1) return registered;
  const DeviceAddress page(AlignDown(Bytes(address.raw()), kPageSize).raw());
  auto it = allocations_.find(page.raw());
  if (it == allocations_.end()) return nullptr;
  const Allocation& a = it->second;
  if (!a.user.has_value()) return address == page ? &a : nullptr;
  const bool same_offset = (address - page).raw() == a.user->cpu.raw() % kPageSize.raw();
  return same_offset && (size.is_zero() || size == a.user->size) ? &a : nullptr;
}

Kfd::Allocation* Kfd::FindLocked(DeviceAddress address, Bytes size) {
  return const_cast<Allocation*>(std::as_const(*this).FindLocked(address, size));
}

// libhsakmt's vm_find_object(address, UINT64_MAX): registered CPU ranges first (they may overlap: the one with
// the nearest start wins), then the BO whose GPU VA range holds `address`.
const Kfd::Allocation* Kfd::FindContainingLocked(DeviceAddress address) const {
  for (auto it = user_ranges_.upper_bound(address.raw()); it != user_ranges_.begin();) {
    --it;
    const Allocation& a = allocations_.at(it->second);
    if (AddressRange{a.user->cpu, a.user->size}.Contains(address)) return &a;
  }
  auto it = FindContaining(allocations_, address, [](const Allocation& a) { return a.range; });
  return it == allocations_.end() ? nullptr : &it->second;
}

absl::StatusOr<DeviceAddress> Kfd::AllocMemory(NodeId node_id, Bytes size, MemFlags flags, Bytes alignment) {
  // Built only for an error: formatting it costs as much as the rest of a small allocation's bookkeeping.
  const auto context = [&] { return NodeContext("hsaKmtAllocMemory", node_id, size, flags); };
  ASSIGN_OR_RETURN(const NodeProperties* node, Node(node_id));
  if (!alignment.is_zero() && (alignment < kPageSize || !IsPowerOfTwo(alignment))) {
    return InvalidParameter(absl::StrCat(context(), ": alignment ", alignment.raw(), " is not a power of two >= 4 KiB"));
  }
  if (size.is_zero() || !IsAligned(size, kPageSize)) {
    return InvalidParameter(absl::StrCat(context(), ": size must be a non-zero multiple of 4 KiB"));
  }
  const bool coarse = HasFlag(flags, MemFlags::kCoarseGrain);
  const bool ext = HasFlag(flags, MemFlags::kExtendedCoherent);
  const bool uncached = HasFlag(flags, MemFlags::kUncached);
  if ((coarse && ext) || (coarse && uncached) || (ext && uncached)) {
    return InvalidParameter(absl::StrCat(context(), ": CoarseGrain, ExtendedCoherent and Uncached exclude each other"));
  }
  for (MemFlags unsupported : {MemFlags::kScratch, MemFlags::kNoAddress, MemFlags::kOnlyAddress, MemFlags::kFixedAddress}) {
    if (HasFlag(flags, unsupported)) {
      // TODO(#3): scratch and the VMM (NoAddress/OnlyAddress) paths.
      return WithHsakmtStatus(absl::UnimplementedError(absl::StrCat(context(), ": flag 0x", absl::Hex(ToRaw(unsupported)),
                                                                    " is not supported yet")),
                              HSAKMT_STATUS_NOT_SUPPORTED);
    }
  }
  const Gpu* gpu = GpuOfNode(node_id);
  // libhsakmt's host path: CPU nodes, pageable memory, and GTT requests.
  if (gpu == nullptr || !HasFlag(flags, MemFlags::kNonPaged) || HasFlag(flags, MemFlags::kGttAccess)) {
    absl::StatusOr<DeviceAddress> addr = AllocOnHost(*node, size, flags, alignment);
    if (!addr.ok()) return WithHsakmtStatus(Annotate(addr.status(), context()), HSAKMT_STATUS_ERROR);
    return addr;
  }
  absl::StatusOr<DeviceAddress> addr = AllocOnDevice(*gpu, size, flags, alignment);
  if (!addr.ok()) return WithHsakmtStatus(Annotate(addr.status(), context()), HSAKMT_STATUS_NO_MEMORY);
  return addr;
}

absl::StatusOr<uint64_t> Kfd::AllocBo(const Gpu& gpu, const AddressRange& range, uint32_t ioc_flags,
                                      uint64_t mmap_offset_in, uint64_t* mmap_offset_out) {
  kfd_uapi::AllocMemoryOfGpuArgs args{};
  args.va_addr = range.base.raw();
  args.size = range.size.raw();
  args.gpu_id = gpu.gpu_id.raw();
  args.flags = ioc_flags;
  args.mmap_offset = mmap_offset_in;
  RETURN_IF_ERROR(Ioctl(*device_, kfd_uapi::kAllocMemoryOfGpu, args));
  *mmap_offset_out = args.mmap_offset;
  return args.handle;
}

absl::StatusOr<uint64_t*> Kfd::DoorbellSlice(NodeId node) {
  const std::string context = absl::StrCat("doorbells of node ", node.raw());
  const Gpu* gpu = GpuOfNode(node);
  if (gpu == nullptr) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context, ": not a GPU node")),
                            HSAKMT_STATUS_INVALID_NODE_UNIT);
  }
  ScopedLock lock(&doorbell_mu_);
  if (auto it = doorbells_.find(node.raw()); it != doorbells_.end()) return it->second;
  const Bytes size(kDoorbellSliceBytes);
  ASSIGN_OR_RETURN(AddressRange range, aperture_->Reserve(size, Bytes(0)));
  absl::Cleanup release = [&] { aperture_->Release(range); };
  uint64_t mmap_offset = 0;
  absl::StatusOr<uint64_t> allocated = AllocBo(
      *gpu, range, ToRaw(AllocMemFlags::kDoorbell | AllocMemFlags::kWritable | AllocMemFlags::kCoherent), 0,
      &mmap_offset);
  if (!allocated.ok()) return Annotate(allocated.status(), context);
  const uint64_t handle = *allocated;
  absl::Cleanup free_bo = [&] {
    kfd_uapi::FreeMemoryOfGpuArgs free_args{handle};
    (void)Ioctl(*device_, kfd_uapi::kFreeMemoryOfGpu, free_args);
  };
  uint32_t gpu_id = gpu->gpu_id.raw();
  kfd_uapi::MapMemoryToGpuArgs map{};
  map.handle = handle;
  map.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu_id);
  map.n_devices = 1;
  RETURN_IF_ERROR(Annotate(Ioctl(*device_, kfd_uapi::kMapMemoryToGpu, map), context));
  RETURN_IF_ERROR(Annotate(device_->MapDoorbellsForCpu(range.base.ToPointer(), size, mmap_offset), context));
  std::move(free_bo).Cancel();
  std::move(release).Cancel();
  {
    ScopedLock allocations(&mu_);
    allocations_.emplace(range.base.raw(),
                         Allocation{range, node, gpu->gpu_id, handle, MemFlags::kNone, false, {gpu->gpu_id}});
  }
  auto* first = static_cast<uint64_t*>(range.base.ToPointer());
  doorbells_.emplace(node.raw(), first);
  return first;
}

absl::StatusOr<DeviceAddress> Kfd::AllocOnHost(const NodeProperties& node, Bytes size, MemFlags flags,
                                               Bytes alignment) {
  // System memory on a dGPU is a BO of the first GPU (libhsakmt's g_first_gpu_mem); every GPU may
  // map it later.
  if (gpus_.empty()) return absl::UnimplementedError("system memory without a GPU (APU path) is not supported");
  const Gpu& gpu = gpus_.front();
  ASSIGN_OR_RETURN(AddressRange range, aperture_->Reserve(size, alignment));
  absl::Cleanup release = [&] { aperture_->Release(range); };
  AllocMemFlags ioc = CommonIocFlags(flags, disable_cache_);
  uint64_t mmap_offset = 0;
  uint64_t handle = 0;
  const bool pageable = !HasFlag(flags, MemFlags::kNonPaged);
  if (pageable) {
    // HSA_USERPTR_FOR_PAGED_MEM (default on): ordinary anonymous memory, registered with the kernel.
    RETURN_IF_ERROR(aperture_->CommitAnonymous(range));
    ASSIGN_OR_RETURN(handle, AllocBo(gpu, range, ToRaw(ioc | AllocMemFlags::kUserptr), range.base.raw(), &mmap_offset));
  } else {
    ASSIGN_OR_RETURN(handle, AllocBo(gpu, range, ToRaw(ioc | AllocMemFlags::kGtt), 0, &mmap_offset));
    if (HasFlag(flags, MemFlags::kHostAccess)) {
      absl::Status mapped = device_->MapBoForCpu(gpu.render_fd, range.base.ToPointer(), size, PROT_READ | PROT_WRITE,
                                                 mmap_offset);
      if (!mapped.ok()) {
        kfd_uapi::FreeMemoryOfGpuArgs free_args{handle};
        (void)Ioctl(*device_, kfd_uapi::kFreeMemoryOfGpu, free_args);
        return mapped;
      }
    }
  }
  std::move(release).Cancel();
  ScopedLock lock(&mu_);
  allocations_.emplace(range.base.raw(), Allocation{range, node.id, gpu.gpu_id, handle, flags, false, {}});
  return range.base;
}

absl::StatusOr<DeviceAddress> Kfd::AllocOnDevice(const Gpu& gpu, Bytes size, MemFlags flags, Bytes alignment) {
  ASSIGN_OR_RETURN(AddressRange range, aperture_->Reserve(size, alignment));
  absl::Cleanup release = [&] { aperture_->Release(range); };
  AllocMemFlags ioc = CommonIocFlags(flags, disable_cache_) | AllocMemFlags::kVram;
  const bool host_access = HasFlag(flags, MemFlags::kHostAccess);
  if (host_access) ioc |= AllocMemFlags::kPublic;
  if (HasFlag(flags, MemFlags::kExtendedCoherent)) ioc |= AllocMemFlags::kExtCoherent;
  if (HasFlag(flags, MemFlags::kContiguous)) ioc |= AllocMemFlags::kContiguousBestEffort;
  uint64_t mmap_offset = 0;
  ASSIGN_OR_RETURN(uint64_t handle, AllocBo(gpu, range, ToRaw(ioc), 0, &mmap_offset));
  // fmm_map_to_cpu: the BO always goes in place of the reservation; PROT_NONE unless host-visible,
  // so a CPU touch of private VRAM faults as it does without large BAR.
  absl::Status mapped = device_->MapBoForCpu(gpu.render_fd, range.base.ToPointer(), size,
                                             host_access ? PROT_READ | PROT_WRITE : PROT_NONE, mmap_offset);
  if (!mapped.ok()) {
    kfd_uapi::FreeMemoryOfGpuArgs free_args{handle};
    (void)Ioctl(*device_, kfd_uapi::kFreeMemoryOfGpu, free_args);
    return mapped;
  }
  std::move(release).Cancel();
  ScopedLock lock(&mu_);
  allocations_.emplace(range.base.raw(), Allocation{range, gpu.node, gpu.gpu_id, handle, flags, true, {}});
  return range.base;
}

absl::Status Kfd::FreeLocked(Allocation& allocation) {
  kfd_uapi::FreeMemoryOfGpuArgs args{allocation.handle};
  // libhsakmt reports any failed FREE ioctl as HSAKMT_STATUS_ERROR; the kernel keeps the handle,
  // so the VA stays reserved too.
  RETURN_IF_ERROR(WithHsakmtStatus(Ioctl(*device_, kfd_uapi::kFreeMemoryOfGpu, args), HSAKMT_STATUS_ERROR));
  aperture_->Release(allocation.range);
  return absl::OkStatus();
}

absl::Status Kfd::ReleaseRegistrationLocked(Allocation& allocation) {
  if (--allocation.user->registrations > 0) return absl::OkStatus();
  if (absl::Status freed = FreeLocked(allocation); !freed.ok()) {
    ++allocation.user->registrations;
    return freed;
  }
  auto [first, last] = user_ranges_.equal_range(allocation.user->cpu.raw());
  for (auto it = first; it != last; ++it) {
    if (it->second == allocation.range.base.raw()) {
      user_ranges_.erase(it);
      break;
    }
  }
  allocations_.erase(allocation.range.base.raw());
  return absl::OkStatus();
}

absl::Status Kfd::FreeMemory(DeviceAddress address) {
  const auto context = [&] { return absl::StrCat("hsaKmtFreeMemory(0x", absl::Hex(address.raw()), ")"); };
  if (address.raw() == 0) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context(), ": null address")), HSAKMT_STATUS_ERROR);
  }
  ScopedLock lock(&mu_);
  Allocation* allocation = FindLocked(address, Bytes(0));
  // Upstream answers SUCCESS here when the SVM API is on, since the address may be an SVM range;
  // this thunk has no SVM ranges, so it answers what libhsakmt does without SVM.
  if (allocation == nullptr) return MemoryNotRegisteredError(absl::StrCat(context(), ": not an allocation"));
  // A registration's last release erases the allocation itself.
  const bool registered = allocation->user.has_value();
  const absl::Status freed = registered ? ReleaseRegistrationLocked(*allocation) : FreeLocked(*allocation);
  if (!freed.ok()) return Annotate(freed, context());
  if (!registered) allocations_.erase(allocation->range.base.raw());
  return absl::OkStatus();
}

absl::Status Kfd::MapMemoryToGpu(DeviceAddress address, std::span<const NodeId> nodes, Bytes size) {
  const auto context = [&] { return absl::StrCat("hsaKmtMapMemoryToGPUNodes(0x", absl::Hex(address.raw()), ")"); };
  ScopedLock lock(&mu_);
  Allocation* found = FindLocked(address, size);
  if (found == nullptr) return InvalidHandleError(absl::StrCat(context(), ": not an allocation"));
  Allocation& allocation = *found;
  // _fmm_map_to_gpu: a registration keeps the nodes of its first map; later maps only count.
  if (allocation.user.has_value() && allocation.user->mappings > 0) {
    ++allocation.user->mappings;
    return absl::OkStatus();
  }
  GpuIdList gpu_ids;
  if (!nodes.empty()) {
    ASSIGN_OR_RETURN(gpu_ids, GpuIdsOfNodes(nodes, context()));
  } else if (!allocation.registered_gpus.empty()) {
    for (GpuId id : allocation.registered_gpus) gpu_ids.push_back(id.raw());
  } else if (allocation.is_vram) {
    // libhsakmt's usable_peer_id_array: the owner, then every GPU with an io_link to the owner's node.
    gpu_ids.push_back(allocation.owner_gpu.raw());
    for (const Gpu& gpu : gpus_) {
      const std::vector<IoLink>& links = topology_.nodes[gpu.node.raw()].io_links;
      if (gpu.gpu_id != allocation.owner_gpu &&
          std::any_of(links.begin(), links.end(), [&](const IoLink& l) { return l.node_to == allocation.node; })) {
        gpu_ids.push_back(gpu.gpu_id.raw());
      }
    }
  } else {
    for (const Gpu& gpu : gpus_) gpu_ids.push_back(gpu.gpu_id.raw());
  }
  kfd_uapi::MapMemoryToGpuArgs args{};
  args.handle = allocation.handle;
  args.device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids.data());
  args.n_devices = static_cast<uint32_t>(gpu_ids.size());
  if (absl::Status mapped = Ioctl(*device_, kfd_uapi::kMapMemoryToGpu, args); !mapped.ok()) {
    return WithHsakmtStatus(Annotate(mapped, context()), HSAKMT_STATUS_ERROR);
  }
  for (uint32_t id : gpu_ids) {
    if (std::find(allocation.mapped_gpus.begin(), allocation.mapped_gpus.end(), GpuId(id)) ==
        allocation.mapped_gpus.end()) {
      allocation.mapped_gpus.push_back(GpuId(id));
    }
  }
  if (allocation.user.has_value()) allocation.user->mappings = 1;
  return absl::OkStatus();
}

absl::Status Kfd::UnmapLocked(Allocation& allocation) {
  if (allocation.mapped_gpus.empty()) return absl::OkStatus();
  GpuIdList gpu_ids;
  for (GpuId id : allocation.mapped_gpus) gpu_ids.push_back(id.raw());
  kfd_uapi::UnmapMemoryFromGpuArgs args{};
  args.handle = allocation.handle;
  args.device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids.data());
  args.n_devices = static_cast<uint32_t>(gpu_ids.size());
  RETURN_IF_ERROR(WithHsakmtStatus(Ioctl(*device_, kfd_uapi::kUnmapMemoryFromGpu, args), HSAKMT_STATUS_ERROR));
  allocation.mapped_gpus.clear();
  return absl::OkStatus();
}

absl::Status Kfd::UnmapMemoryFromGpu(DeviceAddress address) {
  const auto context = [&] { return absl::StrCat("hsaKmtUnmapMemoryToGPU(0x", absl::Hex(address.raw()), ")"); };
  ScopedLock lock(&mu_);
  Allocation* allocation = FindLocked(address, Bytes(0));
  if (allocation == nullptr) return InvalidHandleError(absl::StrCat(context(), ": not an allocation"));
  if (allocation->user.has_value() && allocation->user->mappings > 1) {
    --allocation->user->mappings;
    return absl::OkStatus();
  }
  if (absl::Status unmapped = UnmapLocked(*allocation); !unmapped.ok()) return Annotate(unmapped, context());
  if (allocation->user.has_value()) allocation->user->mappings = 0;
  return absl::OkStatus();
}

std::optional<DeviceAddress> Kfd::GpuAddressOf(DeviceAddress address, Bytes size) const {
  ScopedLock lock(&mu_);
  const Allocation* a = FindLocked(address, size);
  if (a == nullptr) return std::nullopt;
  if (!a->user.has_value()) return a->range.base;
  return a->range.base + Bytes(a->user->cpu.raw() % kPageSize.raw());
}

absl::StatusOr<DeviceAddress> Kfd::RegisterMemory(void* address, Bytes size, std::span<const NodeId> nodes,
                                                  MemFlags flags) {
  const DeviceAddress cpu = DeviceAddress::FromPointer(address);
  const std::string context =
      absl::StrCat("hsaKmtRegisterMemory(", AddressText(cpu), ", size=", size.raw(), ", nodes=", nodes.size(), ")");
  const bool coarse = HasFlag(flags, MemFlags::kCoarseGrain);
  const bool ext_coherent = HasFlag(flags, MemFlags::kExtendedCoherent);
  if (coarse && ext_coherent) {
    return InvalidParameter(absl::StrCat(context, ": CoarseGrain and ExtendedCoherent exclude each other"));
  }
  if (!HasFlag(flags, MemFlags::kHostAccess) || HasFlag(flags, MemFlags::kNonPaged)) {
    return WithHsakmtStatus(
        absl::UnimplementedError(absl::StrCat(context, ": only pageable host memory (HostAccess, not NonPaged)")),
        HSAKMT_STATUS_NOT_SUPPORTED);
  }
  ASSIGN_OR_RETURN(const GpuIdList gpu_ids, GpuIdsOfNodes(nodes, context));
  // libhsakmt has no check of its own here: the kernel refuses a null userptr or a zero size, and it reports
  // HSAKMT_STATUS_ERROR for that.
  const Bytes page_offset(cpu.raw() % kPageSize.raw());
  const std::optional<Bytes> end_in_page = CheckedAdd(page_offset, size);
  const std::optional<Bytes> aligned_size = end_in_page ? AlignUp(*end_in_page, kPageSize) : std::nullopt;
  if (address == nullptr || size.is_zero() || !aligned_size.has_value()) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context, ": null pointer, zero size or wraps")),
                            HSAKMT_STATUS_ERROR);
  }
  std::vector<GpuId> registered;
  for (uint32_t id : gpu_ids) registered.emplace_back(id);

  ScopedLock lock(&mu_);
  if (Allocation* existing = FindLocked(cpu, size); existing != nullptr) {
    // hsakmt_fmm_register_memory: registering memory that is not a userptr is refused.
    if (!existing->user.has_value()) {
      return InvalidHandleError(absl::StrCat(context, ": memory this process allocated, not user memory"));
    }
    // Multiple registration is allowed, changing the nodes is not. Deliberate: upstream counts the registration
    // before refusing it, so the refused call also needs a deregistration; here it does not count.
    if (!registered.empty() && !existing->registered_gpus.empty() && registered != existing->registered_gpus) {
      return absl::AlreadyExistsError(absl::StrCat(context, ": already registered to other nodes"));
    }
    if (existing->registered_gpus.empty()) existing->registered_gpus = std::move(registered);
    ++existing->user->registrations;
    return existing->range.base + Bytes(existing->user->cpu.raw() % kPageSize.raw());
  }
  // fmm_register_user_memory: the USERPTR BO belongs to the first GPU; any GPU may map it.
  if (gpus_.empty()) {
    return WithHsakmtStatus(absl::FailedPreconditionError(absl::StrCat(context, ": no GPU")), HSAKMT_STATUS_ERROR);
  }
  const Gpu& gpu = gpus_.front();
  absl::StatusOr<AddressRange> range = aperture_->Reserve(*aligned_size, Bytes(0));
  if (!range.ok()) return WithHsakmtStatus(Annotate(range.status(), context), HSAKMT_STATUS_ERROR);
  absl::Cleanup release = [&] { aperture_->Release(*range); };
  AllocMemFlags ioc = AllocMemFlags::kUserptr | AllocMemFlags::kWritable | AllocMemFlags::kExecutable |
                      AllocMemFlags::kNoSubstitute;
  if (!coarse) ioc |= AllocMemFlags::kCoherent;
  if (ext_coherent) ioc |= AllocMemFlags::kExtCoherent;
  uint64_t mmap_offset = 0;
  absl::StatusOr<uint64_t> handle = AllocBo(gpu, *range, ToRaw(ioc), (cpu - page_offset).raw(), &mmap_offset);
  if (!handle.ok()) return WithHsakmtStatus(Annotate(handle.status(), context), HSAKMT_STATUS_ERROR);
  std::move(release).Cancel();
  // What QueryPointerInfo reports, as fmm_translate_ioc_to_hsa_flags derives it from the BO's flags.
  MemFlags stored = MemFlags::kNone;
  if (coarse) stored = stored | MemFlags::kCoarseGrain;
  if (ext_coherent) stored = stored | MemFlags::kExtendedCoherent;
  Allocation allocation{*range, gpu.node, gpu.gpu_id, *handle, stored, false, {}};
  allocation.user = Allocation::UserRange{cpu, size, 1, 0};
  allocation.registered_gpus = std::move(registered);
  allocations_.emplace(range->base.raw(), std::move(allocation));
  user_ranges_.emplace(cpu.raw(), range->base.raw());
  return range->base + page_offset;
}

absl::Status Kfd::DeregisterMemory(const void* address) {
  const DeviceAddress at = DeviceAddress::FromPointer(address);
  const std::string context = absl::StrCat("hsaKmtDeregisterMemory(", AddressText(at), ")");
  ScopedLock lock(&mu_);
  Allocation* allocation = FindLocked(at, Bytes(0));
  // Upstream answers SUCCESS for unknown memory when the SVM API is on; without it, MEMORY_NOT_REGISTERED, also
  // for an allocation that was never registered to nodes (which registering can no longer do).
  if (allocation == nullptr || !allocation->user.has_value()) {
    return MemoryNotRegisteredError(absl::StrCat(context, ": not registered"));
  }
  return Annotate(ReleaseRegistrationLocked(*allocation), context);
}

PointerInfo Kfd::QueryPointerInfo(const void* pointer) const {
  ScopedLock lock(&mu_);
  const Allocation* a = FindContainingLocked(DeviceAddress::FromPointer(pointer));
  PointerInfo info;
  if (a == nullptr) return info;
  info.node = a->node;
  info.flags = a->flags;
  if (a->user.has_value()) {
    info.type = PointerType::kRegisteredUser;
    info.cpu_address = a->user->cpu;
    info.gpu_address = a->range.base + Bytes(a->user->cpu.raw() % kPageSize.raw());
    info.size = a->user->size;
  } else {
    info.type = PointerType::kAllocated;
    info.cpu_address = a->range.base;
    info.gpu_address = a->range.base;
    info.size = a->range.size;
  }
  info.registered_nodes = NodesOfGpus(a->registered_gpus);
  info.mapped_nodes = NodesOfGpus(a->mapped_gpus);
  info.user_data = a->user_data;
  return info;
}

absl::Status Kfd::SetMemoryUserData(const void* pointer, void* user_data) {
  const DeviceAddress at = DeviceAddress::FromPointer(pointer);
  ScopedLock lock(&mu_);
  Allocation* allocation = FindLocked(at, Bytes(0));
  if (allocation == nullptr) {
    return WithHsakmtStatus(
        absl::NotFoundError(absl::StrCat("hsaKmtSetMemoryUserData(", AddressText(at), "): no allocation starts here")),
        HSAKMT_STATUS_ERROR);
  }
  allocation->user_data = user_data;
  return absl::OkStatus();
}

absl::StatusOr<Bytes> Kfd::AvailableMemory(NodeId node) {
  const Gpu* gpu = GpuOfNode(node);
  if (gpu == nullptr) return InvalidNodeUnitError(absl::StrCat("hsaKmtAvailableMemory(node=", node.raw(), "): not a GPU node"));
  kfd_uapi::GetAvailableMemoryArgs args{};
  args.gpu_id = gpu->gpu_id.raw();
  RETURN_IF_ERROR(WithHsakmtStatus(Ioctl(*device_, kfd_uapi::kAvailableMemory, args), HSAKMT_STATUS_ERROR));
  return Bytes(args.available);
}

std::optional<Kfd::AllocationInfo> Kfd::FindAllocation(DeviceAddress address) const {
  ScopedLock lock(&mu_);
  const Allocation* a = FindContainingLocked(address);
  if (a == nullptr) return std::nullopt;
  return AllocationInfo{a->range, a->node, a->flags, a->is_vram, a->mapped_gpus};
}

absl::StatusOr<Kfd::EventPage> Kfd::AllocEventPage() {
  // libhsakmt: hsakmt_allocate_exec_aligned_memory_gpu(KFD_SIGNAL_EVENT_LIMIT * 8, PAGE_SIZE, node 0,
  // NonPaged, !DeviceLocal, Uncached), i.e. pinned host-visible system memory (a GTT BO), then
  // hsaKmtMapMemoryToGPU to every GPU.
  const Bytes size(uint64_t{kfd_uapi::kSignalEventLimit} * sizeof(uint64_t));
  const MemFlags flags = MemFlags::kNonPaged | MemFlags::kHostAccess | MemFlags::kExecuteAccess | MemFlags::kUncached;
  ASSIGN_OR_RETURN(const DeviceAddress address, AllocMemory(NodeId(0), size, flags, kPageSize));
  if (absl::Status mapped = MapMemoryToGpu(address); !mapped.ok()) {
    if (absl::Status freed = FreeMemory(address); !freed.ok()) {
      HIPMEM_LOG(kError, "releasing the event page: ", freed.message());
    }
    return mapped;
  }
  ScopedLock lock(&mu_);
  const Allocation& allocation = allocations_.at(address.raw());
  return EventPage{address, allocation.handle,
                   std::span<uint64_t>(static_cast<uint64_t*>(address.ToPointer()), kfd_uapi::kSignalEventLimit)};
}

absl::StatusOr<std::span<uint64_t>> Kfd::CreateEventWithPage(
    absl::FunctionRef<absl::Status(uint64_t event_page_offset)> create_event) {
  ScopedLock lock(&event_mu_);
  // dGPUs: the page is user memory the kernel maps; without a GPU the kernel allocates its own.
  if (!event_page_ && !gpus_.empty()) {
    ASSIGN_OR_RETURN(event_page_, AllocEventPage());
  }
  uint64_t event_page_offset = 0;
  if (event_page_ && !event_page_handed_over_) {
    // As libhsakmt, the page counts as handed over once passed, whatever the kernel answers.
    event_page_offset = event_page_->handle;
    event_page_handed_over_ = true;
    ScopedLock allocations_lock(&mu_);
    allocations_.at(event_page_->address.raw()).kernel_owned = true;
  }
  RETURN_IF_ERROR(create_event(event_page_offset));
  return event_page_ ? event_page_->slots : std::span<uint64_t>();
}

}  // namespace hipmem::thunk
