// Kfd, the memory side (libhsakmt fmm.c and memory.c): allocations in the SVM aperture, registrations of user
// memory, GPU mappings and pointer queries.
#include <sys/mman.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "base/lookup_count.h"
#include "base/scoped_lock.h"
#include "base/status_macros.h"
#include "base/trace.h"
#include "kfd_uapi/kfd_ioctl.h"
#include "thunk/hsakmt_status.h"
#include "thunk/ioctl.h"
#include "thunk/kfd.h"

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

// libhsakmt's vm_find_object(address, size) on the mmap aperture: a registered pointer first (`size` 0 takes the
// only registration at that pointer, otherwise the one of that size), then the BO whose GPU VA starts on
// `address`'s page: an allocation only at its very start, a registration at its GPU address (VA plus the
// registered pointer's page offset).
const Kfd::Allocation* Kfd::FindLocked(DeviceAddress address, Bytes size) const {
  const Allocation* registered = nullptr;
  int matches = 0;
  auto [first, last] = user_ranges_.equal_range(address.raw());
  for (auto it = first; it != last; ++it) {
    const Allocation& a = allocations_.FindStart(DeviceAddress(it->second))->value;
    if (size.is_zero() || a.user->size == size) {
      registered = &a;
      ++matches;
    }
  }
  if (matches == 1) return registered;
  const DeviceAddress page = AlignDown(address, kPageSize);
  const AddressRangeMap<Allocation>::Entry* entry = allocations_.FindStart(page);
  if (entry == nullptr) return nullptr;
  const Allocation& a = entry->value;
  if (!a.user.has_value()) return address == page ? &a : nullptr;
  const bool same_offset = (address - page).raw() == a.user->cpu.raw() % kPageSize.raw();
  return same_offset && (size.is_zero() || size == a.user->size) ? &a : nullptr;
}

// The caller holds mu_ (the declaration says so); clang's analysis cannot tell that std::as_const(*this).mu_
// is this->mu_.
Kfd::Allocation* Kfd::FindLocked(DeviceAddress address, Bytes size) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  return const_cast<Allocation*>(std::as_const(*this).FindLocked(address, size));
}

// libhsakmt's vm_find_object(address, UINT64_MAX): registered CPU ranges first (they may overlap: the one with
// the nearest start wins), then the BO whose GPU VA range holds `address`.
const Kfd::Allocation* Kfd::FindContainingLocked(DeviceAddress address) const {
  for (auto it = user_ranges_.upper_bound(address.raw()); it != user_ranges_.begin();) {
    --it;
    const Allocation& a = allocations_.FindStart(DeviceAddress(it->second))->value;
    if (AddressRange{a.user->cpu, a.user->size}.Contains(address)) return &a;
  }
  const AddressRangeMap<Allocation>::Entry* entry = allocations_.Find(address);
  return entry == nullptr ? nullptr : &entry->value;
}

absl::StatusOr<KfdAllocation> Kfd::AllocMemory(NodeId node_id, Bytes size, MemFlags flags, Bytes alignment,
                                               std::optional<DeviceAddress> fixed) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtAllocMemory");
  // Built only for an error: formatting it costs as much as the rest of a small allocation's bookkeeping.
  const auto context = [&] { return NodeContext("hsaKmtAllocMemory", node_id, size, flags); };
  ASSIGN_OR_RETURN(const NodeProperties* node, Node(node_id));
  if (!alignment.is_zero() && (alignment < kPageSize || !IsPowerOfTwo(alignment))) {
    return InvalidParameter(absl::StrCat(context(), ": alignment ", alignment.raw(), " is not a power of two >= 4 KiB"));
  }
  if (size.is_zero() || !IsAligned(size, kPageSize)) {
    return InvalidParameter(absl::StrCat(context(), ": size must be a non-zero multiple of 4 KiB"));
  }
  // hsaKmtAllocMemoryAlign: FixedAddress needs an address; without the flag the address is an output only.
  if (HasFlag(flags, MemFlags::kFixedAddress)) {
    if (!fixed.has_value() || fixed->raw() == 0) {
      return InvalidParameter(absl::StrCat(context(), ": FixedAddress without an address"));
    }
  } else {
    fixed.reset();
  }
  const bool coarse = HasFlag(flags, MemFlags::kCoarseGrain);
  const bool ext = HasFlag(flags, MemFlags::kExtendedCoherent);
  const bool uncached = HasFlag(flags, MemFlags::kUncached);
  if ((coarse && ext) || (coarse && uncached) || (ext && uncached)) {
    return InvalidParameter(absl::StrCat(context(), ": CoarseGrain, ExtendedCoherent and Uncached exclude each other"));
  }
  const Gpu* gpu = GpuOfNode(node_id);
  if (HasFlag(flags, MemFlags::kScratch)) {
    // hsakmt_fmm_allocate_scratch places the range at SCRATCH_ALIGN itself.
    if (!alignment.is_zero()) {
      return WithHsakmtStatus(
          absl::UnimplementedError(absl::StrCat(context(), ": scratch memory takes no alignment")),
          HSAKMT_STATUS_NOT_IMPLEMENTED);
    }
    absl::StatusOr<Allocation> scratch =
        gpu == nullptr ? absl::InvalidArgumentError("not a GPU node") : AllocScratch(*gpu, size, fixed);
    if (!scratch.ok()) return WithHsakmtStatus(Annotate(scratch.status(), context()), HSAKMT_STATUS_NO_MEMORY);
    return KfdAllocation(this, Insert(*std::move(scratch)), size);
  }
  // libhsakmt's host path: CPU nodes, pageable memory, and GTT requests.
  if (gpu == nullptr || !HasFlag(flags, MemFlags::kNonPaged) || HasFlag(flags, MemFlags::kGttAccess)) {
    absl::StatusOr<Allocation> allocation = AllocOnHost(*node, size, flags, alignment, fixed);
    if (!allocation.ok()) return WithHsakmtStatus(Annotate(allocation.status(), context()), HSAKMT_STATUS_ERROR);
    return KfdAllocation(this, Insert(*std::move(allocation)), size);
  }
  if (HasFlag(flags, MemFlags::kOnlyAddress) && HasFlag(flags, MemFlags::kNoAddress)) {
    return InvalidParameter(absl::StrCat(context(), ": OnlyAddress and NoAddress exclude each other"));
  }
  absl::StatusOr<Allocation> allocation = AllocOnDevice(*gpu, size, flags, alignment, fixed);
  if (!allocation.ok()) return WithHsakmtStatus(Annotate(allocation.status(), context()), HSAKMT_STATUS_NO_MEMORY);
  return KfdAllocation(this, Insert(*std::move(allocation)), size);
}

KfdAllocation::KfdAllocation(KfdAllocation&& other) noexcept
    : kfd_(std::exchange(other.kfd_, nullptr)), address_(other.address_), size_(other.size_) {}

KfdAllocation& KfdAllocation::operator=(KfdAllocation&& other) noexcept {
  if (this != &other) {
    KfdAllocation old(std::move(*this));  // frees what this held when it goes
    kfd_ = std::exchange(other.kfd_, nullptr);
    address_ = other.address_;
    size_ = other.size_;
  }
  return *this;
}

KfdAllocation::~KfdAllocation() {
  if (kfd_ == nullptr) return;
  if (absl::Status s = kfd_->FreeMemory(address_); !s.ok()) HIPMEM_LOG(kError, "freeing an allocation: ", s.message());
}

DeviceAddress KfdAllocation::Release() && {
  kfd_ = nullptr;
  return address_;
}

absl::Status KfdAllocation::Free() && {
  Kfd* kfd = std::exchange(kfd_, nullptr);
  if (kfd == nullptr) return absl::FailedPreconditionError("KfdAllocation::Free: nothing owned");
  return kfd->FreeMemory(address_);
}

DeviceAddress Kfd::Insert(Allocation allocation) {
  const DeviceAddress start = allocation.range().base;
  const bool scratch = allocation.kind == Kind::kScratch;
  const AddressRange range = allocation.range();
  ScopedLock lock(&mu_);
  // The VA came from this process's apertures, which never hand out a range twice.
  const absl::Status inserted = allocations_.Insert(range, std::move(allocation));
  HIPMEM_CHECK(inserted.ok(), inserted.message());
  if (scratch) scratch_starts_.push_back(start.raw());
  return start;
}

void Kfd::EraseLocked(const Allocation& allocation) {
  const uint64_t start = allocation.range().base.raw();
  if (allocation.kind == Kind::kScratch) {
    scratch_starts_.erase(std::remove(scratch_starts_.begin(), scratch_starts_.end(), start), scratch_starts_.end());
  }
  allocations_.Erase(DeviceAddress(start));
}

absl::Status Kfd::MapBoForCpu(const Gpu& gpu, void* addr, Bytes size, int prot, uint64_t mmap_offset) {
  RETURN_IF_ERROR(device_->MapBoForCpu(gpu.render_fd, addr, size, prot, mmap_offset));
  return KeepFromForkedChildren(AddressRange{DeviceAddress::FromPointer(addr), size});
}

absl::StatusOr<KfdBuffer::Allocated> Kfd::AllocBo(const Gpu& gpu, DeviceAddress va, Bytes size, uint32_t ioc_flags,
                                                  uint64_t mmap_offset_in) {
  return KfdBuffer::Allocate(*device_, gpu.gpu_id, va, size, ioc_flags, mmap_offset_in);
}

absl::StatusOr<VaReservation> Kfd::ReserveVa(Bytes size, Bytes alignment, std::optional<DeviceAddress> fixed) {
  if (fixed.has_value()) return aperture_->AllocateAt(*fixed, size);
  return aperture_->Allocate(size, alignment);
}

absl::StatusOr<Kfd::Allocation> Kfd::AllocOnHost(const NodeProperties& node, Bytes size, MemFlags flags,
                                                 Bytes alignment, std::optional<DeviceAddress> fixed) {
  // System memory on a dGPU is a BO of the first GPU (libhsakmt's g_first_gpu_mem); every GPU may
  // map it later.
  if (gpus_.empty()) return absl::UnimplementedError("system memory without a GPU (APU path) is not supported");
  const Gpu& gpu = gpus_.front();
  ASSIGN_OR_RETURN(VaReservation va, ReserveVa(size, alignment, fixed));
  Allocation allocation{.va = std::move(va), .bo = std::nullopt};
  allocation.node = node.id;
  allocation.owner_gpu = gpu.gpu_id;
  allocation.flags = flags;
  // fmm_allocate_host_gpu: OnlyAddress takes the VA and nothing else, whatever the other flags say.
  if (HasFlag(flags, MemFlags::kOnlyAddress)) {
    allocation.kind = Kind::kAddressOnly;
    allocation.node = NodeId(0);  // fmm_allocate_va records node 0
    return allocation;
  }
  const AddressRange range = allocation.range();
  AllocMemFlags ioc = CommonIocFlags(flags, disable_cache_);
  if (!HasFlag(flags, MemFlags::kNonPaged)) {
    // HSA_USERPTR_FOR_PAGED_MEM (default on): ordinary anonymous memory, registered with the kernel.
    RETURN_IF_ERROR(aperture_->CommitAnonymous(range));
    ASSIGN_OR_RETURN(KfdBuffer::Allocated bo,
                     AllocBo(gpu, range.base, size, ToRaw(ioc | AllocMemFlags::kUserptr), range.base.raw()));
    allocation.bo = std::move(bo.buffer);
  } else {
    ASSIGN_OR_RETURN(KfdBuffer::Allocated bo, AllocBo(gpu, range.base, size, ToRaw(ioc | AllocMemFlags::kGtt), 0));
    allocation.bo = std::move(bo.buffer);
    if (HasFlag(flags, MemFlags::kHostAccess)) {
      RETURN_IF_ERROR(MapBoForCpu(gpu, range.base.ToPointer(), size, PROT_READ | PROT_WRITE, bo.mmap_offset));
      if (device_->FreedBoCpuMappingMayStay()) allocation.va.MarkRevocableMapping();
    }
  }
  return allocation;
}

absl::StatusOr<Kfd::Allocation> Kfd::AllocOnDevice(const Gpu& gpu, Bytes size, MemFlags flags, Bytes alignment,
                                                   std::optional<DeviceAddress> fixed) {
  const bool no_address = HasFlag(flags, MemFlags::kNoAddress);
  // NoAddress: the buffer's name comes from the handle aperture, and the kernel gets no VA (va_addr 0).
  // Deliberate: a fixed address means nothing for a buffer without a VA, so it is ignored there, as the handle
  // aperture is never CPU-mapped.
  absl::StatusOr<VaReservation> reserved =
      no_address ? handle_aperture_->Allocate(size) : ReserveVa(size, alignment, fixed);
  if (!reserved.ok()) return reserved.status();
  Allocation allocation{.va = *std::move(reserved), .bo = std::nullopt};
  allocation.node = gpu.node;
  allocation.owner_gpu = gpu.gpu_id;
  allocation.flags = flags;
  if (HasFlag(flags, MemFlags::kOnlyAddress)) {
    allocation.kind = Kind::kAddressOnly;
    allocation.node = NodeId(0);  // fmm_allocate_va records node 0
    return allocation;
  }
  const AddressRange range = allocation.range();
  AllocMemFlags ioc = CommonIocFlags(flags, disable_cache_) | AllocMemFlags::kVram;
  const bool host_access = HasFlag(flags, MemFlags::kHostAccess);
  if (host_access) ioc |= AllocMemFlags::kPublic;
  if (HasFlag(flags, MemFlags::kExtendedCoherent)) ioc |= AllocMemFlags::kExtCoherent;
  if (HasFlag(flags, MemFlags::kContiguous)) ioc |= AllocMemFlags::kContiguousBestEffort;
  ASSIGN_OR_RETURN(KfdBuffer::Allocated bo,
                   AllocBo(gpu, no_address ? DeviceAddress(0) : range.base, size, ToRaw(ioc), 0));
  allocation.bo = std::move(bo.buffer);
  allocation.is_vram = true;
  if (no_address) {
    allocation.kind = Kind::kHandleOnly;
    return allocation;
  }
  // fmm_map_to_cpu: the BO always goes in place of the reservation; PROT_NONE unless host-visible,
  // so a CPU touch of private VRAM faults as it does without large BAR. Where that leaves the SVM reservation as it
  // is (the backend's invisible VRAM "mapping" is PROT_NONE over the range, and the range is PROT_NONE already),
  // the call would change nothing and is skipped, and releasing the range later needs no re-reservation.
  if (!host_access && !fixed.has_value() && device_->InvisibleVramKeepsReservation()) {
    allocation.va.MarkUnchanged();
    return allocation;
  }
  RETURN_IF_ERROR(MapBoForCpu(gpu, range.base.ToPointer(), size, host_access ? PROT_READ | PROT_WRITE : PROT_NONE,
                              bo.mmap_offset));
  // Where the freed buffer's mapping may stay, releasing the range later only takes its access away.
  if (host_access && device_->FreedBoCpuMappingMayStay()) allocation.va.MarkRevocableMapping();
  return allocation;
}

// hsakmt_fmm_allocate_scratch: one range per GPU, SCRATCH_ALIGN (64 KiB) aligned and sized, in the SVM aperture,
// handed to the kernel with SET_SCRATCH_BACKING_VA. The range has no memory yet; MapMemoryToGpu backs parts of it
// with VRAM.
absl::StatusOr<Kfd::Allocation> Kfd::AllocScratch(const Gpu& gpu, Bytes size, std::optional<DeviceAddress> fixed) {
  constexpr Bytes kScratchAlign = Bytes::KiB(64);
  const std::optional<Bytes> aligned = AlignUp(size, kScratchAlign);
  if (!aligned.has_value()) return absl::InvalidArgumentError("scratch size overflows");
  {
    ScopedLock lock(&mu_);
    for (uint64_t start : scratch_starts_) {
      if (allocations_.FindStart(DeviceAddress(start))->value.owner_gpu == gpu.gpu_id) {
        return absl::AlreadyExistsError(absl::StrCat("scratch of gpu_id ", gpu.gpu_id.raw(), " is allocated already"));
      }
    }
  }
  if (fixed.has_value() && !IsAligned(*fixed, kScratchAlign)) {
    return absl::InvalidArgumentError("a fixed scratch address must be 64 KiB aligned");
  }
  ASSIGN_OR_RETURN(VaReservation va, ReserveVa(*aligned, kScratchAlign, fixed));
  // Program SH_HIDDEN_PRIVATE_BASE: the kernel takes the range's address in 64 KiB units. Refused, the range goes
  // again (fmm_release_scratch) and the allocation fails.
  kfd_uapi::SetScratchBackingVaArgs args{};
  args.va_addr = va.range().base.raw() >> 16;
  args.gpu_id = gpu.gpu_id.raw();
  RETURN_IF_ERROR(Ioctl(*device_, kfd_uapi::kSetScratchBackingVa, args));
  Allocation allocation{.va = std::move(va), .bo = std::nullopt};
  allocation.kind = Kind::kScratch;
  allocation.node = gpu.node;
  allocation.owner_gpu = gpu.gpu_id;
  allocation.flags = MemFlags::kScratch;
  allocation.is_vram = true;
  return allocation;
}

Kfd::Allocation* Kfd::ScratchContainingLocked(DeviceAddress address) {
  for (uint64_t start : scratch_starts_) {
    Allocation& a = allocations_.FindStart(DeviceAddress(start))->value;
    if (a.range().Contains(address)) return &a;
  }
  return nullptr;
}

absl::Status Kfd::FreeLocked(Allocation& allocation) {
  // libhsakmt reports any failed FREE ioctl as HSAKMT_STATUS_ERROR; the kernel keeps the handle,
  // so the VA stays reserved too (the caller keeps the allocation).
  for (auto it = allocation.scratch_backing.begin(); it != allocation.scratch_backing.end();) {
    RETURN_IF_ERROR(WithHsakmtStatus(std::move(it->second.buffer).Free(), HSAKMT_STATUS_ERROR));
    it = allocation.scratch_backing.erase(it);
  }
  if (allocation.bo.has_value()) {
    RETURN_IF_ERROR(WithHsakmtStatus(std::move(*allocation.bo).Free(), HSAKMT_STATUS_ERROR));
  }
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
    if (it->second == allocation.range().base.raw()) {
      user_ranges_.erase(it);
      break;
    }
  }
  EraseLocked(allocation);
  return absl::OkStatus();
}

absl::Status Kfd::FreeMemory(DeviceAddress address) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtFreeMemory");
  const auto context = [&] { return absl::StrCat("hsaKmtFreeMemory(0x", absl::Hex(address.raw()), ")"); };
  if (address.raw() == 0) {
    return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context(), ": null address")), HSAKMT_STATUS_ERROR);
  }
  ScopedLock lock(&mu_);
  // hsakmt_fmm_release: any address in a scratch range frees the whole range.
  Allocation* allocation = ScratchContainingLocked(address);
  if (allocation == nullptr) allocation = FindLocked(address, Bytes(0));
  // hsakmt_fmm_release: an address of no allocation may be an SVM range the caller manages itself, so with the
  // SVM API on it answers SUCCESS and frees nothing; without it, MEMORY_NOT_REGISTERED.
  if (allocation == nullptr) {
    if (svm_api_supported()) return absl::OkStatus();
    return MemoryNotRegisteredError(absl::StrCat(context(), ": not an allocation"));
  }
  // A registration's last release erases the allocation itself.
  if (allocation->user.has_value()) {
    absl::Status released = ReleaseRegistrationLocked(*allocation);
    return released.ok() ? released : Annotate(released, context());
  }
  if (absl::Status freed = FreeLocked(*allocation); !freed.ok()) return Annotate(freed, context());
  // The VA goes with the record (VaReservation).
  EraseLocked(*allocation);
  return absl::OkStatus();
}

// The gpu_ids a map without nodes maps to (_fmm_map_to_gpu): the registered nodes, else, for memory whose node is a
// GPU's (VRAM, an IPC import), its usable_peer_id_array (the owner, then every GPU with an io_link to the owner's
// node), else every GPU.
Kfd::GpuIdList Kfd::DefaultMapSet(const Allocation& allocation) const {
  GpuIdList gpu_ids;
  if (!allocation.registered_gpus.empty()) {
    for (GpuId id : allocation.registered_gpus) gpu_ids.push_back(id.raw());
  } else if (allocation.is_vram || allocation.shared_import) {
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
  return gpu_ids;
}

absl::Status Kfd::MapLocked(Allocation& allocation, const GpuIdList& gpu_ids) {
  if (gpu_ids.empty()) return absl::OkStatus();
  kfd_uapi::MapMemoryToGpuArgs args{};
  args.handle = allocation.handle()->raw();
  args.device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids.data());
  args.n_devices = static_cast<uint32_t>(gpu_ids.size());
  RETURN_IF_ERROR(WithHsakmtStatus(Ioctl(*device_, kfd_uapi::kMapMemoryToGpu, args), HSAKMT_STATUS_ERROR));
  for (uint32_t id : gpu_ids) {
    if (std::find(allocation.mapped_gpus.begin(), allocation.mapped_gpus.end(), GpuId(id)) ==
        allocation.mapped_gpus.end()) {
      allocation.mapped_gpus.push_back(GpuId(id));
    }
  }
  return absl::OkStatus();
}

absl::Status Kfd::UnmapLocked(Allocation& allocation, const GpuIdList& gpu_ids) {
  if (gpu_ids.empty()) return absl::OkStatus();
  kfd_uapi::UnmapMemoryFromGpuArgs args{};
  args.handle = allocation.handle()->raw();
  args.device_ids_array_ptr = reinterpret_cast<uintptr_t>(gpu_ids.data());
  args.n_devices = static_cast<uint32_t>(gpu_ids.size());
  RETURN_IF_ERROR(WithHsakmtStatus(Ioctl(*device_, kfd_uapi::kUnmapMemoryFromGpu, args), HSAKMT_STATUS_ERROR));
  std::erase_if(allocation.mapped_gpus, [&](GpuId id) {
    return std::find(gpu_ids.begin(), gpu_ids.end(), id.raw()) != gpu_ids.end();
  });
  return absl::OkStatus();
}

absl::Status Kfd::MapMemoryToGpu(DeviceAddress address, std::span<const NodeId> nodes, Bytes size) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtMapMemoryToGPUNodes");
  const auto context = [&] { return absl::StrCat("hsaKmtMapMemoryToGPUNodes(0x", absl::Hex(address.raw()), ")"); };
  // The context is formatted only for a failure: doing it every time costs as much as the map's bookkeeping.
  const auto annotate = [&](absl::Status s) { return s.ok() ? s : Annotate(s, context()); };
  ScopedLock lock(&mu_);
  // hsakmt_fmm_map_to_gpu: an address in a scratch range backs [address, address + size) with VRAM of its GPU.
  if (Allocation* scratch = ScratchContainingLocked(address); scratch != nullptr) {
    return annotate(MapScratchLocked(*scratch, address, size));
  }
  Allocation* found = FindLocked(address, size);
  if (found == nullptr) return InvalidHandleError(absl::StrCat(context(), ": not an allocation"));
  Allocation& allocation = *found;
  // An address reservation has no buffer to map, and a buffer without an address has nowhere to be mapped:
  // libhsakmt answers INVALID_PARAMETER for both (handles[0] == 0, and the mem_handle_aperture).
  if (allocation.kind == Kind::kAddressOnly || allocation.kind == Kind::kHandleOnly) {
    return InvalidParameter(absl::StrCat(context(), allocation.kind == Kind::kAddressOnly
                                                        ? ": an address reservation (OnlyAddress) has no memory"
                                                        : ": a buffer without an address (NoAddress)"));
  }
  // _fmm_map_to_gpu: a registration keeps the nodes of its first map; later maps only count.
  if (allocation.user.has_value() && allocation.user->mappings > 0) {
    ++allocation.user->mappings;
    return absl::OkStatus();
  }
  GpuIdList wanted;
  if (!nodes.empty()) {
    ASSIGN_OR_RETURN(wanted, GpuIdsOfNodes(nodes, context()));
  }
  // Registered memory keeps add semantics: _fmm_map_to_gpu_userptr maps it as hsaKmtMapMemoryToGPU does.
  if (nodes.empty() || allocation.user.has_value()) {
    RETURN_IF_ERROR(annotate(MapLocked(allocation, nodes.empty() ? DefaultMapSet(allocation) : wanted)));
    if (allocation.user.has_value()) allocation.user->mappings = 1;
    return absl::OkStatus();
  }
  // hsakmt_fmm_map_to_gpu_nodes: `nodes` becomes the set of GPUs that map it. Each must be among the registered
  // nodes (every GPU when none were registered), else HSAKMT_STATUS_ERROR; GPUs mapping it now that are not in the
  // set are unmapped, then the ones not mapping it yet are mapped. The same set again issues no ioctl.
  const auto contains = [](const auto& list, const auto& id) {
    return std::find(list.begin(), list.end(), id) != list.end();
  };
  GpuIdList allowed;
  for (GpuId id : allocation.registered_gpus) allowed.push_back(id.raw());
  if (allowed.empty()) {
    for (const Gpu& gpu : gpus_) allowed.push_back(gpu.gpu_id.raw());
  }
  for (uint32_t id : wanted) {
    if (!contains(allowed, id)) {
      return WithHsakmtStatus(absl::InvalidArgumentError(absl::StrCat(context(), ": gpu_id 0x", absl::Hex(id),
                                                                      " is not among the registered nodes")),
                              HSAKMT_STATUS_ERROR);
    }
  }
  GpuIdList to_unmap;
  for (GpuId id : allocation.mapped_gpus) {
    if (!contains(wanted, id.raw())) to_unmap.push_back(id.raw());
  }
  RETURN_IF_ERROR(annotate(UnmapLocked(allocation, to_unmap)));
  GpuIdList to_map;
  for (uint32_t id : wanted) {
    if (!contains(allocation.mapped_gpus, GpuId(id)) && !contains(to_map, id)) to_map.push_back(id);
  }
  return annotate(MapLocked(allocation, to_map));
}

// _fmm_map_to_gpu_scratch: a VRAM buffer (writable, not host-visible) at [address, address + size), CPU-mapped
// PROT_NONE over the reservation and mapped on the scratch's GPU only.
absl::Status Kfd::MapScratchLocked(Allocation& scratch, DeviceAddress address, Bytes size) {
  const std::optional<DeviceAddress> end = CheckedAdd(address, size);
  if (size.is_zero() || !IsAligned(address, kPageSize) || !IsAligned(size, kPageSize) || !end.has_value() ||
      *end > scratch.range().end()) {
    return InvalidParameter("scratch backing must be page-aligned and inside the scratch range");
  }
  for (const auto& [start, backing] : scratch.scratch_backing) {
    (void)backing;
    if (start == address.raw()) return InvalidParameter("this part of scratch is backed already");
  }
  const Gpu* gpu = nullptr;
  for (const Gpu& g : gpus_) {
    if (g.gpu_id == scratch.owner_gpu) gpu = &g;
  }
  const uint32_t ioc = ToRaw(AllocMemFlags::kVram | AllocMemFlags::kWritable | AllocMemFlags::kNoSubstitute);
  absl::StatusOr<KfdBuffer::Allocated> bo = AllocBo(*gpu, address, size, ioc, 0);
  // _fmm_map_to_gpu_scratch answers INVALID_HANDLE when the buffer cannot be had.
  if (!bo.ok()) return WithHsakmtStatus(bo.status(), HSAKMT_STATUS_INVALID_HANDLE);
  RETURN_IF_ERROR(WithHsakmtStatus(
      MapBoForCpu(*gpu, address.ToPointer(), size, PROT_NONE, bo->mmap_offset), HSAKMT_STATUS_ERROR));
  uint32_t gpu_id = gpu->gpu_id.raw();
  kfd_uapi::MapMemoryToGpuArgs args{};
  args.handle = bo->buffer.handle()->raw();
  args.device_ids_array_ptr = reinterpret_cast<uintptr_t>(&gpu_id);
  args.n_devices = 1;
  if (absl::Status mapped = Ioctl(*device_, kfd_uapi::kMapMemoryToGpu, args); !mapped.ok()) {
    // Freed first (its destructor), then the reservation comes back in place of its CPU mapping.
    { KfdBuffer dropped = std::move(bo->buffer); }
    if (absl::Status s = aperture_->Decommit(AddressRange{address, size}); !s.ok()) {
      HIPMEM_LOG(kError, "restoring the scratch reservation: ", s.message());
    }
    return WithHsakmtStatus(mapped, HSAKMT_STATUS_ERROR);
  }
  scratch.scratch_backing.emplace(address.raw(), Allocation::ScratchBacking{size, std::move(bo->buffer)});
  if (scratch.mapped_gpus.empty()) scratch.mapped_gpus.push_back(gpu->gpu_id);
  return absl::OkStatus();
}

// _fmm_unmap_from_gpu_scratch: frees the backing buffer at `address` (which unmaps it) and puts the reservation
// back in place of its CPU mapping; the scratch range stays.
absl::Status Kfd::UnmapScratchLocked(Allocation& scratch, DeviceAddress address) {
  auto it = scratch.scratch_backing.find(address.raw());
  if (it == scratch.scratch_backing.end()) return absl::OkStatus();  // nothing mapped there: as libhsakmt, success
  RETURN_IF_ERROR(WithHsakmtStatus(std::move(it->second.buffer).Free(), HSAKMT_STATUS_ERROR));
  const AddressRange backed{address, it->second.size};
  scratch.scratch_backing.erase(it);
  if (scratch.scratch_backing.empty()) scratch.mapped_gpus.clear();
  return WithHsakmtStatus(aperture_->Decommit(backed), HSAKMT_STATUS_ERROR);
}

absl::Status Kfd::UnmapMemoryFromGpu(DeviceAddress address) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtUnmapMemoryToGPU");
  const auto context = [&] { return absl::StrCat("hsaKmtUnmapMemoryToGPU(0x", absl::Hex(address.raw()), ")"); };
  // memory.c hsaKmtUnmapMemoryToGPU: a null address succeeds ("workaround for runtime bug") before any lookup.
  if (address.raw() == 0) return absl::OkStatus();
  ScopedLock lock(&mu_);
  if (Allocation* scratch = ScratchContainingLocked(address); scratch != nullptr) {
    absl::Status unmapped = UnmapScratchLocked(*scratch, address);
    return unmapped.ok() ? unmapped : Annotate(unmapped, context());
  }
  Allocation* allocation = FindLocked(address, Bytes(0));
  if (allocation == nullptr) return InvalidHandleError(absl::StrCat(context(), ": not an allocation"));
  // Nothing of these is ever mapped (MapMemoryToGpu refuses them); as for unmapped memory, libhsakmt succeeds.
  if (!allocation->bo.has_value()) return absl::OkStatus();
  if (allocation->user.has_value() && allocation->user->mappings > 1) {
    --allocation->user->mappings;
    return absl::OkStatus();
  }
  GpuIdList mapped;
  for (GpuId id : allocation->mapped_gpus) mapped.push_back(id.raw());
  if (absl::Status unmapped = UnmapLocked(*allocation, mapped); !unmapped.ok()) return Annotate(unmapped, context());
  if (allocation->user.has_value()) allocation->user->mappings = 0;
  return absl::OkStatus();
}

std::optional<DeviceAddress> Kfd::GpuAddressOf(DeviceAddress address, Bytes size) const {
  ScopedLock lock(&mu_);
  const Allocation* a = FindLocked(address, size);
  if (a == nullptr) return std::nullopt;
  if (!a->user.has_value()) return a->range().base;
  return a->range().base + Bytes(a->user->cpu.raw() % kPageSize.raw());
}

absl::StatusOr<KfdRegistration> Kfd::RegisterMemory(void* address, Bytes size, std::span<const NodeId> nodes,
                                                  MemFlags flags) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtRegisterMemoryToNodes");
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
    return KfdRegistration(this, address, existing->range().base + Bytes(existing->user->cpu.raw() % kPageSize.raw()));
  }
  // fmm_register_user_memory: the USERPTR BO belongs to the first GPU; any GPU may map it.
  if (gpus_.empty()) {
    return WithHsakmtStatus(absl::FailedPreconditionError(absl::StrCat(context, ": no GPU")), HSAKMT_STATUS_ERROR);
  }
  const Gpu& gpu = gpus_.front();
  absl::StatusOr<VaReservation> va = aperture_->Allocate(*aligned_size, Bytes(0));
  if (!va.ok()) return WithHsakmtStatus(Annotate(va.status(), context), HSAKMT_STATUS_ERROR);
  const AddressRange range = va->range();
  AllocMemFlags ioc = AllocMemFlags::kUserptr | AllocMemFlags::kWritable | AllocMemFlags::kExecutable |
                      AllocMemFlags::kNoSubstitute;
  if (!coarse) ioc |= AllocMemFlags::kCoherent;
  if (ext_coherent) ioc |= AllocMemFlags::kExtCoherent;
  absl::StatusOr<KfdBuffer::Allocated> bo = AllocBo(gpu, range.base, range.size, ToRaw(ioc), (cpu - page_offset).raw());
  if (!bo.ok()) return WithHsakmtStatus(Annotate(bo.status(), context), HSAKMT_STATUS_ERROR);
  // What QueryPointerInfo reports, as fmm_translate_ioc_to_hsa_flags derives it from the BO's flags.
  MemFlags stored = MemFlags::kNone;
  if (coarse) stored = stored | MemFlags::kCoarseGrain;
  if (ext_coherent) stored = stored | MemFlags::kExtendedCoherent;
  Allocation allocation{.va = *std::move(va), .bo = std::move(bo->buffer)};
  allocation.node = gpu.node;
  allocation.owner_gpu = gpu.gpu_id;
  allocation.flags = stored;
  allocation.user = Allocation::UserRange{cpu, size, 1, 0};
  allocation.registered_gpus = std::move(registered);
  const absl::Status inserted = allocations_.Insert(range, std::move(allocation));
  HIPMEM_CHECK(inserted.ok(), inserted.message());
  user_ranges_.emplace(cpu.raw(), range.base.raw());
  return KfdRegistration(this, address, range.base + page_offset);
}

absl::Status Kfd::DeregisterMemory(const void* address) {
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtDeregisterMemory");
  const DeviceAddress at = DeviceAddress::FromPointer(address);
  const std::string context = absl::StrCat("hsaKmtDeregisterMemory(", AddressText(at), ")");
  ScopedLock lock(&mu_);
  Allocation* allocation = FindLocked(at, Bytes(0));
  // Upstream answers SUCCESS for unknown memory when the SVM API is on; without it, MEMORY_NOT_REGISTERED, also
  // for an allocation that was never registered to nodes (which registering can no longer do).
  if (allocation != nullptr && (allocation->imported || allocation->shared_import)) {
    // fmm_deregister_memory: deregistering an imported graphics buffer or an IPC import releases it.
    if (absl::Status freed = FreeLocked(*allocation); !freed.ok()) return Annotate(freed, context);
    EraseLocked(*allocation);
    return absl::OkStatus();
  }
  if (allocation == nullptr || !allocation->user.has_value()) {
    return MemoryNotRegisteredError(absl::StrCat(context, ": not registered"));
  }
  return Annotate(ReleaseRegistrationLocked(*allocation), context);
}

PointerInfo Kfd::QueryPointerInfo(const void* pointer) const {
  CountAddressLookup();
  ScopedLock lock(&mu_);
  const Allocation* a = FindContainingLocked(DeviceAddress::FromPointer(pointer));
  PointerInfo info;
  if (a == nullptr) return info;
  info.node = a->node;
  info.flags = a->flags;
  if (a->user.has_value()) {
    info.type = PointerType::kRegisteredUser;
    info.cpu_address = a->user->cpu;
    info.gpu_address = a->range().base + Bytes(a->user->cpu.raw() % kPageSize.raw());
    info.size = a->user->size;
  } else if (a->shared_import) {
    // hsakmt_fmm_get_mem_info: an imported KFD BO is REGISTERED_SHARED, with a GPU address only.
    info.type = PointerType::kRegisteredShared;
    info.gpu_address = a->range().base;
    info.size = a->range().size;
  } else if (a->imported) {
    // hsakmt_fmm_get_mem_info: an object with metadata is REGISTERED_GRAPHICS, with a GPU address only.
    info.type = PointerType::kRegisteredGraphics;
    info.gpu_address = a->range().base;
    info.size = a->range().size;
  } else if (a->kind == Kind::kAddressOnly) {
    // hsakmt_fmm_get_mem_info: a reservation reports its GPU address only, no CPU address.
    info.type = PointerType::kReservedAddr;
    info.gpu_address = a->range().base;
    info.size = a->range().size;
  } else {
    info.type = PointerType::kAllocated;
    info.cpu_address = a->range().base;
    info.gpu_address = a->range().base;
    info.size = a->range().size;
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
  TraceSlice trace_slice(TraceCategory::kHsakmt, "hsaKmtAvailableMemory");
  const Gpu* gpu = GpuOfNode(node);
  if (gpu == nullptr) return InvalidNodeUnitError(absl::StrCat("hsaKmtAvailableMemory(node=", node.raw(), "): not a GPU node"));
  kfd_uapi::GetAvailableMemoryArgs args{};
  args.gpu_id = gpu->gpu_id.raw();
  RETURN_IF_ERROR(WithHsakmtStatus(Ioctl(*device_, kfd_uapi::kAvailableMemory, args), HSAKMT_STATUS_ERROR));
  return Bytes(args.available);
}

std::optional<Kfd::AllocationInfo> Kfd::FindAllocation(DeviceAddress address) const {
  CountAddressLookup();
  ScopedLock lock(&mu_);
  const Allocation* a = FindContainingLocked(address);
  if (a == nullptr) return std::nullopt;
  return AllocationInfo{a->range(), a->node, a->flags, a->is_vram, a->mapped_gpus};
}

}  // namespace hipmem::thunk
